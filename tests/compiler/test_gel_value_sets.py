"""Computed properties that are sets of values built from an array
(https://docs.geldata.com/reference/stdlib/array#function::std::array_unpack), with the
string functions they use: ``str_split`` (https://docs.geldata.com/reference/stdlib/string#function::std::str_split)
and string indexing ``s[i]`` (https://docs.geldata.com/reference/stdlib/string#operator::stridx).
A set of values is read as its array (a list in a shape, ``count``, ``in``, ``exists``), as a
stored ``multi`` property is. Each proven on PostgreSQL 15 with data."""

from __future__ import annotations

import psycopg
import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module default {
  abstract type HasInfo {
    name: str;
    # the first character of each word (Gel: <str>(array_unpack(...)[0]), a set)
    shortname := (select <str>array_unpack(str_split(.name, ' '))[0]);
  }
  type User extending HasInfo {
    words := array_unpack(str_split(.name, ' '));
    letters := str_split(.name, '');
    first := .name[0];
    last := .name[-1];
  }
}
"""

QUERIES = {
    "users": "select User { name, shortname, words, letters, first, last, n := count(.words) } order by .name;",
    "with_word": "select User { name } filter <str>$w in .words order by .name;",
    "wordless": "select User { name } filter not exists .words order by .name;",
}


def _sources(schema=SCHEMA, queries=QUERIES):
    out = {"default.gel": schema}
    out.update({f"q/{k}.edgeql": v for k, v in queries.items()})
    return out


def _plans():
    return {q.name: q for q in check_library(_sources(), Options(library="c")).queries}


def _errors(schema: str) -> str:
    with pytest.raises(CompileError) as exc:
        check_library({"default.gel": schema}, Options(library="c"))
    return exc.value.render({"default.gel": schema})


def test_value_sets_from_arrays_on_postgres(pg):
    pg.execute(compile_library(_sources(), Options(library="c"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO \"user\" (name) VALUES ('Ann Bo Lee'), ('Zed'), (NULL)")
    plans = _plans()
    rows = run_plan(pg, plans["users"])
    assert rows == [
        (None, [], [], None, None, None, 0),  # an empty name (first, as Gel orders): empty sets and values
        ("Ann Bo Lee", ["A", "B", "L"], ["Ann", "Bo", "Lee"], list("Ann Bo Lee"), "A", "e", 3),
        ("Zed", ["Z"], ["Zed"], ["Z", "e", "d"], "Z", "d", 1),
    ]
    assert run_plan(pg, plans["with_word"], "Bo") == [("Ann Bo Lee",)]
    assert run_plan(pg, plans["with_word"], "bo") == []
    assert run_plan(pg, plans["wordless"]) == [(None,)]
    # str_split keeps the empty pieces between two delimiters, as Gel's; indexing an empty one
    # fails the statement, as Gel's "string index 0 is out of bounds"
    pg.execute("DELETE FROM \"user\"")
    pg.execute("INSERT INTO \"user\" (name) VALUES ('a  b')")
    words = _plans_of("select User { words };")
    assert run_plan(pg, words) == [(["a", "", "b"],)]
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="string index 0 is out of bounds"):
        run_plan(pg, plans["users"])
    pg.execute("UPDATE \"user\" SET name = 'ab'")
    idx = _plans_of("select User { a := .name[1], b := .name[-2] };")
    assert run_plan(pg, idx) == [("b", "a")]
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="string index -3 is out of bounds"):
        run_plan(pg, _plans_of("select User { c := .name[-3] };"))


def _plans_of(query: str):
    return check_library(_sources(queries={"q": query}), Options(library="c")).queries[0]


def test_a_value_set_is_multi_and_refused_where_gel_refuses_it():
    text = _errors("type U { name: str; single w := array_unpack(str_split(.name, ' ')); }")
    assert "error[E0204]: computed 'w' is declared single" in text
    text = _errors("type U { name: str; w := array_unpack(str_split(.name, ' ')) ++ array_unpack(['x']); }")
    assert "error[E0206]: a computed of several array_unpack() sets is not supported" in text
    text = _errors("type U { name: str; w := array_unpack(.name); }")
    assert "error[E0304]: array_unpack() needs an array, got str" in text
    text = _errors("type U { name: str; w := .name['a']; }")
    assert "error[E0304]: a string index is an integer, got str" in text


def test_indexing_a_column_by_a_constant_fails_only_out_of_bounds(pg):
    """``arr[0]`` / ``s[0]`` of a column: Postgres folds a constant expression in a CASE branch
    that is never taken into an error at planning time unless it reads the row; an empty array
    or string gives an empty element, as in Gel."""
    schema = "type T { tags: array<str>; name: str; }"
    pg.execute(compile_library({"default.gel": schema}, Options(library="c"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO t (tags, name) VALUES ('{x,y}', 'ab'), (NULL, NULL)")
    q = check_library({"default.gel": schema, "q/q.edgeql": "select T { a := .tags[0], z := .tags[-1], "
                       "c := .name[0] } order by .name;"}, Options(library="c")).queries[0]
    assert run_plan(pg, q) == [(None, None, None), ("x", "y", "a")]
    pg.execute("INSERT INTO t (tags, name) VALUES ('{}', '')")
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="array index 0 is out of bounds"):
        run_plan(pg, q)


def test_exists_of_a_multi_property_is_one_value_at_least(pg):
    """``exists .nicks`` of a ``multi`` property (stored as an array, never NULL) is true when it
    holds a value (https://docs.geldata.com/reference/stdlib/set#operator::exists); of an
    ``array<str>`` property, when it is set, even to ``[]``."""
    schema = "type A { name: str; multi nicks: str; tags: array<str>; }"
    pg.execute(compile_library({"default.gel": schema}, Options(library="c"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO a (name, nicks, tags) VALUES ('none', '{}', NULL), ('one', '{x}', '{}')")

    def names(query):
        q = check_library({"default.gel": schema, "q/q.edgeql": query}, Options(library="c")).queries[0]
        return [r[0] for r in run_plan(pg, q)]

    assert names("select A { name } filter exists .nicks order by .name;") == ["one"]
    assert names("select A { name } filter not exists .nicks order by .name;") == ["none"]
    assert names("select A { name } filter exists .tags order by .name;") == ["one"]
