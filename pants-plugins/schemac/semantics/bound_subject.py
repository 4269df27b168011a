"""The subject of a statement is bound where the statement reads its objects one at a time
(https://docs.geldata.com/reference/edgeql/path_resolution, the same under Gel 6's
``simple_scoping`` and the older scoping): in ``select Post { ... } filter ... order by ...``
(and ``update Post filter ... set { ... }``, ``delete Post filter ...``) the name ``Post`` inside
the shape's computed elements, nested shapes included, and inside the filter, order by and set
values is the object at hand, a set of one object, not every Post; ``detached Post`` is every
Post (https://docs.geldata.com/reference/stdlib/set#operator::detached).

:func:`bind_subject` rewrites those names before the statement is checked:

* ``count(Post)``, ``count((select Post))``, ``count(distinct Post)`` -> ``1``; ``exists Post``
  -> ``true`` (anywhere in those clauses);
* ``Post.x...`` where ``.x`` names the same object (the shape's own elements, the filter, the
  order by, the set values, outside any sub-select) -> ``.x...`` (so ``count(Post.comments)`` is
  ``count(.comments)``);
* ``Post.x`` elsewhere in a plain select (inside a sub-select or a nested shape) -> the selected
  row's ``x`` (``__subject__.x`` read from the statement's row); inside a ``detached`` sub-select
  of the outer shape it is left to that form (which reads the enclosing object already);
* any other reading of the bound name (``(select Post filter ...)``, ``x := Post``, ``Post.x``
  where the row cannot be named) is a located E0206 whose hint is ``detached Post`` for every
  object: it is never read as every Post.
"""

from __future__ import annotations

import dataclasses
from typing import FrozenSet, List, Optional

from schemac.diagnostics import Reporter, Span
from schemac.syntax import tree as ast

#: The name a rewritten ``Post.x`` reads the statement's row through (see
#: :attr:`schemac.semantics.exprs.ExprContext.row_refs`).
ROW = "__subject__"

_COUNTS = ("count", "std::count")


class _Binder:
    def __init__(self, schema, module: str, reporter: Reporter, target, type_name: str, row_ok: bool):
        self.type_name = type_name
        self.schema = schema
        self.module = module
        self.reporter = reporter
        self.target = target
        self.row_ok = row_ok
        self.failed = False
        self.used_row = False

    # -- names -------------------------------------------------------------------------------
    def names_target(self, name: str, shadow: FrozenSet[str]) -> bool:
        if name in shadow:
            return False
        if self.target is None:  # (an abstract type: its name as written)
            return name == self.type_name
        return self.schema.find_type(name, self.module) is self.target

    def bare(self, e, shadow) -> bool:
        """``e`` is the bound set itself: ``Post``, ``(select Post)``, ``distinct Post``."""
        while True:
            if isinstance(e, ast.VarRef):
                return not e.detached and self.names_target(e.name, shadow)
            if isinstance(e, ast.SelectExpr) and e.shape is None and e.filter is None and not e.order \
                    and e.offset is None and e.limit is None:
                e = e.subject
            elif isinstance(e, ast.UnaryOp) and e.op == "distinct":
                e = e.operand
            else:
                return False

    def refuse(self, what: str, name: str, span) -> None:
        self.failed = True
        self.reporter.error(
            "E0206", f"{what}: '{name}' here is the {name} object at hand (the statement's subject is bound in "
            "its shape, filter, order by and set values, https://docs.geldata.com/reference/edgeql/path_resolution), "
            "and this reading of it is not supported yet", span,
            f"read its properties as .x; write 'detached {name}' for every {name} object")

    # -- the walk ------------------------------------------------------------------------------
    def expr(self, e, top: bool, depth: int, shadow: FrozenSet[str], detached: bool = False):
        """``e`` rewritten. ``top``: ``.x`` there is the bound object; ``depth``: nested shapes
        entered; ``detached``: inside a ``detached`` sub-select of the outer shape."""
        if e is None or not dataclasses.is_dataclass(e) or isinstance(e, type):
            return e
        if isinstance(e, ast.FuncCall) and e.name in _COUNTS and len(e.args) == 1 and self.bare(e.args[0], shadow):
            return ast.Literal("int", 1, e.span)
        if isinstance(e, ast.UnaryOp) and e.op == "exists" and self.bare(e.operand, shadow):
            return ast.Literal("bool", True, e.span)
        if isinstance(e, ast.FuncCall) and e.name == "fts::search" and e.args and self.bare(e.args[0], shadow):
            # `filter exists fts::search(Note, $q)`: the object at hand's match, as fts.py reads it
            return dataclasses.replace(e, args=(e.args[0], *(self.expr(a, top, depth, shadow, detached)
                                                             for a in e.args[1:])))
        if isinstance(e, ast.TypeCheck) and self.bare(e.operand, shadow):
            return e  # (`Badge is GoldBadge`: the object at hand's type, exprs._subject_type_check)
        if isinstance(e, ast.VarRef):
            if not e.detached and self.names_target(e.name, shadow):
                self.refuse(f"'{e.name}' as a value", e.name, e.span)
            return e
        if isinstance(e, ast.EnumRef) and self.names_target(e.enum, shadow):
            return self.path(e, e.enum, (e.member,), e.span, top, depth, detached) or e
        if isinstance(e, ast.Step) and e.kind == ".":
            steps: List[str] = []
            node = e
            while isinstance(node, ast.Step) and node.kind == ".":
                steps.insert(0, node.name)
                node = node.base
            if isinstance(node, ast.EnumRef) and self.names_target(node.enum, shadow):
                found = self.path(e, node.enum, (node.member, *steps), e.span, top, depth, detached)
                if found is not None:
                    return found
        if isinstance(e, ast.SubSelect):
            if not e.detached and self.names_target(e.type_name, shadow):
                self.refuse(f"'(select {e.type_name} filter ...)'", e.type_name, e.span)
                return e
            return self.fields(e, False, depth, shadow, detached or (e.detached and depth == 0))
        if isinstance(e, ast.SelectExpr):
            subject_detached = isinstance(e.subject, ast.VarRef) and e.subject.detached
            if isinstance(e.subject, ast.VarRef) and not e.subject.detached \
                    and self.names_target(e.subject.name, shadow):
                self.refuse(f"'(select {e.subject.name} ...)'", e.subject.name, e.span)
                return e
            inner_detached = detached or (subject_detached and depth == 0)
            return dataclasses.replace(
                e, subject=self.expr(e.subject, top, depth, shadow, detached),
                shape=self.shape(e.shape, depth + 1, shadow) if e.shape is not None else None,
                filter=self.expr(e.filter, False, depth, shadow, inner_detached),
                order=tuple(dataclasses.replace(o, expr=self.expr(o.expr, False, depth, shadow, inner_detached))
                            for o in e.order),
                offset=self.expr(e.offset, False, depth, shadow, inner_detached),
                limit=self.expr(e.limit, False, depth, shadow, inner_detached))
        if isinstance(e, ast.WithExpr):
            inner = shadow | {b.name for b in e.bindings}
            return dataclasses.replace(
                e, bindings=tuple(dataclasses.replace(b, value=self.expr(b.value, False, depth, shadow, detached))
                                  for b in e.bindings),
                body=self.expr(e.body, False, depth, inner, detached))
        if isinstance(e, ast.ForExpr):
            return dataclasses.replace(e, source=self.expr(e.source, False, depth, shadow, detached),
                                       body=self.expr(e.body, False, depth, shadow | {e.var}, detached))
        if isinstance(e, ast.ShapeExpr) and self.bare(e.base, shadow):
            return e  # (`User { name }` as a value: refused by the checker as a shape on an expression)
        if isinstance(e, (ast.ShapeExpr, ast.GroupExpr)):
            changes = {}
            for f in dataclasses.fields(e):
                v = getattr(e, f.name)
                if f.name == "shape":
                    changes[f.name] = self.shape(v, depth + 1, shadow) if v is not None else None
                else:
                    changes[f.name] = self.value(v, False, depth, shadow, detached)
            return dataclasses.replace(e, **changes)
        if isinstance(e, ast.ShapeElement):
            return self.element(e, depth, shadow)
        # other statements in expressions (inserts, ...), free objects: `.x` is another object's
        keep_top = top and not isinstance(e, (ast.StatementExpr, ast.FreeObject, ast.InsertQuery, ast.UpdateQuery,
                                              ast.DeleteQuery))
        return self.fields(e, keep_top, depth, shadow, detached)

    def fields(self, e, top, depth, shadow, detached):
        changes = {}
        for f in dataclasses.fields(e):
            v = getattr(e, f.name)
            nv = self.value(v, top, depth, shadow, detached)
            if nv is not v:
                changes[f.name] = nv
        return dataclasses.replace(e, **changes) if changes else e

    def value(self, v, top, depth, shadow, detached):
        if isinstance(v, tuple):
            items = tuple(self.value(x, top, depth, shadow, detached) for x in v)
            return items if any(a is not b for a, b in zip(items, v)) else v
        if dataclasses.is_dataclass(v) and not isinstance(v, (type, Span)):
            return self.expr(v, top, depth, shadow, detached)
        return v

    def path(self, e, name: str, steps, span, top: bool, depth: int, detached: bool):
        """``Post.a.b`` of the bound object, rewritten; ``None`` to keep ``e`` as it is."""
        if top and depth == 0:
            return ast.Path(tuple(steps), span)
        if detached and depth == 0:
            return None  # (the detached sub-select reads the enclosing object: exprs._enum_ref)
        if self.row_ok:
            self.used_row = True
            node: ast.Expr = ast.Step(ast.VarRef(ROW, span), steps[0], ".", span)
            for s in steps[1:]:
                node = ast.Step(node, s, ".", span)
            return node
        self.refuse(f"'{name}.{'.'.join(steps)}' inside a sub-select or a nested shape", name, span)
        return None

    def element(self, el: ast.ShapeElement, depth: int, shadow):
        """A shape element of a shape ``depth`` levels down (0: the statement's own)."""
        nested = el.shape is not None or el.filter is not None or el.order or el.offset is not None \
            or el.limit is not None
        return dataclasses.replace(
            el, value=self.expr(el.value, depth == 0, depth, shadow),
            shape=self.shape(el.shape, depth + 1, shadow) if el.shape is not None else None,
            filter=self.expr(el.filter, False, depth + 1 if nested else depth, shadow),
            order=tuple(dataclasses.replace(o, expr=self.expr(o.expr, False, depth + 1, shadow)) for o in el.order),
            offset=self.expr(el.offset, False, depth + 1, shadow),
            limit=self.expr(el.limit, False, depth + 1, shadow))

    def shape(self, shape, depth: int, shadow):
        return tuple(self.element(el, depth, shadow) for el in shape)


def bind_subject(q, schema, reporter: Reporter, module: str = "default", shadow: FrozenSet[str] = frozenset()):
    """``q`` with its subject's name read as the object at hand (see the module's docstring):
    ``(query, uses_row)``, ``uses_row`` when the rewrite reads the statement's row as
    ``__subject__`` (the caller binds it to the row); ``None`` after reporting."""
    if isinstance(q, ast.WithQuery):
        names = frozenset(b.name for b in q.bindings) | shadow
        bindings, seen = [], set(shadow)
        for bd in q.bindings:
            # `with ps := (select Post { n := count(Post) })`: a selection's own subject
            value = _bind_select_expr(bd.value, schema, reporter, module, frozenset(seen)) \
                if isinstance(bd.value, ast.SelectExpr) else bd.value
            if value is None:
                return None
            bindings.append(bd if value is bd.value else dataclasses.replace(bd, value=value))
            seen.add(bd.name)
        found = bind_subject(q.body, schema, reporter, module, names)
        if found is None:
            return None
        body, _ = found
        if body is q.body and all(a is b for a, b in zip(bindings, q.bindings)):
            return q, False
        return dataclasses.replace(q, bindings=tuple(bindings), body=body), False
    if isinstance(q, ast.ForExpr) and isinstance(q.body, ast.SelectExpr):
        body = _bind_select_expr(q.body, schema, reporter, module, shadow | {q.var})
        return None if body is None else ((q if body is q.body else dataclasses.replace(q, body=body)), False)
    if isinstance(q, ast.ForExpr) and isinstance(q.body, (ast.SelectQuery, ast.UpdateQuery, ast.DeleteQuery,
                                                          ast.WithQuery)):
        # `for x in S union (select Post { n := count(Post) } filter ...)`: the body's own subject
        found = bind_subject(q.body, schema, reporter, module, shadow | {q.var})
        if found is None:
            return None
        body, _ = found
        return (q if body is q.body else dataclasses.replace(q, body=body)), False
    if isinstance(q, ast.SelectQuery) and q.type_name in shadow:
        # `with u := (select ...) select u { n := count(u) }`: count(u) / exists u of the object at
        # hand (other readings of `u` are left to the with forms)
        return (_count_bound_name(q, q.type_name) if _mentions(_clauses(q), q.type_name) else q), False
    if not isinstance(q, (ast.SelectQuery, ast.UpdateQuery, ast.DeleteQuery)) or q.type_name in shadow \
            or getattr(q, "subject", None) is not None:
        return q, False
    if not _mentions(_clauses(q), q.type_name):
        return q, False
    from schemac.semantics import computed_sql

    target = schema.find_type(q.type_name, module)
    row_ok = isinstance(q, ast.SelectQuery) and not shadow and target is not None \
        and not computed_sql.has_subtypes(schema, target)
    b = _Binder(schema, module, reporter, target, q.type_name, row_ok)
    changes = {}
    if isinstance(q, ast.SelectQuery):
        if q.shape is not None:
            changes["shape"] = b.shape(q.shape, 0, shadow)
        changes["order"] = tuple(dataclasses.replace(o, expr=b.expr(o.expr, True, 0, shadow)) for o in q.order)
    if isinstance(q, ast.UpdateQuery):
        changes["assignments"] = tuple(dataclasses.replace(a, value=b.expr(a.value, True, 0, shadow))
                                       for a in q.assignments)
    paged = _paged_delete(q)
    if paged is not None:
        # `delete T filter f order by o limit n`, which the parser writes `delete T filter .id in
        # (select T filter f order by o limit n)`: `f` and `o` are the delete's own clauses
        changes["filter"] = dataclasses.replace(q.filter, right=dataclasses.replace(
            paged, filter=b.expr(paged.filter, True, 0, shadow),
            order=tuple(dataclasses.replace(o, expr=b.expr(o.expr, True, 0, shadow)) for o in paged.order)))
    elif q.filter is not None:
        changes["filter"] = b.expr(q.filter, True, 0, shadow)
    if b.failed:
        return None
    return dataclasses.replace(q, **changes), b.used_row


def _clauses(q) -> tuple:
    """The parts of a statement its subject is bound in (not the statement's own type name)."""
    return tuple(getattr(q, f, None) for f in ("shape", "filter", "order", "assignments"))


def _mentions(node, name: str) -> bool:
    """Whether ``node`` names ``name`` anywhere (any module's ``name``, any kind of node: a
    cheap test before the rewrite, whose walk recurses). Iterative, as operator chains may be
    thousands of terms deep (the checker's limits, tests/compiler/test_limits.py)."""
    short = name.split("::")[-1]
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (tuple, list)):
            stack.extend(n)
            continue
        if not dataclasses.is_dataclass(n) or isinstance(n, (Span, type)):
            continue
        for attr in ("name", "enum", "type_name"):
            v = getattr(n, attr, None)
            if isinstance(v, str) and v.split("::")[-1] == short:
                return True
        stack.extend(getattr(n, f.name) for f in dataclasses.fields(n))
    return False


def _paged_delete(q):
    """The select the parser wrote for ``delete T filter f order by o limit n`` (a span of the
    whole statement, see ``schemac.syntax.parser``), or ``None``."""
    f = q.filter if isinstance(q, ast.DeleteQuery) else None
    if isinstance(f, ast.BinOp) and f.op == "in" and f.span == q.span and isinstance(f.right, ast.SelectExpr) \
            and f.right.span == q.span and isinstance(f.right.subject, ast.VarRef) \
            and f.right.subject.name == q.type_name:
        return f.right
    return None


def _count_bound_name(q: ast.SelectQuery, name: str) -> ast.SelectQuery:
    """``q`` (a select of the ``with`` name ``name``) with ``count(name)`` / ``exists name`` in its
    shape, filter and order by, outside a ``with`` or ``for`` binding the name again, as ``1`` /
    ``true``."""
    def bare(e) -> bool:
        while isinstance(e, (ast.SelectExpr, ast.UnaryOp)):
            if isinstance(e, ast.UnaryOp) and e.op == "distinct":
                e = e.operand
            elif isinstance(e, ast.SelectExpr) and e.shape is None and e.filter is None and not e.order \
                    and e.offset is None and e.limit is None:
                e = e.subject
            else:
                return False
        return isinstance(e, ast.VarRef) and e.name == name and not e.detached

    def f(e):
        if isinstance(e, (ast.WithExpr, ast.ForExpr)) and name in (
                {b.name for b in e.bindings} if isinstance(e, ast.WithExpr) else {e.var}):
            return dataclasses.replace(e)  # (a new object: map_expr does not go into it)
        if isinstance(e, ast.FuncCall) and e.name in _COUNTS and len(e.args) == 1 and bare(e.args[0]):
            return ast.Literal("int", 1, e.span)
        if isinstance(e, ast.UnaryOp) and e.op == "exists" and bare(e.operand):
            return ast.Literal("bool", True, e.span)
        return e

    changes = {}
    for fld in ("shape", "filter", "order"):
        v = getattr(q, fld)
        nv = ast._map_value(v, f) if v is not None else None
        if nv is not v:
            changes[fld] = nv
    return dataclasses.replace(q, **changes) if changes else q


def _bind_select_expr(e: ast.SelectExpr, schema, reporter: Reporter, module: str, shadow: FrozenSet[str]):
    """``(select Post { ... } filter ... order by ...)`` (a ``for`` body, a ``with`` binding's
    value): ``Post`` bound in its shape and clauses as in a statement's; ``None`` after
    reporting."""
    subject = e.subject
    if not isinstance(subject, ast.VarRef) or subject.detached or subject.name in shadow:
        return e
    target = schema.find_type(subject.name, module)
    if target is None or not _mentions((e.shape, e.filter, e.order), subject.name):
        return e
    b = _Binder(schema, module, reporter, target, subject.name, False)
    new = dataclasses.replace(
        e, shape=b.shape(e.shape, 0, shadow) if e.shape is not None else None,
        filter=b.expr(e.filter, True, 0, shadow),
        order=tuple(dataclasses.replace(o, expr=b.expr(o.expr, True, 0, shadow)) for o in e.order))
    return None if b.failed else new
