"""Diagnostics as you type: the compiler's own, with exact ranges, codes and hints, several
at once, in query and schema files, and cleared when fixed."""

from lsprotocol import types as lsp

from support_lsp import open_doc, position_of, read, replace_all, uri, wait_diagnostics


def _codes(diags):
    return sorted(d.code for d in diags)


async def test_clean_library_has_no_errors(client):
    u, _ = open_doc(client, "schemas/jobs/queries/claim_job.edgeql")
    diags = await wait_diagnostics(client, u) if u in client.diagnostics else []
    assert [d for d in diags if d.severity == lsp.DiagnosticSeverity.Error] == []


async def test_query_errors_with_exact_ranges_codes_and_hints(client):
    rel = "schemas/jobs/queries/claim_job.edgeql"
    u, text = open_doc(client, rel)
    bad = text.replace("filter .id", "filter .idd").replace("QueueStatus.Running", "QueueStatus.Runing")
    replace_all(client, u, text, bad, 2)
    diags = await wait_diagnostics(client, u, want=lambda ds: len(ds) >= 2)
    by_code = {d.code: d for d in diags}
    assert set(by_code) >= {"E0302", "E0203"}, diags
    d = by_code["E0302"]
    start = position_of(bad, ".idd", after=False)
    assert d.range == lsp.Range(start=start, end=lsp.Position(line=start.line, character=start.character + 4))
    assert d.message == "type 'Job' has no property 'idd'\nhint: did you mean 'id'?"
    assert d.severity == lsp.DiagnosticSeverity.Error and d.source == "schemac"
    m = by_code["E0203"]
    ms = position_of(bad, "Runing", after=False)
    assert m.range.start == ms and m.range.end.character == ms.character + len("Runing")
    assert "did you mean 'Running'?" in m.message
    # fixed again: cleared
    replace_all(client, u, bad, text, 3)
    await wait_diagnostics(client, u, want=lambda ds: not ds)


async def test_syntax_error_while_typing(client):
    rel = "schemas/jobs/queries/get_job.edgeql"
    u, text = open_doc(client, rel, "select Job { id, name \nfilter .id = <uuid>$id;")
    diags = await wait_diagnostics(client, u, want=lambda ds: bool(ds))
    assert [d.code for d in diags] == ["E0100"]
    # (`name filter .id = ...` is a shape element with a filter, as Gel reads it: the shape's
    # missing '}' is found at the ';')
    assert diags[0].range.start == lsp.Position(line=1, character=22)
    assert "expected" in diags[0].message and "'}'" in diags[0].message


async def test_schema_errors_reported_in_schema_file_several_at_once(client):
    rel = "schemas/jobs/schema.esdl"
    u, text = open_doc(client, rel)
    bad = text.replace("required actor: str;", "required actor: strr;").replace(
        "claimed_at: datetime;", "claimed_at: datetim;")
    replace_all(client, u, text, bad, 2)
    diags = await wait_diagnostics(client, u, want=lambda ds: len(ds) >= 2)
    assert _codes(diags).count("E0201") == 2
    first = sorted(diags, key=lambda d: (d.range.start.line, d.range.start.character))[0]
    s = position_of(bad, "strr", after=False)
    assert first.range == lsp.Range(start=s, end=lsp.Position(line=s.line, character=s.character + 4))
    assert "did you mean 'str'?" in first.message
    replace_all(client, u, bad, text, 3)
    await wait_diagnostics(client, u, want=lambda ds: not ds)


async def test_unknown_type_in_query(client):
    """An unknown type in a query: E0301 with the closest type as the hint."""
    u, _ = open_doc(client, "schemas/jobs/queries/purge_jobs.edgeql", "delete Jbo filter .id = <uuid>$id;")
    diags = await wait_diagnostics(client, u, want=lambda ds: bool(ds))
    assert diags[0].code == "E0301" and "did you mean 'Job'?" in diags[0].message
