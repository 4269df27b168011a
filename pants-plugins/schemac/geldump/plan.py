"""Which table and column of the library each part of a Gel dump goes to, and every
difference between the dump's schema and the library's (checked before anything is written).

The names come from the compiled schema model (:mod:`schemac.semantics.model`): an object type
``m::T`` of the dump is ``schema.types["m::T"]`` (its own table: Gel keeps each type's objects in
its own table, as schemac does), a property its :class:`~schemac.semantics.model.Column` of the
same name, a single link the column whose ``link`` is the link's name, a multi link the join table
whose ``join_of`` is ``(type, link)``, a multi property the array column of that name.

A dump's tables (``TableDesc``, one per ``ObjectDesc`` of its header) are an object type's
(rows: ``id``, its single properties and links), a multi link's (``source``, ``target``, the
link properties), a single link's with link properties (the same rows: Gel stores such a link
both in its source's row and in a link table, ``_pointer_storable_in_pointer`` of
edb/pgsql/types.py; its properties are only in the latter) or a multi property's (``source``,
``target``); the object type's descriptor
lists the ids of its pointers' tables as its dependencies, and a pointer table is named
``<module>::__|<pointer>@<source module>|<source type>``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from schemac.diagnostics import Span
from schemac.geldump.format import FLAG_LINK, DumpHeader, GelType, TableDesc
from schemac.semantics.model import ObjectType, Schema, ValueType, link_prop_named, single_link_props

#: Pointers every Gel object has that schemac does not store (the object's type: schemac's
#: tables are per type).
IMPLICIT = ("__type__",)
#: Gel's add-on columns (``__fts_document__`` of an ``fts::index``, the shadow columns of
#: ``ext::ai`` indexes): dumped as fake properties, derived from the object's properties; schemac
#: computes its own full-text document.
_ADDON = re.compile(r"^__\w+__$")


def _implicit(name: str) -> bool:
    return name in IMPLICIT or bool(_ADDON.match(name))


def _extension_type(name: str) -> bool:
    """A type of a Gel extension's module (``ext::auth::Identity``): loaded when the library has
    it; else skipped, and refused only if the dump holds objects of it (checked as it streams)."""
    return name.startswith("ext::")

_POINTER_TABLE = re.compile(r"^.*::__\|(?P<ptr>[^@]+)@")


@dataclass
class Difference:
    """One way the dump's schema and the library's differ: the message, and where in the
    library when the library has the thing (its declaration's span)."""

    message: str
    span: Optional[Span] = None


@dataclass
class ColumnMap:
    """One target column: its name, the dump column it comes from (index in the dump's row,
    ``None`` for a multi property's array, filled later), the dump's type of it."""

    column: str
    source: Optional[int]
    gel: Optional[GelType]
    library: ValueType
    #: A polymorphic link's target (https://docs.geldata.com/reference/datamodel/inheritance):
    #: the (concrete subtype's table, column) pairs; the id goes to the column of the table that
    #: holds it (``column`` is then the staging column's name).
    poly: Tuple[Tuple[str, str], ...] = ()
    #: What a message calls it (``default::Fan.favourite``).
    label: str = ""


@dataclass
class TablePlan:
    """What to do with one dumped table. ``kind``: ``object`` (COPY into ``table``),
    ``join`` (a multi link: COPY into the join table), ``multiprop`` (a multi property: COPY
    into a scratch table, then aggregated into ``table``'s array column ``array_column``),
    ``linkprops`` (a single link's link properties: COPY into a scratch table, then one UPDATE
    of ``table``'s ``<link>@<prop>`` columns; ``array_column`` is the link's FK column, empty
    for a polymorphic link), ``skip`` (an abstract type's table: Gel keeps it empty)."""

    dump: TableDesc
    kind: str
    label: str
    table: str = ""
    columns: List[ColumnMap] = field(default_factory=list)
    #: For ``multiprop``: the owner's table and the array column.
    array_column: str = ""
    #: For ``object``: the multi property columns not in the dump's row (written empty first).
    empty_arrays: List[Tuple[str, ValueType]] = field(default_factory=list)
    #: For ``object``: the single links' ``<link>@<prop>`` columns, written NULL first (an object
    #: without the link has none; the ``linkprops`` table's UPDATE sets the others).
    null_columns: List[str] = field(default_factory=list)

    @property
    def staged(self) -> bool:
        """Rows go through a scratch table first (a polymorphic link's column is chosen by the
        table its target is in, known once every table is loaded)."""
        return any(c.poly for c in self.columns)


@dataclass
class Plan:
    tables: List[TablePlan]
    differences: List[Difference]
    #: The library's object types (concrete, this library's) the plan loads, by qualified name.
    types: Dict[str, ObjectType]

    def by_id(self) -> Dict[str, TablePlan]:
        return {t.dump.id: t for t in self.tables}


def library_signature(vt: ValueType) -> str:
    """A library type spelled as :meth:`GelType.signature` spells the dump's."""
    if vt.element is not None:
        return f"array<{library_signature(vt.element)}>"
    if vt.fields is not None:
        return "tuple<" + ", ".join(library_signature(t) if n is None else f"{n}: {library_signature(t)}"
                                    for n, t in vt.fields) + ">"
    if vt.enum is not None:
        return f"enum {vt.enum.qualname}"
    name = vt.scalar.name  # type: ignore[union-attr]
    if name.startswith("std::"):
        name = name[5:]
    if name.startswith("ext::pgvector::vector"):
        return "vector"
    return name


def _compatible(gel: GelType, vt: ValueType) -> bool:
    """The dump's values fit the library's column: same type (custom scalars by their base);
    an enum whose members are all the library's."""
    if gel.kind == "enum":
        if vt.enum is None:
            return False
        if gel.name and gel.name != vt.enum.qualname:
            return False
        return set(gel.members) <= set(vt.enum.members)
    if gel.kind == "array":
        return vt.element is not None and _compatible(gel.element, vt.element)  # type: ignore[arg-type]
    if gel.kind == "tuple":
        if vt.fields is None or len(vt.fields) != len(gel.fields):
            return False
        return all((gn or None) == (ln or None) and _compatible(gt, lt)
                   for (gn, gt), (ln, lt) in zip(gel.fields, vt.fields))
    return gel.signature() == library_signature(vt)


def _describe(gel: GelType) -> str:
    if gel.kind == "enum":
        return f"enum {gel.name or ''}<{', '.join(gel.members)}>".replace(" <", "<")
    return gel.signature()


def _describe_lib(vt: ValueType) -> str:
    if vt.enum is not None:
        return f"enum {vt.enum.qualname}<{', '.join(vt.enum.members)}>"
    return library_signature(vt)


def pointer_name(table: TableDesc) -> str:
    m = _POINTER_TABLE.match(table.name)
    return m.group("ptr") if m else table.name


def make_plan(header: DumpHeader, schema: Schema) -> Plan:
    """Map every table of the dump onto the library, and list every difference."""
    diffs: List[Difference] = []
    plans: List[TablePlan] = []
    by_id = {t.id: t for t in header.tables}
    owned: Dict[str, Tuple[TableDesc, ObjectType]] = {}
    seen_types: Dict[str, ObjectType] = {}
    skipped = set()
    for td in header.tables:
        if td.cls != "ObjectType":
            continue
        obj = schema.types.get(td.name)
        if obj is None or obj.library is not None or obj.join_of is not None:
            if td.name in schema.abstract_types or _extension_type(td.name):
                # an abstract type's table (Gel keeps it empty) or an extension's type the
                # library does not use: skipped with its pointers' tables, refused if it has rows
                plans.append(TablePlan(td, "skip", td.name))
                for dep in td.deps:
                    if dep in by_id:
                        skipped.add(dep)
                continue
            diffs.append(Difference(f"type {td.name} is in the dump but not in the library"))
            continue
        seen_types[td.name] = obj
        plans.append(_object_plan(td, obj, diffs))
        for dep in td.deps:
            if dep in by_id:
                owned[dep] = (by_id[dep], obj)
    for td in header.tables:
        if td.cls == "ObjectType":
            continue
        if td.id in skipped:
            plans.append(TablePlan(td, "skip", td.name))
            continue
        if td.id not in owned:
            diffs.append(Difference(f"{td.cls.lower()} table {td.name} of the dump belongs to no type of it"))
            continue
        _, obj = owned[td.id]
        if td.name and obj.qualname not in seen_types:
            continue
        plan = _pointer_plan(td, obj, schema, diffs)
        if plan is not None:
            plans.append(plan)
    for qualname, obj in schema.types.items():
        if obj.library is None and obj.join_of is None and qualname not in seen_types and obj.from_sql is None:
            diffs.append(Difference(f"type {qualname} is in the library but not in the dump", obj.span))
    return Plan(plans, diffs, seen_types)


def _object_plan(td: TableDesc, obj: ObjectType, diffs: List[Difference]) -> TablePlan:
    plan = TablePlan(td, "object", td.name, table=obj.table)
    by_link = {c.link: c for c in obj.columns if c.link is not None and c.pointer is None}
    dumped = set()
    for i, ((name, gel), flags) in enumerate(zip(td.rowtype.fields, td.rowtype.flags or [0] * len(td.rowtype.fields))):
        name = name or ""
        if _implicit(name):
            continue
        dumped.add(name)
        if flags & FLAG_LINK or gel.kind in ("object", "shape"):
            col = by_link.get(name)
            if col is None:
                poly = obj.poly_links.get(name)
                if poly is not None and not poly.multi:
                    plan.columns.append(ColumnMap(f"gel_poly_{i}", i, gel, obj.columns[0].type,
                                                  tuple((t.table, c) for t, c in poly.targets), f"{td.name}.{name}"))
                elif obj.column(name) is not None or name in obj.links:
                    diffs.append(Difference(f"{td.name}.{name}: a single link in the dump, not in the library",
                                            (obj.column(name) or by_link.get(name) or obj).span))  # type: ignore
                else:
                    diffs.append(Difference(f"link {td.name}.{name} is in the dump but not in the library"))
                continue
            plan.columns.append(ColumnMap(col.name, i, gel, col.type))
            continue
        col = obj.column(name)
        if col is None or col.link is not None:
            diffs.append(Difference(f"property {td.name}.{name} is in the dump but not in the library"))
            continue
        if col.multi:
            diffs.append(Difference(f"{td.name}.{name}: a single property in the dump, a multi property in the "
                                    "library", col.span))
            continue
        if not _compatible(gel, col.type):
            diffs.append(Difference(f"{td.name}.{name}: {_describe(gel)} in the dump, {_describe_lib(col.type)} "
                                    "in the library", col.span))
            continue
        plan.columns.append(ColumnMap(col.name, i, gel, col.type))
    for col in obj.columns:
        if col.multi:
            plan.empty_arrays.append((col.name, col.type))
            continue
        if col.link_prop is not None:  # (from the link's own table, see _pointer_plan)
            plan.null_columns.append(col.name)
            continue
        key = col.link if col.link is not None else col.name
        if key not in dumped and col.pointer is None:
            what = "link" if col.link is not None else "property"
            diffs.append(Difference(f"{what} {td.name}.{key} is in the library but not in the dump", col.span))
    for name, poly in obj.poly_links.items():
        if not poly.multi and name not in dumped:
            diffs.append(Difference(f"link {td.name}.{name} is in the library but not in the dump", obj.span))
    return plan


def _pointer_plan(td: TableDesc, obj: ObjectType, schema: Schema, diffs: List[Difference]) -> Optional[TablePlan]:
    ptr = pointer_name(td)
    label = f"{obj.qualname}.{ptr}"
    fields = {n or "": (i, t) for i, (n, t) in enumerate(td.rowtype.fields)}
    if "source" not in fields or "target" not in fields:
        diffs.append(Difference(f"{label}: its dumped table has no source and target"))
        return None
    if td.cls == "Property":
        col = obj.column(ptr)
        if col is None or col.link is not None:
            diffs.append(Difference(f"multi property {label} is in the dump but not in the library"))
            return None
        if not col.multi:
            diffs.append(Difference(f"{label}: a multi property in the dump, a single property in the library",
                                    col.span))
            return None
        si, _ = fields["source"]
        ti, tg = fields["target"]
        element = col.type.element if col.type.element is not None else col.type
        if not _compatible(tg, element):
            diffs.append(Difference(f"{label}: {_describe(tg)} in the dump, {_describe_lib(element)} in the "
                                    "library", col.span))
            return None
        plan = TablePlan(td, "multiprop", label, table=obj.table, array_column=col.name)
        plan.columns = [ColumnMap("source_id", si, None, col.type), ColumnMap("target", ti, tg, element)]
        return plan
    link = obj.links.get(ptr)
    poly = obj.poly_links.get(ptr)
    if poly is not None and poly.multi:
        join_table = poly.join_table
    elif link is not None and link.multi:
        join_table = link.join_table
    elif link is not None or poly is not None:
        return _single_link_props_plan(td, obj, ptr, label, fields, poly is not None, diffs)
    else:
        diffs.append(Difference(f"multi link {label} is in the dump but not in the library"))
        return None
    join = next((t for t in schema.join_tables if t.table == join_table), None)
    if join is None:  # (cannot happen: every multi link has its join table)
        diffs.append(Difference(f"{label}: no join table in the library"))
        return None
    plan = TablePlan(td, "join", label, table=join.table)
    plan.columns = [ColumnMap("source_id", fields["source"][0], None, join.columns[0].type),
                    ColumnMap("target_id", fields["target"][0], None, join.columns[1].type)]
    if poly is not None:
        plan.columns.append(ColumnMap(f"gel_poly_{fields['target'][0]}", fields["target"][0], None,
                                      join.columns[1].type, tuple((t.table, c) for t, c in poly.targets), label))
    poly_columns = {c for _, c in poly.targets} if poly is not None else set()
    for name, (i, gel) in fields.items():
        if name in ("source", "target"):
            continue
        col = join.column(name)
        if col is None:
            diffs.append(Difference(f"link property {label}@{name} is in the dump but not in the library"))
            continue
        if not _compatible(gel, col.type):
            diffs.append(Difference(f"{label}@{name}: {_describe(gel)} in the dump, {_describe_lib(col.type)} in "
                                    "the library", col.span))
            continue
        plan.columns.append(ColumnMap(col.name, i, gel, col.type))
    for col in join.columns[2:]:
        if col.name not in fields and col.name not in poly_columns:
            diffs.append(Difference(f"link property {label}@{col.name} is in the library but not in the dump",
                                    col.span))
    return plan


def _single_link_props_plan(td: TableDesc, obj: ObjectType, ptr: str, label: str,
                            fields: Dict[str, Tuple[int, GelType]], poly: bool,
                            diffs: List[Difference]) -> Optional[TablePlan]:
    """A single link's table (a single link with link properties,
    https://docs.geldata.com/reference/datamodel/linkprops): its (source, target) pairs are the
    source rows' link column too; its properties go to the ``<link>@<prop>`` columns."""
    props = single_link_props(obj, ptr)
    extra = [n for n in fields if n not in ("source", "target")]
    if props is None:
        if extra:
            diffs.append(Difference(f"link properties {', '.join(f'{label}@{n}' for n in extra)} are in the dump "
                                    "but not in the library"))
        return None  # (a link table without properties: nothing the source row lacks)
    fk = next((c.name for c in obj.columns if c.link == ptr and c.pointer is None), "") if not poly else ""
    plan = TablePlan(td, "linkprops", label, table=obj.table, array_column=fk)
    uuid_type = obj.columns[0].type
    plan.columns = [ColumnMap("source_id", fields["source"][0], None, uuid_type),
                    ColumnMap("target_id", fields["target"][0], None, uuid_type)]
    for name in extra:
        i, gel = fields[name]
        col = link_prop_named(props, name)
        if col is None:
            diffs.append(Difference(f"link property {label}@{name} is in the dump but not in the library"))
            continue
        if not _compatible(gel, col.type):
            diffs.append(Difference(f"{label}@{name}: {_describe(gel)} in the dump, {_describe_lib(col.type)} in "
                                    "the library", col.span))
            continue
        plan.columns.append(ColumnMap(col.name, i, gel, col.type, label=f"{label}@{name}"))
    for col in props.columns:
        if col.name.split("@", 1)[1] not in fields:
            diffs.append(Difference(f"link property {label}@{col.name.split('@', 1)[1]} is in the library but not "
                                    "in the dump", col.span))
    return plan


def check_multi_pointers(plan: Plan) -> List[Difference]:
    """Multi properties and multi links of the library that the dump has no table for."""
    out: List[Difference] = []
    loaded = {(t.table, t.array_column) for t in plan.tables if t.kind == "multiprop"}
    joins = {t.table for t in plan.tables if t.kind == "join"}
    link_props = {(t.table, pointer_name(t.dump)) for t in plan.tables if t.kind == "linkprops"}
    for qualname, obj in plan.types.items():
        for col in obj.columns:
            if col.multi and (obj.table, col.name) not in loaded:
                out.append(Difference(f"multi property {qualname}.{col.name} is in the library but not in the dump",
                                      col.span))
        multis = [(n, ln.join_table) for n, ln in obj.links.items() if ln.multi]
        multis += [(n, pl.join_table) for n, pl in obj.poly_links.items() if pl.multi]
        for name, join_table in multis:
            if join_table not in joins:
                out.append(Difference(f"multi link {qualname}.{name} is in the library but not in the dump",
                                      obj.span))
        for link in sorted({c.link_prop for c in obj.columns if c.link_prop is not None}):
            if (obj.table, link) not in link_props:
                cols = [c for c in obj.columns if c.link_prop == link]
                out.append(Difference(f"link properties {', '.join(f'{qualname}.{c.name}' for c in cols)} are in "
                                      "the library but not in the dump", cols[0].span))
    return out
