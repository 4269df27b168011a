"""Golden end-to-end cases in the style of sqlc's: ``tests/cases/<case>/`` holds a schema and
queries, ``expected/`` the exact SQL/TS/Go the compiler must produce. Each case's migration is
applied to a real Postgres, its TypeScript compiled with ``tsc --strict`` and its Go checked
with gofmt and go vet.

A case may hold an ``options.json`` with compile options beyond the library name (e.g.
``{"ts_int64": "bigint", "go_driver": "database/sql"}``, see ``cases/runner_options``).

Refresh the expectations after an intended change with ``SCHEMAC_UPDATE_GOLDEN=1 tests/run -k
golden`` and review the diff like any other code change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Dict

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import compile_library

CASES = Path(__file__).resolve().parents[1] / "cases"
CASE_NAMES = sorted(p.name for p in CASES.iterdir() if (p / "schema.esdl").exists())


def case_outputs(name: str) -> Dict[str, str]:
    case = CASES / name
    sources = {}
    for f in sorted(case.glob("*.esdl")) + sorted(case.glob("queries/*.edgeql")):
        sources[f"cases/{name}/{f.relative_to(case).as_posix()}"] = f.read_text()
    options = json.loads((case / "options.json").read_text()) if (case / "options.json").exists() else {}
    return compile_library(sources, Options(library=name, **options))


@pytest.mark.parametrize("name", CASE_NAMES)
def test_golden_output(name):
    outputs = case_outputs(name)
    expected_dir = CASES / name / "expected"
    if os.environ.get("SCHEMAC_UPDATE_GOLDEN") == "1":
        for rel, text in outputs.items():
            p = expected_dir / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    expected = {p.relative_to(expected_dir).as_posix(): p.read_text()
                for p in sorted(expected_dir.rglob("*")) if p.is_file()}
    assert sorted(outputs) == sorted(expected)
    for rel in outputs:
        assert outputs[rel] == expected[rel], f"{name}/expected/{rel} differs (SCHEMAC_UPDATE_GOLDEN=1 to refresh)"


@pytest.mark.parametrize("name", CASE_NAMES)
def test_golden_migration_applies_and_reverts(name, pg):
    expected = CASES / name / "expected" / "sql"
    pg.execute((expected / "000001_init.up.sql").read_text())
    pg.execute((expected / "000001_init.down.sql").read_text())
    assert pg.execute("SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace") == [(0,)]


@pytest.mark.slow
@pytest.mark.parametrize("name", CASE_NAMES)
def test_golden_typescript_compiles_strict(name, tsc_run):
    tsc_run.compile(CASES / name / "expected" / "ts")


@pytest.mark.slow
@pytest.mark.parametrize("name", CASE_NAMES)
def test_golden_go_is_gofmt_and_vet_clean(name, go_run, tmp_path):
    import shutil

    shutil.copytree(CASES / name / "expected" / "go", tmp_path / name)
    go_run(tmp_path, test_args=("-count=1",))
