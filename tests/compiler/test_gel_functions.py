"""User-defined functions and aliases (https://docs.geldata.com/reference/datamodel/functions,
https://docs.geldata.com/reference/datamodel/aliases), inlined where they are called: in
computeds, constraints, defaults and queries. The generated SQL runs on PostgreSQL 15 with data;
what cannot be inlined is refused at the call, with the reason."""

from __future__ import annotations

import re

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library
from schemac.diagnostics import CompileError

SCHEMA = """
module default {
  function slugify(s: str, sep: str = '-') -> str using (str_lower(str_trim(s)) ++ sep);
  function clamp(x: int64, named only lo: int64 = 0, named only hi: int64 = 10) -> int64
    using (lo if (x < lo) else (hi if (x > hi) else x));
  alias Answer := 42;
  function posts() -> set of Post using (select Post);
  type Post {
    required title: str;
    slug := slugify(.title);
    score: int64 { constraint expression on (clamp(__subject__, hi := 100) = __subject__); }
    n: int64 { default := Answer; }
  }
}
"""

QUERY = "select Post { title, slug } filter .slug = slugify(<str>$t, '') ++ '-' and clamp(.n, lo := 50) = Answer + 8"


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return pg.execute(sql, {f"p{p.index}": args[p.name] for p in plan.params})


def test_functions_and_aliases_are_inlined_and_run(pg):
    sources = {"lib/schema.esdl": SCHEMA, "lib/find.edgeql": QUERY}
    out = compile_library(sources, Options(library="lib"))
    sql = out["sql/schema.sql"]
    assert "CREATE FUNCTION" not in sql  # inlined: nothing in the database
    pg.execute(sql)
    pg.execute("INSERT INTO post (title, score) VALUES (' Hello ', 100), ('Other', 5)")
    assert pg.execute("SELECT n FROM post ORDER BY title") == [(42,), (42,)]  # default := Answer
    with pytest.raises(Exception, match="ck_post_score_expression"):
        pg.execute("INSERT INTO post (title, score) VALUES ('x', 101)")  # clamp(101, hi := 100) != 101
    plan = check_library(sources, Options(library="lib")).queries[0]
    # clamp(42, lo := 50) = 50 = Answer + 8; slugify(' HELLO ', '') ++ '-' = 'hello-' = .slug
    assert _run(pg, plan, t=" HELLO ") == [(" Hello ", "hello-")]
    assert _run(pg, plan, t="other") == [("Other", "other-")]
    assert _run(pg, plan, t="nope") == []


def _errors(schema, query=None):
    sources = {"lib/schema.esdl": schema}
    if query:
        sources["lib/q.edgeql"] = query
    with pytest.raises(CompileError) as e:
        check_library(sources, Options(library="lib"))
    return [(d.code, d.message) for d in e.value.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("query, expected", [
    ("select Post filter exists posts()",
     ("E0206", "function 'posts()' cannot be inlined: it returns a set ('set of')")),
    ("select Post filter .title = slugify()", ("E0304", "function 'slugify()' needs the argument 's'")),
    ("select Post filter .title = slugify('a', 'b', 'c')",
     ("E0304", "function 'slugify()' takes 2 positional arguments, got 3")),
    ("select Post filter .n = clamp(1, top := 3)", ("E0304", "function 'clamp()' has no named-only parameter 'top'")),
    ("select Post filter .title = slugify(1)", ("E0304", "argument 's' of function 'slugify()' is str, got int64")),
])
def test_calls_that_are_refused(query, expected):
    assert expected in _errors(SCHEMA, query)


def test_declarations_that_are_refused():
    assert ("E0206", "'using sql' functions are not supported") in _errors(
        "function f(x: int64) -> int64 using sql $$ SELECT x + 1 $$;\ntype T { n: int64; }")
    assert ("E0210", "function 'f()' calls itself: recursive functions cannot be inlined") in _errors(
        "function f(x: int64) -> int64 using (f(x));\ntype T { n: int64 { default := f(1); } }")
    assert ("E0204", "function 'f()' returns str, but its body is int64") in _errors(
        "function f(x: int64) -> str using (x);\ntype T { n: str { default := f(1); } }")


def test_an_unused_function_is_not_compiled():
    """(Gel checked it; schemac compiles what is called: a body it cannot lower is no error.)"""
    check_library({"lib/schema.esdl": "function f(x: int64) -> int64 using (with y := x select y);\n"
                                      "type T { n: int64; }"}, Options(library="lib"))


# Functions returning objects, called at the top of a query (select f(...), f(...) { shape },
# f(...).p): the body is inlined as the query. tests/cases/function_calls holds the forms that
# compile, run end to end by tests/e2e/test_function_calls_e2e.py.
OBJECTS = """
module default {
  type Tag { required name: str { constraint exclusive; } required n: int64 { default := 0; } link other: Tag; }
  type Post { required title: str; }
  function upsert_tag(named only name: str) -> Tag
    using (select (insert Tag { name := name } unless conflict on (.name) else (select Tag)));
  function some_tag(n: int64) -> Tag using (select Tag filter .n = n);
  function tag_of(t: Tag) -> set of Tag using (select Tag filter .other = t);
  function wrapped(n: int64) -> set of Tag using (with m := n select Tag filter .n = m);
}
"""


@pytest.mark.parametrize("query, expected", [
    ("select upsert_tag(name := <optional str>$n).id",
     ("E0304", "argument 'name' of function 'upsert_tag()' may be empty, but the parameter is not optional")),
    ("select upsert_tag(name := 1).id", ("E0304", "argument 'name' of function 'upsert_tag()' is str, got int64")),
    ("select upsert_tag(name := 'a' ++ <str>$n).id",
     ("E0206", "argument 'name' of function 'upsert_tag()': an argument of a function returning objects must be a "
               "parameter or a literal here")),
    ("select upsert_tag(name := 'a').other",
     ("E0206", "'.other' after a call of function 'upsert_tag()': only a property of the objects it returns is "
               "supported here")),
    ("select upsert_tag(nom := 'a').id", ("E0304", "function 'upsert_tag()' has no named-only parameter 'nom'")),
    ("select upsert_tag().id", ("E0304", "function 'upsert_tag()' needs the argument 'name'")),
    ("select some_tag(1) { name }",
     ("E0204", "function 'some_tag()' returns one object, but its body may return several")),
    ("select tag_of(<optional Tag>$t) { name }",
     ("E0304", "argument 't' of function 'tag_of()' may be empty, but the parameter is not optional")),
    ("select tag_of(<Post>$t) { name }", ("E0304", "argument 't' of function 'tag_of()' is a Tag, got Post")),
    ("select wrapped(1) { name }",
     ("E0206", "function 'wrapped()' cannot be inlined: its body is not a select of a type, an insert, an update "
               "or a delete")),
    ("select Tag filter exists upsert_tag(name := 'a')",
     ("E0206", "function 'upsert_tag()' cannot be inlined: it returns objects (Tag)")),
])
def test_calls_of_functions_returning_objects_that_are_refused(query, expected):
    assert expected in _errors(OBJECTS, query)
