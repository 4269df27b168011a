"""The repository's schema libraries as tests see them: compiled by the compiler core exactly
as the Pants adapter compiles them (same source globs, buildroot-relative paths, options), and
the committed ``generated/`` tree they must match."""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path
from typing import Dict, List

from schemac.semantics.library import Options
from schemac.pipeline import compile_library

REPO_ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = REPO_ROOT / "schemas"
GENERATED = REPO_ROOT / "generated"

#: The default `sources` of a `schema_library` (schemac_pants.target_types).
SOURCE_GLOBS = ("*.esdl", "*.gel", "*.edgeql", "queries/*.edgeql", "migrations/*.sql", "migrations/snapshot.json",
                "migrations/schemac.sum")


def library_dirs() -> List[Path]:
    """Every directory under ``schemas/`` with a BUILD file declaring a schema_library."""
    return sorted(p.parent for p in SCHEMAS.glob("**/BUILD") if "schema_library(" in p.read_text())


def library_sources(lib_dir: Path) -> Dict[str, str]:
    """``{buildroot-relative path: text}`` of a library's sources."""
    out: Dict[str, str] = {}
    for pattern in SOURCE_GLOBS:
        for f in glob.glob(str(lib_dir / pattern)):
            rel = os.path.relpath(f, REPO_ROOT).replace(os.sep, "/")
            out[rel] = Path(f).read_text(encoding="utf-8")
    return dict(sorted(out.items()))


#: Test-only types and queries compiled together with schemas/jobs by the runner-option tests
#: (int64 at the top level, optional, in arrays and nested shapes; arrays, bytes, links).
JOBS_EXTRA = REPO_ROOT / "tests" / "e2e" / "jobs_extra"


def jobs_with_extra_sources() -> Dict[str, str]:
    """The sources of schemas/jobs plus those of :data:`JOBS_EXTRA` (buildroot-relative)."""
    out = library_sources(SCHEMAS / "jobs")
    for f in sorted(JOBS_EXTRA.glob("*.esdl")) + sorted(JOBS_EXTRA.glob("queries/*.edgeql")):
        out[os.path.relpath(f, REPO_ROOT).replace(os.sep, "/")] = f.read_text(encoding="utf-8")
    return dict(sorted(out.items()))


def compile_repo_library(lib_dir: Path) -> Dict[str, str]:
    """``{path under generated/: text}``, e.g. ``jobs/sql/000001_init.up.sql``."""
    rel_dir = os.path.relpath(lib_dir, SCHEMAS).replace(os.sep, "/")
    outputs = compile_library(library_sources(lib_dir), Options(library=lib_dir.name))
    return {f"{rel_dir}/{k}": v for k, v in outputs.items()}


def generated_files() -> Dict[str, str]:
    """The committed ``generated/`` tree: ``{relative path: text}`` (README excluded)."""
    out: Dict[str, str] = {}
    for p in sorted(GENERATED.rglob("*")):
        if p.is_file() and p.name != "README.md":
            out[p.relative_to(GENERATED).as_posix()] = p.read_text(encoding="utf-8")
    return out


def case_plans(case: str) -> Dict[str, object]:
    """``{query name: QueryPlan}`` of a golden case under ``tests/cases/<case>/``."""
    from schemac.pipeline import check_library

    root = REPO_ROOT / "tests" / "cases" / case
    sources = {f"cases/{case}/{f.relative_to(root).as_posix()}": f.read_text(encoding="utf-8")
               for f in sorted(root.glob("*.esdl")) + sorted(root.glob("queries/*.edgeql"))}
    return {q.name: q for q in check_library(sources, Options(library=case)).queries}


def run_plan(pg, plan, *args):
    """Run a query plan with psycopg on the ``pg`` fixture's database: ``$n`` -> ``%(pn)s`` (a
    parameter may appear several times, in any order). An insert with optional parameters for
    properties with a default runs the statement the runners choose (``plan.variants``: the
    one leaving out the columns of the parameters given as ``None``). Returns the rows."""
    sql, values = plan.sql, list(args)
    if plan.variants:
        keys = plan.variants[-1].omitted
        v = plan.variants[sum(1 << i for i, k in enumerate(keys) if args[k - 1] is None)]
        sql, values = v.sql, [args[k - 1] for k in v.sent]
    return pg.execute(re.sub(r"\$(\d+)", r"%(p\1)s", sql), {f"p{i + 1}": a for i, a in enumerate(values)})
