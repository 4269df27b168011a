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

Gel's calendar types and durations (https://docs.geldata.com/reference/stdlib/datetime) have
no time zone, so neither a JS ``Date`` nor node-postgres' interval object fits them: in
TypeScript they are strings, in the forms Postgres reads back (``2024-02-29``,
``2024-02-29T13:45:00.123``, ``13:45:00``, ISO 8601 durations ``P1Y2M3DT4H5M6.5S``); the runner
converts what node-postgres parsed (:data:`TS_DECODERS`; ``timestamp`` keeps node-postgres'
millisecond precision). In Go, ``date`` and ``timestamp`` are ``time.Time`` (UTC, as pgx scans
them), ``duration`` -- which Gel keeps free of days and months -- is ``time.Duration``, and
``local_time`` and the calendar durations are ``pgtype.Time`` / ``pgtype.Interval`` (months, days
and microseconds kept apart), as sqlc emits them.
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

#: Import path of pgx's ``pgtype`` package (``pgtype.Time``, ``pgtype.Interval``).
PGTYPE = "github.com/jackc/pgx/v5/pgtype"


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
        # Gel's time-zone-free calendar types and durations (see the module doc and
        # docs/language.md): https://docs.geldata.com/reference/stdlib/datetime
        Scalar("cal::local_date", "date", "string", "string", "time.Time", "*time.Time", "time", "local_date", "sql.NullTime"),
        Scalar("cal::local_datetime", "timestamp", "string", "string", "time.Time", "*time.Time", "time", "local_datetime", "sql.NullTime"),
        Scalar("cal::local_time", "time", "string", "string", "pgtype.Time", "*pgtype.Time", PGTYPE, "local_time", "pgtype.Time"),
        Scalar("duration", "interval", "string", "string", "time.Duration", "*time.Duration", "time", "duration", "*time.Duration"),
        Scalar("cal::relative_duration", "interval", "string", "string", "pgtype.Interval", "*pgtype.Interval", PGTYPE, "relative_duration", "pgtype.Interval"),
        Scalar("cal::date_duration", "interval", "string", "string", "pgtype.Interval", "*pgtype.Interval", PGTYPE, "date_duration", "pgtype.Interval"),
    ]
}

#: Scalars whose TypeScript results the runner converts from node-postgres' default parse (a
#: ``Date`` at local midnight / local wall-clock time, a ``postgres-interval`` object) into the
#: canonical strings of the type table: name -> the ``queries.ts`` helper that does it.
TS_DECODERS = {
    "cal::local_date": "localDate",
    "cal::local_datetime": "localDateTime",
    "duration": "isoDuration",
    "cal::relative_duration": "isoDuration",
    "cal::date_duration": "isoDuration",
    # node-postgres has no parser for the extension's type: its text, [1,2,3], is JSON.
    "ext::pgvector::vector": "parseVector",
}

#: Scalars that cannot travel inside a nested shape's JSON yet: the Go runner decodes nested
#: shapes with encoding/json, which has no decoding for ``pgtype.Time``, ``pgtype.Interval`` or
#: ``time.Duration`` from Postgres' JSON text.
NOT_IN_JSON = frozenset({"cal::local_time", "duration", "cal::relative_duration", "cal::date_duration"})

def lookup_scalar(name: str):
    """The :class:`Scalar` named ``name`` (``str`` or ``std::str``; ``cal::local_date`` or
    ``std::cal::local_date``), or ``None``."""
    if name.startswith("std::"):
        name = name[len("std::"):]
    return SCALARS.get(name)



#: Range element types -> (Postgres range, multirange, TS bound type (result, parameter), TS bound
#: parser in queries.ts, Go pgtype bound type). Postgres has no range of floating-point numbers:
#: ``range<float32>``/``range<float64>`` are refused (https://docs.geldata.com/reference/stdlib/range).
RANGE_ELEMENTS = {
    "int32": ("int4range", "int4multirange", "number", "number", "Number", "pgtype.Int4"),
    "int64": ("int8range", "int8multirange", "string", "number | string | bigint", "String", "pgtype.Int8"),
    "decimal": ("numrange", "nummultirange", "string", "string", "String", "pgtype.Numeric"),
    "datetime": ("tstzrange", "tstzmultirange", "Date", "Date", "tzDate", "pgtype.Timestamptz"),
    "cal::local_datetime": ("tsrange", "tsmultirange", "string", "string", "localDateTime", "pgtype.Timestamp"),
    "cal::local_date": ("daterange", "datemultirange", "string", "string", "localDate", "pgtype.Date"),
}

_RANGES: Dict[tuple, Scalar] = {}


def range_scalar(element: str, multi: bool) -> Scalar:
    """``range<element>`` (``multi``: ``multirange<element>``). TypeScript: the ``Range<T>`` of
    models.ts (a multirange: ``Range<T>[]``), parsed from and written as Postgres' range text
    (node-postgres returns ranges as text); Go: pgx's ``pgtype.Range[pgtype.X]`` /
    ``pgtype.Multirange[...]``, as sqlc emits them (``Valid`` false / nil is NULL with
    database/sql). ``sql_family`` is ``range:<element>`` / ``multirange:<element>``."""
    key = (element, multi)
    got = _RANGES.get(key)
    if got is None:
        pg_range, pg_multi, ts, ts_param, _, go_bound = RANGE_ELEMENTS[element]
        go_range = f"pgtype.Range[{go_bound}]"
        if multi:
            go = f"pgtype.Multirange[{go_range}]"
            got = Scalar(f"multirange<{element}>", pg_multi, f"Range<{ts}>[]", f"readonly Range<{ts_param}>[]", go, go,
                         PGTYPE, f"multirange:{element}", go)
        else:
            got = Scalar(f"range<{element}>", pg_range, f"Range<{ts}>", f"Range<{ts_param}>", go_range, "*" + go_range,
                         PGTYPE, f"range:{element}", go_range)
        _RANGES[key] = got
    return got


def range_kind(scalar) -> str:
    """``range`` / ``multirange`` for a range scalar, else ``""``."""
    family = getattr(scalar, "sql_family", "") or ""
    return family.split(":", 1)[0] if family.startswith(("range:", "multirange:")) else ""


#: An ISO 8601 date and time with a time zone, the text a ``datetime`` is read from
#: (``to_datetime(s)``, ``<datetime>s``;
#: https://docs.geldata.com/reference/stdlib/datetime#function::std::to_datetime):
#: ``2018-05-07T15:01:22.306916+00``, ``20180507 150122Z``.
ISO_DATETIME = r"^\s*\d{4}(-\d{2}-\d{2}|\d{4})[tT ]\d{2}(:?\d{2}(:?\d{2}(\.\d+)?)?)?([zZ]|[+-]\d{2}(:?\d{2})?)\s*$"
