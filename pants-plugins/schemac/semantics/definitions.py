"""Abstract link and property definitions, and the pointers that extend them.

``abstract link crew { property list_order -> int64; }`` defines what every link declared
``multi link cast extending crew -> Person`` has (https://docs.geldata.com/reference/datamodel/links#abstract-links,
https://docs.geldata.com/reference/datamodel/properties): its link properties, constraints,
annotations, default, ``readonly``, deletion policies and rewrites, merged into the extending
pointer, whose own members come after (and win over) the inherited ones. An abstract pointer
may extend others (``abstract link cast extending crew``). Nothing else exists in Postgres: the
definition is a template, expanded where it is used before the schema is resolved, so the
extending pointer is stored and checked like any other.
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Optional, Sequence, Set, Tuple

from schemac.syntax import tree as ast
from schemac.diagnostics import Reporter, Span, did_you_mean
from schemac.semantics.model import name_candidates


def abstract_pointers(files: Sequence[ast.SchemaFile], reporter: Reporter,
                      module_library: Dict[str, str]) -> Dict[str, ast.AbstractDecl]:
    """``{qualified name: definition}`` of every ``abstract link`` / ``abstract property``."""
    out: Dict[str, ast.AbstractDecl] = {}
    for f in files:
        for d in getattr(f, "definitions", ()):
            if isinstance(d, ast.AbstractDecl) and d.kind in ("link", "property") and d.pointer is not None:
                key = f"{d.module}::{d.name}"
                if key in out:
                    first = out[key].name_span
                    reporter.error("E0200", f"abstract {d.kind} '{d.name}' is already defined at "
                                   f"{first.file}:{first.line}:{first.col}", d.name_span)
                    continue
                out[key] = d
    return out


class _Expander:
    def __init__(self, defs: Dict[str, ast.AbstractDecl], reporter: Reporter, module_library: Dict[str, str]):
        self.defs = defs
        self.reporter = reporter
        self.module_library = module_library
        self.flat: Dict[str, Optional[ast.PointerDecl]] = {}

    def find(self, name: str, module: str, span: Span, kind: Optional[str]) -> Optional[str]:
        for key in name_candidates(name, module, self.module_library):
            if key in self.defs:
                d = self.defs[key]
                if kind is not None and d.kind != kind:
                    self.reporter.error("E0204", f"a {kind} cannot extend abstract {d.kind} '{name}'", span)
                    return None
                return key
        self.reporter.error("E0201", f"unknown abstract {kind or 'link or property'} '{name}'", span,
                            did_you_mean(name.split("::")[-1], [d.name for d in self.defs.values()
                                                                if kind is None or d.kind == kind]))
        return None

    def definition(self, key: str, active: Set[str]) -> Optional[ast.PointerDecl]:
        """The body of abstract pointer ``key`` with its own bases merged in."""
        if key in self.flat:
            return self.flat[key]
        d = self.defs[key]
        if key in active:
            self.reporter.error("E0210", f"abstract {d.kind} '{d.name}' extends itself", d.name_span)
            return None
        active.add(key)
        body = d.pointer
        assert body is not None
        bases = tuple(dict.fromkeys(d.extends + body.extends))
        merged = self.merge(dataclasses.replace(body, extends=bases), d.module, d.kind, active)
        active.discard(key)
        self.flat[key] = merged
        return merged

    def merge(self, p: ast.PointerDecl, module: str, kind: Optional[str], active: Set[str]) -> Optional[ast.PointerDecl]:
        """``p`` with the members of the abstract pointers it extends (theirs first)."""
        if not p.extends:
            return p
        inherited: List[ast.PointerDecl] = []
        for name, span in p.extends:
            key = self.find(name, module, span, kind)
            if key is None:
                return None
            base = self.definition(key, active)
            if base is None:
                return None
            inherited.append(base)
        out = p
        for base in reversed(inherited):  # (the first base wins over later ones)
            own_props = {lp.name for lp in out.link_props}
            out = dataclasses.replace(
                out,
                link_props=tuple(lp for lp in base.link_props if lp.name not in own_props) + out.link_props,
                constraints=base.constraints + out.constraints,
                annotations=base.annotations + out.annotations,
                default=out.default if out.default is not None else base.default,
                readonly=out.readonly if out.readonly is not None else base.readonly,
                required=out.required if out.required is not None else base.required,
                on_target_delete=out.on_target_delete or base.on_target_delete,
                on_source_delete=out.on_source_delete or base.on_source_delete,
                on_source_delete_span=out.on_source_delete_span if out.on_source_delete else base.on_source_delete_span,
                rewrites=base.rewrites + out.rewrites,
                indexes=base.indexes + out.indexes,
            )
        return dataclasses.replace(out, extends=())


def expand_types(decls: Dict[str, ast.TypeDecl], defs: Dict[str, ast.AbstractDecl], reporter: Reporter,
                 module_library: Dict[str, str]) -> None:
    """Replace, in ``decls``, every pointer that extends abstract pointers by the merged
    declaration (an unresolvable one is left without its ``extending``, after reporting)."""
    ex = _Expander(defs, reporter, module_library)
    for key, t in list(decls.items()):
        if not any(p.extends for p in t.pointers):
            continue
        pointers: List[ast.PointerDecl] = []
        for p in t.pointers:
            if p.extends:
                kind = "link" if p.kind == "link" else "property" if p.kind == "property" else None
                merged = ex.merge(p, t.module, kind, set())
                p = merged if merged is not None else dataclasses.replace(p, extends=())
            pointers.append(p)
        decls[key] = dataclasses.replace(t, pointers=tuple(pointers))
