"""A link's value ``(select detached T filter f)`` (https://docs.geldata.com/reference/edgeql/paths#detached)
is the objects of ``T`` the filter picks, as ``(select T filter f)``: in an insert and an
update, of a single and a multi link, with ``+=`` and inside ``assert_single`` (the form Gel's
FastAPI example writes, ``host := assert_single((select detached User filter .name = host_name))``).
Since 1257503 the parser keeps ``detached`` in such a selection, and these were E0304 'the value
of link ... must be (select ...)'. Run on PostgreSQL 15 with data."""

from __future__ import annotations

import re

import pytest

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
type User { required name: str { constraint exclusive; }; multi friends: User; }
type Event { required title: str; required host: User; }
"""

QUERIES = {
    "befriend": "update User filter .name = <str>$name set { friends += (select detached User filter .name = <str>$friend) }",
    "unfriend": "update User filter .name = <str>$name set { friends -= (select detached User filter .name = <str>$friend) }",
    "add_user": "insert User { name := <str>$name, friends := (select detached User filter .name != <str>$name) }",
    "add_event": "with host_name := <str>$host "
                 "insert Event { title := <str>$title, host := assert_single((select detached User filter .name = host_name)) }",
    "rehost": "update Event filter .title = <str>$title set { host := (select detached User filter .name = <str>$host) }",
}


def _sources():
    src = {"lib/schema.esdl": SCHEMA}
    src.update({f"lib/{k}.edgeql": v for k, v in QUERIES.items()})
    return src


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return [tuple(r) for r in pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})]


@pytest.fixture
def db(pg):
    pg.execute(compile_library(_sources(), Options(library="lib"))["sql/schema.sql"])
    pg.execute("INSERT INTO \"user\" (name) VALUES ('ann'), ('bob')")
    return pg


def _friends(db, name):
    return [r[0] for r in db.execute(
        "SELECT f.name FROM user_friends j JOIN \"user\" u ON u.id = j.source_id JOIN \"user\" f ON f.id = j.target_id "
        "WHERE u.name = %s ORDER BY f.name", (name,))]


def test_a_detached_selection_is_the_value_of_a_link(db):
    plans = {q.name: q for q in check_library(_sources(), Options(library="lib")).queries}
    _run(db, plans["befriend"], name="ann", friend="bob")
    assert _friends(db, "ann") == ["bob"]
    _run(db, plans["unfriend"], name="ann", friend="bob")
    assert _friends(db, "ann") == []
    _run(db, plans["add_user"], name="cat")
    assert _friends(db, "cat") == ["ann", "bob"]
    _run(db, plans["add_event"], title="party", host="bob")
    _run(db, plans["rehost"], title="party", host="cat")
    assert db.execute("SELECT e.title, u.name FROM event e JOIN \"user\" u ON u.id = e.host_id") == [("party", "cat")]
