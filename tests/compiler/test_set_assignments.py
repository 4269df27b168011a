"""Values of other shapes than the plain ones given to properties and links in inserts and
updates, and ``for`` loops over a computed array: each Gel form proven on PostgreSQL 15 with
data, and through the TypeScript and Go runners.

* a multi property given a set, ``tags := array_unpack(arr)`` or ``if c then array_unpack(arr)
  else {}`` (https://docs.geldata.com/reference/stdlib/array#function::std::array_unpack): the
  array it is stored as, ``'{}'`` when empty;
* ``for line in array_unpack(str_split(<str>$text, '\\n')) union (...)``: a loop over an array
  computed from the query's parameters (https://docs.geldata.com/reference/edgeql/for);
* ``to_int16(s)`` (https://docs.geldata.com/reference/stdlib/numbers#function::std::to_int16):
  ``<int16>s``.
"""

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
module default {
  type Person { required name: str { constraint exclusive; }; age: int16; multi tags: str; }
}
"""

QUERIES = {
    "add_person": "insert Person { name := <str>$name, tags := array_unpack(<array<str>>$tags) };",
    "add_maybe": ("insert Person { name := <str>$name, tags := (\n"
                  "  if exists <optional array<str>>$tags and len(<optional array<str>>$tags) > 0\n"
                  "  then array_unpack(<optional array<str>>$tags) else {}) };"),
    "retag": "update Person filter .name = <str>$name set { tags := array_unpack(<array<str>>$tags) };",
    "import_lines": ("for line in array_unpack(str_split(<str>$text, '\\n')) union (\n"
                     "  with cols := str_split(line, ',')\n"
                     "  insert Person { name := cols[0], age := to_int16(cols[1]),\n"
                     "                  tags := array_unpack(str_split(cols[2], ';')) }\n"
                     ");"),
    "people": "select Person { name, age, tags } order by .name;",
}


def _sources() -> Dict[str, str]:
    sources = {"sa/default.gel": SCHEMA}
    sources.update({f"sa/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return sources


def _plans():
    return {q.name: q for q in check_library(_sources(), Options(library="sa")).queries}


def test_set_values_of_multi_properties_and_loops_over_computed_arrays_on_postgres(pg):
    pg.execute(compile_library(_sources(), Options(library="sa"))["sql/000001_init.up.sql"])
    q = _plans()
    run_plan(pg, q["add_person"], "ann", ["a", "b", "a"])
    run_plan(pg, q["add_maybe"], "bob", None)
    run_plan(pg, q["add_maybe"], "cy", [])
    run_plan(pg, q["add_maybe"], "dee", ["x"])
    run_plan(pg, q["retag"], "ann", ["z"])
    rows = run_plan(pg, q["import_lines"], "eve,31,p;q\nfay,7,")
    assert len(rows) == 2
    assert run_plan(pg, q["people"]) == [
        ("ann", None, ["z"]), ("bob", None, []), ("cy", None, []), ("dee", None, ["x"]),
        ("eve", 31, ["p", "q"]), ("fay", 7, [])]  # str_split("", ";") is [], in Gel too (string_to_array)
    assert "COALESCE(" in q["add_maybe"].sql and "unnest(" in q["import_lines"].sql


@pytest.mark.parametrize("query, message, col", [
    # array_unpack of something other than an array
    ("insert Person { name := 'a', tags := if true then array_unpack(<str>$t) else {} };", "the branches of 'if ... else' are str and array<str>", 38),
    # a loop over an array reading an object is not the query's own value
    ("for t in array_unpack(Person.tags) union (insert Person { name := t });", "array_unpack needs an array", 23),
    ("select to_int16(<int32>$x);", "to_int16() reads a str, got int32", 17),
])
def test_refused_forms_are_located(query, message, col):
    sources = {"sa/default.gel": SCHEMA, "sa/queries/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="sa"))
    d = exc.value.diagnostics[0]
    assert message in d.message and d.span.col == col, (d.code, d.message, d.span.col)


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as sa from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = sa.createRunner(pool).query;
  await q.addPerson({ name: "ann", tags: ["a", "b", "a"] });
  await q.addMaybe({ name: "bob", tags: null });
  await q.addMaybe({ name: "cy", tags: [] });
  await q.retag({ name: "cy", tags: ["z"] });
  assert.equal((await q.importLines({ text: "eve,31,p;q\\nfay,7,x" })).length, 2);
  const people = (await q.people()).map((p) => [p.name, p.age, p.tags]);
  assert.deepEqual(people, [["ann", null, ["a", "b", "a"]], ["bob", null, []], ["cy", null, ["z"]],
                            ["eve", 31, ["p", "q"]], ["fay", 7, ["x"]]]);
  console.log(JSON.stringify({ setAssignments: true }));
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

	sa "schemactest/sa"
)

func TestSetAssignments(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "DELETE FROM person"); err != nil { // (go_run runs the test twice)
		t.Fatal(err)
	}
	q := sa.New(db).Query
	if _, err := q.AddPerson(ctx, sa.AddPersonParams{Name: "ann", Tags: []string{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.AddMaybe(ctx, sa.AddMaybeParams{Name: "bob"}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Retag(ctx, sa.RetagParams{Name: "bob", Tags: []string{"z"}}); err != nil {
		t.Fatal(err)
	}
	if rows, err := q.ImportLines(ctx, sa.ImportLinesParams{Text: "eve,31,p;q"}); err != nil || len(rows) != 1 {
		t.Fatalf("import: %v %v", rows, err)
	}
	people, err := q.People(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := [][]string{}
	for _, p := range people {
		got = append(got, append([]string{p.Name}, p.Tags...))
	}
	want := [][]string{{"ann", "a", "b"}, {"bob", "z"}, {"eve", "p", "q"}}
	if !reflect.DeepEqual(got, want) || people[2].Age == nil || *people[2].Age != 31 || people[0].Age != nil {
		t.Fatalf("people: %v", got)
	}
}
"""


def _write(files: Dict[str, str], root: Path, prefix: str) -> None:
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = root / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_set_assignments_through_the_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library(_sources(), Options(library="sa"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"setAssignments": True}


@pytest.mark.slow
def test_set_assignments_through_the_go_runner(pg, go_run, tmp_path):
    out = compile_library(_sources(), Options(library="sa"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, mod / "sa", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "sa_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestSetAssignments" in result.test.stdout
