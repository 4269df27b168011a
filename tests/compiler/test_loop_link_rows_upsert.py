"""A multi link assigned a ``for`` loop of selects setting link properties, ``badges := distinct
(for b in json_array_unpack(...) union (with r := ... select Badge { @rank := r } filter ...))``
(https://docs.geldata.com/reference/edgeql/for, https://docs.geldata.com/reference/datamodel/linkprops),
in a ``for`` loop's insert and in an upsert's else update (``:=`` replaces the existing object's
links, each kept one getting its new link properties; ``+=`` adds them), its body with names
bound per element. Was E0206 ("a multi link's value that is a 'for' loop"). On PostgreSQL 15 with
data and through the TypeScript and Go runners."""

from __future__ import annotations

import json
import re

import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  type Badge { required code: int32 { constraint exclusive; }; }
  type Scout {
    required nick: str { constraint exclusive; };
    multi badges: Badge { rank: int32; };
  }
}
"""
BADGES = """distinct (
      for b in json_array_unpack(badges) union (
        with rank := <int32>json_get(b, 'rank'), code := <int32>json_get(b, 'code'),
        select Badge { @rank := rank } filter .code = code
      )
    )"""
SOURCES = {
    "s.gel": SCHEMA,
    "q/merge_scouts.edgeql": f"""for s in json_array_unpack(<json>$scouts) union (
  with badges := <json>json_get(s, 'badges'),
  insert Scout {{ nick := <str>json_get(s, 'nick'), badges := {BADGES} }}
  unless conflict on .nick else (update Scout set {{ badges := {BADGES} }})
);""",
    "q/award.edgeql": f"""with badges := <json>$badges,
insert Scout {{ nick := <str>$nick, badges := {BADGES} }}
unless conflict on .nick else (update Scout set {{ badges += {BADGES} }});""",
    "q/scouts.edgeql": "select Scout { nick, badges: { code, @rank } order by .code } order by .nick;",
}


def _setup(pg):
    out = compile_library(SOURCES, Options(library="lr"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO badge (code) SELECT generate_series(1, 5)")
    return out, {q.name: q for q in check_library(SOURCES, Options(library="lr")).queries}


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql)
    return pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})


def _scouts(pg, plans):
    return [(r[0], [(b["code"], b["@rank"]) for b in r[1]]) for r in _run(pg, plans["scouts"])]


def test_loop_upserts_with_link_properties(pg):
    _, plans = _setup(pg)
    scouts = [{"nick": "a", "badges": [{"code": 1, "rank": 10}, {"code": 2, "rank": 20}]},
              {"nick": "b", "badges": [{"code": 9, "rank": 1}]}]  # (no badge 9: no link)
    assert len(_run(pg, plans["merge_scouts"], scouts=json.dumps(scouts))) == 2
    assert _scouts(pg, plans) == [("a", [(1, 10), (2, 20)]), ("b", [])]
    # a's links replaced: 1 dropped, 2 kept with its new rank, 3 added; c new
    scouts = [{"nick": "a", "badges": [{"code": 2, "rank": 21}, {"code": 3, "rank": 30}]},
              {"nick": "c", "badges": [{"code": 4, "rank": 40}]}]
    _run(pg, plans["merge_scouts"], scouts=json.dumps(scouts))
    assert _scouts(pg, plans) == [("a", [(2, 21), (3, 30)]), ("b", []), ("c", [(4, 40)])]


def test_one_upsert_adds_looped_links(pg):
    _, plans = _setup(pg)
    _run(pg, plans["award"], nick="a", badges=json.dumps([{"code": 1, "rank": 1}]))
    _run(pg, plans["award"], nick="a", badges=json.dumps([{"code": 1, "rank": 5}, {"code": 5, "rank": 50}]))
    assert _scouts(pg, plans) == [("a", [(1, 5), (5, 50)])]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as e from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = e.createRunner(pool).query;
  await q.mergeScouts({ scouts: [{ nick: "a", badges: [{ code: 1, rank: 1 }, { code: 2, rank: 2 }] }] });
  await q.mergeScouts({ scouts: [{ nick: "a", badges: [{ code: 2, rank: 3 }] }] });
  const scouts = await q.scouts();
  assert.deepEqual(scouts.map((s) => [s.nick, s.badges.map((b) => [b.code, b["@rank"]])]), [["a", [[2, 3]]]]);
  console.log(JSON.stringify({ loopLinks: true }));
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
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"loopLinks": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	lr "schemactest/lr"
)

func TestLoopLinks(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := lr.New(db).Query
	for _, s := range []string{
		`[{"nick": "a", "badges": [{"code": 1, "rank": 1}, {"code": 2, "rank": 2}]}]`,
		`[{"nick": "a", "badges": [{"code": 2, "rank": 3}]}]`,
	} {
		if _, err := q.MergeScouts(ctx, lr.MergeScoutsParams{Scouts: []byte(s)}); err != nil {
			t.Fatal(err)
		}
	}
	scouts, err := q.Scouts(ctx)
	if err != nil || len(scouts) != 1 || len(scouts[0].Badges) != 1 || scouts[0].Badges[0].Code != 2 {
		t.Fatalf("scouts: %#v %v", scouts, err)
	}
}
"""


@pytest.mark.slow
def test_through_the_go_runner(pg, go_run, tmp_path):
    out, _ = _setup(pg)
    mod = tmp_path / "mod"
    for rel, text in out.items():
        if rel.startswith("go/"):
            p = mod / "lr" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (mod / "e2e").mkdir()
    (mod / "e2e" / "lr_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestLoopLinks" in result.test.stdout
