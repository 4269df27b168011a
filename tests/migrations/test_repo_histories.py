"""The committed migration history of every library under schemas/ is intact and up to date
(what `./pants lint ::` checks, without Pants)."""

from __future__ import annotations

import pytest

from libraries import library_dirs, library_sources
from schemac.semantics.library import Options
from schemac.pipeline import check_library
from schemac.migrate.catalog import catalog_of, dump_snapshot
from schemac.migrate.history import History


@pytest.mark.parametrize("lib_dir", library_dirs(), ids=lambda p: p.name)
def test_history_is_intact_and_matches_the_schema(lib_dir):
    sources = library_sources(lib_dir)
    lib = check_library(sources, Options(library=lib_dir.name))
    history = History.from_sources(sources)
    assert history is not None, f"{lib_dir.name} has no migrations/: run ./pants generate-migrations"
    assert history.verify() == []
    assert history.snapshot == dump_snapshot(catalog_of(lib.schema)), (
        f"{lib_dir.name}: the schema changed since the last migration: run ./pants generate-migrations")
