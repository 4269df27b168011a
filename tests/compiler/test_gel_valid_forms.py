"""Valid Gel that schemac once refused with a wrong error code (E0304 / E0302 / E0100): each
compiles with Gel's semantics, proven on PostgreSQL 15 here (psycopg, untyped text parameters
as the runners send them) and through both runners in tests/e2e/test_gel_valid_forms_e2e.py
(tests/cases/gel_valid_forms); the forms Gel itself refuses keep a located error."""

from __future__ import annotations

import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  type Person { required name: str; tags: array<str>; multi nicknames: str; }
  type Book { required title: str; author: Person; }
}
"""


def _plan(query: str):
    return check_library({"s.esdl": SCHEMA, "q/q.edgeql": query}, Options(library="c")).queries[0]


def _run(pg, plan, *args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return pg.execute(sql, {f"p{i}": a for i, a in enumerate(args, 1)})


def _errors(query: str):
    sources = {"s.esdl": SCHEMA, "q/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    return exc.value.render(sources)


@pytest.fixture
def db(pg):
    pg.execute(compile_library({"s.esdl": SCHEMA}, Options(library="c"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO person (name) VALUES ('ann'), ('bob')")
    pg.execute("INSERT INTO book (title, author_id) SELECT 'Dune', id FROM person WHERE name = 'ann'")
    return pg


@pytest.mark.parametrize("query, args, expected", [
    ("select count({1, 2});", (), [(2,)]),
    ("select count({<str>$a, <optional str>$b});", ("x", None), [(1,)]),
    ("select sum({1, 2.5});", (), [(3.5,)]),
    ("select sum(array_unpack(<array<int64>>$xs));", ([],), [(0,)]),
    ("select min(array_unpack(<array<int64>>$xs));", ([],), [(None,)]),
    ("select max(array_unpack(<array<str>>$xs) union {'b'});", (["a", "c"],), [("c",)]),
    ("select array_agg({3, 1} union array_unpack(<array<int64>>$xs));", ([2],), [([3, 1, 2],)]),
    ("select any({false, <bool>$f});", (True,), [(True,)]),
    ("select all(array_unpack(<array<bool>>$fs));", ([],), [(True,)]),
    ("select math::mean({1, 2});", (), [(1.5,)]),
    ("with xs := {1, 2, 3} select { n := count(xs), s := sum(xs) };", (), [(3, 6)]),
    ("with t := <optional str>$t select count(t);", (None,), [(0,)]),
    ("with xs := {1, 2} select xs;", (), [(1,), (2,)]),
    ("with names := {'ann', 'cy'} select Person { name } filter .name in names;", (), [("ann",)]),
    ("select Person { n := count({1, 2}) } filter .name = 'ann';", (), [(2,)]),
    ("select to_json('{\"a\": 1}') ++ to_json('{\"b\": 2}');", (), [({"a": 1, "b": 2},)]),
    ("select to_json('[1]') ++ to_json('[2]');", (), [([1, 2],)]),
    ("select to_json('\"a\"') ++ to_json('\"b\"');", (), [("ab",)]),
    ("select <bytes>$a ++ <bytes>$b;", (b"a", b"\x00"), [(b"a\x00",)]),
    ("with B := Book select B { title } filter .title = <str>$t;", ("Dune",), [("Dune",)]),
    ("with B := Book select count(B);", (), [(1,)]),
    ("with P := Person, b := (select Book filter .author in P) select b { title };", (), [("Dune",)]),
    ("select Person { name } filter .name = <str>$0 or .name = <str>$1 order by .name;", ("ann", "bob"),
     [("ann",), ("bob",)]),
])
def test_valid_gel_runs_with_gels_semantics(db, query, args, expected):
    assert [tuple(r) for r in _run(db, _plan(query), *args)] == expected


@pytest.mark.parametrize("query", [
    "select math::mean(array_unpack(<array<int64>>$xs));",
    "select to_json('[1]') ++ to_json('{\"b\": 2}');",
])
def test_gels_run_time_errors(db, query):
    import psycopg

    plan = _plan(query)
    with pytest.raises(psycopg.errors.InvalidTextRepresentation) as exc:
        _run(db, plan, *([[]] if "$xs" in query else []))
    assert ("not enough elements" if "mean" in query else "invalid JSON values for ++ operator") in str(exc.value)


@pytest.mark.parametrize("value, args, expected", [
    ("array_unpack(<array<str>>$n)", (["a", "b", "a"],), ["a", "b", "a"]),
    ("array_unpack(<array<str>>$n)", ([],), []),
    ("{'a', <optional str>$n}", (None,), ["a"]),
    ("{'a'} union array_unpack(<array<str>>$n)", (["b"],), ["a", "b"]),
    ("<optional str>$n", (None,), []),
    ("'a'", (), ["a"]),
])
def test_a_multi_property_is_assigned_a_set_of_values(db, value, args, expected):
    plan = _plan(f"with p := (insert Person {{ name := 'x', nicknames := {value} }}) select p {{ nicknames }};")
    assert [tuple(r) for r in _run(db, plan, *args)] == [(expected,)]


def test_plus_and_minus_of_a_set_of_values_on_a_multi_property(db):
    db.execute("INSERT INTO person (name, nicknames) VALUES ('cy', '{a,b}')")
    add = _plan("update Person filter .name = 'cy' set { nicknames += {'c'} union array_unpack(<array<str>>$n) };")
    _run(db, add, ["d"])
    remove = _plan("update Person filter .name = 'cy' set { nicknames -= {'a', 'd'} };")
    _run(db, remove)
    assert db.execute("SELECT nicknames FROM person WHERE name = 'cy'") == [(["b", "c"],)]


def test_positional_parameters_are_the_runners_arg0_arg1():
    plan = _plan("select <str>$1 ++ <str>$0;")
    assert [(p.name, p.position) for p in plan.params] == [("arg1", 1), ("arg0", 0)]


@pytest.mark.parametrize("query, message, col", [
    ("select <str>$0 ++ <str>$a;", "cannot combine positional and named parameters in the same query", 19),
    ("select <str>$a ++ <str>$0;", "cannot combine positional and named parameters in the same query", 19),
    ("select <str>$0 ++ <str>$2;", "missing $1 positional argument", 8),
    ("select <str>$2;", "missing $0, $1 positional arguments", 8),
])
def test_gels_parameter_rules_are_located_e0311(query, message, col):
    assert f"q/q.edgeql:1:{col}: error[E0311]: {message}" in _errors(query)


@pytest.mark.parametrize("query, message", [
    ("select to_json('[1]') ++ 'a';", "error[E0304]: '++' needs str operands, got json and str"),
    ("select count({1, 'a'});", "error[E0304]: a set mixes int64 and str"),
    ("select any({1, 2});", "error[E0304]: any() needs bool values, got int64"),
    ("insert Person { name := 'x', nicknames := {1, 2} };", "error[E0304]: 'nicknames' holds str, but the value is int64"),
])
def test_type_errors_stay_e0304(query, message):
    assert message in _errors(query)
