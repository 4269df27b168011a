"""Arithmetic as Gel types and computes it (https://docs.geldata.com/reference/stdlib/numbers):
``/`` on integers is float64 (``10 / 4`` is 2.5), ``//`` floor division, ``%`` floor modulo
(``-10 % 4`` is 2), integer literals are int64 and mixed widths meet at the wider type
(int16 -> int32 -> int64 -> float64; bigint -> decimal), so ``<int32>$x + 1`` does not overflow
at 2^31. Run on PostgreSQL 15 with data; the TS and Go result types follow."""

from __future__ import annotations

import re

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library
from schemac.diagnostics import CompileError
from schemac.semantics.e_ops import arith_result

SCHEMA = """
module default {
  type P {
    required name: str;
    score: int64;
    year: int32;
    small: int16;
    f: float32;
    d: decimal;
  }
}
"""

QUERIES = {
    "div": "select <int64>$a / <int64>$b;",
    "floordiv": "select <int64>$a // <int64>$b;",
    "modulo": "select <int64>$a % <int64>$b;",
    "fmod": "select <float64>$a % <float64>$b;",
    "widen": "select <int32>$x + 1;",
    "mixed": "select <int16>$s * <int32>$i;",
    "shape": "select P { name, half := .score / 2, next := .year + 1, m := .score % 4, q := .score // 4,"
             " fm := .f % 2, dq := .d // 2, sm := .small * .year } filter .score / 4 > 0.6 order by .name;",
    "literal": "select -10 % 4;",
    # ^ binds tighter than a unary minus and looser than a cast (geldata/gel
    # tests/test_edgeql_expressions.py test_edgeql_expr_op_12: select -2^2 is {-4})
    "pow": "select (-2^2, (-2)^2, 2^-1, -2^-2^2, <int64>-2^2, -<float64>2^2, - - 3^2);",
}


def _sources():
    src = {"lib/schema.esdl": SCHEMA}
    src.update({f"lib/{k}.edgeql": v for k, v in QUERIES.items()})
    return src


def _plans():
    return {q.name: q for q in check_library(_sources(), Options(library="lib")).queries}


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return pg.execute(sql, {f"p{p.index}": args[p.name] for p in plan.params})


@pytest.mark.parametrize("op, left, right, result", [
    ("+", "int32", "int64", "int64"), ("+", "int16", "int32", "int32"), ("*", "int16", "float32", "float32"),
    ("-", "int32", "float32", "float64"), ("+", "int64", "bigint", "bigint"), ("+", "bigint", "decimal", "decimal"),
    ("/", "int64", "int64", "float64"), ("/", "int16", "int16", "float64"), ("/", "bigint", "bigint", "decimal"),
    ("/", "float32", "float32", "float32"), ("//", "int32", "int32", "int32"), ("%", "int64", "int16", "int64"),
    ("+", "float64", "decimal", None), ("*", "bigint", "float32", None),
])
def test_result_types_follow_gels_implicit_casts(op, left, right, result):
    assert arith_result(op, left, right) == result
    assert arith_result(op, right, left) == result


def test_arithmetic_on_postgres(pg):
    out = compile_library(_sources(), Options(library="lib"))
    pg.execute(out["sql/schema.sql"])
    plans = _plans()
    assert [tuple(r) for r in _run(pg, plans["div"], a=10, b=4)] == [(2.5,)]
    assert "double precision" in plans["div"].sql
    floordiv = [(a, b, _run(pg, plans["floordiv"], a=a, b=b)[0][0]) for a in (-10, 10, -8, 7) for b in (4, -4)]
    assert floordiv == [(a, b, a // b) for a in (-10, 10, -8, 7) for b in (4, -4)]
    modulo = [(a, b, _run(pg, plans["modulo"], a=a, b=b)[0][0]) for a in (-10, 10, -8, 7) for b in (4, -4)]
    assert modulo == [(a, b, a % b) for a in (-10, 10, -8, 7) for b in (4, -4)]  # Python's % floors, as Gel's
    # no overflow in the remainder's correction near the int64 limits
    big = 2 ** 63 - 1
    assert _run(pg, plans["modulo"], a=big - 1, b=big)[0][0] == big - 1
    assert _run(pg, plans["modulo"], a=-(big - 1), b=big)[0][0] == 1
    assert _run(pg, plans["fmod"], a=-10.5, b=4.0)[0][0] == pytest.approx(1.5)
    assert _run(pg, plans["literal"])[0][0] == 2
    # (a tuple is a JSON array; an int64 in it is its decimal text)
    assert _run(pg, plans["pow"])[0][0] == [-4, 4, 0.5, -(2 ** -4), "-4", -4, 9]
    assert _run(pg, plans["widen"], x=2147483647)[0][0] == 2147483648  # int64: no overflow at 2^31
    assert _run(pg, plans["mixed"], s=32767, i=65536)[0][0] == 32767 * 65536
    pg.execute("INSERT INTO p (name, score, year, small, f, d) VALUES"
               " ('a', -10, 2147483647, 300, -10.5, -7), ('b', 3, 2000, 2, 5, 7), ('c', 1, 1, 1, 1, 1)")
    rows = _run(pg, plans["shape"])
    # .score / 4 > 0.6 is a float comparison: 3 / 4 = 0.75 passes, 1 / 4 = 0.25 and -10 / 4 do not
    assert [tuple(r) for r in rows] == [("b", 1.5, 2001, 3, 0, pytest.approx(1.0), 3, 4000)]


def test_result_types_reach_typescript_and_go():
    out = compile_library(_sources(), Options(library="lib"))
    ts, go = out["ts/queries.ts"], out["go/queries.go"]
    shape_ts = ts[ts.index("half:"):ts.index("sm:") + 40]
    assert re.search(r"half: number \| null;", shape_ts)
    assert re.search(r"next: string \| null;", shape_ts)  # int64, a string in TS by default
    assert re.search(r"fm: number \| null;", shape_ts)
    assert re.search(r"sm: number \| null;", shape_ts)
    assert re.search(r"Half +\*float64", go) and re.search(r"Next +\*int64", go)
    assert re.search(r"Sm +\*int32", go) and re.search(r"Dq +\*string", go)
    div = go[go.index("DivRow"):]
    assert re.search(r"Value float64", div[:400])
    widen = go[go.index("WidenRow"):]
    assert re.search(r"Value int64", widen[:400])


def test_float_with_decimal_is_refused_as_in_gel():
    src = {"lib/schema.esdl": SCHEMA, "lib/q.edgeql": "select P { x := .d + <float64>$f };"}
    with pytest.raises(CompileError) as e:
        check_library(src, Options(library="lib"))
    assert any(d.code == "E0304" and "cannot mix decimal and float64" in d.message for d in e.value.diagnostics)


def test_globals_in_computed_shape_elements_and_as_a_query(pg):
    """docs/language.md once said computed shape elements ``n := ...`` were not supported: a
    global read in one (https://docs.geldata.com/reference/datamodel/globals) runs."""
    schema = "module default { global tenant: str; type P { required name: str; } }"
    src = {"lib/schema.esdl": schema, "lib/a.edgeql": "select P { name, t := global tenant, n := .name ++ '!' };",
           "lib/b.edgeql": "select global tenant;"}
    pg.execute(compile_library(src, Options(library="lib"))["sql/schema.sql"])
    pg.execute("INSERT INTO p (name) VALUES ('x')")
    plans = {q.name: q for q in check_library(src, Options(library="lib")).queries}
    glob = {"global default::tenant": "acme"}
    assert [tuple(r) for r in _run(pg, plans["a"], **glob)] == [("x", "acme", "x!")]
    assert [tuple(r) for r in _run(pg, plans["b"], **glob)] == [("acme",)]


def test_exists_of_a_multi_link(pg):
    """``exists .bs`` of an ordinary multi link (https://docs.geldata.com/reference/stdlib/set#operator::exists)
    is a join row of the subject, in filters (also under ``not``) and as a computed shape element."""
    schema = "module default { type B { required name: str; } type P { required name: str; multi bs: B; } }"
    src = {"lib/schema.esdl": schema,
           "lib/with_bs.edgeql": "select P { name } filter exists .bs order by .name;",
           "lib/without_bs.edgeql": "select P { name } filter not exists .bs order by .name;",
           "lib/flag.edgeql": "select P { name, h := exists .bs, n := count(.bs) } order by .name;"}
    pg.execute(compile_library(src, Options(library="lib"))["sql/schema.sql"])
    plans = {q.name: q for q in check_library(src, Options(library="lib")).queries}
    assert "EXISTS (SELECT 1 FROM" in plans["with_bs"].sql
    pg.execute("INSERT INTO b (name) VALUES ('b1'), ('b2')")
    pg.execute("INSERT INTO p (name) VALUES ('x'), ('y'), ('z')")
    pg.execute("INSERT INTO p_bs (source_id, target_id) SELECT p.id, b.id FROM p, b WHERE p.name = 'x'"
               " UNION ALL SELECT p.id, b.id FROM p, b WHERE p.name = 'z' AND b.name = 'b2'")
    assert [tuple(r) for r in _run(pg, plans["with_bs"])] == [("x",), ("z",)]
    assert [tuple(r) for r in _run(pg, plans["without_bs"])] == [("y",)]
    assert [tuple(r) for r in _run(pg, plans["flag"])] == [("x", True, 2), ("y", False, 0), ("z", True, 1)]
    ts = compile_library(src, Options(library="lib"))["ts/queries.ts"]
    assert re.search(r"h: boolean;", ts)


PEOPLE = """module default {
  type Person { required name: str; multi friends: Person; }
  abstract type Content { required title: str; }
  type Movie extending Content { year: int32; }
  type Show extending Content { seasons: int32; }
}"""


def test_count_of_an_ordered_limited_selection(pg):
    """``count()`` of a with-bound selection with ``order by`` / ``offset`` / ``limit`` counts the
    objects the selection keeps (https://docs.geldata.com/reference/stdlib/set#function::std::count,
    .../edgeql/select#pagination); it was a located E0206 until sets of a query's with names landed."""
    src = {"lib/schema.esdl": PEOPLE,
           "lib/two.edgeql": "with u := (select Person order by .name limit 2) select count(u);",
           "lib/rest.edgeql": "with u := (select Person order by .name offset 2) select count(u);",
           "lib/many.edgeql": "with u := (select Person order by .name limit 10) select count(u);"}
    pg.execute(compile_library(src, Options(library="lib"))["sql/schema.sql"])
    plans = {q.name: q for q in check_library(src, Options(library="lib")).queries}
    assert [tuple(r) for r in _run(pg, plans["two"])] == [(0,)]
    pg.execute("INSERT INTO person (name) VALUES ('a'), ('b'), ('c')")
    assert [tuple(r) for r in _run(pg, plans["two"])] == [(2,)]
    assert [tuple(r) for r in _run(pg, plans["rest"])] == [(1,)]
    assert [tuple(r) for r in _run(pg, plans["many"])] == [(3,)]


@pytest.mark.parametrize("query, code, message, col", [
    ("select count(Person.friends);", "E0206", "count() of a path from a type ('Person.friends') is not supported yet",
     14),
    ("select count(Movie union Show);", "E0206", "count() of a union is not supported yet", 14),
    ("select count({Movie, Show});", "E0206", "count() of a union is not supported yet", 14),
    # (`update Content set {...}` is lowered: tests/compiler/test_concrete_parent_updates.py)
])
def test_valid_gel_not_lowered_yet_is_a_located_e0206(query, code, message, col):
    """Valid Gel (https://docs.geldata.com/reference/stdlib/set#function::std::count,
    https://docs.geldata.com/reference/edgeql/select#polymorphic-queries) that is not lowered
    yet names the form at its place (was E0304 "count() takes one property..." / E0301 unknown type)."""
    src = {"lib/schema.esdl": PEOPLE, "lib/q.edgeql": query}
    with pytest.raises(CompileError) as e:
        check_library(src, Options(library="lib"))
    found = [(d.code, d.message, d.span.line, d.span.col) for d in e.value.diagnostics if d.severity == "error"]
    assert found == [(code, message, 1, col)]
