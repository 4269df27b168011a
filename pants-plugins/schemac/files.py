"""Writing a file whole: the parser cache and the compiler's outputs are written to a temporary
file in the target's directory, then renamed over the target (``os.replace``, atomic on POSIX
within one file system), so a reader never sees a half-written file and a failed write (a full
disk) leaves the previous version."""

from __future__ import annotations

import os
import tempfile
from typing import Optional


def replace_file(path: str, data: bytes, *, mode: Optional[int] = None, prefix: str = ".schemac-",
                 suffix: str = "") -> None:
    """Write ``data`` to ``path`` through a temporary file (``<prefix>...<suffix>`` beside it) that
    is renamed over ``path``; ``mode``: the file's permission bits (default: ``mkstemp``'s
    0o600). The directory must exist. Raises ``OSError`` (the temporary file is removed)."""
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=os.path.dirname(path) or ".")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
