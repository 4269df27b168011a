"""The typed errors of a library: one per named constraint of the schema, as plain data that
the TypeScript and Go back ends render.

Postgres reports a violated constraint with a SQLSTATE and, for named constraints, the
constraint's name (https://www.postgresql.org/docs/15/errcodes-appendix.html): unique
violation ``23505`` (exclusive constraints), check violation ``23514`` (enum checks, value
constraints, expression constraints), foreign key violation ``23503`` (links). Because every
constraint name is deterministic, each maps to exactly one error type. A NOT NULL violation
(``23502``, required properties) names a column, not a constraint: it maps to one generic
error carrying the table and column.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

from schemac.frozen import fast_init
from schemac.semantics.model import ObjectType, Schema

#: kind -> (SQLSTATE, base name of the error family)
KINDS = {
    "exclusive": ("23505", "ExclusiveViolation"),
    "check": ("23514", "CheckViolation"),
    "foreign_key": ("23503", "ForeignKeyViolation"),
}
NOT_NULL_SQLSTATE = "23502"


@fast_init  # thousands per large schema: the frozen dataclass' __init__ without its per-field calls
@dataclass(frozen=True)
class ConstraintError:
    """One named constraint and how its violation is described.

    ``kind``: a key of :data:`KINDS`. ``type_name``: the schema type (``Post``, or
    ``Post.tags`` for a multi link's join table). ``columns``: the columns it is on (empty for
    a check). ``description``: one sentence for doc comments and messages."""

    kind: str
    constraint: str
    table: str
    type_name: str
    columns: Tuple[str, ...]
    description: str

    @property
    def sqlstate(self) -> str:
        return KINDS[self.kind][0]

    @property
    def family(self) -> str:
        return KINDS[self.kind][1]


def _for_table(t: ObjectType) -> List[ConstraintError]:
    out: List[ConstraintError] = []
    for ex in t.exclusives:
        where = f" among rows where {ex.predicate_sql}" if ex.partial else ""
        keys = ex.keys_sql or ex.columns  # (an exclusive on expressions: the keys' SQL)
        out.append(ConstraintError("exclusive", ex.name, t.table, t.name, ex.columns,
                                   f"duplicate ({', '.join(keys)}){where}"))
    for ck in t.checks:
        out.append(ConstraintError("check", ck.name, t.table, t.name, (), f"CHECK ({ck.expression_sql}) failed"))
    for fk in t.foreign_keys:
        out.append(ConstraintError("foreign_key", fk.name, t.table, t.name, (fk.column,),
                                   f"{fk.column} refers to no {fk.target_table} row, or a referenced row is "
                                   f"being deleted (ON DELETE {fk.on_delete_sql})"))
    return out


def constraint_errors(schema: Schema) -> List[ConstraintError]:
    """Every named constraint of the schema, by table (declaration order) and kind. The back
    ends read it once per compile through ``Library.constraint_errors``."""
    out: List[ConstraintError] = []
    for t in schema.all_tables():
        out.extend(_for_table(t))
    return out
