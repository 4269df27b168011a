"""Shapes: properties, links, link properties, computed and backlink elements,
splats, polymorphic elements, shape clauses
(https://docs.geldata.com/reference/edgeql/select#shapes).

Part of the statement checker (:mod:`schemac.semantics.queries`), split by concern."""

from __future__ import annotations
import dataclasses
from typing import Dict, List, Optional, Set, Tuple
from schemac.semantics import computed_sql, policies, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import Span, did_you_mean
from schemac.frozen import fast_init_all
from schemac.semantics.exprs import ExprContext, check, column_of
from schemac.semantics.e_objects import link_prop_column
from schemac.semantics.e_paths import selected_tuple, refuse_poly_link
from schemac.semantics.e_types import BOOL
from schemac.semantics.model import (Link, ObjectType, PolyLink, ValueType, abstract_view, backlink_link,
                                     single_link_props, union_view)
from schemac.semantics.names import go_name
from schemac.semantics.qir import MANY, ONE, ResultField
from schemac.semantics.scalars import NOT_IN_JSON, SCALARS, range_kind
from schemac.semantics.sqlnames import qi
from schemac.semantics import q_dml, q_group, q_select, q_with, queries


def _join_table(link, ctx: ExprContext) -> Optional[ObjectType]:
    """The join table of a multi link, as a type whose columns are its link properties."""
    return ctx.schema.join_table(link.join_table)


def _json_ok(vtype: ValueType, span: Span, ctx: ExprContext) -> bool:
    """Whether a value of ``vtype`` can travel in a nested shape's JSON (else reported: see
    :data:`schemac.semantics.scalars.NOT_IN_JSON`)."""
    elem = vtype.element if vtype.element is not None else vtype
    name = elem.scalar.name if elem.scalar is not None else None
    if range_kind(elem.scalar) or name in NOT_IN_JSON or (vtype.element is not None and name in queries.JSON_SPELLING and name.startswith("cal::")):
        ctx.reporter.error("E0206", f"a {vtype.name} value inside a nested shape is not supported yet", span,
                           "select it at the top level of a query (nested shapes travel as JSON, which the "
                           "Go runner cannot decode into this type)")
        return False
    return True


@dataclasses.dataclass
class _ShapeScope:
    """A shape being checked (the arguments of :func:`_shape`) and its elements so far."""
    subject: ObjectType
    alias: str
    ctx: ExprContext
    depth: int
    link_props: Optional[Tuple[str, ObjectType]]
    written: Tuple[str, ...]
    written_from: Optional[Dict[str, str]]
    out: List[qir.Node] = dataclasses.field(default_factory=list)
    #: the names (and ``@props``) selected so far
    seen: Set[str] = dataclasses.field(default_factory=set)


def _shape(shape, subject: ObjectType, alias: str, ctx: ExprContext, depth: int,
           link_props: Optional[Tuple[str, ObjectType]] = None,
           written: Tuple[str, ...] = (), written_from: Optional[Dict[str, str]] = None) -> List[qir.Node]:
    """The checked elements of a shape over ``subject`` (rows named ``alias``: the table at the
    top, ``"_s<depth>"`` in nested shapes, as :func:`schemac.semantics.lowering.shape_sql` names them).
    A top-level ``link: { id }`` is just the FK column.

    ``link_props``: inside a multi link's shape, (link name, join table): ``@prop`` reads a
    link property from it, as the field ``@prop``. ``written``: multi links the statement
    whose rows are selected writes; their join rows are not visible to the same statement, so
    selecting them is refused. ``written_from``: single links it assigns the objects of a write
    bound by ``with``, name -> that write's CTE: their objects are read from it, as the
    statement leaves them (Gel's result shows the objects after the statement,
    https://docs.geldata.com/reference/edgeql/with), and from the table for the others.

    Each element by its form: a computed one (:func:`_shape_value_element`), a link property, a
    link (:func:`_shape_link_element`), a computed of the schema or a property
    (:func:`_shape_field_element`)."""
    scope = _ShapeScope(subject, alias, ctx, depth, link_props, written, written_from)
    if any(el.splat for el in shape):
        shape = _expand_splats(shape, subject)
    for el in shape:
        _shape_element(el, scope)
    return scope.out


def _shape_element(el: ast.ShapeElement, s: _ShapeScope) -> None:
    """One element of the shape ``s``, appended to ``s.out`` (or refused, reported)."""
    subject, ctx = s.subject, s.ctx
    unsupported = _unsupported_element(el)
    if unsupported is not None:
        ctx.reporter.error("E0206", f"{unsupported} in a shape {'is' if el.type_filter is None else 'are'} not "
                           "supported yet", el.span)
        return
    rename: Optional[str] = None
    single = values = False
    if el.value is not None:
        linked = _linked_selection(el, subject, ctx)
        if linked is False:
            return
        if linked is not None:
            el, rename, single, values = linked  # type: ignore[misc]
        else:
            el = _ordered_backlink(el)
    poly: Optional[Link] = None
    v = el.value
    if isinstance(v, ast.ShapeExpr) and isinstance(v.base, ast.TypeFilter) and isinstance(v.base.base, ast.Path) \
            and len(v.base.base.steps) == 1 and v.base.base.steps[0] in subject.poly_links:
        # name := .link[is T] { ... }: the objects of a polymorphic link that are T's
        poly = _poly_shape_link(subject.poly_links[v.base.base.steps[0]], v.base.type.name, v.base.span, ctx)
        if poly is None:
            return
        el = dataclasses.replace(el, shape=v.shape, value=None)
    if el.value is not None:
        _shape_value_element(el, v, s)
        return
    key = "@" + el.name if el.link_prop else (rename or el.name)
    if key in s.seen or (go_name(key) in {go_name(k) for k in s.seen}):
        ctx.reporter.error("E0309", f"'{key}' appears twice in the shape" if key in s.seen else
                           f"'{key}' and another field of the shape have the same name in Go", el.span)
        return
    s.seen.add(key)
    if el.link_prop:
        if s.link_props is None:
            ctx.reporter.error("E0304", f"'@{el.name}' is a link property: it can only be selected inside the "
                               "shape of a link", el.span, f"write e.g. tags: {{ name, @{el.name} }}")
            return
        link_name, join_type = s.link_props
        col = link_prop_column(link_name, join_type, el.name, el.span, ctx.reporter)
        if col is None:
            return
        if not _json_ok(col.type, el.span, ctx):
            return
        s.out.append(qir.ShapeLinkProp(el.span, ResultField(key, col.type, not col.required, in_json=True), col))
        return
    if el.shape is None and not el.link_prop and (el.name in subject.links or el.name in subject.poly_links or (
            el.name in subject.computeds and subject.computeds[el.name].target is not None)):
        # A link named without a shape is its objects' ids, `link: { id }`: Gel selects an
        # object without a shape as its id (https://docs.geldata.com/reference/edgeql/select#shapes).
        el = dataclasses.replace(el, shape=(ast.ShapeElement("id", None, el.span),))
    if poly is None and el.name in subject.poly_links and el.shape is not None:
        poly = _poly_shape_link(subject.poly_links[el.name], None, el.span, ctx)
        if poly is None:
            return
    if poly is None and refuse_poly_link(subject, el.name, el.span, ctx.reporter):
        return
    link = poly or subject.links.get(el.name)
    if link is not None:
        _shape_link_element(el, link, rename, single, values, s)
        return
    _shape_field_element(el, s)


def _shape_value_element(el: ast.ShapeElement, v, s: _ShapeScope) -> None:
    """``name := <expr>``: a group, a link property, the objects of a bound write, of a back link
    or a path with a shape, or any computed value."""
    subject, alias, ctx, depth, written = s.subject, s.alias, s.ctx, s.depth, s.written
    if el.name in s.seen:
        ctx.reporter.error("E0309", f"'{el.name}' appears twice in the shape", el.span)
        return
    s.seen.add(el.name)
    back = v.base if isinstance(v, ast.ShapeExpr) else v
    grouped = q_group._group_selection(v) if not _has_clauses(el) and el.shape is None else None
    if grouped is not None:
        # `films := (select (group .<person[is Credit] by .film) { ... } order by ...)`
        node = q_group._object_group_element(el, grouped, subject, alias, ctx, depth)
        if node is not None:
            s.out.append(node)
        return
    if isinstance(v, ast.LinkPropRef) and s.link_props is not None:
        # `tracks: { position := @position }`: the link property, under that name
        # (https://docs.geldata.com/reference/datamodel/linkprops#querying-link-properties)
        col = link_prop_column(s.link_props[0], s.link_props[1], v.name, v.span, ctx.reporter)
        if col is not None and _json_ok(col.type, el.span, ctx):
            s.out.append(qir.ShapeLinkProp(el.span, ResultField(el.name, col.type, not col.required,
                                                                in_json=True), col))
        return
    if isinstance(back, ast.VarRef) and back.name in ctx.bound_writes and back.name not in ctx.variables:
        node = _written_objects_element(el, back, v.shape if isinstance(v, ast.ShapeExpr) else None, ctx,
                                        depth)
    elif isinstance(back, ast.Backlink):
        node = _backlink_shape_element(el, back, v.shape if isinstance(v, ast.ShapeExpr) else None,
                                       subject, alias, ctx, depth)
    elif isinstance(v, ast.ShapeExpr) and not written and computed_sql.is_set_expr(back) \
            and computed_sql.set_target(back, subject, ctx.schema, ctx.module) is not None:
        # `students := .<advisor[is Student].user { name }`: the objects of a path (a union,
        # ...) with a shape, a JSON list of them
        node = _backlink_shape_element(el, back, v.shape, subject, alias, ctx, depth)
    elif written:
        # `host_name := .host.name` of a link the statement assigns a new object: read
        # from the write's CTE.
        reads = {n: (s.written_from or {}).get(n) for n in written}
        node = _computed_shape_element(el, subject, alias, dataclasses.replace(ctx, written_from=reads),
                                       depth)
    else:
        node = _computed_shape_element(el, subject, alias, ctx, depth)
    if node is not None:
        s.out.append(node)


def _shape_link_element(el: ast.ShapeElement, link: Link, rename: Optional[str], single: bool, values: bool,
                        s: _ShapeScope) -> None:
    """``link: { ... }`` (a top-level ``link: { id }``: the FK column), ``(select .link ...)`` and
    its values."""
    subject, alias, ctx, depth = s.subject, s.alias, s.ctx, s.depth
    if depth == 0 and not link.multi and link.column is not None and [e.name for e in el.shape] == ["id"] \
            and not _has_clauses(el) and rename is None:
        col = subject.column(link.column)  # type: ignore[arg-type]
        assert col is not None
        s.out.append(qir.ShapeLinkId(el.span, ResultField(el.name + "_id", col.type, not col.required), link, col,
                                     policies.link_visible(link, subject, ctx)))
        return
    if depth + 1 > q_select.MAX_SHAPE_DEPTH:
        ctx.reporter.error("E0206", f"shapes nested deeper than {q_select.MAX_SHAPE_DEPTH} levels are not supported",
                           el.span)
        return
    written_cte = (s.written_from or {}).get(el.name)
    if el.name in s.written and written_cte is None and (link.multi or [e.name for e in el.shape] != ["id"]):
        ctx.reporter.error("E0206", f"selecting the {'multi ' if link.multi else ''}link '{el.name}' that the "
                           "same statement writes is "
                           "not supported yet", el.span,
                           "its new links are not visible to the statement; select them in a second query")
        return
    # (a single link's link properties: columns of the subject's row, single_link_props)
    join_type = _join_table(link, ctx) if link.multi else single_link_props(subject, el.name)
    props = (el.name, join_type) if join_type is not None else None
    inner_alias = qi(f"_s{depth + 1}")
    inner = _shape(el.shape, link.target, inner_alias, ctx, depth + 1, props)
    ok, clauses = _shape_clauses(el, link.target, inner_alias, ctx,
                                 None if join_type is None else
                                 (el.name, join_type, qi(f"_j{depth + 1}") if link.multi else alias))
    if not ok:
        return
    nested = q_select._fields(inner)
    visible = policies.read_predicate(link.target, ctx, inner_alias)
    if clauses is None:
        visible = policies.required_link_visible(visible, link, subject, inner_alias)
    if link.multi and not single:
        field = ResultField(rename or el.name, None, False, nested, True, depth > 0)
    else:
        # (a filter or an offset may leave a required link's object out)
        field = ResultField(rename or el.name, None, not link.required or clauses is not None or single,
                            nested, False, depth > 0)
    if values:
        # `(select .link ...).p`, `(select .link.p ...)`: the objects' values of p, in
        # their order (an empty value no element), as an array; one value with limit 1
        col = inner[0] if len(inner) == 1 and type(inner[0]) is qir.ShapeColumn else None
        if col is None:
            if inner:
                ctx.reporter.error("E0206", f"the values of '{el.shape[0].name}', which is not a stored "
                                   "property, of a sub-select with 'order by', 'offset' or 'limit' are not "
                                   "supported yet", el.shape[0].span)
            return
        vt = col.column.type  # type: ignore[attr-defined]
        vtype = ValueType(element=vt) if field.multi else vt
        if depth > 0 and not _json_ok(vtype, el.span, ctx):
            return
        field = ResultField(field.name, vtype, not field.multi and (field.optional or col.field.optional),
                            in_json=depth > 0)
    s.out.append(qir.ShapeLink(el.span, field, link, tuple(inner), join_type, visible, clauses, written_cte,
                               single and link.multi, values))


def _shape_field_element(el: ast.ShapeElement, s: _ShapeScope) -> None:
    """A computed of the schema (a polymorphic back link's objects, any other) or a stored
    property (a tuple property: the JSON of its elements)."""
    subject, alias, ctx, depth = s.subject, s.alias, s.ctx, s.depth
    comp = subject.computeds.get(el.name)
    if comp is not None and comp.poly_type is not None and el.shape is not None:
        node = _poly_backlink_element(el, comp, subject, alias, ctx, depth)
        if node is not None:
            s.out.append(node)
        return
    if comp is not None and computed_sql.refuse_computed(comp, el.span, ctx.reporter):
        return
    if comp is not None:
        node = _computed_element(el, comp, subject, alias, ctx, depth)
        if node is not None:
            s.out.append(node)
        return
    if el.shape is not None:
        ctx.reporter.error("E0304", f"'{el.name}' is not a link: it takes no shape", el.span)
        return
    col = subject.column(el.name)
    if col is None or col.link is not None:
        ctx.reporter.error("E0302", f"type '{subject.name}' has no property '{el.name}'", el.span,
                           did_you_mean(el.name, [c.name for c in subject.columns if c.link is None and c.link_prop is None]
                                        + list(subject.links)))
        return
    if _refuse_property_clauses(el, ctx):
        return
    if depth > 0 and not _json_ok(col.type, el.span, ctx):
        return
    if col.type.fields is not None:
        # a tuple property (https://docs.geldata.com/reference/stdlib/tuple), selected as any
        # tuple is: the JSON of its elements
        scope = dataclasses.replace(ctx, subject=subject, column_prefix=alias if depth > 0 else None)
        low = check(ast.Path((el.name,), el.span), scope)
        if low is not None:
            field = ResultField(col.name, col.type, not col.required, in_json=depth > 0)
            s.out.append(qir.ShapeComputed(el.span, field, selected_tuple(low)))
        return
    s.out.append(qir.ShapeColumn(el.span, ResultField(col.name, col.type, not col.required, in_json=depth > 0), col))


def _poly_shape_link(pl: PolyLink, type_name: Optional[str], span: Span, ctx: ExprContext) -> Optional[Link]:
    """A polymorphic link (:class:`schemac.semantics.model.PolyLink`) as a shape reads it: with ``[is T]``
    (``.items[is Movie] { ... }``, https://docs.geldata.com/reference/edgeql/shapes) a link to
    the concrete subtype ``T`` alone (its column; a multi link's join rows whose ``target_id``
    is a ``T``); else a link to the abstract type with the properties all its concrete subtypes
    share (https://docs.geldata.com/reference/edgeql/select, polymorphic queries), read from a
    ``UNION ALL`` of their tables."""
    if type_name is not None:
        target = ctx.schema.find_type(type_name, ctx.module)
        column = next((c for t, c in pl.targets if t is target), None) if target is not None else None
        if column is None:
            names = ", ".join(t.name for t, _ in pl.targets)
            ctx.reporter.error("E0302", f"'{pl.name}' links to {names}; '[is {type_name}]' names none of them "
                               "(a concrete subtype is needed)", span)
            return None
        return Link(pl.name, target, pl.multi, False, None if pl.multi else column,  # type: ignore[arg-type]
                    pl.join_table)
    subs = [t for t, _ in pl.targets]
    guarded = [t.name for t in subs if t.policies]
    if guarded:
        ctx.reporter.error("E0206", f"a shape of the polymorphic link '{pl.name}' over types with access policies "
                           f"({', '.join(guarded)}) is not supported yet", span,
                           f"select one subtype: {pl.name}_x := .{pl.name}[is {guarded[0]}] {{ ... }}")
        return None
    view = abstract_view(pl)
    return Link(pl.name, view, pl.multi, pl.required, None, pl.join_table,
                () if pl.multi else tuple(c for _, c in pl.targets))


def _link_relative(node, link: str):
    """``node`` (a clause of ``(select .link.p filter ... order by ...)``) with its paths
    ``.link.x`` read as ``.x`` of the linked object (in Gel's scope the subject's ``.link`` is
    the same object); ``None`` when it reads anything else (another path, a sub-query)."""
    if isinstance(node, ast.Path):
        return ast.Path(node.steps[1:], node.span) if len(node.steps) > 1 and node.steps[0] == link else None
    if isinstance(node, (ast.SelectExpr, ast.SubSelect, ast.ShapeExpr, ast.WithExpr, ast.ForExpr, ast.GroupExpr,
                         ast.StatementExpr, ast.Backlink, ast.LinkPropRef, ast.TypeFilter, ast.FreeObject)):
        return None
    if isinstance(node, tuple):
        items = tuple(_link_relative(x, link) for x in node)
        return None if any(i is None and x is not None for i, x in zip(items, node)) else items
    if not dataclasses.is_dataclass(node) or isinstance(node, (Span, type, ast.TypeRef)):
        return node
    changes = {}
    for fld in dataclasses.fields(node):
        v = getattr(node, fld.name)
        if v is None or isinstance(v, (str, int, float, bool, Span)):
            continue
        nv = _link_relative(v, link)
        if nv is None:
            return None
        if nv is not v:
            changes[fld.name] = nv
    return dataclasses.replace(node, **changes) if changes else node


def _linked_selection(el: ast.ShapeElement, subject: ObjectType, ctx: ExprContext):
    """A computed element selecting a link's objects with clauses, ``first := (select .link
    [filter ...] [order by ...] [offset ...] [limit ...]) { shape }`` (or ``(select .link {
    shape } ...)``), ``name := (select .link ...).p``, ``name := (select .link.p ... order by
    .link.p ...)``, or without clauses ``name := .link { shape }``: the element ``link: { shape
    } filter ... order by ...`` (of the values of ``p`` for the last two) under the name
    ``name`` (https://docs.geldata.com/reference/edgeql/select#filtering-ordering-and-paginating-links).
    ``(element, name, single, values)``; ``single``: ``limit 1``, at most one object or value,
    as Gel's cardinality inference gives a select with a literal ``limit 1``
    (https://docs.geldata.com/reference/edgeql/cardinality). ``None`` for any other element;
    ``False`` after a located error."""
    v, shape, step = el.value, None, None
    if isinstance(v, ast.Step) and v.kind == "." and isinstance(v.base, ast.SelectExpr):
        step, v = v.name, v.base
    if isinstance(v, ast.ShapeExpr) and step is None:
        shape, v = v.shape, v.base
        if isinstance(v, ast.Path) and len(v.steps) == 1 and (v.steps[0] in subject.links
                                                              or v.steps[0] in subject.poly_links):
            return dataclasses.replace(el, name=v.steps[0], shape=shape, value=None), el.name, False, False
    if not (isinstance(v, ast.SelectExpr) and isinstance(v.subject, ast.Path) and 1 <= len(v.subject.steps) <= 2):
        return None
    if shape is not None and v.shape is not None:
        return None
    name = v.subject.steps[0]
    if name not in subject.links and name not in subject.poly_links:
        return None
    shape = shape if shape is not None else v.shape
    if len(v.subject.steps) == 2:
        if step is not None or shape is not None:
            return None
        step = v.subject.steps[1]
        clauses = {}
        for field in ("filter", "order", "offset", "limit"):
            c = getattr(v, field)
            c2 = _link_relative(c, name) if c is not None and c != () else c
            if c2 is None and c is not None:
                ctx.reporter.error("E0206", f"a sub-select of '.{name}.{step}' whose {field.replace('order', 'order by')} "
                                   f"reads other than '.{name}...' is not supported yet", v.span,
                                   f"select the objects: (select .{name} ... order by .{step}).{step}")
                return False
            clauses[field] = c2
        # (the values: an empty one is no element, so it is not counted by offset / limit)
        present = ast.UnaryOp("exists", ast.Path((step,), v.subject.span), v.subject.span)
        filt = present if clauses["filter"] is None else ast.BinOp("and", present, clauses["filter"], v.span)
        v = dataclasses.replace(v, filter=filt, order=clauses["order"], offset=clauses["offset"],
                                limit=clauses["limit"])
    if step is not None:
        shape = (ast.ShapeElement(step, None, el.span),)
    single = isinstance(v.limit, ast.Literal) and v.limit.value == 1
    inner = dataclasses.replace(el, name=name, shape=shape, value=None, filter=v.filter, order=v.order,
                                offset=v.offset, limit=v.limit)
    return inner, el.name, single, step is not None


def _ordered_backlink(el: ast.ShapeElement) -> ast.ShapeElement:
    """``name := (select .<link[is T] [{ shape }] [filter ...] order by ... [offset ...] [limit
    n])`` (or ``(select (.<link[is T] { shape }) ...)``, or the shape after the select) as
    ``name := .<link[is T] { shape }`` with the select's clauses as the element's: the objects of
    ``T`` linking to this one, filtered, ordered and paged, a list in that order
    (https://docs.geldata.com/reference/edgeql/select#filtering-ordering-and-paginating-links,
    https://docs.geldata.com/reference/datamodel/links#backlinks). Only with ``order by``,
    ``offset`` or ``limit`` (a filter alone is read as before), and not with a literal ``limit
    1``, after which Gel infers at most one object (not a list): that stays ``E0206``. Any other
    element is returned as is."""
    v, outer = el.value, None
    if isinstance(v, ast.ShapeExpr) and isinstance(v.base, ast.SelectExpr):
        outer, v = v.shape, v.base
    if not isinstance(v, ast.SelectExpr) or not (v.order or v.offset is not None or v.limit is not None) \
            or (isinstance(v.limit, ast.Literal) and v.limit.value == 1) or _has_clauses(el) or el.shape is not None:
        return el
    subj, shape = v.subject, v.shape
    if isinstance(subj, ast.ShapeExpr):
        if shape is not None:
            return el
        subj, shape = subj.base, subj.shape
    if outer is not None:
        if shape is not None:
            return el
        shape = outer
    if not isinstance(subj, ast.Backlink) or subj.type_name is None:
        return el
    shape = shape if shape is not None else (ast.ShapeElement("id", None, subj.span),)
    return dataclasses.replace(el, value=ast.ShapeExpr(subj, shape, v.span), filter=v.filter, order=v.order,
                               offset=v.offset, limit=v.limit)


def _unsupported_element(el: ast.ShapeElement) -> Optional[str]:
    """What a shape element uses that shapes do not lower yet (named in an E0206), or ``None``."""
    if el.backlink:
        return f"a backlink ('.<{el.name}')"
    if el.type_filter is not None:
        return f"type-filtered elements ('[is {el.type_filter}].{el.name}')"
    return None


def _refuse_property_clauses(el: ast.ShapeElement, ctx: ExprContext) -> bool:
    """A property's shape element with clauses (``tags order by Item.tags desc limit 1``,
    ``tags filter Item.tags > 'p'``) orders, filters and slices the property's values in Gel
    (geldata/gel tests/test_edgeql_linkatoms.py ``test_edgeql_links_map_scalars_01``..``03``).
    Not lowered yet: refused (E0206) rather than returning every value unordered."""
    words = [w for w, on in (("filter", el.filter is not None), ("order by", bool(el.order)),
                             ("offset", el.offset is not None), ("limit", el.limit is not None)) if on]
    if not words:
        return False
    ctx.reporter.error("E0206", f"{' / '.join(repr(w) for w in words)} on the property '{el.name}' in a shape is "
                       "not supported yet", el.span,
                       f"select '{el.name}' whole and filter or order its values in the application")
    return True


def _has_clauses(el) -> bool:
    return el.filter is not None or bool(el.order) or el.offset is not None or el.limit is not None


def _shape_clauses(el, target: ObjectType, alias: str, ctx: ExprContext,
                   link_row: Optional[Tuple[str, ObjectType, str]] = None) -> Tuple[bool, Optional[qir.ShapeClauses]]:
    """``(ok, clauses)`` of a nested shape's ``filter`` / ``order by`` / ``offset`` / ``limit``
    (https://docs.geldata.com/reference/edgeql/select#filtering-ordering-and-paginating-links),
    checked over the linked objects (``target``, rows named ``alias``). ``el``: anything with
    those four attributes (a shape element, a sub-select). ``link_row``: a multi link's (name,
    join table, its alias), whose link properties ``@prop`` reads."""
    if not _has_clauses(el):
        return True, None
    scope = dataclasses.replace(ctx, subject=target, column_prefix=alias, link_row=link_row)
    before = len(ctx.reporter.diagnostics)
    filt = None
    if el.filter is not None:
        filt = check(el.filter, scope, BOOL)
        if filt is not None and filt.type.family != "bool":
            ctx.reporter.error("E0304", f"a filter must be bool, got {filt.type.name}", el.filter.span)
    order: List[qir.OrderKey] = []
    for item in el.order:
        low = check(item.expr, scope)
        if low is None:
            continue
        if low.type.family in ("json", "bytes") or low.type.element is not None:
            ctx.reporter.error("E0304", f"cannot order by a {low.type.name} value", item.expr.span)
            continue
        order.append(qir.OrderKey(item.span, low, item.descending, item.empty or ("last" if item.descending else "first")))
    bounds: Dict[str, qir.Expr] = {}
    for word, expr in (("offset", el.offset), ("limit", el.limit)):
        if expr is None:
            continue
        low = check(expr, scope, ValueType(scalar=SCALARS["int64"]))
        if low is not None and (low.type.family != "num" or column_of(low) is not None):
            ctx.reporter.error("E0304", f"{word} needs an integer value, got {low.type.name}", expr.span)
        elif low is not None:
            bounds[word] = low
    if len(ctx.reporter.diagnostics) != before:
        return False, None
    return True, qir.ShapeClauses(el.span, filt, tuple(q_select._index_safe_order(order, filt)), bounds.get("offset"),
                                  bounds.get("limit"))


def _common_links(subs: List[ObjectType]) -> List[str]:
    """The links of an abstract type as a query over its concrete subtypes ``subs`` reads them:
    those every subtype has (inherited from it), to the same target with the same cardinality,
    stored or computed (the same expression), in the first subtype's order."""
    first, rest = subs[0], subs[1:]
    names = [n for n, link in first.links.items()
             if all(n in t.links and t.links[n].target is link.target and t.links[n].multi == link.multi
                    for t in rest)]
    names += [n for n, c in first.computeds.items() if c.target is not None and c.refused is None
              and all(n in t.computeds and t.computeds[n].expr == c.expr for t in rest)]
    return names


def _expand_splats(shape, subject: ObjectType, links: Optional[List[str]] = None) -> Tuple[ast.ShapeElement, ...]:
    """``{*}``: every property of the type (``id`` first, then in declaration order, computed
    properties after stored ones); ``{**}``: those and every link, each with ``{*}`` of its
    target (https://docs.geldata.com/reference/edgeql/select#splats). An element written next
    to a splat replaces the splat's element of the same name, wherever it stands. ``links``:
    the links of an abstract type's objects (:func:`_common_links`; its union view has none)."""
    explicit = {el.name for el in shape if not el.splat and not el.link_prop}
    out: List[ast.ShapeElement] = []
    for el in shape:
        if not el.splat:
            out.append(el)
            continue
        strategy = subject.splat_strategies
        names = [c.name for c in subject.columns if c.link is None and c.link_prop is None]
        names += [c.name for c in subject.computeds.values() if c.target is None and c.refused is None]
        if links is None:
            links = list(subject.links) + [c.name for c in subject.computeds.values() if c.target is not None]
        # (`splat_strategy := 'Implicit'` on a link: `*` selects it, as its objects' ids)
        names += [n for n in links if strategy.get(n) == "Implicit" and el.name == "*"]
        out += [ast.ShapeElement(n, None, el.span) for n in names if n not in explicit
                and strategy.get(n) != "Explicit"]
        if el.name == "**":
            star = (ast.ShapeElement("*", None, el.span),)
            out += [ast.ShapeElement(n, star, el.span) for n in links if n not in explicit
                    and strategy.get(n) != "Explicit"]
        explicit |= {e.name for e in out}
    return tuple(out)


def _computed_shape_element(el: ast.ShapeElement, subject: ObjectType, alias: str, ctx: ExprContext,
                            depth: int) -> Optional[qir.Node]:
    """``name := expr`` in a shape (https://docs.geldata.com/reference/edgeql/shapes#computed-fields):
    the expression, checked in the scope of the object, as a field of its type; empty when the
    expression may be empty (``n := count(.posts)`` is never empty)."""
    scope = dataclasses.replace(ctx, subject=subject, column_prefix=alias if depth > 0 else None)
    value = el.value
    if _values_of_objects(value, scope):
        # `ids := .items[is Media].id_al`: a set of values, a computed multi property, which
        # schemac gives as an array (as @gel/generate and edgeql-go type it): array_agg of the
        # values of the distinct objects, [] when there is none
        value = ast.FuncCall("array_agg", (value,), value.span)  # type: ignore[arg-type]
    low = check(value, scope)  # type: ignore[arg-type]
    if low is None:
        return None
    if depth > 0 and not _json_ok(low.type, el.span, ctx):
        return None
    low = selected_tuple(low)  # `p := .pos`: a tuple property's value, selected
    return qir.ShapeComputed(el.span, ResultField(el.name, low.type, low.nullable, in_json=depth > 0), low)


def _values_of_objects(value, ctx: ExprContext) -> bool:
    """``value`` is ``<set of objects of the subject>.p`` (``.items[is Media].id_al``, a path
    through a multi link, backlink or computed link, then one property): a set of values."""
    from schemac.semantics.e_objects import _object_path_base

    if isinstance(value, ast.Path) and len(value.steps) >= 2 and ctx.subject is not None:
        first = value.steps[0]
        link = ctx.subject.links.get(first)
        comp = ctx.subject.computeds.get(first)
        if not ((link is not None and link.multi) or (comp is not None and comp.target is not None and comp.multi)):
            return False
        target = computed_sql.set_target(ast.Path(value.steps[:-1], value.span), ctx.subject, ctx.schema, ctx.module)
        return target is not None and value.steps[-1] not in target.links and target.column(value.steps[-1]) is not None
    if not (isinstance(value, ast.Step) and value.kind == "." and isinstance(value.base, (ast.TypeFilter, ast.Backlink,
                                                                                          ast.Step, ast.SelectExpr))):
        return False
    found = _object_path_base(value, ctx)
    if found is None or computed_sql._asserted_single(found[0]) is not None:
        return False
    if len(found[1]) > 1 or isinstance(found[0], ast.SelectExpr):
        # `directors := (select .<title[is Credit] filter .role = 'director').person.name`:
        # the property of the distinct objects a path of links reaches from a set of objects
        # (https://docs.geldata.com/reference/edgeql/paths)
        target = computed_sql.set_target(value.base, ctx.subject, ctx.schema, ctx.module)
        if target is None or value.name in target.links or target.column(value.name) is None:
            return False
        return not computed_sql.single_path(found[0], ctx.subject, ctx.schema, ctx.module)
    target = computed_sql.set_target(found[0], ctx.subject, ctx.schema, ctx.module)
    if target is None or found[1][0] in target.links or target.column(found[1][0]) is None:
        return False
    return not computed_sql.single_set(found[0]) and not (
        isinstance(found[0], ast.Path) and len(found[0].steps) == 1 and found[0].steps[0] in ctx.subject.links
        and not ctx.subject.links[found[0].steps[0]].multi)


def _backlink_shape_element(el: ast.ShapeElement, back: ast.Backlink, shape, subject: ObjectType, alias: str,
                            ctx: ExprContext, depth: int) -> Optional[qir.Node]:
    """``name := .<link[is T] { ... }`` in a shape
    (https://docs.geldata.com/reference/edgeql/shapes#computed-fields,
    https://docs.geldata.com/reference/datamodel/links#backlinks): the objects of ``T`` whose
    link ``link`` points at the object, a JSON list built like a computed backlink's. Without a
    shape the objects are their ids (``{ id }``), as Gel returns an object set."""
    if depth + 1 > q_select.MAX_SHAPE_DEPTH:
        ctx.reporter.error("E0206", f"shapes nested deeper than {q_select.MAX_SHAPE_DEPTH} levels are not supported", el.span)
        return None
    scope = dataclasses.replace(ctx, subject=subject, column_prefix=alias)
    inner_alias = qi(f"_s{depth + 1}")
    objects = computed_sql.object_set(back, scope, inner_alias, el.span) if isinstance(back, ast.Backlink) \
        else computed_sql.expr_object_set(back, scope, inner_alias, el.span)
    if objects is None:
        return None
    inner = _shape(shape if shape is not None else (ast.ShapeElement("id", None, back.span),), objects.source,
                   inner_alias, ctx, depth + 1)
    ok, clauses = _shape_clauses(el, objects.source, inner_alias, ctx)
    if not ok:
        return None
    field = ResultField(el.name, None, False, q_select._fields(inner), True, depth > 0)
    return qir.ShapeComputedLink(el.span, field, objects, tuple(inner), clauses)


def _written_objects_element(el: ast.ShapeElement, ref: ast.VarRef, shape, ctx: ExprContext,
                             depth: int) -> Optional[qir.Node]:
    """``name := p`` / ``name := p { ... }`` in a shape, ``p`` a write bound by ``with``
    (https://docs.geldata.com/reference/edgeql/with): the objects it wrote, as the statement
    leaves them, read from its CTE (``RETURNING *``), a JSON list of them (one object, or
    ``null``, when it writes at most one); without a shape their ids (``{ id }``), as Gel
    returns an object set."""
    w = ctx.bound_writes[ref.name]
    if depth + 1 > q_select.MAX_SHAPE_DEPTH:
        ctx.reporter.error("E0206", f"shapes nested deeper than {q_select.MAX_SHAPE_DEPTH} levels are not supported", el.span)
        return None
    subject = w.subject  # type: ignore[attr-defined]
    inner_alias = qi(f"_s{depth + 1}")
    inner = _shape(shape if shape is not None else (ast.ShapeElement("id", None, ref.span),), subject, inner_alias,
                   ctx, depth + 1, written=w.written_links, written_from=getattr(w, "written_sources", {}))  # type: ignore[attr-defined]
    ok, clauses = _shape_clauses(el, subject, inner_alias, ctx)
    if not ok or ctx.reporter.has_errors:
        return None
    multi = w.cardinality == MANY  # type: ignore[attr-defined]
    objects = qir.ObjectSet(ref.span, inner_alias, subject, multi, cte=f"_with_{ref.name}")
    field = ResultField(el.name, None, not multi and w.cardinality != ONE, q_select._fields(inner), multi,  # type: ignore[attr-defined]
                        depth > 0)
    return qir.ShapeComputedLink(el.span, field, objects, tuple(inner), clauses)


def _poly_backlink_element(el: ast.ShapeElement, comp, subject: ObjectType, alias: str, ctx: ExprContext,
                           depth: int) -> Optional[qir.Node]:
    """``name: { ... }`` of a computed backlink ``.<link[is A]`` of an abstract type ``A``
    (https://docs.geldata.com/reference/datamodel/links#backlinks,
    .../datamodel/inheritance): the objects of its concrete subtypes whose link points at this
    object, each subtype's table read on its own (``UNION ALL`` over the properties they
    share, and the computeds they all inherit), a JSON list like a backlink's."""
    if depth + 1 > q_select.MAX_SHAPE_DEPTH:
        ctx.reporter.error("E0206", f"shapes nested deeper than {q_select.MAX_SHAPE_DEPTH} levels are not supported", el.span)
        return None
    inner_alias = qi(f"_s{depth + 1}")
    row = alias if depth > 0 else qi(subject.table)
    parts = []
    for src in comp.poly_sources:
        link = backlink_link(src, comp.backlink, subject)
        assert link is not None
        parts.append(qir.ObjectSet(el.span, inner_alias, src, True, None, link, row,
                                   policies.read_predicate(src, ctx, inner_alias)))
    view = union_view(comp.poly_type, list(comp.poly_sources))
    inner = _shape(el.shape, view, inner_alias, ctx, depth + 1)
    ok, clauses = _shape_clauses(el, view, inner_alias, ctx)
    if not ok or ctx.reporter.has_errors:
        return None
    objects = qir.ObjectSet(el.span, inner_alias, view, True, parts=tuple(parts))
    field = ResultField(el.name, None, False, q_select._fields(inner), True, depth > 0)
    return qir.ShapeComputedLink(el.span, field, objects, tuple(inner), clauses)


def _computed_element(el: ast.ShapeElement, comp, subject: ObjectType, alias: str, ctx: ExprContext,
                      depth: int) -> Optional[qir.Node]:
    """A computed property or link in a shape (https://docs.geldata.com/reference/datamodel/computeds):
    its expression inlined (a property), or its objects as a JSON object / list built by a
    correlated sub-select like a stored link's (a backlink or computed link)."""
    scope = dataclasses.replace(ctx, subject=subject, column_prefix=alias if depth > 0 else None)
    if comp.target is None:
        if el.shape is not None:
            ctx.reporter.error("E0304", f"'{el.name}' is a computed property: it takes no shape", el.span)
            return None
        if _refuse_property_clauses(el, ctx):
            return None
        low = check(ast.Path((el.name,), el.span), scope)
        if low is None:
            return None
        return qir.ShapeComputed(el.span, ResultField(el.name, low.type, low.nullable, in_json=depth > 0), low)
    if depth + 1 > q_select.MAX_SHAPE_DEPTH:
        ctx.reporter.error("E0206", f"shapes nested deeper than {q_select.MAX_SHAPE_DEPTH} levels are not supported", el.span)
        return None
    inner_alias = qi(f"_s{depth + 1}")
    scope.column_prefix = alias
    objects = computed_sql.object_set(comp, scope, inner_alias, el.span)
    if objects is None:
        return None
    inner = _shape(el.shape, objects.source, inner_alias, ctx, depth + 1)
    clause_ctx = ctx
    if comp.backlink is not None and objects.link is not None and objects.link.multi and not objects.forward \
            and not objects.parts and _join_table(objects.link, ctx) is not None:
        # (`order by @since` reads the join row of each object's link to this one)
        clause_ctx = dataclasses.replace(ctx, backlink_row=(comp.backlink, _join_table(objects.link, ctx),
                                                            inner_alias, alias))
    ok, clauses = _shape_clauses(el, objects.source, inner_alias, clause_ctx)
    if not ok:
        return None
    nested = q_select._fields(inner)
    if objects.multi:
        field = ResultField(el.name, None, False, nested, True, depth > 0)
    else:
        field = ResultField(el.name, None, True, nested, False, depth > 0)
    return qir.ShapeComputedLink(el.span, field, objects, tuple(inner), clauses)


def _single_write_selection(q: ast.SelectValue, ctx: ExprContext) -> Optional[ast.SelectDml]:
    """``select (<write>) [{ shape }] limit n`` (``n`` a literal, at least 1) of a write that
    yields at most one object (an insert, or an update or delete whose filter pins one object:
    ``.id`` or a full exclusive constraint), as the same select without the limit; ``None``
    otherwise."""
    if q.filter is not None or q.order or q.offset is not None or not isinstance(q.limit, ast.Literal) \
            or q.limit.kind != "int" or not isinstance(q.limit.value, int) or q.limit.value < 1:
        return None
    base, shape = q.value, None
    if isinstance(base, ast.ShapeExpr):
        base, shape = base.base, base.shape
    if not isinstance(base, ast.StatementExpr):
        return None
    w = base.query
    if isinstance(w, ast.InsertQuery):
        pass
    elif isinstance(w, (ast.UpdateQuery, ast.DeleteQuery)) and w.type_name and w.filter is not None:
        subject = ctx.schema.find_type(w.type_name, ctx.module)
        if subject is None or not q_dml._pins_one_row(w.filter, subject):
            return None
    else:
        return None
    if ctx.schema.find_type(w.type_name, ctx.module) is None:
        return None
    return ast.SelectDml(w, shape, q.span)


def _select_dml(qf: ast.QueryFile, q: ast.SelectDml, subject: ObjectType, ctx: ExprContext) -> Optional[qir.Query]:
    """``select (update ...) { a, b, link: { id } }``: the statement's ``RETURNING`` lists the
    shape. A shape with nested links selects from the written rows instead, as
    ``with p := (update ...) select p { ... }`` does."""
    w = q_dml._write_of(q.body, subject, ctx)
    if w is None:
        return None
    return q_with._write_returning(qf, w, subject, q.shape, q.span, ctx)
