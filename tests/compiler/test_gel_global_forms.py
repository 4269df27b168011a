"""Forms of globals and sub-selects real Gel schemas use (seen in public Gel projects), checked on
Postgres 15 with psycopg: a computed object global pinned by a property-level exclusive
constraint, ``assert_single((select ...))`` (several rows fail the statement, SQLSTATE 21000,
as Gel's CardinalityViolationError), a path through an object global (``global
current_user.role``), a sub-select used as a value in an access policy, and a link default
reading a global (https://docs.geldata.com/reference/datamodel/globals,
https://docs.geldata.com/reference/datamodel/access_policies)."""

from __future__ import annotations

import psycopg
import pytest

from libraries import run_plan
from schemac.semantics.library import Options
from schemac.pipeline import check_library

SCHEMA = """
scalar type Role extending enum<Admin, Member>;
global clerk_id: str;
global current_user := assert_single((select User filter .clerk_id = global clerk_id));
global group_key: str;
global current_group := (select Group filter .key = global group_key);

type Group { required key: str { constraint exclusive; }; }
type User {
  required name: str;
  clerk_id: str;
  role: Role;
}
type Post {
  required title: str;
  required author: User { default := global current_user; };
  group: Group;
  access policy own allow select, delete using (.author ?= (select User filter .id = global current_user.id));
  access policy admins allow select using (global current_user.role ?= Role.Admin);
  access policy grouped allow select using (.group = global current_group);
  access policy anyone_inserts allow insert;
}
"""

QUERIES = {
    "add_post": "insert Post { title := <str>$title };",
    "posts": "select Post { title } order by .title;",
}


@pytest.fixture
def lib(pg):
    sources = {"s.esdl": SCHEMA, **{f"q/{k}.edgeql": v for k, v in QUERIES.items()}}
    compiled = check_library(sources, Options(library="t"))
    from schemac.pipeline import compile_library

    pg.execute(compile_library(sources, Options(library="t"))["sql/000001_init.up.sql"])
    return {q.name: q for q in compiled.queries}


def globals_of(plan, **values):
    return [values.get(p.name.split("::")[-1]) for p in plan.params]


def test_object_globals_assert_single_and_policies(pg, lib):
    ann = pg.execute("INSERT INTO \"user\" (name, clerk_id, role) VALUES ('Ann', 'c-ann', 'Member') RETURNING id")[0][0]
    pg.execute("INSERT INTO \"user\" (name, clerk_id, role) VALUES ('Root', 'c-root', 'Admin')")
    g = pg.execute("INSERT INTO \"group\" (key) VALUES ('g1') RETURNING id")[0][0]
    add, posts = lib["add_post"], lib["posts"]
    assert [p.global_ is not None for p in add.params] == [False, True]
    # The author link's default reads the global (through assert_single).
    (pid,), = run_plan(pg, add, "hello", "c-ann")
    assert pg.execute("SELECT author_id FROM post WHERE id = %s", (pid,)) == [(ann,)]
    pg.execute("INSERT INTO post (title, author_id, group_id) VALUES ('grouped', %s, %s)", (ann, g))
    pg.execute("INSERT INTO \"user\" (name, clerk_id) VALUES ('Twin', 'c-twin'), ('Twin2', 'c-twin')")
    # Reads: own posts, all for an admin (global current_user.role), the current group's.
    assert run_plan(pg, posts, *globals_of(posts, clerk_id="c-ann")) == [("grouped",), ("hello",)]
    assert run_plan(pg, posts, *globals_of(posts, clerk_id="c-root")) == [("grouped",), ("hello",)]
    assert run_plan(pg, posts, *globals_of(posts, clerk_id="nobody")) == []
    # (With `?=` instead of `=`, a post without a group would match an unset group: {} ?= {}
    # is true in Gel as IS NOT DISTINCT FROM is in SQL.)
    assert run_plan(pg, posts, *globals_of(posts, clerk_id="nobody", group_key="g1")) == [("grouped",)]
    # assert_single: two users with one clerk id fail the statement, as Gel's
    # CardinalityViolationError.
    with pytest.raises(psycopg.errors.CardinalityViolation):
        run_plan(pg, posts, *globals_of(posts, clerk_id="c-twin"))
