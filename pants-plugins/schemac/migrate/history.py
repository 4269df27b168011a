"""A library's committed migration history (``<library>/migrations/``) and how it grows.

The directory holds golang-migrate files (``000002_add_priority.up.sql`` /
``.down.sql``, https://github.com/golang-migrate/migrate/blob/master/MIGRATIONS.md), the
snapshot of the schema after the latest migration (``snapshot.json``, see
:mod:`schemac.migrate.catalog`) and ``schemac.sum``: one line per file, in version order, whose
hash covers that file *and every line above it* (a chain, like ``atlas.sum``), so editing,
inserting, removing or reordering a file is detected.

A migration whose statements cannot run in a transaction (``CREATE INDEX CONCURRENTLY``) is a
file of its own whose first lines include :data:`NO_TRANSACTION_MARKER`.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import posixpath
import re
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Tuple

from schemac.diagnostics import Diagnostic, Span
from schemac.migrate.catalog import Catalog, SnapshotError, dump_snapshot, load_snapshot
from schemac.migrate.diff import FINISH, MAIN, ONLINE, PRE, DiffOptions, Plan, diff
from schemac.semantics.migration_hints import Hints
from schemac.render import render
from schemac.semantics.sqlnames import qi

MIGRATIONS_DIR = "migrations"
SNAPSHOT_FILE = "snapshot.json"
SUM_FILE = "schemac.sum"
MIGRATION_FILE = re.compile(r"^(\d+)_([A-Za-z0-9_]+)\.(up|down)\.sql$")
NO_TRANSACTION_MARKER = "-- schemac:no-transaction"
VERSION_WIDTH = 6
_SUM_HEADER = (
    "# schemac migration checksums. Each line's hash covers its file and every line above it, so an\n"
    "# edited, inserted, removed or reordered file breaks the chain. Written by generate-migrations;\n"
    "# do not edit.\n"
)


def is_history_path(path: str) -> bool:
    """Whether ``path`` is a file of a migration history (a file directly in a ``migrations/``
    directory: migrations, snapshot, checksums)."""
    parent = posixpath.basename(posixpath.dirname(path))
    name = posixpath.basename(path)
    return parent == MIGRATIONS_DIR and (bool(MIGRATION_FILE.match(name)) or name in (SNAPSHOT_FILE, SUM_FILE))


@dataclass
class History:
    """The files of one history directory, by file name. ``directory``: its path as given
    (used in diagnostics)."""

    directory: str
    migrations: Dict[str, str] = field(default_factory=dict)
    snapshot: Optional[str] = None
    sums: Optional[str] = None

    @classmethod
    def from_sources(cls, sources: Mapping[str, str]) -> Optional["History"]:
        """The history among a library's source files, or ``None`` when it has none."""
        files = {p: t for p, t in sources.items() if is_history_path(p)}
        if not files:
            return None
        directory = posixpath.dirname(sorted(files)[0])
        h = cls(directory)
        for path, text in files.items():
            name = posixpath.basename(path)
            if name == SNAPSHOT_FILE:
                h.snapshot = text
            elif name == SUM_FILE:
                h.sums = text
            else:
                h.migrations[name] = text
        return h

    @classmethod
    def from_directory_files(cls, directory: str, files: Mapping[str, str]) -> "History":
        """The history held by ``files`` (``{file name: text}``) of ``directory``, whatever that
        directory is called (``migrations/``, ``db/``, an export's ``sql/``); other names
        (``schema.sql``) are ignored."""
        h = cls(directory)
        for name, text in files.items():
            if name == SNAPSHOT_FILE:
                h.snapshot = text
            elif name == SUM_FILE:
                h.sums = text
            elif MIGRATION_FILE.match(name):
                h.migrations[name] = text
        return h

    def path(self, name: str) -> str:
        return posixpath.join(self.directory, name) if self.directory else name

    def ordered(self) -> List[str]:
        """Migration file names in version order (down before up within a version)."""
        return sorted(self.migrations, key=_version_key)

    @property
    def last_version(self) -> int:
        return max((int(MIGRATION_FILE.match(n).group(1)) for n in self.migrations), default=0)  # type: ignore[union-attr]

    def catalog(self) -> Catalog:
        """The catalog after the latest migration (empty for an empty history). Raises
        :class:`SnapshotError`."""
        if self.snapshot is None:
            if self.migrations:
                raise SnapshotError(f"{SNAPSHOT_FILE} is missing")
            return Catalog()
        return load_snapshot(self.snapshot)

    def verify(self, snapshot_optional: bool = False) -> List[Diagnostic]:
        """Check the chain in ``schemac.sum`` against the files: E0405 for each problem.
        ``snapshot_optional``: a history without ``snapshot.json`` is checked up to its last
        migration (the chain is a prefix chain; the runner needs the migrations only, and the
        exported ``sql/`` directory has no snapshot)."""
        problems: List[Diagnostic] = []
        sum_path = self.path(SUM_FILE)
        if self.sums is None:
            if self.migrations or self.snapshot is not None:
                problems.append(Diagnostic("E0405", f"{SUM_FILE} is missing from {self.directory or '.'}",
                                           None, "restore it from version control"))
            return problems
        recorded = _parse_sums(self.sums)
        if snapshot_optional and self.snapshot is None and recorded and recorded[-1][0] == SNAPSHOT_FILE:
            recorded = recorded[:-1]
        expected = _chain(self._chain_items())
        names_r = [n for n, _, _ in recorded]
        names_e = [n for n, _ in expected]
        for name in names_e:
            if name not in names_r:
                problems.append(Diagnostic("E0405", f"{name} is not recorded in {SUM_FILE}",
                                           Span.point(self.path(name), 1, 1),
                                           "migrations are added by generate-migrations, not by hand"))
        for name, line, _ in recorded:
            if name not in names_e:
                problems.append(Diagnostic("E0405", f"{name} is recorded in {SUM_FILE} but missing",
                                           Span.point(sum_path, line, 1), "restore it from version control"))
        if problems:
            return problems
        if names_r != names_e:
            problems.append(Diagnostic("E0405", f"the files recorded in {SUM_FILE} are out of order",
                                       Span.point(sum_path, recorded[0][1], 1), "restore it from version control"))
            return problems
        for (name, line, got), (_, want) in zip(recorded, expected):
            if got != want:
                problems.append(Diagnostic(
                    "E0405", f"{name} was changed after it was generated (its checksum no longer matches)",
                    Span.point(self.path(name), 1, 1),
                    "applied migrations are immutable: restore the file, and put new changes in a new migration "
                    "(generate-migrations)"))
                break
        return problems

    def _chain_items(self) -> List[Tuple[str, str]]:
        items = [(n, self.migrations[n]) for n in self.ordered()]
        if self.snapshot is not None:
            items.append((SNAPSHOT_FILE, self.snapshot))
        return items


def _version_key(name: str):
    m = MIGRATION_FILE.match(name)
    assert m is not None
    return (int(m.group(1)), m.group(2), m.group(3))


def _chain(items: List[Tuple[str, str]]) -> List[Tuple[str, str]]:
    out: List[Tuple[str, str]] = []
    prev = b""
    for name, text in items:
        h = hashlib.sha256()
        h.update(prev)
        h.update(name.encode("utf-8") + b"\0")
        h.update(hashlib.sha256(text.encode("utf-8")).digest())
        prev = h.digest()
        out.append((name, "h1:" + base64.b64encode(prev).decode("ascii")))
    return out


def _parse_sums(text: str) -> List[Tuple[str, int, str]]:
    out = []
    for i, line in enumerate(text.split("\n"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split()
        out.append((parts[0], i, parts[1] if len(parts) > 1 else ""))
    return out


def sum_file(items: List[Tuple[str, str]]) -> str:
    """The text of ``schemac.sum`` for ``(file name, text)`` items in chain order."""
    return _SUM_HEADER + "".join(f"{name} {h}\n" for name, h in _chain(items))


_STATEMENT_TOKEN = re.compile(
    r"--[^\n]*|/\*.*?\*/|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|(\$[A-Za-z_0-9]*\$)|;|[^-/'\";$]+|.", re.S)


def split_statements(sql: str) -> List[str]:
    """The statements of a migration file, each without its ``;`` and surrounding blank space
    (comments, quoted strings and identifiers and dollar-quoted bodies such as ``DO $x$ ...
    $x$`` are kept whole). The runner sends them one by one: a multi-statement query string is
    an implicit transaction in Postgres, where ``CREATE INDEX CONCURRENTLY`` is refused."""
    out: List[str] = []
    cur: List[str] = []
    pos = 0
    while pos < len(sql):
        m = _STATEMENT_TOKEN.match(sql, pos)
        assert m is not None
        tok = m.group(0)
        pos = m.end()
        if m.group(1):  # a dollar quote: everything up to the same tag
            end = sql.find(tok, pos)
            end = len(sql) if end < 0 else end + len(tok)
            tok, pos = sql[m.start():end], end
        if tok == ";":
            _flush_statement(cur, out)
            cur = []
        else:
            cur.append(tok)
    _flush_statement(cur, out)
    return out


def _flush_statement(parts: List[str], out: List[str]) -> None:
    text = "".join(parts).strip()
    while text.startswith("--"):  # leading comment lines (the file's header) are not sent
        text = text.partition("\n")[2].lstrip()
    # A statement made of comments only is no statement.
    if re.sub(r"--[^\n]*|/\*.*?\*/|\s+", "", text, flags=re.S):
        out.append(text)


def checksum(text: str) -> str:
    """The checksum the apply runner records per migration file (sha256, hex)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ------------------------------------------------------------------------------- generating
def slug_of(changes: List[str]) -> str:
    """A file-name slug from the change list: ``add column job.priority`` ->
    ``add_column_job_priority``; several changes -> the first one + ``_and_more``; at most 48
    characters before that suffix, cut between whole words."""
    if not changes:
        return "migration"
    # Whole words only: a word is a run of letters, digits and `_` (a table or column name such
    # as `licence_number` is one word), so a long change is cut between words, never inside
    # one (`rename column driver.license_no to licence_number` -> not `..._to_licence`).
    words = [w.strip("_") for w in re.split(r"[^a-z0-9_]+", changes[0].lower())]
    words = [w for w in words if w]
    first, kept = "", 0
    for w in words:
        candidate = f"{first}_{w}" if first else w
        if len(candidate) > 48 and first:
            break
        first, kept = candidate, kept + 1
    if kept < len(words):  # cut: not ending on a connective (`..._license_no_to`)
        while kept > 1 and words[kept - 1] in ("to", "of", "on", "in", "and", "from", "for", "with"):
            kept -= 1
        first = "_".join(words[:kept])
    first = first[:48].strip("_") or "migration"  # one word longer than the limit
    return first + ("_and_more" if len(changes) > 1 else "")


SETTINGS_MARKER = "-- schemac:set "
_INTERVAL = re.compile(r"^(0|[1-9][0-9]*(us|ms|s|min|h|d)?)$")


def check_timeout(value: str) -> Optional[str]:
    """``None`` when ``value`` is a timeout Postgres reads (``0``, ``5s``, ``250ms``, ``1min``),
    else what is wrong with it."""
    if _INTERVAL.match(value):
        return None
    return f"{value!r} is not a timeout (write a number with a unit: 250ms, 5s, 1min, 2h; 0 for none)"


def _settings(options: DiffOptions, statement_timeout: Optional[str] = None) -> List[Tuple[str, str]]:
    return [("lock_timeout", options.lock_timeout),
            ("statement_timeout", options.statement_timeout if statement_timeout is None else statement_timeout)]


def render_file(library: str, base: str, direction: str, description: str, statements: List[str],
                notes: List[str] = (), no_transaction: bool = False,  # type: ignore[assignment]
                settings: List[Tuple[str, str]] = ()) -> str:  # type: ignore[assignment]
    """One migration file: the generated-code header, notes as comments, the statements.
    ``settings`` (``lock_timeout``, ``statement_timeout``) come first: as ``SET LOCAL`` in a
    transactional file (they end with its transaction, also under golang-migrate, which runs a
    file as one implicit transaction); as ``-- schemac:set`` header lines in a no-transaction
    file, which must hold its one statement alone (a multi-statement query is an implicit
    transaction, where CONCURRENTLY is refused): the schemac runner sets them for that file."""
    if no_transaction:
        notes_ = [*notes]
        header = [f"{SETTINGS_MARKER}{k} = '{v}'" for k, v in settings]
        body = statements
    else:
        notes_ = [*notes]
        header = []
        body = [f"SET LOCAL {k} = '{v}';" for k, v in settings] + list(statements) if statements else []
    return render("migrate/templates/migration.sql.j2", library=library, base=base, direction=direction, description=description,
                  notes=notes_, statements=body, no_transaction=no_transaction, header=header)


def _up_and_down(library: str, base: str, initial: bool, up: List[str], down: List[str],
                 changes: List[str], options: DiffOptions = DiffOptions()) -> Dict[str, str]:
    """The ``.up.sql`` and ``.down.sql`` files of one migration (the first one says it creates
    the tables; later ones list their changes)."""
    return {
        f"{base}.up.sql": render_file(library, base, "up",
                                      "creates the library's tables." if initial else "the changes listed below.",
                                      up, [] if initial else changes, settings=_settings(options)),
        f"{base}.down.sql": render_file(library, base, "down",
                                        "drops what the up migration created." if initial else f"reverts {base}.up.sql.",
                                        down, settings=_settings(options)),
    }


@dataclass
class Generated:
    """What :func:`next_migration` produced: ``files`` (``{file name: text}`` to write into the
    history directory, including the new snapshot and ``schemac.sum``), the up plan (its lints
    and changes) and the new version numbers."""

    files: Dict[str, str]
    plan: Plan
    versions: List[str]


def next_migration(library: str, history: History, current: Catalog, hints: Hints,
                   options: DiffOptions = DiffOptions(), name: Optional[str] = None,
                   locations=None) -> Optional[Generated]:
    """Diff the history's snapshot against ``current`` and return the next migration files, or
    ``None`` when nothing changed. The caller must have checked ``history.verify()``. When the
    plan has errors, ``Generated.files`` is empty and the errors are in ``Generated.plan``.
    Raises :class:`SnapshotError` for an unreadable snapshot."""
    old = history.catalog()
    # schemac's own functions stay once created (no migration drops them: the libraries of a
    # database share them), so the snapshot keeps them too
    current = dataclasses.replace(current, functions=tuple(sorted(set(current.functions) | set(old.functions))))
    hints = hints.applicable(old)  # hints of earlier migrations must not touch this one (or its down)
    up = diff(old, current, hints, options, locations)
    snapshot = dump_snapshot(current)
    if up.empty and not up.errors:
        if history.snapshot != snapshot and history.migrations:
            # Only names the database never sees changed (e.g. an enum's members' order is
            # kept, a type's comment...): record the new snapshot without a migration.
            files = {SNAPSHOT_FILE: snapshot}
            files[SUM_FILE] = sum_file([(n, history.migrations[n]) for n in history.ordered()]
                                       + [(SNAPSHOT_FILE, files[SNAPSHOT_FILE])])
            return Generated(files, up, [])
        return None
    if up.errors:
        return Generated({}, up, [])
    initial = not old.tables
    version = history.last_version + 1
    ordered = up.ordered()
    pre = [s for s in ordered if s.stage == PRE]
    main = [s for s in ordered if s.stage == MAIN]
    online = [s for s in ordered if s.stage == ONLINE]
    finish = [s for s in ordered if s.stage == FINISH]
    # The down of the main file takes the database from the state after the main file (no
    # concurrently built index yet, NOT NULLs still to come) back to the state before it (the
    # indexes the pre files dropped still dropped: their own downs build them again).
    after_main = _without_indexes(current, {s.index for s in online})
    after_main = _nullable(after_main, set(up.not_null_later))
    before_main = _without_indexes(old, {s.index for s in pre})
    down = diff(after_main, before_main, hints.inverted(), DiffOptions(down=True))
    # Helper CHECKs (nn_...) the main file added NOT VALID: gone once the finishing file ran,
    # still there when only the main file did.
    helper_drops = [f"ALTER TABLE {qi(t)} DROP CONSTRAINT IF EXISTS {qi(h)};" for t, _, h in up.helper_checks]
    slug = name or ("init" if initial else slug_of(up.changes))
    if not re.match(r"^[A-Za-z0-9_]+$", slug):
        slug = re.sub(r"[^A-Za-z0-9_]+", "_", slug).strip("_") or "migration"
    files: Dict[str, str] = {}
    versions: List[str] = []

    def one_statement(s, what: str, verb: str) -> None:
        nonlocal version
        b = f"{version:0{VERSION_WIDTH}d}_{verb}_{s.index}"
        online_settings = _settings(options, "0")
        files[f"{b}.up.sql"] = render_file(library, b, "up", f"{what} {s.index} concurrently.", [s.sql],
                                           no_transaction=True, settings=online_settings)
        files[f"{b}.down.sql"] = render_file(library, b, "down", f"reverts {b}.up.sql.", [s.undo],
                                             no_transaction=True, settings=online_settings)
        versions.append(b)
        version += 1

    for s in pre:
        one_statement(s, "drops index", "drop_index")
    base = f"{version:0{VERSION_WIDTH}d}_{slug}"
    if main:
        files.update(_up_and_down(library, base, initial, [s.sql for s in main],
                                  helper_drops + [s.sql for s in down.ordered()], up.changes, options))
        versions.append(base)
        version += 1
    for s in online:
        one_statement(s, "builds index", "create_index")
    if finish:
        b = f"{version:0{VERSION_WIDTH}d}_{slug}_validate"
        undo = []
        for s in reversed(finish):  # NOT NULL dropped again, attached unique constraints detached
            m = re.match(r'ALTER TABLE (".*?") ALTER COLUMN (".*?") SET NOT NULL;$', s.sql)
            if m:
                undo.append(f"ALTER TABLE {m.group(1)} ALTER COLUMN {m.group(2)} DROP NOT NULL;")
            m = re.match(r'ALTER TABLE (".*?") ADD CONSTRAINT (".*?") UNIQUE USING INDEX', s.sql)
            if m:
                undo.append(f"ALTER TABLE {m.group(1)} DROP CONSTRAINT IF EXISTS {m.group(2)};")
        files[f"{b}.up.sql"] = render_file(
            library, b, "up", "validates what the migrations before it added NOT VALID and finishes them.",
            [s.sql for s in finish], settings=_settings(options, "0"))
        files[f"{b}.down.sql"] = render_file(library, b, "down", f"reverts {b}.up.sql.", undo,
                                             settings=_settings(options))
        versions.append(b)
        version += 1
    files[SNAPSHOT_FILE] = snapshot
    all_migrations = dict(history.migrations)
    all_migrations.update({k: v for k, v in files.items() if k.endswith(".sql")})
    items = [(n, all_migrations[n]) for n in sorted(all_migrations, key=_version_key)]
    files[SUM_FILE] = sum_file(items + [(SNAPSHOT_FILE, files[SNAPSHOT_FILE])])
    return Generated(files, up, versions)


def _nullable(catalog: Catalog, columns) -> Catalog:
    from dataclasses import replace

    tables = tuple(replace(t, columns=tuple(replace(c, nullable=True) if (t.name, c.name) in columns else c
                                            for c in t.columns)) for t in catalog.tables)
    return replace(catalog, tables=tables)


def _without_indexes(catalog: Catalog, names) -> Catalog:
    from dataclasses import replace

    tables = tuple(replace(t, indexes=tuple(i for i in t.indexes if i.name not in names),
                           uniques=tuple(u for u in t.uniques if u.name not in names)) for t in catalog.tables)
    return replace(catalog, tables=tables)


def initial_files(library: str, current: Catalog, up: Optional[Plan] = None,
                  options: DiffOptions = DiffOptions()) -> Dict[str, str]:
    """``000001_init.{up,down}.sql`` for a library without a history: exactly what
    ``generate-migrations`` writes first (without its snapshot and checksums, which the
    compile output does not need). ``up``: the diff from an empty catalog, if already made."""
    up = up or diff(Catalog(), current)
    down = diff(current, Catalog(), Hints(), DiffOptions(down=True))
    return _up_and_down(library, f"{1:0{VERSION_WIDTH}d}_init", True, [s.sql for s in up.ordered()],
                        [s.sql for s in down.ordered()], [], options)


def schema_sql(library: str, current: Catalog, up: Optional[Plan] = None) -> str:
    """``schema.sql``: the whole current schema as one script (for review and for tools that
    load a schema directly; databases are evolved with the migrations). ``up``: the diff from
    an empty catalog, if already made."""
    plan = up or diff(Catalog(), current)
    return render("migrate/templates/schema.sql.j2", library=library, statements=[s.sql for s in plan.ordered()])
