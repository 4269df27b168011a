"""Gel's own query tests as schemac's conformance suite (issue 25).

One test per case (``cases/<area>.json``, written by ``transcribe.py`` from geldata/gel
``tests/test_edgeql_<area>.py``): schemac compiles the case's query (and the statements its Gel
test ran before it), PostgreSQL PREPAREs and runs them in a rolled-back transaction in the
fixture's database (one per test class: schema migrated, setup loaded, see ``conformance_harness.py``),
and the result is compared as Gel's harness compares it.

* MATCH passes; REFUSED (schemac refuses a statement with a code) passes and is counted;
* MISMATCH (a result other than Gel's, or an error where Gel returns a result) fails, and so
  does a compiled statement PostgreSQL rejects;
* a case of ``matching.txt`` (it matched once) that is now REFUSED fails: a regression;
* the cases of ``known_mismatches.txt`` are strict xfails: they fail the suite when they stop
  being MISMATCHes, so the list only shrinks.

The outcome of every case is written to ``$SCHEMAC_CONFORMANCE_OUT`` (default
``.conformance/`` at the repository root) for ``summary.py``.
"""

from __future__ import annotations

import json
import os
import uuid

import pytest

import conformance_harness as harness

CASES = harness.all_cases()
KNOWN = harness.known_mismatches()
MATCHING = harness.matching()


def test_known_mismatches_name_cases():
    """Every line of known_mismatches.txt names a transcribed case and gives a reason."""
    ids = {c["id"] for _, c in CASES} | {f"{a}:{c}" for a, c in FIXTURES}
    assert not [k for k in KNOWN if k not in ids]
    assert all(KNOWN.values())
    assert not [k for k in MATCHING if k not in ids]
    assert not MATCHING & set(KNOWN)


FIXTURES = sorted({(a, c["class"]) for a, c in CASES})


def _group(area, cls):
    # one xdist group per fixture database: its cases run on one worker, the fixtures spread
    return pytest.mark.xdist_group(f"conformance-{area}-{cls}")


@pytest.mark.parametrize("area,cls", [pytest.param(a, c, marks=_group(a, c), id=f"{a}:{c}") for a, c in FIXTURES])
def test_fixture(area, cls, conformance_fixture, request):
    """The fixture's schema (as much of it as schemac compiles) migrates on PostgreSQL, and its
    setup statements, once compiled, run."""
    if f"{area}:{cls}" in KNOWN:
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=KNOWN[f"{area}:{cls}"]))
    fx = conformance_fixture(area, cls)
    if fx.failure is not None:
        pytest.fail(f"{area}:{cls}: {fx.failure}", pytrace=False)


@pytest.mark.parametrize("area,case", [pytest.param(a, c, marks=_group(a, c["class"]), id=c["id"]) for a, c in CASES])
def test_case(area, case, conformance_fixture, conformance_log, request):
    if case["id"] in KNOWN:
        request.node.add_marker(pytest.mark.xfail(strict=True, reason=KNOWN[case["id"]]))
    fx = conformance_fixture(area, case["class"])
    out = harness.run_case(fx, case)
    conformance_log(area, case, out)
    if out.reduced is not None and out.reduced.status in ("PREPARE", "MISMATCH"):
        # the schema is refused; on what is left of it the case compiles and runs: a statement
        # PostgreSQL rejects or a wrong answer there is a failure too
        out = out.reduced
    effective = out.reduced or out
    if case["id"] in MATCHING and effective.status == "REFUSED":
        pytest.fail(f"{case['source']}: this case matched Gel's result (matching.txt) and is now refused: "
                    f"{effective.code} {effective.message}\nquery: {case['query'].strip()}", pytrace=False)
    if out.status == "PREPARE":
        pytest.fail(f"{case['source']}: {out.message}", pytrace=False)
    if out.status == "MISMATCH":
        pytest.fail(
            f"{case['source']}: MISMATCH {out.message}\nquery: {case['query'].strip()}\n"
            f"expected: {json.dumps(case['expected'])}\ngot: {json.dumps(out.got, default=str)}",
            pytrace=False)
