"""Valid Gel from Gel's own tests that was a syntax error (E0100), read with Gel's meaning and
proven on PostgreSQL 15 with data:

* a tuple of one element, ``(x,)`` (Gel's grammar: ``LPAREN Expr COMMA RPAREN`` is a tuple;
  geldata/gel tests/test_edgeql_coalesce.py ``(I.time_estimate,).0``, test_edgeql_for.py);
* ``unless conflict ... else (T)``: the type name in parentheses, as ``else T``
  (tests/test_edgeql_insert.py ``UNLESS CONFLICT ON (.n) ELSE (X)``);
* a shape element with a type intersection, ``members[is Bot]: { name }`` (tests/test_edgeql_scope.py
  ``owners[IS Bot]: {name}``, test_edgeql_select.py ``references[IS Publication]: {...}``): the
  element ``members := .members[is Bot] { name }``
  (https://docs.geldata.com/reference/edgeql/select#polymorphic-queries);
* a parenthesised type after ``is``, ``x is (Bot)`` (Gel's NontrivialTypeExpr ``LPAREN
  FullTypeExpr RPAREN``; tests/test_edgeql_select.py ``[5] IS (array<int64>)``): as ``x is Bot``;
* ``for optional x in S`` (tests/test_edgeql_for.py): read, and refused with E0206 naming it.
"""

from __future__ import annotations

import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module default {
  abstract type Named { required name: str; }
  type Person extending Named;
  type Bot extending Named { version: int64; }
  type Team { required name: str; multi members: Named; lead: Named; }
  type Tag { required n: str { constraint exclusive; } }
}
"""

QUERIES = {
    "one": "select (<int64>$x,);",
    "one_of_one": "select ((<str>$s,),).0;",
    "pair_of_one": "select Team { name, t := (.name,) } order by .name;",
    "tag": "insert Tag { n := <str>$n } unless conflict on .n else (Tag);",
    "bots": "select Team { name, members[is Bot]: { name, version } } order by .name;",
    "lead_bot": "select Team { name, lead[is Bot]: { name } } order by .name;",
    "kinds": "select Named { name, b := Named is (Bot), p := Named is not (Bot) } order by .name;",
}

SAME = {
    "one_of_one": "select (<str>$s,);",
    "tag": "insert Tag { n := <str>$n } unless conflict on .n else Tag;",
    "bots": "select Team { name, members := .members[is Bot] { name, version } } order by .name;",
    "lead_bot": "select Team { name, lead := .lead[is Bot] { name } } order by .name;",
    "kinds": "select Named { name, b := Named is Bot, p := Named is not Bot } order by .name;",
}


def _plans(queries):
    sources = {"gt/default.gel": SCHEMA}
    sources.update({f"gt/queries/{k}.edgeql": v for k, v in queries.items()})
    return {q.name: q for q in check_library(sources, Options(library="gt")).queries}


def test_the_forms_compile_to_the_statements_of_gels_spelled_out_forms():
    q, same = _plans(QUERIES), _plans(SAME)
    assert set(q) == set(QUERIES)
    for name in SAME:
        assert q[name].sql == same[name].sql, name
        assert q[name].result == same[name].result, name


def test_the_forms_on_postgres(pg):
    pg.execute(compile_library({"gt/default.gel": SCHEMA}, Options(library="gt"))["sql/000001_init.up.sql"])
    q = _plans(QUERIES)
    pg.execute("INSERT INTO person (name) VALUES ('ann'), ('bob')")
    pg.execute("INSERT INTO bot (name, version) VALUES ('r2', 2), ('c3', 3)")
    pg.execute("INSERT INTO team (name) VALUES ('red'), ('blue')")
    for team, member in (("red", "ann"), ("red", "r2"), ("red", "c3"), ("blue", "bob")):
        table = "bot" if member in ("r2", "c3") else "person"
        # (a link to an abstract type: a column per concrete target type, see docs/language.md)
        pg.execute(f"INSERT INTO team_members (source_id, target_id, target_{table}_id) SELECT t.id, m.id, m.id "
                   f"FROM team t, {table} m WHERE t.name = '{team}' AND m.name = '{member}'")
    pg.execute("UPDATE team SET lead_bot_id = (SELECT id FROM bot WHERE name = 'r2') WHERE name = 'red'")
    pg.execute("UPDATE team SET lead_person_id = (SELECT id FROM person WHERE name = 'bob') WHERE name = 'blue'")

    (one,), = run_plan(pg, q["one"], 7)
    assert one == ["7"]  # (a tuple travels as a JSON array; int64 as text)
    assert run_plan(pg, q["one_of_one"], "a") == [(["a"],)]
    assert run_plan(pg, q["pair_of_one"]) == [("blue", ["blue"]), ("red", ["red"])]
    (first,), = run_plan(pg, q["tag"], "x")
    (again,), = run_plan(pg, q["tag"], "x")
    assert first == again  # (else (Tag): the object already there)
    rows = run_plan(pg, q["bots"])
    assert [(name, sorted((m["name"], m["version"]) for m in members)) for name, members in rows] == [
        ("blue", []), ("red", [("c3", "3"), ("r2", "2")])]
    assert run_plan(pg, q["lead_bot"]) == [("blue", None), ("red", {"name": "r2"})]
    assert run_plan(pg, q["kinds"]) == [("ann", False, True), ("bob", False, True), ("c3", True, False),
                                        ("r2", True, False)]


def test_for_optional_is_read_and_refused_with_e0206():
    with pytest.raises(CompileError) as e:
        _plans({"q": "for optional x in {1, 2} union (select x);"})
    (d,) = e.value.diagnostics
    assert (d.code, d.message) == ("E0206", "'for optional' loops are not supported yet")
    assert (d.span.line, d.span.col) == (1, 5)
