"""pytest-lsp fixtures: a schemac language server over stdio (``python -m schemac lsp``, run
with ``$SCHEMAC_LSP_SERVER_PYTHON``, the test venv's CPython 3.9), a client that opens this
repository's files and helpers to edit, complete and wait for diagnostics."""

from __future__ import annotations

import asyncio
import os
import pathlib
import sys
from typing import Dict, List, Optional, Tuple

import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

REPO = pathlib.Path(__file__).resolve().parents[3]
PYTHON = os.environ.get("SCHEMAC_LSP_SERVER_PYTHON", sys.executable)
# The server is started as an editor starts it: editors/schemac-lsp (python -m schemac lsp).
ENV = dict(os.environ, SCHEMAC_PYTHON=PYTHON, PYTHONDONTWRITEBYTECODE="1")


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=[str(REPO / "editors" / "schemac-lsp")],
                                                             server_env=ENV))
async def client(lsp_client: LanguageClient):
    # As VS Code does: accept the server's registrations (it asks to watch the library's files).
    registrations: List[lsp.Registration] = []
    lsp_client.registrations = registrations  # type: ignore[attr-defined]

    @lsp_client.feature(lsp.CLIENT_REGISTER_CAPABILITY)
    def _register(params: lsp.RegistrationParams) -> None:
        registrations.extend(params.registrations)

    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=REPO.as_uri(), workspace_folders=[lsp.WorkspaceFolder(uri=REPO.as_uri(), name="schemac")]))
    yield
    await lsp_client.shutdown_session()


def uri(rel: str) -> str:
    return (REPO / rel).as_uri()


def read(rel: str) -> str:
    return (REPO / rel).read_text(encoding="utf-8")


def position_of(text: str, needle: str, after: bool = True, nth: int = 0) -> lsp.Position:
    """The position just after (or at the start of) the ``nth`` occurrence of ``needle``."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    if after:
        i += len(needle)
    line = text.count("\n", 0, i)
    return lsp.Position(line=line, character=i - (text.rfind("\n", 0, i) + 1))


async def wait_diagnostics(client: LanguageClient, doc_uri: str, timeout: float = 20.0,
                           want=None) -> List[lsp.Diagnostic]:
    """Wait until diagnostics for ``doc_uri`` arrive (and satisfy ``want``, when given)."""
    loop = asyncio.get_event_loop()
    end = loop.time() + timeout
    while True:
        got = client.diagnostics.get(doc_uri)
        if got is not None and (want is None or want(got)):
            return got
        if loop.time() > end:
            raise AssertionError(f"no diagnostics for {doc_uri} (have: {got})")
        await asyncio.sleep(0.02)


def open_doc(client: LanguageClient, rel: str, text: Optional[str] = None, version: int = 1) -> Tuple[str, str]:
    text = read(rel) if text is None else text
    u = uri(rel)
    lang = "edgeql" if rel.endswith(".edgeql") else "esdl"
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        text_document=lsp.TextDocumentItem(uri=u, language_id=lang, version=version, text=text)))
    return u, text


def replace_all(client: LanguageClient, doc_uri: str, old: str, new: str, version: int) -> None:
    """Replace the whole document (an incremental change over its full range)."""
    lines = old.split("\n")
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=doc_uri, version=version),
        content_changes=[lsp.TextDocumentContentChangePartial(
            range=lsp.Range(start=lsp.Position(line=0, character=0),
                            end=lsp.Position(line=len(lines) - 1, character=len(lines[-1]))),
            text=new)]))


def insert_text(client: LanguageClient, doc_uri: str, at: lsp.Position, new: str, version: int) -> None:
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=doc_uri, version=version),
        content_changes=[lsp.TextDocumentContentChangePartial(range=lsp.Range(start=at, end=at), text=new)]))


async def complete(client: LanguageClient, doc_uri: str, pos: lsp.Position,
                   trigger: Optional[str] = None) -> List[lsp.CompletionItem]:
    ctx = lsp.CompletionContext(trigger_kind=lsp.CompletionTriggerKind.TriggerCharacter, trigger_character=trigger) \
        if trigger else lsp.CompletionContext(trigger_kind=lsp.CompletionTriggerKind.Invoked)
    r = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=lsp.TextDocumentIdentifier(uri=doc_uri), position=pos, context=ctx))
    if r is None:
        return []
    return list(r.items if isinstance(r, lsp.CompletionList) else r)


def labels(items) -> List[str]:
    return [i.label for i in sorted(items, key=lambda i: i.sort_text or i.label)]


def by_label(items) -> Dict[str, lsp.CompletionItem]:
    return {i.label: i for i in items}
