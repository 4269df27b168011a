"""A ``for`` body that is a value ``except`` / ``intersect`` a set
(https://docs.geldata.com/reference/edgeql/for, https://docs.geldata.com/reference/stdlib/set#operator::except):
``for t in array_unpack(<array<str>>$xs) union (t) except {'x', <str>$y}`` runs the body per
element, ``{t} except B``, which is ``t`` unless ``t in B`` (``intersect``: only if), so every
occurrence of an excluded value is left out (the body of each element is a set of its own).
Lowered as ``v if v not in B else <T>{}``. Tested on PostgreSQL 15 through node-postgres and
pgx (it was E0206 "a 'for' loop whose body is an operator expression ('except')")."""

from __future__ import annotations

import json
import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = "type Note { required body: str; }\n"

SOURCES = {
    "fo/s.esdl": SCHEMA,
    "fo/q/kept.edgeql": "for t in array_unpack(<array<str>>$xs) union (t) except {'x', <str>$y};",
    "fo/q/doubled.edgeql": "for n in array_unpack(<array<int64>>$ns) union (n * 2) intersect {2, 4, 8};",
}


def _plans():
    return {q.name: q for q in check_library(SOURCES, Options(library="fo")).queries}


def test_sql():
    plans = _plans()
    assert ('CASE ("_batch"."_for_t" NOT IN (\'x\', $2::text)) WHEN true THEN "_batch"."_for_t" '
            'WHEN false THEN NULL::text END') in plans["kept"].sql
    assert plans["kept"].cardinality == "many"


@pytest.mark.parametrize("query, message", [
    ("for t in array_unpack(<array<str>>$xs) union (<json>t) except {<json>'x'};",
     "'except' of a json value in a 'for' body is not supported yet"),
    ("for t in array_unpack(<array<str>>$xs) union ([t]) except {['x']};",
     "a 'for' loop whose body is an operator expression ('except') is not supported yet"),
])
def test_refused(query, message):
    sources = {"fo/s.esdl": SCHEMA, "fo/q/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        compile_library(sources, Options(library="fo"))
    assert message in e.value.render(sources)


def test_on_postgres(pg):
    plans = _plans()
    pg.execute(compile_library(SOURCES, Options(library="fo"))["sql/000001_init.up.sql"])

    def run(name, *args):
        return sorted(r[0] for r in pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql),
                                               {f"p{i}": a for i, a in enumerate(args, 1)}))

    assert run("kept", ["a", "x", "b", "a", "y", "x"], "y") == ["a", "a", "b"]
    assert run("kept", [], "y") == []
    assert run("doubled", [1, 2, 3, 4, 1]) == [2, 2, 4, 8]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as fo from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = fo.createRunner(pool).query;
  const kept: string[] = await q.kept({ xs: ["a", "x", "b", "a", "y", "x"], y: "y" });
  assert.deepEqual(kept.sort(), ["a", "a", "b"]);
  assert.deepEqual((await q.doubled({ ns: [1, 2, 3, 4, 1] })).sort(), ["2", "2", "4", "8"]);
  console.log(JSON.stringify({ forSetOps: true }));
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
def test_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library(SOURCES, Options(library="fo"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"forSetOps": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	fo "schemactest/fo"
)

func TestForSetOps(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := fo.New(db).Query
	kept, err := q.Kept(ctx, fo.KeptParams{Xs: []string{"a", "x", "b", "a", "y", "x"}, Y: "y"})
	sort.Strings(kept)
	if err != nil || !reflect.DeepEqual(kept, []string{"a", "a", "b"}) {
		t.Fatalf("kept: %#v (%v)", kept, err)
	}
	doubled, err := q.Doubled(ctx, fo.DoubledParams{Ns: []int64{1, 2, 3, 4, 1}})
	sort.Slice(doubled, func(i, j int) bool { return doubled[i] < doubled[j] })
	if err != nil || !reflect.DeepEqual(doubled, []int64{2, 2, 4, 8}) {
		t.Fatalf("doubled: %#v (%v)", doubled, err)
	}
}
"""


@pytest.mark.slow
def test_go_runner(pg, go_run, tmp_path):
    out = compile_library(SOURCES, Options(library="fo"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "fo")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "for_set_ops_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestForSetOps" in result.test.stdout, result.test.stdout
