"""Functions of Gel's standard library that real schemas use, lowered with Gel's semantics.

* ``math::mean(.<movie[is Review].rating)`` (https://docs.geldata.com/reference/stdlib/math) over
  the objects of a multi link, backlink or computed link, as ``min``/``max``/``sum``
  (:func:`schemac.semantics.computed_sql.aggregate`): one correlated ``(SELECT avg(alias.col) FROM ...)``
  with the source's access policies; ``float64`` of integers and floats, ``decimal`` of
  ``decimal``, and of an empty set an error, as in Gel ("not enough elements in input set").
* ``re_replace(pattern, sub, string, flags := 'g')``: Postgres' ``regexp_replace``, whose
  patterns and flags Gel's are.
* Scalar math (``math::abs`` is with the string functions in :mod:`schemac.semantics.exprs`):
  ``math::ceil``, ``math::floor``, ``round(x)`` (``float64``, or ``decimal`` / ``bigint`` for
  those), ``math::ln``, ``math::lg`` (``float64``, ``decimal`` for ``decimal``); ``round``
  (https://docs.geldata.com/reference/stdlib/numbers#function::std::round) rounds half away from
  zero for ``decimal``, to even for floats, as Gel and Postgres do.
"""

from __future__ import annotations

import dataclasses
from typing import Optional, Tuple

from schemac.semantics import qir
from schemac.syntax import tree as ast
from schemac.semantics.model import ValueType
from schemac.semantics.scalars import SCALARS
from schemac.semantics.sqlnames import qi

SCALAR_MATH = ("math::ceil", "math::floor", "math::ln", "math::lg", "math::exp", "math::log", "round")

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
    fallback = None
    if isinstance(arg, ast.BinOp) and arg.op == "??":
        # `math::mean(.musics.rating ?? {0.0})`: the mean of the set, or of the fallback when
        # the set is empty (one value: its own mean).
        fb = arg.right
        if isinstance(fb, ast.SetLit) and len(fb.items) == 1:
            fb = fb.items[0]
        if isinstance(fb, ast.SetLit):
            ctx.reporter.error("E0206", "math::mean(a ?? {x, y, ...}) with a fallback of several values is not "
                               "supported", arg.right.span, "give one fallback value: math::mean(a ?? {0.0})")
            return None
        fallback, arg = fb, arg.left
    if fallback is None and isinstance(arg, ast.EnumRef) and arg.enum in ctx.free_rows \
            and arg.enum not in ctx.variables and not ctx.free_rows[arg.enum].first:
        # `math::mean(s.f)` of the free objects of a `for` loop: of their values of f
        rows = ctx.free_rows[arg.enum]
        fields = dict(rows.fields)
        if arg.member not in fields:
            ctx.reporter.error("E0302", f"'{arg.enum}' has no field '{arg.member}'", arg.member_span)
            return None
        vtype = fields[arg.member].type
        if vtype.element is not None or vtype.scalar is None or vtype.family != "num":
            ctx.reporter.error("E0304", f"math::mean() needs numbers, got {vtype.name}", arg.span)
            return None
        result = _vt("decimal") if vtype.scalar.name in ("decimal", "bigint") else _vt("float64")
        avg = qir.FreeRowsAggregate(expr.span, result, True, "avg", rows, arg.member)
        return qir.Call(expr.span, result, False, "math::mean", (avg, avg))
    found = computed_sql._object_path(arg, ctx, f"_a{ctx.depth}") if arg is not None else None
    if found is False:
        return None
    if found is None and arg is not None and not isinstance(arg, ast.SetLit):
        return _mean_of_one(expr, arg, fallback, ctx)
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
    if fallback is not None:
        fb_low = check(fallback, ctx, value.type)
        if fb_low is None:
            return None
        if fb_low.type.family != "num" or fb_low.type.element is not None:
            ctx.reporter.error("E0304", f"'??' operands differ: {vtype.name} and {fb_low.type.name}", fallback.span)
            return None
        # (a non-empty set's mean is never empty: coalesce picks the fallback's exactly when
        # the set is empty; the fallback may itself be empty, and so is then the mean)
        return qir.Call(expr.span, result, fb_low.nullable, "math::mean/or", (avg, fb_low))
    # Gel: "invalid input to mean(): not enough elements in input set" -- the statement fails
    # (schemac.pgsql.calls_std).
    return qir.Call(expr.span, result, False, "math::mean", (avg, avg))


#: Gel's sample and population deviation and variance -> Postgres' aggregates: NULL exactly
#: where Gel fails (fewer than 2 values for a sample, none for a population).
SPREAD = {"math::stddev": "stddev_samp", "math::stddev_pop": "stddev_pop", "math::var": "var_samp",
          "math::var_pop": "var_pop"}


def spread(expr: ast.FuncCall, name: str, ctx) -> Optional[qir.Expr]:
    """``math::stddev(.<movie[is Review].rating)`` (and ``stddev_pop``, ``var``, ``var_pop``,
    https://docs.geldata.com/reference/stdlib/math#function::math::stddev) over the objects of a
    multi link, backlink or computed link, or the values of a ``multi`` property: ``float64``
    (``decimal`` of decimals); with too few values (fewer than two for ``stddev`` / ``var``, none
    for the ``_pop`` forms) the statement fails, as Gel's."""
    from schemac.semantics import computed_sql
    from schemac.semantics.exprs import check

    func = SPREAD[name]
    arg = expr.args[0] if len(expr.args) == 1 and not isinstance(expr.args[0], ast.NamedArg) else None
    found = computed_sql._object_path(arg, ctx, f"_a{ctx.depth}") if arg is not None else None
    if found is False:
        return None
    if found:
        objects, rest = found
        inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                    variables={}, bound_statements={})
        value = check(ast.Path(tuple(rest), arg.span), inner)  # type: ignore[union-attr]
        if value is None:
            return None
        vtype = value.type
        agg: qir.Expr = value
    else:
        value = check(arg, ctx) if arg is not None else None
        if value is None:
            if arg is None:
                ctx.reporter.error("E0304", f"{name}() takes one set of numbers", expr.span)
            return None
        if not (type(value) is qir.ColumnRef and value.column.multi and value.type.element is not None):  # type: ignore[attr-defined]
            ctx.reporter.error("E0206", f"{name}() is supported over a property of a multi link, backlink or "
                               "computed link, or a multi property", expr.span,
                               f"e.g. {name}(.<movie[is Review].rating)")
            return None
        vtype = value.type.element
        agg = value
    if vtype.element is not None or vtype.scalar is None or vtype.family != "num":
        ctx.reporter.error("E0304", f"{name}() needs numbers, got {vtype.name}", expr.args[0].span)
        return None
    result = _vt("decimal") if vtype.scalar.name in ("decimal", "bigint") else _vt("float64")
    if found:
        agg = qir.AggregateObjects(expr.span, result, True, func, objects, value)
    # (of objects: over their aggregate; of a multi property: over its array's elements)
    return qir.Call(expr.span, result, False, name if found else name + "/array", (agg, agg))


def _mean_of_one(expr: ast.FuncCall, arg, fallback, ctx) -> Optional[qir.Expr]:
    """``math::mean(x)`` of one value (``math::mean(.score)``, ``math::mean(<optional float64>$x)``):
    the value itself, as a float64 (decimal of a decimal); of the empty set the statement fails,
    as Gel's (https://docs.geldata.com/reference/stdlib/math#function::math::mean)."""
    from schemac.semantics.exprs import check

    value = check(arg, ctx)
    if value is None:
        return None
    if type(value) is qir.ColumnRef and value.column.multi and value.type.element is not None \
            and fallback is None:  # type: ignore[attr-defined]
        from schemac.semantics import computed_sql

        return computed_sql._multi_property_aggregate(expr, "math::mean", value, ctx)
    if value.type.element is not None or value.type.scalar is None or value.type.family != "num":
        ctx.reporter.error("E0206" if value.type.element is not None else "E0304",
                           "math::mean() of a multi property or an array is not supported yet"
                           if value.type.element is not None
                           else f"math::mean() needs numbers, got {value.type.name}", arg.span,
                           "math::mean() takes a property of a multi link, backlink or computed link, or one number")
        return None
    result = _vt("decimal") if value.type.scalar.name in ("decimal", "bigint") else _vt("float64")
    if fallback is not None:
        fb = check(fallback, ctx, value.type)
        if fb is None:
            return None
        return qir.Call(expr.span, result, fb.nullable, "math::mean/or", (value, fb))
    return qir.Call(expr.span, result, False, "math::mean", (value,))


def scalar_math(expr: ast.FuncCall, name: str, ctx) -> Optional[qir.Expr]:
    from schemac.semantics.exprs import check

    if name == "round" and len(expr.args) == 2:
        return _round_to_digits(expr, ctx)
    if name == "math::log":
        return _log_base(expr, ctx)
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
    if name in ("math::ln", "math::lg", "math::exp"):
        result = _vt("decimal") if scalar in ("decimal", "bigint") else _vt("float64")
    else:
        # Gel: round/ceil/floor of an integer are float64; of float32 float64 too (a float64 is
        # cast too, schemac.pgsql.calls_std: Postgres' numeric round() takes a tie away from
        # zero where Gel's float64 round takes it to the even neighbour, round(2.5) is 2).
        result = arg.type if scalar in ("decimal", "bigint") else _vt("float64")
    return qir.Call(expr.span, result, arg.nullable, name, (arg,))


def _log_base(expr, ctx) -> Optional[qir.Expr]:
    """``math::log(x, base := b) -> decimal`` (https://docs.geldata.com/reference/stdlib/math#function::math::log):
    Postgres' ``log(b, x)`` of numerics; an integer is cast to decimal, a float is not (Gel has
    no float64 form)."""
    from schemac.semantics.exprs import check

    positional = [a for a in expr.args if not isinstance(a, ast.NamedArg)]
    named = [a for a in expr.args if isinstance(a, ast.NamedArg)]
    if len(positional) != 1 or len(named) != 1 or named[0].name != "base":
        ctx.reporter.error("E0304", "math::log() takes a value and base := <the base>", expr.span,
                           "e.g. math::log(8n, base := 2n)")
        return None
    values = []
    for a in (positional[0], named[0].value):
        low = check(a, ctx, _vt("decimal"))
        if low is None:
            return None
        if low.type.family != "num" or low.type.element is not None or low.type.scalar is None \
                or low.type.scalar.name.startswith("float"):
            ctx.reporter.error("E0304", f"math::log() needs decimals, got {low.type.name}", a.span,
                               "cast it: <decimal>x")
            return None
        values.append(low)
    return qir.Call(expr.span, _vt("decimal"), any(v.nullable for v in values), "math::log", tuple(values))


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
    return qir.Call(expr.span, result, value.nullable or digits.nullable, "round/digits", (value, digits))


#: Postgres ``to_char`` patterns of a time zone: schemac reads a ``datetime`` in UTC (as Gel's
#: sessions do) through ``AT TIME ZONE 'UTC'``, a timestamp without a zone, for which Postgres
#: prints these empty where Gel prints ``UTC`` / ``+00``.
_TZ_PATTERNS = ("TZH", "TZM", "TZ", "tz", "OF")

#: The families ``to_str(value)`` takes without a format: Gel's text of each
#: (https://docs.geldata.com/reference/stdlib/string#function::std::to_str), its ISO 8601 JSON
#: form for dates and times (``schemac.pgsql.calls_std.TO_STR_PLAIN``).
_TO_STR_FAMILIES = ("num", "str", "json", "bytes", "datetime", "local_date", "local_datetime", "local_time")


def to_str(expr: ast.FuncCall, ctx) -> Optional[qir.Expr]:
    """``to_str(value [, fmt])`` (https://docs.geldata.com/reference/stdlib/string#function::std::to_str),
    as Gel defines each form in Postgres: a number without a format is its text (``CAST(x AS
    text)``), with one ``to_char(x, fmt)``; a ``datetime`` / ``cal::local_*`` / ``duration`` with
    a format is ``to_char`` of it (a ``datetime`` read in UTC, as Gel's sessions do: the
    time-zone patterns ``TZ``, ``tz``, ``OF``, ``TZH``, ``TZM``, which would print empty, are
    refused, E0206), without one its ISO 8601 text; ``to_str(array<str>, delimiter)`` is
    ``array_join`` (``array_to_string``); ``to_str(json)`` its text, ``to_str(json, 'pretty')``
    ``jsonb_pretty``; ``to_str(bytes)`` decodes UTF-8. The format is a string literal: Gel
    fails an empty one (so does the compiler, E0304). ``to_str(duration)`` without a format is
    refused (E0206): Gel prints ISO 8601 (``PT1H30M``), which Postgres prints only under
    ``IntervalStyle = iso_8601``. Empty in, empty out."""
    from schemac.semantics.exprs import check

    args = [a for a in expr.args]
    if not 1 <= len(args) <= 2 or any(isinstance(a, ast.NamedArg) for a in args):
        ctx.reporter.error("E0304", "to_str() takes a value and an optional format", expr.span)
        return None
    value = check(args[0], ctx)
    if value is None:
        return None
    str_t = _vt("str")
    vt = value.type
    if vt.element is not None:
        if vt.element.family != "str" or len(args) != 2:
            ctx.reporter.error("E0304", f"to_str() of an array takes an array<str> and a delimiter, got {vt.name}",
                               expr.span, "to_str(array_of_str, ', ') (or array_join)")
            return None
        return _array_join(expr, value, args[1], ctx)
    family = vt.family if vt.enum is None else "enum"
    fmt = None
    if len(args) == 2:
        if not (isinstance(args[1], ast.Literal) and args[1].kind == "str"):
            fmt_low = check(args[1], ctx, str_t)
            if fmt_low is None:
                return None
            if fmt_low.type.family != "str":
                ctx.reporter.error("E0304", f"the format of to_str() is a str, got {fmt_low.type.name}", args[1].span)
                return None
            ctx.reporter.error("E0206", "to_str() with a format that is not a string literal is not supported",
                               args[1].span, "write the format in the query: to_str(x, 'HH24:MI:SS')")
            return None
        fmt = str(args[1].value)
        if fmt == "":
            ctx.reporter.error("E0304", "to_str(): the format must be a non-empty string", args[1].span)
            return None
    if fmt is None:
        if family == "duration":
            ctx.reporter.error("E0206", "to_str() of a duration without a format is not supported", expr.span,
                               "Gel prints ISO 8601 (PT1H30M), which Postgres prints only under IntervalStyle "
                               "iso_8601; give a format, e.g. to_str(d, 'HH24:MI:SS')")
            return None
        if family not in _TO_STR_FAMILIES:
            ctx.reporter.error("E0304", f"to_str() of a {vt.name} is not a Gel function", expr.span,
                               "cast it: <str>x")
            return None
        return qir.Call(expr.span, str_t, value.nullable, "to_str", (value,))
    if family == "json":
        if fmt != "pretty":
            ctx.reporter.error("E0304", f"to_str(): format '{fmt}' is invalid for json", args[1].span,
                               "the one format of a json value is 'pretty'")
            return None
        return qir.Call(expr.span, str_t, value.nullable, "to_str/json_pretty", (value,))
    if family not in ("num", "datetime", "duration", "local_date", "local_datetime", "local_time"):
        ctx.reporter.error("E0304", f"to_str() of a {vt.name} takes no format", args[1].span)
        return None
    if family == "datetime":
        tz = next((p for p in _TZ_PATTERNS if p in fmt), None)
        if tz is not None:
            ctx.reporter.error("E0206", f"to_str() of a datetime with the time-zone pattern '{tz}' is not supported",
                               args[1].span, "datetimes are formatted in UTC; leave the zone out of the format, "
                               "or append it as text")
            return None
    return qir.Call(expr.span, str_t, value.nullable, "to_str/datetime_fmt" if family == "datetime" else "to_str/fmt",
                    (value,), (fmt,))


def array_join(expr: ast.FuncCall, ctx) -> Optional[qir.Expr]:
    """``array_join(array<str>, delimiter)`` (https://docs.geldata.com/reference/stdlib/array#function::std::array_join):
    the elements joined with the delimiter, ``array_to_string``."""
    from schemac.semantics.exprs import check

    if len(expr.args) != 2 or any(isinstance(a, ast.NamedArg) for a in expr.args):
        ctx.reporter.error("E0304", "array_join() takes an array<str> and a delimiter", expr.span)
        return None
    value = check(expr.args[0], ctx)
    if value is None:
        return None
    if value.type.element is None or value.type.element.family != "str":
        ctx.reporter.error("E0304", f"array_join() needs an array<str>, got {value.type.name}", expr.args[0].span)
        return None
    return _array_join(expr, value, expr.args[1], ctx)


def str_split(expr: ast.FuncCall, ctx) -> Optional[qir.Expr]:
    """``str_split(s, delimiter)`` (https://docs.geldata.com/reference/stdlib/string#function::std::str_split):
    the pieces of ``s`` between the delimiters, empty ones kept, as Gel defines it:
    ``string_to_array(s, d)``, and each character when the delimiter is empty
    (``regexp_split_to_array(s, '')``)."""
    from schemac.semantics.exprs import check

    if len(expr.args) != 2 or any(isinstance(a, ast.NamedArg) for a in expr.args):
        ctx.reporter.error("E0304", "str_split() takes a str and a delimiter", expr.span)
        return None
    args = []
    for a in expr.args:
        low = check(a, ctx, _vt("str"))
        if low is None:
            return None
        if low.type.family != "str" or low.type.element is not None:
            ctx.reporter.error("E0304", f"str_split() needs a str, got {low.type.name}", a.span)
            return None
        args.append(low)
    return qir.Call(expr.span, ValueType(element=_vt("str")), args[0].nullable or args[1].nullable, "str_split",
                    tuple(args))


def re_replace(expr: ast.FuncCall, ctx) -> Optional[qir.Expr]:
    """``re_replace(pattern, sub, string [, flags := f])``
    (https://docs.geldata.com/reference/stdlib/string#function::std::re_replace): the first match
    of ``pattern`` in ``string`` replaced by ``sub`` (every match with the flag ``g``; ``i`` and the
    other flags of Gel's regular expressions, which are Postgres'): ``regexp_replace(string,
    pattern, sub, flags)``, the flags ``''`` when not given. Empty when an argument is."""
    from schemac.semantics.exprs import check

    positional = [a for a in expr.args if not isinstance(a, ast.NamedArg)]
    named = [a for a in expr.args if isinstance(a, ast.NamedArg)]
    if len(positional) != 3 or any(n.name != "flags" for n in named) or len(named) > 1 \
            or expr.args[:3] != tuple(positional):
        ctx.reporter.error("E0304", "re_replace() takes a pattern, a replacement, a string and optionally "
                           "flags := <str>", expr.span, "e.g. re_replace(r'a', 'A', .name, flags := 'g')")
        return None
    args = []
    for a in positional + [n.value for n in named]:
        low = check(a, ctx, _vt("str"))
        if low is None:
            return None
        if low.type.family != "str" or low.type.element is not None:
            ctx.reporter.error("E0304", f"re_replace() needs a str, got {low.type.name}", a.span)
            return None
        args.append(low)
    return qir.Call(expr.span, _vt("str"), any(a.nullable for a in args), "re_replace", tuple(args))


def _array_join(expr, value, delimiter, ctx) -> Optional[qir.Expr]:
    from schemac.semantics.exprs import check

    delim = check(delimiter, ctx, _vt("str"))
    if delim is None:
        return None
    if delim.type.family != "str" or delim.type.element is not None:
        ctx.reporter.error("E0304", f"the delimiter is a str, got {delim.type.name}", delimiter.span)
        return None
    return qir.Call(expr.span, _vt("str"), value.nullable or delim.nullable, "array_join", (value, delim))


def array_agg(expr: ast.FuncCall, ctx) -> Optional[qir.Expr]:
    """``array_agg(set)`` (https://docs.geldata.com/reference/stdlib/array#function::std::array_agg):
    the values of a set as an array, ``[]`` for the empty set. Over a property of the objects of
    a multi link, backlink or computed link (``array_agg(.musics.genre.name)``: the distinct
    objects the path reaches, as for ``sum``) it is ``coalesce((SELECT array_agg(alias.col)
    FROM ...), '{}')``; of one value (possibly empty) the array of it. ``(select ...)`` around
    the set is read through. Gel keeps no order here (a set has none), nor does Postgres."""
    from schemac.semantics import computed_sql
    from schemac.semantics.exprs import check

    if len(expr.args) != 1 or isinstance(expr.args[0], ast.NamedArg):
        ctx.reporter.error("E0304", "array_agg() takes one set", expr.span)
        return None
    arg = expr.args[0]
    while isinstance(arg, ast.SelectExpr) and arg.shape is None and arg.filter is None and not arg.order \
            and arg.offset is None and arg.limit is None:
        arg = arg.subject
    if isinstance(arg, ast.SelectExpr) and arg.order:
        return _ordered_array_agg(expr, arg, ctx)
    if isinstance(arg, ast.EnumRef) and arg.enum in ctx.group_bindings and arg.enum not in ctx.variables \
            and ctx.group_field_array is not None:
        # `array_agg((select sorted.k))` of groups bound in `with`
        return ctx.group_field_array(arg.enum, arg.member, arg.span, ctx)
    if isinstance(arg, ast.ForExpr) and computed_sql.query_set_target(arg.source, ctx) is not None:
        return _for_array_agg(expr, arg, ctx)
    found = computed_sql._object_path(arg, ctx, f"_a{ctx.depth}")
    if found is False:
        return None
    if found is None and _set_paths(arg, ctx):
        return _array_agg_of_values(expr, arg, ctx)
    if found is None:
        value = check(arg, ctx)
        if value is None:
            return None
        if value.type.element is not None:
            ctx.reporter.error("E0304", "array_agg() of arrays is not a Gel function (an array of arrays is not a "
                               "Gel type)", arg.span)
            return None
        return qir.Call(expr.span, ValueType(element=value.type), False, "array_agg/one", (value,))
    objects, rest = found
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                variables={}, bound_statements={})
    value = check(ast.Path(tuple(rest), arg.span), inner)
    if value is None:
        return None
    if value.type.element is not None:
        ctx.reporter.error("E0206", "array_agg() of a multi property or an array of several objects is not "
                           "supported", arg.span)
        return None
    atype = ValueType(element=value.type)
    agg = qir.AggregateObjects(expr.span, atype, True, "array_agg", objects, value)
    return qir.Call(expr.span, atype, False, "array_agg", (agg,))


def _set_paths(arg, ctx):
    """The paths ``.link.rest`` in ``arg`` whose first step is a set of objects of the subject
    (a multi link or a computed link)."""
    from schemac.semantics import computed_sql

    return [n for n in ast.iter_nodes(arg) if isinstance(n, ast.Path) and len(n.steps) > 1
            and computed_sql.set_first_step(n, ctx)]


def _array_agg_of_values(expr: ast.FuncCall, arg, ctx) -> Optional[qir.Expr]:
    """``array_agg(array_join(.varieties.names, ' '))``: a value computed from each object of a
    multi link or computed link, one element per object (Gel computes the function for each
    element of the set): ``coalesce((SELECT array_remove(array_agg(<value>), NULL) FROM <the
    objects>), '{}')`` (Gel's sets hold no empty value)."""
    from schemac.semantics import computed_sql
    from schemac.semantics.exprs import check

    paths = _set_paths(arg, ctx)
    first = paths[0].steps[0]
    others = [n for n in ast.iter_nodes(arg) if isinstance(n, (ast.Path, ast.Backlink))
              and not (isinstance(n, ast.Path) and len(n.steps) > 1 and n.steps[0] == first)]
    if others:
        ctx.reporter.error("E0206", f"array_agg() of a value reading '.{first}' and other paths is not supported",
                           arg.span, "aggregate a value of the linked objects alone")
        return None
    found = computed_sql._object_path(ast.Path(paths[0].steps, arg.span), ctx, f"_a{ctx.depth}")
    if not found:
        return None
    objects, _ = found
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                variables={}, bound_statements={})
    value = check(_strip_first_step(arg, first), inner)
    if value is None:
        return None
    if value.type.element is not None:
        ctx.reporter.error("E0304", "array_agg() of arrays is not a Gel function (an array of arrays is not a "
                           "Gel type)", arg.span)
        return None
    atype = ValueType(element=value.type)
    agg = qir.AggregateObjects(expr.span, atype, True, "array_agg", objects, value)
    return qir.Call(expr.span, atype, False, "array_agg/values", (agg,))


def _strip_first_step(expr, first: str):
    """``expr`` with each path ``.first.a.b`` read as ``.a.b`` (from each linked object)."""
    if isinstance(expr, ast.Path):
        return ast.Path(expr.steps[1:], expr.span) if len(expr.steps) > 1 and expr.steps[0] == first else expr
    if not dataclasses.is_dataclass(expr):
        return expr
    changes = {}
    for f in dataclasses.fields(expr):
        if f.name == "span" or f.name.endswith("_span"):
            continue
        v = getattr(expr, f.name)
        if isinstance(v, tuple):
            new = tuple(_strip_first_step(x, first) if dataclasses.is_dataclass(x) else x for x in v)
            if any(a is not b for a, b in zip(new, v)):
                changes[f.name] = new
        elif dataclasses.is_dataclass(v):
            new = _strip_first_step(v, first)
            if new is not v:
                changes[f.name] = new
    return dataclasses.replace(expr, **changes) if changes else expr


def _for_array_agg(expr: ast.FuncCall, loop: ast.ForExpr, ctx) -> Optional[qir.Expr]:
    """``array_agg((for t in S union t.offeree.user.name))`` of a set of objects ``S`` of the
    query's names and a path through single links from each: the value of each object, the
    duplicates kept (a ``for`` loop's ``union`` keeps them,
    https://docs.geldata.com/reference/edgeql/for), empty ones left out:
    ``(SELECT array_agg(<path of t>) FROM <S> AS t)``. Other bodies are E0206."""
    from schemac.semantics import computed_sql
    from schemac.semantics.exprs import check

    body = loop.body
    while isinstance(body, ast.SelectExpr) and body.shape is None and body.filter is None and not body.order \
            and body.offset is None and body.limit is None:
        body = body.subject
    root, steps = computed_sql._rooted_steps(body)
    if not (isinstance(root, ast.VarRef) and root.name == loop.var and steps and all(isinstance(x, str) for x in steps)):
        ctx.reporter.error("E0206", "array_agg() of a 'for' loop is supported over a path from its variable "
                           "(for t in s union t.link.prop)", loop.span)
        return None
    objects = computed_sql.query_set(loop.source, ctx, qi(f"_a{ctx.depth}"))
    if objects is None:
        return None
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                set_links=None, set_row=None)
    value = check(ast.Path(tuple(steps), body.span), inner)  # type: ignore[arg-type]
    if value is None:
        return None
    if value.type.element is not None:
        ctx.reporter.error("E0206", "array_agg() of a multi property or an array of several objects is not "
                           "supported", body.span)  # type: ignore[union-attr]
        return None
    atype = ValueType(element=value.type)
    agg = qir.AggregateObjects(expr.span, atype, True, "array_agg", objects, value)
    return qir.Call(expr.span, atype, False, "array_agg", (agg,))


def _syntax_key(node):
    """``node`` without its source positions, to compare two expressions as written."""
    if isinstance(node, tuple):
        return tuple(_syntax_key(n) for n in node)
    if dataclasses.is_dataclass(node):
        return (type(node).__name__,) + tuple(
            _syntax_key(getattr(node, f.name)) for f in dataclasses.fields(node)
            if f.name != "span" and not f.name.endswith("_span"))
    return node


def _ordered_array_agg(expr: ast.FuncCall, sel, ctx) -> Optional[qir.Expr]:
    """``array_agg((select <set>.p order by <set>.p [desc]))``: the values in that order
    (https://docs.geldata.com/reference/stdlib/array#function::std::array_agg keeps the order of
    an ordered input), ``array_agg(p ORDER BY p ASC NULLS FIRST)``, empties first ascending as
    Gel orders. ``<set>`` is a path of objects from the subject (``.musics.keywords``) or from
    every object of a type (``Artist.keywords``: the distinct objects it reaches from all
    artists), except where the type is the object's own (a computed of ``Artist``, a query
    selecting ``Artist``): there Gel binds the type's path to the object, so ``Artist.keywords``
    is ``.keywords``. Other orderings are E0206."""
    from schemac.semantics import computed_sql, policies
    from schemac.semantics.exprs import check
    from schemac.semantics.e_types import BOOL

    subject = sel.subject
    if sel.shape is not None or sel.filter is not None or sel.offset is not None or sel.limit is not None \
            or len(sel.order) != 1 or _syntax_key(sel.order[0].expr) != _syntax_key(subject) \
            or not (isinstance(subject, ast.Step) and subject.kind == "."
                    or isinstance(subject, ast.Path) and len(subject.steps) >= 2):
        ctx.reporter.error("E0206", "array_agg() of a sub-select is supported when it orders a path's values by "
                           "themselves, e.g. array_agg((select .tags.name order by .tags.name))", sel.span)
        return None
    item = sel.order[0]
    empty = item.empty or ("last" if item.descending else "first")
    order = (bool(item.descending), empty)
    alias = qi(f"_a{ctx.depth}")
    steps: list = []
    root = subject.base if isinstance(subject, ast.Step) else subject
    while isinstance(root, ast.Step) and root.kind == ".":
        steps.insert(0, root.name)
        root = root.base
    root_type = None
    if isinstance(root, ast.EnumRef) and root.enum not in ctx.variables and root.enum not in ctx.type_sets:
        root_type = ctx.schema.find_type(root.enum, ctx.module)
    scope = ctx
    if root_type is not None and ctx.outer is not None and root_type is ctx.outer[0] and root_type is not ctx.subject:
        scope = dataclasses.replace(ctx, subject=ctx.outer[0], column_prefix=ctx.outer[1], outer=None)
    if root_type is not None and root_type is scope.subject:
        # `Artist.keywords` in a computed of Artist (or a query selecting Artist): the object
        # itself, as Gel binds the type's path to it (as `.keywords`)
        found = computed_sql._object_path(ast.Path((root.member,) + tuple(steps) + (subject.name,), subject.span),
                                          scope, f"_a{ctx.depth}")
        if found is False:
            return None
        if found is None:
            ctx.reporter.error("E0206", "array_agg() of an ordered sub-select is supported over a path of objects "
                               "(.link.prop, Type.link.prop)", subject.span)
            return None
        return _aggregate_ordered(expr, found, order, subject, scope)
    if root_type is not None:
        steps.insert(0, root.member)
        if policies.applies(root_type, ctx):
            ctx.reporter.error("E0206", f"a path from '{root_type.name}', which has access policies, is not supported "
                               "in array_agg() yet", subject.span)
            return None
        scope = dataclasses.replace(ctx, subject=root_type, column_prefix=qi("_tr"), subject_column=None,
                                    variables={}, bound_statements={}, set_links=None, set_row=None)
        hops = computed_sql._path_hops(steps, subject.span, scope)
        if hops is None:
            return None
        target = hops[-1].target
        cond = qir.InPath(subject.span, BOOL, False, alias, qi("_tr"), tuple(hops), root_type.table)
        objects = qir.ObjectSet(subject.span, alias, target, True, cond,
                                visible=policies.read_predicate(target, ctx, alias))
        rest = (subject.name,)
    else:
        found = computed_sql._object_path(subject, ctx, f"_a{ctx.depth}") if isinstance(subject, ast.Path) else None
        if isinstance(subject, ast.Step) and isinstance(root, ast.Path):
            found = computed_sql._object_path(ast.Path(tuple(root.steps) + tuple(steps) + (subject.name,),
                                                       subject.span), ctx, f"_a{ctx.depth}")
        if found is False:
            return None
        if found is None:
            ctx.reporter.error("E0206", "array_agg() of an ordered sub-select is supported over a path of objects "
                               "(.link.prop, Type.link.prop)", subject.span)
            return None
        objects, rest = found
    return _aggregate_ordered(expr, (objects, rest), order, subject, ctx)


def _aggregate_ordered(expr, found, order: Tuple[bool, str], subject, ctx) -> Optional[qir.Expr]:
    from schemac.semantics.exprs import check

    objects, rest = found
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                variables={}, bound_statements={}, set_links=None, set_row=None)
    value = check(ast.Path(tuple(rest), subject.span), inner)
    if value is None:
        return None
    if value.type.element is not None:
        ctx.reporter.error("E0206", "array_agg() of a multi property or an array of several objects is not "
                           "supported", subject.span)
        return None
    atype = ValueType(element=value.type)
    agg = qir.AggregateObjects(expr.span, atype, True, "array_agg", objects, value, order)
    return qir.Call(expr.span, atype, False, "array_agg", (agg,))
