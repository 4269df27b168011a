"""Gel forms that were syntax errors (E0100): ``unless conflict on .k else (select T filter .k =
<the value inserted>)`` and ``... else T`` (https://docs.geldata.com/reference/edgeql/insert#upserts:
the else branch sees the conflicting object as ``T``, so a filter on the conflict's key with the
inserted value keeps it; another filter is E0206), here as a multi link's value (get or insert);
and a ``for`` loop without ``union`` before its statement (Gel 5,
https://docs.geldata.com/reference/edgeql/for). Proven on PostgreSQL 15 with data, and through
the TypeScript and Go runners."""

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
  type Media { required sid: str { constraint exclusive; }; note: str; }
  type Shelf { required name: str { constraint exclusive; }; multi media: Media; }
}
"""

QUERIES = {
    "shelve": ("update Shelf filter .name = <str>$shelf set {\n"
               "  media += (insert Media { sid := <str>$sid } unless conflict on .sid\n"
               "            else (select Media filter .sid = <str>$sid))\n"
               "};"),
    "shelve_bare": ("update Shelf filter .name = <str>$shelf set {\n"
                    "  media += (select (insert Media { sid := <str>$sid } unless conflict on .sid else Media))\n"
                    "};"),
    "add_media": "for s in array_unpack(<array<str>>$sids) insert Media { sid := s } unless conflict on .sid;",
    "note_media": "for s in array_unpack(<array<str>>$sids) update Media filter .sid = s set { note := 'seen' };",
    "shelves": "select Shelf { name, media: { sid, note } order by .sid } order by .name;",
}


def _sources() -> Dict[str, str]:
    sources = {"ce/default.gel": SCHEMA}
    sources.update({f"ce/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return sources


def _seed(pg) -> None:
    pg.execute(compile_library(_sources(), Options(library="ce"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO shelf (name) VALUES ('s1'), ('s2')")


def test_conflict_else_forms_on_postgres(pg):
    _seed(pg)
    q = {p.name: p for p in check_library(_sources(), Options(library="ce")).queries}
    assert len(run_plan(pg, q["add_media"], ["a", "b", "a"])) == 2
    run_plan(pg, q["shelve"], "s1", "a")  # an existing one: linked, not inserted again
    run_plan(pg, q["shelve"], "s1", "c")  # a new one
    run_plan(pg, q["shelve_bare"], "s2", "c")
    run_plan(pg, q["note_media"], ["a", "c", "zz"])
    rows = [(n, [(m["sid"], m["note"]) for m in media]) for n, media in run_plan(pg, q["shelves"])]
    assert rows == [("s1", [("a", "seen"), ("c", "seen")]), ("s2", [("c", "seen")])]
    assert pg.execute("SELECT count(*) FROM media")[0][0] == 3


@pytest.mark.parametrize("query, message", [
    ("insert Media { sid := <str>$sid } unless conflict on .sid else (select Media filter .note = 'x');",
     "'else (select ... filter ...)' with a filter other than the conflict's key"),
    ("insert Media { sid := <str>$sid } unless conflict on .sid else (select Media filter .sid = 'other');",
     "'else (select ... filter ...)' with a filter other than the conflict's key"),
])
def test_other_else_filters_are_refused(query, message):
    sources = {"ce/default.gel": SCHEMA, "ce/queries/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="ce"))
    d = exc.value.diagnostics[0]
    assert d.code == "E0206" and message in d.message, d


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as ce from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = ce.createRunner(pool).query;
  assert.equal((await q.addMedia({ sids: ["a", "b"] })).length, 2);
  await q.shelve({ shelf: "s1", sid: "a" });
  await q.shelveBare({ shelf: "s1", sid: "n" });
  await q.noteMedia({ sids: ["n"] });
  const shelves = (await q.shelves()).map((s) => [s.name, s.media.map((m) => [m.sid, m.note])]);
  assert.deepEqual(shelves, [["s1", [["a", null], ["n", "seen"]]], ["s2", []]]);
  console.log(JSON.stringify({ conflictElseForms: true }));
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

	ce "schemactest/ce"
)

func TestConflictElseForms(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "DELETE FROM shelf_media; DELETE FROM media"); err != nil { // (run twice)
		t.Fatal(err)
	}
	q := ce.New(db).Query
	if rows, err := q.AddMedia(ctx, ce.AddMediaParams{Sids: []string{"a", "b", "a"}}); err != nil || len(rows) != 2 {
		t.Fatalf("add: %v %v", rows, err)
	}
	if _, err := q.Shelve(ctx, ce.ShelveParams{Shelf: "s2", Sid: "b"}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.ShelveBare(ctx, ce.ShelveBareParams{Shelf: "s2", Sid: "b"}); err != nil {
		t.Fatal(err)
	}
	shelves, err := q.Shelves(ctx)
	if err != nil || len(shelves) != 2 || len(shelves[1].Media) != 1 || shelves[1].Media[0].Sid != "b" {
		t.Fatalf("shelves: %+v %v", shelves, err)
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
def test_conflict_else_forms_through_the_typescript_runner(pg, tsc_run, tmp_path):
    _seed(pg)
    src = tmp_path / "src"
    _write(compile_library(_sources(), Options(library="ce")), src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"conflictElseForms": True}


@pytest.mark.slow
def test_conflict_else_forms_through_the_go_runner(pg, go_run, tmp_path):
    _seed(pg)
    mod = tmp_path / "mod"
    _write(compile_library(_sources(), Options(library="ce")), mod / "ce", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "ce_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestConflictElseForms" in result.test.stdout
