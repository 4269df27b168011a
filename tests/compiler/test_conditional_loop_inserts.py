"""A ``for`` loop whose body inserts only for some elements, ``if c then (insert ...) else {}``
(https://docs.geldata.com/reference/edgeql/insert#conditional-inserts: Gel runs the statement of
a branch only for the elements that take it, and neither branch when ``c`` is empty), and a
multi property assigned ``<str>json_array_unpack(j)`` (the JSON array's elements, cast as
``<str>json`` casts, a JSON null element none), on PostgreSQL 15 with data and through the
TypeScript and Go runners."""

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
type Shelf { required code: str { constraint exclusive; }; }
type Tag { required name: str { constraint exclusive; }; }
type Label { required shelf: Shelf; required tag: Tag; required pos: int16; multi notes: str; }
"""

QUERIES = {
    "load_labels": """
for line in array_unpack(str_split(<str>$rows, ';')) union (
  with
    parts := str_split(line, '|'),
    shelf := (select Shelf filter .code = parts[0]),
    tag := (select Tag filter .name = parts[1])
  select if exists shelf and exists tag then (
    insert Label {
      shelf := shelf,
      tag := tag,
      pos := <int16>parts[2],
      notes := <str>json_array_unpack(to_json(parts[3])),
    }
  ) else {}
);
""",
    "add_tags": "for name in array_unpack(<array<str>>$names) union (if name = '' then {} else (insert Tag { name := name }));",
}

ROWS = """
INSERT INTO shelf (id, code) VALUES ('00000000-0000-0000-0000-0000000000a1', 's1'),
  ('00000000-0000-0000-0000-0000000000a2', 's2');
INSERT INTO tag (id, name) VALUES ('00000000-0000-0000-0000-0000000000b1', 'red'),
  ('00000000-0000-0000-0000-0000000000b2', 'blue');
"""

# s9 is no shelf and green no tag: those elements insert nothing; `9x` is no int16, but its
# element takes no branch, so the cast is never made (as in Gel)
LINES = 's1|red|1|["x", "y"];s9|red|2|[];s2|blue|3|[null, "z"];s1|green|9x|[]'


def _sources() -> Dict[str, str]:
    sources = {"s/schema.esdl": SCHEMA}
    sources.update({f"s/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return sources


def _load(pg):
    pg.execute(compile_library({"s/schema.esdl": SCHEMA}, Options(library="s"))["sql/000001_init.up.sql"])
    pg.execute(ROWS)


def test_conditional_inserts_in_loops_on_postgres(pg):
    _load(pg)
    q = {p.name: p for p in check_library(_sources(), Options(library="s")).queries}
    assert q["load_labels"].cardinality == "many"
    assert len(run_plan(pg, q["load_labels"], LINES)) == 2
    assert pg.execute("SELECT s.code, t.name, l.pos, l.notes FROM label l JOIN shelf s ON s.id = l.shelf_id "
                      "JOIN tag t ON t.id = l.tag_id ORDER BY l.pos") == [("s1", "red", 1, ["x", "y"]),
                                                                          ("s2", "blue", 3, ["z"])]
    assert len(run_plan(pg, q["add_tags"], ["", "green", ""])) == 1
    assert pg.execute("SELECT name FROM tag ORDER BY name") == [("blue",), ("green",), ("red",)]


def test_a_non_string_element_fails_the_statement(pg):
    _load(pg)
    q = {p.name: p for p in check_library(_sources(), Options(library="s")).queries}
    with pytest.raises(Exception, match="expected json string or null"):
        run_plan(pg, q["load_labels"], "s1|red|1|[1]")


def test_a_conditional_update_in_a_loop_stays_refused():
    sources = {"s.esdl": SCHEMA,
               "q/q.edgeql": "for n in array_unpack(<array<str>>$n) union (if n = '' then {} else "
                             "(update Tag filter .name = n set { name := n ++ '!' }));"}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    assert "error[E0206]" in exc.value.render(sources)


def _write(files: Dict[str, str], root: Path, prefix: str) -> None:
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = root / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as s from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = s.createRunner(pool).query;
  const made = await q.loadLabels({ rows: %s });
  assert.equal(made.length, 2);
  const tags = await q.addTags({ names: ["", "green"] });
  assert.equal(tags.length, 1);
  const r = await pool.query("SELECT notes FROM label ORDER BY pos");
  assert.deepEqual(r.rows.map((x) => x.notes), [["x", "y"], ["z"]]);
  console.log(JSON.stringify({ loops: true }));
} finally {
  await pool.end();
}
""" % json.dumps(LINES)

GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	s "schemactest/s"
)

func TestConditionalLoopInserts(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := s.New(db).Query
	made, err := q.LoadLabels(ctx, s.LoadLabelsParams{Rows: %s})
	if err != nil || len(made) != 2 {
		t.Fatalf("load_labels: %%#v %%v", made, err)
	}
	// (go test runs twice, with two Go versions, on one database: nothing it adds may collide)
	tags, err := q.AddTags(ctx, s.AddTagsParams{Names: []string{"", ""}})
	if err != nil || len(tags) != 0 {
		t.Fatalf("add_tags: %%#v %%v", tags, err)
	}
}
""" % json.dumps(LINES)


@pytest.mark.slow
def test_conditional_loop_inserts_through_the_typescript_runner(pg, tsc_run, tmp_path):
    _load(pg)
    out = compile_library(_sources(), Options(library="s"))
    src = tmp_path / "src"
    _write(out, src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"loops": True}


@pytest.mark.slow
def test_conditional_loop_inserts_through_the_go_runner(pg, go_run, tmp_path):
    _load(pg)
    out = compile_library(_sources(), Options(library="s"))
    mod = tmp_path / "mod"
    _write(out, mod / "s", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "loops_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestConditionalLoopInserts" in result.test.stdout
