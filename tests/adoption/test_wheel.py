"""schemac installable (issue 29): `pip install ./pants-plugins` -- here a wheel built by the one
documented command -- into a fresh venv gives a `schemac` command that compiles schemas/jobs to
the committed output, applies its migrations with the [migrate] extra, and can start the
language server with the [lsp] extra; the wheel also carries the `schemac_pants` backend and
takes its version from schemac/__init__.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def build_wheel(dest: Path) -> Path:
    """The README's command, on a copy of pants-plugins/ (pip builds in the tree)."""
    readme = (REPO / "README.md").read_text()
    [command] = re.findall(r"^(python -m pip wheel [^\n]*\./pants-plugins)$", readme, re.M)
    src = dest / "src"
    shutil.copytree(REPO / "pants-plugins", src / "pants-plugins",
                    ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    argv = command.split()
    argv[0] = sys.executable
    argv[argv.index("dist")] = str(dest / "dist")
    proc = subprocess.run(argv, cwd=src, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600,
                          env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    assert proc.returncode == 0, proc.stdout
    [wheel] = (dest / "dist").glob("schemac-*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_holds_the_compiler_the_backend_and_one_version(wheel):
    import schemac

    assert wheel.name == f"schemac-{schemac.__version__}-py3-none-any.whl"
    names = zipfile.ZipFile(wheel).namelist()
    for must in ("schemac/__main__.py", "schemac/syntax/grammar.lark", "schemac/lsp/server.py",
                 "schemac_pants/register.py", "schemac_pants/rules.py"):
        assert must in names, must
    assert sum(n.endswith(".j2") for n in names) == sum(1 for _ in (REPO / "pants-plugins").rglob("*.j2"))
    meta = zipfile.ZipFile(wheel).read(f"schemac-{schemac.__version__}.dist-info/METADATA").decode()
    assert f"Version: {schemac.__version__}\n" in meta
    assert "Provides-Extra: migrate" in meta and "Provides-Extra: lsp" in meta
    entry = zipfile.ZipFile(wheel).read(f"schemac-{schemac.__version__}.dist-info/entry_points.txt").decode()
    assert "schemac = schemac.cli.entry:console_main" in entry
    assert not any("__pycache__" in n or n.startswith(("build/", "tests/")) for n in names)


@pytest.mark.slow
def test_a_fresh_venv_gets_a_working_schemac(wheel, tmp_path, pg):
    venv = tmp_path / "venv"
    base = os.path.join(sys.base_prefix, "bin", "python3")  # a plain CPython 3.9, not the test venv
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                           f"{wheel}[lsp,migrate]"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stdout
    schemac = str(venv / "bin" / "schemac")
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}  # no PYTHONPATH: the installed package
    jobs = REPO / "schemas" / "jobs"
    files = [str(p.relative_to(REPO)) for p in [jobs / "schema.esdl", *sorted((jobs / "queries").glob("*.edgeql")),
                                                 *sorted((jobs / "migrations").iterdir())]]
    out = tmp_path / "out"
    r = subprocess.run([schemac, "compile", "--library", "jobs", "--out", str(out), *files], cwd=REPO, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "schemac: compiled library jobs" in r.stderr
    want = REPO / "generated" / "jobs"
    got = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert got == {p.relative_to(want): p.read_bytes() for p in want.rglob("*") if p.is_file()}
    assert "site-packages" in subprocess.run([str(venv / "bin" / "python"), "-c", "import schemac; print(schemac.__file__)"],
                                             env=env, stdout=subprocess.PIPE, text=True).stdout
    # [migrate]: the apply runner
    r = subprocess.run([schemac, "migrate", "apply", "--dir", str(jobs / "migrations"), "--database-url", str(pg)],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert pg.execute("SELECT count(*) FROM schemac_migrations") == [(1,)]
    # [lsp]: the server's packages are there, and it answers `initialize` over stdio
    r = subprocess.run([schemac, "lsp", "--check"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert r.returncode == 0 and "language server can start" in r.stdout, r.stderr
    import json

    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"processId": None, "rootUri": None, "capabilities": {}}})
    message = f"Content-Length: {len(body)}\r\n\r\n{body}".encode()
    server = subprocess.run([schemac, "lsp"], env=env, input=message, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            timeout=120)
    assert b'"capabilities"' in server.stdout and b'"hoverProvider"' in server.stdout, server.stderr
