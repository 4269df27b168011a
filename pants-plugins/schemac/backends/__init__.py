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
