"""A tolerant token-level scan of schema and query files, for the language server.

The compiler's parser stops at the first syntax error; an editor's text is mostly mid-edit.
This module never fails: :func:`lex` splits any text into tokens (an unclosed string runs to
the end of its line), and :func:`scan` walks them with a stack of brace/paren frames, tracking
the module, the type whose body we are in, the subject of each query (``select Job``, ``update
Job``, ``(select User filter ...)``) and the type of each nested shape (``author: { ... }``),
to classify each name:

* declarations: types, enums and their members, custom scalars, properties and links;
* references: type names, ``Enum.Member``, ``.property`` paths (through links: ``.author.name``),
  shape elements and assignments, the names of ``migration { ... }`` hints;

and to tell what may come at a position (:func:`context_at`), which completion uses. Names
are looked up in a :class:`~schemac.lsp.index.SymbolIndex` (the last good parse of every schema
file), so a query that does not parse still completes against the schema.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from schemac.lsp.index import SymbolIndex

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<str>r?'(?:[^'\\\n]|\\.)*'?|r?"(?:[^"\\\n]|\\.)*"?)
  | (?P<bt>`[^`\n]*`?)
  | (?P<param>\$\w*)
  | (?P<num>[0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9]+)?n?)
  | (?P<name>[^\W\d]\w*)
  | (?P<op>::|:=|\+=|-=|->|\?\?|\+\+|\?!=|\?=|!=|<=|>=|.)
    """,
    re.X | re.S,
)


@dataclass(frozen=True)
class Tok:
    kind: str  # name | str | param | num | op | comment
    text: str
    start: int
    end: int

    @property
    def value(self) -> str:
        """A name without its backticks."""
        if self.kind == "name" and self.text.startswith("`"):
            return self.text.strip("`")
        return self.text


def lex(text: str, keep_comments: bool = False) -> List[Tok]:
    out: List[Tok] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "ws" or (kind == "comment" and not keep_comments):
            continue
        if kind == "bt":
            kind = "name"
        out.append(Tok(kind, m.group(), m.start(), m.end()))  # type: ignore[arg-type]
    return out


@dataclass(frozen=True)
class Ref:
    """A name in a file and what it denotes. ``symbol``: ``("type", qn)``, ``("enum", qn)``,
    ``("scalar", qn)``, ``("builtin", name)``, ``("member", enum qn, member)``, ``("ptr",
    declaring type qn, name)`` or ``("param", name)``. ``decl``: this is its declaration."""

    start: int
    end: int
    symbol: Tuple[str, ...]
    decl: bool = False


@dataclass
class Frame:
    kind: str  # top module type ptr enum scalar migration shape assign paren brace bracket angle block
    closer: str
    module: str
    scope: Optional[str] = None  # the object type `.path` refers to
    subject: Optional[str] = None  # a query's subject type, once read
    start: int = 0  # offset of the opening token
    stmt: List[Tok] = field(default_factory=list)  # tokens of the current statement in this frame
    pending: Optional[str] = None  # what the next `{` opens (shape / assign), with `pending_scope`
    pending_scope: Optional[str] = None
    head: int = 0  # offset where the statement that opened this frame starts


QUALIFIERS = {"overloaded", "required", "optional", "multi", "single", "property", "link"}
QUERY_KEYWORDS = {"select", "insert", "update", "delete"}
_CLOSERS = {"{": "}", "(": ")", "[": "]"}


@dataclass
class ScanResult:
    refs: List[Ref]
    frames: List[Frame]  # the frame stack where the scan stopped
    tokens: List[Tok]  # tokens scanned
    params: List[str]  # `$name`s seen (query files)
    variables: set  # `with` / `for` names
    #: ``migration { ... }`` blocks: (module, offset of `{`, offset of `}`).
    migration_blocks: List[Tuple[str, int, int]] = field(default_factory=list)
    #: Points between two top-level (or module-level) declarations where a scan can resume.
    checkpoints: List["Checkpoint"] = field(default_factory=list)


@dataclass(frozen=True)
class Checkpoint:
    """The scanner's state between two declarations: its offset and the frames open there
    (the top level and the module blocks), as (kind, closer, module, start, head)."""

    offset: int
    frames: Tuple[Tuple[str, str, str, int, int], ...]


class _Scanner:
    def __init__(self, text: str, kind: str, index: SymbolIndex, stop: Optional[int] = None,
                 module: str = "default", resume: Optional[Checkpoint] = None):
        self.text = text
        self.kind = kind  # "schema" | "query"
        self.index = index
        begin = resume.offset if resume is not None else 0
        end = len(text) if stop is None else stop
        if begin:
            all_tokens = [Tok(t.kind, t.text, t.start + begin, t.end + begin) for t in lex(text[begin:end])]
        else:
            all_tokens = lex(text[:end] if stop is not None else text)
        self.tokens = all_tokens if stop is None else [t for t in all_tokens if t.end <= stop]
        self.refs: List[Ref] = []
        if resume is not None:
            self.frames = [Frame(k, c, m, scope=(None if k != "top" else None), start=st, head=hd)
                           for k, c, m, st, hd in resume.frames]
        else:
            self.frames = [Frame("top", "", module)]
        self.checkpoints: List[Checkpoint] = []
        self.params: List[str] = []
        self.variables: set = set()
        self.path_targets: dict = {}  # token index of a path step -> the type its link points to
        self.migration_blocks: List[Tuple[str, int, int]] = []

    # ------------------------------------------------------------------ helpers
    def tok(self, i: int) -> Optional[Tok]:
        return self.tokens[i] if 0 <= i < len(self.tokens) else None

    def is_op(self, i: int, *ops: str) -> bool:
        t = self.tok(i)
        return t is not None and t.kind == "op" and t.text in ops

    def is_name(self, i: int, *words: str) -> bool:
        t = self.tok(i)
        return t is not None and t.kind == "name" and (not words or t.text in words)

    def add(self, t: Tok, symbol: Tuple[str, ...], decl: bool = False) -> None:
        self.refs.append(Ref(t.start, t.end, symbol, decl))

    def qualname_at(self, i: int) -> Tuple[str, int]:
        """The qualified name starting at token ``i`` and the index after it."""
        parts = [self.tokens[i].value]
        j = i + 1
        while self.is_op(j, "::") and self.is_name(j + 1):
            parts.append(self.tokens[j + 1].value)
            j += 2
        return "::".join(parts), j

    def qualname_ending_at(self, i: int) -> Tuple[str, int]:
        """The qualified name ending at token ``i`` and the index where it starts."""
        parts = [self.tokens[i].value]
        j = i
        while self.is_op(j - 1, "::") and self.is_name(j - 2):
            parts.insert(0, self.tokens[j - 2].value)
            j -= 2
        return "::".join(parts), j

    def scope(self) -> Optional[str]:
        for f in reversed(self.frames):
            if f.subject:
                return f.subject
            if f.scope:
                return f.scope
            if f.kind in ("shape", "assign", "type", "ptr"):
                return None
        return None

    def module(self) -> str:
        return self.frames[-1].module

    def ptr_symbol(self, type_qn: Optional[str], name: str) -> Optional[Tuple[str, ...]]:
        if not type_qn:
            return None
        p = self.index.find_ptr(type_qn, name)
        if p is None:
            if name == "id" and type_qn in self.index.types:
                return ("id", type_qn)  # the implicit id of every object type
            return None
        return ("ptr", p.owner, name)

    def ptr_target(self, type_qn: Optional[str], name: str) -> Optional[str]:
        if not type_qn:
            return None
        p = self.index.find_ptr(type_qn, name)
        return p.target if p is not None else None

    def type_ref(self, i: int, kinds=None) -> int:
        """Classify the qualified name at ``i`` as a type name; returns the index after it."""
        name, j = self.qualname_at(i)
        qn = self.index.resolve(name, self.module())
        last = self.tokens[j - 1]
        if qn is not None:
            k = self.index.kind_of(qn)
            if kinds is None or k in kinds:
                self.add(last, (k, qn))
        elif name.split("::")[-1] in _BUILTINS:
            self.add(last, ("builtin", name.split("::")[-1]))
        return j

    # ------------------------------------------------------------------ main loop
    def run(self) -> ScanResult:
        i = 0
        n = len(self.tokens)
        while i < n:
            i = self.step(i)
        return ScanResult(self.refs, self.frames, self.tokens, self.params, self.variables, self.migration_blocks,
                          self.checkpoints)

    def checkpoint(self, t: Tok) -> None:
        if self.kind == "schema" and all(f.kind in ("top", "module") for f in self.frames) and \
                not self.frames[-1].stmt:
            self.checkpoints.append(Checkpoint(t.end, tuple((f.kind, f.closer, f.module, f.start, f.head)
                                                            for f in self.frames)))

    def step(self, i: int) -> int:
        t = self.tokens[i]
        f = self.frames[-1]
        if t.kind == "op" and t.text in _CLOSERS:
            self.open(i, t)
            return i + 1
        if t.kind == "op" and t.text in (")", "]", "}"):
            if t.text == "}" and f.kind == "migration":
                self.migration_blocks.append((f.module, f.start, t.start))
            self.close(t.text)
            f = self.frames[-1]
            if t.text == "}" and f.kind in ("top", "module", "type", "ptr", "migration"):
                f.stmt = []
                self.checkpoint(t)
            else:
                f.stmt.append(t)
            return i + 1
        if t.kind == "op" and t.text == ";":
            f.stmt = []
            f.pending = None
            self.checkpoint(t)
            if f.kind in ("paren",):
                f.subject = None
            elif f.kind == "top":
                f.subject = None
            return i + 1
        f.stmt.append(t)
        if t.kind == "param":
            self.params.append(t.text)
            self.add(t, ("param", t.text))
            return i + 1
        if t.kind != "name":
            if t.kind == "op" and t.text == "." and not self._value_before(i):
                return self.path(i)
            return i + 1
        if self.kind == "schema":
            return self.schema_name(i, f)
        return self.query_name(i, f)

    def _value_before(self, i: int) -> bool:
        """Whether token ``i`` (a ``.``) follows a value (so it is not the start of a path)."""
        p = self.tok(i - 1)
        if p is None:
            return False
        if p.kind in ("str", "num", "param"):
            return True
        if p.kind == "op":
            return p.text in (")", "]")
        return p.text not in _EXPR_KEYWORDS and p.text not in ("on", "by", "filter", "then", "using")

    def path(self, i: int) -> int:
        """``.a.b.c`` from the scope type; returns the index after it."""
        scope = self.scope()
        j = i
        while self.is_op(j, ".") and self.is_name(j + 1):
            name_tok = self.tokens[j + 1]
            self.frames[-1].stmt.extend(self.tokens[j:j + 2])
            sym = self.ptr_symbol(scope, name_tok.value)
            if sym is not None:
                self.add(name_tok, sym)
            scope = self.ptr_target(scope, name_tok.value)
            self.path_targets[j + 1] = scope
            j += 2
        if j == i:  # a lone `.`
            return i + 1
        return j

    def open(self, i: int, t: Tok) -> None:
        f = self.frames[-1]
        closer = _CLOSERS[t.text]
        if t.text == "(":
            new = Frame("paren", closer, f.module, start=t.start)
        elif t.text == "[":
            new = Frame("bracket", closer, f.module, start=t.start)
        elif self.kind == "schema":
            new = self.schema_brace(f, t)
        else:
            if f.pending:
                new = Frame(f.pending, closer, f.module, scope=f.pending_scope, start=t.start)
                f.pending = None
            else:
                new = Frame("brace", closer, f.module, start=t.start)
        new.head = f.stmt[0].start if f.stmt else t.start
        f.stmt.append(t)
        self.frames.append(new)

    def close(self, closer: str) -> None:
        for k in range(len(self.frames) - 1, 0, -1):
            if self.frames[k].closer == closer:
                del self.frames[k:]
                return
        # An unmatched closer: ignore it.

    # ------------------------------------------------------------------ schema files
    def schema_brace(self, f: Frame, t: Tok) -> Frame:
        stmt = [x for x in f.stmt]
        words = [x.text for x in stmt if x.kind == "name"]
        if f.kind in ("top", "module"):
            if words[:1] == ["module"] and len(stmt) > 1 and stmt[1].kind == "name":
                name, _ = self.qualname_at(self.tokens.index(stmt[1]))
                module = name if f.module == "default" else f"{f.module}::{name}"
                return Frame("module", "}", module, start=t.start)
            if "type" in words[:3] and words[:1] != ["scalar"] and "scalar" not in words[:2]:
                k = words.index("type")
                if len(words) > k + 1:
                    return Frame("type", "}", f.module, scope=f"{f.module}::{words[k + 1]}", start=t.start)
            if words[:1] == ["enum"]:
                return Frame("enum", "}", f.module, scope=f"{f.module}::{words[1]}" if len(words) > 1 else None,
                             start=t.start)
            if words[:1] == ["migration"]:
                return Frame("migration", "}", f.module, start=t.start)
            return Frame("block", "}", f.module, start=t.start)
        if f.kind in ("type", "ptr"):
            return Frame("ptr", "}", f.module, scope=f.scope, start=t.start)
        return Frame("brace", "}", f.module, scope=f.scope, start=t.start)

    def schema_name(self, i: int, f: Frame) -> int:
        t = self.tokens[i]
        stmt = f.stmt  # includes t
        first = len(stmt) == 1
        if f.kind in ("top", "module"):
            words = [x.text for x in stmt if x.kind == "name"]
            prev = self.tok(i - 1)
            if prev is not None and prev.kind == "name" and prev.text == "type" and len(words) <= 3 \
                    and words[0] in ("type", "abstract", "scalar"):
                kind = "scalar" if words[0] == "scalar" or words[:2] == ["abstract", "scalar"] else "type"
                qn = f"{f.module}::{t.value}"
                if kind == "scalar" and self.index.kind_of(qn) == "enum":
                    kind = "enum"
                self.add(t, (kind, qn), decl=True)
                return i + 1
            if prev is not None and prev.text == "enum" and words[:1] == ["enum"] and len(words) == 2:
                self.add(t, ("enum", f"{f.module}::{t.value}"), decl=True)
                return i + 1
            if "extending" in words and words[:1] != ["module"]:
                # `scalar type S extending enum<A, B>`: members
                if words[0] in ("scalar", "abstract") and self.is_op(i - 1, "<", ",") and \
                        any(x.text == "enum" for x in stmt[:-1]):
                    qn = f"{f.module}::{self._decl_name(stmt)}"
                    self.add(t, ("member", qn, t.value), decl=True)
                    return i + 1
                if t.text == "enum" and self.is_op(i + 1, "<"):
                    return i + 1
                return self.type_ref(i)
            return i + 1
        if f.kind == "enum":
            if f.scope:
                self.add(t, ("member", f.scope, t.value), decl=True)
            return i + 1
        if f.kind == "migration":
            return self.hint_name(i, f)
        if f.kind in ("type", "ptr"):
            # A pointer's name: qualifiers, then the name, then `:`, `->`, `:=`, `{` or `;`.
            head = stmt[:-1]
            if all(x.kind == "name" and x.text in QUALIFIERS for x in head) and (
                    self.is_op(i + 1, ":", "->", ":=", "{", ";") or self.tok(i + 1) is None):
                if f.kind == "type" or (f.kind == "ptr" and not first or self.is_op(i + 1, ":", "->")):
                    owner = f.scope if f.kind == "type" else self._link_of(f)
                    if f.kind == "type":
                        sym = self.ptr_symbol(owner, t.value) or ("ptr", owner or "", t.value)
                        self.add(t, sym, decl=True)
                    return i + 1
            if self.is_op(i - 1, ":", "->") and len(head) >= 2 and all(
                    x.kind == "name" and x.text in QUALIFIERS for x in head[:-2]):
                return self.type_ref(i)
            if head and head[0].text in ("constraint", "index", "annotation") and (
                    len(head) == 1 or self.is_op(i - 1, "::")):
                j = i
                while self.is_op(j + 1, "::") and self.is_name(j + 2):
                    j += 2
                return j + 1
            if head and head[0].text == "extending":
                return self.type_ref(i)
        return self.expr_name(i)

    def _decl_name(self, stmt: List[Tok]) -> str:
        for k, x in enumerate(stmt):
            if x.text == "type" and k + 1 < len(stmt):
                return stmt[k + 1].value
        return ""

    def _link_of(self, f: Frame) -> Optional[str]:
        return None

    def hint_name(self, i: int, f: Frame) -> int:
        """Names in ``migration { ... }``: see docs/migrations.md. A hint names its type or enum
        as declared now, the renamed item by its old name, and the new name after ``to``."""
        stmt = f.stmt
        words = [x for x in stmt if x.kind == "name"]
        action = words[0].text if words else ""
        t = self.tokens[i]
        if len(words) == 1:
            return i + 1
        if action in ("rename", "drop") and len(words) == 2:
            return i + 1  # the kind word
        kind = words[1].text if action in ("rename", "drop", "map") else "property"
        if t.text == "to" and not self.is_op(i - 1, "."):
            return i + 1
        target_start = 2 if action in ("rename", "drop", "map") else 1
        # the target: Type[.item[.linkprop]]
        tgt = [x for x in stmt[self._index_in(stmt, words[target_start]):]] if len(words) > target_start else []
        after_to = any(x.text == "to" for x in stmt[:-1] if x.kind == "name") and stmt[-2:-1] and \
            stmt[-2].text == "to"
        if after_to:
            type_tok = tgt[0] if tgt else None
            if type_tok is None:
                return i + 1
            type_name, _ = self.qualname_at(self.tokens.index(type_tok))
            qn = self.index.resolve(type_name, f.module)
            if kind == "type" and action == "rename":
                qn_new = self.index.resolve(t.value, f.module, "type")
                if qn_new:
                    self.add(t, ("type", qn_new))
            elif kind == "member" and qn:
                if t.value in [m for m, _ in (self.index.enums[qn].members if qn in self.index.enums else [])]:
                    self.add(t, ("member", qn, t.value))
            elif kind in ("property", "link") and qn and action == "rename":
                dots = [x for x in tgt if x.kind == "op" and x.text == "."]
                if len(dots) == 1:
                    sym = self.ptr_symbol(qn, t.value)
                    if sym:
                        self.add(t, sym)
            return i + 1
        if stmt and self._index_in(stmt, t) == self._index_in(stmt, words[target_start]) if \
                len(words) > target_start else False:
            # the type or enum of the target
            name, j = self.qualname_at(i)
            qn = self.index.resolve(name, f.module)
            if qn and not (action == "rename" and kind == "type") and not (action == "drop" and kind == "type"):
                self.add(self.tokens[j - 1], (self.index.kind_of(qn), qn))
            f.stmt.extend(self.tokens[i + 1:j])
            return j
        if self.is_op(i - 1, "."):
            # the item: an old name for rename/map/drop, a current one for fill/cast
            first_dot = self._first_dot(stmt)
            if action in ("fill", "cast") and first_dot is not None and stmt[first_dot + 1] is t:
                type_name, _ = self.qualname_at(self.tokens.index(stmt[first_dot - 1]))
                type_start = [x for x in stmt[:first_dot] if x.kind == "name"]
                qn = self.index.resolve(self._qual_before(stmt, first_dot), f.module, "type")
                sym = self.ptr_symbol(qn, t.value)
                if sym:
                    self.add(t, sym)
            return i + 1
        if action == "fill":
            return self.expr_name(i)
        return i + 1

    def _qual_before(self, stmt, dot_index) -> str:
        parts = []
        k = dot_index - 1
        while k >= 0 and stmt[k].kind == "name":
            parts.insert(0, stmt[k].value)
            if k - 1 >= 0 and stmt[k - 1].kind == "op" and stmt[k - 1].text == "::":
                k -= 2
            else:
                break
        return "::".join(parts)

    def _first_dot(self, stmt) -> Optional[int]:
        for k, x in enumerate(stmt):
            if x.kind == "op" and x.text == ".":
                return k
        return None

    @staticmethod
    def _index_in(stmt, tok) -> int:
        for k, x in enumerate(stmt):
            if x is tok:
                return k
        return -1

    # ------------------------------------------------------------------ names in expressions
    def expr_name(self, i: int) -> int:
        """A name in an expression: ``Enum.Member``, a type in a cast, a variable, a function."""
        t = self.tokens[i]
        if self.is_op(i + 1, "::") and self.is_name(i + 2):
            name, j = self.qualname_at(i)
            last = j - 1
        else:
            name, j, last = t.value, i + 1, i
        if self.is_op(j, "(") :
            return j  # a function call
        if name in self.variables:
            return j
        qn = self.index.resolve(name, self.module())
        if qn is not None:
            k = self.index.kind_of(qn)
            self.add(self.tokens[last], (k, qn))
            if k == "enum" and self.is_op(j, ".") and self.is_name(j + 1):
                m = self.tokens[j + 1]
                if m.value in [x for x, _ in self.index.enums[qn].members]:
                    self.add(m, ("member", qn, m.value))
                self.frames[-1].stmt.extend(self.tokens[i + 1:j + 2])
                return j + 2
        elif name in _BUILTINS:
            self.add(self.tokens[last], ("builtin", name))
        self.frames[-1].stmt.extend(self.tokens[i + 1:j])
        return j

    # ------------------------------------------------------------------ query files
    def query_name(self, i: int, f: Frame) -> int:
        t = self.tokens[i]
        word = t.text
        prev = self.tok(i - 1)
        if word in QUERY_KEYWORDS and self.is_name(i + 1) and not self.is_op(i + 2, ":=") and not (
                prev is not None and prev.kind == "op" and prev.text == "."):
            name, j = self.qualname_at(i + 1)
            qn = self.index.resolve(name, f.module, "type")
            if qn is not None:
                self.add(self.tokens[j - 1], ("type", qn))
            f.subject = qn
            f.stmt.extend(self.tokens[i + 1:j])
            if word in ("select", "insert"):
                f.pending, f.pending_scope = ("shape" if word == "select" else "assign"), qn
            return j
        if word == "set" and self.is_op(i + 1, "{"):
            f.pending, f.pending_scope = "assign", f.subject
            return i + 1
        if word in ("with", "for") or (prev is not None and prev.kind == "op" and prev.text == "," and
                                       self._in_with(f) and self.is_op(i + 1, ":=")):
            if word in ("with", "for") and self.is_name(i + 1):
                self.variables.add(self.tokens[i + 1].value)
                f.stmt.append(self.tokens[i + 1])
                return i + 2
            self.variables.add(word)
            return i + 1
        if f.kind == "shape" and self._element_position(f):
            sym = self.ptr_symbol(f.scope, t.value)
            if sym:
                self.add(t, sym)
            if self.is_op(i + 1, ":") and self.is_op(i + 2, "{"):
                f.pending, f.pending_scope = "shape", self.ptr_target(f.scope, t.value)
            return i + 1
        if f.kind == "assign" and self._element_position(f):
            sym = self.ptr_symbol(f.scope, t.value)
            if sym:
                self.add(t, sym)
            return i + 1
        return self.expr_name(i)

    def _in_with(self, f: Frame) -> bool:
        return any(x.kind == "name" and x.text == "with" for x in f.stmt)

    @staticmethod
    def _element_position(f: Frame) -> bool:
        """The last token of the frame's statement is the name being read, and the one before
        it opened the frame or was a ``,`` at this level."""
        before = f.stmt[:-1]
        return not before or (before[-1].kind == "op" and before[-1].text == ",")


#: Words that cannot end a value (a `.` after them starts a path).
_EXPR_KEYWORDS = {"and", "or", "not", "in", "like", "ilike", "exists", "filter", "order", "by", "then", "limit",
                  "offset", "set", "union", "else", "if", "select", "distinct", "on", "using", "except", "asc",
                  "desc"}
_BUILTINS = {"str", "bool", "int16", "int32", "int64", "float32", "float64", "bigint", "decimal", "json", "uuid",
             "datetime", "bytes", "array", "optional"}


def scan(text: str, kind: str, index: SymbolIndex, stop: Optional[int] = None,
         module: str = "default", resume: Optional[Checkpoint] = None) -> ScanResult:
    """Classify the names of ``text`` (``kind``: ``schema`` or ``query``); with ``stop``, only
    the tokens that end at or before that offset (for :func:`context_at`). ``module``: the
    module of the file's top level (a dependency library's files: the library's name)."""
    return _Scanner(text, kind, index, stop, module, resume).run()


# Checkpoints of the last scans of each file (``cache_key``): the text they were taken from and
# the checkpoints, so that the next scan of an edited text resumes at the last checkpoint before
# both the edit and the cursor instead of at the start of a 19,000-line schema.
_CHECKPOINTS: Dict[object, Tuple[str, List[Checkpoint]]] = {}


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    lo, hi = 0, n
    while hi - lo > 4096:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    while lo < hi and a[lo] == b[lo]:
        lo += 1
    return lo


def scan_full(text: str, kind: str, index: SymbolIndex, module: str, cache_key: object) -> ScanResult:
    """:func:`scan` of the whole text, keeping its checkpoints for :func:`scan_cached`."""
    res = scan(text, kind, index, None, module)
    if kind == "schema" and cache_key is not None:
        _CHECKPOINTS[cache_key] = (text, list(res.checkpoints))
    return res


def scan_cached(text: str, kind: str, index: SymbolIndex, stop: Optional[int], module: str,
                cache_key: object, before: Optional[int] = None) -> ScanResult:
    """:func:`scan` up to ``stop``, resumed at the last valid checkpoint of earlier scans of
    ``cache_key`` at or before ``before`` (default ``stop``); schema files only (query files are
    short and scanned whole)."""
    if kind != "schema" or cache_key is None:
        return scan(text, kind, index, stop, module)
    limit = before if before is not None else (len(text) if stop is None else stop)
    old = _CHECKPOINTS.get(cache_key)
    resume = None
    kept: List[Checkpoint] = []
    if old is not None:
        old_text, points = old
        valid = _common_prefix(old_text, text) if old_text is not text else len(text)
        kept = [c for c in points if c.offset <= valid]
        candidates = [c for c in kept if c.offset <= limit]
        resume = candidates[-1] if candidates else None
    res = scan(text, kind, index, stop, module, resume)
    merged = sorted({c.offset: c for c in kept + res.checkpoints}.values(), key=lambda c: c.offset)
    _CHECKPOINTS[cache_key] = (text, merged)
    if len(_CHECKPOINTS) > 64:
        _CHECKPOINTS.pop(next(iter(_CHECKPOINTS)))
    return res


# ---------------------------------------------------------------------------------------------
# What may come at a position


@dataclass
class Context:
    """What the cursor may complete. ``kind``: ``members`` (of ``enum``), ``pointers`` (of
    ``type``: after a path's ``.``, in a shape or an assignment list), ``types`` (type names;
    ``objects_only`` after ``select``/``insert``/...), ``params``, or ``general`` (keywords the
    grammar accepts at ``prefix_start``, enum and type names). ``prefix``: the part of the word
    already typed; ``prefix_start``: where it starts."""

    kind: str
    prefix: str
    prefix_start: int
    enum: Optional[str] = None
    type: Optional[str] = None
    objects_only: bool = False
    assigned: Tuple[str, ...] = ()
    scan: Optional[ScanResult] = None
    statement_start: int = 0


def context_at(text: str, kind: str, offset: int, index: SymbolIndex, module: str = "default",
               cache_key: object = None) -> Context:
    """The completion context at ``offset`` of ``text`` (which need not parse)."""
    # The word being typed (a name or a `$param`), up to the cursor.
    m = re.search(r"(\$?[A-Za-z_0-9]*)$", text[max(0, offset - 256):offset])
    prefix = m.group(1) if m else ""
    if prefix and prefix[0].isdigit():
        prefix = ""
    start = offset - len(prefix)
    res = scan_cached(text, kind, index, start, module, cache_key)
    toks = res.tokens
    frame = res.frames[-1]
    if res.frames[0].stmt:
        top = res.frames[0].stmt[0].start
    elif len(res.frames) > 1:
        top = res.frames[1].head
    else:
        top = start
    if prefix.startswith("$"):
        return Context("params", prefix, start, scan=res, statement_start=top)
    p1 = toks[-1] if toks else None
    p2 = toks[-2] if len(toks) > 1 else None
    sc = _Scanner.__new__(_Scanner)  # helper access to the scanned tokens
    sc.tokens, sc.index, sc.frames = toks, index, res.frames
    if p1 is not None and p1.kind == "op" and p1.text == "." and p1.end == start:
        if p2 is not None and p2.kind == "name" and p2.end == p1.start:
            name, _ = sc.qualname_ending_at(len(toks) - 2)
            qn = index.resolve(name, frame.module, "enum")
            if qn is not None:
                return Context("members", prefix, start, enum=qn, scan=res, statement_start=top)
            # a path step: `.author.` -> the link's target
            for r in reversed(res.refs):
                if r.start == p2.start and r.symbol[0] == "ptr":
                    p = index.find_ptr(r.symbol[1], r.symbol[2])
                    if p is not None and p.target:
                        return Context("pointers", prefix, start, type=p.target, scan=res, statement_start=top)
                    break
            return Context("none", prefix, start, scan=res, statement_start=top)
        if p2 is None or not (p2.kind in ("str", "num", "param") or (p2.kind == "op" and p2.text in (")", "]"))):
            scope = _scope(res.frames)
            if scope:
                return Context("pointers", prefix, start, type=scope, scan=res, statement_start=top)
        return Context("none", prefix, start, scan=res, statement_start=top)
    if p1 is not None and p1.kind == "op" and p1.text in (":", "->") and kind == "schema" and \
            frame.kind in ("type", "ptr"):
        return Context("types", prefix, start, scan=res, statement_start=top)
    if p1 is not None and p1.kind == "op" and p1.text == "<" and p2 is not None and (
            (p2.kind == "param" and p2.end == p1.start) or (p2.kind == "name" and p2.text in ("array", "tuple"))
            or (p2.kind == "op" and p2.text not in (")", "]")) or (p2.kind == "name" and p2.text in _EXPR_KEYWORDS)):
        return Context("types", prefix, start, scan=res, statement_start=top)
    if p1 is not None and p1.kind == "name" and (
            (p1.text in QUERY_KEYWORDS and kind == "query") or p1.text == "extending"
            or (p1.text == "type" and p2 is not None and p2.text in ("rename", "drop"))
            or (p1.text in ("fill", "cast") and frame.kind == "migration")):
        return Context("types", prefix, start, objects_only=True, scan=res, statement_start=top)
    if kind == "query" and frame.kind in ("shape", "assign") and frame.scope and (
            p1 is None or (p1.kind == "op" and p1.text in ("{", ","))) and _frame_open(res, frame, p1):
        assigned = tuple(sorted({toks[k].value for k in range(len(toks)) if toks[k].start > frame.start
                                 and toks[k].kind == "name" and k + 1 < len(toks)
                                 and toks[k + 1].kind == "op" and toks[k + 1].text in (":=", "+=", "-=")}))
        return Context("pointers", prefix, start, type=frame.scope, scan=res, statement_start=top,
                       assigned=assigned if frame.kind == "assign" else ())
    return Context("general", prefix, start, scan=res, statement_start=top)


def _frame_open(res: ScanResult, frame: Frame, p1: Optional[Tok]) -> bool:
    """``p1`` is the frame's own ``{`` or a ``,`` directly inside it."""
    if p1 is None:
        return False
    if p1.text == "{":
        return p1.start == frame.start
    return True


def _scope(frames: List[Frame]) -> Optional[str]:
    for f in reversed(frames):
        if f.subject:
            return f.subject
        if f.scope:
            return f.scope
    return None


def _stmt_start(frame: Frame, default: int) -> int:
    return frame.stmt[0].start if frame.stmt else default
