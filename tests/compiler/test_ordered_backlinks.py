"""A computed shape element that sub-selects a backlink with ``order by`` / ``offset`` /
``limit`` (https://docs.geldata.com/reference/edgeql/select#filtering-ordering-and-paginating-links,
https://docs.geldata.com/reference/datamodel/links#backlinks), on PostgreSQL 15 with data and
through the TypeScript and Go runners:

* ``books := (select (.<shelf[is Book] { title, rank }) order by .rank)``: the books on the shelf,
  a list in that order (the shape inside the select, or after it);
* with a filter and paging: ``(select .<shelf[is Book] filter ... order by ... offset 1 limit 2) { title }``;
* a literal ``limit 1`` (at most one object in Gel, not a list) stays a located E0206."""

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
type Shelf { required label: str; }
type Book { required title: str; rank: int32; shelf: Shelf; }
"""

QUERIES = {
    "shelves": "select Shelf { label, books := (select (.<shelf[is Book] { title, rank }) order by .rank asc) } "
               "order by .label;",
    "paged": "select Shelf { label, books := (select .<shelf[is Book] filter .title != <str>$skip "
             "order by .title desc offset 1 limit 2) { title } } order by .label;",
}

ROWS = """
INSERT INTO shelf (id, label) VALUES ('00000000-0000-0000-0000-0000000000a1', 'left'),
  ('00000000-0000-0000-0000-0000000000a2', 'right');
INSERT INTO book (id, title, rank, shelf_id) VALUES
  ('00000000-0000-0000-0000-000000000001', 'Dune', 3, '00000000-0000-0000-0000-0000000000a1'),
  ('00000000-0000-0000-0000-000000000002', 'Emma', 1, '00000000-0000-0000-0000-0000000000a1'),
  ('00000000-0000-0000-0000-000000000003', 'Ulysses', NULL, '00000000-0000-0000-0000-0000000000a1'),
  ('00000000-0000-0000-0000-000000000004', 'Beloved', 2, '00000000-0000-0000-0000-0000000000a1'),
  ('00000000-0000-0000-0000-000000000005', 'Loose', 1, NULL);
"""


def _sources() -> Dict[str, str]:
    sources = {"s/schema.esdl": SCHEMA}
    sources.update({f"s/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return sources


def _load(pg):
    pg.execute(compile_library({"s/schema.esdl": SCHEMA}, Options(library="s"))["sql/000001_init.up.sql"])
    pg.execute(ROWS)


def test_ordered_backlinks_in_shapes_on_postgres(pg):
    _load(pg)
    q = {p.name: p for p in check_library(_sources(), Options(library="s")).queries}
    books = next(f for f in q["shelves"].result if f.name == "books")
    assert books.multi and [f.name for f in books.shape] == ["title", "rank"]
    # an empty rank sorts first (asc), as Gel's default `empty first`
    assert run_plan(pg, q["shelves"]) == [
        ("left", [{"title": "Ulysses", "rank": None}, {"title": "Emma", "rank": 1},
                  {"title": "Beloved", "rank": 2}, {"title": "Dune", "rank": 3}]),
        ("right", [])]
    # Ulysses, Emma, Beloved (Dune skipped) desc: Ulysses, Emma, Beloved; offset 1 limit 2
    assert run_plan(pg, q["paged"], "Dune") == [("left", [{"title": "Emma"}, {"title": "Beloved"}]),
                                                ("right", [])]


def test_ordered_backlink_with_limit_one_is_refused():
    sources = {"s.esdl": SCHEMA,
               "q/q.edgeql": "select Shelf { b := (select .<shelf[is Book] order by .rank limit 1) { title } };"}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    assert "q/q.edgeql:1:21: error[E0206]" in exc.value.render(sources)


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
  const rows: { label: string; books: { title: string; rank: number | null }[] }[] = await q.shelves();
  assert.deepEqual(rows.map((r) => r.books.map((b) => b.title)), [["Ulysses", "Emma", "Beloved", "Dune"], []]);
  const paged = await q.paged({ skip: "Dune" });
  assert.deepEqual(paged.map((r) => r.books.map((b) => b.title)), [["Emma", "Beloved"], []]);
  console.log(JSON.stringify({ backlinks: true }));
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

func TestOrderedBacklinks(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := s.New(db).Query
	rows, err := q.Shelves(ctx)
	if err != nil || len(rows) != 2 || len(rows[0].Books) != 4 || rows[0].Books[0].Title != "Ulysses" ||
		rows[0].Books[0].Rank != nil || rows[0].Books[3].Title != "Dune" || len(rows[1].Books) != 0 {
		t.Fatalf("shelves: %#v %v", rows, err)
	}
	paged, err := q.Paged(ctx, s.PagedParams{Skip: "Dune"})
	if err != nil || len(paged[0].Books) != 2 || paged[0].Books[0].Title != "Emma" || paged[0].Books[1].Title != "Beloved" {
		t.Fatalf("paged: %#v %v", paged, err)
	}
}
"""


@pytest.mark.slow
def test_ordered_backlinks_through_the_typescript_runner(pg, tsc_run, tmp_path):
    _load(pg)
    out = compile_library(_sources(), Options(library="s"))
    src = tmp_path / "src"
    _write(out, src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"backlinks": True}


@pytest.mark.slow
def test_ordered_backlinks_through_the_go_runner(pg, go_run, tmp_path):
    _load(pg)
    out = compile_library(_sources(), Options(library="s"))
    mod = tmp_path / "mod"
    _write(out, mod / "s", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "backlinks_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestOrderedBacklinks" in result.test.stdout
