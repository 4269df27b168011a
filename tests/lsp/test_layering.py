"""The language server is a layer over the compiler: the compiler core never imports it (only
the command line does, lazily, for `python -m schemac lsp`), and it never imports Pants."""

import ast
import pathlib

CORE = pathlib.Path(__file__).resolve().parents[2] / "pants-plugins" / "schemac"


def _imports(path: pathlib.Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


def test_core_does_not_import_the_language_server():
    offenders = []
    for f in CORE.rglob("*.py"):
        rel = f.relative_to(CORE).as_posix()
        if rel.startswith("lsp/") or rel.startswith("cli/"):
            continue
        offenders += [(rel, m) for m in _imports(f) if m.startswith("schemac.lsp") or m.startswith("pygls")
                      or m.startswith("lsprotocol")]
    assert offenders == []


def test_cli_imports_the_server_lazily():
    tree = ast.parse((CORE / "cli" / "main.py").read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert not any(isinstance(n, ast.ImportFrom) and (n.module or "").startswith("schemac.lsp") for n in top)


def test_language_server_never_imports_pants():
    for f in (CORE / "lsp").rglob("*.py"):
        assert not [m for m in _imports(f) if m.startswith("pants")], f
