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
from schemac.semantics.scalars import SCALARS


# ---------------------------------------------------------------------------------------------
# Keywords the grammar accepts at a position (lark's interactive LALR parser over the text of
# the statement before the cursor, with the compiler's own grammar file).

_LARK_LOCK = threading.Lock()


@functools.lru_cache(maxsize=1)
def _grammar_parser():
    from lark import Lark

    data = pkgutil.get_data("schemac.syntax", "grammar.lark")
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
    ctx = context_at(text, kind, offset, index, cache_key=path)
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
    """Every type name (cached per index: a 1,000-type library has 1,100 of them)."""
    cache = index.__dict__.setdefault("_type_items", {})
    key = (module, objects_only)
    if key not in cache:
        cache[key] = _type_items(index, module, objects_only)
    return cache[key]


def _type_items(index: SymbolIndex, module: str, objects_only: bool = False) -> List[Item]:
    items = []
    for kind, qn in index.type_names():
        if objects_only and kind != "type":
            continue
        if kind == "type" and index.types[qn].decl.abstract and objects_only:
            pass
        label = qn if kind == "builtin" else short_name(qn, module)
        detail = {"builtin": f"scalar: {SCALARS[qn].pg}" if qn in SCALARS else "scalar",
                  "scalar": "custom scalar", "enum": "enum", "type": "object type"}[kind]
        # scalars first, then custom scalars, enums, object types (after `select`: object types only)
        items.append(Item(label, {"builtin": "scalar"}.get(kind, kind), detail,
                          {"builtin": "0", "scalar": "1", "enum": "2", "type": "3"}[kind] + label))
    if not objects_only:
        items.append(Item("array", "scalar", "array<T>", "0array"))
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


#: The last scan of each file, across analyses: (text, symbol index, refs). Valid while the text
#: and the index (rebuilt only when a schema file changes) are the same.
_LAST_REFS: Dict[str, Tuple[str, object, List[Ref]]] = {}


def _refs_cached(analysis: Analysis, path: str, text: str) -> List[Ref]:
    cache = analysis.__dict__.setdefault("_refs", {})
    hit = cache.get(path)
    if hit is not None and hit[0] is text:
        return hit[1]
    last = _LAST_REFS.get(path)
    if last is not None and last[1] is analysis.index and (last[0] is text or last[0] == text):
        cache[path] = (text, last[2])
        return last[2]
    kind = "schema" if path in analysis.externs else (file_kind(path) or "query")
    if kind == "schema" and path not in analysis.externs:
        from schemac.lsp.tokens import scan_full

        refs = scan_full(text, kind, analysis.index, "default", path).refs
    else:
        refs = scan(text, kind, analysis.index, module=analysis.externs.get(path, "default")).refs
    cache[path] = (text, refs)
    _LAST_REFS[path] = (text, analysis.index, refs)
    return refs


def ref_at(analysis: Analysis, path: str, offset: int) -> Optional[Ref]:
    """The classified name at ``offset``. In a schema file whose full scan is not cached, only
    the part around ``offset`` is scanned (from the last checkpoint before it)."""
    cache = analysis.__dict__.get("_refs", {})
    text = analysis.texts.get(path)
    if text is None:
        return None
    hit = cache.get(path)
    if hit is not None and hit[0] is text or path in analysis.externs or file_kind(path) != "schema":
        refs = refs_of(analysis, path)
    else:
        from schemac.lsp.tokens import scan_cached

        end = text.find("\n}", offset)
        stop = len(text) if end < 0 else min(len(text), end + 2)
        refs = scan_cached(text, "schema", analysis.index, stop, "default", path, before=offset).refs
    for r in refs:
        if r.start <= offset <= r.end:
            return r
    return None


# ---------------------------------------------------------------------------------------------
# Locations of declarations

Loc = Tuple[str, int, int]  # (path, start offset, end offset)


def _line_index(analysis: Analysis, path: str):
    from schemac.lsp.text import LineIndex

    cache = analysis.__dict__.setdefault("_lines", {})
    text = analysis.texts.get(path, "")
    hit = cache.get(path)
    if hit is None or hit.text is not text:
        hit = LineIndex(text)
        cache[path] = hit
    return hit


def span_loc(analysis: Analysis, span) -> Optional[Loc]:
    if span is None or span.file not in analysis.texts:
        return None
    s, e = _line_index(analysis, span.file).span_offsets(span.line, span.col, span.end_line, span.end_col)
    return span.file, s, e


def declaration(analysis: Analysis, symbol: Tuple[str, ...]) -> Optional[Loc]:
    """Where ``symbol`` is declared."""
    idx = analysis.index
    kind = symbol[0]
    span = None
    if kind == "type" and symbol[1] in idx.types:
        span = idx.types[symbol[1]].span
    elif kind == "enum" and symbol[1] in idx.enums:
        span = idx.enums[symbol[1]].span
    elif kind == "scalar" and symbol[1] in idx.scalars:
        span = idx.scalars[symbol[1]].span
    elif kind == "member" and symbol[1] in idx.enums:
        span = next((s for m, s in idx.enums[symbol[1]].members if m == symbol[2]), None)
    elif kind == "ptr" and symbol[1] in idx.types:
        p = idx.types[symbol[1]].pointers.get(symbol[2])
        span = p.span if p is not None else None
    return span_loc(analysis, span)


#: Each file's last scan by symbol (path -> (its refs, symbol -> refs)): references and rename
#: look a symbol up per file rather than walk every name of a 2,000-file library.
_BY_SYMBOL: Dict[str, Tuple[List[Ref], Dict[Tuple[str, ...], List[Ref]]]] = {}


def refs_by_symbol(analysis: Analysis, path: str) -> Dict[Tuple[str, ...], List[Ref]]:
    refs = refs_of(analysis, path)
    hit = _BY_SYMBOL.get(path)
    if hit is not None and hit[0] is refs:
        return hit[1]
    table: Dict[Tuple[str, ...], List[Ref]] = {}
    for r in refs:
        table.setdefault(r.symbol, []).append(r)
    _BY_SYMBOL[path] = (refs, table)
    return table


def references(analysis: Analysis, symbol: Tuple[str, ...], include_decl: bool = True) -> List[Loc]:
    out: List[Loc] = []
    for path in sorted(analysis.texts):
        if file_kind(path) is None:
            continue
        for r in refs_by_symbol(analysis, path).get(symbol, ()):
            if include_decl or not r.decl:
                out.append((path, r.start, r.end))
    if include_decl:
        d = declaration(analysis, symbol)
        if d is not None and d not in out:
            out.insert(0, d)
    return out


# ---------------------------------------------------------------------------------------------
# Hover


def hover(analysis: Analysis, path: str, offset: int) -> Optional[Tuple[str, int, int]]:
    """Markdown for the name at ``offset`` (or, in a query file outside any name, the query's
    generated SQL, TypeScript and Go), and the range it describes."""
    r = ref_at(analysis, path, offset)
    if r is not None:
        md = describe(analysis, r.symbol, path)
        if md:
            return md, r.start, r.end
    if file_kind(path) == "query" and r is None:
        text = analysis.texts.get(path, "")
        word = _word_at(text, offset)
        if word is not None and text[word[0]:word[1]] in _QUERY_WORDS:
            md = query_hover(analysis, path)
            if md:
                return md, word[0], word[1]
    return None


_QUERY_WORDS = {"select", "insert", "update", "delete", "with", "for", "union"}


def _word_at(text: str, offset: int) -> Optional[Tuple[int, int]]:
    s = offset
    while s > 0 and (text[s - 1].isalnum() or text[s - 1] == "_"):
        s -= 1
    e = offset
    while e < len(text) and (text[e].isalnum() or text[e] == "_"):
        e += 1
    return (s, e) if e > s else None


def describe(analysis: Analysis, symbol: Tuple[str, ...], path: str) -> Optional[str]:
    idx = analysis.index
    schema = analysis.schema
    kind = symbol[0]
    if kind == "type":
        return type_hover(analysis, symbol[1])
    if kind == "enum" and symbol[1] in idx.enums:
        e = idx.enums[symbol[1]]
        members = ", ".join(m for m, _ in e.members)
        return (f"```edgeql\nenum {short_name(e.qualname)} {{ {members} }}\n```\n"
                f"Stored as `text` with a CHECK of its members (declaration order).")
    if kind == "member":
        return (f"```edgeql\n{short_name(symbol[1])}.{symbol[2]}\n```\nMember of enum `{short_name(symbol[1])}`; "
                f"stored as the text `'{symbol[2]}'`.")
    if kind == "scalar" and symbol[1] in idx.scalars:
        s = idx.scalars[symbol[1]].decl
        cons = "".join(f"\n- constraint `{c.name}`" for c in s.constraints)
        return f"```edgeql\nscalar type {s.name} extending {s.base}\n```{cons}"
    if kind == "builtin" and symbol[1] in SCALARS:
        sc = SCALARS[symbol[1]]
        return (f"```edgeql\n{sc.name}\n```\n| | |\n|---|---|\n| Postgres | `{sc.pg}` |\n| TypeScript | "
                f"`{sc.ts}` (parameter `{sc.ts_param}`) |\n| Go | `{sc.go}` (optional `{sc.go_nullable}`) |")
    if kind == "ptr":
        return pointer_hover(analysis, symbol[1], symbol[2])
    if kind == "id":
        tables = _concrete(analysis, symbol[1])
        table = f" Column `{tables[0].table}.id`: `uuid` NOT NULL DEFAULT `gen_random_uuid()`, the primary key." \
            if tables else ""
        return f"```edgeql\nrequired readonly property {short_name(symbol[1])}.id -> uuid\n```\nThe object's id " \
               f"(implicit).{table}"
    if kind == "param":
        plan = analysis.plans.get(path)
        if plan is not None:
            for p in plan.params:
                if "$" + p.name == symbol[1]:
                    opt = "optional " if p.optional else ""
                    return f"```edgeql\n{symbol[1]}: {opt}{p.type.name}\n```\nBound as `${p.index}` (`{p.type.pg}`)."
    return None


def _concrete(analysis: Analysis, qn: str) -> List[object]:
    """The resolved object types (tables) of ``qn``: itself, or its concrete subtypes."""
    schema = analysis.schema
    if qn in schema.types:
        return [schema.types[qn]]
    out, stack, seen = [], [qn], set()
    while stack:
        t = stack.pop(0)
        for sub in analysis.index.subtypes(t):
            if sub in seen:
                continue
            seen.add(sub)
            if sub in schema.types:
                out.append(schema.types[sub])
            else:
                stack.append(sub)
    return out


def type_hover(analysis: Analysis, qn: str) -> Optional[str]:
    info = analysis.index.types.get(qn)
    if info is None:
        return None
    d = info.decl
    head = ("abstract " if d.abstract else "") + f"type {short_name(qn)}"
    if d.extends:
        head += " extending " + ", ".join(n for n, _ in d.extends)
    out = [f"```edgeql\n{head}\n```"]
    tables = _concrete(analysis, qn)
    if d.abstract:
        out.append("Abstract: no table of its own" + (
            "; its properties are columns of " + ", ".join(f"`{t.table}`" for t in tables) if tables else "") + ".")
    for t in tables[:1] if not d.abstract else []:
        out.append(f"Table `{t.table}`" + (f" (library `{t.library}`)" if t.library else ""))
        rows = ["| column | type | null | default |", "|---|---|---|---|"]
        for c in t.columns:
            rows.append(f"| `{c.name}` | `{c.type.pg}` | {'' if c.required else 'NULL'} | "
                        f"{'`' + c.default_sql + '`' if c.default_sql else ''} |")
        out.append("\n".join(rows))
        cons = [f"- unique `{x.name}` ({', '.join(x.keys_sql or x.columns)})" + (f" where `{x.predicate_sql}`" if x.partial else "")
                for x in t.exclusives]
        cons += [f"- foreign key `{fk.name}`: `{fk.column}` -> `{fk.target_table}` ({fk.on_delete_sql})"
                 for fk in t.foreign_keys]
        cons += [f"- index `{i.name}` on ({', '.join(i.keys_sql)})" for i in t.indexes if i.span is not None]
        if cons:
            out.append("\n".join(cons))
        multi = [lk for lk in t.links.values() if lk.multi]
        if multi:
            out.append("\n".join(f"- multi link `{lk.name}`: join table `{lk.join_table}`" for lk in multi))
    if not analysis.schema_ok and not tables:
        out.append("_(the schema has errors: table details appear once it compiles)_")
    return "\n\n".join(out)


def pointer_hover(analysis: Analysis, owner: str, name: str) -> Optional[str]:
    idx = analysis.index
    info = idx.types.get(owner)
    p = info.pointers.get(name) if info else None
    if p is None:
        return None
    d = p.decl
    quals = ["required" if d.required else "optional"]
    if d.multi:
        quals.append("multi")
    kind = "link" if p.is_link else "property"
    typ = str(d.type) if d.type is not None else "(inherited)"
    out = [f"```edgeql\n{' '.join(quals)} {kind} {short_name(owner)}.{name} -> {typ}\n```"]
    facts = [f"Cardinality: {'at least one' if d.required and d.multi else 'any number' if d.multi else 'exactly one' if d.required else 'at most one'}"]
    if d.readonly:
        facts.append("readonly")
    if d.default is not None:
        facts.append("has a default")
    for c in d.constraints:
        args = ""
        if c.args:
            text = analysis.texts.get(c.span.file, "")
            loc = span_loc(analysis, c.span)
            args = text[loc[1]:loc[2]] if loc else c.name
            facts.append(f"`{args}`")
        else:
            facts.append(f"constraint `{c.name}`")
    out.append("\n".join(f"- {f}" for f in facts))
    for t in _concrete(analysis, owner)[:3]:
        col = t.column(name) or next((c for c in t.columns if c.link == name), None)
        if col is not None:
            out.append(f"Column `{t.table}.{col.name}`: `{col.type.pg}`{' NOT NULL' if col.required else ''}"
                       + (f" DEFAULT `{col.default_sql}`" if col.default_sql else ""))
        lk = t.links.get(name)
        if lk is not None and lk.multi:
            out.append(f"Join table `{lk.join_table}` (`{t.table}` -> `{lk.target.table}`)")
        elif lk is not None:
            out.append(f"References `{lk.target.table}`")
    return "\n\n".join(out)


def query_hover(analysis: Analysis, path: str) -> Optional[str]:
    plan = analysis.plans.get(path)
    if plan is None:
        return None
    ts, go = signatures(analysis, plan)
    card = {"one": "exactly one row", "at_most_one": "at most one row", "many": "any number of rows"}.get(
        plan.cardinality, plan.cardinality)
    parts = [f"**query `{plan.name}`** ({plan.kind}, returns {card})", f"```sql\n{plan.sql}\n```"]
    if ts:
        parts.append(f"TypeScript:\n```typescript\n{ts}\n```")
    if go:
        parts.append(f"Go:\n```go\n{go}\n```")
    return "\n\n".join(parts)


def signatures(analysis: Analysis, plan) -> Tuple[str, str]:
    """The TypeScript and Go declarations the back ends generate for one query (its argument
    and result types and the function's signature), rendered by the back ends themselves."""
    cache = analysis.__dict__.setdefault("_sigs", {})
    if id(plan) in cache:
        return cache[id(plan)]
    from schemac.semantics.library import Library
    from schemac.backends.go.codegen import render_go
    from schemac.semantics.model import Schema
    from schemac.backends.ts.codegen import render_typescript

    opts = analysis.config.compile_options()
    lib = Library(opts, Schema(), [plan], [])
    try:
        ts_text = render_typescript(lib)["queries.ts"]
        go_text = render_go(lib)["queries.go"]
    except Exception:  # a back end that cannot render this plan: no signatures
        return "", ""
    # A function's head may span lines (one parameter a line when it is long, as for a query
    # that reads globals): its parameter list is matched up to its closing parenthesis.
    params = r"\((?:[^()]|\([^()]*\))*\)[^\n{]*\{$"
    ts = "\n\n".join(m.group(0).rstrip() for m in re.finditer(
        r"^export interface (?!Queryable\b)\w+ \{\n(?:.*\n)*?\}$|^export (?:async )?function \w+" + params,
        ts_text, re.M))
    go = "\n\n".join(m.group(0).rstrip() for m in re.finditer(
        r"^type \w+ struct \{\n(?:.*\n)*?\}$|^func \(q \*Queries\) \w+" + params, go_text, re.M))
    # signatures, not bodies: `function f(...): T {` -> `function f(...): T;`
    ts = re.sub(r"^(export (?:async )?function [^{]*(?:\{\}[^{]*)*) \{$", r"\1;", ts, flags=re.M) if ts else ts
    go = re.sub(r"(^func [^{]*) \{$", r"\1", go, flags=re.M) if go else go
    cache[id(plan)] = (ts, go)
    return ts, go


# ---------------------------------------------------------------------------------------------
# Symbols


@dataclass
class Symbol:
    name: str
    kind: str  # type enum member scalar field query
    loc: Loc
    detail: str = ""
    children: Tuple["Symbol", ...] = ()
    container: str = ""


def document_symbols(analysis: Analysis, path: str) -> List[Symbol]:
    idx = analysis.index
    out: List[Symbol] = []
    if file_kind(path) == "query":
        pf = analysis.files.get(path)
        text = analysis.texts.get(path, "")
        name = path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
        m = re.compile(r"(?:\s|#[^\n]*)*([A-Za-z_]+)").match(text)
        start = m.start(1) if m else 0
        end = len(text.rstrip())
        plan = analysis.plans.get(path)
        detail = ("" if plan is None else plan.kind if plan.subject is None
                  else f"{plan.kind} {short_name(plan.subject.qualname)}")
        out.append(Symbol(name, "query", (path, start, max(end, start)), detail))
        return out
    for qn, e in idx.enums.items():
        if e.decl.span.file == path:
            full = span_loc(analysis, e.decl.span)
            kids = tuple(Symbol(m, "member", span_loc(analysis, s), short_name(qn)) for m, s in e.members
                         if span_loc(analysis, s))
            out.append(Symbol(short_name(qn), "enum", full or span_loc(analysis, e.span), "enum", kids))
    for qn, s in idx.scalars.items():
        if s.decl.span.file == path:
            out.append(Symbol(short_name(qn), "scalar", span_loc(analysis, s.decl.span), f"extending {s.decl.base}"))
    for qn, t in idx.types.items():
        if t.decl.span.file == path:
            kids = tuple(Symbol(n, "field", span_loc(analysis, p.decl.span) or span_loc(analysis, p.span),
                                describe_pointer(idx, p)) for n, p in t.pointers.items())
            out.append(Symbol(short_name(qn), "type", span_loc(analysis, t.decl.span),
                              "abstract type" if t.decl.abstract else "type", kids))
    out.sort(key=lambda s: s.loc[1] if s.loc else 0)
    return [s for s in out if s.loc is not None]


def workspace_symbols(analyses: Sequence[Analysis], query: str) -> List[Symbol]:
    q = query.lower()
    out: List[Symbol] = []
    seen = set()
    for a in analyses:
        lib = a.config.name
        for path in sorted(a.texts):
            if path in a.externs or path in seen:
                continue
            seen.add(path)
            for s in document_symbols(a, path):
                for x in (s,) + s.children:
                    if not q or q in x.name.lower():
                        out.append(Symbol(x.name, x.kind, x.loc, x.detail, (), s.name if x is not s else lib))
    return out


# ---------------------------------------------------------------------------------------------
# Rename (with the migration hint that keeps the data: docs/migrations.md, "Hints")

_IDENT = re.compile(r"[^\W\d]\w*\Z")
RENAMEABLE = ("type", "enum", "member", "ptr", "scalar")


class RenameError(Exception):
    pass


Edit = Tuple[int, int, str]


def prepare_rename(analysis: Analysis, path: str, offset: int) -> Tuple[int, int, str]:
    """The range of the name to rename at ``offset`` and its text; :class:`RenameError` when
    it cannot be renamed here."""
    r = ref_at(analysis, path, offset)
    if r is None or r.symbol[0] not in RENAMEABLE:
        raise RenameError("only types, enums, enum members, custom scalars, properties and links can be renamed")
    decl = declaration(analysis, r.symbol)
    if decl is None:
        raise RenameError(f"cannot find the declaration of '{r.symbol[-1]}'")
    if decl[0] in analysis.externs:
        raise RenameError(f"'{r.symbol[-1]}' is declared in library '{analysis.externs[decl[0]]}': rename it there")
    return r.start, r.end, r.symbol[-1].rsplit("::", 1)[-1]


def rename(analysis: Analysis, path: str, offset: int, new: str) -> Dict[str, List[Edit]]:
    """Edits (per file) renaming the symbol at ``offset`` to ``new`` everywhere in its library,
    plus, when the last migration has the old name, a ``migration { rename ... }`` hint so the
    next migration renames the table, column or member instead of dropping it."""
    prepare_rename(analysis, path, offset)
    r = ref_at(analysis, path, offset)
    assert r is not None
    sym = r.symbol
    if not _IDENT.match(new):
        raise RenameError(f"'{new}' is not a valid name")
    old = sym[-1].rsplit("::", 1)[-1]
    if new == old:
        return {}
    _check_conflict(analysis, sym, new)
    edits: Dict[str, List[Edit]] = {}
    for p, s, e in references(analysis, sym, include_decl=True):
        edits.setdefault(p, []).append((s, e, new))
    hint = migration_hint(analysis, sym, new)
    if hint is not None:
        p, at, text = hint
        edits.setdefault(p, []).append((at, at, text))
    for p in edits:
        edits[p] = sorted(set(edits[p]))
    return edits


def _check_conflict(analysis: Analysis, sym: Tuple[str, ...], new: str) -> None:
    idx = analysis.index
    kind = sym[0]
    if kind in ("type", "enum", "scalar"):
        module = sym[1].rpartition("::")[0]
        if f"{module}::{new}" in idx.types or f"{module}::{new}" in idx.enums or f"{module}::{new}" in idx.scalars:
            raise RenameError(f"'{new}' is already declared in module {module}")
        if new in SCALARS:
            raise RenameError(f"'{new}' is a built-in scalar type")
    elif kind == "member":
        if new in [m for m, _ in idx.enums[sym[1]].members]:
            raise RenameError(f"'{short_name(sym[1])}' already has a member '{new}'")
    elif kind == "ptr":
        owners = [sym[1]] + _all_subtypes(idx, sym[1])
        for t in owners:
            if new in idx.pointers_of(t) or new == "id":
                raise RenameError(f"type '{short_name(t)}' already has a property or link '{new}'")


def _all_subtypes(idx: SymbolIndex, qn: str) -> List[str]:
    out, stack = [], [qn]
    while stack:
        for s in idx.subtypes(stack.pop()):
            if s not in out:
                out.append(s)
                stack.append(s)
    return out


def _snapshot(analysis: Analysis) -> Optional[dict]:
    import json
    import os

    path = os.path.join(analysis.config.root, "migrations", "snapshot.json")
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def migration_hint(analysis: Analysis, sym: Tuple[str, ...], new: str) -> Optional[Tuple[str, int, str]]:
    """``(file, offset, text)`` inserting the hint for renaming ``sym`` to ``new``, or ``None``
    when the last migration (``migrations/snapshot.json``) does not have the old name (nothing
    to keep: the next migration creates it under its new name)."""
    snap = _snapshot(analysis)
    if snap is None:
        return None
    idx = analysis.index
    kind, qn = sym[0], sym[1]
    module = qn.rpartition("::")[0]
    tables = snap.get("tables", [])
    hints: List[str] = []
    if kind == "type":
        if any(t.get("origin") == qn for t in tables):
            hints.append(f"rename type {short_name(qn, module)} to {new}")
        decl_span = idx.types[qn].decl.span
    elif kind == "member":
        if sym[2] in snap.get("enums", {}).get(qn, []):
            hints.append(f"rename member {short_name(qn, module)}.{sym[2]} to {new}")
        decl_span = idx.enums[qn].decl.span
    elif kind == "ptr":
        name = sym[2]
        p = idx.types[qn].pointers[name]
        word = "link" if p.is_link else "property"
        for t in [qn] + _all_subtypes(idx, qn):
            if any(tb.get("origin") == t and any(c.get("pointer") == name for c in tb.get("columns", []))
                   or tb.get("origin") == f"{t}.{name}" for tb in tables):
                hints.append(f"rename {word} {short_name(t, module)}.{name} to {new}")
        decl_span = idx.types[qn].decl.span
    else:
        return None
    if not hints:
        return None
    loc = span_loc(analysis, decl_span)
    if loc is None:
        return None
    return insert_hints(analysis, module, hints, loc[0], loc[2], decl_span_start(analysis, decl_span))


def insert_hints(analysis: Analysis, module: str, hints: List[str], path: str, after: int,
                 indent_from: int) -> Tuple[str, int, str]:
    """``(file, offset, text)`` adding the hint statements ``hints`` to a ``migration { ... }``
    block of ``module``: the first in the library's schema files, else a new one at ``after`` in
    ``path``, indented like the line of ``indent_from``."""
    for p in sorted(analysis.texts):
        if file_kind(p) != "schema" or p in analysis.externs:
            continue
        text = analysis.texts[p]
        for mod, open_at, close_at in scan(text, "schema", analysis.index).migration_blocks:
            if mod != module:
                continue
            line_start = text.rfind("\n", 0, close_at) + 1
            indent = re.match(r"[ \t]*", text[line_start:]).group()
            if text[line_start:close_at].strip() == "":
                return p, line_start, "".join(f"{indent}  {h};\n" for h in hints)
            return p, close_at, "".join(f" {h};" for h in hints) + " "
    text = analysis.texts[path]
    line_start = text.rfind("\n", 0, indent_from) + 1
    indent = re.match(r"[ \t]*", text[line_start:]).group()
    body = "".join(f"{indent}  {h};\n" for h in hints)
    return path, after, f"\n\n{indent}migration {{\n{body}{indent}}}"


def decl_span_start(analysis: Analysis, span) -> int:
    loc = span_loc(analysis, span)
    return loc[1] if loc else 0


# ---------------------------------------------------------------------------------------------
# Code actions: the compiler's "did you mean" fixes

_DID_YOU_MEAN = re.compile(r"did you mean '([^']+)'\?")


_HINT_STATEMENT = re.compile(r"`((?:drop|cast|fill|map member) [^`;]*);?`")


def hint_fixes(analysis: Analysis, path: str, hint: Optional[str]) -> List[Tuple[str, Tuple[str, int, str]]]:
    """Quick fixes for a diagnostic of the migration check whose hint names the `migration`
    statement to add (`drop property Job.payload;`, `cast Job.claimed_at;`, `fill Job.priority
    using (...)`, `map member S.Gone to <member>`): (title, (file, offset, text)) each."""
    if not hint:
        return []
    out = []
    for m in _HINT_STATEMENT.finditer(hint):
        stmt = m.group(1).strip()
        text = analysis.texts.get(path, "")
        title = f"Add `{stmt};` to the migration block"
        if "(...)" in stmt or "<value>" in stmt or "<member>" in stmt:
            title += " (then write the value)"
        out.append((title, insert_hints(analysis, "default", [stmt], path, len(text.rstrip()), len(text.rstrip()))))
    return out


def quick_fix(text: str, start: int, end: int, hint: Optional[str]) -> Optional[Tuple[int, int, str, str]]:
    """For a diagnostic over ``text[start:end]`` whose hint is ``did you mean 'x'?``: the edit
    (start, end, replacement) and its title, replacing the misspelled name (the last name in
    the range) by the suggestion."""
    if not hint:
        return None
    m = _DID_YOU_MEAN.search(hint)
    if not m:
        return None
    suggestion = m.group(1)
    names = list(re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", text[start:end]))
    if not names:
        return None
    word = names[-1]
    s, e = start + word.start(), start + word.end()
    if text[s:e] == suggestion:
        return None
    return s, e, suggestion, f"Change '{text[s:e]}' to '{suggestion}'"
