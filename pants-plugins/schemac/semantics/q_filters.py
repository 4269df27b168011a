"""``filter`` clauses: conditions, set comparisons, element-wise sets, paths that
must not be read as sets (https://docs.geldata.com/reference/edgeql/select#filtering).

Part of the statement checker (:mod:`schemac.semantics.queries`), split by concern."""

from __future__ import annotations
import dataclasses
from typing import Dict, List, Optional, Set, Tuple
from schemac.semantics import computed_sql, lowering, qir
from schemac.syntax import tree as ast
from schemac.frozen import fast_init_all
from schemac.semantics.exprs import ExprContext, check, check_filter
from schemac.semantics.e_paths import set_backlink_computed
from schemac.semantics.e_types import BOOL
from schemac.semantics.model import ObjectType
from schemac.semantics.qir import AT_MOST_ONE, MANY
from schemac.semantics.sqlnames import qi
from schemac.semantics import q_dml


def _where(filt: Optional[ast.Expr], subject: ObjectType, ctx: ExprContext) -> Tuple[Optional[qir.Expr], str]:
    """``(filter, cardinality)`` of a filter (``many`` unless it pins one row)."""
    if filt is None:
        return None, MANY
    rewritten = _object_set_comparisons(filt, subject, ctx)
    if rewritten is not None:
        low = check_filter(rewritten, ctx)
        return low, AT_MOST_ONE if low is not None and q_dml._pins_one_row(filt, subject) else MANY
    fenced = _fenced_conditionals(filt, subject)
    if fenced is not None:
        return _where_fenced(filt, fenced, subject, ctx)
    bad = _set_path_misuse(filt, subject)
    if bad is not None:
        path, where = bad
        through = (f"'.{'.'.join(path.steps)}' is a set (a path through the multi link '{path.steps[0]}')"
                   if isinstance(path, ast.Path) else
                   f"'.<{path.base.link}{'[is ' + path.base.type_name + ']' if path.base.type_name else ''}"  # type: ignore[attr-defined]
                   f".{path.name}' is a set (of the objects whose link '{path.base.link}' points here)")  # type: ignore[attr-defined]
        ctx.reporter.error("E0206", f"{through}: using it {where} is not supported yet", path.span,
                           "compare its values directly: filter .tags.name = 'x' keeps the objects with at "
                           "least one such link")
        return None, MANY
    row = ctx.column_prefix or qi(subject.table)
    scope = dataclasses.replace(ctx, set_links={}, set_row=(subject, row), set_bound=_bound_sets(filt, subject))
    if any(_multi_path(n, subject) for n in ast.iter_nodes(filt)):
        # The filter is written inside EXISTS (...) over the linked rows: the subject's columns
        # are qualified, so a linked table's column of the same name cannot capture them.
        scope.column_prefix = row
    low = check_filter(filt, scope)
    if low is None:
        return None, MANY
    if scope.set_links:
        low = qir.SetFilter(low.span, low.type, False, tuple(scope.set_links.values()), low)  # type: ignore[arg-type]
    return low, AT_MOST_ONE if q_dml._pins_one_row(filt, subject) else MANY


def _object_set_comparisons(filt: ast.Expr, subject: ObjectType, ctx: ExprContext) -> Optional[ast.Expr]:
    """A filter comparing a path of objects of the subject through multi or computed links with
    a set of objects of the query's names, ``.edges.media.entries.account = acc`` (``acc`` a
    ``with`` selection), under ``and`` / ``or`` / ``if ... else``: ``None`` when it has no such
    comparison (or reads one of those paths twice, whose elements Gel would then correlate), else
    the filter rewritten over single values that says the same.

    Gel's ``=`` is computed for every pair of elements of its operands, so the comparison is a set
    of bools, empty when either operand is (https://docs.geldata.com/reference/edgeql/sets);
    ``and`` / ``or`` combine every pair of their operands' elements too (``true or {}`` is ``{}``,
    https://docs.geldata.com/resources/cheatsheets/boolean), ``if ... else`` takes its
    branches as whole sets (``SET OF``, https://docs.geldata.com/reference/stdlib/generic), and a
    filter keeps an object when the set holds ``true``
    (https://docs.geldata.com/reference/edgeql/select#filtering). With ``T(e)``, "``e`` holds
    true", and ``N(e)``, "``e`` is not empty", both never empty:

    * ``T(a and b) = T(a) and T(b)``, ``T(a or b) = (T(a) and N(b)) or (N(a) and T(b))``,
      ``N(a and b) = N(a or b) = N(a) and N(b)``;
    * ``T(a if c else b) = (T(a) if c else T(b)) ?? false``, ``N`` alike;
    * ``T(P = S) = any(P in S)``, ``N(P = S) = exists P and exists S``;
    * any other operand ``e``: ``T(e) = any(e)``, ``N(e) = any(e or true)``.
    """
    def set_side(e) -> bool:
        return computed_sql.is_set_operand(e, ctx) or computed_sql.link_set_of(e, ctx) is not None

    def comparison(e) -> Optional[Tuple[ast.Expr, ast.Expr]]:
        if not isinstance(e, ast.BinOp) or e.op != "=":
            return None
        for p, s in ((e.left, e.right), (e.right, e.left)):
            if set_side(p) and computed_sql.query_set_target(s, ctx) is not None:
                return p, s
        return None

    if ctx.subject is not subject or not any(comparison(n) is not None for n in ast.iter_nodes(filt)):
        return None
    def roots(e) -> Set[str]:
        """The first steps of the paths of objects through a multi link, backlink or computed
        link that ``e`` reads."""
        out: Set[str] = set()
        for n in ast.iter_nodes(e):
            if isinstance(n, ast.Backlink):
                out.add(f"<{n.link}")
            elif isinstance(n, ast.Path) and (_multi_path(n, subject) or n.steps[0] in subject.computeds):
                out.add(n.steps[0])
        return out

    def has_comparison(e) -> bool:
        return any(comparison(n) is not None for n in ast.iter_nodes(e))

    false = ast.Literal("bool", False, filt.span)

    def any_(e):
        return ast.FuncCall("any", (e,), e.span)

    def both(a, b, span):
        return ast.BinOp("and", a, b, span)

    def holds(e, nonempty: bool):
        if isinstance(e, ast.BinOp) and e.op in ("and", "or"):
            if roots(e.left) & roots(e.right):
                return None  # (a path read on both sides: Gel binds its elements once)
            ta, tb = holds(e.left, nonempty), holds(e.right, nonempty)
            if ta is None or tb is None:
                return None
            if nonempty or e.op == "and":
                return both(ta, tb, e.span)
            na, nb = holds(e.left, True), holds(e.right, True)
            return ast.BinOp("or", both(ta, nb, e.span), both(na, tb, e.span), e.span)  # type: ignore[arg-type]
        if isinstance(e, ast.IfElse):
            if has_comparison(e.cond) or roots(e.cond):
                return None
            a, b = holds(e.then, nonempty), holds(e.else_, nonempty)
            if a is None or b is None:
                return None
            return ast.BinOp("??", ast.IfElse(e.cond, a, b, e.span), false, e.span)
        pair = comparison(e)
        if pair is not None:
            p, s = pair
            if nonempty:
                return both(ast.UnaryOp("exists", p, e.span), ast.UnaryOp("exists", s, e.span), e.span)
            return any_(ast.BinOp("in", p, s, e.span))
        if has_comparison(e):
            return None  # (under `not`, a function, ...: not rewritten)
        return any_(ast.BinOp("or", e, ast.Literal("bool", True, e.span), e.span)) if nonempty else any_(e)

    return holds(filt, False)


def _query_filter(filt: ast.Expr, subject: ObjectType, ctx: ExprContext) -> Optional[qir.Expr]:
    """A selection's filter checked as a query's (:attr:`ExprContext.query_filter`)."""
    return _where(filt, subject, ctx)[0]


def _conjuncts(e) -> List[ast.Expr]:
    """``a and b and c`` as ``[a, b, c]`` (without recursion: a chain of thousands of terms)."""
    return list(ast.conjuncts(e))


def _set_links_of(e, subject: ObjectType) -> Set[str]:
    """The multi links (and backlinks) whose paths ``e`` reads as sets."""
    out: Set[str] = set()
    for n in ast.iter_nodes(e):
        if _multi_path(n, subject):
            out.add(n.steps[0] if isinstance(n, ast.Path) else f"<{n.base.link}")  # type: ignore[attr-defined]
    return out


def _fenced_conditionals(filt: ast.Expr, subject: ObjectType) -> Optional[List[ast.IfElse]]:
    """The conjuncts of a filter that are ``a if c else b`` with a path through a multi link in
    a branch (``(.majors.id = major) if exists major else true``), when that can be written as
    ``CASE c WHEN true THEN <a's filter> ...``: ``c`` reads no such path, and no other conjunct
    reads the links the branches read. Gel's ``if ... else`` takes its branches as whole sets
    (``SET OF``, https://docs.geldata.com/reference/edgeql/paths: a path in a branch is bound
    in it), and a filter keeps an object when its value holds ``true``
    (https://docs.geldata.com/reference/edgeql/select#filtering): for a conjunct of the filter,
    whether its set holds ``true`` is the branch's own filter. ``None`` otherwise."""
    conjuncts = _conjuncts(filt)
    fenced = [c for c in conjuncts if isinstance(c, ast.IfElse) and not _set_links_of(c.cond, subject)
              and (_set_links_of(c.then, subject) or _set_links_of(c.else_, subject))]
    if not fenced:
        return None
    for c in fenced:
        others = set().union(*(_set_links_of(o, subject) for o in conjuncts if o is not c))
        if _set_links_of(c, subject) & others:
            return None
    return fenced


def _where_fenced(filt: ast.Expr, fenced: List[ast.IfElse], subject: ObjectType,
                  ctx: ExprContext) -> Tuple[Optional[qir.Expr], str]:
    """A filter with conditionals over multi links (:func:`_fenced_conditionals`): the other
    conjuncts as one filter, each conditional ``CASE (c) WHEN true THEN <then's filter> WHEN
    false THEN <else's filter> END`` (each branch an ``EXISTS`` over its own links), joined by
    ``AND``."""
    rest = [c for c in _conjuncts(filt) if not any(c is f for f in fenced)]
    parts: List[qir.Expr] = []
    if rest:
        joined = rest[0]
        for c in rest[1:]:
            joined = ast.BinOp("and", joined, c, c.span)
        low, _ = _where(joined, subject, ctx)
        if low is None:
            return None, MANY
        parts.append(low)
    for c in fenced:
        cond = check(c.cond, ctx, BOOL)
        then, _ = _where(c.then, subject, ctx)
        else_, _ = _where(c.else_, subject, ctx)
        if cond is None or then is None or else_ is None:
            return None, MANY
        if cond.type.family != "bool":
            ctx.reporter.error("E0304", f"the condition of 'if ... else' must be bool, got {cond.type.name}",
                               c.cond.span)
            return None, MANY
        parts.append(qir.Call(c.span, BOOL, cond.nullable or then.nullable or else_.nullable, "filter/if_else",
                              (cond, then, else_)))
    low = parts[0]
    for p in parts[1:]:
        low = qir.Binary(filt.span, BOOL, low.nullable or p.nullable, "and", low, p)
    return low, AT_MOST_ONE if q_dml._pins_one_row(filt, subject) else MANY


#: Operators whose value is computed element by element (Gel: for every combination of their
#: operands' elements): a path through a multi link may be their operand in a filter.
_ELEMENTWISE = frozenset({"=", "!=", "<", "<=", ">", ">=", "like", "ilike", "not like", "not ilike", "++", "+", "-",
                          "*", "/", "%", "and", "or"})
_ELEMENTWISE_FUNCS = frozenset({"str_lower", "str_upper", "str_trim", "len", "std::str_lower", "std::str_upper",
                                "std::str_trim", "std::len"})


#: Functions computed element by element whose arguments stay in the filter's scope.
_ELEMENTWISE_CALLS = _ELEMENTWISE_FUNCS | frozenset({"contains", "re_test", "find", "std::contains", "std::re_test",
                                                     "std::find"})


def _bound_sets(filt: ast.Expr, subject: ObjectType):
    """The multi links (and computed backlinks) whose paths ``filt`` reads element by element,
    outside aggregates and other scopes of their own (``.musics`` of ``.musics.rating >= 4``):
    Gel binds them in the filter's scope, so an aggregate of a path through one reads the linked
    object at hand (``schemac.semantics.exprs._bound_aggregate``)."""
    out: Set[str] = set()
    stack = [filt]
    while stack:
        e = stack.pop()
        if isinstance(e, ast.Path):
            if _multi_path(e, subject):
                out.add(e.steps[0])
        elif isinstance(e, ast.BinOp) and e.op in _ELEMENTWISE:
            stack += [e.left, e.right]
        elif isinstance(e, ast.BinOp) and e.op in ("in", "not in"):
            stack.append(e.left)
        elif isinstance(e, ast.UnaryOp) and e.op in ("not", "-"):
            stack.append(e.operand)
        elif isinstance(e, ast.Cast):
            stack.append(e.operand)
        elif isinstance(e, ast.FuncCall) and e.name in _ELEMENTWISE_CALLS:
            stack += list(e.args)
    return frozenset(out)


def _multi_path(e, subject: ObjectType) -> bool:
    """``.tags.name``: a path through a multi link of ``subject``; ``.<user[is Identity].provider``:
    a property of the objects whose link points at it (a set too)."""
    if isinstance(e, ast.Step) and e.kind == "." and isinstance(e.base, ast.Backlink):
        return True
    if not isinstance(e, ast.Path) or len(e.steps) < 2:
        return False
    link = subject.links.get(e.steps[0])
    if link is None and set_backlink_computed(subject.computeds.get(e.steps[0])):
        return True  # (`.posts.title` of `posts := .<tags[is Post]`)
    return link is not None and link.column is None


def _link_membership(e, subject: ObjectType) -> bool:
    """``.members`` / ``.members.id`` of a stored multi link: the right side of a membership
    test ``x [not] in .members`` (``schemac.semantics.exprs._in_multi_link``)."""
    if not isinstance(e, ast.Path) or not 1 <= len(e.steps) <= 2 or (len(e.steps) == 2 and e.steps[1] != "id"):
        return False
    link = subject.links.get(e.steps[0])
    return link is not None and link.multi and link.join_table is not None and not link.columns


def _set_path_misuse(filt: ast.Expr, subject: ObjectType) -> Optional[Tuple[ast.Path, str]]:
    """A path through a multi link (``.tags.name``) used where a filter is not computed element
    by element (under ``exists``, ``??``, ``not in``'s right side, an aggregate, ...), with
    where it is; ``None`` when every such path is an element-wise operand."""
    def multi_path(e) -> bool:
        return _multi_path(e, subject)

    stack: List[Tuple[ast.Expr, Optional[str]]] = [(filt, None)]
    while stack:
        e, where = stack.pop()
        if multi_path(e):
            if where is not None:
                return e, where  # type: ignore[return-value]
            continue
        if _aggregate(e):
            continue  # (count(.tags.name) > 1: one value of the object)
        if where is not None:
            aggregated = {id(x) for a in ast.iter_nodes(e) if _aggregate(a) for x in ast.iter_nodes(a.args[0])}
            found = next((n for n in ast.iter_nodes(e) if multi_path(n) and id(n) not in aggregated), None)
            if found is not None:
                return found, where  # type: ignore[return-value]
            continue
        if isinstance(e, ast.BinOp):
            if e.op in _ELEMENTWISE or e.op == "in":
                stack += [(e.left, None), (e.right, None)]
            elif e.op == "not in" and _link_membership(e.right, subject):
                stack.append((e.left, None))  # (x not in .members: a test of the link table)
            elif e.op == "not in":
                stack += [(e.left, None), (e.right, "on the right of 'not in'")]
            else:
                stack += [(e.left, f"with '{e.op}'"), (e.right, f"with '{e.op}'")]
        elif isinstance(e, ast.UnaryOp) and e.op in ("not", "-"):
            stack.append((e.operand, None))
        elif isinstance(e, ast.Cast):
            stack.append((e.operand, None))
        elif isinstance(e, ast.FuncCall) and e.name in _ELEMENTWISE_FUNCS:
            stack += [(a, None) for a in e.args]
        elif isinstance(e, ast.FuncCall) and e.name.replace("std::", "") in ("any", "all") and len(e.args) == 1:
            # (any() / all() read the paths of their argument in a scope of their own)
            inner = _set_path_misuse(e.args[0], subject)
            if inner is not None:
                return inner
        elif isinstance(e, ast.UnaryOp) and e.op == "exists" and multi_path(e.operand):
            continue  # (exists .tags.name: whether one linked object has one, read on its own)
        else:
            what = f"in {e.name}()" if isinstance(e, ast.FuncCall) else \
                f"under '{e.op}'" if isinstance(e, ast.UnaryOp) else "there"
            for n in _nodes_outside_any(e):
                if n is not e and multi_path(n):
                    return n, what  # type: ignore[return-value]
            for n in _nodes_outside_any(e):
                if n is not e and _own_scope(n):
                    inner = _set_path_misuse(n.args[0] if isinstance(n, ast.FuncCall) else n, subject)
                    if inner is not None:
                        return inner
    return None


def _own_scope(e) -> bool:
    """``any(...)`` / ``all(...)`` (and ``exists`` of a path through a multi link): read the
    paths of their argument in a scope of their own."""
    return isinstance(e, ast.FuncCall) and e.name.replace("std::", "") in ("any", "all") and len(e.args) == 1


#: Aggregates, which read a set as a whole: ``array_agg(.keywords.name)`` is one value of the
#: object at hand (https://docs.geldata.com/reference/stdlib/set), whatever surrounds it.
_AGGREGATES = ("array_agg", "count", "sum", "min", "max", "math::mean")


def _aggregate(e) -> bool:
    """An aggregate of one set (:data:`_AGGREGATES`): the paths of its argument are its own."""
    return isinstance(e, ast.FuncCall) and e.name.replace("std::", "") in _AGGREGATES and len(e.args) == 1


def _nodes_outside_any(e):
    """The nodes of ``e``, not descending into :func:`_own_scope` calls (yielded themselves)."""
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        if n is not e and (_own_scope(n) or _aggregate(n)):
            continue
        stack.extend(_direct_children(n))


def _direct_children(n) -> List[object]:
    if isinstance(n, ast.BinOp):
        return [n.left, n.right]
    if isinstance(n, (ast.UnaryOp, ast.Cast)):
        return [n.operand]
    if isinstance(n, ast.FuncCall):
        return list(n.args)
    if isinstance(n, (ast.Tuple_, ast.SetLit)):
        return list(n.items)
    if isinstance(n, ast.SubSelect):
        return [n.filter]
    if isinstance(n, ast.Index):
        return [n.base, n.key]
    if isinstance(n, (ast.Step, ast.TypeFilter, ast.ShapeExpr)):
        return [n.base]
    if isinstance(n, ast.IfElse):
        return [n.cond, n.then, n.else_]
    return _generic_children(n)


def _generic_children(n) -> List[object]:
    """The direct children of any other node: what :func:`ast.iter_nodes` pushes for it."""
    gen = ast.iter_nodes(n)
    next(gen)
    out = []
    # (iter_nodes walks the whole subtree depth first: a node below an earlier child is skipped)
    seen: Set[int] = set()
    for c in gen:
        if id(c) in seen:
            continue
        out.append(c)
        for d in list(ast.iter_nodes(c))[1:]:
            seen.add(id(d))
    return out


def _links_after(w) -> Dict[str, str]:
    """``select (insert | update ...) { tags: { name } }`` of a write that changes multi links:
    link name -> :data:`lowering.LINKS_AFTER` of its join table, the link rows as the statement
    leaves them (:func:`schemac.semantics.lowering.links_after_sql`), for the shape to read."""
    if type(w) not in (qir.Insert, qir.Update) or w.batch is not None:
        return {}
    else_links = () if type(w) is not qir.Insert or w.conflict is None else w.conflict.else_links
    return {a.link.name: lowering.LINKS_AFTER + a.link.join_table + "\x01" for a in w.links + else_links
            if a.link.join_table is not None and not a.link.columns and a.rows is None}
