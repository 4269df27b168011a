"""``select (update T filter .key = $k set {...}) { shape } limit 1``: the update yields at most
one object (its filter pins a full exclusive constraint, or ``.id``; an insert yields one), so
the limit changes nothing (https://docs.geldata.com/reference/edgeql/select#pagination) and the
query is the select without it. Any other clause on a selected write stays E0206. ``delete T
filter f order by o limit n`` deletes the objects the select with the same clauses selects
(https://docs.geldata.com/reference/edgeql/delete; was E0100). Proven on
PostgreSQL 15 with data, and through the TypeScript and Go runners."""

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
  type Room { required code: str { constraint exclusive; }; title: str; }
}
"""

QUERIES = {
    "retitle": ("with code := <str>$code\n"
                "select (update Room filter .code = code set { title := <str>$title }) { code, title } limit 1;"),
    "add_room": "select (insert Room { code := <str>$code }) { code } limit 1;",
    "drop_first": "delete Room filter .title = <str>$title order by .code desc limit 1;",
    "rooms": "select Room { code } order by .code;",
}


def _sources() -> Dict[str, str]:
    sources = {"wl/default.gel": SCHEMA}
    sources.update({f"wl/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return sources


def test_a_limit_on_a_write_of_one_object_on_postgres(pg):
    pg.execute(compile_library(_sources(), Options(library="wl"))["sql/000001_init.up.sql"])
    q = {p.name: p for p in check_library(_sources(), Options(library="wl")).queries}
    assert run_plan(pg, q["add_room"], "r1") == [("r1",)]
    assert run_plan(pg, q["retitle"], "r1", "big") == [("r1", "big")]
    assert run_plan(pg, q["retitle"], "none", "x") == []
    assert "LIMIT" not in q["retitle"].sql
    for code in ("r2", "r3", "r4"):
        run_plan(pg, q["add_room"], code)
        run_plan(pg, q["retitle"], code, "t")
    assert len(run_plan(pg, q["drop_first"], "t")) == 1
    assert run_plan(pg, q["rooms"]) == [("r1",), ("r2",), ("r3",)]


@pytest.mark.parametrize("query", [
    # the update may write several objects: which one would be returned?
    "select (update Room filter .title = 'x' set { title := 'y' }) { code } limit 1;",
    "select (update Room filter .code = 'x' set { title := 'y' }) { code } offset 1;",
])
def test_other_clauses_on_a_selected_write_stay_refused(query):
    sources = {"wl/default.gel": SCHEMA, "wl/queries/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="wl"))
    assert exc.value.diagnostics[0].code == "E0206"


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as wl from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = wl.createRunner(pool).query;
  assert.equal((await q.addRoom({ code: "r1" })).code, "r1");
  const room = await q.retitle({ code: "r1", title: "big" });
  assert.deepEqual([room?.code, room?.title], ["r1", "big"]);
  assert.equal(await q.retitle({ code: "none", title: "x" }), null);
  assert.equal((await q.dropFirst({ title: "big" })).length, 1);
  assert.deepEqual(await q.rooms(), []);
  console.log(JSON.stringify({ writeLimit: true }));
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

	wl "schemactest/wl"
)

func TestWriteLimit(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "DELETE FROM room"); err != nil { // (go_run runs the test twice)
		t.Fatal(err)
	}
	q := wl.New(db).Query
	if _, err := q.AddRoom(ctx, wl.AddRoomParams{Code: "r1"}); err != nil {
		t.Fatal(err)
	}
	room, err := q.Retitle(ctx, wl.RetitleParams{Code: "r1", Title: "big"})
	if err != nil || room == nil || room.Title == nil || *room.Title != "big" {
		t.Fatalf("retitle: %+v %v", room, err)
	}
	none, err := q.Retitle(ctx, wl.RetitleParams{Code: "none", Title: "x"})
	if err != nil || none != nil {
		t.Fatalf("none: %+v %v", none, err)
	}
	if dropped, err := q.DropFirst(ctx, wl.DropFirstParams{Title: "big"}); err != nil || len(dropped) != 1 {
		t.Fatalf("drop: %v %v", dropped, err)
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
def test_a_limit_on_a_write_of_one_object_through_the_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library(_sources(), Options(library="wl"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"writeLimit": True}


@pytest.mark.slow
def test_a_limit_on_a_write_of_one_object_through_the_go_runner(pg, go_run, tmp_path):
    out = compile_library(_sources(), Options(library="wl"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, mod / "wl", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "wl_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestWriteLimit" in result.test.stdout
