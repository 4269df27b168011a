"""SQL back end: the ``sql/`` output (the committed migration history, or the initial migration
of a library without one, and ``schema.sql``).

``000001_init.up.sql`` creates every table (object types in declaration order, then the join
tables of multi links) with its CHECK and UNIQUE constraints, then adds the foreign keys (so
declaration order and link cycles do not matter), the partial unique indexes and other
indexes, and the ``COMMENT ON`` statements of annotations. ``000001_init.down.sql`` drops every
table in one ``DROP TABLE`` statement (which handles foreign keys between them). It is exactly
what the first ``generate-migrations`` writes (the diff from an empty catalog, see
:mod:`schemac.migrate`). File naming follows golang-migrate (``{version}_{title}.up.sql`` /
``.down.sql``, https://github.com/golang-migrate/migrate/blob/master/MIGRATIONS.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Optional

from schemac.diagnostics import CompileError
from schemac.migrate.catalog import Catalog, SnapshotError, catalog_of
from schemac.migrate.diff import diff
from schemac.migrate.history import SUM_FILE, initial_files, schema_sql

if TYPE_CHECKING:
    from schemac.semantics.library import Library
    from schemac.migrate.history import History


def render_sql(lib: "Library", history: "Optional[History]" = None) -> Dict[str, str]:
    """The ``sql/`` output of a library: its migration history as committed (``history``: every
    migration file, ``schemac.sum``; verified first) or, for a library without one, the initial
    migration; and ``schema.sql``, the current schema as one script. Raises
    :class:`CompileError` (E0405) for a broken history."""
    catalog = catalog_of(lib.schema)
    create = diff(Catalog(), catalog)
    out: Dict[str, str] = {"schema.sql": schema_sql(lib.options.library, catalog, create)}
    if history is None:
        out.update(initial_files(lib.options.library, catalog, create))
        return out
    problems = history.verify()
    if not problems:
        try:
            history.catalog()
        except SnapshotError as e:
            from schemac.diagnostics import Diagnostic, Span

            problems = [Diagnostic("E0407", str(e), Span.point(history.path("snapshot.json"), 1, 1),
                                   "restore it from version control, or run generate-migrations")]
    if problems:
        raise CompileError(problems)
    for name in history.ordered():
        out[name] = history.migrations[name]
    if history.sums is not None:
        out[SUM_FILE] = history.sums
    return out
