"""Syntax: source text -> typed syntax trees, for schema files (``*.esdl``, ``*.gel``) and
query files (``*.edgeql``).

* :mod:`schemac.syntax.tree` - the syntax trees: plain frozen dataclasses, a
  :class:`~schemac.diagnostics.Span` on every node, names kept as written;
* :mod:`schemac.syntax.parser` - the parser: lark's LALR(1) tables (``grammar.lark``) run by
  the parser's own loop and lexer (see the module docstring and docs/performance.md), the
  on-disk cache of the tables, and the syntax errors (``E01xx``).

Imports only :mod:`schemac.diagnostics`, :mod:`schemac.frozen`, :mod:`schemac.files` and
:mod:`schemac.cache`: it knows nothing of the meaning of a schema.
"""
