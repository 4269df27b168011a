"""How Postgres spells the standard-library operations the expression checker
(:mod:`schemac.semantics.exprs`) names: date and time constructors and accessors, ranges,
sequences, arrays and sets of values, JSON, strings, assertions, ``^`` and the ``++`` of arrays,
bytes and JSON. Each entry is the Gel operation's meaning in Postgres; its doc page is cited
with it. ``consts`` are the checker's compile-time decisions (a unit's Gel name, an assertion's
message, which arguments are unpacked arrays), never SQL.
"""

from __future__ import annotations

from typing import Dict, List

from schemac.pgsql.spelling import Entry, Spelling
from schemac.semantics import qir
from schemac.semantics.scalars import ISO_DATETIME
from schemac.semantics.sqlnames import qi, sql_string, template_text


def _pg(node: qir.Call) -> str:
    return node.type.pg


# ------------------------------------------------------------------------------ date and time
#: Gel's duration constructors' units -> ``make_interval``'s arguments (``None``: microseconds,
#: which it has not: a fraction of ``secs``)
#: (https://docs.geldata.com/reference/stdlib/datetime#function::std::to_duration).
_INTERVAL_UNITS = {"years": "years", "months": "months", "days": "days", "hours": "hours", "minutes": "mins",
                   "seconds": "secs", "microseconds": None}


def _make_interval(node: qir.Call) -> Spelling:
    """``to_duration(hours := 1, minutes := 30)`` (and ``cal::to_relative_duration``,
    ``cal::to_date_duration``): ``make_interval(...)``, one argument per unit (``consts``, in the
    order of ``args``); every seconds part summed into ``secs``."""
    parts: List[str] = []
    for i, unit in enumerate(node.consts):
        target = _INTERVAL_UNITS[str(unit)]
        value = "{%d}" % i
        if target is None:
            parts.append(f"secs => CAST({value} AS double precision) / 1000000")
        elif target == "secs":
            parts.append(f"secs => CAST({value} AS double precision)")
        else:
            parts.append(f"{target} => CAST({value} AS integer)")
    secs = [p for p in parts if p.startswith("secs => ")]
    if len(secs) > 1:
        parts = [p for p in parts if not p.startswith("secs => ")] + [
            "secs => " + " + ".join(p[len("secs => "):] for p in secs)]
    return Spelling(f"make_interval({', '.join(parts)})", "o")


#: ``cal::to_local_*(year, month, day [, hour, min, sec])``: the Postgres constructor
#: (https://docs.geldata.com/reference/stdlib/datetime#function::cal::to_local_date).
_LOCAL_PARTS = {"cal::to_local_date/parts": "make_date", "cal::to_local_datetime/parts": "make_timestamp",
                "cal::to_local_time/parts": "make_time"}


def _local_parts(node: qir.Call) -> Spelling:
    n = len(node.args)
    casts = [f"CAST({{{i}}} AS integer)" for i in range(n)]
    if node.func != "cal::to_local_date/parts":
        casts[-1] = f"CAST({{{n - 1}}} AS double precision)"  # (the seconds, a float64)
    return Spelling(f"{_LOCAL_PARTS[node.func]}({', '.join(casts)})", "p")


#: A str read as a datetime (``to_datetime(s)``, ``<datetime>s``): the statement fails on a string
#: that is not ISO 8601 with a time zone
#: (https://docs.geldata.com/reference/stdlib/datetime#function::std::to_datetime).
DATETIME_OF_STR = (
    "CASE WHEN {0} ~ " + template_text(sql_string(ISO_DATETIME)) + " THEN CAST({0} AS "
    "timestamptz) ELSE CAST('an ISO 8601 date and time with a time zone is required, got ' || {0} AS timestamptz) END")

#: Gel's datetime_get elements -> Postgres' date_part fields
#: (https://docs.geldata.com/reference/stdlib/datetime#function::std::datetime_get); the keys of
#: cal::date_get's (https://docs.geldata.com/reference/stdlib/datetime#function::cal::date_get) are among them.
_DATE_PART = {"epochseconds": "epoch", "century": "century", "day": "day", "decade": "decade", "dow": "dow",
              "doy": "doy", "hour": "hour", "isodow": "isodow", "isoyear": "isoyear",
              "microseconds": "microseconds", "millennium": "millennium", "milliseconds": "milliseconds",
              "minutes": "minute", "month": "month", "quarter": "quarter", "seconds": "second", "week": "week",
              "year": "year"}
#: Gel's datetime_truncate units -> Postgres' date_trunc fields
#: (https://docs.geldata.com/reference/stdlib/datetime#function::std::datetime_truncate).
_DATE_TRUNC = {"microseconds": "microseconds", "milliseconds": "milliseconds", "seconds": "second",
               "minutes": "minute", "hours": "hour", "days": "day", "weeks": "week", "months": "month",
               "quarters": "quarter", "years": "year", "decades": "decade", "centuries": "century"}


def _date_part(node: qir.Call) -> Spelling:
    """``datetime_get(dt, unit)`` of a datetime, read in UTC; of a ``cal::local_datetime`` and
    ``cal::date_get(d, unit)``, the value as it is (``consts``: the unit's Gel name)."""
    field = sql_string(_DATE_PART[str(node.consts[0])])
    if node.func == "datetime_get":
        return Spelling(f"date_part({field}, {{0}} AT TIME ZONE 'UTC')", "o")
    return Spelling(f"date_part({field}, {{0}})", "p")


def _date_trunc(node: qir.Call) -> Spelling:
    return Spelling(f"date_trunc({sql_string(_DATE_TRUNC[str(node.consts[0])])}, {{0}}, 'UTC')", "p")


DATETIME: Dict[str, Entry] = {
    "to_duration": _make_interval,
    "cal::to_relative_duration": _make_interval,
    "cal::to_date_duration": _make_interval,
    "duration_to_seconds": Spelling("EXTRACT(EPOCH FROM {0})", "p"),
    # (https://docs.geldata.com/reference/stdlib/datetime#function::std::duration_get)
    "duration_get/totalseconds": Spelling("CAST(EXTRACT(EPOCH FROM {0}) AS float8)", "p"),
    # cal::to_local_*(s): a cast of the text; (dt, zone): the wall-clock value of dt in zone
    **{f"{f}/str": (lambda n: Spelling(f"CAST({{0}} AS {_pg(n)})"))
       for f in ("cal::to_local_date", "cal::to_local_datetime", "cal::to_local_time")},
    **{f"{f}/zone": (lambda n: Spelling(f"CAST(timezone({{1}}, {{0}}) AS {_pg(n)})", "rp"))
       for f in ("cal::to_local_date", "cal::to_local_datetime", "cal::to_local_time")},
    **{f: _local_parts for f in _LOCAL_PARTS},
    "to_datetime/str": Spelling(DATETIME_OF_STR, "p"),
    "to_datetime/epoch": Spelling("to_timestamp(CAST({0} AS double precision))", "p"),
    "to_datetime/zone": Spelling("timezone({1}, {0})", "p"),
    "to_datetime/format": Spelling("to_timestamp({0}, {1})", "p"),
    "to_datetime/parts": Spelling("make_timestamptz(" + ", ".join(f"CAST({{{i}}} AS integer)" for i in range(5))
                                  + ", CAST({5} AS double precision), {6})", "p"),
    "datetime_get": _date_part,
    "datetime_get/local": _date_part,
    "cal::date_get": _date_part,
    "datetime_truncate": _date_trunc,
}


# ------------------------------------------------------------------------------ ranges, sequences
def _sequence(node: qir.Call) -> Spelling:
    """``sequence_next(introspect T)`` / ``sequence_reset(introspect T[, v])``
    (https://docs.geldata.com/reference/stdlib/sequence): ``nextval``/``setval`` of the
    sequence ``consts[0]`` (reset without a value: the next value is 1 again)."""
    seq = template_text(sql_string(qi(str(node.consts[0]))))
    if node.func == "sequence_next":
        return Spelling(f"nextval({seq})", "o")
    return Spelling(f"setval({seq}, {{0}})" if node.args else f"setval({seq}, 1, false)", "o")


RANGES: Dict[str, Entry] = {
    # range(lower, upper) (https://docs.geldata.com/reference/stdlib/range#function::std::range):
    # the range type's constructor, bounds [lower, upper)
    "range": lambda n: Spelling(_pg(n) + "({0}, {1})", "o"),
    "sequence_next": _sequence,
    "sequence_reset": _sequence,
}


# ------------------------------------------------------------------------------ values, arrays, json
def _value_set_array(node: qir.Call) -> Spelling:
    """A set of values written in the query, ``{a, b} union array_unpack(xs)``
    (https://docs.geldata.com/reference/edgeql/sets), as the array of its elements in the order
    written, an empty element none: ``array_remove(ARRAY[a, b], NULL) || coalesce(xs, '{}')``
    (``consts``: whether each argument is an array unpacked)."""
    pieces: List[str] = []
    singles: List[str] = []
    empty = False
    elem = node.type.element.pg  # type: ignore[union-attr]
    for i, (a, unpack) in enumerate(zip(node.args, node.consts)):
        if unpack:
            if singles:
                items = ", ".join(singles)
                pieces.append(f"array_remove(ARRAY[{items}], NULL)" if empty else f"ARRAY[{items}]")
                singles, empty = [], False
            arr = f"CAST({{{i}}} AS {node.type.pg})"
            pieces.append(f"coalesce({arr}, CAST(ARRAY[] AS {node.type.pg}))" if a.nullable else arr)
        else:
            singles.append(f"CAST({{{i}}} AS {elem})")
            empty = empty or a.nullable
    if singles:
        items = ", ".join(singles)
        pieces.append(f"array_remove(ARRAY[{items}], NULL)" if empty else f"ARRAY[{items}]")
    return Spelling(" || ".join(pieces), "r", atomic=False)


#: A version 1 UUID with a random multicast node, as Gel's (https://docs.geldata.com/reference/stdlib/uuid):
#: the time in 100 ns since 1582-10-15, version 1, a random clock sequence of variant 10, a
#: random node with its multicast bit set. Postgres has no uuid-ossp without an extension.
_UUID_V1MC = (
    "(SELECT CAST(lpad(to_hex(_u.t & 4294967295), 8, '0') || lpad(to_hex((_u.t >> 32) & 65535), 4, '0') "
    "|| lpad(to_hex(((_u.t >> 48) & 4095) | 4096), 4, '0') "
    "|| lpad(to_hex(CAST(floor(random() * 16384) AS integer) | 32768), 4, '0') "
    "|| lpad(to_hex(CAST(floor(random() * 281474976710656) AS bigint) | 1099511627776), 12, '0') AS uuid) "
    "FROM (SELECT CAST(floor(extract(epoch FROM clock_timestamp()) * 10000000) AS bigint) + 122192928000000000 "
    "AS t) AS _u)")

#: Functions of :data:`schemac.semantics.exprs._STD_FUNCS`, each argument a parameter cast to
#: its type (https://docs.geldata.com/reference/stdlib/string, .../stdlib/numbers,
#: .../stdlib/math, .../stdlib/uuid, .../stdlib/json).
_STD = {
    "str_trim_start": "ltrim({0})",
    "str_trim_end": "rtrim({0})",
    "str_repeat": "repeat({0}, CAST({1} AS integer))",
    "str_replace": "replace({0}, {1}, {2})",
    "str_reverse": "reverse({0})",
    # (Gel's find is 0-based, -1 when not found: Postgres' strpos is 1-based, 0 when not found)
    "find": "(CAST(strpos({0}, {1}) AS bigint) - 1)",
    "math::abs": "abs({0})",
    "math::pi": "pi()",
    "math::e": "exp(CAST(1 AS double precision))",
    "math::acos": "acos(CAST({0} AS double precision))",
    "math::asin": "asin(CAST({0} AS double precision))",
    "math::atan": "atan(CAST({0} AS double precision))",
    "math::atan2": "atan2(CAST({0} AS double precision), CAST({1} AS double precision))",
    "math::cos": "cos(CAST({0} AS double precision))",
    "math::cot": "cot(CAST({0} AS double precision))",
    "math::sin": "sin(CAST({0} AS double precision))",
    "math::tan": "tan(CAST({0} AS double precision))",
    "uuid_generate_v4": "gen_random_uuid()",
    "uuid_generate_v1mc": _UUID_V1MC,
    # (.../json#function::std::json_typeof; .../json#function::std::to_json: the string parsed as JSON)
    "json_typeof": "jsonb_typeof({0})",
    "to_json": "CAST({0} AS jsonb)",
    # (.../numbers#function::std::random: 0 <= x < 1)
    "random": "random()",
    # str_trim(s, tr) and its start/end forms: Postgres' btrim, ltrim and rtrim take the same
    # set of characters (https://docs.geldata.com/reference/stdlib/string#function::std::str_trim)
    "str_trim/chars": "btrim({0}, {1})",
    "str_trim_start/chars": "ltrim({0}, {1})",
    "str_trim_end/chars": "rtrim({0}, {1})",
    # the first match's groups, '' for a group that matched nothing
    # (https://docs.geldata.com/reference/stdlib/string#function::std::re_match)
    "re_match": "array_replace(regexp_match({1}, {0}), NULL, '')",
}

VALUES: Dict[str, Entry] = {
    **{name: Spelling(template, "p") for name, template in _STD.items()},
    "value_set_array": _value_set_array,
    # count / any / all of a set of values (https://docs.geldata.com/reference/stdlib/set): of
    # the empty set 0, false, true
    "count/value_set": Spelling("CAST(cardinality({0}) AS bigint)"),
    "any/value_set": Spelling('coalesce((SELECT bool_or("_m"."v") FROM unnest({0}) AS "_m"("v")), false)'),
    "all/value_set": Spelling('coalesce((SELECT bool_and("_m"."v") FROM unnest({0}) AS "_m"("v")), true)'),
}


# ------------------------------------------------------------------------------ sets, assertions
def _assert_exists(node: qir.Call) -> Spelling:
    """``assert_exists(x[, message := m])``
    (https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists): ``x``, or a
    cast that fails with the assertion's message (``consts[0]``, ``None``: Gel's)."""
    from schemac.pgsql import asserts

    fail = asserts.fail_sql("assert_exists", node.consts[0], "{0}", node.type.pg, template=True)  # type: ignore[arg-type]
    return Spelling(f"coalesce({{0}}, {fail})", "p")


#: Whether the array ``{0}`` holds each value once.
_DISTINCT = '(SELECT count("_d"."v") = count(DISTINCT "_d"."v") FROM unnest({0}) AS "_d"("v"))'


def _assert_distinct(node: qir.Call) -> Spelling:
    """``assert_distinct(S[, message := m])`` of the array of a set's values
    (https://docs.geldata.com/reference/stdlib/set#function::std::assert_distinct): the array,
    or a cast that fails with the message when a value is in it twice. (The failing cast reads
    the test, a sub-select, so that Postgres does not fold it into an error when the set is made
    of constants.)"""
    from schemac.pgsql import asserts

    fail = asserts.fail_sql("assert_distinct", node.consts[0], _DISTINCT, node.type.pg, template=True)  # type: ignore[arg-type]
    return Spelling(f"(CASE WHEN {_DISTINCT} THEN {{0}} ELSE {fail} END)")


SETS: Dict[str, Entry] = {
    # any / all (https://docs.geldata.com/reference/stdlib/set#function::std::any): of one value,
    # the empty set false / true; all of a set read as "no element is false"
    "any/one": Spelling("coalesce({0}, false)", "p"),
    "all/one": Spelling("coalesce({0}, true)", "p"),
    "all/none_fails": Spelling("NOT {0}", atomic=False),
    "is_false": Spelling("({0}) IS FALSE", atomic=False),
    # `exists` of a multi property or a computed set of values read as their array
    # (https://docs.geldata.com/reference/stdlib/set#operator::exists)
    "exists/array": Spelling("cardinality({0}) > 0", atomic=False),
    "assert_exists": _assert_exists,
    "assert_distinct": _assert_distinct,
}


# ------------------------------------------------------------------------------ operators, casts, json
def _power(node: qir.Call) -> Spelling:
    """``a ^ b`` (https://docs.geldata.com/reference/stdlib/numbers#operator::pow): Postgres'
    ``power()`` in the result's type (a ``float32`` computed in ``double precision``)."""
    result = node.type.scalar.name  # type: ignore[union-attr]
    pg = "numeric" if result == "decimal" else "double precision"
    template = f"power(CAST({{0}} AS {pg}), CAST({{1}} AS {pg}))"
    return Spelling(f"CAST({template} AS real)" if result == "float32" else template, "p")


def _json_get(node: qir.Call) -> Spelling:
    """``json_get(j, 'a', 'b' [, default := d])``
    (https://docs.geldata.com/reference/stdlib/json#function::std::json_get): the json value at
    that path, empty (or ``d``, the last argument of ``json_get/default``) when there is none;
    with a default, empty when the json value or a path element is."""
    if node.func == "json_get":
        return Spelling("jsonb_extract_path(" + ", ".join(f"{{{i}}}" for i in range(len(node.args))) + ")", "p")
    path = node.args[:-1]
    template = "jsonb_extract_path(" + ", ".join(f"{{{i}}}" for i in range(len(path))) + ")"
    template = f"coalesce({template}, {{{len(path)}}})"
    empty = [f"{{{i}}} IS NULL" for i, a in enumerate(path) if a.nullable]
    if empty:
        template = f"CASE WHEN {' OR '.join(empty)} THEN NULL ELSE {template} END"
    return Spelling(template, "p")


#: json ++ json (https://docs.geldata.com/reference/stdlib/json#operator::jsonplus): two arrays
#: or two objects as Postgres' jsonb || (an object's keys from the right win), two strings as
#: one string; any other pair fails the statement with Gel's message (a cast that reads the
#: operands, so Postgres cannot fold it into a constant).
_JSON_CONCAT = (
    "(CASE WHEN {0} IS NULL OR {1} IS NULL THEN NULL "
    "WHEN jsonb_typeof({0}) = 'array' AND jsonb_typeof({1}) = 'array' THEN {0} || {1} "
    "WHEN jsonb_typeof({0}) = 'object' AND jsonb_typeof({1}) = 'object' THEN {0} || {1} "
    "WHEN jsonb_typeof({0}) = 'string' AND jsonb_typeof({1}) = 'string' "
    "THEN to_jsonb(({0} #>> '{{}}') || ({1} #>> '{{}}')) "
    "ELSE CAST(CAST(CAST('invalid JSON values for ++ operator' || left(CAST({0} AS text) || CAST({1} AS text), 0)"
    " AS integer) AS text) AS jsonb) END)")


def _cast_json(node: qir.Call) -> Spelling:
    """``<json>x`` (https://docs.geldata.com/reference/stdlib/json): the value as JSON. A string
    literal is of type unknown to Postgres, which to_jsonb (polymorphic) refuses: it is read as
    text."""
    a = node.args[0]
    literal = type(a) is qir.Literal and a.kind == "str"  # type: ignore[attr-defined]
    return Spelling("to_jsonb({0}::text)" if literal else "to_jsonb({0})", "p")


OPERATORS: Dict[str, Entry] = {
    "^": _power,
    # array ++ array (https://docs.geldata.com/reference/stdlib/array#operator::arrayplus):
    # Postgres' || keeps the other array when one is NULL; Gel's ++ of an empty set is empty
    "++/array": lambda n: Spelling("CASE WHEN {0} IS NULL OR {1} IS NULL THEN NULL ELSE {0} || {1} END"
                                   if n.nullable else "({0} || {1})", "p"),
    # bytes ++ bytes (https://docs.geldata.com/reference/stdlib/bytes#operator::bytesplus)
    "++/bytes": Spelling("({0} || {1})", "p"),
    "++/json": Spelling(_JSON_CONCAT, "p"),
    # contains(haystack, needle) (https://docs.geldata.com/reference/stdlib/string#function::std::contains,
    # .../stdlib/array#function::std::contains): every string holds ''
    "contains/array": Spelling("{1} = ANY({0})", "p", atomic=False),
    "contains/str": Spelling("(strpos({0}, {1}) > 0)", "p"),
    "contains/bytes": Spelling("(position({1} IN {0}) > 0)", "p"),
    "json_get": _json_get,
    "json_get/default": _json_get,
    # `<json>[]`: the empty JSON array (https://docs.geldata.com/reference/stdlib/json)
    "json_empty_array": Spelling("'[]'::jsonb"),
    "cast/json": _cast_json,
    # `<decimal>0.79769313486231111`: the literal (``consts[0]``) is a float64, rounded before the
    # cast (geldata/gel tests/test_edgeql_expressions.py test_edgeql_expr_op_21)
    "cast/float_literal": lambda n: Spelling(f"CAST(CAST({n.consts[0]} AS double precision) AS {_pg(n)})"),
}


# ------------------------------------------------------------------------------ date and time arithmetic
def _temporal() -> Dict[str, Entry]:
    """``a + d``, ``a - d``, ``a - b`` of dates, times and durations
    (https://docs.geldata.com/reference/stdlib/datetime), by ``<op>/<left family>/<right
    family>``: Postgres' operator, its operands typed from each other (a parameter cast unless
    the other is a column). Postgres' date + interval is a timestamp and date - date an integer
    of days: cast back."""
    out: Dict[str, str] = {}
    for op in ("+", "-"):
        for d in ("duration", "relative_duration"):
            out[f"{op}/datetime/{d}"] = f"{{0}} {op} {{1}}"
            out[f"{op}/local_datetime/{d}"] = f"{{0}} {op} {{1}}"
        out[f"{op}/local_datetime/date_duration"] = f"{{0}} {op} {{1}}"
        out[f"{op}/local_date/date_duration"] = f"CAST({{0}} {op} {{1}} AS date)"
        out[f"{op}/local_time/duration"] = f"{{0}} {op} {{1}}"
        for d in ("duration", "relative_duration", "date_duration"):
            out[f"{op}/{d}/{d}"] = f"{{0}} {op} {{1}}"
    for d in ("duration", "relative_duration"):
        out[f"+/{d}/datetime"] = "{0} + {1}"
    # (a duration has no days: Gel prints 24 hours as PT24H; Postgres' timestamptz - timestamptz
    # justifies whole days into a day field (1 day), so the difference is taken in seconds;
    # geldata/gel tests/test_edgeql_datatypes.py test_edgeql_dt_datetime_04)
    out["-/datetime/datetime"] = "((extract(epoch from {0}) - extract(epoch from {1})) * interval '1 second')"
    out["-/local_datetime/local_datetime"] = "{0} - {1}"
    out["-/local_date/local_date"] = "make_interval(days => {0} - {1})"
    return {name: Spelling(t, "o" if "extract" in t else "x", atomic=t.startswith(("(", "make_")))
            for name, t in out.items()}


TEMPORAL: Dict[str, Entry] = _temporal()
