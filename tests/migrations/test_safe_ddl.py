"""Safe DDL for tables that already exist (issue 14), case by case on Postgres 15 with rows in
the table: the statements generated, the lock each step takes (read from pg_locks while the
runner holds it), and that an application can read and write the table while the long steps
(index builds, validations) run. New tables need none of it (their files stay one transaction).

Lock levels: https://www.postgresql.org/docs/15/explicit-locking.html#LOCKING-TABLES and the
ALTER TABLE page's notes (https://www.postgresql.org/docs/15/sql-altertable.html#SQL-ALTERTABLE-NOTES)."""

from __future__ import annotations

import threading
import time
from typing import Dict, List, Optional, Set, Tuple

import psycopg
import pytest

from migration_harness import Lib, codes, db_catalog
from schemac.migrate.apply import MigrationError, apply, migrations_of
from schemac.migrate.history import split_statements

BASE = """
enum Status { Open, Closed }
type Owner { required name: str; }
type Ticket {
  required title: str;
  status: Status { default := Status.Open };
  note: str;
  prio: int64;
  owner: Owner;
  index on (.prio);
}
"""
ROWS = 5000


def _lib(tmp_path, pg, **opts) -> Lib:
    lib = Lib(tmp_path)
    lib.generate(BASE, **opts)
    lib.apply(pg.url)
    pg.execute("INSERT INTO owner (name) VALUES ('o')")
    pg.execute(f"INSERT INTO ticket (title, note, prio, owner_id) SELECT 't' || g, 'n', g, (SELECT id FROM owner) "
               f"FROM generate_series(1, {ROWS}) g")
    return lib


def _probe(url: str) -> Tuple[bool, bool]:
    """Can another session read and write ``ticket`` right now (without waiting over 200 ms)?"""
    with psycopg.connect(url, autocommit=True) as c:
        c.execute("SET lock_timeout = '200ms'")
        try:
            c.execute("SELECT count(*) FROM ticket").fetchone()
            read = True
        except psycopg.errors.LockNotAvailable:
            read = False
        try:
            with c.transaction():
                c.execute("UPDATE ticket SET note = note WHERE title = 't1'")
            write = True
        except psycopg.errors.LockNotAvailable:
            write = False
    return read, write


def _locks(side, pid: int) -> Dict[str, Set[str]]:
    out: Dict[str, Set[str]] = {}
    for rel, mode in side.execute(
            "SELECT c.relname, l.mode FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
            "WHERE l.pid = %s AND l.granted AND c.relname IN ('ticket', 'owner')", (pid,)).fetchall():
        out.setdefault(rel, set()).add(mode)
    return out


class Observed:
    """Per statement the runner ran in a transaction: the locks it held on ``ticket``/``owner``
    right after it (held until the file commits), and whether another session could read and
    write ``ticket`` then."""

    def __init__(self):
        self.steps: List[Tuple[str, Dict[str, Set[str]], bool, bool]] = []

    def find(self, fragment: str):
        hits = [s for s in self.steps if fragment in s[0]]
        assert hits, (fragment, [s[0][:60] for s in self.steps])
        return hits[0]


def _apply_observed(pg, lib: Lib, **kw) -> Observed:
    obs = Observed()
    side = pg.connect()

    def hook(event, m, i, stmt):
        if event != "after" or m.no_transaction or stmt.startswith("SET"):
            return
        pid = side.execute("SELECT pid FROM pg_stat_activity WHERE application_name = 'schemac migrate' "
                           "AND datname = current_database()").fetchone()[0]
        read, write = _probe(pg.url)
        obs.steps.append((stmt, _locks(side, pid), read, write))

    apply(pg.url, lib.history(), hook=hook, **kw)
    side.close()
    return obs


def _during_no_transaction_statement(pg, lib: Lib, fragment: str):
    """Apply with an open transaction that wrote to ``ticket``: the runner's concurrent
    statement (``fragment``) then waits for it. Meanwhile, return the runner's locks and whether
    others can read and write ``ticket``; then let it finish."""
    blocker = pg.connect(autocommit=False)
    blocker.execute("UPDATE ticket SET note = note WHERE title = 't2'")
    result: Dict[str, object] = {}
    errors: List[Exception] = []

    def run():
        try:
            result["report"] = apply(pg.url, lib.history())
        except Exception as e:  # reported below
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    deadline = time.monotonic() + 30
    pid = None
    while time.monotonic() < deadline and pid is None:
        row = pg.execute("SELECT pid FROM pg_stat_activity WHERE query LIKE %s AND wait_event_type = 'Lock' "
                         "AND datname = current_database()", (f"%{fragment}%",))
        pid = row[0][0] if row else None
        time.sleep(0.02)
    assert pid is not None, f"the runner never waited in {fragment}"
    side = pg.connect()
    locks = _locks(side, pid)
    read, write = _probe(pg.url)
    blocker.rollback()
    t.join(60)
    assert not errors, errors
    return locks, read, write, result["report"]


def test_new_tables_need_none_of_it(tmp_path):
    lib = Lib(tmp_path)
    gen = lib.generate(BASE)
    assert gen.versions == ["000001_init"]
    up = lib.up_sql(1)
    assert "NOT VALID" not in up and "CONCURRENTLY" not in up
    assert up.index("SET LOCAL lock_timeout = '5s';") < up.index("SET LOCAL statement_timeout = '1min';") < \
        up.index("CREATE TABLE")
    # A new table added later, with an index and a foreign key to an existing table: same.
    gen = lib.generate(BASE + "type Tag { required label: str; ticket: Ticket; index on (.label); }")
    assert len(gen.versions) == 1 and "CONCURRENTLY" not in lib.up_sql(2) and "NOT VALID" not in lib.up_sql(2)


def test_index_is_built_concurrently_in_its_own_file_writes_go_on(tmp_path, pg):
    lib = _lib(tmp_path, pg)
    gen = lib.generate(BASE.replace("index on (.prio);", "index on (.prio);\n  index on (.title);"))
    assert gen.versions == ["000002_create_index_ix_ticket_title"]
    up = lib.up_sql(2)
    assert "-- schemac:no-transaction" in up and "-- schemac:set lock_timeout = '5s'" in up
    assert "-- schemac:set statement_timeout = '0'" in up
    assert [s for s in split_statements(up)] == ['CREATE INDEX CONCURRENTLY IF NOT EXISTS "ix_ticket_title"\n'
                                                 '  ON "ticket" ("title")']
    assert "LK101" not in codes(gen.plan.lints)
    locks, read, write, _ = _during_no_transaction_statement(pg, lib, "CREATE INDEX CONCURRENTLY")
    assert locks == {"ticket": {"ShareUpdateExclusiveLock"}} and read and write
    assert pg.execute("SELECT indisvalid FROM pg_index WHERE indexrelid = 'ix_ticket_title'::regclass") == [(True,)]
    # Re-runnable after a partial failure: the file runs again without error.
    for stmt in split_statements(up):
        pg.execute(stmt)


def test_blocking_indexes_opt_out_for_small_tables(tmp_path, pg):
    lib = _lib(tmp_path, pg, online_indexes=False)
    gen = lib.generate(BASE.replace("index on (.prio);", "index on (.prio);\n  index on (.title);"),
                       online_indexes=False,  # squawk says what LK101 says:
                       squawk_expect=("require-concurrent-index-creation", "require-concurrent-index-deletion"))
    assert len(gen.versions) == 1 and "CONCURRENTLY" not in lib.up_sql(2)
    assert codes(gen.plan.lints).count("LK101") == 1
    obs = _apply_observed(pg, lib)
    stmt, locks, read, write = obs.find('CREATE INDEX "ix_ticket_title"')
    assert "ShareLock" in locks["ticket"] and read and not write  # writes wait for a blocking build


def test_index_is_dropped_concurrently_before_the_main_file(tmp_path, pg):
    lib = _lib(tmp_path, pg)
    gen = lib.generate(BASE.replace("  index on (.prio);\n", "").replace("note: str;", "note: str;\n  done: bool;"))
    assert gen.versions[0] == "000002_drop_index_ix_ticket_prio"
    up, down = lib.up_sql(2), lib.down_sql(2)
    assert split_statements(up) == ['DROP INDEX CONCURRENTLY IF EXISTS "ix_ticket_prio"']
    assert split_statements(down) == ['CREATE INDEX CONCURRENTLY IF NOT EXISTS "ix_ticket_prio"\n  ON "ticket" ("prio")']
    locks, read, write, report = _during_no_transaction_statement(pg, lib, "DROP INDEX CONCURRENTLY")
    assert locks == {"ticket": {"ShareUpdateExclusiveLock"}} and read and write
    assert report.applied == gen.versions
    assert pg.execute("SELECT to_regclass('ix_ticket_prio')") == [(None,)]


def test_foreign_key_and_check_added_not_valid_then_validated_without_blocking(tmp_path, pg):
    lib = _lib(tmp_path, pg)
    v2 = BASE.replace("note: str;", "note: str { constraint max_len_value(20); };") \
        .replace("owner: Owner;", "owner: Owner;\n  reviewer: Owner;")
    gen = lib.generate(v2)
    # main file, the new link's index (built concurrently), the validations
    assert len(gen.versions) == 3 and gen.versions[1] == "000003_create_index_ix_ticket_reviewer_id"
    assert gen.versions[2].endswith("_validate")
    up = lib.up_sql(2)
    assert 'ADD CONSTRAINT "ck_ticket_note_max_len_value" CHECK (char_length(note) <= 20) NOT VALID;' in up
    assert 'REFERENCES "owner" ("id") ON DELETE RESTRICT NOT VALID;' in up
    assert "VALIDATE" not in up  # NOT VALID and VALIDATE never share a transaction
    fin = lib.up_sql(4)
    assert 'VALIDATE CONSTRAINT "ck_ticket_note_max_len_value";' in fin and 'VALIDATE CONSTRAINT "fk_ticket_reviewer_id";' in fin
    assert "SET LOCAL statement_timeout = '0';" in fin
    obs = _apply_observed(pg, lib)
    # ADD ... NOT VALID: a short lock and no scan.
    _, locks, read, write = obs.find('ADD CONSTRAINT "ck_ticket_note_max_len_value"')
    assert "AccessExclusiveLock" in locks["ticket"]
    _, locks, _, _ = obs.find('ADD CONSTRAINT "fk_ticket_reviewer_id"')
    assert "ShareRowExclusiveLock" in locks["owner"]
    # VALIDATE: SHARE UPDATE EXCLUSIVE on the table (ROW SHARE on the referenced one): the
    # application reads and writes while the rows are checked.
    _, locks, read, write = obs.find('VALIDATE CONSTRAINT "ck_ticket_note_max_len_value"')
    assert locks["ticket"] == {"ShareUpdateExclusiveLock"} and read and write
    _, locks, read, write = obs.find('VALIDATE CONSTRAINT "fk_ticket_reviewer_id"')
    # (the validating query also reads the table: ACCESS SHARE)
    assert "ShareUpdateExclusiveLock" in locks["ticket"]
    assert locks["ticket"] <= {"ShareUpdateExclusiveLock", "AccessShareLock"} and "RowShareLock" in locks["owner"]
    assert read and write
    assert pg.execute("SELECT bool_and(convalidated) FROM pg_constraint WHERE conrelid = 'ticket'::regclass") == [(True,)]


def test_a_row_that_breaks_the_new_check_stops_the_validation_not_the_main_file(tmp_path, pg):
    lib = _lib(tmp_path, pg)
    pg.execute("UPDATE ticket SET note = repeat('x', 30) WHERE title = 't3'")
    lib.generate(BASE.replace("note: str;", "note: str { constraint max_len_value(20); };"))
    with pytest.raises(MigrationError) as e:
        apply(pg.url, lib.history())
    assert e.value.sqlstate == "23514" and "_validate failed" in str(e.value)
    # The main file (ADD ... NOT VALID, no scan) was applied: new rows are already checked.
    assert pg.execute("SELECT version, state FROM schemac_migrations ORDER BY 1") == [
        (1, "applied"), (2, "applied"), (3, "failed")]
    with pytest.raises(psycopg.errors.CheckViolation):
        pg.execute("INSERT INTO ticket (title, note) VALUES ('new', repeat('y', 30))")


def test_unique_constraint_from_a_concurrently_built_unique_index(tmp_path, pg):
    lib = _lib(tmp_path, pg)
    gen = lib.generate(BASE.replace("index on (.prio);", "index on (.prio);\n  constraint exclusive on (.title);"))
    assert gen.versions == ["000002_create_index_uq_ticket_title", "000003_add_exclusive_uq_ticket_title_validate"]
    assert split_statements(lib.up_sql(2)) == ['CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "uq_ticket_title"\n'
                                                '  ON "ticket" ("title")']
    assert 'ADD CONSTRAINT "uq_ticket_title" UNIQUE USING INDEX "uq_ticket_title";' in lib.up_sql(3)
    assert "MF101" in codes(gen.plan.lints)
    locks, read, write, _ = _during_no_transaction_statement(pg, lib, "CREATE UNIQUE INDEX CONCURRENTLY")
    assert locks == {"ticket": {"ShareUpdateExclusiveLock"}} and read and write
    assert pg.execute("SELECT contype FROM pg_constraint WHERE conname = 'uq_ticket_title'") == [("u",)]
    # Down: the constraint is detached (its index goes with it).
    lib.run_files(pg.conn, range(2, 4), "down")
    assert pg.execute("SELECT to_regclass('uq_ticket_title')") == [(None,)]


def test_set_not_null_through_a_validated_check(tmp_path, pg):
    lib = _lib(tmp_path, pg)
    gen = lib.generate(BASE.replace("note: str;", "required note: str;"))
    up, fin = lib.up_sql(2), lib.up_sql(3)
    assert 'ADD CONSTRAINT "nn_ticket_note" CHECK ("note" IS NOT NULL) NOT VALID;' in up and "SET NOT NULL" not in up
    assert fin.index('VALIDATE CONSTRAINT "nn_ticket_note"') < fin.index('ALTER COLUMN "note" SET NOT NULL') < \
        fin.index('DROP CONSTRAINT IF EXISTS "nn_ticket_note"')
    assert "MF104" in codes(gen.plan.lints)
    obs = _apply_observed(pg, lib)
    _, locks, read, write = obs.find('VALIDATE CONSTRAINT "nn_ticket_note"')
    assert locks["ticket"] == {"ShareUpdateExclusiveLock"} and read and write
    _, locks, read, write = obs.find('SET NOT NULL')
    assert "AccessExclusiveLock" in locks["ticket"]  # brief: the validated CHECK spares the scan
    assert pg.execute("SELECT attnotnull FROM pg_attribute WHERE attrelid = 'ticket'::regclass "
                      "AND attname = 'note'") == [(True,)]
    assert pg.execute("SELECT count(*) FROM pg_constraint WHERE conname = 'nn_ticket_note'") == [(0,)]


def test_new_required_column_with_fill_and_volatile_default(tmp_path, pg):
    lib = _lib(tmp_path, pg)
    v2 = BASE.replace("note: str;", "note: str;\n  required size: int64;\n"
                      "  required seen: datetime { default := datetime_current() };") \
        + "migration { fill Ticket.size using (len(.title)); }"
    gen = lib.generate(v2)
    lints = codes(gen.plan.lints)
    assert "LK103" in lints and "MF103" not in lints  # the fill answers MF103: no warning left
    assert "BC105" in lints  # a deployed runner still inserts rows without size
    up = lib.up_sql(2)
    assert 'ADD COLUMN "seen" timestamptz;' in up and 'SET DEFAULT clock_timestamp();' in up
    assert 'UPDATE "ticket" SET "seen" = clock_timestamp() WHERE "seen" IS NULL;' in up
    before = pg.execute("SELECT relfilenode FROM pg_class WHERE relname = 'ticket'")
    apply(pg.url, lib.history())
    # No table rewrite (same relfilenode), every row filled.
    assert pg.execute("SELECT relfilenode FROM pg_class WHERE relname = 'ticket'") == before
    assert pg.execute("SELECT count(*) FROM ticket WHERE size = length(title) AND seen IS NOT NULL") == [(ROWS,)]


def test_lock_timeout_stops_a_migration_that_would_queue_behind_a_long_transaction(tmp_path, pg):
    lib = _lib(tmp_path, pg)
    lib.generate(BASE.replace("note: str;", "note: str;\n  done: bool;"), lock_timeout="300ms")
    assert "SET LOCAL lock_timeout = '300ms';" in lib.up_sql(2)
    reader = pg.connect(autocommit=False)
    reader.execute("SELECT count(*) FROM ticket")  # holds ACCESS SHARE until it ends
    started = time.monotonic()
    with pytest.raises(MigrationError) as e:
        apply(pg.url, lib.history())
    assert e.value.sqlstate == "55P03" and time.monotonic() - started < 5
    reader.rollback()


def test_timeout_values_are_checked(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "schema.esdl").write_text(BASE)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "pants-plugins")}
    r = subprocess.run([sys.executable, "-m", "schemac", "migrate", "generate", "--library", "lib", "--out",
                        "lib/migrations", "--lock-timeout", "5 seconds", "lib/schema.esdl"], cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--lock-timeout: '5 seconds' is not a timeout" in r.stderr, r.stderr
    assert not (tmp_path / "lib" / "migrations").exists()


def test_the_runner_sets_a_no_transaction_files_timeouts(tmp_path, pg):
    lib = _lib(tmp_path, pg)
    lib.generate(BASE.replace("index on (.prio);", "index on (.prio);\n  index on (.title);"), lock_timeout="1234ms")
    # Read the runner's own settings on its connection, right before the statement.
    import schemac.migrate.apply as runner

    values = []
    original = runner._run_statements

    def spy(conn, m, statements, hook_):
        if m.no_transaction:
            values.append((conn.execute("SHOW lock_timeout").fetchone()[0],
                           conn.execute("SHOW statement_timeout").fetchone()[0]))
        return original(conn, m, statements, hook_)

    runner._run_statements = spy
    try:
        apply(pg.url, lib.history())
    finally:
        runner._run_statements = original
    assert values == [("1234ms", "0")]


def test_bc_lints_name_what_breaks_a_deployed_runner_of_the_previous_version(tmp_path):
    lib = Lib(tmp_path)
    lib.generate(BASE)
    cases = [
        (BASE.replace("Open", "Active") + "migration { rename member Status.Open to Active; }",
         "BC103", "enum member 'Open' of ticket.status becomes 'Active'"),
        (BASE.replace("Open, Closed", "Open") + "migration { map member Status.Closed to Open; }",
         "BC103", "enum member 'Closed' of ticket.status becomes 'Open'"),
        (BASE.replace("prio: int64;", "prio: str;") + "migration { cast Ticket.prio; }",
         "BC104", "column ticket.prio changes from bigint to text"),
        (BASE.replace("note: str;", "note: str;\n  required size: int64;") + "migration { fill Ticket.size using (1); }",
         "BC105", "required column ticket.size has no default"),
        (BASE.replace("note: str;", "required note: str;") + "migration { fill Ticket.note using ('-'); }",
         "BC105", "column ticket.note becomes required without a default"),
        (BASE.replace("note: str;", "note: str;\n  required size: int64 { default := 0; };"), None, None),
    ]
    saved = lib.save()
    for schema, code, text in cases:
        lib.restore(saved)
        gen = lib.generate(schema)
        assert gen is not None and not gen.plan.errors, (schema, gen and gen.plan.errors)
        bc = [d for d in gen.plan.lints if d.code.startswith("BC")]
        if code is None:
            assert bc == [], bc
        else:
            assert [d.code for d in bc] == [code] and text in bc[0].message and "deployed runner" in bc[0].message, bc
