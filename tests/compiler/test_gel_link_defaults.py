"""A link's default that selects its object (https://docs.geldata.com/reference/datamodel/links#default-values),
``default := (select User filter .name = 'admin')``, with or without a global: a Postgres column
default cannot hold a sub-query, so each generated insert that leaves the link out writes it.
Run on PostgreSQL 15 with data."""

from __future__ import annotations

import re

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library
from schemac.diagnostics import CompileError

SCHEMA = """
global cur_username: str;
type User { required username: str { constraint exclusive; } }
type Task {
  required title: str;
  required link owner -> User {
    default := (select User filter .username = global cur_username)
  }
  link reviewer -> User {
    default := (select User filter .username = 'admin')
  }
}
"""


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return pg.execute(sql, {f"p{p.index}": args[p.name] for p in plan.params})


def test_link_defaults_by_sub_select_are_written_by_generated_inserts(pg):
    sources = {"lib/schema.esdl": SCHEMA, "lib/add.edgeql": "insert Task { title := <str>$title }",
               "lib/add_by.edgeql": "insert Task { title := <str>$title, owner := (select User filter .id = <uuid>$o) }"}
    out = compile_library(sources, Options(library="lib"))
    assert '"owner_id" uuid NOT NULL,\n    "reviewer_id" uuid\n' in out["sql/schema.sql"]  # no column default
    pg.execute(out["sql/schema.sql"])
    pg.execute("INSERT INTO \"user\" (username) VALUES ('admin'), ('ada')")
    plans = {p.name: p for p in check_library(sources, Options(library="lib")).queries}
    assert [p.name for p in plans["add"].params] == ["title", "global default::cur_username"]
    _run(pg, plans["add"], **{"title": "t1", "global default::cur_username": "ada"})
    assert pg.execute("SELECT t.title, o.username, r.username FROM task t JOIN \"user\" o ON o.id = t.owner_id "
                      "LEFT JOIN \"user\" r ON r.id = t.reviewer_id") == [("t1", "ada", "admin")]
    # a required link whose default selects nothing: the insert fails, as Gel's does
    with pytest.raises(Exception, match="owner_id"):
        _run(pg, plans["add"], **{"title": "t2", "global default::cur_username": "nobody"})
    # given links are not defaulted
    (ada,), = pg.execute("SELECT id FROM \"user\" WHERE username = 'ada'")
    _run(pg, plans["add_by"], **{"title": "t3", "o": ada, "global default::cur_username": "admin"})
    assert pg.execute("SELECT o.username FROM task t JOIN \"user\" o ON o.id = t.owner_id WHERE title = 't3'") == [("ada",)]


@pytest.mark.parametrize("default, code", [
    ("(select Other filter .id = <uuid>'00000000-0000-0000-0000-000000000000')", "E0204"),
    ("(select User filter .username != 'x')", "E0206"),  # may select several
    ("'ada'", "E0206"),
])
def test_refused_link_defaults(default, code):
    schema = f"type Other {{}}\ntype User {{ required username: str {{ constraint exclusive; }} }}\n" \
             f"type Task {{ link owner -> User {{ default := {default} }} }}"
    with pytest.raises(CompileError) as e:
        check_library({"lib/schema.esdl": schema}, Options(library="lib"))
    assert code in [d.code for d in e.value.diagnostics]
