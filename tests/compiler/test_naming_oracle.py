"""The naming oracle (tests/compiler/naming_oracle.py), derandomized: 120 libraries generated from
hostile name pools either build (SQL on Postgres 15, tsc --strict, gofmt -l, go vet: one run of
each tool for the batch) or are refused with a located error naming both sides of a collision.
A long run is `python tests/compiler/naming_oracle.py --libraries 2000 --seed N`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from build_check import tools_available  # noqa: E402
from naming_oracle import compile_one, refusal_problem, run_oracle  # noqa: E402

from schemac.semantics.library import Options
from schemac.pipeline import check_library  # noqa: E402
from schemac.diagnostics import CompileError  # noqa: E402


@pytest.mark.slow
def test_hostile_libraries_build_or_are_refused_with_a_location(database_url):
    missing = tools_available()
    if missing:
        pytest.skip(missing)
    figures = run_oracle(120, None, database_url, batch=120, log=lambda m: None)
    reports = figures.pop("failure_reports")
    print(figures)
    assert not reports, "\n\n".join(reports[:5])
    assert figures["compiled"] >= 60  # the generator makes mostly valid libraries


def test_the_oracle_catches_an_unlocated_refusal():
    e = CompileError([])
    from schemac.diagnostics import Diagnostic

    e.diagnostics.append(Diagnostic("E0304", "type mismatch", None))
    assert "unlocated" in refusal_problem(e)
    e = CompileError([Diagnostic("E0213", "something collides", None)])
    assert refusal_problem(e) is not None


def test_a_collision_found_by_the_oracle_names_both_sides():
    sources = {"lib/schema.esdl": "type User { property name -> str; }\n",
               "lib/queries/get_user2.edgeql": "select User { name };\n",
               "lib/queries/get_user_2.edgeql": "select User { name };\n"}
    status, codes = compile_one(sources, "t")
    assert (status, codes) == ("refused", ["E0213"])
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="t"))
    assert refusal_problem(exc.value) is None
