"""``with`` names bound to a ``for`` loop whose body is a free object, over ``range_unpack(range(0,
n))`` or ``array_unpack(arr)`` (https://docs.geldata.com/reference/edgeql/for,
https://docs.geldata.com/reference/stdlib/range#function::std::range_unpack), and ``(select s
order by .f desc limit 1)`` of one, read by its fields (``widest.gap``); ``duration_get(d,
'totalseconds')`` (https://docs.geldata.com/reference/stdlib/datetime#function::std::duration_get).
Run on PostgreSQL 15 through node-postgres and pgx. It was E0206 "'for' loops inside an
expression" (and "function 'duration_get()' is not supported")."""

from __future__ import annotations

import json
import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Ping { required at: datetime; required who: str; }
"""

SOURCES = {
    "fl/s.esdl": SCHEMA,
    "fl/q/widest_gap.edgeql": """
        with
          mine := (select Ping filter .who = <str>$who),
          sorted := (select mine order by .at),
          stamps := array_agg((select sorted.at)),
          gaps := (
            for i in range_unpack(range(0, len(stamps) - 1))
            union (select { gap := stamps[i + 1] - stamps[i], start := stamps[i] })
          ),
          widest := (select gaps order by .gap desc limit 1)
        select {
          n := count(mine),
          seconds := duration_get(widest.gap, 'totalseconds'),
          start := widest.start,
        };""",
    "fl/q/longest_name.edgeql": """
        with
          sized := (for s in array_unpack(<array<str>>$names) union (select { name := s, size := len(s) })),
          longest := (select sized order by .size desc then .name limit 1)
        select { name := longest.name, size := longest.size };""",
    "fl/q/last_below.edgeql": """
        with
          s := (for i in range_unpack(range(0, <optional int64>$hi)) union (select { x := i })),
          top := (select s order by .x desc limit 1)
        select { x := top.x };""",
}

SETUP = """
INSERT INTO ping (who, at) VALUES
  ('ann', '2024-01-01T00:00:00Z'), ('ann', '2024-01-01T00:00:10Z'), ('ann', '2024-01-01T00:01:10Z'),
  ('ann', '2024-01-01T00:01:40Z'), ('bob', '2024-01-01T00:00:00Z');
"""


def _plans():
    return {q.name: q for q in check_library(SOURCES, Options(library="fl")).queries}


@pytest.mark.parametrize("query, message", [
    ("with s := (for i in range_unpack(range(0, 3)) union (select { x := i })) select { y := s.x };",
     "'s' is a set of free objects"),
    ("with s := (for i in range_unpack(range(0, 3)) union (select { x := i })), f := (select s limit 2) "
     "select { y := f.x };", "a selection of free objects is supported as (select s order by .a limit 1)"),
    ("select { x := duration_get(<duration>'1 hour', 'hours') };", "duration_get() of 'hours' is not supported"),
])
def test_other_forms_are_located_e0206(query, message):
    sources = {"fl/s.esdl": SCHEMA, "fl/q/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        compile_library(sources, Options(library="fl"))
    assert message in e.value.render(sources)


def test_on_postgres(pg):
    import datetime as dt

    plans = _plans()
    pg.execute(compile_library(SOURCES, Options(library="fl"))["sql/000001_init.up.sql"])
    pg.execute(SETUP)

    def run(name, *args):
        return pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql), {f"p{i}": a for i, a in enumerate(args, 1)})

    # gaps of 10 s, 60 s and 30 s: the widest starts at 00:00:10
    [(n, seconds, start)] = run("widest_gap", "ann")
    assert (n, seconds) == (4, 60.0)
    assert start == dt.datetime(2024, 1, 1, 0, 0, 10, tzinfo=dt.timezone.utc)
    # one ping: range(0, 0) is empty, no gap, no widest one
    assert run("widest_gap", "bob") == [(1, None, None)]
    assert run("longest_name", ["ab", "abc", "xyz", "a"]) == [("abc", 3)]
    assert run("longest_name", []) == [(None, None)]
    assert run("last_below", 3) == [(2,)]
    # an unbounded range (an empty bound) cannot be unpacked, as in Gel
    with pytest.raises(Exception, match="cannot unpack an unbounded range"):
        run("last_below", None)


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as fl from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query(process.env["SETUP"]!);
  const q = fl.createRunner(pool).query;
  const got = await q.widestGap({ who: "ann" });
  assert.equal(got.seconds, 60);
  assert.equal(got.start?.toISOString(), "2024-01-01T00:00:10.000Z");
  assert.deepEqual(await q.widestGap({ who: "bob" }), { n: "1", seconds: null, start: null });
  assert.deepEqual(await q.longestName({ names: ["ab", "abc"] }), { name: "abc", size: "3" });
  console.log(JSON.stringify({ freeObjectLoops: true }));
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
    out = compile_library(SOURCES, Options(library="fl"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    (src / "main.ts").write_text(TS_MAIN)
    monkeypatch.setenv("SETUP", SETUP)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"freeObjectLoops": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	fl "schemactest/fl"
)

func TestFreeObjectLoops(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, os.Getenv("SETUP")); err != nil {
		t.Fatal(err)
	}
	q := fl.New(db).Query
	got, err := q.WidestGap(ctx, fl.WidestGapParams{Who: "ann"})
	if err != nil || got.N != 4 || got.Seconds == nil || *got.Seconds != 60 || got.Start == nil {
		t.Fatalf("widest gap: %#v (%v)", got, err)
	}
	none, err := q.WidestGap(ctx, fl.WidestGapParams{Who: "bob"})
	if err != nil || none.Seconds != nil || none.Start != nil {
		t.Fatalf("widest gap of one ping: %#v (%v)", none, err)
	}
	name, err := q.LongestName(ctx, fl.LongestNameParams{Names: []string{"ab", "abc"}})
	if err != nil || name.Name == nil || *name.Name != "abc" {
		t.Fatalf("longest name: %#v (%v)", name, err)
	}
}
"""


@pytest.mark.slow
def test_go_runner(pg, go_run, tmp_path, monkeypatch):
    out = compile_library(SOURCES, Options(library="fl"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "fl")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "free_object_loops_test.go").write_text(GO_TEST)
    monkeypatch.setenv("SETUP", SETUP)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestFreeObjectLoops" in result.test.stdout, result.test.stdout
