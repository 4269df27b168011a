"""The write forms of tests/cases/query_dml end to end on Postgres 15, through the generated
runners: links set by any filter (an exclusive property, ``assert_single``), multi link changes
by any filter, ``{}`` assignments, upserts whose else update filters (TS ``null`` / Go ``nil``
when it fails), ``for`` loops over updates, deletes, selects and upserts, paths through multi
links in filters, nested inserts and with-bound inserts assigned to links, link properties set by inserts and updates,
get-or-insert links (``if exists m then m else (insert ...)``, ``found ?? (insert ...)``) read back by the
statement's own shape, paths from a with name bound to one object, a bulk insert bound in with and
selected in another's shape. The TypeScript compiles under tsc --strict and runs on node-postgres
(tests/e2e/query_dml_ts); the Go is gofmt/vet-clean and runs on pgx with the machine's Go and Go
1.21 (tests/e2e/query_dml_go)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "query_dml" / "expected"


@pytest.mark.slow
def test_typescript_query_dml(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "query_dml_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "linkByFilter": True, "optionalForRequired": True, "assertSingleAndEmpty": True, "multiLinkByFilter": True, "filteredUpsert": True,
        "withInLink": True, "forLoops": True, "multiLinkFilter": True, "writtenLinks": True, "linkProperties": True,
        "getOrInsert": True, "boundBulkInsert": True,
        "freeObjectWrites": True}


@pytest.mark.slow
def test_go_query_dml(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "querydml")
    shutil.copytree(HERE / "query_dml_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestQueryDml" in result.test.stdout
    assert "--- PASS: TestQueryDml" in result.steps["go121-test"].stdout
