"""Link and property assignments of insert and update: values of single and multi
links (sub-selects, ids, objects of a loop), get-or-insert, nested writes, ``+=``/``-=``
(https://docs.geldata.com/reference/edgeql/insert, .../update).

Part of the statement checker (:mod:`schemac.semantics.queries`), split by concern."""

from __future__ import annotations
import dataclasses
import types
from typing import Dict, List, Optional, Set, Tuple
from schemac.semantics import computed_sql, lowering, policies, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import Span, did_you_mean
from schemac.frozen import fast_init_all
from schemac.semantics.exprs import ExprContext, assignment_cast, check, is_param, check_filter
from schemac.semantics.e_funcs import value_set_array, assert_call, assert_message
from schemac.semantics.e_objects import link_prop_column
from schemac.semantics.e_paths import refuse_poly_link
from schemac.semantics.model import (Link, ObjectType, PolyLink, ValueType, link_prop_named, link_prop_names,
                                     single_link_props)
from schemac.semantics.qir import AT_MOST_ONE, MANY, ONE
from schemac.semantics.scalars import SCALARS
from schemac.semantics.sqlnames import qi
from schemac.semantics import q_dml, q_filters, q_for, q_shapes, q_values, q_with, queries


def _assignments(assigns, subject: ObjectType, ctx: ExprContext, insert: bool) -> List[qir.Node]:
    """Check ``p := value`` assignments: :class:`~schemac.semantics.qir.Assign` (a column) and
    :class:`~schemac.semantics.qir.LinkAssign` (a multi link) nodes, in order.

    In an insert, a parameter assigned to a property with a default is optional: when it is
    NULL (omitted) the runner sends the statement that leaves the column out, so the column's
    DEFAULT applies (:func:`schemac.semantics.lowering.statement_variants`).

    Each assignment by what it assigns: a link (:func:`_link_assignment`), a property
    (:func:`_property_assignment`)."""
    out: List[qir.Node] = []
    seen: Set[str] = set()
    for a in assigns:
        if a.name in seen:
            ctx.reporter.error("E0309", f"'{a.name}' is assigned twice", a.name_span)
            continue
        seen.add(a.name)
        rest = _link_assignment(a, subject, ctx, insert, out)
        if rest is not None:
            _property_assignment(rest, subject, ctx, insert, out)
    return out


def _link_assignment(a: ast.Assignment, subject: ObjectType, ctx: ExprContext, insert: bool,
                     out: List[qir.Node]) -> Optional[ast.Assignment]:
    """``link := value`` (a polymorphic link's, a link with link properties', any link's) into
    ``out``; None once handled (or refused, reported), else the assignment (its value read as a
    link's source) for a property."""
    pl = subject.poly_links.get(a.name)
    exists = False
    if pl is not None or a.name in subject.links:
        source = _link_source(a, subject, ctx)
        if source is None:
            return None
        a, exists = source
        if exists:
            n = len(out)
            out.extend(_assignments((a,), subject, ctx, insert))
            if len(out) > n:
                out[n] = _asserted(out[n], exists if isinstance(exists, str) else None)
            return None
    parts = _union_operands(a.value) if pl is not None and pl.multi and insert and a.op == ":=" else None
    if parts is not None and len(parts) > 1 and all(isinstance(p, ast.SubSelect) for p in parts) \
            and len({p.type_name for p in parts}) == len(parts):  # (of distinct types: no object twice)
        # `references := (select URL filter ...) union (select File filter ...)` in an insert
        # (geldata/gel tests/schemas/issues_setup.edgeql): the join rows of each operand
        # (a union of objects is each of them, https://docs.geldata.com/reference/stdlib/set)
        for part in parts:
            out.extend(_assignments((dataclasses.replace(a, value=part),), subject, ctx, insert))
        return None
    if pl is not None and pl.multi and isinstance(a.value, ast.SubSelect):
        # items += (select Movie filter .id in array_unpack(...)): join rows holding the ids
        # in target_id and in the subtype's column
        target = ctx.schema.find_type(a.value.type_name, ctx.module)
        column = next((c for t, c in pl.targets if t is target), None) if target is not None else None
        if column is None:
            names = ", ".join(t.name for t, _ in pl.targets)
            ctx.reporter.error("E0304", f"'{a.name}' links to {names}: select one of them, not "
                               f"{a.value.type_name}", a.value.type_span)
            return None
        assigned = _link_value(a, Link(pl.name, target, True, pl.required, column, pl.join_table),  # type: ignore[arg-type]
                               subject, ctx, insert)
        if assigned is not None:
            out.append(assigned)
        return None
    if pl is not None and not pl.multi and a.op == ":=" and (
            isinstance(a.value, ast.SubSelect) or _is_nested_insert(a.value)
            or (isinstance(a.value, ast.VarRef) and a.value.name in ctx.bound_writes)):
        # link := (select Movie filter .id = ...), (insert Movie {...}), a with-bound
        # insert: that subtype's column, the others NULL
        sets = _poly_link_value(a, pl, subject, ctx, insert)
        if sets is not None:
            out.extend(sets)
        return None
    if refuse_poly_link(subject, a.name, a.name_span, ctx.reporter):
        return None
    link = subject.links.get(a.name)
    if link is not None:
        if not link.multi and single_link_props(subject, link.name) is not None:
            sets = _single_link_props_value(a, link, subject, ctx, insert)
            if sets is not None:
                out.extend(sets)
            return None
        assigned = _link_value(a, link, subject, ctx, insert)
        if assigned is not None:
            out.append(assigned)
        return None
    return a


def _property_assignment(a: ast.Assignment, subject: ObjectType, ctx: ExprContext, insert: bool,
                         out: List[qir.Node]) -> None:
    """``p := value``, ``p += value``, ``p -= value`` of a property into ``out``: a multi
    property's set forms (JSON elements, ``if ... else``, ``{}``, a set of values) or a value."""
    col = subject.column(a.name)
    if a.name in subject.computeds:
        ctx.reporter.error("E0302", f"'{a.name}' is computed and cannot be assigned", a.name_span,
                           "a computed is never stored: assign the properties it reads")
        return
    if col is None or col.link is not None:
        ctx.reporter.error("E0302", f"type '{subject.name}' has no property '{a.name}'", a.name_span,
                           did_you_mean(a.name, [c.name for c in subject.columns if not c.is_id and c.link is None
                                              and c.link_prop is None] + list(subject.links)))
        return
    if col.is_id:
        ctx.reporter.error("E0302", "'id' is generated and cannot be assigned", a.name_span)
        return
    if col.readonly and not insert:
        ctx.reporter.error("E0310", f"'{a.name}' is readonly and cannot be updated", a.name_span,
                           "readonly properties are set once, by insert")
        return
    if a.op != ":=":
        node = _add_or_remove(a, col, insert, ctx)
        if node is not None:
            out.append(node)
        return
    if col.multi and _json_elements(a.value) is not None:
        node = _assign_json_elements(a, col, ctx)
        if node is not None:
            out.append(node)
        return
    unpacked = _multi_values(a.value) if col.multi and isinstance(a.value, ast.IfElse) else None
    if unpacked is not None:
        node = _assign_multi_values(a, unpacked, col, insert, ctx)
        if node is not None:
            out.append(node)
        return
    if _is_empty_set(a.value):
        node = _clear(a, col, ctx)
        if node is not None:
            out.append(node)
        return
    found = value_set_array(a.value, ctx) if col.multi else None
    if found is False:
        return
    if col.multi and (found is not None or isinstance(a.value, ast.Literal) or (
            isinstance(a.value, ast.Cast) and a.value.type.name.split("::")[-1] != "array")):
        _assign_multi_property(a, col, found, ctx, out)
        return
    _assign_property_value(a, col, ctx, insert, out)


def _assign_multi_property(a: ast.Assignment, col, found, ctx: ExprContext, out: List[qir.Node]) -> None:
    """``nicknames := {'a', 'b'}``, ``:= array_unpack(<array<str>>$n)``, ``:= <str>$n``: a multi
    property (an array column) holds the set's values, none when it is empty
    (https://docs.geldata.com/reference/datamodel/properties#multi). ``found``: the set's
    array when :func:`value_set_array` read it."""
    if found is None:
        found = check(a.value, ctx, col.type.element)
        if found is not None and found.type.element is None and found.type.family == col.type.element.family:
            found = qir.Call(found.span, col.type, False, "multi/of_one", (found,))
        elif found is not None and found.nullable and found.type.element is not None:
            found = qir.Call(found.span, col.type, False, "multi/or_none", (found,))
    if found is None:
        return
    if found.type.element is None or found.type.element.family != col.type.element.family:
        ctx.reporter.error("E0304", f"'{a.name}' holds {col.type.element.name}, but the value is "
                           f"{(found.type.element or found.type).name}", a.value.span)
        return
    out.append(qir.Assign(a.span, col, found))


def _assign_property_value(a: ast.Assignment, col, ctx: ExprContext, insert: bool, out: List[qir.Node]) -> None:
    """``p := <value>``: checked against the column's type (with Gel's assignment cast from str to
    an enum); an optional parameter or JSON member of a property with a default means the default."""
    # (a default reading the row, col.row_default_sql: its trigger fills a NULL)
    use_default = insert and (col.has_default or col.row_default_sql is not None) \
        and isinstance(a.value, (ast.Param, ast.Cast))
    low = check(assignment_cast(a.value, col.type), ctx, col.type,
                allow_optional_param=use_default or not col.required)
    if low is None:
        return
    if low.type.family != col.type.family and col.type.enum is not None and col.type.element is None \
            and low.type.family == "str" and low.type.element is None:
        # `status := <str>$s`: Gel's assignment cast from str to an enum (its std library:
        # `create cast from std::str to std::anyenum { ... allow assignment }`,
        # https://docs.geldata.com/reference/stdlib/enum): the text is stored, and a text that
        # names no member fails the statement (the column's CHECK, SQLSTATE 23514), as Gel
        # fails the cast. The parameter stays a str.
        low = dataclasses.replace(low, type=col.type)
    if low.type.family != col.type.family:
        ctx.reporter.error("E0304", f"'{a.name}' is {col.type.name}, but the value is {low.type.name}",
                           a.value.span)
        return
    if use_default and low.nullable and is_param(low):
        out.append(qir.Assign(a.span, col, low, default="param" if col.has_default else "row"))
        return
    if insert and col.row_default_sql is not None and low.nullable and isinstance(a.value, ast.Cast):
        out.append(qir.Assign(a.span, col, low, default="row"))
        return
    if insert and col.has_default and low.nullable and isinstance(a.value, ast.Cast):
        # `<optional T>item['k']` of a json loop: a missing member means the default.
        out.append(qir.Assign(a.span, col, low, default="json"))
        return
    # (A value that may be empty assigned to a required property compiles, as in Gel: its
    # compiler leaves "the lower cardinality bound check [of a mutation] to the runtime DML
    # constraint" (edb/edgeql/compiler/inference/cardinality.py), so an empty value fails the
    # statement when it runs, Gel's MissingRequiredError; here the column's NOT NULL, SQLSTATE
    # 23502, the runners' NotNullViolationError / ErrNotNullViolation.)
    if not insert:
        _mark_unchanged(a.value, col.name, ctx)
    out.append(qir.Assign(a.span, col, low))


def _link_source(a: ast.Assignment, subject: ObjectType,
                 ctx: ExprContext) -> Optional[Tuple[ast.Assignment, bool]]:
    """A link's value as the forms below read it: ``(a, exists)``, ``exists`` when it is wrapped
    in ``assert_exists(...)`` (the statement fails when it selects no object,
    https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists). A link is
    assigned any expression of objects of its type (https://docs.geldata.com/reference/edgeql/insert#links,
    .../update): a ``with`` name bound to a selection, ``p := (select Player filter ...)``, is
    that selection (``author := p``, ``tags += p``; a select has no effect, so reading it
    where it is used is the same set of objects); in ``link -= (select .link filter ...)``, the
    objects of the link that the filter keeps are removed, which are the objects of its
    type that the filter keeps (removing an object that is not linked changes nothing)."""
    value, exists = a.value, False
    call = assert_call(value)
    if call is not None and call[0] == "assert_exists" and call[2] is not None:
        # `author := assert_exists((select ...), message := '...')`: fails with that message
        message = assert_message(call[2], ctx)
        if message is False:
            return None
        value, exists = call[1], message
        call = assert_call(value)
    if call is not None and call[2] is not None:
        ctx.reporter.error("E0206", f"{call[0]}(..., message := ...) as a link's value is not supported yet",
                           value.span, f"drop the message: {call[0]}(...) fails with Gel's own")
        return None
    while isinstance(value, ast.FuncCall) and value.name in ("assert_exists", "std::assert_exists") \
            and len(value.args) == 1:
        value, exists = value.args[0], exists or True
    link = subject.links.get(a.name)
    if link is not None:
        value = _plain_link_selection(value, link, ctx)
        while isinstance(value, ast.FuncCall) and value.name in ("assert_exists", "std::assert_exists") \
                and len(value.args) == 1:
            value, exists = value.args[0], True
    if isinstance(value, ast.FuncCall) and value.name in ("assert_single", "std::assert_single") \
            and len(value.args) == 1 and isinstance(value.args[0], ast.VarRef):
        inner = _selected(value.args[0], link is None, ctx)
        if inner is not value.args[0]:
            value = dataclasses.replace(value, args=(inner,))
    elif isinstance(value, ast.VarRef):
        value = _selected(value, link is None, ctx)
    elif isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.Path) and value.shape is None \
            and not value.order and value.offset is None and value.limit is None \
            and value.subject.steps == (a.name,) and value.filter is not None:
        if a.op == ":=" and link is not None and link.multi and link.join_table is not None:
            return a, exists  # the links the filter keeps (_kept_links)
        if a.op != "-=" or link is None:
            ctx.reporter.error("E0206", f"'{a.name} {a.op} (select .{a.name} filter ...)' is not supported yet"
                               if link is not None else f"'(select .{a.name} ...)' of a polymorphic link as its "
                               "value is not supported yet", value.span,
                               f"select the objects by their type: (select {_target_name(subject, a.name)} filter ...)")
            return None
        value = ast.SubSelect(link.target.qualname, value.subject.span, value.filter, value.span)
    if value is a.value:
        return a, False
    return dataclasses.replace(a, value=value), exists


def _plain_link_selection(value, link, ctx: ExprContext):
    """Other spellings of a selection of the link's target, as the sub-select they select
    (https://docs.geldata.com/reference/edgeql/insert#links: a link is given any expression of
    its target type): ``distinct (...)`` of a selection (a selection holds each object once);
    ``(select T filter <f> limit 1)`` where ``f`` finds at most one object (on ``.id`` or an
    exclusive property: the limit changes nothing); and for a multi link, ``for x in
    array_unpack(arr) union (select T filter .p = x)``, the union of the objects each element
    selects, which are the objects ``.p in array_unpack(arr)`` selects (a link holds each
    object once); ``{(select T ...)}``, a set of one selection; ``(select (insert T {...}))``,
    the insert; ``<T><uuid>x``, Gel's cast of an
    id to the object (https://docs.geldata.com/reference/edgeql/casts: ``assert_exists((select
    T filter .id = x))``, it fails when no object of ``T`` has the id). Anything else is
    returned as it is."""
    if isinstance(value, ast.SetLit) and len(value.items) == 1:
        inner = _plain_link_selection(value.items[0], link, ctx)
        return inner if isinstance(inner, (ast.SubSelect, ast.SelectExpr, ast.FuncCall)) else value
    if isinstance(value, ast.Cast) and not value.type.args and not value.type.optional \
            and value.type.name not in ctx.variables \
            and ctx.schema.find_type(value.type.name, ctx.module) is link.target:
        return ast.FuncCall("assert_exists", (ast.SubSelect(
            value.type.name, value.type.span, ast.BinOp("=", ast.Path(("id",), value.type.span), value.operand,
                                                        value.span), value.span),), value.span)
    if isinstance(value, ast.SelectExpr) and _is_nested_insert(value.subject) and value.shape is None \
            and value.filter is None and not value.order and value.offset is None and value.limit is None:
        return value.subject  # (select (insert T {...})): the inserted object
    if isinstance(value, ast.UnaryOp) and value.op == "distinct":
        inner = _plain_link_selection(value.operand, link, ctx)
        if isinstance(inner, ast.SubSelect):
            return inner
        return value
    if isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.VarRef) and value.shape is None \
            and not value.order and value.offset is None and value.filter is not None \
            and isinstance(value.limit, ast.Literal) and value.limit.value == 1 \
            and value.subject.name not in ctx.variables and value.subject.name not in ctx.type_sets:
        target = ctx.schema.find_type(value.subject.name, ctx.module)
        if target is not None and q_dml._pins_one_row(value.filter, target):
            return ast.SubSelect(value.subject.name, value.subject.span, value.filter, value.span)
        return value
    if link.multi and isinstance(value, ast.ForExpr) and isinstance(value.source, ast.FuncCall) \
            and value.source.name in q_values._UNPACK and len(value.source.args) == 1:
        body = q_for._unparen(value.body)
        if isinstance(body, ast.SelectExpr) and isinstance(body.subject, ast.VarRef) and body.shape is None \
                and not body.order and body.offset is None and body.limit is None \
                and body.subject.name not in ctx.variables and body.subject.name not in ctx.type_sets:
            body = ast.SubSelect(body.subject.name, body.subject.span, body.filter, body.span)
        if not isinstance(body, ast.SubSelect) or body.detached:
            return value
        f = body.filter
        if isinstance(f, ast.BinOp) and f.op == "=":
            for side, other in ((f.left, f.right), (f.right, f.left)):
                if isinstance(side, ast.Path) and isinstance(other, ast.VarRef) and other.name == value.var \
                        and not any(isinstance(n, ast.VarRef) and n.name == value.var for n in ast.iter_nodes(side)):
                    return ast.SubSelect(body.type_name, body.type_span, ast.BinOp("in", side, value.source, f.span),
                                         value.span)
    return value


def _target_name(subject: ObjectType, name: str) -> str:
    link = subject.links.get(name)
    return link.target.name if link is not None else subject.poly_links[name].targets[0][0].name


def _selected(ref: ast.VarRef, poly: bool, ctx: ExprContext) -> ast.Expr:
    """The selection a ``with`` name is bound to (see :func:`_link_source`), or ``ref`` itself
    for any other name, and for a name bound to one object (its value is computed once, and
    the link reads it) unless the link is polymorphic (the selection names the subtype)."""
    sel = ctx.selections.get(ref.name)
    if sel is None or ref.name in ctx.bound_writes or (not poly and _bound_object(ref.name, ctx) is not None):
        return ref
    sub = computed_sql.as_subselect(sel)
    return ref if sub is None else sub


def _asserted(node: qir.Node, message: Optional[str] = None) -> qir.Node:
    """A link's assignment whose value is ``assert_exists(...[, message := '...'])``: its ids fail
    the statement when there are none (:class:`~schemac.semantics.qir.AssertExists`)."""
    if type(node) is qir.LinkAssign:
        ids = node.ids  # type: ignore[attr-defined]
        return dataclasses.replace(node, ids=qir.AssertExists(ids.span, ids.type, False, ids, True, message))
    value = node.value  # type: ignore[attr-defined]
    return dataclasses.replace(node, value=qir.AssertExists(value.span, value.type, False, value, False, message))


def _mark_unchanged(value: ast.Expr, column: str, ctx: ExprContext) -> None:
    """``p := $p ?? .p`` (or ``<optional T>$p ?? .p``) in an update: an omitted ``$p`` leaves
    ``p`` unchanged; the parameter says so (its doc in the generated code)."""
    if not (isinstance(value, ast.BinOp) and value.op == "??" and isinstance(value.right, ast.Path)
            and value.right.steps == (column,)):
        return
    left = value.left
    if isinstance(left, ast.Cast) and isinstance(left.operand, ast.Param):
        left = left.operand
    if isinstance(left, ast.Param) and ctx.params is not None:
        spec = ctx.params.params.get(f"arg{int(left.name)}" if left.name.isdecimal() else left.name)
        if spec is not None and spec.optional:
            spec.unchanged = column


def _add_or_remove(a: ast.Assignment, col, insert: bool, ctx: ExprContext) -> Optional[qir.Assign]:
    """``tags += value`` / ``tags -= value`` on a multi property (an array column) in an update.
    ``value`` is one element or an array of them. ``+=`` appends (a multi property is a
    multiset, as in Gel); ``-=`` removes every occurrence, keeping the order of the rest."""
    if insert:
        ctx.reporter.error("E0304", f"'{a.op}' is only valid in an update", a.name_span, f"write {a.name} := ...")
        return None
    if col.type.element is None:
        ctx.reporter.error("E0304", f"'{a.op}' needs a multi property or an array, but '{a.name}' is "
                           f"{col.type.name}", a.name_span, f"write {a.name} := ...")
        return None
    if col.readonly:
        ctx.reporter.error("E0310", f"'{a.name}' is readonly and cannot be updated", a.name_span)
        return None
    elem = col.type.element
    low = value_set_array(a.value, ctx)  # `tags += {'a', 'b'}`, `+= array_unpack(...)`: their values
    if low is False:
        return None
    if low is None:
        low = check(a.value, ctx, elem)
    if low is None:
        return None
    if low.type.family not in (elem.family, col.type.family):
        ctx.reporter.error("E0304", f"'{a.name}' holds {elem.name}, but the value is {low.type.name}", a.value.span)
        return None
    return qir.Assign(a.span, col, low, a.op, element=low.type.family != col.type.family)


def _single_link_props_value(a: ast.Assignment, link: Link, subject: ObjectType, ctx: ExprContext,
                             insert: bool) -> Optional[List[qir.Node]]:
    """``owner := (select User { @note := 'x' } filter .name = 'Elvis')`` of a single link with
    link properties (https://docs.geldata.com/reference/datamodel/linkprops; geldata/gel
    tests/schemas/issues_setup.edgeql): the link as any single link's value, and each property
    it sets in its ``<link>@<prop>`` column (:func:`schemac.semantics.model.single_link_props`).
    In an update, a link to another object is a new link: the properties the value does not set
    get their default (empty without one), as an insert leaves them; the link to the object it
    already links keeps them (a multi link's ``:=`` keeps an existing link's the same way);
    ``owner := {}`` empties them all."""
    lp_type = single_link_props(subject, link.name)
    assert lp_type is not None
    props: Tuple[Tuple[object, qir.Expr], ...] = ()
    value = _undetached(a.value)
    if computed_sql.sets_link_props(value):
        split = _link_props(dataclasses.replace(a, value=value), link, ctx, lp_type)
        if split is None:
            return None
        a, props = split
    assigned = _link_value(a, link, subject, ctx, insert)
    if assigned is None:
        return None
    out: List[qir.Node] = [assigned]
    out.extend(qir.Assign(a.span, col, low) for col, low in props)  # type: ignore[arg-type]
    if not insert:
        given = {col.name for col, _ in props}  # type: ignore[attr-defined]
        new_id = assigned.value if type(assigned) is qir.Assign and assigned.column.link == link.name \
            and assigned.op == ":=" and not _is_empty_set(value) else None  # type: ignore[attr-defined]
        for col in lp_type.columns:
            if col.name in given:
                continue
            if _is_empty_set(value):
                out.append(qir.Assign(a.span, col, qir.Literal(a.span, col.type, True, "null", None)))
            elif new_id is not None:
                # the link to the object it already links keeps its properties (as a multi link's
                # does: ON CONFLICT DO NOTHING); a new one gets the default
                out.append(qir.Assign(a.span, col, new_id, default="reset_unless_same"))
            else:
                out.append(qir.Assign(a.span, col, qir.Literal(a.span, col.type, True, "null", None),
                                      default="reset"))
    return out


def _link_props(a: ast.Assignment, link, ctx: ExprContext, join: Optional[ObjectType] = None):
    """``tags += (select Tag { @weight := <int32>$w } filter ...)``: the assignment of the
    objects alone (``(select Tag filter ...)``) and the link properties it sets, (join-table
    column, value) pairs (https://docs.geldata.com/reference/datamodel/linkprops). A value
    may not read the linked object's properties (``E0206``). ``join``: a single link's
    link-property type (:func:`schemac.semantics.model.single_link_props`)."""
    value = a.value
    join = join if join is not None else q_shapes._join_table(link, ctx)
    if a.op == "-=" or value.order or value.offset is not None or value.limit is not None or join is None \
            or not isinstance(value.subject, ast.VarRef):
        ctx.reporter.error("E0206", "setting link properties here (in '-=', with order/offset/limit, on a select "
                           "of an expression) is not supported yet", value.span,
                           "set them with := or += on (select Type { @prop := ... } filter ...)")
        return None
    props = []
    for el in value.shape:
        if not (el.link_prop and el.value is not None):
            continue  # (an output shape: what the links are is all that counts)
        col = link_prop_named(join, el.name)
        if col is None:
            names = link_prop_names(join)
            ctx.reporter.error("E0302", f"link '{a.name}' has no property '{el.name}'", el.span,
                               did_you_mean(el.name, names) or (f"its link properties: {', '.join(names)}" if names
                                                                else f"'{a.name}' declares no link properties"))
            return None
        own = _aliased_type(el.value, value.subject.name, value.subject.name) \
            if value.subject.name not in ctx.variables else el.value  # (`Card.element` is `.element`)
        if any(isinstance(n, (ast.Path, ast.LinkPropRef)) for n in ast.iter_nodes(own)):
            target = ctx.schema.find_type(value.subject.name, ctx.module) \
                if value.subject.name not in ctx.variables and value.subject.name not in ctx.type_sets else None
            if not link.multi or target is not link.target or target is None or target.from_sql is not None \
                    or any(isinstance(n, ast.LinkPropRef) for n in ast.iter_nodes(own)):
                ctx.reporter.error("E0206", "a link property's value reading the linked object is not supported yet"
                                   + ("" if link.multi else " on a single link"), el.value.span,
                                   "give it a value of the query: a parameter, a constant, a with name")
                return None
            # `@count := len(Card.element) - 2`: read from each linked object's row
            low = check(own, dataclasses.replace(ctx, subject=target, column_prefix=qir.LINK_TARGET_ROW), col.type,
                        allow_optional_param=not col.required)
            if low is None:
                return None
            low = qir.LinkTargetValue(low.span, low.type, low.nullable, low, target)
        else:
            low = check(el.value, dataclasses.replace(ctx, subject=None), col.type,
                        allow_optional_param=not col.required)
        if low is None:
            return None
        if low.type.family != col.type.family:
            ctx.reporter.error("E0304", f"'@{el.name}' is {col.type.name}, but the value is {low.type.name}",
                               el.value.span)
            return None
        # (a required link property given a value that may be empty: as a required property, a
        # NOT NULL violation when it runs)
        props.append((col, low))
    name = value.subject.name
    if value.filter is None and ctx.schema.find_type(name, ctx.module) is None \
            and (name in ctx.type_sets or name in ctx.selections or _bound_object(name, ctx) is not None):
        # `folders += (select f { @path := p })` of a `with` name (a function's object
        # parameter): its objects, each linked with the properties
        return dataclasses.replace(a, value=value.subject), tuple(props)
    filt = value.filter if value.filter is not None else ast.Literal("bool", True, value.span)
    sub = ast.SubSelect(name, value.subject.span, filt, value.span)
    return dataclasses.replace(a, value=sub), tuple(props)


def _kept_links(a: ast.Assignment, link, ctx: ExprContext, insert: bool):
    """``folders := (select .folders filter @path != $p)`` in an update: the object's own links
    that the filter keeps (it may read the linked object's properties, ``.name``, and the link
    properties, ``@path``). Gel replaces a multi link's links with the new set by deleting the
    links to other objects and inserting the missing ones (``ON CONFLICT DO NOTHING``; when the
    value sets no link property), so the links kept keep their link properties
    (https://docs.geldata.com/reference/edgeql/update,
    https://docs.geldata.com/reference/datamodel/linkprops): here the new set is a subset of the
    links, so the links the filter does not keep (false or empty) are deleted and nothing else
    changes. The ids are ``ARRAY(SELECT j."target_id" FROM <join table> AS j JOIN <target> ...
    WHERE j."source_id" = <the updated row>."id" AND (<filter>))``. ``None`` when ``a`` is
    another form, ``False`` after an error."""
    value = a.value
    if not (a.op == ":=" and isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.Path)
            and value.subject.steps == (a.name,) and value.filter is not None and value.shape is None
            and not value.order and value.offset is None and value.limit is None):
        return None
    join = q_shapes._join_table(link, ctx)
    if insert or join is None:
        ctx.reporter.error("E0206", f"'{a.name} := (select .{a.name} filter ...)' is not supported "
                           + ("in an insert" if insert else "on this link"), value.span,
                           f"select the objects by their type: (select {link.target.name} filter ...)")
        return False
    j, t = qi(f"_kj{ctx.depth}"), qi(f"_kt{ctx.depth}")
    if policies.applies(link.target, ctx):
        # (Gel's .folders hides the targets its access policies hide, and a hidden link is
        # then not in the new set: what Gel does with it is not what this lowering does)
        ctx.reporter.error("E0206", f"'{a.name} := (select .{a.name} filter ...)' of a link to a type with access "
                           "policies is not supported yet", value.span)
        return False
    outer = next((n for n in ast.iter_nodes(value.filter)
                  if (isinstance(n, ast.VarRef) and n.name.split("::")[-1] == ctx.subject.name  # type: ignore[union-attr]
                      and n.name not in ctx.variables)
                  or (isinstance(n, ast.EnumRef) and n.enum.split("::")[-1] == ctx.subject.name)), None)  # type: ignore[union-attr]
    if outer is not None:
        ctx.reporter.error("E0206", f"a filter of '(select .{a.name} ...)' reading the updated object is not "
                           "supported yet", outer.span)
        return False
    inner = dataclasses.replace(ctx, subject=link.target, column_prefix=t, link_row=(link.name, join, j),
                                set_links=None, set_row=None, depth=ctx.depth + 1)
    cond, _ = q_filters._where(value.filter, link.target, inner)
    if cond is None:
        return False
    uuid_array = ValueType(element=ValueType(scalar=SCALARS["uuid"]))
    ids = qir.KeptLinks(value.span, uuid_array, False, link, f"_kj{ctx.depth}", f"_kt{ctx.depth}", cond)
    return qir.LinkAssign(a.span, link, ":=", ids)


def _for_link_rows(a: ast.Assignment, link, ctx: ExprContext):
    """``artists := (for x in enumerate(array_unpack(<array<uuid>>$ids)) union (select Artist {
    @position := x.0 } filter .id = x.1))`` in an insert (https://docs.geldata.com/reference/edgeql/for,
    .../datamodel/linkprops): the union of the objects each element selects, each linked with
    the link properties its element gives (:class:`qir.LinkRows`). ``None`` for another value
    (refused or planned elsewhere), ``False`` after reporting."""
    value = a.value
    if isinstance(value, ast.UnaryOp) and value.op == "distinct":
        value = value.operand
    if not isinstance(value, ast.ForExpr):
        return None
    body = value.body
    while isinstance(body, ast.StatementExpr) and isinstance(body.query, (ast.SelectExpr, ast.WithExpr)):
        body = body.query
    per_element: Tuple[ast.WithBinding, ...] = ()
    if isinstance(body, ast.WithExpr):
        # `(with r := <int32>json_get(t, 'rank') select Tag { @rank := r } filter ...)`: names
        # bound per element, written where they are used
        per_element, body = body.bindings, body.body
        while isinstance(body, ast.StatementExpr) and isinstance(body.query, ast.SelectExpr):
            body = body.query
    if not (isinstance(body, ast.SelectExpr) and isinstance(body.subject, ast.VarRef) and body.filter is not None
            and not body.order and body.offset is None and body.limit is None
            and body.shape and all(el.link_prop and el.value is not None for el in body.shape)):
        return None  # (a loop of plain selects is the selection of their objects: _plain_link_selection)
    target = ctx.schema.find_type(body.subject.name, ctx.module)
    join = q_shapes._join_table(link, ctx)
    if target is None or join is None:
        return None
    if target is not link.target:
        ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {body.subject.name}",
                           body.subject.span)
        return False
    scope = dataclasses.replace(ctx, variables=dict(ctx.variables))
    batch = q_for._loop(types.SimpleNamespace(source=value.source, var=value.var), scope, f"_lv_{value.var}")
    if batch is None:
        return False
    var = dataclasses.replace(batch.var, row=qi("_lb"))
    scope.variables[value.var] = var
    batch = dataclasses.replace(batch, var=var)
    if not q_for._bind_per_element(per_element, scope):
        return False
    alias = qi("_lo")
    inner = dataclasses.replace(scope, subject=target, column_prefix=alias)
    filt = check_filter(body.filter, inner)
    if filt is None:
        return False
    props = []
    for el in body.shape or ():
        col = link_prop_column(a.name, join, el.name, el.span, ctx.reporter)
        if col is None:
            return False
        low = check(el.value, inner, col.type, allow_optional_param=not col.required)
        if low is None:
            return False
        if low.type.family != col.type.family:
            ctx.reporter.error("E0304", f"'@{el.name}' is {col.type.name}, but the value is {low.type.name}",
                               el.value.span)
            return False
        props.append((col, low))
    rows = qir.LinkRows(value.span, batch, target, alias, filt, tuple(props),
                        policies.read_predicate(target, inner, alias))
    none = qir.Call(value.span, ValueType(element=ValueType(scalar=SCALARS["uuid"])), False, "link_ids/none", ())
    return qir.LinkAssign(a.span, link, a.op, none, (), rows)


def _multi_link_ids(a: ast.Assignment, link, ctx: ExprContext) -> Optional[qir.Expr]:
    """``tags := (select Tag filter .id in array_unpack(<array<uuid>>$ids))`` (or ``.id in $ids``)
    -> the ``uuid[]`` of target ids."""
    value = a.value
    if isinstance(value, ast.VarRef) and value.name in ctx.type_sets and value.name not in ctx.variables:
        # `with m := (select Message filter ...)` ... `messages := m`: the objects it selects
        bound = ctx.type_sets[value.name]
        sub = bound if isinstance(bound, ast.SubSelect) else computed_sql.as_subselect(bound)
        if sub is None and isinstance(bound, ast.SelectExpr) and bound.filter is None and bound.shape is None \
                and isinstance(bound.subject, ast.VarRef) and not bound.order and bound.offset is None \
                and bound.limit is None:
            sub = ast.SubSelect(bound.subject.name, bound.subject.span, ast.Literal("bool", True, bound.span),
                                bound.span)
        if sub is None:
            ctx.reporter.error("E0206", f"the value of multi link '{a.name}' is '{value.name}', a selection with order "
                               "by, offset or limit: not supported yet", value.span,
                               f"select the objects with a filter: (select {link.target.name} filter ...)")
            return None
        value = dataclasses.replace(sub, span=value.span)
    if isinstance(value, ast.SubSelect) and value.type_name in ctx.type_sets and value.type_name not in ctx.variables:
        # `with I := detached Issue` ... `related_to := (select I filter I.number = '2')`
        # (geldata/gel tests/schemas/issues_setup.edgeql): a selection of every object of a type
        # is that type (see _type_aliases)
        bound = ctx.type_sets[value.type_name]
        if isinstance(bound, ast.SelectExpr) and bound.filter is None and bound.shape is None and not bound.order \
                and bound.offset is None and bound.limit is None and isinstance(bound.subject, ast.VarRef) \
                and ctx.schema.find_type(bound.subject.name, ctx.module) is not None:
            value = _aliased_type(value, value.type_name, bound.subject.name)
    if isinstance(value, ast.SelectExpr) and value.filter is None and value.shape is None and not value.order \
            and value.offset is None and value.limit is None and isinstance(value.subject, ast.VarRef) \
            and not value.subject.detached and value.subject.name not in ctx.variables \
            and value.subject.name not in ctx.type_sets and ctx.schema.find_type(value.subject.name, ctx.module):
        # `time_spent_log := (SELECT LogEntry)` (geldata/gel tests/schemas/issues_setup.edgeql):
        # every object of the type, as a sub-select whose filter keeps them all
        value = ast.SubSelect(value.subject.name, value.subject.span, ast.Literal("bool", True, value.span),
                              value.span)
    cast_ids = _cast_object_ids(value, link, ctx)
    if cast_ids is not None:
        return cast_ids or None
    source = None
    if isinstance(value, ast.SubSelect) and value.type_name.split("::")[-1] == link.target.name:
        f = value.filter
        if isinstance(f, ast.BinOp) and f.op == "in" and isinstance(f.left, ast.Path) and f.left.steps == ("id",):
            source = f.right
            if isinstance(source, ast.FuncCall) and source.name in ("array_unpack", "std::array_unpack") \
                    and len(source.args) == 1:
                source = source.args[0]
    uuid_array = ValueType(element=ValueType(scalar=SCALARS["uuid"]))
    if source is None and (_is_nested_insert(value) or _is_loop_insert(value)
                           or (isinstance(value, ast.VarRef) and value.name in ctx.bound_writes)):
        return _written(a, value, link, ctx, many=True)
    if source is None and isinstance(value, ast.VarRef) and _bound_object(value.name, ctx) is not None:
        # `with c := (select Collection filter .id = ...)` ... `tracked += c`: that object, if any.
        if _bound_object(value.name, ctx) is not link.target:
            ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, but '{value.name}' is a "
                               f"{_bound_object(value.name, ctx).name}", value.span)  # type: ignore[union-attr]
            return None
        low = check(value, ctx)
        if low is None:
            return None
        return qir.Call(value.span, uuid_array, False, "link_ids/of_one", (low,))
    if source is None and _is_empty_set(value):
        # `tags := {}`: no links (`+= {}` / `-= {}` change nothing).
        return qir.Call(value.span, uuid_array, False, "link_ids/none", ())
    if source is None and isinstance(value, ast.SubSelect):
        # Any other filter: the ids of the objects it selects.
        if ctx.schema.find_type(value.type_name, ctx.module) is not link.target:
            ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {value.type_name}",
                               value.type_span)
            return None
        return computed_sql.subselect_value(value, False, ctx, many=True)
    inner = value.operand if isinstance(value, ast.UnaryOp) and value.op == "distinct" else value
    inner = inner.query if isinstance(inner, ast.StatementExpr) and isinstance(inner.query, ast.ForQuery) else inner
    if source is None and isinstance(inner, (*_STATEMENT_VALUES, ast.ForQuery)):
        # valid Gel (`tags := distinct (for t in ... union (select Tag { @rank := ... } filter ...))`,
        # https://docs.geldata.com/reference/edgeql/for): a form not lowered yet, not an error
        what = "a 'for' loop" if isinstance(inner, ast.ForQuery) else _STATEMENT_VALUES[type(inner)]
        ctx.reporter.error("E0206", f"a multi link's value that is {what} is not supported yet", value.span,
                           f"write {a.name} := (select {link.target.name} filter ...)")
        return None
    if source is None:
        ctx.reporter.error("E0304", f"the value of multi link '{a.name}' must be (select {link.target.name} filter "
                           f".id in array_unpack(<array<uuid>>$ids))", value.span,
                           f"write {a.name} := (select {link.target.name} filter .id in array_unpack(<array<uuid>>${a.name}))")
        return None
    low = check(source, ctx, uuid_array)
    if low is None:
        return None
    if low.type.family != uuid_array.family:
        ctx.reporter.error("E0304", f"the ids of '{a.name}' must be an array<uuid>, got {low.type.name}", source.span)
        return None
    # The objects the sub-select finds (https://docs.geldata.com/reference/edgeql/insert#links):
    # an unknown id, or one the target's access policies hide, links nothing, as in Gel (it was
    # the join table's foreign-key error;
    # https://docs.geldata.com/reference/datamodel/access_policies).
    visible = policies.read_predicate(link.target, ctx, '"_t"') if ctx.params is not None else None
    return qir.ExistingIds(low.span, uuid_array, False, low, link.target, visible)


def _cast_object_ids(value, link, ctx: ExprContext):
    """``keywords := array_unpack(<array<Keyword>>ids)`` (also ``(select ...)`` of it, and under
    ``assert_distinct(...)``), ``ids`` an ``array<uuid>``: Gel's cast of an id to an object is
    that object, and fails with a CardinalityViolationError when no object of the type has the id
    (https://docs.geldata.com/reference/edgeql/casts); ``assert_distinct`` fails when an object is
    there twice (https://docs.geldata.com/reference/stdlib/set#function::std::assert_distinct).
    The ids, ``CASE WHEN <an id of no object> THEN <failing cast> [WHEN <an id twice> THEN
    <failing cast>] ELSE ids END`` (the runners raise CardinalityViolationError and
    DistinctViolationError). ``None`` for another form, ``False`` after an error."""
    distinct = False
    if isinstance(value, ast.FuncCall) and value.name in q_with._ASSERT_DISTINCT and len(value.args) == 1:
        value, distinct = value.args[0], True
    if isinstance(value, ast.SelectExpr) and value.shape is None and value.filter is None and not value.order \
            and value.offset is None and value.limit is None:
        value = value.subject
    if not (isinstance(value, ast.FuncCall) and value.name in ("array_unpack", "std::array_unpack")
            and len(value.args) == 1 and isinstance(value.args[0], ast.Cast)):
        return None
    cast = value.args[0]
    if cast.type.name.split("::")[-1] != "array" or len(cast.type.args) != 1 \
            or ctx.schema.find_type(cast.type.args[0].name, ctx.module) is not link.target:
        return None
    uuid_array = ValueType(element=ValueType(scalar=SCALARS["uuid"]))
    low = check(cast.operand, ctx, uuid_array)
    if low is None:
        return False
    if low.type.element is None or low.type.element.family != "uuid":
        ctx.reporter.error("E0304", f"<array<{link.target.name}>> casts an array<uuid>, got {low.type.name}",
                           cast.operand.span)
        return False
    if policies.applies(link.target, ctx):
        ctx.reporter.error("E0206", f"<array<{link.target.name}>> of ids, a type with access policies, is not "
                           "supported yet", cast.span)
        return False
    return qir.CastObjectIds(value.span, uuid_array, low.nullable, low, link.target, distinct)


def _poly_link_value(a: ast.Assignment, pl: PolyLink, subject: ObjectType, ctx: ExprContext,
                     insert: bool) -> Optional[List[qir.Node]]:
    """``subject := (select Movie filter .id = <value>)`` on a polymorphic single link: the
    column of the subtype the sub-select names gets the id, the other subtypes' columns NULL
    (an update may change the subtype); the CHECK and foreign keys hold the rest. The value may
    also be a nested insert of one subtype, ``subject := (insert Movie { ... })``, or a
    ``with``-bound one (https://docs.geldata.com/reference/edgeql/insert#nested-inserts)."""
    value = a.value
    if isinstance(value, ast.VarRef):
        target = ctx.bound_writes[value.name].subject  # type: ignore[attr-defined]
        type_name, type_span = value.name, value.span
    else:
        if _is_nested_insert(value):
            value = value.query  # type: ignore[attr-defined]
        type_name, type_span = value.type_name, value.type_span  # type: ignore[attr-defined]
        target = ctx.schema.find_type(type_name, ctx.module)
    column = next((c for t, c in pl.targets if t is target), None) if target is not None else None
    if column is None:
        names = ", ".join(t.name for t, _ in pl.targets)
        ctx.reporter.error("E0304", f"'{a.name}' links to {names}: select one of them, not {type_name}",
                           type_span, f"write {a.name} := (select {pl.targets[0][0].name} filter .id = ...)")
        return None
    link = Link(pl.name, target, False, pl.required, column, None)  # type: ignore[arg-type]
    assigned = _link_value(a, link, subject, ctx, insert)
    if assigned is None:
        return None
    out: List[qir.Node] = [assigned]
    for _, other in pl.targets:
        if other != column:
            col = subject.column(other)
            assert col is not None
            out.append(qir.Assign(a.span, col, qir.Call(a.span, col.type, True, "typed_null", ())))
    return out


def _aliased_type(node, alias: str, type_name: str):
    """``(select I filter I.number = '2')`` of ``alias`` (a ``with`` name of every object of the
    type ``type_name``) as ``(select Issue filter .number = '2')``: inside the sub-select
    ``alias.prop`` (parsed as ``Type.member``) is its subject's property (so in a shape's
    element of ``(select Card { @count := len(Card.element) })``)."""
    if isinstance(node, ast.SubSelect):
        node = dataclasses.replace(node, type_name=type_name)

    def walk(n):
        if isinstance(n, tuple):
            items = tuple(walk(x) for x in n)
            return items if any(a is not b for a, b in zip(items, n)) else n
        if not dataclasses.is_dataclass(n) or isinstance(n, (Span, type, ast.TypeRef)):
            return n
        if isinstance(n, ast.EnumRef) and n.enum == alias:
            return ast.Path((n.member,), n.span)
        changes = {f.name: walk(getattr(n, f.name)) for f in dataclasses.fields(n)}
        changes = {k: v for k, v in changes.items() if v is not getattr(n, k)}
        return dataclasses.replace(n, **changes) if changes else n
    return walk(node)


def _union_operands(value) -> Optional[List[object]]:
    """The operands of ``a union b union ...`` (``None`` for another value)."""
    if not (isinstance(value, ast.BinOp) and value.op == "union"):
        return None
    out: List[object] = []
    for side in (value.left, value.right):
        out += _union_operands(side) or [side]
    return out


def _undetached(value):
    """A link's value ``(select detached T filter f)`` (also inside ``assert_single`` /
    ``assert_exists``) as ``(select T filter f)``: the objects of ``T`` the filter picks, the same
    set (https://docs.geldata.com/reference/edgeql/paths#detached); the link-value forms read the
    latter."""
    if isinstance(value, ast.FuncCall) and len(value.args) == 1 and \
            value.name.replace("std::", "") in ("assert_single", "assert_exists"):
        inner = _undetached(value.args[0])
        return value if inner is value.args[0] else dataclasses.replace(value, args=(inner,))
    if isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.VarRef) and value.subject.detached \
            and value.shape is None and value.filter is not None and not value.order and value.offset is None \
            and value.limit is None:
        return ast.SubSelect(value.subject.name, value.subject.span, value.filter, value.span, True)
    return value


def _detached_outer_read(value, subject: ObjectType, ctx: ExprContext) -> Optional[str]:
    """``User.name`` (as written) when ``value`` is ``(select detached User filter ... User.name ...)``
    of the written object's type: there ``User`` is the written object
    (https://docs.geldata.com/reference/stdlib/set#operator::detached), which a multi link's
    statements (their own CTEs) cannot read yet; ``None`` otherwise."""
    if not (isinstance(value, ast.SubSelect) and value.detached):
        return None
    stack = [value.filter]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
        elif dataclasses.is_dataclass(n) and not isinstance(n, (type, ast.TypeRef)):
            if isinstance(n, ast.EnumRef) and n.enum not in ctx.variables \
                    and ctx.schema.find_type(n.enum, ctx.module) is subject:
                return f"{n.enum}.{n.member}"
            if isinstance(n, ast.VarRef) and n.name not in ctx.variables and not n.detached \
                    and ctx.schema.find_type(n.name, ctx.module) is subject:
                return n.name
            stack.extend(getattr(n, f.name) for f in dataclasses.fields(n))
    return None


def _link_value(a: ast.Assignment, link, subject: ObjectType, ctx: ExprContext,
                insert: bool) -> Optional[qir.Node]:
    """``author := (select User filter .id = <value>)`` -> the FK column ``author_id`` set to
    the value; a multi link -> a :class:`~schemac.semantics.qir.LinkAssign`."""
    value = _undetached(a.value)
    if value is not a.value:
        a = dataclasses.replace(a, value=value)
    if link.multi:
        if insert and a.op != ":=":
            ctx.reporter.error("E0304", f"'{a.op}' is only valid in an update", a.name_span, f"write {a.name} := ...")
            return None
        props: Tuple[Tuple[object, qir.Expr], ...] = ()
        outer_read = _detached_outer_read(a.value, subject, ctx)
        if outer_read is not None and not insert:
            # `update User set { follows := (select detached User filter User.name != .name) }`:
            # `User` is each updated object, read in the link's statements by its id
            # (lowering.LINK_ROWS: the rows they write the links of; the lowering spells the
            # qualifier that reads one of them)
            ctx = dataclasses.replace(ctx, column_prefix=lowering.link_row_qualifier(subject.table))
            outer_read = None
        if outer_read is not None:
            ctx.reporter.error("E0206", f"a multi link's value (select detached {subject.name} ...) reading the "
                               f"{'updated' if not insert else 'inserted'} object ('{outer_read}') is not supported "
                               "yet", a.value.span, "select the other objects by a parameter or a property "
                               "instead, or write the link in a for loop over the objects")
            return None
        # (in an update, refused but in an upsert's else: _update_write, _conflict_else)
        loop = _for_link_rows(a, link, ctx) if a.op in (":=", "+=") else None
        if loop is not None:
            return loop or None
        kept = _kept_links(a, link, ctx, insert)
        if kept is not None:
            return kept or None
        if computed_sql.sets_link_props(a.value):
            split = _link_props(a, link, ctx)
            if split is None:
                return None
            a, props = split
        ids = _multi_link_ids(a, link, ctx)
        return None if ids is None else qir.LinkAssign(a.span, link, a.op, ids, props)  # type: ignore[arg-type]
    if computed_sql.sets_link_props(a.value):
        # (a single link with link properties is _single_link_props_value's)
        el = next(e for e in a.value.shape if e.link_prop and e.value is not None)  # type: ignore[union-attr]
        ctx.reporter.error("E0302", f"link '{a.name}' has no property '{el.name}'", el.span,
                           f"'{a.name}' declares no link properties")
        return None
    col = subject.column(link.column)
    assert col is not None
    if col.readonly and not insert:
        ctx.reporter.error("E0310", f"'{a.name}' is readonly and cannot be updated", a.name_span)
        return None
    value = a.value
    target_id = None
    found_by_id = False
    if isinstance(value, ast.GlobalRef):
        g = ctx.schema.find(value.name, ctx.module, ctx.schema.globals)
        if g is not None and g.target is not None:  # type: ignore[attr-defined]
            if g.target is not link.target:  # type: ignore[attr-defined]
                ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, but global '{value.name}' is "
                                   f"a {g.target.name}", value.span)  # type: ignore[attr-defined]
                return None
            target_id = value
    if _is_empty_set(value):
        return _clear(a, col, ctx)
    sub, asserted = computed_sql.single_subselect(value)
    if sub is not None:
        if ctx.schema.find_type(sub.type_name, ctx.module) is not link.target:
            ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {sub.type_name}",
                               sub.type_span)
            return None
        f = sub.filter
        if not asserted and isinstance(f, ast.BinOp) and f.op == "=":
            for side, other in ((f.left, f.right), (f.right, f.left)):
                if isinstance(side, ast.Path) and side.steps == ("id",):
                    target_id = other
                    # An optional link is the object the sub-select finds, if any: an unknown id
                    # (or one of another subtype) leaves it empty, as in Gel. (A required link
                    # keeps the id: its foreign key fails the statement where Gel fails it with
                    # MissingRequiredError.)
                    found_by_id = not link.required
        if target_id is None:
            return _link_by_filter(a, sub, asserted, col, ctx, insert)
    if target_id is None and isinstance(value, ast.VarRef) and _bound_object(value.name, ctx) is link.target:
        # `with who := (select User filter ...)` ... `author := who`: that object.
        low = check(value, ctx)
        if low is None:
            return None
        if not insert:
            _mark_unchanged(a.value, col.name, ctx)
        return qir.Assign(a.span, col, low)
    if target_id is None and (_is_nested_insert(value) or (isinstance(value, ast.VarRef)
                                                           and value.name in ctx.bound_writes)):
        low = _written(a, value, link, ctx, many=False)
        if low is None:
            return None
        # (None written: a required link fails the statement, SQLSTATE 23502, as Gel's
        # MissingRequiredError when it runs.)
        return qir.Assign(a.span, col, low)
    parts = _get_or_insert_parts(value) if target_id is None else None
    if parts is not None:
        return _get_or_insert(a, parts[0], parts[1], link, col, ctx, insert)
    limited = computed_sql.limited_subselect(value) if target_id is None else None
    limited_type = None if limited is None or limited.subject.name in ctx.variables else \
        ctx.schema.find_type(limited.subject.name, ctx.module)  # type: ignore[attr-defined]
    if limited is not None and limited_type is not None:
        # author := (select User filter ... order by ... limit 1): the first object found
        if limited_type is not link.target:
            ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {limited.subject.name}",  # type: ignore[attr-defined]
                               limited.subject.span)
            return None
        low = computed_sql.limited_value(limited, ctx)
        if low is None:
            return None
        if not insert:
            _mark_unchanged(a.value, col.name, ctx)
        return qir.Assign(a.span, col, low)
    if target_id is None and isinstance(value, tuple(_STATEMENT_VALUES)):
        ctx.reporter.error("E0206", f"a link's value that is {_STATEMENT_VALUES[type(value)]} is not supported yet",
                           value.span, f"write {a.name} := (select {link.target.name} filter ...)")
        return None
    if target_id is None:
        ctx.reporter.error("E0304", f"the value of link '{a.name}' must be (select {link.target.name} filter ...)",
                           value.span, f"write {a.name} := (select {link.target.name} filter .id = ${a.name}_id)")
        return None
    low = check(target_id, ctx, col.type, allow_optional_param=not col.required)
    if low is None:
        return None
    if low.type.family != "uuid":
        ctx.reporter.error("E0304", f"an id is a uuid, not {low.type.name}", target_id.span)
        return None
    # (a required link given an id that may be empty: a NOT NULL violation when it runs, as a
    # required property)
    visible = policies.read_predicate(link.target, ctx, '"_t"')
    if visible is not None or found_by_id:
        # Only an object that exists, and that the target's access policies let the query see,
        # can be linked.
        low = qir.VisibleId(low.span, low.type, True, low, link.target, visible)
    return qir.Assign(a.span, col, low)


def _get_or_insert_parts(value) -> Optional[Tuple[ast.Expr, ast.StatementExpr]]:
    """``(found, insert)`` of a get-or-insert value: ``if exists F then F else (insert T {...})``,
    ``if not exists F then (insert T {...}) else F``, ``F ?? (insert T {...})``, also as the
    body of ``(with u := F select ...)`` that names ``F`` (its one binding, read only there);
    ``None`` for anything else."""
    bound: Dict[str, ast.Expr] = {}
    if isinstance(value, ast.WithExpr):
        if len(value.bindings) != 1 or not isinstance(value.bindings[0].value, _EXPRESSION_NODES):
            return None
        bound = {value.bindings[0].name: value.bindings[0].value}  # type: ignore[dict-item]
        value = value.body
        if isinstance(value, ast.SelectExpr) and value.shape is None and value.filter is None \
                and not value.order and value.offset is None and value.limit is None:
            value = value.subject
    found = ins = None
    if isinstance(value, ast.BinOp) and value.op == "??":
        found, ins = value.left, value.right
    elif isinstance(value, ast.IfElse) and isinstance(value.cond, ast.UnaryOp):
        cond, then, else_ = value.cond, value.then, value.else_
        if cond.op == "not" and isinstance(cond.operand, ast.UnaryOp):
            cond, then, else_ = cond.operand, else_, then
        if cond.op == "exists" and isinstance(cond.operand, ast.VarRef) and isinstance(then, ast.VarRef) \
                and cond.operand.name == then.name and not cond.operand.detached and not then.detached:
            found, ins = then, else_
    if found is None or not _is_nested_insert(ins):
        return None
    if bound:
        # The binding is read as the object found, and nowhere else.
        name = next(iter(bound))
        if not (isinstance(found, ast.VarRef) and found.name == name) or any(
                isinstance(n, ast.VarRef) and n.name == name for n in ast.iter_nodes(ins)):
            return None
        found = bound[name]
    return found, ins  # type: ignore[return-value]


#: Syntax nodes that are expressions (not statements).
_EXPRESSION_NODES = tuple(t for t in ast.Expr.__args__ if t is not ast.StatementExpr)  # type: ignore[attr-defined]


def _get_or_insert(a: ast.Assignment, found: ast.Expr, ins: ast.StatementExpr, link, col, ctx: ExprContext,
                   insert: bool) -> Optional[qir.Node]:
    """``host := (with u := (select User filter .name = $n) select if exists u then u else
    (insert User { name := $n }))``, or ``... ?? (insert User {...})``: the object found, else a
    new one. Gel runs a statement in a branch of ``if ... else`` / on the right of ``??`` only
    when that branch is taken (https://docs.geldata.com/reference/edgeql/insert#conditional-inserts
    and .../edgeql/expressions): the nested insert is a CTE that inserts its row only when
    nothing was found (``INSERT ... SELECT ... WHERE <found> IS NULL``), and the link is
    ``COALESCE(<found>, <the new row's id>)``. The statement reads one snapshot, so the object
    looked up in the CTE and in the link's value is the same. ``found`` is one object of the
    link's target: a sub-select that finds at most one (or ``assert_single`` of one), or a
    ``with`` name bound to one."""
    low: Optional[qir.Expr] = None
    sub, asserted = computed_sql.single_subselect(found)
    if isinstance(found, ast.FuncCall) and found.name in ("assert_exists", "std::assert_exists"):
        sub = None  # (assert_exists(F) is never empty: the insert would never run)
    if sub is not None:
        if ctx.schema.find_type(sub.type_name, ctx.module) is not link.target:
            ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {sub.type_name}",
                               sub.type_span)
            return None
        low = computed_sql.subselect_value(sub, asserted, ctx)
        if low is None:
            return None
    elif isinstance(found, ast.VarRef) and _bound_object(found.name, ctx) is link.target:
        low = check(found, ctx)
        if low is None:
            return None
    else:
        ctx.reporter.error("E0206", f"a get-or-insert value of link '{a.name}' that looks up something other than one "
                           f"{link.target.name} object is not supported yet", found.span,
                           f"look it up with (select {link.target.name} filter <exclusive property> = ...)")
        return None
    if ins.query.type_name.split("::")[-1] != link.target.name and \
            ctx.schema.find_type(ins.query.type_name, ctx.module) is not link.target:  # type: ignore[attr-defined]
        ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {ins.query.type_name}",  # type: ignore[attr-defined]
                           ins.query.type_span)  # type: ignore[attr-defined]
        return None
    written = _written(a, ins, link, ctx, many=False, unless_found=low)
    if written is None:
        return None
    uuid = ValueType(scalar=SCALARS["uuid"])
    # (never empty: when nothing is found, the row is inserted)
    value = qir.Call(a.value.span, uuid, False, "found_or_inserted", (low, written))
    return qir.Assign(a.span, col, value)


def _is_nested_insert(value: ast.Expr) -> bool:
    return isinstance(value, ast.StatementExpr) and isinstance(value.query, ast.InsertQuery)


def _is_loop_insert(value: ast.Expr) -> bool:
    """A link value that is a ``for`` loop whose body is an insert, also as the body of a
    ``with`` block binding values: ``(with raw := <json>$p, for x in json_array_unpack(raw)
    union (insert T {...}))``."""
    if isinstance(value, ast.WithExpr):
        value = value.body  # type: ignore[assignment]
    q = value.query if isinstance(value, ast.StatementExpr) else value
    return isinstance(q, ast.ForQuery) and isinstance(q.body, ast.InsertQuery) \
        and not any(isinstance(n, ast.Path) for n in ast.iter_nodes(q.source))


def _written(a: ast.Assignment, value: ast.Expr, link, ctx: ExprContext, many: bool,
             unless_found: Optional[qir.Expr] = None) -> Optional[qir.Expr]:
    """A link assigned objects the same statement writes: a write bound by ``with p := (insert
    ...)`` (its CTE ``"_with_p"``) or a nested insert (``author := (insert User {...})``,
    https://docs.geldata.com/reference/edgeql/insert#nested-inserts), written first as a CTE
    of its own. As in Gel, a single link takes at most one object (an update or delete bound by
    ``with`` that may write several is refused)."""
    uuid = ValueType(scalar=SCALARS["uuid"])
    if isinstance(value, ast.VarRef):
        w = ctx.bound_writes[value.name]
        if w.subject is not link.target:  # type: ignore[attr-defined]
            ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, but '{value.name}' is "
                               f"{ctx.bound_statements.get(value.name, 'a write')}", value.span)
            return None
        card = w.cardinality  # type: ignore[attr-defined]
        if not many and card == MANY:
            ctx.reporter.error("E0304", f"'{value.name}' may write several objects, but '{a.name}' is a single link",
                               value.span, "filter the bound statement on .id or an exclusive property")
            return None
        return qir.WrittenIds(value.span, ValueType(element=uuid) if many else uuid, not many and card != ONE,
                              f"_with_{value.name}", many)
    scope = ctx
    if isinstance(value, ast.WithExpr):
        # `terms := (with raw := <json>$terms, for t in json_array_unpack(raw) union (insert ...))`:
        # the block's names are in scope of its loop (https://docs.geldata.com/reference/edgeql/with)
        from schemac.semantics.exprs import with_scope
        scope = with_scope(value, ctx)
        if scope is None:
            return None
        value = value.body  # type: ignore[assignment]
    q = value.query if isinstance(value, ast.StatementExpr) else value  # type: ignore[attr-defined]
    target = ctx.schema.find_type(q.type_name, ctx.module)
    if target is None:
        ctx.reporter.error("E0301", f"unknown type '{q.type_name}'", q.type_span,
                           did_you_mean(q.type_name.split("::")[-1], [t.name for t in ctx.schema.all_types()]))
        return None
    if target is not link.target:
        ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {q.type_name}", q.type_span)
        return None
    loop = isinstance(q, ast.ForQuery)
    what = "a 'for' loop of inserts" if loop else "a nested insert"
    if ctx.nested is None or any(type(v) is qir.LoopVar for v in ctx.variables.values()):
        # (Gel evaluates an update's values once per object it updates: as many inserts.)
        ctx.reporter.error("E0206", f"{what} in an update of several objects, a 'for' loop or an upsert's "
                           "else is not supported yet", value.span,
                           "filter the update on .id or an exclusive property, or bind the insert, inserted once: "
                           "with p := (insert ...) ... link := p")
        return None
    if loop and not many:
        ctx.reporter.error("E0304", f"a 'for' loop of inserts may write several objects, but '{a.name}' is a single "
                           "link", value.span)
        return None
    inner = dataclasses.replace(scope, subject=target, column_prefix=None, variables=dict(scope.variables))
    if loop:
        # `terms := (for t in json_array_unpack(<json>$terms) union (insert Term {...}))`
        # (https://docs.geldata.com/reference/edgeql/for): the bulk insert, written first as a CTE
        # of its own, as `with ts := (for ...)` ... `terms := ts` is; every object it inserts is
        # linked (an empty loop links none).
        batch = q_for._loop(q, inner)
        w = None if batch is None else q_dml._insert_write(q.body, target, inner, batch=batch)
        if w is not None:
            w = dataclasses.replace(w, cardinality=MANY)
    else:
        w = q_dml._insert_write(q, target, inner)
    if w is None:
        return None
    if unless_found is not None:
        w = dataclasses.replace(w, unless_found=unless_found, cardinality=AT_MOST_ONE)
    name = f"_nested{sum(1 for k in ctx.bound_writes if k.startswith(' nested')) + 1}"
    ctx.bound_writes[" nested" + name] = w  # (counted so each nested insert gets its own CTE)
    ctx.nested.append(qir.BoundWrite(value.span, name, w))
    return qir.WrittenIds(value.span, ValueType(element=uuid) if many else uuid, w.cardinality != ONE, name, many)


#: Link values that are valid EdgeQL but not lowered: what the E0206 calls them.
_STATEMENT_VALUES = {ast.WithExpr: "a 'with' block", ast.StatementExpr: "a statement", ast.IfElse: "an 'if ... else'",
                     ast.ForExpr: "a 'for' loop", ast.SelectExpr: "a select of an expression",
                     ast.GroupExpr: "a 'group'"}


def _bound_object(name: str, ctx: ExprContext) -> Optional[ObjectType]:
    """The type of the object a ``with`` name is bound to (``who := (select User filter ...)``),
    else ``None``."""
    b = ctx.variables.get(name)
    value = b.value if type(b) is qir.WithValue else None  # type: ignore[attr-defined]
    if type(value) is qir.Call and value.func == "assert_exists":  # type: ignore[attr-defined]
        # `who := assert_exists((select User filter .id = ...))`: that object, or the statement
        # fails (the argument <User>$id of an inlined function is bound so)
        value = value.args[0]  # type: ignore[attr-defined]
    if type(value) is qir.ObjectId or (type(value) is qir.ObjectRow and value.value is None):  # type: ignore[union-attr]
        return value.target  # type: ignore[union-attr]
    return None


def _multi_values(value: ast.Expr) -> Optional[ast.Expr]:
    """The set of values given to a multi property, ``tags := if c then array_unpack(arr) else
    {}``, written as the array the property is stored as: each branch's ``array_unpack(arr)`` is
    ``arr`` (https://docs.geldata.com/reference/stdlib/array#function::std::array_unpack, the
    set of the array's elements, in order; https://docs.geldata.com/reference/edgeql/insert: a
    multi property is assigned any set of its type). ``None`` when ``value`` holds no
    ``array_unpack()`` to rewrite (a bare ``array_unpack()``, a set literal, a union: see
    ``value_set_array``)."""
    if isinstance(value, ast.FuncCall) and value.name in q_values._UNPACK and len(value.args) == 1:
        return value.args[0]
    if isinstance(value, ast.IfElse):
        then, else_ = _multi_values(value.then), _multi_values(value.else_)
        if then is None and else_ is None:
            return None
        if then is None and not _is_empty_set(value.then) or else_ is None and not _is_empty_set(value.else_):
            return None
        return dataclasses.replace(value, then=then if then is not None else value.then,
                                   else_=else_ if else_ is not None else value.else_)
    return None


def _json_elements(value) -> Optional[ast.Expr]:
    """The json ``j`` of ``<T>json_array_unpack(j)``, else ``None``."""
    if isinstance(value, ast.Cast) and not value.type.args and isinstance(value.operand, ast.FuncCall) \
            and value.operand.name in ("json_array_unpack", "std::json_array_unpack") and len(value.operand.args) == 1:
        return value.operand.args[0]
    return None


def _assign_json_elements(a: ast.Assignment, col, ctx: ExprContext) -> Optional[qir.Assign]:
    """``tags := <str>json_array_unpack(j)`` of a multi property: the elements of the JSON array
    ``j``, each cast to the property's type as ``<T>json`` casts (a JSON null element is empty,
    so no element; one of another JSON type fails the statement), in the array's order; none
    when ``j`` is empty (https://docs.geldata.com/reference/stdlib/json#function::std::json_array_unpack,
    https://docs.geldata.com/reference/datamodel/properties#multi). ``j`` not an array fails the
    statement, as Gel's ``json_array_unpack`` does: ``coalesce((SELECT array_agg(<cast> ORDER BY n)
    FILTER (WHERE <cast> IS NOT NULL) FROM jsonb_array_elements(j) WITH ORDINALITY ...), '{}')``."""
    cast = a.value
    target = col.type.element
    low = check(_json_elements(cast), ctx, queries.JSON)  # type: ignore[arg-type]
    if low is None:
        return None
    if low.type.family != "json":
        ctx.reporter.error("E0304", f"json_array_unpack() needs a json value, got {low.type.name}",
                           cast.operand.span)  # type: ignore[union-attr]
        return None
    name = cast.type.name.split("::")[-1]  # type: ignore[union-attr]
    scalar = SCALARS.get(name)
    if scalar is None or ValueType(scalar=scalar).family != target.family or target.enum is not None \
            or target.element is not None:
        ctx.reporter.error("E0304", f"'{a.name}' holds {target.name}, but the value is {cast.type.name}",  # type: ignore[union-attr]
                           cast.span)
        return None
    return qir.Assign(a.span, col, qir.JsonArrayElements(cast.span, col.type, False, low))


def _assign_multi_values(a: ast.Assignment, array: ast.Expr, col, insert: bool,
                         ctx: ExprContext) -> Optional[qir.Assign]:
    """``tags := array_unpack(arr)`` (see :func:`_multi_values`): the column set to ``arr``, or
    to ``'{}'`` when ``arr`` is empty (a multi property is never NULL: its empty set is the
    empty array, ``COALESCE(arr, '{}')``); an empty set given to a required multi property fails
    the statement when it runs (its CHECK), as Gel fails it."""
    low = check(array, ctx, col.type, allow_optional_param=True)
    if low is None:
        return None
    if low.type.family != col.type.family or low.type.element is None:
        ctx.reporter.error("E0304", f"'{a.name}' is {col.type.name}, but array_unpack() is given {low.type.name}",
                           array.span)
        return None
    if low.nullable:
        empty = check(ast.ArrayLit((), a.value.span), ctx, col.type)
        if empty is None:
            return None
        low = qir.Binary(a.value.span, col.type, False, "??", low, empty)
    return qir.Assign(a.span, col, low)


def _is_empty_set(value: ast.Expr) -> bool:
    """``{}`` or ``<T>{}``: the empty set."""
    if isinstance(value, ast.Cast):
        value = value.operand
    return isinstance(value, ast.SetLit) and not value.items


def _clear(a: ast.Assignment, col, ctx: ExprContext) -> Optional[qir.Assign]:
    """``p := {}`` / ``link := {}``: an optional property or single link set to the empty set
    (https://docs.geldata.com/reference/edgeql/update): NULL. A required one is refused, as Gel
    refuses it (``missing value for required property``)."""
    if col.required:
        ctx.reporter.error("E0304", f"'{a.name}' is required: it cannot be set to the empty set {{}}", a.value.span,
                           "make it optional in the schema, or assign a value")
        return None
    return qir.Assign(a.span, col, qir.Literal(a.value.span, col.type, True, "null", None))


def _link_by_filter(a: ast.Assignment, sub: ast.SubSelect, asserted: bool, col, ctx: ExprContext,
                    insert: bool) -> Optional[qir.Assign]:
    """``author := (select User filter .email = <str>$email)``: the link set to the one object
    the sub-select finds, by any filter (https://docs.geldata.com/reference/edgeql/insert#links),
    ``(SELECT "_q"."id" FROM users AS "_q" WHERE ...)``. As in Gel, the sub-select must be
    known to find at most one object (a filter on ``.id`` or on every property of a full
    exclusive constraint), or be wrapped in ``assert_single(...)`` (more than one object then
    fails the statement, SQLSTATE 21000, Gel's CardinalityViolationError). When it finds none,
    the link is empty: a required link then fails the statement (SQLSTATE 23502, Gel's
    MissingRequiredError, raised when the statement runs)."""
    low = computed_sql.subselect_value(sub, asserted, ctx)
    if low is None:
        return None
    if not insert:
        _mark_unchanged(a.value, col.name, ctx)
    return qir.Assign(a.span, col, low)
