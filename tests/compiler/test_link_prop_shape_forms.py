"""Link properties read in shapes (https://docs.geldata.com/reference/datamodel/linkprops#querying-link-properties):

* ``songs: { title, pos := @pos }``: a multi link's property under a name of its own, as
  ``@pos`` is under ``@pos``;
* ``fans: { name } order by @since desc`` (also ``filter``) of a computed backlink through a
  multi link (``fans := .<follows[is Member]``): each fan's link to the object carries the
  property, read from its one join row.

Both were E0206 ("link property references ('@name') are not supported in a query yet"). On
PostgreSQL 15 with data and through the TypeScript and Go runners."""

from __future__ import annotations

import json
import re

import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  type Song { required title: str; }
  type Member {
    required name: str;
    multi songs: Song { pos: int64; };
    multi follows: Member { since: int64; };
    multi fans := .<follows[is Member];
  }
}
"""
SOURCES = {
    "s.gel": SCHEMA,
    "q/playlist.edgeql": "select Member { songs: { title, pos := @pos } order by @pos } filter .name = <str>$name;",
    "q/fans.edgeql": "select Member { name, fans: { name } filter @since > 0 order by @since desc "
                     "offset <int64>$skip limit 10 } order by .name;",
}


def _setup(pg):
    out = compile_library(SOURCES, Options(library="lp"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute("""
        INSERT INTO song (id, title) VALUES ('00000000-0000-0000-0000-0000000000b1', 'one'),
                                            ('00000000-0000-0000-0000-0000000000b2', 'two');
        INSERT INTO member (id, name) VALUES ('00000000-0000-0000-0000-0000000000a1', 'ann'),
                                             ('00000000-0000-0000-0000-0000000000a2', 'bob'),
                                             ('00000000-0000-0000-0000-0000000000a3', 'cy');
        INSERT INTO member_songs (source_id, target_id, pos) VALUES
            ('00000000-0000-0000-0000-0000000000a1', '00000000-0000-0000-0000-0000000000b1', 2),
            ('00000000-0000-0000-0000-0000000000a1', '00000000-0000-0000-0000-0000000000b2', 1);
        INSERT INTO member_follows (source_id, target_id, since) VALUES
            ('00000000-0000-0000-0000-0000000000a2', '00000000-0000-0000-0000-0000000000a1', 5),
            ('00000000-0000-0000-0000-0000000000a3', '00000000-0000-0000-0000-0000000000a1', 9),
            ('00000000-0000-0000-0000-0000000000a1', '00000000-0000-0000-0000-0000000000a3', 0);
    """)
    return out, {q.name: q for q in check_library(SOURCES, Options(library="lp")).queries}


def _run(pg, plan, *args):
    return pg.execute(re.sub(r"\$(\d+)", "%s", plan.sql), args or None)


def test_link_properties_in_shapes_on_postgres(pg):
    _, plans = _setup(pg)
    assert _run(pg, plans["playlist"], "ann") == [([{"title": "two", "pos": "1"}, {"title": "one", "pos": "2"}],)]
    # ann's fans, most recent first; cy's fan ann follows since 0, which the filter leaves out
    assert _run(pg, plans["fans"], 0) == [("ann", [{"name": "cy"}, {"name": "bob"}]), ("bob", []), ("cy", [])]
    assert _run(pg, plans["fans"], 1) == [("ann", [{"name": "bob"}]), ("bob", []), ("cy", [])]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as e from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = e.createRunner(pool).query;
  const ann = (await q.playlist({ name: "ann" }))[0];
  assert.deepEqual(ann?.songs.map((s) => [s.title, s.pos]), [["two", "1"], ["one", "2"]]);
  const fans = await q.fans({ skip: "0" });
  assert.deepEqual(fans.map((m) => [m.name, m.fans.map((f) => f.name)]), [["ann", ["cy", "bob"]], ["bob", []], ["cy", []]]);
  console.log(JSON.stringify({ linkProps: true }));
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
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"linkProps": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	lp "schemactest/lp"
)

func TestLinkProps(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := lp.New(db).Query
	rows, err := q.Playlist(ctx, lp.PlaylistParams{Name: "ann"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("playlist: %#v %v", rows, err)
	}
	ann := rows[0]
	if len(ann.Songs) != 2 || ann.Songs[0].Title != "two" || ann.Songs[0].Pos == nil || *ann.Songs[0].Pos != 1 {
		t.Fatalf("playlist: %#v", ann)
	}
	fans, err := q.Fans(ctx, lp.FansParams{Skip: 0})
	if err != nil || len(fans) != 3 || len(fans[0].Fans) != 2 || fans[0].Fans[0].Name != "cy" {
		t.Fatalf("fans: %#v %v", fans, err)
	}
}
"""


@pytest.mark.slow
def test_through_the_go_runner(pg, go_run, tmp_path):
    out, _ = _setup(pg)
    mod = tmp_path / "mod"
    for rel, text in out.items():
        if rel.startswith("go/"):
            p = mod / "lp" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (mod / "e2e").mkdir()
    (mod / "e2e" / "lp_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestLinkProps" in result.test.stdout
