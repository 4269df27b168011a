"""Selects of values: expressions, unions of objects, ``enumerate``, elements of
arrays and sets (https://docs.geldata.com/reference/edgeql/sets).

Part of the statement checker (:mod:`schemac.semantics.queries`), split by concern."""

from __future__ import annotations
import dataclasses
from typing import List, Optional, Set, Tuple
from schemac.semantics import computed_sql, qir
from schemac.syntax import tree as ast
from schemac.frozen import fast_init_all
from schemac.semantics.exprs import ExprContext, check
from schemac.semantics.e_funcs import assert_call, assert_message, value_set_parts, _objects_part
from schemac.semantics.e_paths import json_element_refusal
from schemac.semantics.model import ExclusiveConstraint, ObjectType, ValueType
from schemac.semantics.names import go_name
from schemac.semantics.qir import AT_MOST_ONE, MANY, ONE, ResultField
from schemac.semantics import q_group, q_select, q_shapes, q_with, queries


def _plan(qf: ast.QueryFile, kind: str, subject: Optional[ObjectType], statement: qir.Node, ctx: ExprContext,
          cardinality: str, exclusives: Tuple[ExclusiveConstraint, ...],
          result: Optional[Tuple[ResultField, ...]] = None, scalar: bool = False) -> qir.Query:
    if result is None:
        assert subject is not None
        id_col = subject.column("id")
        assert id_col is not None
        result = (ResultField("id", id_col.type, False),)
    return qir.Query(qf.name, qf.path, kind, subject, statement, tuple(ctx.params.ordered()), result,  # type: ignore[union-attr]
                     cardinality, exclusives, qf.doc, scalar)


def _select_value(qf: ast.QueryFile, q: ast.SelectValue, ctx: ExprContext,
                  by_element: Tuple[bool, ...] = ()) -> Optional[qir.Query]:
    """``select <expr>`` of anything but a type or a write (https://docs.geldata.com/reference/edgeql/select):
    one row. A free object ``select { a := ..., b := ... }`` is a row of its fields (Gel types
    it as an object, cardinality one); any other expression (``select 1``, ``select <str>$x``,
    ``select count(User)``) a single value, which the runners return as it is: exactly one
    when it cannot be empty, else at most one (``null`` / ``nil`` when empty). ``by_element``:
    a set of values ordered by the values themselves, each item descending or not."""
    if by_element:
        parts = value_set_parts(q.value)
        if parts is None or any(not unpack and _objects_part(e, ctx) for e, unpack in parts):
            ctx.reporter.error("E0206", "'order by' on a selected expression (not a type) is not supported yet",
                               q.span, "select a type to filter, order or page it: select User { ... } filter ...")
            return None
        return _select_elements(qf, q, parts, False, ctx, by_element=by_element)
    union = _object_union(qf, q, ctx)
    if union is not False:
        return union  # type: ignore[return-value]
    if isinstance(q.value, ast.ShapeExpr) and isinstance(q.value.base, ast.GroupExpr):
        # `select (group m by .k) { k := .key.k, n := count(.elements) } order by .n desc`: a
        # select over the groups, as `with g := (group ...) select g { ... }`
        # (https://docs.geldata.com/reference/edgeql/group)
        g = q.value.base
        return q_group._group_query(qf, g, ctx, ast.SelectQuery("group", g.span, q.value.shape, q.filter, q.order,
                                                        q.offset, q.limit, q.span))
    inner, asserts = q_with._peel_asserts(q.value)
    bound = None if q_shapes._has_clauses(q) else q_with._bound_write_selection(inner, ctx)
    if bound is not None:
        return q_with._select_bound_write(qf, q, bound, asserts, ctx)
    selection = None if q_shapes._has_clauses(q) else q_with._object_selection(inner, ctx)
    if selection is not None:
        # `select (select User { name } filter ...)`, `select u { name }` of a with selection,
        # `select assert_single(u) { ... }`
        subject = ctx.schema.find_type(selection.type_name, ctx.module)
        assert subject is not None
        if not asserts:
            return q_select._select(qf, selection, subject, dataclasses.replace(ctx, subject=subject))
        node, cardinality = q_select._select_node(selection, subject, dataclasses.replace(ctx, subject=subject))
        if node is None:
            return None
        messages = {k: assert_message(v, ctx) for k, v in asserts.items()}
        if any(m is False for m in messages.values()):
            return None
        if "assert_single" in asserts and (cardinality == MANY or messages["assert_single"] is not None):
            node = dataclasses.replace(node, assert_single=True, single_message=messages["assert_single"])
            cardinality = AT_MOST_ONE if cardinality == MANY else cardinality
        if "assert_exists" in asserts:
            # No object fails the statement with Gel's error (or the message given), also of
            # several objects, which it then passes through
            # (https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists).
            node = dataclasses.replace(node, assert_exists=True, exists_message=messages["assert_exists"])
            cardinality = MANY if cardinality == MANY else ONE
        return _plan(qf, "select", subject, node, ctx, cardinality, (), q_select._fields(node.shape))
    single = q_shapes._single_write_selection(q, ctx)
    if single is not None:
        # `select (update T filter .key = $k set {...}) { shape } limit 1`: the write yields at
        # most one object, so the limit changes nothing (https://docs.geldata.com/reference/edgeql/select#pagination)
        target = ctx.schema.find_type(single.type_name, ctx.module)
        return q_shapes._select_dml(qf, single, target, dataclasses.replace(ctx, subject=target))  # type: ignore[arg-type]
    for word, clause in (("filter", q.filter), ("order by", q.order), ("offset", q.offset), ("limit", q.limit)):
        if clause:
            ctx.reporter.error("E0206", f"'{word}' on a selected expression (not a type) is not supported yet",
                               q.span, "select a type to filter, order or page it: select User { ... } filter ...")
            return None
    value = q.value
    if isinstance(value, ast.FreeObject):
        elements: List[qir.Node] = []
        seen: Set[str] = set()
        for el in value.elements:
            if el.name in seen or go_name(el.name) in {go_name(k) for k in seen}:
                ctx.reporter.error("E0309", f"'{el.name}' appears twice in the free object" if el.name in seen else
                                   f"'{el.name}' and another field of the free object have the same name in Go",
                                   el.span)
                continue
            seen.add(el.name)
            inner, asserts = q_with._peel_asserts(el.value)
            bound = q_with._bound_write_selection(inner, ctx)
            if bound is not None:
                node = q_with._bound_write_element(el, bound, asserts, ctx)
                if node is not None:
                    elements.append(node)
                continue
            if isinstance(inner, ast.WithExpr) and q_group._group_list(inner) is not None:
                node = q_group._group_list_element(el, inner, ctx)
                if node is not None:
                    elements.append(node)
                continue
            bound_groups = q_group._bound_group_list(inner, ctx)
            if bound_groups is not None:
                node = q_group._group_list_element(el, None, ctx, bound_groups)
                if node is not None:
                    elements.append(node)
                continue
            objects = q_with._object_selection(inner, ctx)
            if objects is not None:
                node = q_with._objects_element(el, objects, ctx, "assert_single" in asserts)
                if node is not None and "assert_exists" in asserts:
                    if node.objects.multi:  # type: ignore[attr-defined]
                        ctx.reporter.error("E0206", "assert_exists() of several objects in a free object's field is "
                                           "not supported yet", el.span,
                                           "wrap it in assert_single(...) too, or select the objects in a query of "
                                           "its own")
                        continue
                    # (https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists)
                    node = dataclasses.replace(node, required=True,  # type: ignore[call-arg]
                                               field=dataclasses.replace(node.field, optional=False))  # type: ignore[attr-defined]
                if node is not None:
                    elements.append(node)
                continue
            low = check(el.value, ctx)  # type: ignore[arg-type]
            if low is not None:
                elements.append(qir.ShapeComputed(el.span, ResultField(el.name, low.type, _may_be_empty(low)), low))
        if ctx.reporter.has_errors:
            return None
        node = qir.SelectValues(q.span, tuple(elements), False)
        return _plan(qf, "select", None, node, ctx, ONE, (), q_select._fields(elements))
    distinct = isinstance(value, ast.UnaryOp) and value.op == "distinct"
    operand = value.operand if distinct else value  # type: ignore[attr-defined]
    if isinstance(operand, ast.FuncCall) and operand.name in _ENUMERATE:
        return _select_enumerate(qf, q, operand, ctx)
    if computed_sql.query_value_path(operand, ctx) is not None:
        return _select_value_set(qf, q, operand, distinct, ctx)
    call = assert_call(operand)
    if call is not None and call[0] == "assert_distinct" and value_set_parts(call[1]) is not None:
        # `select assert_distinct({1, 2} union array_unpack(...))`: the set's values, or the
        # statement fails when one is there twice (https://docs.geldata.com/reference/stdlib/set#function::std::assert_distinct)
        low = check(operand, ctx)
        if low is None:
            return None
        node = qir.SelectElements(q.span, (low,), (True,), distinct)
        return _plan(qf, "select", None, node, ctx, MANY, (), (ResultField("value", low.type.element, False),),
                     scalar=True)
    parts = value_set_parts(operand)
    if parts is not None:
        return _select_elements(qf, q, parts, distinct, ctx)
    low = check(value, ctx)
    if low is None:
        return None
    empty = _may_be_empty(low)
    el = qir.ShapeComputed(value.span, ResultField("value", low.type, empty), low)
    node = qir.SelectValues(q.span, (el,), True)
    return _plan(qf, "select", None, node, ctx, AT_MOST_ONE if empty else ONE, (), (el.field,), scalar=True)


def _union_leaves(expr) -> List[object]:
    """The operands of ``a union b union ...`` and ``{a, b, ...}`` (nested ones flattened: a set
    literal is a union, https://docs.geldata.com/reference/edgeql/sets)."""
    if isinstance(expr, ast.BinOp) and expr.op == "union":
        return _union_leaves(expr.left) + _union_leaves(expr.right)
    if isinstance(expr, ast.SetLit) and expr.items:
        return [leaf for item in expr.items for leaf in _union_leaves(item)]
    return [expr]


def _object_operand(e, ctx: ExprContext):
    """An operand of a union that is objects: ``(key, filter, paged)`` (``key`` the qualified name
    of a concrete or abstract type, ``filter`` the operand's own, or ``None``; ``paged`` the
    operand when it orders or pages its objects); ``None`` when it is no objects; ``False``
    after a located error."""
    if isinstance(e, ast.VarRef) and e.name not in ctx.variables:
        if e.name in ctx.type_sets:
            value = ctx.type_sets[e.name]
            return _object_operand(q_with._as_select_expr(value), ctx) if q_with._simple_selection(value) else None
        found = ctx.schema.find_type(e.name, ctx.module)
        key = found.qualname if found is not None else queries._abstract_key(ctx.schema, e.name, ctx.module)
        return None if key is None else (key, None, None)
    if isinstance(e, ast.SubSelect):
        e = q_with._as_select_expr(e)
    if not (isinstance(e, ast.SelectExpr) and isinstance(e.subject, ast.VarRef)):
        return None
    found = _object_operand(e.subject, ctx)
    if not found:
        return found
    if found[2] is not None and (e.filter is not None or e.order or e.offset is not None or e.limit is not None):
        ctx.reporter.error("E0206", f"filtering, ordering or paging '{e.subject.name}', which orders or pages its "  # type: ignore[union-attr]
                           "objects, in a union is not supported yet", e.span)
        return False
    if found[1] is not None and e.filter is not None:
        found = (found[0], ast.BinOp("and", found[1], e.filter, e.filter.span), None)
    elif e.filter is not None:
        found = (found[0], e.filter, found[2])
    if e.order or e.offset is not None or e.limit is not None:
        found = (found[0], found[1], e)
    if not computed_sql._plain_shape(e.shape):
        # (Gel's union of two shapes computing the same name is an error; of others, the
        # union's objects show { id } only, as any plain shape of an operand: see _object_union)
        ctx.reporter.error("E0206", "a shape with computed or nested elements on an operand of 'union' is not "
                           "supported yet", e.span, "put the shape on the union: select (A union B) { ... }")
        return False
    return found


def _object_union(qf: ast.QueryFile, q: ast.SelectValue, ctx: ExprContext):
    """``select A union B``, ``select {(select A filter f), (select B filter g)}``, ``select (A
    union B) { shape } [filter] [order by] [offset] [limit]``: a union of objects
    (https://docs.geldata.com/reference/stdlib/set#operator::union, a multiset sum: an object in
    two operands is there twice). Gel types it as the union type of the operands, whose pointers
    are those every operand's type has (the nearest common ancestor's, ``title`` of ``Content``
    for ``Movie union Show``; https://docs.geldata.com/reference/edgeql/sets#inheritance), so the
    shape is checked against each operand's concrete types and must type each element alike. A
    shape on an operand is not the union's: Gel's union type has no shape of its own and shows
    ``{ id }`` (its output shape is the union type's, compiled after the operands'), so a plain
    operand shape is dropped; put the shape on the union. Lowered as a select of an abstract
    type (:func:`_abstract_select`): one ``SELECT`` per concrete type of each operand, ``UNION
    ALL``. ``False`` when ``q`` is not such a select; ``None`` after an error."""
    value, shape = q.value, None
    if isinstance(value, ast.ShapeExpr):
        value, shape = value.base, value.shape
    if isinstance(value, ast.SelectExpr) and isinstance(value.subject, (ast.BinOp, ast.SetLit)) \
            and not (q_shapes._has_clauses(q) and q_shapes._has_clauses(value)) and not (shape is not None and value.shape is not None):
        # `select (select A union B [{ shape }] [filter ...] ...) [{ shape }]`: the same select
        inner = value
        value, shape = inner.subject, shape if shape is not None else inner.shape
        if q_shapes._has_clauses(inner):
            q = dataclasses.replace(q, filter=inner.filter, order=inner.order, offset=inner.offset, limit=inner.limit)
    leaves = _union_leaves(value)
    if len(leaves) < 2 and not isinstance(value, ast.SetLit):
        return False
    before = len(ctx.reporter.diagnostics)
    found = [_object_operand(leaf, ctx) for leaf in leaves]
    if len(ctx.reporter.diagnostics) != before:
        return None
    if not all(found):
        return False  # (values, or objects mixed with values: reported as a set of values)
    parts: List[Tuple[ObjectType, Optional[ast.Expr], Optional[ast.SelectExpr]]] = []
    names = []
    for key, filt, paged in found:  # type: ignore[misc]
        names.append(key.split("::")[-1])
        subs = [ctx.schema.types[k] for k in ctx.schema.descendants.get(key, (key,)) if k in ctx.schema.types]
        if paged is not None and (len(subs) != 1 or q.filter is not None):
            # (its objects are paged before the union: over several tables, or filtered by the
            # union afterwards, that is another statement's shape)
            why = "the objects of a type with subtypes" if len(subs) != 1 else "its objects in a filtered union"
            ctx.reporter.error("E0206", f"an operand of 'union' that orders or pages {why} is not supported yet",
                               paged.span,
                               "order and page the union: select (A union B) { ... } order by ... limit ...")
            return None
        parts.extend((sub, filt, paged) for sub in subs)
    if not parts:
        ctx.reporter.error("E0206", "a union of abstract types that no concrete type extends is not supported yet",
                           value.span)
        return None
    sq = ast.SelectQuery(" | ".join(dict.fromkeys(names)), value.span, shape, q.filter, q.order, q.offset, q.limit,
                         q.span)
    return queries._abstract_select(qf, sq, sq.type_name, ctx, parts)


_UNPACK = ("array_unpack", "std::array_unpack")
_ENUMERATE = ("enumerate", "std::enumerate")


def _select_enumerate(qf: ast.QueryFile, q: ast.SelectValue, call: ast.FuncCall,
                      ctx: ExprContext) -> Optional[qir.Query]:
    """``select enumerate({'a', 'b'} union array_unpack(<array<str>>$more))``
    (https://docs.geldata.com/reference/stdlib/set#function::std::enumerate): the set's values,
    each as a ``tuple<int64, T>`` of its position (from 0, in the set's order) and itself; as many
    rows as the set has values (a single value: one, or none when it is empty). ``distinct``
    changes nothing (the positions differ)."""
    if len(call.args) != 1 or isinstance(call.args[0], ast.NamedArg):
        ctx.reporter.error("E0304", "enumerate() takes one argument, a set", call.span)
        return None
    arg = call.args[0]
    if computed_sql.query_value_path(arg, ctx) is not None:
        ctx.reporter.error("E0206", "enumerate() of a property of a set of objects is not supported yet", arg.span,
                           "enumerate a set of values: enumerate({...}) or enumerate(array_unpack(<array<T>>$xs))")
        return None
    return _select_elements(qf, q, value_set_parts(arg) or [(arg, False)], False, ctx, True)


def _select_elements(qf: ast.QueryFile, q: ast.SelectValue, parts, distinct: bool,
                     ctx: ExprContext, enumerated: bool = False,
                     by_element: Tuple[bool, ...] = ()) -> Optional[qir.Query]:
    """``select [distinct] {1, 2} union array_unpack(<array<int64>>$more)``: a set of values
    (https://docs.geldata.com/reference/edgeql/sets, .../stdlib/set#operator::union, ...#operator::distinct),
    many rows of one value (the runners return the values): :class:`qir.SelectElements`. The
    parts meet at one type as the elements of an array literal do."""
    lows: List[qir.Expr] = []
    expected: Optional[ValueType] = None
    writes = [e for e, _ in parts if isinstance(e, ast.StatementExpr)]
    if writes and len(writes) == len(parts):
        # (`select {insert A {...}, insert A {...}}`, Gel's GenExpr elements: objects, not values)
        ctx.reporter.error("E0206", "a set of the objects of several inserts, updates or deletes is not supported "
                           "yet", writes[0].span, "run each statement as a query of its own, or bind each in "
                           "'with' and select them")
        return None
    for expr, unpack in parts:
        if not unpack and (isinstance(expr, (ast.SelectExpr, ast.SubSelect, ast.StatementExpr)) or (
                isinstance(expr, ast.VarRef) and (expr.name in ctx.type_sets or
                                                  ctx.schema.find_type(expr.name, ctx.module) is not None))):
            # (a union of objects only is _object_union's; objects and values have no common
            # type: https://docs.geldata.com/reference/edgeql/sets)
            ctx.reporter.error("E0304", "a set or union mixes objects and values", expr.span,
                               "unite objects with objects (select A union B) or values with values")
            return None
        hint = None if isinstance(expr, ast.Literal) else expected  # (a literal keeps its own type)
        low = check(expr, ctx, ValueType(element=hint) if unpack and hint is not None else hint)
        if low is None:
            return None
        vtype = low.type.element if unpack else low.type
        if unpack and vtype is None:
            ctx.reporter.error("E0304", f"array_unpack() needs an array, got {low.type.name}", expr.span)
            return None
        if vtype is not None and (vtype.element is not None or vtype.fields is not None):
            ctx.reporter.error("E0206", f"a set of {vtype.name} values is not supported yet", expr.span)
            return None
        if expected is not None and vtype.family != expected.family:
            ctx.reporter.error("E0304", f"a set mixes {expected.name} and {vtype.name}", expr.span,
                               "give every element the same type, e.g. with a cast <T>")
            return None
        if expected is None or (vtype.family == "num" and _wider(vtype, expected)):
            expected = vtype
        lows.append(low)
    if isinstance(expected, ValueType) and expected.family == "num":
        # (the elements meet at the widest number type, as a set literal's in Gel)
        lows = [low if (low.type.element or low.type) == expected else
                qir.Call(low.span, ValueType(element=expected) if low.type.element else expected, low.nullable,
                         "set/widen", (low,))
                for low in lows]
    node = qir.SelectElements(q.span, tuple(lows), tuple(u for _, u in parts), distinct, enumerated, by_element)
    if enumerated:
        why = json_element_refusal(expected)  # type: ignore[arg-type]
        if why is not None:
            ctx.reporter.error("E0206", f"enumerate() of a set of {expected.name} values is not supported yet",  # type: ignore[union-attr]
                               q.value.span,
                               "its tuples travel as JSON, which the Go runner cannot decode into this type")
            return None
        expected = ValueType(fields=((None, q_group._INT64), (None, expected)))  # type: ignore[arg-type]
    return _plan(qf, "select", None, node, ctx, MANY, (), (ResultField("value", expected, False),), scalar=True)


def _wider(a: ValueType, b: ValueType) -> bool:
    """Whether the number type ``a`` is wider than ``b`` (int16 < int32 < int64 < float64 < decimal)."""
    order = ("int16", "int32", "int64", "bigint", "float32", "float64", "decimal")
    rank = {n: i for i, n in enumerate(order)}
    return rank.get(a.scalar.name if a.scalar else "", -1) > rank.get(b.scalar.name if b.scalar else "", -1)


def _select_value_set(qf: ast.QueryFile, q: ast.SelectValue, operand, distinct: bool,
                      ctx: ExprContext) -> Optional[qir.Query]:
    """``select [distinct] S.p``: the values of a property of the objects of a set of the query's
    names (``with m := (select Message filter ...) select distinct m.channel_id``), many rows of
    one value each (the runners return the values): :class:`qir.SelectValueSet`."""
    found = computed_sql._object_path(operand, ctx, "_v1")
    if not found:
        return None
    objects, rest = found
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                set_links=None, set_row=None)
    low = check(ast.Path(tuple(rest), operand.span), inner)
    if low is None:
        return None
    if low.type.element is not None:
        ctx.reporter.error("E0206", "selecting a multi property of several objects is not supported yet", operand.span)
        return None
    node = qir.SelectValueSet(q.span, objects, low, distinct)
    field = ResultField("value", low.type, False)
    return _plan(qf, "select", None, node, ctx, MANY, (), (field,), scalar=True)


def _may_be_empty(low: qir.Expr) -> bool:
    """Whether a selected value may be empty: ``nullable``, or a json value read as a scalar
    (``<str>json_get(j, 'k')``, ``<str>j['k']``: empty when the member is missing or JSON null,
    which an assignment to a required property reports when it runs)."""
    if low.nullable:
        return True
    if type(low) is qir.JsonCast:
        operand = low.operand  # type: ignore[attr-defined]
        return operand.nullable or type(operand) is qir.JsonIndex
    return False
