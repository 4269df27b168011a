"""Inside ``(select detached T filter ...)`` the detached set's object is ``.x``, while ``T`` /
``T.x`` still names the enclosing query's object (https://docs.geldata.com/reference/stdlib/set#operator::detached):
``select Book { dup := exists (select detached Book filter .title = Book.title and .id != Book.id) }``
is true for a book whose title another book has; the same in a schema computed and in an
update's multi link, ``update User set { follows := (select detached User filter User.name !=
.name) }`` (each user follows every other). An insert's multi link reading the inserted object
that way is a located E0206. Run on PostgreSQL 15 with data."""

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


USERS = "type User { required name: str; multi follows: User; }"


def test_an_update_links_each_object_to_the_others(pg):
    queries = {"all": "update User set { follows := (select detached User filter User.name != .name) };",
               "more": "update User filter .name = <str>$name set { follows += (select detached User filter "
                       ".name > User.name) };"}
    pg.execute(compile_library(_sources(queries, USERS), Options(library="lib"))["sql/schema.sql"])
    pg.execute("INSERT INTO \"user\" (name) VALUES ('a'), ('b'), ('c'), ('d')")
    pg.execute("INSERT INTO user_follows (source_id, target_id) SELECT s.id, t.id FROM \"user\" s, \"user\" t "
               "WHERE s.name = 'a' AND t.name = 'b'")
    plans = {q.name: q for q in check_library(_sources(queries, USERS), Options(library="lib")).queries}
    follows = ("SELECT s.name, t.name FROM user_follows j JOIN \"user\" s ON s.id = j.source_id "
               "JOIN \"user\" t ON t.id = j.target_id ORDER BY 1, 2")
    pg.execute("DELETE FROM \"user\" WHERE name = 'd'")
    _run(pg, plans["all"])
    assert [tuple(r) for r in pg.execute(follows)] == [
        ("a", "b"), ("a", "c"), ("b", "a"), ("b", "c"), ("c", "a"), ("c", "b")]
    pg.execute("INSERT INTO \"user\" (name) VALUES ('d')")
    _run(pg, plans["more"], name="b")
    assert [tuple(r) for r in pg.execute(follows)][2:5] == [("b", "a"), ("b", "c"), ("b", "d")]


def test_a_multi_link_reading_the_inserted_object_is_refused():
    queries = {"add": "insert User { name := <str>$name, follows := (select detached User filter User.name != .name) };"}
    with pytest.raises(CompileError) as e:
        check_library(_sources(queries, USERS), Options(library="lib"))
    d = next(d for d in e.value.diagnostics)
    assert d.code == "E0206" and "reading the inserted object ('User.name')" in d.message
