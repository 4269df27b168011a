"""Properties of tuple types (https://docs.geldata.com/reference/stdlib/tuple) are stored as
Postgres composite types, one per distinct tuple type (``tuple_numeric_numeric`` with
attributes ``f0``, ``f1``; a named tuple's attributes are its names), created before the
columns that use them and dropped after them; the snapshot records them. Each step is applied
to PostgreSQL 15, reverted by its down migration and applied again (up -> down -> up), with
data. Queries reading or writing them are refused (E0206) until the runners map them."""

from __future__ import annotations

import json

import pytest

from migration_harness import Lib, db_catalog
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library
from schemac.semantics.library import Options

V1 = """
type Service {
  required name: str;
}
"""

V2 = """
type Service {
  required name: str;
  days: tuple<bool, bool, bool>;
  points: array<tuple<decimal, decimal>>;
  pos: tuple<x: float64, y: float64>;
  nested: tuple<str, tuple<int64, bool>>;
}
"""

V3 = """
type Service {
  required name: str;
  days: tuple<bool, bool, bool>;
  pos: tuple<x: float64, y: float64>;
}
migration { drop property Service.points; drop property Service.nested; }
"""


def _composites(db):
    return sorted(r[0] for r in db.execute(
        "SELECT t.typname FROM pg_type t JOIN pg_class c ON c.oid = t.typrelid WHERE c.relkind = 'c'"))


def _state(db):
    return db_catalog(db.conn), _composites(db)


def _step_and_roundtrip(lib: Lib, db, schema: str):
    before = _state(db)
    first = lib.history().last_version + 1
    gen = lib.generate(schema)
    assert gen is not None and not gen.plan.errors, gen and gen.plan.errors
    versions = range(first, lib.history().last_version + 1)
    lib.apply(db.url)
    after = _state(db)
    lib.run_files(db.conn, versions, "down")
    assert _state(db) == before
    lib.run_files(db.conn, versions, "up")
    assert _state(db) == after
    return lib.up_sql(versions), lib.down_sql(versions), after


def test_tuple_properties_are_composite_types_created_and_dropped_by_migrations(tmp_path, pg):
    lib = Lib(tmp_path)
    lib.generate(V1)
    lib.apply(pg.url)
    pg.execute("INSERT INTO service (name) VALUES ('old')")
    up, down, (_, types) = _step_and_roundtrip(lib, pg, V2)
    assert types == ["tuple_bigint_boolean", "tuple_boolean_boolean_boolean", "tuple_numeric_numeric",
                     "tuple_text_tuple_bigint_boolean", "tuple_x_double_precision_y_double_precision"]
    assert 'CREATE TYPE "tuple_numeric_numeric" AS ("f0" numeric, "f1" numeric);' in up
    assert 'CREATE TYPE "tuple_x_double_precision_y_double_precision" AS ("x" double precision, ' \
           '"y" double precision);' in up
    # an element tuple before the tuple holding it; the columns after their types
    assert up.index('CREATE TYPE "tuple_bigint_boolean"') < up.index('CREATE TYPE "tuple_text_tuple_bigint_boolean"') \
        < up.index('ADD COLUMN "nested"')
    assert down.index('DROP COLUMN "nested"') < down.index('DROP TYPE IF EXISTS "tuple_text_tuple_bigint_boolean"') \
        < down.index('DROP TYPE IF EXISTS "tuple_bigint_boolean"')
    snapshot = json.loads((lib.migrations / "snapshot.json").read_text())
    assert {"name": "tuple_numeric_numeric", "fields": [["f0", "numeric"], ["f1", "numeric"]]} \
        in snapshot["composites"]
    pg.execute("""INSERT INTO service (name, days, points, pos, nested) VALUES
                  ('new', ROW(true, false, true), ARRAY[ROW(1.5, 2.25), ROW(-3, 0.125)]::tuple_numeric_numeric[],
                   ROW(1.5, -2), ROW('n', ROW(7, true)))""")
    assert pg.execute("""SELECT (days).f0, (days).f1, (points[2]).f1, (pos).y, ((nested).f1).f0
                         FROM service WHERE name = 'new'""") == [(True, False, 0.125, -2.0, 7)]
    up, down, (_, types) = _step_and_roundtrip(lib, pg, V3)
    assert types == ["tuple_boolean_boolean_boolean", "tuple_x_double_precision_y_double_precision"]
    assert up.index('DROP COLUMN "points"') < up.index('DROP TYPE IF EXISTS "tuple_numeric_numeric"')
    assert pg.execute("SELECT name, (days).f2, (pos).x FROM service ORDER BY name") == [
        ("new", True, 1.5), ("old", None, None)]
    assert lib.generate(V3) is None  # unchanged: nothing to generate


def test_a_tuple_property_selected_whole_compiles():
    # since 5e85504 a tuple property is selected as any tuple is (its JSON); an array of tuples is not
    plan = {q.name: q for q in check_library({"s.esdl": V2, "q/q.edgeql": "select Service { name, days };"},
                                             Options(library="c")).queries}["q"]
    assert "days" in plan.sql


@pytest.mark.parametrize("query, where", [
    ("select Service { name, points };", "1:24"),
    ("select Service { * };", "1:18"),
])
def test_queries_reading_an_array_of_tuples_are_refused_precisely(query, where):
    sources = {"s.esdl": V2, "q/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    text = exc.value.render(sources)
    assert f"q/q.edgeql:{where}: error[E0206]: an array<tuple<" in text and "value in a query is not supported yet" in text


def test_a_tuple_parameter_is_refused_precisely():
    sources = {"s.esdl": V2, "q/q.edgeql": "select <tuple<str, int64>>$t;"}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    assert "error[E0206]: tuple types ('tuple<str, int64>') are only supported as a property's type yet" \
        in exc.value.render(sources)
