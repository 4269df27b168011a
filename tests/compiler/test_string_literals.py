"""String literals: Gel's escapes give the characters they name, in defaults, filters and enum
members; any other escape is E0102 at the escape, never a silently literal backslash."""

from __future__ import annotations

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import compile_library
from schemac.diagnostics import CompileError


def _sql(schema: str, queries=None) -> str:
    sources = {"s.esdl": schema, **(queries or {})}
    return compile_library(sources, Options(library="t"))["sql/schema.sql"]


@pytest.mark.parametrize(
    "literal,value",
    [
        (r"'caf\u00e9'", "café"),
        (r"'\x41\x7f'", "A\x7f"),
        (r"'\U0001F389'", "🎉"),
        (r"'a\tb\nc\rd'", "a\tb\nc\rd"),
        (r"'\b\f'", "\b\f"),
        (r"'it\'s \"q\" \\ done'", "it's \"q\" \\ done"),
        (r'"it\'s"', "it's"),
        (r"r'\d+\u'", r"\d+\u"),  # raw: backslashes kept
    ],
)
def test_escapes_give_their_characters(literal, value):
    sql = _sql(f"type T {{ a: str {{ default := {literal} }}; }}")
    want = "'" + value.replace("'", "''") + "'"
    assert f'"a" text DEFAULT {want}' in sql


def test_quoted_enum_members_are_unescaped():
    sql = _sql(r"enum E { 'on\u0020hold', Done }" + "\ntype T { e: E; }")
    assert "IN ('on hold', 'Done')" in sql


@pytest.mark.parametrize(
    "literal,message,col,width",
    [
        (r"'a\qb'", r"unknown escape sequence '\q' in a string literal", 32, 2),
        (r"'a\xffb'", r"'\xff' is not a character", 32, 4),
        (r"'a\ud800'", r"'\ud800' is not a character", 32, 6),
        (r"'a\U00110000'", r"'\U00110000' is not a character", 32, 10),
        (r"'a\x4'", r"unknown escape sequence '\x' in a string literal", 32, 2),
    ],
)
def test_other_escapes_are_errors_at_the_escape(literal, message, col, width):
    with pytest.raises(CompileError) as e:
        _sql(f"type T {{ a: str {{ default := {literal} }}; }}")
    (d,) = e.value.diagnostics
    assert (d.code, d.message) == ("E0102", message)
    assert (d.span.line, d.span.col, d.span.end_col - d.span.col) == (1, col, width)
    assert "raw string" in d.hint


def test_escapes_in_query_literals():
    schema = "type T { required a: str; }"
    out = compile_library({"s.esdl": schema, "q/by_a.edgeql": r"select T { a } filter .a = 'x\u0041';"},
                          Options(library="t"))
    assert "'xA'" in out["ts/queries.ts"]


def test_a_raw_string_ending_in_a_backslash_does_not_hide_what_follows():
    """The pre-scan (unsupported declarations) reads ``r'x\\'`` as a raw string, as the lexer
    does: the trigger after it is read as such (its body refused), not as a syntax error."""
    schema = r"type T { a: str { constraint regexp(r'x\'); }; trigger t after insert for each do (select T); }"
    with pytest.raises(CompileError) as e:
        _sql(schema)
    assert [(d.code, d.message) for d in e.value.diagnostics] == [
        ("E0206", "trigger bodies other than insert, update, delete or assert() statements are not supported yet")]
