"""Gel's group statement (https://docs.geldata.com/reference/edgeql/group): what is refused with a
located E0206 / E0302 naming the form, and the SQL of the forms that compile (tested with data on
Postgres 15 by tests/cases/group_forms and tests/e2e/test_group_forms_e2e.py)."""

from __future__ import annotations

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  type Tag { required name: str; }
  type User { required name: str; email: str; score: int64; nicknames: array<str>; data: json; }
  type Post { required title: str; author: User; multi tags: Tag; }
}
"""


def plans(query: str):
    lib = check_library({"schema.esdl": SCHEMA, "queries/q.edgeql": query}, Options(library="t"))
    return lib.queries[0]


def diagnostics(query: str):
    with pytest.raises(CompileError) as exc:
        check_library({"schema.esdl": SCHEMA, "queries/q.edgeql": query}, Options(library="t"))
    return [(d.code, d.message, d.span.line, d.span.col) for d in exc.value.diagnostics]


@pytest.mark.parametrize("query, code, message, col", [
    ("group User by {.name, .email}", "E0206", "grouping sets", 15),
    ("group User by rollup(.name)", "E0206", "grouping sets", 15),
    ("group Post by .tags", "E0206", "grouping by the multi link 'tags' is not supported yet", 15),
    ("group Post by .author.name", "E0206", "a 'by' key through several steps is not supported yet", 15),
    ("group User by .nicknames", "E0206", "grouping by an array (or a multi property), 'nicknames'", 15),
    ("group User by .data", "E0206", "grouping by a json value, 'data'", 15),
    ("group User by .nope", "E0302", "has no property 'nope'", 15),
    ("group User by str_lower(.name)", "E0304", "a 'by' key is a property path (.name) or a name bound by 'using'",
     15),
    ("group User using k := .name, k := .email by k", "E0309", "'k' is bound twice in 'using'", 35),
    ("group Nope by .name", "E0301", "unknown type 'Nope'", 7),
    ("with g := (group User by .name) select g { key: { email } }", "E0302", "the groups have no key 'email'", 51),
    ("with g := (group User by .name) select g { total := sum(.elements.score) }", "E0206",
     "'.elements.score' over groups is not supported yet", 57),
    ("with g := (group User by .name) select g { id }", "E0302", "the groups have no field 'id'", 44),
    ("with g := (group User by .name) select g { key, elements } filter .key.email = 'x'", "E0302",
     "the groups have no key 'email'", 67),
    ("with g := (group User by .name) select g { elements: { name } limit 2 }", "E0206",
     "'offset' and 'limit' on a group's elements are not supported yet", 69),
    ("with g := (group User by .name), c := (select g { n := count(.elements) } filter .n > 1) select c { key }",
     "E0206", "a 'with' selection of groups other than (select g { name := ..., ... })", 39),
    # (a group used as a value)
    ("select (group User by .name)", "E0206", "'group' expressions are not supported in a query yet", 8),
])
def test_refused_group_forms_are_located(query, code, message, col):
    diags = diagnostics(query)
    assert diags and diags[0][0] == code and message in diags[0][1] and diags[0][2:] == (1, col), diags


def test_group_by_a_property_is_one_group_by_statement():
    q = plans("group User { name } by .email")
    assert q.sql == (
        'SELECT json_build_object(\'email\', "_group_k0") AS "key", ARRAY[\'email\']::text[] AS "grouping", '
        'json_agg(json_build_object(\'name\', "user"."name") ORDER BY "user"."id") AS "elements"\n'
        'FROM (SELECT "user".*, email AS "_group_k0" FROM "user") AS "user"\n'
        'GROUP BY "_group_k0"\n'
        'ORDER BY "_group_k0" ASC NULLS FIRST')
    assert q.cardinality == "many"
    assert [(f.name, f.optional, f.multi) for f in q.result] == [("key", False, False), ("grouping", False, False),
                                                                ("elements", False, True)]
    # (an email may be empty: the group of the users without one has the key { email: null })
    assert [(f.name, f.optional) for f in q.result[0].shape] == [("email", True)]


def test_group_without_shape_selects_the_ids_and_a_link_key_is_an_object():
    q = plans("group Post by .author")
    assert "CASE WHEN \"_group_k0\" IS NULL THEN NULL ELSE json_build_object('id', \"_group_k0\") END" in q.sql
    assert [f.name for f in q.result[2].shape] == ["id"]
    assert [f.name for f in q.result[0].shape[0].shape] == ["id"]


def test_select_over_groups_filters_with_having_and_orders_by_the_key():
    q = plans("with g := (group User using n := len(.name) by n) "
              "select g { key, biggest := max(.elements.score), elements: { name } filter exists .email } "
              "filter count(.elements) > <int64>$m order by .key.n desc limit 3")
    assert "HAVING count(*) > $1::bigint" in q.sql
    assert 'ORDER BY "_group_k0" DESC NULLS LAST\nLIMIT 3' in q.sql
    assert "coalesce(json_agg(" in q.sql and "FILTER (WHERE \"user\".email IS NOT NULL), '[]'::json)" in q.sql
    assert [(f.name, f.optional) for f in q.result] == [("key", False), ("biggest", True), ("elements", False)]


def test_a_backlink_property_in_a_filter_is_an_exists_and_refused_with_coalescing_equality():
    q = plans("select User { name } filter .<author[is Post].title = <str>$t")
    assert q.sql.endswith('WHERE EXISTS (SELECT 1 FROM "post" AS "_m1" WHERE "_m1"."author_id" = "user"."id" AND '
                          '("_m1".title = $1))')
    assert diagnostics("select User { name } filter .<author[is Post].title ?= 'x'") == [
        ("E0206", "'.<author[is Post].title' is a set (of the objects whose link 'author' points here): using it "
                  "with '?=' is not supported yet", 1, 29)]


def test_detached_is_a_scan_of_its_own():
    q = plans("select User { name, n := count(detached User) }")
    assert q.sql == 'SELECT "name", (SELECT count(*) FROM "user" AS "_c1") AS "n"\nFROM "user"'
