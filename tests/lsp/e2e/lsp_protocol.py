"""The protocol itself: every request is answered. A request whose params do not fit the
method's type gets the JSON-RPC error -32602 InvalidParams (JSON-RPC 2.0 section 5.1; LSP
"Response Message": a request always gets a response), naming what is wrong, and the server
keeps serving (issue 27). The params are sent as raw JSON (a dict), as a broken client would."""

import asyncio
import uuid
from concurrent.futures import Future

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from support_lsp import open_doc, position_of, uri

QUERY = "schemas/jobs/queries/claim_job.edgeql"


async def _raw(client, method: str, params: dict):
    """Send a request with ``params`` as raw JSON (no lsprotocol type in between) and wait for
    its answer: the result, or the error raised as pygls' exception for its code."""
    proto = client.protocol
    msg_id = f"raw-{uuid.uuid4()}"
    future: Future = Future()
    proto._request_futures[msg_id] = future
    proto._send_data({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
    return await asyncio.wait_for(asyncio.wrap_future(future), 20)


CASES = [
    ("textDocument/hover", {"textDocument": {"uri": uri(QUERY)}, "position": {"line": -1, "character": 0}},
     "position"),
    ("textDocument/hover", {"textDocument": {"uri": 42}, "position": {"line": 0, "character": 0}}, "uri"),
    ("textDocument/hover", {"textDocument": {"uri": uri(QUERY)}}, "position"),
    ("textDocument/completion", {"textDocument": {"uri": uri(QUERY)}, "position": {"line": 0}}, "position"),
    ("textDocument/hover", {"textDocument": {"uri": uri(QUERY)}, "position": {"line": "0", "character": 0}},
     "position"),
    ("textDocument/definition", {"position": {"line": 0, "character": 0}}, "text_document"),
    ("textDocument/rename", {"textDocument": {"uri": uri(QUERY)}, "position": {"line": 0, "character": 4}},
     "new_name"),
    ("textDocument/references", {"textDocument": {"uri": uri(QUERY)}, "position": {"line": 0, "character": 4},
                                 "context": {"includeDeclaration": "yes"}}, "context"),
    ("workspace/symbol", {"query": None}, "query"),
]


async def test_invalid_params_get_invalid_params_error(client):
    """(One test over the cases: tests/lsp/test_lsp_e2e.py maps each inner test by name.)"""
    open_doc(client, QUERY)
    for method, params, where in CASES:
        with pytest.raises(JsonRpcInvalidParams) as info:
            await _raw(client, method, params)
        assert info.value.code == -32602
        assert where in info.value.message, (method, params, info.value.message)
    # and the server still answers a good request
    u, text = open_doc(client, QUERY)
    hover = await asyncio.wait_for(client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=u), position=position_of(text, "filter .i"))), 20)
    assert hover is not None and "id" in hover.contents.value


async def test_positions_outside_the_document_get_an_answer(client):
    """Valid params that point past the end of the text (a stale position): a null answer,
    not an error, not silence. (60 s: the first completion may wait for the grammar's parser
    tables, built in the background after `initialized`, seconds on a loaded machine.)"""
    u, text = open_doc(client, QUERY)
    far = lsp.Position(line=10_000, character=500)
    td = lsp.TextDocumentIdentifier(uri=u)
    assert await asyncio.wait_for(client.text_document_hover_async(lsp.HoverParams(text_document=td, position=far)),
                                  60) is None
    got = await asyncio.wait_for(client.text_document_completion_async(
        lsp.CompletionParams(text_document=td, position=far)), 60)
    assert got is not None
    assert await asyncio.wait_for(client.text_document_definition_async(
        lsp.DefinitionParams(text_document=td, position=far)), 60) is None
