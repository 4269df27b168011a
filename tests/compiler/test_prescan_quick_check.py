"""``prescan.maybe_unsupported`` (the quick test that lets most schema text skip the statement
scan) answers exactly as the single regular expression it replaces,
``prescan._MAYBE_UNSUPPORTED.search(text) is not None``, on hand-picked edge cases, the
repository's schemas and a few thousand seeded random soups of the words and punctuation that
matter."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fuzz_support import ODD_TOKENS, SPACE_TOKENS, TOKENS
from schemac import prescan

REPO = Path(__file__).resolve().parents[2]


def _reference(text: str) -> bool:
    return prescan._MAYBE_UNSUPPORTED.search(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "type T { name: str; }",
        "type T { x := .a; }",
        "type T { required x := .a; }",
        "type T {\n  required\n  multi x\n  := .a; }",
        "type T { default := 1; readonly := true; annotation title := 'x'; }",
        "type T { defaults := 1; }",
        "type T { default_x := 1; }",
        "x := 1",
        "  x := 1",
        ":= x := y",
        "a := b := c := d",
        "{ a: str { default := 1 }; b := 2; }",
        "{ xé := 1 }",
        "{ é := 1 }",
        "{ 9x := 1 }",
        "# { x := 1 }",
        "type T { x: str { default := 'a := b' } }",
        "type T {\r\n  x := 1;\r\n}",
        "using future simple_scoping;",
        "using  extension pgvector;",
        "abstract type A {}",
        "abstract constraint c {}",
        "abstract\n\tinheritable annotation a;",
        "type T { access policy p allow all; }",
        "type T { link l -> U { on source delete delete target; } }",
        "type T { link l -> U { on target delete allow; } }",
        "function f() -> str using ('x');",
        "type functional { aliased: str; castle: str; }",
        "type T { trigger_count: int32; }",
        "required global g: str;",
        "type T { required globalx: str; }",
        "xglobal",
        "global",
        ";global;",
        "type T { rewrite insert using (1) }",
        "permission p;",
    ],
)
def test_edge_cases(text):
    assert prescan.maybe_unsupported(text) == _reference(text)


def test_repository_schemas():
    files = sorted(REPO.glob("schemas/**/*.esdl")) + sorted(REPO.glob("tests/**/*.esdl"))
    assert files
    for f in files:
        text = f.read_text(encoding="utf-8")
        assert prescan.maybe_unsupported(text) == _reference(text), f


def test_random_soups():
    rnd = random.Random(11)
    words = ["using", "future", "extension", "global", "function", "alias", "abstract", "constraint",
             "annotation", "inheritable", "link", "property", "index", "permission", "operator", "cast",
             "access", "policy", "trigger", "deferred", "delegated", "rewrite", "on", "source", "delete",
             "required", "optional", "multi", "single", "overloaded", "default", "readonly", "x", "é",
             ":=", ":", "=", "{", "}", ";", "_", "1"]
    pieces = words * 4 + list(SPACE_TOKENS) * 6 + list(TOKENS) + list(ODD_TOKENS)
    hits = 0
    for _ in range(4000):
        text = "".join(rnd.choice(pieces) for _ in range(rnd.randint(0, 40)))
        want = _reference(text)
        assert prescan.maybe_unsupported(text) == want, repr(text)
        hits += want
    assert 400 < hits < 3600  # both answers are exercised
