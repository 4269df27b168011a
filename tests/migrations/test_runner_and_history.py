"""The apply runner (advisory lock, history table, atomic files, refusals), the checksum chain,
the drift check, hint diagnostics, and golang-migrate applying the same files."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from migration_harness import Lib, compile_errors, db_catalog
from schemac.semantics.library import Options
from schemac.pipeline import check_library
from schemac.migrate.apply import MigrationError, apply, migrations_of
from schemac.migrate.history import History

REPO = Path(__file__).resolve().parents[2]
V1 = """
enum Status { Open, Closed }
type Ticket {
  required title: str;
  status: Status { default := Status.Open };
  constraint exclusive on (.title) filter .status = Status.Open;
}
"""
V2 = V1.replace("required title: str;", "required title: str;\n  priority: int32 { default := 3 };\n  index on (.priority);")
V3 = V2.replace("Open, Closed", "Open, Waiting, Closed")


def _three_versions(tmp_path) -> Lib:
    lib = Lib(tmp_path)
    for schema in (V1, V2, V3):
        gen = lib.generate(schema)
        assert gen is not None and not gen.plan.errors
    return lib


def test_two_concurrent_appliers_one_applies_the_other_finds_nothing(tmp_path, pg):
    lib = _three_versions(tmp_path)
    results, errors = [], []

    def run():
        try:
            results.append(apply(pg.url, lib.history()))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    applied = sorted(len(r.applied) for r in results)
    top = len(migrations_of(lib.history()))
    assert applied == [0, top], [r.lines for r in results]
    assert all(r.current_version == top for r in results)
    rows = pg.execute("SELECT version, state FROM schemac_migrations ORDER BY version")
    assert rows == [(v, "applied") for v in range(1, top + 1)]


def test_a_failing_statement_midway_leaves_the_database_as_before(tmp_path, pg):
    # Version 1 applied, with rows in it.
    first = Lib(tmp_path, "first")
    first.generate(V1)
    first.apply(pg.url)
    pg.execute("INSERT INTO ticket (title) VALUES ('a'), ('b')")
    before = db_catalog(pg.conn)
    # Version 2 with a statement injected after its first real statements fails at the end.
    second = first.generate(V2)
    assert second is not None
    up = next(first.migrations.glob("000002_*.up.sql"))
    up.write_text(up.read_text() + "\nSELECT 1 / 0;\n")
    _refresh_sums(first)
    with pytest.raises(MigrationError) as e:
        first.apply(pg.url)
    assert e.value.sqlstate == "22012"
    assert db_catalog(pg.conn) == before
    assert pg.execute("SELECT title FROM ticket ORDER BY 1") == [("a",), ("b",)]
    assert pg.execute("SELECT version, state FROM schemac_migrations ORDER BY 1") == [(1, "applied"), (2, "failed")]


def _refresh_sums(lib: Lib) -> None:
    """Re-chain schemac.sum after a deliberate edit (what a tampering user could do)."""
    from schemac.migrate.history import SNAPSHOT_FILE, SUM_FILE, sum_file

    h = lib.history()
    items = [(n, h.migrations[n]) for n in h.ordered()] + [(SNAPSHOT_FILE, h.snapshot)]
    (lib.migrations / SUM_FILE).write_text(sum_file(items))


def test_an_applied_migration_edited_later_is_refused(tmp_path, pg):
    lib = _three_versions(tmp_path)
    lib.apply(pg.url)
    up = next(lib.migrations.glob("000002_*.up.sql"))
    up.write_text(up.read_text() + "\n-- tweak\n")
    _refresh_sums(lib)  # even with a consistent chain, the database remembers the checksum
    with pytest.raises(MigrationError, match="was edited after it was applied"):
        lib.apply(pg.url)


@pytest.mark.parametrize("tamper", ["edit", "insert", "remove", "reorder"])
def test_the_checksum_chain_detects_tampering(tmp_path, tamper):
    lib = _three_versions(tmp_path)
    files = sorted(lib.migrations.glob("*.sql"))
    if tamper == "edit":
        files[1].write_text(files[1].read_text().replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS"))
    elif tamper == "insert":
        (lib.migrations / "000002_extra.up.sql").write_text("SELECT 1;\n")
    elif tamper == "remove":
        files[2].unlink()
    else:  # swap the names of two versions
        a, b = files[2], files[4]
        ta, tb = a.read_text(), b.read_text()
        a.write_text(tb)
        b.write_text(ta)
    problems = lib.history().verify()
    assert problems and {p.code for p in problems} == {"E0405"}, problems
    assert compile_errors(lambda: __import__("schemac.pipeline").pipeline.compile_library(
        lib.sources(), Options(library="lib"))) == ["E0405"] * len(problems)


def test_drift_check_and_generate_through_the_cli(tmp_path):
    lib = _three_versions(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(REPO / "pants-plugins")}

    def cli(*args):
        files = [str(p) for p in sorted(lib.dir.glob("*.esdl"))] + [str(p) for p in sorted(lib.migrations.iterdir())]
        return subprocess.run([sys.executable, "-m", "schemac", "migrate", *args, *files], cwd=tmp_path, env=env,
                              capture_output=True, text=True)

    ok = cli("check", "--library", "lib")
    assert ok.returncode == 0, ok.stderr
    # Only the schema listed: the history beside it is found.
    alone = subprocess.run([sys.executable, "-m", "schemac", "migrate", "check", "--library", "lib",
                            str(lib.dir / "schema.esdl")], cwd=tmp_path, env=env, capture_output=True, text=True)
    n = len(migrations_of(lib.history()))
    assert alone.returncode == 0 and f"up to date ({n} version(s))" in alone.stdout, alone.stderr
    (lib.dir / "schema.esdl").write_text(V3.replace("required title: str;", "required title: str; note: str;"))
    drift = cli("check", "--library", "lib")
    assert drift.returncode == 1 and "E0406" in drift.stderr and "add column ticket.note" in drift.stderr
    gen = cli("generate", "--library", "lib", "--out", str(lib.migrations), "--name", "add_note")
    assert gen.returncode == 0, gen.stderr
    assert (lib.migrations / f"{n + 1:06d}_add_note.up.sql").exists()
    assert cli("check", "--library", "lib").returncode == 0
    assert "no changes" in cli("generate", "--library", "lib", "--out", str(lib.migrations)).stdout


def test_hints_that_do_not_apply_warn_and_conflicting_hints_fail_with_locations(tmp_path):
    from schemac.diagnostics import CompileError

    stale = {"lib/schema.esdl": V1 + """
migration {
  rename property Ticket.titel to name;
  rename type Ticket to Ticket;
  map member Status.Gone to Opn;
}
"""}
    lib = check_library(stale, Options(library="lib"))  # old hints never break a build
    text = "\n".join(w.render(stale) for w in lib.warnings)
    assert "lib/schema.esdl:10:3: warning[W0005]: migration hint does not apply: type 'Ticket' has no property" in text
    assert "type 'Ticket' still exists" in text
    assert "enum 'Status' has no member 'Opn'" in text and "did you mean 'Open'" in text and "^" in text
    assert lib.hints.pointer_renames == {} and lib.hints.member_maps == {}

    conflicting = {"lib/schema.esdl": V1.replace("title", "name") + """
migration {
  rename property Ticket.title to name;
  drop property Ticket.title;
  fill Ticket.name using (1);
}
"""}
    with pytest.raises(CompileError) as e:
        check_library(conflicting, Options(library="lib"))
    text = e.value.render(conflicting)
    assert "lib/schema.esdl:11:3: error[E0400]: conflicting migration hints" in text
    assert "error[E0304]: the fill value is int64, but Ticket.name is str" in text


def test_misspelled_rename_warns_and_the_change_is_refused_at_the_declaration(tmp_path):
    lib = _three_versions(tmp_path)
    gen = lib.generate(V3.replace("title", "heading") + "migration { rename property Ticket.titel to heading; }")
    assert [d.code for d in gen.plan.errors] == ["E0402"]
    assert gen.plan.errors[0].span is not None and gen.plan.errors[0].span.file == "lib/schema.esdl"
    w = [d for d in gen.plan.lints if d.code == "W0005"]
    assert w and "no Ticket.titel" in w[0].message and w[0].span.line > 1
    assert w[0].severity == "warning"  # printed as warning[W0005], as documented


def test_a_rename_onto_a_name_the_last_migration_still_has_is_refused(tmp_path):
    lib = Lib(tmp_path)
    lib.generate("type Old1 { b: str; }\ntype Foo { a: str; }")
    gen = lib.generate("type Foo { b: str; }\nmigration { rename type Old1 to Foo; drop property Foo.a; }")
    assert [d.code for d in gen.plan.errors] == ["E0401"]
    assert not gen.files


def _golang_migrate() -> str:
    path = os.environ.get("SCHEMAC_GOLANG_MIGRATE") or str(REPO / "tests/.cache/bin/migrate")
    if not os.path.exists(path):
        if os.environ.get("SCHEMAC_TESTS_RUN"):
            pytest.fail(f"golang-migrate not found at {path} (tests/run installs it)")
        pytest.skip("golang-migrate not installed (tests/run installs it)")
    return path


def _lib_pq_url(url: str) -> str:
    if "sslmode=" in url:
        return url
    return url + ("&" if "?" in url else "?") + "sslmode=disable"


def test_golang_migrate_applies_the_same_files_to_the_same_catalog(tmp_path, pg, pg_factory):
    migrate = _golang_migrate()
    lib = _three_versions(tmp_path)
    # Also a concurrently built index (a no-transaction file).
    lib.generate(V3.replace("index on (.priority);", "index on (.priority);\n  index on (.title);"),
                 online_indexes=True)
    lib.apply(pg.url)
    ours = db_catalog(pg.conn)
    other = pg_factory()
    proc = subprocess.run([migrate, "-path", str(lib.migrations), "-database", _lib_pq_url(other.url), "up"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert db_catalog(other.conn) == ours
    # And down all the way with golang-migrate leaves an empty schema.
    proc = subprocess.run([migrate, "-path", str(lib.migrations), "-database", _lib_pq_url(other.url), "down", "-all"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert db_catalog(other.conn) == {}


def test_repo_histories_apply_and_match_schema_sql(pg_factory):
    """Every committed history applies with the runner and gives the catalog of schema.sql."""
    for lib_dir in sorted((REPO / "schemas").glob("*/migrations")):
        name = lib_dir.parent.name
        a, b = pg_factory(), pg_factory()
        sources = {f"{name}/migrations/{p.name}": p.read_text() for p in lib_dir.iterdir()}
        apply(a.url, History.from_sources(sources))
        b.execute((REPO / "generated" / name / "sql" / "schema.sql").read_text())
        assert db_catalog(a.conn) == db_catalog(b.conn), name


def test_cli_generate_continues_the_history_in_out_and_apply_refuses_a_missing_dir(tmp_path, pg):
    env = {**os.environ, "PYTHONPATH": str(REPO / "pants-plugins")}
    lib = tmp_path / "lib"
    (lib / "migrations").mkdir(parents=True)

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "schemac", "migrate", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True)

    for schema in (V1, V2):
        (lib / "schema.esdl").write_text(schema)
        # Only the schema file is listed: the history already in --out is read, not overwritten.
        r = cli("generate", "--library", "lib", "--out", "lib/migrations", "lib/schema.esdl")
        assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in (lib / "migrations").glob("*.up.sql"))[1].startswith("000002_")
    missing = cli("apply", "--database-url", pg.url, "--dir", "lib/migrashuns")
    assert missing.returncode == 1 and "is not a directory" in missing.stderr
    ok = cli("apply", "--database-url", pg.url, "--dir", "lib/migrations")
    # V2 adds an index to an existing table: built concurrently in a file of its own (3).
    assert ok.returncode == 0 and "done: the database is at version 3" in ok.stdout, ok.stderr


def test_apply_refuses_a_database_golang_migrate_manages(tmp_path, pg):
    lib = _three_versions(tmp_path)
    pg.execute("CREATE TABLE schema_migrations (version bigint PRIMARY KEY, dirty boolean NOT NULL)")
    pg.execute("INSERT INTO schema_migrations VALUES (3, false)")
    with pytest.raises(MigrationError, match="managed by golang-migrate"):
        lib.apply(pg.url)


def test_two_libraries_share_one_database_and_history_table(tmp_path, pg):
    from schemac.pipeline import compile_library  # noqa: F401  (the dependency is compiled as an extern)

    accounts = Lib(tmp_path, "accounts")
    accounts.generate("type User { required email: str; }")
    shop = Lib(tmp_path, "shop")
    (shop.dir / "schema.esdl").write_text("type Order { required buyer: accounts::User; }")
    from schemac.migrate.catalog import catalog_of
    from schemac.migrate.history import History, next_migration

    sources = {**shop.sources(), "accounts/schema.esdl": (accounts.dir / "schema.esdl").read_text()}
    lib = check_library(sources, Options(library="shop", externs=(("accounts/schema.esdl", "accounts"),)))
    gen = next_migration("shop", History("shop/migrations"), catalog_of(lib.schema), lib.hints)
    for name, text in gen.files.items():
        (shop.migrations / name).write_text(text)
    assert apply(pg.url, accounts.history()).applied == ["000001_init"]
    assert apply(pg.url, shop.history()).applied == ["000001_init"]
    assert apply(pg.url, shop.history()).applied == []
    rows = pg.execute("SELECT library, version, state FROM schemac_migrations ORDER BY 1, 2")
    assert rows == [("accounts", 1, "applied"), ("shop", 1, "applied")]
