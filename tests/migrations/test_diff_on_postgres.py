"""The diff engine, case by case: each schema change is generated, applied to a real Postgres
database that holds rows, checked (data and catalog), then reverted by its down migration
(catalog equal to before) and applied again (catalog equal to after)."""

from __future__ import annotations

import pytest

from migration_harness import Lib, codes, db_catalog

JOBS_V1 = """
enum QueueStatus { Pending, Running, Failed, Processed }
type Job {
  required name: str;
  required actor: str;
  payload: json;
  status: QueueStatus { default := QueueStatus.Pending };
  constraint exclusive on (.name, .actor) filter .status = QueueStatus.Pending;
}
"""


def _start(tmp_path, pg, schema: str, rows_sql: str = "") -> Lib:
    lib = Lib(tmp_path)
    gen = lib.generate(schema)
    assert gen is not None and not gen.plan.errors, gen.plan.errors
    lib.apply(pg.url)
    if rows_sql:
        pg.execute(rows_sql)
    return lib


def _step(lib: Lib, pg, schema: str, **opts):
    """Generate the next migration, apply it, and prove its down migration reverts the
    catalog exactly and the up applies again. Returns (generated, up SQL)."""
    before = db_catalog(pg.conn)
    first = lib.history().last_version + 1
    gen = lib.generate(schema, **opts)
    assert gen is not None, "no change detected"
    assert not gen.plan.errors, [d.message for d in gen.plan.errors]
    versions = range(first, lib.history().last_version + 1)  # a change may take several files
    lib.apply(pg.url)
    after = db_catalog(pg.conn)
    return gen, versions, before, after


def _roundtrip(lib: Lib, pg, versions, before, after) -> None:
    lib.run_files(pg.conn, versions, "down")
    assert db_catalog(pg.conn) == before
    lib.run_files(pg.conn, versions, "up")
    assert db_catalog(pg.conn) == after


def test_rename_property_member_fill_and_partial_index_follow(tmp_path, pg):
    lib = _start(tmp_path, pg, JOBS_V1,
                 "INSERT INTO job (name, actor, status) VALUES ('a','x','Pending'), ('b','y','Running'), ('c','z',NULL)")
    v2 = JOBS_V1.replace("required actor: str;", "required owner: str;") \
        .replace("Running,", "Active,") \
        .replace("status: QueueStatus", "required status: QueueStatus") \
        .replace("(.name, .actor)", "(.name, .owner)") + """
migration {
  rename property Job.actor to owner;
  rename member QueueStatus.Running to Active;
  fill Job.status using (QueueStatus.Failed);
}
"""
    gen, version, before, after = _step(lib, pg, v2)
    up = lib.up_sql(version)
    # The partial unique index follows the rename; its unchanged predicate is not re-created.
    assert 'ALTER INDEX "uq_job_name_actor" RENAME TO "uq_job_name_owner";' in up
    assert "CREATE UNIQUE INDEX" not in up and "DROP INDEX" not in up
    assert "DROP COLUMN" not in up
    rows = pg.execute("SELECT name, owner, status FROM job ORDER BY name")
    assert rows == [("a", "x", "Pending"), ("b", "y", "Active"), ("c", "z", "Failed")]
    assert {c for c, _ in after["job"]["constraints"]} >= {"ck_job_status_enum"}
    assert sorted(codes(gen.plan.lints)) == ["BC102", "BC103", "MF106"]  # the fill answers MF104
    # Rows that only the old state allows cannot be reverted: clear them for the round trip.
    pg.execute("DELETE FROM job")
    _roundtrip(lib, pg, version, before, after)


def test_renaming_a_member_used_by_a_partial_index_recreates_it_with_the_new_predicate(tmp_path, pg):
    lib = _start(tmp_path, pg, JOBS_V1, "INSERT INTO job (name, actor) VALUES ('a','x')")
    v2 = JOBS_V1.replace("Pending", "Queued") + "migration { rename member QueueStatus.Pending to Queued; }"
    gen, version, before, after = _step(lib, pg, v2)
    up = lib.up_sql(version)
    assert 'DROP INDEX CONCURRENTLY IF EXISTS "uq_job_name_actor";' in up
    assert "WHERE (status = 'Queued')" in up
    assert "SET DEFAULT 'Queued'" in up
    assert pg.execute("SELECT status FROM job") == [("Queued",)]
    idx = dict((n, d) for n, d, _ in after["job"]["indexes"])
    assert "WHERE (status = 'Queued'::text)" in idx["uq_job_name_actor"]
    pg.execute("DELETE FROM job")
    _roundtrip(lib, pg, version, before, after)


def test_removed_member_is_refused_while_rows_use_it_unless_mapped(tmp_path, pg):
    from schemac.migrate.apply import MigrationError, resolve

    lib = _start(tmp_path, pg, JOBS_V1, "INSERT INTO job (name, actor, status) VALUES ('a','x','Failed')")
    v1_files = lib.save()
    v2 = JOBS_V1.replace("Failed, ", "")
    gen = lib.generate(v2)
    assert "DS104" in codes(gen.plan.lints)
    before = db_catalog(pg.conn)
    with pytest.raises(MigrationError) as e:
        lib.apply(pg.url)
    assert e.value.sqlstate == "23514" and "Failed was removed" in str(e.value)
    assert db_catalog(pg.conn) == before  # nothing of the failed file is left
    assert pg.execute("SELECT status FROM job") == [("Failed",)]
    # The failure is recorded and blocks later runs until resolved.
    with pytest.raises(MigrationError, match="failed on an earlier run"):
        lib.apply(pg.url)
    # Regenerated with a mapping (after `git checkout` of the history), it applies.
    lib.restore(v1_files)
    resolve(pg.url, lib.history(), 2)
    gen, version, before, after = _step(lib, pg, v2 + "migration { map member QueueStatus.Failed to Processed; }")
    assert pg.execute("SELECT status FROM job") == [("Processed",)]


def test_member_map_moves_rows_and_added_member_in_the_middle(tmp_path, pg):
    lib = _start(tmp_path, pg, JOBS_V1, "INSERT INTO job (name, actor, status) VALUES ('a','x','Failed')")
    v2 = JOBS_V1.replace("Pending, Running, Failed, Processed", "Pending, Blocked, Running, Processed") + \
        "migration { map member QueueStatus.Failed to Processed; }"
    gen, version, before, after = _step(lib, pg, v2)
    assert pg.execute("SELECT status FROM job") == [("Processed",)]
    assert "('Pending', 'Blocked', 'Running', 'Processed')" in lib.up_sql(version)
    pg.execute("DELETE FROM job")
    _roundtrip(lib, pg, version, before, after)


BLOG_V1 = """
type User { required email: str { constraint exclusive; }; name: str; }
type Post {
  required title: str;
  required author: User { on target delete delete source; };
  views: int32;
  index on (.title);
}
"""


def test_rename_type_carries_table_constraint_and_index_names(tmp_path, pg):
    lib = _start(tmp_path, pg, BLOG_V1)
    uid = pg.execute("INSERT INTO \"user\" (email) VALUES ('a@b') RETURNING id")[0][0]
    pg.execute("INSERT INTO post (title, author_id) VALUES ('t', %s)", (uid,))
    v2 = BLOG_V1.replace("type User", "type Member").replace("author: User", "author: Member") + \
        "migration { rename type User to Member; }"
    gen, version, before, after = _step(lib, pg, v2)
    up = lib.up_sql(version)
    assert 'ALTER TABLE "user" RENAME TO "member";' in up
    assert 'RENAME CONSTRAINT "uq_user_email" TO "uq_member_email"' in up
    assert "DROP CONSTRAINT" not in up and "CREATE" not in up
    assert "member" in after and "user" not in after
    assert ("member_pkey", "PRIMARY KEY (id)") in after["member"]["constraints"]
    assert pg.execute("SELECT count(*) FROM post JOIN member ON member.id = post.author_id") == [(1,)]
    assert "BC101" in codes(gen.plan.lints)
    _roundtrip(lib, pg, version, before, after)


def test_rename_link_renames_column_foreign_key_and_index(tmp_path, pg):
    lib = _start(tmp_path, pg, BLOG_V1)
    v2 = BLOG_V1.replace("required author: User", "required writer: User") + \
        "migration { rename link Post.author to writer; }"
    gen, version, before, after = _step(lib, pg, v2)
    up = lib.up_sql(version)
    assert 'RENAME COLUMN "author_id" TO "writer_id"' in up
    assert 'RENAME CONSTRAINT "fk_post_author_id" TO "fk_post_writer_id"' in up
    assert 'ALTER INDEX "ix_post_author_id" RENAME TO "ix_post_writer_id";' in up
    assert "ADD CONSTRAINT" not in up and "CREATE INDEX" not in up and "DROP INDEX" not in up
    _roundtrip(lib, pg, version, before, after)


def test_drop_needs_a_hint_or_the_flag(tmp_path, pg):
    lib = _start(tmp_path, pg, BLOG_V1)
    v2 = BLOG_V1.replace("  views: int32;\n", "")
    gen = lib.generate(v2)
    assert codes(gen.plan.errors) == ["E0402"]
    assert "drop property Post.views;" in gen.plan.errors[0].hint
    assert not gen.files and lib.history().last_version == 1
    gen, version, before, after = _step(lib, pg, v2 + "migration { drop property Post.views; }")
    assert "DS103" in codes(gen.plan.lints)
    assert 'ALTER TABLE "post" DROP COLUMN "views";' in lib.up_sql(version)
    _roundtrip(lib, pg, version, before, after)
    # Dropping a whole type: refused, then allowed by --allow-destructive.
    v3 = "type User { required email: str { constraint exclusive; }; name: str; }"
    assert codes(lib.generate(v3).plan.errors) == ["E0402"]
    gen, version, before, after = _step(lib, pg, v3, allow_destructive=True)
    assert 'DROP TABLE "post";' in lib.up_sql(version)
    _roundtrip(lib, pg, version, before, after)


def test_add_required_property_needs_fill_on_a_populated_table(tmp_path, pg):
    lib = _start(tmp_path, pg, BLOG_V1, "INSERT INTO \"user\" (email) VALUES ('a@b')")
    v1_files = lib.save()
    v2 = BLOG_V1.replace("name: str;", "name: str; required handle: str;")
    gen = lib.generate(v2)
    assert "MF103" in codes(gen.plan.lints)
    from schemac.migrate.apply import MigrationError, resolve

    before = db_catalog(pg.conn)
    with pytest.raises(MigrationError) as e:
        lib.apply(pg.url)
    assert e.value.sqlstate == "23502" and "fill User.handle" in str(e.value)
    assert db_catalog(pg.conn) == before
    # Generated again with a fill expression over the row: it applies.
    lib.restore(v1_files)
    resolve(pg.url, lib.history(), 2)
    gen, version, before, after = _step(lib, pg, v2 + "migration { fill User.handle using ('u-' ++ .email); }")
    assert pg.execute('SELECT handle FROM "user"') == [("u-a@b",)]
    _roundtrip(lib, pg, version, before, after)


def test_type_change_needs_a_cast_hint_widening_does_not(tmp_path, pg):
    lib = _start(tmp_path, pg, BLOG_V1, "INSERT INTO \"user\" (email, name) VALUES ('a@b', '42')")
    gen, version, before, after = _step(lib, pg, BLOG_V1.replace("views: int32", "views: int64"))
    assert 'ALTER COLUMN "views" TYPE bigint' in lib.up_sql(version)
    assert "LK102" in codes(gen.plan.lints)
    _roundtrip(lib, pg, version, before, after)
    v3 = BLOG_V1.replace("views: int32", "views: int64").replace("name: str;", "name: int32;")
    assert codes(lib.generate(v3).plan.errors) == ["E0403"]
    gen, version, before, after = _step(lib, pg, v3 + "migration { cast User.name; }")
    assert pg.execute('SELECT name FROM "user"') == [(42,)]
    assert "MF105" in codes(gen.plan.lints)
    _roundtrip(lib, pg, version, before, after)


def test_defaults_optional_required_and_value_constraints(tmp_path, pg):
    lib = _start(tmp_path, pg, BLOG_V1)
    v2 = BLOG_V1.replace("views: int32;", "views: int32 { default := 0; constraint min_value(0); };") \
        .replace("name: str;", "required name: str { default := 'anon'; };")
    gen, version, before, after = _step(lib, pg, v2)
    up = lib.up_sql(version)
    assert 'ALTER COLUMN "views" SET DEFAULT 0;' in up
    assert 'ADD CONSTRAINT "ck_post_views_min_value" CHECK (views >= 0) NOT VALID;' in up
    assert 'VALIDATE CONSTRAINT "ck_post_views_min_value";' in up
    # NOT NULL through a validated CHECK: the SET NOT NULL scan is skipped.
    assert 'ADD CONSTRAINT "nn_user_name" CHECK ("name" IS NOT NULL) NOT VALID;' in up
    assert 'VALIDATE CONSTRAINT "nn_user_name";' in up and 'ALTER COLUMN "name" SET NOT NULL;' in up
    _roundtrip(lib, pg, version, before, after)
    v3 = v2.replace("{ default := 0; constraint min_value(0); }", "{ constraint min_value(1); }")
    gen, version, before, after = _step(lib, pg, v3)
    up = lib.up_sql(version)
    assert 'DROP DEFAULT' in up and 'DROP CONSTRAINT "ck_post_views_min_value"' in up and "views >= 1" in up
    _roundtrip(lib, pg, version, before, after)


def test_exclusives_and_indexes_added_dropped_changed(tmp_path, pg):
    lib = _start(tmp_path, pg, BLOG_V1)
    v2 = BLOG_V1.replace("index on (.title);", "index on (.views);\n  constraint exclusive on (.title, .author);")
    gen, version, before, after = _step(lib, pg, v2)
    up = lib.up_sql(version)
    assert 'DROP INDEX CONCURRENTLY IF EXISTS "ix_post_title";' in up
    assert 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "ix_post_views"' in up
    assert 'CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS "uq_post_title_author_id"' in up
    assert 'ADD CONSTRAINT "uq_post_title_author_id" UNIQUE USING INDEX "uq_post_title_author_id";' in up
    assert "MF101" in codes(gen.plan.lints) and "LK101" not in codes(gen.plan.lints)
    _roundtrip(lib, pg, version, before, after)
    # Unchanged: nothing generated.
    assert lib.generate(v2) is None


def test_single_link_becomes_multi_and_back_keeping_links(tmp_path, pg):
    lib = _start(tmp_path, pg, BLOG_V1)
    uid = pg.execute("INSERT INTO \"user\" (email) VALUES ('a@b') RETURNING id")[0][0]
    pid = pg.execute("INSERT INTO post (title, author_id) VALUES ('t', %s) RETURNING id", (uid,))[0][0]
    v2 = BLOG_V1.replace("required author: User { on target delete delete source; };", "multi author: User;")
    gen, version, before, after = _step(lib, pg, v2)
    assert pg.execute("SELECT source_id, target_id FROM post_author") == [(pid, uid)]
    assert "author_id" not in {c[0] for c in after["post"]["columns"]}
    lib.run_files(pg.conn, version, "down")
    assert db_catalog(pg.conn) == before
    assert pg.execute("SELECT author_id FROM post") == [(uid,)]
    lib.run_files(pg.conn, version, "up")
    assert db_catalog(pg.conn) == after


def test_online_indexes_get_a_no_transaction_migration_of_their_own(tmp_path, pg):
    lib = _start(tmp_path, pg, BLOG_V1)
    v2 = BLOG_V1.replace("index on (.title);", "index on (.title);\n  index on (.views);")
    gen, version, before, after = _step(lib, pg, v2, online_indexes=True)
    assert gen.versions == ["000002_create_index_ix_post_views"]
    up = lib.up_sql(2)
    assert "-- schemac:no-transaction" in up and "CREATE INDEX CONCURRENTLY IF NOT EXISTS" in up
    assert "LK101" not in codes(gen.plan.lints)
    _roundtrip(lib, pg, version, before, after)


def test_link_target_change_replaces_the_foreign_key(tmp_path, pg):
    lib = _start(tmp_path, pg, BLOG_V1 + "type Team { required name: str; }")
    v2 = (BLOG_V1 + "type Team { required name: str; }").replace(
        "required author: User { on target delete delete source; };", "required author: Team { on target delete delete source; };")
    gen, version, before, after = _step(lib, pg, v2)
    up = lib.up_sql(version)
    assert 'DROP CONSTRAINT "fk_post_author_id"' in up and 'REFERENCES "team" ("id")' in up
    assert "DROP COLUMN" not in up
    _roundtrip(lib, pg, version, before, after)


def test_renaming_a_type_with_a_multi_link_renames_its_join_table(tmp_path, pg):
    v1 = """
type Tag { required name: str; }
type Post { required title: str; multi tags: Tag { position: int16; }; }
"""
    lib = _start(tmp_path, pg, v1)
    tid = pg.execute("INSERT INTO tag (name) VALUES ('x') RETURNING id")[0][0]
    pid = pg.execute("INSERT INTO post (title) VALUES ('t') RETURNING id")[0][0]
    pg.execute("INSERT INTO post_tags (source_id, target_id, position) VALUES (%s, %s, 1)", (pid, tid))
    v2 = v1.replace("type Post", "type Article").replace("multi tags: Tag", "multi labels: Tag") + \
        "migration { rename type Post to Article; rename link Article.tags to labels; }"
    gen, version, before, after = _step(lib, pg, v2)
    up = lib.up_sql(version)
    assert 'ALTER TABLE "post_tags" RENAME TO "article_labels";' in up
    assert "CREATE TABLE" not in up and "DROP TABLE" not in up
    assert pg.execute("SELECT position FROM article_labels") == [(1,)]
    _roundtrip(lib, pg, version, before, after)


def test_enum_arrays_and_annotations(tmp_path, pg):
    v1 = """
enum Color { Red, Green }
type Car {
  required name: str { annotation title := 'Name'; };
  colors: array<Color>;
  annotation description := 'Cars';
}
"""
    lib = _start(tmp_path, pg, v1, "INSERT INTO car (name, colors) VALUES ('a', ARRAY['Red', 'Green'])")
    v2 = v1.replace("Red", "Crimson").replace("'Name'", "'Car name'").replace("'Cars'", "'All cars'") + \
        "migration { rename member Color.Red to Crimson; }"
    gen, version, before, after = _step(lib, pg, v2)
    up = lib.up_sql(version)
    assert "array_replace" in up and "COMMENT ON TABLE \"car\" IS 'All cars';" in up
    assert pg.execute("SELECT colors FROM car") == [(["Crimson", "Green"],)]
    assert after["car"]["comment"] == "All cars"
    pg.execute("DELETE FROM car")
    _roundtrip(lib, pg, version, before, after)


def test_new_columns_and_indexes_of_existing_tables_keep_their_annotations(tmp_path, pg):
    lib = _start(tmp_path, pg, BLOG_V1)
    v2 = BLOG_V1.replace("views: int32;", "views: int32;\n  subtitle: str { annotation description := 'Sub'; };") \
        .replace("index on (.title);", "index on (.title) { annotation description := 'by title'; };")
    gen, version, before, after = _step(lib, pg, v2)
    assert ("subtitle", "text", False, None, "Sub") in after["post"]["columns"]
    assert any(name == "ix_post_title" and comment == "by title" for name, _, comment in after["post"]["indexes"])
    _roundtrip(lib, pg, version, before, after)


def test_single_property_becomes_multi_keeping_its_value(tmp_path, pg):
    v1 = "type Note { required title: str; label: str; }"
    lib = _start(tmp_path, pg, v1, "INSERT INTO note (title, label) VALUES ('a', 'x'), ('b', NULL)")
    gen, version, before, after = _step(lib, pg, v1.replace("label: str;", "multi label: str;"))
    assert pg.execute("SELECT title, label FROM note ORDER BY 1") == [("a", ["x"]), ("b", [])]
    _roundtrip(lib, pg, version, before, after)
    bad = lib.generate("type Note { required title: str; label: int32; }")
    assert [d.code for d in bad.plan.errors] == ["E0404"]


def test_link_properties_are_renamed_dropped_and_filled_with_hints(tmp_path, pg):
    v1 = """
type Tag { required name: str; }
type Story { required title: str; multi labels: Tag { note: str; weight: int16; }; }
"""
    lib = _start(tmp_path, pg, v1)
    tid = pg.execute("INSERT INTO tag (name) VALUES ('x') RETURNING id")[0][0]
    sid = pg.execute("INSERT INTO story (title) VALUES ('t') RETURNING id")[0][0]
    pg.execute("INSERT INTO story_labels (source_id, target_id, note) VALUES (%s, %s, 'n')", (sid, tid))
    v2 = v1.replace("note: str; weight: int16;", "remark: str; required rank: int16;")
    refused = lib.generate(v2)
    assert "drop property Story.labels.weight;" in " ".join(d.hint or "" for d in refused.plan.errors)
    gen, version, before, after = _step(lib, pg, v2 + """
migration {
  rename property Story.labels.note to remark;
  drop property Story.labels.weight;
  fill Story.labels.rank using (<int16>1);
}
""")
    assert pg.execute("SELECT remark, rank FROM story_labels") == [("n", 1)]
    pg.execute("DELETE FROM story_labels")
    _roundtrip(lib, pg, version, before, after)


def test_a_rename_hint_kept_after_its_migration_changes_nothing_later(tmp_path, pg):
    v1 = "type Job { required n: str; }"
    lib = _start(tmp_path, pg, v1)
    v2 = "type Task { required n: str; }\nmigration { rename type Job to Task; rename property Task.m to n; }"
    _step(lib, pg, v2)
    pg.execute("INSERT INTO task (n) VALUES ('kept')")
    gen, version, before, after = _step(lib, pg, v2.replace("required n: str;", "required n: str; note: str;"))
    assert lib.down_sql(version).count("ALTER TABLE") == 1 and "DROP TABLE" not in lib.down_sql(version)
    assert [d.code for d in gen.plan.lints if d.code == "W0005"] == []
    lib.run_files(pg.conn, version, "down")
    assert pg.execute("SELECT n FROM task") == [("kept",)]


def test_multi_link_with_link_properties_becoming_single_needs_drop_hints(tmp_path, pg):
    v1 = "type Tag { required name: str; }\ntype T { multi tags: Tag { note: str; }; }"
    lib = _start(tmp_path, pg, v1)
    v2 = "type Tag { required name: str; }\ntype T { tags: Tag; }"
    refused = lib.generate(v2)
    assert [d.code for d in refused.plan.errors] == ["E0402"]
    assert "drop property T.tags.note;" in refused.plan.errors[0].hint
    gen, version, before, after = _step(lib, pg, v2 + "\nmigration { drop property T.tags.note; }")
    assert "DS103" in codes(gen.plan.lints)
    _roundtrip(lib, pg, version, before, after)


def test_computeds_globals_and_policies_store_nothing(tmp_path, pg):
    """Computed properties and links, backlinks, globals, access policies and defaults reading a
    global have no column or constraint: adding, changing or removing them needs no migration (https://docs.geldata.com/reference/datamodel/computeds), and
    a real change next to them migrates only the real change, up -> down -> up."""
    v1 = "type User { required first: str; last: str; }\ntype Post { required title: str; author: User; }\n"
    lib = _start(tmp_path, pg, v1, "INSERT INTO \"user\" (first, last) VALUES ('Ann', 'Lee')")
    v2 = v1.replace("last: str; }", "last: str; full_name := .first ++ ' ' ++ .last;\n"
                    "  multi link posts := .<author[is Post]; n_posts := count(.posts); }") + \
        "global me: uuid;\nglobal page: int64 { default := 20 };\n"
    assert lib.generate(v2) is None
    v3 = v2.replace("' ' ++ .last", "', ' ++ .last").replace(" n_posts := count(.posts);", "") \
        .replace("global page: int64 { default := 20 };", "global page: int64 { default := 50 };")
    assert lib.generate(v3) is None
    # Access policies and defaults that read a global are enforced by the queries: no migration,
    # but for the function the first policy's errors are raised with (schemac_raise, never
    # dropped: the libraries of a database share it).
    v3 = v3.replace("type Post { required title: str; author: User; }",
                    "type Post { required title: str; author: User { default := global me_user; };\n"
                    "  access policy own allow all using (.author.id ?= global me); }") + \
        "global me_user := (select User filter .id = global me);\n"
    gen = lib.generate(v3)
    assert gen is not None and gen.plan.changes == ["create function schemac_raise"], gen.plan.changes
    lib.apply(pg.url)
    assert lib.generate(v3) is None
    assert lib.generate(v3.replace("allow all", "allow select, insert")) is None
    v4 = v3.replace("last: str;", "last: str; nick: str;")
    gen, version, before, after = _step(lib, pg, v4)
    up, down = lib.up_sql(version), lib.down_sql(version)
    assert 'ADD COLUMN "nick" text' in up and 'DROP COLUMN "nick"' in down
    for name in ("full_name", "posts", "n_posts", "page", "me", "own", "me_user"):
        assert f'"{name}"' not in up + down
    _roundtrip(lib, pg, version, before, after)
    assert pg.execute('SELECT first, last, nick FROM "user"') == [("Ann", "Lee", None)]
    # Removing every computed, policy and global: still nothing to migrate.
    assert lib.generate(v4.replace(" full_name := .first ++ ', ' ++ .last;", "")
                        .replace("  multi link posts := .<author[is Post];", "")
                        .replace(" { default := global me_user; }", "")
                        .replace("\n  access policy own allow all using (.author.id ?= global me);", "")
                        .replace("global me_user := (select User filter .id = global me);\n", "")
                        .replace("global me: uuid;\n", "")) is None
