"""The language server's incremental analysis (issue 27): a schema edit checks again only the
queries that read what it changed (:mod:`schemac.lsp.deps`), the others being left for the
background (:attr:`Analysis.pending`) when they are not open; the library's files are read once
and kept until a file event (:class:`schemac.lsp.analysis.Disk`); and no diagnostics go stale:
a schema edit that breaks a query gives the query its diagnostics, the fix takes them away."""

from __future__ import annotations

import os
import pathlib
from typing import Dict

import pytest

from schemac.lsp import deps
from schemac.lsp.analysis import Analyzer, find_library
from schemac.syntax.parser import parse_schema

SCHEMA = """\
enum Status { Active, Done }

abstract type Named {
  required name: str;
}

type Author extending Named {
  bio: str;
}

type Post {
  required title: str;
  author: Author;
  status: Status { default := Status.Active };
  constraint exclusive on (.title);
}

type Tag {
  required label: str;
}
"""

QUERIES = {
    "get_post": "select Post { title, author: { name } } filter .id = <uuid>$id;",
    "get_tag": "select Tag { label } filter .id = <uuid>$id;",
    "add_tag": "insert Tag { label := <str>$label };",
    "named": "select Named { name };",
    "active_posts": "select Post { title } filter .status = Status.Active;",
    "delete_author": "delete Author filter .id = <uuid>$id;",
    "all_tags": "select Tag { * };",
    "tag_titles": "select Tag { label, title := .label };",
}


@pytest.fixture
def lib(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "schema.esdl").write_text(SCHEMA)
    (tmp_path / "queries").mkdir()
    for name, text in QUERIES.items():
        (tmp_path / "queries" / f"{name}.edgeql").write_text(text + "\n")
    return tmp_path


def _names(old: str, new: str):
    fo = deps.fingerprint([parse_schema("s.esdl", old)], {"s.esdl": old})
    fn = deps.fingerprint([parse_schema("s.esdl", new)], {"s.esdl": new})
    return deps.changed_names(fo, fn)


def _affected(old: str, new: str):
    changes = _names(old, new)
    if changes is None:
        return set(QUERIES)
    return {q for q, text in QUERIES.items() if deps.affected(text, changes)}


def test_a_renamed_property_affects_the_queries_that_name_it_or_its_type():
    new = SCHEMA.replace("required label: str;", "required labelx: str;")
    # (all_tags: a splat reads every property without naming it)
    assert _affected(SCHEMA, new) == {"get_tag", "add_tag", "all_tags", "tag_titles"}


def test_a_changed_property_affects_a_query_naming_it_only_with_a_name_reaching_its_type():
    """`title` of Post changed: tag_titles writes `title` too, but of Tag (no name in it
    reaches Post); get_post and active_posts name Post."""
    new = SCHEMA.replace("required title: str;", "required title: str { constraint max_len_value(9) };")
    got = _affected(SCHEMA, new)
    assert {"get_post", "active_posts"} <= got and "tag_titles" not in got and "get_tag" not in got


def test_a_property_of_a_linked_type_reaches_the_queries_through_the_link_and_the_bases():
    new = SCHEMA.replace("bio: str;", "bio: int64;")
    got = _affected(SCHEMA, new)
    # named: selects the base type (its rows include Author's); delete_author names it;
    # get_post reaches Author through `author`
    assert {"named", "delete_author", "get_post"} <= got
    assert not got & {"get_tag", "add_tag", "active_posts"}


def test_an_enum_change_reaches_the_properties_of_its_type():
    new = SCHEMA.replace("enum Status { Active, Done }", "enum Status { Active, Done, Archived }")
    got = _affected(SCHEMA, new)
    assert {"active_posts", "get_post"} <= got and not got & {"get_tag", "add_tag", "named"}


def test_a_policy_on_a_linked_type_reaches_the_queries_through_the_link():
    new = SCHEMA.replace("  bio: str;\n", "  bio: str;\n  access policy all_ok allow all using (true);\n")
    got = _affected(SCHEMA, new)
    assert {"get_post", "named", "delete_author"} <= got and not got & {"get_tag", "add_tag"}


def test_a_new_type_affects_no_query_but_the_ones_naming_it_and_a_new_module_all():
    assert _affected(SCHEMA, SCHEMA + "\ntype Comment { body: str; }\n") == {"all_tags"}
    assert _names(SCHEMA, SCHEMA + "\nmodule extra { type Comment { body: str; } }\n") is None
    # only whitespace and comments between declarations: nothing
    assert _names(SCHEMA, SCHEMA.replace("\n\ntype Tag", "\n\n# tags\n\n\ntype Tag")).all_names() == set()


def _analyse(an: Analyzer, lib: pathlib.Path, schema: str, priority=(), defer=True):
    cfg = find_library(str(lib / "schema.esdl"))
    return an.analyse(cfg, {str(lib / "schema.esdl"): schema}, priority=[str(lib / p) for p in priority],
                      defer=defer)


def _diags(a, lib: pathlib.Path) -> Dict[str, list]:
    out: Dict[str, list] = {}
    for d in a.diagnostics:
        if d.span is not None and d.span.file.endswith(".edgeql"):
            out.setdefault(pathlib.Path(d.span.file).stem, []).append(d.code)
    return out


def test_schema_edit_checks_only_the_affected_queries_and_never_leaves_stale_diagnostics(lib):
    an = Analyzer()
    a = _analyse(an, lib, SCHEMA, defer=False)
    assert an.checks == len(QUERIES) and _diags(a, lib) == {} and not a.pending
    broken = SCHEMA.replace("required label: str;", "required labelx: str;")
    before = an.checks
    a = _analyse(an, lib, broken, priority=["queries/get_tag.edgeql"])
    # the open query at once, the other affected ones left for the background
    assert an.checks - before == 1
    assert sorted(pathlib.Path(p).stem for p in a.pending) == ["add_tag", "all_tags", "tag_titles"]
    assert _diags(a, lib) == {"get_tag": ["E0302"]}
    while a.pending:
        an.check(a, a.pending[0])
    assert an.checks - before == 4
    assert set(_diags(a, lib)) == {"get_tag", "add_tag", "tag_titles"}
    # the fix: the queries with diagnostics are checked again, and so are the ones naming it
    before = an.checks
    a = _analyse(an, lib, SCHEMA, defer=False)
    assert _diags(a, lib) == {} and an.checks - before == 4
    # an edit no query reads: nothing checked, every plan kept
    before = an.checks
    a = _analyse(an, lib, SCHEMA + "\ntype Comment { body: str; }\n", defer=False)
    assert an.checks - before == 1 and _diags(a, lib) == {} and len(a.plans) == len(QUERIES)


def test_a_schema_edit_that_declares_what_a_query_lacks_fixes_it(lib):
    """A query with diagnostics is checked again at every schema edit: its unknown name may
    just have been declared."""
    (lib / "queries" / "get_comment.edgeql").write_text("select Comment { body };\n")
    an = Analyzer()
    a = _analyse(an, lib, SCHEMA, defer=False)
    assert "get_comment" in _diags(a, lib)
    a = _analyse(an, lib, SCHEMA + "\ntype Comment { body: str; }\n", defer=False)
    assert "get_comment" not in _diags(a, lib)


def test_the_library_is_read_from_disk_once_then_from_file_events(lib):
    an = Analyzer()
    an.disk.events = True
    _analyse(an, lib, SCHEMA, defer=False)
    reads, listed = an.disk.reads, an.disk.listed
    assert reads == len(QUERIES) + 1 and listed == 1  # (the snapshot: none, read once)
    for i in range(5):
        _analyse(an, lib, SCHEMA + "#" * i, defer=False)
    assert (an.disk.reads, an.disk.listed) == (reads, listed)
    # a query changed on disk (a file event): that file is read again, and the result is new
    q = lib / "queries" / "get_tag.edgeql"
    q.write_text("select Tag { labelz } filter .id = <uuid>$id;\n")
    a = _analyse(an, lib, SCHEMA, defer=False)
    assert "get_tag" not in _diags(a, lib)  # no event yet: the editor's view of the disk
    an.disk.invalidate(str(q))
    a = _analyse(an, lib, SCHEMA, defer=False)
    assert _diags(a, lib) == {"get_tag": ["E0302"]} and an.disk.reads == reads + 1
    # a file created (an event with the listing): it joins the library
    (lib / "queries" / "count_tags.edgeql").write_text("select count(Tag);\n")
    an.disk.invalidate(str(lib / "queries" / "count_tags.edgeql"), listing=True)
    a = _analyse(an, lib, SCHEMA, defer=False)
    assert str(lib / "queries" / "count_tags.edgeql") in a.plans


def test_without_file_events_the_disk_is_checked_again_after_a_while(lib, monkeypatch):
    from schemac.lsp import analysis

    an = Analyzer()
    _analyse(an, lib, SCHEMA, defer=False)
    q = lib / "queries" / "get_tag.edgeql"
    q.write_text("select Tag { labelz } filter .id = <uuid>$id;\n")
    os.utime(q, ns=(1, 1))  # (another modification time than the first write's)
    monkeypatch.setattr(analysis, "REVALIDATE_S", 0.0)
    a = _analyse(an, lib, SCHEMA, defer=False)
    assert _diags(a, lib) == {"get_tag": ["E0302"]}
