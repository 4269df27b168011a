"""A parameter nothing reads, ``with limit_ := <int64>$limit select ...`` where the query never
uses ``limit_``: Gel evaluates a ``with`` name only where it is used, and still takes every
parameter the query declares (https://docs.geldata.com/reference/edgeql/with,
https://docs.geldata.com/reference/edgeql/parameters). The runners take it and send it; an unread
CTE types it for Postgres (a CTE nothing reads is not run). Was E0304 ("parameter $x is never
used"). On PostgreSQL 15 and through the TypeScript and Go runners."""

from __future__ import annotations

import json
import re

import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = "module default { type Lamp { required watts: int64; label: str; } }\n"
SOURCES = {
    "s.gel": SCHEMA,
    # the unused ones first, in the middle and last: the runner still numbers them all
    "q/lamps_over.edgeql": """with
  owner := <str>$owner,
  floor := <int64>$floor,
  tag := <optional str>$tag,
select Lamp { watts } filter .watts > floor order by .watts;""",
    "q/add_lamp.edgeql": "with unused := <json>$meta insert Lamp { watts := <int64>$watts };",
}


def _setup(pg):
    out = compile_library(SOURCES, Options(library="up"))
    pg.execute(out["sql/000001_init.up.sql"])
    return out, {q.name: q for q in check_library(SOURCES, Options(library="up")).queries}


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql)
    return pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})


def test_unused_parameters_are_taken_and_typed(pg):
    _, plans = _setup(pg)
    assert [p.name for p in plans["lamps_over"].params] == ["owner", "floor", "tag"]
    assert plans["lamps_over"].sql.startswith('WITH "_unused" AS (\nSELECT $1::text, $3::text\n)')
    _run(pg, plans["add_lamp"], meta='{"a": 1}', watts=40)
    _run(pg, plans["add_lamp"], meta="{}", watts=60)
    assert _run(pg, plans["lamps_over"], owner="x", floor=50, tag=None) == [(60,)]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as e from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = e.createRunner(pool).query;
  await q.addLamp({ meta: { a: 1 }, watts: 40 });
  await q.addLamp({ meta: {}, watts: 60 });
  const lamps = await q.lampsOver({ owner: "x", floor: 50, tag: null });
  assert.deepEqual(lamps.map((l) => l.watts), ["60"]);
  console.log(JSON.stringify({ unused: true }));
} finally {
  await pool.end();
}
"""


@pytest.mark.slow
def test_through_the_typescript_runner(pg, tsc_run, tmp_path):
    out, _ = _setup(pg)
    src = tmp_path / "src"
    for rel, text in out.items():
        if rel.startswith("ts/"):
            p = src / "gen" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"unused": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	up "schemactest/up"
)

func TestUnusedParams(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := up.New(db).Query
	for _, w := range []int64{40, 60} {
		if _, err := q.AddLamp(ctx, up.AddLampParams{Meta: []byte(`{"a": 1}`), Watts: w}); err != nil {
			t.Fatal(err)
		}
	}
	lamps, err := q.LampsOver(ctx, up.LampsOverParams{Owner: "x", Floor: 50})
	if err != nil || len(lamps) != 1 || lamps[0].Watts != 60 {
		t.Fatalf("lamps: %#v %v", lamps, err)
	}
}
"""


@pytest.mark.slow
def test_through_the_go_runner(pg, go_run, tmp_path):
    out, _ = _setup(pg)
    mod = tmp_path / "mod"
    for rel, text in out.items():
        if rel.startswith("go/"):
            p = mod / "up" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (mod / "e2e").mkdir()
    (mod / "e2e" / "up_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestUnusedParams" in result.test.stdout
