"""Rename across schema and query files, writing the `migration { rename ... }` hint: applied to
a copy of schemas/jobs, the next generated migration is a RENAME, never a DROP + ADD."""

import asyncio
import os
import pathlib
import shutil
import subprocess

import pytest
from lsprotocol import types as lsp

from support_lsp import PYTHON, REPO, position_of


def apply_edits(text: str, edits) -> str:
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def off(p):
        return starts[p.line] + p.character

    for e in sorted(edits, key=lambda e: off(e.range.start), reverse=True):
        text = text[:off(e.range.start)] + e.new_text + text[off(e.range.end):]
    return text


@pytest.fixture
def jobs_copy(tmp_path):
    dst = tmp_path / "jobs"
    shutil.copytree(REPO / "schemas" / "jobs", dst)
    return dst


async def _rename(client, path: pathlib.Path, needle: str, new: str, after=False):
    text = path.read_text()
    u = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=u, language_id="esdl", version=1, text=text)))
    pos = position_of(text, needle, after=after)
    prep = await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(
        text_document=lsp.TextDocumentIdentifier(uri=u), position=pos))
    assert prep is not None
    edit = await client.text_document_rename_async(lsp.RenameParams(
        text_document=lsp.TextDocumentIdentifier(uri=u), position=pos, new_name=new))
    for file_uri, edits in edit.changes.items():
        p = pathlib.Path(file_uri[len("file://"):])
        p.write_text(apply_edits(p.read_text(), edits))
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=u)))
    return edit


def _generate(lib: pathlib.Path) -> str:
    files = [str(p) for p in sorted(lib.glob("*.esdl"))] + [str(p) for p in sorted((lib / "migrations").iterdir())]
    env = dict(os.environ, PYTHONPATH=str(REPO / "pants-plugins"))
    r = subprocess.run([PYTHON, "-m", "schemac", "migrate", "generate", "--library", "jobs", "--out",
                        str(lib / "migrations"), *files], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    ups = sorted((lib / "migrations").glob("000002_*.up.sql"))
    assert len(ups) == 1, r.stdout + r.stderr
    return ups[0].read_text()


def _py(code: str, *args: str) -> str:
    """Run ``code`` with the server's interpreter (the test venv: psycopg, the compiler)."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "pants-plugins"))
    r = subprocess.run([PYTHON, "-c", code, *args], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


_DB = """
import os, sys, psycopg
from psycopg import conninfo
url = os.environ["DATABASE_URL"]
name = sys.argv[2]
if sys.argv[1] == "create":
    with psycopg.connect(url, autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}"')
        c.execute(f'CREATE DATABASE "{name}"')
    print(conninfo.make_conninfo(url, dbname=name))
elif sys.argv[1] == "drop":
    with psycopg.connect(url, autocommit=True) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
else:
    with psycopg.connect(conninfo.make_conninfo(url, dbname=name), autocommit=True) as c:
        rows = c.execute(sys.argv[3]).fetchall() if sys.argv[1] == "query" else c.execute(sys.argv[3])
        if sys.argv[1] == "query":
            print(repr(rows))
"""


@pytest.fixture
def database():
    if not os.environ.get("DATABASE_URL"):
        if os.environ.get("SCHEMAC_TESTS_RUN") == "1":
            pytest.fail("no DATABASE_URL")
        pytest.skip("no DATABASE_URL (tests/run starts a PostgreSQL 15)")
    name = f"lsp_rename_{os.getpid()}"
    url = _py(_DB, "create", name).strip()
    yield name, url
    _py(_DB, "drop", name)


def _apply(lib: pathlib.Path, url: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO / "pants-plugins"))
    r = subprocess.run([PYTHON, "-m", "schemac", "migrate", "apply", "--database-url", url, "--dir",
                        str(lib / "migrations")], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def _compile(lib: pathlib.Path) -> None:
    files = [str(p) for p in sorted(lib.glob("*.esdl"))] + [str(p) for p in sorted((lib / "queries").glob("*.edgeql"))]
    env = dict(os.environ, PYTHONPATH=str(REPO / "pants-plugins"))
    r = subprocess.run([PYTHON, "-m", "schemac", "compile", "--library", "jobs", "--out", str(lib / "out"), *files],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


async def test_rename_type_writes_the_hint_and_migrates_as_a_rename(client, jobs_copy, database):
    db, url = database
    _apply(jobs_copy, url)  # the last migration, with a row in it
    _py(_DB, "exec", db, "INSERT INTO job (name, actor) VALUES ('build', 'ann')")
    edit = await _rename(client, jobs_copy / "schema.esdl", "type J", "Task", after=True)
    files = sorted(os.path.basename(u) for u in edit.changes)
    assert "claim_job.edgeql" in files and "schema.esdl" in files
    schema = (jobs_copy / "schema.esdl").read_text()
    assert "type Task {" in schema and "migration {\n  rename type Job to Task;\n}" in schema
    assert "update Task" in (jobs_copy / "queries" / "claim_job.edgeql").read_text()
    _compile(jobs_copy)
    up = _generate(jobs_copy)
    assert 'ALTER TABLE "job" RENAME TO "task"' in up and "DROP" not in up and "CREATE TABLE" not in up
    _apply(jobs_copy, url)  # the row is still there, in the renamed table
    assert _py(_DB, "query", db, "SELECT name, actor, status FROM task").strip() == "[('build', 'ann', 'Pending')]"


async def test_rename_property_and_member_then_migration(client, jobs_copy, database):
    db, url = database
    _apply(jobs_copy, url)
    _py(_DB, "exec", db, "INSERT INTO job (name, actor, status) VALUES ('build', 'ann', 'Running')")
    await _rename(client, jobs_copy / "schema.esdl", "required a", "owner", after=True)
    schema = (jobs_copy / "schema.esdl").read_text()
    assert "required owner: str;" in schema and "on (.name, .owner)" in schema
    assert "rename property Job.actor to owner;" in schema
    # a second rename goes into the same migration block
    await _rename(client, jobs_copy / "schema.esdl", "Running,", "Active", after=False)
    schema = (jobs_copy / "schema.esdl").read_text()
    assert "migration {\n  rename property Job.actor to owner;\n  rename member QueueStatus.Running to Active;\n}" \
        in schema
    assert "status := QueueStatus.Active" in (jobs_copy / "queries" / "claim_job.edgeql").read_text()
    _compile(jobs_copy)
    up = _generate(jobs_copy)
    assert 'RENAME COLUMN "actor" TO "owner"' in up
    assert "'Active'" in up and "DROP COLUMN" not in up and 'ADD COLUMN' not in up
    _apply(jobs_copy, url)  # the value moved to the renamed column, the member rewritten
    assert _py(_DB, "query", db, "SELECT name, owner, status FROM job").strip() == "[('build', 'ann', 'Active')]"


async def test_rename_refuses_a_clash(client, jobs_copy):
    text = (jobs_copy / "schema.esdl").read_text()
    u = (jobs_copy / "schema.esdl").as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=u, language_id="esdl", version=1, text=text)))
    from pygls.exceptions import JsonRpcException
    with pytest.raises(JsonRpcException, match="already has a property or link 'name'"):
        await client.text_document_rename_async(lsp.RenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=u), position=position_of(text, "required a"),
            new_name="name"))


async def test_migration_hint_quick_fixes(client, jobs_copy):
    """The schema drifts from the last migration in ways `generate-migrations` refuses without a
    hint (a dropped property, a type change, a new required property): the editor warns at the
    declarations, and the quick fixes add the `migration { ... }` statements; with them (and the
    fill value written) the next migration is generated."""
    path = jobs_copy / "schema.esdl"
    text = path.read_text()
    edited = text.replace("  payload: json;\n", "").replace(
        "required actor: str;", "required actor: str;\n  required priority: int64;").replace(
        "claimed_at: datetime;", "claimed_at: str;")
    # the queries that use the dropped property or miss the new one would stop generation too
    for q in (jobs_copy / "queries").glob("*.edgeql"):
        q.unlink()
    path.write_text(edited)
    u = path.as_uri()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=u, language_id="esdl", version=1, text=edited)))
    from support_lsp import wait_diagnostics

    diags = await wait_diagnostics(client, u, want=lambda ds: len(ds) >= 3)
    codes = sorted(d.code for d in diags)
    assert codes == ["E0402", "E0403", "MF103"], diags
    assert all(d.severity == lsp.DiagnosticSeverity.Warning for d in diags)
    fill = next(d for d in diags if d.code == "MF103")
    assert fill.range.start == position_of(edited, "required priority", after=False)
    edits = []
    for d in diags:
        actions = await client.text_document_code_action_async(lsp.CodeActionParams(
            text_document=lsp.TextDocumentIdentifier(uri=u), range=d.range,
            context=lsp.CodeActionContext(diagnostics=[d])))
        titles = [a.title for a in actions]
        want = {"E0402": "Add `drop property Job.payload;` to the migration block",
                "E0403": "Add `cast Job.claimed_at;` to the migration block",
                "MF103": "Add `fill Job.priority using (...);` to the migration block (then write the value)"}[d.code]
        assert want in titles, titles
        edits += actions[titles.index(want)].edit.changes[u]
        # apply one at a time (each inserts into the block the previous one created)
        new = apply_edits(path.read_text(), actions[titles.index(want)].edit.changes[u])
        path.write_text(new)
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=u, version=len(edits) + 1),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=new)]))
        await asyncio.sleep(0.5)  # the debounced re-analysis
    final = path.read_text()
    assert "migration {\n  drop property Job.payload;\n" in final or "drop property Job.payload;" in final
    assert "cast Job.claimed_at;" in final and "fill Job.priority using (...);" in final
    path.write_text(final.replace("using (...)", "using (0)"))
    up = _generate(jobs_copy)
    assert 'DROP COLUMN "payload"' in up and 'ADD COLUMN "priority" bigint' in up and "claimed_at" in up
