"""How Postgres spells each standard-library call of the IR (:class:`schemac.semantics.qir.Call`).

The checker names an operation (``qir.Call.func``, e.g. ``str_lower``, ``math::mean/one``) and
gives it its checked arguments and, where the spelling needs them, compile-time constants
(``qir.Call.consts``: a format string, a type); it never writes SQL. This table is the only
place that says what SQL each name becomes. An entry is a :class:`Spelling`, or a function of
the call node returning one (when the spelling depends on the result type or a constant).

A spelling is a ``str.format`` template over the arguments' SQL, each argument rendered as its
``modes`` letter says (one letter applies to every argument):

* ``r`` -- its SQL as it is;
* ``o`` -- as an operand: parenthesised unless atomic, a parameter cast to its type;
* ``p`` -- its SQL, a parameter cast to its type (Postgres cannot type a bare ``$n`` in a
  function's argument list);
* ``x`` -- as an operand of a two-argument operator: a parameter is cast unless the other
  argument is a column (Postgres types it from the column).

``atomic``: the template's SQL needs no parentheses as an operand.

Per area, the entries live in this package's ``calls_*`` modules; :data:`CALLS` merges them.
"""

from __future__ import annotations

from typing import Dict

from schemac.pgsql import calls_ext, calls_ops
from schemac.pgsql.calls_expr import EXPR
from schemac.pgsql.calls_std import STD
from schemac.pgsql.calls_stmt import STMT
from schemac.pgsql.spelling import Entry, Spelling
from schemac.semantics import qir



#: Gel's ``datetime_current()`` is the wall clock (``clock_timestamp()``); ``now()`` and
#: ``datetime_of_transaction()`` the transaction start (``now()``), as in Postgres
#: (https://docs.geldata.com/reference/stdlib/datetime).
BASIC: Dict[str, Entry] = {
    "now": Spelling("now()"),
    "datetime_current": Spelling("clock_timestamp()"),
    "datetime_of_statement": Spelling("statement_timestamp()"),
    "datetime_of_transaction": Spelling("now()"),
    "str_lower": Spelling("lower({0})", "o"),
    "str_upper": Spelling("upper({0})", "o"),
    "str_trim": Spelling("btrim({0})", "o"),
    "re_test": Spelling("{1} ~ {0}", "o", atomic=False),
    "len_array": Spelling("cardinality({0})", "o"),
    "len_str": Spelling("char_length({0})"),
    "len_bytes": Spelling("octet_length({0})"),
    "count_array": Spelling("CAST(coalesce(cardinality({0}), 0) AS bigint)"),
    "range_is_empty": Spelling("isempty({0})"),
    "range_get_lower": Spelling("lower({0})"),
    "range_get_upper": Spelling("upper({0})"),
    "range_contains": Spelling("{0} @> {1}", "o", atomic=False),
    "range_overlaps": Spelling("{0} && {1}", "o", atomic=False),
}

#: Calls whose Postgres result is an ``integer`` where Gel's is an ``int64``.
INT4_CALLS = frozenset({"len_array", "len_str", "len_bytes"})


def _merged() -> Dict[str, Entry]:
    out: Dict[str, Entry] = {}
    for table in (BASIC, STD, STMT, EXPR, calls_ops.DATETIME, calls_ops.RANGES, calls_ops.VALUES, calls_ops.SETS,
                  calls_ops.OPERATORS, calls_ops.TEMPORAL, calls_ext.CALLS_EXT):
        for name, entry in table.items():
            assert name not in out, f"two spellings for the call {name!r}"
            out[name] = entry
    return out


#: Every call's spelling, by ``qir.Call.func``.
CALLS: Dict[str, Entry] = _merged()


def spelling(node: qir.Call) -> Spelling:
    """The spelling of ``node`` (a ``KeyError`` is a checker bug: a call it named that no table
    spells)."""
    entry = CALLS[node.func]
    return entry if type(entry) is Spelling else entry(node)  # type: ignore[operator,return-value]
