"""Paths to objects (https://docs.geldata.com/reference/edgeql/paths): a path ending in a single
link is its object, compared by id (``.chat.owner = <uuid>$u``); path steps may follow an
expression holding at most one object (``assert_single(.comments).chat.owner``). Run on
PostgreSQL 15 with data; steps after a set of several objects are a located E0206. The access
policy forms (``using (.note.owner ?= global current_user)``) are tested through both runners
by tests/cases/policies and tests/e2e/test_gel_policies_e2e.py."""

from __future__ import annotations

import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  type User { required name: str; }
  type Chat { required title: str; owner: User; }
  type Message {
    required body: str;
    required chat: Chat;
    reply_to: Message;
    replies := .<reply_to[is Message];
  }
}
"""


def _plan(query: str):
    lib = check_library({"lib/schema.esdl": SCHEMA, "lib/q.edgeql": query}, Options(library="lib"))
    return lib.queries[0]


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return pg.execute(sql, {f"p{p.index}": args[p.name] for p in plan.params})


def _schema_sql():
    from schemac.pipeline import compile_library

    return compile_library({"lib/schema.esdl": SCHEMA}, Options(library="lib"))["sql/schema.sql"]


def test_paths_ending_in_a_link_and_after_one_object_run(pg):
    pg.execute(_schema_sql())
    [(ann,)] = pg.execute("INSERT INTO \"user\" (name) VALUES ('Ann') RETURNING id")
    pg.execute("INSERT INTO \"user\" (name) VALUES ('Bob')")
    pg.execute(f"INSERT INTO chat (title, owner_id) VALUES ('mine', '{ann}'), ('nobody''s', NULL)")
    pg.execute("INSERT INTO message (body, chat_id) SELECT 'hi in ' || title, id FROM chat")
    pg.execute("INSERT INTO message (body, chat_id, reply_to_id) SELECT 're: ' || body, chat_id, id FROM message")
    # A path ending in a link: the FK column of its last hop; empty when a link is empty.
    plan = _plan("select Message { body } filter .chat.owner = <uuid>$u order by .body")
    assert '"_l1"."owner_id"' in plan.sql
    assert _run(pg, plan, u=ann) == [("hi in mine",), ("re: hi in mine",)]
    plan = _plan("select Message { body } filter not exists .chat.owner order by .body")
    assert _run(pg, plan) == [("hi in nobody's",), ("re: hi in nobody's",)]
    # Steps after assert_single(<backlink>): the one reply's chat owner; no reply: empty.
    plan = _plan("select Message { body, o := assert_single(.replies).chat.owner } order by .body")
    assert _run(pg, plan) == [("hi in mine", ann), ("hi in nobody's", None), ("re: hi in mine", None),
                              ("re: hi in nobody's", None)]
    plan = _plan("select Message { body } filter assert_single(.<reply_to[is Message]).body = 're: hi in mine'")
    assert _run(pg, plan) == [("hi in mine",)]
    # Two replies: assert_single fails the statement, as Gel's CardinalityViolationError.
    pg.execute("INSERT INTO message (body, chat_id, reply_to_id) SELECT 'again', chat_id, id FROM message "
               "WHERE body = 'hi in mine'")
    with pytest.raises(Exception, match="more than one row"):
        _run(pg, _plan("select Message { body, o := assert_single(.replies).body }"))


def test_steps_after_a_set_of_several_objects_are_located_e0206():
    # (in a filter, a backlink's property is compared element-wise: an EXISTS, see test_group_forms)
    with pytest.raises(CompileError) as exc:
        _plan("select Message { body } order by (.<reply_to[is Message]).body")
    assert [(d.code, d.message, d.span.col) for d in exc.value.diagnostics] == [
        ("E0206", "'.body' after a set of Message objects is a set of values; only a path after one object is "
         "supported in a query", 35)]
