"""The IR walk after issue 27: ``qir.walk`` reads, per class, only the fields whose annotation
can hold a node (``semantics/irfields.py``), and ``plan_query`` walks each checked statement once
(``semantics/ir_facts.py``). Both must visit exactly the nodes, in exactly the order, of the
plain walk over every dataclass field; checked here from every node of every query of the
repository's libraries and golden cases."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from libraries import library_dirs, library_sources
from schemac.pipeline import check_library
from schemac.semantics import ir_facts, irfields, qir
from schemac.semantics.library import Options

CASES = Path(__file__).resolve().parents[1] / "cases"


def reference_walk(node):
    """The walk before issue 27: every field of every node (``dataclasses.fields``)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, qir.VarRef) and isinstance(n.binding, qir.WithValue) and n.binding.inline:
            stack.append(n.binding.value)
        for f in dataclasses.fields(n):
            v = getattr(n, f.name)
            if isinstance(v, qir.Node) and not isinstance(n, qir.VarRef):
                stack.append(v)
            elif isinstance(v, tuple):
                stack.extend(x for x in v if isinstance(x, qir.Node))


def _libraries():
    for d in library_dirs():
        yield library_sources(d), {"library": d.name}
    for case in sorted(p for p in CASES.iterdir() if (p / "schema.esdl").exists()):
        sources = {f"cases/{case.name}/{f.relative_to(case).as_posix()}": f.read_text(encoding="utf-8")
                   for f in sorted(case.glob("*.esdl")) + sorted(case.glob("queries/*.edgeql"))}
        options = json.loads((case / "options.json").read_text()) if (case / "options.json").exists() else {}
        yield sources, dict(library=case.name, **options)


def test_walk_visits_what_every_field_holds_in_the_same_order():
    statements = nodes_checked = 0
    for sources, options in _libraries():
        for plan in check_library(sources, Options(**options)).queries:
            statements += 1
            for node in reference_walk(plan.ir.statement):
                expected = list(reference_walk(node))
                got = list(qir.walk(node))
                assert len(got) == len(expected) and all(a is b for a, b in zip(got, expected)), \
                    (plan.name, type(node).__name__)
                nodes_checked += 1
    assert statements > 200 and nodes_checked > 3_000


def test_statement_nodes_group_the_one_walk_by_class_in_order():
    sources, options = next(_libraries())
    for plan in check_library(sources, Options(**options)).queries:
        facts = ir_facts.StatementNodes(plan.ir.statement)
        walked = list(reference_walk(plan.ir.statement))
        assert list(facts.nodes) == walked
        for cls in {type(n) for n in walked}:
            assert list(facts.of(cls)) == [n for n in walked if type(n) is cls]
        writes = (qir.Insert, qir.Update, qir.Delete)
        assert facts.ordered(*writes) == [n for n in walked if type(n) in writes]
        assert facts.has(*writes) == any(type(n) in writes for n in walked)


def test_a_field_is_left_out_only_when_its_annotation_cannot_hold_a_node():
    held = irfields.node_fields(qir.Binary, qir.Node, vars(qir))
    assert held == ("left", "right")  # (span, type, nullable and op are never nodes)
    assert "source" in irfields.node_fields(qir.Batch, qir.Node, vars(qir))

    @dataclasses.dataclass
    class Odd(qir.Node):
        a: object
        b: NotAName  # noqa: F821 (an annotation that does not evaluate: kept)
        c: str
        d: tuple

    assert irfields.node_fields(Odd, qir.Node, vars(qir)) == ("a", "b", "d")
