"""Keeps tests/bench/inheritance_chain.py working: the chain compiles (its last table holds
every member), the script prints a ratio per size. No timing assertions."""

from __future__ import annotations

from inheritance_chain import chain_library, main

from schemac.semantics.library import Options
from schemac.pipeline import compile_library


def test_the_chain_compiles_into_one_table():
    out = compile_library(chain_library(50), Options(library="chain"))
    up = out["sql/000001_init.up.sql"]
    assert up.count("CREATE TABLE") == 1 and '"p0" text' in up and '"p49" text' in up


def test_the_script_prints_a_ratio_per_size(capsys):
    assert main(["20", "40", "--repeat", "1"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("levels") and len(lines) == 3
    assert lines[2].split()[0] == "40" and "(2.0)" in lines[2]
