"""A shape written in a ``with`` binding stays on the objects when the query selects the name
itself (https://docs.geldata.com/reference/edgeql/with, .../edgeql/select#shapes):
``with s := (select T { a, b := ... } filter f) select s`` is ``select T { a, b := ... } filter f``
(it was ``{ id }`` only). A shape on the name as well, which would have to be merged with the
binding's, is refused (E0206, located). Run on PostgreSQL 15 with data."""

from __future__ import annotations

import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  type Person { required name: str; }
  type Learner {
    required person: Person;
    field: str;
    score: float64;
  }
}
"""

QUERIES = {
    "good_learners": """
        with good := (select Learner { field, who := .person.name } filter .score > <float64>$min)
        select good order by .person.name""",
    "plain_shape": """
        with good := (select Learner { field, score } filter .score > 2)
        select good order by .score desc""",
    "inline": "select Learner { field, who := .person.name } filter .score > <float64>$min order by .person.name",
}


def _sources():
    src = {"lib/schema.esdl": SCHEMA}
    src.update({f"lib/{k}.edgeql": v for k, v in QUERIES.items()})
    return src


def _plans():
    return {q.name: q for q in check_library(_sources(), Options(library="lib")).queries}


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return [tuple(r) for r in pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})]


@pytest.fixture
def db(pg):
    pg.execute(compile_library(_sources(), Options(library="lib"))["sql/schema.sql"])
    pg.execute("INSERT INTO person (name) VALUES ('ivy'), ('jon'), ('kim')")
    pg.execute("INSERT INTO learner (person_id, field, score) SELECT id, 'math', 3.5 FROM person WHERE name = 'ivy'")
    pg.execute("INSERT INTO learner (person_id, field, score) SELECT id, 'art', 2.5 FROM person WHERE name = 'jon'")
    pg.execute("INSERT INTO learner (person_id, field, score) SELECT id, NULL, 3.9 FROM person WHERE name = 'kim'")
    return pg


def test_selecting_the_name_outputs_the_binding_shape(db):
    plans = _plans()
    plan = plans["good_learners"]
    assert [f.name for f in plan.result] == ["field", "who"]
    assert _run(db, plan, min=3.0) == [("math", "ivy"), (None, "kim")]
    assert _run(db, plan, min=3.0) == _run(db, plans["inline"], min=3.0)
    assert _run(db, plan, min=9.0) == []
    plain = plans["plain_shape"]
    assert [f.name for f in plain.result] == ["field", "score"]
    assert _run(db, plain) == [(None, 3.9), ("math", 3.5), ("art", 2.5)]


def test_a_second_shape_on_the_name_is_refused():
    query = """with good := (select Learner { field, who := .person.name } filter .score > 3)
select good { score }"""
    sources = {"lib/schema.esdl": SCHEMA, "lib/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="lib"))
    text = exc.value.render(sources)
    assert "error[E0206]: a shape on 'good', whose 'with' binding has a shape of its own" in text
    assert "lib/q.edgeql:2:8" in text
