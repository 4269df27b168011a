"""SQL back end: the library's initial migration as golang-migrate files.

``000001_init.up.sql`` creates every table (object types in declaration order, then the join
tables of multi links) with its CHECK and UNIQUE constraints, then adds the foreign keys (so
declaration order and link cycles do not matter), the partial unique indexes and other
indexes, and the ``COMMENT ON`` statements of annotations. ``000001_init.down.sql`` drops every
table in one ``DROP TABLE`` statement (which handles foreign keys between them).
File naming follows golang-migrate (``{version}_{title}.up.sql`` / ``.down.sql``,
https://github.com/golang-migrate/migrate/blob/master/MIGRATIONS.md).
"""

from __future__ import annotations

from typing import Dict, List

from schemac.model import ObjectType, Schema
from schemac.render import render
from schemac.sqlnames import qi, sql_string

INITIAL_VERSION = "000001"
INITIAL_SLUG = "init"


def _column_sql(col) -> str:
    parts = [qi(col.name), col.type.pg]
    if col.is_id:
        parts.append("PRIMARY KEY")
    elif col.required:
        parts.append("NOT NULL")
    if col.default_sql is not None:
        parts.append(f"DEFAULT {col.default_sql}")
    return " ".join(parts)


def _table_view(t: ObjectType) -> Dict[str, object]:
    lines: List[str] = [_column_sql(c) for c in t.columns]
    if t.primary_key != ("id",):
        lines.append(f"PRIMARY KEY ({', '.join(qi(c) for c in t.primary_key)})")
    lines += [f"CONSTRAINT {qi(ck.name)} CHECK ({ck.expression_sql})" for ck in t.checks]
    lines += [f"CONSTRAINT {qi(ex.name)} UNIQUE ({', '.join(qi(c) for c in ex.columns)})"
              for ex in t.exclusives if not ex.partial]
    unique_indexes = [
        {"name_q": qi(ex.name), "columns_q": ", ".join(qi(c) for c in ex.columns), "predicate": ex.predicate_sql}
        for ex in t.exclusives if ex.partial
    ]
    indexes = [
        {"name_q": qi(ix.name), "using": "" if ix.method == "btree" else f" USING {ix.method}",
         "key_list": ", ".join(ix.keys_sql), "predicate": ix.predicate_sql}
        for ix in t.indexes
    ]
    fks = [{"name_q": qi(fk.name), "column_q": qi(fk.column), "target_q": qi(fk.target_table),
            "on_delete": fk.on_delete_sql} for fk in t.foreign_keys]
    return {"table_q": qi(t.table), "lines": lines, "unique_indexes": unique_indexes, "indexes": indexes,
            "foreign_keys": fks}


def _comments(schema: Schema) -> List[str]:
    out: List[str] = []
    for t in schema.all_tables():
        if t.comment is not None:
            out.append(f"COMMENT ON TABLE {qi(t.table)} IS {sql_string(t.comment)};")
        for c in t.columns:
            if c.comment is not None:
                out.append(f"COMMENT ON COLUMN {qi(t.table)}.{qi(c.name)} IS {sql_string(c.comment)};")
        for ix in t.indexes:
            if ix.comment is not None:
                out.append(f"COMMENT ON INDEX {qi(ix.name)} IS {sql_string(ix.comment)};")
    return out


def render_migrations(library: str, schema: Schema) -> Dict[str, str]:
    """``{relative path: text}`` of the initial migration's up and down files."""
    ctx = {"library": library, "version": INITIAL_VERSION, "slug": INITIAL_SLUG,
           "tables": [_table_view(t) for t in schema.all_tables()], "comments": _comments(schema)}
    base = f"{INITIAL_VERSION}_{INITIAL_SLUG}"
    return {
        f"{base}.up.sql": render("migration.up.sql.j2", **ctx),
        f"{base}.down.sql": render("migration.down.sql.j2", **ctx),
    }
