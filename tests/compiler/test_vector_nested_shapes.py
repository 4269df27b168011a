"""An ``ext::pgvector::vector`` inside a nested shape (``select Playlist { tracks: { title, sig } }``):
nested shapes travel as JSON, and a vector's value is its float32 numbers, as Gel's clients read
it (https://docs.geldata.com/reference/stdlib/pgvector), so it is ``CAST(sig AS real[])`` in the
shape's ``json_build_object``, which both runners read as they read any JSON array of numbers:
TypeScript ``number[]`` (no ``parseVector``: that reads pgvector's text form at the top level),
Go ``Vector`` (``[]float32``, decoded by encoding/json; ``null`` is nil).

pgvector runs on the PostgreSQL 16 server tests/run starts (``pgvector_db``: Debian 12's
PostgreSQL 15 has no pgvector), as in tests/e2e/test_extensions_e2e.py."""

from __future__ import annotations

import json
import re

import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
using extension pgvector;
module default {
  type Track { required title: str; sig: ext::pgvector::vector<3>; }
  type Playlist { required name: str; multi tracks: Track; pick: Track; }
}
"""

QUERIES = {
    "q/playlist.edgeql": "select Playlist {\n  name,\n  tracks: { title, sig } order by .title,\n"
                         "  pick: { title, sig },\n} filter .name = <str>$name limit 1;",
}

SEED = """\
INSERT INTO track (title, sig) VALUES ('a', '[0.5,-1,2]'), ('b', NULL), ('c', '[1e-05,0,3.25]');
INSERT INTO playlist (name, pick_id) SELECT 'mix', id FROM track WHERE title = 'c';
INSERT INTO playlist_tracks (source_id, target_id) SELECT p.id, t.id FROM playlist p, track t WHERE t.title IN ('a', 'b');
"""


def _compile(driver="pgx"):
    return compile_library({"default.gel": SCHEMA, **QUERIES}, Options(library="v", go_driver=driver))


def test_a_vector_in_a_nested_shape_is_a_json_array_of_numbers(pgvector_db):
    pgvector_db.execute(_compile()["sql/000001_init.up.sql"])
    pgvector_db.execute(SEED)
    [plan] = check_library({"default.gel": SCHEMA, **QUERIES}, Options(library="v")).queries
    assert "CAST(\"_s1\".\"sig\" AS real[])" in plan.sql
    [(name, tracks, pick)] = pgvector_db.execute(re.sub(r"\$1", "%(p1)s", plan.sql), {"p1": "mix"})
    assert name == "mix"
    assert tracks == [{"title": "a", "sig": [0.5, -1, 2]}, {"title": "b", "sig": None}]
    assert pick == {"title": "c", "sig": [1e-05, 0, 3.25]}


_TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as v from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const got = await v.createRunner(pool).query.playlist({ name: "mix" });
  assert.ok(got !== null);
  const sigs: Array<number[] | null> = got.tracks.map((t) => t.sig);
  assert.deepEqual(sigs, [[0.5, -1, 2], null]);
  assert.deepEqual(got.pick?.sig, [1e-05, 0, 3.25]);
  console.log(JSON.stringify({ nestedVector: true }));
} finally {
  await pool.end();
}
"""

_GO_TEST = {
    "pgx": """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	v "schemactest/v"
)

func TestNestedVector(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check(t, v.New(db))
}
""",
    "database/sql": """\
package e2e

import (
	"database/sql"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	v "schemactest/v"
)

func TestNestedVector(t *testing.T) {
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check(t, v.New(db))
}
""",
}

_GO_CHECK = """\
package e2e

import (
	"context"
	"fmt"
	"testing"

	v "schemactest/v"
)

func check(t *testing.T, db *v.Runner) {
	got, err := db.Query.Playlist(context.Background(), v.PlaylistParams{Name: "mix"})
	if err != nil || got == nil {
		t.Fatalf("playlist: %v %v", got, err)
	}
	if s := fmt.Sprint(got.Tracks[0].Sig, got.Tracks[1].Sig == nil, got.Pick.Sig); s != "[0.5,-1,2] true [1e-05,0,3.25]" {
		t.Fatalf("vectors: %s", s)
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
def test_a_nested_vector_through_the_typescript_runner(pgvector_db, tsc_run, tmp_path):
    out = _compile()
    pgvector_db.execute(out["sql/000001_init.up.sql"])
    pgvector_db.execute(SEED)
    _write_tree(out, tmp_path / "src" / "gen", "ts/")
    (tmp_path / "src" / "main.ts").write_text(_TS_MAIN)
    result = tsc_run(tmp_path / "src", "main.ts", database_url=pgvector_db.url)
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"nestedVector": True}


@pytest.mark.slow
@pytest.mark.parametrize("driver", ["pgx", "database/sql"])
def test_a_nested_vector_through_the_go_runner(pgvector_db, go_run, tmp_path, driver):
    out = _compile(driver)
    pgvector_db.execute(out["sql/000001_init.up.sql"])
    pgvector_db.execute(SEED)
    _write_tree(out, tmp_path / "mod" / "v", "go/")
    (tmp_path / "mod" / "e2e").mkdir()
    (tmp_path / "mod" / "e2e" / "v_test.go").write_text(_GO_TEST[driver])
    (tmp_path / "mod" / "e2e" / "check_test.go").write_text(_GO_CHECK)
    result = go_run(tmp_path / "mod", test_args=("-count=1", "-v"), go121_test=True, database_url=pgvector_db.url)
    assert "--- PASS: TestNestedVector" in result.test.stdout
