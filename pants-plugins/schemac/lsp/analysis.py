"""Libraries and their incremental analysis, for the language server.

A file belongs to a library: the ``schema_library`` of a ``BUILD`` file whose sources match it
(its ``sources`` globs, default ``*.esdl``, ``*.gel``, ``*.edgeql``, ``queries/*.edgeql``,
``dbschema/*.gel``, ``dbschema/*.esdl``), else the
nearest folder with schema files (the file's own, or the one above a ``queries/`` folder).
The library's ``dependencies`` name other libraries, whose schema files are read too.

:class:`Analyzer` runs the compiler's front end on a library's sources (the files on disk,
overlaid with the editor's unsaved texts) the way :func:`schemac.pipeline.check_library` does:
parse every file, build the schema (:func:`schemac.semantics.resolve.build_schema`), check the migration
hints, plan every query (:func:`schemac.semantics.queries.plan_query`). It keeps what it can reuse: a
file is parsed again only when its text changed, and the query plans are kept while neither
the schema files nor the query changed. It also keeps the *last good* parse of every schema
file, so the symbol index (completion, hover, definition) survives a file that does not parse
while it is being edited.

One deliberate difference from ``check_library``: a syntax error in one query file does not
hold back the checks of the other queries (the compiler stops checking queries after any
error, which in an editor would make every other query's diagnostics flicker while one is
being typed). Otherwise the diagnostics are the compiler's own (same codes, spans, hints).
"""

from __future__ import annotations

import ast as pyast
import functools
import glob
import os
import posixpath
import re
import time
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Mapping, Optional, Set, Tuple

from schemac.syntax import tree as ast
from schemac.pipeline import QUERY_SUFFIXES, SCHEMA_SUFFIXES
from schemac.semantics.library import Options
from schemac.diagnostics import CompileError, Diagnostic, Reporter, Span
from schemac.lsp import deps
from schemac.lsp.index import SymbolIndex
from schemac.migrate.history import is_history_path
from schemac.semantics.migration_hints import resolve_hints
from schemac.semantics.model import Schema
from schemac.syntax.parser import parse_query, parse_schema
from schemac.semantics.queries import QueryPlan, plan_query
from schemac.semantics.resolve import build_schema, extern_file

DEFAULT_SOURCES = tuple(f"*{s}" for s in SCHEMA_SUFFIXES) + tuple(f"*{s}" for s in QUERY_SUFFIXES) + tuple(
    f"queries/*{s}" for s in QUERY_SUFFIXES) + tuple(f"dbschema/*{s}" for s in SCHEMA_SUFFIXES)


def is_schema_path(path: str) -> bool:
    return path.endswith(SCHEMA_SUFFIXES)


def is_query_path(path: str) -> bool:
    return path.endswith(QUERY_SUFFIXES)


def file_kind(path: str) -> Optional[str]:
    if is_schema_path(path):
        return "schema"
    if is_query_path(path):
        return "query"
    return None


# ---------------------------------------------------------------------------------------------
# Libraries


@dataclass(frozen=True)
class LibraryConfig:
    """One library: its folder, name, source globs (relative to the folder), compile options
    and dependencies (their configs)."""

    root: str
    name: str
    sources: Tuple[str, ...] = DEFAULT_SOURCES
    options: Tuple[Tuple[str, str], ...] = ()
    dependencies: Tuple["LibraryConfig", ...] = ()

    def files(self, overlay: Mapping[str, str] = {}) -> List[str]:
        """Absolute paths of the library's schema and query files, on disk and open."""
        out = set()
        for pattern in self.sources:
            for p in glob.glob(os.path.join(self.root, pattern), recursive=True):
                if os.path.isfile(p) and file_kind(p):
                    out.add(os.path.abspath(p))
        for p in overlay:
            if file_kind(p) and self.owns(p):
                out.add(p)
        return sorted(out)

    def owns(self, path: str) -> bool:
        rel = os.path.relpath(path, self.root)
        if rel.startswith(".."):
            return False
        rel = rel.replace(os.sep, "/")
        return any(_glob_regex(pat).match(rel) for pat in self.sources)

    def compile_options(self) -> Options:
        opts = dict(self.options)
        go_package = opts.get("go_package")
        kw = {k: opts[k] for k in ("ts_module", "ts_int64", "go_driver") if k in opts}
        return Options(library=self.name, go_package=go_package, **kw)


@functools.lru_cache(maxsize=None)
def _glob_regex(pattern: str) -> "re.Pattern[str]":
    """A Pants source glob as a regular expression over a path relative to the BUILD file's
    folder: ``*`` and ``?`` stay within one folder, ``**`` spans any number of folders (also
    none: ``dbschema/**/*.gel`` matches ``dbschema/default.gel`` and ``dbschema/core/types.gel``)."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            j = pattern.find("]", i + 1)
            if j < 0:
                out.append(re.escape(pattern[i]))
                i += 1
            else:
                out.append("[" + pattern[i + 1:j].replace("!", "^", 1 if pattern[i + 1:i + 2] == "!" else 0) + "]")
                i = j + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _build_root(start: str) -> Optional[str]:
    d = start
    while True:
        if os.path.exists(os.path.join(d, "pants.toml")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _read_build(directory: str) -> List[Dict[str, object]]:
    """The ``schema_library(...)`` calls of ``directory/BUILD``, their literal arguments (read
    with :mod:`ast`, never executed)."""
    for name in ("BUILD", "BUILD.pants"):
        path = os.path.join(directory, name)
        try:
            with open(path, encoding="utf-8") as f:
                tree = pyast.parse(f.read(), path)
        except (OSError, SyntaxError, ValueError):
            continue
        out = []
        for node in pyast.walk(tree):
            if isinstance(node, pyast.Call) and isinstance(node.func, pyast.Name) and node.func.id == "schema_library":
                args: Dict[str, object] = {}
                for kw in node.keywords:
                    if kw.arg is None:
                        continue
                    try:
                        args[kw.arg] = pyast.literal_eval(kw.value)
                    except ValueError:
                        pass
                out.append(args)
        return out
    return []


def _has_schema_files(directory: str) -> bool:
    try:
        return any(is_schema_path(n) for n in os.listdir(directory))
    except OSError:
        return False


def _config_from_build(directory: str, args: Dict[str, object], seen: Tuple[str, ...] = ()) -> LibraryConfig:
    name = str(args.get("name") or os.path.basename(directory))
    sources = args.get("sources")
    globs = tuple(s for s in sources if isinstance(s, str) and not s.startswith("!")) if isinstance(
        sources, (list, tuple)) else DEFAULT_SOURCES
    options = tuple((k, str(args[k])) for k in ("go_package", "ts_module", "ts_int64", "go_driver") if k in args)
    deps: List[LibraryConfig] = []
    root = _build_root(directory) or directory
    for dep in args.get("dependencies") or ():
        if not isinstance(dep, str):
            continue
        addr = dep[2:] if dep.startswith("//") else dep
        path_part, _, target = addr.partition(":")
        dep_dir = os.path.join(root, path_part) if path_part else directory
        if dep_dir in seen or os.path.abspath(dep_dir) == os.path.abspath(directory):
            continue
        for a in _read_build(dep_dir):
            if not target or str(a.get("name") or os.path.basename(dep_dir)) == target:
                deps.append(_config_from_build(dep_dir, a, seen + (directory,)))
                break
    return LibraryConfig(os.path.abspath(directory), name, globs, options, tuple(deps))


def find_library(path: str) -> Optional[LibraryConfig]:
    """The library ``path`` (an absolute schema or query file path) belongs to."""
    path = os.path.abspath(path)
    d = os.path.dirname(path)
    first = d
    # A BUILD file whose sources match the file wins wherever it is above it (its globs may
    # reach into sub-folders: `sources=["dbschema/**/*.gel"]` with `dbschema/core/types.gel`),
    # as for Pants; without one, the nearest folder with schema files that owns it.
    nearest: Optional[LibraryConfig] = None
    while True:
        for args in _read_build(d):
            cfg = _config_from_build(d, args)
            if cfg.owns(path):
                return cfg
        if nearest is None and _has_schema_files(d):
            cfg = LibraryConfig(d, os.path.basename(d))
            if cfg.owns(path) or d == first:
                nearest = cfg
        parent = os.path.dirname(d)
        if parent == d or os.path.exists(os.path.join(d, "pants.toml")):
            break
        d = parent
    # A lone file (no schema anywhere above): a library of its folder.
    return nearest or LibraryConfig(first, os.path.basename(first))


# ---------------------------------------------------------------------------------------------
# Analysis


@dataclass
class ParsedFile:
    path: str
    text: str
    kind: str
    tree: Optional[object]  # ast.SchemaFile / ast.QueryFile, None when it does not parse
    errors: List[Diagnostic]


@dataclass
class Analysis:
    """The result of analysing one library at one point in time."""

    config: LibraryConfig
    texts: Dict[str, str]
    files: Dict[str, ParsedFile]
    schema: Schema
    schema_ok: bool
    index: SymbolIndex
    plans: Dict[str, QueryPlan]
    diagnostics: List[Diagnostic]
    #: Schema files of the dependency libraries: path -> library name.
    externs: Dict[str, str] = field(default_factory=dict)
    generation: int = 0
    #: Queries not checked yet against this schema (:meth:`Analyzer.check`), most visible first.
    pending: List[str] = field(default_factory=list)
    _queries: Dict[str, object] = field(default_factory=dict, repr=False)
    _state: object = field(default=None, repr=False)

    def diagnostics_by_file(self) -> Dict[str, List[Diagnostic]]:
        out: Dict[str, List[Diagnostic]] = {p: [] for p in self.texts}
        for d in self.diagnostics:
            if d.span is not None:
                out.setdefault(d.span.file, []).append(d)
        return out


def _read(path: str) -> Optional[str]:
    """The text of a file on disk (UTF-8, without a byte order mark), or ``None``."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return text[1:] if text.startswith("\ufeff") else text


def _stat_key(path: str) -> Optional[Tuple[int, int]]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


#: Without file events from the client, how often (seconds) the files on disk are checked again.
REVALIDATE_S = 5.0


class Disk:
    """The libraries' files on disk as the language server last saw them: each library's file
    list (its source globs) and each file's text, read once and kept until the editor says the
    file changed (``workspace/didChangeWatchedFiles``, ``didSave``, ``didOpen``, ``didClose``:
    :meth:`invalidate`). An edit of a 2,000-file library then reads nothing from disk (it used
    to list the folders and stat every file: ~4,000 system calls per edit).

    A client that sends no file events (:attr:`events` false) gets the files checked again
    (listed, and each stat-ed: read again when its size or modification time changed) at most
    every :data:`REVALIDATE_S` seconds."""

    def __init__(self) -> None:
        self.events = False
        self._texts: Dict[str, Tuple[Optional[Tuple[int, int]], Optional[str]]] = {}
        self._listings: Dict[Tuple[str, Tuple[str, ...]], List[str]] = {}
        self._checked = time.monotonic()
        #: system calls made, for tests: files read, folders listed
        self.reads = 0
        self.listed = 0

    def read(self, path: str) -> Optional[str]:
        self._maybe_revalidate()
        hit = self._texts.get(path)
        if hit is not None:
            return hit[1]
        self.reads += 1
        key = None if self.events else _stat_key(path)
        text = _read(path)
        self._texts[path] = (key, text)
        return text

    def files(self, config: LibraryConfig, overlay: Mapping[str, str]) -> List[str]:
        """``config.files(overlay)``, the folder listing kept."""
        self._maybe_revalidate()
        key = (config.root, config.sources)
        listing = self._listings.get(key)
        if listing is None:
            self.listed += 1
            listing = self._listings[key] = config.files({})
        extra = [p for p in overlay if p not in listing and file_kind(p) and config.owns(p)]
        return sorted(listing + extra) if extra else listing

    def invalidate(self, path: Optional[str] = None, listing: bool = False) -> None:
        """Forget ``path``'s text (every file's when ``None``); ``listing``: and the file lists
        (a file was created or deleted)."""
        if path is None:
            self._texts.clear()
        else:
            self._texts.pop(path, None)
        if listing or path is None:
            self._listings.clear()

    def _maybe_revalidate(self) -> None:
        if self.events:
            return
        now = time.monotonic()
        if now - self._checked < REVALIDATE_S:
            return
        self._checked = now
        self._listings.clear()
        for path, (key, _) in list(self._texts.items()):
            if _stat_key(path) != key:
                del self._texts[path]


@dataclass
class _SchemaState:
    """The last schema built for one library: its key (the parses it was built from), the
    schema, its diagnostics, its declarations (:func:`schemac.lsp.deps.fingerprint`) and a
    version, bumped at every rebuild, with the names each rebuild changed (``None``: all)."""

    key: tuple
    schema: Schema
    diagnostics: List[Diagnostic]
    keep: object
    fingerprint: Optional[deps.Fingerprint]
    ok: bool
    version: int
    log: Dict[int, Optional[deps.Changes]] = field(default_factory=dict)


#: Schema versions whose changed names are kept: a query checked longer ago is checked again.
LOG_VERSIONS = 64


@dataclass
class _Checked:
    """One query's last check: against which schema version, with what result."""

    tree: object
    root: str
    version: int
    plan: Optional[QueryPlan]
    diagnostics: List[Diagnostic]


class Analyzer:
    """Analyses libraries, reusing parses and plans between calls.

    A query is checked again when its text changed, or when a schema edit changed a name it
    writes (:mod:`schemac.lsp.deps`; with diagnostics or a splat: any schema edit). Queries to
    check again that are not in ``priority`` (the open documents) can be left for later
    (``defer``): the analysis lists them in :attr:`Analysis.pending`, and :meth:`check` checks
    them one by one (the server does it in the background, between requests)."""

    def __init__(self) -> None:
        self._parsed: Dict[Tuple[str, str], ParsedFile] = {}  # (path, kind) -> last parse
        self._good: Dict[str, ast.SchemaFile] = {}  # path -> last good parse of a schema file
        self._plans: Dict[str, _Checked] = {}
        self._schemas: Dict[str, _SchemaState] = {}  # library root -> its last schema
        self._index_cache: Optional[tuple] = None
        self.disk = Disk()
        self.generation = 0
        #: queries checked (plan_query calls), for tests and the benchmark
        self.checks = 0

    def parse(self, path: str, text: str, kind: str) -> ParsedFile:
        key = (path, kind)
        old = self._parsed.get(key)
        if old is not None and old.text == text:
            return old
        tree: Optional[object] = None
        errors: List[Diagnostic] = []
        try:
            if kind in ("schema", "extern"):
                tree = parse_schema(path, text)
            else:
                name = posixpath.basename(path.replace(os.sep, "/")).rsplit(".", 1)[0]
                tree = parse_query(path, text, name)
        except CompileError as e:
            errors = list(e.diagnostics)
        except RecursionError:
            errors = [Diagnostic("E0103", "an expression is nested too deeply to compile", Span.point(path, 1, 1))]
        pf = ParsedFile(path, text, kind, tree, errors)
        self._parsed[key] = pf
        if kind in ("schema", "extern") and tree is not None:
            self._good[path] = tree  # type: ignore[assignment]
        elif kind in ("schema", "extern") and path not in self._good:
            # Opened mid-edit, never parsed here: the file as saved stands in for the symbol index.
            saved = self.disk.read(path)
            if saved is not None and saved != text:
                try:
                    self._good[path] = parse_schema(path, saved)
                except (CompileError, RecursionError):
                    pass
        return pf

    def analyse(self, config: LibraryConfig, overlay: Mapping[str, str], priority: Iterable[str] = (),
                defer: bool = False) -> Analysis:
        """Analyse ``config`` with ``overlay`` (``{absolute path: text}`` of open documents).

        The cyclic garbage collector is off while it runs (as in the compiler: the syntax trees
        are millions of small objects that all stay alive)."""
        import gc

        enabled = gc.isenabled()
        gc.disable()
        try:
            return self._analyse(config, overlay, set(priority), defer)
        finally:
            if enabled:
                gc.enable()

    def _analyse(self, config: LibraryConfig, overlay: Mapping[str, str], priority: Set[str],
                 defer: bool) -> Analysis:
        self.generation += 1
        texts: Dict[str, str] = {}
        for p in self.disk.files(config, overlay):
            t = overlay.get(p)
            if t is None:
                t = self.disk.read(p)
            if t is not None:
                texts[p] = t
        externs: Dict[str, str] = {}
        for dep in _all_dependencies(config):
            for p in self.disk.files(dep, overlay):
                if is_schema_path(p):
                    t = overlay.get(p)
                    if t is None:
                        t = self.disk.read(p)
                    if t is not None:
                        texts[p] = t
                        externs[p] = dep.name
        reporter = Reporter()
        files: Dict[str, ParsedFile] = {}
        schema_files: List[ast.SchemaFile] = []
        external: List[Tuple[str, ast.SchemaFile]] = []
        query_files: List[ast.QueryFile] = []
        schema_errors = False
        for path in sorted(texts):
            if is_history_path(path.replace(os.sep, "/")):
                continue
            kind = "extern" if path in externs else file_kind(path)
            pf = self.parse(path, texts[path], kind or "schema")
            files[path] = pf
            reporter.diagnostics.extend(pf.errors)
            if pf.tree is None:
                if kind != "query":
                    schema_errors = True
                continue
            if kind == "extern":
                external.append((externs[path], pf.tree))  # type: ignore[arg-type]
            elif kind == "schema":
                schema_files.append(pf.tree)  # type: ignore[arg-type]
            else:
                query_files.append(pf.tree)  # type: ignore[arg-type]
        if not schema_files and not schema_errors:
            reporter.error("E0201", "the library has no schema file", None, "add a *.esdl or *.gel file")
        # The schema (and its diagnostics) only changes with the schema files.
        key = tuple(id(f) for f in schema_files) + ("|",) + tuple((lib, id(f)) for lib, f in external) + (
            "|", schema_errors)
        state = self._schemas.get(config.root)
        if state is not None and state.key == key:
            schema, schema_diags = state.schema, state.diagnostics
        else:
            sub = Reporter()
            schema = build_schema(schema_files, sub, external)
            if not sub.has_errors and not schema_errors:
                hints = resolve_hints(schema_files, schema, sub)
                if not sub.has_errors:
                    sub.diagnostics.extend(migration_diagnostics(config, schema, hints, self.disk.read))
            schema_diags = list(sub.diagnostics)
            ok = not schema_errors and not any(d.severity == "error" for d in schema_diags)
            fp = deps.fingerprint([f for _, f in external] + schema_files, texts) if ok else None
            version = state.version + 1 if state is not None else 1
            log = dict(state.log) if state is not None else {}
            log[version] = deps.changed_names(state.fingerprint, fp) if (
                state is not None and state.fingerprint is not None and fp is not None) else None
            for v in [v for v in log if v <= version - LOG_VERSIONS]:
                del log[v]
            state = _SchemaState(key, schema, schema_diags, (schema_files, external), fp, ok, version, log)
            self._schemas[config.root] = state
        reporter.diagnostics.extend(schema_diags)
        schema_ok = state.ok
        plans: Dict[str, QueryPlan] = {}
        names: Dict[str, str] = {}
        pending: List[str] = []
        query_trees: Dict[str, ast.QueryFile] = {}
        for qf in sorted(query_files, key=lambda q: q.name):
            if qf.name in names:
                reporter.error("E0200", f"query '{qf.name}' is defined twice (also in {names[qf.name]})",
                               Span.point(qf.path, 1, 1))
                continue
            names[qf.name] = qf.path
            if not schema_ok:
                continue
            query_trees[qf.path] = qf
            checked = self._fresh(qf, config.root, state, texts.get(qf.path, ""))
            if checked is None:
                if defer and qf.path not in priority:
                    pending.append(qf.path)
                    continue
                checked = self._check(qf, config.root, state)
            reporter.diagnostics.extend(checked.diagnostics)
            if checked.plan is not None:
                plans[qf.path] = checked.plan
        # The symbol index: the last good parse of every schema file still in the library.
        good = [self._good[p] for p in sorted(texts) if p in self._good and p not in externs and is_schema_path(p)]
        ext_modules: Dict[str, Tuple[str, str]] = {}
        good_ext = [extern_file(self._good[p], externs[p], ext_modules) for p in sorted(externs) if p in self._good]
        index_key = tuple(id(f) for f in good) + ("|",) + tuple(
            (externs[p], id(self._good[p])) for p in sorted(externs) if p in self._good)
        if self._index_cache is not None and self._index_cache[0] == index_key:
            index = self._index_cache[1]
        else:
            index = SymbolIndex.build(good + good_ext, texts)
            index.set_libraries({m: lib for m, (lib, _) in ext_modules.items()})
            self._index_cache = (index_key, index, good, good_ext)
        diagnostics = _dedupe(reporter.diagnostics)
        a = Analysis(config, texts, files, schema, schema_ok, index, plans, diagnostics, externs, self.generation)
        a.pending = pending
        a._queries = {p: query_trees[p] for p in pending}
        a._state = state
        self._forget(texts)
        return a

    def _fresh(self, qf: ast.QueryFile, root: str, state: _SchemaState, text: str) -> Optional[_Checked]:
        """The last check of ``qf`` when it still holds against ``state``'s schema, else ``None``."""
        c = self._plans.get(qf.path)
        if c is None or c.tree is not qf or c.root != root:
            return None
        if c.version == state.version:
            return c
        if c.diagnostics or c.version <= state.version - LOG_VERSIONS:
            return None
        for v in range(c.version + 1, state.version + 1):
            changes = state.log.get(v)
            if changes is None or deps.affected(text, changes):
                return None
        c.version = state.version
        return c

    def _check(self, qf: ast.QueryFile, root: str, state: _SchemaState) -> _Checked:
        sub = Reporter()
        self.checks += 1
        try:
            plan = plan_query(state.schema, qf, sub)
        except RecursionError:
            plan = None
            sub.error("E0103", "an expression is nested too deeply to compile", Span.point(qf.path, 1, 1))
        c = _Checked(qf, root, state.version, plan, list(sub.diagnostics))
        self._plans[qf.path] = c
        return c

    def check(self, analysis: Analysis, path: str) -> bool:
        """Check the pending query ``path`` of ``analysis`` now (adding its plan and diagnostics
        to the analysis); whether it was pending."""
        if path not in analysis.pending:
            return False
        analysis.pending.remove(path)
        qf = analysis._queries.pop(path)
        state = analysis._state
        c = self._fresh(qf, analysis.config.root, state, analysis.texts.get(path, ""))
        if c is None:
            import gc

            enabled = gc.isenabled()
            gc.disable()
            try:
                c = self._check(qf, analysis.config.root, state)
            finally:
                if enabled:
                    gc.enable()
        seen = set(analysis.diagnostics)
        analysis.diagnostics.extend(d for d in _dedupe(c.diagnostics) if d not in seen)
        if c.plan is not None:
            analysis.plans[path] = c.plan
        return True

    def forget_schema(self, root: str) -> None:
        """Build ``root``'s schema again at the next analysis (its migration snapshot changed)."""
        state = self._schemas.get(root)
        if state is not None:
            state.key = ()

    def _forget(self, texts: Mapping[str, str]) -> None:
        """Drop what belongs to files that are gone (parses, plans), so that memory stays flat
        while files come and go."""
        if len(self._parsed) > 2 * max(len(texts), 64):
            live = set(texts)
            for k in [k for k in self._parsed if k[0] not in live]:
                del self._parsed[k]
            for p in [p for p in self._plans if p not in live]:
                del self._plans[p]


def migration_diagnostics(config: LibraryConfig, schema: Schema, hints, read=_read) -> List[Diagnostic]:
    """What the next migration of the library would refuse (E0402 a destructive change without
    a drop hint, E0403 a type change without a cast hint, a required property without a fill
    value, ...), diffing the schema against the last migration (``migrations/snapshot.json``), as
    warnings at the declarations they are about: `generate-migrations` stops on them, so the
    editor tells before. Their hints name the `migration { ... }` statement to add (a quick fix
    adds it). Nothing when the library has no snapshot."""
    from schemac.migrate.catalog import SnapshotError, catalog_of, dump_snapshot, load_snapshot
    from schemac.migrate.diff import diff, locations_of

    snapshot = read(os.path.join(config.root, "migrations", "snapshot.json"))
    if snapshot is None:
        return []
    try:
        old = load_snapshot(snapshot)
        current = catalog_of(schema)
        if dump_snapshot(current) == snapshot:
            return []
        plan = diff(old, current, hints, locations=locations_of(schema))
    except (SnapshotError, ValueError, KeyError):
        return []
    out = []
    for d in plan.errors:
        out.append(Diagnostic(d.code, f"the next migration refuses this: {d.message}", d.span, d.hint,
                              severity="warning"))
    for d in plan.lints:  # e.g. a required property without a fill value for the existing rows
        if d.hint and ("`fill " in d.hint or "`map member " in d.hint):
            out.append(Diagnostic(d.code, f"the next migration: {d.message}", d.span or _fill_span(schema, d.hint),
                                  d.hint, severity="warning"))
    return out


def _fill_span(schema: Schema, hint: str):
    """The declaration of the property a ``fill Type.property`` hint names."""
    import re

    m = re.search(r"`fill ([A-Za-z_][\w:]*)\.(\w+)", hint)
    if not m:
        return None
    t = schema.find_type(m.group(1))
    col = t.column(m.group(2)) if t is not None else None
    if col is None and t is not None:
        col = next((c for c in t.columns if c.link == m.group(2)), None)
    return col.span if col is not None else None


def _dedupe(diags: List[Diagnostic]) -> List[Diagnostic]:
    seen = set()
    out = []
    for d in diags:
        if d not in seen:
            seen.add(d)
            out.append(d)
    return out


def _all_dependencies(config: LibraryConfig) -> List[LibraryConfig]:
    out: List[LibraryConfig] = []
    stack = list(config.dependencies)
    while stack:
        d = stack.pop(0)
        if d.root in [x.root for x in out] or d.root == config.root:
            continue
        out.append(d)
        stack.extend(d.dependencies)
    return out


_SKIP_DIRS = {"node_modules", "dist", "__pycache__", "migrations"}


def discover_libraries(root: str, limit: int = 200) -> List[LibraryConfig]:
    """The libraries under ``root`` (folders with schema files), for workspace symbols."""
    out: Dict[str, LibraryConfig] = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith(".") and x not in _SKIP_DIRS)
        schema = sorted(f for f in files if is_schema_path(f))
        if schema:
            cfg = find_library(os.path.join(d, schema[0]))
            if cfg is not None and cfg.root not in out:
                out[cfg.root] = cfg
                if len(out) >= limit:
                    break
    return list(out.values())
