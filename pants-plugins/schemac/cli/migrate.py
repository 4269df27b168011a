"""``python -m schemac migrate {generate,check,apply,resolve}`` (parsed in :mod:`schemac.cli.main`).

Exit status: 0 success (also "nothing to do"), 1 refused or failed (diagnostics on stderr),
2 usage error. ``status`` tells the database's state in its exit status (see :data:`STATUS_EXIT`).
"""

from __future__ import annotations

import glob
import os
import sys
from typing import Callable, Dict, List, Optional

from schemac.semantics.library import Library, Options
from schemac.pipeline import check_library
from schemac.diagnostics import CompileError, Diagnostic
from schemac.migrate.catalog import SnapshotError, catalog_of, dump_snapshot
from schemac.migrate.diff import DiffOptions, diff, locations_of
from schemac.migrate.history import (MIGRATION_FILE, SNAPSHOT_FILE, SUM_FILE, History, check_timeout,
                                     is_history_path, next_migration)


def _library(args, read_sources) -> "tuple[Optional[Library], Dict[str, str]]":
    from schemac.cli.sources import parse_externs

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
    try:
        out_files = _directory_files(args.out) if os.path.isdir(args.out) else {}
    except Exception as e:  # MigrationError: a file that is not UTF-8
        print(f"error[E0408]: {e}", file=sys.stderr)
        return 1
    # The history in --out is continued whatever the directory is called (`--out db`).
    history = History.from_sources(sources) or History.from_directory_files(args.out, out_files)
    foreign = sorted(n for n in out_files if MIGRATION_FILE.match(n) and history.migrations.get(n) != out_files[n])
    if foreign:
        print(f"{os.path.join(args.out, foreign[0])}: error[E0408]: --out holds migration files that are not part "
              f"of the history being continued ({history.directory or '.'}); generate never rewrites or adds to "
              "another history", file=sys.stderr)
        print("  = hint: pass the library's own history directory as --out (with its files, or list none of them)",
              file=sys.stderr)
        return 1
    problems = history.verify()
    if problems:
        _print_all(problems, sources)
        return 1
    for flag, value in (("--lock-timeout", args.lock_timeout), ("--statement-timeout", args.statement_timeout)):
        problem = check_timeout(value)
        if problem:
            print(f"error: {flag}: {problem}", file=sys.stderr)
            return 2
    options = DiffOptions(allow_destructive=args.allow_destructive, online_indexes=not args.blocking_indexes,
                          lock_timeout=args.lock_timeout, statement_timeout=args.statement_timeout)
    try:
        gen = next_migration(args.library, history, catalog_of(lib.schema), lib.hints, options, args.name,
                             locations_of(lib.schema))
    except SnapshotError as e:
        print(f"{history.path('snapshot.json')}: error[E0407]: {e}", file=sys.stderr)
        return 1
    if gen is None:
        return _unapplied_fills(args, history, lib, out_files)
    _print_all(gen.plan.lints, sources)
    if gen.plan.errors:
        _print_all(gen.plan.errors, sources)
        print(f"{args.library}: no migration written ({len(gen.plan.errors)} change(s) refused)", file=sys.stderr)
        return 1
    clash = sorted(n for n, t in gen.files.items() if n.endswith(".sql") and n in out_files and out_files[n] != t)
    if clash:  # never rewrite a committed migration (a guard: the checks above should make it impossible)
        print(f"{os.path.join(args.out, clash[0])}: error[E0408]: already exists; generate never rewrites a "
              "committed migration", file=sys.stderr)
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


def _unapplied_fills(args, history: History, lib: Library, out_files: Dict[str, str]) -> int:
    """No schema change: but a ``fill`` hint added after a migration failed on rows with no
    value (the guard's hint says to add one) changes no schema, so say that the migration does
    not have it, and with ``--amend`` write the fill into it (its guard replaced by the fill's
    UPDATE; the chained checksums rewritten). Never silent: without ``--amend`` it is a warning,
    since the migration may have been applied where it found no rows."""
    from schemac.migrate.diff import fills_missing_from
    from schemac.migrate.history import sum_file

    current = catalog_of(lib.schema)
    ups = [n for n in reversed(history.ordered()) if n.endswith(".up.sql")]
    for name in ups:
        missing = fills_missing_from(history.migrations[name], current, lib.hints)
        if not missing:
            continue
        version = int(name.split("_", 1)[0])
        hints = ", ".join(f"`{h}`" for h, _, _ in missing)
        if not args.amend:
            print(f"{history.path(name)}: warning[W0009]: the schema's {hints} is not in this migration: it was "
                  "generated before the hint was added, and stops on rows with no value", file=sys.stderr)
            print(f"  = hint: if version {version} has not been applied anywhere (a failed apply changes nothing), "
                  f"run generate again with --amend (`./pants generate-migrations --amend <target>`) to write the "
                  f"fill into it, then `resolve --version {version}` and apply", file=sys.stderr)
            print(f"{args.library}: no changes since the last migration")
            return 0
        text = history.migrations[name]
        for _, guard, statement in missing:
            text = text.replace(guard, statement)
        migrations = dict(history.migrations)
        migrations[name] = text
        files = {name: text}
        if history.snapshot is not None:
            files[SUM_FILE] = sum_file([(n, migrations[n]) for n in history.ordered()]
                                       + [(SNAPSHOT_FILE, history.snapshot)])
        os.makedirs(args.out, exist_ok=True)
        for n, t in sorted(files.items()):
            with open(os.path.join(args.out, n), "w", encoding="utf-8", newline="\n") as fh:
                fh.write(t)
        print(f"{args.library}: amended {name} with {hints} (run `resolve --version {version}` if it failed, "
              "then apply)")
        return 0
    print(f"{args.library}: no changes since the last migration")
    return 0


def _beside_schema_history_files(args) -> List[str]:
    """History files in ``migrations/`` next to the listed schema files, when none were listed
    (so `migrate check --library x schemas/x/*.esdl` finds the history as `generate` does)."""
    if any(is_history_path(f.replace(os.sep, "/")) for f in args.files):
        return []
    dirs = sorted({os.path.join(os.path.dirname(f), "migrations") for f in args.files if f.endswith((".esdl", ".gel"))})
    return [p for d in dirs for p in _history_files_in(d)]


def check(args, read_sources) -> int:
    args.files = [*args.files, *_beside_schema_history_files(args)]
    lib, sources = _library(args, read_sources)
    if lib is None:
        return 1
    _print_all(lib.warnings, sources)
    history = History.from_sources(sources)
    if history is None:
        print(f"error[E0406]: library {args.library!r} has no migration history", file=sys.stderr)
        print("  = hint: run `./pants generate-migrations <target>` (or `python -m schemac migrate generate`)",
              file=sys.stderr)
        return 1
    problems = history.verify()
    if problems:
        _print_all(problems, sources)
        return 1
    current = catalog_of(lib.schema)
    try:
        old = history.catalog()
    except SnapshotError as e:
        print(f"{history.path('snapshot.json')}: error[E0407]: {e}", file=sys.stderr)
        return 1
    if history.snapshot != dump_snapshot(current):
        plan = diff(old, current, lib.hints)
        changes = plan.changes or ["the snapshot is out of date"]
        print(f"error[E0406]: library {args.library!r}: the schema changed since the last migration:", file=sys.stderr)
        for c in changes:
            print(f"  - {c}", file=sys.stderr)
        print("  = hint: run `./pants generate-migrations <target>` and commit the new files", file=sys.stderr)
        return 1
    print(f"{args.library}: migrations up to date ({len(history.migrations) // 2} version(s))")
    return 0


def _directory_files(path: str) -> Dict[str, str]:
    """``{file name: text}`` of the history files directly in ``path`` (whatever the directory
    is called). Raises :class:`MigrationError` for a file that is not UTF-8."""
    from schemac.migrate.apply import MigrationError

    out: Dict[str, str] = {}
    for f in sorted(glob.glob(os.path.join(path, "*"))):
        name = os.path.basename(f)
        if not os.path.isfile(f) or not (MIGRATION_FILE.match(name) or name in (SNAPSHOT_FILE, SUM_FILE)):
            continue
        with open(f, "rb") as fh:
            raw = fh.read()
        try:
            out[name] = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise MigrationError(f"{f}: not UTF-8 text (byte {e.start})") from None
    return out


def _history_dir(path: str) -> History:
    """The history in directory ``path``, whatever it is called (``migrations/``, an export's
    ``sql/``). Raises :class:`MigrationError` when there is none (a mistyped ``--dir`` must not
    look like "nothing to do"), naming the directories below ``path`` that do hold migrations."""
    from schemac.migrate.apply import MigrationError

    if not os.path.isdir(path):
        raise MigrationError(f"{path} is not a directory (pass the library's migrations/ directory)")
    h = History.from_directory_files(path, _directory_files(path))
    if not h.migrations:
        below = sorted({os.path.dirname(f) for f in glob.glob(os.path.join(path, "**", "*.up.sql"), recursive=True)
                        if MIGRATION_FILE.match(os.path.basename(f))})
        hint = f"; migrations are in {', '.join(below[:3])}: pass that as --dir" if below else \
            "; generate them first (`./pants generate-migrations <target>`)"
        raise MigrationError(f"{path} holds no migrations (NNNNNN_name.up.sql files){hint}")
    return h


_ENV_URL = '"$DATABASE_URL"'  # printed instead of a URL that holds a password


def _again(args) -> Callable[[str], str]:
    """How hints spell a follow-up runner command so that it works as printed: through Pants
    when the run came from `./pants run` (it sets SCHEMAC_RUN_AS), else this interpreter with
    this copy of schemac on PYTHONPATH, the same directory, table, library and database."""
    import shlex

    run_as = os.environ.get("SCHEMAC_RUN_AS")
    extra = []
    if args.table != "schemac_migrations":
        extra += ["--table", args.table]
    if run_as:
        return lambda rest: f"{run_as} {rest}{''.join(' ' + shlex.quote(x) for x in extra)}"
    if args.library:
        extra += ["--library", args.library]
    url = getattr(args, "database_url_flag", None)
    if url:
        from urllib.parse import urlsplit

        try:
            secret = urlsplit(url).password is not None or "password=" in url
        except ValueError:
            secret = True
        extra += ["--database-url", _ENV_URL if secret else url]
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    head = f"PYTHONPATH={shlex.quote(package_root)} {shlex.quote(sys.executable)} -m schemac migrate"
    tail = f" --dir {shlex.quote(args.dir)}" + "".join(" " + (x if x is _ENV_URL else shlex.quote(x)) for x in extra)
    return lambda rest: f"{head} {rest}{tail}"


#: ``migrate status``'s exit status: 0 every version applied as committed; 3 versions are
#: pending (``apply`` brings the database up to date); 4 a version needs a person: ``failed`` or
#: ``started`` (resolve, or apply to resume), applied from a file edited since, or applied but
#: missing from the directory (pending versions beside these give 4 too). 1 and 2 keep their
#: meaning (the status could not be read; usage).
STATUS_EXIT = {"up to date": 0, "pending": 3, "attention": 4}


def status_exit(lines) -> int:
    """The exit status of ``migrate status`` for its lines (:data:`STATUS_EXIT`)."""
    if any(s.state in ("failed", "started", "unknown") or s.checksum == "edited" for s in lines):
        return STATUS_EXIT["attention"]
    if any(s.state == "pending" for s in lines):
        return STATUS_EXIT["pending"]
    return STATUS_EXIT["up to date"]


def _print_status(lines, notes) -> None:
    width = max((len(s.name) for s in lines), default=4)
    print(f"{'version':>7}  {'migration':<{width}}  {'state':<8}  {'checksum':<8}  when")
    for s in lines:
        print(f"{s.version:>7}  {s.name:<{width}}  {s.state:<8}  {s.checksum:<8}  {s.applied_at or '-'}"
              + (f"\n{'':>9}error: {s.error}" if s.error else ""))
    for n in notes:
        print(f"note: {n}")
    applied = [s for s in lines if s.state == "applied"]
    pending = [s for s in lines if s.state == "pending"]
    attention = [s for s in lines if s.state in ("failed", "started", "unknown") or s.checksum == "edited"]
    print(f"{len(applied)} applied, {len(pending)} pending, {len(attention)} needing attention")


def apply_cmd(args) -> int:
    from schemac.migrate.apply import MigrationError, apply, down, resolve, status

    args.database_url_flag = args.database_url
    url = args.database_url or os.environ.get("DATABASE_URL")
    if not url:
        print("error: no database: pass --database-url or set DATABASE_URL", file=sys.stderr)
        return 2
    try:
        history = _history_dir(args.dir)
        again = _again(args)
        cmd = args.migrate_command
        if cmd == "resolve":
            print(resolve(url, history, args.version, args.table, library=args.library, again=again))
        elif cmd == "status":
            lines, notes = status(url, history, args.table, library=args.library)
            _print_status(lines, notes)
            return status_exit(lines)
        elif cmd == "down":
            down(url, history, args.steps, args.table, log=print, library=args.library, again=again)
        else:
            apply(url, history, args.table, log=print, library=args.library, again=again, to=args.to)
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
