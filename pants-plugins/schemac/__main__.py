"""``python -m schemac``: the command line (see :mod:`schemac.cli.main`).

The process ends with :func:`os._exit` once the command has returned and stdout/stderr are
flushed: a compile leaves millions of small objects alive (syntax trees, the model, the
rendered text), and a normal interpreter shutdown frees them one by one, about 0.3 s at 1,000
types for nothing. Every file the command writes is closed before it returns, and the compiler
registers no ``atexit`` handlers. (mypy ends its command line the same way, for the same
reason.) ``python -X dev -m schemac`` keeps the normal shutdown, e.g. to see resource warnings.
A missing third-party package is a one-line error, not a traceback (:mod:`schemac.cli.entry`).
"""

from schemac.cli.entry import exit_with, run

exit_with(run())
