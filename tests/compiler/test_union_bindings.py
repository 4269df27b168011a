"""``with r := (select A) union (select B) select r { shape } [filter] [order by] ...``: a ``with``
name is its value (https://docs.geldata.com/reference/edgeql/with), so this is ``select (A union
B) { shape } ...``; in the shape, filter and order of ``select r`` the name ``r`` is the object
being selected (https://docs.geldata.com/reference/edgeql/paths): ``r.x`` is its ``.x`` and ``r is
T`` whether it is a ``T`` (https://docs.geldata.com/reference/stdlib/type#operator::is), a
constant of each type's branch of the ``UNION ALL``. Proven on PostgreSQL 15 with data, through
the TypeScript and Go runners."""

from __future__ import annotations

import json

import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module default {
  type Planet { required title: str; moons: int32; }
  type Star { required title: str; }
}
"""

QUERIES = {
    "q/sky_search.edgeql": """\
with found := (select Planet filter .moons > 0) union (select Star)
select found {
  title,
  what := (select "planet" if found is Planet else "star"),
  loud := str_upper(found.title),
}
filter found.title != <str>$skip
order by .title;
""",
    "q/sky_ids.edgeql": "with all_of := {Planet, Star}\nselect all_of;",
}


def _plans():
    return {q.name: q for q in check_library({"default.gel": SCHEMA, **QUERIES}, Options(library="s")).queries}


def _seed(pg):
    pg.execute(compile_library({"default.gel": SCHEMA}, Options(library="s"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO planet (title, moons) VALUES ('mars', 2), ('venus', 0), ('earth', 1)")
    pg.execute("INSERT INTO star (title) VALUES ('sol'), ('vega')")


def test_a_select_of_a_with_name_bound_to_a_union_of_objects(pg):
    _seed(pg)
    q = _plans()
    assert [f.name for f in q["sky_search"].result] == ["title", "what", "loud"]
    assert run_plan(pg, q["sky_search"], "vega") == [
        ("earth", "planet", "EARTH"), ("mars", "planet", "MARS"), ("sol", "star", "SOL")]
    assert len(run_plan(pg, q["sky_ids"])) == 5


@pytest.mark.parametrize("query, col", [
    # `r` inside a sub-select with a filter of its own: `.` there is a Star
    ("with r := Planet union Star\nselect r { title, twin := (select Star filter .title = r.title) { title } };", 11),
    # `r` read by another binding
    ("with r := Planet union Star, n := count(r)\nselect r { title };", 11),
])
def test_other_reads_of_the_name_are_still_a_located_e0206(query, col):
    sources = {"default.gel": SCHEMA, "q/a.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="s"))
    text = exc.value.render(sources)
    assert f"q/a.edgeql:1:{col}" in text and "error[E0206]" in text, text


_TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as s from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const r = s.createRunner(pool).query;
  const rows = await r.skySearch({ skip: "sol" });
  assert.deepEqual(rows, [
    { title: "earth", what: "planet", loud: "EARTH" },
    { title: "mars", what: "planet", loud: "MARS" },
    { title: "vega", what: "star", loud: "VEGA" },
  ]);
  assert.equal((await r.skyIds()).length, 5);
  console.log(JSON.stringify({ unionBinding: true }));
} finally {
  await pool.end();
}
"""

_GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	s "schemactest/s"
)

func TestUnionBinding(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := s.New(db).Query.SkySearch(ctx, s.SkySearchParams{Skip: "earth"})
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, r := range rows {
		got += r.Title + "/" + r.What + "/" + r.Loud + " "
	}
	if got != "mars/planet/MARS sol/star/SOL vega/star/VEGA " {
		t.Fatalf("sky search: %q", got)
	}
}
"""


def _write_tree(files, root, prefix):
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = root / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_a_union_binding_through_the_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library({"default.gel": SCHEMA, **QUERIES}, Options(library="s"))
    _seed(pg)
    _write_tree(out, tmp_path / "src" / "gen", "ts/")
    (tmp_path / "src" / "main.ts").write_text(_TS_MAIN)
    result = tsc_run(tmp_path / "src", "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"unionBinding": True}


@pytest.mark.slow
def test_a_union_binding_through_the_go_runner(pg, go_run, tmp_path):
    out = compile_library({"default.gel": SCHEMA, **QUERIES}, Options(library="s"))
    _seed(pg)
    _write_tree(out, tmp_path / "mod" / "s", "go/")
    (tmp_path / "mod" / "e2e").mkdir()
    (tmp_path / "mod" / "e2e" / "s_test.go").write_text(_GO_TEST)
    result = go_run(tmp_path / "mod", test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestUnionBinding" in result.test.stdout
