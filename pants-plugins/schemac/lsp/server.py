"""The schemac language server (pygls 2.x, stdio): ``python -m schemac lsp``.

Documents are ``.esdl`` / ``.gel`` schema files and ``.edgeql`` query files. On every change
the document's library is analysed again after a short pause (:data:`DEBOUNCE_S`) and the
compiler's diagnostics are published for every file of the library; completion never waits
for that (it reads the live text and the last analysis). Other requests analyse first when
the library changed since its last analysis.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from typing import Dict, List, Optional

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from schemac.diagnostics import Diagnostic
from schemac.lsp import features
from schemac.lsp.analysis import Analysis, Analyzer, LibraryConfig, file_kind, find_library
from schemac.lsp.text import LineIndex

DEBOUNCE_S = 0.15
VERSION = "0.1"

log = logging.getLogger("schemac.lsp")

_ITEM_KINDS = {
    "member": lsp.CompletionItemKind.EnumMember,
    "field": lsp.CompletionItemKind.Field,
    "type": lsp.CompletionItemKind.Class,
    "enum": lsp.CompletionItemKind.Enum,
    "scalar": lsp.CompletionItemKind.TypeParameter,
    "keyword": lsp.CompletionItemKind.Keyword,
    "param": lsp.CompletionItemKind.Variable,
    "variable": lsp.CompletionItemKind.Variable,
}


class SchemacServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("schemac", VERSION, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.analyzer = Analyzer()
        self.analyses: Dict[str, Analysis] = {}  # library root -> last analysis
        self.dirty: set = set()  # library roots changed since their last analysis
        self.configs: Dict[str, LibraryConfig] = {}  # file path -> its library
        self.published: Dict[str, set] = {}  # library root -> paths with published diagnostics
        self._timer: Optional[asyncio.TimerHandle] = None

    # ---------------------------------------------------------------- documents
    def overlay(self) -> Dict[str, str]:
        out = {}
        for uri, doc in self.workspace.text_documents.items():
            path = uri_path(uri)
            if path and file_kind(path):
                out[path] = doc.source
        return out

    def config_for(self, path: str) -> LibraryConfig:
        cfg = self.configs.get(path)
        if cfg is None:
            cfg = find_library(path)
            self.configs[path] = cfg
        return cfg

    def analysis_for(self, path: str, fresh: bool = True) -> Analysis:
        cfg = self.config_for(path)
        a = self.analyses.get(cfg.root)
        if a is None or (fresh and cfg.root in self.dirty) or a.config != cfg:
            a = self.analyse(cfg)
        return a

    def analyse(self, cfg: LibraryConfig) -> Analysis:
        a = self.analyzer.analyse(cfg, self.overlay())
        self.analyses[cfg.root] = a
        self.dirty.discard(cfg.root)
        self.publish(a)
        return a

    def changed(self, path: str) -> None:
        cfg = self.config_for(path)
        self.dirty.add(cfg.root)
        # A file of a dependency library: the libraries depending on it are stale too.
        for root, a in self.analyses.items():
            if path in a.externs:
                self.dirty.add(root)
        loop = asyncio.get_event_loop()
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_later(DEBOUNCE_S, self.flush)

    def flush(self) -> None:
        self._timer = None
        for root in sorted(self.dirty):
            a = self.analyses.get(root)
            cfg = a.config if a is not None else next((c for c in self.configs.values() if c.root == root), None)
            if cfg is not None:
                try:
                    self.analyse(cfg)
                except Exception:  # never let one library's failure stop the server
                    log.exception("analysis of %s failed", root)
                    self.dirty.discard(root)

    def publish(self, a: Analysis) -> None:
        by_file = a.diagnostics_by_file()
        unlocated = [d for d in a.diagnostics if d.span is None]
        if unlocated:
            target = next((p for p in sorted(a.texts) if p not in a.externs), None)
            if target:
                by_file.setdefault(target, []).extend(unlocated)
        before = self.published.get(a.config.root, set())
        now = set()
        for path, diags in sorted(by_file.items()):
            if path in a.externs:
                continue
            if not diags and path not in before:
                continue
            text = a.texts.get(path, "")
            idx = LineIndex(text)
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=from_fs_path(path), diagnostics=[to_lsp_diagnostic(d, idx) for d in diags]))
            if diags:
                now.add(path)
        for path in before - now - set(by_file):
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=from_fs_path(path), diagnostics=[]))
        self.published[a.config.root] = now

    def doc(self, uri: str):
        return self.workspace.get_text_document(uri)


def uri_path(uri: str) -> Optional[str]:
    p = to_fs_path(uri)
    return os.path.abspath(p) if p else None


def to_lsp_range(idx: LineIndex, start: int, end: int) -> lsp.Range:
    sl, sc = idx.to_lsp(start)
    el, ec = idx.to_lsp(end)
    return lsp.Range(start=lsp.Position(line=sl, character=sc), end=lsp.Position(line=el, character=ec))


def to_lsp_diagnostic(d: Diagnostic, idx: LineIndex) -> lsp.Diagnostic:
    if d.span is not None:
        s, e = idx.span_offsets(d.span.line, d.span.col, d.span.end_line, d.span.end_col)
        if e <= s:
            e = min(s + 1, len(idx.text))
        rng = to_lsp_range(idx, s, e)
    else:
        rng = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=0))
    message = d.message + (f"\nhint: {d.hint}" if d.hint else "")
    return lsp.Diagnostic(
        range=rng, message=message, code=d.code, source="schemac",
        severity=lsp.DiagnosticSeverity.Error if d.severity == "error" else lsp.DiagnosticSeverity.Warning,
        data={"hint": d.hint} if d.hint else None)


server = SchemacServer()


@server.feature(lsp.INITIALIZED)
def _initialized(ls: SchemacServer, params: lsp.InitializedParams) -> None:
    threading.Thread(target=features.warm_up, daemon=True).start()


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def _did_open(ls: SchemacServer, params: lsp.DidOpenTextDocumentParams) -> None:
    path = uri_path(params.text_document.uri)
    if path and file_kind(path):
        ls.configs.pop(path, None)
        cfg = ls.config_for(path)
        if cfg.root not in ls.analyses:
            ls.analyse(cfg)
        else:
            ls.changed(path)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def _did_change(ls: SchemacServer, params: lsp.DidChangeTextDocumentParams) -> None:
    path = uri_path(params.text_document.uri)
    if path and file_kind(path):
        ls.changed(path)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def _did_save(ls: SchemacServer, params: lsp.DidSaveTextDocumentParams) -> None:
    path = uri_path(params.text_document.uri)
    if path and file_kind(path):
        ls.changed(path)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def _did_close(ls: SchemacServer, params: lsp.DidCloseTextDocumentParams) -> None:
    path = uri_path(params.text_document.uri)
    if path and file_kind(path):
        ls.changed(path)  # the file on disk is the source again


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def _watched(ls: SchemacServer, params: lsp.DidChangeWatchedFilesParams) -> None:
    for ch in params.changes:
        path = uri_path(ch.uri)
        if path and (file_kind(path) or os.path.basename(path) in ("BUILD", "BUILD.pants")):
            ls.configs.clear()
            if file_kind(path):
                ls.changed(path)


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION,
                lsp.CompletionOptions(trigger_characters=[".", ":", "<", "$"]))
def _completion(ls: SchemacServer, params: lsp.CompletionParams) -> lsp.CompletionList:
    path = uri_path(params.text_document.uri)
    if not path or not file_kind(path):
        return lsp.CompletionList(is_incomplete=False, items=[])
    doc = ls.doc(params.text_document.uri)
    text = doc.source
    idx = LineIndex(text)
    offset = idx.from_lsp(params.position.line, params.position.character)
    a = ls.analysis_for(path, fresh=False)
    items, start = features.complete(a, path, text, offset)
    rng = to_lsp_range(idx, start, offset)
    out: List[lsp.CompletionItem] = []
    for it in items:
        new_text = it.insert if it.insert is not None else it.label
        out.append(lsp.CompletionItem(
            label=it.label, kind=_ITEM_KINDS.get(it.kind), detail=it.detail or None,
            sort_text=it.sort or None,
            text_edit=lsp.TextEdit(range=rng, new_text=new_text)))
    return lsp.CompletionList(is_incomplete=False, items=out)


def main() -> int:
    """Serve over stdio until the client exits."""
    logging.basicConfig(level=os.environ.get("SCHEMAC_LSP_LOG", "WARNING"))
    server.start_io()
    return 0
