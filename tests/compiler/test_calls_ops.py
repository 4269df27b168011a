"""The operations of ``exprs.py``'s functions and operators and the functions of Gel's extensions
(``schemac.pgsql.calls_ops``, ``schemac.pgsql.calls_ext``; issue 26 step 2): the checker keeps
what Gel accepts (signatures, units, the type of each date and time operation) and names the
call; the lowering's tables spell it. Every name the checker's tables can produce has a
spelling, and what a spelling takes from the checker is a constant (a unit, a sequence's name,
an overload's argument types), never SQL."""

from __future__ import annotations

from schemac.diagnostics import Span
from schemac.pgsql.calls import CALLS, spelling
from schemac.semantics import e_funcs, exprs, qir
from schemac.semantics.extensions import EXT_FUNCTION_OPTIONAL_LAST, EXT_FUNCTIONS, POSTGIS_FUNCTIONS
from schemac.semantics.lowering import expr_sql
from schemac.semantics.model import ValueType
from schemac.semantics.scalars import SCALARS

SPAN = Span.point("q.edgeql", 1, 1)


def _vt(name: str) -> ValueType:
    return ValueType(scalar=SCALARS[name])


def _lit(kind: str, value, nullable: bool = False) -> qir.Literal:
    return qir.Literal(SPAN, _vt({"int": "int64", "float": "float64", "str": "str", "bool": "bool"}[kind]),
                       nullable, kind, value)


def test_every_extension_function_is_spelled_at_each_arity():
    for name, (kinds, _) in EXT_FUNCTIONS.items():
        arities = {len(kinds)} | ({len(kinds) + 1} if name in EXT_FUNCTION_OPTIONAL_LAST else set())
        for n in arities:
            sp = spelling(qir.Call(SPAN, _vt("str"), False, name, tuple(_lit("str", "a") for _ in range(n))))
            assert sp.template.count("{") >= n, (name, n, sp.template)
    for name, overloads in POSTGIS_FUNCTIONS.items():
        for kinds, _ in overloads:
            sp = spelling(qir.Call(SPAN, _vt("str"), False, name, tuple(_lit("str", "a") for _ in kinds), kinds))
            assert all("{%d}" % i in sp.template for i in range(len(kinds))), (name, kinds, sp.template)


def test_a_number_passed_for_a_float64_parameter_is_cast_by_the_overload_the_checker_chose():
    # ext::postgis::makepoint(1, 2.5) (https://docs.geldata.com/reference/stdlib/postgis)
    call = qir.Call(SPAN, _vt("str"), False, "ext::postgis::makepoint", (_lit("int", 1), _lit("float", 2.5)),
                    ("float64", "float64"))
    assert expr_sql(call) == "ST_MakePoint(CAST(1 AS double precision), 2.5)"


def test_every_std_function_temporal_pair_unit_and_constructor_is_spelled():
    for name in e_funcs._STD_FUNCS:
        assert name in CALLS, name
    for left, op, right in exprs._TEMPORAL:
        assert f"{op}/{left}/{right}" in CALLS, (left, op, right)
    dt = qir.Literal(SPAN, _vt("datetime"), False, "str", "x")
    for func, units in (("datetime_get", e_funcs._DATETIME_GET), ("datetime_get/local", e_funcs._DATETIME_GET),
                        ("cal::date_get", e_funcs._DATE_GET), ("datetime_truncate", e_funcs._DATETIME_TRUNCATE)):
        for unit in units:
            assert spelling(qir.Call(SPAN, _vt("float64"), False, func, (dt,), (unit,))).template, (func, unit)
    for name, (result, units) in e_funcs._TIME_CONSTRUCTORS.items():
        call = qir.Call(SPAN, _vt(result), False, name, tuple(_lit("int", 1) for _ in units), units)
        assert expr_sql(call).startswith("make_interval("), name


def test_a_duration_sums_its_seconds_parts():
    # to_duration(seconds := 2, microseconds := 5): one secs argument of make_interval
    # (https://docs.geldata.com/reference/stdlib/datetime#function::std::to_duration)
    call = qir.Call(SPAN, _vt("duration"), False, "to_duration", (_lit("int", 1), _lit("int", 2), _lit("int", 5)),
                    ("hours", "seconds", "microseconds"))
    assert expr_sql(call) == ("make_interval(hours => CAST(1 AS integer), secs => CAST(2 AS double precision) + "
                              "CAST(5 AS double precision) / 1000000)")


def test_a_sequence_name_is_a_constant_quoted_by_the_lowering():
    # (braces and quotes in the name stay text: https://docs.geldata.com/reference/stdlib/sequence)
    call = qir.Call(SPAN, _vt("int64"), False, "sequence_next", (), ('T{0}"n',))
    assert expr_sql(call) == 'nextval(\'"T{0}""n"\')'
    reset = qir.Call(SPAN, _vt("int64"), False, "sequence_reset", (), ("s",))
    assert expr_sql(reset) == "setval('\"s\"', 1, false)"


def test_a_value_set_spells_its_parts_from_the_constants_and_their_emptiness():
    # {1, <optional int64>$x} union array_unpack(xs) (https://docs.geldata.com/reference/edgeql/sets)
    arr = qir.Literal(SPAN, ValueType(element=_vt("int64")), True, "str", "xs")
    call = qir.Call(SPAN, ValueType(element=_vt("int64")), False, "value_set_array",
                    (_lit("int", 1), _lit("int", 2, nullable=True), arr), (False, False, True))
    assert expr_sql(call) == ("array_remove(ARRAY[CAST(1 AS bigint), CAST(2 AS bigint)], NULL) || "
                              "coalesce(CAST('xs' AS bigint[]), CAST(ARRAY[] AS bigint[]))")


def test_json_get_with_a_default_is_empty_when_the_value_is():
    # (https://docs.geldata.com/reference/stdlib/json#function::std::json_get)
    j = qir.Literal(SPAN, _vt("json"), True, "str", "j")
    call = qir.Call(SPAN, _vt("json"), True, "json_get/default", (j, _lit("str", "a"), _lit("str", "d")))
    assert expr_sql(call) == ("CASE WHEN 'j' IS NULL THEN NULL ELSE coalesce(jsonb_extract_path('j', 'a'), 'd') "
                              "END")


def test_an_assertion_message_is_a_constant():
    # (https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists)
    call = qir.Call(SPAN, _vt("int64"), False, "assert_exists", (_lit("int", 1, nullable=True),), ("no {n}",))
    sql = expr_sql(call)
    assert sql.startswith("coalesce(1, CAST(CAST(CAST(") and "no {n}" in sql
