"""A shape on a parenthesised selection of a type, and the values a path of links reaches from
a filtered set of objects, on PostgreSQL 15 with data and through the TypeScript and Go runners:

* ``select (select Film {*} filter .code = $code) { name := .title, ... }``: the inner shape
  only names the type's pointers, so the outer one is the output
  (https://docs.geldata.com/reference/edgeql/shapes); an inner shape with a computed element
  stays a located E0206;
* ``directors := (select .<film[is Credit] filter .job = 'director').artist.name``: the names
  of the distinct artists the credits reach (a path of objects has no duplicates,
  https://docs.geldata.com/reference/edgeql/paths), an array, as a computed multi property;
  ``.<film[is Credit].artist.name`` too."""

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
type Artist { required name: str; }
type Film { required code: str { constraint exclusive; }; required title: str; multi tags: str; }
type Credit {
  required film: Film;
  required artist: Artist;
  required job: str;
  required rank: int32;
  multi notes: str;
}
"""

QUERIES = {
    "film_page": "select (select Film {*} filter .code = <str>$code) { name := .title, tags, "
                 "crew := (select .<film[is Credit] filter exists .notes order by .rank limit 2) "
                 "{ who := .artist.name, notes }, "
                 "directors := (select .<film[is Credit] filter .job = 'director').artist.name };",
    "film_people": "select (select Film {} filter .code = <str>$code) { title, people := .<film[is Credit].artist.name };",
}

ROWS = """
INSERT INTO artist (id, name) VALUES ('00000000-0000-0000-0000-0000000000a1', 'Ana'),
  ('00000000-0000-0000-0000-0000000000a2', 'Bo'), ('00000000-0000-0000-0000-0000000000a3', 'Cy');
INSERT INTO film (id, code, title, tags) VALUES
  ('00000000-0000-0000-0000-0000000000f1', 'f1', 'Rain', ARRAY['drama']),
  ('00000000-0000-0000-0000-0000000000f2', 'f2', 'Sun', ARRAY[]::text[]);
INSERT INTO credit (id, film_id, artist_id, job, rank, notes) VALUES
  ('00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-0000000000f1',
   '00000000-0000-0000-0000-0000000000a1', 'director', 4, ARRAY[]::text[]),
  ('00000000-0000-0000-0000-000000000002', '00000000-0000-0000-0000-0000000000f1',
   '00000000-0000-0000-0000-0000000000a1', 'director', 5, ARRAY['second unit']),
  ('00000000-0000-0000-0000-000000000003', '00000000-0000-0000-0000-0000000000f1',
   '00000000-0000-0000-0000-0000000000a2', 'actor', 1, ARRAY['lead', 'narrator']),
  ('00000000-0000-0000-0000-000000000004', '00000000-0000-0000-0000-0000000000f1',
   '00000000-0000-0000-0000-0000000000a3', 'actor', 2, ARRAY['cameo']);
"""


def _sources() -> Dict[str, str]:
    sources = {"s/schema.esdl": SCHEMA}
    sources.update({f"s/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return sources


def _load(pg):
    pg.execute(compile_library({"s/schema.esdl": SCHEMA}, Options(library="s"))["sql/000001_init.up.sql"])
    pg.execute(ROWS)


def test_outer_shape_and_value_paths_on_postgres(pg):
    _load(pg)
    q = {p.name: p for p in check_library(_sources(), Options(library="s")).queries}
    page = q["film_page"]
    assert page.cardinality == "at_most_one"
    assert [f.name for f in page.result] == ["name", "tags", "crew", "directors"]
    # Ana directs Rain twice: one name, as the path reaches her once
    assert run_plan(pg, page, "f1") == [
        ("Rain", ["drama"], [{"who": "Bo", "notes": ["lead", "narrator"]}, {"who": "Cy", "notes": ["cameo"]}],
         ["Ana"])]
    assert run_plan(pg, page, "f2") == [("Sun", [], [], [])]
    assert run_plan(pg, page, "nope") == []
    rows = run_plan(pg, q["film_people"], "f1")
    assert [(r[0], sorted(r[1])) for r in rows] == [("Rain", ["Ana", "Bo", "Cy"])]


def test_inner_shape_with_a_computed_element_is_refused():
    sources = {"s.esdl": SCHEMA,
               "q/q.edgeql": "select (select Film { n := 1 } filter .code = 'x') { title };"}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    assert "q/q.edgeql:1:8: error[E0206]: shapes on an expression" in exc.value.render(sources)


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
  const page = await q.filmPage({ code: "f1" });
  assert.ok(page !== null);
  const directors: string[] = page.directors;
  assert.deepEqual(directors, ["Ana"]);
  assert.deepEqual(page.crew.map((c) => c.who), ["Bo", "Cy"]);
  assert.deepEqual(page.tags, ["drama"]);
  assert.equal(await q.filmPage({ code: "nope" }), null);
  const people = await q.filmPeople({ code: "f1" });
  assert.deepEqual([...(people?.people ?? [])].sort(), ["Ana", "Bo", "Cy"]);
  console.log(JSON.stringify({ outer: true }));
} finally {
  await pool.end();
}
"""

GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	s "schemactest/s"
)

func TestOuterShapes(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := s.New(db).Query
	page, err := q.FilmPage(ctx, s.FilmPageParams{Code: "f1"})
	if err != nil || page == nil || page.Name != "Rain" || len(page.Directors) != 1 || page.Directors[0] != "Ana" ||
		len(page.Crew) != 2 || page.Crew[0].Who != "Bo" || len(page.Crew[0].Notes) != 2 {
		t.Fatalf("film_page: %#v %v", page, err)
	}
	none, err := q.FilmPage(ctx, s.FilmPageParams{Code: "nope"})
	if err != nil || none != nil {
		t.Fatalf("film_page nope: %#v %v", none, err)
	}
	people, err := q.FilmPeople(ctx, s.FilmPeopleParams{Code: "f1"})
	if err != nil || people == nil || len(people.People) != 3 {
		t.Fatalf("film_people: %#v %v", people, err)
	}
}
"""


@pytest.mark.slow
def test_outer_shapes_through_the_typescript_runner(pg, tsc_run, tmp_path):
    _load(pg)
    out = compile_library(_sources(), Options(library="s"))
    src = tmp_path / "src"
    _write(out, src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"outer": True}


@pytest.mark.slow
def test_outer_shapes_through_the_go_runner(pg, go_run, tmp_path):
    _load(pg)
    out = compile_library(_sources(), Options(library="s"))
    mod = tmp_path / "mod"
    _write(out, mod / "s", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "outer_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestOuterShapes" in result.test.stdout
