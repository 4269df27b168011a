"""The forms of tests/cases/query_sets end to end on Postgres 15, through the generated runners:
sets of objects of a query's ``with`` names and paths from them (``count``, ``sum``,
``array_agg`` of a str and of an enum property, ``exists``, ``x in s``, a paged selection's
order kept by ``array_agg``), ``any`` / ``all`` over paths through multi links and link
properties, ``select [distinct] S.p`` (the values, returned as a list), ``assert_exists`` of a value and of a free object's field (its failure with Gel's
message) (https://docs.geldata.com/reference/edgeql/with, .../edgeql/paths, .../stdlib/set).
The TypeScript compiles under tsc --strict --noUncheckedIndexedAccess and runs on
node-postgres (tests/e2e/query_sets_ts); the Go is gofmt/vet-clean and runs on pgx with the
machine's Go and Go 1.21 (tests/e2e/query_sets_go)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "query_sets" / "expected"


@pytest.mark.slow
def test_typescript_query_sets(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "query_sets_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "rollStats": True, "pagedOrder": True, "assertExists": True, "anyAll": True, "valueSets": True,
        "shadowed": True, "selectionsOfSelections": True}


@pytest.mark.slow
def test_go_query_sets(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "querysets")
    shutil.copytree(HERE / "query_sets_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestQuerySets" in result.test.stdout
    assert "--- PASS: TestQuerySets" in result.steps["go121-test"].stdout
