"""Query checking and lowering: one named query -> a :class:`QueryPlan` (parameterised SQL,
typed parameters, typed result, cardinality), the plain data model the TS and Go renderers read.

Rules:

* every user value is a bound parameter ``$n`` (never spliced into SQL);
* ``insert`` returns ``{ id }`` (Gel's default shape); ``unless conflict on (.a, .b)`` becomes
  ``ON CONFLICT ("a", "b") [WHERE <predicate>] DO NOTHING``. For a *partial* exclusive
  constraint the index predicate is repeated, because Postgres only infers a partial unique
  index as the arbiter when the conflict target's WHERE implies the index predicate
  (https://www.postgresql.org/docs/15/sql-insert.html#SQL-ON-CONFLICT);
* ``update`` and ``delete`` return ``{ id }`` of every row they touch;
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
from typing import Callable, Dict, List, Optional, Set, Tuple

from schemac import computed_sql, policies
from schemac import syntax as ast
from schemac.diagnostics import Reporter, Span, did_you_mean
from schemac.frozen import fast_init_all
from schemac.exprs import BOOL, ExprContext, Lowered, ParamSpec, ParamTable, lower, param_sql
from schemac.model import ExclusiveConstraint, ObjectType, Schema, ValueType
from schemac.names import go_name
from schemac.extensions import is_vector
from schemac.scalars import NOT_IN_JSON, SCALARS, range_kind
from schemac.sqlnames import qi, sql_string

ONE = "one"
AT_MOST_ONE = "at_most_one"
MANY = "many"

JSON = ValueType(scalar=SCALARS["json"])

_QUERY_NAME = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


@dataclass(frozen=True)
class ResultField:
    """One field of a query result row: name, type, and whether it may be NULL.

    A nested shape (``author: { name }``) has ``type`` ``None`` and its fields in ``shape``;
    ``multi`` marks a list of them (a multi link). Values inside a nested shape travel as JSON
    (see :data:`JSON_SPELLING`): ``in_json`` is set on those fields."""

    name: str
    type: Optional[ValueType]
    optional: bool
    shape: Optional[Tuple["ResultField", ...]] = None
    multi: bool = False
    in_json: bool = False


@dataclass(frozen=True)
class QueryPlan:
    """A checked, lowered query.

    ``name``: snake_case query name (file stem). ``sql``: the statement with ``$1..$n``.
    ``params``: in ``$n`` order. ``result``: fields of one result row. ``cardinality``:
    ``one`` | ``at_most_one`` | ``many``. ``exclusives``: the exclusive constraints the statement can
    violate (an insert: all of its type's; an update: those whose columns or predicate it
    writes), for typed errors."""

    name: str
    path: str
    kind: str
    subject: ObjectType
    sql: str
    params: Tuple[ParamSpec, ...]
    result: Tuple[ResultField, ...]
    cardinality: str
    exclusives: Tuple[ExclusiveConstraint, ...]
    doc: str = ""


def plan_query(schema: Schema, qf: ast.QueryFile, reporter: Reporter) -> Optional[QueryPlan]:
    """Check and lower one query file. Returns ``None`` after reporting diagnostics."""
    q = qf.query
    if not _QUERY_NAME.match(qf.name):
        reporter.error("E0308", f"query file name '{qf.name}' is not a snake_case name", Span.point(qf.path, 1, 1),
                       "name query files like enqueue_job.edgeql (lower case, digits, underscores)")
        return None
    if isinstance(q, ast.WithQuery):
        before = len(reporter.diagnostics)
        plan = _with(qf, q, schema, reporter)
        return plan if len(reporter.diagnostics) == before else None
    subject = schema.find_type(q.type_name)
    if subject is None:
        reporter.error("E0301", f"unknown type '{q.type_name}'", q.type_span,
                       did_you_mean(q.type_name.split("::")[-1], [t.name for t in schema.all_types()]))
        return None
    params = ParamTable()
    ctx = ExprContext(schema, subject, "default", reporter, params=params, where="a query")
    before = len(reporter.diagnostics)
    if isinstance(q, ast.InsertQuery):
        plan = _insert(qf, q, subject, ctx)
    elif isinstance(q, ast.UpdateQuery):
        plan = _update(qf, q, subject, ctx)
    elif isinstance(q, ast.SelectQuery):
        plan = _select(qf, q, subject, ctx)
    elif isinstance(q, ast.ForQuery):
        plan = _for(qf, q, subject, ctx)
    elif isinstance(q, ast.SelectDml):
        plan = _select_dml(qf, q, subject, ctx)
    else:
        plan = _delete(qf, q, subject, ctx)
    if len(reporter.diagnostics) != before:
        return None
    return plan


def _assignments(assigns, subject: ObjectType, ctx: ExprContext, insert: bool) -> List[Tuple[str, str]]:
    """Check ``p := value`` assignments; ``[(column, value SQL)]``.

    In an insert, a parameter assigned to a property with a default is optional: when it is
    NULL (omitted) the default applies (``COALESCE($n, <default>)``)."""
    out: List[Tuple[str, str]] = []
    seen: Set[str] = set()
    for a in assigns:
        if a.name in seen:
            ctx.reporter.error("E0309", f"'{a.name}' is assigned twice", a.name_span)
            continue
        seen.add(a.name)
        link = subject.links.get(a.name)
        if link is not None:
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
                               did_you_mean(a.name, [c.name for c in subject.columns if not c.is_id and c.link is None]
                                            + list(subject.links)))
            continue
        if col.is_id:
            ctx.reporter.error("E0302", "'id' is generated and cannot be assigned", a.name_span)
            continue
        if col.readonly and not insert:
            ctx.reporter.error("E0310", f"'{a.name}' is readonly and cannot be updated", a.name_span,
                               "readonly properties are set once, by insert")
            continue
        if a.op != ":=":
            sql = _add_or_remove(a, col, insert, ctx)
            if sql is not None:
                out.append((col.name, sql))
            continue
        use_default = insert and col.has_default and isinstance(a.value, (ast.Param, ast.Cast))
        low = lower(a.value, ctx, col.type, allow_optional_param=use_default or not col.required)
        if low is None:
            continue
        if low.type.family != col.type.family:
            ctx.reporter.error("E0304", f"'{a.name}' is {col.type.name}, but the value is {low.type.name}",
                               a.value.span)
            continue
        if use_default and low.nullable and low.is_param:
            out.append((col.name, f"COALESCE({low.sql}::{col.type.pg}, {col.default_sql})"))
            continue
        if insert and col.has_default and low.nullable and isinstance(a.value, ast.Cast):
            # `<optional T>item['k']` of a json loop: a missing member means the default.
            out.append((col.name, f"COALESCE({low.sql}, {col.default_sql})"))
            continue
        if col.required and low.nullable and not _reads_global(a.value):
            ctx.reporter.error("E0304", f"'{a.name}' is required, but the value may be empty", a.value.span,
                               "make the parameter required (drop 'optional') or the property optional")
            continue
        if not insert:
            _mark_unchanged(a.value, col.name, ctx)
        out.append((col.name, low.sql))
    return out


def _reads_global(value: ast.Expr) -> bool:
    """Whether a value reads a global. Such a value may be empty for a required property: as in
    Gel, that is an error when the statement runs (a NOT NULL violation), not when it compiles,
    since the application supplies the global."""
    return any(isinstance(n, ast.GlobalRef) for n in ast.iter_nodes(value))


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
        spec = ctx.params.params.get(left.name)
        if spec is not None and spec.optional:
            spec.unchanged = column


def _add_or_remove(a: ast.Assignment, col, insert: bool, ctx: ExprContext) -> Optional[str]:
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
    low = lower(a.value, ctx, elem)
    if low is None:
        return None
    if low.type.family not in (elem.family, col.type.family):
        ctx.reporter.error("E0304", f"'{a.name}' holds {elem.name}, but the value is {low.type.name}", a.value.span)
        return None
    is_array = low.type.family == col.type.family
    value = f"{low.sql}::{low.type.pg}" if low.is_param else low.sql
    target = qi(col.name)
    if a.op == "+=":
        return f"array_cat({target}, {value})" if is_array else f"array_append({target}, {value})"
    keep = f"_e <> ALL ({value})" if is_array else f"_e <> {value}"
    return (f"ARRAY(SELECT _e FROM unnest({target}) WITH ORDINALITY AS _u(_e, _n) "
            f"WHERE {keep} ORDER BY _n)")


#: Prefix of the pseudo-column under which :func:`_assignments` hands a multi link's ids to
#: :func:`_insert` (which writes them into the join table).
MULTI_LINK_MARK = "@"


def _multi_link_ids(a: ast.Assignment, link, ctx: ExprContext) -> Optional[str]:
    """``tags := (select Tag filter .id in array_unpack(<array<uuid>>$ids))`` (or ``.id in $ids``)
    -> the SQL of the ``uuid[]`` of target ids."""
    value = a.value
    source = None
    if isinstance(value, ast.SubSelect) and value.type_name.split("::")[-1] == link.target.name:
        f = value.filter
        if isinstance(f, ast.BinOp) and f.op == "in" and isinstance(f.left, ast.Path) and f.left.steps == ("id",):
            source = f.right
            if isinstance(source, ast.FuncCall) and source.name in ("array_unpack", "std::array_unpack") \
                    and len(source.args) == 1:
                source = source.args[0]
    if source is None:
        ctx.reporter.error("E0304", f"the value of multi link '{a.name}' must be (select {link.target.name} filter "
                           f".id in array_unpack(<array<uuid>>$ids))", value.span,
                           f"write {a.name} := (select {link.target.name} filter .id in array_unpack(<array<uuid>>${a.name}))")
        return None
    uuid_array = ValueType(element=ValueType(scalar=SCALARS["uuid"]))
    low = lower(source, ctx, uuid_array)
    if low is None:
        return None
    if low.type.family != uuid_array.family:
        ctx.reporter.error("E0304", f"the ids of '{a.name}' must be an array<uuid>, got {low.type.name}", source.span)
        return None
    return f"{low.sql}::uuid[]" if low.is_param else low.sql


def _link_value(a: ast.Assignment, link, subject: ObjectType, ctx: ExprContext,
                insert: bool) -> Optional[Tuple[str, str]]:
    """``author := (select User filter .id = <value>)`` -> ``("author_id", <value SQL>)``."""
    if link.multi:
        if insert and a.op != ":=":
            ctx.reporter.error("E0304", f"'{a.op}' is only valid in an update", a.name_span, f"write {a.name} := ...")
            return None
        ids = _multi_link_ids(a, link, ctx)
        # The mark, the operator and the link: `@+=tags` (see _link_changes).
        return None if ids is None else (MULTI_LINK_MARK + a.op + a.name, ids)
    col = subject.column(link.column)
    assert col is not None
    if col.readonly and not insert:
        ctx.reporter.error("E0310", f"'{a.name}' is readonly and cannot be updated", a.name_span)
        return None
    value = a.value
    target_id = None
    if isinstance(value, ast.GlobalRef):
        g = ctx.schema.find(value.name, ctx.module, ctx.schema.globals)
        if g is not None and g.target is not None:  # type: ignore[attr-defined]
            if g.target is not link.target:  # type: ignore[attr-defined]
                ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, but global '{value.name}' is "
                                   f"a {g.target.name}", value.span)  # type: ignore[attr-defined]
                return None
            target_id = value
    if isinstance(value, ast.SubSelect):
        if value.type_name.split("::")[-1] != link.target.name:
            ctx.reporter.error("E0304", f"'{a.name}' links to {link.target.name}, not {value.type_name}",
                               value.type_span)
            return None
        f = value.filter
        if isinstance(f, ast.BinOp) and f.op == "=":
            for side, other in ((f.left, f.right), (f.right, f.left)):
                if isinstance(side, ast.Path) and side.steps == ("id",):
                    target_id = other
    if target_id is None:
        ctx.reporter.error("E0304", f"the value of link '{a.name}' must be (select {link.target.name} filter .id = ...)",
                           value.span, f"write {a.name} := (select {link.target.name} filter .id = ${a.name}_id)")
        return None
    low = lower(target_id, ctx, col.type, allow_optional_param=not col.required)
    if low is None:
        return None
    if low.type.family != "uuid":
        ctx.reporter.error("E0304", f"an id is a uuid, not {low.type.name}", target_id.span)
        return None
    if col.required and low.nullable and not _reads_global(target_id):
        ctx.reporter.error("E0304", f"link '{a.name}' is required, but the value may be empty", target_id.span)
        return None
    visible = policies.read_predicate(link.target, ctx, '"_t"')
    if visible is not None:
        # Only an object the target's access policies let the query see can be linked.
        value_sql = f"{low.sql}::uuid" if low.is_param else low.sql
        low = dataclasses.replace(low, sql=f'(SELECT "_t"."id" FROM {qi(link.target.table)} AS "_t" WHERE '
                                  f'"_t"."id" = {value_sql} AND {visible})', nullable=True, is_param=False)
    return col.name, low.sql


def _for(qf: ast.QueryFile, q: ast.ForQuery, subject: ObjectType, ctx: ExprContext) -> Optional[QueryPlan]:
    """``for x in array_unpack(<array<T>>$xs) union (insert ...)`` -> one
    ``INSERT ... SELECT ... FROM unnest($n::T[]) AS "_batch"(x)``: one round trip for any
    number of rows. Duplicates within one batch: ``unless conflict`` (``DO NOTHING``) keeps the
    first and skips the rest; an upsert (``DO UPDATE``) cannot touch a row twice and the whole
    statement fails with SQLSTATE 21000, inserting nothing."""
    src = q.source
    if isinstance(src, ast.FuncCall) and src.name in ("json_array_unpack", "std::json_array_unpack") \
            and len(src.args) == 1:
        return _for_json(qf, q, subject, ctx)
    if not (isinstance(src, ast.FuncCall) and src.name in ("array_unpack", "std::array_unpack") and len(src.args) == 1):
        ctx.reporter.error("E0206", "a for loop iterates over array_unpack(<array<T>>$param) or "
                           "json_array_unpack(<json>$param) only", src.span,
                           "write e.g. for name in array_unpack(<array<str>>$names) union (insert ...)")
        return None
    arr = lower(src.args[0], ctx, None)
    if arr is None:
        return None
    if arr.type.element is None or not arr.is_param:
        ctx.reporter.error("E0304", f"array_unpack needs an array parameter, got {arr.type.name}", src.args[0].span,
                           "give it a type: <array<str>>$names")
        return None
    batch = f'unnest({arr.sql}::{arr.type.pg}) AS "_batch"({qi(q.var)})'
    ctx.variables[q.var] = Lowered(f'"_batch".{qi(q.var)}', arr.type.element)
    return _for_plan(qf, q, subject, ctx, batch)


def _for_plan(qf: ast.QueryFile, q: ast.ForQuery, subject: ObjectType, ctx: ExprContext,
              batch: str) -> Optional[QueryPlan]:
    plan = _insert(qf, q.body, subject, ctx, batch=batch)
    if plan is None:
        return None
    return QueryPlan(plan.name, plan.path, "insert", subject, plan.sql, plan.params, plan.result, MANY,
                     plan.exclusives, plan.doc)


def _for_json(qf: ast.QueryFile, q: ast.ForQuery, subject: ObjectType, ctx: ExprContext) -> Optional[QueryPlan]:
    """``for x in json_array_unpack(<json>$items) union (insert ...)`` -> one
    ``INSERT ... SELECT ... FROM jsonb_array_elements($n::jsonb) AS "_batch"(x)``; the loop
    variable is json: its members are read with casts, ``<str>x['name']`` (``x ->> 'name'``)."""
    src = q.source
    arr = lower(src.args[0], ctx, JSON)  # type: ignore[attr-defined]
    if arr is None:
        return None
    if arr.type.family != "json" or not arr.is_param:
        ctx.reporter.error("E0304", f"json_array_unpack needs a json parameter, got {arr.type.name}",
                           src.args[0].span, "give it a type: <json>$items")  # type: ignore[attr-defined]
        return None
    batch = f'jsonb_array_elements({arr.sql}::jsonb) AS "_batch"({qi(q.var)})'
    ctx.variables[q.var] = Lowered(f'"_batch".{qi(q.var)}', JSON)
    return _for_plan(qf, q, subject, ctx, batch)


@dataclass
class _Write:
    """An insert, update or delete, lowered up to its result columns. ``statement(cols)`` is
    the statement returning ``cols`` (``... RETURNING cols``; an update that only changes
    links locks its rows instead: ``SELECT cols FROM t WHERE ... FOR UPDATE``). ``links``
    build the statements writing multi links' join tables, given the name of the CTE that
    holds the written rows; ``written_links`` names those links."""

    kind: str
    subject: ObjectType
    statement: Callable[[str], str]
    links: List[Callable[[str], str]]
    cardinality: str
    exclusives: Tuple[ExclusiveConstraint, ...]
    written_links: Tuple[str, ...] = ()
    #: An access policy check over the written rows, named ``"_new"`` (see
    #: :func:`schemac.policies.write_check`): the statement is then a CTE whose rows are
    #: selected through it.
    check: Optional[str] = None


def _render_ctes(ctes: List[Tuple[str, str]], final: str) -> str:
    """``WITH "a" AS (\n...\n),\n"b" AS (\n...\n)\n<final>`` (just ``final`` without CTEs)."""
    if not ctes:
        return final
    return "WITH " + ",\n".join(f"{qi(name)} AS (\n{body}\n)" for name, body in ctes) + "\n" + final


def _write_sql(w: _Write, columns: List[str], names: List[str]) -> str:
    """The SQL of a write returning ``columns`` (SQL, possibly ``x AS "name"``) as ``names``.
    With join-table writes the statement is the CTE ``"_new"`` they read, and the query
    selects its rows: one statement, atomic."""
    if not w.links and w.check is None:
        return w.statement(", ".join(columns))
    inner = columns if '"id"' in columns else ['"id"'] + columns
    if w.check is not None:
        inner = ["*"] + [c for c in columns if " AS " in c]
    ctes = [("_new", w.statement(", ".join(inner)))]
    ctes += [(f"_link{i}", link('"_new"')) for i, link in enumerate(w.links, 1)]
    check = f"\nWHERE {w.check}" if w.check is not None else ""
    return _render_ctes(ctes, f'SELECT {", ".join(qi(n) for n in names)} FROM "_new"{check}')


def _split_links(values: List[Tuple[str, str]]) -> Tuple[List[Tuple[str, str, str]], List[Tuple[str, str]]]:
    """``([(operator, link, ids SQL)], [(column, value SQL)])`` of checked assignments."""
    links = []
    for c, v in values:
        if c.startswith(MULTI_LINK_MARK):
            rest = c[len(MULTI_LINK_MARK):]
            links.append((rest[:2], rest[2:], v))
    return links, [(c, v) for c, v in values if not c.startswith(MULTI_LINK_MARK)]


def _link_insert(join: str, ids: str, on_conflict: bool) -> Callable[[str], str]:
    def build(rows: str) -> str:
        sql = (f'INSERT INTO {qi(join)} ("source_id", "target_id")\n'
               f'SELECT {rows}."id", "_t"."id" FROM {rows}, (SELECT DISTINCT unnest({ids}) AS "id") AS "_t"')
        return sql + ('\nON CONFLICT ("source_id", "target_id") DO NOTHING' if on_conflict else "")
    return build


def _link_delete(join: str, ids: Optional[str], keep: bool) -> Callable[[str], str]:
    """Delete the written rows' links to ``ids`` (``keep``: to every target but ``ids``)."""
    def build(rows: str) -> str:
        which = f' AND "_l"."target_id" <> ALL ({ids})' if keep else f' AND "_l"."target_id" = ANY ({ids})'
        return f'DELETE FROM {qi(join)} AS "_l"\nUSING {rows}\nWHERE "_l"."source_id" = {rows}."id"{which}'
    return build


def _link_changes(links: List[Tuple[str, str, str]], subject: ObjectType) -> List[Callable[[str], str]]:
    """The join-table writes of ``tags += / -= / := (select Tag filter .id in ...)`` in an
    update: ``+=`` inserts the missing links (``ON CONFLICT DO NOTHING``: a link is a set),
    ``-=`` deletes the given ones, ``:=`` deletes every other link and inserts the missing
    ones (links that stay keep their link properties)."""
    out: List[Callable[[str], str]] = []
    for op, name, ids in links:
        join = subject.links[name].join_table
        assert join is not None
        if op == "+=":
            out.append(_link_insert(join, ids, True))
        elif op == "-=":
            out.append(_link_delete(join, ids, keep=False))
        else:
            out.append(_link_delete(join, ids, keep=True))
            out.append(_link_insert(join, ids, True))
    return out


def _insert(qf: ast.QueryFile, q: ast.InsertQuery, subject: ObjectType, ctx: ExprContext,
            batch: Optional[str] = None) -> Optional[QueryPlan]:
    w = _insert_write(q, subject, ctx, batch)
    if w is None:
        return None
    return _plan(qf, "insert", subject, _write_sql(w, ['"id"'], ["id"]), ctx, w.cardinality, w.exclusives)


def _insert_write(q: ast.InsertQuery, subject: ObjectType, ctx: ExprContext,
                  batch: Optional[str] = None) -> Optional[_Write]:
    values = _assignments(q.assignments, subject, ctx, insert=True)
    given = {a.name for a in q.assignments}
    missing = [c.link or c.name for c in subject.columns
               if c.required and not c.defaulted and (c.link or c.name) not in given]
    values += _query_defaults(subject, given, ctx)
    if missing:
        ctx.reporter.error("E0305", f"insert of '{subject.name}' is missing required "
                           f"propert{'y' if len(missing) == 1 else 'ies'} {', '.join(repr(m) for m in missing)}",
                           q.type_span, f"add e.g. {missing[0]} := ${missing[0]}" if missing[0] not in subject.links
                           else f"add e.g. {missing[0]} := (select ... filter .id = ${missing[0]}_id)")
    conflict_sql = ""
    cardinality = ONE
    raisable = tuple(subject.exclusives)
    if q.unless_conflict is not None:
        cardinality = AT_MOST_ONE
        conflict_sql, arbiter = _on_conflict(q.unless_conflict, subject, ctx)
        # The absorbed conflict is not an error; a bare `unless conflict` absorbs them all.
        raisable = tuple(ex for ex in raisable if arbiter is not None and ex is not arbiter)
        if q.unless_conflict.else_ is not None and conflict_sql:
            conflict_sql, touched = _conflict_else(q.unless_conflict, subject, ctx, conflict_sql)
            cardinality = ONE  # the new row, or the existing one
            raisable = tuple(dict.fromkeys(raisable + touched))
    if ctx.reporter.has_errors:
        return None
    links, values = _split_links(values)
    multi = [(name, ids) for _, name, ids in links]
    if multi and batch is not None:
        ctx.reporter.error("E0206", "multi links in a bulk insert are not supported yet", q.span)
        return None
    if multi and q.unless_conflict is not None and q.unless_conflict.else_ is not None:
        ctx.reporter.error("E0206", "setting a multi link in an upsert is not supported yet", q.unless_conflict.span,
                           "the links would also be added to the existing object; set them in a separate query")
        return None
    if values and batch is not None:
        cols = ", ".join(qi(c) for c, _ in values)
        vals = ", ".join(v for _, v in values)
        sql = f"INSERT INTO {qi(subject.table)} ({cols})\nSELECT {vals}\nFROM {batch}"
    elif values:
        cols = ", ".join(qi(c) for c, _ in values)
        vals = ", ".join(v for _, v in values)
        sql = f"INSERT INTO {qi(subject.table)} ({cols})\nVALUES ({vals})"
    else:
        sql = f"INSERT INTO {qi(subject.table)} DEFAULT VALUES"
    sql += conflict_sql
    # The object and its links in one statement: the join rows are written from the inserted
    # row (none when `unless conflict` skipped it).
    link_writes = [_link_insert(subject.links[name].join_table, ids, False)  # type: ignore[arg-type]
                   for name, ids in multi]
    check = policies.write_check(subject, "insert", ctx, '"_new"')
    if check is not None and q.unless_conflict is not None and q.unless_conflict.else_ is not None:
        ctx.reporter.error("E0206", f"an upsert of '{subject.name}', which has access policies, is not supported yet",
                           q.unless_conflict.span, "insert and update in separate queries")
        return None
    return _Write("insert", subject, lambda cols: f"{sql}\nRETURNING {cols}", link_writes, cardinality, raisable,
                  tuple(name for name, _ in multi), check)


def _query_defaults(subject: ObjectType, given: Set[str], ctx: ExprContext) -> List[Tuple[str, str]]:
    """``[(column, value SQL)]`` of the defaults that read a global, for the columns an insert
    leaves out (see :attr:`schemac.model.Column.query_default`)."""
    out: List[Tuple[str, str]] = []
    for c in subject.columns:
        if c.query_default is None or (c.link or c.name) in given:
            continue
        scope = dataclasses.replace(ctx, module=c.query_default_module, column_prefix=None)
        low = lower(c.query_default, scope, c.type)  # type: ignore[arg-type]
        if low is not None:
            out.append((c.name, f"{low.sql}::{c.type.pg}" if low.is_param else low.sql))
    return out


def _conflict_else(uc: ast.UnlessConflict, subject: ObjectType, ctx: ExprContext,
                   conflict_sql: str) -> Tuple[str, Tuple[ExclusiveConstraint, ...]]:
    """``else (update T set {...})`` -> ``DO UPDATE SET ...``; ``else (select T)`` -> a no-op
    ``DO UPDATE`` that makes ``RETURNING`` yield the existing row (``DO NOTHING`` returns no
    row). Values may read the existing row (``.attempts + 1``); parameters are the insert's.
    Returns the clause and the exclusive constraints the update part can still violate."""
    el = uc.else_
    assert el is not None
    if el.type_name.split("::")[-1] != subject.name:
        ctx.reporter.error("E0304", f"the else branch must {el.kind} '{subject.name}', not '{el.type_name}'",
                           el.type_span)
        return conflict_sql, ()
    if not uc.on:
        ctx.reporter.error("E0306", "an upsert needs 'unless conflict on (...)' to name its arbiter", uc.span,
                           "write e.g. unless conflict on (.email) else (update ...)")
        return conflict_sql, ()
    head = conflict_sql[: -len(" DO NOTHING")]
    if el.kind == "select":
        # Writes the existing row's own id back: the row is unchanged, but locked and returned.
        return f"{head} DO UPDATE SET \"id\" = {qi(subject.table)}.\"id\"", ()
    # Inside DO UPDATE the proposed row (`excluded`) is in scope too: qualify the columns.
    ctx.column_prefix = qi(subject.table)
    try:
        sets = _assignments(el.assignments, subject, ctx, insert=False)
    finally:
        ctx.column_prefix = None
    if not el.assignments:
        ctx.reporter.error("E0304", "the else update needs at least one assignment", el.span)
        return conflict_sql, ()
    links, sets = _split_links(sets)
    if links:
        a = next(a for a in el.assignments if a.name == links[0][1])
        ctx.reporter.error("E0206", f"changing the multi link '{a.name}' in an upsert is not supported yet",
                           a.name_span, "change the links in a separate update")
        return conflict_sql, ()
    set_sql = ",\n    ".join(f"{qi(c)} = {v}" for c, v in sets)
    return f"{head} DO UPDATE\nSET {set_sql}", _exclusives_written(subject, sets)


def _on_conflict(uc: ast.UnlessConflict, subject: ObjectType,
                 ctx: ExprContext) -> Tuple[str, Optional[ExclusiveConstraint]]:
    """The ``ON CONFLICT`` clause and the arbiter constraint (``None`` for a bare ``unless
    conflict``, which absorbs a conflict on any constraint)."""
    if not uc.on:
        return "\nON CONFLICT DO NOTHING", None
    names: List[str] = []
    for p in uc.on:
        low = lower(p, ctx)
        if low is not None and low.column is not None:
            names.append(low.column.name)
        elif low is not None:
            ctx.reporter.error("E0306", "'unless conflict on' names properties (.a, .b)", p.span)
    if len(names) != len(uc.on):
        return "", None
    for ex in subject.exclusives:
        if set(ex.columns) == set(names) and len(ex.columns) == len(names):
            target = ", ".join(qi(c) for c in ex.columns)
            where = f" WHERE ({ex.predicate_sql})" if ex.partial else ""
            return f"\nON CONFLICT ({target}){where} DO NOTHING", ex
    cands = [f"on ({', '.join('.' + c for c in ex.columns)})" for ex in subject.exclusives]
    hint = ("exclusive constraints of '%s': %s" % (subject.name, "; ".join(cands))) if cands else \
        f"'{subject.name}' declares no exclusive constraint; add one, or drop 'on (...)'"
    ctx.reporter.error("E0306", f"no exclusive constraint of '{subject.name}' is on ({', '.join('.' + n for n in names)})",
                       uc.span, hint)
    return "", None


def _update(qf: ast.QueryFile, q: ast.UpdateQuery, subject: ObjectType, ctx: ExprContext) -> Optional[QueryPlan]:
    w = _update_write(q, subject, ctx)
    if w is None:
        return None
    return _plan(qf, "update", subject, _write_sql(w, ['"id"'], ["id"]), ctx, w.cardinality, w.exclusives)


def _update_write(q: ast.UpdateQuery, subject: ObjectType, ctx: ExprContext) -> Optional[_Write]:
    where, cardinality = _where(q.filter, subject, ctx)
    where = _with_policy(where, policies.read_predicate(subject, ctx, None, "update read"))
    sets = _assignments(q.assignments, subject, ctx, insert=False)
    check = policies.write_check(subject, "update write", ctx, '"_new"')
    if not q.assignments:
        ctx.reporter.error("E0304", "an update needs at least one assignment in 'set { ... }'", q.span)
    if ctx.reporter.has_errors:
        return None
    links, sets = _split_links(sets)
    table = qi(subject.table)
    if sets:
        set_sql = ",\n    ".join(f"{qi(c)} = {v}" for c, v in sets)
        sql = f"UPDATE {table}\nSET {set_sql}{where}"

        def statement(cols: str) -> str:
            return f"{sql}\nRETURNING {cols}"
    else:
        # Only links change: the rows are locked, as an update would.
        def statement(cols: str) -> str:
            return f"SELECT {cols}\nFROM {table}{where}\nFOR UPDATE"
    return _Write("update", subject, statement, _link_changes(links, subject), cardinality,
                  _exclusives_written(subject, sets), tuple(name for _, name, _ in links), check)


def _exclusives_written(subject: ObjectType, sets: List[Tuple[str, str]]) -> Tuple[ExclusiveConstraint, ...]:
    """The exclusive constraints an update of the ``sets`` columns can violate: those whose
    columns or predicate it writes."""
    written = {c for c, _ in sets}
    return tuple(ex for ex in subject.exclusives if written & (set(ex.columns) | set(ex.predicate_columns)))


def _pins_one_row(filt: ast.Expr, subject: ObjectType) -> bool:
    """True when ``filt`` is a conjunction containing ``.col = <value not reading columns>``
    for ``id`` or for every column of a full exclusive constraint."""
    pinned: Set[str] = set()

    def reads_columns(e: ast.Expr) -> bool:
        return any(isinstance(n, ast.Path) for n in ast.iter_nodes(e))

    def column_of(path: ast.Path) -> Optional[str]:
        """The column a path reads: a property, or a single link (``.org`` / ``.org.id``)."""
        link = subject.links.get(path.steps[0])
        if link is not None and link.column is not None and path.steps[1:] in ((), ("id",)):
            return link.column
        return path.steps[0] if len(path.steps) == 1 else None

    for c in ast.conjuncts(filt):
        if isinstance(c, ast.BinOp) and c.op == "=":
            for a, b in ((c.left, c.right), (c.right, c.left)):
                if isinstance(a, ast.Path) and not reads_columns(b):
                    col = column_of(a)
                    if col is not None:
                        pinned.add(col)
    if "id" in pinned:
        return True
    return any(not ex.partial and set(ex.columns) <= pinned for ex in subject.exclusives)


def _with_policy(where: str, predicate: Optional[str]) -> str:
    """``where`` (``""`` or ``"\nWHERE ..."``) restricted to the rows an access policy
    predicate allows (unchanged without one)."""
    if predicate is None:
        return where
    if not where:
        return f"\nWHERE {predicate}"
    return f"\nWHERE ({where[len(chr(10)) + len('WHERE '):]}) AND {predicate}"


def _where(filt: Optional[ast.Expr], subject: ObjectType, ctx: ExprContext) -> Tuple[str, str]:
    """``("\nWHERE ...", cardinality)`` of a filter (``many`` unless it pins one row)."""
    if filt is None:
        return "", MANY
    low = lower(filt, ctx, BOOL)
    if low is None:
        return "", MANY
    if low.type.family != "bool":
        ctx.reporter.error("E0304", f"a filter must be bool, got {low.type.name}", filt.span)
        return "", MANY
    return f"\nWHERE {low.sql}", AT_MOST_ONE if _pins_one_row(filt, subject) else MANY


def _select(qf: ast.QueryFile, q: ast.SelectQuery, subject: ObjectType, ctx: ExprContext,
            source: Optional[Tuple[str, _Write]] = None) -> Optional[QueryPlan]:
    """``SELECT <shape columns> FROM t [WHERE] [ORDER BY] [OFFSET] [LIMIT]``.

    Ordering follows Gel: empty values sort first ascending and last descending unless
    ``empty first|last`` says otherwise (Postgres' default is the opposite, so NULLS FIRST/LAST
    is always spelled out).

    ``source``: select the rows a write returned instead (``with p := (insert ...) select p
    {...}``): the name of the CTE holding them, and the write. The CTE is aliased as the table,
    so the shape's sub-selects read it like the table."""
    shape = q.shape if q.shape is not None else (ast.ShapeElement("id", None, q.type_span),)
    written = source[1].written_links if source is not None else ()
    picked = _shape(shape, subject, qi(subject.table), ctx, depth=0, written=written)
    columns = [f"{sql} AS {qi(f.name)}" if sql != qi(f.name) else sql for sql, f in picked]
    fields = [f for _, f in picked]
    where, cardinality = _where(q.filter, subject, ctx)
    if source is None:
        where = _with_policy(where, policies.read_predicate(subject, ctx))
    if source is not None:
        # Fewer rows than the write returned, never more.
        base = source[1].cardinality
        if base == ONE:
            cardinality = AT_MOST_ONE if q.filter is not None or q.offset is not None else ONE
        elif base == AT_MOST_ONE:
            cardinality = AT_MOST_ONE
    order_sql: List[str] = []
    for item in q.order:
        low = lower(item.expr, ctx)
        if low is None:
            continue
        if low.type.family in ("json", "bytes") or low.type.element is not None:
            ctx.reporter.error("E0304", f"cannot order by a {low.type.name} value", item.expr.span)
            continue
        empty = item.empty or ("last" if item.descending else "first")
        order_sql.append(f"{low.sql}{' DESC' if item.descending else ' ASC'} NULLS {empty.upper()}")
    tail = ""
    if order_sql:
        tail += "\nORDER BY " + ", ".join(order_sql)
    for word, expr in (("OFFSET", q.offset), ("LIMIT", q.limit)):
        if expr is None:
            continue
        low = lower(expr, ctx, ValueType(scalar=SCALARS["int64"]))
        if low is None:
            continue
        if low.type.family != "num" or low.column is not None:
            ctx.reporter.error("E0304", f"{word.lower()} needs an integer value, got {low.type.name}", expr.span)
            continue
        tail += f"\n{word} {low.sql}"
        if word == "LIMIT" and isinstance(expr, ast.Literal) and expr.value == 1 and cardinality == MANY:
            cardinality = AT_MOST_ONE
    if ctx.reporter.has_errors:
        return None
    sep = ",\n       " if any(f.shape is not None for f in fields) else ", "
    from_sql = qi(subject.table) if source is None else f"{qi(source[0])} AS {qi(subject.table)}"
    sql = f"SELECT {sep.join(columns)}\nFROM {from_sql}{where}{tail}"
    if source is not None:
        return _plan(qf, source[1].kind, subject, sql, ctx, cardinality, source[1].exclusives, tuple(fields))
    return _plan(qf, "select", subject, sql, ctx, cardinality, (), tuple(fields))


#: How a scalar is spelled inside a nested shape's JSON: 64-bit and arbitrary-precision numbers
#: as strings (no float rounding in JS), bytes as base64 (what Go's encoding/json expects);
#: everything else as ``json_build_object`` writes it (timestamps as ISO 8601 strings).
JSON_SPELLING = {"int64": "({})::text", "bigint": "({})::text", "decimal": "({})::text",
                 "bytes": "encode({}, 'base64')",
                 # RFC 3339 at UTC (what Go's time.Time reads; pgx scans date and timestamp
                 # as UTC times); the TS runner cuts them back to the type's own form.
                 "cal::local_date": "to_char({}, 'YYYY-MM-DD\"T00:00:00Z\"')",
                 "cal::local_datetime": "to_char({}, 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"}


def _json_value(sql: str, vtype: ValueType, span: Span, ctx: ExprContext) -> Optional[str]:
    """``sql`` spelled for a nested shape's JSON (:data:`JSON_SPELLING`), or ``None`` after
    reporting a type that cannot travel in JSON yet (:data:`schemac.scalars.NOT_IN_JSON`)."""
    elem = vtype.element if vtype.element is not None else vtype
    name = elem.scalar.name if elem.scalar is not None else None
    if is_vector(elem.scalar) or range_kind(elem.scalar) or name in NOT_IN_JSON or (vtype.element is not None and name in JSON_SPELLING and name.startswith("cal::")):
        ctx.reporter.error("E0206", f"a {vtype.name} value inside a nested shape is not supported yet", span,
                           "select it at the top level of a query (nested shapes travel as JSON, which the "
                           "Go runner cannot decode into this type)")
        return None
    if vtype.element is None and name in JSON_SPELLING:
        return JSON_SPELLING[name].format(sql)  # type: ignore[index]
    return sql

#: Deepest nesting of shapes.
MAX_SHAPE_DEPTH = 4


def _join_table(link, ctx: ExprContext) -> Optional[ObjectType]:
    """The join table of a multi link, as a type whose columns are its link properties."""
    return next((t for t in ctx.schema.join_tables if t.table == link.join_table), None)


def _shape(shape, subject: ObjectType, alias: str, ctx: ExprContext, depth: int,
           link_props: Optional[Tuple[str, ObjectType, str]] = None,
           written: Tuple[str, ...] = ()) -> List[Tuple[str, ResultField]]:
    """``[(SQL, field)]`` for a shape over ``subject`` (rows named ``alias``). A single link with
    a sub-shape is a correlated sub-select building one JSON object; a multi link one building a
    JSON array (``json_agg``, ordered by the target's id). A top-level ``link: { id }`` is just the
    FK column. All of it stays one SQL statement.

    ``link_props``: inside a multi link's shape, (link name, join table, its alias in the
    sub-select): ``@prop`` reads a link property from it, as the field ``@prop``. ``written``:
    multi links the statement whose rows are selected writes; their join rows are not visible
    to the same statement, so selecting them is refused."""
    out: List[Tuple[str, ResultField]] = []
    seen: Set[str] = set()
    for el in shape:
        key = "@" + el.name if el.link_prop else el.name
        if key in seen or (go_name(key) in {go_name(k) for k in seen}):
            ctx.reporter.error("E0309", f"'{key}' appears twice in the shape" if key in seen else
                               f"'{key}' and another field of the shape have the same name in Go", el.span)
            continue
        seen.add(key)
        if el.link_prop:
            if link_props is None:
                ctx.reporter.error("E0304", f"'@{el.name}' is a link property: it can only be selected inside the "
                                   "shape of a multi link", el.span, f"write e.g. tags: {{ name, @{el.name} }}")
                continue
            link_name, join_type, join_alias = link_props
            col = join_type.column(el.name)
            if col is None or col.name in ("source_id", "target_id"):
                props = [c.name for c in join_type.columns if c.name not in ("source_id", "target_id")]
                ctx.reporter.error("E0302", f"link '{link_name}' has no property '{el.name}'", el.span,
                                   did_you_mean(el.name, props) or
                                   (f"its link properties: {', '.join(props)}" if props else
                                    f"'{link_name}' declares no link properties"))
                continue
            sql = _json_value(f"{join_alias}.{qi(col.name)}", col.type, el.span, ctx)
            if sql is None:
                continue
            out.append((sql, ResultField(key, col.type, not col.required, in_json=True)))
            continue
        link = subject.links.get(el.name)
        if link is not None:
            if el.shape is None:
                ctx.reporter.error("E0304", f"'{el.name}' is a link: give it a shape", el.span,
                                   f"write {el.name}: {{ id }} or {el.name}: {{ <properties> }}")
                continue
            if depth == 0 and not link.multi and [e.name for e in el.shape] == ["id"]:
                col = subject.column(link.column)  # type: ignore[arg-type]
                assert col is not None
                out.append((qi(col.name), ResultField(el.name + "_id", col.type, not col.required)))
                continue
            if depth + 1 > MAX_SHAPE_DEPTH:
                ctx.reporter.error("E0206", f"shapes nested deeper than {MAX_SHAPE_DEPTH} levels are not supported",
                                   el.span)
                continue
            if link.multi and el.name in written:
                ctx.reporter.error("E0206", f"selecting the multi link '{el.name}' that the same statement writes is "
                                   "not supported yet", el.span,
                                   "its new links are not visible to the statement; select them in a second query")
                continue
            inner_alias = qi(f"_s{depth + 1}")
            join = qi(f"_j{depth + 1}")
            props = None
            if link.multi:
                join_type = _join_table(link, ctx)
                if join_type is not None:
                    props = (el.name, join_type, join)
            inner = _shape(el.shape, link.target, inner_alias, ctx, depth + 1, props)
            obj = "json_build_object(" + ", ".join(
                f"{sql_string(f.name)}, {sql}" for sql, f in inner) + ")"
            nested = tuple(f for _, f in inner)
            target = qi(link.target.table)
            visible = policies.read_predicate(link.target, ctx, inner_alias)
            visible = f" AND {visible}" if visible is not None else ""
            if link.multi:
                sql = (f"(SELECT coalesce(json_agg({obj} ORDER BY {inner_alias}.\"id\"), '[]'::json) "
                       f"FROM {qi(link.join_table)} AS {join} JOIN {target} AS {inner_alias} "  # type: ignore[arg-type]
                       f"ON {inner_alias}.\"id\" = {join}.\"target_id\" WHERE {join}.\"source_id\" = {alias}.\"id\"{visible})")
                out.append((sql, ResultField(el.name, None, False, nested, True, depth > 0)))
            else:
                sql = (f"(SELECT {obj} FROM {target} AS {inner_alias} "
                       f"WHERE {inner_alias}.\"id\" = {alias}.{qi(link.column)}{visible})")  # type: ignore[arg-type]
                out.append((sql, ResultField(el.name, None, not link.required, nested, False, depth > 0)))
            continue
        comp = subject.computeds.get(el.name)
        if comp is not None:
            picked = _computed_element(el, comp, subject, alias, ctx, depth)
            if picked is not None:
                out.append(picked)
            continue
        if el.shape is not None:
            ctx.reporter.error("E0304", f"'{el.name}' is not a link: it takes no shape", el.span)
            continue
        col = subject.column(el.name)
        if col is None or col.link is not None:
            ctx.reporter.error("E0302", f"type '{subject.name}' has no property '{el.name}'", el.span,
                               did_you_mean(el.name, [c.name for c in subject.columns if c.link is None]
                                            + list(subject.links)))
            continue
        sql = f"{alias}.{qi(col.name)}" if depth > 0 else qi(col.name)
        if depth > 0:
            sql = _json_value(sql, col.type, el.span, ctx)
            if sql is None:
                continue
        out.append((sql, ResultField(col.name, col.type, not col.required, in_json=depth > 0)))
    return out


def _computed_element(el: ast.ShapeElement, comp, subject: ObjectType, alias: str, ctx: ExprContext,
                      depth: int) -> Optional[Tuple[str, ResultField]]:
    """A computed property or link in a shape (https://docs.geldata.com/reference/datamodel/computeds):
    its expression inlined (a property), or its objects as a JSON object / list built by a
    correlated sub-select like a stored link's (a backlink or computed link)."""
    scope = dataclasses.replace(ctx, subject=subject, column_prefix=alias if depth > 0 else None)
    if comp.target is None:
        if el.shape is not None:
            ctx.reporter.error("E0304", f"'{el.name}' is a computed property: it takes no shape", el.span)
            return None
        low = lower(ast.Path((el.name,), el.span), scope)
        if low is None:
            return None
        sql = low.sql
        if depth > 0 and low.type.scalar is not None and low.type.scalar.name in JSON_SPELLING:
            sql = JSON_SPELLING[low.type.scalar.name].format(sql)
        return sql, ResultField(el.name, low.type, low.nullable, in_json=depth > 0)
    if el.shape is None:
        ctx.reporter.error("E0304", f"'{el.name}' is a computed link: give it a shape", el.span,
                           f"write {el.name}: {{ id }} or {el.name}: {{ <properties> }}")
        return None
    if depth + 1 > MAX_SHAPE_DEPTH:
        ctx.reporter.error("E0206", f"shapes nested deeper than {MAX_SHAPE_DEPTH} levels are not supported", el.span)
        return None
    inner_alias = qi(f"_s{depth + 1}")
    scope.column_prefix = alias
    found = computed_sql.object_set(comp, scope, inner_alias)
    if found is None:
        return None
    from_where, target, multi = found
    inner = _shape(el.shape, target, inner_alias, ctx, depth + 1)
    obj = "json_build_object(" + ", ".join(f"{sql_string(f.name)}, {sql}" for sql, f in inner) + ")"
    nested = tuple(f for _, f in inner)
    if multi:
        sql = f"(SELECT coalesce(json_agg({obj} ORDER BY {inner_alias}.\"id\"), '[]'::json) {from_where})"
        return sql, ResultField(el.name, None, False, nested, True, depth > 0)
    return f"(SELECT {obj} {from_where})", ResultField(el.name, None, True, nested, False, depth > 0)


def _select_dml(qf: ast.QueryFile, q: ast.SelectDml, subject: ObjectType, ctx: ExprContext) -> Optional[QueryPlan]:
    """``select (update ...) { a, b, link: { id } }``: the statement's ``RETURNING`` lists the
    shape. A shape with nested links selects from the written rows instead, as
    ``with p := (update ...) select p { ... }`` does."""
    body = q.body
    w = _write_of(body, subject, ctx)
    if w is None:
        return None
    shape = q.shape if q.shape is not None else (ast.ShapeElement("id", None, q.span),)
    picked = _shape(shape, subject, qi(subject.table), ctx, depth=0, written=w.written_links)
    if ctx.reporter.has_errors:
        return None
    if any(f.shape is not None for _, f in picked) and w.check is not None:
        ctx.reporter.error("E0206", f"a nested shape over a write of '{subject.name}', which has access policies, is "
                           "not supported yet", q.span, "select the written objects in a second query")
        return None
    if any(f.shape is not None for _, f in picked):
        sel = ast.SelectQuery(subject.name, q.span, shape, None, (), None, None, q.span)
        plan = _select(qf, sel, subject, ctx, ("_new", w))
        if plan is None:
            return None
        ctes = [("_new", w.statement("*"))] + [(f"_link{i}", link('"_new"')) for i, link in enumerate(w.links, 1)]
        return dataclasses.replace(plan, sql=_render_ctes(ctes, plan.sql))
    columns = [sql if sql == qi(f.name) else f"{sql} AS {qi(f.name)}" for sql, f in picked]
    fields = tuple(f for _, f in picked)
    sql = _write_sql(w, columns, [f.name for f in fields])
    return QueryPlan(qf.name, qf.path, w.kind, subject, sql, tuple(ctx.params.ordered()), fields,  # type: ignore[union-attr]
                     w.cardinality, w.exclusives, qf.doc)


def _with(qf: ast.QueryFile, q: ast.WithQuery, schema: Schema, reporter: Reporter) -> Optional[QueryPlan]:
    """``with x := <expr>, p := (insert ...) <query>`` -> one statement with CTEs.

    A binding to a parameter or a constant is that value, written where it is used (a
    parameter is bound once, however often it is used); any other expression is computed once,
    in a CTE ``"_with_x"`` read by a scalar sub-select. A binding to an insert, update or
    delete is the CTE ``"_with_p"`` (``RETURNING *``, followed by its join-table writes):
    Postgres runs it exactly once even when nothing reads it, and ``select p { ... }`` selects
    its rows with any shape."""
    params = ParamTable()
    ctx = ExprContext(schema, None, "default", reporter, params=params, where="a query")
    ctes: List[Tuple[str, str]] = []
    writes: Dict[str, _Write] = {}
    exclusives: List[ExclusiveConstraint] = []
    seen: Set[str] = set()
    for b in q.bindings:
        if b.name in seen:
            reporter.error("E0309", f"'{b.name}' is bound twice", b.name_span)
            continue
        seen.add(b.name)
        value = b.value
        if isinstance(value, (ast.InsertQuery, ast.UpdateQuery, ast.DeleteQuery)):
            subject = schema.find_type(value.type_name)
            if subject is None:
                reporter.error("E0301", f"unknown type '{value.type_name}'", value.type_span,
                               did_you_mean(value.type_name.split("::")[-1], [t.name for t in schema.all_types()]))
                continue
            w = _write_of(value, subject, dataclasses.replace(ctx, subject=subject))
            if w is None:
                continue
            if w.check is not None:
                reporter.error("E0206", f"binding a write of '{subject.name}', which has access policies, in 'with' is "
                               "not supported yet", b.value.span, "run the write as a query of its own")
                continue
            name = f"_with_{b.name}"
            writes[b.name] = w
            exclusives.extend(w.exclusives)
            ctes.append((name, w.statement("*")))
            ctes += [(f"{name}_link{i}", link(qi(name))) for i, link in enumerate(w.links, 1)]
            ctx.bound_statements[b.name] = f"{'an' if w.kind in ('insert', 'update') else 'a'} {w.kind} of " \
                                           f"'{subject.name}'"
            continue
        low = lower(value, ctx)
        if low is None:
            continue
        constant = isinstance(value, (ast.Literal, ast.EnumRef, ast.VarRef)) or low.is_param
        if constant:
            ctx.variables[b.name] = Lowered(param_sql(low) if low.is_param else low.sql, low.type, low.nullable,
                                            low.atomic, is_param=False)
        else:
            name = f"_with_{b.name}"
            ctes.append((name, f'SELECT {low.sql} AS "v"'))
            ctx.variables[b.name] = Lowered(f'(SELECT "v" FROM {qi(name)})', low.type, low.nullable)
    if reporter.has_errors:
        return None
    body = q.body
    if isinstance(body, ast.SelectQuery) and body.type_name in writes:
        w = writes[body.type_name]
        plan = _select(qf, body, w.subject, dataclasses.replace(ctx, subject=w.subject),
                       (f"_with_{body.type_name}", w))
    elif isinstance(body, ast.SelectQuery) and body.type_name in ctx.variables:
        reporter.error("E0206", f"selecting a value ('{body.type_name}') is not supported yet", body.type_span,
                       "select a type, or a bound statement: with p := (insert ...) select p { ... }")
        return None
    else:
        subject = schema.find_type(body.type_name)
        if subject is None:
            reporter.error("E0301", f"unknown type '{body.type_name}'", body.type_span,
                           did_you_mean(body.type_name.split("::")[-1], [t.name for t in schema.all_types()]
                                        + list(writes)))
            return None
        inner = dataclasses.replace(qf, query=body)
        plan = _plan_body(inner, body, subject, dataclasses.replace(ctx, subject=subject))
    if plan is None or reporter.has_errors:
        return None
    sql = plan.sql
    if ctes:
        head = ",\n".join(f"{qi(n)} AS (\n{text}\n)" for n, text in ctes)
        sql = f"WITH {head},\n{sql[len('WITH '):]}" if sql.startswith("WITH ") else f"WITH {head}\n{sql}"
    for p in plan.params:
        if not re.search(rf"\${p.index}(?![0-9])", sql):
            reporter.error("E0304", f"parameter ${p.name} is never used", p.span,
                           "use the name it is bound to, or drop the binding")
            return None
    all_exclusives = tuple(dict.fromkeys(tuple(exclusives) + plan.exclusives))
    return dataclasses.replace(plan, sql=sql, exclusives=all_exclusives, doc=qf.doc)


def _plan_body(qf: ast.QueryFile, q, subject: ObjectType, ctx: ExprContext) -> Optional[QueryPlan]:
    """Lower a query (not ``with``) in the scope ``ctx`` of a with block."""
    if isinstance(q, ast.InsertQuery):
        return _insert(qf, q, subject, ctx)
    if isinstance(q, ast.UpdateQuery):
        return _update(qf, q, subject, ctx)
    if isinstance(q, ast.SelectQuery):
        return _select(qf, q, subject, ctx)
    if isinstance(q, ast.ForQuery):
        return _for(qf, q, subject, ctx)
    if isinstance(q, ast.SelectDml):
        return _select_dml(qf, q, subject, ctx)
    return _delete(qf, q, subject, ctx)


def _delete(qf: ast.QueryFile, q: ast.DeleteQuery, subject: ObjectType, ctx: ExprContext) -> Optional[QueryPlan]:
    w = _delete_write(q, subject, ctx)
    if w is None:
        return None
    return _plan(qf, "delete", subject, _write_sql(w, ['"id"'], ["id"]), ctx, w.cardinality, ())


def _delete_write(q: ast.DeleteQuery, subject: ObjectType, ctx: ExprContext) -> Optional[_Write]:
    where, cardinality = _where(q.filter, subject, ctx)
    where = _with_policy(where, policies.read_predicate(subject, ctx, None, "delete"))
    if ctx.reporter.has_errors:
        return None
    sql = f"DELETE FROM {qi(subject.table)}{where}"
    return _Write("delete", subject, lambda cols: f"{sql}\nRETURNING {cols}", [], cardinality, ())


def _write_of(q, subject: ObjectType, ctx: ExprContext) -> Optional[_Write]:
    if isinstance(q, ast.InsertQuery):
        return _insert_write(q, subject, ctx)
    if isinstance(q, ast.UpdateQuery):
        return _update_write(q, subject, ctx)
    return _delete_write(q, subject, ctx)


def _plan(qf: ast.QueryFile, kind: str, subject: ObjectType, sql: str, ctx: ExprContext,
          cardinality: str, exclusives: Tuple[ExclusiveConstraint, ...],
          result: Optional[Tuple[ResultField, ...]] = None) -> QueryPlan:
    if result is None:
        id_col = subject.column("id")
        assert id_col is not None
        result = (ResultField("id", id_col.type, False),)
    return QueryPlan(qf.name, qf.path, kind, subject, sql, tuple(ctx.params.ordered()), result,  # type: ignore[union-attr]
                     cardinality, exclusives, qf.doc)


# The frozen dataclasses above are created in bulk: give them the faster __init__.
fast_init_all(globals())
