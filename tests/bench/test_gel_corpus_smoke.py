"""Keeps tests/bench/gel_corpus.py from rotting: it rates a tiny corpus written here (one project
whose schema compiles with one good and one bad query file, one whose schema is refused, one with
a nested dbschema/modules folder) and its figures are what those files deserve."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import gel_corpus


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


def test_rates_a_small_corpus(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    _write(corpus, "good/dbschema/default.esdl", "type User { required name: str; }\n")
    _write(corpus, "good/dbschema/migrations/00001.edgeql", "CREATE TYPE X;\n")  # never rated
    _write(corpus, "good/queries/get_users.edgeql", "select User { name };\n")
    _write(corpus, "good/queries/bad_query.edgeql", "select User { nope };\n")
    _write(corpus, "bad/dbschema/default.esdl", "type User { required name: strr; }\n")
    _write(corpus, "nested/dbschema/default.esdl", "type A { x: str; }\n")
    _write(corpus, "nested/dbschema/modules/more.esdl", "type B { y: str; }\n")
    out = tmp_path / "r.json"
    assert gel_corpus.main([str(corpus), "--jobs", "2", "--json", str(out), "--python", sys.executable]) == 0
    rows = {(r["kind"], r["schema"], r["query"]): r for r in json.loads(out.read_text())}
    assert rows[("schema", "good/dbschema", None)]["status"] == "compiled"
    assert rows[("query", "good/dbschema", "good/queries/get_users.edgeql")]["status"] == "compiled"
    bad_q = rows[("query", "good/dbschema", "good/queries/bad_query.edgeql")]
    assert bad_q["status"] == "refused" and bad_q["diagnostics"][0][0] == "E0302"
    bad = rows[("schema", "bad/dbschema", None)]
    assert bad["status"] == "refused" and bad["diagnostics"][0][0] == "E0201"
    assert rows[("schema", "nested/dbschema", None)]["status"] == "compiled"
    assert len(rows) == 5  # the nested modules/ folder is part of nested/dbschema
    text = capsys.readouterr().out
    assert "schema folders: 3 projects, 3 folders: compiled 2/3 (67 %)" in text
    assert "query files: 2: compiled 1/2 (50 %)" in text
