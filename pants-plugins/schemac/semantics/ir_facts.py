"""A checked statement's nodes, walked once for what is read of them after checking (issue 27).

After checking, :func:`schemac.semantics.queries.plan_query` refuses what the runners cannot map
yet (tuples, arrays of tuples as parameters), finds an insert's defaulted parameters, whether a
write hands globals to triggers, the foreign keys the statement can violate, whether an upsert
may return no row, and the lowering the CTEs the statement reads. Each of these walked the whole
statement again (about 9 walks per query: 16-20 % of a compile at 1,000 and 5,000 types). They
now read one :class:`StatementNodes`: the nodes of one :func:`~schemac.semantics.qir.walk`, in its
order, and grouped by class (each group in that order too), so each consumer visits only the
nodes of the classes it looks at and reports the first node the walk met, as before.
"""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

from schemac.semantics import qir


class StatementNodes:
    """Every node of ``stmt`` (:func:`qir.walk`), in ``nodes``, and by class (:meth:`of`)."""

    __slots__ = ("stmt", "nodes", "_by_class")

    def __init__(self, stmt: qir.Node) -> None:
        self.stmt = stmt
        self.nodes: Tuple[qir.Node, ...] = tuple(qir.walk(stmt))
        by: Dict[type, List[qir.Node]] = {}
        for n in self.nodes:
            group = by.get(type(n))
            if group is None:
                by[type(n)] = [n]
            else:
                group.append(n)
        self._by_class = by

    def of(self, cls: type) -> Sequence[qir.Node]:
        """The nodes of exactly the class ``cls``, in the walk's order."""
        return self._by_class.get(cls, ())

    def has(self, *classes: type) -> bool:
        """Whether a node of exactly one of ``classes`` is in the statement."""
        return any(c in self._by_class for c in classes)

    def ordered(self, *classes: type) -> List[qir.Node]:
        """The nodes of exactly the ``classes``, in the walk's order."""
        if not self.has(*classes):
            return []
        return [n for n in self.nodes if type(n) in classes]
