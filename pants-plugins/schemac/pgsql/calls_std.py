"""How Postgres spells the standard library's aggregates, math, ``to_str`` and string and array
functions (:mod:`schemac.semantics.stdfuncs`, :mod:`schemac.semantics.computed_sql`): entries of
:data:`schemac.pgsql.calls.CALLS`.

The result type is the call's own (``node.type``): a ``sum`` is cast to Gel's result type
(``int64`` of integers, Postgres' ``sum`` of ``bigint`` being ``numeric``), an empty
``array_agg`` is ``[]`` of its type. Where Gel fails on an empty input (``math::mean``,
``math::stddev``: "not enough elements in input set",
https://docs.geldata.com/reference/stdlib/math), the failure is a cast of the message, with the
value read again as text so that Postgres cannot fold it into a constant error at planning time.
"""

from __future__ import annotations

from typing import Dict

from schemac.pgsql.spelling import Entry, Spelling
from schemac.semantics import qir
from schemac.semantics.sqlnames import sql_string, template_text

_NO_MEAN = "'invalid input to mean(): not enough elements in input set'"

#: An aggregate over the elements of an array (a ``multi`` property): ``{agg}`` the aggregate.
_OVER_ARRAY = '(SELECT {agg}("_m"."v") FROM unnest({{0}}) AS "_m"("v"))'


def _mean(node: qir.Call) -> Spelling:
    """``math::mean`` of a set (its ``avg``, ``{0}``), or of one value: the statement fails
    when it is empty."""
    pg = node.type.pg
    return Spelling(f"coalesce(CAST({{0}} AS {pg}), CAST({_NO_MEAN} || coalesce(CAST({{0}} AS text), '') "
                    f"AS {pg}))", "p")


def _mean_or(node: qir.Call) -> Spelling:
    """``math::mean(s ?? x)``: the mean of the set, or the fallback when the set is empty."""
    pg = node.type.pg
    return Spelling(f"coalesce(CAST({{0}} AS {pg}), CAST({{1}} AS {pg}))", "p")


def _mean_array(node: qir.Call) -> Spelling:
    """``math::mean`` of a ``multi`` property's values."""
    pg = node.type.pg
    mean = f"CAST({_OVER_ARRAY.format(agg='avg')} AS {pg})"
    return Spelling(f"coalesce({mean}, CAST({_NO_MEAN} || coalesce(CAST({mean} AS text), '') AS {pg}))")


#: Gel's sample and population deviation and variance -> Postgres' aggregates (the checker,
#: ``schemac.semantics.stdfuncs.spread``, names the Gel function; the SQL is spelled here).
SPREAD = {"math::stddev": "stddev_samp", "math::stddev_pop": "stddev_pop", "math::var": "var_samp",
          "math::var_pop": "var_pop"}


def _spread(name: str, over_array: bool):
    """``math::stddev`` and the like: of objects (the aggregate is ``{0}``) or of the values of
    a ``multi`` property; the statement fails with too few values, as Gel's."""
    message = f"'invalid input to {name[6:]}(): not enough elements in input set'"

    def spell(node: qir.Call) -> Spelling:
        pg = node.type.pg
        if over_array:
            computed = f'CAST((SELECT {SPREAD[name]}("_m"."v") FROM unnest({{0}}) AS "_m"("v")) AS {pg})'
        else:
            computed = f"CAST({{0}} AS {pg})"
        return Spelling(f"coalesce({computed}, CAST({message} || coalesce(CAST({computed.replace('{0}', '{1}')} "
                        f"AS text), '') AS {pg}))")

    return spell


def _exact(node: qir.Call) -> bool:
    """The result is a ``decimal`` or ``bigint`` (a function of one keeps its type)."""
    scalar = node.type.scalar
    return scalar is not None and scalar.name in ("decimal", "bigint")


def _rounding(func: str):
    """``round`` / ``math::ceil`` / ``math::floor``: of a decimal or bigint as it is; else of a
    ``float64`` (a float literal is a numeric in Postgres, whose ``round`` takes a tie away from
    zero where Gel's float64 ``round`` takes it to the even neighbour: ``round(2.5)`` is 2)."""
    def spell(node: qir.Call) -> Spelling:
        return Spelling(f"{func}({{0}})" if _exact(node) else f"{func}(CAST({{0}} AS double precision))", "p")

    return spell


def _logarithm(func: str):
    """``math::ln`` / ``math::lg`` / ``math::exp`` of the value cast to the result type."""
    def spell(node: qir.Call) -> Spelling:
        return Spelling(f"{func}(CAST({{0}} AS {node.type.pg}))", "p")

    return spell


#: ``to_str(value)`` without a format, by the value's family (``{0}`` the value): Gel's text of
#: each (https://docs.geldata.com/reference/stdlib/string#function::std::to_str), its ISO 8601
#: JSON form for dates and times.
TO_STR_PLAIN = {
    "num": "CAST({0} AS text)",
    "str": "{0}",
    "json": "CAST({0} AS text)",
    "bytes": "convert_from({0}, 'UTF8')",
    "datetime": "(trim(CAST(to_json({0} AT TIME ZONE 'UTC') AS text), '\"') || '+00:00')",
    "local_date": "trim(CAST(to_json({0}) AS text), '\"')",
    "local_datetime": "trim(CAST(to_json({0}) AS text), '\"')",
    "local_time": "trim(CAST(to_json({0}) AS text), '\"')",
}


def _to_str(node: qir.Call) -> Spelling:
    return Spelling(TO_STR_PLAIN[node.args[0].type.family], "o")


def _to_char(utc: bool):
    """``to_str(x, fmt)``: ``to_char``, a ``datetime`` read in UTC (``consts``: the format)."""
    def spell(node: qir.Call) -> Spelling:
        fmt = template_text(sql_string(str(node.consts[0])))
        return Spelling(f"to_char({{0}} AT TIME ZONE 'UTC', {fmt})" if utc else f"to_char({{0}}, {fmt})", "o")

    return spell


def _least_greatest(func: str):
    """``min({a, b, c})`` / ``max``: of the values of a set literal."""
    def spell(node: qir.Call) -> Spelling:
        return Spelling(f"{func}({', '.join(f'{{{i}}}' for i in range(len(node.args)))})", "p")

    return spell


def _re_replace(node: qir.Call) -> Spelling:
    """``re_replace(pattern, sub, string [, flags := f])``."""
    return Spelling("regexp_replace({2}, {0}, {1}, {3})" if len(node.args) == 4 else "regexp_replace({2}, {0}, {1})",
                    "p")


def _array_agg_one(node: qir.Call) -> Spelling:
    """``array_agg(x)`` of one value, maybe empty: ``[x]`` or ``[]``."""
    return Spelling(f"CASE WHEN {{0}} IS NULL THEN CAST(ARRAY[] AS {node.type.pg}) ELSE ARRAY[{{0}}] END", "o")


def _row_json(node: qir.Call) -> Spelling:
    """``<json>__new__ {...}`` in a trigger (``schemac.semantics.triggers``): the row's object
    as a ``jsonb`` object of its shape (``consts``: the checked shape and the row's name), each
    value as Gel's ``<json>`` spells it (https://docs.geldata.com/reference/stdlib/json)."""
    from schemac.semantics import lowering  # (the lowering imports this table)

    elements, row = node.consts
    fields = lowering.shape_sql(elements, row, 1, gel_json=True)  # type: ignore[arg-type]
    sql = lowering.json_object_sql([(sql_string(f.name), v) for v, f in fields], jsonb=True)
    return Spelling(template_text(sql))


STD: Dict[str, Entry] = {
    "row_json": _row_json,
    "math::mean": _mean,
    "math::mean/or": _mean_or,
    "math::mean/array": _mean_array,
    "math::log": Spelling("log(CAST({1} AS numeric), CAST({0} AS numeric))", "p"),
    "round/digits": Spelling("round(CAST({0} AS numeric), CAST({1} AS integer))", "p"),
    "round": _rounding("round"),
    "math::ceil": _rounding("ceil"),
    "math::floor": _rounding("floor"),
    "math::ln": _logarithm("ln"),
    "math::lg": _logarithm("log"),
    "math::exp": _logarithm("exp"),
    "to_str": _to_str,
    "to_str/json_pretty": Spelling("jsonb_pretty({0})", "p"),
    "to_str/datetime_fmt": _to_char(True),
    "to_str/fmt": _to_char(False),
    "array_join": Spelling("array_to_string({0}, {1})", "p"),
    # (the delimiter is named once: a sub-select binds it)
    "str_split": Spelling("(SELECT CASE WHEN _sp._d != '' THEN string_to_array(_sp._s, _sp._d) "
                          "ELSE regexp_split_to_array(_sp._s, '') END FROM (SELECT {0} AS _s, {1} AS _d) AS _sp)",
                          "p"),
    "re_replace": _re_replace,
    "array_agg": lambda node: Spelling(f"coalesce({{0}}, CAST(ARRAY[] AS {node.type.pg}))"),
    "array_agg/values": lambda node: Spelling(f"coalesce(array_remove({{0}}, NULL), CAST(ARRAY[] AS "
                                              f"{node.type.pg}))"),
    "array_agg/one": _array_agg_one,
    "value_set": lambda node: Spelling(f"coalesce({{0}}, CAST('{{{{}}}}' AS {node.type.pg}))"),
    "sum": lambda node: Spelling(f"CAST(coalesce({{0}}, 0) AS {node.type.pg})", "p"),
    "sum/array": lambda node: Spelling(f"CAST(coalesce({_OVER_ARRAY.format(agg='sum')}, 0) AS {node.type.pg})"),
    "min/array": Spelling(_OVER_ARRAY.format(agg="min")),
    "max/array": Spelling(_OVER_ARRAY.format(agg="max")),
    "min/items": _least_greatest("LEAST"),
    "max/items": _least_greatest("GREATEST"),
}
for _name in SPREAD:
    STD[_name] = _spread(_name, False)
    STD[_name + "/array"] = _spread(_name, True)
