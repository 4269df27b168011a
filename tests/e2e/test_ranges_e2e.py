"""Ranges and multiranges (https://docs.geldata.com/reference/stdlib/range) end to end on
Postgres 15: range<int32|int64|decimal|datetime|cal::local_datetime|cal::local_date> and
multirange<cal::local_date> columns, range(), contains() and overlaps() in filters, and values
inserted and selected back through the TypeScript runner (Range<T>, tsc --strict, run west of
UTC) and the pgx and database/sql runners (pgtype.Range / pgtype.Multirange; gofmt, go vet,
Go 1.21). range<float64> has no Postgres counterpart and is refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library
from schemac.diagnostics import CompileError

HERE = Path(__file__).parent

SOURCES = {
    "rg/schema.esdl": """\
type Booking {
  required name: str { constraint exclusive; };
  seats: range<int32>;
  ids: range<int64>;
  price: range<decimal>;
  during: range<datetime>;
  local: range<cal::local_datetime>;
  days: range<cal::local_date>;
  free: multirange<cal::local_date>;
}
""",
    "rg/queries/add_booking.edgeql": (
        "insert Booking { name := <str>$name, seats := <optional range<int32>>$seats,\n"
        "  ids := <optional range<int64>>$ids, price := <optional range<decimal>>$price,\n"
        "  during := <optional range<datetime>>$during, local := <optional range<cal::local_datetime>>$local,\n"
        "  days := <optional range<cal::local_date>>$days, free := <optional multirange<cal::local_date>>$free };\n"),
    "rg/queries/bookings.edgeql": (
        "select Booking { name, seats, ids, price, during, local, days, free }\n"
        "filter contains(.days, <cal::local_date>$day) or overlaps(.seats, range(<int32>$lo, <int32>$hi))\n"
        "order by .name;\n"),
}


def _compiled(tmp_path: Path, go_driver: str = "pgx") -> Path:
    out = tmp_path / f"gen-rg-{go_driver.replace('/', '-')}"
    for rel, text in compile_library(SOURCES, Options(library="rg", go_driver=go_driver)).items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return out


def test_range_columns_and_operators_on_postgres(pg, tmp_path):
    out = _compiled(tmp_path)
    pg.execute((out / "sql" / "000001_init.up.sql").read_text())
    types = dict(pg.execute("SELECT column_name, udt_name FROM information_schema.columns WHERE table_name = 'booking'"))
    assert [types[c] for c in ("seats", "ids", "price", "during", "local", "days", "free")] == [
        "int4range", "int8range", "numrange", "tstzrange", "tsrange", "daterange", "datemultirange"]
    plans = {q.name: q for q in check_library(SOURCES, Options(library="rg")).queries}

    def run(name, *args):
        sql = re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql)
        return pg.execute(sql, {f"p{i}": a for i, a in enumerate(args, 1)})

    run("add_booking", "a", "[1,5)", None, None, None, None, "[2024-01-01,2024-02-01)", "{[2024-01-01,2024-01-03)}")
    run("add_booking", "b", "[10,20]", None, None, None, None, "[2024-03-01,2024-03-05]", None)
    run("add_booking", "c", "empty", None, None, None, None, None, None)
    names = lambda rows: [r[0] for r in rows]  # noqa: E731
    assert names(run("bookings", "2024-01-15", 100, 200)) == ["a"]           # contains(days, day)
    assert names(run("bookings", "2030-01-01", 4, 11)) == ["a", "b"]         # overlaps [4,11) with [1,5) and [10,21)
    assert names(run("bookings", "2024-03-05", 5, 10)) == ["b"]              # [5,10) overlaps neither; b's days contain it
    assert names(run("bookings", "2024-02-01", 5, 10)) == []                 # upper bound excluded
    pg.execute((out / "sql" / "000001_init.down.sql").read_text())


def test_float_ranges_and_nested_ranges_are_refused(tmp_path):
    sources = {"rg/schema.esdl": "type T { a: range<float64>; b: array<range<int32>>; c: range<str>; }\n"}
    with pytest.raises(CompileError) as e:
        check_library(sources, Options(library="rg"))
    text = e.value.render(sources)
    assert ("rg/schema.esdl:1:13: error[E0206]: 'range<float64>' is not supported\n"
            "    type T { a: range<float64>; b: array<range<int32>>; c: range<str>; }\n"
            "                ^^^^^^^^^^^^^^\n"
            "hint: Postgres has no range of floating-point numbers: use range<decimal>") in text
    assert "rg/schema.esdl:1:32: error[E0206]: arrays of range<int32> are not supported" in text
    assert "rg/schema.esdl:1:56: error[E0206]: 'range<str>' is not supported" in text


# The TypeScript and Go programs (ranges_ts/, ranges_go/) run in test_gel_scalars_e2e.py's runner
# tests, compiled together with the calendar types' programs.
