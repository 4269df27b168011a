"""schemac: a schema compiler for Postgres (core package, no Pants imports)."""

__version__ = "0.1.0"
