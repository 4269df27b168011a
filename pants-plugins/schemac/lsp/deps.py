"""What a schema edit changes, and which queries read it: the language server re-checks only
those after a schema edit (issue 27; a 1,000-type library's 2,000 queries take ~10 s to check).

A query reads the schema through the names it writes: the types, enums, scalars, globals,
functions and aliases it names, and the properties and links of its paths and shapes
(:func:`idents`). A schema edit is compared declaration by declaration, by source text
(:func:`fingerprint`; spans and the text around declarations do not count) and turned into the
set of *changed names* (:func:`changed_names`); a query is re-checked when it writes one of them
(:func:`affected`). What a query reaches without naming it is carried into the changed names:

* a changed object type changes its name and the names of its changed properties and links (a
  query reaching it through a link names the properties it reads there), these *scoped*: they
  affect a query that also writes a name reaching the type (the type, its bases or subtypes,
  a link to one of them, a function, alias or global naming one, any computed pointer);
* a change that a query reading the type through a link sees without naming a member (its
  access policies, constraints, triggers, rewrites, its bases or subtypes, the type added or
  removed: *deep*) also changes the names of the links to it, and of its subtypes and bases;
* a changed link's target types (old and new) change (a delete of the target checks the
  foreign keys pointing to it);
* a declaration whose text names a changed name changes too (a function, alias, global or
  scalar through its body; a property or link through its default, computed expression or
  constraint, and then its type, unless the name is just the target of a link whose type
  changed only in members; a type through its policies, triggers or constraints), to a fixed
  point.

A query with a splat (``*``) reads members without naming them, and a query with diagnostics
may be fixed by any change (an unknown name declared, a "did you mean"): both are re-checked
after every schema edit (the caller's rule, :func:`affected`). Anything else that changes
(modules, extensions, ``using future``, permissions, unnamed declarations, the order of
declarations) changes everything (``None``). Over-approximations (a name shared by two types'
properties) only re-check more."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from schemac.syntax import tree as ast

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@functools.lru_cache(maxsize=65536)
def idents(text: str) -> FrozenSet[str]:
    """The identifiers written in ``text`` (``default::Foo`` gives ``default`` and ``Foo``)."""
    return frozenset(_IDENT.findall(text))


def _short(name: str) -> str:
    return name.rsplit("::", 1)[-1]


@dataclass
class _Pointer:
    text: str
    target: Optional[str]  # short name of its declared type
    computed: bool = False


@dataclass
class _Type:
    name: str  # short
    text: str
    rest: str  # the declaration without its properties and links
    bases: Tuple[str, ...]
    pointers: Dict[str, _Pointer] = field(default_factory=dict)


@dataclass
class Fingerprint:
    decls: Dict[Tuple[str, str], str]  # (kind, qualified name) -> text, other than object types
    types: Dict[str, _Type]  # qualified name -> type
    other: Tuple[str, ...]  # modules, extensions, unnamed declarations: any change is global
    order: Tuple[str, ...]  # object types and declarations, in order


class _Texts:
    def __init__(self, texts: Dict[str, str]) -> None:
        self.texts = texts
        self.starts: Dict[str, List[int]] = {}

    def of(self, span) -> str:
        text = self.texts.get(span.file)
        if text is None:
            return repr(span)
        starts = self.starts.get(span.file)
        if starts is None:
            starts = [0]
            i = text.find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = text.find("\n", i + 1)
            self.starts[span.file] = starts
        s = starts[min(span.line, len(starts)) - 1] + span.col - 1
        e = starts[min(span.end_line, len(starts)) - 1] + span.end_col - 1
        return text[s:e]


def fingerprint(files: Iterable[ast.SchemaFile], texts: Dict[str, str]) -> Fingerprint:
    """The declarations of a library's schema files (``texts``: the files' texts), by name."""
    tx = _Texts(texts)
    decls: Dict[Tuple[str, str], str] = {}
    types: Dict[str, _Type] = {}
    other: List[str] = []
    order: List[str] = []
    for f in files:
        other.extend(f"module {name}" for name, _ in f.modules)
        other.extend(tx.of(e.span) for e in f.extensions)
        for e in f.enums:
            decls[("enum", f"{e.module}::{e.name}")] = tx.of(e.span)
        for s in f.scalars:
            decls[("scalar", f"{s.module}::{s.name}")] = tx.of(s.span)
        for g in f.globals:
            decls[("global", f"{g.module}::{g.name}")] = tx.of(g.span)
        for d in f.definitions:
            name = getattr(d, "name", None)
            module = getattr(d, "module", None)
            if name is None or module is None:
                other.append(tx.of(d.span) if hasattr(d, "span") else repr(d))
                continue
            key = (type(d).__name__, f"{module}::{name}")
            decls[key] = tx.of(d.span)
            order.append("%s %s" % key)
        for t in f.types:
            text = tx.of(t.span)
            rest = text
            pointers: Dict[str, _Pointer] = {}
            for p in t.pointers:
                ptext = tx.of(p.span)
                rest = rest.replace(ptext, "", 1)
                target = _short(p.type.name) if p.type is not None else None
                pointers[p.name] = _Pointer(ptext, target, getattr(p, "computed", None) is not None)
            qn = f"{t.module}::{t.name}"
            types[qn] = _Type(t.name, text, rest, tuple(_short(b) for b, _ in t.extends), pointers)
            order.append(qn)
    return Fingerprint(decls, types, tuple(other), tuple(order))


def changed_names(old: Fingerprint, new: Fingerprint) -> Optional["Changes"]:
    """What a query must write to be affected by the change ``old`` -> ``new``; ``None``
    when everything may have changed."""
    if old.other != new.other:
        return None
    common = set(old.order) & set(new.order)
    if [k for k in old.order if k in common] != [k for k in new.order if k in common]:
        return None
    changed: Set[str] = set()  # names of declarations
    members: Set[str] = set()  # names of properties and links
    #: a changed property or link -> the types (short names) it belongs to; a query is
    #: affected by it when it also writes a name that reaches one of them (:func:`_reach`)
    owners: Dict[str, Set[str]] = {}
    unscoped: Set[str] = set()  # links to deep types: any query writing them
    deep: Set[str] = set()  # object types (short names) changed beyond their members
    for key in set(old.decls) | set(new.decls):
        if old.decls.get(key) != new.decls.get(key):
            changed.add(_short(key[1]))
    both = (old, new)
    old_types = {t.name for t in old.types.values()}
    new_types = {t.name for t in new.types.values()}
    all_types = old_types | new_types
    for qn in set(old.types) | set(new.types):
        o, n = old.types.get(qn), new.types.get(qn)
        if o is not None and n is not None and o.text == n.text:
            continue
        name = _short(qn)
        changed.add(name)
        if o is None or n is None or o.rest != n.rest or o.bases != n.bases:
            deep.add(name)
        for t in (o, n):
            if t is None:
                continue
            for b in t.bases:
                changed.add(b)
        for pname in set(o.pointers if o else ()) | set(n.pointers if n else ()):
            op = o.pointers.get(pname) if o else None
            np_ = n.pointers.get(pname) if n else None
            if op is not None and np_ is not None and op.text == np_.text:
                continue
            members.add(pname)
            owners.setdefault(pname, set()).add(name)
            for p in (op, np_):
                if p is not None and p.target in all_types:
                    changed.add(p.target)
    # inheritance: subtypes and bases of a changed type, deep with it
    subtypes: Dict[str, Set[str]] = {}
    bases: Dict[str, Set[str]] = {}
    for fp in both:
        for t in fp.types.values():
            for b in t.bases:
                subtypes.setdefault(b, set()).add(t.name)
                bases.setdefault(t.name, set()).add(b)

    def closure(start: Set[str], graph: Dict[str, Set[str]]) -> Set[str]:
        out, stack = set(), list(start)
        while stack:
            x = stack.pop()
            for y in graph.get(x, ()):
                if y not in out:
                    out.add(y)
                    stack.append(y)
        return out

    # to a fixed point: declarations naming changed names
    while True:
        size = (len(changed), len(members), len(deep), sum(map(len, owners.values())))
        deep |= closure(deep, subtypes) | closure(deep, bases)
        changed |= deep | closure(changed, bases)
        names = changed | members
        for fp, type_names in ((old, old_types), (new, new_types)):
            for (kind, qn), text in fp.decls.items():
                short = _short(qn)
                if short not in changed and (idents(text) - {short}) & names:
                    changed.add(short)
            for t in fp.types.values():
                own = set(t.pointers)
                if t.name not in deep and idents(t.rest) & (changed | (members - own)) - {t.name}:
                    deep.add(t.name)
                for pname, p in t.pointers.items():
                    if p.target is not None and p.target in deep:
                        members.add(pname)
                        unscoped.add(pname)
                    hit = (idents(p.text) - {pname}) & names
                    if not hit:
                        continue
                    members.add(pname)
                    owners.setdefault(pname, set()).add(t.name)
                    if hit - {p.target} or p.target not in type_names:
                        changed.add(t.name)
        if (len(changed), len(members), len(deep), sum(map(len, owners.values()))) == size:
            break
    names = set(changed) | unscoped
    reach_of: Dict[str, Tuple[FrozenSet[str], FrozenSet[str]]] = {}
    scoped: Dict[str, Tuple[FrozenSet[str], FrozenSet[str]]] = {}
    for m in members - unscoped:
        r: Set[str] = set()
        back: Set[str] = set()
        for t in owners.get(m, ()):
            if t not in reach_of:
                reach_of[t] = _reach(t, both, subtypes, bases, closure)
            r |= reach_of[t][0]
            back |= reach_of[t][1]
        scoped[m] = (frozenset(r - {m}), frozenset(back - {m}))
    return Changes(frozenset(names), scoped)


def _reach(t: str, fps, subtypes, bases, closure) -> Tuple[FrozenSet[str], FrozenSet[str]]:
    """The names through which a query can reach type ``t``'s properties and links without
    writing ``t``: its bases and subtypes, the links to any of them, the functions, aliases and
    globals naming them, and every computed property or link (its type is not written); and,
    apart, their own links (through a backlink ``.<link``, which a query without ``.<`` has
    not)."""
    family = {t} | closure({t}, subtypes) | closure({t}, bases)
    out: Set[str] = set(family)
    back: Set[str] = set()
    objects = {ty.name for fp in fps for ty in fp.types.values()}
    for fp in fps:
        for (kind, qn), text in fp.decls.items():
            if idents(text) & family:
                out.add(_short(qn))
        for ty in fp.types.values():
            for pname, p in ty.pointers.items():
                if p.target in family or p.computed:
                    out.add(pname)
                elif ty.name in family and p.target in objects:
                    back.add(pname)
    return frozenset(out), frozenset(back)


@dataclass(frozen=True)
class Changes:
    """What a schema edit changed (:func:`changed_names`): ``names`` affect every query that
    writes one; ``scoped`` properties and links affect a query that writes one together with
    a name reaching a type they belong to."""

    names: FrozenSet[str]
    scoped: Dict[str, Tuple[FrozenSet[str], FrozenSet[str]]]

    def all_names(self) -> Set[str]:
        return set(self.names) | set(self.scoped)


def affected(query_text: str, changes: "Changes") -> bool:
    """Whether a query (its text) may read what ``changes`` (:func:`changed_names`) names:
    it writes one of the names, a changed property or link with a name reaching its type, or
    it has a splat (``*``)."""
    if "*" in query_text:
        return True
    ids = idents(query_text)
    if ids & changes.names:
        return True
    backlinks = ".<" in query_text
    return any(ids & reach or (backlinks and ids & back) for m, (reach, back) in changes.scoped.items()
               if m in ids)
