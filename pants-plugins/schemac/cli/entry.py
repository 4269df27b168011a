"""The process entry of the command line: ``python -m schemac`` (:mod:`schemac.__main__`) and
the ``schemac`` command an installed distribution puts on ``PATH`` (``pip install
./pants-plugins``; see the README, "Use it in your repository").

A third-party package that is not installed is a one-line error naming the package and how to
get it, never a traceback (the compiler needs ``lark`` and ``jinja2``; ``migrate apply``,
``status``, ``down`` and ``resolve`` need ``psycopg``; ``lsp`` needs ``pygls`` and
``lsprotocol``).
"""

from __future__ import annotations

import os
import sys
from typing import List, Optional

#: Third-party top-level modules -> (what needs them, the pip requirement that brings them).
_NEEDED_BY = {
    "lark": ("the compiler needs", "schemac (or: pip install lark jinja2)"),
    "jinja2": ("the compiler needs", "schemac (or: pip install lark jinja2)"),
    "markupsafe": ("the compiler needs", "schemac (or: pip install lark jinja2)"),
    "psycopg": ("`migrate apply`, `status`, `down` and `resolve` need", '"schemac[migrate]" (or: pip install "psycopg[binary]")'),
    "psycopg_binary": ("`migrate apply`, `status`, `down` and `resolve` need", '"schemac[migrate]" (or: pip install "psycopg[binary]")'),
    "pygls": ("the language server (`lsp`) needs", '"schemac[lsp]" (or: pip install pygls lsprotocol)'),
    "lsprotocol": ("the language server (`lsp`) needs", '"schemac[lsp]" (or: pip install pygls lsprotocol)'),
}


def missing_package_message(error: ImportError) -> Optional[str]:
    """The one-line error for an ``ImportError`` of a third-party package schemac needs, or
    ``None`` when it is not one of those (a bug: let it surface)."""
    name = (getattr(error, "name", None) or "").split(".")[0]
    if name not in _NEEDED_BY:
        return None
    what, requirement = _NEEDED_BY[name]
    return (f"error: {what} the Python package '{name}', which is not installed for {sys.executable}: "
            f"pip install {requirement} (in the environment that runs schemac)")


def run(argv: Optional[List[str]] = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        from schemac.cli.main import main

        return main(argv)
    except ImportError as e:
        message = missing_package_message(e)
        if message is None:
            raise
        try:
            print(message, file=sys.stderr)
        except (OSError, ValueError, AttributeError):
            pass
        return 1


def exit_with(status: object) -> None:
    """End the process with ``status`` once stdout and stderr are flushed, without the
    interpreter's shutdown (see :mod:`schemac.__main__`)."""
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


def console_main() -> None:
    """The ``schemac`` console script."""
    exit_with(run())
