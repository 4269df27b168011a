"""The catalog: what a library's schema is in Postgres, as plain data, and its snapshot file.

A :class:`Catalog` is built from the resolved :class:`~schemac.semantics.model.Schema` by
:func:`catalog_of`. It holds only what the database sees (tables, columns, constraints,
indexes, comments) plus the schema names each table and column came from (``origin``,
``pointer``), which is what lets the diff engine follow a declared rename.

Serialised with :func:`dump_snapshot` it is the committed snapshot
(``migrations/snapshot.json``): canonical JSON (sorted keys, two-space indent, ``\\n`` line
ends), so the same schema always gives the same bytes.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional, Tuple

from schemac.semantics.model import ObjectType, Schema
from schemac.frozen import fast_init_all

#: Version of the snapshot format; bumped when its meaning changes.
SNAPSHOT_FORMAT = 1


@dataclass(frozen=True)
class ColumnDef:
    """A column. ``pointer``: the property or link it stores (``author`` for ``author_id``);
    ``enum``: qualified name of the enum of its values (also for arrays of an enum)."""

    name: str
    type: str
    nullable: bool
    default: Optional[str] = None
    pointer: Optional[str] = None
    enum: Optional[str] = None
    array: bool = False
    comment: Optional[str] = None


@dataclass(frozen=True)
class CheckDef:
    name: str
    expression: str


@dataclass(frozen=True)
class UniqueDef:
    """A UNIQUE constraint (``predicate`` is ``None``, no ``keys``) or a unique index: partial
    (``predicate``) or on expressions (``keys``: the SQL of every key, ``columns`` the columns
    they read)."""

    name: str
    columns: Tuple[str, ...]
    predicate: Optional[str] = None
    keys: Tuple[str, ...] = ()

    @property
    def is_index(self) -> bool:
        """Created as a unique index (a table's UNIQUE constraint has neither a predicate nor
        expressions)."""
        return self.predicate is not None or bool(self.keys)


@dataclass(frozen=True)
class IndexDef:
    """An index; ``storage``: its storage parameters (``lists = 100``), or ``None``."""

    name: str
    keys: Tuple[str, ...]
    method: str = "btree"
    predicate: Optional[str] = None
    comment: Optional[str] = None
    storage: Optional[str] = None


@dataclass(frozen=True)
class ForeignKeyDef:
    name: str
    column: str
    target: str
    on_delete: str


@dataclass(frozen=True)
class TriggerDef:
    """A trigger and its own PL/pgSQL function (see :class:`schemac.semantics.model.Trigger`)."""

    name: str
    function: str
    timing: str
    events: Tuple[str, ...]
    level: str
    body: str
    #: The ``WHEN`` condition (absent from the snapshot when ``None``).
    when: Optional[str] = None


@dataclass(frozen=True)
class TableDef:
    """One table. ``origin``: the object type it stores (``default::Job``) or, for the join
    table of a multi link, ``default::Post.tags``."""

    name: str
    origin: str
    columns: Tuple[ColumnDef, ...]
    primary_key: Tuple[str, ...]
    checks: Tuple[CheckDef, ...] = ()
    uniques: Tuple[UniqueDef, ...] = ()
    foreign_keys: Tuple[ForeignKeyDef, ...] = ()
    indexes: Tuple[IndexDef, ...] = ()
    comment: Optional[str] = None
    triggers: Tuple[TriggerDef, ...] = ()

    def column(self, name: str) -> Optional[ColumnDef]:
        return next((c for c in self.columns if c.name == name), None)


@dataclass(frozen=True)
class Catalog:
    """Every table of a library (creation order), its enums (``{qualname: members}``) and the
    Postgres extensions it uses (``using extension``; sorted)."""

    tables: Tuple[TableDef, ...] = ()
    enums: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    extensions: Tuple[str, ...] = ()
    #: Sequences of sequence scalars (``scalar type N extending sequence``), sorted.
    sequences: Tuple[str, ...] = ()
    #: Composite types of tuple properties (https://docs.geldata.com/reference/stdlib/tuple):
    #: ``(name, ((attribute, type), ...))`` in creation order (a tuple's element tuples first).
    composites: Tuple[Tuple[str, Tuple[Tuple[str, str], ...]], ...] = ()
    #: schemac's own functions the queries call (:data:`schemac.pgsql.policies.RAISE_FUNCTION`
    #: once a type has access policies), sorted.
    functions: Tuple[str, ...] = ()

    def table(self, name: str) -> Optional[TableDef]:
        return next((t for t in self.tables if t.name == name), None)


def origin_of(t: ObjectType) -> str:
    """What a table stores: the type's qualified name, or ``<type>.<link>`` for the join table
    of a multi link (``default::Post.tags``)."""
    return f"{t.join_of[0]}.{t.join_of[1]}" if t.join_of else t.qualname


def _table_def(t: ObjectType) -> TableDef:
    cols: List[ColumnDef] = []
    for c in t.columns:
        vt = c.type
        enum = vt.enum or (vt.element.enum if vt.element is not None else None)
        pointer = c.pointer or (c.link if c.link is not None else c.name)
        cols.append(ColumnDef(c.name, vt.pg, not (c.required or c.is_id), c.default_sql, pointer,
                              enum.qualname if enum else None, vt.element is not None, c.comment))
    primary = tuple(t.primary_key)
    return TableDef(
        name=t.table,
        origin=origin_of(t),
        columns=tuple(cols),
        primary_key=primary,
        checks=tuple(CheckDef(ck.name, ck.expression_sql) for ck in t.checks),
        uniques=tuple(UniqueDef(ex.name, tuple(ex.columns), ex.predicate_sql, tuple(ex.keys_sql))
                      for ex in t.exclusives),
        foreign_keys=tuple(ForeignKeyDef(fk.name, fk.column, fk.target_table, fk.on_delete_sql)
                           for fk in t.foreign_keys),
        indexes=tuple(IndexDef(ix.name, tuple(ix.keys_sql), ix.method, ix.predicate_sql, ix.comment, ix.with_sql)
                      for ix in t.indexes),
        comment=t.comment,
        triggers=tuple(TriggerDef(tr.name, tr.function, tr.timing, tuple(tr.events), tr.level, tr.body, tr.when)
                       for tr in t.triggers),
    )


def catalog_of(schema: Schema) -> Catalog:
    """The catalog of a resolved schema: object tables in declaration order, then join tables."""
    return Catalog(
        tables=tuple(_table_def(t) for t in schema.all_tables()),
        enums={e.qualname: tuple(e.members) for e in schema.all_enums()},
        extensions=schema.pg_extensions(),
        sequences=schema.sequences(),
        composites=_composites(schema),
        functions=support_functions(schema),
    )


def support_functions(schema: Schema) -> Tuple[str, ...]:
    """The functions of schemac the library's queries call: the one that raises access policy
    errors when a type (its own or a dependency's) has policies."""
    from schemac.pgsql import policies

    return (policies.RAISE_FUNCTION,) if any(t.policies for t in schema.all_types()) else ()


def _composites(schema: Schema) -> Tuple[Tuple[str, Tuple[Tuple[str, str], ...]], ...]:
    """The composite types the library's tuple properties need, each once, in the order the
    tables declare them (a tuple's element tuples before it)."""
    out: Dict[str, Tuple[Tuple[str, str], ...]] = {}
    for t in schema.all_tables():
        for c in t.columns:
            for tup in c.type.tuples():
                out.setdefault(tup.composite, tup.composite_fields)
    return tuple(out.items())


def dump_snapshot(catalog: Catalog) -> str:
    """Canonical JSON text of ``catalog`` (the committed ``snapshot.json``)."""
    doc = {
        "format": SNAPSHOT_FORMAT,
        "enums": {k: list(v) for k, v in sorted(catalog.enums.items())},
        "tables": [_strip(asdict(t)) for t in catalog.tables],
    }
    if catalog.extensions:  # (absent when empty: older snapshots stay byte-identical)
        doc["extensions"] = list(catalog.extensions)
    if catalog.sequences:
        doc["sequences"] = list(catalog.sequences)
    if catalog.functions:
        doc["functions"] = list(catalog.functions)
    if catalog.composites:
        doc["composites"] = [{"name": n, "fields": [list(f) for f in fields]} for n, fields in catalog.composites]
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _strip(d):
    """Drop keys whose value is ``None``, ``False`` or empty, so the file stays readable and
    adding a field later does not churn every snapshot."""
    if isinstance(d, dict):
        return {k: _strip(v) for k, v in d.items() if v not in (None, False, (), [], {})}
    if isinstance(d, (list, tuple)):
        return [_strip(v) for v in d]
    return d


class SnapshotError(ValueError):
    """A snapshot file that is not valid snapshot JSON (message says what is wrong)."""


def load_snapshot(text: str) -> Catalog:
    """Parse ``snapshot.json`` text. Raises :class:`SnapshotError`."""
    try:
        doc = json.loads(text)
        if doc.get("format") != SNAPSHOT_FORMAT:
            raise SnapshotError(f"unsupported snapshot format {doc.get('format')!r} (expected {SNAPSHOT_FORMAT})")
        tables = []
        for t in doc.get("tables", []):
            tables.append(TableDef(
                name=t["name"], origin=t["origin"],
                columns=tuple(ColumnDef(c["name"], c["type"], c.get("nullable", False), c.get("default"),
                                        c.get("pointer"), c.get("enum"), c.get("array", False), c.get("comment"))
                              for c in t.get("columns", [])),
                primary_key=tuple(t.get("primary_key", [])),
                checks=tuple(CheckDef(c["name"], c["expression"]) for c in t.get("checks", [])),
                uniques=tuple(UniqueDef(u["name"], tuple(u.get("columns", ())), u.get("predicate"), tuple(u.get("keys", ())))
                              for u in t.get("uniques", [])),
                foreign_keys=tuple(ForeignKeyDef(f["name"], f["column"], f["target"], f["on_delete"])
                                   for f in t.get("foreign_keys", [])),
                indexes=tuple(IndexDef(i["name"], tuple(i["keys"]), i.get("method", "btree"), i.get("predicate"),
                                       i.get("comment"), i.get("storage")) for i in t.get("indexes", [])),
                comment=t.get("comment"),
                triggers=tuple(TriggerDef(g["name"], g["function"], g["timing"], tuple(g["events"]), g["level"],
                                          g["body"], g.get("when")) for g in t.get("triggers", [])),
            ))
        enums = {k: tuple(v) for k, v in doc.get("enums", {}).items()}
        extensions = tuple(sorted(str(e) for e in doc.get("extensions", [])))
        sequences = tuple(sorted(str(e) for e in doc.get("sequences", [])))
        composites = tuple((str(c["name"]), tuple((str(a), str(t)) for a, t in c["fields"]))
                           for c in doc.get("composites", []))
        functions = tuple(sorted(str(f) for f in doc.get("functions", [])))
        return Catalog(tuple(tables), enums, extensions, sequences, composites, functions)
    except SnapshotError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise SnapshotError(f"not a schemac snapshot: {e}") from None


# The frozen dataclasses above are created in bulk: give them the faster __init__.
fast_init_all(globals())
