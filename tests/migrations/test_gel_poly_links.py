"""Links to an abstract type with several concrete subtypes (polymorphic links,
https://docs.geldata.com/reference/datamodel/inheritance, https://docs.geldata.com/reference/datamodel/links) on PostgreSQL 15 with
data: one nullable foreign key column per concrete subtype with a CHECK that at most one
(a required link: exactly one) is set, the join table of a multi link with ``target_id`` tied to
them, ``on target delete`` per subtype, and the migrations that add and remove such links, each
applied, reverted and applied again (up -> down -> up). Query forms through them are refused
(E0206, located) until they are lowered."""

from __future__ import annotations

import pytest

from migration_harness import Lib, codes, compile_errors, db_catalog
from schemac.semantics.library import Options
from schemac.pipeline import check_library

V1 = """
abstract type Content {
  required title: str;
}
type Movie extending Content {
  release_year: int32;
}
type Show extending Content {
  seasons: int32;
}
type Review {
  required body: str;
}
type Watchlist {
  required name: str;
}
"""

# Gel's docs example shape: a required single link, an optional one, a multi link with a link
# property, each to the abstract Content.
V2 = """
abstract type Content {
  required title: str;
}
type Movie extending Content {
  release_year: int32;
}
type Show extending Content {
  seasons: int32;
}
type Review {
  required body: str;
  required subject: Content {
    on target delete delete source;
  }
}
type Watchlist {
  required name: str;
  favourite: Content {
    on target delete allow;
  }
  multi items: Content {
    on target delete allow;
    added: datetime;
  }
  multi pinned: Content;
}
"""


def _roundtrip(lib: Lib, db, schema: str):
    before = db_catalog(db.conn)
    first = lib.history().last_version + 1
    gen = lib.generate(schema)
    assert gen is not None and not gen.plan.errors, gen and gen.plan.errors
    versions = range(first, lib.history().last_version + 1)
    lib.apply(db.url)
    after = db_catalog(db.conn)
    lib.run_files(db.conn, versions, "down")
    assert db_catalog(db.conn) == before
    lib.run_files(db.conn, versions, "up")
    assert db_catalog(db.conn) == after
    return lib.up_sql(versions), lib.down_sql(versions)


def _fails(db, sql: str, sqlstate: str) -> None:
    import psycopg

    with pytest.raises(psycopg.Error) as err:
        db.execute(sql)
    assert err.value.sqlstate == sqlstate, err.value


def test_polymorphic_links_migrate_and_keep_integrity(tmp_path, pg):
    lib = Lib(tmp_path)
    lib.generate(V1)
    lib.apply(pg.url)
    pg.execute("INSERT INTO movie (title) VALUES ('Alien'), ('Heat')")
    pg.execute("INSERT INTO show (title) VALUES ('Lost'), ('Dark')")
    pg.execute("INSERT INTO watchlist (name) VALUES ('w1'), ('w2')")
    up, down = _roundtrip(lib, pg, V2)
    assert '"subject_movie_id" uuid' in up and '"subject_show_id" uuid' in up
    assert "num_nonnulls" in up and '"watchlist_items";' in down

    # A required single link: exactly one subtype column set.
    pg.execute("""INSERT INTO review (body, subject_movie_id) SELECT 'scary', id FROM movie WHERE title = 'Alien'""")
    pg.execute("""INSERT INTO review (body, subject_show_id) SELECT 'twisty', id FROM show WHERE title = 'Dark'""")
    _fails(pg, "INSERT INTO review (body) VALUES ('about nothing')", "23514")
    _fails(pg, """INSERT INTO review (body, subject_movie_id, subject_show_id)
                  SELECT 'both', m.id, s.id FROM movie m, show s LIMIT 1""", "23514")
    # The foreign keys: an id of the other subtype (or of nothing) is refused.
    _fails(pg, """INSERT INTO review (body, subject_movie_id) SELECT 'wrong', id FROM show LIMIT 1""", "23503")

    # An optional single link: at most one.
    pg.execute("""UPDATE watchlist SET favourite_show_id = (SELECT id FROM show WHERE title = 'Lost')
                  WHERE name = 'w1'""")
    _fails(pg, """UPDATE watchlist SET favourite_movie_id = (SELECT id FROM movie WHERE title = 'Heat')
                  WHERE name = 'w1'""", "23514")

    # A multi link: target_id is the id of whichever subtype is set, and the pair is the key.
    pg.execute("""INSERT INTO watchlist_items (source_id, target_id, target_movie_id)
                  SELECT w.id, m.id, m.id FROM watchlist w, movie m WHERE w.name = 'w1'""")
    pg.execute("""INSERT INTO watchlist_items (source_id, target_id, target_show_id, added)
                  SELECT w.id, s.id, s.id, now() FROM watchlist w, show s WHERE w.name = 'w1' AND s.title = 'Lost'""")
    pg.execute("""INSERT INTO watchlist_pinned (source_id, target_id, target_show_id)
                  SELECT w.id, s.id, s.id FROM watchlist w, show s WHERE w.name = 'w2' AND s.title = 'Dark'""")
    _fails(pg, """INSERT INTO watchlist_items (source_id, target_id, target_movie_id)
                  SELECT w.id, m.id, m.id FROM watchlist w, movie m WHERE w.name = 'w1' LIMIT 1""", "23505")
    _fails(pg, """INSERT INTO watchlist_items (source_id, target_id, target_movie_id)
                  SELECT w.id, gen_random_uuid(), m.id FROM watchlist w, movie m WHERE w.name = 'w2' LIMIT 1""",
           "23514")
    _fails(pg, """INSERT INTO watchlist_items (source_id, target_id)
                  SELECT w.id, gen_random_uuid() FROM watchlist w WHERE w.name = 'w2'""", "23514")
    assert pg.execute("SELECT count(*) FROM watchlist_items") == [(3,)]

    # on target delete, per subtype: 'Lost' is a favourite (allow: unset) and an item (allow:
    # unlinked); 'Dark' is pinned (restrict: refused) and a review's subject (delete source).
    _fails(pg, "DELETE FROM show WHERE title = 'Dark'", "23503")
    pg.execute("DELETE FROM watchlist_pinned")
    pg.execute("DELETE FROM show WHERE title = 'Dark'")
    assert pg.execute("SELECT body FROM review") == [("scary",)]
    pg.execute("DELETE FROM show WHERE title = 'Lost'")
    assert pg.execute("SELECT favourite_movie_id, favourite_show_id FROM watchlist WHERE name = 'w1'") == [(None, None)]
    assert pg.execute("SELECT count(*) FROM watchlist_items WHERE target_show_id IS NOT NULL") == [(0,)]
    pg.execute("DELETE FROM movie WHERE title = 'Alien'")
    assert pg.execute("SELECT count(*) FROM review") == [(0,)]
    assert pg.execute("SELECT count(*) FROM watchlist_items") == [(1,)]  # Heat

    # A third subtype adds a column to each link (and to the CHECK); removing the links drops
    # them all; nothing is left over.
    v3 = V2.replace("type Show extending Content {", "type Book extending Content {\n  pages: int32;\n}\n"
                    "type Show extending Content {").replace("required subject: Content", "subject: Content")
    up, down = _roundtrip(lib, pg, v3)
    assert '"subject_book_id"' in up and '"target_book_id"' in up
    pg.execute("INSERT INTO book (title) VALUES ('Dune')")
    pg.execute("""INSERT INTO watchlist_items (source_id, target_id, target_book_id)
                  SELECT w.id, b.id, b.id FROM watchlist w, book b WHERE w.name = 'w2'""")
    pg.execute("INSERT INTO review (body) VALUES ('no subject')")  # optional now
    v4 = V1.replace("type Show extending Content {", "type Book extending Content {\n  pages: int32;\n}\n"
                    "type Show extending Content {")
    # dropping the links drops their columns and join tables, with consent (one hint per link)
    refused = lib.generate(v4)
    assert refused is not None and sorted(codes(refused.plan.errors)) == ["E0402"] * 8  # 6 columns, 2 join tables
    v4 += ("migration {\n  drop link Review.subject;\n  drop link Watchlist.favourite;\n"
           "  drop link Watchlist.items;\n  drop link Watchlist.pinned;\n}\n")
    up, down = _roundtrip(lib, pg, v4)
    assert 'DROP COLUMN "subject_book_id"' in up and 'DROP TABLE "watchlist_pinned", "watchlist_items"' in up
    assert lib.generate(v4) is None


@pytest.mark.parametrize("schema, query, code", [
    (V2, "select Review { body, subject: { title, release_year } }", "E0302"),  # not common to all
    (V2, "select Watchlist { m := .items[is Content] { title } }", "E0302"),  # [is T]: a concrete type
    (V2, "select Review { body } filter .subject = <uuid>$t", "E0206"),  # the link alone, as a value
    (V2, "select Watchlist { name } filter .items.title = <str>$t", "E0206"),  # a multi link: a set
    (V2, "select Watchlist { name } filter .favourite.seasons = 1", "E0302"),  # not common
    (V2, "insert Review { body := <str>$body }", "E0206"),  # a required polymorphic link must be set
    (V2, "insert Review { body := <str>$b, subject := (select Review filter .id = <uuid>$r) }", "E0304"),
    (V2, "update Watchlist filter .name = <str>$n set { favourite := {} }", "E0206"),
])
def test_queries_through_polymorphic_links_are_refused_where_they_stand(schema, query, code):
    errors = compile_errors(lambda: check_library({"lib/schema.esdl": schema, "lib/q.edgeql": query},
                                                  Options(library="lib")))
    assert errors == [code]


@pytest.mark.parametrize("body, code", [
    ("multi items: Content { on target delete delete source; }", "E0206"),
    ("item: Content { default := (select Movie limit 1); }", "E0206"),
    ("item: Content { constraint max_len_value(3); }", "E0206"),
])
def test_polymorphic_link_refusals(body, code):
    schema = V1 + f"type Box {{ {body} }}"
    errors = compile_errors(lambda: check_library({"lib/schema.esdl": schema}, Options(library="lib")))
    assert errors == [code]


def test_queries_of_the_concrete_types_still_compile():
    lib = check_library({"lib/schema.esdl": V2, "lib/movies.edgeql": "select Movie { title, release_year }",
                         "lib/add.edgeql": "insert Watchlist { name := <str>$name }"}, Options(library="lib"))
    assert sorted(q.name for q in lib.queries) == ["add", "movies"]


BACKLINKS = """
abstract type Interaction {
  required body: str;
  multi reactions := .<node[is Reaction];
  multi tagged := .<about[is Tagging];
}
type Post extending Interaction {}
type Comment extending Interaction {}
type Reaction {
  required emoji: str;
  required node: Interaction { on target delete delete source; }
}
type Tagging {
  required tag: str;
  multi about: Interaction;
}
"""


def _run(pg, plan, **args):
    import re

    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return pg.execute(sql, {f"p{p.index}": args[p.name] for p in plan.params})


def test_backlinks_through_polymorphic_links(pg):
    """``.<node[is Reaction]`` from a concrete subtype (https://docs.geldata.com/reference/datamodel/links#backlinks)
    reads the polymorphic link as a link to that subtype: its column of a single link, the
    join table's ``target_id`` of a multi link. Shapes, count() and exists on PostgreSQL 15."""
    from schemac.pipeline import compile_library

    sources = {"lib/schema.esdl": BACKLINKS,
               "lib/posts.edgeql": "select Post { body, reactions: { emoji }, n := count(.reactions), "
                                   "tagged: { tag } } order by .body",
               "lib/liked.edgeql": "select Comment { body } filter exists .reactions order by .body"}
    pg.execute(compile_library(sources, Options(library="lib"))["sql/schema.sql"])
    pg.execute("INSERT INTO post (body) VALUES ('p1'), ('p2')")
    pg.execute("INSERT INTO comment (body) VALUES ('c1'), ('c2')")
    pg.execute("""INSERT INTO reaction (emoji, node_post_id) SELECT 'up', id FROM post WHERE body = 'p1'""")
    pg.execute("""INSERT INTO reaction (emoji, node_comment_id) SELECT 'down', id FROM comment WHERE body = 'c2'""")
    pg.execute("INSERT INTO tagging (tag) VALUES ('news')")
    pg.execute("""INSERT INTO tagging_about (source_id, target_id, target_post_id, target_comment_id)
                  SELECT t.id, x.id, x.pid, x.cid FROM tagging t,
                  (SELECT id, id AS pid, NULL::uuid AS cid FROM post WHERE body = 'p2'
                   UNION ALL SELECT id, NULL, id FROM comment WHERE body = 'c1') x""")
    plans = {q.name: q for q in check_library(sources, Options(library="lib")).queries}
    rows = _run(pg, plans["posts"])
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
        ("p1", [{"emoji": "up"}], 1, []), ("p2", [], 0, [{"tag": "news"}])]
    assert _run(pg, plans["liked"]) == [("c2",)]


def test_shapes_of_polymorphic_links(tmp_path, pg):
    """A polymorphic link in a shape (https://docs.geldata.com/reference/edgeql/shapes): the
    abstract type's common properties from a UNION ALL of the subtypes' tables, single and multi
    (with a link property and order by), and ``name := .link[is T] { ... }`` for one subtype's
    own properties; on PostgreSQL 15 with data."""
    from schemac.pipeline import compile_library

    sources = {"lib/schema.esdl": V2,
               "lib/reviews.edgeql": "select Review { body, subject: { title } } order by .body",
               "lib/lists.edgeql": """select Watchlist {
  name,
  items: { title, @added } order by .title,
  movies := .items[is Movie] { title, release_year },
  favourite: { title },
  fav_show := .favourite[is Show] { seasons },
} order by .name""",
               "lib/by_subject.edgeql": "select Review { body, t := .subject.title } "
                                        "filter .subject.title = <str>$title or .subject.id = <uuid>$id",
               "lib/counts.edgeql": "select Watchlist { name, n := count(.items), fav := exists .favourite, "
                                    "any := exists .items } filter exists .favourite or count(.items) > 0"}
    pg.execute(compile_library(sources, Options(library="lib"))["sql/schema.sql"])
    pg.execute("INSERT INTO movie (title, release_year) VALUES ('Alien', 1979), ('Heat', 1995)")
    pg.execute("INSERT INTO show (title, seasons) VALUES ('Lost', 6)")
    pg.execute("""INSERT INTO review (body, subject_movie_id) SELECT 'scary', id FROM movie WHERE title = 'Alien'""")
    pg.execute("""INSERT INTO review (body, subject_show_id) SELECT 'long', id FROM show""")
    pg.execute("INSERT INTO watchlist (name) VALUES ('empty'), ('mine')")
    pg.execute("""UPDATE watchlist SET favourite_show_id = (SELECT id FROM show) WHERE name = 'mine'""")
    pg.execute("""INSERT INTO watchlist_items (source_id, target_id, target_movie_id, added)
                  SELECT w.id, m.id, m.id, '2026-01-02T00:00:00Z' FROM watchlist w, movie m
                  WHERE w.name = 'mine' AND m.title = 'Heat'""")
    pg.execute("""INSERT INTO watchlist_items (source_id, target_id, target_show_id)
                  SELECT w.id, s.id, s.id FROM watchlist w, show s WHERE w.name = 'mine'""")
    plans = {q.name: q for q in check_library(sources, Options(library="lib")).queries}
    assert _run(pg, plans["reviews"]) == [("long", {"title": "Lost"}), ("scary", {"title": "Alien"})]
    empty, mine = _run(pg, plans["lists"])
    assert empty == ("empty", [], [], None, None)
    assert mine == ("mine", [{"title": "Heat", "@added": "2026-01-02T00:00:00+00:00"},
                             {"title": "Lost", "@added": None}],
                    [{"title": "Heat", "release_year": 1995}], {"title": "Lost"}, {"seasons": 6})
    (heat,), = pg.execute("SELECT id FROM movie WHERE title = 'Heat'")
    (alien,), = pg.execute("SELECT id FROM movie WHERE title = 'Alien'")
    assert _run(pg, plans["by_subject"], title="Lost", id=heat) == [("long", "Lost")]
    assert _run(pg, plans["by_subject"], title="nope", id=alien) == [("scary", "Alien")]
    assert _run(pg, plans["counts"]) == [("mine", 2, True, True)]
    pg.execute("UPDATE watchlist SET favourite_show_id = NULL")
    assert _run(pg, plans["counts"]) == [("mine", 2, False, True)]
    pg.execute("DELETE FROM watchlist_items")
    assert _run(pg, plans["counts"]) == []


POLY_BACKLINKS = """
type Person {
  required name: str;
  multi acted_in := .<actors[is Content];
  multi tagged := .<tags;
}
abstract type Content { required title: str; multi actors: Person; }
type Movie extending Content { multi tags: Person; }
type Show extending Content { multi tags: Person; }
"""


@pytest.mark.parametrize("query", [
    "select Person { name, n := count(.tagged) }",
    "select Person { name } filter exists .acted_in",
])
def test_polymorphic_backlinks_compile_in_schemas_and_are_refused_where_queries_read_them(query):
    """``.<actors[is Content]`` (abstract) and ``.<tags`` reaching Movie and Show: the schema
    compiles (nothing is stored; splats leave them out), a query reading ``.tagged`` or filtering
    on ``.acted_in`` gets E0206. ``acted_in: { title }`` in a shape reads the abstract type's
    view since 06300da (queries on an abstract type)."""
    lib = check_library({"lib/schema.esdl": POLY_BACKLINKS, "lib/all.edgeql": "select Person { ** }",
                         "lib/one.edgeql": "select Person { name, n := count(.<actors[is Movie]) }",
                         "lib/two.edgeql": "select Person { name, acted_in: { title } }"},
                        Options(library="lib"))
    assert sorted(q.name for q in lib.queries) == ["all", "one", "two"]
    errors = compile_errors(lambda: check_library({"lib/schema.esdl": POLY_BACKLINKS, "lib/q.edgeql": query},
                                                  Options(library="lib")))
    assert errors == ["E0206"]


def test_writes_of_polymorphic_multi_links(pg):
    """``items := / += / -= (select Movie filter .id in array_unpack(...))`` on a polymorphic
    multi link: join rows with the id in ``target_id`` and in the subtype's column; ``:=``
    replaces every link (of any subtype); an id of another subtype is refused by its FK."""
    import psycopg
    from schemac.pipeline import compile_library

    sources = {"lib/schema.esdl": V2,
               "lib/create.edgeql": "insert Watchlist { name := <str>$name, "
                                    "items := (select Show filter .id in array_unpack(<array<uuid>>$shows)) }",
               "lib/add.edgeql": "update Watchlist filter .id = <uuid>$id set { "
                                 "items += (select Movie filter .id in array_unpack(<array<uuid>>$movies)) }",
               "lib/drop.edgeql": "update Watchlist filter .id = <uuid>$id set { "
                                  "items -= (select Show filter .id in array_unpack(<array<uuid>>$shows)) }",
               "lib/only.edgeql": "update Watchlist filter .id = <uuid>$id set { "
                                  "items := (select Movie filter .id in array_unpack(<array<uuid>>$movies)) }",
               "lib/titles.edgeql": "select Watchlist { items: { title } order by .title }"}
    pg.execute(compile_library(sources, Options(library="lib"))["sql/schema.sql"])
    (alien,), (heat,) = pg.execute("INSERT INTO movie (title) VALUES ('Alien'), ('Heat') RETURNING id")
    (lost,), (dark,) = pg.execute("INSERT INTO show (title) VALUES ('Lost'), ('Dark') RETURNING id")
    plans = {q.name: q for q in check_library(sources, Options(library="lib")).queries}
    titles = lambda: [i["title"] for i in _run(pg, plans["titles"])[0][0]]  # noqa: E731
    (wid,), = _run(pg, plans["create"], name="w", shows=[lost, dark])
    assert titles() == ["Dark", "Lost"]
    _run(pg, plans["add"], id=wid, movies=[alien, alien])
    assert titles() == ["Alien", "Dark", "Lost"]
    assert pg.execute("SELECT count(*) FROM watchlist_items WHERE target_movie_id IS NOT NULL") == [(1,)]
    _run(pg, plans["drop"], id=wid, shows=[dark])
    assert titles() == ["Alien", "Lost"]
    _run(pg, plans["only"], id=wid, movies=[heat])
    assert titles() == ["Heat"]
    # a Show's id is no Movie: (select Movie filter .id in ...) finds nothing, so nothing is
    # linked, as in Gel (it was the foreign key's error; issue 25)
    _run(pg, plans["add"], id=wid, movies=[lost])
    assert titles() == ["Heat"]


def test_exclusive_polymorphic_links(pg):
    """``constraint exclusive`` on a polymorphic link: an object is the target of at most one
    such link (one UNIQUE per subtype column; a multi link's join table: target_id), so a
    backlink to it is single-valued in spirit, as in Gel."""
    import psycopg
    from schemac.pipeline import compile_library

    schema = V1 + """
type Feature { required slot: str; item: Content { constraint exclusive; } }
type Shelf { multi items: Content { constraint exclusive; } }
"""
    pg.execute(compile_library({"lib/schema.esdl": schema}, Options(library="lib"))["sql/schema.sql"])
    (m,), = pg.execute("INSERT INTO movie (title) VALUES ('Alien') RETURNING id")
    (s,), = pg.execute("INSERT INTO show (title) VALUES ('Lost') RETURNING id")
    pg.execute("INSERT INTO feature (slot, item_movie_id) VALUES ('a', %s)", (m,))
    pg.execute("INSERT INTO feature (slot, item_show_id) VALUES ('b', %s)", (s,))
    pg.execute("INSERT INTO feature (slot) VALUES ('c'), ('d')")  # empty links do not collide
    with pytest.raises(psycopg.errors.UniqueViolation):
        pg.execute("INSERT INTO feature (slot, item_movie_id) VALUES ('e', %s)", (m,))
    pg.execute("INSERT INTO shelf DEFAULT VALUES")
    pg.execute("INSERT INTO shelf DEFAULT VALUES")
    (a,), (b,) = pg.execute("SELECT id FROM shelf ORDER BY id")
    pg.execute("INSERT INTO shelf_items (source_id, target_id, target_show_id) VALUES (%s, %s, %s)", (a, s, s))
    with pytest.raises(psycopg.errors.UniqueViolation):
        pg.execute("INSERT INTO shelf_items (source_id, target_id, target_show_id) VALUES (%s, %s, %s)", (b, s, s))


SOURCE_DELETE = V1 + """
type Box {
  required label: str;
  item: Content { on source delete delete target; on target delete allow; }
  multi items: Content { on source delete delete target; on target delete allow; }
}
type Shelf {
  required label: str;
  kept: Content { on source delete delete target if orphan; on target delete allow; }
  multi piles: Content { on source delete delete target if orphan; on target delete allow; }
}
"""


def test_source_deletion_policies_of_polymorphic_links(tmp_path, pg):
    """``on source delete delete target [if orphan]`` on polymorphic links
    (https://docs.geldata.com/reference/datamodel/links#deletion-policies): deleting the source
    deletes the target from the table of whichever subtype it is (its set column), single and
    multi; ``if orphan`` keeps a target another object still links to through the same link.
    Migrated up -> down -> up and run as plain SQL on PostgreSQL 15."""
    lib = Lib(tmp_path)
    lib.generate(V1)
    lib.apply(pg.url)
    up, down = _roundtrip(lib, pg, SOURCE_DELETE)
    assert 'CREATE TRIGGER "schemac_source_delete_item" AFTER DELETE ON "box"' in up
    assert 'CREATE TRIGGER "schemac_source_delete" AFTER DELETE ON "box_items"' in up
    assert 'DROP TRIGGER IF EXISTS "schemac_source_delete_kept" ON "shelf";' in down

    def titles():
        return sorted(r[0] for r in pg.execute("SELECT title FROM movie UNION ALL SELECT title FROM show"))

    pg.execute("INSERT INTO movie (title) VALUES ('m1'), ('m2'), ('m3'), ('m4')")
    pg.execute("INSERT INTO show (title) VALUES ('s1'), ('s2'), ('s3'), ('s4')")
    # delete target: a single link to a show, a multi link to a movie and a show
    pg.execute("""INSERT INTO box (label, item_show_id) SELECT 'b1', id FROM show WHERE title = 's1'""")
    pg.execute("""INSERT INTO box (label, item_movie_id) SELECT 'b2', id FROM movie WHERE title = 'm4'""")
    pg.execute("""INSERT INTO box_items (source_id, target_id, target_movie_id, target_show_id)
                  SELECT b.id, x.id, x.mid, x.sid FROM box b,
                  (SELECT id, id AS mid, NULL::uuid AS sid FROM movie WHERE title = 'm1'
                   UNION ALL SELECT id, NULL, id FROM show WHERE title = 's2') x WHERE b.label = 'b1'""")
    pg.execute("DELETE FROM box WHERE label = 'b1'")
    assert titles() == ["m2", "m3", "m4", "s3", "s4"]
    # if orphan: s3 is kept by two shelves, m2 is piled on two shelves, m3 on one
    pg.execute("""INSERT INTO shelf (label, kept_show_id) SELECT l, (SELECT id FROM show WHERE title = 's3')
                  FROM (VALUES ('x'), ('y')) v(l)""")
    pg.execute("""INSERT INTO shelf_piles (source_id, target_id, target_movie_id)
                  SELECT s.id, m.id, m.id FROM shelf s, movie m
                  WHERE m.title = 'm2' OR (s.label = 'x' AND m.title = 'm3')""")
    pg.execute("DELETE FROM shelf WHERE label = 'x'")
    assert titles() == ["m2", "m4", "s3", "s4"]  # m3 had no other shelf; s3 and m2 are still on y
    pg.execute("DELETE FROM shelf WHERE label = 'y'")
    assert titles() == ["m4", "s4"]
    # a target of another subtype's column stays; removing a link by an update keeps the target
    pg.execute("UPDATE box SET item_movie_id = NULL WHERE label = 'b2'")
    pg.execute("DELETE FROM box")
    assert titles() == ["m4", "s4"]


TYPE_NAMES = """
abstract type Edition {
  tag := .__type__.name;
  required name: str;
}
type OneDay extending Edition {}
module other {
  type MultiDay extending default::Edition {}
}
"""


def test_type_name_of_the_object(pg):
    """``.__type__.name`` (https://docs.geldata.com/reference/datamodel/introspection/objects):
    the qualified name of the object's type; each concrete type has its own table, so a computed
    of an abstract type gives each subtype's name; in shapes, filters and order by."""
    from schemac.pipeline import compile_library

    sources = {"lib/schema.esdl": TYPE_NAMES,
               "lib/one.edgeql": "select OneDay { name, tag, t := .__type__.name } filter .tag = 'default::OneDay'",
               "lib/multi.edgeql": "select other::MultiDay { tag } order by .__type__.name"}
    pg.execute(compile_library(sources, Options(library="lib"))["sql/schema.sql"])
    pg.execute("INSERT INTO one_day (name) VALUES ('a')")
    pg.execute("INSERT INTO other_multi_day (name) VALUES ('b')")
    plans = {q.name: q for q in check_library(sources, Options(library="lib")).queries}
    assert _run(pg, plans["one"]) == [("a", "default::OneDay", "default::OneDay")]
    assert _run(pg, plans["multi"]) == [("other::MultiDay",)]
    tag = plans["one"].result[1]
    assert (tag.name, tag.type.name, tag.optional) == ("tag", "str", False)


@pytest.mark.parametrize("expr", [".__type__.id", ".__type__"])
def test_other_introspection_paths_are_refused(expr):
    schema = f"type A {{ required name: str; t := {expr}; }}"
    errors = compile_errors(lambda: check_library({"lib/schema.esdl": schema}, Options(library="lib")))
    assert errors == ["E0206"]


EXCLUSIVE_TUPLES = """
abstract type Actor { required slug: str; }
type Team extending Actor {}
type Person extending Actor {}
type Project {
  required slug: str;
  required creator: Actor;
  constraint exclusive on ((.creator, .slug));
}
type Wallet {
  required primary: bool;
  required actor: Actor;
  constraint exclusive on ((.actor, .primary)) except (not .primary);
}
"""


def test_exclusive_constraints_over_polymorphic_links(pg):
    """``constraint exclusive on ((.creator, .slug))`` with ``creator`` a polymorphic link
    (https://docs.geldata.com/reference/datamodel/constraints#constraints-on-object-types): one
    UNIQUE per subtype column (ids are unique across the tables, a NULL column never conflicts),
    so two objects with the same creator, whichever its type, and the same slug conflict; with
    ``except``, partial unique indexes. On PostgreSQL 15 with data."""
    import psycopg
    from schemac.pipeline import compile_library

    sql = compile_library({"lib/schema.esdl": EXCLUSIVE_TUPLES}, Options(library="lib"))["sql/schema.sql"]
    assert 'UNIQUE ("slug", "creator_team_id")' in sql or 'UNIQUE ("creator_team_id", "slug")' in sql
    pg.execute(sql)
    pg.execute("INSERT INTO team (slug) VALUES ('t')")
    pg.execute("INSERT INTO person (slug) VALUES ('p')")
    pg.execute("INSERT INTO project (slug, creator_team_id) SELECT 'x', id FROM team")
    pg.execute("INSERT INTO project (slug, creator_person_id) SELECT 'x', id FROM person")  # another creator
    pg.execute("INSERT INTO project (slug, creator_team_id) SELECT 'y', id FROM team")  # another slug
    for col, table in (("creator_team_id", "team"), ("creator_person_id", "person")):
        with pytest.raises(psycopg.errors.UniqueViolation):
            pg.execute(f"INSERT INTO project (slug, {col}) SELECT 'x', id FROM {table}")
    pg.execute("INSERT INTO wallet (\"primary\", actor_person_id) SELECT false, id FROM person")
    pg.execute("INSERT INTO wallet (\"primary\", actor_person_id) SELECT false, id FROM person")  # exempt
    pg.execute("INSERT INTO wallet (\"primary\", actor_person_id) SELECT true, id FROM person")
    pg.execute("INSERT INTO wallet (\"primary\", actor_team_id) SELECT true, id FROM team")
    with pytest.raises(psycopg.errors.UniqueViolation):
        pg.execute("INSERT INTO wallet (\"primary\", actor_person_id) SELECT true, id FROM person")


@pytest.mark.parametrize("query, code", [
    # [is T].name on the object itself parses (valid Gel), and is refused where it stands
    ("select Watchlist { n := [is Watchlist].name }", "E0206"),
    ("select Watchlist { w := [is Watchlist] }", "E0206"),
    # a for loop over a set that holds more than constants
    ("for n in {<str>$a, 'b'} union (insert Watchlist { name := n })", "E0206"),
    # a nested insert of a type the link does not reach
    ("insert Review { body := 'b', subject := (insert Watchlist { name := 'w' }) }", "E0304"),
])
def test_subject_type_filters_and_loops_are_located(query, code):
    errors = compile_errors(lambda: check_library({"lib/schema.esdl": V2, "lib/q.edgeql": query},
                                                  Options(library="lib")))
    assert errors == [code]


def test_a_backlink_through_a_refused_polymorphic_link_reports_nothing_more():
    """``.<edition[is Day]`` with ``Day`` abstract and its link refused where it is declared: only
    that refusal (it was also an invented 'unknown type Day; did you mean Day?'); a link that no
    subtype has is E0202."""
    schema = """
abstract type Ed { required name: str; day := .<edition[is Day]; }
type A extending Ed {}
type B extending Ed {}
abstract type Day { required edition: Ed { constraint max_len_value(3); }; }
type D1 extending Day {}
type D2 extending Day {}
"""
    assert compile_errors(lambda: check_library({"lib/schema.esdl": schema}, Options(library="lib"))) == ["E0206"]
    other = schema.replace("required edition: Ed { constraint max_len_value(3); };", "required edition: A;")
    assert compile_errors(lambda: check_library({"lib/schema.esdl": other}, Options(library="lib"))) == ["E0202"]
