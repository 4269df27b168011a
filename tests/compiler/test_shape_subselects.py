"""Computed shape elements that select a link's objects with clauses
(https://docs.geldata.com/reference/edgeql/select#filtering-ordering-and-paginating-links), on
PostgreSQL 15 with data and through the TypeScript and Go runners:

* ``first := (select .acted_in order by .title limit 1) { title }``: at most one object (Gel's
  cardinality of a select with a literal ``limit 1``, https://docs.geldata.com/reference/edgeql/cardinality),
  ``{ title } | null``; without ``limit 1`` a list;
* ``titles := (select .acted_in order by .title limit 2).title``: the values of the objects picked
  (an empty value no element), ``string[]``; with ``limit 1`` one value or none;
* ``titles := (select .acted_in.title order by .acted_in.title limit 2)``: the values, the empty
  ones left out before paging;
* ``f := .acted_in { title }``: the link's objects under another name.

The link may reach an abstract type (``Content``: its subtypes' tables, UNION ALL) or be nested."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict

import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
abstract type Content { required title: str; }
type Movie extending Content { release_year: int32; }
type Show extending Content { seasons: int32; }
type Person { required name: str; multi acted_in: Content; }
type Tag { required label: str; note: str; }
type Post { required body: str; multi tags: Tag; }
type Blog { required name: str; multi posts: Post; }
"""

QUERIES = {
    "first_role": "select Person { name, first := (select .acted_in order by .title limit 1) { title } } "
                  "order by .name;",
    "two_titles": "select Person { name, titles := (select .acted_in order by .title limit 2).title } order by .name;",
    "two_values": "select Person { name, titles := (select .acted_in.title order by .acted_in.title desc limit 2) } "
                  "order by .name;",
    "first_title": "select Person { name, t := (select .acted_in order by .title limit 1).title } order by .name;",
    "roles": "select Person { name, roles := .acted_in { title } } order by .name;",
    "notes": "select Post { body, notes := (select .tags order by .label).note, "
             "kept := (select .tags.note order by .tags.label limit 1), "
             "first := (select .tags order by .label limit 1).note } order by .body;",
    "tagged": "select Post { body, other := (select .tags filter .label != <str>$skip order by .label desc) "
              "{ label } } order by .body;",
    "blogs": "select Blog { name, posts: { body, top := (select .tags order by .label limit 2).label, "
             "one := (select .tags order by .label limit 1) { label } } };",
}

ROWS = """
INSERT INTO movie (id, title, release_year) VALUES ('00000000-0000-0000-0000-000000000001', 'Dune', 2021),
  ('00000000-0000-0000-0000-000000000002', 'Alien', 1979);
INSERT INTO show (id, title, seasons) VALUES ('00000000-0000-0000-0000-000000000003', 'Andor', 2);
INSERT INTO person (id, name) VALUES ('00000000-0000-0000-0000-00000000000a', 'Zoe'),
  ('00000000-0000-0000-0000-00000000000b', 'Ann');
INSERT INTO person_acted_in (source_id, target_id, target_movie_id, target_show_id) VALUES
  ('00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-000000000001',
   '00000000-0000-0000-0000-000000000001', NULL),
  ('00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-000000000002',
   '00000000-0000-0000-0000-000000000002', NULL),
  ('00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-000000000003',
   NULL, '00000000-0000-0000-0000-000000000003');
INSERT INTO tag (id, label, note) VALUES ('00000000-0000-0000-0000-0000000000c1', 'a', NULL),
  ('00000000-0000-0000-0000-0000000000c2', 'b', 'bee'), ('00000000-0000-0000-0000-0000000000c3', 'c', 'sea');
INSERT INTO post (id, body) VALUES ('00000000-0000-0000-0000-0000000000d1', 'p1'),
  ('00000000-0000-0000-0000-0000000000d2', 'p2');
INSERT INTO post_tags (source_id, target_id) VALUES
  ('00000000-0000-0000-0000-0000000000d1', '00000000-0000-0000-0000-0000000000c1'),
  ('00000000-0000-0000-0000-0000000000d1', '00000000-0000-0000-0000-0000000000c2'),
  ('00000000-0000-0000-0000-0000000000d1', '00000000-0000-0000-0000-0000000000c3');
INSERT INTO blog (id, name) VALUES ('00000000-0000-0000-0000-0000000000e1', 'b');
INSERT INTO blog_posts (source_id, target_id) VALUES
  ('00000000-0000-0000-0000-0000000000e1', '00000000-0000-0000-0000-0000000000d1');
"""


def _sources() -> Dict[str, str]:
    sources = {"s/schema.esdl": SCHEMA}
    sources.update({f"s/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return sources


def _plans():
    return {q.name: q for q in check_library(_sources(), Options(library="s")).queries}


def _load(pg):
    pg.execute(compile_library({"s/schema.esdl": SCHEMA}, Options(library="s"))["sql/000001_init.up.sql"])
    pg.execute(ROWS)


def _field(plan, name):
    return next(f for f in plan.result if f.name == name)


def test_sub_selects_of_links_in_shapes_on_postgres(pg):
    _load(pg)
    q = _plans()
    first = _field(q["first_role"], "first")
    assert first.optional and not first.multi and [f.name for f in first.shape] == ["title"]
    assert run_plan(pg, q["first_role"]) == [("Ann", None), ("Zoe", {"title": "Alien"})]
    titles = _field(q["two_titles"], "titles")
    assert titles.type.name == "array<str>" and not titles.optional
    assert run_plan(pg, q["two_titles"]) == [("Ann", []), ("Zoe", ["Alien", "Andor"])]
    assert run_plan(pg, q["two_values"]) == [("Ann", []), ("Zoe", ["Dune", "Andor"])]
    t = _field(q["first_title"], "t")
    assert t.type.name == "str" and t.optional
    assert run_plan(pg, q["first_title"]) == [("Ann", None), ("Zoe", "Alien")]
    assert run_plan(pg, q["roles"]) == [("Ann", []), ("Zoe", [{"title": "Dune"}, {"title": "Alien"},
                                                               {"title": "Andor"}])]
    # an empty value is no element; `(select .tags.note ...)` leaves it out before paging,
    # `(select .tags ... limit 1).note` is the first object's, empty
    assert run_plan(pg, q["notes"]) == [("p1", ["bee", "sea"], "bee", None), ("p2", [], None, None)]
    assert run_plan(pg, q["tagged"], "b") == [("p1", [{"label": "c"}, {"label": "a"}]), ("p2", [])]
    assert run_plan(pg, q["blogs"]) == [("b", [{"body": "p1", "top": ["a", "b"], "one": {"label": "a"}}])]


@pytest.mark.parametrize("query, message, col", [
    ("select Person { t := (select .acted_in.title order by .name) };",
     "error[E0206]: a sub-select of '.acted_in.title' whose order by reads other than '.acted_in...' is not "
     "supported yet", 22),
    ("select Person { acted_in: { title }, acted_in := (select .acted_in limit 1) { title } };",
     "error[E0309]: 'acted_in' appears twice in the shape", 38),
])
def test_refused_sub_selects_are_located(query, message, col):
    sources = {"s.esdl": SCHEMA, "q/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    assert f"q/q.edgeql:1:{col}: {message}" in exc.value.render(sources)


def _write(files: Dict[str, str], root: Path, prefix: str) -> None:
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = root / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as s from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = s.createRunner(pool).query;
  const first: { name: string; first: { title: string } | null }[] = await q.firstRole();
  assert.deepEqual(first, [{ name: "Ann", first: null }, { name: "Zoe", first: { title: "Alien" } }]);
  const two: { name: string; titles: string[] }[] = await q.twoTitles();
  assert.deepEqual(two, [{ name: "Ann", titles: [] }, { name: "Zoe", titles: ["Alien", "Andor"] }]);
  assert.deepEqual((await q.twoValues()).map((r) => r.titles), [[], ["Dune", "Andor"]]);
  const one: (string | null)[] = (await q.firstTitle()).map((r) => r.t);
  assert.deepEqual(one, [null, "Alien"]);
  const blogs = await q.blogs();
  assert.deepEqual(blogs, [{ name: "b", posts: [{ body: "p1", top: ["a", "b"], one: { label: "a" } }] }]);
  console.log(JSON.stringify({ subselects: true }));
} finally {
  await pool.end();
}
"""

GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	s "schemactest/s"
)

func TestShapeSubselects(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := s.New(db).Query
	first, err := q.FirstRole(ctx)
	if err != nil || len(first) != 2 || first[0].First != nil || first[1].First == nil || first[1].First.Title != "Alien" {
		t.Fatalf("first: %#v %v", first, err)
	}
	two, err := q.TwoTitles(ctx)
	if err != nil || len(two) != 2 || len(two[0].Titles) != 0 || !reflect.DeepEqual(two[1].Titles, []string{"Alien", "Andor"}) {
		t.Fatalf("two: %#v %v", two, err)
	}
	vals, err := q.TwoValues(ctx)
	if err != nil || !reflect.DeepEqual(vals[1].Titles, []string{"Dune", "Andor"}) {
		t.Fatalf("values: %#v %v", vals, err)
	}
	one, err := q.FirstTitle(ctx)
	if err != nil || one[0].T != nil || one[1].T == nil || *one[1].T != "Alien" {
		t.Fatalf("one: %#v %v", one, err)
	}
	blogs, err := q.Blogs(ctx)
	if err != nil || len(blogs) != 1 || len(blogs[0].Posts) != 1 ||
		!reflect.DeepEqual(blogs[0].Posts[0].Top, []string{"a", "b"}) || blogs[0].Posts[0].One == nil ||
		blogs[0].Posts[0].One.Label != "a" {
		t.Fatalf("blogs: %#v %v", blogs, err)
	}
}
"""


@pytest.mark.slow
def test_sub_selects_through_the_typescript_runner(pg, tsc_run, tmp_path):
    _load(pg)
    out = compile_library(_sources(), Options(library="s"))
    src = tmp_path / "src"
    _write(out, src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"subselects": True}


@pytest.mark.slow
def test_sub_selects_through_the_go_runner(pg, go_run, tmp_path):
    _load(pg)
    out = compile_library(_sources(), Options(library="s"))
    mod = tmp_path / "mod"
    _write(out, mod / "s", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "subselects_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestShapeSubselects" in result.test.stdout
