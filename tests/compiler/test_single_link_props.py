"""Link properties on a single link (https://docs.geldata.com/reference/datamodel/linkprops;
geldata/gel tests/schemas/issues.esdl ``required owner: User { note: str; }``, overloaded in
``Issue`` with ``property since: datetime``, and issues_setup.edgeql ``owner := (SELECT User {
@note := 'reassigned' } FILTER User.name = 'Elvis')``; cards.esdl ``avatar: Card { text: str;
}``). A single link is at most one object: its properties are columns ``<link>@<prop>`` of the
source row, next to its FK column.

* written by ``link := (select T { @p := v } filter ...)`` in insert and update; a link to
  another object in an update without ``@p`` gives ``p`` its default (empty without one), the
  link to the same object keeps it; ``link := {}`` empties them, and so does an optional link
  left empty (a sub-select finding nothing, ``on target delete allow``), whoever writes the row
  (a trigger);
* read as ``link: { @p }`` in shapes, ``.link@p`` in shapes, filters and ``order by``.

Was E0206 ("link properties on single links are not supported yet"). On PostgreSQL 15 with
data and through the TypeScript and Go runners."""

from __future__ import annotations

import json
import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  type User { required name: str { constraint exclusive; } }
  abstract type Owned { required owner: User { note: str; } }
  type Issue extending Owned {
    required title: str;
    overloaded required link owner { property since: datetime; property rank: int64 { default := 42; } }
  }
  type Log extending Owned { required body: str; }
  type Card { required name: str { constraint exclusive; } }
  type Player {
    required name: str;
    avatar: Card { text: str; on target delete allow; }
  }
}
"""
SOURCES = {
    "s.gel": SCHEMA,
    "q/addIssue.edgeql": "insert Issue { title := <str>$t, owner := (select User { @note := <str>$note, "
                         "@since := <datetime>'2018-01-01T00:00+00' } filter .name = <str>$u) };",
    "q/addLog.edgeql": "insert Log { body := <str>$b, owner := (select User { @note := 'log' } "
                       "filter .name = <str>$u) };",
    "q/reown.edgeql": "update Issue filter .title = <str>$t set { owner := (select User filter .name = <str>$u) };",
    "q/renote.edgeql": "update Issue filter .title = <str>$t set { owner := (select User { @note := <str>$note, "
                       "@rank := <int64>$rank } filter .name = <str>$u) };",
    "q/issues.edgeql": "select Issue { title, owner: { name, @note, @since, @rank }, n := .owner@note } "
                       "filter exists .owner@note order by .owner@rank desc then .title;",
    "q/setAvatar.edgeql": "update Player filter .name = <str>$p set { avatar := (select Card { @text := <str>$t } "
                          "filter .name = <str>$c) };",
    "q/clearAvatar.edgeql": "update Player filter .name = <str>$p set { avatar := {} };",
    "q/addPlayer.edgeql": "insert Player { name := <str>$p, avatar := (select Card { @text := 'new' } "
                          "filter .name = <str>$c) };",
    "q/players.edgeql": "select Player { name, avatar: { name, @text }, t := .avatar@text } order by .name;",
}


def _setup(pg):
    out = compile_library(SOURCES, Options(library="slp"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute("""
        INSERT INTO "user" (name) VALUES ('Elvis'), ('Yury');
        INSERT INTO card (name) VALUES ('Imp'), ('Dragon');
        INSERT INTO player (name) VALUES ('Alice'), ('Bob');
    """)
    return out, {q.name: q for q in check_library(SOURCES, Options(library="slp")).queries}


def _run(pg, plan, *args):
    """The plan's statement with its parameters ``$1``... given in that order."""
    return pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql), {f"p{i + 1}": a for i, a in enumerate(args)} or None)


def test_single_link_properties_on_postgres(pg):
    _, plans = _setup(pg)
    _run(pg, plans["add_issue"], "one", "auto", "Elvis")
    _run(pg, plans["add_issue"], "two", "hand", "Yury")
    _run(pg, plans["add_log"], "work", "Elvis")
    assert pg.execute('SELECT "owner@note" FROM log') == [("log",)]
    rows = _run(pg, plans["issues"])
    assert [(r[0], r[1]["name"], r[1]["@note"], r[1]["@since"][:4], r[1]["@rank"], r[2]) for r in rows] == [
        ("one", "Elvis", "auto", "2018", "42", "auto"), ("two", "Yury", "hand", "2018", "42", "hand")]
    # a new link with properties; the one it leaves out gets its default
    _run(pg, plans["renote"], "one", "again", 7, "Yury")
    _run(pg, plans["reown"], "two", "Elvis")  # a new link without properties: empty, rank's default
    rows = _run(pg, plans["issues"])
    assert [(r[0], r[1]["name"], r[1]["@note"], r[1]["@since"], r[1]["@rank"]) for r in rows] == [
        ("one", "Yury", "again", None, "7")]  # (`filter exists .owner@note` leaves 'two' out)
    assert pg.execute('SELECT title, "owner@note", "owner@rank" FROM issue ORDER BY title') == [
        ("one", "again", 7), ("two", None, 42)]
    # the link to the object it already links keeps its properties (a multi link's := does too)
    _run(pg, plans["reown"], "one", "Yury")
    assert pg.execute('SELECT "owner@note", "owner@rank" FROM issue WHERE title = %s', ("one",)) == [("again", 7)]
    # an optional link: its properties are empty with it
    _run(pg, plans["set_avatar"], "Alice", "best", "Dragon")
    _run(pg, plans["set_avatar"], "Bob", "worst", "Nobody")  # no such card: no link, no property
    _run(pg, plans["add_player"], "Cy", "Imp")
    assert _run(pg, plans["players"]) == [("Alice", {"name": "Dragon", "@text": "best"}, "best"),
                                          ("Bob", None, None), ("Cy", {"name": "Imp", "@text": "new"}, "new")]
    assert pg.execute('SELECT "avatar@text" FROM player WHERE name = %s', ("Bob",)) == [(None,)]
    pg.execute("DELETE FROM card WHERE name = 'Imp'")  # on target delete allow: the link goes, with its property
    _run(pg, plans["clear_avatar"], "Alice")
    assert pg.execute('SELECT name, "avatar@text" FROM player ORDER BY name') == [
        ("Alice", None), ("Bob", None), ("Cy", None)]


def test_refused_forms_are_located():
    bad = {"s.gel": """module default {
  type User { required name: str; }
  type Issue { owner: User { required note: str; } }
  type Post { owner: User { tag: str { constraint exclusive; } } }
}
"""}
    with pytest.raises(CompileError) as exc:
        check_library(bad, Options(library="bad"))
    msgs = [(d.code, d.message) for d in exc.value.diagnostics]
    assert ("E0206", "a required link property ('note') on the single link 'owner' is not supported yet") in msgs
    assert ("E0206", "constraint exclusive on a link property of the single link 'owner' is not supported yet") \
        in msgs
    unknown = dict(SOURCES, **{"q/bad.edgeql": "select Issue { n := .owner@nope };"})
    with pytest.raises(CompileError) as exc:
        check_library(unknown, Options(library="slp"))
    assert [(d.code, d.message) for d in exc.value.diagnostics] == [
        ("E0302", "link 'owner' has no link property 'nope'")]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as e from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = e.createRunner(pool).query;
  await q.addIssue({ t: "one", note: "auto", u: "Elvis" });
  await q.renote({ t: "one", note: "again", rank: "7", u: "Yury" });
  const rows = await q.issues();
  assert.equal(rows.length, 1);
  assert.equal(rows[0]?.owner.name, "Yury");
  assert.equal(rows[0]?.owner["@note"], "again");
  assert.equal(rows[0]?.owner["@rank"], "7");
  assert.equal(rows[0]?.owner["@since"], null);
  assert.equal(rows[0]?.n, "again");
  await q.setAvatar({ p: "Alice", t: "best", c: "Dragon" });
  const players = await q.players();
  assert.deepEqual(players.map((p) => [p.name, p.avatar?.["@text"] ?? null, p.t]),
                   [["Alice", "best", "best"], ["Bob", null, null]]);
  console.log(JSON.stringify({ singleLinkProps: true }));
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
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"singleLinkProps": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	slp "schemactest/slp"
)

func TestSingleLinkProps(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := slp.New(db).Query
	if _, err := q.AddIssue(ctx, slp.AddIssueParams{T: "one", Note: "auto", U: "Elvis"}); err != nil {
		t.Fatal(err)
	}
	rows, err := q.Issues(ctx)
	if err != nil || len(rows) != 1 {
		t.Fatalf("issues: %#v %v", rows, err)
	}
	o := rows[0].Owner
	want := time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC)
	if o.Name != "Elvis" || o.Note == nil || *o.Note != "auto" || o.Rank == nil || *o.Rank != 42 ||
		o.Since == nil || !o.Since.Equal(want) || rows[0].N == nil || *rows[0].N != "auto" {
		t.Fatalf("issues: %#v", rows[0])
	}
	if _, err := q.SetAvatar(ctx, slp.SetAvatarParams{P: "Alice", T: "best", C: "Dragon"}); err != nil {
		t.Fatal(err)
	}
	players, err := q.Players(ctx)
	if err != nil || len(players) != 2 || players[0].Avatar == nil || players[0].Avatar.Text == nil ||
		*players[0].Avatar.Text != "best" || players[1].Avatar != nil || players[1].T != nil {
		t.Fatalf("players: %#v %v", players, err)
	}
}
"""


@pytest.mark.slow
def test_through_the_go_runner(pg, go_run, tmp_path):
    out, _ = _setup(pg)
    mod = tmp_path / "mod"
    for rel, text in out.items():
        if rel.startswith("go/"):
            p = mod / "slp" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (mod / "e2e").mkdir()
    (mod / "e2e" / "slp_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestSingleLinkProps" in result.test.stdout


def test_splat_strategy():
    """``splat_strategy := 'Explicit'`` / ``'Implicit'`` in a pointer's body (Gel 7, geldata/gel
    tests/schemas/issues.esdl; edb/edgeql/compiler/viewgen.py ``_expand_splat``): a qualifier,
    not a computed link property (which it was read as: E0206). Explicit: no splat selects the
    pointer; Implicit on a link: ``*`` selects it, as its id."""
    sources = {
        "s.gel": """module default {
  type Tag { required name: str; }
  type Post {
    required title: str;
    body: str { splat_strategy := 'Explicit'; };
    main: Tag { splat_strategy := 'Implicit'; };
    multi tags: Tag { splat_strategy := 'Explicit'; };
    other: Tag;
  }
}
""",
        "q/one.edgeql": "select Post { * };",
        "q/two.edgeql": "select Post { ** };",
    }
    plans = {q.name: q for q in check_library(sources, Options(library="sp")).queries}
    assert [f.name for f in plans["one"].result] == ["id", "title", "main_id"]
    assert [f.name for f in plans["two"].result] == ["id", "title", "main", "other"]
    bad = dict(sources, **{"s.gel": sources["s.gel"].replace("'Implicit'", "'Sometimes'")})
    with pytest.raises(CompileError) as exc:
        check_library(bad, Options(library="sp"))
    assert [(d.code, d.message) for d in exc.value.diagnostics] == [("E0205", "unknown splat_strategy 'Sometimes'")]
