"""All of Gel 6/7's schema language parses (https://docs.geldata.com/reference/datamodel and
https://docs.geldata.com/reference/sdl): valid Gel never meets a syntax error (E0100). What the
compiler does not lower yet is refused by the resolver with one located E0206 naming it; each
declaration is in the syntax tree (``schemac.syntax.tree``) with its span, for the stages that will
lower it. The cases are small schemas written from the Gel docs' examples."""

from __future__ import annotations

import pytest

from schemac.syntax import tree as ast
from schemac.semantics.library import Options
from schemac.pipeline import compile_library
from schemac.diagnostics import CompileError
from schemac.syntax.parser import parse_query, parse_schema


def _diags(schema: str, queries=None):
    """(line, code, message) of every diagnostic of compiling ``schema`` (none: it compiled)."""
    try:
        compile_library({"s.gel": schema, **(queries or {})}, Options(library="t"))
    except CompileError as e:
        return [(d.span.line if d.span else 0, d.code, d.message) for d in e.diagnostics]
    return []


# Each: a declaration from the Gel docs, the E0206 (or W0001) it gets, the line it is reported on.
REFUSED = [
    ("using future simple_scoping;", "W0001", "'using future' is ignored"),
    ("permission admin;", "E0206", "permissions are not supported yet"),
    ("abstract annotation note;", "E0206", "abstract annotation definitions are not supported yet"),
    ("abstract inheritable annotation tag { annotation title := 'Tag' }", "E0206",
     "abstract annotation definitions are not supported yet"),
    ("abstract constraint positive extending min_value { errmessage := 'must be positive'; "
     "using (__subject__ > 0) }", "E0206", "abstract constraint definitions are not supported yet"),
    ("abstract constraint in_range(lo: int64, hi: int64) on (__subject__.score) "
     "{ using (__subject__ >= lo and __subject__ <= hi) }", "E0206",
     "abstract constraint definitions are not supported yet"),
    ("abstract index lists_idx(named only lists: int64 = 10) { using (__subject__) }", "E0206",
     "abstract index definitions are not supported yet"),
    ("function total(variadic xs: int64, named only plus: optional int64 = 0) -> set of int64 "
     "using sql $$ SELECT 1 $$;", "E0206", "'using sql' functions are not supported"),
]


@pytest.mark.parametrize("decl,code,message", REFUSED, ids=[r[2].split()[0] + str(i) for i, r in enumerate(REFUSED)])
def test_module_level_definitions_parse_and_are_refused_by_name(decl, code, message):
    schema = f"type Account {{ name: str; admin: bool; score: int64; owner: Account }}\n{decl}\n"
    assert _diags(schema) == [(2, code, message)] or (code == "W0001" and _diags(schema) == [])


# Members of a type (or of a pointer): the member, then the E0206 message.
MEMBER_REFUSED = [
    ("trigger log2 after commit of delete for all do (for x in __old__ union (insert Log { msg := x.name }));",
     "'after commit of' triggers are not supported"),
    ("deferred index fts::index on ((fts::with_options(.name, language := fts::Language.eng), .note));",
     "deferred indexes are not supported yet"),
    ("link owner -> Account { required property since -> datetime; };",
     "a required link property ('since') on the single link 'owner' is not supported yet"),
    ("multi link peers -> Account { rank: int64 { index on (.rank) } }",
     "indexes in a link property's body are not supported"),
]


@pytest.mark.parametrize("member,message", MEMBER_REFUSED, ids=[m[1].split()[0] + str(i) for i, m in enumerate(MEMBER_REFUSED)])
def test_type_members_parse_and_are_refused_by_name(member, message):
    schema = f"type Log {{ msg: str }}\ntype Account {{\n  name: str;\n  note: str;\n  {member}\n}}\n"
    got = _diags(schema)
    assert (5, "E0206", message) in got
    assert all(code == "E0206" and line == 5 for line, code, _ in got), got  # one feature, one error


def test_a_link_to_a_union_of_types_compiles():
    """``link owner -> Account | Log`` is a polymorphic link to both types (docs/language.md,
    "Polymorphic links"; tests/compiler/test_issues_setup_forms.py runs one)."""
    schema = "type Log { msg: str }\ntype Account {\n  name: str;\n  link owner -> Account | Log;\n}\n"
    assert _diags(schema) == []


# Definitions that compile (lowered or inlined where used: tests/compiler/test_gel_functions.py,
# test_gel_definitions.py, tests/migrations/test_gel_triggers.py).
ACCEPTED = [
    "abstract link owned { property since: datetime; readonly := true }",
    "abstract property title_prop { annotation title := 'title' }",
    "function slugify(s: str) -> str using (str_lower(s));",
    "function answer() -> int64 { volatility := 'Immutable'; using (42) }",
    "alias Admins := (select Account filter .admin);",
    "alias AccountNames := Account { name, n := count(.<owner[is Account]) };",
    "alias Everyone { using (select Account) };",
]


@pytest.mark.parametrize("decl", ACCEPTED)
def test_module_level_definitions_that_compile(decl):
    assert _diags(f"type Account {{ name: str; admin: bool; score: int64; owner: Account }}\n{decl}\n") == []


def test_everything_in_one_schema_parses_into_the_syntax_tree():
    f = parse_schema("s.gel", GEL_SCHEMA)
    kinds = [(type(d).__name__, getattr(d, "kind", None), d.name) for d in f.definitions]
    assert kinds == [
        ("FutureDecl", None, "simple_scoping"), ("PermissionDecl", None, "admin"),
        ("AbstractDecl", "annotation", "note"), ("AbstractDecl", "constraint", "positive"),
        ("AbstractDecl", "link", "owned"), ("FunctionDecl", None, "slugify"), ("AliasDecl", None, "Names"),
    ]
    fn = f.definitions[5]
    assert [(p.name, str(p.type)) for p in fn.params] == [("s", "str")]
    assert isinstance(fn.body, ast.FuncCall) and fn.returns.name == "str"
    owned = f.definitions[4]
    assert owned.pointer is not None and [lp.name for lp in owned.pointer.link_props] == ["since"]
    assert [m for m, _ in f.modules] == ["default", "default::nested"]
    assert [e.name for e in f.extensions] == ["pgvector"]
    user = next(t for t in f.types if t.name == "User")
    by = {p.name: p for p in user.pointers}
    assert isinstance(by["full"].computed, ast.BinOp)
    assert isinstance(by["posts"].computed, ast.Backlink)
    assert by["friends"].extends[0][0] == "owned" and by["friends"].on_source_delete == "delete target if orphan"
    assert [str(u) for u in by["team"].union] == ["Team", "Org"]
    assert [rw.kinds for rw in by["nick2"].rewrites] == [("insert", "update")]
    assert str(by["embedding"].type) == "ext::pgvector::vector<1536>"
    assert by["embedding"].type.args[0].number == 1536
    assert str(by["pair"].type) == "tuple<a: str, b: int64>"
    assert [(t.name, t.kinds, t.scope, t.commit) for t in user.triggers] == [
        ("log", ("insert", "update"), "each", False), ("log2", ("delete",), "all", True)]
    assert isinstance(user.triggers[0].body, ast.StatementExpr)
    assert [(i.kind, i.deferred) for i in user.indexes] == [("fts::index", True), (None, False)]
    assert [(c.name, c.delegated) for c in user.constraints] == [("exclusive", True), ("expression", False)]
    assert [p.name for p in user.policies] == ["own"]
    # expressions
    assert isinstance(by["score"].computed, ast.IfElse)
    assert isinstance(by["score"].computed.cond, ast.UnaryOp)
    ranked = by["ranked"].computed
    assert isinstance(ranked, ast.SelectExpr) and [e.name for e in ranked.shape] == ["title", "n", "weight"]
    assert ranked.shape[1].value is not None and ranked.shape[2].link_prop and ranked.limit is not None
    assert isinstance(by["first"].computed, ast.Slice)
    assert isinstance(by["arr"].computed, ast.Index) and isinstance(by["arr"].computed.base, ast.ArrayLit)
    assert isinstance(by["iff"].computed, ast.IfElse)
    assert isinstance(by["typed"].computed, ast.TypeCheck)
    assert isinstance(by["likes"].computed, ast.FuncCall)
    assert isinstance(by["likes"].computed.args[0], ast.SelectExpr)  # count(.x filter ...)
    assert isinstance(by["pw"].computed, ast.BinOp) and by["pw"].computed.op == "^"
    assert isinstance(by["st"].computed, ast.Step)


def test_everything_in_one_schema_compiles_to_located_refusals_only():
    got = _diags(GEL_SCHEMA)
    # (count() over a filtered set is a computed the computeds lowering refuses as it stands: E0304)
    assert got and {code for _, code, _ in got} <= {"E0206", "W0001", "E0304"}, got
    assert not any(code == "E0304" and "count()" not in msg for _, code, msg in got), got


def test_keywords_are_case_insensitive():
    """https://docs.geldata.com/reference/edgeql/lexical: keywords in any case; names keep
    their case."""
    f = parse_schema("s.gel", "MODULE default { TYPE Post { REQUIRED title: str; Select: str; "
                              "views: int64 { DEFAULT := 0 } } }")
    (t,) = f.types
    assert [(p.name, p.required) for p in t.pointers] == [("title", True), ("Select", None), ("views", None)]
    q = parse_query("q.edgeql", "SELECT Post { title } FILTER .title LIKE 'a%' ORDER BY .views DESC EMPTY LAST", "q")
    assert q.query.filter.op == "like"
    assert (q.query.order[0].descending, q.query.order[0].empty) == (True, "last")


def test_statements_inside_expressions():
    q = parse_query("q.edgeql", "with a := (insert Post { title := 'x' }) select a { title }", "q")
    assert isinstance(q.query.bindings[0].value, ast.InsertQuery)  # a bound statement, as before
    f = parse_schema("s.gel", "type Post { title: str; n := (with x := .title select x ++ '!'); "
                              "g := (group Post { title } by .title); }")
    by = {p.name: p.computed for p in f.types[0].pointers}
    assert isinstance(by["n"], ast.WithExpr) and isinstance(by["g"], ast.GroupExpr)


@pytest.mark.parametrize(
    "query,message",
    [
        ("delete (select Post filter .title = 'x')", "a delete of an expression (not a type name) is not supported yet"),
        ("update .x set { title := 'y' }", "an update of an expression (not a type name) is not supported yet"),
        ("select Post filter .title = .title[0:1]", "slices ('[a:b]') are not supported in a query yet"),
    ],
)
def test_gel_query_forms_the_planner_does_not_handle_are_located_refusals(query, message):
    got = _diags("type Post { title: str }", {"q/q.edgeql": query})
    assert [(code, msg) for _, code, msg in got] == [("E0206", message)]


GEL_SCHEMA = """\
using extension pgvector;
using future simple_scoping;
permission admin;
abstract annotation note;
abstract constraint positive extending min_value { errmessage := 'must be positive'; using (__subject__ > 0) }
abstract link owned { property since: datetime; readonly := true }
function slugify(s: str) -> str using (str_lower(s));
alias Names := User { name };
module default {
  module nested { type Q; }
  global current_user_id: uuid;
  type User {
    required name: str;
    nick: str;
    admin: bool;
    full := .name ++ ' ' ++ (.nick ?? '');
    multi link posts := .<author[is Post];
    multi link friends extending owned -> User { on source delete delete target if orphan; on target delete allow }
    link team -> Team | Org;
    property nick2 -> str { rewrite insert, update using (str_trim(.nick)) }
    property nick3 -> str;
    deferred index fts::index on ((fts::with_options(.name, language := fts::Language.eng), .nick));
    embedding: ext::pgvector::vector<1536>;
    pair: tuple<a: str, b: int64>;
    delegated constraint exclusive on (.name);
    access policy own when (global current_user_id ?= .id) allow select, update read
      using (.id = global current_user_id) { errmessage := 'not yours' };
    trigger log after insert, update for each when (__new__.name != __old__.name)
      do (insert Log { msg := __new__.name ++ <str>__new__.`id`, target := <json>__new__ { ** } });
    trigger log2 after commit of delete for all do (for x in __old__ union (insert Log { msg := x.name }));
    index on (.name) except (.admin);
    constraint expression on (.name != '') { errmessage := 'empty' };
    score := (select count(.posts) filter .admin) if exists .posts else 0;
    ranked := (select .posts { title, n := count(.<post), @weight } order by .title desc limit 5);
    first := array_agg(.posts)[0:1];
    arr := [1, 2_0, 3][1];
    iff := IF .admin THEN 1 ELSE 2;
    typed := .posts is Post;
    likes := count(.posts filter .title like 'a%');
    pw := 2 ^ 10;
    st := (select .posts[is Post] { title }).title;
  }
  type Post { required author: User; title: str; }
  type Log { msg: str; target: json }
  type Team { name: str } type Org { name: str }
}
"""


def test_a_syntax_error_is_still_one(tmp_path):
    with pytest.raises(CompileError) as e:
        parse_schema("s.gel", "type A { trigger t after insert for each do insert Log {} }")
    assert e.value.diagnostics[0].code == "E0100"


def test_a_schema_file_that_does_not_parse_stops_the_checks_that_depend_on_it():
    """Issue 11, diagnostics: the other files' declarations are not checked against a schema
    with a hole in it (they would report 'unknown module' / 'no concrete subtype'); the syntax
    error and the query files' own syntax errors are reported."""
    good = {
        "a.gel": "module shop { abstract type Item { name: str } type Book extending Item { isbn: str } }",
        "b.gel": "module app { type Order { link item -> shop::Item; note: str } }",
        "q/ok.edgeql": "select app::Order { note }",
    }
    compile_library(good, Options(library="t"))
    broken = dict(good, **{"a.gel": good["a.gel"].replace("isbn: str", "isbn: str nope"),
                           "q/bad.edgeql": "select app::Order {"})
    with pytest.raises(CompileError) as e:
        compile_library(broken, Options(library="t"))
    assert [(d.code, d.span.file) for d in e.value.diagnostics] == [("E0100", "a.gel"), ("E0101", "q/bad.edgeql")]
