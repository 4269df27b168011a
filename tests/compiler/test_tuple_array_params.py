"""An array of named tuples as a parameter, iterated by a ``for`` loop
(https://docs.geldata.com/reference/edgeql/parameters, https://docs.geldata.com/reference/stdlib/tuple):
``for r in array_unpack(<array<tuple<sku: str, qty: int32, ...>>>$rows) union (insert ...)``,
its elements read as ``r.sku``. The runners send the array as JSON objects (TS ``{ sku: string;
qty: number }[]`` as @gel/generate types it; Go a slice of structs as edgeql-go maps it), read by
``jsonb_to_recordset``. Was E0206 ("tuple types ... are only supported as a property's type").
On PostgreSQL 15 with data and through the TypeScript and Go runners."""

from __future__ import annotations

import json
import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  scalar type Grade extending enum<Low, High>;
  type Shelf { required code: int32 { constraint exclusive; }; }
  type Stock {
    required sku: str { constraint exclusive; };
    required qty: int32;
    required grade: Grade;
    counted_at: datetime;
    multi shelves: Shelf;
  }
}
"""
SOURCES = {
    "s.gel": SCHEMA,
    "q/put_stock.edgeql": """with rows := <array<tuple<sku: str, qty: int32, grade: Grade, shelves: array<int32>,
                               counted_at: datetime>>>$rows,
for r in array_unpack(rows) union (
  insert Stock {
    sku := r.sku, qty := r.qty, grade := r.grade, counted_at := r.counted_at,
    shelves := (select Shelf filter .code in array_unpack(r.shelves)),
  }
  unless conflict on .sku else (
    update Stock set { qty := r.qty, shelves += (select Shelf filter .code in array_unpack(r.shelves)) }
  )
);""",
    "q/stock.edgeql": "select Stock { sku, qty, grade, counted_at, shelves: { code } order by .code } order by .sku;",
}


def _setup(pg):
    out = compile_library(SOURCES, Options(library="ta"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO shelf (code) SELECT generate_series(1, 5)")
    return out, {q.name: q for q in check_library(SOURCES, Options(library="ta")).queries}


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql)
    return pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})


def _stock(pg, plans):
    return [(r[0], r[1], r[2], r[3] is not None, [s["code"] for s in r[4]]) for r in _run(pg, plans["stock"])]


def test_a_loop_over_an_array_of_named_tuples(pg):
    _, plans = _setup(pg)
    rows = [{"sku": "a", "qty": 2, "grade": "Low", "shelves": [1, 2], "counted_at": "2026-01-02T03:04:05Z"},
            {"sku": "b", "qty": 5, "grade": "High", "shelves": [], "counted_at": None}]
    assert len(_run(pg, plans["put_stock"], rows=json.dumps(rows))) == 2
    assert _stock(pg, plans) == [("a", 2, "Low", True, [1, 2]), ("b", 5, "High", False, [])]
    # the existing one is updated (its links added to), a new one inserted
    _run(pg, plans["put_stock"], rows=json.dumps([{"sku": "a", "qty": 1, "grade": "Low", "shelves": [3],
                                                   "counted_at": None},
                                                  {"sku": "c", "qty": 1, "grade": "Low", "shelves": [5],
                                                   "counted_at": None}]))
    assert _stock(pg, plans) == [("a", 1, "Low", True, [1, 2, 3]), ("b", 5, "High", False, []),
                                 ("c", 1, "Low", False, [5])]
    _run(pg, plans["put_stock"], rows="[]")
    assert len(_stock(pg, plans)) == 3


@pytest.mark.parametrize("query, message", [
    ("for r in array_unpack(<array<tuple<str, int32>>>$rows) union (insert Stock { sku := r.0, qty := r.1, "
     "grade := Grade.Low });",
     "an array of unnamed tuples ('array<tuple<str, int32>>') as a parameter is not supported yet"),
    ("select len(<array<tuple<a: str>>>$rows);",
     "an array of tuples as a parameter is only supported as a 'for' loop's source (for x in array_unpack(...)) yet"),
])
def test_other_uses_are_refused(query, message):
    with pytest.raises(CompileError) as e:
        check_library({"s.gel": SCHEMA, "q/q.edgeql": query}, Options(library="ta"))
    assert [(d.code, d.message) for d in e.value.diagnostics] == [("E0206", message)]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as e from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = e.createRunner(pool).query;
  await q.putStock({ rows: [
    { sku: "a", qty: 2, grade: "High", shelves: [4, 1], counted_at: new Date("2026-01-02T03:04:05Z") },
    { sku: "b", qty: 3, grade: "Low", shelves: [], counted_at: new Date("2026-01-02T03:04:05Z") },
  ] });
  await q.putStock({ rows: [{ sku: "a", qty: 1, grade: "High", shelves: [2], counted_at: new Date() }] });
  const stock = await q.stock();
  assert.deepEqual(stock.map((s) => [s.sku, s.qty, s.grade, s.shelves.map((x) => x.code)]),
                   [["a", 1, "High", [1, 2, 4]], ["b", 3, "Low", []]]);
  console.log(JSON.stringify({ tupleArrays: true }));
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
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"tupleArrays": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	ta "schemactest/ta"
)

func TestTupleArrays(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := ta.New(db).Query
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rows := []ta.PutStockRowsItem{
		{SKU: "a", Qty: 2, Grade: ta.GradeHigh, Shelves: []int32{4, 1}, CountedAt: at},
		{SKU: "b", Qty: 3, Grade: ta.GradeLow, CountedAt: at},
	}
	if _, err := q.PutStock(ctx, ta.PutStockParams{Rows: rows}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.PutStock(ctx, ta.PutStockParams{}); err != nil {
		t.Fatal(err)
	}
	stock, err := q.Stock(ctx)
	if err != nil || len(stock) != 2 || stock[0].Grade != ta.GradeHigh || len(stock[0].Shelves) != 2 ||
		stock[0].Shelves[0].Code != 1 || stock[0].CountedAt == nil || !stock[0].CountedAt.Equal(at) || len(stock[1].Shelves) != 0 {
		t.Fatalf("stock: %#v %v", stock, err)
	}
}
"""


@pytest.mark.slow
def test_through_the_go_runner(pg, go_run, tmp_path):
    out, _ = _setup(pg)
    mod = tmp_path / "mod"
    for rel, text in out.items():
        if rel.startswith("go/"):
            p = mod / "ta" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (mod / "e2e").mkdir()
    (mod / "e2e" / "ta_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestTupleArrays" in result.test.stdout
