"""The naming oracle: libraries made of hostile names must compile into code that builds, or be
refused with a located error.

Libraries are generated (hypothesis) from name pools that collide on purpose: SQL, JavaScript,
TypeScript and Go reserved words and predeclared names, the runners' own names, pairs that
collide after camelCasing or snake_casing (``get_user2``/``get_user_2``, ``isbn_code``/
``isbnCode``, ``HttpRequest``/``HTTPRequest``), names of 63 bytes and more, enum members with
spaces, punctuation and letters outside ASCII; and from real features: required and optional
properties of most scalar types, enums, arrays, single and multi links, exclusive constraints,
and insert / select (with filters and nested shapes) / update / delete queries.

For every library:

* a refusal (``CompileError``) must be located (file, line, column) with a known code, and a
  collision (``E0207``, ``E0213``) must name both sides; a crash (any other exception) fails;
* a library that compiles is checked in batches (tests/compiler/build_check.py): the SQL
  applies to Postgres, ``tsc --strict`` passes, ``gofmt -l`` prints nothing, ``go vet`` passes.

Run it long from the command line (figures printed at the end)::

    DATABASE_URL=... python tests/compiler/naming_oracle.py --libraries 2000 [--seed 1]

tests/compiler/test_naming_oracle.py runs a derandomized batch in the suite.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "pants-plugins"))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from build_check import check_batch  # noqa: E402
from schemac.semantics.library import Options
from schemac.pipeline import compile_library  # noqa: E402
from schemac.diagnostics import CODES, CompileError  # noqa: E402

LONG = "l" + "o" * 62 + "ng"  # 65 bytes
LONG2 = "l" + "o" * 62 + "nG"

#: Names of types and enums (identifiers, any case).
TYPE_NAMES = [
    "User", "Order", "Group", "Select", "Table", "Error", "Promise", "Object", "Date", "Record", "Buffer",
    "Queries", "Runner", "DBTX", "New", "Globals", "Queryable", "JsonValue", "string", "type", "func", "map",
    "chan", "context", "errors", "json", "time", "pgx", "user", "order", "HttpRequest", "HTTPRequest",
    "UserProfile", "User_Profile", "Status", "StatusRow", "Row", "Params", "Item", "Uq", "T" + "x" * 64,
    "T" + "x" * 63 + "y", "any", "error", "nil", "Array", "Map", "Symbol", "constructor", "prototype",
]
#: Names of properties and links.
PROP_NAMES = [
    "name", "order", "user", "select", "from", "group", "limit", "check", "type", "delete", "new", "class",
    "function", "await", "yield", "let", "constructor", "toString", "prototype", "isbn_code", "isbnCode",
    "user_id", "userId", "url", "u_r_l", "owner", "owner_id", "source_id", "target_id", "p" * 63, LONG, LONG2,
    "_x", "x_", "a1", "a_1", "range", "chan", "func", "go", "string", "len", "err", "ctx", "arg", "rows",
    "i", "q", "db", "sku", "ISBN", "Error", "Params", "row", "json", "value", "default_", "end",
]
#: Enum members (any text).
MEMBERS = ["A", "B", "a b", "a_b", "AB", "\u00e9t\u00e9", "\u65e5\u672c", "in progress", "Row", "Params", "1st",
           "'quote'", "*/", "back\\slash", "x" * 70, "Error", "new", "delete", "\u00c9t\u00e9", "-", "--"]
#: Query file names (snake_case).
QUERY_NAMES = [
    "delete", "new", "run", "create_runner", "translate_error", "get_user2", "get_user_2", "get_url",
    "get_u_r_l", "default", "type", "go", "select", "constructor", "queries", "db", "with_tx", "is_pool",
    "in_transaction", "make_runner", "list", "all", "q" + "_x" * 35, "error", "promise", "string",
]
#: Parameter names.
PARAM_NAMES = ["isbn_code", "isbnCode", "order", "select", "new", "delete", "type", "args", "db", "ctx", "arg",
               "q", "i", "rows", "err", "globals", "id", "value", LONG, "user_id", "userId"]
LIBRARY_NAMES = ["t", "type", "go", "main", "my-lib", "select", "queries", "x1", "Lib", "context"]
SCALARS = ["str", "int64", "int32", "bool", "float64", "datetime", "json", "uuid", "decimal", "bytes"]


@st.composite
def libraries(draw) -> Tuple[Dict[str, str], str]:
    """``(sources, library name)`` of a random library (see the module docstring)."""
    enums: List[Tuple[str, List[str]]] = []
    used = set()
    for _ in range(draw(st.integers(0, 2))):
        name = draw(st.sampled_from(TYPE_NAMES))
        if name in used:
            continue
        used.add(name)
        members = draw(st.lists(st.sampled_from(MEMBERS), min_size=1, max_size=4, unique=True))
        enums.append((name, members))
    types: List[Tuple[str, List[Tuple[str, str, bool, bool]]]] = []
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(TYPE_NAMES))
        if name in used:
            continue
        used.add(name)
        types.append((name, []))
    if not types:
        types.append(("Thing", []))
    type_names = [t for t, _ in types]
    for _, props in types:
        seen = set()
        for _ in range(draw(st.integers(1, 4))):
            pname = draw(st.sampled_from(PROP_NAMES))
            if pname in seen:
                continue
            seen.add(pname)
            kind = draw(st.sampled_from(["scalar", "scalar", "scalar", "enum", "array", "link", "multi"]))
            required = draw(st.booleans())
            exclusive = draw(st.integers(0, 5)) == 0
            if kind == "enum" and enums:
                target = draw(st.sampled_from([e for e, _ in enums]))
            elif kind in ("link", "multi"):
                target = draw(st.sampled_from(type_names))
            elif kind == "array":
                target = f"array<{draw(st.sampled_from(['str', 'int64', 'bool']))}>"
            else:
                kind = "scalar"
                target = draw(st.sampled_from(SCALARS))
            props.append((pname, f"{kind}:{target}", required and kind != "multi", exclusive))
    lines = []
    for name, members in enums:
        quoted = ", ".join("'" + m.replace("\\", "\\\\").replace("'", "\\'") + "'" for m in members)
        lines.append(f"scalar type {name} extending enum<{quoted}>;")
    for name, props in types:
        body = []
        for pname, spec, required, exclusive in props:
            kind, target = spec.split(":", 1)
            req = "required " if required else ""
            if kind == "link":
                body.append(f"  {req}link {pname} -> {target};")
            elif kind == "multi":
                body.append(f"  multi link {pname} -> {target};")
            else:
                ex = " { constraint exclusive; }" if exclusive and kind == "scalar" else ""
                body.append(f"  {req}property {pname} -> {target}{ex};")
        lines.append(f"type {name} {{\n" + "\n".join(body) + "\n}")
    sources = {"lib/schema.esdl": "\n".join(lines) + "\n"}
    for _ in range(draw(st.integers(0, 4))):
        qname = draw(st.sampled_from(QUERY_NAMES))
        tname, props = draw(st.sampled_from(types))
        sources[f"lib/queries/{qname}.edgeql"] = _query(draw, tname, props)
    return sources, draw(st.sampled_from(LIBRARY_NAMES))


def _value_type(spec: str) -> Optional[str]:
    kind, target = spec.split(":", 1)
    if kind in ("scalar", "enum"):
        return target
    return None


def _query(draw, tname: str, props) -> str:
    form = draw(st.sampled_from(["select", "select_filter", "select_nested", "insert", "update", "delete"]))
    scalars = [(p, _value_type(s), r) for p, s, r, _ in props if _value_type(s)]
    links = [(p, s.split(":", 1)[1]) for p, s, _, _ in props if s.startswith(("link:", "multi:"))]
    shape = ", ".join([p for p, _, _ in scalars][:3] + [p for p, _ in links][:1]) or "id"
    pname = draw(st.sampled_from(PARAM_NAMES))
    pname2 = draw(st.sampled_from(PARAM_NAMES))
    if form == "select":
        return f"select {tname} {{ {shape} }};\n"
    if form == "select_filter" and scalars:
        p, t, _ = scalars[0]
        extra = f" or .{scalars[-1][0]} = <{scalars[-1][1]}>${pname2}" if len(scalars) > 1 else ""
        return f"select {tname} {{ {shape} }} filter .{p} = <{t}>${pname}{extra};\n"
    if form == "select_nested" and links:
        link, _ = links[0]
        return f"select {tname} {{ {shape}, {link}: {{ id }} }} filter .id = <uuid>${pname};\n"
    if form == "insert":
        sets = ", ".join(f"{p} := <{t}>${p}" for p, t, _ in scalars)
        return f"insert {tname} {{ {sets} }};\n"
    if form == "update" and scalars:
        p, t, _ = scalars[0]
        return f"update {tname} filter .id = <uuid>${pname} set {{ {p} := <{t}>${pname2} }};\n"
    return f"delete {tname} filter .id = <uuid>${pname};\n"


#: Codes that may come without a location: options and whole-library problems.
UNLOCATED_OK = {"E0201", "E0206", "E0308"}


def refusal_problem(e: CompileError) -> Optional[str]:
    """What is wrong with a refusal, or ``None`` when every diagnostic is located, has a known
    code, and a collision names both sides."""
    for d in e.diagnostics:
        if d.code not in CODES:
            return f"unknown code {d.code}: {d.message}"
        if d.span is None and d.code not in UNLOCATED_OK:
            return f"unlocated {d.code}: {d.message}"
        if d.span is not None and (d.span.line < 1 or d.span.col < 1 or not d.span.file):
            return f"bad location {d.span} for {d.code}: {d.message}"
        if d.code == "E0213" and (" and " not in d.message or d.message.count("'") < 6):
            return f"collision that does not name both sides: {d.message}"
    return None


def compile_one(sources: Dict[str, str], library: str):
    """``("ok", outputs)``, ``("refused", codes)`` or ``("bad", message)``."""
    try:
        return "ok", compile_library(sources, Options(library=library))
    except CompileError as e:
        problem = refusal_problem(e)
        if problem is not None:
            return "bad", problem
        return "refused", sorted({d.code for d in e.diagnostics})
    except Exception as e:  # a crash: never acceptable
        import traceback

        return "bad", "crash: " + "".join(traceback.format_exception(type(e), e, e.__traceback__))[-3000:]


def generate(n: int, seed: Optional[int]) -> List[Tuple[Dict[str, str], str]]:
    """``n`` libraries from hypothesis: derandomized (``seed`` ``None``) or from ``seed``."""
    from hypothesis import Phase
    from hypothesis import seed as with_seed

    out: List[Tuple[Dict[str, str], str]] = []

    def collect(lib):
        out.append(lib)

    test = given(libraries())(collect)
    test = settings(max_examples=n, derandomize=seed is None, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck), phases=[Phase.generate])(test)
    if seed is not None:
        test = with_seed(seed)(test)
    test()
    return out[:n]


def run_oracle(n: int, seed: Optional[int], conninfo: Optional[str], batch: int = 100, log=print) -> Dict[str, object]:
    """Generate, compile and check ``n`` libraries; returns the figures and the failures."""
    start = time.monotonic()
    libs = generate(n, seed)
    figures: Dict[str, object] = {"libraries": len(libs), "compiled": 0, "refused": 0}
    refused_codes: collections.Counter = collections.Counter()
    failures: List[str] = []
    ok: List[Tuple[int, Dict[str, str]]] = []
    for i, (sources, library) in enumerate(libs):
        status, value = compile_one(sources, library)
        if status == "ok":
            figures["compiled"] += 1  # type: ignore[operator]
            ok.append((i, value))
        elif status == "refused":
            figures["refused"] += 1  # type: ignore[operator]
            refused_codes.update(value)
        else:
            failures.append(f"library {i} ({library!r}): {value}\n{_show(sources)}")
    log(f"generated and compiled {len(libs)} libraries ({time.monotonic() - start:.0f} s)")
    for b in range(0, len(ok), batch):
        chunk = ok[b:b + batch]
        found = check_batch([o for _, o in chunk], conninfo)
        for k, msgs in sorted(found.items()):
            if k < 0:
                failures.append("batch output no library could be blamed for:\n" + "\n".join(msgs))
                continue
            i = chunk[k][0]
            failures.append(f"library {i} ({libs[i][1]!r}) does not build:\n" + "\n".join(msgs)[:4000]
                            + "\n" + _show(libs[i][0]))
        log(f"checked {min(b + batch, len(ok))}/{len(ok)} compiled libraries ({time.monotonic() - start:.0f} s)")
    figures["refused_by_code"] = dict(sorted(refused_codes.items()))
    figures["failures"] = len(failures)
    figures["seconds"] = round(time.monotonic() - start, 1)
    figures["failure_reports"] = failures
    return figures


def _show(sources: Dict[str, str]) -> str:
    return "\n".join(f"--- {p}\n{t}" for p, t in sorted(sources.items()))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="naming oracle: hostile libraries must build or be refused")
    p.add_argument("--libraries", type=int, default=200)
    p.add_argument("--seed", type=int, default=None, help="random seed (default: derandomized)")
    p.add_argument("--batch", type=int, default=100)
    args = p.parse_args(argv)
    figures = run_oracle(args.libraries, args.seed, os.environ.get("DATABASE_URL"), args.batch,
                         log=lambda m: print(m, file=sys.stderr))
    for report in figures.pop("failure_reports"):  # type: ignore[union-attr]
        print(report, "\n")
    print({k: v for k, v in figures.items()})
    return 1 if figures["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
