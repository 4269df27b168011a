"""Gel's full-text search (https://docs.geldata.com/reference/stdlib/fts), tests/cases/fts_search,
end to end on Postgres 15 through the generated runners: ``with res := (select
fts::search(T, q, ...)) select res.object { ..., score := res.score } order by res.score desc``
returns the docs' example items with the scores the docs print (default weights, ``weights :=
[0.2, 1]``, ``weights := [0, 1]`` with a filter on the score), Gel's query syntax (optional plain
terms, required quoted phrases, ``AND`` / ``OR``, ``!`` / ``-`` exclusions), ``count(res.object)``,
a search's own ``order by .score ... limit``, ``exists fts::search(...)``, and an index inherited
from an abstract type whose unweighted parts are category A, the boards holding a match
(``select distinct notes.<notes[is Board] { ... } filter ... offset/limit`` with ``Board``
abstract, one concrete subtype; ``count(distinct res.object.<notes[is Board] filter ...)``) and
``any(.tags in t)``. The TypeScript compiles under tsc
--strict --noUncheckedIndexedAccess and runs on node-postgres (tests/e2e/fts_search_ts); the Go is
gofmt/vet-clean and runs on pgx with the machine's Go and Go 1.21 (tests/e2e/fts_search_go)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent
CASE = HERE.parent / "cases" / "fts_search" / "expected"


@pytest.mark.slow
def test_typescript_fts_search(pg, tsc_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(CASE / "ts", src / "gen")
    shutil.copy(HERE / "fts_search_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {
        "orderByScore": True, "querySyntax": True, "weights": True, "inheritedIndex": True,
        "backlinkOfMatches": True}


@pytest.mark.slow
def test_go_fts_search(pg, go_run, tmp_path):
    pg.execute((CASE / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(CASE / "go", mod / "ftssearch")
    shutil.copytree(HERE / "fts_search_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestFtsSearch" in result.test.stdout
    assert "--- PASS: TestFtsSearch" in result.steps["go121-test"].stdout
