"""Helpers for the migration tests: a library in a temporary directory whose schema is rewritten
step by step, migrations generated with the compiler core and applied with the apply runner,
and a catalog read back from Postgres for comparisons."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from schemac.semantics.library import Options
from schemac.pipeline import check_library
from schemac.diagnostics import CompileError
from schemac.migrate.apply import apply
from schemac.migrate.catalog import catalog_of
from schemac.migrate.diff import DiffOptions, locations_of
from schemac.migrate.history import History, next_migration, split_statements


class Lib:
    """A library ``lib`` under ``root``: ``schema.esdl`` and ``migrations/``."""

    def __init__(self, root: Path, name: str = "lib"):
        self.name = name
        self.dir = root / name
        self.migrations = self.dir / "migrations"
        self.migrations.mkdir(parents=True, exist_ok=True)

    def sources(self) -> Dict[str, str]:
        out = {f"{self.name}/schema.esdl": (self.dir / "schema.esdl").read_text()}
        for f in sorted(self.migrations.iterdir()):
            out[f"{self.name}/migrations/{f.name}"] = f.read_text()
        return out

    def history(self) -> History:
        return History.from_sources(self.sources()) or History(f"{self.name}/migrations")

    def generate(self, schema: str, name: Optional[str] = None, squawk_expect: Tuple[str, ...] = (), **opts):
        """Write ``schema`` and generate the next migration; returns ``Generated`` (or None).
        Raises CompileError for schema errors; files are written only when the plan is clean.
        Every migration file written is linted with squawk (see squawk_lint.py): a warning
        fails the test unless its rule is in ``squawk_expect`` (an unsafe form asked for)."""
        (self.dir / "schema.esdl").write_text(schema)
        lib = check_library(self.sources(), Options(library=self.name))
        history = History.from_sources(self.sources()) or History(f"{self.name}/migrations")
        assert history.verify() == []
        gen = next_migration(self.name, history, catalog_of(lib.schema), lib.hints, DiffOptions(**opts), name,
                             locations_of(lib.schema))
        if gen is not None and not gen.plan.errors:
            for fname, text in gen.files.items():
                (self.migrations / fname).write_text(text)
            _squawk([self.migrations / f for f in gen.files if f.endswith(".sql")], squawk_expect)
            corpus = os.environ.get("SCHEMAC_SQUAWK_CORPUS")
            if corpus:
                import uuid

                d = Path(corpus) / uuid.uuid4().hex[:12]
                d.mkdir(parents=True)
                for fname, text in gen.files.items():
                    if fname.endswith(".sql"):
                        (d / fname).write_text(text)
        return gen

    def save(self) -> Dict[str, str]:
        """The history's files (to :meth:`restore` them, as ``git checkout`` would)."""
        return {f.name: f.read_text() for f in self.migrations.iterdir()}

    def restore(self, saved: Dict[str, str]) -> None:
        for f in self.migrations.iterdir():
            f.unlink()
        for name, text in saved.items():
            (self.migrations / name).write_text(text)

    def _files(self, versions, direction: str) -> List[str]:
        vs = [versions] if isinstance(versions, int) else list(versions)
        out = [f.read_text() for v in vs for f in sorted(self.migrations.glob(f"{v:06d}_*.{direction}.sql"))]
        return out if direction == "up" else out[::-1]

    def up_sql(self, versions) -> str:
        """The up files of a version (or of a range of versions, in order), joined."""
        return "\n".join(self._files(versions, "up"))

    def down_sql(self, versions) -> str:
        """The down files of a version (or of a range of versions, newest first), joined."""
        return "\n".join(self._files(versions, "down"))

    def run_files(self, conn, versions, direction: str) -> None:
        """Run the up (or down) files of ``versions`` on ``conn`` (autocommit) one statement at a
        time, as the runner does (a no-transaction file cannot be sent with others)."""
        for text in self._files(versions, direction):
            for stmt in split_statements(text):
                conn.execute(stmt)

    def apply(self, url: str):
        return apply(url, self.history())


def _squawk(paths, expect: Tuple[str, ...]) -> None:
    from squawk_lint import lint, squawk_binary

    if squawk_binary() is None:
        if os.environ.get("SCHEMAC_TESTS_RUN") == "1":
            raise AssertionError("squawk is not installed (tests/run installs it with tests/squawk/setup)")
        return
    unexpected = [w for w in lint(paths) if w[1] not in expect]
    assert not unexpected, "squawk warns about generated migrations:\n" + "\n".join(
        f"{where}: {rule} {msg}" for where, rule, msg in unexpected)


def codes(diags) -> List[str]:
    return [d.code for d in diags]


def compile_errors(fn) -> List[str]:
    try:
        fn()
    except CompileError as e:
        return [d.code for d in e.diagnostics]
    raise AssertionError("no CompileError")


_HISTORY_TABLES = ("schemac_migrations", "schema_migrations")


def db_catalog(conn) -> Dict[str, object]:
    """What Postgres says the public schema is: tables with columns (type, NOT NULL, default),
    constraints (pg_get_constraintdef), indexes (pg_get_indexdef), comments and triggers
    (pg_get_triggerdef); the functions of the public schema that no extension owns (pg_get_functiondef). History tables
    of the runners are left out."""
    out: Dict[str, object] = {}
    tables = [r[0] for r in conn.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY 1").fetchall()]
    for t in tables:
        if t in _HISTORY_TABLES:
            continue
        oid = conn.execute("SELECT %s::regclass::oid", (f'"{t}"',)).fetchone()[0]
        cols = conn.execute(
            "SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, "
            "pg_get_expr(d.adbin, d.adrelid), col_description(a.attrelid, a.attnum) "
            "FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum "
            "WHERE a.attrelid = %s AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attname", (oid,)).fetchall()
        cons = conn.execute("SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = %s "
                            "ORDER BY 1", (oid,)).fetchall()
        idx = conn.execute("SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid), "
                           "obj_description(indexrelid, 'pg_class') FROM pg_index WHERE indrelid = %s ORDER BY 1",
                           (oid,)).fetchall()
        comment = conn.execute("SELECT obj_description(%s, 'pg_class')", (oid,)).fetchone()[0]
        triggers = conn.execute("SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = %s "
                                "AND NOT tgisinternal ORDER BY 1", (oid,)).fetchall()
        out[t] = {"columns": cols, "constraints": cons, "indexes": idx, "comment": comment}
        if triggers:
            out[t]["triggers"] = triggers
    functions = conn.execute(
        "SELECT p.proname, pg_get_functiondef(p.oid) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
        "WHERE n.nspname = 'public' AND p.prokind = 'f' AND NOT EXISTS (SELECT 1 FROM pg_depend d "
        "WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e') ORDER BY 1, 2").fetchall()
    if functions:
        out[" functions"] = functions  # (a name no table has)
    return out
