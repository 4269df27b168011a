"""The ``@throws`` of a TS query and the doc comment of a Go method list exactly the foreign keys
the statement can violate (issue 13): a single link written (its id is the caller's), multi-link
targets added, and for a delete the foreign keys that refuse it (RESTRICT) on every table
referencing the deleted rows, following ON DELETE CASCADE; removing links and deleting rows
nothing refuses list none. Each listed foreign key is then violated on Postgres 15 through the
query's own SQL, and reported with that constraint's name."""

from __future__ import annotations

import re
import uuid

import psycopg

from libraries import run_plan
from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library

SCHEMA = """
type Owner { required name: str; }
type Tag { name: str; }
type Item { required label: str; required owner: Owner; multi tags: Tag; }
type Note { item: Item { on target delete delete source; }; author: Owner; }
"""
QUERIES = {
    "add_item": "insert Item { label := <str>$label, owner := (select Owner filter .id = <uuid>$owner), "
                "tags := (select Tag filter .id in array_unpack(<array<uuid>>$tags)) };",
    "retag": "update Item filter .id = <uuid>$id set { tags += (select Tag filter .id in array_unpack(<array<uuid>>$tags)) };",
    "untag": "update Item filter .id = <uuid>$id set { tags -= (select Tag filter .id in array_unpack(<array<uuid>>$tags)) };",
    "rename_item": "update Item filter .id = <uuid>$id set { label := <str>$label };",
    "del_owner": "delete Owner filter .id = <uuid>$id;",
    "del_item": "delete Item filter .id = <uuid>$id;",
    "del_tag": "delete Tag filter .id = <uuid>$id;",
}
EXPECTED = {
    # (a required link keeps the id it is given; the tags are those the sub-select finds: an
    # unknown id links nothing, as in Gel, issue 25)
    "add_item": ["fk_item_owner_id"],
    "retag": [],
    "untag": [],
    "rename_item": [],
    "del_owner": ["fk_item_owner_id", "fk_note_author_id"],
    "del_item": [],  # its notes are deleted with it (CASCADE), its links too
    "del_tag": ["fk_item_tags_target_id"],
}


def _sources():
    return {"l/schema.esdl": SCHEMA, **{f"l/queries/{k}.edgeql": v for k, v in QUERIES.items()}}


def test_the_doc_comments_list_exactly_the_foreign_keys_a_query_can_violate():
    plans = {q.name: q for q in check_library(_sources(), Options(library="l")).queries}
    assert {name: [fk for fk, _ in q.foreign_keys] for name, q in plans.items()} == EXPECTED
    out = compile_library(_sources(), Options(library="l"))
    ts, go = out["ts/queries.ts"], out["go/queries.go"]
    docs = dict((m.group(2), m.group(1)) for m in re.finditer(
        r"/\*\*\n((?: \*.*\n)+?) \*/\nexport async function (\w+)", ts))
    for name, fks in EXPECTED.items():
        fn = re.sub(r"_(\w)", lambda m: m.group(1).upper(), name)
        assert re.findall(r"@throws \{@link Fk\w+Error\} when .*\(`(fk_\w+)`\)", docs[fn]) == fks, name
    assert "*FkItemOwnerIDError when owner_id names no owner row." in go
    assert "*FkNoteAuthorIDError when a row of note still refers to a deleted owner row." in go
    # the error classes named exist
    for fk in {fk for fks in EXPECTED.values() for fk in fks}:
        cls = "Fk" + "".join(w.capitalize() for w in fk.split("_")[1:]) + "Error"
        assert f"export class {cls} " in out["ts/errors.ts"], cls


def _violated(pg, plan, *args):
    try:
        with pg.conn.transaction():
            run_plan(pg, plan, *args)
    except psycopg.errors.ForeignKeyViolation as e:
        return e.diag.constraint_name
    return None


def test_each_listed_foreign_key_is_violated_on_postgres(pg):
    out = compile_library(_sources(), Options(library="l"))
    pg.execute(out["sql/000001_init.up.sql"])
    plans = {q.name: q for q in check_library(_sources(), Options(library="l")).queries}
    nowhere = str(uuid.uuid4())
    owner = pg.execute("INSERT INTO owner (name) VALUES ('o') RETURNING id")[0][0]
    pg.execute("INSERT INTO owner (name) VALUES ('p')")
    tag = pg.execute("INSERT INTO tag (name) VALUES ('t') RETURNING id")[0][0]
    assert _violated(pg, plans["add_item"], "a", nowhere, []) == "fk_item_owner_id"
    assert _violated(pg, plans["add_item"], "a", owner, [nowhere]) is None
    (item,) = run_plan(pg, plans["add_item"], "a", owner, [tag])[0]
    assert _violated(pg, plans["retag"], item, [nowhere]) is None
    assert _violated(pg, plans["untag"], item, [nowhere]) is None
    pg.execute("INSERT INTO note (item_id) VALUES (%s)", (item,))
    assert _violated(pg, plans["del_owner"], owner) == "fk_item_owner_id"
    assert _violated(pg, plans["del_tag"], tag) == "fk_item_tags_target_id"
    pg.execute("UPDATE item SET owner_id = (SELECT id FROM owner WHERE name = 'p')")
    pg.execute("INSERT INTO note (author_id) VALUES (%s)", (owner,))
    assert _violated(pg, plans["del_owner"], owner) == "fk_note_author_id"
    assert _violated(pg, plans["del_item"], item) is None  # its note and links go with it
    assert pg.execute("SELECT count(*) FROM note WHERE item_id IS NOT NULL") == [(0,)]

