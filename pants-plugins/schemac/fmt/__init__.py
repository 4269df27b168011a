"""The formatter: one canonical layout for schema files (``.esdl``) and query files (``.edgeql``).

``python -m schemac fmt [--check] FILES``, the language server's formatting request and
``./pants fmt`` / ``./pants lint`` all call :func:`format_source`.

It works like gofmt: it never changes a token, only the white space between them, so the
formatted text parses to the same syntax tree (the tests check this on every file of the
repository); it keeps every comment, keeps the line breaks that carry meaning to the reader and
canonicalises the rest:

* indentation: two spaces per open bracket (a bracket opened on a line indents the lines inside
  it by one level from that line); a continuation line of a statement gets one more level,
  unless it starts a clause (``filter``, ``order``, ``set``, ``limit``, ``unless``, ``else``,
  ``union``, ...), which lines up with its statement;
* the bodies of types, modules, scalar types and ``migration`` blocks are always broken: one
  declaration per line, the closing brace on its own line; any other ``{ ... }`` (shapes,
  assignments, pointer bodies, enums, set literals) is kept on one line, or broken (one element
  per line after each ``,`` / ``;``) when its first element starts on a new line;
* spacing inside a line: one space between tokens, none inside brackets, before ``,`` ``;``
  ``:``, around ``.`` ``::`` and in calls, casts and type arguments (``<array<str>>$names``,
  ``array<str>``, ``now()``), a space around every other operator;
* at most one blank line in a row, none after an opening or before a closing brace; no trailing
  white space; the file ends with one newline; a trailing comment is two spaces after its code.

Text that does not parse is not formatted (:class:`FormatError` with the compiler's diagnostics):
the layout relies on the tokens being a valid program.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<str>r'[^']*'?|r"[^"]*"?|'(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?
      |\$(?P<dollar_tag>(?:[A-Za-z_][A-Za-z0-9_]*)?)\$.*?\$(?P=dollar_tag)\$)
  | (?P<bt>`(?:[^`\n]|``)*`?)
  | (?P<param>\$\w*)
  | (?P<num>[0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:[eE][+-]?[0-9]+)?n?)
  | (?P<name>[^\W\d]\w*)
  | (?P<op>::|:=|\+=|-=|->|\?\?|\+\+|\*\*|//|\?!=|\?=|!=|<=|>=|.)
    """,
    re.X | re.S,
)


@dataclass(frozen=True)
class Tok:
    kind: str  # name | str | param | num | op | comment
    text: str
    start: int
    end: int


def lex(text: str, keep_comments: bool = False) -> List[Tok]:
    """Tokens of any text, read as the compiler's lexer reads them (strings may span lines, raw
    strings have no escapes, ``$$...$$`` strings, backtick names with doubled backticks, digit
    groups ``1_000``); never fails (an unclosed string runs to the end of the text)."""
    out: List[Tok] = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "ws" or (kind == "comment" and not keep_comments):
            continue
        if kind == "bt":
            kind = "name"
        out.append(Tok(kind, m.group(), m.start(), m.end()))  # type: ignore[arg-type]
    return out


class FormatError(Exception):
    """The text does not parse; ``diagnostics`` are the compiler's."""

    def __init__(self, diagnostics):
        self.diagnostics = list(diagnostics)
        super().__init__("; ".join(d.message for d in self.diagnostics))


#: Words of the language that are followed by an expression or a block rather than being a
#: value or a function name (a `(` after them is not a call, a `-` or `<` after them is unary).
KEYWORDS = frozenset("""
select insert update delete filter order by then limit offset set with for in union unless conflict on else
and or not exists like ilike is if distinct using except asc desc empty first last type scalar extending enum
module abstract required optional multi single property link overloaded constraint index annotation default
readonly target restrict source allow deferred migration rename drop fill cast map member to global access
policy when deny group detached introspect
""".split())

#: Words that start a clause of a statement: on a line of their own they are indented one level
#: from the statement (`update Job` / `  filter ...` / `  set { ... }`), except right after a line
#: that closes the statement's block, where they line up with it (`}` / `filter ...`).
CLAUSES = frozenset("filter order limit offset set unless else union then except using on".split())
#: Words that start a statement: on a line of their own they line up with the enclosing one
#: (`with x := ...` / `select ...`).
STATEMENTS = frozenset("select insert update delete for with group".split())

#: Declarations whose `{ ... }` body is always broken, one member per line.
_DECL_WORDS = frozenset({"type", "abstract", "module", "migration", "scalar"})

_OPENERS = {"{": "}", "(": ")", "[": "]"}
_CLOSERS = {"}", ")", "]"}


def _glue_typed_params(text: str, toks: List[Tok]) -> List[Tok]:
    """``$name<type>`` is one token to the parser: keep it whole, as written."""
    out: List[Tok] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "param" and i + 1 < len(toks) and toks[i + 1].text == "<" and toks[i + 1].start == t.end:
            depth, j = 0, i + 1
            while j < len(toks) and toks[j].kind != "comment" and "\n" not in text[t.start:toks[j].end]:
                if toks[j].text == "<":
                    depth += 1
                elif toks[j].text == ">":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j < len(toks) and depth == 0:
                out.append(Tok("param", text[t.start:toks[j].end], t.start, toks[j].end))
                i = j + 1
                continue
        out.append(t)
        i += 1
    return out


@dataclass
class _Bracket:
    opener: Tok
    index: int
    broken: bool
    line_indent: int  # indent of the line where it was opened
    decl: bool  # a declaration body (type, module, migration, scalar): always broken
    module: bool  # a module body (its statements are declarations)


def format_text(text: str, kind: str) -> str:
    """The canonical layout of ``text`` (``kind``: ``schema`` or ``query``). Does not check
    that it parses (see :func:`format_source`)."""
    toks = _glue_typed_params(text, lex(text, keep_comments=True))
    if not toks:
        return ""
    nl_before = [text.count("\n", toks[i - 1].end if i else 0, t.start) for i, t in enumerate(toks)]
    if toks:
        nl_before[0] = 0
    # Match brackets and decide which `{ ... }` are broken.
    match = {}
    stack: List[int] = []
    for i, t in enumerate(toks):
        if t.kind == "op" and t.text in _OPENERS:
            stack.append(i)
        elif t.kind == "op" and t.text in _CLOSERS and stack and _OPENERS[toks[stack[-1]].text] == t.text:
            match[stack.pop()] = i
    lines: List[Tuple[int, List[str]]] = []
    cur: List[str] = []
    cur_indent = 0
    brackets: List[_Bracket] = []
    angles: List[str] = []  # open `<` of casts ("cast") and type arguments ("args")
    stmt_first: List[Optional[str]] = [None]  # first word of the current statement, per bracket level
    clause_indent: List[Optional[int]] = [None]  # indent of the statement's clause lines, per bracket level
    at_boundary = True  # the next token starts a statement or an element
    closed: Optional[str] = None  # the kind of `<` the last token (a `>`) closed
    prev: Optional[Tok] = None
    prev_code: Optional[Tok] = None  # the last token that is not a comment

    def open_line(indent: int, blank: bool) -> None:
        nonlocal cur, cur_indent
        if cur:
            lines.append((cur_indent, cur))
        if blank and lines:
            lines.append((0, []))
        cur = []
        cur_indent = indent

    def decl_level() -> bool:
        return kind == "schema" and (not brackets or brackets[-1].module)

    for i, t in enumerate(toks):
        is_comment = t.kind == "comment"
        closer = t.kind == "op" and t.text in _CLOSERS
        # ---- does this token start a new line?
        newline = False
        if prev is not None:
            if prev.kind == "comment":
                newline = True
            elif is_comment:
                newline = nl_before[i] > 0
            elif closer and brackets and brackets[-1].broken and match.get(brackets[-1].index) == i:
                newline = True
            elif prev_code is not None and prev is prev_code and prev.kind == "op" and prev.text in _OPENERS and \
                    brackets and brackets[-1].opener is prev and brackets[-1].broken:
                newline = True
            elif prev.kind == "op" and prev.text in (",", ";") and brackets and brackets[-1].broken and \
                    toks[brackets[-1].index].text == "{" and not angles and \
                    (prev.text == ";" or not brackets[-1].decl):
                newline = True
            elif prev.kind == "op" and prev.text == ";" and decl_level():
                newline = True
            elif prev.kind == "op" and prev.text == "}" and decl_level() and not (t.kind == "op" and t.text == ";"):
                newline = True
            elif prev.kind == "op" and prev.text == ";" and not brackets:
                newline = True
            elif nl_before[i] > 0:
                inline_brace = brackets and not brackets[-1].broken and toks[brackets[-1].index].text == "{"
                newline = not inline_brace
        if newline:
            blank = (nl_before[i] >= 2 and not (prev is not None and prev.kind == "op" and prev.text in _OPENERS)
                     and not closer)
            after_closer = bool(cur) and cur[0] in ("}", ")", "]")
            indent = _indent_for(t, brackets, match, i, at_boundary, after_closer, cur_indent, clause_indent[-1])
            if t.kind == "name" and t.text in CLAUSES and not at_boundary and clause_indent[-1] is None:
                clause_indent[-1] = indent
            open_line(indent, blank)
        elif prev is not None:
            if is_comment:
                cur.append("  ")
            elif _space(prev_code if prev_code is not None else prev, t, angles, cur, closed):
                cur.append(" ")
        # ---- emit
        cur.append(t.text)
        if is_comment:
            prev = t
            continue
        # ---- update state
        if t.kind == "op" and t.text in _OPENERS:
            first = stmt_first[-1]
            decl = t.text == "{" and decl_level() and first in _DECL_WORDS
            j = i + 1
            broken = decl and match.get(i) != i + 1
            if not broken and t.text in ("{", "("):
                nxt = toks[j] if j < len(toks) else None
                broken = nxt is not None and match.get(i) != j and (nl_before[j] > 0 or nxt.kind == "comment")
            brackets.append(_Bracket(t, i, broken, cur_indent, decl, decl and first == "module"))
            stmt_first.append(None)
            clause_indent.append(None)
            at_boundary = True
        elif closer:
            if brackets and match.get(brackets[-1].index) == i:
                brackets.pop()
                stmt_first.pop()
                clause_indent.pop()
            at_boundary = False
            if t.text == "}" and decl_level():
                stmt_first[-1] = None
                clause_indent[-1] = None
                at_boundary = True
        elif t.kind == "op" and t.text == ";":
            stmt_first[-1] = None
            clause_indent[-1] = None
            at_boundary = True
        elif t.kind == "op" and t.text == ",":
            # an element of a bracket starts; at a statement's top level (`with a := 1,
            # b := 2`) the next line continues the statement
            at_boundary = bool(brackets) and not angles and not (brackets[-1].decl and not brackets[-1].module)
        else:
            if stmt_first[-1] is None and t.kind == "name":
                stmt_first[-1] = t.text
            elif stmt_first[-1] is None:
                stmt_first[-1] = ""
            at_boundary = False
        closed = _track_angles(prev_code, t, angles)
        prev = t
        prev_code = t
    if cur:
        lines.append((cur_indent, cur))
    out = []
    for indent, parts in lines:
        s = "".join(parts).rstrip()
        out.append(("  " * indent + s) if s else "")
    # collapse blank lines (at most one; none at the start or end)
    result: List[str] = []
    for line in out:
        if not line and (not result or not result[-1]):
            continue
        result.append(line)
    while result and not result[-1]:
        result.pop()
    if kind == "query" and result and result[0].startswith("#") and not text.split("\n", 1)[0].strip():
        # A query's doc text is the comment lines at the very top of the file
        # (schemac.syntax.parser.leading_comment): a comment after a blank first line is not one, and
        # must not become one.
        result.insert(0, "")
    return "\n".join(result) + "\n" if result else ""


def _indent_for(t: Tok, brackets: List[_Bracket], match, i: int, at_boundary: bool, after_closer: bool,
                prev_indent: int, clause: Optional[int]) -> int:
    if t.kind == "op" and t.text in _CLOSERS:
        for b in reversed(brackets):
            if match.get(b.index) == i:
                return b.line_indent
    base = brackets[-1].line_indent + 1 if brackets else 0
    if at_boundary or t.kind == "comment":
        return base
    if t.kind == "name" and t.text in STATEMENTS:
        return base
    if t.kind == "name" and t.text in CLAUSES:
        if clause is not None:
            return clause
        return base if after_closer and prev_indent == base else base + 1
    return (clause if clause is not None else base) + 1


def _is_value_end(t: Optional[Tok]) -> bool:
    if t is None:
        return False
    if t.kind in ("str", "num", "param"):
        return True
    if t.kind == "name":
        return t.text not in KEYWORDS
    return t.kind == "op" and t.text in (")", "]")


def _track_angles(prev: Optional[Tok], t: Tok, angles: List[str]) -> Optional[str]:
    """Track the open ``<`` of casts and type arguments; the kind a ``>`` closes."""
    if t.kind != "op":
        return None
    if t.text == "<":
        kind = _angle_kind(prev)
        if kind is not None:
            angles.append(kind)
    elif t.text == ">" and angles:
        return angles.pop()
    return None


def _angle_kind(prev: Optional[Tok]) -> Optional[str]:
    """``args`` for ``array<``, ``cast`` for ``<type>expr``, ``None`` for a comparison or
    a backlink's ``.<``."""
    if prev is not None and prev.kind == "op" and prev.text == ".":
        return None
    if prev is not None and prev.kind == "name" and prev.text in ("array", "tuple", "enum", "range", "multirange"):
        return "args"
    if _is_value_end(prev):
        return None
    return "cast"


def _space(prev: Tok, t: Tok, angles: List[str], cur: List[str], closed: Optional[str]) -> bool:
    p, s = prev.text, t.text
    if t.kind == "op":
        if s in (",", ";", ")", "]", "::", ":"):
            return False
        if s == "}" and p == "{":
            return False
        if s == ".":
            return not _is_value_end(prev) and p not in ("(", "[")
        if s == "(" and prev.kind == "name" and p not in KEYWORDS:
            return False
        if s == "[" and _is_value_end(prev):
            return False
        if s == "<" and _angle_kind(prev) == "args":
            return False
        if s == ">" and angles:
            return False
    if prev.kind == "op":
        if p in ("(", "[", "::", "@", "."):
            return False
        if p == "<":
            # `<` of a cast or type arguments, or a backlink's `.<`
            return not angles and not (len(cur) >= 2 and cur[-2].endswith("."))
        if p == ">" and closed == "cast":
            return False
        if p == "-" and _unary_minus(cur):
            return False
    return True


def _unary_minus(cur: List[str]) -> bool:
    """The ``-`` just written is a sign (after an operator, a keyword or an opening bracket)."""
    pieces = [x for x in cur if x.strip()]
    if len(pieces) < 2:
        return True
    before = pieces[-2]
    if before in (")", "]") or re.fullmatch(r"[0-9_.eE+]+n?", before) or before.startswith(("'", '"', "$", "r'", 'r"')):
        return False
    if re.fullmatch(r"(?:[^\W\d]|`)[\w`]*", before):
        return before in KEYWORDS
    return True


def format_source(path: str, text: str) -> str:
    """Format one schema or query file (``path`` decides which, and names it in errors).
    Raises :class:`FormatError` when it does not parse."""
    import posixpath

    from schemac.pipeline import QUERY_SUFFIXES, SCHEMA_SUFFIXES
    from schemac.diagnostics import CompileError
    from schemac.syntax.parser import parse_query, parse_schema

    kind = "query" if path.endswith(QUERY_SUFFIXES) else "schema"
    if not path.endswith(SCHEMA_SUFFIXES + QUERY_SUFFIXES):
        raise ValueError(f"not a schema or query file: {path}")
    if text.startswith("\ufeff"):
        text = text[1:]
    name = posixpath.basename(path.replace("\\", "/")).rsplit(".", 1)[0]
    try:
        parse_query(path, text, name) if kind == "query" else parse_schema(path, text)
    except CompileError as e:
        syntax = [d for d in e.diagnostics if d.code.startswith("E01") or d.code == "E0300"]
        if syntax:
            raise FormatError(syntax) from None
        # other errors found while parsing (an unsupported form) do not stop formatting
    return format_text(text, kind)
