"""Paths: properties, links, backlinks, link properties, computed links, type
tests and tuples' elements (https://docs.geldata.com/reference/edgeql/paths).

Part of the expression checker (:mod:`schemac.semantics.exprs`), split by concern."""

from __future__ import annotations
import dataclasses
from typing import List, Optional, Set, Tuple
from schemac.semantics import computed_sql, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import Reporter, Span, did_you_mean
from schemac.frozen import fast_init_all
from schemac.semantics.lowering import tuple_nullable_leaves
from schemac.semantics.model import (Link, ObjectType, ValueType, abstract_view, link_prop_named, link_prop_names,
                                     single_link_props)
from schemac.semantics.sqlnames import qi
from schemac.semantics.scalars import range_kind
from schemac.semantics import e_funcs, e_types, exprs


def refuse_poly_link(subject: Optional[ObjectType], name: str, span, reporter: Reporter) -> bool:
    """Report a polymorphic link (a link to an abstract type with several concrete subtypes,
    :class:`schemac.semantics.model.PolyLink`) read or written by a query: its storage is compiled, its
    query forms are not yet. ``True`` when ``name`` is one (reported)."""
    pl = subject.poly_links.get(name) if subject is not None else None
    if pl is None:
        return False
    names = ", ".join(t.name for t, _ in pl.targets)
    reporter.error("E0206", f"'{name}' links to abstract type '{pl.abstract.split('::')[-1]}' ({names}): a "
                   "polymorphic link in a query is not supported yet", span,
                   f"query it from a concrete type, e.g. select {pl.targets[0][0].name} filter ...")
    return True


def _computed_link_steps(e) -> Optional[Tuple[str, ...]]:
    """The steps of a computed link that is a path (``.album.artist``, ``(select .album.artist)``
    without shape or clauses), or ``None``."""
    if isinstance(e, ast.StatementExpr):
        e = e.query
    if isinstance(e, ast.SelectExpr) and e.shape is None and e.filter is None and not e.order \
            and e.offset is None and e.limit is None:
        e = e.subject
    if isinstance(e, ast.Path) and all(st.isidentifier() for st in e.steps):
        return tuple(e.steps)
    return None


def _expand_computed_links(steps: Tuple[str, ...], subject: ObjectType) -> Optional[Tuple[str, ...]]:
    """``steps`` with its leading computed links that are paths replaced by their paths
    (``artist.name`` -> ``album.artist.name``), or ``None`` when the first is not one (or they
    refer to each other)."""
    for _ in range(8):
        comp = subject.computeds.get(steps[0])
        inner = _computed_link_steps(comp.expr) if comp is not None and comp.target is not None else None
        if inner is None:
            return steps if subject.computeds.get(steps[0]) is None else None
        steps = inner + steps[1:]
    return None


def _path(expr: ast.Path, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    if expr.steps == ("__subject__",):
        col = ctx.subject_column
        if col is None:
            ctx.reporter.error("E0202", "__subject__ is only valid in a property's constraint", expr.span)
            return None
        return qir.SubjectRef(expr.span, col.type, not col.required, col)
    if ctx.subject is None:
        ctx.reporter.error("E0202", f"'.{'.'.join(expr.steps)}' has no subject here", expr.span)
        return None
    name = expr.steps[0]
    if name == "__type__":
        return _type_name(expr, ctx)
    comp = ctx.subject.computeds.get(name)
    if comp is not None and len(expr.steps) == 1:
        return computed_sql.computed_property(expr, comp, ctx)
    if len(expr.steps) > 1 and name in ctx.subject.poly_links and not ctx.subject.poly_links[name].multi:
        return _link_path(expr, ctx)
    if refuse_poly_link(ctx.subject, name, expr.span, ctx.reporter):
        return None
    link = ctx.subject.links.get(name)
    if link is not None:
        if expr.steps[1:] in ((), ("id",)) and link.column is not None:
            # A single link stands for its target's id (its FK column), the id of an object the
            # query may see (read through the target's access policies when it has some).
            from schemac.semantics import policies

            col = ctx.subject.column(link.column)
            assert col is not None
            return qir.ColumnRef(expr.span, col.type, not col.required, col, ctx.subject, link, ctx.column_prefix,
                                 policies.link_visible(link, ctx.subject, ctx))
        if link.column is not None:
            return _link_path(expr, ctx)
        if len(expr.steps) > 1 and ctx.set_links is not None and ctx.set_row is not None and \
                ctx.set_row == (ctx.subject, ctx.column_prefix or qi(ctx.subject.table)):
            return _set_path(expr, link, ctx)
        if len(expr.steps) == 1:
            ctx.reporter.error("E0206", f"'.{name}' is a multi link, a set of objects: count it, test it with "
                               "exists, or select it in a shape", expr.span, f"e.g. count(.{name}) or exists .{name}")
        else:
            ctx.reporter.error("E0206", f"'.{'.'.join(expr.steps)}': a path through the multi link '{name}' is a "
                               "set; only paths through single links can be used here",
                               expr.span, f"count it or test it: count(.{name}), exists .{name}")
        return None
    if len(expr.steps) > 1 and ctx.subject.column(name) is not None and ctx.subject.column(name).type.fields:
        # `.days.0`, `.pos.x`: elements of a tuple property
        col = ctx.subject.column(name)
        low: qir.Expr = qir.ColumnRef(expr.span, col.type, not col.required, col, ctx.subject, None, ctx.column_prefix)
        for step in expr.steps[1:]:
            low = _tuple_element(low, step, expr.span, ctx)  # type: ignore[assignment]
            if low is None:
                return None
        return low
    if len(expr.steps) > 1 and comp is not None and comp.target is not None and comp.at_most_one \
            and not comp.poly_sources and not comp.broken and comp.refused is None:
        # `.country.size` of a computed link holding at most one object (`single link country :=
        # .<gold[is Country] ?? .<food[is Country]`): the path read from its object, empty when none
        alias = qi(f"_cp{ctx.depth}")
        objects = computed_sql.object_set(comp, ctx, alias, expr.span)
        if objects is None:
            return None
        inner = dataclasses.replace(ctx, subject=comp.target, column_prefix=alias, subject_column=None, variables={},
                                    bound_statements={}, depth=ctx.depth + 1)
        value = exprs.check(ast.Path(expr.steps[1:], expr.span), inner)
        if value is None:
            return None
        return qir.ObjectValue(expr.span, value.type, True, objects, value)
    if len(expr.steps) > 1 and comp is not None and comp.target is not None:
        steps = _expand_computed_links(tuple(expr.steps), ctx.subject)
        if steps is not None:
            # `.artist.name` of `link artist := (select .album.artist)`: the computed link's path
            # in its place, `.album.artist.name` (a computed is its expression evaluated for the
            # object, https://docs.geldata.com/reference/datamodel/computeds)
            return _path(ast.Path(steps, expr.span), ctx)
    if len(expr.steps) > 1 and set_backlink_computed(comp) and ctx.set_links is not None \
            and ctx.set_row == (ctx.subject, ctx.column_prefix or qi(ctx.subject.table)):
        return _set_backlink_steps(dataclasses.replace(comp.expr, span=expr.span), tuple(expr.steps[1:]),  # type: ignore[union-attr]
                                   expr.span, dataclasses.replace(ctx, module=comp.module))  # type: ignore[union-attr]
    if len(expr.steps) > 1:
        ctx.reporter.error("E0206", "path traversal ('.a.b') is only supported as '.link.id'", expr.span)
        return None
    col = ctx.subject.column(name)
    if col is None and name in ctx.subject.refused_pointers:
        return None  # its declaration was refused, and reported
    if col is None:
        code = "E0302" if ctx.params is not None else "E0202"
        ctx.reporter.error(code, f"type '{ctx.subject.name}' has no property '{name}'", expr.span,
                           did_you_mean(name, [c.name for c in ctx.subject.columns if c.link is None and c.link_prop is None]
                                        + list(ctx.subject.links)))
        return None
    return qir.ColumnRef(expr.span, col.type, not col.required, col, ctx.subject, None, ctx.column_prefix)


def _subject_type_check(expr: ast.TypeCheck, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``Ship is Airship`` / ``Ship is not Airship`` of the object a query selects
    (https://docs.geldata.com/reference/stdlib/type#operator::is: whether its type is ``Airship``
    or one of its subtypes), ``Ship`` its type's name or an ancestor's: a concrete type's rows are
    of that type alone (a select of an abstract type reads each concrete type's table on its own),
    so it is a constant of the table being read, as ``.__type__.name`` is. ``None`` for any other
    operand (nothing reported)."""
    subject = ctx.subject
    op = expr.operand
    itself = isinstance(op, ast.Path) and not op.steps
    if subject is None or subject.union_of or subject.from_sql is not None or subject.join_of is not None \
            or not (itself or isinstance(op, ast.VarRef)) or ctx.column_prefix is not None or ctx.outer is not None:
        return None
    keys = ctx.schema.descendant_keys()
    if not itself:
        # (``Path(())``: the selected object itself, a ``with`` name of a union read in the
        # shape of its select, as queries._union_binding_select writes it)
        if op.detached or op.name in ctx.variables or op.name in ctx.type_sets:
            return None
        own = ctx.schema.find(op.name, ctx.module, keys)
        if own is None or subject.qualname not in ctx.schema.descendants.get(own, ()):  # type: ignore[arg-type]
            return None
    target = ctx.schema.find(expr.type.name, ctx.module, keys)
    if target is None:
        ctx.reporter.error("E0301", f"unknown type '{expr.type.name}'", expr.type.span,
                           did_you_mean(expr.type.name.split("::")[-1], [t.name for t in ctx.schema.all_types()]))
        return None
    value = subject.qualname in ctx.schema.descendants.get(target, ())  # type: ignore[arg-type]
    return qir.Literal(expr.span, e_types.BOOL, False, "bool", value != expr.negated)


def _type_name(expr: ast.Path, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``.__type__.name``: the qualified name of the object's type, ``'default::Movie'``
    (https://docs.geldata.com/reference/datamodel/introspection/objects: every object links to
    its ``schema::ObjectType`` through ``__type__``). A concrete type's rows are of that type
    alone (each concrete type has its own table, a subtype's rows are not in it), so the name is
    a constant of the table being read; a computed declared in an abstract type is checked, and
    inlined, for each concrete type that inherits it. Other introspection paths have no storage."""
    subject = ctx.subject
    assert subject is not None
    if expr.steps != ("__type__", "name"):
        ctx.reporter.error("E0206", f"'.{'.'.join(expr.steps)}': of the type introspection link '__type__' only "
                           "'.__type__.name' is supported", expr.span, "read the type's name: .__type__.name")
        return None
    if subject.union_of and ctx.column_prefix is not None:
        # an object of a polymorphic link's abstract target: the subtype whose table holds its
        # id (ids are unique across tables)
        return qir.UnionTypeName(expr.span, e_types.STR, False, ctx.column_prefix, subject.union_of)
    if subject.from_sql is not None or subject.join_of is not None:
        ctx.reporter.error("E0206", "'.__type__.name' of an object of an abstract type (a polymorphic link's "
                           "target) is not supported yet", expr.span,
                           "read it from a concrete type, or select the subtype with [is T]")
        return None
    return qir.Literal(expr.span, e_types.STR, False, "str", subject.qualname)


#: Gel's aggregates of one set (https://docs.geldata.com/reference/stdlib/set): their argument is
#: a scope of its own.
SET_AGGREGATES = ("array_agg", "count", "sum", "min", "max", "math::mean")


def _bound_aggregate(expr: ast.FuncCall, ctx: exprs.ExprContext):
    """``array_agg(.musics.keywords.name)`` in a filter that also reads ``.musics`` element by
    element (``... and .musics.rating >= 4``): Gel factors the common prefix into the filter's
    scope, so the aggregate's ``.musics`` is the linked object at hand, not all of them ("if you
    have two common scopes and only one of them is in a nested scope, the paths are still
    factored", https://docs.geldata.com/reference/edgeql/path_resolution): the aggregate of the
    rest of the path, ``array_agg(.keywords.name)``, over the object the filter's ``EXISTS``
    reads. The argument may be the path, ``(select <path>)`` or ``distinct <path>``. ``None``
    when the call is not such an aggregate; ``False`` after an error."""
    name = expr.name.replace("std::", "")
    if name not in SET_AGGREGATES or len(expr.args) != 1:
        return None
    arg = expr.args[0]
    inner_arg, wrap = arg, None
    if isinstance(inner_arg, ast.UnaryOp) and inner_arg.op == "distinct":
        inner_arg, wrap = inner_arg.operand, inner_arg
    if isinstance(inner_arg, ast.SelectExpr) and inner_arg.shape is None and inner_arg.filter is None \
            and not inner_arg.order and inner_arg.offset is None and inner_arg.limit is None:
        inner_arg = inner_arg.subject
    if not isinstance(inner_arg, ast.Path) or inner_arg.steps[0] not in ctx.set_bound:
        if any(isinstance(n, ast.Path) and n.steps[0] in ctx.set_bound for n in ast.iter_nodes(arg)):
            ctx.reporter.error("E0206", f"{name}() of this expression of '.{next(iter(sorted(ctx.set_bound)))}', which "
                               "the filter also reads element by element, is not supported yet", arg.span,
                               f"aggregate a path: {name}(.link.property)")
            return False
        return None
    if len(inner_arg.steps) == 1:
        ctx.reporter.error("E0206", f"{name}(.{inner_arg.steps[0]}) in a filter that reads '.{inner_arg.steps[0]}' "
                           "element by element (one linked object at a time) is not supported yet", arg.span)
        return False
    inner = _set_scope(inner_arg.steps[0], inner_arg.span, ctx)
    if inner is None:
        return False
    rest: ast.Expr = ast.Path(inner_arg.steps[1:], inner_arg.span)
    if wrap is not None:
        rest = dataclasses.replace(wrap, operand=rest)
    low = e_funcs._func(dataclasses.replace(expr, args=(rest,)), inner)
    return low if low is not None else False


def _set_scope(step: str, span: Span, ctx: exprs.ExprContext) -> Optional[exprs.ExprContext]:
    """The scope of one object of the multi link (or computed backlink) ``step`` of a filter's
    subject, as :func:`_set_path` reads it (the same object for every use in the filter)."""
    from schemac.semantics import policies

    assert ctx.set_links is not None and ctx.set_row is not None and ctx.subject is not None
    link = ctx.subject.links.get(step)
    if link is None:
        comp = ctx.subject.computeds[step]
        back = comp.expr
        assert isinstance(back, ast.Backlink)
        found = _set_backlink_link(back, span, ctx, dataclasses.replace(ctx, module=comp.module))
        if found is None:
            return None
        source, s = found
        return dataclasses.replace(ctx, subject=source, column_prefix=s.alias, set_links=None,  # type: ignore[attr-defined]
                                   set_row=None, set_bound=frozenset())
    s = ctx.set_links.get(link.name)
    if s is None:
        alias = qi(f"_m{len(ctx.set_links) + 1}")
        s = qir.SetLink(link, alias, ctx.set_row[1], policies.read_predicate(link.target, ctx, alias))
        ctx.set_links[link.name] = s
    return dataclasses.replace(ctx, subject=link.target, column_prefix=s.alias, set_links=None,  # type: ignore[attr-defined]
                               set_row=None, set_bound=frozenset())


def _set_path(expr: ast.Path, link, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``.tags.name`` in a query's filter: the path from one linked object (each use of the
    same multi link in the filter is the same object, as Gel factors common path prefixes:
    https://docs.geldata.com/reference/edgeql/paths); the filter becomes an ``EXISTS`` over the
    links (:class:`schemac.semantics.qir.SetFilter`)."""
    from schemac.semantics import policies

    assert ctx.set_links is not None and ctx.set_row is not None
    s = ctx.set_links.get(link.name)
    if s is None:
        alias = qi(f"_m{len(ctx.set_links) + 1}")
        s = qir.SetLink(link, alias, ctx.set_row[1], policies.read_predicate(link.target, ctx, alias))
        ctx.set_links[link.name] = s
    inner = dataclasses.replace(ctx, subject=link.target, column_prefix=s.alias, set_links=None,  # type: ignore[attr-defined]
                                set_row=None)
    return exprs.check(ast.Path(expr.steps[1:], expr.span), inner)


def _set_backlink(expr: ast.Step, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``.<user[is Identity].provider`` in a query's filter: the property of one object whose link
    points at the subject (https://docs.geldata.com/reference/datamodel/links#backlinks); as for a
    path through a multi link (:func:`_set_path`) the filter becomes an ``EXISTS`` over those
    objects, true when it holds for at least one of them."""
    assert ctx.set_links is not None and ctx.set_row is not None and ctx.subject is not None
    back = expr.base
    assert isinstance(back, ast.Backlink)
    return _set_backlink_steps(back, (expr.name,), expr.span, ctx)


def _set_backlink_link(back: ast.Backlink, span: Span, ctx: exprs.ExprContext,
                       source_ctx: exprs.ExprContext) -> Optional[Tuple[ObjectType, "qir.SetLink"]]:
    """The type whose link ``back`` points at the filter's subject (resolved in ``source_ctx``:
    a computed backlink's own module) and the one object of it a filter reads
    (``ctx.set_links``, keyed by the backlink: every use of it in the filter reads the same
    object); ``None`` after reporting (a polymorphic link is E0206)."""
    from schemac.semantics import policies

    source = computed_sql._backlink_source(back, source_ctx)
    if source is None:
        return None
    link = computed_sql.backlink_link(source, back.link, ctx.subject)
    if link is None or link.columns:
        ctx.reporter.error("E0206", f"'.<{back.link}' through a polymorphic link in a filter is not supported yet",
                           span)
        return None
    key = f".<{back.link}[is {source.qualname}]"
    s = ctx.set_links.get(key)
    if s is None:
        alias = qi(f"_m{len(ctx.set_links) + 1}")
        s = qir.SetLink(link, alias, ctx.set_row[1], policies.read_predicate(source, ctx, alias), source)
        ctx.set_links[key] = s
    return source, s


def set_backlink_computed(comp) -> bool:
    """A computed link that is a backlink, ``multi link posts := .<tags[is Post]``: its paths
    (``.posts.title``) are sets as a backlink's are (:func:`_set_backlink`)."""
    return comp is not None and comp.target is not None and isinstance(comp.expr, ast.Backlink) \
        and comp.filter is None and not comp.poly_sources and not comp.broken and comp.refused is None


def _set_backlink_steps(back: ast.Backlink, steps: Tuple[str, ...], span: Span,
                        ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """The path ``steps`` from one object whose link ``back`` points at the subject, in a filter
    read one such object at a time (:func:`_set_backlink`); ``.posts.album.title`` of a computed
    backlink ``posts := .<tags[is Post]`` is ``.<tags[is Post].album.title``
    (https://docs.geldata.com/reference/datamodel/computeds: a computed is its expression
    evaluated for the object). Uses of the same backlink in the filter read the same object."""
    found = _set_backlink_link(back, back.span, ctx, ctx)
    if found is None:
        return None
    source, s = found
    inner = dataclasses.replace(ctx, subject=source, column_prefix=s.alias, set_links=None,  # type: ignore[attr-defined]
                                set_row=None)
    return exprs.check(ast.Path(steps, span), inner)


def _link_path(expr: ast.Path, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``.author.name`` / ``.author.org.name``: a property reached through single links
    (https://docs.geldata.com/reference/edgeql/paths), read by a correlated sub-select joining
    the linked rows (each only when the target's access policies let the query see it); empty
    when any link on the way is empty."""
    obj = ctx.subject
    assert obj is not None
    hops = []
    optional = False
    steps = expr.steps
    for i, step in enumerate(steps[:-1]):
        link = obj.links.get(step)  # type: ignore[union-attr]
        pl = obj.poly_links.get(step) if link is None else None  # type: ignore[union-attr]
        if pl is not None and not pl.multi and not any(t.policies for t, _ in pl.targets):
            # a polymorphic single link: through its abstract type's common properties
            link = Link(pl.name, abstract_view(pl), False, pl.required, None, None, tuple(c for _, c in pl.targets))
        elif link is None and refuse_poly_link(obj, step, expr.span, ctx.reporter):
            return None
        if link is not None and link.columns:
            optional = optional or not link.required
            hops.append(link)
            obj = link.target
            continue
        if link is None or link.column is None:
            what = "a multi link" if link is not None else "not a link"
            ctx.reporter.error("E0206" if link is not None else "E0302",
                               f"'.{'.'.join(steps)}': '{step}' of '{obj.name}' is {what}", expr.span,  # type: ignore[union-attr]
                               "paths go through single links only" if link is not None else
                               did_you_mean(step, list(obj.links)))  # type: ignore[union-attr]
            return None
        optional = optional or not link.required
        hops.append(link)
        obj = link.target
    last = steps[-1]
    col = obj.column(last)  # type: ignore[union-attr]
    if col is None and last in obj.computeds and obj.computeds[last].target is None:  # type: ignore[union-attr]
        return _computed_through_link(expr, ctx)
    end = obj.links.get(last)  # type: ignore[union-attr]
    if end is not None and end.column is not None:
        # `.chat.owner`: a path ending in a single link is its object, compared by id
        # (https://docs.geldata.com/reference/edgeql/paths): the link's FK column, or, when the
        # target has access policies, its id read through them (an object the query cannot
        # see is empty).
        from schemac.semantics import policies

        if policies.applies(end.target, ctx):
            return _link_path(ast.Path(steps + ("id",), expr.span), ctx)
        col = obj.column(end.column)  # type: ignore[union-attr]
    elif col is None or col.link is not None:
        if last in obj.computeds or last in obj.links:  # type: ignore[union-attr]
            ctx.reporter.error("E0206", f"'.{'.'.join(steps)}': '{last}' is a link or computed; a path may end in a "
                               "stored property only", expr.span)
        else:
            ctx.reporter.error("E0302", f"type '{obj.name}' has no property '{last}'", expr.span,  # type: ignore[union-attr]
                               did_you_mean(last, [c.name for c in obj.columns if c.link is None and c.link_prop is None]))  # type: ignore[union-attr]
        return None
    from schemac.semantics import policies

    sources = [ctx.subject] + [h.target for h in hops[:-1]]
    visible = tuple(policies.required_link_visible(policies.read_predicate(link.target, ctx, qi(f"_l{i}")), link,
                                                   src, qi(f"_l{i}"))  # type: ignore[arg-type]
                    for i, (link, src) in enumerate(zip(hops, sources), 1))
    row = ctx.column_prefix or qi(ctx.subject.table)  # type: ignore[union-attr]
    first_cte = None
    if hops and steps[0] in ctx.written_from:
        # (the objects the statement wrote are not in the table for the statement itself)
        first_cte = ctx.written_from[steps[0]]
        if first_cte is None:
            ctx.reporter.error("E0206", f"'.{'.'.join(steps)}' reads the link '{steps[0]}' that the same statement "
                               "writes: not supported yet", expr.span,
                               "its new objects are not visible to the statement; select them in a second query")
            return None
    return qir.LinkPath(expr.span, col.type, optional or not col.required, tuple(hops), col, row, visible, first_cte)


def _set_link_prop(expr: ast.Step, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``.tags@rank`` in a filter (or ``any()``) that reads the paths through ``tags`` one linked
    object at a time (:func:`_set_path`): the link property of that link, its join row's column
    (https://docs.geldata.com/reference/datamodel/linkprops)."""
    from schemac.semantics import policies

    assert ctx.set_links is not None and ctx.set_row is not None
    link = ctx.subject.links[expr.base.steps[0]]  # type: ignore[union-attr, attr-defined]
    table = ctx.schema.join_table(link.join_table)
    col = table.column(expr.name) if table is not None else None
    if col is None or col.name in ("source_id", "target_id"):
        ctx.reporter.error("E0302", f"link '{link.name}' has no link property '{expr.name}'", expr.span)
        return None
    s = ctx.set_links.get(link.name)
    if s is None:
        alias = qi(f"_m{len(ctx.set_links) + 1}")
        s = qir.SetLink(link, alias, ctx.set_row[1], policies.read_predicate(link.target, ctx, alias))
        ctx.set_links[link.name] = s
    join = s.alias.strip('"') + "j"  # type: ignore[attr-defined]
    return qir.RowField(expr.span, col.type, not col.required, join, col.name)


def _single_link_prop(expr: ast.Step, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``.owner@note``: the link property ``note`` of the single link ``owner``
    (https://docs.geldata.com/reference/datamodel/linkprops), its ``owner@note`` column of the
    subject's row (:func:`schemac.semantics.model.single_link_props`); empty when the link is.
    Refused (E0206) when the link's target has access policies (the property of a hidden
    object is empty in Gel)."""
    from schemac.semantics import policies

    subject = ctx.subject
    link = subject.links[expr.base.steps[0]]  # type: ignore[union-attr, attr-defined]
    lp_type = single_link_props(subject, link.name)  # type: ignore[arg-type]
    col = link_prop_named(lp_type, expr.name) if lp_type is not None else None
    if col is None:
        names = link_prop_names(lp_type) if lp_type is not None else []
        ctx.reporter.error("E0302", f"link '{link.name}' has no link property '{expr.name}'", expr.span,
                           did_you_mean(expr.name, names) or (f"its link properties: {', '.join(names)}" if names
                                                              else f"'{link.name}' declares no link properties"))
        return None
    if policies.read_predicate(link.target, ctx, '"_t"') is not None:
        ctx.reporter.error("E0206", f"'.{link.name}@{expr.name}' of a link to {link.target.name}, which has access "
                           "policies, is not supported yet", expr.span)
        return None
    return qir.ColumnRef(expr.span, col.type, True, col, subject, None, ctx.column_prefix)


def _link_prop_values(expr: ast.Step, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``.folders@path``: the link property ``path`` of each of the object's ``folders`` links
    (https://docs.geldata.com/reference/datamodel/linkprops), a set of values, which schemac
    gives as an array as it does a multi property: ``ARRAY(SELECT j."path" FROM <join table> AS j
    WHERE j."source_id" = <row>."id" AND j."path" IS NOT NULL)`` (an empty link property is no
    value of the set; the links to objects the target's access policies hide are left out, as
    Gel hides them). ``[]`` when there is none."""
    from schemac.semantics import policies

    subject = ctx.subject
    link = subject.links[expr.base.steps[0]]  # type: ignore[union-attr, attr-defined]
    table = ctx.schema.join_table(link.join_table)
    col = table.column(expr.name) if table is not None else None
    if col is None or col.name in ("source_id", "target_id"):
        ctx.reporter.error("E0302", f"link '{link.name}' has no link property '{expr.name}'", expr.span,
                           did_you_mean(expr.name, [c.name for c in table.columns
                                                    if c.name not in ("source_id", "target_id")] if table else []))
        return None
    if col.type.element is not None:
        ctx.reporter.error("E0206", f"'@{expr.name}' of several links is a set of arrays, which is not supported",
                           expr.span)
        return None
    j, t = f"_lj{ctx.depth}", f"_lt{ctx.depth}"
    row = ctx.column_prefix or qi(subject.table)  # type: ignore[union-attr]
    visible = policies.read_predicate(link.target, ctx, qi(t))
    return qir.LinkPropValues(expr.span, ValueType(element=col.type), False, link, col, row, j, t, visible)


def _tuple_lit(expr, ctx: exprs.ExprContext, expected: ValueType) -> Optional[qir.Expr]:
    """``(true, false)`` / ``(x := 1.5, y := 2)`` where a tuple type is expected (a tuple
    property's value, an element of an array of tuples): ``CAST(ROW(a, b) AS "tuple_...")``, each
    element checked against its element type (a named tuple's by name, in any order, as Gel
    matches them); empty when an element is (https://docs.geldata.com/reference/stdlib/tuple)."""
    fields = expected.fields or ()
    if isinstance(expr, ast.NamedTuple):
        given = dict(expr.items)
        names = [n for n, _ in fields]
        if any(n is None for n in names) or set(given) != set(names) or len(given) != len(expr.items):
            ctx.reporter.error("E0304", f"this named tuple does not match {expected.name}", expr.span,
                               "name each element of the type once")
            return None
        items = [given[n] for n in names]  # type: ignore[index]
    else:
        items = list(expr.items)
        if len(items) != len(fields):
            ctx.reporter.error("E0304", f"a tuple of {len(items)} elements is not a {expected.name}", expr.span)
            return None
    lows = []
    for item, (_, ftype) in zip(items, fields):
        low = exprs.check(item, ctx, ftype)
        if low is None:
            return None
        if low.type.family != ftype.family and not (ftype.family == "num" and low.type.family == "num"):
            ctx.reporter.error("E0304", f"this element is {low.type.name}, the tuple's is {ftype.name}", item.span)
            return None
        lows.append(low)
    return qir.Call(expr.span, expected, any(low.nullable for low in lows), "tuple", tuple(lows))


def _tuple_syntax(expr) -> bool:
    """A tuple literal, or an element of one (``(1, (a := 2)).1``): its steps by name are its
    elements (``(a := 1).a``), not paths."""
    if isinstance(expr, (ast.Tuple_, ast.NamedTuple)):
        return True
    return isinstance(expr, ast.Step) and expr.kind == "." and _tuple_syntax(expr.base)


def json_element_refusal(vtype: ValueType) -> Optional[str]:
    """Why a value of ``vtype`` cannot be an element of a selected tuple (which travels as JSON,
    decoded by node-postgres and by Go's encoding/json), or ``None`` when it can."""
    from schemac.semantics.scalars import NOT_IN_JSON
    from schemac.semantics.extensions import is_vector
    from schemac.semantics.lowering import JSON_SPELLING

    if vtype.fields is not None:
        return next((why for _, t in vtype.fields if (why := json_element_refusal(t)) is not None), None)
    elem = vtype.element if vtype.element is not None else vtype
    if elem.fields is not None:
        return f"an array of tuples ({vtype.name})"
    if elem.scalar is not None and (elem.scalar.name in NOT_IN_JSON or range_kind(elem.scalar)
                                    or is_vector(elem.scalar)
                                    or (vtype.element is not None and elem.scalar.name in JSON_SPELLING
                                        and elem.scalar.name not in ("int64", "bigint", "decimal"))):
        return f"a {vtype.name} value"
    return None


def _free_tuple(expr, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``(1, 'x')`` / ``(a := 1, b := 'x')`` as a value of the query
    (https://docs.geldata.com/reference/stdlib/tuple): a :class:`qir.TupleValue` of its checked
    elements, typed ``tuple<int64, str>`` / ``tuple<a: int64, b: str>``, empty when an element
    may be (Gel's tuple of sets is their product). Elements are scalars, enums, arrays of them,
    or tuples; a tuple is selected or read by its elements (see :func:`_tuple_element`)."""
    if isinstance(expr, ast.NamedTuple):
        names: List[Optional[str]] = [n for n, _ in expr.items]
        items = [v for _, v in expr.items]
        seen: Set[str] = set()
        for n, v in expr.items:
            if n in seen:
                ctx.reporter.error("E0200", f"the named tuple names '{n}' twice", v.span)
                return None
            seen.add(n)
    else:
        names, items = [None] * len(expr.items), list(expr.items)
    lows: List[qir.Expr] = []
    for item in items:
        low = exprs.check(item, ctx)
        if low is None:
            return None
        why = json_element_refusal(low.type)
        if why is not None:
            ctx.reporter.error("E0206", f"{why} inside a tuple is not supported yet", item.span,
                               "a selected tuple travels as JSON; select the element on its own")
            return None
        if type(low) is qir.Literal and low.type.family == "num":
            # (a literal 1 is an int64, 1.5 a float64: Postgres' integer and numeric otherwise)
            low = qir.Call(low.span, low.type, False, "typed_literal", (low,))
        lows.append(low)
    vtype = ValueType(fields=tuple((n, low.type) for n, low in zip(names, lows)))
    return qir.TupleValue(expr.span, vtype, any(low.nullable for low in lows), tuple(lows))


def selected_tuple(low: qir.Expr) -> qir.Expr:
    """A tuple property's value read whole (``.days``, ``.nest.b``; a Postgres
    composite value), to be selected: the :class:`qir.TupleValue` of its elements, each the
    composite's attribute, ``(days)."f0"`` (so it is selected as the JSON of any tuple); any other
    expression as it is."""
    if not low.type.fields or not _tuple_column(low):
        return low
    elements = []
    for i, (_, t) in enumerate(low.type.fields):
        elem = qir.Call(low.span, t, low.nullable, "tuple_element", (low,), (i,))
        elements.append(selected_tuple(elem))
    return qir.TupleValue(low.span, low.type, low.nullable, tuple(elements))


def _tuple_column(low: qir.Expr) -> bool:
    """A tuple property (a column), or an element tuple of one (``.nest.b``)."""
    while type(low) is qir.Call and low.func == "tuple_element":  # type: ignore[attr-defined]
        low = low.args[0]  # type: ignore[attr-defined]
    return type(low) is qir.ColumnRef


def _loop_element(expr: ast.Step, var: qir.LoopVar, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``x.0`` / ``x.name`` of a tuple loop variable held as one column per element
    (:attr:`schemac.semantics.qir.LoopVar.elements`): that column of the loop's row."""
    fields = var.type.fields or ()
    names = [n for n, _ in fields]
    if expr.name.isdigit():
        i = int(expr.name)
        if i >= len(fields):
            ctx.reporter.error("E0302", f"{var.type.name} has no element {i} (it has {len(fields)})", expr.span)
            return None
    elif expr.name in names:
        i = names.index(expr.name)
    else:
        ctx.reporter.error("E0302", f"{var.type.name} has no element '{expr.name}'", expr.span,
                           did_you_mean(expr.name, [n for n in names if n is not None]))
        return None
    elem = qir.LoopVar(f"{var.name}.{expr.name}", fields[i][1], var.elements[i], var.row)  # type: ignore[index]
    return qir.VarRef(expr.span, elem.type, False, elem.name, elem)


def _tuple_element(base: qir.Expr, step: str, span: Span, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``t.0`` / ``t.name`` (https://docs.geldata.com/reference/stdlib/tuple#operator::tupleidx):
    an element of a tuple value, by position (0-based) or, in a named tuple, by name: the
    composite type's attribute, ``(t)."f0"`` / ``(t)."name"``; empty when the tuple is."""
    fields = base.type.fields
    if not fields:
        ctx.reporter.error("E0304", f"'.{step}' of a {base.type.name}: only a tuple has elements here", span)
        return None
    if step.isdigit():
        i = int(step)
        if i >= len(fields):
            ctx.reporter.error("E0302", f"{base.type.name} has no element {i} (it has {len(fields)})", span)
            return None
    else:
        names = [n for n, _ in fields]
        if step not in names:
            ctx.reporter.error("E0302", f"{base.type.name} has no element '{step}'", span,
                               did_you_mean(step, [n for n in names if n is not None]))
            return None
        i = names.index(step)
    elem = fields[i][1]
    if type(base) is qir.TupleValue:
        # an element of a tuple written in the query: that element, empty when the tuple is
        # (when another element is empty)
        value = base.elements[i]  # type: ignore[attr-defined]
        others = [leaf for j, e in enumerate(base.elements) if j != i  # type: ignore[attr-defined]
                  for leaf in tuple_nullable_leaves(e)]
        if not others:
            return value
        return qir.Call(span, elem, True, "tuple_element_of", (value, *others))
    return qir.Call(span, elem, base.nullable, "tuple_element", (base,), (i,))


def _computed_through_link(expr: ast.Path, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``.album.title``: a computed property of the object a single link reaches
    (https://docs.geldata.com/reference/datamodel/computeds): the rest of the path read from
    the linked row, ``(SELECT <.title of "_lp2"> FROM "album" AS "_lp2" WHERE "_lp2"."id" =
    <row>."album_id")`` (each hop a sub-select of its own, with the target's access policies);
    empty when the link is."""
    from schemac.semantics import policies

    subject = ctx.subject
    link = subject.links[expr.steps[0]]  # type: ignore[union-attr]
    alias = qi(f"_lp{len(expr.steps)}_{ctx.depth}")
    fk = subject.column(link.column)  # type: ignore[union-attr, arg-type]
    inner = dataclasses.replace(ctx, subject=link.target, column_prefix=alias, subject_column=None,
                                set_links=None, set_row=None)
    value = exprs.check(ast.Path(expr.steps[1:], expr.span), inner)
    if value is None or fk is None:
        return None
    id_col = link.target.column("id")
    cond = qir.Binary(expr.span, e_types.BOOL, False, "=",
                      qir.ColumnRef(expr.span, id_col.type, False, id_col, link.target, None, alias),
                      qir.ColumnRef(expr.span, fk.type, not fk.required, fk, subject, None,
                                    ctx.column_prefix or qi(subject.table)))  # type: ignore[union-attr]
    return qir.ObjectRow(expr.span, value.type, True, link.target, alias, value, cond,
                         policies.read_predicate(link.target, ctx, alias))
