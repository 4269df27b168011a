"""Globals (tests/cases/globals) end to end on Postgres 15, through the generated runners:
values given per runner (TS ``createRunner(db, { globals })`` / ``withGlobals``, Go
``WithGlobals(Globals{...})``), bound as parameters of the queries that read them, defaults,
a computed object global (``global current_user := (select User filter .id = global
current_user_id)``) in a filter and as a link value, and the typed missing-global error raised
before anything is sent. The TypeScript compiles under tsc --strict and runs on node-postgres;
the Go is gofmt/vet-clean and runs on pgx with the machine's Go and Go 1.21."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "globals" / "expected"


@pytest.mark.slow
def test_typescript_globals(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "gel_globals_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "missingGlobal": True, "globalInInsert": True, "globalInFilter": True, "computedGlobal": True,
        "globalDefault": True, "update": True}


@pytest.mark.slow
def test_go_globals(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "globals")
    shutil.copytree(HERE / "gel_globals_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestGlobals" in result.test.stdout
    assert "--- PASS: TestGlobals" in result.steps["go121-test"].stdout
