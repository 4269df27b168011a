"""Issue 25, item 3: an exclusive constraint across a type and its subtypes arrives and leaves with
the migrations (its triggers on every table of the hierarchy), and holds on Postgres after each
step (tests/compiler/test_wrong_results_25.py shows the rule itself)."""

from __future__ import annotations

import psycopg
import pytest

from migration_harness import Lib, db_catalog

V1 = "type User { required email: str { constraint exclusive; } }\n"
V2 = V1 + "type Admin extending User { level: int64; }\n"
V3 = "type User { required email: str { delegated constraint exclusive; } }\n" \
     "type Admin extending User { level: int64; }\n"


def _triggers(db):
    return sorted(r[0] for r in db.execute("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"))


def _step(lib: Lib, db, schema: str):
    before = db_catalog(db.conn)
    first = lib.history().last_version + 1
    gen = lib.generate(schema)
    assert gen is not None and not gen.plan.errors, gen and gen.plan.errors
    versions = range(first, lib.history().last_version + 1)
    lib.apply(db.url)
    after = db_catalog(db.conn)
    lib.run_files(db.conn, versions, "down")
    assert db_catalog(db.conn) == before
    lib.run_files(db.conn, versions, "up")
    assert db_catalog(db.conn) == after
    return lib.up_sql(versions), lib.down_sql(versions)


def test_exclusive_across_subtypes_arrives_and_leaves_with_migrations(tmp_path, pg):
    lib = Lib(tmp_path)
    lib.generate(V1)
    lib.apply(pg.url)
    assert _triggers(pg) == []
    pg.execute("INSERT INTO \"user\" (email) VALUES ('a@x')")
    up, down = _step(lib, pg, V2)  # a subtype: the triggers on both tables
    assert 'CREATE TRIGGER "uq_user_email_all"' in up and 'CREATE TRIGGER "uq_admin_email_all"' in up
    assert 'DROP TRIGGER' in down
    assert _triggers(pg) == ["uq_admin_email_all", "uq_user_email_all"]
    with pytest.raises(psycopg.errors.UniqueViolation):
        pg.execute("INSERT INTO admin (email) VALUES ('a@x')")
    up, down = _step(lib, pg, V3)  # delegated: per table again
    assert _triggers(pg) == []
    pg.execute("INSERT INTO admin (email) VALUES ('a@x')")
    assert lib.generate(V3) is None
