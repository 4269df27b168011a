"""Insert defaults live in the column DEFAULT, not in the runner (issue 14, "Old runners keep
working"): a runner generated before a migration that changes a default and renames the enum
member the old default named keeps working after it, and writes the *new* defaults, through
node-postgres and pgx, for a single insert (``VALUES``) and a bulk one (``INSERT ... SELECT``).

With the defaults copied into the runner's SQL (``COALESCE($2::text, 'Fiction')``, as before),
the old runner wrote ``Fiction``, which the new CHECK refuses (SQLSTATE 23514), and 100 pages.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict

import pytest

from migration_harness import Lib
from schemac.semantics.library import Options
from schemac.pipeline import compile_library

V1 = """
enum Genre { Fiction, Poetry, Essay }
type Book {
  required title: str;
  required genre: Genre { default := Genre.Fiction };
  required pages: int32 { default := 100 };
}
"""
# The default member is renamed (rows rewritten, CHECK replaced, DEFAULT follows) and the
# pages default changes.
V2 = (V1.replace("Fiction", "Novel").replace("default := 100", "default := 250")
      + "migration { rename member Genre.Fiction to Novel; }\n")

QUERIES = {
    "lib/queries/add_book.edgeql":
        "insert Book { title := <str>$title, genre := <optional Genre>$genre, pages := <optional int32>$pages };",
    "lib/queries/add_books.edgeql":
        "for t in array_unpack(<array<str>>$titles) union (insert Book { title := t, pages := <optional int32>$pages });",
}

TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as lib from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query("DELETE FROM book");
  await lib.addBook(pool, { title: "omitted" });
  await lib.addBook(pool, { title: "nulls", genre: null, pages: null });
  await lib.addBook(pool, { title: "given", genre: "Poetry", pages: 7 });
  await lib.addBook(pool, { title: "half", pages: 8 });
  await lib.addBooks(pool, { titles: ["bulk1", "bulk2"] });
  await lib.addBooks(pool, { titles: ["bulk3"], pages: 9 });
  const { rows } = await pool.query("SELECT title, genre, pages FROM book ORDER BY title");
  console.log(JSON.stringify(rows));
} finally {
  await pool.end();
}
"""

GO_TEST = """\
package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	lib "schemactest/lib"
)

func TestOldRunner(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "DELETE FROM book"); err != nil {
		t.Fatal(err)
	}
	q := lib.New(db).Query
	poetry, seven, eight, nine := lib.GenrePoetry, int32(7), int32(8), int32(9)
	for _, p := range []lib.AddBookParams{
		{Title: "omitted"}, {Title: "nulls"}, {Title: "given", Genre: &poetry, Pages: &seven}, {Title: "half", Pages: &eight},
	} {
		if _, err := q.AddBook(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.AddBooks(ctx, lib.AddBooksParams{Titles: []string{"bulk1", "bulk2"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.AddBooks(ctx, lib.AddBooksParams{Titles: []string{"bulk3"}, Pages: &nine}); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(ctx, "SELECT title, genre, pages FROM book ORDER BY title")
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for rows.Next() {
		var title, genre string
		var pages int32
		if err := rows.Scan(&title, &genre, &pages); err != nil {
			t.Fatal(err)
		}
		out = append(out, map[string]any{"title": title, "genre": genre, "pages": pages})
	}
	b, _ := json.Marshal(out)
	fmt.Println("ROWS " + string(b))
}
"""

#: What both old runners write after the migration: the new defaults wherever a value was left out.
EXPECTED = [
    {"title": "bulk1", "genre": "Novel", "pages": 250},
    {"title": "bulk2", "genre": "Novel", "pages": 250},
    {"title": "bulk3", "genre": "Novel", "pages": 9},
    {"title": "given", "genre": "Poetry", "pages": 7},
    {"title": "half", "genre": "Novel", "pages": 8},
    {"title": "nulls", "genre": "Novel", "pages": 250},
    {"title": "omitted", "genre": "Novel", "pages": 250},
]


def _runner_v1() -> Dict[str, str]:
    """The runners generated from V1: the ones still deployed when V2's migration runs."""
    out = compile_library({"lib/schema.esdl": V1, **QUERIES}, Options(library="lib"))
    assert "COALESCE" not in out["ts/queries.ts"] + out["go/queries.go"]  # no copied default
    return out


def _write(files: Dict[str, str], root: Path, prefix: str) -> None:
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = root / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


def _migrate_to_v2(tmp_path: Path, pg) -> None:
    lib = Lib(tmp_path / "history")
    lib.generate(V1)
    lib.apply(pg.url)
    lib.generate(V2)
    lib.apply(pg.url)
    assert pg.execute("SELECT column_name, column_default FROM information_schema.columns WHERE table_name = 'book' "
                      "AND column_name IN ('genre', 'pages') ORDER BY 1") == [
        ("genre", "'Novel'::text"), ("pages", "250")]


@pytest.mark.slow
def test_a_typescript_runner_of_the_previous_version_writes_the_new_defaults(pg, tsc_run, tmp_path):
    old = _runner_v1()
    _migrate_to_v2(tmp_path, pg)
    src = tmp_path / "src"
    _write(old, src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == EXPECTED


@pytest.mark.slow
def test_a_go_runner_of_the_previous_version_writes_the_new_defaults(pg, go_run, tmp_path):
    old = _runner_v1()
    _migrate_to_v2(tmp_path, pg)
    mod = tmp_path / "mod"
    _write(old, mod / "lib", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "old_runner_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v", "-run", "TestOldRunner"))
    line = next(x for x in result.test.stdout.splitlines() if x.startswith("ROWS "))
    assert json.loads(line[len("ROWS "):]) == EXPECTED
