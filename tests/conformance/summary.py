#!/usr/bin/env python3
"""Figures of the last conformance run (``tests/run tests/conformance``), per Gel source file:
cases, MATCH, MISMATCH, REFUSED (by code), PREPARE (statements PostgreSQL rejected), and
``q-ok``: cases refused because their fixture's setup is, whose query itself compiles and PREPAREs.

    python3 tests/conformance/summary.py [--markdown] [--refusals N] [--status S] [DIR]

DIR is where the run wrote its outcomes (``$SCHEMAC_CONFORMANCE_OUT``, default ``.conformance/``
at the repository root). ``--status MISMATCH`` lists those cases with their messages.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
from collections import Counter, defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir", nargs="?", default=os.environ.get("SCHEMAC_CONFORMANCE_OUT")
                    or os.path.join(ROOT, ".conformance"))
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--refusals", type=int, default=0, help="list the N most frequent refusal messages")
    ap.add_argument("--status", help="list the cases with this status")
    ap.add_argument("--write-matching", action="store_true",
                    help="add the run's MATCH cases (on the schema as written or reduced) to matching.txt")
    args = ap.parse_args(argv)
    outcomes = {}
    files = []
    for path in sorted(glob.glob(os.path.join(args.dir, "outcomes-*.json"))):
        with open(path) as f:
            data = json.load(f)
        if isinstance(data, dict):
            files.append(data)
    newest = max(files, key=lambda d: d["time"])["run"] if files else None
    for data in files:
        if data["run"] == newest:  # (the workers of the last run; older files are stale)
            for o in data["outcomes"]:
                outcomes[o["id"]] = o
    if not outcomes:
        print(f"no outcomes in {args.dir}: run tests/run tests/conformance first", file=sys.stderr)
        return 1
    per = defaultdict(Counter)
    codes = defaultdict(Counter)
    for o in outcomes.values():
        src = o["source"].rsplit(":", 1)[0]
        per[src]["cases"] += 1
        per[src][o["status"]] += 1
        if o["status"] == "REFUSED":
            codes[src][o["code"]] += 1
        e = o.get("reduced") or o
        if e.get("query_code") == "compiles":
            per[src]["q_compiles"] += 1
        r = o.get("reduced")
        if r is not None:
            per[src]["reduced"] += 1
            per[src]["r_" + r["status"]] += 1
    total = Counter()
    all_codes = Counter()
    rows = []
    for src in sorted(per):
        c = per[src]
        total.update(c)
        all_codes.update(codes[src])
        rows.append((src, c, codes[src]))
    rows.append(("total", total, all_codes))

    def pct(c):
        return f"{100.0 * c['MATCH'] / c['cases']:.1f}%" if c["cases"] else "-"

    def fmt_codes(cc):
        return ", ".join(f"{k} {v}" for k, v in sorted(cc.items(), key=lambda kv: (-kv[1], kv[0])))

    if args.markdown:
        print("| Gel test file | cases | MATCH | MATCH % | MISMATCH | PREPARE | REFUSED | refused by code | "
              "query compiles, setup refused |")
        print("|---|---:|---:|---:|---:|---:|---:|---|---:|")
        for src, c, cc in rows:
            print(f"| {src} | {c['cases']} | {c['MATCH']} | {pct(c)} | {c['MISMATCH']} | {c['PREPARE']} | "
                  f"{c['REFUSED']} | {fmt_codes(cc)} | {c['q_compiles']} |")
    else:
        print(f"{'Gel test file':40} {'cases':>6} {'MATCH':>6} {'%':>6} {'MISM':>5} {'PREP':>5} {'REFUSED':>7} "
              f"{'q-ok':>5}  by code")
        for src, c, cc in rows:
            print(f"{src:40} {c['cases']:6} {c['MATCH']:6} {pct(c):>6} {c['MISMATCH']:5} {c['PREPARE']:5} "
                  f"{c['REFUSED']:7} {c['q_compiles']:5}  {fmt_codes(cc)}")
    if total["reduced"]:
        print()
        print("Cases whose fixture schema schemac refuses, run on the schema left after removing the refused "
              "declarations:")
        if args.markdown:
            print()
            print("| Gel test file | such cases | MATCH | MISMATCH | PREPARE | REFUSED |")
            print("|---|---:|---:|---:|---:|---:|")
        for src, c, _ in rows:
            if c["reduced"]:
                if args.markdown:
                    print(f"| {src} | {c['reduced']} | {c['r_MATCH']} | {c['r_MISMATCH']} | {c['r_PREPARE']} | "
                          f"{c['r_REFUSED']} |")
                else:
                    print(f"{src:40} {c['reduced']:6} {c['r_MATCH']:6} {'':6} {c['r_MISMATCH']:5} "
                          f"{c['r_PREPARE']:5} {c['r_REFUSED']:7}")

    def effective(o):
        return o.get("reduced") or o

    if args.refusals:
        msgs = Counter(f"{effective(o)['code']}: {effective(o)['message'][:140]}" for o in outcomes.values()
                       if effective(o)["status"] == "REFUSED")
        print()
        for m, n in msgs.most_common(args.refusals):
            print(f"{n:5}  {m}")
    if args.write_matching:
        path = os.path.join(ROOT, "tests", "conformance", "matching.txt")
        have = set()
        if os.path.exists(path):
            with open(path) as f:
                have = {x.strip() for x in f if x.strip() and not x.startswith("#")}
        now = {i for i, o in outcomes.items() if (o.get("reduced") or o)["status"] == "MATCH"}
        with open(path, "w") as f:
            f.write("# Conformance cases that MATCH Gel's result (on the fixture's schema, or on what is left of it\n"
                    "# after removing the declarations schemac refuses). A listed case that stops matching fails the\n"
                    "# suite. Add new ones with: python3 tests/conformance/summary.py --write-matching\n")
            for i in sorted(have | now):
                f.write(i + "\n")
        print(f"\n{path}: {len(have | now)} cases ({len(now - have)} new)")
    if args.status:
        print()
        for o in sorted(outcomes.values(), key=lambda o: o["id"]):
            e = effective(o)
            if e["status"] == args.status:
                tag = " [reduced schema]" if o.get("reduced") else ""
                print(f"{o['id']}  ({o['source']}){tag}\n    {e['message'][:400]}\n    got: {(e.get('got') or '')[:300]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
