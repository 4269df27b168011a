"""Exclusive constraints on expressions (https://docs.geldata.com/reference/datamodel/constraints)
in migrations: added, changed, following a renamed property and dropped, each applied to a
Postgres 15 database holding rows, reverted by its down migration and applied again."""

from __future__ import annotations

from migration_harness import Lib, codes, db_catalog

V1 = """
type Handle { required realm: str; required name: str; }
"""


def _start(tmp_path, pg, schema: str) -> Lib:
    lib = Lib(tmp_path)
    gen = lib.generate(schema)
    assert gen is not None and not gen.plan.errors, gen.plan.errors
    lib.apply(pg.url)
    return lib


def _step(lib: Lib, pg, schema: str):
    before = db_catalog(pg.conn)
    first = lib.history().last_version + 1
    gen = lib.generate(schema)
    assert gen is not None, "no change detected"
    assert not gen.plan.errors, [d.message for d in gen.plan.errors]
    versions = range(first, lib.history().last_version + 1)
    lib.apply(pg.url)
    after = db_catalog(pg.conn)
    lib.run_files(pg.conn, versions, "down")
    assert db_catalog(pg.conn) == before
    lib.run_files(pg.conn, versions, "up")
    assert db_catalog(pg.conn) == after
    return gen, "\n".join(lib.up_sql(v) for v in versions), after


def test_an_exclusive_on_expressions_is_added_changed_renamed_and_dropped(tmp_path, pg):
    lib = _start(tmp_path, pg, V1)
    pg.execute("INSERT INTO handle (realm, name) VALUES ('a', 'Bob'), ('b', 'BOB')")
    v2 = V1.replace("}\n", "constraint exclusive on ((.realm, str_lower(.name))); }\n")
    gen, up, after = _step(lib, pg, v2)
    assert 'CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "uq_handle_realm_name_expr"' in up
    assert '("realm", (lower(name)))' in up and "ADD CONSTRAINT" not in up
    assert "MF101" in codes(gen.plan.lints)
    assert any(n == "uq_handle_realm_name_expr" for n, _, _ in after["handle"]["indexes"])

    # Another expression on the same columns: the index is built again.
    v3 = v2.replace("str_lower(.name)", "str_upper(.name)")
    _, up, _ = _step(lib, pg, v3)
    assert 'DROP INDEX CONCURRENTLY IF EXISTS "uq_handle_realm_name_expr";' in up
    assert '("realm", (upper(name)))' in up

    # A renamed property: the index follows (renamed, not rebuilt).
    v4 = v3.replace("required name: str;", "required title: str;").replace("(.name)", "(.title)") + \
        "migration { rename property Handle.name to title; }"
    _, up, after = _step(lib, pg, v4)
    assert 'ALTER INDEX "uq_handle_realm_name_expr" RENAME TO "uq_handle_realm_title_expr";' in up
    assert "CREATE UNIQUE INDEX" not in up
    assert pg.execute("SELECT realm, title FROM handle ORDER BY realm") == [("a", "Bob"), ("b", "BOB")]

    # Dropped.
    v5 = V1.replace("required name: str;", "required title: str;")
    _, up, _ = _step(lib, pg, v5)
    assert 'DROP INDEX CONCURRENTLY IF EXISTS "uq_handle_realm_title_expr";' in up
    assert lib.generate(v5) is None


def test_a_duplicate_row_fails_the_migration_that_adds_it(tmp_path, pg):
    import pytest

    lib = _start(tmp_path, pg, V1)
    pg.execute("INSERT INTO handle (realm, name) VALUES ('a', 'Bob'), ('a', 'BOB')")
    gen = lib.generate(V1.replace("}\n", "constraint exclusive on ((.realm, str_lower(.name))); }\n"))
    assert gen is not None and "MF101" in codes(gen.plan.lints)
    with pytest.raises(Exception, match="uq_handle_realm_name_expr"):
        lib.apply(pg.url)


def test_an_exclusive_reading_no_column_survives_the_snapshot(tmp_path, pg):
    """``constraint exclusive on (true)`` (at most one object: the index reads no column) is
    saved in snapshot.json without a column list; the next generate reads it back (it failed
    with E0407 "not a schemac snapshot: 'columns'")."""
    import pytest

    from schemac.migrate.catalog import dump_snapshot, load_snapshot

    v1 = "type Singleton { required value: str; constraint exclusive on (true); }\n"
    lib = _start(tmp_path, pg, v1)
    snap = next(f for f in lib.migrations.iterdir() if f.name.endswith("snapshot.json"))
    assert load_snapshot(dump_snapshot(load_snapshot(snap.read_text()))) == load_snapshot(snap.read_text())
    pg.execute("INSERT INTO singleton (value) VALUES ('a')")
    with pytest.raises(Exception, match="uq_singleton"):
        pg.execute("INSERT INTO singleton (value) VALUES ('b')")
    v2 = v1.replace("required value: str;", "required value: str; note: str;")
    gen, up, _ = _step(lib, pg, v2)
    assert 'ADD COLUMN "note"' in up and "CREATE UNIQUE INDEX" not in up
    assert lib.generate(v2) is None
