"""The language server as a new user met it (issue 29, items 1 and 8): hover on a query that
reads a global shows its TypeScript and Go signatures (their heads span several lines), and a
library whose `sources` glob reaches into sub-folders of `dbschema/` (`dbschema/**/*.gel`, one
module a folder, as Gel projects lay them out) is one library to the server, as to Pants."""

from __future__ import annotations

from pathlib import Path

from schemac.lsp.analysis import Analyzer, find_library
from schemac.lsp.features import declaration, hover, query_hover, ref_at

REPO = Path(__file__).resolve().parents[2]


def test_hover_on_a_query_that_reads_a_global_shows_its_signatures():
    path = str(REPO / "schemas" / "notes" / "queries" / "whoami.edgeql")
    analysis = Analyzer().analyse(find_library(path), {})
    text = query_hover(analysis, path)
    ts = text.split("TypeScript:\n```typescript\n", 1)[1].split("```", 1)[0]
    # The head spans lines (db, args, globals): the whole of it, ending as a declaration.
    assert "export async function whoami(\n  db: Queryable,\n  args: WhoamiArgs = {},\n  globals: Globals = {},\n" \
           "): Promise<WhoamiResult | null>;" in ts
    go = text.split("Go:\n```go\n", 1)[1].split("```", 1)[0]
    assert "func (q *Queries) Whoami(ctx context.Context, " in go
    # Every query of the repository's libraries gets both signatures.
    for lib in ("notes", "jobs", "blog"):
        for q in sorted((REPO / "schemas" / lib / "queries").glob("*.edgeql")):
            a = Analyzer().analyse(find_library(str(q)), {})
            h = query_hover(a, str(q))
            assert "```typescript\n" in h and "export async function " in h and "```go\n" in h, q


def _project(root: Path) -> Path:
    (root / "pants.toml").write_text("[GLOBAL]\n")
    app = root / "app"
    for d in ("dbschema/core", "dbschema/billing", "queries"):
        (app / d).mkdir(parents=True)
    (app / "BUILD").write_text('schema_library(sources=["dbschema/**/*.gel", "queries/*.edgeql"])\n')
    (app / "dbschema" / "default.gel").write_text("type Account {\n  required owner: core::User;\n}\n")
    (app / "dbschema" / "core" / "types.gel").write_text("module core {\n  type User {\n    required name: str;\n  }\n}\n")
    (app / "dbschema" / "billing" / "types.gel").write_text(
        "module billing {\n  type Invoice {\n    required payer: core::User;\n  }\n}\n")
    (app / "queries" / "payers.edgeql").write_text("select billing::Invoice { payer: { name } };\n")
    return app


def test_a_library_with_modules_in_sub_folders_is_one_library(tmp_path):
    app = _project(tmp_path)
    for f in ("dbschema/core/types.gel", "dbschema/billing/types.gel", "dbschema/default.gel", "queries/payers.edgeql"):
        cfg = find_library(str(app / f))
        assert cfg.root == str(app) and cfg.name == "app", f
    cfg = find_library(str(app / "dbschema" / "billing" / "types.gel"))
    assert sorted(Path(p).relative_to(app).as_posix() for p in cfg.files()) == [
        "dbschema/billing/types.gel", "dbschema/core/types.gel", "dbschema/default.gel", "queries/payers.edgeql"]
    analysis = Analyzer().analyse(cfg, {})
    assert [d.render(analysis.texts) for d in analysis.diagnostics] == []
    # Go to definition of `core::User` in billing/types.gel: core/types.gel.
    billing = str(app / "dbschema" / "billing" / "types.gel")
    text = analysis.texts[billing]
    ref = ref_at(analysis, billing, text.index("core::User") + len("core::"))
    assert ref is not None
    loc = declaration(analysis, ref.symbol)
    assert loc is not None and loc[0] == str(app / "dbschema" / "core" / "types.gel")
    assert hover(analysis, billing, text.index("core::User") + len("core::")) is not None


def test_a_folder_without_a_build_file_is_still_its_own_library(tmp_path):
    d = tmp_path / "lone"
    d.mkdir()
    (d / "schema.esdl").write_text("type A { name: str; }\n")
    cfg = find_library(str(d / "schema.esdl"))
    assert cfg.root == str(d)
