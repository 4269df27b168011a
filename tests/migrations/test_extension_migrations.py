"""Extensions in migrations (https://docs.geldata.com/reference/datamodel/extensions): adding
``using extension`` creates the Postgres extension before the columns and indexes that use it,
removing it drops the extension after them; the snapshot records them; each step is applied to
a real database, reverted by its down migration and applied again (up -> down -> up). pg_trgm
and fuzzystrmatch on PostgreSQL 15, pgvector on the PostgreSQL 16 + vector server."""

from __future__ import annotations

import json

from migration_harness import Lib, db_catalog

V1 = """
type Person {
  required name: str;
}
"""

V2 = """
using extension pg_trgm;
using extension fuzzystrmatch;
type Person {
  required name: str;
  index ext::pg_trgm::gin on (.name);
}
"""

V3 = """
using extension fuzzystrmatch;
type Person {
  required name: str;
}
"""


def _extensions(db):
    return sorted(r[0] for r in db.execute("SELECT extname FROM pg_extension WHERE extname <> 'plpgsql'"))


def _state(db):
    return db_catalog(db.conn), _extensions(db)


def _step_and_roundtrip(lib: Lib, db, schema: str):
    before = _state(db)
    first = lib.history().last_version + 1
    gen = lib.generate(schema)
    assert gen is not None and not gen.plan.errors, gen and gen.plan.errors
    versions = range(first, lib.history().last_version + 1)  # an index on an existing table: a file of its own
    lib.apply(db.url)
    after = _state(db)
    lib.run_files(db.conn, versions, "down")
    assert _state(db) == before
    lib.run_files(db.conn, versions, "up")
    assert _state(db) == after
    return lib.up_sql(versions), lib.down_sql(versions), after


def test_extensions_are_added_and_dropped_by_migrations(tmp_path, pg):
    lib = Lib(tmp_path)
    lib.generate(V1)
    lib.apply(pg.url)
    pg.execute("INSERT INTO person (name) VALUES ('Ada'), ('Grace')")
    up, down, (_, exts) = _step_and_roundtrip(lib, pg, V2)
    assert exts == ["fuzzystrmatch", "pg_trgm"]
    assert up.index('CREATE EXTENSION IF NOT EXISTS "fuzzystrmatch";') < up.index(
        'CREATE EXTENSION IF NOT EXISTS "pg_trgm";') < up.index("USING gin (\"name\" gin_trgm_ops)")
    assert down.index('DROP INDEX') < down.index('DROP EXTENSION IF EXISTS "fuzzystrmatch";')
    snapshot = json.loads((lib.migrations / "snapshot.json").read_text())
    assert snapshot["extensions"] == ["fuzzystrmatch", "pg_trgm"]
    up, down, (_, exts) = _step_and_roundtrip(lib, pg, V3)
    assert exts == ["fuzzystrmatch"]
    assert up.index("DROP INDEX") < up.index('DROP EXTENSION IF EXISTS "pg_trgm";')
    assert 'CREATE EXTENSION IF NOT EXISTS "pg_trgm";' in down
    assert pg.execute("SELECT name FROM person ORDER BY name") == [("Ada",), ("Grace",)]
    # Unchanged: nothing to generate.
    assert lib.generate(V3) is None


def test_a_vector_property_and_its_index_arrive_with_the_extension(tmp_path, pgvector_db):
    lib = Lib(tmp_path)
    lib.generate(V1)
    lib.apply(pgvector_db.url)
    v2 = ("using extension pgvector;\ntype Person {\n  required name: str;\n  face: ext::pgvector::vector<2>;\n"
          "  index ext::pgvector::hnsw_cosine on (.face);\n}\n")
    up, _, (catalog, exts) = _step_and_roundtrip(lib, pgvector_db, v2)
    assert exts == ["vector"]
    assert up.index('CREATE EXTENSION IF NOT EXISTS "vector";') < up.index('ADD COLUMN "face" vector(2)')
    assert any("USING hnsw (face vector_cosine_ops)" in d for _, d, _ in catalog["person"]["indexes"])
    # A changed index argument is a new index (its name hashes the arguments).
    v3 = v2.replace("hnsw_cosine on", "hnsw_cosine(m := 8) on")
    up, _, (catalog, _) = _step_and_roundtrip(lib, pgvector_db, v3)
    assert "DROP INDEX" in up and "WITH (m = 8)" in up
    assert any("WITH (m='8')" in d for _, d, _ in catalog["person"]["indexes"])


def _sequences(db):
    return [r[0] for r in db.execute("SELECT relname FROM pg_class WHERE relkind = 'S' ORDER BY 1")]


def test_a_sequence_scalar_arrives_and_leaves_with_its_sequence(tmp_path, pg):
    """``scalar type N extending sequence`` (https://docs.geldata.com/reference/stdlib/sequence):
    a migration adding a property of a new sequence type creates the sequence first; existing
    rows are numbered by it; removing the type drops the sequence after the column."""
    lib = Lib(tmp_path)
    lib.generate(V1)
    lib.apply(pg.url)
    pg.execute("INSERT INTO person (name) VALUES ('Ada'), ('Grace')")
    v2 = "scalar type PersonNo extending sequence;\n" + V1.replace("required name: str;",
                                                                    "required name: str;\n  number: PersonNo;")
    up, down, _ = _step_and_roundtrip(lib, pg, v2)
    assert up.index('CREATE SEQUENCE IF NOT EXISTS "seq_person_no";') < up.index('ADD COLUMN "number"')
    # (the round trip's down dropped the sequence with the column; up numbered the rows afresh)
    assert sorted(r[0] for r in pg.execute("SELECT number FROM person")) == [1, 2]
    assert json.loads((lib.migrations / "snapshot.json").read_text())["sequences"] == ["seq_person_no"]
    v3 = V1 + "\nmigration { drop property Person.number; }\n"
    up, down, _ = _step_and_roundtrip(lib, pg, v3)
    assert up.index('DROP COLUMN "number"') < up.index('DROP SEQUENCE IF EXISTS "seq_person_no";')
    assert _sequences(pg) == []
