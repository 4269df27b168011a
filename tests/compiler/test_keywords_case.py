"""The ``keywords`` case on a real database: identifiers that are SQL keywords (``order``,
``user``, ``select``, ``table``, ``group``) are quoted everywhere, a parameter that falls back to
the column default, and ``unless conflict`` against a partial exclusive constraint whose
predicate reads a keyword column."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from libraries import case_plans, run_plan

CASE = Path(__file__).resolve().parents[1] / "cases" / "keywords"


def plans():
    return case_plans('keywords')


run = run_plan


def test_keyword_identifiers_on_postgres(pg):
    pg.execute((CASE / "expected" / "sql" / "000001_init.up.sql").read_text())
    q = plans()
    (uid,) = run(pg, q["add_user"], "alice", None)[0]
    assert pg.execute('SELECT "select", "order", kind FROM "user" WHERE id = %s', (uid,)) == [("alice", 0, "user")]
    with pytest.raises(psycopg.errors.UniqueViolation) as exc:
        run(pg, q["add_user"], "alice", 3)
    assert exc.value.diag.constraint_name == "uq_user_select"
    assert run(pg, q["rename_user"], "alice", "bob") == [(uid,)]
    assert q["rename_user"].cardinality == "at_most_one"  # .select is a full exclusive constraint

    first = run(pg, q["upsert_order"], "u", "t", 1, "x")
    assert len(first) == 1
    assert run(pg, q["upsert_order"], "u", "t", 2, "y") == []  # absorbed by the partial arbiter
    assert len(run(pg, q["upsert_order"], "u", "t", 0, "y")) == 1  # outside the predicate
    assert len(run(pg, q["upsert_order"], "u", "t", 5, "draft")) == 1  # outside the predicate
    assert q["upsert_order"].cardinality == "at_most_one"
    moved = run(pg, q["regroup"], "u", 1, 0, "done")
    assert len(moved) == 2  # group 1 and group 5 rows
    assert q["regroup"].cardinality == "many"
    notes = sorted(r[0] for r in pg.execute('SELECT note FROM "order" WHERE "group" = 0'))
    assert notes == ["moved done", "moved done", "y"]
