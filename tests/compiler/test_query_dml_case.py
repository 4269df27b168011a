"""The ``query_dml`` case (tests/cases/query_dml) on a real Postgres 15: the write forms of
issue 12, each one SQL statement run with psycopg, against the semantics Gel documents.

* A single link set by a sub-select on any filter
  (https://docs.geldata.com/reference/edgeql/insert#links): the filter must pin one object (an
  exclusive property) or be wrapped in ``assert_single`` (several objects: SQLSTATE 21000, Gel's
  CardinalityViolationError); none found leaves the link empty, and a required link then fails
  the statement (SQLSTATE 23502, Gel's MissingRequiredError).
* ``link := {}`` empties an optional link (https://docs.geldata.com/reference/edgeql/update).
* ``multi_link := / += / -= (select T filter ...)``: every object the sub-select selects
  (https://docs.geldata.com/reference/edgeql/update#updating-multi-links); ``+=`` keeps existing
  links and their link properties.
* ``unless conflict on ... else (update T filter ... set {...})``
  (https://docs.geldata.com/reference/edgeql/insert#upserts): the existing object is updated and
  returned only when the filter holds for it.
"""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest

from libraries import case_plans, run_plan as run

CASE = Path(__file__).resolve().parents[1] / "cases" / "query_dml"
UP = (CASE / "expected" / "sql" / "000001_init.up.sql").read_text


@pytest.fixture
def db(pg):
    pg.execute(UP())
    return pg


@pytest.fixture(scope="module")
def q():
    return case_plans("query_dml")


def member(db, name, tg, nick=None):
    return db.execute("INSERT INTO member (name, telegram_id, nick) VALUES (%s, %s, %s) RETURNING id",
                      (name, tg, nick))[0][0]


def label(db, name, kind=None):
    return db.execute("INSERT INTO label (name, kind) VALUES (%s, %s) RETURNING id", (name, kind))[0][0]


def labels_of(db, sid):
    return sorted(r[0] for r in db.execute(
        "SELECT l.name FROM story_labels sl JOIN label l ON l.id = sl.target_id WHERE sl.source_id = %s", (sid,)))


def test_link_by_exclusive_property_and_multi_link_by_filter(db, q):
    plan = q["create_story"]
    assert plan.cardinality == "one" and plan.kind == "insert"
    ann = member(db, "ann", 1001)
    label(db, "go", "lang"), label(db, "sql", "lang"), label(db, "news", "topic")
    ((sid,),) = run(db, plan, "Hello", 1001, "lang")
    assert db.execute("SELECT title, author_id FROM story WHERE id = %s", (sid,)) == [("Hello", ann)]
    assert labels_of(db, sid) == ["go", "sql"]
    ((other,),) = run(db, plan, "No labels", 1001, "none")
    assert labels_of(db, other) == []
    # No member with that telegram id: the required link stays empty, the statement fails.
    with pytest.raises(psycopg.errors.NotNullViolation):
        run(db, plan, "Orphan", 999, "lang")
    assert db.execute("SELECT count(*) FROM story") == [(2,)]


def test_assert_single_link_and_empty_set(db, q):
    ann = member(db, "ann", 1, "a")
    bob = member(db, "bob", 2, "b")
    member(db, "bea", 3, "b")
    ((sid,),) = run(db, q["create_story"], "S", 1, "x")
    assert run(db, q["set_editor"], sid, "a") == [(sid,)]
    assert db.execute("SELECT editor_id FROM story") == [(ann,)]
    # Two members with that nick: assert_single fails the statement (Gel: CardinalityViolationError).
    with pytest.raises(psycopg.errors.CardinalityViolation):
        run(db, q["set_editor"], sid, "b")
    assert db.execute("SELECT editor_id FROM story") == [(ann,)]
    # None: the optional link becomes empty.
    assert run(db, q["set_editor"], sid, "nobody") == [(sid,)]
    assert db.execute("SELECT editor_id FROM story") == [(None,)]
    db.execute("UPDATE story SET editor_id = %s", (bob,))
    assert q["clear_editor"].cardinality == "at_most_one"
    assert run(db, q["clear_editor"], sid) == [(sid,)]
    assert db.execute("SELECT editor_id FROM story") == [(None,)]


def test_multi_link_changes_by_filter(db, q):
    member(db, "ann", 1)
    go, sql, news = label(db, "go", "lang"), label(db, "sql", "lang"), label(db, "news", "topic")
    ((sid,),) = run(db, q["create_story"], "S", 1, "topic")
    db.execute("UPDATE story_labels SET weight = 5 WHERE target_id = %s", (news,))
    assert run(db, q["label_story"], sid, "lang") == [(sid,)]
    assert labels_of(db, sid) == ["go", "news", "sql"]
    # += keeps the links already there, with their link properties.
    assert db.execute("SELECT weight FROM story_labels WHERE target_id = %s", (news,)) == [(5,)]
    assert run(db, q["label_story"], sid, "lang") == [(sid,)]  # a link is a set: no duplicates
    assert db.execute("SELECT count(*) FROM story_labels") == [(3,)]
    assert run(db, q["unlabel_story"], sid, "lang") == [(sid,)]
    assert labels_of(db, sid) == ["news"]
    assert run(db, q["clear_labels"], sid) == [(sid,)]
    assert labels_of(db, sid) == []
    assert run(db, q["label_story"], "00000000-0000-0000-0000-000000000000", "lang") == []
    assert {go, sql}  # (the labels themselves are untouched)
    assert db.execute("SELECT count(*) FROM label") == [(3,)]


def test_upsert_whose_else_update_filters(db, q):
    plan = q["upsert_member"]
    assert plan.cardinality == "at_most_one" and plan.kind == "insert"
    assert [f.name for f in plan.result] == ["id", "name", "telegram_id", "nick"]
    ((ann, name, tg, nick),) = run(db, plan, "ann", 7, "a")
    assert (name, tg, nick) == ("ann", 7, "a")
    # The same telegram id and name: the existing member is updated and returned.
    assert run(db, plan, "ann", 7, "aa") == [(ann, "ann", 7, "aa")]
    # The same telegram id, another name: the filter fails, nothing is changed or returned.
    assert run(db, plan, "bob", 7, "b") == []
    assert db.execute("SELECT name, nick FROM member") == [("ann", "aa")]
    # Another conflict (the name) is not absorbed.
    with pytest.raises(psycopg.errors.UniqueViolation):
        run(db, plan, "ann", 8, None)


def test_with_bound_value_in_a_link_sub_select(db, q):
    plan = q["hand_over"]
    assert plan.cardinality == "at_most_one"
    member(db, "ann", 1)
    member(db, "bob", 2)
    ((sid,),) = run(db, q["create_story"], "S", 1, "x")
    assert run(db, plan, "bob", sid) == [("S", {"name": "bob"})]
    assert run(db, plan, "nobody", sid) == [("S", None)]


# ---------------------------------------------------------------------------------------------
# for loops whose body is not a plain insert (https://docs.geldata.com/reference/edgeql/for): the
# body runs once per element, the results are united, all in one statement.


def test_for_update_runs_per_element(db, q):
    plan = q["touch_stories"]
    assert plan.kind == "update" and plan.cardinality == "many" and plan.sql.count(";") == 0
    member(db, "ann", 1)
    ((a,),) = run(db, q["create_story"], "A", 1, "x")
    ((b,),) = run(db, q["create_story"], "B", 1, "x")
    ((c,),) = run(db, q["create_story"], "C", 1, "x")
    assert sorted(r[0] for r in run(db, plan, [a, b])) == sorted([a, b])
    assert db.execute("SELECT title, views FROM story ORDER BY title") == [("A", 1), ("B", 1), ("C", 0)]
    # An object the body matches for several elements is updated once and returned once.
    assert run(db, plan, [c, c]) == [(c,)]
    assert db.execute("SELECT views FROM story WHERE id = %s", (c,)) == [(1,)]
    assert run(db, plan, []) == []


def test_for_with_per_element_bindings_over_an_update(db, q):
    plan = q["rename_stories"]
    member(db, "ann", 1)
    ((a,),) = run(db, q["create_story"], "A", 1, "x")
    ((b,),) = run(db, q["create_story"], "B", 1, "x")
    items = [{"id": str(a), "title": "A2"}, {"id": str(b), "title": "B2"},
             {"id": "00000000-0000-0000-0000-000000000000", "title": "none"}]
    assert sorted(r[0] for r in run(db, plan, json.dumps(items))) == sorted([a, b])
    assert db.execute("SELECT title FROM story ORDER BY title") == [("A2",), ("B2",)]


def test_for_delete(db, q):
    plan = q["drop_members"]
    assert plan.kind == "delete" and plan.cardinality == "many"
    ann, bob = member(db, "ann", 1), member(db, "bob", 2)
    member(db, "cy", 3)
    assert sorted(r[0] for r in run(db, plan, ["ann", "bob", "ann", "zed"])) == sorted([ann, bob])
    assert db.execute("SELECT name FROM member") == [("cy",)]


def test_for_select_unites_the_bodies_results(db, q):
    plan = q["stories_by_authors"]
    assert plan.kind == "select" and plan.cardinality == "many"
    assert [f.name for f in plan.result] == ["title", "author"]
    member(db, "ann", 1), member(db, "bob", 2)
    run(db, q["create_story"], "A", 1, "x")
    run(db, q["create_story"], "B", 2, "x")
    run(db, q["create_story"], "A2", 1, "x")
    rows = run(db, plan, [1, 3])
    assert sorted(rows) == [("A", {"name": "ann"}), ("A2", {"name": "ann"})]
    # An element selecting the same objects again yields them again (a union, not a set).
    assert sorted(run(db, plan, [2, 2])) == [("B", {"name": "bob"}), ("B", {"name": "bob"})]


def test_for_upsert_reads_the_loop_in_its_else_update(db, q):
    plan = q["merge_members"]
    assert plan.kind == "insert" and plan.cardinality == "many"
    assert "excluded.name" in plan.sql
    ann = member(db, "ann", 1, "a")
    rows = run(db, plan, json.dumps([{"name": "anna", "telegram_id": 1, "nick": "x"},
                                     {"name": "bob", "telegram_id": 2, "nick": "b"}]))
    assert len(rows) == 2 and (ann,) in rows
    assert db.execute("SELECT name, telegram_id, nick FROM member ORDER BY telegram_id") == [
        ("anna", 1, "merged"), ("bob", 2, "b")]


def test_for_over_json_object_unpack(db, q):
    """``for k in json_object_unpack(<json>$kinds)``: one element per member of the object, a
    tuple<str, json> read as k.0 (its key) and k.1 (its value); to_str of a json value is its
    JSON text (https://docs.geldata.com/reference/stdlib/json#function::std::json_object_unpack)."""
    plan = q["merge_label_kinds"]
    assert plan.kind == "insert" and plan.cardinality == "many"
    go = label(db, "go", "old")
    rows = run(db, plan, json.dumps({"go": "lang", "news": {"topic": True}, "n": 3}))
    assert len(rows) == 3 and (go,) in rows
    assert db.execute("SELECT name, kind FROM label ORDER BY name") == [
        ("go", '"lang"'), ("n", "3"), ("news", '{"topic": true}')]
    # An empty object, or none at all ({}), iterates over nothing.
    assert run(db, plan, json.dumps({})) == [] and run(db, plan, None) == []
    # Gel fails json_object_unpack of a non-object: so does the statement.
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        run(db, plan, json.dumps(["go"]))
    assert db.execute("SELECT count(*) FROM label") == [(3,)]


def test_a_loop_tuple_is_read_by_its_elements():
    from schemac.diagnostics import CompileError
    from schemac.pipeline import check_library
    from schemac.semantics.library import Options

    schema = (CASE / "schema.esdl").read_text()
    for body, message in (
            ("select k", "'k' is a tuple<str, json>: it is read by its elements only (k.0, k.1)"),
            ("select k.2", "tuple<str, json> has no element 2 (it has 2)")):
        query = f"for k in json_object_unpack(<json>$kinds) union (update Label filter .name = k.0 set {{ kind := <str>({body}) }})"
        with pytest.raises(CompileError) as e:
            check_library({"s.esdl": schema, "queries/q.edgeql": query}, Options(library="t"))
        assert [(d.code, d.message) for d in e.value.diagnostics] == [("E0206" if "only" in message else "E0302", message)]


def test_for_with_a_bound_object_links_it(db, q):
    plan = q["add_stories"]
    ann = member(db, "ann", 1)
    assert len(run(db, plan, 1, ["A", "B"])) == 2
    assert db.execute("SELECT title, author_id FROM story ORDER BY title") == [("A", ann), ("B", ann)]
    with pytest.raises(psycopg.errors.NotNullViolation):
        run(db, plan, 9, ["C"])


def test_empty_set_clears_an_optional_property(db, q):
    member(db, "ann", 1, "a")
    assert len(run(db, q["clear_nick"], "ann")) == 1
    assert db.execute("SELECT nick FROM member") == [(None,)]


def _errors(query: str):
    from schemac.semantics.library import Options
    from schemac.pipeline import check_library
    from schemac.diagnostics import CompileError

    root = CASE
    sources = {"cases/query_dml/schema.esdl": (root / "schema.esdl").read_text(), "cases/query_dml/queries/q.edgeql": query}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="query_dml"))
    return [f"{d.span.line}:{d.span.col} {d.code} {d.message}" for d in exc.value.diagnostics]


def _plan(query: str):
    from schemac.semantics.library import Options
    from schemac.pipeline import check_library

    sources = {"cases/query_dml/schema.esdl": (CASE / "schema.esdl").read_text(), "cases/query_dml/queries/q.edgeql": query}
    return check_library(sources, Options(library="query_dml")).queries[0]


def test_refusals_are_located_and_name_the_form():
    assert _errors("update Member filter .name = <str>$n set { name := {} }") == [
        "1:52 E0304 'name' is required: it cannot be set to the empty set {}"]
    assert _errors("update Story filter .id = <uuid>$id set { editor := (select Member filter .nick = <str>$n) }") == [
        "1:53 E0206 this sub-select may select several 'Member' objects: as a value it must select at most one"]
    assert _errors("insert Story { title := 't', author := (with m := (select Member filter .name = 'a') select m) }") \
        == ["1:40 E0206 a link's value that is a 'with' block is not supported yet"]
    # (a multi link changed in a for loop's update compiles: tests/compiler/test_for_update_links.py)
    assert _errors("for x in array_unpack(<array<str>>$xs) union (insert Member { name := x, telegram_id := 1 } "
                   "unless conflict on .telegram_id else (update Member set { nick := x ++ '!' }))") == [
        "1:151 E0206 in a 'for' loop's upsert, the else update's value of 'nick' reads the loop variable but is not "
        "the value the insert gives it: not supported yet"]
    assert _errors("for x in array_unpack(<array<str>>$xs) union (with m := (insert Member { name := x, "
                   "telegram_id := 1 }) select Member filter .name = x)") == [
        "1:58 E0206 a statement bound by 'with' inside a 'for' body is not supported yet"]


# ---------------------------------------------------------------------------------------------
# Paths through multi links in filters: Gel keeps an object when at least one value of its
# filter's set is true (https://docs.geldata.com/database/reference/edgeql/select), and paths
# sharing the prefix .labels read the same linked object (https://docs.geldata.com/reference/edgeql/paths).


def _labelled(db, q):
    member(db, "ann", 1)
    for name, kind in (("go", "lang"), ("sql", "lang"), ("news", "topic"), ("gossip", "topic")):
        label(db, name, kind)
    ids = {}
    for title, kind in (("both", "lang"), ("bare", "none"), ("topics", "topic")):
        ((ids[title],),) = run(db, q["create_story"], title, 1, kind)
    ((ids["mixed"],),) = run(db, q["create_story"], "mixed", 1, "none")
    db.execute("INSERT INTO story_labels (source_id, target_id) SELECT %s, id FROM label WHERE name IN ('sql', 'gossip')",
               (ids["mixed"],))
    ((ids["go"],),) = run(db, q["create_story"], "go only", 1, "none")
    db.execute("INSERT INTO story_labels (source_id, target_id) SELECT %s, id FROM label WHERE name = 'go'", (ids["go"],))
    return ids


def test_multi_link_path_in_a_filter_is_existential(db, q):
    _labelled(db, q)
    assert sorted(run(db, q["stories_labelled"], "go")) == [("both",), ("go only",)]
    assert run(db, q["stories_labelled"], "nothing") == []
    # not (.labels.name = 'go'): some label is not 'go'; no labels: the set is empty, not true.
    assert sorted(run(db, q["stories_not_labelled"], "go")) == [("both",), ("mixed",), ("topics",)]


def test_paths_through_the_same_multi_link_read_the_same_object(db, q):
    _labelled(db, q)
    # 'mixed' has a 'lang' label (sql) and a label matching g% (gossip), but not one label with both.
    assert sorted(run(db, q["stories_by_label"], "lang", "g%")) == [("both",), ("go only",)]
    assert sorted(run(db, q["stories_by_label"], "topic", "g%")) == [("mixed",), ("topics",)]


def test_delete_by_a_multi_link_path(db, q):
    ids = _labelled(db, q)
    assert sorted(r[0] for r in run(db, q["delete_labelled"], "go")) == sorted([ids["both"], ids["go"]])
    assert sorted(r[0] for r in db.execute("SELECT title FROM story")) == ["bare", "mixed", "topics"]


def test_multi_link_paths_outside_element_wise_operators_are_refused():
    assert _errors("select Story filter <str>$l not in .labels.name") == [
        "1:36 E0206 '.labels.name' is a set (a path through the multi link 'labels'): using it on the right of "
        "'not in' is not supported yet"]
    assert _errors("select Story filter (.labels.name ?? 'none') = 'x'") == [
        "1:22 E0206 '.labels.name' is a set (a path through the multi link 'labels'): using it with '??' is not "
        "supported yet"]
    assert _errors("select Story order by .labels.name") == [
        "1:23 E0206 '.labels.name': a path through the multi link 'labels' is a set; only paths through single "
        "links can be used here"]


# ---------------------------------------------------------------------------------------------
# Objects the same statement inserts, assigned to links: a nested insert
# (https://docs.geldata.com/reference/edgeql/insert#nested-inserts) or a write bound by with
# (https://docs.geldata.com/reference/edgeql/with), each a CTE written first.


def test_nested_inserts_are_written_first_in_the_same_statement(db, q):
    plan = q["story_with_new_author"]
    assert plan.cardinality == "one" and plan.sql.count(";") == 0
    ((sid,),) = run(db, plan, "Hello", "ann", 1, "fresh")
    assert db.execute("SELECT m.name, m.telegram_id FROM story s JOIN member m ON m.id = s.author_id "
                      "WHERE s.id = %s", (sid,)) == [("ann", 1)]
    assert labels_of(db, sid) == ["fresh"]
    # A nested insert that fails (a duplicate) fails the statement: nothing is written.
    with pytest.raises(psycopg.errors.UniqueViolation):
        run(db, plan, "Again", "ann", 2, "other")
    assert db.execute("SELECT count(*) FROM story") == [(1,)]
    assert db.execute("SELECT count(*) FROM label") == [(1,)]


def test_a_bound_insert_assigned_to_a_link(db, q):
    plan = q["member_and_story"]
    assert plan.cardinality == "one"
    assert [f.name for f in plan.result] == ["title", "author_id"]
    ((title, author),) = run(db, plan, "bob", 2, "B")
    assert title == "B" and db.execute("SELECT name FROM member WHERE id = %s", (author,)) == [("bob",)]
    member(db, "ann", 1)
    ((sid,),) = run(db, q["create_story"], "S", 1, "x")
    assert run(db, q["reassign_to_new"], "cy", 3, sid) == [(sid,)]
    assert db.execute("SELECT m.name FROM story s JOIN member m ON m.id = s.editor_id WHERE s.id = %s",
                      (sid,)) == [("cy",)]
    # As in Gel, the bound insert runs once even when the update matches nothing.
    assert run(db, q["reassign_to_new"], "dee", 4, "00000000-0000-0000-0000-000000000000") == []
    assert db.execute("SELECT count(*) FROM member WHERE name = 'dee'") == [(1,)]


def test_written_objects_refusals():
    assert _errors("update Story filter .title = <str>$t set { editor := (insert Member { name := 'x', "
                   "telegram_id := 1 }) }") == [
        "1:54 E0206 a nested insert in an update of several objects, a 'for' loop or an upsert's else is not "
        "supported yet"]
    # (A link assigned a write bound in `with` or a nested insert is read from its CTE:
    # tests/cases/query_links, test_a_nested_insert_is_read_from_its_cte below.)
    assert _errors("with m := (update Member set { nick := 'n' }) insert Story { title := 't', author := m }") == [
        "1:86 E0304 'm' may write several objects, but 'author' is a single link"]


# ---------------------------------------------------------------------------------------------
# Link properties set by the links' sub-select (https://docs.geldata.com/reference/datamodel/linkprops).


def weights(db, sid):
    return sorted(db.execute("SELECT l.name, sl.weight FROM story_labels sl JOIN label l ON l.id = sl.target_id "
                             "WHERE sl.source_id = %s", (sid,)))


def test_link_properties_set_by_insert_and_update(db, q):
    member(db, "ann", 1)
    label(db, "go", "lang"), label(db, "sql", "lang"), label(db, "news", "topic")
    ((sid,),) = run(db, q["story_with_weights"], "S", 1, "go")
    assert weights(db, sid) == [("go", 5)]
    # += links the new labels with the weight, and an existing link gets the new weight.
    assert run(db, q["weigh_labels"], sid, 7, "lang") == [(sid,)]
    assert weights(db, sid) == [("go", 7), ("sql", 7)]
    # Without a link property, += keeps an existing link's (and a new one takes the default).
    run(db, q["label_story"], sid, "topic")
    run(db, q["label_story"], sid, "lang")
    assert weights(db, sid) == [("go", 7), ("news", 1), ("sql", 7)]


def test_link_property_refusals():
    assert _errors("update Story filter .id = <uuid>$id set { editor := (select Member { @x := 1 } filter "
                   ".name = 'a') }") == [
        "1:70 E0302 link 'editor' has no property 'x'"]
    assert _errors("update Story filter .id = <uuid>$id set { labels += (select Label { @nope := 1 } filter "
                   ".name = 'a') }") == ["1:69 E0302 link 'labels' has no property 'nope'"]
    # (a value reading the linked object, `@weight := len(.name)`, is each link's own:
    # tests/compiler/test_link_prop_target_values.py; reading a link property is not yet)
    assert _errors("update Story filter .id = <uuid>$id set { labels += (select Label { @weight := @weight + 1 } "
                   "filter .name = 'a') }") == [
        "1:80 E0206 a link property's value reading the linked object is not supported yet"]


def test_a_path_to_an_exclusive_property_pins_its_single_link():
    # `.owner.email = x` with email exclusive is one owner; with `owner` exclusive, one P (as Gel infers).
    from schemac.semantics.library import Options
    from schemac.pipeline import check_library
    from schemac.diagnostics import CompileError

    schema = ("type U { required email: str { constraint exclusive; }; }\n"
              "type P { required owner: U { constraint exclusive; }; }\n"
              "type Q { required owner: U; }\n"
              "type N { p: P; q: Q; }\n")
    check_library({"s.esdl": schema, "q/a.edgeql": "insert N { p := (select P filter .owner.email = <str>$e) };"},
                  Options("t"))
    with pytest.raises(CompileError) as exc:
        check_library({"s.esdl": schema, "q/b.edgeql": "insert N { q := (select Q filter .owner.email = <str>$e) };"},
                      Options("t"))
    assert "may select several 'Q' objects" in str(exc.value)


# ---------------------------------------------------------------------------------------------
# Get-or-insert link values (https://docs.geldata.com/reference/edgeql/insert#conditional-inserts):
# `if exists m then m else (insert ...)` / `found ?? (insert ...)`, the insert run only when
# nothing is found; paths from a with name bound to one object
# (https://docs.geldata.com/reference/edgeql/with).


def test_a_nested_insert_is_read_from_its_cte(db, q):
    # The new member is not in the table for the statement itself: the shape and the paths
    # read it from the nested insert's CTE (Gel's result shows the objects after the statement).
    plan = _plan("select (insert Story { title := 't', author := (insert Member { name := 'x', telegram_id := 1 "
                 "}) }) { author: { name }, n := .author.telegram_id }")
    assert run(db, plan) == [({"name": "x"}, 1)]


def test_get_or_insert_links_the_object_found_or_a_new_one(db, q):
    plan = q["story_by_author_name"]
    assert plan.cardinality == "one" and plan.sql.count(";") == 0
    assert [(f.name, f.optional) for f in plan.result] == [
        ("title", False), ("author_name", False), ("author_tg", False)]
    member(db, "ann", 1)
    # Found: linked, nothing inserted (the telegram id given is not used).
    assert run(db, plan, "ann", "A", 99) == [("A", "ann", 1)]
    assert db.execute("SELECT count(*) FROM member") == [(1,)]
    # Not found: inserted, linked, and read back by the statement's own shape.
    assert run(db, plan, "bob", "B", 2) == [("B", "bob", 2)]
    assert db.execute("SELECT name, telegram_id FROM member ORDER BY name") == [("ann", 1), ("bob", 2)]
    assert db.execute("SELECT s.title, m.name FROM story s JOIN member m ON m.id = s.author_id "
                      "ORDER BY s.title") == [("A", "ann"), ("B", "bob")]
    # The insert fails as it would alone (an exclusive telegram id): nothing is written.
    with pytest.raises(psycopg.errors.UniqueViolation):
        run(db, plan, "cy", "C", 2)
    assert db.execute("SELECT count(*) FROM story") == [(2,)]


def test_get_or_insert_in_an_update_and_paths_from_a_bound_object(db, q):
    plan = q["retitle_story"]
    assert plan.cardinality == "at_most_one"
    assert [(f.name, f.optional) for f in plan.result] == [
        ("title", False), ("editor_name", True), ("author_name", False)]
    ann = member(db, "ann", 1)
    sid = db.execute("INSERT INTO story (title, author_id) VALUES ('T', %s) RETURNING id", (ann,))[0][0]
    # No editor given: s.author.name, found; no title given: s.title.
    assert run(db, plan, sid, None, None, 5) == [("T", "ann", "ann")]
    assert db.execute("SELECT count(*) FROM member") == [(1,)]
    # A new editor: inserted once, linked, read back.
    assert run(db, plan, sid, "bob", "T2", 2) == [("T2", "bob", "ann")]
    assert db.execute("SELECT name, telegram_id FROM member ORDER BY name") == [("ann", 1), ("bob", 2)]
    assert run(db, plan, sid, "bob", None, 3) == [("T2", "bob", "ann")]
    assert db.execute("SELECT count(*) FROM member") == [(2,)]
    # No such story: nothing updated, nothing inserted.
    assert run(db, plan, "00000000-0000-0000-0000-000000000000", "cy", None, 4) == []
    assert db.execute("SELECT count(*) FROM member WHERE name = 'cy'") == [(0,)]


def test_get_or_insert_refusals():
    assert _errors("insert Story { title := 't', author := (select Member filter .nick = 'n') ?? "
                   "(insert Member { name := 'x', telegram_id := 1 }) }") == [
        "1:40 E0206 this sub-select may select several 'Member' objects: as a value it must select at most one"]
    assert _errors("update Story filter .title = <str>$t set { editor := (select Member filter .name = 'x') ?? "
                   "(insert Member { name := 'x', telegram_id := 1 }) }") == [
        "1:92 E0206 a nested insert in an update of several objects, a 'for' loop or an upsert's else is not "
        "supported yet"]
    assert _errors("insert Story { title := 't', author := (select Label filter .name = 'x') ?? "
                   "(insert Member { name := 'x', telegram_id := 1 }) }") == [
        "1:48 E0304 'author' links to Member, not Label"]


def test_a_bound_bulk_insert_selected_in_the_shape_of_another(db, q):
    # `with ss := (for s in json_array_unpack(params['stories']) union (insert Story {...}))`: the
    # bulk insert runs once; `stories := ss { ... }` reads the objects it wrote from its CTE,
    # and their author, the member the statement inserts, from that insert's CTE.
    plan = q["member_with_stories"]
    assert plan.cardinality == "one" and plan.sql.count(";") == 0
    params = {"name": "ann", "telegram_id": 7, "stories": [{"title": "A"}, {"title": "B"}]}
    ((name, stories, ids),) = run(db, plan, json.dumps(params))
    assert name == "ann"
    assert sorted(stories, key=lambda s: s["title"]) == [{"title": "A", "author_name": "ann"},
                                                         {"title": "B", "author_name": "ann"}]
    assert sorted(i["id"] for i in ids) == sorted(str(r[0]) for r in db.execute("SELECT id FROM story"))
    assert db.execute("SELECT s.title, m.name FROM story s JOIN member m ON m.id = s.author_id ORDER BY 1") == [
        ("A", "ann"), ("B", "ann")]
    # No stories: the member alone, an empty list.
    assert run(db, plan, json.dumps({"name": "bob", "telegram_id": 8, "stories": []}))[0][1:] == ([], [])
    # A story that fails (title null: a required property; no title: Gel's json[name] fails,
    # https://docs.geldata.com/reference/stdlib/json#operator::jsonobjdest) fails the
    # statement: nothing is written.
    with pytest.raises(psycopg.errors.NotNullViolation):
        run(db, plan, json.dumps({"name": "cy", "telegram_id": 9, "stories": [{"title": None}]}))
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="JSON index 'title' is out of bounds"):
        run(db, plan, json.dumps({"name": "cy", "telegram_id": 9, "stories": [{"nope": 1}]}))
    assert db.execute("SELECT count(*) FROM member WHERE name = 'cy'") == [(0,)]


def test_a_bound_bulk_insert_with_per_element_names_and_a_union_of_writes(db, q):
    # `ss := (for s in ... union (with title := ... insert Story {...}))`: the names bound per
    # element; `select {m, ss}`: every object the two inserts wrote, each { id }, duplicates
    # kept (https://docs.geldata.com/reference/edgeql/sets).
    plan = q["member_and_stories"]
    assert plan.cardinality == "many" and [f.name for f in plan.result] == ["id"]
    rows = run(db, plan, "ann", 7, json.dumps([{"title": "A"}, {"title": "B"}]))
    (m,) = [i for (i,) in rows if i in {r[0] for r in db.execute("SELECT id FROM member")}]
    assert sorted(i for (i,) in rows) == sorted([m] + [r[0] for r in db.execute("SELECT id FROM story")])
    assert db.execute("SELECT s.title, m.name FROM story s JOIN member m ON m.id = s.author_id ORDER BY 1") == [
        ("A", "ann"), ("B", "ann")]
    # No stories: the member alone.
    assert len(run(db, plan, "bob", 8, json.dumps([]))) == 1
    # A story that fails (no title) fails the statement: the member is not written either.
    with pytest.raises(psycopg.errors.NotNullViolation):
        run(db, plan, "cy", 9, json.dumps([{"nope": 1}]))
    assert db.execute("SELECT count(*) FROM member WHERE name = 'cy'") == [(0,)]


def test_a_bulk_insert_over_a_member_of_a_json_parameter(db, q):
    member(db, "ann", 1)
    plan = _plan("with params := <json>$params, a := (select Member filter .name = <str>params['author']) "
                 "for s in json_array_unpack(params['stories']) union (insert Story { title := <str>s['title'], "
                 "author := a })")
    assert len(run(db, plan, json.dumps({"author": "ann", "stories": [{"title": "x"}, {"title": "y"}]}))) == 2
    assert db.execute("SELECT s.title, m.name FROM story s JOIN member m ON m.id = s.author_id ORDER BY 1") == [
        ("x", "ann"), ("y", "ann")]
    assert _errors("with p := <json>$p for s in json_array_unpack(p[<str>$k ++ 'x']) union (insert Member { "
                   "name := <str>s, telegram_id := 1 })") == [
        "1:47 E0304 json_array_unpack needs a json parameter, a 'with' name or a member of one (params['items']), got "
        "another json value"]


def test_optional_value_for_required_property_and_link_fails_when_it_runs(db, q):
    """A value that may be empty for a required property or link compiles, as in Gel, whose
    compiler leaves a mutation's lower cardinality bound to a check when the statement runs
    (https://docs.geldata.com/reference/edgeql/insert, MissingRequiredError): here the column's
    NOT NULL (SQLSTATE 23502), and nothing is written."""
    ann = member(db, "ann", 1001)
    draft, rename = q["draft_story"], q["rename_member"]
    assert [p.optional for p in draft.params] == [True, True]
    assert [p.optional for p in rename.params] == [False, True]
    sid = run(db, draft, "Draft", ann)[0][0]
    assert db.execute("SELECT title, author_id FROM story WHERE id = %s", (sid,)) == [("Draft", ann)]
    for args in ((None, ann), ("No author", None)):
        with pytest.raises(psycopg.errors.NotNullViolation):
            run(db, draft, *args)
    assert db.execute("SELECT count(*) FROM story") == [(1,)]
    assert run(db, rename, 1001, "anne") == [(ann,)]
    with pytest.raises(psycopg.errors.NotNullViolation):
        run(db, rename, 1001, None)
    assert db.execute("SELECT name FROM member WHERE id = %s", (ann,)) == [("anne",)]
