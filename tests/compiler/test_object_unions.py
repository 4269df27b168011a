"""Unions of objects at the top of a query and ``for`` loops whose body is a value or a ``with``
selection, on PostgreSQL 15 with data and through the TypeScript and Go runners.

* ``select A union B``, ``select {(select A filter f), (select B filter g)}``, ``select (A union B)
  { shape } [filter] [order by] [offset] [limit]`` (https://docs.geldata.com/reference/stdlib/set#operator::union):
  a multiset sum (an object in two operands is there twice), typed as Gel's union type (the
  pointers every operand's type has: those of the nearest common ancestor,
  https://docs.geldata.com/reference/edgeql/sets#inheritance), an operand may order and page its
  own objects (before the union); an operand's own shape is not the
  union's, whose objects show ``{ id }`` (Gel's union type has no shape of its own); one
  ``SELECT`` per concrete type, ``UNION ALL``, as a select of an abstract type.
* ``for x in {1, 2, 3} union (select x * 2)``: the body's value per element; ``with p := (select
  Person filter ...) for x in ... union (select p { name })``: p's objects per element
  (https://docs.geldata.com/reference/edgeql/for)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict

import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
abstract type Content { required title: str; }
type Movie extending Content { release_year: int32; }
type Show extending Content { seasons: int32; }
type Person { required name: str; multi acted_in: Content; }
"""

QUERIES = {
    "union_shaped_operands": "select {(select Movie { title }), (select Show { title })};",
    "union_ids": "select Movie union Show;",
    "union_titles": "select (Movie union Show) { title, [is Movie].release_year } order by .title;",
    "union_filtered": "select {(select Movie filter .release_year > 2000), (select Show filter .seasons > 1)} "
                      "{ title } filter .title != <str>$skip order by .title;",
    "union_twice": "select (Content union Movie) { title } order by .title;",
    "union_paged": "select (Movie union Show) { title } order by .title desc offset 1 limit 2;",
    "union_latest": "select {(select Movie order by .release_year desc limit 1), (select Show order by .seasons desc "
                    "limit 1)} { title } order by .title;",
    "union_bound_page": "with m := (select Movie order by .title limit 1) select (m union Show) { title } "
                        "order by .title;",
    "union_in_select": "select (select Movie union Show filter .title != 'Alien' order by .title) { title };",
    "scalar_union": "select {1, 2} union {3};",
    "doubled": "for x in {1, 2, 3} union (select x * 2);",
    "shouted": "for x in array_unpack(<array<str>>$xs) union (x ++ '!');",
    "person_twice": "with p := (select Person filter .name = <str>$n) for x in {1, 2} union (select p { name });",
    "one_person_twice": "with p := (select Person filter .id = <uuid>$id) for x in {1, 2} union (select p { name });",
}

ROWS = """
INSERT INTO movie (title, release_year) VALUES ('Alien', 1979), ('Dune', 2021);
INSERT INTO show (title, seasons) VALUES ('Andor', 2), ('Pilot', 1);
INSERT INTO person (name) VALUES ('Zoe'), ('Ann');
"""


def _sources() -> Dict[str, str]:
    sources = {"u/schema.esdl": SCHEMA}
    sources.update({f"u/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return sources


def _plans():
    return {q.name: q for q in check_library(_sources(), Options(library="u")).queries}


def _load(pg):
    pg.execute(compile_library({"u/schema.esdl": SCHEMA}, Options(library="u"))["sql/000001_init.up.sql"])
    pg.execute(ROWS)


def test_unions_of_objects_on_postgres(pg):
    _load(pg)
    q = _plans()
    ids = {r[0] for r in pg.execute("SELECT id FROM movie UNION ALL SELECT id FROM show")}
    # an operand's plain shape is not the union's: { id } (Gel's union type has no shape)
    assert [f.name for f in q["union_shaped_operands"].result] == ["id"]
    assert {r[0] for r in run_plan(pg, q["union_shaped_operands"])} == ids
    assert {r[0] for r in run_plan(pg, q["union_ids"])} == ids and len(run_plan(pg, q["union_ids"])) == 4
    assert run_plan(pg, q["union_titles"]) == [("Alien", 1979), ("Andor", None), ("Dune", 2021), ("Pilot", None)]
    assert [(f.name, f.type.name, f.optional) for f in q["union_titles"].result] == [
        ("title", "str", False), ("release_year", "int32", True)]
    assert run_plan(pg, q["union_filtered"], "x") == [("Andor",), ("Dune",)]
    assert run_plan(pg, q["union_filtered"], "Dune") == [("Andor",)]
    # a multiset sum: a movie is in both operands, so it is there twice
    assert run_plan(pg, q["union_twice"]) == [("Alien",), ("Alien",), ("Andor",), ("Dune",), ("Dune",), ("Pilot",)]
    assert run_plan(pg, q["union_paged"]) == [("Dune",), ("Andor",)]
    # an operand that orders and pages its own objects, before the union
    assert run_plan(pg, q["union_latest"]) == [("Andor",), ("Dune",)]
    assert run_plan(pg, q["union_bound_page"]) == [("Alien",), ("Andor",), ("Pilot",)]
    assert run_plan(pg, q["union_in_select"]) == [("Andor",), ("Dune",), ("Pilot",)]
    assert all(q[n].cardinality == "many" for n in QUERIES)
    assert [r[0] for r in run_plan(pg, q["scalar_union"])] == [1, 2, 3]


def test_for_loops_over_values_and_with_selections_on_postgres(pg):
    _load(pg)
    q = _plans()
    assert q["doubled"].scalar and q["doubled"].result[0].type.name == "int64"
    assert [r[0] for r in run_plan(pg, q["doubled"])] == [2, 4, 6]
    assert [r[0] for r in run_plan(pg, q["shouted"], ["a", "b"])] == ["a!", "b!"]
    assert [r[0] for r in run_plan(pg, q["shouted"], [])] == []
    # the selection's objects once per element
    assert run_plan(pg, q["person_twice"], "Zoe") == [("Zoe",), ("Zoe",)]
    assert run_plan(pg, q["person_twice"], "nobody") == []
    ann = pg.execute("SELECT id FROM person WHERE name = 'Ann'")[0][0]
    assert run_plan(pg, q["one_person_twice"], ann) == [("Ann",), ("Ann",)]


def test_an_empty_value_of_a_for_body_is_no_element(pg):
    sources = {"s.esdl": SCHEMA, "q/q.edgeql": "for x in {1, 2, 3} union (select <str>{} if x = 2 else <str>x);"}
    plan = check_library(sources, Options(library="c")).queries[0]
    assert [r[0] for r in run_plan(pg, plan)] == ["1", "3"] and not plan.result[0].optional


@pytest.mark.parametrize("query, message, col", [
    ("select {(select Content order by .title limit 1), Show};",
     "error[E0206]: an operand of 'union' that orders or pages the objects of a type with subtypes is not "
     "supported yet", 9),
    ("select {(select Movie order by .title limit 1), Show} filter .title != 'x';",
     "error[E0206]: an operand of 'union' that orders or pages its objects in a filtered union is not supported yet",
     9),
    ("select {(select Movie { t := .title }), Show};",
     "error[E0206]: a shape with computed or nested elements on an operand of 'union' is not supported yet", 9),
    ("select (Movie union Show) { release_year };",
     "error[E0302]: 'release_year' is not a property or link of every type of the union (Movie | Show): 'Show' has "
     "none", 29),
    ("select (Movie union Show) { title, nope };", "error[E0302]: the union (Movie | Show) has no property or link "
     "'nope'", 36),
    ("select {Movie, 1};", "error[E0304]: a set or union mixes objects and values", 9),
])
def test_refused_unions_are_located(query, message, col):
    sources = {"s.esdl": SCHEMA, "q/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    assert f"q/q.edgeql:1:{col}: {message}" in exc.value.render(sources)


def _write(files: Dict[str, str], root: Path, prefix: str) -> None:
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = root / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as u from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = u.createRunner(pool).query;
  const titles: { title: string; release_year: number | null }[] = await q.unionTitles();
  assert.deepEqual(titles, [
    { title: "Alien", release_year: 1979 },
    { title: "Andor", release_year: null },
    { title: "Dune", release_year: 2021 },
    { title: "Pilot", release_year: null },
  ]);
  const ids: { id: string }[] = await q.unionShapedOperands();
  assert.equal(ids.length, 4);
  assert.deepEqual((await q.unionFiltered({ skip: "x" })).map((r) => r.title), ["Andor", "Dune"]);
  const doubled: string[] = await q.doubled();
  assert.deepEqual(doubled, ["2", "4", "6"]);
  const shouted: string[] = await q.shouted({ xs: ["a", "b"] });
  assert.deepEqual(shouted, ["a!", "b!"]);
  assert.deepEqual(await q.personTwice({ n: "Zoe" }), [{ name: "Zoe" }, { name: "Zoe" }]);
  console.log(JSON.stringify({ unions: true }));
} finally {
  await pool.end();
}
"""

GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	u "schemactest/u"
)

func TestObjectUnions(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := u.New(db).Query
	titles, err := q.UnionTitles(ctx)
	if err != nil || len(titles) != 4 || titles[0].Title != "Alien" || titles[0].ReleaseYear == nil ||
		*titles[0].ReleaseYear != 1979 || titles[1].Title != "Andor" || titles[1].ReleaseYear != nil {
		t.Fatalf("titles: %#v %v", titles, err)
	}
	ids, err := q.UnionShapedOperands(ctx)
	if err != nil || len(ids) != 4 || ids[0].ID == "" {
		t.Fatalf("ids: %#v %v", ids, err)
	}
	filtered, err := q.UnionFiltered(ctx, u.UnionFilteredParams{Skip: "Dune"})
	if err != nil || len(filtered) != 1 || filtered[0].Title != "Andor" {
		t.Fatalf("filtered: %#v %v", filtered, err)
	}
	doubled, err := q.Doubled(ctx)
	if err != nil || !reflect.DeepEqual(doubled, []int64{2, 4, 6}) {
		t.Fatalf("doubled: %#v %v", doubled, err)
	}
	shouted, err := q.Shouted(ctx, u.ShoutedParams{Xs: []string{"a", "b"}})
	if err != nil || !reflect.DeepEqual(shouted, []string{"a!", "b!"}) {
		t.Fatalf("shouted: %#v %v", shouted, err)
	}
	people, err := q.PersonTwice(ctx, u.PersonTwiceParams{N: "Zoe"})
	if err != nil || len(people) != 2 || people[0].Name != "Zoe" || people[1].Name != "Zoe" {
		t.Fatalf("people: %#v %v", people, err)
	}
}
"""


@pytest.mark.slow
def test_unions_through_the_typescript_runner(pg, tsc_run, tmp_path):
    _load(pg)
    out = compile_library(_sources(), Options(library="u"))
    src = tmp_path / "src"
    _write(out, src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"unions": True}


@pytest.mark.slow
def test_unions_through_the_go_runner(pg, go_run, tmp_path):
    _load(pg)
    out = compile_library(_sources(), Options(library="u"))
    mod = tmp_path / "mod"
    _write(out, mod / "u", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "unions_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestObjectUnions" in result.test.stdout
