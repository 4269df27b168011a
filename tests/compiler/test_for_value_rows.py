"""A ``with`` name bound to a ``for`` loop over objects whose body is a value of each object,
``tags := (for n in notes union (for m in re_match_all(p, n.body) union m))`` or ``(for n in
Note union n.mood)`` (https://docs.geldata.com/reference/edgeql/for: the bodies' results united,
duplicates kept; https://docs.geldata.com/reference/stdlib/string#function::std::re_match_all:
one array of the groups per match), counted (``count(tags)``) and grouped by an expression of
each value (``group tags using tag := tags[0] by tag``,
https://docs.geldata.com/reference/edgeql/group) in a free object's field. Run on PostgreSQL 15
through node-postgres and pgx. It was E0206 "'for' loops inside an expression"."""

from __future__ import annotations

import json
import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Note { required author: str; required body: str; mood: str; }
"""

SOURCES = {
    "fr/s.esdl": SCHEMA,
    "fr/q/tag_stats.edgeql": r"""
        with
          notes := (select Note filter .author = <str>$author),
          tags := (for n in notes union (for m in re_match_all(r'#(\w+)', n.body) union m)),
          groups := (group tags using tag := tags[0] by tag)
        select {
          total := count(tags),
          per_tag := (select groups { tag := .key.tag, n := count(.elements) } order by .n desc then .tag),
        };""",
    "fr/q/moods.edgeql": """
        with moods := (for n in Note union n.mood)
        select {
          n := count(moods),
          per_mood := (
            with g := (group moods using mood := str_lower(moods) by mood)
            select g { mood := .key.mood, n := count(.elements) }
          ),
        };""",
}

# ann's notes hold #a twice and #b once (twice in one note); bob's one #a; c3 has no tag
SETUP = """
INSERT INTO note (author, body, mood) VALUES
  ('ann', 'see #a and #b', 'Calm'), ('ann', '#b then #a', 'calm'), ('ann', 'no tag', NULL),
  ('bob', 'only #a', 'Tired');
"""


def _plans():
    return {q.name: q for q in check_library(SOURCES, Options(library="fr")).queries}


def test_sql():
    sql = _plans()["tag_stats"].sql
    assert "CROSS JOIN LATERAL regexp_matches(\"_fo1\".body, '#(\\w+)', 'g') AS \"_m\"(\"value\")" in sql
    assert 'GROUP BY "_group_k0"' in sql


@pytest.mark.parametrize("query, message", [
    ("with t := (for n in Note union n.body) select array_agg(t);",
     "'t' is a set of a 'for' loop over objects: reading it other than by count(), sum(), min(), max() or group"),
    ("with t := (for n in Note union n) select count(t);", "body reads the object 'n' itself"),
    ("with t := (for n in Note union n.body), g := (group t using k := t by k) select g { elements };",
     "E0206"),
])
def test_other_reads_are_located_e0206(query, message):
    sources = {"fr/s.esdl": SCHEMA, "fr/q/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        compile_library(sources, Options(library="fr"))
    assert message in e.value.render(sources)


def test_on_postgres(pg):
    plans = _plans()
    pg.execute(compile_library(SOURCES, Options(library="fr"))["sql/000001_init.up.sql"])
    pg.execute(SETUP)

    def run(name, *args):
        return pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql), {f"p{i}": a for i, a in enumerate(args, 1)})

    [(total, per_tag)] = run("tag_stats", "ann")
    assert total == 4
    assert per_tag == [{"tag": "a", "n": "2"}, {"tag": "b", "n": "2"}]
    assert run("tag_stats", "nobody") == [(0, [])]
    # an empty mood is no element; 'Calm' and 'calm' meet under one key
    [(n, per_mood)] = run("moods")
    assert n == 3
    assert per_mood == [{"mood": "calm", "n": "2"}, {"mood": "tired", "n": "1"}]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as fr from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query(process.env["SETUP"]!);
  const q = fr.createRunner(pool).query;
  assert.deepEqual(await q.tagStats({ author: "ann" }), {
    total: "4",
    per_tag: [{ tag: "a", n: "2" }, { tag: "b", n: "2" }],
  });
  assert.deepEqual(await q.tagStats({ author: "bob" }), { total: "1", per_tag: [{ tag: "a", n: "1" }] });
  assert.deepEqual((await q.moods()).n, "3");
  console.log(JSON.stringify({ forValueRows: true }));
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
    out = compile_library(SOURCES, Options(library="fr"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    (src / "main.ts").write_text(TS_MAIN)
    monkeypatch.setenv("SETUP", SETUP)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"forValueRows": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	fr "schemactest/fr"
)

func TestForValueRows(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, os.Getenv("SETUP")); err != nil {
		t.Fatal(err)
	}
	q := fr.New(db).Query
	got, err := q.TagStats(ctx, fr.TagStatsParams{Author: "ann"})
	if err != nil || got.Total != 4 || len(got.PerTag) != 2 || got.PerTag[0].Tag != "a" || got.PerTag[0].N != 2 ||
		got.PerTag[1].Tag != "b" || got.PerTag[1].N != 2 {
		t.Fatalf("tag stats: %#v (%v)", got, err)
	}
	moods, err := q.Moods(ctx)
	if err != nil || moods.N != 3 || len(moods.PerMood) != 2 || moods.PerMood[0].Mood != "calm" {
		t.Fatalf("moods: %#v (%v)", moods, err)
	}
}
"""


@pytest.mark.slow
def test_go_runner(pg, go_run, tmp_path, monkeypatch):
    out = compile_library(SOURCES, Options(library="fr"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "fr")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "for_value_rows_test.go").write_text(GO_TEST)
    monkeypatch.setenv("SETUP", SETUP)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestForValueRows" in result.test.stdout, result.test.stdout
