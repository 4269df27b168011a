"""Link properties of a single link (https://docs.geldata.com/reference/datamodel/linkprops)
arrive and leave with the migrations: a property added to, and dropped from, a link that holds
data (its ``<link>@<prop>`` column of the source table, and the trigger that empties an
optional link's properties with it); each step applies, reverts and re-applies on Postgres
(tests/compiler/test_single_link_props.py shows the queries)."""

from __future__ import annotations

from migration_harness import Lib, db_catalog

BASE = "type User { required name: str; }\n"
V1 = BASE + "type Issue { required title: str; owner: User; }\n"
V2 = BASE + "type Issue { required title: str; owner: User { note: str; }; }\n"
V3 = BASE + "type Issue { required title: str; owner: User { note: str; rank: int64 { default := 1; }; }; }\n"
V4 = BASE + "type Issue { required title: str; owner: User { rank: int64 { default := 1; }; }; }\n"


def _step(lib: Lib, db, schema: str, **opts):
    before = db_catalog(db.conn)
    first = lib.history().last_version + 1
    gen = lib.generate(schema, **opts)
    assert gen is not None and not gen.plan.errors, gen and gen.plan.errors
    versions = range(first, lib.history().last_version + 1)
    lib.apply(db.url)
    after = db_catalog(db.conn)
    lib.run_files(db.conn, versions, "down")
    assert db_catalog(db.conn) == before
    lib.run_files(db.conn, versions, "up")
    assert db_catalog(db.conn) == after
    return lib.up_sql(versions), lib.down_sql(versions)


def _cols(db):
    return [r[0] for r in db.execute("SELECT column_name FROM information_schema.columns "
                                     "WHERE table_name = 'issue' ORDER BY ordinal_position")]


def test_single_link_properties_arrive_and_leave_with_migrations(tmp_path, pg):
    lib = Lib(tmp_path)
    lib.generate(V1)
    lib.apply(pg.url)
    pg.execute("INSERT INTO \"user\" (id, name) VALUES ('00000000-0000-0000-0000-0000000000a1', 'ann')")
    pg.execute("INSERT INTO issue (title, owner_id) VALUES ('one', '00000000-0000-0000-0000-0000000000a1'), "
               "('two', NULL)")
    up, down = _step(lib, pg, V2)
    assert 'ADD COLUMN "owner@note" text' in up and 'DROP COLUMN "owner@note"' in down
    assert "owner@note" in _cols(pg)
    pg.execute("UPDATE issue SET \"owner@note\" = 'x'")  # the trigger keeps the unlinked row's empty
    assert pg.execute('SELECT title, "owner@note" FROM issue ORDER BY title') == [("one", "x"), ("two", None)]
    _step(lib, pg, V3)
    # (ADD COLUMN ... DEFAULT fills the unlinked row too: read as empty, .owner@rank)
    assert pg.execute('SELECT title, "owner@rank" FROM issue ORDER BY title') == [("one", 1), ("two", 1)]
    _step(lib, pg, V4, allow_destructive=True)  # (dropping a property deletes its values)
    assert "owner@note" not in _cols(pg) and "owner@rank" in _cols(pg)
    assert lib.generate(V4) is None
