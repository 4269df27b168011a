"""Sets of objects in expressions: object paths from a ``with`` binding or a
sub-select, rows pinned by a filter, ``global`` values
(https://docs.geldata.com/reference/edgeql/paths, .../reference/datamodel/globals).

Part of the expression checker (:mod:`schemac.semantics.exprs`), split by concern."""

from __future__ import annotations
import dataclasses
from typing import Dict, List, Optional, Tuple
from schemac.semantics import computed_sql, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import Span, did_you_mean
from schemac.frozen import fast_init_all
from schemac.semantics.model import Global, ObjectType, ValueType, link_prop_named, link_prop_names
from schemac.semantics.sqlnames import qi
from schemac.semantics.extensions import extension_of
from schemac.semantics import e_types, exprs


def _set_reading(name: str, type_sets: Dict[str, object], bindings, body) -> Optional[str]:
    """A set of ``type_sets`` that reads ``name`` (itself or through another set) and that the
    rest of a ``with`` (``bindings``, ``body``) reads, which ``name`` bound again there would
    change; ``None`` when there is none."""
    readers = {n for n, v in type_sets.items() if name in exprs._names_in(v, set())}
    grew = True
    while grew:
        more = {n for n, v in type_sets.items() if n not in readers and exprs._names_in(v, set()) & readers}
        grew = bool(more)
        readers |= more
    used = exprs._names_in((tuple(b.value for b in bindings), body), set())
    return next((n for n in sorted(readers) if n in used), None)


def _several_objects(value, ctx: exprs.ExprContext) -> bool:
    """``value`` selects objects of a type that its filter does not pin to one, ``(select
    detached T filter ...)``; a type other than the subject's may be written without
    ``detached`` (the subject's own type names the object at hand in Gel,
    https://docs.geldata.com/reference/edgeql/paths#detached)."""
    sel = computed_sql.as_subselect(value)
    if sel is None:
        return False
    subject = value.subject if isinstance(value, ast.SelectExpr) else None
    target = ctx.schema.find_type(sel.type_name, ctx.module)
    if target is None or sel.type_name in ctx.variables or sel.type_name in ctx.type_sets:
        return False
    detached = isinstance(subject, ast.VarRef) and subject.detached
    if not detached and ctx.subject is not None and (target is ctx.subject or target.table == ctx.subject.table):
        return False
    return not computed_sql.filter_pins_one(sel.filter, target)


def _set_function(expr: ast.FuncCall, ctx: exprs.ExprContext, exists: bool) -> Optional[qir.Expr]:
    """``count(re_match_all(pattern, s))`` / ``exists re_match_all(...)``: the number of matches
    of a regular expression in ``s`` (Gel's regular expressions are Postgres': 0 and false when
    ``s`` is empty) -> ``(SELECT count(*) FROM regexp_matches(s, pattern, 'g'))``."""
    if len(expr.args) != 2:
        ctx.reporter.error("E0304", "re_match_all() takes a pattern and a string", expr.span)
        return None
    args = []
    for a in expr.args:
        low = exprs.check(a, ctx, e_types.STR)
        if low is None:
            return None
        if low.type.family != "str" or low.type.element is not None:
            ctx.reporter.error("E0304", f"re_match_all() needs str arguments, got {low.type.name}", a.span)
            return None
        args.append(low)
    if exists:
        return qir.Call(expr.span, e_types.BOOL, False, "re_match_all/exists", tuple(args))
    return qir.Call(expr.span, e_types.INT64, False, "re_match_all/count", tuple(args))


def _set_operand(expr, ctx: exprs.ExprContext):
    """``(syntax, scope)`` of a set of values named by a ``with`` (``count(m)``) or written in
    place (``count(re_match_all(...))``); ``None`` otherwise."""
    if isinstance(expr, ast.VarRef) and isinstance(ctx.variables.get(expr.name), qir.SetAlias):
        alias = ctx.variables[expr.name]
        return alias.expr, alias.scope  # type: ignore[attr-defined]
    if isinstance(expr, ast.FuncCall) and expr.name in exprs._SET_FUNCTIONS:
        return expr, ctx
    return None


def _select_expr(expr: ast.SelectExpr, ctx: exprs.ExprContext, expected: Optional[ValueType]) -> Optional[qir.Expr]:
    """A sub-query used as a value (https://docs.geldata.com/reference/edgeql/select):
    ``(select User { name } filter .email = ...)`` is the id of its one object, as ``(select
    User filter ...)`` (a shape only chooses what a query outputs); ``(select <expr>)`` without
    a filter, order or limit is ``<expr>`` (``(select min(.posts.date))``)."""
    sub = computed_sql.as_subselect(expr)
    if sub is not None and ctx.params is not None:
        return computed_sql.subselect_value(sub, False, ctx)
    if ctx.params is not None and computed_sql.limited_subselect(expr) is not None:
        before = len(ctx.reporter.diagnostics)
        found = computed_sql.limited_value(expr, ctx)
        if found is not None or len(ctx.reporter.diagnostics) != before:
            return found
    if expr.shape is None and expr.filter is None and not expr.order and expr.offset is None \
            and expr.limit is None and not isinstance(expr.subject, ast.Backlink) \
            and not (isinstance(expr.subject, ast.VarRef) and expr.subject.name not in ctx.variables):
        return exprs.check(expr.subject, ctx, expected)
    what = ("sub-queries with 'order by', 'offset' or 'limit'" if expr.order or expr.offset or expr.limit
            else "sub-queries ('(select ...)') of a set of objects")
    ctx.reporter.error("E0206", f"{what} are not supported as a value in {ctx.where} yet", expr.span,
                       "a computed link may be (select .<link[is T] filter ...) or (select .link filter ...); "
                       "count it or test it with exists")
    return None


def _object_path_base(expr: ast.Step, ctx: exprs.ExprContext):
    """``(base, steps)`` of ``assert_single(.part).message.chat.owner``: path steps after an
    expression that is a set of objects of the subject (a backlink, a computed link, a path
    through links, ``(select <set> filter ...)``, also in ``assert_single(...)``); ``None`` for
    any other base."""
    steps: List[str] = []
    node: ast.Expr = expr
    while isinstance(node, ast.Step) and node.kind == ".":
        steps.insert(0, node.name)
        node = node.base
    if ctx.subject is None:
        return None
    inner = computed_sql._asserted_single(node)  # (private to the module pair)
    probe = inner if inner is not None else node
    if isinstance(probe, ast.Backlink) or computed_sql.is_set_expr(probe) \
            or computed_sql.link_set_of(probe, ctx) is not None:
        return node, tuple(steps)
    return None


def _object_path(expr: ast.Step, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``assert_single(.part).message.chat.owner`` (https://docs.geldata.com/reference/edgeql/paths):
    a path read from each object of a set; when the set holds at most one object (a single
    computed link, or ``assert_single(...)``), the path's value of that object:
    ``(SELECT <path> FROM <the objects>)``, empty when there is none and, like Gel's
    ``assert_single``, a failed statement when there are several (SQLSTATE 21000, a scalar
    sub-select of two rows). Each object is one the target's access policies let the query
    see."""
    base, steps = _object_path_base(expr, ctx)  # type: ignore[misc]
    objects = computed_sql.expr_object_set(base, ctx, qi(f"_p{ctx.depth}"), base.span)
    if objects is None:
        return None
    if objects.multi:
        ctx.reporter.error("E0206", f"'.{'.'.join(steps)}' after a set of {objects.source.name} objects is a set of "
                           f"values; only a path after one object is supported in {ctx.where}", expr.span,
                           "wrap the set in assert_single(...) when it holds one object")
        return None
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                variables={}, bound_statements={}, set_links=None, set_row=None)
    value = exprs.check(ast.Path(steps, expr.span), inner)
    if value is None:
        return None
    return qir.ObjectValue(expr.span, value.type, True, objects, value)


def _var_object(name: str, ctx: exprs.ExprContext) -> Optional[ObjectType]:
    """The type of the one object a ``with`` name is bound to (``e := assert_exists(assert_single((select
    Event filter .name = $n)))``, computed once), else ``None``."""
    var = ctx.variables.get(name)
    if type(var) is not qir.WithValue:
        return None
    value = var.value  # type: ignore[attr-defined]
    while type(value) is qir.Call and value.func == "assert_exists":  # type: ignore[attr-defined]
        value = value.args[0]  # type: ignore[attr-defined]
    if type(value) is qir.ObjectId or (type(value) is qir.ObjectRow and value.value is None):  # type: ignore[attr-defined]
        return value.target  # type: ignore[attr-defined]
    return None


def _var_object_steps(expr: ast.Step, ctx: exprs.ExprContext) -> Optional[Tuple[str, Tuple[str, ...]]]:
    """``(name, steps)`` of ``e.host.name`` when ``e`` is a ``with`` name bound to one object."""
    steps: List[str] = []
    node: ast.Expr = expr
    while isinstance(node, ast.Step) and node.kind == ".":
        steps.insert(0, node.name)
        node = node.base
    if isinstance(node, ast.EnumRef) and _var_object(node.enum, ctx) is not None:
        return node.enum, (node.member, *steps)
    return None


def _var_object_path(name: str, steps: Tuple[str, ...], span: Span, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``e.name`` / ``e.host.name`` of a ``with`` name bound to one object
    (https://docs.geldata.com/reference/edgeql/with, .../edgeql/paths): the path read from that
    object's row, ``(SELECT <path> FROM "event" AS "_v0" WHERE "_v0"."id" = <e>)``; empty when
    the name is (or a link on the way is)."""
    from schemac.semantics import policies

    var = ctx.variables[name]
    target = _var_object(name, ctx)
    assert target is not None
    alias = qi(f"_v{ctx.depth}")
    inner = dataclasses.replace(ctx, subject=target, column_prefix=alias, subject_column=None, variables={},
                                bound_statements={}, set_links=None, set_row=None, written_from={})
    value = exprs.check(ast.Path(steps, span), inner)
    if value is None:
        return None
    id_col = target.column("id")
    assert id_col is not None
    ref = var.value  # type: ignore[attr-defined]
    cond = qir.Binary(span, e_types.BOOL, False, "=", qir.ColumnRef(span, id_col.type, False, id_col, target, None, alias),
                      qir.VarRef(span, ref.type, ref.nullable, name, var))
    return qir.ObjectRow(span, value.type, ref.nullable or value.nullable, target, alias, value, cond,
                         policies.read_predicate(target, ctx, alias))


def _pinned_path_steps(expr: ast.Step, ctx: exprs.ExprContext) -> Optional[Tuple[ast.VarRef, Tuple[str, ...]]]:
    """``(name, steps)`` of ``player.user.discord_id``: a path from a ``with`` selection whose
    filter pins one object (``player := (select Player filter <pins one>)``, read as a set
    elsewhere: ``exists player``); ``None`` for any other."""
    steps: List[str] = []
    node: ast.Expr = expr
    while isinstance(node, ast.Step) and node.kind == ".":
        steps.insert(0, node.name)
        node = node.base
    if not isinstance(node, ast.EnumRef) or not _pinned_selection(node.enum, ctx):
        return None
    return ast.VarRef(node.enum, node.span), (node.member, *steps)


def _link_row_prop(expr: ast.LinkPropRef, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``@added`` in ``medias: { ... } order by @added`` (or a ``filter``): the link property of
    the link to each object, read from its join row
    (https://docs.geldata.com/reference/datamodel/linkprops#querying-link-properties)."""
    link_name, join_type, join_alias = ctx.link_row  # type: ignore[misc]
    col = link_prop_column(link_name, join_type, expr.name, expr.span, ctx.reporter)
    if col is None:
        return None
    return qir.ColumnRef(expr.span, col.type, not col.required, col, join_type, None, join_alias)


def _backlink_row_prop(expr: ast.LinkPropRef, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``@since`` in ``followers: { ... } order by @since`` of a computed backlink through a
    multi link (``followers := .<follows[is User]``): the link property of each follower's
    link to the object (a backlink's objects carry the properties of the links that reach
    them, https://docs.geldata.com/reference/datamodel/linkprops), read from its one join row
    (a join table holds each source and target pair once)."""
    link_name, join_type, row, subject_row = ctx.backlink_row  # type: ignore[misc]
    col = link_prop_column(link_name, join_type, expr.name, expr.span, ctx.reporter)
    if col is None:
        return None
    return qir.BacklinkProp(expr.span, col.type, not col.required, col, join_type.table, f"_bj{ctx.depth}", row,
                            subject_row)


def link_prop_column(link_name: str, join_type, name: str, span, reporter):
    """The column of link property ``@name`` in the link table ``join_type`` of ``link_name``, or
    None after a located E0302 naming the link's properties (its source_id/target_id are not ones)."""
    col = link_prop_named(join_type, name)
    if col is None:
        props = link_prop_names(join_type)
        reporter.error("E0302", f"link '{link_name}' has no property '{name}'", span,
                       did_you_mean(name, props) or
                       (f"its link properties: {', '.join(props)}" if props else
                        f"'{link_name}' declares no link properties"))
        return None
    return col


def _pinned_selection(name: str, ctx: exprs.ExprContext) -> bool:
    """The ``with`` name ``name`` is a selection (read as a set) whose filter pins at most one
    object (``player := (select Player filter .client = global client and .user.discord_id = d)``)."""
    if name in ctx.variables:
        return False
    sel = ctx.type_sets.get(name)
    sub = computed_sql.as_subselect(sel) if sel is not None else None
    target = ctx.schema.find_type(sub.type_name, ctx.module) if sub is not None else None
    return target is not None and computed_sql.filter_pins_one(sub.filter, target)  # type: ignore[union-attr]


def _pinned_set_path(root: ast.VarRef, steps: Tuple[str, ...], span: Span, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``player.game_mode`` of a :func:`_pinned_selection` (https://docs.geldata.com/reference/edgeql/paths):
    the path's value of its object, ``(SELECT <path> FROM <its table> WHERE <the selection's
    filter> AND <its access policies>)``, empty when it holds none."""
    objects = computed_sql.query_set(root, ctx, qi(f"_p{ctx.depth}"))
    if objects is None:
        return None
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                variables={}, bound_statements={}, set_links=None, set_row=None, type_sets={},
                                selections={}, written_from={})
    value = exprs.check(ast.Path(steps, span), inner)
    if value is None:
        return None
    return qir.ObjectValue(span, value.type, True, objects, value)


_ROW_REFS = ("__subject__", "__old__", "__new__", "__specified__")


def _row_ref_root(expr: ast.Step) -> Optional[str]:
    """The special name a path ``__old__.a.b`` starts from (``__subject__``, ``__old__``,
    ``__specified__``), or ``None``."""
    node: ast.Expr = expr
    while isinstance(node, ast.Step) and node.kind == ".":
        node = node.base
    if isinstance(node, ast.Path) and node.steps == ("__subject__",):
        return "__subject__"
    if isinstance(node, ast.VarRef) and node.name in _ROW_REFS:
        return node.name
    return None


def _row_ref(expr: ast.Step, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``__subject__.name`` / ``__old__.name`` (the row a mutation writes, as written / as it
    was) and ``__specified__.name`` (whether the mutation gave ``name``) in a mutation rewrite
    (https://docs.geldata.com/reference/datamodel/mutation_rewrites). The path after the row
    reads as a path from the subject (``__old__.author.id``)."""
    root = _row_ref_root(expr)
    steps: List[str] = []
    node: ast.Expr = expr
    while isinstance(node, ast.Step):
        steps.append(node.name)
        node = node.base
    steps.reverse()
    if root == "__specified__":
        if ctx.specified is None:
            ctx.reporter.error("E0206", f"__specified__ is not supported in {ctx.where}", expr.span,
                               "it is known in update rewrites only (Postgres does not tell an insert's "
                               "trigger which columns the statement named)")
            return None
        if len(steps) != 1:
            ctx.reporter.error("E0304", "__specified__ is a tuple of booleans: __specified__.name", expr.span)
            return None
        setting = ctx.specified(steps[0], expr.span)
        if setting is None:
            return None
        return qir.Call(expr.span, e_types.BOOL, False, "specified", (), (setting,))
    record = ctx.row_refs.get(root)  # type: ignore[arg-type]
    if record is None:
        ctx.reporter.error("E0206", f"{root} is not available in {ctx.where}", expr.span,
                           "__old__ is the object before an update: use it in update rewrites"
                           if root == "__old__" else None)
        return None
    return exprs.check(ast.Path(tuple(steps), expr.span),
                 dataclasses.replace(ctx, column_prefix=record, subject=ctx.row_ref_subject or ctx.subject))


def _global(expr: ast.GlobalRef, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``global name`` (https://docs.geldata.com/reference/datamodel/globals): a parameter bound
    from the runner's globals context (once per query, however often it is read), ``COALESCE``d
    with its default when it has one; a computed global is its expression, inlined (an object
    global is the id of its object: ``(SELECT "id" FROM t WHERE ...)``)."""
    g: Optional[Global] = ctx.schema.find(expr.name, ctx.module, ctx.schema.globals)  # type: ignore[assignment]
    if g is None and extension_of(expr.name) is not None:
        exprs.ext_needs(expr.name, expr.span, ctx)  # (an extension's global: reports why it is not there)
        return None
    if g is None and ctx.schema.find(expr.name, ctx.module, ctx.schema.refused_globals) is not None:
        return None  # its declaration was refused, and reported
    if g is None:
        ctx.reporter.error("E0302", f"unknown global '{expr.name}'", expr.span,
                           did_you_mean(expr.name.split("::")[-1], [x.name for x in ctx.schema.globals.values()]))
        return None
    if ctx.params is None and ctx.trigger_globals is None:
        ctx.reporter.error("E0206", f"globals cannot be read in {ctx.where}", expr.span,
                           "a global is a value of one request: read it in queries, computeds and access policies")
        return None
    if g.computed is not None:
        inner = dataclasses.replace(ctx, subject=None, module=g.module, subject_column=None, variables={},
                                    column_prefix=None, bound_statements={})
        computed = computed_sql.single_subselect(g.computed)[0] or g.computed
        if isinstance(computed, ast.SubSelect):
            assert g.target is not None
            inner.subject = g.target
            cond = exprs.check_filter(computed.filter, inner)
            if cond is None:
                return None
            from schemac.semantics import policies

            visible = policies.read_predicate(g.target, inner)
            if expr.steps and expr.steps != ("id",):
                # `global current_user.name`: a property of the global's object.
                alias = qi(f"_g{ctx.depth}")
                scope = dataclasses.replace(inner, column_prefix=alias)
                prop = exprs.check(ast.Path(expr.steps, expr.span), scope)
                if prop is None:
                    return None
                cond = exprs.check(computed.filter, scope, e_types.BOOL)
                visible = policies.read_predicate(g.target, scope, alias)
                return qir.ObjectRow(expr.span, prop.type, True, g.target, alias, prop, cond, visible)  # type: ignore[arg-type]
            return qir.ObjectId(expr.span, e_types._UUID, True, g.target, cond, visible)
        if expr.steps:
            ctx.reporter.error("E0206", f"'.{'.'.join(expr.steps)}' of global '{expr.name}': only a global holding an "
                               "object has properties", expr.span)
            return None
        return exprs.check(computed, inner)  # type: ignore[arg-type]
    if expr.steps:
        ctx.reporter.error("E0304", f"global '{expr.name}' is a {g.type.name if g.type else 'value'}: it has no "
                           f"'.{expr.steps[0]}'", expr.span)
        return None
    assert g.type is not None
    if ctx.params is None and ctx.trigger_globals is not None:
        # In a trigger: the value the write statement that set it off handed over (every
        # generated write sets it, see schemac.semantics.queries.plan_query), empty when the
        # writer gave none (a writer other than the runners, or a global left unset).
        ctx.trigger_globals[g.qualname] = g
        return qir.TriggerGlobal(expr.span, g.type, g.default_sql is None, g)
    key = f"global {g.qualname}"
    spec = ctx.params.params.get(key)
    if spec is None:
        spec = exprs.ParamSpec(key, len(ctx.params.params) + 1, g.type, not g.must_be_set, expr.span, global_=g)
        ctx.params.params[key] = spec
    if g.default_sql is not None:
        return qir.GlobalDefault(expr.span, g.type, False, spec, g.default_sql)
    return qir.ParamRef(expr.span, g.type, not g.required, spec)
