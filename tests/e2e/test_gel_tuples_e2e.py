"""Tuple properties (https://docs.geldata.com/reference/stdlib/tuple) end to end on Postgres
15: stored in composite types, written with tuple literals holding parameters (a named tuple's
elements by name, in any order), cleared with ``{}``, compared whole in a filter, and read
element by element (``.days.0``, ``.pos.x``, ``.pos.1``, ``.points[0].0``, ``len(.points)``)
through the TypeScript runner (tsc --strict) and the pgx and database/sql runners (gofmt, go
vet). Selecting a whole array of tuples is refused (E0206); a whole tuple is selected as
tests/compiler/test_tuple_values.py shows."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

HERE = Path(__file__).parent

SOURCES = {
    "tp/schema.esdl": """\
type Service {
  required name: str { constraint exclusive; };
  required days: tuple<bool, bool, bool>;
  pos: tuple<x: float64, y: float64>;
  points: array<tuple<decimal, decimal>>;
}
""",
    "tp/queries/add_service.edgeql": """\
insert Service {
  name := <str>$name,
  days := (<bool>$mon, <bool>$tue, false),
  pos := (y := <float64>$y, x := <float64>$x),
  points := [(<decimal>$px, <decimal>$py), (0, 1.5)]
};
""",
    "tp/queries/clear_pos.edgeql": "update Service filter .name = <str>$name set { pos := {}, days := (false, false, true) };\n",
    "tp/queries/services.edgeql": """\
select Service {
  name, mon := .days.0, wed := .days.2, x := .pos.x, y := .pos.1, first_x := .points[0].0, n := len(.points)
}
filter .days = (true, <bool>$tue, false) or .days.2
order by .name;
""",
}


def _compiled(tmp_path: Path, go_driver: str = "pgx") -> Path:
    out = tmp_path / f"gen-tp-{go_driver.replace('/', '-')}"
    for rel, text in compile_library(SOURCES, Options(library="tp", go_driver=go_driver)).items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return out


def test_tuple_writes_and_element_reads_on_postgres(pg, tmp_path):
    out = _compiled(tmp_path)
    pg.execute((out / "sql" / "000001_init.up.sql").read_text())
    plans = {q.name: q for q in check_library(SOURCES, Options(library="tp")).queries}

    def run(name, *args):
        sql = re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql)
        return pg.execute(sql, {f"p{i}": a for i, a in enumerate(args, 1)})

    args = [p.name for p in plans["add_service"].params]
    for values in ({"name": "a", "mon": True, "tue": False, "x": 1.5, "y": -2.0, "px": "2.25", "py": "3"},
                   {"name": "b", "mon": False, "tue": True, "x": 0.5, "y": 4.0, "px": "7", "py": "8.125"}):
        run("add_service", *[values[a] for a in args])
    assert pg.execute("SELECT name, days::text, pos::text, points::text FROM service ORDER BY name") == [
        ("a", "(t,f,f)", "(1.5,-2)", '{"(2.25,3)","(0,1.5)"}'),
        ("b", "(f,t,f)", "(0.5,4)", '{"(7,8.125)","(0,1.5)"}')]
    run("clear_pos", "b")
    assert pg.execute("SELECT days::text, pos IS NULL FROM service WHERE name = 'b'") == [("(f,f,t)", True)]
    from decimal import Decimal
    assert run("services", False) == [("a", True, False, 1.5, -2.0, Decimal("2.25"), 2),
                                      ("b", False, True, None, None, Decimal("7"), 2)]
    assert run("services", True) == [("b", False, True, None, None, Decimal("7"), 2)]
    pg.execute((out / "sql" / "000001_init.down.sql").read_text())


@pytest.mark.parametrize("query, message", [
    ("select Service { points };", "tp/queries/q.edgeql:1:18: error[E0206]: an array<tuple<decimal, decimal>> value in "
                                   "a query is not supported yet"),
    ("select Service { a := .days.3 };", "error[E0302]: tuple<bool, bool, bool> has no element 3 (it has 3)"),
    ("select Service { a := .pos.z };", "error[E0302]: tuple<x: float64, y: float64> has no element 'z'"),
    ("insert Service { name := 'x', days := (true, false) };",
     "error[E0304]: a tuple of 2 elements is not a tuple<bool, bool, bool>"),
    ("insert Service { name := 'x', days := (true, false, 1) };",
     "error[E0304]: this element is int64, the tuple's is bool"),
    ("insert Service { name := 'x', days := (true, false, true), pos := (x := 1.0, z := 2.0) };",
     "error[E0304]: this named tuple does not match tuple<x: float64, y: float64>"),
])
def test_tuple_forms_refused_precisely(query, message):
    sources = dict(SOURCES, **{"tp/queries/q.edgeql": query})
    with pytest.raises(CompileError) as e:
        check_library(sources, Options(library="tp"))
    assert message in e.value.render(sources)


@pytest.mark.slow
def test_typescript_runner_writes_and_reads_tuples(pg, tsc_run, tmp_path):
    out = _compiled(tmp_path)
    pg.execute((out / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(out / "ts", src / "gen")
    shutil.copy(HERE / "gel_tuples_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"tuples": True}


@pytest.mark.slow
@pytest.mark.parametrize("driver", ["pgx", "database/sql"])
def test_go_runner_writes_and_reads_tuples(pg, go_run, tmp_path, driver):
    out = _compiled(tmp_path, driver)
    pg.execute((out / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(out / "go", mod / "tp")
    (mod / "e2e").mkdir()
    kind = "pgx" if driver == "pgx" else "sql"
    shutil.copy(HERE / "gel_tuples_go" / "e2e" / f"tuples_{kind}_test.go", mod / "e2e")
    result = go_run(mod, test_args=("-count=1", "-v"))
    assert "--- PASS: TestTuples" in result.test.stdout
