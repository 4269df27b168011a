"""The command line as a build step sees it (``python -m schemac compile``): exit statuses with
closed or failing output streams, output written whole or not at all, write errors reported
in one line, and a byte order mark at the start of a source file."""

from __future__ import annotations

import os
import subprocess
import time
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FEATURES = REPO / "tests" / "cases" / "features"  # compiles with a warning (W0001)


def _compile(tmp_path, out, *, stdout=subprocess.PIPE, stderr=subprocess.PIPE, sources=None, extra=()):
    files = sources or [str(FEATURES / "schema.esdl"), *sorted(str(p) for p in (FEATURES / "queries").glob("*.edgeql"))]
    env = {"PYTHONPATH": str(REPO / "pants-plugins"), "SCHEMAC_CACHE_DIR": "", "PATH": os.environ.get("PATH", "")}
    return subprocess.run(
        [sys.executable, *extra, "-m", "schemac", "compile", "--library", "features", "--out", str(out), *files],
        cwd=tmp_path, stdout=stdout, stderr=stderr, env=env, timeout=120,
    )


def _tree(root: Path):
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_warnings_are_printed_and_outputs_written(tmp_path):
    proc = _compile(tmp_path, tmp_path / "out")
    assert proc.returncode == 0
    assert b"warning[W0001]" in proc.stderr
    assert sorted(_tree(tmp_path / "out")) == sorted(
        f"{k}/{n}" for k, names in (("go", ("db.go", "errors.go", "models.go", "queries.go")),
                                    ("sql", ("000001_init.down.sql", "000001_init.up.sql", "schema.sql")),
                                    ("ts", ("errors.ts", "index.ts", "models.ts", "queries.ts")))
        for n in names)


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_closed_stream_does_not_fail_a_good_compile(tmp_path, stream):
    want = _compile(tmp_path, tmp_path / "want")
    fd = 1 if stream == "stdout" else 2
    files = [str(FEATURES / "schema.esdl"), *sorted(str(p) for p in (FEATURES / "queries").glob("*.edgeql"))]
    # Started with the stream closed, as `2>&-` does (Python then sets sys.<stream> to None).
    proc = subprocess.run(
        [sys.executable, "-m", "schemac", "compile", "--library", "features", "--out", str(tmp_path / "out"), *files],
        cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=None if fd == 1 else subprocess.DEVNULL,
        stderr=None if fd == 2 else subprocess.DEVNULL, preexec_fn=lambda: os.close(fd), timeout=120,
        env={"PYTHONPATH": str(REPO / "pants-plugins"), "SCHEMAC_CACHE_DIR": ""},
    )
    assert want.returncode == 0
    assert proc.returncode == 0
    assert _tree(tmp_path / "out") == _tree(tmp_path / "want")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_full_stderr_does_not_lose_the_outputs(tmp_path):
    want = _compile(tmp_path, tmp_path / "want")
    with open("/dev/full", "wb") as full:
        proc = _compile(tmp_path, tmp_path / "out", stderr=full)
    assert proc.returncode == 0
    assert _tree(tmp_path / "out") == _tree(tmp_path / "want")


def test_an_unwritable_output_directory_is_one_line_not_a_traceback(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    proc = _compile(tmp_path, blocker / "out")
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert "Traceback" not in err
    assert f"error: cannot write the output to {blocker}" in err


def test_outputs_replace_old_files_whole_and_leave_no_temporary_files(tmp_path):
    out = tmp_path / "out"
    (out / "sql").mkdir(parents=True)
    (out / "sql" / "schema.sql").write_text("old and much longer " * 1000)
    assert _compile(tmp_path, out).returncode == 0
    assert _compile(tmp_path, tmp_path / "want").returncode == 0
    assert _tree(out) == _tree(tmp_path / "want")  # (no .schemac-* temporary file left)


def test_a_byte_order_mark_at_the_start_of_a_source_is_ignored(tmp_path):
    plain = tmp_path / "plain.esdl"
    plain.write_text("type T {\n  required a: str;\n}\n", encoding="utf-8")
    bom = tmp_path / "bom" / "plain.esdl"
    bom.parent.mkdir()
    bom.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert _compile(tmp_path, tmp_path / "plain", sources=["plain.esdl"]).returncode == 0
    proc = _compile(tmp_path / "bom", tmp_path / "bom-out", sources=["plain.esdl"])
    assert proc.returncode == 0, proc.stderr
    assert _tree(tmp_path / "bom-out") == _tree(tmp_path / "plain")
    # ...and positions in diagnostics are those of the text without it
    bad = tmp_path / "bad.esdl"
    bad.write_bytes(b"\xef\xbb\xbftype T { a: strr; }\n")
    proc = _compile(tmp_path, tmp_path / "bad-out", sources=["bad.esdl"])
    assert proc.returncode == 1
    assert proc.stderr.decode().startswith("bad.esdl:1:13: error[E0201]")


def test_diagnostics_never_go_to_stdout_when_stderr_is_closed(tmp_path):
    (tmp_path / "bad.esdl").write_text("type T { a: strr; }\n")
    proc = subprocess.run(
        [sys.executable, "-m", "schemac", "compile", "--library", "t", "--out", str(tmp_path / "out"), "bad.esdl"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=None, preexec_fn=lambda: os.close(2), timeout=120,
        env={"PYTHONPATH": str(REPO / "pants-plugins"), "SCHEMAC_CACHE_DIR": ""},
    )
    assert proc.returncode == 1
    assert proc.stdout == b""


def test_a_file_in_the_way_is_named_in_one_line(tmp_path):
    out = tmp_path / "out"
    (out / "sql" / "schema.sql").mkdir(parents=True)  # a directory where a file goes
    proc = _compile(tmp_path, out)
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert f"error: cannot write the output to {out / 'sql' / 'schema.sql'}: Is a directory" in err
    assert "Traceback" not in err and ".schemac-" not in err


@pytest.mark.skipif(not hasattr(os, "umask"), reason="no umask")
def test_file_modes_follow_the_umask_and_are_kept_and_links_are_written_through(tmp_path):
    import stat

    out = tmp_path / "out"
    (out / "sql").mkdir(parents=True)
    (out / "sql" / "schema.sql").write_text("old")
    os.chmod(out / "sql" / "schema.sql", 0o640)
    elsewhere = tmp_path / "elsewhere.sql"
    elsewhere.write_text("old")
    os.symlink(elsewhere, out / "sql" / "000001_init.up.sql")
    old = os.umask(0o027)
    try:
        assert _compile(tmp_path, out).returncode == 0
    finally:
        os.umask(old)
    mode = lambda p: stat.S_IMODE(os.stat(p).st_mode)  # noqa: E731
    assert mode(out / "sql" / "schema.sql") == 0o640  # kept
    assert mode(out / "ts" / "index.ts") == 0o640  # 0o666 & ~0o027
    assert (out / "sql" / "000001_init.up.sql").is_symlink()
    assert elsewhere.read_text().startswith("-- Code generated by schemac")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_migrate_with_a_full_stdout_is_an_error_not_a_traceback(tmp_path):
    jobs = REPO / "schemas" / "jobs"
    files = [str(jobs / "schema.esdl"), *sorted(str(p) for p in (jobs / "queries").glob("*.edgeql")),
             *sorted(str(p) for p in (jobs / "migrations").iterdir())]
    env = {"PYTHONPATH": str(REPO / "pants-plugins"), "SCHEMAC_CACHE_DIR": ""}
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([sys.executable, "-m", "schemac", "migrate", "check", "--library", "jobs", *files],
                              cwd=tmp_path, stdout=full, stderr=subprocess.PIPE, env=env, timeout=120)
    # 1 when a print fails, 120 (as Python's own exit) when the buffered output fails at exit
    assert proc.returncode in (1, 120)
    assert "Traceback" not in proc.stderr.decode()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_a_source_that_is_not_a_regular_file_is_refused_at_once(tmp_path, kind):
    """A FIFO used to block the compile until something wrote to it; a device may never end."""
    special = tmp_path / "queries" / "q.edgeql"
    special.parent.mkdir()
    if kind == "fifo":
        os.mkfifo(special)
    elif kind == "device":
        special = Path("/dev/zero")
    else:
        special.mkdir()
    start = time.monotonic()
    proc = _compile(tmp_path, tmp_path / "out", sources=[str(FEATURES / "schema.esdl"), str(special)])
    assert time.monotonic() - start < 60
    assert proc.returncode == 1
    err = proc.stderr.decode().strip()
    what = {"fifo": "a FIFO", "device": "a character device", "directory": "a directory"}[kind]
    assert err == f"{special}: error: not a regular file ({what})"
    assert not (tmp_path / "out").exists()
