"""`pants fmt` / `pants lint` with schemac's formatter (schemac_pants.fmt), under Pants' RuleRunner
with the real formatter process: the batch Pants' fix/lint machinery builds for a library's
sources (all of them, migrations included) comes back with the schema and query files formatted
and every other file unchanged (`lint` fails when `did_change`); a formatted library is left as
it is."""

from __future__ import annotations

from typing import Tuple

import pytest
from pants.core.goals.fmt import FmtResult
from pants.core.util_rules.partitions import _EmptyMetadata
from pants.engine.addresses import Address
from pants.engine.fs import Digest, DigestContents
from pants.engine.target import HydratedSources, HydrateSourcesRequest
from pants.testutil.rule_runner import QueryRule, RuleRunner

from schemac_pants import register
from schemac_pants.fmt import SchemacFmtFieldSet, SchemacFmtRequest, SchemacFmtSubsystem

from test_pants_codegen_rules import ENV_INHERIT, pants_options  # noqa: F401  (fixture)

SCHEMA = "enum Status {Open,Closed}\ntype Ticket{required title:str;  # the title\nstatus: Status;}\n"
QUERY = "select Ticket {id,title}\n  filter .status=Status.Open\n"
MIGRATION = "CREATE TABLE  x ();\n"


@pytest.fixture
def rule_runner(pants_options: Tuple[str, ...]) -> RuleRunner:  # noqa: F811
    rr = RuleRunner(rules=[*register.rules(), QueryRule(FmtResult, [SchemacFmtRequest.Batch]),
                           QueryRule(HydratedSources, [HydrateSourcesRequest]),
                           QueryRule(DigestContents, [Digest])],
                    target_types=register.target_types())
    rr.set_options(list(pants_options), env_inherit=ENV_INHERIT)
    return rr


def _fmt(rr: RuleRunner) -> FmtResult:
    field_set = SchemacFmtFieldSet.create(rr.get_target(Address("db")))
    snapshot = rr.request(HydratedSources, [HydrateSourcesRequest(field_set.sources)]).snapshot
    batch = SchemacFmtRequest.Batch(SchemacFmtSubsystem.options_scope, snapshot.files, _EmptyMetadata(),
                                    snapshot=snapshot)
    return rr.request(FmtResult, [batch])


def _contents(rr: RuleRunner, result: FmtResult):
    return {fc.path: fc.content.decode() for fc in rr.request(DigestContents, [result.output.digest])}


def test_formats_schema_and_query_files_and_nothing_else(rule_runner: RuleRunner) -> None:
    rule_runner.write_files({"db/BUILD": "schema_library()", "db/schema.esdl": SCHEMA,
                             "db/queries/open_tickets.edgeql": QUERY,
                             "db/queries/ok.edgeql": "select Ticket { id }\n",
                             "db/migrations/000001_init.up.sql": MIGRATION})
    result = _fmt(rule_runner)
    assert result.did_change  # what makes `lint` fail
    out = _contents(rule_runner, result)
    assert out["db/schema.esdl"] == (
        "enum Status { Open, Closed }\ntype Ticket {\n  required title: str;  # the title\n  status: Status;\n}\n")
    assert out["db/queries/open_tickets.edgeql"] == "select Ticket { id, title }\n  filter .status = Status.Open\n"
    assert out["db/queries/ok.edgeql"] == "select Ticket { id }\n"
    assert out["db/migrations/000001_init.up.sql"] == MIGRATION  # passes through unchanged
    assert "db/schema.esdl" in result.message() and "ok.edgeql" not in result.message()
    # once formatted (what `fmt` writes back), the library is left as it is: `lint` passes
    rule_runner.write_files(out)
    again = _fmt(rule_runner)
    assert not again.did_change and again.message() == "schemac-fmt made no changes."


def test_a_file_that_does_not_parse_fails_with_the_compilers_diagnostic(rule_runner: RuleRunner) -> None:
    rule_runner.write_files({"db/BUILD": "schema_library()", "db/schema.esdl": "type Ticket {\n  title: str;\n}\n",
                             "db/queries/bad.edgeql": "select Ticket {\n"})
    with pytest.raises(Exception) as e:
        _fmt(rule_runner)
    assert "db/queries/bad.edgeql:1:" in str(e.value) and "error[E0101]" in str(e.value), str(e.value)
