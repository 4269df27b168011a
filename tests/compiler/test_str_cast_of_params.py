"""``<str><T>$p``: the inner cast types the parameter (``CAST($1::boolean AS text)``; a bare
``$1`` was typed text by Postgres, so pgx could not send a bool, float64 or time.Time and
node-postgres sent its own text of a Date), and ``<str>`` of a date or time prints Gel's ISO 8601
text, a datetime's in UTC, as ``to_str`` does (https://docs.geldata.com/reference/edgeql/casts,
https://docs.geldata.com/reference/stdlib/datetime); ``<str>`` of a duration is a located E0206
(Gel prints ``PT1H30M``). Run on PostgreSQL 15, in a session whose time zone is not UTC."""

from __future__ import annotations

import datetime
import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library
from schemac.semantics.library import Options

SCHEMA = "type P { required name: str; }"

QUERIES = {
    "casts": "select { a := <str><bool>$b, c := <str><float64>$f, d := <str><datetime>$t, e := to_str(<datetime>$t),"
             " l := <str><cal::local_datetime>$l, i := <str><int64>$i };",
}


def _plan(queries=QUERIES):
    sources = {"lib/schema.esdl": SCHEMA, **{f"lib/{k}.edgeql": v for k, v in queries.items()}}
    return check_library(sources, Options(library="lib")).queries[0]


def test_str_of_a_typed_parameter_on_postgres(pg):
    plan = _plan()
    pg.execute("SET TIME ZONE 'America/New_York'")
    pg.execute(f"PREPARE casts AS {plan.sql}")
    types = pg.execute("SELECT parameter_types::text[] FROM pg_prepared_statements WHERE name = 'casts'")[0][0]
    assert types == ["boolean", "double precision", "timestamp with time zone", "timestamp without time zone",
                     "bigint"]
    args = {"b": True, "f": 1.5, "t": datetime.datetime(2024, 2, 29, 23, 30, 0, 500000, tzinfo=datetime.timezone.utc),
            "l": datetime.datetime(2024, 2, 29, 18, 30), "i": 7}
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    row = pg.execute(sql, {f"p{p.index}": args[p.name] for p in plan.params})[0]
    assert tuple(row) == ("true", "1.5", "2024-02-29T23:30:00.5+00:00", "2024-02-29T23:30:00.5+00:00",
                          "2024-02-29T18:30:00", "7")


def test_str_of_a_duration_is_refused():
    with pytest.raises(CompileError) as e:
        _plan({"d": "select <str><duration>$d;"})
    assert any(d.code == "E0206" and "casting a duration to str" in d.message for d in e.value.diagnostics)
