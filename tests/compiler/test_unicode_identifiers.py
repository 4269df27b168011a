"""Names with letters beyond ASCII (was E0100 "unexpected character"): Gel's lexer reads a name
that starts with ``_`` or a letter (Rust's ``char::is_alphabetic``) and goes on with ``_``,
letters and digits (``char::is_alphanumeric``), geldata/gel edb/edgeql-parser/src/tokenizer.rs;
https://docs.geldata.com/reference/edgeql/lexical#identifiers. So ``type Ñandú { nämé: str;
größe: int64; 名前: str; }`` is a schema, ``$größe`` a parameter, and a keyword followed by such
a letter is one name (``filterä``, as ``filterr``). Proven on PostgreSQL 15 with data (the tables
and columns are the names, quoted), through the TypeScript and pgx runners (their names are the
words of the name: ``Größe``, ``X名前`` in Go, which exports only names starting with an
upper-case letter), and kept as written by ``schemac fmt``.
"""

from __future__ import annotations

import json

import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.fmt import format_source
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options
from schemac.semantics.names import go_name, ts_camel, ts_pascal

SCHEMA = """\
module default {
  type Ñandú {
    required nämé: str;
    größe: int64;
    名前: str;
  }
}
"""

QUERIES = {
    "add": "insert Ñandú { nämé := <str>$nämé, größe := <int64>$größe, 名前 := <str>$名前 };",
    "grandes": "select Ñandú { nämé, größe, 名前 } filter .größe > <int64>$größe order by .nämé;",
}


def _sources():
    sources = {"uni/default.gel": SCHEMA}
    sources.update({f"uni/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    return sources


def test_the_names_of_the_runners():
    assert [go_name(n) for n in ("nämé", "größe", "名前", "Ñandú", "größe_max", "añadir")] == [
        "Nämé", "Größe", "X名前", "Ñandú", "GrößeMax", "Añadir"]
    assert [ts_camel(n) for n in ("nämé", "größe_max", "añadir")] == ["nämé", "größeMax", "añadir"]
    assert [ts_pascal(n) for n in ("Ñandú", "größe_max")] == ["Ñandú", "GrößeMax"]
    # (ASCII names are named as before)
    assert (go_name("user_id"), ts_camel("enqueue_job"), ts_pascal("uq_job_name")) == ("UserID", "enqueueJob",
                                                                                          "UqJobName")


def test_a_keyword_followed_by_a_letter_is_one_name():
    sources = dict(_sources())
    sources["uni/queries/grandes.edgeql"] = "select Ñandú { nämé } filterä .nämé = 'x';"
    with pytest.raises(CompileError) as e:
        check_library(sources, Options(library="uni"))
    assert "uni/queries/grandes.edgeql:1:23: error[E0100]: unexpected 'filterä'" in e.value.render(sources)


def test_fmt_keeps_the_names():
    assert format_source("uni/default.gel", SCHEMA) == SCHEMA
    text = "select Ñandú { nämé,  größe } filter .größe > <int64>$größe;\n"
    assert format_source("uni/queries/q.edgeql", text) == "select Ñandú { nämé, größe } filter .größe > <int64>$größe;\n"


def test_on_postgres(pg):
    pg.execute(compile_library({"uni/default.gel": SCHEMA}, Options(library="uni"))["sql/000001_init.up.sql"])
    q = {p.name: p for p in check_library(_sources(), Options(library="uni")).queries}
    for args in (("b", 5, "二"), ("a", 9, "一"), ("c", 1, "三")):
        run_plan(pg, q["add"], *args)
    assert run_plan(pg, q["grandes"], 2) == [("a", 9, "一"), ("b", 5, "二")]
    assert pg.execute('SELECT count(*) FROM "ñandú" WHERE "名前" IS NOT NULL') == [(3,)]


TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as uni from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = uni.createRunner(pool).query;
  await q.add({ nämé: "b", größe: "5", 名前: "二" });
  await q.add({ nämé: "a", größe: "9", 名前: "一" });
  const rows = await q.grandes({ größe: "2" });
  assert.deepEqual(rows.map((r) => [r.nämé, r.größe, r.名前]), [["a", "9", "一"], ["b", "5", "二"]]);
  console.log(JSON.stringify({ unicodeNames: true }));
} finally {
  await pool.end();
}
"""

GO_TEST = """\
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	uni "schemactest/uni"
)

func TestUnicodeNames(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := uni.New(db).Query
	if _, err := q.Add(ctx, uni.AddParams{Nämé: "b", Größe: 5, X名前: "二"}); err != nil {
		t.Fatal(err)
	}
	rows, err := q.Grandes(ctx, uni.GrandesParams{Größe: 2})
	if err != nil || len(rows) != 1 || rows[0].Nämé != "b" || rows[0].Größe == nil || *rows[0].Größe != 5 ||
		rows[0].X名前 == nil || *rows[0].X名前 != "二" {
		t.Fatalf("grandes: %#v %v", rows, err)
	}
}
"""


def _write(files, root):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


@pytest.mark.slow
def test_through_the_typescript_runner(pg, tsc_run, tmp_path):
    out = compile_library(_sources(), Options(library="uni"))
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    _write({k[3:]: v for k, v in out.items() if k.startswith("ts/")}, src / "gen")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"unicodeNames": True}


@pytest.mark.slow
def test_through_the_go_runner(pg, go_run, tmp_path):
    out = compile_library(_sources(), Options(library="uni"))
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write({k[3:]: v for k, v in out.items() if k.startswith("go/")}, mod / "uni")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "unicode_names_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestUnicodeNames" in result.test.stdout
