"""Pants' Go backend consuming a `schema_library`, modelled on Pants' protobuf Go backend.

- `SchemaGoModuleImportPathsMappingsHook`: each `schema_library` with a `go_import_path` maps that
  import path to itself in the owning `go_mod`'s import-path mapping, so `import "<path>"` in a
  `go_package` infers a dependency on the library.
- `GoCodegenBuildSchemaRequest`: builds the library's generated Go package (the `go/` subset of the
  one memoized compile, see `schemac_pants.rules`) as a `BuildGoPackageRequest`: Pants' package
  analyzer reads its imports, and each one is resolved through the owning `go_mod` (third-party
  packages such as pgx) or the standard library.
- `go_mod_address` is registered on `schema_library` (Pants' own `GoOwningGoModAddressField`).
"""

from __future__ import annotations

import dataclasses
import textwrap
from collections import defaultdict
from dataclasses import dataclass
from typing import DefaultDict, List, Set

from pants.backend.go import target_type_rules
from pants.backend.go.dependency_inference import (
    GoImportPathsMappingAddressSet,
    GoModuleImportPathsMapping,
    GoModuleImportPathsMappings,
    GoModuleImportPathsMappingsHook,
)
from pants.backend.go.target_type_rules import GoImportPathMappingRequest
from pants.backend.go.target_types import GoOwningGoModAddressField
from pants.backend.go.util_rules import (
    assembly,
    build_pkg,
    build_pkg_target,
    first_party_pkg,
    go_mod,
    link,
    sdk,
    third_party_pkg,
)
from pants.backend.go.util_rules.build_opts import GoBuildOptions
from pants.backend.go.util_rules.build_pkg import (
    BuildGoPackageRequest,
    FallibleBuildGoPackageRequest,
)
from pants.backend.go.util_rules.build_pkg_target import (
    BuildGoPackageRequestForStdlibRequest,
    BuildGoPackageTargetRequest,
    GoCodegenBuildRequest,
)
from pants.backend.go.util_rules.first_party_pkg import FallibleFirstPartyPkgAnalysis
from pants.backend.go.util_rules.go_mod import (
    GoModInfo,
    GoModInfoRequest,
    OwningGoMod,
    OwningGoModRequest,
)
from pants.backend.go.util_rules.import_analysis import GoStdLibPackages, GoStdLibPackagesRequest
from pants.backend.go.util_rules.pkg_analyzer import PackageAnalyzerSetup
from pants.engine.addresses import Address
from pants.engine.fs import Digest, MergeDigests
from pants.engine.process import FallibleProcessResult, Process
from pants.engine.rules import Get, MultiGet, collect_rules, rule
from pants.engine.target import (
    AllTargets,
    HydratedSources,
    HydrateSourcesRequest,
    Targets,
)
from pants.engine.unions import UnionRule
from pants.util.dirutil import group_by_dir
from pants.util.frozendict import FrozenDict
from pants.util.logging import LogLevel
from pants.util.strutil import help_text

from schemac_pants.target_types import (
    SchemaGoImportPathField,
    SchemaGoSourceField,
    SchemaLibrarySourcesField,
    SchemaLibraryTarget,
)


class SchemaGoModAddressField(GoOwningGoModAddressField):
    """Pants' `go_mod_address` on `schema_library`, with help in this plugin's terms."""

    help = help_text(
        """
        Address of the `go_mod` target whose Go module compiles this library's generated Go
        package: its go.mod resolves the package's third-party imports (pgx) and sets the Go
        language version. Only used when Go code imports the package (see `go_import_path`).

        Default: the repository's only `go_mod` target (with several, set it; with none, Go
        code cannot use the package). Example: `go_mod_address="services/api:mod"`.
        """
    )


class AllSchemaLibrariesForGo(Targets):
    """Every `schema_library` that sets `go_import_path`."""


@rule(desc="Find schema libraries imported by Go", level=LogLevel.DEBUG)
async def find_schema_libraries_for_go(targets: AllTargets) -> AllSchemaLibrariesForGo:
    return AllSchemaLibrariesForGo(
        t
        for t in targets
        if isinstance(t, SchemaLibraryTarget) and t[SchemaGoImportPathField].value
    )


class SchemaGoModuleImportPathsMappingsHook(GoModuleImportPathsMappingsHook):
    pass


@rule(desc="Map Go import paths of schema libraries", level=LogLevel.DEBUG)
async def map_import_paths_of_schema_libraries(
    _: SchemaGoModuleImportPathsMappingsHook, libraries: AllSchemaLibrariesForGo
) -> GoModuleImportPathsMappings:
    owning = await MultiGet(
        Get(OwningGoMod, OwningGoModRequest(tgt.address)) for tgt in libraries
    )
    by_module: DefaultDict[Address, DefaultDict[str, Set[Address]]] = defaultdict(
        lambda: defaultdict(set)
    )
    for tgt, go_mod_ in zip(libraries, owning):
        by_module[go_mod_.address][tgt[SchemaGoImportPathField].value].add(tgt.address)
    return GoModuleImportPathsMappings(
        FrozenDict(
            {
                mod: GoModuleImportPathsMapping(
                    mapping=FrozenDict(
                        {
                            path: GoImportPathsMappingAddressSet(
                                addresses=tuple(sorted(addrs)), infer_all=True
                            )
                            for path, addrs in paths.items()
                        }
                    ),
                    address_to_import_path=FrozenDict(
                        {addr: path for path, addrs in paths.items() for addr in addrs}
                    ),
                )
                for mod, paths in by_module.items()
            }
        )
    )


class GoCodegenBuildSchemaRequest(GoCodegenBuildRequest):
    generate_from = SchemaLibrarySourcesField


def _failure(import_path: str, message: str, exit_code: int = 1) -> FallibleBuildGoPackageRequest:
    return FallibleBuildGoPackageRequest(
        request=None, import_path=import_path, exit_code=exit_code, stderr=message
    )


@rule(desc="Set up the Go build of a schema library", level=LogLevel.DEBUG)
async def setup_build_go_package_request_for_schema_library(
    request: GoCodegenBuildSchemaRequest, analyzer: PackageAnalyzerSetup
) -> FallibleBuildGoPackageRequest:
    tgt = request.target
    import_path = tgt[SchemaGoImportPathField].value
    if not import_path:
        return _failure(
            "",
            f"The schema_library {tgt.address} is a dependency of Go code but has no "
            f"`{SchemaGoImportPathField.alias}` field: set it to the import path the Go code "
            "imports (e.g. `go_import_path=\"example.com/app/schemas/jobs\"`).",
        )

    generated = await Get(
        HydratedSources,
        HydrateSourcesRequest(
            tgt[SchemaLibrarySourcesField],
            for_sources_types=(SchemaGoSourceField,),
            enable_codegen=True,
        ),
    )
    files_by_dir = group_by_dir(generated.snapshot.files)
    if len(files_by_dir) != 1:
        return _failure(
            import_path,
            f"Expected the Go code generated from {tgt.address} in one directory, got: "
            f"{sorted(files_by_dir) or 'no files'}.",
        )
    gen_dir = next(iter(files_by_dir))

    go_mod_addr = await Get(OwningGoMod, OwningGoModRequest(tgt.address))
    package_mapping, go_mod_info, analysis_input = await MultiGet(
        Get(GoModuleImportPathsMapping, GoImportPathMappingRequest(go_mod_addr.address)),
        Get(GoModInfo, GoModInfoRequest(go_mod_addr.address)),
        Get(Digest, MergeDigests([generated.snapshot.digest, analyzer.digest])),
    )
    result = await Get(
        FallibleProcessResult,
        Process(
            (analyzer.path, gen_dir),
            input_digest=analysis_input,
            description=f"Determine metadata for the Go package generated from {tgt.address}",
            level=LogLevel.DEBUG,
            env={"CGO_ENABLED": "0"},
        ),
    )
    fallible = FallibleFirstPartyPkgAnalysis.from_process_result(
        result,
        dir_path=gen_dir,
        import_path=import_path,
        # The generated package is compiled as part of the owning module: same `-lang`.
        minimum_go_version=go_mod_info.minimum_go_version or "",
        description_of_source=f"the Go package generated from schema_library `{tgt.address}`",
    )
    if not fallible.analysis:
        return _failure(import_path, fallible.stderr or "", fallible.exit_code)
    analysis = fallible.analysis

    stdlib = await Get(
        GoStdLibPackages,
        GoStdLibPackagesRequest(
            with_race_detector=request.build_opts.with_race_detector,
            cgo_enabled=request.build_opts.cgo_enabled,
        ),
    )
    deps: Set[Address] = set()
    stdlib_imports: List[str] = []
    for dep_import_path in sorted(set(analysis.imports)):
        candidates = package_mapping.mapping.get(dep_import_path)
        if not candidates:
            if dep_import_path in stdlib and dep_import_path not in ("builtin", "C", "unsafe"):
                stdlib_imports.append(dep_import_path)
            continue
        if not candidates.infer_all and len(candidates.addresses) > 1:
            return _failure(
                import_path,
                textwrap.dedent(
                    f"""
                    Multiple addresses match the import of `{dep_import_path}` in the Go code
                    generated from {tgt.address}: {', '.join(map(str, candidates.addresses))}
                    """
                ).strip(),
            )
        deps.update(candidates.addresses)
    maybe_deps = await MultiGet(
        Get(
            FallibleBuildGoPackageRequest,
            BuildGoPackageTargetRequest(addr, build_opts=request.build_opts),
        )
        for addr in sorted(deps)
    )
    maybe_stdlib = await MultiGet(
        Get(
            FallibleBuildGoPackageRequest,
            BuildGoPackageRequestForStdlibRequest(import_path=p, build_opts=request.build_opts),
        )
        for p in stdlib_imports
    )
    dep_requests = []
    for maybe in (*maybe_deps, *maybe_stdlib):
        if maybe.request is None:
            return dataclasses.replace(maybe, dependency_failed=True)
        dep_requests.append(maybe.request)
    return FallibleBuildGoPackageRequest(
        request=BuildGoPackageRequest(
            import_path=import_path,
            pkg_name=analysis.name,
            digest=generated.snapshot.digest,
            dir_path=analysis.dir_path,
            go_files=analysis.go_files,
            s_files=analysis.s_files,
            direct_dependencies=tuple(dep_requests),
            minimum_go_version=analysis.minimum_go_version,
            build_opts=request.build_opts,
        ),
        import_path=import_path,
    )


def rules():
    return (
        *collect_rules(),
        UnionRule(GoCodegenBuildRequest, GoCodegenBuildSchemaRequest),
        UnionRule(GoModuleImportPathsMappingsHook, SchemaGoModuleImportPathsMappingsHook),
        SchemaLibraryTarget.register_plugin_field(SchemaGoModAddressField),
        *assembly.rules(),
        *build_pkg.rules(),
        *build_pkg_target.rules(),
        *first_party_pkg.rules(),
        *go_mod.rules(),
        *link.rules(),
        *sdk.rules(),
        *target_type_rules.rules(),
        *third_party_pkg.rules(),
    )
