"""The compiler pipeline: source texts -> output files. Pure function of its inputs.

``compile_library`` parses every schema file (``*.esdl``, or ``*.gel`` as Gel 6 names them:
https://docs.geldata.com/reference/datamodel) and query file (``*.edgeql``),
resolves the schema, plans each query, and renders SQL, TypeScript and Go. Output paths are
relative (``sql/...``, ``ts/...``, ``go/...``) and the content is byte-for-byte deterministic:
sorted inputs, no timestamps, no absolute paths.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import posixpath
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Tuple

from lark.exceptions import VisitError

from schemac import syntax as ast
from schemac.diagnostics import CompileError, Diagnostic, Reporter, Span
from schemac.parser import parse_query, parse_schema
from schemac.queries import QueryPlan, plan_query, query_name
from schemac.resolve import build_schema
from schemac.model import Schema
from schemac.migrate.history import History, is_history_path
from schemac.migrate.hints import Hints, resolve_hints

if TYPE_CHECKING:
    from schemac.constraint_errors import ConstraintError
    from schemac.naming import Names

SCHEMA_SUFFIXES = (".esdl", ".gel")
QUERY_SUFFIXES = (".edgeql",)
TS_MODULE_FORMATS = ("esm", "commonjs")
#: ``int64`` in TypeScript: ``string`` (node-postgres' own representation) or ``bigint``.
TS_INT64_MODES = ("string", "bigint")
#: The Go driver the generated runner is written for.
GO_DRIVERS = ("pgx", "database/sql")

_GO_IDENT = re.compile(r"^[a-z][a-z0-9]*$")
#: What a library name may not hold: it is written between double quotes in every generated
#: file's header comment (SQL ``--``, Go ``//``, TS ``//`` and ``/** */``).
_BAD_LIBRARY_NAME = re.compile(r'["\\\x00-\x1f\x7f-\x9f\u2028\u2029]|\*/')


@dataclass(frozen=True)
class Options:
    """Compile options. ``library``: the library name (its directory name). ``go_package``:
    Go package name (default: ``library`` lower-cased, non-alphanumerics dropped).
    ``ts_module``: ``esm`` (relative imports end in ``.js``) or ``commonjs``. ``ts_int64``:
    ``string`` (results as node-postgres returns ``int8``) or ``bigint`` (the runner converts
    them with ``BigInt()``). ``go_driver``: ``pgx`` (pgx v5's native interface) or
    ``database/sql`` (for pgx's ``stdlib`` driver)."""

    library: str
    go_package: Optional[str] = None
    ts_module: str = "esm"
    ts_int64: str = "string"
    go_driver: str = "pgx"
    #: Schema files of the libraries this one depends on: ``(path, library name)``; ``path``
    #: is a key of the sources. Their types are linked to as ``<library>::Type``; their tables
    #: are not created (see :func:`schemac.resolve.build_schema`).
    externs: Tuple[Tuple[str, str], ...] = ()

    @property
    def go_package_name(self) -> str:
        """``go_package``, or one made of the library name: lower-cased, non-alphanumerics
        dropped, ``db`` appended to a Go keyword or ``main`` (library ``type`` -> ``typedb``)."""
        if self.go_package:
            return self.go_package
        from schemac.naming import GO_KEYWORDS

        name = re.sub(r"[^a-z0-9]", "", self.library.lower()) or "schema"
        return name + "db" if name in GO_KEYWORDS or name == "main" else name


@dataclass(frozen=True)
class Library:
    """A compiled library: the schema model and the plans of its queries (sorted by name)."""

    options: Options
    schema: Schema
    queries: List[QueryPlan]
    warnings: List[Diagnostic]
    #: The ``migration { ... }`` hints, resolved (see :mod:`schemac.migrate.hints`).
    hints: Hints = field(default_factory=Hints)
    #: The committed migration history among the sources, if any.
    history: Optional[History] = None

    @functools.cached_property
    def constraint_errors(self) -> "List[ConstraintError]":
        """Every named constraint of the schema and how its violation is described (see
        :mod:`schemac.constraint_errors`), computed once: the TypeScript and Go back ends both
        read it. (A frozen dataclass: ``cached_property`` stores into the instance dict.)"""
        from schemac.constraint_errors import constraint_errors

        return constraint_errors(self.schema)

    @functools.cached_property
    def names(self) -> "Names":
        """Every identifier of the generated TypeScript and Go (see :mod:`schemac.naming`).
        :func:`check_library` has already reported its collisions."""
        from schemac.naming import build_names

        return build_names(self, Reporter())


def check_library(sources: Mapping[str, str], options: Options) -> Library:
    """Parse and check ``sources`` (``{path: text}``; paths as they should appear in
    diagnostics). Raises :class:`CompileError` with every diagnostic found. Expressions too deep
    to compile are reported as ``E0103`` at their location by :func:`schemac.exprs.lower`; a
    ``RecursionError`` anywhere else is still turned into an (unlocated) ``E0103``."""
    with _no_cyclic_gc():
        return _checked(sources, options, None)


@contextlib.contextmanager
def _no_cyclic_gc():
    """The front end allocates millions of small objects that all live until the end of the
    compile; the cyclic garbage collector would only rescan them again and again. (Reference
    counting still frees everything that is dropped.)"""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _checked(sources: Mapping[str, str], options: Options, retain: Optional[List[object]]) -> Library:
    try:
        return _check_library(sources, options, retain)
    except RecursionError:
        raise CompileError([Diagnostic("E0103", "an expression is nested too deeply to compile", None,
                                       "split long chains of operators, e.g. use 'in {...}' instead of many 'or'")])
    except VisitError as e:
        if isinstance(e.orig_exc, RecursionError):
            raise CompileError([Diagnostic("E0103", "an expression is nested too deeply to compile", None,
                                           "split long chains of operators, e.g. use 'in {...}' instead of many 'or'")])
        raise


def _check_library(sources: Mapping[str, str], options: Options, retain: Optional[List[object]]) -> Library:
    reporter = Reporter()
    if options.ts_module not in TS_MODULE_FORMATS:
        reporter.error("E0206", f"unknown TypeScript module format {options.ts_module!r}", None,
                       "use 'esm' or 'commonjs'")
    if options.ts_int64 not in TS_INT64_MODES:
        reporter.error("E0206", f"unknown TypeScript int64 mapping {options.ts_int64!r}", None,
                       "use 'string' or 'bigint'")
    if options.go_driver not in GO_DRIVERS:
        reporter.error("E0206", f"unknown Go driver {options.go_driver!r}", None,
                       "use 'pgx' or 'database/sql'")
    from schemac.naming import GO_KEYWORDS

    if not _GO_IDENT.match(options.go_package_name) or options.go_package_name in GO_KEYWORDS | {"main"}:
        reporter.error("E0308", f"Go package name {options.go_package_name!r} is not a valid package name", None,
                       "use lower-case letters and digits that are not a Go keyword (or 'main'), e.g. 'jobsdb'")
    if _BAD_LIBRARY_NAME.search(options.library):
        reporter.error("E0308", f"library name {options.library!r} cannot be written into generated file headers",
                       None, "use a name without quotes, backslashes, '*/' or control characters")
    schema_files: List[ast.SchemaFile] = []
    query_files: List[ast.QueryFile] = []
    extern_libs = dict(options.externs)
    external: List[Tuple[str, ast.SchemaFile]] = []
    #: A schema file that does not parse: its declarations are missing, so checking the others
    #: would invent errors (unknown types and modules, abstract types without subtypes).
    unparsed_schema = False
    for path in sorted(sources):
        text = sources[path]
        if is_history_path(path):
            continue
        if path in extern_libs:
            try:
                external.append((extern_libs[path], parse_schema(path, text)))
            except CompileError as e:
                reporter.diagnostics.extend(e.diagnostics)
                unparsed_schema = True
            continue
        try:
            if path.endswith(SCHEMA_SUFFIXES):
                schema_files.append(parse_schema(path, text))
            elif path.endswith(QUERY_SUFFIXES):
                name = query_name(posixpath.basename(path).rsplit(".", 1)[0])
                query_files.append(parse_query(path, text, name))
            else:
                reporter.error("E0206", f"unknown source file type: {path}", Span.point(path, 1, 1),
                               "schema files end in .esdl or .gel, query files in .edgeql")
        except CompileError as e:
            reporter.diagnostics.extend(e.diagnostics)
            unparsed_schema = unparsed_schema or path.endswith(SCHEMA_SUFFIXES)
    if not schema_files and not reporter.has_errors:
        reporter.error("E0201", "the library has no schema file", None, "add a *.esdl or *.gel file")
    if unparsed_schema:
        # Report what the files say (syntax errors, and those of the query files) and stop, as
        # for queries against a schema with errors.
        reporter.check()
    schema = build_schema(schema_files, reporter, external)
    # Queries are checked against a schema without errors only: otherwise a typo in the schema
    # would come back as misleading errors in every query that uses the broken declaration.
    schema_ok = not reporter.has_errors
    hints = resolve_hints(schema_files, schema, reporter) if schema_ok else Hints()
    names: Dict[str, str] = {}
    plans: List[QueryPlan] = []
    for qf in sorted(query_files, key=lambda q: q.name):
        if qf.name in names:
            reporter.error("E0200", f"query '{qf.name}' is defined twice (also in {names[qf.name]})",
                           Span.point(qf.path, 1, 1),
                           "get_user.edgeql, get-user.edgeql and getUser.edgeql all name the query getUser: "
                           "rename or remove one")
            continue
        names[qf.name] = qf.path
        if not schema_ok:
            continue
        plan = plan_query(schema, qf, reporter)
        if plan is not None:
            plans.append(plan)
    if retain is not None:
        retain.append((schema_files, query_files, external))
    checked = None
    if not reporter.has_errors:
        # The generated names are chosen now, so that their collisions are reported with the
        # other errors (E0213); the library keeps them (and the constraint errors they used).
        from schemac.naming import build_names

        checked = Library(options, schema, plans, [], hints)
        build_names_result = build_names(checked, reporter)
    reporter.check()
    lib = Library(options, schema, plans, [d for d in reporter.diagnostics if d.severity != "error"], hints,
                  History.from_sources(sources))
    if checked is not None:
        lib.__dict__["names"] = build_names_result
        lib.__dict__["constraint_errors"] = checked.constraint_errors
    return lib


def compile_library(sources: Mapping[str, str], options: Options,
                    warnings: Optional[List[Diagnostic]] = None, *,
                    retain: Optional[List[object]] = None) -> Dict[str, str]:
    """Compile a library: ``{relative output path: text}`` for ``sql/``, ``ts/`` and ``go/``.

    Warnings are appended to ``warnings`` when given. Raises :class:`CompileError` (with every
    diagnostic) on bad input. ``retain``: when given, the syntax trees and the compiled
    :class:`Library` are appended to it, so they stay alive as long as the list does (the
    command line keeps them until the process exits rather than freeing them object by
    object)."""
    with _no_cyclic_gc():
        return _compile(sources, options, warnings, retain)


def _compile(sources: Mapping[str, str], options: Options, warnings: Optional[List[Diagnostic]],
             retain: Optional[List[object]]) -> Dict[str, str]:
    from schemac import gogen, sqlgen, tsgen

    lib = _checked(sources, options, retain)
    if retain is not None:
        retain.append(lib)
    if warnings is not None:
        warnings.extend(lib.warnings)
    out: Dict[str, str] = {}
    for name, text in sqlgen.render_sql(lib).items():
        out[f"sql/{name}"] = text
    for name, text in tsgen.render_typescript(lib).items():
        out[f"ts/{name}"] = text
    for name, text in gogen.render_go(lib).items():
        out[f"go/{name}"] = text
    return dict(sorted(out.items()))
