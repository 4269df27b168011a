"""Editor support for schemac: a language server (``python -m schemac lsp``).

A thin layer over the compiler's public entry points (:mod:`schemac.syntax.parser`,
:mod:`schemac.semantics.resolve`, :mod:`schemac.semantics.queries`, :mod:`schemac.diagnostics`). The compiler core
never imports this package; only :mod:`schemac.lsp.server` needs ``pygls``.

* :mod:`schemac.lsp.tokens` - a tolerant lexer and the token-level scan that classifies every
  name of a file (declaration, type, enum member, property or link of the type in scope) and
  tells what may come at the cursor, in text that does not parse;
* :mod:`schemac.lsp.analysis` - libraries, their incremental analysis (last good parse of each
  file, the schema, the query plans, the compiler's diagnostics) and the symbol index;
* :mod:`schemac.lsp.features` - completion, hover, definition, references, symbols, rename,
  code actions, as plain functions over an analysis (the server only converts positions);
* :mod:`schemac.lsp.server` - the pygls server.
"""
