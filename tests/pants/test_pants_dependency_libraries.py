"""A `schema_library` depending on another (`dependencies=["//db/accounts"]`): the compiler gets
the dependency's schema files (`--extern accounts=...`), so `shop` links to `accounts::User`;
its SQL references the `user` table without creating it; the drift check and
generate-migrations see the dependency too."""

from __future__ import annotations

from pathlib import Path
from typing import Tuple

import pytest
from pants.core.goals.lint import LintResult
from pants.core.util_rules.partitions import _EmptyMetadata
from pants.engine.addresses import Address
from pants.engine.fs import Digest, DigestContents
from pants.engine.target import HydratedSources, HydrateSourcesRequest
from pants.testutil.rule_runner import QueryRule, RuleRunner

from schemac_pants import register
from schemac_pants.migrations import GenerateMigrations, SchemacMigrationsLintRequest, SchemaMigrationsFieldSet
from schemac_pants.target_types import SchemaLibrarySourcesField, SchemaSqlSourceField

from test_pants_codegen_rules import ENV_INHERIT, pants_options  # noqa: F401  (fixture)

FILES = {
    "db/accounts/BUILD": "schema_library()",
    "db/accounts/schema.esdl": "enum Plan { Free, Pro }\ntype User { required email: str; plan: Plan; }\n",
    "db/shop/BUILD": 'schema_library(dependencies=["//db/accounts"])',
    "db/shop/schema.esdl": "type Order { required buyer: accounts::User; required total: int64; }\n",
    "db/shop/queries/orders_of.edgeql":
        "select Order { total, buyer: { email } } filter .buyer.id = <uuid>$buyer",
}


@pytest.fixture
def rule_runner(pants_options: Tuple[str, ...]) -> RuleRunner:  # noqa: F811
    rr = RuleRunner(
        rules=[*register.rules(), QueryRule(HydratedSources, [HydrateSourcesRequest]),
               QueryRule(DigestContents, [Digest]), QueryRule(LintResult, [SchemacMigrationsLintRequest.Batch])],
        target_types=register.target_types(),
    )
    rr.set_options(list(pants_options), env_inherit=ENV_INHERIT)
    rr.pants_options = list(pants_options)  # type: ignore[attr-defined]
    return rr


@pytest.mark.slow
def test_a_library_links_to_a_type_of_its_dependency(rule_runner: RuleRunner) -> None:
    rule_runner.write_files(FILES)
    tgt = rule_runner.get_target(Address("db/shop"))
    hydrated = rule_runner.request(HydratedSources, [HydrateSourcesRequest(
        tgt[SchemaLibrarySourcesField], for_sources_types=(SchemaSqlSourceField,), enable_codegen=True)])
    files = {fc.path: fc.content.decode() for fc in rule_runner.request(DigestContents, [hydrated.snapshot.digest])}
    up = files["db/shop/sql/000001_init.up.sql"]
    assert 'REFERENCES "user" ("id")' in up and 'CREATE TABLE "user"' not in up

    gen = rule_runner.run_goal_rule(GenerateMigrations, global_args=rule_runner.pants_options,  # type: ignore
                                    args=["db::"], env_inherit=ENV_INHERIT)
    assert gen.exit_code == 0, gen.stderr
    assert "accounts: wrote 000001_init" in gen.stdout and "shop: wrote 000001_init" in gen.stdout
    assert (Path(rule_runner.build_root) / "db/shop/migrations/000001_init.up.sql").read_text().count(
        "CREATE TABLE") == 1
    field_set = SchemaMigrationsFieldSet.create(rule_runner.get_target(Address("db/shop")))
    result = rule_runner.request(LintResult, [SchemacMigrationsLintRequest.Batch(
        "schemac-migrations", (field_set,), _EmptyMetadata())])
    assert result.exit_code == 0, result.stderr
