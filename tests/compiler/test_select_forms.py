"""Selects of values and free objects (https://docs.geldata.com/reference/edgeql/select): what is
refused with a located E0206 naming the form (never E0100, never a traceback). The forms that
compile are tested on Postgres 15 by tests/cases/select_forms and tests/e2e/test_select_forms_e2e.py."""

from __future__ import annotations

import pytest

from schemac.compiler import Options, compile_library
from schemac.diagnostics import CompileError

SCHEMA = """
module default {
  type User { required name: str { constraint exclusive; }; email: str; }
  type Post { required title: str; author: User; }
}
"""


def diagnostics(query: str):
    with pytest.raises(CompileError) as exc:
        compile_library({"schema.esdl": SCHEMA, "queries/q.edgeql": query}, Options(library="t"))
    return [(d.code, d.message, d.span.line, d.span.col) for d in exc.value.diagnostics]


@pytest.mark.parametrize("query, message, col", [
    # a free object nested in an expression (it crashed: no refusal was registered for it)
    ("select { x := { y := 1 } }", "free objects ('{ a := ... }') inside an expression", 15),
    # a shape on an expression inside a computed element (crashed too)
    ("select User { n := .<author[is Post] { title } }", "shapes on an expression ('expr { ... }')", 20),
    ("select 1 filter true", "'filter' on a selected expression (not a type)", 1),
    ("select <str>$x order by 1", "'order by' on a selected expression (not a type)", 1),
    ("select {1, 2}", "a set literal {...} is only supported after 'in'", 8),
    ("select User { name, x: { name } filter .name = 'a' }", "'filter' on the link 'x' in a shape", 21),
    ("select User { .<author: { title } }", "a backlink ('.<author') in a shape", 15),
    ("select User { [is User].name }", "type-filtered elements ('[is User].name') in a shape are", 15),
])
def test_refused_select_forms_are_located_e0206(query, message, col):
    diags = diagnostics(query)
    assert len(diags) == 1, diags
    code, text, line, c = diags[0]
    assert code == "E0206" and message in text and (line, c) == (1, col), diags[0]


def test_free_object_field_twice_is_e0309():
    assert diagnostics("select { a := 1, a := 2 }") == [("E0309", "'a' appears twice in the free object", 1, 18)]


def test_count_of_a_type_and_exists_compile_to_one_statement():
    out = compile_library({"schema.esdl": SCHEMA, "queries/q.edgeql":
                           "select { n := count(User filter .email ilike '%@x.org'), any := exists Post }"},
                          Options(library="t"))
    assert ('SELECT (SELECT count(*) FROM "user" AS "_c1" WHERE "_c1".email ILIKE \'%@x.org\') AS "n", '
            'EXISTS (SELECT 1 FROM "post" AS "_e1") AS "any"') in out["ts/queries.ts"]
