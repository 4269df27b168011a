"""A ``for`` loop over a set of objects whose body is a value of each object, and the filters
such a set is selected with (https://docs.geldata.com/reference/edgeql/for,
https://docs.geldata.com/reference/edgeql/path_resolution):

* ``for t in (select Topic filter ...) union (t.name) except {'x'}``: the body once per object,
  its paths ``t.a.b`` read over that object, one value per object whose value is not empty
  (``except``: each value unless it is in the set);
* a path through a computed backlink (``essays := .<topics[is Essay]``) in a filter is a set,
  as the backlink's own paths are: ``EXISTS`` over the objects linking here;
* an aggregate of a path whose multi link (or computed backlink) the filter also reads element
  by element, ``contains(array_agg(.essays.topics.name), 'x') and .essays.grade >= 3``, reads
  the linked object at hand: Gel factors the common prefix ("if you have two common scopes and
  only one of them is in a nested scope, the paths are still factored").

Each was E0206 ("a 'for' loop whose body is an operator expression", "path traversal ('.a.b')
is only supported as '.link.id'"); the aggregate was read over every linked object. Tested on
PostgreSQL 15 through node-postgres and pgx."""

from __future__ import annotations

import json
import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Topic {
  required name: str { constraint exclusive; };
  multi link essays := .<topics[is Essay];
}
type Writer { required name: str; }
type Essay {
  required title: str;
  required grade: int64;
  required writer: Writer;
  multi topics: Topic;
}
"""

SOURCES = {
    "fv/s.esdl": SCHEMA,
    # the topics of a well-graded essay that also has topic $with, but $with itself
    "fv/q/paired.edgeql": "for t in (select Topic { name }\n"
                          "          filter contains(array_agg(.essays.topics.name), <str>$with)\n"
                          "            and .essays.grade >= <int64>$min)\n"
                          "union (t.name) except {<str>$with};",
    "fv/q/bylines.edgeql": "for e in Essay union (e.title ++ ' by ' ++ e.writer.name);",
    "fv/q/graded.edgeql": "select Topic { name } filter .essays.grade >= <int64>$min and .essays.writer.name = <str>$w;",
}

DATA = """
INSERT INTO "topic" ("name") VALUES ('rust'), ('go'), ('sql'), ('web');
INSERT INTO "writer" ("name") VALUES ('ann'), ('bob');
INSERT INTO "essay" ("title", "grade", "writer_id") VALUES
  ('e1', 5, (SELECT "id" FROM "writer" WHERE "name" = 'ann')),
  ('e2', 2, (SELECT "id" FROM "writer" WHERE "name" = 'bob')),
  ('e3', 4, (SELECT "id" FROM "writer" WHERE "name" = 'bob')),
  ('e4', 4, (SELECT "id" FROM "writer" WHERE "name" = 'ann'));
INSERT INTO "essay_topics" ("source_id", "target_id")
SELECT e."id", t."id" FROM "essay" e, "topic" t
WHERE (e."title", t."name") IN (('e1', 'rust'), ('e1', 'sql'), ('e2', 'go'), ('e2', 'sql'), ('e3', 'web'),
                                ('e4', 'go'), ('e4', 'web'));
"""

#: paired('sql', 3): e1 (grade 5) has sql, with rust; go's essays are e2 (sql, but grade 2) and
#: e4 (grade 4, no sql): not one essay of go has both, so go is not kept (it would be if the
#: aggregate read all of go's essays).
EXPECTED = {
    ("sql", 3): ["rust"],
    ("web", 4): ["go"],
    ("sql", 1): ["go", "rust"],
}
BYLINES = ["e1 by ann", "e2 by bob", "e3 by bob", "e4 by ann"]


def _plans():
    return {q.name: q for q in check_library(SOURCES, Options(library="fv")).queries}


def test_sql():
    plans = _plans()
    sql = plans["paired"].sql
    assert 'FROM "topic" AS "_v1" WHERE EXISTS (SELECT 1 FROM "essay_topics" AS "_m1j" JOIN "essay" AS "_m1"' in sql
    # (the aggregate reads the essay at hand, "_m1")
    assert '(SELECT "target_id" FROM "essay_topics" WHERE "source_id" = "_m1"."id")' in sql
    assert plans["paired"].cardinality == "many"
    assert '"_m1".grade >= $1' in plans["graded"].sql and '"_l1"."id" = "_m1"."writer_id"' in plans["graded"].sql


@pytest.mark.parametrize("query, message", [
    ("select Topic { name } filter count(.essays) > 1 and .essays.grade > 2;",
     "count(.essays) in a filter that reads '.essays' element by element (one linked object at a time) is not "
     "supported yet"),
    ("for t in Topic union (t);",
     "a 'for' loop over objects is supported with a body that is a value of the loop's object only"),
    ("select Topic { name } order by .essays.title;", "path traversal ('.a.b') is only supported as '.link.id'"),
])
def test_refused(query, message):
    sources = {"fv/s.esdl": SCHEMA, "fv/q/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        compile_library(sources, Options(library="fv"))
    assert message in e.value.render(sources)


def test_on_postgres(pg):
    plans = _plans()
    pg.execute(compile_library(SOURCES, Options(library="fv"))["sql/000001_init.up.sql"])
    pg.execute(DATA)

    def run(name, *args):
        return sorted(r[0] for r in pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql),
                                               {f"p{i}": a for i, a in enumerate(args, 1)}))

    params = [p.name for p in plans["paired"].params]
    for (with_, min_), expected in EXPECTED.items():
        args = {"with": with_, "min": min_}
        assert run("paired", *(args[p] for p in params)) == expected
    assert run("bylines") == BYLINES
    gparams = [p.name for p in plans["graded"].params]
    assert run("graded", *({"min": 4, "w": "bob"}[p] for p in gparams)) == ["web"]
    assert run("graded", *({"min": 5, "w": "bob"}[p] for p in gparams)) == []


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as fv from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = fv.createRunner(pool).query;
  const paired: string[] = await q.paired({ with: "sql", min: 3 });
  assert.deepEqual(paired, ["rust"]);
  assert.deepEqual((await q.paired({ with: "sql", min: 1 })).sort(), ["go", "rust"]);
  assert.deepEqual((await q.bylines()).sort(), ["e1 by ann", "e2 by bob", "e3 by bob", "e4 by ann"]);
  assert.deepEqual((await q.graded({ min: 5, w: "ann" })).map((r) => r.name).sort(), ["rust", "sql"]);
  console.log(JSON.stringify({ forObjectValues: true }));
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
def test_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library(SOURCES, Options(library="fv"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute(DATA)
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"forObjectValues": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	fv "schemactest/fv"
)

func TestForObjectValues(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := fv.New(db).Query
	paired, err := q.Paired(ctx, fv.PairedParams{With: "web", Min: 4})
	if err != nil || !reflect.DeepEqual(paired, []string{"go"}) {
		t.Fatalf("paired: %#v (%v)", paired, err)
	}
	bylines, err := q.Bylines(ctx)
	sort.Strings(bylines)
	if err != nil || !reflect.DeepEqual(bylines, []string{"e1 by ann", "e2 by bob", "e3 by bob", "e4 by ann"}) {
		t.Fatalf("bylines: %#v (%v)", bylines, err)
	}
	graded, err := q.Graded(ctx, fv.GradedParams{Min: 5, W: "bob"})
	if err != nil || len(graded) != 0 {
		t.Fatalf("graded: %#v (%v)", graded, err)
	}
}
"""


@pytest.mark.slow
def test_go_runner(pg, go_run, tmp_path):
    out = compile_library(SOURCES, Options(library="fv"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute(DATA)
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "fv")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "for_object_values_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestForObjectValues" in result.test.stdout, result.test.stdout
