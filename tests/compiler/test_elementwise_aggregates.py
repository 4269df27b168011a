"""Aggregates of values computed element by element over a ``with`` selection, and the JSON
forms they use:

* ``sum(len(mine.body))``, ``max(...)``, ``count(mine.meta['tags'])``: Gel binds the paths from
  ``mine`` to each of its objects (https://docs.geldata.com/reference/edgeql/paths), one value
  each, as ``for mine in mine union len(mine.body)``;
* ``sum(len(<array<json>>(mine.meta['tags'] ?? <json>[])))``: ``??`` takes its left operand as a
  whole set (https://docs.geldata.com/reference/stdlib/set#operator::coalesce): the values over
  the left operand's when it has any, else over ``<json>[]``;
* ``<array<json>>x`` of a JSON array (its elements as they are) and ``<json>[]``, the empty JSON
  array (https://docs.geldata.com/reference/stdlib/json).

Run on PostgreSQL 15 through node-postgres and pgx. Each was E0206 ("a path from the 'with'
name", "casting json to array<json>") or E0304 ("the type of an empty array literal")."""

from __future__ import annotations

import json
import re

import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Post { required author: str; required body: str; meta: json; }
"""

SOURCES = {
    "ea/s.esdl": SCHEMA,
    "ea/q/post_stats.edgeql": """
        with mine := (select Post filter .author = <str>$author)
        select {
          chars := sum(len(mine.body)),
          words := sum(len(str_split(mine.body, ' '))),
          longest := max(len(mine.body)),
          tagged := sum(len(<array<json>>(mine.meta['tags'] ?? <json>[]))),
          fewest := min(len(<array<json>>(mine.meta['tags'] ?? <json>[]))),
          with_tags := count(mine.meta['tags']),
          attached := count(mine filter len(<array<json>>.meta['files']) > 0),
          nothing := <json>[],
        };""",
    "ea/q/items.edgeql": "select <array<json>><json>$doc;",
}

SETUP = """
INSERT INTO post (author, body, meta) VALUES
  ('ann', 'hello big world', '{"tags": ["a", "b"], "files": []}'),
  ('ann', 'hi', '{"tags": [], "files": [1]}'),
  ('ann', 'x y', NULL),
  ('bob', 'yo', NULL);
"""


def _plans():
    return {q.name: q for q in check_library(SOURCES, Options(library="ea")).queries}


def test_on_postgres(pg):
    plans = _plans()
    pg.execute(compile_library(SOURCES, Options(library="ea"))["sql/000001_init.up.sql"])
    pg.execute(SETUP)

    def run(name, *args):
        return pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql), {f"p{i}": a for i, a in enumerate(args, 1)})

    # 15 + 2 + 3 characters, 3 + 1 + 2 words; the tags of the two posts that have any: 2 + 0
    assert run("post_stats", "ann") == [(20, 6, 15, 2, 0, 2, 1, [])]
    # no tags at all: the set is <json>[]'s, one value 0 (min is 0, not empty)
    assert run("post_stats", "bob") == [(2, 1, 2, 0, 0, 0, 0, [])]
    assert run("post_stats", "nobody") == [(0, 0, None, 0, 0, 0, 0, [])]
    assert run("items", json.dumps([1, {"a": None}, None])) == [([1, {"a": None}, None],)]
    with pytest.raises(Exception, match="expected json array"):
        run("items", json.dumps({"a": 1}))


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as ea from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query(process.env["SETUP"]!);
  const q = ea.createRunner(pool).query;
  assert.deepEqual(await q.postStats({ author: "ann" }), {
    chars: "20", words: "6", longest: "15", tagged: "2", fewest: "0", with_tags: "2", attached: "1", nothing: [],
  });
  assert.deepEqual(await q.items({ doc: [1, { a: null }, null] }), [1, { a: null }, null]);
  console.log(JSON.stringify({ elementwiseAggregates: true }));
} finally {
  await pool.end();
}
"""


def _write(out, prefix: str, dest) -> None:
    for rel, text in out.items():
        if rel.startswith(prefix):
            p = dest / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_typescript_runner(pg, tsc_run, tmp_path, monkeypatch):
    out = compile_library(SOURCES, Options(library="ea"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    (src / "main.ts").write_text(TS_MAIN)
    monkeypatch.setenv("SETUP", SETUP)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"elementwiseAggregates": True}


GO_TEST = """\
package e2e

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	ea "schemactest/ea"
)

func TestElementwiseAggregates(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, os.Getenv("SETUP")); err != nil {
		t.Fatal(err)
	}
	q := ea.New(db).Query
	got, err := q.PostStats(ctx, ea.PostStatsParams{Author: "ann"})
	if err != nil || got.Chars != 20 || got.Words != 6 || got.Tagged != 2 || got.WithTags != 2 || got.Attached != 1 {
		t.Fatalf("post stats: %#v (%v)", got, err)
	}
	items, err := q.Items(ctx, ea.ItemsParams{Doc: json.RawMessage(`[1, {"a": null}]`)})
	if err != nil || len(items) != 2 {
		t.Fatalf("items: %#v (%v)", items, err)
	}
}
"""


@pytest.mark.slow
def test_go_runner(pg, go_run, tmp_path, monkeypatch):
    out = compile_library(SOURCES, Options(library="ea"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "ea")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "elementwise_aggregates_test.go").write_text(GO_TEST)
    monkeypatch.setenv("SETUP", SETUP)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestElementwiseAggregates" in result.test.stdout, result.test.stdout
