"""Issue 24: a link to an object the access policies hide gives nothing of it away
(https://docs.geldata.com/reference/datamodel/access_policies: an object a policy hides is not
in the set a link reads, so it is empty in shapes, paths, ``exists``, ``count``, filters,
``order by`` and ``group by``). The issue's schema, on PostgreSQL 15 with the generated SQL, as
alice, whose comment links bob's secret (and one of hers): every read sees her secret only.
Parameters are sent untyped, as node-postgres sends them."""

from __future__ import annotations

import json

from schemac.pipeline import check_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  global cur: uuid;
  type User { required name: str; }
  type Secret { required owner: User; body: str;
    access policy own allow all using (.owner.id ?= global cur); }
  type Comment { required text: str; target: Secret; multi targets: Secret; }
}
"""

ALICE, BOB = "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b"
SA, SB = "00000000-0000-0000-0000-0000000000a1", "00000000-0000-0000-0000-0000000000b1"
C1, C2 = "00000000-0000-0000-0000-0000000000c1", "00000000-0000-0000-0000-0000000000c2"

#: The issue's reads, each with what alice must get (c1 links bob's secret, c2 hers).
QUERIES = {
    "shape": ("select Comment { text, target } order by .text;", {}, [("c1", None), ("c2", SA)]),
    "shape_id": ("select Comment { text, target: { id } } order by .text;", {}, [("c1", None), ("c2", SA)]),
    "path": ("select Comment { text, t := .target.id } order by .text;", {}, [("c1", None), ("c2", SA)]),
    "exists": ("select Comment { text, e := exists .target } order by .text;", {}, [("c1", False), ("c2", True)]),
    "count": ("select Comment { text, n := count(.target) } order by .text;", {}, [("c1", 0), ("c2", 1)]),
    "filter_exists": ("select Comment { text } filter exists .target order by .text;", {}, [("c2",)]),
    # the existence oracle: any id filtered on finds nothing of bob's
    "filter_id": ("select Comment { text } filter .target.id = <uuid>$id;", {"id": SB}, []),
    "filter_id_own": ("select Comment { text } filter .target.id = <uuid>$id;", {"id": SA}, [("c2",)]),
    "filter_in": ("select Comment { text } filter .target.id in array_unpack(<array<uuid>>$ids);", {"ids": [SB]}, []),
    "group": ("group Comment { text } by .target;", {}, None),
    "count_multi": ("select Comment { text, n := count(.targets) } order by .text;", {}, [("c1", 1), ("c2", 1)]),
    "exists_multi": ("select Comment { text } filter exists .targets order by .text;", {}, [("c1",), ("c2",)]),
    "targets": ("select Comment { text, targets: { id } } order by .text;", {}, [("c1", [{"id": SA}]),
                                                                                ("c2", [{"id": SA}])]),
    "order": ("select Comment { text } order by .target.body empty first then .text;", {}, [("c1",), ("c2",)]),
    "update_returning": ("select (update Comment filter .text = 'c1' set { text := 'c1' }) { text, target: { id } };",
                         {}, [("c1", None)]),
    "delete_returning": ("select (delete Comment filter .text = 'c1') { text, target };", {}, [("c1", None)]),
    "with_count": ("with s := (select Comment filter exists .target) select count(s);", {}, [(1,)]),
}


def _setup(pg):
    from schemac.backends.sql import codegen as sqlgen
    from schemac.migrate.history import History

    sources = {"s.gel": SCHEMA}
    sources.update({f"{k}.edgeql": v[0] for k, v in QUERIES.items()})
    lib = check_library(sources, Options(library="leak"))
    pg.execute(sqlgen.render_sql(lib, History.from_sources({"s.gel": SCHEMA}))["000001_init.up.sql"])
    pg.execute(f"""
        INSERT INTO "user" (id, name) VALUES ('{ALICE}', 'alice'), ('{BOB}', 'bob');
        INSERT INTO secret (id, owner_id, body) VALUES ('{SA}', '{ALICE}', 'a'), ('{SB}', '{BOB}', 'b');
        INSERT INTO comment (id, text, target_id) VALUES ('{C1}', 'c1', '{SB}'), ('{C2}', 'c2', '{SA}');
        INSERT INTO comment_targets (source_id, target_id) VALUES ('{C1}', '{SA}'), ('{C1}', '{SB}'),
                                                                ('{C2}', '{SA}');
    """)
    return {p.name: p for p in lib.queries}


def _run(pg, plan, cur=ALICE, **args):
    """The rows of ``plan`` as the user ``cur`` (the global, a parameter like the others)."""
    sql = plan.sql
    for p in sorted(plan.params, key=lambda p: -p.index):
        sql = sql.replace(f"${p.index}", f"%({p.name})s")
    return pg.execute(sql, {p.name: cur if p.name.startswith("global ") else args[p.name] for p in plan.params})


def _norm(rows):
    return [tuple(str(v) if type(v).__name__ == "UUID" else v for v in r) for r in rows]


def test_a_hidden_object_is_not_read_through_a_link(pg):
    plans = _setup(pg)
    for name, (_, args, expected) in QUERIES.items():
        if expected is None:
            continue
        with pg.conn.transaction(force_rollback=True):
            rows = _norm(_run(pg, plans[name], **args))
        if name in ("update_returning", "delete_returning", "shape", "shape_id"):
            rows = [(r[0], r[1]) for r in rows]
        assert rows == expected, name
    # group by the link: bob's secret is no key of its own; c1 is in the group of no target
    groups = sorted((json.dumps(k, sort_keys=True), sorted(e["text"] for e in els))
                    for k, _, els in _run(pg, plans["group"]))
    assert groups == [('{"target": null}', ["c1"]), (json.dumps({"target": {"id": SA}}), ["c2"])]
    # bob sees his secret through the same links
    assert _norm(_run(pg, plans["filter_id"], id=SB, cur=BOB)) == [("c1",)]
    rows = _norm(_run(pg, plans["path"], cur=BOB))
    assert rows == [("c1", SB), ("c2", None)]
    # no secret's id is ever read by a user who is not signed in
    for name in ("shape", "path", "targets"):
        assert all(SA not in json.dumps(r, default=str) and SB not in json.dumps(r, default=str)
                   for r in _run(pg, plans[name], cur=None)), name


def test_update_and_delete_write_each_policy_condition_once():
    """Issue 29 item 12: an update or delete applies the select policies and its own kind's;
    a policy that allows both (``allow all``) was written twice in the WHERE clause. Now once:
    the select clause ``owner OR public`` is implied by the update's ``owner`` and left out, and
    the deny policies are one NOT (...). (Their effect on Postgres is checked by
    tests/e2e/test_gel_policies_e2e.py and the generated suite.)"""
    schema = """module default {
      global cur: uuid;
      type Note {
        required owner_id: uuid;
        public: bool;
        archived: bool;
        access policy owner_all allow all using (.owner_id ?= global cur);
        access policy public_read allow select using (.public ?? false);
        access policy frozen deny update read, delete using (.archived ?? false);
      }
    }"""
    queries = {"del.edgeql": "delete Note filter .id = <uuid>$id;",
               "upd.edgeql": "update Note filter .id = <uuid>$id set { public := true };"}
    lib = check_library({"s.gel": schema, **queries}, Options(library="once"))
    for plan in lib.queries:
        where = plan.sql.split("WHERE", 1)[1].split("RETURNING", 1)[0]
        assert where.count("owner_id IS NOT DISTINCT FROM") == 1, plan.sql
        assert where.count("archived") == 1, plan.sql
        assert "public" not in where, plan.sql
