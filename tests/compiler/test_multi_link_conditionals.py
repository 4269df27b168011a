"""A filter's conjunct ``(.majors.id = m) if exists m else true`` (a path through a multi link in
a branch of ``if ... else``): Gel takes the branches as whole sets
(https://docs.geldata.com/reference/edgeql/paths), and a filter keeps an object when its value
holds ``true`` (https://docs.geldata.com/reference/edgeql/select#filtering), so the conjunct is
``CASE c WHEN true THEN EXISTS (<the links>) WHEN false THEN true END``: an object without
majors is kept when ``m`` is empty. Also where the filter is a ``with`` selection's that is
counted (``count(u)``). Proven on PostgreSQL 15 with data, and through the TypeScript and Go
runners."""

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
module default {
  type Major { required name: str { constraint exclusive; }; }
  type Uni { required name: str; featured: bool; multi majors: Major; }
}
"""

QUERIES = {
    "unis": ("with m := <optional str>$major\n"
             "select Uni { name } filter (.majors.name = m if exists m else true) and .name != 'zz'\n"
             "order by .name;"),
    "count_featured": ("with m := <optional str>$major,\n"
                       "  u := (select Uni filter .featured = true and (.majors.name = m if exists m else true))\n"
                       "select { n := count(u) };"),
    "count_with": ("with u := (select Uni filter .majors.name = <str>$major)\n"
                   "select { n := count(u) };"),
}


def _sources() -> Dict[str, str]:
    sources = {"ml/default.gel": SCHEMA}
    sources.update({f"ml/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return sources


def _seed(pg) -> None:
    pg.execute(compile_library(_sources(), Options(library="ml"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO major (name) VALUES ('law'), ('art')")
    pg.execute("INSERT INTO uni (name, featured) VALUES ('a', true), ('b', true), ('c', false)")
    pg.execute("INSERT INTO uni_majors (source_id, target_id) SELECT u.id, m.id FROM uni u, major m "
               "WHERE (u.name, m.name) IN (('a', 'law'), ('a', 'art'), ('c', 'law'))")


def test_conditionals_over_multi_links_on_postgres(pg):
    _seed(pg)
    q = {p.name: p for p in check_library(_sources(), Options(library="ml")).queries}
    assert [r[0] for r in run_plan(pg, q["unis"], None)] == ["a", "b", "c"]  # b has no major: kept
    assert [r[0] for r in run_plan(pg, q["unis"], "law")] == ["a", "c"]
    assert [r[0] for r in run_plan(pg, q["unis"], "art")] == ["a"]
    assert run_plan(pg, q["count_featured"], None) == [(2,)]
    assert run_plan(pg, q["count_featured"], "law") == [(1,)]
    assert run_plan(pg, q["count_with"], "law") == [(2,)]
    assert run_plan(pg, q["count_with"], "none") == [(0,)]


@pytest.mark.parametrize("query", [
    # the link is read by another conjunct too: one binding of the path for both (not supported)
    "select Uni filter (.majors.name = <optional str>$m if exists <optional str>$m else true) "
    "and .majors.name != 'x';",
    # under 'not' the branch's set is not its filter's value
    "select Uni filter not (.majors.name = <optional str>$m if exists <optional str>$m else true);",
])
def test_other_conditionals_over_multi_links_stay_refused(query):
    sources = {"ml/default.gel": SCHEMA, "ml/queries/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="ml"))
    assert exc.value.diagnostics[0].code == "E0206"


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as ml from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = ml.createRunner(pool).query;
  assert.deepEqual((await q.unis({ major: null })).map((u) => u.name), ["a", "b", "c"]);
  assert.deepEqual((await q.unis({ major: "law" })).map((u) => u.name), ["a", "c"]);
  assert.equal(Number((await q.countFeatured({ major: "art" })).n), 1);
  assert.equal(Number((await q.countFeatured({})).n), 2);
  assert.equal(Number((await q.countWith({ major: "law" })).n), 2);
  console.log(JSON.stringify({ multiLinkConditionals: true }));
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

	ml "schemactest/ml"
)

func TestMultiLinkConditionals(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := ml.New(db).Query
	law := "law"
	names := func(rows []ml.UnisRow) []string {
		out := []string{}
		for _, r := range rows {
			out = append(out, r.Name)
		}
		return out
	}
	all, err := q.Unis(ctx, ml.UnisParams{})
	if err != nil || !reflect.DeepEqual(names(all), []string{"a", "b", "c"}) {
		t.Fatalf("all: %v %v", all, err)
	}
	some, err := q.Unis(ctx, ml.UnisParams{Major: &law})
	if err != nil || !reflect.DeepEqual(names(some), []string{"a", "c"}) {
		t.Fatalf("law: %v %v", some, err)
	}
	n, err := q.CountFeatured(ctx, ml.CountFeaturedParams{Major: &law})
	if err != nil || n.N != 1 {
		t.Fatalf("count: %v %v", n, err)
	}
}
"""


def _write(files: Dict[str, str], root: Path, prefix: str) -> None:
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = root / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_conditionals_over_multi_links_through_the_typescript_runner(pg, tsc_run, tmp_path):
    _seed(pg)
    src = tmp_path / "src"
    _write(compile_library(_sources(), Options(library="ml")), src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"multiLinkConditionals": True}


@pytest.mark.slow
def test_conditionals_over_multi_links_through_the_go_runner(pg, go_run, tmp_path):
    _seed(pg)
    mod = tmp_path / "mod"
    _write(compile_library(_sources(), Options(library="ml")), mod / "ml", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "ml_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestMultiLinkConditionals" in result.test.stdout
