"""Positions: string offsets, the compiler's 1-based line/column spans (columns count
characters, lines are split at ``\\n`` only, as the lexer counts them) and LSP positions
(0-based; ``character`` in UTF-16 code units, the protocol's default encoding)."""

from __future__ import annotations

import bisect
from typing import List, Tuple


class LineIndex:
    def __init__(self, text: str):
        self.text = text
        self.starts: List[int] = [0]
        i = text.find("\n")
        while i >= 0:
            self.starts.append(i + 1)
            i = text.find("\n", i + 1)

    def line_col(self, offset: int) -> Tuple[int, int]:
        """0-based line and character column of ``offset``."""
        line = bisect.bisect_right(self.starts, offset) - 1
        return line, offset - self.starts[line]

    def offset(self, line: int, col: int) -> int:
        """The offset of 0-based ``line`` and character column ``col`` (clamped)."""
        if line < 0:
            return 0
        if line >= len(self.starts):
            return len(self.text)
        start = self.starts[line]
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        return min(start + max(col, 0), end)

    # UTF-16 (LSP)
    def to_lsp(self, offset: int) -> Tuple[int, int]:
        line, col = self.line_col(offset)
        start = self.starts[line]
        segment = self.text[start:start + col]
        return line, col + sum(1 for c in segment if ord(c) > 0xFFFF)

    def from_lsp(self, line: int, character: int) -> int:
        if line >= len(self.starts):
            return len(self.text)
        start = self.offset(line, 0)
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        units = 0
        i = start
        while i < end and units < character:
            units += 2 if ord(self.text[i]) > 0xFFFF else 1
            i += 1
        return i

    def span_offsets(self, line: int, col: int, end_line: int, end_col: int) -> Tuple[int, int]:
        """Offsets of a compiler span (1-based line and column, end exclusive)."""
        return self.offset(line - 1, col - 1), self.offset(end_line - 1, end_col - 1)
