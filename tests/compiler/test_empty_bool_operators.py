"""Gel's ``or`` and ``and`` are ``{}`` when an operand is ``{}``
(https://docs.geldata.com/resources/cheatsheets/boolean): ``true or <bool>{}`` and
``false and <bool>{}`` are ``{}``, where SQL's ``NULL OR true`` is true and ``NULL AND false``
false. In a filter the row is dropped. Operands that cannot be empty keep plain SQL ``OR`` /
``AND``. Run on PostgreSQL 15 with data."""

from __future__ import annotations

import re

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  type Ch {
    required k: str;
    g: str;
    n: int32;
    required r: int32;
    property either := .g = 'x' or .n = 1;
  }
  type Pol {
    required k: str;
    g: str;
    n: int32;
    access policy seen allow all using (.g = 'x' or .n = 1);
  }
}
"""

QUERIES = {
    "vals": "select { o := <optional bool>$a or true, a := <optional bool>$a and false,"
            " p := <bool>$b or true, q := <bool>$b and false };",
    "filt": "select Ch { k } filter .g = <str>$g or .n = 1 order by .k;",
    "filt_and": "select Ch { k } filter .g = <str>$g and .r = 1 order by .k;",
    "shape": "select Ch { k, o := .g = 'x' or .n = 1, a := .g = 'x' and .r = 2, either } order by .k;",
    "pol": "select Pol { k } order by .k;",
    "plain": "select Ch { k } filter .k = 'a' or .r = 2 order by .k;",
}


def _sources():
    src = {"lib/schema.esdl": SCHEMA}
    src.update({f"lib/{k}.edgeql": v for k, v in QUERIES.items()})
    return src


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})


def test_empty_operands_of_or_and_on_postgres(pg):
    out = compile_library(_sources(), Options(library="lib"))
    pg.execute(out["sql/schema.sql"])
    plans = {q.name: q for q in check_library(_sources(), Options(library="lib")).queries}
    assert " OR " in plans["plain"].sql and "CASE" not in plans["plain"].sql and "IS NOT NULL" not in plans["plain"].sql
    assert tuple(_run(pg, plans["vals"], b=False)[0]) == (None, None, True, False)
    assert tuple(_run(pg, plans["vals"], a=True, b=True)[0]) == (True, False, True, False)
    pg.execute("INSERT INTO ch (k, g, n, r) VALUES ('a', NULL, 1, 1), ('b', 'x', NULL, 2), ('c', 'y', 1, 1)")
    assert [r[0] for r in _run(pg, plans["filt"], g="x")] == ["c"]
    assert [r[0] for r in _run(pg, plans["filt_and"], g="y")] == ["c"]
    rows = [tuple(r) for r in _run(pg, plans["shape"])]
    assert rows == [("a", None, None, None), ("b", None, True, None), ("c", True, False, True)]
    assert [r[0] for r in _run(pg, plans["plain"])] == ["a", "b"]
    # An access policy whose condition is {} does not allow the row.
    pg.execute("INSERT INTO pol (k, g, n) VALUES ('a', 'x', NULL), ('b', 'y', 1), ('c', 'x', 2)")
    assert [r[0] for r in _run(pg, plans["pol"])] == ["b", "c"]
