"""Every statement the compiler writes must prepare with *untyped* parameters, as node-postgres
and pgx send them (a Parse message with no parameter types: Postgres infers each ``$n`` from
where it stands). psycopg sends typed parameters for bool and int, so a ``$n`` in a position
Postgres types as ``text`` (``CASE ($1) WHEN true ...``) passed the psycopg tests and failed
every call through the runners with 42883 ``operator does not exist: text = boolean``.
``PREPARE name AS ...`` without a type list is the same inference; psycopg sends a Python
``str`` untyped, so the rows are read with every parameter passed as text, as node-postgres
sends them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schemac.pipeline import check_library
from schemac.semantics.library import Options

CASES = Path(__file__).resolve().parents[1] / "cases"
CASE_NAMES = sorted(p.name for p in CASES.iterdir() if (p / "schema.esdl").exists())

SCHEMA = """module default {
  type User {
    required handle: str;
    age: int64;
    d: duration;
    tags: array<str>;
    best: User;
    multi friends: User;
  }
  type Chat { required title: str; }
}
"""

#: Parameters in every kind of position (each query is its own file).
QUERIES = [
    "select <str>$a if <bool>$c else <str>$b;",
    "select User { handle } filter .handle = <str>$h if <bool>$c else true order by .handle;",
    "with f := ((select Chat filter .title = <str>$t) if <bool>$by_title else (select Chat)) select f { title } order by .title;",
    "with c := <bool>$c select <str>$a if c else 'x';",
    "select User filter .age > <int64>$a if <bool>$f else .age < <int64>$b;",
    "select User { handle } order by (.handle if <bool>$f else '');",
    "update User filter .id = <uuid>$id set { age := <int64>$a if <bool>$f else .age };",
    "select User { h := .handle if <bool>$f else <str>$a };",
    "select User { handle } filter .handle = (<str>$a if <bool>$f else <str>$b);",
    "select User filter .best = (select detached User filter .id = <uuid>$id) if <bool>$f else true;",
    "select duration_to_seconds(<duration>$d);",
    "select <str>$a ?? 'x';",
    "select <optional str>$a ?? 'x';",
    "select <int64>$a + 1;",
    "select len(<str>$a);",
    "select User filter .handle in array_unpack(<array<str>>$a);",
    "select <str>$a = <str>$b;",
    "select User { handle, x := <bool>$f };",
    "select User filter <bool>$f;",
    "select <optional str>$a ?= 'x';",
    "select exists <optional str>$a;",
    "select User filter .best.id = <uuid>$id;",
    "update User filter .id = <uuid>$id set { best := (select detached User filter .id = <uuid>$b) };",
    "select User filter <str>$a in .tags;",
    "select User filter .handle ++ <str>$a = 'x';",
    "select [<str>$a, <str>$b];",
    "select count(User) > <int64>$n;",
    "select <int64>$a // 2;",
    "select <optional int64>$a ?? <int64>$b;",
    "select str_lower(<str>$a) ++ 'x';",
    "select User filter .id in array_unpack(<array<uuid>>$ids);",
    "select User filter .d > <duration>$d;",
    "select <datetime>$t - <duration>$d;",
    "select to_str(<int64>$a);",
    "select contains(<str>$a, 'x');",
    "select not <bool>$f;",
    "select -<int64>$a;",
    "select <bool>$f and <bool>$g;",
    "select User { handle } limit <int64>$n;",
    "select User { handle } offset <optional int64>$n;",
    "insert User { handle := <str>$h, age := <optional int64>$a ?? 3 };",
    "select assert_exists(<optional str>$a);",
    "select len(<array<str>>$a);",
    "select <json>$j;",
    "select <str><json>$j;",
    "select <int64>$a in {1, 2};",
    "select <str>$a like 'x%';",
    "select User filter .best ?= (select detached User filter .id = <uuid>$id);",
    "select <json>'{}';",
    "select <json>['a', 'b'];",
    "update User filter .id = <uuid>$id set { tags := ['x'] };",
]


def _statements(lib):
    for plan in lib.queries:
        yield plan.name, plan.sql
        for v in plan.variants:
            yield f"{plan.name}{v.omitted}", v.sql


def _unprepared(pg, lib):
    """The statements of ``lib`` Postgres cannot prepare with untyped parameters, and why."""
    failures = []
    for i, (name, sql) in enumerate(_statements(lib)):
        try:
            pg.execute(f"PREPARE s{i} AS {sql}")
        except Exception as e:  # noqa: BLE001 - every failure is reported
            failures.append(f"{name}: {str(e).splitlines()[0]}")
        else:
            pg.execute(f"DEALLOCATE s{i}")
    return failures


def _library(queries):
    sources = {"s.gel": SCHEMA}
    sources.update({f"q{i}.edgeql": q for i, q in enumerate(queries)})
    return check_library(sources, Options(library="untyped"))


def _up_sql():
    from schemac.backends.sql import codegen as sqlgen
    from schemac.migrate.history import History

    lib = _library([])
    return sqlgen.render_sql(lib, History.from_sources({"s.gel": SCHEMA}))["000001_init.up.sql"]


def test_parameters_in_every_position_prepare_untyped(pg):
    pg.execute(_up_sql())
    lib = _library(QUERIES)
    assert len(lib.queries) == len(QUERIES)
    assert _unprepared(pg, lib) == []


def _run(pg, lib, name, **args):
    """Rows of query ``name`` with every parameter sent as untyped text (as node-postgres does)."""
    plan = next(p for p in lib.queries if p.name == name)
    sql = plan.sql
    for p in sorted(plan.params, key=lambda p: -p.index):
        sql = sql.replace(f"${p.index}", f"%({p.name})s")
    return pg.execute(sql, {k: None if v is None else str(v) for k, v in args.items()})


def test_if_else_on_a_bool_parameter_reads_rows_with_untyped_parameters(pg):
    """https://docs.geldata.com/reference/edgeql/expressions: ``a if cond else b`` is ``a`` where
    ``cond`` is true, ``b`` where it is false, empty where ``cond`` is empty."""
    pg.execute(_up_sql())
    pg.execute("INSERT INTO \"user\" (id, handle, age) VALUES (gen_random_uuid(), 'ann', 30), (gen_random_uuid(), 'bob', 40)")
    pg.execute("INSERT INTO chat (id, title) VALUES (gen_random_uuid(), 'general'), (gen_random_uuid(), 'random')")
    lib = _library(QUERIES[:3])
    assert _run(pg, lib, "q0", a="yes", c="true", b="no") == [("yes",)]
    assert _run(pg, lib, "q0", a="yes", c="false", b="no") == [("no",)]
    assert _run(pg, lib, "q1", h="bob", c="true") == [("bob",)]
    assert _run(pg, lib, "q1", h="bob", c="false") == [("ann",), ("bob",)]
    assert _run(pg, lib, "q2", t="random", by_title="true") == [("random",)]
    assert _run(pg, lib, "q2", t="random", by_title="false") == [("general",), ("random",)]


@pytest.mark.parametrize("name", CASE_NAMES)
def test_golden_case_statements_prepare_with_untyped_parameters(name, pg):
    case = CASES / name
    sources = {f"cases/{name}/{f.relative_to(case).as_posix()}": f.read_text()
               for f in sorted(case.glob("*.esdl")) + sorted(case.glob("queries/*.edgeql"))}
    options = json.loads((case / "options.json").read_text()) if (case / "options.json").exists() else {}
    lib = check_library(sources, Options(library=name, **options))
    pg.execute((case / "expected" / "sql" / "000001_init.up.sql").read_text())
    assert _unprepared(pg, lib) == []


def test_a_str_literal_cast_to_json_is_a_json_string(pg):
    """https://docs.geldata.com/reference/stdlib/json: casting a ``str`` to ``json`` gives a JSON
    string (``<json>'{}'`` is ``"{}"``; ``to_json('{}')`` parses). A bare literal is of type
    unknown to Postgres, which the polymorphic ``to_jsonb`` refuses (42804)."""
    lib = _library(["select <json>'{}';", "select <json>['a', 'b'];"])
    assert [tuple(r) for r in _run(pg, lib, "q0")] == [("{}",)]
    assert [tuple(r) for r in _run(pg, lib, "q1")] == [(["a", "b"],)]
