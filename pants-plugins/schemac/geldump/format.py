"""Reading a Gel dump file (what ``gel dump`` writes), as Gel documents it.

The file (docs/resources/protocol/dump_format.rst in geldata/gel):

* the marker ``\\xFF\\xD8\\x00\\x00\\xD8EDGEDB\\x00DUMP\\x00`` (17 bytes) and the format version
  (int64, 1);
* blocks, each ``mtype`` (``H`` header, ``D`` data), the SHA-1 of its data (20 bytes), its
  length (int32) and its data. (The page says the length counts itself; in the files Gel
  writes, and in its published test dumps from 1.4 to 6.0, it is the data's length alone, and
  the SHA-1 is of those bytes.)
* the header block: headers (int16 count of int16 key + length-prefixed value), the dump's
  protocol version (int16 major, minor), the schema's DDL, the schema objects' names
  (``TypeInfo``: name, class, id) and one ``ObjectDesc`` per dumped table: the schema object's id
  (an object type, a multi link or a multi property), the type descriptor of its rows and the
  ids of the objects it depends on;
* data blocks: headers 101 (``D``), 110 (the schema object's id), 111 (the block's number),
  112 (the data): the Postgres ``COPY ... TO STDOUT WITH BINARY`` stream of that object's
  table, as a sequence of CopyData messages (``d``, int32 length, payload), the first stripped
  of the COPY signature and its flags and header extension (8 bytes).

The type descriptors (docs/resources/protocol/typedesc.rst): protocol 2.0 and later (Gel 4+
dumps) prefix every descriptor with its int32 length and give every type its name and
ancestors; earlier protocols (EdgeDB 1.x-3.x dumps) use the 1.0 layout: base scalars (tag 2),
scalars naming their base (tag 3), names in annotation descriptors (tags 0x80-0xFF).

Values inside the data are in Postgres' binary ``send`` formats, which are also the encodings
of docs/resources/protocol/dataformats.rst for every scalar Gel has.

Nothing here reads a whole data section into memory: :meth:`DumpReader.blocks` yields one
block at a time and :func:`copy_rows` one row at a time.
"""

from __future__ import annotations

import hashlib
import struct
import uuid
from dataclasses import dataclass, field
from typing import BinaryIO, Dict, Iterator, List, Optional, Tuple

MAGIC = b"\xff\xd8\x00\x00\xd8EDGEDB\x00DUMP\x00"
FORMAT_VERSION = 1

#: Gel's fundamental scalar type ids (typedesc.rst, "Scalar Type Descriptor") -> the name.
FUNDAMENTAL: Dict[str, str] = {
    "00000000-0000-0000-0000-000000000100": "uuid",
    "00000000-0000-0000-0000-000000000101": "str",
    "00000000-0000-0000-0000-000000000102": "bytes",
    "00000000-0000-0000-0000-000000000103": "int16",
    "00000000-0000-0000-0000-000000000104": "int32",
    "00000000-0000-0000-0000-000000000105": "int64",
    "00000000-0000-0000-0000-000000000106": "float32",
    "00000000-0000-0000-0000-000000000107": "float64",
    "00000000-0000-0000-0000-000000000108": "decimal",
    "00000000-0000-0000-0000-000000000109": "bool",
    "00000000-0000-0000-0000-00000000010a": "datetime",
    "00000000-0000-0000-0000-00000000010b": "cal::local_datetime",
    "00000000-0000-0000-0000-00000000010c": "cal::local_date",
    "00000000-0000-0000-0000-00000000010d": "cal::local_time",
    "00000000-0000-0000-0000-00000000010e": "duration",
    "00000000-0000-0000-0000-00000000010f": "json",
    "00000000-0000-0000-0000-000000000110": "bigint",
    "00000000-0000-0000-0000-000000000111": "cal::relative_duration",
    "00000000-0000-0000-0000-000000000112": "cal::date_duration",
    "00000000-0000-0000-0000-000000000130": "cfg::memory",
}
FUNDAMENTAL_IDS = {v: k for k, v in FUNDAMENTAL.items()}
#: Scalars whose descriptor is a schema type of their own (no fundamental id): by name.
NAMED_SCALARS = {"std::sequence": "int64", "ext::pgvector::vector": "vector", "std::anyscalar": None}

_U16 = struct.Struct("!H")
_I16 = struct.Struct("!h")
_I32 = struct.Struct("!i")
_U32 = struct.Struct("!I")


class DumpFormatError(Exception):
    """The file is not a Gel dump this reader understands: what and where (byte offset)."""

    def __init__(self, message: str, offset: Optional[int] = None):
        super().__init__(message)
        self.message = message
        self.offset = offset

    def __str__(self) -> str:
        return self.message if self.offset is None else f"{self.message} (at byte {self.offset})"


# ----------------------------------------------------------------------------- descriptors
@dataclass
class GelType:
    """A resolved type descriptor. ``kind``: ``scalar`` (``base``: the fundamental scalar's
    name, ``name`` the schema type's), ``enum`` (``members``), ``array`` / ``range`` /
    ``multirange`` / ``set`` (``element``), ``tuple`` (``fields``: name or None, type),
    ``object`` (``name``), ``shape`` (``fields``: name, type; ``flags``/``cards`` per element)."""

    kind: str
    id: str
    name: Optional[str] = None
    base: Optional[str] = None
    element: Optional["GelType"] = None
    fields: List[Tuple[Optional[str], "GelType"]] = field(default_factory=list)
    members: Tuple[str, ...] = ()
    flags: List[int] = field(default_factory=list)
    shape_type: Optional["GelType"] = None

    def signature(self) -> str:
        """The type as Gel spells it, from fundamental types (custom scalars -> their base):
        what is compared with the library's column types."""
        if self.kind == "scalar":
            return self.base or self.name or "?"
        if self.kind == "enum":
            return f"enum {self.name or ''}".strip()
        if self.kind in ("array", "range", "multirange", "set"):
            return f"{self.kind}<{self.element.signature()}>"  # type: ignore[union-attr]
        if self.kind == "tuple":
            return "tuple<" + ", ".join(t.signature() if n is None else f"{n}: {t.signature()}"
                                        for n, t in self.fields) + ">"
        return self.name or self.kind


class _Buf:
    def __init__(self, data: bytes, base: int = 0):
        self.data = data
        self.pos = 0
        self.base = base

    def take(self, n: int) -> bytes:
        end = self.pos + n
        if end > len(self.data):
            raise DumpFormatError("truncated data", self.base + self.pos)
        out = self.data[self.pos:end]
        self.pos = end
        return out

    def u8(self) -> int:
        return self.take(1)[0]

    def u16(self) -> int:
        return _U16.unpack(self.take(2))[0]

    def i32(self) -> int:
        return _I32.unpack(self.take(4))[0]

    def u32(self) -> int:
        return _U32.unpack(self.take(4))[0]

    def uuid(self) -> str:
        return str(uuid.UUID(bytes=self.take(16)))

    def string(self) -> str:
        n = self.u32()
        raw = self.take(n)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise DumpFormatError("a string that is not UTF-8", self.base + self.pos - n) from None

    def done(self) -> bool:
        return self.pos >= len(self.data)


def parse_descriptor(data: bytes, protocol: Tuple[int, int], schema_names: Optional[Dict[str, str]] = None) -> GelType:
    """The type of the rows of one dumped table, from its descriptor blocks (the last block
    is the type itself; blocks refer to earlier ones by index). ``schema_names``: the header's
    type list (id -> name), which names the types the 1.0 descriptors of a dump leave unnamed
    (a scalar of an extension, ``ext::pgvector::vector``, is a base scalar of its own id there)."""
    buf = _Buf(data)
    raw: List[dict] = []
    names: Dict[str, str] = dict(schema_names or {})
    v2 = protocol >= (2, 0)
    while not buf.done():
        if v2:
            length = buf.u32()
            block = _Buf(buf.take(length), buf.pos - length)
        else:
            block = buf
        tag = block.u8()
        if 0x80 <= tag <= 0xFF and not (v2 and tag == 0x7F):
            if v2:  # (v2 annotations are tag 127; a tag >= 0x80 is unknown)
                raise DumpFormatError(f"unknown type descriptor tag {tag}", block.base)
            tid = block.uuid()
            names[tid] = block.string()
            continue
        if v2 and tag == 0x7F:  # type annotation text: nothing a load needs
            continue
        raw.append(_parse_one(block, tag, v2))
        if v2 and not block.done():
            raise DumpFormatError(f"descriptor tag {tag} longer than its fields", block.base + block.pos)
    if not raw:
        raise DumpFormatError("empty type descriptor")
    built: List[GelType] = []
    for d in raw:
        built.append(_build(d, built, names))
    return built[-1]


def _parse_one(b: _Buf, tag: int, v2: bool) -> dict:
    tid = b.uuid()
    d: dict = {"tag": tag, "id": tid}
    if tag == 0:  # set
        d["type"] = b.u16()
        return d
    if tag in (1, 8):  # object (output / input) shape
        if v2 and tag == 1:
            d["ephemeral"] = b.u8()
            d["type"] = b.u16()
        els = []
        for _ in range(b.u16()):
            flags = b.u32()
            card = b.u8()
            name = b.string()
            t = b.u16()
            source = b.u16() if v2 and tag == 1 else None
            els.append((flags, card, name, t, source))
        d["elements"] = els
        return d
    if tag == 2 and not v2:  # base scalar
        return d
    if tag == 13 and v2:  # SQL record
        d["elements"] = [(0, 0, b.string(), b.u16(), None) for _ in range(b.u16())]
        return d
    if v2 and tag in (3, 4, 5, 6, 7, 9, 10, 11, 12):
        d["name"] = b.string()
        d["schema_defined"] = b.u8()
        if tag in (10,):
            return d
        if tag == 11:
            d["op"] = b.u8()
            d["components"] = [b.u16() for _ in range(b.u16())]
            return d
        d["ancestors"] = [b.u16() for _ in range(b.u16())]
    if tag == 3:
        if not v2:
            d["base"] = b.u16()
        return d
    if tag == 4:
        d["types"] = [b.u16() for _ in range(b.u16())]
        return d
    if tag == 5:
        d["elements"] = [(b.string(), b.u16()) for _ in range(b.u16())]
        return d
    if tag == 6:
        d["type"] = b.u16()
        d["dims"] = [b.i32() for _ in range(b.u16())]
        return d
    if tag == 7:
        d["members"] = tuple(b.string() for _ in range(b.u16()))
        return d
    if tag in (9, 12):
        d["type"] = b.u16()
        return d
    raise DumpFormatError(f"unknown type descriptor tag {tag}", b.base + b.pos)


def _build(d: dict, built: List[GelType], names: Dict[str, str]) -> GelType:
    tag, tid = d["tag"], d["id"]

    def ref(i: int) -> GelType:
        if i >= len(built):
            raise DumpFormatError(f"type descriptor refers to block {i} before it is described")
        return built[i]

    name = d.get("name") or names.get(tid)
    if tag in (2, 3):
        base = FUNDAMENTAL.get(tid)
        if base is None and "base" in d:
            base = ref(d["base"]).base
        for i in d.get("ancestors", ()):  # v2: ancestors, nearest first; the last is fundamental
            a = ref(i)
            base = FUNDAMENTAL.get(a.id) or NAMED_SCALARS.get(a.name or "") or base
        if base is None:
            base = NAMED_SCALARS.get(name or "")
        if base is None and name is not None and name.startswith("ext::pgvector::"):
            base = "vector"
        return GelType("scalar", tid, name=name, base=base or name)
    if tag == 7:
        return GelType("enum", tid, name=name, members=d["members"])
    if tag == 4:
        return GelType("tuple", tid, name=name, fields=[(None, ref(i)) for i in d["types"]])
    if tag == 5:
        return GelType("tuple", tid, name=name, fields=[(n, ref(i)) for n, i in d["elements"]])
    if tag == 6:
        return GelType("array", tid, name=name, element=ref(d["type"]))
    if tag == 9:
        return GelType("range", tid, name=name, element=ref(d["type"]))
    if tag == 12:
        return GelType("multirange", tid, name=name, element=ref(d["type"]))
    if tag == 0:
        return GelType("set", tid, element=ref(d["type"]))
    if tag == 10:
        return GelType("object", tid, name=name)
    if tag == 11:
        return GelType("object", tid, name=name)
    # shapes
    fields = []
    flags = []
    for fl, _card, n, t, _src in d["elements"]:
        fields.append((n, ref(t)))
        flags.append(fl)
    shape_type = ref(d["type"]) if d.get("type") is not None and not d.get("ephemeral") else None
    return GelType("shape", tid, fields=fields, flags=flags, shape_type=shape_type)


#: Shape element flags (typedesc.rst, ShapeElement).
FLAG_IMPLICIT = 1
FLAG_LINK_PROPERTY = 2
FLAG_LINK = 4


# ----------------------------------------------------------------------------- the file
@dataclass
class TableDesc:
    """One dumped table: the schema object (``id``, its ``name`` from the header's type list,
    ``cls``: ``ObjectType``, ``Link``, ``Property``), the type of its rows and the columns of its
    COPY stream (the row type's element names, in order)."""

    id: str
    name: str
    cls: str
    rowtype: GelType
    deps: Tuple[str, ...]

    @property
    def columns(self) -> List[Tuple[str, GelType]]:
        return [(n or "", t) for n, t in self.rowtype.fields]


@dataclass
class DumpHeader:
    protocol: Tuple[int, int]
    server_version: str
    schema_ddl: str
    types: List[Tuple[str, str, str]]
    tables: List[TableDesc]
    catalog_version: Optional[int] = None

    def table(self, object_id: str) -> Optional[TableDesc]:
        for t in self.tables:
            if t.id == object_id:
                return t
        return None


def _table_class(rowtype: GelType) -> str:
    """What a dumped table holds, from its row type (the header's type list gives user types no
    class): an object shape is an object type's table; a named tuple with a ``target`` a
    pointer's: a link's when the target is an object, else a multi property's."""
    if rowtype.kind == "shape":
        return "ObjectType"
    target = next((t for n, t in rowtype.fields if n == "target"), None)
    if target is not None and target.kind in ("shape", "object"):
        return "Link"
    return "Property"


def _headers(b: _Buf) -> Dict[int, bytes]:
    out: Dict[int, bytes] = {}
    for _ in range(b.u16()):
        key = b.u16()
        out[key] = b.take(b.u32())
    return out


class DumpReader:
    """A Gel dump file opened for reading: :attr:`header` at once, then :meth:`blocks`."""

    def __init__(self, fh: BinaryIO, verify: bool = True):
        self.fh = fh
        self.verify = verify
        self.offset = 0
        head = self._read(len(MAGIC) + 8)
        if head[:len(MAGIC)] != MAGIC:
            raise DumpFormatError("not a Gel dump file (its first bytes are not the dump marker)", 0)
        version = struct.unpack("!q", head[len(MAGIC):])[0]
        if version != FORMAT_VERSION:
            raise DumpFormatError(f"dump format version {version}; this reader knows version {FORMAT_VERSION}",
                                  len(MAGIC))
        block = self._next_block()
        if block is None or block[0] != b"H":
            raise DumpFormatError("the dump has no header block", self.offset)
        self.header = self._parse_header(block[1], block[2])

    def _read(self, n: int) -> bytes:
        data = self.fh.read(n)
        if len(data) != n:
            raise DumpFormatError(f"the file ends inside a block ({len(data)} of {n} bytes)", self.offset)
        self.offset += n
        return data

    def _next_block(self) -> Optional[Tuple[bytes, bytes, int]]:
        first = self.fh.read(1)
        if not first:
            return None
        start = self.offset
        self.offset += 1
        digest = self._read(20)
        length = _I32.unpack(self._read(4))[0]
        if length < 0:
            raise DumpFormatError(f"block length {length}", start + 21)
        data = self._read(length)
        if self.verify and hashlib.sha1(data).digest() != digest:
            raise DumpFormatError("block checksum (SHA-1) does not match: the file is damaged", start)
        return first, data, start + 25

    def _parse_header(self, data: bytes, base: int) -> DumpHeader:
        b = _Buf(data, base)
        headers = _headers(b)
        major, minor = b.u16(), b.u16()
        ddl = b.string()
        types = []
        for _ in range(b.u32()):
            name = b.string()
            cls = b.string()
            types.append((name, cls, str(uuid.UUID(bytes=b.take(16)))))
        by_id = {tid: (name, cls) for name, cls, tid in types}
        tables = []
        for _ in range(b.u32()):
            oid = str(uuid.UUID(bytes=b.take(16)))
            desc = b.take(b.u32())
            deps = tuple(str(uuid.UUID(bytes=b.take(16))) for _ in range(b.u16()))
            try:
                rowtype = parse_descriptor(desc, (major, minor), {tid: name for tid, (name, _) in by_id.items()})
            except DumpFormatError as e:
                name = by_id.get(oid, (oid, ""))[0]
                raise DumpFormatError(f"type descriptor of {name}: {e.message}", base + b.pos) from None
            name = by_id.get(oid, (oid, ""))[0]
            tables.append(TableDesc(oid, name, _table_class(rowtype), rowtype, deps))
        version = headers.get(103, b"").decode("utf-8", "replace")
        catalog = headers.get(105)
        return DumpHeader((major, minor), version, ddl, types, tables,
                          struct.unpack("!q", catalog)[0] if catalog and len(catalog) == 8 else None)

    def blocks(self) -> Iterator[Tuple[str, int, bytes]]:
        """``(schema object id, block number, COPY data)`` of each data block, in file order."""
        while True:
            block = self._next_block()
            if block is None:
                return
            mtype, data, base = block
            if mtype != b"D":
                raise DumpFormatError(f"unexpected block type {mtype!r}", base - 25)
            b = _Buf(data, base)
            headers = _headers(b)
            try:
                oid = str(uuid.UUID(bytes=headers[110]))
                num = int(headers[111].decode("ascii"))
                payload = headers[112]
            except (KeyError, ValueError):
                raise DumpFormatError("data block without its id, number or data", base) from None
            yield oid, num, payload


# ----------------------------------------------------------------------------- COPY data
def copy_messages(payload: bytes) -> Iterator[memoryview]:
    """The CopyData payloads of a block's data."""
    view = memoryview(payload)
    pos, end = 0, len(view)
    while pos < end:
        if view[pos] != 0x64:  # 'd'
            raise DumpFormatError(f"expected a CopyData message, got {bytes(view[pos:pos + 1])!r}")
        n = _I32.unpack_from(view, pos + 1)[0]
        yield view[pos + 5:pos + 1 + n]
        pos += 1 + n


def copy_rows(payloads: Iterator[memoryview]) -> Iterator[Optional[List[Optional[bytes]]]]:
    """Rows of a binary COPY stream (its signature already stripped): each a list of field
    values (bytes, ``None`` for NULL). Rows may span messages; the trailer (-1) ends it."""
    pending = b""
    for msg in payloads:
        data = pending + bytes(msg) if pending else bytes(msg)
        pos, end = 0, len(data)
        while True:
            if end - pos < 2:
                break
            nf = _I16.unpack_from(data, pos)[0]
            if nf == -1:
                return
            p = pos + 2
            row: List[Optional[bytes]] = []
            ok = True
            for _ in range(nf):
                if end - p < 4:
                    ok = False
                    break
                n = _I32.unpack_from(data, p)[0]
                p += 4
                if n < 0:
                    row.append(None)
                    continue
                if end - p < n:
                    ok = False
                    break
                row.append(data[p:p + n])
                p += n
            if not ok:
                break
            yield row
            pos = p
        pending = data[pos:]
    if pending:
        raise DumpFormatError("COPY data ends inside a row")


def copy_chunks(payloads: Iterator[memoryview]) -> Iterator[Tuple[bytes, int]]:
    """The rows of a binary COPY stream as they are: ``(bytes of whole rows, how many)`` per
    message (a row split over messages is carried to the next), the trailer left out. For a
    table whose rows go to the target unchanged: only the field lengths are read."""
    pending = b""
    unpack_h = _I16.unpack_from
    unpack_i = _I32.unpack_from
    for msg in payloads:
        data = pending + bytes(msg) if pending else bytes(msg)
        pos, end = 0, len(data)
        rows = 0
        done = False
        while end - pos >= 2:
            nf = unpack_h(data, pos)[0]
            if nf == -1:
                done = True
                break
            p = pos + 2
            for _ in range(nf):
                if end - p < 4:
                    p = -1
                    break
                n = unpack_i(data, p)[0]
                p += 4 + (n if n > 0 else 0)
                if p > end:
                    p = -1
                    break
            if p < 0:
                break
            pos = p
            rows += 1
        if rows:
            yield data[:pos], rows
        if done:
            return
        pending = data[pos:]
    if pending:
        raise DumpFormatError("COPY data ends inside a row")
