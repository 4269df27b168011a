"""A Go consumer built and tested by Pants itself: `./pants test tests/pants_consumers/go::`.

tests/pants_consumers/go/worker imports "example.com/schemac/schemas/jobs" (the `go_import_path` of
//schemas/jobs). Pants infers the dependency on the schema_library (backend schemac_pants.go: the
import-path mapping hook), compiles the generated package with Go 1.21 (GoCodegenBuildRequest, pgx
resolved from the consumer's go.mod) and runs the consumer's `go_test` against a fresh database
with the jobs migrations applied. Slow: one Pants run (~25 s warm, longer on a machine's first Go
build).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Dict

import pytest

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
CONSUMER = "tests/pants_consumers/go"


def _clean_env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PANTS_")}
    for k in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
        env.pop(k, None)
    return env


def _pants(*args: str, env: Dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(REPO_ROOT / "pants"), "--no-pantsd", *args],
        cwd=REPO_ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=1200,
    )


def test_go_consumer_passes_under_pants_test(pg) -> None:
    for up in sorted((REPO_ROOT / "generated/jobs/sql").glob("*.up.sql")):
        pg.execute(up.read_text())

    proc = _pants(
        "--test-output=all",
        "--go-test-args=-v",
        "dependencies",
        "test",
        f"{CONSUMER}::",
        env={**_clean_env(), "DATABASE_URL": pg.url},
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    # Inferred from the import, not declared in a BUILD file.
    assert "schemas/jobs:jobs" in proc.stdout.splitlines(), proc.stdout
    assert "--- PASS: TestEnqueueAndClaim" in out, out
    assert "SKIP" not in out, out
    # It really ran against this database: two jobs of its actor, one claimed.
    rows = pg.execute(
        "SELECT status FROM job WHERE actor = 'pants-go-consumer' ORDER BY status"
    )
    assert [r[0] for r in rows] == ["Pending", "Running"], rows
