"""The apply runner: bring a Postgres database up to a library's latest migration (psycopg 3).

``python -m schemac migrate apply --database-url URL --dir schemas/jobs/migrations``

1. Verifies the history's checksum chain (``schemac.sum``) before touching the database.
2. Takes a session-level advisory lock (``pg_advisory_lock``), so concurrent appliers run one
   after the other: the second waits, then finds nothing to do.
3. Keeps the applied versions in a history table (default ``schemac_migrations``: version,
   name, checksum, state, applied_at, execution time) and refuses to go on when an applied
   file was edited since (checksum), when a migration failed before and was not resolved
   (``migrate resolve``), when the database has a version the directory lacks, or when a
   pending version is older than an applied one.
4. Runs each pending up file in one transaction together with its history row, so a failing
   statement leaves the database exactly as before that file. Files marked
   ``-- schemac:no-transaction`` (``CREATE INDEX CONCURRENTLY``) run outside a transaction.

golang-migrate applies the same files (its own table is ``schema_migrations``); use one
runner per database. Advisory locks: https://www.postgresql.org/docs/15/explicit-locking.html#ADVISORY-LOCKS
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from schemac.migrate.history import MIGRATION_FILE, NO_TRANSACTION_MARKER, History, checksum

DEFAULT_TABLE = "schemac_migrations"
_IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")


class MigrationError(Exception):
    """Applying stopped; the message says why and what to do. ``sqlstate`` is set when
    Postgres refused a statement."""

    def __init__(self, message: str, sqlstate: Optional[str] = None):
        super().__init__(message)
        self.sqlstate = sqlstate


@dataclass
class ApplyReport:
    """What :func:`apply` did: versions applied (file bases, in order) and the version the
    database is at afterwards (0 for none)."""

    applied: List[str] = field(default_factory=list)
    current_version: int = 0
    lines: List[str] = field(default_factory=list)


def lock_key(table: str) -> int:
    """The advisory lock key of a history table (a stable signed 64-bit integer)."""
    digest = hashlib.sha256(f"schemac.migrate:{table}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


@dataclass(frozen=True)
class _Migration:
    version: int
    base: str
    up: str
    no_transaction: bool


def _migrations(history: History) -> List[_Migration]:
    out: Dict[int, _Migration] = {}
    for name in history.ordered():
        m = MIGRATION_FILE.match(name)
        assert m is not None
        if m.group(3) != "up":
            continue
        version = int(m.group(1))
        if version in out:
            raise MigrationError(f"two migrations have version {version}: {out[version].base} and {name}")
        text = history.migrations[name]
        head = text.split("\n", 6)[:6]
        out[version] = _Migration(version, name[: -len(".up.sql")], text,
                                  any(line.startswith(NO_TRANSACTION_MARKER) for line in head))
    return [out[v] for v in sorted(out)]


def apply(database_url: str, history: History, table: str = DEFAULT_TABLE,
          log: Callable[[str], None] = lambda _: None, connect=None) -> ApplyReport:
    """Apply the pending migrations of ``history`` to the database at ``database_url``.

    Returns an :class:`ApplyReport`; raises :class:`MigrationError` when it stops (nothing of
    the failing file is left in the database; the failure is recorded and blocks later runs
    until ``resolve``)."""
    import psycopg

    if not _IDENT.match(table):
        raise MigrationError(f"invalid history table name {table!r} (use lower-case letters, digits and _)")
    problems = history.verify()
    if problems:
        raise MigrationError("the migration history is broken: " + "; ".join(p.message for p in problems))
    migrations = _migrations(history)
    report = ApplyReport()

    def say(line: str) -> None:
        report.lines.append(line)
        log(line)

    conn = (connect or psycopg.connect)(database_url, autocommit=True)
    try:
        conn.execute("SELECT pg_advisory_lock(%s)", (lock_key(table),))
        try:
            _ensure_table(conn, table)
            applied = {row[0]: row for row in conn.execute(
                f"SELECT version, name, checksum, state, error FROM {table} ORDER BY version").fetchall()}
            by_version = {m.version: m for m in migrations}
            for version, (_, name, sum_, state, error) in applied.items():
                if state == "failed":
                    raise MigrationError(
                        f"migration {name} failed on an earlier run ({error}); fix the cause, then run "
                        f"`python -m schemac migrate resolve --version {version}` before applying again")
                m = by_version.get(version)
                if m is None:
                    raise MigrationError(f"the database has migration {name}, which is not in {history.directory}")
                if checksum(m.up) != sum_:
                    raise MigrationError(f"migration {m.base} was edited after it was applied (checksum differs); "
                                         "restore the file and put changes in a new migration")
            top = max(applied, default=0)
            if not applied:
                _refuse_other_runner(conn)
            pending = [m for m in migrations if m.version not in applied]
            late = [m for m in pending if m.version < top]
            if late:
                raise MigrationError(f"migration {late[0].base} is older than the latest applied version {top}; "
                                     "renumber it after the latest migration (generate-migrations does)")
            if not pending:
                say(f"nothing to do: the database is at version {top}")
                report.current_version = top
                return report
            for m in pending:
                _apply_one(conn, table, m, say)
                report.applied.append(m.base)
                top = m.version
            report.current_version = top
            say(f"done: the database is at version {top}")
            return report
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (lock_key(table),))
    finally:
        conn.close()


def _refuse_other_runner(conn) -> None:
    """A database golang-migrate manages (its ``schema_migrations`` has a version) is not ours
    to apply to: both runners would apply every file."""
    row = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    if row and row[0]:
        version = conn.execute("SELECT max(version) FROM schema_migrations").fetchone()
        if version and version[0] is not None:
            raise MigrationError(
                f"this database is managed by golang-migrate (schema_migrations is at version {version[0]}): "
                "use one runner per database (keep using golang-migrate here, or start from an empty database)")


def _ensure_table(conn, table: str) -> None:
    conn.execute(
        f"""CREATE TABLE IF NOT EXISTS {table} (
    version bigint PRIMARY KEY,
    name text NOT NULL,
    checksum text NOT NULL,
    state text NOT NULL CHECK (state IN ('applied', 'failed')),
    error text,
    applied_at timestamptz NOT NULL DEFAULT now(),
    execution_ms integer NOT NULL DEFAULT 0
)""")


def _apply_one(conn, table: str, m: _Migration, say: Callable[[str], None]) -> None:
    import psycopg

    started = time.monotonic()
    try:
        if m.no_transaction:
            conn.execute(m.up)
            _record(conn, table, m, "applied", None, started)
        else:
            with conn.transaction():
                conn.execute(m.up)
                _record(conn, table, m, "applied", None, started)
    except psycopg.Error as e:
        diag = e.diag
        where = f"SQLSTATE {e.sqlstate}: {diag.message_primary or str(e).strip()}"
        if diag.message_detail:
            where += f" ({diag.message_detail})"
        if diag.message_hint:
            where += f" (hint: {diag.message_hint})"
        _record(conn, table, m, "failed", where, started)
        note = ("nothing of it was applied" if not m.no_transaction
                else "it ran outside a transaction: check for an INVALID index before resolving")
        raise MigrationError(f"migration {m.base} failed, {note}: {where}", e.sqlstate) from None
    say(f"applied {m.base} ({int((time.monotonic() - started) * 1000)} ms)")


def _record(conn, table: str, m: _Migration, state: str, error: Optional[str], started: float) -> None:
    conn.execute(
        f"INSERT INTO {table} (version, name, checksum, state, error, execution_ms) VALUES (%s, %s, %s, %s, %s, %s)",
        (m.version, m.base, checksum(m.up), state, error, int((time.monotonic() - started) * 1000)))


def resolve(database_url: str, history: History, version: int, table: str = DEFAULT_TABLE, connect=None) -> str:
    """Clear the failure record of ``version`` so ``apply`` retries it; for a migration that ran
    outside a transaction, first run its down file (which drops a half-built index)."""
    import psycopg

    if not _IDENT.match(table):
        raise MigrationError(f"invalid history table name {table!r}")
    conn = (connect or psycopg.connect)(database_url, autocommit=True)
    try:
        conn.execute("SELECT pg_advisory_lock(%s)", (lock_key(table),))
        try:
            _ensure_table(conn, table)
            row = conn.execute(f"SELECT name, state FROM {table} WHERE version = %s", (version,)).fetchone()
            if row is None or row[1] != "failed":
                raise MigrationError(f"version {version} has no failure to resolve")
            m = next((x for x in _migrations(history) if x.version == version), None)
            if m is not None and m.no_transaction:
                down = history.migrations.get(f"{m.base}.down.sql")
                if down:
                    conn.execute(down)
            conn.execute(f"DELETE FROM {table} WHERE version = %s", (version,))
            return f"resolved {row[0]}: apply will run it again"
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (lock_key(table),))
    finally:
        conn.close()
