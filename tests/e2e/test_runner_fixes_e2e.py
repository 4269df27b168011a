"""Runner fixes of issue 13, end to end on Postgres 15 through node-postgres and pgx:

* a nested ``transaction()`` in TypeScript is a savepoint: an inner failure rolls back only the
  inner work, and only the outer transaction commits (an outer failure after a successful inner
  transaction leaves nothing);
* a timestamp inside a nested shape is a ``Date`` in TypeScript, as at the top level;
* a query without parameters is called without ``{}`` (TS) or a Params struct (Go), and the old
  forms still compile;
* Go's typed errors do not panic on a nil wrapped error;
* Go rows and nested shapes carry the same JSON tags.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import compile_library

SOURCES = {
    "rf/schema.esdl": (
        "type Owner { required name: str { constraint exclusive; }; seen: datetime; }\n"
        "type Item { required label: str; required link owner -> Owner; made: datetime; count: int64; }\n"
    ),
    "rf/queries/add_owner.edgeql": "insert Owner { name := <str>$name, seen := <datetime>$seen };",
    "rf/queries/add_item.edgeql": (
        "insert Item { label := <str>$label, owner := (select Owner filter .id = <uuid>$owner), "
        "made := <datetime>$made, count := <int64>$count };"
    ),
    "rf/queries/list_owners.edgeql": "select Owner { name, seen } order by .name;",
    "rf/queries/list_items.edgeql": "select Item { label, made, count, owner: { name, seen } } order by .label;",
}


def _compiled() -> Dict[str, str]:
    return compile_library(SOURCES, Options(library="rf"))


def _write(files: Dict[str, str], root: Path, prefix: str) -> None:
    for rel, text in files.items():
        if rel.startswith(prefix):
            p = root / rel[len(prefix):]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as rf from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const seen = new Date("2024-05-06T07:08:09.123Z");
try {
  const runner = rf.createRunner(pool);
  // an inner failure rolls back the inner work only
  await runner.transaction(async (tx) => {
    await tx.query.addOwner({ name: "outer", seen });
    await assert.rejects(
      tx.transaction(async (inner) => {
        await inner.query.addOwner({ name: "inner", seen });
        throw new Error("inner fails");
      }),
      /inner fails/,
    );
    // the transaction goes on after the savepoint's rollback
    await tx.query.addOwner({ name: "after", seen });
  });
  assert.deepEqual((await runner.query.listOwners()).map((o) => o.name), ["after", "outer"]);
  // an outer failure after a successful inner transaction leaves nothing: the inner one did not commit
  await assert.rejects(
    runner.transaction(async (tx) => {
      await tx.transaction(async (inner) => {
        await inner.query.addOwner({ name: "nested", seen });
        await inner.transaction(async (deeper) => {
          await deeper.query.addOwner({ name: "deeper", seen });
        });
      });
      throw new Error("outer fails");
    }),
    /outer fails/,
  );
  assert.deepEqual((await rf.listOwners(pool)).map((o) => o.name), ["after", "outer"]);
  // a duplicate inside a savepoint is the typed error, and the outer transaction survives it
  await runner.transaction(async (tx) => {
    await assert.rejects(
      tx.transaction((inner) => inner.query.addOwner({ name: "outer", seen })),
      rf.UqOwnerNameError,
    );
    await tx.query.addOwner({ name: "z", seen });
  });
  // no-parameter queries: no {} needed, the old form still works
  assert.equal((await runner.query.listOwners({})).length, 3);
  const owner = (await runner.query.listOwners())[0];
  assert.ok(owner?.seen instanceof Date);
  // a timestamp in a nested shape is a Date too
  const ownerRow = await pool.query("SELECT id FROM owner WHERE name = 'outer'");
  await runner.query.addItem({ label: "a", owner: ownerRow.rows[0].id, made: seen, count: 7 });
  const [item] = await runner.query.listItems();
  assert.ok(item?.made instanceof Date && item.made.getTime() === seen.getTime());
  assert.ok(item?.owner.seen instanceof Date, `nested seen is ${typeof item?.owner.seen}`);
  assert.equal(item?.owner.seen?.getTime(), seen.getTime());
  console.log(JSON.stringify({ runnerFixes: true }));
} finally {
  await pool.end();
}
"""

GO_TEST = """\
package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	rf "schemactest/rf"
)

func keys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestRunnerFixes(t *testing.T) {
	// typed errors with no driver error do not panic
	var e error = &rf.UqOwnerNameError{}
	if e.Error() == "" || errors.Unwrap(e) != nil || !errors.Is(e, rf.ErrExclusiveViolation) {
		t.Fatalf("nil-wrapped error: %q %v", e.Error(), errors.Unwrap(e))
	}
	_ = fmt.Sprintf("%v %+v", e, &rf.NotNullViolationError{Table: "t", Column: "c"})
	var nn error = &rf.NotNullViolationError{Table: "t", Column: "c"}
	if nn.Error() != "t.c is required" || errors.Unwrap(nn) != nil {
		t.Fatalf("not null: %q", nn.Error())
	}

	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, table := range []string{"item", "owner"} { // (go_run runs the test with two Go toolchains)
		if _, err := db.Exec(ctx, "DELETE FROM "+table); err != nil {
			t.Fatal(err)
		}
	}
	q := rf.New(db).Query
	seen := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	o, err := q.AddOwner(ctx, rf.AddOwnerParams{Name: "o", Seen: seen})
	if err != nil {
		t.Fatal(err)
	}
	_, err = q.AddOwner(ctx, rf.AddOwnerParams{Name: "o", Seen: seen})
	var dup *rf.UqOwnerNameError
	if !errors.As(err, &dup) || dup.Err == nil || errors.Unwrap(dup) == nil {
		t.Fatalf("duplicate: %v", err)
	}
	var count int64 = 7
	if _, err := q.AddItem(ctx, rf.AddItemParams{Label: "a", Owner: o.ID, Made: seen, Count: count}); err != nil {
		t.Fatal(err)
	}
	// no-parameter queries: with or without the empty Params struct
	owners, err := q.ListOwners(ctx)
	if err != nil || len(owners) != 1 {
		t.Fatalf("owners: %v %v", owners, err)
	}
	if again, err := q.ListOwners(ctx, rf.ListOwnersParams{}); err != nil || len(again) != 1 {
		t.Fatalf("owners (old form): %v %v", again, err)
	}
	items, err := q.ListItems(ctx)
	if err != nil || len(items) != 1 || !items[0].Owner.Seen.Equal(seen) || !items[0].Made.Equal(seen) {
		t.Fatalf("items: %#v %v", items, err)
	}
	// the same JSON tags in rows and nested shapes
	if got := keys(t, owners[0]); !reflect.DeepEqual(got, []string{"name", "seen"}) {
		t.Fatalf("row keys %v", got)
	}
	if got := keys(t, items[0].Owner); !reflect.DeepEqual(got, []string{"name", "seen"}) {
		t.Fatalf("nested keys %v", got)
	}
	if got := keys(t, items[0]); !reflect.DeepEqual(got, []string{"count", "label", "made", "owner"}) {
		t.Fatalf("item keys %v", got)
	}
}
"""


@pytest.mark.slow
def test_typescript_runner_fixes(pg, tsc_run, tmp_path):
    out = _compiled()
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write(out, src / "gen", "ts/")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"runnerFixes": True}


@pytest.mark.slow
def test_go_runner_fixes(pg, go_run, tmp_path):
    out = _compiled()
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write(out, mod / "rf", "go/")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "fixes_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestRunnerFixes" in result.test.stdout
