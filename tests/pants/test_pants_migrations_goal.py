"""`generate-migrations` and the `lint` drift check under Pants' RuleRunner (real compiler Process).

A library without history gets `000001_init` + snapshot + schemac.sum written into its
`migrations/`; lint then passes; after a schema edit lint fails with E0406 and names the change;
generate-migrations writes `000002_<slug>` and lint passes again; a hand-edited migration breaks
the chain (E0405).
"""

from __future__ import annotations

from pathlib import Path
from typing import Tuple

import pytest
from pants.core.goals.lint import LintResult
from pants.core.util_rules.partitions import _EmptyMetadata
from pants.engine.addresses import Address
from pants.testutil.rule_runner import QueryRule, RuleRunner

from schemac_pants import register
from schemac_pants.migrations import GenerateMigrations, SchemacMigrationsLintRequest, SchemaMigrationsFieldSet

from test_pants_codegen_rules import ENV_INHERIT, pants_options  # noqa: F401  (fixture)

SCHEMA = """
enum Status { Open, Closed }
type Ticket {
  required title: str;
  status: Status { default := Status.Open };
}
"""


@pytest.fixture
def rule_runner(pants_options: Tuple[str, ...]) -> RuleRunner:  # noqa: F811
    rr = RuleRunner(rules=[*register.rules(), QueryRule(LintResult, [SchemacMigrationsLintRequest.Batch])],
                    target_types=register.target_types())
    rr.set_options(list(pants_options), env_inherit=ENV_INHERIT)
    rr.pants_options = list(pants_options)  # type: ignore[attr-defined]
    return rr


def _generate(rr: RuleRunner, *args: str):
    # run_goal_rule parses options afresh: pass the pex CLI options again.
    return rr.run_goal_rule(GenerateMigrations, global_args=rr.pants_options,  # type: ignore[attr-defined]
                            args=[*args, "db::"], env_inherit=ENV_INHERIT)


class _Lint:
    def __init__(self, result: LintResult):
        self.exit_code = result.exit_code
        self.stderr = result.stdout + result.stderr


def _lint(rr: RuleRunner) -> _Lint:
    """The drift check of //db as `./pants lint` runs it (one batch per library)."""
    field_set = SchemaMigrationsFieldSet.create(rr.get_target(Address("db")))
    batch = SchemacMigrationsLintRequest.Batch("schemac-migrations", (field_set,), _EmptyMetadata())
    return _Lint(rr.request(LintResult, [batch]))


def test_generate_then_lint_then_drift(rule_runner: RuleRunner) -> None:
    rule_runner.write_files({"db/BUILD": "schema_library()", "db/schema.esdl": SCHEMA})
    lint0 = _lint(rule_runner)
    assert lint0.exit_code == 1 and "has no migration history" in lint0.stderr, lint0.stderr

    gen = _generate(rule_runner)
    assert gen.exit_code == 0, gen.stderr
    assert "db: wrote 000001_init" in gen.stdout
    root = Path(rule_runner.build_root) / "db" / "migrations"
    assert sorted(p.name for p in root.iterdir()) == [
        "000001_init.down.sql", "000001_init.up.sql", "schemac.sum", "snapshot.json"]
    assert _lint(rule_runner).exit_code == 0

    rule_runner.write_files({"db/schema.esdl": SCHEMA.replace("required title: str;",
                                                              "required title: str;\n  note: str;")})
    drift = _lint(rule_runner)
    assert drift.exit_code == 1
    assert "E0406" in drift.stderr and "add column ticket.note" in drift.stderr, drift.stderr

    gen2 = _generate(rule_runner, "--generate-migrations-slug=add_note")
    assert gen2.exit_code == 0, gen2.stderr
    assert (root / "000002_add_note.up.sql").read_text().count('ADD COLUMN "note" text;') == 1
    assert _lint(rule_runner).exit_code == 0

    up = root / "000001_init.up.sql"
    # Through write_files, which tells the engine the file changed (a bare write may be unseen).
    rule_runner.write_files({"db/migrations/000001_init.up.sql": up.read_text() + "-- edited\n"})
    broken = _lint(rule_runner)
    assert broken.exit_code == 1 and "E0405" in broken.stderr, broken.stderr


def test_destructive_change_is_refused_without_hint(rule_runner: RuleRunner) -> None:
    rule_runner.write_files({"db/BUILD": "schema_library()", "db/schema.esdl": SCHEMA})
    assert _generate(rule_runner).exit_code == 0
    rule_runner.write_files({"db/schema.esdl": SCHEMA.replace("  status: Status { default := Status.Open };\n", "")})
    refused = _generate(rule_runner)
    assert refused.exit_code == 1
    assert "E0402" in refused.stderr and "drop property Ticket.status;" in refused.stderr
    allowed = _generate(rule_runner, "--generate-migrations-allow-destructive")
    assert allowed.exit_code == 0, allowed.stderr


@pytest.mark.slow
def test_pants_run_applies_a_librarys_migrations(pg) -> None:
    """`./pants run schemas/jobs:` applies the committed history; `-- status`, `-- down 1` and
    `-- resolve --version N` (as a failure's hint prints it) work through Pants too."""
    import os
    import subprocess

    repo = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PANTS_") and k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["DATABASE_URL"] = pg.url

    def run(*args: str):
        return subprocess.run([str(repo / "pants"), "--no-pantsd", "run", "schemas/jobs:", *(("--", *args) if args else ())],
                              cwd=repo, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=1200)

    first = run()
    assert first.returncode == 0, first.stderr
    assert "applied 000001_init" in first.stdout
    assert pg.execute("SELECT version, state FROM schemac_migrations") == [(1, "applied")]
    assert pg.execute("SELECT count(*) FROM job") == [(0,)]
    # The runner's other commands, after `--` (`./pants run schemas/jobs: -- status`). (Each
    # Pants run costs ~30-60 s here: "nothing to do" and the rest are covered without Pants in
    # tests/migrations/test_runner_faults.py.)
    st = run("status")
    assert st.returncode == 0 and "1 applied, 0 pending" in st.stdout, st.stdout + st.stderr
    reverted = run("down", "1")
    assert reverted.returncode == 0 and "reverted 000001_init" in reverted.stdout, reverted.stderr
    assert pg.execute("SELECT to_regclass('job')") == [(None,)]
    # A failure's hint names the Pants command, which works as printed.
    pg.execute("INSERT INTO schemac_migrations (library, version, name, checksum, state, error) "
               "VALUES ('jobs', 1, '000001_init', 'x', 'failed', 'test')")
    failed = run()
    assert failed.returncode == 1 and "`./pants run schemas/jobs:jobs -- resolve --version 1`" in failed.stderr, failed.stderr
    resolved = run("resolve", "--version", "1")
    assert resolved.returncode == 0 and "resolved 000001_init" in resolved.stdout, resolved.stderr
    assert pg.execute("SELECT count(*) FROM schemac_migrations") == [(0,)]
