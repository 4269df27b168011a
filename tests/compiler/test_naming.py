"""The naming layer (schemac.semantics.naming, docs/language.md "Naming"): every example of issue 13
either builds (SQL applies on Postgres 15, tsc --strict, gofmt -l empty, go vet) or is
refused with a located error naming both sources.

The libraries that must build are checked together (one tsc and one go vet run,
tests/compiler/build_check.py); the end-to-end tests at the bottom run a renamed query and enum
through both runners on Postgres."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import Dict, Tuple

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library
from schemac.diagnostics import CompileError

sys.path.insert(0, str(Path(__file__).parent))
from build_check import check_batch, tools_available  # noqa: E402

USER = "type User { required name: str; }\n"

#: name -> (sources, library): each must compile and build.
BUILDS: Dict[str, Tuple[Dict[str, str], str]] = {
    "delete_and_new_queries": ({
        "s.esdl": USER,
        "q/delete.edgeql": "delete User filter .id = <uuid>$id;",
        "q/new.edgeql": "insert User { name := <str>$name };",
        "q/default.edgeql": "select User { name };",
        "q/function.edgeql": "select User { name } filter .name = <str>$class;",
    }, "t"),
    "enums_named_like_ts_globals": ({
        "s.esdl": "enum Error { A, B }\nenum Promise { X }\nenum Object { O }\nenum string { s }\n"
                  "type User { e: Error; p: Promise; o: Object; s: string; }",
        "q/q.edgeql": "select User { e, p, o, s };",
        "q/add.edgeql": "insert User { e := <Error>$e, p := Promise.X };",
        "q/one.edgeql": "select User { e } filter .id = <uuid>$id;",
    }, "t"),
    "types_and_enums_named_like_the_go_runner": ({
        "s.esdl": "type Queries { n: str; }\ntype Runner { n: str; }\ntype DBTX { n: str; }\n"
                  "enum New { A }\nenum DBTX2 { B }\nenum Runner2 { C }\nenum context { c }\nenum error { e }\n"
                  "type T { x: New; c: context; e: error; }",
        "q/q.edgeql": "select Queries { n };",
        "q/t.edgeql": "select T { x, c, e } filter .x = <New>$x;",
        "q/add.edgeql": "insert T { x := New.A, c := <context>$c };",
    }, "t"),
    "queries_named_like_the_ts_runner": ({
        "s.esdl": USER,
        "q/run.edgeql": "select User { name };",
        "q/create_runner.edgeql": "select User { name };",
        "q/translate_error.edgeql": "select User { name } filter .id = <uuid>$id;",
        "q/queryable.edgeql": "select User { name };",
        "q/is_pool.edgeql": "select User { name };",
    }, "t"),
    "library_named_type": ({"s.esdl": USER, "q/q.edgeql": "select User { name };"}, "type"),
    "library_named_go": ({"s.esdl": USER, "q/q.edgeql": "select User { name };"}, "go"),
    "library_named_main": ({"s.esdl": USER, "q/q.edgeql": "select User { name };"}, "main"),
    "library_without_queries": ({"s.esdl": "enum E { A }\ntype User { required name: str; e: E; }"}, "t"),
    "doc_comments_gofmt_rewrites": ({
        "s.esdl": "type User { required name: str { constraint one_of(\"it's\", \"``x''\") }; }",
        "q/q.edgeql": "# It''s the ``user's'' name\n#   indented line\n#\n#\n#  - not a list\n"
                      "# [link]: https://example.com\n#\tx\nselect User { name };",
    }, "t"),
    "initialisms_follow_go": ({
        "s.esdl": "type Book { required isbn: str; sku: str; owner_url: str; }",
        "q/q.edgeql": "select Book { isbn, sku, owner_url } filter .isbn = <str>$isbn;",
    }, "t"),
    "enum_members_outside_ascii": ({
        "s.esdl": "enum Saison { 'été', 'hiver', '日本', 'in progress', '1st' }\ntype S { s: Saison; }",
        "q/q.edgeql": "select S { s };",
    }, "t"),
    "shape_field_named_like_a_type": ({
        "s.esdl": "type O { n: str; }\ntype T { link author -> O; n: str; }",
        "q/get.edgeql": "select T { n, author: { n } };",
    }, "t"),
}

LONG_TYPE_A = "Order" + "x" * 60 + "A"
LONG_TYPE_B = "Order" + "x" * 60 + "B"
LONG_PROP = "p" * 63
LONG_LINK = "l" * 60
LONG_NAMES = {
    "s.esdl": (
        f"type {LONG_TYPE_A} {{ {LONG_PROP}: str; q: int64; multi link {'tags' * 15} -> {LONG_TYPE_B}; }}\n"
        f"type {LONG_TYPE_B} {{ required name: str; link {LONG_LINK} -> {LONG_TYPE_A}; }}\n"
        "module very_long_module_name_for_the_billing_department_of_the_company {\n"
        "  type InvoiceLineItemWithAVeryLongDescriptiveName { total: int64; }\n"
        "}\n"
    ),
    "q/add_a.edgeql": f"insert {LONG_TYPE_A} {{ {LONG_PROP} := <str>$p, q := <int64>$q }};",
    "q/add_b.edgeql": (f"insert {LONG_TYPE_B} {{ name := <str>$name, "
                       f"{LONG_LINK} := (select {LONG_TYPE_A} filter .id = <uuid>$a) }};"),
    "q/list_b.edgeql": f"select {LONG_TYPE_B} {{ name, {LONG_LINK}: {{ {LONG_PROP}, q }} }} order by .name;",
    "q/list_b_flat.edgeql": f"select {LONG_TYPE_B} {{ name, {LONG_LINK}: {{ id }} }};",
    "q/list_a.edgeql": f"select {LONG_TYPE_A} {{ {LONG_PROP}, q }};",
}
BUILDS["identifiers_of_63_bytes_and_longer"] = (LONG_NAMES, "t")

#: name -> (sources, library, code, file, line, words the message must hold)
REFUSED = {
    "query_names_collide_after_camel_casing": (
        {"s.esdl": USER, "q/get_user2.edgeql": "select User { name };", "q/get_user_2.edgeql": "select User { name };"},
        "t", "E0213", "q/get_user_2.edgeql", 1, ["get_user_2", "get_user2", "getUser2", "q/get_user2.edgeql:1:1"]),
    "query_names_collide_in_go_only": (
        {"s.esdl": USER, "q/get_url.edgeql": "select User { name };", "q/get_u_r_l.edgeql": "select User { name };"},
        "t", "E0213", "q/get_url.edgeql", 1, ["get_url", "get_u_r_l", "GetURL", "Go"]),
    "parameters_collide_in_go": (
        {"s.esdl": USER, "q/q.edgeql": "select User { name } filter .name = <str>$isbn_code or .name = <str>$isbnCode;"},
        "t", "E0213", "q/q.edgeql", 1, ["$isbn_code", "$isbnCode", "ISBNCode", "q/q.edgeql:1:"]),
    "enum_members_collide_in_go": (
        {"s.esdl": "enum E { 'a b', a_b }\ntype T { e: E; }"},
        "t", "E0213", "s.esdl", 1, ["'a b'", "'a_b'", "EAB"]),
    "enum_member_collides_with_a_query_type": (
        {"s.esdl": "enum Status { Row, Other }\ntype T { s: Status; }", "q/status.edgeql": "select T { s };"},
        "t", "E0213", "q/status.edgeql", 1, ["member 'Row'", "query 'status'", "StatusRow"]),
    "property_name_over_63_bytes": (
        {"s.esdl": "type T {\n  " + "p" * 64 + ": str;\n}"},
        "t", "E0214", "s.esdl", 2, ["p" * 64, "63-byte"]),
    "link_whose_column_would_exceed_63_bytes": (
        {"s.esdl": "type O { n: str; }\ntype T {\n  link " + "l" * 61 + " -> O;\n}\ntype U extending T { }"},
        "t", "E0214", "s.esdl", 3, ["l" * 61 + "_id", "63-byte"]),
    # '__proto__' as an object key sets the prototype: a query given { __proto__: "alice" } ran
    # with another value and found nothing (tsc --strict clean; found by hand on Postgres 15).
    "parameter_named_proto": (
        {"s.esdl": USER, "q/q.edgeql": "select User { name }\nfilter .name = <str>$__proto__;"},
        "t", "E0213", "q/q.edgeql", 2, ["$__proto__", "prototype"]),
    "result_field_named_proto": (
        {"s.esdl": "type T { __proto__: str; n: T; }", "q/q.edgeql": "select T { n: { __proto__ } };"},
        "t", "E0213", "q/q.edgeql", 1, ["result field '__proto__'", "prototype"]),
    "enum_member_named_proto": (
        {"s.esdl": "type T { e: E; }\nscalar type E extending enum<a, `__proto__`>;"},
        "t", "E0213", "s.esdl", 2, ["member '__proto__'", "prototype"]),
    "link_then_property_of_its_column": (
        {"s.esdl": "type O { n: str; }\ntype T {\n  link owner -> O;\n  owner_id: str;\n}"},
        "t", "E0207", "s.esdl", 4, ["owner_id", "link 'owner'"]),
    "property_then_link_of_its_column": (
        {"s.esdl": "type O { n: str; }\ntype T {\n  owner_id: str;\n  link owner -> O;\n}"},
        "t", "E0207", "s.esdl", 4, ["owner_id", "link 'owner'"]),
}


def _compile(sources, library):
    return compile_library(sources, Options(library=library))


def test_every_example_builds(database_url):
    missing = tools_available()
    if missing:
        pytest.skip(missing)
    names = list(BUILDS)
    outputs = [_compile(*BUILDS[n]) for n in names]
    failures = check_batch(outputs, database_url)
    assert not failures, "\n\n".join(f"== {names[i] if i >= 0 else '?'}\n" + "\n".join(m)
                                      for i, m in sorted(failures.items()))


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_collisions_are_refused_with_both_sources(case):
    sources, library, code, file, line, words = REFUSED[case]
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library=library))
    found = [d for d in exc.value.diagnostics if d.code == code]
    assert found, exc.value.diagnostics
    d = found[0]
    assert d.span is not None and (d.span.file, d.span.line) == (file, line), d
    for w in words:
        assert w in d.message, (w, d.message)


def test_reserved_names_get_a_trailing_underscore():
    out = _compile(*BUILDS["delete_and_new_queries"])
    ts = out["ts/queries.ts"]
    assert "export async function delete_(db: Queryable, args: DeleteArgs)" in ts
    assert "export async function new_(" in ts and "export async function default_(" in ts
    # the runner's key is the name as it is: a property name may be a reserved word
    assert "delete: (args) => delete_(db, args)," in out["ts/index.ts"]
    assert "func (q *Queries) Delete(ctx context.Context" in out["go/queries.go"]
    assert "func (q *Queries) New(ctx context.Context" in out["go/queries.go"]
    out = _compile(*BUILDS["enums_named_like_ts_globals"])
    assert "export const Error_ = {" in out["ts/models.ts"] and "export type string_ =" in out["ts/models.ts"]
    assert "type Error string" in out["go/models.go"]  # not reserved in Go
    out = _compile(*BUILDS["types_and_enums_named_like_the_go_runner"])
    assert "type New_ string" in out["go/models.go"] and "type context_ string" in out["go/models.go"]
    assert "type error_ string" in out["go/models.go"]
    assert "export const New = {" in out["ts/models.ts"]  # not reserved in TypeScript
    out = _compile(*BUILDS["queries_named_like_the_ts_runner"])
    assert "export async function run_(" in out["ts/queries.ts"]
    assert "export async function createRunner_(" in out["ts/queries.ts"]
    assert "export async function translateError_(" in out["ts/queries.ts"]


def test_go_package_of_a_keyword_library_and_explicit_keywords():
    assert "package typedb\n" in _compile(*BUILDS["library_named_type"])["go/db.go"]
    assert "package godb\n" in _compile(*BUILDS["library_named_go"])["go/db.go"]
    assert "package maindb\n" in _compile(*BUILDS["library_named_main"])["go/db.go"]
    with pytest.raises(CompileError) as exc:
        check_library({"s.esdl": USER}, Options(library="x", go_package="func"))
    assert [d.code for d in exc.value.diagnostics] == ["E0308"]


@pytest.mark.parametrize("library", ['x"\nDROP TABLE users; --', "a\\b", "a*/b", "tab\there", "ls\u2028x"])
def test_library_names_that_would_break_out_of_headers_are_refused(library):
    with pytest.raises(CompileError) as exc:
        check_library({"s.esdl": USER}, Options(library=library, go_package="x"))
    assert [d.code for d in exc.value.diagnostics] == ["E0308"]
    assert "library name" in exc.value.diagnostics[0].message


def test_go_doc_comments_are_gofmt_stable():
    out = _compile(*BUILDS["doc_comments_gofmt_rewrites"])["go/queries.go"]
    assert "// It\u201ds the \u201cuser's\u201d name\n// indented line\n//\n// - not a list\n// [link] : https" in out
    assert "''" not in out.split("const qSQL")[0]


def test_go_initialisms():
    out = _compile(*BUILDS["initialisms_follow_go"])["go/queries.go"]
    assert "\tISBN     string  `json:\"isbn\"`\n\tSKU      *string `json:\"sku\"`\n\tOwnerURL *string `json:\"owner_url\"`\n" in out
    assert "arg.ISBN" in out


def test_a_library_without_queries_imports_nothing_in_queries_go():
    out = _compile(*BUILDS["library_without_queries"])
    assert "import" not in out["go/queries.go"]


def _write(out: Dict[str, str], root: Path) -> Path:
    for rel, text in out.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


RENAMED = {
    "s.esdl": "enum Error { Minor, Major }\nenum Queries { Q }\ntype Item { required name: str; level: Error; q: Queries; }",
    "q/delete.edgeql": "delete Item filter .id = <uuid>$id;",
    "q/new.edgeql": "insert Item { name := <str>$name, level := <Error>$level };",
    "q/run.edgeql": "select Item { name, level } order by .name;",
}

TS_MAIN = """\
import assert from "node:assert/strict";
import pg from "pg";

import * as nm from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = nm.createRunner(pool).query;
  const made = await q.new({ name: "a", level: nm.Error_.Major });
  await q.new({ name: "b", level: "Minor" });
  assert.deepEqual(await q.run({}), [{ name: "a", level: "Major" }, { name: "b", level: "Minor" }]);
  const gone = await q.delete({ id: made.id });
  assert.equal(gone?.id, made.id);
  assert.equal((await nm.run_(pool, {})).length, 1);
  // the global Error is still the global one
  assert.ok(new Error("x") instanceof Error);
  console.log(JSON.stringify({ renamed: true }));
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

	nm "schemactest/nm"
)

func TestRenamed(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := nm.New(db).Query
	made, err := q.New(ctx, nm.NewParams{Name: "a", Level: nm.ErrorMajor})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := q.Run(ctx, nm.RunParams{})
	if err != nil || len(rows) != 1 || rows[0].Level == nil || *rows[0].Level != nm.ErrorMajor {
		t.Fatalf("run: %#v %v", rows, err)
	}
	gone, err := q.Delete(ctx, nm.DeleteParams{ID: made.ID})
	if err != nil || gone == nil || gone.ID != made.ID {
		t.Fatalf("delete: %#v %v", gone, err)
	}
	if !nm.Queries_Q.Valid() || nm.AllQueries_Values()[0] != "Q" {
		t.Fatal("enum Queries")
	}
}
"""


@pytest.mark.slow
def test_renamed_names_behave_in_typescript(pg, tsc_run, tmp_path):
    out = _compile(RENAMED, "nm")
    pg.execute(out["sql/000001_init.up.sql"])
    src = tmp_path / "src"
    gen = {k[len("ts/"):]: v for k, v in out.items() if k.startswith("ts/")}
    _write(gen, src / "gen")
    (src / "main.ts").write_text(TS_MAIN)
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"renamed": True}


@pytest.mark.slow
def test_renamed_names_behave_in_go(pg, go_run, tmp_path):
    out = _compile(RENAMED, "nm")
    pg.execute(out["sql/000001_init.up.sql"])
    mod = tmp_path / "mod"
    _write({k[len("go/"):]: v for k, v in out.items() if k.startswith("go/")}, mod / "nm")
    (mod / "e2e").mkdir()
    (mod / "e2e" / "renamed_test.go").write_text(GO_TEST)
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestRenamed" in result.test.stdout


def test_long_names_are_shortened_and_rows_keep_their_names(pg):
    """Tables and join tables over 63 bytes get a digest instead of Postgres' silent cut (two
    long names sharing 63 bytes stay apart); the columns a query returns are named as the TS
    result keys and Go fields say (Postgres would cut a longer alias)."""
    from schemac.semantics.sqlnames import short_identifier

    out = _compile(LONG_NAMES, "t")
    up = out["sql/000001_init.up.sql"]
    a, b = short_identifier("order" + "x" * 60 + "_a"), short_identifier("order" + "x" * 60 + "_b")
    assert a != b and len(a) == len(b) == 63 and a[:54] == b[:54]
    assert f'CREATE TABLE "{a}"' in up and f'CREATE TABLE "{b}"' in up
    pg.execute(up)
    tables = {r[0] for r in pg.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert {a, b} <= tables and len(tables) == 4
    plans = {q.name: q for q in check_library(LONG_NAMES, Options(library="t")).queries}
    a_id = pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plans["add_a"].sql), {"p1": "x", "p2": 7})[0][0]
    pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plans["add_b"].sql), {"p1": "b", "p2": a_id})
    for name in ("list_a", "list_b", "list_b_flat"):
        with pg.conn.cursor() as cur:
            cur.execute(plans[name].sql)
            columns = [d.name for d in cur.description]
            rows = cur.fetchall()
        assert columns == [f.name for f in plans[name].result], name
        assert rows, name
    with pg.conn.cursor() as cur:
        cur.execute(plans["list_b"].sql)
        assert cur.fetchone()[1] == {LONG_PROP: "x", "q": "7"}


def test_the_reserved_names_hold_every_top_level_name_of_the_runner_templates():
    """A name a template declares at the top level (the runner's own) must be reserved, or a
    declaration of the same name would redeclare it (kept in step as the templates grow)."""
    from schemac.semantics.naming import GO_TAKEN, TS_TAKEN

    templates = Path(__file__).resolve().parents[2] / "pants-plugins" / "schemac" / "templates"
    go_decl = re.compile(r"^(?:func|type|var|const) ([A-Za-z_]\w*)", re.M)
    ts_decl = re.compile(r"^(?:export )?(?:async )?(?:function|class|interface|type|const) ([A-Za-z_$][\w$]*)", re.M)
    missing = []
    for path in sorted(templates.glob("*.go.j2")):
        missing += [(path.name, n) for n in go_decl.findall(path.read_text()) if n not in GO_TAKEN]
    for path in sorted(templates.glob("*.ts.j2")):
        missing += [(path.name, n) for n in ts_decl.findall(path.read_text()) if n not in TS_TAKEN]
    assert not missing


def test_an_update_that_can_only_leave_a_partial_constraint_does_not_list_it():
    """@throws / the Go doc list the exclusive constraints a statement can violate: moving a row
    off a partial constraint's predicate (Pending -> Running) cannot make a duplicate."""
    schema = ("enum S { Pending, Running }\ntype Job { required name: str; status: S;\n"
              "  constraint exclusive on (.name) filter .status = S.Pending; }")
    qs = {"q/claim.edgeql": "update Job filter .id = <uuid>$id set { status := S.Running };",
          "q/requeue.edgeql": "update Job filter .id = <uuid>$id set { status := S.Pending };",
          "q/rename.edgeql": "update Job filter .id = <uuid>$id set { name := <str>$n, status := S.Running };",
          "q/set_status.edgeql": "update Job filter .id = <uuid>$id set { status := <S>$s };"}
    plans = {q.name: [e.name for e in q.exclusives]
             for q in check_library({"s.esdl": schema, **qs}, Options(library="t")).queries}
    assert plans == {"claim": [], "requeue": ["uq_job_name"], "rename": ["uq_job_name"], "set_status": ["uq_job_name"]}
    ts = _compile({"s.esdl": schema, **qs}, "t")["ts/queries.ts"]
    claim = ts[ts.index("export const claimSql"):ts.index("export async function claim(")]
    assert "@throws" not in claim
