"""`pants fmt` and `pants lint` for schema and query files: schemac's formatter
(`python -m schemac fmt`, see `schemac.fmt`) on the `.esdl`/`.gel`/`.edgeql` sources of every
`schema_library`.

A formatter in Pants 2.17's fix/fmt/lint API (`FmtTargetsRequest`): `fmt` writes the formatted
files back, and `lint` runs the same process and fails when it would change a file. It runs in the
compiler's own cached process environment (the VenvPex and the shipped compiler sources), so a
second run with the same files is a cache hit. `[schemac-fmt].skip` turns it off.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from pants.backend.python.util_rules.pex import VenvPex, VenvPexProcess
from pants.core.goals.fmt import FmtResult, FmtTargetsRequest
from pants.core.util_rules.partitions import PartitionerType
from pants.engine.fs import Digest, MergeDigests
from pants.engine.process import ProcessResult
from pants.engine.rules import Get, MultiGet, collect_rules, rule
from pants.engine.target import FieldSet
from pants.option.option_types import SkipOption
from pants.option.subsystem import Subsystem
from pants.util.logging import LogLevel
from pants.util.strutil import pluralize, softwrap

from schemac_pants.rules import SchemacCompilerSources, SchemacVenvPexRequest, schemac_process
from schemac_pants.target_types import SchemaLibrarySourcesField

#: The files the formatter formats (a library's other sources, its migrations, pass through).
FORMATTED_SUFFIXES = (".esdl", ".gel", ".edgeql")


class SchemacFmtSubsystem(Subsystem):
    options_scope = "schemac-fmt"
    name = "schemac fmt"
    help = softwrap(
        """
        schemac's formatter (`python -m schemac fmt`) on the schema and query files of every
        `schema_library`: `fmt` rewrites them in the canonical layout, `lint` fails when one is not
        formatted. It changes only white space (the formatted text parses to the same syntax tree)
        and keeps every comment; see "Editor setup" in the README.
        """
    )

    skip = SkipOption("fmt", "lint")


@dataclass(frozen=True)
class SchemacFmtFieldSet(FieldSet):
    required_fields = (SchemaLibrarySourcesField,)

    sources: SchemaLibrarySourcesField


class SchemacFmtRequest(FmtTargetsRequest):
    field_set_type = SchemacFmtFieldSet
    tool_subsystem = SchemacFmtSubsystem
    partitioner_type = PartitionerType.DEFAULT_SINGLE_PARTITION


@rule(desc="Format with schemac fmt", level=LogLevel.DEBUG)
async def schemac_fmt(request: SchemacFmtRequest.Batch[SchemacFmtFieldSet, Any]) -> FmtResult:
    files = tuple(f for f in request.files if f.endswith(FORMATTED_SUFFIXES))
    if not files:
        return FmtResult(input=request.snapshot, output=request.snapshot, stdout="", stderr="",
                         tool_name=request.tool_name)
    venv_pex, compiler = await MultiGet(Get(VenvPex, SchemacVenvPexRequest()), Get(SchemacCompilerSources))
    input_digest = await Get(Digest, MergeDigests([request.snapshot.digest, compiler.digest]))
    process = schemac_process(venv_pex, ("fmt", *files), input_digest,
                              f"Run schemac fmt on {pluralize(len(files), 'file')}.", with_output=False)
    # Every input file is an output: the ones not formatted pass through unchanged.
    process = dataclasses.replace(process, output_files=tuple(request.files))
    result = await Get(ProcessResult, VenvPexProcess, process)
    return await FmtResult.create(request, result)


def rules():
    return [*collect_rules(), *SchemacFmtRequest.rules()]
