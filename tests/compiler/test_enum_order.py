"""Enum values order by declaration, as in Gel (https://docs.geldata.com/reference/stdlib/enum),
in `order by` and in `<`, `<=`, `>`, `>=`, while they stay stored as text; on Postgres 15 and
through the TypeScript runner."""

from __future__ import annotations

import json
import re

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library

SOURCES = {
    "s.esdl": "enum Priority { Low, Medium, High }\ntype Task { required title: str; prio: Priority; }",
    "q/by_prio.edgeql": "select Task { title } order by .prio then .title;",
    "q/by_prio_desc.edgeql": "select Task { title } order by .prio desc empty last then .title;",
    "q/above_low.edgeql": "select Task { title } filter .prio > Priority.Low order by .title;",
    "q/at_most.edgeql": "select Task { title } filter .prio <= <Priority>$p order by .title;",
    "q/below_high.edgeql": "select Task { title } filter .prio < Priority.High order by .title;",
    "q/at_least_param.edgeql": "select Task { title } filter <Priority>$p >= .prio and .prio >= Priority.Medium;",
    "q/exactly.edgeql": "select Task { title } filter .prio = Priority.High;",
}
ROWS = [("a", "High"), ("b", "Low"), ("c", "Medium"), ("d", None), ("e", "Low")]


def _run(pg, plan, *args):
    return [r[0] for r in pg.execute(re.sub(r"\$(\d+)", "%s", plan.sql), args or None)]


def test_enums_order_by_declaration_on_postgres(pg):
    pg.execute(compile_library(SOURCES, Options(library="e"))["sql/000001_init.up.sql"])
    for title, prio in ROWS:
        pg.execute("INSERT INTO task (title, prio) VALUES (%s, %s)", (title, prio))
    plans = {q.name: q for q in check_library(SOURCES, Options(library="e")).queries}
    # text order would give High, Low, Medium
    assert _run(pg, plans["by_prio"]) == ["d", "b", "e", "c", "a"]
    assert _run(pg, plans["by_prio_desc"]) == ["a", "c", "b", "e", "d"]
    # as text, 'High' > 'Low' is false
    assert _run(pg, plans["above_low"]) == ["a", "c"]
    assert _run(pg, plans["below_high"]) == ["b", "c", "e"]
    assert _run(pg, plans["at_most"], "Medium") == ["b", "c", "e"]
    assert sorted(_run(pg, plans["at_least_param"], "High")) == ["a", "c"]
    assert _run(pg, plans["exactly"]) == ["a"]
    assert "array_position" not in plans["exactly"].sql  # equality stays a text comparison


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as e from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = e.createRunner(pool).query;
  assert.deepEqual((await q.byPrio()).map((r) => r.title), ["d", "b", "e", "c", "a"]);
  assert.deepEqual((await q.atMost({ p: e.Priority.Medium })).map((r) => r.title), ["b", "c", "e"]);
  assert.deepEqual((await q.aboveLow()).map((r) => r.title), ["a", "c"]);
  console.log(JSON.stringify({ enumOrder: true }));
} finally {
  await pool.end();
}
"""


def test_enum_order_through_the_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library(SOURCES, Options(library="e"))
    pg.execute(out["sql/000001_init.up.sql"])
    for title, prio in ROWS:
        pg.execute("INSERT INTO task (title, prio) VALUES (%s, %s)", (title, prio))
    src = tmp_path / "src"
    for rel, text in out.items():
        if rel.startswith("ts/"):
            p = src / "gen" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"enumOrder": True}
