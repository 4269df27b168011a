"""`./pants` without a terminal (issue 29, item 6): a first `./pants export-codegen ::` in CI or
behind a pipe was silent for minutes, since Pants shows progress only on a terminal. The
launcher now says every SCHEMAC_PANTS_PROGRESS_SECONDS that Pants is still at work, passes stdin
through and keeps Pants' exit status. Checked with a stand-in for the Pants venv (the launcher's
own logic, not Pants, is under test)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

FAKE_PANTS = """#!/bin/sh
# stands in for `python -m pants.bin.pants_loader ARGS`: echoes stdin and its arguments, then works a while
shift 2
cat
echo "args: $*"
sleep "${FAKE_SECONDS:-3}"
exit 7
"""


def _buildroot(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".tools").mkdir(parents=True)
    shutil.copy(REPO / "pants", root / "pants")
    shutil.copy(REPO / "pants.toml", root / "pants.toml")
    import re

    pinned = re.search(r'"(v2\.1\.137\|linux_x86_64\|[0-9a-f]{64}\|[0-9]+)"', (REPO / "pants.toml").read_text()).group(1)
    (root / ".tools" / "pex-v2.1.137.pex").write_text("")
    (root / ".tools" / "pex-v2.1.137.pex.verified").write_text(pinned + "\n")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / ".schemac-venv-complete").write_text(
        "pantsbuild.pants==2.17.1 pantsbuild.pants.testutil==2.17.1\n")
    (venv / "bin" / "python").write_text(FAKE_PANTS)
    (venv / "bin" / "python").chmod(0o755)
    return root


def _run(tmp_path: Path, **env):
    root = _buildroot(tmp_path)
    full = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "SCHEMAC_PANTS_VENV": str(tmp_path / "venv"),
            "SCHEMAC_PANTS_SKIP_GO121": "1", **env}
    return subprocess.run([str(root / "pants"), "export-codegen", "::"], input="from stdin\n", env=full,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)


def test_without_a_terminal_the_launcher_reports_progress(tmp_path):
    proc = _run(tmp_path, SCHEMAC_PANTS_PROGRESS_SECONDS="1", FAKE_SECONDS="3")
    assert proc.returncode == 7
    assert proc.stdout == "from stdin\nargs: export-codegen ::\n"
    lines = [l for l in proc.stderr.splitlines() if l.startswith("./pants: still working after ")]
    assert len(lines) >= 2, proc.stderr
    assert "export-codegen ::" in lines[0] and "no terminal" in lines[0]


def test_progress_can_be_turned_off(tmp_path):
    proc = _run(tmp_path, SCHEMAC_PANTS_PROGRESS_SECONDS="0", FAKE_SECONDS="2")
    assert proc.returncode == 7 and proc.stdout == "from stdin\nargs: export-codegen ::\n"
    assert "still working" not in proc.stderr
