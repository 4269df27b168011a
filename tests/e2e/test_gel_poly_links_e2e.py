"""Polymorphic links (tests/cases/gel_poly_links) end to end on Postgres 15, through the
generated runners: a sub-select of one subtype sets the link (the other subtype's id is refused
by its foreign key, a typed error), shapes read the common properties and ``[is T]`` fragments
(TS and Go result types), an update moves the link to another subtype, ``on target delete``
per subtype; queries on the abstract type (every subtype's objects, ``[is T]`` fragments, its
computeds, a backlink of an abstract type). The TypeScript compiles under tsc --strict and runs on node-postgres; the Go is
gofmt/vet-clean and runs on pgx with the machine's Go and Go 1.21."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "gel_poly_links" / "expected"


@pytest.mark.slow
def test_typescript_polymorphic_links(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "gel_poly_links_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"writes": True, "reads": True, "deletes": True,
                                                                 "nested": True, "abstract": True}


@pytest.mark.slow
def test_go_polymorphic_links(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "gelpolylinks")
    shutil.copytree(HERE / "gel_poly_links_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestPolymorphicLinks" in result.test.stdout
    assert "--- PASS: TestPolymorphicLinks" in result.steps["go121-test"].stdout
