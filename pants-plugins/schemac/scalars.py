"""The scalar type table: one row per schema scalar, its Postgres column type and the type it
has in each generated language. This is the single place to audit type mapping.

Go types follow pgx v5's default codecs (https://pkg.go.dev/github.com/jackc/pgx/v5/pgtype):
uuid as ``string`` (canonical text form; no extra dependency), ``timestamptz`` as plain
``time.Time``, ``jsonb`` as ``json.RawMessage``. TypeScript types follow node-postgres'
default type parsers (https://node-postgres.com/features/types): ``int8``/``numeric`` arrive
as strings (no precision loss), ``timestamptz`` as ``Date``, ``jsonb`` parsed, ``bytea`` as
``Buffer``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict


@dataclass(frozen=True)
class Scalar:
    """One schema scalar type and its mappings.

    ``pg``: the Postgres column type. ``ts``/``ts_param``: TypeScript type of a result field /
    of a parameter. ``go``: Go type; ``go_nullable``: Go type of an optional value (a pointer,
    or the same type where ``nil`` already means SQL NULL). ``go_import``: import path needed
    by ``go`` (empty when none). ``sql_family``: comparison family for type checking (values of
    the same family compare without a cast)."""

    name: str
    pg: str
    ts: str
    ts_param: str
    go: str
    go_nullable: str
    go_import: str
    sql_family: str


SCALARS: Dict[str, Scalar] = {
    s.name: s
    for s in [
        #      name        pg                  ts          ts_param       go                 go_nullable        go_import        family
        Scalar("str", "text", "string", "string", "string", "*string", "", "str"),
        Scalar("bool", "boolean", "boolean", "boolean", "bool", "*bool", "", "bool"),
        Scalar("int16", "smallint", "number", "number", "int16", "*int16", "", "num"),
        Scalar("int32", "integer", "number", "number", "int32", "*int32", "", "num"),
        Scalar("int64", "bigint", "string", "number | string | bigint", "int64", "*int64", "", "num"),
        Scalar("float32", "real", "number", "number", "float32", "*float32", "", "num"),
        Scalar("float64", "double precision", "number", "number", "float64", "*float64", "", "num"),
        Scalar("bigint", "numeric", "string", "string | bigint", "string", "*string", "", "num"),
        Scalar("decimal", "numeric", "string", "string", "string", "*string", "", "num"),
        Scalar("json", "jsonb", "JsonValue", "JsonDocument", "json.RawMessage", "json.RawMessage", "encoding/json", "json"),
        Scalar("uuid", "uuid", "string", "string", "string", "*string", "", "uuid"),
        Scalar("datetime", "timestamptz", "Date", "Date", "time.Time", "*time.Time", "time", "datetime"),
        Scalar("bytes", "bytea", "Buffer", "Uint8Array", "[]byte", "[]byte", "", "bytes"),
    ]
}

def lookup_scalar(name: str):
    """The :class:`Scalar` named ``name`` (``str`` or ``std::str``), or ``None``."""
    if name.startswith("std::"):
        name = name[len("std::"):]
    return SCALARS.get(name)
