"""Valid Gel that schemac once refused with a wrong error code (tests/cases/gel_valid_forms) end to
end on Postgres 15, through the generated runners: set functions of sets of values
(https://docs.geldata.com/reference/stdlib/set), json and bytes ``++``, type aliases in ``with``
(https://docs.geldata.com/reference/edgeql/with), positional parameters
(https://docs.geldata.com/reference/edgeql/parameters), a multi property assigned from
``array_unpack(...)``, ``assert_distinct`` / ``assert_exists`` / ``assert_single`` failing with
Gel's errors (typed: CardinalityViolationError, DistinctViolationError) and messages. The TypeScript compiles under tsc
--strict and runs on node-postgres; the Go is gofmt/vet-clean and runs on pgx with the
machine's Go and Go 1.21."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "gel_valid_forms" / "expected"


@pytest.mark.slow
def test_typescript_valid_forms(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "gel_valid_forms_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"sets": True, "concat": True, "aliases": True,
                                                                 "positional": True, "multi": True, "asserts": True}


@pytest.mark.slow
def test_go_valid_forms(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "gelvalidforms")
    shutil.copytree(HERE / "gel_valid_forms_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestValidForms" in result.test.stdout
    assert "--- PASS: TestValidForms" in result.steps["go121-test"].stdout
