"""An insert's optional parameters for properties with a default: the runner sends the
statement that leaves an omitted one's column out, so the database applies its own DEFAULT
(issue 14; the old runners' test is tests/migrations/test_old_runner_defaults.py). No default is
copied into a query's SQL; one statement per combination, deterministic; past
``MAX_OMITTABLE`` such parameters, a missing value gets a copy of the default (warning W0008)."""

from __future__ import annotations

import re

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library
from schemac.diagnostics import CompileError
from schemac.semantics.lowering import MAX_OMITTABLE

SCHEMA = """
enum Genre { Fiction, Poetry }
type Book {
  required title: str;
  required genre: Genre { default := Genre.Fiction };
  pages: int32 { default := 100 };
}
type Tick { n: int32 { default := 1 }; s: str { default := 'x' }; }
"""


def _plans(queries):
    sources = {"l/schema.esdl": SCHEMA, **{f"l/queries/{k}.edgeql": v for k, v in queries.items()}}
    return {q.name: q for q in check_library(sources, Options(library="l")).queries}


def test_each_combination_of_omitted_parameters_is_a_statement_without_the_columns():
    q = _plans({"add_book": "insert Book { title := <str>$title, genre := <optional Genre>$genre, "
                            "pages := <optional int32>$pages };"})["add_book"]
    assert "COALESCE" not in q.sql and "Fiction" not in q.sql and "100" not in q.sql
    assert [(v.omitted, v.sent) for v in q.variants] == [((), (1, 2, 3)), ((2,), (1, 3)), ((3,), (1, 2)),
                                                          ((2, 3), (1,))]
    assert q.sql == q.variants[0].sql
    assert q.variants[1].sql == 'INSERT INTO "book" ("title", "pages")\nVALUES ($1, $2::integer)\nRETURNING "id"'
    assert q.variants[3].sql == 'INSERT INTO "book" ("title")\nVALUES ($1)\nRETURNING "id"'


def test_a_query_without_omittable_parameters_has_one_statement():
    q = _plans({"add": "insert Book { title := <str>$title, pages := <int32>$pages };"})["add"]
    assert q.variants == () and "$2" in q.sql


def test_bulk_inserts_leave_the_column_out_of_the_select_list(pg):
    plans = _plans({"ticks": "for t in array_unpack(<array<str>>$ts) union (insert Tick { n := <optional int32>$n });"})
    q = plans["ticks"]
    assert [v.sent for v in q.variants] == [(1, 2), (1,)]
    # Every value left out: a row of defaults per element (an empty select list), not one row.
    assert q.variants[1].sql == 'INSERT INTO "tick"\nSELECT\nFROM unnest($1::text[]) AS "_batch"("t")\nRETURNING "id"'
    out = compile_library({"l/schema.esdl": SCHEMA}, Options(library="l"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute("ALTER TABLE tick ALTER COLUMN n SET DEFAULT 42")  # a later migration's default
    # (psycopg's placeholders are %s, bound in the order they occur: each parameter is used once)
    assert len(pg.execute(re.sub(r"\$[0-9]+", "%s", q.variants[1].sql), (["a", "b", "c"],))) == 3
    assert len(pg.execute(re.sub(r"\$[0-9]+", "%s", q.variants[0].sql), (5, ["d"]))) == 1
    assert pg.execute("SELECT n, count(*) FROM tick GROUP BY n ORDER BY n") == [(5, 1), (42, 3)]


def test_the_runners_choose_the_statement_by_the_omitted_parameters():
    sources = {"l/schema.esdl": SCHEMA,
               "l/queries/add_book.edgeql": "insert Book { title := <str>$title, genre := <optional Genre>$genre };"}
    out = compile_library(sources, Options(library="l"))
    ts, go = out["ts/queries.ts"], out["go/queries.go"]
    assert "const addBookStatements: ReadonlyArray<readonly [string, readonly number[]]> = [\n  [addBookSql, [0, 1]]," in ts
    assert "addBookStatements[(args.genre == null ? 1 : 0)]!" in ts
    assert "var addBookStatements = [...]struct {" in go and "\t{addBookSQL, []int{0, 1}},\n" in go
    assert "\tif arg.Genre == nil {\n\t\tomitted |= 1\n\t}\n" in go
    assert "q.db.QueryRow(ctx, statement.sql, sent...)" in go
    again = compile_library(sources, Options(library="l"))
    assert again == out  # deterministic
    sql_nulls = compile_library(sources, Options(library="l", go_driver="database/sql"))["go/queries.go"]
    assert "\tif !arg.Genre.Valid {\n" in sql_nulls


def test_past_the_limit_a_missing_value_gets_a_copy_of_the_default_with_a_warning(pg):
    n = MAX_OMITTABLE + 2
    props = "".join(f"  p{i}: int32 {{ default := {i} }};\n" for i in range(n))
    sets = ", ".join(f"p{i} := <optional int32>$p{i}" for i in range(n))
    sources = {"l/schema.esdl": f"type Wide {{\n{props}}}\n", "l/queries/add_wide.edgeql": f"insert Wide {{ {sets} }};\n"}
    lib = check_library(sources, Options(library="l"))
    [w] = [d for d in lib.warnings if d.code == "W0008"]
    col = sets.index(f"p{MAX_OMITTABLE} :=") + len("insert Wide { ") + 1
    assert (w.span.file, w.span.line, w.span.col) == ("l/queries/add_wide.edgeql", 1, col) and w.hint
    [q] = lib.queries
    assert len(q.variants) == 1 << MAX_OMITTABLE
    # the first MAX_OMITTABLE are left out, the rest always sent and COALESCEd with a copy
    last = q.variants[-1]
    assert last.omitted == tuple(range(1, MAX_OMITTABLE + 1))
    assert [f'"p{i}"' in last.sql.split("VALUES")[0] for i in range(n)] == [False] * MAX_OMITTABLE + [True] * 2
    assert last.sql.count("COALESCE(") == 2
    pg.execute(compile_library(sources, Options(library="l"))["sql/000001_init.up.sql"])
    pg.execute("ALTER TABLE wide ALTER COLUMN p0 SET DEFAULT 40, ALTER COLUMN p6 SET DEFAULT 46")
    pg.execute(re.sub(r"\$[0-9]+", "%s", last.sql), (None, None))
    # p0 was left out: the database's current default; p6 was sent NULL: the copy of the old one
    assert pg.execute("SELECT p0, p5, p6 FROM wide") == [(40, 5, 6)]
