"""Self-tests: each fixture of tests/conftest.py works, and fails readably when it should."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
_SEEN_DATABASES: list = []


# --- Postgres ---------------------------------------------------------------------------------


def test_database_url_is_a_reachable_postgres(database_url):
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        (version,) = conn.execute("show server_version_num").fetchone()
    assert int(version) >= 150000


def test_pg_gives_a_fresh_database_with_a_table(pg):
    _SEEN_DATABASES.append(pg.name)
    assert pg.execute("select current_database()") == [(pg.name,)]
    assert pg.execute("select count(*) from pg_tables where schemaname = 'public'") == [(0,)]
    pg.execute("create table job (id serial primary key, name text not null)")
    pg.execute("insert into job (name) values (%s), (%s)", ("a", "b"))
    assert pg.execute("select name from job order by id") == [("a",), ("b",)]
    # autocommit: another connection sees the rows at once
    with pg.connect() as other:
        assert other.execute("select count(*) from job").fetchone() == (2,)
    assert str(pg) == pg.url and pg.url.startswith("postgresql://")


def test_pg_databases_are_dropped_and_unique(pg, _pg_admin):
    assert pg.name not in _SEEN_DATABASES
    rows = _pg_admin.execute("select datname from pg_database").fetchall()
    names = {r[0] for r in rows}
    assert pg.name in names
    for earlier in _SEEN_DATABASES:  # dropped at the end of their test
        assert earlier not in names


def test_pg_url_and_pg_conn_shortcuts(pg, pg_url, pg_conn):
    assert pg_url == pg.url
    assert pg_conn is pg.conn and pg_conn.autocommit
    assert pg_conn.execute("select 1").fetchone() == (1,)


def test_url_with_dbname_converts_keyword_conninfo(tsc_run):
    import sys

    url_with_dbname = sys.modules[type(tsc_run).__module__].url_with_dbname  # tests/conftest.py

    assert url_with_dbname("postgresql://u@127.0.0.1:5/postgres?sslmode=disable", "x") == (
        "postgresql://u@127.0.0.1:5/x?sslmode=disable"
    )
    assert url_with_dbname("host=127.0.0.1 port=5 user=u dbname=postgres", "t_1") == (
        "postgresql://u@127.0.0.1:5/t_1"
    )
    assert url_with_dbname("host=/tmp/s user=u", "d") == "postgresql://u@/d?host=%2Ftmp%2Fs"


# --- TypeScript -------------------------------------------------------------------------------


@pytest.mark.slow
def test_tsc_run_compiles_and_runs_against_pg(tsc_run, pg):
    result = tsc_run(DATA / "ts_select1", "main.ts", args=["x"])
    out = json.loads(result.stdout)
    assert out == {"one": 1, "database": pg.name, "args": ["x"]}


@pytest.mark.slow
def test_tsc_run_commonjs(tsc_run, tmp_path, database_url):
    (tmp_path / "main.ts").write_text(
        textwrap.dedent(
            """\
            import { Client } from "pg";
            async function main(): Promise<void> {
              const c = new Client({ connectionString: process.env["DATABASE_URL"] });
              await c.connect();
              const r = await c.query<{ n: string }>("select 1::int8 as n");
              console.log(r.rows[0]?.n);
              await c.end();
            }
            main().catch((e: unknown) => { console.error(e); process.exit(1); });
            """
        )
    )
    assert tsc_run(tmp_path, module="commonjs").stdout.strip() == "1"  # int8 arrives as a string


@pytest.mark.slow
def test_tsc_run_reports_type_errors_readably(tsc_run, tmp_path):
    (tmp_path / "main.ts").write_text(
        "const xs: number[] = [1];\nconst x: number = xs[0];\nconsole.log(x);\n"
    )
    with pytest.raises(pytest.fail.Exception) as info:
        tsc_run(tmp_path)
    message = str(info.value)
    assert "tsc (TypeScript compile) failed" in message
    # noUncheckedIndexedAccess makes xs[0] `number | undefined`
    assert "main.ts(2,7): error TS2322" in message
    failed = tsc_run.compile(tmp_path, check=False)
    assert not failed.ok and "TS2322" in failed.result.stdout


@pytest.mark.slow
def test_tsc_run_reports_runtime_errors_readably(tsc_run, tmp_path):
    (tmp_path / "main.ts").write_text('console.log("before");\nthrow new Error("boom");\n')
    with pytest.raises(pytest.fail.Exception) as info:
        tsc_run(tmp_path)
    message = str(info.value)
    assert "node main.ts failed with exit status 1" in message
    assert "before" in message and "Error: boom" in message and "main.ts:2" in message


# --- Go ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_go_run_builds_vets_and_tests_with_pgx(go_run, pg):
    result = go_run(DATA / "go_select1", test_args=["-count=1", "-v"])
    assert result.ok, result.failed
    assert list(result.steps) == ["gofmt", "vet", "test", "go121-build", "go121-vet"]
    assert "--- PASS: TestSelectOne" in result.test.stdout
    assert f"database={pg.name}" in result.test.stdout


@pytest.mark.slow
def test_go_run_subpackage_and_go121_test(go_run, tmp_path):
    shutil.copytree(DATA / "go_select1", tmp_path / "select1")
    (tmp_path / "main.go").write_text(
        textwrap.dedent(
            """\
            package main

            import (
            \t"fmt"

            \t"schemactest/select1"
            )

            var _ select1.DBTX

            func main() { fmt.Println("ok") }
            """
        )
    )
    result = go_run(tmp_path, go121_test=True)
    assert result.ok and "go121-test" in result.steps
    assert "ok  \tschemactest/select1" in result.steps["go121-test"].stdout


@pytest.mark.slow
def test_go_run_requires_gofmt(go_run, tmp_path):
    (tmp_path / "x.go").write_text("package x\nfunc  F() int { return 1 }\n")
    with pytest.raises(pytest.fail.Exception) as info:
        go_run(tmp_path)
    assert "gofmt -l lists unformatted files" in str(info.value) and "x.go" in str(info.value)
    result = go_run(tmp_path, check=False)
    assert result.failed == "gofmt" and list(result.steps) == ["gofmt"]


@pytest.mark.slow
def test_go_run_reports_compile_errors(go_run, tmp_path):
    (tmp_path / "x.go").write_text("package x\n\nfunc F() int { return \"s\" }\n")
    with pytest.raises(pytest.fail.Exception) as info:
        go_run(tmp_path)
    assert "vet failed" in str(info.value) and "x.go:3" in str(info.value)


@pytest.mark.slow
def test_go121_is_go_1_21():
    go121 = os.environ.get("SCHEMAC_GO121")
    if not go121:
        pytest.skip("SCHEMAC_GO121 not set")
    import subprocess

    out = subprocess.run([go121, "version"], capture_output=True, text=True, check=True).stdout
    assert " go1.21" in out


# --- Python side: the compiler package and Pants' test utilities ----------------------------


def test_schemac_is_importable():
    import schemac

    assert Path(schemac.__file__).resolve().parent.parent.name == "pants-plugins"


@pytest.mark.slow
def test_pants_rule_runner_works():
    from pants.engine.fs import DigestContents, PathGlobs
    from pants.testutil.rule_runner import QueryRule, RuleRunner

    rule_runner = RuleRunner(rules=[QueryRule(DigestContents, [PathGlobs])])
    rule_runner.write_files({"a/x.txt": "hello"})
    contents = rule_runner.request(DigestContents, [PathGlobs(["a/*.txt"])])
    assert [(c.path, c.content) for c in contents] == [("a/x.txt", b"hello")]
