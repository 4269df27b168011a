"""Valid Gel that was a syntax error (E0100), read with Gel's meaning and proven on PostgreSQL 15
with data:

* ``for x in S select E`` (and ``for x in S with ... select E``, ``for x in S for y in T ...``,
  ``for x in S group ...``): Gel's grammar reads ``FOR x IN AtomicExpr ExprStmt``, the same
  ``ForQuery`` as ``for x in S union (select E)`` (geldata/gel
  edb/edgeql/parser/grammar/expressions.py ``reduce_ForInStmt``; edb/edgeql/ast.py
  ``ForQuery.has_union`` only records how it was written;
  https://docs.geldata.com/reference/edgeql/for);
* ``select x := E <clauses>``, an inline alias (https://docs.geldata.com/reference/edgeql/select:
  ``select x := {1, 2, 3, 4, 5} filter x >= 3``): ``with x := E select x <clauses>`` (geldata/gel
  edb/edgeql/compiler/stmt.py ``compile_result_clause``: "`SELECT foo := expr` is equivalent to
  `WITH foo := expr SELECT foo`"); an alias that neither the shape nor the clauses name is
  ``select E``. Where the ``with`` form is refused (filtering or paging a set of values, a path
  from a ``with`` name), the alias form is refused the same way, with E0206 naming the form;
* a set of values ordered by the values themselves, ``select x := {3, 1, 2} order by x desc``,
  ``with n := array_unpack(<array<str>>$ns) select n order by n`` (Gel's cheatsheet
  docs/resources/cheatsheets/select.rst: ``select numbers := {3, 1, 2} order by numbers``):
  ``ORDER BY "_v"."value"``.
"""

from __future__ import annotations

import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module default {
  type Lamp {
    required name: str;
    required watts: int64;
  }
}
"""

QUERIES = {
    # for x in S select E
    "shout": "for x in array_unpack(<array<str>>$names) select x ++ '!';",
    "lamps_named": "for x in array_unpack(<array<str>>$names) select Lamp { name, watts } filter .name = x;",
    "with_body": "for x in array_unpack(<array<str>>$names) with y := x ++ '?' select y ++ '!';",
    # select x := E ...
    "bright": "select l := Lamp { name } filter .watts > <int64>$min order by .watts desc;",
    "total": "select n := count(Lamp);",
    "in_expr": "select { lamps := (select l := Lamp { name } filter .watts > 50 order by .name) };",
    "sorted_desc": "select x := {3, 1, 2} order by x desc;",
    "sorted_names": "select n := array_unpack(<array<str>>$names) order by n;",
}

# The same queries as Gel writes them with `union (...)` / without the alias.
SAME = {
    "shout": "for x in array_unpack(<array<str>>$names) union (select x ++ '!');",
    "lamps_named": "for x in array_unpack(<array<str>>$names) union (select Lamp { name, watts } filter .name = x);",
    "with_body": "for x in array_unpack(<array<str>>$names) union (with y := x ++ '?' select y ++ '!');",
    "bright": "select Lamp { name } filter .watts > <int64>$min order by .watts desc;",
    "total": "select count(Lamp);",
    "in_expr": "select { lamps := (select Lamp { name } filter .watts > 50 order by .name) };",
    "sorted_desc": "with x := {3, 1, 2} select x order by x desc;",
    "sorted_names": "with n := array_unpack(<array<str>>$names) select n order by n;",
}


def _plans(queries):
    sources = {"fa/default.gel": SCHEMA}
    sources.update({f"fa/queries/{k}.edgeql": v for k, v in queries.items()})
    return {q.name: q for q in check_library(sources, Options(library="fa")).queries}


def test_the_forms_compile_to_the_statements_of_gels_spelled_out_forms():
    q, same = _plans(QUERIES), _plans(SAME)
    assert set(q) == set(QUERIES)
    for name in QUERIES:
        assert q[name].sql == same[name].sql, name
        assert q[name].result == same[name].result, name


def test_the_forms_on_postgres(pg):
    pg.execute(compile_library({"fa/default.gel": SCHEMA}, Options(library="fa"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO lamp (name, watts) VALUES ('hall', 60), ('attic', 100), ('den', 40), ('den', 75)")
    q = _plans(QUERIES)
    assert sorted(run_plan(pg, q["shout"], ["a", "b"])) == [("a!",), ("b!",)]
    assert run_plan(pg, q["shout"], []) == []
    assert sorted(run_plan(pg, q["lamps_named"], ["den", "attic", "none"])) == [
        ("attic", 100), ("den", 40), ("den", 75)]
    assert sorted(run_plan(pg, q["with_body"], ["a"])) == [("a?!",)]
    assert run_plan(pg, q["bright"], 50) == [("attic",), ("den",), ("hall",)]
    assert run_plan(pg, q["total"]) == [(4,)]
    assert run_plan(pg, q["sorted_desc"]) == [(3,), (2,), (1,)]
    assert run_plan(pg, q["sorted_names"], ["b", "c", "a", "b"]) == [("a",), ("b",), ("b",), ("c",)]
    (row,), = run_plan(pg, q["in_expr"])
    assert [x["name"] for x in row] == ["attic", "den", "hall"]


@pytest.mark.parametrize("query, message", [
    # (Gel: {2, 3}; a set of values is filtered or paged by a type's select only, so far)
    ("select x := {3, 1, 2} filter x > 1;", "'filter' on a selected expression"),
    ("select x := {3, 1, 2} order by x limit 2;", "'order by' on a selected expression"),
    ("select l := Lamp { name } filter l.watts > 50;", "a path from the 'with' name 'l'"),
])
def test_aliases_the_with_form_refuses_are_refused_with_e0206(query, message):
    with pytest.raises(CompileError) as e:
        _plans({"q": query})
    assert [d.code for d in e.value.diagnostics] == ["E0206"], e.value.diagnostics
    assert message in e.value.diagnostics[0].message


@pytest.mark.parametrize("query, spelled_out", [
    ("with ls := (for x in array_unpack(<array<int64>>$ws) select Lamp filter .watts = x) select ls { name };",
     "with ls := (for x in array_unpack(<array<int64>>$ws) union (select Lamp filter .watts = x)) select ls { name };"),
    ("for x in array_unpack(<array<int64>>$ws) for y in {1, 2} select x * y;",
     "for x in array_unpack(<array<int64>>$ws) union (for y in {1, 2} union (select x * y));"),
    ("for x in array_unpack(<array<str>>$ns) group Lamp by .name;",
     "for x in array_unpack(<array<str>>$ns) union (group Lamp by .name);"),
])
def test_bodies_refused_are_refused_as_the_union_form_is(query, spelled_out):
    """Read, not a syntax error: what the compiler cannot build yet it refuses as it refuses the
    form written with ``union (...)``."""
    got = []
    for q in (query, spelled_out):
        with pytest.raises(CompileError) as e:
            _plans({"q": q})
        got.append([(d.code, d.message) for d in e.value.diagnostics])
    assert got[0] == got[1] and got[0][0][0] == "E0206", got


@pytest.mark.parametrize("query, kept", [
    ("select x := {3, 1, 2} order by x;", True),
    ("select x := {3, 1, 2} order by x desc then 1;", True),
    ("select x := {3, 1, 2} filter x > 1;", True),
    ("select l := Lamp { n := l.name };", True),
    ("select x := {3, 1, 2} order by 1;", False),
    ("select l := Lamp { name } filter .watts > 1 limit 2;", False),
])
def test_an_alias_is_bound_where_the_shape_or_a_clause_names_it(query, kept):
    from schemac.syntax import tree as ast
    from schemac.syntax.parser import parse_query
    q = parse_query("q.edgeql", query, "q").query
    assert isinstance(q, ast.WithQuery) is kept
