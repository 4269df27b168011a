"""Checking of computed pointers and backlinks where a query reads them (they are never
stored); their SQL is written by :mod:`schemac.semantics.lowering`.

* A computed property (https://docs.geldata.com/reference/datamodel/computeds) read as ``.name``
  is its expression, checked in the scope of the object (:class:`~schemac.semantics.qir.ComputedRef`,
  lowered inline: ``.first ++ ' ' ++ .last`` -> ``("first" || ' ') || "last"``), so a select,
  filter or order on it stays one statement.
* A backlink ``.<author[is Post]`` (https://docs.geldata.com/reference/datamodel/links#backlinks)
  or a computed link (a backlink, or ``(select T filter ...)``) is a set of objects: the rows of
  ``T`` that :func:`object_set` describes (:class:`~schemac.semantics.qir.ObjectSet`, lowered to a
  ``FROM ... WHERE ...`` correlated with the subject row). ``count(...)`` counts them, ``exists
  ...`` tests them, and a shape selects them as a JSON list (:mod:`schemac.semantics.queries`).
"""

from __future__ import annotations

import dataclasses
from typing import List, Optional, Tuple

from schemac.semantics import qir
from schemac.syntax import tree as ast
from schemac.semantics.model import Computed, ObjectType, backlink_link
from schemac.semantics.sqlnames import qi

#: Computed pointers being expanded (type table, name): a computed that reads itself is
#: reported instead of recursing forever.
_EXPANDING: List[Tuple[str, str]] = []
#: Computed links being expanded inside a path of objects (see :func:`_path_hops`).
_HOP_LEVELS: List[str] = []


def filter_pins_one(filt: ast.Expr, subject: ObjectType, detached: bool = False) -> bool:
    """``filt`` holds ``.id = <value>`` or ``.p = <value>`` for every property of a full
    exclusive constraint (values that read no property), as a conjunct: at most one object.
    ``T.p`` of the subject's type ``T`` is ``.p`` unless the sub-select is ``detached`` (where
    ``T`` is the enclosing object)."""
    pinned = set()
    if any(_false(c) or branches_pin(c, lambda b: filter_pins_one(b, subject, detached))
           for c in ast.conjuncts(filt)):
        return True
    for c in ast.conjuncts(filt):
        if isinstance(c, ast.BinOp) and c.op == "=":
            for a, b in ((c.left, c.right), (c.right, c.left)):
                a = a if detached else _own_path(a, subject)
                if isinstance(a, ast.Path) and len(a.steps) == 1 and \
                        not any(isinstance(n, (ast.Path, ast.Backlink)) for n in ast.iter_nodes(b)):
                    pinned.add(a.steps[0])
                elif isinstance(a, ast.Path) and len(a.steps) == 2 and pins_link(subject, a.steps) and \
                        not any(isinstance(n, (ast.Path, ast.Backlink)) for n in ast.iter_nodes(b)):
                    # `.user.discord_id = x` with discord_id exclusive: one user, so `.user` is
                    # pinned (Gel infers the same through the link).
                    pinned.add(a.steps[0])
    # A single link is pinned by its FK column (``.identity = global x`` with an exclusive
    # identity link).
    pinned |= {subject.links[p].column for p in list(pinned) if p in subject.links and subject.links[p].column}
    return "id" in pinned or any(ex.pins and set(ex.columns) <= pinned for ex in subject.exclusives)


def _own_path(a, subject: ObjectType):
    """``User.name`` in ``(select User filter User.name = ...)`` as ``.name``: inside the
    sub-select the type's name is its subject, each object in turn (Gel's path scoping,
    https://docs.geldata.com/reference/edgeql/paths; geldata/gel tests/schemas/issues_setup.edgeql
    ``(SELECT User FILTER User.name = 'Elvis')``)."""
    if isinstance(a, ast.EnumRef) and a.enum.split("::")[-1] == subject.name:
        return ast.Path((a.member,), a.span)
    return a


def _false(c) -> bool:
    """The literal ``false``: a filter that keeps no object (``<T>{}``, :func:`branches_pin`)."""
    return isinstance(c, ast.Literal) and c.value is False


def branches_pin(c, pins) -> bool:
    """``f if cond else g`` (a filter merged from ``(select T filter f) if cond else (select T
    filter g)``; ``<T>{}`` is the filter ``false``) where each branch pins at most one object
    (``pins``) or is ``false``: at most one object, as Gel infers the cardinality of ``if ...
    else`` from its branches'."""
    return isinstance(c, ast.IfElse) and not any(isinstance(n, (ast.Path, ast.Backlink)) for n in ast.iter_nodes(c.cond)) \
        and all(_false(b) or pins(b) for b in (c.then, c.else_))


def pins_link(subject: ObjectType, steps) -> bool:
    """``.link.prop``: a single link whose target ``prop`` alone is a full exclusive constraint
    (or its id)."""
    link = subject.links.get(steps[0])
    if link is None or link.column is None:
        return False
    return steps[1] == "id" or any(ex.pins and list(ex.columns) == [steps[1]] for ex in link.target.exclusives)


def single_subselect(expr) -> Tuple[Optional[ast.SubSelect], bool]:
    """``(sub-select, asserted)`` of ``(select T filter ...)`` or ``assert_single((select T filter
    ...))`` (Gel's assert_single: at most one object, checked when the statement runs); ``(None,
    False)`` for anything else."""
    if isinstance(expr, ast.FuncCall) and expr.name in ("assert_single", "std::assert_single") and \
            len(expr.args) == 1 and as_subselect(expr.args[0]) is not None:
        return as_subselect(expr.args[0]), True
    if as_subselect(expr) is not None:
        return as_subselect(expr), False
    return None, False


def as_subselect(expr) -> Optional[ast.SubSelect]:
    """``expr`` as a :class:`~schemac.syntax.tree.SubSelect` when it is ``(select T filter ...)``,
    also with a shape, ``(select User { id, name } filter ...)``: where a sub-select is a
    value (a computed link or global, a link's value) it stands for its objects, and a shape
    only chooses what a query that outputs them shows
    (https://docs.geldata.com/reference/edgeql/shapes); ``None`` otherwise."""
    if isinstance(expr, ast.SubSelect):
        return expr
    if isinstance(expr, ast.SelectExpr) and isinstance(expr.subject, ast.VarRef) and expr.filter is not None \
            and not expr.order and expr.offset is None and expr.limit is None and not sets_link_props(expr):
        return ast.SubSelect(expr.subject.name, expr.subject.span, expr.filter, expr.span, expr.subject.detached)
    return None


def limited_subselect(expr) -> Optional[ast.SelectExpr]:
    """``expr`` when it is ``(select T [{ shape }] [filter ...] [order by ...] limit 1)``: at most
    one object of ``T``, the first in that order (any one without an order), as Gel's ``limit``
    (https://docs.geldata.com/reference/edgeql/select#filtering-ordering-and-paginating); ``None``
    otherwise. Whether ``T`` names a type (not a ``with`` name) is the caller's to check."""
    if isinstance(expr, ast.SelectExpr) and isinstance(expr.subject, ast.VarRef) and expr.offset is None \
            and isinstance(expr.limit, ast.Literal) and expr.limit.kind == "int" and expr.limit.value == 1 \
            and not sets_link_props(expr):
        return expr
    return None


def limited_value(expr: ast.SelectExpr, ctx):
    """``(select T [filter f] [order by k] limit 1)`` as a value (a single link's value, a
    ``with`` name bound to an object): the id of that object, ``(SELECT "_q"."id" FROM t AS "_q"
    WHERE f ORDER BY k LIMIT 1)``, empty when the filter matches nothing; ``None`` (nothing
    reported) when ``T`` is not a type but a name of the query."""
    if expr.subject.name in ctx.variables or ctx.schema.find_type(expr.subject.name, ctx.module) is None:  # type: ignore[attr-defined]
        return None
    filt = expr.filter if expr.filter is not None else ast.Literal("bool", True, expr.span)
    sub = ast.SubSelect(expr.subject.name, expr.subject.span, filt, expr.span, expr.subject.detached)  # type: ignore[attr-defined]
    return subselect_value(sub, True, ctx, order=expr.order, limit_one=True)


def sets_link_props(expr) -> bool:
    """``(select Tag { @weight := 2 } ...)``: a shape setting link properties (it is not only
    what an output shows)."""
    return isinstance(expr, ast.SelectExpr) and any(el.link_prop and el.value is not None for el in expr.shape or ())


def link_select(expr) -> Optional[Tuple[object, Optional[object]]]:
    """``(base, filter)`` of ``(select .<author[is Post] [filter ...])`` or ``(select .link
    [filter ...])``: a computed link to some of the objects of a backlink or of a stored link
    of the object (https://docs.geldata.com/reference/datamodel/computeds); ``None`` for any
    other expression."""
    if isinstance(expr, ast.SelectExpr) and expr.shape is None and not expr.order and expr.offset is None \
            and expr.limit is None and (isinstance(expr.subject, ast.Backlink) or (
                isinstance(expr.subject, ast.Path) and len(expr.subject.steps) == 1)):
        return expr.subject, expr.filter
    return None


def subselect_value(expr: ast.SubSelect, asserted: bool, ctx, many: bool = False, order=(), limit_one: bool = False):
    """A sub-select used as a value, ``(select User filter .clerk_id = global uid)``: the id of
    its one object, ``(SELECT "id" FROM t WHERE ...)`` (with the target's access policies).
    It must pin one object (its filter on ``.id`` or a full exclusive constraint) or be
    wrapped in ``assert_single(...)``: more than one row then fails the statement (SQLSTATE
    21000), as Gel's CardinalityViolationError. ``many``: the ids of every object it selects, an
    array (:class:`~schemac.semantics.qir.ObjectIds`), the value of a multi link. ``limit_one``: the
    first object in ``order`` (``ast.OrderItem``s) only (see :func:`limited_value`)."""
    from schemac.diagnostics import did_you_mean
    from schemac.semantics.exprs import check, check_filter
    from schemac.semantics.e_types import BOOL
    from schemac.semantics import policies

    target = ctx.schema.find_type(expr.type_name, ctx.module)
    if target is None:
        ctx.reporter.error("E0301", f"unknown type '{expr.type_name}'", expr.type_span,
                           did_you_mean(expr.type_name.split("::")[-1], [t.name for t in ctx.schema.all_types()]))
        return None
    if not many and not asserted and not filter_pins_one(expr.filter, target, expr.detached):
        ctx.reporter.error("E0206", f"this sub-select may select several '{target.name}' objects: as a value it must "
                           "select at most one", expr.span,
                           "filter on .id or every property of an exclusive constraint with '=', or wrap it in "
                           "assert_single(...)")
        return None
    alias = qi(f"_q{ctx.depth}")
    # (a query's `with` names stay in scope: `with n := <str>$n, u := (select User filter .name = n)`)
    inner = dataclasses.replace(ctx, subject=target, column_prefix=alias, subject_column=None,
                                variables=ctx.variables if ctx.params is not None else {}, bound_statements={}, set_links=None, set_row=None)
    inner = detached_scope(expr, ctx, inner)
    cond = check_filter(expr.filter, inner)
    if cond is None:
        return None
    keys = []
    for item in order:
        low = check(item.expr, inner)
        if low is None:
            return None
        if low.type.family in ("json", "bytes") or low.type.element is not None:
            ctx.reporter.error("E0304", f"cannot order by a {low.type.name} value", item.expr.span)
            return None
        keys.append(qir.OrderKey(item.span, low, item.descending, item.empty or ("last" if item.descending else "first")))
    visible = policies.read_predicate(target, ctx, alias)
    from schemac.semantics.model import ValueType
    from schemac.semantics.scalars import SCALARS

    if limit_one:
        return qir.ObjectRow(expr.span, ValueType(scalar=SCALARS["uuid"]), True, target, alias, None, cond, visible,
                             tuple(keys), True)
    if many:
        return qir.ObjectIds(expr.span, ValueType(element=ValueType(scalar=SCALARS["uuid"])), False, target, alias,
                             cond, visible)
    return qir.ObjectRow(expr.span, ValueType(scalar=SCALARS["uuid"]), True, target, alias, None, cond, visible)


def _is_detached(expr) -> bool:
    if isinstance(expr, ast.SubSelect):
        return expr.detached
    return isinstance(expr, ast.SelectExpr) and isinstance(expr.subject, ast.VarRef) and expr.subject.detached


def detached_scope(expr, ctx, inner):
    """``inner`` (the scope of a sub-select's filter) for ``(select detached T filter ...)``:
    ``.x`` is the detached set's object, while ``T`` / ``T.x`` of the enclosing query's type
    still names the enclosing object (https://docs.geldata.com/reference/stdlib/set#operator::detached):
    ``select Book { dup := exists (select detached Book filter .title = Book.title and .id != Book.id) }``."""
    if not _is_detached(expr) or ctx.subject is None:
        return inner
    outer = ctx.outer if ctx.detached_subject and ctx.outer is not None else (ctx.subject, subject_ref(ctx))
    return dataclasses.replace(inner, outer=outer, detached_subject=True)


def subject_ref(ctx) -> str:
    """How the subject row is named in SQL: its alias in a nested shape, else its table."""
    return ctx.column_prefix or qi(ctx.subject.table)


def refuse_computed(comp: Computed, span, reporter) -> bool:
    """Report a computed queries cannot read yet (:attr:`Computed.refused`) where a query reads
    it; ``True`` when it is one."""
    if comp.refused is None:
        return False
    reporter.error("E0206", comp.refused, span, "select the backlink of each concrete type: .<link[is Type]")
    return True


def computed_property(expr: ast.Path, comp: Computed, ctx):
    """``.name`` of a computed property: its expression, checked in the object's scope."""
    from schemac.semantics.exprs import check

    if refuse_computed(comp, expr.span, ctx.reporter):
        return None
    if comp.broken:
        return None
    if comp.target is not None and comp.at_most_one and not comp.poly_sources:
        # A computed link Gel infers holds at most one object, read as a value: its id
        # (`global self ?= .user` of `user := .<account[is User]`, `account` exclusive), empty
        # when it holds none.
        from schemac.semantics.exprs import check

        alias = qi(f"_cv{ctx.depth}")
        objects = object_set(comp, ctx, alias, expr.span)
        if objects is None:
            return None
        inner = dataclasses.replace(ctx, subject=comp.target, column_prefix=alias, subject_column=None, variables={},
                                    bound_statements={})
        ident = check(ast.Path(("id",), expr.span), inner)
        if ident is None:
            return None
        return qir.ObjectValue(expr.span, ident.type, True, objects, ident)
    if comp.target is not None:
        ctx.reporter.error("E0206", f"'{comp.name}' is a computed link (a set of {comp.target.name} objects): count "
                           "it, test it with exists, or select it with a shape", expr.span,
                           f"e.g. count(.{comp.name}) or {comp.name}: {{ id }}")
        return None
    key = (ctx.subject.table, comp.name)
    if key in _EXPANDING:
        ctx.reporter.error("E0210", f"computed '{comp.name}' reads itself", expr.span,
                           "a computed cannot depend on itself, directly or through other computeds")
        return None
    _EXPANDING.append(key)
    try:
        inner = dataclasses.replace(ctx, module=comp.module, subject_column=None, variables={},
                                    bound_statements={})
        low = property_set(comp.expr, inner)
        if low is None:
            low = check(comp.expr, inner)  # type: ignore[arg-type]
        elif low is False:
            low = None
    finally:
        _EXPANDING.pop()
    if low is None:
        return None
    return qir.ComputedRef(expr.span, low.type, low.nullable, comp, low)


def property_set(expr, ctx):
    """``tags := .linkedTags.name``: a computed property whose path goes through a multi link
    (or a backlink, or a computed link) to a property of each object is a set of values
    (https://docs.geldata.com/reference/datamodel/computeds, implicitly ``multi``). It is read
    as the array of those values (as a stored ``multi`` property is: a shape gets a list,
    ``count()`` and ``x in .tags`` work on it): ``coalesce((SELECT array_agg(t.name) FROM tag
    AS t WHERE t.id IN (<the links>) AND t.name IS NOT NULL), '{}')``; empty values are no
    elements, as a set holds none, and no object is an empty list. The order of the elements is
    unspecified, as a set's. ``None`` when ``expr`` is not such a path, ``False`` after
    reporting."""
    from schemac.semantics.exprs import check
    from schemac.semantics.model import ValueType
    from schemac.semantics.scalars import SCALARS

    found = _object_path(expr, ctx, f"_v{ctx.depth}")
    if found is None:
        return _unpacked_set(expr, ctx)
    if found is False:
        return found
    objects, rest = found
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                variables={}, bound_statements={})
    value = check(ast.Path(tuple(rest), expr.span), inner)
    if value is None:
        return False
    if not objects.multi:
        # a set of at most one object (a single computed link, `.<gold[is Country] ?? ...`): the
        # value of its object, empty when it holds none
        return qir.ObjectValue(expr.span, value.type, True, objects, value)
    if value.type.element is not None:
        ctx.reporter.error("E0206", f"a computed property of the {value.type.name} values of several objects is not "
                           "supported", expr.span, "select the objects' property in a shape instead")
        return False
    if value.nullable:
        present = qir.Unary(expr.span, ValueType(scalar=SCALARS["bool"]), False, "exists", value)
        cond = present if objects.filter is None else \
            qir.Binary(expr.span, present.type, False, "and", objects.filter, present)
        objects = dataclasses.replace(objects, filter=cond)
    vtype = ValueType(element=value.type)
    agg = qir.AggregateObjects(expr.span, vtype, True, "array_agg", objects, value)
    return qir.Call(expr.span, vtype, False, "value_set", (agg,))


def is_value_set(node) -> bool:
    """``node`` (a checked computed property) is a set of values read as their array: a path
    through a multi link (:func:`property_set`) or a function of ``array_unpack()``."""
    value = node.value if isinstance(node, qir.ComputedRef) else node
    return isinstance(value, qir.ValueSet) or (type(value) is qir.Call and value.func == "value_set")


_ARRAY_UNPACK = ("array_unpack", "std::array_unpack")


def _unpacked_set(expr, ctx):
    """``shortname := (select <str>array_unpack(str_split(.name, ' '))[0])``: an expression of
    the elements of one array (https://docs.geldata.com/reference/stdlib/array#function::std::array_unpack)
    is a set of values, one per element (``(select e)`` is ``e``), read as their array
    (:class:`~schemac.semantics.qir.ValueSet`). ``None`` when ``expr`` holds no
    ``array_unpack()``, ``False`` after reporting."""
    from schemac.semantics.exprs import check
    from schemac.semantics.model import ValueType

    body = expr
    while isinstance(body, ast.SelectExpr) and body.shape is None and body.filter is None and not body.order \
            and body.offset is None and body.limit is None:
        body = body.subject
    calls = [n for n in ast.iter_nodes(body) if isinstance(n, ast.FuncCall) and n.name in _ARRAY_UNPACK]
    if not calls:
        return None
    call = calls[0]
    if len(calls) > 1 or len(call.args) != 1:
        ctx.reporter.error("E0206", "a computed of several array_unpack() sets is not supported", calls[-1].span,
                           "unpack one array per computed")
        return False
    array = check(call.args[0], ctx)
    if array is None:
        return False
    if array.type.element is None:
        ctx.reporter.error("E0304", f"array_unpack() needs an array, got {array.type.name}", call.args[0].span)
        return False
    name = f"__unpacked{ctx.depth}"
    var = qir.LoopVar(name, array.type.element, "v", qi(f"_u{ctx.depth}"))
    inner = dataclasses.replace(ctx, variables={**ctx.variables, name: var})
    value = check(ast.map_expr(body, lambda n: ast.VarRef(name, n.span) if n is call else n), inner)
    if value is None:
        return False
    if value.type.element is not None:
        ctx.reporter.error("E0206", f"a computed set of {value.type.name} values is not supported", expr.span)
        return False
    return qir.ValueSet(expr.span, ValueType(element=value.type), False, array, var, value)


def link_set_of(expr, ctx) -> Optional[Tuple[object, ObjectType]]:
    """``(what, target)`` when ``expr`` is a set of objects of the subject: a backlink
    (``.<author[is Post]``) or ``.name`` of a computed link; ``None`` otherwise (nothing
    reported)."""
    if isinstance(expr, ast.Backlink):
        return expr, None  # type: ignore[return-value]
    if link_select(expr) is not None and ctx.subject is not None:
        return expr, None  # type: ignore[return-value]
    if isinstance(expr, ast.Path) and len(expr.steps) == 1 and ctx.subject is not None:
        comp = ctx.subject.computeds.get(expr.steps[0])
        if comp is not None and comp.target is not None:
            return comp, comp.target
    return None


def object_set(what, ctx, alias: str, span) -> Optional[qir.ObjectSet]:
    """The objects ``what`` (a :class:`~schemac.syntax.tree.Backlink` or a computed link) of the
    subject row, the target rows named ``alias``."""
    from schemac.semantics.exprs import check
    from schemac.semantics.e_types import BOOL

    subject = ctx.subject
    # (written in the query, `(select .link filter ...)` sees the query's `with` names; a
    # computed of the schema does not)
    in_query = isinstance(what, ast.SelectExpr)
    if isinstance(what, ast.SelectExpr):
        what = _inline_computed(what, ctx)
        if what is None:
            return None
    if isinstance(what, ast.Backlink):
        found = _backlink_source(what, ctx)
        if found is None:
            return None
        source, link_name, multi = found, what.link, True
    else:
        comp: Computed = what
        if comp.set_expr:
            inner_ctx = dataclasses.replace(ctx, module=comp.module, subject_column=None, variables={},
                                            bound_statements={})
            found = expr_object_set(comp.expr, inner_ctx, alias, span)
            # (a set at most one object: `.<gold[is Country] ?? .<food[is Country]` through exclusive links)
            return found if found is None or comp.multi else dataclasses.replace(found, multi=False)
        source, multi = comp.target, comp.multi
        # Inside the computed's own expression `Type.prop` of its type reads the object.
        inner = dataclasses.replace(ctx, subject=source, module=comp.module, column_prefix=alias,
                                    subject_column=None, variables=ctx.variables if in_query else {},
                                    bound_statements={}, outer=(subject, subject_ref(ctx)))
        if comp.backlink is None and comp.forward is None:
            sub: ast.SubSelect = single_subselect(comp.expr)[0]  # type: ignore[assignment]
            cond = check(sub.filter, inner, BOOL)
            if cond is None:
                return None
            return qir.ObjectSet(span, alias, source, multi, cond,  # type: ignore[arg-type]
                                 visible=_visible(source, ctx, alias))  # type: ignore[arg-type]
        filt = None
        if comp.filter is not None:
            filt = check(comp.filter, inner, BOOL)  # type: ignore[arg-type]
            if filt is None:
                return None
        if comp.forward is not None:
            link = subject.links[comp.forward]
            return qir.ObjectSet(span, alias, source, multi, None, link, subject_ref(ctx),  # type: ignore[arg-type]
                                 _visible(source, ctx, alias), True, filt)  # type: ignore[arg-type]
        link = backlink_link(source, comp.backlink, subject)  # type: ignore[arg-type]
        return qir.ObjectSet(span, alias, source, multi, None, link, subject_ref(ctx),  # type: ignore[arg-type]
                             _visible(source, ctx, alias), False, filt)  # type: ignore[arg-type]
    link = backlink_link(source, link_name, subject)  # type: ignore[arg-type]
    return qir.ObjectSet(span, alias, source, multi, None, link, subject_ref(ctx),  # type: ignore[arg-type]
                         _visible(source, ctx, alias))  # type: ignore[arg-type]


def _inline_computed(expr: ast.SelectExpr, ctx) -> Optional[Computed]:
    """``(select .<author[is Post] filter ...)`` / ``(select .link filter ...)`` written in place
    (``exists (select .<author[is Post] filter .draft)``): the computed link it would be."""
    from schemac.diagnostics import did_you_mean

    base, filt = link_select(expr)  # type: ignore[misc]
    subject = ctx.subject
    if isinstance(base, ast.Backlink):
        source = _backlink_source(base, ctx)
        if source is None:
            return None
        return Computed("", expr, ctx.module, expr.span, target=source, multi=True, backlink=base.link, filter=filt)
    name = base.steps[0]  # type: ignore[attr-defined]
    link = subject.links.get(name)
    comp = subject.computeds.get(name)
    if link is None and comp is not None and comp.target is not None and (comp.backlink or comp.forward):
        # `count(.likes filter .kind = 'Like')` of a computed link `likes := .<post[is Like]`:
        # its objects, filtered further.
        both = filt if comp.filter is None else (
            comp.filter if filt is None else ast.BinOp("and", comp.filter, filt, expr.span))  # type: ignore[arg-type]
        return dataclasses.replace(comp, filter=both)
    if link is None:
        ctx.reporter.error("E0206" if name in subject.computeds else "E0302",
                           f"'(select .{name} ...)': '{name}' is not a stored link of '{subject.name}'",
                           base.span, did_you_mean(name, list(subject.links)))  # type: ignore[attr-defined]
        return None
    return Computed("", expr, ctx.module, expr.span, target=link.target, multi=link.multi, forward=name, filter=filt)


def _visible(target: ObjectType, ctx, alias: str) -> Optional["qir.Visible"]:
    """The ``select`` access policy predicate of ``target`` (its rows named ``alias``), or ``None``."""
    from schemac.semantics import policies

    return policies.read_predicate(target, ctx, alias)


def _backlink_source(expr: ast.Backlink, ctx) -> Optional[ObjectType]:
    """The type whose link points back at the subject (see the resolver's check of the same)."""
    from schemac.diagnostics import did_you_mean

    subject = ctx.subject
    if subject is None:
        ctx.reporter.error("E0202", f"'.<{expr.link}' has no subject here", expr.span)
        return None
    candidates = [t for t in ctx.schema.types_with_pointer(expr.link) if backlink_link(t, expr.link, subject) is not None]
    if expr.type_name is not None:
        source = ctx.schema.find_narrowed(expr.type_name, ctx.module)
        if source is None:
            ctx.reporter.error("E0301", f"unknown type '{expr.type_name}'", expr.type_span or expr.span,
                               did_you_mean(expr.type_name.split("::")[-1], [t.name for t in ctx.schema.all_types()]))
            return None
        if source not in candidates:
            ctx.reporter.error("E0302", f"type '{source.name}' has no link '{expr.link}' to '{subject.name}'",
                               expr.span)
            return None
        return source
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        ctx.reporter.error("E0302", f"no type has a link '{expr.link}' to '{subject.name}'", expr.span)
    else:
        names = ", ".join(t.name for t in candidates)
        ctx.reporter.error("E0206", f"'.<{expr.link}' reaches several types ({names}): polymorphic backlinks are not "
                           "supported", expr.span, f"name one: .<{expr.link}[is {candidates[0].name}]")
    return None


def has_subtypes(schema, t: Optional[ObjectType]) -> bool:
    """Whether the concrete type ``t`` is extended by other concrete types."""
    return t is not None and len(schema.descendants.get(t.qualname, ())) > 1


def concrete_parent(schema, t: Optional[ObjectType], span, reporter, what: str) -> bool:
    """A located E0206 for ``what`` (a query reading every object of ``t``) when the concrete
    type ``t`` is extended by other types: Gel's objects of ``t`` include its subtypes'
    (https://docs.geldata.com/reference/datamodel/inheritance), which live in their own tables;
    only a select of ``t`` reads them (as an abstract type's). True when reported."""
    if not has_subtypes(schema, t):
        return False
    assert t is not None
    subs = ", ".join(k.split("::")[-1] for k in schema.descendants[t.qualname] if k != t.qualname)
    reporter.error("E0206", f"{what} of '{t.name}', a type other types extend ({subs}: Gel's objects of "
                   f"'{t.name}' include theirs), is not supported yet", span,
                   f"name the concrete types one by one, or make '{t.name}' abstract")
    return True


def type_set_of(expr, ctx) -> Optional[Tuple[ObjectType, object]]:
    """``(type, filter)`` when ``expr`` is the set of every object of a type, ``User``, or a
    selection of them, ``(select User filter .active)`` / ``User filter .active`` (``filter``
    ``None`` for all of them); ``None`` otherwise (nothing reported). A ``with`` name shadows a
    type's."""
    if isinstance(expr, ast.VarRef):
        if expr.name in ctx.variables or expr.name in ctx.bound_statements:
            return None
        if expr.name in ctx.type_sets:  # with u := (select User filter ...)
            return type_set_of(ctx.type_sets[expr.name], ctx)
        t = ctx.schema.find_type(expr.name, ctx.module)
        return None if t is None else (t, None)
    if isinstance(expr, ast.SubSelect):
        t = ctx.schema.find_type(expr.type_name, ctx.module)
        return None if t is None or expr.type_name in ctx.variables else (t, expr.filter)
    if (isinstance(expr, ast.SelectExpr) and expr.shape is None and not expr.order and expr.offset is None
            and expr.limit is None and isinstance(expr.subject, ast.VarRef)):
        found = type_set_of(expr.subject, ctx)
        if found is None:
            return None
        # `u filter g` of `with u := (select User filter f)`: the objects of u that g keeps, f and g
        both = expr.filter if found[1] is None else found[1] if expr.filter is None else \
            ast.BinOp("and", found[1], expr.filter, expr.span)  # type: ignore[arg-type]
        return found[0], both
    return None


def type_set(expr, ctx, alias: str) -> Optional[qir.ObjectSet]:
    """The objects of a :func:`type_set_of` expression (rows named ``alias``, restricted to those
    the type's access policies let the query see), its filter checked in the type's scope."""
    from schemac.semantics.exprs import check, check_filter
    from schemac.semantics.e_types import BOOL

    found = type_set_of(expr, ctx)
    assert found is not None
    source, filt = found
    cond = None
    if filt is not None:
        inner = dataclasses.replace(ctx, subject=source, column_prefix=alias, subject_column=None)
        inner = detached_scope(expr, ctx, inner)
        if ctx.query_filter is not None and inner.outer is None and not inner.detached_subject:
            cond = ctx.query_filter(filt, source, inner)  # (it reports a filter that is not bool)
            if cond is None:
                return None
        else:
            cond = check_filter(filt, inner)  # type: ignore[arg-type]
            if cond is None:
                return None
    if concrete_parent(ctx.schema, source, expr.span, ctx.reporter, "reading every object"):
        return None
    return qir.ObjectSet(expr.span, alias, source, True, cond, visible=_visible(source, ctx, alias))


def object_set_of(expr, ctx, alias: str) -> Optional[qir.ObjectSet]:
    """The set of objects ``expr`` stands for (``count(<set>)``, ``exists <set>``), its rows
    named ``alias``; ``None`` when ``expr`` is not one (or after reporting)."""
    found = link_set_of(expr, ctx)
    if found is None:
        return None
    return object_set(found[0], ctx, qi(alias), expr.span)


#: Value families ``min`` / ``max`` order as Postgres does (an enum orders by declaration in
#: Gel, a bool not at all in Postgres: refused).
_ORDERED_FAMILIES = frozenset({"num", "str", "datetime", "local_date", "local_datetime", "local_time", "duration",
                               "relative_duration", "date_duration"})


#: sum()'s result type by its argument's (https://docs.geldata.com/reference/stdlib/set#function::std::sum).
_SUM_RESULT = {"int16": "int64", "int32": "int64", "int64": "int64", "float32": "float32", "float64": "float64",
               "decimal": "decimal", "bigint": "bigint"}


def aggregate(expr: ast.FuncCall, func: str, ctx):
    """``min(.posts.published_at)`` / ``max(...)`` / ``sum(.items.qty)``: an aggregate of a
    property over a set of objects (a multi link, backlink or computed link followed by a
    property: https://docs.geldata.com/reference/stdlib/set) -> ``(SELECT min(t.p) FROM ...
    WHERE <the objects>)``. As in Gel, ``min`` and ``max`` of an empty set are empty and
    ``sum`` of one is ``0``. ``min({a, b})`` / ``max({a, b})`` of a set literal are ``LEAST`` /
    ``GREATEST`` (both skip empty elements, as Gel's set functions do); a single value is its
    own minimum. Returns ``None`` after reporting."""
    from schemac.semantics.exprs import check
    from schemac.semantics.model import ValueType
    from schemac.semantics.scalars import SCALARS

    if len(expr.args) != 1:
        ctx.reporter.error("E0304", f"{func}() takes one set", expr.span)
        return None
    arg = expr.args[0]
    while isinstance(arg, ast.SelectExpr) and arg.shape is None and arg.filter is None and not arg.order \
            and arg.offset is None and arg.limit is None and isinstance(arg.subject, ast.ForExpr):
        arg = arg.subject
    from schemac.semantics.e_params import for_rows, is_for_rows
    if isinstance(arg, ast.VarRef) and arg.name in ctx.row_sets and arg.name not in ctx.variables \
            or is_for_rows(arg, ctx):
        # `sum((for x in S union <value of x>))`, `min(s)` of `with s := (for ...)`: over its values
        rows = for_rows(ctx.row_sets[arg.name] if isinstance(arg, ast.VarRef) else arg, ctx)
        if rows is None:
            return None
        return _rows_aggregate(expr, func, rows, ctx)
    from schemac.semantics.e_params import coalesced_elementwise, elementwise_loop
    parts = coalesced_elementwise(arg, ctx)
    if parts is not None:
        # `sum(len(<array<json>>(S.data['k'] ?? <json>[])))`: over the left operand's values when
        # it has any, else over the right one's
        left, right, with_left, with_right = parts
        some = ast.BinOp(">", ast.FuncCall("count", (left,), left.span), ast.Literal("int", 0, arg.span), arg.span)
        return check(ast.IfElse(some, ast.FuncCall(expr.name, (with_left,), expr.span),
                                ast.FuncCall(expr.name, (with_right,), expr.span), expr.span), ctx)
    loop = elementwise_loop(arg, ctx)
    if loop is not None:
        # `sum(len(S.p))`: over each object's value (`for S in S union len(S.p)`)
        rows = for_rows(loop, ctx)
        return None if rows is None else _rows_aggregate(expr, func, rows, ctx)
    if isinstance(arg, ast.BinOp) and arg.op == "??" and _object_path(arg.left, ctx, f"_a{ctx.depth}") \
            not in (None, False):
        # `sum(.tags.rank ?? 0)`: `??` takes its left operand as a whole set (SET OF,
        # https://docs.geldata.com/reference/stdlib/set#operator::coalesce): the path's values when it
        # has any, else the right operand
        some = ast.BinOp(">", ast.FuncCall("count", (arg.left,), arg.left.span), ast.Literal("int", 0, arg.span),
                         arg.span)
        return check(ast.IfElse(some, ast.FuncCall(expr.name, (arg.left,), expr.span),
                                ast.FuncCall(expr.name, (arg.right,), expr.span), expr.span), ctx)
    if isinstance(arg, ast.SetLit):
        if func == "sum" or not arg.items:
            ctx.reporter.error("E0206", f"{func}() of a set literal is only supported for min and max of values",
                               expr.span)
            return None
        items = []
        for item in arg.items:
            low = check(item, ctx, items[0].type if items else None)
            if low is None:
                return None
            if items and low.type.family != items[0].type.family:
                ctx.reporter.error("E0304", f"{func}() of a set mixes {items[0].type.name} and {low.type.name}",
                                   item.span)
                return None
            items.append(low)
        if not _ordered(items[0].type, func, expr.span, ctx):
            return None
        return qir.Call(expr.span, items[0].type, all(i.nullable for i in items), func + "/items", tuple(items))
    objects_and_rest = _object_path(arg, ctx, f"_a{ctx.depth}")
    if objects_and_rest is False:
        return None
    if objects_and_rest is None:
        low = check(arg, ctx)  # a single value: the set of one element
        if low is None:
            return None
        if type(low) is qir.ColumnRef and low.column.multi and low.type.element is not None:  # type: ignore[attr-defined]
            return _multi_property_aggregate(expr, func, low, ctx)
        if func == "sum":
            if low.type.family != "num" or low.type.element is not None or low.type.scalar is None:
                ctx.reporter.error("E0304", f"sum() needs numbers, got {low.type.name}", arg.span)
                return None
            # sum of one value is the value, of none 0 (never empty), in Gel's result type.
            vtype = ValueType(scalar=SCALARS[_SUM_RESULT.get(low.type.scalar.name, low.type.scalar.name)])
            return qir.Call(expr.span, vtype, False, "sum", (low,))
        if not _ordered(low.type, func, arg.span, ctx):
            return None
        return low
    objects, rest = objects_and_rest
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                variables={}, bound_statements={})
    value = check(ast.Path(rest, arg.span), inner)
    if value is None:
        return None
    if value.type.element is not None:
        ctx.reporter.error("E0206", f"{func}() of a multi property of several objects is not supported", arg.span)
        return None
    if func == "sum":
        scalar = value.type.scalar.name if value.type.scalar is not None else ""
        result = _SUM_RESULT.get(scalar)
        if result is None:
            ctx.reporter.error("E0304", f"sum() needs numbers, got {value.type.name}", arg.span)
            return None
        vtype = ValueType(scalar=SCALARS[result])
        agg = qir.AggregateObjects(expr.span, vtype, False, "sum", objects, value)
        # Postgres' sum of bigint is numeric and NULL over no rows: Gel's is int64 and 0.
        return qir.Call(expr.span, vtype, False, "sum", (agg,))
    if not _ordered(value.type, func, arg.span, ctx):
        return None
    return qir.AggregateObjects(expr.span, value.type, True, func, objects, value)


def _rows_aggregate(expr, func: str, rows: qir.ForRows, ctx):
    """``sum`` / ``min`` / ``max`` of the values of a ``for`` loop over objects
    (:class:`~schemac.semantics.qir.ForRows`), duplicates included: ``(SELECT sum("_fr"."value")
    FROM (<its rows>) AS "_fr")``; ``sum`` of none is ``0`` in Gel's result type, ``min`` and
    ``max`` of none are empty (https://docs.geldata.com/reference/stdlib/set)."""
    from schemac.semantics.model import ValueType
    from schemac.semantics.scalars import SCALARS

    if rows.targets is not None:
        ctx.reporter.error("E0304", f"{func}() of objects is not defined (aggregate a property of them)",
                           expr.args[0].span)
        return None
    if func == "sum":
        scalar = rows.type.scalar.name if rows.type.scalar is not None and rows.type.element is None else ""
        result = _SUM_RESULT.get(scalar)
        if result is None:
            ctx.reporter.error("E0304", f"sum() needs numbers, got {rows.type.name}", expr.args[0].span)
            return None
        vtype = ValueType(scalar=SCALARS[result])
        agg = qir.AggregateRows(expr.span, vtype, False, "sum", rows)
        return qir.Call(expr.span, vtype, False, "sum", (agg,))
    if not _ordered(rows.type, func, expr.args[0].span, ctx):
        return None
    return qir.AggregateRows(expr.span, rows.type, True, func, rows)


def _multi_property_aggregate(expr, func: str, low, ctx):
    """``min(.scores)`` / ``max`` / ``sum`` / ``math::mean`` of a ``multi`` property, a set of
    values stored as an array (https://docs.geldata.com/reference/stdlib/set): an aggregate over
    its elements, ``(SELECT min("_m"."v") FROM unnest(scores) AS "_m"("v"))``; empty for ``min``
    and ``max`` of none, ``0`` for ``sum``, and for ``math::mean`` the statement fails, as Gel's."""
    from schemac.semantics.model import ValueType
    from schemac.semantics.scalars import SCALARS

    element = low.type.element
    if func in ("min", "max"):
        if not _ordered(element, func, expr.args[0].span, ctx):
            return None
        return qir.Call(expr.span, element, True, func + "/array", (low,))
    scalar = element.scalar.name if element.scalar is not None and element.family == "num" else ""
    if func == "sum":
        if scalar not in _SUM_RESULT:
            ctx.reporter.error("E0304", f"sum() needs numbers, got {element.name}", expr.args[0].span)
            return None
        vtype = ValueType(scalar=SCALARS[_SUM_RESULT[scalar]])
        return qir.Call(expr.span, vtype, False, "sum/array", (low,))
    if not scalar:
        ctx.reporter.error("E0304", f"math::mean() needs numbers, got {element.name}", expr.args[0].span)
        return None
    vtype = ValueType(scalar=SCALARS["decimal" if scalar in ("decimal", "bigint") else "float64"])
    return qir.Call(expr.span, vtype, False, "math::mean/array", (low,))


def _ordered(vtype, func: str, span, ctx) -> bool:
    if vtype.element is None and vtype.enum is None and vtype.family in _ORDERED_FAMILIES:
        return True
    ctx.reporter.error("E0206", f"{func}() of {vtype.name} values is not supported", span,
                       "min and max take numbers, strings, dates and times, and durations")
    return False


def set_first_step(path, ctx) -> bool:
    """``.name.rest`` whose first step is a set of objects of the subject: a multi link or a
    computed link (what :func:`_object_path` reads)."""
    if ctx.subject is None:
        return False
    name = path.steps[0]
    link = ctx.subject.links.get(name)
    if link is not None:
        return link.multi
    comp = ctx.subject.computeds.get(name)
    return comp is not None and comp.target is not None


def _object_path(arg, ctx, alias: str):
    """``(objects, rest)`` when ``arg`` is ``.link.prop...`` whose first step is a set of objects
    of the subject (a multi link, a backlink-like computed link) and ``rest`` the path from each
    object; ``None`` when it is not one; ``False`` after reporting."""
    found = query_value_path(arg, ctx)
    if found is not None:
        # `rolls.reason`, `rolls.received.character.rank` of a query's names: the property of
        # each of the (distinct) objects of the set
        objects = query_set(found[0], ctx, qi(alias))
        if objects is None:
            return False
        return objects, (found[1],)
    steps: List[str] = []
    root = arg
    while isinstance(root, ast.Step) and root.kind == ".":
        steps.insert(0, root.name)
        root = root.base
    if len(steps) > 1 and ctx.subject is not None and (isinstance(root, ast.Backlink) or (
            is_set_expr(root) or link_set_of(root, ctx) is not None) and _asserted_single(root) is None) \
            and set_target(arg.base, ctx.subject, ctx.schema, ctx.module) is not None:
        # `.<title[is Credit].person.name`, `(select .<title[is Credit] filter ...).person.name`:
        # the property of each of the distinct objects the path reaches (a path of objects has
        # no duplicates, https://docs.geldata.com/reference/edgeql/paths)
        objects = expr_object_set(arg.base, ctx, qi(alias), arg.span)
        return False if objects is None else (objects, tuple(steps[-1:]))
    if isinstance(root, ast.Backlink) and steps and ctx.subject is not None:
        # `.<author[is Post].score`
        objects = object_set(root, ctx, qi(alias), arg.span)
        return False if objects is None else (objects, tuple(steps))
    if isinstance(arg, ast.Step) and arg.kind == "." and steps and ctx.subject is not None and (
            is_set_expr(root) or link_set_of(root, ctx) is not None) and _asserted_single(root) is None:
        # `.items[is Media].id_al`: the property of each of the distinct objects of the set
        objects = expr_object_set(root, ctx, qi(alias), arg.span)
        return False if objects is None else (objects, tuple(steps))
    if not isinstance(arg, ast.Path) or len(arg.steps) < 2 or ctx.subject is None:
        return None
    name = arg.steps[0]
    subject = ctx.subject
    if len(arg.steps) > 2 and (name in subject.links and subject.links[name].multi or (
            name in subject.computeds and subject.computeds[name].target is not None)):
        # `.musics.genre.name`: the property of each of the distinct objects the path reaches
        # (Gel's paths through links are sets of distinct objects, so a genre of two musics
        # counts once): the objects of `.musics.genre`, then `.name` of each.
        objects = expr_object_set(ast.Path(arg.steps[:-1], arg.span), ctx, qi(alias), arg.span)
        if objects is None:
            return False
        return objects, arg.steps[-1:]
    link = subject.links.get(name)
    if link is not None and link.multi:
        objects = qir.ObjectSet(arg.span, qi(alias), link.target, True, None, link, subject_ref(ctx),
                                _visible(link.target, ctx, qi(alias)), True)
        return objects, arg.steps[1:]
    comp = subject.computeds.get(name)
    if comp is not None and refuse_computed(comp, arg.span, ctx.reporter):
        return False
    if comp is not None and comp.target is not None:
        objects = object_set(comp, ctx, qi(alias), arg.span)
        if objects is None:
            return False
        return objects, arg.steps[1:]
    return None


# ---------------------------------------------------------------------------------------------
# Sets of objects written as expressions: paths through links, unions, filtered sub-selects.


def _flatten_path(expr) -> Optional[List[object]]:
    """``.a[is T].b.c`` -> ``['a', ('is', TypeRef), 'b', 'c']`` (a backlink, leading or after
    another step, ``.<a[is T].<b[is U]``, is a :class:`~schemac.syntax.tree.Backlink` element);
    ``None`` when ``expr`` is not such a path."""
    out: List[object] = []
    node = expr
    while True:
        if isinstance(node, ast.Step) and node.kind == ".":
            out.insert(0, node.name)
            node = node.base
        elif isinstance(node, ast.TypeFilter) and isinstance(node.base, ast.Step) and node.base.kind == ".<":
            # a backlink after a first step: `.<artists[is Track].<track[is Stream]`
            out.insert(0, ast.Backlink(node.base.name, node.type.name, node.span, node.type.span))
            node = node.base.base
        elif isinstance(node, ast.Step) and node.kind == ".<":
            out.insert(0, ast.Backlink(node.name, None, node.span))
            node = node.base
        elif isinstance(node, ast.TypeFilter):
            out.insert(0, ("is", node.type))
            node = node.base
        elif isinstance(node, ast.Path):
            out[0:0] = list(node.steps)
            return out
        elif isinstance(node, ast.Backlink):
            out.insert(0, node)
            return out
        else:
            return None


def operator_chain(expr, op: str) -> Optional[List[object]]:
    """The operands of ``a <op> b <op> c``, left to right (without recursion: a chain may be
    long); ``None`` when ``expr`` is not an ``op``."""
    if not (isinstance(expr, ast.BinOp) and expr.op == op):
        return None
    out: List[object] = []
    stack = [expr]
    while stack:
        n = stack.pop()
        if isinstance(n, ast.BinOp) and n.op == op:
            stack.extend((n.right, n.left))
        else:
            out.append(n)
    return out


def union_parts(expr) -> Optional[List[object]]:
    """The operands of ``a union b union c``; ``None`` when ``expr`` is not a union."""
    return operator_chain(expr, "union")


def coalesce_parts(expr) -> Optional[List[object]]:
    """The operands of ``a ?? b ?? c`` when each is a set of objects (a backlink, a path, a
    union, ...: :func:`is_set_expr`); ``None`` otherwise (a ``??`` of values)."""
    out = operator_chain(expr, "??")
    if out is None:
        return None
    if all(isinstance(p, ast.Backlink) or is_set_expr(p) for p in out):
        return out
    return None


def set_op(expr) -> Optional[Tuple[str, object, object]]:
    """``(op, left, right)`` of ``A intersect B`` / ``A except B``
    (https://docs.geldata.com/reference/stdlib/set), else ``None``."""
    if isinstance(expr, ast.BinOp) and expr.op in ("intersect", "except"):
        return expr.op, expr.left, expr.right
    return None


def set_target(expr, subject: ObjectType, schema, module: str, depth: int = 0) -> Optional[ObjectType]:
    """The object type of the objects ``expr`` stands for when it is a set of objects of
    ``subject`` written as a path through links (``.items[is Media].edges.character``), a union
    of such sets, or ``(select <set> filter ...)``; ``None`` otherwise (nothing reported). Used
    to tell a computed link from a computed property before checking it."""
    if depth > 20 or subject is None:
        return None
    if isinstance(expr, ast.WithExpr):
        return set_target(expr.body, subject, schema, module, depth + 1)
    if _asserted_single(expr) is not None:
        return set_target(_asserted_single(expr), subject, schema, module, depth + 1)
    if isinstance(expr, ast.SelectExpr) and expr.shape is None and not expr.order and expr.offset is None \
            and expr.limit is None:
        return set_target(expr.subject, subject, schema, module, depth + 1)
    if set_op(expr) is not None:
        # (the objects of the left operand; a right one of another type is reported when checked)
        return set_target(set_op(expr)[1], subject, schema, module, depth + 1)  # type: ignore[index]
    parts = union_parts(expr) or coalesce_parts(expr)
    if parts is not None:
        targets = [set_target(p, subject, schema, module, depth + 1) for p in parts]
        # (a union of sets of several types is reported when it is checked)
        return targets[0] if targets and all(t is not None for t in targets) else None
    steps = _flatten_path(expr)
    if steps is None:
        chain = set_chain(expr)
        if chain is None:
            return None
        root = set_target(chain[0], subject, schema, module, depth + 1)
        return None if root is None else _walk_steps(root, list(chain[1]), schema, module, depth)
    return _walk_steps(subject, steps, schema, module, depth)


def set_chain(expr) -> Optional[Tuple[object, Tuple[str, ...]]]:
    """``(root, steps)`` of ``(select .<title[is Credit] filter ...).person.name``: path steps
    (``.link``) after a filtered selection of a set of objects of the subject, which is no path
    itself; ``None`` for any other expression."""
    steps: List[str] = []
    node = expr
    while isinstance(node, ast.Step) and node.kind == ".":
        steps.insert(0, node.name)
        node = node.base
    if not steps or not isinstance(node, ast.SelectExpr) or node.shape is not None or node.order \
            or node.offset is not None or node.limit is not None or node.filter is None:
        return None
    if not (is_set_expr(node.subject) or link_select(node) is not None):
        return None
    return node, tuple(steps)


def _walk_steps(cur, steps, schema, module: str, depth: int) -> Optional[ObjectType]:
    for i, step in enumerate(steps):
        if isinstance(step, ast.Backlink):
            if step.type_name is None:
                return None
            cur = schema.find_narrowed(step.type_name, module)
        elif isinstance(step, tuple):
            t = schema.find_narrowed(step[1].name, module)
            if t is None:
                return None
            cur = t
        elif cur is None:
            return None
        elif step in cur.links:
            cur = cur.links[step].target
        elif step in cur.poly_links:
            cur = None  # (its subtype comes with the next [is T])
        elif step in cur.computeds:
            comp = cur.computeds[step]
            if comp.target is not None:
                cur = comp.target
            else:
                cur = set_target(comp.expr, cur, schema, comp.module, depth + 1)
                if cur is None and isinstance(comp.expr, ast.Backlink) and comp.expr.type_name:
                    cur = schema.find_type(comp.expr.type_name, comp.module)
        else:
            return None
        if cur is None and not (isinstance(step, str) and i + 1 < len(steps) and isinstance(steps[i + 1], tuple)):
            return None
    return cur


def _asserted_single(expr):
    """``x`` of ``assert_single(x)``, else ``None``."""
    if isinstance(expr, ast.FuncCall) and expr.name in ("assert_single", "std::assert_single") and len(expr.args) == 1:
        return expr.args[0]
    return None


def single_set(expr) -> bool:
    """``expr`` is ``assert_single(<set>)`` (possibly inside ``(select ...)`` / ``with``): a
    computed link holding at most one object."""
    while True:
        if isinstance(expr, ast.WithExpr):
            expr = expr.body
        elif isinstance(expr, ast.SelectExpr) and expr.filter is None and expr.shape is None and not expr.order \
                and expr.offset is None and expr.limit is None:
            expr = expr.subject
        else:
            return _asserted_single(expr) is not None


def single_path(expr, subject: ObjectType, schema, module: str, depth: int = 0) -> bool:
    """``expr`` is a path through single links (``.album.artist``, also ``.a[is T].b`` and
    inside ``with`` or ``(select <path> [filter ...])``): at most one object, as Gel's
    cardinality inference has it (https://docs.geldata.com/reference/edgeql/cardinality: a path
    is multi only when one of its steps is). A multi link, a poly link declared multi, a
    backlink or a multi computed link anywhere in the path keeps it multi."""
    if depth > 20 or subject is None:
        return False
    if isinstance(expr, ast.WithExpr):
        return single_path(expr.body, subject, schema, module, depth + 1)
    if isinstance(expr, ast.SelectExpr) and expr.shape is None and not expr.order and expr.offset is None \
            and expr.limit is None:
        # (a filter keeps at most one object at most one)
        return single_path(expr.subject, subject, schema, module, depth + 1)
    steps = _flatten_path(expr)
    if steps is None or not steps:
        return False
    cur = subject
    for i, step in enumerate(steps):
        if isinstance(step, ast.Backlink):
            return False
        if isinstance(step, tuple):
            cur = schema.find_narrowed(step[1].name, module)
        elif cur is None:
            return False
        elif step in cur.links:
            if cur.links[step].multi:
                return False
            cur = cur.links[step].target
        elif step in cur.poly_links:
            if cur.poly_links[step].multi:
                return False
            cur = None  # (its subtype comes with the next [is T])
        elif step in cur.computeds:
            comp = cur.computeds[step]
            if comp.target is not None:
                if comp.multi or comp.broken:
                    return False
                cur = comp.target
            elif comp.type is None and single_path(comp.expr, cur, schema, comp.module, depth + 1):
                # (not typed yet: its own expression a path through single links)
                cur = set_target(comp.expr, cur, schema, comp.module, depth + 1)
            else:
                return False
        else:
            return False
        if cur is None and not (isinstance(step, str) and i + 1 < len(steps) and isinstance(steps[i + 1], tuple)):
            return False
    return cur is not None


def is_set_expr(expr) -> bool:
    """A path of several steps, a type filter or a union, also inside ``with`` or
    ``assert_single``: what :func:`expr_object_set` reads."""
    if isinstance(expr, ast.WithExpr):
        return is_set_expr(expr.body)
    if isinstance(expr, ast.SelectExpr) and expr.shape is None and not expr.order and expr.offset is None \
            and expr.limit is None:
        return is_set_expr(expr.subject) or link_select(expr) is not None
    if _asserted_single(expr) is not None:
        inner = _asserted_single(expr)
        return is_set_expr(inner) or isinstance(inner, ast.Backlink)
    if union_parts(expr) is not None or set_op(expr) is not None or coalesce_parts(expr) is not None:
        return True
    steps = _flatten_path(expr)
    if steps is None:
        return set_chain(expr) is not None
    return len(steps) > 1 or any(isinstance(s, tuple) for s in steps)


def expr_object_set(expr, ctx, alias: str, span) -> Optional[qir.ObjectSet]:
    """The objects an expression stands for, as the rows of one type named ``alias``: a
    backlink or (computed) link of the subject, ``(select <set> filter ...)``, a path through
    links (``.items[is Media].edges.character``: the distinct objects it reaches, as in Gel), or
    a union of such sets of one type (``A union B``: duplicates kept, Gel's union is a multiset
    union: https://docs.geldata.com/reference/edgeql/sets). ``None`` after reporting."""
    from schemac.semantics.exprs import check, with_scope
    from schemac.semantics.e_types import BOOL

    if isinstance(expr, ast.WithExpr):
        scope = with_scope(expr, ctx)
        return None if scope is None else expr_object_set(expr.body, scope, alias, span)
    if _asserted_single(expr) is not None:
        # assert_single(<set>): at most one object; a shape reads it with a scalar sub-select,
        # which fails the statement on two (SQLSTATE 21000), as Gel's CardinalityViolationError.
        found = expr_object_set(_asserted_single(expr), ctx, alias, span)
        return None if found is None else dataclasses.replace(found, multi=False)
    if isinstance(expr, ast.SelectExpr) and expr.shape is None and not expr.order and expr.offset is None \
            and expr.limit is None and expr.filter is None:
        return expr_object_set(expr.subject, ctx, alias, span)
    if isinstance(expr, ast.SelectExpr) and expr.shape is None and not expr.order and expr.offset is None \
            and expr.limit is None and expr.filter is not None and (
                is_set_expr(expr.subject) or link_set_of(expr.subject, ctx) is not None):
        base = expr_object_set(expr.subject, ctx, alias, span)
        if base is None:
            return None
        # (a `with` around the select may bind names the filter reads)
        inner = dataclasses.replace(ctx, subject=base.source, column_prefix=alias, subject_column=None,
                                    bound_statements={}, outer=(ctx.subject, subject_ref(ctx)))
        filt = check(expr.filter, inner, BOOL)
        if filt is None:
            return None
        if base.filter is not None:
            filt = qir.Binary(expr.span, BOOL, True, "and", base.filter, filt)
        return dataclasses.replace(base, filter=filt)
    if set_op(expr) is not None:
        return _set_op(expr, ctx, alias, span)
    parts = union_parts(expr)
    coalesce = parts is None and coalesce_parts(expr) is not None
    if coalesce:
        # `A ?? B ?? C` of sets of objects (https://docs.geldata.com/reference/stdlib/set#operator::coalesce):
        # the objects of the first operand that holds any
        parts = coalesce_parts(expr)
    if parts is not None:
        sets = []
        for p in parts:
            s = expr_object_set(p, ctx, alias, span)
            if s is None:
                return None
            if sets and s.source is not sets[0].source:
                what = "'??' of" if coalesce else "a union of"
                ctx.reporter.error("E0206", f"{what} {sets[0].source.name} and {s.source.name} objects is not "
                                   "supported yet", p.span, "unite sets of one type")
                return None
            sets.append(s)
        return qir.ObjectSet(span, alias, sets[0].source, True, parts=tuple(sets), coalesce=coalesce)
    if link_set_of(expr, ctx) is not None:
        found = link_set_of(expr, ctx)
        return object_set(found[0], ctx, alias, span)  # type: ignore[index]
    chain = set_chain(expr) if ctx.subject is not None else None
    if chain is not None:
        # `(select .<title[is Credit] filter .role = 'director').person`: the distinct objects
        # the path reaches from the selected ones (https://docs.geldata.com/reference/edgeql/paths)
        base = expr_object_set(chain[0], ctx, _sub_alias(alias, "r"), span)
        if base is None:
            return None
        hops = _path_hops(list(chain[1]), expr.span, dataclasses.replace(ctx, subject=base.source), rooted=True)
        if hops is None:
            return None
        target = hops[-1].target
        cond = qir.InSetPath(expr.span, BOOL, False, alias, base, tuple(hops))
        return qir.ObjectSet(span, alias, target, True, cond, visible=_visible(target, ctx, alias))
    steps = _flatten_path(expr)
    if steps is not None and isinstance(expr, ast.Path) and len(steps) == 1 and ctx.subject is not None \
            and steps[0] in ctx.subject.links:
        link = ctx.subject.links[steps[0]]
        return qir.ObjectSet(span, alias, link.target, link.multi, None, link, subject_ref(ctx),
                             _visible(link.target, ctx, alias), True)
    if steps is None or ctx.subject is None:
        ctx.reporter.error("E0206", "this expression is not a set of objects that can be read here yet", expr.span,
                           "a set of objects is a backlink, a link, a path through links, or a union of them")
        return None
    hops = _path_hops(steps, expr.span, ctx)
    if hops is None:
        return None
    target = hops[-1].target
    me = subject_ref(ctx)
    cond = qir.InPath(expr.span, BOOL, False, alias, me, tuple(hops), written_row=me == ctx.written_row)
    return qir.ObjectSet(span, alias, target, True, cond, visible=_visible(target, ctx, alias))


def _set_op(expr: ast.BinOp, ctx, alias: str, span) -> Optional[qir.ObjectSet]:
    """``A intersect B`` / ``A except B`` of sets of objects of one type
    (https://docs.geldata.com/reference/stdlib/set): the objects of ``A`` that are (are not)
    objects of ``B``. Gel's operators are a multiset's (an object ``A`` holds twice and ``B``
    once is once in ``A intersect B``); links, backlinks and paths hold each object once, so the
    rows of ``A`` whose id is (is not) one of ``B``'s are the result. A union operand, which may
    hold an object twice, is refused (``E0206``)."""
    op, left, right = expr.op, expr.left, expr.right
    a = expr_object_set(left, ctx, alias, span)
    if a is None:
        return None
    b = expr_object_set(right, ctx, _sub_alias(alias, "x" if op == "intersect" else "e"), span)
    if b is None:
        return None
    if b.source is not a.source:
        ctx.reporter.error("E0206", f"'{op}' of {a.source.name} and {b.source.name} objects is not supported yet",
                           expr.span, f"'{op}' sets of one type")
        return None
    for s, e in ((a, left), (b, right)):
        if s.parts:
            ctx.reporter.error("E0206", f"a union as an operand of '{op}' is not supported yet (it may hold an "
                               "object more than once, which Gel's multiset operators count)", e.span)
            return None
    if op == "intersect":
        return dataclasses.replace(a, within=a.within + (b,))
    return dataclasses.replace(a, outside=a.outside + (b,))


def _path_hops(steps, span, ctx, rooted: bool = False) -> Optional[List[qir.PathHop]]:
    from schemac.diagnostics import did_you_mean

    cur: ObjectType = ctx.subject
    hops: List[qir.PathHop] = []
    i = 0
    while i < len(steps):
        step = steps[i]
        nxt = steps[i + 1] if i + 1 < len(steps) else None
        narrowed = None
        if isinstance(nxt, tuple):
            narrowed = ctx.schema.find_narrowed(nxt[1].name, ctx.module)
            if narrowed is None:
                ctx.reporter.error("E0301", f"unknown type '{nxt[1].name}'", nxt[1].span)
                return None
        visible = _visible(cur, ctx, qi(f"_v{len(hops) - 1}")) if hops else None
        if visible is not None:
            # a path through objects with access policies: only those the query may see lead on
            hops[-1] = dataclasses.replace(hops[-1], visible=visible)
        if isinstance(step, ast.Backlink):
            inner = dataclasses.replace(ctx, subject=cur)
            source = _backlink_source(step, inner)
            if source is None:
                return None
            link = source.links[step.link]
            hops.append(qir.PathHop(span, "backlink", cur, source, True, link))
            cur = source
        elif isinstance(step, tuple):
            ctx.reporter.error("E0206", f"'[is {step[1].name}]' is supported after a link only", step[1].span)
            return None
        elif step in cur.links:
            link = cur.links[step]
            if narrowed is not None and narrowed is not link.target:
                ctx.reporter.error("E0206", f"'[is {narrowed.name}]' of the link '{step}' (to {link.target.name}) is "
                                   "not supported", span)
                return None
            hops.append(qir.PathHop(span, "link", cur, link.target, link.multi, link))
            cur = link.target
        elif step in cur.poly_links:
            pl = cur.poly_links[step]
            col = next((c for t, c in pl.targets if t is narrowed), None) if narrowed is not None else None
            if col is None:
                ctx.reporter.error("E0206", f"'{step}' links to several types ({', '.join(t.name for t, _ in pl.targets)})"
                                   f": name one with [is T] in a path", span,
                                   f"e.g. .{step}[is {pl.targets[0][0].name}]")
                return None
            hops.append(qir.PathHop(span, "poly", cur, narrowed, pl.multi, pl, col))  # type: ignore[arg-type]
            cur = narrowed  # type: ignore[assignment]
        elif step in cur.computeds and cur.computeds[step].target is not None:
            comp = cur.computeds[step]
            # (a computed link whose own expression is a path through computeds nests this:
            # each level names its rows apart, or the inner rows would shadow the outer ones)
            level = f"_{len(_HOP_LEVELS)}" if _HOP_LEVELS else ""
            row = qi(f"_r{len(hops)}_{ctx.depth}{level}")
            if hops:
                scope = dataclasses.replace(ctx, subject=cur, column_prefix=row, subject_column=None, variables={},
                                            bound_statements={})
            else:
                # (a row of its own, correlated with the subject by the hop's key: naming it as
                # the subject's table would shadow the subject row)
                scope = dataclasses.replace(ctx, column_prefix=row, subject_column=None)
            _HOP_LEVELS.append(step)
            try:
                objects = object_set(comp, scope, qi(f"_o{len(hops)}_{ctx.depth}{level}"), span)
            finally:
                _HOP_LEVELS.pop()
            if objects is None:
                return None
            hops.append(qir.PathHop(span, "computed", cur, comp.target, True, None, None, objects, row))
            cur = comp.target  # type: ignore[assignment]
        else:
            what = "a property" if cur.column(step) is not None or step in cur.computeds else "not a link"
            ctx.reporter.error("E0206" if what == "a property" else "E0302",
                               f"'{step}' of '{cur.name}' is {what}: a set of objects is a path through links", span,
                               None if what == "a property" else did_you_mean(step, list(cur.links)))
            return None
        i += 2 if narrowed is not None else 1
    return hops


def is_set_operand(expr, ctx) -> bool:
    """``expr`` (the argument of ``count`` or ``exists``) is a union, a path of objects through
    several links, or a filtered select of one: a set of objects of the subject."""
    if ctx.subject is None:
        return False
    if isinstance(expr, ast.SelectExpr) and expr.shape is None and not expr.order and expr.offset is None \
            and expr.limit is None and is_set_expr(expr.subject):
        return set_target(expr.subject, ctx.subject, ctx.schema, ctx.module) is not None
    return is_set_expr(expr) and set_target(expr, ctx.subject, ctx.schema, ctx.module) is not None


# ---------------------------------------------------------------------------------------------
# Sets of objects of a query's names: `with` selections, the object a `with` name holds, every
# object of a type, and paths from them (https://docs.geldata.com/reference/edgeql/with).


def _rooted_steps(expr) -> Tuple[object, List[object]]:
    """``(root, steps)`` of a path from an expression (``rolls.received.character``,
    ``player.<author[is Roll]``): ``steps`` as :func:`_path_hops` reads them (link names,
    :class:`~schemac.syntax.tree.Backlink` elements, ``('is', TypeRef)`` after a link)."""
    steps: List[object] = []
    node = expr
    while True:
        if isinstance(node, ast.Step) and node.kind == ".":
            steps.insert(0, node.name)
            node = node.base
        elif isinstance(node, ast.Step) and node.kind == ".<":
            steps.insert(0, ast.Backlink(node.name, None, node.span))
            node = node.base
        elif isinstance(node, ast.TypeFilter) and isinstance(node.base, ast.Step) and node.base.kind == ".<":
            steps.insert(0, ast.Backlink(node.base.name, node.type.name, node.span, node.type.span))
            node = node.base.base
        elif isinstance(node, ast.TypeFilter) and isinstance(node.base, ast.Step) and node.base.kind == ".":
            steps.insert(0, ("is", node.type))
            steps.insert(0, node.base.name)
            node = node.base.base
        elif isinstance(node, ast.EnumRef):
            steps.insert(0, node.member)
            return ast.VarRef(node.enum, node.span), steps
        else:
            return node, steps


def _plain_shape(shape) -> bool:
    """A shape of stored names only (``{ content, timestamp }``): it chooses what an output
    shows, nothing else (https://docs.geldata.com/reference/edgeql/shapes)."""
    return shape is None or all(el.value is None and not el.shape and el.filter is None and not el.order
                                and el.offset is None and el.limit is None and not el.link_prop
                                and el.type_filter is None and not el.backlink for el in shape)


def _object_var(name: str, ctx) -> Optional[ObjectType]:
    """The type of the one object a ``with`` name holds (``player := (select Player filter
    .id = ...)``), else ``None``."""
    b = ctx.variables.get(name)
    value = getattr(b, "value", None) if type(b) is qir.WithValue else None
    return _object_of(value)


def _object_of(value, depth: int = 0) -> Optional[ObjectType]:
    """The type of the one object ``value`` is (see :func:`_object_var`), also through
    ``assert_exists(...)`` and another ``with`` name (``p := assert_exists(p0)``)."""
    if type(value) is qir.ObjectId or (type(value) is qir.ObjectRow and value.value is None):  # type: ignore[union-attr]
        return value.target  # type: ignore[union-attr]
    if type(value) is qir.Call and value.func == "assert_exists" and depth < 20:  # type: ignore[union-attr]
        return _object_of(value.args[0], depth + 1)  # type: ignore[union-attr]
    if type(value) is qir.VarRef and type(value.binding) is qir.WithValue and depth < 20:  # type: ignore[union-attr]
        return _object_of(value.binding.value, depth + 1)  # type: ignore[union-attr]
    return None


def _root_type(root, ctx, depth: int = 0) -> Optional[ObjectType]:
    """The type of the objects of a query-level set ``root`` (without steps), else ``None``."""
    if depth > 20:
        return None
    if isinstance(root, ast.VarRef):
        name = root.name
        if name in ctx.type_sets and name not in ctx.variables:
            return query_set_target(ctx.type_sets[name], ctx, depth + 1)
        if name in ctx.variables:
            return _object_var(name, ctx)
        if name in ctx.bound_statements:
            return None
        return ctx.schema.find_type(name, ctx.module)
    if isinstance(root, ast.SubSelect):
        return _root_type(ast.VarRef(root.type_name, root.type_span), ctx, depth + 1)
    if isinstance(root, ast.SelectExpr) and _plain_shape(root.shape):
        return query_set_target(root.subject, ctx, depth + 1)
    return None


def _step_target(cur: ObjectType, step, ctx) -> Optional[ObjectType]:
    if isinstance(step, ast.Backlink):
        return ctx.schema.find_narrowed(step.type_name, ctx.module) if step.type_name else None
    if isinstance(step, tuple):
        return ctx.schema.find_narrowed(step[1].name, ctx.module)
    if step in cur.links:
        return cur.links[step].target
    comp = cur.computeds.get(step)
    if comp is not None and comp.target is not None:
        return comp.target
    if comp is not None:
        return set_target(comp.expr, cur, ctx.schema, comp.module)
    return None


def query_set_target(expr, ctx, depth: int = 0) -> Optional[ObjectType]:
    """The type of the objects when ``expr`` is a set of objects of the query's names (see
    :func:`query_set`); ``None`` otherwise (nothing reported)."""
    root, steps = _rooted_steps(expr)
    if isinstance(root, ast.EnumRef) or (isinstance(root, ast.VarRef) and not steps and root is expr):
        pass
    cur = _root_type(root, ctx, depth)
    if cur is None or (isinstance(root, ast.VarRef) and steps and ctx.schema.find_enum(root.name, ctx.module)
                       is not None and root.name not in ctx.type_sets and root.name not in ctx.variables):
        return None
    for i, step in enumerate(steps):
        if isinstance(step, str) and i + 1 < len(steps) and isinstance(steps[i + 1], tuple):
            continue  # (the link's subtype comes next)
        nxt = _step_target(cur, step, ctx)
        if nxt is None:
            return None
        cur = nxt
    return cur


def query_value_path(expr, ctx, depth: int = 0) -> Optional[Tuple[object, str]]:
    """``(objects, p)`` when ``expr`` is ``S.p``: a property of each object of a set of the
    query's names (also a ``with`` name bound to one, ``ids := (select rolls.id)``); else
    ``None``."""
    while isinstance(expr, ast.SelectExpr) and expr.shape is None and expr.filter is None and not expr.order \
            and expr.offset is None and expr.limit is None:
        expr = expr.subject
    if isinstance(expr, ast.VarRef) and expr.name in ctx.type_sets and expr.name not in ctx.variables and depth < 20:
        return query_value_path(ctx.type_sets[expr.name], ctx, depth + 1)
    if isinstance(expr, ast.EnumRef):
        objects: object = ast.VarRef(expr.enum, expr.span)
        prop = expr.member
    elif isinstance(expr, ast.Step) and expr.kind == ".":
        objects, prop = expr.base, expr.name
    else:
        return None
    root, _ = _rooted_steps(objects)
    if isinstance(root, (ast.Path, ast.Backlink)):
        return None
    target = query_set_target(objects, ctx)
    if target is None or prop in target.links or prop in target.poly_links:
        return None
    comp = target.computeds.get(prop)
    if target.column(prop) is None and (comp is None or comp.target is not None):
        return None
    return objects, prop


def query_value_target(expr, ctx) -> bool:
    """``expr`` is ``S.p`` (:func:`query_value_path`)."""
    return query_value_path(expr, ctx) is not None


def _sub_alias(alias: str, suffix: str) -> str:
    return qi(alias.strip('"') + suffix)


def query_set(expr, ctx, alias: str) -> Optional[qir.ObjectSet]:
    """The objects of a set of the query's names, rows named ``alias``: a ``with`` selection
    (``with u := (select User filter ...) ... u``, also ordered or paged), the one object a
    ``with`` name holds, every object of a type, ``(select S filter ...  order by ... limit n)``
    of one, and a path of objects from one (``rolls.received.character``,
    ``player.<author[is Roll]``: the distinct objects it reaches, as every path of objects in
    Gel). ``None`` after reporting."""
    from schemac.semantics.exprs import check
    from schemac.semantics.e_types import BOOL
    from schemac.semantics.model import ValueType
    from schemac.semantics.scalars import SCALARS

    root, steps = _rooted_steps(expr)
    if steps:
        base = query_set(root, ctx, _sub_alias(alias, "r"))
        if base is None:
            return None
        scope = dataclasses.replace(ctx, subject=base.source)
        hops = _path_hops(steps, expr.span, scope, rooted=True)
        if hops is None:
            return None
        target = hops[-1].target
        cond = qir.InSetPath(expr.span, BOOL, False, alias, base, tuple(hops))
        return qir.ObjectSet(expr.span, alias, target, True, cond, visible=_visible(target, ctx, alias))
    if isinstance(root, ast.VarRef):
        name = root.name
        if name in ctx.type_sets and name not in ctx.variables:
            return query_set(ctx.type_sets[name], ctx, alias)
        t = _object_var(name, ctx) if name in ctx.variables else None
        if t is not None:
            value = check(root, ctx)
            if value is None:
                return None
            uuid = ValueType(scalar=SCALARS["uuid"])
            own = qir.ColumnRef(root.span, uuid, False, t.column("id"), t, None, alias)  # type: ignore[arg-type]
            cond = qir.Binary(root.span, qir_bool(), True, "=", own, value)
            return qir.ObjectSet(root.span, alias, t, False, cond, visible=_visible(t, ctx, alias))
        t = ctx.schema.find_type(name, ctx.module)
        assert t is not None  # (query_set_target found it)
        if concrete_parent(ctx.schema, t, root.span, ctx.reporter, "reading every object"):
            return None
        return qir.ObjectSet(root.span, alias, t, True, visible=_visible(t, ctx, alias))
    if isinstance(root, ast.SubSelect):
        base = query_set(ast.VarRef(root.type_name, root.type_span), ctx, alias)
        return None if base is None else _filtered(base, root.filter, root.span, ctx)
    assert isinstance(root, ast.SelectExpr)
    base = query_set(root.subject, ctx, alias)
    if base is None:
        return None
    if root.filter is not None:
        base = _filtered(base, root.filter, root.span, ctx)
        if base is None:
            return None
    if root.order or root.offset is not None or root.limit is not None:
        if base.page is not None:
            base = qir.ObjectSet(base.span, alias, base.source, True, parts=(base,))
        clauses = _page(root, base.source, alias, ctx)
        if clauses is None:
            return None
        base = dataclasses.replace(base, page=clauses, multi=True)
    return base


def _page(sel, source: ObjectType, alias: str, ctx) -> Optional[qir.ShapeClauses]:
    """The ``order by`` / ``offset`` / ``limit`` of a selection, over its objects (as Gel orders:
    empty values first ascending, last descending)."""
    from schemac.semantics.exprs import check
    from schemac.semantics.model import ValueType
    from schemac.semantics.scalars import SCALARS

    scope = dataclasses.replace(ctx, subject=source, column_prefix=alias, subject_column=None, set_links=None,
                                set_row=None)
    order = []
    for item in sel.order:
        low = check(item.expr, scope)
        if low is None:
            return None
        if low.type.family in ("json", "bytes") or low.type.element is not None:
            ctx.reporter.error("E0304", f"cannot order by a {low.type.name} value", item.expr.span)
            return None
        order.append(qir.OrderKey(item.span, low, item.descending,
                                  item.empty or ("last" if item.descending else "first")))
    bounds = {}
    for word, e in (("offset", sel.offset), ("limit", sel.limit)):
        if e is None:
            continue
        low = check(e, ctx, ValueType(scalar=SCALARS["int64"]))
        if low is None:
            return None
        if low.type.family != "num" or low.type.element is not None:
            ctx.reporter.error("E0304", f"{word} needs an integer value, got {low.type.name}", e.span)
            return None
        bounds[word] = low
    return qir.ShapeClauses(sel.span, None, tuple(order), bounds.get("offset"), bounds.get("limit"))


def qir_bool():
    from schemac.semantics.e_types import BOOL

    return BOOL


def _filtered(base: qir.ObjectSet, filt, span, ctx) -> Optional[qir.ObjectSet]:
    """``base`` with the further condition ``filt`` (checked over its objects)."""
    from schemac.semantics.exprs import check, check_filter
    from schemac.semantics.e_types import BOOL

    if base.page is not None:
        base = qir.ObjectSet(base.span, base.alias, base.source, True, parts=(base,))
    inner = dataclasses.replace(ctx, subject=base.source, column_prefix=base.alias, subject_column=None,
                                set_links=None, set_row=None)
    cond = check_filter(filt, inner)
    if cond is None:
        return None
    if base.cond is None and base.link is None and not base.parts and not base.within and not base.outside:
        return dataclasses.replace(base, cond=cond)  # (every object of a type, filtered)
    if base.filter is not None:
        cond = qir.Binary(span, BOOL, True, "and", base.filter, cond)
    return dataclasses.replace(base, filter=cond)
