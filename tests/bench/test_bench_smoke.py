"""Keeps tests/bench/compile_speed.py from rotting: its generator's library (N=5) compiles
in-process, the in-process phase timer runs, and the side-by-side modes run (``--vs HEAD`` on a
tiny library; ``--vs-sqlc`` up to sqlc's input, and its message when sqlc is missing). No timing
assertions."""

from __future__ import annotations

import re
import subprocess

from compile_speed import (DEFAULT_PYTHONPATH, REPO_ROOT, count_lines, generate_library, main, paired_runs, profile,
                           sqlc_inputs, time_phases)

from schemac.semantics.library import Options
from schemac.pipeline import compile_library


def test_generated_library_compiles():
    sources = generate_library(5)
    assert sum(p.endswith(".edgeql") for p in sources) == 10
    assert count_lines(sources) > 5 * 15
    out = compile_library(sources, Options(library="bench"))
    up = out["sql/000001_init.up.sql"]
    for table in ("account0", "order1", "invoice2", "shipment3", "customer4"):
        assert f'CREATE TABLE "{table}" (' in up
    assert "insertAccount0" in out["ts/queries.ts"] and "UpdateAccount0" in out["go/queries.go"]


def test_generator_is_deterministic():
    assert generate_library(3) == generate_library(3)


def test_generated_library_with_later_features_compiles():
    sources = generate_library(5, features=True)
    assert "extending Timestamped" in sources["schema.esdl"]
    out = compile_library(sources, Options(library="bench"))
    assert 'CREATE TABLE "order1" (' in out["sql/000001_init.up.sql"]


def test_phase_timer_runs():
    total, phases = time_phases(generate_library(5))
    labels = [label for label, _, _ in phases]
    assert total > 0
    assert "resolve schema" in labels and "plan queries" in labels


def test_profile_runs():
    text = profile(generate_library(2), DEFAULT_PYTHONPATH, top=5)
    assert "by own time" in text and "schemac functions by cumulative time" in text


def test_sqlc_inputs_are_the_compiled_sql():
    """``--vs-sqlc`` gives sqlc schemac's own schema.sql and every query's SQL in one file, one
    ``-- name:`` annotation each (no sqlc needed)."""
    sources = generate_library(3)
    files = sqlc_inputs(sources)
    out = compile_library(sources, Options(library="bench"))
    assert files["schema.sql"] == out["sql/schema.sql"]
    names = re.findall(r"^-- name: (\w+) (:\w+)$", files["queries.sql"], re.M)
    assert len(names) == 6 and ("InsertAccount0", ":one") in names and ("UpdateOrder1", ":one") in names
    first = files["queries.sql"].split("-- name: ", 2)[1]
    assert 'INSERT INTO "account0"' in first and first.rstrip().endswith(";")
    assert "engine: postgresql" in files["sqlc.yaml"] and "queries: queries.sql" in files["sqlc.yaml"]


def test_vs_sqlc_without_sqlc_says_how_to_install_it(capsys, tmp_path):
    assert main(["--vs-sqlc", "--sqlc", str(tmp_path / "no-sqlc"), "--sizes", "2"]) == 0
    printed = capsys.readouterr().out
    assert "sqlc not found" in printed and "go install github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1" in printed


def test_paired_runs_alternate_and_pair_ratios():
    calls = []

    def side(name, cpu):
        def run():
            calls.append(name)
            return (cpu, cpu, 10.0)
        return run

    pair = paired_runs(side("a", 2.0), side("b", 1.0), runs=3, warmup=1)
    assert calls == ["a", "b", "b", "a", "a", "b", "b", "a"]
    assert pair.ratios(1) == [2.0, 2.0, 2.0] and pair.ratios(2) == [1.0, 1.0, 1.0]


def test_vs_head_on_a_tiny_library(capsys):
    """``--vs HEAD``: a git worktree of HEAD compiled side by side (cold processes), removed after."""
    assert main(["--vs", "HEAD", "--sizes", "2", "--repeat", "1"]) == 0
    printed = capsys.readouterr().out
    assert "N=2: 1 pairs of cold processes" in printed
    assert re.search(r"^\s+2\s+[\d.]+\s+[\d.]+\s+[\d.]+x", printed, re.M), printed
    listed = subprocess.run(["git", "-C", str(REPO_ROOT), "worktree", "list", "--porcelain"],
                            capture_output=True, text=True, check=True).stdout
    assert "schemac-bench-rev-" not in listed  # the script's worktree is gone


def test_vs_sqlc_with_a_stand_in_for_sqlc(capsys, tmp_path):
    """The whole ``--vs-sqlc`` path (inputs written, paired runs, the summary) with a stand-in
    executable in sqlc's place: it answers ``version`` and, for ``generate``, checks that it was
    given the schema, the queries and the config, and writes a Go file as sqlc would."""
    fake = tmp_path / "sqlc"
    fake.write_text('#!/bin/sh\n'
                    'if [ "$1" = version ]; then echo v0.0.0-stand-in; exit 0; fi\n'
                    '[ "$1 $2 $3" = "generate -f sqlc.yaml" ] || exit 2\n'
                    'grep -q "^CREATE TABLE" schema.sql && grep -q "^-- name: InsertAccount0 :one" queries.sql || exit 3\n'
                    'mkdir -p out && echo "package bench" > out/db.go\n')
    fake.chmod(0o755)
    assert main(["--vs-sqlc", "--sqlc", str(fake), "--sizes", "2", "--repeat", "1", "--warmup", "0"]) == 0
    printed = capsys.readouterr().out
    assert "v0.0.0-stand-in; the issue measured v1.31.1" in printed
    assert "N=2: 1 pairs of cold processes" in printed and "CPU ÷ sqlc" in printed
    assert re.search(r"^\s+2\s+[\d.]+\s+[\d.]+\s+[\d.]+x\s+\d+\s+\d+\s+[\d.]+x$", printed, re.M), printed
