"""Exclusive constraints on expressions (https://docs.geldata.com/reference/datamodel/constraints):
``constraint exclusive on (true)`` (delegated: one object per concrete subtype), ``on ((.a,
str_lower(.b)))`` and ``on (.computed)`` become unique expression indexes; what Postgres cannot
index (another object, a link, a global) is a located E0206. The tables are checked on
PostgreSQL 15 with data; the runners' typed errors in tests/e2e/test_sdl_forms_e2e.py."""

from __future__ import annotations

import psycopg
import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  abstract type Singleton { delegated constraint exclusive on (true); }
  type Prompt extending Singleton { required content: str; }
  type Notice extending Singleton { text: str; }
  type Person {
    required first: str;
    last: str;
    constraint exclusive on ((.first, str_lower(.last)));
  }
  type Code {
    required code: str;
    constraint exclusive on (str_upper(.code)) except (.code = 'x');
    constraint exclusive on (str_trim(.code));
  }
}
"""


def _diagnose(schema, queries=None):
    sources = {"lib/schema.esdl": schema}
    sources.update({f"lib/queries/{k}.edgeql": v for k, v in (queries or {}).items()})
    with pytest.raises(CompileError) as e:
        check_library(sources, Options(library="lib"))
    return [(d.code, d.message, d.span.line, d.span.col) for d in e.value.diagnostics if d.severity == "error"]


def _violation(pg, sql, params=None):
    with pytest.raises(psycopg.errors.UniqueViolation) as e:
        pg.execute(sql, params)
    return e.value.diag.constraint_name


def test_exclusives_on_expressions_on_postgres(pg):
    out = compile_library({"lib/schema.esdl": SCHEMA}, Options(library="lib"))
    sql = out["sql/schema.sql"]
    assert 'CREATE UNIQUE INDEX IF NOT EXISTS "uq_prompt_expr"\n  ON "prompt" ((true));' in sql
    assert 'ON "person" ("first", (lower(last)));' in sql
    pg.execute(sql.replace("SET LOCAL", "SET"))
    # (true), delegated: each concrete type holds one object at most, on its own
    pg.execute("INSERT INTO prompt (content) VALUES ('a')")
    assert _violation(pg, "INSERT INTO prompt (content) VALUES ('b')") == "uq_prompt_expr"
    pg.execute("INSERT INTO notice (text) VALUES (NULL)")
    assert _violation(pg, "INSERT INTO notice (text) VALUES ('n')") == "uq_notice_expr"
    # a tuple with an expression; an empty element (NULL) conflicts with nothing, as in Gel
    pg.execute("INSERT INTO person (first, last) VALUES ('Ann', 'Lee'), ('Ann', NULL), ('Ann', NULL)")
    assert _violation(pg, "INSERT INTO person (first, last) VALUES ('Ann', 'LEE')") == "uq_person_first_last_expr"
    pg.execute("INSERT INTO person (first, last) VALUES ('ann', 'LEE')")
    # partial (except), and a second constraint on expressions of the same column: a digest
    # tells it apart
    pg.execute("INSERT INTO code (code) VALUES ('ab'), ('x')")
    assert _violation(pg, "INSERT INTO code (code) VALUES ('AB')") == "uq_code_code_expr"
    name = _violation(pg, "INSERT INTO code (code) VALUES (' x ')")  # exempt from the first
    assert name.startswith("uq_code_code_expr_") and len(name) == len("uq_code_code_expr_") + 8


def test_the_runners_name_a_typed_error_per_expression_constraint():
    out = compile_library({"lib/schema.esdl": SCHEMA}, Options(library="lib"))
    assert 'case "uq_prompt_expr":' in out["ts/errors.ts"]
    assert "class UqPersonFirstLastExprError extends ExclusiveViolationError" in out["ts/errors.ts"]
    assert "Person: duplicate (\\\"first\\\", (lower(last)))" in out["ts/errors.ts"]
    assert "type UqNoticeExprError struct" in out["go/errors.go"]


def test_an_exclusive_on_an_expression_pins_no_object():
    """Gel infers no cardinality from an exclusive on expressions: ``select Prompt`` is a set and
    a filter on the properties an expression reads does not make one object."""
    from schemac.pipeline import check_library

    lib = check_library({"lib/schema.esdl": SCHEMA,
                         "lib/queries/prompts.edgeql": "select Prompt { content };",
                         "lib/queries/person.edgeql":
                             "select Person { first } filter .first = <str>$f and .last = <str>$l;"},
                        Options(library="lib"))
    assert {q.name: q.cardinality for q in lib.queries} == {"prompts": "many", "person": "many"}


@pytest.mark.parametrize("expr, message", [
    ("(.friend.first)", "an exclusive constraint on an expression that reads other objects, links, globals or "
                        "parameters is not supported"),
    ("(count(.pals))", "an exclusive constraint on an expression that reads other objects, links, globals or "
                       "parameters is not supported"),
    ("((.first, .first))", "'first' appears twice in the exclusive constraint"),
])
def test_what_cannot_be_indexed_is_refused_where_it_is_written(expr, message):
    schema = ("type P { required first: str; friend: P; multi pals: P;\n"
              f"  constraint exclusive on {expr}; }}")
    diags = _diagnose(schema)
    assert [(c, m) for c, m, _, _ in diags] == [("E0206" if "not supported" in message else "E0205", message)]
    assert diags[0][2] == 2


def test_a_duplicate_exclusive_on_the_same_expression():
    diags = _diagnose("type P { required a: str; constraint exclusive on (str_lower(.a));\n"
                      "  constraint exclusive on (str_lower(.a)); }")
    assert diags == [("E0200", "duplicate exclusive constraint on ((lower(a)))", 2, 3)]
