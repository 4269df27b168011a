"""The apply runner under faults (issue 14): concurrent appliers, a killed process (kill -9) or a
lost connection (pg_terminate_backend) at every statement of a multi-file history with a
no-transaction file, an index build interrupted half way (left INVALID, then rebuilt), and the
operating commands (status, down N, resolve) through the command line as the hints print them.

Each fault leaves a state the next run recognises: after it, one plain `apply` must bring the
database to exactly the catalog of a clean run, with every version recorded `applied` and no
INVALID index."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import List, Tuple

import pytest

from migration_harness import Lib, db_catalog
from schemac.migrate.apply import MigrationError, apply, invalid_indexes, migrations_of, status
from schemac.migrate.history import split_statements

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO / "pants-plugins") + os.pathsep + str(Path(__file__).parent)}

V1 = """
enum Status { Open, Closed }
type Ticket {
  required title: str;
  status: Status { default := Status.Open };
}
"""
V2 = V1.replace("required title: str;", "required title: str;\n  priority: int32 { default := 3 };")
V3 = V2.replace("priority: int32 { default := 3 };", "priority: int32 { default := 3 };\n  index on (.priority);")
V4 = V3.replace("Open, Closed", "Open, Waiting, Closed")
ROWS = 3000
# What squawk says about an index built or dropped inside a transaction (online_indexes=False).
BLOCKING_INDEX_RULES = ("require-concurrent-index-creation", "require-concurrent-index-deletion")


def _history(tmp_path, online: bool = True) -> Lib:
    """Four versions; the third builds an index concurrently in a no-transaction file."""
    lib = Lib(tmp_path)
    for schema in (V1, V2, V3, V4):
        gen = lib.generate(schema, online_indexes=online, squawk_expect=() if online else BLOCKING_INDEX_RULES)
        assert gen is not None and not gen.plan.errors, gen and gen.plan.errors
    if online:
        assert any(m.no_transaction for m in migrations_of(lib.history()))
    return lib


def _seed(url: str, lib: Lib) -> None:
    """Version 1 applied with rows in its table (so the later files work on data)."""
    apply(url, lib.history(), to=1)
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        c.execute(f"INSERT INTO ticket (title) SELECT 't' || g FROM generate_series(1, {ROWS}) g")


def _finished(pg, reference, top: int) -> None:
    assert db_catalog(pg.conn) == reference
    rows = pg.execute("SELECT version, state FROM schemac_migrations ORDER BY version")
    assert [r[1] for r in rows] == ["applied"] * len(rows) and len(rows) == top, rows
    assert invalid_indexes(pg.conn) == []
    assert pg.execute("SELECT count(*) FROM ticket") == [(ROWS,)]


def _reference(pg_factory, lib: Lib):
    ref = pg_factory()
    _seed(ref.url, lib)
    apply(ref.url, lib.history())
    return db_catalog(ref.conn)


def _points(lib: Lib) -> List[Tuple[int, int, str]]:
    """Every (version, statement index, before/after) of the versions after the first."""
    out = []
    for m in migrations_of(lib.history())[1:]:
        for i, _ in enumerate(split_statements(m.up)):
            out += [(m.version, i, "before"), (m.version, i, "after")]
    return out


_KILLER = """
import os, signal, sys
from migration_harness import Lib
from schemac.migrate.apply import apply
from schemac.migrate.history import History
from pathlib import Path
url, root, version, index, event = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
def hook(ev, m, i, stmt):
    if (ev, m.version, i) == (event, version, index):
        os.kill(os.getpid(), signal.SIGKILL)
apply(url, Lib(root).history(), hook=hook)
print("not killed")
"""


def test_kill_9_at_every_statement_then_one_apply_finishes(tmp_path, pg_factory):
    lib = _history(tmp_path)
    reference = _reference(pg_factory, lib)
    top = len(migrations_of(lib.history()))
    points = _points(lib)
    assert len(points) >= 8
    for version, index, event in points:
        pg = pg_factory()
        _seed(pg.url, lib)
        proc = subprocess.run([sys.executable, "-c", _KILLER, pg.url, str(tmp_path), str(version), str(index), event],
                              env=ENV, capture_output=True, text=True, timeout=120)
        assert proc.returncode == -signal.SIGKILL, (version, index, event, proc.stdout, proc.stderr)
        # The killed client's backend may still be finishing its statement: the next apply waits
        # for its lock, then recognises what it left.
        report = apply(pg.url, lib.history())
        assert report.current_version == top
        _finished(pg, reference, top)
        pg.conn.close()


def test_connection_terminated_at_every_statement_then_one_apply_finishes(tmp_path, pg_factory):
    lib = _history(tmp_path)
    reference = _reference(pg_factory, lib)
    top = len(migrations_of(lib.history()))
    for version, index, event in _points(lib):
        pg = pg_factory()
        _seed(pg.url, lib)
        side = pg.connect()

        def hook(ev, m, i, stmt, _target=(event, version, index)):
            if (ev, m.version, i) == _target:
                side.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                             "WHERE application_name = 'schemac migrate' AND datname = current_database()")

        with pytest.raises(MigrationError) as e:
            apply(pg.url, lib.history(), hook=hook)
        assert "connection was lost" in str(e.value) and "it resumes there" in str(e.value), e.value
        no_tx = next(m for m in migrations_of(lib.history()) if m.version == version).no_transaction
        state = dict(pg.execute("SELECT version, state FROM schemac_migrations"))
        # A no-transaction file that was entered is 'started', never 'applied'; a transactional
        # one left nothing.
        assert state.get(version) == ("started" if no_tx else None), (version, index, event, state)
        apply(pg.url, lib.history())
        _finished(pg, reference, top)
        side.close()
        pg.conn.close()


def _wait_for(pg, sql: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = pg.execute(sql)
        if rows:
            return rows
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for: {sql}")


_CIC_WAITING = ("SELECT pid FROM pg_stat_activity WHERE query LIKE '%%CREATE INDEX CONCURRENTLY%%' "
                "AND wait_event_type = 'Lock' AND datname = current_database()")


@pytest.mark.parametrize("how", ["terminate", "kill -9"])
def test_an_index_build_interrupted_half_way_is_never_applied_and_is_rebuilt(tmp_path, pg, how):
    lib = _history(tmp_path)
    _seed(pg.url, lib)
    apply(pg.url, lib.history(), to=2)
    # An open transaction that wrote to the table makes CREATE INDEX CONCURRENTLY wait after it
    # has created the (still INVALID) index: interrupt it there.
    blocker = pg.connect(autocommit=False)
    blocker.execute("UPDATE ticket SET title = title WHERE title = 't1'")
    if how == "terminate":
        errors: List[Exception] = []

        def run():
            try:
                apply(pg.url, lib.history())
            except Exception as e:  # expected: the connection is terminated
                errors.append(e)

        t = threading.Thread(target=run)
        t.start()
        pid = _wait_for(pg, _CIC_WAITING)[0][0]
        assert invalid_indexes(pg.conn) == [("ix_ticket_priority", "ticket")]
        pg.execute("SELECT pg_terminate_backend(%s)", (pid,))
        t.join(30)
        assert errors and "connection was lost" in str(errors[0])
    else:
        proc = subprocess.Popen([sys.executable, "-c", "import sys; from migration_harness import Lib; "
                                 "from schemac.migrate.apply import apply; from pathlib import Path; "
                                 "apply(sys.argv[1], Lib(Path(sys.argv[2])).history())", pg.url, str(tmp_path)],
                                env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        pid = _wait_for(pg, _CIC_WAITING)[0][0]
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        # client_connection_check_interval: the orphaned backend notices and stops (~1 s).
        _wait_for(pg, f"SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = {pid})")
    blocker.rollback()
    assert invalid_indexes(pg.conn) == [("ix_ticket_priority", "ticket")]
    lines, notes = status(pg.url, lib.history())
    top = len(migrations_of(lib.history()))
    assert [(s.version, s.state) for s in lines] == [(1, "applied"), (2, "applied"), (3, "started")] + [
        (v, "pending") for v in range(4, top + 1)]
    assert any("ix_ticket_priority on ticket is INVALID" in n for n in notes), notes
    report = apply(pg.url, lib.history())
    assert "dropping INVALID index ix_ticket_priority (an interrupted build) to build it again" in report.lines
    assert report.current_version == top and invalid_indexes(pg.conn) == []
    assert pg.execute("SELECT indisvalid FROM pg_index WHERE indexrelid = 'ix_ticket_priority'::regclass") == [(True,)]


@pytest.mark.parametrize("online", [True, False], ids=["with-no-transaction-file", "transactional-only"])
def test_eight_concurrent_appliers_never_deadlock_nor_fail(tmp_path, pg_factory, online):
    lib = _history(tmp_path, online=online)
    history = lib.history()
    for _round in range(3):
        pg = pg_factory()
        _seed(pg.url, lib)
        # An application reading and writing the table meanwhile.
        stop = threading.Event()

        def app():
            c = pg.connect()
            while not stop.is_set():
                with c.transaction():
                    c.execute("UPDATE ticket SET title = title WHERE title = 't1'")
                    c.execute("SELECT count(*) FROM ticket").fetchone()
            c.close()

        barrier = threading.Barrier(8)
        results, errors = [], []

        def run():
            barrier.wait()
            try:
                results.append(apply(pg.url, history))
            except Exception as e:  # reported below
                errors.append(e)

        writer = threading.Thread(target=app)
        writer.start()
        threads = [threading.Thread(target=run) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        stop.set()
        writer.join(30)
        assert not errors, errors
        top = len(migrations_of(history))
        assert sorted(len(r.applied) for r in results) == [0] * 7 + [top - 1], [r.lines for r in results]
        assert all(r.current_version == top for r in results)
        assert [r[1] for r in pg.execute("SELECT version, state FROM schemac_migrations ORDER BY 1")] == ["applied"] * top
        assert invalid_indexes(pg.conn) == []
        pg.conn.close()


def _cli(*args, cwd, env=None):
    return subprocess.run([sys.executable, "-m", "schemac", "migrate", *args], cwd=cwd, env=env or ENV,
                          capture_output=True, text=True, timeout=120)


def test_status_down_and_resolve_through_the_cli_as_the_hints_print_them(tmp_path, pg):
    lib = _history(tmp_path)
    env = {**ENV, "DATABASE_URL": pg.url}
    d = "lib/migrations"
    top = len(migrations_of(lib.history()))
    st = _cli("status", "--dir", d, cwd=tmp_path, env=env)
    assert st.returncode == 3 and f"0 applied, {top} pending" in st.stdout, st.stderr  # 3: pending
    assert _cli("apply", "--dir", d, cwd=tmp_path, env=env).returncode == 0
    st = _cli("status", "--dir", d, cwd=tmp_path, env=env)
    assert st.returncode == 0 and f"{top} applied, 0 pending, 0 needing attention" in st.stdout, st.stdout
    down = _cli("down", "--dir", d, str(top - 2), cwd=tmp_path, env=env)
    assert down.returncode == 0 and "done: the database is at version 2" in down.stdout, down.stderr
    assert pg.execute("SELECT to_regclass('ix_ticket_priority')") == [(None,)]
    st = _cli("status", "--dir", d, cwd=tmp_path, env=env)
    assert f"2 applied, {top - 2} pending" in st.stdout, st.stdout
    # A failing migration: the error names the resolve command; run it exactly as printed
    # (another directory, no PYTHONPATH, no DATABASE_URL but --database-url).
    pg.execute("CREATE FUNCTION boom() RETURNS event_trigger LANGUAGE plpgsql AS $$ BEGIN RAISE 'boom'; END $$")
    pg.execute("CREATE EVENT TRIGGER no_index ON ddl_command_start WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION boom()")
    bare = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DATABASE_URL")}
    failed = _cli("apply", "--dir", str(tmp_path / d), "--database-url", pg.url, cwd=tmp_path, env=ENV)
    assert failed.returncode == 1 and "boom" in failed.stderr, failed.stderr
    printed = failed.stderr.split("run `", 1)[1].split("`", 1)[0]
    assert "resolve --version 3" in printed, printed
    pg.execute("DROP EVENT TRIGGER no_index")
    again = _cli("apply", "--dir", str(tmp_path / d), "--database-url", pg.url, cwd=tmp_path, env=ENV)
    assert again.returncode == 1 and "failed on an earlier run" in again.stderr
    st = _cli("status", "--dir", d, cwd=tmp_path, env=env)  # 4: a version needs a person
    assert st.returncode == 4 and "1 needing attention" in st.stdout, st.stdout
    resolved = subprocess.run(printed, shell=True, cwd="/", env=bare, capture_output=True, text=True, timeout=120)
    assert resolved.returncode == 0 and "resolved 000003_" in resolved.stdout, (printed, resolved.stderr)
    ok = _cli("apply", "--dir", str(tmp_path / d), "--database-url", pg.url, cwd=tmp_path, env=ENV)
    assert ok.returncode == 0 and f"done: the database is at version {top}" in ok.stdout, ok.stderr


def test_generate_into_a_folder_of_another_name_continues_its_history_and_apply_reads_any_folder(tmp_path, pg):
    (tmp_path / "lib").mkdir()
    env = {**ENV, "DATABASE_URL": pg.url}
    for schema in (V1, V2):
        (tmp_path / "lib" / "schema.esdl").write_text(schema)
        r = _cli("generate", "--library", "lib", "--out", "db", "lib/schema.esdl", cwd=tmp_path, env=env)
        assert r.returncode == 0, r.stderr
    first = (tmp_path / "db" / "000001_init.up.sql").read_text()
    names = sorted(p.name for p in (tmp_path / "db").glob("*.up.sql"))
    assert names[0] == "000001_init.up.sql" and names[1].startswith("000002_"), names
    assert "priority" not in first  # 000001 was not rewritten
    # Continuing lib/migrations into a folder that holds another history is refused (E0408),
    # and that folder is left as it was.
    (tmp_path / "lib" / "migrations").mkdir()
    (tmp_path / "lib" / "schema.esdl").write_text(V1 + "type Other { a: str; }\n")
    r = _cli("generate", "--library", "lib", "--out", "other", "lib/schema.esdl", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    other_before = {p.name: p.read_text() for p in (tmp_path / "other").iterdir()}
    for p in (tmp_path / "db").iterdir():
        (tmp_path / "lib" / "migrations" / p.name).write_text(p.read_text())
    (tmp_path / "lib" / "schema.esdl").write_text(V3)
    files = [f"lib/migrations/{p.name}" for p in sorted((tmp_path / "lib" / "migrations").iterdir())]
    r = _cli("generate", "--library", "lib", "--out", "other", "lib/schema.esdl", *files, cwd=tmp_path, env=env)
    assert r.returncode == 1 and "error[E0408]" in r.stderr and "other/000001_init." in r.stderr, r.stderr
    assert {p.name: p.read_text() for p in (tmp_path / "other").iterdir()} == other_before
    # apply reads any folder name, and an export's sql/ (no snapshot.json, a schema.sql beside).
    export = tmp_path / "generated" / "lib" / "sql"
    export.mkdir(parents=True)
    for p in (tmp_path / "db").iterdir():
        if p.name != "snapshot.json":
            (export / p.name).write_text(p.read_text())
    (export / "schema.sql").write_text("-- the whole schema\n")
    ok = _cli("apply", "--dir", "generated/lib/sql", cwd=tmp_path, env=env)
    assert ok.returncode == 0 and "done: the database is at version 2" in ok.stdout, ok.stderr
    up = _cli("apply", "--dir", "generated/lib", cwd=tmp_path, env=env)
    assert up.returncode == 1 and "pass that as --dir" in up.stderr and "generated/lib/sql" in up.stderr, up.stderr


def test_the_pants_entry_puts_the_users_command_first_and_hints_name_pants(tmp_path, pg):
    """`./pants run <library> -- status` executes `migrate target --library L --dir D status`;
    with SCHEMAC_RUN_AS set (by the Pants rule), hints print the Pants command."""
    from schemac.cli.main import _runner_argv

    assert _runner_argv(["migrate", "target", "--library", "l", "--dir", "d"]) == [
        "migrate", "apply", "--library", "l", "--dir", "d"]
    assert _runner_argv(["migrate", "target", "--library", "l", "--dir", "d", "down", "2"]) == [
        "migrate", "down", "--library", "l", "--dir", "d", "2"]
    assert _runner_argv(["migrate", "target", "--library", "l", "--dir", "d", "--database-url", "u"]) == [
        "migrate", "apply", "--library", "l", "--dir", "d", "--database-url", "u"]
    lib = _history(tmp_path)
    env = {**ENV, "DATABASE_URL": pg.url, "SCHEMAC_RUN_AS": "./pants run lib: --"}
    st = _cli("target", "--library", "lib", "--dir", "lib/migrations", "status", cwd=tmp_path, env=env)
    assert st.returncode == 3 and "pending" in st.stdout, st.stderr
    pg.execute("CREATE TABLE schemac_migrations (library text NOT NULL, version bigint NOT NULL, name text NOT NULL, "
               "checksum text NOT NULL, state text NOT NULL, error text, applied_at timestamptz NOT NULL DEFAULT now(), "
               "execution_ms integer NOT NULL DEFAULT 0, PRIMARY KEY (library, version))")
    pg.execute("INSERT INTO schemac_migrations (library, version, name, checksum, state, error) "
               "VALUES ('lib', 1, '000001_init', 'x', 'failed', 'boom')")
    failed = _cli("target", "--library", "lib", "--dir", "lib/migrations", cwd=tmp_path, env=env)
    assert failed.returncode == 1 and "`./pants run lib: -- resolve --version 1`" in failed.stderr, failed.stderr


def test_a_history_table_made_by_the_previous_runner_learns_the_started_state(tmp_path, pg):
    lib = _history(tmp_path)
    pg.execute("""CREATE TABLE schemac_migrations (
    library text NOT NULL, version bigint NOT NULL, name text NOT NULL, checksum text NOT NULL,
    state text NOT NULL CHECK (state IN ('applied', 'failed')), error text,
    applied_at timestamptz NOT NULL DEFAULT now(), execution_ms integer NOT NULL DEFAULT 0,
    PRIMARY KEY (library, version))""")
    report = apply(pg.url, lib.history())
    assert report.current_version == len(migrations_of(lib.history()))
    check = pg.execute("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'schemac_migrations_state_check'")
    assert "started" in check[0][0]


def test_a_down_whose_index_build_failed_leaves_no_invalid_index_and_a_later_down_rebuilds_it(tmp_path, pg):
    """v1 ``on (true)`` (at most one object), v2 ``on ((.value, true))`` and two rows: the down of
    v2 builds v1's unique index again, which fails on the two rows and leaves it INVALID (as
    ``CREATE INDEX CONCURRENTLY`` does). ``CREATE ... IF NOT EXISTS`` would skip that INVALID
    index and a later down would report success without the constraint: the runner drops an
    INVALID index of a name a file builds before running it, and fails while one is left."""
    from schemac.migrate.apply import down

    lib = Lib(tmp_path)
    v1 = "type Singleton { required value: str; constraint exclusive on (true); }\n"
    lib.generate(v1)
    lib.apply(pg.url)
    lib.generate(v1.replace("on (true)", "on ((.value, true))"))
    lib.apply(pg.url)
    pg.execute("INSERT INTO singleton (value) VALUES ('a'), ('b')")
    steps = lib.history().last_version - 1  # back to v1 (v2 may be more than one version)
    with pytest.raises(MigrationError, match="could not create unique index"):
        down(pg.url, lib.history(), steps)
    assert [n for n, _ in invalid_indexes(pg.conn)] == ["uq_singleton_expr"]
    # Again with the rows still there: it fails again, never "succeeds" over the INVALID index.
    left = [s.version for s in status(pg.url, lib.history())[0] if s.state == "applied" and s.version > 1]
    with pytest.raises(MigrationError, match="could not create unique index"):
        down(pg.url, lib.history(), len(left))
    pg.execute("DELETE FROM singleton WHERE value = 'b'")
    down(pg.url, lib.history(), len(left))
    assert invalid_indexes(pg.conn) == []
    with pytest.raises(Exception, match="uq_singleton"):
        pg.execute("INSERT INTO singleton (value) VALUES ('c')")
    # And up again over an INVALID index of v2's name (an up whose build failed the same way).
    apply(pg.url, lib.history())
    assert invalid_indexes(pg.conn) == []
