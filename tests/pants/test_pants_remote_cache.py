"""End-to-end: Pants' remote cache against a real REAPI server (BuildGrid), from two clones.

BuildGrid (CAS + ActionCache, from the Python package index; tests/run builds its venv with
tests/buildgrid/setup) runs on loopback with an empty cache. Then, with remote cache reads and
writes on (`--remote-cache-read --remote-cache-write --remote-store-address=grpc://127.0.0.1:PORT
--remote-instance-name=schemac`):

1. `./pants --no-pantsd export-codegen ::` in a fresh clone, with a fresh `--local-store-dir` and
   `--named-caches-dir` (so nothing on this machine is reused): every process runs and its result
   is written to BuildGrid;
2. the same from a second clone at another path, with another fresh local store and named caches:
   every schemac compile must be a remote cache hit and none may run locally.

Evidence comes from Pants itself: the `--stats-log` counters, the remote cache runner's debug log
(`remote cache hit for: "<description>"`, target `remote::remote_cache`) and the local runner's
debug log of every process it spawns (`process_execution::local`). Slow (a cold Pants run with
the Go backend, ~2 min on 2 cores, then a ~35 s one), so marked `slow`. Only committed state is
used (`git clone`), so commit before relying on it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Dict, List, Set

import pytest

from buildgrid_server import BuildGrid, BuildGridUnavailable, bgd_command
from test_pants_export_codegen_e2e import (
    COMPILE_DESCRIPTION,
    REPO_ROOT,
    PantsRun,
    _clone,
    _export_codegen,
)

pytestmark = pytest.mark.slow

# The local runner logs each process it spawns; the remote cache runner logs each hit and miss.
LOG_LEVELS = (
    "--log-levels-by-target="
    "{'process_execution::local': 'debug', 'remote::remote_cache': 'debug'}"
)
PEX_CLI = ("pex-v2.1.137.pex", "pex-v2.1.137.pex.verified")


def _remote_lookups(run: PantsRun, outcome: str) -> List[str]:
    """Descriptions of the processes the remote cache runner reported as a `hit` or a `miss`."""
    return re.findall(rf'remote cache {outcome} for: "([^"]*)"', run.stderr)


def _compiles(descriptions: List[str]) -> Set[str]:
    return {d for d in descriptions if d.startswith(COMPILE_DESCRIPTION)}


def _copy_pex_cli(src: Path, dest: Path) -> None:
    """Reuse an already built and verified pex CLI (./pants would build the same bytes again)."""
    if all((src / ".tools" / name).is_file() for name in PEX_CLI):
        (dest / ".tools").mkdir(exist_ok=True)
        for name in PEX_CLI:
            shutil.copy2(src / ".tools" / name, dest / ".tools" / name)


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory):
    try:
        bgd = bgd_command()
    except BuildGridUnavailable as e:
        if os.environ.get("SCHEMAC_TESTS_RUN") == "1":
            pytest.fail(str(e), pytrace=False)
        pytest.skip(str(e))

    tmp = tmp_path_factory.mktemp("remote-cache")
    a = _clone(tmp / "a" / "schemac")
    b = _clone(tmp / "elsewhere" / "deeper" / "b")
    _copy_pex_cli(REPO_ROOT, a)

    with BuildGrid(bgd, tmp / "buildgrid") as server:
        capabilities = server.capabilities()

        def run(clone: Path, name: str):
            return _export_codegen(
                clone,
                *server.pants_flags(read=True, write=True),
                f"--local-store-dir={tmp / name / 'lmdb_store'}",
                f"--named-caches-dir={tmp / name / 'named_caches'}",
                "--stats-log",
                LOG_LEVELS,
            )

        try:
            first = run(a, "cache-a")  # cold: runs everything, writes it to BuildGrid
            _copy_pex_cli(a, b)
            second = run(b, "cache-b")  # must take every compile from BuildGrid
        except AssertionError as e:
            raise AssertionError(f"{e}\n--- BuildGrid log ---\n{server.log_tail()}") from None
    return {"capabilities": capabilities, "first": first, "second": second}


def test_buildgrid_serves_a_reapi_v2_action_cache(remote) -> None:
    caps = json.loads(remote["capabilities"])
    assert caps["cacheCapabilities"]["actionCacheUpdateCapabilities"]["updateEnabled"] is True
    assert "SHA256" in caps["cacheCapabilities"]["digestFunctions"]
    assert caps["lowApiVersion"]["major"] == 2 and caps["highApiVersion"]["major"] == 2


def test_cold_run_compiles_locally_and_writes_the_remote_cache(remote) -> None:
    run, _ = remote["first"]
    counters = run.counters
    assert counters, f"no --stats-log counters in:\n{run.stderr[-5000:]}"
    compiled = _compiles(run.spawned)
    assert {f"{COMPILE_DESCRIPTION} schemas/jobs:jobs", f"{COMPILE_DESCRIPTION} schemas/blog:blog"} <= compiled, compiled
    # The empty server answered every lookup with a miss, and took every write.
    assert _compiles(_remote_lookups(run, "miss")) == compiled
    assert counters["local_cache_requests_cached"] == 0, counters  # a fresh local store
    assert counters["remote_cache_requests_cached"] == 0, counters
    assert counters["remote_cache_read_errors"] == 0, counters
    assert counters["remote_cache_write_errors"] == 0, counters
    assert counters["remote_cache_write_successes"] >= len(compiled), counters


def test_second_clone_takes_every_compile_from_the_remote_cache(remote) -> None:
    first, _ = remote["first"]
    run, _ = remote["second"]
    counters = run.counters
    expected = _compiles(first.spawned)
    # Every compile the cold run executed was a remote cache hit here...
    assert _compiles(_remote_lookups(run, "hit")) == expected, run.stderr[-5000:]
    assert not _compiles(_remote_lookups(run, "miss"))
    # ...and none ran locally, not even speculatively ([schemac].remote_cache_speculation_delay).
    assert not _compiles(run.spawned), run.spawned
    # Nothing came from a local cache (fresh local store and named caches at another path).
    assert counters["local_cache_requests_cached"] == 0, counters
    assert counters["remote_cache_read_errors"] == 0, counters
    assert counters["remote_cache_requests_cached"] >= len(expected), counters
    assert counters["remote_cache_total_time_saved_ms"] > 0, counters


def test_remote_hits_give_the_same_bytes(remote) -> None:
    _, first = remote["first"]
    _, second = remote["second"]
    assert sorted(second) == sorted(first)
    assert second == first
    assert any(p.startswith("schemas/jobs/ts/") for p in first), sorted(first)
