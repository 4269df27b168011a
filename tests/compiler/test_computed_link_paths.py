"""Paths through a computed link that is itself a path
(https://docs.geldata.com/reference/datamodel/computeds, https://docs.geldata.com/reference/edgeql/paths):
with ``link label := (select .record.label)``, ``.label.title`` is ``.record.label.title``, the
computed's expression evaluated for the object (also a computed link naming another one,
``link imprint := .label``). Used in ``filter`` and ``order by``; a path through a computed
link that is not a path of links (a backlink, a filtered select) stays refused outside a filter. Tested on
PostgreSQL 15 through node-postgres and pgx (it was E0206 "path traversal ('.a.b') is only
supported as '.link.id'")."""

from __future__ import annotations

import json
import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Label {
  required title: str;
  multi link records := .<label[is Record];
}
type Record {
  required name: str;
  label: Label;
}
type Track {
  required name: str;
  required record: Record;
  link label := (select .record.label);
  link imprint := .label;
}
"""

SOURCES = {
    "cl/s.esdl": SCHEMA,
    "cl/q/by_label.edgeql": "select Track { name } filter re_test(<str>$pattern, .label.title) "
                            "order by .imprint.title desc then .name;",
    "cl/q/unlabelled.edgeql": "select Track { name } filter not exists .imprint.title order by .name;",
}

SETUP = """
INSERT INTO label (title) VALUES ('Alpha'), ('Beta');
INSERT INTO record (name, label_id) VALUES ('r1', (SELECT id FROM label WHERE title = 'Alpha')),
  ('r2', (SELECT id FROM label WHERE title = 'Beta')), ('r3', NULL);
INSERT INTO track (name, record_id) VALUES ('t1', (SELECT id FROM record WHERE name = 'r1')),
  ('t2', (SELECT id FROM record WHERE name = 'r2')), ('t0', (SELECT id FROM record WHERE name = 'r2')),
  ('t3', (SELECT id FROM record WHERE name = 'r3'));
"""


def _plans():
    return {q.name: q for q in check_library(SOURCES, Options(library="cl")).queries}


def test_sql():
    sql = _plans()["by_label"].sql
    # (`label` is a path through single links: a single computed link, at most one object, as
    # Gel infers it; its title is that object's, empty when there is none)
    assert ('WHERE ((SELECT "_cp2".title FROM "label" AS "_cp2" WHERE "_cp2"."id" IN (SELECT "_h1"."label_id" '
            'FROM "record" AS "_h1" WHERE "_h1"."id" IN (SELECT "_h0"."record_id" FROM "track" AS "_h0" '
            'WHERE "_h0"."id" = "track"."id")))) ~ $1::text') in sql
    assert sql.endswith("DESC NULLS LAST, name ASC NULLS FIRST")


@pytest.mark.parametrize("query, message", [
    # (in a filter, a path through a computed backlink is a set, test_for_object_values.py)
    ("select Label { title } order by .records.name;", "path traversal ('.a.b') is only supported as '.link.id'"),
])
def test_other_computed_links_stay_refused(query, message):
    sources = {"cl/s.esdl": SCHEMA, "cl/q/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        compile_library(sources, Options(library="cl"))
    assert message in e.value.render(sources)


def test_on_postgres(pg):
    plans = _plans()
    pg.execute(compile_library(SOURCES, Options(library="cl"))["sql/000001_init.up.sql"])
    pg.execute(SETUP)

    def run(name, *args):
        return pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql), {f"p{i}": a for i, a in enumerate(args, 1)})

    assert run("by_label", "a") == [("t0",), ("t2",), ("t1",)]  # Beta before Alpha; 'a' in both
    assert run("by_label", "^A") == [("t1",)]
    assert run("unlabelled") == [("t3",)]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as cl from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query(process.env["SETUP"]!);
  const q = cl.createRunner(pool).query;
  assert.deepEqual(await q.byLabel({ pattern: "a" }), [{ name: "t0" }, { name: "t2" }, { name: "t1" }]);
  assert.deepEqual(await q.byLabel({ pattern: "^B" }), [{ name: "t0" }, { name: "t2" }]);
  assert.deepEqual(await q.unlabelled(), [{ name: "t3" }]);
  console.log(JSON.stringify({ computedLinkPaths: true }));
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
    out = compile_library(SOURCES, Options(library="cl"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    (src / "main.ts").write_text(TS_MAIN)
    monkeypatch.setenv("SETUP", SETUP)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"computedLinkPaths": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	cl "schemactest/cl"
)

func TestComputedLinkPaths(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, os.Getenv("SETUP")); err != nil {
		t.Fatal(err)
	}
	q := cl.New(db).Query
	rows, err := q.ByLabel(ctx, cl.ByLabelParams{Pattern: "a"})
	if err != nil || len(rows) != 3 || rows[0].Name != "t0" || rows[1].Name != "t2" || rows[2].Name != "t1" {
		t.Fatalf("by label: %#v (%v)", rows, err)
	}
	none, err := q.Unlabelled(ctx)
	if err != nil || len(none) != 1 || none[0].Name != "t3" {
		t.Fatalf("unlabelled: %#v (%v)", none, err)
	}
}
"""


@pytest.mark.slow
def test_go_runner(pg, go_run, tmp_path, monkeypatch):
    out = compile_library(SOURCES, Options(library="cl"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "cl")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "computed_link_paths_test.go").write_text(GO_TEST)
    monkeypatch.setenv("SETUP", SETUP)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestComputedLinkPaths" in result.test.stdout, result.test.stdout
