"""A ``for`` loop over a ``with`` name bound to the unpacked elements of a parameter, ``with xs :=
json_array_unpack(<json>$p) for x in xs union (...)`` (also ``array_unpack``, and a loop in a
later binding): a ``with`` name is its value (https://docs.geldata.com/reference/edgeql/with), and
unpacking a parameter gives the same elements in the same order wherever it is written, so the
loop is the loop over the value (https://docs.geldata.com/reference/edgeql/for). A
``json_array_unpack`` binding read otherwise stays a located E0206. Proven on PostgreSQL 15 with
data, through the TypeScript and Go runners."""

from __future__ import annotations

import json

import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module default { type Label { required word: str { constraint exclusive; }; hits: int64; } }
"""

QUERIES = {
    "q/label_words.edgeql": """\
with words := array_unpack(<array<str>>$words)
for w in words union (insert Label { word := w } unless conflict on .word else (select Label))
""",
    "q/label_items.edgeql": """\
with items := json_array_unpack(<json>$items),
  made := (for it in items union (insert Label { word := <str>it['w'], hits := <int64>it['n'] }))
select made { word, hits } order by .word;
""",
}


def _plans():
    return {q.name: q for q in check_library({"default.gel": SCHEMA, **QUERIES}, Options(library="u")).queries}


def test_a_loop_over_a_with_name_of_unpacked_elements(pg):
    pg.execute(compile_library({"default.gel": SCHEMA}, Options(library="u"))["sql/000001_init.up.sql"])
    q = _plans()
    assert len(run_plan(pg, q["label_words"], ["red", "blue"])) == 2
    assert len(run_plan(pg, q["label_words"], ["red"])) == 1  # the existing one
    assert run_plan(pg, q["label_items"], json.dumps([{"w": "tan", "n": 2}, {"w": "gold", "n": 5}])) == [
        ("gold", 5), ("tan", 2)]
    assert pg.execute("SELECT word FROM label ORDER BY word") == [("blue",), ("gold",), ("red",), ("tan",)]


def test_a_json_array_unpack_name_read_otherwise_is_still_a_located_e0206():
    sources = {"default.gel": SCHEMA,
               "q/a.edgeql": "with items := json_array_unpack(<json>$items)\nselect count(items);"}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="u"))
    text = exc.value.render(sources)
    assert "q/a.edgeql:1:15" in text and "error[E0206]" in text and "json_array_unpack" in text, text


_TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as u from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = u.createRunner(pool).query;
  assert.equal((await q.labelWords({ words: ["a", "b"] })).length, 2);
  const made = await q.labelItems({ items: [{ w: "c", n: 1 }] });
  assert.deepEqual(made.map((m) => [m.word, String(m.hits)]), [["c", "1"]]);
  console.log(JSON.stringify({ unpackBindings: true }));
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

	u "schemactest/u"
)

func TestUnpackBindings(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := u.New(db).Query.LabelWords(ctx, u.LabelWordsParams{Words: []string{"x", "y"}})
	if err != nil || len(rows) != 2 || rows[0].ID == rows[1].ID {
		t.Fatalf("label words: %v %v", rows, err)
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
def test_unpack_bindings_through_the_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library({"default.gel": SCHEMA, **QUERIES}, Options(library="u"))
    pg.execute(out["sql/000001_init.up.sql"])
    _write_tree(out, tmp_path / "src" / "gen", "ts/")
    (tmp_path / "src" / "main.ts").write_text(_TS_MAIN)
    result = tsc_run(tmp_path / "src", "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"unpackBindings": True}


@pytest.mark.slow
def test_unpack_bindings_through_the_go_runner(pg, go_run, tmp_path):
    out = compile_library({"default.gel": SCHEMA, **QUERIES}, Options(library="u"))
    pg.execute(out["sql/000001_init.up.sql"])
    _write_tree(out, tmp_path / "mod" / "u", "go/")
    (tmp_path / "mod" / "e2e").mkdir()
    (tmp_path / "mod" / "e2e" / "u_test.go").write_text(_GO_TEST)
    result = go_run(tmp_path / "mod", test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestUnpackBindings" in result.test.stdout
