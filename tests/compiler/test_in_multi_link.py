"""``x in .members`` / ``x in .members.id`` of a multi link (the membership test Gel's access
policy docs write as ``using (global current_user in .members)``,
https://docs.geldata.com/reference/datamodel/access_policies): an EXISTS over the link table,
empty when ``x`` is. It was E0206 ("a multi link, a set of objects"). Tested on PostgreSQL 15
with data, every parameter sent untyped as node-postgres sends them."""

from __future__ import annotations

from schemac.pipeline import check_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  global current_user_id: uuid;
  global current_user := (select User filter .id = global current_user_id);
  type User { required handle: str { constraint exclusive; } }
  type Chat {
    required title: str;
    multi members: User;
    access policy members_read allow select using (global current_user in .members);
    access policy members_write allow update using (global current_user_id in .members.id);
  }
  type Room { required name: str; multi members: User; }
}
"""

QUERIES = {
    "chats": "select Chat { title } order by .title;",
    "rename": "update Chat filter .title = <str>$t set { title := <str>$new };",
    "rooms_of": "select Room { name } filter <uuid>$u in .members.id order by .name;",
    "rooms_not_of": "select Room { name } filter <optional uuid>$u not in .members.id order by .name;",
    "rooms_of_handle": "select Room { name, m := (select User filter .handle = <str>$h) in .members } order by .name;",
}

A, B = "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b"


def _setup(pg):
    from schemac.backends.sql import codegen as sqlgen
    from schemac.migrate.history import History

    sources = {"s.gel": SCHEMA}
    sources.update({f"{k}.edgeql": v for k, v in QUERIES.items()})
    lib = check_library(sources, Options(library="inlink"))
    pg.execute(sqlgen.render_sql(lib, History.from_sources({"s.gel": SCHEMA}))["000001_init.up.sql"])
    pg.execute(f"""
        INSERT INTO "user" (id, handle) VALUES ('{A}', 'ann'), ('{B}', 'bob');
        INSERT INTO chat (id, title) VALUES ('00000000-0000-0000-0000-0000000000c1', 'both'),
                                            ('00000000-0000-0000-0000-0000000000c2', 'ann only');
        INSERT INTO chat_members (source_id, target_id) VALUES
            ('00000000-0000-0000-0000-0000000000c1', '{A}'), ('00000000-0000-0000-0000-0000000000c1', '{B}'),
            ('00000000-0000-0000-0000-0000000000c2', '{A}');
        INSERT INTO room (id, name) VALUES ('00000000-0000-0000-0000-0000000000d1', 'r1'),
                                           ('00000000-0000-0000-0000-0000000000d2', 'r2');
        INSERT INTO room_members (source_id, target_id) VALUES ('00000000-0000-0000-0000-0000000000d1', '{B}');
    """)
    return {p.name: p for p in lib.queries}


def _run(pg, plan, **args):
    """Rows of ``plan``; a global is passed by its short name (``current_user_id``)."""
    sql = plan.sql
    for p in sorted(plan.params, key=lambda p: -p.index):
        sql = sql.replace(f"${p.index}", f"%(p{p.index})s")
    return pg.execute(sql, {f"p{p.index}": args.get(p.name.split("::")[-1]) for p in plan.params})


def test_membership_in_a_multi_link_in_policies_and_filters(pg):
    plans = _setup(pg)
    assert [p.name for p in plans["chats"].params] == ["global default::current_user_id"]
    assert _run(pg, plans["chats"], current_user_id=A) == [("ann only",), ("both",)]
    assert _run(pg, plans["chats"], current_user_id=B) == [("both",)]
    assert _run(pg, plans["chats"], current_user_id=None) == []
    # update: bob may update only the chat he is a member of
    assert _run(pg, plans["rename"], current_user_id=B, t="ann only", new="x") == []
    assert len(_run(pg, plans["rename"], current_user_id=B, t="both", new="all")) == 1
    assert pg.execute("SELECT title FROM chat ORDER BY title") == [("all",), ("ann only",)]
    # filters
    assert _run(pg, plans["rooms_of"], u=B) == [("r1",)]
    assert _run(pg, plans["rooms_of"], u=A) == []
    assert _run(pg, plans["rooms_not_of"], u=B) == [("r2",)]
    assert _run(pg, plans["rooms_not_of"], u=None) == []  # {} not in S is empty
    assert _run(pg, plans["rooms_of_handle"], h="bob") == [("r1", True), ("r2", False)]
    assert _run(pg, plans["rooms_of_handle"], h="nobody") == [("r1", None), ("r2", None)]
