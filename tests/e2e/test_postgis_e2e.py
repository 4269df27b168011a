"""Gel's ``ext::postgis`` (https://docs.geldata.com/reference/stdlib/postgis) on PostgreSQL 15
with PostGIS (Debian's postgresql-15-postgis-3, which tests/run installs when the server lacks
it): the migration creates the extension before the tables and drops it last, geometry and
geography properties are PostGIS columns, the functions Gel exposes (PostGIS's ``ST_`` names
without the prefix) lower to them, and the runners read and write the values as the text
PostGIS prints and reads: hex EWKB out, WKT / EWKT / hex in. Through psycopg, the TypeScript
runner (tsc --strict) and the pgx runner (gofmt, go vet)."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

HERE = Path(__file__).parent

SCHEMA = """\
using extension postgis;

module default {
  type Place {
    required name: str { constraint exclusive; };
    required point: ext::postgis::geometry;
    area: ext::postgis::geography;
  }
  type Trip {
    required label: str;
    required start: Place;
  }
}
"""

QUERIES = {
    "add_place": ("insert Place { name := <str>$name, point := <ext::postgis::geometry>$point,\n"
                  "  area := <optional ext::postgis::geography>$area };"),
    "add_trip": "insert Trip { label := <str>$label, start := (select Place filter .name = <str>$place) };",
    "near": ("select Place { name, point, wkt := <str>.point, x := ext::postgis::x(.point),\n"
             "  srid := ext::postgis::srid(.point),\n"
             "  d := ext::postgis::distance(.point, ext::postgis::makepoint(<float64>$x, <float64>$y)) }\n"
             "filter ext::postgis::dwithin(.point, ext::postgis::makepoint(<float64>$x, <float64>$y), <float64>$r)\n"
             "order by ext::postgis::distance(.point, ext::postgis::makepoint(<float64>$x, <float64>$y)) then .name;"),
    "trips": "select Trip { label, start: { name, point, area } } order by .label;",
    "origin": "select ext::postgis::setsrid(ext::postgis::makepoint(1.0, 2.0), 4326);",
    "area_of": "select Place { name, m2 := ext::postgis::area(.area) } filter exists .area order by .name;",
}

# POINT(1 2) with SRID 4326, as PostGIS prints it (hex EWKB, little-endian)
POINT_1_2_4326 = "0101000020E6100000000000000000F03F0000000000000040"
SQUARE = "SRID=4326;POLYGON((0 0,0 0.001,0.001 0.001,0.001 0,0 0))"


@pytest.fixture
def postgis_db(pg):
    if not pg.execute("SELECT count(*) FROM pg_available_extensions WHERE name = 'postgis'")[0][0]:
        message = "PostGIS is not installed on the test server (tests/run installs postgresql-15-postgis-3)"
        if os.environ.get("SCHEMAC_TESTS_RUN") == "1":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return pg


def _sources():
    out = {"geo/schema.gel": SCHEMA}
    out.update({f"geo/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return out


def _compiled(tmp_path: Path, go_driver: str = "pgx") -> Path:
    out = tmp_path / f"gen-{go_driver.replace('/', '-')}"
    for rel, text in compile_library(_sources(), Options(library="geo", go_driver=go_driver)).items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return out


def _run(db, plan, *args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return db.execute(sql, {f"p{i}": a for i, a in enumerate(args, 1)})


def test_postgis_migration_types_and_functions_on_postgres(postgis_db, tmp_path):
    db = postgis_db
    out = _compiled(tmp_path)
    up = (out / "sql" / "000001_init.up.sql").read_text()
    assert up.index('CREATE EXTENSION IF NOT EXISTS "postgis";') < up.index('CREATE TABLE "place"')
    assert '"point" geometry NOT NULL' in up and '"area" geography' in up
    db.execute(up)
    plans = {q.name: q for q in check_library(_sources(), Options(library="geo")).queries}
    # WKT, EWKT and hex EWKB are all read; values come back as hex EWKB
    _run(db, plans["add_place"], "home", "POINT(0 0)", SQUARE)
    _run(db, plans["add_place"], "shop", "SRID=0;POINT(3 4)", None)
    _run(db, plans["add_place"], "far", "0101000000000000000000244000000000000024C0", None)  # POINT(10 -10)
    rows = _run(db, plans["near"], 0.0, 0.0, 6.0)
    assert [(r[0], r[2], r[3], r[4], r[5]) for r in rows] == [
        ("home", "POINT(0 0)", 0.0, 0, 0.0), ("shop", "POINT(3 4)", 3.0, 0, 5.0)]
    assert rows[0][1] == "010100000000000000000000000000000000000000"
    assert _run(db, plans["near"], 10.0, -9.0, 1.0) == [
        ("far", "0101000000000000000000244000000000000024C0", "POINT(10 -10)", 10.0, 0, 1.0)]
    assert _run(db, plans["origin"]) == [(POINT_1_2_4326,)]
    # geography area in square metres (a 0.001 degree square at the equator: about 12,300 m2)
    (name, m2), = _run(db, plans["area_of"])
    assert name == "home" and 12000 < m2 < 12500
    # inside a nested shape (JSON) the same hex text, not PostGIS's GeoJSON cast
    _run(db, plans["add_trip"], "t1", "shop")
    (label, start), = _run(db, plans["trips"])
    assert start == {"name": "shop", "point": "010100000000000000000008400000000000001040", "area": None}
    # down drops the extension, up creates it again
    db.execute((out / "sql" / "000001_init.down.sql").read_text())
    assert db.execute("SELECT count(*) FROM pg_extension WHERE extname = 'postgis'") == [(0,)]
    db.execute(up)
    assert db.execute("SELECT count(*) FROM pg_extension WHERE extname = 'postgis'") == [(1,)]


@pytest.mark.parametrize("query, code", [
    ("select ext::postgis::makepoint(1.0)", "E0304"),
    ("select ext::postgis::distance(ext::postgis::makepoint(1.0, 2.0), <ext::postgis::geography>$g)", "E0304"),
    ("select ext::postgis::no_such_thing(1.0)", "E0206"),
])
def test_postgis_call_errors(query, code):
    from schemac.diagnostics import CompileError

    with pytest.raises(CompileError) as err:
        check_library({"geo/schema.gel": SCHEMA, "geo/q.edgeql": query}, Options(library="geo"))
    assert [d.code for d in err.value.diagnostics] == [code]


def test_postgis_types_need_the_extension():
    from schemac.diagnostics import CompileError

    with pytest.raises(CompileError) as err:
        check_library({"geo/schema.gel": SCHEMA.replace("using extension postgis;", "")}, Options(library="geo"))
    assert {d.code for d in err.value.diagnostics} == {"E0201"}


@pytest.mark.slow
def test_typescript_runner_reads_and_writes_postgis_values(postgis_db, tsc_run, tmp_path):
    out = _compiled(tmp_path)
    postgis_db.execute((out / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(out / "ts", src / "gen")
    shutil.copy(HERE / "postgis_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts", database_url=postgis_db.url)
    got = json.loads(result.stdout.strip().splitlines()[-1])
    assert got == {"near": [["home", "POINT(0 0)", 0], ["shop", "POINT(3 4)", 5]], "origin": POINT_1_2_4326,
                   "start": {"name": "shop", "point": "010100000000000000000008400000000000001040", "area": None}}


@pytest.mark.slow
@pytest.mark.parametrize("driver", ["pgx", "database/sql"])
def test_go_runner_reads_and_writes_postgis_values(postgis_db, go_run, tmp_path, driver):
    out = _compiled(tmp_path, driver)
    postgis_db.execute((out / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(out / "go", mod / "geo")
    test = "postgis_pgx_test.go" if driver == "pgx" else "postgis_sql_test.go"
    (mod / "e2e").mkdir()
    shutil.copy(HERE / "postgis_go" / "e2e" / test, mod / "e2e" / test)
    result = go_run(mod, test_args=("-count=1", "-v"), database_url=postgis_db.url)
    assert "--- PASS: TestPostgis" in result.test.stdout
