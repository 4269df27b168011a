"""Shared pieces of the compiler fuzz tests (``test_fuzz.py``) and their regression tests
(``test_fuzz_regressions.py``): the oracle every input must satisfy, the registry of known,
reported bugs, and the hypothesis strategies.

The oracle (:func:`check_sources`): ``compile_library`` either returns ``{path: text}`` or
raises :class:`~schemac.diagnostics.CompileError` whose diagnostics

* are at least one error, each with a known code,
* render (``err.render(sources)`` and each ``d.render(sources)`` return text),
* carry a span inside a file of the library: ``1 <= line <= number of lines`` and
  ``1 <= col <= len(line) + 1`` (a point just after the line's last character is allowed, e.g.
  "unexpected end of input"); the end no earlier than the start and within the file too,
* show, when rendered, the very line the span points at (lines as the lexer counts them:
  separated by ``\\n``).

and when it compiles, the output has no NUL character and no TypeScript doc comment closed
early by user text (:func:`check_outputs`).

Any other exception is a compiler crash.

Known bugs (:data:`KNOWN_BUGS`): each has a minimal reproducer in
``test_fuzz_regressions.py`` marked ``xfail(strict=True)``. The fuzz tests tolerate inputs that
hit a known bug (they count them as hypothesis events) so CI stays green until it is fixed, and
fail on anything new. ``SCHEMAC_FUZZ_STRICT=1`` makes them fail on known bugs as well. When a
bug is fixed its strict xfail starts failing: delete the marker and its entry here.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Tuple

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from schemac.semantics.library import Options
from schemac.pipeline import compile_library
from schemac.diagnostics import CODES, CompileError, Diagnostic

REPO_ROOT = Path(__file__).resolve().parents[2]
OPTIONS = Options(library="fuzz")
HYPOTHESIS_DIR = REPO_ROOT / "tests" / ".cache" / "hypothesis"
# Hypothesis' caches (and, in a large run, its example database) go to the ignored tests/.cache,
# not to .hypothesis/ in the working directory.
set_hypothesis_home_dir(str(HYPOTHESIS_DIR))

# ---------------------------------------------------------------------------------------------
# Run size. The default is sized for CI (a few hundred examples per strategy, derandomized so a
# run is reproducible); SCHEMAC_FUZZ_EXAMPLES=N runs N examples per strategy with fresh random
# data and keeps failing examples in tests/.cache/hypothesis for replay.

LARGE_RUN = int(os.environ.get("SCHEMAC_FUZZ_EXAMPLES") or 0)
STRICT = os.environ.get("SCHEMAC_FUZZ_STRICT") == "1"


def fuzz_settings(default_examples: int) -> settings:
    common = dict(
        deadline=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )
    if LARGE_RUN:
        from hypothesis.database import DirectoryBasedExampleDatabase

        db = DirectoryBasedExampleDatabase(str(HYPOTHESIS_DIR / "examples"))
        return settings(max_examples=LARGE_RUN, database=db, **common)
    return settings(max_examples=default_examples, derandomize=True, database=None, **common)


# ---------------------------------------------------------------------------------------------
# The oracle


class DiagnosticDefect(AssertionError):
    """A diagnostic that does not render or whose span is not inside its file."""

    def __init__(self, kind: str, diagnostic: Optional[Diagnostic], detail: str):
        self.kind = kind
        self.diagnostic = diagnostic
        self.all: List["DiagnosticDefect"] = [self]
        super().__init__(f"{kind}: {detail}\ndiagnostic: {diagnostic!r}")


def _lines(text: str) -> List[str]:
    # The lexer counts lines by "\n" only.
    return text.split("\n")


def check_diagnostics(err: CompileError, sources: Mapping[str, str]) -> None:
    """Raise :class:`DiagnosticDefect` unless ``err`` satisfies the oracle (module docstring).
    The raised defect is the first one; ``.all`` lists one defect per defective diagnostic."""
    diags = err.diagnostics
    if not any(d.severity == "error" for d in diags):
        raise DiagnosticDefect("no error", None, f"CompileError without an error diagnostic: {diags!r}")
    rendered = err.render(dict(sources))
    if not isinstance(rendered, str) or not rendered:
        raise DiagnosticDefect("render", None, f"render returned {rendered!r}")
    defects = [x for x in (_diagnostic_defect(d, sources) for d in diags) if x is not None]
    if defects:
        defects[0].all = defects
        raise defects[0]


def _diagnostic_defect(d: Diagnostic, sources: Mapping[str, str]) -> Optional[DiagnosticDefect]:
    if d.code not in CODES and d.severity == "error":
        return DiagnosticDefect("unknown code", d, d.code)
    text_ = d.render(dict(sources))
    s = d.span
    if s is None:
        return DiagnosticDefect("no span", d, "a diagnostic about a source file has no span")
    if s.file not in sources:
        return DiagnosticDefect("span file", d, f"{s.file!r} is not a source file")
    lines = _lines(sources[s.file])
    if not 1 <= s.line <= len(lines):
        return DiagnosticDefect("span line", d, f"line {s.line} outside 1..{len(lines)}")
    line = lines[s.line - 1]
    if not 1 <= s.col <= len(line) + 1:
        return DiagnosticDefect("span col", d, f"col {s.col} outside 1..{len(line) + 1} of line {line!r}")
    if not s.line <= s.end_line <= len(lines):
        return DiagnosticDefect("span end line", d, f"end line {s.end_line} outside {s.line}..{len(lines)}")
    end_line = lines[s.end_line - 1]
    if s.end_line == s.line and s.end_col < s.col:
        return DiagnosticDefect("span end col", d, f"end col {s.end_col} before col {s.col}")
    # end_col is exclusive: a one-character point after the last character ends at len + 2.
    if not 1 <= s.end_col <= len(end_line) + 2:
        return DiagnosticDefect("span end col", d, f"end col {s.end_col} outside 1..{len(end_line) + 2} "
                                f"of line {end_line!r}")
    # The excerpt under the header must be the line the span points at (a renderer may show
    # unprintable characters as spaces, keeping columns).
    shown = text_.split("\n")
    if len(shown) >= 3 and line.strip():
        want = "    " + _printable(line.rstrip("\r").expandtabs(1))
        if _printable(shown[1]) != want:
            return DiagnosticDefect("rendered line", d, f"shows {shown[1]!r}, span is on {want!r}")
    return None


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else " " for c in text)


def check_sources(sources: Mapping[str, str]) -> str:
    """Apply the oracle; ``"ok"`` (compiled) or ``"error"`` (a well-formed CompileError).
    Anything else propagates: a crash, or a :class:`DiagnosticDefect`."""
    try:
        out = compile_library(sources, OPTIONS)
    except CompileError as err:
        check_diagnostics(err, sources)
        return "error"
    assert isinstance(out, dict) and out, out
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in out.items())
    check_outputs(out)
    return "ok"


class OutputDefect(AssertionError):
    """Generated code that cannot be right whatever the input: a NUL character (Go rejects it
    in source text, Postgres in text), or a TypeScript doc comment closed early by a ``*/``
    that came from user text."""

    def __init__(self, kind: str, path: str, line_no: int, line: str):
        self.kind = kind
        super().__init__(f"{kind}: {path}:{line_no}: {line!r}")


def check_outputs(out: Mapping[str, str]) -> None:
    """Raise :class:`OutputDefect` for generated code that is broken whatever the input."""
    for path, text in out.items():
        if "\0" in text:
            line_no = text[: text.index("\0")].count("\n") + 1
            raise OutputDefect("NUL in output", path, line_no, text.split("\n")[line_no - 1])
        if path.endswith(".ts"):
            in_doc = False
            for i, line in enumerate(text.split("\n"), 1):
                stripped = line.strip()
                if not in_doc:
                    in_doc = stripped.startswith("/**") and not stripped.endswith("*/")
                elif stripped == "*/":
                    in_doc = False
                elif "*/" in stripped:
                    raise OutputDefect("doc comment closed early", path, i, line)


# ---------------------------------------------------------------------------------------------
# Known bugs


@dataclass(frozen=True)
class KnownBug:
    id: str
    regression_test: str
    matches: Callable[[BaseException, Mapping[str, str]], bool]


KNOWN_BUGS: Tuple[KnownBug, ...] = ()


def known_bug(exc: BaseException, sources: Mapping[str, str]) -> Optional[KnownBug]:
    """The known bug ``exc`` is an instance of; for diagnostic defects, every defective
    diagnostic of the error must be a known bug."""
    if isinstance(exc, DiagnosticDefect) and len(exc.all) > 1:
        bugs = [_known_bug(x, sources) for x in exc.all]
        return bugs[0] if all(bugs) else None
    return _known_bug(exc, sources)


def _known_bug(exc: BaseException, sources: Mapping[str, str]) -> Optional[KnownBug]:
    for bug in KNOWN_BUGS:
        try:
            if bug.matches(exc, sources):
                return bug
        except Exception:  # pragma: no cover - a matcher must never hide the real failure
            continue
    return None


def run_case(sources: Mapping[str, str]) -> str:
    """:func:`check_sources` under the fuzz tests' policy: a known bug (unless
    ``SCHEMAC_FUZZ_STRICT=1``) yields ``"known:<id>"``; anything else unexpected propagates."""
    try:
        outcome = check_sources(sources)
    except Exception as exc:
        bug = known_bug(exc, sources)
        if bug is None or STRICT:
            raise
        outcome = f"known:{bug.id}"
    event(f"outcome: {outcome}")
    return outcome


# ---------------------------------------------------------------------------------------------
# Strategy (a): raw text from an alphabet weighted toward the language's tokens

KEYWORD_TOKENS: Tuple[str, ...] = (
    "type", "enum", "module", "scalar type", "extending", "abstract", "required", "optional", "multi",
    "single", "overloaded", "property", "link", "constraint", "constraint exclusive",
    "constraint exclusive on (", "constraint max_len_value(3)", "on", "except", "filter", "index on",
    "index", "annotation", "annotation title := 'x'", "readonly := true", "on target delete",
    "delete source", "allow", "restrict", "default", "default :=", "insert", "update", "select",
    "delete", "set", "unless conflict", "unless conflict on", "and", "or", "not", "in", "exists",
    "like", "ilike", "true", "false", "using", "extension", "global", "function", "alias",
    "access policy", "trigger", "rewrite", "std::", "enum<", "str", "int16", "int32", "int64",
    "float32", "float64", "decimal", "bigint", "bool", "json", "uuid", "datetime", "bytes",
    "array<str>", "now()", "datetime_current()", "T", "E", "Job", "a", "b", "name", "id",
)
PUNCT_TOKENS: Tuple[str, ...] = (
    "{", "}", "{", "}", "(", ")", ";", ";", ":", ":=", ".", ".", ",", "->", "::", "<", ">", "=",
    "!=", "?=", "?!=", "<=", ">=", "??", "++", "+", "-", "*", "/", "%", "[", "]", "@", ".<",
    "'str'", '"str"', "''", "'", '"', "r'raw'", "'\\0'", "'\\n'", "'\\", "$p", "$id", "$p<str>",
    "$q<optional int32>", "$r<array<str>>", "$s<", "0", "1", "42", "-1", "1.5", "1e999", "99999999999999999999",
    "#", "# comment\n",
)
SPACE_TOKENS: Tuple[str, ...] = (" ", " ", " ", "\n", "\n", "\t", "\r\n")
ODD_TOKENS: Tuple[str, ...] = ("\x00", "é", "€", "😀", "\r", "\x0c", "\u2028", "\ufeff", "\u0301", "\\", "`",
                               "\x7f")

TOKENS: Tuple[str, ...] = KEYWORD_TOKENS + PUNCT_TOKENS


def token_soup(max_tokens: int = 60) -> st.SearchStrategy[str]:
    piece = st.one_of(
        st.sampled_from(KEYWORD_TOKENS),
        st.sampled_from(PUNCT_TOKENS),
        st.sampled_from(SPACE_TOKENS),
        st.sampled_from(SPACE_TOKENS),
        st.sampled_from(ODD_TOKENS),
        st.text(max_size=3),
    )
    return st.lists(piece, max_size=max_tokens).map("".join)


# ---------------------------------------------------------------------------------------------
# Strategy (b): mutations of the repository's schema libraries

_TOKEN_RE = re.compile(
    r"\s+|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|\$[A-Za-z_][A-Za-z0-9_]*(?:<[^<>;{}()\n]*>)?"
    r"|'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|[0-9]+(?:\.[0-9]+)?|:=|::|->|\?\?|\+\+|\?!=|\?=|!=|<=|>=|.",
    re.S,
)


def tokenize(text: str) -> List[str]:
    """Split text into tokens (whitespace and comments included) so that ``"".join`` gives it back."""
    return _TOKEN_RE.findall(text)


@lru_cache(maxsize=None)
def seed_libraries() -> Tuple[Tuple[Tuple[str, str], ...], ...]:
    """Every schema library of the repository, read at test time: ``schemas/**/`` and
    ``tests/cases/**/`` directories holding a ``schema.esdl`` (all their ``*.esdl`` and
    ``queries/*.edgeql`` files), as ``((path, text), ...)``."""
    libs = []
    roots = sorted({p.parent for p in (REPO_ROOT / "schemas").glob("**/*.esdl")}
                   | {p.parent for p in (REPO_ROOT / "tests" / "cases").glob("**/schema.esdl")})
    for root in roots:
        files = sorted(root.glob("*.esdl")) + sorted(root.glob("queries/*.edgeql"))
        libs.append(tuple((f.relative_to(REPO_ROOT).as_posix(), f.read_text(encoding="utf-8")) for f in files))
    return tuple(libs)


@st.composite
def mutated_library(draw) -> Dict[str, str]:
    libs = seed_libraries()
    lib = libs[draw(st.integers(0, len(libs) - 1))]
    files = dict(lib)
    # Mutate one or two files of the library.
    for _ in range(draw(st.integers(1, 2))):
        path = draw(st.sampled_from(sorted(files)))
        toks = tokenize(files[path])
        for _ in range(draw(st.integers(1, 6))):
            op = draw(st.sampled_from(["delete", "insert", "duplicate", "swap", "replace"]))
            n = len(toks)
            i = draw(st.integers(0, n))
            k = draw(st.integers(1, 8))
            if op == "delete":
                del toks[i:i + k]
            elif op == "insert":
                new = draw(st.one_of(st.sampled_from(TOKENS), st.sampled_from(SPACE_TOKENS + ODD_TOKENS),
                                     st.sampled_from(toks or [";"])))
                toks[i:i] = [new]
            elif op == "duplicate":
                toks[i:i] = toks[i:i + k]
            elif op == "replace" and i < n:
                toks[i] = draw(st.sampled_from(TOKENS))
            elif op == "swap" and n:
                j = draw(st.integers(0, n))
                a, b = sorted((i, j))
                if a + k <= b:
                    toks[a:b + k] = toks[b:b + k] + toks[a + k:b] + toks[a:a + k]
        files[path] = "".join(toks)
    return files


# ---------------------------------------------------------------------------------------------
# Strategy (c): grammar-shaped libraries, valid by construction unless a mistake is injected

SCALARS = ("str", "bool", "int16", "int32", "int64", "float32", "float64", "decimal", "bigint", "json",
           "uuid", "datetime", "bytes")
NUMERIC = ("int16", "int32", "int64", "float32", "float64", "decimal", "bigint")
DEFAULTS: Dict[str, Tuple[str, ...]] = {
    "str": ("'x'", "''", "'it\\'s'", "'ünï 😀'", '"dq"', "'a' ++ 'b'", "'back\\\\slash'"),
    "bool": ("true", "false", "not true", "False"),
    "int16": ("0", "42", "-1", "1 + 2"),
    "int32": ("0", "7", "-3", "2 * 3"),
    "int64": ("0", "9000000000", "-(1)"),
    "bigint": ("0", "12345678901234567890"),
    "decimal": ("0", "1.25", "-0.5"),
    "float32": ("1.5", "0", "-2.25"),
    "float64": ("1e3", "0.5", "1 / 3"),
    "datetime": ("now()", "datetime_current()", "datetime_of_statement()", "datetime_of_transaction()"),
}
LITERALS: Dict[str, Tuple[str, ...]] = dict(DEFAULTS, datetime=("now()", "datetime_current()"))
TYPE_NAMES = ("Job", "User", "Order", "Account", "HTTPRequest", "Item", "Event", "Queue", "Blob", "Note",
              "Select", "ApiKey")
MODULE_TYPE_NAMES = ("Invoice", "Payment", "Ledger")
ENUM_NAMES = ("Status", "Kind", "Level", "Color")
MEMBERS = ("Pending", "Running", "Done", "Failed", "low", "high", "'in progress'", '"select"', "user", "X1")
PROP_NAMES = ("name", "actor", "payload", "status", "created_at", "count", "total", "note", "order", "user",
              "group", "table", "kind", "flag", "score", "ratio", "big", "amount", "data", "ref", "at", "blob",
              "title", "email", "level", "color", "value", "type", "set", "filter", "default", "insert")


@dataclass
class GProp:
    name: str
    type: str          # scalar name or enum name
    required: bool
    default: Optional[str]
    exclusive: bool
    gel: bool          # `property name -> type` spelling


@dataclass
class GType:
    name: str
    module: str
    props: List[GProp]
    exclusives: List[Tuple[Tuple[str, ...], Optional[str]]] = field(default_factory=list)

    @property
    def ref(self) -> str:
        return self.name if self.module == "default" else f"{self.module}::{self.name}"

    def prop(self, name: str) -> GProp:
        return next(p for p in self.props if p.name == name)


@dataclass
class GeneratedLibrary:
    sources: Dict[str, str]
    valid: bool        # no mistake was injected: it must compile (else it must not)
    mistake: str = ""


def _enum_member_ref(enum: str, member: str) -> Optional[str]:
    # `E.member` needs a NAME member; quoted members cannot be referenced.
    return f"{enum}.{member}" if member[0] not in "'\"" else None


@st.composite
def generated_library(draw, max_types: int = 5) -> GeneratedLibrary:
    # Enums.
    enums: Dict[str, Tuple[str, ...]] = {}
    for en in draw(st.lists(st.sampled_from(ENUM_NAMES), unique=True, max_size=3)):
        enums[en] = tuple(draw(st.lists(st.sampled_from(MEMBERS), unique=True, min_size=1, max_size=5)))

    def literal_for(typ: str) -> Optional[str]:
        if typ in enums:
            refs = [r for r in (_enum_member_ref(typ, m) for m in enums[typ]) if r]
            return draw(st.sampled_from(refs)) if refs else None
        pool = LITERALS.get(typ)
        return draw(st.sampled_from(pool)) if pool else None

    # Types.
    names = draw(st.lists(st.sampled_from(TYPE_NAMES), unique=True, min_size=1, max_size=max_types))
    mod_names = draw(st.lists(st.sampled_from(MODULE_TYPE_NAMES), unique=True, max_size=1))
    types: List[GType] = []
    for name, module in [(n, "default") for n in names] + [(n, "billing") for n in mod_names]:
        props = []
        for pname in draw(st.lists(st.sampled_from(PROP_NAMES), unique=True, min_size=1, max_size=8)):
            typ = draw(st.sampled_from(SCALARS + tuple(enums)))
            default = None
            if draw(st.integers(0, 3)) == 0:
                default = literal_for(typ) if typ != "datetime" else draw(st.sampled_from(DEFAULTS["datetime"]))
            props.append(GProp(pname, typ, draw(st.booleans()), default,
                               exclusive=draw(st.integers(0, 5)) == 0, gel=draw(st.integers(0, 4)) == 0))
        t = GType(name, module, props)
        used = {(p.name,) for p in props if p.exclusive}
        for _ in range(draw(st.integers(0, 2))):
            cols = tuple(draw(st.lists(st.sampled_from([p.name for p in props]), unique=True, min_size=1, max_size=3)))
            if cols in used:
                continue
            used.add(cols)
            filt = draw(st.none() | _filter_for(t, enums, draw))
            t.exclusives.append((cols, filt))
        types.append(t)

    mistake = ""
    # About one library in ten gets a mistake (hypothesis favours the bounds 0 and 9: use 7).
    if draw(st.integers(0, 9)) == 7:
        mistake = draw(st.sampled_from(["unknown type", "bad default", "unknown property", "missing required",
                                         "bad conflict", "dup property"]))

    schema, applied = _render_schema(draw, enums, types, mistake)
    if mistake and not applied and mistake not in ("unknown property", "missing required", "bad conflict"):
        mistake = ""  # nothing to spoil (e.g. no property has a default)
    sources = {"lib/schema.esdl": schema}
    for t in types:
        for verb in ("insert", "update"):
            for i in range(draw(st.integers(0, 2))):
                qname = f"{verb}_{_snake(t.name)}_{i}"
                body = _insert_query(draw, t, enums, literal_for) if verb == "insert" else \
                    _update_query(draw, t, enums, literal_for)
                doc = draw(st.sampled_from(["", "# Does the thing.\n", "# Line one.\n# Line two.\n"]))
                if draw(st.integers(0, 19)) == 7:
                    doc = "# Escapes: */ \\ ` ${x} \"q\" 'q' é\n"
                sources[f"lib/queries/{qname}.edgeql"] = doc + body
    if mistake in ("unknown property", "missing required", "bad conflict"):
        sources = _inject_query_mistake(draw, mistake, types, sources)
    return GeneratedLibrary(sources, valid=not mistake, mistake=mistake)


def _snake(name: str) -> str:
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s).lower()


def _filter_for(t: GType, enums, draw_outer):
    """A strategy for a bool predicate over ``t``'s properties (for partial constraints)."""
    atoms = []
    for p in t.props:
        if p.type in enums:
            refs = [r for r in (_enum_member_ref(p.type, m) for m in enums[p.type]) if r]
            for r in refs[:2]:
                atoms += [f".{p.name} = {r}", f".{p.name} != {r}"]
        elif p.type in NUMERIC:
            atoms += [f".{p.name} > 0", f".{p.name} >= 1", f".{p.name} ?= 2"]
        elif p.type == "str":
            atoms += [f".{p.name} != 'draft'", f".{p.name} like 'a%'", f".{p.name} ++ 'x' = 'yx'"]
        elif p.type == "bool":
            atoms += [f".{p.name}", f"not .{p.name}", f".{p.name} = true"]
    if not atoms:
        return st.nothing()
    atom = st.sampled_from(atoms)
    return st.one_of(atom, st.tuples(atom, st.sampled_from(["and", "or"]), atom).map(
        lambda x: f"{x[0]} {x[1]} ({x[2]})"))


def _render_schema(draw, enums, types: List[GType], mistake: str) -> str:
    nl = draw(st.sampled_from(["\n", "\n\n", "\r\n"]))
    ind = draw(st.sampled_from(["  ", "\t", "    "]))
    parts = ["# generated schema" + nl]
    for en, members in enums.items():
        trailing = draw(st.sampled_from(["", ","]))
        parts.append(f"enum {en} {{ {', '.join(members)}{trailing} }}{nl}")
    mistake_done = False
    by_module: Dict[str, List[GType]] = {}
    for t in types:
        by_module.setdefault(t.module, []).append(t)
    for module, ts in by_module.items():
        wrap = module != "default" or draw(st.integers(0, 3)) == 0
        pre = ind if wrap else ""
        if wrap:
            parts.append(f"module {module} {{{nl}")
        for t in ts:
            lines = [f"{pre}type {t.name} {{"]
            for p in t.props:
                typ = p.type
                if not mistake_done and mistake == "unknown type":
                    typ, mistake_done = typ + "x", True
                head = ("required " if p.required else "") + (f"property {p.name} -> {typ}" if p.gel else f"{p.name}: {typ}")
                members = []
                if p.default is not None:
                    d = p.default
                    if not mistake_done and mistake == "bad default":
                        d = "'wrong'" if p.type != "str" else "42"
                        mistake_done = True
                    members.append(f"default := {d}")
                if p.exclusive:
                    members.append("constraint exclusive")
                body = f" {{ {'; '.join(members)}{draw(st.sampled_from(['', ';']))} }};" if members else ";"
                lines.append(f"{pre}{ind}{head}{body}")
            if not mistake_done and mistake == "dup property":
                p = t.props[0]
                lines.append(f"{pre}{ind}{p.name}: str;")
                mistake_done = True
            for cols, filt in t.exclusives:
                on = ", ".join("." + c for c in cols)
                lines.append(f"{pre}{ind}constraint exclusive on ({on})" + (f" filter {filt}" if filt else "") + ";")
            lines.append(f"{pre}}}")
            parts.append(nl.join(lines) + nl)
        if wrap:
            parts.append(f"}}{nl}")
    return "".join(parts), mistake_done


def _value_for(draw, p: GProp, t: GType, enums, literal_for, insert: bool, pnames: set) -> str:
    pname = f"p_{p.name}"
    pnames.add(pname)
    typ = p.type
    choices = ["bare", "typed"]
    if not p.required or (insert and p.default is not None):
        choices.append("optional")
    lit = literal_for(p.type) if p.type != "datetime" else "now()"
    if lit is not None:
        choices.append("literal")
    kind = draw(st.sampled_from(choices))
    if kind == "bare":
        return f"${pname}"
    if kind == "typed":
        return f"${pname}<{typ}>"
    if kind == "optional":
        return f"${pname}<optional {typ}>"
    return lit  # type: ignore[return-value]


def _insert_query(draw, t: GType, enums, literal_for) -> str:
    pnames: set = set()
    assigned = [p for p in t.props if (p.required and p.default is None) or draw(st.booleans())]
    assigned = draw(st.permutations(assigned))
    body = ", ".join(f"{p.name} := {_value_for(draw, p, t, enums, literal_for, True, pnames)}" for p in assigned)
    q = f"insert {t.ref} {{ {body} }}"
    cands = [cols for cols in [(p.name,) for p in t.props if p.exclusive] + [c for c, _ in t.exclusives]]
    choice = draw(st.integers(0, 3))
    if choice == 1:
        q += " unless conflict"
    elif choice >= 2 and cands:
        cols = draw(st.permutations(draw(st.sampled_from(cands))))
        q += " unless conflict on " + (f"({', '.join('.' + c for c in cols)})" if len(cols) > 1 or draw(st.booleans())
                                        else f".{cols[0]}")
    return q + draw(st.sampled_from([";", ";\n", "", "\n"]))


def _comparison(draw, p: GProp, enums, literal_for, pnames: set) -> str:
    pname = f"f_{p.name}"
    pnames.add(pname)
    if p.type in NUMERIC:
        op = draw(st.sampled_from(["=", "!=", "<", "<=", ">", ">=", "?="]))
    elif p.type == "str":
        op = draw(st.sampled_from(["=", "!=", "like", "ilike", "?!="]))
    else:
        op = draw(st.sampled_from(["=", "!=", "?="]))
    lit = literal_for(p.type)
    # `not` binds looser than `=`: `.a = not true` is a syntax error, `.a = (not true)` is not.
    lits = [f"({lit})" if " " in lit else lit] if lit else []
    rhs = draw(st.sampled_from([f"${pname}", f"${pname}<{p.type}>"] + lits))
    return f".{p.name} {op} {rhs}"


def _update_query(draw, t: GType, enums, literal_for) -> str:
    pnames: set = set()
    shape = draw(st.sampled_from(["id", "id_typed", "cmp", "none", "chain", "long_chain"]))
    if shape == "id":
        filt = " filter .id = $id"
    elif shape == "id_typed":
        filt = " filter .id = $id<uuid>"
    elif shape == "cmp":
        ps = draw(st.lists(st.sampled_from(t.props), min_size=1, max_size=3, unique_by=lambda p: p.name))
        filt = " filter " + " and ".join(_comparison(draw, p, enums, literal_for, pnames) for p in ps)
    elif shape == "chain" or shape == "long_chain":
        n = draw(st.integers(2, 6)) if shape == "chain" else draw(st.integers(20, 120))
        filt = " filter " + " or ".join(f".id = $id{i}<uuid>" for i in range(n))
    else:
        filt = ""
    sets = draw(st.lists(st.sampled_from(t.props), min_size=1, max_size=4, unique_by=lambda p: p.name))
    assigns = []
    for p in sets:
        if p.type in NUMERIC and draw(st.integers(0, 3)) == 0:
            assigns.append(f"{p.name} := .{p.name} + 1" if p.required else f"{p.name} := .{p.name} ?? 0")
        else:
            v = _value_for(draw, p, t, enums, literal_for, False, pnames)
            assigns.append(f"{p.name} := {v}")
    return f"update {t.ref}{filt} set {{ {', '.join(assigns)} }};"


def _inject_query_mistake(draw, mistake: str, types: List[GType], sources: Dict[str, str]) -> Dict[str, str]:
    t = draw(st.sampled_from(types))
    if mistake == "unknown property":
        q = f"update {t.ref} filter .nope = 1 set {{ {t.props[0].name} := $x<{t.props[0].type}> }};"
    elif mistake == "missing required":
        q = f"insert {t.ref} {{ }};"
        if not any(p.required and p.default is None for p in t.props):
            q = f"insert {t.ref} {{ zzz := 1 }};"
    else:
        q = f"insert {t.ref} {{ }} unless conflict on (.id, .zzz);"
    out = dict(sources)
    out["lib/queries/mistake.edgeql"] = q
    return out
