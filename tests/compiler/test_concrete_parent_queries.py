"""A concrete type other types extend (https://docs.geldata.com/reference/datamodel/inheritance):
every object of a subtype is an object of the parent, so ``select Item { ... }`` reads the
parent's table and each subtype's, UNION ALL (as a select of an abstract type,
https://docs.geldata.com/reference/edgeql/select#polymorphic-queries); the forms that would read
only the parent's table (count(Item), sum(Item.x), an update bound by ``with``, a with
selection of Item, fts::search(Item, ...)) are a located E0206 (``update Item``: see
test_concrete_parent_updates.py). Proven on PostgreSQL 15 with data."""

from __future__ import annotations

import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module default {
  type Item { required title: str; stock: int32 { default := 0 }; }
  type Book extending Item { required isbn: str { constraint exclusive; }; }
  type Movie extending Item { director: str; }
}
"""


def _plans(**queries):
    sources = {"default.gel": SCHEMA}
    sources.update({f"q/{k}.edgeql": v for k, v in queries.items()})
    return {q.name: q for q in check_library(sources, Options(library="c")).queries}


def test_a_select_of_a_concrete_parent_reads_its_subtypes_objects(pg):
    pg.execute(compile_library({"default.gel": SCHEMA}, Options(library="c"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO item (title, stock) VALUES ('lamp', 1)")
    pg.execute("INSERT INTO book (title, stock, isbn) VALUES ('Dune', 2, '1'), ('Emma', 0, '2')")
    pg.execute("INSERT INTO movie (title, stock, director) VALUES ('Alien', 3, 'Scott')")
    q = _plans(items="select Item { title, stock, [is Book].isbn } filter .stock > 0 order by .title;",
               books="select Book { title } order by .title;")
    assert run_plan(pg, q["items"]) == [("Alien", 3, None), ("Dune", 2, "1"), ("lamp", 1, None)]
    assert run_plan(pg, q["books"]) == [("Dune",), ("Emma",)]


@pytest.mark.parametrize("query, col", [
    ("select count(Item);", 14),
    ("select { s := sum(Item.stock) };", 19),
    ("with x := (update Item filter .title = <str>$t set { stock := 1 }) select x;", 19),
    ("with x := (select Item filter .stock > 0) select x { title };", 50),
])
def test_forms_reading_only_the_parents_table_are_a_located_e0206(query, col):
    sources = {"default.gel": SCHEMA, "q/a.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    text = exc.value.render(sources)
    assert f"q/a.edgeql:1:{col}" in text and "error[E0206]" in text and "a type other types extend (Book, Movie" in text, text


def test_a_delete_of_a_concrete_parent_deletes_from_each_table(pg):
    # Gel deletes the subtypes' objects too (https://docs.geldata.com/reference/datamodel/inheritance)
    pg.execute(compile_library({"default.gel": SCHEMA}, Options(library="c"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO item (title, stock) VALUES ('lamp', 1), ('cup', 0)")
    pg.execute("INSERT INTO book (title, stock, isbn) VALUES ('Dune', 2, '1'), ('Emma', 0, '2')")
    pg.execute("INSERT INTO movie (title, stock, director) VALUES ('Alien', 3, 'Scott')")
    q = _plans(sold_out="delete Item filter .stock = <int32>$n;", items="select Item { title } order by .title;")
    assert len(run_plan(pg, q["sold_out"], 0)) == 2
    assert run_plan(pg, q["items"]) == [("Alien",), ("Dune",), ("lamp",)]
    assert len(run_plan(pg, q["sold_out"], 3)) == 1  # the movie


_RUNNER_QUERIES = {"q/sold_out.edgeql": "delete Item filter .stock = <int32>$n;"}

_TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as c from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query("INSERT INTO item (title, stock) VALUES ('lamp', 0); INSERT INTO book (title, stock, isbn) VALUES ('Dune', 0, '1')");
  assert.equal((await c.createRunner(pool).query.soldOut({ n: 0 })).length, 2);
  assert.equal((await pool.query("SELECT 1 FROM book")).rows.length, 0);
  console.log(JSON.stringify({ parentDelete: true }));
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

	c "schemactest/c"
)

func TestParentDelete(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "INSERT INTO item (title, stock) VALUES ('lamp', 0); INSERT INTO movie (title, stock) VALUES ('Up', 0)"); err != nil {
		t.Fatal(err)
	}
	rows, err := c.New(db).Query.SoldOut(ctx, c.SoldOutParams{N: 0})
	if err != nil || len(rows) != 2 {
		t.Fatalf("sold out: %v %v", rows, err)
	}
}
"""


def _runner_files():
    sources = {"default.gel": SCHEMA}
    sources.update(_RUNNER_QUERIES)
    return compile_library(sources, Options(library="c"))


def _write_tree(files, root, prefix):
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = root / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_a_delete_of_a_concrete_parent_through_the_typescript_runner(pg, tsc_run, tmp_path):
    import json
    out = _runner_files()
    pg.execute(out["sql/000001_init.up.sql"])
    _write_tree(out, tmp_path / "src" / "gen", "ts/")
    (tmp_path / "src" / "main.ts").write_text(_TS_MAIN)
    result = tsc_run(tmp_path / "src", "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"parentDelete": True}


@pytest.mark.slow
def test_a_delete_of_a_concrete_parent_through_the_go_runner(pg, go_run, tmp_path):
    out = _runner_files()
    pg.execute(out["sql/000001_init.up.sql"])
    _write_tree(out, tmp_path / "mod" / "c", "go/")
    (tmp_path / "mod" / "e2e").mkdir()
    (tmp_path / "mod" / "e2e" / "c_test.go").write_text(_GO_TEST)
    result = go_run(tmp_path / "mod", test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestParentDelete" in result.test.stdout
