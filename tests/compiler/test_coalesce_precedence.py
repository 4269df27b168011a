"""Gel's ``??`` binds tighter than ``+ - ++`` and ``* / // %`` (Gel's grammar precedence,
https://docs.geldata.com/reference/stdlib/set#operator::coalesce): ``2 * <optional int64>$n ?? 10``
is ``2 * ($n ?? 10)``, ``'pre-' ++ <optional str>$a ?? 'none'`` is ``'pre-' ++ ($a ?? 'none')``,
``.score + <optional int64>$inc ?? 1`` adds 1 when ``$inc`` is omitted. Run on PostgreSQL 15 with data."""

from __future__ import annotations

import re

from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  type P {
    required name: str;
    score: int64;
  }
}
"""

QUERIES = {
    "free": "select { b := 2 * <optional int64>$n ?? 10, c := 'pre-' ++ <optional str>$a ?? 'none',"
            " d := 1 + <optional int64>$x ?? 5, e := <optional int64>$x ?? 5 - 1 };",
    "bump": "update P filter .name = <str>$name set { score := .score + <optional int64>$inc ?? 1 };",
    "read": "select P { name, score } filter .name = <str>$name;",
}


def _sources():
    src = {"lib/schema.esdl": SCHEMA}
    src.update({f"lib/{k}.edgeql": v for k, v in QUERIES.items()})
    return src


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})


def test_coalesce_precedence_on_postgres(pg):
    out = compile_library(_sources(), Options(library="lib"))
    pg.execute(out["sql/schema.sql"])
    plans = {q.name: q for q in check_library(_sources(), Options(library="lib")).queries}
    row = _run(pg, plans["free"])[0]
    assert tuple(row) == (20, "pre-none", 6, 4)
    row = _run(pg, plans["free"], n=3, a="x", x=2)[0]
    assert tuple(row) == (6, "pre-x", 3, 1)
    pg.execute("INSERT INTO p (name, score) VALUES ('a', 10)")
    _run(pg, plans["bump"], name="a")
    assert _run(pg, plans["read"], name="a")[0][-1] == 11
    _run(pg, plans["bump"], name="a", inc=5)
    assert _run(pg, plans["read"], name="a")[0][-1] == 16
