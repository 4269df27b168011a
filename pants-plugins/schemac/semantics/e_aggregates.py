"""``count`` and the set forms it takes
(https://docs.geldata.com/reference/stdlib/set#function::std::count).

Part of the expression checker (:mod:`schemac.semantics.exprs`), split by concern."""

from __future__ import annotations
import dataclasses
from typing import Optional
from schemac.semantics import computed_sql, qir
from schemac.syntax import tree as ast
from schemac.frozen import fast_init_all
from schemac.semantics.model import Link
from schemac.semantics.sqlnames import qi
from schemac.semantics import e_objects, e_params, e_paths, e_types, exprs


def _count(expr: ast.FuncCall, ctx: exprs.ExprContext) -> Optional[qir.Expr]:
    """``count(.multi_link)``: the number of its links; ``count(.tags)`` of a multi property: the
    number of its values; of one value (an optional property, an ``array<T>`` property, a
    parameter): 1, or 0 when it is empty; ``count`` of a backlink or computed link:
    the number of its objects; ``count(User)`` / ``count((select User filter ...))``: the number
    of objects of the type (https://docs.geldata.com/reference/stdlib/set#function::std::count)."""
    if len(expr.args) == 1 and isinstance(expr.args[0], ast.VarRef) and expr.args[0].name in ctx.bound_writes \
            and expr.args[0].name not in ctx.variables:
        # `count(p)` of a write bound in `with` (or of `count((delete ...))` in a free object):
        # the number of objects it wrote, the rows of its CTE.
        name = expr.args[0].name
        w = ctx.bound_writes[name]
        objects = qir.ObjectSet(expr.span, qi(f"_c{ctx.depth}"), w.subject, True,  # type: ignore[attr-defined]
                                cte=f"_with_{name}")
        return qir.CountObjects(expr.span, e_types.INT64, False, objects)
    arg0 = expr.args[0] if len(expr.args) == 1 else None
    if isinstance(arg0, ast.VarRef) and arg0.name in ctx.free_rows and arg0.name not in ctx.variables:
        # `count(s)` of free objects of a `for` loop
        rows = ctx.free_rows[arg0.name]
        return qir.Call(expr.span, e_types.INT64, False, "count/free_rows",
                        (qir.FreeRowsAggregate(expr.span, e_types.INT64, False, "count", rows, None),))
    if arg0 is not None and e_params.elementwise_loop(arg0, ctx) is not None:
        # `count(S.data['k'])`: the objects of S whose value is not empty
        rows = e_params.for_rows(e_params.elementwise_loop(arg0, ctx), ctx)
        return None if rows is None else qir.CountRows(expr.span, e_types.INT64, False, rows)
    if isinstance(arg0, ast.VarRef) and arg0.name in ctx.row_sets and arg0.name not in ctx.variables \
            or arg0 is not None and e_params.is_for_rows(arg0, ctx):
        # `count(s)` of `with s := (for x in S union ...)`: the number of its values
        rows = e_params.for_rows(ctx.row_sets[arg0.name] if isinstance(arg0, ast.VarRef) else arg0, ctx)
        return None if rows is None else qir.CountRows(expr.span, e_types.INT64, False, rows)
    if len(expr.args) == 1 and _distinct_objects(expr.args[0], ctx) is not None:
        expr = dataclasses.replace(expr, args=(_distinct_objects(expr.args[0], ctx),))
    if len(expr.args) == 1 and computed_sql.type_set_of(expr.args[0], ctx) is not None:
        objects = computed_sql.type_set(expr.args[0], ctx, qi(f"_c{ctx.depth}"))
        return None if objects is None else qir.CountObjects(expr.span, e_types.INT64, False, objects)
    if len(expr.args) == 1 and e_objects._set_operand(expr.args[0], ctx) is not None:
        inner, scope = e_objects._set_operand(expr.args[0], ctx)  # type: ignore[misc]
        return e_objects._set_function(inner, scope, False)
    if len(expr.args) == 1 and _query_set_operand(expr.args[0], ctx):
        # `count(rolls)` of a paged selection, `count(rolls.received)`, `count((select rolls
        # filter ...))`: the (distinct) objects of a set of the query's names
        objects = computed_sql.query_set(expr.args[0], ctx, qi(f"_c{ctx.depth}"))
        return None if objects is None else qir.CountObjects(expr.span, e_types.INT64, False, objects)
    if len(expr.args) == 1 and computed_sql.query_value_target(expr.args[0], ctx):
        # `count(rolls.reason)`: the values (each object's, when it has one)
        found = computed_sql._object_path(expr.args[0], ctx, f"_c{ctx.depth}")
        if not found:
            return None
        objects, rest = found
        inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                    set_links=None, set_row=None)
        value = exprs.check(ast.Path(tuple(rest), expr.args[0].span), inner)
        if value is None:
            return None
        if value.type.element is not None:
            ctx.reporter.error("E0206", "count() of a multi property of several objects is not supported yet",
                               expr.args[0].span)
            return None
        return qir.AggregateObjects(expr.span, e_types.INT64, False, "count", objects, value)
    if len(expr.args) == 1 and computed_sql.is_set_operand(expr.args[0], ctx):
        objects = computed_sql.expr_object_set(expr.args[0], ctx, qi(f"_c{ctx.depth}"), expr.args[0].span)
        return None if objects is None else qir.CountObjects(expr.span, e_types.INT64, False, objects)
    if len(expr.args) == 1 and computed_sql.link_set_of(expr.args[0], ctx) is not None:
        objects = computed_sql.object_set_of(expr.args[0], ctx, f"_c{ctx.depth}")
        return None if objects is None else qir.CountObjects(expr.span, e_types.INT64, False, objects)
    if len(expr.args) == 1 and isinstance(expr.args[0], ast.Path) and len(expr.args[0].steps) >= 2 \
            and ctx.subject is not None:
        counted = _count_path_values(expr, expr.args[0], ctx)
        if counted is not False:
            return counted
    if len(expr.args) == 1 and _count_form_refused(expr.args[0], ctx):
        return None
    if len(expr.args) == 1 and (isinstance(expr.args[0], (ast.Cast, ast.Param, ast.Literal)) or (
            isinstance(expr.args[0], ast.VarRef) and isinstance(ctx.variables.get(expr.args[0].name), qir.WithValue))):
        # `count(<optional str>$x)`, `count(t)` of `with t := <str>$t`: one value, 1 or 0 when empty
        low = exprs.check(expr.args[0], ctx)
        if low is None:
            return None
        return qir.Call(expr.span, e_types.INT64, False, "count/one", (low,))
    if len(expr.args) != 1 or not isinstance(expr.args[0], ast.Path) or len(expr.args[0].steps) != 1:
        ctx.reporter.error("E0304", "count() takes one property or link of the subject, e.g. count(.tags)", expr.span)
        return None
    name = expr.args[0].steps[0]
    pl = ctx.subject.poly_links.get(name) if ctx.subject is not None else None
    if pl is not None and pl.multi and ctx.subject is not None:
        # a polymorphic multi link: its join rows, whatever their target's type
        from schemac.semantics import policies

        link = Link(pl.name, pl.targets[0][0], True, pl.required, None, pl.join_table)
        return qir.CountLink(expr.span, e_types.INT64, False, ctx.subject, link, ctx.column_prefix or qi(ctx.subject.table),
                             policies.join_row_visible(link, ctx, poly=pl))
    if e_paths.refuse_poly_link(ctx.subject, name, expr.span, ctx.reporter):
        return None
    link = ctx.subject.links.get(name) if ctx.subject is not None else None
    if link is not None and link.multi and ctx.subject is not None:
        from schemac.semantics import policies

        return qir.CountLink(expr.span, e_types.INT64, False, ctx.subject, link, ctx.column_prefix or qi(ctx.subject.table),
                             policies.join_row_visible(link, ctx))
    arg = exprs.check(expr.args[0], ctx)
    if arg is None:
        return None
    if arg.type.element is None or (type(arg) is qir.ColumnRef and not arg.column.multi):  # type: ignore[attr-defined]
        # one value (`count(.nick)`, `count(<optional str>$x)`, an array<T> property: one array):
        # a set of at most one element, 1 when it is there, 0 when empty
        return qir.Call(expr.span, e_types.INT64, False, "count/one", (arg,))
    return qir.Call(expr.span, e_types.INT64, False, "count_array", (arg,))


def _query_set_operand(arg, ctx: exprs.ExprContext) -> bool:
    """``arg`` is a set of objects of the query's names (:func:`computed_sql.query_set`) that
    the simpler forms (``count(User)``, ``count(u)`` of a filtered ``with`` selection) do not
    read: a path from a ``with`` name or a type, a paged selection, a sub-select of one."""
    while isinstance(arg, ast.SelectExpr) and arg.shape is None and arg.filter is None and not arg.order \
            and arg.offset is None and arg.limit is None:
        arg = arg.subject
    if computed_sql.type_set_of(arg, ctx) is not None and not isinstance(arg, ast.VarRef):
        return False
    if isinstance(arg, ast.VarRef) and arg.name not in ctx.type_sets:
        return False  # (a type, a value: the forms below)
    if isinstance(arg, ast.VarRef) and computed_sql.type_set_of(arg, ctx) is not None:
        return False
    if isinstance(arg, ast.EnumRef) and arg.enum not in ctx.type_sets and arg.enum not in ctx.variables:
        return False  # (Type.link: count()'s own refusal)
    return computed_sql.query_set_target(arg, ctx) is not None


def _count_path_values(expr: ast.FuncCall, arg: ast.Path, ctx: exprs.ExprContext):
    """``count(.keywords.name)``: the number of values of a property over the distinct objects a
    path through a multi link (or a computed link) reaches, those without a value not counted
    (Gel's set ``.keywords.name``, https://docs.geldata.com/reference/stdlib/set#function::std::count):
    ``(SELECT count(name) FROM <the objects>)``. ``False`` when ``arg`` is not such a path."""
    found = computed_sql._object_path(arg, ctx, f"_c{ctx.depth}")
    if found is None:
        return False
    if found is False:
        return None
    objects, rest = found
    source = objects.source
    comp = source.computeds.get(rest[0]) if len(rest) == 1 else None
    col = source.column(rest[0]) if len(rest) == 1 else None
    if not ((col is not None and col.link is None and rest[0] not in source.links)
            or (comp is not None and comp.target is None)):
        return False
    inner = dataclasses.replace(ctx, subject=source, column_prefix=objects.alias, subject_column=None,
                                variables={}, bound_statements={}, set_links=None, set_row=None)
    value = exprs.check(ast.Path(tuple(rest), arg.span), inner)
    if value is None:
        return None
    if value.type.element is not None:
        ctx.reporter.error("E0206", "count() of a multi property of several objects is not supported yet", arg.span)
        return None
    return qir.AggregateObjects(expr.span, e_types.INT64, False, "count", objects, value)


def _distinct_objects(arg, ctx: exprs.ExprContext):
    """``distinct S`` / ``(select distinct S filter f)`` of a set of objects of the query's names
    (:func:`_query_set_operand`: a path from a ``with`` name, ``res.<messages[is Thread]``) as
    ``S`` / ``(select S filter f)``: such a set holds each object once (a path's objects are
    distinct in Gel, https://docs.geldata.com/reference/edgeql/paths), so ``distinct``
    (https://docs.geldata.com/reference/stdlib/set#operator::distinct) changes nothing;
    ``None`` for any other expression."""
    if isinstance(arg, ast.UnaryOp) and arg.op == "distinct":
        return arg.operand if _query_set_operand(arg.operand, ctx) else None
    if isinstance(arg, ast.SelectExpr) and arg.shape is None and isinstance(arg.subject, ast.UnaryOp) \
            and arg.subject.op == "distinct":
        inner = dataclasses.replace(arg, subject=arg.subject.operand)
        return inner if _query_set_operand(inner, ctx) else None
    return None


def _count_form_refused(arg, ctx: exprs.ExprContext) -> bool:
    """Valid Gel that ``count()`` does not lower yet gets a located E0206 naming the form
    (https://docs.geldata.com/reference/stdlib/set#function::std::count): a path from a type
    (``count(Person.friends)``, the distinct objects its links reach) and a selection with
    ``order by`` / ``offset`` / ``limit`` (``with u := (select Person ... limit 2) select count(u)``)."""
    if isinstance(arg, ast.EnumRef) and arg.enum not in ctx.variables and arg.enum not in ctx.type_sets \
            and ctx.schema.find_type(arg.enum, ctx.module) is not None:
        ctx.reporter.error("E0206", f"count() of a path from a type ('{arg.enum}.{arg.member}') is not supported yet",
                           arg.span, f"count the links of each object instead: select {arg.enum} "
                           f"{{ n := count(.{arg.member}) }}")
        return True
    if isinstance(arg, ast.StatementExpr):
        # `count((delete Music filter ...))`: the number of objects the statement wrote
        ctx.reporter.error("E0206", "count() of an insert, update or delete is not supported yet", arg.span,
                           "run the statement as a query of its own: the runners return the objects it wrote")
        return True
    if (isinstance(arg, ast.BinOp) and arg.op == "union") or (isinstance(arg, ast.SetLit) and len(arg.items) > 1):
        # `count(Book union Film)`: valid Gel (a multiset sum of objects), not lowered here
        ctx.reporter.error("E0206", "count() of a union is not supported yet", arg.span,
                           "add the counts of the operands: count(A) + count(B)")
        return True
    sel = arg
    if isinstance(arg, ast.VarRef) and arg.name in ctx.type_sets and arg.name not in ctx.variables:
        sel = ctx.type_sets[arg.name]
    if isinstance(sel, ast.SelectExpr) and (sel.order or sel.offset is not None or sel.limit is not None):
        ctx.reporter.error("E0206", "count() of a selection with order by / offset / limit is not supported yet",
                           arg.span, "count the filtered selection: count((select T filter ...))")
        return True
    return False
