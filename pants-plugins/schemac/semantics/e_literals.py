"""Literals: arrays, their indexing, strings and numbers, enum members
(https://docs.geldata.com/reference/edgeql/literals).

Part of the expression checker (:mod:`schemac.semantics.exprs`), split by concern."""

from __future__ import annotations
import dataclasses
from typing import List, Optional
from schemac.semantics import qir
from schemac.syntax import tree as ast
from schemac.diagnostics import did_you_mean
from schemac.frozen import fast_init_all
from schemac.semantics.model import ValueType
from schemac.semantics.scalars import SCALARS
from schemac.semantics import e_objects, e_ops, e_paths, e_types, exprs


def _array_lit(expr: ast.ArrayLit, ctx: exprs.ExprContext, expected: Optional[ValueType]) -> Optional[qir.Expr]:
    """``[a, b, c]`` (https://docs.geldata.com/reference/stdlib/array): ``ARRAY[a, b, c]``. The
    elements meet at one type as Gel's implicit casts allow (``[1, 2.5]`` is ``array<float64>``);
    an array of arrays is not a Gel type. An element that is empty makes the array empty (Gel
    builds an array from each combination of its elements' values, so none when one has none).
    ``[]`` takes its type from where it is used (``<array<str>>[]``, a typed parameter's
    default)."""
    want = expected.element if expected is not None and expected.element is not None else None
    if not expr.items:
        if want is None:
            ctx.reporter.error("E0304", "the type of an empty array literal is unknown here", expr.span,
                               "cast it: <array<str>>[]")
            return None
        return qir.Call(expr.span, ValueType(element=want), False, "array", ())
    items: List[qir.Expr] = []
    for item in expr.items:
        low = exprs.check(item, ctx, want)
        if low is None:
            return None
        if low.type.element is not None:
            ctx.reporter.error("E0304", "an array of arrays is not a Gel type", item.span,
                               "nest a tuple or a json value instead")
            return None
        items.append(low)
    elem = items[0].type
    for low, item in zip(items[1:], expr.items[1:]):
        if low.type.family != elem.family:
            ctx.reporter.error("E0304", f"the elements of an array literal are {elem.name} and {low.type.name}",
                               item.span, e_ops._cast_hint(elem, low.type))
            return None
        if elem.family == "num" and low.type != elem:
            common = e_ops.arith_result("+", elem.scalar.name if elem.scalar is not None else "", e_ops._num_operand_type(low))
            if common is None:
                ctx.reporter.error("E0304", f"the elements of an array literal are {elem.name} and {low.type.name} "
                                   "(Gel has no implicit cast between them)", item.span,
                                   "cast one explicitly, e.g. <float64>x or <decimal>x")
                return None
            if common:
                elem = ValueType(scalar=SCALARS[common])
    if want is not None and want.family == elem.family:
        elem = want
    # (an empty element: the array is empty too)
    return qir.Call(expr.span, ValueType(element=elem), any(low.nullable for low in items), "array", tuple(items))


def _integer_index(expr: ast.Index, ctx: exprs.ExprContext, what: str) -> Optional[qir.Expr]:
    """The checked index of ``expr`` (``arr[i]``, ``s[i]``): an integer, else E0304 naming
    ``what`` is indexed."""
    key = exprs.check(expr.key, ctx, e_types.INT64)
    if key is None:
        return None
    if key.type.family != "num" or key.type.scalar is None or key.type.scalar.name not in ("int16", "int32", "int64"):
        ctx.reporter.error("E0304", f"{what} index is an integer, got {key.type.name}", expr.key.span)
        return None
    return key


def _array_index(expr: ast.Index, base: qir.Expr, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``arr[i]`` (https://docs.geldata.com/reference/stdlib/array#operator::arrayidx): the
    element at the 0-based index ``i``, counted from the end when negative (``arr[-1]`` is the
    last); an index outside the array fails the statement, as Gel's "array index ... is out of
    bounds" (Postgres' 1-based ``arr[i]`` would give NULL): the failing cast names the index."""
    key = _integer_index(expr, ctx, "an array")
    if key is None:
        return None
    # (out of bounds: an error naming the index, as Gel's; see schemac.pgsql.calls_expr)
    return qir.Call(expr.span, base.type.element, base.nullable or key.nullable, "array_index", (base, key))


def _str_index(expr: ast.Index, base: qir.Expr, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``s[i]`` (https://docs.geldata.com/reference/stdlib/string#operator::stridx): the
    character at the 0-based index ``i``, counted from the end when negative; an index outside
    the string fails the statement, as Gel's "string index ... is out of bounds" (Postgres'
    ``substr`` would give ''): the failing cast names the index (and reads the length, so that
    Postgres cannot fold it into a constant error). Empty when ``s`` is."""
    key = _integer_index(expr, ctx, "a string")
    if key is None:
        return None
    return qir.Call(expr.span, base.type, base.nullable or key.nullable, "str_index", (base, key))


def _index(expr: ast.Index, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``x['key']`` (``x[0]``: an array element) on a json value; the result is json (empty
    when the member is missing), cast it to read a scalar: ``<str>x['key']``. ``arr[i]`` of an
    array: :func:`_array_index`."""
    base = exprs.check(expr.base, ctx)
    if base is None:
        return None
    if base.type.element is not None:
        return _array_index(expr, base, ctx)
    if base.type.family == "str" and base.type.enum is None:
        return _str_index(expr, base, ctx)
    if base.type.family != "json":
        ctx.reporter.error("E0206", f"indexing a {base.type.name} value is not supported; only json values "
                           "can be indexed", expr.span, "index a json value: <str>item['name']")
        return None
    key = exprs.check(expr.key, ctx)
    if key is None:
        return None
    if key.type.family not in ("str", "num") or key.type.element is not None:
        ctx.reporter.error("E0304", f"a json index is a str or an integer, got {key.type.name}", expr.key.span)
        return None
    return qir.JsonIndex(expr.span, base.type, True, base, key)


def _literal(expr: ast.Literal, ctx: exprs.ExprContext, expected: Optional[ValueType]) -> Optional[qir.Expr]:
    if expr.kind == "str":
        if "\0" in expr.value:  # type: ignore[operator]
            ctx.reporter.error("E0102", "string literals cannot contain NUL characters", expr.span)
            return None
        return qir.Literal(expr.span, e_types.STR, False, "str", expr.value)
    if expr.kind == "bool":
        return qir.Literal(expr.span, e_types.BOOL, False, "bool", expr.value)
    if expr.kind == "int":
        typ = expected if expected is not None and expected.family == "num" else e_types.INT64
        return qir.Literal(expr.span, typ, False, "int", expr.value)
    if expr.kind == "float":
        # (a float literal is a float64; it takes a float type the context expects, never an
        # integer's: math::abs(2.5) is 2.5, https://docs.geldata.com/reference/edgeql/literals)
        typ = expected if expected is not None and expected.scalar is not None and expected.element is None \
            and expected.scalar.name in ("float32", "float64") else e_types.FLOAT64
        return qir.Literal(expr.span, typ, False, "float", expr.value)
    if expr.kind in ("bigint", "decimal"):
        # 12n is a bigint, 1.5n a decimal (https://docs.geldata.com/reference/edgeql/literals); a
        # bigint converts to a decimal implicitly, neither to any other number
        fits = ("bigint", "decimal") if expr.kind == "bigint" else ("decimal",)
        typ = expected if expected is not None and expected.scalar is not None and expected.element is None \
            and expected.scalar.name in fits else ValueType(scalar=SCALARS[expr.kind])
        return qir.Literal(expr.span, typ, False, "numeric", expr.value)
    raise AssertionError(expr.kind)  # pragma: no cover


def _enum_ref(expr: ast.EnumRef, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    if expr.enum in ctx.free_rows and expr.enum not in ctx.variables:
        rows = ctx.free_rows[expr.enum]
        fields = dict(rows.fields)  # type: ignore[attr-defined]
        if not rows.first:  # type: ignore[attr-defined]
            ctx.reporter.error("E0206", f"'{expr.enum}' is a set of free objects: reading '{expr.enum}.{expr.member}' "
                               "is supported of one of them yet", expr.span,
                               f"bind one: with first := (select {expr.enum} order by .{expr.member} limit 1)")
            return None
        if expr.member not in fields:
            ctx.reporter.error("E0302", f"'{expr.enum}' has no field '{expr.member}'", expr.member_span,
                               did_you_mean(expr.member, list(fields)))
            return None
        return qir.FreeRowField(expr.span, fields[expr.member].type, True, rows, expr.member)  # type: ignore[arg-type]
    enum = None if expr.enum in ctx.variables or expr.enum in ctx.type_sets else ctx.schema.find_enum(expr.enum, ctx.module)
    if enum is None and expr.enum in ctx.type_sets and expr.member == "id":
        # `u.id` of `with u := (select User filter ...)`: the id of its one object
        return exprs.check(ctx.type_sets[expr.enum], ctx)
    if enum is None and e_objects._var_object(expr.enum, ctx) is not None:
        return e_objects._var_object_path(expr.enum, (expr.member,), expr.span, ctx)
    if enum is None and e_objects._pinned_selection(expr.enum, ctx):
        return e_objects._pinned_set_path(ast.VarRef(expr.enum, expr.span), (expr.member,), expr.span, ctx)
    var = ctx.variables.get(expr.enum) if enum is None else None
    if isinstance(var, qir.LoopVar) and var.elements is not None:
        # `x.name` of a loop over an array of named tuples: that element's column
        return e_paths._loop_element(ast.Step(ast.VarRef(expr.enum, expr.span), expr.member, ".", expr.span), var, ctx)
    if enum is None and (expr.enum in ctx.variables or expr.enum in ctx.type_sets):
        ctx.reporter.error("E0206", f"a path from the 'with' name '{expr.enum}' ('{expr.enum}.{expr.member}') is not "
                           "supported yet", expr.span)
        return None
    if enum is None and expr.enum in ctx.bound_statements:
        # `with a := (insert ...) select a.id`: valid Gel, not an unknown enum
        ctx.reporter.error("E0206", f"a path from the bound statement '{expr.enum}' ('{expr.enum}.{expr.member}') is "
                           "not supported yet", expr.span,
                           f"select it with a shape: select {expr.enum} {{ {expr.member} }}")
        return None
    if enum is None:
        cands = [e.name for e in ctx.schema.all_enums()]
        named = ctx.schema.find_type(expr.enum, ctx.module)
        if named is not None and (named is ctx.subject or named.qualname == ctx.subject_as) and ctx.params is not None \
                and not (
                ctx.detached_subject and ctx.outer is not None and named is ctx.outer[0]):
            # `select User ... filter User.name = ...`: the selected type's own path, as `.name`
            # (https://docs.geldata.com/reference/edgeql/paths).
            return e_paths._path(ast.Path((expr.member,), expr.span), ctx)
        if named is not None and ctx.outer is not None and named is ctx.outer[0]:
            # In a computed of `Message`, `Message.author_id` is the object the computed is
            # evaluated for (Gel binds the source type's path to it), also inside a sub-select.
            outer = dataclasses.replace(ctx, subject=ctx.outer[0], column_prefix=ctx.outer[1], outer=None,
                                        detached_subject=False)
            return e_paths._path(ast.Path((expr.member,), expr.span), outer)
        if named is not None:
            # `User.handle` where `User` is not the object at hand: the set of that property of
            # every User object (https://docs.geldata.com/reference/edgeql/paths), not a link
            msg = (f"'{expr.enum}.{expr.member}' is the '{expr.member}' of every {expr.enum} object, a set: using it "
                   "as a value here is not supported yet")
            ctx.reporter.error("E0206", msg, expr.span,
                               f"aggregate it (count({expr.enum}.{expr.member}), array_agg({expr.enum}.{expr.member})), "
                               f"or select it in a query of its own: select {expr.enum}.{expr.member}")
        else:
            ctx.reporter.error("E0201", f"unknown enum '{expr.enum}'", expr.span, did_you_mean(expr.enum, cands))
        return None
    if expr.member not in enum.members:
        ctx.reporter.error("E0203", f"enum '{enum.name}' has no member '{expr.member}'", expr.member_span,
                           did_you_mean(expr.member, enum.members))
        return None
    return qir.EnumMember(expr.span, ValueType(enum=enum), False, enum, expr.member)
