"""The query core's layering (issue 26 step 4; ARCHITECTURE.md, "Invariants"): the checker
(``schemac.semantics``, every module but ``lowering``) never imports the lowering
(``schemac.semantics.lowering``, ``schemac.pgsql``) or the SQL tree (``schemac.sqltree``), so it
cannot write SQL; the SQL side may import the IR. Imports inside functions count too.

:data:`KNOWN` lists the imports that still break the rule; it can only shrink."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Set, Tuple

PKG = Path(__file__).resolve().parents[2] / "pants-plugins" / "schemac"

#: The SQL side: what the checker must not import.
SQL_SIDE = ("schemac.semantics.lowering", "schemac.pgsql", "schemac.sqltree")

#: (checker module, SQL-side module) pairs that exist today; remove a pair when its import goes.
KNOWN = {
    ("exprs", "schemac.semantics.lowering"),
    ("e_paths", "schemac.semantics.lowering"),
    ("queries", "schemac.semantics.lowering"),
    ("q_filters", "schemac.semantics.lowering"),
    ("q_links", "schemac.semantics.lowering"),
    ("resolve", "schemac.semantics.lowering"),
    ("triggers", "schemac.semantics.lowering"),
}


def _imports(path: Path) -> Set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            # (``from schemac.semantics import lowering``)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def _violations() -> Set[Tuple[str, str]]:
    found = set()
    for path in sorted((PKG / "semantics").glob("*.py")):
        if path.stem == "lowering":
            continue
        for mod in _imports(path):
            for side in SQL_SIDE:
                if mod == side or mod.startswith(side + "."):
                    found.add((path.stem, side))
    return found


def test_the_checker_does_not_import_the_sql_side():
    found = _violations()
    new = sorted(found - KNOWN)
    assert not new, ("the checker imports the SQL side (name an operation in the IR; the lowering spells it): "
                     + ", ".join(f"{a} -> {b}" for a, b in new))


def test_known_violations_are_still_there():
    # (remove a pair from KNOWN when its import goes, so the list only shrinks)
    gone = sorted(KNOWN - _violations())
    assert not gone, "these imports are gone, remove them from KNOWN: " + ", ".join(f"{a} -> {b}" for a, b in gone)


#: The schema model: built from the schema alone, it does not know the query checker.
MODEL = ("model", "resolve", "definitions", "scalars")

#: (schema-model module, query-checker module) imports that exist today; it can only shrink.
MODEL_KNOWN = {("resolve", "schemac.semantics.queries"), ("resolve", "schemac.semantics.q_dml")}

#: The statement checker: ``queries`` and its modules by concern (``q_*``).
QUERY_CHECKER = tuple(f"schemac.semantics.{p.stem}" for p in sorted((PKG / "semantics").glob("*.py"))
                      if p.stem == "queries" or p.stem.startswith("q_"))


def test_the_schema_model_does_not_import_the_query_checker():
    found = set()
    for stem in MODEL:
        for mod in _imports(PKG / "semantics" / f"{stem}.py"):
            for checker in QUERY_CHECKER:
                if mod == checker or mod.startswith(checker + "."):
                    found.add((stem, checker))
    assert found <= MODEL_KNOWN, f"new imports of the query checker by the schema model: {sorted(found - MODEL_KNOWN)}"
    assert MODEL_KNOWN <= found, f"gone, remove from MODEL_KNOWN: {sorted(MODEL_KNOWN - found)}"


def test_the_sql_tree_does_not_import_the_checker():
    for path in sorted((PKG / "sqltree").glob("*.py")):
        bad = [m for m in _imports(path) if m.startswith("schemac.semantics")]
        assert not bad, f"{path.name} imports {bad}: the SQL tree knows nothing of the checker"
