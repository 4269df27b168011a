"""The generated TypeScript of a `schema_library`, as sources Pants' JavaScript rules pick up.

Pants' JavaScript backend (2.17) hydrates the transitive dependencies of a `javascript_test` as
`JSSourceField`, `FileSourceField` or `ResourceSourceField` (and those of a package's
`node_build_script` likewise), with codegen. The core backend's TypeScript output type
(`SchemaTypeScriptSourceField`) is none of these, so this generator re-exposes the same `ts/`
files (the one memoized compile, through the core TypeScript generator) as
`SchemaTypeScriptForNodeSourceField`, a `JSSourceField` subtype.

It is a `JSSourceField` and not a `file`/`resource` on purpose: a request for several source types
must find at most one generator per target (else `AmbiguousCodegenImplementationsException`), and
`file`/`resource` are what other backends (Python, Go embeds, shell) ask for. Also, Pants' `npm
clean-install` step only sees `package.json` and `file` sources, so the generated code does not
enter that step's cache key. It is not exportable: `export-codegen` already writes `ts/` through
the core generator.
"""

from __future__ import annotations

from pants.backend.javascript.target_types import JSSourceField
from pants.engine.rules import Get, collect_rules, rule
from pants.engine.target import GeneratedSources, GenerateSourcesRequest
from pants.engine.unions import UnionRule
from pants.util.logging import LogLevel
from pants.util.strutil import help_text

from schemac_pants.rules import GenerateTypeScriptFromSchemaRequest
from schemac_pants.target_types import SchemaLibrarySourcesField


class SchemaTypeScriptForNodeSourceField(JSSourceField):
    """The generated TypeScript of a `schema_library`, as seen by Pants' JavaScript rules."""

    alias = "_schemac_ts_for_node_sources"
    expected_file_extensions = (".ts",)
    uses_source_roots = False
    help = help_text(
        """
        Generated TypeScript client files of a `schema_library`, for Node.js packages that
        depend on the library. Produced by code generation only; not settable.
        """
    )


class GenerateTypeScriptForNodeRequest(GenerateSourcesRequest):
    """The `<dir>/ts/` files of a `schema_library`, for JavaScript targets that depend on it."""

    input = SchemaLibrarySourcesField
    output = SchemaTypeScriptForNodeSourceField
    exportable = False


@rule(desc="Generate TypeScript from a schema library for a Node.js package", level=LogLevel.DEBUG)
async def generate_typescript_for_node(
    request: GenerateTypeScriptForNodeRequest,
) -> GeneratedSources:
    return await Get(
        GeneratedSources,
        GenerateSourcesRequest,
        GenerateTypeScriptFromSchemaRequest(request.protocol_sources, request.protocol_target),
    )


def rules():
    return [
        *collect_rules(),
        UnionRule(GenerateSourcesRequest, GenerateTypeScriptForNodeRequest),
    ]
