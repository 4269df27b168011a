"""The compiled-template cache (``schemac.render``): jinja2's bytecode of the templates is kept
in the parser's cache directory; a compile that loads it renders exactly what one that compiles
the templates renders, and a damaged, foreign or unusable cache never breaks a compile (the
templates are compiled instead)."""

from __future__ import annotations

import os

import jinja2
import pytest

from libraries import SCHEMAS, library_sources
from schemac import render
from schemac.semantics.library import Options
from schemac.pipeline import compile_library


@pytest.fixture
def fresh_environment():
    """A new jinja2 environment per compile (it is memoised per process)."""
    render.environment.cache_clear()
    yield
    render.environment.cache_clear()


def _compile(monkeypatch, cache_dir):
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(cache_dir))
    render.environment.cache_clear()
    return compile_library(library_sources(SCHEMAS / "jobs"), Options(library="jobs"))


def _cache_files(directory):
    return sorted(p for p in os.listdir(directory) if p.startswith("jinja2-") and p.endswith(".cache"))


def _count_compiles(monkeypatch):
    compiled = []
    original = jinja2.Environment.compile

    def counting(self, source, name=None, filename=None, raw=False, defer_init=False):
        compiled.append(name)
        return original(self, source, name, filename, raw, defer_init)

    monkeypatch.setattr(jinja2.Environment, "compile", counting)
    return compiled


def test_cached_templates_render_the_same(monkeypatch, tmp_path, fresh_environment):
    uncached = _compile(monkeypatch, "")
    compiled = _count_compiles(monkeypatch)
    first = _compile(monkeypatch, tmp_path)
    assert compiled and _cache_files(tmp_path)  # compiled once, and saved
    compiled.clear()
    second = _compile(monkeypatch, tmp_path)
    assert compiled == []  # every template came from the cache
    assert first == second == uncached


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "empty", "garbage"])
def test_a_damaged_cache_file_is_recompiled(monkeypatch, tmp_path, fresh_environment, damage):
    want = _compile(monkeypatch, tmp_path)
    for name in _cache_files(tmp_path):
        path = tmp_path / name
        blob = path.read_bytes()
        if damage == "flip a byte":
            blob = blob[:-20] + bytes([blob[-20] ^ 0xFF]) + blob[-19:]
        elif damage == "truncate":
            blob = blob[: len(blob) // 2]
        elif damage == "empty":
            blob = b""
        else:
            blob = os.urandom(64)
        path.write_bytes(blob)
    assert _compile(monkeypatch, tmp_path) == want


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="no file owners")
def test_a_directory_others_can_write_to_is_not_used(monkeypatch, tmp_path, fresh_environment):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    want = _compile(monkeypatch, shared)
    assert _cache_files(shared) == []  # nothing written
    assert render.environment().bytecode_cache is None
    os.chmod(shared, 0o700)
    assert _compile(monkeypatch, shared) == want
    assert _cache_files(shared)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="no file owners")
def test_a_cache_file_others_can_write_to_is_not_read(monkeypatch, tmp_path, fresh_environment):
    want = _compile(monkeypatch, tmp_path)
    for name in _cache_files(tmp_path):
        os.chmod(tmp_path / name, 0o666)
    compiled = _count_compiles(monkeypatch)
    assert _compile(monkeypatch, tmp_path) == want
    assert compiled  # compiled again, not loaded


def test_an_unusable_cache_directory_still_renders(monkeypatch, tmp_path, fresh_environment):
    want = _compile(monkeypatch, "")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    assert _compile(monkeypatch, blocker / "cache") == want


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_fifos_in_place_of_cache_files_are_not_read(monkeypatch, tmp_path, fresh_environment):
    import threading

    want = _compile(monkeypatch, tmp_path)
    for name in _cache_files(tmp_path):
        os.unlink(tmp_path / name)
        os.mkfifo(tmp_path / name, 0o600)
    out = []
    t = threading.Thread(target=lambda: out.append(_compile(monkeypatch, tmp_path)), daemon=True)
    t.start()
    t.join(60)
    assert not t.is_alive(), "a read of a FIFO blocked the compile"
    assert out == [want]
