#!/usr/bin/env python3
"""Rate schemac on a corpus of real Gel projects (a script, not a test).

The corpus is a folder of projects fetched by you, one sub-folder each, holding at least their
schema files (``*.esdl`` / ``*.gel``) and query files (``*.edgeql``); it is never committed (the
projects have their own licences). For every schema folder (a folder holding schema files
outside ``migrations/``, usually ``dbschema/``) the script compiles the schema alone with the CLI
(``python -m schemac compile``) as a cold process, then each query file of the same project
together with that schema, one query file at a time (Gel's generators, ``@gel/generate`` and
``edgeql-go``, likewise turn each file into one function). A query file belongs to the schema
folder of its project whose parent folder is the longest prefix of its path.

Each compile is one of:

- ``compiled``: exit 0;
- ``refused``: exit 1 with located diagnostics; counted by error code, and by message with quoted
  names blanked (so ``E0206 computed properties are not supported yet`` counts once per feature);
- ``crash``: anything else (a traceback, another exit status, a timeout).

It prints a line per schema folder, then the totals: schema folders compiled, query files
compiled (of all, and of those whose schema compiles), the refusals by code and by message.

    .venv-test/bin/python tests/bench/gel_corpus.py /path/to/corpus
    .venv-test/bin/python tests/bench/gel_corpus.py /path/to/corpus --jobs 2 --json out.json
    .venv-test/bin/python tests/bench/gel_corpus.py /path/to/corpus --pythonpath other/pants-plugins

``tests/bench/test_bench_smoke.py`` runs it on a tiny corpus written by the test so it cannot rot.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

SCHEMA_SUFFIXES = (".esdl", ".gel")
QUERY_SUFFIX = ".edgeql"
REPO = Path(__file__).resolve().parents[2]
DIAG = re.compile(r"^(?P<loc>[^\n]*?):\d+:\d+: (?P<sev>error|warning)\[(?P<code>[A-Z]+\d+)\]: (?P<msg>.*)$", re.M)
PLAIN_DIAG = re.compile(r"^(?:error|warning)\[(?P<code>[A-Z]+\d+)\]: (?P<msg>.*)$", re.M)


def _skip(path: Path) -> bool:
    parts = set(path.parts)
    return "migrations" in parts or "node_modules" in parts or "fixups" in parts


def find_schema_folders(project: Path) -> List[Path]:
    folders = set()
    for suffix in SCHEMA_SUFFIXES:
        for f in project.rglob(f"*{suffix}"):
            if f.is_file() and not _skip(f.relative_to(project)):
                folders.add(f.parent)
    # A folder nested in another schema folder (dbschema/modules/) is part of it.
    top = sorted(folders, key=lambda p: len(p.parts))
    kept: List[Path] = []
    for f in top:
        if not any(k in f.parents for k in kept):
            kept.append(f)
    return sorted(kept)


def is_gel_schema_dir(folder: Path) -> bool:
    """Whether Gel itself would read ``folder`` as a project's schema: ``dbschema/`` next to the
    project's ``gel.toml`` / ``edgedb.toml``, or the ``schema-dir`` that file names
    (https://docs.geldata.com/reference/reference/gel_toml). Other folders holding ``.esdl`` /
    ``.gel`` files (templates, EdgeQL kept under a schema suffix) are rated too, but counted apart."""
    for name in ("gel.toml", "edgedb.toml"):
        toml = folder.parent / name
        if toml.is_file():
            m = re.search(r"""^\s*schema-dir\s*=\s*["']([^"']+)["']""", toml.read_text(errors="replace"), re.M)
            if m:
                return (folder.parent / m.group(1)).resolve() == folder.resolve()
    return folder.name == "dbschema"


def schema_files(folder: Path) -> List[Path]:
    return sorted(f for s in SCHEMA_SUFFIXES for f in folder.rglob(f"*{s}")
                  if f.is_file() and not _skip(f.relative_to(folder)))


def query_files(project: Path, folders: List[Path]) -> Dict[Path, List[Path]]:
    owner: Dict[Path, List[Path]] = {f: [] for f in folders}
    for q in sorted(project.rglob(f"*{QUERY_SUFFIX}")):
        if not q.is_file() or _skip(q.relative_to(project)):
            continue
        best: Optional[Path] = None
        for f in folders:
            root = f.parent
            if root == q.parent or root in q.parents:
                if best is None or len(root.parts) > len(best.parent.parts):
                    best = f
        if best is None and folders:
            best = folders[0]
        if best is not None:
            owner[best].append(q)
    return owner


def _normalise(msg: str) -> str:
    msg = re.sub(r"\S*/\S*", "<path>", msg)
    msg = re.sub(r"'[^']*'", "'…'", msg)
    msg = re.sub(r"\b\d+\b", "N", msg)
    return msg[:110]


def compile_once(python: str, pythonpath: str, files: List[Path], timeout: float) -> Tuple[str, List[Tuple[str, str]], str]:
    with tempfile.TemporaryDirectory(prefix="gel-corpus-") as out:
        env = dict(os.environ, PYTHONPATH=pythonpath, PYTHONDONTWRITEBYTECODE="1")
        cmd = [python, "-m", "schemac", "compile", "--library", "corpus", "--out", out] + [str(f) for f in files]
        try:
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "crash", [], f"timeout after {timeout:.0f} s"
    diags = [(m["code"], m["msg"]) for m in DIAG.finditer(p.stderr) if m["sev"] == "error"]
    diags += [(m["code"], m["msg"]) for m in PLAIN_DIAG.finditer(p.stderr) if m["code"].startswith("E")]
    if p.returncode == 0:
        return "compiled", [], ""
    if p.returncode == 1 and diags and "Traceback" not in p.stderr:
        return "refused", diags, ""
    return "crash", diags, (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1][:200]


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path, help="folder of fetched projects, one sub-folder each")
    ap.add_argument("--pythonpath", default=str(REPO / "pants-plugins"),
                    help="where the schemac package is imported from (default: this checkout)")
    ap.add_argument("--python", default=sys.executable, help="interpreter with lark and jinja2")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds before a compile counts as a crash")
    ap.add_argument("--no-queries", action="store_true", help="rate the schema folders only")
    ap.add_argument("--json", type=Path, help="write every result to this file")
    ap.add_argument("--show", type=int, default=25, help="messages to list per table")
    args = ap.parse_args(argv)

    projects = sorted(p for p in args.corpus.iterdir() if p.is_dir())
    jobs: List[Tuple[str, Path, Optional[Path], List[Path]]] = []
    for project in projects:
        folders = find_schema_folders(project)
        owners = query_files(project, folders)
        for folder in folders:
            files = schema_files(folder)
            jobs.append(("schema", folder, None, files))
            if not args.no_queries:
                for q in owners[folder]:
                    jobs.append(("query", folder, q, files + [q]))

    results: Dict[Tuple[str, str, str], Tuple[str, List[Tuple[str, str]], str]] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futs = {pool.submit(compile_once, args.python, args.pythonpath, files, args.timeout): (kind, folder, q)
                for kind, folder, q, files in jobs}
        for fut in concurrent.futures.as_completed(futs):
            kind, folder, q = futs[fut]
            results[(kind, str(folder), str(q or ""))] = fut.result()

    def rel(p: str) -> str:
        return os.path.relpath(p, args.corpus)

    schema_rows = sorted((k, v) for k, v in results.items() if k[0] == "schema")
    schema_ok = {k[1] for k, v in schema_rows if v[0] == "compiled"}
    print(f"{'schema folder':60} {'schema':9} queries compiled/total  first refusal")
    for (kind, folder, _), (status, diags, crash) in schema_rows:
        qs = [v for k, v in results.items() if k[0] == "query" and k[1] == folder]
        qok = sum(1 for v in qs if v[0] == "compiled")
        first = f"{diags[0][0]} {diags[0][1][:70]}" if diags else crash[:80]
        print(f"{rel(folder)[:60]:60} {status:9} {qok:4}/{len(qs):<4}  {first}")

    def tally(kind: str, only_ok_schema: bool = False) -> Tuple[int, collections.Counter, collections.Counter, collections.Counter]:
        rows = [(k, v) for k, v in results.items() if k[0] == kind and (not only_ok_schema or k[1] in schema_ok)]
        status = collections.Counter(v[0] for _, v in rows)
        codes: collections.Counter = collections.Counter()
        msgs: collections.Counter = collections.Counter()
        for _, (st, diags, crash) in rows:
            if st == "refused":
                for code in sorted({c for c, _ in diags}):
                    codes[code] += 1
                for key in sorted({f"{c} {_normalise(m)}" for c, m in diags}):
                    msgs[key] += 1
            elif st == "crash":
                msgs[f"CRASH {crash[:100]}"] += 1
        return len(rows), status, codes, msgs

    def pct(a: int, b: int) -> str:
        return f"{a}/{b} ({100.0 * a / b:.0f} %)" if b else "0/0"

    n, st, codes, msgs = tally("schema")
    print(f"\nschema folders: {len(projects)} projects, {n} folders: compiled {pct(st['compiled'], n)}, "
          f"refused {st['refused']}, crash {st['crash']}")
    print("  folders refused, by code:", ", ".join(f"{c} {k}" for c, k in codes.most_common()))
    for m, k in msgs.most_common(args.show):
        print(f"  {k:4}  {m}")
    gel_dirs = [k[1] for k, _ in schema_rows if is_gel_schema_dir(Path(k[1]))]
    gel_ok = sum(1 for f in gel_dirs if f in schema_ok)
    print(f"  of which Gel project schema folders (dbschema/ or the schema-dir of gel.toml/edgedb.toml): "
          f"compiled {pct(gel_ok, len(gel_dirs))}; other folders holding .esdl/.gel: "
          f"{n - len(gel_dirs)} ({', '.join(rel(k[1]) for k, _ in schema_rows if not is_gel_schema_dir(Path(k[1]))) or 'none'})")
    if not args.no_queries:
        n, st, codes, msgs = tally("query")
        n2, st2, _, _ = tally("query", only_ok_schema=True)
        print(f"\nquery files: {n}: compiled {pct(st['compiled'], n)}, refused {st['refused']}, crash {st['crash']}; "
              f"with a compiling schema: compiled {pct(st2['compiled'], n2)}")
        print("  files refused, by code:", ", ".join(f"{c} {k}" for c, k in codes.most_common()))
        for m, k in msgs.most_common(args.show):
            print(f"  {k:4}  {m}")
    if args.json:
        args.json.write_text(json.dumps(
            [{"kind": k[0], "schema": rel(k[1]), "query": rel(k[2]) if k[2] else None, "status": v[0],
              "diagnostics": v[1], "crash": v[2]} for k, v in sorted(results.items())], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
