"""The standard library's calls (``schemac.pgsql.calls_std``, issue 26 step 2): the checker names
an operation (``qir.Call.func``) and the lowering's table spells it. Every name the checker
writes has a spelling, and a spelling that depends on the result type or a constant reads them
from the node, not from SQL the checker wrote."""

from __future__ import annotations

import ast
from pathlib import Path

from schemac.diagnostics import Span
from schemac.pgsql.calls import CALLS
from schemac.semantics import qir
from schemac.semantics.lowering import expr_sql
from schemac.semantics.model import ValueType
from schemac.semantics.scalars import SCALARS

SEMANTICS = Path(__file__).resolve().parents[2] / "pants-plugins" / "schemac" / "semantics"
SPAN = Span.point("q.edgeql", 1, 1)


def _vt(name: str) -> ValueType:
    return ValueType(scalar=SCALARS[name])


def test_every_call_the_checker_names_is_spelled():
    # (a literal name, or a literal prefix with a `/suffix` literal: `func + "/items"`)
    named = set()
    for path in sorted(SEMANTICS.glob("*.py")):
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "Call" \
                    and len(n.args) >= 4 and isinstance(n.args[3], ast.Constant):
                named.add((path.name, n.args[3].value))
    assert named, "the scan finds the checker's calls"
    missing = sorted((f, name) for f, name in named if name not in CALLS)
    assert not missing, f"calls with no spelling in schemac.pgsql.calls: {missing}"
    for base in ("math::stddev", "math::stddev_pop", "math::var", "math::var_pop", "min", "max"):
        assert any(k.startswith(base + "/") for k in CALLS), base


def test_the_result_type_comes_from_the_node():
    x = qir.Literal(SPAN, _vt("int64"), False, "int", 3)
    as_float = qir.Call(SPAN, _vt("float64"), False, "math::floor", (x,))
    as_decimal = qir.Call(SPAN, _vt("decimal"), False, "math::floor", (x,))
    assert expr_sql(as_float) == "floor(CAST(3 AS double precision))"
    assert expr_sql(as_decimal) == "floor(3)"
    total = qir.Call(SPAN, _vt("int64"), False, "sum", (x,))
    assert expr_sql(total) == "CAST(coalesce(3, 0) AS bigint)"
    empty = qir.Call(SPAN, ValueType(element=_vt("str")), False, "array_agg/one",
                     (qir.Literal(SPAN, _vt("str"), True, "str", "a"),))
    assert expr_sql(empty) == "CASE WHEN 'a' IS NULL THEN CAST(ARRAY[] AS text[]) ELSE ARRAY['a'] END"


def test_a_format_is_a_constant_never_a_placeholder():
    # to_str(d, fmt): the format is the call's constant, quoted by the lowering; its braces stay
    # text (https://docs.geldata.com/reference/stdlib/string#function::std::to_str)
    d = qir.Literal(SPAN, _vt("int64"), False, "int", 7)
    call = qir.Call(SPAN, _vt("str"), False, "to_str/fmt", (d,), ("9{0}'s",))
    assert expr_sql(call) == "to_char(7, '9{0}''s')"
    utc = qir.Call(SPAN, _vt("str"), False, "to_str/datetime_fmt", (d,), ("HH24",))
    assert expr_sql(utc) == "to_char(7 AT TIME ZONE 'UTC', 'HH24')"
