"""Gel forms real schemas use that schemac once refused (tests/cases/gel_schema_forms) end to end on
Postgres 15, through the generated runners: std::datetime_of_statement() as a default, bigint and
decimal literals (https://docs.geldata.com/reference/edgeql/literals), a property's constraint of
the same kind as its custom scalar's, a single link set to (select T filter ... order by ... limit
1) (https://docs.geldata.com/reference/edgeql/select), re_replace()
(https://docs.geldata.com/reference/stdlib/string#function::std::re_replace). The TypeScript
compiles under tsc --strict and runs on node-postgres; the Go is gofmt/vet-clean and runs on pgx
with the machine's Go and Go 1.21."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "gel_schema_forms" / "expected"


@pytest.mark.slow
def test_typescript_schema_forms(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "gel_schema_forms_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"defaults": True, "limit_one": True,
                                                                 "functions": True, "coalesce": True}


@pytest.mark.slow
def test_go_schema_forms(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "gelschemaforms")
    shutil.copytree(HERE / "gel_schema_forms_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestSchemaForms" in result.test.stdout
    assert "--- PASS: TestSchemaForms" in result.steps["go121-test"].stdout
