"""``python -m schemac migrate {generate,check,apply,resolve}`` (parsed in :mod:`schemac.cli`).

Exit status: 0 success (also "nothing to do"), 1 refused or failed (diagnostics on stderr),
2 usage error.
"""

from __future__ import annotations

import glob
import os
import sys
from typing import Callable, Dict, List, Optional

from schemac.compiler import Library, Options, check_library
from schemac.diagnostics import CompileError, Diagnostic
from schemac.migrate.catalog import SnapshotError, catalog_of, dump_snapshot
from schemac.migrate.diff import DiffOptions, diff, locations_of
from schemac.migrate.history import History, is_history_path, next_migration


def _library(args, read_sources) -> "tuple[Optional[Library], Dict[str, str]]":
    from schemac.cli import parse_externs

    externs = parse_externs(args.extern)
    if externs is None:
        return None, {}
    try:
        sources = read_sources([*args.files, *(p for p, _ in externs)])
    except OSError as e:
        print(f"error: {e.filename}: {e.strerror}", file=sys.stderr)
        return None, {}
    try:
        return check_library(sources, Options(library=args.library, externs=tuple(externs))), sources
    except CompileError as e:
        print(e.render(sources), file=sys.stderr)
        return None, sources


def _print_all(diags: List[Diagnostic], sources: Dict[str, str]) -> None:
    for d in diags:
        print(d.render(sources), file=sys.stderr)


def _history_files_in(directory: str) -> List[str]:
    """The history files (migrations, snapshot, checksums) in ``directory``, spelled as
    ``directory/name`` when that names a ``migrations/`` directory, else by absolute path, so
    they are recognised as history whatever spelling of the directory was given (``.``)."""
    out = []
    for f in sorted(glob.glob(os.path.join(directory, "*"))):
        if not os.path.isfile(f):
            continue
        path = f.replace(os.sep, "/")
        if not is_history_path(path):
            path = os.path.abspath(f).replace(os.sep, "/")
        if is_history_path(path):
            out.append(path)
    return out


def _out_history_files(args) -> List[str]:
    """History files already in ``--out`` that the command line did not list (so that
    `generate --out schemas/x/migrations schemas/x/*.esdl` continues that history instead of
    starting a new one over it)."""
    given = {os.path.abspath(f) for f in args.files}
    return [p for p in _history_files_in(args.out) if os.path.abspath(p) not in given]


def generate(args, read_sources) -> int:
    args.files = [*args.files, *_out_history_files(args)]
    lib, sources = _library(args, read_sources)
    if lib is None:
        return 1
    _print_all(lib.warnings, sources)
    history = lib.history or History(args.out)
    problems = history.verify()
    if problems:
        _print_all(problems, sources)
        return 1
    options = DiffOptions(allow_destructive=args.allow_destructive, online_indexes=args.online_indexes)
    try:
        gen = next_migration(args.library, history, catalog_of(lib.schema), lib.hints, options, args.name,
                             locations_of(lib.schema))
    except SnapshotError as e:
        print(f"{history.path('snapshot.json')}: error[E0407]: {e}", file=sys.stderr)
        return 1
    if gen is None:
        print(f"{args.library}: no changes since the last migration")
        return 0
    _print_all(gen.plan.lints, sources)
    if gen.plan.errors:
        _print_all(gen.plan.errors, sources)
        print(f"{args.library}: no migration written ({len(gen.plan.errors)} change(s) refused)", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    for name, text in sorted(gen.files.items()):
        with open(os.path.join(args.out, name), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    if gen.versions:
        print(f"{args.library}: wrote {', '.join(gen.versions)} ({len(gen.plan.changes)} change(s))")
        for c in gen.plan.changes:
            print(f"  - {c}")
    else:
        print(f"{args.library}: updated snapshot.json (no SQL change)")
    return 0


def _beside_schema_history_files(args) -> List[str]:
    """History files in ``migrations/`` next to the listed schema files, when none were listed
    (so `migrate check --library x schemas/x/*.esdl` finds the history as `generate` does)."""
    if any(is_history_path(f.replace(os.sep, "/")) for f in args.files):
        return []
    dirs = sorted({os.path.join(os.path.dirname(f), "migrations") for f in args.files if f.endswith(".esdl")})
    return [p for d in dirs for p in _history_files_in(d)]


def check(args, read_sources) -> int:
    args.files = [*args.files, *_beside_schema_history_files(args)]
    lib, sources = _library(args, read_sources)
    if lib is None:
        return 1
    _print_all(lib.warnings, sources)
    if lib.history is None:
        print(f"error[E0406]: library {args.library!r} has no migration history", file=sys.stderr)
        print("  = hint: run `./pants generate-migrations <target>` (or `python -m schemac migrate generate`)",
              file=sys.stderr)
        return 1
    problems = lib.history.verify()
    if problems:
        _print_all(problems, sources)
        return 1
    current = catalog_of(lib.schema)
    try:
        old = lib.history.catalog()
    except SnapshotError as e:
        print(f"{lib.history.path('snapshot.json')}: error[E0407]: {e}", file=sys.stderr)
        return 1
    if lib.history.snapshot != dump_snapshot(current):
        plan = diff(old, current, lib.hints)
        changes = plan.changes or ["the snapshot is out of date"]
        print(f"error[E0406]: library {args.library!r}: the schema changed since the last migration:", file=sys.stderr)
        for c in changes:
            print(f"  - {c}", file=sys.stderr)
        print("  = hint: run `./pants generate-migrations <target>` and commit the new files", file=sys.stderr)
        return 1
    print(f"{args.library}: migrations up to date ({len(lib.history.migrations) // 2} version(s))")
    return 0


def _history_dir(path: str) -> History:
    """The history in directory ``path``. Raises :class:`MigrationError` when there is none
    (a mistyped ``--dir`` must not look like "nothing to do") or a file is not UTF-8."""
    from schemac.migrate.apply import MigrationError

    if not os.path.isdir(path):
        raise MigrationError(f"{path} is not a directory (pass the library's migrations/ directory)")
    sources = {}
    for f in _history_files_in(path):
        with open(f, "rb") as fh:
            raw = fh.read()
        try:
            sources[f] = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise MigrationError(f"{f}: not UTF-8 text (byte {e.start})") from None
    h = History.from_sources(sources)
    if h is None or not h.migrations:
        raise MigrationError(f"{path} holds no migrations (NNNNNN_name.up.sql files); generate them first")
    return h


def apply_cmd(args) -> int:
    from schemac.migrate.apply import MigrationError, apply, resolve

    if not args.database_url:
        print("error: no database: pass --database-url or set DATABASE_URL", file=sys.stderr)
        return 2
    try:
        history = _history_dir(args.dir)
        if args.migrate_command == "resolve":
            print(resolve(args.database_url, history, args.version, args.table, library=args.library))
        else:
            apply(args.database_url, history, args.table, log=print, library=args.library)
    except MigrationError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # connection problems: psycopg.OperationalError and friends
        if type(e).__module__.startswith("psycopg"):
            print(f"error: {str(e).strip()}", file=sys.stderr)
            return 1
        raise
    return 0


def run_migrate(args, read_sources: Callable) -> int:
    """Dispatch ``migrate`` sub-commands; returns the exit status."""
    if args.migrate_command == "generate":
        return generate(args, read_sources)
    if args.migrate_command == "check":
        return check(args, read_sources)
    return apply_cmd(args)
