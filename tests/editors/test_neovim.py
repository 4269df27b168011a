"""Neovim (Debian's `neovim`, 0.7) with editors/nvim/schemac.lua, headless: open the design note's
claim query, type `QueueStatus.` after `status := `, trigger completion through Neovim's built-in
LSP client, get the four members."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def nvim():
    exe = shutil.which("nvim")
    if exe is None:
        if os.environ.get("SCHEMAC_TESTS_RUN") == "1":
            pytest.fail("nvim is missing (tests/run installs Debian's neovim)")
        pytest.skip("nvim is missing")
    return exe


def test_completion_after_enum_name_dot_in_neovim(nvim, tmp_path):
    out = tmp_path / "labels.txt"
    env = dict(os.environ, SCHEMAC_NVIM_OUT=str(out), SCHEMAC_PYTHON=sys.executable,
               SCHEMAC_NVIM_FILE=str(REPO / "schemas" / "jobs" / "queries" / "claim_job.edgeql"),
               SCHEMAC_NVIM_SERVER=str(REPO / "editors" / "schemac-lsp"), HOME=str(tmp_path),
               XDG_STATE_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path), XDG_CACHE_HOME=str(tmp_path / "cache"))
    r = subprocess.run([nvim, "--headless", "--clean", "-c", f"luafile {REPO / 'editors' / 'nvim' / 'complete_test.lua'}"],
                       env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    labels = out.read_text().split() if out.exists() else []
    assert r.returncode == 0 and labels == ["Pending", "Running", "Failed", "Processed"], (
        r.returncode, labels, r.stdout, r.stderr)
    assert "quit with exit code" not in r.stdout + r.stderr  # the server ended cleanly
