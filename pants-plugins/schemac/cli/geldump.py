"""``python -m schemac import-gel-dump DUMP --dir LIBRARY_DIR [--database-url URL]``: load a
Gel dump file into the tables a library's migrations created (see :mod:`schemac.geldump.load`
and docs/moving-from-gel.md).

Exit status: 0 loaded; 1 refused or failed (a coded diagnostic on stderr: E0500 unreadable
dump, E0501 the dump's schema differs from the library's, E0502 the database is not ready,
E0503 the database refused the data; the database is then as it was); 2 usage error.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Dict, List

from schemac.diagnostics import CompileError
from schemac.pipeline import SCHEMA_SUFFIXES, check_library
from schemac.semantics.library import Options


def add_parser(sub) -> None:
    g = sub.add_parser(
        "import-gel-dump", help="load a Gel dump file into a library's tables",
        description="Load a Gel dump file (what `gel dump` writes, Gel/EdgeDB 1.4 to 6.x) into the tables the "
        "library's migrations created in an empty database: objects with their ids, properties, links, multi "
        "links with their link properties, multi properties; sequences are set past their highest value. The "
        "dump's schema is compared with the library's first: any difference refuses the import before anything "
        "is written. One transaction: a failure leaves the database as it was. See docs/moving-from-gel.md.")
    g.add_argument("dump", help="the Gel dump file")
    g.add_argument("--dir", required=True, help="the library's directory (its schema files: *.esdl, *.gel; its "
                   "migrations/ directory is also accepted: the schema next to it is read)")
    g.add_argument("--library", help="the library's name (default: the directory's name)")
    g.add_argument("--database-url", default=None, help="libpq connection string or URL (default: $DATABASE_URL)")
    g.add_argument("--quiet", action="store_true", help="no progress lines")
    g.add_argument("--skip-extension-objects", action="store_true",
                   help="leave out the objects of Gel extensions' types the library does not have (such as the "
                   "prompts `ext::ai` creates itself), listed in the summary, instead of refusing the dump")


def _schema_files(directory: str) -> List[str]:
    out: List[str] = []
    for d, dirs, files in os.walk(directory):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x not in ("node_modules", "migrations"))
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(SCHEMA_SUFFIXES)]
    return out


def _fixed_mmap_threshold() -> None:
    """Keep glibc's threshold for mapping large allocations at 128 KiB (best effort; glibc
    only). By default glibc raises it to the size of the largest block freed, after which each
    dump block (about a megabyte) is carved from the heap; measured peak memory with it fixed:
    69 MB instead of 80 MB for a 300 MB dump, 150 MB instead of 162 MB for a 1 GB dump."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):
        pass


def run(args, read_sources: Callable[[List[str]], Dict[str, str]]) -> int:
    import gc

    from schemac.geldump.load import GelDumpError, load_dump, print_summary

    gc.enable()  # a long run: the command line turns the collector off for compiles
    _fixed_mmap_threshold()

    url = args.database_url or os.environ.get("DATABASE_URL")
    if not url:
        print("error: no database: pass --database-url or set DATABASE_URL", file=sys.stderr)
        return 2
    directory = args.dir.rstrip("/\\") or args.dir
    if not os.path.isdir(directory):
        print(f"error: --dir {args.dir}: not a directory", file=sys.stderr)
        return 2
    files = _schema_files(directory)
    if not files and os.path.basename(os.path.abspath(directory)) == "migrations":
        directory = os.path.dirname(os.path.abspath(directory))
        files = _schema_files(directory)
    if not files:
        print(f"error: {args.dir} holds no schema files (*.esdl, *.gel)", file=sys.stderr)
        return 2
    library = args.library or os.path.basename(os.path.abspath(directory))
    sources = read_sources(files)
    try:
        lib = check_library(sources, Options(library=library))
    except CompileError as e:
        print(e.render(sources), file=sys.stderr)
        return 1
    try:
        fh = open(args.dump, "rb")
    except OSError as e:
        print(f"{args.dump}: error[E0500]: cannot read the dump: {e.strerror or e}", file=sys.stderr)
        return 1
    log: Callable[[str], None] = (lambda s: None) if args.quiet else (lambda s: print(s, file=sys.stderr, flush=True))
    try:
        with fh:
            summary = load_dump(fh, lib.schema, url, log=log, dump_name=args.dump,
                                    skip_extension_objects=args.skip_extension_objects)
    except GelDumpError as e:
        print(f"{args.dump}: error[{e.code}]: {e.message}", file=sys.stderr)
        for line in e.details:
            print(f"  - {line}", file=sys.stderr)
        if e.hint:
            print(f"hint: {e.hint}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"{args.dump}: error[E0500]: cannot read the dump: {e.strerror or e}; nothing was written",
              file=sys.stderr)
        return 1
    print(f"{args.dump}: loaded into library {library}:")
    print_summary(summary)
    return 0
