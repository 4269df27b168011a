"""Get-or-insert (tests/cases/get_or_insert) end to end on Postgres 15, through the generated
runners: ``insert User {...} unless conflict on .email else (select User)`` returns the existing
object without running its update rewrites or firing its update triggers
(https://docs.geldata.com/reference/edgeql/insert#upserts), also as a link's value; an update
later in the same transaction runs them as usual; and get-or-inserts waiting for a transaction
that holds the same new object uncommitted (READ COMMITTED) return its object when it commits,
while a plain ``unless conflict`` returns nothing. Node-postgres (tsc --strict) and pgx (gofmt,
vet, with the machine's Go and Go 1.21). The psycopg tests of the same are
tests/compiler/test_get_or_insert.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "get_or_insert" / "expected"


@pytest.mark.slow
def test_typescript_get_or_insert(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "get_or_insert_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"get": True, "concurrent": True}


@pytest.mark.slow
def test_go_get_or_insert(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "getorinsert")
    shutil.copytree(HERE / "get_or_insert_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestGetOrInsert" in result.test.stdout
    assert "--- PASS: TestGetOrInsert" in result.steps["go121-test"].stdout
