"""A sample of the conformance suite's MATCH cases through the generated TypeScript and Go
runners (issue 25): the same queries, compiled into one library with their fixture's schema,
called through ``createRunner(pool).query`` (node-postgres) and ``New(pool).Query`` (pgx) on
the fixture's database, and their results compared with Gel's expected results as
``conformance_harness.assert_shape`` compares them (after reading the runners' spellings back:
an int64 the TS runner returns as a string is a number in Gel's JSON).

The sample: from fixtures whose setup loads, the first cases (by id) that are selects without
parameters or earlier statements, whose result holds only strings, booleans, numbers and enums
(the runners' own spellings of dates, durations, bytes and decimals are theirs to choose), and
that MATCH through the SQL path.
"""

from __future__ import annotations

import json
import re

import pytest

import conformance_harness as harness

SAMPLE_FIXTURES = [("json", "TestEdgeQLJSON"), ("casts", "TestEdgeQLCasts"), ("enums", "TestEdgeQLEnums"),
                   ("datatypes", "TestEdgeQLDT"), ("delete", "TestDelete"), ("docs", "Docs")]
PER_FIXTURE = 4
PLAIN = {"str", "bool", "int16", "int32", "int64", "float32", "float64"}


def _plain(rf) -> bool:
    if rf.shape is not None:
        return all(_plain(f) for f in rf.shape)
    t = rf.type
    while t is not None and t.element is not None:
        t = t.element
    return t is not None and t.fields is None and (t.enum is not None or harness._scalar_name(t) in PLAIN)


def _sample(conformance_fixture):
    """``(fixture, picked)`` per sample fixture, one at a time (the fixture's database is open
    while its item is in use: the conformance fixtures keep only the last few open)."""
    for area, cls in SAMPLE_FIXTURES:
        fx = conformance_fixture(area, cls)
        if fx.refused is not None or fx.conn is None:
            continue
        picked = []
        for case in sorted(harness.load_area(area)["cases"], key=lambda c: c["id"]):
            if len(picked) >= PER_FIXTURE:
                break
            if case["class"] != cls or case["prelude"] or case.get("variables") or case.get("sort"):
                continue
            stmts = harness.split_statements(case["query"])
            if len(stmts) != 1:
                continue
            try:
                c = fx.compile(stmts[0])
            except harness.Refused:
                continue
            if c.params or c.kind != "select" or not all(_plain(f) for f in c.result):
                continue
            if harness.run_case(fx, case).status != "MATCH":
                continue
            picked.append((case, stmts[0], c))
        if picked:
            yield fx, picked


def _library(fx, picked):
    src = dict(fx.sources)
    for i, (case, text, _) in enumerate(picked):
        src[f"lib/case_{i:03d}.edgeql"] = text
    from schemac.pipeline import compile_library
    from schemac.semantics.library import Options

    return compile_library(src, Options(library="conf"))


def _write(out, prefix, dest):
    for rel, text in out.items():
        if rel.startswith(prefix):
            p = dest / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


def _runner_to_gel(value, rf):
    if value is None:
        return [] if rf.multi or rf.shape is not None and rf.multi else None
    if rf.shape is not None:
        if isinstance(value, list):
            return [_obj(v, rf.shape) for v in value]
        return _obj(value, rf.shape)
    if isinstance(value, list):
        t = rf.type.element if rf.type is not None and rf.type.element is not None else rf.type
        return [harness.value_to_gel(v, t, True) for v in value]
    return harness.value_to_gel(value, rf.type, True)


def _obj(value, shape):
    return {f.name: _runner_to_gel(value.get(f.name), f) for f in shape if f.name in value}


def _as_set(c, value):
    """A runner's return value (a list, one row or value, or null) as Gel's result set."""
    if c.cardinality == "many":
        items = value or []
    else:
        items = [] if value is None else [value]
    if c.scalar:
        return [_runner_to_gel(v, c.result[0]) for v in items if v is not None]
    return [{f.name: _runner_to_gel(row.get(f.name), f) for f in c.result} for row in items]


def _check(fx, picked, results, key):
    assert len(results) == len(picked), (sorted(results), len(picked))
    for i, (case, _, c) in enumerate(picked):
        got = _as_set(c, results[key(i)])
        try:
            harness.assert_shape(got, harness.decode(case["expected"]))
        except harness.Mismatch as e:
            pytest.fail(f"{case['id']} ({case['source']}) through the runner: {e}\nquery: {case['query'].strip()}\n"
                        f"expected: {json.dumps(case['expected'])}\ngot: {json.dumps(got, default=str)}",
                        pytrace=False)


TS_MAIN = """\
import pg from "pg";

import * as lib from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = lib.createRunner(pool).query as unknown as Record<string, () => Promise<unknown>>;
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(q).sort()) {
    out[name] = await q[name]!();
  }
  console.log(JSON.stringify(out, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
} finally {
  await pool.end();
}
"""


@pytest.mark.slow
def test_sample_through_typescript_runner(conformance_fixture, tsc_run, tmp_path):
    total = 0
    for n, (fx, picked) in enumerate(_sample(conformance_fixture)):
        total += len(picked)
        src = tmp_path / f"src{n}"
        _write(_library(fx, picked), "ts/", src / "gen")
        (src / "main.ts").write_text(TS_MAIN)
        result = tsc_run(src, "main.ts", database_url=fx.url)
        results = json.loads(result.stdout.strip().splitlines()[-1])
        _check(fx, picked, results, lambda i: f"case{i:03d}")
    print(f"{total} MATCH cases checked through the runner")
    assert total >= 8, f"only {total} MATCH cases to sample"


def _go_test(methods):
    calls = "".join(
        f"\t{{\n\t\tr, err := q.{m}(ctx)\n\t\tif err != nil {{\n\t\t\tt.Fatal(err)\n\t\t}}\n\t\tout[\"{m}\"] = r\n\t}}\n"
        for m in methods)
    return (
        "package e2e\n\nimport (\n\t\"context\"\n\t\"encoding/json\"\n\t\"fmt\"\n\t\"os\"\n\t\"testing\"\n\n"
        "\t\"github.com/jackc/pgx/v5/pgxpool\"\n\n\tlib \"schemactest/conf\"\n)\n\n"
        "func TestSample(t *testing.T) {\n\tctx := context.Background()\n"
        "\tdb, err := pgxpool.New(ctx, os.Getenv(\"DATABASE_URL\"))\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n"
        "\tdefer db.Close()\n\tq := lib.New(db).Query\n\tout := map[string]any{}\n" + calls +
        "\tb, err := json.Marshal(out)\n\tif err != nil {\n\t\tt.Fatal(err)\n\t}\n"
        "\tfmt.Println(\"RESULT \" + string(b))\n}\n")


@pytest.mark.slow
def test_sample_through_go_runner(conformance_fixture, go_run, tmp_path):
    total = 0
    for n, (fx, picked) in enumerate(_sample(conformance_fixture)):
        total += len(picked)
        out = _library(fx, picked)
        mod = tmp_path / f"mod{n}"
        _write(out, "go/", mod / "conf")
        queries = "".join(t for k, t in out.items() if k.startswith("go/"))
        methods = sorted(set(re.findall(r"func \(q \*Queries\) (Case\d+)\(ctx context\.Context[,)]", queries)))
        (mod / "e2e").mkdir()
        (mod / "e2e" / "sample_test.go").write_text(_go_test(methods))
        result = go_run(mod, test_args=("-count=1", "-v"), database_url=fx.url)
        line = next(x for x in result.test.stdout.splitlines() if x.startswith("RESULT "))
        results = json.loads(line[len("RESULT "):])
        _check(fx, picked, results, lambda i: f"Case{i:03d}")
    print(f"{total} MATCH cases checked through the runner")
    assert total >= 8, f"only {total} MATCH cases to sample"
