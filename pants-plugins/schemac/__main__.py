"""``python -m schemac``: the command line (see :mod:`schemac.cli.main`).

The process ends with :func:`os._exit` once the command has returned and stdout/stderr are
flushed: a compile leaves millions of small objects alive (syntax trees, the model, the
rendered text), and a normal interpreter shutdown frees them one by one, about 0.3 s at 1,000
types for nothing. Every file the command writes is closed before it returns, and the compiler
registers no ``atexit`` handlers. (mypy ends its command line the same way, for the same
reason.) ``python -X dev -m schemac`` keeps the normal shutdown, e.g. to see resource warnings.
"""

import os
import sys

from schemac.cli.main import main

status = main()
if sys.flags.dev_mode or not isinstance(status, int):
    sys.exit(status)
for stream, failed in ((sys.stdout, 120), (sys.stderr, status)):
    if stream is None:  # started with that stream closed: nothing to flush
        continue
    try:
        stream.flush()
    except (OSError, ValueError):
        # stdout (a command's result) that cannot be written is an error, status 120 as in a
        # normal exit; stderr only carries diagnostics, written best effort (see cli.py).
        os._exit(failed)
os._exit(status)
