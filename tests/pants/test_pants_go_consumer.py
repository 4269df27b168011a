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
import shutil
import subprocess
from pathlib import Path
from typing import Dict

import pytest

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


@pytest.mark.slow
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


def test_launcher_installs_go121_once_when_missing(tmp_path: Path) -> None:
    """./pants runs .ci/go121.sh (here a stub) only while Go 1.21's `go` is missing."""
    # The launcher needs only itself, pants.toml (the pex pin) and .tools/ (this checkout's
    # verified pex CLI, copied: no rebuild); .ci/go121.sh is a stub.
    clone = tmp_path / "clone"
    (clone / ".ci").mkdir(parents=True)
    for name in ("pants", "pants.toml"):
        shutil.copy2(REPO_ROOT / name, clone / name)
    tools = REPO_ROOT / ".tools"
    if (tools / "pex-v2.1.137.pex.verified").is_file():
        (clone / ".tools").mkdir()
        for name in ("pex-v2.1.137.pex", "pex-v2.1.137.pex.verified"):
            shutil.copy2(tools / name, clone / ".tools" / name)
    fake_dir = tmp_path / "go-1.21" / "bin"
    calls = tmp_path / "calls"
    (clone / ".ci" / "go121.sh").write_text(
        "#!/usr/bin/env bash\n"
        f"echo called >> {calls}\n"
        f"mkdir -p {fake_dir} && printf '#!/bin/sh\\n' > {fake_dir}/go && chmod +x {fake_dir}/go\n"
        f"echo {fake_dir}/go\n"
    )
    env = {**_clean_env(), "SCHEMAC_PANTS_SETUP_ONLY": "1", "SCHEMAC_GO121_DIR": str(fake_dir)}
    for _ in range(2):
        proc = subprocess.run(
            [str(clone / "pants")], cwd=clone, env=env, capture_output=True, text=True, timeout=900
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
    assert calls.read_text() == "called\n"
    # A failing install stops the launcher with a message naming the way out.
    (clone / ".ci" / "go121.sh").write_text("#!/usr/bin/env bash\necho no apt here >&2\nexit 1\n")
    proc = subprocess.run(
        [str(clone / "pants")],
        cwd=clone,
        env={**env, "SCHEMAC_GO121_DIR": str(tmp_path / "missing")},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode != 0
    assert "no apt here" in proc.stderr and "SCHEMAC_PANTS_SKIP_GO121=1" in proc.stderr, proc.stderr
    proc = subprocess.run(
        [str(clone / "pants")],
        cwd=clone,
        env={**env, "SCHEMAC_GO121_DIR": str(tmp_path / "missing"), "SCHEMAC_PANTS_SKIP_GO121": "1"},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
