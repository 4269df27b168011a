"""Inside ``(select detached T filter ...)`` the detached set's object is ``.x``, while ``T`` /
``T.x`` still names the enclosing query's object (https://docs.geldata.com/reference/stdlib/set#operator::detached):
``select Book { dup := exists (select detached Book filter .title = Book.title and .id != Book.id) }``
is true for a book whose title another book has; the same in a schema computed. A multi
link's value in an update or insert that reads the written object that way is a located E0206
(its statements cannot read that object yet). Run on PostgreSQL 15 with data."""

from __future__ import annotations

import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
type Book {
  required title: str;
  required isbn: str { constraint exclusive; };
  property twins := count((select detached Book filter .title = Book.title)) - 1;
}
"""

QUERIES = {
    "dups": "select Book { isbn, dup := exists (select detached Book filter .title = Book.title and .id != Book.id) }"
            " order by .isbn;",
    "others": "select Book { isbn, others := count((select detached Book filter .title != Book.title)) } order by .isbn;",
    "twins": "select Book { isbn, twins } order by .isbn;",
}


def _sources(queries=QUERIES, schema=SCHEMA):
    src = {"lib/schema.esdl": schema}
    src.update({f"lib/{k}.edgeql": v for k, v in queries.items()})
    return src


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return [tuple(r) for r in pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})]


def test_detached_sub_select_reads_the_enclosing_object(pg):
    pg.execute(compile_library(_sources(), Options(library="lib"))["sql/schema.sql"])
    pg.execute("INSERT INTO book (title, isbn) VALUES ('Dune', '1'), ('Dune', '2'), ('Emma', '3')")
    plans = {q.name: q for q in check_library(_sources(), Options(library="lib")).queries}
    assert [r[-1] for r in _run(pg, plans["dups"])] == [True, True, False]
    assert [r[-1] for r in _run(pg, plans["others"])] == [1, 1, 2]
    assert [r[-1] for r in _run(pg, plans["twins"])] == [1, 1, 0]


def test_a_multi_link_reading_the_updated_object_is_refused():
    schema = "type User { required name: str; multi follows: User; }"
    queries = {"all": "update User set { follows := (select detached User filter User.name != .name) };"}
    with pytest.raises(CompileError) as e:
        check_library(_sources(queries, schema), Options(library="lib"))
    d = next(d for d in e.value.diagnostics)
    assert d.code == "E0206" and "reading the updated object ('User.name')" in d.message
