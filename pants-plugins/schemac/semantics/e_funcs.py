"""Function calls: the standard library, extensions (pg_trgm, pgvector,
PostGIS), ranges, dates and times, full-text search, sequences, asserts and value sets
(https://docs.geldata.com/reference/stdlib).

Part of the expression checker (:mod:`schemac.semantics.exprs`), split by concern."""

from __future__ import annotations
import dataclasses
import re
from typing import Any, Callable, Dict, List, Optional, Tuple
from schemac.semantics import computed_sql, fts, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import did_you_mean
from schemac.frozen import fast_init_all
from schemac.semantics.model import ValueType
from schemac.semantics.sqlnames import sql_string
from schemac.semantics.scalars import RANGE_ELEMENTS, SCALARS, range_kind, range_scalar
from schemac.semantics import stdfuncs
from schemac.semantics.extensions import (EXT_FUNCTION_OPTIONAL_LAST, EXT_FUNCTIONS, POSTGIS_FUNCTIONS,
                                          POSTGIS_SCALARS, VECTOR, extension_of)
from schemac.semantics import e_aggregates, e_ops, e_types, exprs


#: Functions with arguments: name -> (arity, argument family, result type); their SQL is
#: ``schemac.pgsql.calls.CALLS[name]``. ``len`` works on str and arrays.
FUNCTIONS_WITH_ARGS = {
    "str_lower": (1, "str", e_types.STR),
    "str_upper": (1, "str", e_types.STR),
    "str_trim": (1, "str", e_types.STR),
    "re_test": (2, "str", e_types.BOOL),
}

def _ext_func(expr: ast.FuncCall, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """A function of an extension module (:data:`schemac.semantics.extensions.EXT_FUNCTIONS`): its
    arguments checked and typed (an untyped parameter takes the argument's type), lowered to the
    Postgres function or operator of the same meaning."""
    if not exprs.ext_needs(expr.name, expr.span, ctx):
        return None
    if expr.name in POSTGIS_FUNCTIONS or extension_of(expr.name) == "postgis":
        return _postgis_func(expr, ctx)
    spec = EXT_FUNCTIONS.get(expr.name)
    if spec is None:
        ext = extension_of(expr.name)
        ctx.reporter.error("E0206", f"function '{expr.name}()' is not supported", expr.span,
                           did_you_mean(expr.name, [f for f in EXT_FUNCTIONS if extension_of(f) == ext]))
        return None
    kinds, result = spec
    optional_last = EXT_FUNCTION_OPTIONAL_LAST.get(expr.name)
    if optional_last is not None and len(expr.args) == len(kinds) + 1:
        kinds = kinds + (optional_last,)
    if len(expr.args) != len(kinds):
        ctx.reporter.error("E0304", f"{expr.name}() takes {len(kinds)} argument{'s' if len(kinds) != 1 else ''}",
                           expr.span)
        return None
    args = []
    for a, kind in zip(expr.args, kinds):
        expected = {"str": e_types.STR, "bytes_or_str": e_types.STR, "int": e_types.INT64, "vector": e_types.VECTOR_PARAM}[kind]
        low = exprs.check(a, ctx, expected)
        if low is None:
            return None
        ok = {"str": low.type.family == "str", "bytes_or_str": low.type.family in ("str", "bytes"),
              "int": low.type.family == "num" and low.type.scalar is not None
              and low.type.scalar.name in ("int16", "int32", "int64"),
              "vector": low.type.family == "vector"}[kind]
        if not ok or low.type.element is not None:
            what = {"bytes_or_str": "str or bytes", "int": "an integer", "vector": VECTOR}.get(kind, kind)
            ctx.reporter.error("E0304", f"{expr.name}() needs {what} here, got {low.type.name}", a.span)
            return None
        args.append(low)
    return qir.Call(expr.span, ValueType(scalar=SCALARS[result]), any(a.nullable for a in args), expr.name,
                    tuple(args))


def _postgis_func(expr: ast.FuncCall, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """A PostGIS function as Gel's ``ext::postgis`` names it (ST_ name without the prefix,
    https://docs.geldata.com/reference/stdlib/postgis), by its overloads in
    :data:`schemac.semantics.extensions.POSTGIS_FUNCTIONS`: the first whose argument types fit
    (an untyped parameter takes the type of the first overload's argument; integers are
    accepted where a float64 is). Empty when an argument is, as PostGIS's functions are strict."""
    overloads = POSTGIS_FUNCTIONS.get(expr.name)
    if overloads is None:
        ctx.reporter.error("E0206", f"function '{expr.name}()' is not supported", expr.span,
                           did_you_mean(expr.name, list(POSTGIS_FUNCTIONS)) or
                           f"supported: {', '.join(n.split('::')[-1] for n in POSTGIS_FUNCTIONS)}")
        return None
    arities = sorted({len(k) for k, _ in overloads})
    candidates = [o for o in overloads if len(o[0]) == len(expr.args)]
    if not candidates:
        ctx.reporter.error("E0304", f"{expr.name}() takes {' or '.join(map(str, arities))} arguments", expr.span)
        return None

    def vt(name: str) -> ValueType:
        return ValueType(scalar=POSTGIS_SCALARS.get(name) or SCALARS[name])

    args = []
    for i, a in enumerate(expr.args):
        low = exprs.check(a, ctx, vt(candidates[0][0][i]))
        if low is None:
            return None
        args.append(low)

    def fits(want: str, got: qir.Expr) -> bool:
        if got.type.element is not None:
            return False
        if want in ("float64", "int64"):
            return got.type.family == "num" and (want == "float64" or got.type.scalar.name in
                                                 ("int16", "int32", "int64"))  # type: ignore[union-attr]
        return got.type.family == vt(want).family

    for kinds, result in candidates:
        if all(fits(k, a) for k, a in zip(kinds, args)):
            # (the overload's argument types: the lowering casts a number to a float64 one)
            return qir.Call(expr.span, vt(result), any(a.nullable for a in args), expr.name, tuple(args), kinds)
    got = ", ".join(a.type.name for a in args)
    want = "; ".join("(" + ", ".join(k) + ")" for k, _ in candidates)
    ctx.reporter.error("E0304", f"{expr.name}() takes {want}, got ({got})", expr.span)
    return None


def _range_func(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """Gel's range functions (https://docs.geldata.com/reference/stdlib/range):
    ``range(lower, upper)`` (bounds ``[lower, upper)``, either may be empty: unbounded) ->
    ``int8range($1, $2)`` etc.; ``contains(r, x)`` -> ``r @> x`` (``x`` a value or a range);
    ``overlaps(a, b)`` -> ``a && b``; ``range_is_empty(r)``, ``range_get_lower(r)``,
    ``range_get_upper(r)`` -> ``isempty``, ``lower``, ``upper``."""
    arity = {"range": 2, "contains": 2, "overlaps": 2}.get(name, 1)
    if len(expr.args) != arity:
        ctx.reporter.error("E0304", f"{name}() takes {arity} argument{'s' if arity > 1 else ''}", expr.span)
        return None
    if name == "range":
        lo = exprs.check(expr.args[0], ctx)
        if lo is None:
            return None
        hi = exprs.check(expr.args[1], ctx, lo.type)
        if hi is None:
            return None
        elem = lo.type.scalar.name if lo.type.scalar is not None and lo.type.element is None else None
        if elem not in RANGE_ELEMENTS or hi.type.family != lo.type.family:
            ctx.reporter.error("E0304", f"range() needs two bounds of one range element type, got {lo.type.name} and "
                               f"{hi.type.name}", expr.span,
                               "ranges are of int32, int64, decimal, datetime, cal::local_datetime or cal::local_date")
            return None
        rt = range_scalar(elem, False)  # type: ignore[arg-type]
        return qir.Call(expr.span, ValueType(scalar=rt), lo.nullable or hi.nullable, "range", (lo, hi))
    first = exprs.check(expr.args[0], ctx)
    if first is None:
        return None
    kind = range_kind(first.type.scalar) if first.type.element is None else ""
    if not kind:
        ctx.reporter.error("E0304", f"{name}() needs a range or multirange, got {first.type.name}", expr.args[0].span)
        return None
    elem_name = first.type.scalar.sql_family.split(":", 1)[1]  # type: ignore[union-attr]
    if name in ("range_is_empty", "range_get_lower", "range_get_upper"):
        if kind != "range":
            ctx.reporter.error("E0304", f"{name}() needs a range, got {first.type.name}", expr.args[0].span)
            return None
        if name == "range_is_empty":
            return qir.Call(expr.span, e_types.BOOL, first.nullable, name, (first,))
        return qir.Call(expr.span, ValueType(scalar=SCALARS[elem_name]), True, name, (first,))
    second = exprs.check(expr.args[1], ctx, first.type)
    if second is None:
        return None
    allowed = {first.type.family, f"range:{elem_name}", f"multirange:{elem_name}"}
    if name == "contains":
        allowed.add(SCALARS[elem_name].sql_family)
    if second.type.family not in allowed or second.type.element is not None:
        ctx.reporter.error("E0304", f"{name}() cannot take {first.type.name} and {second.type.name}", expr.span)
        return None
    # (a parameter is always cast: '@>' takes a range or an element, Postgres cannot tell which)
    return qir.Call(expr.span, e_types.BOOL, first.nullable or second.nullable, "range_" + name, (first, second))


#: Gel's duration constructors (named arguments) -> (result, their units).
_TIME_CONSTRUCTORS = {
    "to_duration": ("duration", ("hours", "minutes", "seconds", "microseconds")),
    "cal::to_relative_duration": ("cal::relative_duration", (
        "years", "months", "days", "hours", "minutes", "seconds", "microseconds")),
    "cal::to_date_duration": ("cal::date_duration", ("years", "months", "days")),
}


def _time_func(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """Gel's date and time constructors (https://docs.geldata.com/reference/stdlib/datetime):
    ``to_duration(hours := 1, minutes := 30)`` (and ``cal::to_relative_duration``,
    ``cal::to_date_duration``) -> ``make_interval(...)``; ``cal::to_local_date(s)`` and the other
    ``cal::to_local_*(s)`` -> a cast of the text; ``cal::to_local_date(dt, zone)`` /
    ``cal::to_local_datetime(dt, zone)`` -> the wall-clock date / time of ``dt`` in ``zone``;
    ``duration_to_seconds(d)`` -> ``EXTRACT(EPOCH FROM d)`` (decimal)."""
    if name in _TIME_CONSTRUCTORS:
        result, units = _TIME_CONSTRUCTORS[name]
        if not expr.args:
            ctx.reporter.error("E0304", f"{name}() needs at least one named argument", expr.span,
                               f"its arguments: {', '.join(n + ' := ...' for n in units)}")
            return None
        nullable = False
        values: List[qir.Expr] = []
        for arg in expr.args:
            if not isinstance(arg, ast.NamedArg) or arg.name not in units:
                ctx.reporter.error("E0304", f"{name}() takes named arguments: {', '.join(units)}",
                                   arg.span, did_you_mean(arg.name, list(units)) if isinstance(arg, ast.NamedArg) else None)
                return None
            low = exprs.check(arg.value, ctx, e_types.INT64)
            if low is None:
                return None
            integral = low.type.scalar is not None and low.type.scalar.name in ("int16", "int32", "int64") \
                and not (isinstance(arg.value, ast.Literal) and arg.value.kind == "float")
            if low.type.family != "num" or low.type.element is not None or (arg.name != "seconds" and not integral):
                what = "a number" if arg.name == "seconds" else "an integer"
                got = "a fractional number" if isinstance(arg.value, ast.Literal) and arg.value.kind == "float" \
                    else low.type.name
                ctx.reporter.error("E0304", f"'{arg.name}' must be {what}, got {got}", arg.value.span,
                                   "fractions of a unit go in seconds := ..." if arg.name != "seconds" else None)
                return None
            nullable = nullable or low.nullable
            values.append(low)
        # (the units, in the order of the values)
        return qir.Call(expr.span, ValueType(scalar=SCALARS[result]), nullable, name, tuple(values),
                        tuple(arg.name for arg in expr.args))
    args = []
    for a in expr.args:
        low = exprs.check(a, ctx, e_types.STR)
        if low is None:
            return None
        args.append(low)
    if name == "duration_to_seconds":
        if len(args) != 1 or args[0].type.family not in ("duration",):
            ctx.reporter.error("E0304", "duration_to_seconds() takes one duration", expr.span)
            return None
        return qir.Call(expr.span, ValueType(scalar=SCALARS["decimal"]), args[0].nullable, name, (args[0],))
    target = {"cal::to_local_date": "cal::local_date", "cal::to_local_datetime": "cal::local_datetime",
              "cal::to_local_time": "cal::local_time"}[name]
    nullable = any(a.nullable for a in args)
    if len(args) == 1 and args[0].type.family == "str":
        return qir.Call(expr.span, ValueType(scalar=SCALARS[target]), nullable, name + "/str", (args[0],))
    if len(args) == (6 if name == "cal::to_local_datetime" else 3) \
            and all(a.type.family == "num" and a.type.element is None for a in args):
        # the parts (year, month, day [, hour, min, sec]), sec a float64
        # (https://docs.geldata.com/reference/stdlib/datetime#function::cal::to_local_date)
        return qir.Call(expr.span, ValueType(scalar=SCALARS[target]), nullable, name + "/parts", tuple(args))
    if len(args) == 2 and args[0].type.family == "datetime" and args[1].type.family == "str":
        return qir.Call(expr.span, ValueType(scalar=SCALARS[target]), nullable, name + "/zone", (args[0], args[1]))
    ctx.reporter.error("E0304", f"{name}() takes a str, or a datetime and a time zone name", expr.span,
                       f"write e.g. {name}('...') or {name}(datetime_current(), 'Europe/Paris')")
    return None


#: to_int16(s) ... to_decimal(s): the type each reads a str as (with no format argument).
_TO_NUMBER = {"to_int16": "int16", "to_int32": "int32", "to_int64": "int64", "to_float32": "float32",
              "to_float64": "float64", "to_decimal": "decimal", "to_bigint": "bigint"}


def _to_datetime(expr: ast.FuncCall, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``to_datetime()`` (https://docs.geldata.com/reference/stdlib/datetime#function::std::to_datetime):
    of an ISO 8601 string with a time zone (``CAST(s AS timestamptz)``; the statement fails on
    another string, as Gel's, where Postgres would read it in the session's time zone); of a
    string and a format holding ``TZH`` (``to_timestamp(s, fmt)``); of a ``cal::local_datetime``
    and a time zone (``timezone(zone, ldt)``); of the parts year, month, day, hour, min, sec and a
    time zone (``make_timestamptz``); of seconds since the Unix epoch (``to_timestamp(x)``)."""
    if any(isinstance(a, ast.NamedArg) for a in expr.args) or len(expr.args) not in (1, 2, 7):
        ctx.reporter.error("E0304", "to_datetime() takes a str [and a format], a cal::local_datetime and a time zone, "
                           "seven parts (year, month, day, hour, min, sec, zone) or a number of seconds", expr.span)
        return None
    args = []
    for i, a in enumerate(expr.args):
        low = exprs.check(a, ctx, (e_types.INT64 if i < 5 else e_types.FLOAT64 if i == 5 else e_types.STR) if len(expr.args) == 7 else e_types.STR)
        if low is None:
            return None
        if low.type.element is not None:
            ctx.reporter.error("E0304", f"to_datetime() cannot take {low.type.name}", a.span)
            return None
        args.append(low)
    families = tuple(a.type.family for a in args)
    nullable = any(a.nullable for a in args)
    if families == ("str",):
        return qir.Call(expr.span, e_types.DATETIME, nullable, "to_datetime/str", tuple(args))
    if families == ("num",):
        return qir.Call(expr.span, e_types.DATETIME, nullable, "to_datetime/epoch", tuple(args))
    if families == ("local_datetime", "str"):
        return qir.Call(expr.span, e_types.DATETIME, nullable, "to_datetime/zone", tuple(args))
    if families == ("str", "str"):
        fmt = expr.args[1]
        if not (isinstance(fmt, ast.Literal) and fmt.kind == "str"):
            ctx.reporter.error("E0206", "to_datetime() with a format that is not a string literal is not supported",
                               fmt.span, "write the format, e.g. to_datetime(s, 'YYYY-MM-DD HH24:MI TZH')")
            return None
        unquoted = re.sub(r'"([^"\\]|\\.)*"', "", str(fmt.value))
        if "TZH" not in unquoted:
            ctx.reporter.error("E0304", f"to_datetime()'s format {sql_string(str(fmt.value))} has no time zone",
                               fmt.span, "a datetime needs one: add TZH (and TZM), or read a cal::local_datetime with "
                               "cal::to_local_datetime(s, fmt)")
            return None
        return qir.Call(expr.span, e_types.DATETIME, nullable, "to_datetime/format", tuple(args))
    if len(args) == 7 and families[:6] == ("num",) * 6 and families[6] == "str":
        return qir.Call(expr.span, e_types.DATETIME, nullable, "to_datetime/parts", tuple(args))
    ctx.reporter.error("E0304", f"to_datetime() cannot take ({', '.join(a.type.name for a in args)})", expr.span,
                       "it takes a str [and a format], a cal::local_datetime and a time zone, seven parts or a number")
    return None


def _fts_search(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext, exists: bool = False) -> Optional[qir.Expr]:
    """``fts::search(Doc, q [, language := 'eng'] [, weights := w])``
    (https://docs.geldata.com/reference/stdlib/fts) of the row in scope, a ``Doc``: Gel's
    ``optional tuple<object: Doc, score: float32>``. Under ``exists`` (``exists`` true) it is
    whether the row's document matches; :data:`schemac.semantics.fts.SCORE_FUNC` (what
    ``res.score`` of ``with res := (select fts::search(...))`` becomes) is the score of the
    match. See :mod:`schemac.semantics.fts`."""
    if name == "fts::with_options":
        ctx.reporter.error("E0304", "fts::with_options() is only valid in an fts::index", expr.span)
        return None
    positional = [a for a in expr.args if not isinstance(a, ast.NamedArg)]
    named = [a for a in expr.args if isinstance(a, ast.NamedArg)]
    subject = ctx.subject
    if len(positional) != 2 or not isinstance(positional[0], ast.VarRef) or subject is None \
            or positional[0].name not in (subject.name, subject.qualname):
        ctx.reporter.error("E0304", "fts::search() takes the type being selected and a query string", expr.span,
                           f"write e.g. filter exists fts::search({subject.name if subject else 'Doc'}, <str>$q)")
        return None
    if name != fts.SCORE_FUNC and not exists:
        ctx.reporter.error("E0304", f"fts::search() is an optional tuple<object: {subject.name}, score: float32>, "
                           "not a bool", expr.span,
                           f"test a match with exists fts::search({subject.name}, ...), or bind it, with res := "
                           f"(select fts::search({subject.name}, ...)), and select res.object {{ ..., "
                           "score := res.score }")
        return None
    if subject.fts_document is None:
        ctx.reporter.error("E0206", f"type '{subject.name}' has no fts::index to search", expr.span,
                           f"declare index fts::index on (fts::with_options(.<property>, language := "
                           f"fts::Language.eng)) on {subject.name}")
        return None
    language = "eng"
    weights: Optional[qir.Expr] = None
    for arg in named:
        if arg.name not in ("language", "weights"):
            ctx.reporter.error("E0304", f"fts::search() has no argument '{arg.name}'", arg.span,
                               "its named arguments: language := '<lang>', weights := [<A>, <B>, <C>, <D>]")
            return None
        value = arg.value
        if arg.name == "weights":
            weights = exprs.check(value, ctx, ValueType(element=e_types.FLOAT64))
            if weights is None:
                return None
            if weights.type.element is None or weights.type.element.family != "num":
                ctx.reporter.error("E0304", f"weights must be an array<float64>, got {weights.type.name}", value.span,
                                   "e.g. weights := [1, 0.5] (the weights of categories A, B, C, D)")
                return None
            continue
        if isinstance(value, ast.Literal) and value.kind == "str" and value.value in fts.LANGUAGES:
            language = str(value.value)
        elif isinstance(value, ast.Literal):
            ctx.reporter.error("E0304", "language must name an fts::Language member", arg.span,
                               did_you_mean(str(value.value), list(fts.LANGUAGES))
                               or f"one of: {', '.join(fts.LANGUAGES)}")
            return None
        else:
            ctx.reporter.error("E0206", "fts::search() with a language other than a string literal is not supported",
                               arg.span, "e.g. language := 'eng'")
            return None
    query = exprs.check(positional[1], ctx, e_types.STR)
    if query is None:
        return None
    if query.type.family != "str" or query.type.element is not None:
        ctx.reporter.error("E0304", f"fts::search() needs a str query, got {query.type.name}", positional[1].span)
        return None
    parts: List[qir.Expr] = []
    document: List[Tuple[str, str]] = []
    for value, module, part_language, weight in subject.fts_parts:
        low = exprs.check(value, dataclasses.replace(ctx, module=module))  # type: ignore[arg-type]
        if low is None:
            return None
        parts.append(low)
        document.append((part_language, weight or "A"))
    tsquery: qir.Expr = qir.FtsQuery(query.span, e_types.TSQUERY, query.nullable, query, fts.regconfig(language))
    tsquery = _fts_bound(tsquery, (positional[1].span, language), ctx)
    if weights is not None:
        weights = qir.FtsWeights(weights.span, e_types.REAL_ARRAY, False, weights)
        weights = _fts_bound(weights, (weights.span, "weights"), ctx)
    score = name == fts.SCORE_FUNC
    return qir.FtsSearch(expr.span, e_types.FLOAT32 if score else e_types.BOOL, query.nullable, tuple(parts), tuple(document),
                         tsquery, score, weights)


def _fts_bound(value: qir.Expr, key: object, ctx: exprs.ExprContext) -> qir.Expr:
    """``value`` (a full-text query's tsquery, a search's weights) computed once, in a ``with``
    binding of the query (``ctx.fts_queries``, one per ``key``), where the query has them;
    else ``value`` itself."""
    if ctx.fts_queries is None:
        return value
    if key not in ctx.fts_queries:
        taken = set(ctx.variables) | set(ctx.type_sets) | set(ctx.bound_statements) \
            | {b.name for b in ctx.fts_queries.values()}
        n = len(ctx.fts_queries) + 1
        while f"fts{n}" in taken:
            n += 1
        ctx.fts_queries[key] = qir.WithValue(f"fts{n}", value, False)
    binding = ctx.fts_queries[key]
    return qir.VarRef(value.span, value.type, value.nullable, binding.name, binding)


def _sequence_func(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``sequence_next(introspect T)`` -> ``nextval(...)``; ``sequence_reset(introspect T)`` ->
    ``setval(..., 1, false)`` (the next value is 1 again), ``sequence_reset(introspect T, v)`` ->
    ``setval(..., v)`` (the next value is v + 1), as
    https://docs.geldata.com/reference/stdlib/sequence documents them; all return int64."""
    arity = (1,) if name == "sequence_next" else (1, 2)
    if len(expr.args) not in arity or not isinstance(expr.args[0], ast.Introspect):
        ctx.reporter.error("E0304", f"{name}() takes 'introspect <sequence type>'"
                           + (" and an optional int64 value" if name == "sequence_reset" else ""), expr.span,
                           f"write e.g. {name}(introspect TicketNo)")
        return None
    ref = expr.args[0].type
    custom = ctx.schema.find(ref.name, ctx.module, ctx.schema.scalars)
    if custom is None or not getattr(custom, "sequence", None):
        ctx.reporter.error("E0304", f"'{ref}' is not a sequence type", ref.span,
                           "declare it with: scalar type <Name> extending sequence;")
        return None
    seq = (custom.sequence,)  # type: ignore[attr-defined]
    if len(expr.args) == 1:
        return qir.Call(expr.span, e_types.INT64, False, name, (), seq)
    value = exprs.check(expr.args[1], ctx, e_types.INT64)
    if value is None:
        return None
    if value.type.family != "num" or value.type.element is not None:
        ctx.reporter.error("E0304", f"sequence_reset() needs an int64 value, got {value.type.name}", expr.args[1].span)
        return None
    return qir.Call(expr.span, e_types.INT64, value.nullable, name, (value,), seq)


_ASSERTS = ("assert_single", "assert_exists", "assert_distinct")


def assert_call(expr) -> Optional[Tuple[str, object, Optional[object]]]:
    """``(function, argument, message)`` of ``assert_single(x)`` / ``assert_exists(x)`` /
    ``assert_distinct(x)``, also with ``message := <str>`` (``message`` its syntax, else
    ``None``); ``None`` for any other expression."""
    if not isinstance(expr, ast.FuncCall) or expr.name.replace("std::", "") not in _ASSERTS:
        return None
    pos = [a for a in expr.args if not isinstance(a, ast.NamedArg)]
    named = [a for a in expr.args if isinstance(a, ast.NamedArg)]
    if len(pos) != 1 or len(named) > 1 or (named and named[0].name != "message"):
        return None
    return expr.name.replace("std::", ""), pos[0], named[0].value if named else None


def assert_message(message, ctx: exprs.ExprContext):
    """The text of an assertion's ``message := '...'`` (https://docs.geldata.com/reference/stdlib/set#function::std::assert_single):
    ``None`` without one; ``False`` after reporting one that is not a string literal."""
    if message is None:
        return None
    if isinstance(message, ast.Literal) and message.kind == "str":
        return message.value
    ctx.reporter.error("E0206", "an assertion's message := other than a string literal is not supported yet",
                       message.span, "write message := 'the text'")
    return False


#: The set functions that take a set of values written in the query (https://docs.geldata.com/reference/stdlib/set).
_VALUE_SET_AGGREGATES = ("count", "sum", "min", "max", "math::mean", "array_agg", "any", "all")
_UNPACK_FUNCS = ("array_unpack", "std::array_unpack")


def value_set_parts(expr, ctx: Optional[exprs.ExprContext] = None):
    """``{a, b} union array_unpack(arr) union ...`` (also through a ``with`` name bound to one,
    when ``ctx`` is given) as its parts, ``[(syntax, unpacked)]``; ``None`` for any other
    expression (one value, objects, paths)."""
    if ctx is not None and isinstance(expr, ast.VarRef) and expr.name not in ctx.variables \
            and expr.name in ctx.type_sets:
        return value_set_parts(ctx.type_sets[expr.name], ctx)
    if isinstance(expr, ast.BinOp) and expr.op == "union":
        left, right = value_set_parts(expr.left, ctx), value_set_parts(expr.right, ctx)
        if left is None and right is None:
            return None
        return (left if left is not None else [(expr.left, False)]) + \
            (right if right is not None else [(expr.right, False)])
    if isinstance(expr, ast.SetLit) and expr.items:
        return [(item, False) for item in expr.items]
    if isinstance(expr, ast.FuncCall) and expr.name in _UNPACK_FUNCS and len(expr.args) == 1:
        return [(expr.args[0], True)]
    return None


def _objects_part(expr, ctx: exprs.ExprContext) -> bool:
    """Whether a part of a set is (may be) objects: a type, a selection, a ``with`` selection."""
    return isinstance(expr, (ast.SelectExpr, ast.SubSelect, ast.StatementExpr, ast.Path, ast.Backlink)) or (
        isinstance(expr, ast.VarRef) and expr.name not in ctx.variables and (
            expr.name in ctx.type_sets or ctx.schema.find_type(expr.name, ctx.module) is not None))


def value_set_array(expr, ctx: exprs.ExprContext):
    """A set of values written in the query, ``{1, 2}``, ``{<str>$a, <str>$b}``,
    ``array_unpack(<array<int64>>$xs)``, their ``union``, or a ``with`` name bound to one
    (https://docs.geldata.com/reference/edgeql/sets), as the array of its elements in the order
    written (an empty element is none): ``array_remove(ARRAY[a, b], NULL) || coalesce(xs, '{}')``.
    The elements meet at one type as a set literal's do (numbers at the widest). ``None`` when
    ``expr`` is no such set; ``False`` after reporting."""
    call = assert_call(expr)
    if call is not None and call[0] == "assert_distinct" and value_set_parts(call[1], ctx) is not None:
        # `count(assert_distinct({1, 2}))`: the checked set's array
        found = exprs.check(expr, ctx)
        return False if found is None else found
    parts = value_set_parts(expr, ctx)
    if parts is None or any(not unpack and _objects_part(e, ctx) for e, unpack in parts):
        return None
    order = ("int16", "int32", "int64", "bigint", "float32", "float64", "decimal")
    rank = {n: i for i, n in enumerate(order)}
    lows: List[Tuple[qir.Expr, bool]] = []
    elem: Optional[ValueType] = None
    for e, unpack in parts:
        hint = None if isinstance(e, ast.Literal) else elem
        low = exprs.check(e, ctx, ValueType(element=hint) if unpack and hint is not None else hint)
        if low is None:
            return False
        vtype = low.type.element if unpack else low.type
        if vtype is None:
            ctx.reporter.error("E0304", f"array_unpack() needs an array, got {low.type.name}", e.span)
            return False
        if vtype.element is not None or vtype.fields is not None:
            ctx.reporter.error("E0206", f"a set of {vtype.name} values is not supported here yet", e.span)
            return False
        if elem is not None and vtype.family != elem.family:
            ctx.reporter.error("E0304", f"a set mixes {elem.name} and {vtype.name}", e.span,
                               "give every element the same type, e.g. with a cast <T>")
            return False
        if elem is None or (vtype.family == "num" and rank.get(vtype.scalar.name if vtype.scalar else "", -1) >
                            rank.get(elem.scalar.name if elem.scalar else "", -1)):
            elem = vtype
        lows.append((low, unpack))
    assert elem is not None
    # (consts: which parts are arrays unpacked)
    return qir.Call(expr.span, ValueType(element=elem), False, "value_set_array", tuple(low for low, _ in lows),
                    tuple(unpack for _, unpack in lows))


def _value_set_aggregate(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext):
    """``count({1, 2})``, ``sum(array_unpack(<array<int64>>$xs))``, ``array_agg(s)`` of a
    ``with s := {...}``: a set function of a set of values written in the query
    (https://docs.geldata.com/reference/stdlib/set), over the array of its elements
    (:func:`value_set_array`): ``cardinality(arr)``, ``(SELECT sum("_m"."v") FROM unnest(arr)
    AS "_m"("v"))``, ...: as in Gel, ``sum`` of the empty set is 0, ``min``/``max`` empty,
    ``array_agg`` ``[]``, ``any`` false, ``all`` true, and ``math::mean`` fails the statement.
    ``None`` when the argument is no such set; ``False`` after reporting."""
    if len(expr.args) != 1 or isinstance(expr.args[0], ast.NamedArg):
        return None
    if name in ("min", "max") and isinstance(expr.args[0], ast.SetLit):
        return None  # (LEAST / GREATEST: computed_sql.aggregate)
    arr = value_set_array(expr.args[0], ctx)
    if arr is None or arr is False:
        return arr
    elem = arr.type.element
    if name == "count":
        return qir.Call(expr.span, e_types.INT64, False, "count/value_set", (arr,))
    if name == "array_agg":
        return arr
    if name in ("any", "all"):
        if elem.family != "bool":
            ctx.reporter.error("E0304", f"{name}() needs bool values, got {elem.name}", expr.args[0].span)
            return False
        return qir.Call(expr.span, e_types.BOOL, False, name + "/value_set", (arr,))
    found = computed_sql._multi_property_aggregate(expr, name, arr, ctx)
    return False if found is None else found


def _func(expr: ast.FuncCall, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """A function call: an extension's, an aggregate of a set of values, one of the standard
    library's (:data:`_STD_CALLS`, a table from the name to its handlers), a schema's function, or
    a standard function of no arguments (:data:`exprs.FUNCTIONS`)."""
    if expr.name.startswith("ext::"):
        return _ext_func(expr, ctx)
    name = expr.name[5:] if expr.name.startswith("std::") else expr.name
    if name in _VALUE_SET_AGGREGATES:
        found = _value_set_aggregate(expr, name, ctx)
        if found is not None:
            return found or None
    for handler in _STD_CALLS.get(name, ()):
        low = handler(expr, name, ctx)
        if low is not _NOT_THIS_FORM:
            return low
    user = ctx.schema.find(expr.name, ctx.module, ctx.schema.functions)
    if user is not None and not user.alias:  # type: ignore[attr-defined]
        from schemac.semantics import functions

        return functions.call(expr, user, ctx)  # type: ignore[arg-type]
    # looked up by the unqualified name: std::datetime_of_statement() is datetime_of_statement()
    # (https://docs.geldata.com/reference/stdlib/datetime#function::std::datetime_of_statement)
    typ = exprs.FUNCTIONS.get(name)
    if typ is None:
        known = [f for f in exprs.FUNCTIONS if "::" not in f] + list(FUNCTIONS_WITH_ARGS) + ["len", "count"]
        ctx.reporter.error("E0206", f"function '{expr.name}()' is not supported", expr.span,
                           did_you_mean(expr.name, known))
        return None
    if expr.args:
        ctx.reporter.error("E0304", f"'{expr.name}()' takes no arguments", expr.span)
        return None
    return qir.Call(expr.span, typ, False, name, ())


#: A handler's answer for a call of its name in a form it does not read (the next handler of the
#: name, then a schema's function, are tried).
_NOT_THIS_FORM: Any = object()


def _enumerate_call(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext) -> None:
    # (https://docs.geldata.com/reference/stdlib/set#function::std::enumerate: a set of tuples)
    ctx.reporter.error("E0206", "enumerate() is only supported as the selected set (select enumerate({...})) "
                       "and as the set of a 'for' loop yet", expr.span,
                       "write e.g. for x in enumerate(array_unpack(<array<str>>$names)) union (insert ...)")
    return None


def _assert_call(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext):
    """assert_single, assert_exists, assert_distinct (https://docs.geldata.com/reference/stdlib/set)."""
    call = assert_call(expr)
    if call is None:
        return _NOT_THIS_FORM
    message = assert_message(call[2], ctx)
    if message is False:
        return None
    if name == "assert_single":
        # Gel's assert_single: our values are single already; a sub-select is checked by
        # the statement (a scalar sub-select of several rows fails, SQLSTATE 21000).
        sub = computed_sql.as_subselect(call[1])
        if sub is not None and ctx.params is not None:
            if message is not None:
                ctx.reporter.error("E0206", "assert_single(..., message := ...) of a sub-select used as a value "
                                   "is not supported yet", expr.span,
                                   "select the objects: select assert_single((select T filter ...), "
                                   "message := '...') { ... }")
                return None
            return computed_sql.subselect_value(sub, True, ctx)
        return exprs.check(call[1], ctx)  # type: ignore[arg-type]
    if name == "assert_exists":
        return e_ops._assert_exists(expr, call[1], message, ctx)
    found = e_ops._assert_distinct(expr, call[1], message, ctx)
    if found is not None:
        return found or None
    # (of a selection of objects of one type it is dropped before checking: see
    # schemac.semantics.queries._drop_assert_distinct)
    ctx.reporter.error("E0206", "assert_distinct() of a set that may hold duplicates (a union of objects, a for "
                       "loop, a path through links) is not supported yet", expr.span,
                       "assert_distinct() of a selection of objects, assert_distinct((select T filter ...)), "
                       "of a set of values and of a multi property are supported")
    return None


def _contains_call(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext):
    if len(expr.args) != 2:
        return _NOT_THIS_FORM
    found = e_ops._contains(expr, ctx)
    return _NOT_THIS_FORM if found is False else found


def _re_match_call(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext):
    found = _std_func(expr, name, ctx, (("str", "str"), "str"))
    # an array of the first match's groups ('' for a group that matched nothing), empty
    # when the pattern does not match (https://docs.geldata.com/reference/stdlib/string#function::std::re_match)
    return None if found is None else dataclasses.replace(found, type=ValueType(element=e_types.STR), nullable=True)


def _to_number_call(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext):
    """to_int16(s) without a format is Gel's cast <int16>s (its standard library:
    ``CASE WHEN fmt IS NULL THEN str_to_int16(s)``, the cast's function;
    https://docs.geldata.com/reference/stdlib/numbers#function::std::to_int16)."""
    if len(expr.args) != 1 or isinstance(expr.args[0], ast.NamedArg):
        return _NOT_THIS_FORM
    arg = exprs.check(expr.args[0], ctx, e_types.STR)
    if arg is None:
        return None
    if arg.type.family != "str" or arg.type.element is not None:
        ctx.reporter.error("E0304", f"{name}() reads a str, got {arg.type.name}", expr.args[0].span)
        return None
    return exprs.check(ast.Cast(ast.TypeRef(_TO_NUMBER[name], (), expr.span), expr.args[0], expr.span), ctx)


def _len_call(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext):
    if len(expr.args) != 1:
        ctx.reporter.error("E0304", "len() takes one argument", expr.span)
        return None
    arg = exprs.check(expr.args[0], ctx)
    if arg is None:
        return None
    if arg.type.element is not None:
        return qir.Call(expr.span, e_types.INT64, arg.nullable, "len_array", (arg,))
    if arg.type.family not in ("str", "bytes"):
        ctx.reporter.error("E0304", f"len() needs a str, bytes or array, got {arg.type.name}", expr.args[0].span)
        return None
    return qir.Call(expr.span, e_types.INT64, arg.nullable, "len_str" if arg.type.family == "str" else "len_bytes", (arg,))


def _call_with_args(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext):
    """A function of :data:`FUNCTIONS_WITH_ARGS`: its arity and its arguments' family checked."""
    arity, family, result = FUNCTIONS_WITH_ARGS[name]
    if len(expr.args) != arity:
        ctx.reporter.error("E0304", f"{name}() takes {arity} argument{'s' if arity > 1 else ''}", expr.span)
        return None
    args = []
    for a in expr.args:
        low = exprs.check(a, ctx, e_types.STR)
        if low is None:
            return None
        if low.type.family != family:
            ctx.reporter.error("E0304", f"{name}() needs {family} arguments, got {low.type.name}", a.span)
            return None
        args.append(low)
    return qir.Call(expr.span, result, any(a.nullable for a in args), name, tuple(args))


#: Standard-library functions with a direct Postgres spelling (:mod:`schemac.pgsql.calls_ops`)
#: and Gel's empty-set rule (empty in, empty out: Postgres' NULL in, NULL out): name ->
#: (argument families, result scalar (``None``: the first argument's type)). Gel:
#: https://docs.geldata.com/reference/stdlib/string, .../stdlib/numbers, .../stdlib/math,
#: .../stdlib/uuid, .../stdlib/json.
_STD_FUNCS = {
    "str_trim_start": (("str",), "str"),
    "str_trim_end": (("str",), "str"),
    "str_repeat": (("str", "num"), "str"),
    "str_replace": (("str", "str", "str"), "str"),
    "str_reverse": (("str",), "str"),
    "find": (("str", "str"), "int64"),
    "math::abs": (("num",), None),
    "math::pi": ((), "float64"),
    "math::e": ((), "float64"),
    "math::acos": (("num",), "float64"),
    "math::asin": (("num",), "float64"),
    "math::atan": (("num",), "float64"),
    "math::atan2": (("num", "num"), "float64"),
    "math::cos": (("num",), "float64"),
    "math::cot": (("num",), "float64"),
    "math::sin": (("num",), "float64"),
    "math::tan": (("num",), "float64"),
    "uuid_generate_v4": ((), "uuid"),
    "uuid_generate_v1mc": ((), "uuid"),
    "json_typeof": (("json",), "str"),
    "to_json": (("str",), "json"),
    "random": ((), "float64"),
}

#: Gel's datetime_get elements (https://docs.geldata.com/reference/stdlib/datetime#function::std::datetime_get).
_DATETIME_GET = ("epochseconds", "century", "day", "decade", "dow", "doy", "hour", "isodow", "isoyear", "microseconds",
                 "millennium", "milliseconds", "minutes", "month", "quarter", "seconds", "week", "year")
#: cal::date_get's elements (https://docs.geldata.com/reference/stdlib/datetime#function::cal::date_get).
_DATE_GET = ("century", "day", "decade", "dow", "doy", "isodow", "isoyear", "millennium", "month", "quarter", "week",
             "year")
#: Gel's datetime_truncate units (https://docs.geldata.com/reference/stdlib/datetime#function::std::datetime_truncate).
_DATETIME_TRUNCATE = ("microseconds", "milliseconds", "seconds", "minutes", "hours", "days", "weeks", "months",
                      "quarters", "years", "decades", "centuries")


def _std_func(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext, spec=None, func: Optional[str] = None
              ) -> Optional[qir.Call]:
    """A function of :data:`_STD_FUNCS` (or ``spec``, an entry of that form, the call named
    ``func``): its arguments checked against the families, the result empty when an argument
    may be."""
    families, result = spec or _STD_FUNCS[name]
    if len(expr.args) != len(families) or any(isinstance(a, ast.NamedArg) for a in expr.args):
        ctx.reporter.error("E0304", f"{name}() takes {len(families)} argument{'' if len(families) == 1 else 's'}",
                           expr.span)
        return None
    args = []
    for a, family in zip(expr.args, families):
        low = exprs.check(a, ctx, e_types.STR if family == "str" else e_types.INT64 if family == "num" else None)
        if low is None:
            return None
        if low.type.family != family or low.type.element is not None:
            ctx.reporter.error("E0304", f"{name}() needs a {family} argument here, got {low.type.name}", a.span)
            return None
        args.append(low)
    rtype = args[0].type if result is None else ValueType(scalar=SCALARS[result])
    return qir.Call(expr.span, rtype, any(a.nullable for a in args), func or name, tuple(args))


def _duration_get(expr: ast.FuncCall, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``duration_get(d, 'totalseconds')`` of a ``duration``
    (https://docs.geldata.com/reference/stdlib/datetime#function::std::duration_get): its length
    in seconds, a float64, ``CAST(EXTRACT(EPOCH FROM d) AS float8)``. The other units read a
    field of Gel's duration, which has no days: a difference of datetimes here is a Postgres
    interval that may hold days, so they are E0206."""
    if len(expr.args) != 2 or any(isinstance(a, ast.NamedArg) for a in expr.args):
        ctx.reporter.error("E0304", "duration_get() takes a duration and a unit", expr.span)
        return None
    unit = expr.args[1]
    if not (isinstance(unit, ast.Literal) and unit.kind == "str"):
        ctx.reporter.error("E0206", "duration_get() with a unit that is not a string literal is not supported yet",
                           unit.span)
        return None
    if unit.value != "totalseconds":
        ctx.reporter.error("E0206", f"duration_get() of '{unit.value}' is not supported yet (only 'totalseconds')",
                           unit.span)
        return None
    d = exprs.check(expr.args[0], ctx)
    if d is None:
        return None
    if d.type.family != "duration" or d.type.scalar is None or d.type.scalar.name != "duration":
        ctx.reporter.error("E0304", f"duration_get() needs a duration, got {d.type.name}", expr.args[0].span)
        return None
    return qir.Call(expr.span, e_types.FLOAT64, d.nullable, "duration_get/totalseconds", (d,))


def _datetime_unit_func(expr: ast.FuncCall, name: str, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``datetime_get(dt, 'year')`` (a float64: ``date_part('year', dt AT TIME ZONE 'UTC')``)
    and ``datetime_truncate(dt, 'days')`` (``date_trunc('day', dt, 'UTC')``): Gel reads a
    datetime in UTC. ``datetime_get`` of a ``cal::local_datetime`` and ``cal::date_get(d,
    'month')`` of a ``cal::local_date`` (https://docs.geldata.com/reference/stdlib/datetime#function::cal::date_get)
    read the value as it is: ``date_part('month', d)``. The unit is a string literal."""
    units = _DATETIME_TRUNCATE if name == "datetime_truncate" else _DATE_GET if name == "cal::date_get" \
        else _DATETIME_GET
    if len(expr.args) != 2 or any(isinstance(a, ast.NamedArg) for a in expr.args):
        what = "a cal::local_date" if name == "cal::date_get" else "a datetime"
        ctx.reporter.error("E0304", f"{name}() takes {what} and a unit", expr.span)
        return None
    unit = expr.args[1]
    if not (isinstance(unit, ast.Literal) and unit.kind == "str"):
        ctx.reporter.error("E0206", f"{name}() with a unit that is not a string literal is not supported yet",
                           unit.span, f"write the unit, e.g. {name}(dt, '{next(iter(units))}')")
        return None
    field_name = str(unit.value)
    if field_name not in units:
        ctx.reporter.error("E0304", f"'{unit.value}' is not a unit of {name}()", unit.span,
                           "units: " + ", ".join(units))
        return None
    dt = exprs.check(expr.args[0], ctx, e_types.LOCAL_DATE if name == "cal::date_get" else e_types.DATETIME)
    if dt is None:
        return None
    scalar = dt.type.scalar.name if dt.type.scalar is not None and dt.type.element is None else None
    if name == "cal::date_get":
        if scalar != "cal::local_date":
            ctx.reporter.error("E0304", f"cal::date_get() needs a cal::local_date, got {dt.type.name}",
                               expr.args[0].span)
            return None
        return qir.Call(expr.span, e_types.FLOAT64, dt.nullable, name, (dt,), (field_name,))
    if name == "datetime_get" and scalar == "cal::local_datetime":
        if field_name == "epochseconds":
            ctx.reporter.error("E0304", "'epochseconds' is not a unit of datetime_get() of a cal::local_datetime",
                               unit.span)
            return None
        return qir.Call(expr.span, e_types.FLOAT64, dt.nullable, "datetime_get/local", (dt,), (field_name,))
    if scalar != "datetime":
        ctx.reporter.error("E0206" if dt.type.family in ("datetime", "local_datetime", "local_date") else "E0304",
                           f"{name}() of a {dt.type.name} is not supported" if dt.type.family != "datetime" or
                           dt.type.scalar is None else f"{name}() needs a datetime, got {dt.type.name}",
                           expr.args[0].span)
        return None
    if name == "datetime_get":
        return qir.Call(expr.span, e_types.FLOAT64, dt.nullable, name, (dt,), (field_name,))
    return qir.Call(expr.span, e_types.DATETIME, dt.nullable, name, (dt,), (field_name,))


def _std_call_table() -> Dict[str, Tuple[Callable[..., Any], ...]]:
    """:data:`_STD_CALLS`: each name's handlers ``(expr, name, ctx)``, in the order they are tried."""
    rules: Tuple[Tuple[Any, Callable[..., Any]], ...] = (
        (("enumerate",), _enumerate_call),
        (_ASSERTS, _assert_call),
        (("any", "all"), lambda expr, name, ctx: e_ops._any_all(expr, name, ctx) if len(expr.args) == 1
         else _NOT_THIS_FORM),
        (("sequence_next", "sequence_reset"), _sequence_func),
        (("fts::search", "fts::with_options", fts.SCORE_FUNC), _fts_search),
        (tuple(_TIME_CONSTRUCTORS) + ("cal::to_local_date", "cal::to_local_datetime", "cal::to_local_time",
                                      "duration_to_seconds"), _time_func),
        (("contains",), _contains_call),
        (("range", "contains", "overlaps", "range_is_empty", "range_get_lower", "range_get_upper"), _range_func),
        (("count",), lambda expr, name, ctx: e_aggregates._count(expr, ctx)),
        (("json_get",), lambda expr, name, ctx: e_ops._json_get(expr, ctx)),
        # with the characters to remove (https://docs.geldata.com/reference/stdlib/string#function::std::str_trim)
        (("str_trim", "str_trim_start", "str_trim_end"),
         lambda expr, name, ctx: _std_func(expr, name, ctx, (("str", "str"), "str"), name + "/chars")
         if len(expr.args) == 2 else _NOT_THIS_FORM),
        (("re_match",), _re_match_call),
        (("to_datetime",), lambda expr, name, ctx: _to_datetime(expr, ctx)),
        (tuple(_TO_NUMBER), _to_number_call),
        (tuple(_STD_FUNCS), _std_func),
        (("datetime_get", "datetime_truncate", "cal::date_get"), _datetime_unit_func),
        (("duration_get",), lambda expr, name, ctx: _duration_get(expr, ctx)),
        (("min", "max", "sum"), lambda expr, name, ctx: computed_sql.aggregate(expr, name, ctx)),
        (("math::mean",), lambda expr, name, ctx: stdfuncs.mean(expr, ctx)),
        (tuple(stdfuncs.SPREAD), lambda expr, name, ctx: stdfuncs.spread(expr, name, ctx)),
        (("to_str",), lambda expr, name, ctx: stdfuncs.to_str(expr, ctx)),
        (("array_join",), lambda expr, name, ctx: stdfuncs.array_join(expr, ctx)),
        (("str_split",), lambda expr, name, ctx: stdfuncs.str_split(expr, ctx)),
        (("re_replace",), lambda expr, name, ctx: stdfuncs.re_replace(expr, ctx)),
        (("array_agg",), lambda expr, name, ctx: stdfuncs.array_agg(expr, ctx)),
        (tuple(stdfuncs.SCALAR_MATH), lambda expr, name, ctx: stdfuncs.scalar_math(expr, name, ctx)),
        (("len",), _len_call),
        (tuple(FUNCTIONS_WITH_ARGS), _call_with_args),
    )
    table: Dict[str, Tuple[Callable[..., Any], ...]] = {}
    for names, handler in rules:
        for name in names:
            table[name] = table.get(name, ()) + (handler,)
    return table


#: The standard library's functions by name (without ``std::``): each name's handlers, tried in
#: order; a handler answers :data:`_NOT_THIS_FORM` for a call of a form it does not read.
_STD_CALLS = _std_call_table()
