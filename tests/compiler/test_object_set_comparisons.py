"""A filter comparing a path of objects through computed backlinks and links with a ``with``
selection, ``.books.loans.reader = r``, alone or under ``and`` / ``or`` / ``if ... else``
(https://docs.geldata.com/reference/edgeql/sets: ``=`` is computed for every pair of elements,
so the comparison is a set of bools, empty when the path reaches no object;
https://docs.geldata.com/reference/stdlib/generic: ``if ... else`` takes its branches as whole
sets; https://docs.geldata.com/reference/edgeql/select#filtering: an object is kept when the
filter's set holds true). Run on PostgreSQL 15 through node-postgres and pgx. It was E0206
"path traversal ('.a.b') is only supported as '.link.id'"."""

from __future__ import annotations

import json
import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Reader { required name: str { constraint exclusive; }; }
type Writer {
  required name: str;
  starred: bool;
  multi link books := .<writer[is Novel];
}
type Novel {
  required title: str;
  required writer: Writer;
  multi link loans := .<novel[is Loan];
}
type Loan { required novel: Novel; required reader: Reader; }
"""

SOURCES = {
    "oscmp/s.esdl": SCHEMA,
    "oscmp/q/read_by.edgeql": """
        with r := (select Reader filter .name = <str>$reader)
        select Writer { name } filter .books.loans.reader = r order by .name;""",
    "oscmp/q/read_by_flipped.edgeql": """
        with r := (select Reader filter .name = <str>$reader)
        select Writer { name } filter r = .books.loans.reader and .name != 'w9' order by .name;""",
    "oscmp/q/read_by_or_starred.edgeql": """
        with r := (select Reader filter .name = <optional str>$reader)
        select Writer { name }
        filter ((.books.loans.reader = r) if exists r else true) or .starred
        order by .name;""",
}

# w1: a novel read by ann; w2: a novel read by bob, starred; w3: no novel, starred;
# w4: a novel read by ann, starred unknown (empty); w5: a novel nobody read, not starred
SETUP = """
INSERT INTO reader (name) VALUES ('ann'), ('bob');
INSERT INTO writer (name, starred) VALUES ('w1', false), ('w2', true), ('w3', true), ('w4', NULL), ('w5', false);
INSERT INTO novel (title, writer_id) SELECT 'n-' || name, id FROM writer WHERE name IN ('w1', 'w2', 'w4', 'w5');
INSERT INTO loan (novel_id, reader_id) VALUES
  ((SELECT id FROM novel WHERE title = 'n-w1'), (SELECT id FROM reader WHERE name = 'ann')),
  ((SELECT id FROM novel WHERE title = 'n-w2'), (SELECT id FROM reader WHERE name = 'bob')),
  ((SELECT id FROM novel WHERE title = 'n-w4'), (SELECT id FROM reader WHERE name = 'ann'));
"""


def _plans():
    return {q.name: q for q in check_library(SOURCES, Options(library="oscmp")).queries}


def test_sql():
    sql = _plans()["read_by"].sql
    # the comparison holds true: one object the path reaches is one of the selection's
    assert sql.count("EXISTS (SELECT 1 FROM \"reader\"") == 1
    assert '"loan"' in sql and '"novel"' in sql


@pytest.mark.parametrize("query", [
    # the same path read twice: Gel binds its elements once for both, not lowered
    "with r := (select Reader) select Writer { name } filter .books.loans.reader = r and .books.title = 'x';",
])
def test_a_path_read_twice_stays_refused(query):
    sources = {"oscmp/s.esdl": SCHEMA, "oscmp/q/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        compile_library(sources, Options(library="oscmp"))
    assert "error[E0206]" in e.value.render(sources)


def test_on_postgres(pg):
    plans = _plans()
    pg.execute(compile_library(SOURCES, Options(library="oscmp"))["sql/000001_init.up.sql"])
    pg.execute(SETUP)

    def run(name, *args):
        rows = pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql), {f"p{i}": a for i, a in enumerate(args, 1)})
        return [r[0] for r in rows]

    assert run("read_by", "ann") == ["w1", "w4"]
    assert run("read_by", "bob") == ["w2"]
    assert run("read_by", "nobody") == []
    assert run("read_by_flipped", "ann") == ["w1", "w4"]
    # ann: w1 (true or false); w2 (false or true); not w3 (no novel: {} or true is {}); not w4
    # (true or {} is {}); not w5 (false or false)
    assert run("read_by_or_starred", "ann") == ["w1", "w2"]
    # no such reader: the condition is false, `true or .starred` for every writer with a starred
    assert run("read_by_or_starred", "nobody") == ["w1", "w2", "w3", "w5"]
    assert run("read_by_or_starred", None) == ["w1", "w2", "w3", "w5"]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as oscmp from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query(process.env["SETUP"]!);
  const q = oscmp.createRunner(pool).query;
  assert.deepEqual(await q.readBy({ reader: "ann" }), [{ name: "w1" }, { name: "w4" }]);
  assert.deepEqual(await q.readByOrStarred({ reader: "ann" }), [{ name: "w1" }, { name: "w2" }]);
  assert.deepEqual((await q.readByOrStarred({ reader: null })).map((w) => w.name), ["w1", "w2", "w3", "w5"]);
  console.log(JSON.stringify({ objectSetComparisons: true }));
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
    out = compile_library(SOURCES, Options(library="oscmp"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    (src / "main.ts").write_text(TS_MAIN)
    monkeypatch.setenv("SETUP", SETUP)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"objectSetComparisons": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	osq "schemactest/oscmp"
)

func TestObjectSetComparisons(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, os.Getenv("SETUP")); err != nil {
		t.Fatal(err)
	}
	q := osq.New(db).Query
	rows, err := q.ReadBy(ctx, osq.ReadByParams{Reader: "bob"})
	if err != nil || len(rows) != 1 || rows[0].Name != "w2" {
		t.Fatalf("read by: %#v (%v)", rows, err)
	}
	ann := "ann"
	some, err := q.ReadByOrStarred(ctx, osq.ReadByOrStarredParams{Reader: &ann})
	if err != nil || len(some) != 2 || some[0].Name != "w1" || some[1].Name != "w2" {
		t.Fatalf("read by or starred: %#v (%v)", some, err)
	}
	all, err := q.ReadByOrStarred(ctx, osq.ReadByOrStarredParams{})
	if err != nil || len(all) != 4 {
		t.Fatalf("read by or starred, no reader: %#v (%v)", all, err)
	}
}
"""


@pytest.mark.slow
def test_go_runner(pg, go_run, tmp_path, monkeypatch):
    out = compile_library(SOURCES, Options(library="oscmp"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "oscmp")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "object_set_comparisons_test.go").write_text(GO_TEST)
    monkeypatch.setenv("SETUP", SETUP)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestObjectSetComparisons" in result.test.stdout, result.test.stdout
