"""editors/schemac-lsp from a fresh clone (issue 29, item 7): without the test venv it fell
back to a python without lark/pygls and the editor only said `Client 1 quit with exit code 1`.
Now it finds a Python that can start the server (`python -m schemac lsp --check`), else
creates its own venv once from editors/lsp-requirements.txt, else says plainly what is
missing and how to get it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _clone(tmp_path: Path) -> Path:
    """A checkout without .venv-test: the launcher, its requirements and the compiler."""
    root = tmp_path / "clone"
    (root / "editors").mkdir(parents=True)
    for f in ("schemac-lsp", "lsp-requirements.txt"):
        shutil.copy2(REPO / "editors" / f, root / "editors" / f)
    (root / "pants-plugins").symlink_to(REPO / "pants-plugins")
    return root


def _bare_path(tmp_path: Path) -> str:
    """PATH with a python3 that lacks the server's packages (the system's, without lark/pygls),
    and no `schemac` command."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "head", "sed", "tail", "dirname", "mkdir", "rm", "mv", "cat", "printf"):
        exe = shutil.which(tool)
        if exe:
            (bin_dir / tool).symlink_to(exe)
    return str(bin_dir)


def _launch(root: Path, tmp_path: Path, *args, **env):
    full = {"PATH": _bare_path(tmp_path) if not (tmp_path / "bin").exists() else str(tmp_path / "bin"),
            "HOME": str(tmp_path / "home"), "SCHEMAC_LSP_VENV": str(tmp_path / "lsp-venv"), **env}
    return subprocess.run([str(root / "editors" / "schemac-lsp"), *args], env=full, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)


def test_nothing_to_run_on_is_said_plainly(tmp_path):
    root = _clone(tmp_path)
    proc = _launch(root, tmp_path, SCHEMAC_LSP_NO_INSTALL="1")
    assert proc.returncode == 1
    assert "cannot start the schemac language server: no Python with its packages (lark, jinja2, pygls 2.x, " \
           "lsprotocol) was found" in proc.stderr
    assert 'pip install "' in proc.stderr and "[lsp]" in proc.stderr and "SCHEMAC_PYTHON" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_python_without_the_packages_is_named_with_what_it_lacks(tmp_path):
    root = _clone(tmp_path)
    bare = tmp_path / "bare-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    proc = _launch(root, tmp_path, SCHEMAC_PYTHON=str(bare / "bin" / "python"))
    assert proc.returncode == 1
    assert f"- {bare / 'bin' / 'python'}: error: the compiler needs the Python package 'lark'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_an_existing_launcher_venv_or_installed_command_is_used(tmp_path):
    root = _clone(tmp_path)
    # The launcher's venv, standing in: a python that has the packages (the test venv's).
    venv = tmp_path / "lsp-venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    (venv / "python").chmod(0o755)
    proc = _launch(root, tmp_path, "--check", SCHEMAC_LSP_NO_INSTALL="1")
    assert proc.returncode == 0, proc.stderr
    assert "language server can start" in proc.stdout and str(root / "pants-plugins") in proc.stdout
    shutil.rmtree(tmp_path / "lsp-venv")
    # An installed `schemac` command: its interpreter.
    (tmp_path / "bin" / "schemac").write_text(f"#!{sys.executable}\nimport sys\n")
    (tmp_path / "bin" / "schemac").chmod(0o755)
    proc = _launch(root, tmp_path, "--check", SCHEMAC_LSP_NO_INSTALL="1")
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_a_fresh_clone_gets_its_own_venv_once(tmp_path):
    """The package index is needed once (as for tests/run)."""
    root = _clone(tmp_path)
    # A plain CPython (the test venv's base interpreter), as a fresh machine's python3.
    python3 = os.path.join(sys.base_prefix, "bin", "python3")
    path = _bare_path(tmp_path)
    (tmp_path / "bin" / "python3").symlink_to(python3)
    env = {k: v for k, v in os.environ.items() if k.startswith(("PIP_", "PYENV"))}
    proc = _launch(root, tmp_path, **env)  # stdin closed: the server starts, reads EOF and ends
    assert "creating " + str(tmp_path / "lsp-venv") in proc.stderr, proc.stderr
    assert "ready: " in proc.stderr, proc.stderr
    proc = _launch(root, tmp_path, "--check", SCHEMAC_LSP_NO_INSTALL="1")
    assert proc.returncode == 0 and str(tmp_path / "lsp-venv" / "bin" / "python") in proc.stdout, proc.stderr
    assert path
