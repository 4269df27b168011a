"""Forms that compiled to a different answer than Gel's (tests/conformance/known_mismatches.txt)
and are now refused with a located E0206 naming the form, as the conformance rule asks: a
compiled query returns Gel's answer or is refused."""

from __future__ import annotations

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  type Item {
    required name: str;
    multi tag_set1: str;
    tag: str;
    property upper := str_upper(.name);
  }
}
"""


def _errors(query: str):
    src = {"lib/schema.esdl": SCHEMA, "lib/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        check_library(src, Options(library="lib"))
    return [(d.code, d.message, d.span.line, d.span.col) for d in e.value.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("query, message, col", [
    # geldata/gel tests/test_edgeql_linkatoms.py test_edgeql_links_map_scalars_01..03: Gel orders,
    # slices and filters the values; schemac returned them all, unordered
    ("select Item { name, tag_set1 order by Item.tag_set1 desc };",
     "'order by' on the property 'tag_set1' in a shape is not supported yet", 21),
    ("select Item { tag_set1 order by Item.tag_set1 limit 1 };",
     "'order by' / 'limit' on the property 'tag_set1' in a shape is not supported yet", 15),
    ("select Item { tag_set1 offset 1 };", "'offset' on the property 'tag_set1' in a shape is not supported yet", 15),
    ("select Item { tag filter Item.tag > 'p' };", "'filter' on the property 'tag' in a shape is not supported yet",
     15),
    ("select Item { upper filter Item.upper > 'p' };",
     "'filter' on the property 'upper' in a shape is not supported yet", 15),
])
def test_property_element_clauses_are_refused(query, message, col):
    assert _errors(query) == [("E0206", message, 1, col)]


def test_datetime_difference_is_a_duration_without_days(pg):
    """``datetime - datetime`` is a duration, which has no days: Gel prints 24 hours as PT24H
    and 7 days as PT169H... (geldata/gel tests/test_edgeql_datatypes.py
    ``test_edgeql_dt_datetime_04``); Postgres' ``timestamptz - timestamptz`` justifies whole days
    into its day field (``1 day``). ``<str>`` of ``datetime - duration`` is an operand of ``AT TIME
    ZONE`` (``test_edgeql_dt_datetime_02``: Postgres rejected the unparenthesised SQL)."""
    queries = {
        "diff": "select <datetime>$a - <datetime>$b;",
        "lit": "select <datetime>'2018-10-17T13:13:13.004005+00:00' - <datetime>'2018-10-10T12:11:10+00:00';",
        "str": "select <str>(<datetime>'2017-10-10T13:11:00+00:00' - <duration>'24 hours');",
    }
    src = {"lib/schema.esdl": SCHEMA}
    src.update({f"lib/{k}.edgeql": v for k, v in queries.items()})
    plans = {q.name: q for q in check_library(src, Options(library="lib")).queries}
    diff = "SELECT CAST(value AS text) FROM (" + plans["diff"].sql.replace("$1", "%s").replace("$2", "%s") \
        + ") AS _q(value)"
    assert pg.execute(diff, ("2018-01-02T00:00:00+00:00", "2018-01-01T00:00:00+00:00"))[0][0] == "24:00:00"
    assert pg.execute(diff, ("2017-01-01T00:00:00+00:00", "2018-01-01T00:00:00+00:00"))[0][0] == "-8760:00:00"
    assert pg.execute(f"SELECT CAST(value AS text) FROM ({plans['lit'].sql}) AS _q(value)")[0][0] == "169:02:03.004005"
    assert pg.execute(plans["str"].sql)[0][0] == "2017-10-09T13:11:00+00:00"


def test_integer_index_of_a_json_string_is_its_character(pg):
    """``to_json('"hello"')[0]`` is ``"h"``, ``[-2]`` ``"l"``; out of range fails as Gel's
    "JSON index 10 is out of bounds" (geldata/gel tests/test_edgeql_json.py
    ``test_edgeql_json_accessor_23``/``24``)."""
    src = {"lib/schema.esdl": SCHEMA, "lib/q.edgeql": "select to_json(<str>$j)[<int64>$i];"}
    plan = check_library(src, Options(library="lib")).queries[0]
    sql = plan.sql.replace("$1", "%s").replace("$2", "%s")
    assert [pg.execute(sql, ('"héllo"', i))[0][0] for i in (0, 1, 4, -2, -5)] == ["h", "é", "o", "l", "h"]
    assert pg.execute(sql, ('[1, "x"]', -1))[0][0] == "x"
    for i in (5, -6):
        with pytest.raises(Exception, match=f"JSON index {i} is out of bounds"):
            pg.execute(sql, ('"hello"', i))
    with pytest.raises(Exception, match="cannot index JSON object by bigint"):
        pg.execute(sql, ('{"a": 1}', 0))


def test_empty_tuple_is_refused():
    """``select ()`` is Gel's empty tuple (``[]`` in JSON; geldata/gel
    tests/test_edgeql_expressions.py ``test_edgeql_expr_tuple_08``); schemac returned ``{}``."""
    assert _errors("select ();") == [("E0206", "the empty tuple '()' is not supported yet", 1, 8)]


def test_decimal_cast_of_a_float_literal_rounds_as_a_float64(pg):
    """``<decimal>0.797693134862311111111`` casts a float64 literal, rounded: it differs from the
    decimal literal ``0.797693134862311111111n`` (geldata/gel tests/test_edgeql_expressions.py
    ``test_edgeql_expr_op_21``)."""
    src = {"lib/schema.esdl": SCHEMA, "lib/q.edgeql":
           "select (0.797693134862311111111n = <decimal>0.797693134862311111111, <decimal>1.5 = 1.5n);"}
    plan = check_library(src, Options(library="lib")).queries[0]
    assert pg.execute(plan.sql)[0][0] == [False, True]
