"""A link assigned a ``for`` loop of inserts, ``terms := (for t in json_array_unpack(<json>$terms)
union (insert Term {...}))``, also as the body of a ``with`` block binding values (``(with raw :=
<optional json>$terms, for t in json_array_unpack(raw) union (insert ...))``): every object the
loop inserts is linked (https://docs.geldata.com/reference/edgeql/for,
https://docs.geldata.com/reference/edgeql/update#updating-multi-links); the loop is written first,
as ``with ts := (for ...)`` ... ``terms := ts`` is. Gel evaluates an update's values once per
object it updates, so in an update that may select several objects it stays a located E0206.
Proven on PostgreSQL 15 with data, through the TypeScript and Go runners."""

from __future__ import annotations

import json

import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module default {
  type Term { required word: str; }
  type Lecture { required title: str { constraint exclusive; }; multi terms: Term; }
}
"""

QUERIES = {
    "q/set_terms.edgeql": """\
update Lecture filter .title = <str>$title set {
  terms := (with raw := <optional json>$terms,
            for t in json_array_unpack(raw) union (insert Term { word := <str>t['word'] }))
}
""",
    "q/new_lecture.edgeql": """\
insert Lecture {
  title := <str>$title,
  terms := (for w in array_unpack(<array<str>>$words) union (insert Term { word := w })),
}
""",
}


def _plans():
    return {q.name: q for q in check_library({"default.gel": SCHEMA, **QUERIES}, Options(library="u")).queries}


def _terms(pg, title):
    return pg.execute("SELECT t.word FROM lecture l JOIN lecture_terms lt ON lt.source_id = l.id "
                      "JOIN term t ON t.id = lt.target_id WHERE l.title = %s ORDER BY t.word", (title,))


def test_a_loop_of_inserts_as_a_multi_link_value(pg):
    pg.execute(compile_library({"default.gel": SCHEMA}, Options(library="u"))["sql/000001_init.up.sql"])
    q = _plans()
    assert [p.optional for p in q["set_terms"].params] == [False, True]
    (lid,), = run_plan(pg, q["new_lecture"], "sql", ["join", "index"])
    assert _terms(pg, "sql") == [("index",), ("join",)]
    assert run_plan(pg, q["set_terms"], "sql", json.dumps([{"word": "cte"}, {"word": "lock"}])) == [(lid,)]
    assert _terms(pg, "sql") == [("cte",), ("lock",)]
    # (the terms it unlinked stay, as Gel's objects do)
    assert pg.execute("SELECT count(*) FROM term") == [(4,)]
    # an empty json set ({}): the loop inserts nothing and the link is emptied
    assert run_plan(pg, q["set_terms"], "sql", None) == [(lid,)]
    assert _terms(pg, "sql") == []
    # no lecture selected: nothing inserted
    assert run_plan(pg, q["set_terms"], "none", json.dumps([{"word": "x"}])) == []
    assert pg.execute("SELECT count(*) FROM term") == [(4,)]


def test_in_an_update_of_several_objects_it_is_a_located_e0206():
    sources = {"default.gel": SCHEMA, "q/a.edgeql": (
        "update Lecture set {\n"
        "  terms := (for w in array_unpack(<array<str>>$w) union (insert Term { word := w }))\n}\n")}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="u"))
    text = exc.value.render(sources)
    assert "q/a.edgeql:2:12" in text and "error[E0206]" in text and "a 'for' loop of inserts" in text, text


_TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as u from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = u.createRunner(pool).query;
  const made = await q.newLecture({ title: "go", words: ["chan"] });
  const set = await q.setTerms({ title: "go", terms: [{ word: "defer" }, { word: "select" }] });
  assert.equal(set?.id, made.id);
  const res = await pool.query(
    "SELECT t.word FROM lecture_terms lt JOIN term t ON t.id = lt.target_id WHERE lt.source_id = $1 ORDER BY 1",
    [made.id]);
  assert.deepEqual(res.rows.map((r: { word: string }) => r.word), ["defer", "select"]);
  assert.equal(await q.setTerms({ title: "nope", terms: [] }), null);
  console.log(JSON.stringify({ loopInsertLinks: true }));
} finally {
  await pool.end();
}
"""

_GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	u "schemactest/u"
)

func TestLoopInsertLinks(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "TRUNCATE lecture, term CASCADE"); err != nil {
		t.Fatal(err)
	}
	q := u.New(db).Query
	made, err := q.NewLecture(ctx, u.NewLectureParams{Title: "rust", Words: []string{"borrow", "trait"}})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM lecture_terms WHERE source_id = $1", made.ID).Scan(&n); err != nil || n != 2 {
		t.Fatalf("terms: %d %v", n, err)
	}
	row, err := q.SetTerms(ctx, u.SetTermsParams{Title: "rust"})
	if err != nil || row == nil || row.ID != made.ID {
		t.Fatalf("set terms: %v %v", row, err)
	}
	if err := db.QueryRow(ctx, "SELECT count(*) FROM lecture_terms WHERE source_id = $1", made.ID).Scan(&n); err != nil || n != 0 {
		t.Fatalf("terms after an empty set: %d %v", n, err)
	}
}
"""


def _write_tree(files, root, prefix):
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = root / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_loop_insert_links_through_the_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library({"default.gel": SCHEMA, **QUERIES}, Options(library="u"))
    pg.execute(out["sql/000001_init.up.sql"])
    _write_tree(out, tmp_path / "src" / "gen", "ts/")
    (tmp_path / "src" / "main.ts").write_text(_TS_MAIN)
    result = tsc_run(tmp_path / "src", "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"loopInsertLinks": True}


@pytest.mark.slow
def test_loop_insert_links_through_the_go_runner(pg, go_run, tmp_path):
    out = compile_library({"default.gel": SCHEMA, **QUERIES}, Options(library="u"))
    pg.execute(out["sql/000001_init.up.sql"])
    _write_tree(out, tmp_path / "mod" / "u", "go/")
    (tmp_path / "mod" / "e2e").mkdir()
    (tmp_path / "mod" / "e2e" / "u_test.go").write_text(_GO_TEST)
    result = go_run(tmp_path / "mod", test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestLoopInsertLinks" in result.test.stdout
