"""Command line: ``python -m schemac compile ...``.

Exit status: 0 on success, 1 when the input has errors (diagnostics on stderr, never a Python
traceback), 2 on a usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, List, Optional

from schemac.pipeline import (GO_DRIVERS, QUERY_SUFFIXES, SCHEMA_SUFFIXES, TS_INT64_MODES, TS_MODULE_FORMATS,
                              check_library, render_library, with_relative_paths)
from schemac.semantics.library import Options
from schemac.diagnostics import CompileError
from schemac.cli.sources import read_sources, parse_externs


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m schemac",
        description="schemac: compile a schema library (*.esdl or *.gel schema files, *.edgeql query files) "
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
    c.add_argument("--extern", action="append", default=[], metavar="LIBRARY=FILE",
                   help="a schema file of a library this one depends on (repeatable): its types are linked to as "
                   "LIBRARY::Type, and its tables are left to that library's migrations")
    c.add_argument("--ts-module", choices=TS_MODULE_FORMATS, default="esm",
                   help="TypeScript module format: esm (relative imports end in .js) or commonjs")
    c.add_argument("--ts-int64", choices=TS_INT64_MODES, default="string",
                   help="TypeScript type of int64 values: string (as node-postgres returns int8; the default) "
                   "or bigint (the runner converts results with BigInt())")
    c.add_argument("--go-driver", choices=GO_DRIVERS, default="pgx",
                   help="Go driver of the generated runner: pgx (pgx v5's own interface; the default) or "
                   "database/sql (*sql.DB/*sql.Tx, opened with pgx's github.com/jackc/pgx/v5/stdlib driver)")
    c.add_argument("files", nargs="+", help="schema (*.esdl, *.gel) and query (*.edgeql) files, and the files of the "
                   "library's migrations/ directory (copied to <out>/sql/ after their checksums are verified)")

    f = sub.add_parser("fmt", help="format schema and query files",
                       description="Format schema (.esdl) and query (.edgeql) files in place, in schemac's "
                       "canonical layout (only white space changes; comments are kept). Directories are searched "
                       "for such files. With --check nothing is written: the files that would change are listed "
                       "and the exit status is 1.")
    f.add_argument("--check", action="store_true", help="list the files that are not formatted; exit 1 if any")
    f.add_argument("paths", nargs="+", help="files or directories")
    lp = sub.add_parser("lsp", help="run the language server (stdio), for editors",
                        description="The schemac language server, over stdio: diagnostics, completion, hover, go to "
                        "definition, references, symbols, rename, code actions and formatting for schema (.esdl) and "
                        "query (.edgeql) files. Needs pygls 2.x. See 'Editor setup' in the README.")
    lp.add_argument("--check", action="store_true",
                    help="check that the server can start here (its packages import), print what it runs on, and "
                    "exit: 0 when it can, 1 naming what is missing (editors/schemac-lsp uses this)")

    from schemac.cli.geldump import add_parser as add_geldump_parser

    add_geldump_parser(sub)

    m = sub.add_parser("migrate", help="versioned migrations: generate, check, apply, resolve",
                       description="Versioned migrations of a library (its migrations/ directory).")
    msub = m.add_subparsers(dest="migrate_command", required=True)
    g = msub.add_parser(
        "generate", help="write the next migration",
        description="Diff the library's schema against migrations/snapshot.json and write the next numbered "
        "migration (golang-migrate .up.sql/.down.sql), the new snapshot and schemac.sum into --out. Prints "
        "the changes and lints; refuses destructive changes without a drop hint (or --allow-destructive).")
    g.add_argument("--library", required=True, help="library name")
    g.add_argument("--out", required=True, help="directory to write into (the library's migrations/ directory)")
    g.add_argument("--name", help="slug of the new migration's file name (default: from the first change)")
    g.add_argument("--amend", action="store_true",
                   help="write `fill` hints added after the latest migration failed on rows with no value into "
                   "that migration (only when it was applied nowhere: its checksum changes)")
    g.add_argument("--allow-destructive", action="store_true",
                   help="allow dropping tables and columns that have no drop hint in the schema")
    g.add_argument("--online-indexes", action="store_true",
                   help="build and drop indexes of existing tables CONCURRENTLY, one migration each (the default)")
    g.add_argument("--blocking-indexes", action="store_true",
                   help="build and drop indexes of existing tables inside the main migration's transaction "
                   "(for small tables: writes wait while they build)")
    g.add_argument("--lock-timeout", default="5s",
                   help="lock_timeout each migration file sets first (default 5s; 0 for none)")
    g.add_argument("--statement-timeout", default="1min",
                   help="statement_timeout of the files that take blocking locks (default 1min; 0 for none); "
                   "concurrent builds and validations run without one")
    g.add_argument("--extern", action="append", default=[], metavar="LIBRARY=FILE",
                   help="a schema file of a library this one depends on (as for compile)")
    g.add_argument("files", nargs="+", help="the library's schema files and migrations/ files")
    k = msub.add_parser("check", help="fail when the schema changed without a migration, or the history is broken",
                        description="Exit 1 when the history's checksum chain is broken or the schema differs from "
                        "migrations/snapshot.json (run `generate` then).")
    k.add_argument("--library", required=True, help="library name")
    k.add_argument("--extern", action="append", default=[], metavar="LIBRARY=FILE",
                   help="a schema file of a library this one depends on (as for compile)")
    k.add_argument("files", nargs="+", help="the library's schema files and migrations/ files")
    for name, help_ in (("apply", "apply pending migrations to a database"),
                        ("status", "show each migration's state in a database (applied, pending, failed, started); "
                         "exit 0 when up to date, 3 when versions are pending, 4 when one needs attention "
                         "(failed, started, edited or unknown)"),
                        ("down", "revert the N latest applied migrations with their down files"),
                        ("resolve", "clear a failed or unfinished migration so apply runs it again")):
        a = msub.add_parser(name, help=help_, description=help_ + " (see docs/migrations.md, 'The apply runner').")
        a.add_argument("--database-url", default=None,
                       help="libpq connection string or URL (default: $DATABASE_URL)")
        a.add_argument("--dir", required=True, help="the library's migrations directory (any name; also an "
                       "export's sql/ directory)")
        a.add_argument("--table", default="schemac_migrations", help="history table (default: schemac_migrations; "
                       "it keeps the versions of every library of the database apart)")
        a.add_argument("--library", help="whose versions these are (default: the library named in the files' header)")
        if name == "resolve":
            a.add_argument("--version", type=int, required=True, help="the failed or unfinished version")
        if name == "apply":
            a.add_argument("--to", type=int, metavar="N", help="apply up to version N only (default: all)")
        if name == "down":
            a.add_argument("steps", type=int, nargs="?", default=1, metavar="N",
                           help="how many versions to revert (default 1)")
    return p


def _print_diagnostics(text: str) -> None:
    """Print diagnostics on stderr, best effort: a closed or full stderr must not turn a
    successful compile into a failure (the exit status still tells an error)."""
    if sys.stderr is None:  # started with stderr closed (print would fall back to stdout)
        return
    try:
        print(text, file=sys.stderr)
    except (OSError, ValueError):  # closed or full
        pass


def write_outputs(out: str, outputs: Dict[str, str]) -> None:
    """Write ``outputs`` (``{relative path: text}``) under ``out``. Each file is written to a
    temporary file beside it and renamed over the old one, so a file is never left half
    written (a full disk leaves the previous version). A new file gets the usual mode
    (``0o666`` less the umask), a rewritten one keeps its mode, and a symbolic link is written
    through (its target is replaced). Raises ``OSError`` whose ``filename`` is the output file
    (not the temporary one)."""
    import errno
    import stat

    from schemac.files import replace_file

    umask = os.umask(0)
    os.umask(umask)
    for rel, text in outputs.items():
        path = os.path.join(out, *rel.split("/"))
        target = os.path.realpath(path) if os.path.islink(path) else path
        directory = os.path.dirname(target) or "."
        try:
            try:
                os.makedirs(directory, exist_ok=True)
            except FileExistsError:
                raise NotADirectoryError(errno.ENOTDIR, "a file is in the way of its directory", path) from None
            try:
                mode = stat.S_IMODE(os.stat(target).st_mode)
            except FileNotFoundError:
                mode = 0o666 & ~umask
            replace_file(target, text.encode("utf-8"), mode=mode)
        except OSError as e:
            if e.filename == path:
                raise
            raise type(e)(e.errno, e.strerror, path) from None


#: What the last compile of :func:`main` built (the checked library: the model, the query
#: plans, the generated names): kept until the next call or the end of the process, which
#: (``python -m schemac``) exits without freeing them; freeing them object by object as the
#: compile returns would take time for nothing.
_RETAINED: List[object] = []


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point; returns the exit status. Output that cannot be written (a file, or a
    full stdout) is a one-line error and status 1, never a traceback."""
    if sys.stderr is None:  # started with stderr closed: diagnostics go nowhere, not to stdout
        sys.stderr = open(os.devnull, "w")
    try:
        return _main(argv)
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        _print_diagnostics(f"error: {where}{e.strerror or e}")
        return 1


RUNNER_COMMANDS = ("apply", "status", "down", "resolve")


def _runner_argv(argv: List[str]) -> List[str]:
    """``migrate target --library L --dir D [COMMAND] [ARGS...]`` (what `./pants run <library>`
    executes, followed by the user's arguments after ``--``) -> ``migrate COMMAND --library L
    --dir D ARGS...``; COMMAND defaults to ``apply``. ``import-gel-dump DUMP ...`` becomes
    ``import-gel-dump --library L --dir D DUMP ...`` (D, the migrations directory, leads to the
    schema files beside it)."""
    if argv[:2] != ["migrate", "target"]:
        return argv
    head, rest = argv[2:6], argv[6:]
    if rest and rest[0] == "import-gel-dump":
        # `./pants run <library> -- import-gel-dump DUMP`: the library's own schema (next to the
        # migrations directory) and name
        return ["import-gel-dump", *head, *rest[1:]]
    command = "apply"
    if rest and rest[0] in RUNNER_COMMANDS:
        command, rest = rest[0], rest[1:]
    return ["migrate", command, *head, *rest]


def _fmt_files(paths: List[str]) -> List[str]:
    out: List[str] = []
    for p in paths:
        if os.path.isdir(p):
            for d, dirs, files in os.walk(p):
                dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x != "node_modules")
                out += [os.path.join(d, f) for f in sorted(files) if f.endswith(SCHEMA_SUFFIXES + QUERY_SUFFIXES)]
        else:
            out.append(p)
    return out


def _fmt(paths: List[str], check: bool) -> int:
    """``python -m schemac fmt``: 0 when every file is (or now is) formatted; 1 when a file
    does not parse, or with ``check`` when one is not formatted."""
    from schemac.files import replace_file
    from schemac.fmt import FormatError, format_source

    status = 0
    for path in _fmt_files(paths):
        if not path.endswith(SCHEMA_SUFFIXES + QUERY_SUFFIXES):
            _print_diagnostics(f"error: {path}: not a schema (.esdl) or query (.edgeql) file")
            status = 1
            continue
        text = read_sources([path])[path]  # (an OSError is main()'s one-line error)
        with open(path, "rb") as fh:
            raw = fh.read().decode("utf-8")
        try:
            formatted = format_source(path, text)
        except FormatError as e:
            _print_diagnostics(CompileError(e.diagnostics).render({path: text}))
            status = 1
            continue
        if formatted == raw:
            continue
        if check:
            print(path)
            status = 1
        else:
            import stat

            replace_file(path, formatted.encode("utf-8"), mode=stat.S_IMODE(os.stat(path).st_mode))
    return status


def _main(argv: Optional[List[str]]) -> int:
    import gc

    # A short-lived process: the cyclic garbage collector would only scan the compiler's
    # millions of live objects again when the compile re-enables it (~0.2 s at 1,000 types).
    gc.disable()
    _RETAINED.clear()
    args = _parser().parse_args(_runner_argv(sys.argv[1:] if argv is None else list(argv)))
    if args.command == "lsp":
        gc.enable()  # a long-lived process
        try:
            from schemac.lsp.server import main as lsp_main
        except ImportError as e:
            if isinstance(e, ModuleNotFoundError):
                raise  # not installed: schemac.cli.entry says which package and how to get it
            _print_diagnostics(f"error: the language server needs pygls 2.x and lsprotocol ({e}): "
                               'pip install "schemac[lsp]"')
            return 1
        if args.check:
            import importlib

            versions = []
            for name in ("lark", "jinja2", "pygls", "lsprotocol"):
                importlib.import_module(name)  # (a missing one is schemac.cli.entry's one-line error)
                try:
                    from importlib.metadata import version

                    versions.append(f"{name} {version(name)}")
                except Exception:  # not installed as a distribution (e.g. on PYTHONPATH)
                    versions.append(name)
            import schemac

            print(f"schemac {schemac.__version__} language server can start: {sys.executable} "
                  f"(Python {sys.version.split()[0]}; {', '.join(versions)}; compiler from "
                  f"{os.path.dirname(os.path.dirname(os.path.abspath(schemac.__file__)))})")
            return 0
        return lsp_main()
    if args.command == "fmt":
        return _fmt(args.paths, args.check)
    if args.command == "import-gel-dump":
        from schemac.cli.geldump import run as run_geldump

        return run_geldump(args, read_sources)
    if args.command == "migrate":
        from schemac.cli.migrate import run_migrate

        return run_migrate(args, read_sources)
    sources = read_sources(args.files)  # (an OSError is main()'s one-line error)
    externs = parse_externs(args.extern)
    if externs is None:
        return 2
    sources.update(read_sources([p for p, _ in externs]))
    options = Options(library=args.library, go_package=args.go_package, ts_module=args.ts_module,
                      ts_int64=args.ts_int64, go_driver=args.go_driver, externs=tuple(externs))
    try:
        lib = check_library(sources, options)
        _RETAINED.append(lib)
        outputs = render_library(with_relative_paths(lib, os.getcwd()), sources)
    except CompileError as e:
        _print_diagnostics(e.render(sources))
        return 1
    try:
        write_outputs(args.out, outputs)
    except OSError as e:
        _print_diagnostics(f"error: cannot write the output to {e.filename or args.out}: {e.strerror or e}")
        return 1
    for w in lib.warnings:
        _print_diagnostics(w.render(sources))
    _print_diagnostics(_summary(lib, args.out, outputs))
    return 0


def _summary(lib, out: str, outputs: Dict[str, str]) -> str:
    """The one line a successful compile prints (on stderr, with the warnings): what was
    compiled and where it went, e.g. ``schemac: compiled library jobs (2 types, 8 queries, 1
    migration) into out/: 3 SQL, 4 TypeScript and 4 Go files``."""
    def n(count: int, what: str) -> str:
        return f"{count} {what}" + ("" if count == 1 else "s")

    kinds = {k: sum(1 for p in outputs if p.startswith(k + "/")) for k in ("sql", "ts", "go")}
    migrations = sum(1 for p in outputs if p.startswith("sql/") and p.endswith(".up.sql"))
    types = sum(1 for t in lib.schema.types.values() if t.module not in lib.schema.module_library)
    warnings = f", {n(len(lib.warnings), 'warning')}" if lib.warnings else ""
    return (f"schemac: compiled library {lib.options.library} ({n(types, 'object type')}, "
            f"{n(len(lib.queries), 'query').replace('querys', 'queries')}, {n(migrations, 'migration')}{warnings}) "
            f"into {out}: {kinds['sql']} SQL, {kinds['ts']} TypeScript and {kinds['go']} Go files")
