"""``shelves := (select .shelves filter @note != $n)`` in an update: a multi link given the
object's own links that a filter keeps (the filter reads the link properties, ``@note``, and the
linked object, ``.label``). Gel replaces a multi link's links by deleting the links to objects
not in the new set and inserting the missing ones ``ON CONFLICT DO NOTHING`` (when the new value
sets no link property), so the links kept keep their link properties
(https://docs.geldata.com/reference/edgeql/update, https://docs.geldata.com/reference/datamodel/linkprops):
here only the links the filter does not keep (false or empty) are deleted. It was E0206
"'shelves := (select .shelves filter ...)' is not supported yet". Tested on PostgreSQL 15,
directly and through node-postgres and pgx, also inside a function called by a query."""

from __future__ import annotations

import json
import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Shelf { required label: str; }
type Book {
  required title: str;
  multi shelves: Shelf { note: str; };
  property notes := (select .shelves@note);
}
function unshelve(named only note: str) -> set of Book {
  using (update Book filter contains(.notes, note) set { shelves := (select .shelves filter @note != note) });
}
"""

SOURCES = {
    "kl/s.esdl": SCHEMA,
    "kl/q/tidy.edgeql": "update Book filter .title = <str>$title\n"
                        "set { shelves := (select .shelves filter @note != <str>$note or .label = 'pinned') };",
    "kl/q/unshelve_all.edgeql": "select unshelve(note := <str>$note);",
}

A, B, P, P2 = (f"00000000-0000-0000-0000-00000000000{i}" for i in (1, 2, 3, 4))
ONE, TWO, THREE = (f"00000000-0000-0000-0000-0000000000b{i}" for i in (1, 2, 3))

DATA = f"""
INSERT INTO "shelf" ("id", "label") VALUES ('{A}', 'a'), ('{B}', 'b'), ('{P}', 'pinned'), ('{P2}', 'pinned');
INSERT INTO "book" ("id", "title") VALUES ('{ONE}', 'one'), ('{TWO}', 'two'), ('{THREE}', 'three');
INSERT INTO "book_shelves" ("source_id", "target_id", "note") VALUES
  ('{ONE}', '{A}', 'x'), ('{ONE}', '{B}', 'y'), ('{ONE}', '{P}', NULL), ('{ONE}', '{P2}', 'x'),
  ('{TWO}', '{A}', 'x'), ('{TWO}', '{B}', NULL),
  ('{THREE}', '{A}', 'xy');
"""

#: The links after tidy('one', 'x'): A (note 'x' = 'x') goes; P's note is empty, so its filter
#: is {} ({} or true is {} in Gel) and it goes; P2 is pinned and stays, with its note.
AFTER_TIDY = [(ONE, B, "y"), (ONE, P2, "x"), (TWO, A, "x"), (TWO, B, None), (THREE, A, "xy")]
#: Then unshelve('x'): the books with a note containing 'x' (all three) keep the links whose note
#: is not 'x' (an empty note is not kept); three's 'xy' stays.
AFTER_UNSHELVE = [(ONE, B, "y"), (THREE, A, "xy")]


def _plans():
    return {q.name: q for q in check_library(SOURCES, Options(library="kl")).queries}


def test_sql():
    plans = _plans()
    sql = plans["tidy"].sql
    assert ('"_l"."target_id" <> ALL (ARRAY(SELECT "_kj0"."target_id" FROM "book_shelves" AS "_kj0" JOIN "shelf" '
            'AS "_kt0" ON "_kt0"."id" = "_kj0"."target_id" WHERE "_kj0"."source_id" = "_new"."id" AND (') in sql
    assert "INSERT" not in sql  # (a subset of the links: nothing is inserted)
    assert "DELETE FROM \"book_shelves\"" in plans["unshelve_all"].sql


@pytest.mark.parametrize("query, message", [
    ("insert Book { title := 'x', shelves := (select .shelves filter @note = 'a') };",
     "'shelves := (select .shelves filter ...)' is not supported in an insert"),
    ("update Book set { shelves := (select .shelves filter @note = Book.title) };",
     # (refused where the updated object's name is bound, eac72d4: still E0206, never all books)
     "'Book.title' inside a sub-select or a nested shape: 'Book' here is the Book object at hand"),
    ("update Book set { shelves := (select .shelves filter @nope = 'a') };",
     "link 'shelves' has no property 'nope'"),
])
def test_refused(query, message):
    sources = {"kl/s.esdl": SCHEMA, "kl/q/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        compile_library(sources, Options(library="kl"))
    assert message in e.value.render(sources)


def _links(pg):
    return sorted(pg.execute('SELECT "source_id"::text, "target_id"::text, "note" FROM "book_shelves"'),
                  key=lambda r: (r[0], r[1]))


def test_on_postgres(pg):
    plans = _plans()
    pg.execute(compile_library(SOURCES, Options(library="kl"))["sql/000001_init.up.sql"])
    pg.execute(DATA)

    def run(name, *args):
        return pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql),
                          {f"p{i}": a for i, a in enumerate(args, 1)})

    assert [str(r[0]) for r in run("tidy", "one", "x")] == [ONE]
    assert _links(pg) == AFTER_TIDY
    assert sorted(str(r[0]) for r in run("unshelve_all", "x")) == [ONE, TWO, THREE]
    assert _links(pg) == AFTER_UNSHELVE
    assert run("unshelve_all", "x") != []  # (three's 'xy' still contains 'x'; nothing changes)
    assert _links(pg) == AFTER_UNSHELVE


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as kl from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const links = async () => (await pool.query(
  'SELECT "source_id"::text AS s, "target_id"::text AS t, "note" AS n FROM "book_shelves" ORDER BY 1, 2')).rows
  .map((r) => [r.s, r.t, r.n]);
try {
  const q = kl.createRunner(pool).query;
  assert.deepEqual((await q.tidy({ title: "one", note: "x" })).map((r) => r.id), [ONE]);
  assert.deepEqual(await links(), AFTER_TIDY);
  assert.deepEqual((await q.unshelveAll({ note: "x" })).map((r) => r.id).sort(), [ONE, TWO, THREE]);
  assert.deepEqual(await links(), AFTER_UNSHELVE);
  console.log(JSON.stringify({ keptLinks: true }));
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


def _ts_main() -> str:
    consts = (f"const ONE = {json.dumps(ONE)}, TWO = {json.dumps(TWO)}, THREE = {json.dumps(THREE)};\n"
              f"const AFTER_TIDY = {json.dumps(AFTER_TIDY)};\nconst AFTER_UNSHELVE = {json.dumps(AFTER_UNSHELVE)};\n")
    head, _, rest = TS_MAIN.partition("const pool")
    return head + consts + "const pool" + rest


@pytest.mark.slow
def test_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library(SOURCES, Options(library="kl"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute(DATA)
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    (src / "main.ts").write_text(_ts_main())
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"keptLinks": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"sort"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	kl "schemactest/kl"
)

func TestKeptLinks(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := kl.New(db).Query
	count := func() (n int) {
		if err := db.QueryRow(ctx, `SELECT count(*) FROM "book_shelves"`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	tidied, err := q.Tidy(ctx, kl.TidyParams{Title: "one", Note: "x"})
	if err != nil || len(tidied) != 1 || count() != 5 {
		t.Fatalf("tidy: %#v (%v), %d links", tidied, err, count())
	}
	var note string
	if err := db.QueryRow(ctx, `SELECT "note" FROM "book_shelves" WHERE "target_id" = '%s'`).Scan(&note); err != nil || note != "x" {
		t.Fatalf("the pinned link's note: %q (%v)", note, err)
	}
	unshelved, err := q.UnshelveAll(ctx, kl.UnshelveAllParams{Note: "x"})
	ids := []string{}
	for _, r := range unshelved {
		ids = append(ids, r.ID)
	}
	sort.Strings(ids)
	if err != nil || len(ids) != 3 || count() != 2 {
		t.Fatalf("unshelve: %#v (%v), %d links", ids, err, count())
	}
}
"""


@pytest.mark.slow
def test_go_runner(pg, go_run, tmp_path):
    out = compile_library(SOURCES, Options(library="kl"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute(DATA)
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "kl")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "kept_links_test.go").write_text(GO_TEST.replace("%s", P2))
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestKeptLinks" in result.test.stdout, result.test.stdout
