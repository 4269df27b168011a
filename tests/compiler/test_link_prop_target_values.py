"""A link property's value that reads the linked object (geldata/gel
tests/schemas/cards_setup.edgeql: ``deck := (SELECT Card {@count := len(Card.element) - 2}
FILTER .element IN {'Fire', 'Water'})``, ``@count := 4 IF Card.cost = 1 ELSE 1``;
https://docs.geldata.com/reference/datamodel/linkprops): inside the sub-select ``Card`` is each
selected card, so each link gets the value of its own object. Was E0206. On a single link it
stays E0206. On PostgreSQL 15 with data."""

from __future__ import annotations

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  type Card { required name: str { constraint exclusive; } required element: str; required cost: int64; }
  type User {
    required name: str { constraint exclusive; }
    multi deck: Card { count: int64 { default := 1; }; };
    avatar: Card { text: str; };
  }
}
"""
SOURCES = {
    "s.gel": SCHEMA,
    "q/add.edgeql": "insert User { name := <str>$n, deck := (select Card { @count := len(Card.element) - 2 } "
                    "filter .element in {'Fire', 'Water'}) };",
    "q/more.edgeql": "update User filter .name = <str>$n set { deck += (select Card { @count := 4 if Card.cost = 1 "
                     "else 1 } filter .element != 'Fire') };",
    "q/deck.edgeql": "select User { deck: { name, @count } order by .name } filter .name = <str>$n;",
}


def test_link_property_values_of_the_linked_object_on_postgres(pg):
    out = compile_library(SOURCES, Options(library="ltv"))
    pg.execute(out["sql/000001_init.up.sql"])
    pg.execute("""INSERT INTO card (name, element, cost) VALUES ('Imp', 'Fire', 1), ('Dragon', 'Fire', 5),
                  ('Bog monster', 'Water', 2), ('Dwarf', 'Earth', 1)""")
    plans = {q.name: q for q in check_library(SOURCES, Options(library="ltv")).queries}
    pg.execute(plans["add"].sql.replace("$1", "%(n)s"), {"n": "Alice"})
    deck = pg.execute(plans["deck"].sql.replace("$1", "%(n)s"), {"n": "Alice"})[0][0]
    # len('Fire') - 2 = 2, len('Water') - 2 = 3: each link its own object's
    assert [(c["name"], c["@count"]) for c in deck] == [("Bog monster", "3"), ("Dragon", "2"), ("Imp", "2")]
    pg.execute(plans["more"].sql.replace("$1", "%(n)s"), {"n": "Alice"})  # an existing link gets the new value
    deck = pg.execute(plans["deck"].sql.replace("$1", "%(n)s"), {"n": "Alice"})[0][0]
    assert [(c["name"], c["@count"]) for c in deck] == [("Bog monster", "1"), ("Dragon", "2"), ("Dwarf", "4"),
                                                        ("Imp", "2")]


def test_on_a_single_link_it_stays_refused():
    src = dict(SOURCES, **{"q/av.edgeql": "update User filter .name = 'x' set { avatar := (select Card { @text := "
                                          "Card.element } filter .name = 'Imp') };"})
    with pytest.raises(CompileError) as exc:
        check_library(src, Options(library="ltv"))
    assert exc.value.diagnostics[0].code == "E0206"
    assert "reading the linked object is not supported yet on a single link" in exc.value.diagnostics[0].message
