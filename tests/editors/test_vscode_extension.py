"""The VS Code extension (editors/vscode): its TextMate grammars' scopes (vscode-tmgrammar-test on
test/schema.tmtest and query.tmtest), its server-command logic (node's test runner), and the .vsix
that @vscode/vsce packages from it (what it holds and leaves out)."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXT = REPO / "editors" / "vscode"


@pytest.fixture(scope="module")
def toolchain():
    bins = EXT / "node_modules" / ".bin"
    if not (bins / "vsce").exists() or not (bins / "vscode-tmgrammar-test").exists():
        if os.environ.get("SCHEMAC_TESTS_RUN") == "1":
            pytest.fail("editors/vscode/node_modules is missing (tests/run installs it)")
        pytest.skip("editors/vscode/node_modules is missing (run through tests/run)")
    return bins


def _run(*cmd, cwd=EXT):
    return subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, timeout=300)


def test_grammar_scopes(toolchain):
    r = _run(str(toolchain / "vscode-tmgrammar-test"), "-g", "syntaxes/esdl.tmLanguage.json",
             "-g", "syntaxes/edgeql.tmLanguage.json", "test/schema.tmtest", "test/query.tmtest")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "schema.tmtest run successfuly" in r.stdout and "query.tmtest run successfuly" in r.stdout


def test_grammar_tests_are_generated_from_their_cases(tmp_path):
    """test/make_tests.py writes the grammar tests; the committed ones are its output."""
    copy = tmp_path / "test"
    shutil.copytree(EXT / "test", copy)
    r = subprocess.run([sys.executable, str(copy / "make_tests.py")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    for name in ("schema.tmtest", "query.tmtest"):
        assert (copy / name).read_text() == (EXT / "test" / name).read_text(), f"run python3 test/make_tests.py"


def test_server_command_logic(toolchain):
    r = _run("node", "--test", "test/")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "# fail 0" in r.stdout


def test_package_vsix(toolchain, tmp_path):
    out = tmp_path / "schemac.vsix"
    r = _run(str(toolchain / "vsce"), "package", "--no-yarn", "--allow-missing-repository", "--skip-license",
             "-o", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    names = zipfile.ZipFile(out).namelist()
    for want in ("extension/extension.js", "extension/server.js", "extension/package.json",
                 "extension/language-configuration.json", "extension/syntaxes/esdl.tmLanguage.json",
                 "extension/syntaxes/edgeql.tmLanguage.json",
                 "extension/node_modules/vscode-languageclient/node.js"):
        assert want in names, want
    assert not [n for n in names if "/test/" in n and n.startswith("extension/test")]
    assert not [n for n in names if "node_modules/@vscode/vsce" in n or "vscode-tmgrammar-test" in n]
    manifest = json.loads(zipfile.ZipFile(out).read("extension/package.json"))
    assert [lang["id"] for lang in manifest["contributes"]["languages"]] == ["esdl", "edgeql"]
    # the client's entry point loads the language client it bundles
    assert "vscode-languageclient/node" in zipfile.ZipFile(out).read("extension/extension.js").decode()
