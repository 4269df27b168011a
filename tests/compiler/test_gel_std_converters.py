"""Standard-library functions real Gel queries call that were E0206, each lowered with Gel's
documented semantics and checked on PostgreSQL 15 with data (the results are the examples of
Gel's reference pages):

* ``json_typeof``, ``to_json``, ``json_get(..., default := d)``
  (https://docs.geldata.com/reference/stdlib/json);
* ``re_match`` (the first match's groups, ``''`` for a group that matched nothing, empty when
  there is no match), ``str_trim(s, chars)`` and its start/end forms
  (https://docs.geldata.com/reference/stdlib/string);
* ``to_datetime`` of an ISO 8601 string with a time zone (any other string fails the
  statement, as does the cast ``<datetime>s`` of one), of a string and a format holding ``TZH``, of the parts, of epoch seconds and of a
  ``cal::local_datetime`` and a zone; ``cal::to_local_date`` / ``_datetime`` / ``_time`` of the
  parts (https://docs.geldata.com/reference/stdlib/datetime);
* ``math::exp``, ``math::log(x, base := b)``, ``math::pi``, ``math::e``, the trigonometric
  functions and ``math::mean`` of one value (an error when empty)
  (https://docs.geldata.com/reference/stdlib/math);
* ``uuid_generate_v1mc()``: a version 1 UUID of the current time with a multicast node
  (https://docs.geldata.com/reference/stdlib/uuid);
* ``assert_distinct()`` of a selection of objects, whose objects are distinct
  (https://docs.geldata.com/reference/stdlib/set#function::std::assert_distinct).
"""

from __future__ import annotations

import datetime
import json
import math
import re
import uuid
from decimal import Decimal

import psycopg
import psycopg.types.json
import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  type Doc {
    required name: str { constraint exclusive; };
    data: json;
    score: float64;
  }
}
"""

QUERIES = {
    "json_forms": "select Doc { name, t := json_typeof(.data), a := json_typeof(json_get(.data, 'a')), "
                  "d := json_get(.data, 'z', default := <json>'none'), s := json_get(.data, 's', default := <json>0) } "
                  "order by .name",
    "parse_json": "select to_json(<str>$text)",
    "typeof_values": "select { n := json_typeof(<json>2), nul := json_typeof(to_json('null')), "
                     "o := json_typeof(to_json('{\"a\": 2}')) }",
    "matches": "select { a := re_match(r'\\w{4}ql', 'I ❤️ edgeql'), b := re_match(r'(a)(x)?(b)', 'zab'), "
               "c := re_match(<str>$pattern, <str>$s) }",
    "trims": "select { a := str_trim('::data.....', '.:'), b := str_trim_start('..data..', '.'), "
             "c := str_trim_end('..data..', '.'), d := str_trim('  data  ') }",
    "datetime_of": "select to_datetime(<str>$s)",
    "cast_of": "select <datetime><str>$s",
    "datetimes": "select { a := to_datetime('May 7th, 2018 15:01:22 +00', 'Mon DDth, YYYY HH24:MI:SS TZH'), "
                 "b := to_datetime(2018, 5, 7, 15, 1, 22.306916, 'UTC'), c := to_datetime(1590595184.584), "
                 "d := to_datetime(<cal::local_datetime>'2019-01-01T01:02:03', 'HKT'), "
                 "e := cal::to_local_date(2018, 5, 7), f := cal::to_local_datetime(2018, 5, 7, 15, 1, 22.306916), "
                 "g := cal::to_local_time(15, 1, 22.5) }",
    "math_forms": "select { a := math::exp(0), b := math::log(<decimal>'8', base := <decimal>'2'), c := math::pi(), "
                  "d := math::e(), e := math::atan2(1, 1), f := math::cos(0), g := math::ln(math::exp(2)) }",
    "mean_score": "select Doc { name, m := math::mean(.score ?? {0.0}) } order by .name",
    "mean_of": "select math::mean(<optional int64>$x)",
    "v1mc": "select uuid_generate_v1mc()",
    "json_get_empty": "with doc := <optional json>$doc select json_get(doc, 'a', default := <json>'dflt')",
}


def _sources():
    src = {"lib/schema.esdl": SCHEMA}
    src.update({f"lib/{k}.edgeql": v for k, v in QUERIES.items()})
    return src


@pytest.fixture(scope="module")
def plans():
    return {q.name: q for q in check_library(_sources(), Options(library="lib")).queries}


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return [tuple(r) for r in pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})]


def _errors(query: str) -> str:
    sources = {"lib/schema.esdl": SCHEMA, "lib/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="lib"))
    return exc.value.render(sources)


@pytest.fixture
def db(pg):
    pg.execute(compile_library(_sources(), Options(library="lib"))["sql/schema.sql"])
    pg.execute("""INSERT INTO doc (name, data, score) VALUES ('a', '{"a": [1], "s": "x"}', 1.5), ('b', NULL, NULL)""")
    return pg


def test_json_typeof_to_json_and_json_get_with_a_default(db, plans):
    # (an empty json value makes json_get() empty: its first parameter is not optional, the
    # default only stands for a missing path)
    assert _run(db, plans["json_forms"]) == [("a", "object", "array", "none", "x"), ("b", None, None, None, None)]
    assert {f.name: f.optional for f in plans["json_forms"].result} == {
        "name": False, "t": True, "a": True, "d": True, "s": True}
    assert _run(db, plans["json_get_empty"], doc=None) == [(None,)]
    assert _run(db, plans["json_get_empty"], doc=psycopg.types.json.Jsonb({"b": 1})) == [("dflt",)]
    assert _run(db, plans["json_get_empty"], doc=psycopg.types.json.Jsonb({"a": 2})) == [(2,)]
    assert _run(db, plans["parse_json"], text='[1, "hello", null]') == [([1, "hello", None],)]
    assert _run(db, plans["parse_json"], text=None) == [(None,)]
    with pytest.raises(psycopg.errors.InvalidTextRepresentation):
        _run(db, plans["parse_json"], text="nope")
    assert _run(db, plans["typeof_values"]) == [("number", "null", "object")]


def test_re_match_is_the_first_match_s_groups(db, plans):
    assert _run(db, plans["matches"], pattern=r"(\d)(\d)?", s="a1 b23") == [(["edgeql"], ["a", "", "b"], ["1", ""])]
    assert _run(db, plans["matches"], pattern=r"\d", s="none")[0][2] is None
    assert [f.type.name for f in plans["matches"].result] == ["array<str>"] * 3
    assert [f.optional for f in plans["matches"].result] == [True] * 3


def test_str_trim_with_characters(db, plans):
    assert _run(db, plans["trims"]) == [("data", "data..", "..data", "data")]


def test_to_datetime_reads_iso_8601_with_a_time_zone(db, plans):
    utc = datetime.timezone.utc
    assert _run(db, plans["datetime_of"], s="2018-05-07T15:01:22.306916+00")[0][0] == \
        datetime.datetime(2018, 5, 7, 15, 1, 22, 306916, tzinfo=utc)
    assert _run(db, plans["datetime_of"], s="2018-05-07T15:01:22+02:00")[0][0] == \
        datetime.datetime(2018, 5, 7, 13, 1, 22, tzinfo=utc)
    assert _run(db, plans["datetime_of"], s="20180507T150122Z")[0][0] == datetime.datetime(2018, 5, 7, 15, 1, 22,
                                                                                           tzinfo=utc)
    assert _run(db, plans["datetime_of"], s=None) == [(None,)]
    # the cast of a str reads it the same way (a literal with a time zone stays a plain CAST)
    assert _run(db, plans["cast_of"], s="2018-05-07T15:01:22+02:00")[0][0] == \
        datetime.datetime(2018, 5, 7, 13, 1, 22, tzinfo=utc)
    with pytest.raises(psycopg.errors.InvalidDatetimeFormat, match="ISO 8601"):
        _run(db, plans["cast_of"], s="2018-05-07 15:01")
    plain = check_library({"lib/schema.esdl": SCHEMA, "lib/q.edgeql": "select <datetime>'2018-05-07T15:01:22Z'"},
                          Options(library="lib")).queries[0]
    assert plain.sql == "SELECT CAST('2018-05-07T15:01:22Z' AS timestamptz) AS \"value\""
    # Gel requires the time zone; Postgres would read it in the session's
    for text in ("2018-05-07T15:01:22", "2018-05-07", "May 7 2018 15:00 +00"):
        with pytest.raises(psycopg.errors.InvalidDatetimeFormat, match="ISO 8601"):
            _run(db, plans["datetime_of"], s=text)


def test_to_datetime_of_a_format_parts_epoch_and_local_datetime(db, plans):
    utc = datetime.timezone.utc
    assert _run(db, plans["datetimes"]) == [(
        datetime.datetime(2018, 5, 7, 15, 1, 22, tzinfo=utc),
        datetime.datetime(2018, 5, 7, 15, 1, 22, 306916, tzinfo=utc),
        datetime.datetime(2020, 5, 27, 15, 59, 44, 584000, tzinfo=utc),
        datetime.datetime(2018, 12, 31, 17, 2, 3, tzinfo=utc),
        datetime.date(2018, 5, 7),
        datetime.datetime(2018, 5, 7, 15, 1, 22, 306916),
        datetime.time(15, 1, 22, 500000),
    )]
    text = _errors("select to_datetime('2018-05-07 15:01', 'YYYY-MM-DD HH24:MI')")
    assert "lib/q.edgeql:1:40: error[E0304]: to_datetime()'s format 'YYYY-MM-DD HH24:MI' has no time zone" in text
    # a TZH inside double quotes is literal text, no time zone
    assert "has no time zone" in _errors("""select to_datetime('x', 'YYYY "TZH"')""")
    assert "error[E0206]: to_datetime() with a format that is not a string literal" in \
        _errors("select to_datetime('x', <str>$f)")


def test_math_functions(db, plans):
    row = _run(db, plans["math_forms"])[0]
    assert row[0] == 1.0 and row[1] == Decimal("3.0000000000000000")
    assert row[2] == math.pi and row[3] == math.e and row[4] == math.pi / 4 and row[5] == 1.0
    assert row[6] == pytest.approx(2.0)
    assert [f.type.name for f in plans["math_forms"].result] == ["float64", "decimal"] + ["float64"] * 5


def test_mean_of_one_value_is_the_value_and_of_none_an_error(db, plans):
    assert _run(db, plans["mean_score"]) == [("a", 1.5), ("b", 0.0)]
    assert _run(db, plans["mean_of"], x=4) == [(4.0,)]
    assert plans["mean_of"].cardinality == "one"
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="not enough elements in input set"):
        _run(db, plans["mean_of"], x=None)


def test_uuid_generate_v1mc_is_a_time_based_uuid_with_a_multicast_node(db, plans):
    values = [_run(db, plans["v1mc"])[0][0] for _ in range(3)]
    assert len(set(values)) == 3
    gregorian = datetime.datetime(1582, 10, 15, tzinfo=datetime.timezone.utc)
    for value in values:
        u = uuid.UUID(str(value))
        assert u.version == 1 and u.variant == uuid.RFC_4122
        assert u.node & (1 << 40)  # the multicast bit of the node's first octet
        at = gregorian + datetime.timedelta(microseconds=u.time // 10)
        assert abs((at - datetime.datetime.now(datetime.timezone.utc)).total_seconds()) < 600


def test_assert_distinct_of_a_selection_of_objects_is_the_selection(db):
    sources = {"lib/schema.esdl": SCHEMA,
               "lib/ad.edgeql": "with ds := (select Doc filter .score > 1) "
                                "select assert_distinct(ds) { name, n := count(assert_distinct(Doc)) }"}
    plan = check_library(sources, Options(library="lib")).queries[0]
    assert "assert_distinct" not in plan.sql and _run(db, plan) == [("a", 2)]
    text = _errors("select assert_distinct(Doc.name)")
    assert "lib/q.edgeql:1:8: error[E0206]: assert_distinct() of a set that may hold duplicates" in text
    text = _errors("with Doc := {'a'} select assert_distinct(Doc)")  # (a name that hides the type)
    assert "error[E0206]" in text
