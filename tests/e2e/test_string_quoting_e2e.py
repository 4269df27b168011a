"""String quoting in the generated runners, end to end on Postgres 15: enum members and SQL
literals that hold a character outside the BMP (Go must write ``\\U0001f600``, not a JSON
surrogate pair), quotes, backslashes, ``*/`` (inside a TS doc comment) and a carriage return
(dropped from Go raw strings, read as LF in TS template literals unless escaped) compile with
gofmt/go vet/tsc --strict and come back from the database unchanged."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import compile_library

HERE = Path(__file__).parent

SOURCES = {
    "sq/schema.esdl": (
        "enum Mood { plain, 'emoji\\U0001F600', 'a*/b', 'quote\"s', 'back\\\\slash' }\n"
        "type Note { required body: str; mood: Mood; }\n"
    ),
    "sq/queries/add_note.edgeql": "insert Note { body := 'x\\ty\\rz\\U0001F600\"q\\\\', mood := Mood.plain };\n",
    "sq/queries/tricky_notes.edgeql": "select Note { body, mood } filter .body = 'x\\ty\\rz\\U0001F600\"q\\\\';\n",
    # A backquote makes the Go SQL constant an interpreted string literal too.
    "sq/queries/add_emoji_note.edgeql": "insert Note { body := '`\\U0001F600`', mood := <Mood>'emoji\\U0001F600' };\n",
}


def _compiled(tmp_path: Path) -> Path:
    out = tmp_path / "gen"
    for rel, text in compile_library(SOURCES, Options(library="sq")).items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    return out


def test_carriage_returns_are_escaped_in_both_runners(tmp_path):
    out = _compiled(tmp_path)
    assert b"\r" not in (out / "ts" / "queries.ts").read_bytes()
    assert b"\r" not in (out / "go" / "queries.go").read_bytes()
    assert '"emoji\\U0001f600"' in (out / "go" / "models.go").read_text()


@pytest.mark.slow
def test_typescript_runner_round_trips_tricky_strings(pg, tsc_run, tmp_path):
    out = _compiled(tmp_path)
    pg.execute((out / "sql" / "000001_init.up.sql").read_text())
    src = tmp_path / "src"
    shutil.copytree(out / "ts", src / "gen")
    shutil.copy(HERE / "string_quoting_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"quoting": True}


@pytest.mark.slow
def test_go_runner_round_trips_tricky_strings(pg, go_run, tmp_path):
    out = _compiled(tmp_path)
    pg.execute((out / "sql" / "000001_init.up.sql").read_text())
    mod = tmp_path / "mod"
    shutil.copytree(out / "go", mod / "sq")
    shutil.copytree(HERE / "string_quoting_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    assert "--- PASS: TestStringQuoting" in result.test.stdout
