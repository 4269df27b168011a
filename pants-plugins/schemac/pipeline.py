"""The compiler pipeline: source texts -> output files. Pure function of its inputs.

``compile_library`` parses every schema file (``*.esdl``, or ``*.gel`` as Gel 6 names them:
https://docs.geldata.com/reference/datamodel) and query file (``*.edgeql``),
resolves the schema, plans each query, and renders SQL, TypeScript and Go. Output paths are
relative (``sql/...``, ``ts/...``, ``go/...``) and the content is byte-for-byte deterministic:
sorted inputs, no timestamps, no absolute paths.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from typing import Dict, List, Mapping, Optional, Tuple

from lark.exceptions import VisitError

from schemac.syntax import tree as ast
from schemac.diagnostics import CompileError, Diagnostic, Reporter, Span
from schemac.syntax.parser import parse_query, parse_schema
from schemac.semantics.queries import QueryPlan, plan_query, query_name
from schemac.semantics.resolve import build_schema
from schemac.migrate.history import History, is_history_path
from schemac.semantics.migration_hints import Hints, resolve_hints
from schemac.semantics.library import Options, Library


SCHEMA_SUFFIXES = (".esdl", ".gel")
QUERY_SUFFIXES = (".edgeql",)
TS_MODULE_FORMATS = ("esm", "commonjs")
#: ``int64`` in TypeScript: ``string`` (node-postgres' own representation) or ``bigint``.
TS_INT64_MODES = ("string", "bigint")
#: The Go driver the generated runner is written for.
GO_DRIVERS = ("pgx", "database/sql")

#: A Go package name: an identifier (https://go.dev/ref/spec#Package_clause: `library_loans` and
#: `Jobs` are valid, `go vet` accepts them), not the blank identifier, a keyword or `main`.
_GO_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: What a library name may not hold: it is written between double quotes in every generated
#: file's header comment (SQL ``--``, Go ``//``, TS ``//`` and ``/** */``).
_BAD_LIBRARY_NAME = re.compile(r'["\\\x00-\x1f\x7f-\x9f\u2028\u2029]|\*/')


def check_library(sources: Mapping[str, str], options: Options) -> Library:
    """Parse and check ``sources`` (``{path: text}``; paths as they should appear in
    diagnostics). Raises :class:`CompileError` with every diagnostic found. Expressions too deep
    to compile are reported as ``E0103`` at their location by :func:`schemac.semantics.exprs.lower`; a
    ``RecursionError`` anywhere else is still turned into an (unlocated) ``E0103``."""
    try:
        return _check_library(sources, options)
    except RecursionError:
        raise CompileError([Diagnostic("E0103", "an expression is nested too deeply to compile", None,
                                       "split long chains of operators, e.g. use 'in {...}' instead of many 'or'")])
    except VisitError as e:
        if isinstance(e.orig_exc, RecursionError):
            raise CompileError([Diagnostic("E0103", "an expression is nested too deeply to compile", None,
                                           "split long chains of operators, e.g. use 'in {...}' instead of many 'or'")])
        raise


def _check_library(sources: Mapping[str, str], options: Options) -> Library:
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
    from schemac.semantics.naming import GO_KEYWORDS

    go_package = options.go_package_name
    if not _GO_IDENT.match(go_package) or go_package in GO_KEYWORDS | {"main", "_"}:
        origin = ("the `go_package` field of the schema_library (`--go-package` on the command line)"
                  if options.go_package else f"derived from the library name {options.library!r}")
        reporter.error("E0308", f"Go package name {go_package!r} ({origin}) is not a valid Go package name", None,
                       "set `go_package` in the library's BUILD file (or pass `--go-package`) to a Go identifier "
                       "(letters, digits, '_'; not starting with a digit) that is not a Go keyword, '_' or 'main', "
                       "e.g. go_package=\"jobsdb\"")
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
    checked = None
    if not reporter.has_errors:
        # The generated names are chosen now, so that their collisions are reported with the
        # other errors (E0213); the library keeps them (and the constraint errors they used).
        from schemac.semantics.naming import build_names

        checked = Library(options, schema, plans, [], hints)
        build_names_result = build_names(checked, reporter)
    reporter.check()
    lib = Library(options, schema, plans, [d for d in reporter.diagnostics if d.severity != "error"], hints)
    if checked is not None:
        lib.__dict__["names"] = build_names_result
        lib.__dict__["constraint_errors"] = checked.constraint_errors
    return lib


def compile_library(sources: Mapping[str, str], options: Options,
                    warnings: Optional[List[Diagnostic]] = None) -> Dict[str, str]:
    """Compile a library: ``{relative output path: text}`` for ``sql/``, ``ts/`` and ``go/``.

    Warnings are appended to ``warnings`` when given. Raises :class:`CompileError` (with every
    diagnostic) on bad input. The same as :func:`check_library` then :func:`render_library`."""
    lib = check_library(sources, options)
    if warnings is not None:
        warnings.extend(lib.warnings)
    return render_library(lib, sources)


def with_relative_paths(lib: Library, cwd: str) -> Library:
    """``lib`` with the absolute paths of its query files (written into the generated code's
    comments: ``Source: ...``) made relative: to ``cwd`` when the file is below it, else to the
    folder that holds all of the library's query files. Generated code then never holds a path of
    the machine that built it (the same output from a checkout at any path)."""
    absolute = [q.path for q in lib.queries if os.path.isabs(q.path)]
    if not absolute:
        return lib
    common = os.path.commonpath([os.path.dirname(p) for p in absolute])
    if os.path.basename(common) == "queries":
        common = os.path.dirname(common)

    def rel(path: str) -> str:
        if not os.path.isabs(path):
            return path
        inside = os.path.relpath(path, cwd)
        base = inside if not inside.startswith(os.pardir) else os.path.relpath(path, common)
        return base.replace(os.sep, "/")

    return dataclasses.replace(lib, queries=[dataclasses.replace(q, path=rel(q.path)) for q in lib.queries])


def render_library(lib: Library, sources: Mapping[str, str]) -> Dict[str, str]:
    """The outputs of a checked library (``{relative output path: text}``, sorted): its SQL
    (the committed migration history among ``sources``, verified, or the initial migration),
    TypeScript and Go. Raises :class:`CompileError` for a broken history (E0405, E0407)."""
    from schemac.backends.go import codegen as gogen
    from schemac.backends.sql import codegen as sqlgen
    from schemac.backends.ts import codegen as tsgen

    out: Dict[str, str] = {}
    for name, text in sqlgen.render_sql(lib, History.from_sources(sources)).items():
        out[f"sql/{name}"] = text
    for name, text in tsgen.render_typescript(lib).items():
        out[f"ts/{name}"] = text
    for name, text in gogen.render_go(lib).items():
        out[f"go/{name}"] = text
    return dict(sorted(out.items()))
