#!/usr/bin/env python3
"""Language-server latency benchmark (a script, not a test): completion and hover on the
1,000-type benchmark library (tests/bench/compile_speed.py's generator), after the first analysis.

It writes the library to a temporary folder, starts ``python -m schemac lsp`` (the test venv's
interpreter) over stdio and drives it as an editor does, with a minimal JSON-RPC client: open a
query file and wait for its diagnostics (the first analysis: every file parsed and checked), then
time requests, each from send to answer:

* completion in a query file: enum members after ``StatusN.``, properties after ``filter .``,
  shape elements after ``{``, keywords after the shape, and in mid-edit text that does not parse;
* completion in the 19,000-line schema file: type names after ``:``, properties after ``on (.``;
* hover in a query file (a property, a type with its table, the query keyword with the generated
  SQL and TypeScript/Go signatures) and in the schema file (a property);
* an edit of a query file until its diagnostics are published again (incremental re-analysis);
* rename of a property used by a query (prepareRename + rename, the first one after the first
  analysis timed apart);
* schema edits until the diagnostics they cause are published: one that breaks the open query
  (its errors appear) and its fix (they go), one that breaks a query that is not open (checked in
  the background) and its fix;
* memory: the server's resident set size (``/proc/<pid>/status``) before and after ``--edits``
  query edits, each followed by a hover (which analyses the edit at once, no debounce wait).

It prints p50 / p95 / max per kind (milliseconds) and the memory figures, and asserts nothing.
Targets (issues 15 and 27): completion, hover and rename within 50 ms (p95) after the first
analysis; a schema edit's diagnostics within 1 s; memory flat over many edits.

    .venv-test/bin/python tests/bench/lsp_latency.py [--types 1000] [--rounds 20] [--edits 1000]
        [--pythonpath OTHER_CHECKOUT/pants-plugins]  # the server of another checkout ("before")
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional, Tuple

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

from compile_speed import generate_library, write_library  # noqa: E402


class Client:
    """JSON-RPC over the server's stdin/stdout (LSP base protocol framing)."""

    def __init__(self, cmd: List[str], env: Dict[str, str], cwd: str):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, cwd=cwd)
        self.next_id = 0
        self.notifications: List[dict] = []

    def send(self, msg: dict) -> None:
        body = json.dumps(msg).encode("utf-8")
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def read(self) -> dict:
        length = 0
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EOFError("the server exited")
            line = line.strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.proc.stdout.read(length))

    def request(self, method: str, params: dict) -> Tuple[object, float]:
        self.next_id += 1
        rid = self.next_id
        t0 = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            msg = self.read()
            if msg.get("id") == rid and "method" not in msg:
                return msg.get("result"), (time.perf_counter() - t0) * 1000
            if "method" in msg and "id" in msg:  # a request from the server: answer it
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            elif "method" in msg:
                self.notifications.append(msg)

    def notify(self, method: str, params: dict) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_diagnostics(self, uri: str, since: int = 0) -> float:
        t0 = time.perf_counter()
        while True:
            for n in self.notifications[since:]:
                if n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri:
                    return (time.perf_counter() - t0) * 1000
            since = len(self.notifications)
            msg = self.read()
            if "method" in msg and "id" in msg:
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            elif "method" in msg:
                self.notifications.append(msg)

    def close(self) -> None:
        try:
            self.request("shutdown", {})
            self.notify("exit", {})
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()


def pos(text: str, needle: str, after: bool = True, nth: int = 0) -> dict:
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    if after:
        i += len(needle)
    line = text.count("\n", 0, i)
    return {"line": line, "character": i - (text.rfind("\n", 0, i) + 1)}


def percentile(values: List[float], p: float) -> float:
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(p / 100 * (len(s) - 1)))))
    return s[k]


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def run(n_types: int, rounds: int, python: str, pythonpath: str = "", edits: int = 1000,
        memory: Optional[Dict[str, float]] = None, timeout: float = 3600) -> Dict[str, List[float]]:
    sources = generate_library(n_types)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="schemac-lsp-bench-"))
    lib = tmp / "bench"
    write_library(sources, lib)
    env = dict(os.environ, PYTHONPATH=pythonpath or str(REPO / "pants-plugins"))
    client = Client([python, "-m", "schemac", "lsp"], env, str(tmp))
    import threading
    watchdog = threading.Timer(timeout, client.proc.kill)  # a hung run ends (EOFError) rather than waits
    watchdog.daemon = True
    watchdog.start()
    results: Dict[str, List[float]] = {}

    def timed(kind: str, method: str, params: dict, check=None) -> object:
        result, ms = client.request(method, params)
        if check is not None:
            assert check(result), (kind, str(result)[:300])
        results.setdefault(kind, []).append(ms)
        return result

    try:
        _, ms = client.request("initialize", {"processId": os.getpid(), "rootUri": tmp.as_uri(),
                                              "capabilities": {}})
        results["initialize"] = [ms]
        client.notify("initialized", {})
        # the first type's update query, and the schema
        schema_path = lib / "schema.esdl"
        schema = schema_path.read_text()
        # a type near the middle whose update query sets `title` (the schema edits rename it)
        updates = sorted(p for p in sources if p.startswith("queries/update_"))
        titled = [p for p in updates if "set { title" in sources[p]]
        qname = next((p for p in updates[n_types // 2:] if p in titled), titled[0])
        qpath = lib / qname
        qtext = qpath.read_text()
        type_name = qtext.split()[1]
        enum_name = next(line.split()[1] for line in schema.splitlines() if line.startswith("enum "))
        quri, suri = qpath.as_uri(), schema_path.as_uri()
        t0 = time.perf_counter()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": quri, "languageId": "edgeql", "version": 1,
                                                                "text": qtext}})
        client.wait_diagnostics(quri)
        results["first analysis (open -> diagnostics)"] = [(time.perf_counter() - t0) * 1000]
        client.notify("textDocument/didOpen", {"textDocument": {"uri": suri, "languageId": "esdl", "version": 1,
                                                                "text": schema}})
        # A query being edited: `select T { ... } filter .x = StatusN. ...`
        edit = (f"select {type_name} {{ id, name,  }}\nfilter .name = 'x' and .status = {enum_name}. and .\n"
                f"order by .name\n")
        version = 2
        client.notify("textDocument/didChange", {"textDocument": {"uri": quri, "version": version},
                                                 "contentChanges": [{"text": edit}]})
        client.request("textDocument/hover", {"textDocument": {"uri": quri}, "position": pos(edit, "sel")})  # settle
        td = {"uri": quri}
        for _ in range(rounds):
            timed("completion: enum members after Enum.", "textDocument/completion",
                  {"textDocument": td, "position": pos(edit, f"{enum_name}.")},
                  lambda r: len(r["items"]) >= 3)
            timed("completion: properties after filter .", "textDocument/completion",
                  {"textDocument": td, "position": pos(edit, "and .")}, lambda r: len(r["items"]) >= 10)
            timed("completion: shape element", "textDocument/completion",
                  {"textDocument": td, "position": pos(edit, "name, ")}, lambda r: len(r["items"]) >= 10)
            timed("completion: keywords", "textDocument/completion",
                  {"textDocument": td, "position": pos(edit, "order by .name\n")}, lambda r: r is not None)
            timed("completion: type names after : (schema)", "textDocument/completion",
                  {"textDocument": {"uri": suri}, "position": pos(schema, "required name: ")},
                  lambda r: "str" in [i["label"] for i in r["items"]] and (r["isIncomplete"] or n_types < 150))
            timed("completion: properties after on (. (schema)", "textDocument/completion",
                  {"textDocument": {"uri": suri}, "position": pos(schema, "on (.", nth=n_types // 2)},
                  lambda r: len(r["items"]) >= 10)
        # hover needs text that parses for the query keyword: the original query
        version += 1
        client.notify("textDocument/didChange", {"textDocument": {"uri": quri, "version": version},
                                                 "contentChanges": [{"text": qtext}]})
        since = len(client.notifications)
        t0 = time.perf_counter()
        client.wait_diagnostics(quri, since)
        results["query edit -> diagnostics (incl. 150 ms debounce)"] = [(time.perf_counter() - t0) * 1000]
        for r in range(rounds):
            timed("hover: property (query)", "textDocument/hover",
                  {"textDocument": td, "position": pos(qtext, "set { ") if "set { name" in qtext else
                   pos(qtext, "set { t")}, lambda r: r is not None)
            timed("hover: implicit id (query)", "textDocument/hover",
                  {"textDocument": td, "position": pos(qtext, "filter .i")}, lambda r: r is not None)
            timed("hover: type with its table (query)", "textDocument/hover",
                  {"textDocument": td, "position": pos(qtext, f"update {type_name[:2]}")}, lambda r: r is not None)
            timed("hover: query keyword -> SQL, TS, Go", "textDocument/hover",
                  {"textDocument": td, "position": pos(qtext, "upd")},
                  lambda r: r is not None and "UPDATE" in r["contents"]["value"])
            timed("hover: property (schema)", "textDocument/hover",
                  {"textDocument": {"uri": suri}, "position": pos(schema, "required name", nth=n_types // 3)},
                  lambda r: r is not None)
        # incremental: a query edit, until its diagnostics are back
        for r in range(min(rounds, 5)):
            version += 1
            text = qtext.replace("filter .id", "filter .idd" if r % 2 == 0 else "filter .id")
            client.notify("textDocument/didChange", {"textDocument": {"uri": quri, "version": version},
                                                     "contentChanges": [{"text": text}]})
            since = len(client.notifications)
            t0 = time.perf_counter()
            client.wait_diagnostics(quri, since)
            results.setdefault("query edit -> diagnostics (incl. 150 ms debounce)", []).append(
                (time.perf_counter() - t0) * 1000)
        version += 1
        client.notify("textDocument/didChange", {"textDocument": {"uri": quri, "version": version},
                                                 "contentChanges": [{"text": qtext}]})
        client.wait_diagnostics(quri, len(client.notifications))
        # schema edits: rename a property of the open query's type in the schema (its query's
        # `filter .id` stays valid, its `set { name := ... }` / `title` breaks), then undo it;
        # then the same for a type whose queries are not open (re-checked in the background)
        def decl_range(tname: str) -> Tuple[int, int]:
            start = schema.index(f"type {tname} {{")
            return start, schema.index("\n}", start)

        sversion = 1
        other = next(p for p in titled[len(titled) // 4:] + titled if p != qname)
        for label, tname, target_uri in (
                ("open query", type_name, quri),
                ("closed query", sources[other].split()[1], (lib / other).as_uri())):
            for r in range(min(rounds, 2)):
                s0, s1 = decl_range(tname)
                broken = schema[:s0] + schema[s0:s1].replace("  title: ", "  titlex: ").replace(
                    "required title: ", "required titlex: ") + schema[s1:]
                assert broken != schema
                for text, want, what in ((broken, True, "breaks"), (schema, False, "fix")):
                    sversion += 1
                    since = len(client.notifications)
                    t0 = time.perf_counter()
                    client.notify("textDocument/didChange", {"textDocument": {"uri": suri, "version": sversion},
                                                             "contentChanges": [{"text": text}]})
                    while True:
                        client.wait_diagnostics(target_uri, since)
                        last = [n for n in client.notifications[since:]
                                if n["method"] == "textDocument/publishDiagnostics"
                                and n["params"]["uri"] == target_uri][-1]
                        since = len(client.notifications)
                        if bool(last["params"]["diagnostics"]) == want:
                            break
                    results.setdefault(f"schema edit {what} {label} -> its diagnostics", []).append(
                        (time.perf_counter() - t0) * 1000)
        # rename a property of the open query's type, from the query (all its uses: schema and
        # queries); the edit is not applied, so each round renames the same property
        rpos = pos(qtext, "set { ti")
        first = True
        for r in range(rounds):
            _, ms = client.request("textDocument/prepareRename", {"textDocument": td, "position": rpos})
            result, ms2 = client.request("textDocument/rename", {"textDocument": td, "position": rpos,
                                                                  "newName": "ident"})
            results.setdefault("rename (prepare + rename)" if not first else
                               "rename (prepare + rename), the first after an edit", []).append(ms + ms2)
            first = False
        # memory over many edits, each analysed (a hover after it)
        if memory is not None and edits:
            for r in range(50):  # warm up
                version += 1
                client.notify("textDocument/didChange", {"textDocument": {"uri": quri, "version": version},
                                                         "contentChanges": [{"text": qtext + "#" * (r % 7)}]})
                client.request("textDocument/hover", {"textDocument": td, "position": pos(qtext, "upd")})
            time.sleep(0.5)
            before = rss_kb(client.proc.pid)
            t0 = time.perf_counter()
            for r in range(edits):
                version += 1
                client.notify("textDocument/didChange", {"textDocument": {"uri": quri, "version": version},
                                                         "contentChanges": [{"text": qtext + "#" * (r % 7)}]})
                client.request("textDocument/hover", {"textDocument": td, "position": pos(qtext, "upd")})
            elapsed = time.perf_counter() - t0
            time.sleep(0.5)
            after = rss_kb(client.proc.pid)
            memory.update(edits=edits, before_mb=before / 1024, after_mb=after / 1024,
                          per_edit_kb=(after - before) / edits, ms_per_edit=elapsed * 1000 / edits)
    finally:
        watchdog.cancel()
        client.close()
    return results


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--types", type=int, default=1000, help="object types in the library (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=20, help="requests of each kind (default: %(default)s)")
    ap.add_argument("--python", default=str(REPO / ".venv-test" / "bin" / "python") if (
        REPO / ".venv-test" / "bin" / "python").exists() else sys.executable, help="the server's interpreter")
    ap.add_argument("--pythonpath", default="", help="the server's PYTHONPATH (default: this checkout's "
                    "pants-plugins; another checkout's measures its server, e.g. the 'before' figures)")
    ap.add_argument("--edits", type=int, default=1000, help="query edits of the memory measure (0: none)")
    args = ap.parse_args(argv)
    memory: Dict[str, float] = {}
    results = run(args.types, args.rounds, args.python, args.pythonpath, args.edits, memory)
    print(f"schemac language server, {args.types} types ({args.rounds} requests of each kind), ms:")
    print(f"  {'':58s} {'n':>3s} {'p50':>8s} {'p95':>8s} {'max':>8s}")
    for kind, values in results.items():
        print(f"  {kind:58s} {len(values):3d} {statistics.median(values):8.1f} {percentile(values, 95):8.1f} "
              f"{max(values):8.1f}")
    if memory:
        print(f"  memory over {memory['edits']:.0f} query edits (each analysed): RSS {memory['before_mb']:.1f} -> "
              f"{memory['after_mb']:.1f} MB, {memory['per_edit_kb']:+.2f} KB per edit, "
              f"{memory['ms_per_edit']:.1f} ms per edit + hover")
    return 0


if __name__ == "__main__":
    sys.exit(main())
