"""The ``query_forms`` case (tests/cases/query_forms) on a real Postgres 15: ``with`` blocks
(values bound once, statements bound and selected with a shape), ``for ... in
json_array_unpack(...)`` bulk inserts, ``+=``/``-=``/``:=`` on a multi link in an update, link
properties in shapes (``@position``) and partial updates (``p := $p ?? .p``). Each query is one
SQL statement, run with psycopg."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import psycopg
import pytest

from libraries import case_plans, run_plan

CASE = Path(__file__).resolve().parents[1] / "cases" / "query_forms"
UP = (CASE / "expected" / "sql" / "000001_init.up.sql").read_text


def plans():
    return case_plans("query_forms")


run = run_plan


@pytest.fixture
def db(pg):
    pg.execute(UP())
    return pg


def account(db, email="ann@example.com", name=None):
    return db.execute("INSERT INTO account (email, name) VALUES (%s, %s) RETURNING id", (email, name))[0][0]


def tag(db, name):
    return db.execute("INSERT INTO tag (name) VALUES (%s) RETURNING id", (name,))[0][0]


def post(db, author, slug="p", title="T"):
    return db.execute("INSERT INTO post (title, slug, author_id) VALUES (%s, %s, %s) RETURNING id",
                      (title, slug, author))[0][0]


def tags_of(db, pid):
    return sorted(r[0] for r in db.execute(
        "SELECT t.name FROM post_tags pt JOIN tag t ON t.id = pt.target_id WHERE pt.source_id = %s", (pid,)))


def test_with_binds_a_value_once(db):
    q = plans()
    a = account(db, "ann@example.com", "Ann")
    assert q["account_by_email"].cardinality == "at_most_one"  # .email = <binding> pins the row
    assert q["account_by_email"].sql.count("lower(") == 1  # computed once, in its CTE
    assert run(db, q["account_by_email"], "ANN@Example.com") == [(a, "ann@example.com", "Ann")]
    assert run(db, q["account_by_email"], "bob@example.com") == []
    b = account(db, "bob@example.com", "ann@example.com")
    named = q["accounts_named"]
    # one parameter ($1), read by both operands and by the test that the optional name is not empty
    # (Gel's or is {} when an operand is)
    assert [p.name for p in named.params] == ["who"] and named.sql.count("$1") == 3
    assert run(db, named, "ann@example.com") == [(a, "ann@example.com"), (b, "bob@example.com")]


def test_with_binds_an_insert_and_selects_it_with_a_shape(db):
    q = plans()["create_post"]
    assert q.cardinality == "one" and q.kind == "insert"
    assert [e.name for e in q.exclusives] == ["uq_post_slug"]
    a = account(db, "ann@example.com", "Ann")
    t1, t2 = tag(db, "go"), tag(db, "sql")
    ((pid, title, views, author),) = run(db, q, "Hello", "hello", a, [t1, t2, t1])
    assert (title, views, author) == ("Hello", 0, {"email": "ann@example.com", "name": "Ann"})
    assert tags_of(db, pid) == ["go", "sql"]
    # an unknown tag links nothing: Gel's sub-select finds no Tag for it (issue 25)
    ((other, *_),) = run(db, q, "Other", "other", a, [uuid.UUID(int=1), t2])
    assert tags_of(db, other) == ["sql"]
    db.execute("DELETE FROM post WHERE id = %s", (other,))
    assert db.execute("SELECT count(*) FROM post") == [(1,)]
    with pytest.raises(psycopg.errors.UniqueViolation) as exc:
        run(db, q, "Again", "hello", a, [])
    assert exc.value.diag.constraint_name == "uq_post_slug"


def test_with_binds_an_update_and_a_timestamp(db):
    q = plans()["publish_post"]
    assert q.cardinality == "at_most_one" and q.kind == "update"
    a = account(db)
    pid = post(db, a)
    t = tag(db, "go")
    db.execute("INSERT INTO post_tags (source_id, target_id, position) VALUES (%s, %s, 3)", (pid, t))
    ((rid, title, published_at, tags),) = run(db, q, pid)
    assert (rid, title, tags) == (pid, "T", [{"name": "go", "@position": 3}])
    assert db.execute("SELECT published_at FROM post WHERE id = %s", (pid,)) == [(published_at,)]
    assert run(db, q, uuid.UUID(int=0)) == []


def test_json_bulk_insert_is_one_statement(db):
    q = plans()["import_posts"]
    assert q.cardinality == "many" and "jsonb_array_elements($1::jsonb)" in q.sql
    a = account(db)
    post(db, a, slug="taken")
    items = [{"title": f"P{i}", "slug": f"p{i}", "author": str(a)} for i in range(1000)]
    items[1].update(views=7, labels=["x", "y"])
    items[2]["views"] = None  # JSON null: the default
    items.append({"title": "dup", "slug": "p0", "author": str(a)})  # a repeated key: skipped
    items.append({"title": "old", "slug": "taken", "author": str(a)})  # an existing key: skipped
    rows = run(db, q, json.dumps(items))
    assert len(rows) == 1000
    assert db.execute("SELECT title, views, labels FROM post WHERE slug IN ('p0', 'p1', 'p2') ORDER BY slug") == [
        ("P0", 0, None), ("P1", 7, ["x", "y"]), ("P2", 0, None)]
    assert run(db, q, "[]") == []
    with pytest.raises(psycopg.errors.NotNullViolation):  # a required member null
        run(db, q, json.dumps([{"title": None, "slug": "no-title", "author": str(a)}]))
    # a member missing: Gel's json[name] fails (https://docs.geldata.com/reference/stdlib/json#operator::jsonobjdest)
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="JSON index 'title' is out of bounds"):
        run(db, q, json.dumps([{"slug": "no-title", "author": str(a)}]))
    with pytest.raises(psycopg.errors.ForeignKeyViolation):
        run(db, q, json.dumps([{"title": "t", "slug": "orphan", "author": str(uuid.UUID(int=0))}]))
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="expected json number"):  # not a number
        run(db, q, json.dumps([{"title": "t", "slug": "bad", "author": str(a), "views": "many"}]))


def test_multi_link_add_remove_and_replace_in_an_update(db):
    q = plans()
    a = account(db)
    pid, other = post(db, a, "p"), post(db, a, "q")
    go, sql, ts = tag(db, "go"), tag(db, "sql"), tag(db, "ts")
    for name in ("add_tags", "remove_tags"):
        assert q[name].cardinality == "at_most_one" and "FOR UPDATE" in q[name].sql
    assert run(db, q["add_tags"], pid, [go, sql, go]) == [(pid,)]
    assert run(db, q["add_tags"], pid, [sql]) == [(pid,)]  # already linked: unchanged
    assert tags_of(db, pid) == ["go", "sql"]
    db.execute("UPDATE post_tags SET position = 5, note = 'kept' WHERE target_id = %s", (sql,))
    assert run(db, q["remove_tags"], pid, [go, ts]) == [(pid,)]
    assert tags_of(db, pid) == ["sql"]
    run(db, q["add_tags"], other, [go])
    # := replaces: links that stay keep their link properties; the other post is untouched.
    assert run(db, q["retag_post"], pid, "New", [sql, ts]) == [(pid, "New", {"email": "ann@example.com"})]
    assert tags_of(db, pid) == ["sql", "ts"] and tags_of(db, other) == ["go"]
    assert db.execute("SELECT position, note FROM post_tags WHERE source_id = %s AND target_id = %s",
                      (pid, sql)) == [(5, "kept")]
    run(db, q["retag_post"], pid, "Empty", [])
    assert tags_of(db, pid) == []
    assert run(db, q["add_tags"], uuid.UUID(int=0), [go]) == []  # no post: no link written
    assert db.execute("SELECT count(*) FROM post_tags") == [(1,)]
    run(db, q["add_tags"], pid, [uuid.UUID(int=2)])  # an unknown tag links nothing, as in Gel
    assert tags_of(db, pid) == []


def test_link_properties_in_a_shape(db):
    q = plans()["post_tags"]
    assert [f.name for f in q.result[1].shape] == ["name", "@position", "@note"]
    a = account(db)
    pid = post(db, a)
    go, sql = tag(db, "go"), tag(db, "sql")
    db.execute("INSERT INTO post_tags (source_id, target_id, position, note) VALUES (%s, %s, 2, 'b'), "
               "(%s, %s, DEFAULT, NULL)", (pid, go, pid, sql))
    ((title, tags),) = run(db, q, pid)
    assert title == "T"
    assert sorted(tags, key=lambda t: t["name"]) == [{"name": "go", "@position": 2, "@note": "b"},
                                                     {"name": "sql", "@position": 0, "@note": None}]


def test_partial_update_leaves_omitted_values(db):
    q = plans()["edit_post"]
    assert [(p.name, p.optional, p.unchanged) for p in q.params] == [
        ("id", False, None), ("title", True, "title"), ("body", True, "body"), ("views", True, "views")]
    a = account(db)
    pid = post(db, a)
    db.execute("UPDATE post SET body = 'b', views = 3 WHERE id = %s", (pid,))
    assert run(db, q, pid, None, None, None) == [(pid,)]
    assert db.execute("SELECT title, body, views FROM post WHERE id = %s", (pid,)) == [("T", "b", 3)]
    run(db, q, pid, "T2", None, 4)
    assert db.execute("SELECT title, body, views FROM post WHERE id = %s", (pid,)) == [("T2", "b", 4)]


def test_refused_forms_are_located_e0206():
    from schemac.pipeline import check_library
    from schemac.semantics.library import Options
    from schemac.diagnostics import CompileError

    sources = {f"cases/query_forms/{f.relative_to(CASE).as_posix()}": f.read_text()
               for f in sorted(CASE.glob("*.esdl"))}
    cases = {
        # (a new object's links are read from its insert's join rows: tests/cases/query_links)
        "with p := (update Post filter .id = <uuid>$id set { tags += (select Tag filter .id in "
        "array_unpack(<array<uuid>>$ids)) }) select p { tags: { name } };":
            ("1:134", "selecting the multi link 'tags' that the same statement writes is not supported yet"),
        "group Post by cube(.title);": ("1:15", "grouping sets ('{a, b}', '(a, b)', cube(), rollup()) are not "
                                                 "supported yet"),
        "update Post filter .id = <uuid>$id set { tags -= (select Tag { @position := 1 } filter .id in "
        "array_unpack(<array<uuid>>$ids)) };": ("1:50", "setting link properties here (in '-=', with "
                                                "order/offset/limit, on a select of an expression) is not supported yet"),
    }
    for text, (where, message) in cases.items():
        with pytest.raises(CompileError) as exc:
            check_library({**sources, "cases/query_forms/queries/q.edgeql": text}, Options(library="query_forms"))
        rendered = [f"{d.span.line}:{d.span.col} {d.code} {d.message}" for d in exc.value.diagnostics]
        assert f"{where} E0206 {message}" in rendered, (text, rendered)
