"""The expression forms ``schemac.semantics.exprs`` names as calls (issue 26 step 2), spelled by
``schemac.pgsql.calls_expr``: the spelling reads the result type, the arguments' emptiness and
the constants from the node, and prints the SQL the Gel form needs
(https://docs.geldata.com/reference/stdlib/array, https://docs.geldata.com/reference/stdlib/tuple).
(That every call the checker names is spelled: ``test_calls_std.py``.)"""

from __future__ import annotations

from schemac.diagnostics import Span
from schemac.semantics import lowering, qir
from schemac.semantics.model import ValueType
from schemac.semantics.scalars import SCALARS

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
