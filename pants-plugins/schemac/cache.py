"""The compiler's cache directory, shared by the parser cache (lark's tables,
:mod:`schemac.syntax.parser`) and the compiled-template cache (:mod:`schemac.render`): where it is
(``$SCHEMAC_CACHE_DIR``, empty: none; else ``$XDG_CACHE_HOME/schemac/parser``, else
``~/.cache/schemac/parser``) and when a directory or a file in it may be trusted (the user's
own, writable by nobody else; opened without blocking). Neither cache is ever an input of a
compile: a missing, damaged or foreign cache only costs time (docs/performance.md, "Caches")."""

from __future__ import annotations

import os
import stat
from typing import Optional


def _cache_dir() -> Optional[str]:
    env = os.environ.get("SCHEMAC_CACHE_DIR")
    if env is not None:
        return env or None
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "schemac", "parser")


def _trusted(path: str) -> bool:
    """A cache directory we may use: a directory, ours, and nobody else may write to it. (Cache
    files are checked once open, by :func:`read_trusted_cache_file`.)"""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and _owned(st)


def _owned(st: os.stat_result) -> bool:
    getuid = getattr(os, "getuid", None)
    if getuid is None:  # Windows: no owners to compare
        return True
    return st.st_uid == getuid() and not st.st_mode & 0o022


def read_trusted_cache_file(path: str) -> Optional[bytes]:
    """The bytes of the cache file ``path``, or ``None`` when it may not be trusted: its
    directory must be :func:`_trusted`, and the file a regular file, ours and writable by nobody
    else. The file is opened without blocking and checked once open (``fstat``), so a FIFO or a
    device put in its place cannot hang the compile. Used by the parser cache and by the
    compiled-template cache (:mod:`schemac.render`)."""
    if not _trusted(os.path.dirname(path) or "."):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not (stat.S_ISREG(st.st_mode) and _owned(st)):
            return None
        with os.fdopen(fd, "rb") as f:
            fd = -1  # (closed by the file object)
            return f.read()
    except OSError:
        return None
    finally:
        if fd >= 0:
            os.close(fd)
