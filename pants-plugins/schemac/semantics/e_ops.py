"""Operators: unary and binary, ``in``, ``??``, comparisons, arithmetic and its
result types, casts (https://docs.geldata.com/reference/stdlib/generic).

Part of the expression checker (:mod:`schemac.semantics.exprs`), split by concern."""

from __future__ import annotations
import dataclasses
import re
from typing import Optional
from schemac.semantics import computed_sql, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import did_you_mean
from schemac.frozen import fast_init_all
from schemac.semantics.model import ValueType
from schemac.semantics.sqlnames import qi
from schemac.semantics.scalars import ISO_DATETIME, SCALARS, range_kind
from schemac.semantics import e_aggregates, e_funcs, e_objects, e_types, exprs


def _any_all(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``any(.tags.name = x)`` / ``all(...)`` of a set of bools
    (https://docs.geldata.com/reference/stdlib/set#function::std::any): whether one / every
    element is true; ``any`` of the empty set is false, ``all`` of it true. Paths through multi
    links in the argument are read in a scope of its own (each ``any`` its own linked objects):
    ``EXISTS (SELECT 1 FROM <links> WHERE cond)``, ``NOT EXISTS (... WHERE (cond) IS FALSE)``;
    an argument of one value is ``coalesce(x, false)`` / ``coalesce(x, true)``."""
    arg = expr.args[0]
    if isinstance(arg, ast.BinOp) and arg.op in ("in", "not in") and ctx.subject is not None \
            and (computed_sql.is_set_operand(arg.left, ctx) or computed_sql.link_set_of(arg.left, ctx) is not None
                 or (isinstance(arg.left, ast.Path) and len(arg.left.steps) == 1
                     and arg.left.steps[0] in ctx.subject.links and ctx.subject.links[arg.left.steps[0]].multi)) \
            and computed_sql.query_set_target(arg.right, ctx) is not None:
        # `any(.edges.media in medias)`, `any(.messages in ms)`: one (every) object the path (the
        # multi link) reaches is one of the set's
        objects = computed_sql.expr_object_set(arg.left, ctx, qi(f"_y{ctx.depth}"), arg.left.span)
        others = computed_sql.query_set(arg.right, ctx, qi(f"_i{ctx.depth}"))
        if objects is None or others is None:
            return None
        if computed_sql.query_set_target(arg.right, ctx) is not objects.source:
            ctx.reporter.error("E0304", f"'{arg.op}' compares {objects.source.name} objects with "
                               f"{others.source.name} objects", arg.span)
            return None
        col = objects.source.column("id")
        own = qir.ColumnRef(arg.span, col.type, False, col, objects.source, None, objects.alias)  # type: ignore[arg-type,union-attr]
        negate = (arg.op == "not in") != (name == "all")
        test = qir.InObjects(arg.span, e_types.BOOL, False, own, others, negate)
        both = test if objects.filter is None else qir.Binary(arg.span, e_types.BOOL, True, "and", objects.filter, test)
        found = qir.ExistsObjects(expr.span, e_types.BOOL, False, dataclasses.replace(objects, filter=both))
        return found if name == "any" else qir.Call(expr.span, e_types.BOOL, False, "all/none_fails", (found,))
    if ctx.subject is not None:
        row = ctx.column_prefix or qi(ctx.subject.table)
        scope = dataclasses.replace(ctx, set_links={}, set_row=(ctx.subject, row), column_prefix=row)
    else:
        scope = ctx
    low = exprs.check(expr.args[0], scope, e_types.BOOL)
    if low is None:
        return None
    if low.type.family != "bool" or low.type.element is not None:
        ctx.reporter.error("E0304", f"{name}() needs a set of bool, got {low.type.name}", expr.args[0].span)
        return None
    if scope.set_links:
        sets = tuple(scope.set_links.values())
        if name == "any":
            return qir.SetFilter(expr.span, e_types.BOOL, False, sets, low)  # type: ignore[arg-type]
        falsified = qir.Call(low.span, e_types.BOOL, False, "is_false", (low,))
        exists = qir.SetFilter(expr.span, e_types.BOOL, False, sets, falsified)  # type: ignore[arg-type]
        return qir.Call(expr.span, e_types.BOOL, False, "all/none_fails", (exists,))
    return qir.Call(expr.span, e_types.BOOL, False, name + "/one", (low,))


def _assert_exists(expr: ast.FuncCall, value, message: Optional[str], ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``assert_exists(x[, message := '...'])`` of one value or object (``.owner =
    assert_exists(player)``): ``x``, and when it is empty the statement fails with Gel's
    message (https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists:
    "assert_exists violation: expression returned an empty set", a CardinalityViolationError)
    or the one given, by a cast that fails (:mod:`schemac.semantics.asserts`); never empty.
    The call ``assert_exists``, its message a constant."""
    arg = exprs.check(value, ctx)
    if arg is None:
        return None
    if not arg.nullable:
        return arg
    if arg.type.element is not None or arg.type.family in ("vector",) or arg.type.fields is not None:
        ctx.reporter.error("E0206", f"assert_exists() of a {arg.type.name} value is not supported yet", expr.span)
        return None
    return qir.Call(expr.span, arg.type, False, "assert_exists", (arg,), (message,))


def _assert_distinct(expr: ast.FuncCall, value, message: Optional[str], ctx: exprs.ExprContext):
    """``assert_distinct(S[, message := '...'])`` of a set of values written in the query
    (``{1, 2}``, ``array_unpack(...)``, their union) or of a multi property (``.nicknames``)
    (https://docs.geldata.com/reference/stdlib/set#function::std::assert_distinct): the set, as
    the array of its elements, and when a value is in it twice the statement fails with Gel's
    message ("assert_distinct violation: expression returned a set with duplicate elements", a
    ConstraintViolationError) or the one given (:mod:`schemac.semantics.asserts`): the call
    ``assert_distinct``, its message a constant. ``None`` for another set; ``False`` after
    reporting."""
    arr = e_funcs.value_set_array(value, ctx)
    if arr is False:
        return False
    if arr is None and isinstance(value, ast.Path) and len(value.steps) == 1 and ctx.subject is not None:
        col = ctx.subject.column(value.steps[0])
        if col is None or not col.multi or col.link is not None:
            return None
        arr = exprs.check(value, ctx)
        if arr is None:
            return False
    if arr is None:
        return None
    return qir.Call(expr.span, arr.type, arr.nullable, "assert_distinct", (arr,), (message,))


def _contains(expr: ast.FuncCall, ctx: exprs.ExprContext):
    """``contains(haystack, needle)`` of a str, bytes or array
    (https://docs.geldata.com/reference/stdlib/string#function::std::contains,
    .../stdlib/array#function::std::contains): whether the string holds the substring
    (``strpos(h, n) > 0``; every string holds ''), the bytes the byte string
    (``position(n IN h) > 0``), the array the element (``n = ANY(h)``); empty when either
    argument is. ``False`` when the haystack is a range or multirange (:func:`_range_func`
    reads it), ``None`` after reporting."""
    first = exprs.check(expr.args[0], ctx)
    if first is None:
        return None
    elem = first.type.element
    if elem is None and first.type.family not in ("str", "bytes"):
        return False
    second = exprs.check(expr.args[1], ctx, elem if elem is not None else first.type)
    if second is None:
        return None
    want = elem if elem is not None else first.type
    if second.type.family != want.family or second.type.element is not None:
        ctx.reporter.error("E0304", f"contains() cannot take {first.type.name} and {second.type.name}", expr.span,
                           f"the needle of a {first.type.name} is a {want.name}")
        return None
    kind = "array" if elem is not None else first.type.family
    return qir.Call(expr.span, e_types.BOOL, first.nullable or second.nullable, "contains/" + kind, (first, second))


def _json_get(expr: ast.FuncCall, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``json_get(j, 'a', 'b')`` (https://docs.geldata.com/reference/stdlib/json#function::std::json_get):
    the json value at that path (object keys, or array indexes as strings), empty when there is
    none: ``jsonb_extract_path(j, 'a', 'b')``; with ``default := d``, ``d`` when there is none:
    ``coalesce(jsonb_extract_path(...), d)``, and empty when ``j`` or a path element is empty
    (they are not optional in Gel's signature: ``json_get(<optional json>$doc, 'a', default := d)``
    with ``$doc`` omitted is ``{}``, not ``d``)."""
    named = [a for a in expr.args if isinstance(a, ast.NamedArg)]
    positional = [a for a in expr.args if not isinstance(a, ast.NamedArg)]
    if len(positional) < 2 or any(a.name != "default" for a in named) or len(named) > 1:
        ctx.reporter.error("E0304", "json_get() takes a json value, one or more path elements and an optional "
                           "default := <json value>", expr.span)
        return None
    json_type = ValueType(scalar=SCALARS["json"])
    default = None
    if named:
        default = exprs.check(named[0].value, ctx, json_type)
        if default is None:
            return None
        if default.type.family != "json" or default.type.element is not None:
            ctx.reporter.error("E0304", f"json_get()'s default must be json, got {default.type.name}",
                               named[0].value.span, "cast it: default := <json>'none'")
            return None
    args = []
    for i, a in enumerate(positional):
        low = exprs.check(a, ctx, json_type if i == 0 else e_types.STR)
        if low is None:
            return None
        want = "json" if i == 0 else "str"
        if low.type.family != want:
            ctx.reporter.error("E0304", f"json_get() needs a {want} {'value' if i == 0 else 'path element'}, got "
                               f"{low.type.name}", a.span)
            return None
        args.append(low)
    if default is not None:
        # Gel's json_get(..., default := d): the value at the path, or d when there is none
        # (the json value and the path are not optional: an empty one makes the result empty,
        # the default only stands for a missing path)
        return qir.Call(expr.span, json_type, default.nullable or any(a.nullable for a in args), "json_get/default",
                        (*args, default))
    return qir.Call(expr.span, json_type, True, "json_get", tuple(args))


def _unary(expr: ast.UnaryOp, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    if expr.op not in ("exists", "not", "-"):
        ctx.reporter.error("E0206", f"'{expr.op}' is not supported in {ctx.where} yet", expr.span)
        return None
    if expr.op == "exists" and isinstance(expr.operand, ast.FuncCall) \
            and expr.operand.name in ("fts::search", "std::fts::search"):
        return e_funcs._fts_search(expr.operand, "fts::search", ctx, True)  # (a match or not: Gel's empty set when none)
    if expr.op == "exists":
        op = expr.operand
        if isinstance(op, ast.Path) and len(op.steps) == 1 and ctx.subject is not None \
                and op.steps[0] in ctx.subject.poly_links:
            # a polymorphic link: one of its columns set (single), a join row (multi)
            # (an object the target's access policies hide is none: policies.join_row_visible)
            from schemac.semantics import policies

            pl = ctx.subject.poly_links[op.steps[0]]
            row = ctx.column_prefix or qi(ctx.subject.table)
            if pl.multi:
                return qir.LinkRowExists(expr.span, e_types.BOOL, False, row, pl.join_table, qi("_x"), (),
                                         policies.join_row_visible(None, ctx, qi("_x"), pl))
            return qir.LinkRowExists(expr.span, e_types.BOOL, False, row, None, "", tuple(c for _, c in pl.targets),
                                     policies.join_row_visible(None, ctx, row, pl))
        link = ctx.subject.links.get(op.steps[0]) \
            if isinstance(op, ast.Path) and len(op.steps) == 1 and ctx.subject is not None else None
        if link is not None and link.column is None and link.join_table is not None:
            # `exists .bs` of a multi link (https://docs.geldata.com/reference/stdlib/set#operator::exists):
            # a join row of the subject, as count(.bs) counts them
            from schemac.semantics import policies

            row = ctx.column_prefix or qi(ctx.subject.table)  # type: ignore[union-attr]
            alias = qi(f"_j{ctx.depth}")
            return qir.LinkRowExists(expr.span, e_types.BOOL, False, row, link.join_table, alias, (),
                                     policies.join_row_visible(link, ctx, alias))
        if computed_sql.type_set_of(expr.operand, ctx) is not None:
            # `exists User`, `exists (select User filter ...)`
            objects = computed_sql.type_set(expr.operand, ctx, qi(f"_e{ctx.depth}"))
            return None if objects is None else qir.ExistsObjects(expr.span, e_types.BOOL, False, objects)
        if e_objects._set_operand(expr.operand, ctx) is not None:
            inner, scope = e_objects._set_operand(expr.operand, ctx)  # type: ignore[misc]
            return e_objects._set_function(inner, scope, True)
        if isinstance(op, ast.Path) and len(op.steps) == 2 and ctx.subject is not None \
                and op.steps[0] in ctx.subject.links and ctx.subject.links[op.steps[0]].column is None \
                and ctx.subject.links[op.steps[0]].target.column(op.steps[1]) is not None \
                and op.steps[1] not in ctx.subject.links[op.steps[0]].target.links:
            # `exists .messages.noindex`: whether one linked object has a value
            # (https://docs.geldata.com/reference/stdlib/set#operator::exists), over the links in a
            # scope of its own: EXISTS (... WHERE <path> IS NOT NULL)
            row = ctx.column_prefix or qi(ctx.subject.table)
            scope = dataclasses.replace(ctx, set_links={}, set_row=(ctx.subject, row), column_prefix=row)
            value = exprs.check(op, scope)
            if value is None:
                return None
            cond = qir.Unary(expr.span, e_types.BOOL, False, "exists", value)
            return qir.SetFilter(expr.span, e_types.BOOL, False, tuple(scope.set_links.values()), cond)  # type: ignore[union-attr]
        if e_aggregates._query_set_operand(expr.operand, ctx):
            # `exists rolls.received`, `exists (select s filter ...)` of a query's names
            objects = computed_sql.query_set(expr.operand, ctx, qi(f"_e{ctx.depth}"))
            return None if objects is None else qir.ExistsObjects(expr.span, e_types.BOOL, False, objects)
        if computed_sql.is_set_operand(expr.operand, ctx):
            objects = computed_sql.expr_object_set(expr.operand, ctx, qi(f"_e{ctx.depth}"), expr.operand.span)
            return None if objects is None else qir.ExistsObjects(expr.span, e_types.BOOL, False, objects)
        if computed_sql.link_set_of(expr.operand, ctx) is not None:
            objects = computed_sql.object_set_of(expr.operand, ctx, f"_e{ctx.depth}")
            return None if objects is None else qir.ExistsObjects(expr.span, e_types.BOOL, False, objects)
        inner = exprs.check(expr.operand, ctx, None)
        if inner is None:
            return None
        comp = ctx.subject.computeds.get(op.steps[0]) \
            if isinstance(op, ast.Path) and len(op.steps) == 1 and ctx.subject is not None else None
        if (comp is not None and comp.multi and comp.target is None) or \
                (type(inner) is qir.ColumnRef and inner.column.multi):  # type: ignore[attr-defined]
            # a multi property or a computed set of values (`.tags.name`), read as their
            # array: one value at least (an array property exists when it is set, even empty)
            return qir.Call(expr.span, e_types.BOOL, False, "exists/array", (inner,))
        return qir.Unary(expr.span, e_types.BOOL, False, "exists", inner)
    if expr.op == "not":
        inner = exprs.check(expr.operand, ctx, e_types.BOOL)
        if inner is None:
            return None
        if inner.type.family != "bool":
            ctx.reporter.error("E0304", f"'not' needs a bool operand, got {inner.type.name}", expr.operand.span)
            return None
        return qir.Unary(expr.span, e_types.BOOL, inner.nullable, "not", inner)
    inner = exprs.check(expr.operand, ctx, None)
    if inner is None:
        return None
    if inner.type.family != "num":
        ctx.reporter.error("E0304", f"unary '-' needs a number, got {inner.type.name}", expr.operand.span)
        return None
    return qir.Unary(expr.span, inner.type, inner.nullable, "-", inner)


def _pair(expr: ast.BinOp, ctx: exprs.ExprContext):
    """Check both operands; an untyped parameter takes its type from the other side."""
    def untyped_param(e):
        return isinstance(e, ast.Param) and e.type is None

    if untyped_param(expr.left) and not untyped_param(expr.right):
        right = exprs.check(expr.right, ctx)
        # `$p ?? fallback`: the parameter may be omitted, that is what '??' is for.
        left = exprs.check(expr.left, ctx, right.type if right else None, allow_optional_param=expr.op == "??")
    else:
        left = exprs.check(expr.left, ctx)
        right = exprs.check(expr.right, ctx, left.type if left else None)
    return left, right


#: Left-associative operators: chains of them are checked iteratively (see :func:`_binop`).
_CHAINED = frozenset({"and", "or", "+", "-", "*", "/", "%", "//", "++", "??"})
#: Chains the lowering writes flat or balanced (a run of ``and``, of ``or``; ``++``), not nested.
_FLAT_IN_SQL = frozenset({"and", "or", "++"})
#: The most operators of a chain the lowering nests one in another (``((a + b) + c) + ...``):
#: Postgres analyses such an expression recursively, and a 5,000-term ``+`` chain exceeds its
#: stack (``max_stack_depth``, 2MB by default: "stack depth limit exceeded"; 3,000 terms ran on
#: Postgres 15); a longer one is E0103 at its start. (Gel lowers ``+`` to the same nested SQL.)
MAX_CHAIN_NESTING = 1000


def _binop(expr: ast.BinOp, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """Check a binary operator. A left-associative chain (``a or b or c ...``, ``a + b + ...``)
    is a left-deep tree; it is walked down its left spine with a loop, not with recursion, so
    chains of any length compile without deep Python stacks."""
    if expr.op == "^":
        return _power(expr, ctx)
    if expr.op not in exprs._LOWERED_BINOPS:
        # (EdgeQL operators the grammar reads but nothing lowers yet: ^ // union except ...)
        ctx.reporter.error("E0206", f"the operator '{expr.op}' is not supported in {ctx.where} yet", expr.span)
        return None
    spine = [expr]
    while isinstance(spine[-1].left, ast.BinOp) and spine[-1].left.op in _CHAINED:
        spine.append(spine[-1].left)
    nested = sum(1 for i, n in enumerate(spine) if n.op not in _FLAT_IN_SQL or
                 (n.op != "++" and i + 1 < len(spine) and spine[i + 1].op != n.op))
    if nested > MAX_CHAIN_NESTING:
        ctx.reporter.error("E0103", f"a chain of {nested} operators ('{spine[-1].op}', ...) is more than Postgres "
                           f"can evaluate (it nests each one in the last, and its stack, max_stack_depth, ends "
                           f"after a few thousand); at most {MAX_CHAIN_NESTING} are compiled",
                           spine[-1].span, "compute the parts in several expressions (or in with bindings)")
        return None
    low = _binop_step(spine.pop(), ctx, None)
    for node in reversed(spine):
        if low is None:
            return None
        low = _binop_step(node, ctx, low)
    return low


def _binop_step(expr: ast.BinOp, ctx: exprs.ExprContext, left: Optional[qir.Expr]) -> Optional[qir.Expr]:
    """One operator; ``left`` is its already checked left operand, or ``None``."""
    op = expr.op
    if op in ("and", "or"):
        if left is None:
            left = exprs.check(expr.left, ctx, e_types.BOOL)
        right = exprs.check(expr.right, ctx, e_types.BOOL)
        if left is None or right is None:
            return None
        for side, e in ((left, expr.left), (right, expr.right)):
            if side.type.family != "bool":
                ctx.reporter.error("E0304", f"'{op}' needs bool operands, got {side.type.name}", e.span)
                return None
        return qir.Binary(expr.span, e_types.BOOL, left.nullable or right.nullable, op, left, right)
    if left is None:
        left, right = _pair(expr, ctx)
    else:
        right = exprs.check(expr.right, ctx, left.type)
    if left is None or right is None:
        return None
    nullable = left.nullable or right.nullable
    if op in exprs._CMP:
        if left.type.family != right.type.family:
            ctx.reporter.error("E0304", f"cannot compare {left.type.name} with {right.type.name} using '{op}'",
                               expr.span, _cast_hint(left.type, right.type))
            return None
        if op in ("like", "ilike", "not like", "not ilike") and left.type.family != "str":
            ctx.reporter.error("E0304", f"'{op}' needs str operands, got {left.type.name}", expr.span)
            return None
        if op in ("?=", "?!="):
            nullable = False
        return qir.Binary(expr.span, e_types.BOOL, nullable, op, left, right)
    if op == "++" and (left.type.element is not None or right.type.element is not None):
        # array ++ array (https://docs.geldata.com/reference/stdlib/array#operator::arrayplus):
        # Postgres' || keeps the other array when one is NULL; Gel's ++ of an empty set is empty.
        if left.type.family != right.type.family:
            ctx.reporter.error("E0304", f"'++' needs operands of one type, got {left.type.name} and {right.type.name}",
                               expr.span)
            return None
        return qir.Call(expr.span, left.type, nullable, "++/array", (left, right))
    if op == "++" and left.type.family == right.type.family == "bytes":
        # bytes ++ bytes (https://docs.geldata.com/reference/stdlib/bytes#operator::bytesplus)
        return qir.Call(expr.span, left.type, nullable, "++/bytes", (left, right))
    if op == "++" and left.type.family == right.type.family == "json":
        # json ++ json (https://docs.geldata.com/reference/stdlib/json#operator::jsonplus): two
        # arrays or two objects as Postgres' jsonb || (an object's keys from the right win),
        # two strings as one string; any other pair fails the statement with Gel's message.
        return qir.Call(expr.span, left.type, nullable, "++/json", (left, right))
    if op == "++":
        if left.type.family != "str" or right.type.family != "str":
            ctx.reporter.error("E0304", f"'++' needs str operands, got {left.type.name} and {right.type.name}",
                               expr.span)
            return None
        return qir.Binary(expr.span, e_types.STR, nullable, op, left, right)
    if op == "??":
        if left.type.family != right.type.family:
            ctx.reporter.error("E0304", f"'??' operands differ: {left.type.name} and {right.type.name}", expr.span)
            return None
        return qir.Binary(expr.span, left.type, left.nullable and right.nullable, op, left, right)
    if op in ("+", "-") and (left.type.family, op, right.type.family) in exprs._TEMPORAL:
        result = exprs._TEMPORAL[(left.type.family, op, right.type.family)]
        return qir.Call(expr.span, ValueType(scalar=SCALARS[result]), nullable,
                        f"{op}/{left.type.family}/{right.type.family}", (left, right))
    if op in exprs._ARITH:
        if left.type.family != "num" or right.type.family != "num":
            ctx.reporter.error("E0304", f"'{op}' needs numbers, got {left.type.name} and {right.type.name}",
                               expr.span)
            return None
        result = arith_result(op, _num_operand_type(left), _num_operand_type(right))
        if result is None:
            ctx.reporter.error("E0304", f"'{op}' cannot mix {left.type.name} and {right.type.name} "
                               "(Gel has no implicit cast between them)", expr.span,
                               "cast one operand explicitly, e.g. <float64>x or <decimal>x")
            return None
        if result == "":  # not a standard numeric scalar (kept as before: the left operand's type)
            return qir.Binary(expr.span, left.type, nullable, op, left, right)
        same = next((x.type for x in (left, right) if type(x) is not qir.Literal and _num_operand_type(x) == result),
                    None)
        return qir.Binary(expr.span, same or ValueType(scalar=SCALARS[result]), nullable, op, left, right)
    raise AssertionError(op)  # pragma: no cover


def _power(expr: ast.BinOp, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``a ^ b`` (https://docs.geldata.com/reference/stdlib/numbers#operator::pow): the operands
    meet at their common type as for ``+``; integers give ``float64`` (``2 ^ -1`` is 0.5),
    ``float32`` a ``float32``, ``bigint`` and ``decimal`` a ``decimal``, as Gel's operators are
    typed. Postgres' ``power()`` in the matching type (it fails as Gel's does on ``0 ^ -1``)."""
    left, right = _pair(expr, ctx)
    if left is None or right is None:
        return None
    if left.type.family != "num" or right.type.family != "num" or left.type.element is not None \
            or right.type.element is not None:
        ctx.reporter.error("E0304", f"'^' needs numbers, got {left.type.name} and {right.type.name}", expr.span)
        return None
    common = arith_result("^", _num_operand_type(left), _num_operand_type(right))
    if common is None or common == "":
        ctx.reporter.error("E0304", f"'^' cannot mix {left.type.name} and {right.type.name} "
                           "(Gel has no implicit cast between them)", expr.span,
                           "cast one operand explicitly, e.g. <float64>x or <decimal>x")
        return None
    result = "decimal" if common in ("bigint", "decimal") else "float32" if common == "float32" else "float64"
    return qir.Call(expr.span, ValueType(scalar=SCALARS[result]), left.nullable or right.nullable, "^", (left, right))


#: Gel's implicit numeric casts (https://docs.geldata.com/reference/stdlib/numbers,
#: https://docs.geldata.com/reference/stdlib/casts): int16 -> int32 -> int64 -> bigint -> decimal,
#: int16 -> float32 -> float64, int32 -> float64, int64 -> float64. An arithmetic operator's
#: operands meet at their nearest common type; float and bigint/decimal do not meet.
_IMPLICIT_NUM = {
    "int16": ("int32", "float32"),
    "int32": ("int64", "float64"),
    "int64": ("bigint", "float64"),
    "bigint": ("decimal",),
    "float32": ("float64",),
    "float64": (),
    "decimal": (),
}


def _num_reach(name: str) -> frozenset:
    seen = {name}
    todo = [name]
    while todo:
        for n in _IMPLICIT_NUM[todo.pop()]:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return frozenset(seen)


def arith_result(op: str, left: str, right: str) -> Optional[str]:
    """The scalar an arithmetic operator ``op`` returns for operands of the numeric scalars
    ``left`` and ``right``, as Gel types it (https://docs.geldata.com/reference/stdlib/numbers):
    the operands' nearest common type (``int32 + int64`` is ``int64``), except ``/``, which on
    integers is ``float64`` (``10 / 4`` is ``2.5``) and on ``bigint`` is ``decimal``; ``//`` and
    ``%`` keep the common type. ``None`` when the operands have no common type (a float with a
    ``bigint`` or ``decimal``); ``""`` when either is not a standard numeric scalar."""
    if left not in _IMPLICIT_NUM or right not in _IMPLICIT_NUM:
        return ""
    common = _num_reach(left) & _num_reach(right)
    best = next((c for c in common if _num_reach(c) >= common), None)
    if best is None:
        return None
    if op == "/":
        if best in ("int16", "int32", "int64"):
            return "float64"
        if best == "bigint":
            return "decimal"
    return best


def _num_operand_type(x: qir.Expr) -> str:
    """An operand's scalar for :func:`arith_result`; an integer literal is Gel's ``int64`` and a
    float literal ``float64`` whatever the other operand (``<int32>$x + 1`` is ``int64``)."""
    if type(x) is qir.Literal:
        if x.kind == "int":  # type: ignore[attr-defined]
            return "int64"
        if x.kind == "float":  # type: ignore[attr-defined]
            return "float64"
    t = x.type
    return t.scalar.name if t.scalar is not None and t.element is None and t.enum is None else ""


def _in(expr: ast.BinOp, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``x in {a, b}``; ``x in $arr`` (an array)."""
    left = exprs.check(expr.left, ctx)
    if left is None:
        return None
    negate = expr.op == "not in"
    if isinstance(expr.right, ast.SetLit):
        if not expr.right.items:
            return qir.InSet(expr.span, e_types.BOOL, False, left, (), negate)
        items = []
        for item in expr.right.items:
            low = exprs.check(item, ctx, left.type)
            if low is None:
                return None
            if low.type.family != left.type.family:
                ctx.reporter.error("E0304", f"'{expr.op}' compares {left.type.name} with {low.type.name}", item.span)
                return None
            items.append(low)
        return qir.InSet(expr.span, e_types.BOOL, left.nullable, left, tuple(items), negate)
    right_expr = expr.right
    member = _in_multi_link(expr, left, negate, ctx)
    if member is not None:
        return member or None
    comp = ctx.subject.computeds.get(right_expr.steps[0]) if ctx.subject is not None and isinstance(
        right_expr, ast.Path) and len(right_expr.steps) == 1 else None
    if comp is not None and comp.target is not None:
        return _in_computed_link(expr, left, comp, negate, ctx)
    if computed_sql.query_value_target(right_expr, ctx):
        return _in_values(expr, left, negate, ctx)
    if computed_sql.query_set_target(right_expr, ctx) is not None and not isinstance(right_expr, ast.FuncCall):
        # `.character in charas` of a set of objects (https://docs.geldata.com/reference/edgeql/sets):
        # whether the object is one of them; `x in {}` of an empty set is false
        target = computed_sql.query_set_target(right_expr, ctx)
        link = getattr(left, "link", None) if type(left) is qir.ColumnRef else None
        if left.type.family != "uuid" or left.type.element is not None or (link is not None and link.target
                                                                          is not target):
            ctx.reporter.error("E0304", f"'{expr.op}' compares {link.target.name if link is not None else left.type.name}"
                               f" with {target.name} objects", expr.span)  # type: ignore[union-attr]
            return None
        objects = computed_sql.query_set(right_expr, ctx, qi(f"_i{ctx.depth}"))
        if objects is None:
            return None
        return qir.InObjects(expr.span, e_types.BOOL, left.nullable, left, objects, negate)
    if isinstance(right_expr, ast.VarRef) and right_expr.name not in ctx.variables \
            and isinstance(ctx.type_sets.get(right_expr.name), ast.FuncCall):
        right_expr = ctx.type_sets[right_expr.name]  # with ids := array_unpack(...) ... in ids
    if not isinstance(right_expr, ast.FuncCall) and e_funcs.value_set_parts(right_expr, ctx) is not None:
        # `x in xs` of `with xs := {'a', 'b'}`, `x in {'a'} union array_unpack(arr)`: one of
        # the set's values (https://docs.geldata.com/reference/stdlib/set#operator::in)
        arr = e_funcs.value_set_array(right_expr, ctx)
        if arr is None or arr is False:
            if arr is False:
                return None
        elif arr.type.element.family != left.type.family:  # type: ignore[attr-defined, union-attr]
            ctx.reporter.error("E0304", f"'{expr.op}' compares {left.type.name} with {arr.type.element.name} values",
                               expr.span)  # type: ignore[union-attr]
            return None
        else:
            return qir.InArray(expr.span, e_types.BOOL, left.nullable, left, arr, negate)
    if isinstance(right_expr, ast.FuncCall) and right_expr.name in ("array_unpack", "std::array_unpack") \
            and len(right_expr.args) == 1:
        # `x in array_unpack(arr)`: x is one of the array's elements (Gel's arrays hold no
        # empty elements), `x = ANY (arr)`; none of an empty array
        # (https://docs.geldata.com/reference/stdlib/array#function::std::array_unpack).
        right_expr = right_expr.args[0]
    right = exprs.check(right_expr, ctx, ValueType(element=left.type))
    if right is None:
        return None
    if right.type.element is None or right.type.element.family != left.type.family:
        ctx.reporter.error("E0304", f"the right side of '{expr.op}' must be a set {{...}} or an array of "
                           f"{left.type.name}, got {right.type.name}", expr.right.span)
        return None
    return qir.InArray(expr.span, e_types.BOOL, left.nullable, left, right, negate)


def _in_values(expr: ast.BinOp, left: qir.Expr, negate: bool, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``x in S.p`` of a property of each object of a set of the query's names
    (``.id_al in waifus.character.id_al``, ``waifus`` a ``with`` selection): whether ``x`` is one
    of their values (https://docs.geldata.com/reference/edgeql/sets: the path is the set of the
    values of the distinct objects it reaches; an empty value is none), :class:`qir.InValues`."""
    found = computed_sql._object_path(expr.right, ctx, f"_i{ctx.depth}")
    if not found:
        return None
    objects, rest = found
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                set_links=None, set_row=None)
    value = exprs.check(ast.Path(tuple(rest), expr.right.span), inner)
    if value is None:
        return None
    if value.type.element is not None or left.type.element is not None or value.type.family != left.type.family:
        ctx.reporter.error("E0304", f"'{expr.op}' compares {left.type.name} with {value.type.name} values", expr.span)
        return None
    return qir.InValues(expr.span, e_types.BOOL, left.nullable, left, objects, value, negate)


def _in_computed_link(expr: ast.BinOp, left: qir.Expr, comp, negate: bool, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``x in .tracked`` of a computed link of the subject (a backlink, a union of paths, ...,
    https://docs.geldata.com/reference/datamodel/computeds): whether the object ``x`` (its id) is
    one of the link's objects (those the query may see), ``x IN (SELECT "id" FROM <the link's
    objects>)``; empty when ``x`` is, as Gel's ``{} in S``."""
    if computed_sql.refuse_computed(comp, expr.right.span, ctx.reporter):
        return None
    link = getattr(left, "link", None) if type(left) is qir.ColumnRef else None
    if left.type.family != "uuid" or left.type.element is not None or (link is not None and link.target
                                                                      is not comp.target):
        ctx.reporter.error("E0304", f"'{expr.op}' compares {link.target.name if link is not None else left.type.name}"
                           f" with {comp.target.name} objects", expr.span)
        return None
    objects = computed_sql.object_set(comp, ctx, qi(f"_i{ctx.depth}"), expr.right.span)
    if objects is None:
        return None
    return qir.InObjects(expr.span, e_types.BOOL, left.nullable, left, objects, negate)


def _in_multi_link(expr: ast.BinOp, left: qir.Expr, negate: bool, ctx: exprs.ExprContext):
    """``x in .members`` / ``x in .members.id`` of a multi link of the subject
    (https://docs.geldata.com/reference/edgeql/sets, the membership test Gel's access policy
    docs write as ``global current_user in .members``): whether the object (its id) is one of
    the link's targets, an ``EXISTS`` over the link table, among the targets the query may see
    when the target has access policies (none are applied inside a policy); empty when ``x``
    is. ``None`` for any other right side, ``False`` after reporting."""
    right = expr.right
    if not isinstance(right, ast.Path) or ctx.subject is None or not 1 <= len(right.steps) <= 2 \
            or (len(right.steps) == 2 and right.steps[1] != "id"):
        return None
    link = ctx.subject.links.get(right.steps[0])
    if link is None or not link.multi or link.join_table is None or link.columns:
        return None
    if left.type.family != "uuid" or left.type.element is not None:
        ctx.reporter.error("E0304", f"'{expr.op}' compares {left.type.name} with {link.target.name} objects", expr.span)
        return False
    from schemac.semantics import policies

    row = ctx.column_prefix or qi(ctx.subject.table)
    target = qi(f"_mt{ctx.depth}")
    return qir.InMultiLink(expr.span, e_types.BOOL, left.nullable, left, link, row, qi(f"_m{ctx.depth}"), target, negate,
                           policies.read_predicate(link.target, ctx, target))


def _cast(expr: ast.Cast, ctx: exprs.ExprContext, allow_optional: bool) -> Optional[qir.Expr]:
    """``<T>$p`` types a parameter (Gel's spelling of ``$p<T>``); ``<T>expr`` is a cast."""
    if isinstance(expr.operand, ast.Param):
        if expr.operand.type is not None:
            ctx.reporter.error("E0304", "a parameter is typed twice", expr.span, "write either <T>$p or $p<T>")
            return None
        return exprs.check(ast.Param(expr.operand.name, expr.type, expr.span), ctx, None, allow_optional)
    target = exprs.resolve_type_ref(expr.type, ctx)
    if target is None:
        return None
    if isinstance(expr.operand, ast.SetLit) and not expr.operand.items:
        # <T>{}: the empty set of T
        return qir.Call(expr.span, target, True, "typed_null", ())
    if target.enum is not None and isinstance(expr.operand, ast.Literal) and expr.operand.kind == "str":
        # <Enum>'member': Gel's way to name a member, also one that is not an identifier.
        member = str(expr.operand.value)
        if member not in target.enum.members:
            ctx.reporter.error("E0203", f"enum '{target.enum.name}' has no member {member!r}", expr.operand.span,
                               did_you_mean(member, target.enum.members))
            return None
        return qir.EnumMember(expr.span, target, False, target.enum, member)
    if target.family == "json" and isinstance(expr.operand, ast.ShapeExpr) and ctx.row_json is not None \
            and isinstance(expr.operand.base, ast.VarRef) and expr.operand.base.name in ctx.row_refs:
        # `<json>__new__ {**}` in a trigger: the object as JSON.
        return ctx.row_json(expr.operand)
    # `<array<str>>[]`: the empty array takes its element type from the cast
    # (https://docs.geldata.com/reference/stdlib/array).
    empty_array = isinstance(expr.operand, ast.ArrayLit) and not expr.operand.items and target.element is not None
    if isinstance(expr.operand, ast.ArrayLit) and not expr.operand.items and target.family == "json" \
            and target.element is None:
        # `<json>[]`: the empty JSON array (https://docs.geldata.com/reference/stdlib/json)
        return qir.Call(expr.span, target, False, "json_empty_array", ())
    inner = exprs.check(expr.operand, ctx, target if empty_array else None)
    if inner is None or empty_array:
        return inner
    if isinstance(inner, qir.Literal) and inner.kind == "float" and target.element is None \
            and target.scalar is not None and target.scalar.name == "decimal":
        # `<decimal>0.797693134862311111111`: the literal is a float64, rounded before the cast
        # (geldata/gel tests/test_edgeql_expressions.py test_edgeql_expr_op_21: it is not the
        # decimal 0.797693134862311111111n); Postgres would read the digits as numeric
        return qir.Call(expr.span, target, False, "cast/float_literal", (), (inner.value,))
    if inner.type.family == "json" and target.family != "json":
        # `<T>x['k']` is a value (a missing member or JSON null is NULL, which a required
        # property refuses when written); `<optional T>x['k']` may be empty.
        if target.element is not None and target.element.element is not None:
            ctx.reporter.error("E0206", f"casting json to {target.name} is not supported", expr.span)
            return None
        if target.element is None and target.scalar is not None and range_kind(target.scalar):
            # (Gel reads a JSON object {"lower": ..., "upper": ..., "inc_lower": ...} / an array of
            # them; geldata/gel tests/test_edgeql_expressions.py test_edgeql_expr_range_33/34/42.
            # Not lowered: the statement failed at run time)
            ctx.reporter.error("E0206", f"casting json to {target.name} is not supported yet", expr.span,
                               "pass the bounds: range(<int64>j['lower'], <int64>j['upper'])")
            return None
        return qir.JsonCast(expr.span, target, expr.type.optional, inner)
    if target.family == "json" and inner.type.family != "json":
        # `<json>x` (https://docs.geldata.com/reference/stdlib/json): the value as JSON (a string,
        # a number, a bool, an array), not its text parsed as JSON.
        if inner.type.family == "bytes" or (inner.type.element is not None and inner.type.element.family == "bytes"):
            ctx.reporter.error("E0206", f"casting {inner.type.name} to json is not supported", expr.span)
            return None
        obj = _object_value(inner)
        if obj is not None:
            # Gel serialises an object cast to json as its shape, {"title": ..., "pages": ...}
            # (https://docs.geldata.com/reference/stdlib/json); schemac would give its id
            ctx.reporter.error("E0206", f"casting an object ('{obj.name}') to json is not supported yet: Gel "
                               "serialises its shape, not its id", expr.span,
                               f"select the object with its shape instead: select {obj.name} {{ ... }} filter ... "
                               "(the runners return it as an object)")
            return None
        # (`<json>'{}'` is the JSON string "{}", as Gel casts a str)
        return qir.Call(expr.span, target, inner.nullable, "cast/json", (inner,))
    if target.enum is not None and inner.type.enum != target.enum:
        ctx.reporter.error("E0304", f"only a string literal or a parameter can be cast to enum '{target.enum.name}'",
                           expr.operand.span, f"write <{target.enum.name}>'member' or <{target.enum.name}>$param")
        return None
    if target.scalar is not None and target.scalar.name == "datetime" and target.element is None \
            and inner.type.family == "str" and inner.type.element is None \
            and not (isinstance(inner, qir.Literal) and re.match(ISO_DATETIME, str(inner.value))):
        # `<datetime>s` of a str: ISO 8601 with a time zone, or the statement fails, as Gel's
        # (https://docs.geldata.com/reference/stdlib/datetime#type::std::datetime); Postgres would
        # read a string without one in the session's time zone
        return qir.Call(expr.span, target, inner.nullable, "to_datetime/str", (inner,))
    if target.family == "str" and inner.type.family in ("geometry", "geography") and inner.type.element is None:
        # Gel's cast of a geometry / geography to str is its WKT (ST_AsText), not PostGIS's
        # text output (hex EWKB): https://docs.geldata.com/reference/stdlib/postgis
        return qir.Call(expr.span, target, inner.nullable, "ext::postgis::astext", (inner,))
    if target.family == "str" and target.element is None and inner.type.element is None and inner.type.enum is None:
        if inner.type.family in ("datetime", "local_date", "local_datetime", "local_time"):
            # `<str>` of a date or time is its ISO 8601 text, a datetime's in UTC, as to_str()
            # prints it (https://docs.geldata.com/reference/edgeql/casts,
            # https://docs.geldata.com/reference/stdlib/datetime), not Postgres' text of it
            # (an operand: `{0} AT TIME ZONE` binds tighter than `a - b`)
            return qir.Call(expr.span, target, inner.nullable, "to_str", (inner,))
        if inner.type.family in ("duration", "relative_duration", "date_duration"):
            ctx.reporter.error("E0206", f"casting a {inner.type.name} to str is not supported", expr.span,
                               "Gel prints ISO 8601 (PT1H30M), which Postgres prints only under IntervalStyle = "
                               "iso_8601; select the duration itself")
            return None
    return qir.Cast(expr.span, target, inner.nullable, inner)


def _object_value(low: qir.Expr):
    """The object type of a value that is an object (a selection used as a value, a with name
    bound to one, a computed global of object type), or ``None``."""
    t = type(low)
    if t is qir.ObjectRow and low.value is None:  # type: ignore[attr-defined]
        return low.target  # type: ignore[attr-defined]
    if t in (qir.ObjectId, qir.ObjectIds):
        return low.target  # type: ignore[attr-defined]
    if t is qir.VarRef and type(low.binding) is qir.WithValue:  # type: ignore[attr-defined]
        return _object_value(low.binding.value)  # type: ignore[attr-defined]
    return None


def _cast_hint(a: ValueType, b: ValueType) -> Optional[str]:
    if a.enum is not None and b.family == "str":
        return f"compare with an enum member instead, e.g. {a.enum.name}.{a.enum.members[0]}"
    if b.enum is not None and a.family == "str":
        return f"compare with an enum member instead, e.g. {b.enum.name}.{b.enum.members[0]}"
    if a.family != b.family:
        return f"cast one side, e.g. <{a.name}>..."
    return None
