"""Source positions and user-facing diagnostics.

Every error the compiler reports for bad input is a :class:`Diagnostic`: a stable code, a
message, a :class:`Span` (file, 1-based line and column) and an optional hint. Diagnostics are
collected and raised together as :class:`CompileError`, so one run reports every problem it can
find, and rendered in the familiar ``file:line:col`` form with the source line and a caret::

    schemas/jobs/schema.esdl:4:13: error[E0201]: unknown type 'strr'
        required name: strr;
                       ^^^^
    hint: did you mean 'str'?

Error codes are stable; the list lives in ``CODES`` and in the README.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence

from schemac.frozen import fast_init

#: Stable diagnostic codes. E01xx: syntax; E02xx: schema semantics; E03xx: queries;
#: W0xxx: warnings.
CODES: Dict[str, str] = {
    "E0100": "syntax error: unexpected token or character",
    "E0101": "syntax error: unexpected end of input",
    "E0102": "invalid literal",
    "E0103": "expression nested too deeply",
    "E0200": "duplicate definition",
    "E0201": "unknown type",
    "E0202": "unknown property",
    "E0203": "unknown enum member",
    "E0204": "invalid default",
    "E0205": "invalid constraint",
    "E0206": "unsupported feature",
    "E0207": "name collision after snake_casing",
    "E0208": "unknown module",
    "E0300": "query file must hold exactly one query",
    "E0301": "unknown type in query",
    "E0302": "unknown property in query",
    "E0303": "parameter type cannot be inferred",
    "E0304": "type mismatch",
    "E0305": "missing required property",
    "E0306": "no exclusive constraint matches 'unless conflict on'",
    "E0307": "conflicting parameter types",
    "E0308": "invalid query name",
    "E0309": "property assigned twice",
    "E0210": "inheritance cycle",
    "E0211": "overloaded member that is not inherited",
    "E0212": "link to an abstract type no concrete type extends",
    "E0213": "name collision in generated TypeScript or Go",
    "E0214": "name longer than Postgres' 63-byte identifier limit",
    "E0310": "assignment to a readonly property",
    "E0311": "positional and named parameters mixed, or a positional parameter missing",
    "E0400": "conflicting migration hints",
    "E0401": "migration hint contradicts the last migration's schema",
    "E0402": "destructive change refused (no drop hint)",
    "E0403": "column type change refused (no cast hint)",
    "E0404": "schema change the migration engine cannot make safely",
    "E0405": "migration history is broken (edited, inserted, reordered or missing file)",
    "E0406": "schema changed but no migration was generated (drift)",
    "E0407": "unreadable migration snapshot",
    "E0408": "generate would rewrite or extend another migration history",
    "E0500": "unreadable Gel dump (not a dump, truncated, damaged, or an unknown descriptor)",
    "E0501": "Gel dump refused: its schema differs from the library's (nothing written)",
    "E0502": "Gel dump refused: the database is not ready (tables missing or not empty)",
    "E0503": "Gel dump load failed: the database refused the data (rolled back)",
    "DS102": "lint: table dropped (its rows are lost)",
    "DS103": "lint: column dropped (its values are lost)",
    "DS104": "lint: enum member removed (rows using it are refused, or mapped when a hint says so)",
    "MF101": "lint: unique constraint or index added to an existing table (fails on duplicates)",
    "MF103": "lint: required column added to an existing table without a default (fails on rows)",
    "MF104": "lint: optional column made required (fails on empty values unless filled)",
    "MF105": "lint: column type changed by a cast (fails on values that do not convert)",
    "MF106": "lint: check or foreign key added to an existing table (existing rows are validated)",
    "BC101": "lint: table renamed (code using the old name breaks)",
    "BC102": "lint: column renamed (code using the old name breaks)",
    "BC103": "lint: enum member renamed or removed (a deployed runner still sends the old member)",
    "BC104": "lint: column type changed by a cast (a deployed runner sends and reads the old type)",
    "BC105": "lint: required column without a default (a deployed runner's inserts leave it empty and fail)",
    "LK101": "lint: index built on an existing table without CONCURRENTLY (blocks writes while it builds)",
    "LK102": "lint: column type change rewrites the table under an exclusive lock",
    "LK103": "lint: column added with a volatile default (filled by an UPDATE instead of a table rewrite)",
    "W0001": "ignored declaration (e.g. 'using future')",
    "W0002": "inherited exclusive constraint enforced per table",
    "W0003": "required multi link not enforced by the database",
    "W0004": "annotations of a scalar type are not stored",
    "W0005": "migration hint does not apply (already applied, or misspelled)",
    "W0006": "required computed not enforced",
    "W0007": "index of a Gel server service not created",
    "W0008": "an insert default copied into the statement (past the fifth omittable parameter)",
    "W0009": "a fill hint that the latest migration was generated without (migrate generate --amend)",
}


@fast_init
@dataclass(frozen=True)
class Span:
    """A region of a source file. ``line``/``col`` are 1-based; ``end_col`` is exclusive and
    refers to ``end_line``. ``file`` is the path as the user wrote it (buildroot-relative in a
    Pants run), never an absolute sandbox path."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    @staticmethod
    def point(file: str, line: int, col: int, width: int = 1) -> "Span":
        """A span of ``width`` characters starting at ``line``/``col``."""
        return Span(file, line, col, line, col + max(width, 1))


@dataclass(frozen=True)
class Diagnostic:
    """One problem in the user's input.

    ``severity`` is ``"error"`` or ``"warning"``; ``code`` is a key of :data:`CODES`."""

    code: str
    message: str
    span: Optional[Span]
    hint: Optional[str] = None
    severity: str = "error"

    def render(self, sources: Dict[str, str]) -> str:
        """Render as ``file:line:col: error[CODE]: message`` plus the source line, a caret
        span under the problem, and the hint. ``sources`` maps file names to their text."""
        head = f"{self.severity}[{self.code}]: {self.message}"
        if self.span is None:
            out = [head]
        else:
            s = self.span
            out = [f"{s.file}:{s.line}:{s.col}: {head}"]
            text = sources.get(s.file)
            if text is not None:
                # Lines are counted by "\n" only, as the lexer counts them (a lone "\r" or a
                # form feed does not start a new line).
                lines = text.split("\n")
                if 1 <= s.line <= len(lines):
                    src = lines[s.line - 1].rstrip("\r").expandtabs(1)
                    src = "".join(c if c.isprintable() else " " for c in src)
                    end = s.end_col if s.end_line == s.line else len(src) + 1
                    width = max(1, min(end, len(src) + 1) - s.col)
                    out.append("    " + src)
                    out.append("    " + " " * (s.col - 1) + "^" * width)
        if self.hint:
            out.append(f"hint: {self.hint}")
        return "\n".join(out)


class CompileError(Exception):
    """Raised when the input has at least one error-severity diagnostic.

    ``diagnostics`` holds every diagnostic found (errors and warnings), in source order."""

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        self.diagnostics: List[Diagnostic] = sorted(diagnostics, key=_sort_key)
        super().__init__("; ".join(d.message for d in self.diagnostics))

    def render(self, sources: Dict[str, str]) -> str:
        """All diagnostics rendered, separated by blank lines, with a summary line."""
        errors = sum(1 for d in self.diagnostics if d.severity == "error")
        body = "\n\n".join(d.render(sources) for d in self.diagnostics)
        return f"{body}\n\n{errors} error{'s' if errors != 1 else ''} found"


def _sort_key(d: Diagnostic):
    s = d.span
    return (s.file, s.line, s.col) if s else ("", 0, 0)


@dataclass
class Reporter:
    """Collects diagnostics during a pass; :meth:`check` raises them together."""

    diagnostics: List[Diagnostic] = field(default_factory=list)

    def error(self, code: str, message: str, span: Optional[Span], hint: Optional[str] = None) -> None:
        assert code in CODES, code
        self._add(Diagnostic(code, message, span, hint))

    def warning(self, code: str, message: str, span: Optional[Span], hint: Optional[str] = None) -> None:
        assert code in CODES, code
        self._add(Diagnostic(code, message, span, hint, severity="warning"))

    def _add(self, d: Diagnostic) -> None:
        # A member inherited by several types is checked once per type: report it once.
        if d not in self.diagnostics:
            self.diagnostics.append(d)

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)

    def check(self) -> None:
        """Raise :class:`CompileError` if any error was reported."""
        if self.has_errors:
            raise CompileError(self.diagnostics)


def did_you_mean(name: str, candidates: Iterable[str]) -> Optional[str]:
    """A ``did you mean 'x'?`` hint for the closest candidate (difflib ratio >= 0.6), else
    a list of up to 8 candidates, else ``None``."""
    cands = sorted(set(candidates))
    close = difflib.get_close_matches(name, cands, n=1, cutoff=0.6)
    if close:
        return f"did you mean '{close[0]}'?"
    if cands:
        shown = ", ".join(f"'{c}'" for c in cands[:8])
        more = ", ..." if len(cands) > 8 else ""
        return f"expected one of {shown}{more}"
    return None
