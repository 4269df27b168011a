"""A new user's friction with the command line (issue 29), each checked the way it was met:
the Go package name of a tailored library, the first-migration command of docs/migrations.md,
a missing third-party package, a `fill` hint added after a migration failed, migration names,
absolute paths in generated comments, and what `compile` prints on success."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PLUGINS = REPO / "pants-plugins"


def _env(**extra):
    env = {"PYTHONPATH": str(PLUGINS), "SCHEMAC_CACHE_DIR": "", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    env.update(extra)
    return env


def schemac(*args, cwd, check=True, pre="", **env):
    """``python -m schemac ARGS`` (with ``pre``: Python run first, in the same process)."""
    argv = [sys.executable, "-m", "schemac", *args] if not pre else [
        sys.executable, "-c", pre + "\nimport sys, runpy\nsys.argv[0] = 'schemac'\n"
        "runpy.run_module('schemac', run_name='__main__')", *args]
    proc = subprocess.run(argv, cwd=cwd, env=_env(**env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=300)
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


SCHEMA = """\
type Book {
  required title: str;
}
"""


def _library(root: Path, name: str) -> Path:
    d = root / "schemas" / name
    (d / "queries").mkdir(parents=True)
    (d / "schema.esdl").write_text(SCHEMA)
    (d / "queries" / "list_books.edgeql").write_text("select Book { title } order by .title;\n")
    return d


# -- 2. a tailored library in a folder with `_` ------------------------------------------------

def test_a_go_package_name_with_an_underscore_compiles(tmp_path):
    """`./pants tailor` writes `schema_library()` in schemas/library_loans; the Go package
    derived from the folder is `library_loans`, valid Go (https://go.dev/ref/spec#Package_clause)."""
    _library(tmp_path, "library_loans")
    schemac("compile", "--library", "library_loans", "--go-package", "library_loans", "--out", "out",
            "schemas/library_loans/schema.esdl", "schemas/library_loans/queries/list_books.edgeql", cwd=tmp_path)
    assert (tmp_path / "out" / "go" / "db.go").read_text().count("package library_loans\n") == 1


def test_a_bad_go_package_name_names_the_field(tmp_path):
    _library(tmp_path, "loans")
    proc = schemac("compile", "--library", "loans", "--go-package", "9lives", "--out", "out",
                   "schemas/loans/schema.esdl", cwd=tmp_path, check=False)
    assert proc.returncode == 1
    assert "error[E0308]: Go package name '9lives' (the `go_package` field of the schema_library" in proc.stderr
    assert "Traceback" not in proc.stderr


# -- 3. the first migration of a new library, as docs/migrations.md writes it -------------------

def test_the_documented_generate_command_works_for_a_new_library(tmp_path):
    doc = (REPO / "docs" / "migrations.md").read_text()
    [command] = re.findall(r"^\| write the next migration \|[^|]*\| `(migrate generate [^`]*)`", doc, re.M)
    command = command.replace("jobs", "clinic")
    _library(tmp_path, "clinic")
    (tmp_path / "schemas" / "clinic" / "schema.esdl").write_text(SCHEMA)
    # Through a shell, as a user types it (its globs expand there).
    proc = subprocess.run(f"{sys.executable} -m schemac {command}", shell=True, cwd=tmp_path, env=_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "schemas" / "clinic" / "migrations").iterdir()) == [
        "000001_init.down.sql", "000001_init.up.sql", "schemac.sum", "snapshot.json"]
    # And again, the history now there: nothing to do.
    proc = subprocess.run(f"{sys.executable} -m schemac {command}", shell=True, cwd=tmp_path, env=_env(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)
    assert proc.returncode == 0 and "no changes since the last migration" in proc.stdout, proc.stderr


# -- 4. a missing package: one line, no traceback ----------------------------------------------

@pytest.mark.parametrize("module,args,needs", [
    ("lark", ["compile", "--library", "x", "--out", "out", "schema.esdl"], "pip install schemac"),
    ("jinja2", ["compile", "--library", "x", "--out", "out", "schema.esdl"], "pip install schemac"),
    ("psycopg", ["migrate", "status", "--dir", "migrations", "--database-url", "postgresql://u@127.0.0.1:1/x"],
     'pip install "schemac[migrate]"'),
    ("pygls", ["lsp"], 'pip install "schemac[lsp]"'),
])
def test_a_missing_package_is_one_line_not_a_traceback(tmp_path, module, args, needs):
    (tmp_path / "schema.esdl").write_text(SCHEMA)
    schemac("migrate", "generate", "--library", "x", "--out", "migrations", "schema.esdl", cwd=tmp_path)
    # `sys.modules[name] = None`: the import fails as for a package that is not installed.
    proc = schemac(*args, cwd=tmp_path, check=False, pre=f"import sys; sys.modules[{module!r}] = None")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr, proc.stderr
    assert f"needs the Python package '{module}'" in proc.stderr or f"need the Python package '{module}'" in proc.stderr
    assert needs in proc.stderr


# -- 11. migration names are cut between words ---------------------------------------------------

def test_migration_names_are_cut_between_words():
    from schemac.migrate.history import slug_of

    slug = slug_of(["rename property DriverRecord.license_no to licence_number_issued", "x"])
    assert slug == "rename_property_driverrecord_license_no_and_more"
    for change in ["rename column driver_licence_record.license_no to licence_number_of_driver",
                   "add column a_rather_long_table_name_here.a_rather_long_column_name"]:
        words = re.split(r"[^a-z0-9_]+", change.lower())
        slug = slug_of([change])
        assert len(slug) <= 48
        # every `_`-joined part of the slug is a prefix of whole words of the change
        assert any("_".join(words[:i]) == slug for i in range(1, len(words) + 1)), slug
    assert slug_of(["add column job.priority"]) == "add_column_job_priority"


# -- 13 + 14. absolute paths, and the summary --------------------------------------------------

def test_absolute_input_paths_stay_out_of_the_generated_code_and_a_summary_is_printed(tmp_path):
    lib = _library(tmp_path / "elsewhere", "books")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    files = [str(lib / "schema.esdl"), str(lib / "queries" / "list_books.edgeql")]
    proc = schemac("compile", "--library", "books", "--out", str(tmp_path / "out"), *files, cwd=run_dir)
    outputs = {p: p.read_text() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    assert outputs
    for path, text in outputs.items():
        assert str(tmp_path) not in text, path
    assert "Source: queries/list_books.edgeql." in outputs[tmp_path / "out" / "ts" / "queries.ts"]
    # Files below the working directory: relative to it, as when given relative paths.
    proc2 = schemac("compile", "--library", "books", "--out", str(tmp_path / "out2"), *files, cwd=tmp_path)
    assert "(elsewhere/schemas/books/queries/list_books.edgeql)" in (tmp_path / "out2" / "go" / "queries.go").read_text()
    for p in (proc, proc2):
        assert p.stdout == ""
        assert p.stderr.strip().splitlines()[-1].startswith(
            "schemac: compiled library books (1 object type, 1 query, 1 migration) into "), p.stderr
        assert p.stderr.rstrip().endswith(": 3 SQL, 4 TypeScript and 4 Go files")


# -- 5. a `fill` added after a migration failed on rows ----------------------------------------

def test_a_fill_added_after_a_failed_migration_is_written_with_amend(tmp_path, pg):
    d = tmp_path / "lib"
    d.mkdir()
    (d / "schema.esdl").write_text(SCHEMA)
    url = str(pg)

    def generate(*extra, check=True):
        return schemac("migrate", "generate", "--library", "lib", "--out", "migrations", *extra, "schema.esdl",
                       cwd=d, check=check)

    def apply(check=True):
        return schemac("migrate", "apply", "--dir", "migrations", "--database-url", url, cwd=d, check=check)

    generate()
    apply()
    pg.execute("INSERT INTO book (title) VALUES ('Dune')")
    (d / "schema.esdl").write_text(SCHEMA.replace("required title: str;", "required title: str;\n  required pages: int32;"))
    generate()
    failed = apply(check=False)
    assert failed.returncode != 0
    assert "add `fill Book.pages using (<value>);`" in failed.stdout + failed.stderr
    (d / "schema.esdl").write_text((d / "schema.esdl").read_text() + "migration {\n  fill Book.pages using (0);\n}\n")
    before = {p.name: p.read_text() for p in (d / "migrations").iterdir()}
    # Without --amend: not silent, and nothing written.
    warned = generate()
    assert "warning[W0009]: the schema's `fill Book.pages` is not in this migration" in warned.stderr
    assert "--amend" in warned.stderr
    assert {p.name: p.read_text() for p in (d / "migrations").iterdir()} == before
    amended = generate("--amend")
    assert "amended 000002_" in amended.stdout
    up = next((d / "migrations").glob("000002_*.up.sql")).read_text()
    assert 'UPDATE "book" SET "pages" = 0;' in up and "RAISE EXCEPTION" not in up
    # The history still verifies, and the generator now agrees with it.
    check = schemac("migrate", "check", "--library", "lib", "schema.esdl", cwd=d)
    assert "migrations up to date" in check.stdout
    again = generate()
    assert "W0009" not in again.stderr and "no changes since the last migration" in again.stdout
    schemac("migrate", "resolve", "--dir", "migrations", "--database-url", url, "--version", "2", cwd=d)
    apply()
    assert pg.execute("SELECT title, pages FROM book") == [("Dune", 0)]
