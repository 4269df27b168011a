"""Queries on an abstract type (tests/cases/gel_poly_links; https://docs.geldata.com/reference/edgeql/select#polymorphic-queries,
https://docs.geldata.com/reference/datamodel/inheritance): ``select Content { ... }`` reads the
objects of its concrete subtypes, one table each, united; ``[is T].x`` is the element of the
objects of ``T`` and empty (``null``, ``[]``) for the others; computeds the abstract type
declares (``.__type__.name``, ``str_upper(.title)``) are each subtype's; ``filter``, ``order
by`` and ``limit`` apply to the whole set; a backlink of an abstract type (``.<about[is Note]``)
reads the objects of each of its subtypes. Run on PostgreSQL 15 with data (every parameter
sent untyped, as node-postgres sends them), and through the runners in
tests/e2e/test_gel_poly_links_e2e.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from libraries import case_plans, run_plan as run
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library
from schemac.semantics.library import Options

CASE = Path(__file__).resolve().parents[1] / "cases" / "gel_poly_links"


@pytest.fixture(scope="module")
def q():
    return case_plans("gel_poly_links")


@pytest.fixture
def db(pg):
    pg.execute((CASE / "expected" / "sql" / "000001_init.up.sql").read_text())
    alien = pg.execute("INSERT INTO movie (title, release_year) VALUES ('Alien', 1979) RETURNING id")[0][0]
    heat = pg.execute("INSERT INTO movie (title) VALUES ('Heat') RETURNING id")[0][0]
    lost = pg.execute("INSERT INTO show (title, seasons) VALUES ('Lost', 6) RETURNING id")[0][0]
    pg.execute("INSERT INTO tip (body, about_movie_id) VALUES ('b: watch at night', %s), ('a: skip the sequel', %s)",
               (alien, alien))
    pg.execute("INSERT INTO warning (body, level, about_movie_id) VALUES ('c: gore', 2, %s)", (alien,))
    pg.execute("INSERT INTO warning (body, level, about_show_id) VALUES ('d: too long', 1, %s)", (lost,))
    pg.ids = {"alien": str(alien), "heat": str(heat), "lost": str(lost)}
    return pg


def _untyped(pg, plan, **args):
    sql = plan.sql
    for p in sorted(plan.params, key=lambda p: -p.index):
        sql = sql.replace(f"${p.index}", f"%({p.name})s")
    return pg.execute(sql, {p.name: None if args[p.name] is None else str(args[p.name]) for p in plan.params})


def test_a_select_of_an_abstract_type_reads_every_subtype(db, q):
    plan = q["contents"]
    assert plan.cardinality == "many" and plan.sql.count(";") == 0
    assert [(f.name, f.optional, f.multi) for f in plan.result] == [
        ("kind", False, False), ("title", False, False), ("shout", False, False), ("release_year", True, False),
        ("seasons", True, False), ("note_ids", False, True)]
    rows = _untyped(db, plan, skip="nothing", n=10)
    assert [r[:5] for r in rows] == [
        ("default::Show", "Lost", "LOST", None, 6),
        ("default::Movie", "Heat", "HEAT", None, None),
        ("default::Movie", "Alien", "ALIEN", 1979, None)]
    # [is Movie].notes: the movie's notes of every Note subtype, { id } each; [] for a show.
    notes = {r[0] for r in db.execute("SELECT id FROM tip UNION ALL SELECT id FROM warning WHERE about_movie_id IS "
                                      "NOT NULL")}
    assert {n["id"] for n in rows[2][5]} == {str(n) for n in notes} and rows[0][5] == [] and rows[1][5] == []
    # The filter and the order apply to the objects of every subtype, then the limit.
    assert [r[1] for r in _untyped(db, plan, skip="Lost", n=1)] == ["Heat"]
    assert [r[1] for r in _untyped(db, plan, skip="Heat", n=2)] == ["Lost", "Alien"]


def test_an_id_pins_one_object_of_any_subtype(db, q):
    plan = q["content_by_id"]
    assert plan.cardinality == "at_most_one"
    assert _untyped(db, plan, id=db.ids["lost"]) == [("Lost", "default::Show")]
    assert _untyped(db, plan, id=db.ids["heat"]) == [("Heat", "default::Movie")]
    assert _untyped(db, plan, id="00000000-0000-0000-0000-000000000000") == []


def test_a_polymorphic_link_and_a_subtype_property_of_an_abstract_select(db, q):
    plan = q["notes"]
    assert [(f.name, f.optional) for f in plan.result] == [
        ("kind", False), ("body", False), ("level", True), ("about", False)]
    assert run(db, plan) == [
        ("default::Tip", "a: skip the sequel", None, {"title": "Alien", "kind": "default::Movie", "shout": "ALIEN"}),
        ("default::Tip", "b: watch at night", None, {"title": "Alien", "kind": "default::Movie", "shout": "ALIEN"}),
        ("default::Warning", "c: gore", 2, {"title": "Alien", "kind": "default::Movie", "shout": "ALIEN"}),
        ("default::Warning", "d: too long", 1, {"title": "Lost", "kind": "default::Show", "shout": "LOST"})]


def test_a_backlink_of_an_abstract_type_with_a_shape(db, q):
    assert run(db, q["content_notes"]) == [
        ("Alien", [{"body": "a: skip the sequel", "kind": "default::Tip"},
                   {"body": "b: watch at night", "kind": "default::Tip"},
                   {"body": "c: gore", "kind": "default::Warning"}]),
        ("Heat", []),
        ("Lost", [])]


def _errors(query: str):
    sources = {"s.esdl": (CASE / "schema.esdl").read_text(), "q/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        check_library(sources, Options(library="c"))
    return [f"{d.span.line}:{d.span.col} {d.code} {d.message}" for d in e.value.diagnostics]


def test_forms_of_abstract_selects_that_are_refused_are_located():
    assert _errors("select Content { title } filter [is Movie].release_year > 2000") == [
        "1:33 E0206 '[is Movie]' in the filter or order of a query on the abstract type 'Content' is not supported "
        "yet"]
    assert _errors("select Content { [is Nope].x }") == ["1:18 E0301 unknown type 'Nope'"]


def test_a_with_query_may_select_an_abstract_type(db):
    sources = {"s.esdl": (CASE / "schema.esdl").read_text(),
               "q/q.edgeql": "with t := <str>$t select Content { title, kind } filter .title = t;"}
    plan = check_library(sources, Options(library="c")).queries[0]
    assert _untyped(db, plan, t="Lost") == [("Lost", "default::Show")]


def test_a_link_the_abstract_type_declares_reads_as_in_each_subtype(pg):
    # `author: { id }` is the FK column `author_id` in each subtype's select, as in a select of
    # one of them; `mins := [is Vlog].minutes` renames the subtype's property.
    schema = """type User { required name: str; }
abstract type Post { required title: str; author: User; }
type Blog extending Post { }
type Vlog extending Post { minutes: int32; }"""
    sources = {"s.esdl": schema,
               "q/posts.edgeql": "select Post { title, author: { id }, mins := [is Vlog].minutes } order by .title",
               "q/blogs.edgeql": "select Blog { title, author: { id } }"}
    from schemac.pipeline import compile_library

    pg.execute(compile_library(sources, Options(library="c"))["sql/schema.sql"])
    plans = {p.name: p for p in check_library(sources, Options(library="c")).queries}
    assert [f.name for f in plans["posts"].result] == ["title", "author_id", "mins"]
    assert [f.name for f in plans["blogs"].result] == ["title", "author_id"]
    ann = pg.execute('INSERT INTO "user" (name) VALUES (\'ann\') RETURNING id')[0][0]
    pg.execute("INSERT INTO blog (title, author_id) VALUES ('b', %s)", (ann,))
    pg.execute("INSERT INTO vlog (title, minutes) VALUES ('a', 12)")
    assert run(pg, plans["posts"]) == [("a", None, 12), ("b", ann, None)]


@pytest.mark.parametrize("query, message", [
    # (a delete of one is supported outside a block binding names: tests/compiler/test_abstract_delete.py)
    ("with t := 'x' delete Content filter .title = t;", "1:22 E0206 a delete of the abstract type 'Content' (the "
     "objects of its concrete subtypes: Movie, Show) is not supported yet"),
    ("with t := 'x' update Content filter .title = t set { title := 'y' };", "1:22 E0206 an update of the abstract "
     "type 'Content' (the objects of its concrete subtypes: Movie, Show) is not supported yet"),
    ("group Content by .title;", "1:7 E0206 a group of the abstract type 'Content' (the objects of its concrete "
     "subtypes: Movie, Show) is not supported yet"),
    # Gel refuses it too: "cannot insert into abstract object type".
    ("insert Content { title := 'x' };", "1:8 E0304 cannot insert into the abstract type 'Content'"),
    ("for x in {'a'} union (insert Content { title := x });",
     "1:30 E0304 cannot insert into the abstract type 'Content'"),
])
def test_other_statements_on_an_abstract_type_name_the_form(query, message):
    assert _errors(query) == [message]
