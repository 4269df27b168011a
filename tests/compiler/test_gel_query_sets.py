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


# ---------------------------------------------------------------------------------------------
# Sets of objects of a query's `with` names, and paths from them
# (https://docs.geldata.com/reference/edgeql/with, .../edgeql/paths)

GAME = """
module default {
  scalar type Rank extending enum<S, A, B>;
  type Player { required name: str { constraint exclusive; } }
  type Character {
    required cid: int32 { constraint exclusive; }
    required rank: Rank;
    required image: str;
  }
  type Waifu {
    required character: Character;
    required owner: Player;
    hidden: bool;
    access policy open allow all using (true);
    access policy shown deny select using (.hidden ?? false);
  }
  type Roll {
    required author: Player;
    required reason: str;
    coins: int32;
    multi received: Waifu;
  }
  type Collection {
    required name: str;
    multi characters: Character;
  }
}
"""

GAME_QUERIES = {
    "roll_stats": """
        with player := (select Player filter .name = <str>$name),
          rolls := (select player.<author[is Roll] filter .reason in {'a', 'b'})
        select {
          total := count(rolls),
          coins := sum(rolls.coins),
          reasons := array_agg(rolls.reason),
          ranks := array_agg(rolls.received.character.rank),
          received := count(rolls.received),
          a_count := count((select rolls filter .reason = 'a')),
          any_received := exists rolls.received,
        }""",
    "last_rolls": """
        with rolls := (select Roll order by .reason desc then .coins limit <int64>$n)
        select { reasons := array_agg(rolls.reason), n := count(rolls) }""",
    "collection_stats": """
        with player := (select Player filter .name = <str>$name),
          collec := (select Collection filter .id = <uuid>$id),
          charas := (select collec.characters filter .image not ilike '%/default.jpg'),
          owned := (select Waifu filter .owner = assert_exists(player) and .character in charas),
          owned_ids := (select owned.character.cid),
        select {
          collection := assert_exists(collec) { name },
          nb_charas := count(charas),
          nb_owned := count(owned_ids),
        }""",
    "reasons": "with rolls := (select Roll order by .reason desc limit <int64>$n) select rolls.reason",
    "distinct_ranks": "select distinct Waifu.character.rank",
    "all_coins": "select Roll.coins",
    "authors": "with rolls := (select Roll filter .reason != 'z') "
               "select { per_roll := array_agg((for r in rolls union r.author.name)), "
               "distinct_authors := array_agg(rolls.author.name) }",
    "owned_any": "with players := (select Player filter .name = <str>$name) "
                 "select Character { cid } filter any(.<character[is Waifu].owner in players) order by .cid",
    "owned_all": "with players := (select Player filter .name = <str>$name) "
                 "select Character { cid } filter all(.<character[is Waifu].owner in players) order by .cid",
    "owner_of": "with player := (select Player filter .name = <str>$name) "
                "select Waifu { character: { cid } } filter .owner = assert_exists(player)",
    "coins_in": "with rolls := (select Roll filter .reason != 'z') "
                "select Character { cid } filter .cid in rolls.coins order by .cid",
    "coins_not_in": "with rolls := (select Roll filter .reason != 'z') "
                    "select Character { cid } filter .cid not in rolls.coins order by .cid",
    "received_chars": "with player := (select Player filter .name = <str>$name) "
                      "select Character { cid, who := player.name } "
                      "filter .cid in player.<author[is Roll].received.character.cid order by .cid",
    "who": "with player := (select Player filter .name = <str>$name) "
           "select Character { cid, who := player.name, n := len(player.name) } filter .cid = 1",
    "who_must": "with player := (select Player filter .name = <str>$name), player := assert_exists(player), "
                "n := player.name select Character { cid, who := n } filter .cid = 1",
}


def _game_plans():
    src = {"g/schema.esdl": GAME}
    src.update({f"g/{k}.edgeql": v for k, v in GAME_QUERIES.items()})
    return src, {q.name: q for q in check_library(src, Options(library="g")).queries}


@pytest.fixture
def game(pg):
    src, plans = _game_plans()
    pg.execute(compile_library(src, Options(library="g"))["sql/schema.sql"])
    pg.execute("INSERT INTO player (name) VALUES ('ann'), ('bob')")
    pg.execute("INSERT INTO character (cid, rank, image) VALUES (1, 'S', 'x.jpg'), (2, 'A', 'y/default.jpg'), "
               "(3, 'B', 'z.jpg'), (4, 'S', 'w.jpg')")
    pg.execute("INSERT INTO waifu (character_id, owner_id, hidden) SELECT c.id, p.id, c.cid = 4 FROM character c, "
               "player p WHERE p.name = 'ann' AND c.cid IN (1, 3, 4)")
    pg.execute("INSERT INTO waifu (character_id, owner_id) SELECT c.id, p.id FROM character c, player p "
               "WHERE p.name = 'bob' AND c.cid IN (1, 2)")
    # ann: roll a (3 coins) received her waifus of 1 and 4 (hidden), roll b received bob's of 1
    # (the same character again), roll c (not counted) received hers of 3
    for reason, coins, where in (("a", 3, "p.name = 'ann' AND c.cid IN (1, 4)"),
                                 ("b", None, "p.name = 'bob' AND c.cid = 1"),
                                 ("c", 7, "p.name = 'ann' AND c.cid = 3")):
        pg.execute("INSERT INTO roll (author_id, reason, coins) SELECT id, %s, %s FROM player WHERE name = 'ann'",
                   (reason, coins))
        pg.execute(f"INSERT INTO roll_received (source_id, target_id) SELECT r.id, w.id FROM roll r, waifu w "
                   f"JOIN character c ON c.id = w.character_id JOIN player p ON p.id = w.owner_id "
                   f"WHERE r.reason = %s AND {where}", (reason,))
    pg.execute("INSERT INTO collection (name) VALUES ('all')")
    pg.execute("INSERT INTO collection_characters (source_id, target_id) SELECT l.id, c.id FROM collection l, "
               "character c")
    return pg, plans


def test_sets_of_with_names_count_sum_and_array_agg(game):
    db, plans = game
    q = plans["roll_stats"]
    (total, coins, reasons, ranks, received, a_count, any_received), = _run(db, q, name="ann")
    assert (total, coins, sorted(reasons), a_count, any_received) == (2, 3, ["a", "b"], 1, True)
    # the waifus received, distinct; the one the access policy hides leads nowhere
    assert received == 2
    # rolls.received.character: the distinct characters reached (character 1 twice: once), as Gel's paths
    assert ranks == ["S"]
    # nobody's rolls: Gel's count 0, sum 0, array_agg [], exists false
    assert _run(db, q, name="zed") == [(0, 0, [], [], 0, 0, False)]
    fields = {f.name: f for f in q.result}
    assert fields["reasons"].type.name == "array<str>" and not fields["reasons"].optional
    assert fields["ranks"].type.name == "array<Rank>" and fields["total"].type.name == "int64"
    assert q.cardinality == "one"


def test_a_paged_selection_keeps_its_order(game):
    db, plans = game
    assert _run(db, plans["last_rolls"], n=2) == [(["c", "b"], 2)]
    assert _run(db, plans["last_rolls"], n=0) == [([], 0)]
    assert 'array_agg("_a1".reason ORDER BY "_a1"."_n")' in plans["last_rolls"].sql


def test_in_a_set_of_objects_and_assert_exists(game):
    db, plans = game
    q = plans["collection_stats"]
    coll = db.execute("SELECT id FROM collection")[0][0]
    (collection, nb_charas, nb_owned), = _run(db, q, name="ann", id=coll)
    assert (collection, nb_charas, nb_owned) == ({"name": "all"}, 3, 2)  # cid 1, 3 (4 hidden; 2 default.jpg)
    (collection, nb_charas, nb_owned), = _run(db, q, name="bob", id=coll)
    assert nb_owned == 1
    assert not next(f for f in q.result if f.name == "collection").optional
    import psycopg

    # no such collection / player: Gel's assert_exists fails the statement
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="assert_exists violation"):
        _run(db, q, name="ann", id="00000000-0000-0000-0000-000000000000")
    db.conn.rollback()
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="assert_exists violation"):
        _run(db, plans["owner_of"], name="zed")
    db.conn.rollback()
    assert len(_run(db, plans["owner_of"], name="ann")) == 2  # (her hidden one is not seen)


# ---------------------------------------------------------------------------------------------
# any() / all() over paths through multi links (https://docs.geldata.com/reference/stdlib/set#function::std::any)

TAGS = """
module default {
  type Tag { required name: str { constraint exclusive; } note: str; }
  type Media {
    required title: str;
    multi tags: Tag { rank: int32; }
  }
}
"""

TAG_QUERIES = {
    "by_tag": "select Media { title } filter any(.tags.name = <str>$name) and any(.tags@rank >= <int32>$rank) "
              "order by .title",
    "all_ranked": "select Media { title } filter all(.tags@rank >= <int32>$rank) order by .title",
    "maybe_tag": "with name := <optional str>$name select Media { title } "
                 "filter (any(.tags.name = name) if exists name else true) order by .title",
    "noted": "select Media { title } filter exists .tags.note order by .title",
    "flags": "select Media { title, a := any(.tags.name like 'x%'), b := all(.tags.name like 'x%') } order by .title",
    "not_ilike": "select Tag { name } filter .name not ilike 'X%' order by .name",
    "tag_values": "select Media { title, names := .tags.name, notes := .tags.note, "
                  "all_notes := array_agg(.tags.note) } order by .title",
}


@pytest.fixture
def tags(pg):
    src = {"t/schema.esdl": TAGS}
    src.update({f"t/{k}.edgeql": v for k, v in TAG_QUERIES.items()})
    plans = {q.name: q for q in check_library(src, Options(library="t")).queries}
    pg.execute(compile_library(src, Options(library="t"))["sql/schema.sql"])
    pg.execute("INSERT INTO tag (name, note) VALUES ('xa', NULL), ('xb', 'n'), ('c', NULL)")
    pg.execute("INSERT INTO media (title) VALUES ('m1'), ('m2'), ('m3')")
    # m1: xa (rank 1), c (rank 5); m2: xb (rank 9); m3: none
    for title, tag, rank in (("m1", "xa", 1), ("m1", "c", 5), ("m2", "xb", 9)):
        pg.execute("INSERT INTO media_tags (source_id, target_id, rank) SELECT m.id, t.id, %s FROM media m, tag t "
                   "WHERE m.title = %s AND t.name = %s", (rank, title, tag))
    return pg, plans


def test_any_and_all_read_their_own_linked_objects(tags):
    db, plans = tags
    # each any() its own tag: m1 has a tag named xa and (another) tag ranked >= 5
    assert _run(db, plans["by_tag"], name="xa", rank=5) == [("m1",)]
    assert _run(db, plans["by_tag"], name="xa", rank=6) == []
    # all() of no links is true (m3); m1's xa has rank 1
    assert _run(db, plans["all_ranked"], rank=5) == [("m2",), ("m3",)]
    assert _run(db, plans["maybe_tag"], name="c") == [("m1",)]
    assert _run(db, plans["maybe_tag"], name=None) == [("m1",), ("m2",), ("m3",)]
    assert _run(db, plans["noted"]) == [("m2",)]
    # any of the empty set is false, all of it true
    assert _run(db, plans["flags"]) == [("m1", True, False), ("m2", True, True), ("m3", False, True)]
    assert _run(db, plans["not_ilike"]) == [("c",)]


def test_select_the_values_of_a_set(game):
    db, plans = game
    assert _run(db, plans["reasons"], n=2) == [("c",), ("b",)]  # in the selection's order
    # distinct: each value once; (the hidden waifu's character 4 is not reached)
    assert sorted(_run(db, plans["distinct_ranks"])) == [("A",), ("B",), ("S",)]
    # an empty value is no element: roll b has no coins
    assert sorted(_run(db, plans["all_coins"])) == [(3,), (7,)]
    q = plans["all_coins"]
    assert q.scalar and q.cardinality == "many" and q.result[0].type.name == "int32"


def test_a_set_of_values_in_a_shape_is_an_array(tags):
    db, plans = tags
    rows = _run(db, plans["tag_values"])
    # (a computed multi property: the values of the distinct linked objects, empty ones left
    # out, as array_agg: no Gel array holds an empty element)
    assert [(t, sorted(n), notes, all_notes) for t, n, notes, all_notes in rows] == [
        ("m1", ["c", "xa"], [], []), ("m2", ["xb"], ["n"], ["n"]), ("m3", [], [], [])]
    fields = {f.name: f for f in plans["tag_values"].result}
    assert fields["names"].type.name == "array<str>" and not fields["names"].optional


def test_any_all_of_a_path_in_a_set_of_objects(game):
    db, plans = game
    # ann's visible waifus are of characters 1 and 3 (her waifu of 4 is hidden by its policy)
    assert _run(db, plans["owned_any"], name="ann") == [(1,), (3,)]
    # all(): every visible waifu of the character is hers; none at all (4) is all of {}: true
    assert _run(db, plans["owned_all"], name="ann") == [(3,), (4,)]
    assert _run(db, plans["owned_any"], name="zed") == []


def test_array_agg_of_a_for_loop_keeps_duplicates(game):
    db, plans = game
    # a for loop's union keeps each roll's value; the path rolls.author is the distinct players
    assert _run(db, plans["authors"]) == [(["ann", "ann", "ann"], ["ann"])]


def test_in_the_values_of_a_set_of_objects(game):
    db, plans = game
    # rolls.coins is {3, 7}: roll b has no coins, which adds no element (`not in` stays true)
    assert _run(db, plans["coins_in"]) == [(3,)]
    assert _run(db, plans["coins_not_in"]) == [(1,), (2,), (4,)]
    # through a backlink from the one object a name holds: ann's rolls received waifus of 1, 3
    # and 4, but her waifu of 4 is hidden by its policy; bob's rolls: none
    assert _run(db, plans["received_chars"], name="ann") == [(1, "ann"), (3, "ann")]
    assert _run(db, plans["received_chars"], name="bob") == []


def test_a_path_from_a_name_holding_one_object(game):
    db, plans = game
    assert _run(db, plans["who"], name="bob") == [(1, "bob", 3)]
    # no such player: the path is empty, and so is len() of it
    assert _run(db, plans["who"], name="zed") == [(1, None, None)]
    fields = {f.name: f for f in plans["who"].result}
    assert fields["who"].optional and fields["who"].type.name == "str"
    # assert_exists(...) of one object always holds it: its required name is never empty
    assert _run(db, plans["who_must"], name="ann") == [(1, "ann")]
    assert not next(f for f in plans["who_must"].result if f.name == "who").optional
    with pytest.raises(Exception, match="assert_exists violation"):
        _run(db, plans["who_must"], name="zed")


def test_rebinding_a_name_a_nested_set_reads_is_refused():
    text = _errors_in(GAME, """
        select Waifu { n := (
          with cid := .character.cid,
            same := (select detached Waifu filter .character.cid = cid)
          select (with cid := 1 select count(same))
        ) }""")
    assert "error[E0206]: binding 'cid' again where the set 'same', which reads it, is in scope" in text


def _errors_in(schema: str, query: str) -> str:
    sources = {"lib/schema.esdl": schema, "lib/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="lib"))
    return exc.value.render(sources)


def test_a_with_block_whose_body_is_a_statement_names_it():
    # (bound by the query's own with, `with p := (with n := ... insert ...)`, it compiles since
    # a860b1c: the block's names move up into the query's with)
    text = _errors_in(GAME, """
        select { p := (
          with n := <str>$name
          insert Player { name := n } unless conflict on .name else (update Player set { name := n })
        ) }""")
    assert ("error[E0206]: a 'with' block whose body is an insert ... unless conflict (a statement used as a "
            "value) inside a query is not supported yet") in text
    assert "hint: bind the statement in the query's own 'with' block" in text
