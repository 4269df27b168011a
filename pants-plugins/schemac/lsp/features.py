"""The language features as plain functions over an :class:`~schemac.lsp.analysis.Analysis`
and offsets into a document's text; :mod:`schemac.lsp.server` converts them to the protocol.
"""

from __future__ import annotations

import functools
import pkgutil
import re
import threading
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from schemac.lsp.analysis import Analysis, file_kind
from schemac.lsp.index import SymbolIndex, short_name
from schemac.lsp.tokens import Context, Ref, context_at, scan
from schemac.scalars import SCALARS


# ---------------------------------------------------------------------------------------------
# Keywords the grammar accepts at a position (lark's interactive LALR parser over the text of
# the statement before the cursor, with the compiler's own grammar file).

_LARK_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1)
def _grammar_parser():
    from lark import Lark

    data = pkgutil.get_data("schemac", "grammar.lark")
    assert data is not None
    with _LARK_LOCK:
        return Lark(data.decode("utf-8"), parser="lalr", lexer="contextual", start=["schema", "query_file"])


def warm_up() -> None:
    """Build the grammar's parser now (about a second), e.g. in a background thread."""
    _grammar_parser()


@functools.lru_cache(maxsize=1)
def _terminal_words() -> Dict[str, Tuple[str, ...]]:
    """Terminal name -> the keywords it matches (``SELECT`` -> ``select``, ``ORDER_DIR`` ->
    ``asc``, ``desc``); terminals that are not words are left out."""
    out: Dict[str, Tuple[str, ...]] = {}
    for t in _grammar_parser().terminals:
        p = t.pattern
        if p.type == "str" and re.fullmatch(r"[a-z_]+", p.value):
            out[t.name] = (p.value,)
        elif p.type == "re":
            m = re.fullmatch(r"\(\?:([a-z_|]+)\)", p.value)
            if m:
                out[t.name] = tuple(m.group(1).split("|"))
            else:
                words = tuple(w for w in p.value.strip("()?:").split("|") if re.fullmatch(r"[a-z_]+", w))
                if words:
                    out[t.name] = words
    return out


def grammar_keywords(text: str, start: str) -> Optional[Tuple[List[str], bool]]:
    """The keywords the grammar accepts after ``text`` (a prefix of a file from a point where
    ``start`` may begin), and whether a name is accepted there; ``None`` when ``text`` has a
    syntax error already."""
    from lark.exceptions import LarkError

    parser = _grammar_parser()
    try:
        ip = parser.parse_interactive(text, start=start)
        ip.exhaust_lexer()
        accepts = ip.accepts()
    except LarkError:
        return None
    words = _terminal_words()
    out = sorted({w for name in accepts for w in words.get(name, ())})
    return out, "NAME" in accepts


# ---------------------------------------------------------------------------------------------
# Completion


@dataclass(frozen=True)
class Item:
    label: str
    kind: str  # member field type enum scalar keyword param
    detail: str = ""
    sort: str = ""
    insert: Optional[str] = None


def complete(analysis: Analysis, path: str, text: str, offset: int) -> Tuple[List[Item], int]:
    """Completion items at ``offset`` of ``text`` (the file ``path`` of ``analysis``' library)
    and the offset where the word they replace starts."""
    kind = file_kind(path) or "query"
    index = analysis.index
    ctx = context_at(text, kind, offset, index)
    module = ctx.scan.frames[-1].module if ctx.scan else "default"
    items: List[Item] = []
    if ctx.kind == "members" and ctx.enum:
        for i, (m, _) in enumerate(index.enums[ctx.enum].members):
            items.append(Item(m, "member", f"{short_name(ctx.enum)} member", f"{i:04d}"))
    elif ctx.kind == "pointers" and ctx.type:
        items = pointer_items(index, ctx.type, skip=ctx.assigned)
    elif ctx.kind == "types":
        items = type_items(index, module, objects_only=ctx.objects_only)
    elif ctx.kind == "params":
        seen = []
        for p in (ctx.scan.params if ctx.scan else []) + [m.group() for m in re.finditer(r"\$[A-Za-z_]\w*", text)]:
            if p not in seen and p != ctx.prefix:
                seen.append(p)
        items = [Item(p, "param", "parameter used in this file", insert=p) for p in seen]
    elif ctx.kind == "general":
        items = general_items(analysis, kind, text, ctx, module)
    return items, ctx.prefix_start


def pointer_items(index: SymbolIndex, type_qn: str, skip: Sequence[str] = ()) -> List[Item]:
    items = []
    if "id" not in skip:
        items.append(Item("id", "field", "uuid (required, readonly): the object's id", "0"))
    for i, (name, p) in enumerate(index.pointers_of(type_qn).items()):
        if name in skip:
            continue
        items.append(Item(name, "field", describe_pointer(index, p), f"1{i:04d}"))
    return items


def describe_pointer(index: SymbolIndex, p) -> str:
    d = p.decl
    typ = str(d.type) if d.type is not None else "(inherited type)"
    quals = []
    quals.append("required" if d.required else "optional")
    if d.multi:
        quals.append("multi")
    quals.append("link" if p.is_link else "property")
    return f"{typ} ({', '.join(quals)})"


def type_items(index: SymbolIndex, module: str, objects_only: bool = False) -> List[Item]:
    items = []
    for kind, qn in index.type_names():
        if objects_only and kind != "type":
            continue
        if kind == "type" and index.types[qn].decl.abstract and objects_only:
            pass
        label = qn if kind == "builtin" else short_name(qn, module)
        detail = {"builtin": f"scalar: {SCALARS[qn].pg}" if qn in SCALARS else "scalar",
                  "scalar": "custom scalar", "enum": "enum", "type": "object type"}[kind]
        items.append(Item(label, {"builtin": "scalar"}.get(kind, kind), detail, {"type": "0", "enum": "1"}.get(kind, "2")
                          + label))
    if not objects_only:
        items.append(Item("array", "scalar", "array<T>", "3array"))
    return items


def general_items(analysis: Analysis, kind: str, text: str, ctx: Context, module: str) -> List[Item]:
    index = analysis.index
    start = "schema" if kind == "schema" else "query_file"
    begin = ctx.statement_start if kind == "schema" else 0
    got = grammar_keywords(text[begin:ctx.prefix_start], start)
    items: List[Item] = []
    name_ok = True
    if got is not None:
        words, name_ok = got
        items += [Item(w, "keyword", "keyword", "5" + w) for w in words]
    if name_ok:
        frame = ctx.scan.frames[-1] if ctx.scan else None
        if kind == "query" or (frame is not None and frame.kind in ("paren", "brace", "bracket", "ptr")):
            for qn in index.enums:
                items.append(Item(short_name(qn, module), "enum", "enum", "1" + qn))
        if kind == "query":
            for v in sorted(ctx.scan.variables if ctx.scan else ()):
                items.append(Item(v, "variable", "variable", "0" + v))
    return items


# ---------------------------------------------------------------------------------------------
# References


def refs_of(analysis: Analysis, path: str) -> List[Ref]:
    """Every classified name of a file of the library (cached per text)."""
    text = analysis.texts.get(path)
    if text is None:
        return []
    return _refs_cached(analysis, path, text)


def _refs_cached(analysis: Analysis, path: str, text: str) -> List[Ref]:
    cache = analysis.__dict__.setdefault("_refs", {})
    hit = cache.get(path)
    if hit is not None and hit[0] is text:
        return hit[1]
    kind = "schema" if path in analysis.externs else (file_kind(path) or "query")
    refs = scan(text, kind, analysis.index, module=analysis.externs.get(path, "default")).refs
    cache[path] = (text, refs)
    return refs


def ref_at(analysis: Analysis, path: str, offset: int) -> Optional[Ref]:
    for r in refs_of(analysis, path):
        if r.start <= offset <= r.end:
            return r
    return None
