"""Access policies (tests/cases/policies) end to end on Postgres 15, through the generated
runners: select policies filter every read (the queried type, nested backlinks, counts), update
read and delete policies skip objects silently, insert and update write policies make a
statement fail with a typed access policy error (TS ``AccessPolicyError``, Go
``*AccessPolicyError`` / ``ErrAccessPolicy``) carrying the policy's errmessage, and nothing is
written. The TypeScript compiles under tsc --strict and runs on node-postgres; the Go is
gofmt/vet-clean and runs on pgx with the machine's Go and Go 1.21."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "policies" / "expected"


@pytest.mark.slow
def test_typescript_policies(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "gel_policies_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "insertChecks": True, "selectFilters": True, "updateChecks": True, "deletesAndDeny": True,
        "pathsToObjects": True}


@pytest.mark.slow
def test_go_policies(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "policies")
    shutil.copytree(HERE / "gel_policies_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestPolicies" in result.test.stdout
    assert "--- PASS: TestPolicies" in result.steps["go121-test"].stdout


@pytest.mark.slow
def test_go_database_sql_globals_and_policies(pg, go_run, tmp_path):
    """The same case compiled with go_driver="database/sql": globals and access policy errors
    through *sql.DB and pgx's stdlib driver."""
    from schemac.semantics.library import Options
    from schemac.pipeline import compile_library

    case = CASE.parent
    sources = {f"cases/policies/{f.relative_to(case).as_posix()}": f.read_text()
               for f in sorted(case.glob("*.esdl")) + sorted(case.glob("queries/*.edgeql"))}
    outputs = compile_library(sources, Options(library="policies", go_driver="database/sql"))
    pg.execute(outputs["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    for rel, text in outputs.items():
        if rel.startswith("go/"):
            target = mod / "policies" / rel[3:]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    shutil.copytree(HERE / "gel_policies_sql_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestPoliciesDatabaseSQL" in result.test.stdout
    assert "--- PASS: TestPoliciesDatabaseSQL" in result.steps["go121-test"].stdout
