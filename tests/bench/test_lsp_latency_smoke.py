"""Keeps tests/bench/lsp_latency.py from rotting: a 5-type library, 2 requests of each kind,
through a real server over stdio (each request's answer is checked by the script). No timing
assertions."""

import sys

from lsp_latency import run


def test_latency_benchmark_runs():
    memory: dict = {}
    results = run(5, 2, sys.executable, edits=20, memory=memory)
    assert memory["edits"] == 20 and memory["after_mb"] > 0
    kinds = set(results)
    for want in ("completion: enum members after Enum.", "completion: type names after : (schema)",
                 "hover: query keyword -> SQL, TS, Go", "hover: property (schema)",
                 "query edit -> diagnostics (incl. 150 ms debounce)", "first analysis (open -> diagnostics)",
                 "rename (prepare + rename)", "schema edit breaks closed query -> its diagnostics",
                 "schema edit fix open query -> its diagnostics"):
        assert want in kinds, want
    assert all(len(v) >= 1 and all(x >= 0 for x in v) for v in results.values())
