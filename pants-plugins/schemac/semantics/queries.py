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
import types
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple

from schemac.semantics import bound_subject, computed_sql, fts, functions, lowering, policies, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import Reporter, Span, did_you_mean
from schemac.frozen import fast_init_all
from schemac.semantics.exprs import (BOOL, ExprContext, ParamSpec, ParamTable, assignment_cast, check, for_rows,
                                     is_for_rows, free_loop, free_rows, first_free_row, set_backlink_computed,
                                     column_of, is_param, json_element_refusal, link_prop_column, selected_tuple,
                                     refuse_poly_link, value_set_array, assert_call, assert_message,
                                     value_set_parts, check_filter, _objects_part)
from schemac.semantics.model import (ExclusiveConstraint, Link, ObjectType, PolyLink, Schema, ValueType,
                                     abstract_view, backlink_link, link_prop_named, link_prop_names,
                                     name_candidates, single_link_props, union_view)
from schemac.semantics.names import go_name
from schemac.semantics.extensions import is_vector
from schemac.semantics.qir import AT_MOST_ONE, MANY, ONE, ResultField
from schemac.semantics.scalars import NOT_IN_JSON, SCALARS, range_kind
from schemac.semantics import sqlnames
from schemac.semantics.sqlnames import qi, snake_case

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
    if isinstance(v, ast.BinOp) and v.op == "??" and _is_empty_set(v.right):
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
        shape = _expand_splats(shape, union_view(key, subs), _common_links(subs))
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
        node, _ = _select_node(bq, sub, dataclasses.replace(ctx, subject=sub))
        if node is None:
            return None
        paged = parts[n_sub][2] if parts is not None else None
        if paged is not None:
            pq = dataclasses.replace(bq, order=paged.order, offset=paged.offset, limit=paged.limit)
            pnode, _ = _select_node(pq, sub, dataclasses.replace(ctx, subject=sub))
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
    return _plan(qf, "select", None, node, ctx, cardinality, (), tuple(fields))


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
    return q.ir is not None and any(type(n) is qir.Conflict and (n.else_filter is not None or  # type: ignore[attr-defined]
                                                                 n.else_visible is not None)  # type: ignore[attr-defined]
                                    for n in qir.walk(q.ir.statement))


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
    if _refuse_tuples(query.statement, reporter) or refuse_record_params(query.statement, reporter):
        return None
    keys = lowering.defaulted_params(query.statement)
    if len(keys) > lowering.MAX_OMITTABLE:
        extra = next(n for n in qir.walk(query.statement) if type(n) is qir.Assign and n.default == "param"
                     and n.value.param.index == keys[lowering.MAX_OMITTABLE])  # type: ignore[attr-defined]
        reporter.warning("W0008", f"an insert with {len(keys)} optional parameters for properties with a default: "
                         f"the first {lowering.MAX_OMITTABLE} are left out for the database to apply its own "
                         "DEFAULT; from this one on, a missing value gets a copy of the default written into the "
                         "statement", extra.span,
                         "a migration changing these defaults needs the runner regenerated; make some of them "
                         "required (drop 'optional'), or set the rarely given ones with an update")
    query, settings = _trigger_global_params(schema, query)
    variants = lowering.statement_variants(query.statement, settings)
    sql = variants[0].sql if variants else lowering.statement_sql(query.statement, settings)
    return QueryPlan(query.name, query.path, query.kind, query.subject, sql,
                     query.params, query.result, query.cardinality, query.exclusives, query.doc, query, query.scalar,
                     variants, foreign_keys_violated(schema, query.statement))


def _refuse_tuples(stmt: qir.Node, reporter: Reporter) -> bool:
    """A query reading or writing a property of a tuple type: E0206 (the schema stores them, as
    Postgres composite types, but the runners do not map them yet); ``True`` when reported."""
    consumed = set()  # tuple values read only for their elements or length (`.days.0`, `.pts[1].x`)
    free = set()  # tuples written in the query (qir.TupleValue): selected, or elements of one
    for n in qir.walk(stmt):
        if (type(n) is qir.Call and n.func in ("tuple_element", "array_index", "array", "tuple")) or \
                (type(n) is qir.Call and n.func == "len_array"):  # type: ignore[attr-defined]
            consumed.update(id(a) for a in n.args if type(a) is not qir.TupleValue)  # type: ignore[attr-defined]
        elif type(n) is qir.LoopVar and n.elements is not None:  # type: ignore[attr-defined]
            consumed.add(id(n))  # a loop's tuple, read by its elements (columns of the loop's row)
        elif type(n) is qir.Batch and n.records:  # type: ignore[attr-defined]
            # an array of tuples as a parameter, a loop's rows (refuse_record_params: only there)
            consumed.update((id(n.source), id(_record_param(n.source))))  # type: ignore[attr-defined]
        elif type(n) is qir.Binary and n.op in ("=", "!=", "?=", "?!="):  # type: ignore[attr-defined]
            consumed.update(id(a) for a in (n.left, n.right) if type(a) is not qir.TupleValue)  # type: ignore[attr-defined]
        elif type(n) is qir.ShapeComputed and type(n.value) is qir.TupleValue:  # type: ignore[attr-defined]
            # a tuple selected (`select (1, 'x')`, `t := (.a, .b)`): JSON the runners decode
            consumed.update((id(n), id(n.value)))  # type: ignore[attr-defined]
        elif type(n) is qir.TupleValue:
            consumed.update(id(e) for e in n.elements if type(e) is qir.TupleValue)  # type: ignore[attr-defined]
            free.add(id(n))
        elif type(n) is qir.Assign and ((type(n.value) is qir.Call and n.value.func in ("tuple", "array"))
                                        or (type(n.value) is qir.Literal and n.value.kind == "null")):  # type: ignore[attr-defined]
            # a tuple property written with a literal, `days := (true, false, true)`, or cleared
            consumed.update((id(n), id(n.value)))  # type: ignore[attr-defined]
    for n in qir.walk(stmt):
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


def _trigger_global_params(schema: Schema, query: qir.Query):
    """``(query, settings)``: when Gel triggers read globals (``performed_by := global
    current_user``, https://docs.geldata.com/reference/datamodel/triggers), a statement that
    writes hands their values to the triggers it sets off, directly or through cascades, as
    transaction-local settings (``set_config(name, value, true)``, read by the triggers' SQL:
    :func:`schemac.semantics.sqlnames.global_setting`): each is a parameter bound from the
    runner's globals context like any global the query reads (added, optional, after the
    query's own), and ``settings`` lists ``(setting, parameter index, Postgres type)`` for
    :func:`schemac.semantics.lowering.write_sql`."""
    if not schema.trigger_globals or not any(isinstance(n, _WRITES) for n in qir.walk(query.statement)):
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


def foreign_keys_violated(schema: Schema, stmt: qir.Node) -> Tuple[Tuple[str, str], ...]:
    """The foreign keys (SQLSTATE 23503) a statement can violate, each once, in the order met:
    ``(name, when)``. An insert or update writing a single link (its ``_id`` column: the id is
    the caller's, ``(select T filter .id = $x)``) can name a missing row; one adding multi-link
    targets (``:=``, ``+=``) can, through the join table's ``target_id``; a delete can hit the
    foreign keys that refuse it (``RESTRICT`` / ``NO ACTION``) on every table referencing the
    deleted rows, and on the tables whose rows an ``ON DELETE CASCADE`` deletes with them.
    Removing links (``-=``) and clearing a link violate none, nor does a link given the objects
    a sub-select finds (an optional single link's ``(select T filter .id = $x)``, a multi link's
    ``(select T filter .id in array_unpack($ids))``: an unknown id links nothing, as in Gel).
    Foreign keys written by triggers are not followed."""
    out: Dict[str, str] = {}
    for n in qir.walk(stmt):
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
    q = _drop_assert_distinct(qf.query, schema, {}) \
        if (qf.text == "" or "assert_distinct" in qf.text) and _calls(qf.query, _ASSERT_DISTINCT) else qf.query
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
        query = _with(qf, q, schema, reporter)
        return query if len(reporter.diagnostics) == before else None
    if isinstance(q, ast.SelectValue):
        ctx = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query", query_filter=_query_filter)
        before = len(reporter.diagnostics)
        query = _select_value(qf, q, ctx)
        return query if len(reporter.diagnostics) == before else None
    if isinstance(q, ast.ForExpr):
        ctx = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query", query_filter=_query_filter)
        before = len(reporter.diagnostics)
        query = _for_any(qf, q, ctx)
        return query if len(reporter.diagnostics) == before else None
    if isinstance(q, ast.GroupExpr):
        ctx = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query", query_filter=_query_filter)
        before = len(reporter.diagnostics)
        query = _group_query(qf, q, ctx)
        return query if len(reporter.diagnostics) == before else None
    subject = schema.find_type(q.type_name)
    if subject is not None and isinstance(q, ast.SelectQuery) and computed_sql.has_subtypes(schema, subject):
        # a concrete type other types extend: its objects and its subtypes'
        # (https://docs.geldata.com/reference/datamodel/inheritance), as an abstract type's
        ctx = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query", query_filter=_query_filter)
        before = len(reporter.diagnostics)
        query = _abstract_select(qf, q, subject.qualname, ctx)
        return query if len(reporter.diagnostics) == before else None
    if subject is None and isinstance(q, ast.SelectQuery) and _abstract_key(schema, q.type_name, "default"):
        ctx = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query", query_filter=_query_filter)
        before = len(reporter.diagnostics)
        query = _abstract_select(qf, q, _abstract_key(schema, q.type_name, "default"), ctx)  # type: ignore[arg-type]
        return query if len(reporter.diagnostics) == before else None
    if subject is None and isinstance(q, ast.DeleteQuery) and q.subject is None \
            and _abstract_key(schema, q.type_name, "default"):
        ctx = ExprContext(schema, None, "default", reporter, params=ParamTable(), where="a query", query_filter=_query_filter)
        before = len(reporter.diagnostics)
        query = _delete_each_table(qf, q, None, ctx, _abstract_key(schema, q.type_name, "default"))
        return query if len(reporter.diagnostics) == before else None
    if subject is None and _abstract_type(schema, q.type_name, "default", q.type_span, reporter, q):
        return None
    if subject is None:
        reporter.error("E0301", f"unknown type '{q.type_name}'", q.type_span,
                       did_you_mean(q.type_name.split("::")[-1], [t.name for t in schema.all_types()]))
        return None
    params = ParamTable()
    ctx = ExprContext(schema, subject, "default", reporter, params=params, where="a query", query_filter=_query_filter)
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
        value = _unparen(b.value)
        inner = _unparen(value.body) if isinstance(value, ast.WithExpr) else None
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
    query = _with(qf, q, schema, reporter)
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
        return _insert(qf, q, subject, ctx)
    if isinstance(q, ast.DeleteQuery) and q.subject is None and not ctx.variables \
            and computed_sql.has_subtypes(ctx.schema, subject):
        return _delete_each_table(qf, q, subject, ctx)
    if isinstance(q, (ast.UpdateQuery, ast.DeleteQuery, ast.SelectQuery, ast.SelectDml)) \
            and computed_sql.concrete_parent(ctx.schema, subject, q.type_span, ctx.reporter,
                                "an update" if isinstance(q, ast.UpdateQuery) else
                                "a delete" if isinstance(q, ast.DeleteQuery) else "this select"):
        return None
    if isinstance(q, ast.UpdateQuery):
        return _update(qf, q, subject, ctx)
    if isinstance(q, ast.SelectQuery):
        return _select(qf, q, subject, ctx)
    if isinstance(q, ast.ForQuery):
        return _for(qf, q, subject, ctx)
    if isinstance(q, ast.SelectDml):
        return _select_dml(qf, q, subject, ctx)
    return _delete(qf, q, subject, ctx)


def _assignments(assigns, subject: ObjectType, ctx: ExprContext, insert: bool) -> List[qir.Node]:
    """Check ``p := value`` assignments: :class:`~schemac.semantics.qir.Assign` (a column) and
    :class:`~schemac.semantics.qir.LinkAssign` (a multi link) nodes, in order.

    In an insert, a parameter assigned to a property with a default is optional: when it is
    NULL (omitted) the runner sends the statement that leaves the column out, so the column's
    DEFAULT applies (:func:`schemac.semantics.lowering.statement_variants`)."""
    out: List[qir.Node] = []
    seen: Set[str] = set()
    for a in assigns:
        if a.name in seen:
            ctx.reporter.error("E0309", f"'{a.name}' is assigned twice", a.name_span)
            continue
        seen.add(a.name)
        pl = subject.poly_links.get(a.name)
        exists = False
        if pl is not None or a.name in subject.links:
            source = _link_source(a, subject, ctx)
            if source is None:
                continue
            a, exists = source
            if exists:
                n = len(out)
                out.extend(_assignments((a,), subject, ctx, insert))
                if len(out) > n:
                    out[n] = _asserted(out[n], exists if isinstance(exists, str) else None)
                continue
        parts = _union_operands(a.value) if pl is not None and pl.multi and insert and a.op == ":=" else None
        if parts is not None and len(parts) > 1 and all(isinstance(p, ast.SubSelect) for p in parts) \
                and len({p.type_name for p in parts}) == len(parts):  # (of distinct types: no object twice)
            # `references := (select URL filter ...) union (select File filter ...)` in an insert
            # (geldata/gel tests/schemas/issues_setup.edgeql): the join rows of each operand
            # (a union of objects is each of them, https://docs.geldata.com/reference/stdlib/set)
            for part in parts:
                out.extend(_assignments((dataclasses.replace(a, value=part),), subject, ctx, insert))
            continue
        if pl is not None and pl.multi and isinstance(a.value, ast.SubSelect):
            # items += (select Movie filter .id in array_unpack(...)): join rows holding the ids
            # in target_id and in the subtype's column
            target = ctx.schema.find_type(a.value.type_name, ctx.module)
            column = next((c for t, c in pl.targets if t is target), None) if target is not None else None
            if column is None:
                names = ", ".join(t.name for t, _ in pl.targets)
                ctx.reporter.error("E0304", f"'{a.name}' links to {names}: select one of them, not "
                                   f"{a.value.type_name}", a.value.type_span)
                continue
            assigned = _link_value(a, Link(pl.name, target, True, pl.required, column, pl.join_table),  # type: ignore[arg-type]
                                   subject, ctx, insert)
            if assigned is not None:
                out.append(assigned)
            continue
        if pl is not None and not pl.multi and a.op == ":=" and (
                isinstance(a.value, ast.SubSelect) or _is_nested_insert(a.value)
                or (isinstance(a.value, ast.VarRef) and a.value.name in ctx.bound_writes)):
            # link := (select Movie filter .id = ...), (insert Movie {...}), a with-bound
            # insert: that subtype's column, the others NULL
            sets = _poly_link_value(a, pl, subject, ctx, insert)
            if sets is not None:
                out.extend(sets)
            continue
        if refuse_poly_link(subject, a.name, a.name_span, ctx.reporter):
            continue
        link = subject.links.get(a.name)
        if link is not None:
            if not link.multi and single_link_props(subject, link.name) is not None:
                sets = _single_link_props_value(a, link, subject, ctx, insert)
                if sets is not None:
                    out.extend(sets)
                continue
            assigned = _link_value(a, link, subject, ctx, insert)
            if assigned is not None:
                out.append(assigned)
            continue
        col = subject.column(a.name)
        if a.name in subject.computeds:
            ctx.reporter.error("E0302", f"'{a.name}' is computed and cannot be assigned", a.name_span,
                               "a computed is never stored: assign the properties it reads")
            continue
        if col is None or col.link is not None:
            ctx.reporter.error("E0302", f"type '{subject.name}' has no property '{a.name}'", a.name_span,
                               did_you_mean(a.name, [c.name for c in subject.columns if not c.is_id and c.link is None
                                                  and c.link_prop is None] + list(subject.links)))
            continue
        if col.is_id:
            ctx.reporter.error("E0302", "'id' is generated and cannot be assigned", a.name_span)
            continue
        if col.readonly and not insert:
            ctx.reporter.error("E0310", f"'{a.name}' is readonly and cannot be updated", a.name_span,
                               "readonly properties are set once, by insert")
            continue
        if a.op != ":=":
            node = _add_or_remove(a, col, insert, ctx)
            if node is not None:
                out.append(node)
            continue
        if col.multi and _json_elements(a.value) is not None:
            node = _assign_json_elements(a, col, ctx)
            if node is not None:
                out.append(node)
            continue
        unpacked = _multi_values(a.value) if col.multi and isinstance(a.value, ast.IfElse) else None
        if unpacked is not None:
            node = _assign_multi_values(a, unpacked, col, insert, ctx)
            if node is not None:
                out.append(node)
            continue
        if _is_empty_set(a.value):
            node = _clear(a, col, ctx)
            if node is not None:
                out.append(node)
            continue
        found = value_set_array(a.value, ctx) if col.multi else None
        if found is False:
            continue
        if col.multi and (found is not None or isinstance(a.value, ast.Literal) or (
                isinstance(a.value, ast.Cast) and a.value.type.name.split("::")[-1] != "array")):
            # `nicknames := {'a', 'b'}`, `:= array_unpack(<array<str>>$n)`, `:= <str>$n`: a multi
            # property (an array column) holds the set's values, none when it is empty
            # (https://docs.geldata.com/reference/datamodel/properties#multi)
            if found is None:
                found = check(a.value, ctx, col.type.element)
                if found is not None and found.type.element is None and found.type.family == col.type.element.family:
                    found = qir.Call(found.span, col.type, False, "multi/of_one", (found,))
                elif found is not None and found.nullable and found.type.element is not None:
                    found = qir.Call(found.span, col.type, False, "multi/or_none", (found,))
            if found is None:
                continue
            if found.type.element is None or found.type.element.family != col.type.element.family:
                ctx.reporter.error("E0304", f"'{a.name}' holds {col.type.element.name}, but the value is "
                                   f"{(found.type.element or found.type).name}", a.value.span)
                continue
            out.append(qir.Assign(a.span, col, found))
            continue
        # (a default reading the row, col.row_default_sql: its trigger fills a NULL)
        use_default = insert and (col.has_default or col.row_default_sql is not None) \
            and isinstance(a.value, (ast.Param, ast.Cast))
        low = check(assignment_cast(a.value, col.type), ctx, col.type,
                    allow_optional_param=use_default or not col.required)
        if low is None:
            continue
        if low.type.family != col.type.family and col.type.enum is not None and col.type.element is None \
                and low.type.family == "str" and low.type.element is None:
            # `status := <str>$s`: Gel's assignment cast from str to an enum (its std library:
            # `create cast from std::str to std::anyenum { ... allow assignment }`,
            # https://docs.geldata.com/reference/stdlib/enum): the text is stored, and a text that
            # names no member fails the statement (the column's CHECK, SQLSTATE 23514), as Gel
            # fails the cast. The parameter stays a str.
            low = dataclasses.replace(low, type=col.type)
        if low.type.family != col.type.family:
            ctx.reporter.error("E0304", f"'{a.name}' is {col.type.name}, but the value is {low.type.name}",
                               a.value.span)
            continue
        if use_default and low.nullable and is_param(low):
            out.append(qir.Assign(a.span, col, low, default="param" if col.has_default else "row"))
            continue
        if insert and col.row_default_sql is not None and low.nullable and isinstance(a.value, ast.Cast):
            out.append(qir.Assign(a.span, col, low, default="row"))
            continue
        if insert and col.has_default and low.nullable and isinstance(a.value, ast.Cast):
            # `<optional T>item['k']` of a json loop: a missing member means the default.
            out.append(qir.Assign(a.span, col, low, default="json"))
            continue
        # (A value that may be empty assigned to a required property compiles, as in Gel: its
        # compiler leaves "the lower cardinality bound check [of a mutation] to the runtime DML
        # constraint" (edb/edgeql/compiler/inference/cardinality.py), so an empty value fails the
        # statement when it runs, Gel's MissingRequiredError; here the column's NOT NULL, SQLSTATE
        # 23502, the runners' NotNullViolationError / ErrNotNullViolation.)
        if not insert:
            _mark_unchanged(a.value, col.name, ctx)
        out.append(qir.Assign(a.span, col, low))
    return out


def _link_source(a: ast.Assignment, subject: ObjectType,
                 ctx: ExprContext) -> Optional[Tuple[ast.Assignment, bool]]:
    """A link's value as the forms below read it: ``(a, exists)``, ``exists`` when it is wrapped
    in ``assert_exists(...)`` (the statement fails when it selects no object,
    https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists). A link is
    assigned any expression of objects of its type (https://docs.geldata.com/reference/edgeql/insert#links,
    .../update): a ``with`` name bound to a selection, ``p := (select Player filter ...)``, is
    that selection (``author := p``, ``tags += p``; a select has no effect, so reading it
    where it is used is the same set of objects); in ``link -= (select .link filter ...)``, the
    objects of the link that the filter keeps are removed, which are the objects of its
    type that the filter keeps (removing an object that is not linked changes nothing)."""
    value, exists = a.value, False
    call = assert_call(value)
    if call is not None and call[0] == "assert_exists" and call[2] is not None:
        # `author := assert_exists((select ...), message := '...')`: fails with that message
        message = assert_message(call[2], ctx)
        if message is False:
            return None
        value, exists = call[1], message
        call = assert_call(value)
    if call is not None and call[2] is not None:
        ctx.reporter.error("E0206", f"{call[0]}(..., message := ...) as a link's value is not supported yet",
                           value.span, f"drop the message: {call[0]}(...) fails with Gel's own")
        return None
    while isinstance(value, ast.FuncCall) and value.name in ("assert_exists", "std::assert_exists") \
            and len(value.args) == 1:
        value, exists = value.args[0], exists or True
    link = subject.links.get(a.name)
    if link is not None:
        value = _plain_link_selection(value, link, ctx)
        while isinstance(value, ast.FuncCall) and value.name in ("assert_exists", "std::assert_exists") \
                and len(value.args) == 1:
            value, exists = value.args[0], True
    if isinstance(value, ast.FuncCall) and value.name in ("assert_single", "std::assert_single") \
            and len(value.args) == 1 and isinstance(value.args[0], ast.VarRef):
        inner = _selected(value.args[0], link is None, ctx)
        if inner is not value.args[0]:
            value = dataclasses.replace(value, args=(inner,))
    elif isinstance(value, ast.VarRef):
        value = _selected(value, link is None, ctx)
    elif isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.Path) and value.shape is None \
            and not value.order and value.offset is None and value.limit is None \
            and value.subject.steps == (a.name,) and value.filter is not None:
        if a.op == ":=" and link is not None and link.multi and link.join_table is not None:
            return a, exists  # the links the filter keeps (_kept_links)
        if a.op != "-=" or link is None:
            ctx.reporter.error("E0206", f"'{a.name} {a.op} (select .{a.name} filter ...)' is not supported yet"
                               if link is not None else f"'(select .{a.name} ...)' of a polymorphic link as its "
                               "value is not supported yet", value.span,
                               f"select the objects by their type: (select {_target_name(subject, a.name)} filter ...)")
            return None
        value = ast.SubSelect(link.target.qualname, value.subject.span, value.filter, value.span)
    if value is a.value:
        return a, False
    return dataclasses.replace(a, value=value), exists


def _plain_link_selection(value, link, ctx: ExprContext):
    """Other spellings of a selection of the link's target, as the sub-select they select
    (https://docs.geldata.com/reference/edgeql/insert#links: a link is given any expression of
    its target type): ``distinct (...)`` of a selection (a selection holds each object once);
    ``(select T filter <f> limit 1)`` where ``f`` finds at most one object (on ``.id`` or an
    exclusive property: the limit changes nothing); and for a multi link, ``for x in
    array_unpack(arr) union (select T filter .p = x)``, the union of the objects each element
    selects, which are the objects ``.p in array_unpack(arr)`` selects (a link holds each
    object once); ``{(select T ...)}``, a set of one selection; ``(select (insert T {...}))``,
    the insert; ``<T><uuid>x``, Gel's cast of an
    id to the object (https://docs.geldata.com/reference/edgeql/casts: ``assert_exists((select
    T filter .id = x))``, it fails when no object of ``T`` has the id). Anything else is
    returned as it is."""
    if isinstance(value, ast.SetLit) and len(value.items) == 1:
        inner = _plain_link_selection(value.items[0], link, ctx)
        return inner if isinstance(inner, (ast.SubSelect, ast.SelectExpr, ast.FuncCall)) else value
    if isinstance(value, ast.Cast) and not value.type.args and not value.type.optional \
            and value.type.name not in ctx.variables \
            and ctx.schema.find_type(value.type.name, ctx.module) is link.target:
        return ast.FuncCall("assert_exists", (ast.SubSelect(
            value.type.name, value.type.span, ast.BinOp("=", ast.Path(("id",), value.type.span), value.operand,
                                                        value.span), value.span),), value.span)
    if isinstance(value, ast.SelectExpr) and _is_nested_insert(value.subject) and value.shape is None \
            and value.filter is None and not value.order and value.offset is None and value.limit is None:
        return value.subject  # (select (insert T {...})): the inserted object
    if isinstance(value, ast.UnaryOp) and value.op == "distinct":
        inner = _plain_link_selection(value.operand, link, ctx)
        if isinstance(inner, ast.SubSelect):
            return inner
        return value
    if isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.VarRef) and value.shape is None \
            and not value.order and value.offset is None and value.filter is not None \
            and isinstance(value.limit, ast.Literal) and value.limit.value == 1 \
            and value.subject.name not in ctx.variables and value.subject.name not in ctx.type_sets:
        target = ctx.schema.find_type(value.subject.name, ctx.module)
        if target is not None and _pins_one_row(value.filter, target):
            return ast.SubSelect(value.subject.name, value.subject.span, value.filter, value.span)
        return value
    if link.multi and isinstance(value, ast.ForExpr) and isinstance(value.source, ast.FuncCall) \
            and value.source.name in _UNPACK and len(value.source.args) == 1:
        body = _unparen(value.body)
        if isinstance(body, ast.SelectExpr) and isinstance(body.subject, ast.VarRef) and body.shape is None \
                and not body.order and body.offset is None and body.limit is None \
                and body.subject.name not in ctx.variables and body.subject.name not in ctx.type_sets:
            body = ast.SubSelect(body.subject.name, body.subject.span, body.filter, body.span)
        if not isinstance(body, ast.SubSelect) or body.detached:
            return value
        f = body.filter
        if isinstance(f, ast.BinOp) and f.op == "=":
            for side, other in ((f.left, f.right), (f.right, f.left)):
                if isinstance(side, ast.Path) and isinstance(other, ast.VarRef) and other.name == value.var \
                        and not any(isinstance(n, ast.VarRef) and n.name == value.var for n in ast.iter_nodes(side)):
                    return ast.SubSelect(body.type_name, body.type_span, ast.BinOp("in", side, value.source, f.span),
                                         value.span)
    return value


def _target_name(subject: ObjectType, name: str) -> str:
    link = subject.links.get(name)
    return link.target.name if link is not None else subject.poly_links[name].targets[0][0].name


def _selected(ref: ast.VarRef, poly: bool, ctx: ExprContext) -> ast.Expr:
    """The selection a ``with`` name is bound to (see :func:`_link_source`), or ``ref`` itself
    for any other name, and for a name bound to one object (its value is computed once, and
    the link reads it) unless the link is polymorphic (the selection names the subtype)."""
    sel = ctx.selections.get(ref.name)
    if sel is None or ref.name in ctx.bound_writes or (not poly and _bound_object(ref.name, ctx) is not None):
        return ref
    sub = computed_sql.as_subselect(sel)
    return ref if sub is None else sub


def _asserted(node: qir.Node, message: Optional[str] = None) -> qir.Node:
    """A link's assignment whose value is ``assert_exists(...[, message := '...'])``: its ids fail
    the statement when there are none (:class:`~schemac.semantics.qir.AssertExists`)."""
    if type(node) is qir.LinkAssign:
        ids = node.ids  # type: ignore[attr-defined]
        return dataclasses.replace(node, ids=qir.AssertExists(ids.span, ids.type, False, ids, True, message))
    value = node.value  # type: ignore[attr-defined]
    return dataclasses.replace(node, value=qir.AssertExists(value.span, value.type, False, value, False, message))


def _mark_unchanged(value: ast.Expr, column: str, ctx: ExprContext) -> None:
    """``p := $p ?? .p`` (or ``<optional T>$p ?? .p``) in an update: an omitted ``$p`` leaves
    ``p`` unchanged; the parameter says so (its doc in the generated code)."""
    if not (isinstance(value, ast.BinOp) and value.op == "??" and isinstance(value.right, ast.Path)
            and value.right.steps == (column,)):
        return
    left = value.left
    if isinstance(left, ast.Cast) and isinstance(left.operand, ast.Param):
        left = left.operand
    if isinstance(left, ast.Param) and ctx.params is not None:
        spec = ctx.params.params.get(f"arg{int(left.name)}" if left.name.isdecimal() else left.name)
        if spec is not None and spec.optional:
            spec.unchanged = column


def _add_or_remove(a: ast.Assignment, col, insert: bool, ctx: ExprContext) -> Optional[qir.Assign]:
    """``tags += value`` / ``tags -= value`` on a multi property (an array column) in an update.
    ``value`` is one element or an array of them. ``+=`` appends (a multi property is a
    multiset, as in Gel); ``-=`` removes every occurrence, keeping the order of the rest."""
    if insert:
        ctx.reporter.error("E0304", f"'{a.op}' is only valid in an update", a.name_span, f"write {a.name} := ...")
        return None
    if col.type.element is None:
        ctx.reporter.error("E0304", f"'{a.op}' needs a multi property or an array, but '{a.name}' is "
                           f"{col.type.name}", a.name_span, f"write {a.name} := ...")
        return None
    if col.readonly:
        ctx.reporter.error("E0310", f"'{a.name}' is readonly and cannot be updated", a.name_span)
        return None
    elem = col.type.element
    low = value_set_array(a.value, ctx)  # `tags += {'a', 'b'}`, `+= array_unpack(...)`: their values
    if low is False:
        return None
    if low is None:
        low = check(a.value, ctx, elem)
    if low is None:
        return None
    if low.type.family not in (elem.family, col.type.family):
        ctx.reporter.error("E0304", f"'{a.name}' holds {elem.name}, but the value is {low.type.name}", a.value.span)
        return None
    return qir.Assign(a.span, col, low, a.op, element=low.type.family != col.type.family)


def _single_link_props_value(a: ast.Assignment, link: Link, subject: ObjectType, ctx: ExprContext,
                             insert: bool) -> Optional[List[qir.Node]]:
    """``owner := (select User { @note := 'x' } filter .name = 'Elvis')`` of a single link with
    link properties (https://docs.geldata.com/reference/datamodel/linkprops; geldata/gel
    tests/schemas/issues_setup.edgeql): the link as any single link's value, and each property
    it sets in its ``<link>@<prop>`` column (:func:`schemac.semantics.model.single_link_props`).
    In an update, a link to another object is a new link: the properties the value does not set
    get their default (empty without one), as an insert leaves them; the link to the object it
    already links keeps them (a multi link's ``:=`` keeps an existing link's the same way);
    ``owner := {}`` empties them all."""
    lp_type = single_link_props(subject, link.name)
    assert lp_type is not None
    props: Tuple[Tuple[object, qir.Expr], ...] = ()
    value = _undetached(a.value)
    if computed_sql.sets_link_props(value):
        split = _link_props(dataclasses.replace(a, value=value), link, ctx, lp_type)
        if split is None:
            return None
        a, props = split
    assigned = _link_value(a, link, subject, ctx, insert)
    if assigned is None:
        return None
    out: List[qir.Node] = [assigned]
    out.extend(qir.Assign(a.span, col, low) for col, low in props)  # type: ignore[arg-type]
    if not insert:
        given = {col.name for col, _ in props}  # type: ignore[attr-defined]
        new_id = assigned.value if type(assigned) is qir.Assign and assigned.column.link == link.name \
            and assigned.op == ":=" and not _is_empty_set(value) else None  # type: ignore[attr-defined]
        for col in lp_type.columns:
            if col.name in given:
                continue
            if _is_empty_set(value):
                out.append(qir.Assign(a.span, col, qir.Literal(a.span, col.type, True, "null", None)))
            elif new_id is not None:
                # the link to the object it already links keeps its properties (as a multi link's
                # does: ON CONFLICT DO NOTHING); a new one gets the default
                out.append(qir.Assign(a.span, col, new_id, default="reset_unless_same"))
            else:
                out.append(qir.Assign(a.span, col, qir.Literal(a.span, col.type, True, "null", None),
                                      default="reset"))
    return out


def _link_props(a: ast.Assignment, link, ctx: ExprContext, join: Optional[ObjectType] = None):
    """``tags += (select Tag { @weight := <int32>$w } filter ...)``: the assignment of the
    objects alone (``(select Tag filter ...)``) and the link properties it sets, (join-table
    column, value) pairs (https://docs.geldata.com/reference/datamodel/linkprops). A value
    may not read the linked object's properties (``E0206``). ``join``: a single link's
    link-property type (:func:`schemac.semantics.model.single_link_props`)."""
    value = a.value
    join = join if join is not None else _join_table(link, ctx)
    if a.op == "-=" or value.order or value.offset is not None or value.limit is not None or join is None \
            or not isinstance(value.subject, ast.VarRef):
        ctx.reporter.error("E0206", "setting link properties here (in '-=', with order/offset/limit, on a select "
                           "of an expression) is not supported yet", value.span,
                           "set them with := or += on (select Type { @prop := ... } filter ...)")
        return None
    props = []
    for el in value.shape:
        if not (el.link_prop and el.value is not None):
            continue  # (an output shape: what the links are is all that counts)
        col = link_prop_named(join, el.name)
        if col is None:
            names = link_prop_names(join)
            ctx.reporter.error("E0302", f"link '{a.name}' has no property '{el.name}'", el.span,
                               did_you_mean(el.name, names) or (f"its link properties: {', '.join(names)}" if names
                                                                else f"'{a.name}' declares no link properties"))
            return None
        own = _aliased_type(el.value, value.subject.name, value.subject.name) \
            if value.subject.name not in ctx.variables else el.value  # (`Card.element` is `.element`)
        if any(isinstance(n, (ast.Path, ast.LinkPropRef)) for n in ast.iter_nodes(own)):
            target = ctx.schema.find_type(value.subject.name, ctx.module) \
                if value.subject.name not in ctx.variables and value.subject.name not in ctx.type_sets else None
            if not link.multi or target is not link.target or target is None or target.from_sql is not None \
                    or any(isinstance(n, ast.LinkPropRef) for n in ast.iter_nodes(own)):
                ctx.reporter.error("E0206", "a link property's value reading the linked object is not supported yet"
                                   + ("" if link.multi else " on a single link"), el.value.span,
                                   "give it a value of the query: a parameter, a constant, a with name")
                return None
            # `@count := len(Card.element) - 2`: read from each linked object's row
            low = check(own, dataclasses.replace(ctx, subject=target, column_prefix=qir.LINK_TARGET_ROW), col.type,
                        allow_optional_param=not col.required)
            if low is None:
                return None
            low = qir.LinkTargetValue(low.span, low.type, low.nullable, low, target)
        else:
            low = check(el.value, dataclasses.replace(ctx, subject=None), col.type,
                        allow_optional_param=not col.required)
        if low is None:
            return None
        if low.type.family != col.type.family:
            ctx.reporter.error("E0304", f"'@{el.name}' is {col.type.name}, but the value is {low.type.name}",
                               el.value.span)
            return None
        # (a required link property given a value that may be empty: as a required property, a
        # NOT NULL violation when it runs)
        props.append((col, low))
    name = value.subject.name
    if value.filter is None and ctx.schema.find_type(name, ctx.module) is None \
            and (name in ctx.type_sets or name in ctx.selections or _bound_object(name, ctx) is not None):
        # `folders += (select f { @path := p })` of a `with` name (a function's object
        # parameter): its objects, each linked with the properties
        return dataclasses.replace(a, value=value.subject), tuple(props)
    filt = value.filter if value.filter is not None else ast.Literal("bool", True, value.span)
    sub = ast.SubSelect(name, value.subject.span, filt, value.span)
    return dataclasses.replace(a, value=sub), tuple(props)


def _kept_links(a: ast.Assignment, link, ctx: ExprContext, insert: bool):
    """``folders := (select .folders filter @path != $p)`` in an update: the object's own links
    that the filter keeps (it may read the linked object's properties, ``.name``, and the link
    properties, ``@path``). Gel replaces a multi link's links with the new set by deleting the
    links to other objects and inserting the missing ones (``ON CONFLICT DO NOTHING``; when the
    value sets no link property), so the links kept keep their link properties
    (https://docs.geldata.com/reference/edgeql/update,
    https://docs.geldata.com/reference/datamodel/linkprops): here the new set is a subset of the
    links, so the links the filter does not keep (false or empty) are deleted and nothing else
    changes. The ids are ``ARRAY(SELECT j."target_id" FROM <join table> AS j JOIN <target> ...
    WHERE j."source_id" = <the updated row>."id" AND (<filter>))``. ``None`` when ``a`` is
    another form, ``False`` after an error."""
    value = a.value
    if not (a.op == ":=" and isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.Path)
            and value.subject.steps == (a.name,) and value.filter is not None and value.shape is None
            and not value.order and value.offset is None and value.limit is None):
        return None
    join = _join_table(link, ctx)
    if insert or join is None:
        ctx.reporter.error("E0206", f"'{a.name} := (select .{a.name} filter ...)' is not supported "
                           + ("in an insert" if insert else "on this link"), value.span,
                           f"select the objects by their type: (select {link.target.name} filter ...)")
        return False
    j, t = qi(f"_kj{ctx.depth}"), qi(f"_kt{ctx.depth}")
    if policies.applies(link.target, ctx):
        # (Gel's .folders hides the targets its access policies hide, and a hidden link is
        # then not in the new set: what Gel does with it is not what this lowering does)
        ctx.reporter.error("E0206", f"'{a.name} := (select .{a.name} filter ...)' of a link to a type with access "
                           "policies is not supported yet", value.span)
        return False
    outer = next((n for n in ast.iter_nodes(value.filter)
                  if (isinstance(n, ast.VarRef) and n.name.split("::")[-1] == ctx.subject.name  # type: ignore[union-attr]
                      and n.name not in ctx.variables)
                  or (isinstance(n, ast.EnumRef) and n.enum.split("::")[-1] == ctx.subject.name)), None)  # type: ignore[union-attr]
    if outer is not None:
        ctx.reporter.error("E0206", f"a filter of '(select .{a.name} ...)' reading the updated object is not "
                           "supported yet", outer.span)
        return False
    inner = dataclasses.replace(ctx, subject=link.target, column_prefix=t, link_row=(link.name, join, j),
                                set_links=None, set_row=None, depth=ctx.depth + 1)
    cond, _ = _where(value.filter, link.target, inner)
    if cond is None:
        return False
    uuid_array = ValueType(element=ValueType(scalar=SCALARS["uuid"]))
    ids = qir.KeptLinks(value.span, uuid_array, False, link, f"_kj{ctx.depth}", f"_kt{ctx.depth}", cond)
    return qir.LinkAssign(a.span, link, ":=", ids)


def _for_link_rows(a: ast.Assignment, link, ctx: ExprContext):
    """``artists := (for x in enumerate(array_unpack(<array<uuid>>$ids)) union (select Artist {
    @position := x.0 } filter .id = x.1))`` in an insert (https://docs.geldata.com/reference/edgeql/for,
    .../datamodel/linkprops): the union of the objects each element selects, each linked with
    the link properties its element gives (:class:`qir.LinkRows`). ``None`` for another value
    (refused or planned elsewhere), ``False`` after reporting."""
    value = a.value
    if isinstance(value, ast.UnaryOp) and value.op == "distinct":
        value = value.operand
    if not isinstance(value, ast.ForExpr):
        return None
    body = value.body
    while isinstance(body, ast.StatementExpr) and isinstance(body.query, (ast.SelectExpr, ast.WithExpr)):
        body = body.query
    per_element: Tuple[ast.WithBinding, ...] = ()
    if isinstance(body, ast.WithExpr):
        # `(with r := <int32>json_get(t, 'rank') select Tag { @rank := r } filter ...)`: names
        # bound per element, written where they are used
        per_element, body = body.bindings, body.body
        while isinstance(body, ast.StatementExpr) and isinstance(body.query, ast.SelectExpr):
            body = body.query
    if not (isinstance(body, ast.SelectExpr) and isinstance(body.subject, ast.VarRef) and body.filter is not None
            and not body.order and body.offset is None and body.limit is None
            and body.shape and all(el.link_prop and el.value is not None for el in body.shape)):
        return None  # (a loop of plain selects is the selection of their objects: _plain_link_selection)
    target = ctx.schema.find_type(body.subject.name, ctx.module)
    join = _join_table(link, ctx)
    if target is None or join is None:
        return None
    if target is not link.target:
        ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {body.subject.name}",
                           body.subject.span)
        return False
    scope = dataclasses.replace(ctx, variables=dict(ctx.variables))
    batch = _loop(types.SimpleNamespace(source=value.source, var=value.var), scope, f"_lv_{value.var}")
    if batch is None:
        return False
    var = dataclasses.replace(batch.var, row=qi("_lb"))
    scope.variables[value.var] = var
    batch = dataclasses.replace(batch, var=var)
    if not _bind_per_element(per_element, scope):
        return False
    alias = qi("_lo")
    inner = dataclasses.replace(scope, subject=target, column_prefix=alias)
    filt = check_filter(body.filter, inner)
    if filt is None:
        return False
    props = []
    for el in body.shape or ():
        col = link_prop_column(a.name, join, el.name, el.span, ctx.reporter)
        if col is None:
            return False
        low = check(el.value, inner, col.type, allow_optional_param=not col.required)
        if low is None:
            return False
        if low.type.family != col.type.family:
            ctx.reporter.error("E0304", f"'@{el.name}' is {col.type.name}, but the value is {low.type.name}",
                               el.value.span)
            return False
        props.append((col, low))
    rows = qir.LinkRows(value.span, batch, target, alias, filt, tuple(props),
                        policies.read_predicate(target, inner, alias))
    none = qir.Call(value.span, ValueType(element=ValueType(scalar=SCALARS["uuid"])), False, "link_ids/none", ())
    return qir.LinkAssign(a.span, link, a.op, none, (), rows)


def _multi_link_ids(a: ast.Assignment, link, ctx: ExprContext) -> Optional[qir.Expr]:
    """``tags := (select Tag filter .id in array_unpack(<array<uuid>>$ids))`` (or ``.id in $ids``)
    -> the ``uuid[]`` of target ids."""
    value = a.value
    if isinstance(value, ast.VarRef) and value.name in ctx.type_sets and value.name not in ctx.variables:
        # `with m := (select Message filter ...)` ... `messages := m`: the objects it selects
        bound = ctx.type_sets[value.name]
        sub = bound if isinstance(bound, ast.SubSelect) else computed_sql.as_subselect(bound)
        if sub is None and isinstance(bound, ast.SelectExpr) and bound.filter is None and bound.shape is None \
                and isinstance(bound.subject, ast.VarRef) and not bound.order and bound.offset is None \
                and bound.limit is None:
            sub = ast.SubSelect(bound.subject.name, bound.subject.span, ast.Literal("bool", True, bound.span),
                                bound.span)
        if sub is None:
            ctx.reporter.error("E0206", f"the value of multi link '{a.name}' is '{value.name}', a selection with order "
                               "by, offset or limit: not supported yet", value.span,
                               f"select the objects with a filter: (select {link.target.name} filter ...)")
            return None
        value = dataclasses.replace(sub, span=value.span)
    if isinstance(value, ast.SubSelect) and value.type_name in ctx.type_sets and value.type_name not in ctx.variables:
        # `with I := detached Issue` ... `related_to := (select I filter I.number = '2')`
        # (geldata/gel tests/schemas/issues_setup.edgeql): a selection of every object of a type
        # is that type (see _type_aliases)
        bound = ctx.type_sets[value.type_name]
        if isinstance(bound, ast.SelectExpr) and bound.filter is None and bound.shape is None and not bound.order \
                and bound.offset is None and bound.limit is None and isinstance(bound.subject, ast.VarRef) \
                and ctx.schema.find_type(bound.subject.name, ctx.module) is not None:
            value = _aliased_type(value, value.type_name, bound.subject.name)
    if isinstance(value, ast.SelectExpr) and value.filter is None and value.shape is None and not value.order \
            and value.offset is None and value.limit is None and isinstance(value.subject, ast.VarRef) \
            and not value.subject.detached and value.subject.name not in ctx.variables \
            and value.subject.name not in ctx.type_sets and ctx.schema.find_type(value.subject.name, ctx.module):
        # `time_spent_log := (SELECT LogEntry)` (geldata/gel tests/schemas/issues_setup.edgeql):
        # every object of the type, as a sub-select whose filter keeps them all
        value = ast.SubSelect(value.subject.name, value.subject.span, ast.Literal("bool", True, value.span),
                              value.span)
    cast_ids = _cast_object_ids(value, link, ctx)
    if cast_ids is not None:
        return cast_ids or None
    source = None
    if isinstance(value, ast.SubSelect) and value.type_name.split("::")[-1] == link.target.name:
        f = value.filter
        if isinstance(f, ast.BinOp) and f.op == "in" and isinstance(f.left, ast.Path) and f.left.steps == ("id",):
            source = f.right
            if isinstance(source, ast.FuncCall) and source.name in ("array_unpack", "std::array_unpack") \
                    and len(source.args) == 1:
                source = source.args[0]
    uuid_array = ValueType(element=ValueType(scalar=SCALARS["uuid"]))
    if source is None and (_is_nested_insert(value) or _is_loop_insert(value)
                           or (isinstance(value, ast.VarRef) and value.name in ctx.bound_writes)):
        return _written(a, value, link, ctx, many=True)
    if source is None and isinstance(value, ast.VarRef) and _bound_object(value.name, ctx) is not None:
        # `with c := (select Collection filter .id = ...)` ... `tracked += c`: that object, if any.
        if _bound_object(value.name, ctx) is not link.target:
            ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, but '{value.name}' is a "
                               f"{_bound_object(value.name, ctx).name}", value.span)  # type: ignore[union-attr]
            return None
        low = check(value, ctx)
        if low is None:
            return None
        return qir.Call(value.span, uuid_array, False, "link_ids/of_one", (low,))
    if source is None and _is_empty_set(value):
        # `tags := {}`: no links (`+= {}` / `-= {}` change nothing).
        return qir.Call(value.span, uuid_array, False, "link_ids/none", ())
    if source is None and isinstance(value, ast.SubSelect):
        # Any other filter: the ids of the objects it selects.
        if ctx.schema.find_type(value.type_name, ctx.module) is not link.target:
            ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {value.type_name}",
                               value.type_span)
            return None
        return computed_sql.subselect_value(value, False, ctx, many=True)
    inner = value.operand if isinstance(value, ast.UnaryOp) and value.op == "distinct" else value
    inner = inner.query if isinstance(inner, ast.StatementExpr) and isinstance(inner.query, ast.ForQuery) else inner
    if source is None and isinstance(inner, (*_STATEMENT_VALUES, ast.ForQuery)):
        # valid Gel (`tags := distinct (for t in ... union (select Tag { @rank := ... } filter ...))`,
        # https://docs.geldata.com/reference/edgeql/for): a form not lowered yet, not an error
        what = "a 'for' loop" if isinstance(inner, ast.ForQuery) else _STATEMENT_VALUES[type(inner)]
        ctx.reporter.error("E0206", f"a multi link's value that is {what} is not supported yet", value.span,
                           f"write {a.name} := (select {link.target.name} filter ...)")
        return None
    if source is None:
        ctx.reporter.error("E0304", f"the value of multi link '{a.name}' must be (select {link.target.name} filter "
                           f".id in array_unpack(<array<uuid>>$ids))", value.span,
                           f"write {a.name} := (select {link.target.name} filter .id in array_unpack(<array<uuid>>${a.name}))")
        return None
    low = check(source, ctx, uuid_array)
    if low is None:
        return None
    if low.type.family != uuid_array.family:
        ctx.reporter.error("E0304", f"the ids of '{a.name}' must be an array<uuid>, got {low.type.name}", source.span)
        return None
    # The objects the sub-select finds (https://docs.geldata.com/reference/edgeql/insert#links):
    # an unknown id, or one the target's access policies hide, links nothing, as in Gel (it was
    # the join table's foreign-key error;
    # https://docs.geldata.com/reference/datamodel/access_policies).
    visible = policies.read_predicate(link.target, ctx, '"_t"') if ctx.params is not None else None
    return qir.ExistingIds(low.span, uuid_array, False, low, link.target, visible)


def _cast_object_ids(value, link, ctx: ExprContext):
    """``keywords := array_unpack(<array<Keyword>>ids)`` (also ``(select ...)`` of it, and under
    ``assert_distinct(...)``), ``ids`` an ``array<uuid>``: Gel's cast of an id to an object is
    that object, and fails with a CardinalityViolationError when no object of the type has the id
    (https://docs.geldata.com/reference/edgeql/casts); ``assert_distinct`` fails when an object is
    there twice (https://docs.geldata.com/reference/stdlib/set#function::std::assert_distinct).
    The ids, ``CASE WHEN <an id of no object> THEN <failing cast> [WHEN <an id twice> THEN
    <failing cast>] ELSE ids END`` (the runners raise CardinalityViolationError and
    DistinctViolationError). ``None`` for another form, ``False`` after an error."""
    distinct = False
    if isinstance(value, ast.FuncCall) and value.name in _ASSERT_DISTINCT and len(value.args) == 1:
        value, distinct = value.args[0], True
    if isinstance(value, ast.SelectExpr) and value.shape is None and value.filter is None and not value.order \
            and value.offset is None and value.limit is None:
        value = value.subject
    if not (isinstance(value, ast.FuncCall) and value.name in ("array_unpack", "std::array_unpack")
            and len(value.args) == 1 and isinstance(value.args[0], ast.Cast)):
        return None
    cast = value.args[0]
    if cast.type.name.split("::")[-1] != "array" or len(cast.type.args) != 1 \
            or ctx.schema.find_type(cast.type.args[0].name, ctx.module) is not link.target:
        return None
    uuid_array = ValueType(element=ValueType(scalar=SCALARS["uuid"]))
    low = check(cast.operand, ctx, uuid_array)
    if low is None:
        return False
    if low.type.element is None or low.type.element.family != "uuid":
        ctx.reporter.error("E0304", f"<array<{link.target.name}>> casts an array<uuid>, got {low.type.name}",
                           cast.operand.span)
        return False
    if policies.applies(link.target, ctx):
        ctx.reporter.error("E0206", f"<array<{link.target.name}>> of ids, a type with access policies, is not "
                           "supported yet", cast.span)
        return False
    return qir.CastObjectIds(value.span, uuid_array, low.nullable, low, link.target, distinct)


def _poly_link_value(a: ast.Assignment, pl: PolyLink, subject: ObjectType, ctx: ExprContext,
                     insert: bool) -> Optional[List[qir.Node]]:
    """``subject := (select Movie filter .id = <value>)`` on a polymorphic single link: the
    column of the subtype the sub-select names gets the id, the other subtypes' columns NULL
    (an update may change the subtype); the CHECK and foreign keys hold the rest. The value may
    also be a nested insert of one subtype, ``subject := (insert Movie { ... })``, or a
    ``with``-bound one (https://docs.geldata.com/reference/edgeql/insert#nested-inserts)."""
    value = a.value
    if isinstance(value, ast.VarRef):
        target = ctx.bound_writes[value.name].subject  # type: ignore[attr-defined]
        type_name, type_span = value.name, value.span
    else:
        if _is_nested_insert(value):
            value = value.query  # type: ignore[attr-defined]
        type_name, type_span = value.type_name, value.type_span  # type: ignore[attr-defined]
        target = ctx.schema.find_type(type_name, ctx.module)
    column = next((c for t, c in pl.targets if t is target), None) if target is not None else None
    if column is None:
        names = ", ".join(t.name for t, _ in pl.targets)
        ctx.reporter.error("E0304", f"'{a.name}' links to {names}: select one of them, not {type_name}",
                           type_span, f"write {a.name} := (select {pl.targets[0][0].name} filter .id = ...)")
        return None
    link = Link(pl.name, target, False, pl.required, column, None)  # type: ignore[arg-type]
    assigned = _link_value(a, link, subject, ctx, insert)
    if assigned is None:
        return None
    out: List[qir.Node] = [assigned]
    for _, other in pl.targets:
        if other != column:
            col = subject.column(other)
            assert col is not None
            out.append(qir.Assign(a.span, col, qir.Call(a.span, col.type, True, "typed_null", ())))
    return out


def _aliased_type(node, alias: str, type_name: str):
    """``(select I filter I.number = '2')`` of ``alias`` (a ``with`` name of every object of the
    type ``type_name``) as ``(select Issue filter .number = '2')``: inside the sub-select
    ``alias.prop`` (parsed as ``Type.member``) is its subject's property (so in a shape's
    element of ``(select Card { @count := len(Card.element) })``)."""
    if isinstance(node, ast.SubSelect):
        node = dataclasses.replace(node, type_name=type_name)

    def walk(n):
        if isinstance(n, tuple):
            items = tuple(walk(x) for x in n)
            return items if any(a is not b for a, b in zip(items, n)) else n
        if not dataclasses.is_dataclass(n) or isinstance(n, (Span, type, ast.TypeRef)):
            return n
        if isinstance(n, ast.EnumRef) and n.enum == alias:
            return ast.Path((n.member,), n.span)
        changes = {f.name: walk(getattr(n, f.name)) for f in dataclasses.fields(n)}
        changes = {k: v for k, v in changes.items() if v is not getattr(n, k)}
        return dataclasses.replace(n, **changes) if changes else n
    return walk(node)


def _union_operands(value) -> Optional[List[object]]:
    """The operands of ``a union b union ...`` (``None`` for another value)."""
    if not (isinstance(value, ast.BinOp) and value.op == "union"):
        return None
    out: List[object] = []
    for side in (value.left, value.right):
        out += _union_operands(side) or [side]
    return out


def _undetached(value):
    """A link's value ``(select detached T filter f)`` (also inside ``assert_single`` /
    ``assert_exists``) as ``(select T filter f)``: the objects of ``T`` the filter picks, the same
    set (https://docs.geldata.com/reference/edgeql/paths#detached); the link-value forms read the
    latter."""
    if isinstance(value, ast.FuncCall) and len(value.args) == 1 and \
            value.name.replace("std::", "") in ("assert_single", "assert_exists"):
        inner = _undetached(value.args[0])
        return value if inner is value.args[0] else dataclasses.replace(value, args=(inner,))
    if isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.VarRef) and value.subject.detached \
            and value.shape is None and value.filter is not None and not value.order and value.offset is None \
            and value.limit is None:
        return ast.SubSelect(value.subject.name, value.subject.span, value.filter, value.span, True)
    return value


def _detached_outer_read(value, subject: ObjectType, ctx: ExprContext) -> Optional[str]:
    """``User.name`` (as written) when ``value`` is ``(select detached User filter ... User.name ...)``
    of the written object's type: there ``User`` is the written object
    (https://docs.geldata.com/reference/stdlib/set#operator::detached), which a multi link's
    statements (their own CTEs) cannot read yet; ``None`` otherwise."""
    if not (isinstance(value, ast.SubSelect) and value.detached):
        return None
    stack = [value.filter]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
        elif dataclasses.is_dataclass(n) and not isinstance(n, (type, ast.TypeRef)):
            if isinstance(n, ast.EnumRef) and n.enum not in ctx.variables \
                    and ctx.schema.find_type(n.enum, ctx.module) is subject:
                return f"{n.enum}.{n.member}"
            if isinstance(n, ast.VarRef) and n.name not in ctx.variables and not n.detached \
                    and ctx.schema.find_type(n.name, ctx.module) is subject:
                return n.name
            stack.extend(getattr(n, f.name) for f in dataclasses.fields(n))
    return None


def _link_value(a: ast.Assignment, link, subject: ObjectType, ctx: ExprContext,
                insert: bool) -> Optional[qir.Node]:
    """``author := (select User filter .id = <value>)`` -> the FK column ``author_id`` set to
    the value; a multi link -> a :class:`~schemac.semantics.qir.LinkAssign`."""
    value = _undetached(a.value)
    if value is not a.value:
        a = dataclasses.replace(a, value=value)
    if link.multi:
        if insert and a.op != ":=":
            ctx.reporter.error("E0304", f"'{a.op}' is only valid in an update", a.name_span, f"write {a.name} := ...")
            return None
        props: Tuple[Tuple[object, qir.Expr], ...] = ()
        outer_read = _detached_outer_read(a.value, subject, ctx)
        if outer_read is not None and not insert:
            # `update User set { follows := (select detached User filter User.name != .name) }`:
            # `User` is each updated object, read in the link's statements by its id
            # (lowering.LINK_ROWS: the rows they write the links of; the lowering spells the
            # qualifier that reads one of them)
            ctx = dataclasses.replace(ctx, column_prefix=lowering.link_row_qualifier(subject.table))
            outer_read = None
        if outer_read is not None:
            ctx.reporter.error("E0206", f"a multi link's value (select detached {subject.name} ...) reading the "
                               f"{'updated' if not insert else 'inserted'} object ('{outer_read}') is not supported "
                               "yet", a.value.span, "select the other objects by a parameter or a property "
                               "instead, or write the link in a for loop over the objects")
            return None
        # (in an update, refused but in an upsert's else: _update_write, _conflict_else)
        loop = _for_link_rows(a, link, ctx) if a.op in (":=", "+=") else None
        if loop is not None:
            return loop or None
        kept = _kept_links(a, link, ctx, insert)
        if kept is not None:
            return kept or None
        if computed_sql.sets_link_props(a.value):
            split = _link_props(a, link, ctx)
            if split is None:
                return None
            a, props = split
        ids = _multi_link_ids(a, link, ctx)
        return None if ids is None else qir.LinkAssign(a.span, link, a.op, ids, props)  # type: ignore[arg-type]
    if computed_sql.sets_link_props(a.value):
        # (a single link with link properties is _single_link_props_value's)
        el = next(e for e in a.value.shape if e.link_prop and e.value is not None)  # type: ignore[union-attr]
        ctx.reporter.error("E0302", f"link '{a.name}' has no property '{el.name}'", el.span,
                           f"'{a.name}' declares no link properties")
        return None
    col = subject.column(link.column)
    assert col is not None
    if col.readonly and not insert:
        ctx.reporter.error("E0310", f"'{a.name}' is readonly and cannot be updated", a.name_span)
        return None
    value = a.value
    target_id = None
    found_by_id = False
    if isinstance(value, ast.GlobalRef):
        g = ctx.schema.find(value.name, ctx.module, ctx.schema.globals)
        if g is not None and g.target is not None:  # type: ignore[attr-defined]
            if g.target is not link.target:  # type: ignore[attr-defined]
                ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, but global '{value.name}' is "
                                   f"a {g.target.name}", value.span)  # type: ignore[attr-defined]
                return None
            target_id = value
    if _is_empty_set(value):
        return _clear(a, col, ctx)
    sub, asserted = computed_sql.single_subselect(value)
    if sub is not None:
        if ctx.schema.find_type(sub.type_name, ctx.module) is not link.target:
            ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {sub.type_name}",
                               sub.type_span)
            return None
        f = sub.filter
        if not asserted and isinstance(f, ast.BinOp) and f.op == "=":
            for side, other in ((f.left, f.right), (f.right, f.left)):
                if isinstance(side, ast.Path) and side.steps == ("id",):
                    target_id = other
                    # An optional link is the object the sub-select finds, if any: an unknown id
                    # (or one of another subtype) leaves it empty, as in Gel. (A required link
                    # keeps the id: its foreign key fails the statement where Gel fails it with
                    # MissingRequiredError.)
                    found_by_id = not link.required
        if target_id is None:
            return _link_by_filter(a, sub, asserted, col, ctx, insert)
    if target_id is None and isinstance(value, ast.VarRef) and _bound_object(value.name, ctx) is link.target:
        # `with who := (select User filter ...)` ... `author := who`: that object.
        low = check(value, ctx)
        if low is None:
            return None
        if not insert:
            _mark_unchanged(a.value, col.name, ctx)
        return qir.Assign(a.span, col, low)
    if target_id is None and (_is_nested_insert(value) or (isinstance(value, ast.VarRef)
                                                           and value.name in ctx.bound_writes)):
        low = _written(a, value, link, ctx, many=False)
        if low is None:
            return None
        # (None written: a required link fails the statement, SQLSTATE 23502, as Gel's
        # MissingRequiredError when it runs.)
        return qir.Assign(a.span, col, low)
    parts = _get_or_insert_parts(value) if target_id is None else None
    if parts is not None:
        return _get_or_insert(a, parts[0], parts[1], link, col, ctx, insert)
    limited = computed_sql.limited_subselect(value) if target_id is None else None
    limited_type = None if limited is None or limited.subject.name in ctx.variables else \
        ctx.schema.find_type(limited.subject.name, ctx.module)  # type: ignore[attr-defined]
    if limited is not None and limited_type is not None:
        # author := (select User filter ... order by ... limit 1): the first object found
        if limited_type is not link.target:
            ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {limited.subject.name}",  # type: ignore[attr-defined]
                               limited.subject.span)
            return None
        low = computed_sql.limited_value(limited, ctx)
        if low is None:
            return None
        if not insert:
            _mark_unchanged(a.value, col.name, ctx)
        return qir.Assign(a.span, col, low)
    if target_id is None and isinstance(value, tuple(_STATEMENT_VALUES)):
        ctx.reporter.error("E0206", f"a link's value that is {_STATEMENT_VALUES[type(value)]} is not supported yet",
                           value.span, f"write {a.name} := (select {link.target.name} filter ...)")
        return None
    if target_id is None:
        ctx.reporter.error("E0304", f"the value of link '{a.name}' must be (select {link.target.name} filter ...)",
                           value.span, f"write {a.name} := (select {link.target.name} filter .id = ${a.name}_id)")
        return None
    low = check(target_id, ctx, col.type, allow_optional_param=not col.required)
    if low is None:
        return None
    if low.type.family != "uuid":
        ctx.reporter.error("E0304", f"an id is a uuid, not {low.type.name}", target_id.span)
        return None
    # (a required link given an id that may be empty: a NOT NULL violation when it runs, as a
    # required property)
    visible = policies.read_predicate(link.target, ctx, '"_t"')
    if visible is not None or found_by_id:
        # Only an object that exists, and that the target's access policies let the query see,
        # can be linked.
        low = qir.VisibleId(low.span, low.type, True, low, link.target, visible)
    return qir.Assign(a.span, col, low)


def _get_or_insert_parts(value) -> Optional[Tuple[ast.Expr, ast.StatementExpr]]:
    """``(found, insert)`` of a get-or-insert value: ``if exists F then F else (insert T {...})``,
    ``if not exists F then (insert T {...}) else F``, ``F ?? (insert T {...})``, also as the
    body of ``(with u := F select ...)`` that names ``F`` (its one binding, read only there);
    ``None`` for anything else."""
    bound: Dict[str, ast.Expr] = {}
    if isinstance(value, ast.WithExpr):
        if len(value.bindings) != 1 or not isinstance(value.bindings[0].value, _EXPRESSION_NODES):
            return None
        bound = {value.bindings[0].name: value.bindings[0].value}  # type: ignore[dict-item]
        value = value.body
        if isinstance(value, ast.SelectExpr) and value.shape is None and value.filter is None \
                and not value.order and value.offset is None and value.limit is None:
            value = value.subject
    found = ins = None
    if isinstance(value, ast.BinOp) and value.op == "??":
        found, ins = value.left, value.right
    elif isinstance(value, ast.IfElse) and isinstance(value.cond, ast.UnaryOp):
        cond, then, else_ = value.cond, value.then, value.else_
        if cond.op == "not" and isinstance(cond.operand, ast.UnaryOp):
            cond, then, else_ = cond.operand, else_, then
        if cond.op == "exists" and isinstance(cond.operand, ast.VarRef) and isinstance(then, ast.VarRef) \
                and cond.operand.name == then.name and not cond.operand.detached and not then.detached:
            found, ins = then, else_
    if found is None or not _is_nested_insert(ins):
        return None
    if bound:
        # The binding is read as the object found, and nowhere else.
        name = next(iter(bound))
        if not (isinstance(found, ast.VarRef) and found.name == name) or any(
                isinstance(n, ast.VarRef) and n.name == name for n in ast.iter_nodes(ins)):
            return None
        found = bound[name]
    return found, ins  # type: ignore[return-value]


#: Syntax nodes that are expressions (not statements).
_EXPRESSION_NODES = tuple(t for t in ast.Expr.__args__ if t is not ast.StatementExpr)  # type: ignore[attr-defined]


def _get_or_insert(a: ast.Assignment, found: ast.Expr, ins: ast.StatementExpr, link, col, ctx: ExprContext,
                   insert: bool) -> Optional[qir.Node]:
    """``host := (with u := (select User filter .name = $n) select if exists u then u else
    (insert User { name := $n }))``, or ``... ?? (insert User {...})``: the object found, else a
    new one. Gel runs a statement in a branch of ``if ... else`` / on the right of ``??`` only
    when that branch is taken (https://docs.geldata.com/reference/edgeql/insert#conditional-inserts
    and .../edgeql/expressions): the nested insert is a CTE that inserts its row only when
    nothing was found (``INSERT ... SELECT ... WHERE <found> IS NULL``), and the link is
    ``COALESCE(<found>, <the new row's id>)``. The statement reads one snapshot, so the object
    looked up in the CTE and in the link's value is the same. ``found`` is one object of the
    link's target: a sub-select that finds at most one (or ``assert_single`` of one), or a
    ``with`` name bound to one."""
    low: Optional[qir.Expr] = None
    sub, asserted = computed_sql.single_subselect(found)
    if isinstance(found, ast.FuncCall) and found.name in ("assert_exists", "std::assert_exists"):
        sub = None  # (assert_exists(F) is never empty: the insert would never run)
    if sub is not None:
        if ctx.schema.find_type(sub.type_name, ctx.module) is not link.target:
            ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {sub.type_name}",
                               sub.type_span)
            return None
        low = computed_sql.subselect_value(sub, asserted, ctx)
        if low is None:
            return None
    elif isinstance(found, ast.VarRef) and _bound_object(found.name, ctx) is link.target:
        low = check(found, ctx)
        if low is None:
            return None
    else:
        ctx.reporter.error("E0206", f"a get-or-insert value of link '{a.name}' that looks up something other than one "
                           f"{link.target.name} object is not supported yet", found.span,
                           f"look it up with (select {link.target.name} filter <exclusive property> = ...)")
        return None
    if ins.query.type_name.split("::")[-1] != link.target.name and \
            ctx.schema.find_type(ins.query.type_name, ctx.module) is not link.target:  # type: ignore[attr-defined]
        ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {ins.query.type_name}",  # type: ignore[attr-defined]
                           ins.query.type_span)  # type: ignore[attr-defined]
        return None
    written = _written(a, ins, link, ctx, many=False, unless_found=low)
    if written is None:
        return None
    uuid = ValueType(scalar=SCALARS["uuid"])
    # (never empty: when nothing is found, the row is inserted)
    value = qir.Call(a.value.span, uuid, False, "found_or_inserted", (low, written))
    return qir.Assign(a.span, col, value)


def _is_nested_insert(value: ast.Expr) -> bool:
    return isinstance(value, ast.StatementExpr) and isinstance(value.query, ast.InsertQuery)


def _is_loop_insert(value: ast.Expr) -> bool:
    """A link value that is a ``for`` loop whose body is an insert, also as the body of a
    ``with`` block binding values: ``(with raw := <json>$p, for x in json_array_unpack(raw)
    union (insert T {...}))``."""
    if isinstance(value, ast.WithExpr):
        value = value.body  # type: ignore[assignment]
    q = value.query if isinstance(value, ast.StatementExpr) else value
    return isinstance(q, ast.ForQuery) and isinstance(q.body, ast.InsertQuery) \
        and not any(isinstance(n, ast.Path) for n in ast.iter_nodes(q.source))


def _written(a: ast.Assignment, value: ast.Expr, link, ctx: ExprContext, many: bool,
             unless_found: Optional[qir.Expr] = None) -> Optional[qir.Expr]:
    """A link assigned objects the same statement writes: a write bound by ``with p := (insert
    ...)`` (its CTE ``"_with_p"``) or a nested insert (``author := (insert User {...})``,
    https://docs.geldata.com/reference/edgeql/insert#nested-inserts), written first as a CTE
    of its own. As in Gel, a single link takes at most one object (an update or delete bound by
    ``with`` that may write several is refused)."""
    uuid = ValueType(scalar=SCALARS["uuid"])
    if isinstance(value, ast.VarRef):
        w = ctx.bound_writes[value.name]
        if w.subject is not link.target:  # type: ignore[attr-defined]
            ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, but '{value.name}' is "
                               f"{ctx.bound_statements.get(value.name, 'a write')}", value.span)
            return None
        card = w.cardinality  # type: ignore[attr-defined]
        if not many and card == MANY:
            ctx.reporter.error("E0304", f"'{value.name}' may write several objects, but '{a.name}' is a single link",
                               value.span, "filter the bound statement on .id or an exclusive property")
            return None
        return qir.WrittenIds(value.span, ValueType(element=uuid) if many else uuid, not many and card != ONE,
                              f"_with_{value.name}", many)
    scope = ctx
    if isinstance(value, ast.WithExpr):
        # `terms := (with raw := <json>$terms, for t in json_array_unpack(raw) union (insert ...))`:
        # the block's names are in scope of its loop (https://docs.geldata.com/reference/edgeql/with)
        from schemac.semantics.exprs import with_scope
        scope = with_scope(value, ctx)
        if scope is None:
            return None
        value = value.body  # type: ignore[assignment]
    q = value.query if isinstance(value, ast.StatementExpr) else value  # type: ignore[attr-defined]
    target = ctx.schema.find_type(q.type_name, ctx.module)
    if target is None:
        ctx.reporter.error("E0301", f"unknown type '{q.type_name}'", q.type_span,
                           did_you_mean(q.type_name.split("::")[-1], [t.name for t in ctx.schema.all_types()]))
        return None
    if target is not link.target:
        ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {q.type_name}", q.type_span)
        return None
    loop = isinstance(q, ast.ForQuery)
    what = "a 'for' loop of inserts" if loop else "a nested insert"
    if ctx.nested is None or any(type(v) is qir.LoopVar for v in ctx.variables.values()):
        # (Gel evaluates an update's values once per object it updates: as many inserts.)
        ctx.reporter.error("E0206", f"{what} in an update of several objects, a 'for' loop or an upsert's "
                           "else is not supported yet", value.span,
                           "filter the update on .id or an exclusive property, or bind the insert, inserted once: "
                           "with p := (insert ...) ... link := p")
        return None
    if loop and not many:
        ctx.reporter.error("E0304", f"a 'for' loop of inserts may write several objects, but '{a.name}' is a single "
                           "link", value.span)
        return None
    inner = dataclasses.replace(scope, subject=target, column_prefix=None, variables=dict(scope.variables))
    if loop:
        # `terms := (for t in json_array_unpack(<json>$terms) union (insert Term {...}))`
        # (https://docs.geldata.com/reference/edgeql/for): the bulk insert, written first as a CTE
        # of its own, as `with ts := (for ...)` ... `terms := ts` is; every object it inserts is
        # linked (an empty loop links none).
        batch = _loop(q, inner)
        w = None if batch is None else _insert_write(q.body, target, inner, batch=batch)
        if w is not None:
            w = dataclasses.replace(w, cardinality=MANY)
    else:
        w = _insert_write(q, target, inner)
    if w is None:
        return None
    if unless_found is not None:
        w = dataclasses.replace(w, unless_found=unless_found, cardinality=AT_MOST_ONE)
    name = f"_nested{sum(1 for k in ctx.bound_writes if k.startswith(' nested')) + 1}"
    ctx.bound_writes[" nested" + name] = w  # (counted so each nested insert gets its own CTE)
    ctx.nested.append(qir.BoundWrite(value.span, name, w))
    return qir.WrittenIds(value.span, ValueType(element=uuid) if many else uuid, w.cardinality != ONE, name, many)


#: Link values that are valid EdgeQL but not lowered: what the E0206 calls them.
_STATEMENT_VALUES = {ast.WithExpr: "a 'with' block", ast.StatementExpr: "a statement", ast.IfElse: "an 'if ... else'",
                     ast.ForExpr: "a 'for' loop", ast.SelectExpr: "a select of an expression",
                     ast.GroupExpr: "a 'group'"}


def _bound_object(name: str, ctx: ExprContext) -> Optional[ObjectType]:
    """The type of the object a ``with`` name is bound to (``who := (select User filter ...)``),
    else ``None``."""
    b = ctx.variables.get(name)
    value = b.value if type(b) is qir.WithValue else None  # type: ignore[attr-defined]
    if type(value) is qir.Call and value.func == "assert_exists":  # type: ignore[attr-defined]
        # `who := assert_exists((select User filter .id = ...))`: that object, or the statement
        # fails (the argument <User>$id of an inlined function is bound so)
        value = value.args[0]  # type: ignore[attr-defined]
    if type(value) is qir.ObjectId or (type(value) is qir.ObjectRow and value.value is None):  # type: ignore[union-attr]
        return value.target  # type: ignore[union-attr]
    return None


def _multi_values(value: ast.Expr) -> Optional[ast.Expr]:
    """The set of values given to a multi property, ``tags := if c then array_unpack(arr) else
    {}``, written as the array the property is stored as: each branch's ``array_unpack(arr)`` is
    ``arr`` (https://docs.geldata.com/reference/stdlib/array#function::std::array_unpack, the
    set of the array's elements, in order; https://docs.geldata.com/reference/edgeql/insert: a
    multi property is assigned any set of its type). ``None`` when ``value`` holds no
    ``array_unpack()`` to rewrite (a bare ``array_unpack()``, a set literal, a union: see
    ``value_set_array``)."""
    if isinstance(value, ast.FuncCall) and value.name in _UNPACK and len(value.args) == 1:
        return value.args[0]
    if isinstance(value, ast.IfElse):
        then, else_ = _multi_values(value.then), _multi_values(value.else_)
        if then is None and else_ is None:
            return None
        if then is None and not _is_empty_set(value.then) or else_ is None and not _is_empty_set(value.else_):
            return None
        return dataclasses.replace(value, then=then if then is not None else value.then,
                                   else_=else_ if else_ is not None else value.else_)
    return None


def _json_elements(value) -> Optional[ast.Expr]:
    """The json ``j`` of ``<T>json_array_unpack(j)``, else ``None``."""
    if isinstance(value, ast.Cast) and not value.type.args and isinstance(value.operand, ast.FuncCall) \
            and value.operand.name in ("json_array_unpack", "std::json_array_unpack") and len(value.operand.args) == 1:
        return value.operand.args[0]
    return None


def _assign_json_elements(a: ast.Assignment, col, ctx: ExprContext) -> Optional[qir.Assign]:
    """``tags := <str>json_array_unpack(j)`` of a multi property: the elements of the JSON array
    ``j``, each cast to the property's type as ``<T>json`` casts (a JSON null element is empty,
    so no element; one of another JSON type fails the statement), in the array's order; none
    when ``j`` is empty (https://docs.geldata.com/reference/stdlib/json#function::std::json_array_unpack,
    https://docs.geldata.com/reference/datamodel/properties#multi). ``j`` not an array fails the
    statement, as Gel's ``json_array_unpack`` does: ``coalesce((SELECT array_agg(<cast> ORDER BY n)
    FILTER (WHERE <cast> IS NOT NULL) FROM jsonb_array_elements(j) WITH ORDINALITY ...), '{}')``."""
    cast = a.value
    target = col.type.element
    low = check(_json_elements(cast), ctx, JSON)  # type: ignore[arg-type]
    if low is None:
        return None
    if low.type.family != "json":
        ctx.reporter.error("E0304", f"json_array_unpack() needs a json value, got {low.type.name}",
                           cast.operand.span)  # type: ignore[union-attr]
        return None
    name = cast.type.name.split("::")[-1]  # type: ignore[union-attr]
    scalar = SCALARS.get(name)
    if scalar is None or ValueType(scalar=scalar).family != target.family or target.enum is not None \
            or target.element is not None:
        ctx.reporter.error("E0304", f"'{a.name}' holds {target.name}, but the value is {cast.type.name}",  # type: ignore[union-attr]
                           cast.span)
        return None
    return qir.Assign(a.span, col, qir.JsonArrayElements(cast.span, col.type, False, low))


def _assign_multi_values(a: ast.Assignment, array: ast.Expr, col, insert: bool,
                         ctx: ExprContext) -> Optional[qir.Assign]:
    """``tags := array_unpack(arr)`` (see :func:`_multi_values`): the column set to ``arr``, or
    to ``'{}'`` when ``arr`` is empty (a multi property is never NULL: its empty set is the
    empty array, ``COALESCE(arr, '{}')``); an empty set given to a required multi property fails
    the statement when it runs (its CHECK), as Gel fails it."""
    low = check(array, ctx, col.type, allow_optional_param=True)
    if low is None:
        return None
    if low.type.family != col.type.family or low.type.element is None:
        ctx.reporter.error("E0304", f"'{a.name}' is {col.type.name}, but array_unpack() is given {low.type.name}",
                           array.span)
        return None
    if low.nullable:
        empty = check(ast.ArrayLit((), a.value.span), ctx, col.type)
        if empty is None:
            return None
        low = qir.Binary(a.value.span, col.type, False, "??", low, empty)
    return qir.Assign(a.span, col, low)


def _is_empty_set(value: ast.Expr) -> bool:
    """``{}`` or ``<T>{}``: the empty set."""
    if isinstance(value, ast.Cast):
        value = value.operand
    return isinstance(value, ast.SetLit) and not value.items


def _clear(a: ast.Assignment, col, ctx: ExprContext) -> Optional[qir.Assign]:
    """``p := {}`` / ``link := {}``: an optional property or single link set to the empty set
    (https://docs.geldata.com/reference/edgeql/update): NULL. A required one is refused, as Gel
    refuses it (``missing value for required property``)."""
    if col.required:
        ctx.reporter.error("E0304", f"'{a.name}' is required: it cannot be set to the empty set {{}}", a.value.span,
                           "make it optional in the schema, or assign a value")
        return None
    return qir.Assign(a.span, col, qir.Literal(a.value.span, col.type, True, "null", None))


def _link_by_filter(a: ast.Assignment, sub: ast.SubSelect, asserted: bool, col, ctx: ExprContext,
                    insert: bool) -> Optional[qir.Assign]:
    """``author := (select User filter .email = <str>$email)``: the link set to the one object
    the sub-select finds, by any filter (https://docs.geldata.com/reference/edgeql/insert#links),
    ``(SELECT "_q"."id" FROM users AS "_q" WHERE ...)``. As in Gel, the sub-select must be
    known to find at most one object (a filter on ``.id`` or on every property of a full
    exclusive constraint), or be wrapped in ``assert_single(...)`` (more than one object then
    fails the statement, SQLSTATE 21000, Gel's CardinalityViolationError). When it finds none,
    the link is empty: a required link then fails the statement (SQLSTATE 23502, Gel's
    MissingRequiredError, raised when the statement runs)."""
    low = computed_sql.subselect_value(sub, asserted, ctx)
    if low is None:
        return None
    if not insert:
        _mark_unchanged(a.value, col.name, ctx)
    return qir.Assign(a.span, col, low)


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
    w = _insert_write(q.body, subject, ctx, batch=batch)
    if w is None:
        return None
    return _plan(qf, "insert", subject, _returning_id(w), ctx, MANY, w.exclusives)


def _loop(q, ctx: ExprContext, sql_name: Optional[str] = None) -> Optional[qir.Batch]:
    """The rows a ``for`` loop iterates over: ``array_unpack(<array<T>>$xs)`` or
    ``json_array_unpack(<json>$items)`` of a parameter (or of a ``with`` name bound to one). The
    loop variable is put in scope; ``sql_name`` names its column of the ``"_batch"`` rows."""
    src = q.source
    if isinstance(src, ast.FuncCall) and src.name in _ENUMERATE and len(src.args) == 1:
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
        var = qir.LoopVar(q.var, ValueType(fields=((None, _INT64), (None, batch.var.type))), sql_name,
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
    arr = check(arg, ctx, JSON if json or json_object else None)
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
        var = qir.LoopVar(q.var, ValueType(fields=((None, ValueType(scalar=SCALARS["str"])), (None, JSON))), sql_name,
                          elements=(f"{base}_0", f"{base}_1"))
        ctx.variables[q.var] = var
        return qir.Batch(src.span, var, arr, True, True)
    if json:
        if arr.type.family != "json" or not param:
            what = arr.type.name if arr.type.family != "json" else "another json value"
            ctx.reporter.error("E0304", f"json_array_unpack needs a json parameter, a 'with' name or a member of one "
                               f"(params['items']), got {what}", arg.span, "give it a type: <json>$items")
            return None
        var = qir.LoopVar(q.var, JSON, sql_name)
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


def refuse_record_params(stmt: qir.Node, reporter: Reporter) -> bool:
    """An array of named tuples as a parameter (exprs._record_array_type) read other than as a
    ``for`` loop's source: E0206; ``True`` when reported."""
    sources = {id(n.source) for n in qir.walk(stmt) if type(n) is qir.Batch}  # type: ignore[attr-defined]
    bound = {id(n.value) for n in qir.walk(stmt) if type(n) is qir.WithValue}  # type: ignore[attr-defined]
    for n in qir.walk(stmt):
        record = n.type.element is not None and n.type.element.fields is not None if isinstance(n, qir.Expr) else False
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
            and _simple_selection(ctx.type_sets[body.subject.name]):
        # `with p := (select Person filter ...) for x in ... union (select p { name })`: the
        # selection's objects, once per element (https://docs.geldata.com/reference/edgeql/with)
        sq = ast.SelectQuery(body.subject.name, body.subject.span, body.shape, body.filter, body.order,
                             body.offset, body.limit, body.span)
        body = _select_of_selection(sq, ctx.type_sets[body.subject.name], ctx)
        if body is None:
            return None
    elif _for_value_body(body, ctx) or (isinstance(body, ast.BinOp) and body.op in ("except", "intersect")
                                        and _for_value_body(body.left, ctx)):
        return _for_value(qf, q, body, inner_with, ctx)
    if isinstance(body, (ast.SelectExpr, ast.SubSelect)):
        body = _as_select_query(body, ctx)
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
    if subject is None and _abstract_type(ctx.schema, body.type_name, ctx.module, body.type_span, ctx.reporter,
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
        w = _insert_write(body, subject, ctx, batch=batch)
        if w is None:
            return None
        if returning is not None:
            return _write_returning(qf, w, subject, returning[0], returning[1], ctx, MANY)
        return _plan(qf, "insert", subject, _returning_id(w), ctx, MANY, w.exclusives)
    if isinstance(body, ast.UpdateQuery):
        w = _update_write(body, subject, ctx, batch)
        if w is None:
            return None
        return _plan(qf, "update", subject, _returning_id(w), ctx, MANY, w.exclusives)
    if isinstance(body, ast.DeleteQuery):
        w = _delete_write(body, subject, ctx, batch)
        if w is None:
            return None
        return _plan(qf, "delete", subject, _returning_id(w), ctx, MANY, ())
    if body.order or body.offset is not None or body.limit is not None:
        ctx.reporter.error("E0206", "'order by', 'offset' and 'limit' in a 'for' loop's select are not supported yet",
                           body.span, "order or limit the objects in a query of their own")
        return None
    node, _ = _select_node(body, subject, ctx, batch=batch)
    if node is None:
        return None
    return _plan(qf, "select", subject, node, ctx, MANY, (), _fields(node.shape))


def _conditional_insert(body) -> Optional[Tuple[ast.InsertQuery, ast.Expr, bool]]:
    """``(insert, condition, negated)`` of a ``for`` body ``[select] if c then (insert ...) else
    {}`` (or ``if c then {} else (insert ...)``, ``(insert ...) if c else {}``): Gel runs a
    statement in a branch of ``if`` only for the elements that take it, and neither branch when
    ``c`` is empty (https://docs.geldata.com/reference/edgeql/insert#conditional-inserts,
    https://docs.geldata.com/reference/edgeql/expressions); ``None`` for any other body."""
    if isinstance(body, ast.SelectExpr) and body.shape is None and not _has_clauses(body):
        body = body.subject
    if not isinstance(body, ast.IfElse):
        return None
    then, else_ = _unparen(body.then), _unparen(body.else_)
    if isinstance(then, ast.InsertQuery) and _is_empty_set(else_):
        return then, body.cond, False
    if isinstance(else_, ast.InsertQuery) and _is_empty_set(then):
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
    return _plan(qf, "select", None, node, ctx, MANY, (), (ResultField("value", low.type, False),), scalar=True)


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
                                              and _abstract_key(ctx.schema, body.name, ctx.module) is None)
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
    el = qir.ShapeComputed(value.span, ResultField("value", low.type, _may_be_empty(low)), low)
    node = qir.SelectValues(body.span, (el,), True, batch)
    return _plan(qf, "select", None, node, ctx, MANY, (), (ResultField("value", low.type, False),), scalar=True)


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
        sub = computed_sql.as_subselect(_normal_selection(b.value, ctx.schema, ctx.module))
        target = ctx.schema.find_type(sub.type_name, ctx.module) if sub is not None else None
        if target is not None and sub.type_name not in ctx.variables and sub.type_name not in ctx.type_sets \
                and not computed_sql.filter_pins_one(sub.filter, target):  # type: ignore[union-attr]
            # `voice_actor := (select Staff filter .id_al in array_unpack(ids))`: a set of
            # objects per element, read where it is used (a multi link's value, `count`, `in`)
            ctx.variables.pop(b.name, None)
            sel = _normal_selection(b.value, ctx.schema, ctx.module)
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


def _as_select_query(e, ctx: ExprContext) -> Optional[ast.SelectQuery]:
    """``(select T { shape } filter ...)`` inside an expression, as a top-level select of a type
    (``None``, reported, when it selects something else)."""
    if isinstance(e, ast.SubSelect):
        return ast.SelectQuery(e.type_name, e.type_span, None, e.filter, (), None, None, e.span)
    if isinstance(e.subject, ast.VarRef) and ctx.schema.find_type(e.subject.name, ctx.module) is not None:
        return ast.SelectQuery(e.subject.name, e.subject.span, e.shape, e.filter, e.order, e.offset, e.limit, e.span)
    ctx.reporter.error("E0206", "a 'for' loop whose body selects an expression (not a type) is not supported yet",
                       e.span, "select a type: for x in ... union (select T { ... } filter ...)")
    return None


def _returning_id(w) -> qir.Returning:
    """A plain write's statement: it returns ``{ id }``."""
    id_col = w.subject.columns[0]  # the implicit id comes first
    assert id_col.is_id
    return qir.Returning(w.span, w, (qir.ShapeColumn(w.span, ResultField("id", id_col.type, False), id_col),))


def _insert(qf: ast.QueryFile, q: ast.InsertQuery, subject: ObjectType, ctx: ExprContext) -> Optional[qir.Query]:
    w = _insert_write(q, subject, ctx)
    if w is None:
        return None
    return _plan(qf, "insert", subject, _returning_id(w), ctx, w.cardinality, w.exclusives)


def _split(nodes: List[qir.Node]) -> Tuple[Tuple[qir.Assign, ...], Tuple[qir.LinkAssign, ...]]:
    """``(column assignments, multi link assignments)``, each in order."""
    sets = []
    links = []
    for n in nodes:
        (sets if type(n) is qir.Assign else links).append(n)
    return tuple(sets), tuple(links)  # type: ignore[return-value]


def _insert_write(q: ast.InsertQuery, subject: ObjectType, ctx: ExprContext,
                  batch: Optional[qir.Batch] = None) -> Optional[qir.Insert]:
    saved, ctx.nested = ctx.nested, ([] if batch is None else None)
    given = {a.name for a in q.assignments}
    try:
        values = _assignments(q.assignments, subject, ctx, insert=True)
        values += _link_insert_defaults(q, subject, given, ctx)
        nested = tuple(ctx.nested or ())
    finally:
        ctx.nested = saved
    missing = [c.link or c.name for c in subject.columns
               if c.required and not c.defaulted and (c.link or c.name) not in given]
    values += _query_defaults(subject, given, ctx)
    for pl in subject.poly_links.values():
        if pl.required and not pl.multi and pl.name not in given:
            refuse_poly_link(subject, pl.name, q.type_span, ctx.reporter)  # (it must be set: refused)
    if missing:
        ctx.reporter.error("E0305", f"insert of '{subject.name}' is missing required "
                           f"propert{'y' if len(missing) == 1 else 'ies'} {', '.join(repr(m) for m in missing)}",
                           q.type_span, f"add e.g. {missing[0]} := ${missing[0]}" if missing[0] not in subject.links
                           else f"add e.g. {missing[0]} := (select ... filter .id = ${missing[0]}_id)")
    conflict = None
    cardinality = ONE
    raisable = tuple(subject.exclusives)
    if q.unless_conflict is not None:
        cardinality = AT_MOST_ONE
        ok, arbiter = _on_conflict(q.unless_conflict, subject, ctx)
        conflict = qir.Conflict(q.unless_conflict.span, arbiter)
        # The absorbed conflict is not an error; a bare `unless conflict` absorbs them all.
        raisable = tuple(ex for ex in raisable if arbiter is not None and ex is not arbiter)
        if q.unless_conflict.else_ is not None and ok:
            conflict, touched = _conflict_else(q.unless_conflict, subject, ctx, conflict, q.assignments)
            # The new row, or the existing one (when the else update's filter holds for it).
            cardinality = AT_MOST_ONE if conflict.else_filter is not None else ONE
            raisable = tuple(dict.fromkeys(raisable + touched))
    if ctx.reporter.has_errors:
        return None
    sets, links = _split(values)
    if batch is not None and conflict is not None and conflict.else_kind == "update":
        conflict = _excluded_values(conflict, sets, subject, ctx)
        if conflict is None:
            return None
    check = policies.write_check(subject, "insert", ctx, '"_new"')
    returning = None
    if check is not None:
        table = qi(subject.table)
        returning = policies.write_check(subject, "insert", ctx, table)
        if conflict is not None and conflict.else_kind == "update":
            # An upsert (https://docs.geldata.com/reference/datamodel/access_policies): the new
            # object gets the insert check, the existing one the else update's (whose `update
            # read` policies choose whether it is updated at all; Postgres finds the conflict
            # with any row, as an exclusive constraint holds across every object).
            updated = policies.write_check(subject, "update write", ctx, table)
            returning = qir.UpsertCheck(q.span, returning.type, False, table, returning, updated)  # type: ignore[union-attr, arg-type]
            check = None
            visible = policies.read_predicate(subject, ctx, table, "update read")
            conflict = dataclasses.replace(conflict, else_visible=visible)
            if visible is not None:
                cardinality = AT_MOST_ONE
    if nested and q.unless_conflict is not None:
        ctx.reporter.error("E0206", "a nested insert in an insert with 'unless conflict' is not supported yet",
                           nested[0].span, "insert the object first: with p := (insert ...) ...")
        return None
    return qir.Insert(q.span, subject, sets, links, conflict, batch, cardinality, raisable, check, nested, returning)


def _reads_loop(node: qir.Node) -> bool:
    """Whether an expression reads a ``for`` loop's variable (directly or through a name bound
    per element)."""
    return any(type(n) is qir.VarRef and type(n.binding) is qir.LoopVar for n in qir.walk(node))  # type: ignore[attr-defined]


def _excluded_values(conflict: qir.Conflict, sets, subject: ObjectType, ctx: ExprContext) -> Optional[qir.Conflict]:
    """In a loop's upsert, the else update's values that read the loop variable: Postgres'
    ``DO UPDATE`` does not see the loop's row, only the proposed one (``excluded``). A value that
    is the one the insert gives the same property is read from it (``excluded."col"``); any
    other is refused."""
    # (An inserted value that falls back to the column default differs from the update's.)
    inserted = {a.column.name: a.value for a in sets if a.default is None}
    out = []
    for a in conflict.else_sets:
        if not _reads_loop(a.value) or a.op != ":=":
            out.append(a)
            continue
        if a.column.name not in inserted or not qir.same(inserted[a.column.name], a.value):
            ctx.reporter.error("E0206", f"in a 'for' loop's upsert, the else update's value of '{a.column.name}' reads "
                               "the loop variable but is not the value the insert gives it: not supported yet",
                               a.span, f"give '{a.column.name}' the same value in the insert and the update")
            return None
        col = a.column
        out.append(dataclasses.replace(a, value=qir.ColumnRef(a.value.span, col.type, not col.required, col, subject,
                                                              None, "excluded")))
    return dataclasses.replace(conflict, else_sets=tuple(out))


def check_insert(q: ast.InsertQuery, subject: ObjectType, ctx: ExprContext) -> Optional[qir.Insert]:
    """``insert T { ... }`` checked as a statement (a link's default that inserts, checked with
    its schema: :meth:`schemac.semantics.resolve._Resolver._insert_default`)."""
    return _insert_write(q, subject, ctx)


def _link_insert_defaults(q: ast.InsertQuery, subject: ObjectType, given: Set[str],
                          ctx: ExprContext) -> List[qir.Node]:
    """The links an insert leaves out whose default inserts their object (``gold: Material {
    default := (insert Material { kind := Kind.Gold }) }``,
    https://docs.geldata.com/reference/datamodel/links): each is a nested insert of this
    statement, written first in a CTE of its own, as ``gold := (insert Material {...})`` would
    be (one new object per object inserted). Refused where a nested insert is: in a 'for'
    loop's bulk insert and with 'unless conflict' (the object would be inserted even when the
    insert is skipped)."""
    out: List[qir.Node] = []
    for c in subject.columns:
        if c.link is None or c.link in given or not _is_nested_insert(c.query_default):
            continue
        if ctx.nested is None or q.unless_conflict is not None:
            where = "a 'for' loop's insert" if ctx.nested is None else "an insert with 'unless conflict'"
            ctx.reporter.error("E0206", f"the default of link '{c.link}' inserts an object: {where} that leaves "
                               f"'{c.link}' out is not supported yet", q.type_span,
                               f"give '{c.link}' a value, e.g. {c.link} := (insert ...)")
            continue
        scope = dataclasses.replace(ctx, module=c.query_default_module, column_prefix=None)
        a = ast.Assignment(c.link, c.query_default, c.query_default.span, c.query_default.span)  # type: ignore
        low = _written(a, c.query_default, subject.links[c.link], scope, many=False)  # type: ignore[arg-type]
        if low is not None:
            out.append(qir.Assign(q.type_span, c, low))
    return out


def _query_defaults(subject: ObjectType, given: Set[str], ctx: ExprContext) -> List[qir.Node]:
    """The defaults that read a global, for the columns an insert leaves out (see
    :attr:`schemac.semantics.model.Column.query_default`)."""
    out: List[qir.Node] = []
    for c in subject.columns:
        if c.query_default is None or (c.link or c.name) in given or _is_nested_insert(c.query_default):
            continue
        scope = dataclasses.replace(ctx, module=c.query_default_module, column_prefix=None)
        low = check(c.query_default, scope, c.type)  # type: ignore[arg-type]
        if low is not None:
            out.append(qir.Assign(low.span, c, low, default="cast"))
    return out


def _holds_for_conflicting(filt: ast.Expr, uc: ast.UnlessConflict, assigns) -> bool:
    """Whether ``else (select T filter <filt>)`` keeps the conflicting object whatever it is: each
    conjunct is ``.k = v`` of a property ``k`` the conflict is on and the value ``v`` the insert
    gives it (the conflicting object has that value: Gel's else branch sees it as ``T``,
    https://docs.geldata.com/reference/edgeql/insert#upserts), so the filter changes nothing."""
    keys = {p.steps for p in uc.on if isinstance(p, ast.Path)}
    values = {a.name: a.value for a in assigns if a.op == ":="}
    for c in _conjuncts(filt):
        if not (isinstance(c, ast.BinOp) and c.op == "="):
            return False
        ok = False
        for side, other in ((c.left, c.right), (c.right, c.left)):
            if isinstance(side, ast.Path) and side.steps in keys and len(side.steps) == 1 \
                    and side.steps[0] in values and _same_syntax(other, values[side.steps[0]]):
                ok = True
        if not ok:
            return False
    return True


def _same_syntax(a, b) -> bool:
    """Two syntax trees that are the same but for where they are written (their spans)."""
    if isinstance(a, Span) and isinstance(b, Span):
        return True
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(_same_syntax(getattr(a, f.name), getattr(b, f.name))
                                          for f in dataclasses.fields(a))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same_syntax(x, y) for x, y in zip(a, b))
    return a == b


def _conflict_else(uc: ast.UnlessConflict, subject: ObjectType, ctx: ExprContext, conflict: qir.Conflict,
                   assigns=()) -> Tuple[qir.Conflict, Tuple[ExclusiveConstraint, ...]]:
    """``else (update T set {...})`` -> ``DO UPDATE SET ...``; ``else (select T)`` -> a no-op
    ``DO UPDATE`` that makes ``RETURNING`` yield the existing row (``DO NOTHING`` returns no
    row). Values may read the existing row (``.attempts + 1``); parameters are the insert's.
    Returns the conflict clause and the exclusive constraints the update part can still
    violate."""
    el = uc.else_
    assert el is not None
    if el.type_name.split("::")[-1] != subject.name:
        ctx.reporter.error("E0304", f"the else branch must {el.kind} '{subject.name}', not '{el.type_name}'",
                           el.type_span)
        return conflict, ()
    if not uc.on:
        ctx.reporter.error("E0306", "an upsert needs 'unless conflict on (...)' to name its arbiter", uc.span,
                           "write e.g. unless conflict on (.email) else (update ...)")
        return conflict, ()
    if el.kind == "select":
        if el.filter is not None and not _holds_for_conflicting(el.filter, uc, assigns):
            ctx.reporter.error("E0206", "'else (select ... filter ...)' with a filter other than the conflict's key "
                               "('.key = <the value inserted>') is not supported yet", el.filter.span,  # type: ignore[attr-defined]
                               f"write else (select {el.type_name})")
            return conflict, ()
        every = next((tr for tr in subject.triggers if tr.level == "STATEMENT" and "UPDATE" in tr.events), None)
        if every is not None:
            # Postgres fires the UPDATE statement triggers of every INSERT ... ON CONFLICT DO
            # UPDATE, whose row triggers alone can be told the row is only returned
            # (lowering.else_select_marks); Gel fires no update trigger for it.
            ctx.reporter.error("E0206", f"'unless conflict ... else (select {el.type_name})' of '{subject.name}', which "
                               f"has a 'for all' update trigger ('{every.name[len('gel_'):]}'), is not supported yet",
                               el.span, "make the trigger 'for each', or select the object in a separate query")
            return conflict, ()
        return dataclasses.replace(conflict, else_kind="select"), ()
    # Inside DO UPDATE the proposed row (`excluded`) is in scope too: qualify the columns.
    ctx.column_prefix = qi(subject.table)
    try:
        sets_nodes = _assignments(el.assignments, subject, ctx, insert=False)
        filt = _where(el.filter, subject, ctx)[0] if el.filter is not None else None
    finally:
        ctx.column_prefix = None
    if not el.assignments:
        ctx.reporter.error("E0304", "the else update needs at least one assignment", el.span)
        return conflict, ()
    sets, links = _split(sets_nodes)
    for link in links:
        # The join-table writes of the else branch run after the upsert, from the row it
        # returns (lowering.write_sql): the existing row is not in scope there.
        a = next(a for a in el.assignments if a.name == link.link.name)
        if _reads_row(link, subject):
            ctx.reporter.error("E0206", f"in an upsert's else update, a value of the multi link '{a.name}' that "
                               "reads the existing object is not supported yet", a.value.span,
                               "change the links in a separate update")
            return conflict, ()
    return (dataclasses.replace(conflict, else_kind="update", else_sets=sets, else_filter=filt, else_links=links),
            _exclusives_written(subject, sets))


def _reads_row(link: qir.LinkAssign, subject: ObjectType) -> bool:
    """Whether a multi link's value in an upsert's else update reads the existing object: a node
    of it reads the row named by the table's name, the alias the else update's values read it by
    inside ``DO UPDATE`` (a column's qualifier, a link count's subject row, ...)."""
    return _reads_alias((link.ids, link.props), qi(subject.table))


def _reads_alias(value: object, alias: str) -> bool:
    """Whether an IR value (a node, or a tuple of them, nested) reads the row named ``alias``:
    one of its nodes names it (a :class:`qir.ColumnRef`'s ``qualifier``, a ``subject_row``, any
    field naming a row), or -- while the checker still writes some SQL text into the IR (issue
    26 step 2) -- that text qualifies a column with it."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, tuple):
            stack.extend(v)
        elif isinstance(v, qir.Node):
            if isinstance(v, qir.VarRef):
                b = v.binding
                if isinstance(b, qir.WithValue) and b.inline:
                    stack.append(b.value)
                continue
            for f in dataclasses.fields(v):  # type: ignore[arg-type]
                x = getattr(v, f.name)
                if isinstance(x, str):
                    if x == alias or ((f.name == "template" or f.name.endswith("_sql")) and alias + "." in x):
                        return True
                elif isinstance(x, (tuple, qir.Node)):
                    stack.append(x)
    return False


def _on_conflict(uc: ast.UnlessConflict, subject: ObjectType,
                 ctx: ExprContext) -> Tuple[bool, Optional[ExclusiveConstraint]]:
    """``(ok, arbiter)``: the arbiter constraint is ``None`` for a bare ``unless conflict``,
    which absorbs a conflict on any constraint; ``ok`` is false after an error."""
    if not uc.on:
        return True, None
    names: List[str] = []
    for p in uc.on:
        low = check(p, ctx)
        col = column_of(low) if low is not None else None
        if col is not None:
            names.append(col.name)
        elif low is not None:
            ctx.reporter.error("E0306", "'unless conflict on' names properties (.a, .b)", p.span)
    if len(names) != len(uc.on):
        return False, None
    on_props = [ex for ex in subject.exclusives if not ex.on_expressions]
    for ex in on_props:
        if set(ex.columns) == set(names) and len(ex.columns) == len(names):
            return True, ex
    cands = [f"on ({', '.join('.' + c for c in ex.columns)})" for ex in on_props]
    hint = ("exclusive constraints of '%s': %s" % (subject.name, "; ".join(cands))) if cands else \
        f"'{subject.name}' declares no exclusive constraint; add one, or drop 'on (...)'"
    ctx.reporter.error("E0306", f"no exclusive constraint of '{subject.name}' is on ({', '.join('.' + n for n in names)})",
                       uc.span, hint)
    return False, None


def _update(qf: ast.QueryFile, q: ast.UpdateQuery, subject: ObjectType, ctx: ExprContext) -> Optional[qir.Query]:
    w = _update_write(q, subject, ctx)
    if w is None:
        return None
    return _plan(qf, "update", subject, _returning_id(w), ctx, w.cardinality, w.exclusives)


def _update_write(q: ast.UpdateQuery, subject: ObjectType, ctx: ExprContext,
                  batch: Optional[qir.Batch] = None) -> Optional[qir.Update]:
    filt, cardinality = _where(q.filter, subject, ctx)
    visible = policies.read_predicate(subject, ctx, None, "update read")
    # An insert nested in the values of an update of at most one object runs once, for that
    # object (Gel evaluates the values once per object it updates); of several, it is refused.
    saved, ctx.nested = ctx.nested, ([] if cardinality != MANY and batch is None else None)
    try:
        nodes = _assignments(q.assignments, subject, ctx, insert=False)
        nested = tuple(ctx.nested or ())
    finally:
        ctx.nested = saved
    check = policies.write_check(subject, "update write", ctx, '"_new"')
    if not q.assignments:
        ctx.reporter.error("E0304", "an update needs at least one assignment in 'set { ... }'", q.span)
    if ctx.reporter.has_errors:
        return None
    sets, links = _split(nodes)
    looped = next((a for a in links if a.rows is not None), None)
    if looped is not None:
        ctx.reporter.error("E0206", "a multi link's value that is a 'for' loop is not supported yet",
                           looped.rows.span, "write tags := (select Tag filter ...)")  # type: ignore[union-attr]
        return None
    returning = None if check is None else policies.write_check(subject, "update write", ctx, qi(subject.table))
    update = qir.Update(q.span, subject, filt, sets, links, cardinality, _exclusives_written(subject, sets), visible,
                        check, batch, returning)
    if not nested:
        return update
    update = dataclasses.replace(update, nested=tuple(
        dataclasses.replace(b, write=dataclasses.replace(b.write, only_for=update)) for b in nested))
    return update


def _exclusives_written(subject: ObjectType, sets) -> Tuple[ExclusiveConstraint, ...]:
    """The exclusive constraints an update of the ``sets`` columns can violate: those whose
    columns or predicate it writes, except a partial one the update can only take rows out of
    (it leaves the key alone and sets the predicate's column to another value: ``set { status
    := Status.Running }`` against ``filter .status = Status.Pending``)."""
    written = {a.column.name for a in sets}
    return tuple(ex for ex in subject.exclusives if written & (set(ex.columns) | set(ex.predicate_columns))
                 and not _only_leaves(ex, sets, written))


def _only_leaves(ex: ExclusiveConstraint, sets, written) -> bool:
    """True when an update writing ``sets`` cannot bring a row into the partial constraint
    ``ex``: its key columns are not written, and its predicate ``col = 'v'`` has ``col`` set to a
    constant other than ``v`` (the constraint's checked predicate, ``ex.predicate``:
    ``filter .col = Enum.Member`` or ``filter .col = 'v'``)."""
    if not ex.partial or written & set(ex.columns):
        return False
    p = ex.predicate
    if ex.predicate_except or type(p) is not qir.Binary or p.op != "=":  # type: ignore[attr-defined]
        return False
    sides = (p.left, p.right)  # type: ignore[attr-defined]
    ref = next((x for x in sides if type(x) is qir.ColumnRef and x.qualifier is None and x.link is None  # type: ignore[attr-defined]
                and x.visible is None), None)  # type: ignore[attr-defined]
    const = next((x for x in sides if type(x) is qir.EnumMember or (type(x) is qir.Literal and x.kind == "str")),
                 None)
    if ref is None or const is None:
        return False
    column = ref.column.name  # type: ignore[attr-defined]
    value = const.member if type(const) is qir.EnumMember else const.value  # type: ignore[attr-defined]
    for a in sets:
        if a.column.name == column:
            v = a.value
            if type(v) is qir.EnumMember:
                return v.member != value
            if type(v) is qir.Literal and v.kind == "str":
                return v.value != value
            return False
    return False


def _delete(qf: ast.QueryFile, q: ast.DeleteQuery, subject: ObjectType, ctx: ExprContext) -> Optional[qir.Query]:
    w = _delete_write(q, subject, ctx)
    if w is None:
        return None
    return _plan(qf, "delete", subject, _returning_id(w), ctx, w.cardinality, ())


def _delete_each_table(qf: ast.QueryFile, q: ast.DeleteQuery, subject: Optional[ObjectType],
                       ctx: ExprContext, abstract: Optional[str] = None) -> Optional[qir.Query]:
    """``delete Item filter f`` of a concrete type other types extend: Gel's objects of ``Item``
    include its subtypes' (https://docs.geldata.com/reference/datamodel/inheritance), which live
    in their own tables, so the statement deletes from each table (``WITH "_with__del0" AS
    (DELETE FROM "item" WHERE f RETURNING *), "_with__del1" AS (DELETE FROM "book" ...)``) and
    returns every deleted object's id, as ``select {p, q}`` of bound deletes does.

    ``abstract`` (``subject`` ``None``): the qualified name of an abstract type, ``delete Ship
    filter f``, whose objects are those of its concrete subtypes
    (https://docs.geldata.com/reference/edgeql/delete: a delete of any set of objects): the same
    statement over the concrete subtypes' tables, each checking ``f`` with its own pointers and
    access policies."""
    key0 = subject.qualname if subject is not None else abstract
    keys = [k for k in ctx.schema.descendants.get(key0, ()) if k in ctx.schema.types]
    if not keys:
        ctx.reporter.error("E0206", f"a delete of the abstract type '{key0.split('::')[-1]}', which no concrete "  # type: ignore[union-attr]
                           "type extends, is not supported yet", q.type_span)
        return None
    bindings: List[qir.Node] = []
    one = q.filter is not None and _pins_id(q.filter)
    for i, key in enumerate(keys):
        t = ctx.schema.types[key]
        w = _delete_write(q, t, dataclasses.replace(ctx, subject=t))
        if w is None:
            return None
        # (`.id = x` of one x: at most one object, ids being unique across the tables)
        one = one and w.cardinality != MANY
        bindings.append(qir.BoundWrite(q.span, f"_del{i}", w))
    union = qir.WrittenUnion(q.span, tuple(b.name for b in bindings))  # type: ignore[attr-defined]
    first = ctx.schema.types[keys[0]].column("id")
    assert first is not None
    return _plan(qf, "delete", subject, qir.With(q.span, tuple(bindings), union), ctx, AT_MOST_ONE if one else MANY,
                 (), (ResultField("id", first.type, False),))


def _delete_write(q: ast.DeleteQuery, subject: ObjectType, ctx: ExprContext,
                  batch: Optional[qir.Batch] = None) -> Optional[qir.Delete]:
    filt, cardinality = _where(q.filter, subject, ctx)
    visible = policies.read_predicate(subject, ctx, None, "delete")
    if ctx.reporter.has_errors:
        return None
    return qir.Delete(q.span, subject, filt, cardinality, visible, batch)


def _write_of(q, subject: ObjectType, ctx: ExprContext):
    if isinstance(q, ast.InsertQuery):
        return _insert_write(q, subject, ctx)
    if isinstance(q, ast.UpdateQuery):
        return _update_write(q, subject, ctx)
    return _delete_write(q, subject, ctx)


def _pins_one_row(filt: ast.Expr, subject: ObjectType) -> bool:
    """True when ``filt`` is a conjunction containing ``.col = <value not reading columns>``
    for ``id`` or for every column of a full exclusive constraint."""
    pinned: Set[str] = set()
    if any(computed_sql._false(c) or computed_sql.branches_pin(c, lambda b: _pins_one_row(b, subject))
           for c in ast.conjuncts(filt)):
        return True

    def reads_columns(e: ast.Expr) -> bool:
        return any(isinstance(n, ast.Path) for n in ast.iter_nodes(e))

    def column_of_path(path: ast.Path) -> Optional[str]:
        """The column a path reads: a property, or a single link (``.org`` / ``.org.id``). A
        path through a single link to an exclusive property of its target, ``.user.email``,
        pins the link (at most one user has that email), as Gel infers it: "if we see
        `.foo.bar`, `bar` must be exclusive; then `.foo` may be exclusive or used in an
        exclusive object constraint"."""
        link = subject.links.get(path.steps[0])
        if link is not None and link.column is not None and path.steps[1:] in ((), ("id",)):
            return link.column
        if link is not None and link.column is not None and len(path.steps) == 2 \
                and computed_sql.pins_link(subject, path.steps):
            return link.column
        return path.steps[0] if len(path.steps) == 1 else None

    for c in ast.conjuncts(filt):
        if isinstance(c, ast.BinOp) and c.op == "=":
            for a, b in ((c.left, c.right), (c.right, c.left)):
                if isinstance(a, ast.EnumRef) and a.enum.split("::")[-1] == subject.name:
                    a = ast.Path((a.member,), a.span)  # `User.name`: the subject's own path
                if isinstance(a, ast.Path) and not reads_columns(b):
                    col = column_of_path(a)
                    if col is not None:
                        pinned.add(col)
    if "id" in pinned:
        return True
    return any(ex.pins and set(ex.columns) <= pinned for ex in subject.exclusives)


def _where(filt: Optional[ast.Expr], subject: ObjectType, ctx: ExprContext) -> Tuple[Optional[qir.Expr], str]:
    """``(filter, cardinality)`` of a filter (``many`` unless it pins one row)."""
    if filt is None:
        return None, MANY
    rewritten = _object_set_comparisons(filt, subject, ctx)
    if rewritten is not None:
        low = check_filter(rewritten, ctx)
        return low, AT_MOST_ONE if low is not None and _pins_one_row(filt, subject) else MANY
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
    return low, AT_MOST_ONE if _pins_one_row(filt, subject) else MANY


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
    return low, AT_MOST_ONE if _pins_one_row(filt, subject) else MANY


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
    elements = _shape(shape, subject, qi(subject.table), ctx, depth=0, written=written, written_from=written_from)
    filt, cardinality = _where(q.filter, subject, ctx)
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
    return _plan(qf, "select", subject, node, ctx, cardinality, (), _fields(node.shape))


def _fields(elements) -> Tuple[ResultField, ...]:
    return tuple(el.field for el in elements)


#: Deepest nesting of shapes.
MAX_SHAPE_DEPTH = 4


def _join_table(link, ctx: ExprContext) -> Optional[ObjectType]:
    """The join table of a multi link, as a type whose columns are its link properties."""
    return ctx.schema.join_table(link.join_table)


def _json_ok(vtype: ValueType, span: Span, ctx: ExprContext) -> bool:
    """Whether a value of ``vtype`` can travel in a nested shape's JSON (else reported: see
    :data:`schemac.semantics.scalars.NOT_IN_JSON`)."""
    elem = vtype.element if vtype.element is not None else vtype
    name = elem.scalar.name if elem.scalar is not None else None
    if range_kind(elem.scalar) or name in NOT_IN_JSON or (vtype.element is not None and name in JSON_SPELLING and name.startswith("cal::")):
        ctx.reporter.error("E0206", f"a {vtype.name} value inside a nested shape is not supported yet", span,
                           "select it at the top level of a query (nested shapes travel as JSON, which the "
                           "Go runner cannot decode into this type)")
        return False
    return True


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
    https://docs.geldata.com/reference/edgeql/with), and from the table for the others."""
    out: List[qir.Node] = []
    seen: Set[str] = set()
    if any(el.splat for el in shape):
        shape = _expand_splats(shape, subject)
    for el in shape:
        unsupported = _unsupported_element(el)
        if unsupported is not None:
            ctx.reporter.error("E0206", f"{unsupported} in a shape {'is' if el.type_filter is None else 'are'} not "
                               "supported yet", el.span)
            continue
        rename: Optional[str] = None
        single = values = False
        if el.value is not None:
            linked = _linked_selection(el, subject, ctx)
            if linked is False:
                continue
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
                continue
            el = dataclasses.replace(el, shape=v.shape, value=None)
        if el.value is not None:
            if el.name in seen:
                ctx.reporter.error("E0309", f"'{el.name}' appears twice in the shape", el.span)
                continue
            seen.add(el.name)
            back = v.base if isinstance(v, ast.ShapeExpr) else v
            grouped = _group_selection(v) if not _has_clauses(el) and el.shape is None else None
            if grouped is not None:
                # `films := (select (group .<person[is Credit] by .film) { ... } order by ...)`
                node = _object_group_element(el, grouped, subject, alias, ctx, depth)
                if node is not None:
                    out.append(node)
                continue
            if isinstance(v, ast.LinkPropRef) and link_props is not None:
                # `tracks: { position := @position }`: the link property, under that name
                # (https://docs.geldata.com/reference/datamodel/linkprops#querying-link-properties)
                col = link_prop_column(link_props[0], link_props[1], v.name, v.span, ctx.reporter)
                if col is not None and _json_ok(col.type, el.span, ctx):
                    out.append(qir.ShapeLinkProp(el.span, ResultField(el.name, col.type, not col.required,
                                                                      in_json=True), col))
                continue
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
                reads = {n: (written_from or {}).get(n) for n in written}
                node = _computed_shape_element(el, subject, alias, dataclasses.replace(ctx, written_from=reads),
                                               depth)
            else:
                node = _computed_shape_element(el, subject, alias, ctx, depth)
            if node is not None:
                out.append(node)
            continue
        key = "@" + el.name if el.link_prop else (rename or el.name)
        if key in seen or (go_name(key) in {go_name(k) for k in seen}):
            ctx.reporter.error("E0309", f"'{key}' appears twice in the shape" if key in seen else
                               f"'{key}' and another field of the shape have the same name in Go", el.span)
            continue
        seen.add(key)
        if el.link_prop:
            if link_props is None:
                ctx.reporter.error("E0304", f"'@{el.name}' is a link property: it can only be selected inside the "
                                   "shape of a link", el.span, f"write e.g. tags: {{ name, @{el.name} }}")
                continue
            link_name, join_type = link_props
            col = link_prop_column(link_name, join_type, el.name, el.span, ctx.reporter)
            if col is None:
                continue
            if not _json_ok(col.type, el.span, ctx):
                continue
            out.append(qir.ShapeLinkProp(el.span, ResultField(key, col.type, not col.required, in_json=True), col))
            continue
        if el.shape is None and not el.link_prop and (el.name in subject.links or el.name in subject.poly_links or (
                el.name in subject.computeds and subject.computeds[el.name].target is not None)):
            # A link named without a shape is its objects' ids, `link: { id }`: Gel selects an
            # object without a shape as its id (https://docs.geldata.com/reference/edgeql/select#shapes).
            el = dataclasses.replace(el, shape=(ast.ShapeElement("id", None, el.span),))
        if poly is None and el.name in subject.poly_links and el.shape is not None:
            poly = _poly_shape_link(subject.poly_links[el.name], None, el.span, ctx)
            if poly is None:
                continue
        if poly is None and refuse_poly_link(subject, el.name, el.span, ctx.reporter):
            continue
        link = poly or subject.links.get(el.name)
        if link is not None:
            if depth == 0 and not link.multi and link.column is not None and [e.name for e in el.shape] == ["id"] \
                    and not _has_clauses(el) and rename is None:
                col = subject.column(link.column)  # type: ignore[arg-type]
                assert col is not None
                out.append(qir.ShapeLinkId(el.span, ResultField(el.name + "_id", col.type, not col.required), link, col,
                                           policies.link_visible(link, subject, ctx)))
                continue
            if depth + 1 > MAX_SHAPE_DEPTH:
                ctx.reporter.error("E0206", f"shapes nested deeper than {MAX_SHAPE_DEPTH} levels are not supported",
                                   el.span)
                continue
            written_cte = (written_from or {}).get(el.name)
            if el.name in written and written_cte is None and (link.multi or [e.name for e in el.shape] != ["id"]):
                ctx.reporter.error("E0206", f"selecting the {'multi ' if link.multi else ''}link '{el.name}' that the "
                                   "same statement writes is "
                                   "not supported yet", el.span,
                                   "its new links are not visible to the statement; select them in a second query")
                continue
            # (a single link's link properties: columns of the subject's row, single_link_props)
            join_type = _join_table(link, ctx) if link.multi else single_link_props(subject, el.name)
            props = (el.name, join_type) if join_type is not None else None
            inner_alias = qi(f"_s{depth + 1}")
            inner = _shape(el.shape, link.target, inner_alias, ctx, depth + 1, props)
            ok, clauses = _shape_clauses(el, link.target, inner_alias, ctx,
                                         None if join_type is None else
                                         (el.name, join_type, qi(f"_j{depth + 1}") if link.multi else alias))
            if not ok:
                continue
            nested = _fields(inner)
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
                    continue
                vt = col.column.type  # type: ignore[attr-defined]
                vtype = ValueType(element=vt) if field.multi else vt
                if depth > 0 and not _json_ok(vtype, el.span, ctx):
                    continue
                field = ResultField(field.name, vtype, not field.multi and (field.optional or col.field.optional),
                                    in_json=depth > 0)
            out.append(qir.ShapeLink(el.span, field, link, tuple(inner), join_type, visible, clauses, written_cte,
                                     single and link.multi, values))
            continue
        comp = subject.computeds.get(el.name)
        if comp is not None and comp.poly_type is not None and el.shape is not None:
            node = _poly_backlink_element(el, comp, subject, alias, ctx, depth)
            if node is not None:
                out.append(node)
            continue
        if comp is not None and computed_sql.refuse_computed(comp, el.span, ctx.reporter):
            continue
        if comp is not None:
            node = _computed_element(el, comp, subject, alias, ctx, depth)
            if node is not None:
                out.append(node)
            continue
        if el.shape is not None:
            ctx.reporter.error("E0304", f"'{el.name}' is not a link: it takes no shape", el.span)
            continue
        col = subject.column(el.name)
        if col is None or col.link is not None:
            ctx.reporter.error("E0302", f"type '{subject.name}' has no property '{el.name}'", el.span,
                               did_you_mean(el.name, [c.name for c in subject.columns if c.link is None and c.link_prop is None]
                                            + list(subject.links)))
            continue
        if _refuse_property_clauses(el, ctx):
            continue
        if depth > 0 and not _json_ok(col.type, el.span, ctx):
            continue
        if col.type.fields is not None:
            # a tuple property (https://docs.geldata.com/reference/stdlib/tuple), selected as any
            # tuple is: the JSON of its elements
            scope = dataclasses.replace(ctx, subject=subject, column_prefix=alias if depth > 0 else None)
            low = check(ast.Path((el.name,), el.span), scope)
            if low is not None:
                field = ResultField(col.name, col.type, not col.required, in_json=depth > 0)
                out.append(qir.ShapeComputed(el.span, field, selected_tuple(low)))
            continue
        out.append(qir.ShapeColumn(el.span, ResultField(col.name, col.type, not col.required, in_json=depth > 0), col))
    return out


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
    return True, qir.ShapeClauses(el.span, filt, tuple(_index_safe_order(order, filt)), bounds.get("offset"),
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
    from schemac.semantics.exprs import _object_path_base

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
    if depth + 1 > MAX_SHAPE_DEPTH:
        ctx.reporter.error("E0206", f"shapes nested deeper than {MAX_SHAPE_DEPTH} levels are not supported", el.span)
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
    field = ResultField(el.name, None, False, _fields(inner), True, depth > 0)
    return qir.ShapeComputedLink(el.span, field, objects, tuple(inner), clauses)


def _written_objects_element(el: ast.ShapeElement, ref: ast.VarRef, shape, ctx: ExprContext,
                             depth: int) -> Optional[qir.Node]:
    """``name := p`` / ``name := p { ... }`` in a shape, ``p`` a write bound by ``with``
    (https://docs.geldata.com/reference/edgeql/with): the objects it wrote, as the statement
    leaves them, read from its CTE (``RETURNING *``), a JSON list of them (one object, or
    ``null``, when it writes at most one); without a shape their ids (``{ id }``), as Gel
    returns an object set."""
    w = ctx.bound_writes[ref.name]
    if depth + 1 > MAX_SHAPE_DEPTH:
        ctx.reporter.error("E0206", f"shapes nested deeper than {MAX_SHAPE_DEPTH} levels are not supported", el.span)
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
    field = ResultField(el.name, None, not multi and w.cardinality != ONE, _fields(inner), multi,  # type: ignore[attr-defined]
                        depth > 0)
    return qir.ShapeComputedLink(el.span, field, objects, tuple(inner), clauses)


def _poly_backlink_element(el: ast.ShapeElement, comp, subject: ObjectType, alias: str, ctx: ExprContext,
                           depth: int) -> Optional[qir.Node]:
    """``name: { ... }`` of a computed backlink ``.<link[is A]`` of an abstract type ``A``
    (https://docs.geldata.com/reference/datamodel/links#backlinks,
    .../datamodel/inheritance): the objects of its concrete subtypes whose link points at this
    object, each subtype's table read on its own (``UNION ALL`` over the properties they
    share, and the computeds they all inherit), a JSON list like a backlink's."""
    if depth + 1 > MAX_SHAPE_DEPTH:
        ctx.reporter.error("E0206", f"shapes nested deeper than {MAX_SHAPE_DEPTH} levels are not supported", el.span)
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
    field = ResultField(el.name, None, False, _fields(inner), True, depth > 0)
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
    if depth + 1 > MAX_SHAPE_DEPTH:
        ctx.reporter.error("E0206", f"shapes nested deeper than {MAX_SHAPE_DEPTH} levels are not supported", el.span)
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
    nested = _fields(inner)
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
        if subject is None or not _pins_one_row(w.filter, subject):
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
    w = _write_of(q.body, subject, ctx)
    if w is None:
        return None
    return _write_returning(qf, w, subject, q.shape, q.span, ctx)


def _write_returning(qf: ast.QueryFile, w, subject: ObjectType, shape, span: Span, ctx: ExprContext,
                     cardinality: Optional[str] = None) -> Optional[qir.Query]:
    """The query of a write returning ``shape`` of its objects (``{ id }`` without one):
    ``RETURNING`` a flat shape; a shape with nested links selects from the written rows.
    ``cardinality``: the query's, when not the write's (a ``for`` loop's: ``many``)."""
    shape = shape if shape is not None else (ast.ShapeElement("id", None, span),)
    links_after = _links_after(w)
    elements = _shape(shape, subject, qi(subject.table), ctx, depth=0, written=w.written_links,
                      written_from={**getattr(w, "written_sources", {}), **links_after})
    if ctx.reporter.has_errors:
        return None
    nested = any(isinstance(el, (qir.ShapeLink, qir.ShapeComputedLink)) for el in elements)
    if nested:
        sel = ast.SelectQuery(subject.name, span, shape, None, (), None, None, span)
        node, selected = _select_node(sel, subject, dataclasses.replace(ctx, written_row=qi(subject.table)), w, "_new",
                                      links_after=links_after)
        if node is None:
            return None
        return _plan(qf, w.kind, subject, qir.WriteThenSelect(span, w, node), ctx, cardinality or selected,
                     w.exclusives, _fields(node.shape))
    return _plan(qf, w.kind, subject, qir.Returning(span, w, tuple(elements)), ctx, cardinality or w.cardinality,
                 w.exclusives, _fields(elements))


_ASSERT_DISTINCT = ("assert_distinct", "std::assert_distinct")


def _calls(root, names) -> bool:
    """Whether the syntax tree ``root`` calls one of the functions ``names``."""
    return any(type(n) is ast.FuncCall and n.name in names for n in ast.walk_syntax(root))


def _drop_assert_distinct(node, schema: Schema, env: Dict[str, bool]):
    """``node`` with ``assert_distinct(S)`` replaced by ``S`` where ``S`` is a selection of
    objects of one type (``(select Person filter ...)``, a ``with`` name bound to one, the type
    itself): its objects are distinct, so Gel's check never fails
    (https://docs.geldata.com/reference/stdlib/set#function::std::assert_distinct). ``env``: the
    ``with`` names in scope, whether each is such a selection. Any other ``assert_distinct``
    stays, for the checker's located E0206."""
    if isinstance(node, tuple):
        items = tuple(_drop_assert_distinct(x, schema, env) for x in node)
        return items if any(a is not b for a, b in zip(items, node)) else node
    if not dataclasses.is_dataclass(node) or isinstance(node, (Span, type, ast.TypeRef)):
        return node
    if isinstance(node, ast.FuncCall) and node.name in _ASSERT_DISTINCT and len(node.args) == 1 \
            and _distinct_objects(node.args[0], schema, env):
        return _drop_assert_distinct(node.args[0], schema, env)
    if isinstance(node, (ast.WithExpr, ast.WithQuery)):
        inner = dict(env)
        bindings = []
        for b in node.bindings:
            value = _drop_assert_distinct(b.value, schema, inner)
            bindings.append(b if value is b.value else dataclasses.replace(b, value=value))
            inner[b.name] = _distinct_objects(value, schema, inner)
        body = _drop_assert_distinct(node.body, schema, inner)
        if body is node.body and all(a is b for a, b in zip(bindings, node.bindings)):
            return node
        return dataclasses.replace(node, bindings=tuple(bindings), body=body)
    if isinstance(node, (ast.ForExpr, ast.ForQuery)):
        inner = dict(env, **{node.var: False})
        source = _drop_assert_distinct(node.source, schema, env)
        body = _drop_assert_distinct(node.body, schema, inner)
        return node if source is node.source and body is node.body else \
            dataclasses.replace(node, source=source, body=body)
    changes = {}
    for fld in dataclasses.fields(node):
        v = getattr(node, fld.name)
        if isinstance(v, (str, int, float, bool)) or v is None:
            continue
        nv = _drop_assert_distinct(v, schema, env)
        if nv is not v:
            changes[fld.name] = nv
    return dataclasses.replace(node, **changes) if changes else node


def _distinct_objects(node, schema: Schema, env: Dict[str, bool]) -> bool:
    """Whether ``node`` is a selection of objects of one type (see :func:`_drop_assert_distinct`)."""
    if isinstance(node, ast.SubSelect):
        return node.type_name not in env or env[node.type_name]
    if isinstance(node, ast.SelectExpr):
        return _distinct_objects(node.subject, schema, env)
    if isinstance(node, ast.VarRef):
        if node.name in env:
            return env[node.name]
        return schema.find_type(node.name) is not None
    if isinstance(node, ast.FuncCall) and node.name.replace("std::", "") in ("assert_single", "assert_exists",
                                                                             "assert_distinct") \
            and len(node.args) == 1:
        return _distinct_objects(node.args[0], schema, env)
    return False


def _unshadow(q: ast.WithQuery) -> ast.WithQuery:
    """``q`` with every name bound once: Gel reads a ``with`` block in order, each binding in the
    scope of the ones before it, and a name bound again shadows the earlier binding from there
    on (``player := (select Player filter ...), player := assert_exists(player)``: the second
    reads the first; Gel's compiler declares each binding's view in turn,
    https://docs.geldata.com/reference/edgeql/with). An earlier binding of a name bound again is
    renamed ``name~n``, and so are the references to it up to the binding that shadows it (its
    value included); the last binding of a name keeps it."""
    last = {b.name: i for i, b in enumerate(q.bindings)}
    if len(last) == len(q.bindings):
        return q
    taken = set(last)
    env: Dict[str, str] = {}
    bindings = []
    for i, b in enumerate(q.bindings):
        value = _rename_refs(b.value, env)
        name = b.name
        if b.name == "module" and isinstance(b.value, ast.VarRef) and b.name_span == b.value.span:
            bindings.append(b)  # (`with module x`)
            continue
        if last[b.name] != i:
            n = 1
            while f"{b.name}~{n}" in taken:
                n += 1
            name = f"{b.name}~{n}"
            taken.add(name)
            env[b.name] = name
        else:
            env.pop(b.name, None)
        bindings.append(dataclasses.replace(b, name=name, value=value))
    return dataclasses.replace(q, bindings=tuple(bindings), body=_rename_refs(q.body, env))


#: The nodes that name a ``with`` binding (or a type) in a string field.
_NAMING_FIELDS = {ast.VarRef: "name", ast.SubSelect: "type_name", ast.SelectQuery: "type_name",
                  ast.InsertQuery: "type_name", ast.UpdateQuery: "type_name", ast.DeleteQuery: "type_name",
                  ast.ConflictElse: "type_name"}


def _rename_refs(node, env: Dict[str, str]):
    """``node`` with the references to the names of ``env`` renamed (see :func:`_unshadow`); a
    nested ``with``, a ``for`` variable or a ``group``'s ``using`` name that binds one of them
    again hides it in its scope."""
    if not env:
        return node
    if isinstance(node, tuple):
        items = tuple(_rename_refs(x, env) for x in node)
        return items if any(a is not b for a, b in zip(items, node)) else node
    if not dataclasses.is_dataclass(node) or isinstance(node, (Span, type, ast.TypeRef)):
        return node
    if isinstance(node, (ast.WithExpr, ast.WithQuery)):
        inner = dict(env)
        bindings = []
        for b in node.bindings:
            bindings.append(dataclasses.replace(b, value=_rename_refs(b.value, inner)))
            inner.pop(b.name, None)
        return dataclasses.replace(node, bindings=tuple(bindings), body=_rename_refs(node.body, inner))
    if isinstance(node, (ast.ForExpr, ast.ForQuery)):
        inner = {k: v for k, v in env.items() if k != node.var}
        return dataclasses.replace(node, source=_rename_refs(node.source, env), body=_rename_refs(node.body, inner))
    if isinstance(node, ast.GroupExpr):
        inner = {k: v for k, v in env.items() if k not in {n for n, _ in node.using}}
        return dataclasses.replace(node, subject=_rename_refs(node.subject, env),
                                   using=tuple((n, _rename_refs(v, env)) for n, v in node.using),
                                   by=_rename_refs(node.by, inner), shape=_rename_refs(node.shape, inner))
    changes = {}
    for fld in dataclasses.fields(node):
        v = getattr(node, fld.name)
        if isinstance(v, str):
            if _NAMING_FIELDS.get(type(node)) == fld.name and v in env:
                changes[fld.name] = env[v]
            continue
        nv = _rename_refs(v, env)
        if nv is not v:
            changes[fld.name] = nv
    return dataclasses.replace(node, **changes) if changes else node


class _NotTheObject(Exception):
    """A ``with`` name read where :func:`_union_binding_select` cannot say which object it means."""


def _union_binding_select(q: ast.WithQuery, schema: Schema, module: str) -> ast.WithQuery:
    """``with r := (select A) union (select B) select r { shape } [filter] [order by] [offset]
    [limit]`` (also ``A union B``, ``{A, B}``; each operand a type or a select of one, ``r`` read
    nowhere else) as ``select (A union B) { shape } ...`` (:func:`_object_union`): a ``with`` name
    is its value (https://docs.geldata.com/reference/edgeql/with), and in the shape, filter and
    order of ``select r`` the name ``r`` is the object being selected (Gel's path scope,
    https://docs.geldata.com/reference/edgeql/paths), so ``r.x`` there is ``.x`` and ``r is T``
    its type check (https://docs.geldata.com/reference/stdlib/type#operator::is: a constant of
    each subtype's branch). ``q`` itself for any other block, or when ``r`` is read inside a
    nested shape or a sub-select with clauses of its own (where ``.`` is another object)."""
    body = q.body
    if not isinstance(body, ast.SelectQuery):
        return q
    name = body.type_name
    found = [i for i, b in enumerate(q.bindings) if b.name == name]
    if len(found) != 1:
        return q
    value = q.bindings[found[0]].value
    leaves = _union_leaves(value)
    bound = {b.name for b in q.bindings}

    def a_type(e) -> bool:
        if isinstance(e, ast.SubSelect):
            e = ast.VarRef(e.type_name, e.type_span)
        if isinstance(e, ast.SelectExpr) and e.shape is None:
            e = e.subject
        return isinstance(e, ast.VarRef) and not e.detached and e.name not in bound and (
            schema.find_type(e.name, module) is not None or _abstract_key(schema, e.name, module) is not None)

    others = q.bindings[:found[0]] + q.bindings[found[0] + 1:]
    if len(leaves) < 2 or not all(a_type(leaf) for leaf in leaves) or any(_reads_names(b.value, {name}) for b in others):
        return q
    scoped = (ast.ShapeExpr, ast.ForExpr, ast.GroupExpr, ast.WithExpr, ast.SubSelect, ast.FreeObject,
              ast.StatementExpr, ast.InsertQuery, ast.UpdateQuery, ast.DeleteQuery)

    def the_object(e):
        if isinstance(e, ast.EnumRef) and e.enum == name:
            return ast.Path((e.member,), e.span)
        if isinstance(e, ast.Step) and e.kind == "." and _reads_names(e.base, {name}):
            base = ast.map_expr(e.base, the_object)
            if isinstance(base, ast.Path):
                return ast.Path(base.steps + (e.name,), e.span)
            return dataclasses.replace(e, base=base)
        if isinstance(e, ast.TypeCheck) and isinstance(e.operand, ast.VarRef) and e.operand.name == name \
                and not e.operand.detached:
            return dataclasses.replace(e, operand=ast.Path((), e.operand.span))
        if isinstance(e, ast.VarRef) and e.name == name:
            raise _NotTheObject
        if isinstance(e, ast.SelectExpr) and (e.shape or e.filter is not None or e.order or e.offset is not None
                                              or e.limit is not None or isinstance(e.subject, ast.VarRef)) \
                and _reads_names(e, {name}):
            raise _NotTheObject
        if isinstance(e, scoped) and _reads_names(e, {name}):
            raise _NotTheObject
        return e

    try:
        shape = None
        if body.shape is not None:
            shape = []
            for el in body.shape:
                if _reads_names((el.shape, el.filter, el.order, el.offset, el.limit), {name}):
                    return q
                shape.append(el if el.value is None else dataclasses.replace(el, value=ast.map_expr(el.value,
                                                                                                    the_object)))
        filt = None if body.filter is None else ast.map_expr(body.filter, the_object)
        order = tuple(dataclasses.replace(o, expr=ast.map_expr(o.expr, the_object)) for o in body.order)
    except _NotTheObject:
        return q
    if _reads_names((body.offset, body.limit), {name}):
        return q
    selected = value if shape is None else ast.ShapeExpr(value, tuple(shape), body.span)
    select = ast.SelectValue(selected, filt, order, body.offset, body.limit, body.span)
    return dataclasses.replace(q, bindings=others, body=select)


_UNPACKS = ("array_unpack", "std::array_unpack", "json_array_unpack", "std::json_array_unpack")


def _unpack_loop_sources(q: ast.WithQuery) -> ast.WithQuery:
    """``with xs := json_array_unpack(<json>$p) for x in xs union (...)`` (also ``array_unpack``,
    and a loop inside a later binding): a loop over a ``with`` name bound to the unpacked
    elements of a parameter is the loop over that value, written in its place. A ``with`` name
    is its value (https://docs.geldata.com/reference/edgeql/with), and unpacking a parameter
    gives the same elements in the same order wherever it is written. The binding is dropped
    when nothing else reads it; a ``json_array_unpack`` binding read otherwise is left as it is
    (refused, located). ``q`` itself when no loop iterates over such a name, or when an inner
    scope binds the name again."""
    out = q
    for b in q.bindings:
        if not (isinstance(b.value, ast.FuncCall) and b.value.name in _UNPACKS and len(b.value.args) == 1):
            continue
        name, value = b.name, b.value
        if _binds_again(out, name, b):
            continue

        def loop_over(e, name=name, value=value):
            if isinstance(e, (ast.ForExpr, ast.ForQuery)) and isinstance(e.source, ast.VarRef) \
                    and e.source.name == name and not e.source.detached:
                return dataclasses.replace(e, source=value, body=ast.map_expr(e.body, loop_over))
            return e

        i = out.bindings.index(b)
        later = tuple(dataclasses.replace(x, value=ast.map_expr(x.value, loop_over)) for x in out.bindings[i + 1:])
        body = ast.map_expr(out.body, loop_over)
        if later == out.bindings[i + 1:] and body is out.body:
            continue
        read = _reads_names((later, body), {name})
        if read and b.value.name.endswith("json_array_unpack"):
            continue
        out = dataclasses.replace(out, bindings=out.bindings[:i] + (() if not read else (b,)) + later, body=body)
    return out


def _binds_again(node, name: str, binding) -> bool:
    """Whether ``node`` binds ``name`` again anywhere but in ``binding``: a ``for`` variable, a
    ``with`` binding of a nested block, a ``group``'s ``using`` name."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
            continue
        if not dataclasses.is_dataclass(n) or isinstance(n, (Span, type)):
            continue
        if (isinstance(n, (ast.ForExpr, ast.ForQuery)) and n.var == name) \
                or (isinstance(n, ast.WithBinding) and n.name == name and n is not binding) \
                or (isinstance(n, ast.GroupExpr) and any(u == name for u, _ in n.using)):
            return True
        stack.extend(getattr(n, f.name) for f in dataclasses.fields(n))
    return False


def _type_aliases(q: ast.WithQuery, schema: Schema) -> ast.WithQuery:
    """``q`` with each binding of a bare type name, ``with B := Book``, written ``B :=
    (select Book)``: the name stands for the set of the type's objects
    (https://docs.geldata.com/reference/edgeql/with: a ``with`` name is an alias of its
    expression), so ``select B { title } filter ...`` is ``select Book { ... } filter ...``.
    ``with I := detached Issue`` (geldata/gel tests/schemas/issues_setup.edgeql) is the same set:
    a ``with`` name is computed in a scope of its own, so ``detached`` changes nothing there
    (https://docs.geldata.com/reference/edgeql/paths#detached)."""
    module = next((b.value.name for b in q.bindings if b.name == "module" and isinstance(b.value, ast.VarRef)
                   and b.name_span == b.value.span), "default")
    bound: Set[str] = set()
    out = []
    for b in q.bindings:
        v = b.value
        if isinstance(v, ast.VarRef) and v.name not in bound and b.name != "module" \
                and schema.find_type(v.name, module) is not None:
            if v.detached:
                v = dataclasses.replace(v, detached=False)
            b = dataclasses.replace(b, value=ast.SelectExpr(v, None, None, (), None, None, v.span))
        bound.add(b.name)
        out.append(b)
    return dataclasses.replace(q, bindings=tuple(out)) if out != list(q.bindings) else q


def _with(qf: ast.QueryFile, q: ast.WithQuery, schema: Schema, reporter: Reporter) -> Optional[qir.Query]:
    """``with x := <expr>, p := (insert ...) <query>``.

    A binding to a parameter or a constant is that value, written where it is used (a
    parameter is bound once, however often it is used); any other expression is computed once.
    A binding to an insert, update or delete runs exactly once even when nothing reads it, and
    ``select p { ... }`` selects its rows with any shape."""
    q = _unshadow(q)
    q = _type_aliases(q, schema)
    module = next((b.value.name for b in q.bindings if b.name == "module" and isinstance(b.value, ast.VarRef)
                   and b.name_span == b.value.span), "default")
    q = _union_binding_select(q, schema, module)
    q = _unpack_loop_sources(q)
    desugared = fts.desugar_search_bindings(q, reporter)
    if desugared is None:
        return None
    q = dataclasses.replace(desugared, body=_backlink_selection(desugared.body, {b.name for b in q.bindings}, schema,
                                                                 module))
    params = ParamTable()
    ctx = ExprContext(schema, None, "default", reporter, params=params, where="a query", fts_queries={}, query_filter=_query_filter)
    bindings: List[qir.Node] = []
    writes: Dict[str, qir.Node] = {}
    exclusives: List[ExclusiveConstraint] = []
    selections = _selection_bindings(q, schema)
    #: `g := (group ...)` and `c := (select g { n := count(.elements) })`: the group and the
    #: computed fields added to it (https://docs.geldata.com/reference/edgeql/group).
    groups: Dict[str, Tuple[ast.GroupExpr, Tuple[ast.ShapeElement, ...]]] = {}
    ctx.group_bindings = groups  # (filled below; a free object's field may select them)
    ctx.group_field_array = group_field_array
    #: Bindings refused (reported): a later binding reading one is not checked (its errors
    #: would only repeat theirs, as an unknown name).
    refused: Set[str] = set()
    previous: Optional[Tuple[str, int]] = None
    #: `s := (select T { shape } filter ...)`: the shape written in the binding, which Gel keeps
    #: on the objects when the query selects `s` itself (https://docs.geldata.com/reference/edgeql/with)
    binding_shapes: Dict[str, Tuple[ast.ShapeElement, ...]] = {}
    for b in q.bindings:
        binding_shapes.pop(b.name, None)
        if isinstance(b.value, ast.SelectExpr) and isinstance(b.value.subject, ast.VarRef) and b.value.shape \
                and b.value.subject.name not in ctx.variables:
            binding_shapes[b.name] = tuple(b.value.shape)
        errors = sum(1 for d in reporter.diagnostics if d.severity == "error")
        if previous is not None and errors > previous[1]:
            refused.add(previous[0])
        previous = (b.name, errors)
        if refused and _reads_names(b.value, refused):
            refused.add(b.name)
            previous = None
            continue
        if b.name == "module" and isinstance(b.value, ast.VarRef) and b.span != b.value.span \
                and b.name_span == b.value.span:
            # `with module x` (https://docs.geldata.com/reference/edgeql/with#module-selection):
            # bare names resolve in module x first, then in default.
            if not schema.has_module(b.value.name):
                reporter.error("E0301", f"unknown module '{b.value.name}'", b.value.span)
                continue
            ctx.module = b.value.name
            continue
        value = _merge_selections(_in_module(b.value, ctx), ctx)
        if isinstance(value, ast.IfElse) and _if_else_selection(value, schema, ctx.module) is not None:
            # (`<T>{}` in a branch: a selection that keeps none)
            value = dataclasses.replace(value, then=_empty_objects(value.then, schema, ctx.module),
                                        else_=_empty_objects(value.else_, schema, ctx.module))
        if isinstance(value, ast.GroupExpr):
            groups[b.name] = (value, ())
            continue
        if isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.VarRef) \
                and value.subject.name in groups and value.subject.name not in ctx.variables:
            g, extras = groups[value.subject.name]
            if value.order and value.shape is None and value.filter is None and value.offset is None \
                    and value.limit is None and value.subject.name not in ctx.group_orders:
                # `sorted := (select g order by .k)`: the groups in that order, whose fields
                # array_agg((select sorted.k)) reads in it
                groups[b.name] = (g, extras)
                ctx.group_orders = {**ctx.group_orders, b.name: tuple(value.order)}
                continue
            if value.filter is not None or value.order or value.offset is not None or value.limit is not None \
                    or any(el.value is None for el in value.shape or ()):
                reporter.error("E0206", "a 'with' selection of groups other than (select g { name := ..., ... }) "
                               "is not supported yet", value.span,
                               "filter, order and shape the groups in the query's own select")
                continue
            groups[b.name] = (g, extras + tuple(value.shape or ()))
            continue
        if _computed_view(value, schema, ctx.module):
            # `m := (select Message { cmd := <expr> } filter ...)`: the objects, with the computed
            # elements a `group m using k := .cmd` reads (https://docs.geldata.com/reference/edgeql/shapes)
            ctx.type_sets[b.name] = dataclasses.replace(value, shape=None)
            ctx.views = {**ctx.views, b.name: {el.name: el.value for el in value.shape if el.value is not None}}
            continue
        several = False
        if _selection_of(value, schema, ctx.module) is not None:
            ctx.selections[b.name] = _if_else_selection(value, schema, ctx.module) or value
            sub = computed_sql.as_subselect(ctx.selections[b.name])
            target = schema.find_type(sub.type_name, ctx.module) if sub is not None else None
            # (a selection that may hold several objects is no one value: it is read where it
            # is used, as a link's value or a set)
            several = target is not None and not computed_sql.filter_pins_one(sub.filter, target)  # type: ignore[union-attr]
        if b.name in selections or several:
            # `with u := (select User filter ...)`, read as `select u { ... }`, `count(u)`, `exists u`.
            ctx.type_sets[b.name] = _normal_selection(value, schema, ctx.module)
            continue
        if isinstance(value, ast.FuncCall) and value.name in ("json_array_unpack", "std::json_array_unpack"):
            # (https://docs.geldata.com/reference/stdlib/json#function::std::json_array_unpack)
            reporter.error("E0206", "a 'with' name bound to json_array_unpack(...), a set of JSON values, is not "
                           "supported yet", value.span,
                           "iterate over it where it is read: for x in json_array_unpack(<json>$p) union (...)")
            continue
        if isinstance(value, ast.FuncCall) and value.name in ("array_unpack", "std::array_unpack"):
            # `with ids := array_unpack(<array<str>>$ids)`: a set, read where it is used
            # (`.id in ids`); its parameter is bound there.
            ctx.type_sets[b.name] = value
            continue
        if isinstance(value, (ast.SetLit, ast.BinOp)) and value_set_parts(value) is not None \
                and (not isinstance(value, ast.SetLit) or len(value.items) > 1):
            # `with xs := {1, 2} union array_unpack(...)`: a set of values, read where it is
            # used (`count(xs)`, `sum(xs)`, https://docs.geldata.com/reference/edgeql/with)
            ctx.type_sets[b.name] = value
            continue
        if free_loop(value):
            # `with s := (for i in range_unpack(r) union (select { a := ..., ... }))`: free objects
            rows = free_rows(value, ctx)
            if rows is not None:
                ctx.free_rows = {**ctx.free_rows, b.name: rows}
            continue
        if isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.VarRef) \
                and value.subject.name in ctx.free_rows and value.subject.name not in ctx.variables:
            # `first := (select s order by .a desc limit 1)`: one of them
            if value.shape is not None or value.filter is not None or value.offset is not None \
                    or not (isinstance(value.limit, ast.Literal) and value.limit.value == 1) \
                    or ctx.free_rows[value.subject.name].first:  # type: ignore[attr-defined]
                reporter.error("E0206", "a selection of free objects is supported as (select s order by .a limit 1)",
                               value.span)
                continue
            rows = first_free_row(value, ctx)
            if rows is not None:
                ctx.free_rows = {**ctx.free_rows, b.name: rows}
            continue
        if is_for_rows(value, ctx):
            # `with s := (for x in <objects> union <value of x>)`: a multiset of values, read
            # where it is used (`count(s)`, `group s using k := ... by k`)
            if for_rows(value, ctx) is not None:
                ctx.row_sets = {**ctx.row_sets, b.name: value}
            continue
        if isinstance(value, ast.StatementExpr) and isinstance(value.query, ast.ForQuery):
            value = value.query
        per_element: Tuple[ast.WithBinding, ...] = ()
        if isinstance(value, ast.ForExpr) and isinstance(_unparen(value.body), ast.WithExpr) \
                and isinstance(_unparen(_unparen(value.body).body), ast.InsertQuery):
            # `for x in ... union (with a := <expr>, ... insert T {...})`: the names bound per
            # element, written where they are used (as in a for loop of its own).
            per_element = _unparen(value.body).bindings
            value = ast.ForQuery(value.var, value.var_span, value.source, _unparen(_unparen(value.body).body),
                                 value.span)
        if isinstance(value, ast.ForQuery):
            # `with ps := (for x in json_array_unpack(...) union (insert T {...}))`: the bulk
            # insert, bound like any other write (https://docs.geldata.com/reference/edgeql/for).
            subject = schema.find_type(value.type_name, ctx.module)
            if subject is None:
                reporter.error("E0301", f"unknown type '{value.type_name}'", value.type_span,
                               did_you_mean(value.type_name.split("::")[-1], [t.name for t in schema.all_types()]))
                continue
            inner = dataclasses.replace(ctx, subject=subject, variables=dict(ctx.variables))
            batch = _loop(value, inner)
            if batch is not None and not _bind_per_element(per_element, inner):
                continue
            w = None if batch is None else _insert_write(value.body, subject, inner, batch=batch)
            if w is None:
                continue
            w = dataclasses.replace(w, cardinality=MANY)
        elif isinstance(value, (ast.InsertQuery, ast.UpdateQuery, ast.DeleteQuery)):
            subject = schema.find_type(value.type_name, ctx.module)
            if subject is None:
                reporter.error("E0301", f"unknown type '{value.type_name}'", value.type_span,
                               did_you_mean(value.type_name.split("::")[-1], [t.name for t in schema.all_types()]))
                continue
            w = _write_of(value, subject, dataclasses.replace(ctx, subject=subject))
            if w is None:
                continue
        if isinstance(value, (ast.InsertQuery, ast.UpdateQuery, ast.DeleteQuery, ast.ForQuery)):
            writes[b.name] = w
            ctx.bound_writes[b.name] = w
            exclusives.extend(w.exclusives)
            bindings.append(qir.BoundWrite(b.span, b.name, w))
            ctx.bound_statements[b.name] = f"{'an' if w.kind in ('insert', 'update') else 'a'} {w.kind} of " \
                                           f"'{subject.name}'"
            continue
        low = check(value, ctx)
        if low is None:
            continue
        constant = isinstance(value, (ast.Literal, ast.EnumRef, ast.VarRef)) or is_param(low)
        binding = qir.WithValue(b.name, low, constant)
        ctx.variables[b.name] = binding
        bindings.append(binding)
    if reporter.has_errors:
        return None
    body = q.body
    query: Optional[qir.Query]
    if isinstance(body, (ast.SelectQuery, ast.UpdateQuery, ast.DeleteQuery)) and body.type_name in ctx.row_sets:
        reporter.error("E0206", f"'{body.type_name}' is a set of a 'for' loop over objects: reading it other than by "
                       "count(), sum(), min(), max() or group is not supported yet", body.type_span,
                       f"count({body.type_name}), or group {body.type_name} ... by ...")
        return None
    if isinstance(body, ast.SelectQuery) and body.type_name in writes:
        w = writes[body.type_name]
        node, cardinality = _select_node(body, w.subject, dataclasses.replace(ctx, subject=w.subject),  # type: ignore[attr-defined]
                                         w, f"_with_{body.type_name}")
        query = None if node is None else _plan(qf, w.kind, w.subject, node, ctx, cardinality,  # type: ignore[attr-defined]
                                                w.exclusives, _fields(node.shape))  # type: ignore[attr-defined]
    elif isinstance(body, ast.SelectValue) and _distinct_union(body, ctx) is not None:
        merged = _distinct_union(body, ctx)
        subject = schema.find_type(merged.type_name, ctx.module)  # type: ignore[union-attr]
        assert subject is not None  # (checked by _distinct_union)
        query = _plan_body(dataclasses.replace(qf, query=merged), merged, subject,  # type: ignore[arg-type]
                           dataclasses.replace(ctx, subject=subject))
    elif isinstance(body, ast.SelectValue) and isinstance(body.value, ast.SetLit) and body.value.items \
            and not _has_clauses(body) and all(isinstance(i, ast.VarRef) and i.name in writes
                                               and i.name not in ctx.variables for i in body.value.items):
        # `select {p, q}` of bound writes: the objects they wrote, united, each { id }.
        names = tuple(i.name for i in body.value.items)  # type: ignore[attr-defined]
        first = writes[names[0]]
        query = _plan(dataclasses.replace(qf, query=body), first.kind, first.subject,  # type: ignore[attr-defined]
                      qir.WrittenUnion(body.span, names), ctx, MANY, ())
    elif isinstance(body, ast.SelectValue):
        query = _select_value(dataclasses.replace(qf, query=body), body, ctx)
    elif isinstance(body, ast.SelectQuery) and body.shape is None and body.type_name in ctx.type_sets and \
            isinstance(ctx.type_sets[body.type_name], (ast.SetLit, ast.BinOp, ast.FuncCall)) and \
            value_set_parts(ctx.type_sets[body.type_name]) is not None:
        # `with xs := {1, 2} select xs`: the set's values. Ordered by the values themselves,
        # `with xs := {3, 1, 2} select xs order by xs desc` (Gel's `select xs := {3, 1, 2} order by
        # xs`, https://docs.geldata.com/reference/edgeql/select): each item names the element.
        by_element = bool(body.order) and body.filter is None and body.offset is None and body.limit is None \
            and all(isinstance(o.expr, ast.VarRef) and o.expr.name == body.type_name for o in body.order)
        order = () if by_element else body.order
        value = ast.SelectValue(ctx.type_sets[body.type_name], body.filter, order, body.offset,
                                body.limit, body.span)
        query = _select_value(dataclasses.replace(qf, query=value), value, ctx,
                              tuple(o.descending for o in body.order) if by_element else ())
    elif isinstance(body, ast.SelectQuery) and body.type_name in ctx.type_sets and \
            not _simple_selection(ctx.type_sets[body.type_name]):
        reporter.error("E0206", f"selecting '{body.type_name}', a set of objects reached through a path or another "
                       "'with' name, with a shape is not supported yet", body.type_span,
                       "select the type with a filter: select T { ... } filter ...")
        return None
    elif isinstance(body, ast.SelectQuery) and body.type_name in ctx.type_sets:
        if body.shape is None and body.type_name in binding_shapes and body.type_name not in ctx.variables:
            # `with s := (select T { a, b := ... } filter f) select s`: the objects with the
            # binding's shape, as `select T { a, b := ... } filter f`
            body = dataclasses.replace(body, shape=binding_shapes[body.type_name])
        elif body.shape is not None and body.type_name in binding_shapes and body.type_name not in ctx.variables \
                and {el.name for el in binding_shapes[body.type_name]} - {el.name for el in body.shape}:
            reporter.error("E0206", f"a shape on '{body.type_name}', whose 'with' binding has a shape of its own, "
                           "is not supported yet", body.type_span,
                           "write one shape: select T { ... } filter ..., or select the name without a shape")
            return None
        merged = _select_of_selection(body, ctx.type_sets[body.type_name], ctx)
        if merged is None:
            return None
        subject = schema.find_type(merged.type_name, ctx.module)
        assert subject is not None  # (checked by _selection_bindings)
        query = _plan_body(dataclasses.replace(qf, query=merged), merged, subject,
                           dataclasses.replace(ctx, subject=subject))
    elif isinstance(body, ast.ForExpr):
        query = _for_any(dataclasses.replace(qf, query=body), body, ctx)
    elif isinstance(body, (ast.UpdateQuery, ast.DeleteQuery)) and body.type_name in ctx.type_sets:
        write = _write_of_selection(body, ctx.type_sets[body.type_name], ctx)
        if write is None:
            return None
        subject = schema.find_type(write.type_name, ctx.module)
        assert subject is not None  # (checked by _selection_bindings)
        query = _plan_body(dataclasses.replace(qf, query=write), write, subject,
                           dataclasses.replace(ctx, subject=subject))
    elif isinstance(body, ast.GroupExpr) or (isinstance(body, ast.SelectQuery) and body.type_name in groups
                                             and body.type_name not in ctx.variables):
        if isinstance(body, ast.GroupExpr):
            query = _group_query(dataclasses.replace(qf, query=body), body, ctx)
        else:
            g, extras = groups[body.type_name]
            query = _group_query(dataclasses.replace(qf, query=body), g, ctx, body, extras)
    elif isinstance(body, ast.SelectQuery) and body.type_name in ctx.variables:
        reporter.error("E0206", f"selecting a value ('{body.type_name}') is not supported yet", body.type_span,
                       "select a type, or a bound statement: with p := (insert ...) select p { ... }")
        return None
    elif isinstance(body, ast.SelectQuery) and schema.find_type(body.type_name, ctx.module) is None \
            and _abstract_key(schema, body.type_name, ctx.module) is not None:
        query = _abstract_select(dataclasses.replace(qf, query=body), body,
                                 _abstract_key(schema, body.type_name, ctx.module), ctx)  # type: ignore[arg-type]
    elif isinstance(body, ast.SelectQuery) and computed_sql.has_subtypes(schema, schema.find_type(body.type_name, ctx.module)):
        # a concrete type other types extend: its objects and its subtypes', as an abstract type's
        query = _abstract_select(dataclasses.replace(qf, query=body), body,
                                 schema.find_type(body.type_name, ctx.module).qualname, ctx)  # type: ignore[union-attr]
    elif isinstance(body, ast.DeleteQuery) and body.subject is None and not ctx.variables \
            and schema.find_type(body.type_name, ctx.module) is None \
            and _abstract_key(schema, body.type_name, ctx.module) is not None:
        # `with module m delete Ship filter ...`: the objects of its concrete subtypes
        query = _delete_each_table(dataclasses.replace(qf, query=body), body, None, ctx,
                                   _abstract_key(schema, body.type_name, ctx.module))
    else:
        subject = schema.find_type(body.type_name, ctx.module)
        if subject is None and _abstract_type(schema, body.type_name, ctx.module, body.type_span, reporter, body):
            return None
        if subject is None:
            reporter.error("E0301", f"unknown type '{body.type_name}'", body.type_span,
                           did_you_mean(body.type_name.split("::")[-1], [t.name for t in schema.all_types()]
                                        + list(writes)))
            return None
        inner = dataclasses.replace(qf, query=body)
        query = _plan_body(inner, body, subject, dataclasses.replace(ctx, subject=subject))
    if query is None or reporter.has_errors:
        return None
    # (the full-text queries first: they read only parameters)
    statement = qir.With(q.span, tuple(ctx.fts_queries.values()) + tuple(bindings), query.statement)  # type: ignore[union-attr]
    used = _params_used(statement)
    # (a global read by an access policy is in the policy's SQL, not in the IR)
    unused = tuple(qir.ParamRef(p.span, p.type, p.optional, p) for p in query.params
                   if id(p) not in used and p.global_ is None)
    if unused:
        statement = dataclasses.replace(statement, unused=unused)
    all_exclusives = tuple(dict.fromkeys(tuple(exclusives) + query.exclusives))
    return dataclasses.replace(query, statement=statement, exclusives=all_exclusives, doc=qf.doc)


def _reads_names(expr, names: Set[str]) -> bool:
    """``expr`` (an expression or a statement) reads one of the ``with`` names ``names``."""
    stack = [expr]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
            continue
        if not dataclasses.is_dataclass(n) or isinstance(n, (Span, type)):
            continue
        if (isinstance(n, ast.VarRef) and n.name in names) or (isinstance(n, ast.EnumRef) and n.enum in names) \
                or getattr(n, "type_name", None) in names:
            return True
        stack.extend(getattr(n, f.name) for f in dataclasses.fields(n))
    return False


def _backlink_selection(body, names: Set[str], schema: Schema, module: str):
    """``select [distinct] w.<link[is T] { shape } [filter f] [order by ...] [offset n] [limit m]``
    of a ``with`` name ``w`` as ``select T { shape } filter any(.link in w) [and f] ...``: the
    objects of ``T`` whose ``link`` holds one of ``w``'s objects, which is what the backlink
    path reaches (https://docs.geldata.com/reference/datamodel/links#backlinks; a path's objects
    are distinct, so ``distinct`` changes nothing). ``body`` itself for any other query."""
    if not isinstance(body, ast.SelectValue):
        return body
    value = body.value
    if isinstance(value, ast.UnaryOp) and value.op == "distinct":
        value = value.operand
    shape = None
    if isinstance(value, ast.ShapeExpr):
        value, shape = value.base, value.shape
    if not (isinstance(value, ast.TypeFilter) and isinstance(value.base, ast.Step) and value.base.kind == ".<"
            and isinstance(value.base.base, ast.VarRef) and value.base.base.name in names and not value.type.args):
        return body
    target = schema.find_narrowed(value.type.name, module)
    if target is None:
        return body
    step = value.base
    member = ast.FuncCall("any", (ast.BinOp("in", ast.Path((step.name,), step.span), step.base, step.span),),
                          step.span)
    filt = member if body.filter is None else ast.BinOp("and", member, body.filter, body.filter.span)
    return ast.SelectQuery(target.qualname, value.type.span, shape, filt, body.order, body.offset, body.limit,
                           body.span)


def _if_else_selection(value, schema: Schema, module: str) -> Optional[ast.SelectExpr]:
    """``(select User filter f) if cond else (select User [filter g])`` (both branches
    selections of one type without order, offset or limit; ``cond`` reads no path) as the one
    selection ``(select User filter (f if cond else g))``: Gel's ``if ... else`` is the objects
    of the branch ``cond`` picks, and none when ``cond`` is empty
    (https://docs.geldata.com/reference/edgeql/expressions), which is what the merged filter
    keeps (``CASE cond WHEN true THEN f WHEN false THEN g END``: NULL keeps no row). ``None``
    for any other value."""
    if not isinstance(value, ast.IfElse) or any(isinstance(n, (ast.Path, ast.Backlink))
                                                for n in ast.iter_nodes(value.cond)):
        return None
    branches = []
    for b in (value.then, value.else_):
        b = _empty_objects(b, schema, module)
        b = _if_else_selection(b, schema, module) or b  # (a chain: `a if c else b if d else e`)
        if isinstance(b, ast.SubSelect):
            b = ast.SelectExpr(ast.VarRef(b.type_name, b.type_span), None, b.filter, (), None, None, b.span)
        if not (isinstance(b, ast.SelectExpr) and b.shape is None and not b.order and b.offset is None
                and b.limit is None and isinstance(b.subject, ast.VarRef)
                and schema.find_type(b.subject.name, module) is not None):
            return None
        branches.append(b)
    then, else_ = branches
    if schema.find_type(then.subject.name, module) is not schema.find_type(else_.subject.name, module):  # type: ignore[union-attr]
        return None
    filters = [b.filter if b.filter is not None else ast.Literal("bool", True, b.span) for b in branches]
    merged = ast.IfElse(value.cond, filters[0], filters[1], value.span)
    return ast.SelectExpr(then.subject, None, merged, (), None, None, value.span)


def _empty_objects(value, schema: Schema, module: str):
    """``<User>{}``, the empty set of a type's objects
    (https://docs.geldata.com/reference/edgeql/casts), as the selection that keeps none,
    ``(select User filter false)``; any other value as it is."""
    if isinstance(value, ast.Cast) and isinstance(value.operand, ast.SetLit) and not value.operand.items \
            and not value.type.args and schema.find_type(value.type.name, module) is not None:
        return ast.SelectExpr(ast.VarRef(value.type.name, value.type.span), None,
                              ast.Literal("bool", False, value.span), (), None, None, value.span)
    return value


def _computed_view(value, schema: Schema, module: str) -> bool:
    """``(select T { name := <expr>, ... } [filter ...])``: a selection of a type's objects with
    computed scalar elements only (stored names may stand beside them), no order or paging."""
    subject = schema.find_type(value.subject.name, module) \
        if isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.VarRef) else None
    return subject is not None and bool(value.shape) \
        and any(el.value is not None for el in value.shape) and not value.order and value.offset is None \
        and not any(el.value is not None and (subject.column(el.name) is not None or el.name in subject.links
                                              or el.name in subject.computeds or el.name in subject.poly_links)
                    for el in value.shape) \
        and value.limit is None and all(el.shape is None and not el.link_prop and el.filter is None
                                        and not el.order and el.offset is None and el.limit is None
                                        and not getattr(el, "splat", False) and not el.backlink
                                        and el.type_filter is None
                                        and not isinstance(el.value, (ast.SelectExpr, ast.ShapeExpr, ast.SubSelect))
                                        for el in value.shape)  # type: ignore[union-attr]


def _selection_of(value, schema: Schema, module: str,
                  known: Optional[Dict[str, ObjectType]] = None) -> Optional[Tuple[str, Span]]:
    """``(type name, span)`` when ``value`` selects objects of a type without a shape:
    ``(select User filter ...)``, ``(select User order by ... limit n)``, ``User``, and
    :func:`_if_else_selection`."""
    value = _normal_selection(value, schema, module)
    if isinstance(value, ast.SubSelect):
        name, span = value.type_name, value.type_span
    elif isinstance(value, ast.SelectExpr) and value.shape is None and isinstance(value.subject, ast.VarRef):
        name, span = value.subject.name, value.subject.span
    else:
        name, span = "", value.span
    if known is not None:
        # a selection of an earlier `with` name or a path of objects from one
        # (`(select player.<author[is Roll] filter ...)`, `(select rolls filter ...)`)
        t = _rooted_selection_type(value, schema, module, known)
        if t is not None:
            return t.qualname, span
    return (name, span) if name and schema.find_type(name, module) is not None else None


def _normal_selection(value, schema: Schema, module: str):
    """A binding's selection as the compiler reads it: :func:`_if_else_selection` merged, a
    shape of stored names only dropped (it chooses what an output shows)."""
    value = _if_else_selection(value, schema, module) or value
    if isinstance(value, ast.SelectExpr) and value.shape is not None and computed_sql._plain_shape(value.shape):
        value = dataclasses.replace(value, shape=None)
    return value


def _rooted_selection_type(value, schema: Schema, module: str, known: Dict[str, ObjectType]) -> Optional[ObjectType]:
    """The type of the objects of ``value`` when it selects a path of objects from a ``with``
    name of ``known`` (or from a type): ``player.<author[is Roll]``, ``(select rolls.received
    filter ...)``, ``(select rolls order by ...)``; else ``None``."""
    if isinstance(value, ast.SubSelect):
        return known.get(value.type_name)
    while isinstance(value, ast.SelectExpr) and value.shape is None:
        value = value.subject
    root, steps = computed_sql._rooted_steps(value)
    if not isinstance(root, ast.VarRef):
        return None
    cur = known.get(root.name)
    if cur is None and steps:
        cur = schema.find_type(root.name, module)
        if cur is None or schema.find_enum(root.name, module) is not None:
            return None
    scope = _StaticScope(schema, module)
    for i, step in enumerate(steps):
        if isinstance(step, str) and i + 1 < len(steps) and isinstance(steps[i + 1], tuple):
            continue
        cur = computed_sql._step_target(cur, step, scope) if cur is not None else None
    return cur


def _value_path_of(value, schema: Schema, module: str, known: Dict[str, ObjectType]) -> bool:
    """``value`` is ``(select S.p)`` / ``S.p``: a property of the objects of a set of an earlier
    ``with`` name of ``known``."""
    while isinstance(value, ast.SelectExpr) and value.shape is None and value.filter is None and not value.order \
            and value.offset is None and value.limit is None:
        value = value.subject
    if isinstance(value, ast.EnumRef):
        objects, prop = ast.VarRef(value.enum, value.span), value.member
    elif isinstance(value, ast.Step) and value.kind == ".":
        objects, prop = value.base, value.name
    else:
        return False
    root, _ = computed_sql._rooted_steps(objects)
    if not isinstance(root, ast.VarRef) or root.name not in known:
        return False
    t = _rooted_selection_type(objects, schema, module, known)
    return t is not None and t.column(prop) is not None and prop not in t.links


@dataclasses.dataclass
class _StaticScope:
    schema: Schema
    module: str


def _selection_bindings(q: ast.WithQuery, schema: Schema) -> Set[str]:
    """The ``with`` names bound to a selection of a type's objects (:func:`_selection_of`) that
    the query reads only as a set of objects: the subject of its select (``select u { ... }``),
    or ``count(u)`` / ``exists u``. Others (``author := u`` in an insert) stay values."""
    module = next((b.value.name for b in q.bindings if b.name == "module" and isinstance(b.value, ast.VarRef)
                   and b.name_span == b.value.span), "default")
    known: Dict[str, ObjectType] = {}
    candidates = set()
    for b in q.bindings:
        found = _selection_of(b.value, schema, module, known)
        if found is not None:
            candidates.add(b.name)
            t = schema.find_type(found[0], module)
            if t is not None:
                known[b.name] = t
        else:
            known.pop(b.name, None)
            if _value_path_of(b.value, schema, module, known):
                candidates.add(b.name)  # `ids := (select rolls.character.id_al)`: counted, aggregated
    if not candidates:
        return set()
    exprs: List[object] = [b.value for b in q.bindings]
    body = q.body
    set_uses: Set[int] = set()
    if isinstance(body, ast.SelectQuery):
        exprs += [body.filter, body.offset, body.limit] + [o.expr for o in body.order]
        exprs += _shape_values(body.shape or ())
    elif isinstance(body, ast.GroupExpr):
        exprs.append(body)
    elif isinstance(body, ast.SelectValue):
        exprs.append(body.value)
    elif isinstance(body, (ast.UpdateQuery, ast.DeleteQuery)) and body.type_name in candidates:
        # `update u set { ... }` / `delete u`: the objects of the selection (_write_of_selection)
        exprs.append(body.filter)
        if isinstance(body, ast.UpdateQuery):
            exprs += [a.value for a in body.assignments]
    elif isinstance(body, (ast.InsertQuery, ast.UpdateQuery)) and body.type_name:
        # `messages := m` / `tags += m` of a multi link: the objects of the selection
        # (https://docs.geldata.com/reference/edgeql/insert#links); any other use reads it as a value.
        subject = schema.find_type(body.type_name, module)
        if subject is None:
            return set()
        for a in body.assignments:
            link = subject.links.get(a.name)
            if link is not None and link.multi and isinstance(a.value, ast.VarRef) and a.value.name in candidates:
                set_uses.add(id(a.value))
            exprs.append(a.value)
        if isinstance(body, ast.UpdateQuery):
            exprs.append(body.filter)
        elif body.unless_conflict is not None and body.unless_conflict.else_ is not None:
            return set()  # (an upsert's else reads its values apart)
    elif isinstance(body, ast.ForExpr) and isinstance(_unparen(body.body), ast.SelectExpr) \
            and isinstance(_unparen(body.body).subject, ast.VarRef):
        # `for x in ... union (select p { name })`: p's objects per element (_for_any)
        exprs += [body.source, _unparen(body.body)]
    else:
        return set()  # (other writes read their bindings as values)
    if isinstance(body, ast.SelectValue) and isinstance(body.value, ast.FreeObject):
        set_uses.update(id(el.value) for el in body.value.elements)  # (users := u)
    if isinstance(body, ast.SelectValue):
        # `select u union Show`, `select {u, Show} { ... }`: the operands of a union of objects
        # (_object_union)
        top = body.value.base if isinstance(body.value, ast.ShapeExpr) else body.value
        if isinstance(top, (ast.BinOp, ast.SetLit)):
            set_uses.update(id(leaf) for leaf in _union_leaves(top))
    value_uses: Set[str] = set()
    for e in exprs:
        if e is None or isinstance(e, (ast.InsertQuery, ast.UpdateQuery, ast.DeleteQuery)):
            continue
        for n in ast.iter_nodes(e):  # type: ignore[arg-type]
            if isinstance(n, ast.FuncCall) and len(n.args) == 1 and \
                    n.name.replace("std::", "") in ("assert_single", "assert_exists"):
                set_uses.add(id(n.args[0]))  # select assert_single(u) { ... }
            elif isinstance(n, ast.FuncCall) and n.name in ("count", "std::count") and len(n.args) == 1:
                arg = n.args[0]
                arg = arg.subject if isinstance(arg, ast.SelectExpr) and arg.shape is None else arg
                set_uses.add(id(arg))
            elif isinstance(n, ast.UnaryOp) and n.op == "exists":
                set_uses.add(id(n.operand))
            elif isinstance(n, ast.BinOp) and n.op in ("in", "not in"):
                set_uses.add(id(n.right))  # .character in charas
            elif isinstance(n, ast.FuncCall) and len(n.args) == 1 and n.name.replace("std::", "") in (
                    "array_agg", "sum", "min", "max", "math::mean"):
                arg = n.args[0]
                arg = arg.subject if isinstance(arg, ast.SelectExpr) and arg.shape is None else arg
                set_uses.add(id(arg))
            elif isinstance(n, ast.VarRef) and n.name in candidates and id(n) not in set_uses:
                value_uses.add(n.name)
            elif isinstance(n, ast.ShapeExpr):  # u { name }
                set_uses.add(id(n.base))
                exprs += _shape_values(n.shape)
            elif isinstance(n, ast.SelectExpr):  # (select u { name } ...)
                set_uses.add(id(n.subject))
                exprs += _shape_values(n.shape or ()) + [o.expr for o in n.order]
            elif isinstance(n, ast.GroupExpr):  # (group u by .name)
                set_uses.add(id(n.subject))
                exprs += _shape_values(n.shape or ()) + [v for _, v in n.using]
    return candidates - value_uses


def _shape_values(shape) -> List[object]:
    """The expressions of a shape's elements (computed values, nested clauses), nested shapes too."""
    out: List[object] = []
    stack = list(shape)
    while stack:
        el = stack.pop()
        out += [el.value, el.filter, el.offset, el.limit] + [o.expr for o in el.order]
        stack.extend(el.shape or ())
    return out


def _peel_asserts(value) -> Tuple[object, Dict[str, object]]:
    """``assert_single(assert_exists(u)) { shape }`` -> (``u { shape }``, the asserts: each
    function's ``message := ...``, syntax, or ``None``)."""
    asserts: Dict[str, object] = {}
    shape = None
    while True:
        if isinstance(value, ast.ShapeExpr) and shape is None:
            value, shape = value.base, value.shape
            continue
        call = assert_call(value)
        if call is not None and call[0] in ("assert_single", "assert_exists"):
            asserts[call[0]] = call[2]
            value = call[1]
            continue
        break
    if shape is not None:
        value = ast.ShapeExpr(value, shape, value.span)
    return value, asserts


def _object_selection(value, ctx: ExprContext) -> Optional[ast.SelectQuery]:
    """A value that selects objects of a type, as the equivalent ``select T { shape } [filter]
    [order by] [offset] [limit]`` (``shape`` ``None``: ``{ id }``): ``(select User { name }
    filter ...)``, ``(select User filter ...)``, ``User { name }``, and the same of a ``with``
    selection (``u { name }``, ``(select u { name } order by .name)``); ``None`` for any other
    value (nothing reported)."""
    shape = None
    if isinstance(value, ast.ShapeExpr):
        value, shape = value.base, value.shape
    if isinstance(value, ast.SubSelect):
        value = ast.SelectExpr(ast.VarRef(value.type_name, value.type_span), None, value.filter, (), None, None,
                               value.span)
    if isinstance(value, ast.GlobalRef) and not value.steps:
        # `select global current_user { name }` of a global holding an object
        # (https://docs.geldata.com/reference/datamodel/globals): that object, by its id.
        g = ctx.schema.find(value.name, ctx.module, ctx.schema.globals)
        target = getattr(g, "target", None)
        if target is None:
            return None
        return ast.SelectQuery(target.qualname, value.span, shape,
                               ast.BinOp("=", ast.Path(("id",), value.span), value, value.span), (), None, None,
                               value.span)
    if isinstance(value, ast.VarRef):
        value = ast.SelectExpr(value, None, None, (), None, None, value.span)
    if not isinstance(value, ast.SelectExpr) or not isinstance(value.subject, ast.VarRef):
        return None
    if shape is not None and value.shape is not None:
        if not _outer_shape_wins(value.shape, value.subject.name, ctx):
            return None
        value = dataclasses.replace(value, shape=None)
    name = value.subject.name
    if name in ctx.variables or name in ctx.bound_statements:
        return None
    if name in ctx.type_sets and not _simple_selection(ctx.type_sets[name]):
        return None
    q = ast.SelectQuery(name, value.subject.span, shape if shape is not None else value.shape, value.filter,
                        value.order, value.offset, value.limit, value.span)
    if name in ctx.type_sets:
        return _select_of_selection(q, ctx.type_sets[name], ctx)
    return q if ctx.schema.find_type(name, ctx.module) is not None else None


def _objects_element(el: ast.ShapeElement, q: ast.SelectQuery, ctx: ExprContext,
                     asserted: bool = False) -> Optional[qir.Node]:
    """A free object's field holding objects (``users := (select User { name } filter ...)``):
    a JSON list of them, or one object (``null`` when none) when the filter pins one, the
    limit is 1 or it is ``assert_single(...)``, built like a nested shape's (a scalar
    sub-select: several rows fail the statement, SQLSTATE 21000, as Gel's assert_single)."""
    subject = ctx.schema.find_type(q.type_name, ctx.module)
    assert subject is not None
    alias = qi("_s1")
    scope = dataclasses.replace(ctx, subject=subject, column_prefix=alias)
    cond = None
    if q.filter is not None:
        cond = check_filter(q.filter, scope)
        if cond is None:
            return None
    ok, clauses = _shape_clauses(dataclasses.replace(q, filter=None), subject, alias, ctx)
    shape = q.shape if q.shape is not None else (ast.ShapeElement("id", None, q.type_span),)
    inner = _shape(shape, subject, alias, ctx, 1)
    if not ok or ctx.reporter.has_errors:
        return None
    single = asserted or (q.filter is not None and _pins_one_row(q.filter, subject)) or \
        (isinstance(q.limit, ast.Literal) and q.limit.value == 1)
    objects = qir.ObjectSet(q.span, alias, subject, not single, cond,
                            visible=policies.read_predicate(subject, ctx, alias))
    field = ResultField(el.name, None, single, _fields(inner), not single)
    return qir.ShapeComputedLink(el.span, field, objects, tuple(inner), clauses)


def _bound_write_selection(value, ctx: ExprContext) -> Optional[Tuple[str, qir.Node, ast.SelectQuery]]:
    """``p`` or ``p { shape }`` of a write bound in ``with`` (``p := (update ...)``, an insert,
    an upsert, a delete): (its name, the write, ``select p { shape }``; ``{ id }`` without a
    shape, as Gel selects an object without a shape,
    https://docs.geldata.com/reference/edgeql/select#shapes); ``None`` for any other value."""
    shape = None
    if isinstance(value, ast.ShapeExpr):
        value, shape = value.base, value.shape
    if not isinstance(value, ast.VarRef) or value.name in ctx.variables or value.name not in ctx.bound_writes:
        return None
    w = ctx.bound_writes[value.name]
    subject = w.subject  # type: ignore[attr-defined]
    shape = shape if shape is not None else (ast.ShapeElement("id", None, value.span),)
    return value.name, w, ast.SelectQuery(subject.qualname, value.span, shape, None, (), None, None, value.span)


def _select_bound_write(qf: ast.QueryFile, q: ast.SelectValue, bound, asserts: Set[str],
                        ctx: ExprContext) -> Optional[qir.Query]:
    """``select assert_exists(p) { shape }`` of a write bound in ``with``: the objects it wrote,
    as ``select p { shape }`` reads them (from its CTE, as the statement leaves them,
    https://docs.geldata.com/reference/edgeql/with). ``assert_exists`` of at most one object
    makes the result exactly one (the runners fail on no row, as Gel's assert_exists fails,
    https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists);
    ``assert_single`` of a write of at most one object changes nothing. Either of a write of
    several objects is E0206."""
    name, w, sel = bound
    subject = w.subject
    node, cardinality = _select_node(sel, subject, dataclasses.replace(ctx, subject=subject), w, f"_with_{name}")
    if node is None:
        return None
    if asserts and cardinality == MANY:
        what = " and ".join(f"{a}()" for a in sorted(asserts))
        ctx.reporter.error("E0206", f"{what} of '{name}', a write of several objects, is not supported yet",
                           q.value.span, f"select its objects as a list: select {name} {{ ... }}")
        return None
    if "assert_exists" in asserts:
        cardinality = ONE
    return _plan(qf, w.kind, subject, node, ctx, cardinality, w.exclusives, _fields(node.shape))


def _bound_write_element(el: ast.ShapeElement, bound, asserts: Set[str], ctx: ExprContext) -> Optional[qir.Node]:
    """A free object's field ``f := assert_exists(p) [{ shape }]`` of a write bound in ``with``
    (``p := (update ...)``): the objects it wrote, as a shape element ``f := p { shape }`` reads
    them (:func:`_written_objects_element`: from its CTE, one object when the write writes at
    most one, else a list). ``assert_exists`` of one object makes the field required: no object
    fails the statement (https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists);
    ``assert_single`` of one changes nothing; either of a write of several objects is E0206."""
    name, w, sel = bound
    if asserts and w.cardinality == MANY:
        what = " and ".join(f"{a}()" for a in sorted(asserts))
        ctx.reporter.error("E0206", f"{what} of '{name}', a write of several objects, in a free object's field is "
                           "not supported yet", el.span, f"select its objects as a list: {el.name} := {name} {{ ... }}")
        return None
    node = _written_objects_element(el, ast.VarRef(name, sel.span), sel.shape, ctx, 0)
    if node is not None and "assert_exists" in asserts:
        node = dataclasses.replace(node, required=True,  # type: ignore[call-arg]
                                   field=dataclasses.replace(node.field, optional=False))  # type: ignore[attr-defined]
    return node


def _outer_shape_wins(inner, name: str, ctx: ExprContext) -> bool:
    """``select (select Title {*} filter ...) { title := .primaryTitle }``: a shape on a
    selection of a type whose own shape only names the type's stored or computed pointers
    (``{}``, ``{*}``, ``{ name }``: no computed element, sub-shape or clause). Gel outputs the
    outer shape alone (a shape on an expression makes a new view of its objects, and the
    inner one adds no pointer the outer could read,
    https://docs.geldata.com/reference/edgeql/shapes), so the inner shape changes nothing."""
    subject = ctx.schema.find_type(name, ctx.module)
    if subject is None or name in ctx.type_sets or not computed_sql._plain_shape(inner):
        return False
    return all(el.splat or subject.column(el.name) is not None or el.name in subject.links
               or el.name in subject.computeds or el.name in subject.poly_links for el in inner)


def _simple_selection(value) -> bool:
    """A selection of a type's objects by name (what :func:`_select_of_selection` merges)."""
    return isinstance(value, ast.SubSelect) or (isinstance(value, ast.SelectExpr) and value.shape is None
                                                 and isinstance(value.subject, ast.VarRef))


def _select_of_selection(body: ast.SelectQuery, value, ctx: ExprContext) -> Optional[ast.SelectQuery]:
    """``with u := (select User filter f [order by ...] [offset] [limit]) select u { shape }
    [filter g] [order by ...] [offset] [limit]`` is ``select User { shape } filter f and g ...``:
    the same objects, one statement. When the binding orders or pages its objects, the select
    may not filter, order or page them again (E0206)."""
    if isinstance(value, ast.SubSelect):
        inner = ast.SelectExpr(ast.VarRef(value.type_name, value.type_span), None, value.filter, (), None, None,
                               value.span)
    else:
        inner = value
    type_name = inner.subject.name  # type: ignore[union-attr]
    paged = bool(inner.order) or inner.offset is not None or inner.limit is not None
    if paged and (body.filter is not None or body.order or body.offset is not None or body.limit is not None):
        ctx.reporter.error("E0206", f"filtering, ordering or paging '{body.type_name}', which orders or pages its "
                           "objects, is not supported yet", body.span,
                           "move the clauses into one select: with ... select User { ... } filter ... order by ...")
        return None
    filt = inner.filter
    if body.filter is not None:
        filt = body.filter if filt is None else ast.BinOp("and", filt, body.filter, body.filter.span)
    return ast.SelectQuery(type_name, body.type_span, body.shape, filt, body.order or inner.order,
                           body.offset if body.offset is not None else inner.offset,
                           body.limit if body.limit is not None else inner.limit, body.span)


def _in_module(value, ctx: ExprContext):
    """A ``with`` binding's value ``(with module m <body>)`` (only a module selection,
    https://docs.geldata.com/reference/edgeql/with#module-selection) as its body with the bare
    names of types and enums that resolve in ``m`` qualified (``Material`` ->
    ``material::Material``): bare names resolve in ``m`` first, then in default. Any other
    value is returned as it is."""
    if not (isinstance(value, ast.WithExpr) and len(value.bindings) == 1 and value.bindings[0].name == "module"
            and isinstance(value.bindings[0].value, ast.VarRef)
            and value.bindings[0].name_span == value.bindings[0].value.span
            and value.bindings[0].span != value.bindings[0].value.span
            and isinstance(value.body, ast.Expr.__args__)):  # type: ignore[attr-defined]
        return value
    module = value.bindings[0].value.name
    schema = ctx.schema

    def qualify(n):
        if isinstance(n, ast.VarRef) and "::" not in n.name and n.name not in ctx.variables \
                and n.name not in ctx.type_sets:
            t = schema.find_type(n.name, module)
            if t is not None:
                return dataclasses.replace(n, name=t.qualname)
        if isinstance(n, ast.EnumRef) and "::" not in n.enum and n.enum not in ctx.variables \
                and n.enum not in ctx.type_sets:
            e = schema.find_enum(n.enum, module)
            if e is not None:
                return dataclasses.replace(n, enum=e.qualname)
        return n

    return ast.map_expr(value.body, qualify)


def _merge_selections(value, ctx: ExprContext):
    """A ``with`` binding's value that selects the objects of an earlier ``with`` selection ``s :=
    (select T filter f)`` as a selection of ``T``: ``(select s [{ shape }] filter g [order by ...]
    [offset] [limit])`` is ``(select T filter f and g ...)`` (a plain shape only chooses what an
    output shows), ``s`` itself is ``(select T filter f)``, and so are the branches of an ``if
    ... else`` (``(select s filter g) if c else s``, then merged by :func:`_if_else_selection`):
    the same objects (https://docs.geldata.com/reference/edgeql/with). A selection of ``s`` that
    orders or pages its objects is only merged when the outer select adds no clause. Any other
    value is returned as it is."""
    if isinstance(value, ast.IfElse):
        then, else_ = _merge_selections(value.then, ctx), _merge_selections(value.else_, ctx)
        if then is value.then and else_ is value.else_:
            return value
        return dataclasses.replace(value, then=then, else_=else_)
    if isinstance(value, ast.VarRef) and value.name in ctx.type_sets and value.name not in ctx.variables \
            and _simple_selection(ctx.type_sets[value.name]):
        return _as_select_expr(ctx.type_sets[value.name])
    if isinstance(value, ast.SubSelect):
        outer = ast.SelectExpr(ast.VarRef(value.type_name, value.type_span), None, value.filter, (), None, None,
                               value.span)
    elif isinstance(value, ast.SelectExpr) and isinstance(value.subject, ast.VarRef):
        outer = value
    else:
        return value
    name = outer.subject.name  # type: ignore[union-attr]
    if name in ctx.type_sets and name not in ctx.variables and _simple_selection(ctx.type_sets[name]) \
            and outer.shape is not None and not computed_sql._plain_shape(outer.shape) and not outer.order \
            and outer.offset is None and outer.limit is None:
        # `(select s { k := <expr>, ... } [filter g])`: the objects of `s` with computed elements,
        # a view of its type (`_computed_view`) when `s` neither orders nor pages them
        inner = _as_select_expr(ctx.type_sets[name])
        if not inner.order and inner.offset is None and inner.limit is None:
            filt = inner.filter
            if outer.filter is not None:
                filt = outer.filter if filt is None else ast.BinOp("and", filt, outer.filter, outer.filter.span)
            view = ast.SelectExpr(inner.subject, outer.shape, filt, (), None, None, value.span)
            if _computed_view(view, ctx.schema, ctx.module):
                return view
    if name not in ctx.type_sets or name in ctx.variables or not _simple_selection(ctx.type_sets[name]) \
            or (outer.shape is not None and not computed_sql._plain_shape(outer.shape)):
        return value
    inner = _as_select_expr(ctx.type_sets[name])
    paged = bool(inner.order) or inner.offset is not None or inner.limit is not None
    if paged and (outer.filter is not None or outer.order or outer.offset is not None or outer.limit is not None):
        return value
    filt = inner.filter
    if outer.filter is not None:
        filt = outer.filter if filt is None else ast.BinOp("and", filt, outer.filter, outer.filter.span)
    return ast.SelectExpr(inner.subject, None, filt, outer.order or inner.order,
                          outer.offset if outer.offset is not None else inner.offset,
                          outer.limit if outer.limit is not None else inner.limit, value.span)


def _distinct_union(body: ast.SelectValue, ctx: ExprContext) -> Optional[ast.SelectQuery]:
    """``select distinct (a union b) { shape } [filter ...] [order by ...] ...`` of selections of
    one type (``with`` selections or written in place, none ordered or paged) as ``select T {
    shape } filter (fa or fb) ...``: ``distinct`` keeps each object of the union once
    (https://docs.geldata.com/reference/stdlib/set#operator::distinct), so the objects are
    those either selection holds. ``None`` for any other select."""
    value = body.value
    if not (isinstance(value, ast.UnaryOp) and value.op == "distinct"):
        return None
    operand, shape = value.operand, None
    if isinstance(operand, ast.ShapeExpr):
        operand, shape = operand.base, operand.shape
    sel = _union_selection(operand, ctx)
    if sel is None:
        return None
    name = sel.subject.name  # type: ignore[union-attr]
    filt = sel.filter
    if body.filter is not None:
        filt = body.filter if filt is None else ast.BinOp("and", filt, body.filter, body.filter.span)
    return ast.SelectQuery(name, sel.subject.span, shape, filt, body.order, body.offset, body.limit, body.span)


def _union_selection(expr, ctx: ExprContext) -> Optional[ast.SelectExpr]:
    """``a union b [union ...]`` of selections of one type without order, offset or limit, as
    the one selection ``(select T filter fa or fb)`` (the objects of either, each once: only
    under ``distinct``); ``None`` for anything else."""
    if isinstance(expr, ast.BinOp) and expr.op == "union":
        parts = [_union_selection(expr.left, ctx), _union_selection(expr.right, ctx)]
        if any(p is None for p in parts):
            return None
        left, right = parts
        if ctx.schema.find_type(left.subject.name, ctx.module) is not \
                ctx.schema.find_type(right.subject.name, ctx.module):  # type: ignore[union-attr]
            return None
        true = ast.Literal("bool", True, expr.span)
        filt = ast.BinOp("or", left.filter or true, right.filter or true, expr.span)  # type: ignore[union-attr]
        return ast.SelectExpr(left.subject, None, filt, (), None, None, expr.span)  # type: ignore[union-attr]
    sel = _merge_selections(expr, ctx)
    sel = _if_else_selection(sel, ctx.schema, ctx.module) or sel
    if isinstance(sel, ast.SubSelect):
        sel = _as_select_expr(sel)
    if not (isinstance(sel, ast.SelectExpr) and computed_sql._plain_shape(sel.shape) and not sel.order
            and sel.offset is None and sel.limit is None and isinstance(sel.subject, ast.VarRef)
            and sel.subject.name not in ctx.type_sets and sel.subject.name not in ctx.variables
            and ctx.schema.find_type(sel.subject.name, ctx.module) is not None):
        return None
    return dataclasses.replace(sel, shape=None) if sel.shape is not None else sel


def _as_select_expr(value) -> ast.SelectExpr:
    """A :func:`_simple_selection` as a :class:`~schemac.syntax.tree.SelectExpr`."""
    if isinstance(value, ast.SubSelect):
        return ast.SelectExpr(ast.VarRef(value.type_name, value.type_span), None, value.filter, (), None, None,
                              value.span)
    return value


def _write_of_selection(body, value, ctx: ExprContext):
    """``with t := (select Thread filter f) update t [filter g] set { ... }`` (or ``delete t
    [filter g]``) is ``update Thread filter f and g set { ... }``: the statement writes the
    objects of the selection (https://docs.geldata.com/reference/edgeql/update,
    https://docs.geldata.com/reference/edgeql/with). A selection that orders or pages its
    objects is E0206."""
    if isinstance(value, ast.SubSelect):
        inner = ast.SelectExpr(ast.VarRef(value.type_name, value.type_span), None, value.filter, (), None, None,
                               value.span)
    else:
        inner = value
    if inner.order or inner.offset is not None or inner.limit is not None:
        what = "an update" if isinstance(body, ast.UpdateQuery) else "a delete"
        ctx.reporter.error("E0206", f"{what} of '{body.type_name}', which orders or pages its objects, is not "
                           "supported yet", body.type_span, "filter the objects to write instead")
        return None
    filt = inner.filter
    if body.filter is not None:
        filt = body.filter if filt is None else ast.BinOp("and", filt, body.filter, body.filter.span)
    return dataclasses.replace(body, type_name=inner.subject.name, filter=filt)  # type: ignore[union-attr]


def _params_used(statement: qir.With) -> Set[int]:
    """The ids of the parameters the statement's SQL binds: those of its body and bound writes
    and computed values, and of the constant bindings it reads."""
    roots = [statement.body] + [b for b in statement.bindings
                                if not (isinstance(b, qir.WithValue) and b.inline)]
    return {id(n.param) for r in roots for n in qir.walk(r) if isinstance(n, qir.ParamRef)}  # type: ignore[attr-defined]


def _plan(qf: ast.QueryFile, kind: str, subject: Optional[ObjectType], statement: qir.Node, ctx: ExprContext,
          cardinality: str, exclusives: Tuple[ExclusiveConstraint, ...],
          result: Optional[Tuple[ResultField, ...]] = None, scalar: bool = False) -> qir.Query:
    if result is None:
        assert subject is not None
        id_col = subject.column("id")
        assert id_col is not None
        result = (ResultField("id", id_col.type, False),)
    return qir.Query(qf.name, qf.path, kind, subject, statement, tuple(ctx.params.ordered()), result,  # type: ignore[union-attr]
                     cardinality, exclusives, qf.doc, scalar)


def _select_value(qf: ast.QueryFile, q: ast.SelectValue, ctx: ExprContext,
                  by_element: Tuple[bool, ...] = ()) -> Optional[qir.Query]:
    """``select <expr>`` of anything but a type or a write (https://docs.geldata.com/reference/edgeql/select):
    one row. A free object ``select { a := ..., b := ... }`` is a row of its fields (Gel types
    it as an object, cardinality one); any other expression (``select 1``, ``select <str>$x``,
    ``select count(User)``) a single value, which the runners return as it is: exactly one
    when it cannot be empty, else at most one (``null`` / ``nil`` when empty). ``by_element``:
    a set of values ordered by the values themselves, each item descending or not."""
    if by_element:
        parts = value_set_parts(q.value)
        if parts is None or any(not unpack and _objects_part(e, ctx) for e, unpack in parts):
            ctx.reporter.error("E0206", "'order by' on a selected expression (not a type) is not supported yet",
                               q.span, "select a type to filter, order or page it: select User { ... } filter ...")
            return None
        return _select_elements(qf, q, parts, False, ctx, by_element=by_element)
    union = _object_union(qf, q, ctx)
    if union is not False:
        return union  # type: ignore[return-value]
    if isinstance(q.value, ast.ShapeExpr) and isinstance(q.value.base, ast.GroupExpr):
        # `select (group m by .k) { k := .key.k, n := count(.elements) } order by .n desc`: a
        # select over the groups, as `with g := (group ...) select g { ... }`
        # (https://docs.geldata.com/reference/edgeql/group)
        g = q.value.base
        return _group_query(qf, g, ctx, ast.SelectQuery("group", g.span, q.value.shape, q.filter, q.order,
                                                        q.offset, q.limit, q.span))
    inner, asserts = _peel_asserts(q.value)
    bound = None if _has_clauses(q) else _bound_write_selection(inner, ctx)
    if bound is not None:
        return _select_bound_write(qf, q, bound, asserts, ctx)
    selection = None if _has_clauses(q) else _object_selection(inner, ctx)
    if selection is not None:
        # `select (select User { name } filter ...)`, `select u { name }` of a with selection,
        # `select assert_single(u) { ... }`
        subject = ctx.schema.find_type(selection.type_name, ctx.module)
        assert subject is not None
        if not asserts:
            return _select(qf, selection, subject, dataclasses.replace(ctx, subject=subject))
        node, cardinality = _select_node(selection, subject, dataclasses.replace(ctx, subject=subject))
        if node is None:
            return None
        messages = {k: assert_message(v, ctx) for k, v in asserts.items()}
        if any(m is False for m in messages.values()):
            return None
        if "assert_single" in asserts and (cardinality == MANY or messages["assert_single"] is not None):
            node = dataclasses.replace(node, assert_single=True, single_message=messages["assert_single"])
            cardinality = AT_MOST_ONE if cardinality == MANY else cardinality
        if "assert_exists" in asserts:
            # No object fails the statement with Gel's error (or the message given), also of
            # several objects, which it then passes through
            # (https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists).
            node = dataclasses.replace(node, assert_exists=True, exists_message=messages["assert_exists"])
            cardinality = MANY if cardinality == MANY else ONE
        return _plan(qf, "select", subject, node, ctx, cardinality, (), _fields(node.shape))
    single = _single_write_selection(q, ctx)
    if single is not None:
        # `select (update T filter .key = $k set {...}) { shape } limit 1`: the write yields at
        # most one object, so the limit changes nothing (https://docs.geldata.com/reference/edgeql/select#pagination)
        target = ctx.schema.find_type(single.type_name, ctx.module)
        return _select_dml(qf, single, target, dataclasses.replace(ctx, subject=target))  # type: ignore[arg-type]
    for word, clause in (("filter", q.filter), ("order by", q.order), ("offset", q.offset), ("limit", q.limit)):
        if clause:
            ctx.reporter.error("E0206", f"'{word}' on a selected expression (not a type) is not supported yet",
                               q.span, "select a type to filter, order or page it: select User { ... } filter ...")
            return None
    value = q.value
    if isinstance(value, ast.FreeObject):
        elements: List[qir.Node] = []
        seen: Set[str] = set()
        for el in value.elements:
            if el.name in seen or go_name(el.name) in {go_name(k) for k in seen}:
                ctx.reporter.error("E0309", f"'{el.name}' appears twice in the free object" if el.name in seen else
                                   f"'{el.name}' and another field of the free object have the same name in Go",
                                   el.span)
                continue
            seen.add(el.name)
            inner, asserts = _peel_asserts(el.value)
            bound = _bound_write_selection(inner, ctx)
            if bound is not None:
                node = _bound_write_element(el, bound, asserts, ctx)
                if node is not None:
                    elements.append(node)
                continue
            if isinstance(inner, ast.WithExpr) and _group_list(inner) is not None:
                node = _group_list_element(el, inner, ctx)
                if node is not None:
                    elements.append(node)
                continue
            bound_groups = _bound_group_list(inner, ctx)
            if bound_groups is not None:
                node = _group_list_element(el, None, ctx, bound_groups)
                if node is not None:
                    elements.append(node)
                continue
            objects = _object_selection(inner, ctx)
            if objects is not None:
                node = _objects_element(el, objects, ctx, "assert_single" in asserts)
                if node is not None and "assert_exists" in asserts:
                    if node.objects.multi:  # type: ignore[attr-defined]
                        ctx.reporter.error("E0206", "assert_exists() of several objects in a free object's field is "
                                           "not supported yet", el.span,
                                           "wrap it in assert_single(...) too, or select the objects in a query of "
                                           "its own")
                        continue
                    # (https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists)
                    node = dataclasses.replace(node, required=True,  # type: ignore[call-arg]
                                               field=dataclasses.replace(node.field, optional=False))  # type: ignore[attr-defined]
                if node is not None:
                    elements.append(node)
                continue
            low = check(el.value, ctx)  # type: ignore[arg-type]
            if low is not None:
                elements.append(qir.ShapeComputed(el.span, ResultField(el.name, low.type, _may_be_empty(low)), low))
        if ctx.reporter.has_errors:
            return None
        node = qir.SelectValues(q.span, tuple(elements), False)
        return _plan(qf, "select", None, node, ctx, ONE, (), _fields(elements))
    distinct = isinstance(value, ast.UnaryOp) and value.op == "distinct"
    operand = value.operand if distinct else value  # type: ignore[attr-defined]
    if isinstance(operand, ast.FuncCall) and operand.name in _ENUMERATE:
        return _select_enumerate(qf, q, operand, ctx)
    if computed_sql.query_value_path(operand, ctx) is not None:
        return _select_value_set(qf, q, operand, distinct, ctx)
    call = assert_call(operand)
    if call is not None and call[0] == "assert_distinct" and value_set_parts(call[1]) is not None:
        # `select assert_distinct({1, 2} union array_unpack(...))`: the set's values, or the
        # statement fails when one is there twice (https://docs.geldata.com/reference/stdlib/set#function::std::assert_distinct)
        low = check(operand, ctx)
        if low is None:
            return None
        node = qir.SelectElements(q.span, (low,), (True,), distinct)
        return _plan(qf, "select", None, node, ctx, MANY, (), (ResultField("value", low.type.element, False),),
                     scalar=True)
    parts = value_set_parts(operand)
    if parts is not None:
        return _select_elements(qf, q, parts, distinct, ctx)
    low = check(value, ctx)
    if low is None:
        return None
    empty = _may_be_empty(low)
    el = qir.ShapeComputed(value.span, ResultField("value", low.type, empty), low)
    node = qir.SelectValues(q.span, (el,), True)
    return _plan(qf, "select", None, node, ctx, AT_MOST_ONE if empty else ONE, (), (el.field,), scalar=True)


def _union_leaves(expr) -> List[object]:
    """The operands of ``a union b union ...`` and ``{a, b, ...}`` (nested ones flattened: a set
    literal is a union, https://docs.geldata.com/reference/edgeql/sets)."""
    if isinstance(expr, ast.BinOp) and expr.op == "union":
        return _union_leaves(expr.left) + _union_leaves(expr.right)
    if isinstance(expr, ast.SetLit) and expr.items:
        return [leaf for item in expr.items for leaf in _union_leaves(item)]
    return [expr]


def _object_operand(e, ctx: ExprContext):
    """An operand of a union that is objects: ``(key, filter, paged)`` (``key`` the qualified name
    of a concrete or abstract type, ``filter`` the operand's own, or ``None``; ``paged`` the
    operand when it orders or pages its objects); ``None`` when it is no objects; ``False``
    after a located error."""
    if isinstance(e, ast.VarRef) and e.name not in ctx.variables:
        if e.name in ctx.type_sets:
            value = ctx.type_sets[e.name]
            return _object_operand(_as_select_expr(value), ctx) if _simple_selection(value) else None
        found = ctx.schema.find_type(e.name, ctx.module)
        key = found.qualname if found is not None else _abstract_key(ctx.schema, e.name, ctx.module)
        return None if key is None else (key, None, None)
    if isinstance(e, ast.SubSelect):
        e = _as_select_expr(e)
    if not (isinstance(e, ast.SelectExpr) and isinstance(e.subject, ast.VarRef)):
        return None
    found = _object_operand(e.subject, ctx)
    if not found:
        return found
    if found[2] is not None and (e.filter is not None or e.order or e.offset is not None or e.limit is not None):
        ctx.reporter.error("E0206", f"filtering, ordering or paging '{e.subject.name}', which orders or pages its "  # type: ignore[union-attr]
                           "objects, in a union is not supported yet", e.span)
        return False
    if found[1] is not None and e.filter is not None:
        found = (found[0], ast.BinOp("and", found[1], e.filter, e.filter.span), None)
    elif e.filter is not None:
        found = (found[0], e.filter, found[2])
    if e.order or e.offset is not None or e.limit is not None:
        found = (found[0], found[1], e)
    if not computed_sql._plain_shape(e.shape):
        # (Gel's union of two shapes computing the same name is an error; of others, the
        # union's objects show { id } only, as any plain shape of an operand: see _object_union)
        ctx.reporter.error("E0206", "a shape with computed or nested elements on an operand of 'union' is not "
                           "supported yet", e.span, "put the shape on the union: select (A union B) { ... }")
        return False
    return found


def _object_union(qf: ast.QueryFile, q: ast.SelectValue, ctx: ExprContext):
    """``select A union B``, ``select {(select A filter f), (select B filter g)}``, ``select (A
    union B) { shape } [filter] [order by] [offset] [limit]``: a union of objects
    (https://docs.geldata.com/reference/stdlib/set#operator::union, a multiset sum: an object in
    two operands is there twice). Gel types it as the union type of the operands, whose pointers
    are those every operand's type has (the nearest common ancestor's, ``title`` of ``Content``
    for ``Movie union Show``; https://docs.geldata.com/reference/edgeql/sets#inheritance), so the
    shape is checked against each operand's concrete types and must type each element alike. A
    shape on an operand is not the union's: Gel's union type has no shape of its own and shows
    ``{ id }`` (its output shape is the union type's, compiled after the operands'), so a plain
    operand shape is dropped; put the shape on the union. Lowered as a select of an abstract
    type (:func:`_abstract_select`): one ``SELECT`` per concrete type of each operand, ``UNION
    ALL``. ``False`` when ``q`` is not such a select; ``None`` after an error."""
    value, shape = q.value, None
    if isinstance(value, ast.ShapeExpr):
        value, shape = value.base, value.shape
    if isinstance(value, ast.SelectExpr) and isinstance(value.subject, (ast.BinOp, ast.SetLit)) \
            and not (_has_clauses(q) and _has_clauses(value)) and not (shape is not None and value.shape is not None):
        # `select (select A union B [{ shape }] [filter ...] ...) [{ shape }]`: the same select
        inner = value
        value, shape = inner.subject, shape if shape is not None else inner.shape
        if _has_clauses(inner):
            q = dataclasses.replace(q, filter=inner.filter, order=inner.order, offset=inner.offset, limit=inner.limit)
    leaves = _union_leaves(value)
    if len(leaves) < 2 and not isinstance(value, ast.SetLit):
        return False
    before = len(ctx.reporter.diagnostics)
    found = [_object_operand(leaf, ctx) for leaf in leaves]
    if len(ctx.reporter.diagnostics) != before:
        return None
    if not all(found):
        return False  # (values, or objects mixed with values: reported as a set of values)
    parts: List[Tuple[ObjectType, Optional[ast.Expr], Optional[ast.SelectExpr]]] = []
    names = []
    for key, filt, paged in found:  # type: ignore[misc]
        names.append(key.split("::")[-1])
        subs = [ctx.schema.types[k] for k in ctx.schema.descendants.get(key, (key,)) if k in ctx.schema.types]
        if paged is not None and (len(subs) != 1 or q.filter is not None):
            # (its objects are paged before the union: over several tables, or filtered by the
            # union afterwards, that is another statement's shape)
            why = "the objects of a type with subtypes" if len(subs) != 1 else "its objects in a filtered union"
            ctx.reporter.error("E0206", f"an operand of 'union' that orders or pages {why} is not supported yet",
                               paged.span,
                               "order and page the union: select (A union B) { ... } order by ... limit ...")
            return None
        parts.extend((sub, filt, paged) for sub in subs)
    if not parts:
        ctx.reporter.error("E0206", "a union of abstract types that no concrete type extends is not supported yet",
                           value.span)
        return None
    sq = ast.SelectQuery(" | ".join(dict.fromkeys(names)), value.span, shape, q.filter, q.order, q.offset, q.limit,
                         q.span)
    return _abstract_select(qf, sq, sq.type_name, ctx, parts)


_UNPACK = ("array_unpack", "std::array_unpack")
_ENUMERATE = ("enumerate", "std::enumerate")


def _select_enumerate(qf: ast.QueryFile, q: ast.SelectValue, call: ast.FuncCall,
                      ctx: ExprContext) -> Optional[qir.Query]:
    """``select enumerate({'a', 'b'} union array_unpack(<array<str>>$more))``
    (https://docs.geldata.com/reference/stdlib/set#function::std::enumerate): the set's values,
    each as a ``tuple<int64, T>`` of its position (from 0, in the set's order) and itself; as many
    rows as the set has values (a single value: one, or none when it is empty). ``distinct``
    changes nothing (the positions differ)."""
    if len(call.args) != 1 or isinstance(call.args[0], ast.NamedArg):
        ctx.reporter.error("E0304", "enumerate() takes one argument, a set", call.span)
        return None
    arg = call.args[0]
    if computed_sql.query_value_path(arg, ctx) is not None:
        ctx.reporter.error("E0206", "enumerate() of a property of a set of objects is not supported yet", arg.span,
                           "enumerate a set of values: enumerate({...}) or enumerate(array_unpack(<array<T>>$xs))")
        return None
    return _select_elements(qf, q, value_set_parts(arg) or [(arg, False)], False, ctx, True)


def _select_elements(qf: ast.QueryFile, q: ast.SelectValue, parts, distinct: bool,
                     ctx: ExprContext, enumerated: bool = False,
                     by_element: Tuple[bool, ...] = ()) -> Optional[qir.Query]:
    """``select [distinct] {1, 2} union array_unpack(<array<int64>>$more)``: a set of values
    (https://docs.geldata.com/reference/edgeql/sets, .../stdlib/set#operator::union, ...#operator::distinct),
    many rows of one value (the runners return the values): :class:`qir.SelectElements`. The
    parts meet at one type as the elements of an array literal do."""
    lows: List[qir.Expr] = []
    expected: Optional[ValueType] = None
    writes = [e for e, _ in parts if isinstance(e, ast.StatementExpr)]
    if writes and len(writes) == len(parts):
        # (`select {insert A {...}, insert A {...}}`, Gel's GenExpr elements: objects, not values)
        ctx.reporter.error("E0206", "a set of the objects of several inserts, updates or deletes is not supported "
                           "yet", writes[0].span, "run each statement as a query of its own, or bind each in "
                           "'with' and select them")
        return None
    for expr, unpack in parts:
        if not unpack and (isinstance(expr, (ast.SelectExpr, ast.SubSelect, ast.StatementExpr)) or (
                isinstance(expr, ast.VarRef) and (expr.name in ctx.type_sets or
                                                  ctx.schema.find_type(expr.name, ctx.module) is not None))):
            # (a union of objects only is _object_union's; objects and values have no common
            # type: https://docs.geldata.com/reference/edgeql/sets)
            ctx.reporter.error("E0304", "a set or union mixes objects and values", expr.span,
                               "unite objects with objects (select A union B) or values with values")
            return None
        hint = None if isinstance(expr, ast.Literal) else expected  # (a literal keeps its own type)
        low = check(expr, ctx, ValueType(element=hint) if unpack and hint is not None else hint)
        if low is None:
            return None
        vtype = low.type.element if unpack else low.type
        if unpack and vtype is None:
            ctx.reporter.error("E0304", f"array_unpack() needs an array, got {low.type.name}", expr.span)
            return None
        if vtype is not None and (vtype.element is not None or vtype.fields is not None):
            ctx.reporter.error("E0206", f"a set of {vtype.name} values is not supported yet", expr.span)
            return None
        if expected is not None and vtype.family != expected.family:
            ctx.reporter.error("E0304", f"a set mixes {expected.name} and {vtype.name}", expr.span,
                               "give every element the same type, e.g. with a cast <T>")
            return None
        if expected is None or (vtype.family == "num" and _wider(vtype, expected)):
            expected = vtype
        lows.append(low)
    if isinstance(expected, ValueType) and expected.family == "num":
        # (the elements meet at the widest number type, as a set literal's in Gel)
        lows = [low if (low.type.element or low.type) == expected else
                qir.Call(low.span, ValueType(element=expected) if low.type.element else expected, low.nullable,
                         "set/widen", (low,))
                for low in lows]
    node = qir.SelectElements(q.span, tuple(lows), tuple(u for _, u in parts), distinct, enumerated, by_element)
    if enumerated:
        why = json_element_refusal(expected)  # type: ignore[arg-type]
        if why is not None:
            ctx.reporter.error("E0206", f"enumerate() of a set of {expected.name} values is not supported yet",  # type: ignore[union-attr]
                               q.value.span,
                               "its tuples travel as JSON, which the Go runner cannot decode into this type")
            return None
        expected = ValueType(fields=((None, _INT64), (None, expected)))  # type: ignore[arg-type]
    return _plan(qf, "select", None, node, ctx, MANY, (), (ResultField("value", expected, False),), scalar=True)


def _wider(a: ValueType, b: ValueType) -> bool:
    """Whether the number type ``a`` is wider than ``b`` (int16 < int32 < int64 < float64 < decimal)."""
    order = ("int16", "int32", "int64", "bigint", "float32", "float64", "decimal")
    rank = {n: i for i, n in enumerate(order)}
    return rank.get(a.scalar.name if a.scalar else "", -1) > rank.get(b.scalar.name if b.scalar else "", -1)


def _select_value_set(qf: ast.QueryFile, q: ast.SelectValue, operand, distinct: bool,
                      ctx: ExprContext) -> Optional[qir.Query]:
    """``select [distinct] S.p``: the values of a property of the objects of a set of the query's
    names (``with m := (select Message filter ...) select distinct m.channel_id``), many rows of
    one value each (the runners return the values): :class:`qir.SelectValueSet`."""
    found = computed_sql._object_path(operand, ctx, "_v1")
    if not found:
        return None
    objects, rest = found
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                set_links=None, set_row=None)
    low = check(ast.Path(tuple(rest), operand.span), inner)
    if low is None:
        return None
    if low.type.element is not None:
        ctx.reporter.error("E0206", "selecting a multi property of several objects is not supported yet", operand.span)
        return None
    node = qir.SelectValueSet(q.span, objects, low, distinct)
    field = ResultField("value", low.type, False)
    return _plan(qf, "select", None, node, ctx, MANY, (), (field,), scalar=True)


def _may_be_empty(low: qir.Expr) -> bool:
    """Whether a selected value may be empty: ``nullable``, or a json value read as a scalar
    (``<str>json_get(j, 'k')``, ``<str>j['k']``: empty when the member is missing or JSON null,
    which an assignment to a required property reports when it runs)."""
    if low.nullable:
        return True
    if type(low) is qir.JsonCast:
        operand = low.operand  # type: ignore[attr-defined]
        return operand.nullable or type(operand) is qir.JsonIndex
    return False


# ---------------------------------------------------------------------------------------------
# group
#
# ``group`` (https://docs.geldata.com/reference/edgeql/group): the checker of the statement and of
# a ``select`` over its groups, producing :class:`schemac.semantics.qir.Group`.
#
#     group <Type or with-bound selection> [{ shape }]
#       [using name := expr, ...]
#       by .prop | .link | name, ...
#
# is a set of free objects, one per distinct combination of the keys' values: ``key`` (an object of
# the keys' values), ``grouping`` (the names of the keys) and ``elements`` (the objects of the
# group, with the shape). An empty key value is a value of its own (the objects whose value is
# empty form one group). Bound in ``with`` (``g := (group ...)``), the groups may be selected with
# a shape of their own: ``key: { a }``, ``grouping``, ``elements: { ... } [filter ...] [order by
# ...]`` and computed fields over each group (``n := count(.elements)``, ``.key.a``,
# ``min(.elements.p)`` / ``max(...)``), filtered, ordered and paged; ``c := (select g { n :=
# count(.elements) })`` adds computed fields that the final select reads (``filter .n > 1``).
#
# Lowered (:func:`schemac.semantics.lowering.statement_sql`) to one ``SELECT ... GROUP BY`` whose
# elements are a ``json_agg`` of their shape. Refused with a located E0206: grouping sets
# (``{a, b}``, ``cube``, ``rollup``), keys through several steps (``by .a.b``: bind it with
# ``using``), multi links and array (or multi property) values as keys, and a group used as a
# value.

_INT64 = ValueType(scalar=SCALARS["int64"])
_GROUPING = ValueType(element=ValueType(scalar=SCALARS["str"]))
_UUID = ValueType(scalar=SCALARS["uuid"])

def _group_list(w: ast.WithExpr):
    """``(group, extras, select)`` of ``(with g := (group ...), [c := (select g { n := ... }),]
    select g|c { shape } [filter ...] [order by ...] [offset] [limit])``; ``None`` for any other
    ``with``."""
    groups: Dict[str, Tuple[ast.GroupExpr, Tuple[ast.ShapeElement, ...]]] = {}
    for b in w.bindings:
        v = b.value
        if isinstance(v, ast.GroupExpr):
            groups[b.name] = (v, ())
        elif isinstance(v, ast.SelectExpr) and isinstance(v.subject, ast.VarRef) and v.subject.name in groups \
                and v.filter is None and not v.order and v.offset is None and v.limit is None \
                and all(el.value is not None for el in v.shape or ()):
            g, extras = groups[v.subject.name]
            groups[b.name] = (g, extras + tuple(v.shape or ()))
        else:
            return None
    body = w.body
    if not (isinstance(body, ast.SelectExpr) and isinstance(body.subject, ast.VarRef)
            and body.subject.name in groups and body.shape is not None):
        return None
    g, extras = groups[body.subject.name]
    select = ast.SelectQuery(body.subject.name, body.subject.span, body.shape, body.filter, body.order, body.offset,
                             body.limit, body.span)
    return g, extras, select


def _bound_group_list(e, ctx: ExprContext):
    """``(group, extras, select)`` of ``(select g { shape } [filter] [order by] [offset] [limit])``
    where ``g`` is a name the query's own ``with`` binds to a group (``with g := (group m using
    k := .x by k) select { counts := (select g { k := .key.k, n := count(.elements) }) }``):
    the same as the field ``(with g := (group ...) select g { ... })``, since a ``with`` name is
    its expression wherever it is read (https://docs.geldata.com/reference/edgeql/with);
    ``None`` for anything else. The group may also be written in place, ``(select (group m by
    .k) { k := .key.k, n := count(.elements) } order by .n desc limit 5)``, the same select of
    its groups (https://docs.geldata.com/reference/edgeql/group)."""
    if not (isinstance(e, ast.SelectExpr) and e.shape is not None):
        return None
    if isinstance(e.subject, ast.GroupExpr):
        return e.subject, (), ast.SelectQuery("group", e.subject.span, e.shape, e.filter, e.order, e.offset,
                                              e.limit, e.span)
    if not (isinstance(e.subject, ast.VarRef) and e.subject.name in ctx.group_bindings
            and e.subject.name not in ctx.variables):
        return None
    g, extras = ctx.group_bindings[e.subject.name]
    return g, extras, ast.SelectQuery(e.subject.name, e.subject.span, e.shape, e.filter, e.order, e.offset,
                                      e.limit, e.span)


def group_field_array(name: str, field: str, span: Span, ctx: ExprContext) -> Optional[qir.Expr]:
    """``array_agg((select g.f))`` of a ``with`` name bound to groups (``sorted := (select g order
    by .k)`` keeps that order, https://docs.geldata.com/reference/stdlib/array#function::std::array_agg):
    the field ``f`` of each group, in their order; empty values left out."""
    g, extras = ctx.group_bindings[name]
    order = ctx.group_orders.get(name, ())
    select = ast.SelectQuery(name, span, (ast.ShapeElement(field, None, span),), None, order, None, None, span)
    node = _group_node(g, ctx, select, extras)
    if node is None:
        return None
    f = node.fields[0]
    ftype = f.field.type  # type: ignore[attr-defined]
    if ftype is None or ftype.element is not None or ftype.fields is not None:
        ctx.reporter.error("E0206", f"array_agg() of the group field '{field}' is supported for scalar fields", span)
        return None
    return qir.GroupFieldArray(span, ValueType(element=ftype), False, node, field)


def _group_list_element(el: ast.ShapeElement, w: Optional[ast.WithExpr], ctx: ExprContext,
                        bound=None) -> Optional[qir.Node]:
    """A free object's field holding a select over groups (``counts := (with g := (group m using
    k := .x by k) select g { k := .key.k, n := count(.elements) } order by .n desc limit 10)``,
    or ``(select g { ... })`` of a group the query's ``with`` binds, ``bound``;
    https://docs.geldata.com/reference/edgeql/group): a JSON list of the groups' fields, in the
    select's order."""
    g, extras, select = bound if bound is not None else _group_list(w)  # type: ignore[misc]
    node = _group_node(g, ctx, select, extras)
    if node is None:
        return None
    fields = tuple(dataclasses.replace(f.field, in_json=True) for f in node.fields)  # type: ignore[attr-defined]
    return qir.ShapeGroupList(el.span, ResultField(el.name, None, False, fields, True), node)


def _group_selection(v) -> Optional[Tuple[ast.GroupExpr, ast.SelectQuery]]:
    """``(group, select)`` of a select with a shape over a group written in place, ``(select
    (select (group ...) order by ... limit n) { shape })`` (also ``(select (group ...) { shape }
    order by ...)``, ``(group ...) { shape }``): the select's shape and clauses over the groups
    (https://docs.geldata.com/reference/edgeql/group); ``None`` for anything else. Clauses
    written inside the shape's select may not read the shape's computed names (Gel would not
    see them there)."""
    shape = clauses = None
    while True:
        if isinstance(v, ast.ShapeExpr) and shape is None and clauses is None:
            shape, v = v.shape, v.base
            continue
        if isinstance(v, ast.SelectExpr):
            if v.shape is not None:
                if shape is not None:
                    return None
                shape = v.shape
            if _has_clauses(v):
                if clauses is not None:
                    return None
                if shape is not None and v.shape is None:
                    names = {el.name for el in shape if el.value is not None}
                    read = [v.filter, v.offset, v.limit] + [o.expr for o in v.order]
                    if any(isinstance(n, ast.Path) and len(n.steps) == 1 and n.steps[0] in names
                           for e in read if e is not None for n in ast.iter_nodes(e)):
                        return None
                clauses = v
            v = v.subject
            continue
        break
    if not isinstance(v, ast.GroupExpr) or shape is None:
        return None
    c = clauses
    return v, ast.SelectQuery("group", v.span, shape, c.filter if c else None, c.order if c else (),
                              c.offset if c else None, c.limit if c else None, c.span if c else v.span)


def _object_group_element(el: ast.ShapeElement, grouped, subject: ObjectType, alias: str, ctx: ExprContext,
                          depth: int) -> Optional[qir.Node]:
    """A shape element holding a select over groups of a set of the object's objects
    (``films := (select (group (select .<person[is Credit] filter ...) by .film) { title :=
    .key.film.title, jobs := .elements.job } order by .key.film.year desc limit 10)``,
    https://docs.geldata.com/reference/edgeql/group): the groups of those objects (a backlink,
    a link, a filtered select of them), a JSON list of each group's fields in the select's
    order, built as a free object's field over groups is, the grouped rows correlated with
    the object (``"id" IN (<the objects>)``)."""
    g, select = grouped
    scope = dataclasses.replace(ctx, subject=subject, column_prefix=alias if depth > 0 else None)
    if not (computed_sql.is_set_expr(g.subject) or computed_sql.link_set_of(g.subject, scope) is not None
            or (isinstance(g.subject, ast.Path) and len(g.subject.steps) == 1 and g.subject.steps[0] in subject.links)):
        ctx.reporter.error("E0206", "a group in a shape is supported over a set of the object's objects (a backlink, "
                           "a link, a path or a filtered select of one) only", g.subject.span)
        return None
    objects = computed_sql.expr_object_set(g.subject, scope, qi(f"_gs{depth + 1}"), g.subject.span)
    if objects is None:
        return None
    if objects.source.table == subject.table or objects.source.table == alias.strip('"'):
        ctx.reporter.error("E0206", f"a group of {objects.source.name} objects in a shape of {subject.name} objects "
                           "is not supported yet", g.subject.span)
        return None
    inner = dataclasses.replace(ctx, subject=None, column_prefix=None)
    node = _group_node(g, inner, select, (), objects)
    if node is None:
        return None
    fields = tuple(dataclasses.replace(f.field, in_json=True) for f in node.fields)  # type: ignore[attr-defined]
    return qir.ShapeGroupList(el.span, ResultField(el.name, None, False, fields, True, depth > 0), node)


def _group_query(qf: ast.QueryFile, g: ast.GroupExpr, ctx: ExprContext,
                select: Optional[ast.SelectQuery] = None,
                extras: Tuple[ast.ShapeElement, ...] = ()) -> Optional[qir.Query]:
    """Check ``group ...`` (``select`` ``None``) or ``select <groups> { ... } ...`` over it
    (``extras``: the computed fields a ``with`` binding added, ``c := (select g { n := ... })``)."""
    node = _group_node(g, ctx, select, extras)
    if node is None:
        return None
    fields = tuple(f.field for f in node.fields)  # type: ignore[attr-defined]
    return _plan(qf, "select", node.subject, node, ctx, MANY, (), fields)


def _group_subject(g: ast.GroupExpr, ctx: ExprContext) -> Optional[Tuple[ObjectType, Optional[ast.Expr]]]:
    """The grouped objects: a type, or a ``with`` name bound to ``(select T filter ...)``."""
    subj = g.subject
    if isinstance(subj, ast.VarRef):
        sel = ctx.type_sets.get(subj.name) if subj.name not in ctx.variables else None
        if isinstance(sel, ast.SubSelect):
            t = ctx.schema.find_type(sel.type_name, ctx.module)
            if t is not None:
                return t, sel.filter
        elif isinstance(sel, ast.SelectExpr) and sel.shape is None and isinstance(sel.subject, ast.VarRef) \
                and not sel.order and sel.offset is None and sel.limit is None:
            t = ctx.schema.find_type(sel.subject.name, ctx.module)
            if t is not None:
                return t, sel.filter
        elif sel is None and subj.name not in ctx.variables:
            t = ctx.schema.find_type(subj.name, ctx.module)
            if t is not None:
                return t, None
            if _abstract_type(ctx.schema, subj.name, ctx.module, subj.span, ctx.reporter):
                return None
            if "::" in subj.name or subj.name[:1].isupper():
                ctx.reporter.error("E0301", f"unknown type '{subj.name}'", subj.span)
                return None
    ctx.reporter.error("E0206", "grouping anything but a type or a 'with' name bound to (select T filter ...) is "
                       "not supported yet", subj.span,
                       "bind the objects first: with m := (select T filter ...) group m ... by ...")
    return None


def _group_keys(g: ast.GroupExpr, subject: ObjectType, ctx: ExprContext) -> Optional[List[qir.GroupKey]]:
    """The ``by`` keys, each ``.name`` of a property or single link, or a ``using`` name."""
    scope = dataclasses.replace(ctx, subject=subject)
    before = len(ctx.reporter.diagnostics)
    using: Dict[str, Tuple[qir.Expr, ast.Expr]] = {}
    view = ctx.views.get(g.subject.name, {}) if isinstance(g.subject, ast.VarRef) \
        and g.subject.name not in ctx.variables and g.subject.name in ctx.type_sets else {}
    for name, expr in g.using:
        if name in using:
            ctx.reporter.error("E0309", f"'{name}' is bound twice in 'using'", expr.span)
            continue
        if view:
            # `.cmd` of a computed element of the grouped selection: its expression
            expr = ast.map_expr(expr, lambda n: view[n.steps[0]] if isinstance(n, ast.Path) and len(n.steps) == 1
                                and n.steps[0] in view else n)
        low = check(expr, scope)
        if low is not None:
            using[name] = (low, expr)
    keys: List[qir.GroupKey] = []
    for b in g.by:
        if isinstance(b, (ast.SetLit, ast.Tuple_)) or (isinstance(b, ast.FuncCall) and b.name.lower() in ("cube",
                                                                                                         "rollup")):
            ctx.reporter.error("E0206", "grouping sets ('{a, b}', '(a, b)', cube(), rollup()) are not supported yet",
                               b.span, "group by each key: by .a, .b")
            continue
        if isinstance(b, ast.VarRef) and b.name in using:
            name = b.name
            low, _ = using[name]
        elif isinstance(b, ast.Path) and len(b.steps) == 1:
            name = b.steps[0]
            link = subject.links.get(name)
            if link is not None and link.multi:
                ctx.reporter.error("E0206", f"grouping by the multi link '{name}' is not supported yet", b.span)
                continue
            low = check(b, scope)  # type: ignore[assignment]
            if low is None:
                continue
        elif isinstance(b, ast.Path):
            ctx.reporter.error("E0206", "a 'by' key through several steps is not supported yet", b.span,
                               f"name it: using {b.steps[-1]} := .{'.'.join(b.steps)} by {b.steps[-1]}")
            continue
        else:
            ctx.reporter.error("E0304", "a 'by' key is a property path (.name) or a name bound by 'using'", b.span,
                               "write: group T using k := <expr> by k")
            continue
        if any(k.name == name for k in keys):
            ctx.reporter.error("E0309", f"'{name}' appears twice in 'by'", b.span)
            continue
        col = column_of(low)
        link = subject.links.get(col.link) if col is not None and col.link is not None else None
        if low.type.element is not None:
            ctx.reporter.error("E0206", f"grouping by an array (or a multi property), '{name}', is not supported yet",
                               b.span)
            continue
        if low.type.family in ("json",):
            ctx.reporter.error("E0206", f"grouping by a json value, '{name}', is not supported yet", b.span)
            continue
        if link is not None:
            field = ResultField(name, None, low.nullable, (ResultField("id", _UUID, False, in_json=True),), False, True)
        else:
            if not _json_ok(low.type, b.span, ctx):
                continue
            field = ResultField(name, low.type, low.nullable, in_json=True)
        keys.append(qir.GroupKey(b.span, name, low, field, link))
    if len(ctx.reporter.diagnostics) != before:
        return None
    return keys


class _GroupScope:
    """What an expression over one group may read: ``count(.elements)``, ``.key.name``,
    ``min(.elements.p)`` / ``max(.elements.p)``, and the computed fields bound before."""

    def __init__(self, subject: ObjectType, keys: List[qir.GroupKey], ctx: ExprContext):
        self.subject = subject
        self.keys = keys
        self.ctx = ctx
        self.variables: Dict[str, qir.Node] = dict(ctx.variables)
        self.computed: Dict[str, str] = {}
        self.n = 0
        #: The computed elements of the grouped `with` view (`m := (select Message { hour := ... })`).
        self.view: Dict[str, ast.Expr] = {}

    def _bind(self, value: qir.Expr) -> str:
        self.n += 1
        name = f" g{self.n}"
        self.variables[name] = qir.WithValue(name, value, True)
        return name

    def check(self, expr: ast.Expr, expected: Optional[ValueType] = None) -> Optional[qir.Expr]:
        before = len(self.ctx.reporter.diagnostics)
        rewritten = self._rewrite(expr)
        if len(self.ctx.reporter.diagnostics) != before:
            return None
        scope = dataclasses.replace(self.ctx, subject=None, variables=self.variables)
        return check(rewritten, scope, expected)

    def add_computed(self, name: str, value: qir.Expr) -> None:
        self.computed[name] = self._bind(value)

    def _rewrite(self, e):
        """``e`` with the reads of the group replaced by names bound to their values."""
        if isinstance(e, ast.FuncCall) and len(e.args) == 1 and isinstance(e.args[0], ast.Path) \
                and e.args[0].steps[0] == "elements":
            fn = e.name.replace("std::", "")
            steps = e.args[0].steps
            if fn == "count" and len(steps) == 1:
                return ast.VarRef(self._bind(qir.GroupValue(e.span, _INT64, False, "count")), e.span)
            if fn in ("min", "max") and len(steps) == 2:
                # (`min(.elements.hour)` of a computed element of the grouped view: its expression)
                read = self.view.get(steps[1], ast.Path(steps[1:], e.args[0].span))
                low = check(read, dataclasses.replace(self.ctx, subject=self.subject))
                if low is None:
                    return e
                if low.type.enum is not None or low.type.element is not None or low.type.family in ("json", "bool"):
                    self.ctx.reporter.error("E0206", f"{fn}() of a {low.type.name} value over a group's elements is "
                                            "not supported yet", e.span)
                    return e
                return ast.VarRef(self._bind(qir.GroupValue(e.span, low.type, low.nullable, fn, 0, low)), e.span)
            # (any other function of the group's elements: sum(.elements.p), array_agg(...))
            self.ctx.reporter.error("E0206", f"'.{'.'.join(steps)}' over groups is not supported yet",
                                    e.args[0].span, "a group's values: count(.elements), .key.<name>, "
                                    "min(.elements.<p>), max(.elements.<p>), .elements.<p>, and the fields computed before")
            return e
        if isinstance(e, ast.Path) and len(e.steps) == 2 and e.steps[0] == "elements":
            # `.elements.job`: the values of a property of the group's objects, a set (an array,
            # as a computed multi property; its empty values are no element)
            low = check(ast.Path(e.steps[1:], e.span), dataclasses.replace(self.ctx, subject=self.subject))
            if low is None:
                return e
            if low.type.element is not None or self.subject.column(e.steps[1]) is None \
                    or e.steps[1] in self.subject.links:
                self.ctx.reporter.error("E0206", f"'.elements.{e.steps[1]}' over groups is supported for a single "
                                        "property only", e.span)
                return e
            vtype = ValueType(element=low.type)
            return ast.VarRef(self._bind(qir.GroupValue(e.span, vtype, False, "values", 0, low)), e.span)
        if isinstance(e, ast.Path) and len(e.steps) > 2 and e.steps[0] == "key":
            # `.key.film.title`: a path from the object a link key holds (empty for the group of
            # the objects whose link is empty), read from its row
            i = next((i for i, k in enumerate(self.keys) if k.name == e.steps[1] and k.link is not None), None)
            if i is not None:
                k = self.keys[i]
                target = k.link.target  # type: ignore[union-attr]
                row = qi(f"_gk{self.n + 1}")
                inner = dataclasses.replace(self.ctx, subject=target, column_prefix=row, subject_column=None,
                                            variables={}, bound_statements={}, set_links=None, set_row=None)
                value = check(ast.Path(e.steps[2:], e.span), inner)
                if value is None:
                    return e
                id_col = target.column("id")
                assert id_col is not None
                key = qir.GroupValue(e.span, id_col.type, True, "key", i)
                cond = qir.Binary(e.span, BOOL, True, "=",
                                  qir.ColumnRef(e.span, id_col.type, False, id_col, target, None, row), key)
                found = qir.ObjectRow(e.span, value.type, True, target, row, value, cond,
                                      policies.read_predicate(target, self.ctx, row))
                return ast.VarRef(self._bind(found), e.span)
        if isinstance(e, ast.Path):
            head = e.steps[0]
            if head == "key" and len(e.steps) == 2:
                i = next((i for i, k in enumerate(self.keys) if k.name == e.steps[1]), None)
                if i is None:
                    self.ctx.reporter.error("E0302", f"the groups have no key '{e.steps[1]}'", e.span,
                                            f"their keys: {', '.join(k.name for k in self.keys)}")
                    return e
                k = self.keys[i]
                if k.link is not None:
                    self.ctx.reporter.error("E0206", f"reading the object key '{k.name}' in an expression is not "
                                            "supported yet", e.span, f"select it: key: {{ {k.name} }}")
                    return e
                return ast.VarRef(self._bind(qir.GroupValue(e.span, k.value.type, k.value.nullable, "key", i)), e.span)
            if len(e.steps) == 1 and head in self.computed:
                return ast.VarRef(self.computed[head], e.span)
            self.ctx.reporter.error("E0206", f"'.{'.'.join(e.steps)}' over groups is not supported yet", e.span,
                                    "a group's values: count(.elements), .key.<name>, min(.elements.<p>), "
                                    "max(.elements.<p>), .elements.<p>, and the fields computed before")
            return e
        if not dataclasses.is_dataclass(e) or isinstance(e, ast.Literal):
            return e
        if isinstance(e, (ast.SelectExpr, ast.SubSelect, ast.WithExpr, ast.GroupExpr, ast.ForExpr, ast.FreeObject,
                          ast.ShapeExpr, ast.StatementExpr)):
            self.ctx.reporter.error("E0206", "a sub-query in an expression over groups is not supported yet", e.span)
            return e
        changes = {}
        for f in dataclasses.fields(e):
            v = getattr(e, f.name)
            if dataclasses.is_dataclass(v) and hasattr(v, "span"):
                nv = self._rewrite(v)
                if nv is not v:
                    changes[f.name] = nv
            elif isinstance(v, tuple) and v and all(dataclasses.is_dataclass(x) and hasattr(x, "span") for x in v):
                nt = tuple(self._rewrite(x) for x in v)
                if any(a is not b for a, b in zip(nt, v)):
                    changes[f.name] = nt
        return dataclasses.replace(e, **changes) if changes else e


def _group_node(g: ast.GroupExpr, ctx: ExprContext, select: Optional[ast.SelectQuery] = None,
               extras: Tuple[ast.ShapeElement, ...] = (),
               objects: Optional[qir.ObjectSet] = None) -> Optional[qir.Group]:
    """``objects``: the grouped objects when they are a set of another object's (a group in a
    shape), else the group's subject is read by :func:`_group_subject`."""
    before = len(ctx.reporter.diagnostics)
    rows = None
    if isinstance(g.subject, ast.VarRef) and g.subject.name in ctx.row_sets and g.subject.name not in ctx.variables:
        # `group s using k := <expr of s> by k` of `with s := (for x in S union ...)`: its values,
        # each a row "_rows"("value"), read in the `using` expressions by the name `s` (Gel binds
        # the grouped set's name to each element there, https://docs.geldata.com/reference/edgeql/group)
        rows = for_rows(ctx.row_sets[g.subject.name], ctx)
        if rows is None:
            return None
        filter_ast = None
        if rows.targets is not None:
            # (objects: grouped as a type's, their rows read from the loop's)
            subject = rows.targets.source
        elif g.shape is not None:
            ctx.reporter.error("E0206", "a shape on grouped values is not supported (values have no fields)",
                               g.subject.span)
            return None
        else:
            subject = ObjectType(g.subject.name, ctx.module, "_rows", [], [], [], g.subject.span)
            var = qir.LoopVar(g.subject.name, rows.type, "value", qi("_rows"))
            ctx = dataclasses.replace(ctx, variables={**ctx.variables, g.subject.name: var})
    else:
        got = _group_subject(g, ctx) if objects is None else (objects.source, None)
        if got is None:
            return None
        subject, filter_ast = got
    scope = dataclasses.replace(ctx, subject=subject)
    filt = None
    if filter_ast is not None:
        filt, _ = _where(filter_ast, subject, scope)
    if objects is not None:
        id_col = subject.column("id")
        assert id_col is not None
        own = qir.ColumnRef(g.span, id_col.type, False, id_col, subject, None, qi(subject.table))
        filt = qir.InObjects(g.span, BOOL, False, own, objects, False)
    keys = _group_keys(g, subject, ctx)
    if keys is None or len(ctx.reporter.diagnostics) != before:
        return None
    table = qi(subject.table)
    gs = _GroupScope(subject, keys, ctx)
    if isinstance(g.subject, ast.VarRef) and g.subject.name not in ctx.variables:
        gs.view = dict(ctx.views.get(g.subject.name, {}))
    for el in extras:
        low = gs.check(el.value)  # type: ignore[arg-type]
        if low is not None:
            gs.add_computed(el.name, low)

    def elements_field(el: Optional[ast.ShapeElement]) -> Optional[qir.GroupField]:
        if rows is not None and rows.targets is None:
            ctx.reporter.error("E0206", "the elements of a group of values are not supported as a field yet (count "
                               "them: n := count(.elements))", (el or g).span)
            return None
        shape = el.shape if el is not None and el.shape is not None else g.shape
        if shape is None:
            shape = (ast.ShapeElement("id", None, (el or g).span),)
        inner = _shape(shape, subject, table, scope, depth=1)
        order: Tuple[qir.OrderKey, ...] = ()
        where = None
        if el is not None and (el.offset is not None or el.limit is not None):
            ctx.reporter.error("E0206", "'offset' and 'limit' on a group's elements are not supported yet",
                               (el.offset or el.limit).span)  # type: ignore[union-attr]
            return None
        if el is not None and _has_clauses(el):
            ok, clauses = _shape_clauses(el, subject, table, ctx)
            if not ok or clauses is None:
                return None
            order, where = clauses.order, clauses.filter
        field = ResultField("elements", None, False, _fields(inner), True)
        return qir.GroupField((el or g).span, field, "elements", (), tuple(inner), order, where)

    def key_field(el: Optional[ast.ShapeElement]) -> Optional[qir.GroupField]:
        chosen = list(range(len(keys)))
        if el is not None and el.shape is not None:
            chosen = []
            for sub in el.shape:
                i = next((i for i, k in enumerate(keys) if k.name == sub.name), None)
                if i is None or sub.shape is not None or sub.value is not None:
                    ctx.reporter.error("E0302", f"the groups have no key '{sub.name}'", sub.span,
                                       f"their keys: {', '.join(k.name for k in keys)}")
                    continue
                chosen.append(i)
        field = ResultField("key", None, False, tuple(keys[i].field for i in chosen))
        return qir.GroupField((el or g).span, field, "key", tuple(chosen))

    def grouping_field(span) -> qir.GroupField:
        return qir.GroupField(span, ResultField("grouping", _GROUPING, False), "grouping", tuple(range(len(keys))))

    fields: List[qir.Node] = []
    having = None
    order: List[qir.OrderKey] = []
    bounds: Dict[str, qir.Expr] = {}
    if select is None:
        fields = [f for f in (key_field(None), grouping_field(g.span), elements_field(None)) if f is not None]
    else:
        seen = set()
        for el in select.shape or ():
            if el.name in seen:
                ctx.reporter.error("E0309", f"'{el.name}' appears twice in the shape", el.span)
                continue
            seen.add(el.name)
            if el.value is not None:
                low = gs.check(el.value)
                if low is not None:
                    fields.append(qir.ShapeComputed(el.span, ResultField(el.name, low.type, low.nullable), low))
                    gs.add_computed(el.name, low)
            elif el.name == "key":
                fields.append(key_field(el))  # type: ignore[arg-type]
            elif el.name == "grouping" and el.shape is None:
                fields.append(grouping_field(el.span))
            elif el.name == "elements":
                f = elements_field(el)
                if f is not None:
                    fields.append(f)
            elif el.name in gs.computed and el.shape is None:
                low = gs.check(ast.Path((el.name,), el.span))
                if low is not None:
                    fields.append(qir.ShapeComputed(el.span, ResultField(el.name, low.type, low.nullable), low))
            else:
                ctx.reporter.error("E0302", f"the groups have no field '{el.name}'", el.span,
                                   "a group's fields: key, grouping, elements"
                                   + "".join(f", {n}" for n in gs.computed))
        if select.filter is not None:
            having = gs.check(select.filter, BOOL)
            if having is not None and having.type.family != "bool":
                ctx.reporter.error("E0304", f"a filter must be bool, got {having.type.name}", select.filter.span)
        for item in select.order:
            low = gs.check(item.expr)
            if low is None:
                continue
            if low.type.family in ("json", "bytes") or low.type.element is not None:
                ctx.reporter.error("E0304", f"cannot order by a {low.type.name} value", item.expr.span)
                continue
            order.append(qir.OrderKey(item.span, low, item.descending,
                                      item.empty or ("last" if item.descending else "first")))
        for word, expr in (("offset", select.offset), ("limit", select.limit)):
            if expr is None:
                continue
            low = check(expr, ctx, _INT64)
            if low is not None and (low.type.family != "num" or column_of(low) is not None):
                ctx.reporter.error("E0304", f"{word} needs an integer value, got {low.type.name}", expr.span)
            elif low is not None:
                bounds[word] = low
    if len(ctx.reporter.diagnostics) != before:
        return None
    visible = None if rows is not None else policies.read_predicate(subject, scope)
    return qir.Group(g.span, subject, filt, tuple(keys), tuple(fields), having, tuple(order), bounds.get("offset"),
                     bounds.get("limit"), visible, rows)


# The frozen dataclasses above are created in bulk: give them the faster __init__.
fast_init_all(globals())
