"""Sets of objects and the standard-library functions real query files use, each with Gel's
semantics (https://docs.geldata.com/reference/edgeql/sets, .../stdlib/*), run on PostgreSQL 15
with data:

* a ``with`` selection as the value of a multi link (``messages := m``, ``tags += m``,
  https://docs.geldata.com/reference/edgeql/insert#links);
* ``with f := (select T filter a) if cond else (select T)``: the objects of the branch ``cond``
  picks (https://docs.geldata.com/reference/edgeql/expressions), none when it is empty;
* ``{}`` typed by its context (``x if c else {}``);
* ``random()``, ``contains()`` of str, bytes and arrays, ``cal::date_get()``.
"""

from __future__ import annotations

import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  type User { required name: str { constraint exclusive; } }
  type Account {
    required username: str;
    required user: User;
  }
  type Message {
    required mid: str { constraint exclusive; }
    required content: str;
    channel: str;
    data: bytes;
    tags: array<str>;
    born: cal::local_date;
    at: cal::local_datetime;
  }
  type Page {
    required context: str;
    multi messages: Message;
  }
}
"""

QUERIES = {
    "page_insert": """
        with ids := <array<str>>$ids,
          msgs := (select Message filter .mid in array_unpack(ids))
        insert Page { context := <str>$context, messages := msgs }""",
    "page_add": """
        with msgs := (select Message filter .content like <str>$pattern)
        update Page filter .id = <uuid>$id set { messages += msgs }""",
    "page_set": """
        with msgs := (select Message filter .content like <str>$pattern)
        update Page filter .id = <uuid>$id set { messages := msgs }""",
    "page_messages": "select Page { context, messages: { mid } order by .mid } filter .id = <uuid>$id",
    "accounts": """
        with username := <optional str>$username,
          filtered := ((select Account filter .username = username) if exists username else (select Account))
        select filtered { username, user: { name } } order by .username""",
    "accounts_if_flag": """
        with f := <optional bool>$f,
          filtered := ((select Account filter .username = 'b') if f else (select Account filter .username != 'b'))
        select filtered { username } order by .username""",
    "maybe_channel": "select Message { mid, ch := (.channel if <bool>$show else {}) } order by .mid",
    "maybe_channel_first": "select Message { mid, ch := ({} if <bool>$hide else .channel) } order by .mid",
    "random_pick": "select Message { mid } order by random() limit 1",
    "random_value": "select random()",
    "contains_str": "select Message { mid } filter contains(.content, <str>$needle) order by .mid",
    "contains_bytes": "select Message { mid } filter contains(.data, <bytes>$needle) order by .mid",
    "contains_array": "select Message { mid } filter contains(.tags, <str>$needle) order by .mid",
    "contains_value": "select contains(<optional str>$h, <optional str>$n)",
    "born_in": "select Message { mid, m := cal::date_get(.born, 'month'), d := cal::date_get(.born, 'day') } "
               "filter cal::date_get(.born, 'month') = <int32>$month order by .mid",
    "at_hour": "select Message { mid, h := datetime_get(.at, 'hour') } filter exists .at order by .mid",
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


def _errors(query: str) -> str:
    sources = {"lib/schema.esdl": SCHEMA, "lib/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="lib"))
    return exc.value.render(sources)


@pytest.fixture
def db(pg):
    pg.execute(compile_library(_sources(), Options(library="lib"))["sql/schema.sql"])
    pg.execute("INSERT INTO \"user\" (name) VALUES ('ann'), ('bob')")
    pg.execute("INSERT INTO account (username, user_id) SELECT 'a', id FROM \"user\" WHERE name = 'ann'")
    pg.execute("INSERT INTO account (username, user_id) SELECT 'b', id FROM \"user\" WHERE name = 'bob'")
    pg.execute("INSERT INTO message (mid, content, channel, data, tags, born, at) VALUES "
               "('m1', 'hello imgur', 'c1', '\\x010203', ARRAY['x', 'y'], '2000-03-14', '2024-01-02 03:04:05'), "
               "('m2', 'plain', NULL, '\\x0405', ARRAY[]::text[], '1999-12-31', NULL), "
               "('m3', 'more imgur', 'c2', NULL, NULL, NULL, '2024-01-02 23:00:00')")
    return pg


def test_a_with_selection_is_the_value_of_a_multi_link(db):
    plans = _plans()
    page = _run(db, plans["page_insert"], ids=["m1", "m3", "nope"], context="ctx")[0][0]
    assert _messages(db, plans, page) == ["m1", "m3"]
    _run(db, plans["page_add"], id=page, pattern="plain")
    assert _messages(db, plans, page) == ["m1", "m2", "m3"]
    # `:=` replaces the links: those of the selection only
    _run(db, plans["page_set"], id=page, pattern="%imgur")
    assert _messages(db, plans, page) == ["m1", "m3"]
    _run(db, plans["page_set"], id=page, pattern="none")
    assert _messages(db, plans, page) == []


def _messages(db, plans, page):
    import json

    row = _run(db, plans["page_messages"], id=page)[0]
    messages = row[1] if isinstance(row[1], list) else json.loads(row[1])
    return [m["mid"] for m in messages]


def test_if_else_of_two_selections_is_the_branch_its_condition_picks(db):
    plans = _plans()
    assert [r[0] for r in _run(db, plans["accounts"], username="b")] == ["b"]
    assert [r[0] for r in _run(db, plans["accounts"], username=None)] == ["a", "b"]
    assert [r[0] for r in _run(db, plans["accounts"], username="zz")] == []
    assert [r[0] for r in _run(db, plans["accounts_if_flag"], f=True)] == ["b"]
    assert [r[0] for r in _run(db, plans["accounts_if_flag"], f=False)] == ["a"]
    # an empty condition: `if ... else` gives the empty set, no objects
    assert _run(db, plans["accounts_if_flag"], f=None) == []
    # (the accounts keep their result type: a list of objects)
    assert plans["accounts"].cardinality == "many"


def test_an_empty_set_takes_the_type_of_the_other_branch(db):
    plans = _plans()
    assert _run(db, plans["maybe_channel"], show=True) == [("m1", "c1"), ("m2", None), ("m3", "c2")]
    assert _run(db, plans["maybe_channel"], show=False) == [("m1", None), ("m2", None), ("m3", None)]
    assert _run(db, plans["maybe_channel_first"], hide=False) == [("m1", "c1"), ("m2", None), ("m3", "c2")]
    field = next(f for f in plans["maybe_channel"].result if f.name == "ch")
    assert field.optional and field.type.name == "str"
    # `{}` with nothing to give it a type is still refused, located
    assert "E0206" in _errors("select {}")


def test_random(db):
    plans = _plans()
    assert _run(db, plans["random_pick"])[0][0] in ("m1", "m2", "m3")
    values = {_run(db, plans["random_value"])[0][0] for _ in range(5)}
    assert all(0 <= v < 1 for v in values) and len(values) > 1
    assert plans["random_value"].result[0].type.name == "float64"


def test_contains_of_str_bytes_and_arrays(db):
    plans = _plans()
    assert _run(db, plans["contains_str"], needle="imgur") == [("m1",), ("m3",)]
    assert _run(db, plans["contains_str"], needle="") == [("m1",), ("m2",), ("m3",)]  # every string holds ''
    assert _run(db, plans["contains_str"], needle="%") == []  # no pattern: the text itself
    assert _run(db, plans["contains_bytes"], needle=b"\x02\x03") == [("m1",)]
    assert _run(db, plans["contains_array"], needle="y") == [("m1",)]
    # empty in, empty out (a function of non-optional arguments)
    assert _run(db, plans["contains_value"], h="abc", n="b") == [(True,)]
    assert _run(db, plans["contains_value"], h=None, n="b") == [(None,)]
    assert _run(db, plans["contains_value"], h="abc", n=None) == [(None,)]
    text = _errors("select Message { mid } filter contains(.content, 3)")
    assert "error[E0304]: contains() cannot take str and int64" in text


def test_cal_date_get(db):
    plans = _plans()
    assert _run(db, plans["born_in"], month=3) == [("m1", 3.0, 14.0)]
    assert _run(db, plans["born_in"], month=12) == [("m2", 12.0, 31.0)]
    assert _run(db, plans["at_hour"]) == [("m1", 3.0), ("m3", 23.0)]
    assert next(f for f in plans["born_in"].result if f.name == "m").type.name == "float64"
    assert "error[E0304]: 'hour' is not a unit of cal::date_get()" in _errors(
        "select Message { h := cal::date_get(.born, 'hour') }")
    assert "error[E0304]: cal::date_get() needs a cal::local_date, got str" in _errors(
        "select Message { h := cal::date_get(.content, 'day') }")
