"""Pants backend for schemac: the `schema_library` target and its SQL/TypeScript/Go codegen."""
