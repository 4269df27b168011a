"""Limits of issue 13: long flat operator chains produce SQL Postgres 15 parses and evaluates
(a 5,000-term '++' chain nested 5,000 parentheses deep exceeded its stack), with the same values
as the short forms."""

from __future__ import annotations

import re

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library

SCHEMA = "type T { required n: int64; required s: str; o: str; }"


def _plan(pg, query: str):
    sources = {"s.esdl": SCHEMA, "q/q.edgeql": query}
    return check_library(sources, Options(library="c")).queries[0]


def _setup(pg):
    pg.execute(compile_library({"s.esdl": SCHEMA}, Options(library="c"))["sql/000001_init.up.sql"])
    pg.execute("INSERT INTO t (n, s, o) VALUES (1, 'a', NULL), (2, 'b', 'x'), (7000, 'c', 'y')")


def _depth(sql: str) -> int:
    depth = deepest = 0
    for c in re.sub(r"'[^']*'", "", sql):
        depth += c == "("
        depth -= c == ")"
        deepest = max(deepest, depth)
    return deepest


def test_five_thousand_term_chains_run_on_postgres(pg):
    _setup(pg)
    n = 5000
    concat = _plan(pg, "select T { n } filter " + " ++ ".join([".s"] * n) + " = <str>$v order by .n;")
    assert _depth(concat.sql) < 20
    assert pg.execute(concat.sql.replace("$1", "%s"), ("b" * n,)) == [(2,)]
    ors = _plan(pg, "select T { n } filter " + " or ".join(f".n = {i}" for i in range(n)) + " order by .n;")
    assert _depth(ors.sql) < 5
    assert pg.execute(ors.sql) == [(1,), (2,)]
    ands = _plan(pg, "select T { n } filter " + " and ".join(f".n != {i}" for i in range(n)) + " order by .n;")
    assert _depth(ands.sql) < 5
    assert pg.execute(ands.sql) == [(7000,)]


def test_flattened_chains_keep_their_meaning(pg):
    _setup(pg)
    q = _plan(pg, "select T { n } filter (.s ++ '-' ++ .o ++ '!' ?= 'b-x!' or .n = 1 and .s = 'a') "
                  "and not (.n = 2 and .s = 'z' or .n = 1 and .s = 'q') order by .n;")
    assert pg.execute(q.sql) == [(1,), (2,)]
    # a NULL operand makes the whole concatenation NULL, as a nested one does
    q = _plan(pg, "select T { n } filter exists (.s ++ .o ++ .s ++ .s) order by .n;")
    assert pg.execute(q.sql) == [(2,), (7000,)]
