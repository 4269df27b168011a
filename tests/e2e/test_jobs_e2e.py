"""The job queue of the design note (../shared/seed/), end to end on a real Postgres 15:
the generated migration, the SQL semantics it promises, and the generated TypeScript and Go
runners compiled (tsc --strict, gofmt/go vet/go test, Go 1.21) and run against the database."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import psycopg
import pytest

from libraries import GENERATED, SCHEMAS, library_sources, run_plan
from schemac.semantics.library import Options
from schemac.pipeline import check_library

HERE = Path(__file__).parent
JOBS = GENERATED / "jobs"


def migrate_up(pg) -> None:
    pg.execute((JOBS / "sql" / "000001_init.up.sql").read_text())


def plans():
    lib = check_library(library_sources(SCHEMAS / "jobs"), Options(library="jobs"))
    return {q.name: q for q in lib.queries}


def to_psycopg(sql: str) -> str:
    """``$n`` placeholders -> psycopg's ``%s``; only for SQL whose ``$n`` appear in order."""
    import re

    found = [int(n) for n in re.findall(r"\$(\d+)", sql)]
    assert found == sorted(found), "parameters out of order"
    return re.sub(r"\$\d+", "%s", sql)


def test_migration_creates_the_partial_unique_index_verbatim(pg):
    up = (JOBS / "sql" / "000001_init.up.sql").read_text()
    assert (
        'CREATE UNIQUE INDEX IF NOT EXISTS "uq_job_name_actor"\n'
        '  ON "job" ("name", "actor")\n'
        "  WHERE (status = 'Pending');"
    ) in up
    migrate_up(pg)
    (indexdef,) = pg.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'uq_job_name_actor'")[0]
    assert indexdef == (
        "CREATE UNIQUE INDEX uq_job_name_actor ON public.job USING btree (name, actor) "
        "WHERE (status = 'Pending'::text)"
    )
    cols = pg.execute(
        "SELECT column_name, data_type, is_nullable, column_default FROM information_schema.columns "
        "WHERE table_name = 'job' ORDER BY ordinal_position"
    )
    assert cols == [
        ("id", "uuid", "NO", "gen_random_uuid()"),
        ("name", "text", "NO", None),
        ("actor", "text", "NO", None),
        ("payload", "jsonb", "YES", None),
        ("status", "text", "YES", "'Pending'::text"),
        ("claimed_at", "timestamp with time zone", "YES", None),
        ("processed_at", "timestamp with time zone", "YES", None),
    ]


def test_second_pending_twin_is_refused_with_23505_on_uq_job_name_actor(pg):
    migrate_up(pg)
    pg.execute("INSERT INTO job (name, actor) VALUES ('email', 'u1')")
    with pytest.raises(psycopg.errors.UniqueViolation) as exc:
        pg.execute("INSERT INTO job (name, actor) VALUES ('email', 'u1')")
    assert exc.value.sqlstate == "23505"
    assert exc.value.diag.constraint_name == "uq_job_name_actor"


def test_enum_check_refuses_unknown_status(pg):
    migrate_up(pg)
    with pytest.raises(psycopg.errors.CheckViolation) as exc:
        pg.execute("INSERT INTO job (name, actor, status) VALUES ('a', 'b', 'Done')")
    assert exc.value.diag.constraint_name == "ck_job_status_enum"


@pytest.mark.parametrize("status", ["Running", "Failed", "Processed"])
def test_non_pending_twins_are_unconstrained(pg, status):
    migrate_up(pg)
    for _ in range(3):
        pg.execute("INSERT INTO job (name, actor, status) VALUES ('email', 'u1', %s)", (status,))
    pg.execute("INSERT INTO job (name, actor) VALUES ('email', 'u1')")  # one Pending beside them
    assert pg.execute("SELECT count(*) FROM job") == [(4,)]


def test_compiled_queries_absorb_twin_and_claim_frees_the_key(pg):
    migrate_up(pg)
    q = plans()
    enqueue, strict, claim = q["enqueue_job"], q["enqueue_job_strict"], q["claim_job"]
    assert "ON CONFLICT (\"name\", \"actor\") WHERE (status = 'Pending') DO NOTHING" in enqueue.sql
    assert enqueue.cardinality == "at_most_one" and strict.cardinality == "one"
    assert claim.cardinality == "at_most_one"
    assert [p.name for p in enqueue.params] == ["name", "actor", "payload"]
    assert [p.optional for p in enqueue.params] == [False, False, True]

    (first,) = pg.execute(to_psycopg(enqueue.sql), ("email", "u1", '{"a": 1}'))
    assert pg.execute(to_psycopg(enqueue.sql), ("email", "u1", None)) == []  # absorbed, no error
    assert pg.execute("SELECT count(*) FROM job WHERE status = 'Pending'") == [(1,)]
    with pytest.raises(psycopg.errors.UniqueViolation):
        pg.execute(to_psycopg(strict.sql), ("email", "u1", None))

    assert pg.execute(to_psycopg(claim.sql), (first[0],)) == [first]
    status, claimed_at = pg.execute("SELECT status, claimed_at FROM job WHERE id = %s", (first[0],))[0]
    assert status == "Running" and claimed_at is not None
    (second,) = pg.execute(to_psycopg(enqueue.sql), ("email", "u1", None))  # key free while running
    assert second != first
    assert pg.execute(to_psycopg(claim.sql), ("00000000-0000-0000-0000-000000000000",)) == []


def test_upsert_refreshes_the_pending_twin_through_the_partial_arbiter(pg):
    migrate_up(pg)
    upsert = plans()["upsert_job"]
    assert upsert.cardinality == "one"
    assert "ON CONFLICT (\"name\", \"actor\") WHERE (status = 'Pending') DO UPDATE" in upsert.sql
    (first,) = run_plan(pg, upsert, "email", "u1", '{"v": 1}')
    (again,) = run_plan(pg, upsert, "email", "u1", '{"v": 2}')
    assert again == first  # the same row, its payload refreshed
    assert pg.execute("SELECT payload FROM job") == [({"v": 2},)]
    pg.execute("UPDATE job SET status = 'Running' WHERE id = %s", first)
    (third,) = run_plan(pg, upsert, "email", "u1", '{"v": 3}')
    assert third != first  # a Running twin is outside the partial index: a new row


def test_bulk_enqueue_is_one_statement_and_skips_duplicates(pg):
    migrate_up(pg)
    bulk = plans()["enqueue_jobs"]
    assert bulk.cardinality == "many" and "unnest($1::text[])" in bulk.sql
    names = [f"job-{i}" for i in range(1000)]
    rows = run_plan(pg, bulk, names + ["job-1", "job-2"], "w")  # two repeats inside the batch
    assert len(rows) == 1000
    assert pg.execute("SELECT count(*) FROM job WHERE status = 'Pending'") == [(1000,)]
    assert run_plan(pg, bulk, ["job-5", "new"], "w") == [pg.execute("SELECT id FROM job WHERE name = 'new'")[0]]


def test_bulk_upsert_with_a_repeated_key_fails_whole(pg):
    """Postgres cannot update one row twice in one statement (SQLSTATE 21000): a bulk upsert
    whose batch repeats a key fails as a whole and inserts nothing."""
    migrate_up(pg)
    body = ("for name in array_unpack(<array<str>>$names) union (insert Job { name := name, actor := 'w' } "
            "unless conflict on (.name, .actor) else (update Job set { payload := <json>'{}' }))")
    lib = check_library({**library_sources(SCHEMAS / "jobs"), "schemas/jobs/queries/bulk_upsert.edgeql": body},
                        Options(library="jobs"))
    plan = next(q for q in lib.queries if q.name == "bulk_upsert")
    assert len(run_plan(pg, plan, ["a", "b"])) == 2
    with pytest.raises(psycopg.errors.CardinalityViolation) as exc:
        run_plan(pg, plan, ["c", "c"])
    assert exc.value.sqlstate == "21000"
    assert pg.execute("SELECT name FROM job ORDER BY name") == [("a",), ("b",)]


def test_down_migration_reverses_up(pg):
    before = pg.execute("SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace")
    migrate_up(pg)
    pg.execute((JOBS / "sql" / "000001_init.down.sql").read_text())
    assert pg.execute("SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace") == before
    migrate_up(pg)  # and up again


@pytest.mark.slow
def test_typescript_runner_end_to_end(pg, tsc_run, tmp_path):
    migrate_up(pg)
    src = tmp_path / "src"
    shutil.copytree(HERE / "jobs_ts", src)
    shutil.copytree(JOBS / "ts", src / "gen")
    result = tsc_run(src, "main.ts")
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out == {"twinAbsorbed": True, "strictError": "UqJobNameActorError", "reenqueuedWhileRunning": True,
                   "jsonRoundTrip": True, "queryableDoubles": True, "selectAndDelete": True,
                   "transactions": True, "concurrency": True, "bulk": True}


@pytest.mark.slow
def test_typescript_runner_compiles_as_commonjs(tsc_run, tmp_path):
    lib_dir = SCHEMAS / "jobs"
    from schemac.pipeline import compile_library

    outputs = compile_library(library_sources(lib_dir), Options(library="jobs", ts_module="commonjs"))
    src = tmp_path / "src"
    for rel, text in outputs.items():
        if rel.startswith("ts/"):
            (src / rel[3:]).parent.mkdir(parents=True, exist_ok=True)
            (src / rel[3:]).write_text(text)
    assert 'from "./queries";' in (src / "index.ts").read_text()
    build = tsc_run.compile(src, module="commonjs",
                            compiler_options={"module": "CommonJS", "moduleResolution": "Node10"})
    assert build.ok


@pytest.mark.slow
def test_go_runner_end_to_end(pg, go_run, tmp_path):
    migrate_up(pg)
    mod = tmp_path / "mod"
    shutil.copytree(JOBS / "go", mod / "jobs")
    shutil.copytree(HERE / "jobs_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestJobs" in result.test.stdout
    assert "--- PASS: TestJobs" in result.steps["go121-test"].stdout

