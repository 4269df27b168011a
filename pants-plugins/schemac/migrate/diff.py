"""The diff engine: two catalogs (+ hints) -> the SQL statements that turn one into the other.

:func:`diff` compares the catalog of the last migration (the snapshot) with the catalog of the
current schema and returns a :class:`Plan`: ordered statements, lints (Atlas-style stable codes,
see ``CODES`` in :mod:`schemac.diagnostics`), errors for changes refused without a hint, and a
one-line summary per change. The down migration is ``diff(new, old, hints.inverted(),
down=True)``.

Matching follows names, never guesses: tables by the type they store (``origin``), columns by
the property or link they store (``pointer``), both through the declared renames; constraints
and indexes by their definition with the renames applied, so an unchanged constraint of a
renamed table is renamed, never re-created. Statements run in this order: renames; drops of
foreign keys, indexes, unique and check constraints; dropped columns and tables; new tables and
columns, type and nullability changes, defaults; enum value rewrites and fills; NOT NULL; new
checks, unique constraints, foreign keys, indexes; comments. Postgres reference:
https://www.postgresql.org/docs/15/sql-altertable.html
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Dict, List, Optional, Set, Tuple

from schemac.diagnostics import Diagnostic
from schemac.frozen import fast_init_all
from schemac.migrate.catalog import Catalog, ColumnDef, IndexDef, TableDef, TriggerDef, UniqueDef, origin_of
from schemac.semantics.model import is_join_origin
from schemac.semantics.migration_hints import Hints
from schemac.pgsql import policies
from schemac.semantics.sqlnames import qi, quote_ident, sql_string

# Phases (statement order inside one migration).
RENAME, DROP_FK, DROP_INDEX, DROP_UNIQUE, DROP_CHECK, DROP_COLUMN, DROP_TABLE = 10, 20, 21, 22, 23, 30, 31
CREATE_TABLE, ADD_COLUMN, DROP_DEFAULT, DROP_NOT_NULL, ALTER_TYPE, SET_DEFAULT = 40, 41, 42, 42, 43, 45
REWRITE, FILL, SET_NOT_NULL = 50, 51, 52
ADD_CHECK, ADD_UNIQUE, ADD_FK, INDEXES, COPY_LINKS, LATE_DROP, COMMENT = 60, 61, 62, 63, 66, 80, 90
CREATE_EXTENSION, CREATE_SEQUENCE, DROP_SEQUENCE, DROP_EXTENSION = 35, 36, 84, 85
CREATE_TYPE, DROP_TYPE = 37, 83
# Phases of the finishing file (validations first: they scan under SHARE UPDATE EXCLUSIVE; the
# ACCESS EXCLUSIVE steps come last, so that lock is held only for the commit).
VALIDATE, FINISH_NOT_NULL, FINISH_DROP_HELPER, ATTACH_UNIQUE = 100, 110, 111, 112

#: Where a statement goes (see :func:`schemac.migrate.history.next_migration`): ``pre``: a
#: no-transaction file of its own before the main file (``DROP INDEX CONCURRENTLY``); ``main``:
#: the main transactional file; ``online``: a no-transaction file of its own after it
#: (``CREATE INDEX CONCURRENTLY``); ``finish``: a transactional file after those (``VALIDATE
#: CONSTRAINT``, ``SET NOT NULL`` proven by a validated CHECK, ``ADD CONSTRAINT ... USING INDEX``).
PRE, MAIN, ONLINE, FINISH = "pre", "main", "online", "finish"

#: The SQL of schemac's own functions (:attr:`schemac.migrate.catalog.Catalog.functions`).
_SUPPORT_FUNCTIONS = {policies.RAISE_FUNCTION: policies.RAISE_FUNCTION_SQL}

#: Functions whose value differs per row: a column added with such a default rewrites the table.
VOLATILE_FUNCTIONS = ("gen_random_uuid(", "clock_timestamp(", "random(", "uuid_generate_v", "nextval(", "timeofday(")
#: Triggers (and their functions) that go or change are dropped first, on the table's old name;
#: new and changed ones are created once every table, column and constraint is in place.
DROP_TRIGGER, CREATE_TRIGGER = 5, 64

#: Column type changes Postgres makes without losing values: no cast hint needed.
WIDENING = {
    ("smallint", "integer"), ("smallint", "bigint"), ("integer", "bigint"),
    ("real", "double precision"), ("smallint", "numeric"), ("integer", "numeric"), ("bigint", "numeric"),
    ("smallint[]", "integer[]"), ("smallint[]", "bigint[]"), ("integer[]", "bigint[]"),
}


@dataclass(frozen=True)
class Statement:
    """One SQL statement. ``stage``: which file it goes to (:data:`PRE`, :data:`MAIN`,
    :data:`ONLINE`, :data:`FINISH`); ``index``: the index a ``pre``/``online`` statement drops or
    builds; ``undo``: the statement that reverts a ``pre``/``online`` statement (its file's down)."""

    phase: int
    seq: int
    sql: str
    stage: str = MAIN
    index: Optional[str] = None
    undo: Optional[str] = None

    @property
    def concurrent(self) -> bool:
        return self.stage in (PRE, ONLINE)


@dataclass
class Plan:
    """The result of :func:`diff`: statements in execution order, lints (warnings), errors
    (refused changes) and ``changes``, a short description of each change (``add column
    job.priority``)."""

    statements: List[Statement] = field(default_factory=list)
    lints: List[Diagnostic] = field(default_factory=list)
    errors: List[Diagnostic] = field(default_factory=list)
    changes: List[str] = field(default_factory=list)
    #: ``(table, column)`` made NOT NULL by the finishing file (nullable until then).
    not_null_later: List[Tuple[str, str]] = field(default_factory=list)
    #: ``(table, column)`` whose helper CHECK ``nn_...`` the main file adds NOT VALID.
    helper_checks: List[Tuple[str, str, str]] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.statements

    def ordered(self) -> List[Statement]:
        return sorted(self.statements, key=lambda s: (s.phase, s.seq))


@dataclass(frozen=True)
class DiffOptions:
    """``allow_destructive``: drop tables/columns without drop hints (``--allow-destructive``);
    ``online_indexes``: build and drop indexes of existing tables ``CONCURRENTLY``, one
    no-transaction migration file each (default; off for small tables, where a blocking build is
    quicker and keeps one file); ``down``: this is a down migration (undoing an up migration:
    drops and casts are its purpose, so they are not refused, and it restores the old state in
    one transaction instead of the online sequences). ``lock_timeout`` / ``statement_timeout``:
    the values each file sets first (Postgres interval text; see :mod:`schemac.migrate.history`)."""

    allow_destructive: bool = False
    online_indexes: bool = True
    down: bool = False
    lock_timeout: str = "5s"
    statement_timeout: str = "1min"


_TOKEN = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|[A-Za-z_][A-Za-z0-9_$]*|\s+|.", re.S)


def rename_identifiers(sql: str, names: Dict[str, str]) -> str:
    """Rewrite column references in an expression (``status = 'A'`` with
    ``{"status": "state"}`` -> ``state = 'A'``); string literals are left alone."""
    names = {k: v for k, v in names.items() if k != v}
    if not names:
        return sql
    out: List[str] = []
    for tok in _TOKEN.findall(sql):
        if tok.startswith('"'):  # a quoted identifier stays quoted (index keys are spelled "col")
            name = tok[1:-1].replace('""', '"')
            out.append(qi(names[name]) if name in names else tok)
        elif tok[:1].isalpha() or tok[:1] == "_":
            out.append(quote_ident(names[tok]) if tok in names else tok)
        else:
            out.append(tok)
    return "".join(out)


# ------------------------------------------------------------------------------------ DDL text
def column_sql(c: ColumnDef, primary: bool = False) -> str:
    """A column's definition: ``"name" type [PRIMARY KEY | NOT NULL] [DEFAULT expr]``."""
    sql = f"{qi(c.name)} {c.type}"
    if primary:
        sql += " PRIMARY KEY"
    elif not c.nullable:
        sql += " NOT NULL"
    if c.default is not None:
        sql += f" DEFAULT {c.default}"
    return sql


def create_table_sql(t: TableDef) -> str:
    """``CREATE TABLE`` with columns, primary key, CHECK and (non-partial) UNIQUE constraints."""
    single_pk = t.primary_key if len(t.primary_key) == 1 else ()
    lines = [column_sql(c, primary=(c.name,) == single_pk) for c in t.columns]
    if len(t.primary_key) > 1:
        lines.append(f"PRIMARY KEY ({', '.join(qi(c) for c in t.primary_key)})")
    lines += [f"CONSTRAINT {qi(ck.name)} CHECK ({ck.expression})" for ck in t.checks]
    lines += [f"CONSTRAINT {qi(u.name)} UNIQUE ({', '.join(qi(c) for c in u.columns)})"
              for u in t.uniques if not u.is_index]
    body = ",\n".join(f"    {line}" for line in lines)
    return f"CREATE TABLE {qi(t.name)} (\n{body}\n);"


def fk_sql(table: str, fk) -> str:
    return (f"ALTER TABLE {qi(table)}\n  ADD CONSTRAINT {qi(fk.name)} FOREIGN KEY ({qi(fk.column)})\n"
            f"  REFERENCES {qi(fk.target)} (\"id\") ON DELETE {fk.on_delete};")


def fk_body(fk) -> str:
    return f"FOREIGN KEY ({qi(fk.column)}) REFERENCES {qi(fk.target)} (\"id\") ON DELETE {fk.on_delete}"


def constraint_name(prefix: str, table: str, column: str) -> str:
    """``prefix_table_column``, shortened with a hash to Postgres' 63-byte identifier limit."""
    import hashlib

    name = f"{prefix}_{table}_{column}"
    if len(name.encode("utf-8")) <= 63:
        return name
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
    return name.encode("utf-8")[:54].decode("utf-8", "ignore") + "_" + digest


def is_volatile(default_sql: str) -> bool:
    """Whether a column default calls a volatile function (different per row)."""
    low = default_sql.lower()
    return any(f in low for f in VOLATILE_FUNCTIONS)


def unique_index_sql(table: str, u: UniqueDef, concurrently: bool = False) -> str:
    conc = " CONCURRENTLY" if concurrently else ""
    where = f"\n  WHERE ({u.predicate})" if u.predicate is not None else ""
    return (f"CREATE UNIQUE INDEX{conc} IF NOT EXISTS {qi(u.name)}\n  ON {qi(table)} "
            f"({', '.join(u.keys or [qi(c) for c in u.columns])}){where};")


def index_sql(table: str, ix: IndexDef, concurrently: bool = False) -> str:
    using = "" if ix.method == "btree" else f" USING {ix.method}"
    head = "CREATE INDEX CONCURRENTLY IF NOT EXISTS" if concurrently else "CREATE INDEX"
    storage = f" WITH ({ix.storage})" if ix.storage else ""
    where = f"\n  WHERE ({ix.predicate})" if ix.predicate else ""
    return f"{head} {qi(ix.name)}\n  ON {qi(table)}{using} ({', '.join(ix.keys)}){storage}{where};"


def _dollar_quote(body: str, tag: str = "$schemac$") -> str:
    """``body`` between dollar quotes whose tag it does not contain."""
    while tag in body:
        tag = tag[:-1] + "_$"
    return f"{tag}\n{body}\n{tag}"


def trigger_function_sql(t: TriggerDef) -> str:
    """``CREATE FUNCTION`` of a trigger's own PL/pgSQL function."""
    body = "BEGIN\n" + "\n".join(f"  {line}" if line else "" for line in t.body.split("\n")) + "\nEND;"
    return f"CREATE FUNCTION {qi(t.function)}() RETURNS trigger LANGUAGE plpgsql AS {_dollar_quote(body)};"


def trigger_sql(table: str, t: TriggerDef) -> str:
    """``CREATE TRIGGER`` (https://www.postgresql.org/docs/15/sql-createtrigger.html)."""
    when = "" if t.when is None else f" WHEN ({t.when})\n "
    return (f"CREATE TRIGGER {qi(t.name)} {t.timing} {' OR '.join(t.events)} ON {qi(table)}\n"
            f"  FOR EACH {t.level}{when} EXECUTE FUNCTION {qi(t.function)}();")


def _comment_sql(kind: str, target: str, text: Optional[str]) -> str:
    return f"COMMENT ON {kind} {target} IS {sql_string(text) if text is not None else 'NULL'};"


def _guard(condition_sql: str, message: str, hint: str, errcode: str) -> str:
    """A ``DO`` block that stops the migration (and so rolls it back) with a clear message.
    ``RAISE``'s message is a format string (``%`` doubled); its ``HINT`` is not."""
    msg, hnt = sql_string(message.replace("%", "%%")), sql_string(hint)
    body = (f"BEGIN\n  IF {condition_sql} THEN\n    RAISE EXCEPTION {msg}\n"
            f"      USING ERRCODE = '{errcode}', HINT = {hnt};\n  END IF;\nEND")
    tag = "$schemac$"
    while tag in body:
        tag = tag[:-1] + "_$"
    return f"DO {tag} {body} {tag};"


#: The two places a required column's empty values are filled (or guarded): a new column
#: (every row) and a column that becomes required (its NULLs), with the guard's problem text.
_FILL_SITES = (("", "is a new required column, and {table} has rows"),
               (" WHERE {column} IS NULL", "becomes required, but some rows have no value"))


def fill_statement(nt: TableDef, c: ColumnDef, fill: str, where: str) -> str:
    """The statement that gives ``c``'s empty values (``where``) the ``fill`` hint's value."""
    return f"UPDATE {qi(nt.name)} SET {qi(c.name)} = {fill}{where};"


def fill_guard(nt: TableDef, c: ColumnDef, where: str, problem: str) -> str:
    """The guard written instead of :func:`fill_statement` when the schema has no ``fill`` for
    ``c``: it stops the migration on the first row with an empty value, saying which hint to add."""
    short = nt.origin[len("default::"):] if nt.origin.startswith("default::") else nt.origin
    return _guard(
        f"EXISTS (SELECT 1 FROM {qi(nt.name)}{where})", f"schemac: {nt.name}.{c.name} {problem}",
        f"add `fill {short}.{c.pointer} using (<value>);` to the schema's migration block "
        "(or give the property a default), then generate this migration again (see docs/migrations.md, "
        "'When a migration fails')", "23502")


def fills_missing_from(migration_sql: str, current: Catalog, hints: Hints) -> List[Tuple[str, str, str]]:
    """The ``fill`` hints of ``hints`` that a generated migration (its up file's text) was
    written without: ``(hint as written, the guard in the file, the fill statement that
    replaces it)`` for each guard of ``migration_sql`` whose column now has a ``fill``. (A
    migration that failed on rows with no value; with the hint added the schema does not change,
    so only this tells that the committed migration does not have it yet.)"""
    out: List[Tuple[str, str, str]] = []
    for nt in current.tables:
        for c in nt.columns:
            fill = hints.fills.get((nt.origin, c.pointer or c.name))
            if fill is None:
                continue
            for where_t, problem_t in _FILL_SITES:
                where, problem = where_t.format(column=qi(c.name)), problem_t.format(table=nt.name)
                guard = fill_guard(nt, c, where, problem)
                if guard in migration_sql:
                    short = nt.origin[len("default::"):] if nt.origin.startswith("default::") else nt.origin
                    out.append((f"fill {short}.{c.pointer}", guard, fill_statement(nt, c, fill, where)))
    return out


def _member_ref(enum: str, member: str) -> str:
    """How a hint names a member: ``Status.Open``, ``Status.'100%'`` for non-identifiers."""
    name = member if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", member) else sql_string(member)
    qualified = enum[len("default::"):] if enum.startswith("default::") else enum
    return f"{qualified}.{name}"


# ------------------------------------------------------------------------------------ the diff
class _Differ:
    def __init__(self, old: Catalog, new: Catalog, hints: Hints, options: DiffOptions, locations=None):
        self.old, self.new, self.hints, self.opt = old, new, hints, options
        self.locations = locations or {}
        self.plan = Plan()
        self.seq = 0

    # -- output helpers
    def emit(self, phase: int, sql: str, stage: str = MAIN, index: Optional[str] = None,
             undo: Optional[str] = None) -> None:
        self.seq += 1
        self.plan.statements.append(Statement(phase, self.seq, sql, stage, index, undo))

    @property
    def safe(self) -> bool:
        """Emit the online sequences for existing tables (every up migration)."""
        return not self.opt.down

    def add_constraint_not_valid(self, nt: TableDef, name: str, body: str, phase: int) -> None:
        """``ADD CONSTRAINT ... NOT VALID`` now (a short lock, no scan: new and updated rows are
        checked at once), ``VALIDATE CONSTRAINT`` in the finishing file (a scan under SHARE UPDATE
        EXCLUSIVE, which blocks neither reads nor writes)."""
        tq = qi(nt.name)
        if self.safe:
            self.emit(phase, f"ALTER TABLE {tq} ADD CONSTRAINT {qi(name)} {body} NOT VALID;")
            self.emit(VALIDATE, f"ALTER TABLE {tq} VALIDATE CONSTRAINT {qi(name)};", FINISH)
        else:
            self.emit(phase, f"ALTER TABLE {tq} ADD CONSTRAINT {qi(name)} {body};")

    def set_not_null(self, nt: TableDef, c: ColumnDef, phase: int = SET_NOT_NULL) -> None:
        """``SET NOT NULL`` on an existing table: a helper ``CHECK (c IS NOT NULL) NOT VALID`` now,
        then in the finishing file ``VALIDATE`` it (no write lock), ``SET NOT NULL`` (Postgres
        skips its scan when a valid CHECK proves it: a brief ACCESS EXCLUSIVE) and drop the helper."""
        tq, cq = qi(nt.name), qi(c.name)
        if not self.safe:
            self.emit(phase, f"ALTER TABLE {tq} ALTER COLUMN {cq} SET NOT NULL;")
            return
        helper = constraint_name("nn", nt.name, c.name)
        self.emit(phase, f"ALTER TABLE {tq} ADD CONSTRAINT {qi(helper)} CHECK ({cq} IS NOT NULL) NOT VALID;")
        self.emit(VALIDATE, f"ALTER TABLE {tq} VALIDATE CONSTRAINT {qi(helper)};", FINISH)
        self.emit(FINISH_NOT_NULL, f"ALTER TABLE {tq} ALTER COLUMN {cq} SET NOT NULL;", FINISH)
        self.emit(FINISH_DROP_HELPER, f"ALTER TABLE {tq} DROP CONSTRAINT IF EXISTS {qi(helper)};", FINISH)
        self.plan.not_null_later.append((nt.name, c.name))
        self.plan.helper_checks.append((nt.name, c.name, helper))

    def lint(self, code: str, message: str, hint: Optional[str] = None) -> None:
        if not self.opt.down:
            self.plan.lints.append(Diagnostic(code, message, None, hint, severity="warning"))

    def error(self, code: str, message: str, hint: Optional[str] = None, span=None) -> None:
        self.plan.errors.append(Diagnostic(code, message, span, hint))

    def _hint_span(self, key):
        return self.hints.spans.get(key)

    def _where(self, origin: str, pointer: Optional[str] = None):
        """The declaration a refused change is about (the type, or its property), if known."""
        return self.locations.get((origin, pointer)) or self.locations.get((origin, None))

    def _stale_hints(self, old_by_origin: Dict[str, TableDef]) -> None:
        """W0005 for rename hints the last migration's schema knows neither name of: a
        misspelled old name (the change it meant is then refused with an error of its own)."""
        if self.opt.down:
            return
        old_origins = {t.origin for t in self.old.tables}
        for old, new in self.hints.type_renames.items():
            if old not in old_origins and new not in old_origins:
                self.plan.lints.append(Diagnostic(
                    "W0005", f"migration hint does not apply: the last migration has no type {self._short(old)}",
                    self._hint_span(("type", old)), "check the old name", severity="warning"))
        for (typ, old), new in self.hints.pointer_renames.items():
            ot = old_by_origin.get(typ)
            if ot is None:
                continue
            pointers = {c.pointer for c in ot.columns}
            join_links = {t.origin.rsplit(".", 1)[1] for t in self.old.tables
                          if is_join_origin(t.origin) and self.new_origin(t.origin.rsplit(".", 1)[0]) == typ}
            if old not in pointers and old not in join_links and new not in pointers and new not in join_links:
                self.plan.lints.append(Diagnostic(
                    "W0005", f"migration hint does not apply: the last migration has no {self._short(typ)}.{old}",
                    self._hint_span(("pointer", typ, old)), "check the old name", severity="warning"))

    def change(self, text: str) -> None:
        self.plan.changes.append(text)

    # -- name mapping
    def new_origin(self, origin: str) -> str:
        if is_join_origin(origin):
            typ, ptr = origin.rsplit(".", 1)
            typ = self.hints.type_renames.get(typ, typ)
            return f"{typ}.{self.hints.pointer_renames.get((typ, ptr), ptr)}"
        return self.hints.type_renames.get(origin, origin)

    @staticmethod
    def _short(origin: str) -> str:
        return origin[len("default::"):] if origin.startswith("default::") else origin

    def run(self) -> Plan:
        old_by_origin: Dict[str, TableDef] = {}
        for t in self.old.tables:
            origin = self.new_origin(t.origin)
            if origin in old_by_origin:
                a, b = old_by_origin[origin], t
                self.error("E0401", f"tables {a.name!r} and {b.name!r} of the last migration would both become "
                           f"{self._short(origin)}", "a rename hint names a type or link whose new name the last "
                           "migration still has; drop or rename that one first, in a migration of its own",
                           self._hint_span(("type", t.origin)) or self._hint_span(("type", a.origin)))
                continue
            old_by_origin[origin] = t
        self._stale_hints(old_by_origin)
        new_by_origin = {t.origin: t for t in self.new.tables}
        self.table_map: Dict[str, str] = {}
        for origin, ot in old_by_origin.items():
            nt = new_by_origin.get(origin)
            if nt is not None:
                self.table_map[ot.name] = nt.name
        pairs: List[Tuple[TableDef, TableDef]] = []
        created: List[TableDef] = []
        for nt in self.new.tables:
            ot = old_by_origin.get(nt.origin)
            if ot is None:
                created.append(nt)
            else:
                pairs.append((ot, nt))
        dropped = [ot for origin, ot in old_by_origin.items() if origin not in new_by_origin]
        self._link_conversions(pairs, created, dropped)
        for ot, nt in pairs:
            self.table(ot, nt)
        self.drop_tables(dropped)
        self.extensions()
        for nt in created:
            self.create_table(nt)
        self.plan.changes = _merge_replacements(self.plan.changes)
        return self.plan

    # -- extensions
    def extensions(self) -> None:
        """``using extension`` added: ``CREATE EXTENSION IF NOT EXISTS`` before the tables and
        columns that may use it; removed: ``DROP EXTENSION IF EXISTS`` once its columns and
        indexes are gone (without CASCADE: an object of another library that still uses it
        stops the migration instead of being dropped). Sorted by name."""
        old, new = set(self.old.extensions), set(self.new.extensions)
        for name in sorted(new - old):
            self.change(f"create extension {name}")
            self.emit(CREATE_EXTENSION, f"CREATE EXTENSION IF NOT EXISTS {qi(name)};")
        for name in sorted(old - new):
            self.change(f"drop extension {name}")
            self.emit(DROP_EXTENSION, f"DROP EXTENSION IF EXISTS {qi(name)};")
        # Sequences of sequence scalars: created before the columns whose defaults use them,
        # dropped after them (https://docs.geldata.com/reference/stdlib/sequence).
        old_seq, new_seq = set(self.old.sequences), set(self.new.sequences)
        for name in sorted(new_seq - old_seq):
            self.change(f"create sequence {name}")
            self.emit(CREATE_SEQUENCE, f"CREATE SEQUENCE IF NOT EXISTS {qi(name)};")
        for name in sorted(old_seq - new_seq):
            self.change(f"drop sequence {name}")
            self.emit(DROP_SEQUENCE, f"DROP SEQUENCE IF EXISTS {qi(name)};")
        # schemac's own functions (the access policy errors' RAISE_FUNCTION): created before the
        # tables, never dropped: every library of the database shares it (CREATE OR REPLACE of
        # the same text), so another library may still call it.
        for name in sorted(set(self.new.functions) - set(self.old.functions)):
            self.change(f"create function {name}")
            self.emit(CREATE_EXTENSION, _SUPPORT_FUNCTIONS[name])
        # Composite types of tuple properties: created before the columns of their type, dropped
        # after them (outer tuples first). A type's name follows from its elements, so a tuple
        # type changed is another composite type.
        old_ct, new_ct = dict(self.old.composites), dict(self.new.composites)
        for name, fields in self.new.composites:
            if name not in old_ct:
                self.change(f"create type {name}")
                attrs = ", ".join(f"{qi(a)} {t}" for a, t in fields)
                self.emit(CREATE_TYPE, f"CREATE TYPE {qi(name)} AS ({attrs});")
        for name, _ in reversed(self.old.composites):
            if name not in new_ct:
                self.change(f"drop type {name}")
                self.emit(DROP_TYPE, f"DROP TYPE IF EXISTS {qi(name)};")

    # -- whole tables
    def create_table(self, t: TableDef) -> None:
        self.change(f"create table {t.name}")
        self.emit(CREATE_TABLE, create_table_sql(t))
        for fk in t.foreign_keys:
            self.emit(ADD_FK, fk_sql(t.name, fk))
        for u in t.uniques:
            if u.is_index:
                self.emit(INDEXES, unique_index_sql(t.name, u))
        for ix in t.indexes:
            self.emit(INDEXES, index_sql(t.name, ix))
        if t.comment is not None:
            self.emit(COMMENT, _comment_sql("TABLE", qi(t.name), t.comment))
        for c in t.columns:
            if c.comment is not None:
                self.emit(COMMENT, _comment_sql("COLUMN", f"{qi(t.name)}.{qi(c.name)}", c.comment))
        for ix in t.indexes:
            if ix.comment is not None:
                self.emit(COMMENT, _comment_sql("INDEX", qi(ix.name), ix.comment))
        for tr in t.triggers:
            self.create_trigger(t, tr)

    # -- triggers
    def create_trigger(self, t: TableDef, tr: TriggerDef) -> None:
        self.change(f"create trigger {t.name}.{tr.name}")
        self.emit(CREATE_TRIGGER, trigger_function_sql(tr))
        self.emit(CREATE_TRIGGER, trigger_sql(t.name, tr))

    def drop_trigger(self, t: TableDef, tr: TriggerDef) -> None:
        """Dropped before anything else happens to the table (renames included: ``t`` is the
        table as the last migration left it)."""
        self.change(f"drop trigger {t.name}.{tr.name}")
        self.emit(DROP_TRIGGER, f"DROP TRIGGER IF EXISTS {qi(tr.name)} ON {qi(t.name)};")
        self.emit(DROP_TRIGGER, f"DROP FUNCTION IF EXISTS {qi(tr.function)}();")

    def triggers(self, ot: TableDef, nt: TableDef) -> None:
        """Triggers of a kept table, matched by name: an unchanged one stays, a changed one is
        dropped and created again, the others are dropped or created."""
        old = {tr.name: tr for tr in ot.triggers}
        new = {tr.name: tr for tr in nt.triggers}
        for tr in ot.triggers:
            if new.get(tr.name) != tr:
                self.drop_trigger(ot, tr)
        for tr in nt.triggers:
            if old.get(tr.name) != tr:
                self.create_trigger(nt, tr)

    def drop_tables(self, dropped: List[TableDef]) -> None:
        names = []
        for t in dropped:
            if t.name in self.converted_join_tables:
                continue
            typ = t.origin
            join = is_join_origin(typ)
            allowed = (self.opt.down or self.opt.allow_destructive or typ in self.hints.dropped_types
                       or (join and tuple(typ.rsplit(".", 1)) in self.hints.dropped_pointers)
                       or (join and typ.rsplit(".", 1)[0] in self.hints.dropped_types))
            kind = "link" if join else "type"
            if not allowed:
                self.error("E0402", f"{kind} {self._short(typ)} was removed: dropping table {t.name!r} deletes its rows",
                           f"if that is intended, add `drop {kind} {self._short(typ)};` to a `migration {{ }}` block "
                           "of the schema (or pass --allow-destructive); if it was renamed, add "
                           f"`rename {kind} ...`", self._where(typ.rsplit(".", 1)[0]) if join else None)
                continue
            self.lint("DS102", f"table {t.name!r} is dropped with its rows")
            for tr in t.triggers:
                self.drop_trigger(t, tr)
            self.change(f"drop table {t.name}")
            names.append(t.name)
        if names:
            self.emit(DROP_TABLE, f"DROP TABLE {', '.join(qi(n) for n in reversed(names))};")

    # -- single <-> multi links
    def _link_conversions(self, pairs, created, dropped) -> None:
        """A single link that became multi (column -> join table) or the reverse: the data is
        copied, never dropped."""
        self.converted_join_tables: Set[str] = set()
        self.converted_columns: Set[Tuple[str, str]] = set()
        self.filled_from_join: Set[Tuple[str, str]] = set()
        by_new = {nt.name: (ot, nt) for ot, nt in pairs}
        for jt in created:  # single -> multi
            if not is_join_origin(jt.origin):
                continue
            typ, ptr = jt.origin.rsplit(".", 1)
            src = next((nt for _, nt in pairs if nt.origin == typ), None)
            if src is None:
                continue
            ot = by_new[src.name][0]
            old_col = next((c for c in ot.columns if self._new_pointer(nt_origin=typ, old_pointer=c.pointer) == ptr
                            and c.name.endswith("_id") and src.column(c.name) is None
                            and not any(x.pointer == ptr for x in src.columns)), None)
            if old_col is None:
                continue
            required = [c.name for c in jt.columns
                        if c.name not in ("source_id", "target_id") and not c.nullable and c.default is None]
            if required and not self.opt.down:
                self.error("E0404", f"single link {self._short(typ)}.{ptr} becomes multi, but its link properties "
                           f"{', '.join(required)} are required without a default: the copied links have no value",
                           "give the link properties a default (or make them optional) for this migration",
                           self._where(typ, ptr))
            self.converted_columns.add((src.name, old_col.name))
            self.change(f"single link {self._short(typ)}.{ptr} becomes multi (rows copied to {jt.name})")
            self.emit(COPY_LINKS, f"INSERT INTO {qi(jt.name)} (\"source_id\", \"target_id\")\n"
                                  f"  SELECT \"id\", {qi(old_col.name)} FROM {qi(src.name)} WHERE {qi(old_col.name)} IS NOT NULL;")
            self.emit(LATE_DROP, f"ALTER TABLE {qi(src.name)} DROP COLUMN {qi(old_col.name)};")
        for jt in dropped:  # multi -> single
            origin = self.new_origin(jt.origin)
            if not is_join_origin(origin):
                continue
            typ, ptr = origin.rsplit(".", 1)
            src = next((nt for _, nt in pairs if nt.origin == typ), None)
            col = next((c for c in src.columns if c.pointer == ptr), None) if src else None
            if src is None or col is None:
                continue
            props = [c.name for c in jt.columns if c.name not in ("source_id", "target_id")]
            lost = [p for p in props if (origin, p) not in self.hints.dropped_pointers]
            if lost and not (self.opt.down or self.opt.allow_destructive):
                self.error("E0402", f"multi link {self._short(typ)}.{ptr} becomes single: the values of its link "
                           f"properties {', '.join(lost)} would be lost",
                           "if that is intended, add " + " ".join(f"`drop property {self._short(origin)}.{p};`"
                                                               for p in lost)
                           + " to a `migration { }` block (or pass --allow-destructive)", self._where(typ, ptr))
            elif props:
                self.lint("DS103", f"the link properties {', '.join(props)} of {self._short(typ)}.{ptr} are dropped "
                          "with its join table")
            self.converted_join_tables.add(jt.name)
            self.filled_from_join.add((src.name, col.name))
            self.change(f"multi link {self._short(typ)}.{ptr} becomes single (rows copied from {jt.name})")
            self.emit(REWRITE, _guard(
                f"EXISTS (SELECT 1 FROM {qi(jt.name)} GROUP BY \"source_id\" HAVING count(*) > 1)",
                f"schemac: {self._short(typ)}.{ptr} becomes a single link, but some objects link to several",
                f"remove the extra rows of {jt.name} first", "23505"))
            self.emit(FILL, f"UPDATE {qi(src.name)} SET {qi(col.name)} = j.\"target_id\"\n"
                            f"  FROM {qi(jt.name)} j WHERE j.\"source_id\" = {qi(src.name)}.\"id\";")
            self.emit(LATE_DROP, f"DROP TABLE {qi(jt.name)};")

    def _new_pointer(self, nt_origin: str, old_pointer: Optional[str]) -> Optional[str]:
        if old_pointer is None:
            return None
        return self.hints.pointer_renames.get((nt_origin, old_pointer), old_pointer)

    # -- one table present before and after
    def table(self, ot: TableDef, nt: TableDef) -> None:
        tq = qi(nt.name)
        if ot.name != nt.name:
            self.emit(RENAME, f"ALTER TABLE {qi(ot.name)} RENAME TO {tq};")
            # Postgres named the primary key after the table (<table>_pkey): keep it so.
            self.emit(RENAME, f"ALTER TABLE {tq} RENAME CONSTRAINT {qi(ot.name + '_pkey')} TO {qi(nt.name + '_pkey')};")
            self.lint("BC101", f"table {ot.name!r} is renamed to {nt.name!r}: a deployed runner of the previous version "
                      "still queries the old name")
            self.change(f"rename table {ot.name} to {nt.name}")
        if tuple(ot.primary_key) != tuple(nt.primary_key) and not self.opt.down:
            self.error("E0404", f"the primary key of {nt.name!r} changes", "declare a new type and copy the data",
                       self._where(nt.origin))
        origin = nt.origin
        old_cols: Dict[str, ColumnDef] = {}
        for c in ot.columns:
            key = self._new_pointer(origin, c.pointer) or c.name
            if key in old_cols:
                self.error("E0401", f"columns {nt.name}.{old_cols[key].name} and {nt.name}.{c.name} of the last "
                           f"migration would both become {key!r}",
                           "a rename hint names a property whose new name the last migration still has; drop or "
                           "rename that one first, in a migration of its own",
                           self._hint_span(("pointer", origin, c.pointer)))
                return
            old_cols[key] = c
        colmap: Dict[str, str] = {}
        pairs: List[Tuple[ColumnDef, ColumnDef]] = []
        for c in nt.columns:
            oc = old_cols.get(c.pointer or c.name)
            if oc is not None and (nt.name, c.name) not in self.converted_columns:
                colmap[oc.name] = c.name
                pairs.append((oc, c))
        self.colmap = colmap
        matched_old = {oc.name for oc, _ in pairs}
        for oc, c in pairs:
            if oc.name != c.name:
                self.emit(RENAME, f"ALTER TABLE {tq} RENAME COLUMN {qi(oc.name)} TO {qi(c.name)};")
                self.lint("BC102", f"column {nt.name}.{oc.name} is renamed to {c.name!r}: a deployed runner of the previous "
                          "version still queries the old name")
                self.change(f"rename column {nt.name}.{oc.name} to {c.name}")
        for oc in ot.columns:
            if oc.name in matched_old or (nt.name, oc.name) in self.converted_columns:
                continue
            ptr = (oc.pointer or oc.name).split("[is ", 1)[0]
            # (a polymorphic link's columns, 'items[is Movie]', go with a drop of the link)
            allowed = (self.opt.down or self.opt.allow_destructive
                       or (origin, ptr) in self.hints.dropped_pointers)
            if not allowed:
                self.error("E0402", f"{self._short(origin)}.{ptr} was removed: dropping column {nt.name}.{oc.name} "
                           "deletes its values",
                           f"if that is intended, add `drop property {self._short(origin)}.{ptr};` to a "
                           "`migration { }` block of the schema (or pass --allow-destructive); if it was renamed, add "
                           f"`rename property {self._short(origin)}.{ptr} to <new name>;`", self._where(origin))
                continue
            self.lint("DS103", f"column {nt.name}.{oc.name} is dropped with its values")
            self.change(f"drop column {nt.name}.{oc.name}")
            self.emit(DROP_COLUMN, f"ALTER TABLE {tq} DROP COLUMN {qi(oc.name)};")
        for c in nt.columns:
            if c.name not in colmap.values():
                self.add_column(nt, c)
        for oc, c in pairs:
            self.alter_column(nt, oc, c)
        self.constraints(ot, nt)
        self.triggers(ot, nt)
        if ot.comment != nt.comment:
            self.emit(COMMENT, _comment_sql("TABLE", tq, nt.comment))
        for oc, c in pairs:
            if oc.comment != c.comment:
                self.emit(COMMENT, _comment_sql("COLUMN", f"{tq}.{qi(c.name)}", c.comment))

    def _type_name(self, nt: TableDef) -> str:
        return self._short(nt.origin)

    def add_column(self, nt: TableDef, c: ColumnDef) -> None:
        tq = qi(nt.name)
        self.change(f"add column {nt.name}.{c.name}")
        fill = self.hints.fills.get((nt.origin, c.pointer or c.name))
        if (nt.name, c.name) in self.filled_from_join:  # multi -> single: filled from the join table
            self.emit(ADD_COLUMN, f"ALTER TABLE {tq} ADD COLUMN {column_sql(replace(c, nullable=True))};")
            if not c.nullable:
                self.set_not_null(nt, c)
            return
        if c.comment is not None:
            self.emit(COMMENT, _comment_sql("COLUMN", f"{tq}.{qi(c.name)}", c.comment))
        if c.default is not None and is_volatile(c.default):
            # ADD COLUMN ... DEFAULT <volatile> rewrites the table under ACCESS EXCLUSIVE. Online:
            # add it without a default, set the default (new rows), fill the existing rows
            # (row locks only), then NOT NULL through a validated CHECK.
            self.lint("LK103", f"column {nt.name}.{c.name} has a volatile default ({c.default}): adding it with the "
                      "default would rewrite the table, so existing rows are filled by an UPDATE instead",
                      "on a large table, consider filling in batches first (a nullable column), then making it required")
            self.emit(ADD_COLUMN, f"ALTER TABLE {tq} ADD COLUMN {column_sql(replace(c, nullable=True, default=None))};")
            self.emit(SET_DEFAULT, f"ALTER TABLE {tq} ALTER COLUMN {qi(c.name)} SET DEFAULT {c.default};")
            self.emit(FILL, f"UPDATE {tq} SET {qi(c.name)} = {c.default} WHERE {qi(c.name)} IS NULL;")
            if not c.nullable:
                self.set_not_null(nt, c)
            return
        if c.nullable or c.default is not None:
            self.emit(ADD_COLUMN, f"ALTER TABLE {tq} ADD COLUMN {column_sql(c)};")
            return
        self.lint("BC105", f"required column {nt.name}.{c.name} has no default: a deployed runner of the previous "
                  f"version inserts {nt.name} rows without it, and they fail",
                  "give the property a default (then no fill is needed either), or deploy the new runners first")
        if fill is None:  # with a fill the existing rows get its value: nothing left to warn about
            self.lint("MF103", f"required column {nt.name}.{c.name} is added without a default",
                      f"existing rows need a value: add `fill {self._type_name(nt)}.{c.pointer} using (...)`")
        self.emit(ADD_COLUMN, f"ALTER TABLE {tq} ADD COLUMN {column_sql(replace(c, nullable=True))};")
        self._fill_and_require(nt, c, fill, "", f"is a new required column, and {nt.name} has rows")

    def _fill_and_require(self, nt: TableDef, c: ColumnDef, fill: Optional[str], where: str, problem: str) -> None:
        """Fill the empty values of ``c`` (``where`` selects them; ``""``: every row of a new
        column) with the ``fill`` hint's value, or stop the migration on the first such row with
        a guard that says which hint to add; then ``SET NOT NULL``."""
        if fill is not None:
            self.emit(FILL, fill_statement(nt, c, fill, where))
        else:
            self.emit(FILL, fill_guard(nt, c, where, problem))
        self.set_not_null(nt, c)

    def alter_column(self, nt: TableDef, oc: ColumnDef, c: ColumnDef) -> None:
        tq, cq = qi(nt.name), qi(c.name)
        type_changes = oc.type != c.type
        if type_changes:
            if oc.type.endswith("[]") and not c.type.endswith("[]") and not self.opt.down:
                self.error("E0404", f"column {nt.name}.{c.name} changes from an array ({oc.type}) to a single value "
                           f"({c.type}): values would be lost", "add a new property and copy what you need",
                           self._where(nt.origin, c.pointer))
                return
            hinted = (nt.origin, c.pointer) in self.hints.casts
            if not (hinted or self.opt.down or (oc.type, c.type) in WIDENING or c.type == f"{oc.type}[]"):
                self.error("E0403", f"column {nt.name}.{c.name} changes type from {oc.type} to {c.type}",
                           f"if existing values should be converted with a Postgres cast, add "
                           f"`cast {self._type_name(nt)}.{c.pointer};` to a `migration {{ }}` block of the schema",
                           self._where(nt.origin, c.pointer))
                return
            if oc.default is not None:
                self.emit(DROP_DEFAULT, f"ALTER TABLE {tq} ALTER COLUMN {cq} DROP DEFAULT;")
            if c.type == f"{oc.type}[]":  # single -> multi / array of it: a one-element array
                using = f"CASE WHEN {cq} IS NULL THEN '{{}}'::{c.type} ELSE ARRAY[{cq}] END"
            elif oc.type == f"{c.type}[]":  # the down of that: the first element
                using = f"{cq}[1]"
            else:
                using = f"{cq}::{c.type}"
            self.emit(ALTER_TYPE, f"ALTER TABLE {tq} ALTER COLUMN {cq} TYPE {c.type} USING {using};")
            if (oc.type, c.type) not in WIDENING and c.type != f"{oc.type}[]":
                self.lint("MF105", f"column {nt.name}.{c.name} is cast from {oc.type} to {c.type}")
                self.lint("BC104", f"column {nt.name}.{c.name} changes from {oc.type} to {c.type}: a deployed runner of "
                          "the previous version sends and reads the old type", "add a new property instead, and drop "
                          "the old one once no deployed runner uses it")
            self.lint("LK102", f"changing the type of {nt.name}.{c.name} rewrites {nt.name}")
            self.change(f"change type of {nt.name}.{c.name} to {c.type}")
        if oc.default != c.default or (type_changes and oc.default is not None):
            if c.default is None:
                if not type_changes:
                    self.emit(DROP_DEFAULT, f"ALTER TABLE {tq} ALTER COLUMN {cq} DROP DEFAULT;")
            else:
                self.emit(SET_DEFAULT, f"ALTER TABLE {tq} ALTER COLUMN {cq} SET DEFAULT {c.default};")
            self.change(f"change default of {nt.name}.{c.name}")
        if oc.nullable and not c.nullable and type_changes and c.type == f"{oc.type}[]":
            self.set_not_null(nt, c)  # the CASE left no NULL
        elif oc.nullable and not c.nullable:
            self.change(f"make {nt.name}.{c.name} required")
            if c.default is None:
                self.lint("BC105", f"column {nt.name}.{c.name} becomes required without a default: a deployed runner "
                          "of the previous version that leaves it empty fails", "give the property a default")
            fill = None if self.opt.down else self.hints.fills.get((nt.origin, c.pointer or c.name))
            if fill is None:  # with a fill the empty values get its value: nothing left to warn about
                self.lint("MF104", f"column {nt.name}.{c.name} becomes required",
                          f"rows where it is empty stop the migration: add `fill {self._type_name(nt)}.{c.pointer} using (...)`")
            self._fill_and_require(nt, c, fill, f" WHERE {cq} IS NULL",
                                   "becomes required, but some rows have no value")
        elif not oc.nullable and c.nullable:
            self.change(f"make {nt.name}.{c.name} optional")
            self.emit(DROP_NOT_NULL, f"ALTER TABLE {tq} ALTER COLUMN {cq} DROP NOT NULL;")
        if c.enum is not None:
            self.enum_values(nt, oc, c)

    def enum_values(self, nt: TableDef, oc: ColumnDef, c: ColumnDef) -> None:
        """Rewrite renamed/mapped members; stop on rows that use a removed one."""
        enum = c.enum
        old_members = self.old.enums.get(oc.enum or "", ())
        new_members = self.new.enums.get(enum or "", ())
        renames = {**self.hints.member_maps.get(enum, {}), **self.hints.member_renames.get(enum, {})}
        tq, cq = qi(nt.name), qi(c.name)
        for old, new in renames.items():
            if old in old_members and new in new_members:
                self.lint("BC103", f"enum member {old!r} of {nt.name}.{c.name} becomes {new!r}: a deployed runner of "
                          f"the previous version still sends {old!r}, which the new CHECK refuses",
                          "deploy runners that no longer use it first, or keep the old member until they are gone")
                if c.array:
                    self.emit(REWRITE, f"UPDATE {tq} SET {cq} = array_replace({cq}, {sql_string(old)}, {sql_string(new)})"
                                       f" WHERE {sql_string(old)} = ANY({cq});")
                else:
                    self.emit(REWRITE, f"UPDATE {tq} SET {cq} = {sql_string(new)} WHERE {cq} = {sql_string(old)};")
                self.change(f"rewrite {nt.name}.{c.name} {old} -> {new}")
        removed = [m for m in old_members if m not in new_members and m not in renames]
        for m in removed:
            self.lint("BC103", f"enum member {m!r} of {nt.name}.{c.name} is removed: a deployed runner of the previous "
                      f"version that still sends it fails the new CHECK",
                      "deploy runners that no longer use it first")
            self.lint("DS104", f"enum member {m!r} is removed; rows of {nt.name} that use it stop the migration",
                      f"to move them to another member add `map member {_member_ref(enum, m)} to <member>;`")
            cond = f"{sql_string(m)} = ANY({cq})" if c.array else f"{cq} = {sql_string(m)}"
            self.emit(REWRITE, _guard(
                f"EXISTS (SELECT 1 FROM {tq} WHERE {cond})",
                f"schemac: enum member {m} was removed, but rows of {nt.name}.{c.name} still use it",
                f"add `map member {_member_ref(enum, m)} to <member>;` to the schema's migration block, "
                "then generate this migration again (see docs/migrations.md, 'When a migration fails')", "23514"))

    # -- constraints and indexes of a kept table
    def constraints(self, ot: TableDef, nt: TableDef) -> None:
        tq = qi(nt.name)
        cm = self.colmap
        mapped = lambda sql: rename_identifiers(sql, cm) if sql is not None else None  # noqa: E731

        def match(old_items, new_items, key_old, key_new, drop, add, rename_sql, label):
            used: Set[int] = set()
            for n in new_items:
                hit = None
                for i, o in enumerate(old_items):
                    if i not in used and key_old(o) == key_new(n) and (o.name == n.name or hit is None):
                        hit = i
                        if o.name == n.name:
                            break
                if hit is None:
                    add(n)
                else:
                    used.add(hit)
                    o = old_items[hit]
                    if o.name != n.name:
                        self.emit(RENAME, rename_sql(o.name, n.name))
                        self.change(f"rename {label} {o.name} to {n.name}")
            for i, o in enumerate(old_items):
                if i not in used:
                    drop(o)

        # CHECK constraints
        def add_check(ck):
            self.add_constraint_not_valid(nt, ck.name, f"CHECK ({ck.expression})", ADD_CHECK)
            self.lint("MF106", f"check {ck.name!r} is added to {nt.name}: existing rows are validated")
            self.change(f"add check {ck.name}")

        def drop_constraint(phase):
            def f(x):
                self.emit(phase, f"ALTER TABLE {tq} DROP CONSTRAINT {qi(x.name)};")
                self.change(f"drop constraint {x.name}")
            return f

        match(list(ot.checks), list(nt.checks), lambda o: mapped(o.expression), lambda n: n.expression,
              drop_constraint(DROP_CHECK), add_check,
              lambda a, b: f"ALTER TABLE {tq} RENAME CONSTRAINT {qi(a)} TO {qi(b)};", "constraint")

        # UNIQUE constraints and partial unique indexes
        def ukey_old(u):
            return (tuple(cm.get(c, c) for c in u.columns), mapped(u.predicate),
                    tuple(rename_identifiers(k, cm) for k in u.keys))

        def ukey_new(u):
            return (tuple(u.columns), u.predicate, tuple(u.keys))

        def add_unique(u):
            self.change(f"add exclusive {u.name}")
            self.lint("MF101", f"unique {u.name!r} is added to {nt.name}: it fails if rows are duplicates")
            if not u.is_index and self.opt.online_indexes and self.safe:
                # A unique index built concurrently, then made the constraint (a brief lock).
                self._index(nt, u.name, lambda conc: unique_index_sql(nt.name, u, conc))
                self.emit(ATTACH_UNIQUE, f"ALTER TABLE {tq} ADD CONSTRAINT {qi(u.name)} UNIQUE USING INDEX {qi(u.name)};",
                          FINISH)
            elif not u.is_index:
                self.emit(ADD_UNIQUE, f"ALTER TABLE {tq} ADD CONSTRAINT {qi(u.name)} UNIQUE "
                                      f"({', '.join(qi(c) for c in u.columns)});")
                if not self.opt.down:
                    self.lint("LK101", f"unique {u.name!r} is built on {nt.name} without CONCURRENTLY: writes wait "
                              "until it is built", "leave online_indexes on to build it concurrently")
            else:
                self._index(nt, u.name, lambda conc: unique_index_sql(nt.name, u, conc))

        def drop_unique(u):
            self.change(f"drop exclusive {u.name}")
            if not u.is_index:
                self.emit(DROP_UNIQUE, f"ALTER TABLE {tq} DROP CONSTRAINT {qi(u.name)};")
            else:
                self._drop_index(ot, u.name, lambda conc: unique_index_sql(ot.name, u, conc))

        old_u = {True: [u for u in ot.uniques if u.is_index], False: [u for u in ot.uniques if not u.is_index]}
        new_u = {True: [u for u in nt.uniques if u.is_index], False: [u for u in nt.uniques if not u.is_index]}
        match(old_u[False], new_u[False], ukey_old, ukey_new, drop_unique, add_unique,
              lambda a, b: f"ALTER TABLE {tq} RENAME CONSTRAINT {qi(a)} TO {qi(b)};", "constraint")
        match(old_u[True], new_u[True], ukey_old, ukey_new, drop_unique, add_unique,
              lambda a, b: f"ALTER INDEX {qi(a)} RENAME TO {qi(b)};", "index")

        # Foreign keys
        def fkey_old(f):
            return (cm.get(f.column, f.column), self.table_map.get(f.target, f.target), f.on_delete)

        def fkey_new(f):
            return (f.column, f.target, f.on_delete)

        def add_fk(f):
            self.add_constraint_not_valid(nt, f.name, fk_body(f), ADD_FK)
            self.lint("MF106", f"foreign key {f.name!r} is added to {nt.name}: existing rows are validated")
            self.change(f"add foreign key {f.name}")

        match(list(ot.foreign_keys), list(nt.foreign_keys), fkey_old, fkey_new, drop_constraint(DROP_FK), add_fk,
              lambda a, b: f"ALTER TABLE {tq} RENAME CONSTRAINT {qi(a)} TO {qi(b)};", "constraint")

        # Plain indexes
        def ikey_old(i):
            return (tuple(rename_identifiers(k, cm) for k in i.keys), i.method, mapped(i.predicate), i.storage)

        def ikey_new(i):
            return (tuple(i.keys), i.method, i.predicate, i.storage)

        def add_index(i):
            self.change(f"add index {i.name}")
            self._index(nt, i.name, lambda conc: index_sql(nt.name, i, conc))
            if i.comment is not None:
                self.emit(COMMENT, _comment_sql("INDEX", qi(i.name), i.comment))

        def drop_index(i):
            self.change(f"drop index {i.name}")
            self._drop_index(ot, i.name, lambda conc: index_sql(ot.name, i, conc))

        match(list(ot.indexes), list(nt.indexes), ikey_old, ikey_new, drop_index, add_index,
              lambda a, b: f"ALTER INDEX {qi(a)} RENAME TO {qi(b)};", "index")
        old_comments = {i.name: i.comment for i in ot.indexes}
        for i in nt.indexes:
            if i.name in old_comments and old_comments[i.name] != i.comment:
                self.emit(COMMENT, _comment_sql("INDEX", qi(i.name), i.comment))

    def _index(self, nt: TableDef, name: str, sql) -> None:
        if self.opt.online_indexes and self.safe:
            self.emit(INDEXES, sql(True), ONLINE, index=name,
                      undo=f"DROP INDEX CONCURRENTLY IF EXISTS {qi(name)};")
        else:
            if not self.opt.down:
                self.lint("LK101", f"index {name!r} is built on {nt.name} without CONCURRENTLY: writes wait until "
                          "it is built", "leave online_indexes on (the default) to build indexes concurrently, "
                          "in migrations of their own")
            self.emit(INDEXES, sql(False))

    def _drop_index(self, ot: TableDef, name: str, create_sql) -> None:
        """Drop an index of an existing table: ``DROP INDEX CONCURRENTLY`` in a no-transaction
        file before the main one (its down builds it again concurrently)."""
        if self.opt.online_indexes and self.safe:
            self.emit(DROP_INDEX, f"DROP INDEX CONCURRENTLY IF EXISTS {qi(name)};", PRE, index=name,
                      undo=create_sql(True))
        else:
            self.emit(DROP_INDEX, f"DROP INDEX IF EXISTS {qi(name)};")


def _merge_replacements(changes: List[str]) -> List[str]:
    """``drop constraint X`` + ``add check X`` -> ``change check X`` (same for exclusives,
    indexes and foreign keys re-created under the same name)."""
    added = {}
    for c in changes:
        for kind in ("check", "exclusive", "index", "foreign key"):
            if c.startswith(f"add {kind} "):
                added[c[len(f"add {kind} "):]] = kind
    out: List[str] = []
    for c in changes:
        name = c.split(" ", 2)[-1]
        if c.startswith(("drop constraint ", "drop exclusive ", "drop index ")) and name in added:
            continue
        if c.startswith("add ") and any(c == f"add {k} {name}" for k in ("check", "exclusive", "index", "foreign key")) \
                and any(d.split(" ", 2)[-1] == name and d.startswith("drop ") for d in changes):
            out.append(f"change {added[name]} {name}")
            continue
        out.append(c)
    return out


def diff(old: Catalog, new: Catalog, hints: Optional[Hints] = None, options: DiffOptions = DiffOptions(),
         locations: Optional[Dict[Tuple[str, Optional[str]], object]] = None) -> Plan:
    """Plan the statements that turn ``old`` into ``new``. Never raises for a refused change:
    refused changes are ``Plan.errors`` (E0401 two old names becoming one, E0402 destructive
    without a drop hint, E0403 type change without a cast hint, E0404 not possible safely);
    lints are ``Plan.lints``. ``locations`` (``{(type qualname, pointer or None): Span}``, see
    :func:`locations_of`) puts refusals at the declaration they are about."""
    return _Differ(old, new, hints or Hints(), options, locations).run()


def locations_of(schema) -> Dict[Tuple[str, Optional[str]], object]:
    """``{(origin, None): type span, (origin, pointer): property span}`` of a resolved schema."""
    out: Dict[Tuple[str, Optional[str]], object] = {}
    for t in schema.all_tables():
        origin = origin_of(t)
        out[(origin, None)] = t.span
        for c in t.columns:
            out[(origin, c.link or c.name)] = c.span
    return out


# The frozen dataclasses above are created in bulk: give them the faster __init__.
fast_init_all(globals())
