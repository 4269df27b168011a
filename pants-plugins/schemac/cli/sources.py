"""Reading the files named on the command line: regular files only (a FIFO or a device is
refused at once), UTF-8, a byte order mark dropped from schema and query files; and the
``--extern LIBRARY=FILE`` values. Used by every command (:mod:`schemac.cli.main`,
:mod:`schemac.cli.migrate`)."""

from __future__ import annotations

import os
import stat
import sys
from typing import Dict, List, Optional, Tuple

from schemac.pipeline import QUERY_SUFFIXES, SCHEMA_SUFFIXES


#: What a source that is not a regular file is, by ``stat.S_IFMT`` of its mode.
_FILE_KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
               stat.S_IFSOCK: "a socket", stat.S_IFDIR: "a directory"}


def _read_regular_file(path: str) -> bytes:
    """The bytes of ``path``, which must be a regular file: anything else (a FIFO, which would
    block the compile until a writer came; a device, which may never end) is refused at once
    with one line (``SystemExit``). Opened without blocking, checked with ``fstat`` (no race
    with a ``stat`` first)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise SystemExit(f"{path}: error: not a regular file (a directory)")
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = _FILE_KINDS.get(stat.S_IFMT(mode), "not a file")
            raise SystemExit(f"{path}: error: not a regular file ({kind})")
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as fh:
            fd = -1
            return fh.read()
    finally:
        if fd >= 0:
            os.close(fd)


def read_sources(files: List[str]) -> Dict[str, str]:
    """``{path: text}`` of ``files`` (UTF-8). A byte order mark at the start of a schema or
    query file (as some Windows editors write) is dropped; migration files are kept byte for
    byte (their checksums cover every byte). Raises ``OSError``; ``SystemExit`` for text that
    is not UTF-8."""
    sources: Dict[str, str] = {}
    for f in files:
        raw = _read_regular_file(f)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SystemExit(f"{f}: error: not UTF-8 text (byte {e.start})")
        if text.startswith("\ufeff") and f.endswith(SCHEMA_SUFFIXES + QUERY_SUFFIXES):
            text = text[1:]
        sources[f] = text
    return sources


def parse_externs(items: List[str]) -> Optional[List[Tuple[str, str]]]:
    """``--extern LIBRARY=FILE`` values -> ``[(file, library)]``; ``None`` (after printing the
    error) for a malformed one."""
    out: List[Tuple[str, str]] = []
    for item in items:
        lib, sep, path = item.partition("=")
        if not sep or not lib or not path:
            print(f"error: --extern {item!r}: expected LIBRARY=FILE", file=sys.stderr)
            return None
        out.append((path, lib))
    return out
