"""Valid Gel syntax that was refused with E0100/E0102 (found in real projects), now read and
compiled with Gel's meaning, proven on PostgreSQL 15 with data and through the TypeScript and pgx
runners:

* ``insert T`` without a shape (https://docs.geldata.com/reference/edgeql/insert): an object with
  its defaults alone, ``INSERT ... DEFAULT VALUES``;
* a string interpolation ``'a \\(expr) b'`` (Gel 6,
  https://docs.geldata.com/reference/stdlib/string#type::std::str): ``'a ' ++ <str>expr ++ ' b'``
  (Gel's compiler joins the pieces with ``array_join``: empty when ``expr`` is);
* clauses on a shape's link without a sub-shape, ``lamps filter .watts > 5 limit 1``
  (https://docs.geldata.com/reference/edgeql/select#filtering-ordering-and-paginating-links);
* a statement as a function's argument or a ``with`` binding without parentheses, ``count(select
  ...)``, ``with b := select ...`` (Gel's grammar: FuncCallArg and AliasDecl read an
  unparenthesised statement);
* ``if c then x else y`` as an operand (Gel's IfThenElseExpr is an Expr): ``'a' ++ if c then 'b'
  else 'c' ++ 'd'`` is ``'a' ++ (if c then 'b' else ('c' ++ 'd'))``, the else branch taking the
  operators that bind tighter than ``if`` (Gel's precedence);
* a union in a shape's type filter, ``[is Team | Event].name`` (Gel's FullTypeExpr): the element
  of the objects of either type;
* a partial path starting with a tuple element, ``.0`` (Gel's PathStep ``DOT ICONST``): read,
  and refused where its subject is not a tuple, as any unknown pointer.
"""

from __future__ import annotations

import json

import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module default {
  type Lamp {
    required watts: int64 { default := 40 };
    room: str;
    label := 'lamp \\(.watts)W in \\(.room ?? "no room")';
  }
  type Shelf {
    required name: str;
    multi lamps: Lamp;
  }
}
"""

QUERIES = {
    "add_lamp": "insert Lamp;",
    "add_lamp_watts": "select (insert Lamp) { watts };",
    "lamps": "select Lamp { watts, room, label } order by .watts then .room;",
    "greet": "select 'watts=\\(<int64>$w), room=\\(<optional str>$room)!';",
    "shelves": "select Shelf { name, lamps filter .watts > 50 order by .watts desc limit 1 } order by .name;",
    "bright": "select count(select Lamp filter .watts >= <int64>$min);",
    "bright_lamps": "with b := select Lamp filter .watts > 50\nselect b { watts } order by .watts;",
    "if_operand": "select 'a' ++ if <bool>$c then 'b' else 'c' ++ 'd';",
}


def _sources(**extra):
    sources = {"gs/default.gel": SCHEMA}
    sources.update({f"gs/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    sources.update({f"gs/queries/{k}.edgeql": v for k, v in extra.items()})
    return sources


def _plans():
    return {q.name: q for q in check_library(_sources(), Options(library="gs")).queries}


def test_the_forms_compile_to_these_statements():
    q = _plans()
    assert q["add_lamp"].sql == 'INSERT INTO "lamp" DEFAULT VALUES\nRETURNING "id"'
    assert q["add_lamp_watts"].sql == 'INSERT INTO "lamp" DEFAULT VALUES\nRETURNING "watts"'
    assert q["greet"].sql == ("SELECT (('watts=' || CAST($1::bigint AS text)) || ', room=') || (CAST($2::text AS text) || '!') "
                              'AS "value"')
    assert q["bright"].sql == 'SELECT (SELECT count(*) FROM "lamp" AS "_c1" WHERE "_c1".watts >= $1) AS "value"'
    # (the same statements as the parenthesised forms)
    same = {q.name: q.sql for q in check_library(_sources(
        p_bright="select count((select Lamp filter .watts >= <int64>$min));",
        p_bright_lamps="with b := (select Lamp filter .watts > 50)\nselect b { watts } order by .watts;",
    ), Options(library="gs")).queries}
    assert same["p_bright"] == same["bright"] and same["p_bright_lamps"] == same["bright_lamps"]


def test_the_forms_on_postgres(pg):
    pg.execute(compile_library({"gs/default.gel": SCHEMA}, Options(library="gs"))["sql/000001_init.up.sql"])
    q = _plans()
    (lamp_id,), = run_plan(pg, q["add_lamp"])
    assert run_plan(pg, q["add_lamp_watts"]) == [(40,)]
    pg.execute("INSERT INTO lamp (watts, room) VALUES (60, 'hall'), (100, 'attic')")
    pg.execute("INSERT INTO shelf (name) VALUES ('a'), ('b')")
    pg.execute("INSERT INTO shelf_lamps (source_id, target_id) SELECT s.id, l.id FROM shelf s, lamp l "
               "WHERE s.name = 'a'")
    assert run_plan(pg, q["lamps"]) == [(40, None, "lamp 40W in no room"), (40, None, "lamp 40W in no room"),
                                        (60, "hall", "lamp 60W in hall"), (100, "attic", "lamp 100W in attic")]
    assert run_plan(pg, q["greet"], 7, "den") == [("watts=7, room=den!",)]
    assert run_plan(pg, q["greet"], 7, None) == [(None,)]  # an empty interpolation: the string is empty
    (attic_id,), = pg.execute("SELECT id FROM lamp WHERE room = 'attic'")
    assert run_plan(pg, q["shelves"]) == [("a", [{"id": str(attic_id)}]), ("b", [])]
    assert run_plan(pg, q["bright"], 60) == [(2,)]
    assert run_plan(pg, q["bright_lamps"]) == [(60,), (100,)]
    assert [run_plan(pg, q["if_operand"], c) for c in (True, False, None)] == [[("ab",)], [("acd",)], [(None,)]]
    assert lamp_id is not None


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as gs from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = gs.createRunner(pool).query;
  const made = await q.addLamp();
  assert.equal(typeof made.id, "string");
  assert.deepEqual(await q.addLampWatts(), { watts: "40" });
  await pool.query("UPDATE lamp SET room = 'den' WHERE id = $1", [made.id]);
  assert.deepEqual((await q.lamps()).map((l) => l.label), ["lamp 40W in no room", "lamp 40W in den"]);
  assert.equal(await q.greet({ w: "3", room: "den" }), "watts=3, room=den!");
  assert.equal(await q.greet({ w: "3", room: null }), null);
  assert.equal(await q.bright({ min: "41" }), "0");
  assert.deepEqual(await q.brightLamps(), []);
  assert.equal(await q.ifOperand({ c: false }), "acd");
  console.log(JSON.stringify({ gelSyntax: true }));
} finally {
  await pool.end();
}
"""

GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	gs "schemactest/gs"
)

func TestGelSyntax(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := gs.New(db).Query
	made, err := q.AddLamp(ctx)
	if err != nil || made.ID == "" {
		t.Fatalf("add: %#v %v", made, err)
	}
	if _, err := db.Exec(ctx, "UPDATE lamp SET watts = 75, room = 'den' WHERE id = $1", made.ID); err != nil {
		t.Fatal(err)
	}
	lamps, err := q.Lamps(ctx)
	if err != nil || len(lamps) != 1 || lamps[0].Label != "lamp 75W in den" {
		t.Fatalf("lamps: %#v %v", lamps, err)
	}
	room := "hall"
	g, err := q.Greet(ctx, gs.GreetParams{W: 5, Room: &room})
	if err != nil || g == nil || *g != "watts=5, room=hall!" {
		t.Fatalf("greet: %#v %v", g, err)
	}
	g, err = q.Greet(ctx, gs.GreetParams{W: 5})
	if err != nil || g != nil {
		t.Fatalf("greet without a room: %#v %v", g, err)
	}
	n, err := q.Bright(ctx, gs.BrightParams{Min: 70})
	if err != nil || n != 1 {
		t.Fatalf("bright: %#v %v", n, err)
	}
	s, err := q.IfOperand(ctx, gs.IfOperandParams{C: true})
	if err != nil || s != "ab" {
		t.Fatalf("if operand: %#v %v", s, err)
	}
	b, err := q.BrightLamps(ctx)
	if err != nil || len(b) != 1 || b[0].Watts != 75 {
		t.Fatalf("bright lamps: %#v %v", b, err)
	}
}
"""


def _write(files, root):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


@pytest.mark.slow
def test_the_forms_through_the_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library(_sources(), Options(library="gs"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write({k[3:]: v for k, v in out.items() if k.startswith("ts/")}, src / "gen")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"gelSyntax": True}


@pytest.mark.slow
def test_the_forms_through_the_go_runner(pg, go_run, tmp_path):
    out = compile_library(_sources(), Options(library="gs"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write({k[3:]: v for k, v in out.items() if k.startswith("go/")}, mod / "gs")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "gel_syntax_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestGelSyntax" in result.test.stdout


@pytest.mark.parametrize("query, where, message", [
    # (an interpolation is parsed where it stands: its errors are located in the file)
    ("select 'a \\(1 +)';", "1:16", "error[E0101]: unexpected end of string interpolation"),
    ("select 'a \\(1 + 2';", "1:11", "error[E0102]: this string interpolation '\\(' is never closed"),
    ("select Lamp { watts } filter .0 = 1;", "1:30", "error[E0302]: type 'Lamp' has no property '0'"),
    ("select enumerate({'a', 'b'}) filter .0 > 0;", "1:1",
     "error[E0206]: 'filter' on a selected expression (not a type) is not supported yet"),
    ("select all(for l in Lamp union (select l.watts > 0));", "1:12",
     "error[E0206]: 'for' loops inside an expression are not supported in a query yet"),
    # (a set's element may be an unparenthesised statement, Gel's GenExpr: read, then refused as
    # the parenthesised form is)
    ("select {insert Lamp, insert Lamp { watts := 5 }};", "1:9",
     "error[E0206]: a set of the objects of several inserts, updates or deletes is not supported yet"),
    ("select {(insert Lamp), (insert Lamp { watts := 5 })};", "1:9",
     "error[E0206]: a set of the objects of several inserts, updates or deletes is not supported yet"),
    # (not a group: its `by a, b` would take the next argument, so Gel's grammar leaves it out)
    ("select count(group Lamp by .watts);", "1:20", "error[E0100]: unexpected 'Lamp'"),
])
def test_forms_not_compiled_are_located(query, where, message):
    sources = {"gs/default.gel": SCHEMA, "gs/queries/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        check_library(sources, Options(library="gs"))
    text = e.value.render(sources)
    assert f"gs/queries/q.edgeql:{where}: {message}" in text, text


def test_an_escaped_backslash_before_a_parenthesis_is_text():
    q = check_library({"gs/default.gel": SCHEMA, "gs/queries/q.edgeql": "select 'a \\\\(x)';"},
                      Options(library="gs")).queries[0]
    assert q.sql == "SELECT 'a \\(x)' AS \"value\""


def test_an_interpolation_outside_an_expression_is_e0102():
    schema = SCHEMA.replace("required name: str;", "required name: str { annotation title := 'x \\(1)'; };")
    with pytest.raises(CompileError) as e:
        check_library({"gs/default.gel": schema}, Options(library="gs"))
    assert [(d.code, d.message) for d in e.value.diagnostics] == [
        ("E0102", "a string interpolation '\\(...)' is only supported in an expression")]


UNION_SCHEMA = """\
module default {
  abstract type Target { required label: str; }
  type Team extending Target { required name: str; }
  type Event extending Target { required name: str; }
  type Person extending Target { required nick: str; }
}
"""


def test_a_type_filter_of_a_union_in_a_shape_on_postgres(pg):
    # `[is Team | Event].name` (Gel's FullTypeExpr in a type filter): the element of the objects
    # of either type, empty for the others (was E0100 "unexpected '|'")
    sources = {"u/default.gel": UNION_SCHEMA,
               "u/queries/targets.edgeql": "select Target { label, [is Team | Event].name, [is Person].nick } "
                                           "order by .label;"}
    pg.execute(compile_library({"u/default.gel": UNION_SCHEMA}, Options(library="u"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO team (label, name) VALUES ('a', 'red')")
    pg.execute("INSERT INTO event (label, name) VALUES ('b', 'fair')")
    pg.execute("INSERT INTO person (label, nick) VALUES ('c', 'jo')")
    plan, = check_library(sources, Options(library="u")).queries
    assert run_plan(pg, plan) == [("a", "red", None), ("b", "fair", None), ("c", None, "jo")]
    sources["u/queries/targets.edgeql"] = "select Target { label, [is Team | Nope].name };"
    with pytest.raises(CompileError) as e:
        check_library(sources, Options(library="u"))
    assert "u/queries/targets.edgeql:1:24: error[E0301]: unknown type 'Nope'" in e.value.render(sources)
