"""Arrays of ``int64``, ``bigint`` and ``decimal`` inside nested shapes
(https://docs.geldata.com/reference/edgeql/shapes, https://docs.geldata.com/reference/stdlib/array).
A nested shape travels as JSON; its arrays of these numbers travel as arrays of strings
(``CAST(x AS text[])``), as a tuple's do, so that values above 2^53 keep every digit: TypeScript
reads ``string[]`` (``bigint[]`` for ``int64`` with ``ts_int64="bigint"``), Go ``[]int64`` (read
through ``int64Texts``) and ``[]string``. They were JSON numbers, typed ``string[]`` but numbers at
run time, rounded by JavaScript. Tested on PostgreSQL 15 through node-postgres (both ``ts_int64``
settings), pgx and database/sql."""

from __future__ import annotations

import json
import re

import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Crate {
  required tag: str { constraint exclusive; };
  weights: array<int64>;
  huge: array<bigint>;
  prices: array<decimal>;
  parent: Crate;
  multi kids: Crate;
}
"""

SOURCES = {
    "na/s.esdl": SCHEMA,
    "na/q/crates.edgeql": "select Crate { tag, parent: { tag, weights, huge, prices, w := .weights, lit := [7, 8] }, "
                          "kids: { tag, weights } order by .tag } order by .tag;",
}

BIG = 9007199254740993  # 2^53 + 1: a JS number reads 9007199254740992
SETUP = f"""
INSERT INTO crate (tag, weights, huge, prices) VALUES
  ('a', ARRAY[{BIG}, -5]::bigint[], ARRAY['123456789012345678901234567890']::numeric[],
   ARRAY['0.1', '12345678901234567.125']::numeric[]),
  ('b', NULL, NULL, NULL);
UPDATE crate SET parent_id = (SELECT id FROM crate WHERE tag = 'a') WHERE tag = 'b';
INSERT INTO crate_kids (source_id, target_id)
  SELECT a.id, b.id FROM crate a, crate b WHERE a.tag = 'b' AND b.tag IN ('a', 'b');
"""


def _write(out, prefix: str, dest) -> None:
    for rel, text in out.items():
        if rel.startswith(prefix):
            p = dest / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


def test_types_and_sql():
    plan = {q.name: q for q in check_library(SOURCES, Options(library="na")).queries}["crates"]
    assert "'weights', CAST(\"_s1\".\"weights\" AS text[])" in plan.sql
    assert "'prices', CAST(\"_s1\".\"prices\" AS text[])" in plan.sql
    out = compile_library(SOURCES, Options(library="na"))
    assert ("parent: { tag: string; weights: string[] | null; huge: string[] | null; prices: string[] | null; "
            "w: string[] | null; lit: string[] }") in out["ts/queries.ts"]
    big = compile_library(SOURCES, Options(library="na", ts_int64="bigint"))["ts/queries.ts"]
    assert "weights: bigint[] | null; huge: string[] | null; prices: string[] | null; w: bigint[] | null; lit: bigint[] }" in big
    go = out["go/queries.go"]
    assert "\tWeights []int64  `json:\"weights\"`" in go
    assert "int64Texts{&t.Weights}, int64Texts{&t.W}, int64Texts{&t.Lit}" in go


def test_on_postgres(pg):
    plan = {q.name: q for q in check_library(SOURCES, Options(library="na")).queries}["crates"]
    pg.execute(compile_library(SOURCES, Options(library="na"))["sql/000001_init.up.sql"])
    pg.execute(SETUP)
    rows = pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql))
    assert rows[0][:2] == ("a", None)
    assert rows[1][1] == {"tag": "a", "weights": [str(BIG), "-5"], "huge": ["123456789012345678901234567890"],
                          "prices": ["0.1", "12345678901234567.125"], "w": [str(BIG), "-5"], "lit": ["7", "8"]}
    assert rows[1][2] == [{"tag": "a", "weights": [str(BIG), "-5"]}, {"tag": "b", "weights": None}]


TS_MAIN = f"""\
import assert from "node:assert/strict";
import pg from "pg";

import * as na from "./gen/index.js";
import * as big from "./big/index.js";

const pool = new pg.Pool({{ connectionString: process.env["DATABASE_URL"] }});
try {{
  await pool.query(process.env["SETUP"]!);
  const rows = await na.createRunner(pool).query.crates();
  const p = rows[1]!.parent!;
  const weights: string[] | null = p.weights;
  assert.deepEqual(weights, ["{BIG}", "-5"]);
  assert.deepEqual(p.huge, ["123456789012345678901234567890"]);
  assert.deepEqual(p.prices, ["0.1", "12345678901234567.125"]);
  assert.deepEqual(p.lit, ["7", "8"]);
  assert.deepEqual(rows[1]!.kids, [{{ tag: "a", weights: ["{BIG}", "-5"] }}, {{ tag: "b", weights: null }}]);
  const b = await big.createRunner(pool).query.crates();
  const bw: bigint[] | null = b[1]!.parent!.weights;
  assert.deepEqual(bw, [{BIG}n, -5n]);
  assert.deepEqual(b[1]!.parent!.lit, [7n, 8n]);
  assert.deepEqual(b[1]!.parent!.huge, ["123456789012345678901234567890"]);
  assert.deepEqual(b[1]!.kids.map((k) => k.weights), [[{BIG}n, -5n], null]);
  console.log(JSON.stringify({{ nestedArrays: true }}));
}} finally {{
  await pool.end();
}}
"""


@pytest.mark.slow
def test_typescript_runner(pg, tsc_run, tmp_path, monkeypatch):
    out = compile_library(SOURCES, Options(library="na"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    _write(compile_library(SOURCES, Options(library="na", ts_int64="bigint")), "ts/", src / "big")
    (src / "main.ts").write_text(TS_MAIN)
    monkeypatch.setenv("SETUP", SETUP)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"nestedArrays": True}


GO_TEST = f"""\
package e2e

import (
	"context"
	"os"
	"reflect"
	"testing"

	IMPORTS

	na "schemactest/na"
)

func TestNestedArrays(t *testing.T) {{
	ctx := context.Background()
	db, err := OPEN
	if err != nil {{
		t.Fatal(err)
	}}
	defer db.Close()
	if _, err := EXEC; err != nil {{
		t.Fatal(err)
	}}
	rows, err := na.New(db).Query.Crates(ctx)
	if err != nil || len(rows) != 2 || rows[1].Parent == nil {{
		t.Fatalf("crates: %#v (%v)", rows, err)
	}}
	p := rows[1].Parent
	if !reflect.DeepEqual(p.Weights, []int64{{{BIG}, -5}}) || !reflect.DeepEqual(p.W, p.Weights) ||
		!reflect.DeepEqual(p.Huge, []string{{"123456789012345678901234567890"}}) ||
		!reflect.DeepEqual(p.Prices, []string{{"0.1", "12345678901234567.125"}}) ||
		!reflect.DeepEqual(p.Lit, []int64{{7, 8}}) {{
		t.Fatalf("parent: %#v", p)
	}}
	kids := rows[1].Kids
	if len(kids) != 2 || !reflect.DeepEqual(kids[0].Weights, []int64{{{BIG}, -5}}) || kids[1].Weights != nil {{
		t.Fatalf("kids: %#v", kids)
	}}
}}
"""

GO_DRIVERS = {
    "pgx": {"IMPORTS": '"github.com/jackc/pgx/v5/pgxpool"', "OPEN": 'pgxpool.New(ctx, os.Getenv("DATABASE_URL"))',
            "EXEC": 'db.Exec(ctx, os.Getenv("SETUP"))'},
    "database/sql": {"IMPORTS": '"database/sql"\n\n\t_ "github.com/jackc/pgx/v5/stdlib"',
                     "OPEN": 'sql.Open("pgx", os.Getenv("DATABASE_URL"))',
                     "EXEC": 'db.ExecContext(ctx, os.Getenv("SETUP"))'},
}


@pytest.mark.slow
@pytest.mark.parametrize("driver", ["pgx", "database/sql"])
def test_go_runner(pg, go_run, tmp_path, monkeypatch, driver):
    out = compile_library(SOURCES, Options(library="na", go_driver=driver))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "na")
    (mod / "e2e").mkdir()
    text = GO_TEST
    for key, value in GO_DRIVERS[driver].items():
        text = text.replace(key, value)
    (mod / "e2e" / "nested_arrays_test.go").write_text(text)
    monkeypatch.setenv("SETUP", SETUP)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestNestedArrays" in result.test.stdout, result.test.stdout
