"""The compiler's layout (ARCHITECTURE.md): one package per stage, and imports that run one way.

    base  <-  syntax  <-  sqltree  <-  semantics  <-  migrate  <-  geldump  <-  backends  <-  pipeline  <-  fmt  <-  lsp  <-  cli

A module may import its own stage and the stages to its left, never one to its right; the back
ends never import one another; no module of the compiler imports Pants (the Pants plugin runs the
compiler as a process, and ships its files) and only the language server imports pygls. Every
import counts, also one inside a function or under ``if TYPE_CHECKING:``: a lazy import against
the flow is still a dependency against it.

Cycles of modules that import each other: none at import time, and inside a function only the
ones listed in ``KNOWN_CYCLES`` (the expression checker's mutual recursion), so a new one fails
here. (An import under ``if TYPE_CHECKING:`` never runs, so it closes no cycle; it does count
against the flow.) Read with the standard library's ``ast``; nothing is imported or run.
"""

from __future__ import annotations

import ast
import pathlib
from typing import Dict, Iterator, List, Set, Tuple

PLUGINS = pathlib.Path(__file__).resolve().parents[1] / "pants-plugins"
CORE = PLUGINS / "schemac"

#: The stages, in the order of the flow: a module imports its own stage and those before it.
#: A module is in the stage of its longest listed prefix.
STAGES: List[Tuple[str, Tuple[str, ...]]] = [
    ("base", ("schemac", "schemac.diagnostics", "schemac.frozen", "schemac.files", "schemac.cache",
              "schemac.render")),
    ("syntax", ("schemac.syntax",)),
    ("sqltree", ("schemac.sqltree",)),
    # (``schemac.pgsql`` is the lowering's side of the stage: the checker never imports it,
    # tests/compiler/test_core_imports.py; it becomes a stage of its own when the lowering moves in)
    ("semantics", ("schemac.semantics", "schemac.pgsql")),
    ("migrate", ("schemac.migrate",)),
    ("geldump", ("schemac.geldump",)),
    ("backends", ("schemac.backends",)),
    ("pipeline", ("schemac.pipeline",)),
    ("fmt", ("schemac.fmt",)),
    ("lsp", ("schemac.lsp",)),
    ("cli", ("schemac.cli", "schemac.__main__")),
]

#: Packages of one stage that must not import each other.
SIBLINGS = ("schemac.backends.sql", "schemac.backends.ts", "schemac.backends.go")

#: Modules that import each other inside functions, on purpose (an expression may contain a
#: computed, a call of a user or standard-library function or an access policy, whose checking
#: checks expressions). A cycle that is not one of these, or that grows, fails.
KNOWN_CYCLES: List[Set[str]] = [
    {"schemac.semantics.exprs", "schemac.semantics.computed_sql", "schemac.semantics.functions",
     "schemac.semantics.policies", "schemac.semantics.stdfuncs"},
    # (a trigger's ``<json>__new__ {...}`` is spelled with the lowering's shape writer)
    {"schemac.semantics.lowering", "schemac.pgsql.calls", "schemac.pgsql.calls_std"},
]


def module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(PLUGINS).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> Dict[str, pathlib.Path]:
    return {module_name(p): p for p in sorted(CORE.rglob("*.py")) if "__pycache__" not in p.parts}


def imports(name: str, path: pathlib.Path) -> Iterator[Tuple[str, int, str]]:
    """(imported module or module.name, line, when) of every import in the file; when: "top"
    (at import time), "lazy" (inside a function) or "typing" (under ``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    when: Dict[int, str] = {}
    for node in tree.body:  # import time: the module's body, also inside `if`/`try` there
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        guarded = isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node):
            when[id(n)] = "typing" if guarded else "top"
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, node.lineno, when.get(id(node), "lazy")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for a in node.names:
                yield f"{module}.{a.name}", node.lineno, when.get(id(node), "lazy")
                yield module, node.lineno, when.get(id(node), "lazy")


def graph(lazy: bool = True, typing: bool = True) -> Dict[str, Dict[str, int]]:
    """{module: {imported schemac module: line}} (lazy: also imports inside functions; typing:
    also those under ``if TYPE_CHECKING:``, which never run)."""
    mods = modules()
    out: Dict[str, Dict[str, int]] = {m: {} for m in mods}
    for m, p in mods.items():
        for target, line, when in imports(m, p):
            if (when == "lazy" and not lazy) or (when == "typing" and not typing):
                continue
            if target in mods and target != m:
                out[m].setdefault(target, line)
    return out


def stage_of(module: str) -> Tuple[int, str]:
    best = (-1, "", "")
    for i, (stage, prefixes) in enumerate(STAGES):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > len(best[2]) \
                    and not (p == "schemac" and module != "schemac"):
                best = (i, stage, p)
    return best[0], best[1]


def sccs(g: Dict[str, Dict[str, int]]) -> List[Set[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    out: List[Set[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def _describe(comp: Set[str], g: Dict[str, Dict[str, int]]) -> str:
    return ", ".join(f"{a} -> {b} (line {g[a][b]})" for a in sorted(comp) for b in sorted(g[a]) if b in comp)


def _split_group(hub: str, prefix: str) -> Set[str]:
    return {f"schemac.semantics.{p.stem}" for p in (CORE / "semantics").glob("*.py")
            if p.stem == hub or p.stem.startswith(prefix)}


#: Modules of one recursive checker, split by concern, that import each other at load time
#: as module objects (``from schemac.semantics import q_dml``) and read each other's functions
#: only when called: the statement checker (``queries`` and its ``q_*`` modules) and the
#: expression checker (``exprs`` and its ``e_*`` modules; issue 26 step 4).
#: :func:`test_split_modules_read_siblings_only_when_called` keeps the load order
#: irrelevant: no module-level statement, decorator, default or base class reads a sibling
#: (except one that imports none of its group when it loads: ``e_types``).
SPLIT_GROUPS: List[Set[str]] = [_split_group("queries", "q_"), _split_group("exprs", "e_")]


def test_no_module_imports_another_back_at_import_time():
    g = graph(lazy=False, typing=False)
    assert [_describe(c, g) for c in sccs(g) if not any(c <= grp for grp in SPLIT_GROUPS)] == []


def test_split_modules_read_siblings_only_when_called():
    g = graph(lazy=False, typing=False)
    for group in SPLIT_GROUPS:
        # (a module of the group that imports none of it when it loads is whole when read)
        short = {m.rsplit(".", 1)[1] for m in group if any(t in group for t in g[m])}
        for m in sorted(group):
            tree = ast.parse((CORE / "semantics" / f"{m.rsplit('.', 1)[1]}.py").read_text(encoding="utf-8"))
            for stmt in tree.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.module.startswith("schemac.semantics.") \
                        and stmt.module.rsplit(".", 1)[1] in short:
                    raise AssertionError(f"{m} line {stmt.lineno}: import the sibling module, not names from it "
                                         f"(a name is read at load time, when the sibling may be half loaded)")
                read_now = []
                if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr, ast.AugAssign)):
                    read_now.append(stmt)
                elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    read_now += stmt.decorator_list + [d for d in stmt.args.defaults + stmt.args.kw_defaults if d]
                elif isinstance(stmt, ast.ClassDef):
                    read_now += stmt.decorator_list + stmt.bases
                for e in read_now:
                    for n in ast.walk(e):
                        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in short:
                            raise AssertionError(f"{m} line {n.lineno}: reads {n.value.id}.{n.attr} at load time")


def test_no_new_import_cycle():
    g = graph(lazy=True, typing=False)
    # (a cycle through a split checker counts as one through its hub)
    hub: Dict[str, str] = {}
    for g2 in SPLIT_GROUPS:
        h = next(m for m in g2 if m.endswith((".queries", ".exprs")))
        hub.update({m: h for m in g2})
    new = [c for c in sccs(g) if not any(c <= known for known in SPLIT_GROUPS)
           and not any({hub.get(m, m) for m in c} <= known for known in KNOWN_CYCLES)]
    assert [_describe(c, g) for c in new] == [], "modules that import each other (also inside functions)"


def test_every_module_has_a_stage():
    unplaced = [m for m in modules() if stage_of(m)[0] < 0]
    assert unplaced == [], "add each to STAGES here and to ARCHITECTURE.md"


def test_imports_run_with_the_flow():
    g = graph(lazy=True)
    against = []
    for m, targets in sorted(g.items()):
        rank, stage = stage_of(m)
        for t, line in sorted(targets.items()):
            trank, tstage = stage_of(t)
            if rank >= 0 and trank > rank:
                against.append(f"{m} (line {line}) imports {t}: {stage} -> {tstage}")
    assert against == []


def test_back_ends_do_not_import_each_other():
    g = graph(lazy=True)
    crossing = [f"{m} -> {t}" for m, ts in g.items() for t in ts
                for a in SIBLINGS for b in SIBLINGS
                if a != b and (m == a or m.startswith(a + ".")) and (t == b or t.startswith(b + "."))]
    assert crossing == []


def test_the_compiler_never_imports_pants_and_only_the_language_server_imports_pygls():
    bad = []
    for m, p in modules().items():
        for target, line, _ in imports(m, p):
            root = target.split(".")[0]
            if root in ("pants", "schemac_pants"):
                bad.append(f"{m}:{line} imports {target}")
            if root in ("pygls", "lsprotocol") and not m.startswith("schemac.lsp"):
                bad.append(f"{m}:{line} imports {target}")
    assert bad == []


def test_the_pants_plugin_reaches_the_compiler_only_as_a_process():
    """schemac_pants ships the compiler's files into a sandbox and runs ``python -m schemac``;
    importing it would tie the plugin to the compiler's Python environment."""
    bad = []
    for p in sorted((PLUGINS / "schemac_pants").rglob("*.py")):
        for target, line, _ in imports(module_name(p), p):
            if target == "schemac" or target.startswith("schemac."):
                bad.append(f"{module_name(p)}:{line} imports {target}")
    assert bad == []
