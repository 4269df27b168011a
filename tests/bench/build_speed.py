#!/usr/bin/env python3
"""Build-speed benchmark of schemac under Pants 2.17 (a script, not a test).

For each N (default 1, 10, 100) it builds a synthetic monorepo in a temporary directory: a copy of
this repo's Pants setup (the ``./pants`` launcher, ``pants.toml``, the root ``BUILD``,
``pants-plugins/`` and ``.ci/``, taken from the committed ``HEAD``, or from the work tree with
``--worktree``) plus N schema libraries ``schemas/libNNN`` (4 object types of ~15 properties, 8
queries each; the generator of ``compile_speed.py`` with one seed per library). It then times, one
``./pants --no-pantsd`` run each:

``cold``
    ``export-codegen schemas::`` with an empty local store (``--local-store-dir``): every process
    runs (the compiler's venv PEX build, N compiles, Pants' own helpers);
``warm``
    the same again, same store: a no-op (0 compiles);
``edit 1``
    after adding a type to ``lib000``'s schema: exactly one compile must run (the count is shown
    and checked, from the local runner's log of the processes it spawned);
``cold+write``
    cold again with a fresh local store and a fresh, empty BuildGrid remote cache
    (``tests/buildgrid_server.py``) with writes on: the cost of filling the cache;
``remote``
    cold again with another fresh local store, remote cache reads only: every compile must be a
    remote cache hit (count shown);

and, for comparison on the same machine, Pants' own per-process overhead with the same goal, the
same number of targets and one process per target (a tiny plugin, ``bench_baseline``, written into
the synthetic repo):

``trivial``
    ``export-codegen baseline/trivial::``: one ``/bin/sh -c 'echo done > out'`` process per
    target (sandbox, spawn, capture, cache write: Pants' floor for any process);
``python``
    ``export-codegen baseline/python::``: one ``python -c`` process per target in the *compiler's
    own* venv PEX (the same ``VenvPex`` the compile uses): the floor plus a Python start.

Every run uses the same named caches (``--named-caches-dir``, filled once by an unmeasured priming
run, so no run downloads anything) and a fresh local store unless said otherwise. The script prints
one table with all runs side by side, the per-library marginal cost of each kind of run (slope
between the smallest and the largest N) as ratios to the trivial process, Pants' counters, and
where the time goes: the marginal cost per library (least-squares slope over the sizes) of the
wall time and of Pants' own measure of the processes' run time
(``local_process_total_time_run_ms``, in which Pants' start and graph work cancel out). It also
times the compiler alone (``python -m schemac compile`` on one library, a cold process outside
Pants). ``--json FILE`` saves the raw figures; ``--from-json FILE`` prints their report again.

Run it from the repository root with the test venv (it reuses helpers of the Pants e2e tests)::

    .venv-test/bin/python tests/bench/build_speed.py                 # N = 1, 10, 100 (~20 min)
    .venv-test/bin/python tests/bench/build_speed.py --sizes 1,10    # fewer
    .venv-test/bin/python tests/bench/build_speed.py --no-remote     # without BuildGrid

BuildGrid comes from ``$SCHEMAC_BUILDGRID_BGD`` or ``tests/buildgrid/setup`` (which builds its
venv once). ``tests/bench/test_build_speed_smoke.py`` checks the synthetic repo and the baseline
plugin without running Pants (a full N=1 run takes minutes: no test runs it).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

BENCH_DIR = Path(__file__).resolve().parent
TESTS_DIR = BENCH_DIR.parent
REPO_ROOT = TESTS_DIR.parent
for _p in (BENCH_DIR, TESTS_DIR, TESTS_DIR / "pants"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from buildgrid_server import BuildGrid, bgd_command  # noqa: E402
from compile_speed import generate_library, write_library  # noqa: E402
from test_pants_export_codegen_e2e import COMPILE_DESCRIPTION, PantsRun, _clean_env  # noqa: E402

TYPES_PER_LIBRARY = 4
PANTS_SETUP = ("pants", "pants.toml", "BUILD", "pants-plugins", ".ci")
PEX_CLI = ("pex-v2.1.137.pex", "pex-v2.1.137.pex.verified")
TRIVIAL_DESCRIPTION = "Trivial process for"
PYTHON_DESCRIPTION = "Python process for"
LOG_LEVELS = (
    "--log-levels-by-target="
    "{'process_execution::local': 'debug', 'remote::remote_cache': 'debug'}"
)

# ---------------------------------------------------------------------------------------------
# The baseline plugin: one trivial process per target, through export-codegen like schemac.

BASELINE_REGISTER = '''\
"""Benchmark baseline (written by tests/bench/build_speed.py): one process per target, through
export-codegen, to measure Pants' own per-process overhead next to the schemac compile."""

from pants.backend.python.util_rules.pex import VenvPex, VenvPexProcess
from pants.engine.fs import AddPrefix, Digest, Snapshot
from pants.engine.process import Process, ProcessResult
from pants.engine.rules import Get, collect_rules, rule
from pants.engine.target import (
    COMMON_TARGET_FIELDS,
    GeneratedSources,
    GenerateSourcesRequest,
    MultipleSourcesField,
    Target,
)
from pants.engine.unions import UnionRule
from pants.util.logging import LogLevel

from schemac_pants.rules import SchemacVenvPexRequest


class TrivialSourcesField(MultipleSourcesField):
    default = ("*.txt",)
    help = "Input files (their digest is part of the process key)."


class PythonSourcesField(MultipleSourcesField):
    default = ("*.txt",)
    help = "Input files (their digest is part of the process key)."


class BaselineOutputField(MultipleSourcesField):
    help = "Generated output of a baseline target."


class BenchTrivial(Target):
    alias = "bench_trivial"
    core_fields = (*COMMON_TARGET_FIELDS, TrivialSourcesField)
    help = "One `/bin/sh -c 'echo done > out'` process per target."


class BenchPython(Target):
    alias = "bench_python"
    core_fields = (*COMMON_TARGET_FIELDS, PythonSourcesField)
    help = "One `python -c` process per target, in the schemac compiler's venv PEX."


class GenerateTrivial(GenerateSourcesRequest):
    input = TrivialSourcesField
    output = BaselineOutputField


class GeneratePython(GenerateSourcesRequest):
    input = PythonSourcesField
    output = BaselineOutputField


async def _rerooted(request, output_digest: Digest) -> GeneratedSources:
    digest = await Get(Digest, AddPrefix(output_digest, request.protocol_target.address.spec_path))
    return GeneratedSources(await Get(Snapshot, Digest, digest))


@rule(desc="Baseline: trivial process", level=LogLevel.DEBUG)
async def generate_trivial(request: GenerateTrivial) -> GeneratedSources:
    result = await Get(
        ProcessResult,
        Process(
            argv=("/bin/sh", "-c", "echo done > trivial.out"),
            input_digest=request.protocol_sources.digest,
            output_files=("trivial.out",),
            description=f"Trivial process for {request.protocol_target.address}",
            level=LogLevel.DEBUG,
        ),
    )
    return await _rerooted(request, result.output_digest)


@rule(desc="Baseline: Python process", level=LogLevel.DEBUG)
async def generate_python(request: GeneratePython) -> GeneratedSources:
    venv_pex = await Get(VenvPex, SchemacVenvPexRequest())
    result = await Get(
        ProcessResult,
        VenvPexProcess(
            venv_pex,
            argv=("-c", "open('python.out', 'w').write('done')"),
            extra_env={"PEX_INTERPRETER": "1"},
            input_digest=request.protocol_sources.digest,
            output_files=("python.out",),
            description=f"Python process for {request.protocol_target.address}",
            level=LogLevel.DEBUG,
        ),
    )
    return await _rerooted(request, result.output_digest)


def target_types():
    return [BenchTrivial, BenchPython]


def rules():
    return [
        *collect_rules(),
        UnionRule(GenerateSourcesRequest, GenerateTrivial),
        UnionRule(GenerateSourcesRequest, GeneratePython),
    ]
'''


# ---------------------------------------------------------------------------------------------
# The synthetic monorepo


def copy_pants_setup(dest: Path, *, worktree: bool = False) -> None:
    """The launcher, pants.toml, root BUILD, pants-plugins/ and .ci/ of this repo, into dest."""
    dest.mkdir(parents=True, exist_ok=True)
    if worktree:
        for name in PANTS_SETUP:
            src = REPO_ROOT / name
            if src.is_dir():
                shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(src, dest / name)
    else:
        tar = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "archive", "--format=tar", "HEAD", *PANTS_SETUP],
            check=True, capture_output=True,
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
            tf.extractall(dest)
    copy_pex_cli(REPO_ROOT, dest)


def copy_pex_cli(src: Path, dest: Path) -> bool:
    """Reuse a verified pex CLI (./pants would build the same bytes again, outside Pants)."""
    if not all((src / ".tools" / n).is_file() for n in PEX_CLI):
        return False
    (dest / ".tools").mkdir(exist_ok=True)
    for n in PEX_CLI:
        shutil.copy2(src / ".tools" / n, dest / ".tools" / n)
    return True


def add_baseline_backend(repo: Path) -> None:
    plugin = repo / "pants-plugins" / "bench_baseline"
    plugin.mkdir(parents=True, exist_ok=True)
    (plugin / "__init__.py").write_text("")
    (plugin / "register.py").write_text(BASELINE_REGISTER)
    toml = repo / "pants.toml"
    text = toml.read_text()
    new, count = re.subn(r"(?m)^(backend_packages = \[\n)", r'\1  "bench_baseline",\n', text)
    if count != 1:
        raise RuntimeError("pants.toml has no `backend_packages = [` line to extend")
    toml.write_text(new)


def library_name(i: int) -> str:
    return f"lib{i:03d}"


def write_libraries(repo: Path, n: int) -> None:
    for i in range(n):
        name = library_name(i)
        d = repo / "schemas" / name
        write_library(generate_library(TYPES_PER_LIBRARY, seed=i), d)
        (d / "BUILD").write_text(f'schema_library(name="{name}", go_package="{name}")\n')
        for kind, alias in (("trivial", "bench_trivial"), ("python", "bench_python")):
            t = repo / "baseline" / kind / f"t{i:03d}"
            t.mkdir(parents=True, exist_ok=True)
            (t / "input.txt").write_text(f"{kind} {i}\n")
            (t / "BUILD").write_text(f'{alias}(name="t{i:03d}")\n')


def edit_one_library(repo: Path, k: int) -> str:
    """Add a type to lib000's schema (a real schema change); returns the edited file."""
    path = repo / "schemas" / library_name(0) / "schema.esdl"
    with path.open("a", encoding="utf-8") as f:
        f.write(f"\ntype BenchEdit{k} {{\n  required label: str;\n  note: str;\n}}\n")
    return str(path.relative_to(repo))


def make_repo(root: Path, n: int, *, worktree: bool = False, tools_from: Optional[Path] = None) -> Path:
    copy_pants_setup(root, worktree=worktree)
    if tools_from is not None:
        copy_pex_cli(tools_from, root)
    add_baseline_backend(root)
    write_libraries(root, n)
    return root


# ---------------------------------------------------------------------------------------------
# Running Pants


@dataclass
class Measured:
    """The fastest of `repeat` runs of one kind (its counters and logs), and all their times."""

    label: str
    run: PantsRun
    times: List[float] = field(default_factory=list)
    loads: List[float] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return self.run.seconds

    def spawned(self, prefix: str) -> int:
        return sum(1 for d in self.run.spawned if d.startswith(prefix))

    def remote(self, outcome: str, prefix: str) -> int:
        found = re.findall(rf'remote cache {outcome} for: "([^"]*)"', self.run.stderr)
        return sum(1 for d in found if d.startswith(prefix))

    def counter(self, name: str) -> int:
        return self.run.counters.get(name, 0)


class Bench:
    def __init__(self, tmp: Path, named_caches: Path, verbose: bool) -> None:
        self.tmp = tmp
        self.named_caches = named_caches
        self.verbose = verbose
        self._stores = 0

    def fresh_store(self) -> Path:
        self._stores += 1
        return self.tmp / "stores" / f"store{self._stores}"

    def pants(self, repo: Path, store: Path, *args: str, label: str = "") -> PantsRun:
        argv = [
            str(repo / "pants"), "--no-pantsd",
            f"--local-store-dir={store}",
            f"--named-caches-dir={self.named_caches}",
            "--stats-log", LOG_LEVELS, *args,
        ]
        shutil.rmtree(repo / "dist", ignore_errors=True)
        start = time.monotonic()
        proc = subprocess.run(
            argv, cwd=repo, env=_clean_env(), stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=3600,
        )
        run = PantsRun(args, proc.stdout, proc.stderr, time.monotonic() - start)
        if proc.returncode != 0:
            raise RuntimeError(f"./pants {' '.join(args)} failed in {repo}:\n{proc.stderr[-20000:]}")
        if self.verbose:
            print(f"    {label or ' '.join(args)}: {run.seconds:.1f}s", file=sys.stderr)
        return run

    def drop_store(self, store: Path) -> None:
        shutil.rmtree(store, ignore_errors=True)


def time_cli_compile(repo: Path, repeat: int = 3) -> Optional[float]:
    """Best-of-`repeat` wall time of `python -m schemac compile` on lib000, a cold process."""
    lib = repo / "schemas" / library_name(0)
    files = sorted(str(p.relative_to(repo)) for p in lib.rglob("*") if p.suffix in (".esdl", ".edgeql"))
    env = {**os.environ, "PYTHONPATH": str(repo / "pants-plugins"), "PYTHONHASHSEED": "0"}
    best = None
    for _ in range(repeat):
        out = Path(tempfile.mkdtemp(prefix="schemac-cli-"))
        start = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "schemac", "compile", "--library", library_name(0), "--out",
             str(out), "--go-package", library_name(0), "--ts-module", "esm", *files],
            cwd=repo, env=env, capture_output=True, text=True,
        )
        elapsed = time.monotonic() - start
        shutil.rmtree(out, ignore_errors=True)
        if proc.returncode != 0:
            print(f"(the CLI compile failed: {proc.stderr[-2000:]})", file=sys.stderr)
            return None
        best = elapsed if best is None else min(best, elapsed)
    return best


# ---------------------------------------------------------------------------------------------
# One size


@dataclass
class SizeResult:
    n: int
    runs: Dict[str, Measured] = field(default_factory=dict)
    problems: List[str] = field(default_factory=list)


def bench_size(bench: Bench, n: int, *, worktree: bool, bgd: Optional[str], repeat: int = 1,
               tools_from: Optional[Path] = None) -> SizeResult:
    res = SizeResult(n)
    repo = make_repo(bench.tmp / f"repo-n{n}", n, worktree=worktree, tools_from=tools_from)
    schemas = "schemas::"
    print(f"N={n}: synthetic repo at {repo}", file=sys.stderr)

    def measure(key: str, one: Callable[[int], PantsRun], check: Callable[[Measured], None]) -> Measured:
        """Run `one(rep)` `repeat` times; keep the fastest; `check` each repetition."""
        runs, loads = [], []
        for rep in range(repeat):
            loads.append(os.getloadavg()[0])
            run = one(rep)
            check(Measured(key, run))
            runs.append(run)
        best = min(runs, key=lambda r: r.seconds)
        m = Measured(key, best, [r.seconds for r in runs], loads)
        res.runs[key] = m
        return m

    def expect(what: str, prefix: str, want: int, remote_hits: bool = False):
        def check(m: Measured) -> None:
            got = m.remote("hit", prefix) if remote_hits else m.spawned(prefix)
            if got != want:
                res.problems.append(f"{m.label}: {got} {what}, not {want}")
        return check

    def run(store: Path, *args: str, label: str) -> PantsRun:
        return bench.pants(repo, store, *args, label=f"N={n} {label}")

    # Local: cold (a fresh store each time), then warm no-op and edits on the last cold's store.
    stores: List[Path] = []

    def cold(rep: int) -> PantsRun:
        stores.append(bench.fresh_store())
        return run(stores[-1], "export-codegen", schemas, label="cold")

    measure("cold", cold, expect("compiles ran", COMPILE_DESCRIPTION, n))
    measure("warm", lambda rep: run(stores[-1], "export-codegen", schemas, label="warm"),
            expect("compiles ran", COMPILE_DESCRIPTION, 0))

    def edit(rep: int) -> PantsRun:
        edit_one_library(repo, rep + 1)
        return run(stores[-1], "export-codegen", schemas, label="edit 1")

    measure("edit 1", edit, expect("compiles ran", COMPILE_DESCRIPTION, 1))
    for store in stores:
        bench.drop_store(store)

    # Remote: fill an empty BuildGrid (a new server for each repetition), then cold runs with
    # fresh local stores that only read the last one.
    if bgd:
        servers: List[BuildGrid] = []
        try:
            def fill(rep: int) -> PantsRun:
                if servers:
                    servers[-1].stop()
                servers.append(BuildGrid(bgd, bench.tmp / f"buildgrid-n{n}-{rep}").start())
                store = bench.fresh_store()
                try:
                    return run(store, *servers[-1].pants_flags(read=True, write=True),
                               "export-codegen", schemas, label="cold+write")
                finally:
                    bench.drop_store(store)

            def check_fill(m: Measured) -> None:
                expect("compiles ran", COMPILE_DESCRIPTION, n)(m)
                if m.counter("remote_cache_write_errors") or m.counter("remote_cache_read_errors"):
                    res.problems.append(f"cold+write: remote cache errors {m.run.counters}")

            measure("cold+write", fill, check_fill)

            def remote(rep: int) -> PantsRun:
                store = bench.fresh_store()
                try:
                    return run(store, *servers[-1].pants_flags(read=True, write=False),
                               "export-codegen", schemas, label="remote")
                finally:
                    bench.drop_store(store)

            def check_remote(m: Measured) -> None:
                expect("compiles were remote hits", COMPILE_DESCRIPTION, n, remote_hits=True)(m)
                expect("compiles ran locally", COMPILE_DESCRIPTION, 0)(m)

            measure("remote", remote, check_remote)
        finally:
            for server in servers:
                server.stop()

    # Baselines: one trivial process / one Python start per target, cold.
    for key, spec, desc in (("trivial", "baseline/trivial::", TRIVIAL_DESCRIPTION),
                            ("python", "baseline/python::", PYTHON_DESCRIPTION)):
        def baseline(rep: int, key=key, spec=spec) -> PantsRun:
            store = bench.fresh_store()
            try:
                return run(store, "export-codegen", spec, label=key)
            finally:
                bench.drop_store(store)

        measure(key, baseline, expect("processes ran", desc, n))
    return res


# ---------------------------------------------------------------------------------------------
# Report

COLUMNS = ("cold", "warm", "edit 1", "cold+write", "remote", "trivial", "python")


def _cell(res: SizeResult, key: str) -> str:
    m = res.runs.get(key)
    if m is None:
        return "-"
    text = f"{m.seconds:.1f}s"
    if key == "edit 1":
        text += f" ({m.spawned(COMPILE_DESCRIPTION)} compile)"
    elif key == "remote":
        text += f" ({m.remote('hit', COMPILE_DESCRIPTION)} hits, {m.spawned(COMPILE_DESCRIPTION)} local)"
    elif key == "warm":
        text += f" ({m.spawned(COMPILE_DESCRIPTION)} compiles)"
    return text


def _table(headers: Sequence[str], rows: List[Sequence[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    fmt = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    return "\n".join([fmt(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|",
                      *[fmt(r) for r in rows]])


def _slope(points: List[tuple]) -> float:
    """Least-squares slope of y over x."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in points) / var if var else 0.0


def _ratio(value: float, base: Optional[float]) -> str:
    return f"{value / base:.1f}x" if base and base > 0 else "-"


def report(results: List[SizeResult], cli_seconds: Optional[float], priming: Optional[float]) -> str:
    out = []
    out.append("## Wall time of one `./pants --no-pantsd export-codegen` run (Pants 2.17.1; "
               f"{os.cpu_count()} cores; the fastest of each kind)\n")
    out.append(_table(["N", *COLUMNS], [[str(r.n), *[_cell(r, c) for c in COLUMNS]] for r in results]))
    out.append(textwrap.dedent("""
        cold: empty local store; warm: same store, nothing changed; edit 1: one library's schema
        edited; cold+write: empty local store, empty BuildGrid, remote writes on; remote: empty
        local store, reads from that BuildGrid only; trivial / python: baseline/{trivial,python}::,
        one `/bin/sh` process / one `python -c` in the compiler's venv PEX per target, cold.
        """).rstrip())

    out.append("\n## Pants counters per run (local processes run / their summed run time / remote hits)\n")
    rows = []
    for r in results:
        for key in COLUMNS:
            m = r.runs.get(key)
            if m is None:
                continue
            n_local = m.counter("local_execution_requests")
            run_ms = m.counter("local_process_total_time_run_ms")
            rows.append([str(r.n), key, " / ".join(f"{t:.1f}s" for t in m.times), str(n_local),
                         f"{run_ms / 1000:.1f}s", f"{run_ms / max(n_local, 1):.0f}ms",
                         str(m.counter("remote_cache_requests_cached")),
                         str(m.counter("remote_cache_write_successes")),
                         " / ".join(f"{x:.1f}" for x in m.loads) or "-"])
    out.append(_table(["N", "run", "wall (each run)", "local processes", "their run time", "avg",
                       "remote hits", "remote writes", "load avg before"], rows))

    if len(results) >= 2:
        sizes = ", ".join(str(r.n) for r in results)
        out.append(f"\n## Marginal cost per library (least-squares slope over N = {sizes})\n")
        wall, proc = {}, {}
        for key in ("cold", "cold+write", "remote", "trivial", "python"):
            points = [(r.n, r.runs[key]) for r in results if key in r.runs]
            if len(points) >= 2:
                wall[key] = _slope([(n, m.seconds * 1000) for n, m in points])
                proc[key] = _slope([(n, m.counter("local_process_total_time_run_ms"))
                                    for n, m in points])
        rows = []
        for key in wall:
            rows.append([key, f"{wall[key]:.0f} ms", _ratio(wall[key], wall.get("trivial")),
                         f"{proc[key]:.0f} ms", _ratio(proc[key], proc.get("trivial"))])
        out.append(_table(["run", "wall per library", "vs trivial", "process run time per library",
                           "vs trivial"], rows))
        out.append(textwrap.dedent("""
            Wall: the whole run's wall time (2 cores, Pants runs 2 processes at a time; noisy on a
            shared machine). Process run time: Pants' own measure of the local processes
            (`local_process_total_time_run_ms`), so Pants' start and graph work cancel out.
            """).rstrip())
        if {"cold", "python", "trivial"} <= proc.keys():
            t, py, c = proc["trivial"], proc["python"], proc["cold"]
            out.append(textwrap.dedent(f"""
                Where a cold compile's time goes, per library (process run time): Pants' own
                per-process floor (sandbox, spawn, wait, capture) ~{t:.0f} ms; starting Python in
                the compiler's venv PEX ~{max(py - t, 0):.0f} ms more; the compiler itself (imports
                of lark/jinja2/schemac, parse, check, render) ~{max(c - py, 0):.0f} ms more.""").rstrip())
    warm = [r.runs["warm"].seconds for r in results if "warm" in r.runs]
    if warm:
        out.append(f"Fixed cost of every run (Pants start, options, rule graph, BUILD files, the "
                   f"processes Pants never caches): ~{min(warm):.1f}s (the fastest warm no-op).")
    if cli_seconds is not None:
        out.append(f"The compiler alone on one library (`python -m schemac compile`, a cold process "
                   f"outside Pants, best of 3): {cli_seconds * 1000:.0f} ms.")
    if priming is not None:
        out.append(f"Priming run (fills the named caches: the pex resolve of the compiler's wheels; "
                   f"not in the table): {priming:.1f}s.")
    problems = [f"N={r.n}: {p}" for r in results for p in r.problems]
    out.append("\nChecks: " + ("all passed (cold ran N compiles, warm 0, edit 1 exactly 1, remote "
                               "N hits and 0 local, baselines N processes)" if not problems
                               else "FAILED:\n  " + "\n  ".join(problems)))
    return "\n".join(out)


def save_json(path: Path, results: List[SizeResult], cli_seconds: Optional[float],
              priming: Optional[float]) -> None:
    path.write_text(json.dumps({
        "cli_seconds": cli_seconds,
        "priming_seconds": priming,
        "sizes": {
            str(r.n): {
                "problems": r.problems,
                "runs": {k: {"seconds": m.seconds, "times": m.times, "loads": m.loads,
                             "counters": m.run.counters,
                             "compiles_spawned": m.spawned(COMPILE_DESCRIPTION),
                             "compile_remote_hits": m.remote("hit", COMPILE_DESCRIPTION)}
                         for k, m in r.runs.items()},
            } for r in results
        },
    }, indent=2))


def load_json(path: Path):
    """The results saved by save_json (or by an earlier version: sizes at the top level)."""
    data = json.loads(path.read_text())
    sizes = data["sizes"] if "sizes" in data else data
    results = []
    for n, entry in sorted(sizes.items(), key=lambda kv: int(kv[0])):
        runs = entry.get("runs", entry)
        r = SizeResult(int(n), problems=list(entry.get("problems", [])) if "runs" in entry else [])
        for key, d in runs.items():
            # The report reads counts from Pants' log lines: write the ones it counts.
            lines = [f'spawned local process for Process {{ description: "{COMPILE_DESCRIPTION} #{i}" }}'
                     for i in range(d["compiles_spawned"])]
            lines += [f'remote cache hit for: "{COMPILE_DESCRIPTION} #{i}"'
                      for i in range(d["compile_remote_hits"])]
            lines += ["Counters:", *[f"  {c}: {v}" for c, v in sorted(d["counters"].items())]]
            run = PantsRun([], "", "\n".join(lines) + "\n", d["seconds"])
            r.runs[key] = Measured(key, run, d.get("times", [d["seconds"]]), d.get("loads", []))
        results.append(r)
    return results, data.get("cli_seconds"), data.get("priming_seconds")


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1,10,100", help="comma-separated N (default 1,10,100)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of each kind; the table shows the fastest (default 1)")
    ap.add_argument("--no-remote", action="store_true", help="skip the BuildGrid runs")
    ap.add_argument("--worktree", action="store_true",
                    help="copy the Pants setup from the work tree instead of the committed HEAD")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--json", type=Path, help="also write the raw timings and counters here")
    ap.add_argument("--from-json", type=Path, metavar="FILE",
                    help="print the report of an earlier run saved with --json (runs nothing)")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args(argv)
    if args.from_json:
        results, cli_seconds, priming = load_json(args.from_json)
        print(report(results, cli_seconds, priming))
        return 1 if any(r.problems for r in results) else 0
    sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})

    bgd = None if args.no_remote else bgd_command()
    tmp = Path(tempfile.mkdtemp(prefix="schemac-build-speed-"))
    started = time.monotonic()
    try:
        bench = Bench(tmp, tmp / "named_caches", verbose=not args.quiet)
        # Priming: fills the named caches (pip/pex resolve of the compiler's wheels) so that no
        # measured run downloads anything; also checks the setup works at all.
        prime_repo = make_repo(tmp / "repo-prime", 1, worktree=args.worktree)
        store = bench.fresh_store()
        priming = bench.pants(prime_repo, store, "export-codegen", "::", label="priming").seconds
        bench.drop_store(store)
        cli_seconds = time_cli_compile(prime_repo)

        # The priming run's ./pants built the pex CLI if this checkout had none: reuse it.
        results = [bench_size(bench, n, worktree=args.worktree, bgd=bgd, repeat=max(1, args.repeat),
                              tools_from=prime_repo) for n in sizes]
        text = report(results, cli_seconds, priming)
        print(text)
        print(f"\n(total {time.monotonic() - started:.0f}s on {os.cpu_count()} cores)")
        if args.json:
            save_json(args.json, results, cli_seconds, priming)
        return 1 if any(r.problems for r in results) else 0
    finally:
        if args.keep:
            print(f"(kept {tmp})", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
