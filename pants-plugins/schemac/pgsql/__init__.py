"""The Postgres side of the query compiler: what turns the checked IR
(:mod:`schemac.semantics.qir`) into SQL. The checker (``schemac.semantics``) never imports it.

* :mod:`schemac.pgsql.calls` -- the table of standard-library calls: each ``qir.Call``'s
  ``func`` and how Postgres spells it (Gel keeps the same split: ``edb/pgsql/compiler`` maps
  each function of the IR to SQL; the IR only names it);
* :mod:`schemac.pgsql.calls_std` -- its entries for the standard library's aggregates
  (``sum``, ``math::mean``, ``math::stddev``, ``array_agg``), math, ``to_str`` and string and
  array functions;
* :mod:`schemac.pgsql.calls_ops` -- its entries for the operations of ``exprs.py``'s functions
  and operators: date and time constructors, accessors and arithmetic, ranges, sequences, sets
  of values, assertions, JSON, ``^`` and ``++``;
* :mod:`schemac.pgsql.calls_ext` -- its entries for the functions of Gel's extensions
  (pgvector, pg_trgm, pgcrypto, fuzzystrmatch, pg_unaccent, postgis), whose signatures stay in
  :mod:`schemac.semantics.extensions`;
* :mod:`schemac.pgsql.asserts` -- the failing cast of a run-time assertion;
* :mod:`schemac.pgsql.fts` -- full-text search: a type's document, a Gel query as a
  ``tsquery``, ``ts_rank``'s weights;
* :mod:`schemac.pgsql.policies` -- the SQL of access policies: the checked policy nodes of the
  IR (``qir.Visible``, ``qir.PolicyCheck``, ...) and the function that raises policy errors.
"""
