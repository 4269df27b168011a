"""``select`` of objects: the select node, ``order by`` an index may serve, the
written objects' selection (https://docs.geldata.com/reference/edgeql/select).

Part of the statement checker (:mod:`schemac.semantics.queries`), split by concern."""

from __future__ import annotations
from typing import Dict, List, Optional, Tuple
from schemac.semantics import policies, qir
from schemac.syntax import tree as ast
from schemac.frozen import fast_init_all
from schemac.semantics.exprs import ExprContext, check, column_of
from schemac.semantics.model import ObjectType, ValueType
from schemac.semantics.qir import AT_MOST_ONE, MANY, ONE, ResultField
from schemac.semantics.scalars import SCALARS
from schemac.semantics.sqlnames import qi
from schemac.semantics import q_filters, q_shapes, q_values


def _select_node(q: ast.SelectQuery, subject: ObjectType, ctx: ExprContext, source=None,
                 source_name: Optional[str] = None,
                 batch: Optional[qir.Batch] = None,
                 links_after: Optional[Dict[str, str]] = None) -> Tuple[Optional[qir.Select], str]:
    """``select T { shape } [filter] [order by] [offset] [limit]``: the node and its
    cardinality.

    Ordering follows Gel: empty values sort first ascending and last descending unless
    ``empty first|last`` says otherwise (Postgres' default is the opposite, so NULLS FIRST/LAST
    is always spelled out).

    ``source``: select the rows a write returned instead (``with p := (insert ...) select p
    {...}``), read under ``source_name``, aliased as the table, so the shape's sub-selects read
    it like the table."""
    shape = q.shape if q.shape is not None else (ast.ShapeElement("id", None, q.type_span),)
    written = source.written_links if source is not None else ()
    written_from = dict(getattr(source, "written_sources", {}))
    if type(source) is qir.Insert and source.conflict is None and source.batch is None and source_name \
            and source_name.startswith("_with_"):
        # A new object's links are the join rows its insert writes: its link CTEs' rows.
        written_from.update({a.link.name: f"{source_name}_link{i}" for i, a in enumerate(source.links, 1)})
    written_from.update(links_after or {})
    elements = q_shapes._shape(shape, subject, qi(subject.table), ctx, depth=0, written=written, written_from=written_from)
    filt, cardinality = q_filters._where(q.filter, subject, ctx)
    visible = policies.read_predicate(subject, ctx) if source is None else None
    if source is not None:
        # Fewer rows than the write returned, never more.
        base = source.cardinality
        if base == ONE:
            cardinality = AT_MOST_ONE if q.filter is not None or q.offset is not None else ONE
        elif base == AT_MOST_ONE:
            cardinality = AT_MOST_ONE
    order: List[qir.OrderKey] = []
    for item in q.order:
        low = check(item.expr, ctx)
        if low is None:
            continue
        if low.type.family in ("json", "bytes") or low.type.element is not None:
            ctx.reporter.error("E0304", f"cannot order by a {low.type.name} value", item.expr.span)
            continue
        empty = item.empty or ("last" if item.descending else "first")
        order.append(qir.OrderKey(item.span, low, item.descending, empty))
    bounds: Dict[str, qir.Expr] = {}
    for word, expr in (("offset", q.offset), ("limit", q.limit)):
        if expr is None:
            continue
        low = check(expr, ctx, ValueType(scalar=SCALARS["int64"]))
        if low is None:
            continue
        if low.type.family != "num" or column_of(low) is not None:
            ctx.reporter.error("E0304", f"{word} needs an integer value, got {low.type.name}", expr.span)
            continue
        bounds[word] = low
        if word == "limit" and isinstance(expr, ast.Literal) and expr.value == 1 and cardinality == MANY:
            cardinality = AT_MOST_ONE
    if ctx.reporter.has_errors:
        return None, cardinality
    order = _index_safe_order(order, filt)
    return qir.Select(q.span, subject, tuple(elements), filt, tuple(order), bounds.get("offset"), bounds.get("limit"),
                      source, source_name, visible, batch=batch), cardinality


#: Orderings an index may serve by an ordered scan that skips the rows whose key is NULL:
#: pgvector's distances (its hnsw and ivfflat indexes hold no NULL vector).
_INDEX_ORDERED = frozenset({"ext::pgvector::cosine_distance", "ext::pgvector::euclidean_distance",
                            "ext::pgvector::neg_inner_product"})


def _index_safe_order(order: List[qir.OrderKey], filt: Optional[qir.Expr]) -> List[qir.OrderKey]:
    """The keys of an ``order by``, so that an index cannot change which rows come back.

    Postgres serves ``ORDER BY embedding <=> $q ASC NULLS LAST`` (Gel's ``empty last``) from an
    hnsw / ivfflat index, whose scan has no row with an empty vector: with ``limit 10`` and fewer
    vectors, the rows with none were missing, where without the index they come last (as Gel
    orders them). Such a key whose vector may be empty, unless the filter says it exists
    (``filter exists .embedding and ...``: then the index serves it), is preceded by ``exists
    <key>`` descending (``(key IS NOT NULL) DESC``), the same order, which no index serves."""
    if not order:
        return order
    k = order[0]
    e = k.expr
    if type(e) is not qir.Call or e.func not in _INDEX_ORDERED or k.descending or k.empty != "last" \
            or not e.nullable:  # type: ignore[attr-defined]
        return order
    exists = set()
    stack = [filt] if filt is not None else []
    while stack:
        n = stack.pop()
        if type(n) is qir.Binary and n.op == "and":  # type: ignore[attr-defined]
            stack += [n.left, n.right]  # type: ignore[attr-defined]
        elif type(n) is qir.Unary and n.op == "exists":  # type: ignore[attr-defined]
            col = column_of(n.operand)  # type: ignore[attr-defined]
            if col is not None:
                exists.add(col.name)
    if all(not a.nullable or (column_of(a) is not None and column_of(a).name in exists)  # type: ignore[union-attr]
           for a in e.args):  # type: ignore[attr-defined]
        return order
    present = qir.Unary(e.span, ValueType(scalar=SCALARS["bool"]), False, "exists", e)
    return [qir.OrderKey(k.span, present, True, "last")] + order


def _select(qf: ast.QueryFile, q: ast.SelectQuery, subject: ObjectType, ctx: ExprContext) -> Optional[qir.Query]:
    node, cardinality = _select_node(q, subject, ctx)
    if node is None:
        return None
    return q_values._plan(qf, "select", subject, node, ctx, cardinality, (), _fields(node.shape))


def _fields(elements) -> Tuple[ResultField, ...]:
    return tuple(el.field for el in elements)


#: Deepest nesting of shapes.
MAX_SHAPE_DEPTH = 4
