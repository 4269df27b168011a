"""Other spellings of a link's value (https://docs.geldata.com/reference/edgeql/insert#links:
a link is given any expression of its target type), each the sub-select it selects:
``distinct (for id in array_unpack(<array<uuid>>$ids) union (select Tag filter .id = id))`` (a
multi link: ``.id in array_unpack(...)``), ``(select Tag filter .id = $id limit 1)`` (a filter
that finds one object: the limit changes nothing), ``{(select Tag filter ...)}`` and ``<Tag>id``
(Gel's cast of an id to its object, https://docs.geldata.com/reference/edgeql/casts). Proven
on PostgreSQL 15 with data, and through the TypeScript and Go runners."""

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
  type Tag { required name: str { constraint exclusive; }; }
  type Doc { required title: str; multi tags: Tag; owner: Tag; }
}
"""

QUERIES = {
    "add_doc": ("insert Doc { title := <str>$title,\n"
                "  tags := distinct((for id in array_unpack(<array<uuid>>$tag_ids) union (select Tag filter .id = id))),\n"
                "  owner := (select Tag filter .name = <optional str>$owner limit 1) };"),
    "tag_doc": "update Doc filter .title = <str>$title set { tags += (select Tag filter .id = <uuid>$tag limit 1) };",
    "untag_doc": "update Doc filter .title = <str>$title set { tags -= {(select Tag filter .name = <str>$name)} };",
    "add_owned": ("with o := <uuid>$owner\n"
                  "for t in array_unpack(<array<str>>$titles) union (insert Doc { title := t, owner := <Tag>o });"),
    "docs": "select Doc { title, owner: { name }, tags: { name } order by .name } order by .title;",
}


def _sources() -> Dict[str, str]:
    sources = {"lv/default.gel": SCHEMA}
    sources.update({f"lv/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return sources


def _seed(pg) -> Dict[str, str]:
    pg.execute(compile_library(_sources(), Options(library="lv"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO tag (name) VALUES ('a'), ('b'), ('c')")
    return {n: str(i) for i, n in pg.execute("SELECT id, name FROM tag")}


def test_link_value_forms_on_postgres(pg):
    ids = _seed(pg)
    q = {p.name: p for p in check_library(_sources(), Options(library="lv")).queries}
    run_plan(pg, q["add_doc"], "d1", [ids["a"], ids["b"], ids["a"]], "c")
    run_plan(pg, q["add_doc"], "d2", [], None)
    run_plan(pg, q["tag_doc"], "d2", ids["c"])
    run_plan(pg, q["untag_doc"], "d1", "a")
    run_plan(pg, q["add_owned"], ids["b"], ["d3", "d4"])
    rows = [(t, o, [x["name"] for x in tags]) for t, o, tags in run_plan(pg, q["docs"])]
    assert rows == [("d1", {"name": "c"}, ["b"]), ("d2", None, ["c"]), ("d3", {"name": "b"}, []),
                    ("d4", {"name": "b"}, [])]
    assert "LIMIT" not in q["tag_doc"].sql and "unnest(" in q["add_doc"].sql


@pytest.mark.parametrize("query, message", [
    # a single link given a for loop (several objects)
    ("insert Doc { title := 'x', owner := (for i in array_unpack(<array<uuid>>$ids) union "
     "(select Tag filter .id = i)) };", "a link's value that is a 'for' loop"),
])
def test_other_link_value_forms_stay_refused(query, message):
    sources = {"lv/default.gel": SCHEMA, "lv/queries/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="lv"))
    assert message in exc.value.diagnostics[0].message, exc.value.diagnostics[0]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as lv from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = lv.createRunner(pool).query;
  const ids = Object.fromEntries((await pool.query("SELECT id, name FROM tag")).rows.map((r) => [r.name, r.id]));
  await q.addDoc({ title: "d1", tag_ids: [ids.a, ids.b], owner: "c" });
  await q.tagDoc({ title: "d1", tag: ids.c });
  await q.untagDoc({ title: "d1", name: "a" });
  await q.addOwned({ owner: ids.b, titles: ["d2"] });
  const docs = (await q.docs()).map((d) => [d.title, d.owner?.name ?? null, d.tags.map((t) => t.name)]);
  assert.deepEqual(docs, [["d1", "c", ["b", "c"]], ["d2", "b", []]]);
  console.log(JSON.stringify({ linkValueForms: true }));
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

	lv "schemactest/lv"
)

func TestLinkValueForms(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "DELETE FROM doc"); err != nil { // (go_run runs the test twice)
		t.Fatal(err)
	}
	ids := map[string]string{}
	rows, err := db.Query(ctx, "SELECT id::text, name FROM tag")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		ids[name] = id
	}
	q := lv.New(db).Query
	c := "c"
	if _, err := q.AddDoc(ctx, lv.AddDocParams{Title: "d1", TagIDs: []string{ids["a"], ids["b"]}, Owner: &c}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.UntagDoc(ctx, lv.UntagDocParams{Title: "d1", Name: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.AddOwned(ctx, lv.AddOwnedParams{Owner: ids["b"], Titles: []string{"d2"}}); err != nil {
		t.Fatal(err)
	}
	docs, err := q.Docs(ctx)
	if err != nil || len(docs) != 2 || len(docs[0].Tags) != 1 || docs[0].Tags[0].Name != "b" ||
		docs[1].Owner == nil || docs[1].Owner.Name != "b" {
		t.Fatalf("docs: %+v %v", docs, err)
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
def test_link_value_forms_through_the_typescript_runner(pg, tsc_run, tmp_path):
    _seed(pg)
    src = tmp_path / "src"
    _write(compile_library(_sources(), Options(library="lv")), src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"linkValueForms": True}


@pytest.mark.slow
def test_link_value_forms_through_the_go_runner(pg, go_run, tmp_path):
    _seed(pg)
    mod = tmp_path / "mod"
    _write(compile_library(_sources(), Options(library="lv")), mod / "lv", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "lv_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestLinkValueForms" in result.test.stdout
