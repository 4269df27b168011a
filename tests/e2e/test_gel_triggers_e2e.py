"""Mutation rewrites, Gel triggers and deletion policies (tests/cases/gel_triggers) end to end
on Postgres 15, through the generated runners: the statements the TS runner (node-postgres) and
the Go runner (pgx) send get the rewritten values (insert and update rewrites, ``__old__``),
the triggers' log rows (after insert / update ``when`` / delete) and the deletion policies
(``on target delete delete source`` on a multi link, ``on source delete delete target [if
orphan]``), since all of them are Postgres triggers and foreign keys. The TypeScript compiles
under tsc --strict; the Go is gofmt/vet-clean and runs with the machine's Go and Go 1.21."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "gel_triggers" / "expected"


@pytest.mark.slow
def test_typescript_rewrites_triggers_and_deletion_policies(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "gel_triggers_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "rewrites": True, "triggers": True, "deletionPolicies": True, "globals": True}


@pytest.mark.slow
def test_go_rewrites_triggers_and_deletion_policies(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "geltriggers")
    shutil.copytree(HERE / "gel_triggers_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestRewritesTriggersAndDeletionPolicies" in result.test.stdout
    assert "--- PASS: TestRewritesTriggersAndDeletionPolicies" in result.steps["go121-test"].stdout
