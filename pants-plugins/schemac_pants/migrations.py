"""Migration history in Pants: `generate-migrations`, the drift check under `lint`, and `run`.

`./pants generate-migrations ::` runs `python -m schemac migrate generate` for every
`schema_library` in the specs (in the same cached compiler environment as codegen) and writes the
next numbered migration, `snapshot.json` and `schemac.sum` into each library's `migrations/`
directory, named in the spirit of `generate-lockfiles`. `./pants lint ::` runs
`python -m schemac migrate check` per library: it fails when the schema changed but no migration
was generated, or when the checksum chain of the history is broken. `./pants run schemas/jobs:`
applies the library's migrations to `$DATABASE_URL` with the apply runner; after `--` come a
runner command and its options: `-- status`, `-- down 1`, `-- resolve --version 5`,
`-- --database-url postgresql://...` (apply).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Tuple

from pants.backend.python.target_types import EntryPoint
from pants.backend.python.util_rules.interpreter_constraints import InterpreterConstraints
from pants.backend.python.util_rules.pex import Pex, PexRequest, VenvPex, VenvPexProcess
from pants.backend.python.util_rules.pex_environment import PythonExecutable
from pants.backend.python.util_rules.pex_requirements import PexRequirements
from pants.core.goals.run import RunFieldSet, RunInSandboxBehavior, RunRequest
from pants.core.goals.lint import LintResult, LintTargetsRequest
from pants.core.util_rules.partitions import PartitionerType
from pants.engine.addresses import Address
from pants.engine.console import Console
from pants.engine.fs import AddPrefix, CreateDigest, Digest, Directory, MergeDigests, RemovePrefix, Workspace
from pants.engine.goal import Goal, GoalSubsystem
from pants.engine.process import FallibleProcessResult
from pants.engine.rules import Get, MultiGet, collect_rules, goal_rule, rule
from pants.engine.target import BoolField, FieldSet, HydratedSources, HydrateSourcesRequest, StringField, Targets
from pants.option.option_types import BoolOption, SkipOption, StrListOption, StrOption
from pants.option.subsystem import Subsystem
from pants.util.logging import LogLevel
from pants.util.strutil import help_text

from schemac_pants.rules import (
    COMPILER_DIR,
    OUTPUT_DIR,
    DependencySchemas,
    DependencySchemasRequest,
    SchemacCompilerSources,
    SchemacVenvPexRequest,
    extern_argv,
    schemac_process,
)
from schemac_pants.subsystem import SchemacSubsystem
from schemac_pants.target_types import SchemaLibrarySourcesField, SchemaLibraryTarget, library_name

MIGRATIONS_DIR = "migrations"
# psycopg 3.1 is the line that installs beside Pants 2.17's typing-extensions pin (as in the test
# venv); the binary package carries libpq.
DEFAULT_APPLY_REQUIREMENTS = ("psycopg==3.1.20", "psycopg-binary==3.1.20", "typing-extensions==4.3.0")


class SchemaOnlineIndexesField(BoolField):
    """Build and drop indexes of existing tables concurrently in generated migrations."""

    alias = "online_indexes"
    default = True
    help = help_text(
        """
        If true (the default), `generate-migrations` builds new indexes (and unique constraints)
        on existing tables with `CREATE [UNIQUE] INDEX CONCURRENTLY` and drops indexes with
        `DROP INDEX CONCURRENTLY`, each in a migration file of its own marked
        `-- schemac:no-transaction` (such a statement cannot run inside a transaction; the apply
        runner and golang-migrate run it alone). Writes to the table go on meanwhile. Set it to
        false for a library of small tables: indexes are then built inside the migration's
        transaction, blocking writes to the table while they build (lint LK101 says so).
        Default: `True`. Example: `online_indexes=False`.
        """
    )


class SchemaMigrationLockTimeoutField(StringField):
    alias = "migration_lock_timeout"
    help = help_text(
        """
        The `lock_timeout` this library's generated migration files set first.
        Default: unset, meaning the `[schemac].migration_lock_timeout` option (`5s` unless
        changed in pants.toml). Example: `migration_lock_timeout="2s"`.
        """
    )


class SchemaMigrationStatementTimeoutField(StringField):
    alias = "migration_statement_timeout"
    help = help_text(
        """
        The `statement_timeout` of this library's generated migration files that take blocking
        locks. Default: unset, meaning the `[schemac].migration_statement_timeout` option
        (`1min` unless changed in pants.toml). Example: `migration_statement_timeout="5min"`.
        """
    )


async def _schemac_process(argv: Tuple[str, ...], sources_digest: Digest, description: str,
                           with_output: bool) -> FallibleProcessResult:
    venv_pex, compiler, output_dir = await MultiGet(
        Get(VenvPex, SchemacVenvPexRequest()),
        Get(SchemacCompilerSources),
        Get(Digest, CreateDigest([Directory(OUTPUT_DIR)])),
    )
    input_digest = await Get(Digest, MergeDigests([sources_digest, compiler.digest, output_dir]))
    return await Get(FallibleProcessResult, VenvPexProcess,
                     schemac_process(venv_pex, argv, input_digest, description, with_output))


# -----------------------------------------------------------------------------------------------
# generate-migrations
# -----------------------------------------------------------------------------------------------


class GenerateMigrationsSubsystem(GoalSubsystem):
    name = "generate-migrations"
    help = help_text(
        """
        Write the next migration of each `schema_library` in the specs into its `migrations/`
        directory: `NNNNNN_<slug>.up.sql` / `.down.sql` (golang-migrate's format), the new
        `snapshot.json` and `schemac.sum`. Libraries whose schema did not change are left alone.

        Renames, fill values, casts and drops are never guessed: declare them in a
        `migration { ... }` block of the schema (see docs/migrations.md). Destructive changes
        without a `drop` hint are refused; `--allow-destructive` is the escape hatch.
        """
    )

    allow_destructive = BoolOption(
        default=False,
        help="Allow dropping tables and columns that have no `drop` hint in the schema (their data is lost).",
    )
    blocking_indexes = BoolOption(
        default=False,
        help=help_text(
            """
            Build and drop indexes of existing tables inside the main migration's transaction
            for every library in this run (writes to the table wait while an index builds), as
            `online_indexes=False` does for one `schema_library`. Default: concurrently, each in a
            no-transaction migration file of its own.
            """
        ),
    )
    amend = BoolOption(
        default=False,
        help=help_text(
            """
            Write `fill` hints added after a library's latest migration failed on rows with no
            value into that migration (its guard replaced by the fill; `schemac.sum` rewritten),
            when the schema did not change otherwise. Only for a migration applied nowhere: its
            checksum changes. Without it, such a hint is reported (`W0009`) and nothing is written.
            """
        ),
    )
    slug = StrOption(
        default=None,
        help="File-name slug of the new migration (e.g. `add_priority`); default: derived from the first change.",
    )


class GenerateMigrations(Goal):
    subsystem_cls = GenerateMigrationsSubsystem
    environment_behavior = Goal.EnvironmentBehavior.LOCAL_ONLY


@dataclass(frozen=True)
class GenerateMigrationRequest:
    address: Address
    sources_digest: Digest
    files: Tuple[str, ...]
    argv_options: Tuple[str, ...]


@dataclass(frozen=True)
class GeneratedMigration:
    address: Address
    digest: Digest
    exit_code: int
    output: str


@rule(desc="Generating a migration", level=LogLevel.DEBUG)
async def generate_migration(request: GenerateMigrationRequest) -> GeneratedMigration:
    deps = await Get(DependencySchemas, DependencySchemasRequest(request.address))
    argv = ("migrate", "generate", "--library", library_name(request.address), "--out", OUTPUT_DIR,
            *request.argv_options, *extern_argv(deps.externs), *request.files)
    sources = await Get(Digest, MergeDigests([request.sources_digest, deps.digest]))
    result = await _schemac_process(argv, sources,
                                    f"Generating a migration for {request.address}", with_output=True)
    output = (result.stdout.decode("utf-8", "replace") + result.stderr.decode("utf-8", "replace")).rstrip()
    digest = await Get(Digest, RemovePrefix(result.output_digest, OUTPUT_DIR))
    digest = await Get(Digest, AddPrefix(digest, os.path.join(request.address.spec_path, MIGRATIONS_DIR)))
    return GeneratedMigration(request.address, digest, result.exit_code, output)


@goal_rule
async def generate_migrations(
    console: Console, workspace: Workspace, targets: Targets, subsystem: GenerateMigrationsSubsystem,
    schemac: SchemacSubsystem,
) -> GenerateMigrations:
    libraries = [t for t in targets if t.has_field(SchemaLibrarySourcesField)]
    options = []
    if subsystem.allow_destructive:
        options.append("--allow-destructive")
    if subsystem.amend:
        options.append("--amend")
    if subsystem.slug:
        options.extend(["--name", subsystem.slug])
    sources = await MultiGet(Get(HydratedSources, HydrateSourcesRequest(t[SchemaLibrarySourcesField]))
                             for t in libraries)
    results = await MultiGet(
        Get(GeneratedMigration, GenerateMigrationRequest(
            t.address, s.snapshot.digest, tuple(sorted(s.snapshot.files)),
            (*options, *(["--blocking-indexes"] if subsystem.blocking_indexes or not t[SchemaOnlineIndexesField].value
                         else []),
             "--lock-timeout", t[SchemaMigrationLockTimeoutField].value or schemac.migration_lock_timeout,
             "--statement-timeout", t[SchemaMigrationStatementTimeoutField].value or schemac.migration_statement_timeout)))
        for t, s in zip(libraries, sources)
    )
    failed = 0
    for r in results:
        if r.exit_code == 0:
            workspace.write_digest(r.digest)
            console.print_stdout(r.output)
        else:
            failed += 1
            console.print_stderr(f"{r.address}: no migration written\n{r.output}")
    if not libraries:
        console.print_stderr("No schema_library targets in the given specs.")
    return GenerateMigrations(exit_code=1 if failed else 0)


# -----------------------------------------------------------------------------------------------
# The drift check (lint)
# -----------------------------------------------------------------------------------------------


class SchemacMigrationsCheck(Subsystem):
    options_scope = "schemac-migrations"
    name = "schemac migrations check"
    help = help_text(
        """
        The drift check run by `lint` on every `schema_library`: it fails when the schema
        changed since the latest migration (run `generate-migrations`), when the library has no
        migration history, or when `migrations/schemac.sum` no longer matches the files (an
        applied migration edited, inserted, removed or reordered). Also the environment of
        `pants run <schema_library>`, which applies the library's migrations.
        """
    )
    skip = SkipOption("lint")
    apply_requirements = StrListOption(
        default=list(DEFAULT_APPLY_REQUIREMENTS),
        help=help_text(
            """
            Extra runtime requirements of the apply runner (`pants run <schema_library>`), added
            to `[schemac].requirements`: psycopg 3 with its binary libpq, as exact pins.
            """
        ),
        advanced=True,
    )


@dataclass(frozen=True)
class SchemaMigrationsFieldSet(FieldSet):
    required_fields = (SchemaLibrarySourcesField,)

    sources: SchemaLibrarySourcesField


class SchemacMigrationsLintRequest(LintTargetsRequest):
    field_set_type = SchemaMigrationsFieldSet
    tool_subsystem = SchemacMigrationsCheck
    partitioner_type = PartitionerType.DEFAULT_ONE_PARTITION_PER_INPUT


@rule(desc="Checking a schema library's migrations", level=LogLevel.DEBUG)
async def check_migrations(request: SchemacMigrationsLintRequest.Batch[SchemaMigrationsFieldSet, Any]) -> LintResult:
    field_set = request.elements[0]
    sources, deps = await MultiGet(Get(HydratedSources, HydrateSourcesRequest(field_set.sources)),
                                   Get(DependencySchemas, DependencySchemasRequest(field_set.address)))
    argv = ("migrate", "check", "--library", library_name(field_set.address), *extern_argv(deps.externs),
            *sorted(sources.snapshot.files))
    digest = await Get(Digest, MergeDigests([sources.snapshot.digest, deps.digest]))
    result = await _schemac_process(argv, digest,
                                    f"Checking the migrations of {field_set.address}", with_output=False)
    return LintResult.create(request, result)


# -----------------------------------------------------------------------------------------------
# run: apply the migrations
# -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ApplyMigrationsFieldSet(RunFieldSet):
    required_fields = (SchemaLibrarySourcesField,)
    run_in_sandbox_behavior = RunInSandboxBehavior.NOT_SUPPORTED

    sources: SchemaLibrarySourcesField


@rule(desc="Preparing to apply a schema library's migrations", level=LogLevel.DEBUG)
async def run_apply_migrations(
    field_set: ApplyMigrationsFieldSet, schemac: SchemacSubsystem, check: SchemacMigrationsCheck
) -> RunRequest:
    constraints = InterpreterConstraints(schemac.interpreter_constraints)
    pex, compiler, sources, python = await MultiGet(
        Get(Pex, PexRequest(
            output_filename="schemac-migrate.pex",
            internal_only=True,
            requirements=PexRequirements(
                (*schemac.requirements, *check.apply_requirements),
                description_of_origin="the options `[schemac].requirements` and `[schemac-migrations].apply_requirements`",
            ),
            interpreter_constraints=constraints,
            main=EntryPoint("schemac"),
            description="Building the schemac migration runner",
        )),
        Get(SchemacCompilerSources),
        Get(HydratedSources, HydrateSourcesRequest(field_set.sources)),
        Get(PythonExecutable, InterpreterConstraints, constraints),
    )
    digest = await Get(Digest, MergeDigests([pex.digest, compiler.digest, sources.snapshot.digest]))
    migrations = os.path.join(field_set.address.spec_path, MIGRATIONS_DIR)
    spec = field_set.address.spec
    # `migrate target` puts the user's command (after `--`: status, down N, resolve --version N;
    # default apply) in front of these options; hints name the same Pants command.
    return RunRequest(
        digest=digest,
        args=(python.path, "{chroot}/schemac-migrate.pex", "migrate", "target", "--library",
              library_name(field_set.address), "--dir", f"{{chroot}}/{migrations}"),
        extra_env={"PEX_EXTRA_SYS_PATH": f"{{chroot}}/{COMPILER_DIR}", "PYTHONUTF8": "1",
                   "SCHEMAC_RUN_AS": f"./pants run {spec if ':' in spec else spec + ':'} --"},
    )


def rules():
    return [
        *collect_rules(),
        *SchemacMigrationsLintRequest.rules(),
        *ApplyMigrationsFieldSet.rules(),
        SchemaLibraryTarget.register_plugin_field(SchemaOnlineIndexesField),
        SchemaLibraryTarget.register_plugin_field(SchemaMigrationLockTimeoutField),
        SchemaLibraryTarget.register_plugin_field(SchemaMigrationStatementTimeoutField),
    ]
