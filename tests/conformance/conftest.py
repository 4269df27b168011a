"""Fixtures of the conformance suite: one database per Gel test class (created on first use
in each pytest process, dropped at the end of the session) and the outcome log."""

from __future__ import annotations

import json
import os
import time

import pytest

import conformance_harness as harness

KEEP_OPEN = 3
OUT_DIR = os.environ.get("SCHEMAC_CONFORMANCE_OUT") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), ".conformance")


@pytest.fixture(scope="session")
def _conformance_fixtures(database_url):
    from urllib.parse import quote, urlsplit, urlunsplit

    def url_with_dbname(url, name):
        return urlunsplit(urlsplit(url)._replace(path="/" + quote(name, safe="")))

    made = {}
    yield made, database_url, (lambda name: url_with_dbname(database_url, name))
    for fx in made.values():
        fx.close(database_url)


@pytest.fixture
def conformance_fixture(_conformance_fixtures):
    made, admin, make_url = _conformance_fixtures

    def get(area, cls):
        key = (area, cls)
        if key not in made:
            # the cases run fixture after fixture: keep the last few databases open, not all
            # (each holds a connection for the session; the whole suite shares the server)
            for old in list(made)[:-(KEEP_OPEN - 1)]:
                made.pop(old).close(admin)
            fx = harness.Fixture(area, cls, harness.load_area(area)["fixtures"][cls], reduce=True)
            made[key] = fx
            fx.open(admin, make_url)
        else:
            made[key] = made.pop(key)  # most recently used last
        return made[key]

    return get


@pytest.fixture(scope="session")
def _conformance_outcomes():
    outcomes = []
    yield outcomes
    if outcomes:
        os.makedirs(OUT_DIR, exist_ok=True)
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        # the run's id (the same in every xdist worker): summary.py reads the newest run's files
        run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"{os.getpid()}-{time.time()}"
        with open(os.path.join(OUT_DIR, f"outcomes-{worker}.json"), "w") as f:
            json.dump({"run": run, "time": time.time(), "outcomes": outcomes}, f, indent=0, default=str)


@pytest.fixture
def conformance_log(_conformance_outcomes):
    def log(area, case, out):
        _conformance_outcomes.append({
            "id": case["id"], "area": area, "source": case["source"], "status": out.status,
            "code": out.code, "message": out.message[:500], "query_code": out.query_code,
            "got": None if out.status != "MISMATCH" else json.dumps(out.got, default=str)[:2000],
            "reduced": None if out.reduced is None else {
                "status": out.reduced.status, "code": out.reduced.code, "message": out.reduced.message[:500],
                "query_code": out.reduced.query_code,
                "got": None if out.reduced.status != "MISMATCH" else json.dumps(out.reduced.got, default=str)[:2000]}})
    return log
