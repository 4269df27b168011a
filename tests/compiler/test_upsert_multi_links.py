"""Multi links written by an upsert and by a ``for`` loop's insert
(https://docs.geldata.com/reference/edgeql/insert#upserts, https://docs.geldata.com/reference/edgeql/for):
``insert Crew { ..., members := M } unless conflict on (.ship, .captain) else (update Crew set {
members += M })`` links the new object to M, or adds M to the existing object's links (``:=``
replaces them, ``-=`` removes them); in a ``for`` loop each element's object gets the links its
element gives. Was E0206 ("setting a multi link in an upsert", "changing the multi link ... in
an upsert", "multi links in a bulk insert"). On PostgreSQL 15 with data and through the
TypeScript and Go runners."""

from __future__ import annotations

import json
import re

import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  type Sailor { required tag: int32 { constraint exclusive; }; }
  type Ship { required hull: int32 { constraint exclusive; }; }
  type Crew {
    required motto: str;
    required ship: Ship;
    required captain: Sailor;
    multi members: Sailor;
    constraint exclusive on ((.ship, .captain));
  }
}
"""
SOURCES = {
    "s.gel": SCHEMA,
    # one upsert: the insert sets the links, the else update adds to them
    "q/sign_crew.edgeql": """with
  members := (select Sailor filter .tag in array_unpack(<array<int32>>$tags)),
insert Crew {
  motto := <str>$motto,
  ship := (select Ship filter .hull = <int32>$hull),
  captain := (select Sailor filter .tag = <int32>$captain),
  members := members,
}
unless conflict on ((.ship, .captain)) else (
  update Crew set { motto := <str>$motto, members += members }
);""",
    # a loop of upserts, each element's values read from json
    "q/sign_crews.edgeql": """with crews := <json>$crews,
for c in json_array_unpack(crews) union (
  with
    tags := <array<int32>>json_get(c, 'tags'),
    motto := <str>json_get(c, 'motto'),
    members := (select Sailor filter .tag in array_unpack(tags)),
  insert Crew {
    motto := motto,
    ship := (select Ship filter .hull = <int32>json_get(c, 'hull')),
    captain := (select Sailor filter .tag = <int32>json_get(c, 'captain')),
    members := members,
  }
  unless conflict on ((.ship, .captain)) else (
    update Crew set { motto := motto, members += members }
  )
);""",
    # the else update replaces the links, or only changes them
    "q/reset_crews.edgeql": """for c in json_array_unpack(<json>$crews) union (
  insert Crew {
    motto := 'new',
    ship := (select Ship filter .hull = <int32>json_get(c, 'hull')),
    captain := (select Sailor filter .tag = <int32>json_get(c, 'captain')),
    members := (select Sailor filter .tag in array_unpack(<array<int32>>json_get(c, 'tags'))),
  }
  unless conflict on ((.ship, .captain)) else (
    update Crew set { members := (select Sailor filter .tag in array_unpack(<array<int32>>json_get(c, 'tags'))) }
  )
);""",
    "q/drop_members.edgeql": """insert Crew {
  motto := 'x', ship := (select Ship filter .hull = <int32>$hull), captain := (select Sailor filter .tag = <int32>$captain),
} unless conflict on ((.ship, .captain)) else (
  update Crew set { members -= (select Sailor filter .tag in array_unpack(<array<int32>>$tags)) }
);""",
    # a loop of plain inserts with a multi link
    "q/add_crews.edgeql": """for c in array_unpack(<array<json>>$crews) union (
  insert Crew {
    motto := <str>c['motto'],
    ship := (select Ship filter .hull = <int32>c['hull']),
    captain := (select Sailor filter .tag = <int32>c['captain']),
    members := (select Sailor filter .tag in array_unpack(<array<int32>>c['tags'])),
  }
);""",
    "q/crews.edgeql": "select Crew { motto, ship: { hull }, captain: { tag }, members: { tag } order by .tag } "
                      "order by .ship.hull then .captain.tag;",
}


def _setup(pg, sources=SOURCES):
    out = compile_library(sources, Options(library="um"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO sailor (tag) SELECT generate_series(1, 9)")
    pg.execute("INSERT INTO ship (hull) VALUES (100), (200), (300)")
    return out, {q.name: q for q in check_library(sources, Options(library="um")).queries}


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql)
    return pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})


def _crews(pg, plans):
    return [(r[0], r[1]["hull"], r[2]["tag"], [m["tag"] for m in r[3]]) for r in _run(pg, plans["crews"])]


def test_one_upsert_links_the_new_object_or_adds_to_the_existing_ones(pg):
    _, plans = _setup(pg)
    first = _run(pg, plans["sign_crew"], tags=[2, 3], motto="a", hull=100, captain=1)
    assert _crews(pg, plans) == [("a", 100, 1, [2, 3])]
    # the same crew again: the links are added (3 is linked once: a link is a set), the motto set
    again = _run(pg, plans["sign_crew"], tags=[3, 4], motto="b", hull=100, captain=1)
    assert again == first
    _run(pg, plans["sign_crew"], tags=[], motto="c", hull=200, captain=1)
    assert _crews(pg, plans) == [("b", 100, 1, [2, 3, 4]), ("c", 200, 1, [])]
    _run(pg, plans["drop_members"], hull=100, captain=1, tags=[2, 4])
    assert _crews(pg, plans) == [("b", 100, 1, [3]), ("c", 200, 1, [])]


def test_a_loop_of_upserts_links_each_element_s_object(pg):
    _, plans = _setup(pg)
    _run(pg, plans["sign_crew"], tags=[5], motto="old", hull=100, captain=1)
    crews = [{"hull": 100, "captain": 1, "motto": "a", "tags": [6, 7]},  # exists: links added
             {"hull": 100, "captain": 2, "motto": "b", "tags": [7]},     # new
             {"hull": 200, "captain": 1, "motto": "c", "tags": []}]      # new, no links
    rows = _run(pg, plans["sign_crews"], crews=json.dumps(crews))
    assert len(rows) == 3
    assert _crews(pg, plans) == [("a", 100, 1, [5, 6, 7]), ("b", 100, 2, [7]), ("c", 200, 1, [])]
    # `:=` in the else update replaces the existing object's links; a new one gets its own
    _run(pg, plans["reset_crews"], crews=json.dumps([{"hull": 100, "captain": 1, "tags": [8]},
                                                     {"hull": 300, "captain": 3, "tags": [8, 9]}]))
    assert _crews(pg, plans) == [("a", 100, 1, [8]), ("b", 100, 2, [7]), ("c", 200, 1, []), ("new", 300, 3, [8, 9])]


def test_a_loop_of_inserts_links_each_new_object(pg):
    _, plans = _setup(pg)
    _run(pg, plans["add_crews"], crews=[json.dumps({"motto": "p", "hull": 100, "captain": 4, "tags": [1, 2]}),
                                        json.dumps({"motto": "q", "hull": 200, "captain": 4, "tags": [2, 3]})])
    assert _crews(pg, plans) == [("p", 100, 4, [1, 2]), ("q", 200, 4, [2, 3])]


def test_an_element_meeting_an_existing_object_twice_fails_as_in_gel(pg):
    # (two elements upserting the same object: Postgres refuses it, as Gel refuses the
    # conflicting writes of one statement)
    import psycopg

    _, plans = _setup(pg)
    crews = [{"hull": 100, "captain": 1, "motto": "a", "tags": [1]}, {"hull": 100, "captain": 1, "motto": "b", "tags": [2]}]
    with pytest.raises(psycopg.errors.CardinalityViolation):
        _run(pg, plans["sign_crews"], crews=json.dumps(crews))


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as e from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = e.createRunner(pool).query;
  await q.signCrew({ tags: [1], motto: "a", hull: 100, captain: 1 });
  const rows = await q.signCrews({ crews: [{ hull: 100, captain: 1, motto: "b", tags: [2] }, { hull: 200, captain: 1, motto: "c", tags: [3] }] });
  assert.equal(rows.length, 2);
  const crews = await q.crews();
  assert.deepEqual(crews.map((c) => [c.motto, c.members.map((m) => m.tag)]), [["b", [1, 2]], ["c", [3]]]);
  console.log(JSON.stringify({ upsertLinks: true }));
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
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"upsertLinks": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	um "schemactest/um"
)

func TestUpsertLinks(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := um.New(db).Query
	if _, err := q.SignCrew(ctx, um.SignCrewParams{Tags: []int32{1}, Motto: "a", Hull: 100, Captain: 1}); err != nil {
		t.Fatal(err)
	}
	rows, err := q.SignCrews(ctx, um.SignCrewsParams{Crews: []byte(`[{"hull": 100, "captain": 1, "motto": "b", "tags": [2]}, {"hull": 200, "captain": 1, "motto": "c", "tags": [3]}]`)})
	if err != nil || len(rows) != 2 {
		t.Fatalf("sign crews: %#v %v", rows, err)
	}
	crews, err := q.Crews(ctx)
	if err != nil || len(crews) != 2 || len(crews[0].Members) != 2 || crews[0].Motto != "b" || len(crews[1].Members) != 1 {
		t.Fatalf("crews: %#v %v", crews, err)
	}
}
"""


@pytest.mark.slow
def test_through_the_go_runner(pg, go_run, tmp_path):
    out, _ = _setup(pg)
    mod = tmp_path / "mod"
    for rel, text in out.items():
        if rel.startswith("go/"):
            p = mod / "um" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (mod / "e2e").mkdir()
    (mod / "e2e" / "um_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestUpsertLinks" in result.test.stdout
