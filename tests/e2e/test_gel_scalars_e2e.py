"""Gel's calendar and duration scalars (``cal::local_date``, ``cal::local_datetime``,
``cal::local_time``, ``duration``, ``cal::relative_duration``, ``cal::date_duration``) with
``bigint`` and ``decimal``, end to end on Postgres 15: the migration's column types and unit
CHECKs, and values inserted and selected back through the TypeScript runner (tsc --strict, run
in a time zone west of UTC), the pgx runner and the database/sql runner (gofmt, go vet, Go 1.21),
at the top level and inside a nested shape (https://docs.geldata.com/reference/stdlib/datetime).
The runner tests also run test_ranges_e2e.py's programs, in the same compile."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import compile_library

HERE = Path(__file__).parent

SCHEMA = """\
module default {
  type Person {
    required name: str { constraint exclusive; };
    born: cal::local_date;
    seen: cal::local_datetime;
  }
  type Event {
    required name: str;
    day: cal::local_date;
    starts: cal::local_datetime;
    at: cal::local_time;
    length: duration;
    every: cal::relative_duration;
    span: cal::date_duration;
    days: array<cal::local_date>;
    big: bigint;
    money: decimal;
    required created: cal::local_date { default := <cal::local_date>'2024-02-29'; };
    owner: Person;
  }
}
"""

SOURCES = {
    "gs/schema.esdl": SCHEMA,
    "gs/queries/add_person.edgeql": (
        "insert Person { name := <str>$name, born := <optional cal::local_date>$born,\n"
        "  seen := <optional cal::local_datetime>$seen };\n"),
    "gs/queries/add_event.edgeql": (
        "insert Event {\n"
        "  name := <str>$name, owner := (select Person filter .id = <uuid>$owner),\n"
        "  day := <optional cal::local_date>$day, starts := <optional cal::local_datetime>$starts,\n"
        "  at := <optional cal::local_time>$at, length := <optional duration>$length,\n"
        "  every := <optional cal::relative_duration>$every, span := <optional cal::date_duration>$span,\n"
        "  days := <optional array<cal::local_date>>$days, big := <optional bigint>$big,\n"
        "  money := <optional decimal>$money\n"
        "};\n"),
    "gs/queries/events.edgeql": (
        "select Event { name, day, starts, at, length, every, span, days, big, money, created,\n"
        "  owner: { name, born, seen } }\n"
        "filter .day >= <cal::local_date>$from order by .day;\n"),
    "gs/queries/longer_than.edgeql": (
        "select Event { name } filter .length > <duration>$min order by .length desc;\n"),
}


def _compiled(tmp_path: Path, go_driver: str = "pgx") -> Path:
    out = tmp_path / f"gen-{go_driver.replace('/', '-')}"
    for rel, text in compile_library(SOURCES, Options(library="gs", go_driver=go_driver)).items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return out


def test_migration_types_and_unit_checks(pg, tmp_path):
    out = _compiled(tmp_path)
    pg.execute((out / "sql" / "000001_init.up.sql").read_text())
    cols = dict(pg.execute("SELECT column_name, data_type FROM information_schema.columns "
                           "WHERE table_name = 'event'"))
    assert {k: cols[k] for k in ("day", "starts", "at", "length", "every", "span", "days", "big", "money")} == {
        "day": "date", "starts": "timestamp without time zone", "at": "time without time zone",
        "length": "interval", "every": "interval", "span": "interval", "days": "ARRAY",
        "big": "numeric", "money": "numeric"}
    pg.execute("INSERT INTO event (name, length, span) VALUES ('ok', '36 hours', '1 year 2 days')")
    import psycopg

    for column, value in (("length", "1 day"), ("length", "1 month"), ("span", "1 hour"), ("span", "1.5 seconds")):
        with pytest.raises(psycopg.errors.CheckViolation):
            pg.execute(f"INSERT INTO event (name, {column}) VALUES ('bad', %s)", (value,))
    (created,) = pg.execute("SELECT created::text FROM event")[0]
    assert created == "2024-02-29"
    down = (out / "sql" / "000001_init.down.sql").read_text()
    pg.execute(down)
    pg.execute((out / "sql" / "000001_init.up.sql").read_text())


def test_nested_shapes_refuse_types_json_cannot_carry(tmp_path):
    from schemac.pipeline import check_library
    from schemac.diagnostics import CompileError

    sources = dict(SOURCES)
    sources["gs/schema.esdl"] = SCHEMA.replace("born: cal::local_date;", "born: cal::local_date;\n    nap: duration;")
    sources["gs/queries/nested.edgeql"] = "select Event { owner: { nap } };\n"
    with pytest.raises(CompileError) as e:
        check_library(sources, Options(library="gs"))
    text = e.value.render(sources)
    assert ("gs/queries/nested.edgeql:1:25: error[E0206]: a duration value inside a nested shape is not supported yet\n"
            "    select Event { owner: { nap } };\n"
            "                            ^^^\n") in text


# The runners' end-to-end tests also run the ranges library of test_ranges_e2e.py: one tsc
# compile and one Go module per driver for both (each costs 10-20 s on a loaded 2-core machine).
@pytest.mark.slow
def test_typescript_runner_round_trips_gel_scalars_and_ranges(pg, tsc_run, tmp_path):
    import test_ranges_e2e as ranges

    out = _compiled(tmp_path)
    rg = ranges._compiled(tmp_path / "rg")
    pg.execute((out / "sql" / "000001_init.up.sql").read_text())
    pg.execute((rg / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(out / "ts", src / "gen")
    shutil.copytree(rg / "ts", src / "gen_rg")
    shutil.copy(HERE / "gel_scalars_ts" / "main.ts", src / "scalars.ts")
    shutil.copy(HERE / "ranges_ts" / "main.ts", src / "ranges.ts")
    (src / "main.ts").write_text('await import("./scalars.js");\nawait import("./ranges.js");\nexport {};\n')
    result = tsc_run(src, "main.ts", env={"TZ": "America/Los_Angeles"})
    assert [json.loads(line) for line in result.stdout.strip().splitlines()[-2:]] == [
        {"scalars": True, "tz": "America/Los_Angeles"}, {"ranges": True}]


@pytest.mark.slow
@pytest.mark.parametrize("driver", ["pgx", "database/sql"])
def test_go_runner_round_trips_gel_scalars_and_ranges(pg, go_run, tmp_path, driver):
    import test_ranges_e2e as ranges

    out = _compiled(tmp_path, driver)
    rg = ranges._compiled(tmp_path / "rg", driver)
    pg.execute((out / "sql" / "000001_init.up.sql").read_text())
    pg.execute((rg / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(out / "go", mod / "gs")
    shutil.copytree(rg / "go", mod / "rg")
    kind = "pgx" if driver == "pgx" else "sql"
    (mod / "e2e").mkdir()
    shutil.copy(HERE / "gel_scalars_go" / "e2e" / f"scalars_{kind}_test.go", mod / "e2e")
    shutil.copy(HERE / "ranges_go" / "e2e" / f"ranges_{kind}_test.go", mod / "e2e")
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True, env={"TZ": "America/Los_Angeles"})
    assert "--- PASS: TestGelScalars" in result.test.stdout and "--- PASS: TestRanges" in result.test.stdout


SEQUENCE_SOURCES = {
    "sq/schema.esdl": (
        "scalar type TicketNo extending sequence;\n"
        "type Ticket { required title: str; required number: TicketNo { constraint exclusive; }; }\n"
        "type Refund { required title: str; number: TicketNo; }\n"),
    "sq/queries/add_ticket.edgeql": "insert Ticket { title := <str>$title };\n",
    "sq/queries/add_ticket_as.edgeql": "insert Ticket { title := <str>$title, number := <int64>$number };\n",
    "sq/queries/add_refund.edgeql": "insert Refund { title := <str>$title, number := sequence_next(introspect TicketNo) };\n",
    "sq/queries/reset_after.edgeql": (
        "update Refund filter .title = <str>$title set { number := sequence_reset(introspect TicketNo, <int64>$v) };\n"),
    "sq/queries/tickets.edgeql": "select Ticket { title, number } order by .number;\n",
}


def test_sequence_scalars_share_one_postgres_sequence(pg, tmp_path):
    """``scalar type TicketNo extending sequence`` (https://docs.geldata.com/reference/stdlib/sequence):
    one Postgres sequence per scalar type, the default of every property of that type; an
    explicit value is kept; sequence_next / sequence_reset draw from and move it."""
    import re

    from schemac.pipeline import check_library

    out = {}
    for rel, text in compile_library(SEQUENCE_SOURCES, Options(library="sq")).items():
        out[rel] = text
    up = out["sql/000001_init.up.sql"]
    assert up.index('CREATE SEQUENCE IF NOT EXISTS "seq_ticket_no";') < up.index('CREATE TABLE "ticket"')
    assert '"number" bigint NOT NULL DEFAULT nextval(\'"seq_ticket_no"\')' in up
    assert "readonly title: string;\n}" in out["ts/queries.ts"]  # number is optional: it has a default
    pg.execute(up)
    plans = {q.name: q for q in check_library(SEQUENCE_SOURCES, Options(library="sq")).queries}

    def run(name, *args):
        sql = re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql)
        return pg.execute(sql, {f"p{i}": a for i, a in enumerate(args, 1)})

    run("add_ticket", "a")
    run("add_refund", "r")
    run("add_ticket", "b")
    run("add_ticket_as", "manual", 100)
    assert pg.execute("SELECT title, number FROM ticket ORDER BY number") == [("a", 1), ("b", 3), ("manual", 100)]
    assert pg.execute("SELECT title, number FROM refund") == [("r", 2)]
    run("reset_after", "r", 500)
    run("add_ticket", "c")
    assert pg.execute("SELECT number FROM refund") == [(500,)]
    assert pg.execute("SELECT number FROM ticket WHERE title = 'c'") == [(501,)]
    pg.execute(out["sql/000001_init.down.sql"])
    assert pg.execute("SELECT count(*) FROM pg_class WHERE relkind = 'S' AND relname = 'seq_ticket_no'") == [(0,)]
    pg.execute(up)


TIME_SOURCES = {
    "tm/schema.esdl": """\
type Job {
  required name: str;
  required created: datetime { default := datetime_current(); };
  required expires: datetime { default := datetime_current() + <duration>'1 hour'; };
  required due: cal::local_date { default := cal::to_local_date(datetime_current(), 'UTC') + <cal::date_duration>'7 days'; };
  timeout: duration { default := to_duration(minutes := 5, seconds := 30); };
}
""",
    "tm/queries/add_job.edgeql": "insert Job { name := <str>$name };",
    "tm/queries/add_job_due.edgeql": "insert Job { name := <str>$name, due := cal::to_local_date(<str>$due) };",
    "tm/queries/soon.edgeql": (
        "select Job { name } filter .expires - .created > to_duration(minutes := <int64>$m)\n"
        "  and .due - cal::to_local_date(<str>$today) < cal::to_date_duration(days := <int64>$days)\n"
        "order by .name;"),
}


def test_date_and_time_arithmetic_and_constructors_on_postgres(pg):
    """Gel's datetime arithmetic and constructors (https://docs.geldata.com/reference/stdlib/datetime):
    datetime + duration, local_date + date_duration (a date again), datetime - datetime (a
    duration), local_date - local_date (a date_duration), to_duration(...),
    cal::to_date_duration(...), cal::to_local_date(str) and (datetime, zone), in defaults and
    filters, with data."""
    import re

    from schemac.pipeline import check_library

    out = compile_library(TIME_SOURCES, Options(library="tm"))
    pg.execute(out["sql/000001_init.up.sql"])
    plans = {q.name: q for q in check_library(TIME_SOURCES, Options(library="tm")).queries}

    def run(name, *args):
        sql = re.sub(r"\$(\d+)", r"%(p\1)s", plans[name].sql)
        return pg.execute(sql, {f"p{i}": a for i, a in enumerate(args, 1)})

    run("add_job", "default")
    run("add_job_due", "leap", "2024-02-29")
    (expires_after, due_in, timeout, due_type), = pg.execute(
        "SELECT expires - created, due - (now() AT TIME ZONE 'UTC')::date, timeout::text, pg_typeof(due)::text "
        "FROM job WHERE name = 'default'")
    import datetime as dt

    assert abs(expires_after - dt.timedelta(hours=1)) < dt.timedelta(seconds=1)
    assert due_in == 7 and timeout == "00:05:30" and due_type == "date"
    assert [r[0] for r in run("soon", 59, "2024-02-27", 3)] == ["leap"]      # due in 2 days < 3 days
    assert [r[0] for r in run("soon", 59, "2024-02-26", 3)] == []            # due in 3 days: not < 3 days
    assert [r[0] for r in run("soon", 61, "2024-02-27", 3)] == []            # expires 60 min after creation
