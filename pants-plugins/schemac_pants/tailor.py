"""`pants tailor`: propose a `schema_library` for each directory with unowned schema files.

A library is a directory with schema files (`*.esdl` or `*.gel`); query files (`*.edgeql`) next to them or in
their `queries/` subdirectory belong to it (the `sources` default of `schema_library`). Files that
already belong to a target are left alone, and a directory whose only unowned files are queries gets
no target (they most likely belong to an existing library whose `sources` leave them out, and a
library without a schema would not compile).
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass
from typing import DefaultDict, Dict, Iterable, List

from pants.core.goals.tailor import (
    AllOwnedSources,
    PutativeTarget,
    PutativeTargets,
    PutativeTargetsRequest,
)
from pants.engine.fs import PathGlobs, Paths
from pants.engine.rules import Get, collect_rules, rule
from pants.engine.unions import UnionRule
from pants.util.logging import LogLevel

from schemac_pants.subsystem import SchemacSubsystem
from schemac_pants.target_types import SCHEMA_SUFFIXES, SchemaLibraryTarget

QUERIES_DIR = "queries"


@dataclass(frozen=True)
class PutativeSchemaLibraryTargetsRequest(PutativeTargetsRequest):
    pass


def library_dir(path: str) -> str:
    """The directory of the library a schema or query file belongs to.

    `lib/queries/q.edgeql` belongs to `lib` (the default `sources` glob `queries/*.edgeql`);
    every other file to its own directory.
    """
    dirname = os.path.dirname(path)
    if path.endswith(".edgeql") and os.path.basename(dirname) == QUERIES_DIR:
        return os.path.dirname(dirname)
    return dirname


def group_by_library(unowned: Iterable[str]) -> Dict[str, List[str]]:
    """Unowned schema/query files by library directory, relative to it; only directories that
    have an unowned `.esdl` or `.gel` file."""
    groups: DefaultDict[str, List[str]] = defaultdict(list)
    for path in unowned:
        lib = library_dir(path)
        groups[lib].append(os.path.relpath(path, lib) if lib else path)
    return {
        lib: sorted(files)
        for lib, files in sorted(groups.items())
        if any(f.endswith(SCHEMA_SUFFIXES) and "/" not in f for f in files)
    }


@rule(level=LogLevel.DEBUG, desc="Determine candidate schema_library targets to create")
async def find_putative_schema_libraries(
    request: PutativeSchemaLibraryTargetsRequest,
    all_owned_sources: AllOwnedSources,
    schemac: SchemacSubsystem,
) -> PutativeTargets:
    if not schemac.tailor:
        return PutativeTargets()
    paths = await Get(Paths, PathGlobs, request.path_globs("*.esdl", "*.gel", "*.edgeql"))
    unowned = set(paths.files) - set(all_owned_sources)
    return PutativeTargets(
        PutativeTarget.for_target_type(
            SchemaLibraryTarget, path=lib, name=None, triggering_sources=files
        )
        for lib, files in group_by_library(unowned).items()
    )


def rules():
    return [
        *collect_rules(),
        UnionRule(PutativeTargetsRequest, PutativeSchemaLibraryTargetsRequest),
    ]
