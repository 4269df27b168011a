"""``update global g [filter f] set {...}`` and ``delete global g`` of a computed global holding
an object (``global me := (select Member filter .id = global me_id)``): Gel updates and deletes
any set of objects (https://docs.geldata.com/reference/edgeql/update,
https://docs.geldata.com/reference/edgeql/delete), here the global's object, so the statement is
``update Member filter .id = global me [and f] set {...}``; nothing is written when the global is
empty. Was E0100 (the grammar read no global after update/delete). On PostgreSQL 15 with data and
through the TypeScript and Go runners."""

from __future__ import annotations

import json
import re
import uuid

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  global me_id: uuid;
  global me := (select Member filter .id = global me_id);
  type Member { required name: str; multi friends: Member; }
}
"""
SOURCES = {
    "s.gel": SCHEMA,
    "q/rename.edgeql": "update global me set { name := <str>$name };",
    "q/rename_if.edgeql": "update global me filter .name = <str>$old set { name := <str>$new };",
    "q/befriend.edgeql": "with n := <str>$n update global me set { friends += (select detached Member filter .name = n) };",
    "q/leave.edgeql": "delete global me;",
    "q/members.edgeql": "select Member { name, friends: { name } order by .name } order by .name;",
}
ANN, BOB = "00000000-0000-0000-0000-0000000000a1", "00000000-0000-0000-0000-0000000000a2"


def _setup(pg):
    out = compile_library(SOURCES, Options(library="gw"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute(f"INSERT INTO member (id, name) VALUES ('{ANN}', 'ann'), ('{BOB}', 'bob')")
    return out, {q.name: q for q in check_library(SOURCES, Options(library="gw")).queries}


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql)
    rows = pg.execute(sql, {f"p{p.index}": args.get(p.name.split("::")[-1]) for p in plan.params})
    return [tuple(str(v) if isinstance(v, uuid.UUID) else v for v in r) for r in rows]


def test_writes_of_a_global_object_on_postgres(pg):
    _, plans = _setup(pg)
    assert plans["rename"].cardinality == plans["leave"].cardinality == "at_most_one"
    assert _run(pg, plans["rename"], me_id=ANN, name="anna") == [(ANN,)]
    assert _run(pg, plans["rename"], me_id=None, name="x") == []  # an empty global: nothing
    assert _run(pg, plans["rename_if"], me_id=BOB, old="nope", new="x") == []
    assert _run(pg, plans["rename_if"], me_id=BOB, old="bob", new="bo") == [(BOB,)]
    _run(pg, plans["befriend"], me_id=BOB, n="anna")
    assert _run(pg, plans["members"]) == [("anna", []), ("bo", [{"name": "anna"}])]
    assert _run(pg, plans["leave"], me_id=BOB) == [(BOB,)]  # (its links go with it)
    assert _run(pg, plans["members"]) == [("anna", [])]


@pytest.mark.parametrize("query, code, message", [
    ("update global me_id set { name := 'x' };", "E0206",
     "an update of global 'me_id', which holds no object, is not supported"),
    ("delete global nobody;", "E0302", "unknown global 'nobody'"),
])
def test_a_global_that_holds_no_object_is_refused(query, code, message):
    with pytest.raises(CompileError) as e:
        check_library({"s.gel": SCHEMA, "q/q.edgeql": query}, Options(library="gw"))
    assert [(d.code, d.message, d.span.col) for d in e.value.diagnostics] == [(code, message, 8)]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as e from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const ann = e.createRunner(pool, { globals: { me_id: "ANN" } }).query;
  assert.equal((await ann.rename({ name: "anna" }))?.id, "ANN");
  assert.equal(await e.createRunner(pool).query.rename({ name: "x" }), null);
  assert.equal((await ann.leave())?.id, "ANN");
  assert.deepEqual((await ann.members()).map((m) => m.name), ["bob"]);
  console.log(JSON.stringify({ globalWrites: true }));
} finally {
  await pool.end();
}
"""


@pytest.mark.slow
def test_through_the_typescript_runner(pg, tsc_run, tmp_path):
    out, _ = _setup(pg)
    src = tmp_path / "src"
    for rel, text in out.items():
        if rel.startswith("ts/"):
            p = src / "gen" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (src / "main.ts").write_text(TS_MAIN.replace("ANN", ANN))
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"globalWrites": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	gw "schemactest/gw"
)

func TestGlobalWrites(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	me := "BOB"
	bob := gw.New(db).WithGlobals(gw.Globals{MeID: &me})
	row, err := bob.Query.Rename(ctx, gw.RenameParams{Name: "bo"})
	if err != nil || row == nil || row.ID != me {
		t.Fatalf("rename: %#v %v", row, err)
	}
	none, err := gw.New(db).Query.Leave(ctx)
	if err != nil || none != nil {
		t.Fatalf("leave without a global: %#v %v", none, err)
	}
	members, err := bob.Query.Members(ctx)
	if err != nil || len(members) != 2 || members[1].Name != "bo" {
		t.Fatalf("members: %#v %v", members, err)
	}
}
"""


@pytest.mark.slow
def test_through_the_go_runner(pg, go_run, tmp_path):
    out, _ = _setup(pg)
    mod = tmp_path / "mod"
    for rel, text in out.items():
        if rel.startswith("go/"):
            p = mod / "gw" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (mod / "e2e").mkdir()
    (mod / "e2e" / "gw_test.go").write_text(GO_TEST.replace("BOB", BOB))
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestGlobalWrites" in result.test.stdout
