"""A multi link assigned a ``for`` loop of selects setting link properties in an insert
(https://docs.geldata.com/reference/edgeql/for, https://docs.geldata.com/reference/datamodel/linkprops):
``artists := (for p in enumerate(array_unpack(<array<uuid>>$ids)) union (select Artist {
@position := p.0 } filter .id = p.1))`` links the objects each element selects, each with the
link properties its element gives (an object selected twice is linked once). Was E0206 ("a multi
link's value that is a 'for' loop"). On PostgreSQL 15 with data and through the TypeScript and
Go runners."""

from __future__ import annotations

import json
import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  abstract link ranked { position: int64 { default := 0; }; note: str; }
  type Artist { required name: str; }
  type Track { required name: str; multi artists extending ranked: Artist; }
}
"""
SOURCES = {
    "s.gel": SCHEMA,
    "q/add_track.edgeql": """insert Track {
  name := <str>$name,
  artists := (for p in enumerate(array_unpack(<array<uuid>>$artist_ids)) union (
    select Artist { @position := p.0, @note := <str>$note } filter .id = p.1
  )),
};""",
    "q/add_by_names.edgeql": "insert Track { name := <str>$name, artists := (for n in array_unpack(<array<str>>$names) "
                             "union (select Artist { @position := 7 } filter .name = n)) };",
    "q/tracks.edgeql": "select Track { name, artists: { name, @position, @note } order by @position } order by .name;",
}
A1, A2, A3 = ("00000000-0000-0000-0000-0000000000a%d" % i for i in (1, 2, 3))


def _setup(pg):
    out = compile_library(SOURCES, Options(library="fl"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute(f"INSERT INTO artist (id, name) VALUES ('{A1}', 'a1'), ('{A2}', 'a2'), ('{A3}', 'a3')")
    return out, {q.name: q for q in check_library(SOURCES, Options(library="fl")).queries}


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql)
    return pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})


def test_links_of_a_for_loop_with_link_properties_on_postgres(pg):
    _, plans = _setup(pg)
    # a3 first, then a1; an unknown id selects nothing
    _run(pg, plans["add_track"], name="t", artist_ids=[A3, "00000000-0000-0000-0000-0000000000ff", A1], note="n")
    _run(pg, plans["add_by_names"], name="u", names=["a2", "a2", "zz"])
    assert _run(pg, plans["tracks"]) == [
        ("t", [{"name": "a3", "@position": "0", "@note": "n"}, {"name": "a1", "@position": "2", "@note": "n"}]),
        ("u", [{"name": "a2", "@position": "7", "@note": None}]),
    ]


def test_a_distinct_loop_without_link_properties_links_each_object_once(pg):
    sources = {"s.gel": SCHEMA, "q/add.edgeql": "insert Track { name := 'v', artists := distinct (for n in "
                                                "array_unpack(<array<str>>$names) union (select Artist filter .name = n)) };"}
    pg.execute(compile_library(sources, Options(library="fl"))["sql/000001_init.up.sql"])
    pg.execute(f"INSERT INTO artist (id, name) VALUES ('{A1}', 'a1'), ('{A2}', 'a2')")
    plan = check_library(sources, Options(library="fl")).queries[0]
    _run(pg, plan, names=["a2", "a1", "a2"])
    assert pg.execute("SELECT a.name, l.position FROM track_artists l JOIN artist a ON a.id = l.target_id "
                      "ORDER BY a.name") == [("a1", 0), ("a2", 0)]  # (the link property's default)


def test_an_update_of_such_a_link_is_still_refused():
    query = ("update Track filter .name = 'x' set { artists += (for p in enumerate(array_unpack(<array<uuid>>$ids)) "
             "union (select Artist { @position := p.0 } filter .id = p.1)) };")
    with pytest.raises(CompileError) as e:
        check_library({"s.gel": SCHEMA, "q/q.edgeql": query}, Options(library="fl"))
    assert [(d.code, d.message) for d in e.value.diagnostics] == [
        ("E0206", "a multi link's value that is a 'for' loop is not supported yet")]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as e from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = e.createRunner(pool).query;
  await q.addTrack({ name: "t", artist_ids: ["A2", "A1"], note: "x" });
  const tracks = await q.tracks();
  assert.deepEqual(tracks.map((t) => t.artists.map((a) => [a.name, a["@position"]])), [[["a2", "0"], ["a1", "1"]]]);
  console.log(JSON.stringify({ forLinks: true }));
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
    (src / "main.ts").write_text(TS_MAIN.replace("A1", A1).replace("A2", A2))
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"forLinks": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	fl "schemactest/fl"
)

func TestForLinks(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := fl.New(db).Query
	if _, err := q.AddTrack(ctx, fl.AddTrackParams{Name: "t", ArtistIDs: []string{"A2", "A1"}, Note: "x"}); err != nil {
		t.Fatal(err)
	}
	tracks, err := q.Tracks(ctx)
	if err != nil || len(tracks) != 1 || len(tracks[0].Artists) != 2 || tracks[0].Artists[0].Name != "a2" {
		t.Fatalf("tracks: %#v %v", tracks, err)
	}
}
"""


@pytest.mark.slow
def test_through_the_go_runner(pg, go_run, tmp_path):
    out, _ = _setup(pg)
    mod = tmp_path / "mod"
    for rel, text in out.items():
        if rel.startswith("go/"):
            p = mod / "fl" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (mod / "e2e").mkdir()
    (mod / "e2e" / "fl_test.go").write_text(GO_TEST.replace("A1", A1).replace("A2", A2))
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestForLinks" in result.test.stdout
