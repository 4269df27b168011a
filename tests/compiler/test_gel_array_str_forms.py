"""Array literals and indexing (https://docs.geldata.com/reference/stdlib/array), the power
operator (https://docs.geldata.com/reference/stdlib/numbers#operator::pow), ``to_str`` with and
without a format (https://docs.geldata.com/reference/stdlib/string#function::std::to_str),
``array_agg`` / ``array_join`` and ``math::mean(set ?? {fallback})``, in computeds, a user
function's defaults and body, and queries, each proven on PostgreSQL 15 with data."""

from __future__ import annotations

import datetime

import psycopg
import pytest

from libraries import run_plan
from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SHELVES = """\
module default {
  function human(n: int64, units: array<str> = ['p', 'kp', 'Mp']) -> str {
    using ('0' ++ units[0] if n = 0 else (
      with i := <int64>math::floor(math::ln(<float64>n) / math::ln(1000))
      select to_str(round(<decimal>(n / 1000 ^ i), 1)) ++ units[i]));
  };
  type Shelf {
    required label: str;
    multi link books := .<shelf[is Book];
    property avg_score := <float64>round(<decimal>math::mean(.books.score ?? {0.0}), 2);
    property titles := to_str(array_agg(.books.title), ', ');
    property genres := array_join(array_agg(.books.genre.name), '|');
    property total := sum(.books.pages);
    property span_text := to_str(to_duration(seconds := <float64>.total), 'HH24:MI:SS');
    property size_text := human(.total);
  }
  type Genre { required name: str; }
  type Book {
    required title: str;
    required score: float64;
    required pages: int64;
    required link shelf: Shelf;
    link genre: Genre;
    property shelf_size := .shelf.size_text;
    multi link readers: Reader { note: str; }
    property notes := (select .readers@note);
  }
  type Reader { required name: str; }
}
"""


def _library(schema: str, queries: dict):
    sources = {"default.gel": schema}
    sources.update({f"q/{k}.edgeql": v for k, v in queries.items()})
    return sources


def _plans(schema: str, **queries):
    lib = check_library(_library(schema, queries), Options(library="c"))
    return {q.name: q for q in lib.queries}


def _errors(schema: str, **queries) -> str:
    sources = _library(schema, queries)
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="c"))
    return exc.value.render(sources)


def _migrate(pg, schema: str) -> None:
    pg.execute(compile_library({"default.gel": schema}, Options(library="c"))["sql/000001_init.up.sql"])


def test_computeds_with_arrays_to_str_array_agg_and_mean_fallback(pg):
    _migrate(pg, SHELVES)
    pg.execute("INSERT INTO shelf (label) VALUES ('empty'), ('full')")
    pg.execute("INSERT INTO genre (name) VALUES ('sf'), ('poetry')")
    pg.execute("""INSERT INTO book (title, score, pages, shelf_id, genre_id)
                  SELECT t, s, p, (SELECT id FROM shelf WHERE label = 'full'), (SELECT id FROM genre WHERE name = g)
                  FROM (VALUES ('Dune', 4.5, 600000, 'sf'), ('Solaris', 3.25, 4000, 'sf'),
                               ('Odes', 2.0, 12, 'poetry')) AS v(t, s, p, g)""")
    q = _plans(SHELVES, shelves="select Shelf { label, avg_score, titles, genres, total, span_text, size_text } "
                                "order by .label;")["shelves"]
    rows = pg.execute(q.sql)
    assert rows[0] == ("empty", 0.0, "", "", 0, "00:00:00", "0p")
    label, avg, titles, genres, total, span, size = rows[1]
    assert (label, avg, total) == ("full", 3.25, 604012)
    assert sorted(titles.split(", ")) == ["Dune", "Odes", "Solaris"]
    # two books of one genre: the path .books.genre reaches it once (Gel's paths are sets of
    # distinct objects)
    assert sorted(genres.split("|")) == ["poetry", "sf"]
    assert span == "167:46:52"
    assert size == "604.0kp"


def test_a_computed_through_a_single_link_and_link_property_values(pg):
    _migrate(pg, SHELVES)
    pg.execute("INSERT INTO shelf (label) VALUES ('s')")
    pg.execute("INSERT INTO book (title, score, pages, shelf_id) SELECT t, 1, p, (SELECT id FROM shelf) "
               "FROM (VALUES ('a', 1500), ('b', 0)) AS v(t, p)")
    pg.execute("INSERT INTO reader (name) VALUES ('r1'), ('r2'), ('r3')")
    pg.execute("""INSERT INTO book_readers (source_id, target_id, note)
                  SELECT b.id, r.id, n FROM (VALUES ('a', 'r1', 'x'), ('a', 'r2', NULL), ('a', 'r3', 'y')) AS v(bt, rn, n)
                  JOIN book b ON b.title = v.bt JOIN reader r ON r.name = v.rn""")
    q = _plans(SHELVES, books="select Book { title, shelf_size, notes } order by .title;")["books"]
    rows = pg.execute(q.sql)
    assert [(t, s, sorted(n)) for t, s, n in rows] == [("a", "1.5kp", ["x", "y"]), ("b", "1.5kp", [])]
    text = _errors(SHELVES, bad="select Book { x := .readers@nope };")
    assert "error[E0302]: link 'readers' has no link property 'nope'" in text


QUERIES = """\
module default { type T { required name: str; } }
"""


def test_array_literals_index_power_and_to_str_in_a_query(pg):
    _migrate(pg, QUERIES)
    q = _plans(QUERIES, arr="select { a := [10, 20, 30][<int64>$i], b := 2 ^ <int64>$p, c := to_str(<float64>$f), "
                            "d := to_str(<datetime>$t, 'YYYY-MM-DD HH24:MI'), e := array_join(['x', <str>$s], '-'), "
                            "f := to_str(<int64>$n, 'FM9G999G999'), g := [1, 2.5], h := to_str(<datetime>$t) };")["arr"]
    t = datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    args = {"i": 0, "p": 10, "f": 1.5, "t": t, "s": "y", "n": 1234567}

    def run(**over):
        values = dict(args, **over)
        return run_plan(pg, q, *[values[p.name] for p in q.params])[0]

    assert run() == (10, 1024.0, "1.5", "2024-05-06 05:08", "x-y", "1,234,567", [1.0, 2.5],
                     "2024-05-06T05:08:09+00:00")
    assert run(i=-1)[0] == 30 and run(i=2)[0] == 30 and run(i=-3)[0] == 10
    assert run(p=-1)[1] == 0.5
    for bad in (3, -4):
        with pytest.raises(psycopg.errors.InvalidTextRepresentation, match=f"array index {bad} is out of bounds"):
            run(i=bad)


def test_array_literal_with_an_empty_element_is_empty(pg):
    _migrate(pg, QUERIES)
    q = _plans(QUERIES, a="select [<str>$a, <optional str>$b];")["a"]
    assert run_plan(pg, q, "x", "y") == [(["x", "y"],)]
    assert run_plan(pg, q, "x", None) == [(None,)]


@pytest.mark.parametrize("query, message", [
    ("select to_str(<duration>$d);", "error[E0206]: to_str() of a duration without a format is not supported"),
    ("select to_str(<datetime>$t, 'HH24 TZ');",
     "error[E0206]: to_str() of a datetime with the time-zone pattern 'TZ' is not supported"),
    ("select to_str(<int64>$n, <str>$f);",
     "error[E0206]: to_str() with a format that is not a string literal is not supported"),
    ("select to_str(<int64>$n, '');", "error[E0304]: to_str(): the format must be a non-empty string"),
    ("select to_str(<json>$j, 'x');", "error[E0304]: to_str(): format 'x' is invalid for json"),
    ("select [1, 'a'];", "error[E0304]: the elements of an array literal are int64 and str"),
    ("select [[1]];", "error[E0304]: an array of arrays is not a Gel type"),
    ("select [1, 2]['a'];", "error[E0304]: an array index is an integer, got str"),
    ("select 'a' ^ 2;", "error[E0304]: '^' needs numbers, got str and int64"),
])
def test_refusals_are_located(query, message):
    text = _errors(QUERIES, q=query)
    assert message in text and "q/q.edgeql:1:" in text


BLOGS = """\
module default {
  type Tag { required name: str; }
  type Post { required title: str; multi tags: Tag; required link blog: Blog; }
  type Author {
    required name: str;
    multi link blogs := .<author[is Blog];
    link posts := (select .blogs.posts);
    property n_posts := count(.posts);
    property titles := array_join(array_agg((select .posts.title order by .posts.title)), ',');
    property blog_names := array_join(array_agg((select .posts.blog.name order by .posts.blog.name)), ',');
  }
  type Blog {
    required name: str;
    link author: Author;
    multi link posts := .<blog[is Post];
    property my_tags := to_str(array_agg((select .posts.tags.name order by .posts.tags.name desc)), ',');
    property all_tags := array_join(array_agg((select Post.tags.name order by Post.tags.name)), ',');
    property own_tags := array_join(array_agg((select Blog.posts.tags.name order by Blog.posts.tags.name)), ',');
  }
}
"""


def test_array_agg_of_an_ordered_path_from_the_object_and_from_a_type(pg):
    _migrate(pg, BLOGS)
    pg.execute("INSERT INTO tag (name) VALUES ('a'), ('b'), ('c'), ('unused')")
    pg.execute("INSERT INTO blog (name) VALUES ('one'), ('two'), ('three')")
    pg.execute("INSERT INTO post (title, blog_id) SELECT t, (SELECT id FROM blog WHERE name = b) "
               "FROM (VALUES ('p1', 'one'), ('p2', 'one'), ('p3', 'two')) AS v(t, b)")
    pg.execute("""INSERT INTO post_tags (source_id, target_id) SELECT p.id, t.id
                  FROM (VALUES ('p1', 'a'), ('p1', 'c'), ('p2', 'c'), ('p3', 'b')) AS v(pt, tn)
                  JOIN post p ON p.title = v.pt JOIN tag t ON t.name = v.tn""")
    q = _plans(BLOGS, blogs="select Blog { name, my_tags, all_tags, own_tags } order by .name;")["blogs"]
    # each tag once (a path reaches distinct objects), in the order asked; `Post.tags` is the
    # tags of every post, whichever blog reads it; `Blog.posts` in a computed of Blog is the
    # blog's own (Gel binds the type's path to the object)
    assert pg.execute(q.sql) == [("one", "c,a", "a,b,c", "a,c"), ("three", "", "a,b,c", ""),
                                 ("two", "b", "a,b,c", "b")]
    text = _errors(BLOGS.replace("order by .posts.tags.name desc", "order by .posts.title"))
    assert "error[E0206]: array_agg() of a sub-select is supported when it orders a path's values by themselves" in text


def test_a_computed_link_through_computed_links_reads_its_own_object(pg):
    # (its nested paths name their rows apart: an author without blogs has no posts)
    _migrate(pg, BLOGS)
    pg.execute("INSERT INTO author (name) VALUES ('ann'), ('bob')")
    pg.execute("INSERT INTO blog (name, author_id) SELECT b, (SELECT id FROM author WHERE name = 'ann') "
               "FROM (VALUES ('one'), ('two')) AS v(b)")
    pg.execute("INSERT INTO post (title, blog_id) SELECT t, (SELECT id FROM blog WHERE name = b) "
               "FROM (VALUES ('p2', 'one'), ('p1', 'two')) AS v(t, b)")
    q = _plans(BLOGS, authors="select Author { name, n_posts, titles, blog_names } order by .name;")["authors"]
    assert pg.execute(q.sql) == [("ann", 2, "p1,p2", "one,two"), ("bob", 0, "", "")]


@pytest.mark.parametrize("query, message", [
    ("reset schema to initial;", "q/q.edgeql:1:1: error[E0206]: reset statements (session and schema commands) are "
                                 "not supported yet"),
    ("start transaction;", "q/q.edgeql:1:1: error[E0206]: transaction statements (the runners manage transactions)"),
    ("drop type T;", "q/q.edgeql:1:1: error[E0206]: DDL statements (the schema changes through migrations)"),
    # (in a free object's field it is a statement bound in with, tests/cases/query_dml tidy_up;
    # in a shape it would run once per object)
    ("select T { n := count((delete T filter .name = 'x')) };",
     "q/q.edgeql:1:23: error[E0206]: count() of an insert, update or delete is not supported yet"),
])
def test_gel_commands_and_counted_statements_are_refused_not_syntax_errors(query, message):
    # (valid EdgeQL: https://docs.geldata.com/reference/edgeql; a runner calls queries)
    text = _errors(QUERIES, q=query)
    assert message in text and "E0100" not in text


def test_a_path_from_a_bound_statement_is_refused_not_an_unknown_enum():
    # (valid Gel, https://docs.geldata.com/reference/edgeql/with: not E0201 "unknown enum")
    text = _errors(QUERIES, q="with a := (insert T { name := <str>$n }) select a.id;")
    assert "q/q.edgeql:1:49: error[E0206]: a path from the bound statement 'a' ('a.id') is not supported yet" in text
    assert "hint: select it with a shape: select a { id }" in text and "E0201" not in text


def test_a_for_body_may_be_an_operator_expression_as_gel_parses_it(pg):
    # (https://docs.geldata.com/reference/edgeql/for: the body is an expression, here
    # `(t.name) except {'x'}` for each t; it was E0100, then E0206 until b9248a2)
    _migrate(pg, QUERIES)
    q = _plans(QUERIES, q="for t in (select T) union (t.name) except {'x'};")["q"]
    pg.execute("INSERT INTO t (name) VALUES ('x'), ('y'), ('x'), ('z')")
    assert sorted(r[0] for r in run_plan(pg, q)) == ["y", "z"]
