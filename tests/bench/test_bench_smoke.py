"""Keeps tests/bench/compile_speed.py from rotting: its generator's library (N=5) compiles
in-process, and the in-process phase timer runs. No timing assertions."""

from __future__ import annotations

from compile_speed import DEFAULT_PYTHONPATH, count_lines, generate_library, profile, time_phases

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
