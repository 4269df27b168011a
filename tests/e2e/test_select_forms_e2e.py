"""The select forms of tests/cases/select_forms end to end on Postgres 15, through the generated
runners: selects of a single value (``select 1``, ``select count(User)``, ``select <str>$x``,
``select <optional str>$x``, ``select <str>{}``, ``select exists (select ...)``), returned as
the value itself, free objects (``select { a := ..., b := ... }``), returned as one row,
``with u := (select User filter ...) select u { ... }``, ``with module``, nested shapes with
``filter`` / ``order by`` / ``limit``, and free objects holding objects (``users := (select User
{ name } filter ...)``), ``x in array_unpack(...)``, ``json_get``, ``assert_single`` /
``assert_exists`` (several rows fail with SQLSTATE 21000; none, a query of one row), standard
library functions (str_*, find, math::abs, datetime_get / datetime_truncate in UTC, uuid_generate_v4; and
str_trim with characters, contains, str_split, re_match, to_str, round of a float tie, min of a set,
sum and math::mean of an empty value, to_datetime, cal::to_local_date, to_json, json_typeof,
json_get with a default, uuid_generate_v1mc, ?= / ?!=, len, if ... else: query std_more; assert_distinct
of a selection; sets of values, select [distinct] {a, b} union array_unpack(...)), and ``select global current_user { ... }`` (https://docs.geldata.com/reference/edgeql/select). The TypeScript compiles under tsc --strict
--noUncheckedIndexedAccess and runs on node-postgres (tests/e2e/select_forms_ts); the Go is
gofmt/vet-clean and runs on pgx with the machine's Go and Go 1.21 (tests/e2e/select_forms_go)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "select_forms" / "expected"


@pytest.mark.slow
def test_typescript_select_forms(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "select_forms_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "counts": True, "values": True, "exists": True, "freeObjects": True, "withSelections": True,
        "nestedClauses": True, "objectFields": True, "functions": True,
        "asserts": True, "stdFunctions": True, "moreStdFunctions": True, "valueSets": True,
        "globalObject": True}


@pytest.mark.slow
def test_go_select_forms(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "selectforms")
    shutil.copytree(HERE / "select_forms_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestSelectForms" in result.test.stdout
    assert "--- PASS: TestSelectForms" in result.steps["go121-test"].stdout
