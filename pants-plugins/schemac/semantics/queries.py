"""Query checking: one named query file -> its typed IR (:class:`schemac.semantics.qir.Query`), then,
through :mod:`schemac.semantics.lowering`, a :class:`QueryPlan` (parameterised SQL, typed parameters,
typed result, cardinality): the plain data model the TS and Go renderers read.

Rules (their SQL: :mod:`schemac.semantics.lowering`):

* every user value is a bound parameter ``$n`` (never spliced into SQL);
* ``insert`` returns ``{ id }`` (Gel's default shape); ``update`` and ``delete`` return
  ``{ id }`` of every row they touch; ``select (insert ...) { shape }`` any shape of them;
* ``select Type { a, b, link: { id } }`` returns the shape's columns (a single link's id as
  ``link_id``); ``order by`` sorts empty values first ascending and last descending, as Gel;
* cardinality: insert -> ``one`` (``at_most_one`` with ``unless conflict``); select, update and
  delete -> ``at_most_one`` when the filter pins ``.id`` or every column of a full
  (non-partial) exclusive constraint with ``=`` (or, for select, ``limit 1``), else ``many``. A partial exclusive never makes a query
  single (a row outside its predicate may share the key).
"""

from __future__ import annotations
import dataclasses
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple
from schemac.semantics import bound_subject, computed_sql, functions, ir_facts, lowering, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import Reporter, Span, did_you_mean
from schemac.frozen import fast_init_all
from schemac.semantics.exprs import ExprContext, ParamSpec, ParamTable, check
from schemac.semantics.model import ExclusiveConstraint, ObjectType, Schema, ValueType, name_candidates, union_view
from schemac.semantics.qir import AT_MOST_ONE, MANY, ONE, ResultField
from schemac.semantics.scalars import SCALARS
from schemac.semantics import sqlnames
from schemac.semantics.sqlnames import qi, snake_case
from schemac.semantics import q_dml, q_filters, q_for, q_group, q_links, q_select, q_shapes, q_values, q_with

#: Kept importable from here: how scalars are spelled in a nested shape's JSON.
JSON_SPELLING = lowering.JSON_SPELLING

JSON = ValueType(scalar=SCALARS["json"])

_QUERY_NAME = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
_KEBAB = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)+$")
_CAMEL = re.compile(r"^[a-z][a-zA-Z0-9]*$")


def _abstract_type(schema, name: str, module: str, span, reporter, stmt=None) -> bool:
    """A statement on an abstract type other than a select (which reads the objects of its
    concrete subtypes, :func:`_abstract_select`) gets a located diagnostic naming the form, not
    E0301 unknown type: an insert is invalid Gel ("cannot insert into abstract object type",
    https://docs.geldata.com/reference/datamodel/inheritance), ``E0304``; an update or delete
    (the objects of every subtype), a group or a loop's select of one are ``E0206``."""
    if schema.find(name, module, schema.abstract_types) is None:
        return False
    key = _abstract_key(schema, name, module)
    subs = ", ".join(k.split("::")[-1] for k in schema.descendants.get(key, ())) or "none"
    body = stmt.body if isinstance(stmt, (ast.ForQuery, ast.SelectDml)) else stmt
    if isinstance(body, ast.InsertQuery):
        reporter.error("E0304", f"cannot insert into the abstract type '{name}'", span,
                       f"insert one of its concrete subtypes ({subs})")
        return True
    what, verb = {ast.UpdateQuery: ("an update", "update"), ast.DeleteQuery: ("a delete", "delete"),
                  ast.SelectQuery: ("a 'for' loop's select", "select")}.get(type(body), ("a group", "group"))  # type: ignore[arg-type]
    reporter.error("E0206", f"{what} of the abstract type '{name}' (the objects of its concrete subtypes: {subs}) "
                   "is not supported yet", span, f"{verb} each concrete subtype, or select the abstract type")
    return True


def _abstract_key(schema: Schema, name: str, module: str) -> Optional[str]:
    """The qualified name of the abstract type ``name`` means in ``module``, or ``None``."""
    for key in name_candidates(name, module, schema.module_library):
        if key in schema.abstract_types:
            return key
    return None


def _is_a(schema: Schema, sub: ObjectType, name: str, module: str) -> Optional[bool]:
    """Whether the concrete type ``sub`` is the type ``name`` or extends it (``None``: no such
    type); ``name`` may be a union, ``A | B`` (``[is A | B].x``): whether it is either."""
    if " | " in name:
        found = [_is_a(schema, sub, part, module) for part in name.split(" | ")]
        return None if None in found else any(found)
    for key in name_candidates(name, module, schema.module_library):
        if key in schema.types or key in schema.abstract_types:
            return sub.qualname in schema.descendants.get(key, ())
    return None


def _type_filtered(el: ast.ShapeElement) -> Optional[Tuple[str, ast.ShapeElement]]:
    """``(T, element)`` of a shape element read from the objects of one subtype: ``[is T].x``,
    ``x := [is T].x`` (also ``?? {}``: the element is empty for the others anyway, and with
    a shape), as the element of ``T``'s objects; ``None`` for any other element."""
    if el.type_filter is not None:
        return el.type_filter, dataclasses.replace(el, type_filter=None)
    v = el.value
    if isinstance(v, ast.BinOp) and v.op == "??" and q_links._is_empty_set(v.right):
        v = v.left
    shape = el.shape
    if isinstance(v, ast.ShapeExpr):
        shape, v = v.shape, v.base
    if isinstance(v, ast.Step) and v.kind == "." and isinstance(v.base, ast.TypeFilter) \
            and isinstance(v.base.base, ast.Path) and not v.base.base.steps:
        # (`n := [is T].notes`: the pointer, its field renamed afterwards)
        return v.base.type.name, dataclasses.replace(el, name=v.name, value=None, shape=shape)
    return None


def _subject_type_filter(e) -> Optional[ast.TypeFilter]:
    """A ``[is T]`` of the subject (``[is T].x``) anywhere in ``e``, or ``None``."""
    return next((n for n in ast.iter_nodes(e) if isinstance(n, ast.TypeFilter) and isinstance(n.base, ast.Path)
                 and not n.base.steps), None)


def _abstract_select(qf: ast.QueryFile, q: ast.SelectQuery, key: str, ctx: ExprContext,
                     parts: Optional[List[Tuple[ObjectType, Optional[ast.Expr], Optional[ast.SelectExpr]]]] = None
                     ) -> Optional[qir.Query]:
    """``select A { shape } [filter] [order by] [offset] [limit]`` of an abstract type ``A``: the
    objects of its concrete subtypes (https://docs.geldata.com/reference/edgeql/select#polymorphic-queries,
    https://docs.geldata.com/reference/datamodel/inheritance), each subtype a table of its own:
    the same select over each subtype's table (its own computeds, links and access policies),
    united with ``UNION ALL`` and then ordered and paged (ids are unique across tables, so no
    object is twice). A shape element ``[is T].x`` / ``x := [is T].x`` is the element of the
    objects of ``T`` and empty for the others (an optional value, an empty list), as Gel types
    it; elements the subtypes type differently are refused.

    ``parts`` (a union of objects, :func:`_object_union`): the branches, each a concrete type,
    the filter of the operand it comes from and the operand when it orders or pages its objects
    (``key`` then only names the union)."""
    schema = ctx.schema
    subs = [schema.types[k] for k in schema.descendants.get(key, ()) if k in schema.types] if parts is None \
        else [p[0] for p in parts]
    name = key.split("::")[-1]
    if not subs:
        ctx.reporter.error("E0206", f"a query on the abstract type '{name}', which no concrete type extends, is not "
                           "supported yet", q.type_span)
        return None
    for part in (q.filter, *(o.expr for o in q.order)):
        found = _subject_type_filter(part) if part is not None else None
        if found is not None:
            ctx.reporter.error("E0206", f"'[is {found.type.name}]' in the filter or order of a query on the abstract "
                               f"type '{name}' is not supported yet", found.span,
                               "select the concrete type, or read [is T] in the shape")
            return None
    shape = q.shape if q.shape is not None else (ast.ShapeElement("id", None, q.type_span),)
    if any(el.splat for el in shape):
        shape = q_shapes._expand_splats(shape, union_view(key, subs), q_shapes._common_links(subs))
    if parts is not None:
        for el in shape:
            lacking = [sub.name for sub in subs if el.value is None and el.type_filter is None
                       and not el.link_prop and sub.column(el.name) is None and el.name not in sub.links
                       and el.name not in sub.poly_links and el.name not in sub.computeds]
            if lacking and len(lacking) == len(subs):
                ctx.reporter.error("E0302", f"the union ({name}) has no property or link '{el.name}'", el.span)
                return None
            if lacking:
                # (Gel's union type has the pointers every operand's type has)
                ctx.reporter.error("E0302", f"'{el.name}' is not a property or link of every type of the union "
                                   f"({name}): '{lacking[0]}' has none", el.span,
                                   f"read it from the types that have it: [is T].{el.name}")
                return None
    branches: List[qir.Select] = []
    missing: List[Set[int]] = []
    pages: List[Optional[Tuple[Tuple[qir.OrderKey, ...], Optional[qir.Expr], Optional[qir.Expr]]]] = []
    for n_sub, sub in enumerate(subs):
        elements: List[ast.ShapeElement] = []
        gone: Set[int] = set()
        for i, el in enumerate(shape):
            tf = _type_filtered(el)
            if tf is None:
                elements.append(el)
                continue
            is_a = _is_a(schema, sub, tf[0], ctx.module)
            if is_a is None:
                unknown = next((t for t in tf[0].split(" | ") if _is_a(schema, sub, t, ctx.module) is None), tf[0])
                ctx.reporter.error("E0301", f"unknown type '{unknown}'", el.span)
                return None
            if not is_a:
                gone.add(i)
                continue
            inner = tf[1]
            if inner.shape is None and inner.value is None and (
                    inner.name in sub.links or inner.name in sub.poly_links
                    or (inner.name in sub.computeds and (sub.computeds[inner.name].target is not None
                                                         or sub.computeds[inner.name].poly_type is not None))):
                # the objects of a link without a shape: their ids, as Gel returns an object set
                inner = dataclasses.replace(inner, shape=(ast.ShapeElement("id", None, inner.span),))
            elements.append(inner)
        bq = dataclasses.replace(q, type_name=sub.qualname, shape=tuple(elements), offset=None, limit=None)
        own = parts[n_sub][1] if parts is not None else None
        if own is not None:
            # (the operand's filter, then the union's: the same object in both)
            bq = dataclasses.replace(bq, filter=own if q.filter is None else ast.BinOp("and", own, q.filter,
                                                                                       q.filter.span))
        node, _ = q_select._select_node(bq, sub, dataclasses.replace(ctx, subject=sub))
        if node is None:
            return None
        paged = parts[n_sub][2] if parts is not None else None
        if paged is not None:
            pq = dataclasses.replace(bq, order=paged.order, offset=paged.offset, limit=paged.limit)
            pnode, _ = q_select._select_node(pq, sub, dataclasses.replace(ctx, subject=sub))
            if pnode is None:
                return None
            pages.append((pnode.order, pnode.offset, pnode.limit))
        else:
            pages.append(None)
        renamed = [el.name if el.name != b.name else None for el, b in zip(
            (e for i, e in enumerate(shape) if i not in gone), elements)]
        node = dataclasses.replace(node, shape=tuple(
            n if name is None else dataclasses.replace(n, field=dataclasses.replace(n.field, name=name))  # type: ignore[attr-defined]
            for n, name in zip(node.shape, renamed)))
        branches.append(node)
        missing.append(gone)
    # Each position's field, as the subtypes that have it give it.
    fields: List[ResultField] = []
    for i, el in enumerate(shape):
        given = []
        for b, gone in zip(branches, missing):
            if i not in gone:
                given.append(b.shape[i - sum(1 for g in gone if g < i)].field)  # type: ignore[attr-defined]
        if not given:
            ctx.reporter.error("E0206", f"'{el.name}' is empty for every subtype of '{name}': not supported", el.span)
            return None
        first = given[0]
        if any(_shape_type(f) != _shape_type(first) for f in given[1:]):
            ctx.reporter.error("E0206", f"'{el.name}' has a different type in the subtypes of '{name}': a query on the "
                               "abstract type reading it is not supported yet", el.span)
            return None
        optional = any(f.optional for f in given) or (len(given) < len(branches) and not first.multi)
        fields.append(dataclasses.replace(first, optional=optional))
    out = []
    for b, gone in zip(branches, missing):
        nodes = list(b.shape)
        for i in sorted(gone):
            nodes.insert(i, qir.ShapeEmpty(shape[i].span, fields[i]))
        nodes = [dataclasses.replace(n, field=f) for n, f in zip(nodes, fields)]  # type: ignore[misc]
        out.append(dataclasses.replace(b, shape=tuple(nodes)))
    first_b = branches[0]
    node = qir.SelectUnion(q.span, tuple(out), first_b.order, first_b.offset, first_b.limit,
                           tuple(pages) if any(p is not None for p in pages) else ())
    bounds = {}
    for word, expr in (("offset", q.offset), ("limit", q.limit)):
        if expr is not None:
            low = check(expr, ctx, ValueType(scalar=SCALARS["int64"]))
            if low is None:
                return None
            if low.type.family != "num":
                ctx.reporter.error("E0304", f"{word} needs an integer value, got {low.type.name}", expr.span)
                return None
            bounds[word] = low
    node = dataclasses.replace(node, offset=bounds.get("offset"), limit=bounds.get("limit"))
    # (ids are unique across the tables; a union may hold one object twice, once per operand)
    cardinality = AT_MOST_ONE if (isinstance(q.limit, ast.Literal) and q.limit.value == 1) or \
        (q.filter is not None and _pins_id(q.filter) and len(set(map(id, subs))) == len(subs)) else MANY
    return q_values._plan(qf, "select", None, node, ctx, cardinality, (), tuple(fields))


def _shape_type(f: ResultField):
    """What a result field holds, its optionality aside."""
    return (f.name, f.type.pg if f.type is not None else None, f.multi,
            None if f.shape is None else tuple(_shape_type(x) for x in f.shape))


def _pins_id(filt: ast.Expr) -> bool:
    """``.id = x`` (also one of the operands of ``and``): at most one object of any type (ids
    are unique across the tables)."""
    if isinstance(filt, ast.BinOp) and filt.op == "and":
        return _pins_id(filt.left) or _pins_id(filt.right)
    return isinstance(filt, ast.BinOp) and filt.op == "=" and any(
        isinstance(side, ast.Path) and side.steps == ("id",) for side in (filt.left, filt.right))


def query_name(stem: str) -> str:
    """The query name of a file stem, as Gel users write them: ``get_user``, ``get-user`` and
    ``getUser`` are all ``get_user`` (TS ``getUser``, Go ``GetUser``); anything else is kept
    as written (and refused by :func:`check_query`)."""
    if _KEBAB.match(stem):
        return stem.replace("-", "_")
    if _CAMEL.match(stem) and not _QUERY_NAME.match(stem):
        return snake_case(stem)
    return stem


@dataclass(frozen=True)
class QueryPlan:
    """A checked, lowered query.

    ``name``: snake_case query name (file stem). ``sql``: the statement with ``$1..$n``.
    ``params``: in ``$n`` order. ``result``: fields of one result row. ``cardinality``:
    ``one`` | ``at_most_one`` | ``many``. ``exclusives``: the exclusive constraints the statement can
    violate (an insert: all of its type's; an update: those whose columns or predicate it
    writes), for typed errors. ``ir``: the checked query the SQL was lowered from."""

    name: str
    path: str
    kind: str
    subject: Optional[ObjectType]
    sql: str
    params: Tuple[ParamSpec, ...]
    result: Tuple[ResultField, ...]
    cardinality: str
    exclusives: Tuple[ExclusiveConstraint, ...]
    doc: str = ""
    ir: Optional[qir.Query] = dataclasses.field(default=None, compare=False, repr=False)
    #: The result is one value (``select count(User)``), not a row: ``result`` holds its one
    #: field, and the runners return the value itself.
    scalar: bool = False
    #: An insert with optional parameters for properties with defaults: one statement per
    #: combination of them left out (:func:`schemac.semantics.lowering.statement_variants`; ``sql`` is
    #: the first, leaving out none). Empty for every other query.
    variants: Tuple[lowering.Variant, ...] = ()
    #: The foreign keys the statement can violate (:func:`foreign_keys_violated`): ``(constraint
    #: name, when)``, for the runners' ``@throws`` / doc comments.
    foreign_keys: Tuple[Tuple[str, str], ...] = ()


def filtered_upsert(q: QueryPlan) -> bool:
    """Whether the query is an upsert whose else update has a filter (it may then return no row)."""
    return q.ir is not None and _filtered_conflict(n for n in qir.walk(q.ir.statement) if type(n) is qir.Conflict)


def _filtered_conflict(conflicts) -> bool:
    return any(n.else_filter is not None or n.else_visible is not None for n in conflicts)


def plan_query(schema: Schema, qf: ast.QueryFile, reporter: Reporter) -> Optional[QueryPlan]:
    """Check and lower one query file. Returns ``None`` after reporting diagnostics."""
    query = check_query(schema, qf, reporter)
    if query is None:
        return None
    positions = {p.position for p in query.params if p.position is not None}
    if positions and positions != set(range(len(positions))):
        # (Gel's rule and message: positional parameters are $0 ... $n-1)
        missing = sorted(set(range(max(positions) + 1)) - positions)
        reporter.error("E0311", f"missing {', '.join(f'${m}' for m in missing)} positional argument"
                       f"{'s' if len(missing) > 1 else ''}", next(p.span for p in query.params if p.position is not None),
                       "number the parameters from $0 without gaps")
        return None
    # (what is read of the checked statement from here on reads one walk of it: ir_facts)
    nodes = ir_facts.StatementNodes(query.statement)
    if _refuse_tuples(nodes, reporter) or q_for.refuse_record_params(nodes, reporter):
        return None
    keys = lowering.defaulted_params(query.statement, nodes.of(qir.Assign))
    if len(keys) > lowering.MAX_OMITTABLE:
        extra = next(n for n in nodes.of(qir.Assign) if n.default == "param"  # type: ignore[attr-defined]
                     and n.value.param.index == keys[lowering.MAX_OMITTABLE])  # type: ignore[attr-defined]
        reporter.warning("W0008", f"an insert with {len(keys)} optional parameters for properties with a default: "
                         f"the first {lowering.MAX_OMITTABLE} are left out for the database to apply its own "
                         "DEFAULT; from this one on, a missing value gets a copy of the default written into the "
                         "statement", extra.span,
                         "a migration changing these defaults needs the runner regenerated; make some of them "
                         "required (drop 'optional'), or set the rarely given ones with an update")
    query, settings = _trigger_global_params(schema, query, nodes)
    read = {id(query.statement): lowering.read_ctes(query.statement, [*nodes.of(qir.ShapeLink), *nodes.of(qir.LinkPath)])}
    variants = lowering.statement_variants(query.statement, settings, keys, read)
    sql = variants[0].sql if variants else lowering.statement_sql(query.statement, settings, read)
    plan = QueryPlan(query.name, query.path, query.kind, query.subject, sql,
                     query.params, query.result, query.cardinality, query.exclusives, query.doc, query, query.scalar,
                     variants, foreign_keys_violated(schema, nodes))
    # (filtered_upsert of the plan, found from the same walk: kept where backends' memo looks)
    plan.__dict__["_filtered_upsert"] = _filtered_conflict(nodes.of(qir.Conflict))
    return plan


def _refuse_tuples(nodes: ir_facts.StatementNodes, reporter: Reporter) -> bool:
    """A query reading or writing a property of a tuple type: E0206 (the schema stores them, as
    Postgres composite types, but the runners do not map them yet); ``True`` when reported."""
    consumed = set()  # tuple values read only for their elements or length (`.days.0`, `.pts[1].x`)
    free = set()  # tuples written in the query (qir.TupleValue): selected, or elements of one
    # (sets: each class's nodes are read in turn, the order does not matter)
    for n in nodes.of(qir.Call):
        if n.func in ("tuple_element", "array_index", "array", "tuple", "len_array"):  # type: ignore[attr-defined]
            consumed.update(id(a) for a in n.args if type(a) is not qir.TupleValue)  # type: ignore[attr-defined]
    for n in nodes.of(qir.LoopVar):
        if n.elements is not None:  # type: ignore[attr-defined]
            consumed.add(id(n))  # a loop's tuple, read by its elements (columns of the loop's row)
    for n in nodes.of(qir.Batch):
        if n.records:  # type: ignore[attr-defined]
            # an array of tuples as a parameter, a loop's rows (refuse_record_params: only there)
            consumed.update((id(n.source), id(q_for._record_param(n.source))))  # type: ignore[attr-defined]
    for n in nodes.of(qir.Binary):
        if n.op in ("=", "!=", "?=", "?!="):  # type: ignore[attr-defined]
            consumed.update(id(a) for a in (n.left, n.right) if type(a) is not qir.TupleValue)  # type: ignore[attr-defined]
    for n in nodes.of(qir.ShapeComputed):
        if type(n.value) is qir.TupleValue:  # type: ignore[attr-defined]
            # a tuple selected (`select (1, 'x')`, `t := (.a, .b)`): JSON the runners decode
            consumed.update((id(n), id(n.value)))  # type: ignore[attr-defined]
    for n in nodes.of(qir.TupleValue):
        consumed.update(id(e) for e in n.elements if type(e) is qir.TupleValue)  # type: ignore[attr-defined]
        free.add(id(n))
    for n in nodes.of(qir.Assign):
        if (type(n.value) is qir.Call and n.value.func in ("tuple", "array")) \
                or (type(n.value) is qir.Literal and n.value.kind == "null"):  # type: ignore[attr-defined]
            # a tuple property written with a literal, `days := (true, false, true)`, or cleared
            consumed.update((id(n), id(n.value)))  # type: ignore[attr-defined]
    for n in nodes.nodes:
        if id(n) in consumed:
            continue
        column = None if isinstance(n, qir.Expr) else getattr(n, "column", None)
        for vt in (getattr(n, "type", None), getattr(column, "type", None),
                   getattr(getattr(n, "field", None), "type", None)):
            if isinstance(vt, ValueType) and vt.has_tuple and (id(n) in free or any(
                    type(x) is qir.TupleValue for x in qir.walk(n))):
                reporter.error("E0206", f"a tuple ({vt.name}) used here is not supported yet", n.span,  # type: ignore[attr-defined]
                               "a tuple written in a query is selected (select (a, b), t := (.a, .b) in a shape) "
                               "or read by its elements (t.0, t.name)")
                return True
            if isinstance(vt, ValueType) and vt.has_tuple:
                article = "an" if vt.name[:1] in "aeiou" else "a"
                reporter.error("E0206", f"{article} {vt.name} value in a query is not supported yet", n.span,  # type: ignore[attr-defined]
                               "a tuple property is selected (days, p := .pos) or read by its elements (.days.0); "
                               "an array of tuples by its elements (.points[0].0) or len(.points)")
                return True
    return False


_WRITES = (qir.Insert, qir.Update, qir.Delete)


def _trigger_global_params(schema: Schema, query: qir.Query, nodes: ir_facts.StatementNodes):
    """``(query, settings)``: when Gel triggers read globals (``performed_by := global
    current_user``, https://docs.geldata.com/reference/datamodel/triggers), a statement that
    writes hands their values to the triggers it sets off, directly or through cascades, as
    transaction-local settings (``set_config(name, value, true)``, read by the triggers' SQL:
    :func:`schemac.semantics.sqlnames.global_setting`): each is a parameter bound from the
    runner's globals context like any global the query reads (added, optional, after the
    query's own), and ``settings`` lists ``(setting, parameter index, Postgres type)`` for
    :func:`schemac.semantics.lowering.write_sql`."""
    if not schema.trigger_globals or not nodes.has(*_WRITES):
        return query, ()
    params = list(query.params)
    by_name = {p.name: p for p in params}  # type: ignore[attr-defined]
    settings = []
    span = getattr(query.statement, "span", None)
    for qualname in sorted(schema.trigger_globals):
        g = schema.trigger_globals[qualname]
        spec = by_name.get(f"global {qualname}")
        if spec is None:
            spec = ParamSpec(f"global {qualname}", len(params) + 1, g.type, True, span, global_=g)  # type: ignore[arg-type]
            params.append(spec)
        settings.append((sqlnames.global_setting(qualname), spec.index, g.type.pg))  # type: ignore[union-attr]
    return dataclasses.replace(query, params=tuple(params)), tuple(settings)


#: ON DELETE actions that make deleting a referenced row fail (a deferred check fails at
#: COMMIT, not in the statement).
_REFUSING = ("RESTRICT", "NO ACTION")


def foreign_keys_violated(schema: Schema, nodes: ir_facts.StatementNodes) -> Tuple[Tuple[str, str], ...]:
    """The foreign keys (SQLSTATE 23503) a statement can violate, each once, in the order met:
    ``(name, when)``. An insert or update writing a single link (its ``_id`` column: the id is
    the caller's, ``(select T filter .id = $x)``) can name a missing row; one adding multi-link
    targets (``:=``, ``+=``) can, through the join table's ``target_id``; a delete can hit the
    foreign keys that refuse it (``RESTRICT`` / ``NO ACTION``) on every table referencing the
    deleted rows, and on the tables whose rows an ``ON DELETE CASCADE`` deletes with them.
    Removing links (``-=``) and clearing a link violate none, nor does a link given the objects
    a sub-select finds (an optional single link's ``(select T filter .id = $x)``, a multi link's
    ``(select T filter .id in array_unpack($ids))``: an unknown id links nothing, as in Gel).
    Foreign keys written by triggers are not followed. ``nodes``: the statement's."""
    out: Dict[str, str] = {}
    for n in nodes.ordered(*_WRITES):
        t = type(n)
        if t is qir.Insert or t is qir.Update:
            table = schema.table_named(n.subject.table)  # type: ignore[attr-defined]
            fks = {fk.column: fk for fk in table.foreign_keys} if table is not None else {}
            for a in n.sets:  # type: ignore[attr-defined]
                fk = fks.get(a.column.name)
                if fk is not None and a.op == ":=" and type(a.value) is not qir.VisibleId:
                    out.setdefault(fk.name, f"`{fk.column}` names no `{fk.target_table}` row")
            for a in n.links:  # type: ignore[attr-defined]
                join = schema.table_named(a.link.join_table)
                if a.op == "-=" or join is None or type(a.ids) is qir.ExistingIds:
                    continue
                for fk in join.foreign_keys:
                    if fk.column == "target_id":
                        out.setdefault(fk.name, f"an id of `{a.link.name}` names no `{fk.target_table}` row")
        elif t is qir.Delete:
            seen: Set[str] = set()
            todo = [n.subject.table]  # type: ignore[attr-defined]
            while todo:
                deleted = todo.pop(0)
                if deleted in seen:
                    continue
                seen.add(deleted)
                for other, fk in schema.fk_referrers(deleted):
                    if fk.on_delete_sql in _REFUSING:
                        out.setdefault(fk.name, f"a row of `{other.table}` still refers to a deleted `{deleted}` row")
                    elif fk.on_delete_sql == "CASCADE":
                        todo.append(other.table)
    return tuple(out.items())


def check_query(schema: Schema, qf: ast.QueryFile, reporter: Reporter) -> Optional[qir.Query]:
    """Check one query file: its typed IR, or ``None`` after reporting diagnostics."""
    q = q_with._drop_assert_distinct(qf.query, schema, {}) \
        if (qf.text == "" or "assert_distinct" in qf.text) and q_with._calls(qf.query, q_with._ASSERT_DISTINCT) else qf.query
    if q is not qf.query:
        qf = dataclasses.replace(qf, query=q)
    # (the subject's name in its shape, filter, order by and set values is the object at hand;
    # before `update global g` becomes an update of g's type, whose name is not bound there)
    bound = bound_subject.bind_subject(q, schema, reporter)
    if bound is None:
        return None
    q, reads_row = bound
    if q is not qf.query:
        qf = dataclasses.replace(qf, query=q)
    q = _global_write(q, schema, reporter)
    if q is None:
        return None
    if q is not qf.query:
        qf = dataclasses.replace(qf, query=q)
    if not _QUERY_NAME.match(qf.name):
        reporter.error("E0308", f"query file name '{qf.name}' is not a snake_case, kebab-case or camelCase name",
                       Span.point(qf.path, 1, 1),
                       "name query files like enqueue_job.edgeql, enqueue-job.edgeql or enqueueJob.edgeql")
        return None
    inlined = functions.inline_query_call(q, schema, reporter)
    if inlined is None:
        return None
    hoisted = _hoist_free_object_writes(_hoist_with_writes(q))
    if hoisted is not q:
        q = hoisted
        qf = dataclasses.replace(qf, query=q)
    if inlined[1] is not None:
        return _function_query(qf, inlined, schema, reporter)
    if isinstance(q, ast.WithQuery):
        before = len(reporter.diagnostics)
        query = q_with._with(qf, q, schema, reporter)
        return query if len(reporter.diagnostics) == before else None
    if isinstance(q, ast.SelectValue):
        ctx = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query", query_filter=q_filters._query_filter)
        before = len(reporter.diagnostics)
        query = q_values._select_value(qf, q, ctx)
        return query if len(reporter.diagnostics) == before else None
    if isinstance(q, ast.ForExpr):
        ctx = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query", query_filter=q_filters._query_filter)
        before = len(reporter.diagnostics)
        query = q_for._for_any(qf, q, ctx)
        return query if len(reporter.diagnostics) == before else None
    if isinstance(q, ast.GroupExpr):
        ctx = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query", query_filter=q_filters._query_filter)
        before = len(reporter.diagnostics)
        query = q_group._group_query(qf, q, ctx)
        return query if len(reporter.diagnostics) == before else None
    subject = schema.find_type(q.type_name)
    if subject is not None and isinstance(q, ast.SelectQuery) and computed_sql.has_subtypes(schema, subject):
        # a concrete type other types extend: its objects and its subtypes'
        # (https://docs.geldata.com/reference/datamodel/inheritance), as an abstract type's
        ctx = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query", query_filter=q_filters._query_filter)
        before = len(reporter.diagnostics)
        query = _abstract_select(qf, q, subject.qualname, ctx)
        return query if len(reporter.diagnostics) == before else None
    if subject is None and isinstance(q, ast.SelectQuery) and _abstract_key(schema, q.type_name, "default"):
        ctx = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query", query_filter=q_filters._query_filter)
        before = len(reporter.diagnostics)
        query = _abstract_select(qf, q, _abstract_key(schema, q.type_name, "default"), ctx)  # type: ignore[arg-type]
        return query if len(reporter.diagnostics) == before else None
    if subject is None and isinstance(q, ast.DeleteQuery) and q.subject is None \
            and _abstract_key(schema, q.type_name, "default"):
        ctx = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query", query_filter=q_filters._query_filter)
        before = len(reporter.diagnostics)
        query = q_dml._delete_each_table(qf, q, None, ctx, _abstract_key(schema, q.type_name, "default"))
        return query if len(reporter.diagnostics) == before else None
    if subject is None and isinstance(q, ast.UpdateQuery) and q.subject is None \
            and _abstract_key(schema, q.type_name, "default"):
        ctx = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query", query_filter=q_filters._query_filter)
        before = len(reporter.diagnostics)
        query = q_dml._update_each_table(qf, q, None, ctx, _abstract_key(schema, q.type_name, "default"))
        return query if len(reporter.diagnostics) == before else None
    if subject is None and _abstract_type(schema, q.type_name, "default", q.type_span, reporter, q):
        return None
    if subject is None:
        reporter.error("E0301", f"unknown type '{q.type_name}'", q.type_span,
                       did_you_mean(q.type_name.split("::")[-1], [t.name for t in schema.all_types()]))
        return None
    params = ParamTable()
    ctx = ExprContext(schema, subject, "default", reporter, params=params, where="a query", query_filter=q_filters._query_filter)
    if reads_row:
        ctx = dataclasses.replace(ctx, row_refs={bound_subject.ROW: qi(subject.table)}, row_ref_subject=subject)
    before = len(reporter.diagnostics)
    query = _plan_body(qf, q, subject, ctx)
    if len(reporter.diagnostics) != before:
        return None
    return query


_AST_WRITES = (ast.InsertQuery, ast.UpdateQuery, ast.DeleteQuery)


def _global_write(q, schema: Schema, reporter: Reporter):
    """``update global g [filter f] set {...}`` / ``delete global g [filter f]`` (also under
    ``with``) of a computed global holding an object, ``global self := (select User filter .id =
    global self_id)``: Gel updates (deletes) any set of objects
    (https://docs.geldata.com/reference/edgeql/update, .../delete), here the global's object, so
    it is ``update User filter .id = global g [and (f)] set {...}``: nothing when the global is
    empty. ``q`` unchanged for any other query; ``None`` after reporting."""
    body = q.body if isinstance(q, ast.WithQuery) else q
    if not isinstance(body, (ast.UpdateQuery, ast.DeleteQuery)) or not isinstance(body.subject, ast.GlobalRef):
        return q
    ref = body.subject
    g = schema.find(ref.name, "default", schema.globals)
    if g is None or g.target is None:  # type: ignore[attr-defined]
        what = "an update" if isinstance(body, ast.UpdateQuery) else "a delete"
        reporter.error("E0206" if g is not None else "E0302",
                       f"{what} of global '{ref.name}', which holds no object, is not supported" if g is not None
                       else f"unknown global '{ref.name}'", ref.span,
                       "an update or delete of a global names a computed global holding an object: "
                       "global current_user := (select User filter .id = global current_user_id)")
        return None
    target = g.target  # type: ignore[attr-defined]
    filt: ast.Expr = ast.BinOp("=", ast.Path(("id",), ref.span), ast.GlobalRef(ref.name, ref.span), ref.span)
    if body.filter is not None:
        filt = ast.BinOp("and", filt, body.filter, body.filter.span)
    body = dataclasses.replace(body, type_name=target.qualname, type_span=ref.span, filter=filt, subject=None)
    return dataclasses.replace(q, body=body) if isinstance(q, ast.WithQuery) else body


def _syntax_names(node, out: Set[str]) -> Set[str]:
    """Every name a syntax tree reads: names (``x``, ``x.member``) and the types it selects,
    inserts, updates or deletes (not the pointers a shape or an assignment names)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
        elif dataclasses.is_dataclass(n) and not isinstance(n, (type, Span)):
            if isinstance(n, ast.VarRef):
                out.add(n.name)
            elif isinstance(n, ast.EnumRef):
                out.add(n.enum)
            for f in dataclasses.fields(n):
                v = getattr(n, f.name)
                if f.name == "type_name" and isinstance(v, str):
                    out.add(v)
                elif isinstance(v, tuple) or (dataclasses.is_dataclass(v) and not isinstance(v, Span)):
                    stack.append(v)
    return out


def _hoist_with_writes(q):
    """``with p := (with a := <expr>, ... insert T { ... } ...) <body>``: a statement bound by the
    query's ``with`` under a ``with`` block of its own is the statement bound after that block's
    names, ``with a := <expr>, ..., p := (insert T { ... }) <body>``
    (https://docs.geldata.com/reference/edgeql/with: a name is in scope in the rest of its block,
    and the block's value is its statement's). Only when no other part of the query spells one
    of those names (the meaning of the rest of the query is then unchanged); ``q`` itself
    otherwise."""
    if not isinstance(q, ast.WithQuery):
        return q
    out: List[ast.WithBinding] = []
    changed = False
    for i, b in enumerate(q.bindings):
        value = q_for._unparen(b.value)
        inner = q_for._unparen(value.body) if isinstance(value, ast.WithExpr) else None
        if not isinstance(inner, _AST_WRITES):
            out.append(b)
            continue
        names = {ib.name for ib in value.bindings}
        others = _syntax_names((q.bindings[:i], q.bindings[i + 1:], q.body), {x.name for x in q.bindings})
        if names & others or len(names) != len(value.bindings):
            out.append(b)
            continue
        out.extend(value.bindings)
        out.append(dataclasses.replace(b, value=inner))
        changed = True
    return dataclasses.replace(q, bindings=tuple(out)) if changed else q


def _hoist_free_object_writes(q):
    """``select { n := count((delete T filter ...)), p := (insert U { ... }) { name } }``
    (also the body of a ``with``; and ``select count((update ...))``): each insert, update or
    delete a free object's field holds (as its value, in ``count(...)``, ``assert_exists(...)``
    / ``assert_single(...)`` or under a shape) bound in ``with`` under a name of its own (``_stmt1``, ...), the field reading that
    name: ``with _stmt1 := (delete T filter ...) select { n := count(_stmt1) }``. Gel runs a
    statement of a query once, and the rest of the query does not see what it writes
    (https://docs.geldata.com/reference/edgeql/with), which is what a bound write is (a CTE,
    run once, that the statement's other parts read only through its ``RETURNING`` rows).
    ``q`` itself when no field holds one."""
    body = q.body if isinstance(q, ast.WithQuery) else q
    if not isinstance(body, ast.SelectValue) or not (
            isinstance(body.value, ast.FreeObject) or (isinstance(body.value, ast.FuncCall)
                                                       and body.value.name.replace("std::", "") == "count")):
        return q
    taken = {b.name for b in q.bindings} if isinstance(q, ast.WithQuery) else set()
    bindings: List[ast.WithBinding] = []

    def hoist(e):
        if isinstance(e, ast.StatementExpr) and isinstance(e.query, _AST_WRITES):
            n = len(bindings) + 1
            while f"_stmt{n}" in taken:
                n += 1
            name = f"_stmt{n}"
            taken.add(name)
            bindings.append(ast.WithBinding(name, e.span, e.query, e.span))  # type: ignore[arg-type]
            return ast.VarRef(name, e.span)
        if isinstance(e, ast.FuncCall) and len(e.args) == 1 and e.name.replace("std::", "") in (
                "count", "assert_exists", "assert_single"):
            arg = hoist(e.args[0])
            return e if arg is e.args[0] else dataclasses.replace(e, args=(arg,))
        if isinstance(e, ast.ShapeExpr):
            base = hoist(e.base)
            return e if base is e.base else dataclasses.replace(e, base=base)
        return e

    if isinstance(body.value, ast.FuncCall):
        # `select count((update T ... set {...}))`: the value of one such call
        value = hoist(body.value)
        if not bindings:
            return q
        body = dataclasses.replace(body, value=value)
    else:
        elements = tuple(el if el.value is None else dataclasses.replace(el, value=hoist(el.value))
                         for el in body.value.elements)
        if not bindings:
            return q
        body = dataclasses.replace(body, value=dataclasses.replace(body.value, elements=elements))
    if isinstance(q, ast.WithQuery):
        return dataclasses.replace(q, bindings=q.bindings + tuple(bindings), body=body)
    return ast.WithQuery(tuple(bindings), body, q.span)


def _function_query(qf: ast.QueryFile, inlined, schema: Schema, reporter: Reporter) -> Optional[qir.Query]:
    """``select f(...)``, ``select f(...) { shape }``, ``select f(...).p`` of a function returning
    objects (:func:`schemac.semantics.functions.inline_query_call`): the query ``with <parameters>
    select (<body>) [{ shape }]``, whose cardinality is the function's declared one
    (https://docs.geldata.com/reference/datamodel/functions: ``set of`` many, ``optional`` at
    most one, else exactly one), and for ``.p`` the property's value alone."""
    q, fn, step = inlined
    if fn.module != "default":
        reporter.error("E0206", f"a call of function '{fn.name}()' of module '{fn.module}' returning objects is not "
                       "supported yet", qf.query.span)
        return None
    before = len(reporter.diagnostics)
    query = q_with._with(qf, q, schema, reporter)
    if query is None or len(reporter.diagnostics) != before:
        return None
    declared = {"set of": MANY, "optional": AT_MOST_ONE}.get(fn.returns_qualifier, ONE)
    order = (ONE, AT_MOST_ONE, MANY)
    if order.index(query.cardinality) > order.index(declared):
        returns = "one object" if declared == ONE else "at most one object"
        got = "several" if query.cardinality == MANY else "none"
        reporter.error("E0204", f"function '{fn.name}()' returns {returns}, but its body may return {got}",
                       fn.body.span, "declare it '-> set of ...' or '-> optional ...'")
        return None
    query = dataclasses.replace(query, cardinality=declared)
    if step is not None:
        field = query.result[0]
        if declared == AT_MOST_ONE:
            field = dataclasses.replace(field, optional=True)  # (no object: no value)
        query = dataclasses.replace(query, scalar=True, result=(field,))
    return query


def _plan_body(qf: ast.QueryFile, q, subject: ObjectType, ctx: ExprContext) -> Optional[qir.Query]:
    """Check a query (not ``with``) in the scope ``ctx``."""
    if isinstance(q, ast.InsertQuery):
        return q_dml._insert(qf, q, subject, ctx)
    if isinstance(q, ast.DeleteQuery) and q.subject is None and not ctx.variables \
            and computed_sql.has_subtypes(ctx.schema, subject):
        return q_dml._delete_each_table(qf, q, subject, ctx)
    if isinstance(q, ast.UpdateQuery) and q.subject is None and not ctx.variables \
            and computed_sql.has_subtypes(ctx.schema, subject):
        return q_dml._update_each_table(qf, q, subject, ctx)
    if isinstance(q, (ast.UpdateQuery, ast.DeleteQuery, ast.SelectQuery, ast.SelectDml)) \
            and computed_sql.concrete_parent(ctx.schema, subject, q.type_span, ctx.reporter,
                                "an update" if isinstance(q, ast.UpdateQuery) else
                                "a delete" if isinstance(q, ast.DeleteQuery) else "this select"):
        return None
    if isinstance(q, ast.UpdateQuery):
        return q_dml._update(qf, q, subject, ctx)
    if isinstance(q, ast.SelectQuery):
        return q_select._select(qf, q, subject, ctx)
    if isinstance(q, ast.ForQuery):
        return q_for._for(qf, q, subject, ctx)
    if isinstance(q, ast.SelectDml):
        return q_shapes._select_dml(qf, q, subject, ctx)
    return q_dml._delete(qf, q, subject, ctx)


fast_init_all(globals())
