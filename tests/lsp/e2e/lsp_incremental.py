"""Incremental analysis (issue 27): a schema edit gives the queries it breaks their
diagnostics (open or not: the ones not open are checked in the background) and the fix takes
them away; the server watches the library's files and takes a file changed on disk from the
editor's file event."""

import asyncio
import shutil

import pytest
from lsprotocol import types as lsp

from support_lsp import REPO, wait_diagnostics


@pytest.fixture
def jobs(tmp_path):
    dst = tmp_path / "jobs"
    shutil.copytree(REPO / "schemas" / "jobs", dst)
    return dst


def _open(client, path, text=None):
    text = path.read_text() if text is None else text
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=path.as_uri(), language_id="esdl" if path.suffix == ".esdl" else "edgeql", version=1, text=text)))
    return path.as_uri(), text


def _change(client, uri, text, version):
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))


async def test_schema_edit_breaks_and_fixes_closed_and_open_queries(client, jobs):
    su, schema = _open(client, jobs / "schema.esdl")
    opened = jobs / "queries" / "get_job.edgeql"
    ou, _ = _open(client, opened)
    closed = (jobs / "queries" / "claim_job.edgeql").as_uri()
    await wait_diagnostics(client, ou, want=lambda ds: not ds)
    assert "claimed_at" in (jobs / "queries" / "claim_job.edgeql").read_text()
    broken = schema.replace("claimed_at: datetime;", "claimed_atx: datetime;")
    _change(client, su, broken, 2)
    diags = await wait_diagnostics(client, closed, timeout=60, want=lambda ds: any(d.code == "E0302" for d in ds))
    assert any("claimed_at" in d.message for d in diags)
    _change(client, su, schema, 3)
    await wait_diagnostics(client, closed, timeout=60, want=lambda ds: not ds)
    # an open query broken and fixed by schema edits
    text = opened.read_text()
    assert "processed_at" in text
    _change(client, su, schema.replace("processed_at: datetime;", "processed_atx: datetime;"), 4)
    await wait_diagnostics(client, ou, timeout=60, want=lambda ds: any(d.code == "E0302" for d in ds))
    _change(client, su, schema, 5)
    await wait_diagnostics(client, ou, timeout=60, want=lambda ds: not ds)
    # the schema is still fine, and the closed query too
    await wait_diagnostics(client, su, want=lambda ds: not [d for d in ds if d.severity == 1])
    assert not client.diagnostics.get(closed)


async def test_files_changed_on_disk_come_from_file_events(client, jobs):
    for _ in range(500):  # (the registration is the server's request after `initialized`)
        if any(r.method == "workspace/didChangeWatchedFiles" for r in client.registrations):
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError(f"no file watchers registered: {client.registrations}")
    su, schema = _open(client, jobs / "schema.esdl")
    await wait_diagnostics(client, su)
    q = jobs / "queries" / "claim_job.edgeql"
    text = q.read_text()
    q.write_text(text.replace("claimed_at", "claimed_att", 1))
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
        lsp.FileEvent(uri=q.as_uri(), type=lsp.FileChangeType.Changed)]))
    await wait_diagnostics(client, q.as_uri(), timeout=60, want=lambda ds: any(d.code == "E0302" for d in ds))
    # a new query file, then deleted
    new = jobs / "queries" / "count_jobs_bad.edgeql"
    new.write_text("select count(Jobb);\n")
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
        lsp.FileEvent(uri=new.as_uri(), type=lsp.FileChangeType.Created)]))
    await wait_diagnostics(client, new.as_uri(), timeout=60, want=lambda ds: bool(ds))
    new.unlink()
    q.write_text(text)
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(changes=[
        lsp.FileEvent(uri=new.as_uri(), type=lsp.FileChangeType.Deleted),
        lsp.FileEvent(uri=q.as_uri(), type=lsp.FileChangeType.Changed)]))
    await wait_diagnostics(client, new.as_uri(), timeout=60, want=lambda ds: not ds)
    await wait_diagnostics(client, q.as_uri(), timeout=60, want=lambda ds: not ds)
    await asyncio.sleep(0)
