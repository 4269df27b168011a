"""Get-or-insert, ``insert T {...} unless conflict on .k else (select T)``, and ``unless
conflict`` without else, on PostgreSQL 15 with data and two connections.

Gel's else branch is a select (https://docs.geldata.com/reference/edgeql/insert#upserts): the
existing object is returned, nothing is updated, so no update rewrite
(https://docs.geldata.com/reference/datamodel/mutation_rewrites) runs and no update trigger
(https://docs.geldata.com/reference/datamodel/triggers) fires. Without else, a conflict makes the
insert return nothing. Two transactions doing the same get-or-insert at once (also as a link's
value) both return the one object: neither fails with a unique violation, neither returns
nothing. The generated runners are run in tests/e2e/test_get_or_insert_e2e.py."""

from __future__ import annotations

import re
import threading
import time

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module default {
  type User {
    required email: str { constraint exclusive; };
    name: str;
    touched_at: datetime { rewrite insert, update using (datetime_of_statement()); };
    required revision: int64 { default := 0; rewrite update using (__old__.revision + 1); };
    trigger log_update after update for each do (insert Log { msg := 'update ' ++ __new__.email });
    trigger log_write after insert, update for each do (insert Log { msg := 'write ' ++ __new__.email });
  }
  type Log { required msg: str; }
  type Post { required title: str; required author: User; }
}
"""

QUERIES = {
    "get_user": "insert User { email := <str>$email } unless conflict on .email else (select User)",
    "get_user_shape": "select (insert User { email := <str>$email } unless conflict on .email else (select User))"
                      " { email, revision };",
    "add_user": "insert User { email := <str>$email } unless conflict on .email",
    "get_users": "for e in array_unpack(<array<str>>$emails) union "
                 "(insert User { email := e } unless conflict on .email else (select User))",
    "add_post": "insert Post { title := <str>$title, author := "
                "(insert User { email := <str>$email } unless conflict on .email else (select User)) }",
    "add_post_shape": "select (insert Post { title := <str>$title, author := (insert User { email := <str>$email } "
                      "unless conflict on .email else (select User)) }) { title, author: { email, revision } };",
    "rename": "update User filter .email = <str>$email set { name := <str>$name }",
}


@pytest.fixture
def db(pg):
    sources = {"default.gel": SCHEMA, **{f"q/{k}.edgeql": v for k, v in QUERIES.items()}}
    pg.execute(compile_library({"default.gel": SCHEMA}, Options(library="g"))["sql/000001_init.up.sql"])
    plans = {q.name: q for q in check_library(sources, Options(library="g")).queries}
    return pg, plans


def run(conn, plan, *args):
    cur = conn.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql), {f"p{i}": a for i, a in enumerate(args, 1)})
    return cur.fetchall()


def user(pg, email):
    return pg.execute("SELECT id, name, touched_at, revision FROM \"user\" WHERE email = %s", (email,))


def logs(pg):
    return [m for (m,) in pg.execute("SELECT msg FROM log ORDER BY msg")]


def test_the_sql_marks_the_row_it_returns(db):
    _, plans = db
    assert plans["get_user"].sql == (
        'WITH "_new" AS (\n'
        'INSERT INTO "user" ("email")\n'
        "VALUES ($1)\n"
        'ON CONFLICT ("email") DO UPDATE SET "id" = "user"."id"\n'
        "WHERE set_config('schemac.else_select', 'user', true) IS NOT NULL\n"
        "RETURNING \"id\", set_config('schemac.else_select', '', true) AS \"_else_select\"\n"
        ")\n"
        'SELECT "id" FROM "_new"')
    assert plans["add_user"].sql.endswith('ON CONFLICT ("email") DO NOTHING\nRETURNING "id"')


def test_a_get_returns_the_object_and_fires_no_update_rewrite_nor_trigger(db):
    pg, plans = db
    [(new,)] = run(pg.conn, plans["get_user"], "ann@x.org")
    before = user(pg, "ann@x.org")
    assert before[0][0] == new and before[0][3] == 0 and before[0][2] is not None  # the insert rewrite ran
    assert logs(pg) == ["write ann@x.org"]
    assert run(pg.conn, plans["get_user"], "ann@x.org") == [(new,)]
    assert run(pg.conn, plans["get_user_shape"], "ann@x.org") == [("ann@x.org", 0)]
    assert run(pg.conn, plans["get_users"], ["ann@x.org", "bob@x.org"]) == [(new,), (user(pg, "bob@x.org")[0][0],)]
    assert user(pg, "ann@x.org") == before  # same touched_at, revision 0
    assert logs(pg) == ["write ann@x.org", "write bob@x.org"]
    # Plain `unless conflict`: no object, nothing written.
    assert run(pg.conn, plans["add_user"], "ann@x.org") == []
    assert user(pg, "ann@x.org") == before and len(logs(pg)) == 2


def test_the_next_statements_of_the_transaction_update_as_usual(db):
    # The setting is cleared by the row's own RETURNING: an update of the same object later in
    # the same transaction (or statement) runs the rewrites and fires the triggers.
    pg, plans = db
    [(ann,)] = run(pg.conn, plans["get_user"], "ann@x.org")
    conn = pg.connect(autocommit=False)
    assert run(conn, plans["get_user"], "ann@x.org") == [(ann,)]
    assert conn.execute("SELECT current_setting('schemac.else_select', true)").fetchall() == [("",)]
    assert run(conn, plans["rename"], "ann@x.org", "Ann") == [(ann,)]
    conn.commit()
    [(_, name, _, revision)] = user(pg, "ann@x.org")
    assert (name, revision) == ("Ann", 1)  # the update rewrite ran
    assert logs(pg) == ["update ann@x.org", "write ann@x.org", "write ann@x.org"]


def test_a_get_or_insert_link_value_reuses_the_object_without_updating_it(db):
    pg, plans = db
    [(p1,)] = run(pg.conn, plans["add_post"], "One", "ann@x.org")
    assert run(pg.conn, plans["add_post_shape"], "Two", "ann@x.org") == [("Two", {"email": "ann@x.org", "revision": "0"})]  # (an int64 in JSON: a string)
    assert pg.execute('SELECT count(DISTINCT author_id), count(*) FROM post') == [(1, 2)]
    assert user(pg, "ann@x.org")[0][3] == 0
    assert logs(pg) == ["write ann@x.org"]


def _wait_until_blocked(pg, pid):
    for _ in range(200):
        if pg.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", (pid,)) == [("Lock",)]:
            return
        time.sleep(0.02)
    raise AssertionError("the second transaction did not wait for the first")


def _race(pg, plan, args1, args2, finish="commit", fails=None, isolation=None):
    """Transaction 1 runs ``plan`` and keeps its row uncommitted; transaction 2 (READ
    COMMITTED, another connection) runs it meanwhile and waits; transaction 1 then commits (or
    rolls back). Returns both results (``fails``: the error class transaction 2 must fail with;
    then returns it)."""
    one = pg.connect(autocommit=False)
    two = pg.connect(autocommit=False)
    if isolation is not None:
        two.isolation_level = isolation
    first = run(one, plan, *args1)
    result = {}

    def second():
        try:
            result["rows"] = run(two, plan, *args2)
            two.commit()
        except Exception as e:  # (reported by the assertion below)
            result["error"] = e

    t = threading.Thread(target=second)
    t.start()
    _wait_until_blocked(pg, two.info.backend_pid)
    getattr(one, finish)()
    t.join(10)
    if fails is not None:
        assert isinstance(result.get("error"), fails), result
        return result["error"]
    assert "error" not in result, result.get("error")
    return first, result["rows"]


def test_concurrent_get_or_inserts_return_the_one_object(db):
    pg, plans = db
    first, second = _race(pg, plans["get_user"], ("cy@x.org",), ("cy@x.org",))
    assert first == second and len(first) == 1
    assert [u[0] for u in user(pg, "cy@x.org")] == [first[0][0]]
    assert user(pg, "cy@x.org")[0][3] == 0 and logs(pg) == ["write cy@x.org"]


def test_concurrent_get_or_insert_link_values_link_the_one_object(db):
    pg, plans = db
    first, second = _race(pg, plans["add_post"], ("One", "di@x.org"), ("Two", "di@x.org"))
    assert len(first) == len(second) == 1 and first != second
    assert pg.execute('SELECT title, author_id FROM post ORDER BY title') == [
        ("One", user(pg, "di@x.org")[0][0]), ("Two", user(pg, "di@x.org")[0][0])]
    assert logs(pg) == ["write di@x.org"]


def test_a_concurrent_get_or_insert_inserts_when_the_other_rolls_back(db):
    pg, plans = db
    first, second = _race(pg, plans["get_user"], ("ed@x.org",), ("ed@x.org",), finish="rollback")
    assert len(second) == 1 and second != first
    assert [u[0] for u in user(pg, "ed@x.org")] == [second[0][0]]


def test_a_concurrent_plain_unless_conflict_returns_nothing(db):
    pg, plans = db
    first, second = _race(pg, plans["add_user"], ("fay@x.org",), ("fay@x.org",))
    assert len(first) == 1 and second == []
    assert [u[0] for u in user(pg, "fay@x.org")] == [first[0][0]]


def test_why_not_do_nothing_and_a_select_in_the_same_statement(db):
    # The lowering the get-or-insert does not use: DO NOTHING and a select of the existing row.
    # The select reads the statement's snapshot, taken before the other transaction committed
    # its row: in READ COMMITTED the statement returns nothing.
    pg, plans = db

    class Plan:
        sql = ('WITH "_new" AS (INSERT INTO "user" ("email") VALUES ($1) ON CONFLICT ("email") DO NOTHING '
               'RETURNING "id") SELECT "id" FROM "_new" UNION ALL SELECT "id" FROM "user" WHERE email = $1')

    first, second = _race(pg, Plan, ("gus@x.org",), ("gus@x.org",))
    assert len(first) == 1 and second == []


def test_a_get_or_insert_of_a_type_with_a_for_all_update_trigger_is_e0206():
    # Postgres fires the UPDATE statement triggers of every INSERT ... ON CONFLICT DO UPDATE.
    schema = SCHEMA.replace("trigger log_write", "trigger log_all after update for all do (insert Log { msg := 'all' });\n"
                            "    trigger log_write")
    sources = {"default.gel": schema, "q/g.edgeql": QUERIES["get_user"]}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="g"))
    text = exc.value.render(sources)
    assert "q/g.edgeql:1:64: error[E0206]: 'unless conflict ... else (select User)' of 'User', which has a 'for all' " \
           "update trigger ('log_all'), is not supported yet" in text, text


def test_the_if_exists_form_is_not_a_get_or_insert_under_concurrency(db):
    # `(with u := (select User filter .email = e) select if exists u then u else (insert User
    # {...}))` reads the statement's snapshot: the second of two concurrent ones fails with the
    # exclusive constraint's error (docs/language.md says so, and points to unless conflict).
    import psycopg

    pg, _ = db
    sources = {"default.gel": SCHEMA, "q/p.edgeql": (
        "with e := <str>$email insert Post { title := <str>$title, author := (with u := (select User filter "
        ".email = e) select if exists u then u else (insert User { email := e })) }")}
    [plan] = check_library(sources, Options(library="g")).queries
    _race(pg, plan, ("h@x.org", "One"), ("h@x.org", "Two"), fails=psycopg.errors.UniqueViolation)


def test_in_repeatable_read_the_second_get_or_insert_is_a_serialization_failure(db):
    # The row is not in the second transaction's snapshot: Postgres refuses to return it
    # (SQLSTATE 40001, retry the transaction), as docs/language.md says.
    import psycopg

    pg, plans = db
    _race(pg, plans["get_user"], ("ivy@x.org",), ("ivy@x.org",), isolation=psycopg.IsolationLevel.REPEATABLE_READ,
          fails=psycopg.errors.SerializationFailure)


def test_a_database_migrated_by_an_older_schemac_gets_the_when_conditions(pg):
    # The snapshot of an older schemac has no "when": the next migration drops and creates the
    # update triggers again, with it; a snapshot keeps it.
    import dataclasses
    import json

    from schemac.migrate.catalog import Catalog, catalog_of, dump_snapshot, load_snapshot
    from schemac.migrate.diff import diff

    new = catalog_of(check_library({"default.gel": SCHEMA}, Options(library="g")).schema)
    assert load_snapshot(dump_snapshot(new)) == new
    doc = json.loads(dump_snapshot(new))
    for t in doc["tables"]:
        for tr in t.get("triggers", []):
            tr.pop("when", None)
    old = load_snapshot(json.dumps(doc))
    assert old != new and all(tr.when is None for t in old.tables for tr in t.triggers)
    assert old == dataclasses.replace(new, tables=tuple(dataclasses.replace(
        t, triggers=tuple(dataclasses.replace(tr, when=None) for tr in t.triggers)) for t in new.tables))
    for statement in diff(Catalog((), {}), old).ordered():
        pg.execute(statement.sql)
    plan = diff(old, new)
    assert not plan.errors and sorted(plan.changes) == [
        "create trigger user.gel_log_update", "create trigger user.gel_log_write", "create trigger user.schemac_rewrite_update",
        "drop trigger user.gel_log_update", "drop trigger user.gel_log_write", "drop trigger user.schemac_rewrite_update"]
    for statement in plan.ordered():
        pg.execute(statement.sql)
    plans = {q.name: q for q in check_library(
        {"default.gel": SCHEMA, "q/get_user.edgeql": QUERIES["get_user"]}, Options(library="g")).queries}
    [(ann,)] = run(pg.conn, plans["get_user"], "ann@x.org")
    assert run(pg.conn, plans["get_user"], "ann@x.org") == [(ann,)]
    assert user(pg, "ann@x.org")[0][3] == 0 and logs(pg) == ["write ann@x.org"]
