"""Gel 6's files and lexical forms (https://docs.geldata.com/reference/edgeql/lexical,
https://docs.geldata.com/reference/datamodel): ``.gel`` schema files, backtick-quoted names,
strings across lines (with line continuations), raw and dollar-quoted strings, digit groups in
numbers, ``type X extending Y;`` without a body, and a block's last member without ``;``
(also inside a link's body). Each form compiles to the SQL its plain spelling gives, and the
schema applies on Postgres and holds data."""

from __future__ import annotations

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import compile_library
from schemac.diagnostics import CompileError
from schemac.syntax.parser import parse_schema

GEL_SCHEMA = r"""module default {
  abstract type Named { required `select`: str }
  type User extending Named {
    `order by`: int64 { default := 1_000_000 };
    note: str { default := 'one \
      line' }
    poem: str { default := 'two
lines' }
    pattern: str { default := r'\d+
\w' }
    body: str { default := $$it's $1 and 'quoted'$$ }
    tagged: str { default := $x$a $$ b$x$; annotation title := $$Tagged$$ }
    ratio: float64 { default := 1_0.2_5 }
    multi link friends -> User {
      weight: float64 { default := 0.5 }
      since: datetime
    }
  }
  type Admin extending User;
  type Guest extending User
}
"""


def _sql(sources) -> str:
    return compile_library(sources, Options(library="t"))["sql/schema.sql"]


def test_gel_file_suffix_and_lexical_forms_compile():
    sql = _sql({"dbschema/default.gel": GEL_SCHEMA})
    assert '"select" text NOT NULL' in sql
    assert '"order by" bigint DEFAULT 1000000' in sql
    assert "\"note\" text DEFAULT 'one line'" in sql
    assert "\"poem\" text DEFAULT 'two\nlines'" in sql
    assert "\"pattern\" text DEFAULT '\\d+\n\\w'" in sql
    assert "\"body\" text DEFAULT 'it''s $1 and ''quoted'''" in sql
    assert "\"tagged\" text DEFAULT 'a $$ b'" in sql
    assert "\"ratio\" double precision DEFAULT 10.25" in sql
    assert 'CREATE TABLE "admin"' in sql and 'CREATE TABLE "guest"' in sql
    assert '"weight" double precision DEFAULT 0.5' in sql


def test_the_same_schema_as_esdl_gives_the_same_sql():
    assert _sql({"a/default.gel": GEL_SCHEMA}) == _sql({"a/default.esdl": GEL_SCHEMA})


def test_gel_schema_applies_and_holds_data(pg):
    pg.execute(_sql({"dbschema/default.gel": GEL_SCHEMA}))
    pg.execute('INSERT INTO "guest" ("select") VALUES (%s)', ("x",))
    row = pg.execute('SELECT "select", "order by", note, poem, pattern, body, tagged, ratio FROM "guest"')[0]
    assert row == ("x", 1000000, "one line", "two\nlines", "\\d+\n\\w", "it's $1 and 'quoted'", "a $$ b", 10.25)


@pytest.mark.parametrize(
    "schema",
    [
        "type A { a: str }",  # last member of a type
        "type A { a: str { default := 'x' } }",  # last member of a pointer body
        "type A { multi link l -> A { p: str } }",  # last member of a link body (was refused)
        
        "type A { multi link l -> A { p: str; q: int64 } };",
        "scalar type S extending str { constraint max_len_value(5) }\ntype A { s: S }",
        "type A { a: str { constraint exclusive { errmessage := 'taken' } } }",
        "type A { a: str; index on (.a) }",
        "type A { a: str; index on (.a) { annotation title := 'x' } }",
        "module default { type A { a: str } type B { b: str } }",  # block declarations need no ';'
        "type A { a: str };;; type B { b: str };",  # stray ';' are allowed
        "abstract type A { a: str }\ntype B extending A;\ntype C extending A",  # no body
        "type A {\n  a: str;\n};",
    ],
)
def test_optional_semicolons_and_short_declarations(schema):
    compile_library({"s.gel": schema}, Options(library="t"))


@pytest.mark.parametrize(
    "schema,where,message",
    [
        ("type A { a: str b: str }", "1:17", "unexpected 'b'"),  # between members ';' is needed
        ("type A extending B type C {}", "1:20", "unexpected 'type'"),
        ("type A { a: str { default := 'x\n  } }", "1:30", "unexpected character \"'\""),
    ],
)
def test_semicolons_between_short_members_are_still_required(schema, where, message):
    with pytest.raises(CompileError) as e:
        parse_schema("s.gel", schema)
    d = e.value.diagnostics[0]
    assert (f"{d.span.line}:{d.span.col}", d.message[:len(message)]) == (where, message)


def test_backtick_names_are_names_even_when_they_spell_keywords():
    f = parse_schema("s.gel", "type `type` { `required`: str; `a``b`: str; link `link` -> `type` }")
    (t,) = f.types
    assert t.name == "type"
    assert [p.name for p in t.pointers] == ["required", "a`b", "link"]
    assert t.pointers[2].type.name == "type"
    # the name's span covers the backticks
    assert (t.name_span.col, t.name_span.end_col) == (6, 12)


def test_an_escape_error_in_a_later_line_of_a_string_is_located_there():
    with pytest.raises(CompileError) as e:
        parse_schema("s.gel", "type A {\n  a: str { default := 'ok\n  then \\q' }\n}")
    (d,) = e.value.diagnostics
    assert (d.code, d.span.line, d.span.col, d.span.end_col) == ("E0102", 3, 8, 10)


def test_line_continuation_drops_the_break_and_the_next_lines_indent():
    f = parse_schema("s.gel", "type A { a: str { default := 'a \\\n      b\\\r\n c' } }")
    assert f.types[0].pointers[0].default.value == "a bc"


def test_a_for_loop_body_may_be_an_unparenthesised_atom():
    # Gel accepts `for t in X union t.name` (a path as the body, as real query files write it
    # inside array_agg((...))); it was E0100. It parses as the parenthesised form does.
    import dataclasses

    from schemac.syntax.parser import parse_query

    def body(text):
        q = parse_query("q.edgeql", text, "q").query
        node = q.value.body
        return type(node).__name__, {k: v for k, v in dataclasses.asdict(node).items() if "span" not in k}

    assert body("select (for t in {1, 2} union t.x);") == body("select (for t in {1, 2} union (t.x));")
    assert body("select (for t in {1, 2} union t.x.y);")[0] == "Step"
    schema = "type Person { required name: str; multi friends: Person; }"
    with pytest.raises(CompileError) as e:
        compile_library({"s.esdl": schema, "q/names.edgeql":
                         "select Person { name, n := array_agg((for f in .friends union f.name)) };"},
                        Options(library="t"))
    assert [d.code for d in e.value.diagnostics] == ["E0206"]
