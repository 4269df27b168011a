"""The symbol index of a library: every declared type, enum (and its members), custom scalar,
property and link, with where it is declared, built from the files' syntax trees
(:mod:`schemac.syntax.tree`). It answers the name lookups of the token scan
(:mod:`schemac.lsp.tokens`) without the resolved schema, so it also works from the last good
parse of a file that no longer parses.

Names resolve as the compiler resolves them (:func:`schemac.semantics.model.name_candidates`): a bare
name in its module, then in ``default``; a dependency library's modules are moved under the
library's name (:func:`schemac.semantics.resolve.extern_file`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

from schemac.syntax import tree as ast
from schemac.diagnostics import Span
from schemac.semantics.model import name_candidates
from schemac.semantics.scalars import SCALARS


@dataclass
class PtrInfo:
    """A property or link as declared (``decl``) in type ``owner`` (a qualified name)."""

    name: str
    owner: str
    decl: ast.PointerDecl
    #: The qualified name of the object type a link points to (``None`` for a property).
    target: Optional[str] = None

    @property
    def span(self) -> Span:
        return self.decl.name_span

    @property
    def is_link(self) -> bool:
        return self.target is not None


@dataclass
class TypeInfo:
    qualname: str
    decl: ast.TypeDecl
    bases: List[str] = field(default_factory=list)
    pointers: Dict[str, PtrInfo] = field(default_factory=dict)

    @property
    def span(self) -> Span:
        return self.decl.name_span


@dataclass
class EnumInfo:
    qualname: str
    decl: ast.EnumDecl
    name_span: Span

    @property
    def span(self) -> Span:
        return self.name_span

    @property
    def members(self) -> List[Tuple[str, Span]]:
        return list(self.decl.members)


@dataclass
class ScalarInfo:
    qualname: str
    decl: ast.ScalarDecl

    @property
    def span(self) -> Span:
        return self.decl.name_span


def _enum_name_span(decl: ast.EnumDecl, texts: Dict[str, str], split: Dict[str, List[str]]) -> Span:
    """The span of an enum's name (the syntax tree keeps only the declaration's span)."""
    s = decl.span
    text = texts.get(s.file)
    if text is not None:
        lines = split.get(s.file)
        if lines is None:
            lines = split[s.file] = text.split("\n")
        if 1 <= s.line <= len(lines):
            chunk = "\n".join(lines[s.line - 1:s.line + 2])[s.col - 1:]
            m = re.search(r"\b" + re.escape(decl.name) + r"\b", chunk)
            if m:
                before = chunk[:m.start()]
                line = s.line + before.count("\n")
                col = (s.col + m.start()) if "\n" not in before else len(before) - before.rfind("\n")
                return Span(s.file, line, col, line, col + len(decl.name))
    return s


class SymbolIndex:
    """Declarations of one library (and of its dependency libraries, under their names)."""

    def __init__(self) -> None:
        self.types: Dict[str, TypeInfo] = {}
        self.enums: Dict[str, EnumInfo] = {}
        self.scalars: Dict[str, ScalarInfo] = {}
        self.module_library: Dict[str, str] = {}
        self.modules: set = {"default"}

    @classmethod
    def build(cls, files: Iterable[ast.SchemaFile], texts: Dict[str, str]) -> "SymbolIndex":
        """``files``: this library's files and its dependencies' files already moved under
        their library (see :func:`schemac.semantics.resolve.extern_file`)."""
        idx = cls()
        split: Dict[str, List[str]] = {}
        for f in files:
            idx.modules.update(name for name, _ in f.modules)
            for e in f.enums:
                idx.enums.setdefault(f"{e.module}::{e.name}", EnumInfo(f"{e.module}::{e.name}", e,
                                                                       _enum_name_span(e, texts, split)))
            for s in f.scalars:
                idx.scalars.setdefault(f"{s.module}::{s.name}", ScalarInfo(f"{s.module}::{s.name}", s))
            for t in f.types:
                qn = f"{t.module}::{t.name}"
                if qn in idx.types:
                    continue
                info = TypeInfo(qn, t)
                for p in t.pointers:
                    info.pointers.setdefault(p.name, PtrInfo(p.name, qn, p))
                idx.types[qn] = info
        for info in idx.types.values():
            module = info.decl.module
            info.bases = [b for b in (idx.resolve(name, module, "type") for name, _ in info.decl.extends) if b]
            for p in info.pointers.values():
                if p.decl.type is not None:
                    p.target = idx.resolve(p.decl.type.name, module, "type")
        # Overloaded pointers without a type keep the inherited target.
        for info in idx.types.values():
            for p in info.pointers.values():
                if p.decl.type is None:
                    base = idx.find_ptr(info.qualname, p.name, skip_own=True)
                    if base is not None:
                        p.target = base.target
        return idx

    def set_libraries(self, module_library: Dict[str, str]) -> None:
        self.module_library = dict(module_library)

    # ---------------------------------------------------------------- lookups
    def resolve(self, name: str, module: str = "default", kind: Optional[str] = None) -> Optional[str]:
        """The qualified name ``name`` means in ``module``: an object type (``kind="type"``),
        an enum (``"enum"``), a custom scalar (``"scalar"``), or any of them (``None``)."""
        tables = {"type": (self.types,), "enum": (self.enums,), "scalar": (self.scalars,)}
        for key in name_candidates(name, module, self.module_library):
            for table in tables.get(kind, (self.types, self.enums, self.scalars)) if kind else (
                    self.types, self.enums, self.scalars):
                if key in table:
                    return key
        return None

    def kind_of(self, qualname: str) -> Optional[str]:
        if qualname in self.types:
            return "type"
        if qualname in self.enums:
            return "enum"
        if qualname in self.scalars:
            return "scalar"
        return None

    def find_ptr(self, type_qn: str, name: str, skip_own: bool = False, _seen=None) -> Optional[PtrInfo]:
        """The declaration of pointer ``name`` as seen from type ``type_qn``: its own (unless
        ``overloaded``), else the first base's (depth first, in ``extending`` order)."""
        info = self.types.get(type_qn)
        if info is None:
            return None
        seen = _seen if _seen is not None else set()
        if type_qn in seen:
            return None
        seen.add(type_qn)
        own = None if skip_own else info.pointers.get(name)
        if own is not None and not own.decl.overloaded:
            return own
        for b in info.bases:
            found = self.find_ptr(b, name, _seen=seen)
            if found is not None:
                return found
        return own

    def pointers_of(self, type_qn: str) -> Dict[str, PtrInfo]:
        """Every pointer of a type, inherited ones included (the declaration that defines it)."""
        out: Dict[str, PtrInfo] = {}
        order: List[str] = []
        stack, seen = [type_qn], set()
        while stack:
            t = stack.pop(0)
            if t in seen or t not in self.types:
                continue
            seen.add(t)
            order.append(t)
            stack.extend(self.types[t].bases)
        for t in order:
            for name in self.types[t].pointers:
                if name not in out:
                    p = self.find_ptr(type_qn, name)
                    if p is not None:
                        out[name] = p
        return out

    def subtypes(self, type_qn: str) -> List[str]:
        return [qn for qn, info in self.types.items() if type_qn in info.bases]

    def type_names(self) -> List[Tuple[str, str]]:
        """``(kind, qualified name)`` of every type name a schema may use."""
        out = [("builtin", n) for n in SCALARS]
        out += [("scalar", q) for q in self.scalars]
        out += [("enum", q) for q in self.enums]
        out += [("type", q) for q in self.types]
        return out


def short_name(qualname: str, module: str = "default") -> str:
    """How ``qualname`` is written from ``module``: bare when it lives in ``module`` or in
    ``default``, else qualified."""
    mod, _, name = qualname.rpartition("::")
    if mod in (module, "default"):
        return name
    return qualname
