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

from schemac.syntax import tree as ast
from schemac.diagnostics import Reporter, Span, did_you_mean
from schemac.semantics.exprs import ExprContext, lower
from schemac.semantics.model import is_join_origin
from schemac.semantics.model import Schema


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
    #: Where each hint is: ("type", old qualname) / ("pointer", type, old name) /
    #: ("member", enum, old member), and the same with "to" for rename targets.
    spans: Dict[Tuple, Span] = field(default_factory=dict)

    def inverted(self) -> "Hints":
        """The hints of the down migration: every rename reversed; drops, casts and member
        maps allowed as the undo of what the up migration did (fills do not invert)."""
        inv = Hints()
        inv.type_renames = {new: old for old, new in self.type_renames.items()}
        for (typ, old), new in self.pointer_renames.items():
            if is_join_origin(typ):  # a link property: rename the type part
                t, link = typ.rsplit(".", 1)
                old_type = f"{inv.type_renames.get(t, t)}.{link}"
            else:
                old_type = inv.type_renames.get(typ, typ)
            inv.pointer_renames[(old_type, new)] = old
        inv.member_renames = {e: {new: old for old, new in m.items()} for e, m in self.member_renames.items()}
        inv.casts = {(self._old_type(t), p) for t, p in self.casts}
        return inv

    def applicable(self, old) -> "Hints":
        """Only the hints that apply to a diff from catalog ``old`` (the last migration's
        snapshot): renames and maps whose old name ``old`` still has (and whose new name it
        does not have yet). Hints applied by an earlier migration are left out, so they can
        neither change this migration nor its down migration."""
        out = Hints(fills=dict(self.fills), casts=set(self.casts), dropped_types=set(self.dropped_types),
                    dropped_pointers=set(self.dropped_pointers), spans=self.spans)
        origins = {t.origin for t in old.tables}
        # Left out: renames already applied (old name gone, new name there). Kept: the rest,
        # so that a rename onto a name still there is refused (E0401) and a misspelled old name
        # is reported (W0005) by the diff.
        out.type_renames = {o: n for o, n in self.type_renames.items() if o in origins or n not in origins}
        reverse = {n: o for o, n in out.type_renames.items()}
        for (typ, old_ptr), new_ptr in self.pointer_renames.items():
            if is_join_origin(typ):  # a link property: (Type.link, property)
                t, link = typ.rsplit(".", 1)
                origin = f"{reverse.get(t, t)}.{link}"
            else:
                origin = reverse.get(typ, typ)
            table = next((t for t in old.tables if t.origin == origin), None)
            if table is None:
                out.pointer_renames[(typ, old_ptr)] = new_ptr
                continue
            pointers = {c.pointer for c in table.columns}
            pointers |= {o.rsplit(".", 1)[1] for o in origins if is_join_origin(o) and o.rsplit(".", 1)[0] == origin}
            if old_ptr in pointers or new_ptr not in pointers:
                out.pointer_renames[(typ, old_ptr)] = new_ptr
        for enum, renames in self.member_renames.items():
            members = set(old.enums.get(enum, ()))
            kept = {o: n for o, n in renames.items() if o in members or n not in members}
            if kept:
                out.member_renames[enum] = kept
        for enum, maps in self.member_maps.items():
            members = set(old.enums.get(enum, ()))
            kept = {o: n for o, n in maps.items() if o in members}
            if kept:
                out.member_maps[enum] = kept
        return out

    def _old_type(self, qualname: str) -> str:
        for old, new in self.type_renames.items():
            if new == qualname:
                return old
        return qualname


def _stale(reporter: Reporter, message: str, span, hint=None) -> None:
    """A hint that does not apply to the current schema: left over from an earlier migration
    (harmless, delete it when convenient) or misspelled (then the diff will refuse the change it
    was meant to explain). A warning, so old hints never break a build."""
    extra = "if it was applied by an earlier migration, delete it"
    reporter.warning("W0005", f"migration hint does not apply: {message}", span,
                     f"{hint}; {extra}" if hint else extra)


def _conflict(reporter: Reporter, message: str, span) -> None:
    reporter.error("E0400", f"conflicting migration hints: {message}", span,
                   "each old name can be renamed, mapped or dropped by one hint only")


def _qual(name: str, module: str) -> str:
    return name if "::" in name else f"{module}::{name}"


def resolve_hints(files: Sequence[ast.SchemaFile], schema: Schema, reporter: Reporter) -> Hints:
    """Check every hint of ``files`` against ``schema`` and resolve them: a hint that does not
    apply (unknown name, or already applied) is a W0005 warning and ignored; two hints on one
    name are an E0400 error; a fill value of the wrong type E0304. Fill expressions are lowered like a default, with
    the row in scope (``fill Task.slug using (.title)``)."""
    hints = Hints()
    for f in files:
        for h in f.hints:
            _resolve_one(h, schema, reporter, hints)
    return hints


def _claim(hints: Hints, key: Tuple, h: ast.MigrationHint, reporter: Reporter) -> bool:
    """Record that ``key`` (an old name, or a rename target) is taken by hint ``h``; report
    E0400 and return False when another hint took it already."""
    other = hints.spans.get(key)
    if other is not None:
        _conflict(reporter, f"{' '.join(str(k) for k in key[1:])} is named by two hints "
                            f"(the other at line {other.line})", h.span)
        return False
    hints.spans[key] = h.span
    return True


def _resolve_one(h: ast.MigrationHint, schema: Schema, reporter: Reporter, hints: Hints) -> None:
    if h.kind == "member":
        enum = schema.find_enum(h.type_name, h.module)
        if enum is None:
            _stale(reporter, f"unknown enum '{h.type_name}' in a migration hint", h.span,
                           did_you_mean(h.type_name, [e.name for e in schema.all_enums()]))
            return
        members = set(enum.members)
        assert h.item is not None and h.to is not None
        if h.to not in members:
            _stale(reporter, f"enum '{enum.name}' has no member '{h.to}'", h.span,
                           did_you_mean(h.to, enum.members))
            return
        if h.item in members:
            _stale(reporter, f"'{h.item}' is still a member of '{enum.name}'", h.span,
                           f"a {h.action} hint names a member that is gone from the enum")
            return
        if not _claim(hints, ("member", enum.qualname, h.item), h, reporter):
            return
        table = hints.member_renames if h.action == "rename" else hints.member_maps
        table.setdefault(enum.qualname, {})[h.item] = h.to
        return
    if h.kind == "type" and h.action == "rename":
        assert h.to is not None
        new = schema.find_type(h.to, h.module)
        if new is None:
            _stale(reporter, f"unknown type '{h.to}' (a rename hint names the new type as declared now)",
                           h.span, did_you_mean(h.to, [t.name for t in schema.all_types()]))
            return
        old = _qual(h.type_name, h.module)
        if schema.find_type(h.type_name, h.module) is not None:
            _stale(reporter, f"type '{h.type_name}' still exists, so it cannot have been renamed", h.span)
            return
        if not (_claim(hints, ("type", old), h, reporter) and _claim(hints, ("type-to", new.qualname), h, reporter)):
            return
        hints.type_renames[old] = new.qualname
        return
    if h.kind == "type" and h.action == "drop":
        if schema.find_type(h.type_name, h.module) is not None:
            _stale(reporter, f"type '{h.type_name}' still exists; a drop hint is for a removed type", h.span)
            return
        if _claim(hints, ("type", _qual(h.type_name, h.module)), h, reporter):
            hints.dropped_types.add(_qual(h.type_name, h.module))
        return
    # property / link hints name a type that exists now
    typ = schema.find_type(h.type_name, h.module)
    if typ is None:
        _stale(reporter, f"unknown type '{h.type_name}' in a migration hint", h.span,
                       did_you_mean(h.type_name, [t.name for t in schema.all_types()]))
        return
    assert h.item is not None
    container, key, label, item = typ, typ.qualname, typ.name, h.item
    if "." in h.item and h.action == "drop":  # a link property of a link that may be gone or single now
        link_name, item = h.item.split(".", 1)
        key = f"{typ.qualname}.{link_name}"
        if _claim(hints, ("pointer", key, item), h, reporter):
            hints.dropped_pointers.add((key, item))
        return
    if "." in h.item:  # a link property: Type.link.property, a column of the link's join table
        link_name, item = h.item.split(".", 1)
        link = typ.links.get(link_name)
        join = next((j for j in schema.join_tables if j.join_of == (typ.qualname, link_name)), None)
        if link is None or join is None:
            _stale(reporter, f"type '{typ.name}' has no multi link '{link_name}'", h.span,
                   did_you_mean(link_name, [n for n, lk in typ.links.items() if lk.multi]))
            return
        container, key, label = join, f"{typ.qualname}.{link_name}", f"{typ.name}.{link_name}"
        pointers = {c.name for c in join.columns} - {"source_id", "target_id"}
    else:
        pointers = {c.link or c.name for c in typ.columns} | set(typ.links)
    if h.action == "rename":
        assert h.to is not None
        if h.to not in pointers:
            _stale(reporter, f"type '{label}' has no property or link '{h.to}'", h.span,
                           did_you_mean(h.to, pointers))
            return
        if item in pointers:
            _stale(reporter, f"'{label}.{item}' still exists, so it cannot have been renamed", h.span)
            return
        if _claim(hints, ("pointer", key, item), h, reporter) and \
                _claim(hints, ("pointer-to", key, h.to), h, reporter):
            hints.pointer_renames[(key, item)] = h.to
    elif h.action == "drop":
        if item in pointers:
            _stale(reporter, f"'{label}.{item}' still exists; a drop hint is for a removed one", h.span)
            return
        if _claim(hints, ("pointer", key, item), h, reporter):
            hints.dropped_pointers.add((key, item))
    else:
        col = next((c for c in container.columns if (c.link or c.name) == item), None)
        if col is None:
            _stale(reporter, f"type '{label}' has no property or single link '{item}'", h.span,
                           did_you_mean(item, pointers))
            return
        if h.action == "cast":
            hints.casts.add((key, item))
        else:
            ctx = ExprContext(schema, container, h.module, reporter, where="fill expression")
            low = lower(h.expr, ctx, col.type)  # type: ignore[arg-type]
            if low is not None and low.type.family != col.type.family:
                reporter.error("E0304", f"the fill value is {low.type.name}, but {label}.{item} is "
                               f"{col.type.name}", h.expr.span if h.expr is not None else h.span,
                               f"give a value of type {col.type.name}, e.g. with a cast <{col.type.name}>(...)")
            elif low is not None:
                hints.fills[(key, item)] = low.sql
