"""``for`` loops over objects read by aggregates and ``group``
(https://docs.geldata.com/reference/edgeql/for: the bodies' results united, duplicates kept):

* ``others := (for c in mine union (select c.members filter .id != me.id))``, a body of objects:
  each object once per club that reaches it, counted and grouped
  (``group others by .handle``, https://docs.geldata.com/reference/edgeql/group, each duplicate
  an element of its group);
* ``sum((for c in Club union sum(c.members.age ?? 0)))``, ``max`` / ``min`` of such a loop: over
  the per-object values (https://docs.geldata.com/reference/stdlib/set);
* ``sum(.members.age ?? 0)``: ``??`` takes the path's values as a whole set, the right operand
  only when there is none (https://docs.geldata.com/reference/stdlib/set#operator::coalesce);
* ``(select .members filter .id != me.id)`` written in a query sees the query's ``with`` names.

Run on PostgreSQL 15 through node-postgres and pgx. Each was E0206 ("'for' loops inside an
expression", "a path through the multi link ... is a set") or E0201 (unknown enum 'me')."""

from __future__ import annotations

import json
import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Person { required handle: str { constraint exclusive; }; age: int32; }
type Club { required name: str; multi members: Person; }
"""

SOURCES = {
    "fo/s.esdl": SCHEMA,
    "fo/q/co_members.edgeql": """
        with
          me := (select Person filter .handle = <str>$handle),
          mine := (select Club filter me in .members),
          others := (for c in mine union (select c.members filter .id != me.id))
        select {
          n := count(others),
          top := (select (group others by .handle) { handle := .key.handle, n := count(.elements) }
                  order by .n desc then .handle),
        };""",
    "fo/q/ages.edgeql": """
        select {
          total := sum((for c in Club union sum(c.members.age ?? 0))),
          oldest := max((for c in Club union max(c.members.age))),
          floor := min((for c in Club union min(c.members.age ?? -1))),
        };""",
}

SETUP = """
INSERT INTO person (handle, age) VALUES ('ann', 30), ('bob', 40), ('cid', NULL), ('dan', 25);
INSERT INTO club (name) VALUES ('chess'), ('go'), ('empty'), ('solo');
INSERT INTO club_members (source_id, target_id) SELECT c.id, p.id FROM club c, person p
  WHERE (c.name, p.handle) IN (('chess', 'ann'), ('chess', 'bob'), ('chess', 'cid'), ('go', 'ann'), ('go', 'bob'),
                               ('solo', 'dan'));
"""


def _plans():
    return {q.name: q for q in check_library(SOURCES, Options(library="fo")).queries}


def test_sql():
    sql = _plans()["co_members"].sql
    assert "CROSS JOIN LATERAL (SELECT \"_ft" in sql and 'GROUP BY "_group_k0"' in sql


@pytest.mark.parametrize("query, message", [
    ("select sum((for c in Club union (select c.members)));", "sum() of objects is not defined"),
    ("with o := (for c in Club union (select c.members)) select o;", "reading it other than by count(), sum(), min(), max() or group"),
])
def test_other_reads_are_located(query, message):
    sources = {"fo/s.esdl": SCHEMA, "fo/q/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        compile_library(sources, Options(library="fo"))
    assert message in e.value.render(sources)


def test_on_postgres(pg):
    plans = _plans()
    pg.execute(compile_library(SOURCES, Options(library="fo"))["sql/000001_init.up.sql"])
    pg.execute(SETUP)

    def run(name, *args):
        return pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql), {f"p{i}": a for i, a in enumerate(args, 1)})

    # ann's clubs, chess and go, hold bob twice and cid once besides her
    assert run("co_members", "ann") == [(3, [{"handle": "bob", "n": "2"}, {"handle": "cid", "n": "1"}])]
    assert run("co_members", "dan") == [(0, [])]
    assert run("co_members", "nobody") == [(0, [])]
    # chess 70 (cid has no age), go 70, empty 0 (its `??`), solo 25; the empty club has no max;
    # its min is the `??`'s -1
    assert run("ages") == [(165, 40, -1)]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as fo from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query(process.env["SETUP"]!);
  const q = fo.createRunner(pool).query;
  assert.deepEqual(await q.coMembers({ handle: "ann" }), {
    n: "3",
    top: [{ handle: "bob", n: "2" }, { handle: "cid", n: "1" }],
  });
  assert.deepEqual(await q.ages(), { total: "165", oldest: 40, floor: -1 });
  console.log(JSON.stringify({ forObjectRows: true }));
} finally {
  await pool.end();
}
"""


def _write(out, prefix: str, dest) -> None:
    for rel, text in out.items():
        if rel.startswith(prefix):
            p = dest / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_typescript_runner(pg, tsc_run, tmp_path, monkeypatch):
    out = compile_library(SOURCES, Options(library="fo"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    (src / "main.ts").write_text(TS_MAIN)
    monkeypatch.setenv("SETUP", SETUP)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"forObjectRows": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	fo "schemactest/fo"
)

func TestForObjectRows(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, os.Getenv("SETUP")); err != nil {
		t.Fatal(err)
	}
	q := fo.New(db).Query
	got, err := q.CoMembers(ctx, fo.CoMembersParams{Handle: "ann"})
	if err != nil || got.N != 3 || len(got.Top) != 2 || got.Top[0].Handle != "bob" || got.Top[0].N != 2 {
		t.Fatalf("co members: %#v (%v)", got, err)
	}
	ages, err := q.Ages(ctx)
	if err != nil || ages.Total != 165 || ages.Oldest == nil || *ages.Oldest != 40 || ages.Floor == nil || *ages.Floor != -1 {
		t.Fatalf("ages: %#v (%v)", ages, err)
	}
}
"""


@pytest.mark.slow
def test_go_runner(pg, go_run, tmp_path, monkeypatch):
    out = compile_library(SOURCES, Options(library="fo"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "fo")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "for_object_rows_test.go").write_text(GO_TEST)
    monkeypatch.setenv("SETUP", SETUP)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestForObjectRows" in result.test.stdout, result.test.stdout
