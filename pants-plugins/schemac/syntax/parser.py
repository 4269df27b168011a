"""Parse schema and query files into the typed AST of :mod:`schemac.syntax.tree`.

The grammar (``grammar.lark``) is compiled once per process by lark's LALR(1) parser with the
contextual lexer (lark docs: https://lark-parser.readthedocs.io/en/stable/parsers.html), in a
faster implementation of the same lexer (:class:`_FastContextualLexer`).
Syntax errors become :class:`~schemac.diagnostics.CompileError` with the offending token's
position, what the grammar expected there, and a hint; lark's exceptions never escape.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import operator
import os
import pkgutil
import re
import sys
from typing import Dict, List, Optional, Tuple

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.grammar import Rule
from lark.lexer import ContextualLexer, Lexer, UnlessCallback, _create_unless
from lark.parsers.lalr_analysis import Shift
from lark.parsers.lalr_interactive_parser import InteractiveParser
from lark.parsers.lalr_parser_state import ParserState

from schemac.syntax import tree as ast
from schemac.diagnostics import CompileError, Diagnostic, Span
from schemac.files import replace_file
from schemac.cache import _cache_dir, _trusted, read_trusted_cache_file


@functools.lru_cache(maxsize=None)
def _lark() -> Lark:
    """The parser. The AST builder runs inside the LALR parser (see :func:`_install_builder`),
    so no intermediate parse tree is built; :data:`_BUILDER`'s ``file`` is set before each
    parse. The grammar analysis is cached on disk (see :func:`_load_or_build`)."""
    data = pkgutil.get_data("schemac.syntax", "grammar.lark")
    assert data is not None
    parser = _load_or_build(data.decode("utf-8"), _cache_dir())
    _install_builder(parser, _BUILDER)
    return parser


def _lark_options() -> dict:
    return dict(
        parser="lalr",
        lexer=_FastContextualLexer,
        start=["schema", "query_file", "type_start", "expr_start"],
        keep_all_tokens=True,
        maybe_placeholders=False,
    )


# ---------------------------------------------------------------------------------------------
# The parser cache: lark's analysis of the grammar (its LALR tables) takes longer than loading
# it (``Lark.save``/``Lark.load``, lark's own format). Each process reads it from
# ``$SCHEMAC_CACHE_DIR`` (empty: no cache), else ``$XDG_CACHE_HOME/schemac/parser``, else
# ``~/.cache/schemac/parser``, in a file named by a hash of everything the tables depend on
# (this format, the grammar, lark's and Python's versions, the options). It is written
# atomically (a temporary file renamed over it) so concurrent compilers never read half a
# file; a file that is missing, unreadable, of another format or whose checksum is wrong is
# rebuilt; a directory that is not the user's own, or is writable by others, is not used.

_CACHE_FORMAT = b"schemac-parser-cache 1"


def _cache_key(grammar: str) -> str:
    import lark

    options = sorted((k, f"{v.__module__}.{v.__qualname__}" if isinstance(v, type) else repr(v))
                     for k, v in _lark_options().items())
    h = hashlib.sha256()
    for part in (_CACHE_FORMAT.decode(), grammar, lark.__version__, "%d.%d" % sys.version_info[:2], repr(options)):
        h.update(part.encode("utf-8") + b"\0")
    return h.hexdigest()


def _load_or_build(grammar: str, cache_dir: Optional[str]) -> Lark:
    """The lark parser of ``grammar``: loaded from the cache in ``cache_dir`` (``None``: no
    cache), else built (and then saved there, best effort)."""
    path = os.path.join(cache_dir, f"lark-{_cache_key(grammar)}.pickle") if cache_dir else None
    if path is not None:
        parser = _read_cache(path)
        if parser is not None:
            return parser
    parser = Lark(grammar, **_lark_options())
    if path is not None:
        _write_cache(parser, path)
    return parser


def _read_cache(path: str) -> Optional[Lark]:
    blob = read_trusted_cache_file(path)
    if blob is None:
        return None
    header, _, rest = blob.partition(b"\n")
    digest, _, payload = rest.partition(b"\n")
    if header != _CACHE_FORMAT or digest != hashlib.sha256(payload).hexdigest().encode("ascii"):
        return None
    try:
        return Lark.load(io.BytesIO(payload))
    except Exception:  # a cache from an incompatible lark: rebuild it
        return None


def _write_cache(parser: Lark, path: str) -> None:
    buf = io.BytesIO()
    parser.save(buf)
    payload = buf.getvalue()
    directory = os.path.dirname(path)
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        if not _trusted(directory):
            return
        replace_file(path, _CACHE_FORMAT + b"\n" + hashlib.sha256(payload).hexdigest().encode("ascii") + b"\n"
                     + payload, prefix=".lark-", suffix=".tmp")
    except OSError:  # a read-only or full disk: no cache, same parser
        pass


#: The characters of a word (an identifier, a keyword) in ASCII; outside ASCII, the letters and
#: digits (Gel's lexer: ``_`` or ``char::is_alphanumeric``, geldata/gel
#: edb/edgeql-parser/src/tokenizer.rs; here Python's ``\w``, see :func:`_is_word_char`).
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789")
_WORD = re.compile(r"[^\W\d]\w*")
#: A keyword matched in a word that goes on (``filter`` in ``filterr``, ``filterä``) is no token:
#: the lookahead added after each word-like terminal of a fast pattern (see
#: :func:`_guarded_alternation`).
_WORD_GOES_ON = "(?!(?<=\\w)\\w)"


def _is_word_char(c: str) -> bool:
    """Whether ``c`` continues a word: ``_``, an ASCII letter or digit, or a letter or digit
    outside ASCII (what ``\\w`` matches)."""
    return c in _WORD_CHARS or (c > "\x7f" and (c.isalnum() or c == "_"))


def _whole_word(tok: Token, lexer_state) -> Token:
    """Gel's lexer reads a word whole (https://docs.geldata.com/reference/edgeql/lexical#identifiers:
    an identifier is the longest run of letters, digits and ``_``; a keyword is such a word), so
    ``filterr'x'`` is the identifier ``filterr`` and then a string, never the keyword ``filter``
    and the raw string ``r'x'``. Lark's contextual lexer only tries the terminals the parser state
    accepts, and where no identifier is accepted it would match the keyword alone: this turns a
    keyword ``tok`` that a word character follows into the NAME token of the whole word (which the
    parser then refuses with a located syntax error, as Gel does), and moves the lexer past it."""
    if tok.type == "NAME":
        return tok
    value = tok.value
    if not value or not _is_word_char(value[-1]) or not _WORD.fullmatch(value):
        return tok
    text = lexer_state.text.text
    end = tok.end_pos
    stop = end
    n = len(text)
    while stop < n and _is_word_char(text[stop]):
        stop += 1
    if stop == end:
        return tok
    extra = text[end:stop]
    lexer_state.line_ctr.feed(extra, test_newline=False)
    word = Token("NAME", value + extra, start_pos=tok.start_pos, line=tok.line, column=tok.column,
                 end_line=tok.end_line, end_column=tok.end_column + len(extra), end_pos=stop)
    lexer_state.last_token = word
    return word


class _WholeWordContextualLexer(ContextualLexer):
    """Lark's contextual lexer that reads words whole (:func:`_whole_word`)."""

    def lex(self, lexer_state, parser_state):
        for tok in super().lex(lexer_state, parser_state):
            yield _whole_word(tok, lexer_state)


class _ReferenceLexer(Lexer):
    """Lark's contextual lexer with :func:`_whole_word`, as a lark ``lexer=`` class: what
    :class:`_FastContextualLexer` is checked against (``tests/compiler/test_fast_lexer.py``)."""

    __future_interface__ = 2

    def __init__(self, conf) -> None:
        self.conf = conf
        self._contextual: Optional[ContextualLexer] = None
        self._parse_table = None

    def lex(self, lexer_state, parser_state):
        table = parser_state.parse_conf.parse_table
        if self._contextual is None or self._parse_table is not table:
            states = {idx: list(t.keys()) for idx, t in table.states.items()}
            self._contextual = _WholeWordContextualLexer(self.conf, states, always_accept=())
            self._parse_table = table
        return self._contextual.lex(lexer_state, parser_state)


class _FastContextualLexer(Lexer):
    """Lark's contextual lexer, with the per-token work done by one regular expression match.

    Lark's :class:`~lark.lexer.ContextualLexer` lexes with a :class:`~lark.lexer.BasicLexer`
    per parser state, holding only the terminals that state accepts (so a keyword is only a
    keyword where the grammar expects one: a property may be named ``type``). Each of those
    matches an alternation of its terminals (``(?P<NAME>...)|...``, lark's order) at the
    current position, once per token *and once per run of whitespace or comment*, and pays
    for a line counter, a :class:`~lark.lexer.Token` and a keyword callback in Python.

    This lexer keeps lark's per-state terminal sets, order and keyword callbacks (it builds
    lark's own ``ContextualLexer`` and compiles each state lexer's alternation once more):

    * the pattern of a state is ``<skip>(?:<alternation without the ignored terminals>)``,
      where ``<skip>`` is an atomic run of the ignored terminals (whitespace, comments), so
      one match finds the next token; this is what lark does provided no other terminal can
      start with a character an ignored terminal starts with (checked when the pattern is
      built; a state where that is not provable is left to lark);
    * lines and columns are counted from the newlines in the skipped text (and in the token,
      for terminals that may hold one), as lark's ``LineCounter`` does;
    * keyword callbacks (lark's ``UnlessCallback``: a NAME that is a keyword accepted in this
      state becomes that keyword) are memoised per word.
    * words are read whole, as Gel reads them: a keyword a word character follows matches no
      fast pattern (``_WORD_GOES_ON``), and lark's lexer then gives the NAME of the whole word
      (:func:`_whole_word`: ``filterr'x'`` is ``filterr``, then ``'x'``).

    Where the pattern does not match (end of input, a syntax error, or a state without a
    fast pattern) the token comes from lark's ``ContextualLexer`` itself, positioned at the
    same place, so errors (``UnexpectedCharacters``, ``UnexpectedToken`` with what was
    expected) are lark's, unchanged.

    The compiler's parses do not call :meth:`lex`: :func:`_parse_from_state` runs the same
    token loop inlined into the LALR loop (no generator in between). :meth:`lex` is lark's
    ``Lexer`` interface, for lark's own parse loop (e.g. an interactive parser after an error);
    ``tests/compiler/test_fast_lexer.py`` checks both against lark's lexer.
    """

    __future_interface__ = 2

    def __init__(self, conf) -> None:
        self.conf = conf
        self._contextual: Optional[ContextualLexer] = None
        self._parse_table = None
        #: parser state -> (match, {terminal: (keyword memo, keyword fullmatch, may hold a
        #: newline)} for the terminals that need more than a Token) or None
        self._scanners: Dict[int, Optional[tuple]] = {}
        self._by_lexer: Dict[int, Optional[tuple]] = {}

    def _setup(self, parser_state) -> ContextualLexer:
        table = parser_state.parse_conf.parse_table
        if self._contextual is None or self._parse_table is not table:
            states = {idx: list(t.keys()) for idx, t in table.states.items()}
            self._contextual = _WholeWordContextualLexer(self.conf, states, always_accept=())
            self._parse_table = table
            self._scanners = {}
            self._by_lexer = {}
        return self._contextual

    def _scanner(self, state: int) -> Optional[tuple]:
        assert self._contextual is not None
        basic = self._contextual.lexers[state]
        key = id(basic)
        if key not in self._by_lexer:
            self._by_lexer[key] = _state_scanner(basic)
        sc = self._scanners[state] = self._by_lexer[key]
        return sc

    def lex(self, lexer_state, parser_state):
        contextual = self._setup(parser_state)
        scanners = self._scanners
        stack = parser_state.state_stack
        text_slice = lexer_state.text
        text, end = text_slice.text, text_slice.end
        line_ctr = lexer_state.line_ctr
        pos, line, line_start = line_ctr.char_pos, line_ctr.line, line_ctr.line_start_pos
        last = lexer_state.last_token
        new_token = str.__new__
        count = text.count
        while True:
            state = stack[-1]
            try:
                sc = scanners[state]
            except KeyError:
                sc = self._scanner(state)
            m = sc[0](text, pos, end) if sc is not None else None
            if m is None:
                # End of input, an error, or no fast pattern here: lark's lexer, from here.
                line_ctr.char_pos, line_ctr.line, line_ctr.line_start_pos = pos, line, line_start
                line_ctr.column = pos - line_start + 1
                lexer_state.last_token = last
                tok = next(contextual.lex(lexer_state, parser_state), None)
                if tok is None:
                    return
                if tok.type == "NAME" and tok.value[:1] == "`":
                    tok = _unquoted_name(tok)
                pos, line, line_start = line_ctr.char_pos, line_ctr.line, line_ctr.line_start_pos
                last = tok
                yield tok
                continue
            type_ = m.lastgroup
            start = m.end(1)
            stop = m.end()
            if start != pos:
                nl = count("\n", pos, start)
                if nl:
                    line += nl
                    line_start = text.rfind("\n", pos, start) + 1
            value = text[start:stop]
            tok = new_token(Token, value)
            tok.type = type_
            tok.value = value
            tok.start_pos = start
            tok.line = line
            tok.column = start - line_start + 1
            special = sc[1].get(type_)
            if special is not None:
                memo, fullmatch, newlines = special
                if newlines and "\n" in value:
                    line += value.count("\n")
                    line_start = start + value.rindex("\n") + 1
                if memo is not None:
                    try:
                        retyped = memo[value]
                    except KeyError:
                        retyped = memo[value] = fullmatch(value)
                    if retyped is not None:
                        tok.type = retyped
                if value[0] == "`" and tok.type == "NAME":
                    tok = _unquoted_name(tok)
            tok.end_line = line
            tok.end_column = stop - line_start + 1
            tok.end_pos = stop
            pos = stop
            last = tok
            yield tok


def _unquoted_name(tok: Token) -> Token:
    """A NAME token written in backticks (Gel's quoted identifier, e.g. the keyword ``select``
    in backticks, two backticks standing for one:
    https://docs.geldata.com/reference/edgeql/lexical#identifiers) as the
    name it stands for, at the same position. The lexer types a quoted word as NAME even when
    it spells a keyword (the keyword callbacks only match unquoted words)."""
    name = tok.value[1:-1].replace("``", "`")
    out = str.__new__(Token, name)
    out.type = "NAME"
    out.value = name
    for attr in ("start_pos", "line", "column", "end_line", "end_column", "end_pos"):
        # (the fast lexer sets the end position after this call)
        setattr(out, attr, getattr(tok, attr, None))
    return out


def _state_scanner(basic) -> Optional[tuple]:
    """The fast pattern of one of lark's state lexers (see :class:`_FastContextualLexer`), or
    ``None`` when this lexer must be left to lark.

    The terminals and keyword callbacks are lark's (``BasicLexer._build_scanner`` does the
    same, then compiles its own alternation: left to lark's slow path, which needs it in
    few states)."""
    if basic.user_callbacks:
        return None
    terminals, callbacks = _create_unless(basic.terminals, basic.g_regex_flags, basic.re, basic.use_bytes)
    if not all(isinstance(cb, UnlessCallback) for cb in callbacks.values()):
        return None
    ignore = basic.ignore_types
    skipped = [t for t in terminals if t.name in ignore]
    # A keyword a word-like terminal (NAME) also matches is found by that terminal's keyword
    # callback: NAME comes first in lark's order (same priority, wider), so the keyword's own
    # pattern could never match first. (Lark leaves it in its alternation when its flags differ
    # from NAME's, as for the case-insensitive keywords.) Leaving it out of the fast pattern
    # saves a failed alternative per token.
    shadowed = {t.name for cb in callbacks.values() for t in cb.scanner.terminals}
    tokens = [t for t in terminals if t.name not in ignore and t.name not in shadowed]
    if not tokens:
        return None
    flags = basic.g_regex_flags
    skip_first: set = set()
    for t in skipped:
        first = _terminal_first_chars(t, flags)
        if first is None:
            return None
        skip_first |= {ch for ch, _ in first}
    for t in tokens:
        first = _terminal_first_chars(t, flags)
        if first is None or any(_same_char(ch, k, ic) for ch, ic in first for k in skip_first):
            return None
    alternation = _guarded_alternation(tokens, flags)
    skip = "|".join(t.pattern.to_regexp() for t in skipped)
    # (?=(X*))\1 is an atomic X*: the skipped text is never given back to the alternation.
    pattern = "(?=((?:%s)*))\\1(?:%s)" % (skip, alternation) if skip else "()(?:%s)" % alternation
    try:
        regex = basic.re.compile(pattern, flags)
    except (AssertionError, basic.re.error):  # e.g. more groups than Python's re allows
        return None
    special = {}
    for t in tokens:
        cb = callbacks.get(t.name)
        newlines = t.name in basic.newline_types
        if cb is not None or newlines or t.name == "NAME":
            special[t.name] = ({} if cb else None, cb.scanner.fullmatch if cb else None, newlines)
    return regex.match, special


def _guarded_alternation(tokens, flags: int) -> str:
    """``(?P<A>a)|(?P<B>b)|...`` of ``tokens`` in lark's order, where each run of three or more
    consecutive terminals that can only start with a letter (the keywords a state accepts where
    no NAME is: ``filter``, ``order``, ``union``, ``except``, ... after an expression) is one
    alternative behind a lookahead, ``(?=[A-Za-z])(?:...)``: a token that does not start with a
    letter (``;``, ``}``, ``)``, ``=``: most tokens of those states) fails the whole run at once
    instead of each keyword in turn, as ``re`` tries alternatives one by one (the keywords'
    case-insensitive ``(?i:...)`` groups made that cost grow). The alternatives keep their
    order, so the token matched is the same."""
    parts, run = [], []

    def flush() -> None:
        if len(run) >= 3:
            parts.append("(?=[A-Za-z])(?:%s)" % "|".join(run))
        else:
            parts.extend(run)
        run.clear()

    for t in tokens:
        first = _terminal_first_chars(t, flags)
        alt = "(?P<%s>%s)" % (t.name, t.pattern.to_regexp())
        if t.name != "NAME" and first and any(ch[:1] in _WORD_CHARS and not ch[:1].isdigit() for ch, _ in first):
            alt += _WORD_GOES_ON  # (a keyword in a longer word is no token here: _whole_word)
        if first and all(len(ch) == 1 and ch.isascii() and ch.isalpha() for ch, _ in first):
            run.append(alt)
        else:
            flush()
            parts.append(alt)
    flush()
    return "|".join(parts)


def _terminal_first_chars(t, flags: int):
    """:func:`_first_chars` of a terminal; a literal string needs no regex analysis."""
    if t.pattern.type == "str" and t.pattern.value and not flags:
        return frozenset({(t.pattern.value[0], "i" in t.pattern.flags)})
    return _first_chars(t.pattern.to_regexp(), flags)


@functools.lru_cache(maxsize=None)
def _first_chars(pattern: str, flags: int = 0):
    """The characters a match of ``pattern`` can start with, as ``{(char, ignorecase)}``, or
    ``None`` when that is not known here (anything beyond literals, character classes of
    literals and ranges, groups, branches and repeats, or a pattern that can match "")."""
    try:  # Python 3.11+ (the top-level sre_* modules are deprecated there)
        from re import _constants as c, _parser as sre_parse  # type: ignore[attr-defined]
    except ImportError:
        import sre_constants as c
        import sre_parse

    def seq(items, ic):
        """(first characters, can the sequence match the empty string)"""
        out: set = set()
        for op, av in items:
            f = one(op, av, ic)
            if f is None:
                return None
            chars, nullable = f
            out |= chars
            if not nullable:
                return out, False
        return out, True

    def one(op, av, ic):
        if op is c.LITERAL:
            return {(chr(av), ic)}, False
        if op is c.IN:
            chars = set()
            if av and av[0][0] is c.NEGATE and _negates_ascii(av[1:], c):
                # `[^\x00-\x7f]`: a character outside ASCII (NAME's letters beyond ASCII)
                return {(_NON_ASCII, False)}, False
            for iop, iav in av:
                if iop is c.LITERAL:
                    chars.add((chr(iav), ic))
                elif iop is c.RANGE and iav[1] - iav[0] <= 256:
                    chars.update((chr(i), ic) for i in range(iav[0], iav[1] + 1))
                else:  # NEGATE, CATEGORY, a wide range: not tracked
                    return None
            return chars, False
        if op is c.SUBPATTERN:
            _group, add_flags, del_flags, sub = av
            if add_flags & c.SRE_FLAG_IGNORECASE:
                ic = True
            elif del_flags & c.SRE_FLAG_IGNORECASE:
                ic = False
            return seq(sub, ic)
        if op is c.BRANCH:
            chars, nullable = set(), False
            for branch in av[1]:
                f = seq(branch, ic)
                if f is None:
                    return None
                chars |= f[0]
                nullable = nullable or f[1]
            return chars, nullable
        if op is c.ASSERT and av[0] == 1:
            # a lookahead `(?=...)` takes no character: what follows it starts the match
            return set(), True
        if op in (c.MAX_REPEAT, c.MIN_REPEAT):
            lo, _hi, item = av
            f = seq(item, ic)
            if f is None:
                return None
            return f[0], f[1] or lo == 0
        return None

    try:
        parsed = sre_parse.parse(pattern, flags)
        f = seq(parsed, bool(parsed.state.flags & c.SRE_FLAG_IGNORECASE))
    except Exception:
        return None
    if f is None or f[1]:
        return None
    return frozenset(f[0])


#: In :func:`_first_chars`' answer, any character outside ASCII (it is no one character).
_NON_ASCII = "\x80.."


def _negates_ascii(items, c) -> bool:
    """Whether the items of a negated character class cover exactly ASCII (``[^\x00-\x7f]``)."""
    return len(items) == 1 and items[0][0] is c.RANGE and tuple(items[0][1]) == (0, 0x7F)


def _same_char(ch: str, k: str, ignorecase: bool) -> bool:
    """Whether a pattern character ``ch`` matches the text character ``k`` (either may be
    :data:`_NON_ASCII`, any character outside ASCII)."""
    if ch == _NON_ASCII or k == _NON_ASCII:
        other = k if ch == _NON_ASCII else ch
        return other == _NON_ASCII or other > "\x7f"
    return ch == k or (ignorecase and re.fullmatch(re.escape(ch), k, re.IGNORECASE) is not None)


# Human names for terminals in "expected ..." messages.
_TERMINAL_NAMES: Dict[str, str] = {
    "NAME": "a name",
    "STRING": "a string literal",
    "RAW_STRING": "a raw string literal",
    "INT": "an integer",
    "FLOAT": "a number",
    "BIGINT": "a bigint (12n)",
    "DECIMAL": "a decimal (1.5n)",
    "PARAM": "a parameter ($name)",
    "TYPED_PARAM": "a parameter ($name<type>)",
    "CMP_OP": "a comparison operator",
    "REQUIRED": "'required'",
    "OPTIONAL": "'optional'",
    "TRUE": "'true'",
    "FALSE": "'false'",
    "$END": "end of input",
}


def _describe_expected(parser: Lark, expected) -> List[str]:
    names = set()
    by_name = {t.name: t for t in parser.terminals}
    for term in expected:
        if term in _TERMINAL_NAMES:
            names.add(_TERMINAL_NAMES[term])
            continue
        t = by_name.get(term)
        if t is not None and t.pattern.type == "str":
            names.add(f"'{t.pattern.value}'")
        else:
            names.add(term.lower())
    return sorted(names)


def _syntax_error(path: str, text: str, err: UnexpectedInput, what: str) -> CompileError:
    parser = _lark()
    hint: Optional[str] = None
    if isinstance(err, UnexpectedToken) and err.token.type == "$END":
        line, col = _end_position(text)
        expected = _describe_expected(parser, err.expected)
        msg = f"unexpected end of {what}; expected {_join(expected)}"
        # (a block's last member needs no ';': an unclosed block is the likelier mistake)
        hint = "is a '}' missing?" if "'}'" in expected else _hint_for(expected)
        return CompileError([Diagnostic("E0101", msg, Span.point(path, line, col), hint)])
    if isinstance(err, UnexpectedToken):
        tok = err.token
        unsupported = _unsupported_syntax(path, text, tok)
        if unsupported is not None:
            return CompileError([unsupported])
        expected = _describe_expected(parser, err.expected)
        missing = _missing_semicolon(path, text, tok, expected)
        if missing is not None:
            return CompileError([missing])
        shown = tok.value if len(tok.value) <= 30 else tok.value[:27] + "..."
        msg = f"unexpected {shown!r}; expected {_join(expected)}"
        hint = _hint_for(expected)
        span = Span(path, tok.line, tok.column, tok.end_line or tok.line, tok.end_column or tok.column + 1)
        return CompileError([Diagnostic("E0100", msg, span, hint)])
    if isinstance(err, UnexpectedCharacters):
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else ""
        allowed = _describe_expected(parser, err.allowed or ())
        msg = f"unexpected character {ch!r}"
        if allowed:
            msg += f"; expected {_join(allowed)}"
        if ch in "'\"":
            hint = "this string literal is never closed"
        else:
            hint = _hint_for(allowed)
        return CompileError([Diagnostic("E0100", msg, Span.point(path, err.line, err.column), hint)])
    if isinstance(err, UnexpectedEOF):
        line, col = _end_position(text)
        expected = _describe_expected(parser, err.expected)
        return CompileError([Diagnostic("E0101", f"unexpected end of {what}", Span.point(path, line, col))])
    return CompileError([Diagnostic("E0100", str(err).splitlines()[0], Span.point(path, 1, 1))])


#: ``detached`` where an expression starts (not a path step ``.detached`` or a member name
#: followed by ':'), the parser stopping at the expression it was meant to apply to.
_DETACHED_BEFORE = re.compile(
    r"(?:[(,=]|\b(?:select|in|union|exists|filter|and|or|not|distinct|count))\s*(detached)\s+\Z", re.IGNORECASE)
_DETACHED_AT = re.compile(r"detached\s+[A-Za-z_(]", re.IGNORECASE)


def _unsupported_syntax(path: str, text: str, tok: Token) -> Optional[Diagnostic]:
    """Gel forms the grammar does not have, recognised where the parser stopped, so they are
    named (E0206) instead of reported as a stray token with a hint at a missing ';' or '}':
    ``detached T`` (https://docs.geldata.com/reference/edgeql/with#detached)."""
    if tok.start_pos is None:
        return None
    before = text[max(0, tok.start_pos - 200):tok.start_pos]
    m = _DETACHED_BEFORE.search(before)
    start = None
    if m is not None and (tok.value[:1].isalpha() or tok.value[:1] in "_(."):
        start = tok.start_pos - len(before) + m.start(1)
    elif _DETACHED_AT.match(text, tok.start_pos) and re.search(r"[(,=]\s*\Z|\bselect\s+\Z", before, re.I):
        start = tok.start_pos
    if start is not None:
        line, col = _position(text, start)
        return Diagnostic("E0206", "'detached' is not supported yet", Span.point(path, line, col, len("detached")),
                          "remove it: a sub-select of a type other than the statement's already reads all of "
                          "its objects; of the statement's own type it has no equivalent yet")
    return None


def _missing_semicolon(path: str, text: str, tok: Token, expected: List[str]) -> Optional[Diagnostic]:
    """The usual mistake behind an unexpected token at the start of a line, when ';' would have
    been accepted: a ';' missing at the end of the previous line. Reported there."""
    if "';'" not in expected or tok.start_pos is None:
        return None
    i = tok.start_pos - 1
    while i >= 0:
        line_start = text.rfind("\n", 0, i + 1) + 1
        comment = text.find("#", line_start, i + 1)
        if comment >= 0 and "'" not in text[line_start:comment] and '"' not in text[line_start:comment]:
            i = comment - 1  # skip a trailing comment
            continue
        if text[i].isspace():
            i -= 1
            continue
        break
    if i < 0 or "\n" not in text[i:tok.start_pos]:
        return None  # the unexpected token is on the same line: not a missing terminator
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 2  # just after the last character
    return Diagnostic("E0100", "missing ';' at the end of this line", Span.point(path, line, col),
                      f"the next line starts with {tok.value!r}, which cannot continue this statement")


def _hint_for(expected: List[str]) -> Optional[str]:
    if "';'" in expected:
        return "declarations and statements end with ';'"
    if "'}'" in expected:
        return "is a '}' missing?"
    return None


def _join(items: List[str]) -> str:
    if len(items) > 8:
        items = items[:8] + ["..."]
    return " or ".join(items) if len(items) <= 2 else ", ".join(items[:-1]) + " or " + items[-1]


def _end_position(text: str) -> Tuple[int, int]:
    lines = text.split("\n")
    # Point just after the last non-blank character.
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].strip():
            return i + 1, len(lines[i].rstrip()) + 1
    return 1, 1


#: Named terminals whose tokens rule methods receive; every other token (keywords, punctuation)
#: only contributes to the node's span.
KEPT_TERMINALS = frozenset(
    """NAME STRING RAW_STRING DOLLAR_STRING INT FLOAT BIGINT DECIMAL PARAM TYPED_PARAM CMP_OP REQUIRED OPTIONAL TRUE FALSE MULTI
    SINGLE OVERLOADED ABSTRACT PROPERTY LINK ORDER_DIR ORDER_EMPTY ASSIGN_OP INHERITABLE SOURCE_KW NEW_KW OLD_KW
    SPECIFIED_KW STD_KW DEFAULT_KW""".split()
)


def _start(c):
    """(line, column) where a child starts: a token, a node with a span, a Span, or the first
    positioned item of a tuple/list; ``None`` when it has no position."""
    t = type(c)
    if t is Token:
        return c.line, c.column
    if t is Span:
        return c.line, c.col
    if t is str:  # (a plain str has no span)
        return None
    if t is tuple or t is list:  # (nor a plain tuple or list)
        for item in c:
            b = _start(item)
            if b is not None:
                return b
        return None
    if isinstance(c, Token):
        return c.line, c.column
    span = c if isinstance(c, Span) else getattr(c, "span", None)
    if isinstance(span, Span):
        return span.line, span.col
    if isinstance(c, (tuple, list)):
        for item in c:
            b = _start(item)
            if b is not None:
                return b
    return None


def _end(c):
    """(line, column) just after a child ends; see :func:`_start`."""
    t = type(c)
    if t is Token:
        return c.end_line, c.end_column
    if t is Span:
        return c.end_line, c.end_col
    if t is str:
        return None
    if t is tuple or t is list:
        for item in reversed(c):
            b = _end(item)
            if b is not None:
                return b
        return None
    if isinstance(c, Token):
        return c.end_line, c.end_column
    span = c if isinstance(c, Span) else getattr(c, "span", None)
    if isinstance(span, Span):
        return span.end_line, span.end_col
    if isinstance(c, (tuple, list)):
        for item in reversed(c):
            b = _end(item)
            if b is not None:
                return b
    return None


_new_object = object.__new__


def _new_span(file: str, line: int, col: int, end_line: int, end_col: int) -> Span:
    """``Span(file, line, col, end_line, end_col)``, built without the frozen dataclass's
    ``__init__`` (five ``object.__setattr__`` calls): the parser makes one per node."""
    span = _new_object(Span)
    d = span.__dict__
    d["file"] = file
    d["line"] = line
    d["col"] = col
    d["end_line"] = end_line
    d["end_col"] = end_col
    return span


def _rule_callback(rule, builder: "_Builder"):
    """The function the LALR parser calls when it reduces ``rule``: what lark's tree builder
    and ``transformer=`` would do with ``keep_all_tokens=True, maybe_placeholders=False``, in
    one function call instead of four or five, and building :mod:`schemac.syntax.tree` nodes:

    * the values of ``_rule`` children (:class:`_Inline` lists, see below) are spliced into
      the children;
    * a ``?rule`` (not aliased) with one child is that child;
    * a rule alternative for which ``builder.shortcut_<rule>(expansion)`` returns a function
      is that function of the children (a common alternative built directly, with the same
      result as the method);
    * a rule with a method on ``builder`` calls ``method(meta, kept)``: ``meta`` is the span
      from the first positioned child to the last one (so it covers keywords and brackets;
      ``1:1-1:2`` when nothing has a position) and ``kept`` the children without the tokens
      of keywords and punctuation (terminals not in :data:`KEPT_TERMINALS`);
    * a ``_rule`` is the :class:`_Inline` list of its children (spliced by its parent), except
      an alternative of one symbol, which is that child itself (:data:`_FIRST`: the parser
      then only changes its state, as for a ``?rule`` of one child; the parent's splice takes
      a child that is not an ``_Inline`` as one item); any other rule is a lark ``Tree``, as
      without a method in lark."""
    name = str(rule.alias or rule.options.template_source or rule.origin.name)
    inline = [i for i, sym in enumerate(rule.expansion) if not sym.is_term and sym.name.startswith("_")]
    splice = _splicer(inline) if inline else None
    expand1 = bool(rule.options.expand1 and not rule.alias)
    if name.startswith("_"):
        if hasattr(builder, name) or expand1:
            raise AssertionError(f"rule {name} clashes with the AST builder")
        if len(rule.expansion) == 1:
            return _FIRST
        return splice or _Inline
    if expand1 and len(rule.expansion) == 1 and not inline:
        return _FIRST  # a ?rule's single child
    shortcut = getattr(builder, "shortcut_" + name, None)
    if shortcut is not None and not inline and not expand1:
        fn = shortcut(tuple(sym.name for sym in rule.expansion))
        if fn is not None:
            return fn
    method = getattr(builder, name, None)
    if method is None:
        if splice is not None:
            return lambda children: _new_tree(name, splice(children))
        return lambda children: _new_tree(name, children)
    kept = _kept_children(rule, splice)
    token = Token
    start, end = _start, _end
    new_span = _new_span

    if not _uses_meta(method):
        def reduce_without_meta(children):
            if splice is not None:
                children = splice(children)
            if expand1 and len(children) == 1:
                return children[0]
            return method(None, kept(children))

        return reduce_without_meta

    def reduce(children):
        if splice is not None:
            children = splice(children)
        if expand1 and len(children) == 1:
            return children[0]
        if children:
            first = children[0]
            if type(first) is token:
                b = (first.line, first.column)
            else:
                b = start(first)
                if b is None:  # (rare) no position in the first child: look further
                    b = start(children)
            last = children[-1]
            if type(last) is token:
                e = (last.end_line, last.end_column)
            else:
                e = end(last)
                if e is None:
                    e = end(children)
        else:
            b = e = None
        if b is not None and e is not None:
            meta = new_span(builder.file, b[0], b[1], e[0], e[1])
        else:
            meta = new_span(builder.file, 1, 1, 1, 2)
        return method(meta, kept(children))

    return reduce


def _kept_children(rule, splice):
    """The function that drops the keyword and punctuation tokens (terminals not in
    :data:`KEPT_TERMINALS`) from the children of ``rule``. Without spliced ``_rule`` children
    the positions to keep are those of the rule's expansion (a shifted token's type is the
    terminal of its position), picked by :func:`operator.itemgetter`; otherwise each child is
    tested."""
    kept_types = KEPT_TERMINALS
    if splice is not None:
        token = Token
        return lambda children: [c for c in children if type(c) is not token or c.type in kept_types]
    keep = [i for i, sym in enumerate(rule.expansion) if not sym.is_term or sym.name in kept_types]
    if len(keep) == len(rule.expansion):
        return _SAME_LIST  # (the parser's own list, used once)
    if not keep:
        return lambda children: []
    pick = operator.itemgetter(*keep)
    if len(keep) == 1:
        return lambda children: [pick(children)]
    return lambda children: list(pick(children))


def _SAME_LIST(children):
    return children


def _uses_meta(method) -> bool:
    """Whether a rule method reads its ``meta`` argument (else it gets ``None``: its span is
    not computed)."""
    code = getattr(method, "__func__", method).__code__
    try:
        return _USES_META[code]
    except KeyError:
        pass
    import dis

    uses = "meta" in code.co_cellvars or any(
        ins.opname.startswith("LOAD_") and ins.argval == "meta" for ins in dis.get_instructions(code))
    _USES_META[code] = uses
    return uses


_USES_META: Dict[object, bool] = {}


class _Inline(list):
    """The value of a ``_rule`` of several symbols (or none): its children, spliced into the
    children of the rule that uses it (see :func:`_splicer`). A distinct type, so that a
    builder's value that happens to be a list is never spliced."""

    __slots__ = ()


def _splicer(inline: List[int]):
    """A function of a rule's children that splices in the values of its ``_rule`` children at
    the positions ``inline``: an :class:`_Inline` list is spliced, anything else (the child of
    a ``_rule`` of one symbol) is one item. An ``_Inline`` at position 0 is extended in place
    (it is the parser's own, used once), so a left-recursive repetition costs O(1) per item,
    as in lark. The result is an ``_Inline``."""
    inline_type = _Inline
    if inline == [0]:
        def splice_first(children):
            out = children[0]
            if type(out) is inline_type:
                out += children[1:]
                return out
            return inline_type(children)

        return splice_first

    def splice(children):
        j = 0
        out = children[0]
        if inline[0] == 0 and type(out) is inline_type:
            j = 1
            rest = inline[1:]
        else:
            out = inline_type()
            rest = inline
        for i in rest:
            out += children[j:i]
            item = children[i]
            if type(item) is inline_type:
                out += item
            else:
                out.append(item)
            j = i + 1
        out += children[j:]
        return out

    return splice


def _new_tree(name, children):
    from lark import Tree

    return Tree(name, children)


def _install_builder(parser: Lark, builder: "_Builder") -> None:
    """Make ``parser`` build the AST with ``builder`` as it reduces (see :func:`_rule_callback`),
    replacing the callbacks lark made (a parse tree). Relies on lark 1.3's layout (the version
    is pinned): the LALR parser reads its callbacks from the dict in ``parser_conf``."""
    callbacks = parser.parser.parser_conf.callbacks
    assert parser.parser.parser.parser.callbacks is callbacks, "unexpected lark layout"
    rules = [r for r in callbacks if isinstance(r, Rule)]
    assert len(rules) == len(callbacks), "token callbacks are not expected"
    new = {}
    for rule in rules:
        fn = _rule_callback(rule, builder)
        # Two costs of lark's LALR loop, per reduction, that need not be paid in Python code:
        # the name of a rule's origin is a lark Token (a str subclass whose __eq__ is Python
        # code) used as a key of the parse table, whose keys are plain str; and a Rule
        # compares by value (its __eq__ and __hash__ are Python code) where its identity is
        # enough (one Rule object per rule in the table and in the callbacks).
        rule.origin.name = str(rule.origin.name)
        rule.__class__ = _IdentityRule
        new[rule] = fn
    callbacks.clear()
    callbacks.update(new)
    table = parser.parser.parser._parse_table
    assert all(arg in new for actions in table.states.values() for _, arg in actions.values()
               if isinstance(arg, Rule)), "the parse table's rules are not the callbacks' rules"
    lalr = parser.parser.parser.parser
    lark_parse_from_state = lalr.parse_from_state

    def parse_from_state(state, last_token=None):
        if type(state) is not ParserState or last_token is not None:
            return lark_parse_from_state(state, last_token)
        return _parse_from_state(lalr, state)

    lalr.parse_from_state = parse_from_state


#: The callback of a ``?rule`` reduced from one child: that child (see :func:`_rule_callback`).
_FIRST = operator.itemgetter(0)

#: id(callbacks) -> (callbacks, {rule: (size, origin name, callback, is a _FIRST rule)},
#: {(state below, state, terminal): state after the chain of _FIRST reductions})
_FAST_TABLES: Dict[int, tuple] = {}


def _fast_tables(callbacks) -> tuple:
    entry = _FAST_TABLES.get(id(callbacks))
    if entry is None or entry[0] is not callbacks:
        info = {rule: (len(rule.expansion), rule.origin.name, fn, fn is _FIRST and len(rule.expansion) == 1)
                for rule, fn in callbacks.items()}
        entry = _FAST_TABLES[id(callbacks)] = (callbacks, info, {})
    return entry


def _unit_chain(states, info, below, cur, t):
    """The state a chain of ``?rule`` single-child reductions on lookahead ``t`` leaves on top
    of ``below`` (each replaces the top state; the value stays), or ``None`` where lark's loop
    must go on (an error)."""
    while True:
        try:
            action, arg = states[cur][t]
        except KeyError:
            return None
        if action is Shift or not info[arg][3]:
            return cur
        try:
            _action, cur = states[below][info[arg][1]]
        except KeyError:
            return None
        if _action is not Shift:
            return None


def _parse_from_state(lalr, state):
    """Lark's ``_Parser.parse_from_state`` (its LALR loop, with ``ParserState.feed_token``
    inlined) fed by :class:`_FastContextualLexer`'s token loop inlined too (no generator
    between them), making the same shifts and reductions: a chain of ``?rule`` reductions of
    one child (the expression precedence ladder: ``expr`` -> ``or_expr`` -> ... -> ``atom``,
    which change only the top state) is one step, remembered per (state below, state,
    terminal); a reduction's size, goto name and callback are looked up once per rule. A token
    the fast pattern does not give (end of input, an error, a state left to lark) comes from
    lark's lexer, the end of input and a token without an action (an error) go to lark's own
    ``feed_token``, from the same stacks, and errors get their interactive parser as in lark."""
    lexer_thread = state.lexer
    lexer = getattr(lexer_thread, "lexer", None)
    if not isinstance(lexer, _FastContextualLexer):
        return type(lalr).parse_from_state(lalr, state)
    try:
        token = None
        conf = state.parse_conf
        states = conf.states
        _callbacks, info, memo = _fast_tables(conf.callbacks)
        state_stack = state.state_stack
        value_stack = state.value_stack
        feed_token = state.feed_token

        contextual = lexer._setup(state)
        scanners = lexer._scanners
        lexer_state = lexer_thread.state
        text_slice = lexer_state.text
        text, end = text_slice.text, text_slice.end
        line_ctr = lexer_state.line_ctr
        pos, line, line_start = line_ctr.char_pos, line_ctr.line, line_ctr.line_start_pos
        new_token = str.__new__
        count = text.count
        while True:
            # -- the next token (see _FastContextualLexer.lex)
            top = state_stack[-1]
            try:
                sc = scanners[top]
            except KeyError:
                sc = lexer._scanner(top)
            m = sc[0](text, pos, end) if sc is not None else None
            if m is None:
                line_ctr.char_pos, line_ctr.line, line_ctr.line_start_pos = pos, line, line_start
                line_ctr.column = pos - line_start + 1
                lexer_state.last_token = token
                tok = next(contextual.lex(lexer_state, state), None)
                if tok is None:
                    break
                if tok.type == "NAME" and tok.value[:1] == "`":
                    tok = _unquoted_name(tok)
                token = tok
                pos, line, line_start = line_ctr.char_pos, line_ctr.line, line_ctr.line_start_pos
                t = token.type
            else:
                t = m.lastgroup
                start = m.end(1)
                stop = m.end()
                if start != pos:
                    nl = count("\n", pos, start)
                    if nl:
                        line += nl
                        line_start = text.rfind("\n", pos, start) + 1
                value = text[start:stop]
                token = new_token(Token, value)
                token.value = value
                token.start_pos = start
                token.line = line
                token.column = start - line_start + 1
                special = sc[1].get(t)
                if special is not None:
                    memo_kw, fullmatch, newlines = special
                    if newlines and "\n" in value:
                        line += value.count("\n")
                        line_start = start + value.rindex("\n") + 1
                    if memo_kw is not None:
                        try:
                            retyped = memo_kw[value]
                        except KeyError:
                            retyped = memo_kw[value] = fullmatch(value)
                        if retyped is not None:
                            t = retyped
                    if value[0] == "`" and t == "NAME":
                        token = _unquoted_name(token)
                token.type = t
                token.end_line = line
                token.end_column = stop - line_start + 1
                token.end_pos = stop
                pos = stop
            # -- feed it to the parser
            while True:
                top = state_stack[-1]
                try:
                    action, arg = states[top][t]
                except KeyError:
                    feed_token(token)  # lark's UnexpectedToken
                    break
                if action is Shift:
                    state_stack.append(arg)
                    value_stack.append(token)
                    break
                size, origin, fn, unit = info[arg]
                if unit:
                    key = (state_stack[-2], top, t)
                    try:
                        new_state = memo[key]
                    except KeyError:
                        new_state = _unit_chain(states, info, key[0], top, t)
                        if new_state is None:
                            feed_token(token)
                            break
                        memo[key] = new_state
                    state_stack[-1] = new_state
                    continue
                if size:
                    s = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                else:
                    s = []
                value = fn(s)
                _action, new_state = states[state_stack[-1]][origin]
                state_stack.append(new_state)
                value_stack.append(value)

        end_token = Token.new_borrow_pos("$END", "", token) if token else Token("$END", "", 0, 1, 1)
        return feed_token(end_token, True)
    except UnexpectedInput as e:
        e.interactive_parser = InteractiveParser(lalr, state, state.lexer)
        raise e


class _IdentityRule(Rule):
    """A lark :class:`~lark.grammar.Rule` compared and hashed by identity, in C."""

    __slots__ = ()
    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__


#: ``$name<type>`` parameter types without type arguments, parsed once: type text -> (name,
#: optional). (A type with arguments is parsed each time: its arguments carry positions.)
_SIMPLE_PARAM_TYPES: Dict[str, Tuple[str, bool]] = {}


class _Builder:
    """Builds :mod:`schemac.syntax.tree` nodes as the LALR parser reduces each rule.

    The parser keeps every token (``keep_all_tokens``) so that each node's span covers its
    keywords and brackets too; the parser's callbacks (:func:`_rule_callback`) compute that
    span (``meta``, a :class:`~schemac.diagnostics.Span`) and drop the punctuation and keyword
    tokens before a rule method sees its children."""

    def __init__(self, path: str):
        self.file = path
        self.module_stack: List[str] = []
        # expressions written in parentheses, by id (kept alive here): `(-2)^2` keeps its sign
        self._parens: Dict[int, object] = {}

    # -- helpers
    def _span(self, meta: Span) -> Span:
        return meta

    def _tspan(self, tok: Token) -> Span:
        return _new_span(self.file, tok.line, tok.column, tok.end_line, tok.end_column)

    # -- types and names
    def qualname(self, meta, children):
        first, last = children[0], children[-1]
        name = str(first) if len(children) == 1 else "::".join(map(str, children))
        return (name, _new_span(self.file, first.line, first.column, last.end_line, last.end_column))

    def type_ref(self, meta, children):
        (name, _span), *args = children
        return ast.TypeRef(name, tuple(args), self._span(meta))

    @staticmethod
    def shortcut_type_ref(expansion):
        """``type_ref: qualname`` (no type arguments, the usual case): the reference spans
        exactly the name, so it takes the name's span (what :meth:`type_ref` computes)."""
        if expansion != ("qualname",):
            return None
        type_ref = ast.TypeRef
        return lambda children: type_ref(children[0][0], (), children[0][1])

    def type_int_arg(self, meta, children):
        tok = children[0]
        value = tok.value.replace("_", "")
        return ast.TypeRef(value, (), self._tspan(tok), number=int(value))

    def type_named_arg(self, meta, children):
        name, ref = children
        return ast.TypeRef(ref.name, ref.args, self._span(meta), ref.optional, str(name), ref.number)

    def type_union(self, meta, children):
        return ast.TypeRef("|", tuple(children), self._span(meta))

    def type_start(self, meta, children):
        optional = len(children) == 2
        ref = children[-1]
        return ast.TypeRef(ref.name, ref.args, ref.span, optional=optional)

    # -- expressions
    def path(self, meta, children):
        return ast.Path(tuple(map(str, children)), self._span(meta))

    def param(self, meta, children):
        tok = children[0]
        span = self._span(meta)
        if tok.type == "PARAM":
            return ast.Param(tok.value[1:], None, span)
        name, _, type_text = tok.value[1:].partition("<")
        type_text = type_text[:-1]
        # Parse the type part with its own start symbol, then shift positions into the file.
        offset = tok.column + len(name) + 2  # column of the first character after '<'
        type_span = Span(self.file, tok.line, offset, tok.line, offset + len(type_text))
        known = _SIMPLE_PARAM_TYPES.get(type_text)
        if known is not None:
            return ast.Param(name, ast.TypeRef(known[0], (), type_span, known[1]), span)
        try:
            ref = _lark().parse(type_text, start="type_start")
        except UnexpectedInput as e:
            col = offset + (e.column - 1 if getattr(e, "column", None) and e.column > 0 else 0)
            raise CompileError(
                [
                    Diagnostic(
                        "E0100",
                        f"invalid parameter type {type_text!r}",
                        Span.point(self.file, tok.line, col),
                        "write a parameter type as $name<type>, e.g. $id<uuid> or $note<optional str>",
                    )
                ]
            )
        if not ref.args:  # nothing positioned in it: the same text gives the same type anywhere
            _SIMPLE_PARAM_TYPES[type_text] = (ref.name, ref.optional)
        return ast.Param(name, ast.TypeRef(ref.name, ref.args, type_span, ref.optional), span)

    def string_lit(self, meta, children):
        tok = children[0]
        if "\\(" in tok.value:
            parts = _interpolation_parts(tok, self.file)
            if parts is not None:
                return _interpolation(parts, self._span(meta))
        return ast.Literal("str", _string_value(tok, self.file), self._span(meta))

    def expr_start(self, meta, children):
        return children[0]

    def raw_string_lit(self, meta, children):
        return ast.Literal("str", _string_value(children[0], self.file), self._span(meta))

    def int_lit(self, meta, children):
        return ast.Literal("int", int(children[0].value.replace("_", "")), self._span(meta))

    def float_lit(self, meta, children):
        # Kept as written (without digit-group underscores): a decimal literal must not lose
        # digits through a binary float.
        return ast.Literal("float", children[0].value.replace("_", ""), self._span(meta))

    def bigint_lit(self, meta, children):
        # `12n`: a bigint (https://docs.geldata.com/reference/edgeql/literals), its digits kept as text
        return ast.Literal("bigint", children[0].value[:-1].replace("_", ""), self._span(meta))

    def decimal_lit(self, meta, children):
        # `1.5n`: a decimal, kept as written (without the `n`)
        return ast.Literal("decimal", children[0].value[:-1].replace("_", ""), self._span(meta))

    def true_lit(self, meta, children):
        return ast.Literal("bool", True, self._span(meta))

    def false_lit(self, meta, children):
        return ast.Literal("bool", False, self._span(meta))

    def enum_ref(self, meta, children):
        (enum, _), member = children
        return ast.EnumRef(enum, str(member), self._span(meta), self._tspan(member))

    def func_call(self, meta, children):
        (name, _), *args = children
        return ast.FuncCall(name, tuple(args), self._span(meta))

    def cmp_op(self, meta, children):
        left, op, right = children
        return ast.BinOp(op.value.lower(), left, right, self._span(meta))

    def tuple_element(self, meta, children):
        """``t.0``: an element of a tuple named ``t`` (a path step from the name)."""
        (name, span), index = children[0], children[-1]
        return ast.Step(ast.VarRef(name, span), str(index), ".", self._span(meta))

    def lt_op(self, meta, children):
        left, right = [c for c in children if not isinstance(c, Token)]
        return ast.BinOp("<", left, right, self._span(meta))

    def gt_op(self, meta, children):
        left, right = [c for c in children if not isinstance(c, Token)]
        return ast.BinOp(">", left, right, self._span(meta))

    def _bin(op):  # noqa: N805 - factory for the operator rules below
        def build(self, meta, children):
            left, right = children
            return ast.BinOp(op, left, right, self._span(meta))

        return build

    or_op = _bin("or")
    and_op = _bin("and")
    add_op = _bin("+")
    sub_op = _bin("-")
    concat_op = _bin("++")
    coalesce_op = _bin("??")
    mul_op = _bin("*")
    div_op = _bin("/")
    mod_op = _bin("%")
    floordiv_op = _bin("//")
    union_op = _bin("union")
    except_op = _bin("except")
    intersect_op = _bin("intersect")
    del _bin

    def pow_op(self, meta, children):
        """``a ^ b``. Gel's ``^`` binds tighter than a unary ``-``/``+`` and looser than a cast
        (Gel's grammar precedence: P_UMINUS < P_POW_OP < P_TYPECAST; geldata/gel
        tests/test_edgeql_expressions.py ``test_edgeql_expr_op_12``: ``select -2^2`` is ``{-4}``).
        The grammar reads a sign as part of ``^``'s left operand; an unparenthesised sign on that
        operand's prefix spine (``-2^2``, ``<int64>-2^2``) is moved above the power here."""
        left, right = children
        return _pow(left, right, self._span(meta), self._parens)

    def in_op(self, meta, children):
        left, right = children
        return ast.BinOp("in", left, right, self._span(meta))

    def not_in_op(self, meta, children):
        left, right = children
        return ast.BinOp("not in", left, right, self._span(meta))

    def exists_op(self, meta, children):
        return ast.UnaryOp("exists", children[0], self._span(meta))

    def tuple(self, meta, children):
        return ast.Tuple_(tuple(children), self._span(meta))

    def set_lit(self, meta, children):
        return ast.SetLit(tuple(children), self._span(meta))

    def cast(self, meta, children):
        optional = isinstance(children[0], Token) and children[0].type == "OPTIONAL"
        ref, operand = children[-2], children[-1]
        return ast.Cast(ast.TypeRef(ref.name, ref.args, ref.span, optional), operand, self._span(meta))

    def paren(self, meta, children):
        self._parens[id(children[0])] = children[0]
        return children[0]

    def paren_stmt(self, meta, children):
        """A parenthesised statement: ``(select Type filter expr)`` alone is the
        :class:`~schemac.syntax.tree.SubSelect` queries use for a link's value; other selects are
        :class:`~schemac.syntax.tree.SelectExpr`, the others keep their node (a ``with_expr``,
        ``group_expr`` or ``for`` node, or a :class:`~schemac.syntax.tree.StatementExpr` around an
        insert, update or delete)."""
        return _parenthesised(children[0], self._span(meta))

    def set_stmt(self, meta, children):
        """``{ insert A { ... }, ... }``: a statement as a set's element, as if parenthesised."""
        return _parenthesised(children[0], children[0].span)

    def stmt_arg(self, meta, children):
        """``f(select ...)``, ``all(for x in xs union (...))``: a statement as an argument is the
        statement parenthesised (Gel's FuncCallArg reads an unparenthesised statement)."""
        return self.paren_stmt(meta, children)

    def var_ref(self, meta, children):
        (name, _), = children
        return ast.VarRef(name, self._span(meta))

    def for_q(self, meta, children):
        if isinstance(children[0], Token) and children[0].type == "OPTIONAL":
            # (Gel: the body runs once with the variable empty when the set is empty,
            # https://docs.geldata.com/reference/edgeql/for)
            raise CompileError([Diagnostic(
                "E0206", "'for optional' loops are not supported yet", self._tspan(children[0]),
                "loop over the set without 'optional' where it is never empty, or handle the empty case "
                "with an 'if ... else' or '??'")])
        name, source, body = children
        if isinstance(body, (ast.SelectExpr, ast.WithExpr, ast.GroupExpr, ast.ForExpr)):
            # `for x in S select E`: Gel's ForQuery without `union` (has_union=False), the same
            # query as `for x in S union (select E)` (geldata/gel edb/edgeql/parser/grammar/
            # expressions.py reduce_ForInStmt; https://docs.geldata.com/reference/edgeql/for)
            body = _parenthesised(body, body.span)
        if isinstance(body, ast.StatementExpr) and isinstance(body.query, ast.InsertQuery):
            body = body.query
        if isinstance(body, ast.InsertQuery):
            return ast.ForQuery(str(name), self._tspan(name), source, body, self._span(meta))
        return ast.ForExpr(str(name), self._tspan(name), source, body, self._span(meta))

    def named_arg(self, meta, children):
        name_tok, value = children
        return ast.NamedArg(str(name_tok), value, self._span(meta))

    def introspect(self, meta, children):
        return ast.Introspect(children[0], self._span(meta))

    def subject_ref(self, meta, children):
        return ast.Path(("__subject__",), self._span(meta))

    def special_ref(self, meta, children):
        return ast.VarRef(children[0].value.lower(), self._span(meta))

    def link_prop_ref(self, meta, children):
        return ast.LinkPropRef(str(children[0]), self._span(meta))

    def step(self, meta, children):
        base, name = children
        if isinstance(base, ast.VarRef) and name.type == "NAME" and not base.name.startswith("__"):
            # (`Type.member`, written after a qualified name the grammar reads as a variable)
            return ast.EnumRef(base.name, str(name), self._span(meta), self._tspan(name))
        return ast.Step(base, str(name), ".", self._span(meta))

    def back_step(self, meta, children):
        base, name = children
        return ast.Step(base, str(name), ".<", self._span(meta))

    def link_prop_step(self, meta, children):
        base, name = children
        return ast.Step(base, str(name), "@", self._span(meta))

    def type_filter(self, meta, children):
        base, ref = children
        return ast.TypeFilter(base, ref, self._span(meta))

    def subject_type_filter(self, meta, children):
        # `[is T].name` in a shape's expression (Gel: the object itself, filtered by type):
        # the type filter of the empty path
        (ref,) = children
        span = self._span(meta)
        return ast.TypeFilter(ast.Path((), span), ref, span)

    def slice_op(self, meta, children):
        base, start, stop = children
        return ast.Slice(base, start, stop, self._span(meta))

    def slice_from(self, meta, children):
        base, start = children
        return ast.Slice(base, start, None, self._span(meta))

    def slice_to(self, meta, children):
        base, stop = children
        return ast.Slice(base, None, stop, self._span(meta))

    def if_else(self, meta, children):
        then, cond, else_ = children
        return ast.IfElse(cond, then, else_, self._span(meta))

    def if_then_else(self, meta, children):
        cond, then, else_ = children
        return ast.IfElse(cond, then, else_, self._span(meta))

    def is_op(self, meta, children):
        operand, ref = children
        return ast.TypeCheck(operand, ref, False, self._span(meta))

    def is_not_op(self, meta, children):
        operand, ref = children
        return ast.TypeCheck(operand, ref, True, self._span(meta))

    def not_cmp_op(self, meta, children):
        left, op, right = children
        return ast.BinOp("not " + op.value.lower(), left, right, self._span(meta))


    def named_elem(self, meta, children):
        name, value = children
        return (str(name), value)

    def named_tuple(self, meta, children):
        return ast.NamedTuple(tuple(children), self._span(meta))

    def empty_tuple(self, meta, children):
        return ast.Tuple_((), self._span(meta))

    def array_lit(self, meta, children):
        return ast.ArrayLit(tuple(children), self._span(meta))

    def pos_op(self, meta, children):
        return ast.UnaryOp("+", children[0], self._span(meta))

    def distinct_op(self, meta, children):
        return ast.UnaryOp("distinct", children[0], self._span(meta))

    def detached_op(self, meta, children):
        # `detached T` (https://docs.geldata.com/reference/edgeql/paths#detached): every object of
        # the type T, unrelated to any T of the enclosing scopes. Of another expression: named
        # where it stands.
        operand = children[0]
        if isinstance(operand, ast.VarRef) and not operand.detached:
            return ast.VarRef(operand.name, self._span(meta), True)
        if isinstance(operand, ast.ShapeExpr) and isinstance(operand.base, ast.VarRef) \
                and not operand.base.detached:  # detached User { name }
            base = operand.base
            return ast.ShapeExpr(ast.VarRef(base.name, base.span, True), operand.shape, self._span(meta))
        raise CompileError([Diagnostic(
            "E0206", "'detached' of anything but a type name is not supported yet",
            _new_span(self.file, meta.line, meta.col, meta.line, meta.col + len("detached")),
            "write detached T for every object of the type T")])

    def dml_path(self, meta, children):
        """``update chat.archive ...``: steps from a name (the statement is refused by
        :func:`_refuse_unplanned_query`; inside a schema it is kept as written)."""
        (name, span), *steps = children
        node: ast.Expr = ast.VarRef(name, span)
        for tok in steps:
            node = ast.Step(node, str(tok), ".", _new_span(self.file, span.line, span.col, tok.end_line, tok.end_column))
        return node

    def shaped(self, meta, children):
        base, shape = children
        return ast.ShapeExpr(base, shape, self._span(meta))

    def filtered_arg(self, meta, children):
        """``f(x filter c order by o)``: the argument is ``(select x filter c order by o)``."""
        subject, *rest = children
        c = dict(rest)
        return ast.SelectExpr(subject, None, c.get("filter"), c.get("order", ()), None, None, self._span(meta))

    def select_alias(self, meta, children):
        return ("alias", children[0])

    def _aliased(self, meta, children):
        """``select x := E <clauses>``: Gel's inline alias, ``with x := E select x <clauses>``
        (geldata/gel edb/edgeql/compiler/stmt.py compile_result_clause: "`SELECT foo := expr` is
        equivalent to `WITH foo := expr SELECT foo`"; https://docs.geldata.com/reference/edgeql/select).
        A shape stays on the select: ``select u := User { name }`` selects ``u { name }``. An
        alias that neither the shape nor the clauses name means nothing: ``select n := count(User)``
        is ``select count(User)``. Returns the binding (``None`` then) and the select's children."""
        (_, name), subject, *rest = children
        base, shape = subject, None
        if isinstance(subject, ast.ShapeExpr):
            base, shape = subject.base, subject.shape
        alias = str(name)
        if not any((isinstance(n, ast.VarRef) and n.name == alias) or (isinstance(n, ast.EnumRef) and n.enum == alias)
                   for part in list(shape or ()) + [x for _, v in rest for x in (v if type(v) is tuple else (v,))]
                   for n in ast.walk_syntax(part)):
            return None, [subject, *rest]
        binding = self.with_binding(meta, [name, base])
        ref = ast.VarRef(str(name), self._tspan(name))
        return binding, [ast.ShapeExpr(ref, shape, subject.span) if shape is not None else ref, *rest]

    def select_expr(self, meta, children):
        if type(children[0]) is tuple and children[0][0] == "alias":
            binding, children = self._aliased(meta, children)
            if binding is None:
                return self.select_expr(meta, children)
            return ast.WithExpr((binding,), self.select_expr(meta, children), self._span(meta))
        subject, *rest = children
        shape = None
        if isinstance(subject, ast.ShapeExpr):  # select User { name } ...
            subject, shape = subject.base, subject.shape
        c = dict(rest)
        return ast.SelectExpr(subject, shape, c.get("filter"), c.get("order", ()), c.get("offset"), c.get("limit"),
                              self._span(meta))

    def with_expr(self, meta, children):
        *bindings, body = children
        return ast.WithExpr(tuple(bindings), body, self._span(meta))

    with_call_stmt = with_expr

    def group_expr(self, meta, children):
        subject, *rest = children
        shape = None
        if isinstance(subject, ast.ShapeExpr):
            subject, shape = subject.base, subject.shape
        using = tuple(r for r in rest if type(r) is tuple and len(r) == 2 and isinstance(r[0], str))
        by = tuple(r for r in rest if not (type(r) is tuple and len(r) == 2 and isinstance(r[0], str)))
        return ast.GroupExpr(subject, shape, using, by, self._span(meta))

    def gshape(self, meta, children):
        return tuple(children)

    def _gshape_element(self, meta, children, link_prop=False, backlink=False):
        name, *rest = children
        sub = rest.pop(0) if rest and type(rest[0]) is tuple and (not rest[0] or isinstance(rest[0][0], ast.ShapeElement)) else None
        c = dict(rest)
        return ast.ShapeElement(str(name), sub, self._span(meta), link_prop, None, c.get("filter"),
                                c.get("order", ()), c.get("offset"), c.get("limit"), backlink)

    def gshape_ptr(self, meta, children):
        return self._gshape_element(meta, children)

    def gshape_link_prop(self, meta, children):
        return self._gshape_element(meta, children, link_prop=True)

    def gshape_backlink(self, meta, children):
        return self._gshape_element(meta, children, backlink=True)

    def gshape_computed(self, meta, children):
        name = [c for c in children if isinstance(c, Token)][-1]
        return ast.ShapeElement(str(name), None, self._span(meta), value=children[-1])

    def gshape_link_prop_computed(self, meta, children):
        name = [c for c in children if isinstance(c, Token)][-1]
        return ast.ShapeElement(str(name), None, self._span(meta), link_prop=True, value=children[-1])

    def gshape_is(self, meta, children):
        n = next(i for i, c in enumerate(children) if isinstance(c, Token))
        name, rest = children[n], children[n + 1:]
        el = self._gshape_element(meta, [name] + rest)
        # (a union `[is A | B]` is kept as written, "A | B")
        return dataclasses.replace(el, type_filter=" | ".join(t[0] for t in children[:n]))

    def gshape_splat(self, meta, children):
        return ast.ShapeElement("*", None, self._span(meta))

    def gshape_double_splat(self, meta, children):
        return ast.ShapeElement("**", None, self._span(meta))
        i = name_tok.start_pos - 1
        while i >= 0 and text[i].isspace():
            i -= 1
        if i >= 0 and text[i] == "@":
            return "@"
        if i >= 1 and text[i - 1:i + 1] == ".<":
            return ".<"
        return ""

    def dml_global(self, meta, children):
        """``update global current_user set {...}`` / ``delete global current_user``: the
        objects of an object global (planned as a filter on the global's type)."""
        (name, _), = children
        return ast.GlobalRef(name, self._span(meta))

    def global_ref(self, meta, children):
        (name, _), = children
        return ast.GlobalRef(name, self._span(meta))

    def global_path(self, meta, children):
        (name, _), *steps = children
        return ast.GlobalRef(name, self._span(meta), tuple(map(str, steps)))

    def backlink(self, meta, children):
        name_tok, *rest = children
        if rest:
            type_name, type_span = rest[0]
            return ast.Backlink(str(name_tok), type_name, self._span(meta), type_span)
        return ast.Backlink(str(name_tok), None, self._span(meta))

    def not_op(self, meta, children):
        return ast.UnaryOp("not", children[0], self._span(meta))

    def neg_op(self, meta, children):
        return ast.UnaryOp("-", children[0], self._span(meta))

    # -- schema
    def enum_member(self, meta, children):
        tok = children[0]
        value = tok.value if tok.type == "NAME" else _string_value(tok, self.file)
        return (value, self._tspan(tok))

    def enum_decl(self, meta, children):
        name, *members = children
        return ("enum", name, tuple(members), self._span(meta))

    def enum_base(self, meta, children):
        return ("enum_base", tuple(children), self._span(meta))

    def scalar_decl(self, meta, children):
        abstract = _take_token(children, "ABSTRACT")
        name_tok, *rest = children
        bases = [c for c in rest if isinstance(c, (ast.TypeRef, tuple)) and not _is_member(c)]
        members = [c for c in rest if _is_member(c)]
        return ("scalar", name_tok, bases, members, abstract, self._span(meta))

    def prop_default(self, meta, children):
        return ("default", children[0], self._span(meta))

    def using_decl(self, meta, children):
        return ("using", children[0], self._span(meta))

    def readonly_decl(self, meta, children):
        return ("readonly", children[0].type == "TRUE", self._span(meta))

    def annotation_decl(self, meta, children):
        (name, _), text = children
        value = _string_value(text, self.file)
        if "\0" in value:
            raise CompileError([Diagnostic("E0102", "annotations cannot contain NUL characters", self._tspan(text))])
        return ("annotation", (name, value), self._span(meta))

    def restrict(self, meta, _):
        return "restrict"

    def delete_source(self, meta, _):
        return "delete source"

    def allow(self, meta, _):
        return "allow"

    def deferred_restrict(self, meta, _):
        return "deferred restrict"

    def on_target_delete(self, meta, children):
        return ("on_target_delete", children[0], self._span(meta))

    def constraint_args(self, meta, children):
        return ("args", tuple(children))

    def on_clause(self, meta, children):
        return ("on", tuple(children))

    def except_clause(self, meta, children):
        return ("except", children[0])

    def filter_clause(self, meta, children):
        return ("filter", children[0])

    def set_field(self, meta, children):
        name, value = children
        return ast.Field(str(name), value, self._span(meta))

    def constraint_decl(self, meta, children):
        (name, name_span), *clauses = children
        c = dict(x for x in clauses if type(x) is tuple and len(x) == 2)
        on = c.get("on", ())
        if len(on) == 1 and isinstance(on[0], ast.Tuple_):  # Gel's on ((.a, .b))
            on = on[0].items
        fields = tuple(x for x in clauses if isinstance(x, ast.Field))
        annotations = tuple(x[1] for x in clauses if type(x) is tuple and x[0] == "annotation")
        decl = ast.ConstraintDecl(name, c.get("args", ()), on, c.get("except"), c.get("filter"),
                                  self._span(meta), name_span, fields, annotations)
        return ("constraint", decl, decl.span)

    def index_decl(self, meta, children):
        kind = None
        if children and isinstance(children[0], tuple) and len(children[0]) == 2 and isinstance(children[0][1], Span):
            kind = children[0][0]
            children = children[1:]
        clauses = dict(c for c in children if type(c) is tuple and c[0] in ("on", "except", "filter", "args"))
        annotations = tuple(c[1] for c in children if type(c) is tuple and c[0] == "annotation")
        on = clauses.get("on", ())
        if len(on) == 1 and isinstance(on[0], ast.Tuple_):
            on = on[0].items
        fields = tuple(c for c in children if isinstance(c, ast.Field))
        fields += tuple(ast.Field("using", c[1], c[2]) for c in children if type(c) is tuple and c[0] == "using")
        decl = ast.IndexDecl(kind, on, clauses.get("except"), clauses.get("filter"), annotations, self._span(meta),
                             clauses.get("args", ()), False, fields)
        return ("index", decl, decl.span)

    def deferred_index(self, meta, children):
        _, decl, span = self.index_decl(meta, children)
        return ("index", dataclasses.replace(decl, deferred=True), span)

    def delegated_constraint(self, meta, children):
        _, decl, span = self.constraint_decl(meta, children)
        return ("constraint", dataclasses.replace(decl, delegated=True), span)

    # -- definitions: functions, aliases, abstract declarations, futures, permissions
    def using_future(self, meta, children):
        return ("definition", ast.FutureDecl(str(children[0]), self._span(meta)))

    def permission_decl(self, meta, children):
        (name, _), = children
        return ("definition", ast.PermissionDecl(name, "", self._span(meta)))

    def fp_variadic(self, meta, children):
        return ("param_kind", "variadic")

    def fp_named_only(self, meta, children):
        return ("param_kind", "named only")

    def tq_set_of(self, meta, children):
        return ("qualifier", "set of")

    def tq_optional(self, meta, children):
        return ("qualifier", "optional")

    def func_param(self, meta, children):
        kind = qual = default = None
        name = ref = None
        for c in children:
            if isinstance(c, Token) and c.type == "NAME":
                name = str(c)
            elif isinstance(c, ast.TypeRef) and ref is None:
                ref = c
            elif type(c) is tuple and c[0] == "param_kind":
                kind = c[1]
            elif type(c) is tuple and c[0] == "qualifier":
                qual = c[1]
            elif isinstance(c, Token) and c.type == "CMP_OP":
                if c.value != "=":
                    raise CompileError([Diagnostic("E0100", f"unexpected {c.value!r}; expected '='", self._tspan(c),
                                                   "a parameter's default is written name: type = value")])
            else:
                default = c
        return ast.FuncParam(name, ref, kind, qual, default, self._span(meta))

    def func_params(self, meta, children):
        return ("params", tuple(children))

    def function_using(self, meta, children):
        return ("using", children[0], self._span(meta))

    def function_using_language(self, meta, children):
        language, text = children
        return ("using_language", (str(language), _string_value(text, self.file)), self._span(meta))

    def _members(self, children):
        """The common members of a definition's body: fields, annotations, ``using (...)``."""
        fields = tuple(c for c in children if isinstance(c, ast.Field))
        annotations = tuple(c[1] for c in children if type(c) is tuple and c[0] == "annotation")
        using = next((c[1] for c in children if type(c) is tuple and c[0] == "using"), None)
        return fields, annotations, using

    def function_decl(self, meta, children):
        (name, name_span), params, *rest = children
        qual = None
        if type(rest[0]) is tuple and rest[0][0] == "qualifier":
            qual = rest.pop(0)[1]
        returns = rest.pop(0)
        fields, annotations, body = self._members(rest)
        language = text = None
        other = next((c[1] for c in rest if type(c) is tuple and c[0] == "using_language"), None)
        if other is not None:
            language, text = other
        return ("definition", ast.FunctionDecl(name, "", params[1], returns, qual, body, language, text, fields,
                                               annotations, self._span(meta), name_span))

    def alias_decl(self, meta, children):
        (name, name_span), *rest = children
        expr = None
        if rest and not (isinstance(rest[0], ast.Field) or type(rest[0]) is tuple):
            expr = rest[0]
            rest = []
        fields, annotations, using = self._members(rest)
        return ("definition", ast.AliasDecl(name, "", expr if expr is not None else using, annotations,
                                            self._span(meta), name_span))

    def _abstract(self, meta, kind, children, inheritable=False):
        (name, name_span), *rest = [c for c in children if not isinstance(c, Token)]
        extends = next((c[1] for c in rest if type(c) is tuple and c[0] == "extending"), ())
        params = next((c[1] for c in rest if type(c) is tuple and c[0] == "params"), ())
        on = next((c[1] for c in rest if type(c) is tuple and c[0] == "on"), ())
        fields, annotations, using = self._members(rest)
        return ("definition", ast.AbstractDecl(kind, name, "", extends, params, on, using, fields, annotations,
                                               inheritable, None, self._span(meta), name_span))

    def abstract_constraint(self, meta, children):
        return self._abstract(meta, "constraint", children)

    def abstract_annotation(self, meta, children):
        inheritable = any(isinstance(c, Token) and c.type == "INHERITABLE" for c in children)
        return self._abstract(meta, "annotation", children, inheritable)

    def abstract_index(self, meta, children):
        return self._abstract(meta, "index", children)

    def abstract_pointer(self, meta, children):
        kind_tok = children[1]
        (name, name_span) = children[2]
        name_tok = Token("NAME", name, None, name_span.line, name_span.col, name_span.end_line, name_span.end_col)
        pointer = self._pointer(meta, [kind_tok, name_tok] + list(children[3:]))
        _, decl = self._abstract(meta, kind_tok.value.lower(), children[2:3] + [c for c in children[3:]
                                                                        if type(c) is tuple and c[0] == "extending"])
        return ("definition", dataclasses.replace(decl, pointer=pointer, annotations=pointer.annotations))

    # -- triggers and rewrites
    def tk_insert(self, meta, children):
        return ("kind", "insert")

    def tk_update(self, meta, children):
        return ("kind", "update")

    def tk_delete(self, meta, children):
        return ("kind", "delete")

    def ts_each(self, meta, children):
        return ("scope", "each")

    def ts_all(self, meta, children):
        return ("scope", "all")

    def trigger_commit(self, meta, children):
        return ("commit", True)

    def trigger_when(self, meta, children):
        return ("when", children[0])

    def trigger_decl(self, meta, children):
        name_tok, *rest = children
        kinds = tuple(c[1] for c in rest if type(c) is tuple and c[0] == "kind")
        scope = next(c[1] for c in rest if type(c) is tuple and c[0] == "scope")
        when = next((c[1] for c in rest if type(c) is tuple and c[0] == "when"), None)
        commit = any(type(c) is tuple and c[0] == "commit" for c in rest)
        body = next(c for c in rest if not (type(c) is tuple or isinstance(c, ast.Field)))
        decl = ast.TriggerDecl(str(name_tok), commit, kinds, scope, when, body, self._span(meta), self._tspan(name_tok))
        return ("trigger", decl, decl.span)

    def rewrite_decl(self, meta, children):
        kinds = tuple(c[1] for c in children if type(c) is tuple and c[0] == "kind")
        expr = next(c for c in children if not (type(c) is tuple or isinstance(c, ast.Field)))
        return ast.RewriteDecl(kinds, expr, self._span(meta))

    def delete_target(self, meta, _):
        return "delete target"

    def delete_target_if_orphan(self, meta, _):
        return "delete target if orphan"

    def on_source_delete(self, meta, children):
        return ("on_source_delete", children[0], self._span(meta))

    def index_args(self, meta, children):
        return ("args", tuple(children))

    def index_arg(self, meta, children):
        name_tok, value = children
        return (str(name_tok), value, self._span(meta))

    def using_extension(self, meta, children):
        name_tok = children[0]
        version = _string_value(children[1], self.file) if len(children) > 1 else None
        return ("extension", ast.ExtensionDecl(str(name_tok), version, self._span(meta)))

    def _pointer(self, meta, children):
        n = 0  # the leading tokens: qualifiers, then the name
        for c in children:
            if not isinstance(c, Token):
                break
            n += 1
        name_tok = children[n - 1]
        required = None  # REQUIRED wins over OPTIONAL (the grammar allows one of them)
        multi = overloaded = single = False
        kind = None  # the first PROPERTY/LINK keyword, as written
        for t in children[:n - 1]:
            qual = t.type
            if qual == "REQUIRED":
                required = True
            elif qual == "OPTIONAL":
                if required is None:
                    required = False
            elif qual == "MULTI":
                multi = True
            elif qual == "SINGLE":
                single = True
            elif qual == "OVERLOADED":
                overloaded = True
            elif (qual == "PROPERTY" or qual == "LINK") and kind is None:
                kind = t.value.lower()
        extends: Tuple[Tuple[str, Span], ...] = ()
        if n < len(children) and type(children[n]) is tuple and children[n][0] == "extending":
            extends = children[n][1]
            n += 1
        type_ref = None
        union: Tuple[ast.TypeRef, ...] = ()
        if n < len(children) and isinstance(children[n], ast.TypeRef):
            type_ref = children[n]
            n += 1
            if type_ref.name == "|":  # `A | B`: refused by the resolver, which sees A
                union = type_ref.args
                type_ref = union[0]
        on_source_delete = on_source_delete_span = None
        rewrites: List[ast.RewriteDecl] = []
        indexes: List[ast.IndexDecl] = []
        default = None
        readonly = None
        on_delete = None
        constraints: List[ast.ConstraintDecl] = []
        annotations: List[Tuple[str, str]] = []
        link_props: List[ast.PointerDecl] = []
        computed = None
        splat = splat_span = None
        for m in children[n:]:
            if isinstance(m, ast.PointerDecl) and m.name.lower() == "splat_strategy" and m.kind is None \
                    and isinstance(m.computed, ast.Literal) and m.computed.kind == "str" and not m.required \
                    and not m.multi and not m.overloaded:
                # `splat_strategy := 'Explicit'`: a qualifier of the pointer (Gel 7), not a
                # computed link property; its value is checked by the resolver
                splat, splat_span = m.computed.value, m.computed.span
            elif isinstance(m, ast.PointerDecl):
                link_props.append(m)
            elif isinstance(m, ast.RewriteDecl):
                rewrites.append(m)
            elif m[0] == "on_source_delete":
                on_source_delete, on_source_delete_span = m[1], m[2]
            elif m[0] == "index":
                indexes.append(m[1])
            elif m[0] == "extending":
                extends += m[1]
            elif m[0] == "default":
                default = m[1]
            elif m[0] == "readonly":
                readonly = m[1]
            elif m[0] == "annotation":
                annotations.append(m[1])
            elif m[0] == "on_target_delete":
                on_delete = m[1]
            elif m[0] == "constraint":
                constraints.append(m[1])
            elif m[0] == "using":
                computed = m[1]
        return ast.PointerDecl(
            name_tok.value, kind, type_ref, required, multi, overloaded, default,
            tuple(constraints) if constraints else (), readonly, tuple(annotations) if annotations else (),
            on_delete, tuple(link_props) if link_props else (), meta,
            _new_span(self.file, name_tok.line, name_tok.column, name_tok.end_line, name_tok.end_column),
            computed, extends, on_source_delete, tuple(rewrites), tuple(indexes), union, on_source_delete_span,
            single, splat, splat_span,
        )

    def pointer_decl(self, meta, children):
        return self._pointer(meta, children)

    def computed_decl(self, meta, children):
        """``[qualifiers] name := expr;``: a computed property or link."""
        *head, expr = children
        return self._pointer(meta, head + [("using", expr, expr.span)])

    computed_link_prop = computed_decl

    # -- globals and access policies
    def _global(self, meta, children, computed):
        required = multi = False
        i = 0
        while isinstance(children[i], Token):
            required = required or children[i].type == "REQUIRED"
            multi = multi or children[i].type == "MULTI"
            i += 1
        name, name_span = children[i]
        rest = children[i + 1:]
        type_ref = None
        if not computed and rest and isinstance(rest[0], ast.TypeRef):
            type_ref = rest.pop(0)
        if computed:
            return ("global", ast.GlobalDecl(name, "", None, required, multi, None, rest[0], (), meta, name_span))
        default = computed_expr = None
        annotations = []
        for m in rest:
            if m[0] == "default":
                default = m[1]
            elif m[0] == "annotation":
                annotations.append(m[1])
            elif m[0] == "using":
                computed_expr = m[1]
        return ("global", ast.GlobalDecl(name, "", type_ref, required, multi, default, computed_expr,
                                         tuple(annotations), meta, name_span))

    def global_decl(self, meta, children):
        return self._global(meta, children, False)

    def computed_global(self, meta, children):
        return self._global(meta, children, True)

    def policy_when(self, meta, children):
        return ("when", children[0])

    def policy_using(self, meta, children):
        return ("using", children[0])

    def policy_allow(self, meta, children):
        return ("action", True)

    def policy_deny(self, meta, children):
        return ("action", False)

    def pk_all(self, meta, children):
        return ("kind", ("select", "insert", "update read", "update write", "delete"))

    def pk_select(self, meta, children):
        return ("kind", ("select",))

    def pk_insert(self, meta, children):
        return ("kind", ("insert",))

    def pk_delete(self, meta, children):
        return ("kind", ("delete",))

    def pk_update(self, meta, children):
        return ("kind", ("update read", "update write"))

    def pk_update_read(self, meta, children):
        return ("kind", ("update read",))

    def pk_update_write(self, meta, children):
        return ("kind", ("update write",))

    def policy_errmessage(self, meta, children):
        return ("errmessage", _string_value(children[0], self.file))

    def access_policy(self, meta, children):
        name_tok, *rest = children
        allow = True
        kinds: List[str] = []
        clauses = {}
        annotations = []
        for c in rest:
            if c[0] == "action":
                allow = c[1]
            elif c[0] == "kind":
                kinds.extend(k for k in c[1] if k not in kinds)
            elif c[0] == "annotation":
                annotations.append(c[1])
            else:
                clauses[c[0]] = c[1]
        order = ("select", "insert", "update read", "update write", "delete")
        decl = ast.AccessPolicyDecl(str(name_tok), allow, tuple(k for k in order if k in kinds), clauses.get("when"),
                                    clauses.get("using"), clauses.get("errmessage"), tuple(annotations),
                                    self._span(meta), self._tspan(name_tok))
        return ("policy", decl, decl.span)

    def link_prop_decl(self, meta, children):
        return self._pointer(meta, children)

    def extending(self, meta, children):
        return ("extending", tuple(children))

    def type_decl(self, meta, children):
        abstract = _take_token(children, "ABSTRACT")
        name_tok, *members = children
        return ("type", name_tok, abstract, members, self._span(meta))

    # -- migration hints
    def kind_type(self, meta, children):
        return "type"

    def kind_property(self, meta, children):
        return "property"

    def kind_link(self, meta, children):
        return "link"

    def kind_member(self, meta, children):
        return "member"

    def hint_target(self, meta, children):
        (name, _), *item = children  # Type[.pointer[.link property]]
        return (name, ".".join(_name_text(i, self.file) for i in item) if item else None, self._span(meta))

    def _make_hint(self, action, kind, target, to, expr, meta):
        name, item, span = target
        return ("hint", action, kind, name, item, to, expr, self._span(meta))

    def hint_rename(self, meta, children):
        kind, target, to = children
        return self._make_hint("rename", kind, target, _name_text(to, self.file), None, meta)

    def hint_drop(self, meta, children):
        kind, target = children
        return self._make_hint("drop", kind, target, None, None, meta)

    def hint_fill(self, meta, children):
        target, expr = children
        return self._make_hint("fill", "property", target, None, expr, meta)

    def hint_cast(self, meta, children):
        (target,) = children
        return self._make_hint("cast", "property", target, None, None, meta)

    def hint_map(self, meta, children):
        target, to = children
        return self._make_hint("map", "member", target, _name_text(to, self.file), None, meta)

    def migration_block(self, meta, children):
        return ("migration", list(children))

    def module_block(self, meta, children):
        (name, span), *items = children
        return ("module", name, span, items)

    # -- queries
    def assignment(self, meta, children):
        name_tok, op, value = children
        return ast.Assignment(str(name_tok), value, self._span(meta), self._tspan(name_tok), op.value)

    def assignments(self, meta, children):
        return tuple(children)

    def unless_conflict(self, meta, children):
        on = next((c[1] for c in children if isinstance(c, tuple) and c[0] == "on"), ())
        if len(on) == 1 and isinstance(on[0], ast.Tuple_):  # Gel's on ((.a, .b))
            on = on[0].items
        else_ = next((c for c in children if isinstance(c, ast.ConflictElse)), None)
        return ast.UnlessConflict(on, self._span(meta), else_)

    def else_update(self, meta, children):
        (name, name_span), *rest = children
        filt = rest[0][1] if len(rest) == 2 else None
        return ast.ConflictElse("update", name, name_span, rest[-1], self._span(meta), filt)

    def gshape_ptr_is(self, meta, children):
        """``owners[is Bot]: { name }`` (Gel's shape element with a type intersection): the
        computed element ``owners := .owners[is Bot] { name }``, with the element's clauses a
        select of it (``owners := (select .owners[is Bot] { name } filter ...)``)."""
        name, ref, *rest = children
        span = self._span(meta)
        el = self._gshape_element(meta, [name] + rest)
        base = ast.TypeFilter(ast.Path((str(name),), self._tspan(name)), ref, span)
        if el.filter is not None or el.order or el.offset is not None or el.limit is not None:
            value = ast.SelectExpr(base, el.shape, el.filter, el.order, el.offset, el.limit, span)
        elif el.shape is not None:
            value = ast.ShapeExpr(base, el.shape, span)
        else:
            value = base
        return ast.ShapeElement(str(name), None, span, value=value)

    def else_select(self, meta, children):
        (name, name_span), *rest = children
        filt = rest[0][1] if rest else None
        return ast.ConflictElse("select", name, name_span, (), self._span(meta), filt)

    def insert_q(self, meta, children):
        (name, name_span), *rest = children
        assigns = rest.pop(0) if rest and type(rest[0]) is tuple else ()  # (`insert T` has no shape)
        return ast.InsertQuery(name, name_span, assigns, rest[0] if rest else None, self._span(meta))

    def update_q(self, meta, children):
        subject, *rest = children
        filt = None
        if len(rest) == 2:
            filt = rest[0][1]
        if type(subject) is tuple:  # a type name
            return ast.UpdateQuery(subject[0], subject[1], filt, rest[-1], self._span(meta))
        return ast.UpdateQuery("", subject.span, filt, rest[-1], self._span(meta), subject)

    def order_item(self, meta, children):
        expr, *words = children
        descending = any(w.type == "ORDER_DIR" and w.value.lower() == "desc" for w in words)
        empty = next((w.value.lower() for w in words if w.type == "ORDER_EMPTY"), None)
        return ast.OrderItem(expr, descending, empty, self._span(meta))

    def order_clause(self, meta, children):
        return ("order", tuple(children))

    def offset_clause(self, meta, children):
        return ("offset", children[0])

    def limit_clause(self, meta, children):
        return ("limit", children[0])

    def select_q(self, meta, children):
        """``select <expr> [filter] [order by] [offset] [limit]``: a type (with a shape) is a
        :class:`~schemac.syntax.tree.SelectQuery`, a parenthesised write (with a shape) a
        :class:`~schemac.syntax.tree.SelectDml`, any other expression a
        :class:`~schemac.syntax.tree.SelectValue`. ``select x := E ...`` is ``with x := E select x ...``."""
        if type(children[0]) is tuple and children[0][0] == "alias":
            binding, children = self._aliased(meta, children)
            if binding is None:
                return self.select_q(meta, children)
            return ast.WithQuery((binding,), self.select_q(meta, children), self._span(meta))
        subject, *rest = children
        c = dict(rest)
        base, shape = subject, None
        if isinstance(subject, ast.ShapeExpr):
            base, shape = subject.base, subject.shape
        span = self._span(meta)
        if isinstance(base, ast.VarRef):
            return ast.SelectQuery(base.name, base.span, shape, c.get("filter"), c.get("order", ()), c.get("offset"),
                                   c.get("limit"), span)
        if (isinstance(base, ast.StatementExpr) and isinstance(base.query, (ast.InsertQuery, ast.UpdateQuery,
                                                                             ast.DeleteQuery)) and not c):
            return ast.SelectDml(base.query, shape, span)
        return ast.SelectValue(subject, c.get("filter"), c.get("order", ()), c.get("offset"), c.get("limit"), span)

    def free_elem(self, meta, children):
        name, value = children
        return ast.ShapeElement(str(name), None, self._span(meta), value=value)

    def free_object(self, meta, children):
        return ast.FreeObject(tuple(children), self._span(meta))

    def delete_q(self, meta, children):
        subject, *rest = children
        c = dict(rest)
        filt = c.get("filter")
        span = self._span(meta)
        if "order" in c or "offset" in c or "limit" in c:
            # `delete T filter f order by o offset m limit n` deletes the objects the select with
            # the same clauses selects (https://docs.geldata.com/reference/edgeql/delete): of a
            # type, `delete T filter .id in (select T filter f order by o ...)`; of another
            # expression, `delete (select E filter f ...)`.
            if type(subject) is tuple:
                sel = ast.SelectExpr(ast.VarRef(subject[0], subject[1]), None, filt, c.get("order", ()),
                                     c.get("offset"), c.get("limit"), span)
                return ast.DeleteQuery(subject[0], subject[1], ast.BinOp("in", ast.Path(("id",), span), sel, span),
                                       span)
            sel = ast.SelectExpr(subject, None, filt, c.get("order", ()), c.get("offset"), c.get("limit"), span)
            return ast.DeleteQuery("", subject.span, None, span, sel)
        if type(subject) is tuple:  # a type name
            return ast.DeleteQuery(subject[0], subject[1], filt, span)
        return ast.DeleteQuery("", subject.span, filt, span, subject)

    def index_op(self, meta, children):
        base, key = children
        return ast.Index(base, key, self._span(meta))

    def with_binding(self, meta, children):
        name, value = children
        if isinstance(value, ast.StatementExpr) and isinstance(value.query, (ast.InsertQuery, ast.UpdateQuery,
                                                                             ast.DeleteQuery)):
            value = value.query  # a bound statement: `p := (insert ...)`
        return ast.WithBinding(str(name), self._tspan(name), value, self._span(meta))

    def with_binding_stmt(self, meta, children):
        """``with x := select ...``: the statement, as if parenthesised."""
        name, q = children
        return self.with_binding(meta, [name, _parenthesised(q, q.span)])

    def with_module(self, meta, children):
        (name, span), = children
        return ast.WithBinding("module", span, ast.VarRef(name, span), self._span(meta))

    def with_q(self, meta, children):
        *bindings, body = children
        return ast.WithQuery(tuple(bindings), body, self._span(meta))

    def query_file(self, meta, children):
        return list(children)

    def schema(self, meta, children):
        return list(children)


#: The escapes of a string literal (Gel's: https://docs.geldata.com/reference/reference/edgeql/lexical,
#: plus ``\0``), besides ``\xhh`` (hh <= 7f), ``\uhhhh`` and ``\Uhhhhhhhh``.
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "\\": "\\", "'": "'", '"': '"',
            "0": "\0"}
_ESCAPE = re.compile(r"\\(?:(\r?\n[ \t\r\n]*)|x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))", re.S)
_ESCAPE_HINT = ("the escapes are \\n \\t \\r \\b \\f \\0 \\\\ \\' \\\" \\xhh (up to \\x7f) \\uhhhh \\Uhhhhhhhh; "
                "write \\\\ for a backslash, or use a raw string r'...'")


def _name_text(tok, file: str) -> str:
    """A NAME token's text, or a string token's unquoted value (quoted enum members)."""
    if isinstance(tok, Token) and tok.type in _STRING_TYPES:
        return _string_value(tok, file)
    return str(tok)


_STRING_TYPES = frozenset(("STRING", "RAW_STRING", "DOLLAR_STRING"))


def _string_value(tok: Token, file: str) -> str:
    """The value of a string token (Gel's forms:
    https://docs.geldata.com/reference/edgeql/lexical#strings): a raw string ``r'...'`` or a
    dollar-quoted one ``$$...$$`` / ``$tag$...$tag$`` is its text; a quoted string is unquoted
    with its escapes replaced, a backslash at the end of a line dropping the line break and the
    next line's leading whitespace. Raises :class:`~schemac.diagnostics.CompileError` (E0102,
    at the escape) for an unknown escape or a code point that is not a character."""
    if tok.type == "RAW_STRING":
        return tok.value[2:-1]
    if tok.type == "DOLLAR_STRING":
        tag_end = tok.value.index("$", 1) + 1
        return tok.value[tag_end:len(tok.value) - tag_end]
    return _unescape(tok, 1, len(tok.value) - 1, file)


def _unescape(tok: Token, start: int, end: int, file: str) -> str:
    """``tok.value[start:end]`` (a quoted string's text, or a piece of it between
    interpolations) with its escapes replaced; an error is located in the file."""
    text = tok.value[start:end]
    if "\\" not in text:
        return text

    def replace(m) -> str:
        continuation, hex2, hex4, hex8, char = m.groups()
        if continuation is not None:
            return ""
        if char is not None:
            value = _ESCAPES.get(char)
            if value is not None:
                return value
            problem = f"unknown escape sequence '\\{char}' in a string literal"
            if char == "(":
                problem = "a string interpolation '\\(...)' is only supported in an expression"
        else:
            code = int(hex2 or hex4 or hex8, 16)
            if (hex2 and code > 0x7F) or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
                problem = f"'{m.group(0)}' is not a character"
            else:
                return chr(code)
        line, col = _token_position(tok, start + m.start())
        raise CompileError([Diagnostic("E0102", problem, _new_span(file, line, col, line, col + len(m.group(0))),
                                       _ESCAPE_HINT)])

    return _ESCAPE.sub(replace, text)


def _token_position(tok: Token, index: int) -> Tuple[int, int]:
    """1-based (line, column) in the file of ``tok.value[index]`` (a token may span lines)."""
    before = tok.value[:index]
    nl = before.count("\n")
    if not nl:
        return tok.line, tok.column + index
    return tok.line + nl, len(before) - before.rindex("\n")


def _interpolation_parts(tok: Token, file: str) -> Optional[list]:
    """A quoted string with interpolations (Gel 6's ``'a \\(expr) b'``,
    https://docs.geldata.com/reference/stdlib/string#type::std::str): its pieces in order,
    ``("text", str)`` and ``("expr", Expr)``; ``None`` when it has none (a ``\\(`` escaped as
    ``\\\\(``). The expression runs to the ``)`` that closes ``\\(`` (parentheses and strings
    inside it are skipped); it is parsed where it stands, so its spans are the file's. (The string
    token ends at the string's own quote, so an interpolated expression may hold strings in the
    other quote only: ``"\\(f('x'))"``.)"""
    v = tok.value
    close = len(v) - 1
    parts: list = []
    lit_start = 1
    i = 1
    while i < close:
        if v[i] != "\\":
            i += 1
            continue
        if v[i + 1] != "(":
            i += 2
            continue
        j, depth = i + 2, 1
        while j < close:
            c = v[j]
            if c in "'\"":
                j += 1
                while j < close and v[j] != c:
                    j += 2 if v[j] == "\\" else 1
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j >= close:
            line, col = _token_position(tok, i)
            raise CompileError([Diagnostic(
                "E0102", "this string interpolation '\\(' is never closed", _new_span(file, line, col, line, col + 2),
                "close it with ')' before the string ends; an expression in it may hold strings quoted with the "
                "other quote character only")])
        parts.append(("text", _unescape(tok, lit_start, i, file)))
        line, col = _token_position(tok, i + 2)
        padded = "\n" * (line - 1) + " " * (col - 1) + v[i + 2:j]
        try:
            expr = _lark().parse(padded, start="expr_start")
        except UnexpectedInput as e:
            raise _syntax_error(file, padded, e, "string interpolation") from None
        parts.append(("expr", expr))
        lit_start = i = j + 1
    if not parts:
        return None
    parts.append(("text", _unescape(tok, lit_start, close, file)))
    return parts


def _interpolation(parts: list, span: Span):
    """Gel's meaning of an interpolated string (its compiler: ``array_join([prefix, <str>e1,
    suffix1, ...], '')``): the pieces joined with ``++``, each expression cast to ``str``; so the
    result is empty when an expression is, and one string per combination of a multi one's
    values, as ``++`` gives."""
    pieces = []
    for kind, value in parts:
        if kind == "text":
            if value:
                pieces.append(ast.Literal("str", value, span))
        else:
            pieces.append(ast.Cast(ast.TypeRef("str", (), value.span), value, value.span))
    node = pieces[0]
    for piece in pieces[1:]:
        node = ast.BinOp("++", node, piece, span)
    return node


def _pow(left, right, span: Span, parens: Dict[int, object]):
    """``left ^ right`` with the signs of ``left``'s unparenthesised prefix spine (casts and
    unary ``-``/``+``) moved above the power, as Gel binds them (see ``pow_op``)."""
    if _sign_on_spine(left, parens):
        inner = left.operand
        inner_span = _new_span(span.file, inner.span.line, inner.span.col, span.end_line, span.end_col)
        below = _pow(inner, right, inner_span, parens)
        if isinstance(left, ast.Cast):
            return ast.Cast(left.type, below, span)
        return ast.UnaryOp(left.op, below, span)
    return ast.BinOp("^", left, right, span)


def _sign_on_spine(e, parens: Dict[int, object]) -> bool:
    """``e`` (not in parentheses) is a unary ``-``/``+``, or a cast whose operand spine (not in
    parentheses) holds one."""
    while id(e) not in parens:
        if isinstance(e, ast.UnaryOp) and e.op in ("-", "+"):
            return True
        if not isinstance(e, ast.Cast):
            return False
        e = e.operand
    return False


def _parenthesised(q, span: Span):
    """A statement in parentheses (or where Gel reads one without them: an argument, a ``with``
    binding), spanning ``span``."""
    if isinstance(q, ast.SelectExpr):
        if (isinstance(q.subject, ast.VarRef) and not q.subject.detached and q.shape is None
                and q.filter is not None and not q.order and q.offset is None and q.limit is None):
            return ast.SubSelect(q.subject.name, q.subject.span, q.filter, span)
        # (`(select Tag { @weight := 2 } filter ...)` sets link properties: see schemac.semantics.queries.)
        return dataclasses.replace(q, span=span)
    if isinstance(q, (ast.WithExpr, ast.GroupExpr, ast.ForExpr)):
        return dataclasses.replace(q, span=span)
    return ast.StatementExpr(q, span)



#: The one AST builder, called by the parser as it reduces (see :func:`_lark`).
_BUILDER = _Builder("")


def _parse(path: str, text: str, start: str, what: str):
    parser = _lark()
    _BUILDER.file = path
    try:
        return parser.parse(text, start=start)
    except UnexpectedInput as e:
        raise _syntax_error(path, text, e, what) from None
    except VisitError as e:
        if isinstance(e.orig_exc, CompileError):
            raise e.orig_exc from None
        raise


def parse_schema(path: str, text: str) -> ast.SchemaFile:
    """Parse one schema file.

    ``path`` is used only in spans. The whole of Gel's schema language parses (declarations
    the compiler does not lower are refused by the resolver, naming them). Returns
    a :class:`~schemac.syntax.tree.SchemaFile` with module blocks flattened (declarations outside
    any ``module`` block belong to ``default``). Raises
    :class:`~schemac.diagnostics.CompileError` on syntax errors."""
    items = _parse(path, text, "schema", "schema file")
    enums: List[ast.EnumDecl] = []
    scalars: List[ast.ScalarDecl] = []
    types: List[ast.TypeDecl] = []
    modules: List[Tuple[str, Span]] = []
    hints: List[ast.MigrationHint] = []
    globals_: List[ast.GlobalDecl] = []
    extensions: List[ast.ExtensionDecl] = []
    definitions: List[object] = []

    def walk(items, module: str, nested: bool) -> None:
        for item in items:
            kind = item[0]
            if kind == "module":
                _, name, span, inner = item
                # a module block inside another is a submodule: module a { module b {} } is a::b
                full = f"{module}::{name}" if nested else name
                modules.append((full, span))
                walk(inner, full, True)
            elif kind == "enum":
                _, name_tok, members, span = item
                enums.append(ast.EnumDecl(str(name_tok), members, module, span))
            elif kind == "scalar":
                _scalar_decl(path, item, module, enums, scalars)
            elif kind == "type":
                types.append(_type_decl(path, item, module))
            elif kind == "global":
                globals_.append(dataclasses.replace(item[1], module=module))
            elif kind == "migration":
                for (_, action, hkind, name, it, to, expr, span) in item[1]:
                    hints.append(ast.MigrationHint(action, hkind, name, it, to, expr, module, span))
            elif kind == "extension":
                extensions.append(item[1])
            elif kind == "definition":
                d = item[1]
                definitions.append(dataclasses.replace(d, module=module) if hasattr(d, "module") else d)

    walk(items, "default", False)
    del walk  # (a recursive closure is a reference cycle: it would keep the syntax trees alive)
    return ast.SchemaFile(path, tuple(enums), tuple(scalars), tuple(types), tuple(modules), (),
                          tuple(hints), tuple(globals_), tuple(extensions), tuple(definitions))


def _tok_span(path: str, tok: Token) -> Span:
    return Span(path, tok.line, tok.column, tok.end_line, tok.end_column)


def _take_token(children: list, type_: str) -> bool:
    """Remove a leading token of ``type_`` from ``children``; whether it was there."""
    if children and isinstance(children[0], Token) and children[0].type == type_:
        children.pop(0)
        return True
    return False


def _is_member(c) -> bool:
    return isinstance(c, tuple) and len(c) == 3 and c[0] in ("constraint", "annotation")


def _scalar_decl(path: str, item, module: str, enums: List[ast.EnumDecl], scalars: List[ast.ScalarDecl]) -> None:
    _, name_tok, bases, members, abstract, span = item
    name_span = _tok_span(path, name_tok)
    enum_bases = [b for b in bases if isinstance(b, tuple) and b[0] == "enum_base"]
    if enum_bases:
        # `scalar type S extending enum<A, B>` is an enum.
        if len(bases) > 1:
            raise CompileError([Diagnostic("E0205", "an enum scalar cannot extend anything else", span)])
        enums.append(ast.EnumDecl(str(name_tok), enum_bases[0][1], module, span))
        return
    if not bases:
        raise CompileError([Diagnostic("E0206", "a scalar type without a base type is not supported", span,
                                       "extend a scalar type, e.g. extending str")])
    if len(bases) != 1:
        raise CompileError([Diagnostic("E0206", "a scalar type extending several types is not supported", span,
                                       "extend exactly one scalar type, e.g. extending str")])
    constraints = tuple(m[1] for m in members if m[0] == "constraint")
    annotations = tuple(m[1] for m in members if m[0] == "annotation")
    scalars.append(ast.ScalarDecl(str(name_tok), module, bases[0], constraints, annotations, abstract, span, name_span))


def _type_decl(path: str, item, module: str) -> ast.TypeDecl:
    _, name_tok, abstract, members, span = item
    extends: Tuple[Tuple[str, Span], ...] = ()
    pointers: List[ast.PointerDecl] = []
    constraints: List[ast.ConstraintDecl] = []
    indexes: List[ast.IndexDecl] = []
    annotations: List[Tuple[str, str]] = []
    policies: List[ast.AccessPolicyDecl] = []
    triggers: List[ast.TriggerDecl] = []
    for m in members:
        if isinstance(m, ast.PointerDecl):
            pointers.append(m)
        elif m[0] == "policy":
            policies.append(m[1])
        elif m[0] == "trigger":
            triggers.append(m[1])
        elif m[0] == "extending":
            extends = m[1]
        elif m[0] == "constraint":
            constraints.append(m[1])
        elif m[0] == "index":
            indexes.append(m[1])
        elif m[0] == "annotation":
            annotations.append(m[1])
    return ast.TypeDecl(str(name_tok), module, abstract, extends, tuple(pointers), tuple(constraints),
                        tuple(indexes), tuple(annotations), span, _tok_span(path, name_tok), tuple(policies),
                        tuple(triggers))


def parse_query(path: str, text: str, name: str) -> ast.QueryFile:
    """Parse one query file holding exactly one query named ``name`` (the file stem).

    Raises :class:`~schemac.diagnostics.CompileError` on syntax errors or when the file holds
    zero or several queries."""
    m = _FIRST_WORD.match(text)
    if m and m.group(1).lower() in UNSUPPORTED_QUERY_FORMS:
        line, col = _position(text, m.start(1))
        raise CompileError([Diagnostic(
            "E0206", f"{UNSUPPORTED_QUERY_FORMS[m.group(1).lower()]} are not supported yet",
            Span.point(path, line, col, len(m.group(1))), "supported queries: select, insert, update, delete")])
    queries = _parse(path, text, "query_file", "query file")
    if len(queries) != 1:
        second = queries[1]
        raise CompileError(
            [
                Diagnostic(
                    "E0300",
                    f"a query file holds exactly one query; found {len(queries)}",
                    second.span,
                    "move each query into its own file; the file name names the query",
                )
            ]
        )
    _refuse_unplanned_query(queries[0])
    return ast.QueryFile(path, name, queries[0], leading_comment(text), text)


def _refuse_unplanned_query(q) -> None:
    """Statement forms the grammar reads (they are Gel's) that the query planner does not
    handle: one located E0206."""
    body = q
    while isinstance(body, ast.WithQuery):
        body = body.body
    problem = None
    if isinstance(body, (ast.UpdateQuery, ast.DeleteQuery)) and body.subject is not None \
            and not (isinstance(body.subject, ast.GlobalRef) and not body.subject.steps):
        problem = f"{'an update' if isinstance(body, ast.UpdateQuery) else 'a delete'} of an expression " \
                  "(not a type name) is not supported yet"
    if problem is not None:
        raise CompileError([Diagnostic("E0206", problem, body.span,
                                       "supported queries: select, insert, update and delete of a type")])


#: Query forms the grammar does not have yet, by their first word.
UNSUPPORTED_QUERY_FORMS = {# (https://docs.geldata.com/reference/reference/edgeql/configure: server
                           # settings, not a query a runner calls)
                           "configure": "configure statements",
                           # (https://docs.geldata.com/reference/edgeql: the schema changes through
                           # migrations, and a runner manages its own transactions and session)
                           "reset": "reset statements (session and schema commands)",
                           "create": "DDL statements (the schema changes through migrations)",
                           "alter": "DDL statements (the schema changes through migrations)",
                           "drop": "DDL statements (the schema changes through migrations)",
                           "start": "transaction statements (the runners manage transactions)",
                           "commit": "transaction statements (the runners manage transactions)",
                           "rollback": "transaction statements (the runners manage transactions)",
                           "declare": "transaction statements (the runners manage transactions)",
                           "release": "transaction statements (the runners manage transactions)",
                           "describe": "describe statements (introspection commands)",
                           "administer": "administer statements (server commands)"}
_FIRST_WORD = re.compile(r"(?:\s|#[^\n]*)*([A-Za-z_]+)")


def _position(text: str, index: int) -> Tuple[int, int]:
    """1-based (line, column) of ``text[index]``."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def leading_comment(text: str) -> str:
    """The ``#`` comment lines at the top of a file, without the ``#``: the query's doc text."""
    lines: List[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if not stripped.startswith("#"):
            break
        # Doc text lands in TS and Go comments: no control characters there.
        lines.append("".join(c if c.isprintable() else " " for c in stripped[1:]).strip())
    return "\n".join(lines).strip()
