"""The runner target options end to end on Postgres 15: schemas/jobs, plus the test-only types
and queries of tests/e2e/jobs_extra (int64 at the top level, optional, in arrays and inside
nested shapes; arrays, bytes, float32, an optional enum, links), compiled with
``ts_int64="bigint"`` and with ``go_driver="database/sql"``, type-checked (tsc --strict
--noUncheckedIndexedAccess; gofmt, go vet, Go 1.21) and run against the database."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Dict

import pytest

from libraries import GENERATED, SCHEMAS, jobs_with_extra_sources, library_sources
from schemac.semantics.library import Options
from schemac.pipeline import compile_library

HERE = Path(__file__).parent


def write(outputs: Dict[str, str], kind: str, dest: Path) -> None:
    """Write the ``kind/`` outputs (``ts``, ``go``) of a compile into ``dest``."""
    for rel, text in outputs.items():
        if rel.startswith(kind + "/"):
            path = dest / rel[len(kind) + 1:]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)


def compile_jobs_with_extra(pg, **options: str) -> Dict[str, str]:
    """Compile jobs + jobs_extra with ``options`` and create its schema in the test database."""
    outputs = compile_library(jobs_with_extra_sources(), Options(library="jobs", **options))
    pg.execute(outputs["sql/schema.sql"])
    return outputs


@pytest.mark.slow
def test_typescript_int64_as_bigint(pg, tsc_run, tmp_path):
    """int64 results are bigint, exact above 2^53, at every position; bigint and number
    parameters are accepted; a test double returning numbers or bigints decodes too; and
    node-postgres' global parsers still return int8 as text (tests/e2e/jobs_bigint_ts)."""
    outputs = compile_jobs_with_extra(pg, ts_int64="bigint")
    src = tmp_path / "src"
    write(outputs, "ts", src / "gen")
    shutil.copy(HERE / "jobs_bigint_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "jobs": True, "topLevel": True, "nested": True, "globalParsersUntouched": True}


@pytest.mark.slow
def test_typescript_jobs_program_runs_unchanged_with_bigint(pg, tsc_run, tmp_path):
    """The jobs program of the default runner (tests/e2e/jobs_ts) compiles and passes against
    the bigint runner unchanged: jobs returns no int64, and `max: 10` (a number) is accepted."""
    pg.execute((GENERATED / "jobs" / "sql" / "000001_init.up.sql").read_text())
    outputs = compile_library(library_sources(SCHEMAS / "jobs"), Options(library="jobs", ts_int64="bigint"))
    src = tmp_path / "src"
    shutil.copytree(HERE / "jobs_ts", src)
    write(outputs, "ts", src / "gen")
    result = tsc_run(src, "main.ts")
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out == {"twinAbsorbed": True, "strictError": "UqJobNameActorError", "reenqueuedWhileRunning": True,
                   "jsonRoundTrip": True, "queryableDoubles": True, "selectAndDelete": True,
                   "transactions": True, "concurrency": True, "bulk": True}


@pytest.mark.slow
def test_go_database_sql(pg, go_run, tmp_path):
    """The database/sql runner through pgx's stdlib driver, with the machine's Go and Go 1.21:
    the jobs behaviours (absorbed twin, typed unique violation wrapping *pgconn.PgError, at most
    one row as nil, nil, WithTx(*sql.Tx), bulk, 32 concurrent enqueues), sql.Null* values, arrays,
    bytes, json, nested shapes and typed check/foreign-key errors (tests/e2e/jobs_sql_go)."""
    outputs = compile_jobs_with_extra(pg, go_driver="database/sql")
    mod = tmp_path / "mod"
    write(outputs, "go", mod / "jobs")
    shutil.copytree(HERE / "jobs_sql_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    for name in ("TestJobsDatabaseSQL", "TestWorkersDatabaseSQL"):
        assert f"--- PASS: {name}" in result.test.stdout
        assert f"--- PASS: {name}" in result.steps["go121-test"].stdout
