"""Every operation the checker names (issue 26 step 2) has a spelling: each ``qir.Call(...)``
that ``schemac.semantics`` builds with a literal operation name names an entry of
``schemac.pgsql.calls.CALLS`` (a name no table spells would fail only when a query reaches it,
as a ``KeyError`` in the lowering); and the spellings of the expression forms print the SQL
their Gel form needs (https://docs.geldata.com/reference/stdlib/array,
https://docs.geldata.com/reference/stdlib/tuple)."""

from __future__ import annotations

import ast
from pathlib import Path

from schemac.diagnostics import Span
from schemac.pgsql.calls import CALLS
from schemac.semantics import lowering, qir
from schemac.semantics.model import ValueType
from schemac.semantics.scalars import SCALARS

SEMANTICS = Path(__file__).resolve().parents[2] / "pants-plugins" / "schemac" / "semantics"


def _named_calls():
    for path in sorted(SEMANTICS.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for n in ast.walk(tree):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "Call" \
                    and isinstance(n.func.value, ast.Name) and n.func.value.id == "qir":
                func = n.args[3] if len(n.args) > 3 else next((k.value for k in n.keywords if k.arg == "func"), None)
                if isinstance(func, ast.Constant) and isinstance(func.value, str):
                    yield path.name, n.lineno, func.value


def test_every_named_call_is_spelled():
    named = list(_named_calls())
    assert len(named) >= 15  # (the scan finds the checker's calls)
    missing = [f"{f}:{ln}: {name!r}" for f, ln, name in named if name not in CALLS]
    assert not missing, "calls no table of schemac.pgsql spells:\n" + "\n".join(missing)


_SPAN = Span("t.edgeql", 1, 1, 1, 2)
INT64 = ValueType(scalar=SCALARS["int64"])
STR = ValueType(scalar=SCALARS["str"])


def _lit(v, nullable=False):
    return qir.Literal(_SPAN, INT64, nullable, "int", v)


def test_array_literal_is_empty_when_an_element_is():
    arr = ValueType(element=INT64)
    whole = qir.Call(_SPAN, arr, False, "array", (_lit(1), _lit(2)))
    assert lowering.expr_sql(whole) == "CAST(ARRAY[1, 2] AS bigint[])"
    empty_elem = qir.Call(_SPAN, arr, True, "array", (_lit(1), qir.Literal(_SPAN, INT64, True, "null", None)))
    assert lowering.expr_sql(empty_elem) == "CASE WHEN NULL IS NULL THEN NULL ELSE CAST(ARRAY[1, NULL] AS bigint[]) END"
    assert lowering.expr_sql(qir.Call(_SPAN, arr, False, "array", ())) == "CAST(ARRAY[] AS bigint[])"


def test_tuple_element_reads_the_composite_attribute():
    tup = ValueType(fields=((None, INT64), ("name", STR)))
    lit = qir.Call(_SPAN, tup, False, "tuple", (_lit(1), qir.Literal(_SPAN, STR, False, "str", "x")))
    sql = lowering.expr_sql(lit)
    assert sql == f"CAST(ROW(CAST(1 AS bigint), CAST('x' AS text)) AS {tup.pg})"
    assert lowering.expr_sql(qir.Call(_SPAN, STR, False, "tuple_element", (lit,), (1,))) == f'({sql})."name"'
    assert lowering.expr_sql(qir.Call(_SPAN, INT64, False, "tuple_element", (lit,), (0,))) == f'({sql})."f0"'
