"""The ten silent wrong results of issue 25, each checked against Gel's answer (on Postgres 15 with
data where it is about results), one test per item; each failed before its fix.

Gel's rule of each is cited in its test."""

from __future__ import annotations

import re

import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options


def _compile(sources):
    return compile_library(sources, Options(library="w"))


def _plans(sources):
    return {q.name: q for q in check_library(sources, Options(library="w")).queries}


def _migrate(pg, sources):
    pg.execute(_compile(sources)["sql/000001_init.up.sql"])


def _run(pg, plan, *args):
    """``plan``'s statement with ``args`` as $1, $2, ... (in any order in the text)."""
    if not args:
        return pg.execute(plan.sql)
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return pg.execute(sql, {f"p{i}": a for i, a in enumerate(args, 1)})


def _error(sources) -> "CompileError":
    with pytest.raises(CompileError) as e:
        check_library(sources, Options(library="w"))
    return e.value


# -- 8. to_str formats are text, never Python format strings ----------------------------------


def test_08_to_str_format_is_text_not_a_python_format(pg):
    """``to_str(value, fmt)`` (https://docs.geldata.com/reference/stdlib/string#function::std::to_str)
    passes the format to Postgres' ``to_char``: ``'YYYY{'`` was read as a Python format string
    (a traceback), ``'{0}'`` was replaced by the value (SQL Postgres refuses)."""
    sources = {
        "s.esdl": "type T { required d: datetime; }",
        "q/brace.edgeql": "select T { s := to_str(.d, 'YYYY{') };",
        "q/placeholder.edgeql": "select to_str(<duration>'1 hour', '{0}');",
        "q/both.edgeql": "select to_str(<datetime>'2024-05-06T07:08:09Z', '{1}YYYY}{{');",
    }
    _migrate(pg, sources)
    pg.execute("INSERT INTO t (d) VALUES ('2024-01-02T03:04:05Z')")
    plans = _plans(sources)
    assert _run(pg, plans["brace"]) == [("2024{",)]
    assert _run(pg, plans["placeholder"]) == [("{0}",)]
    assert _run(pg, plans["both"]) == [("{1}2024}{{",)]


# -- 9. words are read whole: filterr'x' is the identifier filterr ---------------------------


def test_09_keyword_glued_to_a_word_is_one_identifier():
    """Gel's lexer reads the longest word (https://docs.geldata.com/reference/edgeql/lexical#identifiers),
    so ``filterr'x'`` is the identifier ``filterr`` followed by a string: a syntax error. The
    contextual lexer read the keyword ``filter`` and the raw string ``r'x'``, and the query
    compiled (and ``fmt`` turned it into ``filter r'x'``, a different query)."""
    from schemac.fmt import FormatError, format_source

    schema = "type Post { required title: str; }"
    for query, word in [("select Post { title } filterr'x' = .title;", "filterr"),
                        ("select Post { title } orderby .title;", "orderby"),
                        ("select Post { title } order by .title ascx;", "ascx"),
                        ("select Post { title } filter .title = 'a' orr .title = 'b';", "orr")]:
        err = _error({"s.esdl": schema, "q/q.edgeql": query})
        (d,) = err.diagnostics
        assert d.code.startswith("E01"), d
        assert f"'{word}'" in d.message
        assert (d.span.file, d.span.line, d.span.col) == ("q/q.edgeql", 1, query.index(word) + 1)
        with pytest.raises(FormatError):
            format_source("q/q.edgeql", query + "\n")
    # with a space it is Gel's keyword and raw string, and fmt keeps it so
    ok = "select Post { title } filter r'x' = .title;\n"
    assert format_source("q/q.edgeql", ok) == ok
    assert "WHERE 'x' = title" in _plans({"s.esdl": schema, "q/q.edgeql": ok})["q"].sql.replace('"', "")


# -- 1. -= on a multi property is the multiset difference -------------------------------------


def test_01_subtract_from_a_multi_property_removes_one_occurrence_per_element(pg):
    """geldata/gel tests/test_edgeql_update.py ``test_edgeql_update_subtract_non_distinct``:
    ``str_tags := ['1','1','2','3','2','2','3','4']``, then ``str_tags -= {'1','2','2','3','5'}``
    gives ``{'1','2','3','4'}`` (Gel's ``except`` is a multiset difference:
    https://docs.geldata.com/reference/edgeql/sets). schemac removed every copy (``['4']``)."""
    sources = {
        "s.esdl": "type T { required name: str; multi tags: str; }",
        "q/literal.edgeql": "update T filter .name = <str>$n set { tags -= {'1','2','2','3','5'} };",
        "q/param.edgeql": "update T filter .name = <str>$n set { tags -= array_unpack(<array<str>>$v) };",
        "q/one.edgeql": "update T filter .name = <str>$n set { tags -= <optional str>$v };",
        "q/read.edgeql": "select T { tags } filter .name = <str>$n;",
    }
    _migrate(pg, sources)
    start = ["1", "1", "2", "3", "2", "2", "3", "4"]
    for name in ("a", "b", "c", "d"):
        pg.execute("INSERT INTO t (name, tags) VALUES (%s, %s)", (name, start))
    plans = _plans(sources)
    _run(pg, plans["literal"], "a")
    _run(pg, plans["param"], "b", ["1", "2", "2", "3", "5"])
    _run(pg, plans["one"], "c", "2")
    _run(pg, plans["one"], "d", None)  # -= {} removes nothing
    tags = {n: _run(pg, plans["read"], n)[0][0] for n in "abcd"}
    assert sorted(tags["a"]) == ["1", "2", "3", "4"]
    assert sorted(tags["b"]) == ["1", "2", "3", "4"]
    assert sorted(tags["c"]) == ["1", "1", "2", "2", "3", "3", "4"]
    assert tags["d"] == start
    # the rest keep their order
    assert tags["a"] == ["1", "2", "3", "4"] and tags["c"] == ["1", "1", "3", "2", "2", "3", "4"]


# -- 2. constraint exclusive on a multi link ----------------------------------------------------


def test_02_exclusive_multi_link_holds_each_target_once(pg):
    """``std::exclusive`` on a multi link: "the set of values held by a link ... does not
    intersect with any other such set in any other object"
    (https://docs.geldata.com/reference/stdlib/constraints#constraint::std::exclusive): two users
    cannot hold one award (Gel: ConstraintViolationError). The constraint was dropped."""
    import psycopg

    sources = {
        "s.esdl": "type Award { required name: str; }\n"
                  "type User { required name: str; multi awards: Award { constraint exclusive; } }",
        "q/give.edgeql": "insert User { name := <str>$n, "
                         "awards := (select Award filter .id in array_unpack(<array<uuid>>$ids)) };",
    }
    out = _compile(sources)
    pg.execute(out["sql/000001_init.up.sql"])
    [(gold,)] = pg.execute("INSERT INTO award (name) VALUES ('gold') RETURNING id")
    [(silver,)] = pg.execute("INSERT INTO award (name) VALUES ('silver') RETURNING id")
    give = _plans(sources)["give"]
    _run(pg, give, "ann", [gold])
    _run(pg, give, "bob", [silver])
    with pytest.raises(psycopg.errors.UniqueViolation) as e:
        _run(pg, give, "cid", [silver])
    assert e.value.diag.constraint_name == "uq_user_awards_target_id"
    assert pg.execute("SELECT count(*) FROM \"user\"") == [(2,)]
    # the typed error of the runners, as for any exclusive constraint
    assert 'case "uq_user_awards_target_id":' in out["ts/errors.ts"]
    assert 'pgErr.ConstraintName == "uq_user_awards_target_id"' in out["go/errors.go"]
    # other constraints on a multi link are refused, not dropped
    err = _error({"s.esdl": "type Award { required name: str; }\n"
                            "type User { multi awards: Award { constraint max_len_value(3); } }"})
    assert [d.code for d in err.diagnostics] == ["E0206"]
    assert err.diagnostics[0].span.line == 2
