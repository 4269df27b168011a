"""The parser cache (``schemac.syntax.parser._load_or_build``): lark's analysis of the grammar is
saved once and loaded by later processes; a loaded parser parses exactly like a built one, and
a bad, foreign or unwritable cache never breaks a compile (the parser is built instead)."""

from __future__ import annotations

import os
import pkgutil
import stat

import pytest
from lark import Lark

from schemac.syntax import parser as P

GRAMMAR = pkgutil.get_data("schemac.syntax", "grammar.lark").decode("utf-8")

SCHEMA = """module app {
  scalar type Slug extending str { constraint max_len_value(64); };
  type User { required name: str { constraint exclusive; }; multi link friends -> User; index on (.name); };
}
enum Status { Active, 'on hold' }
type set { required type: str; status: Status { default := Status.Active; }; }
"""
QUERY = "insert User { name := $name<str>, age := <optional int32>$age } unless conflict on .name"


def _parse_with(parser: Lark, text: str, start: str):
    P._install_builder(parser, P._BUILDER)
    P._BUILDER.file = "x"
    return repr(parser.parse(text, start=start))


def _cache_files(directory):
    return sorted(p for p in os.listdir(directory) if p.endswith(".pickle"))


def test_built_then_loaded_parser_parses_the_same(tmp_path, monkeypatch):
    built = P._load_or_build(GRAMMAR, str(tmp_path))
    files = _cache_files(tmp_path)
    assert len(files) == 1 and not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]
    assert stat.S_IMODE(os.stat(tmp_path).st_mode) & 0o077 == 0 or os.name == "nt"

    def no_build(*args, **kwargs):
        raise AssertionError("the cache was not used")

    monkeypatch.setattr(Lark, "__init__", no_build)
    loaded = P._load_or_build(GRAMMAR, str(tmp_path))
    monkeypatch.undo()
    assert loaded is not built
    for text, start in ((SCHEMA, "schema"), (QUERY, "query_file"), ("optional array<str>", "type_start")):
        assert _parse_with(loaded, text, start) == _parse_with(built, text, start)


def test_cache_file_name_depends_on_the_grammar(tmp_path):
    P._load_or_build(GRAMMAR, str(tmp_path))
    P._load_or_build(GRAMMAR + "\n// another grammar\n", str(tmp_path))
    assert len(_cache_files(tmp_path)) == 2


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "other format", "empty"])
def test_a_damaged_cache_is_rebuilt(tmp_path, damage):
    P._load_or_build(GRAMMAR, str(tmp_path))
    (name,) = _cache_files(tmp_path)
    path = tmp_path / name
    blob = path.read_bytes()
    if damage == "flip a byte":
        blob = blob[:-100] + bytes([blob[-100] ^ 1]) + blob[-99:]
    elif damage == "truncate":
        blob = blob[: len(blob) // 2]
    elif damage == "other format":
        blob = b"schemac-parser-cache 0" + blob[blob.index(b"\n"):]
    else:
        blob = b""
    path.write_bytes(blob)
    assert P._read_cache(str(path)) is None
    parser = P._load_or_build(GRAMMAR, str(tmp_path))
    assert _parse_with(parser, SCHEMA, "schema")
    assert P._read_cache(str(path)) is not None  # rewritten whole


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="no file owners")
def test_a_directory_others_can_write_to_is_not_used(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    P._load_or_build(GRAMMAR, str(shared))
    (name,) = _cache_files(shared)
    os.chmod(shared, 0o777)
    assert P._read_cache(str(shared / name)) is None
    os.chmod(shared, 0o700)
    assert P._read_cache(str(shared / name)) is not None


def test_an_unusable_cache_directory_still_parses(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    parser = P._load_or_build(GRAMMAR, str(blocker / "cache"))
    assert _parse_with(parser, SCHEMA, "schema")


def test_cache_directory_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", str(tmp_path))
    assert P._cache_dir() == str(tmp_path)
    monkeypatch.setenv("SCHEMAC_CACHE_DIR", "")
    assert P._cache_dir() is None
    monkeypatch.delenv("SCHEMAC_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert P._cache_dir() == os.path.join(str(tmp_path), "schemac", "parser")
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert P._cache_dir() == os.path.join(str(tmp_path), "home", ".cache", "schemac", "parser")


def _returns_promptly(fn, *args, seconds: float = 10.0):
    """``(finished, result)`` of ``fn(*args)`` run in a daemon thread (a blocked read must
    fail the test, not hang the suite)."""
    import threading

    out = []
    t = threading.Thread(target=lambda: out.append(fn(*args)), daemon=True)
    t.start()
    t.join(seconds)
    return (not t.is_alive()), (out[0] if out else None)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_in_place_of_the_cache_file_is_not_read(tmp_path):
    P._load_or_build(GRAMMAR, str(tmp_path))
    (name,) = _cache_files(tmp_path)
    os.unlink(tmp_path / name)
    os.mkfifo(tmp_path / name, 0o600)
    finished, parser = _returns_promptly(P._read_cache, str(tmp_path / name))
    assert finished and parser is None
    finished, parser = _returns_promptly(P._load_or_build, GRAMMAR, str(tmp_path))
    assert finished and _parse_with(parser, SCHEMA, "schema")
