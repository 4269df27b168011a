"""The ``features`` case (tests/cases/features) on a real Postgres 15: each schema feature's
lowering is applied and then exercised with data -- value constraints and custom scalars
(CHECK, SQLSTATE 23514), links (FK actions, 23503), multi links (join tables), multi properties
and arrays, inheritance and ``overloaded``, Gel's ``except`` (NULL semantics), indexes and their
methods, annotations as comments, and the queries over them."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import psycopg
import pytest

from libraries import case_plans, run_plan

CASE = Path(__file__).resolve().parents[1] / "cases" / "features"
UP = (CASE / "expected" / "sql" / "000001_init.up.sql").read_text


def plans():
    return case_plans('features')


run = run_plan


@pytest.fixture
def db(pg):
    pg.execute(UP())
    return pg


def account(db, email="a@example.com", **cols):
    cols = {"email": email, **cols}
    names = ", ".join(cols)
    marks = ", ".join(["%s"] * len(cols))
    return db.execute(f"INSERT INTO account ({names}) VALUES ({marks}) RETURNING id", tuple(cols.values()))[0][0]


def violation(db, sql, params, exc_type):
    with pytest.raises(exc_type) as exc:
        db.execute(sql, params)
    return exc.value.diag.constraint_name


def test_inherited_members_and_overloaded_default(db):
    a = account(db)
    row = db.execute("SELECT name, role, nicknames, created_at IS NOT NULL FROM account WHERE id = %s", (a,))
    assert row == [("anonymous", "Reader", [], True)]  # Named.name overloaded with a default


def test_value_constraints_and_custom_scalars(db):
    a = account(db)
    ins = "INSERT INTO post (title, slug, author_id) VALUES (%s, %s, %s)"
    assert violation(db, ins, ("t", "Not A Slug", a), psycopg.errors.CheckViolation) == "ck_post_slug_regexp"
    assert violation(db, ins, ("t", "x" * 41, a), psycopg.errors.CheckViolation) == "ck_post_slug_max_len_value"
    upd = "UPDATE account SET age = %s WHERE id = %s"
    assert violation(db, upd, (12, a), psycopg.errors.CheckViolation) == "ck_account_age_min_value"
    assert violation(db, upd, (150, a), psycopg.errors.CheckViolation) == "ck_account_age_max_ex_value"
    db.execute(upd, (149, a))
    assert violation(db, "UPDATE account SET name = '' WHERE id = %s", (a,),
                     psycopg.errors.CheckViolation) == "ck_account_name_min_len_value"
    assert violation(db, "UPDATE account SET score = -1 WHERE id = %s", (a,),
                     psycopg.errors.CheckViolation) == "ck_account_score_expression"
    assert violation(db, "INSERT INTO post (title, slug, author_id, kind) VALUES ('t', 's', %s, 'poem')", (a,),
                     psycopg.errors.CheckViolation) == "ck_post_kind_one_of"
    assert violation(db, "INSERT INTO post (title, slug, author_id, visibility) VALUES ('t', 's', %s, 'Secret')",
                     (a,), psycopg.errors.CheckViolation) == "ck_post_visibility_enum"
    assert violation(db, "INSERT INTO post (title, slug, author_id, updated_at) VALUES "
                         "('t', 's', %s, now() - interval '1 day')", (a,),
                     psycopg.errors.CheckViolation) == "ck_post_created_at_updated_at_check"
    assert violation(db, "INSERT INTO tag (name) VALUES ('Bad Tag')", None,
                     psycopg.errors.CheckViolation) == "ck_tag_name_regexp"


def test_links_and_their_on_target_delete_actions(db):
    a, b = account(db, "a@x"), account(db, "b@x")
    post = db.execute("INSERT INTO post (title, slug, author_id, editor_id) VALUES ('t', 's', %s, %s) "
                      "RETURNING id", (a, b))[0][0]
    inv = db.execute("INSERT INTO billing_invoice (number, account_id) VALUES (1, %s) RETURNING id", (b,))[0][0]
    assert violation(db, "INSERT INTO post (title, slug, author_id) VALUES ('t2', 's2', gen_random_uuid())", None,
                     psycopg.errors.ForeignKeyViolation) == "fk_post_author_id"
    # restrict: an invoice keeps its account
    assert violation(db, "DELETE FROM account WHERE id = %s", (b,),
                     psycopg.errors.ForeignKeyViolation) == "fk_billing_invoice_account_id"
    db.execute("DELETE FROM billing_invoice WHERE id = %s", (inv,))
    # allow: deleting the editor empties the link
    db.execute("DELETE FROM account WHERE id = %s", (b,))
    assert db.execute("SELECT editor_id FROM post WHERE id = %s", (post,)) == [(None,)]
    # delete source: deleting the author deletes the post
    db.execute("DELETE FROM account WHERE id = %s", (a,))
    assert db.execute("SELECT count(*) FROM post") == [(0,)]


def test_multi_link_join_table_and_link_properties(db):
    a = account(db)
    post = db.execute("INSERT INTO post (title, slug, author_id) VALUES ('t', 's', %s) RETURNING id", (a,))[0][0]
    t1 = db.execute("INSERT INTO tag (name) VALUES ('go') RETURNING id")[0][0]
    t2 = db.execute("INSERT INTO tag (name) VALUES ('sql') RETURNING id")[0][0]
    db.execute("INSERT INTO post_tags (source_id, target_id) VALUES (%s, %s), (%s, %s)", (post, t1, post, t2))
    assert db.execute("SELECT weight FROM post_tags ORDER BY weight") == [(1,), (1,)]  # link property default
    with pytest.raises(psycopg.errors.UniqueViolation):  # a link is a set: no duplicates
        db.execute("INSERT INTO post_tags (source_id, target_id) VALUES (%s, %s)", (post, t1))
    assert violation(db, "UPDATE post_tags SET weight = -1", None,
                     psycopg.errors.CheckViolation) == "ck_post_tags_weight_min_value"
    db.execute("DELETE FROM tag WHERE id = %s", (t1,))  # allow: the link row goes
    assert db.execute("SELECT count(*) FROM post_tags") == [(1,)]
    db.execute("DELETE FROM post WHERE id = %s", (post,))  # the source goes: its links go
    assert db.execute("SELECT count(*) FROM post_tags") == [(0,)]


def test_gel_except_constrains_rows_where_the_exception_is_null(db):
    a = account(db)
    ins = "INSERT INTO post (title, slug, author_id, visibility) VALUES (%s, %s, %s, %s)"
    db.execute(ins, ("same", "s1", a, "Private"))
    db.execute(ins, ("same", "s2", a, "Private"))  # exempt: except (.visibility = Private)
    db.execute(ins, ("same", "s3", a, "Public"))
    assert violation(db, ins, ("same", "s4", a, "Members only"), psycopg.errors.UniqueViolation) == "uq_post_title"
    # NULL visibility: (Q) IS NOT TRUE holds, so the row is constrained, as in Gel.
    assert violation(db, ins, ("same", "s5", a, None), psycopg.errors.UniqueViolation) == "uq_post_title"


def test_indexes_methods_predicates_and_comments(db):
    defs = dict(db.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'"))
    gin = [d for n, d in defs.items() if n.startswith("ix_account_tags_")]
    assert len(gin) == 1 and "USING gin (tags)" in gin[0]
    lower = [d for n, d in defs.items() if n.startswith("ix_account_name_")]
    assert len(lower) == 1 and "(lower(name))" in lower[0]
    partial = [d for n, d in defs.items() if n.startswith("ix_post_visibility_")]
    assert len(partial) == 1 and partial[0].endswith("WHERE (visibility <> 'Private'::text)")
    for fk_index in ("ix_post_author_id", "ix_post_editor_id", "ix_billing_invoice_account_id",
                     "ix_post_tags_target_id"):
        assert fk_index in defs
    assert db.execute("SELECT obj_description('account'::regclass, 'pg_class')") == [("A person who can log in.",)]
    assert db.execute("SELECT col_description('account'::regclass, 5)") == [("Login e-mail",)]  # email


def test_queries_over_links(db):
    q = plans()
    a = account(db)
    (post,) = run(db, q["create_post"], "Hello", "hello", a, None)[0]
    assert run(db, q["create_post"], "Again", "hello", a, None) == []  # (author, slug) conflict absorbed
    assert q["create_post"].cardinality == "at_most_one"
    assert db.execute("SELECT visibility FROM post WHERE id = %s", (post,)) == [("Public",)]  # default applied
    assert run(db, q["retitle_post"], post, a, "Hi") == [(post,)]
    assert q["retitle_post"].cardinality == "at_most_one"
    db.execute("UPDATE post SET body = 'text' WHERE id = %s", (post,))
    assert run(db, q["hide_posts"], a) == [(post,)]
    assert q["hide_posts"].cardinality == "many"
    (acc,) = run(db, q["create_account"], "n@x", None, 20, ["nick"], ["t1", "t2"])[0]
    assert db.execute("SELECT name, nicknames, tags FROM account WHERE id = %s", (acc,)) == [
        ("anonymous", ["nick"], ["t1", "t2"])]
    (inv,) = run(db, q["create_invoice"], 7, acc)[0]
    assert db.execute("SELECT account_id FROM billing_invoice WHERE id = %s", (inv,)) == [(acc,)]


def test_nested_shapes_in_one_statement(db):
    q = plans()["post_page"]
    a = account(db, "n@x", name="Ann", age=30)
    t1 = db.execute("INSERT INTO tag (name) VALUES ('go') RETURNING id")[0][0]
    t2 = db.execute("INSERT INTO tag (name) VALUES ('sql') RETURNING id")[0][0]
    (p1,) = run(db, q_create := plans()["create_post"], "B post", "b-post", a, None)[0]
    (p2,) = run(db, q_create, "A post", "a-post", a, None)[0]
    db.execute("INSERT INTO post_tags (source_id, target_id) VALUES (%s, %s), (%s, %s)", (p1, t2, p1, t1))
    rows = run(db, q, a, 10)
    assert [r[1] for r in rows] == ["A post", "B post"]
    (_, _, _, author, editor_id, tags) = rows[1]
    assert author["name"] == "Ann" and author["email"] == "n@x" and author["age"] == 30
    assert isinstance(author["created_at"], str)  # JSON: an ISO 8601 timestamp
    assert editor_id is None
    assert sorted(t["name"] for t in tags) == ["go", "sql"]
    assert rows[0][5] == []  # no tags: an empty list, not NULL
    plan = db.execute("EXPLAIN " + re.sub(r"\$(\d+)", lambda m: "%s", q.sql), (a, 10))
    assert plan  # one statement: the nested shapes are sub-selects of the same query


def test_add_to_and_remove_from_multi_properties(db):
    q = plans()["retag_account"]
    a = account(db, "m@x")
    db.execute("UPDATE account SET nicknames = ARRAY['a', 'b'], tags = ARRAY['x', 'y', 'x', 'z'] WHERE id = %s", (a,))
    assert run(db, q, a, "c", ["x", "nope"]) == [(a,)]
    assert db.execute("SELECT nicknames, tags FROM account WHERE id = %s", (a,)) == [(["a", "b", "c"], ["y", "z"])]
    run(db, q, a, "c", [])
    assert db.execute("SELECT nicknames, tags FROM account WHERE id = %s", (a,)) == [(["a", "b", "c", "c"], ["y", "z"])]


def test_count_of_a_multi_link_and_a_multi_property(db):
    q = plans()["popular_posts"]
    a = account(db)
    tags = [db.execute("INSERT INTO tag (name) VALUES (%s) RETURNING id", (n,))[0][0] for n in ("a", "b", "c")]
    posts = {}
    for title, n in (("none", 0), ("two", 2), ("three", 3)):
        (pid,) = run(db, plans()["create_post"], title, title, a, None)[0]
        posts[title] = pid
        for t in tags[:n]:
            db.execute("INSERT INTO post_tags (source_id, target_id) VALUES (%s, %s)", (pid, t))
    assert [r[1] for r in run(db, q, 1)] == ["three", "two"]
    assert [r[1] for r in run(db, q, 0)] == ["three", "two", "none"]
    lib = case_plans("features")
    assert lib["popular_posts"].cardinality == "many"


def test_select_of_an_update_returns_its_shape(db):
    q = plans()["make_public"]
    assert q.cardinality == "at_most_one"
    assert [f.name for f in q.result] == ["id", "title", "visibility", "author_id", "updated_at"]
    a = account(db)
    (pid,) = run(db, plans()["create_post"], "T", "t", a, "Private")[0]
    (row,) = run(db, q, pid)
    assert row[:4] == (pid, "T", "Public", a) and row[4] is not None
    assert run(db, q, "00000000-0000-0000-0000-000000000000") == []


def test_insert_with_a_multi_link_is_one_atomic_statement(db):
    q = plans()["create_tagged_post"]
    assert q.sql.startswith('WITH "_new" AS (') and q.cardinality == "one"
    a = account(db)
    t1 = db.execute("INSERT INTO tag (name) VALUES ('go') RETURNING id")[0][0]
    t2 = db.execute("INSERT INTO tag (name) VALUES ('sql') RETURNING id")[0][0]
    (pid,) = run(db, q, "T", "t", a, [t1, t2, t1])[0]  # a repeated id links once
    assert sorted(r[0] for r in db.execute("SELECT target_id FROM post_tags WHERE source_id = %s", (pid,))) == \
        sorted([t1, t2])
    # an unknown tag links nothing (Gel's sub-select finds no Tag for it; issue 25)
    (upid,) = run(db, q, "U", "u", a, [t1, uuid.UUID(int=0)])[0]
    assert db.execute("SELECT target_id FROM post_tags WHERE source_id = %s", (upid,)) == [(t1,)]
    (empty,) = run(db, q, "V", "v", a, [])[0]
    assert db.execute("SELECT count(*) FROM post_tags WHERE source_id = %s", (empty,)) == [(0,)]


def test_upsert_reading_the_existing_row_runs_on_postgres(db):
    """Inside DO UPDATE, `excluded` is in scope too: the existing row's columns are qualified."""
    from schemac.pipeline import check_library
    from schemac.semantics.library import Options as _Options

    sources = {f"cases/features/{f.relative_to(CASE).as_posix()}": f.read_text()
               for f in sorted(CASE.glob("*.esdl"))}
    sources["cases/features/queries/bump.edgeql"] = (
        "insert Account { email := $email, score := 1.0 } unless conflict on .email "
        "else (update Account set { score := (.score ?? 0.0) + 1.0 });")
    (plan,) = check_library(sources, _Options(library="features")).queries
    assert '"account".score' in plan.sql
    first = run(db, plan, "b@x")
    assert run(db, plan, "b@x") == first
    assert db.execute("SELECT score FROM account WHERE email = 'b@x'") == [(2.0,)]
