"""The notes library (schemas/notes, a Gel 6 style default.gel: globals, computed properties, a
backlink, access policies) end to end on Postgres 15: its committed migration (generated/notes/
sql) is applied, and its committed TypeScript and Go runners (generated/notes/ts and go) run
against it: the signed-in user given as a global, notes filtered and writes skipped by the
policies, computed counts and backlinks. tsc --strict; gofmt, go vet, Go 1.21."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from libraries import GENERATED

HERE = Path(__file__).parent
LIB = GENERATED / "notes"


def _migrate_up(pg):
    """Every committed migration, in order."""
    for f in sorted((LIB / "sql").glob("*.up.sql")):
        pg.execute(f.read_text())


def test_notes_migration_applies_and_reverts(pg):
    _migrate_up(pg)
    for f in sorted((LIB / "sql").glob("*.down.sql"), reverse=True):
        pg.execute(f.read_text())
    assert pg.execute("SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace") == [(0,)]


@pytest.mark.slow
def test_typescript_notes(pg, tsc_run, tmp_path):
    _migrate_up(pg)
    src = tmp_path / "src"
    shutil.copytree(LIB / "ts", src / "gen")
    shutil.copy(HERE / "notes_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "globals": True, "policiesOnReads": True, "policiesOnWrites": True, "computeds": True}


@pytest.mark.slow
def test_go_notes(pg, go_run, tmp_path):
    _migrate_up(pg)
    mod = tmp_path / "mod"
    shutil.copytree(LIB / "go", mod / "notes")
    shutil.copytree(HERE / "notes_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestNotes" in result.test.stdout
    assert "--- PASS: TestNotes" in result.steps["go121-test"].stdout
