"""A team adopts schemac without copying this tree (issue 29): a fresh Pants 2.17.1 repository in
a temporary directory outside this one gets the plugin through `[GLOBAL].plugins` from the
wheel (`[python-repos].find_links`, a local folder) and `backend_packages = ["schemac_pants"]`,
declares a `schema_library` in a folder named with `_` (as `pants tailor` would, item 2), and
runs `export-codegen` and `generate-migrations`.

What the new repository needs besides that is only what any Pants 2.17 repository needs on a
machine that reaches package indexes but not code-hosting sites: the pex CLI from a local file
(this repository's ./pants builds it; `[pex-cli]` points at it) and a CA bundle for the index."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from test_wheel import build_wheel

REPO = Path(__file__).resolve().parents[2]

SCHEMA = """\
type Member {
  required name: str;
  required email: str { constraint exclusive; };
}

type Loan {
  required member: Member;
  required title: str;
  returned: bool { default := false; };
}
"""


def _pants_setup() -> str:
    """The Pants venv's python and this repository's pex CLI (./pants sets both up once)."""
    proc = subprocess.run([str(REPO / "pants")], env={**os.environ, "SCHEMAC_PANTS_SETUP_ONLY": "1"},
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip().splitlines()[-1]


@pytest.mark.slow
def test_a_fresh_pants_repository_uses_the_plugin_from_the_wheel(tmp_path):
    import schemac

    python = _pants_setup()
    wheels = tmp_path / "wheels"
    wheel = build_wheel(tmp_path / "build")
    wheels.mkdir()
    (wheels / wheel.name).write_bytes(wheel.read_bytes())
    repo = tmp_path / "team-repo"
    assert not str(repo).startswith(str(REPO))
    pex_cli = re.search(r'^\[pex-cli\]\n(?:[^\[\n][^\n]*\n|\n)*', (REPO / "pants.toml").read_text(), re.M).group(0)
    pex_cli = pex_cli.replace("%(buildroot)s/.tools", str(REPO / ".tools"))
    lib = repo / "db" / "library_loans"
    (lib / "queries").mkdir(parents=True)
    (repo / "pants.toml").write_text(f"""\
[GLOBAL]
pants_version = "2.17.1"
plugins = ["schemac=={schemac.__version__}"]
backend_packages = ["schemac_pants"]
ca_certs_path = "/etc/ssl/certs/ca-certificates.crt"

[python-repos]
find_links = ["file://{wheels}"]

[python-bootstrap]
search_path = ["<PYENV>", "<PATH>"]

{pex_cli}""")
    (lib / "BUILD").write_text("schema_library()\n")
    (lib / "schema.esdl").write_text(SCHEMA)
    (lib / "queries" / "open_loans.edgeql").write_text(
        "select Loan { title, member: { name } } filter not .returned order by .title;\n")
    (lib / "queries" / "lend.edgeql").write_text(
        "insert Loan { member := (select Member filter .email = <str>$email), title := <str>$title };\n")
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "PYENV_ROOT", "PYENV_VERSION", "LANG")}
    env["NO_SCIE_WARNING"] = "1"

    def pants(*goals):
        proc = subprocess.run([python, "-m", "pants.bin.pants_loader", "--no-pantsd", *goals], cwd=repo, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=1800)
        assert proc.returncode == 0, proc.stdout + proc.stderr[-6000:]
        return proc

    pants("generate-migrations", "::")
    assert sorted(p.name for p in (lib / "migrations").iterdir()) == [
        "000001_init.down.sql", "000001_init.up.sql", "schemac.sum", "snapshot.json"]
    pants("export-codegen", "::")
    out = repo / "dist" / "codegen" / "db" / "library_loans"
    assert (out / "sql" / "000001_init.up.sql").read_text() == (lib / "migrations" / "000001_init.up.sql").read_text()
    assert "package library_loans\n" in (out / "go" / "queries.go").read_text()
    assert "export async function openLoans(" in (out / "ts" / "queries.ts").read_text()
    assert 'CREATE TABLE "loan" (' in (out / "sql" / "schema.sql").read_text()
