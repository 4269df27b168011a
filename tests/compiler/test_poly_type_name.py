"""``.__type__.name`` of the objects of a polymorphic link (its target an abstract type with
several concrete subtypes, https://docs.geldata.com/reference/datamodel/introspection/objects):
the subtype whose table holds the object's id (ids are unique across tables). It was E0206.
Tested on PostgreSQL 15 with data."""

from __future__ import annotations

from schemac.pipeline import check_library
from schemac.semantics.library import Options

SCHEMA = """module default {
  abstract type Attachment { required name: str; }
  type Image extending Attachment { width: int32; }
  type Document extending Attachment { pages: int32; }
  type Video extending Attachment { seconds: int64; }
  type Message {
    required body: str;
    attachment: Attachment;
    multi files: Attachment;
  }
}
"""

QUERIES = {
    "single": "select Message { body, attachment: { name, t := .__type__.name } } order by .body;",
    "multi": "select Message { body, files: { name, t := .__type__.name } order by .name } order by .body;",
}


def test_type_name_through_a_polymorphic_link(pg):
    from schemac.backends.sql import codegen as sqlgen
    from schemac.migrate.history import History

    sources = {"s.gel": SCHEMA}
    sources.update({f"{k}.edgeql": v for k, v in QUERIES.items()})
    lib = check_library(sources, Options(library="polyname"))
    plans = {p.name: p for p in lib.queries}
    pg.execute(sqlgen.render_sql(lib, History.from_sources({"s.gel": SCHEMA}))["000001_init.up.sql"])
    i, d, v = ("00000000-0000-0000-0000-0000000000a%d" % n for n in (1, 2, 3))
    pg.execute(f"""
        INSERT INTO image (id, name) VALUES ('{i}', 'cat.png');
        INSERT INTO document (id, name) VALUES ('{d}', 'spec.pdf');
        INSERT INTO video (id, name) VALUES ('{v}', 'talk.mp4');
        INSERT INTO message (id, body, attachment_document_id) VALUES ('00000000-0000-0000-0000-0000000000b1', 'a', '{d}');
        INSERT INTO message (id, body, attachment_video_id) VALUES ('00000000-0000-0000-0000-0000000000b2', 'b', '{v}');
        INSERT INTO message (id, body) VALUES ('00000000-0000-0000-0000-0000000000b3', 'c');
    """)
    cols = [c for c in pg.execute("SELECT column_name FROM information_schema.columns WHERE table_name = "
                                  "'message_files'")]
    target_cols = {c[0] for c in cols}
    row = {"image": i, "document": d, "video": v}
    for table, oid in row.items():
        col = f"target_{table}_id"
        extra = f", {col}" if col in target_cols else ""
        pg.execute(f"INSERT INTO message_files (source_id, target_id{extra}) VALUES "
                   f"('00000000-0000-0000-0000-0000000000b1', '{oid}'{', ' + repr(oid) if extra else ''})")
    assert pg.execute(plans["single"].sql) == [
        ("a", {"name": "spec.pdf", "t": "default::Document"}),
        ("b", {"name": "talk.mp4", "t": "default::Video"}),
        ("c", None),
    ]
    rows = pg.execute(plans["multi"].sql)
    assert rows[0] == ("a", [{"name": "cat.png", "t": "default::Image"}, {"name": "spec.pdf", "t": "default::Document"},
                             {"name": "talk.mp4", "t": "default::Video"}])
    assert rows[1] == ("b", [])
