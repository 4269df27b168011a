"""Command line: ``python -m schemac compile ...``.

Exit status: 0 on success, 1 when the input has errors (diagnostics on stderr, never a Python
traceback), 2 on a usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, List, Optional

from schemac.compiler import TS_MODULE_FORMATS, Options, compile_library
from schemac.diagnostics import CompileError, Diagnostic


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m schemac",
        description="schemac: compile a schema library (*.esdl schema files, *.edgeql query files) "
        "into SQL migrations, a TypeScript runner and a Go runner.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser(
        "compile",
        help="compile one library",
        description="Compile one schema library. Writes <out>/sql/000001_init.{up,down}.sql, "
        "<out>/ts/{index,models,errors,queries}.ts and <out>/go/{db,models,errors,queries}.go. "
        "File paths are used as given in diagnostics; pass paths relative to your repository root.",
    )
    c.add_argument("--library", required=True, help="library name (usually its directory name)")
    c.add_argument("--out", required=True, help="output directory (created; existing files are overwritten)")
    c.add_argument("--go-package", help="Go package name (default: the library name, lower-cased)")
    c.add_argument("--go-import-path", help="Go import path of the generated package (recorded for consumers)")
    c.add_argument("--ts-module", choices=TS_MODULE_FORMATS, default="esm",
                   help="TypeScript module format: esm (relative imports end in .js) or commonjs")
    c.add_argument("files", nargs="+", help="schema (*.esdl) and query (*.edgeql) files")
    return p


def _read_sources(files: List[str]) -> Dict[str, str]:
    sources: Dict[str, str] = {}
    for f in files:
        with open(f, "rb") as fh:
            raw = fh.read()
        try:
            sources[f] = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise SystemExit(f"{f}: error: not UTF-8 text (byte {e.start})")
    return sources


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        sources = _read_sources(args.files)
    except OSError as e:
        print(f"error: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    options = Options(library=args.library, go_package=args.go_package, ts_module=args.ts_module)
    warnings: List[Diagnostic] = []
    try:
        outputs = compile_library(sources, options, warnings)
    except CompileError as e:
        print(e.render(sources), file=sys.stderr)
        return 1
    for w in warnings:
        print(w.render(sources), file=sys.stderr)
    for rel, text in outputs.items():
        path = os.path.join(args.out, *rel.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    return 0
