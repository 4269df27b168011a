"""Which fields of an IR node class can hold IR nodes, found once per class (issue 27).

:func:`schemac.semantics.qir.walk` visits every node of a statement, several times per query
(the refusals and facts read after checking, :mod:`schemac.semantics.ir_facts`, and the
lowering's CTE reads). Calling ``dataclasses.fields()`` per node and testing every field's value
cost 16-20 % of a whole compile at 1,000 and 5,000 types. The walk now reads, per class, the
tuple :func:`node_fields` computes on its first visit: the fields whose declared type can hold
a node or a tuple of nodes. A field is left out only when every type its annotation names is a
class unrelated to ``Node`` (``str``, ``int``, ``bool``, ``None``, ``Span``, a model class like
``Column``): such a field never holds what the walk descends into (a node, or a tuple with nodes
in it), so the walk visits the same nodes in the same order. Anything not understood (an
annotation that does not evaluate, ``object``, ``Any``, a bare ``tuple``) keeps the field.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Callable, Dict, Iterator, Tuple


def _may_hold(tp: Any, node: type) -> bool:
    """Whether a value of the annotation ``tp`` can be a ``node`` or a tuple holding one."""
    if tp is Ellipsis or tp is type(None):
        return False
    args = typing.get_args(tp)
    origin = typing.get_origin(tp)
    if origin is not None:
        if origin is typing.Union or origin is tuple:
            return not args or any(_may_hold(a, node) for a in args)
        # (a dict, a list, a frozenset: the walk does not look inside them)
        return isinstance(origin, type) and (issubclass(origin, node) or issubclass(node, origin))
    if not isinstance(tp, type) or tp is object or tp is tuple:
        return True
    return issubclass(tp, node) or issubclass(node, tp)


def node_fields(cls: type, node: type, namespace: Dict[str, Any]) -> Tuple[str, ...]:
    """The names of the fields of the dataclass ``cls`` (in their order) that can hold a
    ``node`` or a tuple of them; ``namespace``: the globals its annotations are written in."""
    out = []
    for f in dataclasses.fields(cls):
        tp = f.type
        if isinstance(tp, str):
            try:
                tp = eval(tp, namespace)  # noqa: S307 (an annotation of the compiler's own source)
            except Exception:  # (a name imported for type checking only: keep the field)
                out.append(f.name)
                continue
        if _may_hold(tp, node):
            out.append(f.name)
    return tuple(out)


#: :func:`compared` of each class met.
_COMPARED: Dict[type, Tuple[str, ...]] = {}


def compared(cls: type) -> Tuple[str, ...]:
    """The names of the fields of ``cls`` other than ``span`` (what :func:`qir.same` compares),
    computed once per class."""
    out = _COMPARED.get(cls)
    if out is None:
        out = _COMPARED[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.name != "span")
    return out


class _Held(dict):
    """:func:`node_fields` by class, each computed on the class' first visit."""

    def __init__(self, node: type, namespace: Dict[str, Any]) -> None:
        super().__init__()
        self.node, self.namespace = node, namespace

    def __missing__(self, cls: type) -> Tuple[str, ...]:
        out = self[cls] = node_fields(cls, self.node, self.namespace)
        return out


def walker(node_cls: type, var_ref: type, with_value: type, namespace: Dict[str, Any]) -> Callable[..., Iterator[Any]]:
    """The IR's walk (:func:`schemac.semantics.qir.walk`), given its classes: ``Node``,
    ``VarRef`` (whose ``binding`` is not below it) and ``WithValue``, and the globals the IR's
    annotations are written in."""
    held = _Held(node_cls, namespace)

    def walk(node: Any) -> Iterator[Any]:
        """``node`` and every IR node below it, depth first (the value of an inline ``with``
        binding is visited where it is used; a :class:`WithValue` also has its value below it):
        of each node, the fields its class can hold nodes in (:func:`node_fields`)."""
        stack = [node]
        while stack:
            n = stack.pop()
            yield n
            cls = type(n)
            if cls is var_ref:
                if isinstance(n.binding, with_value) and n.binding.inline:
                    stack.append(n.binding.value)
                for f in held[cls]:  # (tuples only: the binding itself is not below a use of it)
                    v = getattr(n, f)
                    if isinstance(v, tuple):
                        stack.extend(x for x in v if isinstance(x, node_cls))
                continue
            for f in held[cls]:
                v = getattr(n, f)
                if isinstance(v, node_cls):
                    stack.append(v)
                elif isinstance(v, tuple):
                    stack.extend(x for x in v if isinstance(x, node_cls))
    return walk
