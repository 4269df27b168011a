"""Gel schema definitions other declarations use: abstract links and properties extended by
pointers (https://docs.geldata.com/reference/datamodel/links#abstract-links), delegated
constraints (https://docs.geldata.com/reference/datamodel/constraints). Compiled here; the
tables they give are checked on PostgreSQL 15 with data."""

from __future__ import annotations

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library
from schemac.diagnostics import CompileError

CREW = """
module default {
  type Person { required name: str; }
  abstract link crew {
    property list_order -> int64;
    annotation title := 'crew member';
  }
  abstract link cast extending crew {
    property character -> str;
  }
  type Movie {
    required title: str;
    multi link directors extending crew -> Person;
    multi link actors extending cast -> Person { property character -> str { default := 'extra' }; }
  }
  abstract property ident {
    readonly := true;
    constraint max_len_value(8);
  }
  abstract type Named {
    required name: str { delegated constraint exclusive; }
  }
  type City extending Named { code: str { extending ident; } }
  type Country extending Named {}
}
"""


def _compile(schema, name="lib"):
    return compile_library({f"{name}/schema.esdl": schema}, Options(library=name))


def _diagnose(schema):
    with pytest.raises(CompileError) as e:
        check_library({"lib/schema.esdl": schema}, Options(library="lib"))
    return [(d.code, d.message) for d in e.value.diagnostics if d.severity == "error"]


def test_pointers_get_the_members_of_the_abstract_pointers_they_extend(pg):
    warnings = []
    out = compile_library({"lib/schema.esdl": CREW}, Options(library="lib"), warnings)
    assert warnings == []  # a delegated exclusive is per table by definition: no W0002
    sql = out["sql/schema.sql"]
    pg.execute(sql.replace("SET LOCAL", "SET"))
    cols = pg.execute("SELECT table_name, column_name, column_default FROM information_schema.columns "
                      "WHERE table_name IN ('movie_directors', 'movie_actors', 'city') ORDER BY 1, 2")
    assert ("movie_directors", "list_order", None) in cols
    assert ("movie_actors", "list_order", None) in cols  # through cast, from crew
    assert ("movie_actors", "character", "'extra'::text") in cols  # its own wins over cast's
    assert pg.execute("SELECT obj_description('movie_directors'::regclass)") == [("crew member",)]
    # the abstract property's constraint, on the column that extends it
    pg.execute("INSERT INTO city (name, code) VALUES ('Lyon', 'LYS')")
    with pytest.raises(Exception, match="ck_city_code_max_len_value"):
        pg.execute("INSERT INTO city (name, code) VALUES ('Paris', 'PARIS-CDG')")
    # delegated constraint exclusive: each concrete type's table on its own
    pg.execute("INSERT INTO country (name) VALUES ('Lyon')")
    with pytest.raises(Exception, match="uq_country_name"):
        pg.execute("INSERT INTO country (name) VALUES ('Lyon')")


@pytest.mark.parametrize("schema, expected", [
    ("abstract link l { property p -> str; }\ntype T { property x -> str { extending l; } }",
     ("E0204", "a property cannot extend abstract link 'l'")),
    ("type T { multi link xs extending nope -> T; }", ("E0201", "unknown abstract link 'nope'")),
    ("abstract link a extending b;\nabstract link b extending a;\ntype T { multi link xs extending a -> T; }",
     ("E0210", "abstract link 'a' extends itself")),
    ("abstract link a;\nabstract link a;\ntype T {}", ("E0200", "abstract link 'a' is already defined at lib/schema.esdl:1:15")),
])
def test_refusals(schema, expected):
    assert expected in _diagnose(schema)
