"""The language server's end-to-end tests (tests/lsp/e2e/lsp_*.py, pytest-lsp over stdio), run
from the main suite.

pytest-lsp 1.x cannot live in the test venv (it needs pytest >= 8.2, Pants' testutil pins
pytest < 7.1), so those tests run in their own client venv ($SCHEMAC_LSP_CLIENT_PYTHON, built by
tests/run from tests/lsp/requirements.txt), against a server started with this interpreter
(the test venv's CPython 3.9, as an editor would start it). Each of them is one test here: the
selected ones run in one inner pytest session, whose JUnit report gives each its outcome.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET
from typing import Dict, List, Tuple

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
CLIENT = os.environ.get("SCHEMAC_LSP_CLIENT_PYTHON", "")


def _inner_ids() -> List[str]:
    """Inner test ids (``lsp_completion.py::test_x``), by reading the files: collection must
    not depend on the client venv being there."""
    import ast

    ids = []
    for f in sorted((HERE / "e2e").glob("lsp_*.py")):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, (ast.AsyncFunctionDef, ast.FunctionDef)) and node.name.startswith("test_"):
                ids.append(f"{f.name}::{node.name}")
    return ids


IDS = _inner_ids()
_RESULTS: Dict[Tuple[str, ...], Dict[str, Tuple[str, str]]] = {}


def _run_inner(selected: Tuple[str, ...], tmp: pathlib.Path) -> Dict[str, Tuple[str, str]]:
    report = tmp / "lsp-junit.xml"
    env = dict(os.environ, SCHEMAC_LSP_SERVER_PYTHON=sys.executable,
               PYTHONPATH=str(REPO / "pants-plugins"), PYTHONDONTWRITEBYTECODE="1")
    cmd = [CLIENT, "-m", "pytest", "-c", str(HERE / "pytest.ini"), "-q", f"--junitxml={report}",
           *[str(HERE / "e2e" / i) for i in selected]]
    proc = subprocess.run(cmd, cwd=str(HERE), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=900)
    out: Dict[str, Tuple[str, str]] = {}
    if report.exists():
        for case in ET.parse(report).getroot().iter("testcase"):
            name = case.get("name", "")
            file = pathlib.Path((case.get("classname") or "").replace(".", "/")).name + ".py"
            failure = case.find("failure")
            if failure is None:
                failure = case.find("error")
            skipped = case.find("skipped")
            if failure is not None:
                out[f"{file}::{name}"] = ("failed", (failure.get("message") or "") + "\n" + (failure.text or ""))
            elif skipped is not None:
                out[f"{file}::{name}"] = ("skipped", skipped.get("message") or "")
            else:
                out[f"{file}::{name}"] = ("passed", "")
    out["__output__"] = ("", proc.stdout[-20000:])
    return out


@pytest.fixture(scope="session")
def lsp_results(request, tmp_path_factory) -> Dict[str, Tuple[str, str]]:
    if not CLIENT or not os.path.exists(CLIENT):
        if os.environ.get("SCHEMAC_TESTS_RUN") == "1":
            pytest.fail("SCHEMAC_LSP_CLIENT_PYTHON is not set or missing (tests/run sets it)")
        pytest.skip("the pytest-lsp client venv is missing (run through tests/run)")
    selected = tuple(sorted({item.callspec.params["inner"] for item in request.session.items
                             if item.originalname == "test_lsp" and hasattr(item, "callspec")}))
    if selected not in _RESULTS:
        _RESULTS[selected] = _run_inner(selected, tmp_path_factory.mktemp("lsp"))
    return _RESULTS[selected]


@pytest.mark.parametrize("inner", IDS)
def test_lsp(inner: str, lsp_results) -> None:
    status, detail = lsp_results.get(inner, ("missing", ""))
    if status == "skipped":
        pytest.skip(detail)
    if status != "passed":
        pytest.fail(f"{inner}: {status}\n{detail}\n--- inner pytest output ---\n{lsp_results['__output__'][1]}",
                    pytrace=False)
