"""Keeps tests/bench/runner_overhead.py from rotting: the whole script (both programs built and
run, statement counts, EXPLAIN, the table) with tiny sizes on the test's fresh database. No
timing assertions."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]


@pytest.mark.slow
def test_runner_overhead_script_runs(pg):
    missing = [t for t in ("node", "go") if not shutil.which(t)]
    if not (REPO_ROOT / "tests" / "ts" / "node_modules" / ".bin" / "tsc").exists():
        missing.append("tests/ts/node_modules (npm ci)")
    if missing:
        message = f"missing: {', '.join(missing)}: run tests/run"
        if os.environ.get("SCHEMAC_TESTS_RUN") == "1":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    result = subprocess.run(
        [sys.executable, str(HERE / "runner_overhead.py"), "--use-database",
         "--pairs", "20", "--posts", "5", "--feed-repeat", "2", "--rounds", "2",
         "--background-authors", "5", "--background-posts", "3"],
        cwd=REPO_ROOT, env=dict(os.environ, DATABASE_URL=pg.url),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600,
    )
    assert result.returncode == 0, f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"
    out = result.stdout
    for lang in ("TypeScript (node-postgres)", "Go (pgx v5)"):
        assert f"{lang}: enqueueJob+claimJob = 2 statements; authorFeed = 1 statement(s) for 5 posts" in out
    assert "indexes used: ix_post_author_id, post_tags_pkey, tag_pkey" in out
    assert "machine: " in out and "cores" in out
    for label in ("20 enqueueJob+claimJob", "author_feed x2 (5 posts)"):
        assert sum(line.startswith(label) for line in out.splitlines()) == 2, out
