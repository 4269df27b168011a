"""The `schema_library` target and the generated-source field types of schemac.

Modelled on Pants' protobuf backend: a target owns the protocol sources (schema and query files);
code generators (see `rules.py`) turn them into SQL, TypeScript and Go, each exposed as its own
sources field type so that consumers can ask for exactly one of them.
"""

from __future__ import annotations

import keyword
import os
import re
from typing import Optional

from pants.engine.addresses import Address
from pants.engine.rules import collect_rules
from pants.engine.target import (
    COMMON_TARGET_FIELDS,
    Dependencies,
    InvalidFieldException,
    MultipleSourcesField,
    StringField,
    Target,
)
from pants.util.strutil import help_text

#: Schema files: `.esdl`, or `.gel` as Gel 6 names them (https://docs.geldata.com/reference/datamodel).
SCHEMA_SUFFIXES = (".esdl", ".gel")
SCHEMA_FILE_EXTENSIONS = (*SCHEMA_SUFFIXES, ".edgeql", ".sql", ".json", ".sum")

_GO_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Go's keywords: not usable as a package name.
_GO_KEYWORDS = frozenset(
    """break case chan const continue default defer else fallthrough for func go goto if import
    interface map package range return select struct switch type var""".split()
)
TS_MODULE_KINDS = ("esm", "commonjs")
# The compiler's --ts-int64 and --go-driver choices (schemac.pipeline.TS_INT64_MODES, GO_DRIVERS).
TS_INT64_KINDS = ("string", "bigint")
GO_DRIVER_KINDS = ("pgx", "database/sql")


def library_name(address: Address) -> str:
    """The library name passed to the compiler: the target directory's base name.

    A target at the build root has no directory name, so its target name is used instead.
    """
    return os.path.basename(address.spec_path) or address.target_name


def default_go_package(address: Address) -> str:
    """A Go package name derived from the target's directory name (`schemas/jobs` -> `jobs`).

    Lower-cased, with every character that may not appear in a Go identifier dropped (so
    `job-queue` -> `jobqueue`); prefixed with `db` when the result is empty, starts with a digit or
    is a Go keyword.
    """
    name = re.sub(r"[^a-z0-9_]", "", library_name(address).lower())
    if not name or name[0].isdigit() or name in _GO_KEYWORDS:
        name = "db" + name
    return name


class SchemaLibrarySourcesField(MultipleSourcesField):
    """The schema (`.esdl`, `.gel`) and named query (`.edgeql`) files of one `schema_library`."""

    default = ("*.esdl", "*.gel", "*.edgeql", "queries/*.edgeql", "dbschema/*.gel", "dbschema/*.esdl",
               "migrations/*.sql", "migrations/snapshot.json", "migrations/schemac.sum")
    expected_file_extensions = SCHEMA_FILE_EXTENSIONS
    help = help_text(
        """
        The schema files (`*.esdl` or `*.gel`), named query files (`*.edgeql`) and migration history
        (`migrations/`: the numbered `.up.sql`/`.down.sql` files, `snapshot.json` and
        `schemac.sum`, written by `./pants generate-migrations`) of this library, compiled
        together in one run of the schema compiler.

        Paths are relative to the BUILD file's directory. The default picks up `*.esdl`, `*.gel` and
        `*.edgeql` next to the BUILD file, `queries/*.edgeql`, the schema of a Gel project
        (`dbschema/*.gel`, `dbschema/*.esdl`: a BUILD file next to `gel.toml` finds
        `dbschema/default.gel`; Gel's own `dbschema/migrations/*.edgeql` are not read) and the
        `migrations/` files. Queries kept elsewhere, as Gel projects often keep them next to the
        code that runs them, are listed here: add their globs, e.g.
        `sources=["dbschema/*.gel", "src/queries/*.edgeql", "migrations/*"]`, and prefix a glob
        with `!` to leave files out, e.g. `"!queries/draft_*.edgeql"`.
        Each query file becomes one generated function named after the file.

        Default: `("*.esdl", "*.gel", "*.edgeql", "queries/*.edgeql", "dbschema/*.gel",
        "dbschema/*.esdl", "migrations/*.sql", "migrations/snapshot.json", "migrations/schemac.sum")`.
        Example: `sources=["schema.esdl", "queries/*.edgeql"]`.
        """
    )


class SchemaLibraryDependenciesField(Dependencies):
    """Explicit dependencies of a `schema_library` (none are inferred)."""

    help = help_text(
        """
        Addresses of other targets this library depends on; nothing is inferred. A
        dependency on another `schema_library` (directly or transitively) lets this library's
        schema link to its types as `<library>::Type` (e.g. `required buyer: accounts::User;`):
        the compiler also reads that library's schema files, and the foreign keys reference
        its tables, which that library's own migrations create.

        Default: none. Example: `dependencies=["//schemas/accounts"]`.
        """
    )


class SchemaGoPackageField(StringField):
    """The Go package name of the generated Go code."""

    alias = "go_package"
    help = help_text(
        """
        The package name (`package <name>`) of the generated Go code.

        Default: derived from the target's directory name, lower-cased, with characters that
        may not appear in a Go identifier dropped (`schemas/job-queue` -> `jobqueue`), and
        prefixed with `db` if the result would be empty, start with a digit or be a Go keyword.
        Set it explicitly when that derivation does not give the name you want; it must be a
        valid Go identifier that is not a keyword.

        Example: `go_package="jobsdb"`.
        """
    )

    @classmethod
    def compute_value(cls, raw_value: Optional[str], address: Address) -> str:
        value = super().compute_value(raw_value, address)
        if value is None:
            return default_go_package(address)
        if not _GO_IDENTIFIER.match(value) or value in _GO_KEYWORDS:
            raise InvalidFieldException(
                f"The {cls.alias!r} field in target {address} must be a valid Go package name "
                f"(an identifier that is not a Go keyword), but was {value!r}."
            )
        return value


class SchemaGoImportPathField(StringField):
    """The import path under which Go code imports the generated package (optional)."""

    alias = "go_import_path"
    help = help_text(
        """
        The full import path of the generated Go package, passed to the compiler as
        `--go-import-path` (it may use it in generated comments and cross-package references).

        Default: unset, and the compiler is not given one. Set it when Go code elsewhere in the
        repository imports the generated package.
        Example: `go_import_path="example.com/app/schemas/jobs/go"`.
        """
    )

    @classmethod
    def compute_value(cls, raw_value: Optional[str], address: Address) -> Optional[str]:
        value = super().compute_value(raw_value, address)
        if value is not None and (not value.strip() or any(c.isspace() for c in value)):
            raise InvalidFieldException(
                f"The {cls.alias!r} field in target {address} must be a Go import path without "
                f"whitespace, but was {value!r}."
            )
        return value


class SchemaTsModuleField(StringField):
    """The module system of the generated TypeScript (`esm` or `commonjs`)."""

    alias = "ts_module"
    valid_choices = TS_MODULE_KINDS
    help = help_text(
        f"""
        The module system the generated TypeScript targets: one of {', '.join(TS_MODULE_KINDS)}.
        `esm` for ES module consumers (`import`/`export`), `commonjs` for `require()`
        consumers.

        Default: unset, meaning the `[schemac].ts_module` option (`esm` unless changed in
        pants.toml). Set it per target when one consumer needs the other kind.
        Example: `ts_module="commonjs"`.
        """
    )


class SchemaTsInt64Field(StringField):
    """How the generated TypeScript represents `int64` values (`string` or `bigint`)."""

    alias = "ts_int64"
    valid_choices = TS_INT64_KINDS
    help = help_text(
        f"""
        The TypeScript type of `int64` values: one of {', '.join(TS_INT64_KINDS)}.
        `string` is what node-postgres returns for `int8` (no precision is lost; parameters
        accept `number | string | bigint`). `bigint` makes results `bigint` (the generated
        runner converts them with `BigInt()`, also inside nested shapes, without touching
        node-postgres' global type parsers) and parameters `bigint | number`.

        Default: unset, meaning the `[schemac].ts_int64` option (`string` unless changed in
        pants.toml). Example: `ts_int64="bigint"`.
        """
    )


class SchemaGoDriverField(StringField):
    """The Go database driver the generated runner is written for (`pgx` or `database/sql`)."""

    alias = "go_driver"
    valid_choices = GO_DRIVER_KINDS
    help = help_text(
        f"""
        The database API the generated Go runner uses: one of {', '.join(GO_DRIVER_KINDS)}.
        `pgx`: pgx v5's own interface (`DBTX` satisfied by `*pgxpool.Pool`, `*pgx.Conn`,
        `pgx.Tx`; optional values are pointers). `database/sql`: `*sql.DB`, `*sql.Conn` and
        `*sql.Tx`, opened with pgx's `github.com/jackc/pgx/v5/stdlib` driver; optional values
        are `sql.NullString` and friends (sqlc's convention), and the typed errors are the
        same.

        Default: unset, meaning the `[schemac].go_driver` option (`pgx` unless changed in
        pants.toml). Example: `go_driver="database/sql"`.
        """
    )


class SchemaLibraryTarget(Target):
    """A schema library: `.esdl`/`.gel` schema files plus named `.edgeql` queries, compiled as one unit."""

    alias = "schema_library"
    core_fields = (
        *COMMON_TARGET_FIELDS,
        SchemaLibraryDependenciesField,
        SchemaLibrarySourcesField,
        SchemaGoPackageField,
        SchemaGoImportPathField,
        SchemaTsModuleField,
        SchemaTsInt64Field,
        SchemaGoDriverField,
    )
    help = help_text(
        """
        A schema library for the schemac compiler: the schema files (`*.esdl`, `*.gel`) and named query
        files (`*.edgeql`, also under `queries/`) of one directory, compiled together once.

        The compiler generates SQL migrations (`sql/`), a TypeScript client (`ts/`) and a Go
        package (`go/`) under the target's directory; `pants export-codegen` writes them to
        `dist/codegen/<dir>/{sql,ts,go}/`. Use one `schema_library` per directory: two in the
        same directory would generate the same paths.
        """
    )


# -----------------------------------------------------------------------------------------------
# Generated-source field types. They are never set on a target: they only name what a code
# generator outputs, so that a consumer can ask for exactly SQL, TypeScript or Go. The SQL type is
# deliberately its own type (not FileSourceField/ResourceSourceField): consumers that hydrate
# files/resources would otherwise see two generators and fail as ambiguous.
# -----------------------------------------------------------------------------------------------


class SchemaSqlSourceField(MultipleSourcesField):
    """SQL migrations generated from a `schema_library` (`<dir>/sql/*.sql`)."""

    alias = "_schemac_sql_sources"
    expected_file_extensions = (".sql",)
    uses_source_roots = False
    help = help_text(
        """
        Generated SQL migration files (golang-migrate layout, `NNNNNN_slug.up.sql` and
        `.down.sql`) of a `schema_library`. Produced by code generation only; not settable.
        """
    )


class SchemaTypeScriptSourceField(MultipleSourcesField):
    """TypeScript generated from a `schema_library` (`<dir>/ts/*.ts`)."""

    alias = "_schemac_ts_sources"
    uses_source_roots = False
    help = help_text(
        """
        Generated TypeScript client files of a `schema_library`. Produced by code generation
        only; not settable.
        """
    )


class SchemaGoSourceField(MultipleSourcesField):
    """Go generated from a `schema_library` (`<dir>/go/*.go`)."""

    alias = "_schemac_go_sources"
    uses_source_roots = False
    help = help_text(
        """
        Generated Go package files of a `schema_library`. Produced by code generation only; not
        settable. (Go consumers through Pants' Go backend are a separate, optional backend.)
        """
    )


def target_types():
    return [SchemaLibraryTarget]


def rules():
    return [*collect_rules()]
