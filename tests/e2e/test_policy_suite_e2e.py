"""The generated access policy suite (issue 24): every query form x link path of
:mod:`policy_suite` that the compiler accepts, run as alice (who must not see bob's secret) on
PostgreSQL 15 through the generated SQL (psycopg, parameters untyped), the TypeScript runner
(node-postgres, one program for every case) and the Go runner (pgx, one test for every case).

Each case runs twice in a transaction rolled back after: in state A (bob's secret exists and
alice's objects link it) and state B (it and every link to it deleted). Gel's rule
(https://docs.geldata.com/reference/datamodel/access_policies: an object a policy hides is as
good as absent) makes both results equal, and neither shows the secret's id or body. A query
that reads the required link ``Pin.rt`` fails in state A with Gel's error (tests/
test_edgeql_policies.py, test_edgeql_policies_05a): SQLSTATE SCP02 in SQL, a
CardinalityViolationError in both runners. The forged text ``schemac-access-policy|...`` cast to
an integer fails as any bad cast does, with no AccessPolicyError. The refused forms are listed
in the test's output (``-s``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Dict, List

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import policy_suite as ps  # noqa: E402

from schemac.semantics.names import go_name, go_string, js_string, ts_camel  # noqa: E402

LIBRARY = "polsuite"


@pytest.fixture(scope="module")
def suite():
    from schemac.pipeline import compile_library, check_library
    from schemac.semantics.library import Options

    all_cases = ps.cases()
    accepted, refused = ps.compile_cases(all_cases)
    sources = {"schema.gel": ps.SCHEMA}
    sources.update({f"queries/{c.name}.edgeql": c.query for c in accepted})
    lib = check_library(sources, Options(library=LIBRARY))
    outputs = compile_library(sources, Options(library=LIBRARY))
    print(f"\npolicy suite: {len(all_cases)} cases, {len(accepted)} compiled, {len(refused)} refused:")
    for c in all_cases:
        if c.name in refused:
            print(f"  refused {c.subject} {c.form} {c.path}: {refused[c.name][:160]}")
    return accepted, refused, {q.name: q for q in lib.queries}, outputs


def _setup(pg, outputs):
    pg.execute(outputs["sql/000001_init.up.sql"])
    pg.execute(ps.DATA)


def _outcome_sql(pg, plan, case, state) -> Dict[str, object]:
    import psycopg

    sql = plan.sql
    for p in sorted(plan.params, key=lambda p: -p.index):
        sql = sql.replace(f"${p.index}", f"%({p.name})s")
    values = {p.name: ps.ALICE if p.name.startswith("global ") else case.args[p.name] for p in plan.params}
    try:
        with pg.conn.transaction(force_rollback=True):
            if state == "B":
                for stmt in ps.STATE_B.split("; "):
                    pg.conn.execute(stmt)
            cur = pg.conn.execute(sql, values)
            rows = cur.fetchall() if cur.description is not None else []
        return {"ok": [list(r) for r in rows]}
    except psycopg.Error as e:
        return {"error": e.sqlstate, "message": e.diag.message_primary}


def _check(runner: str, accepted: List[ps.Case], results: Dict[str, Dict[str, Dict[str, object]]],
           hidden_kind: str, policy_kind: str) -> List[str]:
    """The failures of one runner's results (``{case: {state: outcome}}``)."""
    bad = []
    for c in accepted:
        got = results.get(c.name, {})
        a, b = got.get("A"), got.get("B")
        if a is None or b is None:
            bad.append(f"{runner} {c.name}: no result")
            continue
        if c.forged:
            if "error" not in a or a["error"] == policy_kind:
                bad.append(f"{runner} {c.name} forged text: {a}")
            continue
        na = ps.normalize(a)
        if "error" in a and not c.hidden_required and "foreign key" not in str(a.get("message")) \
                and "fk_" not in str(a.get("message")):
            # (the only error a case may meet: deleting a user whose secrets refer to it)
            bad.append(f"{runner} {c.name} [{c.subject} {c.form} {c.path}] {c.query} fails: {na[:300]}")
            continue
        if ps.leaks(na):
            bad.append(f"{runner} {c.name} [{c.subject} {c.form} {c.path}] shows bob's secret: {na[:300]}")
            continue
        if c.hidden_required:
            if a.get("error") != hidden_kind or a.get("message") != ps.HIDDEN_LINK:
                bad.append(f"{runner} {c.name} [{c.form} {c.path}] should fail (hidden required link): {na[:300]}")
            continue
        nb = ps.normalize(b)
        if na != nb:
            bad.append(f"{runner} {c.name} [{c.subject} {c.form} {c.path}] {c.query}\n  A: {na[:300]}\n  B: {nb[:300]}")
    return bad


def test_policy_suite_sql(pg, suite):
    accepted, refused, plans, outputs = suite
    assert len(accepted) >= 300, "the suite compiles too few forms to mean anything"
    _setup(pg, outputs)
    results = {c.name: {s: _outcome_sql(pg, plans[c.name], c, s) for s in "AB"} for c in accepted}
    bad = _check("sql", accepted, results, "SCP02", "SCP01")
    assert not bad, "\n".join(bad[:40])


def _ts_main(accepted: List[ps.Case]) -> str:
    lines = []
    for c in accepted:
        args = ", ".join(f"{k}: {json.dumps(v)}" for k, v in c.args.items())
        lines.append(f"  [{js_string(c.name)}, (r) => r.query.{ts_camel(c.name)}({{ {args} }})],")
    stmts = ", ".join(js_string(s) for s in ps.STATE_B.split("; "))
    return f"""// Generated by test_policy_suite_e2e.py: every case of the access policy suite, as alice.
import pg from "pg";

import * as lib from "./gen/index.js";

const client = new pg.Client({{ connectionString: process.env["DATABASE_URL"] }});
await client.connect();
const runner = lib.createRunner(client).withGlobals({{ cur: {js_string(ps.ALICE)} }});
const cases: [string, (r: lib.Runner) => Promise<unknown>][] = [
{chr(10).join(lines)}
];

function kind(err: unknown): string {{
  if (err instanceof lib.AccessPolicyError) return "AccessPolicyError";
  if (err instanceof lib.CardinalityViolationError) return "CardinalityViolationError";
  return "other";
}}

for (const [name, run] of cases) {{
  for (const state of ["A", "B"]) {{
    await client.query("BEGIN");
    if (state === "B") {{
      for (const stmt of [{stmts}]) await client.query(stmt);
    }}
    let line: Record<string, unknown>;
    try {{
      line = {{ case: name, state, ok: await run(runner) }};
    }} catch (err) {{
      line = {{ case: name, state, error: kind(err), message: err instanceof Error ? err.message : String(err) }};
    }}
    await client.query("ROLLBACK");
    console.log("POLSUITE " + JSON.stringify(line, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)));
  }}
}}
await client.end();
"""


def _lines(stdout: str) -> Dict[str, Dict[str, Dict[str, object]]]:
    out: Dict[str, Dict[str, Dict[str, object]]] = {}
    for line in stdout.splitlines():
        if line.startswith("POLSUITE "):
            doc = json.loads(line[len("POLSUITE "):])
            out.setdefault(doc.pop("case"), {})[doc.pop("state")] = doc
    return out


@pytest.mark.slow
def test_policy_suite_typescript(pg, suite, tsc_run, tmp_path):
    accepted, refused, plans, outputs = suite
    _setup(pg, outputs)
    src = tmp_path / "src"
    for rel, text in outputs.items():
        if rel.startswith("ts/"):
            p = src / "gen" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (src / "main.ts").write_text(_ts_main(accepted))
    result = tsc_run(src, "main.ts")
    bad = _check("ts", accepted, _lines(result.stdout), "CardinalityViolationError", "AccessPolicyError")
    assert not bad, "\n".join(bad[:40])


def _go_value(v) -> str:
    if isinstance(v, list):
        return "[]string{" + ", ".join(go_string(x) for x in v) + "}"
    return go_string(v) if isinstance(v, str) else str(v)


def _go_test(accepted: List[ps.Case]) -> str:
    lines = []
    for c in accepted:
        method = go_name(c.name)
        if c.args:
            fields = ", ".join(f"{go_name(k)}: {_go_value(v)}" for k, v in c.args.items())
            call = f"r.Query.{method}(ctx, ps.{method}Params{{{fields}}})"
        else:
            call = f"r.Query.{method}(ctx)"
        lines.append(f"\t\t{{{go_string(c.name)}, func(r *ps.Runner) (any, error) {{\n\t\t\treturn {call}\n\t\t}}}},")
    stmts = ", ".join(go_string(s) for s in ps.STATE_B.split("; "))
    return f"""// Generated by test_policy_suite_e2e.py: every case of the access policy suite, as alice.
package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	ps "schemactest/polsuite"
)

func kind(err error) string {{
	var policy *ps.AccessPolicyError
	var cardinality *ps.CardinalityViolationError
	switch {{
	case errors.As(err, &policy):
		return "AccessPolicyError"
	case errors.As(err, &cardinality):
		return "CardinalityViolationError"
	}}
	return "other"
}}

func TestPolicySuite(t *testing.T) {{
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {{
		t.Fatal(err)
	}}
	defer db.Close()
	alice := {go_string(ps.ALICE)}
	runner := ps.New(db).WithGlobals(ps.Globals{{Cur: &alice}})
	cases := []struct {{
		name string
		run  func(*ps.Runner) (any, error)
	}}{{
{chr(10).join(lines)}
	}}
	for _, c := range cases {{
		for _, state := range []string{{"A", "B"}} {{
			tx, err := db.Begin(ctx)
			if err != nil {{
				t.Fatal(err)
			}}
			if state == "B" {{
				for _, stmt := range []string{{{stmts}}} {{
					if _, err := tx.Exec(ctx, stmt); err != nil {{
						t.Fatal(err)
					}}
				}}
			}}
			line := map[string]any{{"case": c.name, "state": state}}
			if v, err := c.run(runner.WithTx(tx)); err != nil {{
				line["error"] = kind(err)
				line["message"] = err.Error()
			}} else {{
				line["ok"] = v
			}}
			if err := tx.Rollback(ctx); err != nil {{
				t.Fatal(err)
			}}
			text, err := json.Marshal(line)
			if err != nil {{
				t.Fatal(err)
			}}
			fmt.Println("POLSUITE " + string(text))
		}}
	}}
}}
"""


@pytest.mark.slow
def test_policy_suite_go(pg, suite, go_run, tmp_path):
    accepted, refused, plans, outputs = suite
    _setup(pg, outputs)
    mod = tmp_path / "mod"
    for rel, text in outputs.items():
        if rel.startswith("go/"):
            p = mod / "polsuite" / rel[3:]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
    (mod / "e2e").mkdir(parents=True)
    (mod / "e2e" / "suite_test.go").write_text(_go_test(accepted))
    result = go_run(mod, test_args=("-count=1", "-v"))
    bad = _check("go", accepted, _lines(result.test.stdout), "CardinalityViolationError", "AccessPolicyError")
    assert not bad, "\n".join(bad[:40])
