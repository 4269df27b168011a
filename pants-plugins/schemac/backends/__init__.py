"""The back ends: a checked :class:`~schemac.semantics.library.Library` -> output files.

* :mod:`schemac.backends.sql` - ``sql/``: the migration history (through :mod:`schemac.migrate`)
  and ``schema.sql``;
* :mod:`schemac.backends.ts` - ``ts/``: a node-postgres runner (templates in ``ts/templates/``);
* :mod:`schemac.backends.go` - ``go/``: a pgx / database/sql runner (templates in
  ``go/templates/``).

A back end only formats what semantics decided: it reports no error of the input (except the
SQL back end's check of a committed history) and never imports another back end, the pipeline
or the command line.
"""

from __future__ import annotations

from schemac.semantics.queries import QueryPlan, filtered_upsert


def is_filtered_upsert(q: QueryPlan) -> bool:
    """:func:`~schemac.semantics.queries.filtered_upsert` of ``q``, found once per plan (it walks
    the query's whole IR; the TypeScript and the Go back end both ask, for each insert): kept in
    the plan's instance dict, beside its fields (a pure function of them; not a field, so the
    plan's equality, hash and ``dataclasses.replace`` are unchanged)."""
    memo = q.__dict__
    try:
        return memo["_filtered_upsert"]
    except KeyError:
        found = memo["_filtered_upsert"] = filtered_upsert(q)
        return found
