"""The runner target options, `ts_int64` (`string` | `bigint`) and `go_driver` (`pgx` |
`database/sql`): their plumbing through the compiler's Options and CLI, and the exact extent
of what each changes. The defaults leave every output byte-identical (generated/ and the
golden cases check that too); each option changes only its own language. The golden case
tests/cases/runner_options holds the full output of both; tests/e2e/test_runner_options_e2e.py
runs it against Postgres."""

from __future__ import annotations

import difflib
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest

from libraries import GENERATED, REPO_ROOT, SCHEMAS, jobs_with_extra_sources, library_sources
from schemac.pipeline import GO_DRIVERS, TS_INT64_MODES, compile_library
from schemac.semantics.library import Options
from schemac.diagnostics import CompileError

BIGINT = Options(library="jobs", ts_int64="bigint")
DATABASE_SQL = Options(library="jobs", go_driver="database/sql")


def jobs(options: Options = Options(library="jobs")) -> Dict[str, str]:
    return compile_library(library_sources(SCHEMAS / "jobs"), options)


def of(outputs: Dict[str, str], kind: str) -> Dict[str, str]:
    return {k: v for k, v in outputs.items() if k.startswith(kind + "/")}


def changed_lines(a: str, b: str):
    diff = list(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm="", n=0))
    return ([l[1:] for l in diff if l.startswith("-") and not l.startswith("---")],
            [l[1:] for l in diff if l.startswith("+") and not l.startswith("+++")])


def test_explicit_defaults_are_the_committed_output():
    committed = {k[len("jobs/"):]: v for k, v in
                 ((p.relative_to(GENERATED).as_posix(), p.read_text()) for p in (GENERATED / "jobs").rglob("*")
                  if p.is_file())}
    assert jobs(Options(library="jobs", ts_int64="string", go_driver="pgx")) == committed
    assert Options(library="jobs").ts_int64 == "string" and Options(library="jobs").go_driver == "pgx"


def test_each_option_changes_only_its_own_language():
    default, bigint, database_sql = jobs(), jobs(BIGINT), jobs(DATABASE_SQL)
    for kind in ("sql", "go"):
        assert of(bigint, kind) == of(default, kind)
    assert of(bigint, "ts") != of(default, "ts")
    for kind in ("sql", "ts"):
        assert of(database_sql, kind) == of(default, kind)
    assert of(database_sql, "go") != of(default, "go")
    assert database_sql["go/errors.go"] == default["go/errors.go"]  # typed errors are driver-independent


def test_bigint_changes_jobs_only_where_int64_is():
    """jobs has no int64 result, so the only change is the type of list_pending_jobs' `max`."""
    default, bigint = jobs(), jobs(BIGINT)
    assert [k for k in default if default[k] != bigint[k]] == ["ts/queries.ts"]
    assert changed_lines(default["ts/queries.ts"], bigint["ts/queries.ts"]) == (
        ["  readonly max: number | string | bigint;"], ["  readonly max: bigint | number;"])


def test_bigint_decodes_exactly_the_queries_with_int64_results():
    sources = jobs_with_extra_sources()
    ts = compile_library(sources, Options(library="jobs", ts_int64="bigint"))["ts/queries.ts"]
    decoders = {line.split("(")[0].split()[-1] for line in ts.splitlines() if line.startswith("function decode")}
    assert decoders == {"decodeObject", "decodeList", "decodeBumpWorkerRow", "decodeGetWorkerRow",
                        "decodeListTeamsRow", "decodeWorkersOverQuotaRow"}
    assert "return rows.map(decodeListTeamsRow);" in ts
    assert "  return row === undefined ? null : decodeGetWorkerRow(row);" in ts
    assert ('    lead: decodeObject(row["lead"], (o1) => ({\n      ...o1,\n      processed: int64(o1["processed"]),\n'
            '      quota: int64OrNull(o1["quota"]),\n    })),\n') in ts
    assert "    recent: int64ArrayOrNull(row[\"recent\"]),\n" in ts
    # Queries without int64 results return rows as they come; the global pg parsers are not touched.
    assert "  return (rows[0] as ClaimJobResult | undefined) ?? null;" in ts
    assert "setTypeParser" not in ts and "from \"pg\"" not in ts
    default = compile_library(sources, Options(library="jobs"))["ts/queries.ts"]
    assert "function int64" not in default and "  processed: string;" in default


def test_database_sql_api():
    go = jobs(DATABASE_SQL)
    db, queries, models = go["go/db.go"], go["go/queries.go"], go["go/models.go"]
    for fragment in (
        "\tExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)\n",
        "\tQueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)\n",
        "\tQueryRowContext(ctx context.Context, query string, args ...any) *sql.Row\n",
        "func (r *Runner) WithTx(tx *sql.Tx) *Runner {\n",
        "github.com/jackc/pgx/v5/stdlib",
    ):
        assert fragment in db, fragment
    for fragment in (
        "\t\tif errors.Is(err, sql.ErrNoRows) {\n\t\t\treturn nil, nil\n",
        "\tStatus      NullQueueStatus `json:\"status\"`\n\tClaimedAt   sql.NullTime    `json:\"claimed_at\"`\n"
        "\tProcessedAt sql.NullTime    `json:\"processed_at\"`\n",
        "rows.Scan(&i.ID, &i.Name, &i.Actor, pgScan(pgtype.JSONBOID, &i.Payload), &i.Status)",
        "\tPayload json.RawMessage\n",  # nil is NULL, as with pgx
        "UpsertJob. Optional: Payload (the zero value stores NULL,\n// or the property's default in an insert).",
    ):
        assert fragment in queries, fragment
    assert "type NullQueueStatus struct {\n\tQueueStatus QueueStatus\n\tValid       bool\n}" in models
    for text in go.values():
        assert '"github.com/jackc/pgx/v5"' not in text  # only pgtype (decoding) and pgconn (errors)
    pgx = jobs()["go/queries.go"]
    assert "\tStatus      *QueueStatus `json:\"status\"`\n\tClaimedAt   *time.Time   `json:\"claimed_at\"`\n" in pgx and "NullQueueStatus" not in jobs()["go/models.go"]


def test_unknown_option_values_are_diagnostics():
    with pytest.raises(CompileError) as exc:
        jobs(Options(library="jobs", ts_int64="number", go_driver="lib/pq"))
    rendered = exc.value.render({})
    assert "unknown TypeScript int64 mapping 'number'" in rendered and "use 'string' or 'bigint'" in rendered
    assert "unknown Go driver 'lib/pq'" in rendered and "use 'pgx' or 'database/sql'" in rendered
    assert {d.code for d in exc.value.diagnostics} == {"E0206"}


def _cli(tmp_path: Path, *flags: str) -> "subprocess.CompletedProcess[str]":
    files = sorted(library_sources(SCHEMAS / "jobs"))
    return subprocess.run(
        [sys.executable, "-m", "schemac", "compile", "--library", "jobs", "--out", str(tmp_path / "out"), *flags, *files],
        cwd=REPO_ROOT, env={"PYTHONPATH": str(REPO_ROOT / "pants-plugins"), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=120)


def _written(tmp_path: Path) -> Dict[str, str]:
    out = tmp_path / "out"
    return {p.relative_to(out).as_posix(): p.read_text() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("ts_int64", TS_INT64_MODES)
@pytest.mark.parametrize("go_driver", GO_DRIVERS)
def test_cli_flags(tmp_path, ts_int64, go_driver):
    proc = _cli(tmp_path, "--ts-int64", ts_int64, "--go-driver", go_driver)
    assert proc.returncode == 0, proc.stderr
    assert _written(tmp_path) == jobs(Options(library="jobs", ts_int64=ts_int64, go_driver=go_driver))


def test_cli_defaults_and_refusals(tmp_path):
    proc = _cli(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _written(tmp_path) == jobs()
    bad = _cli(tmp_path, "--go-driver", "lib/pq")
    assert bad.returncode == 2 and "invalid choice: 'lib/pq' (choose from 'pgx', 'database/sql')" in bad.stderr
    assert "Traceback" not in bad.stderr
    help_ = subprocess.run([sys.executable, "-m", "schemac", "compile", "--help"], cwd=REPO_ROOT,
                           env={"PYTHONPATH": str(REPO_ROOT / "pants-plugins"), "PATH": "/usr/bin:/bin"},
                           capture_output=True, text=True, timeout=60)
    assert "--ts-int64 {string,bigint}" in help_.stdout and "--go-driver {pgx,database/sql}" in help_.stdout
