"""Computed properties and links, backlinks (tests/cases/computeds) end to end on Postgres 15,
through the generated runners: computeds selected (top level and in nested shapes), filtered
and ordered on, backlinks through single and multi links, a computed link by sub-select, and a
computed reading a global. The TypeScript compiles under tsc --strict and runs on
node-postgres; the Go is gofmt/vet-clean and runs on pgx with the machine's Go and Go 1.21."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "computeds" / "expected"


@pytest.mark.slow
def test_typescript_computeds(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "gel_computeds_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "computedProperties": True, "backlinks": True, "filterAndOrder": True, "nestedComputeds": True,
        "computedReadsGlobal": True}


@pytest.mark.slow
def test_go_computeds(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "computeds")
    shutil.copytree(HERE / "gel_computeds_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestComputeds" in result.test.stdout
    assert "--- PASS: TestComputeds" in result.steps["go121-test"].stdout
