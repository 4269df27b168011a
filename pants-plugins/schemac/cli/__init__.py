"""The command line, ``python -m schemac`` (:mod:`schemac.__main__`).

* :mod:`schemac.cli.main` - the argument parser and the ``compile``, ``fmt`` and ``lsp`` commands;
* :mod:`schemac.cli.migrate` - the ``migrate`` commands (generate, check, apply, ...);
* :mod:`schemac.cli.sources` - reading the files named on the command line.
"""
