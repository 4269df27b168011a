"""The query forms of tests/cases/query_forms end to end on Postgres 15, through the generated
runners: ``with`` blocks (a value bound once, a bound insert/update selected with a nested
shape), ``json_array_unpack`` bulk inserts (1,000 rows in one statement, duplicates skipped,
typed errors), ``+=``/``-=``/``:=`` on a multi link in an update, link properties in shapes and
partial updates (``p := $p ?? .p``; TS ``p?: T | null``, Go ``nil``). The TypeScript compiles
under tsc --strict --noUncheckedIndexedAccess and runs on node-postgres
(tests/e2e/query_forms_ts); the Go is gofmt/vet-clean and runs on pgx with the machine's Go and
Go 1.21 (tests/e2e/query_forms_go)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "query_forms" / "expected"


@pytest.mark.slow
def test_typescript_query_forms(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "query_forms_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "withValues": True, "withStatements": True, "multiLinkUpdates": True, "linkProperties": True,
        "partialUpdate": True, "jsonBulk": True}


@pytest.mark.slow
def test_go_query_forms(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "queryforms")
    shutil.copytree(HERE / "query_forms_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestQueryForms" in result.test.stdout
    assert "--- PASS: TestQueryForms" in result.steps["go121-test"].stdout
