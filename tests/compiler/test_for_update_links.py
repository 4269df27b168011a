"""Multi links changed in a ``for`` loop's update, ``for x in ... union (update T filter ... set {
link := / += / -= (select U { @p := ... } filter ...) })``: the body runs for every element and the
results are united (https://docs.geldata.com/reference/edgeql/for), and Gel's update writes the
links of every element of its range (an object with each element whose filter picks it), so an
object several elements pick gets the links of all of them (``:=`` keeps the links to a target
of one of its elements, with the element's link properties), while its columns are written once,
with one element's values (as for any loop's update). One statement: the range is a CTE
(``"_new_src"``), the update joins it, and the join-table writes read it. Proven on PostgreSQL 15
with data, through the TypeScript and Go runners."""

from __future__ import annotations

import json

import pytest

from libraries import run_plan
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module default {
  type Shop {
    required code: str { constraint exclusive; };
    note: str;
    multi brands: Brand { rank: int16; };
  }
  type Brand { required bid: int16 { constraint exclusive; }; required label: str; }
}
"""

QUERIES = {
    # one shop, its brands replaced by the elements' (each with its rank)
    "q/set_brands.edgeql": """\
with items := <json>$items
for item in json_array_unpack(items) union (
  update Shop
  filter .code = <str>$code
  set {
    brands := (
      select detached Brand { @rank := <int16>item["rank"] }
      filter .bid = <int16>item["bid"]
    )
  }
)
""",
    # a shop per element, a column and a link each
    "q/add_brand.edgeql": """\
for c in array_unpack(<array<str>>$codes) union (
  update Shop filter .code = c
  set { note := c ++ '!', brands += (select Brand filter .label = <str>$label) }
)
""",
    "q/drop_brands.edgeql": """\
for b in array_unpack(<array<int16>>$bids) union (
  update Shop filter .code = <str>$code set { brands -= (select Brand filter .bid = b) }
)
""",
}

SEED = """\
INSERT INTO brand (bid, label) VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four');
INSERT INTO shop (code) VALUES ('a'), ('b'), ('c');
INSERT INTO shop_brands (source_id, target_id, rank)
  SELECT s.id, b.id, 9 FROM shop s, brand b WHERE s.code = 'a' AND b.bid IN (1, 3);
"""

LINKS = """\
SELECT s.code, b.bid, l.rank FROM shop_brands l JOIN shop s ON s.id = l.source_id
JOIN brand b ON b.id = l.target_id ORDER BY 1, 2
"""


def _plans():
    return {q.name: q for q in check_library({"default.gel": SCHEMA, **QUERIES}, Options(library="f")).queries}


def test_multi_links_changed_in_a_loops_update(pg):
    pg.execute(compile_library({"default.gel": SCHEMA}, Options(library="f"))["sql/000001_init.up.sql"])
    pg.execute(SEED)
    q = _plans()
    items = json.dumps([{"bid": 1, "rank": 5}, {"bid": 2, "rank": 7}, {"bid": 99, "rank": 0}])
    assert len(run_plan(pg, q["set_brands"], items, "a")) == 1  # one shop, written once
    assert pg.execute(LINKS) == [("a", 1, 5), ("a", 2, 7)]
    assert run_plan(pg, q["set_brands"], "[]", "a") == []  # no element: nothing changes
    assert len(run_plan(pg, q["add_brand"], ["b", "c", "zz"], "four")) == 2
    assert pg.execute(LINKS) == [("a", 1, 5), ("a", 2, 7), ("b", 4, None), ("c", 4, None)]
    assert pg.execute("SELECT code, note FROM shop ORDER BY code") == [("a", None), ("b", "b!"), ("c", "c!")]
    run_plan(pg, q["add_brand"], ["b", "b"], "four")  # twice the same link: still one
    assert pg.execute("SELECT count(*) FROM shop_brands") == [(4,)]
    assert len(run_plan(pg, q["drop_brands"], [1, 2, 3], "a")) == 1
    assert pg.execute(LINKS) == [("b", 4, None), ("c", 4, None)]


_TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as f from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = f.createRunner(pool).query;
  const rows = await q.setBrands({ items: [{ bid: 3, rank: 1 }, { bid: 4, rank: 2 }], code: "a" });
  assert.equal(rows.length, 1);
  const links = await pool.query(`""" + LINKS.replace("\n", " ") + """`);
  assert.deepEqual(links.rows.map((r) => [r.code, r.bid, r.rank]), [["a", 3, 1], ["a", 4, 2]]);
  assert.equal((await q.addBrand({ codes: ["b"], label: "one" })).length, 1);
  assert.equal((await q.dropBrands({ bids: [3], code: "a" })).length, 1);
  console.log(JSON.stringify({ loopLinks: true }));
} finally {
  await pool.end();
}
"""

_GO_TEST = """\
package e2e

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	f "schemactest/f"
)

func TestLoopLinks(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := f.New(db).Query
	items, _ := json.Marshal([]map[string]int{{"bid": 2, "rank": 4}, {"bid": 4, "rank": 6}})
	rows, err := q.SetBrands(ctx, f.SetBrandsParams{Items: items, Code: "c"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("set brands: %v %v", rows, err)
	}
	var n int
	if err := db.QueryRow(ctx, "SELECT sum(l.rank) FROM shop_brands l JOIN shop s ON s.id = l.source_id WHERE s.code = 'c'").Scan(&n); err != nil || n != 10 {
		t.Fatalf("ranks: %d %v", n, err)
	}
	if rows, err := q.DropBrands(ctx, f.DropBrandsParams{Bids: []int16{2, 4}, Code: "c"}); err != nil || len(rows) != 1 {
		t.Fatalf("drop brands: %v %v", rows, err)
	}
}
"""


def _write_tree(files, root, prefix):
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = root / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


@pytest.mark.slow
def test_loop_update_links_through_the_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library({"default.gel": SCHEMA, **QUERIES}, Options(library="f"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute(SEED)
    _write_tree(out, tmp_path / "src" / "gen", "ts/")
    (tmp_path / "src" / "main.ts").write_text(_TS_MAIN)
    result = tsc_run(tmp_path / "src", "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"loopLinks": True}
    assert pg.execute(LINKS) == [("a", 4, 2), ("b", 1, None)]


@pytest.mark.slow
def test_loop_update_links_through_the_go_runner(pg, go_run, tmp_path):
    out = compile_library({"default.gel": SCHEMA, **QUERIES}, Options(library="f"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute(SEED)
    _write_tree(out, tmp_path / "mod" / "f", "go/")
    (tmp_path / "mod" / "e2e").mkdir()
    (tmp_path / "mod" / "e2e" / "f_test.go").write_text(_GO_TEST)
    result = go_run(tmp_path / "mod", test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestLoopLinks" in result.test.stdout
    assert pg.execute(LINKS) == [("a", 1, 9), ("a", 3, 9)]
