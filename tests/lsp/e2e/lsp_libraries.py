"""Libraries: a query resolves against its library's schema files found through BUILD
(`schema_library(dependencies=[...])`) and the libraries it depends on; `.gel` schema files."""

import pathlib

from lsprotocol import types as lsp

from support_lsp import complete, labels, position_of, wait_diagnostics

ACCOUNTS = "type User {\n  required email: str { constraint exclusive; };\n  name: str;\n}\n"
BLOG = "type Post {\n  required title: str;\n  author: accounts::User;\n}\n"


def _workspace(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "pants.toml").write_text("[GLOBAL]\n")
    (tmp_path / "accounts").mkdir()
    (tmp_path / "accounts" / "BUILD").write_text('schema_library(name="accounts")\n')
    (tmp_path / "accounts" / "schema.gel").write_text(ACCOUNTS)
    (tmp_path / "blog" / "queries").mkdir(parents=True)
    (tmp_path / "blog" / "BUILD").write_text('schema_library(dependencies=["//accounts"])\n')
    (tmp_path / "blog" / "schema.esdl").write_text(BLOG)
    return tmp_path


def _open(client, path: pathlib.Path, text: str) -> str:
    u = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=u, language_id="edgeql" if path.suffix == ".edgeql" else "esdl", version=1, text=text)))
    return u


async def test_query_through_a_dependency_library(client, tmp_path):
    ws = _workspace(tmp_path)
    q = "select Post { title, author: { email } } filter .author.id = <uuid>$author"
    u = _open(client, ws / "blog" / "queries" / "by_author.edgeql", q)
    assert list(await wait_diagnostics(client, u)) == []  # it compiles against both libraries
    got = labels(await complete(client, u, position_of(q, "author: { ")))
    assert got == ["id", "email", "name"]
    loc = await client.text_document_definition_async(lsp.DefinitionParams(
        text_document=lsp.TextDocumentIdentifier(uri=u), position=position_of(q, "{ ema")))
    loc = loc[0] if isinstance(loc, list) else loc
    assert loc.uri == (ws / "accounts" / "schema.gel").as_uri()
    assert loc.range.start == position_of(ACCOUNTS, "email", after=False)
    hover = await client.text_document_hover_async(lsp.HoverParams(
        text_document=lsp.TextDocumentIdentifier(uri=u), position=position_of(q, "select Po")))
    assert "Table `post`" in hover.contents.value and "`author_id`" in hover.contents.value


async def test_gel_schema_file_diagnostics_and_completion(client, tmp_path):
    ws = _workspace(tmp_path)
    bad = ACCOUNTS.replace("name: str;", "name: strr;\n  nick: ")
    u = _open(client, ws / "accounts" / "schema.gel", bad)
    diags = await wait_diagnostics(client, u, want=lambda ds: bool(ds))
    assert diags[0].code in ("E0100", "E0101")  # `nick: ` does not parse yet
    got = set(labels(await complete(client, u, position_of(bad, "nick: "), ":")))
    assert {"str", "int64", "User"} <= got
