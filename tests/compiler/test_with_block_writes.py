"""A statement bound by the query's ``with`` under a ``with`` block of its own,
``with p := (with n := <str>json_get(doc, 'name'), ... insert T { name := n, ... } unless
conflict ... else (update ...)) select { p := p, ... }`` (https://docs.geldata.com/reference/edgeql/with):
the block's names are bound before the statement, as if written in the query's own ``with`` (the
rest of the query does not spell them, so its meaning is unchanged). Was E0206 ("a 'with' block
whose body is an insert ... (a statement used as a value) inside a query"). On PostgreSQL 15 with
data and through the TypeScript and Go runners."""

from __future__ import annotations

import json
import re

import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  type Kite { required name: str { constraint exclusive; }; required span: int32; flights: int64 { default := 0; }; }
}
"""
SOURCES = {
    "s.gel": SCHEMA,
    "q/save_kite.edgeql": """with
  doc := <json>$doc,
  kite := (
    with
      name := <str>json_get(doc, 'name'),
      span := <int32>json_get(doc, 'span'),
    insert Kite { name := name, span := span }
    unless conflict on .name
    else (update Kite set { span := span, flights := .flights + 1 })
  ),
select { kite := kite { name, span, flights }, asked := <str>json_get(doc, 'name') };""",
}


def _setup(pg):
    out = compile_library(SOURCES, Options(library="wb"))
    pg.execute(out["sql/000001_init.up.sql"])
    return out, {q.name: q for q in check_library(SOURCES, Options(library="wb")).queries}


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql)
    return pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})


def test_a_with_block_around_a_bound_upsert(pg):
    _, plans = _setup(pg)
    first = _run(pg, plans["save_kite"], doc=json.dumps({"name": "k", "span": 3}))
    assert first == [({"name": "k", "span": 3, "flights": "0"}, "k")]
    again = _run(pg, plans["save_kite"], doc=json.dumps({"name": "k", "span": 4}))
    assert again == [({"name": "k", "span": 4, "flights": "1"}, "k")]
    assert pg.execute("SELECT name, span, flights FROM kite") == [("k", 4, 1)]


def test_a_name_the_rest_of_the_query_spells_is_not_hoisted():
    # (`span` is also a name of the outer query: hoisting would change what it reads)
    query = SOURCES["q/save_kite.edgeql"].replace("asked := <str>json_get(doc, 'name')", "asked := span")
    with pytest.raises(Exception) as e:
        check_library({"s.gel": SCHEMA, "q/q.edgeql": query}, Options(library="wb"))
    assert "E0206" in str(e.value.diagnostics)  # type: ignore[attr-defined]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as e from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = e.createRunner(pool).query;
  await q.saveKite({ doc: { name: "k", span: 3 } });
  const r = await q.saveKite({ doc: { name: "k", span: 5 } });
  assert.deepEqual([r.kite.name, r.kite.span, String(r.kite.flights), r.asked], ["k", 5, "1", "k"]);
  console.log(JSON.stringify({ withBlock: true }));
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
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"withBlock": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	wb "schemactest/wb"
)

func TestWithBlock(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := wb.New(db).Query
	if _, err := q.SaveKite(ctx, wb.SaveKiteParams{Doc: []byte(`{"name": "k", "span": 3}`)}); err != nil {
		t.Fatal(err)
	}
	r, err := q.SaveKite(ctx, wb.SaveKiteParams{Doc: []byte(`{"name": "k", "span": 5}`)})
	if err != nil || r.Kite.Span != 5 || r.Kite.Name != "k" {
		t.Fatalf("kite: %#v %v", r, err)
	}
}
"""


@pytest.mark.slow
def test_through_the_go_runner(pg, go_run, tmp_path):
    out, _ = _setup(pg)
    mod = tmp_path / "mod"
    for rel, text in out.items():
        if rel.startswith("go/"):
            p = mod / "wb" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (mod / "e2e").mkdir()
    (mod / "e2e" / "wb_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestWithBlock" in result.test.stdout
