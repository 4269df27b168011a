"""The parser's fast lexer (``schemac.syntax.parser._FastContextualLexer``) is lark's contextual lexer
reading words whole as Gel does (``_ReferenceLexer``: ``filterr'x'`` is the word ``filterr``),
token for token: same types (keywords only where the grammar expects one), values and
positions (``line``/``column``/``end_*``/``*_pos``), and the same errors, with what was expected.

Differential: the grammar is parsed in tree mode (every token kept) once with lark's
``lexer=_ReferenceLexer`` (lark's contextual lexer and ``_whole_word``) and once with the fast lexer, on the repository's schemas and queries,
the benchmark's generated library, and a few thousand mutated or random token soups (seeded,
so the run is reproducible).
"""

from __future__ import annotations

import pkgutil
import random
from pathlib import Path
from typing import List

import pytest
from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from fuzz_support import ODD_TOKENS, SPACE_TOKENS, TOKENS, tokenize
from schemac.syntax import parser as P

REPO = Path(__file__).resolve().parents[2]
STARTS = ("schema", "query_file", "type_start")


@pytest.fixture(scope="module")
def lexers():
    grammar = pkgutil.get_data("schemac.syntax", "grammar.lark").decode("utf-8")
    kw = dict(parser="lalr", start=list(STARTS), keep_all_tokens=True, maybe_placeholders=False)
    return Lark(grammar, lexer=P._ReferenceLexer, **kw), Lark(grammar, lexer=P._FastContextualLexer, **kw)


def _tok(t, unquote=False):
    """A comparable token. ``unquote``: a NAME in backticks (lark's lexer keeps the quotes) as
    the name it stands for, as the fast lexer gives it (``schemac.syntax.parser._unquoted_name``)."""
    if t is None:
        return None
    if unquote and t.type == "NAME" and str(t)[:1] == "`":
        t = P._unquoted_name(t)
    return (t.type, str(t), t.value, t.start_pos, t.line, t.column, t.end_line, t.end_column, t.end_pos)


def _flat(x, unquote=False):
    if isinstance(x, Token):
        return _tok(x, unquote)
    if isinstance(x, Tree):
        return (x.data, tuple(_flat(c, unquote) for c in x.children))
    return repr(x)


def _outcome(lk: Lark, text: str, start: str, unquote: bool = False):
    """``unquote``: for lark's own lexer (see :func:`_tok`)."""
    try:
        return ("ok", _flat(lk.parse(text, start=start), unquote))
    except UnexpectedInput as e:
        d = [type(e).__name__, e.line, e.column, getattr(e, "pos_in_stream", None)]
        if isinstance(e, UnexpectedToken):
            # (the token of an error comes from lark's lexer in both: as written)
            d += [_tok(e.token), sorted(e.expected), [_tok(t, unquote) for t in (e.token_history or [])]]
        if isinstance(e, UnexpectedCharacters):
            d += [sorted(e.allowed or ()), e.char, [_tok(t, unquote) for t in (e.token_history or [])]]
        return ("error", d)


def _repo_texts() -> List[str]:
    files = sorted(
        p for pattern in ("schemas/**/*.esdl", "schemas/**/*.edgeql", "tests/cases/**/*.esdl", "tests/cases/**/*.edgeql")
        for p in REPO.glob(pattern)
    )
    return [p.read_text(encoding="utf-8") for p in files]


def _bench_texts() -> List[str]:
    import sys

    sys.path.insert(0, str(REPO / "tests" / "bench"))
    try:
        from compile_speed import generate_library
    finally:
        sys.path.remove(str(REPO / "tests" / "bench"))
    return list(generate_library(12).values()) + list(generate_library(12, features=True).values())


def _soups(seeds: List[str], n: int, seed: int) -> List[str]:
    rnd = random.Random(seed)
    pieces = list(TOKENS) + list(SPACE_TOKENS) * 3 + list(ODD_TOKENS)
    out = []
    for i in range(n):
        if i % 2:
            out.append("".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 60))))
            continue
        toks = tokenize(rnd.choice(seeds))
        for _ in range(rnd.randint(1, 6)):
            j, k, op = rnd.randint(0, len(toks)), rnd.randint(1, 8), rnd.randrange(4)
            if op == 0:
                del toks[j:j + k]
            elif op == 1:
                toks[j:j] = [rnd.choice(pieces)]
            elif op == 2:
                toks[j:j] = toks[j:j + k]
            elif j < len(toks):
                toks[j] = rnd.choice(pieces)
        out.append("".join(toks))
    return out


def _compare(lexers, texts: List[str]) -> int:
    ref, fast = lexers
    parsed = 0
    for text in texts:
        for start in STARTS:
            want = _outcome(ref, text, start, unquote=True)
            assert _outcome(fast, text, start) == want, (start, text)
            parsed += want[0] == "ok"
    return parsed


def test_same_tokens_on_the_repository_and_benchmark_sources(lexers):
    texts = _repo_texts() + _bench_texts()
    assert _compare(lexers, texts) >= len(texts) // 2  # most of them parse with one start symbol


def test_same_tokens_and_errors_on_mutated_and_random_input(lexers):
    seeds = _repo_texts() + _bench_texts()
    assert _compare(lexers, _soups(seeds, 1500, seed=3)) > 0


@pytest.mark.parametrize(
    "text,start",
    [
        ("type type { required type: str; set: int32; required: bool; multi link: T; }", "schema"),
        ("enum E { A, 'b c', }\nscalar type S extending enum<A, \"B\">;", "schema"),
        ("type T {\n  # a comment\n  x: str { default := 'a # not a comment'; };\n}\n  \n", "schema"),
        ("select T { a } filter .x like 'a' and .y ilike r'b' order by .a desc empty last", "query_file"),
        ("insert T { a := $a<optional array<str>>, b := 1.5e3, c := TRUE, d := False }", "query_file"),
        ("update T filter .x <= <int32>$y set { n += 1, m -= 2 }", "query_file"),
        ("type T { x: str }\n  y: int32;", "schema"),  # a missing ';' before a new line
        ("type T { x: str; } €", "schema"),  # a character no terminal matches
        ("type T { 'x': str; }", "schema"),  # a token the state does not accept
        ("optional array<str>", "type_start"),
        # Gel's lexical forms: quoted names (keywords too), strings across lines, raw and
        # dollar-quoted strings, digit groups
        ("type `select` { `a b`: str { default := 'x\\\n  y' }; `a``b`: int64 { default := 1_000 } }", "schema"),
        ("type T { a: str { default := r'a\\\nb' }; b: str { default := $$x'\n$y$$ }; "
         "c: str { default := $t$a$$b$t$ } }", "schema"),
        ("select T filter .a = 'x\ny' and .b = 1_0.5_0", "query_file"),
        ("", "schema"),
        ("   \n# only a comment", "query_file"),
        # names with letters beyond ASCII (Gel's lexer: a letter, then letters and digits), a
        # keyword followed by one (one name), a character that is no letter
        ("type Ñandú { required nämé: str; größe: int64; 名前: str; }", "schema"),
        ("select Ñandú { nämé } filter .größe > <int64>$größe order by .名前", "query_file"),
        ("select T { a } filterä .x = 1", "query_file"),
        ("select T { a² }", "query_file"),
    ],
)
def test_same_tokens_on_edge_cases(lexers, text, start):
    ref, fast = lexers
    assert _outcome(fast, text, start) == _outcome(ref, text, start, unquote=True)


def test_every_state_of_the_grammar_has_a_fast_pattern(lexers):
    """No state silently falls back to lark's slower lexer (e.g. after a grammar change adds
    a terminal whose first characters cannot be worked out)."""
    _, fast = lexers
    fast.parse("type T { x: str; }", start="schema")  # sets the lexer up
    lexer = fast.parser.lexer
    lexers_by_state = lexer._contextual.lexers
    missing = [s for s, basic in lexers_by_state.items()
               if lexer._scanner(s) is None and basic.scanner.allowed_types - basic.ignore_types]
    assert not missing  # (states that accept only the end of input have nothing to match)


# ---------------------------------------------------------------------------------------------
# The parser's own LALR loop (``schemac.syntax.parser._parse_from_state``, the fast lexer inlined into
# it, ``_rule``s of one symbol as unit reductions) against lark's loop and lark's lexer, both
# building the AST with the same builder: same syntax trees (spans included) and same errors.


@pytest.fixture(scope="module")
def ast_parsers():
    from schemac.diagnostics import CompileError

    grammar = pkgutil.get_data("schemac.syntax", "grammar.lark").decode("utf-8")
    options = dict(P._lark_options(), lexer=P._ReferenceLexer)
    reference = Lark(grammar, **options)
    ref_builder = P._Builder("")
    P._install_builder(reference, ref_builder)

    def parse_with(lark: Lark, builder, text: str, start: str):
        builder.file = "t"
        builder.module_stack[:] = []
        try:
            return ("ok", _deep(lark.parse(text, start=start)))
        except UnexpectedInput as e:
            d = [type(e).__name__, e.line, e.column]
            if isinstance(e, UnexpectedToken):
                d += [_tok(e.token), sorted(e.expected)]
            if isinstance(e, UnexpectedCharacters):
                d += [sorted(e.allowed or ()), e.char]
            return ("error", d)
        except CompileError as e:
            return ("compile-error", [(x.code, x.message, _deep(x.span)) for x in e.diagnostics])

    return (lambda text, start: parse_with(reference, ref_builder, text, start),
            lambda text, start: parse_with(P._lark(), P._BUILDER, text, start))


def _deep(x):
    """A comparable form of a syntax tree: tokens with their positions, dataclasses by field."""
    import dataclasses

    if isinstance(x, Token):
        return _tok(x)
    if dataclasses.is_dataclass(x):
        return (type(x).__name__,) + tuple(_deep(getattr(x, f.name)) for f in dataclasses.fields(x))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__,) + tuple(_deep(c) for c in x)
    if isinstance(x, Tree):
        return ("Tree", x.data) + tuple(_deep(c) for c in x.children)
    return repr(x)


def _compare_ast(ast_parsers, texts: List[str]) -> int:
    reference, ours = ast_parsers
    parsed = 0
    for text in texts:
        for start in ("schema", "query_file"):
            want = reference(text, start)
            assert ours(text, start) == want, (start, text)
            parsed += want[0] == "ok"
    return parsed


def test_parser_loop_builds_the_same_syntax_trees(ast_parsers):
    texts = _repo_texts() + _bench_texts()
    assert _compare_ast(ast_parsers, texts) >= len(texts) // 2


def test_parser_loop_same_trees_and_errors_on_mutated_and_random_input(ast_parsers):
    seeds = _repo_texts() + _bench_texts()
    assert _compare_ast(ast_parsers, _soups(seeds, 1500, seed=5)) > 0
