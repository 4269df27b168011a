"""The shapes of tests/cases/gel_shapes end to end on Postgres 15, through the generated
runners: splats ``{*}`` / ``{**}``, computed shape elements (``n := count(.tags)``, a parameter,
a nested one), a splat with an element replacing its own, a property through a single link
(``.author.name``), and query files named in kebab-case
and camelCase. The TypeScript compiles under tsc --strict --noUncheckedIndexedAccess and runs on
node-postgres (tests/e2e/gel_shapes_ts); the Go is gofmt/vet-clean and runs on pgx with the
machine's Go and Go 1.21 (tests/e2e/gel_shapes_go)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "gel_shapes" / "expected"


@pytest.mark.slow
def test_typescript_gel_shapes(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "gel_shapes_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "splat": True, "doubleSplat": True, "computedElements": True, "splatOverride": True,
        "linkPath": True, "typePath": True, "bareLinks": True}


@pytest.mark.slow
def test_go_gel_shapes(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "gelshapes")
    shutil.copytree(HERE / "gel_shapes_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestGelShapes" in result.test.stdout
    assert "--- PASS: TestGelShapes" in result.steps["go121-test"].stdout
