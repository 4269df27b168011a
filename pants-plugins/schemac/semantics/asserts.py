"""Gel's run-time assertions (https://docs.geldata.com/reference/stdlib/set#function::std::assert_single,
...#function::std::assert_exists, ...#function::std::assert_distinct): a statement whose
``assert_single`` / ``assert_exists`` / ``assert_distinct`` does not hold fails, with Gel's
message or the one given (``message := '...'``).

The SQL that fails is a cast that cannot succeed, ``CAST('schemac-assert|<function>|<message>' ||
<probe> AS integer)`` (SQLSTATE 22P02, ``invalid input syntax for type integer:
"schemac-assert|..."``), as access policies fail (:mod:`schemac.semantics.policies`); the
runners recognise the prefix and raise a typed error: ``CardinalityViolationError`` for
``assert_single`` and ``assert_exists`` (also for a scalar sub-select of several rows, SQLSTATE
21000, which is how a value's ``assert_single`` fails), ``DistinctViolationError`` (a
ConstraintViolationError, as Gel's) for ``assert_distinct``. The probe, ``coalesce(left(CAST(x AS
text), 0), '')``, reads the checked value and adds nothing: Postgres folds an expression of
constants when it plans the statement, so without it the cast would fail every statement, where
the assertion holds too. That SQL is :func:`schemac.pgsql.asserts.fail_sql`'s.
"""

from __future__ import annotations

#: The prefix of the text whose failed cast reports a failed assertion (read by the runners).
MARK = "schemac-assert"

#: Gel's messages.
MESSAGES = {
    "assert_single": "assert_single violation: more than one element returned by an expression",
    "assert_exists": "assert_exists violation: expression returned an empty set",
    "assert_distinct": "assert_distinct violation: expression returned a set with duplicate elements",
}


def raised_by(queries) -> bool:
    """Whether one of the query plans may fail with a failed assertion (its SQL, or one of its
    variants', holds the mark): the runners then translate these errors."""
    return any(MARK in q.sql or any(MARK in v.sql for v in q.variants or ()) for q in queries)
