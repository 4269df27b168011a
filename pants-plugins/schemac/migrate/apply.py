"""The apply runner: bring a Postgres database to a library's latest migration, show where it
is, step it back, clear a failure (psycopg 3).

``python -m schemac migrate {apply,status,down,resolve} --dir schemas/jobs/migrations``
(or ``./pants run schemas/jobs: -- status``).

1. The history's checksum chain (``schemac.sum``) is verified before touching the database.
2. One **session-level advisory lock** (key derived from the history table's name) is taken
   before anything else and held for the whole run, so appliers run one after the other and a
   second one finds nothing left to do. It is taken by polling ``pg_try_advisory_lock`` from an
   idle autocommit session, never by a blocking ``pg_advisory_lock``: a session waiting inside
   a statement holds a snapshot, and ``CREATE INDEX CONCURRENTLY`` in the lock holder waits for
   every older snapshot of the database, so the two would wait for each other (SQLSTATE 40P01,
   "deadlock detected"). Polling leaves no statement open between tries. Explicit locking,
   advisory locks: https://www.postgresql.org/docs/15/explicit-locking.html#ADVISORY-LOCKS;
   what CIC waits for: https://www.postgresql.org/docs/15/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY
3. The history table (default ``schemac_migrations``: library, version, name, checksum, state
   ``applied``/``failed``/``started``, error, applied_at, execution_ms) serves every library of
   a database. The runner refuses to go on when an applied file was edited since (checksum), when
   a migration failed before and was not resolved, when the database has a version the directory
   lacks, or when a pending version is older than an applied one.
4. A transactional file runs statement by statement in one transaction together with its
   history row: a failure or a lost connection leaves the database exactly as before that file.
   A file marked ``-- schemac:no-transaction`` (``CREATE INDEX CONCURRENTLY``, ``DROP INDEX
   CONCURRENTLY``) gets a ``started`` row first, then runs statement by statement in autocommit;
   the row becomes ``applied`` only after every statement finished and every index the file
   builds is valid (``pg_index.indisvalid``). A run that died half way leaves ``started``,
   never ``applied``: the next run drops the INVALID indexes the file builds
   (``DROP INDEX CONCURRENTLY IF EXISTS``) and runs the file again; its statements are written to
   be re-runnable (``IF NOT EXISTS`` / ``IF EXISTS``). ``down`` does the same for a
   no-transaction down file (the revert of a dropped index builds it again): an INVALID index
   of a name it builds is dropped first, and a build left INVALID (a duplicate row) fails the
   down instead of being kept by ``IF NOT EXISTS`` on the next run.

golang-migrate applies the same files (its own table is ``schema_migrations``); use one
runner per database.
"""

from __future__ import annotations

import hashlib
import random
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterator, List, Optional, Tuple

from schemac.migrate.history import MIGRATION_FILE, NO_TRANSACTION_MARKER, History, checksum, split_statements

DEFAULT_TABLE = "schemac_migrations"
_IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")
# The indexes a statement builds concurrently (their INVALID leftovers are rebuilt).
_CIC = re.compile(r'CREATE\s+(?:UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+(?:IF\s+NOT\s+EXISTS\s+)?("(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)',
                  re.I)


class MigrationError(Exception):
    """Running stopped; the message says why and what to do. ``sqlstate`` is set when
    Postgres refused a statement."""

    def __init__(self, message: str, sqlstate: Optional[str] = None):
        super().__init__(message)
        self.sqlstate = sqlstate


@dataclass
class ApplyReport:
    """What :func:`apply` (or :func:`down`) did: versions run (file bases, in order) and the
    version the database is at afterwards (0 for none)."""

    applied: List[str] = field(default_factory=list)
    current_version: int = 0
    lines: List[str] = field(default_factory=list)


def lock_key(table: str) -> int:
    """The advisory lock key of a history table (a stable signed 64-bit integer)."""
    digest = hashlib.sha256(f"schemac.migrate:{table}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


@dataclass(frozen=True)
class Migration:
    """One version of a history: its ``up`` text and ``down`` text (``None`` when missing)."""

    version: int
    base: str
    up: str
    down: Optional[str]
    no_transaction: bool
    down_no_transaction: bool


#: ``hook(event, migration, index, statement)`` is called by the runner around each statement
#: (event ``"before"``/``"after"``; index from 0): the fault-injection tests kill the process or
#: its connection there. ``None`` in production.
Hook = Optional[Callable[[str, Migration, int, str], None]]

_HEADER_LIBRARY = re.compile(r'^-- Code generated by schemac from library "([^"]+)"', re.M)


def library_of(history: History) -> Optional[str]:
    """The library a history belongs to, from its files' generated-code header (``None`` when
    they do not say, or disagree)."""
    names = {m.group(1) for text in history.migrations.values() for m in [_HEADER_LIBRARY.search(text)] if m}
    return names.pop() if len(names) == 1 else None


def _no_transaction(text: str) -> bool:
    return any(line.startswith(NO_TRANSACTION_MARKER) for line in text.split("\n", 8)[:8])


def migrations_of(history: History) -> List[Migration]:
    """The versions of ``history`` in order. Raises :class:`MigrationError` for two files of one
    version."""
    ups: Dict[int, str] = {}
    for name in history.ordered():
        m = MIGRATION_FILE.match(name)
        assert m is not None
        if m.group(3) != "up":
            continue
        version = int(m.group(1))
        if version in ups:
            raise MigrationError(f"two migrations have version {version}: {ups[version]} and {name}")
        ups[version] = name
    out = []
    for version in sorted(ups):
        base = ups[version][: -len(".up.sql")]
        up = history.migrations[ups[version]]
        down = history.migrations.get(f"{base}.down.sql")
        out.append(Migration(version, base, up, down, _no_transaction(up), _no_transaction(down or "")))
    return out


def default_again(history: History) -> Callable[[str], str]:
    """How the runner's hints spell a follow-up command when the caller gave none."""
    return lambda rest: f"python -m schemac migrate {rest} --dir {history.directory}"


# ---------------------------------------------------------------------------------- sessions
class _Session:
    """An autocommit connection holding the history table's advisory lock (unless ``lock`` is
    false: status reads without it)."""

    def __init__(self, database_url: str, table: str, connect, say: Callable[[str], None],
                 lock_wait_note: float = 10.0, lock: bool = True):
        import psycopg

        if not _IDENT.match(table):
            raise MigrationError(f"invalid history table name {table!r} (use lower-case letters, digits and _)")
        self.table = table
        self.say = say
        self.locked = lock
        self.conn = (connect or psycopg.connect)(database_url, autocommit=True)
        try:
            self.conn.execute("SET application_name = 'schemac migrate'")
            if self.conn.info.server_version >= 140000:
                # A killed runner's backend stops at its next check instead of finishing (and
                # keeping the lock) on its own: https://www.postgresql.org/docs/15/runtime-config-connection.html
                self.conn.execute("SET client_connection_check_interval = '1s'")
            if lock:
                self._lock(lock_wait_note)
        except BaseException:
            self.conn.close()
            raise

    def _lock(self, note_after: float) -> None:
        key = lock_key(self.table)
        started = time.monotonic()
        noted = False
        delay = 0.02
        while True:
            got = self.conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            if got and got[0]:
                return
            waited = time.monotonic() - started
            if not noted and waited >= note_after:
                holder = _lock_holder(self.conn, key)
                self.say(f"waiting for another migration run to finish{holder} ...")
                noted = True
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.5)

    def close(self) -> None:
        try:
            if self.locked and not self.conn.closed:
                self.conn.execute("SELECT pg_advisory_unlock(%s)", (lock_key(self.table),))
        except Exception:  # the connection is gone: so is the lock
            pass
        finally:
            self.conn.close()

    def __enter__(self) -> "_Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _lock_holder(conn, key: int) -> str:
    """`` (pid N, running since ...)`` for the session holding the advisory lock ``key``."""
    hi, lo = (key >> 32) & 0xFFFFFFFF, key & 0xFFFFFFFF
    row = conn.execute(
        "SELECT l.pid, a.backend_start FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid "
        "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = %s::bigint::oid AND l.objid = %s::bigint::oid "
        "AND l.objsubid = 1", (hi, lo)).fetchone()
    return f" (pid {row[0]}, connected since {row[1]:%Y-%m-%d %H:%M:%S})" if row and row[1] else ""


def _ensure_table(conn, table: str) -> None:
    conn.execute(
        f"""CREATE TABLE IF NOT EXISTS {table} (
    library text NOT NULL,
    version bigint NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    state text NOT NULL CONSTRAINT {table}_state_check CHECK (state IN ('applied', 'failed', 'started')),
    error text,
    applied_at timestamptz NOT NULL DEFAULT now(),
    execution_ms integer NOT NULL DEFAULT 0,
    PRIMARY KEY (library, version)
)""")
    # A table made by an earlier runner knows no 'started' state yet.
    old = conn.execute("SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = %s::regclass "
                       "AND conname = %s", (table, f"{table}_state_check")).fetchone()
    if old and "started" not in old[0]:
        with conn.transaction():
            conn.execute(f"ALTER TABLE {table} DROP CONSTRAINT {table}_state_check")
            conn.execute(f"ALTER TABLE {table} ADD CONSTRAINT {table}_state_check "
                         "CHECK (state IN ('applied', 'failed', 'started'))")


@dataclass(frozen=True)
class _Row:
    version: int
    name: str
    checksum: str
    state: str
    error: Optional[str]
    applied_at: object


def _rows(conn, table: str, library: str) -> Dict[int, _Row]:
    return {r[0]: _Row(*r) for r in conn.execute(
        f"SELECT version, name, checksum, state, error, applied_at FROM {table} WHERE library = %s ORDER BY version",
        (library,)).fetchall()}


def _prepare(history: History, library: Optional[str]) -> Tuple[List[Migration], str]:
    problems = history.verify(snapshot_optional=True)
    if problems:
        raise MigrationError("the migration history is broken: " + "; ".join(p.message for p in problems))
    migrations = migrations_of(history)
    library = library or library_of(history)
    if not library:
        raise MigrationError("cannot tell which library these migrations belong to: pass --library")
    return migrations, library


@dataclass
class _History:
    """What apply, down and status start from: the directory's versions and the database's rows
    of ``library`` (``conn`` holds the advisory lock when the run writes)."""

    conn: object
    library: str
    migrations: List[Migration]
    rows: Dict[int, _Row]

    @property
    def by_version(self) -> Dict[int, Migration]:
        return {m.version: m for m in self.migrations}


@contextmanager
def _locked_history(database_url: str, history: History, table: str, connect, library: Optional[str],
                    say: Callable[[str], None], again: Optional[Callable[[str], str]] = None,
                    lock: bool = True) -> Iterator[_History]:
    """The verified history and the database's rows of its library, for apply, down and status.
    ``lock``: taken before the rows are read and held until the block ends, after the checks every
    writing command makes (:func:`_check_rows`, hints spelled with ``again``); status passes
    ``False``: read-only, so it answers while a run holds the lock (no table made, nothing refused)."""
    migrations, library = _prepare(history, library)
    with _Session(database_url, table, connect, say, lock=lock) as s:
        if lock:
            _ensure_table(s.conn, table)
        exists = lock or s.conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()[0]
        h = _History(s.conn, library, migrations, _rows(s.conn, table, library) if exists else {})
        if lock:
            _check_rows(h.rows, h.by_version, history, again or default_again(history))
        yield h


def _reporter(log: Callable[[str], None]) -> Tuple[ApplyReport, Callable[[str], None]]:
    """A report and the ``say`` that logs a line and keeps it in the report."""
    report = ApplyReport()

    def say(line: str) -> None:
        report.lines.append(line)
        log(line)

    return report, say


def _check_rows(rows: Dict[int, _Row], by_version: Dict[int, Migration], history: History,
                again: Callable[[str], str]) -> None:
    for version, row in rows.items():
        if row.state == "failed":
            raise MigrationError(
                f"migration {row.name} failed on an earlier run ({row.error}); fix the cause, then run "
                f"`{again(f'resolve --version {version}')}` and apply again")
        m = by_version.get(version)
        if m is None:
            raise MigrationError(f"the database has migration {row.name}, which is not in {history.directory}")
        if checksum(m.up) != row.checksum:
            raise MigrationError(f"migration {m.base} was edited after it was applied (checksum differs); "
                                 "restore the file and put changes in a new migration")


# -------------------------------------------------------------------------------------- apply
def apply(database_url: str, history: History, table: str = DEFAULT_TABLE,
          log: Callable[[str], None] = lambda _: None, connect=None, library: Optional[str] = None,
          again: Optional[Callable[[str], str]] = None, hook: Hook = None, to: Optional[int] = None) -> ApplyReport:
    """Apply the pending migrations of ``history`` (up to version ``to``, when given) to the
    database at ``database_url``.
    ``library``: whose versions these are in the history table (default: the name in the
    files' header, see :func:`library_of`). ``again(rest)``: how hints spell a follow-up
    command (``resolve --version 5``) so that it works as printed.

    Returns an :class:`ApplyReport`; raises :class:`MigrationError` when it stops (nothing of
    a failing transactional file is left in the database; the failure is recorded and blocks
    later runs until ``resolve``)."""
    import psycopg

    again = again or default_again(history)
    report, say = _reporter(log)
    with _locked_history(database_url, history, table, connect, library, say, again) as h:
        conn, rows, library = h.conn, h.rows, h.library
        done = {v for v, r in rows.items() if r.state == "applied"}
        top = max(done, default=0)
        if not rows:
            _refuse_other_runner(conn, table)
        pending = [m for m in h.migrations if m.version not in done and (to is None or m.version <= to)]
        late = [m for m in pending if m.version < top]
        if late:
            raise MigrationError(f"migration {late[0].base} is older than the latest applied version {top}; "
                                 "renumber it after the latest migration (generate-migrations does)")
        if not pending:
            say(f"nothing to do: the database is at version {top}")
            report.current_version = top
            return report
        for m in pending:
            if m.version in rows:  # 'started': a run died in this no-transaction file
                say(f"resuming {m.base}: an earlier run started it and did not finish")
            try:
                _apply_one(conn, table, library, m, say, hook, m.version in rows, again)
            except psycopg.Error as e:  # only a lost connection gets here
                raise MigrationError(
                    f"the connection was lost while applying {m.base} ({str(e).strip()}); "
                    + ("nothing of it was applied" if not m.no_transaction else "it is recorded as started")
                    + f": run `{again('apply')}` again, it resumes there") from None
            report.applied.append(m.base)
            top = m.version
        report.current_version = top
        say(f"done: the database is at version {top}")
        return report


def _refuse_other_runner(conn, table: str) -> None:
    """A database golang-migrate manages (its ``schema_migrations`` has a version) while ours
    is empty is not ours to apply to: both runners would apply every file."""
    ours = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
    row = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    if ours and ours[0] == 0 and row and row[0]:
        version = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
        if version and version[0] is not None:
            raise MigrationError(
                f"this database is managed by golang-migrate (schema_migrations is at version {version[0]}): "
                "use one runner per database (keep using golang-migrate here, or start from an empty database)")


def concurrent_indexes(sql: str) -> List[str]:
    """The names of the indexes ``sql`` builds with ``CREATE [UNIQUE] INDEX CONCURRENTLY``."""
    out = []
    for m in _CIC.finditer(sql):
        name = m.group(1)
        out.append(name[1:-1].replace('""', '"') if name.startswith('"') else name)
    return out


def invalid_indexes(conn, names: Optional[List[str]] = None) -> List[Tuple[str, str]]:
    """``(index, table)`` of the INVALID indexes of the current schema (of ``names`` only,
    when given): what an interrupted ``CREATE INDEX CONCURRENTLY`` leaves behind."""
    rows = conn.execute(
        "SELECT i.relname, t.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
        "JOIN pg_class t ON t.oid = x.indrelid WHERE NOT x.indisvalid "
        "AND i.relnamespace = current_schema()::regnamespace ORDER BY 1").fetchall()
    return [(r[0], r[1]) for r in rows if names is None or r[0] in names]


_SETTING = re.compile(r"^-- schemac:set (lock_timeout|statement_timeout) = '([0-9a-z]+)'$", re.M)


def header_settings(text: str) -> List[Tuple[str, str]]:
    """The ``-- schemac:set name = 'value'`` lines of a no-transaction file's header: the
    timeouts the runner sets for it (the file itself must hold its one statement alone)."""
    return _SETTING.findall(text.split("\n\n", 1)[0])


def _set_session(conn, settings: List[Tuple[str, str]], reset: bool = False) -> None:
    from psycopg import sql as psql

    for name, value in settings:
        if reset:
            conn.execute(psql.SQL("RESET {}").format(psql.Identifier(name)))
        else:
            conn.execute(psql.SQL("SET {} = {}").format(psql.Identifier(name), psql.Literal(value)))


def _run_no_transaction(conn, m: Migration, text: str, statements: List[str], hook: Hook) -> None:
    settings = header_settings(text)
    _set_session(conn, settings)
    try:
        _run_statements(conn, m, statements, hook)
    finally:
        if not (conn.broken or conn.closed):
            _set_session(conn, settings, reset=True)


def _run_statements(conn, m: Migration, statements: List[str], hook: Hook) -> None:
    for i, stmt in enumerate(statements):
        if hook:
            hook("before", m, i, stmt)
        conn.execute(stmt, prepare=False)
        if hook:
            hook("after", m, i, stmt)


def _drop_invalid(conn, names: List[str], say: Callable[[str], None]) -> None:
    """Drop the INVALID indexes among ``names`` (what a failed or interrupted ``CREATE INDEX
    CONCURRENTLY`` leaves), so the file's ``CREATE ... IF NOT EXISTS`` builds them again
    instead of keeping them (https://www.postgresql.org/docs/15/sql-createindex.html#SQL-CREATEINDEX-CONCURRENTLY)."""
    from psycopg import sql as psql

    for name, _ in invalid_indexes(conn, names):
        say(f"dropping INVALID index {name} (an interrupted build) to build it again")
        conn.execute(psql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(psql.Identifier(name)))


def _apply_one(conn, table: str, library: str, m: Migration, say: Callable[[str], None], hook: Hook,
               resuming: bool, again: Callable[[str], str]) -> None:
    import psycopg

    started = time.monotonic()
    statements = split_statements(m.up)
    try:
        if m.no_transaction:
            if not resuming:
                _record(conn, table, library, m, "started", None, started)
            # Rebuild what an interrupted run left INVALID (IF NOT EXISTS would keep it).
            names = concurrent_indexes(m.up)
            _drop_invalid(conn, names, say)
            _run_no_transaction(conn, m, m.up, statements, hook)
            left = invalid_indexes(conn, names)
            if left:
                raise MigrationError(f"migration {m.base} left index {left[0][0]} INVALID; run apply again to rebuild it")
            _set_state(conn, table, library, m, "applied", None, started)
        else:
            with conn.transaction():
                _run_statements(conn, m, statements, hook)
                _record(conn, table, library, m, "applied", None, started)
    except psycopg.Error as e:
        if conn.broken or conn.closed:  # the connection is gone (the caller says what to do)
            raise
        diag = e.diag
        where = f"SQLSTATE {e.sqlstate}: {diag.message_primary or str(e).strip()}"
        if diag.message_detail:
            where += f" ({diag.message_detail})"
        if diag.message_hint:
            where += f" (hint: {diag.message_hint})"
        if m.no_transaction:
            _set_state(conn, table, library, m, "failed", where, started)
        else:
            _record(conn, table, library, m, "failed", where, started)
        note = ("nothing of it was applied" if not m.no_transaction
                else "it ran outside a transaction: its statements are re-runnable, and an INVALID index it left is "
                     "rebuilt by the next apply")
        raise MigrationError(f"migration {m.base} failed, {note}: {where}; the failure is recorded: once the cause "
                             f"is fixed, run `{again(f'resolve --version {m.version}')}`, then apply again",
                             e.sqlstate) from None
    say(f"applied {m.base} ({int((time.monotonic() - started) * 1000)} ms)")


def _record(conn, table: str, library: str, m: Migration, state: str, error: Optional[str], started: float) -> None:
    conn.execute(
        f"INSERT INTO {table} (library, version, name, checksum, state, error, execution_ms) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s)",
        (library, m.version, m.base, checksum(m.up), state, error, int((time.monotonic() - started) * 1000)))


def _set_state(conn, table: str, library: str, m: Migration, state: str, error: Optional[str], started: float) -> None:
    conn.execute(
        f"UPDATE {table} SET state = %s, error = %s, applied_at = now(), execution_ms = %s "
        "WHERE library = %s AND version = %s",
        (state, error, int((time.monotonic() - started) * 1000), library, m.version))


# ----------------------------------------------------------------------------- down, resolve
def down(database_url: str, history: History, steps: int, table: str = DEFAULT_TABLE,
         log: Callable[[str], None] = lambda _: None, connect=None, library: Optional[str] = None,
         again: Optional[Callable[[str], str]] = None, hook: Hook = None) -> ApplyReport:
    """Revert the ``steps`` latest applied versions with their committed down files, newest
    first, under the same advisory lock as :func:`apply`; each down file runs in one transaction
    with the removal of its history row (a no-transaction down file statement by statement,
    its row removed at the end)."""
    import psycopg

    if steps < 1:
        raise MigrationError("down needs a number of versions to revert (1 or more)")
    again = again or default_again(history)
    report, say = _reporter(log)
    with _locked_history(database_url, history, table, connect, library, say, again) as h:
        conn, rows, library, by_version = h.conn, h.rows, h.library, h.by_version
        unfinished = [r for r in rows.values() if r.state != "applied"]
        if unfinished:
            raise MigrationError(f"migration {unfinished[0].name} was started and did not finish: run "
                                 f"`{again('apply')}` to finish it (or `{again(f'resolve --version {unfinished[0].version}')}`) "
                                 "before reverting")
        applied = sorted(rows, reverse=True)
        if steps > len(applied):
            raise MigrationError(f"the database has {len(applied)} applied version(s); cannot revert {steps}")
        for version in applied[:steps]:
            m = by_version[version]
            if m.down is None:
                raise MigrationError(f"migration {m.base} has no down file in {history.directory}")
            started = time.monotonic()
            statements = split_statements(m.down)
            try:
                if m.down_no_transaction:
                    # A down that builds an index concurrently (the revert of a drop) and failed
                    # left it INVALID, which IF NOT EXISTS would keep: drop it, build it again,
                    # and fail while one is left (as apply does).
                    names = concurrent_indexes(m.down)
                    _drop_invalid(conn, names, say)
                    _run_no_transaction(conn, m, m.down, statements, hook)
                    left = invalid_indexes(conn, names)
                    if left:
                        raise MigrationError(f"reverting {m.base} left index {left[0][0]} INVALID; "
                                             "fix the cause and run down again")
                    conn.execute(f"DELETE FROM {table} WHERE library = %s AND version = %s", (library, version))
                else:
                    with conn.transaction():
                        _run_statements(conn, m, statements, hook)
                        conn.execute(f"DELETE FROM {table} WHERE library = %s AND version = %s", (library, version))
            except psycopg.Error as e:
                if conn.broken or conn.closed:
                    raise MigrationError(f"the connection was lost while reverting {m.base} ({str(e).strip()}); "
                                         f"check `{again('status')}` and run down again") from None
                raise MigrationError(f"reverting {m.base} failed (SQLSTATE {e.sqlstate}: "
                                     f"{e.diag.message_primary or str(e).strip()}); "
                                     + ("nothing of it was reverted" if not m.down_no_transaction else
                                        "its statements are re-runnable: fix the cause and run down again"),
                                     e.sqlstate) from None
            say(f"reverted {m.base} ({int((time.monotonic() - started) * 1000)} ms)")
            report.applied.append(m.base)
        report.current_version = max((v for v in rows if v not in applied[:steps]), default=0)
        say(f"done: the database is at version {report.current_version}")
        return report


def resolve(database_url: str, history: History, version: int, table: str = DEFAULT_TABLE, connect=None,
            library: Optional[str] = None, again: Optional[Callable[[str], str]] = None) -> str:
    """Clear the failure (or unfinished ``started``) record of ``version`` so ``apply`` runs it
    again; INVALID indexes that migration builds are dropped first."""
    from psycopg import sql as psql

    library = library or library_of(history)
    if not library:
        raise MigrationError("cannot tell which library these migrations belong to: pass --library")
    again = again or default_again(history)
    with _Session(database_url, table, connect, lambda _: None) as s:
        conn = s.conn
        _ensure_table(conn, table)
        row = conn.execute(f"SELECT name, state FROM {table} WHERE library = %s AND version = %s",
                           (library, version)).fetchone()
        if row is None or row[1] == "applied":
            raise MigrationError(f"version {version} has no failure to resolve (see `{again('status')}`)")
        m = next((x for x in migrations_of(history) if x.version == version), None)
        if m is not None and m.no_transaction:
            for name, _ in invalid_indexes(conn, concurrent_indexes(m.up)):
                conn.execute(psql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(psql.Identifier(name)))
        conn.execute(f"DELETE FROM {table} WHERE library = %s AND version = %s", (library, version))
        return f"resolved {row[0]}: `{again('apply')}` will run it again"


# ------------------------------------------------------------------------------------ status
@dataclass
class StatusLine:
    version: int
    name: str
    state: str  # applied / pending / failed / started / unknown (in the database, not in the directory)
    checksum: str  # ok / edited / - (not applied)
    applied_at: Optional[str]
    error: Optional[str]


def status(database_url: str, history: History, table: str = DEFAULT_TABLE, connect=None,
           library: Optional[str] = None) -> Tuple[List[StatusLine], List[str]]:
    """Each version's state in the database (read-only: no lock is taken, so status answers
    while another run holds it) and notes (a run in progress, INVALID indexes)."""
    with _locked_history(database_url, history, table, connect, library, lambda _: None, lock=False) as h:
        conn, rows, migrations = h.conn, h.rows, h.migrations
        out: List[StatusLine] = []
        for m in migrations:
            r = rows.get(m.version)
            if r is None:
                out.append(StatusLine(m.version, m.base, "pending", "-", None, None))
            else:
                out.append(StatusLine(m.version, m.base, r.state, "ok" if r.checksum == checksum(m.up) else "edited",
                                      f"{r.applied_at:%Y-%m-%d %H:%M:%S%z}", r.error))
        known = {m.version for m in migrations}
        for v, r in rows.items():
            if v not in known:
                out.append(StatusLine(v, r.name, "unknown", "missing", f"{r.applied_at:%Y-%m-%d %H:%M:%S%z}", r.error))
        out.sort(key=lambda s: s.version)
        notes = []
        holder = _lock_holder(conn, lock_key(table))
        if holder:
            notes.append(f"a migration run is in progress{holder}")
        for name, tbl in invalid_indexes(conn):
            notes.append(f"index {name} on {tbl} is INVALID (an interrupted CREATE INDEX CONCURRENTLY): "
                         "apply rebuilds it when its migration is pending or started")
        return out, notes
