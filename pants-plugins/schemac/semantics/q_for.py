"""``for`` loops: over values, objects, rows of a parameter, conditional bodies
(https://docs.geldata.com/reference/edgeql/for).

Part of the statement checker (:mod:`schemac.semantics.queries`), split by concern."""

from __future__ import annotations
import dataclasses
import types
from typing import Optional, Tuple
from schemac.semantics import computed_sql, ir_facts, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import Reporter, Span, did_you_mean
from schemac.frozen import fast_init_all
from schemac.semantics.exprs import ExprContext, check, is_param, check_filter
from schemac.semantics.e_types import BOOL
from schemac.semantics.model import ObjectType, ValueType
from schemac.semantics.qir import MANY, ResultField
from schemac.semantics.scalars import SCALARS
from schemac.semantics.sqlnames import qi
from schemac.semantics import q_dml, q_group, q_links, q_select, q_shapes, q_values, q_with, queries


def _for(qf: ast.QueryFile, q: ast.ForQuery, subject: ObjectType, ctx: ExprContext) -> Optional[qir.Query]:
    """``for x in array_unpack(<array<T>>$xs) union (insert ...)`` -> one
    ``INSERT ... SELECT ... FROM unnest($n::T[]) AS "_batch"(x)``: one round trip for any
    number of rows. Duplicates within one batch: ``unless conflict`` (``DO NOTHING``) keeps the
    first and skips the rest; an upsert (``DO UPDATE``) cannot touch a row twice and the whole
    statement fails with SQLSTATE 21000, inserting nothing.

    ``for x in json_array_unpack(<json>$items) union (insert ...)`` -> ``... FROM
    jsonb_array_elements($n::jsonb) AS "_batch"(x)``; the loop variable is json: its members
    are read with casts, ``<str>x['name']`` (``x ->> 'name'``)."""
    batch = _loop(q, ctx)
    if batch is None:
        return None
    w = q_dml._insert_write(q.body, subject, ctx, batch=batch)
    if w is None:
        return None
    return q_values._plan(qf, "insert", subject, q_dml._returning_id(w), ctx, MANY, w.exclusives)


def _loop(q, ctx: ExprContext, sql_name: Optional[str] = None) -> Optional[qir.Batch]:
    """The rows a ``for`` loop iterates over: ``array_unpack(<array<T>>$xs)`` or
    ``json_array_unpack(<json>$items)`` of a parameter (or of a ``with`` name bound to one). The
    loop variable is put in scope; ``sql_name`` names its column of the ``"_batch"`` rows."""
    src = q.source
    if isinstance(src, ast.FuncCall) and src.name in q_values._ENUMERATE and len(src.args) == 1:
        # for x in enumerate(array_unpack(...)) (https://docs.geldata.com/reference/stdlib/set#function::std::enumerate):
        # x is a tuple<int64, T>, read as x.0 (the position, from 0) and x.1 (the element)
        batch = _loop(types.SimpleNamespace(source=src.args[0], var=q.var), ctx, sql_name)
        if batch is None:
            return None
        if batch.json_object or batch.records:
            what = "json_object_unpack()" if batch.json_object else "an array of tuples"
            ctx.reporter.error("E0206", f"enumerate() of {what} is not supported yet", src.span,
                               "iterate over it itself")
            return None
        base = sql_name or q.var
        var = qir.LoopVar(q.var, ValueType(fields=((None, q_group._INT64), (None, batch.var.type))), sql_name,
                          elements=(f"{base}_0", f"{base}_1"))
        ctx.variables[q.var] = var
        return dataclasses.replace(batch, span=src.span, var=var, enumerate=True)
    if isinstance(src, ast.SetLit) and src.items and all(_constant(i) for i in src.items):
        # for x in {1, 2, 3}: a set of constants is iterated as the array of them
        # (https://docs.geldata.com/reference/edgeql/for), unnest(ARRAY[1, 2, 3]::bigint[])
        arr = check(ast.ArrayLit(src.items, src.span), ctx)
        if arr is None:
            return None
        if arr.type.element is None or arr.type.element.element is not None:
            ctx.reporter.error("E0304", f"a for loop over {{...}} needs values of one scalar type, got {arr.type.name}",
                               src.span)
            return None
        var = qir.LoopVar(q.var, arr.type.element, sql_name)
        ctx.variables[q.var] = var
        return qir.Batch(src.span, var, arr, False)
    json = isinstance(src, ast.FuncCall) and src.name in ("json_array_unpack", "std::json_array_unpack") \
        and len(src.args) == 1
    json_object = isinstance(src, ast.FuncCall) and src.name in ("json_object_unpack", "std::json_object_unpack") \
        and len(src.args) == 1
    if not json and not json_object and not (isinstance(src, ast.FuncCall)
                                             and src.name in ("array_unpack", "std::array_unpack")
                                             and len(src.args) == 1):
        ctx.reporter.error("E0206", "a for loop iterates over array_unpack(<array<T>>$param), "
                           "json_array_unpack(<json>$param) or json_object_unpack(<json>$param) only (or enumerate() "
                           "of the first two)", src.span,
                           "write e.g. for name in array_unpack(<array<str>>$names) union (insert ...)")
        return None
    arg = src.args[0]  # type: ignore[attr-defined]
    arr = check(arg, ctx, queries.JSON if json or json_object else None)
    if arr is None:
        return None
    param = is_param(arr) or (type(arr) is qir.VarRef and type(arr.binding) is qir.WithValue  # type: ignore[attr-defined]
                              and arr.binding.inline and is_param(arr.binding.value))  # type: ignore[attr-defined]
    if not json and not json_object and not param:
        # `array_unpack(str_split(<str>$tsv, '\n'))`: an array computed from the query's own
        # values (parameters, literals, its `with` names), evaluated once for the statement
        param = _query_value(arr)
    if (json or json_object) and not param:
        # `json_array_unpack(params['items'])` of a query's json parameter or `with` name
        # (`with items := params['items']`): one json value of the query, not of an object.
        param = _query_json(arr)
    if json_object:
        # https://docs.geldata.com/reference/stdlib/json#function::std::json_object_unpack: the
        # object's members as a set of tuple<str, json>, read as x.0 (the key) and x.1 (the
        # value): jsonb_each's two columns of the "_batch" row.
        if arr.type.family != "json" or not param:
            what = arr.type.name if arr.type.family != "json" else "another json value"
            ctx.reporter.error("E0304", f"json_object_unpack needs a json parameter, a 'with' name or a member of one "
                               f"(params['settings']), got {what}", arg.span, "give it a type: <json>$settings")
            return None
        base = sql_name or q.var
        var = qir.LoopVar(q.var, ValueType(fields=((None, ValueType(scalar=SCALARS["str"])), (None, queries.JSON))), sql_name,
                          elements=(f"{base}_0", f"{base}_1"))
        ctx.variables[q.var] = var
        return qir.Batch(src.span, var, arr, True, True)
    if json:
        if arr.type.family != "json" or not param:
            what = arr.type.name if arr.type.family != "json" else "another json value"
            ctx.reporter.error("E0304", f"json_array_unpack needs a json parameter, a 'with' name or a member of one "
                               f"(params['items']), got {what}", arg.span, "give it a type: <json>$items")
            return None
        var = qir.LoopVar(q.var, queries.JSON, sql_name)
    else:
        if arr.type.element is None or not param:
            ctx.reporter.error("E0304", f"array_unpack needs an array parameter, got {arr.type.name}", arg.span,
                               "give it a type: <array<str>>$names")
            return None
        if arr.type.element.fields is not None:
            # an array of named tuples (exprs._record_array_type), sent as JSON: each element a
            # row of jsonb_to_recordset, its elements columns of the "_batch" row, read as x.name
            if _record_param(arr) is None:
                ctx.reporter.error("E0206", "array_unpack() of an array of tuples other than a parameter is not "
                                   "supported yet", arg.span)
                return None
            base = sql_name or q.var
            var = qir.LoopVar(q.var, arr.type.element, sql_name,
                              elements=tuple(f"{base}_{i}" for i in range(len(arr.type.element.fields))))
            ctx.variables[q.var] = var
            return qir.Batch(src.span, var, arr, False, records=True)
        var = qir.LoopVar(q.var, arr.type.element, sql_name)
    ctx.variables[q.var] = var
    return qir.Batch(src.span, var, arr, json)


def _record_param(e: qir.Expr) -> Optional[qir.ParamRef]:
    """The parameter an array of named tuples is (directly or through a ``with`` name)."""
    if type(e) is qir.VarRef and type(e.binding) is qir.WithValue and e.binding.inline:  # type: ignore[attr-defined]
        e = e.binding.value  # type: ignore[attr-defined]
    return e if type(e) is qir.ParamRef else None  # type: ignore[return-value]


def refuse_record_params(nodes: ir_facts.StatementNodes, reporter: Reporter) -> bool:
    """An array of named tuples as a parameter (exprs._record_array_type) read other than as a
    ``for`` loop's source: E0206; ``True`` when reported. ``nodes``: the statement's (only a
    parameter, or a name bound to one, can be such an array: :func:`_record_param`)."""
    sources = {id(n.source) for n in nodes.of(qir.Batch)}  # type: ignore[attr-defined]
    bound = {id(n.value) for n in nodes.of(qir.WithValue)}  # type: ignore[attr-defined]
    for n in nodes.ordered(qir.ParamRef, qir.VarRef):
        record = n.type.element is not None and n.type.element.fields is not None  # type: ignore[attr-defined]
        if record and id(n) not in sources and id(n) not in bound and (
                type(n) is qir.ParamRef or _record_param(n) is not None):  # type: ignore[arg-type]
            reporter.error("E0206", f"an array of tuples as a parameter is only supported as a 'for' loop's source "
                           f"(for x in array_unpack(...)) yet", n.span)  # type: ignore[attr-defined]
            return True
    return False


#: The IR nodes of a value of the query itself, which reads no row (see :func:`_query_value`).
_QUERY_VALUE_NODES = (qir.Literal, qir.ParamRef, qir.Call, qir.Cast, qir.Unary, qir.Binary,
                      qir.EnumMember, qir.JsonCast, qir.JsonIndex, qir.InSet, qir.InArray, qir.WithValue,
                      qir.TriggerGlobal)


def _query_value(e: qir.Expr) -> bool:
    """A value computed from the query's own values only (parameters, literals, its ``with``
    names bound to such values, and functions and operators of them): it reads no object and no
    loop variable, so a ``for`` loop's rows, ``unnest(<it>)``, are evaluated once for the
    statement (https://docs.geldata.com/reference/edgeql/for: the iterator set is computed
    before the body runs for each of its elements)."""
    for n in qir.walk(e):
        if type(n) is qir.VarRef:
            if type(n.binding) is not qir.WithValue:  # type: ignore[attr-defined]
                return False
        elif not isinstance(n, _QUERY_VALUE_NODES):
            return False
    return True


def _query_json(e: qir.Expr) -> bool:
    """A json value of the query itself: a parameter, a query's ``with`` name, or a member of
    one (``params['items']``, ``x[0]``) by a constant or parameter key."""
    if is_param(e) or (type(e) is qir.VarRef and type(e.binding) is qir.WithValue):  # type: ignore[attr-defined]
        return True
    if type(e) is qir.JsonIndex:
        key = e.key  # type: ignore[attr-defined]
        return _query_json(e.base) and (type(key) is qir.Literal or is_param(key))  # type: ignore[attr-defined]
    return False


def _constant(e) -> bool:
    """A literal, possibly negated or cast (``1``, ``-1``, ``<int16>1``, ``'a'``)."""
    if isinstance(e, ast.Literal):
        return True
    if isinstance(e, ast.Cast):
        return _constant(e.operand)
    if isinstance(e, ast.UnaryOp) and e.op == "-":
        return _constant(e.operand)
    return False


def _unparen(body):
    """A ``for`` body without its parentheses: the statement node."""
    return body.query if isinstance(body, ast.StatementExpr) else body


def _for_any(qf: ast.QueryFile, q: ast.ForExpr, ctx: ExprContext) -> Optional[qir.Query]:
    """``for x in array_unpack(<array<T>>$xs) union (<body>)`` (https://docs.geldata.com/reference/edgeql/for):
    the body run once per element, all in one statement, the results united. The body may be
    ``with a := <expr>, ... <statement>`` (the names bound per element, written where they are
    used) over an insert (``unless conflict``, upserts), an update (``UPDATE ... FROM`` the
    loop's rows), a delete (``DELETE ... USING``) or a select of a type (one result row per
    element and object it selects). A row an update or delete matches for several elements is
    written once and returned once."""
    body = _unparen(q.body)
    looped = _for_objects_value(qf, q, body, ctx)
    if looped is not False:
        return looped  # type: ignore[return-value]
    inner_with: Tuple[ast.WithBinding, ...] = ()
    if isinstance(body, ast.WithExpr):
        inner_with, body = body.bindings, _unparen(body.body)
    guarded = _conditional_insert(body)
    if guarded is not None:
        # `if c then (insert T {...}) else {}`: the insert for the elements whose c is true
        body = guarded[0]
    # `with ..., w := (insert ...) select w { shape }`: the insert, returning the shape of the
    # objects it inserts (as `select (insert ...) { shape }` does), once per element.
    returning: Optional[Tuple[Optional[Tuple[ast.ShapeElement, ...]], Span]] = None
    if isinstance(body, ast.SelectExpr) and isinstance(body.subject, ast.VarRef) and body.filter is None \
            and not body.order and body.offset is None and body.limit is None:
        bound = [b for b in inner_with if isinstance(_unparen(b.value), ast.InsertQuery)]
        if len(bound) == 1 and bound[0].name == body.subject.name:
            returning = (body.shape, body.span)
            inner_with = tuple(b for b in inner_with if b is not bound[0])
            body = _unparen(bound[0].value)
    if isinstance(body, ast.SelectExpr) and isinstance(body.subject, ast.VarRef) \
            and body.subject.name in ctx.type_sets and body.subject.name not in ctx.variables \
            and q_with._simple_selection(ctx.type_sets[body.subject.name]):
        # `with p := (select Person filter ...) for x in ... union (select p { name })`: the
        # selection's objects, once per element (https://docs.geldata.com/reference/edgeql/with)
        sq = ast.SelectQuery(body.subject.name, body.subject.span, body.shape, body.filter, body.order,
                             body.offset, body.limit, body.span)
        body = q_with._select_of_selection(sq, ctx.type_sets[body.subject.name], ctx)
        if body is None:
            return None
    elif _for_value_body(body, ctx) or (isinstance(body, ast.BinOp) and body.op in ("except", "intersect")
                                        and _for_value_body(body.left, ctx)):
        return _for_value(qf, q, body, inner_with, ctx)
    if isinstance(body, (ast.SelectExpr, ast.SubSelect)):
        body = q_dml._as_select_query(body, ctx)
        if body is None:
            return None
    if not isinstance(body, (ast.InsertQuery, ast.UpdateQuery, ast.DeleteQuery, ast.SelectQuery)) or \
            not body.type_name:
        what = type(body).__name__ if not isinstance(body, (ast.UpdateQuery, ast.DeleteQuery)) else \
            "an update or delete of an expression"
        if isinstance(body, ast.BinOp):
            what = f"an operator expression ('{body.op}')"
        ctx.reporter.error("E0206", f"a 'for' loop whose body is {_FOR_BODIES.get(what, what)} is not supported yet",
                           getattr(body, "span", q.span),
                           "a for body is an insert, update, delete or select of a type, optionally under 'with'")
        return None
    subject = ctx.schema.find_type(body.type_name, ctx.module)
    if subject is None and queries._abstract_type(ctx.schema, body.type_name, ctx.module, body.type_span, ctx.reporter,
                                          body):
        return None
    if subject is None:
        ctx.reporter.error("E0301", f"unknown type '{body.type_name}'", body.type_span,
                           did_you_mean(body.type_name.split("::")[-1], [t.name for t in ctx.schema.all_types()]))
        return None
    ctx = dataclasses.replace(ctx, subject=subject, variables=dict(ctx.variables))
    insert = isinstance(body, ast.InsertQuery)
    batch = _loop(q, ctx, None if insert else f"_for_{q.var}")
    if batch is None:
        return None
    if not _bind_per_element(inner_with, ctx):
        return None
    if guarded is not None:
        cond = check_filter(guarded[1], dataclasses.replace(ctx, subject=None))
        if cond is None:
            return None
        if guarded[2]:
            cond = qir.Unary(cond.span, BOOL, cond.nullable, "not", cond)
        batch = dataclasses.replace(batch, guard=cond)
    if insert:
        w = q_dml._insert_write(body, subject, ctx, batch=batch)
        if w is None:
            return None
        if returning is not None:
            return q_with._write_returning(qf, w, subject, returning[0], returning[1], ctx, MANY)
        return q_values._plan(qf, "insert", subject, q_dml._returning_id(w), ctx, MANY, w.exclusives)
    if isinstance(body, ast.UpdateQuery) and computed_sql.has_subtypes(ctx.schema, subject):
        return q_dml._update_each_table(qf, body, subject, ctx, batch=batch)
    if isinstance(body, ast.UpdateQuery):
        w = q_dml._update_write(body, subject, ctx, batch)
        if w is None:
            return None
        return q_values._plan(qf, "update", subject, q_dml._returning_id(w), ctx, MANY, w.exclusives)
    if isinstance(body, (ast.DeleteQuery, ast.SelectQuery)) and computed_sql.has_subtypes(ctx.schema, subject):
        # (each concrete type is a table of its own: the loop's delete or select would read the
        # type's own table only, not its subtypes' objects -- Gel's objects of a type include
        # its subtypes', https://docs.geldata.com/reference/datamodel/inheritance)
        kind = "delete" if isinstance(body, ast.DeleteQuery) else "select"
        name = subject.qualname.split("::")[-1]  # type: ignore[union-attr]
        ctx.reporter.error("E0206", f"a 'for' loop's {kind} of '{name}', a type other types extend (its objects "
                           "and its subtypes' are in tables of their own), is not supported yet", body.span,
                           f"{kind} them with a filter over the array in a query of its own "
                           f"(e.g. '{kind} {name} filter .x in array_unpack(...)')")
        return None
    if isinstance(body, ast.DeleteQuery):
        w = q_dml._delete_write(body, subject, ctx, batch)
        if w is None:
            return None
        return q_values._plan(qf, "delete", subject, q_dml._returning_id(w), ctx, MANY, ())
    if body.order or body.offset is not None or body.limit is not None:
        ctx.reporter.error("E0206", "'order by', 'offset' and 'limit' in a 'for' loop's select are not supported yet",
                           body.span, "order or limit the objects in a query of their own")
        return None
    node, _ = q_select._select_node(body, subject, ctx, batch=batch)
    if node is None:
        return None
    return q_values._plan(qf, "select", subject, node, ctx, MANY, (), q_select._fields(node.shape))


def _conditional_insert(body) -> Optional[Tuple[ast.InsertQuery, ast.Expr, bool]]:
    """``(insert, condition, negated)`` of a ``for`` body ``[select] if c then (insert ...) else
    {}`` (or ``if c then {} else (insert ...)``, ``(insert ...) if c else {}``): Gel runs a
    statement in a branch of ``if`` only for the elements that take it, and neither branch when
    ``c`` is empty (https://docs.geldata.com/reference/edgeql/insert#conditional-inserts,
    https://docs.geldata.com/reference/edgeql/expressions); ``None`` for any other body."""
    if isinstance(body, ast.SelectExpr) and body.shape is None and not q_shapes._has_clauses(body):
        body = body.subject
    if not isinstance(body, ast.IfElse):
        return None
    then, else_ = _unparen(body.then), _unparen(body.else_)
    if isinstance(then, ast.InsertQuery) and q_links._is_empty_set(else_):
        return then, body.cond, False
    if isinstance(else_, ast.InsertQuery) and q_links._is_empty_set(then):
        return else_, body.cond, True
    return None


def _object_loop_source(src, ctx: ExprContext):
    """The objects a ``for`` loop iterates over when they are a type's or a selection of them:
    ``T``, ``(select T filter ...)``, a ``with`` name bound to one; a shape of stored names
    (``(select T { name } filter ...)``) selects the same objects. ``None`` for anything else."""
    src = _unparen(src)
    if isinstance(src, ast.SelectExpr) and src.shape is not None and computed_sql._plain_shape(src.shape):
        src = dataclasses.replace(src, shape=None)
    if isinstance(src, ast.VarRef) and (src.name in ctx.variables or src.name not in ctx.type_sets
                                        and ctx.schema.find_type(src.name, ctx.module) is None):
        return None
    return src if computed_sql.type_set_of(src, ctx) is not None else None


#: Nodes whose ``.x`` paths name another subject than the loop's object.
_SUBJECT_SCOPES = (ast.SelectExpr, ast.SubSelect, ast.ShapeExpr, ast.GroupExpr, ast.ForExpr, ast.WithExpr,
                   ast.StatementExpr, ast.FreeObject)


def _var_paths(node, var: str):
    """``node`` (a ``for`` body) with the loop variable's paths ``x.a.b`` written ``.a.b``, to be
    read over the loop's object; ``None`` when it reads the variable otherwise (alone, or inside
    a select or shape of its own, whose ``.a`` would name another object) or reads a ``.a`` path
    of its own (which has no subject in a loop's body)."""
    if isinstance(node, tuple):
        items = tuple(_var_paths(x, var) for x in node)
        if any(i is None and x is not None for i, x in zip(items, node)):
            return None
        return items if any(i is not x for i, x in zip(items, node)) else node
    if not dataclasses.is_dataclass(node) or isinstance(node, (Span, type, ast.TypeRef)):
        return node
    if isinstance(node, ast.EnumRef) and node.enum == var:
        return ast.Path((node.member,), node.span)
    if isinstance(node, ast.Step) and node.kind == ".":
        base = _var_paths(node.base, var)
        if isinstance(base, ast.Path) and base is not node.base:
            return ast.Path(base.steps + (node.name,), node.span)
    if isinstance(node, ast.VarRef) and node.name == var:
        return None
    if isinstance(node, ast.Path):
        return None
    if isinstance(node, _SUBJECT_SCOPES):
        reads = any((isinstance(n, ast.VarRef) and n.name == var) or (isinstance(n, ast.EnumRef) and n.enum == var)
                    for n in ast.iter_nodes(node))
        return None if reads else node
    changes = {}
    for fld in dataclasses.fields(node):
        v = getattr(node, fld.name)
        if isinstance(v, (str, int, float, bool)) or v is None:
            continue
        nv = _var_paths(v, var)
        if nv is None:
            return None
        if nv is not v:
            changes[fld.name] = nv
    return dataclasses.replace(node, **changes) if changes else node


def _for_objects_value(qf: ast.QueryFile, q: ast.ForExpr, body, ctx: ExprContext):
    """``for k in (select Keyword filter ...) union (k.name)``: a loop over a set of objects whose
    body is a value of each object (https://docs.geldata.com/reference/edgeql/for: the body once
    per element, the results united); with ``except`` / ``intersect`` a set, ``(k.name) except
    {'x'}``, each element's value unless it is in the set (``intersect``: only if), as for a
    loop over values (:func:`_for_set_op_value`). The variable's paths ``k.a.b`` are read over
    each object: one row per object whose value is not empty, ``SELECT <value> FROM <type> AS
    "_v1" WHERE <filter>`` (:class:`qir.SelectValueSet`). ``False`` when the loop is another
    form."""
    src = _object_loop_source(q.source, ctx)
    if src is None:
        return False
    value = body.subject if isinstance(body, ast.SelectExpr) and body.shape is None and body.filter is None         and not body.order and body.offset is None and body.limit is None else body
    set_op = isinstance(value, ast.BinOp) and value.op in ("except", "intersect")
    rewritten = _var_paths(value.left if set_op else value, q.var)  # type: ignore[attr-defined]
    if rewritten is None or rewritten is (value.left if set_op else value) \
            or (set_op and _var_paths(value.right, q.var) is not value.right):  # type: ignore[attr-defined]
        ctx.reporter.error("E0206", "a 'for' loop over objects is supported with a body that is a value of the "
                           "loop's object only", getattr(body, "span", q.span),
                           f"e.g. for {q.var} in (select T filter ...) union ({q.var}.name)")
        return None
    objects = computed_sql.type_set(src, ctx, qi("_v1"))
    if objects is None:
        return None
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                set_links=None, set_row=None, variables=dict(ctx.variables))
    if set_op:
        rewritten = _for_set_op_value(dataclasses.replace(value, left=rewritten), inner)  # type: ignore[arg-type]
        if rewritten is None:
            return None
    low = check(rewritten, inner)
    if low is None:
        return None
    if low.type.element is not None or low.type.fields is not None:
        ctx.reporter.error("E0206", f"a 'for' loop over objects whose body is a {low.type.name} value is not "
                           "supported yet", value.span)
        return None
    node = qir.SelectValueSet(q.span, objects, low, False)
    return q_values._plan(qf, "select", None, node, ctx, MANY, (), (ResultField("value", low.type, False),), scalar=True)


_VALUE_BODIES = (ast.BinOp, ast.UnaryOp, ast.FuncCall, ast.Cast, ast.Literal, ast.IfElse, ast.Index, ast.Slice,
                 ast.VarRef, ast.Param)


def _for_value_body(body, ctx: ExprContext) -> bool:
    """A ``for`` body that is a value, not objects: ``(select x * 2)``, ``(x * 2)``, ``(select
    <str>x ++ '!')`` (a select of an expression without shape or clauses, or the expression
    itself); not a select of a type or of a ``with`` name's objects."""
    if isinstance(body, ast.SelectExpr):
        if body.shape is not None or body.filter is not None or body.order or body.offset is not None \
                or body.limit is not None:
            return False
        body = body.subject
    if isinstance(body, ast.Step) and body.kind == "." and isinstance(body.base, ast.VarRef) \
            and body.name.isdigit():
        body = body.base  # `x.0` of a tuple variable (`for x in enumerate(...)`)
    if isinstance(body, (ast.Tuple_, ast.NamedTuple)):
        return True  # a tuple, (x.0, x.1)
    if isinstance(body, ast.VarRef):
        return body.name in ctx.variables or (body.name not in ctx.type_sets
                                              and ctx.schema.find_type(body.name, ctx.module) is None
                                              and queries._abstract_key(ctx.schema, body.name, ctx.module) is None)
    return isinstance(body, _VALUE_BODIES) and not (isinstance(body, ast.BinOp)
                                                     and body.op in ("union", "except", "intersect"))


def _for_value(qf: ast.QueryFile, q: ast.ForExpr, body, inner_with, ctx: ExprContext) -> Optional[qir.Query]:
    """``for x in {1, 2, 3} union (select x * 2)``: the body's value once per element of the
    loop, united (https://docs.geldata.com/reference/edgeql/for): many values (the runners return
    the values), an empty one no element. One ``SELECT <value> FROM unnest(...) AS "_batch"``."""
    ctx = dataclasses.replace(ctx, variables=dict(ctx.variables))
    batch = _loop(q, ctx, f"_for_{q.var}")
    if batch is None or not _bind_per_element(inner_with, ctx):
        return None
    value = body.subject if isinstance(body, ast.SelectExpr) else body
    if isinstance(value, ast.BinOp) and value.op in ("except", "intersect"):
        value = _for_set_op_value(value, ctx)
        if value is None:
            return None
    low = check(value, ctx)
    if low is None:
        return None
    if low.type.fields is not None and type(low) is not qir.TupleValue:
        ctx.reporter.error("E0206", "a 'for' loop whose body is a tuple is not supported yet", value.span)
        return None
    el = qir.ShapeComputed(value.span, ResultField("value", low.type, q_values._may_be_empty(low)), low)
    node = qir.SelectValues(body.span, (el,), True, batch)
    return q_values._plan(qf, "select", None, node, ctx, MANY, (), (ResultField("value", low.type, False),), scalar=True)


def _for_set_op_value(body: ast.BinOp, ctx: ExprContext):
    """``for x in ... union (x) except {'a', 'b'}``: a body value of one element per iteration
    (https://docs.geldata.com/reference/edgeql/for, https://docs.geldata.com/reference/stdlib/set#operator::except):
    ``{v} except B`` is ``v`` unless ``v in B`` (``intersect``: only if), so the body is
    ``v if v not in B else <T>{}`` (an empty value is no element). ``None`` after an error."""
    left = check(body.left, ctx)
    if left is None:
        return None
    if left.type.element is not None or left.type.fields is not None or left.type.name == "json":
        ctx.reporter.error("E0206", f"'{body.op}' of a {left.type.name} value in a 'for' body is not supported yet",
                           body.span, "select the values, then filter them: (x if x not in {...} else <str>{})")
        return None
    op = "not in" if body.op == "except" else "in"
    empty = ast.Cast(ast.TypeRef(left.type.name, (), body.span), ast.SetLit((), body.span), body.span)
    return ast.IfElse(ast.BinOp(op, body.left, body.right, body.span), body.left, empty, body.span)


def _bind_per_element(bindings, ctx: ExprContext) -> bool:
    """The ``with`` names of a ``for`` body, bound per element: each written where it is used
    (it may read the loop variable). ``False`` after an error."""
    for b in bindings:
        if isinstance(b.value, (ast.InsertQuery, ast.UpdateQuery, ast.DeleteQuery, ast.StatementExpr)):
            ctx.reporter.error("E0206", "a statement bound by 'with' inside a 'for' body is not supported yet",
                               b.value.span, "bind values only, or run the statement as its own query")
            return False
        sub = computed_sql.as_subselect(q_with._normal_selection(b.value, ctx.schema, ctx.module))
        target = ctx.schema.find_type(sub.type_name, ctx.module) if sub is not None else None
        if target is not None and sub.type_name not in ctx.variables and sub.type_name not in ctx.type_sets \
                and not computed_sql.filter_pins_one(sub.filter, target):  # type: ignore[union-attr]
            # `voice_actor := (select Staff filter .id_al in array_unpack(ids))`: a set of
            # objects per element, read where it is used (a multi link's value, `count`, `in`)
            ctx.variables.pop(b.name, None)
            sel = q_with._normal_selection(b.value, ctx.schema, ctx.module)
            ctx.selections = {**ctx.selections, b.name: sel}
            ctx.type_sets = {**ctx.type_sets, b.name: sel}
            continue
        # Bound per element: written where it is used (it may read the loop variable).
        low = check(b.value, ctx)
        if low is None:
            return False
        ctx.variables[b.name] = qir.WithValue(b.name, low, True)
    return True


_FOR_BODIES = {"SelectExpr": "a select of an expression", "WithExpr": "a nested 'with'", "ForExpr": "another 'for'",
               "ForQuery": "another 'for'", "GroupExpr": "a 'group'", "SelectDml": "a select of a statement",
               "Path": "a path", "Step": "a path", "VarRef": "a name", "Literal": "a literal",
               "EnumRef": "an enum member", "Param": "a parameter", "GlobalRef": "a global", "Backlink": "a backlink",
               "FuncCall": "a function call", "UnaryOp": "an operator expression", "Cast": "a cast",
               "Index": "an index ('[i]')", "Slice": "a slice ('[a:b]')", "IfElse": "an 'if ... else'",
               "Tuple_": "a tuple", "NamedTuple": "a named tuple", "ArrayLit": "an array", "SetLit": "a set literal",
               "FreeObject": "a free object ('{ a := ... }')", "ShapeExpr": "a shape on an expression",
               "TypeFilter": "a type filter ('[is T]')", "TypeCheck": "a type check ('is T')",
               "Introspect": "an introspection ('introspect T')", "SubSelect": "a sub-select",
               "LinkPropRef": "a link property ('@p')", "NamedArg": "a named argument", "StatementExpr": "a statement",
               "SelectQuery": "a select", "InsertQuery": "an insert", "GroupQuery": "a 'group'"}
