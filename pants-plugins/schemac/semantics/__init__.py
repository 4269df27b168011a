"""Semantics: syntax trees -> the checked library (:class:`schemac.semantics.library.Library`).

Everything a back end needs is decided here, and every error of the input is reported here,
each with its location: names are resolved, types checked, expressions and queries lowered to
SQL, and the identifiers of the generated code chosen.

* the model: :mod:`~schemac.semantics.model` (the resolved schema), :mod:`~schemac.semantics.qir`
  (the typed query IR), :mod:`~schemac.semantics.library` (the compiled library and its
  options), :mod:`~schemac.semantics.scalars` (the scalar type table),
  :mod:`~schemac.semantics.extensions` (Gel extensions);
* the schema: :mod:`~schemac.semantics.resolve` (files -> schema), with
  :mod:`~schemac.semantics.definitions` (abstract pointers), :mod:`~schemac.semantics.triggers`
  (rewrites, deletion policies, triggers), :mod:`~schemac.semantics.policies` (access policies),
  :mod:`~schemac.semantics.functions` (functions and aliases), :mod:`~schemac.semantics.fts`
  (full-text search), :mod:`~schemac.semantics.gel_auth` (the data model of Gel's auth
  extension), :mod:`~schemac.semantics.migration_hints` (``migration { ... }``);
* expressions and queries: :mod:`~schemac.semantics.exprs` (type checking),
  :mod:`~schemac.semantics.stdfuncs` (standard-library functions with Gel's semantics),
  :mod:`~schemac.semantics.computed_sql` (computeds and backlinks),
  :mod:`~schemac.semantics.queries` (a query file -> its plan),
  :mod:`~schemac.semantics.lowering` (the IR -> SQL);
* names: :mod:`~schemac.semantics.sqlnames` (Postgres), :mod:`~schemac.semantics.names` (spelling
  in TypeScript and Go), :mod:`~schemac.semantics.naming` (every generated identifier, and
  their collisions, E0213), :mod:`~schemac.semantics.constraint_errors` (the typed errors).

Never imports :mod:`schemac.migrate`, :mod:`schemac.backends`, the pipeline or the command line.
"""
