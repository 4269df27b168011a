"""A str value given to an enum property, ``status := <str>$status``: Gel's assignment cast
from str to an enum (its std library declares ``create cast from std::str to std::anyenum``
with ``allow assignment``; https://docs.geldata.com/reference/stdlib/enum). The text is stored;
a text that names no member fails the statement (the column's CHECK, SQLSTATE 23514), as Gel
fails the cast. The parameter stays a str (TS ``string``, Go ``string``). Proven on PostgreSQL
15 with data, and through the TypeScript and Go runners."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict

import psycopg
import pytest

from libraries import run_plan
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module default {
  scalar type Phase extending enum<Draft, Live, Gone>;
  type Task { required name: str; required phase: Phase { default := Phase.Draft; }; }
}
"""

QUERIES = {
    "add_task": "insert Task { name := <str>$name, phase := <optional str>$phase };",
    "set_phase": "update Task filter .name = <str>$name set { phase := <str>$phase };",
    "tasks": "select Task { name, phase } order by .name;",
}


def _sources() -> Dict[str, str]:
    sources = {"es/default.gel": SCHEMA}
    sources.update({f"es/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return sources


def test_str_values_of_enum_properties_on_postgres(pg):
    pg.execute(compile_library(_sources(), Options(library="es"))["sql/000001_init.up.sql"])
    q = {p.name: p for p in check_library(_sources(), Options(library="es")).queries}
    run_plan(pg, q["add_task"], "a", None)
    run_plan(pg, q["add_task"], "b", "Live")
    run_plan(pg, q["set_phase"], "a", "Gone")
    assert run_plan(pg, q["tasks"]) == [("a", "Gone"), ("b", "Live")]
    with pytest.raises(psycopg.errors.CheckViolation):
        run_plan(pg, q["set_phase"], "b", "Nope")
    assert q["set_phase"].params[1].type.name == "str"


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as es from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = es.createRunner(pool).query;
  await q.addTask({ name: "a" });
  await q.setPhase({ name: "a", phase: "Live" });
  await assert.rejects(q.setPhase({ name: "a", phase: "Nope" }));
  assert.deepEqual((await q.tasks()).map((t) => [t.name, t.phase]), [["a", "Live"]]);
  console.log(JSON.stringify({ enumStr: true }));
} finally {
  await pool.end();
}
"""

GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	es "schemactest/es"
)

func TestEnumStr(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "DELETE FROM task"); err != nil { // (go_run runs the test twice)
		t.Fatal(err)
	}
	q := es.New(db).Query
	live := "Live"
	if _, err := q.AddTask(ctx, es.AddTaskParams{Name: "a", Phase: &live}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.SetPhase(ctx, es.SetPhaseParams{Name: "a", Phase: "Nope"}); err == nil {
		t.Fatal("a text naming no member was stored")
	}
	tasks, err := q.Tasks(ctx)
	if err != nil || len(tasks) != 1 || string(tasks[0].Phase) != "Live" {
		t.Fatalf("tasks: %+v %v", tasks, err)
	}
}
"""


def _write(files: Dict[str, str], root: Path, prefix: str) -> None:
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = root / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_str_values_of_enum_properties_through_the_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library(_sources(), Options(library="es"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"enumStr": True}


@pytest.mark.slow
def test_str_values_of_enum_properties_through_the_go_runner(pg, go_run, tmp_path):
    out = compile_library(_sources(), Options(library="es"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, mod / "es", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "es_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestEnumStr" in result.test.stdout
