"""``schemac import-gel-dump`` of single links with link properties
(https://docs.geldata.com/reference/datamodel/linkprops). Gel stores such a link both in its
source's row and in a link table of (source, target, properties) rows (geldata/gel
edb/pgsql/types.py ``_pointer_storable_in_pointer``), and dumps both: its published dump02
(``default::Łukasz.Ł💯``, every version from 1.4 to 6.0) has the column ``Ł💯`` in the type's
rows and the table ``default::__|Ł💯@default|Łukasz`` of ``target, source, 🙀مرحبا🙀,
🙀🚀🚀🚀🙀``. schemac stores the properties in ``<link>@<prop>`` columns of the source row
(tests/compiler/test_single_link_props.py): the link table's rows are copied into a scratch
table and set by one UPDATE at the end, in the load's one transaction.

Dumps written by :mod:`gelwriter`, both descriptor protocols; a link whose link table disagrees
with the source row, a link table row of no object, and a dump without the library's link
properties are refused with nothing written."""

from __future__ import annotations

import datetime as dt
import uuid

import pytest

import gelwriter as gw
from schemac.cli.main import main

S = gw.scalar
SCHEMA = """
type User { required name: str { constraint exclusive; } }
abstract type Owned { required owner: User { note: str; } }
type Issue extending Owned {
  required title: str;
  overloaded required link owner { property since: datetime; property rank: int64 { default := 42; } }
}
type Card { required name: str; }
type Player {
  required name: str;
  avatar: Card { text: str; on target delete allow; }
}
"""
U1, U2, I1, I2, C1, C2, P1, P2, P3 = (uuid.UUID(int=i) for i in (1, 2, 11, 12, 21, 22, 31, 32, 33))
AT = dt.datetime(2018, 1, 1, tzinfo=dt.timezone.utc)


def _tables(owner_rows=None, avatar_rows=None, issue_rows=None, with_avatar_props=True):
    tables = [
        gw.object_table("default::User", [("id", S("uuid")), ("name", S("str"))], [(U1, "Elvis"), (U2, "Yury")]),
        gw.object_table("default::Issue", [("id", S("uuid")), ("title", S("str")), ("owner", S("uuid"))],
                        issue_rows or [(I1, "one", U1), (I2, "two", U2)], links=("owner",)),
        gw.pointer_table("default::Issue", "owner", gw.obj("default::User"),
                         owner_rows if owner_rows is not None else
                         [(I1, U1, "first", AT, 7), (I2, U2, None, None, None)],
                         props=[("note", S("str")), ("since", S("datetime")), ("rank", S("int64"))],
                         target_first=True),
        gw.object_table("default::Owned", [("id", S("uuid")), ("owner", S("uuid"))], [], links=("owner",)),
        gw.object_table("default::Card", [("id", S("uuid")), ("name", S("str"))], [(C1, "Imp"), (C2, "Dragon")]),
        gw.object_table("default::Player", [("id", S("uuid")), ("name", S("str")), ("avatar", S("uuid"))],
                        [(P1, "Alice", C1), (P2, "Bob", None), (P3, "Cy", C2)], links=("avatar",)),
    ]
    if with_avatar_props:
        tables.append(gw.pointer_table("default::Player", "avatar", gw.obj("default::Card"),
                                       avatar_rows if avatar_rows is not None else [(P1, C1, "mine"), (P3, C2, None)],
                                       props=[("text", S("str"))]))
    return tables


@pytest.fixture
def library(tmp_path, pg):
    lib = tmp_path / "slp"
    lib.mkdir()
    (lib / "schema.esdl").write_text(SCHEMA)
    assert main(["migrate", "generate", "--library", "slp", "--out", str(lib / "migrations"),
                 str(lib / "schema.esdl")]) == 0
    assert main(["migrate", "apply", "--dir", str(lib / "migrations"), "--database-url", pg.url]) == 0
    return lib


def _import(dump, lib, pg, capsys):
    capsys.readouterr()
    code = main(["import-gel-dump", str(dump), "--dir", str(lib), "--database-url", pg.url])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("protocol", [(3, 0), (1, 0)], ids=lambda p: f"protocol-{p[0]}.{p[1]}")
def test_single_link_properties_round_trip(tmp_path, library, pg, capsys, protocol):
    dump = tmp_path / "slp.dump"
    gw.write_dump(str(dump), _tables(), protocol=protocol, rows_per_block=1)
    code, out, err = _import(dump, library, pg, capsys)
    assert code == 0, err
    assert pg.execute('SELECT title, owner_id, "owner@note", "owner@since", "owner@rank" FROM issue ORDER BY 1') == [
        ("one", U1, "first", AT, 7), ("two", U2, None, None, None)]  # (NULL as dumped, not the default 42)
    # Bob has no avatar: no property either (NULL, whatever the column's default)
    assert pg.execute('SELECT name, avatar_id, "avatar@text" FROM player ORDER BY 1') == [
        ("Alice", C1, "mine"), ("Bob", None, None), ("Cy", C2, None)]
    assert "default::Issue.owner" in out and "default::Player.avatar" in out, out
    # the scratch tables are gone, the triggers enabled again, the foreign keys back
    assert pg.execute("SELECT count(*) FROM pg_class WHERE relname LIKE 'gel_import_%%'") == [(0,)]
    assert pg.execute("SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal AND tgenabled = 'D'") == [(0,)]
    assert pg.execute("SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conrelid = 'issue'::regclass") \
        == [(1,)]


@pytest.mark.parametrize("case", ["other-target", "no-object", "twice"])
def test_link_table_disagreeing_with_the_objects_is_refused(tmp_path, library, pg, capsys, case):
    rows = {"other-target": [(I1, U2, "first", AT, 7)],
            "no-object": [(I1, U1, "first", AT, 7), (uuid.UUID(int=99), U1, None, None, None)],
            "twice": [(I1, U1, "first", AT, 7), (I1, U1, "again", None, None)]}[case]
    dump = tmp_path / "bad.dump"
    gw.write_dump(str(dump), _tables(owner_rows=rows), protocol=(3, 0))
    code, out, err = _import(dump, library, pg, capsys)
    assert code == 1, err
    expected = {"other-target": "link default::Issue.owner of 00000000-0000-0000-0000-00000000000b: its link "
                                "table's target is not the object's link",
                "no-object": "link default::Issue.owner of 00000000-0000-0000-0000-000000000063, which is not an "
                             "object of its type in the dump",
                "twice": "single link default::Issue.owner of 00000000-0000-0000-0000-00000000000b has several "
                         "rows in the dump"}[case]
    assert f"error[E0503]: {expected}" in err, err
    assert pg.execute("SELECT (SELECT count(*) FROM issue) + (SELECT count(*) FROM player) + "
                      "(SELECT count(*) FROM \"user\")") == [(0,)]


def test_missing_or_extra_link_properties_are_refused(tmp_path, library, pg, capsys):
    dump = tmp_path / "diff.dump"
    tables = _tables(with_avatar_props=False)
    tables[2] = gw.pointer_table("default::Issue", "owner", gw.obj("default::User"), [],
                                 props=[("note", S("str")), ("since", S("datetime")), ("weight", S("float64"))])
    gw.write_dump(str(dump), tables, protocol=(3, 0))
    code, out, err = _import(dump, library, pg, capsys)
    assert code == 1, err
    assert "error[E0501]" in err and "nothing was written" in err, err
    assert "link property default::Issue.owner@weight is in the dump but not in the library" in err, err
    assert "link property default::Issue.owner@rank is in the library but not in the dump" in err, err
    assert "link properties default::Player.avatar@text are in the library but not in the dump" in err, err
    assert pg.execute("SELECT count(*) FROM issue") == [(0,)]


def _ai_tables():
    """The objects Gel's ``ai`` extension creates itself (Gel's dumpv5, 6.0: an
    ``ext::ai::ChatPrompt`` with its ``messages``), as the dump holds them."""
    prompt, message = uuid.UUID(int=501), uuid.UUID(int=502)
    return [gw.object_table("ext::ai::ChatPromptMessage", [("id", S("uuid")), ("content", S("str"))],
                            [(message, "You are an expert Q&A system.")]),
            gw.object_table("ext::ai::ChatPrompt", [("id", S("uuid")), ("name", S("str"))],
                            [(prompt, "builtin::rag-default")]),
            gw.pointer_table("ext::ai::ChatPrompt", "messages", gw.obj("ext::ai::ChatPromptMessage"),
                             [(prompt, message)], module="ext::ai", target_first=True)]


def test_extension_objects_are_refused_or_skipped_when_asked(tmp_path, library, pg, capsys):
    dump = tmp_path / "ai.dump"
    gw.write_dump(str(dump), _tables() + _ai_tables(), protocol=(3, 0))
    code, out, err = _import(dump, library, pg, capsys)
    assert code == 1, err
    assert "error[E0501]" in err and "rows of ext::ai::ChatPromptMessage" in err, err
    assert "--skip-extension-objects" in err, err
    assert pg.execute("SELECT count(*) FROM issue") == [(0,)]
    capsys.readouterr()
    code = main(["import-gel-dump", str(dump), "--dir", str(library), "--database-url", pg.url,
                 "--skip-extension-objects"])
    got = capsys.readouterr()
    assert code == 0, got.err
    for label, n in (("ext::ai::ChatPromptMessage", 1), ("ext::ai::ChatPrompt", 1),
                     ("ext::ai::__|messages@ext::ai|ChatPrompt", 1)):
        assert any(line.split() == [label, str(n), "(skipped:", "an", "extension's", "objects)"]
                   for line in got.out.splitlines()), got.out
    assert pg.execute('SELECT count(*), count("owner@note") FROM issue') == [(2, 1)]
