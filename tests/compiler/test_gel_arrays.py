"""Array forms of Gel's standard library (https://docs.geldata.com/reference/stdlib/array)
as a real schema combines them: ``array ++ array``, ``array_agg()`` of a value computed from
each linked object, with array literals and ``array_join`` (tests/compiler/test_gel_array_str_forms.py
tests those alone), and ``<json>x`` of a value (https://docs.geldata.com/reference/stdlib/json), with Gel's
empty-set rules, run on PostgreSQL 15 with data (the computed ``searchable`` is the form of a
real schema)."""

from __future__ import annotations

import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
type Variety { required names: array<str>; }
type Veg {
  required handle: str;
  required names: array<str>;
  scientific_names: array<str>;
  nick: str;
  multi varieties: Variety;
  searchable := array_join(
    .names ++ array_agg(array_join(.varieties.names, ' ')) ++ array_agg(array_join(.scientific_names, ' '))
    ++ [.handle],
    ' '
  );
}
"""


def _plan(query: str):
    return check_library({"lib/schema.esdl": SCHEMA, "lib/q.edgeql": query}, Options(library="lib")).queries[0]


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return pg.execute(sql, {f"p{p.index}": args[p.name] for p in plan.params})


def test_array_forms_run_with_gels_empty_set_rules(pg):
    pg.execute(compile_library({"lib/schema.esdl": SCHEMA}, Options(library="lib"))["sql/schema.sql"])
    pg.execute("INSERT INTO veg (handle, names, scientific_names, nick) VALUES "
               "('tomato', '{tomate,tomato}', '{Solanum lycopersicum}', 'red'), ('kale', '{couve}', NULL, NULL)")
    pg.execute("INSERT INTO variety (names) VALUES ('{cereja,cherry}'), ('{italiano}')")
    pg.execute("INSERT INTO veg_varieties (source_id, target_id) SELECT v.id, w.id FROM veg v, variety w "
               "WHERE v.handle = 'tomato'")
    # array_agg of a value per linked object ([] without any), of a single value ([] when empty),
    # ++ of arrays, an array literal, array_join
    got = dict(_run(pg, _plan("select Veg { handle, searchable }")))
    assert sorted(got["tomato"].split(" ")) == sorted(
        "tomate tomato cereja cherry italiano Solanum lycopersicum tomato".split(" "))
    assert got["tomato"].startswith("tomate tomato ") and got["tomato"].endswith(" Solanum lycopersicum tomato")
    assert got["kale"] == "couve kale"
    # An array literal with an element that may be empty is empty; ++ with an empty array too.
    plan = _plan("select Veg { handle, a := [.handle, .nick], b := .names ++ .scientific_names, "
                 "c := array_join([<str>$x, 'y'], '-'), d := array_agg(.nick) } order by .handle")
    assert _run(pg, plan, x="x") == [
        ("kale", None, None, "x-y", []),
        ("tomato", ["tomato", "red"], ["tomate", "tomato", "Solanum lycopersicum"], "x-y", ["red"])]
    # <json>x: the value as JSON, not its text parsed as JSON
    plan = _plan("select Veg { j := <json>.handle, n := <json>count(.varieties), k := <json>.names } "
                 "filter .handle = 'tomato'")
    assert _run(pg, plan) == [("tomato", 2, ["tomate", "tomato"])]


@pytest.mark.parametrize("query, message", [
    ("select Veg { a := .names ++ [1] }", "'++' needs operands of one type, got array<str> and array<int64>"),
    ("select Veg { a := array_join(.names) }", "array_join() takes an array<str> and a delimiter"),
    ("select Veg { a := array_join([1], ',') }", "array_join() needs an array<str>, got array<int64>"),
    ("select Veg { a := array_agg(['x'] ++ .varieties.names) }",
     "array_agg() of arrays is not a Gel function (an array of arrays is not a Gel type)"),
    ("select Veg { a := array_agg(array_join(.varieties.names, .handle)) }",
     "array_agg() of a value reading '.varieties' and other paths is not supported"),
])
def test_array_misuse_is_located(query, message):
    with pytest.raises(CompileError) as exc:
        _plan(query)
    assert [d.message for d in exc.value.diagnostics] == [message]
