"""An overload that names its inherited type from another module is the same type (was E0204
"changes its type from Context to Project::Context", SeedCompany/cord-api-v3's dbschema): Gel
resolves a name in the module it is written in (https://docs.geldata.com/reference/datamodel/modules),
so ``required ctx: Context`` declared in module ``Project`` and ``overloaded required ctx:
Project::Context`` in ``default`` are one link; an enum or scalar likewise. Two types of the same
name in two modules stay two types (E0204, naming both). Proven on PostgreSQL 15 with data.
"""

from __future__ import annotations

import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """\
module Project {
  type Context { required name: str { constraint exclusive; } }
  scalar type Level extending enum<Low, High>;
  abstract type Aware {
    required ctx: Context;
    level: Level;
  }
}
module default {
  scalar type Level extending enum<A, B>;
  type Org extending Project::Aware {
    required name: str;
    overloaded required ctx: Project::Context { annotation title := 'the context'; };
    overloaded level: Project::Level { default := Project::Level.High; };
  }
}
"""

QUERIES = {
    "add": "insert Org { name := <str>$name, ctx := (select Project::Context filter .name = <str>$ctx) };",
    "orgs": "select Org { name, level, ctx: { name } } order by .name;",
}


def test_on_postgres(pg):
    sources = {"ov/default.gel": SCHEMA}
    pg.execute(compile_library(sources, Options(library="ov"))["sql/000001_init.up.sql"])
    sources.update({f"ov/queries/{k}.edgeql": v for k, v in QUERIES.items()})
    q = {p.name: p for p in check_library(sources, Options(library="ov")).queries}
    pg.execute("INSERT INTO project_context (name) VALUES ('c1')")
    run_plan(pg, q["add"], "acme", "c1")
    assert run_plan(pg, q["orgs"]) == [("acme", "High", {"name": "c1"})]


def test_a_type_of_the_same_name_in_another_module_is_another_type():
    schema = SCHEMA.replace("overloaded level: Project::Level { default := Project::Level.High; };",
                            "overloaded level: Level;")
    with pytest.raises(CompileError) as e:
        check_library({"ov/default.gel": schema}, Options(library="ov"))
    assert [(d.code, d.message) for d in e.value.diagnostics] == [
        ("E0204", "overloaded 'level' changes its type from Project::Level to default::Level")]
