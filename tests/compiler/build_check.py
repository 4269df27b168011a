"""Batch checks of compiled libraries: does every output build?

Used by the naming tests and the naming oracle (tests/compiler/test_naming_*.py). Many
libraries are checked at once, so the cost of starting tsc and go vet is paid once per batch:

* TypeScript: every library's ``ts/`` in its own directory of one project, one
  ``tsc --strict --noUncheckedIndexedAccess --noEmit`` run (ES2022, NodeNext, both module
  formats the compiler writes);
* Go: every library's ``go/`` as its own package (directory ``p<i>``) of one module
  (tests/go/go.mod), then ``gofmt -l`` (must print nothing) and one ``go vet ./...``;
* SQL: every library's up migrations applied to a fresh Postgres schema of one database
  (``CREATE SCHEMA``, ``SET search_path``), each in its own transaction.

:func:`check_batch` returns one message per library that failed, keyed by the library's index;
the messages quote the tool's output for that library.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence

TESTS_DIR = Path(__file__).resolve().parent.parent
TS_DIR = TESTS_DIR / "ts"
GO_DIR = TESTS_DIR / "go"

TS_OPTIONS = {
    "target": "ES2022",
    "lib": ["ES2022"],
    "module": "NodeNext",
    "moduleResolution": "NodeNext",
    "strict": True,
    "noUncheckedIndexedAccess": True,
    "noEmit": True,
    "types": ["node"],
    "skipLibCheck": True,
}


def tools_available() -> Optional[str]:
    """``None`` when tsc, go and gofmt are there, else what is missing."""
    if not (TS_DIR / "node_modules" / ".bin" / "tsc").exists():
        return "tsc is missing (run tests/run: npm ci in tests/ts)"
    if not shutil.which("node"):
        return "node is not on PATH"
    if not shutil.which("go"):
        return "go is not on PATH"
    return None


def _go_env() -> Dict[str, str]:
    env = dict(os.environ)
    flags = [f for f in env.get("GOFLAGS", "").split() if not f.startswith("-mod")]
    env.update(GOFLAGS=" ".join(flags + ["-mod=mod"]), GOPROXY="off", GOSUMDB="off", GOTOOLCHAIN="local",
               GOWORK="off")
    env.pop("GOROOT", None)
    return env


def _write(root: Path, files: Mapping[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def check_ts(libraries: Sequence[Mapping[str, str]], work: Path, extra: Optional[Mapping[int, Mapping[str, str]]] = None
             ) -> Dict[int, str]:
    """tsc over every library's ``ts/*`` (``{name: text}``); ``extra``: more files per library
    (e.g. a ``main.ts`` using the runner). Returns ``{index: tsc's messages for it}``."""
    project = work / "ts"
    project.mkdir(parents=True, exist_ok=True)
    (project / "node_modules").symlink_to(TS_DIR / "node_modules", target_is_directory=True)
    (project / "package.json").write_text(json.dumps({"private": True, "type": "module"}))
    for i, lib in enumerate(libraries):
        _write(project / "src" / f"l{i}", lib)
        if extra and i in extra:
            _write(project / "src" / f"l{i}", extra[i])
    (project / "tsconfig.json").write_text(json.dumps({"compilerOptions": TS_OPTIONS, "include": ["src/**/*"]}))
    r = subprocess.run(["node", str(TS_DIR / "node_modules" / ".bin" / "tsc"), "-p", "tsconfig.json",
                        "--pretty", "false"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=1800)
    out: Dict[int, List[str]] = {}
    key = -1
    for line in r.stdout.splitlines():
        m = re.match(r"src/l(\d+)/", line)
        if m:
            key = int(m.group(1))
        elif not line[:1].isspace():  # (an indented line continues the message before it)
            key = -1
        out.setdefault(key, []).append(line)
    if r.returncode != 0 and not out:
        out[-1] = [r.stdout or f"tsc exited {r.returncode}"]
    return {k: "\n".join(v) for k, v in out.items()}


def check_go(libraries: Sequence[Mapping[str, str]], work: Path, extra: Optional[Mapping[int, Mapping[str, str]]] = None
             ) -> Dict[int, str]:
    """gofmt -l and go vet over every library's ``go/*`` as package directory ``p<i>``."""
    mod = work / "go"
    mod.mkdir(parents=True, exist_ok=True)
    shutil.copy2(GO_DIR / "go.mod", mod / "go.mod")
    shutil.copy2(GO_DIR / "go.sum", mod / "go.sum")
    for i, lib in enumerate(libraries):
        _write(mod / f"p{i}", lib)
        if extra and i in extra:
            _write(mod / f"p{i}", extra[i])
    env = _go_env()
    out: Dict[int, List[str]] = {}
    gofmt = Path(shutil.which("go") or "go").with_name("gofmt")
    r = subprocess.run([str(gofmt), "-l", "."], cwd=mod, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=1800)
    for line in r.stdout.splitlines():
        m = re.match(r"p(\d+)/", line)
        out.setdefault(int(m.group(1)) if m else -1, []).append(f"gofmt: {line}")
    r = subprocess.run(["go", "vet", "./..."], cwd=mod, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=1800)
    if r.returncode != 0:
        found = False
        for line in r.stdout.splitlines():
            m = re.search(r"(?:^|[\s/])p(\d+)/", line)
            if m and not line.startswith("#"):
                out.setdefault(int(m.group(1)), []).append(line)
                found = True
        if not found:
            out.setdefault(-1, []).append(r.stdout)
    return {k: "\n".join(v) for k, v in out.items()}


def check_sql(libraries: Sequence[Mapping[str, str]], conninfo: str) -> Dict[int, str]:
    """Apply every library's ``*.up.sql`` (sorted) in a schema of its own; drops the schemas."""
    import psycopg

    out: Dict[int, str] = {}
    with psycopg.connect(conninfo, autocommit=True) as conn:
        for i, lib in enumerate(libraries):
            schema = f"oracle_l{i}"
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            conn.execute(f'CREATE SCHEMA "{schema}"')
            try:
                with conn.transaction():
                    conn.execute(f'SET LOCAL search_path = "{schema}", public')
                    for name in sorted(n for n in lib if n.endswith(".up.sql")):
                        conn.execute(lib[name].encode("utf-8"), prepare=False)
            except psycopg.Error as e:
                out[i] = f"SQL: {type(e).__name__}: {e}"
            finally:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    return out


def split_outputs(outputs: Mapping[str, str]) -> Dict[str, Dict[str, str]]:
    """``{"sql": {...}, "ts": {...}, "go": {...}}`` of a compile's ``{sql/x: text}``."""
    parts: Dict[str, Dict[str, str]] = {"sql": {}, "ts": {}, "go": {}}
    for path, text in outputs.items():
        head, _, rest = path.partition("/")
        parts[head][rest] = text
    return parts


def check_batch(outputs: Sequence[Mapping[str, str]], conninfo: Optional[str] = None,
                work: Optional[Path] = None) -> Dict[int, List[str]]:
    """Check compile outputs (``compile_library``'s ``{path: text}``): TS, Go and, with
    ``conninfo``, SQL. Returns ``{index: [failure, ...]}`` for the libraries that failed; index
    -1 collects output no library could be blamed for."""
    tmp = None
    if work is None:
        tmp = tempfile.TemporaryDirectory(prefix="schemac-check-")
        work = Path(tmp.name)
    try:
        parts = [split_outputs(o) for o in outputs]
        failures: Dict[int, List[str]] = {}
        for tool, check in (("tsc", check_ts), ("go", check_go)):
            # A syntax error in one library stops tsc (and go vet) from type-checking the
            # others: the libraries blamed are left out and the rest checked again.
            todo = list(range(len(parts)))
            for attempt in range(4):
                sub = work / f"{tool}{attempt}"
                found = check([parts[i][tool if tool == "go" else "ts"] for i in todo], sub)
                blamed = set()
                for k, v in found.items():
                    key = todo[k] if k >= 0 else -1
                    failures.setdefault(key, []).append(f"{tool}:\n{v}")
                    blamed.add(key)
                if not blamed or blamed == {-1}:
                    break
                todo = [i for i in todo if i not in blamed]
        if conninfo:
            for k, v in check_sql([p["sql"] for p in parts], conninfo).items():
                failures.setdefault(k, []).append(v)
        return failures
    finally:
        if tmp is not None:
            tmp.cleanup()
