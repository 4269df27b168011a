"""A concrete type other types extend (https://docs.geldata.com/reference/datamodel/inheritance):
every object of a subtype is an object of the parent, so ``select Item { ... }`` reads the
parent's table and each subtype's, UNION ALL (as a select of an abstract type,
https://docs.geldata.com/reference/edgeql/select#polymorphic-queries); the forms that would read
only the parent's table (count(Item), sum(Item.x), update/delete Item, a with selection of Item,
fts::search(Item, ...)) are a located E0206. Proven on PostgreSQL 15 with data."""

from __future__ import annotations

import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module default {
  type Item { required title: str; stock: int32 { default := 0 }; }
  type Book extending Item { required isbn: str { constraint exclusive; }; }
  type Movie extending Item { director: str; }
}
"""


def _plans(**queries):
    sources = {"default.gel": SCHEMA}
    sources.update({f"q/{k}.edgeql": v for k, v in queries.items()})
    return {q.name: q for q in check_library(sources, Options(library="c")).queries}


def test_a_select_of_a_concrete_parent_reads_its_subtypes_objects(pg):
    pg.execute(compile_library({"default.gel": SCHEMA}, Options(library="c"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO item (title, stock) VALUES ('lamp', 1)")
    pg.execute("INSERT INTO book (title, stock, isbn) VALUES ('Dune', 2, '1'), ('Emma', 0, '2')")
    pg.execute("INSERT INTO movie (title, stock, director) VALUES ('Alien', 3, 'Scott')")
    q = _plans(items="select Item { title, stock, [is Book].isbn } filter .stock > 0 order by .title;",
               books="select Book { title } order by .title;")
    assert run_plan(pg, q["items"]) == [("Alien", 3, None), ("Dune", 2, "1"), ("lamp", 1, None)]
    assert run_plan(pg, q["books"]) == [("Dune",), ("Emma",)]


@pytest.mark.parametrize("query, col", [
    ("select count(Item);", 14),
    ("select { s := sum(Item.stock) };", 19),
    ("update Item filter .title = <str>$t set { stock := 1 };", 8),
    ("delete Item filter .title = <str>$t;", 8),
    ("with x := (select Item filter .stock > 0) select x { title };", 50),
])
def test_forms_reading_only_the_parents_table_are_a_located_e0206(query, col):
    sources = {"default.gel": SCHEMA, "q/a.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    text = exc.value.render(sources)
    assert f"q/a.edgeql:1:{col}" in text and "error[E0206]" in text and "a type other types extend (Book, Movie" in text, text
