"""The scalar type table: one row per schema scalar, its Postgres column type and the type it
has in each generated language. This is the single place to audit type mapping.

Go types follow pgx v5's default codecs (https://pkg.go.dev/github.com/jackc/pgx/v5/pgtype):
uuid as ``string`` (canonical text form; no extra dependency), ``timestamptz`` as plain
``time.Time``, ``jsonb`` as ``json.RawMessage``. With ``go_driver="database/sql"`` optional
values follow sqlc's database/sql convention instead (``go_sql_nullable``: ``sql.NullString``
and friends). TypeScript types follow node-postgres' default type parsers
(https://node-postgres.com/features/types): ``int8``/``numeric`` arrive as strings (no
precision loss), ``timestamptz`` as ``Date``, ``jsonb`` parsed, ``bytea`` as ``Buffer``; with
``ts_int64="bigint"`` the runner converts ``int64`` results to ``bigint``
(:data:`TS_INT64_BIGINT`).
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
    the same family compare without a cast). ``go_sql_nullable``: Go type of an optional value
    with ``go_driver="database/sql"``, as sqlc emits it (``sql.Null*``; ``float32`` too becomes
    ``sql.NullFloat64``, there being no ``sql.NullFloat32``; ``nil`` is NULL for slices)."""

    name: str
    pg: str
    ts: str
    ts_param: str
    go: str
    go_nullable: str
    go_import: str
    sql_family: str
    go_sql_nullable: str

    @property
    def go_sql_nullable_import(self) -> str:
        """Import path needed by ``go_sql_nullable`` (empty when none)."""
        return "database/sql" if self.go_sql_nullable.startswith("sql.") else self.go_import


#: The TypeScript types of ``int64`` (result, parameter) with ``ts_int64="bigint"``. The runner
#: converts results with ``BigInt()`` (node-postgres returns ``int8`` as a string, and values
#: inside nested shapes travel as JSON strings); ``bigint`` parameters are sent as their decimal
#: text (node-postgres calls ``toString()``), and a ``number`` is accepted for convenience.
TS_INT64_BIGINT = ("bigint", "bigint | number")


SCALARS: Dict[str, Scalar] = {
    s.name: s
    for s in [
        #      name        pg                  ts          ts_param       go                 go_nullable        go_import        family   database/sql nullable
        Scalar("str", "text", "string", "string", "string", "*string", "", "str", "sql.NullString"),
        Scalar("bool", "boolean", "boolean", "boolean", "bool", "*bool", "", "bool", "sql.NullBool"),
        Scalar("int16", "smallint", "number", "number", "int16", "*int16", "", "num", "sql.NullInt16"),
        Scalar("int32", "integer", "number", "number", "int32", "*int32", "", "num", "sql.NullInt32"),
        Scalar("int64", "bigint", "string", "number | string | bigint", "int64", "*int64", "", "num", "sql.NullInt64"),
        Scalar("float32", "real", "number", "number", "float32", "*float32", "", "num", "sql.NullFloat64"),
        Scalar("float64", "double precision", "number", "number", "float64", "*float64", "", "num", "sql.NullFloat64"),
        Scalar("bigint", "numeric", "string", "string | bigint", "string", "*string", "", "num", "sql.NullString"),
        Scalar("decimal", "numeric", "string", "string", "string", "*string", "", "num", "sql.NullString"),
        Scalar("json", "jsonb", "JsonValue", "JsonDocument", "json.RawMessage", "json.RawMessage", "encoding/json", "json", "json.RawMessage"),
        Scalar("uuid", "uuid", "string", "string", "string", "*string", "", "uuid", "sql.NullString"),
        Scalar("datetime", "timestamptz", "Date", "Date", "time.Time", "*time.Time", "time", "datetime", "sql.NullTime"),
        Scalar("bytes", "bytea", "Buffer", "Uint8Array", "[]byte", "[]byte", "", "bytes", "[]byte"),
    ]
}

def lookup_scalar(name: str):
    """The :class:`Scalar` named ``name`` (``str`` or ``std::str``), or ``None``."""
    if name.startswith("std::"):
        name = name[len("std::"):]
    return SCALARS.get(name)
