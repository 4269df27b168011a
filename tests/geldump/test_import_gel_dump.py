"""``schemac import-gel-dump``: Gel dump files (written by :mod:`gelwriter` in the documented
format: geldata/gel docs/resources/protocol/dump_format.rst, typedesc.rst, dataformats.rst)
loaded into the tables of a library's migrations on PostgreSQL 15, and read back.

* round trips over every type family (scalars, custom scalars, sequences, enums, arrays, tuples
  and named tuples, nested ones, ranges, the cal:: and duration types, json, bytes, decimals),
  single links (a cycle: foreign keys are checked at the end), multi links with link
  properties, multi properties, an inherited type in its own table, a mutation rewrite that the
  load does not run (Gel's restore does not either), with both descriptor protocols (2.0: Gel 4+;
  1.0 and 0.13: EdgeDB 1.x-3.x), rows split over many blocks;
* a dump whose schema differs is refused naming each difference, with nothing written;
* a failure in the middle (a duplicate, a dangling link) rolls everything back;
* a database that already holds rows, and files that are not dumps, are refused with a code.
"""

from __future__ import annotations

import datetime as dt
import uuid
from pathlib import Path

import pytest

import gelwriter as gw
from schemac.cli.main import main

SCHEMA = """
scalar type Seq extending sequence;
scalar type Label extending str;
scalar type Color extending enum<Red, Green, Blue>;

abstract type Named {
  required name: str { constraint exclusive; };
}

type Person extending Named {
  age: int16;
  score: int32;
  big: int64;
  f32: float32;
  f64: float64;
  flag: bool;
  uid: uuid;
  blob: bytes;
  doc: json;
  at: datetime;
  ldt: cal::local_datetime;
  ld: cal::local_date;
  lt: cal::local_time;
  dur: duration;
  rdur: cal::relative_duration;
  ddur: cal::date_duration;
  dec: decimal;
  bi: bigint;
  color: Color;
  tags: array<str>;
  colors: array<Color>;
  pair: tuple<int64, str>;
  point: tuple<x: float64, y: float64>;
  nested: array<tuple<str, array<int32>>>;
  span: range<int64>;
  during: range<datetime>;
  label: Label;
  seq: Seq;
  multi nicknames: str;
  best_friend: Person;
  multi friends: Person {
    since: cal::local_date;
    note: str;
  };
}

type Employee extending Named {
  company: str;
  modified: datetime {
    rewrite insert, update using (datetime_of_statement());
  };
}
"""

COLOR = gw.enum("default::Color", "Red", "Green", "Blue")
S = gw.scalar
PERSON_COLUMNS = [
    ("id", S("uuid")), ("name", S("str")), ("age", S("int16")), ("score", S("int32")), ("big", S("int64")),
    ("f32", S("float32")), ("f64", S("float64")), ("flag", S("bool")), ("uid", S("uuid")), ("blob", S("bytes")),
    ("doc", S("json")), ("at", S("datetime")), ("ldt", S("cal::local_datetime")), ("ld", S("cal::local_date")),
    ("lt", S("cal::local_time")), ("dur", S("duration")), ("rdur", S("cal::relative_duration")),
    ("ddur", S("cal::date_duration")), ("dec", S("decimal")), ("bi", S("bigint")), ("color", COLOR),
    ("tags", gw.array(S("str"))), ("colors", gw.array(COLOR)), ("pair", gw.tup(S("int64"), S("str"))),
    ("point", gw.tup(("x", S("float64")), ("y", S("float64")))),
    ("nested", gw.array(gw.tup(S("str"), gw.array(S("int32"))))),
    ("span", gw.rng(S("int64"))), ("during", gw.rng(S("datetime"))),
    ("label", gw.custom("default::Label", "str")), ("seq", gw.custom("default::Seq", "int64")),
    ("best_friend", S("uuid")),
]
EMPLOYEE_COLUMNS = [("id", S("uuid")), ("name", S("str")), ("company", S("str")), ("modified", S("datetime"))]

P1, P2, P3 = (uuid.UUID(f"00000000-0000-4000-8000-00000000000{i}") for i in (1, 2, 3))
E1, E2 = uuid.UUID("10000000-0000-4000-8000-000000000001"), uuid.UUID("10000000-0000-4000-8000-000000000002")
AT = dt.datetime(2024, 2, 29, 12, 34, 56, 789012, tzinfo=dt.timezone.utc)
MODIFIED = dt.datetime(2001, 1, 1, tzinfo=dt.timezone.utc)


def _p1():
    return [P1, "Ann", 7, -5, 9007199254740993, 1.5, 0.1, True, uuid.UUID(int=42), b"\x00\xffab", {"a": [1, 2]},
            AT, dt.datetime(1999, 12, 31, 23, 59, 59), dt.date(1969, 7, 20), dt.time(13, 14, 15, 500000),
            (3_600_000_001, 0, 0), (1_000_000, 2, 14), (0, 3, 1), "-12345.678900",
            "123456789012345678901234567890", "Green", ["a", "b c"], ["Red", "Blue"], (1, "x"), (1.5, -2.0),
            [("s", [1, 2]), ("t", [])], (1, 10, True, False), (AT, None, True, False), "lbl", 5, P2]


def _persons(p1=None, extra=()):
    none = [None] * (len(PERSON_COLUMNS) - 3)
    return [p1 or _p1(), [P2, "Bob"] + none[:-1] + [9, P1], [P3, "Cy"] + none + [None], *extra]


def _tables(persons=None, friends=None, nick_rows=None, person_columns=PERSON_COLUMNS, extra_tables=(),
            employees=True):
    tables = [gw.object_table("default::Person", person_columns, persons or _persons(), links=("best_friend",)),
              gw.pointer_table("default::Person", "nicknames", S("str"),
                               nick_rows if nick_rows is not None else [(P1, "Bo"), (P1, "B"), (P3, "C")]),
              gw.pointer_table("default::Person", "friends", gw.obj("default::Person"),
                               friends if friends is not None else [(P1, P2, dt.date(2020, 1, 1), "n"),
                                                                    (P1, P3, None, None), (P2, P1, None, "back")],
                               props=[("since", S("cal::local_date")), ("note", S("str"))])]
    if employees:
        tables.append(gw.object_table("default::Employee", EMPLOYEE_COLUMNS,
                                      [(E1, "Eve", "ACME", MODIFIED), (E2, "Fay", None, None)]))
    tables.append(gw.object_table("default::Named", [("id", S("uuid")), ("name", S("str"))], []))
    return tables + list(extra_tables)


@pytest.fixture
def library(tmp_path: Path, pg) -> Path:
    """The library's directory, its migrations applied to ``pg``."""
    lib = tmp_path / "people"
    lib.mkdir()
    (lib / "schema.esdl").write_text(SCHEMA)
    assert main(["migrate", "generate", "--library", "people", "--out", str(lib / "migrations"),
                 str(lib / "schema.esdl")]) == 0
    assert main(["migrate", "apply", "--dir", str(lib / "migrations"), "--database-url", pg.url]) == 0
    return lib


def _import(dump: Path, lib: Path, pg, capsys):
    capsys.readouterr()
    code = main(["import-gel-dump", str(dump), "--dir", str(lib), "--database-url", pg.url])
    out = capsys.readouterr()
    return code, out.out, out.err


def _counts(pg):
    return {t: pg.execute(f'SELECT count(*) FROM "{t}"')[0][0] for t in ("person", "person_friends", "employee")}


def _constraints(pg):
    return sorted(pg.execute("SELECT conrelid::regclass::text, conname, contype FROM pg_constraint "
                             "WHERE connamespace = 'public'::regnamespace"))


def _triggers(pg):
    return sorted(pg.execute("SELECT tgrelid::regclass::text, tgname, tgenabled FROM pg_trigger WHERE NOT tgisinternal"))


@pytest.mark.parametrize("protocol", [(3, 0), (2, 0), (1, 0), (0, 13)], ids=lambda p: f"protocol-{p[0]}.{p[1]}")
def test_round_trip_every_type_family(tmp_path, library, pg, capsys, protocol):
    dump = tmp_path / "people.dump"
    gw.write_dump(str(dump), _tables(), protocol=protocol, rows_per_block=1)
    code, out, err = _import(dump, library, pg, capsys)
    assert code == 0, err
    assert "default::Person: 3 rows" in err and "default::Person.friends: 3 rows" in err, err
    assert "default::Employee" in out and "11 rows" in out, out  # the summary: 3 + 3 + 3 + 2 (+0 Named)

    pg.execute("SET TimeZone = 'UTC'")
    cols = [c for c, _ in PERSON_COLUMNS if c not in ("best_friend", "nested")]
    row = pg.execute(f"SELECT {', '.join(f'{c}::text' for c in cols)}, best_friend_id::text FROM person "
                     "WHERE id = %s", (P1,))[0]
    assert dict(zip(cols + ["best_friend_id"], row)) == {
        "id": str(P1), "name": "Ann", "age": "7", "score": "-5", "big": "9007199254740993", "f32": "1.5",
        "f64": "0.1", "flag": "true", "uid": str(uuid.UUID(int=42)), "blob": "\\x00ff6162", "doc": '{"a": [1, 2]}',
        "at": "2024-02-29 12:34:56.789012+00", "ldt": "1999-12-31 23:59:59", "ld": "1969-07-20",
        "lt": "13:14:15.5", "dur": "01:00:00.000001", "rdur": "1 year 2 mons 2 days 00:00:01",
        "ddur": "1 mon 3 days", "dec": "-12345.678900", "bi": "123456789012345678901234567890",
        "color": "Green", "tags": '{a,"b c"}', "colors": "{Red,Blue}", "pair": "(1,x)", "point": "(1.5,-2)",
        "span": "[1,10)", "during": '["2024-02-29 12:34:56.789012+00",)', "label": "lbl", "seq": "5",
        "best_friend_id": str(P2),
    }
    assert pg.execute("SELECT nested = ARRAY[ROW('s', ARRAY[1, 2])::tuple_text_integer_array, "
                      "ROW('t', '{}'::int[])::tuple_text_integer_array] FROM person WHERE id = %s", (P1,)) == [(True,)]
    # the others: empty values stay empty (NULL), multi properties are arrays ('{}' when empty)
    assert pg.execute("SELECT name, age, tags, pair, span, seq, best_friend_id, "
                      "(SELECT array_agg(x ORDER BY x) FROM unnest(nicknames) x) FROM person ORDER BY name") == [
        ("Ann", 7, ["a", "b c"], "(1,x)", pg.execute("SELECT '[1,10)'::int8range")[0][0], 5, P2, ["B", "Bo"]),
        ("Bob", None, None, None, None, 9, P1, None),
        ("Cy", None, None, None, None, None, None, ["C"]),
    ]
    assert pg.execute("SELECT nicknames FROM person WHERE id = %s", (P2,)) == [([],)]
    assert pg.execute("SELECT source_id, target_id, since, note FROM person_friends ORDER BY 1, 2") == [
        (P1, P2, dt.date(2020, 1, 1), "n"), (P1, P3, None, None), (P2, P1, None, "back")]
    # the inherited type in its own table; its rewrite trigger did not run (the dump's value stays)
    assert pg.execute("SELECT id, name, company, modified FROM employee ORDER BY name") == [
        (E1, "Eve", "ACME", MODIFIED), (E2, "Fay", None, None)]
    # the sequence is past the highest value; triggers and foreign keys are back and work
    assert pg.execute("SELECT nextval('seq_seq')") == [(10,)]
    assert all(t[2] == "O" for t in _triggers(pg)), _triggers(pg)
    with pytest.raises(Exception, match="foreign key"):
        pg.execute("INSERT INTO person_friends (source_id, target_id) VALUES (%s, %s)", (P1, uuid.uuid4()))
    pg.execute("UPDATE employee SET company = 'X' WHERE id = %s", (E2,))
    assert pg.execute("SELECT modified IS NOT NULL FROM employee WHERE id = %s", (E2,)) == [(True,)]


def test_mismatched_dump_is_refused_naming_each_difference(tmp_path, library, pg, capsys):
    columns = [(n, t) for n, t in PERSON_COLUMNS if n != "age"]
    columns = [(n, S("str") if n == "score" else t) for n, t in columns] + [("mood", S("str"))]
    rows = [[v for (n, _), v in zip(PERSON_COLUMNS, r) if n != "age"] + [None] for r in _persons()]
    rows[0][2] = "-5"
    ghost = gw.object_table("default::Ghost", [("id", S("uuid"))], [(uuid.uuid4(),)])
    dump = tmp_path / "other.dump"
    gw.write_dump(str(dump), _tables(persons=rows, person_columns=columns, extra_tables=[ghost], employees=False),
                  protocol=(3, 0))
    before = (_constraints(pg), _triggers(pg))
    code, out, err = _import(dump, library, pg, capsys)
    assert code == 1
    assert "error[E0501]" in err and "differs from the library's in 5 places; nothing was written" in err, err
    for expected in ("type default::Ghost is in the dump but not in the library",
                     "schema.esdl:47:1: type default::Employee is in the library but not in the dump",
                     "property default::Person.mood is in the dump but not in the library",
                     "schema.esdl:12:3: default::Person.score: str in the dump, int32 in the library",
                     "schema.esdl:11:3: property default::Person.age is in the library but not in the dump"):
        assert expected in err, err
    assert "Traceback" not in err
    assert _counts(pg) == {"person": 0, "person_friends": 0, "employee": 0}
    assert (_constraints(pg), _triggers(pg)) == before


def test_enum_members_and_multi_pointers_are_compared(tmp_path, library, pg, capsys):
    bad_color = gw.enum("default::Color", "Red", "Green", "Blue", "Purple")
    columns = [(n, bad_color if n == "color" else t) for n, t in PERSON_COLUMNS]
    tables = [t for t in _tables(person_columns=columns) if "nicknames" not in t.name]
    dump = tmp_path / "enum.dump"
    gw.write_dump(str(dump), tables, protocol=(1, 0))
    code, _, err = _import(dump, library, pg, capsys)
    assert code == 1
    assert ("default::Person.color: enum default::Color<Red, Green, Blue, Purple> in the dump, "
            "enum default::Color<Red, Green, Blue> in the library") in err, err
    assert "multi property default::Person.nicknames is in the library but not in the dump" in err, err
    assert _counts(pg)["person"] == 0


@pytest.mark.parametrize("fault", ["duplicate", "dangling-link"])
def test_failure_mid_load_leaves_the_database_as_it_was(tmp_path, library, pg, capsys, fault):
    pg.execute("INSERT INTO employee (id, name) VALUES (%s, 'Keep')", (uuid.uuid4(),))
    pg.execute("DELETE FROM employee")  # (an empty table, with a sequence of events behind it)
    before = (_constraints(pg), _triggers(pg))
    if fault == "duplicate":
        # a fourth person named Ann, many blocks after the first: the unique constraint refuses it
        extra = [[uuid.uuid4(), f"P{i}"] + [None] * (len(PERSON_COLUMNS) - 2) for i in range(50)]
        extra.append([uuid.uuid4(), "Ann"] + [None] * (len(PERSON_COLUMNS) - 2))
        tables = _tables(persons=_persons(extra=extra))
        message = "uq_person_name"
    else:
        # a link to an object the dump does not have: found when the foreign keys are checked
        tables = _tables(friends=[(P1, uuid.UUID(int=99), None, None)])
        message = "fk_person_friends_target_id"
    dump = tmp_path / "bad.dump"
    gw.write_dump(str(dump), tables, rows_per_block=5)
    code, out, err = _import(dump, library, pg, capsys)
    assert code == 1, out
    assert "error[E0503]: the database refused the data" in err and message in err, err
    assert "rolled back, nothing was written" in err and "Traceback" not in err
    assert _counts(pg) == {"person": 0, "person_friends": 0, "employee": 0}
    assert (_constraints(pg), _triggers(pg)) == before
    assert pg.execute("SELECT last_value, is_called FROM seq_seq") == [(1, False)]


def test_interrupted_load_rolls_back(tmp_path, library, pg):
    from schemac.geldump.load import GelDumpError, load_dump
    from schemac.pipeline import check_library
    from schemac.semantics.library import Options

    schema = check_library({str(library / "schema.esdl"): SCHEMA}, Options(library="people")).schema
    dump = tmp_path / "people.dump"
    gw.write_dump(str(dump), _tables(), rows_per_block=1)
    with open(dump, "rb") as fh, pytest.raises(GelDumpError) as e:
        load_dump(fh, schema, pg.url, fail_after_rows=5)
    assert e.value.code == "E0503"
    assert _counts(pg) == {"person": 0, "person_friends": 0, "employee": 0}
    with open(dump, "rb") as fh:
        summary = load_dump(fh, schema, pg.url)
    assert summary.counts["default::Person"] == 3 and summary.rows == 11


def test_database_with_rows_is_refused(tmp_path, library, pg, capsys):
    dump = tmp_path / "people.dump"
    gw.write_dump(str(dump), _tables())
    assert _import(dump, library, pg, capsys)[0] == 0
    code, _, err = _import(dump, library, pg, capsys)
    assert code == 1
    assert "error[E0502]: tables person, person_friends, employee" not in err  # (sorted, see below)
    assert "error[E0502]: tables employee, person, person_friends already hold rows" in err, err
    assert _counts(pg) == {"person": 3, "person_friends": 3, "employee": 2}


def test_database_without_the_tables_is_refused(tmp_path, pg, capsys):
    lib = tmp_path / "people"
    lib.mkdir()
    (lib / "schema.esdl").write_text(SCHEMA)
    dump = tmp_path / "people.dump"
    gw.write_dump(str(dump), _tables())
    code, _, err = _import(dump, lib, pg, capsys)
    assert code == 1
    assert "error[E0502]: the database has no table employee, person, person_friends" in err, err
    assert "apply the library's migrations first" in err


@pytest.mark.parametrize("damage", ["not-a-dump", "truncated", "checksum", "descriptor"])
def test_unreadable_dump_is_refused_with_a_code(tmp_path, library, pg, capsys, damage):
    dump = tmp_path / "people.dump"
    gw.write_dump(str(dump), _tables())
    data = bytearray(dump.read_bytes())
    if damage == "not-a-dump":
        data[:5] = b"hello"
        expected = "not a Gel dump file"
    elif damage == "truncated":
        del data[len(data) - 40:]
        expected = "the file ends inside a block"
    elif damage == "checksum":
        data[-3] ^= 0xFF
        expected = "block checksum (SHA-1) does not match"
    else:
        # the header's first descriptor tag made unknown (its checksum recomputed: a bad writer)
        import hashlib
        import struct

        start = len(gw.MAGIC) + 8
        length = struct.unpack("!i", data[start + 21:start + 25])[0]
        body = bytearray(data[start + 25:start + 25 + length])
        tag_at = body.index(b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00") - 1
        body[tag_at] = 0x42
        data[start + 1:start + 21] = hashlib.sha1(bytes(body)).digest()
        data[start + 25:start + 25 + length] = body
        expected = "unknown type descriptor tag 66"
    dump.write_bytes(bytes(data))
    code, _, err = _import(dump, library, pg, capsys)
    assert code == 1
    assert "error[E0500]" in err and expected in err, err
    assert "Traceback" not in err
    assert _counts(pg) == {"person": 0, "person_friends": 0, "employee": 0}


def test_migrations_directory_is_accepted_as_dir(tmp_path, library, pg, capsys):
    dump = tmp_path / "people.dump"
    gw.write_dump(str(dump), _tables())
    code, _, err = _import(dump, library / "migrations", pg, capsys)
    assert code == 0, err
    assert _counts(pg) == {"person": 3, "person_friends": 3, "employee": 2}


def test_pants_run_form(tmp_path, library, pg, capsys):
    """`./pants run schemas/people: -- import-gel-dump DUMP` runs `migrate target --library L --dir
    <library>/migrations import-gel-dump DUMP` (schemac_pants/migrations.py): the library's name
    and schema come from the target."""
    dump = tmp_path / "people.dump"
    gw.write_dump(str(dump), _tables())
    capsys.readouterr()
    code = main(["migrate", "target", "--library", "people", "--dir", str(library / "migrations"),
                 "import-gel-dump", str(dump), "--database-url", pg.url])
    out = capsys.readouterr()
    assert code == 0, out.err
    assert "loaded into library people" in out.out
    assert _counts(pg) == {"person": 3, "person_friends": 3, "employee": 2}


POLY_SCHEMA = """
abstract type Content {
  required title: str;
}
type Movie extending Content {
  year: int32;
}
type Show extending Content {
  seasons: int32;
}
type Fan {
  required name: str;
  required first: Content;
  favourite: Content;
  multi watched: Content {
    rating: int16;
  };
}
"""


@pytest.mark.parametrize("protocol", [(3, 0), (1, 0)], ids=lambda p: f"protocol-{p[0]}.{p[1]}")
def test_polymorphic_links(tmp_path, pg, capsys, protocol):
    """Links to an abstract type with several concrete types: each id lands in the column of the
    concrete table that holds it (docs/language.md, "Polymorphic links"); a fan's target loaded
    after the fan (Show comes last in the dump) is found too."""
    lib = tmp_path / "media"
    lib.mkdir()
    (lib / "schema.esdl").write_text(POLY_SCHEMA)
    assert main(["migrate", "generate", "--library", "media", "--out", str(lib / "migrations"),
                 str(lib / "schema.esdl")]) == 0
    assert main(["migrate", "apply", "--dir", str(lib / "migrations"), "--database-url", pg.url]) == 0
    m1, s1, f1, f2 = (uuid.UUID(int=i) for i in (11, 21, 31, 32))
    tables = [
        gw.object_table("default::Fan", [("id", S("uuid")), ("name", S("str")), ("first", S("uuid")),
                                         ("favourite", S("uuid"))],
                        [(f1, "Al", m1, s1), (f2, "Bea", s1, None)], links=("first", "favourite")),
        gw.pointer_table("default::Fan", "watched", gw.obj("default::Content"),
                         [(f1, m1, 5), (f1, s1, None), (f2, s1, 3)], props=[("rating", S("int16"))]),
        gw.object_table("default::Content", [("id", S("uuid")), ("title", S("str"))], []),
        gw.object_table("default::Movie", [("id", S("uuid")), ("title", S("str")), ("year", S("int32"))],
                        [(m1, "M", 1999)]),
        gw.object_table("default::Show", [("id", S("uuid")), ("title", S("str")), ("seasons", S("int32"))],
                        [(s1, "S", 3)]),
    ]
    dump = tmp_path / "media.dump"
    gw.write_dump(str(dump), tables, protocol=protocol)
    code, out, err = _import(dump, lib, pg, capsys)
    assert code == 0, err
    cols = [r[0] for r in pg.execute("SELECT column_name FROM information_schema.columns WHERE table_name = 'fan' "
                                     "AND column_name LIKE '%%movie%%' OR table_name = 'fan' AND column_name LIKE "
                                     "'%%show%%' ORDER BY 1")]
    assert cols == ["favourite_movie_id", "favourite_show_id", "first_movie_id", "first_show_id"], cols
    assert pg.execute(f"SELECT name, {', '.join(cols)} FROM fan ORDER BY name") == [
        ("Al", None, s1, m1, None), ("Bea", None, None, None, s1)]
    assert pg.execute("SELECT source_id, target_id, target_movie_id, target_show_id, rating FROM fan_watched "
                      "ORDER BY 1, 2") == [(f1, m1, m1, None, 5), (f1, s1, None, s1, None), (f2, s1, None, s1, 3)]
    # a target in no concrete table: the required link's CHECK refuses it, all rolled back
    pg.execute("TRUNCATE fan, fan_watched, movie, show")
    tables[0] = gw.object_table("default::Fan", [("id", S("uuid")), ("name", S("str")), ("first", S("uuid")),
                                                 ("favourite", S("uuid"))],
                                [(f1, "Al", uuid.UUID(int=99), None)], links=("first", "favourite"))
    tables[1] = gw.pointer_table("default::Fan", "watched", gw.obj("default::Content"), [],
                                 props=[("rating", S("int16"))])
    gw.write_dump(str(dump), tables, protocol=protocol)
    code, out, err = _import(dump, lib, pg, capsys)
    assert code == 1, err
    assert ("error[E0503]: link default::Fan.first of an object holds 00000000-0000-0000-0000-000000000063, "
            "which is in none of its target tables (movie, show)") in err, err
    assert pg.execute("SELECT count(*) FROM fan") == [(0,)]
    # an optional link's target in no concrete table: refused too (never a silent NULL)
    tables[0] = gw.object_table("default::Fan", [("id", S("uuid")), ("name", S("str")), ("first", S("uuid")),
                                                 ("favourite", S("uuid"))],
                                [(f1, "Al", m1, uuid.UUID(int=98))], links=("first", "favourite"))
    gw.write_dump(str(dump), tables, protocol=protocol)
    code, out, err = _import(dump, lib, pg, capsys)
    assert code == 1, err
    assert ("error[E0503]: link default::Fan.favourite of an object holds "
            "00000000-0000-0000-0000-000000000062, which is in none of its target tables (movie, show)") in err, err
    assert pg.execute("SELECT count(*) FROM fan") == [(0,)]


VECTOR_SCHEMA = """
using extension pgvector;
scalar type v3 extending ext::pgvector::vector<3>;
type Doc {
  required vec: v3;
  note: str;
}
"""


@pytest.mark.parametrize("protocol", [(3, 0), (1, 0)], ids=lambda p: f"protocol-{p[0]}.{p[1]}")
def test_pgvector(tmp_path, pgvector_db, capsys, protocol):
    """ext::pgvector::vector values (https://docs.geldata.com/reference/stdlib/pgvector), whose
    1.0 descriptor is an unnamed base scalar named by the header's type list only."""
    lib = tmp_path / "docs"
    lib.mkdir()
    (lib / "schema.esdl").write_text(VECTOR_SCHEMA)
    assert main(["migrate", "generate", "--library", "docs", "--out", str(lib / "migrations"),
                 str(lib / "schema.esdl")]) == 0
    assert main(["migrate", "apply", "--dir", str(lib / "migrations"), "--database-url", pgvector_db.url]) == 0
    d1, d2 = uuid.UUID(int=1), uuid.UUID(int=2)
    dump = tmp_path / "docs.dump"
    columns = [("id", S("uuid")), ("vec", gw.VECTOR), ("note", S("str"))]
    rows = [(d1, [1.0, -2.5, 0.125], "a"), (d2, [0.0, 0.0, 3.0], None)]
    gw.write_dump(str(dump), [gw.object_table("default::Doc", columns, rows)], protocol=protocol)
    code, _, err = _import(dump, lib, pgvector_db, capsys)
    assert code == 0, err
    assert pgvector_db.execute("SELECT id, vec::text, note FROM doc ORDER BY id") == [
        (d1, "[1,-2.5,0.125]", "a"), (d2, "[0,0,3]", None)]
    assert pgvector_db.execute("SELECT id FROM doc ORDER BY vec <-> '[0,0,2.9]' LIMIT 1") == [(d2,)]


CONCRETE_SCHEMA = """
type Animal { required name: str; }
type Dog extending Animal { breed: str; }
type Owner { required name: str; pet: Animal; multi pets: Animal; }
"""


def test_concrete_inheritance(tmp_path, pg, capsys):
    """A type extending a concrete type: each keeps its own objects in its own table, as in Gel
    (https://docs.geldata.com/reference/datamodel/inheritance). A link to the concrete parent
    stores ids of the parent's table (schemac's model): a dump whose link holds a subtype's
    object is refused by the foreign key at the end, and nothing is written."""
    lib = tmp_path / "zoo"
    lib.mkdir()
    (lib / "schema.esdl").write_text(CONCRETE_SCHEMA)
    assert main(["migrate", "generate", "--library", "zoo", "--out", str(lib / "migrations"),
                 str(lib / "schema.esdl")]) == 0
    assert main(["migrate", "apply", "--dir", str(lib / "migrations"), "--database-url", pg.url]) == 0
    a1, d1, o1 = uuid.UUID(int=1), uuid.UUID(int=2), uuid.UUID(int=3)

    def tables(pet):
        return [gw.object_table("default::Animal", [("id", S("uuid")), ("name", S("str"))], [(a1, "Cat")]),
                gw.object_table("default::Dog", [("id", S("uuid")), ("name", S("str")), ("breed", S("str"))],
                                [(d1, "Rex", "collie")]),
                gw.object_table("default::Owner", [("id", S("uuid")), ("name", S("str")), ("pet", S("uuid"))],
                                [(o1, "Olga", pet)], links=("pet",)),
                gw.pointer_table("default::Owner", "pets", gw.obj("default::Animal"), [(o1, a1)])]

    dump = tmp_path / "zoo.dump"
    gw.write_dump(str(dump), tables(a1))
    code, _, err = _import(dump, lib, pg, capsys)
    assert code == 0, err
    assert pg.execute("SELECT name FROM animal") == [("Cat",)]
    assert pg.execute("SELECT id, name, breed FROM dog") == [(d1, "Rex", "collie")]
    assert pg.execute("SELECT pet_id FROM owner") == [(a1,)]
    assert pg.execute("SELECT source_id, target_id FROM owner_pets") == [(o1, a1)]
    pg.execute("TRUNCATE animal, dog, owner, owner_pets")
    gw.write_dump(str(dump), tables(d1))
    code, _, err = _import(dump, lib, pg, capsys)
    assert code == 1
    assert "error[E0503]" in err and "fk_owner_pet_id" in err and "rolled back" in err, err
    assert pg.execute("SELECT count(*) FROM dog") == [(0,)]


REQUIRED_MULTI_SCHEMA = """
type Box {
  required name: str;
  required multi sizes: int64;
  count: int64 { constraint min_value(0); };
}
"""


@pytest.mark.parametrize("protocol", [(3, 0), (1, 0)], ids=lambda p: f"protocol-{p[0]}.{p[1]}")
def test_required_multi_property_and_check_constraints(tmp_path, pg, capsys, protocol):
    """A required multi property (Gel's dump01: ``required multi property p_bool``...): its CHECK
    (at least one value) holds only once the values are aggregated at the end, so the tables'
    CHECK constraints are created again at the end, like the foreign keys; a row they refuse
    then rolls everything back."""
    lib = tmp_path / "boxes"
    lib.mkdir()
    (lib / "schema.esdl").write_text(REQUIRED_MULTI_SCHEMA)
    assert main(["migrate", "generate", "--library", "boxes", "--out", str(lib / "migrations"),
                 str(lib / "schema.esdl")]) == 0
    assert main(["migrate", "apply", "--dir", str(lib / "migrations"), "--database-url", pg.url]) == 0
    b1, b2 = uuid.UUID(int=1), uuid.UUID(int=2)
    checks = _constraints(pg)

    def tables(count):
        return [gw.object_table("default::Box", [("id", S("uuid")), ("name", S("str")), ("count", S("int64"))],
                                [(b1, "a", 1), (b2, "b", count)]),
                gw.pointer_table("default::Box", "sizes", S("int64"), [(b1, 3), (b1, 4), (b2, 5)])]

    dump = tmp_path / "boxes.dump"
    gw.write_dump(str(dump), tables(2), protocol=protocol)
    code, out, err = _import(dump, lib, pg, capsys)
    assert code == 0, err
    assert pg.execute("SELECT name, sizes, count FROM box ORDER BY name") == [("a", [3, 4], 1), ("b", [5], 2)]
    assert _constraints(pg) == checks
    pg.execute("TRUNCATE box")
    gw.write_dump(str(dump), tables(-1), protocol=protocol)
    code, out, err = _import(dump, lib, pg, capsys)
    assert code == 1, err
    assert "error[E0503]" in err and "ck_box_count" in err and "nothing was written" in err, err
    assert pg.execute("SELECT count(*) FROM box") == [(0,)]
    assert _constraints(pg) == checks
