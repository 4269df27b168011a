"""Parameters and loops over them: ``$name`` with its type, element-wise
loops, rows of a parameter (https://docs.geldata.com/reference/edgeql/parameters).

Part of the expression checker (:mod:`schemac.semantics.exprs`), split by concern."""

from __future__ import annotations
import dataclasses
from typing import List, Optional, Set, Tuple
from schemac.semantics import computed_sql, qir
from schemac.syntax import tree as ast
from schemac.frozen import fast_init_all
from schemac.semantics.model import ValueType
from schemac.semantics.sqlnames import qi
from schemac.semantics.scalars import SCALARS
from schemac.semantics import e_types, exprs


def _is_tuple_array(ref: ast.TypeRef) -> bool:
    return ref.name in ("array", "std::array") and len(ref.args) == 1 and ref.args[0].name in ("tuple", "std::tuple")


def _record_array_type(ref: ast.TypeRef, ctx: exprs.ExprContext) -> Optional[ValueType]:
    """``<array<tuple<name: str, n: int32>>>$rows``, an array of named tuples as a parameter
    (https://docs.geldata.com/reference/edgeql/parameters): the runners send it as a JSON array of
    objects (TS ``{ name: string; n: number }[]``, as @gel/generate types it; Go a slice of
    structs, as edgeql-go does), which a ``for`` loop reads with ``jsonb_to_recordset``. Its
    elements are scalars, enums or arrays of them; it is a ``for`` loop's ``array_unpack()``
    source only (:func:`schemac.semantics.queries.refuse_record_params`)."""
    t = exprs.resolve_type_ref(ref, ctx, True)
    if t is None:
        return None
    fields = t.element.fields or ()  # type: ignore[union-attr]
    if any(n is None for n, _ in fields):
        ctx.reporter.error("E0206", f"an array of unnamed tuples ('{ref}') as a parameter is not supported yet",
                           ref.span, "name the elements: array<tuple<a: T, b: U>>")
        return None
    bad = next((et for _, et in fields if et.has_tuple or et.family in ("json", "bytes")
                or (et.element is not None and et.element.family in ("json", "bytes"))), None)
    if bad is not None:
        ctx.reporter.error("E0206", f"an array of tuples with an element of type {bad.name} as a parameter is not "
                           "supported yet", ref.span, "its elements may be scalars, enums and arrays of them")
        return None
    return t


def _param(expr: ast.Param, ctx: exprs.ExprContext, expected: Optional[ValueType],
           allow_optional: bool) -> Optional[qir.Expr]:
    if ctx.params is None:
        ctx.reporter.error("E0206", f"parameters are not allowed in {ctx.where}", expr.span)
        return None
    declared: Optional[ValueType] = None
    optional = False
    if expr.type is not None:
        declared = _record_array_type(expr.type, ctx) if _is_tuple_array(expr.type) else exprs.resolve_type_ref(expr.type, ctx)
        if declared is None:
            return None
        optional = expr.type.optional
    typ = declared or expected
    if typ is None:
        ctx.reporter.error("E0303", f"cannot infer the type of parameter ${expr.name}", expr.span,
                           f"give it a type: ${expr.name}<str> (or another scalar/enum type)")
        return None
    if declared is None:
        optional = allow_optional
    name, position = expr.name, None
    if expr.name.isdecimal():
        # `$0`, `$1`: positional parameters (https://docs.geldata.com/reference/edgeql/parameters),
        # the runners' arguments arg0, arg1
        name, position = f"arg{int(expr.name)}", int(expr.name)
    first = next((p for p in ctx.params.params.values() if p.global_ is None), None)
    if first is not None and (first.position is None) != (position is None) and name not in ctx.params.params:
        # (Gel's own rule and message)
        ctx.reporter.error("E0311", "cannot combine positional and named parameters in the same query", expr.span,
                           f"the query's first parameter is ${first.name if first.position is None else first.position}"
                           "; name every parameter, or number them all from $0")
        return None
    existing = ctx.params.params.get(name)
    if existing is None:
        existing = exprs.ParamSpec(name, len(ctx.params.params) + 1, typ, optional, expr.span, position=position)
        ctx.params.params[name] = existing
    else:
        if existing.type != typ:
            ctx.reporter.error("E0307", f"parameter ${expr.name} is used as {existing.type.name} and as {typ.name}",
                               expr.span, "use two parameters, or give both uses the same type")
            return None
        # A parameter is optional only if every use accepts NULL.
        existing.optional = existing.optional and optional
    return qir.ParamRef(expr.span, typ, existing.optional, existing)


def is_for_rows(expr, ctx: exprs.ExprContext) -> bool:
    """``for x in S union <body>`` (parenthesised or not) over a set of objects ``S`` of the
    query's names, whose body is a value (not a statement): see :func:`for_rows`."""
    expr = expr.query if isinstance(expr, ast.StatementExpr) else expr
    if not isinstance(expr, ast.ForExpr) or computed_sql.query_set_target(expr.source, ctx) is None:
        return False
    body = expr.body.query if isinstance(expr.body, ast.StatementExpr) else expr.body
    return isinstance(body, ast.Expr.__args__)  # type: ignore[attr-defined]


def _var_paths(expr, var: str):
    """``expr`` with each path ``var.a.b`` from the loop variable read as ``.a.b`` (the object's
    own path)."""
    def f(n):
        steps: List[str] = []
        node = n
        while isinstance(node, ast.Step) and node.kind == ".":
            steps.insert(0, node.name)
            node = node.base
        if isinstance(node, ast.EnumRef) and node.enum == var:
            return ast.Path((node.member, *steps), n.span)  # (`x.a` reads as `Enum.Member`)
        if steps and isinstance(node, ast.VarRef) and node.name == var and not node.detached:
            return ast.Path(tuple(steps), n.span)
        return n
    return ast.map_expr(expr, f)


#: Functions whose argument is a whole set (or that make one): an expression calling one is not
#: computed element by element (https://docs.geldata.com/reference/stdlib/set).
_SET_OF_FUNCS = frozenset({"count", "sum", "min", "max", "array_agg", "any", "all", "math::mean", "enumerate",
                           "assert_single", "assert_exists", "assert_distinct", "distinct", "re_match_all",
                           "array_unpack", "json_array_unpack", "range_unpack", "json_object_unpack", "exists"})


def elementwise_loop(expr, ctx: exprs.ExprContext) -> Optional[ast.ForExpr]:
    """``len(S.p)``, ``len(str_split(S.p, ' '))``: an expression computed element by element
    (functions and operators of single values) over the paths of one ``with`` selection ``S``,
    as the loop it is, ``for S in S union len(S.p)``: Gel binds the paths from ``S`` to each of
    its objects, one value each (https://docs.geldata.com/reference/edgeql/paths). ``None`` for
    anything else (a path alone, several such names, a set operator or function)."""
    if isinstance(expr, (ast.EnumRef, ast.Step, ast.VarRef)):
        return None
    roots: Set[str] = set()
    for n in ast.iter_nodes(expr):
        if isinstance(n, ast.EnumRef) and n.enum in ctx.type_sets and n.enum not in ctx.variables:
            roots.add(n.enum)
        elif isinstance(n, ast.VarRef):
            if n.name in ctx.type_sets or n.name in ctx.row_sets:
                return None  # (the objects themselves)
        elif isinstance(n, ast.FuncCall):
            if n.name.removeprefix("std::") in _SET_OF_FUNCS or any(isinstance(a, ast.NamedArg) for a in n.args):
                return None
        elif isinstance(n, ast.BinOp):
            if n.op in ("??", "union", "except", "intersect", "in", "not in", "if"):
                return None
        elif isinstance(n, ast.UnaryOp):
            if n.op not in ("not", "-"):
                return None
        elif not isinstance(n, (ast.Literal, ast.Step, ast.Index, ast.Cast, ast.TypeRef, ast.Param)):
            return None
    if len(roots) != 1:
        return None
    name = roots.pop()
    return ast.ForExpr(name, expr.span, ast.VarRef(name, expr.span), expr, expr.span)


def coalesced_elementwise(expr, ctx: exprs.ExprContext):
    """``(left, right, with_left, with_right)`` when ``expr`` is computed element by element
    around one ``L ?? R`` whose ``L`` is computed element by element over a ``with`` selection
    (``len(<array<json>>(S.data['k'] ?? <json>[]))``) and ``R`` reads none: ``??`` takes ``L`` as
    a whole set (https://docs.geldata.com/reference/stdlib/set#operator::coalesce), so the
    values are ``expr`` over ``L``'s when it has any (``with_left``), else over ``R``
    (``with_right``). ``None`` otherwise."""
    found = [n for n in ast.iter_nodes(expr) if isinstance(n, ast.BinOp) and n.op == "??"]
    if len(found) != 1:
        return None
    node = found[0]
    left = node.left
    if elementwise_loop(left, ctx) is None and not (isinstance(left, ast.EnumRef) and left.enum in ctx.type_sets):
        return None
    if any(isinstance(n, ast.EnumRef) and n.enum in ctx.type_sets for n in ast.iter_nodes(node.right)):
        return None
    with_left = ast.map_expr(expr, lambda n: node.left if n is node else n)
    with_right = ast.map_expr(expr, lambda n: node.right if n is node else n)
    if with_left is not node.left and elementwise_loop(with_left, ctx) is None:
        return None
    return node.left, node.right, with_left, with_right


def free_loop(expr) -> bool:
    """``for i in range_unpack(r) union (select { ... })`` / ``... array_unpack(arr) ...``: a
    loop whose body is a free object (:func:`free_rows`)."""
    expr = expr.query if isinstance(expr, ast.StatementExpr) else expr
    if not isinstance(expr, ast.ForExpr) or not (isinstance(expr.source, ast.FuncCall) and expr.source.name in (
            "range_unpack", "std::range_unpack", "array_unpack", "std::array_unpack") and len(expr.source.args) == 1):
        return False
    body = expr.body.query if isinstance(expr.body, ast.StatementExpr) else expr.body
    if isinstance(body, ast.WithExpr):
        body = body.body
    if isinstance(body, ast.SelectExpr) and body.shape is None and not body.order \
            and body.offset is None and body.limit is None:
        body = body.subject
    return isinstance(body, ast.FreeObject)


def free_rows(loop, ctx: exprs.ExprContext) -> Optional[qir.FreeRows]:
    """The free objects of a :func:`free_loop` (https://docs.geldata.com/reference/edgeql/for,
    https://docs.geldata.com/reference/edgeql/select#free-objects): the loop's element (an
    integer of the range, https://docs.geldata.com/reference/stdlib/range#function::std::range_unpack,
    or an element of the array) is in scope in each field. ``None`` after reporting."""
    loop = loop.query if isinstance(loop, ast.StatementExpr) else loop
    src = loop.source
    arg = exprs.check(src.args[0], ctx)
    if arg is None:
        return None
    ranged = src.name.endswith("range_unpack")
    if ranged:
        family = getattr(arg.type.scalar, "sql_family", "") or "" if arg.type.element is None else ""
        elem = family.split(":", 1)[1] if family.startswith("range:") else ""
        if elem not in ("int32", "int64"):
            ctx.reporter.error("E0206" if family else "E0304", f"range_unpack() of a {arg.type.name} is supported for "
                               "ranges of int32 and int64 yet", src.span)
            return None
        vtype = ValueType(scalar=SCALARS[elem])
    else:
        if arg.type.element is None or arg.type.element.element is not None:
            ctx.reporter.error("E0304", f"array_unpack() needs an array, got {arg.type.name}", src.span)
            return None
        vtype = arg.type.element
    var = qir.LoopVar(loop.var, vtype, "_i", qi("_batch"))
    inner = dataclasses.replace(ctx, variables={**ctx.variables, loop.var: var})
    body = loop.body.query if isinstance(loop.body, ast.StatementExpr) else loop.body
    if isinstance(body, ast.WithExpr):
        # `(with gap := ..., ... select { ... } filter ...)`: names bound per element, written
        # where they are read
        for b in body.bindings:
            low = exprs.check(b.value, inner)
            if low is None:
                return None
            inner = dataclasses.replace(inner, variables={**inner.variables, b.name: qir.WithValue(b.name, low, True)})
        body = body.body
    cond = None
    if isinstance(body, ast.SelectExpr):
        if body.filter is not None:
            cond = exprs.check_filter(body.filter, inner)
            if cond is None:
                return None
        body = body.subject
    fields: List[Tuple[str, qir.Expr]] = []
    for el in body.elements:
        if el.value is None:
            ctx.reporter.error("E0206", "a free object's element in a 'for' loop is written name := <expr>", el.span)
            return None
        if any(n == el.name for n, _ in fields):
            ctx.reporter.error("E0309", f"'{el.name}' appears twice in the free object", el.span)
            return None
        low = exprs.check(el.value, inner)
        if low is None:
            return None
        if low.type.fields is not None or (low.type.element is not None and low.type.element.element is not None):
            ctx.reporter.error("E0206", f"a {low.type.name} element of a free object in a 'for' loop is not supported "
                               "yet", el.value.span)
            return None
        fields.append((el.name, low))
    return qir.FreeRows(loop.span, var, arg, "range" if ranged else "array", tuple(fields), filter=cond)


def first_free_row(sel, ctx: exprs.ExprContext) -> Optional[qir.FreeRows]:
    """``(select s order by .a [desc] limit 1)`` of a name bound to :func:`free_rows`: its first
    object in that order (https://docs.geldata.com/reference/edgeql/select#ordering); ``None``
    after reporting."""
    rows = ctx.free_rows[sel.subject.name]
    fields = dict(rows.fields)  # type: ignore[attr-defined]
    order = []
    for item in sel.order:
        e = item.expr
        if not (isinstance(e, ast.Path) and len(e.steps) == 1 and e.steps[0] in fields):
            ctx.reporter.error("E0206", "ordering free objects is supported by one of their fields (order by .name)",
                               e.span)
            return None
        f = fields[e.steps[0]]
        if f.type.family in ("json", "bytes") or f.type.element is not None:
            ctx.reporter.error("E0304", f"cannot order by a {f.type.name} value", e.span)
            return None
        key = qir.RowField(e.span, f.type, True, "_fr", e.steps[0])
        order.append(qir.OrderKey(item.span, key, item.descending,
                                  item.empty or ("last" if item.descending else "first")))
    return dataclasses.replace(rows, order=tuple(order), first=True)  # type: ignore[arg-type]


def for_rows(loop, ctx: exprs.ExprContext) -> Optional[qir.ForRows]:
    """``for x in S union <value of x>`` / ``for x in S union (for m in re_match_all(p, <str of
    x>) union m)`` of a set of objects ``S`` of the query's names (:func:`is_for_rows`), as a
    :class:`~schemac.semantics.qir.ForRows`: the body is read from each object of ``S``, its
    paths from ``x`` the object's own (https://docs.geldata.com/reference/edgeql/for). Any other
    body (objects, arrays of arrays, tuples) is E0206. ``None`` after reporting."""
    loop = loop.query if isinstance(loop, ast.StatementExpr) else loop
    objects = computed_sql.query_set(loop.source, ctx, qi(f"_fo{ctx.depth}"))
    if objects is None:
        return None
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                set_links=None, set_row=None, depth=ctx.depth + 1)
    body = loop.body.query if isinstance(loop.body, ast.StatementExpr) else loop.body
    while isinstance(body, ast.SelectExpr) and body.shape is None and body.filter is None and not body.order \
            and body.offset is None and body.limit is None:
        body = body.subject
    pattern = None
    if isinstance(body, ast.ForExpr):
        src, sub = body.source, body.body.query if isinstance(body.body, ast.StatementExpr) else body.body
        if not (isinstance(src, ast.FuncCall) and src.name in exprs._SET_FUNCTIONS and len(src.args) == 2
                and not any(isinstance(a, ast.NamedArg) for a in src.args)
                and isinstance(sub, ast.VarRef) and sub.name == body.var):
            ctx.reporter.error("E0206", "a 'for' loop over objects whose body is another 'for' loop is supported as "
                               "(for m in re_match_all(pattern, x.prop) union m)", body.span)
            return None
        pattern = exprs.check(src.args[0], ctx, e_types.STR)
        body = src.args[1]
        if pattern is None:
            return None
        if pattern.type.family != "str" or pattern.type.element is not None:
            ctx.reporter.error("E0304", f"re_match_all() needs a str pattern, got {pattern.type.name}", src.args[0].span)
            return None
    body = _var_paths(body, loop.var)
    if pattern is None and not any(isinstance(n, ast.VarRef) and n.name == loop.var for n in ast.iter_nodes(body)) \
            and computed_sql.set_target(body, objects.source, ctx.schema, ctx.module) is not None:
        # `for e in events union (select e.participants filter ...)`: the objects each reaches
        targets = computed_sql.expr_object_set(body, inner, qi(f"_ft{ctx.depth}"), body.span)
        if targets is None:
            return None
        return qir.ForRows(loop.span, ValueType(scalar=SCALARS["uuid"]), objects, None, None, targets)
    if any(isinstance(n, ast.VarRef) and n.name == loop.var for n in ast.iter_nodes(body)):
        ctx.reporter.error("E0206", f"a 'for' loop over objects whose body reads the object '{loop.var}' itself (not "
                           "a path from it) is not supported yet", loop.body.span)
        return None
    value = exprs.check(body, inner, e_types.STR if pattern is not None else None)
    if value is None:
        return None
    if pattern is not None and (value.type.family != "str" or value.type.element is not None):
        ctx.reporter.error("E0304", f"re_match_all() needs a str, got {value.type.name}", body.span)
        return None
    if pattern is None and (value.type.element is not None or value.type.fields is not None):
        ctx.reporter.error("E0206", f"a 'for' loop over objects whose body is a {value.type.name} value is not "
                           "supported yet", loop.body.span)
        return None
    vtype = ValueType(element=e_types.STR) if pattern is not None else value.type
    return qir.ForRows(loop.span, vtype, objects, value, pattern)
