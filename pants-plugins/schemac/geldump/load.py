"""Loading a Gel dump into the tables a library's migrations created (``schemac
import-gel-dump``), with psycopg 3.

The order of things, so that a refused or failed import leaves the database as it was:

1. the dump's header is read and its schema compared with the library's
   (:func:`schemac.geldump.plan.make_plan`): any difference refuses the import, naming each,
   before the database is touched;
2. in one transaction: the target tables must exist and be empty; their CHECK constraints and
   foreign keys (those that reference them too) are dropped and their user triggers (mutation rewrites, deletion
   policies: Gel's restore does not run them either) disabled;
3. each data block is streamed, row by row, into ``COPY ... FROM STDIN (FORMAT BINARY)``: the
   dump's rows are already Postgres binary values (Gel's tables are Postgres tables), so a value
   is passed through unchanged except the type OIDs inside arrays and tuples (records), which
   are Gel's database's and become this database's. Multi properties (Gel: a table of (source,
   target) rows; schemac: an array column) go through a scratch table, aggregated at the end;
   so do a single link's link properties (Gel: a table of (source, target, properties) rows;
   schemac: ``<link>@<prop>`` columns of the source row), set by one UPDATE at the end;
4. the CHECK constraints and foreign keys are created again (Postgres checks every row then),
   the triggers enabled, each sequence set past the highest value its columns hold, and the
   transaction committed.

Any error rolls the transaction back. The dump is streamed: Python holds one dump block (Gel
writes blocks of about a megabyte) and one COPY buffer at a time, and each buffer is sent to
the server before the next is read (:class:`_SentWriter`: libpq, in psycopg's non-blocking
mode, would otherwise keep whatever the server has not yet read in its own output buffer,
which grows without bound when the server is the slower side). docs/moving-from-gel.md,
"Size", has the measured peaks.
"""

from __future__ import annotations

import re
import struct
import sys
import time
from dataclasses import dataclass, field
from typing import BinaryIO, Callable, Dict, List, Optional, Tuple

from schemac.geldump.format import DumpFormatError, DumpReader, GelType, copy_chunks, copy_messages, copy_rows
from schemac.geldump.plan import Plan, TablePlan, _extension_type, check_multi_pointers, make_plan
from schemac.semantics.model import Schema

_I16 = struct.Struct("!h")
_I32 = struct.Struct("!i")
_U32 = struct.Struct("!I")
COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x00"
COPY_TRAILER = b"\xff\xff"
FLUSH_BYTES = 1 << 17  # (psycopg sends at most 128 KiB a call)


class GelDumpError(Exception):
    """A refusal or failure: a stable code (``E0500``..``E0503``), the message, the lines that
    detail it (differences) and a hint."""

    def __init__(self, code: str, message: str, details: Optional[List[str]] = None, hint: Optional[str] = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or []
        self.hint = hint


@dataclass
class Summary:
    """Rows loaded per dumped table (label: type, or type.pointer), in load order."""

    counts: Dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    #: Rows of Gel extensions' types left out (``skip_extension_objects``), per dumped table.
    skipped: Dict[str, int] = field(default_factory=dict)

    @property
    def rows(self) -> int:
        return sum(self.counts.values())


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# ----------------------------------------------------------------------------- the target's types
class PgTypes:
    """What the loader needs of the target database's types: an array's element type, a
    composite type's attribute types, a domain's base type (by OID)."""

    def __init__(self, conn):
        self.conn = conn
        self._cache: Dict[int, Tuple[str, int, List[int]]] = {}

    def info(self, oid: int) -> Tuple[str, int, List[int]]:
        """(``array`` / ``composite`` / ``domain`` / ``scalar``, element or base OID, attributes)."""
        got = self._cache.get(oid)
        if got is None:
            row = self.conn.execute("SELECT typtype, typelem, typrelid, typbasetype, typcategory FROM pg_type "
                                    "WHERE oid = %s", (oid,)).fetchone()
            typtype, typelem, typrelid, basetype, category = row
            if typtype == "d":
                got = ("domain", int(basetype), [])
            elif category == "A" and int(typelem):
                got = ("array", int(typelem), [])
            elif typtype == "c":
                attrs = [int(r[0]) for r in self.conn.execute(
                    "SELECT atttypid FROM pg_attribute WHERE attrelid = %s AND attnum > 0 AND NOT attisdropped "
                    "ORDER BY attnum", (typrelid,))]
                got = ("composite", 0, attrs)
            else:
                got = ("scalar", 0, [])
            self._cache[oid] = got
        return got

    def resolved(self, oid: int) -> Tuple[str, int, List[int]]:
        kind, sub, attrs = self.info(oid)
        while kind == "domain":
            kind, sub, attrs = self.info(sub)
        return kind, sub, attrs


Transcode = Optional[Callable[[bytes], bytes]]


def transcoder(gel: GelType, oid: int, types: PgTypes) -> Transcode:
    """A function that turns one value of the dump (Postgres binary of Gel's column) into the
    binary value of the target column of type ``oid``; ``None`` when the bytes are the same
    (every scalar: Gel's and schemac's Postgres types have the same binary form)."""
    if gel.kind == "array":
        kind, elem_oid, _ = types.resolved(oid)
        if kind != "array":
            raise GelDumpError("E0502", f"column of type OID {oid} is not an array in the database")
        inner = transcoder(gel.element, elem_oid, types)  # type: ignore[arg-type]
        return _array_transcoder(elem_oid, inner)
    if gel.kind == "tuple":
        kind, _, attrs = types.resolved(oid)
        if kind != "composite" or len(attrs) != len(gel.fields):
            raise GelDumpError("E0502", f"column of type OID {oid} is not a composite of {len(gel.fields)} "
                               "attributes in the database")
        inners = [transcoder(t, a, types) for (_, t), a in zip(gel.fields, attrs)]
        return _record_transcoder(attrs, inners)
    return None


def _array_transcoder(elem_oid: int, inner: Transcode) -> Callable[[bytes], bytes]:
    oid_bytes = _U32.pack(elem_oid)

    def run(data: bytes) -> bytes:
        if inner is None:
            return data if data[8:12] == oid_bytes else data[:8] + oid_bytes + data[12:]
        ndim = _I32.unpack_from(data, 0)[0]
        count = 1 if ndim else 0
        for d in range(ndim):
            count *= _I32.unpack_from(data, 12 + 8 * d)[0]
        pos = 12 + 8 * ndim
        out = [data[:8], oid_bytes, data[12:pos]]
        for _ in range(count):
            n = _I32.unpack_from(data, pos)[0]
            pos += 4
            if n < 0:
                out.append(b"\xff\xff\xff\xff")
                continue
            value = inner(data[pos:pos + n])
            pos += n
            out.append(_I32.pack(len(value)))
            out.append(value)
        return b"".join(out)

    return run


def _record_transcoder(attrs: List[int], inners: List[Transcode]) -> Callable[[bytes], bytes]:
    oids = [_U32.pack(a) for a in attrs]

    def run(data: bytes) -> bytes:
        n = _I32.unpack_from(data, 0)[0]
        if n != len(oids):
            raise GelDumpError("E0503", f"a tuple value of {n} elements where {len(oids)} were described")
        pos = 4
        out = [data[:4]]
        for i in range(n):
            ln = _I32.unpack_from(data, pos + 4)[0]
            pos += 8
            out.append(oids[i])
            if ln < 0:
                out.append(b"\xff\xff\xff\xff")
                continue
            value = data[pos:pos + ln]
            pos += ln
            if inners[i] is not None:
                value = inners[i](value)  # type: ignore[misc]
            out.append(_I32.pack(len(value)))
            out.append(value)
        return b"".join(out)

    return run


# ----------------------------------------------------------------------------- loading
@dataclass
class _Target:
    """A table plan made ready to run: the COPY statement, each output field's source index
    and transcoder, the constant fields (empty arrays) appended to each row."""

    plan: TablePlan
    copy_sql: str
    sources: List[int]
    codecs: List[Transcode]
    constants: bytes = b""
    nfields: int = 0
    scratch: str = ""
    array_sql: str = ""
    names: List[str] = field(default_factory=list)
    #: The dump's rows are the target's as they are (every field, in order, no value changed).
    identity: bool = False
    #: (message with %s for the value, query returning an offending value): checked before
    #: :attr:`array_sql` runs.
    checks: List[Tuple[str, str]] = field(default_factory=list)


def _column_oids(conn, table: str) -> Dict[str, int]:
    rows = conn.execute("SELECT a.attname, a.atttypid FROM pg_attribute a WHERE a.attrelid = to_regclass(%s) "
                        "AND a.attnum > 0 AND NOT a.attisdropped", (quote(table),)).fetchall()
    return {r[0]: int(r[1]) for r in rows}


def _prepare(conn, plan: Plan, types: PgTypes) -> List[_Target]:
    targets: List[_Target] = []
    missing: List[str] = []
    oids_of: Dict[str, Dict[str, int]] = {}
    for tp in plan.tables:
        if tp.kind == "skip":
            continue
        if tp.table not in oids_of:
            oids_of[tp.table] = _column_oids(conn, tp.table)
            if not oids_of[tp.table]:
                missing.append(tp.table)
    if missing:
        raise GelDumpError("E0502", f"the database has no table {', '.join(sorted(set(missing)))}",
                           hint="apply the library's migrations first (`schemac migrate apply`, or "
                           "`./pants run <library>`), into an empty database")
    for i, tp in enumerate(plan.tables):
        if tp.kind == "skip":
            continue
        cols = oids_of[tp.table]
        if tp.kind == "multiprop":
            array_oid = cols.get(tp.array_column)
            if array_oid is None:
                raise GelDumpError("E0502", f"table {tp.table} has no column {tp.array_column}",
                                   hint="apply the library's latest migrations first")
            elem = conn.execute("SELECT format_type(typelem, NULL), typelem FROM pg_type WHERE oid = %s",
                                (array_oid,)).fetchone()
            scratch = f"gel_import_{i}"
            conn.execute(f"CREATE TEMPORARY TABLE {scratch} (source_id uuid, target {elem[0]}) ON COMMIT DROP")
            src, tgt = tp.columns
            codec = transcoder(tgt.gel, int(elem[1]), types)  # type: ignore[arg-type]
            t = _Target(tp, f"COPY {scratch} (source_id, target) FROM STDIN (FORMAT BINARY)",
                        [src.source, tgt.source], [None, codec], nfields=2, scratch=scratch)  # type: ignore[list-item]
            t.array_sql = (f"UPDATE {quote(tp.table)} AS t SET {quote(tp.array_column)} = s.v FROM "
                           f"(SELECT source_id, array_agg(target) AS v FROM {scratch} GROUP BY source_id) AS s "
                           "WHERE t.id = s.source_id")
            targets.append(t)
            continue
        if tp.kind == "linkprops":
            targets.append(_link_props_target(conn, tp, f"gel_import_{i}", cols, types))
            continue
        names: List[str] = []
        sources: List[int] = []
        codecs: List[Transcode] = []
        for cm in tp.columns:
            oid = cols.get(cm.column) if not cm.poly else _UUID_OID
            if cm.poly and any(c not in oids_of.get(tp.table, {}) for _, c in cm.poly):
                raise GelDumpError("E0502", f"table {tp.table} lacks a column of {cm.poly}",
                                   hint="apply the library's latest migrations first")
            if oid is None:
                raise GelDumpError("E0502", f"table {tp.table} has no column {cm.column}",
                                   hint="apply the library's latest migrations first")
            names.append(cm.column)
            sources.append(cm.source)  # type: ignore[arg-type]
            codecs.append(transcoder(cm.gel, oid, types) if cm.gel is not None else None)
        # the COPY lists the columns in the dump's order: a table whose values all pass through
        # unchanged is then copied as it is (see copy_chunks)
        order = sorted(range(len(names)), key=lambda k: sources[k])
        names = [names[k] for k in order]
        sources = [sources[k] for k in order]
        codecs = [codecs[k] for k in order]
        constants = b""
        for name, _vt in tp.empty_arrays:
            oid = cols.get(name)
            if oid is None:
                raise GelDumpError("E0502", f"table {tp.table} has no column {name}",
                                   hint="apply the library's latest migrations first")
            _, elem_oid, _ = types.resolved(oid)
            empty = struct.pack("!iiI", 0, 0, elem_oid)
            constants += _I32.pack(len(empty)) + empty
            names.append(name)
        for name in tp.null_columns:
            if name not in cols:
                raise GelDumpError("E0502", f"table {tp.table} has no column {name}",
                                   hint="apply the library's latest migrations first")
            constants += b"\xff\xff\xff\xff"
            names.append(name)
        into = tp.table
        if tp.staged:
            into = f"gel_import_{i}"
            types_sql = {n: conn.execute("SELECT format_type(%s, NULL)", (cols[n],)).fetchone()[0]
                         for n in names if n in cols}
            conn.execute(f"CREATE TEMPORARY TABLE {into} ("
                         + ", ".join(f"{quote(n)} {types_sql.get(n, 'uuid')}" for n in names) + ") ON COMMIT DROP")
        sql = f"COPY {quote(into)} ({', '.join(quote(n) for n in names)}) FROM STDIN (FORMAT BINARY)"
        targets.append(_Target(tp, sql, sources, codecs, constants, len(names), scratch=into if tp.staged else ""))
        targets[-1].names = names
        targets[-1].identity = (not constants and all(c is None for c in codecs)
                                and sources == list(range(len(tp.dump.rowtype.fields))))
    staging = {t.plan.table: t.scratch for t in targets if t.plan.staged}
    for t in targets:
        if t.plan.staged:
            t.array_sql = _staged_insert(t, staging)
    return targets


_UUID_OID = 2950


def _link_props_target(conn, tp: TablePlan, scratch: str, cols: Dict[str, int], types: PgTypes) -> _Target:
    """A single link's table (``linkprops``): its rows are copied into a scratch table, then one
    UPDATE sets the ``<link>@<prop>`` columns of the source rows (the source rows are loaded by
    then). Checked first: every row's source is an object of the type, whose link is the row's
    target (Gel keeps both; a single link is at most one row per source)."""
    names: List[str] = []
    defs: List[str] = []
    sources: List[int] = []
    codecs: List[Transcode] = []
    for cm in tp.columns:
        oid = _UUID_OID if cm.gel is None else cols.get(cm.column)
        if oid is None:
            raise GelDumpError("E0502", f"table {tp.table} has no column {cm.column}",
                               hint="apply the library's latest migrations first")
        names.append(cm.column)
        defs.append(f"{quote(cm.column)} {conn.execute('SELECT format_type(%s, NULL)', (oid,)).fetchone()[0]}")
        sources.append(cm.source)  # type: ignore[arg-type]
        codecs.append(transcoder(cm.gel, oid, types) if cm.gel is not None else None)
    conn.execute(f"CREATE TEMPORARY TABLE {scratch} ({', '.join(defs)}) ON COMMIT DROP")
    t = _Target(tp, f"COPY {scratch} ({', '.join(quote(n) for n in names)}) FROM STDIN (FORMAT BINARY)",
                sources, codecs, nfields=len(names), scratch=scratch, names=names)
    table = quote(tp.table)
    props = names[2:]
    t.array_sql = (f"UPDATE {table} AS t SET " + ", ".join(f"{quote(n)} = s.{quote(n)}" for n in props)
                   + f" FROM {scratch} AS s WHERE t.id = s.source_id") if props else ""
    t.checks.append((f"link {tp.label} of %s, which is not an object of its type in the dump",
                     f"SELECT s.source_id FROM {scratch} AS s WHERE NOT EXISTS (SELECT 1 FROM {table} AS t "
                     "WHERE t.id = s.source_id) LIMIT 1"))
    t.checks.append((f"single link {tp.label} of %s has several rows in the dump",
                     f"SELECT source_id FROM {scratch} GROUP BY source_id HAVING count(*) > 1 LIMIT 1"))
    if tp.array_column:
        t.checks.append((f"link {tp.label} of %s: its link table's target is not the object's link",
                         f"SELECT s.source_id FROM {scratch} AS s JOIN {table} AS t ON t.id = s.source_id "
                         f"WHERE t.{quote(tp.array_column)} IS DISTINCT FROM s.target_id LIMIT 1"))
    return t


def _staged_insert(t: "_Target", staging: Dict[str, str]) -> str:
    """The INSERT that moves a staged table's rows into its table, each polymorphic link's id
    into the column of the concrete table that holds that id (its staging table too, when that
    table is staged as well)."""
    poly = {cm.column: cm.poly for cm in t.plan.columns if cm.poly}
    poly_labels = {cm.column: cm.label for cm in t.plan.columns if cm.poly}
    into: List[str] = []
    values: List[str] = []
    for n in t.names:
        if n not in poly:
            into.append(quote(n))
            values.append(f"g.{quote(n)}")
            continue
        anywhere = []
        for table, column in poly[n]:
            found = f"EXISTS (SELECT 1 FROM {quote(table)} WHERE id = g.{quote(n)})"
            if table in staging:
                found += f" OR EXISTS (SELECT 1 FROM {staging[table]} WHERE id = g.{quote(n)})"
            into.append(quote(column))
            values.append(f"CASE WHEN {found} THEN g.{quote(n)} END")
            anywhere.append(f"({found})")
        link = poly_labels.get(n, n)
        t.checks.append((f"link {link} of an object holds %s, which is in none of its target tables "
                         f"({', '.join(tb for tb, _ in poly[n])})",
                         f"SELECT g.{quote(n)} FROM {t.scratch} AS g WHERE g.{quote(n)} IS NOT NULL AND NOT "
                         f"({' OR '.join(anywhere)}) LIMIT 1"))
    return f"INSERT INTO {quote(t.plan.table)} ({', '.join(into)}) SELECT {', '.join(values)} FROM {t.scratch} AS g"


def _check_empty(conn, tables: List[str]) -> None:
    full = [t for t in tables if conn.execute(f"SELECT EXISTS (SELECT 1 FROM {quote(t)})").fetchone()[0]]
    if full:
        raise GelDumpError("E0502", f"table{'s' if len(full) > 1 else ''} {', '.join(full)} already "
                           f"hold{'' if len(full) > 1 else 's'} rows; a dump is loaded into empty tables",
                           hint="load into a new database with the library's migrations applied (ids of the dump "
                           "would collide with the rows there)")


def _sequences(schema: Schema, tables: Dict[str, object]) -> Dict[str, List[Tuple[str, str]]]:
    """Sequence -> the (table, column) pairs that draw from it."""
    out: Dict[str, List[Tuple[str, str]]] = {}
    pattern = re.compile(r"^nextval\('(.*)'\)$")
    for obj in schema.types.values():
        if obj.library is not None or obj.qualname not in tables:
            continue
        for col in obj.columns:
            m = pattern.match(col.default_sql or "")
            if m:
                out.setdefault(m.group(1).replace("''", "'"), []).append((obj.table, col.name))
    return out


def _row_writer(target: _Target) -> Callable[[List[Optional[bytes]]], bytes]:
    head = _I16.pack(target.nfields)
    pairs = list(zip(target.sources, target.codecs))
    constants = target.constants
    pack = _I32.pack

    def encode(row: List[Optional[bytes]]) -> bytes:
        out = [head]
        for src, codec in pairs:
            v = row[src]
            if v is None:
                out.append(b"\xff\xff\xff\xff")
                continue
            if codec is not None:
                v = codec(v)
            out.append(pack(len(v)))
            out.append(v)
        if constants:
            out.append(constants)
        return b"".join(out)

    return encode


def _SentWriter(cur):  # noqa: N802 (a class, made on first use: psycopg is imported lazily)
    """A COPY writer (psycopg's documented ``writer=`` extension point,
    https://www.psycopg.org/psycopg3/docs/api/copy.html#writer-classes) that flushes each
    buffer to the server before it returns, so the client never holds more than one buffer:
    psycopg's default writer leaves the flush to libpq, whose output buffer, in non-blocking
    mode, grows to hold all the data the server has not read yet (measured: 61 -> 78 MB over
    2 M rows passed through unchanged, 150 MB over a 1 GB dump)."""
    from psycopg.copy import MAX_BUFFER_SIZE, LibpqWriter
    from psycopg.generators import copy_to

    class SentWriter(LibpqWriter):
        def write(self, data) -> None:
            for i in range(0, len(data), MAX_BUFFER_SIZE):
                self.connection.wait(copy_to(self._pgconn, data[i:i + MAX_BUFFER_SIZE], flush=True))

    return SentWriter(cur)


def load_dump(fh: BinaryIO, schema: Schema, conninfo: str, *, log: Callable[[str], None] = lambda s: None,
              dump_name: str = "dump", fail_after_rows: Optional[int] = None,
              skip_extension_objects: bool = False) -> Summary:
    """Load the dump read from ``fh`` into the database at ``conninfo`` (see the module doc).
    Raises :class:`GelDumpError`; the database is unchanged then. ``fail_after_rows`` (tests
    only) raises a failure once that many rows were copied, to prove the roll back.
    ``skip_extension_objects``: the objects of Gel extensions' types the library does not have
    (``ext::ai::ChatPrompt``, which the ``ai`` extension creates itself) are left out, counted in
    :attr:`Summary.skipped`, instead of refusing the dump."""
    try:
        reader = DumpReader(fh)
    except DumpFormatError as e:
        raise GelDumpError("E0500", f"{dump_name}: {e}") from None
    plan = make_plan(reader.header, schema)
    differences = plan.differences + check_multi_pointers(plan)
    if differences:
        raise GelDumpError("E0501", f"the schema of {dump_name} (Gel {reader.header.server_version.split('+')[0]}) "
                           f"differs from the library's in {len(differences)} place"
                           f"{'s' if len(differences) != 1 else ''}; nothing was written",
                           [_render_difference(d) for d in differences],
                           hint="make the library's schema the dump's (or migrate the Gel database to the "
                           "library's schema and dump it again)")
    import psycopg

    started = time.monotonic()
    summary = Summary()
    current: Optional[_Target] = None
    try:
        conn = psycopg.connect(conninfo)
    except psycopg.Error as e:
        raise GelDumpError("E0502", f"cannot connect to the database: {str(e).strip()}") from None
    try:
        with conn.transaction():
            types = PgTypes(conn)
            targets = _prepare(conn, plan, types)
            tables = sorted({t.plan.table for t in targets if t.plan.kind not in ("multiprop", "linkprops")})
            _check_empty(conn, tables)
            fks = _drop_check_constraints(conn, tables) + _drop_foreign_keys(conn, tables)
            for t in tables:
                conn.execute(f"ALTER TABLE {quote(t)} DISABLE TRIGGER USER")
            by_id = {t.plan.dump.id: t for t in targets}
            for t in targets:
                summary.counts[t.plan.label] = 0
            copy_cm = None
            copy = None
            buf = bytearray()
            type_started = time.monotonic()

            def finish() -> None:
                nonlocal copy_cm, copy, current
                if copy_cm is None:
                    return
                buf.extend(COPY_TRAILER)
                copy.write(buf)  # type: ignore[union-attr]
                buf.clear()
                copy_cm.__exit__(None, None, None)
                n = summary.counts[current.plan.label]  # type: ignore[union-attr]
                secs = max(time.monotonic() - type_started, 1e-6)
                log(f"import-gel-dump: {current.plan.label}: {n:,} rows ({n / secs:,.0f} rows/s)")  # type: ignore
                copy_cm = copy = current = None

            def start_copy(target: _Target) -> None:
                nonlocal copy_cm, copy, current, type_started
                finish()
                current = target
                type_started = time.monotonic()
                copy_cm = cur.copy(target.copy_sql, writer=_SentWriter(cur))
                copy = copy_cm.__enter__()
                buf.extend(COPY_SIGNATURE)

            def write(data: bytes) -> None:
                copy.write(data)  # type: ignore[union-attr]

            cur = conn.cursor()
            try:
                _stream(reader, plan, by_id, summary, dump_name, fail_after_rows, buf, start_copy, write, lambda: current,
                        log, skip_extension_objects)
            except BaseException:
                if copy_cm is not None:
                    copy_cm.__exit__(*sys.exc_info())
                    copy_cm = None
                raise
            finish()
            # (rows first, then arrays and single links' properties, which update them)
            for t in sorted(targets, key=lambda t: t.plan.kind in ("multiprop", "linkprops")):
                for message, query in t.checks:
                    bad = conn.execute(query).fetchone()
                    if bad is not None:
                        raise GelDumpError("E0503", (message % bad[0]) + "; the import was rolled back, nothing "
                                           "was written")
                if t.array_sql:
                    conn.execute(t.array_sql)
            for t in tables:
                conn.execute(f"ALTER TABLE {quote(t)} ENABLE TRIGGER USER")
            for rel, name, definition in fks:
                log(f"import-gel-dump: checking {name}")
                conn.execute(f"ALTER TABLE {rel} ADD CONSTRAINT {quote(name)} {definition}")
            for seq, cols in sorted(_sequences(schema, plan.types).items()):
                high = " UNION ALL ".join(f"SELECT max({quote(c)}) AS m FROM {quote(t)}" for t, c in cols)
                conn.execute(f"SELECT setval('{seq}', m) FROM (SELECT max(m) AS m FROM ({high}) AS h) AS s "
                             "WHERE m IS NOT NULL")
    except GelDumpError:
        raise
    except DumpFormatError as e:
        raise GelDumpError("E0500", f"{dump_name}: {e}; nothing was written") from None
    except psycopg.Error as e:
        where = f" while loading {current.plan.label}" if current is not None else ""
        raise GelDumpError("E0503", f"the database refused the data{where}: {_pg_message(e)}; "
                           "the import was rolled back, nothing was written") from None
    finally:
        conn.close()
    summary.seconds = time.monotonic() - started
    return summary


#: A progress line inside a type every this many rows.
PROGRESS_ROWS = 1_000_000


def _stream(reader, plan, by_id, summary, dump_name, fail_after_rows, buf, start_copy, write, current,
            log=lambda s: None, skip_extension_objects=False) -> None:
    """Every data block into its COPY (see :func:`load_dump`)."""
    total = 0
    encode = None
    plans = plan.by_id()
    for oid, _num, data in reader.blocks():
        target = by_id.get(oid)
        if target is None:
            rows = sum(1 for _ in copy_rows(copy_messages(data)))
            if rows:
                tp = plans.get(oid)
                extension = tp is not None and tp.kind == "skip" and _extension_type(tp.label)
                if extension and skip_extension_objects:
                    if tp.label not in summary.skipped:
                        log(f"import-gel-dump: {tp.label}: skipping the objects of an extension's type")
                    summary.skipped[tp.label] = summary.skipped.get(tp.label, 0) + rows
                    continue
                raise GelDumpError("E0501", f"{dump_name}: rows of {tp.label if tp else oid}, which the "
                                   "library has no table for; nothing was written",
                                   hint="they are objects of a Gel extension's type: pass "
                                   "--skip-extension-objects to load the dump without them" if extension else None)
            continue
        if target is not current():
            start_copy(target)
            encode = _row_writer(target)
        n = 0
        if target.identity:
            for chunk, rows in copy_chunks(copy_messages(data)):
                buf.extend(chunk)
                n += rows
                if len(buf) >= FLUSH_BYTES:
                    write(buf)
                    buf.clear()
        else:
            for row in copy_rows(copy_messages(data)):
                buf.extend(encode(row))  # type: ignore[misc]
                n += 1
                if len(buf) >= FLUSH_BYTES:
                    write(buf)
                    buf.clear()
        before = summary.counts[target.plan.label]
        summary.counts[target.plan.label] += n
        if (before + n) // PROGRESS_ROWS > before // PROGRESS_ROWS:
            log(f"import-gel-dump: {target.plan.label}: {before + n:,} rows so far")
        total += n
        if fail_after_rows is not None and total >= fail_after_rows:
            raise GelDumpError("E0503", f"stopped after {total} rows (a test's failure); the import was rolled "
                               "back, nothing was written")


def _pg_message(e) -> str:
    diag = getattr(e, "diag", None)
    parts = [str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__]
    if diag is not None:
        if diag.message_detail:
            parts.append(diag.message_detail)
        if diag.context:
            parts.append(diag.context.strip().splitlines()[0])
    return " (".join(parts[:1]) + (" (" + "; ".join(parts[1:]) + ")" if parts[1:] else "")


def _drop_check_constraints(conn, tables: List[str]) -> List[Tuple[str, str, str]]:
    """Drop the CHECK constraints of ``tables``; returns them to create again at the end (Postgres
    checks every row then). A row is whole only at the end: a required multi property's
    ``cardinality(...) > 0`` CHECK holds once its values are aggregated into the array column
    (Gel's dump01: ``required multi property p_bool``, every version), which the row's COPY
    writes empty."""
    rows = conn.execute(
        "SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c "
        "WHERE c.contype = 'c' AND c.conrelid = ANY(%(t)s::regclass[]) ORDER BY 1, 2",
        {"t": [quote(t) for t in tables]}).fetchall()
    for rel, name, _ in rows:
        conn.execute(f"ALTER TABLE {rel} DROP CONSTRAINT {quote(name)}")
    return [(r[0], r[1], r[2]) for r in rows]


def _drop_foreign_keys(conn, tables: List[str]) -> List[Tuple[str, str, str]]:
    """Drop the foreign keys from or to ``tables``; returns them to create again."""
    rows = conn.execute(
        "SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c "
        "WHERE c.contype = 'f' AND (c.conrelid = ANY(%(t)s::regclass[]) OR c.confrelid = ANY(%(t)s::regclass[])) "
        "ORDER BY 1, 2", {"t": [quote(t) for t in tables]}).fetchall()
    for rel, name, _ in rows:
        conn.execute(f"ALTER TABLE {rel} DROP CONSTRAINT {quote(name)}")
    return [(r[0], r[1], r[2]) for r in rows]


def _render_difference(d) -> str:
    if d.span is not None:
        return f"{d.span.file}:{d.span.line}:{d.span.col}: {d.message}"
    return d.message


def print_summary(summary: Summary, out=None) -> None:
    out = out or sys.stdout
    width = max((len(k) for k in [*summary.counts, *summary.skipped]), default=4)
    for label, n in summary.counts.items():
        print(f"  {label:<{width}}  {n:>12,}", file=out)
    for label, n in summary.skipped.items():
        print(f"  {label:<{width}}  {n:>12,}  (skipped: an extension's objects)", file=out)
    rate = summary.rows / summary.seconds if summary.seconds > 0 else 0.0
    print(f"{summary.rows:,} rows in {summary.seconds:.1f} s ({rate:,.0f} rows/s)", file=out)
