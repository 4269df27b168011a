"""Gel schema forms of tests/cases/sdl_forms end to end on Postgres 15, through the generated
runners: exclusive constraints on expressions (``on (true)`` delegated to each subtype, ``on
((.realm, str_lower(.name)))``, ``on (.code_lc)`` through a computed) raise their typed errors
on insert and update, and a bare ``unless conflict`` absorbs them; a computed set of values
through a multi link (``topic_names := .topics.name``) selected as a list, counted, tested with
``in`` and ``exists``; an update and a delete of a ``with``-bound selection; an insert nested in an update of one
object (none when it matches no object). The TypeScript compiles under
tsc --strict and runs on node-postgres (tests/e2e/sdl_forms_ts); the Go is gofmt/vet-clean and
runs on pgx with the machine's Go and Go 1.21 (tests/e2e/sdl_forms_go)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "sdl_forms" / "expected"


@pytest.mark.slow
def test_typescript_sdl_forms(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "sdl_forms_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "singleton": True, "tupleWithExpression": True, "computedKey": True, "withSelectionWrites": True,
        "valueSet": True, "nestedInsertInUpdate": True}


@pytest.mark.slow
def test_go_sdl_forms(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "sdlforms")
    shutil.copytree(HERE / "sdl_forms_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestSdlForms" in result.test.stdout
    assert "--- PASS: TestSdlForms" in result.steps["go121-test"].stdout
