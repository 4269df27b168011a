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


_ASSERT = 'invalid input syntax for type integer: "schemac-assert|'


@pytest.mark.parametrize("query, args, expected", [
    ("select assert_distinct({1, 2, 3});", (), [(1,), (2,), (3,)]),
    ("select assert_distinct(array_unpack(<array<str>>$x));", (["b", "a"],), [("b",), ("a",)]),
    ("select Person { n := assert_distinct(.nicknames) } filter .name = 'ann';", (), [(["x", "y"],)]),
    ("select assert_exists((select Book filter .title = <str>$t)) { title };", ("Dune",), [("Dune",)]),
    ("select assert_single((select Book filter .title = <str>$t), message := 'm') { title };", ("Dune",),
     [("Dune",)]),
    ("select assert_single((select Book filter .title = <str>$t), message := 'm') { title };", ("Emma",), []),
    ("select assert_exists(<optional str>$s, message := 'no s');", ("v",), [("v",)]),
    ("select assert_exists(assert_single((select Book filter .title = <str>$t))) { title };", ("Dune",),
     [("Dune",)]),
    ("select { n := count(assert_distinct({3, 4})), s := sum(assert_distinct(array_unpack(<array<int64>>$x))) };",
     ([1, 2],), [(2, 3)]),
])
def test_assertions_that_hold_pass_their_set_through(db, query, args, expected):
    db.execute("UPDATE person SET nicknames = '{x,y}' WHERE name = 'ann'")
    assert [tuple(r) for r in _run(db, _plan(query), *args)] == expected


@pytest.mark.parametrize("query, args, raised", [
    ("select assert_distinct({1, 2, 1});", (),
     "assert_distinct|assert_distinct violation: expression returned a set with duplicate elements"),
    ("select count(assert_distinct({1, 2, 1}));", (),
     "assert_distinct|assert_distinct violation: expression returned a set with duplicate elements"),
    ("select assert_distinct(array_unpack(<array<str>>$x), message := 'twice {x}');", (["a", "a"],),
     "assert_distinct|twice {x}"),
    ("select Person { n := assert_distinct(.nicknames) };", (),
     "assert_distinct|assert_distinct violation: expression returned a set with duplicate elements"),
    ("select assert_exists((select Book filter .title = <str>$t)) { title };", ("Ulysses",),
     "assert_exists|assert_exists violation: expression returned an empty set"),
    ("select assert_exists((select Book filter .title = <str>$t), message := 'no book') { title };", ("Ulysses",),
     "assert_exists|no book"),
    ("select assert_single(Book, message := 'one book only') { title };", (), "assert_single|one book only"),
    ("select assert_single(Book) { title };", (),
     "assert_single|assert_single violation: more than one element returned by an expression"),
    ("select assert_exists(<optional str>$s, message := 'no s');", (None,), "assert_exists|no s"),
    ("select assert_exists(assert_single((select Book filter .title = <str>$t))) { title };", ("Ulysses",),
     "assert_exists|assert_exists violation: expression returned an empty set"),
    ("insert Book { title := 'x', author := assert_exists(assert_single((select Person filter .name = <str>$n)), "
     "message := 'no author') };", ("zed",), "assert_exists|no author"),
    ("insert Book { title := 'x', author := assert_exists(assert_single((select Person filter .name = <str>$n))) };",
     ("zed",), "assert_exists|assert_exists violation: expression returned an empty set"),
])
def test_failed_assertions_fail_with_gels_message_or_the_given_one(db, query, args, raised):
    import psycopg

    db.execute("UPDATE person SET nicknames = '{z,z}' WHERE name = 'bob'")
    db.execute("INSERT INTO book (title) VALUES ('Emma'), ('Emma')")
    with pytest.raises(psycopg.errors.InvalidTextRepresentation) as exc:
        _run(db, _plan(query), *args)
    assert f'{_ASSERT}{raised}"' in str(exc.value)


@pytest.mark.parametrize("query, message", [
    ("select assert_exists(Book, message := <str>$m) { title };",
     "error[E0206]: an assertion's message := other than a string literal is not supported yet"),
    ("insert Book { title := 'x', author := assert_single((select Person filter .name = 'a'), message := 'm') };",
     "error[E0206]: assert_single(..., message := ...) as a link's value is not supported yet"),
])
def test_assertion_forms_not_lowered_are_e0206(query, message):
    assert message in _errors(query)
