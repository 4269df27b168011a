"""The dump reader's COPY stream handling, without a database: a row split over CopyData
messages (Postgres may send a row in several: the protocol does not promise one row per
message) reads the same as whole rows, through both readers (the field splitter and the
pass-through one), and a stream cut inside a row is an error."""

from __future__ import annotations

import struct

import pytest

from schemac.geldump.format import DumpFormatError, copy_chunks, copy_rows


def _row(*fields):
    out = struct.pack("!h", len(fields))
    for f in fields:
        out += b"\xff\xff\xff\xff" if f is None else struct.pack("!i", len(f)) + f
    return out


ROWS = [(b"abc", None, b"\x00" * 9), (b"", b"x", None), (b"long" * 50, b"y", b"z")]
STREAM = b"".join(_row(*r) for r in ROWS) + b"\xff\xff"


@pytest.mark.parametrize("cut", [1, 2, 3, 5, 7, 64, len(STREAM)])
def test_rows_split_over_messages(cut):
    messages = [memoryview(STREAM[i:i + cut]) for i in range(0, len(STREAM), cut)]
    assert [tuple(r) for r in copy_rows(iter(messages))] == ROWS
    chunks = list(copy_chunks(iter(messages)))
    assert b"".join(c for c, _ in chunks) == STREAM[:-2]
    assert sum(n for _, n in chunks) == len(ROWS)


def test_stream_cut_inside_a_row():
    cut = STREAM[:20]
    with pytest.raises(DumpFormatError, match="ends inside a row"):
        list(copy_rows(iter([memoryview(cut)])))
    with pytest.raises(DumpFormatError, match="ends inside a row"):
        list(copy_chunks(iter([memoryview(cut)])))
