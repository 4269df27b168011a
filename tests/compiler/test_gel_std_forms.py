"""Small forms of Gel's schema language that real schemas use, each from Gel's docs and proven on
PostgreSQL 15 with data: the str -> enum assignment cast (https://docs.geldata.com/reference/stdlib/enum),
value constraints on multi properties (https://docs.geldata.com/reference/datamodel/constraints),
``count(<computed link> filter ...)``, ``math::mean`` over a backlink's property and scalar math
(https://docs.geldata.com/reference/stdlib/math, https://docs.geldata.com/reference/stdlib/set),
with ``sum``/``min``/``max`` and ``datetime_get`` (https://docs.geldata.com/reference/stdlib/datetime)
alongside."""

from __future__ import annotations

import psycopg
import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library
from schemac.diagnostics import CompileError


def _migrate(pg, schema: str) -> None:
    pg.execute(compile_library({"s.esdl": schema}, Options(library="c"))["sql/000001_init.up.sql"])


def _query(schema: str, query: str):
    return check_library({"s.esdl": schema, "q/q.edgeql": query}, Options(library="c")).queries[0]


def _errors(schema: str, query: str = None) -> str:
    sources = {"s.esdl": schema}
    if query is not None:
        sources["q/q.edgeql"] = query
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    return exc.value.render(sources)


ENUM = """\
scalar type Status extending enum<Pending, Done, `In Progress`>;
type Task {
  required title: str;
  required status: Status { default := 'Pending'; }
  stage: Status { default := 'In Progress'; }
}
"""


def test_a_str_literal_given_to_an_enum_property_is_its_member(pg):
    _migrate(pg, ENUM)
    pg.execute("INSERT INTO task (title) VALUES ('a')")
    assert pg.execute("SELECT status, stage FROM task") == [("Pending", "In Progress")]
    q = _query(ENUM, "insert Task { title := 'b', status := 'Done' };")
    pg.execute(q.sql)
    q = _query(ENUM, "update Task filter .title = 'a' set { stage := 'Done' };")
    pg.execute(q.sql)
    assert pg.execute("SELECT title, status, stage FROM task ORDER BY title") == [
        ("a", "Pending", "Done"), ("b", "Done", "In Progress")]
    # Not a member: located, with a did-you-mean (Gel fails the cast when it runs).
    text = _errors(ENUM.replace("default := 'Pending'", "default := 'Pendng'"))
    assert "s.esdl:4:40: error[E0203]: enum 'Status' has no member 'Pendng'" in text and "'Pending'" in text
    text = _errors(ENUM, "insert Task { title := 'c', status := 'done' };")
    assert "error[E0203]: enum 'Status' has no member 'done'" in text
    # A comparison is no assignment: no cast there, as in Gel.
    text = _errors(ENUM, "select Task { title } filter .status = 'Done';")
    assert "E0304" in text


MULTI = """\
type Page {
  required name: str;
  multi keywords: str { constraint max_len_value(5); constraint min_len_value(2); }
  multi notes: str { constraint max_len_value(300); }
  multi scores: int64 { constraint min_value(0); constraint max_ex_value(10); }
  multi kinds: str { constraint one_of('a', 'b'); }
  tags: array<str> { constraint max_len_value(2); }
}
"""


@pytest.mark.parametrize("values, ok", [
    ("keywords = ARRAY['ab', 'abcde']", True),
    ("keywords = ARRAY['ab', 'abcdef']", False),
    ("keywords = ARRAY['ab', 'a']", False),
    ("keywords = ARRAY['ééééé']", True),  # characters, not bytes
    ("keywords = ARRAY[]::text[]", True),
    ("notes = ARRAY[repeat('x', 300), 'y']", True),
    ("notes = ARRAY[repeat('x', 301)]", False),
    ("notes = ARRAY[repeat(E'\\n', 300)]", True),  # a newline is a character too
    ("scores = ARRAY[0, 9]", True),
    ("scores = ARRAY[0, 10]", False),
    ("scores = ARRAY[-1]", False),
    ("kinds = ARRAY['a', 'b', 'a']", True),
    ("kinds = ARRAY['a', 'c']", False),
    ("tags = ARRAY['long one', 'x']", True),  # an array's len() is its length
    ("tags = ARRAY['a', 'b', 'c']", False),
])
def test_value_constraints_on_a_multi_property_hold_for_each_value(pg, values, ok):
    _migrate(pg, MULTI)
    col, value = values.split(" = ", 1)
    sql = f"INSERT INTO page (name, {col}) VALUES ('p', {value})"
    if ok:
        pg.execute(sql)
        assert pg.execute("SELECT count(*) FROM page") == [(1,)]
    else:
        with pytest.raises(psycopg.errors.CheckViolation):
            pg.execute(sql)


def test_regexp_on_a_multi_property_is_refused_precisely():
    text = _errors("type T { multi a: str { constraint regexp('^x'); } }")
    assert "error[E0206]: constraint regexp on a multi property or an array is not supported yet" in text


SETS = """\
type Movie {
  required title: str;
  multi link reviews := .<movie[is Review];
  property likes := count(.reviews filter .rating >= 4);
  property dislikes := count(.<movie[is Review] filter .rating < 2);
  property avg_rating := math::mean(.<movie[is Review].rating);
  property avg_price := math::mean(.reviews.price);
  property total := sum(.<movie[is Review].rating);
  property best := max(.<movie[is Review].rating);
  property worst := min(.reviews.rating);
  released: datetime;
  property year := datetime_get(.released, 'year');
  property minute := datetime_get(.released, 'minutes');
  score: float64;
  property rounded := round(.score);
  property floored := math::floor(.score);
  property natural_log := math::ln(.score);
  property magnitude := math::abs(.score);
}
type Review {
  required movie: Movie;
  required rating: int64;
  price: decimal;
}
"""


def test_set_aggregates_counts_and_math_on_postgres(pg):
    _migrate(pg, SETS)
    pg.execute("INSERT INTO movie (id, title, released, score) VALUES "
               "('00000000-0000-0000-0000-000000000001', 'A', '2020-03-04 23:45:00+00', -2.5), "
               "('00000000-0000-0000-0000-000000000002', 'B', '2021-01-01 00:00:00-05', 3.5)")
    pg.execute("INSERT INTO review (movie_id, rating, price) VALUES "
               "('00000000-0000-0000-0000-000000000001', 5, 1.10), ('00000000-0000-0000-0000-000000000001', 4, 2.20), "
               "('00000000-0000-0000-0000-000000000001', 1, NULL)")
    q = _query(SETS, "select Movie { title, likes, dislikes, avg_rating, avg_price, total, best, worst, year, minute, "
                     "rounded, floored, magnitude } filter .title = 'A';")
    rows = pg.execute(q.sql)
    assert [tuple(float(v) if hasattr(v, "as_integer_ratio") and not isinstance(v, int) else v for v in r)
            for r in rows] == [("A", 2, 1, 10 / 3, 1.65, 10, 5, 1, 2020.0, 45.0, -2.0, -3.0, 2.5)]
    assert {f.name: f.type.name for f in q.result if f.name in ("avg_rating", "avg_price", "total", "year")} == {
        "avg_rating": "float64", "avg_price": "decimal", "total": "int64", "year": "float64"}
    # B has no reviews: count and sum are 0, min/max empty, and math::mean of the empty set is an
    # error, as in Gel ("not enough elements in input set").
    q = _query(SETS, "select Movie { title, likes, total, best } filter .title = 'B';")
    assert pg.execute(q.sql) == [("B", 0, 0, None)]
    q = _query(SETS, "select Movie { title, year, rounded } filter .title = 'B';")
    assert pg.execute(q.sql) == [("B", 2021.0, 4.0)]  # in UTC; 3.5 rounds to even
    q = _query(SETS, "select Movie { avg_rating } filter .title = 'B';")
    with pytest.raises(psycopg.Error, match="not enough elements in input set"):
        pg.execute(q.sql)


def test_round_to_digits_of_a_decimal(pg):
    # round(value: decimal, d: int64) -> decimal, half away from zero
    # (https://docs.geldata.com/reference/stdlib/numbers#function::std::round)
    _migrate(pg, SETS)
    pg.execute("INSERT INTO movie (id, title) VALUES ('00000000-0000-0000-0000-000000000001', 'A')")
    pg.execute("INSERT INTO review (movie_id, rating, price) VALUES "
               "('00000000-0000-0000-0000-000000000001', 15, 2.25), ('00000000-0000-0000-0000-000000000001', 25, -2.35), "
               "('00000000-0000-0000-0000-000000000001', 35, NULL)")
    q = _query(SETS, "select Review { p := round(.price, 1), r := round(.rating, -1) } order by .rating;")
    assert {f.name: (f.type.name, f.optional) for f in q.result if f.name in ("p", "r")} == {
        "p": ("decimal", True), "r": ("decimal", False)}
    assert [(str(p) if p is not None else None, str(r)) for p, r in pg.execute(q.sql)] == [
        ("2.3", "20"), ("-2.4", "30"), (None, "40")]
    text = _errors(SETS.replace("property rounded := round(.score);", "property rounded := round(.score, 1);"))
    assert "error[E0304]: round(value, d) needs a decimal value, got float64" in text


def test_std_function_misuse_is_located():
    # (the mean of one value is the value: of a str, a type error, as in Gel)
    text = _errors("type T { s: str; m := math::mean(.s); }")
    assert "s.esdl:1:34: error[E0304]: math::mean() needs numbers, got str" in text
    text = _errors("type T { s: array<int64>; m := math::mean(.s); }")
    assert "error[E0206]: math::mean() of a multi property or an array is not supported yet" in text
    text = _errors("type T { s: str; f := math::floor(.s); }")
    assert "error[E0304]: math::floor() needs a number, got str" in text


def test_gel_server_modules_and_tuples_are_refused_precisely():
    # std::net::http (https://docs.geldata.com/reference/stdlib/net) is a service of the Gel
    # server: not an unknown module.
    text = _errors("type T { a: str; m: net::http::Method; }")
    assert "error[E0206]: 'net::http::Method' belongs to Gel's 'net::http' module, a service of the Gel " \
           "server" in text and "E0208" not in text
    # A function returning one is a declaration (unused, nothing to compile), refused where called.
    text = _errors("function f(x: str) -> net::http::ScheduledRequest using (x);\ntype T { a: str; r := f(.a); }")
    assert "s.esdl:2:23: error[E0206]: function 'f()' cannot be inlined: it returns 'net::http::ScheduledRequest', " \
           "of Gel's 'net::http' module, a service of the Gel server" in text and "E0208" not in text
    # Tuples are properties' types (composite types: tests/migrations/test_gel_tuples.py), not
    # yet parameters'.
    stop = "type Stop { required points: array<tuple<decimal, decimal>>; days: tuple<bool, bool>; }"
    check_library({"s.esdl": stop}, Options(library="c"))
    text = _errors(stop, "select Stop { id } filter .days = <tuple<bool, bool>>$d;")
    assert "q/q.edgeql:1:36: error[E0206]: tuple types ('tuple<bool, bool>') are only supported as a property's " \
           "type yet" in text
