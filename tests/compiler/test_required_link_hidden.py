"""A required link whose target the access policies hide
(https://docs.geldata.com/reference/datamodel/access_policies): Gel reads every required link
through ``assert_exists`` when its target has policies, so ``select Message { chat: { title } }``
and ``.chat.title`` fail with "required link 'chat' of object type 'default::Message' is hidden
by access policy" (a CardinalityViolationError) rather than returning an empty chat, which the
generated types (TS ``chat: { title: string }``, Go a struct) say never happens. An optional
link reads as empty; a message the policies hide is never read, so its hidden chat fails
nothing. Tested on PostgreSQL 15 with every parameter sent untyped, as node-postgres sends them."""

from __future__ import annotations

import pytest

from schemac.pipeline import check_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  global current_user_id: uuid;
  type User { required handle: str; }
  type Chat {
    required title: str;
    required owner: User;
    access policy owner_all allow all using (.owner.id ?= global current_user_id);
  }
  type Message {
    required body: str;
    required chat: Chat;
    other: Chat;
    required author: User;
    access policy author_all allow all using (.author.id ?= global current_user_id);
  }
}
"""

QUERIES = {
    "shape": "select Message { body, chat: { title } } order by .body;",
    "path": "select Message { body, t := .chat.title } order by .body;",
    "optional": "select Message { body, other: { title } } order by .body;",
    "filter": "select Message { body } filter .chat.title = <str>$t order by .body;",
}

MSG = "required link 'chat' of object type 'default::Message' is hidden by access policy"


def _setup(pg):
    from schemac.backends.sql import codegen as sqlgen
    from schemac.migrate.history import History

    sources = {"s.gel": SCHEMA}
    sources.update({f"{k}.edgeql": v for k, v in QUERIES.items()})
    lib = check_library(sources, Options(library="hidden"))
    pg.execute(sqlgen.render_sql(lib, History.from_sources({"s.gel": SCHEMA}))["000001_init.up.sql"])
    pg.execute("""
        INSERT INTO "user" (id, handle) VALUES ('00000000-0000-0000-0000-00000000000a', 'ann'),
                                               ('00000000-0000-0000-0000-00000000000b', 'bob');
        INSERT INTO chat (id, title, owner_id) VALUES
            ('00000000-0000-0000-0000-0000000000c1', 'ann''s', '00000000-0000-0000-0000-00000000000a'),
            ('00000000-0000-0000-0000-0000000000c2', 'bob''s', '00000000-0000-0000-0000-00000000000b');
        INSERT INTO message (id, body, chat_id, other_id, author_id) VALUES
            (gen_random_uuid(), 'ann in ann''s', '00000000-0000-0000-0000-0000000000c1',
             '00000000-0000-0000-0000-0000000000c2', '00000000-0000-0000-0000-00000000000a'),
            (gen_random_uuid(), 'bob in ann''s', '00000000-0000-0000-0000-0000000000c1', NULL,
             '00000000-0000-0000-0000-00000000000b');
    """)
    return {p.name: p for p in lib.queries}


def _run(pg, plan, user, **args):
    """The rows of ``plan`` as ``user`` (the global is the statement's $n, sent untyped)."""
    sql = plan.sql
    values = {}
    for p in sorted(plan.params, key=lambda p: -p.index):
        sql = sql.replace(f"${p.index}", f"%({p.name})s")
    for p in plan.params:
        values[p.name] = args.get(p.name, user)
    return pg.execute(sql, values)


ANN, BOB = "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b"


def test_a_required_link_to_a_hidden_object_fails_the_statement(pg):
    plans = _setup(pg)
    # ann sees her message and her chat
    assert [r[0] for r in _run(pg, plans["shape"], ANN)] == ["ann in ann's"]
    assert _run(pg, plans["shape"], ANN)[0][1] == {"title": "ann's"}
    assert _run(pg, plans["path"], ANN) == [("ann in ann's", "ann's")]
    assert _run(pg, plans["filter"], ANN, t="ann's") == [("ann in ann's",)]
    # an optional link to a hidden object is empty
    assert _run(pg, plans["optional"], ANN) == [("ann in ann's", None)]
    # bob sees his message, whose required chat (ann's) he cannot see: Gel's error, never null
    for name in ("shape", "path"):
        with pytest.raises(Exception, match=MSG):
            _run(pg, plans[name], BOB)
    with pytest.raises(Exception, match=MSG):
        _run(pg, plans["filter"], BOB, t="ann's")
    # nobody signed in: no message is visible, so no chat is read
    assert _run(pg, plans["shape"], None) == []
    assert _run(pg, plans["filter"], None, t="ann's") == []
