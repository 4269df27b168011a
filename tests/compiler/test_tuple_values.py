"""Tuples as query results (https://docs.geldata.com/reference/stdlib/tuple) and ``enumerate()``
(https://docs.geldata.com/reference/stdlib/set#function::std::enumerate): ``select (1, 'x')``,
``select (a := 1, b := 'x')``, nested tuples holding arrays, ``t := (.a, .b)`` in shapes (nested
ones too), ``t.0`` / ``t.name`` of a tuple written in the query, ``select enumerate({...})`` and
``for x in enumerate(array_unpack(...))``, and arrays as results (``select [1, 2]``,
``select <array<str>>$xs``, ``array_agg``). A tuple travels as JSON (an array; a named tuple, an
object), its ``int64`` values as strings; the runners type it as @gel/generate (``[A, B]``,
``{ a: A; b: B }``) and edgeql-go (a struct, ``Element0``, ``Element1``... or the names) do.
Tested on PostgreSQL 15 through node-postgres (both ``ts_int64`` settings) and through pgx and
database/sql."""

from __future__ import annotations

import json
import re
import shutil

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Person {
  required name: str { constraint exclusive; };
  age: int64;
  tags: array<str>;
  born: datetime;
  friend: Person;
}
type Service {
  required name: str;
  required days: tuple<bool, bool, bool>;
  pos: tuple<x: float64, y: float64>;
  nest: tuple<a: int64, b: tuple<str, decimal>>;
}
"""

SOURCES = {
    "tv/s.esdl": SCHEMA,
    "tv/q/pair.edgeql": "select (<int64>$n, <str>$s);",
    "tv/q/named.edgeql": "select (a := 1, b := <str>$s, c := (<optional int64>$x ?? 7, [1, 2]));",
    "tv/q/maybe.edgeql": "select (a := 1, b := <optional str>$s);",
    "tv/q/element.edgeql": "select (1, (x := 'x', y := <str>$s)).1.y;",
    "tv/q/people.edgeql": "select Person { name, t := (.name, .age), info := (n := len(.tags), tags := .tags), "
                          "friend: { name, p := (.name, .born) } } order by .name;",
    "tv/q/numbered.edgeql": "select enumerate({'a', 'b'} union array_unpack(<array<str>>$more));",
    "tv/q/add_numbered.edgeql": "for x in enumerate(array_unpack(<array<str>>$names)) union "
                                "(insert Person { name := x.1, age := x.0 });",
    "tv/q/positions.edgeql": "for x in enumerate(array_unpack(<array<str>>$names)) union (select (x.0, x.1 ++ '!'));",
    "tv/q/indexes.edgeql": "for x in enumerate(array_unpack(<array<str>>$names)) union (select x.0);",
    "tv/q/add_service.edgeql": "insert Service { name := <str>$name, days := (true, false, <bool>$d), "
                               "pos := (x := 1.5, y := <float64>$y), nest := (a := 7, b := ('q', <decimal>$c)) };",
    "tv/q/services.edgeql": "select Service { name, days, pos, nest, b := .nest.b } order by .name;",
    "tv/q/ints.edgeql": "select [1, 2];",
    "tv/q/strs.edgeql": "select <array<str>>$xs;",
    "tv/q/names.edgeql": "select array_agg(Person.name);",
}

#: After add_numbered(['ann', 'bob']): ann knows bob, bob knows ann (born set), ann has tags.
SETUP = """
UPDATE person SET tags = ARRAY['t1', 't2'], born = '2024-01-02T03:04:05Z' WHERE name = 'ann';
UPDATE person SET friend_id = (SELECT id FROM person WHERE name = 'bob') WHERE name = 'ann';
UPDATE person SET friend_id = (SELECT id FROM person WHERE name = 'ann') WHERE name = 'bob';
INSERT INTO service (name, days) VALUES ('s2', ROW(false, false, false));
"""


def _plans():
    return {q.name: q for q in check_library(SOURCES, Options(library="tv")).queries}


def _write(out, prefix: str, dest) -> None:
    for rel, text in out.items():
        if rel.startswith(prefix):
            p = dest / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


def test_result_types_and_cardinality():
    plans = _plans()
    assert [(f.type.name, f.optional) for f in plans["pair"].result] == [("tuple<int64, str>", False)]
    assert plans["pair"].cardinality == "one" and plans["pair"].scalar
    assert plans["maybe"].cardinality == "at_most_one"  # empty when an element is
    assert plans["named"].result[0].type.name == "tuple<a: int64, b: str, c: tuple<int64, array<int64>>>"
    assert plans["numbered"].cardinality == "many"
    assert plans["numbered"].result[0].type.name == "tuple<int64, str>"
    assert plans["element"].result[0].type.name == "str"
    assert plans["pair"].sql == 'SELECT json_build_array(($1::bigint)::text, $2::text) AS "value"'
    assert plans["maybe"].sql == ("SELECT CASE WHEN $1::text IS NULL THEN NULL ELSE json_build_object('a', "
                                  "(CAST(1 AS bigint))::text, 'b', $1::text) END AS \"value\"")


def test_generated_types_follow_the_gel_generators():
    out = compile_library(SOURCES, Options(library="tv"))
    ts, go = out["ts/queries.ts"], out["go/queries.go"]
    assert "value: [string, string];" in ts
    assert "value: { a: string; b: string; c: [string, string[]] };" in ts
    assert "t: [string, string] | null;" in ts
    assert "friend: { name: string; p: [string, Date] | null } | null;" in ts
    assert "export async function numbered(db: Queryable, args: NumberedArgs): Promise<([string, string])[]>" in ts
    assert "type PairValue struct {\n\tElement0 int64\n\tElement1 string\n}" in go
    assert "func (q *Queries) Pair(ctx context.Context, arg PairParams) (PairValue, error)" in go
    assert "func (q *Queries) Maybe(ctx context.Context, arg MaybeParams) (*MaybeValue, error)" in go
    assert "\tC NamedValueC `json:\"c\"`" in go
    big = compile_library(SOURCES, Options(library="tv", ts_int64="bigint"))["ts/queries.ts"]
    assert "value: { a: bigint; b: string; c: [bigint, bigint[]] };" in big
    assert "decodeTuple(t1[\"c\"], (t2) => ([int64(t2[0]), int64Array(t2[1])]))" in big


def test_on_postgres(pg):
    plans = _plans()
    pg.execute(compile_library(SOURCES, Options(library="tv"))["sql/000001_init.up.sql"])

    def run(name, *args):
        return pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql), {f"p{i}": a for i, a in enumerate(args, 1)})

    assert run("pair", 5, "x") == [(["5", "x"],)]
    assert run("named", "y", None) == [({"a": "1", "b": "y", "c": ["7", ["1", "2"]]},)]
    assert run("maybe", None) == [(None,)]
    assert run("element", "q") == [("q",)]
    assert run("numbered", ["c", None, "d"]) == [(["0", "a"],), (["1", "b"],), (["2", "c"],), (["3", "d"],)]
    assert run("positions", ["a", "b"]) == [(["0", "a!"],), (["1", "b!"],)]
    assert run("indexes", ["a", "b", "c"]) == [(0,), (1,), (2,)]
    assert len(run("add_numbered", ["ann", "bob"])) == 2
    assert pg.execute("SELECT name, age FROM person ORDER BY name") == [("ann", 0), ("bob", 1)]
    run("add_service", "s1", True, -2.0, "2.5")
    pg.execute(SETUP)
    assert run("services") == [
        ("s1", [True, False, True], {"x": 1.5, "y": -2}, {"a": "7", "b": ["q", "2.5"]}, ["q", "2.5"]),
        ("s2", [False, False, False], None, None, None)]
    rows = run("people")
    assert [(r[0], r[1], r[2]) for r in rows] == [("ann", ["ann", "0"], {"n": "2", "tags": ["t1", "t2"]}),
                                                  ("bob", ["bob", "1"], None)]
    assert rows[0][3] == {"name": "bob", "p": None}
    assert rows[1][3]["p"][0] == "ann" and rows[1][3]["p"][1].startswith("2024-01-02T03:04:05")


@pytest.mark.parametrize("query, message", [
    ("select (1, 2) = (1, 2);", "a tuple (tuple<int64, int64>) used here is not supported yet"),
    ("select [(1, 'a')];", "a tuple (array<tuple<int64, str>>) used here is not supported yet"),
    ("select (a := 1, a := 2);", "the named tuple names 'a' twice"),
    ("select (1, <duration>$d);", "a duration value inside a tuple is not supported yet"),
    ("select enumerate(Person.name);", "enumerate() of a property of a set of objects is not supported yet"),
    ("select Person { n := enumerate(.name) };",
     "enumerate() is only supported as the selected set (select enumerate({...})) and as the set of a 'for' loop"),
    ("for x in enumerate(json_object_unpack(<json>$j)) union (insert Person { name := x.1.0 });",
     "enumerate() of json_object_unpack() is not supported yet"),
    ("select (1, 'a').2;", "tuple<int64, str> has no element 2 (it has 2)"),
    ("select (a := 1).b;", "tuple<a: int64> has no element 'b'"),
    ("select (a_b := 1, aB := 2);", "would both be named 'AB' in generated Go"),
])
def test_refused_forms_are_located(query, message):
    sources = {"tv/s.esdl": SCHEMA, "tv/q/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        compile_library(sources, Options(library="tv"))
    assert message in e.value.render(sources)


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as tv from "./gen/index.js";
import * as big from "./big/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = tv.createRunner(pool).query;
  const b = big.createRunner(pool).query;
  const pair: [string, string] = await q.pair({ n: 5, s: "x" });
  assert.deepEqual(pair, ["5", "x"]);
  const named: { a: string; b: string; c: [string, string[]] } = await q.named({ s: "y" });
  assert.deepEqual(named, { a: "1", b: "y", c: ["7", ["1", "2"]] });
  assert.deepEqual(await q.named({ s: "y", x: 3 }), { a: "1", b: "y", c: ["3", ["1", "2"]] });
  assert.equal(await q.maybe({}), null);
  assert.deepEqual(await q.maybe({ s: "z" }), { a: "1", b: "z" });
  assert.equal(await q.element({ s: "q" }), "q");
  assert.deepEqual(await q.numbered({ more: ["c"] }), [["0", "a"], ["1", "b"], ["2", "c"]]);
  assert.deepEqual(await q.positions({ names: ["a", "b"] }), [["0", "a!"], ["1", "b!"]]);
  assert.deepEqual(await q.indexes({ names: ["a", "b"] }), ["0", "1"]);
  assert.equal((await q.addNumbered({ names: ["ann", "bob"] })).length, 2);
  await q.addService({ name: "s1", d: true, y: -2, c: "2.5" });
  await pool.query(process.env["SETUP"]!);
  const services: {
    name: string; days: [boolean, boolean, boolean]; pos: { x: number; y: number } | null;
    nest: { a: string; b: [string, string] } | null; b: [string, string] | null;
  }[] = await q.services();
  assert.deepEqual(services, [
    { name: "s1", days: [true, false, true], pos: { x: 1.5, y: -2 }, nest: { a: "7", b: ["q", "2.5"] }, b: ["q", "2.5"] },
    { name: "s2", days: [false, false, false], pos: null, nest: null, b: null },
  ]);
  assert.deepEqual((await b.services())[0]!.nest, { a: 7n, b: ["q", "2.5"] });
  const people = await q.people();
  assert.deepEqual(people, [
    { name: "ann", t: ["ann", "0"], info: { n: "2", tags: ["t1", "t2"] }, friend: { name: "bob", p: null } },
    { name: "bob", t: ["bob", "1"], info: null,
      friend: { name: "ann", p: ["ann", new Date("2024-01-02T03:04:05Z")] } },
  ]);
  assert.deepEqual(await q.ints(), ["1", "2"]);
  assert.deepEqual(await q.strs({ xs: ["p", "q"] }), ["p", "q"]);
  assert.deepEqual((await q.names()).sort(), ["ann", "bob"]);
  // ts_int64 "bigint": the int64 elements (nested, in arrays) as bigint
  const bpair: [bigint, string] = await b.pair({ n: 5n, s: "x" });
  assert.deepEqual(bpair, [5n, "x"]);
  assert.deepEqual(await b.named({ s: "y" }), { a: 1n, b: "y", c: [7n, [1n, 2n]] });
  assert.deepEqual(await b.numbered({ more: [] }), [[0n, "a"], [1n, "b"]]);
  assert.deepEqual((await b.people()).map((p) => p.t), [["ann", 0n], ["bob", 1n]]);
  assert.deepEqual(await b.ints(), [1n, 2n]);
  console.log(JSON.stringify({ tupleValues: true }));
} finally {
  await pool.end();
}
"""


@pytest.mark.slow
def test_typescript_runner(pg, tsc_run, tmp_path, monkeypatch):
    out = compile_library(SOURCES, Options(library="tv"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    _write(compile_library(SOURCES, Options(library="tv", ts_int64="bigint")), "ts/", src / "big")
    (src / "main.ts").write_text(TS_MAIN)
    monkeypatch.setenv("SETUP", SETUP)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"tupleValues": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"reflect"
	"sort"
	"testing"
	"time"

	IMPORTS

	tv "schemactest/tv"
)

func TestTupleValues(t *testing.T) {
	ctx := context.Background()
	db, err := OPEN
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := tv.New(db).Query
	pair, err := q.Pair(ctx, tv.PairParams{N: 5, S: "x"})
	if err != nil || pair != (tv.PairValue{Element0: 5, Element1: "x"}) {
		t.Fatalf("pair: %#v (%v)", pair, err)
	}
	named, err := q.Named(ctx, tv.NamedParams{S: "y"})
	if err != nil || named.A != 1 || named.B != "y" || named.C.Element0 != 7 ||
		!reflect.DeepEqual(named.C.Element1, []int64{1, 2}) {
		t.Fatalf("named: %#v (%v)", named, err)
	}
	if m, err := q.Maybe(ctx, tv.MaybeParams{}); err != nil || m != nil {
		t.Fatalf("maybe: %#v (%v)", m, err)
	}
	if m, err := q.Maybe(ctx, tv.MaybeParams{S: SOME}); err != nil || m == nil || m.A != 1 || m.B != "z" {
		t.Fatalf("maybe z: %#v (%v)", m, err)
	}
	if e, err := q.Element(ctx, tv.ElementParams{S: "q"}); err != nil || e != "q" {
		t.Fatalf("element: %#v (%v)", e, err)
	}
	numbered, err := q.Numbered(ctx, tv.NumberedParams{More: []string{"c"}})
	if err != nil || !reflect.DeepEqual(numbered, []tv.NumberedValue{
		{Element0: 0, Element1: "a"}, {Element0: 1, Element1: "b"}, {Element0: 2, Element1: "c"}}) {
		t.Fatalf("numbered: %#v (%v)", numbered, err)
	}
	positions, err := q.Positions(ctx, tv.PositionsParams{Names: []string{"a", "b"}})
	if err != nil || !reflect.DeepEqual(positions, []tv.PositionsValue{
		{Element0: 0, Element1: "a!"}, {Element0: 1, Element1: "b!"}}) {
		t.Fatalf("positions: %#v (%v)", positions, err)
	}
	if ids, err := q.AddNumbered(ctx, tv.AddNumberedParams{Names: []string{"ann", "bob"}}); err != nil || len(ids) != 2 {
		t.Fatalf("add: %#v (%v)", ids, err)
	}
	if _, err := q.AddService(ctx, tv.AddServiceParams{Name: "s1", D: true, Y: -2, C: "2.5"}); err != nil {
		t.Fatal(err)
	}
	if _, err := EXEC; err != nil {
		t.Fatal(err)
	}
	services, err := q.Services(ctx)
	if err != nil || len(services) != 2 {
		t.Fatalf("services: %#v (%v)", services, err)
	}
	s1, s2 := services[0], services[1]
	if s1.Days != (tv.ServicesDays{Element0: true, Element1: false, Element2: true}) || s1.Pos == nil ||
		*s1.Pos != (tv.ServicesPos{X: 1.5, Y: -2}) || s1.Nest == nil || s1.Nest.A != 7 ||
		s1.Nest.B != (tv.ServicesNestB{Element0: "q", Element1: "2.5"}) || s1.B == nil || s1.B.Element1 != "2.5" {
		t.Fatalf("s1: %#v", s1)
	}
	if s2.Name != "s2" || s2.Days.Element0 || s2.Pos != nil || s2.Nest != nil || s2.B != nil {
		t.Fatalf("s2: %#v", s2)
	}
	people, err := q.People(ctx)
	if err != nil || len(people) != 2 {
		t.Fatalf("people: %#v (%v)", people, err)
	}
	ann, bob := people[0], people[1]
	if ann.Name != "ann" || ann.T == nil || *ann.T != (tv.PeopleT{Element0: "ann", Element1: 0}) ||
		ann.Info == nil || ann.Info.N != 2 || !reflect.DeepEqual(ann.Info.Tags, []string{"t1", "t2"}) ||
		ann.Friend == nil || ann.Friend.Name != "bob" || ann.Friend.P != nil {
		t.Fatalf("ann: %#v", ann)
	}
	born := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	if bob.Info != nil || bob.T == nil || bob.T.Element1 != 1 || bob.Friend == nil || bob.Friend.P == nil ||
		bob.Friend.P.Element0 != "ann" || !bob.Friend.P.Element1.Equal(born) {
		t.Fatalf("bob: %#v", bob)
	}
	if ints, err := q.Ints(ctx); err != nil || !reflect.DeepEqual(ints, []int64{1, 2}) {
		t.Fatalf("ints: %#v (%v)", ints, err)
	}
	if strs, err := q.Strs(ctx, tv.StrsParams{Xs: []string{"p", "q"}}); err != nil || !reflect.DeepEqual(strs, []string{"p", "q"}) {
		t.Fatalf("strs: %#v (%v)", strs, err)
	}
	names, err := q.Names(ctx)
	sort.Strings(names)
	if err != nil || !reflect.DeepEqual(names, []string{"ann", "bob"}) {
		t.Fatalf("names: %#v (%v)", names, err)
	}
}
"""

GO_DRIVERS = {
    "pgx": {"IMPORTS": '"github.com/jackc/pgx/v5/pgxpool"', "OPEN": 'pgxpool.New(ctx, os.Getenv("DATABASE_URL"))',
            "EXEC": 'db.Exec(ctx, os.Getenv("SETUP"))', "SOME": 'ptr("z")'},
    "database/sql": {"IMPORTS": '"database/sql"\n\n\t_ "github.com/jackc/pgx/v5/stdlib"',
                     "OPEN": 'sql.Open("pgx", os.Getenv("DATABASE_URL"))',
                     "EXEC": 'db.ExecContext(ctx, os.Getenv("SETUP"))',
                     "SOME": 'sql.NullString{String: "z", Valid: true}'},
}


@pytest.mark.slow
@pytest.mark.parametrize("driver", ["pgx", "database/sql"])
def test_go_runner(pg, go_run, tmp_path, monkeypatch, driver):
    out = compile_library(SOURCES, Options(library="tv", go_driver=driver))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "tv")
    (mod / "e2e").mkdir()
    text = GO_TEST
    for key, value in GO_DRIVERS[driver].items():
        text = text.replace(key, value)
    if driver == "pgx":
        text += "\nfunc ptr[T any](v T) *T { return &v }\n"
    (mod / "e2e" / "tuples_test.go").write_text(text)
    monkeypatch.setenv("SETUP", SETUP)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestTupleValues" in result.test.stdout, result.test.stdout
