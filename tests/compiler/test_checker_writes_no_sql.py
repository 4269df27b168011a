"""The checker writes no SQL (issue 26 step 2): only the lowering (``semantics/lowering.py``,
``schemac.pgsql``) and the printer (``schemac.sqltree``) hold SQL text. This counts, per module
of ``schemac.semantics``, the string literals (docstrings aside) that spell SQL and the
``SqlTemplate``/``ExtCall`` nodes it builds; each bound can only go down, to zero.

Gel's split is the same: ``edb/edgeql/compiler`` builds the IR, only ``edb/pgsql`` writes SQL."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

SEMANTICS = Path(__file__).resolve().parents[2] / "pants-plugins" / "schemac" / "semantics"

#: What SQL text looks like in a literal: a clause keyword, a cast, an array, a JSON function.
SQL = re.compile(r"\b(SELECT|FROM|WHERE|JOIN|LATERAL|CASE WHEN|CAST\(|UNION|EXISTS|INSERT INTO|UPDATE|DELETE FROM|"
                 r"RETURNING|ORDER BY|GROUP BY|IS NOT NULL|IS NULL|ARRAY\[|coalesce\(|jsonb?_\w+\()")

#: The lowering: the only module of ``semantics/`` allowed to write SQL (it moves to
#: ``schemac.pgsql`` with the module split of issue 26 step 4).
LOWERING = {"lowering.py"}

#: Literals spelling SQL in each checker module today (the schema side -- triggers, resolve,
#: extensions, fts, model -- lowers DDL and moves with step 2's schema part).
BOUND = {"e_ops.py": 3, "triggers.py": 48, "q_dml.py": 1, "q_for.py": 2, "q_links.py": 1, "q_with.py": 2,
         "resolve.py": 8, "model.py": 3}

#: ``qir.SqlTemplate(...)`` / ``qir.ExtCall(...)`` built per module: SQL chosen by the checker.
#: Both node kinds are gone from the IR (issue 26 step 2); the scan keeps them from coming back.
TEMPLATE_BOUND: dict = {}


def _sql_literals(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body \
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            docs.add(id(body[0].value))
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs and SQL.search(n.value)]


def _templates(path: Path) -> int:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sum(1 for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr in ("SqlTemplate", "ExtCall"))


def test_sql_literals_only_go_down():
    counts = Counter()
    over = []
    for path in sorted(SEMANTICS.glob("*.py")):
        if path.name in LOWERING:
            continue
        found = _sql_literals(path)
        counts[path.name] = len(found)
        if len(found) > BOUND.get(path.name, 0):
            over.append(f"{path.name}: {len(found)} SQL literals (bound {BOUND.get(path.name, 0)}), e.g. "
                        + "; ".join(f"line {ln}: {v[:60]!r}" for ln, v in found[:3]))
    print("SQL literals in the checker:", sum(counts.values()), dict(counts.most_common()))
    assert not over, "the checker writes SQL; name an operation in the IR and spell it in schemac.pgsql:\n" \
        + "\n".join(over)


def test_sql_templates_only_go_down():
    over = []
    total = 0
    for path in sorted(SEMANTICS.glob("*.py")):
        n = _templates(path)
        total += n
        if n > TEMPLATE_BOUND.get(path.name, 0):
            over.append(f"{path.name}: {n} SqlTemplate/ExtCall (bound {TEMPLATE_BOUND.get(path.name, 0)})")
    print("SqlTemplate/ExtCall built:", total)
    assert not over, "use qir.Call with a spelling in schemac.pgsql.calls:\n" + "\n".join(over)


def test_the_scan_sees_sql():
    # (the scan itself: an f-string's SQL part and a plain literal are found, a docstring is not)
    src = '"""SELECT doc"""\nx = f"SELECT {a} FROM t"\ny = "coalesce(a, b)"\nz = "no sql here"\n'
    p = Path(__file__).with_name("_scan_probe.tmp")
    try:
        p.write_text(src, encoding="utf-8")
        assert sorted({ln for ln, _ in _sql_literals(p)}) == [2, 3]
    finally:
        p.unlink()
