"""A computed link that is a path through single links holds at most one object, as Gel infers
a path's cardinality (https://docs.geldata.com/reference/edgeql/cardinality,
https://docs.geldata.com/reference/datamodel/computeds): with ``album: Album`` and ``Album.artist``
single, ``link artist := .album.artist`` (also ``(select .album.artist)``, filtered, or through
another such computed) is single, so a shape gets one object or null and ``.artist.name`` one
optional value (it was a list). A multi link or a backlink in the path, or a declared ``multi``,
keeps it multi. Tested on PostgreSQL 15 through node-postgres and pgx."""

from __future__ import annotations

import json
import re

import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Singer {
  required name: str;
}
type Disc {
  required title: str;
  singer: Singer;
  multi songs: Song;
}
type Song {
  required name: str;
  disc: Disc;
  link singer := (select .disc.singer);
  link singer2 := .disc.singer;
  link named := (select .disc.singer filter .name != 'nobody');
  link checked := assert_single(.disc.singer);
  link again := .singer2;
  link siblings := .disc.songs;
  link discs := .<songs[is Disc];
  multi link declared := .disc.singer;
}
"""

SOURCES = {
    "sp/s.esdl": SCHEMA,
    "sp/q/songs.edgeql": "select Song { name, who := .singer.name, singer: { name }, singer2: { name }, "
                         "named: { name }, checked: { name }, again: { name }, siblings: { name } "
                         "order by .name, discs: { title }, declared: { name } } order by .name;",
    "sp/q/by_singer.edgeql": "select Song { name } filter .singer2.name = <str>$name order by .name;",
}

SETUP = """
INSERT INTO singer (name) VALUES ('Ann');
INSERT INTO disc (title, singer_id) VALUES ('One', (SELECT id FROM singer WHERE name = 'Ann')), ('Two', NULL);
INSERT INTO song (name, disc_id) VALUES ('s1', (SELECT id FROM disc WHERE title = 'One')),
  ('s2', (SELECT id FROM disc WHERE title = 'One')), ('s3', (SELECT id FROM disc WHERE title = 'Two')), ('s4', NULL);
INSERT INTO disc_songs (source_id, target_id) SELECT d.id, s.id FROM disc d, song s
  WHERE d.title = 'One' AND s.name IN ('s1', 's2');
"""


def _plans():
    return {q.name: q for q in check_library(SOURCES, Options(library="sp")).queries}


def _schema():
    return check_library(SOURCES, Options(library="sp")).schema


def test_cardinality():
    song = next(t for t in _schema().types.values() if t.name == "Song")
    single = {n for n, c in song.computeds.items() if c.is_link and not c.multi}
    assert single == {"singer", "singer2", "named", "checked", "again"}
    assert all(song.computeds[n].at_most_one for n in single)


def test_generated_types():
    out = compile_library(SOURCES, Options(library="sp"))
    ts = out["ts/queries.ts"]
    for line in ("who: string | null;", "singer: { name: string } | null;", "again: { name: string } | null;",
                 "siblings: Array<{ name: string }>;", "discs: Array<{ title: string }>;",
                 "declared: Array<{ name: string }>;"):
        assert line in ts, line
    go = out["go/queries.go"]
    assert re.search(r"Singer\s+\*SongsSinger\s", go) and re.search(r"Who\s+\*string\s", go)
    assert re.search(r"Siblings\s+\[\]SongsSiblings\s", go) and re.search(r"Declared\s+\[\]SongsDeclared\s", go)


ANN = {"name": "Ann"}
EXPECTED = [
    {"name": "s1", "who": "Ann", "singer": ANN, "singer2": ANN, "named": ANN, "checked": ANN, "again": ANN,
     "siblings": [{"name": "s1"}, {"name": "s2"}], "discs": [{"title": "One"}], "declared": [ANN]},
    {"name": "s2", "who": "Ann", "singer": ANN, "singer2": ANN, "named": ANN, "checked": ANN, "again": ANN,
     "siblings": [{"name": "s1"}, {"name": "s2"}], "discs": [{"title": "One"}], "declared": [ANN]},
    {"name": "s3", "who": None, "singer": None, "singer2": None, "named": None, "checked": None, "again": None,
     "siblings": [], "discs": [], "declared": []},
    {"name": "s4", "who": None, "singer": None, "singer2": None, "named": None, "checked": None, "again": None,
     "siblings": [], "discs": [], "declared": []},
]


def test_on_postgres(pg):
    plans = _plans()
    pg.execute(compile_library(SOURCES, Options(library="sp"))["sql/000001_init.up.sql"])
    pg.execute(SETUP)
    rows = pg.execute(plans["songs"].sql)
    assert [r[0] for r in rows] == ["s1", "s2", "s3", "s4"]
    assert [r[1] for r in rows] == ["Ann", "Ann", None, None]
    assert pg.execute(re.sub(r"\$1", "%(p1)s", plans["by_singer"].sql), {"p1": "Ann"}) == [("s1",), ("s2",)]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as sp from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query(process.env["SETUP"]!);
  const q = sp.createRunner(pool).query;
  assert.deepEqual(await q.songs(), JSON.parse(process.env["EXPECTED"]!));
  const first = (await q.songs())[0]!;
  const name: string = first.singer!.name;  // an object, not a list
  assert.equal(name, "Ann");
  assert.deepEqual(await q.bySinger({ name: "Ann" }), [{ name: "s1" }, { name: "s2" }]);
  console.log(JSON.stringify({ computedSinglePaths: true }));
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
    out = compile_library(SOURCES, Options(library="sp"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    (src / "main.ts").write_text(TS_MAIN)
    monkeypatch.setenv("SETUP", SETUP)
    monkeypatch.setenv("EXPECTED", json.dumps(EXPECTED))
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"computedSinglePaths": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	sp "schemactest/sp"
)

func TestComputedSinglePaths(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, os.Getenv("SETUP")); err != nil {
		t.Fatal(err)
	}
	q := sp.New(db).Query
	rows, err := q.Songs(ctx)
	if err != nil || len(rows) != 4 {
		t.Fatalf("songs: %#v (%v)", rows, err)
	}
	s1, s3 := rows[0], rows[2]
	if s1.Singer == nil || s1.Singer.Name != "Ann" || s1.Who == nil || *s1.Who != "Ann" || s1.Again == nil ||
		s1.Named == nil || s1.Checked == nil || s1.Singer2 == nil || len(s1.Siblings) != 2 || len(s1.Declared) != 1 {
		t.Fatalf("s1: %#v", s1)
	}
	if s3.Singer != nil || s3.Who != nil || s3.Again != nil || len(s3.Siblings) != 0 || len(s3.Discs) != 0 {
		t.Fatalf("s3: %#v", s3)
	}
	by, err := q.BySinger(ctx, sp.BySingerParams{Name: "Ann"})
	if err != nil || len(by) != 2 || by[0].Name != "s1" || by[1].Name != "s2" {
		t.Fatalf("by singer: %#v (%v)", by, err)
	}
}
"""


@pytest.mark.slow
def test_go_runner(pg, go_run, tmp_path, monkeypatch):
    out = compile_library(SOURCES, Options(library="sp"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "sp")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "computed_single_paths_test.go").write_text(GO_TEST)
    monkeypatch.setenv("SETUP", SETUP)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestComputedSinglePaths" in result.test.stdout, result.test.stdout
