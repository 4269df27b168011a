"""Migration hints: the ``migration { ... }`` statements of a schema, checked and resolved.

The diff engine never guesses a rename, a fill value or a cast: the schema says so.
Every hint is written *old to new*, with its type or enum named as it is **now**::

    migration {
      rename type Job to Task;              # table "job" becomes "task"
      rename property Task.name to title;   # column "name" becomes "title"
      rename link Task.owner to assignee;   # column "owner_id" becomes "assignee_id"
      rename member Status.Running to Active;   # rows are rewritten
      map member Status.Cancelled to Failed;    # a removed member: rows get another one
      fill Task.priority using (0);         # for rows where a now-required value is empty
      cast Task.priority;                   # change the column type with a Postgres cast
      drop property Task.payload;           # consent to a destructive drop (also: drop type/link)
    }

Hints are idempotent: one that no longer applies (the snapshot already has the new name) does
nothing, so they may stay in the schema after the migration is generated and be removed at any
later time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Sequence, Set, Tuple

from schemac import syntax as ast
from schemac.diagnostics import Reporter, did_you_mean
from schemac.exprs import ExprContext, lower
from schemac.model import Schema


@dataclass
class Hints:
    """Resolved hints. Keys use qualified names (``default::Task``).

    ``type_renames``: old type qualname -> new; ``pointer_renames``: (type qualname as now, old
    property/link name) -> new name; ``member_renames`` / ``member_maps``: enum qualname ->
    {old member: new member}; ``fills``: (type, property) -> SQL expression over the row;
    ``casts``: (type, property); ``drops``: type qualnames and (type, pointer) pairs."""

    type_renames: Dict[str, str] = field(default_factory=dict)
    pointer_renames: Dict[Tuple[str, str], str] = field(default_factory=dict)
    member_renames: Dict[str, Dict[str, str]] = field(default_factory=dict)
    member_maps: Dict[str, Dict[str, str]] = field(default_factory=dict)
    fills: Dict[Tuple[str, str], str] = field(default_factory=dict)
    casts: Set[Tuple[str, str]] = field(default_factory=set)
    dropped_types: Set[str] = field(default_factory=set)
    dropped_pointers: Set[Tuple[str, str]] = field(default_factory=set)

    def inverted(self) -> "Hints":
        """The hints of the down migration: every rename reversed; drops, casts and member
        maps allowed as the undo of what the up migration did (fills do not invert)."""
        inv = Hints()
        inv.type_renames = {new: old for old, new in self.type_renames.items()}
        for (typ, old), new in self.pointer_renames.items():
            old_type = inv.type_renames.get(typ, typ)
            inv.pointer_renames[(old_type, new)] = old
        inv.member_renames = {e: {new: old for old, new in m.items()} for e, m in self.member_renames.items()}
        inv.casts = {(self._old_type(t), p) for t, p in self.casts}
        return inv

    def _old_type(self, qualname: str) -> str:
        for old, new in self.type_renames.items():
            if new == qualname:
                return old
        return qualname


def _qual(name: str, module: str) -> str:
    return name if "::" in name else f"{module}::{name}"


def resolve_hints(files: Sequence[ast.SchemaFile], schema: Schema, reporter: Reporter) -> Hints:
    """Check every hint of ``files`` against ``schema`` (E0400 unknown names, E0401 hints that
    contradict the schema) and resolve them. Fill expressions are lowered like a default, with
    the row in scope (``fill Task.slug using (.title)``)."""
    hints = Hints()
    for f in files:
        for h in f.hints:
            _resolve_one(h, schema, reporter, hints)
    return hints


def _resolve_one(h: ast.MigrationHint, schema: Schema, reporter: Reporter, hints: Hints) -> None:
    if h.kind == "member":
        enum = schema.find_enum(h.type_name, h.module)
        if enum is None:
            reporter.error("E0400", f"unknown enum '{h.type_name}' in a migration hint", h.span,
                           did_you_mean(h.type_name, [e.name for e in schema.all_enums()]))
            return
        members = set(enum.members)
        assert h.item is not None and h.to is not None
        if h.to not in members:
            reporter.error("E0400", f"enum '{enum.name}' has no member '{h.to}'", h.span,
                           did_you_mean(h.to, enum.members))
            return
        if h.item in members:
            reporter.error("E0401", f"'{h.item}' is still a member of '{enum.name}'", h.span,
                           f"a {h.action} hint names a member that is gone from the enum")
            return
        table = hints.member_renames if h.action == "rename" else hints.member_maps
        table.setdefault(enum.qualname, {})[h.item] = h.to
        return
    if h.kind == "type" and h.action == "rename":
        assert h.to is not None
        new = schema.find_type(h.to, h.module)
        if new is None:
            reporter.error("E0400", f"unknown type '{h.to}' (a rename hint names the new type as declared now)",
                           h.span, did_you_mean(h.to, [t.name for t in schema.all_types()]))
            return
        old = _qual(h.type_name, h.module)
        if schema.find_type(h.type_name, h.module) is not None:
            reporter.error("E0401", f"type '{h.type_name}' still exists, so it cannot have been renamed", h.span)
            return
        hints.type_renames[old] = new.qualname
        return
    if h.kind == "type" and h.action == "drop":
        if schema.find_type(h.type_name, h.module) is not None:
            reporter.error("E0401", f"type '{h.type_name}' still exists; a drop hint is for a removed type", h.span)
            return
        hints.dropped_types.add(_qual(h.type_name, h.module))
        return
    # property / link hints name a type that exists now
    typ = schema.find_type(h.type_name, h.module)
    if typ is None:
        reporter.error("E0400", f"unknown type '{h.type_name}' in a migration hint", h.span,
                       did_you_mean(h.type_name, [t.name for t in schema.all_types()]))
        return
    assert h.item is not None
    pointers = {c.link or c.name for c in typ.columns} | set(typ.links)
    if h.action == "rename":
        assert h.to is not None
        if h.to not in pointers:
            reporter.error("E0400", f"type '{typ.name}' has no property or link '{h.to}'", h.span,
                           did_you_mean(h.to, pointers))
            return
        if h.item in pointers:
            reporter.error("E0401", f"'{typ.name}.{h.item}' still exists, so it cannot have been renamed", h.span)
            return
        hints.pointer_renames[(typ.qualname, h.item)] = h.to
    elif h.action == "drop":
        if h.item in pointers:
            reporter.error("E0401", f"'{typ.name}.{h.item}' still exists; a drop hint is for a removed one", h.span)
            return
        hints.dropped_pointers.add((typ.qualname, h.item))
    else:
        col = next((c for c in typ.columns if (c.link or c.name) == h.item), None)
        if col is None:
            reporter.error("E0400", f"type '{typ.name}' has no property or single link '{h.item}'", h.span,
                           did_you_mean(h.item, pointers))
            return
        if h.action == "cast":
            hints.casts.add((typ.qualname, h.item))
        else:
            ctx = ExprContext(schema, typ, h.module, reporter, where="fill expression")
            low = lower(h.expr, ctx, col.type)  # type: ignore[arg-type]
            if low is not None:
                hints.fills[(typ.qualname, h.item)] = low.sql
