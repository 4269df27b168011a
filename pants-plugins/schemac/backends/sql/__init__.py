"""The SQL back end: ``sql/`` (see :mod:`schemac.backends.sql.codegen`)."""
