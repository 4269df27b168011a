"""A select over the groups of a set of an object's objects, as an element of the object's
shape (https://docs.geldata.com/reference/edgeql/group), on PostgreSQL 15 with data and through
the TypeScript and Go runners:

* ``films := (select (select (group (select .<artist[is Credit] filter ...) by .film) order by
  .key.film.year desc limit 2) { title := .key.film.title, jobs := .elements.job })``: the
  credits of the artist, grouped by their film (a link key), ordered and paged by a path from
  the key's object, each group's film title and the jobs of its credits (an array);
* ``jobs := (select (group .<artist[is Credit] by .job) { job := .key.job, n := count(.elements)
  } order by .job)``: grouped by a property."""

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
type Artist { required name: str { constraint exclusive; }; }
type Film { required title: str; year: int32; required adult: bool; }
type Credit { required artist: Artist; required film: Film; required job: str; }
"""

QUERIES = {
    "artist_page": """
select (select Artist {} filter .name = <str>$name) {
  name,
  films := (
    select (
      select (group (select .<artist[is Credit] filter .film.adult = false) by .film)
      order by .key.film.year desc limit <int64>$take
    ) { title := .key.film.title, jobs := .elements.job }
  ),
  jobs := (select (group .<artist[is Credit] by .job) { job := .key.job, n := count(.elements) } order by .job),
};
""",
}

A, F = "00000000-0000-0000-0000-0000000000a", "00000000-0000-0000-0000-0000000000f"
ROWS = f"""
INSERT INTO artist (id, name) VALUES ('{A}1', 'Ana'), ('{A}2', 'Bo');
INSERT INTO film (id, title, year, adult) VALUES ('{F}1', 'Dawn', 1999, false), ('{F}2', 'Noon', 2005, false),
  ('{F}3', 'Dusk', 2010, true), ('{F}4', 'Night', NULL, false);
INSERT INTO credit (id, artist_id, film_id, job) VALUES
  ('00000000-0000-0000-0000-000000000001', '{A}1', '{F}1', 'director'),
  ('00000000-0000-0000-0000-000000000002', '{A}1', '{F}1', 'writer'),
  ('00000000-0000-0000-0000-000000000003', '{A}1', '{F}2', 'actor'),
  ('00000000-0000-0000-0000-000000000004', '{A}1', '{F}3', 'actor'),
  ('00000000-0000-0000-0000-000000000005', '{A}1', '{F}4', 'actor'),
  ('00000000-0000-0000-0000-000000000006', '{A}2', '{F}2', 'writer');
"""


def _sources() -> Dict[str, str]:
    sources = {"s/schema.esdl": SCHEMA}
    sources.update({f"s/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return sources


def _load(pg):
    pg.execute(compile_library({"s/schema.esdl": SCHEMA}, Options(library="s"))["sql/000001_init.up.sql"])
    pg.execute(ROWS)


def _run(pg, plan, **args):
    return run_plan(pg, plan, *(args[p.name] for p in plan.params))


def test_groups_in_a_shape_on_postgres(pg):
    _load(pg)
    q = {p.name: p for p in check_library(_sources(), Options(library="s")).queries}
    page = q["artist_page"]
    films = next(f for f in page.result if f.name == "films")
    assert films.multi and [f.name for f in films.shape] == ["title", "jobs"]
    # Dusk is adult; Night's year is empty, last descending; Dawn has two credits
    assert _run(pg, page, name="Ana", take=2) == [
        ("Ana", [{"title": "Noon", "jobs": ["actor"]}, {"title": "Dawn", "jobs": ["director", "writer"]}],
         [{"job": "actor", "n": "3"}, {"job": "director", "n": "1"}, {"job": "writer", "n": "1"}])]
    rows = _run(pg, page, name="Ana", take=10)
    assert [f["title"] for f in rows[0][1]] == ["Noon", "Dawn", "Night"]
    assert _run(pg, page, name="Bo", take=10) == [("Bo", [{"title": "Noon", "jobs": ["writer"]}],
                                             [{"job": "writer", "n": "1"}])]


def test_group_of_the_subjects_own_type_is_refused():
    sources = {"s.esdl": "type P { required n: str; multi friends: P; }",
               "q/q.edgeql": "select P { g := (select (group .friends by .n) { k := .key.n }) };"}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    assert "q/q.edgeql:1:32: error[E0206]: a group of P objects in a shape of P objects" in exc.value.render(sources)


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
  const page = await q.artistPage({ name: "Ana", take: "2" });
  assert.ok(page !== null);
  const films: { title: string | null; jobs: string[] }[] = page.films;
  assert.deepEqual(films, [{ title: "Noon", jobs: ["actor"] }, { title: "Dawn", jobs: ["director", "writer"] }]);
  assert.deepEqual(page.jobs.map((j) => [j.job, j.n]), [["actor", "3"], ["director", "1"], ["writer", "1"]]);
  console.log(JSON.stringify({ groups: true }));
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

func TestShapeGroups(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := s.New(db).Query
	page, err := q.ArtistPage(ctx, s.ArtistPageParams{Name: "Ana", Take: 2})
	if err != nil || page == nil || len(page.Films) != 2 || page.Films[0].Title == nil || *page.Films[0].Title != "Noon" ||
		len(page.Films[1].Jobs) != 2 || page.Films[1].Jobs[1] != "writer" || len(page.Jobs) != 3 || page.Jobs[0].N != 3 {
		t.Fatalf("artist_page: %#v %v", page, err)
	}
}
"""


@pytest.mark.slow
def test_shape_groups_through_the_typescript_runner(pg, tsc_run, tmp_path):
    _load(pg)
    out = compile_library(_sources(), Options(library="s"))
    src = tmp_path / "src"
    _write(out, src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"groups": True}


@pytest.mark.slow
def test_shape_groups_through_the_go_runner(pg, go_run, tmp_path):
    _load(pg)
    out = compile_library(_sources(), Options(library="s"))
    mod = tmp_path / "mod"
    _write(out, mod / "s", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "groups_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestShapeGroups" in result.test.stdout
