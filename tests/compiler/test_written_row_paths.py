"""``select (update Item ... set { owner := ... }) { own_tags := count(.owner.tags), ... }``: a
path from the written row starts from the row's own link column, as the statement leaves it
(Gel's result shows the objects after the write,
https://docs.geldata.com/reference/edgeql/insert#with-block), while a path from any other row of
the same type inside the shape (a nested link's object, a computed's sub-select) reads the table,
as it was before the statement. The checker marks the paths that start from the written row
(``qir.InPath.written_row``); the lowering keeps no state for it (issue 26: it was a
module-level variable matching any row named as the table). Tested on PostgreSQL 15."""

from __future__ import annotations

import re

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
type Tag { required name: str { constraint exclusive; }; }
type Item {
  required name: str { constraint exclusive; };
  owner: Item;
  multi tags: Tag;
  multi peers := (select Item filter count(.owner.tags) > 0);
}
"""

SOURCES = {
    "wr/s.esdl": SCHEMA,
    "wr/q/move.edgeql": "select (update Item filter .name = <str>$name set {\n"
                        "  owner := (select detached Item filter .name = <str>$owner limit 1) })\n"
                        "{ name, own_tags := count(.owner.tags), owner: { name, n := count(.owner.tags) },\n"
                        "  peers: { name, k := count(.owner.tags) } };",
    "wr/q/add.edgeql": "select (insert Item { name := <str>$name,\n"
                       "  owner := (select detached Item filter .name = <str>$owner limit 1) })\n"
                       "{ name, own_tags := count(.owner.tags), owner: { name } };",
}

DATA = """
INSERT INTO "tag" ("id", "name") VALUES ('00000000-0000-0000-0000-000000000001', 't1'),
  ('00000000-0000-0000-0000-000000000002', 't2'), ('00000000-0000-0000-0000-000000000003', 't3');
INSERT INTO "item" ("id", "name", "owner_id") VALUES
  ('00000000-0000-0000-0000-0000000000a1', 'one', NULL),
  ('00000000-0000-0000-0000-0000000000a2', 'three', NULL),
  ('00000000-0000-0000-0000-0000000000a3', 'x', '00000000-0000-0000-0000-0000000000a1');
INSERT INTO "item_tags" ("source_id", "target_id") VALUES
  ('00000000-0000-0000-0000-0000000000a1', '00000000-0000-0000-0000-000000000001'),
  ('00000000-0000-0000-0000-0000000000a2', '00000000-0000-0000-0000-000000000001'),
  ('00000000-0000-0000-0000-0000000000a2', '00000000-0000-0000-0000-000000000002'),
  ('00000000-0000-0000-0000-0000000000a2', '00000000-0000-0000-0000-000000000003');
"""


def _plans():
    return {q.name: q for q in check_library(SOURCES, Options(library="wr")).queries}


def test_only_the_written_row_reads_its_own_column():
    """One path of each statement starts from the written row (``own_tags``); the nested
    object's and the computed's paths start from their own rows, through the table."""
    for name in ("move", "add"):
        sql = _plans()[name].sql
        assert sql.count('IN (SELECT "item"."owner_id")') == 1, sql
    assert _plans()["move"].sql.count('FROM "item" AS "_h0" WHERE "_h0"."id" = "_s1"."id"') == 3


def test_on_postgres(pg):
    plans = _plans()
    pg.execute(compile_library(SOURCES, Options(library="wr"))["sql/000001_init.up.sql"])
    pg.execute(DATA)

    def run(query, **args):
        order = [p.name for p in plans[query].params]
        sql = re.sub(r"\$(\d+)", r"%(p\1)s", plans[query].sql)
        return pg.execute(sql, {f"p{i}": args[n] for i, n in enumerate(order, 1)})

    # x moves from one (1 tag) to three (3 tags): its own path reads the new owner; the
    # owner's and the peers' paths read the table as the statement found it (x owned by one)
    [(name, own_tags, owner, peers)] = run("move", name="x", owner="three")
    assert (name, own_tags, owner["name"], int(owner["n"])) == ("x", 3, "three", 0)
    assert sorted((p["name"], int(p["k"])) for p in peers) == [("x", 1)]
    # after the statement the table holds the new owner
    [(name, own_tags, owner, peers)] = run("move", name="x", owner="one")
    assert (own_tags, owner["name"], sorted((p["name"], int(p["k"])) for p in peers)) == (1, "one", [("x", 3)])
    # an inserted row is not in the table yet: its path starts from its own column
    [(name, own_tags, owner)] = run("add", name="y", owner="three")
    assert (name, own_tags, owner["name"]) == ("y", 3, "three")
