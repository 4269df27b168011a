"""Computeds and computed globals holding sub-queries
(https://docs.geldata.com/reference/datamodel/computeds,
https://docs.geldata.com/reference/datamodel/globals): the forms that compile, with the type
and cardinality they get, and the located E0206 of each form that is not lowered. Behaviour on
Postgres through both runners: tests/e2e/test_gel_computed_subqueries_e2e.py."""

from __future__ import annotations

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library
from schemac.diagnostics import CompileError

BASE = """
scalar type Mood extending enum<Low, High>;
type Author {
  required name: str { constraint exclusive; };
  multi follows: Author;
  mood: Mood;
  a: int32;
  b: int32;
  %s
}
type Post {
  required title: str;
  required author: Author;
  required published: bool;
  required likes: int16;
  required created: datetime;
  editor: str;
  %s
}
"""


def _schema(author_members: str = "", post_members: str = ""):
    """The checked schema (a compile error fails the test with its diagnostics)."""
    return check_library({"s.gel": BASE % (author_members, post_members)}, Options(library="t")).schema


def _diags(author_members: str = "", post_members: str = "", extra: str = ""):
    try:
        compile_library({"s.gel": BASE % (author_members, post_members) + extra}, Options(library="t"))
    except CompileError as e:
        return [(d.span.line if d.span else 0, d.code, d.message) for d in e.diagnostics]
    return []


def test_filtered_backlink_and_link_are_computed_links():
    schema = _schema("multi link published := (select .<author[is Post] filter .published);\n"
                               "multi link followed := (select .follows filter .name like 'A%');\n"
                               "link one := (select .follows filter .name = 'Ann');")
    author = schema.find_type("Author", "default")
    published, followed = author.computeds["published"], author.computeds["followed"]
    assert (published.target.name, published.multi, published.backlink) == ("Post", True, "author")
    assert (followed.target.name, followed.multi, followed.forward) == ("Author", True, "follows")
    # (a multi link stays multi even when its filter pins one object: the link may hold it once)
    assert author.computeds["one"].multi


@pytest.mark.parametrize("expr,type_name,required", [
    ("(select min(.<author[is Post].created))", "datetime", False),
    ("max(.follows.a)", "int32", False),
    ("sum(.<author[is Post].likes)", "int64", True),
    ("max({.a, .b})", "int32", False),
    ("min({.a, 3})", "int32", True),
    ("exists (select .<author[is Post] filter not .published)", "bool", True),
    ("count((select .follows filter .a > 1))", "int64", True),
])
def test_aggregates_and_exists_over_sub_selects_are_typed_as_gel_does(expr, type_name, required):
    schema = _schema(f"property p := {expr};")
    comp = schema.find_type("Author", "default").computeds["p"]
    assert (comp.type.name, comp.required) == (type_name, required)


def test_a_type_name_in_a_computed_reads_the_object_it_is_evaluated_for():
    schema = _schema(post_members="link edited_by := (select Author filter .name = Post.editor);")
    comp = schema.find_type("Post", "default").computeds["edited_by"]
    assert (comp.target.name, comp.multi) == ("Author", False)  # .name is exclusive: one object
    # Another type's name is still not a path.
    assert _diags(post_members="link x := (select Author filter .name = Author.name);") == []
    assert _diags(post_members="link x := (select Author filter .name = Mood.title);")[0][1] in ("E0203", "E0201")


def test_a_computed_global_with_a_shape_is_its_object():
    extra = ("global uid: uuid;\n"
             "global me := (assert_single((select Author { name } filter .id = global uid)));\n")
    assert _diags(extra=extra) == []
    out = compile_library({"s.gel": BASE % ("", "") + extra,
                           "q.edgeql": "select Post { title } filter .author = global me and global me.name = 'x';"},
                          Options(library="t"))
    sql = out["go/queries.go"]
    assert 'author_id = (SELECT "id" FROM "author" WHERE id = $1)' in sql
    assert '(SELECT "_g3".name FROM "author" AS "_g3" WHERE "_g3".id = $1)' in sql


def test_paths_unions_and_with_blocks_are_computeds():
    schema = _schema("multi link reviewers := .<author[is Post].author;\n"
                     "multi link circle := (.follows union .<author[is Post].author);\n"
                     "multi link drafts := (select .<author[is Post] union .<author[is Post] filter not .published);\n"
                     "multi link pub := (select .<author[is Post] filter .published);\n"
                     "multi link liked := (select .pub filter .likes > 1);\n"
                     "property n := (with x := .a, m := re_match_all('a+', .name) select count(m) + x);\n"
                     "link top := (select assert_single((select .<author[is Post] filter .likes > 9)));\n"
                     "multi link others := (with me := .id select .follows.follows filter .id != me);",
                     "property loud := exists re_match_all('[A-Z]', .title);")
    author = schema.find_type("Author", "default")
    for name, target in (("reviewers", "Author"), ("circle", "Author"), ("drafts", "Post"), ("liked", "Post")):
        comp = author.computeds[name]
        assert (comp.target.name, comp.multi) == (target, True), name
    assert (author.computeds["n"].type.name, author.computeds["n"].required) == ("int64", False)
    assert (author.computeds["top"].target.name, author.computeds["top"].multi) == ("Post", False)
    assert (author.computeds["others"].target.name, author.computeds["others"].multi) == ("Author", True)
    assert schema.find_type("Post", "default").computeds["loud"].type.name == "bool"


@pytest.mark.parametrize("member,message", [
    ("multi link top := (select .<author[is Post] order by .likes limit 3);",
     "sub-queries with 'order by', 'offset' or 'limit' are not supported as a value in a computed yet"),
    ("multi link mixed := (.follows union .<author[is Post]);",
     "a union of Author and Post objects is not supported yet"),
    ("property low := min(.follows.mood);", "min() of Mood values is not supported"),
    ("property m := (with x := re_match_all('a', .name) select x);",
     "'x' is a set of values: only count(x) and exists x are supported"),
    ("property w := (with p := (insert Post { title := 'x' }) select 1);",
     "a statement bound in a 'with' inside a computed is not supported yet"),
    ("multi link names := .follows.name union .follows.name;", "the operator 'union' is not supported in a computed yet"),
])
def test_forms_not_lowered_are_located_refusals(member, message):
    got = _diags(member)
    assert got and all(code == "E0206" for _, code, _ in got), got
    assert message in [m for _, _, m in got]
    assert all(line in (9, 10) for line, _, _ in got), got


def test_a_computed_declared_single_may_not_select_several_objects():
    # Gel refuses such a schema ("possibly more than one element returned by an expression for a
    # computed link explicitly declared as 'single'"); it came out as a list before.
    diags = _diags("single link top := (select .<author[is Post] filter .likes > 100);\n"
                   "single link first := .<author[is Post];")
    assert [(code, msg.split(",")[0]) for _, code, msg in diags] == [
        ("E0204", "computed 'top' is declared single"), ("E0204", "computed 'first' is declared single")]
    # a filter on an exclusive property pins one object: accepted
    assert _diags("single link ann := (select .follows filter .name = 'Ann');") == []
    # a backlink through a link declared exclusive reaches one object at most
    assert _diags("", "single shelf := .<books[is Shelf];",
                  "type Shelf { multi books: Post { constraint exclusive; }; }\n") == []
    assert [c for _, c, _ in _diags("", "single shelf := .<books[is Shelf];",
                                    "type Shelf { multi books: Post; }\n")] == ["E0204"]
