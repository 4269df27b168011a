#!/usr/bin/env python3
"""Compile-speed benchmark of schemac (a script, not a test).

It generates a synthetic library of N object types (about 15 properties each: every scalar
type, enums, defaults, required properties, a property-level exclusive constraint, a full
two-property exclusive constraint and a partial one with a filter) plus 2 queries per type (an
insert with ``unless conflict on (...)`` and an update filtered by ``.id``), writes it to a
temporary directory and compiles it with the CLI as a cold process (``python -m schemac
compile``), for N = 100, 1,000 and 5,000 by default. It prints, side by side: files, lines of
input, wall time, lines/s, peak RSS of the compiler process and the time ratio to the smallest N
(next to the ratio of N, to show linearity).

Then it compiles the N=1,000 library in-process and reports where the time goes: wall-clock
phases (grammar build, lark parse = lexing + LALR + building the syntax tree, resolve,
query planning, rendering SQL/TS/Go) measured without a profiler, and the top functions under
cProfile (file:function, by own time and by cumulative time).

The parser caches lark's analysis of the grammar on disk (``schemac.syntax.parser``), and the renderer
its compiled templates (``schemac.render``), in one cache directory; the runs use a fresh cache
directory of their own, filled once before them by a one-type compile (the one-off cost is
printed), so every run is a cold process with warm caches, as on a developer's machine or CI
(a Pants named cache) after its first compile. ``--no-parser-cache`` measures without them.
The runs import a copy of the compiler with its bytecode compiled, as installed.

Target (the issue): the 1,000-type library (~15 properties each, 2,000 queries) compiles in
under 2 s on one core.

Run it from the repository root with the test venv (it needs lark and jinja2 in-process for the
profile)::

    .venv-test/bin/python tests/bench/compile_speed.py
    .venv-test/bin/python tests/bench/compile_speed.py --sizes 100,1000 --repeat 3 --profile-size 1000
    .venv-test/bin/python tests/bench/compile_speed.py --pythonpath /some/checkout/pants-plugins

Side by side (issue 27), each as paired, alternating cold processes (A B, B A, ...; one uncounted
pair first, ``--warmup``; ``--repeat`` counted pairs), CPU time (user + system, all threads) and peak
RSS from the operating system's accounting of each finished process, min / median / max per side
and the ratio pair by pair, N = 1,000 and 5,000 by default:

* ``--vs-sqlc``: against sqlc 1.31.1 given the same SQL: the ``sql/schema.sql`` schemac writes
  and every query's statement as schemac compiles it, all in one ``queries.sql`` (sqlc's fastest
  layout), and a ``sqlc.yaml`` for PostgreSQL and Go (pgx/v5); it prints CPU ÷ sqlc, schemac's
  N=5,000 ÷ N=1,000 and peak memory ÷ sqlc's. sqlc is ``--sqlc PATH``, else found on ``PATH``,
  ``$GOBIN`` or ``$GOPATH/bin``; without it the script says how to install it and exits 0;
* ``--vs REV``: against the compiler of commit ``REV`` (a ``git worktree`` of it in a temporary
  directory, installed with its bytecode like this one, removed after).

::

    .venv-test/bin/python tests/bench/compile_speed.py --vs-sqlc --sqlc ~/tools/bin/sqlc
    .venv-test/bin/python tests/bench/compile_speed.py --vs 7109aeb --sizes 1000 --repeat 3

``tests/bench/test_bench_smoke.py`` runs the generator and the in-process phase timer for N=5,
``--vs HEAD`` for N=2 and ``--vs-sqlc`` up to sqlc's input (and without sqlc) so this script
cannot rot.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PYTHONPATH = REPO_ROOT / "pants-plugins"
TARGET_SECONDS = 2.0
TARGET_TYPES = 1000

# ---------------------------------------------------------------------------------------------
# The synthetic library

#: Property stems and their types (``ENUM`` = one of the library's enums). Every type gets
#: ``code`` and ``name`` plus 13 more drawn from the rest, so ~15 properties in all.
STEMS: Tuple[Tuple[str, str], ...] = (
    ("code", "str"), ("name", "str"), ("title", "str"), ("note", "str"), ("email", "str"),
    ("count", "int32"), ("level", "int16"), ("total", "int64"), ("big", "bigint"), ("amount", "decimal"),
    ("score", "float64"), ("ratio", "float32"), ("active", "bool"), ("payload", "json"), ("data", "json"),
    ("ref", "uuid"), ("created_at", "datetime"), ("updated_at", "datetime"), ("status", "ENUM"),
    ("blob", "bytes"),
)
TYPE_STEMS = ("Account", "Order", "Invoice", "Shipment", "Customer", "Product", "Ticket", "Event")
DEFAULTS = {"count": "0", "level": "1", "active": "true", "created_at": "datetime_current()", "updated_at": "now()",
            "score": "0.5"}
MEMBER_POOL = ("Pending", "Active", "Running", "Blocked", "Done", "Failed", "'on hold'", "Archived")


@dataclass
class _Type:
    name: str
    props: List[Tuple[str, str, bool, Optional[str]]]  # name, type, required, default


def generate_library(n_types: int, seed: int = 0, features: bool = False, links: bool = True) -> Dict[str, str]:
    """``{relative path: text}``: ``schema.esdl`` and ``queries/<name>.edgeql`` (2 per type).

    The issue's workload (the default): ~15 properties per type (every scalar type, enums,
    defaults, required properties), a property-level exclusive constraint, a two-property
    exclusive constraint and a partial one with a filter, and (``links``) an optional link
    ``owner`` to the previous type on every type but the first (a FK column, its index and
    ``ON DELETE SET NULL``), set by half of the inserts with a
    ``(select T filter .id = <uuid>$owner_id)``.

    ``features`` also uses the later language features: every type extends an abstract
    ``Timestamped`` (``created_at``/``updated_at``), ``code`` has a custom scalar type with a
    value constraint, ``name`` a value constraint and an index. Properties stay ~15 per type."""
    rnd = random.Random(seed)
    n_enums = max(1, n_types // 10)
    enums: Dict[str, List[str]] = {}
    for j in range(n_enums):
        members = list(MEMBER_POOL)
        rnd.shuffle(members)
        members = members[: rnd.randint(3, 6)]
        if "'on hold'" == members[0]:  # the first member is used as a default: keep it a NAME
            members[0], members[-1] = members[-1], members[0]
        enums[f"Status{j}"] = members

    types: List[_Type] = []
    for i in range(n_types):
        name = f"{TYPE_STEMS[i % len(TYPE_STEMS)]}{i}"
        rest = [st for st in STEMS[2:] if not (features and st[0] in ("created_at", "updated_at"))]
        rnd.shuffle(rest)
        chosen = [("code", "Code" if features else "str"), ("name", "str")] + rest[:11 if features else 13]
        props = []
        for pname, ptype in chosen:
            if ptype == "ENUM":
                ptype = f"Status{rnd.randrange(n_enums)}"
            default = DEFAULTS.get(pname)
            if pname == "status":
                default = f"{ptype}.{enums[ptype][0]}"
            required = pname in ("code", "name") or (default is None and rnd.random() < 0.3)
            props.append((pname, ptype, required, default))
        types.append(_Type(name, props))

    out: Dict[str, str] = {}
    lines = ["# Synthetic library for tests/bench/compile_speed.py.", ""]
    for en, members in enums.items():
        lines.append(f"enum {en} {{ {', '.join(members)} }}")
    lines.append("")
    if features:
        lines += ["scalar type Code extending str { constraint max_len_value(32); };", "",
                  "abstract type Timestamped {",
                  "  required created_at: datetime { default := datetime_current(); readonly := true; };",
                  "  updated_at: datetime;", "}", ""]
    for i, t in enumerate(types):
        pnames = {p[0] for p in t.props}
        lines.append(f"type {t.name} extending Timestamped {{" if features else f"type {t.name} {{")
        for pname, ptype, required, default in t.props:
            body = []
            if default is not None:
                body.append(f"default := {default}")
            if pname == "code":
                body.append("constraint exclusive")
            if features and pname == "name":
                body.append("constraint max_len_value(200)")
            head = ("required " if required else "") + f"{pname}: {ptype}"
            lines.append(f"  {head}" + (f" {{ {'; '.join(body)} }};" if body else ";"))
        if links and i:
            lines.append(f"  owner: {types[i - 1].name} {{ on target delete allow; }};")
        if features and i:
            lines.append("  index on (.name);")
        lines.append("  constraint exclusive on (.name, .code);")
        partial = _partial_filter(t, pnames, enums)
        if partial:
            lines.append(f"  constraint exclusive on (.name) filter {partial};")
        lines.append("}")
        lines.append("")
    out["schema.esdl"] = "\n".join(lines)

    for k, t in enumerate(types):
        snake = _snake(t.name)
        required = [p for p in t.props if p[2] and p[3] is None]
        optional = [p for p in t.props if not (p[2] and p[3] is None)][:3]
        assigns = []
        for pname, ptype, _, _ in required + optional:
            assigns.append(f"{pname} := ${pname}" if k % 3 else f"{pname} := ${pname}<{ptype}>")
        if links and k and k % 2 == 0:
            assigns.append(f"owner := (select {types[k - 1].name} filter .id = <uuid>$owner_id)")
        conflict = ["(.code)", "(.name, .code)", "(.code, .name)"][k % 3]
        out[f"queries/insert_{snake}.edgeql"] = (
            f"# Insert one {t.name}; skipped when the key exists.\n"
            f"insert {t.name} {{ {', '.join(assigns)} }}\nunless conflict on {conflict};\n")
        sets = ["title := $title" if ("title", "str") in [(p[0], p[1]) for p in t.props] else "name := $new_name"]
        if any(p[0] == "count" for p in t.props):
            sets.append("count := .count + 1")
        if features or any(p[0] == "updated_at" for p in t.props):
            sets.append("updated_at := now()")
        out[f"queries/update_{snake}.edgeql"] = (
            f"update {t.name}\n  filter .id = $id\n  set {{ {', '.join(sets)} }};\n")
    return out


def _partial_filter(t: _Type, pnames, enums) -> Optional[str]:
    props = {p[0]: p for p in t.props}
    if "status" in props:
        enum = props["status"][1]
        cond = f".status = {enum}.{enums[enum][0]}"
        return cond + (" and .active" if "active" in pnames else "")
    if "active" in pnames:
        return ".active"
    if "count" in pnames:
        return ".count > 0"
    return None


def _snake(name: str) -> str:
    """``Account17`` -> ``account17`` (query file names are snake_case)."""
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()


def write_library(sources: Dict[str, str], directory: Path) -> List[str]:
    """Write ``sources`` under ``directory``; the relative paths, schema files first."""
    for rel, text in sources.items():
        p = directory / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return sorted(sources, key=lambda r: (not r.endswith(".esdl"), r))


def count_lines(sources: Dict[str, str]) -> int:
    return sum(text.count("\n") + (0 if text.endswith("\n") else 1) for text in sources.values())


# ---------------------------------------------------------------------------------------------
# Cold-process runs


@dataclass
class Run:
    n: int
    files: int
    lines: int
    seconds: float
    cpu_seconds: float
    peak_rss_mb: float


def default_python() -> str:
    venv = REPO_ROOT / ".venv-test" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


#: The parser cache directory of the runs (``SCHEMAC_CACHE_DIR``, see ``schemac.syntax.parser``): a
#: fresh directory per benchmark, warmed once before the runs (:func:`warm_parser_cache`), or
#: ``""`` (no cache: every run analyses the grammar) with ``--no-parser-cache``.
PARSER_CACHE: Dict[str, str] = {}


def _env(pythonpath: Path) -> Dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(pythonpath), PYTHONDONTWRITEBYTECODE="1", **PARSER_CACHE)


#: ``--cpu N``: the CPU the compiler processes are pinned to (``None``: not pinned). The compiler
#: is single-threaded either way (its CPU time never exceeds its wall time, both printed); on a
#: shared virtual machine one vCPU can be much slower than another at times (measured here:
#: 1.82 s on one, 2.33 s on the other, same run), so pinning is opt-in.
PIN_CPU: Optional[int] = None


def _one_core() -> None:
    """Pin the compiler process to :data:`PIN_CPU`, when set and the OS allows it."""
    if PIN_CPU is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {PIN_CPU})


def run_process(argv: Sequence[str], cwd: Path, env: Optional[Dict[str, str]] = None,
                pin: bool = True) -> Tuple[float, float, float]:
    """Run ``argv`` as a fresh process; ``(wall seconds, CPU seconds, peak RSS in MB)`` of that
    process alone, from the operating system's accounting of it (``wait4``: user + system time of
    all its threads; CPU time is less disturbed by other load on the machine than wall time).
    A failing process stops the benchmark with its error output."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(list(argv), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=err,
                                preexec_fn=_one_core if pin else None)
        _, status, usage = os.wait4(proc.pid, 0)  # the rusage of this child alone
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{argv[0]} failed (exit {proc.returncode}):\n{err.read().decode(errors='replace')[:4000]}")
    rss_kb = usage.ru_maxrss / (1024 if sys.platform == "darwin" else 1)  # macOS reports bytes
    return seconds, usage.ru_utime + usage.ru_stime, rss_kb / 1024


def run_cli(python: str, pythonpath: Path, workdir: Path, files: Sequence[str], out: Path) -> Tuple[float, float, float]:
    """Compile in a fresh process; ``(wall seconds, CPU seconds, peak RSS in MB)`` of that
    process alone (see :func:`run_process`)."""
    shutil.rmtree(out, ignore_errors=True)
    argv = [python, "-m", "schemac", "compile", "--library", "bench", "--out", str(out), *files]
    return run_process(argv, workdir, _env(pythonpath))


def measure(n: int, python: str, pythonpath: Path, repeat: int, keep: bool, features: bool = False,
            links: bool = True) -> Run:
    sources = generate_library(n, features=features, links=links)
    tmp = Path(tempfile.mkdtemp(prefix=f"schemac-bench-{n}-"))
    try:
        files = write_library(sources, tmp / "lib")
        best = None
        for _ in range(repeat):
            out = tmp / "out"
            shutil.rmtree(out, ignore_errors=True)
            result = run_cli(python, pythonpath, tmp / "lib", files, out)
            if best is None or result[0] < best[0]:
                best = result
        assert best is not None
        return Run(n, len(files), count_lines(sources), *best)
    finally:
        if keep:
            print(f"(kept {tmp})", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def install_compiler(python: str, pythonpath: Path, dest: Path, bytecode: bool) -> Path:
    """Copy the ``schemac`` package under ``pythonpath`` to ``dest`` (without any
    ``__pycache__``) and, with ``bytecode``, compile it there as an installer would
    (``compileall``, ``checked-hash`` pycs: valid whatever the files' times). Returns ``dest``,
    the ``PYTHONPATH`` of the runs: they measure the compiler as installed, not whatever stale
    or missing bytecode the working tree has (the runs never write bytecode)."""
    shutil.copytree(pythonpath / "schemac", dest / "schemac", ignore=shutil.ignore_patterns("__pycache__"))
    if bytecode:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
        subprocess.run([python, "-m", "compileall", "-q", "--invalidation-mode", "checked-hash", str(dest)],
                       env=env, check=True, stdout=subprocess.DEVNULL)
    return dest


def startup_seconds(python: str, pythonpath: Path, repeat: int = 3) -> float:
    """A cold process that only imports the compiler (the constant part of every run); the
    fastest of ``repeat``."""
    env = _env(pythonpath)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        subprocess.run([python, "-c", "import schemac.cli.main, schemac.pipeline, schemac.backends.go.codegen, schemac.backends.ts.codegen, schemac.backends.sql.codegen"],
                       env=env, check=True)
        best = min(best, time.perf_counter() - t0)
    return best


def warm_parser_cache(python: str, pythonpath: Path) -> Tuple[float, float]:
    """Fill the runs' cache directory (the parser's grammar analysis and the compiled
    templates): ``(seconds of a process that compiles a one-type library with an empty cache,
    the same with the cache filled)`` — what the first compile on a machine pays once."""
    env = _env(pythonpath)
    code = ("from schemac.pipeline import Options, compile_library; "
            "compile_library({'s.esdl': 'type T { x: str; }', 'q.edgeql': 'select T { x };'}, Options(library='warm'))")
    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        subprocess.run([python, "-c", code], env=env, check=True)
        times.append(time.perf_counter() - t0)
    return times[0], times[1]


def print_table(runs: List[Run]) -> None:
    base = runs[0]
    print(f"{'N types':>8} {'files':>6} {'lines':>8} {'wall s':>7} {'CPU s':>6} {'lines/s':>8} {'peak MB':>8} "
          f"{'N ratio':>8} {'t ratio':>8} {'ms/type':>8}")
    for r in runs:
        print(f"{r.n:>8,} {r.files:>6,} {r.lines:>8,} {r.seconds:>7.2f} {r.cpu_seconds:>6.2f} "
              f"{r.lines / r.seconds:>8,.0f} {r.peak_rss_mb:>8.0f} {r.n / base.n:>8.1f} "
              f"{r.seconds / base.seconds:>8.1f} {1000 * r.seconds / r.n:>8.2f}")
    print("(wall s: best of the runs; lines/s and ratios from wall time)")


# ---------------------------------------------------------------------------------------------
# In-process phases (no profiler) and cProfile

#: Phases: (label, [(module, attribute), ...]). Each phase is timed *exclusively*: while a
#: nested phase runs (e.g. jinja compiling a template inside "render Go"), the outer phase's
#: clock stops, so the phases and "other" add up to the total whatever calls what. Attributes
#: missing from the compiler under test are skipped, so the script survives refactorings.
PHASES: Tuple[Tuple[str, Tuple[Tuple[str, str], ...]], ...] = (
    ("grammar build or cache load (Lark)", (("lark", "Lark.__init__"), ("lark", "Lark._load"))),
    ("pre-scan (prescan.blank_unsupported)", (("schemac.prescan", "blank_unsupported"),)),
    ("lark parse (lex + LALR + AST callbacks)", (("lark", "Lark.parse"),)),
    ("front end: rest (parse_schema/query)", (("schemac.syntax.parser", "parse_schema"), ("schemac.syntax.parser", "parse_query"))),
    ("resolve schema", (("schemac.semantics.resolve", "build_schema"),)),
    ("plan queries", (("schemac.semantics.queries", "plan_query"),)),
    ("jinja2 template compile", (("jinja2", "Environment.compile"),)),
    ("render SQL", (("schemac.backends.sql.codegen", "render_sql"),)),
    ("render TypeScript", (("schemac.backends.ts.codegen", "render_typescript"),)),
    ("render Go", (("schemac.backends.go.codegen", "render_go"),)),
)


class _Timer:
    """Exclusive wall-clock time of one phase (see :data:`PHASES`)."""

    stack: List[List] = []  # [timer, start of its current slice]

    def __init__(self) -> None:
        self.seconds = 0.0
        self.calls = 0

    def wrap(self, fn: Callable) -> Callable:
        def timed(*args, **kwargs):
            stack = _Timer.stack
            if any(entry[0] is self for entry in stack):
                return fn(*args, **kwargs)  # a nested call of the same phase
            now = time.perf_counter()
            if stack:
                stack[-1][0].seconds += now - stack[-1][1]
            stack.append([self, now])
            try:
                return fn(*args, **kwargs)
            finally:
                now = time.perf_counter()
                self.seconds += now - stack.pop()[1]
                self.calls += 1
                if stack:
                    stack[-1][1] = now

        timed.__wrapped__ = fn  # type: ignore[attr-defined]
        return timed


def _resolve(module: str, attr: str):
    import importlib

    try:
        obj = importlib.import_module(module)
    except ImportError:
        return None, None, None
    owner, name = obj, attr
    if "." in attr:
        cls, name = attr.split(".", 1)
        owner = getattr(obj, cls, None)
        if owner is None:
            return None, None, None
    fn = owner.__dict__.get(name) if isinstance(owner, type) else getattr(owner, name, None)
    return (owner, name, fn) if fn is not None else (None, None, None)


@contextmanager
def phase_timers() -> Iterator[Dict[str, _Timer]]:
    """Wrap each phase's function (and every ``from x import f`` alias of it in ``schemac.*``)
    with a wall-clock timer while the block runs."""
    timers: Dict[str, _Timer] = {}
    undo: List[Tuple[object, str, object]] = []
    for label, candidates in PHASES:
        timer = _Timer()
        for module, attr in candidates:
            owner, name, fn = _resolve(module, attr)
            if owner is None:
                continue
            timers[label] = timer
            wrapped = timer.wrap(fn)
            undo.append((owner, name, fn))
            setattr(owner, name, wrapped)
            if not isinstance(owner, type):
                for mod_name, mod in list(sys.modules.items()):
                    if mod_name.startswith("schemac") and mod is not owner:
                        for k, v in list(vars(mod).items()):
                            if v is fn:
                                undo.append((mod, k, fn))
                                setattr(mod, k, wrapped)
    try:
        yield timers
    finally:
        for owner, name, fn in reversed(undo):
            setattr(owner, name, fn)


def _import_compiler(pythonpath: Path):
    if str(pythonpath) not in sys.path:
        sys.path.insert(0, str(pythonpath))
    from schemac.semantics.library import Options
    from schemac.pipeline import compile_library  # noqa: F401 - also loads the back ends
    import schemac.backends.go.codegen, schemac.backends.sql.codegen, schemac.backends.ts.codegen  # noqa: F401,E401

    return Options, compile_library


def fresh_caches() -> None:
    """Forget schemac's per-process caches (the grammar, the jinja2 environment and its
    compiled templates, ...) so an in-process run pays for them like a cold process does."""
    for name, mod in list(sys.modules.items()):
        if name == "schemac" or name.startswith("schemac."):
            for v in list(vars(mod).values()):
                clear = getattr(v, "cache_clear", None)
                if callable(clear) and hasattr(v, "cache_info"):
                    clear()


def time_phases(sources: Dict[str, str], pythonpath: Path = DEFAULT_PYTHONPATH) -> Tuple[float, List[Tuple[str, float, int]]]:
    """Compile ``sources`` in-process; ``(total seconds, [(phase, seconds, calls)])``."""
    Options, compile_library = _import_compiler(pythonpath)
    fresh_caches()
    with phase_timers() as timers:
        t0 = time.perf_counter()
        compile_library(sources, Options(library="bench"))
        total = time.perf_counter() - t0
    return total, [(label, t.seconds, t.calls) for label, t in timers.items()]


def print_phases(total: float, phases: List[Tuple[str, float, int]]) -> None:
    print(f"{'phase (exclusive time)':<42} {'seconds':>8} {'share':>6} {'calls':>6}")
    for label, seconds, calls in phases:
        if calls or seconds:
            print(f"{label:<42} {seconds:>8.3f} {100 * seconds / total:>5.1f}% {calls:>6}")
    other = total - sum(s for _, s, _ in phases)
    print(f"{'other (compile_library glue)':<42} {other:>8.3f} {100 * other / total:>5.1f}%")
    print(f"{'total (compile_library)':<42} {total:>8.3f}")


def profile(sources: Dict[str, str], pythonpath: Path, top: int = 25) -> str:
    """cProfile of one in-process compile: the top functions by own time and the schemac
    functions by cumulative time."""
    Options, compile_library = _import_compiler(pythonpath)
    fresh_caches()
    prof = cProfile.Profile()
    prof.enable()
    compile_library(sources, Options(library="bench"))
    prof.disable()
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf)
    buf.write(f"--- top {top} functions by own time (tottime) ---\n")
    stats.sort_stats("tottime").print_stats(top)
    buf.write(f"--- top {top} schemac functions by cumulative time ---\n")
    stats.sort_stats("cumulative").print_stats(r"[/\\]schemac[/\\]", top)
    return _trim_pstats(buf.getvalue(), [str(pythonpath) + os.sep, os.path.dirname(os.__file__) + os.sep])


def _trim_pstats(text: str, prefixes: Sequence[str]) -> str:
    keep = []
    for line in text.splitlines():
        if line.strip().startswith(("Ordered by", "List reduced")) or not line.strip():
            continue
        for prefix in prefixes:
            line = line.replace(prefix, "")
        keep.append(re.sub(r"\S*[/\\]site-packages[/\\]", "", line))
    return "\n".join(keep)


# ---------------------------------------------------------------------------------------------
# Side by side: paired, alternating cold processes (``--vs-sqlc``, ``--vs REV``)

#: The sqlc release the issue compares with (``--vs-sqlc``).
SQLC_VERSION = "v1.31.1"
SQLC_INSTALL = (f"go install github.com/sqlc-dev/sqlc/cmd/sqlc@{SQLC_VERSION}  "
                "(it builds with cgo: a C compiler such as gcc must be installed; put it outside the "
                "repository, e.g. GOBIN=$HOME/tools/bin, and pass --sqlc $HOME/tools/bin/sqlc)")

Runner = Callable[[], Tuple[float, float, float]]


@dataclass
class Paired:
    """The figures of ``runs`` pairs of cold processes A and B, run in turn (A B, B A, A B, ...:
    each pair's two runs next to each other in time, so the ratio holds when the machine's speed
    drifts). Each list is one figure per run; the ratios are A/B pair by pair."""

    a: List[Tuple[float, float, float]]
    b: List[Tuple[float, float, float]]

    def figure(self, side: str, k: int) -> List[float]:
        return [r[k] for r in (self.a if side == "a" else self.b)]

    def ratios(self, k: int) -> List[float]:
        return [x[k] / y[k] for x, y in zip(self.a, self.b) if y[k]]


def paired_runs(run_a: Runner, run_b: Runner, runs: int, warmup: int = 1) -> Paired:
    """``warmup`` uncounted pairs, then ``runs`` counted ones; the order within a pair alternates
    (A B, then B A) so that neither side always runs just after the other."""
    result = Paired([], [])
    for i in range(warmup + runs):
        first, second = (run_a, run_b) if i % 2 == 0 else (run_b, run_a)
        x, y = first(), second()
        a, b = (x, y) if i % 2 == 0 else (y, x)
        if i >= warmup:
            result.a.append(a)
            result.b.append(b)
    return result


def _mmm(values: Sequence[float], fmt: str) -> str:
    """``min / median / max``."""
    import statistics

    return " / ".join(format(v, fmt) for v in (min(values), statistics.median(values), max(values)))


def median(values: Sequence[float]) -> float:
    import statistics

    return statistics.median(values)


def print_paired(n: int, name_a: str, name_b: str, pair: Paired) -> None:
    """One block per N: CPU s, wall s and peak MB of each side (min / median / max), then the
    ratios A/B pair by pair."""
    print(f"N={n:,}: {len(pair.a)} pairs of cold processes, min / median / max")
    width = max(len(name_a), len(name_b), len("ratio"))
    for label, k, fmt in (("CPU s", 1, ".2f"), ("wall s", 0, ".2f"), ("peak MB", 2, ".0f")):
        print(f"  {label:<8} {name_a:<{width}} {_mmm(pair.figure('a', k), fmt):>22}   "
              f"{name_b:<{width}} {_mmm(pair.figure('b', k), fmt):>22}   "
              f"ratio {_mmm(pair.ratios(k), '.2f')}")


def find_sqlc(explicit: Optional[str]) -> Optional[str]:
    """The sqlc executable: ``explicit`` (``--sqlc``), else ``sqlc`` on ``PATH``, else in
    ``$GOBIN`` or ``$GOPATH/bin`` (where ``go install`` puts it); ``None`` when there is none."""
    if explicit:
        return explicit if os.path.isfile(explicit) and os.access(explicit, os.X_OK) else None
    found = shutil.which("sqlc")
    if found:
        return found
    dirs = [os.environ.get("GOBIN", "")]
    for gopath in (os.environ.get("GOPATH") or str(Path.home() / "go")).split(os.pathsep):
        dirs.append(os.path.join(gopath, "bin"))
    for d in dirs:
        candidate = os.path.join(d, "sqlc") if d else ""
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _camel(snake: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in snake.split("_"))


def sqlc_inputs(sources: Dict[str, str], pythonpath: Path = DEFAULT_PYTHONPATH) -> Dict[str, str]:
    """What sqlc is given for the library ``sources``: ``{file name: text}`` of ``schema.sql``
    (the schema schemac's migrations build, ``sql/schema.sql``), ``queries.sql`` (every query's
    SQL as schemac compiles it, all in one file: sqlc's fastest layout, one
    ``-- name: Name :one|:many|:exec`` annotation each, from the query's cardinality) and
    ``sqlc.yaml`` (engine postgresql, Go code for pgx/v5, as schemac's Go runner)."""
    _import_compiler(pythonpath)
    from schemac.pipeline import check_library, render_library
    from schemac.semantics.library import Options

    lib = check_library(sources, Options(library="bench"))
    schema_sql = render_library(lib, sources)["sql/schema.sql"]
    chunks = []
    for plan in lib.queries:
        kind = ":exec" if not plan.result else (":many" if plan.cardinality == "many" else ":one")
        chunks.append(f"-- name: {_camel(plan.name)} {kind}\n{plan.sql.rstrip().rstrip(';')};\n")
    yaml = ('version: "2"\n'
            "sql:\n"
            "  - engine: postgresql\n"
            "    schema: schema.sql\n"
            "    queries: queries.sql\n"
            "    gen:\n"
            "      go:\n"
            "        package: bench\n"
            "        out: out\n"
            "        sql_package: pgx/v5\n")
    return {"schema.sql": schema_sql, "queries.sql": "\n".join(chunks), "sqlc.yaml": yaml}


def sqlc_version(sqlc: str) -> str:
    return subprocess.run([sqlc, "version"], capture_output=True, text=True).stdout.strip()


def _prepared_library(n: int, args, tmp: Path) -> Tuple[Dict[str, str], Path, List[str]]:
    sources = generate_library(n, features=args.features, links=not args.no_links)
    lib_dir = tmp / f"lib-{n}"
    return sources, lib_dir, write_library(sources, lib_dir)


def _schemac_runner(args, pythonpath: Path, lib_dir: Path, files: List[str], out: Path) -> Runner:
    return lambda: run_cli(args.python, pythonpath, lib_dir, files, out)


def vs_sqlc(args, sizes: List[int]) -> int:
    """``--vs-sqlc``: schemac against sqlc given the same SQL, paired, per N; then the figures
    the issue asks for (CPU ÷ sqlc at each N, schemac's N_max ÷ N_min, peak memory ÷ sqlc's)."""
    sqlc = find_sqlc(args.sqlc)
    if sqlc is None:
        where = f"at {args.sqlc}" if args.sqlc else "on PATH, in $GOBIN or in $GOPATH/bin"
        print(f"sqlc not found ({where}): the comparison with sqlc is skipped. Install sqlc {SQLC_VERSION} with\n"
              f"    {SQLC_INSTALL}")
        return 0
    version = sqlc_version(sqlc)
    print(f"sqlc: {sqlc} ({version or 'version unknown'}"
          f"{'' if version == SQLC_VERSION else f'; the issue measured {SQLC_VERSION}'}), "
          f"given the same SQL: sql/schema.sql, every query in one queries.sql, Go for pgx/v5")
    tmp = Path(tempfile.mkdtemp(prefix="schemac-bench-vs-sqlc-"))
    results: Dict[int, Paired] = {}
    try:
        for n in sizes:
            sources, lib_dir, files = _prepared_library(n, args, tmp)
            sqlc_dir = tmp / f"sqlc-{n}"
            sqlc_dir.mkdir()
            for name, text in sqlc_inputs(sources, args.pythonpath).items():
                (sqlc_dir / name).write_text(text, encoding="utf-8")
            ours = _schemac_runner(args, args.installed, lib_dir, files, tmp / f"out-{n}")
            theirs = lambda d=sqlc_dir: run_process([sqlc, "generate", "-f", "sqlc.yaml"], d, pin=True)
            results[n] = paired_runs(ours, theirs, args.repeat, args.warmup)
            print_paired(n, "schemac", "sqlc", results[n])
            if not list((sqlc_dir / "out").glob("*.go")):
                raise SystemExit(f"sqlc wrote no Go code for N={n} (see {sqlc_dir})")
    finally:
        if args.keep:
            print(f"(kept {tmp})", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print()
    print(f"{'N':>7} {'schemac CPU s':>14} {'sqlc CPU s':>11} {'CPU ÷ sqlc':>11} {'schemac MB':>11} "
          f"{'sqlc MB':>8} {'memory ÷ sqlc':>14}")
    for n, pair in results.items():
        print(f"{n:>7,} {median(pair.figure('a', 1)):>14.2f} {median(pair.figure('b', 1)):>11.2f} "
              f"{median(pair.ratios(1)):>10.2f}x {median(pair.figure('a', 2)):>11.0f} "
              f"{median(pair.figure('b', 2)):>8.0f} {median(pair.ratios(2)):>13.2f}x")
    if len(results) > 1:
        lo, hi = min(results), max(results)
        print(f"schemac N={hi:,} ÷ N={lo:,} (CPU, medians): "
              f"{median(results[hi].figure('a', 1)) / median(results[lo].figure('a', 1)):.2f}x "
              f"(N ratio {hi / lo:.1f}); sqlc: "
              f"{median(results[hi].figure('b', 1)) / median(results[lo].figure('b', 1)):.2f}x")
    print("(ratios: the median of the pairs' ratios)")
    return 0


@contextmanager
def checkout(rev: str) -> Iterator[Path]:
    """A ``git worktree`` of ``rev`` (detached) in a temporary directory, removed after."""
    tmp = Path(tempfile.mkdtemp(prefix="schemac-bench-rev-"))
    tree = tmp / "tree"
    subprocess.run(["git", "-C", str(REPO_ROOT), "worktree", "add", "--detach", "--quiet", str(tree), rev],
                   check=True, stdout=subprocess.DEVNULL)
    try:
        yield tree
    finally:
        subprocess.run(["git", "-C", str(REPO_ROOT), "worktree", "remove", "--force", str(tree)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)


def vs_rev(args, sizes: List[int], install_dir: Path) -> int:
    """``--vs REV``: this compiler against the one of commit ``REV``, both installed with their
    bytecode, on the same library, paired, per N; the ratios today ÷ REV."""
    described = subprocess.run(["git", "-C", str(REPO_ROOT), "log", "-1", "--format=%h %cs %s", args.vs],
                               capture_output=True, text=True)
    if described.returncode != 0:
        raise SystemExit(f"--vs {args.vs}: not a commit of {REPO_ROOT}: {described.stderr.strip()}")
    print(f"against {described.stdout.strip()[:100]}")
    with checkout(args.vs) as tree:
        other = install_compiler(args.python, tree / "pants-plugins", install_dir / "rev", True)
    warm_parser_cache(args.python, other)
    tmp = Path(tempfile.mkdtemp(prefix="schemac-bench-vs-rev-"))
    results: Dict[int, Paired] = {}
    try:
        for n in sizes:
            _, lib_dir, files = _prepared_library(n, args, tmp)
            today = _schemac_runner(args, args.installed, lib_dir, files, tmp / f"out-{n}-today")
            then = _schemac_runner(args, other, lib_dir, files, tmp / f"out-{n}-rev")
            results[n] = paired_runs(today, then, args.repeat, args.warmup)
            print_paired(n, "today", args.vs, results[n])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print()
    print(f"{'N':>7} {'today CPU s':>12} {args.vs + ' CPU s':>14} {'today ÷ ' + args.vs:>16} {'today MB':>9} "
          f"{args.vs + ' MB':>11} {'memory ratio':>13}")
    for n, pair in results.items():
        print(f"{n:>7,} {median(pair.figure('a', 1)):>12.2f} {median(pair.figure('b', 1)):>14.2f} "
              f"{median(pair.ratios(1)):>15.2f}x {median(pair.figure('a', 2)):>9.0f} "
              f"{median(pair.figure('b', 2)):>11.0f} {median(pair.ratios(2)):>12.2f}x")
    print("(ratios: the median of the pairs' ratios; below 1: today is faster / smaller)")
    return 0


# ---------------------------------------------------------------------------------------------


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=None,
                    help="comma-separated numbers of types (default: 100,1000,5000; 1000,5000 with --vs-sqlc "
                         "or --vs)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="cold runs per size; the fastest is shown (default: 3); with --vs-sqlc or --vs: the "
                         "counted pairs, after one uncounted pair")
    ap.add_argument("--warmup", type=int, default=1,
                    help="with --vs-sqlc or --vs: uncounted pairs before the counted ones, per size (default: 1)")
    ap.add_argument("--vs-sqlc", action="store_true",
                    help=f"compile side by side with sqlc {SQLC_VERSION} given the same SQL (paired cold runs): CPU "
                         "and peak memory ratios")
    ap.add_argument("--sqlc", default=None, help="the sqlc executable (default: sqlc on PATH, $GOBIN, $GOPATH/bin)")
    ap.add_argument("--vs", metavar="REV", default=None,
                    help="compile side by side with the compiler of commit REV (a git worktree in a temporary "
                         "directory, removed after; paired cold runs): CPU and peak memory ratios")
    ap.add_argument("--profile-size", type=int, default=1000, help="N for the in-process profile; 0 skips it")
    ap.add_argument("--python", default=default_python(), help="interpreter for the cold runs (default: .venv-test)")
    ap.add_argument("--pythonpath", type=Path, default=DEFAULT_PYTHONPATH,
                    help="directory holding the schemac package (default: pants-plugins/)")
    ap.add_argument("--features", action="store_true",
                    help="also use inheritance, custom scalars, value constraints and indexes "
                         "(default: the issue's workload: scalars, enums, defaults, exclusive constraints, links)")
    ap.add_argument("--no-links", action="store_true",
                    help="leave out the links (the workload measured before links were part of it)")
    ap.add_argument("--cpu", type=int, default=None,
                    help="pin the compiler processes to this CPU (default: not pinned; the compiler is "
                         "single-threaded, CPU s <= wall s shows it)")
    ap.add_argument("--keep", action="store_true", help="keep the generated libraries")
    ap.add_argument("--no-parser-cache", action="store_true",
                    help="run without the cache directory (SCHEMAC_CACHE_DIR=''): every run analyses the "
                         "grammar and compiles the templates")
    args = ap.parse_args(argv)
    if threading.current_thread() is not threading.main_thread():
        return _main_args(ap, args)
    # A terminated benchmark still removes its temporary directories and git worktree.
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        return _main_args(ap, args)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _main_args(ap: argparse.ArgumentParser, args) -> int:
    global PIN_CPU
    PIN_CPU = args.cpu
    if args.sizes is None:
        args.sizes = "1000,5000" if (args.vs_sqlc or args.vs) else "100,1000,5000"
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.vs_sqlc and args.vs:
        ap.error("--vs-sqlc and --vs are separate runs")
    args.pythonpath = args.pythonpath.resolve()
    if args.vs_sqlc and find_sqlc(args.sqlc) is None:
        return vs_sqlc(args, sizes)  # says how to install sqlc
    install_dir = Path(tempfile.mkdtemp(prefix="schemac-bench-install-"))
    try:
        args.installed = install_compiler(args.python, args.pythonpath, install_dir / "with-bytecode", True)
        if not (args.vs_sqlc or args.vs):
            args.bare = install_compiler(args.python, args.pythonpath, install_dir / "sources-only", False)
        args.install_dir = install_dir
        return _main_installed(args, sizes)
    finally:
        shutil.rmtree(install_dir, ignore_errors=True)


def _main_installed(args, sizes: List[int]) -> int:

    import platform

    print(f"schemac compile speed: {args.python} ({platform.python_implementation()} "
          f"{subprocess.run([args.python, '-c', 'import platform; print(platform.python_version())'], capture_output=True, text=True).stdout.strip()}), "
          f"schemac from {args.pythonpath} (installed in a temporary directory with its bytecode compiled), "
          f"{os.cpu_count()} CPUs, cold process per run, " +
          (f"{args.repeat} counted pairs after {args.warmup} uncounted" if (args.vs_sqlc or args.vs) else f"best of {args.repeat}"))
    cache_dir = None
    if args.no_parser_cache:
        PARSER_CACHE["SCHEMAC_CACHE_DIR"] = ""
        print("parser and template caches: off (every run analyses the grammar and compiles the templates)")
    else:
        cache_dir = tempfile.mkdtemp(prefix="schemac-bench-parser-cache-")
        PARSER_CACHE["SCHEMAC_CACHE_DIR"] = cache_dir
        empty, warm = warm_parser_cache(args.python, args.installed)
        print(f"parser and template caches: warm for the runs (a one-type compile in a fresh process: {empty:.2f} s "
              f"with an empty cache, {warm:.2f} s with it filled)")
    os.environ.update(PARSER_CACHE)  # for the in-process profile too
    try:
        if args.vs_sqlc:
            return vs_sqlc(args, sizes)
        if args.vs:
            return vs_rev(args, sizes, args.install_dir)
        return _main(args, sizes)
    finally:
        if cache_dir:
            shutil.rmtree(cache_dir, ignore_errors=True)


def reference_seconds(python: str) -> float:
    """A fixed pure-Python loop in a fresh process (10 million additions), fastest of 3: the
    speed of this machine at the time of the runs, to compare figures taken at other times or
    on other machines (a shared virtual machine's speed varies from hour to hour)."""
    code = "import time\nt=time.perf_counter()\ns=0\nfor i in range(10_000_000): s+=i\nprint(time.perf_counter()-t)"
    return min(float(subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout)
               for _ in range(3))


def _main(args, sizes: List[int]) -> int:
    print(f"machine speed reference (a fixed Python loop, 10M additions): {reference_seconds(args.python):.2f} s")
    print(f"interpreter start + imports only: {startup_seconds(args.python, args.installed):.2f} s "
          f"({startup_seconds(args.python, args.bare):.2f} s when the compiler's sources have no bytecode yet "
          f"and are compiled on import, as in a fresh sandbox)")
    runs = [measure(n, args.python, args.installed, args.repeat, args.keep, args.features, not args.no_links)
            for n in sizes]
    print(f"machine speed reference after the runs: {reference_seconds(args.python):.2f} s")
    print()
    print_table(runs)
    for r in runs:
        if r.n == TARGET_TYPES:
            verdict = "met" if r.seconds < TARGET_SECONDS else "NOT met"
            print(f"\ntarget: {TARGET_TYPES:,} types in < {TARGET_SECONDS:.0f} s on one core: {verdict} ({r.seconds:.2f} s)")

    if args.profile_size:
        sources = generate_library(args.profile_size, features=args.features, links=not args.no_links)
        print(f"\nwhere the time goes, N={args.profile_size:,} in-process ({count_lines(sources):,} lines, "
              f"{len(sources):,} files; wall clock, no profiler):")
        total, phases = time_phases(sources, args.pythonpath)
        print_phases(total, phases)
        print(f"\ncProfile of the same compile (profiler overhead inflates call-heavy code):")
        print(profile(sources, args.pythonpath))
    return 0


if __name__ == "__main__":
    sys.exit(main())
