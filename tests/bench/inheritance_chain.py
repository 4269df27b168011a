"""Compile time of a long inheritance chain: ``abstract type T0 { p0: str; }``,
``abstract type T1 extending T0 { p1: str; }``, ... and one concrete type at the end, whose
table has every member of the chain (so the output grows linearly with the chain).

    python tests/bench/inheritance_chain.py [N ...]      (default: 250 500 1000 2000)

Prints the compile time of each length (best of ``--repeat``, in-process) and the ratio of each
time to the previous one's, which is about the ratio of the lengths when the compile is linear
(2.0 for a doubled chain; 1,000 levels took 33-89 s before the resolver's walk, the abstract
types' checks and the column lookups were made linear, about 0.3 s after). No assertion on
the figures: the machine's speed varies; tests/bench/test_inheritance_chain_smoke.py keeps the
script working."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Dict, List, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "pants-plugins"))

from schemac.semantics.library import Options
from schemac.pipeline import compile_library  # noqa: E402


def chain_library(n: int) -> Dict[str, str]:
    """The sources of a chain of ``n`` types (all abstract but the last)."""
    lines = []
    for i in range(n):
        abstract = "" if i == n - 1 else "abstract "
        extends = f" extending T{i - 1}" if i else ""
        lines.append(f"{abstract}type T{i}{extends} {{ p{i}: str; }}")
    query = f"select T{n - 1} {{ p0, p{n - 1} }} filter .p0 = <str>$p;\n"
    return {"chain/schema.esdl": "\n".join(lines) + "\n", "chain/queries/get_last.edgeql": query}


def measure(sizes: List[int], repeat: int = 1) -> List[Tuple[int, float]]:
    """``[(n, best seconds)]`` of compiling each chain."""
    out = []
    for n in sizes:
        sources = chain_library(n)
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            compile_library(sources, Options(library="chain"))
            best = min(best, time.perf_counter() - start)
        out.append((n, best))
    return out


def report(results: List[Tuple[int, float]]) -> str:
    lines = ["levels   seconds   ratio to previous (levels ratio)"]
    prev = None
    for n, t in results:
        ratio = f"{t / prev[1]:.2f} ({n / prev[0]:.1f})" if prev and prev[1] > 0 else "-"
        lines.append(f"{n:>6}   {t:7.3f}   {ratio}")
        prev = (n, t)
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sizes", nargs="*", type=int, default=[250, 500, 1000, 2000])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    compile_library(chain_library(10), Options(library="chain"))  # warm-up: imports, templates
    print(report(measure(args.sizes, args.repeat)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
