"""The forms of tests/cases/function_calls end to end on Postgres 15, through the generated
runners: calls of user functions returning objects at the top of a query, inlined as the query
(https://docs.geldata.com/reference/datamodel/functions): ``select upsert_tag(name := ...).id``
(an upsert returning the same object twice), ``select new_post(...) { shape }`` (an insert, a
parameter's default), ``set of`` functions whose body is an update or a select with ``order by``
and ``limit``, and ``.p`` of an ``optional`` result (null when there is no object); ``count()`` of writes, in
a free object (each sees the database as it was before the statement, as in Gel), of a
``with``-bound delete and of an update. The
TypeScript compiles under tsc --strict and runs on node-postgres (tests/e2e/function_calls_ts);
the Go is gofmt/vet-clean and runs on pgx with the machine's Go and Go 1.21
(tests/e2e/function_calls_go)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "function_calls" / "expected"


@pytest.mark.slow
def test_typescript_function_calls(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "function_calls_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "upsert": True, "insert": True, "sets": True, "optional": True, "countedWrites": True}


@pytest.mark.slow
def test_go_function_calls(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "functioncalls")
    shutil.copytree(HERE / "function_calls_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestFunctionCalls" in result.test.stdout
    assert "--- PASS: TestFunctionCalls" in result.steps["go121-test"].stdout
