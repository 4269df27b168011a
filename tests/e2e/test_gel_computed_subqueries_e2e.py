"""Computeds and computed globals holding sub-queries (tests/cases/computed_subqueries) end to
end on Postgres 15, through the generated runners: filtered backlinks and links, min / max /
sum over a set of objects (empty and 0 without any), exists of a sub-select, max of a set
literal, a sub-select reading its object by type name (``Post.editor_handle``), a computed
global with a shape, bound from the runner's globals, computed links made of paths through
links (distinct objects) and unions (duplicates kept), ``[is T]`` on a polymorphic link, and
``re_match_all`` counted in a ``with`` block. The TypeScript compiles under tsc
--strict and runs on node-postgres; the Go is gofmt/vet-clean and runs on pgx with the
machine's Go and Go 1.21."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "computed_subqueries" / "expected"


@pytest.mark.slow
def test_typescript_computed_subqueries(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "gel_computed_subqueries_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "filteredLinks": True, "aggregates": True, "emptySets": True, "filterOnAggregate": True,
        "computedGlobal": True, "typeNamePath": True, "pathsAndUnions": True, "withRegexMatches": True}


@pytest.mark.slow
def test_go_computed_subqueries(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "computedsubqueries")
    shutil.copytree(HERE / "gel_computed_subqueries_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestComputedSubqueries" in result.test.stdout
    assert "--- PASS: TestComputedSubqueries" in result.steps["go121-test"].stdout
