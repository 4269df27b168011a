"""Indexes in a pointer's body (https://docs.geldata.com/reference/datamodel/indexes): in a
multi link's body (or an abstract link's it extends) they index the link's properties,
``index on (__subject__@weight)`` / ``index on (@weight)``, on the link's join table; in a
property's body (a pointer declared without ``property`` and with a block, which Gel reads as a
link's declaration) the index reads the object, as if declared on the type. Checked on
PostgreSQL 15: the indexes exist with the expected definitions and applying data works."""

from __future__ import annotations

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  abstract link crew { property list_order -> int64; index on (__subject__@list_order); }
  type Person { required name: str; }
  type Movie {
    required title: str;
    required status: str { default := "todo"; index on (.status); }
    code: str { index on (str_lower(__subject__)); }
    multi link directors extending crew -> Person;
    multi actors: Person {
      character: str;
      index on (@character);
      index on ((__subject__@character, str_lower(@character))) except (@character = '');
    }
  }
}
"""


def _diagnose(schema):
    with pytest.raises(CompileError) as e:
        check_library({"lib/schema.esdl": schema}, Options(library="lib"))
    return [(d.code, d.message, d.span.line, d.span.col) for d in e.value.diagnostics if d.severity == "error"]


def test_pointer_body_indexes_on_postgres(pg):
    sql = compile_library({"lib/schema.esdl": SCHEMA}, Options(library="lib"))["sql/schema.sql"]
    pg.execute(sql.replace("SET LOCAL", "SET"))
    rows = pg.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' "
                      "AND indexname LIKE 'ix_%%' ORDER BY indexname")
    defs = {name: d.split(" USING ")[1] for name, d in rows}
    assert defs["ix_movie_status"] == "btree (status)"
    assert [d for n, d in defs.items() if n.startswith("ix_movie_code_")] == ["btree (lower(code))"]
    assert defs["ix_movie_directors_list_order"] == "btree (list_order)"
    assert defs["ix_movie_actors_character"] == "btree (\"character\")"
    partial = [d for n, d in defs.items() if n.startswith("ix_movie_actors_character_character_")]
    assert partial == ["btree (\"character\", lower(\"character\")) WHERE (\"character\" <> ''::text) IS NOT TRUE"] \
        or partial == ["btree (\"character\", lower(\"character\")) WHERE ((\"character\" = ''::text) IS NOT TRUE)"]
    m = pg.execute("INSERT INTO movie (title) VALUES ('m') RETURNING id")[0][0]
    p = pg.execute("INSERT INTO person (name) VALUES ('p') RETURNING id")[0][0]
    pg.execute("INSERT INTO movie_actors (source_id, target_id, character) VALUES (%s, %s, 'Neo')", (m, p))
    pg.execute("INSERT INTO movie_directors (source_id, target_id, list_order) VALUES (%s, %s, 1)", (m, p))
    assert pg.execute("SELECT status FROM movie") == [("todo",)]


@pytest.mark.parametrize("body, message, col", [
    ("multi friends: P { w: int64; index on (.name); }",
     "an index of the link 'friends' may read its link properties only (@name)", 42),
    ("friend: P { index on (.name); }", "an index in the body of a single link ('friend') is not supported", 15),
    ("multi friends: P { w: int64 { index on (.w); } }", "indexes in a link property's body are not supported", 33),
])
def test_refusals_are_located(body, message, col):
    diags = _diagnose("type P {\n  required name: str;\n  " + body + "\n}")
    assert [(c, m, line, c2) for c, m, line, c2 in diags] == [("E0206", message, 3, col)]
