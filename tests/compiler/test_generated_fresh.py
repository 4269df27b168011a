"""The committed generated/ tree is what the compiler produces today."""

from __future__ import annotations

from libraries import compile_repo_library, generated_files, library_dirs


def test_generated_tree_is_fresh():
    """generated/ equals a fresh compile of every library (refresh: tests/refresh-generated)."""
    expected = {}
    for d in library_dirs():
        expected.update(compile_repo_library(d))
    actual = generated_files()
    stale = sorted(k for k in set(expected) | set(actual) if expected.get(k) != actual.get(k))
    assert not stale, f"generated/ is stale ({', '.join(stale)}): run tests/refresh-generated"
