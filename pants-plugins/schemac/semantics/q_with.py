"""``with`` blocks and the selections they bind: aliases, unions of bindings,
detached and bound writes, selections of a binding
(https://docs.geldata.com/reference/edgeql/with).

Part of the statement checker (:mod:`schemac.semantics.queries`), split by concern."""

from __future__ import annotations
import dataclasses
from typing import Dict, List, Optional, Set, Tuple
from schemac.semantics import computed_sql, fts, policies, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import Reporter, Span, did_you_mean
from schemac.frozen import fast_init_all
from schemac.semantics.exprs import ExprContext, ParamTable, check, is_param, check_filter
from schemac.semantics.e_funcs import assert_call, value_set_parts
from schemac.semantics.e_params import for_rows, is_for_rows, free_loop, free_rows, first_free_row
from schemac.semantics.model import ExclusiveConstraint, ObjectType, Schema
from schemac.semantics.qir import MANY, ONE, ResultField
from schemac.semantics.sqlnames import qi
from schemac.semantics import q_dml, q_filters, q_for, q_group, q_select, q_shapes, q_values, queries


def _write_returning(qf: ast.QueryFile, w, subject: ObjectType, shape, span: Span, ctx: ExprContext,
                     cardinality: Optional[str] = None) -> Optional[qir.Query]:
    """The query of a write returning ``shape`` of its objects (``{ id }`` without one):
    ``RETURNING`` a flat shape; a shape with nested links selects from the written rows.
    ``cardinality``: the query's, when not the write's (a ``for`` loop's: ``many``)."""
    shape = shape if shape is not None else (ast.ShapeElement("id", None, span),)
    links_after = q_filters._links_after(w)
    elements = q_shapes._shape(shape, subject, qi(subject.table), ctx, depth=0, written=w.written_links,
                      written_from={**getattr(w, "written_sources", {}), **links_after})
    if ctx.reporter.has_errors:
        return None
    nested = any(isinstance(el, (qir.ShapeLink, qir.ShapeComputedLink)) for el in elements)
    if nested:
        sel = ast.SelectQuery(subject.name, span, shape, None, (), None, None, span)
        node, selected = q_select._select_node(sel, subject, dataclasses.replace(ctx, written_row=qi(subject.table)), w, "_new",
                                      links_after=links_after)
        if node is None:
            return None
        return q_values._plan(qf, w.kind, subject, qir.WriteThenSelect(span, w, node), ctx, cardinality or selected,
                     w.exclusives, q_select._fields(node.shape))
    return q_values._plan(qf, w.kind, subject, qir.Returning(span, w, tuple(elements)), ctx, cardinality or w.cardinality,
                 w.exclusives, q_select._fields(elements))


_ASSERT_DISTINCT = ("assert_distinct", "std::assert_distinct")


def _calls(root, names) -> bool:
    """Whether the syntax tree ``root`` calls one of the functions ``names``."""
    return any(type(n) is ast.FuncCall and n.name in names for n in ast.walk_syntax(root))


def _drop_assert_distinct(node, schema: Schema, env: Dict[str, bool]):
    """``node`` with ``assert_distinct(S)`` replaced by ``S`` where ``S`` is a selection of
    objects of one type (``(select Person filter ...)``, a ``with`` name bound to one, the type
    itself): its objects are distinct, so Gel's check never fails
    (https://docs.geldata.com/reference/stdlib/set#function::std::assert_distinct). ``env``: the
    ``with`` names in scope, whether each is such a selection. Any other ``assert_distinct``
    stays, for the checker's located E0206."""
    if isinstance(node, tuple):
        items = tuple(_drop_assert_distinct(x, schema, env) for x in node)
        return items if any(a is not b for a, b in zip(items, node)) else node
    if not dataclasses.is_dataclass(node) or isinstance(node, (Span, type, ast.TypeRef)):
        return node
    if isinstance(node, ast.FuncCall) and node.name in _ASSERT_DISTINCT and len(node.args) == 1 \
            and _distinct_objects(node.args[0], schema, env):
        return _drop_assert_distinct(node.args[0], schema, env)
    if isinstance(node, (ast.WithExpr, ast.WithQuery)):
        inner = dict(env)
        bindings = []
        for b in node.bindings:
            value = _drop_assert_distinct(b.value, schema, inner)
            bindings.append(b if value is b.value else dataclasses.replace(b, value=value))
            inner[b.name] = _distinct_objects(value, schema, inner)
        body = _drop_assert_distinct(node.body, schema, inner)
        if body is node.body and all(a is b for a, b in zip(bindings, node.bindings)):
            return node
        return dataclasses.replace(node, bindings=tuple(bindings), body=body)
    if isinstance(node, (ast.ForExpr, ast.ForQuery)):
        inner = dict(env, **{node.var: False})
        source = _drop_assert_distinct(node.source, schema, env)
        body = _drop_assert_distinct(node.body, schema, inner)
        return node if source is node.source and body is node.body else \
            dataclasses.replace(node, source=source, body=body)
    changes = {}
    for fld in dataclasses.fields(node):
        v = getattr(node, fld.name)
        if isinstance(v, (str, int, float, bool)) or v is None:
            continue
        nv = _drop_assert_distinct(v, schema, env)
        if nv is not v:
            changes[fld.name] = nv
    return dataclasses.replace(node, **changes) if changes else node


def _distinct_objects(node, schema: Schema, env: Dict[str, bool]) -> bool:
    """Whether ``node`` is a selection of objects of one type (see :func:`_drop_assert_distinct`)."""
    if isinstance(node, ast.SubSelect):
        return node.type_name not in env or env[node.type_name]
    if isinstance(node, ast.SelectExpr):
        return _distinct_objects(node.subject, schema, env)
    if isinstance(node, ast.VarRef):
        if node.name in env:
            return env[node.name]
        return schema.find_type(node.name) is not None
    if isinstance(node, ast.FuncCall) and node.name.replace("std::", "") in ("assert_single", "assert_exists",
                                                                             "assert_distinct") \
            and len(node.args) == 1:
        return _distinct_objects(node.args[0], schema, env)
    return False


def _unshadow(q: ast.WithQuery) -> ast.WithQuery:
    """``q`` with every name bound once: Gel reads a ``with`` block in order, each binding in the
    scope of the ones before it, and a name bound again shadows the earlier binding from there
    on (``player := (select Player filter ...), player := assert_exists(player)``: the second
    reads the first; Gel's compiler declares each binding's view in turn,
    https://docs.geldata.com/reference/edgeql/with). An earlier binding of a name bound again is
    renamed ``name~n``, and so are the references to it up to the binding that shadows it (its
    value included); the last binding of a name keeps it."""
    last = {b.name: i for i, b in enumerate(q.bindings)}
    if len(last) == len(q.bindings):
        return q
    taken = set(last)
    env: Dict[str, str] = {}
    bindings = []
    for i, b in enumerate(q.bindings):
        value = _rename_refs(b.value, env)
        name = b.name
        if b.name == "module" and isinstance(b.value, ast.VarRef) and b.name_span == b.value.span:
            bindings.append(b)  # (`with module x`)
            continue
        if last[b.name] != i:
            n = 1
            while f"{b.name}~{n}" in taken:
                n += 1
            name = f"{b.name}~{n}"
            taken.add(name)
            env[b.name] = name
        else:
            env.pop(b.name, None)
        bindings.append(dataclasses.replace(b, name=name, value=value))
    return dataclasses.replace(q, bindings=tuple(bindings), body=_rename_refs(q.body, env))


#: The nodes that name a ``with`` binding (or a type) in a string field.
_NAMING_FIELDS = {ast.VarRef: "name", ast.SubSelect: "type_name", ast.SelectQuery: "type_name",
                  ast.InsertQuery: "type_name", ast.UpdateQuery: "type_name", ast.DeleteQuery: "type_name",
                  ast.ConflictElse: "type_name"}


def _rename_refs(node, env: Dict[str, str]):
    """``node`` with the references to the names of ``env`` renamed (see :func:`_unshadow`); a
    nested ``with``, a ``for`` variable or a ``group``'s ``using`` name that binds one of them
    again hides it in its scope."""
    if not env:
        return node
    if isinstance(node, tuple):
        items = tuple(_rename_refs(x, env) for x in node)
        return items if any(a is not b for a, b in zip(items, node)) else node
    if not dataclasses.is_dataclass(node) or isinstance(node, (Span, type, ast.TypeRef)):
        return node
    if isinstance(node, (ast.WithExpr, ast.WithQuery)):
        inner = dict(env)
        bindings = []
        for b in node.bindings:
            bindings.append(dataclasses.replace(b, value=_rename_refs(b.value, inner)))
            inner.pop(b.name, None)
        return dataclasses.replace(node, bindings=tuple(bindings), body=_rename_refs(node.body, inner))
    if isinstance(node, (ast.ForExpr, ast.ForQuery)):
        inner = {k: v for k, v in env.items() if k != node.var}
        return dataclasses.replace(node, source=_rename_refs(node.source, env), body=_rename_refs(node.body, inner))
    if isinstance(node, ast.GroupExpr):
        inner = {k: v for k, v in env.items() if k not in {n for n, _ in node.using}}
        return dataclasses.replace(node, subject=_rename_refs(node.subject, env),
                                   using=tuple((n, _rename_refs(v, env)) for n, v in node.using),
                                   by=_rename_refs(node.by, inner), shape=_rename_refs(node.shape, inner))
    changes = {}
    for fld in dataclasses.fields(node):
        v = getattr(node, fld.name)
        if isinstance(v, str):
            if _NAMING_FIELDS.get(type(node)) == fld.name and v in env:
                changes[fld.name] = env[v]
            continue
        nv = _rename_refs(v, env)
        if nv is not v:
            changes[fld.name] = nv
    return dataclasses.replace(node, **changes) if changes else node


class _NotTheObject(Exception):
    """A ``with`` name read where :func:`_union_binding_select` cannot say which object it means."""


def _union_binding_select(q: ast.WithQuery, schema: Schema, module: str) -> ast.WithQuery:
    """``with r := (select A) union (select B) select r { shape } [filter] [order by] [offset]
    [limit]`` (also ``A union B``, ``{A, B}``; each operand a type or a select of one, ``r`` read
    nowhere else) as ``select (A union B) { shape } ...`` (:func:`_object_union`): a ``with`` name
    is its value (https://docs.geldata.com/reference/edgeql/with), and in the shape, filter and
    order of ``select r`` the name ``r`` is the object being selected (Gel's path scope,
    https://docs.geldata.com/reference/edgeql/paths), so ``r.x`` there is ``.x`` and ``r is T``
    its type check (https://docs.geldata.com/reference/stdlib/type#operator::is: a constant of
    each subtype's branch). ``q`` itself for any other block, or when ``r`` is read inside a
    nested shape or a sub-select with clauses of its own (where ``.`` is another object)."""
    body = q.body
    if not isinstance(body, ast.SelectQuery):
        return q
    name = body.type_name
    found = [i for i, b in enumerate(q.bindings) if b.name == name]
    if len(found) != 1:
        return q
    value = q.bindings[found[0]].value
    leaves = q_values._union_leaves(value)
    bound = {b.name for b in q.bindings}

    def a_type(e) -> bool:
        if isinstance(e, ast.SubSelect):
            e = ast.VarRef(e.type_name, e.type_span)
        if isinstance(e, ast.SelectExpr) and e.shape is None:
            e = e.subject
        return isinstance(e, ast.VarRef) and not e.detached and e.name not in bound and (
            schema.find_type(e.name, module) is not None or queries._abstract_key(schema, e.name, module) is not None)

    others = q.bindings[:found[0]] + q.bindings[found[0] + 1:]
    if len(leaves) < 2 or not all(a_type(leaf) for leaf in leaves) or any(_reads_names(b.value, {name}) for b in others):
        return q
    scoped = (ast.ShapeExpr, ast.ForExpr, ast.GroupExpr, ast.WithExpr, ast.SubSelect, ast.FreeObject,
              ast.StatementExpr, ast.InsertQuery, ast.UpdateQuery, ast.DeleteQuery)

    def the_object(e):
        if isinstance(e, ast.EnumRef) and e.enum == name:
            return ast.Path((e.member,), e.span)
        if isinstance(e, ast.Step) and e.kind == "." and _reads_names(e.base, {name}):
            base = ast.map_expr(e.base, the_object)
            if isinstance(base, ast.Path):
                return ast.Path(base.steps + (e.name,), e.span)
            return dataclasses.replace(e, base=base)
        if isinstance(e, ast.TypeCheck) and isinstance(e.operand, ast.VarRef) and e.operand.name == name \
                and not e.operand.detached:
            return dataclasses.replace(e, operand=ast.Path((), e.operand.span))
        if isinstance(e, ast.VarRef) and e.name == name:
            raise _NotTheObject
        if isinstance(e, ast.SelectExpr) and (e.shape or e.filter is not None or e.order or e.offset is not None
                                              or e.limit is not None or isinstance(e.subject, ast.VarRef)) \
                and _reads_names(e, {name}):
            raise _NotTheObject
        if isinstance(e, scoped) and _reads_names(e, {name}):
            raise _NotTheObject
        return e

    try:
        shape = None
        if body.shape is not None:
            shape = []
            for el in body.shape:
                if _reads_names((el.shape, el.filter, el.order, el.offset, el.limit), {name}):
                    return q
                shape.append(el if el.value is None else dataclasses.replace(el, value=ast.map_expr(el.value,
                                                                                                    the_object)))
        filt = None if body.filter is None else ast.map_expr(body.filter, the_object)
        order = tuple(dataclasses.replace(o, expr=ast.map_expr(o.expr, the_object)) for o in body.order)
    except _NotTheObject:
        return q
    if _reads_names((body.offset, body.limit), {name}):
        return q
    selected = value if shape is None else ast.ShapeExpr(value, tuple(shape), body.span)
    select = ast.SelectValue(selected, filt, order, body.offset, body.limit, body.span)
    return dataclasses.replace(q, bindings=others, body=select)


_UNPACKS = ("array_unpack", "std::array_unpack", "json_array_unpack", "std::json_array_unpack")


def _unpack_loop_sources(q: ast.WithQuery) -> ast.WithQuery:
    """``with xs := json_array_unpack(<json>$p) for x in xs union (...)`` (also ``array_unpack``,
    and a loop inside a later binding): a loop over a ``with`` name bound to the unpacked
    elements of a parameter is the loop over that value, written in its place. A ``with`` name
    is its value (https://docs.geldata.com/reference/edgeql/with), and unpacking a parameter
    gives the same elements in the same order wherever it is written. The binding is dropped
    when nothing else reads it; a ``json_array_unpack`` binding read otherwise is left as it is
    (refused, located). ``q`` itself when no loop iterates over such a name, or when an inner
    scope binds the name again."""
    out = q
    for b in q.bindings:
        if not (isinstance(b.value, ast.FuncCall) and b.value.name in _UNPACKS and len(b.value.args) == 1):
            continue
        name, value = b.name, b.value
        if _binds_again(out, name, b):
            continue

        def loop_over(e, name=name, value=value):
            if isinstance(e, (ast.ForExpr, ast.ForQuery)) and isinstance(e.source, ast.VarRef) \
                    and e.source.name == name and not e.source.detached:
                return dataclasses.replace(e, source=value, body=ast.map_expr(e.body, loop_over))
            return e

        i = out.bindings.index(b)
        later = tuple(dataclasses.replace(x, value=ast.map_expr(x.value, loop_over)) for x in out.bindings[i + 1:])
        body = ast.map_expr(out.body, loop_over)
        if later == out.bindings[i + 1:] and body is out.body:
            continue
        read = _reads_names((later, body), {name})
        if read and b.value.name.endswith("json_array_unpack"):
            continue
        out = dataclasses.replace(out, bindings=out.bindings[:i] + (() if not read else (b,)) + later, body=body)
    return out


def _binds_again(node, name: str, binding) -> bool:
    """Whether ``node`` binds ``name`` again anywhere but in ``binding``: a ``for`` variable, a
    ``with`` binding of a nested block, a ``group``'s ``using`` name."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
            continue
        if not dataclasses.is_dataclass(n) or isinstance(n, (Span, type)):
            continue
        if (isinstance(n, (ast.ForExpr, ast.ForQuery)) and n.var == name) \
                or (isinstance(n, ast.WithBinding) and n.name == name and n is not binding) \
                or (isinstance(n, ast.GroupExpr) and any(u == name for u, _ in n.using)):
            return True
        stack.extend(getattr(n, f.name) for f in dataclasses.fields(n))
    return False


def _type_aliases(q: ast.WithQuery, schema: Schema) -> ast.WithQuery:
    """``q`` with each binding of a bare type name, ``with B := Book``, written ``B :=
    (select Book)``: the name stands for the set of the type's objects
    (https://docs.geldata.com/reference/edgeql/with: a ``with`` name is an alias of its
    expression), so ``select B { title } filter ...`` is ``select Book { ... } filter ...``.
    ``with I := detached Issue`` (geldata/gel tests/schemas/issues_setup.edgeql) is the same set:
    a ``with`` name is computed in a scope of its own, so ``detached`` changes nothing there
    (https://docs.geldata.com/reference/edgeql/paths#detached)."""
    module = next((b.value.name for b in q.bindings if b.name == "module" and isinstance(b.value, ast.VarRef)
                   and b.name_span == b.value.span), "default")
    bound: Set[str] = set()
    out = []
    for b in q.bindings:
        v = b.value
        if isinstance(v, ast.VarRef) and v.name not in bound and b.name != "module" \
                and schema.find_type(v.name, module) is not None:
            if v.detached:
                v = dataclasses.replace(v, detached=False)
            b = dataclasses.replace(b, value=ast.SelectExpr(v, None, None, (), None, None, v.span))
        bound.add(b.name)
        out.append(b)
    return dataclasses.replace(q, bindings=tuple(out)) if out != list(q.bindings) else q


@dataclasses.dataclass
class _WithScope:
    """What a ``with`` block's bindings have bound so far, read by its body."""
    schema: Schema
    reporter: Reporter
    ctx: ExprContext
    #: the checked bindings (bound writes and values), in order
    bindings: List[qir.Node] = dataclasses.field(default_factory=list)
    #: `p := (insert ...)`: the writes, by name
    writes: Dict[str, qir.Node] = dataclasses.field(default_factory=dict)
    exclusives: List[ExclusiveConstraint] = dataclasses.field(default_factory=list)
    #: the names the query reads as selections of objects (`select u { ... }`, `count(u)`)
    selections: Set[str] = dataclasses.field(default_factory=set)
    #: `g := (group ...)` and `c := (select g { n := count(.elements) })`: the group and the
    #: computed fields added to it (https://docs.geldata.com/reference/edgeql/group).
    groups: Dict[str, Tuple[ast.GroupExpr, Tuple[ast.ShapeElement, ...]]] = dataclasses.field(default_factory=dict)
    #: `s := (select T { shape } filter ...)`: the shape written in the binding, which Gel keeps
    #: on the objects when the query selects `s` itself (https://docs.geldata.com/reference/edgeql/with)
    binding_shapes: Dict[str, Tuple[ast.ShapeElement, ...]] = dataclasses.field(default_factory=dict)


def _with(qf: ast.QueryFile, q: ast.WithQuery, schema: Schema, reporter: Reporter) -> Optional[qir.Query]:
    """``with x := <expr>, p := (insert ...) <query>``.

    A binding to a parameter or a constant is that value, written where it is used (a
    parameter is bound once, however often it is used); any other expression is computed once.
    A binding to an insert, update or delete runs exactly once even when nothing reads it, and
    ``select p { ... }`` selects its rows with any shape. In phases: the block rewritten
    (:func:`_desugar_with`), its bindings checked in order (:func:`_check_bindings`), its body
    checked (:func:`_with_body`), the statement assembled (:func:`_with_statement`)."""
    desugared = _desugar_with(q, schema, reporter)
    if desugared is None:
        return None
    q = desugared
    params = ParamTable()
    ctx = ExprContext(schema, None, "default", reporter, params=params, where="a query", fts_queries={}, query_filter=q_filters._query_filter)
    scope = _WithScope(schema, reporter, ctx, selections=_selection_bindings(q, schema))
    ctx.group_bindings = scope.groups  # (filled below; a free object's field may select them)
    ctx.group_field_array = q_group.group_field_array
    _check_bindings(q, scope)
    if reporter.has_errors:
        return None
    query = _with_body(qf, q.body, scope)
    if query is None or reporter.has_errors:
        return None
    return _with_statement(qf, q, scope, query)


def _desugar_with(q: ast.WithQuery, schema: Schema, reporter: Reporter) -> Optional[ast.WithQuery]:
    """The ``with`` block in the forms the checker reads: names unshadowed, type aliases, unions of
    bindings, loop sources unpacked, full-text searches desugared, back links of a selection."""
    q = _unshadow(q)
    q = _type_aliases(q, schema)
    module = next((b.value.name for b in q.bindings if b.name == "module" and isinstance(b.value, ast.VarRef)
                   and b.name_span == b.value.span), "default")
    q = _union_binding_select(q, schema, module)
    q = _unpack_loop_sources(q)
    desugared = fts.desugar_search_bindings(q, reporter)
    if desugared is None:
        return None
    return dataclasses.replace(desugared, body=_backlink_selection(desugared.body, {b.name for b in q.bindings},
                                                                   schema, module))


def _check_bindings(q: ast.WithQuery, scope: _WithScope) -> None:
    """Each binding of ``q`` in order, into ``scope``. A binding reading one refused (reported)
    before it is not checked (its errors would only repeat theirs, as an unknown name)."""
    ctx, schema, reporter = scope.ctx, scope.schema, scope.reporter
    refused: Set[str] = set()
    previous: Optional[Tuple[str, int]] = None
    for b in q.bindings:
        scope.binding_shapes.pop(b.name, None)
        if isinstance(b.value, ast.SelectExpr) and isinstance(b.value.subject, ast.VarRef) and b.value.shape \
                and b.value.subject.name not in ctx.variables:
            scope.binding_shapes[b.name] = tuple(b.value.shape)
        errors = sum(1 for d in reporter.diagnostics if d.severity == "error")
        if previous is not None and errors > previous[1]:
            refused.add(previous[0])
        previous = (b.name, errors)
        if refused and _reads_names(b.value, refused):
            refused.add(b.name)
            previous = None
            continue
        if b.name == "module" and isinstance(b.value, ast.VarRef) and b.span != b.value.span \
                and b.name_span == b.value.span:
            # `with module x` (https://docs.geldata.com/reference/edgeql/with#module-selection):
            # bare names resolve in module x first, then in default.
            if not schema.has_module(b.value.name):
                reporter.error("E0301", f"unknown module '{b.value.name}'", b.value.span)
                continue
            ctx.module = b.value.name
            continue
        value = _merge_selections(_in_module(b.value, ctx), ctx)
        if isinstance(value, ast.IfElse) and _if_else_selection(value, schema, ctx.module) is not None:
            # (`<T>{}` in a branch: a selection that keeps none)
            value = dataclasses.replace(value, then=_empty_objects(value.then, schema, ctx.module),
                                        else_=_empty_objects(value.else_, schema, ctx.module))
        for handler in _BINDING_KINDS:
            if handler(b, value, scope):
                break


def _bind_groups(b: ast.WithBinding, value, scope: _WithScope) -> bool:
    """``g := (group ...)``, ``sorted := (select g order by .k)`` and ``c := (select g { n := ... })``."""
    ctx, groups = scope.ctx, scope.groups
    if isinstance(value, ast.GroupExpr):
        groups[b.name] = (value, ())
        return True
    if not (isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.VarRef)
            and value.subject.name in groups and value.subject.name not in ctx.variables):
        return False
    g, extras = groups[value.subject.name]
    if value.order and value.shape is None and value.filter is None and value.offset is None \
            and value.limit is None and value.subject.name not in ctx.group_orders:
        # `sorted := (select g order by .k)`: the groups in that order, whose fields
        # array_agg((select sorted.k)) reads in it
        groups[b.name] = (g, extras)
        ctx.group_orders = {**ctx.group_orders, b.name: tuple(value.order)}
        return True
    if value.filter is not None or value.order or value.offset is not None or value.limit is not None \
            or any(el.value is None for el in value.shape or ()):
        scope.reporter.error("E0206", "a 'with' selection of groups other than (select g { name := ..., ... }) "
                             "is not supported yet", value.span,
                             "filter, order and shape the groups in the query's own select")
        return True
    groups[b.name] = (g, extras + tuple(value.shape or ()))
    return True


def _bind_view(b: ast.WithBinding, value, scope: _WithScope) -> bool:
    """``m := (select Message { cmd := <expr> } filter ...)``: the objects, with the computed
    elements a ``group m using k := .cmd`` reads (https://docs.geldata.com/reference/edgeql/shapes)."""
    ctx = scope.ctx
    if not _computed_view(value, scope.schema, ctx.module):
        return False
    ctx.type_sets[b.name] = dataclasses.replace(value, shape=None)
    ctx.views = {**ctx.views, b.name: {el.name: el.value for el in value.shape if el.value is not None}}
    return True


def _bind_sets(b: ast.WithBinding, value, scope: _WithScope) -> bool:
    """A name bound to a set read where it is used: a selection of objects, ``array_unpack(...)``,
    a set of values (``{1, 2} union ...``)."""
    ctx, schema = scope.ctx, scope.schema
    several = False
    if _selection_of(value, schema, ctx.module) is not None:
        ctx.selections[b.name] = _if_else_selection(value, schema, ctx.module) or value
        sub = computed_sql.as_subselect(ctx.selections[b.name])
        target = schema.find_type(sub.type_name, ctx.module) if sub is not None else None
        # (a selection that may hold several objects is no one value: it is read where it
        # is used, as a link's value or a set)
        several = target is not None and not computed_sql.filter_pins_one(sub.filter, target)  # type: ignore[union-attr]
    if b.name in scope.selections or several:
        # `with u := (select User filter ...)`, read as `select u { ... }`, `count(u)`, `exists u`.
        ctx.type_sets[b.name] = _normal_selection(value, schema, ctx.module)
        return True
    if isinstance(value, ast.FuncCall) and value.name in ("json_array_unpack", "std::json_array_unpack"):
        # (https://docs.geldata.com/reference/stdlib/json#function::std::json_array_unpack)
        scope.reporter.error("E0206", "a 'with' name bound to json_array_unpack(...), a set of JSON values, is not "
                             "supported yet", value.span,
                             "iterate over it where it is read: for x in json_array_unpack(<json>$p) union (...)")
        return True
    if isinstance(value, ast.FuncCall) and value.name in ("array_unpack", "std::array_unpack"):
        # `with ids := array_unpack(<array<str>>$ids)`: a set, read where it is used
        # (`.id in ids`); its parameter is bound there.
        ctx.type_sets[b.name] = value
        return True
    if isinstance(value, (ast.SetLit, ast.BinOp)) and value_set_parts(value) is not None \
            and (not isinstance(value, ast.SetLit) or len(value.items) > 1):
        # `with xs := {1, 2} union array_unpack(...)`: a set of values, read where it is
        # used (`count(xs)`, `sum(xs)`, https://docs.geldata.com/reference/edgeql/with)
        ctx.type_sets[b.name] = value
        return True
    return False


def _bind_rows(b: ast.WithBinding, value, scope: _WithScope) -> bool:
    """Free objects of a loop (``for i in ... union (select { a := ... })``), one of them
    (``select s order by .a limit 1``), and a ``for`` loop's multiset of values."""
    ctx = scope.ctx
    if free_loop(value):
        # `with s := (for i in range_unpack(r) union (select { a := ..., ... }))`: free objects
        rows = free_rows(value, ctx)
        if rows is not None:
            ctx.free_rows = {**ctx.free_rows, b.name: rows}
        return True
    if isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.VarRef) \
            and value.subject.name in ctx.free_rows and value.subject.name not in ctx.variables:
        # `first := (select s order by .a desc limit 1)`: one of them
        if value.shape is not None or value.filter is not None or value.offset is not None \
                or not (isinstance(value.limit, ast.Literal) and value.limit.value == 1) \
                or ctx.free_rows[value.subject.name].first:  # type: ignore[attr-defined]
            scope.reporter.error("E0206", "a selection of free objects is supported as (select s order by .a limit 1)",
                                 value.span)
            return True
        rows = first_free_row(value, ctx)
        if rows is not None:
            ctx.free_rows = {**ctx.free_rows, b.name: rows}
        return True
    if is_for_rows(value, ctx):
        # `with s := (for x in <objects> union <value of x>)`: a multiset of values, read
        # where it is used (`count(s)`, `group s using k := ... by k`)
        if for_rows(value, ctx) is not None:
            ctx.row_sets = {**ctx.row_sets, b.name: value}
        return True
    return False


def _bind_write(b: ast.WithBinding, value, scope: _WithScope) -> bool:
    """``p := (insert ...)``, an update, a delete, or a bulk insert ``for x in ... union (insert ...)``:
    a write that runs exactly once (https://docs.geldata.com/reference/edgeql/with)."""
    ctx, schema, reporter = scope.ctx, scope.schema, scope.reporter
    if isinstance(value, ast.StatementExpr) and isinstance(value.query, ast.ForQuery):
        value = value.query
    per_element: Tuple[ast.WithBinding, ...] = ()
    if isinstance(value, ast.ForExpr) and isinstance(q_for._unparen(value.body), ast.WithExpr) \
            and isinstance(q_for._unparen(q_for._unparen(value.body).body), ast.InsertQuery):
        # `for x in ... union (with a := <expr>, ... insert T {...})`: the names bound per
        # element, written where they are used (as in a for loop of its own).
        per_element = q_for._unparen(value.body).bindings
        value = ast.ForQuery(value.var, value.var_span, value.source, q_for._unparen(q_for._unparen(value.body).body),
                             value.span)
    if not isinstance(value, (ast.InsertQuery, ast.UpdateQuery, ast.DeleteQuery, ast.ForQuery)):
        return False
    subject = schema.find_type(value.type_name, ctx.module)
    if subject is None:
        reporter.error("E0301", f"unknown type '{value.type_name}'", value.type_span,
                       did_you_mean(value.type_name.split("::")[-1], [t.name for t in schema.all_types()]))
        return True
    if isinstance(value, ast.ForQuery):
        # `with ps := (for x in json_array_unpack(...) union (insert T {...}))`: the bulk
        # insert, bound like any other write (https://docs.geldata.com/reference/edgeql/for).
        inner = dataclasses.replace(ctx, subject=subject, variables=dict(ctx.variables))
        batch = q_for._loop(value, inner)
        if batch is not None and not q_for._bind_per_element(per_element, inner):
            return True
        w = None if batch is None else q_dml._insert_write(value.body, subject, inner, batch=batch)
        if w is None:
            return True
        w = dataclasses.replace(w, cardinality=MANY)
    elif not isinstance(value, ast.InsertQuery) and value.subject is None \
            and computed_sql.has_subtypes(schema, subject):
        # (its objects and its subtypes', in their own tables, read back as one set: only a
        # statement's own update / delete of it is lowered, q_dml._update_each_table)
        what = "an update" if isinstance(value, ast.UpdateQuery) else "a delete"
        computed_sql.concrete_parent(schema, subject, value.type_span, reporter, f"{what} bound by 'with'")
        return True
    else:
        w = q_dml._write_of(value, subject, dataclasses.replace(ctx, subject=subject))
        if w is None:
            return True
    scope.writes[b.name] = w
    ctx.bound_writes[b.name] = w
    scope.exclusives.extend(w.exclusives)
    scope.bindings.append(qir.BoundWrite(b.span, b.name, w))
    ctx.bound_statements[b.name] = f"{'an' if w.kind in ('insert', 'update') else 'a'} {w.kind} of " \
                                   f"'{subject.name}'"
    return True


def _bind_value(b: ast.WithBinding, value, scope: _WithScope) -> bool:
    """Any other expression: a value computed once (a parameter or a constant: written where it
    is used)."""
    low = check(value, scope.ctx)
    if low is None:
        return True
    constant = isinstance(value, (ast.Literal, ast.EnumRef, ast.VarRef)) or is_param(low)
    binding = qir.WithValue(b.name, low, constant)
    scope.ctx.variables[b.name] = binding
    scope.bindings.append(binding)
    return True


#: The kinds of binding, tried in order: each handler binds ``b`` and answers True, or answers
#: False when ``value`` is not of its kind.
_BINDING_KINDS = (_bind_groups, _bind_view, _bind_sets, _bind_rows, _bind_write, _bind_value)


def _with_body(qf: ast.QueryFile, body, scope: _WithScope) -> Optional[qir.Query]:
    """The query of the ``with`` block's body, which reads the names ``scope`` bound."""
    ctx, reporter = scope.ctx, scope.reporter
    if isinstance(body, (ast.SelectQuery, ast.UpdateQuery, ast.DeleteQuery)) and body.type_name in ctx.row_sets:
        reporter.error("E0206", f"'{body.type_name}' is a set of a 'for' loop over objects: reading it other than by "
                       "count(), sum(), min(), max() or group is not supported yet", body.type_span,
                       f"count({body.type_name}), or group {body.type_name} ... by ...")
        return None
    if isinstance(body, ast.SelectQuery) and body.type_name in scope.writes:
        w = scope.writes[body.type_name]
        node, cardinality = q_select._select_node(body, w.subject, dataclasses.replace(ctx, subject=w.subject),  # type: ignore[attr-defined]
                                                  w, f"_with_{body.type_name}")
        return None if node is None else q_values._plan(qf, w.kind, w.subject, node, ctx, cardinality,  # type: ignore[attr-defined]
                                                        w.exclusives, q_select._fields(node.shape))  # type: ignore[attr-defined]
    if isinstance(body, ast.SelectValue):
        return _with_select_value(qf, body, scope)
    if isinstance(body, ast.SelectQuery) and body.type_name in ctx.type_sets:
        return _with_select_set(qf, body, scope)
    if isinstance(body, ast.ForExpr):
        return q_for._for_any(dataclasses.replace(qf, query=body), body, ctx)
    if isinstance(body, (ast.UpdateQuery, ast.DeleteQuery)) and body.type_name in ctx.type_sets:
        write = _write_of_selection(body, ctx.type_sets[body.type_name], ctx)
        if write is None:
            return None
        subject = scope.schema.find_type(write.type_name, ctx.module)
        assert subject is not None  # (checked by _selection_bindings)
        return queries._plan_body(dataclasses.replace(qf, query=write), write, subject,
                                  dataclasses.replace(ctx, subject=subject))
    if isinstance(body, ast.GroupExpr):
        return q_group._group_query(dataclasses.replace(qf, query=body), body, ctx)
    if isinstance(body, ast.SelectQuery) and body.type_name in scope.groups and body.type_name not in ctx.variables:
        g, extras = scope.groups[body.type_name]
        return q_group._group_query(dataclasses.replace(qf, query=body), g, ctx, body, extras)
    return _with_select_type(qf, body, scope)


def _with_select_value(qf: ast.QueryFile, body: ast.SelectValue, scope: _WithScope) -> Optional[qir.Query]:
    """``select <value>`` after a ``with``: a distinct union of selections, the objects of bound
    writes (``select {p, q}``), any other value."""
    ctx, schema, writes = scope.ctx, scope.schema, scope.writes
    if _distinct_union(body, ctx) is not None:
        merged = _distinct_union(body, ctx)
        subject = schema.find_type(merged.type_name, ctx.module)  # type: ignore[union-attr]
        assert subject is not None  # (checked by _distinct_union)
        return queries._plan_body(dataclasses.replace(qf, query=merged), merged, subject,  # type: ignore[arg-type]
                                  dataclasses.replace(ctx, subject=subject))
    if isinstance(body.value, ast.SetLit) and body.value.items \
            and not q_shapes._has_clauses(body) and all(isinstance(i, ast.VarRef) and i.name in writes
                                                        and i.name not in ctx.variables for i in body.value.items):
        # `select {p, q}` of bound writes: the objects they wrote, united, each { id }.
        names = tuple(i.name for i in body.value.items)  # type: ignore[attr-defined]
        first = writes[names[0]]
        return q_values._plan(dataclasses.replace(qf, query=body), first.kind, first.subject,  # type: ignore[attr-defined]
                              qir.WrittenUnion(body.span, names), ctx, MANY, ())
    return q_values._select_value(dataclasses.replace(qf, query=body), body, ctx)


def _with_select_set(qf: ast.QueryFile, body: ast.SelectQuery, scope: _WithScope) -> Optional[qir.Query]:
    """``select s`` of a name bound to a set: of values (``xs := {1, 2}``), of objects (a selection)."""
    ctx, reporter, binding_shapes = scope.ctx, scope.reporter, scope.binding_shapes
    bound = ctx.type_sets[body.type_name]
    if body.shape is None and isinstance(bound, (ast.SetLit, ast.BinOp, ast.FuncCall)) \
            and value_set_parts(bound) is not None:
        # `with xs := {1, 2} select xs`: the set's values. Ordered by the values themselves,
        # `with xs := {3, 1, 2} select xs order by xs desc` (Gel's `select xs := {3, 1, 2} order by
        # xs`, https://docs.geldata.com/reference/edgeql/select): each item names the element.
        by_element = bool(body.order) and body.filter is None and body.offset is None and body.limit is None \
            and all(isinstance(o.expr, ast.VarRef) and o.expr.name == body.type_name for o in body.order)
        order = () if by_element else body.order
        value = ast.SelectValue(bound, body.filter, order, body.offset, body.limit, body.span)
        return q_values._select_value(dataclasses.replace(qf, query=value), value, ctx,
                                      tuple(o.descending for o in body.order) if by_element else ())
    if not _simple_selection(bound):
        reporter.error("E0206", f"selecting '{body.type_name}', a set of objects reached through a path or another "
                       "'with' name, with a shape is not supported yet", body.type_span,
                       "select the type with a filter: select T { ... } filter ...")
        return None
    if body.shape is None and body.type_name in binding_shapes and body.type_name not in ctx.variables:
        # `with s := (select T { a, b := ... } filter f) select s`: the objects with the
        # binding's shape, as `select T { a, b := ... } filter f`
        body = dataclasses.replace(body, shape=binding_shapes[body.type_name])
    elif body.shape is not None and body.type_name in binding_shapes and body.type_name not in ctx.variables \
            and {el.name for el in binding_shapes[body.type_name]} - {el.name for el in body.shape}:
        reporter.error("E0206", f"a shape on '{body.type_name}', whose 'with' binding has a shape of its own, "
                       "is not supported yet", body.type_span,
                       "write one shape: select T { ... } filter ..., or select the name without a shape")
        return None
    merged = _select_of_selection(body, bound, ctx)
    if merged is None:
        return None
    subject = scope.schema.find_type(merged.type_name, ctx.module)
    assert subject is not None  # (checked by _selection_bindings)
    return queries._plan_body(dataclasses.replace(qf, query=merged), merged, subject,
                              dataclasses.replace(ctx, subject=subject))


def _with_select_type(qf: ast.QueryFile, body, scope: _WithScope) -> Optional[qir.Query]:
    """A statement on a type after a ``with``: an abstract type's (or a type with subtypes')
    objects, or the type's own."""
    ctx, schema, reporter = scope.ctx, scope.schema, scope.reporter
    if isinstance(body, ast.SelectQuery) and body.type_name in ctx.variables:
        reporter.error("E0206", f"selecting a value ('{body.type_name}') is not supported yet", body.type_span,
                       "select a type, or a bound statement: with p := (insert ...) select p { ... }")
        return None
    if isinstance(body, ast.SelectQuery) and schema.find_type(body.type_name, ctx.module) is None \
            and queries._abstract_key(schema, body.type_name, ctx.module) is not None:
        return queries._abstract_select(dataclasses.replace(qf, query=body), body,
                                        queries._abstract_key(schema, body.type_name, ctx.module), ctx)  # type: ignore[arg-type]
    if isinstance(body, ast.SelectQuery) and computed_sql.has_subtypes(schema, schema.find_type(body.type_name, ctx.module)):
        # a concrete type other types extend: its objects and its subtypes', as an abstract type's
        return queries._abstract_select(dataclasses.replace(qf, query=body), body,
                                        schema.find_type(body.type_name, ctx.module).qualname, ctx)  # type: ignore[union-attr]
    if isinstance(body, ast.DeleteQuery) and body.subject is None and not ctx.variables \
            and schema.find_type(body.type_name, ctx.module) is None \
            and queries._abstract_key(schema, body.type_name, ctx.module) is not None:
        # `with module m delete Ship filter ...`: the objects of its concrete subtypes
        return q_dml._delete_each_table(dataclasses.replace(qf, query=body), body, None, ctx,
                                        queries._abstract_key(schema, body.type_name, ctx.module))
    subject = schema.find_type(body.type_name, ctx.module)
    if subject is None and queries._abstract_type(schema, body.type_name, ctx.module, body.type_span, reporter, body):
        return None
    if subject is None:
        reporter.error("E0301", f"unknown type '{body.type_name}'", body.type_span,
                       did_you_mean(body.type_name.split("::")[-1], [t.name for t in schema.all_types()]
                                    + list(scope.writes)))
        return None
    inner = dataclasses.replace(qf, query=body)
    return queries._plan_body(inner, body, subject, dataclasses.replace(ctx, subject=subject))


def _with_statement(qf: ast.QueryFile, q: ast.WithQuery, scope: _WithScope, query: qir.Query) -> qir.Query:
    """The body's query wrapped in the block's bindings: the full-text queries first (they read
    only parameters), the parameters no part reads kept (bound, unused), the exclusive
    constraints of the bound writes and the body's."""
    statement = qir.With(q.span, tuple(scope.ctx.fts_queries.values()) + tuple(scope.bindings), query.statement)  # type: ignore[union-attr]
    used = _params_used(statement)
    # (a global read by an access policy is in the policy's SQL, not in the IR)
    unused = tuple(qir.ParamRef(p.span, p.type, p.optional, p) for p in query.params
                   if id(p) not in used and p.global_ is None)
    if unused:
        statement = dataclasses.replace(statement, unused=unused)
    all_exclusives = tuple(dict.fromkeys(tuple(scope.exclusives) + query.exclusives))
    return dataclasses.replace(query, statement=statement, exclusives=all_exclusives, doc=qf.doc)


def _reads_names(expr, names: Set[str]) -> bool:
    """``expr`` (an expression or a statement) reads one of the ``with`` names ``names``."""
    stack = [expr]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
            continue
        if not dataclasses.is_dataclass(n) or isinstance(n, (Span, type)):
            continue
        if (isinstance(n, ast.VarRef) and n.name in names) or (isinstance(n, ast.EnumRef) and n.enum in names) \
                or getattr(n, "type_name", None) in names:
            return True
        stack.extend(getattr(n, f.name) for f in dataclasses.fields(n))
    return False


def _backlink_selection(body, names: Set[str], schema: Schema, module: str):
    """``select [distinct] w.<link[is T] { shape } [filter f] [order by ...] [offset n] [limit m]``
    of a ``with`` name ``w`` as ``select T { shape } filter any(.link in w) [and f] ...``: the
    objects of ``T`` whose ``link`` holds one of ``w``'s objects, which is what the backlink
    path reaches (https://docs.geldata.com/reference/datamodel/links#backlinks; a path's objects
    are distinct, so ``distinct`` changes nothing). ``body`` itself for any other query."""
    if not isinstance(body, ast.SelectValue):
        return body
    value = body.value
    if isinstance(value, ast.UnaryOp) and value.op == "distinct":
        value = value.operand
    shape = None
    if isinstance(value, ast.ShapeExpr):
        value, shape = value.base, value.shape
    if not (isinstance(value, ast.TypeFilter) and isinstance(value.base, ast.Step) and value.base.kind == ".<"
            and isinstance(value.base.base, ast.VarRef) and value.base.base.name in names and not value.type.args):
        return body
    target = schema.find_narrowed(value.type.name, module)
    if target is None:
        return body
    step = value.base
    member = ast.FuncCall("any", (ast.BinOp("in", ast.Path((step.name,), step.span), step.base, step.span),),
                          step.span)
    filt = member if body.filter is None else ast.BinOp("and", member, body.filter, body.filter.span)
    return ast.SelectQuery(target.qualname, value.type.span, shape, filt, body.order, body.offset, body.limit,
                           body.span)


def _if_else_selection(value, schema: Schema, module: str) -> Optional[ast.SelectExpr]:
    """``(select User filter f) if cond else (select User [filter g])`` (both branches
    selections of one type without order, offset or limit; ``cond`` reads no path) as the one
    selection ``(select User filter (f if cond else g))``: Gel's ``if ... else`` is the objects
    of the branch ``cond`` picks, and none when ``cond`` is empty
    (https://docs.geldata.com/reference/edgeql/expressions), which is what the merged filter
    keeps (``CASE cond WHEN true THEN f WHEN false THEN g END``: NULL keeps no row). ``None``
    for any other value."""
    if not isinstance(value, ast.IfElse) or any(isinstance(n, (ast.Path, ast.Backlink))
                                                for n in ast.iter_nodes(value.cond)):
        return None
    branches = []
    for b in (value.then, value.else_):
        b = _empty_objects(b, schema, module)
        b = _if_else_selection(b, schema, module) or b  # (a chain: `a if c else b if d else e`)
        if isinstance(b, ast.SubSelect):
            b = ast.SelectExpr(ast.VarRef(b.type_name, b.type_span), None, b.filter, (), None, None, b.span)
        if not (isinstance(b, ast.SelectExpr) and b.shape is None and not b.order and b.offset is None
                and b.limit is None and isinstance(b.subject, ast.VarRef)
                and schema.find_type(b.subject.name, module) is not None):
            return None
        branches.append(b)
    then, else_ = branches
    if schema.find_type(then.subject.name, module) is not schema.find_type(else_.subject.name, module):  # type: ignore[union-attr]
        return None
    filters = [b.filter if b.filter is not None else ast.Literal("bool", True, b.span) for b in branches]
    merged = ast.IfElse(value.cond, filters[0], filters[1], value.span)
    return ast.SelectExpr(then.subject, None, merged, (), None, None, value.span)


def _empty_objects(value, schema: Schema, module: str):
    """``<User>{}``, the empty set of a type's objects
    (https://docs.geldata.com/reference/edgeql/casts), as the selection that keeps none,
    ``(select User filter false)``; any other value as it is."""
    if isinstance(value, ast.Cast) and isinstance(value.operand, ast.SetLit) and not value.operand.items \
            and not value.type.args and schema.find_type(value.type.name, module) is not None:
        return ast.SelectExpr(ast.VarRef(value.type.name, value.type.span), None,
                              ast.Literal("bool", False, value.span), (), None, None, value.span)
    return value


def _computed_view(value, schema: Schema, module: str) -> bool:
    """``(select T { name := <expr>, ... } [filter ...])``: a selection of a type's objects with
    computed scalar elements only (stored names may stand beside them), no order or paging."""
    subject = schema.find_type(value.subject.name, module) \
        if isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.VarRef) else None
    return subject is not None and bool(value.shape) \
        and any(el.value is not None for el in value.shape) and not value.order and value.offset is None \
        and not any(el.value is not None and (subject.column(el.name) is not None or el.name in subject.links
                                              or el.name in subject.computeds or el.name in subject.poly_links)
                    for el in value.shape) \
        and value.limit is None and all(el.shape is None and not el.link_prop and el.filter is None
                                        and not el.order and el.offset is None and el.limit is None
                                        and not getattr(el, "splat", False) and not el.backlink
                                        and el.type_filter is None
                                        and not isinstance(el.value, (ast.SelectExpr, ast.ShapeExpr, ast.SubSelect))
                                        for el in value.shape)  # type: ignore[union-attr]


def _selection_of(value, schema: Schema, module: str,
                  known: Optional[Dict[str, ObjectType]] = None) -> Optional[Tuple[str, Span]]:
    """``(type name, span)`` when ``value`` selects objects of a type without a shape:
    ``(select User filter ...)``, ``(select User order by ... limit n)``, ``User``, and
    :func:`_if_else_selection`."""
    value = _normal_selection(value, schema, module)
    if isinstance(value, ast.SubSelect):
        name, span = value.type_name, value.type_span
    elif isinstance(value, ast.SelectExpr) and value.shape is None and isinstance(value.subject, ast.VarRef):
        name, span = value.subject.name, value.subject.span
    else:
        name, span = "", value.span
    if known is not None:
        # a selection of an earlier `with` name or a path of objects from one
        # (`(select player.<author[is Roll] filter ...)`, `(select rolls filter ...)`)
        t = _rooted_selection_type(value, schema, module, known)
        if t is not None:
            return t.qualname, span
    return (name, span) if name and schema.find_type(name, module) is not None else None


def _normal_selection(value, schema: Schema, module: str):
    """A binding's selection as the compiler reads it: :func:`_if_else_selection` merged, a
    shape of stored names only dropped (it chooses what an output shows)."""
    value = _if_else_selection(value, schema, module) or value
    if isinstance(value, ast.SelectExpr) and value.shape is not None and computed_sql._plain_shape(value.shape):
        value = dataclasses.replace(value, shape=None)
    return value


def _rooted_selection_type(value, schema: Schema, module: str, known: Dict[str, ObjectType]) -> Optional[ObjectType]:
    """The type of the objects of ``value`` when it selects a path of objects from a ``with``
    name of ``known`` (or from a type): ``player.<author[is Roll]``, ``(select rolls.received
    filter ...)``, ``(select rolls order by ...)``; else ``None``."""
    if isinstance(value, ast.SubSelect):
        return known.get(value.type_name)
    while isinstance(value, ast.SelectExpr) and value.shape is None:
        value = value.subject
    root, steps = computed_sql._rooted_steps(value)
    if not isinstance(root, ast.VarRef):
        return None
    cur = known.get(root.name)
    if cur is None and steps:
        cur = schema.find_type(root.name, module)
        if cur is None or schema.find_enum(root.name, module) is not None:
            return None
    scope = _StaticScope(schema, module)
    for i, step in enumerate(steps):
        if isinstance(step, str) and i + 1 < len(steps) and isinstance(steps[i + 1], tuple):
            continue
        cur = computed_sql._step_target(cur, step, scope) if cur is not None else None
    return cur


def _value_path_of(value, schema: Schema, module: str, known: Dict[str, ObjectType]) -> bool:
    """``value`` is ``(select S.p)`` / ``S.p``: a property of the objects of a set of an earlier
    ``with`` name of ``known``."""
    while isinstance(value, ast.SelectExpr) and value.shape is None and value.filter is None and not value.order \
            and value.offset is None and value.limit is None:
        value = value.subject
    if isinstance(value, ast.EnumRef):
        objects, prop = ast.VarRef(value.enum, value.span), value.member
    elif isinstance(value, ast.Step) and value.kind == ".":
        objects, prop = value.base, value.name
    else:
        return False
    root, _ = computed_sql._rooted_steps(objects)
    if not isinstance(root, ast.VarRef) or root.name not in known:
        return False
    t = _rooted_selection_type(objects, schema, module, known)
    return t is not None and t.column(prop) is not None and prop not in t.links


@dataclasses.dataclass
class _StaticScope:
    schema: Schema
    module: str


def _selection_bindings(q: ast.WithQuery, schema: Schema) -> Set[str]:
    """The ``with`` names bound to a selection of a type's objects (:func:`_selection_of`) that
    the query reads only as a set of objects: the subject of its select (``select u { ... }``),
    or ``count(u)`` / ``exists u``. Others (``author := u`` in an insert) stay values."""
    module = next((b.value.name for b in q.bindings if b.name == "module" and isinstance(b.value, ast.VarRef)
                   and b.name_span == b.value.span), "default")
    known: Dict[str, ObjectType] = {}
    candidates = set()
    for b in q.bindings:
        found = _selection_of(b.value, schema, module, known)
        if found is not None:
            candidates.add(b.name)
            t = schema.find_type(found[0], module)
            if t is not None:
                known[b.name] = t
        else:
            known.pop(b.name, None)
            if _value_path_of(b.value, schema, module, known):
                candidates.add(b.name)  # `ids := (select rolls.character.id_al)`: counted, aggregated
    if not candidates:
        return set()
    exprs: List[object] = [b.value for b in q.bindings]
    body = q.body
    set_uses: Set[int] = set()
    if isinstance(body, ast.SelectQuery):
        exprs += [body.filter, body.offset, body.limit] + [o.expr for o in body.order]
        exprs += _shape_values(body.shape or ())
    elif isinstance(body, ast.GroupExpr):
        exprs.append(body)
    elif isinstance(body, ast.SelectValue):
        exprs.append(body.value)
    elif isinstance(body, (ast.UpdateQuery, ast.DeleteQuery)) and body.type_name in candidates:
        # `update u set { ... }` / `delete u`: the objects of the selection (_write_of_selection)
        exprs.append(body.filter)
        if isinstance(body, ast.UpdateQuery):
            exprs += [a.value for a in body.assignments]
    elif isinstance(body, (ast.InsertQuery, ast.UpdateQuery)) and body.type_name:
        # `messages := m` / `tags += m` of a multi link: the objects of the selection
        # (https://docs.geldata.com/reference/edgeql/insert#links); any other use reads it as a value.
        subject = schema.find_type(body.type_name, module)
        if subject is None:
            return set()
        for a in body.assignments:
            link = subject.links.get(a.name)
            if link is not None and link.multi and isinstance(a.value, ast.VarRef) and a.value.name in candidates:
                set_uses.add(id(a.value))
            exprs.append(a.value)
        if isinstance(body, ast.UpdateQuery):
            exprs.append(body.filter)
        elif body.unless_conflict is not None and body.unless_conflict.else_ is not None:
            return set()  # (an upsert's else reads its values apart)
    elif isinstance(body, ast.ForExpr) and isinstance(q_for._unparen(body.body), ast.SelectExpr) \
            and isinstance(q_for._unparen(body.body).subject, ast.VarRef):
        # `for x in ... union (select p { name })`: p's objects per element (_for_any)
        exprs += [body.source, q_for._unparen(body.body)]
    else:
        return set()  # (other writes read their bindings as values)
    if isinstance(body, ast.SelectValue) and isinstance(body.value, ast.FreeObject):
        set_uses.update(id(el.value) for el in body.value.elements)  # (users := u)
    if isinstance(body, ast.SelectValue):
        # `select u union Show`, `select {u, Show} { ... }`: the operands of a union of objects
        # (_object_union)
        top = body.value.base if isinstance(body.value, ast.ShapeExpr) else body.value
        if isinstance(top, (ast.BinOp, ast.SetLit)):
            set_uses.update(id(leaf) for leaf in q_values._union_leaves(top))
    value_uses: Set[str] = set()
    for e in exprs:
        if e is None or isinstance(e, (ast.InsertQuery, ast.UpdateQuery, ast.DeleteQuery)):
            continue
        for n in ast.iter_nodes(e):  # type: ignore[arg-type]
            if isinstance(n, ast.FuncCall) and len(n.args) == 1 and \
                    n.name.replace("std::", "") in ("assert_single", "assert_exists"):
                set_uses.add(id(n.args[0]))  # select assert_single(u) { ... }
            elif isinstance(n, ast.FuncCall) and n.name in ("count", "std::count") and len(n.args) == 1:
                arg = n.args[0]
                arg = arg.subject if isinstance(arg, ast.SelectExpr) and arg.shape is None else arg
                set_uses.add(id(arg))
            elif isinstance(n, ast.UnaryOp) and n.op == "exists":
                set_uses.add(id(n.operand))
            elif isinstance(n, ast.BinOp) and n.op in ("in", "not in"):
                set_uses.add(id(n.right))  # .character in charas
            elif isinstance(n, ast.FuncCall) and len(n.args) == 1 and n.name.replace("std::", "") in (
                    "array_agg", "sum", "min", "max", "math::mean"):
                arg = n.args[0]
                arg = arg.subject if isinstance(arg, ast.SelectExpr) and arg.shape is None else arg
                set_uses.add(id(arg))
            elif isinstance(n, ast.VarRef) and n.name in candidates and id(n) not in set_uses:
                value_uses.add(n.name)
            elif isinstance(n, ast.ShapeExpr):  # u { name }
                set_uses.add(id(n.base))
                exprs += _shape_values(n.shape)
            elif isinstance(n, ast.SelectExpr):  # (select u { name } ...)
                set_uses.add(id(n.subject))
                exprs += _shape_values(n.shape or ()) + [o.expr for o in n.order]
            elif isinstance(n, ast.GroupExpr):  # (group u by .name)
                set_uses.add(id(n.subject))
                exprs += _shape_values(n.shape or ()) + [v for _, v in n.using]
    return candidates - value_uses


def _shape_values(shape) -> List[object]:
    """The expressions of a shape's elements (computed values, nested clauses), nested shapes too."""
    out: List[object] = []
    stack = list(shape)
    while stack:
        el = stack.pop()
        out += [el.value, el.filter, el.offset, el.limit] + [o.expr for o in el.order]
        stack.extend(el.shape or ())
    return out


def _peel_asserts(value) -> Tuple[object, Dict[str, object]]:
    """``assert_single(assert_exists(u)) { shape }`` -> (``u { shape }``, the asserts: each
    function's ``message := ...``, syntax, or ``None``)."""
    asserts: Dict[str, object] = {}
    shape = None
    while True:
        if isinstance(value, ast.ShapeExpr) and shape is None:
            value, shape = value.base, value.shape
            continue
        call = assert_call(value)
        if call is not None and call[0] in ("assert_single", "assert_exists"):
            asserts[call[0]] = call[2]
            value = call[1]
            continue
        break
    if shape is not None:
        value = ast.ShapeExpr(value, shape, value.span)
    return value, asserts


def _object_selection(value, ctx: ExprContext) -> Optional[ast.SelectQuery]:
    """A value that selects objects of a type, as the equivalent ``select T { shape } [filter]
    [order by] [offset] [limit]`` (``shape`` ``None``: ``{ id }``): ``(select User { name }
    filter ...)``, ``(select User filter ...)``, ``User { name }``, and the same of a ``with``
    selection (``u { name }``, ``(select u { name } order by .name)``); ``None`` for any other
    value (nothing reported)."""
    shape = None
    if isinstance(value, ast.ShapeExpr):
        value, shape = value.base, value.shape
    if isinstance(value, ast.SubSelect):
        value = ast.SelectExpr(ast.VarRef(value.type_name, value.type_span), None, value.filter, (), None, None,
                               value.span)
    if isinstance(value, ast.GlobalRef) and not value.steps:
        # `select global current_user { name }` of a global holding an object
        # (https://docs.geldata.com/reference/datamodel/globals): that object, by its id.
        g = ctx.schema.find(value.name, ctx.module, ctx.schema.globals)
        target = getattr(g, "target", None)
        if target is None:
            return None
        return ast.SelectQuery(target.qualname, value.span, shape,
                               ast.BinOp("=", ast.Path(("id",), value.span), value, value.span), (), None, None,
                               value.span)
    if isinstance(value, ast.VarRef):
        value = ast.SelectExpr(value, None, None, (), None, None, value.span)
    if not isinstance(value, ast.SelectExpr) or not isinstance(value.subject, ast.VarRef):
        return None
    if shape is not None and value.shape is not None:
        if not _outer_shape_wins(value.shape, value.subject.name, ctx):
            return None
        value = dataclasses.replace(value, shape=None)
    name = value.subject.name
    if name in ctx.variables or name in ctx.bound_statements:
        return None
    if name in ctx.type_sets and not _simple_selection(ctx.type_sets[name]):
        return None
    q = ast.SelectQuery(name, value.subject.span, shape if shape is not None else value.shape, value.filter,
                        value.order, value.offset, value.limit, value.span)
    if name in ctx.type_sets:
        return _select_of_selection(q, ctx.type_sets[name], ctx)
    return q if ctx.schema.find_type(name, ctx.module) is not None else None


def _objects_element(el: ast.ShapeElement, q: ast.SelectQuery, ctx: ExprContext,
                     asserted: bool = False) -> Optional[qir.Node]:
    """A free object's field holding objects (``users := (select User { name } filter ...)``):
    a JSON list of them, or one object (``null`` when none) when the filter pins one, the
    limit is 1 or it is ``assert_single(...)``, built like a nested shape's (a scalar
    sub-select: several rows fail the statement, SQLSTATE 21000, as Gel's assert_single)."""
    subject = ctx.schema.find_type(q.type_name, ctx.module)
    assert subject is not None
    alias = qi("_s1")
    scope = dataclasses.replace(ctx, subject=subject, column_prefix=alias)
    cond = None
    if q.filter is not None:
        cond = check_filter(q.filter, scope)
        if cond is None:
            return None
    ok, clauses = q_shapes._shape_clauses(dataclasses.replace(q, filter=None), subject, alias, ctx)
    shape = q.shape if q.shape is not None else (ast.ShapeElement("id", None, q.type_span),)
    inner = q_shapes._shape(shape, subject, alias, ctx, 1)
    if not ok or ctx.reporter.has_errors:
        return None
    single = asserted or (q.filter is not None and q_dml._pins_one_row(q.filter, subject)) or \
        (isinstance(q.limit, ast.Literal) and q.limit.value == 1)
    objects = qir.ObjectSet(q.span, alias, subject, not single, cond,
                            visible=policies.read_predicate(subject, ctx, alias))
    field = ResultField(el.name, None, single, q_select._fields(inner), not single)
    return qir.ShapeComputedLink(el.span, field, objects, tuple(inner), clauses)


def _bound_write_selection(value, ctx: ExprContext) -> Optional[Tuple[str, qir.Node, ast.SelectQuery]]:
    """``p`` or ``p { shape }`` of a write bound in ``with`` (``p := (update ...)``, an insert,
    an upsert, a delete): (its name, the write, ``select p { shape }``; ``{ id }`` without a
    shape, as Gel selects an object without a shape,
    https://docs.geldata.com/reference/edgeql/select#shapes); ``None`` for any other value."""
    shape = None
    if isinstance(value, ast.ShapeExpr):
        value, shape = value.base, value.shape
    if not isinstance(value, ast.VarRef) or value.name in ctx.variables or value.name not in ctx.bound_writes:
        return None
    w = ctx.bound_writes[value.name]
    subject = w.subject  # type: ignore[attr-defined]
    shape = shape if shape is not None else (ast.ShapeElement("id", None, value.span),)
    return value.name, w, ast.SelectQuery(subject.qualname, value.span, shape, None, (), None, None, value.span)


def _select_bound_write(qf: ast.QueryFile, q: ast.SelectValue, bound, asserts: Set[str],
                        ctx: ExprContext) -> Optional[qir.Query]:
    """``select assert_exists(p) { shape }`` of a write bound in ``with``: the objects it wrote,
    as ``select p { shape }`` reads them (from its CTE, as the statement leaves them,
    https://docs.geldata.com/reference/edgeql/with). ``assert_exists`` of at most one object
    makes the result exactly one (the runners fail on no row, as Gel's assert_exists fails,
    https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists);
    ``assert_single`` of a write of at most one object changes nothing. Either of a write of
    several objects is E0206."""
    name, w, sel = bound
    subject = w.subject
    node, cardinality = q_select._select_node(sel, subject, dataclasses.replace(ctx, subject=subject), w, f"_with_{name}")
    if node is None:
        return None
    if asserts and cardinality == MANY:
        what = " and ".join(f"{a}()" for a in sorted(asserts))
        ctx.reporter.error("E0206", f"{what} of '{name}', a write of several objects, is not supported yet",
                           q.value.span, f"select its objects as a list: select {name} {{ ... }}")
        return None
    if "assert_exists" in asserts:
        cardinality = ONE
    return q_values._plan(qf, w.kind, subject, node, ctx, cardinality, w.exclusives, q_select._fields(node.shape))


def _bound_write_element(el: ast.ShapeElement, bound, asserts: Set[str], ctx: ExprContext) -> Optional[qir.Node]:
    """A free object's field ``f := assert_exists(p) [{ shape }]`` of a write bound in ``with``
    (``p := (update ...)``): the objects it wrote, as a shape element ``f := p { shape }`` reads
    them (:func:`_written_objects_element`: from its CTE, one object when the write writes at
    most one, else a list). ``assert_exists`` of one object makes the field required: no object
    fails the statement (https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists);
    ``assert_single`` of one changes nothing; either of a write of several objects is E0206."""
    name, w, sel = bound
    if asserts and w.cardinality == MANY:
        what = " and ".join(f"{a}()" for a in sorted(asserts))
        ctx.reporter.error("E0206", f"{what} of '{name}', a write of several objects, in a free object's field is "
                           "not supported yet", el.span, f"select its objects as a list: {el.name} := {name} {{ ... }}")
        return None
    node = q_shapes._written_objects_element(el, ast.VarRef(name, sel.span), sel.shape, ctx, 0)
    if node is not None and "assert_exists" in asserts:
        node = dataclasses.replace(node, required=True,  # type: ignore[call-arg]
                                   field=dataclasses.replace(node.field, optional=False))  # type: ignore[attr-defined]
    return node


def _outer_shape_wins(inner, name: str, ctx: ExprContext) -> bool:
    """``select (select Title {*} filter ...) { title := .primaryTitle }``: a shape on a
    selection of a type whose own shape only names the type's stored or computed pointers
    (``{}``, ``{*}``, ``{ name }``: no computed element, sub-shape or clause). Gel outputs the
    outer shape alone (a shape on an expression makes a new view of its objects, and the
    inner one adds no pointer the outer could read,
    https://docs.geldata.com/reference/edgeql/shapes), so the inner shape changes nothing."""
    subject = ctx.schema.find_type(name, ctx.module)
    if subject is None or name in ctx.type_sets or not computed_sql._plain_shape(inner):
        return False
    return all(el.splat or subject.column(el.name) is not None or el.name in subject.links
               or el.name in subject.computeds or el.name in subject.poly_links for el in inner)


def _simple_selection(value) -> bool:
    """A selection of a type's objects by name (what :func:`_select_of_selection` merges)."""
    return isinstance(value, ast.SubSelect) or (isinstance(value, ast.SelectExpr) and value.shape is None
                                                 and isinstance(value.subject, ast.VarRef))


def _select_of_selection(body: ast.SelectQuery, value, ctx: ExprContext) -> Optional[ast.SelectQuery]:
    """``with u := (select User filter f [order by ...] [offset] [limit]) select u { shape }
    [filter g] [order by ...] [offset] [limit]`` is ``select User { shape } filter f and g ...``:
    the same objects, one statement. When the binding orders or pages its objects, the select
    may not filter, order or page them again (E0206)."""
    if isinstance(value, ast.SubSelect):
        inner = ast.SelectExpr(ast.VarRef(value.type_name, value.type_span), None, value.filter, (), None, None,
                               value.span)
    else:
        inner = value
    type_name = inner.subject.name  # type: ignore[union-attr]
    paged = bool(inner.order) or inner.offset is not None or inner.limit is not None
    if paged and (body.filter is not None or body.order or body.offset is not None or body.limit is not None):
        ctx.reporter.error("E0206", f"filtering, ordering or paging '{body.type_name}', which orders or pages its "
                           "objects, is not supported yet", body.span,
                           "move the clauses into one select: with ... select User { ... } filter ... order by ...")
        return None
    filt = inner.filter
    if body.filter is not None:
        filt = body.filter if filt is None else ast.BinOp("and", filt, body.filter, body.filter.span)
    return ast.SelectQuery(type_name, body.type_span, body.shape, filt, body.order or inner.order,
                           body.offset if body.offset is not None else inner.offset,
                           body.limit if body.limit is not None else inner.limit, body.span)


def _in_module(value, ctx: ExprContext):
    """A ``with`` binding's value ``(with module m <body>)`` (only a module selection,
    https://docs.geldata.com/reference/edgeql/with#module-selection) as its body with the bare
    names of types and enums that resolve in ``m`` qualified (``Material`` ->
    ``material::Material``): bare names resolve in ``m`` first, then in default. Any other
    value is returned as it is."""
    if not (isinstance(value, ast.WithExpr) and len(value.bindings) == 1 and value.bindings[0].name == "module"
            and isinstance(value.bindings[0].value, ast.VarRef)
            and value.bindings[0].name_span == value.bindings[0].value.span
            and value.bindings[0].span != value.bindings[0].value.span
            and isinstance(value.body, ast.Expr.__args__)):  # type: ignore[attr-defined]
        return value
    module = value.bindings[0].value.name
    schema = ctx.schema

    def qualify(n):
        if isinstance(n, ast.VarRef) and "::" not in n.name and n.name not in ctx.variables \
                and n.name not in ctx.type_sets:
            t = schema.find_type(n.name, module)
            if t is not None:
                return dataclasses.replace(n, name=t.qualname)
        if isinstance(n, ast.EnumRef) and "::" not in n.enum and n.enum not in ctx.variables \
                and n.enum not in ctx.type_sets:
            e = schema.find_enum(n.enum, module)
            if e is not None:
                return dataclasses.replace(n, enum=e.qualname)
        return n

    return ast.map_expr(value.body, qualify)


def _merge_selections(value, ctx: ExprContext):
    """A ``with`` binding's value that selects the objects of an earlier ``with`` selection ``s :=
    (select T filter f)`` as a selection of ``T``: ``(select s [{ shape }] filter g [order by ...]
    [offset] [limit])`` is ``(select T filter f and g ...)`` (a plain shape only chooses what an
    output shows), ``s`` itself is ``(select T filter f)``, and so are the branches of an ``if
    ... else`` (``(select s filter g) if c else s``, then merged by :func:`_if_else_selection`):
    the same objects (https://docs.geldata.com/reference/edgeql/with). A selection of ``s`` that
    orders or pages its objects is only merged when the outer select adds no clause. Any other
    value is returned as it is."""
    if isinstance(value, ast.IfElse):
        then, else_ = _merge_selections(value.then, ctx), _merge_selections(value.else_, ctx)
        if then is value.then and else_ is value.else_:
            return value
        return dataclasses.replace(value, then=then, else_=else_)
    if isinstance(value, ast.VarRef) and value.name in ctx.type_sets and value.name not in ctx.variables \
            and _simple_selection(ctx.type_sets[value.name]):
        return _as_select_expr(ctx.type_sets[value.name])
    if isinstance(value, ast.SubSelect):
        outer = ast.SelectExpr(ast.VarRef(value.type_name, value.type_span), None, value.filter, (), None, None,
                               value.span)
    elif isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.VarRef):
        outer = value
    else:
        return value
    name = outer.subject.name  # type: ignore[union-attr]
    if name in ctx.type_sets and name not in ctx.variables and _simple_selection(ctx.type_sets[name]) \
            and outer.shape is not None and not computed_sql._plain_shape(outer.shape) and not outer.order \
            and outer.offset is None and outer.limit is None:
        # `(select s { k := <expr>, ... } [filter g])`: the objects of `s` with computed elements,
        # a view of its type (`_computed_view`) when `s` neither orders nor pages them
        inner = _as_select_expr(ctx.type_sets[name])
        if not inner.order and inner.offset is None and inner.limit is None:
            filt = inner.filter
            if outer.filter is not None:
                filt = outer.filter if filt is None else ast.BinOp("and", filt, outer.filter, outer.filter.span)
            view = ast.SelectExpr(inner.subject, outer.shape, filt, (), None, None, value.span)
            if _computed_view(view, ctx.schema, ctx.module):
                return view
    if name not in ctx.type_sets or name in ctx.variables or not _simple_selection(ctx.type_sets[name]) \
            or (outer.shape is not None and not computed_sql._plain_shape(outer.shape)):
        return value
    inner = _as_select_expr(ctx.type_sets[name])
    paged = bool(inner.order) or inner.offset is not None or inner.limit is not None
    if paged and (outer.filter is not None or outer.order or outer.offset is not None or outer.limit is not None):
        return value
    filt = inner.filter
    if outer.filter is not None:
        filt = outer.filter if filt is None else ast.BinOp("and", filt, outer.filter, outer.filter.span)
    return ast.SelectExpr(inner.subject, None, filt, outer.order or inner.order,
                          outer.offset if outer.offset is not None else inner.offset,
                          outer.limit if outer.limit is not None else inner.limit, value.span)


def _distinct_union(body: ast.SelectValue, ctx: ExprContext) -> Optional[ast.SelectQuery]:
    """``select distinct (a union b) { shape } [filter ...] [order by ...] ...`` of selections of
    one type (``with`` selections or written in place, none ordered or paged) as ``select T {
    shape } filter (fa or fb) ...``: ``distinct`` keeps each object of the union once
    (https://docs.geldata.com/reference/stdlib/set#operator::distinct), so the objects are
    those either selection holds. ``None`` for any other select."""
    value = body.value
    if not (isinstance(value, ast.UnaryOp) and value.op == "distinct"):
        return None
    operand, shape = value.operand, None
    if isinstance(operand, ast.ShapeExpr):
        operand, shape = operand.base, operand.shape
    sel = _union_selection(operand, ctx)
    if sel is None:
        return None
    name = sel.subject.name  # type: ignore[union-attr]
    filt = sel.filter
    if body.filter is not None:
        filt = body.filter if filt is None else ast.BinOp("and", filt, body.filter, body.filter.span)
    return ast.SelectQuery(name, sel.subject.span, shape, filt, body.order, body.offset, body.limit, body.span)


def _union_selection(expr, ctx: ExprContext) -> Optional[ast.SelectExpr]:
    """``a union b [union ...]`` of selections of one type without order, offset or limit, as
    the one selection ``(select T filter fa or fb)`` (the objects of either, each once: only
    under ``distinct``); ``None`` for anything else."""
    if isinstance(expr, ast.BinOp) and expr.op == "union":
        parts = [_union_selection(expr.left, ctx), _union_selection(expr.right, ctx)]
        if any(p is None for p in parts):
            return None
        left, right = parts
        if ctx.schema.find_type(left.subject.name, ctx.module) is not \
                ctx.schema.find_type(right.subject.name, ctx.module):  # type: ignore[union-attr]
            return None
        true = ast.Literal("bool", True, expr.span)
        filt = ast.BinOp("or", left.filter or true, right.filter or true, expr.span)  # type: ignore[union-attr]
        return ast.SelectExpr(left.subject, None, filt, (), None, None, expr.span)  # type: ignore[union-attr]
    sel = _merge_selections(expr, ctx)
    sel = _if_else_selection(sel, ctx.schema, ctx.module) or sel
    if isinstance(sel, ast.SubSelect):
        sel = _as_select_expr(sel)
    if not (isinstance(sel, ast.SelectExpr) and computed_sql._plain_shape(sel.shape) and not sel.order
            and sel.offset is None and sel.limit is None and isinstance(sel.subject, ast.VarRef)
            and sel.subject.name not in ctx.type_sets and sel.subject.name not in ctx.variables
            and ctx.schema.find_type(sel.subject.name, ctx.module) is not None):
        return None
    return dataclasses.replace(sel, shape=None) if sel.shape is not None else sel


def _as_select_expr(value) -> ast.SelectExpr:
    """A :func:`_simple_selection` as a :class:`~schemac.syntax.tree.SelectExpr`."""
    if isinstance(value, ast.SubSelect):
        return ast.SelectExpr(ast.VarRef(value.type_name, value.type_span), None, value.filter, (), None, None,
                              value.span)
    return value


def _write_of_selection(body, value, ctx: ExprContext):
    """``with t := (select Thread filter f) update t [filter g] set { ... }`` (or ``delete t
    [filter g]``) is ``update Thread filter f and g set { ... }``: the statement writes the
    objects of the selection (https://docs.geldata.com/reference/edgeql/update,
    https://docs.geldata.com/reference/edgeql/with). A selection that orders or pages its
    objects is E0206."""
    if isinstance(value, ast.SubSelect):
        inner = ast.SelectExpr(ast.VarRef(value.type_name, value.type_span), None, value.filter, (), None, None,
                               value.span)
    else:
        inner = value
    if inner.order or inner.offset is not None or inner.limit is not None:
        what = "an update" if isinstance(body, ast.UpdateQuery) else "a delete"
        ctx.reporter.error("E0206", f"{what} of '{body.type_name}', which orders or pages its objects, is not "
                           "supported yet", body.type_span, "filter the objects to write instead")
        return None
    filt = inner.filter
    if body.filter is not None:
        filt = body.filter if filt is None else ast.BinOp("and", filt, body.filter, body.filter.span)
    return dataclasses.replace(body, type_name=inner.subject.name, filter=filt)  # type: ignore[union-attr]


def _params_used(statement: qir.With) -> Set[int]:
    """The ids of the parameters the statement's SQL binds: those of its body and bound writes
    and computed values, and of the constant bindings it reads."""
    roots = [statement.body] + [b for b in statement.bindings
                                if not (isinstance(b, qir.WithValue) and b.inline)]
    return {id(n.param) for r in roots for n in qir.walk(r) if isinstance(n, qir.ParamRef)}  # type: ignore[attr-defined]


fast_init_all(globals())
