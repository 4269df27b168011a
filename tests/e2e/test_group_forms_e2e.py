"""Gel's group statement (https://docs.geldata.com/reference/edgeql/group), tests/cases/group_forms,
end to end on Postgres 15 through the generated runners: ``group T { shape } by .prop`` (empty
key values form a group of their own), ``by .link`` (the key is the object, ``{ id }``),
``using name := expr`` keys over a ``with`` selection, and a select over the groups of a
``with`` binding (``key: { a }``, ``grouping``, computed fields ``count(.elements)`` /
``max(.elements.p)``, a filter on them, ``elements: { ... } order by ...``), and ``detached T``
in a select of ``T`` (https://docs.geldata.com/reference/edgeql/paths#detached) and a backlink's
property in a filter, and a ``for`` loop whose body binds an insert and selects its objects
(``with it := (insert ...) select it { ... }``)
(``.<owner[is Item].kind = $k``). The TypeScript
compiles under tsc --strict --noUncheckedIndexedAccess and runs on node-postgres
(tests/e2e/group_forms_ts); the Go is gofmt/vet-clean and runs on pgx with the machine's Go and
Go 1.21 (tests/e2e/group_forms_go)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "group_forms" / "expected"


@pytest.mark.slow
def test_typescript_group_forms(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "group_forms_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "byProperty": True, "byLink": True, "using": True, "selectOverGroups": True,
        "detached": True, "backlinkFilter": True,
        "forInsertSelect": True, "groupList": True,
        "boundGroupList": True}


@pytest.mark.slow
def test_go_group_forms(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "groupforms")
    shutil.copytree(HERE / "group_forms_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestGroupForms" in result.test.stdout
    assert "--- PASS: TestGroupForms" in result.steps["go121-test"].stdout
