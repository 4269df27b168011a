"""The TypeScript back end: ``ts/`` (see :mod:`schemac.backends.ts.codegen`)."""
