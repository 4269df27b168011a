"""The link values and writes of tests/cases/query_links end to end on Postgres 15, through the
generated runners: links assigned with-bound selections (``author := p``, ``tags += p``),
``assert_exists`` / ``assert_single`` of them (cardinality_violation, SQLSTATE 21000, when they
fail) and ``-= (select .link filter ...)``; polymorphic multi links written through with names;
inserts and updates bound in ``with``, selected with a nested shape, and upserts on types with
access policies (the insert or update check of each written object, a typed access policy error
and nothing written when it fails; a conflicting object the update policies hide is left alone).
The TypeScript compiles under tsc --strict and runs on node-postgres (tests/e2e/query_links_ts);
the Go is gofmt/vet-clean and runs on pgx with the machine's Go and Go 1.21
(tests/e2e/query_links_go)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "query_links" / "expected"


@pytest.mark.slow
def test_typescript_query_links(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "query_links_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "upserts": True, "boundUpdate": True, "boundInserts": True, "polymorphicLinks": True,
        "assertExistsAndSubsets": True, "assertSingle": True, "newLinks": True,
        "boundWriteValues": True}


@pytest.mark.slow
def test_go_query_links(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "querylinks")
    shutil.copytree(HERE / "query_links_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestQueryLinks" in result.test.stdout
    assert "--- PASS: TestQueryLinks" in result.steps["go121-test"].stdout
