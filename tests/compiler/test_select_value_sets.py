"""``select [distinct] <a set of values>``: set literals, ``array_unpack(...)`` and their
``union`` (https://docs.geldata.com/reference/edgeql/sets,
https://docs.geldata.com/reference/stdlib/set#operator::union, ...#operator::distinct), many
rows of one value, on PostgreSQL 15: the parts in the order written, an empty value no element,
numbers meeting at the widest type (``{1, 2.5}`` is a set of float64), each value once with
``distinct``; a set mixing types is E0304."""

from __future__ import annotations

import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library
from schemac.semantics.library import Options

SCHEMA = "type T { required name: str; }"


def _plan(query: str):
    return check_library({"s.esdl": SCHEMA, "q/q.edgeql": query}, Options(library="c")).queries[0]


def _run(pg, plan, *args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return [r[0] for r in pg.execute(sql, {f"p{i}": a for i, a in enumerate(args, 1)})]


@pytest.mark.parametrize("query, args, expected, typ", [
    ("select {3, 1, 2, 1}", (), [3, 1, 2, 1], "int64"),
    ("select distinct {3, 1, 2, 1}", (), {1, 2, 3}, "int64"),
    ("select {1, 2} union {3}", (), [1, 2, 3], "int64"),
    ("select {1, 2.5}", (), [1.0, 2.5], "float64"),
    ("select array_unpack(<array<str>>$x)", (["z", "y", "z"],), ["z", "y", "z"], "str"),
    ("select distinct array_unpack(<array<str>>$x)", (["z", "y", "z"],), {"y", "z"}, "str"),
    ("select {1, 2} union array_unpack(<array<int64>>$x) union 7", ([5, 6],), [1, 2, 5, 6, 7], "int64"),
    ("select {<optional str>$a, 'b'} union <optional str>$a", (None,), ["b"], "str"),
    ("select {<optional str>$a, 'b'} union <optional str>$a", ("a",), ["a", "b", "a"], "str"),
    ("select distinct ({'a', 'b'} union {'b', 'c'})", (), {"a", "b", "c"}, "str"),
])
def test_a_set_of_values(pg, query, args, expected, typ):
    plan = _plan(query)
    assert plan.cardinality == "many" and plan.scalar and [f.type.name for f in plan.result] == [typ]
    rows = _run(pg, plan, *args)
    assert (set(rows) if isinstance(expected, set) else rows) == expected
    if isinstance(expected, set):
        assert len(rows) == len(expected)


def test_a_set_mixing_types_is_located():
    sources = {"s.esdl": SCHEMA, "q/q.edgeql": "select {1, 'a'}"}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    assert "q/q.edgeql:1:12: error[E0304]: a set mixes int64 and str" in exc.value.render(sources)


@pytest.mark.parametrize("query, col", [("select {T, 1}", 9), ("select {1} union T", 18)])
def test_a_set_mixing_objects_and_values_is_located(query, col):
    # (a union of objects alone compiles: tests/compiler/test_object_unions.py)
    sources = {"s.esdl": SCHEMA, "q/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    assert f"q/q.edgeql:1:{col}: error[E0304]: a set or union mixes objects and values" in \
        exc.value.render(sources)
