"""Pre-scan of schema text for declarations the compiler parses but does not lower.

Gel schemas carry features we do not lower yet (triggers, rewrites, functions, aliases,
extensions, abstract constraint or annotation definitions; globals, computed pointers and
access policies are parsed by the grammar). Their bodies use syntax far beyond our grammar, so
instead of growing the grammar to accept and discard them, this scanner
finds each such statement by its leading words, balances brackets and strings to its end, and
blanks it out (characters become spaces; newlines stay, so every later position is unchanged).
Each blanked statement is reported as a diagnostic naming the feature and its span: an error,
or a warning where ignoring it is harmless (``using future ...``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

from schemac.diagnostics import Diagnostic, Span

#: Characters the statement scanner must stop at: brackets, terminators, quotes, comments and
#: whitespace (which may precede a new statement's first word).
_INTERESTING = re.compile(r"""[{}();\['"`$#\s]""")
#: A dollar-quoted string ($$...$$, $tag$...$tag$), as the grammar's DOLLAR_STRING.
_DOLLAR_STRING = re.compile(r"\$((?:[A-Za-z_][A-Za-z0-9_]*)?)\$[\s\S]*?\$\1\$")
#: What starts a quoted token: strings, dollar-quoted strings, backtick-quoted names.
_QUOTES = "'\"`$"
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*")

#: Statement heads refused in module (top-level) context: leading words -> feature name.
MODULE_HEADS: Tuple[Tuple[Tuple[str, ...], str], ...] = (
    (("using", "future"), "'using future'"),
    (("function",), "functions"),
    (("alias",), "aliases"),
    (("abstract", "constraint"), "abstract constraint definitions"),
    (("abstract", "annotation"), "abstract annotation definitions"),
    (("abstract", "inheritable", "annotation"), "abstract annotation definitions"),
    (("abstract", "link"), "abstract link definitions"),
    (("abstract", "property"), "abstract property definitions"),
    (("abstract", "index"), "abstract index definitions"),
    (("permission",), "permissions"),
    (("extension",), "extensions"),
    (("operator",), "operators"),
    (("cast",), "casts"),
)

#: Statement heads refused inside a type body.
TYPE_HEADS: Tuple[Tuple[Tuple[str, ...], str], ...] = (
    (("trigger",), "triggers"),
    (("deferred", "index"), "deferred indexes"),
    (("delegated", "constraint"), "delegated constraints"),
)

#: Statement heads refused inside a property or link body (rewrites and ``on source delete``
#: are parsed by the grammar).
POINTER_HEADS: Tuple[Tuple[Tuple[str, ...], str], ...] = ()

#: Features that are harmless to ignore: reported as warnings.
WARN_ONLY = {"'using future'"}


@dataclass
class _Frame:
    kind: str  # "module", "type", "pointer", "other"


class _Scanner:
    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.chars = list(text)
        self.blanked = False
        self.n = len(text)
        self.diagnostics: List[Diagnostic] = []

    # -- lexical helpers
    def skip_trivia(self, i: int) -> int:
        t = self.text
        while i < self.n:
            c = t[i]
            if c.isspace():
                i += 1
            elif c == "#":
                j = t.find("\n", i)
                i = self.n if j < 0 else j + 1
            else:
                break
        return i

    def skip_string(self, i: int) -> int:
        """``i`` at a quote (see :data:`_QUOTES`); returns the index after the closing quote
        (or the end of the file), as the lexer reads it: strings may span lines; a raw string
        (``r'...'``, the quote right after an ``r`` that starts a word) has no escapes, so a
        backslash before its closing quote does not hide it; a backtick-quoted name ends at
        its line; a ``$`` that does not start a dollar-quoted string is one character."""
        t = self.text
        q = t[i]
        if q == "$":
            m = _DOLLAR_STRING.match(t, i)
            return m.end() if m else i + 1
        raw = q == "`" or (i > 0 and t[i - 1] == "r" and (i < 2 or not (t[i - 2].isalnum() or t[i - 2] == "_")))
        i += 1
        while i < self.n:
            c = t[i]
            if c == "\\" and not raw:
                i += 2
                continue
            if c == q:
                return i + 1
            if c == "\n" and q == "`":
                return i
            i += 1
        return i

    def words_at(self, i: int, count: int) -> List[str]:
        out: List[str] = []
        while len(out) < count:
            i = self.skip_trivia(i)
            m = _WORD.match(self.text, i)
            if not m:
                break
            out.append(m.group(0))
            i = m.end()
        return out

    def statement_end(self, i: int) -> Optional[int]:
        """From a statement start, the index after its terminating ``;`` (or after a closing
        ``}`` of a block at depth 0, plus an optional ``;``). ``None`` if the text ends first or
        an unbalanced closer is met."""
        t = self.text
        depth = 0
        while i < self.n:
            c = t[i]
            if c == "#":
                j = t.find("\n", i)
                i = self.n if j < 0 else j + 1
                continue
            if c in _QUOTES:
                i = self.skip_string(i)
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    return None
                depth -= 1
                if depth == 0 and c == "}":
                    j = self.skip_trivia(i + 1)
                    if j < self.n and t[j] == ";":
                        return j + 1
                    return i + 1
            elif c == ";" and depth == 0:
                return i + 1
            i += 1
        return None

    def blank(self, start: int, end: int) -> None:
        self.blanked = True
        for k in range(start, end):
            if self.chars[k] != "\n":
                self.chars[k] = " "

    def position(self, i: int) -> Tuple[int, int]:
        line = self.text.count("\n", 0, i) + 1
        col = i - (self.text.rfind("\n", 0, i) + 1) + 1
        return line, col

    def report(self, feature: str, start: int, end: int) -> None:
        line, col = self.position(start)
        # The span covers the statement's first line.
        eol = self.text.find("\n", start)
        last = (end if eol < 0 or eol > end else eol) - 1
        while last > start and self.text[last].isspace():
            last -= 1
        width = max(1, last - start + 1)
        span = Span(self.path, line, col, line, col + width)
        words = self.words_at(start, 3)
        if feature in WARN_ONLY:
            self.diagnostics.append(Diagnostic("W0001", f"{feature} is ignored", span, severity="warning"))
        elif feature == "deferred indexes" and len(words) == 3 and words[2].startswith("ext::ai::"):
            # Gel's AI index: computed by the Gel server's AI extension (embeddings fetched from
            # a model provider), https://docs.geldata.com/reference/ai
            self.diagnostics.append(Diagnostic(
                "E0206", f"'{words[2]}' belongs to Gel's 'ai' extension, a service of the Gel server that Postgres "
                "does not have", span, "compute embeddings in the application and store them in an "
                "ext::pgvector::vector property with an ext::pgvector index"))
        else:
            self.diagnostics.append(Diagnostic(
                "E0206", f"{feature} are not supported yet" if not feature.startswith("'") else f"{feature} is not supported yet",
                span, "remove it, or keep it in a schema that is not compiled by schemac"))

    # -- structure
    def classify_block(self, head: List[str], frame: _Frame) -> str:
        if not head:
            return "other"
        if head[0] == "module":
            return "module"
        if frame.kind == "module" and "type" in head[:3] and "scalar" not in head[:3]:
            return "type"
        if frame.kind == "type":
            return "pointer"
        if frame.kind == "pointer":
            return "pointer"
        return "other"

    def match_head(self, frame: _Frame, i: int) -> Optional[str]:
        words = self.words_at(i, 4)
        table = {"module": MODULE_HEADS, "type": TYPE_HEADS, "pointer": POINTER_HEADS}.get(frame.kind, ())
        for head, feature in table:
            if tuple(words[: len(head)]) == head:
                return feature
        return None

    def run(self) -> str:
        stack: List[_Frame] = [_Frame("module")]
        i = 0
        at_start = True
        head_start = 0
        while i < self.n:
            i = self.skip_trivia(i)
            if i >= self.n:
                break
            c = self.text[i]
            if at_start:
                feature = self.match_head(stack[-1], i)
                if feature is not None:
                    end = self.statement_end(i)
                    if end is not None:
                        self.report(feature, i, end)
                        self.blank(i, end)
                        i = end
                        continue
                head_start = i
                at_start = False
            if c in _QUOTES:
                i = self.skip_string(i)
                continue
            if c == "{":
                head = self.words_at(head_start, 4)
                stack.append(_Frame(self.classify_block(head, stack[-1])))
                at_start = True
                i += 1
                continue
            if c == "}":
                if len(stack) > 1:
                    stack.pop()
                at_start = True
                i += 1
                continue
            if c == ";":
                at_start = True
                i += 1
                continue
            if c in "([":
                # Skip a bracketed run wholesale (defaults, filters, arguments).
                end = self._skip_brackets(i)
                i = end
                continue
            # Jump over the rest of a word or operator to the next character of interest.
            m = _INTERESTING.search(self.text, i + 1)
            i = m.start() if m else self.n
        return "".join(self.chars) if self.blanked else self.text

    def _skip_brackets(self, i: int) -> int:
        t = self.text
        depth = 0
        while i < self.n:
            c = t[i]
            if c in _QUOTES:
                i = self.skip_string(i)
                continue
            if c == "#":
                j = t.find("\n", i)
                i = self.n if j < 0 else j + 1
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
                if depth <= 0:
                    return i + 1
            elif c == ";":
                # Unbalanced: let the parser report it.
                return i
            i += 1
        return i


#: A quick test for text that may hold an unsupported declaration: a word one can start with.
#: Text without a match is returned as is, without the statement scan.
_MAYBE_UNSUPPORTED = re.compile(
    r"\b(?:%s)\b" % "|".join(sorted({r"\s+".join(h) for h, _ in MODULE_HEADS + TYPE_HEADS + POINTER_HEADS})),
    re.M,
)


_HEADS = sorted({h for h, _ in MODULE_HEADS + TYPE_HEADS + POINTER_HEADS})
#: Each head's pattern in :data:`_MAYBE_UNSUPPORTED`.
_HEAD_RES = {h: re.compile(r"\b%s\b" % r"\s+".join(h)) for h in _HEADS}


def maybe_unsupported(text: str) -> bool:
    """``_MAYBE_UNSUPPORTED.search(text) is not None``, in a fraction of the time on large
    text (one regular expression tried at every position is slow in Python's ``re``): a head
    can only match where its words occur, so words missing from the text rule their heads out
    with a substring search; a head whose words are all there is tried at each occurrence of
    its first word."""
    present: dict = {}
    for head in _HEADS:
        if not all(present.setdefault(w, w in text) for w in head):
            continue
        first, regex = head[0], _HEAD_RES[head]
        i = text.find(first)
        while i >= 0:
            if regex.match(text, i):
                return True
            i = text.find(first, i + 1)
    return False


def blank_unsupported(path: str, text: str) -> Tuple[str, List[Diagnostic]]:
    """Blank out unsupported declarations; returns the new text (same length and line
    structure) and one diagnostic per blanked declaration."""
    if not maybe_unsupported(text):
        return text, []
    scanner = _Scanner(path, text)
    out = scanner.run()
    return out, scanner.diagnostics
