"""Every test module under tests/ has a basename of its own: pytest imports them by basename
(no packages), so two ``test_x.py`` in different folders fail the collection of the second
("import file mismatch") in a whole-suite run, while each folder's own run passes."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SKIP = {".cache", "node_modules", "fixtures"}


def test_test_module_basenames_are_unique():
    seen = defaultdict(list)
    for path in TESTS.rglob("*.py"):
        if SKIP & set(path.relative_to(TESTS).parts) or not path.name.startswith(("test_", "conftest")):
            continue
        if path.name != "conftest.py":
            seen[path.name].append(str(path.relative_to(TESTS)))
    assert {n: p for n, p in seen.items() if len(p) > 1} == {}
