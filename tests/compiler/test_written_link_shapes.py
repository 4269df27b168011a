"""``select (insert | update | upsert ...) { tags: { name }, shelves: { spot := @spot } }``: the
shape of a write reads its multi links as the statement leaves them (Gel's result shows the
objects after the write, https://docs.geldata.com/reference/edgeql/insert#with-block). A
Postgres statement does not see its own writes, so a link's rows are the join table's but those
the statement's link CTEs deleted or wrote, and the rows they wrote (``RETURNING *``). A path of
the shape through single links (a computed ``link boss := (select .label.owner)``) starts from
the written row's own column. Also, as a function's values are here:

* ``tags := assert_distinct((select array_unpack(<array<Tag>>ids)))``: Gel's cast of an id to an
  object fails (CardinalityViolationError) when no object has the id
  (https://docs.geldata.com/reference/edgeql/casts), ``assert_distinct`` when one is there twice;
* ``shelves += (select shelf { @spot := spot })`` of a function's object parameter ``shelf``.

Each was E0206 / E0304 ("selecting the multi link 'tags' that the same statement writes is not
supported yet", "'shelves' links to Shelf, not shelf", "the value of multi link 'tags' must be
..."). Tested on PostgreSQL 15, directly and through node-postgres and pgx."""

from __future__ import annotations

import json
import re

import psycopg
import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Tag { required name: str { constraint exclusive; }; }
type Shelf { required label: str; }
type Owner { required name: str; }
type Label { required title: str; required owner: Owner; }
type Disc {
  required title: str { constraint exclusive; };
  required label: Label;
  multi tags: Tag;
  multi shelves: Shelf { spot: str; };
  link boss := (select .label.owner);
}
function put_disc(named only title: str, named only label: Label, named only tags: array<uuid>,
                  named only shelf: Shelf, named only spot: str) -> Disc {
  using (
    select (
      insert Disc {
        title := title,
        label := label,
        tags := assert_distinct((select array_unpack(<array<Tag>>tags))),
        shelves := (select shelf { @spot := spot }),
      }
      unless conflict on .title else (
        update Disc set {
          label := label,
          tags := assert_distinct((select array_unpack(<array<Tag>>tags))),
          shelves += (select shelf { @spot := spot }),
        }
      )
    )
  );
}
"""

SOURCES = {
    "wl/s.esdl": SCHEMA,
    "wl/q/put_disc.edgeql": "select put_disc(title := <str>$title, label := <Label>$label, tags := <array<uuid>>$tags,\n"
                            "                shelf := <Shelf>$shelf, spot := <str>$spot)\n"
                            "{ title, boss: { name }, tags: { name }, shelves: { label, spot := @spot } };",
    "wl/q/untag.edgeql": "select (update Disc filter .title = <str>$title set { tags -= (select Tag filter .name = "
                         "<str>$tag) })\n{ title, tags: { name } };",
}

IDS = {n: f"00000000-0000-0000-0000-0000000000{i:02d}" for i, n in enumerate(
    ["t1", "t2", "t3", "s1", "s2", "l1", "l2", "o1", "o2"], 1)}
NOWHERE = "00000000-0000-0000-0000-0000000000ff"

DATA = f"""
INSERT INTO "tag" ("id", "name") VALUES ('{IDS["t1"]}', 't1'), ('{IDS["t2"]}', 't2'), ('{IDS["t3"]}', 't3');
INSERT INTO "shelf" ("id", "label") VALUES ('{IDS["s1"]}', 's1'), ('{IDS["s2"]}', 's2');
INSERT INTO "owner" ("id", "name") VALUES ('{IDS["o1"]}', 'ann'), ('{IDS["o2"]}', 'bob');
INSERT INTO "label" ("id", "title", "owner_id") VALUES ('{IDS["l1"]}', 'L1', '{IDS["o1"]}'),
  ('{IDS["l2"]}', 'L2', '{IDS["o2"]}');
"""


def _plans():
    return {q.name: q for q in check_library(SOURCES, Options(library="wl")).queries}


def test_sql():
    sql = _plans()["put_disc"].sql
    assert ('FROM (SELECT * FROM "disc_tags" WHERE ("source_id", "target_id") NOT IN (SELECT "source_id", '
            '"target_id" FROM "_link1"') in sql
    assert '\nRETURNING "_l".*' in sql and 'ON CONFLICT ("source_id", "target_id") DO UPDATE SET "spot"' in sql
    assert 'IN (SELECT "disc"."label_id")' in sql  # (the written row's own label, then its owner)
    assert "schemac-assert|assert_distinct|" in sql and "with an id of the array does not exist" in sql


def _norm(row):
    title, boss, tags, shelves = row
    return (title, boss["name"], sorted(t["name"] for t in tags),
            sorted((s["label"], s["spot"]) for s in shelves))


def test_on_postgres(pg):
    plans = _plans()
    pg.execute(compile_library(SOURCES, Options(library="wl"))["sql/000001_init.up.sql"])
    pg.execute(DATA)

    def run(name, **args):
        order = [p.name for p in plans[name].params]
        sql = re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql)
        return pg.execute(sql, {f"p{i}": args[n] for i, n in enumerate(order, 1)})

    def put(tags, shelf, spot, label="l1"):
        rows = run("put_disc", title="d1", label=IDS[label], tags=[IDS.get(t, t) for t in tags], shelf=IDS[shelf],
                   spot=spot)
        return [_norm(r) for r in rows]

    assert put(["t1", "t2"], "s1", "a") == [("d1", "ann", ["t1", "t2"], [("s1", "a")])]
    # the existing disc: its new label, its tags replaced, a shelf added
    assert put(["t2", "t3"], "s2", "b", "l2") == [("d1", "bob", ["t2", "t3"], [("s1", "a"), ("s2", "b")])]
    # an existing link's property rewritten (Gel re-links the object with the new value)
    assert put(["t3"], "s1", "c", "l2") == [("d1", "bob", ["t3"], [("s1", "c"), ("s2", "b")])]
    with pytest.raises(psycopg.Error, match="does not exist"):
        put(["t1", NOWHERE], "s1", "x")
    with pytest.raises(psycopg.Error, match="assert_distinct violation"):
        put(["t1", "t1"], "s1", "x")
    assert put([], "s2", "d", "l1") == [("d1", "ann", [], [("s1", "c"), ("s2", "d")])]
    assert put(["t1", "t2"], "s2", "d", "l1")[0][2] == ["t1", "t2"]
    untagged = run("untag", title="d1", tag="t1")
    assert [(r[0], sorted(t["name"] for t in r[1])) for r in untagged] == [("d1", ["t2"])]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as wl from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = wl.createRunner(pool).query;
  const put = (tags: string[], shelf: string, spot: string, label: string) =>
    q.putDisc({ title: "d1", label: IDS[label]!, tags: tags.map((t) => IDS[t] ?? t), shelf: IDS[shelf]!, spot });
  const first = await put(["t1", "t2"], "s1", "a", "l1");
  assert.equal(first.boss?.name, "ann");
  assert.deepEqual(first.tags.map((t) => t.name).sort(), ["t1", "t2"]);
  const second = await put(["t2", "t3"], "s2", "b", "l2");
  assert.equal(second.boss?.name, "bob");
  assert.deepEqual(second.tags.map((t) => t.name).sort(), ["t2", "t3"]);
  assert.deepEqual(second.shelves.map((s) => [s.label, s.spot]).sort(), [["s1", "a"], ["s2", "b"]]);
  await assert.rejects(put(["t1", "t1"], "s1", "x", "l1"), (e) => e instanceof wl.DistinctViolationError);
  await assert.rejects(put([NOWHERE], "s1", "x", "l1"), (e) => e instanceof wl.CardinalityViolationError);
  const untagged = await q.untag({ title: "d1", tag: "t2" });
  assert.deepEqual(untagged?.tags.map((t) => t.name), ["t3"]);
  console.log(JSON.stringify({ writtenLinks: true }));
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
def test_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library(SOURCES, Options(library="wl"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute(DATA)
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    head = (f"const IDS: Record<string, string> = {json.dumps(IDS)};\n"
            f"const NOWHERE = {json.dumps(NOWHERE)};\n")
    (src / "main.ts").write_text(TS_MAIN.replace("const pool", head + "const pool", 1))
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"writtenLinks": True}


GO_TEST = """\
package e2e

import (
	"context"
	"errors"
	"os"
	"sort"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	wl "schemactest/wl"
)

func TestWrittenLinks(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := wl.New(db).Query
	row, err := q.PutDisc(ctx, wl.PutDiscParams{Title: "d1", Label: "L1ID", Tags: []string{"T1ID", "T2ID"},
		Shelf: "S1ID", Spot: "a"})
	if err != nil || len(row.Tags) != 2 || len(row.Shelves) != 1 {
		t.Fatalf("first: %#v (%v)", row, err)
	}
	row, err = q.PutDisc(ctx, wl.PutDiscParams{Title: "d1", Label: "L2ID", Tags: []string{"T3ID"},
		Shelf: "S2ID", Spot: "b"})
	if err != nil || len(row.Tags) != 1 || row.Tags[0].Name != "t3" || row.Boss == nil || row.Boss.Name != "bob" {
		t.Fatalf("second: %#v (%v)", row, err)
	}
	spots := []string{}
	for _, s := range row.Shelves {
		if s.Spot != nil {
			spots = append(spots, *s.Spot)
		}
	}
	sort.Strings(spots)
	if len(spots) != 2 || spots[0] != "a" || spots[1] != "b" {
		t.Fatalf("spots: %#v", spots)
	}
	_, err = q.PutDisc(ctx, wl.PutDiscParams{Title: "d1", Label: "L1ID", Tags: []string{"T1ID", "T1ID"},
		Shelf: "S1ID", Spot: "x"})
	var dv *wl.DistinctViolationError
	if !errors.As(err, &dv) {
		t.Fatalf("duplicate tags: %v", err)
	}
}
"""


@pytest.mark.slow
def test_go_runner(pg, go_run, tmp_path):
    out = compile_library(SOURCES, Options(library="wl"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute(DATA)
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "wl")
    (mod / "e2e").mkdir()
    go = GO_TEST
    for n in ("t1", "t2", "t3", "s1", "s2", "l1", "l2"):
        go = go.replace(f'"{n.upper()}ID"', json.dumps(IDS[n]))
    (mod / "e2e" / "written_links_test.go").write_text(go)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestWrittenLinks" in result.test.stdout, result.test.stdout
