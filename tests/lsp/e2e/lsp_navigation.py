"""Hover, go to definition, find references, document and workspace symbols, code actions."""

import os
import pathlib

from lsprotocol import types as lsp

from support_lsp import REPO, open_doc, position_of, read, replace_all, uri, wait_diagnostics


async def _hover(client, u, pos) -> str:
    h = await client.text_document_hover_async(lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=u),
                                                                position=pos))
    assert h is not None
    return h.contents.value


async def test_hover_property_type_cardinality_constraints(client):
    u, text = open_doc(client, "schemas/blog/queries/author_feed.edgeql")
    md = await _hover(client, u, position_of(text, "author: { ", ))
    assert "required property User.handle -> Slug" in md
    assert "exactly one" in md and "constraint `exclusive`" in md and "`user.handle`: `text` NOT NULL" in md
    md = await _hover(client, u, position_of(text, "  status", after=True))
    assert "required property Post.status -> PublicationStatus" in md and "DEFAULT `'Draft'`" in md
    md = await _hover(client, u, position_of(text, ".author", after=True))
    assert "required link Post.author -> User" in md and "References `user`" in md


async def test_hover_type_shows_table_and_columns(client):
    u, text = open_doc(client, "schemas/jobs/queries/get_job.edgeql")
    md = await _hover(client, u, position_of(text, "select Jo"))
    assert "Table `job`" in md
    for row in ("| `id` | `uuid` |  | `gen_random_uuid()` |", "| `status` | `text` | NULL | `'Pending'` |",
                "| `payload` | `jsonb` | NULL |  |"):
        assert row in md
    assert "unique `uq_job_name_actor` (name, actor) where `status = 'Pending'`" in md


async def test_hover_query_keyword_shows_generated_sql_ts_and_go(client):
    u, text = open_doc(client, "schemas/jobs/queries/claim_job.edgeql")
    md = await _hover(client, u, position_of(text, "upd"))
    assert "**query `claim_job`** (update, returns at most one row)" in md
    assert 'UPDATE "job"\nSET "status" = \'Running\',\n    "claimed_at" = now()\nWHERE id = $1\nRETURNING "id"' in md
    assert "export interface ClaimJobArgs {\n  readonly id: string;\n}" in md
    assert "export async function claimJob(db: Queryable, args: ClaimJobArgs): Promise<ClaimJobResult | null>" in md
    assert "type ClaimJobParams struct {\n\tID string\n}" in md
    assert "func (q *Queries) ClaimJob(ctx context.Context, arg ClaimJobParams) (*ClaimJobRow, error)" in md
    # what the Go and TS back ends write for it
    gen_ts = read("generated/jobs/ts/queries.ts")
    gen_go = read("generated/jobs/go/queries.go")
    assert "export async function claimJob(db: Queryable, args: ClaimJobArgs): Promise<ClaimJobResult | null>" in gen_ts
    assert "func (q *Queries) ClaimJob(ctx context.Context, arg ClaimJobParams) (*ClaimJobRow, error)" in gen_go
    # enum member, parameter
    md = await _hover(client, u, position_of(text, "QueueStatus.Runn"))
    assert "stored as the text `'Running'`" in md
    md = await _hover(client, u, position_of(text, "$i"))
    assert "$id: uuid" in md and "Bound as `$1`" in md


async def _definition(client, u, pos):
    r = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=u), position=pos))
    return r[0] if isinstance(r, list) else r


async def test_definition_across_files_and_inheritance(client):
    schema = read("schemas/blog/schema.esdl")
    u, text = open_doc(client, "schemas/blog/queries/author_feed.edgeql")
    loc = await _definition(client, u, position_of(text, "author: { han"))
    assert loc.uri == uri("schemas/blog/schema.esdl")
    assert loc.range.start == position_of(schema, "required handle", after=False) or \
        loc.range.start == position_of(schema, "handle: Slug", after=False)
    # a link: its declaration; the type in `select Post`
    loc = await _definition(client, u, position_of(text, ".auth"))
    assert loc.range.start == position_of(schema, "author -> User", after=False)
    loc = await _definition(client, u, position_of(text, "select Po"))
    assert loc.range.start == position_of(schema, "Post extending", after=False)
    # an inherited property: declared in the abstract type
    u2, t2 = open_doc(client, "schemas/blog/queries/register_user.edgeql",
                      "select User { created_at } filter .id = <uuid>$id")
    loc = await _definition(client, u2, position_of(t2, "created_a"))
    assert loc.range.start == position_of(schema, "created_at: datetime", after=False)
    # an enum member from a query: the member in the enum's declaration
    jobs = read("schemas/jobs/schema.esdl")
    u3, t3 = open_doc(client, "schemas/jobs/queries/claim_job.edgeql")
    loc = await _definition(client, u3, position_of(t3, "QueueStatus.Run"))
    assert loc.uri == uri("schemas/jobs/schema.esdl") and loc.range.start == position_of(jobs, "Running", after=False)


async def test_references_across_schema_and_queries(client):
    u, text = open_doc(client, "schemas/jobs/schema.esdl")
    refs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri=u), position=position_of(text, "{ Pend"),
        context=lsp.ReferenceContext(include_declaration=True)))
    files = sorted(os.path.basename(r.uri) for r in refs)
    # the declaration, the default and the constraint filter, and the list_pending_jobs filter
    assert files == ["list_pending_jobs.edgeql", "schema.esdl", "schema.esdl", "schema.esdl"]
    refs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=lsp.TextDocumentIdentifier(uri=u), position=position_of(text, "required act"),
        context=lsp.ReferenceContext(include_declaration=False)))
    names = sorted(os.path.basename(r.uri) for r in refs)
    assert names.count("schema.esdl") == 1  # the constraint's `.actor`
    for q in ("enqueue_job.edgeql", "enqueue_jobs.edgeql", "get_job.edgeql", "list_pending_jobs.edgeql",
              "upsert_job.edgeql"):
        assert q in names


async def test_document_and_workspace_symbols(client):
    u, _ = open_doc(client, "schemas/blog/schema.esdl")
    syms = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(
        text_document=lsp.TextDocumentIdentifier(uri=u)))
    by = {s.name: s for s in syms}
    assert by["Post"].kind == lsp.SymbolKind.Class and by["PublicationStatus"].kind == lsp.SymbolKind.Enum
    assert [c.name for c in by["PublicationStatus"].children] == ["Draft", "Scheduled", "Published", "Archived"]
    assert "author" in [c.name for c in by["Post"].children] and by["Slug"].kind == lsp.SymbolKind.TypeParameter
    ws = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="QueueStat"))
    assert any(s.name == "QueueStatus" and s.location.uri == uri("schemas/jobs/schema.esdl") for s in ws)
    ws = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="claim_job"))
    assert any(s.location.uri == uri("schemas/jobs/queries/claim_job.edgeql") for s in ws)


async def test_code_action_applies_the_compilers_did_you_mean(client):
    rel = "schemas/jobs/queries/claim_job.edgeql"
    u, text = open_doc(client, rel)
    bad = text.replace("filter .id", "filter .idd")
    replace_all(client, u, text, bad, 2)
    diags = await wait_diagnostics(client, u, want=lambda ds: any(d.code == "E0302" for d in ds))
    d = next(d for d in diags if d.code == "E0302")
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=lsp.TextDocumentIdentifier(uri=u), range=d.range,
        context=lsp.CodeActionContext(diagnostics=[d])))
    assert [a.title for a in actions] == ["Change 'idd' to 'id'"]
    (edit,) = actions[0].edit.changes[u]
    start = position_of(bad, ".idd", after=False)
    assert edit.new_text == "id" and edit.range.start == lsp.Position(line=start.line, character=start.character + 1)
    replace_all(client, u, bad, text, 3)
    await wait_diagnostics(client, u, want=lambda ds: not ds)


async def test_formatting_request(client):
    text = "update Job filter .id = <uuid>$id  set {status:=QueueStatus.Running}  # go\n\n\n"
    u, _ = open_doc(client, "schemas/jobs/queries/claim_job.edgeql", text)
    edits = await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=lsp.TextDocumentIdentifier(uri=u), options=lsp.FormattingOptions(tab_size=2, insert_spaces=True)))
    assert len(edits) == 1 and edits[0].range.start == lsp.Position(line=0, character=0)
    assert edits[0].new_text == "update Job filter .id = <uuid>$id set { status := QueueStatus.Running }  # go\n"
    # text that does not parse: no edit
    u, _ = open_doc(client, "schemas/jobs/queries/claim_job.edgeql", "update Job set {")
    assert not await client.text_document_formatting_async(lsp.DocumentFormattingParams(
        text_document=lsp.TextDocumentIdentifier(uri=u), options=lsp.FormattingOptions(tab_size=2, insert_spaces=True)))
