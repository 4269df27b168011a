"""Gel's json index and casts are strict (https://docs.geldata.com/reference/stdlib/json):
``j['k']`` of an object without the member ``k`` and ``j[i]`` out of range fail the statement
("JSON index 'k' is out of bounds", operator::jsonobjdest / operator::jsonidx), so a bulk write
with a missing member writes nothing; ``<T>json`` accepts only the JSON type ``T`` reads (a
number for the numeric types, a string for ``str`` and the other scalars, a boolean for
``bool``; JSON null is empty). Proven on PostgreSQL 15 with data."""

from __future__ import annotations

import json

import psycopg
import pytest

from libraries import run_plan
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module default {
  type Book {
    required isbn: str { constraint exclusive; };
    price: decimal;
    stock: int32;
  }
}
"""


def _plans(**queries):
    sources = {"default.gel": SCHEMA}
    sources.update({f"q/{k}.edgeql": v for k, v in queries.items()})
    return {q.name: q for q in check_library(sources, Options(library="c")).queries}


def _migrate(pg) -> None:
    pg.execute(compile_library({"default.gel": SCHEMA}, Options(library="c"))["sql/000001_init.up.sql"])


def _run(pg, q, **values):
    return run_plan(pg, q, *[values[p.name] for p in q.params])


BULK = ("for x in json_array_unpack(<json>$items) union ("
        "update Book filter .isbn = <str>x['isbn'] set { price := <decimal>x['price'] });")


def test_a_missing_json_member_fails_a_bulk_update_and_writes_nothing(pg):
    _migrate(pg)
    pg.execute("INSERT INTO book (isbn, price) VALUES ('1', 12.50), ('2', 3)")
    q = _plans(bulk=BULK)["bulk"]
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="JSON index 'price' is out of bounds"):
        _run(pg, q, items=json.dumps([{"isbn": "2", "price": 4}, {"isbn": "1"}]))
    assert sorted(pg.execute("SELECT isbn, price::text FROM book")) == [("1", "12.50"), ("2", "3")]
    # JSON null is empty (Gel's <decimal> of JSON null is {})
    _run(pg, q, items=json.dumps([{"isbn": "1", "price": None}, {"isbn": "2", "price": 4.5}]))
    assert sorted(pg.execute("SELECT isbn, price::text FROM book")) == [("1", None), ("2", "4.5")]


def test_json_index_out_of_range_and_of_the_wrong_json_type_fail(pg):
    _migrate(pg)
    q = _plans(ix="select <str>(<json>$j)[<int64>$i];", key="select <str>(<json>$j)['a'];",
               get="select <str>json_get(<json>$j, 'a');")
    assert _run(pg, q["ix"], j='["x", "y"]', i=1) == [("y",)]
    assert _run(pg, q["ix"], j='["x", "y"]', i=-2) == [("x",)]
    for bad in (2, -3):
        with pytest.raises(psycopg.errors.InvalidTextRepresentation, match=f"JSON index {bad} is out of bounds"):
            _run(pg, q["ix"], j='["x", "y"]', i=bad)
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="cannot index JSON object by bigint"):
        _run(pg, q["ix"], j='{"a": "x"}', i=0)
    assert _run(pg, q["key"], j='{"a": "x"}') == [("x",)]
    assert _run(pg, q["key"], j='{"a": null}') == [(None,)]
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="JSON index 'a' is out of bounds"):
        _run(pg, q["key"], j='{"b": "x"}')
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="cannot index JSON array by text"):
        _run(pg, q["key"], j='["a"]')
    # json_get is the way to read a member that may be missing
    assert _run(pg, q["get"], j='{"b": "x"}') == [(None,)]


def test_json_casts_accept_only_the_json_type_gel_reads(pg):
    _migrate(pg)
    q = _plans(i="select <int32>(<json>$j);", s="select <str>(<json>$j);", b="select <bool>(<json>$j);",
               d="select <decimal>(<json>$j);", u="select <uuid>(<json>$j);",
               a="select <array<int64>>(<json>$j);",
               stock="for k in json_object_unpack(<json>$stock) union ("
                     "update Book filter .isbn = k.0 set { stock := <int32>k.1 });")
    assert _run(pg, q["i"], j="5") == [(5,)]
    assert _run(pg, q["i"], j="null") == [(None,)]
    assert _run(pg, q["s"], j='"x"') == [("x",)]
    assert _run(pg, q["b"], j="true") == [(True,)]
    assert str(_run(pg, q["d"], j="1.25")[0][0]) == "1.25"
    assert _run(pg, q["a"], j="[3, 1]") == [([3, 1],)]
    assert _run(pg, q["a"], j="null") == [(None,)]
    bad = [("i", '"5"', "expected json number or null; got JSON string"),
           ("d", "true", "expected json number or null; got JSON boolean"),
           ("s", "5", "expected json string or null; got JSON number"),
           ("s", '["a"]', "expected json string or null; got JSON array"),
           ("b", '"true"', "expected json boolean or null; got JSON string"),
           ("u", "1", "expected json string or null; got JSON number"),
           ("a", '"1"', "expected json array; got JSON string"),
           ("a", '[1, "2"]', "expected json number or null; got JSON string")]
    for name, j, message in bad:
        with pytest.raises(psycopg.errors.InvalidTextRepresentation, match=message):
            _run(pg, q[name], j=j)
    pg.execute("INSERT INTO book (isbn, stock) VALUES ('111', 1)")
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="expected json number or null; got JSON string"):
        _run(pg, q["stock"], stock=json.dumps({"111": "5"}))
    assert pg.execute("SELECT stock FROM book") == [(1,)]
    _run(pg, q["stock"], stock=json.dumps({"111": 5}))
    assert pg.execute("SELECT stock FROM book") == [(5,)]


def test_an_object_cast_to_json_is_a_located_e0206(pg):
    # Gel serialises an object cast to json as its shape (https://docs.geldata.com/reference/stdlib/json);
    # schemac gave its id: refused, naming the form, until the shape is serialised.
    from schemac.diagnostics import CompileError

    _migrate(pg)
    for query, col in [("select <json>(select Book { isbn, price } filter .isbn = <str>$isbn);", 8),
                       ("with b := (select Book { isbn } filter .isbn = <str>$isbn) select <json>b;", 67),
                       ("select <json>(select Book filter .isbn = <str>$isbn);", 8)]:
        sources = {"default.gel": SCHEMA, "q/j.edgeql": query}
        with pytest.raises(CompileError) as exc:
            check_library(sources, Options(library="c"))
        text = exc.value.render(sources)
        assert f"q/j.edgeql:1:{col}" in text and "error[E0206]: casting an object ('Book') to json" in text, text
    # a uuid stays a JSON string
    q = _plans(ids="select Book { j := <json>.id } filter .isbn = <str>$isbn;")["ids"]
    pg.execute("INSERT INTO book (isbn) VALUES ('1')")
    (row,) = _run(pg, q, isbn="1")
    assert row[-1] == str(pg.execute("SELECT id FROM book")[0][0])
