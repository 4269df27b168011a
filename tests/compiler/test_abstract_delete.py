"""``delete A [filter f]`` of an abstract type ``A``: Gel deletes any set of objects
(https://docs.geldata.com/reference/edgeql/delete), and the objects of an abstract type are its
concrete subtypes' (https://docs.geldata.com/reference/datamodel/inheritance), each a table of
its own here: one statement deleting from each subtype's table (a CTE each, ``RETURNING *``),
returning the ids of every deleted object. ``.id = x`` pins at most one object (ids are unique
across the tables). Proven on PostgreSQL 15 with data, through the TypeScript and Go runners."""

from __future__ import annotations

import json

import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module fleet {
  abstract type Vehicle { required label: str; wheels: int32; }
  type Car extending Vehicle { plate: str; }
  type Bike extending Vehicle { }
}
module default {
  type Garage { required name: str; multi cars: fleet::Car { on target delete allow; }; }
}
"""

QUERIES = {
    "q/scrap_vehicle.edgeql": "with module fleet\ndelete Vehicle filter .id = <uuid>$id;",
    "q/scrap_wheeled.edgeql": "delete fleet::Vehicle filter .wheels >= <int32>$n;",
}


def _plans(**queries):
    sources = {"default.gel": SCHEMA}
    sources.update({f"q/{k}.edgeql": v for k, v in queries.items()})
    return {q.name: q for q in check_library(sources, Options(library="f")).queries}


def _seed(pg):
    pg.execute(compile_library({"default.gel": SCHEMA}, Options(library="f"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO fleet_car (label, wheels, plate) VALUES ('van', 4, 'A1'), ('truck', 6, 'B2')")
    pg.execute("INSERT INTO fleet_bike (label, wheels) VALUES ('bmx', 2), ('trike', 3)")
    pg.execute("INSERT INTO garage (name) VALUES ('north')")
    pg.execute("INSERT INTO garage_cars (source_id, target_id) SELECT g.id, c.id FROM garage g, fleet_car c")


def test_a_delete_of_an_abstract_type_deletes_from_each_subtypes_table(pg):
    _seed(pg)
    q = _plans(**{k[2:-7]: v for k, v in QUERIES.items()})
    assert q["scrap_vehicle"].cardinality == "at_most_one" and q["scrap_wheeled"].cardinality == "many"
    assert "DELETE FROM \"fleet_car\"" in q["scrap_wheeled"].sql and "DELETE FROM \"fleet_bike\"" in q["scrap_wheeled"].sql
    [(trike,)] = pg.execute("SELECT id FROM fleet_bike WHERE label = 'trike'")
    [(truck,)] = pg.execute("SELECT id FROM fleet_car WHERE label = 'truck'")
    assert run_plan(pg, q["scrap_wheeled"], 5) == [(truck,)]
    assert run_plan(pg, q["scrap_vehicle"], trike) == [(trike,)]
    assert run_plan(pg, q["scrap_vehicle"], trike) == []  # already gone
    left = pg.execute("SELECT label FROM fleet_car UNION ALL SELECT label FROM fleet_bike ORDER BY 1")
    assert left == [("bmx",), ("van",)]
    # the deleted truck's link row is gone with it (on target delete allow)
    assert pg.execute("SELECT count(*) FROM garage_cars") == [(1,)]


def test_a_delete_of_an_abstract_type_without_concrete_subtypes_is_a_located_e0206():
    sources = {"default.gel": "module default { abstract type Shape { required n: int32; } }",
               "q/a.edgeql": "delete Shape filter .n = 1;"}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="f"))
    text = exc.value.render(sources)
    assert "q/a.edgeql:1:8" in text and "error[E0206]" in text and "which no concrete type extends" in text, text


_TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as f from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const r = f.createRunner(pool).query;
  const bike = (await pool.query("SELECT id FROM fleet_bike WHERE label = 'bmx'")).rows[0].id;
  assert.deepEqual(await r.scrapVehicle({ id: bike }), { id: bike });
  assert.equal(await r.scrapVehicle({ id: bike }), null);
  assert.equal((await r.scrapWheeled({ n: 3 })).length, 3);
  assert.equal((await pool.query("SELECT 1 FROM fleet_car UNION ALL SELECT 1 FROM fleet_bike")).rows.length, 0);
  console.log(JSON.stringify({ abstractDelete: true }));
} finally {
  await pool.end();
}
"""

_GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	f "schemactest/f"
)

func TestAbstractDelete(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// (its own rows: the test runs once per Go toolchain on one database)
	var bike string
	if err := db.QueryRow(ctx, "INSERT INTO fleet_bike (label, wheels) VALUES ('fixie', 2) RETURNING id::text").Scan(&bike); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO fleet_car (label, wheels) VALUES ('cab', 4); INSERT INTO fleet_bike (label, wheels) VALUES ('tandem', 3)"); err != nil {
		t.Fatal(err)
	}
	q := f.New(db).Query
	row, err := q.ScrapVehicle(ctx, f.ScrapVehicleParams{ID: bike})
	if err != nil || row == nil || row.ID != bike {
		t.Fatalf("scrap vehicle: %v %v", row, err)
	}
	if row, err := q.ScrapVehicle(ctx, f.ScrapVehicleParams{ID: bike}); err != nil || row != nil {
		t.Fatalf("scrap vehicle again: %v %v", row, err)
	}
	rows, err := q.ScrapWheeled(ctx, f.ScrapWheeledParams{N: 3})
	if err != nil || len(rows) != 2 {
		t.Fatalf("scrap wheeled: %v %v", rows, err)
	}
}
"""


def _write_tree(files, root, prefix):
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = root / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


def _runner_files():
    return compile_library({"default.gel": SCHEMA, **QUERIES}, Options(library="f"))


@pytest.mark.slow
def test_a_delete_of_an_abstract_type_through_the_typescript_runner(pg, tsc_run, tmp_path):
    out = _runner_files()
    _seed(pg)
    _write_tree(out, tmp_path / "src" / "gen", "ts/")
    (tmp_path / "src" / "main.ts").write_text(_TS_MAIN)
    result = tsc_run(tmp_path / "src", "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"abstractDelete": True}


@pytest.mark.slow
def test_a_delete_of_an_abstract_type_through_the_go_runner(pg, go_run, tmp_path):
    out = _runner_files()
    pg.execute(out["sql/000001_init.up.sql"])
    _write_tree(out, tmp_path / "mod" / "f", "go/")
    (tmp_path / "mod" / "e2e").mkdir()
    (tmp_path / "mod" / "e2e" / "f_test.go").write_text(_GO_TEST)
    result = go_run(tmp_path / "mod", test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestAbstractDelete" in result.test.stdout
    assert pg.execute("SELECT count(*) FROM fleet_car") == [(0,)]
