#!/usr/bin/env python3
"""Write every output of the compiler on the repository's libraries to a folder, to diff two
compilers byte for byte (a script, not a test).

It compiles, in-process, every library under ``schemas/``, every golden case under
``tests/cases/`` (with its ``options.json``), ``schemas/jobs`` with ``tests/e2e/jobs_extra``, and
the synthetic benchmark library of ``tests/bench/compile_speed.py`` (N types, plain and with
``features``) and one library per statement form of :data:`FORMS`, and writes each output
file as ``<out>/<library>/<path>``; a library that does
not compile writes its diagnostics to ``<out>/<library>/ERROR``. Each query's SQL is also
written alone to ``<out>/<library>/queries/<name>.sql``, so a difference names its query.

    .venv-test/bin/python tests/bench/sql_snapshot.py /tmp/before        # on the old commit
    .venv-test/bin/python tests/bench/sql_snapshot.py /tmp/after         # on the new one
    diff -r /tmp/before /tmp/after

``--pythonpath`` compiles with another checkout's compiler (default: this one's).
``--parse-check`` also parses every query's statement (and each of its variants) with pglast,
Postgres' own parser (``pip install 'pglast<8'``; not in the test venv), without a server, and
prints those it refuses.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Dict, Iterator, Tuple

REPO = Path(__file__).resolve().parents[2]


#: Statement forms the libraries above do not all reach (the nodes of each statement kind):
#: loop and upsert link writes, a shape over a write, enumerate, unions of subtypes, group.
FORMS_SCHEMA = """
type Tag { required name: str { constraint exclusive; } }
type Item { required name: str { constraint exclusive; }; n: int64; multi tags: Tag { note: str; }; owner: Item; }
abstract type Base { required title: str; }
type A extending Base { a: str; }
type B extending Base { b: str; }
"""
FORMS = {
    "elements_enumerate": "select enumerate({'a', 'b'})",
    "unpack_enumerate": "select enumerate(array_unpack(<array<str>>$xs))",
    "elements": "select {1, 2, 3}",
    "elements_distinct": "select distinct {<str>$a, 'x'}",
    "value_set_paged": "select (select Item filter .n > 1 order by .name limit 2).name",
    "value_set_distinct": "select distinct (select Item).name",
    "union_paged": "select Base { title } order by .title limit 3",
    "union": "select Base { title }",
    "link_props": "select Item { name, tags: { name, @note } } filter .name = <str>$n",
    "assert_single": "select assert_single((select Item filter .name = <str>$n))",
    "insert_shape_links": "select (insert Item { name := <str>$n, tags := (select Tag filter .name in "
                          "array_unpack(<array<str>>$t)) }) { name, tags: { name } }",
    "update_shape_links": "select (update Item filter .name = <str>$n set { tags += (select Tag filter .name = "
                          "<str>$t) }) { name, tags: { name } }",
    "loop_insert_links": "for x in array_unpack(<array<str>>$names) union (insert Item { name := x, tags := "
                         "(select Tag filter .name = x) })",
    "upsert_links": "insert Item { name := <str>$n, tags := (select Tag filter .name = <str>$t) } unless conflict on "
                    ".name else (update Item set { tags += (select Tag filter .name = <str>$t) })",
    "loop_update_links": "for x in array_unpack(<array<str>>$names) union (update Item filter .name = x set { "
                         "tags := (select Tag filter .name = x) })",
    "with_insert": "with i := (insert Item { name := <str>$n }) select i { name }",
    "delete": "delete Item filter .name = <str>$n",
    "unlink": "update Item filter .name = <str>$n set { tags -= (select Tag filter .name = <str>$t) }",
    "for_values": "for x in {1, 2} union (select x + 1)",
    "group": "group Item { name } by .n",
}


def _libraries(bench_n: int) -> Iterator[Tuple[str, Dict[str, str], dict]]:
    sys.path.insert(0, str(REPO / "tests"))
    sys.path.insert(0, str(REPO / "tests" / "bench"))
    import libraries  # noqa: E402
    import compile_speed  # noqa: E402

    for lib_dir in libraries.library_dirs():
        yield f"schemas-{lib_dir.name}", libraries.library_sources(lib_dir), {"library": lib_dir.name}
    cases = REPO / "tests" / "cases"
    for case in sorted(p for p in cases.iterdir() if (p / "schema.esdl").exists()):
        sources = {f"cases/{case.name}/{f.relative_to(case).as_posix()}": f.read_text(encoding="utf-8")
                   for f in sorted(case.glob("*.esdl")) + sorted(case.glob("queries/*.edgeql"))}
        options = json.loads((case / "options.json").read_text()) if (case / "options.json").exists() else {}
        yield f"case-{case.name}", sources, dict(library=case.name, **options)
    yield "jobs-extra", libraries.jobs_with_extra_sources(), {"library": "jobs"}
    for name, query in FORMS.items():
        yield f"forms-{name}", {"forms/schema.esdl": FORMS_SCHEMA, f"forms/queries/{name}.edgeql": query}, \
            {"library": "forms"}
    yield f"bench-{bench_n}", compile_speed.generate_library(bench_n), {"library": "bench"}
    yield f"bench-{bench_n}-features", compile_speed.generate_library(bench_n, features=True), {"library": "bench"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--pythonpath", type=Path, default=REPO / "pants-plugins")
    ap.add_argument("--bench-n", type=int, default=100)
    ap.add_argument("--parse-check", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(args.pythonpath))
    from schemac.diagnostics import CompileError
    from schemac.pipeline import check_library, render_library
    from schemac.semantics.library import Options

    parse = None
    if args.parse_check:
        import pglast

        parse = pglast.parse_sql
    refused = checked = 0
    if args.out.exists():
        shutil.rmtree(args.out)
    for name, sources, options in _libraries(args.bench_n):
        root = args.out / name
        root.mkdir(parents=True)
        try:
            lib = check_library(sources, Options(**options))
            outputs = render_library(lib, sources)
        except CompileError as e:
            (root / "ERROR").write_text(str(e))
            continue
        for rel, text in outputs.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        for q in lib.queries:
            p = root / "queries" / f"{q.name}.sql"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(q.sql)
            for sql in [q.sql] + [v.sql for v in getattr(q, "variants", ())] if parse is not None else ():
                checked += 1
                try:
                    parse(sql)
                except Exception as e:  # noqa: BLE001 (pglast's ParseError)
                    refused += 1
                    print(f"  {name}/{q.name}: pglast refuses it: {e}")
        print(f"{name}: {len(outputs)} files, {len(lib.queries)} queries")
    if parse is not None:
        print(f"pglast: {checked - refused} of {checked} statements parse")
    return 1 if refused else 0


if __name__ == "__main__":
    raise SystemExit(main())
