"""SQL back end: the library's initial migration as golang-migrate files.

``000001_init.up.sql`` creates every table (types in declaration order), its CHECK and UNIQUE
constraints and partial unique indexes; ``000001_init.down.sql`` drops them in reverse order.
File naming follows golang-migrate (``{version}_{title}.up.sql`` / ``.down.sql``,
https://github.com/golang-migrate/migrate/blob/master/MIGRATIONS.md).
"""

from __future__ import annotations

from typing import Dict, List

from schemac.model import ObjectType, Schema
from schemac.render import render
from schemac.sqlnames import qi

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


def _type_view(t: ObjectType) -> Dict[str, object]:
    lines: List[str] = [_column_sql(c) for c in t.columns]
    lines += [f"CONSTRAINT {qi(ck.name)} CHECK ({ck.expression_sql})" for ck in t.checks]
    lines += [f"CONSTRAINT {qi(ex.name)} UNIQUE ({', '.join(qi(c) for c in ex.columns)})"
              for ex in t.exclusives if not ex.partial]
    indexes = [
        {"name_q": qi(ex.name), "columns_q": ", ".join(qi(c) for c in ex.columns), "predicate": ex.predicate_sql}
        for ex in t.exclusives if ex.partial
    ]
    return {"table_q": qi(t.table), "lines": lines, "indexes": indexes}


def render_migrations(library: str, schema: Schema) -> Dict[str, str]:
    """``{relative path: text}`` of the initial migration's up and down files."""
    ctx = {"library": library, "version": INITIAL_VERSION, "slug": INITIAL_SLUG,
           "types": [_type_view(t) for t in schema.all_types()]}
    base = f"{INITIAL_VERSION}_{INITIAL_SLUG}"
    return {
        f"{base}.up.sql": render("migration.up.sql.j2", **ctx),
        f"{base}.down.sql": render("migration.down.sql.j2", **ctx),
    }
