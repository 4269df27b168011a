"""A TypeScript consumer built and tested by Pants itself: `./pants test tests/pants_consumers/ts::`.

tests/pants_consumers/ts is a Node package (`package_json` + package-lock.json: typescript, pg,
@types/pg, @types/node) whose sources (`resources`) depend on //schemas/jobs explicitly. Backend
schemac_pants.javascript puts the library's generated TypeScript into the `javascript_test`'s
sandbox; Pants installs the package (`npm clean-install`) and runs its `test` script, which
compiles src/ and the generated code with `tsc --strict` and runs node's test runner against
DATABASE_URL. Slow: two Pants runs (~20 s each warm, longer on a machine's first npm install).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Dict

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
CONSUMER = "tests/pants_consumers/ts"


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


@pytest.mark.slow
def test_ts_consumer_passes_under_pants_test(pg) -> None:
    env = {**_clean_env(), "DATABASE_URL": pg.url}

    # The test really talks to this database: without the migrations it fails.
    proc = _pants("--test-output=all", "test", f"{CONSUMER}::", env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert 'relation "job" does not exist' in out, out

    for up in sorted((REPO_ROOT / "generated/jobs/sql").glob("*.up.sql")):
        pg.execute(up.read_text())

    proc = _pants("--test-output=all", "dependencies", "test", f"{CONSUMER}::", env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    # Declared on the consumer's sources (generated files have no owners to infer).
    assert "schemas/jobs:jobs" in proc.stdout.splitlines(), proc.stdout
    # tsc compiled the consumer with the generated runner, then node's test runner passed both.
    assert "tsc -p tsconfig.json --strict" in out, out
    for name in (
        "enqueue, absorb a Pending twin, hit the typed unique violation, claim",
        "bulk enqueue and an all-or-nothing transaction",
    ):
        assert f"ok 1 - {name}" in out or f"ok 2 - {name}" in out, out
    assert "# pass 2" in out and "# fail 0" in out, out
    assert "# skipped 0" in out, out
    # It ran against this database: a claimed job and its Pending successor; the batch actor
    # holds the bulk-enqueued jobs and the one committed transaction's, not the rolled-back ones.
    rows = pg.execute(
        "SELECT status FROM job WHERE actor = 'pants-ts-consumer' ORDER BY status"
    )
    assert [r[0] for r in rows] == ["Pending", "Running"], rows
    rows = pg.execute(
        "SELECT name FROM job WHERE actor = 'pants-ts-consumer-batch' AND status = 'Pending'"
        " ORDER BY name"
    )
    assert [r[0] for r in rows] == ["a", "b", "c", "d"], rows
