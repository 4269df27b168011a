"""The subject of a select / update / delete is bound in its shape (nested shapes too), filter,
order by and set values (https://docs.geldata.com/reference/edgeql/path_resolution): there
``Post`` is the post at hand, ``count(Post)`` is 1, ``count(Post.comments)`` its comments,
``(select .friends filter .name != User.name)`` compares with the outer user; ``detached Post``
is every post. A reading of the bound name that is not lowered is a located E0206 (never every
object). Run on PostgreSQL 15 with data."""

from __future__ import annotations

import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
type Note { required text: str; }
type Post { required title: str; multi notes: Note; }
type Person { required name: str; multi pals: Person; }
"""

QUERIES = {
    "counts": "select Post { title, one := count(Post), sel := count((select Post)), all_ := count(detached Post),"
              " n := count(Post.notes), t := array_agg(Post.title), e := exists Post } order by .title;",
    "busy": "select Post { title } filter count(Post.notes) > 1 and count(Post) = 1 order by count(Post.notes);",
    "pals": "select Person { name, pals: { name, one := count(Person), outer := Person.name } order by .name }"
            " order by .name;",
    "others": "select Person { name, n := count((select .pals filter .name != Person.name)) } order by .name;",
    "loop": "for t in {'a', 'b'} union (select Post { title, n := count(Post), m := count(Post.notes) } filter .title = t);",
    "named": "with u := (select Post filter .title != 'c') select u { title, n := count(u), e := exists u } order by .title;",
    "retitle": "update Post filter .title = <str>$t set { title := Post.title ++ '!' ++ <str>count(Post.notes) };",
    "drop": "delete Post filter Post.title = <str>$t and count(Post.notes) = 0;",
}


def _sources(queries=QUERIES):
    src = {"lib/schema.esdl": SCHEMA}
    src.update({f"lib/{k}.edgeql": v for k, v in queries.items()})
    return src


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return [tuple(r) for r in pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})]


def test_the_subject_is_the_object_at_hand(pg):
    pg.execute(compile_library(_sources(), Options(library="lib"))["sql/schema.sql"])
    pg.execute("INSERT INTO note (text) VALUES ('n1'), ('n2')")
    pg.execute("INSERT INTO post (title) VALUES ('a'), ('b'), ('c')")
    pg.execute("INSERT INTO post_notes (source_id, target_id) SELECT p.id, n.id FROM post p, note n "
               "WHERE p.title = 'a' OR (p.title = 'b' AND n.text = 'n1')")
    pg.execute("INSERT INTO person (name) VALUES ('x'), ('y'), ('z')")
    pg.execute("INSERT INTO person_pals (source_id, target_id) SELECT s.id, t.id FROM person s, person t "
               "WHERE (s.name = 'x' AND t.name IN ('x', 'y', 'z')) OR (s.name = 'y' AND t.name = 'z')")
    plans = {q.name: q for q in check_library(_sources(), Options(library="lib")).queries}
    assert _run(pg, plans["counts"]) == [("a", 1, 1, 3, 2, ["a"], True), ("b", 1, 1, 3, 1, ["b"], True),
                                         ("c", 1, 1, 3, 0, ["c"], True)]
    assert _run(pg, plans["busy"]) == [("a",)]
    pals = {name: [(p["name"], int(p["one"]), p["outer"]) for p in ps] for name, ps in _run(pg, plans["pals"])}
    assert pals == {"x": [("x", 1, "x"), ("y", 1, "x"), ("z", 1, "x")], "y": [("z", 1, "y")], "z": []}
    assert _run(pg, plans["others"]) == [("x", 2), ("y", 1), ("z", 0)]
    assert sorted(_run(pg, plans["loop"])) == [("a", 1, 2), ("b", 1, 1)]
    assert _run(pg, plans["named"]) == [("a", 1, True), ("b", 1, True)]
    _run(pg, plans["retitle"], t="a")
    _run(pg, plans["drop"], t="c")
    _run(pg, plans["drop"], t="b")
    assert [r[0] for r in pg.execute("SELECT title FROM post ORDER BY title")] == ["a!2", "b"]


@pytest.mark.parametrize("query, col", [
    ("select Post { title, x := exists (select Post filter .title = 'a') };", 34),
    ("select Post { title, x := (select Post filter .title = 'a').title };", 27),
])
def test_other_readings_of_the_bound_name_are_e0206(query, col):
    with pytest.raises(CompileError) as e:
        check_library(_sources({"q": query}), Options(library="lib"))
    d = e.value.diagnostics[0]
    assert d.code == "E0206" and "'Post' here is the Post object at hand" in d.message, d.message
    assert (d.span.line, d.span.col) == (1, col) and "detached Post" in d.hint


def test_update_global_does_not_bind_its_type():
    # `update global me set { pals += (select Person filter ...) }`: the subject is the global, so
    # `Person` there is every person (it is bound in `update Person ...`).
    schema = SCHEMA + "global me_id: uuid;\nglobal me := (select Person filter .id = global me_id);\n"
    queries = {"add": "update global me set { pals += (select Person filter .name = <str>$n) };"}
    src = {"lib/schema.esdl": schema, "lib/add.edgeql": queries["add"]}
    assert [q.name for q in check_library(src, Options(library="lib")).queries] == ["add"]
    src["lib/add.edgeql"] = "update Person filter .name = 'x' set { pals += (select Person filter .name = <str>$n) };"
    with pytest.raises(CompileError) as e:
        check_library(src, Options(library="lib"))
    assert e.value.diagnostics[0].code == "E0206" and "detached Person" in e.value.diagnostics[0].hint
