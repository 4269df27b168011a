"""``group`` (https://docs.geldata.com/reference/edgeql/group): keys, grouping
sets, elements, the group node.

Part of the statement checker (:mod:`schemac.semantics.queries`), split by concern."""

from __future__ import annotations
import dataclasses
from typing import Dict, List, Optional, Tuple
from schemac.semantics import computed_sql, policies, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import Span
from schemac.frozen import fast_init_all
from schemac.semantics.exprs import ExprContext, check, column_of
from schemac.semantics.e_params import for_rows
from schemac.semantics.e_types import BOOL
from schemac.semantics.model import ObjectType, ValueType
from schemac.semantics.qir import MANY, ResultField
from schemac.semantics.scalars import SCALARS
from schemac.semantics.sqlnames import qi
from schemac.semantics import q_filters, q_select, q_shapes, q_values, queries


# ---------------------------------------------------------------------------------------------
# group
#
# ``group`` (https://docs.geldata.com/reference/edgeql/group): the checker of the statement and of
# a ``select`` over its groups, producing :class:`schemac.semantics.qir.Group`.
#
#     group <Type or with-bound selection> [{ shape }]
#       [using name := expr, ...]
#       by .prop | .link | name, ...
#
# is a set of free objects, one per distinct combination of the keys' values: ``key`` (an object of
# the keys' values), ``grouping`` (the names of the keys) and ``elements`` (the objects of the
# group, with the shape). An empty key value is a value of its own (the objects whose value is
# empty form one group). Bound in ``with`` (``g := (group ...)``), the groups may be selected with
# a shape of their own: ``key: { a }``, ``grouping``, ``elements: { ... } [filter ...] [order by
# ...]`` and computed fields over each group (``n := count(.elements)``, ``.key.a``,
# ``min(.elements.p)`` / ``max(...)``), filtered, ordered and paged; ``c := (select g { n :=
# count(.elements) })`` adds computed fields that the final select reads (``filter .n > 1``).
#
# Lowered (:func:`schemac.semantics.lowering.statement_sql`) to one ``SELECT ... GROUP BY`` whose
# elements are a ``json_agg`` of their shape. Refused with a located E0206: grouping sets
# (``{a, b}``, ``cube``, ``rollup``), keys through several steps (``by .a.b``: bind it with
# ``using``), multi links and array (or multi property) values as keys, and a group used as a
# value.

_INT64 = ValueType(scalar=SCALARS["int64"])
_GROUPING = ValueType(element=ValueType(scalar=SCALARS["str"]))
_UUID = ValueType(scalar=SCALARS["uuid"])

def _group_list(w: ast.WithExpr):
    """``(group, extras, select)`` of ``(with g := (group ...), [c := (select g { n := ... }),]
    select g|c { shape } [filter ...] [order by ...] [offset] [limit])``; ``None`` for any other
    ``with``."""
    groups: Dict[str, Tuple[ast.GroupExpr, Tuple[ast.ShapeElement, ...]]] = {}
    for b in w.bindings:
        v = b.value
        if isinstance(v, ast.GroupExpr):
            groups[b.name] = (v, ())
        elif isinstance(v, ast.SelectExpr) and isinstance(v.subject, ast.VarRef) and v.subject.name in groups \
                and v.filter is None and not v.order and v.offset is None and v.limit is None \
                and all(el.value is not None for el in v.shape or ()):
            g, extras = groups[v.subject.name]
            groups[b.name] = (g, extras + tuple(v.shape or ()))
        else:
            return None
    body = w.body
    if not (isinstance(body, ast.SelectExpr) and isinstance(body.subject, ast.VarRef)
            and body.subject.name in groups and body.shape is not None):
        return None
    g, extras = groups[body.subject.name]
    select = ast.SelectQuery(body.subject.name, body.subject.span, body.shape, body.filter, body.order, body.offset,
                             body.limit, body.span)
    return g, extras, select


def _bound_group_list(e, ctx: ExprContext):
    """``(group, extras, select)`` of ``(select g { shape } [filter] [order by] [offset] [limit])``
    where ``g`` is a name the query's own ``with`` binds to a group (``with g := (group m using
    k := .x by k) select { counts := (select g { k := .key.k, n := count(.elements) }) }``):
    the same as the field ``(with g := (group ...) select g { ... })``, since a ``with`` name is
    its expression wherever it is read (https://docs.geldata.com/reference/edgeql/with);
    ``None`` for anything else. The group may also be written in place, ``(select (group m by
    .k) { k := .key.k, n := count(.elements) } order by .n desc limit 5)``, the same select of
    its groups (https://docs.geldata.com/reference/edgeql/group)."""
    if not (isinstance(e, ast.SelectExpr) and e.shape is not None):
        return None
    if isinstance(e.subject, ast.GroupExpr):
        return e.subject, (), ast.SelectQuery("group", e.subject.span, e.shape, e.filter, e.order, e.offset,
                                              e.limit, e.span)
    if not (isinstance(e.subject, ast.VarRef) and e.subject.name in ctx.group_bindings
            and e.subject.name not in ctx.variables):
        return None
    g, extras = ctx.group_bindings[e.subject.name]
    return g, extras, ast.SelectQuery(e.subject.name, e.subject.span, e.shape, e.filter, e.order, e.offset,
                                      e.limit, e.span)


def group_field_array(name: str, field: str, span: Span, ctx: ExprContext) -> Optional[qir.Expr]:
    """``array_agg((select g.f))`` of a ``with`` name bound to groups (``sorted := (select g order
    by .k)`` keeps that order, https://docs.geldata.com/reference/stdlib/array#function::std::array_agg):
    the field ``f`` of each group, in their order; empty values left out."""
    g, extras = ctx.group_bindings[name]
    order = ctx.group_orders.get(name, ())
    select = ast.SelectQuery(name, span, (ast.ShapeElement(field, None, span),), None, order, None, None, span)
    node = _group_node(g, ctx, select, extras)
    if node is None:
        return None
    f = node.fields[0]
    ftype = f.field.type  # type: ignore[attr-defined]
    if ftype is None or ftype.element is not None or ftype.fields is not None:
        ctx.reporter.error("E0206", f"array_agg() of the group field '{field}' is supported for scalar fields", span)
        return None
    return qir.GroupFieldArray(span, ValueType(element=ftype), False, node, field)


def _group_list_element(el: ast.ShapeElement, w: Optional[ast.WithExpr], ctx: ExprContext,
                        bound=None) -> Optional[qir.Node]:
    """A free object's field holding a select over groups (``counts := (with g := (group m using
    k := .x by k) select g { k := .key.k, n := count(.elements) } order by .n desc limit 10)``,
    or ``(select g { ... })`` of a group the query's ``with`` binds, ``bound``;
    https://docs.geldata.com/reference/edgeql/group): a JSON list of the groups' fields, in the
    select's order."""
    g, extras, select = bound if bound is not None else _group_list(w)  # type: ignore[misc]
    node = _group_node(g, ctx, select, extras)
    if node is None:
        return None
    fields = tuple(dataclasses.replace(f.field, in_json=True) for f in node.fields)  # type: ignore[attr-defined]
    return qir.ShapeGroupList(el.span, ResultField(el.name, None, False, fields, True), node)


def _group_selection(v) -> Optional[Tuple[ast.GroupExpr, ast.SelectQuery]]:
    """``(group, select)`` of a select with a shape over a group written in place, ``(select
    (select (group ...) order by ... limit n) { shape })`` (also ``(select (group ...) { shape }
    order by ...)``, ``(group ...) { shape }``): the select's shape and clauses over the groups
    (https://docs.geldata.com/reference/edgeql/group); ``None`` for anything else. Clauses
    written inside the shape's select may not read the shape's computed names (Gel would not
    see them there)."""
    shape = clauses = None
    while True:
        if isinstance(v, ast.ShapeExpr) and shape is None and clauses is None:
            shape, v = v.shape, v.base
            continue
        if isinstance(v, ast.SelectExpr):
            if v.shape is not None:
                if shape is not None:
                    return None
                shape = v.shape
            if q_shapes._has_clauses(v):
                if clauses is not None:
                    return None
                if shape is not None and v.shape is None:
                    names = {el.name for el in shape if el.value is not None}
                    read = [v.filter, v.offset, v.limit] + [o.expr for o in v.order]
                    if any(isinstance(n, ast.Path) and len(n.steps) == 1 and n.steps[0] in names
                           for e in read if e is not None for n in ast.iter_nodes(e)):
                        return None
                clauses = v
            v = v.subject
            continue
        break
    if not isinstance(v, ast.GroupExpr) or shape is None:
        return None
    c = clauses
    return v, ast.SelectQuery("group", v.span, shape, c.filter if c else None, c.order if c else (),
                              c.offset if c else None, c.limit if c else None, c.span if c else v.span)


def _object_group_element(el: ast.ShapeElement, grouped, subject: ObjectType, alias: str, ctx: ExprContext,
                          depth: int) -> Optional[qir.Node]:
    """A shape element holding a select over groups of a set of the object's objects
    (``films := (select (group (select .<person[is Credit] filter ...) by .film) { title :=
    .key.film.title, jobs := .elements.job } order by .key.film.year desc limit 10)``,
    https://docs.geldata.com/reference/edgeql/group): the groups of those objects (a backlink,
    a link, a filtered select of them), a JSON list of each group's fields in the select's
    order, built as a free object's field over groups is, the grouped rows correlated with
    the object (``"id" IN (<the objects>)``)."""
    g, select = grouped
    scope = dataclasses.replace(ctx, subject=subject, column_prefix=alias if depth > 0 else None)
    if not (computed_sql.is_set_expr(g.subject) or computed_sql.link_set_of(g.subject, scope) is not None
            or (isinstance(g.subject, ast.Path) and len(g.subject.steps) == 1 and g.subject.steps[0] in subject.links)):
        ctx.reporter.error("E0206", "a group in a shape is supported over a set of the object's objects (a backlink, "
                           "a link, a path or a filtered select of one) only", g.subject.span)
        return None
    objects = computed_sql.expr_object_set(g.subject, scope, qi(f"_gs{depth + 1}"), g.subject.span)
    if objects is None:
        return None
    if objects.source.table == subject.table or objects.source.table == alias.strip('"'):
        ctx.reporter.error("E0206", f"a group of {objects.source.name} objects in a shape of {subject.name} objects "
                           "is not supported yet", g.subject.span)
        return None
    inner = dataclasses.replace(ctx, subject=None, column_prefix=None)
    node = _group_node(g, inner, select, (), objects)
    if node is None:
        return None
    fields = tuple(dataclasses.replace(f.field, in_json=True) for f in node.fields)  # type: ignore[attr-defined]
    return qir.ShapeGroupList(el.span, ResultField(el.name, None, False, fields, True, depth > 0), node)


def _group_query(qf: ast.QueryFile, g: ast.GroupExpr, ctx: ExprContext,
                select: Optional[ast.SelectQuery] = None,
                extras: Tuple[ast.ShapeElement, ...] = ()) -> Optional[qir.Query]:
    """Check ``group ...`` (``select`` ``None``) or ``select <groups> { ... } ...`` over it
    (``extras``: the computed fields a ``with`` binding added, ``c := (select g { n := ... })``)."""
    node = _group_node(g, ctx, select, extras)
    if node is None:
        return None
    fields = tuple(f.field for f in node.fields)  # type: ignore[attr-defined]
    return q_values._plan(qf, "select", node.subject, node, ctx, MANY, (), fields)


def _group_subject(g: ast.GroupExpr, ctx: ExprContext) -> Optional[Tuple[ObjectType, Optional[ast.Expr]]]:
    """The grouped objects: a type, or a ``with`` name bound to ``(select T filter ...)``."""
    subj = g.subject
    if isinstance(subj, ast.VarRef):
        sel = ctx.type_sets.get(subj.name) if subj.name not in ctx.variables else None
        if isinstance(sel, ast.SubSelect):
            t = ctx.schema.find_type(sel.type_name, ctx.module)
            if t is not None:
                return t, sel.filter
        elif isinstance(sel, ast.SelectExpr) and sel.shape is None and isinstance(sel.subject, ast.VarRef) \
                and not sel.order and sel.offset is None and sel.limit is None:
            t = ctx.schema.find_type(sel.subject.name, ctx.module)
            if t is not None:
                return t, sel.filter
        elif sel is None and subj.name not in ctx.variables:
            t = ctx.schema.find_type(subj.name, ctx.module)
            if t is not None:
                return t, None
            if queries._abstract_type(ctx.schema, subj.name, ctx.module, subj.span, ctx.reporter):
                return None
            if "::" in subj.name or subj.name[:1].isupper():
                ctx.reporter.error("E0301", f"unknown type '{subj.name}'", subj.span)
                return None
    ctx.reporter.error("E0206", "grouping anything but a type or a 'with' name bound to (select T filter ...) is "
                       "not supported yet", subj.span,
                       "bind the objects first: with m := (select T filter ...) group m ... by ...")
    return None


def _group_keys(g: ast.GroupExpr, subject: ObjectType, ctx: ExprContext) -> Optional[List[qir.GroupKey]]:
    """The ``by`` keys, each ``.name`` of a property or single link, or a ``using`` name."""
    scope = dataclasses.replace(ctx, subject=subject)
    before = len(ctx.reporter.diagnostics)
    using: Dict[str, Tuple[qir.Expr, ast.Expr]] = {}
    view = ctx.views.get(g.subject.name, {}) if isinstance(g.subject, ast.VarRef) \
        and g.subject.name not in ctx.variables and g.subject.name in ctx.type_sets else {}
    for name, expr in g.using:
        if name in using:
            ctx.reporter.error("E0309", f"'{name}' is bound twice in 'using'", expr.span)
            continue
        if view:
            # `.cmd` of a computed element of the grouped selection: its expression
            expr = ast.map_expr(expr, lambda n: view[n.steps[0]] if isinstance(n, ast.Path) and len(n.steps) == 1
                                and n.steps[0] in view else n)
        low = check(expr, scope)
        if low is not None:
            using[name] = (low, expr)
    keys: List[qir.GroupKey] = []
    for b in g.by:
        if isinstance(b, (ast.SetLit, ast.Tuple_)) or (isinstance(b, ast.FuncCall) and b.name.lower() in ("cube",
                                                                                                         "rollup")):
            ctx.reporter.error("E0206", "grouping sets ('{a, b}', '(a, b)', cube(), rollup()) are not supported yet",
                               b.span, "group by each key: by .a, .b")
            continue
        if isinstance(b, ast.VarRef) and b.name in using:
            name = b.name
            low, _ = using[name]
        elif isinstance(b, ast.Path) and len(b.steps) == 1:
            name = b.steps[0]
            link = subject.links.get(name)
            if link is not None and link.multi:
                ctx.reporter.error("E0206", f"grouping by the multi link '{name}' is not supported yet", b.span)
                continue
            low = check(b, scope)  # type: ignore[assignment]
            if low is None:
                continue
        elif isinstance(b, ast.Path):
            ctx.reporter.error("E0206", "a 'by' key through several steps is not supported yet", b.span,
                               f"name it: using {b.steps[-1]} := .{'.'.join(b.steps)} by {b.steps[-1]}")
            continue
        else:
            ctx.reporter.error("E0304", "a 'by' key is a property path (.name) or a name bound by 'using'", b.span,
                               "write: group T using k := <expr> by k")
            continue
        if any(k.name == name for k in keys):
            ctx.reporter.error("E0309", f"'{name}' appears twice in 'by'", b.span)
            continue
        col = column_of(low)
        link = subject.links.get(col.link) if col is not None and col.link is not None else None
        if low.type.element is not None:
            ctx.reporter.error("E0206", f"grouping by an array (or a multi property), '{name}', is not supported yet",
                               b.span)
            continue
        if low.type.family in ("json",):
            ctx.reporter.error("E0206", f"grouping by a json value, '{name}', is not supported yet", b.span)
            continue
        if link is not None:
            field = ResultField(name, None, low.nullable, (ResultField("id", _UUID, False, in_json=True),), False, True)
        else:
            if not q_shapes._json_ok(low.type, b.span, ctx):
                continue
            field = ResultField(name, low.type, low.nullable, in_json=True)
        keys.append(qir.GroupKey(b.span, name, low, field, link))
    if len(ctx.reporter.diagnostics) != before:
        return None
    return keys


class _GroupScope:
    """What an expression over one group may read: ``count(.elements)``, ``.key.name``,
    ``min(.elements.p)`` / ``max(.elements.p)``, and the computed fields bound before."""

    def __init__(self, subject: ObjectType, keys: List[qir.GroupKey], ctx: ExprContext):
        self.subject = subject
        self.keys = keys
        self.ctx = ctx
        self.variables: Dict[str, qir.Node] = dict(ctx.variables)
        self.computed: Dict[str, str] = {}
        self.n = 0
        #: The computed elements of the grouped `with` view (`m := (select Message { hour := ... })`).
        self.view: Dict[str, ast.Expr] = {}

    def _bind(self, value: qir.Expr) -> str:
        self.n += 1
        name = f" g{self.n}"
        self.variables[name] = qir.WithValue(name, value, True)
        return name

    def check(self, expr: ast.Expr, expected: Optional[ValueType] = None) -> Optional[qir.Expr]:
        before = len(self.ctx.reporter.diagnostics)
        rewritten = self._rewrite(expr)
        if len(self.ctx.reporter.diagnostics) != before:
            return None
        scope = dataclasses.replace(self.ctx, subject=None, variables=self.variables)
        return check(rewritten, scope, expected)

    def add_computed(self, name: str, value: qir.Expr) -> None:
        self.computed[name] = self._bind(value)

    def _rewrite(self, e):
        """``e`` with the reads of the group replaced by names bound to their values."""
        if isinstance(e, ast.FuncCall) and len(e.args) == 1 and isinstance(e.args[0], ast.Path) \
                and e.args[0].steps[0] == "elements":
            fn = e.name.replace("std::", "")
            steps = e.args[0].steps
            if fn == "count" and len(steps) == 1:
                return ast.VarRef(self._bind(qir.GroupValue(e.span, _INT64, False, "count")), e.span)
            if fn in ("min", "max") and len(steps) == 2:
                # (`min(.elements.hour)` of a computed element of the grouped view: its expression)
                read = self.view.get(steps[1], ast.Path(steps[1:], e.args[0].span))
                low = check(read, dataclasses.replace(self.ctx, subject=self.subject))
                if low is None:
                    return e
                if low.type.enum is not None or low.type.element is not None or low.type.family in ("json", "bool"):
                    self.ctx.reporter.error("E0206", f"{fn}() of a {low.type.name} value over a group's elements is "
                                            "not supported yet", e.span)
                    return e
                return ast.VarRef(self._bind(qir.GroupValue(e.span, low.type, low.nullable, fn, 0, low)), e.span)
            # (any other function of the group's elements: sum(.elements.p), array_agg(...))
            self.ctx.reporter.error("E0206", f"'.{'.'.join(steps)}' over groups is not supported yet",
                                    e.args[0].span, "a group's values: count(.elements), .key.<name>, "
                                    "min(.elements.<p>), max(.elements.<p>), .elements.<p>, and the fields computed before")
            return e
        if isinstance(e, ast.Path) and len(e.steps) == 2 and e.steps[0] == "elements":
            # `.elements.job`: the values of a property of the group's objects, a set (an array,
            # as a computed multi property; its empty values are no element)
            low = check(ast.Path(e.steps[1:], e.span), dataclasses.replace(self.ctx, subject=self.subject))
            if low is None:
                return e
            if low.type.element is not None or self.subject.column(e.steps[1]) is None \
                    or e.steps[1] in self.subject.links:
                self.ctx.reporter.error("E0206", f"'.elements.{e.steps[1]}' over groups is supported for a single "
                                        "property only", e.span)
                return e
            vtype = ValueType(element=low.type)
            return ast.VarRef(self._bind(qir.GroupValue(e.span, vtype, False, "values", 0, low)), e.span)
        if isinstance(e, ast.Path) and len(e.steps) > 2 and e.steps[0] == "key":
            # `.key.film.title`: a path from the object a link key holds (empty for the group of
            # the objects whose link is empty), read from its row
            i = next((i for i, k in enumerate(self.keys) if k.name == e.steps[1] and k.link is not None), None)
            if i is not None:
                k = self.keys[i]
                target = k.link.target  # type: ignore[union-attr]
                row = qi(f"_gk{self.n + 1}")
                inner = dataclasses.replace(self.ctx, subject=target, column_prefix=row, subject_column=None,
                                            variables={}, bound_statements={}, set_links=None, set_row=None)
                value = check(ast.Path(e.steps[2:], e.span), inner)
                if value is None:
                    return e
                id_col = target.column("id")
                assert id_col is not None
                key = qir.GroupValue(e.span, id_col.type, True, "key", i)
                cond = qir.Binary(e.span, BOOL, True, "=",
                                  qir.ColumnRef(e.span, id_col.type, False, id_col, target, None, row), key)
                found = qir.ObjectRow(e.span, value.type, True, target, row, value, cond,
                                      policies.read_predicate(target, self.ctx, row))
                return ast.VarRef(self._bind(found), e.span)
        if isinstance(e, ast.Path):
            head = e.steps[0]
            if head == "key" and len(e.steps) == 2:
                i = next((i for i, k in enumerate(self.keys) if k.name == e.steps[1]), None)
                if i is None:
                    self.ctx.reporter.error("E0302", f"the groups have no key '{e.steps[1]}'", e.span,
                                            f"their keys: {', '.join(k.name for k in self.keys)}")
                    return e
                k = self.keys[i]
                if k.link is not None:
                    self.ctx.reporter.error("E0206", f"reading the object key '{k.name}' in an expression is not "
                                            "supported yet", e.span, f"select it: key: {{ {k.name} }}")
                    return e
                return ast.VarRef(self._bind(qir.GroupValue(e.span, k.value.type, k.value.nullable, "key", i)), e.span)
            if len(e.steps) == 1 and head in self.computed:
                return ast.VarRef(self.computed[head], e.span)
            self.ctx.reporter.error("E0206", f"'.{'.'.join(e.steps)}' over groups is not supported yet", e.span,
                                    "a group's values: count(.elements), .key.<name>, min(.elements.<p>), "
                                    "max(.elements.<p>), .elements.<p>, and the fields computed before")
            return e
        if not dataclasses.is_dataclass(e) or isinstance(e, ast.Literal):
            return e
        if isinstance(e, (ast.SelectExpr, ast.SubSelect, ast.WithExpr, ast.GroupExpr, ast.ForExpr, ast.FreeObject,
                          ast.ShapeExpr, ast.StatementExpr)):
            self.ctx.reporter.error("E0206", "a sub-query in an expression over groups is not supported yet", e.span)
            return e
        changes = {}
        for f in dataclasses.fields(e):
            v = getattr(e, f.name)
            if dataclasses.is_dataclass(v) and hasattr(v, "span"):
                nv = self._rewrite(v)
                if nv is not v:
                    changes[f.name] = nv
            elif isinstance(v, tuple) and v and all(dataclasses.is_dataclass(x) and hasattr(x, "span") for x in v):
                nt = tuple(self._rewrite(x) for x in v)
                if any(a is not b for a, b in zip(nt, v)):
                    changes[f.name] = nt
        return dataclasses.replace(e, **changes) if changes else e


def _group_node(g: ast.GroupExpr, ctx: ExprContext, select: Optional[ast.SelectQuery] = None,
               extras: Tuple[ast.ShapeElement, ...] = (),
               objects: Optional[qir.ObjectSet] = None) -> Optional[qir.Group]:
    """``objects``: the grouped objects when they are a set of another object's (a group in a
    shape), else the group's subject is read by :func:`_group_subject`. In phases: the grouped
    set (:func:`_grouped_source`), its keys, the groups' fields (:func:`_group_field_makers`) and
    the clauses of the select of the groups (:func:`_group_selection_clauses`)."""
    before = len(ctx.reporter.diagnostics)
    source = _grouped_source(g, ctx, objects)
    if source is None:
        return None
    rows, subject, filter_ast, ctx = source
    scope = dataclasses.replace(ctx, subject=subject)
    filt = None
    if filter_ast is not None:
        filt, _ = q_filters._where(filter_ast, subject, scope)
    if objects is not None:
        id_col = subject.column("id")
        assert id_col is not None
        own = qir.ColumnRef(g.span, id_col.type, False, id_col, subject, None, qi(subject.table))
        filt = qir.InObjects(g.span, BOOL, False, own, objects, False)
    keys = _group_keys(g, subject, ctx)
    if keys is None or len(ctx.reporter.diagnostics) != before:
        return None
    table = qi(subject.table)
    gs = _GroupScope(subject, keys, ctx)
    if isinstance(g.subject, ast.VarRef) and g.subject.name not in ctx.variables:
        gs.view = dict(ctx.views.get(g.subject.name, {}))
    for el in extras:
        low = gs.check(el.value)  # type: ignore[arg-type]
        if low is not None:
            gs.add_computed(el.name, low)
    makers = _group_field_makers(g, ctx, subject, table, scope, keys, rows)
    key_field, grouping_field, elements_field = makers
    fields: List[qir.Node] = []
    having = None
    order: List[qir.OrderKey] = []
    bounds: Dict[str, qir.Expr] = {}
    if select is None:
        fields = [f for f in (key_field(None), grouping_field(g.span), elements_field(None)) if f is not None]
    else:
        fields, having, order, bounds = _group_selection_clauses(select, gs, ctx, makers)
    if len(ctx.reporter.diagnostics) != before:
        return None
    visible = None if rows is not None else policies.read_predicate(subject, scope)
    return qir.Group(g.span, subject, filt, tuple(keys), tuple(fields), having, tuple(order), bounds.get("offset"),
                     bounds.get("limit"), visible, rows)


def _grouped_source(g: ast.GroupExpr, ctx: ExprContext, objects: Optional[qir.ObjectSet]):
    """The grouped set: ``(rows, subject, filter, ctx)``, ``rows`` the values of a ``for`` loop's
    set (None for objects), ``ctx`` binding its name; None when refused (reported)."""
    rows = None
    if isinstance(g.subject, ast.VarRef) and g.subject.name in ctx.row_sets and g.subject.name not in ctx.variables:
        # `group s using k := <expr of s> by k` of `with s := (for x in S union ...)`: its values,
        # each a row "_rows"("value"), read in the `using` expressions by the name `s` (Gel binds
        # the grouped set's name to each element there, https://docs.geldata.com/reference/edgeql/group)
        rows = for_rows(ctx.row_sets[g.subject.name], ctx)
        if rows is None:
            return None
        filter_ast = None
        if rows.targets is not None:
            # (objects: grouped as a type's, their rows read from the loop's)
            subject = rows.targets.source
        elif g.shape is not None:
            ctx.reporter.error("E0206", "a shape on grouped values is not supported (values have no fields)",
                               g.subject.span)
            return None
        else:
            subject = ObjectType(g.subject.name, ctx.module, "_rows", [], [], [], g.subject.span)
            var = qir.LoopVar(g.subject.name, rows.type, "value", qi("_rows"))
            ctx = dataclasses.replace(ctx, variables={**ctx.variables, g.subject.name: var})
    else:
        got = _group_subject(g, ctx) if objects is None else (objects.source, None)
        if got is None:
            return None
        subject, filter_ast = got
    return rows, subject, filter_ast, ctx


def _group_field_makers(g: ast.GroupExpr, ctx: ExprContext, subject: ObjectType, table: str, scope: ExprContext,
                        keys, rows):
    """The makers of a group's ``key``, ``grouping`` and ``elements`` fields (each None when
    refused, reported)."""

    def elements_field(el: Optional[ast.ShapeElement]) -> Optional[qir.GroupField]:
        if rows is not None and rows.targets is None:
            ctx.reporter.error("E0206", "the elements of a group of values are not supported as a field yet (count "
                               "them: n := count(.elements))", (el or g).span)
            return None
        shape = el.shape if el is not None and el.shape is not None else g.shape
        if shape is None:
            shape = (ast.ShapeElement("id", None, (el or g).span),)
        inner = q_shapes._shape(shape, subject, table, scope, depth=1)
        order: Tuple[qir.OrderKey, ...] = ()
        where = None
        if el is not None and (el.offset is not None or el.limit is not None):
            ctx.reporter.error("E0206", "'offset' and 'limit' on a group's elements are not supported yet",
                               (el.offset or el.limit).span)  # type: ignore[union-attr]
            return None
        if el is not None and q_shapes._has_clauses(el):
            ok, clauses = q_shapes._shape_clauses(el, subject, table, ctx)
            if not ok or clauses is None:
                return None
            order, where = clauses.order, clauses.filter
        field = ResultField("elements", None, False, q_select._fields(inner), True)
        return qir.GroupField((el or g).span, field, "elements", (), tuple(inner), order, where)

    def key_field(el: Optional[ast.ShapeElement]) -> Optional[qir.GroupField]:
        chosen = list(range(len(keys)))
        if el is not None and el.shape is not None:
            chosen = []
            for sub in el.shape:
                i = next((i for i, k in enumerate(keys) if k.name == sub.name), None)
                if i is None or sub.shape is not None or sub.value is not None:
                    ctx.reporter.error("E0302", f"the groups have no key '{sub.name}'", sub.span,
                                       f"their keys: {', '.join(k.name for k in keys)}")
                    continue
                chosen.append(i)
        field = ResultField("key", None, False, tuple(keys[i].field for i in chosen))
        return qir.GroupField((el or g).span, field, "key", tuple(chosen))

    def grouping_field(span) -> qir.GroupField:
        return qir.GroupField(span, ResultField("grouping", _GROUPING, False), "grouping", tuple(range(len(keys))))

    return key_field, grouping_field, elements_field


def _group_selection_clauses(select: ast.SelectQuery, gs: "_GroupScope", ctx: ExprContext, makers):
    """``select g { key, n := count(.elements) } filter ... order by ... offset ... limit ...``:
    the fields, the having predicate, the order keys and the bounds of the select of groups."""
    key_field, grouping_field, elements_field = makers
    fields: List[qir.Node] = []
    having = None
    order: List[qir.OrderKey] = []
    bounds: Dict[str, qir.Expr] = {}
    seen = set()
    for el in select.shape or ():
        if el.name in seen:
            ctx.reporter.error("E0309", f"'{el.name}' appears twice in the shape", el.span)
            continue
        seen.add(el.name)
        if el.value is not None:
            low = gs.check(el.value)
            if low is not None:
                fields.append(qir.ShapeComputed(el.span, ResultField(el.name, low.type, low.nullable), low))
                gs.add_computed(el.name, low)
        elif el.name == "key":
            fields.append(key_field(el))  # type: ignore[arg-type]
        elif el.name == "grouping" and el.shape is None:
            fields.append(grouping_field(el.span))
        elif el.name == "elements":
            f = elements_field(el)
            if f is not None:
                fields.append(f)
        elif el.name in gs.computed and el.shape is None:
            low = gs.check(ast.Path((el.name,), el.span))
            if low is not None:
                fields.append(qir.ShapeComputed(el.span, ResultField(el.name, low.type, low.nullable), low))
        else:
            ctx.reporter.error("E0302", f"the groups have no field '{el.name}'", el.span,
                               "a group's fields: key, grouping, elements"
                               + "".join(f", {n}" for n in gs.computed))
    if select.filter is not None:
        having = gs.check(select.filter, BOOL)
        if having is not None and having.type.family != "bool":
            ctx.reporter.error("E0304", f"a filter must be bool, got {having.type.name}", select.filter.span)
    for item in select.order:
        low = gs.check(item.expr)
        if low is None:
            continue
        if low.type.family in ("json", "bytes") or low.type.element is not None:
            ctx.reporter.error("E0304", f"cannot order by a {low.type.name} value", item.expr.span)
            continue
        order.append(qir.OrderKey(item.span, low, item.descending,
                                  item.empty or ("last" if item.descending else "first")))
    for word, expr in (("offset", select.offset), ("limit", select.limit)):
        if expr is None:
            continue
        low = check(expr, ctx, _INT64)
        if low is not None and (low.type.family != "num" or column_of(low) is not None):
            ctx.reporter.error("E0304", f"{word} needs an integer value, got {low.type.name}", expr.span)
        elif low is not None:
            bounds[word] = low
    return fields, having, order, bounds


fast_init_all(globals())
