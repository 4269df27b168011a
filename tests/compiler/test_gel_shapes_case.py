"""The ``gel_shapes`` case (tests/cases/gel_shapes) on a real Postgres 15: splats ``{*}`` /
``{**}`` (https://docs.geldata.com/reference/edgeql/select#splats), computed shape elements
``name := expr`` (https://docs.geldata.com/reference/edgeql/shapes), and query files named in
kebab-case and camelCase. Each query is one SQL statement, run with psycopg; the results are
what Gel documents for the same query on the same data."""

from __future__ import annotations

from pathlib import Path

import pytest

from libraries import case_plans, run_plan
from schemac.semantics.library import Options
from schemac.pipeline import check_library
from schemac.diagnostics import CompileError

CASE = Path(__file__).resolve().parents[1] / "cases" / "gel_shapes"


@pytest.fixture
def db(pg):
    pg.execute((CASE / "expected" / "sql" / "000001_init.up.sql").read_text())
    ann = pg.execute("INSERT INTO author (name, bio) VALUES ('Ann', 'writes') RETURNING id")[0][0]
    bob = pg.execute("INSERT INTO author (name) VALUES ('Bob') RETURNING id")[0][0]
    b1 = pg.execute("INSERT INTO book (title, pages, author_id) VALUES ('Alpha', 420, %s) RETURNING id", (ann,))[0][0]
    pg.execute("INSERT INTO book (title, pages, author_id) VALUES ('Beta', NULL, %s)", (ann,))
    t1 = pg.execute("INSERT INTO tag (name) VALUES ('sf') RETURNING id")[0][0]
    t2 = pg.execute("INSERT INTO tag (name) VALUES ('classic') RETURNING id")[0][0]
    pg.execute("INSERT INTO book_tags (source_id, target_id) VALUES (%s, %s), (%s, %s)", (b1, t1, b1, t2))
    return pg, {"ann": ann, "bob": bob, "b1": b1, "t1": t1, "t2": t2}


def plans():
    return case_plans("gel_shapes")


def test_file_names_in_every_spelling_name_the_query():
    assert {"authors_all", "book_details", "book_stats", "author_overview", "books_by_author",
            "author_by_name", "author_link_ids"} == set(plans())


def test_splat_selects_every_property_computed_ones_included(db):
    pg, ids = db
    plan = plans()["authors_all"]
    assert [(f.name, f.optional) for f in plan.result] == [("id", False), ("name", False), ("bio", True),
                                                            ("shout", False)]
    assert run_plan(pg, plan) == [(ids["ann"], "Ann", "writes", "ANN"), (ids["bob"], "Bob", None, "BOB")]


def test_double_splat_adds_every_link_with_its_properties(db):
    pg, ids = db
    plan = plans()["book_details"]
    assert plan.cardinality == "at_most_one"
    assert [f.name for f in plan.result] == ["id", "title", "pages", "author", "tags"]
    ((book_id, title, pages, author, tags),) = run_plan(pg, plan, ids["b1"])
    assert (book_id, title, pages) == (ids["b1"], "Alpha", 420)
    assert author == {"id": str(ids["ann"]), "name": "Ann", "bio": "writes", "shout": "ANN"}
    assert sorted(t["name"] for t in tags) == ["classic", "sf"] and set(tags[0]) == {"id", "name"}


def test_computed_elements_at_the_top_and_nested(db):
    pg, _ = db
    plan = plans()["book_stats"]
    fields = {f.name: f for f in plan.result}
    assert fields["tag_count"].type.name == "int64" and not fields["tag_count"].optional
    assert fields["long"].optional  # pages may be empty, so may the comparison
    assert [g.name for g in fields["author"].shape] == ["name", "name_length"]
    rows = run_plan(pg, plan, "!")
    assert rows == [("Alpha", 2, True, "Alpha!", {"name": "Ann", "name_length": "3"}),
                    ("Beta", 0, None, "Beta!", {"name": "Ann", "name_length": "3"})]


def test_an_element_next_to_a_splat_replaces_the_splats(db):
    pg, ids = db
    plan = plans()["author_overview"]
    assert [f.name for f in plan.result] == ["id", "name", "shout", "bio", "books"]
    assert not {f.name: f for f in plan.result}["bio"].optional
    ((_, name, shout, bio, books),) = run_plan(pg, plan, "Bob")
    assert (name, shout, bio, books) == ("Bob", "BOB", "(none)", [])
    ((_, _, _, bio, books),) = run_plan(pg, plan, "Ann")
    assert bio == "writes" and sorted(b["title"] for b in books) == ["Alpha", "Beta"]


def _errors(queries):
    sources = {"s.esdl": (CASE / "schema.esdl").read_text()}
    sources.update({f"queries/{k}.edgeql": v for k, v in queries.items()})
    with pytest.raises(CompileError) as e:
        check_library(sources, Options(library="t"))
    return [str(d) for d in e.value.diagnostics]


def test_file_names_that_name_the_same_query_are_refused():
    errs = _errors({"get_tag": "select Tag", "get-tag": "select Tag", "getTag": "select Tag"})
    assert len(errs) == 2 and all("E0200" in e and "query 'get_tag' is defined twice" in e for e in errs)
    assert "getUser" in errs[0]


def test_computed_elements_are_checked():
    errs = _errors({"q": "select Book { title, x := .nope, y := .title + 1 }"})
    assert any("E0302" in e and "no property 'nope'" in e for e in errs)
    assert any("E0304" in e and "'+' needs numbers" in e for e in errs)
    errs = _errors({"q": "select Book { title, title := .title ++ '!' }"})
    assert any("E0309" in e and "'title' appears twice" in e for e in errs)


def test_a_path_through_a_single_link_filters_orders_and_selects(db):
    pg, _ = db
    pg.execute("INSERT INTO book (title, author_id) SELECT 'Gamma', id FROM author WHERE name = 'Bob'")
    plan = plans()["books_by_author"]
    assert [(f.name, f.optional) for f in plan.result] == [("title", False), ("by", False)]
    assert run_plan(pg, plan, "%") == [("Alpha", "Ann"), ("Beta", "Ann"), ("Gamma", "Bob")]
    assert run_plan(pg, plan, "b%") == [("Gamma", "Bob")]


def test_a_path_through_a_multi_link_is_refused_outside_a_filter():
    # (In a filter it is existential: tests/compiler/test_query_dml_case.py.)
    errs = _errors({"q": "select Book order by .tags.name"})
    assert any("E0206" in e and "a path through the multi link 'tags' is a set" in e for e in errs)


def test_the_selected_types_own_path_and_a_counted_backlink(db):
    pg, _ = db
    plan = plans()["author_by_name"]
    assert plan.cardinality == "at_most_one"  # Author.name is exclusive
    assert run_plan(pg, plan, "Ann") == [("Ann", 2)]
    assert run_plan(pg, plan, "Bob") == [("Bob", 0)]
