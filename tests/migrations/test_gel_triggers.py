"""Gel's mutation rewrites (https://docs.geldata.com/reference/datamodel/mutation_rewrites) and
source deletion policies (https://docs.geldata.com/reference/datamodel/links#deletion-policies)
as Postgres triggers, on PostgreSQL 15 with data: what they do to rows written by plain SQL (so
by any writer), and the migrations that add, change and remove them, each applied, reverted by
its down migration and applied again (up -> down -> up)."""

from __future__ import annotations

import datetime
import re

import pytest

from migration_harness import Lib, compile_errors, db_catalog
from schemac.semantics.library import Options
from schemac.pipeline import check_library

V1 = """
type Post {
  required title: str;
}
type Image {
  url: str;
}
type Author {
  required name: str;
  multi posts: Post;
  avatar: Image;
}
"""

# Rewrites: a modified timestamp on insert and update, a created one on insert only, a
# normalised email; deletion policies on a multi and a single link.
V2 = """
type Post {
  required title: str;
}
type Image {
  url: str;
}
type Author {
  required name: str;
  multi posts: Post {
    on source delete delete target;
  }
  avatar: Image {
    on source delete delete target if orphan;
  }
  required modified: datetime {
    rewrite insert, update using (datetime_of_statement())
  }
  created: datetime {
    rewrite insert using (datetime_of_statement());
  }
  email: str {
    rewrite insert, update using (str_trim(str_lower(.email)))
  }
}
"""

# The policies swap (multi: if orphan, single: unconditional); the email rewrite goes.
V3 = """
type Post {
  required title: str;
}
type Image {
  url: str;
}
type Author {
  required name: str;
  multi posts: Post {
    on source delete delete target if orphan;
  }
  avatar: Image {
    on source delete delete target;
  }
  required modified: datetime {
    rewrite insert, update using (datetime_of_statement())
  }
  created: datetime {
    rewrite insert using (datetime_of_statement());
  }
  email: str;
}
"""


def _roundtrip(lib: Lib, db, schema: str):
    """Generate the next migration (it may take several files: the safe sequences for existing
    tables), apply it, revert it, apply it again; its up and down SQL."""
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


def _ids(db, table):
    """The titles of the posts, or the urls of the images, left."""
    return sorted(r[0] for r in db.execute(f"SELECT {'url' if table == 'image' else 'title'} FROM {table}"))


def test_rewrites_and_source_delete_policies_migrate_and_hold_for_plain_sql(tmp_path, pg):
    lib = Lib(tmp_path)
    lib.generate(V1)
    lib.apply(pg.url)
    up, down = _roundtrip(lib, pg, V2)
    assert 'CREATE TRIGGER "schemac_rewrite_insert" BEFORE INSERT ON "author"' in up
    assert 'CREATE TRIGGER "schemac_source_delete" AFTER DELETE ON "author_posts"' in up
    assert 'DROP TRIGGER IF EXISTS "schemac_rewrite_insert" ON "author";' in down

    # Rewrites: plain SQL that does not give the values (or gives others) gets them rewritten.
    rows = pg.execute("INSERT INTO author (name, email, modified) VALUES ('ada', '  Ada@Example.COM ', "
                      "'2000-01-01T00:00:00Z'), ('bob', NULL, DEFAULT) "
                      "RETURNING email, modified, created, statement_timestamp()")
    (ada_email, ada_mod, ada_created, stmt_ts), (bob_email, bob_mod, bob_created, _) = rows
    assert ada_email == "ada@example.com" and bob_email is None
    # datetime_of_statement(): one timestamp for the whole statement, the one it started at
    assert ada_mod == ada_created == bob_mod == bob_created == stmt_ts
    pg.execute("UPDATE author SET email = 'X@Y.Z ', created = '2001-01-01T00:00:00Z' WHERE name = 'ada'")
    (email, modified, created), = pg.execute("SELECT email, modified, created FROM author WHERE name = 'ada'")
    assert email == "x@y.z"
    assert modified > ada_mod  # the update rewrite ran
    assert created == datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc)  # no update rewrite

    # on source delete delete target (multi): the posts of a deleted author go, also when two
    # authors deleted together share one; a post unlinked by an update stays.
    pg.execute("INSERT INTO post (title) VALUES ('p1'), ('p2'), ('shared'), ('kept')")
    pg.execute("""INSERT INTO author_posts (source_id, target_id)
                  SELECT a.id, p.id FROM author a, post p
                  WHERE (a.name = 'ada' AND p.title IN ('p1', 'shared', 'kept'))
                     OR (a.name = 'bob' AND p.title IN ('p2', 'shared'))""")
    pg.execute("DELETE FROM author_posts WHERE target_id = (SELECT id FROM post WHERE title = 'kept')")
    pg.execute("DELETE FROM author")
    assert _ids(pg, "post") == ["kept"]

    # on source delete delete target if orphan (single): the avatar goes with its last author.
    pg.execute("INSERT INTO image (url) VALUES ('a.png'), ('b.png')")
    pg.execute("""INSERT INTO author (name, avatar_id) SELECT n, (SELECT id FROM image WHERE url = u)
                  FROM (VALUES ('x', 'a.png'), ('y', 'a.png'), ('z', 'b.png')) v(n, u)""")
    pg.execute("DELETE FROM author WHERE name = 'x'")
    assert _ids(pg, "image") == ["a.png", "b.png"]  # y still links to a.png
    pg.execute("DELETE FROM author WHERE name IN ('y', 'z')")
    assert _ids(pg, "image") == []

    # Changed policies and a removed rewrite: the triggers are replaced.
    up, down = _roundtrip(lib, pg, V3)
    assert 'DROP TRIGGER IF EXISTS "schemac_source_delete" ON "author_posts";' in up
    pg.execute("INSERT INTO post (title) VALUES ('mine'), ('ours')")
    pg.execute("INSERT INTO image (url) VALUES ('c.png')")
    pg.execute("""INSERT INTO author (name, email, avatar_id) VALUES
                  ('u', ' Keep@Case ', (SELECT id FROM image WHERE url = 'c.png')), ('v', NULL, NULL)""")
    assert pg.execute("SELECT email FROM author WHERE name = 'u'") == [(" Keep@Case ",)]
    pg.execute("""INSERT INTO author_posts (source_id, target_id)
                  SELECT a.id, p.id FROM author a, post p
                  WHERE (a.name = 'u' AND p.title IN ('mine', 'ours')) OR (a.name = 'v' AND p.title = 'ours')""")
    pg.execute("DELETE FROM author WHERE name = 'u'")
    assert _ids(pg, "post") == ["kept", "ours"]  # 'ours' is still linked by v
    assert _ids(pg, "image") == []  # unconditional now
    # Removing everything: no trigger or function is left behind.
    v4 = V3.replace("on source delete delete target if orphan;", "on source delete allow;").replace(
        "on source delete delete target;", "").replace("rewrite insert, update using (datetime_of_statement())", "") \
        .replace("rewrite insert using (datetime_of_statement());", "")
    _roundtrip(lib, pg, v4)
    cat = db_catalog(pg.conn)
    assert " functions" not in cat and not any("triggers" in t for t in cat.values())
    assert lib.generate(v4) is None


def test_a_required_property_with_an_insert_rewrite_need_not_be_given():
    schema = """
type Post {
  required title: str;
  required created: datetime { rewrite insert using (datetime_of_statement()) }
  modified: datetime { rewrite update using (datetime_of_statement()) }
}
"""
    lib = check_library({"lib/schema.esdl": schema, "lib/add.edgeql": "insert Post { title := $title }"},
                        Options(library="lib"))
    assert [q.name for q in lib.queries] == ["add"]
    # an update rewrite alone does not give an inserted object its value
    errors = compile_errors(lambda: check_library(
        {"lib/schema.esdl": schema.replace("rewrite insert", "rewrite update"), "lib/add.edgeql":
         "insert Post { title := $title }"}, Options(library="lib")))
    assert errors == ["E0305"]


@pytest.mark.parametrize("body, code", [
    ("title: str { rewrite insert using (1) }", "E0204"),
    ("title: str { rewrite insert using ($x) }", "E0206"),
    ("title: str { rewrite insert using ('a'); rewrite insert, update using ('b') }", "E0200"),
    ("multi tags: str { rewrite insert using ('a') }", "E0206"),
    ("title: str { on source delete delete target }", "E0205"),
    ("title: str { rewrite insert using (.nope) }", "E0202"),
])
def test_refusals_are_located(body, code):
    errors = compile_errors(lambda: check_library({"lib/schema.esdl": f"type Post {{ {body} }}"},
                                                  Options(library="lib")))
    assert errors == [code]


TAGS_V1 = """
type Tag { required name: str; }
type Note {
  required body: str;
  multi tags: Tag;
}
"""


def test_on_target_delete_delete_source_on_a_multi_link(tmp_path, pg):
    """Deleting a tag deletes the notes linking to it (plain SQL); a note deleted, or a tag
    unlinked by an update, leaves the tag and the other notes in place. Added to and removed
    from an existing link by migrations (the FK action and the trigger change together)."""
    lib = Lib(tmp_path)
    lib.generate(TAGS_V1)
    lib.apply(pg.url)
    up, down = _roundtrip(lib, pg, TAGS_V1.replace("multi tags: Tag;",
                                                   "multi tags: Tag { on target delete delete source; }"))
    assert 'CREATE TRIGGER "schemac_target_delete" AFTER DELETE ON "note_tags"' in up
    assert "ON DELETE CASCADE" in up and "ON DELETE RESTRICT" in down
    pg.execute("INSERT INTO tag (name) VALUES ('a'), ('b'), ('c')")
    pg.execute("INSERT INTO note (body) VALUES ('n1'), ('n2'), ('n3'), ('n4')")
    pg.execute("""INSERT INTO note_tags (source_id, target_id)
                  SELECT n.id, t.id FROM note n, tag t
                  WHERE (n.body, t.name) IN (('n1', 'a'), ('n2', 'a'), ('n2', 'b'), ('n3', 'b'), ('n4', 'c'))""")
    pg.execute("DELETE FROM note_tags WHERE target_id = (SELECT id FROM tag WHERE name = 'c')")  # unlinked
    pg.execute("DELETE FROM note WHERE body = 'n3'")
    assert pg.execute("SELECT name FROM tag ORDER BY name") == [("a",), ("b",), ("c",)]
    pg.execute("DELETE FROM tag WHERE name = 'a'")
    assert pg.execute("SELECT body FROM note ORDER BY body") == [("n4",)]  # n1, n2 went with 'a'
    assert pg.execute("SELECT name FROM tag ORDER BY name") == [("b",), ("c",)]
    assert pg.execute("SELECT count(*) FROM note_tags") == [(0,)]
    _roundtrip(lib, pg, TAGS_V1)
    cat = db_catalog(pg.conn)
    assert " functions" not in cat and not any("triggers" in t for t in cat.values())


SPECIFIED = """
type Post {
  required title: str;
  is_published: bool;
  published_at: datetime {
    rewrite update using (datetime_of_statement() if __specified__.is_published and .is_published
                          else __old__.published_at);
  }
  featured_order: int16 {
    rewrite insert, update using (
      <int16>{} if __subject__.featured_order ?= <int16>{} or __subject__.featured_order < 1
      else __subject__.featured_order
    )
  }
  updated_at: datetime {
    default := datetime_current();
    rewrite update using (datetime_of_statement() if not __specified__.updated_at else .updated_at)
  }
}
"""


def test_rewrites_read_old_specified_and_conditions(tmp_path, pg):
    """``__old__``, ``__specified__`` and ``if ... else`` in rewrites, as the Gel docs use them:
    ``__specified__.p`` is true exactly when the UPDATE names ``p`` (also when it writes the
    same value), per statement and row; generated queries and plain SQL alike."""
    lib = Lib(tmp_path)
    lib.generate("type Other { n: int64; }")
    lib.apply(pg.url)
    up, _ = _roundtrip(lib, pg, SPECIFIED + "type Other { n: int64; }")
    assert 'BEFORE UPDATE OF "is_published" ON "post"' in up
    checked = check_library({"lib/schema.esdl": SPECIFIED, "lib/set_title.edgeql":
                             "update Post filter .id = <uuid>$id set { title := <str>$title }"}, Options(library="lib"))
    plan = checked.queries[0]
    # the statement the runners send, its $n bound by name
    set_title = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    index = {p.name: p.index for p in plan.params}
    ts0 = datetime.datetime(2000, 1, 1, tzinfo=datetime.timezone.utc)
    (pid,), = pg.execute("INSERT INTO post (title, featured_order) VALUES ('a', 0) RETURNING id")
    assert pg.execute("SELECT featured_order FROM post") == [(None,)]  # < 1: emptied
    pg.execute("UPDATE post SET featured_order = 3, updated_at = %s", (ts0,))
    assert pg.execute("SELECT featured_order, updated_at, published_at FROM post") == [(3, ts0, None)]
    # the generated update names only title: updated_at is rewritten, published_at kept (empty)
    pg.execute(set_title, {f"p{index['id']}": pid, f"p{index['title']}": "b"})
    (title, upd, pub), = pg.execute("SELECT title, updated_at, published_at FROM post")
    assert title == "b" and upd > ts0 and pub is None
    # publishing sets published_at; naming is_published again (same value) keeps it fresh
    (stmt,), = pg.execute("UPDATE post SET is_published = true RETURNING statement_timestamp()")
    assert pg.execute("SELECT published_at FROM post") == [(stmt,)]
    pg.execute("UPDATE post SET title = 'c'")  # is_published not named: __old__.published_at
    assert pg.execute("SELECT published_at FROM post") == [(stmt,)]
    (stmt2,), = pg.execute("UPDATE post SET is_published = true, title = 'd' RETURNING statement_timestamp()")
    assert pg.execute("SELECT published_at FROM post") == [(stmt2,)] and stmt2 > stmt
    pg.execute("UPDATE post SET is_published = false")
    assert pg.execute("SELECT published_at FROM post") == [(stmt2,)]
    # several rows in one statement: every row sees the marker
    pg.execute("INSERT INTO post (title, is_published) VALUES ('e', false), ('f', false)")
    pg.execute("UPDATE post SET is_published = true WHERE title IN ('e', 'f')")
    assert pg.execute("SELECT count(*) FROM post WHERE published_at IS NOT NULL") == [(3,)]
    # and the markers do not leak into the next statement of the transaction
    with pg.connect(autocommit=False) as conn:
        (first,), = conn.execute("UPDATE post SET is_published = true WHERE title = 'e' "
                                 "RETURNING published_at").fetchall()
        conn.execute("UPDATE post SET title = 'e2' WHERE title = 'e'")  # a leaked marker would publish again
        assert conn.execute("SELECT published_at FROM post WHERE title = 'e2'").fetchall() == [(first,)]
        conn.rollback()


@pytest.mark.parametrize("body, code", [
    ("a: str; b: str { rewrite insert using (__old__.a) }", "E0206"),
    ("a: str; b: str { rewrite insert using (.a if __specified__.a else 'x') }", "E0206"),
    ("a: str; b: str { rewrite update using (.a if __specified__.nope else 'x') }", "E0202"),
    ("a: str; b: str { rewrite update using (1 if true else 'x') }", "E0304"),
])
def test_rewrite_context_refusals(body, code):
    errors = compile_errors(lambda: check_library({"lib/schema.esdl": f"type Post {{ {body} }}"},
                                                  Options(library="lib")))
    assert errors == [code]


GEL_TRIGGERS = """
type Log {
  required action: str;
  target_name: str;
  old_name: str;
  target: Person { on target delete allow; }
}
abstract type Audited {
  required name: str;
  trigger log_insert after insert for each do (insert Log { action := 'insert', target_name := __new__.name });
}
type Person extending Audited {
  trigger log_update after update for each when (__old__.name != __new__.name) do (
    insert Log { action := 'rename', target := __new__, target_name := __new__.name, old_name := __old__.name }
  );
  trigger log_delete after delete for each do (insert Log { action := 'delete', old_name := __old__.name });
  trigger log_stmt after insert, update for all do (insert Log { action := 'statement' });
}
"""


NO_GEL_TRIGGERS = """
type Log {
  required action: str;
  target_name: str;
  old_name: str;
  target: Person { on target delete allow; }
}
abstract type Audited {
  required name: str;
}
type Person extending Audited {}
"""


def test_gel_triggers_run_for_every_writer(tmp_path, pg):
    """Triggers (https://docs.geldata.com/reference/datamodel/triggers): after insert / update /
    delete, for each object (with 'when') or once per statement ('for all'), inherited from an
    abstract type; their inserts see __new__ and __old__. Added and removed by migrations."""
    lib = Lib(tmp_path)
    lib.generate(NO_GEL_TRIGGERS)
    lib.apply(pg.url)
    up, down = _roundtrip(lib, pg, GEL_TRIGGERS)
    assert 'CREATE TRIGGER "gel_log_stmt" AFTER INSERT OR UPDATE ON "person"\n  FOR EACH STATEMENT' in up
    pg.execute("INSERT INTO person (name) VALUES ('ada'), ('bob')")
    pg.execute("UPDATE person SET name = 'ada' WHERE name = 'ada'")  # same name: 'when' is false
    pg.execute("UPDATE person SET name = 'robert' WHERE name = 'bob'")
    pg.execute("DELETE FROM person WHERE name = 'ada'")
    rows = pg.execute("SELECT action, target_name, old_name, target_id IS NOT NULL FROM log ORDER BY ctid")
    assert sorted(rows) == sorted([
        ("insert", "ada", None, False), ("insert", "bob", None, False), ("statement", None, None, False),
        ("statement", None, None, False),
        ("rename", "robert", "bob", True), ("statement", None, None, False),
        ("delete", None, "ada", False),
    ])
    _roundtrip(lib, pg, NO_GEL_TRIGGERS)
    assert not any("triggers" in t for t in db_catalog(pg.conn).values() if isinstance(t, dict))


@pytest.mark.parametrize("trigger, code", [
    ("trigger t after insert for each do (select Person { name })", "E0206"),
    ("trigger t after insert for each do (for x in (select Person) union (insert Person { name := 'x' }))", "E0206"),
    ("trigger t after insert for each do (for x in {1, 2} union (assert(x > 0)))", "E0206"),
    ("trigger t after update for each do (update Person filter .id = __new__.id set { name += 'x' })", "E0206"),
    ("trigger t after update for each do (assert(true, message := __new__.name))", "E0206"),
    ("trigger t after update for each do (assert(1))", "E0304"),
    ("trigger t after delete for each do (delete Nobody filter .id = __old__.id)", "E0201"),
    ("trigger t after delete for each do (update Person filter .id = __new__.id set { name := 'x' })", "E0206"),
    ("trigger t after commit of insert for each do (insert Person { name := 'x' })", "E0206"),
    ("trigger t after insert for all do (insert Person { name := __new__.name })", "E0206"),
    ("trigger t after insert for each do (insert Person { name := __old__.name })", "E0206"),
    ("trigger t after delete for each do (insert Person { name := __new__.name })", "E0206"),
    ("trigger t after insert for each do (insert Person { nick := 'x' })", "E0305"),
    ("trigger t after insert for each do (insert Person { name := 1 })", "E0204"),
])
def test_trigger_refusals(trigger, code):
    schema = f"type Person {{ required name: str; required nick: str; {trigger}; }}"
    if "nick := 'x'" in trigger:
        pass
    else:
        schema = schema.replace("required nick: str;", "nick: str;")
    errors = compile_errors(lambda: check_library({"lib/schema.esdl": schema}, Options(library="lib")))
    assert code in errors


BODIES_V1 = """
type Folder {
  required name: str;
  parent: Folder { on target delete allow; }
}
type Account {
  required owner: str;
  required balance: int64 { default := 0; }
}
type Entry {
  required account: str;
  required amount: int64;
}
type Audit { required what: str; }
"""

# Trigger bodies other than one insert (https://docs.geldata.com/reference/datamodel/triggers):
# an update of another type, a set of statements run in order (an update and an insert), a
# delete, assert() for each object and for all (the docs' validation use).
BODIES_V2 = BODIES_V1.replace("""  parent: Folder { on target delete allow; }
}""", """  parent: Folder { on target delete allow; }
  trigger only_one_root after insert, update for all do (
    assert(count((select Folder filter not exists .parent)) <= 1, message := 'only one root folder')
  );
}""").replace("""  required amount: int64;
}""", """  required amount: int64;
  trigger book after insert for each do (
    update Account filter .owner = __new__.account set { balance := .balance + __new__.amount }
  );
  trigger unbook after delete for each when (__old__.amount != 0) do ({
    (update Account filter .owner = __old__.account set { balance := .balance - __old__.amount }),
    (insert Audit { what := 'unbooked ' ++ <str>__old__.amount ++ ' from ' ++ __old__.account }),
  });
  trigger limit after insert, update for each do (
    select assert(__new__.amount > -1000, message := 'too large a withdrawal')
  );
}""").replace("""  required balance: int64 { default := 0; }
}""", """  required balance: int64 { default := 0; }
  trigger close after update for each when (__new__.owner = 'closed') do (
    delete Entry filter .account = __old__.owner
  );
  trigger selfish after update for each when (__new__.owner = 'self') do (
    update Account filter .owner = 'self' set { balance := 0 }
  );
}""")


def test_trigger_bodies_update_delete_sets_and_assert(tmp_path, pg):
    lib = Lib(tmp_path)
    lib.generate(BODIES_V1)
    lib.apply(pg.url)
    up, down = _roundtrip(lib, pg, BODIES_V2)
    assert 'CREATE TRIGGER "gel_only_one_root" AFTER INSERT OR UPDATE ON "folder"\n  FOR EACH STATEMENT' in up
    assert 'DROP FUNCTION IF EXISTS "tg_entry_unbook"' in down
    import psycopg

    # update of another type, for each inserted row (two in one statement: both booked)
    pg.execute("INSERT INTO account (owner) VALUES ('ann'), ('bob')")
    pg.execute("INSERT INTO entry (account, amount) VALUES ('ann', 100), ('ann', 50), ('bob', 0)")
    assert pg.execute("SELECT owner, balance FROM account ORDER BY owner") == [("ann", 150), ("bob", 0)]
    # a set of statements, in order, under 'when': bob's zero entry books nothing, logs nothing
    pg.execute("DELETE FROM entry WHERE amount IN (50, 0)")
    assert pg.execute("SELECT owner, balance FROM account ORDER BY owner") == [("ann", 100), ("bob", 0)]
    assert pg.execute("SELECT what FROM audit") == [("unbooked 50 from ann",)]
    # assert(): the statement fails with the message, and nothing it did stays
    with pytest.raises(psycopg.errors.RaiseException, match="too large a withdrawal"):
        pg.execute("INSERT INTO entry (account, amount) VALUES ('ann', 5), ('ann', -5000)")
    assert pg.execute("SELECT balance FROM account WHERE owner = 'ann'") == [(100,)]
    # a delete of another type (which fires that type's own triggers)
    pg.execute("UPDATE account SET owner = 'closed' WHERE owner = 'ann'")
    assert pg.execute("SELECT count(*) FROM entry") == [(0,)]
    assert pg.execute("SELECT what FROM audit ORDER BY what") == [("unbooked 100 from ann",), ("unbooked 50 from ann",)]
    # (the unbook trigger's update looks for owner 'ann', renamed 'closed' by then: no change)
    assert pg.execute("SELECT balance FROM account WHERE owner = 'closed'") == [(100,)]
    # Gel: a trigger cannot modify the object that set it off (an error at run time)
    with pytest.raises(psycopg.errors.RaiseException, match="cannot modify the object that set it off"):
        pg.execute("UPDATE account SET owner = 'self' WHERE owner = 'bob'")
    # for all + assert over the whole table: a second root is refused, a child is fine
    pg.execute("INSERT INTO folder (name) VALUES ('root')")
    pg.execute("INSERT INTO folder (name, parent_id) SELECT 'child', id FROM folder WHERE name = 'root'")
    with pytest.raises(psycopg.errors.RaiseException, match="only one root folder"):
        pg.execute("INSERT INTO folder (name) VALUES ('second root')")
    with pytest.raises(psycopg.errors.RaiseException, match="only one root folder"):
        pg.execute("UPDATE folder SET parent_id = NULL WHERE name = 'child'")
    assert pg.execute("SELECT name FROM folder ORDER BY name") == [("child",), ("root",)]
    _roundtrip(lib, pg, BODIES_V1)
    assert not any("triggers" in t for t in db_catalog(pg.conn).values() if isinstance(t, dict))


# __new__ / __old__ inside a sub-select of a trigger body or its 'when' condition are objects of
# the trigger's type, not of the sub-select's (they were checked against Log: a false E0202).
SUBSELECT_ROWS = """
type Log { required msg: str; n: int64; }
type Item {
  required name: str;
  trigger counted after insert for each do (
    insert Log { msg := 'seen ' ++ __new__.name, n := count((select Log filter .msg = 'seen ' ++ __new__.name)) }
  );
  trigger logged after update for each when (not exists (select Log filter .msg = __old__.name)) do (
    assert(exists (select Log filter .msg = 'seen ' ++ __new__.name), message := 'never seen')
  );
}
"""


def test_row_references_inside_sub_selects_of_a_trigger(tmp_path, pg):
    import psycopg

    lib = Lib(tmp_path)
    lib.generate(SUBSELECT_ROWS)
    lib.apply(pg.url)
    pg.execute("INSERT INTO item (name) VALUES ('a')")
    pg.execute("INSERT INTO item (name) VALUES ('a')")
    assert pg.execute("SELECT msg, n FROM log ORDER BY n") == [("seen a", 0), ("seen a", 1)]
    pg.execute("UPDATE item SET name = 'a'")  # 'seen a' exists: the assert holds
    with pytest.raises(psycopg.errors.RaiseException, match="never seen"):
        pg.execute("UPDATE item SET name = 'b'")


# An update that changes only a multi link is an update of the object in Gel: its update
# rewrites run and its update triggers fire (it used to lock the rows with SELECT ... FOR UPDATE
# only, so neither happened; found by a new-user test).
LINK_ONLY = """
type Tag { required name: str; }
type Log { required msg: str; }
type Item {
  required name: str;
  multi tags: Tag;
  modified_at: datetime { rewrite update using (datetime_of_statement()); };
  trigger log_upd after update for each do (insert Log { msg := __new__.name });
}
"""


def test_an_update_of_links_only_runs_update_rewrites_and_triggers(tmp_path, pg):
    lib = Lib(tmp_path)
    lib.generate(LINK_ONLY)
    lib.apply(pg.url)
    checked = check_library({"lib/schema.esdl": LINK_ONLY, "lib/tag_item.edgeql":
                             "update Item filter .name = <str>$n set { tags += (select Tag filter .name = <str>$t) };"},
                            Options(library="lib"))
    plan = checked.queries[0]
    assert plan.sql.startswith('WITH "_new" AS (\nUPDATE "item"\nSET "id" = "item"."id"\n')
    pg.execute("INSERT INTO item (name) VALUES ('i1'), ('i2')")
    pg.execute("INSERT INTO tag (name) VALUES ('t1')")
    index = {p.name: p.index for p in plan.params}
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    assert len(pg.execute(sql, {f"p{index['n']}": "i1", f"p{index['t']}": "t1"})) == 1
    assert pg.execute("SELECT count(*) FROM item_tags") == [(1,)]
    assert pg.execute("SELECT name FROM item WHERE modified_at IS NOT NULL") == [("i1",)]
    assert pg.execute("SELECT msg FROM log") == [("i1",)]
    # without update triggers or rewrites, the rows are only locked (no new row versions)
    plain = check_library({"lib/schema.esdl": "type Tag { required name: str; }\n"
                           "type Item { required name: str; multi tags: Tag; }",
                           "lib/tag_item.edgeql": "update Item filter .name = <str>$n "
                           "set { tags += (select Tag filter .name = <str>$t) };"}, Options(library="lib"))
    assert "FOR UPDATE" in plain.queries[0].sql


# A trigger that sends an HTTP request (https://docs.geldata.com/reference/stdlib/net): Gel's
# server sends it after the commit; Postgres cannot, so the trigger is refused naming the call,
# also through a user function (which, returning net::http::ScheduledRequest, is accepted as a
# declaration and refused where it is called).
NET_HTTP = """
type Chat {
  title: str;
  trigger notify after update for each do (
    select net::http::schedule_request('http://localhost/x', method := net::http::Method.POST)
  );
  trigger summarize after insert for each do (select request(__new__.id));
}
function request(id: uuid) -> net::http::ScheduledRequest using (
  net::http::schedule_request('http://localhost/' ++ <str>id, method := net::http::Method.POST)
);
"""


def test_a_trigger_sending_http_requests_is_refused_naming_gels_net_module():
    from schemac.diagnostics import CompileError

    with pytest.raises(CompileError) as exc:
        check_library({"lib/schema.esdl": NET_HTTP}, Options(library="lib"))
    why = "a function of Gel's 'net::http' module, a service of the Gel server (HTTP requests it sends) that " \
          "Postgres does not have"
    assert [(d.code, d.message, d.span.line) for d in exc.value.diagnostics if d.severity == "error"] == [
        ("E0206", f"trigger 'notify' calls 'net::http::schedule_request()', {why}", 5),
        ("E0206", f"trigger 'summarize' calls 'request()', which calls net::http::schedule_request(), {why}", 7),
    ]


# A default that reads other properties of the object (Gel evaluates it for the object being
# inserted): a BEFORE INSERT trigger sets the column the insert left empty, from the row as
# written; a string literal given to an enum is its member in each branch of 'if ... else'.
ROW_DEFAULT_V1 = """
scalar type Status extending enum<PRIVATE, PUBLIC>;
type Note {
  required public: bool;
  required title: str;
}
"""
ROW_DEFAULT_V2 = ROW_DEFAULT_V1.replace("""  required title: str;
}""", """  required title: str;
  required status: Status {
    default := (select 'PUBLIC' if .public else 'PRIVATE');
  }
  required slug: str {
    default := str_lower(.title) ++ '-' ++ <str>.status;
    rewrite insert using (.slug ++ '!');
  }
}""")


def test_a_default_reading_other_properties_is_a_before_insert_trigger(tmp_path, pg):
    lib = Lib(tmp_path)
    lib.generate(ROW_DEFAULT_V1)
    lib.apply(pg.url)
    up, down = _roundtrip(lib, pg, ROW_DEFAULT_V2)
    assert 'CREATE TRIGGER "schemac_default" BEFORE INSERT ON "note"' in up
    assert 'DROP TRIGGER IF EXISTS "schemac_default" ON "note";' in down
    pg.execute("INSERT INTO note (public, title) VALUES (true, 'Hello'), (false, 'Secret')")
    pg.execute("INSERT INTO note (public, title, status, slug) VALUES (false, 'Given', 'PUBLIC', 'given')")
    # (the defaults apply before the insert rewrite, which reads the slug they gave)
    assert pg.execute("SELECT title, status, slug FROM note ORDER BY title") == [
        ("Given", "PUBLIC", "given!"), ("Hello", "PUBLIC", "hello-PUBLIC!"), ("Secret", "PRIVATE", "secret-PRIVATE!")]
    # A generated insert that leaves the status out (its parameter omitted) gets the default.
    checked = check_library({"lib/schema.esdl": ROW_DEFAULT_V2, "lib/add.edgeql":
                             "insert Note { public := <bool>$public, title := <str>$title, "
                             "status := <optional Status>$status }"}, Options(library="lib"))
    plan = checked.queries[0]
    assert not plan.variants  # (the trigger fills a NULL: nothing to leave out)
    index = {p.name: p.index for p in plan.params}
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    pg.execute(sql, {f"p{index['public']}": True, f"p{index['title']}": "Via Runner", f"p{index['status']}": None})
    assert pg.execute("SELECT status, slug FROM note WHERE title = 'Via Runner'") == [("PUBLIC", "via runner-PUBLIC!")]


def test_a_default_reading_other_properties_of_an_optional_property_is_refused():
    from schemac.diagnostics import CompileError

    with pytest.raises(CompileError) as exc:
        check_library({"lib/schema.esdl": "type T { a: int64; b: int64 { default := .a + 1; } }"}, Options(library="lib"))
    assert [(d.code, d.message) for d in exc.value.diagnostics] == [
        ("E0206", "a default that reads other properties of an optional property is not supported")]


# An audit log (the form real schemas use): each insert, update and delete of an Audited type
# writes a Log row whose 'target' is the object (__new__ {**}: the shape only chooses what an
# output shows) through a polymorphic link, and whose json holds the object with all its
# properties and links (<json>__new__ {**}: https://docs.geldata.com/reference/edgeql/select#splats).
AUDIT = """
scalar type Action extending enum<`INSERT`, `UPDATE`, `DELETE`>;
type Log {
  required action: Action;
  old: json;
  new: json;
  target: Audited { on target delete allow; };
}
abstract type Audited {
  trigger log_insert after insert for each do (
    insert Log { action := Action.`INSERT`, target := __new__ {**}, new := <json>__new__ {**} }
  );
  trigger log_update after update for each do (
    insert Log { action := Action.`UPDATE`, target := __new__, old := <json>__old__ {**}, new := <json>__new__ {**} }
  );
  trigger log_delete after delete for each do (
    insert Log { action := Action.`DELETE`, old := <json>__old__ { * } }
  );
}
type Tag { required name: str; }
type Author extending Audited { required name: str; }
type Post extending Audited {
  required title: str;
  views: int64;
  author: Author;
  multi tags: Tag;
  shout := str_upper(.title) ++ '!';
}
"""


def test_trigger_inserts_the_object_and_its_json(tmp_path, pg):
    lib = Lib(tmp_path)
    lib.generate("type Tag { required name: str; }")
    lib.apply(pg.url)
    up, _ = _roundtrip(lib, pg, AUDIT)
    assert "jsonb_build_object('id', NEW.\"id\", 'title', NEW.\"title\"" in up
    [(ann,)] = pg.execute("INSERT INTO author (name) VALUES ('Ann') RETURNING id")
    [(post,)] = pg.execute(f"INSERT INTO post (title, views, author_id) VALUES ('Hi', 9007199254740993, '{ann}') "
                           "RETURNING id")
    pg.execute("INSERT INTO tag (name) VALUES ('b'), ('a')")
    pg.execute(f"INSERT INTO post_tags (source_id, target_id) SELECT '{post}', id FROM tag")
    pg.execute(f"UPDATE post SET title = 'Hello' WHERE id = '{post}'")
    # the object itself through the polymorphic link: the column of its own type
    assert pg.execute("SELECT target_author_id, target_post_id FROM log ORDER BY ctid") == [
        (ann, None), (None, post), (None, post)]
    pg.execute(f"DELETE FROM post_tags WHERE source_id = '{post}'")
    pg.execute(f"DELETE FROM post WHERE id = '{post}'")
    rows = pg.execute("SELECT action, target_author_id, target_post_id, old, new FROM log ORDER BY ctid")
    assert [r[0] for r in rows] == ["INSERT", "INSERT", "UPDATE", "DELETE"]
    assert rows[2][1:3] == (None, None)  # (on target delete allow)
    assert rows[0][4] == {"id": str(ann), "name": "Ann"}
    # every property (computed too), every link with its target's properties; int64 a number
    assert rows[1][4] == {"id": str(post), "title": "Hi", "views": 9007199254740993, "shout": "HI!",
                          "author": {"id": str(ann), "name": "Ann"}, "tags": []}
    old, new = rows[2][3], rows[2][4]
    assert old["title"] == "Hi" and new["title"] == "Hello" and new["shout"] == "HELLO!"
    assert sorted(t["name"] for t in new["tags"]) == ["a", "b"]
    assert rows[3][3] == {"id": str(post), "title": "Hello", "views": 9007199254740993, "shout": "HELLO!"}


# Globals in a trigger (performed_by := global current_user): every generated write statement
# hands the values of the globals triggers read over as transaction-local settings (parameters
# bound from the runner's globals context), read by the triggers' SQL; a writer that gives none
# (plain SQL) leaves them empty (a global with a default reads its default).
TRIGGER_GLOBALS = """
global current_user_id: uuid;
global current_user := (select User filter .id = global current_user_id);
global tag: str { default := 'none'; }
type User { required name: str; }
type Log { required msg: str; who: User; tag: str; }
type Item {
  required name: str;
  trigger log_write after insert, update for each do (
    insert Log { msg := __new__.name, who := global current_user, tag := global tag }
  );
  trigger log_delete after delete for each do (
    insert Log { msg := 'deleted ' ++ __old__.name, who := global current_user, tag := global tag }
  );
}
"""

TRIGGER_GLOBAL_QUERIES = {
    "add": "insert Item { name := <str>$name }",
    "add_many": "for n in array_unpack(<array<str>>$names) union (insert Item { name := n })",
    "rename": "update Item filter .name = <str>$name set { name := <str>$new }",
    "remove": "delete Item filter .name = <str>$name",
    "upsert": "insert Item { name := <str>$name } unless conflict",
    "users": "select User { name }",
}


def test_triggers_read_the_globals_of_the_statement_that_set_them_off(tmp_path, pg):
    lib = Lib(tmp_path)
    lib.generate(TRIGGER_GLOBALS)
    lib.apply(pg.url)
    sources = {"lib/schema.esdl": TRIGGER_GLOBALS,
               **{f"lib/{k}.edgeql": v for k, v in TRIGGER_GLOBAL_QUERIES.items()}}
    plans = {q.name: q for q in check_library(sources, Options(library="lib")).queries}
    assert "set_config(" not in plans["users"].sql  # (a select sets off no trigger)
    [(ann,)] = pg.execute("INSERT INTO \"user\" (name) VALUES ('Ann') RETURNING id")

    def run(query, globals_, **args):
        plan = plans[query]
        values = {f"p{p.index}": (globals_.get(p.name[len("global default::"):]) if p.global_ is not None
                                  else args[p.name]) for p in plan.params}
        return pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%")), values)

    run("add", {"current_user_id": ann, "tag": "t1"}, name="a")
    run("add_many", {"current_user_id": ann}, names=["b", "c"])
    run("rename", {"tag": "t2"}, name="a", new="a2")
    run("remove", {"current_user_id": ann, "tag": "t3"}, name="b")
    pg.execute("INSERT INTO item (name) VALUES ('plain')")  # a writer that hands nothing over
    assert pg.execute("SELECT msg, who_id, tag FROM log ORDER BY ctid") == [
        ("a", ann, "t1"), ("b", ann, "none"), ("c", ann, "none"), ("a2", None, "t2"), ("deleted b", ann, "t3"),
        ("plain", None, "none")]
    assert [p.name for p in plans["add"].params] == ["name", "global default::current_user_id", "global default::tag"]


# for loops in a trigger's body (https://docs.geldata.com/reference/edgeql/for): one insert,
# update or delete for all the elements of array_unpack(...) or a set literal.
LOOPS = """
type Log { required msg: str; }
type Counter { required name: str; required n: int64 { default := 0; } }
type Item {
  required name: str;
  tags: array<str>;
  trigger tag_log after insert for each do (
    for x in array_unpack(__new__.tags) union (insert Log { msg := __new__.name ++ ':' ++ x })
  );
  trigger count after insert for each do (
    for name in {'items', 'all'} union (update Counter filter .name = name set { n := .n + 1 })
  );
  trigger untag after delete for each do (
    for x in array_unpack(__old__.tags) union (delete Log filter .msg = __old__.name ++ ':' ++ x)
  );
}
"""


def test_trigger_bodies_that_are_for_loops(tmp_path, pg):
    lib = Lib(tmp_path)
    lib.generate("type Log { required msg: str; }")
    lib.apply(pg.url)
    up, _ = _roundtrip(lib, pg, LOOPS)
    assert 'FROM unnest(NEW.tags) AS "_loop"("_for_x")' in up
    pg.execute("INSERT INTO counter (name) VALUES ('items'), ('all'), ('other')")
    pg.execute("INSERT INTO item (name, tags) VALUES ('a', '{red,blue}'), ('b', '{}'), ('c', NULL)")
    assert sorted(pg.execute("SELECT msg FROM log")) == [("a:blue",), ("a:red",)]
    # (the loop variable 'name' is not the column 'name' of counter)
    assert pg.execute("SELECT name, n FROM counter ORDER BY name") == [("all", 3), ("items", 3), ("other", 0)]
    pg.execute("INSERT INTO log (msg) VALUES ('keep')")
    pg.execute("DELETE FROM item WHERE name = 'a'")
    assert pg.execute("SELECT msg FROM log") == [("keep",)]
