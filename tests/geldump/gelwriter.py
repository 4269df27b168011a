"""A writer of Gel dump files, written from Gel's documentation alone (geldata/gel
docs/resources/protocol/dump_format.rst, typedesc.rst, dataformats.rst), for the round trips of
``schemac import-gel-dump``: the tests describe types and rows in Python, this writes the file
Gel would (header block with the type descriptors of each table, data blocks holding the
Postgres binary COPY stream of each table), the importer loads it, and the tests read the rows
back from Postgres.

Both descriptor protocols are written: 2.0+ (Gel 4 and later: each descriptor prefixed with its
length, every type named, scalars with their ancestors) and 1.0 / 0.13 (EdgeDB 1.x-3.x: base
scalars, scalars naming their base, names in annotation descriptors).

Values are encoded as dataformats.rst (and Postgres' binary send functions) say: integers and
floats big-endian, datetimes microseconds since 2000-01-01, dates days since then, durations
(microseconds, days, months), json with its format byte, decimals as Postgres numerics (base
10000 digits), arrays with dimensions and an element type OID, tuples as records (an OID per
element), ranges with their flags byte. The OIDs written inside arrays and tuples are made up
(as Gel's database's own would be to the target): the importer must replace them.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import json
import struct
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

MAGIC = b"\xff\xd8\x00\x00\xd8EDGEDB\x00DUMP\x00"
FUNDAMENTAL = {
    "uuid": 0x100, "str": 0x101, "bytes": 0x102, "int16": 0x103, "int32": 0x104, "int64": 0x105,
    "float32": 0x106, "float64": 0x107, "decimal": 0x108, "bool": 0x109, "datetime": 0x10A,
    "cal::local_datetime": 0x10B, "cal::local_date": 0x10C, "cal::local_time": 0x10D, "duration": 0x10E,
    "json": 0x10F, "bigint": 0x110, "cal::relative_duration": 0x111, "cal::date_duration": 0x112,
}
EPOCH = dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)
EPOCH_DATE = dt.date(2000, 1, 1)
FAKE_OID = 987654  # an OID of "Gel's database" that the target does not have

FLAG_LINK = 4


def fid(n: int) -> uuid.UUID:
    return uuid.UUID(int=n)


# ----------------------------------------------------------------------------- types
@dataclass(frozen=True)
class T:
    """A type to describe and encode: ``kind`` scalar (``name``: a fundamental scalar, or
    ``base`` for a custom one), enum, array, tuple, range, object (a link target), vector."""

    kind: str
    name: str = ""
    base: str = ""
    members: Tuple[str, ...] = ()
    element: Optional["T"] = None
    fields: Tuple[Tuple[Optional[str], "T"], ...] = ()


def scalar(name: str) -> T:
    return T("scalar", name=name)


def custom(name: str, base: str) -> T:
    return T("scalar", name=name, base=base)


def enum(name: str, *members: str) -> T:
    return T("enum", name=name, members=members)


def array(t: T) -> T:
    return T("array", element=t)


def tup(*fields: Any) -> T:
    """``tup(A, B)`` or ``tup(("x", A), ("y", B))``."""
    return T("tuple", fields=tuple(f if isinstance(f, tuple) else (None, f) for f in fields))


def rng(t: T) -> T:
    return T("range", element=t)


def obj(name: str) -> T:
    return T("object", name=name)


VECTOR = T("vector", name="ext::pgvector::vector")


def type_id(t: T) -> uuid.UUID:
    if t.kind == "scalar" and not t.base:
        return fid(FUNDAMENTAL[t.name])
    return uuid.uuid5(uuid.NAMESPACE_URL, "gelwriter:" + repr(t))


class _Descriptors:
    def __init__(self, v2: bool):
        self.v2 = v2
        self.blocks: List[bytes] = []
        self.index: Dict[Any, int] = {}
        self.annotations: List[bytes] = []

    def add(self, key: Any, body: bytes) -> int:
        if key in self.index:
            return self.index[key]
        self.blocks.append(struct.pack("!I", len(body)) + body if self.v2 else body)
        self.index[key] = len(self.blocks) - 1
        return self.index[key]

    def named(self, tag: int, tid: uuid.UUID, name: str, ancestors: Sequence[int] = ()) -> bytes:
        out = bytes([tag]) + tid.bytes
        if self.v2:
            out += _s(name) + b"\x01" + struct.pack("!H", len(ancestors)) + b"".join(struct.pack("!H", a)
                                                                                      for a in ancestors)
        return out

    def describe(self, t: T) -> int:
        tid = type_id(t)
        if t.kind == "scalar":
            if not t.base:
                if self.v2:
                    return self.add(tid, self.named(3, tid, "std::" + t.name if "::" not in t.name else t.name))
                return self.add(tid, b"\x02" + tid.bytes)
            base = self.describe(scalar(t.base))
            if self.v2:
                return self.add(tid, self.named(3, tid, t.name, [base]))
            i = self.add(tid, b"\x03" + tid.bytes + struct.pack("!H", base))
            self._annotate(tid, t.name)
            return i
        if t.kind == "enum":
            body = self.named(7, tid, t.name) + struct.pack("!H", len(t.members)) + b"".join(_s(m) for m in t.members)
            i = self.add(tid, body)
            if not self.v2:
                self._annotate(tid, t.name)
            return i
        if t.kind == "array":
            el = self.describe(t.element)  # type: ignore[arg-type]
            return self.add(tid, self.named(6, tid, f"array<{t.element}>") + struct.pack("!HHi", el, 1, -1))
        if t.kind == "range":
            el = self.describe(t.element)  # type: ignore[arg-type]
            return self.add(tid, self.named(9, tid, "range") + struct.pack("!H", el))
        if t.kind == "tuple":
            els = [(n, self.describe(ft)) for n, ft in t.fields]
            if all(n is None for n, _ in els):
                return self.add(tid, self.named(4, tid, "tuple") + struct.pack("!H", len(els))
                                + b"".join(struct.pack("!H", i) for _, i in els))
            return self.add(tid, self.named(5, tid, "tuple") + struct.pack("!H", len(els))
                            + b"".join(_s(n or "") + struct.pack("!H", i) for n, i in els))
        if t.kind == "object":  # a link's target, as Gel describes it in a link table: a shape
            ident = self.describe(scalar("uuid"))
            return self.shape(tid, t.name, [("id", scalar("uuid"), 1)], pre=[ident])
        if t.kind == "vector":
            if self.v2:
                return self.add(tid, self.named(3, tid, "ext::pgvector::vector"))
            # 1.0: a base scalar of its own id, named only by the header's type list
            return self.add(tid, b"\x02" + tid.bytes)
        raise ValueError(t.kind)

    def _annotate(self, tid: uuid.UUID, name: str) -> None:
        self.annotations.append(b"\xff" + tid.bytes + _s(name))

    def shape(self, tid: uuid.UUID, type_name: str, elements: List[Tuple[str, T, int]], pre: Sequence[int] = ()) -> int:
        idx = [self.describe(t) for _, t, _ in elements]
        out = b"\x01" + uuid.uuid5(tid, "shape").bytes
        if self.v2:
            ot = self.add(("objtype", tid), b"\x0a" + tid.bytes + _s(type_name) + b"\x01")
            out += b"\x00" + struct.pack("!H", ot)
        out += struct.pack("!H", len(elements))
        for (name, _t, flags), i in zip(elements, idx):
            out += struct.pack("!IB", flags, 0x6F) + _s(name) + struct.pack("!H", i)
            if self.v2:
                out += struct.pack("!H", self.index[("objtype", tid)])
        return self.add(("shape", tid, tuple(n for n, _, _ in elements)), out)

    def data(self) -> bytes:
        return b"".join(self.blocks) + (b"".join(self.annotations) if not self.v2 else b"")


def _s(text: str) -> bytes:
    raw = text.encode("utf-8")
    return struct.pack("!I", len(raw)) + raw


# ----------------------------------------------------------------------------- values
def encode(t: T, v: Any) -> bytes:
    """One value in its binary form (dataformats.rst / Postgres' send functions)."""
    name = t.base or t.name
    if t.kind == "enum":
        return v.encode("utf-8")
    if t.kind == "object":
        return v.bytes
    if t.kind == "vector":
        return struct.pack("!hh", len(v), 0) + b"".join(struct.pack("!f", x) for x in v)
    if t.kind == "array":
        out = struct.pack("!iiI", 1 if v else 0, 0, FAKE_OID)
        if v:
            out += struct.pack("!ii", len(v), 1)
        for x in v:
            out += _field(t.element, x)  # type: ignore[arg-type]
        return out
    if t.kind == "tuple":
        out = struct.pack("!i", len(t.fields))
        for (_, ft), x in zip(t.fields, v):
            out += struct.pack("!I", FAKE_OID) + _field(ft, x)
        return out
    if t.kind == "range":
        lower, upper, inc_lower, inc_upper = v
        flags = (0x02 if inc_lower else 0) | (0x04 if inc_upper else 0) | (0x08 if lower is None else 0) \
            | (0x10 if upper is None else 0)
        out = bytes([flags])
        for b in (lower, upper):
            if b is not None:
                out += _field(t.element, b)  # type: ignore[arg-type]
        return out
    if name in ("str",):
        return v.encode("utf-8")
    if name == "bytes":
        return bytes(v)
    if name == "uuid":
        return v.bytes
    if name in ("int16", "int32", "int64"):
        return struct.pack({"int16": "!h", "int32": "!i", "int64": "!q"}[name], v)
    if name == "float32":
        return struct.pack("!f", v)
    if name == "float64":
        return struct.pack("!d", v)
    if name == "bool":
        return b"\x01" if v else b"\x00"
    if name == "json":
        return b"\x01" + json.dumps(v).encode("utf-8")
    if name == "datetime":
        return struct.pack("!q", _micros(v - EPOCH))
    if name == "cal::local_datetime":
        return struct.pack("!q", _micros(v - EPOCH.replace(tzinfo=None)))
    if name == "cal::local_date":
        return struct.pack("!i", (v - EPOCH_DATE).days)
    if name == "cal::local_time":
        return struct.pack("!q", ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond)
    if name in ("duration", "cal::relative_duration", "cal::date_duration"):
        micros, days, months = v
        return struct.pack("!qii", micros, days, months)
    if name in ("decimal", "bigint"):
        return _numeric(decimal.Decimal(v))
    raise ValueError(name)


def _micros(delta: dt.timedelta) -> int:
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def _numeric(d: decimal.Decimal) -> bytes:
    """Postgres' numeric binary form: digit count, weight (base-10000 exponent of the first
    digit), sign, display scale, then the base-10000 digits."""
    sign, digits, exp = d.as_tuple()
    dscale = max(0, -exp)  # type: ignore[operator]
    text = "".join(map(str, digits))
    int_len = len(text) + exp  # digits before the point  # type: ignore[operator]
    if int_len > 0:
        ip, fp = text[:int_len], text[int_len:]
    else:
        ip, fp = "", "0" * (-int_len) + text
    ip = ip.lstrip("0")
    pad_i = (-len(ip)) % 4
    ip = "0" * pad_i + ip
    fp = fp + "0" * ((-len(fp)) % 4)
    groups = [int(ip[i:i + 4]) for i in range(0, len(ip), 4)] + [int(fp[i:i + 4]) for i in range(0, len(fp), 4)]
    weight = len(ip) // 4 - 1
    while groups and groups[0] == 0:
        groups.pop(0)
        weight -= 1
    while groups and groups[-1] == 0:
        groups.pop()
    if not groups:
        weight = 0
    return struct.pack("!hhHH", len(groups), weight, 0x4000 if sign else 0, dscale) + \
        b"".join(struct.pack("!H", g) for g in groups)


def _field(t: T, v: Any) -> bytes:
    if v is None:
        return b"\xff\xff\xff\xff"
    data = encode(t, v)
    return struct.pack("!i", len(data)) + data


# ----------------------------------------------------------------------------- the file
@dataclass
class Table:
    """One dumped table: an object type (``columns``: name, type, flags; ``id`` first as Gel
    writes it) or a pointer table (``pointer_of``: the owner type's name; named tuple rows:
    ``source``, ``target``, link properties)."""

    name: str
    columns: List[Tuple[str, T, int]]
    rows: Iterable[Sequence[Any]]
    pointer_of: Optional[str] = None
    id: uuid.UUID = field(default_factory=uuid.uuid4)


def object_table(name: str, columns: List[Tuple[str, T]], rows: Iterable[Sequence[Any]], links: Sequence[str] = ()) -> Table:
    cols = [(n, t, FLAG_LINK if n in links else 0) for n, t in columns]
    return Table(name, cols, rows)


def pointer_table(owner: str, pointer: str, target: T, rows: Iterable[Sequence[Any]],
                  props: Sequence[Tuple[str, T]] = (), module: str = "default", target_first: bool = False) -> Table:
    """A pointer's table; its rows are (source, target, props...) whatever ``target_first`` (which
    writes the columns as Gel 1.4-6.0 do for a link: ``target``, ``source``, then the properties)."""
    short = owner.split("::")[-1]
    src_module = owner.rsplit("::", 1)[0]
    ends = [("source", obj(owner), 0), ("target", target, 0)]
    cols = (ends[::-1] if target_first else ends) + [(n, t, 0) for n, t in props]
    if target_first:
        rows = ((r[1], r[0], *r[2:]) for r in rows)
    return Table(f"{module}::__|{pointer}@{src_module}|{short}", cols, rows, pointer_of=owner)


def _describe_table(t: Table, v2: bool) -> bytes:
    d = _Descriptors(v2)
    if t.pointer_of is None:
        d.shape(uuid.uuid5(t.id, "type"), t.name, t.columns)
    else:
        idx = [(n, d.describe(ct)) for n, ct, _ in t.columns]
        tid = uuid.uuid5(t.id, "tuple")
        body = d.named(5, tid, "tuple") + struct.pack("!H", len(idx)) + b"".join(_s(n) + struct.pack("!H", i)
                                                                              for n, i in idx)
        d.add(tid, body)
    return d.data()


def _block(mtype: bytes, data: bytes) -> bytes:
    return mtype + hashlib.sha1(data).digest() + struct.pack("!i", len(data)) + data


def _headers(items: List[Tuple[int, bytes]]) -> bytes:
    return struct.pack("!H", len(items)) + b"".join(struct.pack("!HI", k, len(v)) + v for k, v in items)


def write_dump(path: str, tables: List[Table], protocol: Tuple[int, int] = (3, 0), rows_per_block: int = 1000,
               schema_ddl: str = "", server_version: str = "6.0+test") -> None:
    """Write ``tables`` as a Gel dump file at ``path``, streaming the rows (a table's rows may be
    a generator: the file is written block by block)."""
    v2 = protocol >= (2, 0)
    deps: Dict[str, List[uuid.UUID]] = {}
    for t in tables:
        if t.pointer_of is not None:
            deps.setdefault(t.pointer_of, []).append(t.id)
    header = _headers([(101, b"I"), (103, server_version.encode()), (105, struct.pack("!q", 202412130000)),
                       (102, b"1700000000")])
    header += struct.pack("!HH", *protocol) + _s(schema_ddl)
    names = [(t.name, t.id) for t in tables] + [("ext::pgvector::vector", type_id(VECTOR))]
    header += struct.pack("!I", len(names)) + b"".join(_s(n) + _s("") + i.bytes for n, i in names)
    header += struct.pack("!I", len(tables))
    for t in tables:
        desc = _describe_table(t, v2)
        dep_ids = deps.get(t.name, []) if t.pointer_of is None else []
        header += t.id.bytes + struct.pack("!I", len(desc)) + desc + struct.pack("!H", len(dep_ids)) + \
            b"".join(d.bytes for d in dep_ids)
    with open(path, "wb") as fh:
        fh.write(MAGIC + struct.pack("!q", 1))
        fh.write(_block(b"H", header))
        for t in tables:
            num = 0
            messages: List[bytes] = []
            count = 0
            for row in t.rows:
                payload = struct.pack("!h", len(t.columns)) + b"".join(_field(ct, v) for (_, ct, _), v in zip(t.columns, row))
                messages.append(b"d" + struct.pack("!i", len(payload) + 4) + payload)
                count += 1
                if count == rows_per_block:
                    fh.write(_data_block(t, num, messages))
                    num += 1
                    messages = []
                    count = 0
            messages.append(b"d" + struct.pack("!i", 6) + struct.pack("!h", -1))
            fh.write(_data_block(t, num, messages))


def _data_block(t: Table, num: int, messages: List[bytes]) -> bytes:
    data = _headers([(101, b"D"), (110, t.id.bytes), (111, str(num).encode()), (112, b"".join(messages))])
    return _block(b"D", data)
