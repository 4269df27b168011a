"""``insert``, ``update``, ``delete`` statements: their writes, ``unless conflict``
and its ``else``, the exclusive constraints they can violate
(https://docs.geldata.com/reference/edgeql/insert, .../update, .../delete).

Part of the statement checker (:mod:`schemac.semantics.queries`), split by concern."""

from __future__ import annotations
import dataclasses
from typing import List, Optional, Set, Tuple
from schemac.semantics import computed_sql, policies, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import Span
from schemac.frozen import fast_init_all
from schemac.semantics.exprs import ExprContext, check, column_of
from schemac.semantics.e_paths import refuse_poly_link
from schemac.semantics.model import ExclusiveConstraint, ObjectType
from schemac.semantics.qir import AT_MOST_ONE, MANY, ONE, ResultField
from schemac.semantics.sqlnames import qi
from schemac.semantics import q_filters, q_links, q_values, queries


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
    return q_values._plan(qf, "insert", subject, _returning_id(w), ctx, w.cardinality, w.exclusives)


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
        values = q_links._assignments(q.assignments, subject, ctx, insert=True)
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
        if c.link is None or c.link in given or not q_links._is_nested_insert(c.query_default):
            continue
        if ctx.nested is None or q.unless_conflict is not None:
            where = "a 'for' loop's insert" if ctx.nested is None else "an insert with 'unless conflict'"
            ctx.reporter.error("E0206", f"the default of link '{c.link}' inserts an object: {where} that leaves "
                               f"'{c.link}' out is not supported yet", q.type_span,
                               f"give '{c.link}' a value, e.g. {c.link} := (insert ...)")
            continue
        scope = dataclasses.replace(ctx, module=c.query_default_module, column_prefix=None)
        a = ast.Assignment(c.link, c.query_default, c.query_default.span, c.query_default.span)  # type: ignore
        low = q_links._written(a, c.query_default, subject.links[c.link], scope, many=False)  # type: ignore[arg-type]
        if low is not None:
            out.append(qir.Assign(q.type_span, c, low))
    return out


def _query_defaults(subject: ObjectType, given: Set[str], ctx: ExprContext) -> List[qir.Node]:
    """The defaults that read a global, for the columns an insert leaves out (see
    :attr:`schemac.semantics.model.Column.query_default`)."""
    out: List[qir.Node] = []
    for c in subject.columns:
        if c.query_default is None or (c.link or c.name) in given or q_links._is_nested_insert(c.query_default):
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
    for c in q_filters._conjuncts(filt):
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
        sets_nodes = q_links._assignments(el.assignments, subject, ctx, insert=False)
        filt = q_filters._where(el.filter, subject, ctx)[0] if el.filter is not None else None
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
    return q_values._plan(qf, "update", subject, _returning_id(w), ctx, w.cardinality, w.exclusives)


def _update_each_table(qf: ast.QueryFile, q: ast.UpdateQuery, subject: Optional[ObjectType],
                       ctx: ExprContext, abstract: Optional[str] = None,
                       batch: Optional[qir.Batch] = None) -> Optional[qir.Query]:
    """``update User filter f set {...}`` of a type other types extend: Gel's update touches the
    objects of ``User`` and of every subtype (https://docs.geldata.com/reference/edgeql/update,
    https://docs.geldata.com/reference/datamodel/inheritance; Gel's cards fixture's setup
    ``update User filter .name = 'Dave' set { deck += ... }`` over ``type Bot extending User``),
    which live in their own tables, so the statement updates each table (``WITH "_with__upd0" AS
    (UPDATE "user" ... RETURNING *), "_with__upd1" AS (UPDATE "bot" ...)``, each followed by its
    own join-table writes) and returns every updated object's id, as :func:`_delete_each_table`
    deletes. Each table checks ``f`` and the values with its own pointers (inherited into it), its
    own access policies and constraints (an exclusive constraint of the parent holds across the
    tables by its triggers). ``abstract`` (``subject`` ``None``): an abstract type's qualified
    name, whose objects are those of its concrete subtypes. ``batch``: the body of a ``for`` loop
    (``for n in array_unpack(...) union (update User filter .name = n set {...})``), each table's
    update joining the loop's elements.

    Refused (E0206): an insert nested in the values (it would run once per table, Gel runs it
    once per updated object)."""
    key0 = subject.qualname if subject is not None else abstract
    keys = [k for k in ctx.schema.descendants.get(key0, ()) if k in ctx.schema.types]
    if not keys:
        ctx.reporter.error("E0206", f"an update of the abstract type '{key0.split('::')[-1]}', which no concrete "  # type: ignore[union-attr]
                           "type extends, is not supported yet", q.type_span)
        return None
    bindings: List[qir.Node] = []
    exclusives: List[ExclusiveConstraint] = []
    one = q.filter is not None and queries._pins_id(q.filter) and batch is None
    for i, key in enumerate(keys):
        t = ctx.schema.types[key]
        w = _update_write(q, t, dataclasses.replace(ctx, subject=t, subject_as=key0), batch)
        if w is None:
            return None
        if w.nested:
            ctx.reporter.error("E0206", f"an insert nested in an update of '{key0.split('::')[-1]}', a type with "  # type: ignore[union-attr]
                               "subtypes (one update per table), is not supported yet", q.span,
                               "insert the object first, in a 'with' binding, and link it")
            return None
        one = one and w.cardinality != MANY
        exclusives += [ex for ex in w.exclusives if ex not in exclusives]
        bindings.append(qir.BoundWrite(q.span, f"_upd{i}", w))
    union = qir.WrittenUnion(q.span, tuple(b.name for b in bindings))  # type: ignore[attr-defined]
    first = ctx.schema.types[keys[0]].column("id")
    assert first is not None
    return q_values._plan(qf, "update", subject, qir.With(q.span, tuple(bindings), union), ctx,
                          AT_MOST_ONE if one else MANY, tuple(exclusives), (ResultField("id", first.type, False),))


def _update_write(q: ast.UpdateQuery, subject: ObjectType, ctx: ExprContext,
                  batch: Optional[qir.Batch] = None) -> Optional[qir.Update]:
    filt, cardinality = q_filters._where(q.filter, subject, ctx)
    visible = policies.read_predicate(subject, ctx, None, "update read")
    # An insert nested in the values of an update of at most one object runs once, for that
    # object (Gel evaluates the values once per object it updates); of several, it is refused.
    saved, ctx.nested = ctx.nested, ([] if cardinality != MANY and batch is None else None)
    try:
        nodes = q_links._assignments(q.assignments, subject, ctx, insert=False)
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
    return q_values._plan(qf, "delete", subject, _returning_id(w), ctx, w.cardinality, ())


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
    one = q.filter is not None and queries._pins_id(q.filter)
    for i, key in enumerate(keys):
        t = ctx.schema.types[key]
        w = _delete_write(q, t, dataclasses.replace(ctx, subject=t, subject_as=key0))
        if w is None:
            return None
        # (`.id = x` of one x: at most one object, ids being unique across the tables)
        one = one and w.cardinality != MANY
        bindings.append(qir.BoundWrite(q.span, f"_del{i}", w))
    union = qir.WrittenUnion(q.span, tuple(b.name for b in bindings))  # type: ignore[attr-defined]
    first = ctx.schema.types[keys[0]].column("id")
    assert first is not None
    return q_values._plan(qf, "delete", subject, qir.With(q.span, tuple(bindings), union), ctx, AT_MOST_ONE if one else MANY,
                 (), (ResultField("id", first.type, False),))


def _delete_write(q: ast.DeleteQuery, subject: ObjectType, ctx: ExprContext,
                  batch: Optional[qir.Batch] = None) -> Optional[qir.Delete]:
    filt, cardinality = q_filters._where(q.filter, subject, ctx)
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
