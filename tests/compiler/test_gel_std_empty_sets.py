"""The standard-library functions of issue 12 with Gel's rules for empty sets and ties, each
checked on PostgreSQL 15 with data against the result Gel documents:

* ``sum`` of one value is the value, of none ``0``, never empty, in Gel's result type (int64 of
  any integer) (https://docs.geldata.com/reference/stdlib/set#function::std::sum);
* ``count`` of one value (an optional property, an ``array<T>`` property: one array, a
  parameter) is 1, or 0 when empty; of a ``multi`` property, the number of its values
  (https://docs.geldata.com/reference/stdlib/set#function::std::count);
* ``min`` / ``max`` / ``sum`` / ``math::mean`` of a ``multi`` property: over its values (empty,
  ``0``, an error when it has none);
* ``round`` of a ``float64`` takes a tie to the even neighbour, of a ``decimal`` away from zero
  (https://docs.geldata.com/reference/stdlib/numbers#function::std::round): a float literal is a
  numeric in Postgres, whose ``round()`` took it away from zero.
"""

from __future__ import annotations

import re
from decimal import Decimal

import psycopg
import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  type Player {
    required name: str { constraint exclusive; };
    age: int32;
    score: float64;
    tags: array<str>;
    multi nicks: str;
    multi scores: int64;
  }
}
"""

QUERIES = {
    "sums": "select Player { name, s := sum(.age), f := sum(.score) } order by .name",
    "sum_param": "select sum(<optional int64>$x)",
    "sum_empty": "select sum(<int64>{})",
    "counts": "select Player { name, tags_n := count(.tags), nicks_n := count(.nicks), age_n := count(.age) } "
              "order by .name",
    "multi_aggs": "select Player { name, lo := min(.scores), hi := max(.scores), total := sum(.scores), "
                  "first := min(.nicks) } order by .name",
    "multi_mean": "select Player { name, m := math::mean(.scores) } filter .name = <str>$name",
    "spread": "select Player { name, sd := math::stddev(.scores), v := math::var(.scores), "
              "sdp := math::stddev_pop(.scores), vp := math::var_pop(.scores) } filter .name = <str>$name",
    "spread_pop": "select Player { name, sdp := math::stddev_pop(.scores), vp := math::var_pop(.scores) } "
                  "filter .name = <str>$name",
    "count_param": "select count(<optional str>$x)",
    "rounds": "select { a := round(2.5), b := round(-2.5), c := round(1.5), d := round(<decimal>'2.5'), "
              "e := round(<decimal>'-2.5'), f := round(<float64>$x), g := math::floor(-1.5), h := round(3) }",
}


def _sources():
    src = {"lib/schema.esdl": SCHEMA}
    src.update({f"lib/{k}.edgeql": v for k, v in QUERIES.items()})
    return src


@pytest.fixture
def plans():
    return {q.name: q for q in check_library(_sources(), Options(library="lib")).queries}


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return [tuple(r) for r in pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})]


@pytest.fixture
def db(pg):
    pg.execute(compile_library(_sources(), Options(library="lib"))["sql/schema.sql"])
    pg.execute("INSERT INTO player (name, age, score, tags, nicks, scores) VALUES "
               "('ann', 30, 1.5, ARRAY['a', 'b', 'c'], ARRAY['x', 'y'], ARRAY[4, 1, 7]), "
               "('bob', NULL, NULL, NULL, '{}', '{}'), "
               "('cat', 7, NULL, ARRAY[]::text[], ARRAY['z'], ARRAY[2])")
    return pg


def test_sum_of_one_value_or_none_is_the_value_or_zero(db, plans):
    assert _run(db, plans["sums"]) == [("ann", 30, 1.5), ("bob", 0, 0.0), ("cat", 7, 0.0)]
    field = {f.name: f for f in plans["sums"].result}
    assert field["s"].type.name == "int64" and not field["s"].optional  # int32 -> int64, never empty
    assert field["f"].type.name == "float64" and not field["f"].optional
    assert _run(db, plans["sum_param"], x=None) == [(0,)]
    assert _run(db, plans["sum_param"], x=5) == [(5,)]
    assert plans["sum_param"].cardinality == "one" and plans["sum_empty"].cardinality == "one"
    assert _run(db, plans["sum_empty"]) == [(0,)]


def test_count_of_one_value_is_one_or_zero(db, plans):
    # an array<T> property is one value (len() gives its length); a multi property a set
    assert _run(db, plans["counts"]) == [("ann", 1, 2, 1), ("bob", 0, 0, 0), ("cat", 1, 1, 1)]
    assert _run(db, plans["count_param"], x=None) == [(0,)] and _run(db, plans["count_param"], x="a") == [(1,)]
    assert plans["count_param"].cardinality == "one"


def test_round_takes_a_float_tie_to_even_and_a_decimal_tie_away_from_zero(db, plans):
    row = _run(db, plans["rounds"], x=0.5)[0]
    assert row == (2.0, -2.0, 2.0, Decimal("3"), Decimal("-3"), 0.0, -2.0, 3.0)
    assert _run(db, plans["rounds"], x=3.5)[0][5] == 4.0


def test_aggregates_of_a_multi_property_read_its_values(db, plans):
    assert _run(db, plans["multi_aggs"]) == [("ann", 1, 7, 12, "x"), ("bob", None, None, 0, None), ("cat", 2, 2, 2, "z")]
    field = {f.name: f for f in plans["multi_aggs"].result}
    assert field["lo"].optional and not field["total"].optional
    assert _run(db, plans["multi_mean"], name="ann") == [("ann", 4.0)]
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="not enough elements in input set"):
        _run(db, plans["multi_mean"], name="bob")


def test_deviation_and_variance_of_a_multi_property(db, plans):
    # (https://docs.geldata.com/reference/stdlib/math#function::math::stddev)
    name, sd, v, sdp, vp = _run(db, plans["spread"], name="ann")[0]
    assert (name, sd, v, vp) == ("ann", 3.0, 9.0, 6.0) and sdp == pytest.approx(6 ** 0.5)
    # one value: no sample deviation (Gel fails), a population deviation of 0
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="invalid input to stddev"):
        _run(db, plans["spread"], name="cat")
    assert _run(db, plans["spread_pop"], name="cat") == [("cat", 0.0, 0.0)]
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="not enough elements in input set"):
        _run(db, plans["spread_pop"], name="bob")
