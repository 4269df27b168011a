"""A chain of ``with`` names that groups objects by a computed element of a view, orders the
groups, reads their fields as arrays and walks them with a ``for`` loop of free objects:

* ``stamped := (select mine { day := ..., hour := ... })`` of a ``with`` selection: a view of
  its objects with computed elements (https://docs.geldata.com/reference/edgeql/shapes);
* ``max(.elements.hour)`` over the groups of that view reads the element's expression
  (https://docs.geldata.com/reference/edgeql/group);
* ``ordered := (select bounds order by .day)`` and ``array_agg((select ordered.first))``: a
  field of each group, in that order
  (https://docs.geldata.com/reference/stdlib/array#function::std::array_agg);
* ``for i in range_unpack(...) union (with ... select { ... } filter ...)``: names bound per
  element and a filter in the loop's free objects (https://docs.geldata.com/reference/edgeql/for);
* ``count(nights)``, ``math::mean(nights.secs)`` of them (the mean of none fails, as Gel's,
  https://docs.geldata.com/reference/stdlib/math#function::math::mean).

Run on PostgreSQL 15 through node-postgres and pgx."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Msg { required at: datetime; required who: str; }
"""

QUERY = """
with
  tz := <str>$tz,
  mine := (select Msg filter .who = <str>$who),
  stamped := (select mine {
    day := cal::to_local_date(.at, tz),
    hour := <int64>datetime_get(cal::to_local_datetime(.at, tz), 'hour'),
  }),
  per_day := (group stamped using day := .day by day),
  bounds := (select per_day {
    day := .key.day, first := min(.elements.at), last := max(.elements.at), late := max(.elements.hour),
  }),
  ordered := (select bounds order by .day),
  days := array_agg((select ordered.day)),
  firsts := array_agg((select ordered.first)),
  lasts := array_agg((select ordered.last)),
  lates := array_agg((select ordered.late)),
  nights := (
    for i in range_unpack(range(0, len(days) - 1)) union (
      with
        span := firsts[i + 1] - lasts[i],
        secs := duration_get(span, 'totalseconds'),
      select { secs := secs, late := lates[i] }
      filter days[i + 1] - days[i] = <cal::date_duration>'1 day' and secs < 43200
    )
  )
select {
  n := count(nights),
  mean_secs := math::mean(nights.secs),
  mean_late := math::mean(nights.late),
  days := days,
};
"""

SOURCES = {"dg/s.esdl": SCHEMA, "dg/q/night_gaps.edgeql": QUERY}

SETUP = """
INSERT INTO msg (who, at) VALUES
  ('ann', '2024-01-01T20:00:00Z'), ('ann', '2024-01-01T23:00:00Z'), ('ann', '2024-01-02T07:00:00Z'),
  ('ann', '2024-01-02T22:00:00Z'), ('ann', '2024-01-03T08:00:00Z'), ('ann', '2024-01-05T09:00:00Z'),
  ('bob', '2024-01-01T10:00:00Z');
"""


def test_on_postgres(pg):
    plan = check_library(SOURCES, Options(library="dg")).queries[0]
    pg.execute(compile_library(SOURCES, Options(library="dg"))["sql/000001_init.up.sql"])
    pg.execute(SETUP)

    def run(tz, who):
        params = {f"p{p.index}": {"tz": tz, "who": who}[p.name] for p in plan.params}
        return pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql), params)

    # days 01-01, 01-02, 01-03, 01-05: nights of 8 h (late hour 23) and 10 h (22); 01-03 -> 01-05
    # is not consecutive
    [(n, mean_secs, mean_late, days)] = run("UTC", "ann")
    assert (n, mean_secs, mean_late) == (2, 32400.0, 22.5)
    assert days == [dt.date(2024, 1, 1), dt.date(2024, 1, 2), dt.date(2024, 1, 3), dt.date(2024, 1, 5)]
    # twelve hours west, the days change and no night is shorter than twelve hours: the mean of
    # none fails, as Gel's
    with pytest.raises(Exception, match="invalid input to mean"):
        run("Etc/GMT+12", "ann")
    with pytest.raises(Exception, match="invalid input to mean"):
        run("UTC", "bob")


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as dg from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query(process.env["SETUP"]!);
  const q = dg.createRunner(pool).query;
  const got = await q.nightGaps({ tz: "UTC", who: "ann" });
  assert.equal(got.n, "2");
  assert.equal(got.mean_secs, 32400);
  assert.equal(got.mean_late, 22.5);
  assert.equal(got.days.length, 4);
  console.log(JSON.stringify({ dailyGapStats: true }));
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
    out = compile_library(SOURCES, Options(library="dg"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, "ts/", src / "gen")
    (src / "main.ts").write_text(TS_MAIN)
    monkeypatch.setenv("SETUP", SETUP)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"dailyGapStats": True}


GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	dg "schemactest/dg"
)

func TestDailyGapStats(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, os.Getenv("SETUP")); err != nil {
		t.Fatal(err)
	}
	got, err := dg.New(db).Query.NightGaps(ctx, dg.NightGapsParams{Tz: "UTC", Who: "ann"})
	if err != nil || got.N != 2 || got.MeanSecs != 32400 || got.MeanLate != 22.5 || len(got.Days) != 4 {
		t.Fatalf("night gaps: %#v (%v)", got, err)
	}
}
"""


@pytest.mark.slow
def test_go_runner(pg, go_run, tmp_path, monkeypatch):
    out = compile_library(SOURCES, Options(library="dg"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, "go/", mod / "dg")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "daily_gap_stats_test.go").write_text(GO_TEST)
    monkeypatch.setenv("SETUP", SETUP)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestDailyGapStats" in result.test.stdout, result.test.stdout
