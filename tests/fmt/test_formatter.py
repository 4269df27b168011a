"""The formatter (schemac.fmt): on every schema and query file of the repository and on the fuzz
inputs, the formatted text parses to the same syntax tree, keeps every comment, and formatting
it again changes nothing; the layout rules on small inputs; `python -m schemac fmt [--check]`."""

from __future__ import annotations

import dataclasses
import os
import pathlib
import subprocess
import sys

import pytest
from hypothesis import given

from schemac.pipeline import QUERY_SUFFIXES, SCHEMA_SUFFIXES
from schemac.diagnostics import CompileError, Span
from schemac.fmt import FormatError, format_source, format_text, lex
from schemac.syntax.parser import parse_query, parse_schema

REPO = pathlib.Path(__file__).resolve().parents[2]


def _files():
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout.split()
    return sorted(p for p in out if p.endswith(SCHEMA_SUFFIXES + QUERY_SUFFIXES) and "node_modules" not in p)


FILES = _files()


def shape(node):
    """A syntax tree without its positions (spans), to compare two parses; fields that are not part
    of a node's equality (``compare=False``, e.g. ``QueryFile.text``, the source itself) are left out."""
    if isinstance(node, Span):
        return None
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return (type(node).__name__,) + tuple(shape(getattr(node, f.name)) for f in dataclasses.fields(node)
                                              if f.compare)
    if isinstance(node, (list, tuple)):
        return tuple(shape(x) for x in node)
    if isinstance(node, dict):
        return tuple(sorted((k, shape(v)) for k, v in node.items()))
    return node


def tree(path: str, text: str):
    try:
        if path.endswith(QUERY_SUFFIXES):
            return shape(parse_query(path, text, "q"))
        return shape(parse_schema(path, text))
    except CompileError as e:
        return ("error", tuple((d.code, d.message) for d in e.diagnostics))


def comments(text: str):
    return [t.text.rstrip() for t in lex(text, keep_comments=True) if t.kind == "comment"]


def check_invariants(path: str, text: str) -> str:
    formatted = format_source(path, text)
    assert tree(path, formatted) == tree(path, text), f"{path}: the formatted text parses differently"
    assert comments(formatted) == comments(text), f"{path}: comments changed"
    assert format_source(path, formatted) == formatted, f"{path}: formatting twice changes the text"
    assert (formatted.endswith("\n") or formatted == "") and "\n\n\n" not in formatted
    assert all(line == line.rstrip() for line in formatted.split("\n"))
    return formatted


def test_the_repository_has_schema_and_query_files():
    assert len([f for f in FILES if f.endswith(SCHEMA_SUFFIXES)]) >= 8
    assert len([f for f in FILES if f.endswith(QUERY_SUFFIXES)]) >= 50


@pytest.mark.parametrize("rel", FILES)
def test_every_file_of_the_repository(rel):
    text = (REPO / rel).read_text(encoding="utf-8")
    try:
        check_invariants(rel, text)
    except FormatError:
        # a deliberately broken input (e.g. a syntax error test case): it must not parse either
        with pytest.raises(CompileError):
            parse_query(rel, text, "q") if rel.endswith(QUERY_SUFFIXES) else parse_schema(rel, text)


@pytest.mark.parametrize("rel", [f for f in FILES if f.startswith("schemas/")])
def test_the_libraries_are_formatted(rel):
    """`./pants lint ::` checks this for the schema_library sources."""
    text = (REPO / rel).read_text(encoding="utf-8")
    assert format_source(rel, text) == text, f"run: python -m schemac fmt {rel}"


# ---------------------------------------------------------------------------------------------
# Fuzz inputs (tests/compiler/fuzz_support.py's strategies)

sys.path.insert(0, str(REPO / "tests" / "compiler"))
from fuzz_support import fuzz_settings, generated_library, mutated_library, token_soup  # noqa: E402


def _check_sources(sources):
    for path, text in sources.items():
        if not path.endswith(SCHEMA_SUFFIXES + QUERY_SUFFIXES):
            continue
        try:
            check_invariants(path, text)
        except FormatError:
            pass


@fuzz_settings(30)
@given(mutated_library())
def test_fuzz_mutated_libraries(sources):
    _check_sources(sources)


@fuzz_settings(20)
@given(generated_library())
def test_fuzz_generated_libraries(lib):
    _check_sources(lib.sources)


@fuzz_settings(60)
@given(token_soup())
def test_fuzz_token_soup(text):
    for path in ("soup.esdl", "soup.edgeql"):
        try:
            check_invariants(path, text)
        except FormatError:
            pass


# ---------------------------------------------------------------------------------------------
# Layout


def test_layout_of_a_schema():
    src = ("# The queue.\nenum QueueStatus {Pending,Running}\n\n\n\ntype Job{required name:str;  # the name\n"
           "status : QueueStatus{default:=QueueStatus.Pending};\n"
           "tags: array<str>;\nconstraint exclusive on(.name,.status)filter .status=QueueStatus.Pending;}\n"
           "module m { type T { x: int64 { constraint min_value(-1); }; } }")
    assert format_text(src, "schema") == (
        "# The queue.\n"
        "enum QueueStatus { Pending, Running }\n"
        "\n"
        "type Job {\n"
        "  required name: str;  # the name\n"
        "  status: QueueStatus { default := QueueStatus.Pending };\n"
        "  tags: array<str>;\n"
        "  constraint exclusive on (.name, .status) filter .status = QueueStatus.Pending;\n"
        "}\n"
        "module m {\n"
        "  type T {\n"
        "    x: int64 { constraint min_value(-1); };\n"
        "  }\n"
        "}\n")


def test_layout_of_queries():
    src = ("update Job\n  filter .id = $id<uuid>\n     and .status in {QueueStatus.Pending}\n"
           "  set { status := QueueStatus.Running, claimed_at := now() };")
    assert format_text(src, "query") == (
        "update Job\n"
        "  filter .id = $id<uuid>\n"
        "    and .status in { QueueStatus.Pending }\n"
        "  set { status := QueueStatus.Running, claimed_at := now() };\n")
    src = ("select Post {\n id, title,\n  author: { handle },\n tags: {\nslug,\n name } }\n"
           "filter .author.id = <uuid>$a order by .published_at desc then .title limit $n<int64>;")
    assert format_text(src, "query") == (
        "select Post {\n"
        "  id,\n"
        "  title,\n"
        "  author: { handle },\n"
        "  tags: {\n"
        "    slug,\n"
        "    name\n"
        "  }\n"
        "}\n"
        "filter .author.id = <uuid>$a order by .published_at desc then .title limit $n<int64>;\n")
    src = "for name in array_unpack(<array<str>>$names) union (\ninsert Job { name := name, actor := -$a }\n)"
    assert format_text(src, "query") == (
        "for name in array_unpack(<array<str>>$names) union (\n"
        "  insert Job { name := name, actor := -$a }\n"
        ")\n")


def test_a_comment_after_a_blank_first_line_does_not_become_the_doc_text():
    # leading_comment reads only the comment lines at the very top; dropping the blank first
    # line turned this comment into the query's doc text (found by the fuzz test)
    from schemac.syntax.parser import leading_comment

    src = "\n\n# not a doc\nselect 1;"
    out = format_text(src, "query")
    assert out == "\n# not a doc\nselect 1;\n"
    assert leading_comment(out) == leading_comment(src) == ""
    assert format_text(out, "query") == out
    assert format_text("# doc\nselect 1;", "query") == "# doc\nselect 1;\n"


def test_text_that_does_not_parse_is_not_formatted():
    with pytest.raises(FormatError) as e:
        format_source("q.edgeql", "select Job {")
    assert e.value.diagnostics[0].code == "E0101"


# ---------------------------------------------------------------------------------------------
# Command line


def _run(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(REPO / "pants-plugins"))
    return subprocess.run([sys.executable, "-m", "schemac", "fmt", *args], cwd=cwd, env=env, capture_output=True,
                          text=True)


def test_cli_check_and_write(tmp_path):
    (tmp_path / "queries").mkdir()
    (tmp_path / "schema.esdl").write_text("type Job { required name: str; }\n")
    (tmp_path / "queries" / "get.edgeql").write_text("select Job {id}\n")
    (tmp_path / "queries" / "ok.edgeql").write_text("select Job { id }\n")
    r = _run("--check", ".", cwd=tmp_path)
    assert r.returncode == 1 and sorted(r.stdout.split()) == ["./queries/get.edgeql", "./schema.esdl"]
    assert (tmp_path / "schema.esdl").read_text() == "type Job { required name: str; }\n"  # untouched
    r = _run(".", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "schema.esdl").read_text() == "type Job {\n  required name: str;\n}\n"
    assert (tmp_path / "queries" / "get.edgeql").read_text() == "select Job { id }\n"
    assert _run("--check", ".", cwd=tmp_path).returncode == 0


def test_cli_reports_a_file_that_does_not_parse(tmp_path):
    (tmp_path / "bad.edgeql").write_text("select Job {\n")
    r = _run("bad.edgeql", cwd=tmp_path)
    assert r.returncode == 1 and "bad.edgeql:1:13: error[E0101]" in r.stderr and "Traceback" not in r.stderr
    assert (tmp_path / "bad.edgeql").read_text() == "select Job {\n"


@pytest.mark.parametrize("path, text", [
    ("s.gel", "module default {\n type Lamp { required watts: int64 { default := 40 };\n"
              "  label := 'lamp \\(.watts)W in \\(.room ?? \"no room\")'; }\n}\n"),
    ("q.edgeql", "insert Lamp unless conflict;"),
    ("q.edgeql", "select Shelf { name, lamps filter .watts > 5 order by .watts desc limit 1 };"),
    ("q.edgeql", "with b := select Lamp filter .watts > 50, n := count(select Lamp)\nselect b { watts };"),
    ("q.edgeql", "select all(  for t in Lamp union (select t.watts > 0)  );"),
    ("q.edgeql", "select enumerate({'a','b'}) filter .0 > 0;"),
    ("q.edgeql", "select 'a' ++ if <bool>$c then 'b' else 'c' ++ 'd';"),
    ("q.edgeql", "select Target { label, [is Team | Event].name };"),
    ("q.edgeql", "select {insert Lamp, insert Lamp { watts := 5 }};"),
])
def test_gel_syntax_forms_round_trip(path, text):
    # (insert without a shape, interpolated strings, clauses on a link without a sub-shape,
    # unparenthesised statements as arguments and with bindings, a partial path `.0`)
    check_invariants(path, text)
