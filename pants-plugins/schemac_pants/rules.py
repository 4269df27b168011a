"""Code generation rules: run the schemac compiler once per `schema_library`, expose its outputs.

One internal rule (`compile_schema_library`) runs `python -m schemac compile ...` as a hermetic,
cacheable `Process` in a virtualenv built from the pinned `[schemac].requirements`, with the
compiler's own source files and their bytecode (compiled once by a cached process of its own) in
the process inputs. Its output (`sql/`, `ts/`, `go/`) is re-rooted
under the target's directory. Three thin `GenerateSourcesRequest` rules each take a `DigestSubset`
of it; the engine memoizes the shared rule, so the compiler runs once per target however many of
the three outputs are asked for.
"""

from __future__ import annotations

import dataclasses
import importlib.resources
import os
from dataclasses import dataclass
from typing import Iterator, Optional, Tuple

from pants.backend.python.target_types import EntryPoint
from pants.backend.python.util_rules import pex
from pants.backend.python.util_rules.interpreter_constraints import InterpreterConstraints
from pants.backend.python.util_rules.pex import PexRequest, VenvPex, VenvPexProcess
from pants.backend.python.util_rules.pex_environment import PythonExecutable
from pants.backend.python.util_rules.pex_requirements import PexRequirements
from pants.engine.addresses import Address
from pants.engine.fs import (
    EMPTY_DIGEST,
    AddPrefix,
    CreateDigest,
    Digest,
    DigestSubset,
    Directory,
    FileContent,
    MergeDigests,
    PathGlobs,
    RemovePrefix,
    Snapshot,
)
from pants.engine.process import FallibleProcessResult, Process
from pants.engine.rules import Get, MultiGet, collect_rules, rule
from pants.engine.target import (
    GeneratedSources,
    GenerateSourcesRequest,
    HydratedSources,
    HydrateSourcesRequest,
    Target,
    TransitiveTargets,
    TransitiveTargetsRequest,
)
from pants.engine.unions import UnionRule
from pants.util.logging import LogLevel
from pants.util.strutil import softwrap

from schemac_pants.subsystem import SchemacSubsystem
from schemac_pants.target_types import (
    GO_DRIVER_KINDS,
    SCHEMA_SUFFIXES,
    TS_INT64_KINDS,
    TS_MODULE_KINDS,
    SchemaGoDriverField,
    SchemaGoImportPathField,
    SchemaGoPackageField,
    SchemaGoSourceField,
    SchemaLibrarySourcesField,
    SchemaSqlSourceField,
    SchemaTsInt64Field,
    SchemaTsModuleField,
    SchemaTypeScriptSourceField,
    library_name,
)

# The Python package that implements the compiler (pants-plugins/schemac/). It has no Pants
# imports: the plugin only reads its files and ships them into the sandbox.
COMPILER_PACKAGE = "schemac"
# Sandbox-relative directories. The user's sources keep their buildroot-relative paths, so the
# compiler's diagnostics name the files the user knows.
COMPILER_DIR = "__schemac_compiler"
OUTPUT_DIR = "__schemac_out"
# The compiler's parser cache (see schemac/syntax/parser.py): a Pants named cache, mounted here.
PARSER_CACHE_NAME = "schemac_parser"
PARSER_CACHE_DIR = "__schemac_parser_cache"
# The compiler writes these subtrees of --out; each becomes one generated source type.
OUTPUT_KINDS = ("sql", "ts", "go")


class SchemacCompileError(Exception):
    """The compiler rejected a schema library: the message is the compiler's own diagnostics."""


# -----------------------------------------------------------------------------------------------
# The compiler's own source files
# -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SchemacCompilerSources:
    """The files of the `schemac` package, laid out under `COMPILER_DIR/schemac/`, with the
    bytecode of its modules (`__pycache__/*.pyc`, see `schemac_compiler_sources`)."""

    digest: Digest


def _is_shipped(name: str) -> bool:
    # Everything the compiler may read at run time (.py modules, templates/, grammar files, ...),
    # but not the checkout's bytecode caches (they depend on the local interpreter and on mtimes;
    # the bytecode the sandbox gets is compiled by `schemac_compiler_sources`) or editor leftovers,
    # which would only churn the cache key.
    return not (
        name == "__pycache__"
        or name.startswith(".")
        or name.endswith((".pyc", ".pyo", "~", ".swp", ".orig", ".rej"))
    )


#: Subpackages of the compiler a compile never imports: the language server (`schemac.lsp`, run by
#: editors), kept out of the sandbox so that editing it does not change every compile's cache key.
NOT_SHIPPED_SUBPACKAGES = ("lsp",)


def _walk(node, prefix: str) -> Iterator[Tuple[str, bytes]]:
    for child in node.iterdir():
        if not _is_shipped(child.name):
            continue
        if prefix == COMPILER_PACKAGE and child.name in NOT_SHIPPED_SUBPACKAGES:
            continue
        path = f"{prefix}/{child.name}"
        if child.is_dir():
            yield from _walk(child, path)
        elif child.is_file():
            yield path, child.read_bytes()


def read_compiler_files() -> Tuple[FileContent, ...]:
    """Read every file of the `schemac` package (found via importlib, wherever it is installed).

    The cache key of the compile process then depends on the compiler's contents, not on where
    this repository is checked out.
    """
    root = importlib.resources.files(COMPILER_PACKAGE)
    files = sorted(_walk(root, COMPILER_PACKAGE))
    if not any(path == f"{COMPILER_PACKAGE}/__main__.py" for path, _ in files):
        raise SchemacCompileError(
            f"The `{COMPILER_PACKAGE}` package found at {root} has no __main__.py: it is not the "
            "schemac compiler. Check `[GLOBAL].pythonpath` in pants.toml."
        )
    return tuple(
        FileContent(os.path.join(COMPILER_DIR, path), content, is_executable=False)
        for path, content in files
    )


def bytecode_process(python: PythonExecutable, sources: Digest) -> Process:
    """`python -m compileall` over the compiler's files (at `COMPILER_DIR` in `sources`), writing
    PEP 552 checked-hash pycs next to them (`__pycache__/<module>.<cache tag>.pyc`).

    The pycs are deterministic, so the digest of the compiler (part of every compile's cache
    key, locally and remotely) does not depend on the machine, the checkout or the run:
    - checked-hash pycs carry a hash of their source instead of its mtime and size, and the
      importing interpreter validates them against that hash: sandbox mtimes don't matter, and a
      stale pyc is never used;
    - the argument is relative to the sandbox, so the code objects' file names
      (`co_filename`, `__schemac_compiler/schemac/x.py`) hold no absolute path (on import the
      interpreter replaces them with the path it actually loaded);
    - PYTHONHASHSEED=0: the hash seed orders the elements of set constants (`x in {"a", "b"}`
      compiles to a frozenset), which are marshalled in iteration order; with a random seed the
      bytes change from run to run;
    - `-S` (no `site`): no site-packages or .pth files of the interpreter's installation run
      first, so the interpreter starts in the same state everywhere (marshal's back-references
      depend on it); no `-j`: one process compiles the files in sorted order.
    Checked: fresh local stores at other build roots give the same bytes
    (tests/pants/test_pants_codegen_rules.py), with PYTHONHASHSEED unset they differ.
    """
    return Process(
        argv=(python.path, "-S", "-m", "compileall", "-q", "--invalidation-mode", "checked-hash",
              COMPILER_DIR),
        input_digest=sources,
        env={"PYTHONHASHSEED": "0"},
        append_only_caches=python.append_only_caches,
        immutable_input_digests=python.immutable_input_digests,
        output_directories=(COMPILER_DIR,),
        description="Compiling the schemac compiler to bytecode",
        level=LogLevel.DEBUG,
    )


@rule(desc="Reading the schemac compiler sources", level=LogLevel.DEBUG)
async def schemac_compiler_sources(schemac: SchemacSubsystem) -> SchemacCompilerSources:
    """The compiler's files plus their bytecode, so that each compile process imports the
    compiler from pycs (about half the import time) instead of compiling it from source again.

    The bytecode comes from the interpreter that the compiler's venv is built on (the same
    `[schemac].interpreter_constraints` lookup), so its cache tag (`cpython-39`) is the one the
    compile process looks for. If compileall fails (a syntax error in the compiler), whatever it
    compiled is shipped and the compile process reports the error itself.
    """
    sources, python = await MultiGet(
        Get(Digest, CreateDigest(read_compiler_files())),
        Get(PythonExecutable, InterpreterConstraints,
            InterpreterConstraints(schemac.interpreter_constraints)),
    )
    result = await Get(FallibleProcessResult, Process, bytecode_process(python, sources))
    bytecode = await Get(
        Digest, DigestSubset(result.output_digest, PathGlobs([f"{COMPILER_DIR}/**/__pycache__/*.pyc"]))
    )
    digest = await Get(Digest, MergeDigests([sources, bytecode]))
    return SchemacCompilerSources(digest)


# -----------------------------------------------------------------------------------------------
# The compiler's virtualenv (third-party requirements only; cached independently of the compiler)
# -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SchemacVenvPexRequest:
    """Request for the virtualenv PEX that runs the compiler."""


@rule(desc="Building the schemac compiler environment", level=LogLevel.DEBUG)
async def schemac_venv_pex(_: SchemacVenvPexRequest, schemac: SchemacSubsystem) -> VenvPex:
    return await Get(
        VenvPex,
        PexRequest(
            output_filename="schemac.pex",
            internal_only=True,
            requirements=PexRequirements(
                schemac.requirements,
                description_of_origin="the option `[schemac].requirements`",
            ),
            interpreter_constraints=InterpreterConstraints(schemac.interpreter_constraints),
            # `python -m schemac`: the package itself comes in through PEX_EXTRA_SYS_PATH.
            main=EntryPoint(COMPILER_PACKAGE),
            description="Building the schemac compiler environment",
        ),
    )


# -----------------------------------------------------------------------------------------------
# The one compile per target
# -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompileSchemaLibraryRequest:
    """Compile one `schema_library`: its resolved sources plus the options the compiler takes."""

    address: Address
    sources: Snapshot
    go_package: str
    go_import_path: Optional[str]
    ts_module: Optional[str]
    # Unset (None) means the `[schemac]` default, like `ts_module`.
    ts_int64: Optional[str] = None
    go_driver: Optional[str] = None

    @classmethod
    def from_target(cls, target: Target, sources: Snapshot) -> "CompileSchemaLibraryRequest":
        return cls(
            address=target.address,
            sources=sources,
            go_package=target[SchemaGoPackageField].value,
            go_import_path=target[SchemaGoImportPathField].value,
            ts_module=target[SchemaTsModuleField].value,
            ts_int64=target[SchemaTsInt64Field].value,
            go_driver=target[SchemaGoDriverField].value,
        )


@dataclass(frozen=True)
class CompiledSchemaLibrary:
    """All outputs of one compile, at `<target dir>/{sql,ts,go}/...`."""

    digest: Digest


@dataclass(frozen=True)
class DependencySchemasRequest:
    """The schema files of the `schema_library` targets a library depends on (transitively)."""

    address: Address


@dataclass(frozen=True)
class DependencySchemas:
    """`digest` holds the files; `externs` pairs each path with its library's name."""

    digest: Digest
    externs: Tuple[Tuple[str, str], ...]


@rule(desc="Finding the schema libraries a library depends on", level=LogLevel.DEBUG)
async def dependency_schemas(request: DependencySchemasRequest) -> DependencySchemas:
    transitive = await Get(TransitiveTargets, TransitiveTargetsRequest([request.address]))
    libraries = [t for t in transitive.dependencies
                 if t.has_field(SchemaLibrarySourcesField) and t.address != request.address]
    if not libraries:
        return DependencySchemas(EMPTY_DIGEST, ())
    hydrated = await MultiGet(Get(HydratedSources, HydrateSourcesRequest(t[SchemaLibrarySourcesField]))
                              for t in libraries)
    externs = sorted((f, library_name(t.address)) for t, h in zip(libraries, hydrated)
                     for f in h.snapshot.files if f.endswith(SCHEMA_SUFFIXES))
    digest = await Get(Digest, MergeDigests(h.snapshot.digest for h in hydrated))
    digest = await Get(Digest, DigestSubset(digest, PathGlobs([f for f, _ in externs])))
    return DependencySchemas(digest, tuple(externs))


def extern_argv(externs: Tuple[Tuple[str, str], ...]) -> Tuple[str, ...]:
    """`--extern LIBRARY=FILE` for each schema file of a dependency library."""
    return tuple(arg for path, lib in externs for arg in ("--extern", f"{lib}={path}"))


def compile_argv(request: CompileSchemaLibraryRequest, ts_module: str,
                 externs: Tuple[Tuple[str, str], ...] = (), *, ts_int64: str = "string",
                 go_driver: str = "pgx") -> Tuple[str, ...]:
    """The compiler's command line after `python -m schemac` (the fixed CLI contract). The
    options are the effective ones (the target's field, else the `[schemac]` default) and are
    always passed, so that the process's cache key names every option of the compile."""
    argv = [
        "compile",
        "--library",
        library_name(request.address),
        "--out",
        OUTPUT_DIR,
        "--go-package",
        request.go_package,
    ]
    if request.go_import_path:
        argv.extend(["--go-import-path", request.go_import_path])
    argv.extend(["--ts-module", ts_module, "--ts-int64", ts_int64, "--go-driver", go_driver])
    argv.extend(extern_argv(externs))
    argv.extend(sorted(request.sources.files))
    return tuple(argv)


def schemac_process(venv_pex: VenvPex, argv: Tuple[str, ...], input_digest: Digest, description: str,
                    with_output: bool = True) -> VenvPexProcess:
    """`python -m schemac <argv>` in the compiler's venv, with the compiler's files on the path
    (the input digest must hold them, see `SchemacCompilerSources`), its parser cache in a named
    cache, and `OUTPUT_DIR` captured when `with_output`."""
    return VenvPexProcess(
        venv_pex,
        argv=argv,
        input_digest=input_digest,
        extra_env={
            "PEX_EXTRA_SYS_PATH": COMPILER_DIR,
            # NB: the venv's `pex` script runs `python -sE`, and -E makes Python ignore the three
            # PYTHON* variables below (see `sys.flags` in the process); they only matter if the
            # compiler is started without -E. The output does not depend on them: the compiler
            # sorts everything it emits, reads and writes UTF-8 explicitly, and is imported from
            # the shipped checked-hash pycs (`SchemacCompilerSources`), so it writes no bytecode.
            # (The tests compare outputs across processes with random hash seeds.) They stay
            # because removing them would change every compile's cache key for nothing.
            "PYTHONHASHSEED": "0",
            "PYTHONUTF8": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            # The compiler's parser cache (lark's LALR tables) lives in a Pants named cache,
            # not in the user's home: not an input, so not part of the cache key.
            "SCHEMAC_CACHE_DIR": PARSER_CACHE_DIR,
        },
        append_only_caches={PARSER_CACHE_NAME: PARSER_CACHE_DIR},
        output_directories=(OUTPUT_DIR,) if with_output else (),
        description=description,
        level=LogLevel.DEBUG,
    )


@dataclass(frozen=True)
class SchemacCompileProcess:
    """The exact process that compiles one library (what `compile_schema_library` runs, and what
    a remote worker would run): its argv, env and every input digest.
    (tests/adoption/test_compile_sandbox.py runs it in an empty sandbox holding only these.)"""

    process: Process


@rule(desc="Building the compile process of a schema library", level=LogLevel.DEBUG)
async def schemac_compile_process(
    request: CompileSchemaLibraryRequest, schemac: SchemacSubsystem
) -> SchemacCompileProcess:
    ts_module = request.ts_module or schemac.ts_module
    ts_int64 = request.ts_int64 or schemac.ts_int64
    go_driver = request.go_driver or schemac.go_driver
    for option, value, choices in (
        ("ts_module", ts_module, TS_MODULE_KINDS),
        ("ts_int64", ts_int64, TS_INT64_KINDS),
        ("go_driver", go_driver, GO_DRIVER_KINDS),
    ):
        if value not in choices:
            raise SchemacCompileError(
                f"[schemac].{option} must be one of {', '.join(choices)}, but was {value!r}."
            )
    if not request.sources.files:
        raise SchemacCompileError(
            f"The schema_library {request.address} has no source files: its `sources` field "
            "matched no `.esdl`/`.gel`/`.edgeql` file."
        )

    venv_pex, compiler, output_dir, deps = await MultiGet(
        Get(VenvPex, SchemacVenvPexRequest()),
        Get(SchemacCompilerSources),
        Get(Digest, CreateDigest([Directory(OUTPUT_DIR)])),
        Get(DependencySchemas, DependencySchemasRequest(request.address)),
    )
    input_digest = await Get(
        Digest, MergeDigests([request.sources.digest, compiler.digest, output_dir, deps.digest])
    )
    process = await Get(
        Process,
        VenvPexProcess,
        schemac_process(
            venv_pex,
            compile_argv(request, ts_module, deps.externs, ts_int64=ts_int64, go_driver=go_driver),
            input_digest,
            f"Compiling schema library {request.address}",
        ),
    )
    # With a remote cache, wait this long for its answer before also starting the compile
    # locally (see the option's help); not part of the cache key.
    return SchemacCompileProcess(dataclasses.replace(
        process,
        remote_cache_speculation_delay_millis=max(0, schemac.remote_cache_speculation_delay),
    ))


@rule(desc="Compiling a schema library", level=LogLevel.DEBUG)
async def compile_schema_library(request: CompileSchemaLibraryRequest) -> CompiledSchemaLibrary:
    compile_process = await Get(SchemacCompileProcess, CompileSchemaLibraryRequest, request)
    result = await Get(FallibleProcessResult, Process, compile_process.process)
    if result.exit_code != 0:
        diagnostics = result.stderr.decode("utf-8", "replace").rstrip()
        stdout = result.stdout.decode("utf-8", "replace").rstrip()
        if stdout:
            diagnostics = f"{stdout}\n{diagnostics}" if diagnostics else stdout
        raise SchemacCompileError(
            f"schemac failed to compile {request.address} (exit code {result.exit_code}):\n\n"
            f"{diagnostics or '(the compiler printed nothing)'}"
        )

    rerooted = await Get(Digest, RemovePrefix(result.output_digest, OUTPUT_DIR))
    if request.address.spec_path:
        rerooted = await Get(Digest, AddPrefix(rerooted, request.address.spec_path))
    return CompiledSchemaLibrary(rerooted)


async def _generated_subset(request: GenerateSourcesRequest, kind: str) -> GeneratedSources:
    """The `kind/` subtree of the target's (memoized, shared) compile output."""
    compiled = await Get(
        CompiledSchemaLibrary,
        CompileSchemaLibraryRequest,
        CompileSchemaLibraryRequest.from_target(request.protocol_target, request.protocol_sources),
    )
    subset = await Get(
        Snapshot,
        DigestSubset(
            compiled.digest,
            PathGlobs([os.path.join(request.protocol_target.address.spec_path, kind, "**")]),
        ),
    )
    return GeneratedSources(subset)


# -----------------------------------------------------------------------------------------------
# The three generators (SQL, TypeScript, Go)
# -----------------------------------------------------------------------------------------------


class GenerateSqlFromSchemaRequest(GenerateSourcesRequest):
    """Generate SQL migrations (`<dir>/sql/`) from a `schema_library`."""

    input = SchemaLibrarySourcesField
    output = SchemaSqlSourceField


class GenerateTypeScriptFromSchemaRequest(GenerateSourcesRequest):
    """Generate the TypeScript client (`<dir>/ts/`) from a `schema_library`."""

    input = SchemaLibrarySourcesField
    output = SchemaTypeScriptSourceField


class GenerateGoFromSchemaRequest(GenerateSourcesRequest):
    """Generate the Go package (`<dir>/go/`) from a `schema_library`."""

    input = SchemaLibrarySourcesField
    output = SchemaGoSourceField


@rule(desc="Generate SQL from a schema library", level=LogLevel.DEBUG)
async def generate_sql_from_schema(request: GenerateSqlFromSchemaRequest) -> GeneratedSources:
    return await _generated_subset(request, "sql")


@rule(desc="Generate TypeScript from a schema library", level=LogLevel.DEBUG)
async def generate_typescript_from_schema(
    request: GenerateTypeScriptFromSchemaRequest,
) -> GeneratedSources:
    return await _generated_subset(request, "ts")


@rule(desc="Generate Go from a schema library", level=LogLevel.DEBUG)
async def generate_go_from_schema(request: GenerateGoFromSchemaRequest) -> GeneratedSources:
    return await _generated_subset(request, "go")


def rules():
    return [
        *collect_rules(),
        # The PEX machinery, for when the Python backend itself is not enabled.
        *pex.rules(),
        UnionRule(GenerateSourcesRequest, GenerateSqlFromSchemaRequest),
        UnionRule(GenerateSourcesRequest, GenerateTypeScriptFromSchemaRequest),
        UnionRule(GenerateSourcesRequest, GenerateGoFromSchemaRequest),
    ]
