"""Membership in sets a query reaches and empty sets of objects, with Gel's semantics
(https://docs.geldata.com/reference/edgeql/sets), run on PostgreSQL 15 with data:

* ``x in .all_items`` / ``x not in .all_items`` of a computed link (here a union of two multi
  links, https://docs.geldata.com/reference/datamodel/computeds): whether the object is one of
  the link's objects;
* ``.rank in boxes.pick.rank`` of a property of the objects a path reaches from a ``with``
  selection (through a single or a multi link): whether the value is one of theirs; an empty
  value is no element (``not in`` stays true beside a box whose pick has no rank), and ``{} in
  S`` is empty (the object is not kept either way);
* aggregates of a path through a multi link in a filter (``re_test(p, array_join(array_agg((select
  .items.code)), ' '))``, ``count`` / ``sum`` / ``min`` / ``max`` / ``math::mean``): one value of
  each object; ``count(.items.rank)`` counts the values (in a shape too);
* ``<Item>{}``, the empty set of a type's objects (https://docs.geldata.com/reference/edgeql/casts),
  as a branch of ``(select Item filter ...) if exists code else <Item>{}``: a link's value that
  is at most one object, none when the branch is the empty set.
"""

from __future__ import annotations

import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  type Item {
    required code: str { constraint exclusive; };
    rank: int32;
  }
  type Box {
    required label: str { constraint exclusive; };
    multi items: Item;
    multi extra: Item;
    multi link all_items := .items union .extra;
    pick: Item;
  }
}
"""

QUERIES = {
    "box_with_item": """
        with item := (select Item filter .code = <str>$code)
        select Box { label } filter item in .all_items order by .label""",
    "box_without_item": """
        with item := (select Item filter .code = <str>$code)
        select Box { label } filter item not in .all_items order by .label""",
    "box_with_optional_item": """
        with item := (select Item filter .code = <optional str>$code)
        select Box { label, has := item in .all_items } order by .label""",
    "items_in_picks": """
        with boxes := (select Box filter .label like <str>$pattern)
        select Item { code } filter .rank in boxes.pick.rank order by .code""",
    "items_not_in_picks": """
        with boxes := (select Box filter .label like <str>$pattern)
        select Item { code } filter .rank not in boxes.pick.rank order by .code""",
    "items_in_contents": """
        with boxes := (select Box filter .label like <str>$pattern)
        select Item { code } filter .code in boxes.items.code order by .code""",
    "boxes_by_codes": """
        select Box { label }
        filter re_test(<str>$pattern, array_join(array_agg((select .items.code order by .items.code)), ' '))
        order by .label""",
    "boxes_by_rank_sum": "select Box { label } filter sum(.items.rank) >= <int64>$least order by .label",
    "boxes_by_rank_max": "select Box { label } filter max(.all_items.rank) = <int32>$rank order by .label",
    "boxes_by_rank_mean": "select Box { label } filter math::mean(.items.rank) < <float64>$below order by .label",
    "boxes_counts": "select Box { label, n := count(.items.rank), m := count(.all_items.code) } order by .label",
    "boxes_by_rank_count": "select Box { label } filter count(.all_items.rank) = <int64>$n order by .label",
    "box_set_pick": """
        with code := <optional str>$code,
          picked := ((select Item filter .code = code) if exists code else <Item>{}),
        update Box filter .label = <str>$label set { pick := picked }""",
    "box_set_pick_first": """
        with code := <optional str>$code,
          picked := (<Item>{} if not exists code else (select Item filter .code = code)),
        update Box filter .label = <str>$label set { pick := picked }""",
}


def _sources(queries=QUERIES):
    src = {"lib/schema.esdl": SCHEMA}
    src.update({f"lib/{k}.edgeql": v for k, v in queries.items()})
    return src


def _plans():
    return {q.name: q for q in check_library(_sources(), Options(library="lib")).queries}


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return [tuple(r) for r in pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})]


def _errors(query: str) -> str:
    sources = {"lib/schema.esdl": SCHEMA, "lib/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="lib"))
    return exc.value.render(sources)


@pytest.fixture
def db(pg):
    pg.execute(compile_library(_sources(), Options(library="lib"))["sql/schema.sql"])
    pg.execute("INSERT INTO item (code, rank) VALUES ('a', 1), ('b', 2), ('c', NULL), ('d', 4)")
    pg.execute("INSERT INTO box (label, pick_id) VALUES "
               "('x1', (SELECT id FROM item WHERE code = 'a')), "
               "('x2', (SELECT id FROM item WHERE code = 'c')), "
               "('y1', NULL), ('z1', NULL)")
    pg.execute("INSERT INTO box_items (source_id, target_id) SELECT b.id, i.id FROM box b, item i "
               "WHERE (b.label, i.code) IN (('x1', 'a'), ('x1', 'b'), ('y1', 'd'))")
    pg.execute("INSERT INTO box_extra (source_id, target_id) SELECT b.id, i.id FROM box b, item i "
               "WHERE (b.label, i.code) IN (('x2', 'b'), ('y1', 'c'))")
    return pg


def test_membership_in_a_computed_link(db):
    plans = _plans()
    # (x1 holds a, b through items; x2 holds b through extra; y1 holds d, and c through extra)
    assert _run(db, plans["box_with_item"], code="b") == [("x1",), ("x2",)]
    assert _run(db, plans["box_with_item"], code="c") == [("y1",)]
    assert _run(db, plans["box_without_item"], code="b") == [("y1",), ("z1",)]
    # `{} in S` is empty: no item, no box kept, in or not in (z1 holds no item at all)
    assert _run(db, plans["box_with_item"], code="zz") == []
    assert _run(db, plans["box_without_item"], code="zz") == []
    assert _run(db, plans["box_with_optional_item"], code="a") == [("x1", True), ("x2", False), ("y1", False), ("z1", False)]
    assert _run(db, plans["box_with_optional_item"], code=None) == [("x1", None), ("x2", None), ("y1", None), ("z1", None)]


def test_membership_in_the_values_of_a_path_from_a_with_selection(db):
    plans = _plans()
    # the picks of x1 and x2 are a (rank 1) and c (no rank): the ranks are {1}
    assert _run(db, plans["items_in_picks"], pattern="x%") == [("a",)]
    # an empty value is no element: b and d are not in {1}; c has no rank, so it is never kept
    assert _run(db, plans["items_not_in_picks"], pattern="x%") == [("b",), ("d",)]
    # y1 picks nothing: the set is empty, every item with a rank is not in it
    assert _run(db, plans["items_in_picks"], pattern="y%") == []
    assert _run(db, plans["items_not_in_picks"], pattern="y%") == [("a",), ("b",), ("d",)]
    # through a multi link: the items of x1 (a, b)
    assert _run(db, plans["items_in_contents"], pattern="x%") == [("a",), ("b",)]
    assert _run(db, plans["items_in_contents"], pattern="%") == [("a",), ("b",), ("d",)]


def test_aggregates_of_a_multi_link_path_in_a_filter(db):
    # (an aggregate is one value of the object at hand, whatever surrounds it:
    # https://docs.geldata.com/reference/stdlib/set; musicbot's gen_playlist filters on
    # re_test(k, array_join(array_agg((select .keywords.name)), ' ')))
    plans = _plans()
    # the items' codes: x1 'a b', x2 '' (its b is in extra), y1 'd', z1 ''
    assert _run(db, plans["boxes_by_codes"], pattern="^a b$") == [("x1",)]
    assert _run(db, plans["boxes_by_codes"], pattern="^$") == [("x2",), ("z1",)]
    # sum of no value is 0 (x2, z1 hold no items); x1: 1 + 2, y1: 4
    assert _run(db, plans["boxes_by_rank_sum"], least=0) == [("x1",), ("x2",), ("y1",), ("z1",)]
    assert _run(db, plans["boxes_by_rank_sum"], least=4) == [("y1",)]
    # max of the non-empty values (y1's c has no rank); of none it is empty: no box kept
    assert _run(db, plans["boxes_by_rank_max"], rank=4) == [("y1",)]
    assert _run(db, plans["boxes_by_rank_max"], rank=2) == [("x1",), ("x2",)]
    # count() of a path's values counts the values (c has no rank, so it is not counted)
    assert _run(db, plans["boxes_counts"]) == [("x1", 2, 2), ("x2", 0, 1), ("y1", 1, 2), ("z1", 0, 0)]
    assert _run(db, plans["boxes_by_rank_count"], n=1) == [("x2",), ("y1",)]
    assert _run(db, plans["boxes_by_rank_count"], n=0) == [("z1",)]
    # the mean of no value fails the statement, as Gel's math::mean of an empty set
    # (https://docs.geldata.com/reference/stdlib/math#function::math::mean); x2 and z1 hold no item
    with pytest.raises(Exception, match="invalid input to mean"):
        _run(db, plans["boxes_by_rank_mean"], below=2.0)
    db.execute("DELETE FROM box WHERE label IN ('x2', 'z1')")
    assert _run(db, plans["boxes_by_rank_mean"], below=2.0) == [("x1",)]


def test_an_empty_set_of_objects_as_a_branch_of_a_link_value(db):
    plans = _plans()

    def pick(label):
        return db.execute("SELECT i.code FROM box b LEFT JOIN item i ON i.id = b.pick_id WHERE b.label = %s",
                          (label,))

    for name in ("box_set_pick", "box_set_pick_first"):
        assert len(_run(db, plans[name], code="d", label="y1")) == 1
        assert pick("y1") == [("d",)]
        assert len(_run(db, plans[name], code=None, label="y1")) == 1
        assert pick("y1") == [(None,)]
        # an unknown code selects no item either
        _run(db, plans[name], code="b", label="y1")
        _run(db, plans[name], code="zz", label="y1")
        assert pick("y1") == [(None,)]


def test_refused_membership_forms_are_located():
    text = _errors("with boxes := (select Box) select Item { code } filter .code in boxes.pick.rank")
    assert "error[E0304]: 'in' compares str with int32 values" in text
    text = _errors("select Box { label } filter 'a' in .all_items")
    assert "error[E0304]: 'in' compares str with Item objects" in text
