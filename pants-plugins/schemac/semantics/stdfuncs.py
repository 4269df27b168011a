"""Functions of Gel's standard library that real schemas use, lowered with Gel's semantics.

* ``math::mean(.<movie[is Review].rating)`` (https://docs.geldata.com/reference/stdlib/math) over
  the objects of a multi link, backlink or computed link, as ``min``/``max``/``sum``
  (:func:`schemac.semantics.computed_sql.aggregate`): one correlated ``(SELECT avg(alias.col) FROM ...)``
  with the source's access policies; ``float64`` of integers and floats, ``decimal`` of
  ``decimal``, and of an empty set an error, as in Gel ("not enough elements in input set").
* Scalar math (``math::abs`` is with the string functions in :mod:`schemac.semantics.exprs`):
  ``math::ceil``, ``math::floor``, ``round(x)`` (``float64``, or ``decimal`` / ``bigint`` for
  those), ``math::ln``, ``math::lg`` (``float64``, ``decimal`` for ``decimal``); ``round``
  (https://docs.geldata.com/reference/stdlib/numbers#function::std::round) rounds half away from
  zero for ``decimal``, to even for floats, as Gel and Postgres do.
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from schemac.semantics import qir
from schemac.syntax import tree as ast
from schemac.semantics.model import ValueType
from schemac.semantics.scalars import SCALARS
from schemac.semantics.sqlnames import qi

SCALAR_MATH = ("math::ceil", "math::floor", "math::ln", "math::lg", "round")

_INTS = ("int16", "int32", "int64")


def _vt(name: str) -> ValueType:
    return ValueType(scalar=SCALARS[name])


def mean(expr: ast.FuncCall, ctx) -> Optional[qir.Expr]:
    """``math::mean(.<movie[is Review].rating)`` over the objects of a multi link, backlink or
    computed link (:func:`schemac.semantics.computed_sql.aggregate` reads the set the same way for ``min``,
    ``max`` and ``sum``); ``None`` after reporting."""
    from schemac.semantics import computed_sql
    from schemac.semantics.exprs import check

    arg = expr.args[0] if len(expr.args) == 1 else None
    found = computed_sql._object_path(arg, ctx, f"_a{ctx.depth}") if arg is not None else None
    if found is False:
        return None
    if found is None:
        ctx.reporter.error("E0206", "math::mean() is supported over a property of a multi link, backlink or computed "
                           "link, e.g. math::mean(.<movie[is Review].rating)", expr.span)
        return None
    objects, rest = found
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                variables={}, bound_statements={})
    value = check(ast.Path(tuple(rest), arg.span), inner)
    if value is None:
        return None
    vtype = value.type
    if vtype.element is not None or vtype.scalar is None or vtype.family != "num":
        ctx.reporter.error("E0304", f"math::mean() needs numbers, got {vtype.name}", arg.span)
        return None
    result = _vt("decimal") if vtype.scalar.name in ("decimal", "bigint") else _vt("float64")
    avg = qir.AggregateObjects(expr.span, result, True, "avg", objects, value)
    # Gel: "invalid input to mean(): not enough elements in input set" -- the statement fails
    # (the failing cast reads the set again, so Postgres cannot fold it into a constant).
    template = (f"coalesce(CAST({{0}} AS {result.pg}), CAST('invalid input to mean(): not enough elements in "
                f"input set' || coalesce(CAST({{0}} AS text), '') AS {result.pg}))")
    return qir.SqlTemplate(expr.span, result, False, "math::mean", template, (avg, avg), "rr", True)


def scalar_math(expr: ast.FuncCall, name: str, ctx) -> Optional[qir.Expr]:
    from schemac.semantics.exprs import check

    if name == "round" and len(expr.args) == 2:
        return _round_to_digits(expr, ctx)
    if len(expr.args) != 1:
        ctx.reporter.error("E0304", f"{name}() takes one argument"
                           + (" (or a decimal and a number of digits)" if name == "round" else ""), expr.span)
        return None
    arg = check(expr.args[0], ctx)
    if arg is None:
        return None
    if arg.type.family != "num" or arg.type.element is not None or arg.type.scalar is None:
        ctx.reporter.error("E0304", f"{name}() needs a number, got {arg.type.name}", expr.args[0].span)
        return None
    scalar = arg.type.scalar.name
    if name in ("math::ln", "math::lg"):
        result = _vt("decimal") if scalar in ("decimal", "bigint") else _vt("float64")
        func = "ln" if name == "math::ln" else "log"
        template = f"{func}(CAST({{0}} AS {result.pg}))"
    else:
        # Gel: round/ceil/floor of an integer are float64; of float32 float64 too.
        func = {"round": "round", "math::ceil": "ceil", "math::floor": "floor"}[name]
        if scalar in ("decimal", "bigint", "float64"):
            result, template = arg.type, f"{func}({{0}})"
        else:
            result, template = _vt("float64"), f"{func}(CAST({{0}} AS double precision))"
    return qir.SqlTemplate(expr.span, result, arg.nullable, name, template, (arg,), "p", True)


def _round_to_digits(expr, ctx) -> Optional[qir.Expr]:
    """``round(value: decimal, d: int64) -> decimal``: rounded to ``d`` decimal digits (a
    negative ``d`` rounds left of the point), half away from zero
    (https://docs.geldata.com/reference/stdlib/numbers#function::std::round); Postgres'
    ``round(numeric, integer)``. An integer value is cast to decimal (Gel's implicit cast); a
    float is not: Gel has no ``round(float64, int64)``."""
    from schemac.semantics.exprs import check

    value, digits = check(expr.args[0], ctx), check(expr.args[1], ctx)
    if value is None or digits is None:
        return None
    if value.type.family != "num" or value.type.element is not None or value.type.scalar is None \
            or value.type.scalar.name.startswith("float"):
        ctx.reporter.error("E0304", f"round(value, d) needs a decimal value, got {value.type.name}",
                           expr.args[0].span, "cast it: round(<decimal>x, 2)")
        return None
    if digits.type.family != "num" or digits.type.scalar is None or \
            digits.type.scalar.name not in ("int16", "int32", "int64"):
        ctx.reporter.error("E0304", f"round(value, d) takes an integer number of digits, got {digits.type.name}",
                           expr.args[1].span)
        return None
    result = _vt("decimal")
    return qir.SqlTemplate(expr.span, result, value.nullable or digits.nullable, "round",
                           "round(CAST({0} AS numeric), CAST({1} AS integer))", (value, digits), "pp", True)
