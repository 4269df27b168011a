"""Gel's mutation rewrites and source deletion policies, lowered to Postgres triggers.

Both change what a write does to rows other than the ones it names, so they live in the
database (created and dropped by the migrations, see :mod:`schemac.migrate.diff`) and hold for
every writer of the tables, not only for the generated runners. Each trigger runs a PL/pgSQL
function of its own (:class:`schemac.semantics.model.Trigger`).

**Mutation rewrites** (https://docs.geldata.com/reference/datamodel/mutation_rewrites):
``rewrite insert, update using (expr)`` on a property sets the property to ``expr`` whenever an
object is inserted (updated), whatever the statement gave it. Lowered to one ``BEFORE INSERT``
and one ``BEFORE UPDATE`` row trigger per table, named ``schemac_rewrite_insert`` /
``schemac_rewrite_update``, that assign every rewritten column of the row (``NEW``). The
expression is lowered like a default, with the row being written as its subject: ``.title``
reads the value the statement wrote (``NEW."title"``). Every rewrite of a row is computed from
the row as the statement wrote it, before any rewrite is applied (one ``SELECT ... INTO``), as
Gel evaluates them all against the same ``__subject__``. ``datetime_of_statement()`` is
``statement_timestamp()``: the same value for every row of one statement, as in Gel.

**Source deletion policies** (https://docs.geldata.com/reference/datamodel/links#deletion-policies):
``on source delete delete target`` deletes the link's targets when its source object is
deleted; ``... delete target if orphan`` only the targets that no other object still links to
through the same link (the link of every type that inherits the declaration); ``allow`` (the
default) only removes the link. A single link gets an ``AFTER DELETE`` row trigger on its
table (``schemac_source_delete_<link>``), which deletes the target its FK column named. A
multi link gets one on its join table, which Postgres empties by the source FK's ``ON DELETE
CASCADE``: a join row whose source no longer exists was removed with its source (a link removed
by an update leaves its source in place, and its target alone), so its target is deleted. The
target's own deletion policies then apply as in Gel: a target another object still links to
with ``on target delete restrict`` (the default) stops the delete with a foreign key violation.

**Target deletion of multi links**: ``on target delete delete source`` on a multi link deletes
the objects linking to a deleted target (a single link's is its foreign key's ``ON DELETE
CASCADE``): :func:`target_delete_source`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from typing import Dict, List, Optional, Tuple

from schemac.syntax import tree as ast
from schemac.diagnostics import Reporter
from schemac.semantics.exprs import ExprContext, lower
from schemac.semantics.e_types import BOOL
from schemac.semantics.lowering import ELSE_SELECT_SETTING
from schemac.semantics.model import ObjectType, PolyLink, Schema, Trigger
from schemac.semantics.sqlnames import object_name, qi, sql_string

#: Trigger names are per table; Postgres fires the triggers of one event in name order.
REWRITE_TRIGGER = "schemac_rewrite_{kind}"
#: (sorts before ``schemac_rewrite_insert``: Postgres fires it first)
DEFAULT_TRIGGER = "schemac_default"
SOURCE_DELETE_TRIGGER = "schemac_source_delete"
TARGET_DELETE_TRIGGER = "schemac_target_delete"
#: (sorts before ``schemac_rewrite_update``: Postgres fires it first)
SPECIFIED_TRIGGER = "schemac_0_specified"

def else_select_when(table: str) -> str:
    """The ``WHEN`` condition of every row trigger on ``UPDATE`` of ``table`` (update rewrites,
    Gel triggers ``after update for each``): false while a get-or-insert returns an existing row
    of the table. In Gel the else branch of ``unless conflict`` is a select: nothing is updated,
    so no update rewrite runs and no update trigger fires
    (https://docs.geldata.com/reference/edgeql/insert#upserts,
    https://docs.geldata.com/reference/datamodel/mutation_rewrites). Postgres evaluates a
    ``BEFORE`` trigger's ``WHEN`` just before it would call the function and an ``AFTER`` row
    trigger's just after the row is written, deciding then whether to queue it
    (https://www.postgresql.org/docs/15/sql-createtrigger.html): both before the row's
    ``RETURNING``, which clears the setting. The condition reads no row, so it is valid for a
    trigger on several events (``INSERT OR UPDATE``)."""
    return f"current_setting({sql_string(ELSE_SELECT_SETTING)}, true) IS DISTINCT FROM {sql_string(table)}"


def build_triggers(schema: Schema, types: Dict[str, Tuple[ObjectType, Dict[str, object]]], reporter: Reporter,
                   gel_triggers: Optional[Dict[str, List[Tuple[object, str]]]] = None) -> None:
    """Add the triggers of every concrete type (``types``: qualified name -> (its table, its
    effective pointers as :class:`schemac.semantics.resolve._Pointer`)) to ``schema``'s tables;
    ``gel_triggers``: qualified name -> the Gel triggers it has (its own and inherited ones,
    with the module each is written in)."""
    holders: Dict[int, List[Tuple[ObjectType, object]]] = {}
    for obj, pointers in types.values():
        for ptr in pointers.values():
            link = obj.links.get(ptr.decl.name) or obj.poly_links.get(ptr.decl.name)  # type: ignore[attr-defined]
            if link is not None:
                holders.setdefault(id(ptr.decl), []).append((obj, link))  # type: ignore[attr-defined]
    for obj, pointers in types.values():
        if obj.library is not None:
            continue  # a dependency library's table: its own migrations create its triggers
        _row_defaults(obj)
        _rewrites(schema, obj, pointers, reporter)
        for ptr in pointers.values():
            if ptr.on_source_delete is not None:  # type: ignore[attr-defined]
                _source_delete(schema, obj, ptr, holders.get(id(ptr.decl), []), reporter)  # type: ignore[attr-defined]
    reported = set()
    for key, (obj, _) in types.items():
        if obj.library is not None:
            continue
        for trig, module in (gel_triggers or {}).get(key, ()):
            # (a trigger of an abstract type is checked for each subtype, reported once)
            _gel_trigger(schema, obj, trig, module, Reporter() if id(trig) in reported else reporter)  # type: ignore[arg-type]
            reported.add(id(trig))


# --------------------------------------------------------------------- row-reading defaults
def _row_defaults(obj: ObjectType) -> None:
    """The defaults that read other properties of the object
    (:attr:`schemac.semantics.model.Column.row_default_sql`, https://docs.geldata.com/reference/datamodel/properties#default-values):
    one ``BEFORE INSERT`` row trigger of the table, ``schemac_default`` (fired before the
    rewrites, by name order, as Gel applies the defaults before the rewrites), that sets each
    such column the insert left empty, in declaration order, from the row as it was written."""
    lines = [f"IF NEW.{qi(c.name)} IS NULL THEN\n  NEW.{qi(c.name)} := {c.row_default_sql};\nEND IF;"
             for c in obj.columns if c.row_default_sql is not None]
    if lines:
        obj.triggers.append(Trigger(DEFAULT_TRIGGER, object_name("df", obj.table, []), "BEFORE", ("INSERT",), "ROW",
                                    "\n".join(lines) + "\nRETURN NEW;"))


# ------------------------------------------------------------------------------- rewrites
def _rewrites(schema: Schema, obj: ObjectType, pointers: Dict[str, object], reporter: Reporter) -> None:
    assigned: Dict[str, List[Tuple[str, str]]] = {"insert": [], "update": []}
    specified: Dict[str, str] = {}  # column -> the setting its marker trigger sets
    for ptr in pointers.values():
        rewrites: List[Tuple[ast.RewriteDecl, str]] = ptr.rewrites  # type: ignore[attr-defined]
        if not rewrites:
            continue
        decl: ast.PointerDecl = ptr.decl  # type: ignore[attr-defined]
        seen: Dict[str, ast.RewriteDecl] = {}
        ok = True
        for rw, _ in rewrites:
            for kind in rw.kinds:
                if kind in seen:
                    reporter.error("E0200", f"'{decl.name}' has two {kind} rewrites", rw.span,
                                   "a property has at most one insert and one update rewrite "
                                   "(one rule may cover both: rewrite insert, update using (...))")
                    ok = False
                seen[kind] = rw
        if not ok:
            continue
        if decl.name in obj.links:
            reporter.error("E0206", f"a rewrite of link '{decl.name}' is not supported yet", rewrites[0][0].span,
                           "rewrite a property (e.g. the id of the object, in a uuid property)")
            continue
        col = obj.column(decl.name)
        if col is None:
            continue  # not stored (reported where it is declared)
        if decl.multi:
            reporter.error("E0206", f"a rewrite of multi property '{decl.name}' is not supported yet",
                           rewrites[0][0].span, "rewrite an array<...> property instead")
            continue
        kinds: List[str] = []
        for rw, module in rewrites:
            for kind in rw.kinds:
                ctx = ExprContext(schema, obj, module, reporter, where=f"an {kind} rewrite", column_prefix="NEW",
                                  row_ref_subject=obj, row_refs={"__subject__": "NEW", **({"__old__": "OLD"} if kind == "update" else {})},
                                  specified=_specified(obj, specified, reporter) if kind == "update" else None)
                low = lower(rw.expr, ctx, col.type)
                if low is None:
                    break  # (reported once, not once per kind)
                if low.type.family != col.type.family:
                    reporter.error("E0204", f"the rewrite of '{decl.name}' is {low.type.name}, but the property is "
                                   f"{col.type.name}", rw.expr.span)
                    break
                if kind not in kinds:
                    kinds.append(kind)
                assigned[kind].append((col.name, low.sql))
        if kinds:
            i = next(i for i, c in enumerate(obj.columns) if c is col)
            obj.columns[i] = dataclasses.replace(col, rewrites=tuple(k for k in ("insert", "update") if k in kinds))
    for col_name in sorted(specified):
        obj.triggers.append(Trigger(
            object_name(SPECIFIED_TRIGGER, col_name, []), object_name("sp", obj.table, [col_name]), "BEFORE",
            (f"UPDATE OF {qi(col_name)}",), "ROW",
            f"PERFORM set_config({sql_string(specified[col_name])}, 'on', true);\nRETURN NEW;"))
    for kind in ("insert", "update"):
        cols = assigned[kind]
        if not cols:
            continue
        if len(cols) == 1:
            assign = f"NEW.{qi(cols[0][0])} := {cols[0][1]};"
        else:
            # All from the row as written: the first assignment must not be seen by the next.
            values = ",\n       ".join(sql for _, sql in cols)
            targets = ", ".join(f"NEW.{qi(name)}" for name, _ in cols)
            assign = f"SELECT {values}\n  INTO {targets};"
        if kind == "update":
            # The markers of this row are read: clear them for the next row.
            assign += "".join(f"\nPERFORM set_config({sql_string(specified[c])}, '', true);" for c in sorted(specified))
        obj.triggers.append(Trigger(REWRITE_TRIGGER.format(kind=kind), object_name("rw", obj.table, [kind]),
                                    "BEFORE", (kind.upper(),), "ROW", f"{assign}\nRETURN NEW;",
                                    else_select_when(obj.table) if kind == "update" else None))


def _specified(obj: ObjectType, specified: Dict[str, str], reporter: Reporter):
    """``__specified__.name`` in an update rewrite: whether the UPDATE statement names the
    column. Postgres tells a trigger that only through ``UPDATE OF column``: a ``BEFORE UPDATE
    OF "col"`` row trigger (``schemac_0_specified_<col>``, fired before the rewrite trigger by
    name order) sets a transaction-local setting that the rewrite reads and clears, row by
    row. Gives the name of the column's setting (the lowering reads it, see
    ``schemac.pgsql.calls_expr``), ``None`` after reporting."""
    def setting(name: str, span) -> Optional[str]:
        link = obj.links.get(name)
        if link is not None and link.multi:
            reporter.error("E0206", f"__specified__.{name} of a multi link is not supported", span,
                           "Postgres tells a trigger which columns an UPDATE names; a multi link is a table")
            return None
        col = obj.column(link.column if link is not None else name)  # type: ignore[arg-type]
        if col is None or col.is_id:
            reporter.error("E0202", f"type '{obj.name}' has no property '{name}'", span)
            return None
        key = f"{obj.table}__{col.name}"
        if not re.match(r"^[a-z_][a-z0-9_]*$", key) or len(key) > 50:
            key = "c" + hashlib.sha256(key.encode()).hexdigest()[:16]
        specified[col.name] = f"schemac.specified_{key}"
        return specified[col.name]
    return setting


# --------------------------------------------------------------------------- Gel triggers
def _gel_trigger(schema: Schema, obj: ObjectType, trig: ast.TriggerDecl, module: str, reporter: Reporter) -> bool:
    """``trigger name after insert, update, delete for each|all [when (cond)] do (body)``
    (https://docs.geldata.com/reference/datamodel/triggers): an ``AFTER`` row trigger of each
    concrete table of the type (``for all``: a statement trigger, when nothing reads
    ``__new__``/``__old__``), whose function runs the body for the row (``__new__`` is ``NEW``,
    ``__old__`` is ``OLD``), when ``cond`` holds. The body is one statement or a set of them,
    ``{(insert ...), (update ...)}``, run in order: ``insert T {...}``, ``update T filter ... set
    {...}``, ``delete T filter ...`` and ``assert(cond, message := '...')`` (an exception when
    ``cond`` is false, which undoes the statement that fired it). Other bodies, ``after commit
    of`` and ``for all`` bodies that read the rows are refused (``E0206``)."""
    if trig.commit:
        reporter.error("E0206", "'after commit of' triggers are not supported", trig.span,
                       "Postgres runs triggers inside the transaction; drop 'commit of' to run it before the commit")
        return False
    kinds = tuple(k for k in ("insert", "update", "delete") if k in trig.kinds)
    refs: Dict[str, str] = {}
    if "delete" not in kinds:
        refs["__new__"] = "NEW"
    if "insert" not in kinds:
        refs["__old__"] = "OLD"
    statements = _trigger_statements(trig.body)
    service = _gel_service_use(trig.body, schema, module)
    if service is not None:
        name, span, what = service
        reporter.error("E0206", f"trigger '{trig.name}' calls '{name}', {what}", span,
                       "Gel's server sends those requests after the commit; a Postgres trigger cannot: "
                       "have the application send them, or poll a table the trigger writes")
        return False
    if statements is None:
        reporter.error("E0206", "trigger bodies other than insert, update, delete or assert() statements are not "
                       "supported yet", trig.body.span,
                       "write the trigger as do (insert Log { ... }), or a set of such statements {(...), (...)}")
        return False
    exprs: List[object] = [trig.when] if trig.when is not None else []
    for stmt in statements:
        if isinstance(stmt, _Loop):
            exprs.append(stmt.source)
            stmt = stmt.stmt
        if isinstance(stmt, ast.FuncCall):
            exprs.append(stmt)
            continue
        exprs += [a.value for a in getattr(stmt, "assignments", ())]
        exprs += [stmt.filter] if getattr(stmt, "filter", None) is not None else []
    nodes = [n for e in exprs for n in ast.iter_nodes(e)]
    reads_rows = any(isinstance(n, (ast.VarRef, ast.Step)) and _root_name(n) in ("__new__", "__old__") for n in nodes)
    if trig.scope == "all" and (reads_rows or trig.when is not None):
        reporter.error("E0206", "'for all' triggers that read __new__, __old__ or have 'when' are not supported yet",
                       trig.span, "use 'for each': it runs once per object")
        return False
    # row_ref_subject: inside a sub-select (select Log filter .msg = __new__.name) the subject
    # is Log, while __new__ / __old__ stay objects of the trigger's type.
    ctx = ExprContext(schema, obj, module, reporter, where="a trigger", row_refs=refs, row_ref_subject=obj,
                      column_prefix=refs.get("__new__", "OLD"), trigger_globals=schema.trigger_globals)
    ctx.row_json = lambda shaped: _row_json(obj, shaped, refs, module, reporter, schema)
    parts: List[str] = []
    ok = True
    for stmt in statements:
        loop = None
        if isinstance(stmt, _Loop):
            loop = _loop_rows(stmt, ctx, reporter)
            if loop is None:
                ok = False
                continue
            stmt = stmt.stmt
        if isinstance(stmt, ast.InsertQuery):
            sctx = ctx if loop is None else dataclasses.replace(ctx, variables=loop[1])
            sql = _trigger_insert(schema, obj, stmt, sctx, refs, kinds, module, reporter,
                                  None if loop is None else loop[0])
        elif isinstance(stmt, (ast.UpdateQuery, ast.DeleteQuery)):
            sql = _trigger_write(schema, obj, stmt, refs, kinds, module, reporter, loop)
        else:
            sql = _trigger_assert(_row_paths(stmt, refs), ctx, reporter)
        if sql is None:
            ok = False
        else:
            parts.append(sql)
    cond = None
    if trig.when is not None:
        from schemac.semantics import policies

        low = lower(_row_paths(trig.when, refs), policies.not_applied(ctx), BOOL)
        if low is None:
            ok = False
        elif low.type.family != "bool":
            reporter.error("E0304", f"a trigger's 'when' must be bool, got {low.type.name}", trig.when.span)
            ok = False
        else:
            cond = low.sql
    if not ok:
        return False
    body = "\n".join(parts)
    if cond is not None:
        body = f"IF {cond} THEN\n  " + body.replace("\n", "\n  ") + "\nEND IF;"
    row = trig.scope == "each"
    obj.triggers.append(Trigger(object_name("gel", trig.name, []),
                                object_name("tg", obj.table, [trig.name]), "AFTER", tuple(k.upper() for k in kinds),
                                "ROW" if row else "STATEMENT", f"{body}\nRETURN NULL;",
                                else_select_when(obj.table) if row and "update" in kinds else None))
    return True


def _gel_service_use(body, schema: Schema, module: str, depth: int = 0) -> Optional[Tuple[str, object, str]]:
    """``(name, span, why)`` of the first call in ``body`` of a function of a module that is a
    service of the Gel server (``net::http::schedule_request``: Gel sends the HTTP request
    after the commit, https://docs.geldata.com/reference/stdlib/net), also through a user
    function whose body or result type uses one; ``None`` when there is none."""
    from schemac.semantics.exprs import GEL_STD_SERVICE_MODULES

    for n in ast.walk_syntax(body):
        if not isinstance(n, ast.FuncCall):
            continue
        mod = n.name.rpartition("::")[0]
        mod = mod[5:] if mod.startswith("std::") else mod
        if mod in GEL_STD_SERVICE_MODULES and mod not in schema.modules:
            return (f"{n.name}()", n.span, f"a function of Gel's '{mod}' module, {GEL_STD_SERVICE_MODULES[mod]}")
        fn = schema.find(n.name, module, schema.functions) if depth < 8 else None
        if fn is not None and getattr(fn, "body", None) is not None:
            found = _gel_service_use(fn.body, schema, fn.module, depth + 1)  # type: ignore[attr-defined]
            if found is not None:
                return (f"{n.name}()", n.span, f"which calls {found[0]}, {found[2]}")
    return None


def _row_json(obj: ObjectType, shaped: ast.ShapeExpr, refs: Dict[str, str], module: str, reporter: Reporter,
              schema: Schema):
    """``<json>__new__ {**}`` (``__old__``, any shape) in a trigger: the object as a JSON
    object of its shape, as Gel casts an object with a shape to json
    (https://docs.geldata.com/reference/stdlib/json): ``{**}`` is every property (``id``
    first), every link with its target's properties (``null`` / ``[]`` when empty) and the
    computed ones (https://docs.geldata.com/reference/edgeql/select#splats). Built like a
    query's nested shape over the trigger's row (``NEW`` / ``OLD``), with Gel's JSON spelling
    of each value (numbers as numbers); ``jsonb``. Access policies do not apply in a trigger."""
    from schemac.semantics import policies, qir
    from schemac.semantics.model import ValueType
    from schemac.semantics.q_shapes import _shape
    from schemac.semantics.scalars import SCALARS

    root = shaped.base.name  # type: ignore[attr-defined]
    record = refs.get(root)
    if record is None:
        reporter.error("E0206", f"{root} is not available in a trigger on this event", shaped.span)
        return None
    ctx = ExprContext(schema, obj, module, reporter, where="a trigger", row_refs=refs, row_ref_subject=obj,
                      column_prefix=record, trigger_globals=schema.trigger_globals)
    before = len(reporter.diagnostics)
    elements = _shape(shaped.shape, obj, record, policies.not_applied(ctx), 1)
    if len(reporter.diagnostics) != before:
        return None
    # (the checked shape over the row named `record`; schemac.pgsql.calls_std builds its JSON)
    return qir.Call(shaped.span, ValueType(scalar=SCALARS["json"]), False, "row_json", (), (tuple(elements), record))


_WRITE_STATEMENTS = (ast.InsertQuery, ast.UpdateQuery, ast.DeleteQuery)


@dataclasses.dataclass(frozen=True)
class _Loop:
    """``for x in <source> union (<insert | update | delete>)`` in a trigger's body."""

    var: str
    var_span: object
    source: object
    stmt: object
    span: object


def _loop_rows(loop: _Loop, ctx: ExprContext, reporter: Reporter) -> Optional[Tuple[str, Dict[str, object]]]:
    """``(FROM item, variables)`` of a trigger's ``for`` loop
    (https://docs.geldata.com/reference/edgeql/for): ``array_unpack(arr)`` is ``unnest(arr) AS
    "_loop"("x")`` (none for an empty or empty array), a set literal ``{a, b}`` is ``(VALUES
    (a), (b)) AS "_loop"("x")``; the loop's statement runs once for all its elements
    (``INSERT ... SELECT ... FROM``, ``UPDATE ... FROM``, ``DELETE ... USING``)."""
    from schemac.semantics import qir

    src = loop.source
    # (named apart from the written table's columns, which the statement reads unqualified)
    alias = f'"_loop"({qi("_for_" + loop.var)})'
    if isinstance(src, ast.FuncCall) and src.name in ("array_unpack", "std::array_unpack") and len(src.args) == 1:
        arr = lower(src.args[0], ctx)
        if arr is None:
            return None
        if arr.type.element is None:
            reporter.error("E0304", f"array_unpack() needs an array, got {arr.type.name}", src.args[0].span)
            return None
        elem, sql = arr.type.element, f"unnest({arr.sql}) AS {alias}"
    elif isinstance(src, ast.SetLit) and src.items:
        lowered = []
        for item in src.items:
            low = lower(item, ctx, lowered[0].type if lowered else None)
            if low is None:
                return None
            if lowered and low.type.family != lowered[0].type.family:
                reporter.error("E0304", f"the elements of the set are {lowered[0].type.name} and {low.type.name}",
                               item.span)
                return None
            lowered.append(low)
        elem = lowered[0].type
        sql = f"(VALUES {', '.join(f'(CAST({x.sql} AS {elem.pg}))' for x in lowered)}) AS {alias}"
    else:
        reporter.error("E0206", "a trigger's for loop over other than array_unpack(...) or a set literal {...} is "
                       "not supported yet", src.span)  # type: ignore[attr-defined]
        return None
    var = qir.LoopVar(loop.var, elem, "_for_" + loop.var, '"_loop"')
    return sql, {**ctx.variables, loop.var: var}


def _trigger_statements(body) -> Optional[List[object]]:
    """The statements of a trigger's body, in order: one statement, or a set literal of them
    (``{(insert ...), (update ...)}``); ``assert(...)`` also written ``select assert(...)``.
    ``None`` when the body is something else."""
    items = body.items if isinstance(body, ast.SetLit) else (body,)
    out: List[object] = []
    for item in items:
        while True:
            if isinstance(item, ast.StatementExpr):
                item = item.query
            elif isinstance(item, ast.SelectExpr) and item.shape is None and item.filter is None \
                    and not item.order and item.offset is None and item.limit is None:
                item = item.subject
            else:
                break
        if isinstance(item, (ast.ForQuery, ast.ForExpr)):
            inner = _trigger_statements(item.body)
            if inner is None or len(inner) != 1 or not isinstance(inner[0], _WRITE_STATEMENTS):
                return None
            out.append(_Loop(item.var, item.var_span, item.source, inner[0], item.span))
        elif isinstance(item, ast.InsertQuery) and item.unless_conflict is None:
            out.append(item)
        elif isinstance(item, (ast.UpdateQuery, ast.DeleteQuery)) and item.subject is None:
            out.append(item)
        elif isinstance(item, ast.FuncCall) and item.name in ("assert", "std::assert"):
            out.append(item)
        else:
            return None
    return out


#: Expressions evaluated in the scope of the expression around them (not a sub-select's, a
#: shape's or a ``with``'s): what :func:`_row_paths` looks into.
_SAME_SCOPE = (ast.UnaryOp, ast.BinOp, ast.FuncCall, ast.NamedArg, ast.Cast, ast.IfElse, ast.Index, ast.TypeFilter,
               ast.Tuple_, ast.SetLit, ast.ArrayLit)


def _row_paths(expr, refs: Dict[str, str]):
    """``expr`` (a trigger's ``when`` or ``assert(...)``, read with the triggering row as its
    subject) with each path from that row, ``__new__.following`` (``__old__.x`` in a delete
    trigger), written as the subject's path ``.following``: the same objects
    (https://docs.geldata.com/reference/datamodel/triggers), so that the forms read from the
    subject (``exists (.a intersect .b)``, ``x in .multi_link``) read them too. Inside a
    sub-select, a shape or a ``with`` (another subject) nothing changes."""
    root = "__new__" if "__new__" in refs else "__old__"

    def walk(node):
        if isinstance(node, ast.Step) and node.kind == "." and isinstance(node.base, ast.VarRef) \
                and node.base.name == root:
            return ast.Path((node.name,), node.span)
        if isinstance(node, ast.Step) and node.kind == ".":
            base = walk(node.base)
            if isinstance(base, ast.Path) and base is not node.base:
                return ast.Path(base.steps + (node.name,), node.span)
            return node if base is node.base else dataclasses.replace(node, base=base)
        if isinstance(node, ast.Step) and node.kind == ".<":
            base = walk(node.base)
            return node if base is node.base else dataclasses.replace(node, base=base)
        if not isinstance(node, _SAME_SCOPE):
            return node
        changes = {}
        for f in dataclasses.fields(node):
            v = getattr(node, f.name)
            if isinstance(v, tuple):
                new = tuple(walk(x) for x in v)
                if any(a is not b for a, b in zip(new, v)):
                    changes[f.name] = new
            elif f.name not in ("span", "type", "op", "name") and not isinstance(v, (str, type(None))):
                new = walk(v)
                if new is not v:
                    changes[f.name] = new
        return dataclasses.replace(node, **changes) if changes else node

    return walk(expr)


def _trigger_assert(call: ast.FuncCall, ctx: ExprContext, reporter: Reporter) -> Optional[str]:
    """``assert(cond, message := '...')`` (https://docs.geldata.com/reference/stdlib/generic):
    an exception (SQLSTATE P0001, with the message) when ``cond`` is false; nothing when it is
    true or empty, as in Gel."""
    args = [a for a in call.args if not isinstance(a, ast.NamedArg)]
    named = {a.name: a for a in call.args if isinstance(a, ast.NamedArg)}
    if len(args) != 1 or set(named) - {"message"}:
        reporter.error("E0304", "assert() takes a bool and an optional message := '...'", call.span)
        return None
    message = "assertion failed"
    if "message" in named:
        value = named["message"].value
        if not isinstance(value, ast.Literal) or value.kind != "str":
            reporter.error("E0206", "an assert() message other than a string literal is not supported in a trigger",
                           value.span)
            return None
        message = value.value
    from schemac.semantics import policies

    # (none apply in a trigger: see the module docstring)
    low = lower(args[0], policies.not_applied(ctx), BOOL)
    if low is None:
        return None
    if low.type.family != "bool":
        reporter.error("E0304", f"assert() takes a bool, got {low.type.name}", args[0].span)
        return None
    return f"IF NOT ({low.sql}) THEN\n  RAISE EXCEPTION USING MESSAGE = {sql_string(message)};\nEND IF;"


def _trigger_write(schema: Schema, obj: ObjectType, stmt, refs: Dict[str, str], kinds, module: str,
                   reporter: Reporter, loop: Optional[Tuple[str, Dict[str, object]]] = None) -> Optional[str]:
    """``update T filter f set {...}`` / ``delete T filter f`` in a trigger's body: one UPDATE
    or DELETE of ``T``'s table; in ``f`` and the values, ``.name`` is ``T``'s and
    ``__new__.name`` / ``__old__.name`` the trigger's row. Access policies do not apply (the
    statement runs in the database, as any trigger's)."""
    target = schema.find_type(stmt.type_name, module)
    if target is None:
        reporter.error("E0201", f"unknown type '{stmt.type_name}'", stmt.type_span)
        return None
    ctx = ExprContext(schema, target, module, reporter, where="a trigger", row_refs=refs, row_ref_subject=obj,
                      trigger_globals=schema.trigger_globals, variables=dict(loop[1]) if loop is not None else {})
    where = filt = ""
    if stmt.filter is not None:
        low = lower(stmt.filter, ctx, BOOL)
        if low is None:
            return None
        if low.type.family != "bool":
            reporter.error("E0304", f"a filter must be bool, got {low.type.name}", stmt.filter.span)
            return None
        filt = low.sql
        where = f"\n  WHERE {filt}"
    guard = ""
    if target.table == obj.table and "__new__" in refs:
        # Gel: a trigger cannot modify the object that set it off (an error at run time)
        cond = f"\"id\" = NEW.\"id\"" + (f" AND ({filt})" if filt else "")
        rows = qi(target.table) if loop is None else f"{qi(target.table)}, {loop[0]}"
        guard = (f"IF EXISTS (SELECT 1 FROM {rows} WHERE {cond}) THEN\n"
                 f"  RAISE EXCEPTION USING MESSAGE = {sql_string('a trigger cannot modify the object that set it off')};\n"
                 f"END IF;\n")
    if isinstance(stmt, ast.DeleteQuery):
        using = "" if loop is None else f"\n  USING {loop[0]}"
        return f"{guard}DELETE FROM {qi(target.table)}{using}{where};"
    from_ = "" if loop is None else f"\n  FROM {loop[0]}"
    sets: List[str] = []
    for a in stmt.assignments:
        pair = _trigger_value(obj, target, a, ctx, refs, kinds, reporter)
        if pair is None:
            return None
        sets.append(f"{qi(pair[0])} = {pair[1]}")
    if not sets:
        return None if stmt.assignments else f"UPDATE {qi(target.table)} SET \"id\" = {qi(target.table)}.\"id\"{from_}{where};"
    return f"{guard}UPDATE {qi(target.table)}\n  SET {', '.join(sets)}{from_}{where};"


def _trigger_value(obj: ObjectType, target: ObjectType, a, ctx: ExprContext, refs: Dict[str, str], kinds,
                   reporter: Reporter) -> Optional[Tuple[str, str]]:
    """(column, SQL) of one assignment of a trigger's insert or update: a property, or a single
    link given ``__new__`` / ``__old__`` (their id), a sub-select or ``{}``."""
    if a.op != ":=":
        reporter.error("E0206", f"'{a.op}' in a trigger's statement is not supported", a.span)
        return None
    if isinstance(a.value, ast.ShapeExpr) and isinstance(a.value.base, ast.VarRef) \
            and a.value.base.name in ("__new__", "__old__"):
        # `target := __new__ {**}`: the object (a shape only chooses what an output shows)
        a = dataclasses.replace(a, value=a.value.base)
    pl = target.poly_links.get(a.name)
    root = a.value.name if isinstance(a.value, ast.VarRef) else None
    if pl is not None and not pl.multi and root in ("__new__", "__old__"):
        # A polymorphic link (one FK column per concrete subtype): the trigger's type's column.
        if root not in refs:
            reporter.error("E0206", f"{root} is not available in a trigger on {', '.join(kinds)}", a.value.span)
            return None
        column = next((c for t, c in pl.targets if t is obj), None)
        if column is None:
            reporter.error("E0204", f"link '{a.name}' of '{target.name}' does not point to '{obj.name}'", a.value.span)
            return None
        return column, f"{refs[root]}.\"id\""
    link = target.links.get(a.name)
    if link is not None:
        if link.multi:
            reporter.error("E0206", f"multi link '{a.name}' in a trigger's statement is not supported yet", a.span)
            return None
        root = a.value.name if isinstance(a.value, ast.VarRef) else None
        if root in ("__new__", "__old__"):
            if root not in refs:
                reporter.error("E0206", f"{root} is not available in a trigger on {', '.join(kinds)}", a.value.span)
                return None
            if link.target is not obj:
                reporter.error("E0204", f"link '{a.name}' of '{target.name}' points to '{link.target.name}', "
                               f"not to '{obj.name}'", a.value.span)
                return None
            return link.column, f"{refs[root]}.\"id\""  # type: ignore[return-value]
        if isinstance(a.value, ast.SetLit) and not a.value.items:
            return link.column, "NULL"  # type: ignore[return-value]
        col = target.column(link.column)  # type: ignore[arg-type]
    else:
        col = target.column(a.name)
        if col is None or col.is_id:
            if a.name in target.poly_links:
                reporter.error("E0206", f"polymorphic link '{a.name}' in a trigger's statement is not supported yet",
                               a.name_span)
                return None
            reporter.error("E0202", f"type '{target.name}' has no property or link '{a.name}'", a.name_span)
            return None
    low = lower(a.value, ctx, col.type)  # type: ignore[union-attr]
    if low is None:
        return None
    if low.type.family != col.type.family:  # type: ignore[union-attr]
        reporter.error("E0204", f"'{a.name}' is {col.type.name}, got {low.type.name}", a.value.span)  # type: ignore[union-attr]
        return None
    return col.name, low.sql  # type: ignore[union-attr]


def _trigger_insert(schema: Schema, obj: ObjectType, body: ast.InsertQuery, ctx: ExprContext, refs: Dict[str, str],
                    kinds, module: str, reporter: Reporter, loop_from: Optional[str] = None) -> Optional[str]:
    """``insert T {...}`` in a trigger's body: one INSERT, checked like a query's (required
    properties given)."""
    target = schema.find_type(body.type_name, module)
    if target is None:
        reporter.error("E0201", f"unknown type '{body.type_name}'", body.type_span)
        return None
    cols: List[str] = []
    values: List[str] = []
    ok = True
    for a in body.assignments:
        pair = _trigger_value(obj, target, a, ctx, refs, kinds, reporter)
        if pair is None:
            ok = False
            continue
        cols.append(pair[0])
        values.append(pair[1])
    given = {a.name for a in body.assignments}
    missing = [c.link or c.name for c in target.columns
               if c.required and not c.defaulted and (c.link or c.name) not in given]
    if missing:
        reporter.error("E0305", f"the trigger's insert of '{target.name}' is missing required "
                       f"{', '.join(repr(m) for m in missing)}", body.type_span)
        ok = False
    if not ok:
        return None
    if loop_from is not None:
        head = f"INSERT INTO {qi(target.table)} ({', '.join(qi(c) for c in cols)})" if cols else \
            f"INSERT INTO {qi(target.table)}"
        return f"{head}\n  SELECT {', '.join(values)}\n  FROM {loop_from};"
    return (f"INSERT INTO {qi(target.table)} ({', '.join(qi(c) for c in cols)})\n"
            f"  VALUES ({', '.join(values)});") if cols else f"INSERT INTO {qi(target.table)} DEFAULT VALUES;"


def _root_name(node) -> Optional[str]:
    while isinstance(node, ast.Step):
        node = node.base
    return node.name if isinstance(node, ast.VarRef) else None


# ----------------------------------------------------------------------- target deletion
def target_delete_source(join: ObjectType, source: ObjectType, target: ObjectType) -> Trigger:
    """``on target delete delete source`` on a multi link: deleting a target deletes the objects
    that link to it (https://docs.geldata.com/reference/datamodel/links#deletion-policies). The
    join table's target foreign key removes the link rows (``ON DELETE CASCADE``); this
    ``AFTER DELETE`` trigger of the join table deletes the source of a removed row whose target
    is gone (a row removed with its source, or by an update, leaves the target in place)."""
    body = (f"IF NOT EXISTS (SELECT 1 FROM {qi(target.table)} WHERE \"id\" = OLD.\"target_id\") THEN\n"
            f"  DELETE FROM {qi(source.table)}\n    WHERE \"id\" = OLD.\"source_id\";\nEND IF;\nRETURN NULL;")
    return Trigger(TARGET_DELETE_TRIGGER, object_name("td", join.table, []), "AFTER", ("DELETE",), "ROW", body)


# ----------------------------------------------------------------------- source deletion
def _source_delete(schema: Schema, obj: ObjectType, ptr, holders: List[Tuple[ObjectType, object]],
                   reporter: Reporter) -> None:
    policy, span = ptr.on_source_delete
    decl: ast.PointerDecl = ptr.decl
    poly = obj.poly_links.get(decl.name)
    if poly is not None:
        if policy != "allow":
            _poly_source_delete(schema, obj, poly, policy == "delete target if orphan", holders)
        return
    link = obj.links.get(decl.name)
    if link is None:
        if obj.column(decl.name) is not None:
            reporter.error("E0205", "'on source delete' only applies to links", span)
        return  # (a link that did not resolve was reported)
    if policy == "allow":
        return  # Gel's default: deleting the source only removes the link
    orphan = policy == "delete target if orphan"
    target = qi(link.target.table)
    name = object_name(SOURCE_DELETE_TRIGGER, decl.name, [])
    function = object_name("sd", obj.table, [decl.name])
    if not link.multi:
        col = qi(link.column)  # type: ignore[arg-type]
        cond = f"{qi('id')} = OLD.{col}"
        if orphan:
            for other, olink in holders:
                cond += (f"\n  AND NOT EXISTS (SELECT 1 FROM {qi(other.table)} "
                         f"WHERE {qi(olink.column)} = OLD.{col})")  # type: ignore[attr-defined]
        body = f"DELETE FROM {target}\n  WHERE {cond};\nRETURN NULL;"
        obj.triggers.append(Trigger(name, function, "AFTER", ("DELETE",), "ROW", body))
        return
    join = next(t for t in schema.join_tables if t.table == link.join_table)
    jq = qi(join.table)
    lines = [f"IF NOT EXISTS (SELECT 1 FROM {qi(obj.table)} WHERE \"id\" = OLD.\"source_id\") THEN"]
    if orphan:
        cond = "\"id\" = OLD.\"target_id\""
        for other, olink in holders:
            cond += (f"\n      AND NOT EXISTS (SELECT 1 FROM {qi(olink.join_table)} "  # type: ignore[arg-type]
                     f"WHERE \"target_id\" = OLD.\"target_id\")")
    else:
        # Links to the same target from sources deleted by the same statement are about to go
        # with them: remove them now, so that they do not hold the target back.
        lines.append(f"  DELETE FROM {jq} AS j\n    WHERE j.\"target_id\" = OLD.\"target_id\"\n"
                     f"      AND NOT EXISTS (SELECT 1 FROM {qi(obj.table)} AS s WHERE s.\"id\" = j.\"source_id\");")
        cond = "\"id\" = OLD.\"target_id\""
    lines.append(f"  DELETE FROM {target}\n    WHERE {cond};")
    lines.append("END IF;")
    lines.append("RETURN NULL;")
    function = object_name("sd", join.table, [])
    join.triggers.append(Trigger(SOURCE_DELETE_TRIGGER, function, "AFTER", ("DELETE",), "ROW", "\n".join(lines)))


def _poly_source_delete(schema: Schema, obj: ObjectType, poly: PolyLink, orphan: bool,
                        holders: List[Tuple[ObjectType, object]]) -> None:
    """``on source delete delete target [if orphan]`` on a polymorphic link (one FK column per
    concrete subtype, :class:`schemac.semantics.model.PolyLink`): the target is deleted from the
    table of whichever subtype it is, the one whose column is set
    (https://docs.geldata.com/reference/datamodel/links#deletion-policies). A single link: an
    ``AFTER DELETE`` row trigger of the source table deletes from each subtype's table the row
    its column named (at most one column is set). A multi link: the trigger of its join table,
    as for a link to one type, deletes the target through the join row's subtype column. ``if
    orphan``: unless another object still links to it through the same link (its columns of
    that subtype, or the ``target_id`` of the join tables, in every type inheriting the link)."""
    name = object_name(SOURCE_DELETE_TRIGGER, poly.name, [])
    if not poly.multi:
        stmts = []
        for sub, col in poly.targets:
            c = qi(col)
            cond = f"\"id\" = OLD.{c}"
            if orphan:
                for other, olink in holders:
                    ocol = next((oc for t, oc in getattr(olink, "targets", ()) if t is sub), None)
                    if ocol is not None:
                        cond += f"\n  AND NOT EXISTS (SELECT 1 FROM {qi(other.table)} WHERE {qi(ocol)} = OLD.{c})"
            stmts.append(f"DELETE FROM {qi(sub.table)}\n  WHERE {cond};")
        body = "\n".join(stmts) + "\nRETURN NULL;"
        obj.triggers.append(Trigger(name, object_name("sd", obj.table, [poly.name]), "AFTER", ("DELETE",), "ROW",
                                    body))
        return
    join = next(t for t in schema.join_tables if t.table == poly.join_table)
    jq = qi(join.table)
    lines = [f"IF NOT EXISTS (SELECT 1 FROM {qi(obj.table)} WHERE \"id\" = OLD.\"source_id\") THEN"]
    if orphan:
        rest = "".join(f"\n      AND NOT EXISTS (SELECT 1 FROM {qi(olink.join_table)} "  # type: ignore[attr-defined]
                       f"WHERE \"target_id\" = OLD.\"target_id\")"
                       for _, olink in holders if getattr(olink, "join_table", None))
    else:
        # Links to the same target from sources deleted by the same statement are about to go
        # with them: remove them now, so that they do not hold the target back.
        lines.append(f"  DELETE FROM {jq} AS j\n    WHERE j.\"target_id\" = OLD.\"target_id\"\n"
                     f"      AND NOT EXISTS (SELECT 1 FROM {qi(obj.table)} AS s WHERE s.\"id\" = j.\"source_id\");")
        rest = ""
    for sub, col in poly.targets:
        lines.append(f"  DELETE FROM {qi(sub.table)}\n    WHERE \"id\" = OLD.{qi(col)}{rest};")
    lines.append("END IF;")
    lines.append("RETURN NULL;")
    join.triggers.append(Trigger(SOURCE_DELETE_TRIGGER, object_name("sd", join.table, []), "AFTER", ("DELETE",),
                                 "ROW", "\n".join(lines)))
