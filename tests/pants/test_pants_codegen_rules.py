"""The schemac Pants plugin under Pants' RuleRunner: the real compile Process, in-process.

The `schema_library` target is compiled through the real engine rules: the pinned requirements are
resolved into a VenvPex (pex CLI from ./pants's .tools/), the compiler's files are shipped into the
sandbox and `python -m schemac compile ...` runs as a Process. Some tests swap in a tiny fake
compiler (monkeypatching `read_compiler_files`) to observe the CLI contract and the error path
independently of the real compiler's progress.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, Tuple, Type

import pytest
import toml
from pants.backend.codegen import export_codegen_goal
from pants.backend.codegen.export_codegen_goal import ExportCodegen
from pants.core.util_rules import distdir
from pants.engine.addresses import Address
from pants.engine.fs import Digest, DigestContents, FileContent
from pants.engine.internals.scheduler import ExecutionError
from pants.engine.target import (
    HydratedSources,
    HydrateSourcesRequest,
    InvalidFieldException,
    SourcesField,
)
from pants.testutil.rule_runner import QueryRule, RuleRunner

from schemac_pants import register
from schemac_pants import rules as schemac_rules
from schemac_pants.rules import (
    COMPILER_DIR,
    OUTPUT_DIR,
    CompiledSchemaLibrary,
    CompileSchemaLibraryRequest,
    SchemacCompileProcess,
    SchemacCompileError,
    SchemacCompilerSources,
    compile_argv,
    read_compiler_files,
)
from schemac_pants.target_types import (
    SchemaGoDriverField,
    SchemaGoPackageField,
    SchemaGoSourceField,
    SchemaLibrarySourcesField,
    SchemaSqlSourceField,
    SchemaTsInt64Field,
    SchemaTypeScriptSourceField,
    default_go_package,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
OUTPUT_TYPES: Dict[str, Type[SourcesField]] = {
    "sql": SchemaSqlSourceField,
    "ts": SchemaTypeScriptSourceField,
    "go": SchemaGoSourceField,
}
# The repo's own jobs library (schema + named queries), relative to schemas/jobs/.
JOBS_FILES = tuple(
    sorted(
        str(p.relative_to(REPO_ROOT / "schemas/jobs"))
        for pattern in ("*.esdl", "*.edgeql", "queries/*.edgeql")
        for p in (REPO_ROOT / "schemas/jobs").glob(pattern)
    )
)


ENV_INHERIT = {"PATH", "PYENV_ROOT", "HOME"}


def _clean_env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANTS_")}
    for k in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
        env.pop(k, None)
    return env


@pytest.fixture(scope="session")
def pants_options() -> Tuple[str, ...]:
    """Options as in pants.toml: the pex CLI that ./pants builds (and pins) in .tools/, the CA
    bundle for resolving the compiler's requirements."""
    # Sets up the Pants venv and .tools/ if needed (a no-op taking milliseconds otherwise).
    subprocess.run(
        [str(REPO_ROOT / "pants")],
        env={**_clean_env(), "SCHEMAC_PANTS_SETUP_ONLY": "1"},
        cwd=REPO_ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        timeout=900,
    )
    cfg = toml.load(REPO_ROOT / "pants.toml")
    pex_cli = cfg["pex-cli"]
    ca_certs = cfg["GLOBAL"].get("ca_certs_path")
    return (
        *([f"--ca-certs-path={ca_certs}"] if ca_certs and os.path.exists(ca_certs) else []),
        f"--pex-cli-version={pex_cli['version']}",
        f"--pex-cli-url-template=file://{REPO_ROOT}/.tools/pex-{{version}}.pex",
        f"--pex-cli-known-versions={json.dumps(pex_cli['known_versions'])}",
    )


def _rule_runner(pants_options: Tuple[str, ...], **kwargs) -> RuleRunner:
    rr = RuleRunner(
        rules=[
            *register.rules(),
            *export_codegen_goal.rules(),
            *distdir.rules(),
            QueryRule(HydratedSources, [HydrateSourcesRequest]),
            QueryRule(DigestContents, [Digest]),
            QueryRule(SchemacCompilerSources, []),
            QueryRule(SchemacCompileProcess, [CompileSchemaLibraryRequest]),
            QueryRule(CompiledSchemaLibrary, [CompileSchemaLibraryRequest]),
        ],
        target_types=register.target_types(),
        **kwargs,
    )
    rr.set_options(list(pants_options), env_inherit=ENV_INHERIT)
    return rr


@pytest.fixture
def rule_runner(pants_options: Tuple[str, ...]) -> RuleRunner:
    return _rule_runner(pants_options)


def _write_jobs_library(rr: RuleRunner, build: str = "schema_library()\n") -> None:
    files = {f"schemas/jobs/{f}": (REPO_ROOT / "schemas/jobs" / f).read_bytes() for f in JOBS_FILES}
    rr.write_files({**files, "schemas/jobs/BUILD": build})


def _generate(rr: RuleRunner, address: Address, kind: str) -> Dict[str, bytes]:
    tgt = rr.get_target(address)
    hydrated = rr.request(
        HydratedSources,
        [
            HydrateSourcesRequest(
                tgt[SchemaLibrarySourcesField],
                for_sources_types=(OUTPUT_TYPES[kind],),
                enable_codegen=True,
            )
        ],
    )
    contents = rr.request(DigestContents, [hydrated.snapshot.digest])
    return {fc.path: fc.content for fc in contents}


def _run_compiler_directly(rr: RuleRunner, tmp_path: Path, files) -> Dict[str, bytes]:
    """Run `python -m schemac compile` by hand, as the CLI contract says, for comparison."""
    out = tmp_path / "direct"
    env = {**_clean_env(), "PYTHONPATH": str(REPO_ROOT / "pants-plugins"), "PYTHONHASHSEED": "0"}
    argv = ["compile", "--library", "jobs", "--out", str(out), "--go-package", "jobs",
            "--ts-module", "esm", "--ts-int64", "string", "--go-driver", "pgx", *sorted(files)]
    proc = subprocess.run([sys.executable, "-m", "schemac", *argv], cwd=rr.build_root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return {
        f"schemas/jobs/{p.relative_to(out)}": p.read_bytes() for p in out.rglob("*") if p.is_file()
    }


@pytest.mark.slow
def test_schema_library_generates_sql_ts_go(
    rule_runner: RuleRunner, pants_options: Tuple[str, ...], tmp_path: Path
) -> None:
    _write_jobs_library(rule_runner)
    address = Address("schemas/jobs")
    generated = {kind: _generate(rule_runner, address, kind) for kind in OUTPUT_TYPES}

    for kind, files in generated.items():
        assert files, f"no {kind} output"
        assert all(p.startswith(f"schemas/jobs/{kind}/") for p in files), sorted(files)
    assert any(p.endswith(".up.sql") for p in generated["sql"])
    assert any(p.endswith(".ts") for p in generated["ts"])
    assert any(p.endswith(".go") for p in generated["go"])

    # Byte for byte what the compiler writes when run by hand, re-rooted under the target's dir.
    merged = {p: c for files in generated.values() for p, c in files.items()}
    direct = _run_compiler_directly(
        rule_runner, tmp_path, [f"schemas/jobs/{f}" for f in JOBS_FILES]
    )
    assert merged == direct

    # And the export-codegen goal writes the same files under dist/codegen/.
    result = rule_runner.run_goal_rule(
        ExportCodegen, global_args=pants_options, args=["::"], env_inherit=ENV_INHERIT
    )
    assert result.exit_code == 0
    dist = Path(rule_runner.build_root, "dist", "codegen")
    exported = {str(p.relative_to(dist)): p.read_bytes() for p in dist.rglob("*") if p.is_file()}
    assert exported == merged


# -----------------------------------------------------------------------------------------------
# A fake compiler, to observe the plugin's side of the contract


def _fake_compiler(main_py: str):
    files = [
        FileContent(f"{COMPILER_DIR}/schemac/__init__.py", b""),
        FileContent(f"{COMPILER_DIR}/schemac/__main__.py", textwrap.dedent(main_py).encode()),
    ]
    return lambda: tuple(files)


RECORDING_COMPILER = """
    import json, os, sys
    args = sys.argv[1:]
    out = args[args.index("--out") + 1]
    record = {{"argv": args, "cwd_files": sorted(
        os.path.join(d, f) for d, _, fs in os.walk(".") for f in fs if "__schemac" not in d),
        "hashseed": os.environ.get("PYTHONHASHSEED")}}
    with open({counter!r}, "a") as f:
        f.write("run\\n")
    for kind, name in (("sql", "000001_x.up.sql"), ("ts", "index.ts"), ("go", "db.go")):
        os.makedirs(os.path.join(out, kind), exist_ok=True)
        with open(os.path.join(out, kind, name), "w") as f:
            json.dump(record, f, sort_keys=True)
"""


@pytest.mark.slow
def test_cli_contract_and_one_run_per_target(
    rule_runner: RuleRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    counter = tmp_path / "runs.txt"  # unique per test run, so never a process-cache hit
    monkeypatch.setattr(
        schemac_rules, "read_compiler_files", _fake_compiler(RECORDING_COMPILER.format(counter=str(counter)))
    )
    _write_jobs_library(
        rule_runner,
        'schema_library(go_package="jobsdb", go_import_path="example.com/app/jobs", '
        'ts_module="commonjs", ts_int64="bigint", go_driver="database/sql")\n',
    )
    address = Address("schemas/jobs")
    outputs = {kind: _generate(rule_runner, address, kind) for kind in OUTPUT_TYPES}

    assert counter.read_text() == "run\n", "the compiler must run once for all three outputs"
    assert sorted(outputs["sql"]) == ["schemas/jobs/sql/000001_x.up.sql"]
    assert sorted(outputs["ts"]) == ["schemas/jobs/ts/index.ts"]
    assert sorted(outputs["go"]) == ["schemas/jobs/go/db.go"]
    record = json.loads(outputs["go"]["schemas/jobs/go/db.go"])
    sources = sorted(f"schemas/jobs/{f}" for f in JOBS_FILES)
    assert record["argv"] == [
        "compile", "--library", "jobs", "--out", OUTPUT_DIR, "--go-package", "jobsdb",
        "--go-import-path", "example.com/app/jobs", "--ts-module", "commonjs", "--ts-int64", "bigint",
        "--go-driver", "database/sql", *sources,
    ]
    # The sandbox holds the sources at their buildroot-relative paths, and nothing else of theirs.
    assert [p for p in record["cwd_files"] if p.startswith("./schemas")] == [f"./{s}" for s in sources]
    assert record["hashseed"] == "0"


@pytest.mark.slow
def test_runner_options_default_from_the_subsystem_and_fields_override(
    rule_runner: RuleRunner, pants_options: Tuple[str, ...], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`[schemac].ts_int64` / `go_driver` apply to targets that leave the fields unset; a field
    overrides them for its target."""
    counter = tmp_path / "runs.txt"
    monkeypatch.setattr(
        schemac_rules, "read_compiler_files", _fake_compiler(RECORDING_COMPILER.format(counter=str(counter)))
    )
    rule_runner.set_options(
        [*pants_options, "--schemac-ts-int64=bigint", "--schemac-go-driver=database/sql"],
        env_inherit=ENV_INHERIT,
    )
    files = {f"schemas/{lib}/{f}": (REPO_ROOT / "schemas/jobs" / f).read_bytes() for f in JOBS_FILES
             for lib in ("a", "b")}
    rule_runner.write_files({
        **files,
        "schemas/a/BUILD": "schema_library()\n",
        "schemas/b/BUILD": 'schema_library(ts_int64="string", go_driver="pgx")\n',
    })

    def options_of(lib: str) -> Dict[str, str]:
        argv = json.loads(_generate(rule_runner, Address(f"schemas/{lib}"), "go")[f"schemas/{lib}/go/db.go"])["argv"]
        return {flag: argv[argv.index(flag) + 1] for flag in ("--ts-module", "--ts-int64", "--go-driver")}

    assert options_of("a") == {"--ts-module": "esm", "--ts-int64": "bigint", "--go-driver": "database/sql"}
    assert options_of("b") == {"--ts-module": "esm", "--ts-int64": "string", "--go-driver": "pgx"}


@pytest.mark.slow
def test_runner_options_reach_the_real_compiler(rule_runner: RuleRunner) -> None:
    _write_jobs_library(rule_runner, 'schema_library(ts_int64="bigint", go_driver="database/sql")\n')
    address = Address("schemas/jobs")
    go = _generate(rule_runner, address, "go")
    ts = _generate(rule_runner, address, "ts")
    assert "func (r *Runner) WithTx(tx *sql.Tx) *Runner {" in go["schemas/jobs/go/db.go"].decode()
    assert "errors.Is(err, sql.ErrNoRows)" in go["schemas/jobs/go/queries.go"].decode()
    assert "  readonly max: bigint | number;\n" in ts["schemas/jobs/ts/queries.ts"].decode()


@pytest.mark.slow
def test_compiler_error_is_a_clean_diagnostic(
    rule_runner: RuleRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    diagnostics = (
        "schemas/jobs/schema.esdl:4:6: error: unknown type 'Jbo'\n"
        "  type Jbo {\n"
        "       ^\n"
    )
    monkeypatch.setattr(
        schemac_rules,
        "read_compiler_files",
        _fake_compiler(f"import sys\nsys.stderr.write({diagnostics!r})\nsys.exit(1)\n"),
    )
    _write_jobs_library(rule_runner)
    with pytest.raises(ExecutionError) as exc_info:
        _generate(rule_runner, Address("schemas/jobs"), "sql")
    (wrapped,) = exc_info.value.wrapped_exceptions
    assert isinstance(wrapped, SchemacCompileError)
    message = str(wrapped)
    assert diagnostics.rstrip() in message
    assert "schemas/jobs:jobs" in message
    assert "Traceback" not in message


# -----------------------------------------------------------------------------------------------
# The compiler's bytecode


def _compiler_files(rr: RuleRunner) -> Dict[str, bytes]:
    compiler = rr.request(SchemacCompilerSources, [])
    return {fc.path: fc.content for fc in rr.request(DigestContents, [compiler.digest])}


@pytest.mark.slow
def test_compiler_ships_checked_hash_bytecode_for_every_module(rule_runner: RuleRunner) -> None:
    shipped = _compiler_files(rule_runner)
    sources = {fc.path: fc.content for fc in read_compiler_files()}
    pycs = {p: c for p, c in shipped.items() if p not in sources}
    # The sources unchanged, plus one pyc per module, all for one interpreter (cache tag).
    assert {p: shipped[p] for p in sources} == sources
    modules = sorted(p for p in sources if p.endswith(".py"))
    assert len(modules) > 10, modules
    tags = {os.path.basename(p).split(".")[-2] for p in pycs}
    assert len(tags) == 1 and tags.pop().startswith("cpython-3"), sorted(pycs)
    tag = os.path.basename(next(iter(pycs))).split(".")[-2]
    expected = {
        f"{os.path.dirname(m)}/__pycache__/{os.path.basename(m)[:-3]}.{tag}.pyc": m for m in modules
    }
    assert sorted(pycs) == sorted(expected)
    for pyc, module in expected.items():
        header = pycs[pyc][:16]
        # PEP 552: flags 0b11 = hash-based, checked against the source on import.
        assert int.from_bytes(header[4:8], "little") == 0b11, pyc
        if tag == sys.implementation.cache_tag:  # the test venv's interpreter: check the hash too
            assert header[:4] == importlib.util.MAGIC_NUMBER, pyc
            assert header[8:16] == importlib.util.source_hash(sources[module]), pyc
        # No absolute path (of the sandbox, the checkout or a temporary directory) in the code.
        assert b"/tmp/" not in pycs[pyc] and str(REPO_ROOT).encode() not in pycs[pyc], pyc
        assert f"{module}".encode() in pycs[pyc], pyc  # co_filename, sandbox-relative


@pytest.mark.slow
def test_compiler_bytecode_is_deterministic(pants_options: Tuple[str, ...]) -> None:
    """The compiler's digest is part of every compile's cache key: two fresh local stores (so
    the bytecode process runs twice, in different sandboxes and build roots) give the same
    bytes."""
    first, second = (
        _rule_runner(pants_options, isolated_local_store=True) for _ in range(2)
    )
    assert first.build_root != second.build_root
    a, b = _compiler_files(first), _compiler_files(second)
    assert any(p.endswith(".pyc") for p in a)
    assert a == b
    assert first.request(SchemacCompilerSources, []) == second.request(SchemacCompilerSources, [])


# The compile process must import the compiler from the shipped pycs, not compile it again:
# `SourceFileLoader.source_to_code` runs only when a module is compiled from its source.
BYTECODE_PROBE_COMPILER = """
    import importlib.machinery, json, os, sys
    compiled = []
    _source_to_code = importlib.machinery.SourceFileLoader.source_to_code
    def _spy(self, data, path, *args, **kwargs):
        compiled.append(path)
        return _source_to_code(self, data, path, *args, **kwargs)
    importlib.machinery.SourceFileLoader.source_to_code = _spy
    import schemac.probe
    args = sys.argv[1:]
    out = args[args.index("--out") + 1]
    record = {"compiled": compiled, "cached": schemac.probe.__cached__}
    for kind, name in (("sql", "000001_x.up.sql"), ("ts", "index.ts"), ("go", "db.go")):
        os.makedirs(os.path.join(out, kind), exist_ok=True)
        with open(os.path.join(out, kind, name), "w") as f:
            json.dump(record, f, sort_keys=True)
"""


@pytest.mark.slow
def test_compile_process_imports_the_compiler_from_bytecode(
    rule_runner: RuleRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fake = _fake_compiler(BYTECODE_PROBE_COMPILER)
    probe = FileContent(f"{COMPILER_DIR}/schemac/probe.py", f"TOKEN = {str(tmp_path)!r}\n".encode())
    monkeypatch.setattr(schemac_rules, "read_compiler_files", lambda: (*fake(), probe))
    _write_jobs_library(rule_runner)
    record = json.loads(_generate(rule_runner, Address("schemas/jobs"), "go")["schemas/jobs/go/db.go"])
    assert record["compiled"] == [], record
    assert "/schemac/__pycache__/probe." in record["cached"], record


# -----------------------------------------------------------------------------------------------
# Fast unit tests


def test_compile_argv_defaults_and_sorting() -> None:
    from pants.engine.fs import Snapshot

    snapshot = Snapshot.create_for_testing(
        ["lib/queries/b.edgeql", "lib/a.esdl", "lib/queries/a.edgeql"], []
    )
    request = CompileSchemaLibraryRequest(
        address=Address("lib"), sources=snapshot, go_package="lib", go_import_path=None,
        ts_module=None,
    )
    assert compile_argv(request, "esm") == (
        "compile", "--library", "lib", "--out", OUTPUT_DIR, "--go-package", "lib",
        "--ts-module", "esm", "--ts-int64", "string", "--go-driver", "pgx",
        "lib/a.esdl", "lib/queries/a.edgeql", "lib/queries/b.edgeql",
    )
    assert compile_argv(request, "commonjs", ts_int64="bigint", go_driver="database/sql")[7:13] == (
        "--ts-module", "commonjs", "--ts-int64", "bigint", "--go-driver", "database/sql",
    )


@pytest.mark.parametrize("field, good, bad", [
    (SchemaTsInt64Field, ("string", "bigint"), "int64"),
    (SchemaGoDriverField, ("pgx", "database/sql"), "lib/pq"),
])
def test_runner_option_fields_accept_only_the_compilers_choices(field, good, bad) -> None:
    from schemac.pipeline import GO_DRIVERS, TS_INT64_MODES

    assert field.valid_choices == (TS_INT64_MODES if field is SchemaTsInt64Field else GO_DRIVERS)
    for value in good:
        assert field(value, Address("schemas/jobs")).value == value
    assert field(None, Address("schemas/jobs")).value is None  # unset: the [schemac] default applies
    with pytest.raises(InvalidFieldException):
        field(bad, Address("schemas/jobs"))


@pytest.mark.parametrize(
    "spec_path, expected",
    [
        ("schemas/jobs", "jobs"),
        ("schemas/Job-Queue", "jobqueue"),
        ("schemas/2fa", "db2fa"),
        ("schemas/type", "dbtype"),
        ("schemas/go_db", "go_db"),
    ],
)
def test_default_go_package(spec_path: str, expected: str) -> None:
    assert default_go_package(Address(spec_path)) == expected
    assert SchemaGoPackageField.compute_value(None, Address(spec_path)) == expected


@pytest.mark.parametrize("bad", ["my-pkg", "1db", "func", ""])
def test_invalid_go_package_is_rejected(bad: str) -> None:
    with pytest.raises(InvalidFieldException):
        SchemaGoPackageField.compute_value(bad, Address("schemas/jobs"))


def test_read_compiler_files_ships_the_whole_package() -> None:
    shipped = {fc.path: fc.content for fc in read_compiler_files()}
    pkg = REPO_ROOT / "pants-plugins" / "schemac"
    expected = {
        f"{COMPILER_DIR}/schemac/{p.relative_to(pkg)}": p.read_bytes()
        for p in pkg.rglob("*")
        if p.is_file()
        and "__pycache__" not in p.parts
        and p.relative_to(pkg).parts[0] != "lsp"  # the language server: not needed by a compile
        and not p.name.startswith(".")
        and p.suffix not in (".pyc", ".pyo")
        and not p.name.endswith(("~", ".swp", ".orig", ".rej"))
    }
    assert shipped == expected
    assert f"{COMPILER_DIR}/schemac/__main__.py" in shipped
    templates = pkg / "templates"
    if templates.is_dir():
        assert any(p.startswith(f"{COMPILER_DIR}/schemac/backends/ts/templates/") for p in shipped)
    # Content-addressed and path-free: nothing of the checkout's location leaks in.
    assert all(str(REPO_ROOT) not in p for p in shipped)


# Bad input through the real compiler: the goal fails with the user's buildroot-relative path,
# line and column, the source line and a caret, and no traceback.
BAD_INPUTS = {
    "syntax": ("schemas/bad/schema.esdl", "type Job {\n  required name: str\n  actor: str;\n}\n",
               "schemas/bad/schema.esdl:2:21: error[E0100]: missing ';' at the end of this line"),
    "unknown_type": ("schemas/bad/schema.esdl", "type Job {\n  required name: strr;\n}\n",
                     "schemas/bad/schema.esdl:2:18: error[E0201]: unknown type 'strr'"),
    "unknown_property": ("schemas/bad/queries/q.edgeql", "insert Job { name := $name, colour := 'red' };\n",
                         "schemas/bad/queries/q.edgeql:1:29: error[E0302]: type 'Job' has no property 'colour'"),
    "uninferable_param": ("schemas/bad/queries/q.edgeql", "update Job filter $a = $b set { name := 'x' };\n",
                          "schemas/bad/queries/q.edgeql:1:19: error[E0303]: cannot infer the type of parameter $a"),
}


@pytest.mark.slow
def test_real_compiler_errors_point_at_the_users_files(rule_runner: RuleRunner) -> None:
    good_schema = "type Job {\n  required name: str;\n}\n"
    for case, (path, text, expected) in BAD_INPUTS.items():
        files = {"schemas/bad/BUILD": "schema_library()\n", "schemas/bad/schema.esdl": good_schema}
        files[path] = text
        rule_runner.write_files(files)
        with pytest.raises(ExecutionError) as exc_info:
            _generate(rule_runner, Address("schemas/bad"), "sql")
        (wrapped,) = exc_info.value.wrapped_exceptions
        message = str(wrapped)
        assert isinstance(wrapped, SchemacCompileError), case
        assert expected in message, (case, message)
        assert "\n    " in message and "^" in message, (case, message)  # the source line and a caret
        assert "Traceback" not in message and "/tmp" not in message, (case, message)
        for f in files:
            if f != "schemas/bad/BUILD":
                (Path(rule_runner.build_root) / f).unlink()
