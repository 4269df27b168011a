"""Selects of values and free objects (https://docs.geldata.com/reference/edgeql/select): what is
refused with a located E0206 naming the form (never E0100, never a traceback). The forms that
compile are tested on Postgres 15 by tests/cases/select_forms and tests/e2e/test_select_forms_e2e.py."""

from __future__ import annotations

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import compile_library
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
    ("select User { n := User { name } }", "shapes on an expression ('expr { ... }')", 20),
    ("select 1 filter true", "'filter' on a selected expression (not a type)", 1),
    ("select <str>$x order by 1", "'order by' on a selected expression (not a type)", 1),
    # (a set of values is supported, select {1, 2}: of arrays it is not)
    ("select {[1], [2]}", "a set of array<int64> values is not supported yet", 9),
    ("with u := (select User order by .name limit 2) select u { name } filter .email = 'x'",
     "filtering, ordering or paging 'u', which orders or pages its objects", 48),
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


def test_with_module_unknown_is_e0301():
    assert diagnostics("with module nope select User") == [("E0301", "unknown module 'nope'", 1, 13)]


def test_nested_clause_reads_the_linked_object():
    # `.title` is the post's: on User it would be E0302.
    out = compile_library({"schema.esdl": SCHEMA.replace("required title: str; author: User;",
                                                          "required title: str; author: User; multi tags: Post;"),
                           "queries/q.edgeql": "select Post { tags: { title } filter .title like 'a%' order by .title }"},
                          Options(library="t"))
    assert ("(SELECT coalesce(json_agg(json_build_object('title', \"_s1\".\"title\") ORDER BY \"_s1\".title ASC NULLS "
            "FIRST, \"_s1\".\"id\"), '[]'::json) FROM \"post_tags\" AS \"_j1\" JOIN \"post\" AS \"_s1\" ON \"_s1\".\"id\" = "
            "\"_j1\".\"target_id\" WHERE \"_j1\".\"source_id\" = \"post\".\"id\" AND (\"_s1\".title LIKE 'a%'))") in out["ts/queries.ts"]


def test_a_global_read_only_by_an_access_policy_is_not_an_unused_parameter():
    # `with id := <uuid>$id delete Note filter .id = id`: the policy reads `global owner`; its
    # parameter is in the policy's SQL, not in the query's expressions (was E0304 "never used").
    schema = """
    module default {
      global owner: str;
      type Note {
        required owner: str;
        access policy own allow all using (.owner ?= global owner);
      }
    }
    """
    out = compile_library({"schema.esdl": schema,
                           "queries/q.edgeql": "with id := <uuid>$id delete Note filter .id = id"},
                          Options(library="t"))
    assert "owner" in out["ts/queries.ts"]


def test_with_names_are_in_scope_inside_a_sub_select():
    out = compile_library({"schema.esdl": SCHEMA, "queries/q.edgeql":
                           "with n := <str>$n select Post { title } filter .author = (select User filter .name = n)"},
                          Options(library="t"))
    assert 'WHERE author_id = (SELECT "_q2"."id" FROM "user" AS "_q2" WHERE "_q2".name = $1::text)' \
        in out["ts/queries.ts"]


def test_path_from_a_with_value_is_located_e0206():
    assert diagnostics("with n := <str>$n select User filter .name = n.x") == [
        ("E0206", "a path from the 'with' name 'n' ('n.x') is not supported yet", 1, 46)]


def test_datetime_unit_must_be_a_literal_and_a_gel_unit():
    assert diagnostics("select datetime_get(<datetime>$t, <str>$unit)")[0][:2] == (
        "E0206", "datetime_get() with a unit that is not a string literal is not supported yet")
    code, message, _, _ = diagnostics("select datetime_truncate(<datetime>$t, 'day')")[0]
    assert code == "E0304" and message == "'day' is not a unit of datetime_truncate()"


def test_a_bare_name_compared_with_less_or_greater_than_parses():
    # After a bare name the lexer read `<` as a type's angle bracket: E0100 on valid EdgeQL.
    out = compile_library({"schema.esdl": SCHEMA, "queries/q.edgeql":
                           "with n := <int64>$n select User { name } filter n < 3 and n > 1"},
                          Options(library="t"))
    assert "WHERE ($1::bigint < 3) AND ($1::bigint > 1)" in out["ts/queries.ts"]


@pytest.mark.parametrize("query, message, col", [
    # (E0100 before: the grammar had no tuple element step from a name, nor group after with)
    ("with t := <str>$x select t.0", "path steps after an expression are not supported", 26),
    ("with a := 1 group Post by .author.name", "a 'by' key through several steps is not supported yet", 27),
])
def test_valid_forms_not_lowered_are_e0206_not_e0100(query, message, col):
    diags = diagnostics(query)
    assert diags[0][0] == "E0206" and message in diags[0][1] and diags[0][2:] == (1, col), diags


def test_configure_is_a_located_e0206():
    # (E0100 before: Gel's server configuration statements, found in two corpus projects)
    assert diagnostics("CONFIGURE CURRENT BRANCH SET allow_user_specified_id := true;") == [
        ("E0206", "configure statements are not supported yet", 1, 1)]
