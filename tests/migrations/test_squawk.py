"""squawk (the Postgres migration linter teams run in CI) over the migrations in the repository:
the committed histories (schemas/*/migrations), their exports (generated/*/sql) and the golden
cases' first migrations (tests/cases/*/expected/sql). Every migration the other migration tests
generate is linted as it is written (migration_harness.Lib.generate). The configs are
/.squawk.toml, tests/squawk/down.toml and tests/squawk/no-transaction.toml: each excluded rule
has its one-line reason there; everything else must be silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from squawk_lint import REPO, lint, squawk_binary


@pytest.fixture(scope="module", autouse=True)
def _squawk():
    if squawk_binary() is None:
        import os

        if os.environ.get("SCHEMAC_TESTS_RUN") == "1":
            pytest.fail("squawk is not installed (tests/squawk/setup)")
        pytest.skip("squawk is not installed (tests/run installs it)")


def _files():
    out = sorted(REPO.glob("schemas/*/migrations/*.sql")) + sorted(REPO.glob("generated/*/sql/0*.sql"))
    out += sorted(REPO.glob("tests/cases/*/expected/sql/0*.sql"))
    return out


def test_every_committed_and_golden_migration_is_clean():
    files = _files()
    assert len(files) >= 20
    warnings = lint(files)
    assert not warnings, "\n".join(f"{w}: {r} {m}" for w, r, m in warnings)


def test_the_lint_catches_what_the_generator_no_longer_writes(tmp_path):
    """The check can fail: the forms the issue found in the old output are each reported."""
    old = tmp_path / "000002_old.up.sql"
    old.write_text('CREATE INDEX "ix_t_a" ON "t" ("a");\n'
                   'ALTER TABLE "t" ADD CONSTRAINT "fk" FOREIGN KEY ("b") REFERENCES "u" ("id");\n'
                   'ALTER TABLE "t" ADD CONSTRAINT "uq" UNIQUE ("c");\n'
                   'DROP INDEX "ix_t_b";\n')
    rules = {r for _, r, _ in lint([old])}
    assert {"require-concurrent-index-creation", "require-lock-timeout", "require-statement-timeout",
            "constraint-missing-not-valid", "adding-foreign-key-constraint", "disallowed-unique-constraint",
            "require-concurrent-index-deletion"} <= rules, rules
