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
import time
from typing import Dict, List, Optional

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import from_fs_path, to_fs_path

from schemac.diagnostics import Diagnostic
from schemac.lsp import features
from schemac.lsp.analysis import (Analysis, Analyzer, LibraryConfig, discover_libraries, file_kind,
                                  find_library)
from schemac.lsp.text import LineIndex

DEBOUNCE_S = 0.15
#: How long the background checks queries before it lets requests in.
BACKGROUND_SLICE_S = 0.01
#: The most completion items sent at once (the list is then marked incomplete).
MAX_ITEMS = 200
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


class _Answered:
    """What :meth:`SchemacProtocol.structure_message` returns for a request it has already
    answered with an error: :meth:`SchemacProtocol.handle_message` drops it."""


class SchemacProtocol(LanguageServerProtocol):
    """pygls' protocol, answering every request: a request whose params do not fit its type
    (``position: {line: -1}``, ``textDocument: {uri: 42}``, a missing field, a string for a
    number or a boolean) gets the JSON-RPC
    error -32602 InvalidParams naming what is wrong, where pygls logs it and sends nothing
    (the client then waits for ever). A notification with bad params cannot be answered: it is
    logged and dropped."""

    def __init__(self, server, converter) -> None:
        super().__init__(server, converter)
        converter.register_structure_hook(str, _strict(str))
        converter.register_structure_hook(int, _strict(int))
        converter.register_structure_hook(bool, _strict(bool))

    def structure_message(self, data):
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if isinstance(data, dict) and "method" in data and "id" in data:
                msg_id = data["id"] if isinstance(data["id"], (int, str)) and not isinstance(
                    data["id"], bool) else None
                detail = _invalid_detail(exc)
                self._send_response(msg_id, error=lsp.ResponseError(
                    code=exc.code, message=f"{exc.message or 'invalid params'}: {detail}" if detail
                    else exc.message))
                return _Answered
            if isinstance(data, dict) and "method" in data:  # a notification: nobody to answer
                log.warning("dropped %s: its params are invalid", data.get("method"))
                return _Answered
            raise

    def handle_message(self, message) -> None:
        if message is _Answered:
            return
        super().handle_message(message)


def _strict(kind: type):
    """A cattrs hook taking only a JSON value of ``kind`` (cattrs' default converts: ``42`` to
    ``"42"``, ``"yes"`` to ``True``, ``"5"`` to ``5``)."""

    def structure(value, _type):
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise TypeError(f"expected {_JSON_NAMES[kind]}, got {type(value).__name__}")
        # a subclass (an lsprotocol enum of ints or strings: DiagnosticSeverity, MarkupKind):
        # its member (ValueError for a value it does not have)
        return value if _type is kind else _type(value)

    return structure


_JSON_NAMES = {str: "a string", int: "an integer", bool: "a boolean"}


def _invalid_detail(exc: Exception) -> str:
    """What cattrs found wrong (``invalid value for type, expected int @ $.params.position.line``)."""
    cause = exc.__cause__
    if cause is None:
        return ""
    try:
        from cattrs import transform_error

        return "; ".join(transform_error(cause, path="$"))[:500]
    except Exception:
        return str(cause)[:500]


class SchemacServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("schemac", VERSION, text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
                         protocol_cls=SchemacProtocol)
        self.analyzer = Analyzer()
        self.analyses: Dict[str, Analysis] = {}  # library root -> last analysis
        self.dirty: set = set()  # library roots changed since their last analysis
        self.configs: Dict[str, LibraryConfig] = {}  # file path -> its library
        self.published: Dict[str, set] = {}  # library root -> paths with published diagnostics
        self._timer: Optional[asyncio.TimerHandle] = None
        self._background: Optional[asyncio.Handle] = None

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
        if fresh and path in a.pending:  # asked before the background got to it
            self.analyzer.check(a, path)
            self.publish(a, [path])
        return a

    def open_paths(self) -> List[str]:
        return [p for p in (uri_path(u) for u in self.workspace.text_documents) if p]

    def analyse(self, cfg: LibraryConfig) -> Analysis:
        """Analyse a library now: the open queries are checked at once, the other queries a
        schema edit may have changed in the background (:meth:`background`)."""
        a = self.analyzer.analyse(cfg, self.overlay(), priority=self.open_paths(), defer=True)
        self.analyses[cfg.root] = a
        self.dirty.discard(cfg.root)
        self.publish(a)
        self.schedule_background()
        # The open schema files' scan checkpoints and names, ready for completion and hover
        # (a full scan of a 19,000-line schema takes about a second; later ones resume at the
        # last checkpoint before an edit).
        for path in self.overlay():
            if path in a.texts and file_kind(path) == "schema" and path not in a.externs:
                features.refs_of(a, path)
        return a

    def schedule_background(self) -> None:
        if self._background is None:
            self._background = asyncio.get_event_loop().call_soon(self.background)

    def background(self) -> None:
        """Check pending queries for up to :data:`BACKGROUND_SLICE_S`, publish their
        diagnostics, and come back after the requests that arrived meanwhile are answered."""
        self._background = None
        deadline = time.perf_counter() + BACKGROUND_SLICE_S
        more = False
        for a in list(self.analyses.values()):
            done = []
            while a.pending and time.perf_counter() < deadline:
                path = a.pending[0]
                try:
                    self.analyzer.check(a, path)
                except Exception:  # never let one query's failure stop the server
                    log.exception("checking %s failed", path)
                    if a.pending and a.pending[0] == path:
                        a.pending.pop(0)
                done.append(path)
            if done:
                self.publish(a, done)
            more = more or bool(a.pending)
        if not more:
            # Then every file's names (the first references or rename after a schema edit
            # would otherwise scan the whole library: seconds at 2,000 files).
            for a in list(self.analyses.values()):
                todo = a.__dict__.setdefault("_unscanned", [p for p in sorted(a.texts) if file_kind(p)])
                while todo and time.perf_counter() < deadline:
                    try:
                        features.refs_by_symbol(a, todo.pop())
                    except Exception:
                        log.exception("scanning failed")
                more = more or bool(todo)
        if more:
            self._background = asyncio.get_event_loop().call_later(0.001, self.background)

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

    def flush_soon(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_event_loop().call_later(DEBOUNCE_S, self.flush)

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

    def publish(self, a: Analysis, paths: Optional[List[str]] = None) -> None:
        """Publish the diagnostics of ``paths`` (default: every file of the library but the
        queries still pending): a file's list when it has diagnostics, had some, or is open."""
        by_file = a.diagnostics_by_file()
        if paths is None:
            unlocated = [d for d in a.diagnostics if d.span is None]
            if unlocated:
                target = next((p for p in sorted(a.texts) if p not in a.externs), None)
                if target:
                    by_file.setdefault(target, []).extend(unlocated)
            pending = set(a.pending)
            paths = [p for p in sorted(by_file) if p not in pending]
        before = self.published.setdefault(a.config.root, set())
        open_docs = set(self.open_paths())
        for path in paths:
            if path in a.externs:
                continue
            diags = by_file.get(path, [])
            if not diags and path not in before and path not in open_docs:
                continue
            idx = LineIndex(a.texts.get(path, ""))
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=from_fs_path(path), diagnostics=[to_lsp_diagnostic(d, idx) for d in diags]))
            if diags:
                before.add(path)
            else:
                before.discard(path)
        for path in [p for p in before if p not in a.texts]:  # files gone
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=from_fs_path(path), diagnostics=[]))
            before.discard(path)

    def doc(self, uri: str):
        return self.workspace.get_text_document(uri)


_LINES: Dict[int, LineIndex] = {}


def line_index(text: str) -> LineIndex:
    """A :class:`LineIndex` of ``text``, kept for the last few texts (a 19,000-line schema takes
    milliseconds to index)."""
    hit = _LINES.get(id(text))
    if hit is not None and hit.text is text:
        return hit
    if len(_LINES) > 16:
        _LINES.clear()
    idx = _LINES[id(text)] = LineIndex(text)
    return idx


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


#: The files whose changes the server wants to hear of (``workspace/didChangeWatchedFiles``).
WATCHED = ("**/*.{esdl,gel,edgeql}", "**/BUILD", "**/BUILD.pants", "**/migrations/snapshot.json")


@server.feature(lsp.INITIALIZED)
def _initialized(ls: SchemacServer, params: lsp.InitializedParams) -> None:
    threading.Thread(target=features.warm_up, daemon=True).start()
    caps = ls.client_capabilities
    watch = caps.workspace.did_change_watched_files if caps and caps.workspace else None
    if watch is not None and watch.dynamic_registration:
        # The library's files are then read once and kept until an event says they changed.
        ls.analyzer.disk.events = True
        ls.client_register_capability(lsp.RegistrationParams(registrations=[lsp.Registration(
            id="schemac-watched-files", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=lsp.DidChangeWatchedFilesRegistrationOptions(
                watchers=[lsp.FileSystemWatcher(glob_pattern=g) for g in WATCHED]))]))


def _disk_changed(ls: SchemacServer, path: str, listing: bool = False) -> None:
    ls.analyzer.disk.invalidate(path, listing)


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def _did_open(ls: SchemacServer, params: lsp.DidOpenTextDocumentParams) -> None:
    path = uri_path(params.text_document.uri)
    if path and file_kind(path):
        _disk_changed(ls, path, listing=True)  # (a new file may just have been created)
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
        _disk_changed(ls, path)
        ls.changed(path)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def _did_close(ls: SchemacServer, params: lsp.DidCloseTextDocumentParams) -> None:
    path = uri_path(params.text_document.uri)
    if path and file_kind(path):
        _disk_changed(ls, path, listing=True)  # the file on disk is the source again (if any)
        ls.changed(path)


@server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def _watched(ls: SchemacServer, params: lsp.DidChangeWatchedFilesParams) -> None:
    for ch in params.changes:
        path = uri_path(ch.uri)
        if not path:
            continue
        _disk_changed(ls, path, listing=ch.type != lsp.FileChangeType.Changed)
        if os.path.basename(path) in ("BUILD", "BUILD.pants"):
            ls.configs.clear()
            ls.analyzer.disk.invalidate(None)
            ls.dirty.update(ls.analyses)
            ls.flush_soon()
        elif file_kind(path):
            ls.configs.clear()
            ls.changed(path)
        elif os.path.basename(path) == "snapshot.json":  # a migration was generated
            for root in ls.analyses:
                if path.startswith(root + os.sep):
                    ls.analyzer.forget_schema(root)
                    ls.dirty.add(root)
            ls.flush_soon()


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION,
                lsp.CompletionOptions(trigger_characters=[".", ":", "<", "$"]))
def _completion(ls: SchemacServer, params: lsp.CompletionParams) -> lsp.CompletionList:
    path = uri_path(params.text_document.uri)
    if not path or not file_kind(path):
        return lsp.CompletionList(is_incomplete=False, items=[])
    doc = ls.doc(params.text_document.uri)
    text = doc.source
    idx = line_index(text)
    offset = idx.from_lsp(params.position.line, params.position.character)
    a = ls.analysis_for(path, fresh=False)
    items, start = features.complete(a, path, text, offset)
    rng = to_lsp_range(idx, start, offset)
    incomplete = False
    if len(items) > MAX_ITEMS:
        # A long list (every type of a 1,000-type library): the ones that start with what is
        # typed, at most MAX_ITEMS, and the client asks again as the word grows.
        typed = text[start:offset].lower()
        items = [it for it in items if it.label.lower().startswith(typed)]
        incomplete = len(items) > MAX_ITEMS
        items = sorted(items, key=lambda it: it.sort or it.label)[:MAX_ITEMS]
    out: List[lsp.CompletionItem] = []
    for it in items:
        new_text = it.insert if it.insert is not None else it.label
        out.append(lsp.CompletionItem(
            label=it.label, kind=_ITEM_KINDS.get(it.kind), detail=it.detail or None,
            sort_text=it.sort or None,
            text_edit=lsp.TextEdit(range=rng, new_text=new_text)))
    return lsp.CompletionList(is_incomplete=incomplete, items=out)


def _at(ls: SchemacServer, uri: str, position: lsp.Position):
    """(path, analysis, offset) of a request, the analysis fresh."""
    path = uri_path(uri)
    if not path or not file_kind(path):
        return None
    a = ls.analysis_for(path)
    text = a.texts.get(path)
    if text is None:
        return None
    return path, a, line_index(text).from_lsp(position.line, position.character)


def _location(a: Analysis, loc) -> lsp.Location:
    path, s, e = loc
    return lsp.Location(uri=from_fs_path(path), range=to_lsp_range(line_index(a.texts[path]), s, e))


@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def _hover(ls: SchemacServer, params: lsp.HoverParams) -> Optional[lsp.Hover]:
    at = _at(ls, params.text_document.uri, params.position)
    if at is None:
        return None
    path, a, offset = at
    got = features.hover(a, path, offset)
    if got is None:
        return None
    md, s, e = got
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=md),
                     range=to_lsp_range(line_index(a.texts[path]), s, e))


def _symbol_at(ls: SchemacServer, uri: str, position: lsp.Position):
    """(analysis, the reference under the cursor) for definition and references, or ``None``
    when the cursor is on no name the analysis knows."""
    at = _at(ls, uri, position)
    if at is None:
        return None
    path, a, offset = at
    r = features.ref_at(a, path, offset)
    return (a, r) if r is not None else None


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def _definition(ls: SchemacServer, params: lsp.DefinitionParams):
    found = _symbol_at(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    a, r = found
    loc = features.declaration(a, r.symbol)
    return _location(a, loc) if loc is not None else None


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
def _references(ls: SchemacServer, params: lsp.ReferenceParams):
    found = _symbol_at(ls, params.text_document.uri, params.position)
    if found is None:
        return []
    a, r = found
    return [_location(a, loc) for loc in features.references(a, r.symbol, params.context.include_declaration)]


_SYMBOL_KINDS = {"type": lsp.SymbolKind.Class, "enum": lsp.SymbolKind.Enum, "member": lsp.SymbolKind.EnumMember,
                 "scalar": lsp.SymbolKind.TypeParameter, "field": lsp.SymbolKind.Field,
                 "query": lsp.SymbolKind.Function}


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def _document_symbols(ls: SchemacServer, params: lsp.DocumentSymbolParams):
    path = uri_path(params.text_document.uri)
    if not path or not file_kind(path):
        return []
    a = ls.analysis_for(path)
    idx = LineIndex(a.texts.get(path, ""))

    def conv(s) -> lsp.DocumentSymbol:
        rng = to_lsp_range(idx, s.loc[1], s.loc[2])
        return lsp.DocumentSymbol(name=s.name, kind=_SYMBOL_KINDS[s.kind], range=rng, selection_range=rng,
                                  detail=s.detail or None, children=[conv(c) for c in s.children] or None)

    return [conv(s) for s in features.document_symbols(a, path)]


@server.feature(lsp.WORKSPACE_SYMBOL)
def _workspace_symbols(ls: SchemacServer, params: lsp.WorkspaceSymbolParams):
    roots = [uri_path(f.uri) for f in (ls.workspace.folders or {}).values()] or (
        [uri_path(ls.workspace.root_uri)] if ls.workspace.root_uri else [])
    analyses = []
    for root in roots:
        if not root:
            continue
        for cfg in discover_libraries(root):
            a = ls.analyses.get(cfg.root)
            if a is None or cfg.root in ls.dirty:
                try:
                    a = ls.analyse(cfg)
                except Exception:
                    log.exception("analysis of %s failed", cfg.root)
                    continue
            analyses.append(a)
    out = []
    for s in features.workspace_symbols(analyses, params.query):
        a = next(x for x in analyses if s.loc[0] in x.texts)
        out.append(lsp.WorkspaceSymbol(name=s.name, kind=_SYMBOL_KINDS[s.kind], location=_location(a, s.loc),
                                       container_name=s.container or None))
    return out


@server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
def _prepare_rename(ls: SchemacServer, params: lsp.PrepareRenameParams):
    at = _at(ls, params.text_document.uri, params.position)
    if at is None:
        return None
    path, a, offset = at
    try:
        s, e, name = features.prepare_rename(a, path, offset)
    except features.RenameError:
        return None
    return lsp.PrepareRenamePlaceholder(range=to_lsp_range(LineIndex(a.texts[path]), s, e), placeholder=name)


@server.feature(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
def _rename(ls: SchemacServer, params: lsp.RenameParams):
    from pygls.exceptions import JsonRpcInvalidRequest

    at = _at(ls, params.text_document.uri, params.position)
    if at is None:
        return None
    path, a, offset = at
    try:
        edits = features.rename(a, path, offset, params.new_name)
    except features.RenameError as e:
        raise JsonRpcInvalidRequest(str(e))
    changes = {}
    for p, es in edits.items():
        idx = LineIndex(a.texts[p])
        changes[from_fs_path(p)] = [lsp.TextEdit(range=to_lsp_range(idx, s, e), new_text=t) for s, e, t in es]
    return lsp.WorkspaceEdit(changes=changes)


@server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
def _code_actions(ls: SchemacServer, params: lsp.CodeActionParams):
    path = uri_path(params.text_document.uri)
    if not path or not file_kind(path):
        return []
    a = ls.analysis_for(path)
    text = a.texts.get(path, "")
    idx = LineIndex(text)
    out = []
    for d in params.context.diagnostics:
        if d.source != "schemac":
            continue
        hint = (d.data or {}).get("hint") if isinstance(d.data, dict) else None
        if hint is None and "\nhint: " in d.message:
            hint = d.message.split("\nhint: ", 1)[1]
        s = idx.from_lsp(d.range.start.line, d.range.start.character)
        e = idx.from_lsp(d.range.end.line, d.range.end.character)
        for title, (fpath, at, new_text) in features.hint_fixes(a, path, hint):
            fidx = line_index(a.texts[fpath])
            out.append(lsp.CodeAction(
                title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[d],
                edit=lsp.WorkspaceEdit(changes={from_fs_path(fpath): [
                    lsp.TextEdit(range=to_lsp_range(fidx, at, at), new_text=new_text)]})))
        fix = features.quick_fix(text, s, e, hint)
        if fix is None:
            continue
        fs, fe, new, title = fix
        out.append(lsp.CodeAction(
            title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[d], is_preferred=True,
            edit=lsp.WorkspaceEdit(changes={params.text_document.uri: [
                lsp.TextEdit(range=to_lsp_range(idx, fs, fe), new_text=new)]})))
    return out


@server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
def _formatting(ls: SchemacServer, params: lsp.DocumentFormattingParams):
    """The whole document in schemac's canonical layout (:mod:`schemac.fmt`); nothing when it
    does not parse (its diagnostics say why)."""
    from schemac.fmt import FormatError, format_source

    path = uri_path(params.text_document.uri)
    if not path or not file_kind(path):
        return None
    text = ls.doc(params.text_document.uri).source
    try:
        formatted = format_source(path, text)
    except FormatError:
        return None
    if formatted == text:
        return []
    idx = LineIndex(text)
    return [lsp.TextEdit(range=to_lsp_range(idx, 0, len(text)), new_text=formatted)]


def main() -> int:
    """Serve over stdio until the client exits; the process then ends with the protocol's exit
    status (0 after a shutdown request, else 1) without flushing stdout again (the client has
    usually closed it by then, which would turn the status into 120)."""
    logging.basicConfig(level=os.environ.get("SCHEMAC_LSP_LOG", "WARNING"))
    try:  # `kill -USR1 <pid>`: every thread's stack on stderr (the editor's output panel)
        import faulthandler
        import signal

        faulthandler.register(signal.SIGUSR1)
    except (AttributeError, ValueError, OSError):
        pass
    try:
        server.start_io()
        code = 0
    except SystemExit as e:  # pygls ends the process on `exit` with sys.exit(0 or 1)
        code = e.code if isinstance(e.code, int) else 0
    os._exit(code)
