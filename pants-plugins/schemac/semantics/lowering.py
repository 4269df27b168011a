"""Lowering of the typed query IR (:mod:`schemac.semantics.qir`) to Postgres SQL.

Everything here is already checked: the lowering never reports an error, it only writes SQL
(one statement per query; CTEs, correlated sub-selects and JSON aggregation where needed).
Every user value is a bound ``$n``; schema constants (enum members, literals) are spelled in.

Rules, per form (the Gel semantics they implement are in ``docs/language.md``):

* ``insert`` returns ``{ id }`` (Gel's default shape); ``unless conflict on (.a, .b)`` becomes
  ``ON CONFLICT ("a", "b") [WHERE <predicate>] DO NOTHING``. For a *partial* exclusive
  constraint the index predicate is repeated, because Postgres only infers a partial unique
  index as the arbiter when the conflict target's WHERE implies the index predicate
  (https://www.postgresql.org/docs/15/sql-insert.html#SQL-ON-CONFLICT); ``else (select T)``
  rewrites the existing row to itself so that ``RETURNING`` yields it, without firing the
  table's update triggers (:func:`else_select_marks`);
* ``update`` and ``delete`` return ``{ id }`` of every row they touch; an update that only
  changes links locks its rows (``SELECT ... FOR UPDATE``);
* a multi link's join rows are written by CTEs reading the written rows, in the same statement;
* ``select Type { a, b, link: { id } }`` returns the shape's columns (a single link's id as
  ``link_id``); a nested shape is a correlated sub-select building JSON; ``order by`` sorts
  empty values first ascending and last descending, as Gel.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Tuple

from schemac.pgsql import policies as pgpolicies
from schemac.pgsql.calls import INT4_CALLS, spelling
from schemac.pgsql.literals import literal_sql, negative_zero_sql
from schemac.pgsql import fts
from schemac.pgsql.fts import document_part  # (resolve.py's fts::index reads it here)
from schemac.semantics import qir
from schemac.frozen import fast_init_all
from schemac.semantics.model import Column, ObjectType, ValueType
from schemac.semantics.sqlnames import global_setting, qi, quote_ident, sql_string
from schemac.sqltree import nodes as sqt
from schemac.sqltree.printer import params as tree_params, to_sql, walk as tree_walk

# ---------------------------------------------------------------------------------------------
# Expressions


@dataclass(frozen=True)
class Lowered:
    """An expression in SQL (see :func:`emit`). ``atomic`` is true when ``sql`` needs no
    parentheses as an operand; ``nullable`` when it may be NULL; ``column`` the column it reads
    when it is a path."""

    sql: str
    type: ValueType
    nullable: bool = False
    atomic: bool = True
    column: Optional[Column] = None
    is_param: bool = False

_CMP = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "?=": "IS NOT DISTINCT FROM",
        "?!=": "IS DISTINCT FROM", "like": "LIKE", "ilike": "ILIKE",
        "not like": "NOT LIKE", "not ilike": "NOT ILIKE"}
_ARITH = {"+": "+", "-": "-", "*": "*", "/": "/", "%": "%", "//": "/", "++": "||", "and": "AND", "or": "OR"}

#: Left-associative operators: a chain of them is lowered with a loop (see :func:`_binary`).
_CHAINED = frozenset({"and", "or", "+", "-", "*", "/", "%", "//", "++", "??"})


def emit(node: qir.Expr) -> Lowered:
    """The SQL of a checked expression, with what callers need to know about it."""
    t = type(node)
    column = node.column if t is qir.ColumnRef or t is qir.SubjectRef else None  # type: ignore[attr-defined]
    return Lowered(expr_sql(node), node.type, node.nullable, _atomic(node), column, t is qir.ParamRef)


def expr_sql(node: qir.Expr) -> str:
    """The SQL of a checked expression."""
    return _EXPR[type(node)](node)


def _atomic(node: qir.Expr) -> bool:
    """True when the node's SQL needs no parentheses as an operand."""
    t = type(node)
    if t in _ATOMIC:
        return True
    if t is qir.VarRef:
        b = node.binding  # type: ignore[attr-defined]
        return not (type(b) is qir.WithValue and b.inline) or _atomic(b.value)
    if t is qir.Call:
        return spelling(node).atomic  # type: ignore[arg-type]
    if t is qir.Binary:
        return node.op in ("??", "%", "//")  # type: ignore[attr-defined]
    if t is qir.InSet:
        return not node.items  # type: ignore[attr-defined]
    if t is qir.JsonCast:
        return node.type.element is None
    return False


_ATOMIC = frozenset({qir.Literal, qir.EnumMember, qir.ColumnRef, qir.SubjectRef, qir.ParamRef, qir.CountLink,
                     qir.Cast, qir.ComputedRef, qir.LinkRowExists, qir.InMultiLink, qir.CountObjects, qir.AggregateObjects, qir.GlobalDefault,
                     qir.ObjectId,
                     qir.VisibleId, qir.ObjectRow, qir.LinkPath, qir.ObjectIds,
                     qir.SetFilter, qir.WrittenIds, qir.AssertExists, qir.GroupValue, qir.CountRows,
                     qir.AggregateRows, qir.FreeRowField, qir.GroupFieldArray,
                     qir.FreeRowsAggregate, qir.KeptLinks, qir.ExistingIds, qir.CastObjectIds,
                     qir.JsonArrayElements, qir.RowField, qir.BacklinkProp, qir.LinkPropValues,
                     qir.UnionTypeName, qir.TriggerGlobal})


def param_sql(node: qir.Expr, sql: str) -> str:
    """``sql`` of ``node``, with an explicit ``::type`` cast when it is a parameter (which
    Postgres cannot type from its context)."""
    return f"{sql}::{node.type.pg}" if type(node) is qir.ParamRef else sql


def _operand(x: qir.Expr, sql: str, other: Optional[qir.Expr] = None) -> str:
    """``x`` (whose SQL is ``sql``) as an operand: parenthesised unless atomic; a parameter gets
    a ``::type`` cast unless the other operand is a column (Postgres types it from the column)."""
    if type(x) is qir.ParamRef and (other is None or type(other) not in (qir.ColumnRef, qir.SubjectRef)):
        return f"{sql}::{x.type.pg}"
    return sql if _atomic(x) else f"({sql})"


def _op(x: qir.Expr, other: Optional[qir.Expr] = None) -> str:
    return _operand(x, expr_sql(x), other)


def _column(node: qir.ColumnRef) -> str:
    name = quote_ident(node.column.name)
    ref = f"{node.qualifier}.{name}" if node.qualifier else name
    if node.column.link_optional:
        # `.avatar@text` of an optional single link: empty where the link is (see
        # model.single_link_props)
        fk = quote_ident(f"{node.column.link_prop}_id")
        fk = f"{node.qualifier}.{fk}" if node.qualifier else fk
        return f"(CASE WHEN {fk} IS NULL THEN NULL ELSE {ref} END)"
    if node.visible is not None:
        return visible_link_sql(ref, node.link.target, node.visible)  # type: ignore[union-attr]
    return ref


def _row_field(node: qir.RowField) -> str:
    """A field of a row read by name: ``"<row>"."<name>"``."""
    return f"{qi(node.row)}.{qi(node.name)}"


def visible_link_sql(ref: str, target: ObjectType, visible: qir.Expr) -> str:
    """The id in the FK column ``ref`` when ``visible`` (the target's access policies over its
    row, ``"_pv"``: ``schemac.semantics.policies.link_visible``) holds for the object, else NULL:
    ``(SELECT "_pv"."id" FROM (SELECT <ref> AS "k") AS "_pk" JOIN <target> AS "_pv" ON
    "_pv"."id" = "_pk"."k" WHERE <visible>)``. ``ref`` is read in a sub-select of its own, where
    the target's columns are not in scope, so an unqualified column name is the outer row's."""
    table = target.from_sql or qi(target.table)
    row = pgpolicies.row_of(visible)
    return (f'(SELECT {row}."id" FROM (SELECT {ref} AS "k") AS "_pk" JOIN {table} AS {row} '
            f'ON {row}."id" = "_pk"."k" WHERE {expr_sql(visible)})')


def _var(node: qir.VarRef) -> str:
    b = node.binding
    if type(b) is qir.LoopVar:
        return f'{b.row or qi("_batch")}.{qi(b.sql_name or node.name)}'
    if b.inline:  # type: ignore[attr-defined]
        value = b.value  # type: ignore[attr-defined]
        return param_sql(value, expr_sql(value))
    return f'(SELECT "v" FROM {qi("_with_" + node.name)})'


def _call(node: qir.Call) -> str:
    """A standard-library call, as :mod:`schemac.pgsql.calls` spells its ``func``."""
    sp = spelling(node)
    return _spell(sp.template, sp.modes, node.args)


def _spell(template: str, modes: str, args: Tuple[qir.Expr, ...]) -> str:
    """``template`` over ``args``' SQL, each rendered as its mode letter says (one letter for
    all): see :mod:`schemac.pgsql.calls`."""
    out = []
    for i, a in enumerate(args):
        mode = modes[i] if len(modes) > 1 else modes
        sql = expr_sql(a)
        if mode == "o":
            sql = _operand(a, sql)
        elif mode == "p":
            sql = param_sql(a, sql)
        elif mode == "x":
            sql = _operand(a, sql, args[1 - i])
        out.append(sql)
    return template.format(*out)


def _count_link(node: qir.CountLink) -> str:
    # (the join row is named as the policy condition over it reads it)
    row = '"_c"' if node.visible is None else node.visible.row  # type: ignore[attr-defined]
    visible = "" if node.visible is None else f" AND {expr_sql(node.visible)}"
    return (f'(SELECT count(*) FROM {qi(node.link.join_table)} AS {row} '  # type: ignore[arg-type]
            f'WHERE {row}."source_id" = {node.subject_row}."id"{visible})')


def _backlink_prop(node: qir.BacklinkProp) -> str:
    """A link property of a backlink's object, from its one join row: ``(SELECT j."p" FROM
    <join table> AS j WHERE j."source_id" = <row>."id" AND j."target_id" = <subject>."id")``."""
    j = qi(node.alias)
    return (f"(SELECT {j}.{qi(node.column.name)} FROM {qi(node.join_table)} AS {j} "
            f'WHERE {j}."source_id" = {node.row}."id" AND {j}."target_id" = {node.subject_row}."id")')


def _link_prop_values(node: qir.LinkPropValues) -> str:
    """``ARRAY(SELECT j."p" FROM <join table> AS j [JOIN <target> AS t ON t."id" =
    j."target_id"] WHERE j."source_id" = <row>."id" AND j."p" IS NOT NULL [AND <visible>])``."""
    j, t = qi(node.join_alias), qi(node.target_alias)
    source = f"{qi(node.link.join_table)} AS {j}"  # type: ignore[arg-type]
    if node.visible is not None:
        source += f' JOIN {qi(node.link.target.table)} AS {t} ON {t}."id" = {j}."target_id"'
    value = f"{j}.{qi(node.column.name)}"
    return (f'ARRAY(SELECT {value} FROM {source} WHERE {j}."source_id" = {node.row}."id" AND {value} IS NOT NULL'
            + ("" if node.visible is None else f" AND {expr_sql(node.visible)}") + ")")


def _union_type_name(node: qir.UnionTypeName) -> str:
    """The name of the subtype whose table holds the row's id: ``(CASE WHEN <row>."id" IN
    (SELECT "id" FROM <table>) THEN '<name>' ... ELSE '<last name>' END)``."""
    whens = " ".join(f"WHEN {node.row}.\"id\" IN (SELECT \"id\" FROM {qi(table)}) THEN {sql_string(name)}"
                     for name, table in node.types[:-1])
    last = sql_string(node.types[-1][0])
    return f"(CASE {whens} ELSE {last} END)" if whens else last


def _value_set(node: qir.ValueSet) -> str:
    """``coalesce(ARRAY(SELECT <body> FROM unnest(<array>) AS "_u1"("v") [WHERE <body> IS NOT
    NULL]), '{}')``."""
    body = expr_sql(node.body)
    where = f" WHERE ({body}) IS NOT NULL" if node.body.nullable else ""
    return (f"coalesce(ARRAY(SELECT {body} FROM unnest({expr_sql(node.array)}) AS {node.var.row}"
            f"({qi(node.var.sql_name or node.var.name)}){where}), CAST('{{}}' AS {node.type.pg}))")


def _unary(node: qir.Unary) -> str:
    o = node.operand
    if node.op == "-" and type(o) is qir.Literal and o.kind == "float" and float(o.value) == 0:  # type: ignore
        return negative_zero_sql(node)
    inner = _op(node.operand)
    if node.op == "exists":
        return f"{inner} IS NOT NULL"
    if node.op == "not":
        return f"NOT {inner}"
    return f"-{inner}"


def _binary(node: qir.Binary) -> str:
    """A chain of a left-associative operator (``a or b or c ...``) is a left-deep tree: it is
    walked down its left spine with a loop, so chains of any length need no deep stack. A chain
    of ``and`` or of ``or`` is written flat (``(a) OR (b) OR (c)``): Postgres' grammar gathers it
    into one node, where as many nested parentheses as terms would take its parser as deep (a
    20,000-term chain ran out of memory). A chain of ``++``: :func:`_concat_chain`."""
    if _is_concat_chain(node):
        return _concat_chain(node)
    if node.op in _FLAT:
        operands = _bool_operands(node)
        if any(x.nullable for x in operands):
            return _empty_bool(node.op, operands)
    spine = [node]
    while (type(spine[-1].left) is qir.Binary and spine[-1].left.op in _CHAINED  # type: ignore[attr-defined]
           and not _is_concat_chain(spine[-1].left)):  # type: ignore[arg-type]
        spine.append(spine[-1].left)  # type: ignore[arg-type]
    bottom = spine.pop()
    sql = _binary_step(bottom, expr_sql(bottom.left))
    prev = bottom.op
    for n in reversed(spine):
        sql = _binary_step(n, sql, flat=n.op == prev and n.op in _FLAT)
        prev = n.op
    return sql


#: Operators whose chains are written without parentheses around the chain so far.
_FLAT = frozenset({"and", "or"})


def _bool_operands(node: qir.Binary) -> List[qir.Expr]:
    """The operands of a chain of one of ``and`` / ``or`` (``a or b or c``), left to right."""
    chain = [node]
    while type(chain[-1].left) is qir.Binary and chain[-1].left.op == node.op:  # type: ignore[attr-defined]
        chain.append(chain[-1].left)  # type: ignore[arg-type]
    return [chain[-1].left] + [n.right for n in reversed(chain)]


def _empty_bool(op: str, operands: List[qir.Expr]) -> str:
    """A chain of ``and`` / ``or`` of which an operand may be empty: Gel's ``or`` and ``and``
    are ``{}`` when an operand is (https://docs.geldata.com/resources/cheatsheets/boolean:
    ``true or <bool>{}`` and ``false and <bool>{}`` are ``{}``), where SQL's ``NULL OR true``
    is true and ``NULL AND false`` false: ``CASE WHEN a IS NULL ... THEN NULL ELSE a OR b END``
    (testing only the operands that may be empty). Each operand is written twice, once per
    chain, not once per operator."""
    parts = [_op(x) for x in operands]
    test = " OR ".join(f"{p} IS NULL" for p, x in zip(parts, operands) if x.nullable)
    return f"CASE WHEN {test} THEN NULL ELSE {f' {_ARITH[op]} '.join(parts)} END"


def cond_sql(node: qir.Expr) -> str:
    """``node`` (a bool) as a condition (``WHERE``), where ``{}`` and false both drop the row:
    a chain of ``and`` stays SQL's ``AND`` of its operands' conditions (false where Gel's is
    ``{}``, the same rows), and a chain of ``or`` of which an operand may be empty is
    ``(a OR b) AND a IS NOT NULL`` (the operands that may be empty), which Postgres can still
    match with indexes. Anything else is its value (:func:`expr_sql`)."""
    if type(node) is not qir.Binary or node.op not in _FLAT:  # type: ignore[attr-defined]
        return expr_sql(node)
    operands = _bool_operands(node)  # type: ignore[arg-type]
    if node.op == "and":  # type: ignore[attr-defined]
        sqls = [cond_sql(x) for x in operands]
        return f"{sqls[0] if _is_and(operands[0]) else _operand(operands[0], sqls[0])} AND " + \
            " AND ".join(_operand(x, q) for x, q in zip(operands[1:], sqls[1:]))
    if not any(x.nullable for x in operands):
        return expr_sql(node)
    parts = [_op(x) for x in operands]
    tests = " AND ".join(f"{p} IS NOT NULL" for p, x in zip(parts, operands) if x.nullable)
    return f"({' OR '.join(parts)}) AND {tests}"


def _is_and(x: qir.Expr) -> bool:
    return type(x) is qir.Binary and x.op == "and"  # type: ignore[attr-defined]


def _is_concat_chain(node: qir.Expr) -> bool:
    """``a ++ b ++ c``: two ``++`` or more."""
    return (type(node) is qir.Binary and node.op == "++"  # type: ignore[attr-defined]
            and type(node.left) is qir.Binary and node.left.op == "++")  # type: ignore[attr-defined]


def _concat_chain(node: qir.Binary) -> str:
    """``a ++ b ++ c ...``: Postgres nests ``a || b || c`` as deep as the chain is long when it
    analyses it (5,000 terms exceed its stack, with parentheses or without), so the chain is
    written as a balanced tree, ``(a || b) || (c || d)``: the same value (``||`` is associative,
    and NULL when an operand is), nested only as deep as the chain's logarithm. Three terms keep
    their left-to-right grouping."""
    chain = [node]
    while type(chain[-1].left) is qir.Binary and chain[-1].left.op == "++":  # type: ignore[attr-defined]
        chain.append(chain[-1].left)  # type: ignore[arg-type]
    operands = [chain[-1].left] + [n.right for n in reversed(chain)]
    parts = [_op(x) for x in operands]

    def balanced(lo: int, hi: int) -> str:
        if hi - lo == 1:
            return parts[lo]
        mid = lo + (hi - lo + 1) // 2
        left, right = balanced(lo, mid), balanced(mid, hi)
        return f"{left if mid - lo == 1 else f'({left})'} || {right if hi - mid == 1 else f'({right})'}"

    return balanced(0, len(parts))


#: Comparisons that order their operands: an enum's are by declaration order (see :func:`enum_rank`).
_ORDERING = frozenset({"<", "<=", ">", ">="})


def enum_rank(enum, sql: str) -> str:
    """The position of an enum value (SQL ``sql``, text) among the enum's members, 1 for the
    first declared: Gel orders enum values by declaration, not as text
    (https://docs.geldata.com/reference/stdlib/enum), and schemac stores them as text. NULL for
    NULL. ``array_position`` is immutable, so the expression may also appear in an index or a
    constraint."""
    members = ", ".join(sql_string(m) for m in enum.members)
    return f"array_position(ARRAY[{members}]::text[], {sql})"


def _enum_of(node: qir.Expr):
    t = node.type
    return t.enum if t is not None and t.element is None else None


def _binary_step(node: qir.Binary, left_sql: str, flat: bool = False) -> str:
    op, left, right = node.op, node.left, node.right
    right_sql = expr_sql(right)
    if op in _ORDERING and _enum_of(left) is not None and _enum_of(right) is not None:
        enum = _enum_of(left)
        return (f"{enum_rank(enum, _operand(left, left_sql, right))} {_CMP[op]} "
                f"{enum_rank(enum, _operand(right, right_sql, left))}")
    if op in _CMP:
        return f"{_operand(left, left_sql, right)} {_CMP[op]} {_operand(right, right_sql, left)}"
    if op == "??":
        return f"COALESCE({_operand(left, left_sql)}, {_operand(right, right_sql)})"
    if op in _NUMERIC_OPS and node.type.family == "num" and node.type.element is None:
        return _arith(node, _operand(left, left_sql), _operand(right, right_sql))
    return f"{left_sql if flat else _operand(left, left_sql)} {_ARITH[op]} {_operand(right, right_sql)}"


_NUMERIC_OPS = frozenset({"+", "-", "*", "/", "%", "//"})
_FLOATS = frozenset({"real", "double precision"})


def _arith(node: qir.Binary, left: str, right: str) -> str:
    """Arithmetic as Gel computes it (https://docs.geldata.com/reference/stdlib/numbers): each
    operand is cast to the result's type first, so Postgres computes in the wide type
    (``<int32>$x + 1`` is int64 and does not overflow at 2^31; ``10 / 4`` is float64 2.5, not
    Postgres' integer division); ``%`` is Gel's floor modulo (the sign of the divisor:
    ``-10 % 4`` is 2, where Postgres' ``%`` truncates to -2) and ``//`` floor division
    (``-10 // 4`` is -3). Written without adding the divisor to the remainder, which could
    overflow."""
    pg = node.type.pg
    lit = [type(x) is qir.Literal and x.kind == "int" for x in (node.left, node.right)]  # type: ignore[attr-defined]
    # (an integer literal beside a cast operand takes its type from it: no cast of its own)
    if node.left.type.pg != pg and not (lit[0] and not lit[1]):
        left = f"CAST({left} AS {pg})"
    if node.right.type.pg != pg and not (lit[1] and not lit[0]):
        right = f"CAST({right} AS {pg})"
    op = node.op
    if op not in ("%", "//"):
        return f"{left} {op} {right}"
    if pg in _FLOATS:
        # Postgres has no '%' on floats: a - b * floor(a / b) is the floor modulo.
        return f"({left} - {right} * floor({left} / {right}))" if op == "%" else f"floor({left} / {right})"
    positive = type(node.right) is qir.Literal and node.right.kind == "int" \
        and int(node.right.value) > 0  # type: ignore[attr-defined]
    off = (f"({left} % {right}) < 0" if positive
           else f"({left} % {right}) <> 0 AND (({left} % {right}) < 0) <> ({right} < 0)")
    if op == "%":
        return f"(({left} % {right}) + CASE WHEN {off} THEN {right} ELSE 0 END)"
    if pg == "numeric":
        return f"floor({left} / {right})"
    return f"({left} / {right} - CASE WHEN {off} THEN 1 ELSE 0 END)"


def _in_set(node: qir.InSet) -> str:
    if not node.items:
        return "true" if node.negate else "false"
    items = ", ".join(_op(i, node.left) for i in node.items)
    return f"{_op(node.left)} {'NOT IN' if node.negate else 'IN'} ({items})"


def _in_array(node: qir.InArray) -> str:
    left, right = _op(node.left), _op(node.right)
    if right.startswith("(("):
        # (`= ANY ((SELECT ...))` would be Postgres' `ANY (subquery)`, comparing with each row
        # of it, not with each element of the array it is)
        right = f"CAST({right} AS {node.right.type.pg})"
    return f"{left} <> ALL ({right})" if node.negate else f"{left} = ANY ({right})"


def _link_row_exists(node: qir.LinkRowExists) -> str:
    """``exists .link`` of a multi or polymorphic link (:class:`~schemac.semantics.qir.LinkRowExists`):
    ``EXISTS (SELECT 1 FROM <link table> AS <alias> WHERE <alias>."source_id" = <row>."id" [AND
    <visible>])``; of a single polymorphic link, ``(<row>."a_id" IS NOT NULL OR ...)``."""
    visible = None if node.visible is None else expr_sql(node.visible)
    if node.join_table is None:
        return visible or "(" + " OR ".join(f"{node.row}.{qi(c)} IS NOT NULL" for c in node.columns) + ")"
    return (f'EXISTS (SELECT 1 FROM {qi(node.join_table)} AS {node.alias} WHERE {node.alias}."source_id" = '
            f'{node.row}."id"' + ("" if visible is None else f" AND {visible}") + ")")


def _in_multi_link(node: qir.InMultiLink) -> str:
    """``x in .members`` (:class:`~schemac.semantics.qir.InMultiLink`): ``([NOT] EXISTS (SELECT 1
    FROM <link table> AS <alias> [JOIN <target> AS <t> ON <t>."id" = <alias>."target_id" AND
    <visible>] WHERE <alias>."source_id" = <row>."id" AND <alias>."target_id" = x))``, NULL when
    ``x`` is."""
    left = param_sql(node.left, expr_sql(node.left))
    link, alias, target = node.link, node.alias, node.target_alias
    join = "" if node.visible is None else (
        f" JOIN {link.target.from_sql or qi(link.target.table)} AS {target} "
        f"ON {target}.\"id\" = {alias}.\"target_id\" AND {expr_sql(node.visible)}")
    test = (f"{'NOT ' if node.negate else ''}EXISTS (SELECT 1 FROM {qi(link.join_table)} AS {alias}{join} "  # type: ignore[arg-type]
            f"WHERE {alias}.\"source_id\" = {node.row}.\"id\" AND {alias}.\"target_id\" = {left})")
    if node.left.nullable:
        test = f"CASE WHEN {left} IS NULL THEN NULL ELSE {test} END"
    return f"({test})"


def _in_objects(node: qir.InObjects) -> str:
    """``x [NOT] IN (SELECT "id" FROM <objects>)``; empty when ``x`` is, as Gel's ``{} in S``
    (Postgres' ``NULL IN (<no row>)`` is false, ``NULL NOT IN (<no row>)`` true)."""
    left = _op(node.left)
    test = f'{left} {"NOT IN" if node.negate else "IN"} (SELECT {node.objects.alias}."id" {object_set_sql(node.objects)})'
    return f"CASE WHEN {left} IS NULL THEN NULL ELSE {test} END" if node.left.nullable else test


def _in_values(node: qir.InValues) -> str:
    """``x [NOT] IN (SELECT "_v" FROM (SELECT <value> AS "_v" FROM <objects>) WHERE "_v" IS NOT
    NULL)``: an empty value is no element of the set (and ``NOT IN`` of a set holding a NULL
    would be NULL); empty when ``x`` is, as Gel's ``{} in S``."""
    left = _op(node.left)
    test = (f'{left} {"NOT IN" if node.negate else "IN"} (SELECT "_iv"."_v" FROM (SELECT {expr_sql(node.value)} '
            f'AS "_v" {object_set_sql(node.objects)}) AS "_iv" WHERE "_iv"."_v" IS NOT NULL)')
    return f"CASE WHEN {left} IS NULL THEN NULL ELSE {test} END" if node.left.nullable else test


def _cast(node: qir.Cast) -> str:
    # (`<str><bool>$b`: the inner cast types the parameter, $1::boolean; Postgres would type a
    # bare $1 as the cast's target)
    return f"CAST({param_sql(node.operand, expr_sql(node.operand))} AS {node.type.pg})"


def _json_fail(message_sql: str, pg: str) -> str:
    """A value of type ``pg`` that fails the statement with ``message_sql`` (SQLSTATE 22P02, the
    text in the error), as Gel's InvalidValueError: the message reads the json value, so
    Postgres cannot fold the failing cast into a constant error."""
    return f"CAST(CAST(CAST({message_sql} AS integer) AS text) AS {pg})"


def _json_kind(target) -> str:
    """The JSON type a cast to ``target`` accepts (https://docs.geldata.com/reference/stdlib/json,
    casts): a number for the numeric types, a boolean for ``bool``, a string for the others."""
    if target.family == "num":
        return "number"
    if target.family == "bool":
        return "boolean"
    return "string"


def _json_scalar(value: str, target) -> str:
    """``<T>v`` of the json ``v`` (SQL over ``value``, a column of the enclosing sub-select): its
    text cast to ``T`` when ``v`` is of the JSON type ``T`` accepts, empty when it is JSON null
    or empty; any other JSON type fails the statement as Gel's "expected json string or null;
    got JSON number"."""
    kind = _json_kind(target)
    text = f"({value} #>> '{{}}')"
    ok = text if target.pg == "text" else f"CAST({text} AS {target.pg})"
    # (Gel's message has a ';': chr(59), so that the statement's text has none)
    msg = f"'expected json {kind} or null' || chr(59) || ' got JSON ' || jsonb_typeof({value})"
    return f"CASE jsonb_typeof({value}) WHEN '{kind}' THEN {ok} WHEN 'null' THEN NULL ELSE {_json_fail(msg, target.pg)} END"


def _json_cast(node: qir.JsonCast) -> str:
    """``<T>json`` (https://docs.geldata.com/reference/stdlib/json, casts): a JSON number casts
    to the numeric types only, a JSON boolean to ``bool`` only, a JSON string to ``str`` and the
    other scalars; JSON null (and an empty value) is empty; any other JSON value fails the
    statement, as Gel's. ``<array<T>>json`` reads a JSON array (each element cast so);
    anything else but null fails."""
    inner_sql = param_sql(node.operand, expr_sql(node.operand))
    target = node.type
    if target.element is not None:
        # (`<array<json>>x`: each element as it is, JSON null included)
        elem = '_j."_e"' if target.element.family == "json" else _json_scalar('_j."_e"', target.element)
        msg = "'expected json array' || chr(59) || ' got JSON ' || jsonb_typeof(_jc._v)"
        return (f"(SELECT CASE jsonb_typeof(_jc._v) WHEN 'array' THEN ARRAY(SELECT {elem} FROM "
                f"jsonb_array_elements(_jc._v) WITH ORDINALITY AS _j(\"_e\", _n) ORDER BY _n) WHEN 'null' THEN NULL "
                f"ELSE {_json_fail(msg, target.pg)} END FROM (SELECT {inner_sql} AS _v) AS _jc)")
    return f"(SELECT {_json_scalar('_jc._v', target)} FROM (SELECT {inner_sql} AS _v) AS _jc)"


def _agg_order(n: qir.AggregateObjects) -> str:
    """An aggregate's own ``ORDER BY`` of its value: ``<value> DESC NULLS LAST``."""
    descending, empty = n.order  # type: ignore[misc]
    return f"{expr_sql(n.value)} {'DESC' if descending else 'ASC'} NULLS {empty.upper()}"


def _computed(node: qir.ComputedRef) -> str:
    """A computed property's expression, inlined: parenthesised unless atomic, a parameter cast."""
    value = node.value
    sql = expr_sql(value)
    if type(value) is qir.ParamRef:
        return f"{sql}::{value.type.pg}"
    return sql if _atomic(value) else f"({sql})"


def free_rows_sql(r: qir.FreeRows) -> str:
    """The objects of ``for i in range_unpack(r) union (select { ... })``
    (:class:`~schemac.semantics.qir.FreeRows`), one row each, a column per field: ``SELECT <a> AS
    "a", ... FROM generate_series(lower(r), upper(r) - 1) AS "_batch"("_i")`` (an integer range
    is ``[lower, upper)`` in Postgres' canonical form; an empty one no element; an unbounded one
    fails, as Gel's ``range_unpack``), or ``FROM unnest(arr)``."""
    cols = ", ".join(f"{param_sql(e, expr_sql(e))} AS {qi(n)}" for n, e in r.fields)
    src = param_sql(r.source, expr_sql(r.source))
    batch = f'{qi("_batch")}({qi(r.var.sql_name or r.var.name)})'
    if r.unpack == "range":
        pg = r.var.type.pg
        low = (f'CASE WHEN lower_inf("_rg"."_r") OR upper_inf("_rg"."_r") THEN CAST(\'cannot unpack an unbounded '
               f'range\' || left(CAST("_rg"."_r" AS text), 0) AS {pg}) ELSE lower("_rg"."_r") END')
        source = f'(SELECT {src} AS "_r") AS "_rg" CROSS JOIN LATERAL generate_series({low}, upper("_rg"."_r") - 1) AS {batch}'
    else:
        source = f"unnest({src}) AS {batch}"
    where = "" if r.filter is None else f" WHERE {cond_sql(r.filter)}"
    return f"SELECT {cols} FROM {source}{where}"


def _free_rows_aggregate(n: qir.FreeRowsAggregate) -> str:
    arg = "*" if n.field is None else f'"_fr".{qi(n.field)}'
    return f'(SELECT {n.func}({arg}) FROM ({free_rows_sql(n.rows)}) AS "_fr")'


def _free_row_field(n: qir.FreeRowField) -> str:
    """A field of the first of :func:`free_rows_sql`'s rows in their order, then by every field
    (so that each field of a name is read from the same row when the order ties)."""
    order = ", ".join([_order_sql(k) for k in n.rows.order]
                      + [f'"_fr".{qi(name)} ASC NULLS FIRST' for name, _ in n.rows.fields])
    return (f'(SELECT "_fr".{qi(n.name)} FROM ({free_rows_sql(n.rows)}) AS "_fr"'
            f'{" ORDER BY " + order if order else ""} LIMIT 1)')


def for_rows_sql(r: qir.ForRows) -> str:
    """The values of ``for x in S union ...`` (:class:`~schemac.semantics.qir.ForRows`), one row
    each, column ``"value"``: ``SELECT <value> FROM <S> WHERE <value> IS NOT NULL``, or one row
    per match of ``regexp_matches(<str>, <pattern>, 'g')`` (the array of the match's groups, or
    of the whole match without groups, as Gel's ``re_match_all``) joined to each object; a body of
    objects, the rows of the objects it reaches from each (``CROSS JOIN LATERAL``)."""
    if r.targets is not None:
        a, t = r.objects.alias, r.targets.alias
        return (f"SELECT {t}.* FROM (SELECT {a}.* {object_set_sql(r.objects)}) AS {a} CROSS JOIN LATERAL "
                f"(SELECT {t}.* {object_set_sql(r.targets)}) AS {t}")
    if r.pattern is not None:
        a = r.objects.alias
        return (f'SELECT "_m"."value" FROM (SELECT {a}.* {object_set_sql(r.objects)}) AS {a} CROSS JOIN LATERAL '
                f'regexp_matches({param_sql(r.value, expr_sql(r.value))}, {param_sql(r.pattern, expr_sql(r.pattern))}, '
                f'\'g\') AS "_m"("value")')
    return (f'SELECT "_v"."value" FROM (SELECT {param_sql(r.value, expr_sql(r.value))} AS "value" '
            f'{object_set_sql(r.objects)}) AS "_v" WHERE "_v"."value" IS NOT NULL')


def object_set_sql(s: qir.ObjectSet) -> str:
    """``FROM <source> AS <alias> WHERE <the rows of the set>``, correlated with the subject row
    (and restricted to those the source's access policies let the query see). A paged set is
    its rows in order, numbered ``"_n"``: ``FROM (SELECT <alias>.*, row_number() OVER (ORDER BY
    ...) AS "_n" FROM ... ORDER BY ... LIMIT n) AS <alias> WHERE true``. A set intersected with
    (or less) other sets: its rows whose id is (is not) among theirs, ``FROM (SELECT <alias>.*
    <the set>) AS <alias> WHERE <alias>."id" [NOT] IN (SELECT <other>."id" <other set>)``."""
    if s.within or s.outside:
        inner = object_set_sql(dataclasses.replace(s, within=(), outside=()))
        tests = [f'{s.alias}."id" IN (SELECT {o.alias}."id" {object_set_sql(o)})' for o in s.within]
        tests += [f'{s.alias}."id" NOT IN (SELECT {o.alias}."id" {object_set_sql(o)})' for o in s.outside]
        return f"FROM (SELECT {s.alias}.* {inner}) AS {s.alias} WHERE {' AND '.join(tests)}"
    if s.page is not None:
        inner = object_set_sql(dataclasses.replace(s, page=None))
        keys = ", ".join([_order_sql(k) for k in s.page.order] + [f'{s.alias}."id"'])
        page = ""
        if s.page.offset is not None:
            page += f" OFFSET {expr_sql(s.page.offset)}"
        if s.page.limit is not None:
            page += f" LIMIT {expr_sql(s.page.limit)}"
        return (f'FROM (SELECT {s.alias}.*, row_number() OVER (ORDER BY {keys}) AS "_n" {inner} '
                f"ORDER BY {keys}{page}) AS {s.alias} WHERE true")
    source = f"FROM {qi(s.cte or s.source.table)} AS {s.alias} WHERE "
    visible = "" if s.visible is None else f" AND {expr_sql(s.visible)}"
    if s.parts:
        # (the parts of a union view, tables of different subtypes: the columns they share)
        cols = ", ".join(f"{s.alias}.{qi(c.name)}" for c in s.source.columns) if s.source.union_of else f"{s.alias}.*"
        selects = [f"SELECT {cols} {object_set_sql(p)}" for p in s.parts]
        if s.coalesce:
            # `A ?? B`: each part's rows when no earlier part has any
            selects = [sel if i == 0 else f"SELECT {s.alias}.* FROM ({sel}) AS {s.alias} WHERE " + " AND ".join(
                f"NOT EXISTS (SELECT 1 {object_set_sql(q)})" for q in s.parts[:i]) for i, sel in enumerate(selects)]
        union = " UNION ALL ".join(selects)
        where = "true" if s.filter is None else _operand(s.filter, cond_sql(s.filter))
        return f"FROM ({union}) AS {s.alias} WHERE {where}{visible}"
    if s.cond is None and s.link is None:
        # Every object of the type (`count(User)`).
        return source[:-len(" WHERE ")] + ("" if s.visible is None else f" WHERE {expr_sql(s.visible)}")
    if s.filter is not None:
        visible = f" AND {_operand(s.filter, cond_sql(s.filter))}" + visible
    if s.cond is not None:
        return source + cond_sql(s.cond) + visible
    link, me = s.link, s.subject_row
    assert link is not None
    if s.forward and link.multi:
        return source + (f'{s.alias}."id" IN (SELECT "target_id" FROM {qi(link.join_table)} '  # type: ignore[arg-type]
                         f'WHERE "source_id" = {me}."id")') + visible
    if s.forward:
        return source + f'{s.alias}."id" = {me}.{qi(link.column)}' + visible  # type: ignore[arg-type]
    if link.multi:
        return source + (f'{s.alias}."id" IN (SELECT "source_id" FROM {qi(link.join_table)} '  # type: ignore[arg-type]
                         f'WHERE "target_id" = {me}."id")') + visible
    return source + f'{s.alias}.{qi(link.column)} = {me}."id"' + visible  # type: ignore[arg-type]


def _path_ids(hops, subject_row: str, root: Optional[qir.ObjectSet] = None, written_row: bool = False) -> str:
    """A query of the ids of the objects a path reaches from the subject row (or from the
    objects of ``root``), one hop after another (each hop reads the ids of the one before:
    ``IN (...)``); ``written_row``: see :attr:`qir.InPath.written_row`."""
    prev: Optional[str] = None if root is None else f'SELECT {root.alias}."id" {object_set_sql(root)}'
    for i, h in enumerate(hops):
        j, r = qi(f"_j{i}"), qi(f"_h{i}")
        if prev is None and h.kind == "link" and not h.link.multi and written_row:
            # (a row the statement wrote, "_new": its own column, which the table does not hold yet)
            prev = f"SELECT {subject_row}.{qi(h.link.column)}"
            if h.visible is not None:
                v = qi(f"_v{i}")
                prev = f'SELECT {v}."id" FROM {qi(h.target.table)} AS {v} WHERE {v}."id" IN ({prev}) AND {expr_sql(h.visible)}'
            continue
        if h.kind in ("link", "poly") and h.link.multi:
            col = '"target_id"' if h.kind == "link" else qi(h.column)
            sel, src, key = f"{j}.{col}", f"{qi(h.link.join_table)} AS {j}", f'{j}."source_id"'
        elif h.kind in ("link", "poly"):
            col = qi(h.link.column) if h.kind == "link" else qi(h.column)
            sel, src, key = f"{r}.{col}", f"{qi(h.source.table)} AS {r}", f'{r}."id"'
        elif h.kind == "backlink" and h.link.multi:
            sel, src, key = f'{j}."source_id"', f"{qi(h.link.join_table)} AS {j}", f'{j}."target_id"'
        elif h.kind == "backlink":
            sel, src, key = f'{r}."id"', f"{qi(h.target.table)} AS {r}", f"{r}.{qi(h.link.column)}"
        else:
            a = h.objects.alias
            sel = f'{a}."id"'
            src = f"{qi(h.source.table)} AS {h.row} CROSS JOIN LATERAL (SELECT {a}.* {object_set_sql(h.objects)}) AS {a}"
            key = f'{h.row}."id"'
        match = f'{key} = {subject_row}."id"' if prev is None else f"{key} IN ({prev})"
        prev = f"SELECT {sel} FROM {src} WHERE {match}"
        if h.visible is not None:
            v = qi(f"_v{i}")
            prev = f'SELECT {v}."id" FROM {qi(h.target.table)} AS {v} WHERE {v}."id" IN ({prev}) AND {expr_sql(h.visible)}'
    return prev  # type: ignore[return-value]


def _object_id(node: qir.ObjectId) -> str:
    cond = cond_sql(node.cond)
    where = cond if node.visible is None else f"({cond}) AND {expr_sql(node.visible)}"
    return f'(SELECT "id" FROM {qi(node.target.table)} WHERE {where})'


def _object_row(node: qir.ObjectRow) -> str:
    cond = cond_sql(node.cond)
    where = cond if node.visible is None else f"({cond}) AND {expr_sql(node.visible)}"
    value = f'{node.alias}."id"' if node.value is None else expr_sql(node.value)
    tail = ""
    if node.order:
        tail += " ORDER BY " + ", ".join(_order_sql(k) for k in node.order)
    if node.limit_one:
        tail += " LIMIT 1"
    return f"(SELECT {value} FROM {qi(node.target.table)} AS {node.alias} WHERE {where}{tail})"


def _set_filter(node: qir.SetFilter) -> str:
    """``EXISTS (SELECT 1 FROM <join> AS "_m1j" JOIN <target> AS "_m1" ON ... WHERE "_m1j"."source_id"
    = <row>."id" AND (<cond>))``: the filter holds for at least one linked object."""
    parts, where = [], []
    for i, s in enumerate(node.sets):
        join = qi(s.alias.strip('"') + "j")
        head = "FROM" if i == 0 else "CROSS JOIN"
        if s.source is not None and not s.link.multi:
            # a backlink through a single link: the rows pointing at the subject row
            parts.append(f"{head} {qi(s.source.table)} AS {s.alias}")
            where.append(f'{s.alias}.{qi(s.link.column)} = {s.subject_row}."id"')  # type: ignore[arg-type]
        elif s.source is not None:
            parts.append(f'{head} {qi(s.link.join_table)} AS {join} JOIN {qi(s.source.table)} AS {s.alias} '  # type: ignore[arg-type]
                         f'ON {s.alias}."id" = {join}."source_id"')
            where.append(f'{join}."target_id" = {s.subject_row}."id"')
        if s.source is not None:
            if s.visible is not None:
                where.append(expr_sql(s.visible))
            continue
        parts.append(f'{head} {qi(s.link.join_table)} AS {join} JOIN {qi(s.link.target.table)} AS {s.alias} '  # type: ignore[arg-type]
                     f'ON {s.alias}."id" = {join}."target_id"')
        where.append(f'{join}."source_id" = {s.subject_row}."id"')
        if s.visible is not None:
            where.append(expr_sql(s.visible))
    where.append(f"({cond_sql(node.cond)})")
    return f"EXISTS (SELECT 1 {' '.join(parts)} WHERE {' AND '.join(where)})"


def _object_ids(node: qir.ObjectIds) -> str:
    cond = cond_sql(node.cond)
    where = cond if node.visible is None else f"({cond}) AND {expr_sql(node.visible)}"
    return f'ARRAY(SELECT {node.alias}."id" FROM {qi(node.target.table)} AS {node.alias} WHERE {where})'


def _written_ids(node: qir.WrittenIds) -> str:
    if node.many:
        return f'ARRAY(SELECT "id" FROM {qi(node.cte)})'
    return f'(SELECT "id" FROM {qi(node.cte)})'


def _assert_exists(node: qir.AssertExists) -> str:
    """The id, or else a failing cast with Gel's message (``COALESCE`` reads its second
    argument only for NULL; :mod:`schemac.semantics.asserts`); the ids when there is at least
    one."""
    from schemac.pgsql import asserts

    value = expr_sql(node.value)
    if not node.many:
        return f"COALESCE({value}, {asserts.fail_sql('assert_exists', node.message, value, 'uuid')})"
    ids = '"_ids"."v"'
    return (f'(SELECT CASE WHEN cardinality({ids}) > 0 THEN {ids} ELSE '
            f'{asserts.fail_sql("assert_exists", node.message, ids, "uuid[]")} END FROM (SELECT {value} AS "v") AS "_ids")')


def _kept_links(node: qir.KeptLinks) -> str:
    """``ARRAY(SELECT j."target_id" FROM <join table> AS j JOIN <target> AS t ON t."id" =
    j."target_id" WHERE j."source_id" = <the updated row>."id" AND (<cond>))``: the links of the
    updated object (:data:`LINK_ROWS`) whose target the filter keeps."""
    j, t, link = qi(node.join_alias), qi(node.target_alias), node.link
    cond = _operand(node.cond, expr_sql(node.cond))
    return (f'ARRAY(SELECT {j}."target_id" FROM {qi(link.join_table)} AS {j} JOIN {qi(link.target.table)} AS {t} '
            f'ON {t}."id" = {j}."target_id" WHERE {j}."source_id" = {LINK_ROWS}."id" AND ({cond}))')


def _existing_ids(node: qir.ExistingIds) -> str:
    """``ARRAY(SELECT "_t"."id" FROM <target> AS "_t" WHERE "_t"."id" = ANY (<ids>) [AND
    <visible>])``: the ids that name an object the query may see."""
    table = node.target.from_sql or qi(node.target.table)
    visible = "" if node.visible is None else f" AND {expr_sql(node.visible)}"
    t = '"_t"' if node.visible is None else pgpolicies.row_of(node.visible)
    return (f'ARRAY(SELECT {t}."id" FROM {table} AS {t} WHERE {t}."id" = '
            f'ANY ({param_sql(node.ids, expr_sql(node.ids))}){visible})')


def _cast_object_ids(node: qir.CastObjectIds) -> str:
    """``CASE WHEN <an id of no object> THEN <failing cast> [WHEN <an id twice> THEN <failing
    cast>] ELSE ids END`` (:mod:`schemac.semantics.asserts`; the runners raise
    CardinalityViolationError and DistinctViolationError)."""
    from schemac.pgsql.asserts import fail_sql

    ids = param_sql(node.ids, expr_sql(node.ids))
    missing = (f'EXISTS (SELECT 1 FROM unnest({ids}) AS "_c"("id") WHERE NOT EXISTS (SELECT 1 FROM '
               f'{qi(node.target.table)} AS "_o" WHERE "_o"."id" = "_c"."id"))')
    # (the probe is a sub-query: Postgres would fold a cast of the parameter alone when it plans)
    probe = f"(SELECT count(*) FROM unnest({ids}))"
    gone = fail_sql("assert_exists", f"'{node.target.qualname}' with an id of the array does not exist", probe,
                    "uuid[]")
    sql = f"CASE WHEN {missing} THEN {gone}"
    if node.distinct:
        twice = fail_sql("assert_distinct", None, probe, "uuid[]")
        sql += f' WHEN cardinality({ids}) <> (SELECT count(DISTINCT "_c") FROM unnest({ids}) AS "_c") THEN {twice}'
    return f"{sql} ELSE {ids} END"


def _json_array_elements(node: qir.JsonArrayElements) -> str:
    """``coalesce((SELECT array_agg(<cast> ORDER BY n) FILTER (WHERE <cast> IS NOT NULL) FROM
    jsonb_array_elements(j) WITH ORDINALITY ...), '{}')``: ``jsonb_array_elements`` fails on a
    JSON value that is no array, as Gel's ``json_array_unpack``; :func:`_json_scalar` casts each
    element (a JSON null is none)."""
    value = _json_scalar('"_je"."_v"', node.type.element)
    return (f"coalesce((SELECT array_agg({value} ORDER BY \"_je\".\"_n\") FILTER (WHERE ({value}) IS NOT NULL) "
            f"FROM jsonb_array_elements(CAST({param_sql(node.json, expr_sql(node.json))} AS jsonb)) WITH ORDINALITY "
            f"AS \"_je\"(\"_v\", \"_n\")), CAST(ARRAY[] AS {node.type.pg}))")


def _visible_id(node: qir.VisibleId) -> str:
    value = node.value
    value_sql = expr_sql(value)
    if type(value) is qir.ParamRef:
        value_sql += "::uuid"
    visible = "" if node.visible is None else f" AND {expr_sql(node.visible)}"
    t = '"_t"' if node.visible is None else pgpolicies.row_of(node.visible)
    return f'(SELECT {t}."id" FROM {qi(node.target.table)} AS {t} WHERE {t}."id" = {value_sql}{visible})'


def _link_path(node: qir.LinkPath) -> str:
    """``(SELECT "_l2"."c" FROM t1 AS "_l1" JOIN t2 AS "_l2" ON "_l2"."id" = "_l1"."l2_id"
    WHERE "_l1"."id" = <row>."l1_id")``: empty when a link on the way is empty."""
    hops = node.hops
    parts = []
    where = []
    for i, link in enumerate(hops, 1):
        alias = qi(f"_l{i}")
        source = node.subject_row if i == 1 else qi(f"_l{i - 1}")
        # (a polymorphic link: the id is whichever of its columns is set)
        ref = (f"COALESCE({', '.join(f'{source}.{qi(c)}' for c in link.columns)})" if link.columns
               else f"{source}.{qi(link.column)}")  # type: ignore[arg-type]
        target = link.target.from_sql or qi(link.target.table)
        if i == 1 and node.first_cte is not None:
            target = _written_rows(link.target, node.first_cte, target)
        if i == 1:
            parts.append(f"{target} AS {alias}")
            where.append(f'{alias}."id" = {ref}')
        else:
            parts.append(f'JOIN {target} AS {alias} ON {alias}."id" = {ref}')
        visible = node.visible[i - 1] if i - 1 < len(node.visible) else None
        if visible is not None:
            where.append(expr_sql(visible))
    last = qi(f"_l{len(hops)}")
    return f"(SELECT {last}.{qi(node.column.name)} FROM {' '.join(parts)} WHERE {' AND '.join(where)})"


def _fts_search(node: qir.FtsSearch) -> str:
    """``<document> @@ <query>``, or the score ``ts_rank(<weights>, <document>, <query>)``
    (:mod:`schemac.pgsql.fts`)."""
    document = " || ".join(fts.document_part(expr_sql(v), language, weight)
                           for v, (language, weight) in zip(node.parts, node.document))
    query = _op(node.query)
    if node.score:
        weights = fts.weights_sql(None) if node.weights is None else _op(node.weights)
        return f"ts_rank({weights}, {document}, {query})"
    return f"({document}) @@ {query}"


def _param_text(index: int) -> str:
    """The query's parameter ``index`` inside SQL text: ``\x00index\x00`` (a NUL never occurs in
    SQL). Expressions are still text (the checker keeps some of it, issue 26 step 2): where the
    text becomes a tree (:func:`_raw`) each of these is a :class:`sqltree.Param`, which the
    printer numbers. The same mark whether the checker or the lowering wrote the text, so a
    finished statement is never re-read for its ``$n``."""
    return f"\x00{index}\x00"


#: The marks SQL text carries (a parameter, :func:`_param_text`; the checker's placeholders
#: :data:`LINK_ROWS` and :data:`LINKS_AFTER`): made nodes where the text enters the tree.
_MARKS = re.compile("\x00([0-9]+)\x00|\x01after\x01([^\x01]*)\x01|\x01rows\x01")


def _raw(sql: str, rows: Optional[str] = None, links_after: Optional[Dict[str, sqt.Node]] = None) -> sqt.Raw:
    """SQL text as a node (:class:`sqltree.Raw`, the escape hatch): each parameter in it is a
    :class:`sqltree.Param`; :data:`LINK_ROWS` the rows ``rows`` and :data:`LINKS_AFTER` a join
    table's rows ``links_after[join]``, where given."""
    if "\x01" not in sql:
        if "\x00" not in sql:
            return sqt.Raw(sql)
        # (parameters alone: the text between marks, and the numbers)
        split = sql.split("\x00")
        return sqt.Raw(*[p if i % 2 == 0 else sqt.Param(int(p)) for i, p in enumerate(split) if p or i % 2])
    parts: List[object] = []
    pos = 0
    for m in _MARKS.finditer(sql):
        if m.start() > pos:
            parts.append(sql[pos:m.start()])
        pos = m.end()
        if m.group(1) is not None:
            parts.append(sqt.Param(int(m.group(1))))
        elif m.group(2) is not None and links_after is not None and m.group(2) in links_after:
            parts.append(links_after[m.group(2)])
        elif m.group(2) is None and rows is not None:
            parts.append(rows)
        else:
            parts.append(m.group(0))  # (a placeholder resolved elsewhere, as text)
    if pos < len(sql):
        parts.append(sql[pos:])
    return sqt.Raw(*parts)  # type: ignore[arg-type]


def _trigger_global(node: qir.TriggerGlobal) -> str:
    """A global in a trigger: the transaction-local setting the write statement set (``'v'``
    and the value as text, see ``schemac.semantics.queries.plan_query``), cast to the global's
    type, else its default."""
    g = node.global_
    read = f"current_setting({sql_string(global_setting(g.qualname))}, true)"
    sql = f"CASE WHEN left({read}, 1) = 'v' THEN CAST(substr({read}, 2) AS {node.type.pg}) END"
    return sql if g.default_sql is None else f"COALESCE({sql}, {g.default_sql})"


def _global_default(node: qir.GlobalDefault) -> str:
    return f"COALESCE({_param_text(node.param.index)}::{node.type.pg}, {node.default_sql})"  # type: ignore[attr-defined]


def _json_index(node: qir.JsonIndex) -> str:
    """``j['k']`` / ``j[i]`` (https://docs.geldata.com/reference/stdlib/json#operator::jsonobjdest,
    #operator::jsonidx): the member ``k`` of a JSON object, the element ``i`` of a JSON array or
    the character ``i`` of a JSON string (counted from the end when negative); a missing member, an index out of range, or a value
    of another JSON type fails the statement as Gel's "JSON index 'k' is out of bounds" /
    "cannot index JSON string by text" (Postgres' ``->`` would give NULL). Empty when ``j`` or
    the key is."""
    by_text = node.key.type.family == "str"
    key = f"CAST({_op(node.key)} AS text)" if by_text else f"CAST({_op(node.key)} AS integer)"
    kind = "object" if by_text else "array"
    shown = "quote_literal(_jx._k)" if by_text else "CAST(_jx._k AS text)"
    kinds = f"= '{kind}'" if by_text else "IN ('array', 'string')"
    msg = (f"CASE WHEN jsonb_typeof(_jx._v) {kinds} THEN 'JSON index ' || {shown} || ' is out of bounds' "
           f"ELSE 'cannot index JSON ' || jsonb_typeof(_jx._v) || ' by {'text' if by_text else 'bigint'}' END")
    # (an integer index of a JSON string is its character, counted from the end when negative,
    # as Gel's edgedb._index: to_json('"hello"')[-2] is "l"; test_edgeql_json_accessor_23)
    text = "(_jx._v #>> '{}')"
    string = "" if by_text else (
        f"WHEN jsonb_typeof(_jx._v) = 'string' AND _jx._k >= -length({text}) AND _jx._k < length({text}) "
        f"THEN to_jsonb(substr({text}, CASE WHEN _jx._k < 0 THEN length({text}) + _jx._k + 1 ELSE _jx._k + 1 END, "
        "1)) ")
    return (f"(SELECT CASE WHEN _jx._v IS NULL OR _jx._k IS NULL THEN NULL WHEN jsonb_typeof(_jx._v) = '{kind}' "
            f"AND (_jx._v -> _jx._k) IS NOT NULL THEN _jx._v -> _jx._k {string}ELSE {_json_fail(msg, 'jsonb')} END "
            f"FROM (SELECT {_op(node.base)} AS _v, {key} AS _k) AS _jx)")


def _link_target_value(n: qir.LinkTargetValue) -> str:
    """A link property's value read from the linked object, whose id is ``"_t"."id"`` in the
    statement adding the link (:func:`_link_insert`)."""
    row = qir.LINK_TARGET_ROW
    table = n.target.from_sql or qi(n.target.table)
    return f'(SELECT {param_sql(n.value, expr_sql(n.value))} FROM {table} AS {row} WHERE {row}."id" = "_t"."id")'


_EXPR = {
    qir.LinkTargetValue: _link_target_value,
    qir.Literal: literal_sql,
    qir.EnumMember: lambda n: sql_string(n.member),
    qir.ColumnRef: _column,
    qir.SubjectRef: lambda n: quote_ident(n.column.name),
    qir.ParamRef: lambda n: _param_text(n.param.index),
    qir.VarRef: _var,
    qir.Call: _call,
    qir.CountLink: _count_link,
    qir.Unary: _unary,
    qir.Binary: _binary,
    qir.InSet: _in_set,
    qir.InArray: _in_array,
    qir.Cast: _cast,
    qir.JsonCast: _json_cast,
    qir.JsonIndex: _json_index,
    qir.ComputedRef: _computed,
    qir.ValueSet: _value_set,
    # (every extension template is a function call or a parenthesised operator: atomic)
    qir.CountObjects: lambda n: f"(SELECT count(*) {object_set_sql(n.objects)})",
    qir.CountRows: lambda n: f'(SELECT count(*) FROM ({for_rows_sql(n.rows)}) AS "_fr")',
    qir.FreeRowField: lambda n: _free_row_field(n),
    qir.FreeRowsAggregate: lambda n: _free_rows_aggregate(n),
    qir.GroupFieldArray: lambda n: (
        f'(SELECT coalesce(array_agg("_gl".{qi(n.field)} ORDER BY "_gl"."_n") FILTER (WHERE "_gl".{qi(n.field)} '
        f'IS NOT NULL), CAST(ARRAY[] AS {n.type.pg})) FROM ('
        + _group_sql(n.group, numbered=True).replace("\n", " ") + ') AS "_gl")'),
    qir.AggregateRows: lambda n: f'(SELECT {n.func}("_fr"."value") FROM ({for_rows_sql(n.rows)}) AS "_fr")',

    qir.InPath: lambda n: (f'{n.alias}."id" IN ({_path_ids(n.hops, n.subject_row, written_row=n.written_row)})' if n.root_table is None else
                           f'{n.alias}."id" IN (SELECT "_pi"."id" FROM {qi(n.root_table)} AS {n.subject_row} '
                           f'CROSS JOIN LATERAL ({_path_ids(n.hops, n.subject_row)}) AS "_pi"("id"))'),
    qir.InSetPath: lambda n: f'{n.alias}."id" IN ({_path_ids(n.hops, "", n.root)})',
    qir.InObjects: _in_objects,
    qir.InValues: _in_values,
    qir.AggregateObjects: lambda n: (f"(SELECT {n.func}({expr_sql(n.value)}"
                                     + (f" ORDER BY {_agg_order(n)}" if n.order is not None else
                                        f' ORDER BY {n.objects.alias}."_n"' if n.objects.page is not None
                                        and n.func == "array_agg" else "")
                                     # (an empty value is no element of the set, and no Gel array
                                     # holds one: Postgres' array_agg would keep a NULL)
                                     + (f") FILTER (WHERE {expr_sql(n.value)} IS NOT NULL" if n.func == "array_agg"
                                        and n.value.nullable else "")
                                     + f") {object_set_sql(n.objects)})"),
    qir.ExistsObjects: lambda n: f"EXISTS (SELECT 1 {object_set_sql(n.objects)})",
    qir.LinkRowExists: _link_row_exists,
    qir.InMultiLink: _in_multi_link,
    qir.ObjectValue: lambda n: f"(SELECT {expr_sql(n.value)} {object_set_sql(n.objects)})",
    qir.GlobalDefault: _global_default,
    qir.TriggerGlobal: _trigger_global,
    qir.RowField: _row_field,
    qir.BacklinkProp: _backlink_prop,
    qir.LinkPropValues: _link_prop_values,
    qir.UnionTypeName: _union_type_name,
    qir.TupleValue: lambda n: _tuple_json(n),
    qir.FtsSearch: lambda n: _fts_search(n),
    qir.FtsQuery: lambda n: fts.query_sql(_op(n.text), n.regconfig),
    qir.FtsWeights: lambda n: fts.weights_sql(expr_sql(n.weights)),
    qir.LinkPath: _link_path,
    qir.ObjectId: _object_id,
    qir.VisibleId: _visible_id,
    qir.AssertExists: _assert_exists,
    qir.KeptLinks: _kept_links,
    qir.ExistingIds: _existing_ids,
    qir.CastObjectIds: _cast_object_ids,
    qir.JsonArrayElements: _json_array_elements,
    qir.ObjectRow: _object_row,
    qir.ObjectIds: _object_ids,
    qir.SetFilter: _set_filter,
    qir.WrittenIds: _written_ids,
    qir.GroupValue: lambda n: _group_value(n),
    qir.Visible: lambda n: pgpolicies.visible_sql(n, expr_sql),
    qir.PolicyCheck: lambda n: pgpolicies.policy_check_sql(n, expr_sql),
    qir.UpsertCheck: lambda n: pgpolicies.upsert_check_sql(n, expr_sql),
    qir.JoinRowVisible: lambda n: pgpolicies.join_row_visible_sql(n, expr_sql),
}

# ---------------------------------------------------------------------------------------------
# Shapes

#: How a scalar is spelled inside a nested shape's JSON: 64-bit and arbitrary-precision numbers
#: as strings (no float rounding in JS), bytes as base64 (what Go's encoding/json expects);
#: everything else as ``json_build_object`` writes it (timestamps as ISO 8601 strings).
JSON_SPELLING = {"int64": "({})::text", "bigint": "({})::text", "decimal": "({})::text",
                 "bytes": "encode({}, 'base64')",
                 # RFC 3339 at UTC (what Go's time.Time reads; pgx scans date and timestamp
                 # as UTC times); the TS runner cuts them back to the type's own form.
                 "cal::local_date": "to_char({}, 'YYYY-MM-DD\"T00:00:00Z\"')",
                 "cal::local_datetime": "to_char({}, 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')",
                 # PostGIS's text form, as at the top level (its cast to json would be GeoJSON)
                 "ext::postgis::geometry": "({})::text", "ext::postgis::geography": "({})::text",
                 "ext::postgis::box2d": "({})::text", "ext::postgis::box3d": "({})::text"}


#: The numbers whose arrays travel inside nested shapes and tuples as arrays of strings.
JSON_TEXT_ARRAYS = ("int64", "bigint", "decimal")


def _json_value(vtype: ValueType, sql: str, gel_json: bool = False) -> str:
    """``sql`` (of type ``vtype``) as a value inside a nested shape's JSON (:data:`JSON_SPELLING`).
    An array of ``int64``/``bigint``/``decimal`` is an array of strings (``CAST(x AS text[])``),
    as a tuple's is: JSON numbers above 2^53 lose digits in JavaScript, and the runners type
    them as ``string[]`` (``bigint[]`` with ``ts_int64="bigint"``; Go ``[]int64``/``[]string``)."""
    if not gel_json and vtype.element is not None and vtype.element.scalar is not None \
            and vtype.element.scalar.name in JSON_TEXT_ARRAYS:
        return f"CAST({sql} AS text[])"
    if vtype.scalar is not None and vtype.scalar.name in JSON_SPELLING and (
            not gel_json or vtype.scalar.name == "bytes"):
        return JSON_SPELLING[vtype.scalar.name].format(sql)
    if vtype.scalar is not None and vtype.scalar.sql_family == "vector":
        # an ext::pgvector::vector as a JSON array of its float32 values, as Gel's clients read
        # one (https://docs.geldata.com/reference/stdlib/pgvector): pgvector's cast to real[]
        return f"CAST({sql} AS real[])"
    return sql


#: Postgres' limit on the arguments of a function call (FUNC_MAX_ARGS: "cannot pass more than
#: 100 arguments to a function").
MAX_FUNCTION_ARGS = 100


def json_object_sql(pairs: List[Tuple[str, str]], jsonb: bool = False) -> str:
    """``json_build_object(k1, v1, ...)`` of ``pairs`` (each a key's SQL and its value's SQL):
    every JSON object the lowering builds (a shape's objects, a named tuple's, a group's key, a
    trigger's ``<json>__new__``). A call takes at most :data:`MAX_FUNCTION_ARGS` arguments, so an
    object of more keys (a nested shape of 50+ fields) is built in chunks of 50 keys, joined: a
    ``jsonb`` object with ``||``; a ``json`` object (whose keys keep the shape's order, as the
    runners and Gel print them) as text, each chunk without the braces between them,
    ``CAST(... AS json)`` (``json_build_object``'s text is ``{"a" : 1, "b" : 2}``, and never
    NULL)."""
    fn = "jsonb_build_object" if jsonb else "json_build_object"
    return _chunked_json(fn, [f"{k}, {v}" for k, v in pairs], 2, jsonb)


def json_array_sql(items: List[str]) -> str:
    """``json_build_array(e1, ...)``, in chunks joined as text when there are more than
    :data:`MAX_FUNCTION_ARGS` elements (see :func:`json_object_sql`)."""
    return _chunked_json("json_build_array", items, 1, False)


def _chunked_json(fn: str, args: List[str], width: int, jsonb: bool) -> str:
    per = MAX_FUNCTION_ARGS // width
    calls = [f"{fn}({', '.join(args[i:i + per])})" for i in range(0, len(args), per)] or [f"{fn}()"]
    if len(calls) == 1:
        return calls[0]
    if jsonb:
        return "(" + " || ".join(calls) + ")"
    texts = [f"CAST({c} AS text)" for c in calls]
    inner = ([f"left({texts[0]}, -1)"] + [f"substr(left({t}, -1), 2)" for t in texts[1:-1]]
             + [f"substr({texts[-1]}, 2)"])
    return "CAST(" + " || ', ' || ".join(inner) + " AS json)"


def _tuple_json(node: qir.TupleValue, guard: bool = True) -> str:
    """A tuple written in the query, as the runners read it: a JSON array
    (``json_build_array(e0, e1)``; a named tuple ``json_build_object('a', e0, ...)``), as Gel
    spells tuples in JSON (https://docs.geldata.com/reference/stdlib/json). Its elements are
    spelled as inside a nested shape (:data:`JSON_SPELLING`: an ``int64`` as a string), an array
    of ``int64``/``bigint``/``decimal`` as an array of strings; NULL (empty) when an element is."""
    parts = []
    for (name, vtype), e in zip(node.type.fields or (), node.elements):
        if type(e) is qir.TupleValue:
            sql = _tuple_json(e, False)  # type: ignore[arg-type]
        else:
            sql = param_sql(e, expr_sql(e))
            sql = _json_value(vtype, sql)
        parts.append((sql, name))
    if all(n is None for _, n in parts):
        sql = json_array_sql([v for v, _ in parts])
    else:
        sql = json_object_sql([(sql_string(n), v) for v, n in parts])  # type: ignore[arg-type]
    leaves = tuple_nullable_leaves(node) if guard else []
    if leaves:
        test = " OR ".join(f"{_op(leaf)} IS NULL" for leaf in leaves)
        sql = f"CASE WHEN {test} THEN NULL ELSE {sql} END"
    return sql


def tuple_nullable_leaves(node: qir.Expr) -> List[qir.Expr]:
    """The elements of a tuple (nested tuples' in their place) that may be empty."""
    if type(node) is qir.TupleValue:
        return [leaf for e in node.elements for leaf in tuple_nullable_leaves(e)]  # type: ignore[attr-defined]
    return [node] if node.nullable else []


def shape_sql(elements, alias: str, depth: int, join_alias: Optional[str] = None,
              gel_json: bool = False) -> List[Tuple[str, qir.ResultField]]:
    """``[(SQL, field)]`` of a shape over rows named ``alias``. A single link with a sub-shape
    is a correlated sub-select building one JSON object; a multi link one building a JSON array
    (``json_agg``, ordered by the target's id). ``join_alias``: inside a multi link's shape,
    the alias of its join table (``@prop`` reads it). ``gel_json``: the values as Gel's
    ``<json>`` cast spells them (numbers as JSON numbers), not as the runners read them."""
    out: List[Tuple[str, qir.ResultField]] = []
    for el in elements:
        t = type(el)
        if t is qir.ShapeColumn:
            col = el.column
            if depth > 0:
                out.append((_json_value(col.type, f"{alias}.{qi(col.name)}", gel_json), el.field))
            else:
                out.append((qi(col.name), el.field))
        elif t is qir.ShapeLinkProp:
            out.append((_json_value(el.column.type, f"{join_alias}.{qi(el.column.name)}", gel_json), el.field))
        elif t is qir.ShapeLinkId:
            ref = qi(el.column.name)
            if el.visible is not None:
                ref = visible_link_sql(ref, el.link.target, el.visible)
            out.append((ref, el.field))
        elif t is qir.ShapeComputed:
            sql = param_sql(el.value, expr_sql(el.value))
            if depth == 0 and type(el.value) is qir.Call and el.value.func in INT4_CALLS:  # type: ignore[attr-defined]
                # Postgres' lengths are `integer`; Gel's len() is int64, which the runners read
                # as an int8 (node-postgres: its text)
                sql = f"CAST({sql} AS bigint)"
            out.append((_json_value(el.value.type, sql, gel_json) if depth > 0 else sql, el.field))
        elif t is qir.ShapeEmpty:
            f = el.field
            if f.shape is not None:
                sql = "'[]'::json" if f.multi else "NULL::json"
            elif f.type is not None and f.type.element is not None:
                sql = f"'{{}}'::{f.type.pg}"
            else:
                sql = f"NULL::{f.type.pg}"  # type: ignore[union-attr]
            out.append((_json_value(f.type, sql, gel_json) if depth > 0 and f.type is not None else sql, f))
        elif t is qir.ShapeGroupList:
            out.append((_group_list_sql(el), el.field))
        elif t is qir.ShapeComputedLink:
            # A backlink or computed link: its objects, like a stored link's.
            inner_alias = qi(f"_s{depth + 1}")
            inner = shape_sql(el.elements, inner_alias, depth + 1, gel_json=gel_json)
            obj = json_object_sql([(sql_string(f.name), sql) for sql, f in inner])
            from_where = object_set_sql(el.objects)
            sql = _nested_sql(obj, from_where, inner_alias, el.objects.multi, el.clauses, depth)
            if el.required:
                # Gel's assert_exists: no object fails the statement (a cast that reads the
                # sub-select again, so Postgres cannot fold it into a constant)
                from schemac.pgsql import asserts

                sql = f"coalesce({sql}, {asserts.fail_sql('assert_exists', None, sql, 'json')})"
            out.append((sql, el.field))
        else:
            link = el.link
            inner_alias = qi(f"_s{depth + 1}")
            join = qi(f"_j{depth + 1}")
            # (a single link's link properties are columns of the source row, ``alias``)
            inner = shape_sql(el.elements, inner_alias, depth + 1,
                              None if el.join_type is None else join if link.multi else alias, gel_json=gel_json)
            obj = json_object_sql([(sql_string(f.name), sql) for sql, f in inner])
            values = None
            if el.values:
                # (the one element's values, not objects: a column of the linked rows)
                col = el.elements[0].column  # type: ignore[attr-defined]
                obj = f"{inner_alias}.{qi(col.name)}"
                obj, values = (_json_value(col.type, obj, gel_json), "json") if depth > 0 else (obj, el.field.type.pg)
            target = link.target.from_sql or qi(link.target.table)
            if el.written_cte is not None and not link.multi:
                target = _written_rows(link.target, el.written_cte, target)
            visible = f" AND {expr_sql(el.visible)}" if el.visible is not None else ""
            if link.multi:
                # (a new object's links: the join rows its insert's link CTE wrote; or the link
                # rows as the statement leaves them, links_after_sql)
                links = el.written_cte if el.written_cte is not None and el.written_cte.startswith(LINKS_AFTER) \
                    else qi(el.written_cte or link.join_table)  # type: ignore[arg-type]
                from_where = (f"FROM {links} AS {join} JOIN {target} AS {inner_alias} "
                              f"ON {inner_alias}.\"id\" = {join}.\"target_id\" WHERE {join}.\"source_id\" = {alias}.\"id\"{visible}")
            else:
                ref = (f"COALESCE({', '.join(f'{alias}.{qi(c)}' for c in link.columns)})" if link.columns
                       else f"{alias}.{qi(link.column)}")  # type: ignore[arg-type]
                from_where = f"FROM {target} AS {inner_alias} WHERE {inner_alias}.\"id\" = {ref}{visible}"
            out.append((_nested_sql(obj, from_where, inner_alias, link.multi and not el.single, el.clauses, depth,
                                    values), el.field))
    return out


def _written_rows(target: ObjectType, cte: str, table: str) -> str:
    """The objects of ``target`` as a statement leaves them: those a write of the same statement
    wrote, from its CTE ``cte`` (``RETURNING *``); the others as the table holds them (the
    statement does not see its own writes there)."""
    cols = ", ".join(qi(c.name) for c in target.columns)
    return (f'(SELECT {cols} FROM {qi(cte)} UNION ALL SELECT {cols} FROM {table} '
            f'WHERE "id" NOT IN (SELECT "id" FROM {qi(cte)}))')


def read_ctes(node: qir.Node, nodes: Optional[Iterable[qir.Node]] = None) -> FrozenSet[str]:
    """The CTEs of writes whose rows the statement ``node`` reads (a nested insert's then
    returns ``*``, not only its id); ``nodes``: its nodes, when already walked (ir_facts)."""
    out = set()
    for n in qir.walk(node) if nodes is None else nodes:
        t = type(n)
        if t is qir.ShapeLink and n.written_cte and not n.written_cte.startswith(LINKS_AFTER):  # type: ignore[attr-defined]
            out.add(n.written_cte)  # type: ignore[attr-defined]
        elif t is qir.LinkPath and n.first_cte:  # type: ignore[attr-defined]
            out.add(n.first_cte)  # type: ignore[attr-defined]
    return frozenset(out)


def _nested_sql(obj: str, from_where: str, alias: str, multi: bool, clauses: Optional[qir.ShapeClauses],
                depth: int, values: Optional[str] = None) -> str:
    """A nested shape's sub-select: one JSON object (``obj``) of the rows ``from_where`` (a
    ``FROM ... WHERE ...`` naming them ``alias``), or for a multi link a JSON array of them, in
    the ``order by`` of its clauses then by id (by id alone without one). With ``offset`` /
    ``limit`` the rows are picked in that order by an inner select, which numbers them
    (``row_number()``) so the array keeps the order."""
    where, keys, page = "", [], ""
    if clauses is not None:
        if clauses.filter is not None:
            where = f" AND ({cond_sql(clauses.filter)})"
        keys = [_order_sql(k) for k in clauses.order]
        if clauses.offset is not None:
            page += f" OFFSET {expr_sql(clauses.offset)}"
        if clauses.limit is not None:
            page += f" LIMIT {expr_sql(clauses.limit)}"
    keys.append(f'{alias}."id"')
    order = ", ".join(keys)
    if not multi:
        return f"(SELECT {obj} {from_where}{where}{' ORDER BY ' + order if page else ''}{page})"
    if values is not None:
        # `(select .link ...).p`: the values ``obj`` of the rows picked in order, an empty one
        # no element (``values``: the array's Postgres type, or "json" inside a nested shape)
        rows = qi(f"_r{depth + 1}")
        agg, empty = (("json_agg", "'[]'::json") if values == "json"
                      else ("array_agg", f"CAST(ARRAY[] AS {values})"))
        return (f"(SELECT coalesce({agg}({rows}.\"v\" ORDER BY {rows}.\"n\"), {empty}) FROM "
                f"(SELECT {obj} AS \"v\", row_number() OVER (ORDER BY {order}) AS \"n\" {from_where}{where}"
                f"{' ORDER BY ' + order + page if page else ''}) AS {rows} WHERE {rows}.\"v\" IS NOT NULL)")
    if not page:
        return f"(SELECT coalesce(json_agg({obj} ORDER BY {order}), '[]'::json) {from_where}{where})"
    rows = qi(f"_r{depth + 1}")
    return (f"(SELECT coalesce(json_agg({rows}.\"v\" ORDER BY {rows}.\"n\"), '[]'::json) FROM "
            f"(SELECT {obj} AS \"v\", row_number() OVER (ORDER BY {order}) AS \"n\" {from_where}{where} "
            f"ORDER BY {order}{page}) AS {rows})")


def _order_sql(k: qir.OrderKey) -> str:
    """An ``order by`` key in SQL: Gel's order of empty values always written out."""
    return f"{_order_key(k.expr)}{' DESC' if k.descending else ' ASC'} NULLS {k.empty.upper()}"


def _columns(picked: List[Tuple[str, qir.ResultField]]) -> List[str]:
    return [sql if sql == qi(f.name) else f"{sql} AS {qi(f.name)}" for sql, f in picked]


# ---------------------------------------------------------------------------------------------
# Statements


def render_ctes(ctes: List[Tuple[str, sqt.Node]], final: sqt.Node) -> sqt.Node:
    """``WITH "a" AS (\n...\n),\n"b" AS (\n...\n)\n<final>`` (just ``final`` without CTEs)."""
    return sqt.With([sqt.CTE(name, body) for name, body in ctes], final) if ctes else final


def _where(filt: Optional[qir.Expr], node: Optional[qir.Expr] = None) -> str:
    """``"\nWHERE ..."`` of a filter (``""`` without one), restricted to the rows an access
    policy predicate (``node``) allows."""
    visible = None if node is None else expr_sql(node)
    if visible is None:
        return "" if filt is None else f"\nWHERE {cond_sql(filt)}"
    if filt is None:
        return f"\nWHERE {visible}"
    return f"\nWHERE ({cond_sql(filt)}) AND {visible}"


def _where_node(filt: Optional[qir.Expr], node: Optional[qir.Expr] = None) -> Optional[sqt.Node]:
    """The condition of :func:`_where` (``None`` without one)."""
    visible = None if node is None else expr_sql(node)
    if visible is None:
        return None if filt is None else _raw(cond_sql(filt))
    if filt is None:
        return _raw(visible)
    return _raw(f"({cond_sql(filt)}) AND {visible}")


def _assign_sql(a: qir.Assign, ctx: "Ctx") -> str:
    value = a.value
    sql = expr_sql(value)
    col = a.column
    if a.op == ":=":
        if a.default == "param":
            # Given (the variant where the runner sends it): the value. Omitted, the column is
            # left out of the insert (see statement_variants): the database's DEFAULT applies.
            # Past the MAX_OMITTABLE-th, NULL gets a copy of the default.
            if a.value.param.index in ctx.copied:  # type: ignore[attr-defined]
                return f"COALESCE({sql}::{col.type.pg}, {col.default_sql})"
            return f"{sql}::{col.type.pg}"
        if a.default == "row":
            # A default reading the row: its BEFORE INSERT trigger fills a NULL.
            return f"{sql}::{col.type.pg}" if type(value) is qir.ParamRef else sql
        if a.default == "cast":
            # A default reading a global: the parameter typed as the column.
            return f"{sql}::{col.type.pg}" if type(value) is qir.ParamRef else sql
        if a.default == "reset":
            # A single link's link property the new link leaves out: its default, or empty.
            return col.default_sql if col.default_sql is not None else sql
        if a.default == "reset_unless_same":
            # ... unless the link keeps its object (``value``: the link's new id), whose link
            # keeps the property
            new = col.default_sql if col.default_sql is not None else f"NULL::{col.type.pg}"
            return (f"CASE WHEN {qi(col.link_prop + '_id')} IS NOT DISTINCT FROM {param_sql(value, sql)} "  # type: ignore[operator]
                    f"THEN {qi(col.name)} ELSE {new} END")
        if a.default == "json":
            # `<optional T>item['k']` of a json loop: a missing member means the default.
            return f"COALESCE({sql}, {col.default_sql})"
        return sql
    # `tags += value` appends (a multi property is a multiset, as in Gel); `-=` is the multiset
    # difference (Gel's `except`, https://docs.geldata.com/reference/edgeql/sets: geldata/gel
    # tests/test_edgeql_update.py test_edgeql_update_subtract_non_distinct, ['1','1','2','3','2',
    # '2','3','4'] -= {'1','2','2','3','5'} is ['1','2','3','4']): each element given removes one
    # occurrence (the k-th occurrence of a value stays when the value is given fewer than k times;
    # the first ones go), keeping the order of the rest; an empty value removes nothing.
    value_sql = param_sql(value, sql)
    target = qi(col.name)
    if a.op == "+=":
        return f"array_append({target}, {value_sql})" if a.element else f"array_cat({target}, {value_sql})"
    if not col.multi:
        # `-=` on an array<T> property (not Gel: schemac's own) removes every occurrence
        keep = f"_e <> {value_sql}" if a.element else f"_e <> ALL ({value_sql})"
        return (f"ARRAY(SELECT _e FROM unnest({target}) WITH ORDINALITY AS _u(_e, _n) "
                f"WHERE {keep} ORDER BY _n)")
    given = (f"CASE WHEN _r._e = {value_sql} THEN 1 ELSE 0 END" if a.element else
             f"(SELECT count(*) FROM unnest({value_sql}) AS _d(_e) WHERE _d._e = _r._e)")
    return (f"ARRAY(SELECT _r._e FROM (SELECT _e, _n, row_number() OVER (PARTITION BY _e ORDER BY _n) AS _k "
            f"FROM unnest({target}) WITH ORDINALITY AS _u(_e, _n)) AS _r WHERE _r._k > {given} ORDER BY _r._n)")


def _set_list(sets, ctx: "Ctx") -> List[Tuple[str, sqt.Node]]:
    return [(a.column.name, _raw(_assign_sql(a, ctx))) for a in sets]


def _returning(stmt: sqt.Node, cols: List[sqt.Node]) -> sqt.Node:
    """A copy of a write (or a select) returning (selecting) ``cols``."""
    t = type(stmt)
    out = t.__new__(t)
    for slot in t.__slots__:
        setattr(out, slot, getattr(stmt, slot))
    if t is sqt.Select:
        out.targets = tuple(cols)  # type: ignore[attr-defined]
    else:
        out.returning = tuple(cols)  # type: ignore[attr-defined]
    return out


def _ids_sql(a: qir.LinkAssign) -> str:
    sql = expr_sql(a.ids)
    return f"{sql}::uuid[]" if type(a.ids) is qir.ParamRef else sql


#: In the shape of ``select (insert | update ...) { tags: { ... } }``: marks the join table
#: (its name follows, then ``\x01``) whose rows the shape reads as the statement leaves them (links_after_sql).
LINKS_AFTER = "\x01after\x01"

def links_after_sql(ctes: List[Tuple[str, sqt.Node]], final: sqt.Node) -> sqt.Node:
    """The statement of a write's CTEs and the select ``final`` over its rows, whose shape reads
    the join tables the write changes (:data:`LINKS_AFTER`): the statement does not see its own
    writes (each part of a Postgres statement sees the snapshot it started with), so a link's
    rows as the statement leaves them are the table's rows but those its link CTEs deleted or
    wrote, and the rows they wrote (``RETURNING *``; an existing link an ``ON CONFLICT DO
    NOTHING`` left alone is the table's). Gel's result of a write shows its objects after it
    (https://docs.geldata.com/reference/edgeql/insert#with-block)."""
    out = []
    writes: Dict[str, List[Tuple[str, type]]] = {}
    # (the placeholders are text inside the shape's SQL, which the checker writes: step 2)
    raws = [x for x in tree_walk(final) if type(x) is sqt.Raw]
    text = "".join(p for x in raws for p in x.parts if type(p) is str)  # type: ignore[attr-defined]
    for name, body in ctes:
        t = type(body)
        if name.startswith("_link") and (t is sqt.Insert or t is sqt.Delete) \
                and LINKS_AFTER + body.table + "\x01" in text:  # type: ignore[attr-defined]
            writes.setdefault(body.table, []).append((name, t))  # type: ignore[attr-defined]
            body = _returning(body, [sqt.Star('"_l"')] if t is sqt.Delete else [sqt.Star()])
        out.append((name, body))
    rels: Dict[str, sqt.Node] = {}
    pair = [sqt.Name("source_id"), sqt.Name("target_id")]
    for join, parts in writes.items():
        touched = sqt.SetOp([sqt.Select(pair, [sqt.Table(n)], multiline=False) for n, _ in parts], multiline=False)
        kept = sqt.Select([sqt.Star()], [sqt.Table(join)], multiline=False,
                          where=sqt.Op("NOT IN", sqt.RowExpr(pair), sqt.SubLink(touched)))
        written = [sqt.Select([sqt.Star()], [sqt.Table(n)], multiline=False) for n, t in parts if t is sqt.Insert]
        rels[join] = sqt.SubLink(sqt.SetOp([kept] + written, multiline=False) if written else kept)
    for x in raws:
        if any(type(p) is str and LINKS_AFTER in p for p in x.parts):  # type: ignore[attr-defined]
            x.parts = tuple(q for p in x.parts  # type: ignore[attr-defined]
                            for q in ((p,) if type(p) is not str else _raw(p, links_after=rels).parts))
    return render_ctes(out, final)


#: In a multi link's value: the rows whose links a statement writes (``"_new"``), named when the
#: statement is written; the value may read each one (``(select detached User filter User.name
#: != .name)`` in an update of User).
LINK_ROWS = "\x01rows\x01"


def link_row_qualifier(table: str) -> str:
    """The qualifier of a column of the row whose links a statement writes (:data:`LINK_ROWS`),
    read by a multi link's value as a row of ``table`` (``update User set { follows := (select
    detached User filter User.name != .name) }``: ``User.name`` of each updated object): ``((SELECT
    "_w" FROM <table> AS "_w" WHERE "_w"."id" = <the row>."id"))``, a whole-row value whose
    fields the column reads."""
    return f'((SELECT "_w" FROM {qi(table)} AS "_w" WHERE "_w"."id" = {LINK_ROWS}."id"))'


@dataclass(frozen=True)
class _Rows:
    """Which written rows a join-table write is for: ``source`` joins each row of a ``for``
    loop's write with its element (:func:`_loop_join`), ``only`` keeps the rows an upsert
    inserted (``"_inserted"``) or those it did not (``NOT "_inserted"``)."""

    source: Optional[Callable[[str], str]] = None
    only: Optional[str] = None

    def from_sql(self, rows: str) -> str:
        return rows if self.source is None else f"{rows} {self.source(rows)}"

    def cond(self, rows: str) -> Optional[str]:
        if self.only is None:
            return None
        return f'{"NOT " if self.only == "not" else ""}{rows}."_inserted"'


_ALL_ROWS = _Rows()


def _link_insert(join: str, ids: str, on_conflict: bool, sub_column: Optional[str] = None,
                 props=(), which: _Rows = _ALL_ROWS, distinct: bool = False) -> Callable[[str], sqt.Node]:
    """Insert the written rows' links to ``ids``; ``sub_column``: a polymorphic multi link's
    column of the targets' subtype (it holds the id too; see :class:`schemac.semantics.model.PolyLink`);
    ``props``: link properties set on them (an existing link then gets the new values, as Gel
    re-links it); ``which``: the written rows it is for (:class:`_Rows`); ``distinct``: a row
    may be written with several elements of a loop, each link once (``DISTINCT ON``)."""
    cols = ["source_id", "target_id"] + ([sub_column] if sub_column else []) + [c.name for c, _ in props]
    target = sqt.Column('"_t"', "id")
    extra: List[sqt.Node] = ([target] if sub_column else []) + [_raw(param_sql(v, expr_sql(v))) for _, v in props]
    conflict = None
    if on_conflict:
        sets = [(c.name, sqt.Column("excluded", c.name)) for c, _ in props] or None
        conflict = sqt.OnConflict(["source_id", "target_id"], sets=sets)

    def build(rows: str) -> sqt.Node:
        # (LATERAL when the ids read each written row, or its loop element)
        lateral = LINK_ROWS in ids or which.source is not None
        unnest = sqt.Select([sqt.Target(sqt.Func("unnest", [_raw(ids, rows=rows)]), "id")], distinct=True,
                            multiline=False)
        source = sqt.Column(rows, "id")
        cond = which.cond(rows)
        select = sqt.Select([source, target] + extra,
                            [_raw(which.from_sql(rows)), sqt.RangeSubselect(unnest, sqt.Alias("_t"), lateral)],
                            where=None if cond is None else sqt.Raw(cond),
                            distinct_on=[source, target] if distinct else (), multiline=False)
        return sqt.Insert(join, cols, select=select, on_conflict=conflict)
    return build


def _link_rows_source(r: qir.LinkRows) -> str:
    """``SELECT DISTINCT ON (id)`` the objects each element of a :class:`qir.LinkRows` loop
    selects, with their link properties (``"_p0"``...): an object selected twice is linked
    once, with the properties of one of them, as a link is a set. (Its rows are named
    ``"_lbatch"``: its source may read the ``"_batch"`` row of a loop around the write.)"""
    vals = "".join(f", {param_sql(v, expr_sql(v))} AS {qi('_p' + str(i))}" for i, (_, v) in enumerate(r.props))
    where = _op(r.filter) if r.visible is None else f"{_op(r.filter)} AND {expr_sql(r.visible)}"
    return (f'SELECT DISTINCT ON ({r.alias}."id") {r.alias}."id" AS "id"{vals} '
            f'FROM (SELECT "_lbatch".* FROM {_batch_sql(r.batch, qi("_lbatch"))}) AS {r.batch.var.row}, '
            f'{qi(r.target.table)} AS {r.alias} WHERE {where} ORDER BY {r.alias}."id"')


def _link_rows_insert(a: qir.LinkAssign, which: _Rows = _ALL_ROWS, on_conflict: bool = False) -> Callable[[str], sqt.Node]:
    """Insert the written rows' links of a ``for`` loop's objects (:class:`qir.LinkRows`,
    :func:`_link_rows_source`); ``on_conflict``: a link that exists gets the new link
    properties (as Gel re-links it)."""
    r = a.rows
    assert r is not None
    cols = ["source_id", "target_id"] + [c.name for c, _ in r.props]
    picks: List[sqt.Node] = [sqt.Column('"_t"', "_p" + str(i)) for i in range(len(r.props))]
    source = _raw(_link_rows_source(r))
    conflict = None
    if on_conflict:
        sets = [(c.name, sqt.Column("excluded", c.name)) for c, _ in r.props] or None
        conflict = sqt.OnConflict(["source_id", "target_id"], sets=sets)

    def build(rows: str) -> sqt.Node:
        cond = which.cond(rows)
        select = sqt.Select([sqt.Column(rows, "id"), sqt.Column('"_t"', "id")] + picks,
                            [_raw(which.from_sql(rows)),
                             sqt.RangeSubselect(source, sqt.Alias("_t"), which.source is not None)],
                            where=None if cond is None else sqt.Raw(cond), multiline=False)
        return sqt.Insert(a.link.join_table, cols, select=select, on_conflict=conflict)  # type: ignore[arg-type]
    return build


def _link_rows_changes(a: qir.LinkAssign, which: _Rows) -> List[Callable[[str], sqt.Node]]:
    """``link := / += (for x in ... union (select T { @p := ... } filter ...))`` in an upsert's
    else update: ``:=`` deletes the links to every other object, and both insert the links
    (an existing one gets the new link properties)."""
    r = a.rows
    assert r is not None
    out: List[Callable[[str], sqt.Node]] = []
    if a.op == ":=":
        ids = f'ARRAY(SELECT "_k"."id" FROM ({_link_rows_source(r)}) AS "_k")'
        out.append(_link_delete(a.link.join_table, ids, True, which))  # type: ignore[arg-type]
    out.append(_link_rows_insert(a, which, True))
    return out


def _link_delete(join: str, ids: str, keep: bool, which: _Rows = _ALL_ROWS) -> Callable[[str], sqt.Node]:
    """Delete the written rows' links to ``ids`` (``keep``: to every target but ``ids``)."""
    def build(rows: str) -> sqt.Node:
        only = which.cond(rows)
        cond = f' AND "_l"."target_id" <> ALL ({ids})' if keep else f' AND "_l"."target_id" = ANY ({ids})'
        where = f'"_l"."source_id" = {rows}."id"{"" if only is None else " AND " + only}{cond}'
        return sqt.Delete(join, "_l", [_raw(which.from_sql(rows))], _raw(where, rows=rows))
    return build


def _link_changes(links, which: _Rows = _ALL_ROWS) -> List[Callable[[str], sqt.Node]]:
    """The join-table writes of ``tags += / -= / := (select Tag filter .id in ...)`` in an
    update: ``+=`` inserts the missing links (``ON CONFLICT DO NOTHING``: a link is a set),
    ``-=`` deletes the given ones, ``:=`` deletes every other link and inserts the missing
    ones (links that stay keep their link properties)."""
    out: List[Callable[[str], sqt.Node]] = []
    for a in links:
        join = a.link.join_table
        ids = _ids_sql(a)
        if a.op == "+=":
            out.append(_link_insert(join, ids, True, a.link.column, a.props, which))
        elif a.op == "-=":
            out.append(_link_delete(join, ids, False, which))
        else:
            out.append(_link_delete(join, ids, True, which))
            if type(a.ids) is qir.KeptLinks:
                continue  # (a subset of the links: nothing to insert)
            out.append(_link_insert(join, ids, True, a.link.column, a.props, which))
    return out


def _loop_update_links(links, source: str) -> List[Callable[[str], sqt.Node]]:
    """The join-table writes of a ``for`` loop's update (:func:`source_ctes`: ``source`` holds
    each updated object with each element whose filter picks it): Gel writes the links of every
    element (https://docs.geldata.com/reference/edgeql/for: the bodies' results are united), so
    ``+=`` inserts each element's targets, ``-=`` deletes each element's, and ``:=`` keeps the
    links to a target of one of the object's elements and deletes the others. An object linked
    by several elements is linked once, with the link properties of one of them (a link is a
    set)."""
    which = _Rows(lambda rows: f'JOIN {source} AS "_batch" ON {rows}."id" = "_batch"."_oid"')
    out: List[Callable[[str], sqt.Node]] = []
    for a in links:
        join = a.link.join_table
        ids = _ids_sql(a)
        if a.op == "-=":
            out.append(_link_delete(join, ids, False, which))
            continue
        if a.op == ":=":
            def delete(rows: str, join=join, ids=ids) -> sqt.Node:
                where = (f'"_l"."source_id" = {rows}."id" AND NOT EXISTS (SELECT 1 FROM {source} AS "_batch" WHERE '
                         f'"_batch"."_oid" = {rows}."id" AND "_l"."target_id" = ANY ({ids}))')
                return sqt.Delete(join, "_l", [sqt.Raw(rows)], _raw(where, rows=rows))
            out.append(delete)
            if type(a.ids) is qir.KeptLinks:
                continue  # (a subset of the links: nothing to insert)
        out.append(_link_insert(join, ids, True, a.link.column, a.props, which, distinct=True))
    return out


#: The transaction-local setting a get-or-insert sets to its table's name while Postgres
#: rewrites the existing row to itself, read by the ``WHEN`` of the table's update triggers
#: (:func:`schemac.semantics.triggers.else_select_when`); see :func:`else_select_marks`.
ELSE_SELECT_SETTING = "schemac.else_select"


def else_select_marks(w) -> bool:
    """Whether a write is a get-or-insert, ``insert T {...} unless conflict on ... else (select
    T)``, of a table whose update triggers must not fire for it (a table of a dependency
    library may have them: its own migrations created them).

    Gel's else branch is a select: the existing object is returned, not updated, so its update
    rewrites and update triggers do not run (https://docs.geldata.com/reference/edgeql/insert#upserts,
    https://docs.geldata.com/reference/datamodel/mutation_rewrites). Postgres returns the row
    that conflicted only from ``ON CONFLICT DO UPDATE``, which also sees (and waits for) a row
    committed after the statement's snapshot was taken, in READ COMMITTED
    (https://www.postgresql.org/docs/15/sql-insert.html#SQL-ON-CONFLICT); ``DO NOTHING`` and a
    select of the existing row in the same statement would find nothing then. So the row is
    rewritten to itself (``SET "id" = "id"``: its values do not change), and the update's
    ``WHERE`` sets :data:`ELSE_SELECT_SETTING` to the table's name first: the ``WHEN`` of the
    table's row triggers on ``UPDATE`` is then false, so Postgres neither calls the rewrite nor
    queues the trigger. The row's ``RETURNING`` (evaluated after both) clears it, so the next
    row, the triggers the statement queued and the next statements see it empty."""
    c = getattr(w, "conflict", None)
    if c is None or c.else_kind != "select" or c.arbiter is None:
        return False
    # (the only WHEN conditions of the triggers schemac creates are else_select_when's)
    return w.subject.library is not None or any(tr.when is not None for tr in w.subject.triggers)


def _else_select_set(table: str) -> str:
    return f"set_config({sql_string(ELSE_SELECT_SETTING)}, {sql_string(table)}, true)"


#: The column of a get-or-insert's ``RETURNING`` that clears :data:`ELSE_SELECT_SETTING`.
ELSE_SELECT_CLEAR = sqt.Target(sqt.Func("set_config", [sqt.Literal(ELSE_SELECT_SETTING, quoted=True),
                                                       sqt.Literal("", quoted=True), sqt.Literal("true")]),
                               "_else_select")


def _conflict_sql(c: qir.Conflict, subject: ObjectType, ctx: "Ctx", marks: bool = False) -> sqt.OnConflict:
    if c.arbiter is None:
        return sqt.OnConflict()
    ex = c.arbiter
    where = _raw(ex.predicate_sql) if ex.partial else None
    if c.else_kind is None:
        return sqt.OnConflict(ex.columns, where)
    same = [("id", sqt.Column(qi(subject.table), "id"))]
    if c.else_kind == "select":
        # Writes the existing row's own id back: the row is unchanged, but locked and returned
        # (else_select_marks: without firing the table's update triggers).
        mark = _raw(f"{_else_select_set(subject.table)} IS NOT NULL") if marks else None
        return sqt.OnConflict(ex.columns, where, same, mark)
    # (an else update of links alone: the row is rewritten to itself, an update that changes no
    # column, as an update of links alone is when the table has update triggers)
    sets = _set_list(c.else_sets, ctx) if c.else_sets else same

    # Inside DO UPDATE the proposed row (`excluded`) is in scope too: the checker qualified
    # the columns.
    conds = ([] if c.else_filter is None else [cond_sql(c.else_filter)]) + \
        ([] if c.else_visible is None else [expr_sql(c.else_visible)])
    cond = None if not conds else _raw(conds[0] if len(conds) == 1 else " AND ".join(f"({x})" for x in conds))
    return sqt.OnConflict(ex.columns, where, sets, cond, set_newline=True)


def _upsert_links(w) -> bool:
    """Whether a write is an upsert (``unless conflict ... else``) that writes multi links: its
    ``RETURNING`` tells the rows it inserted (``"_inserted"``, ``xmax = 0``: Postgres has not
    updated the row) from the existing ones, as the insert's links are written for the former
    and the else update's for the latter (https://docs.geldata.com/reference/edgeql/insert#upserts)."""
    c = getattr(w, "conflict", None)
    return c is not None and c.else_kind is not None and bool(w.links or c.else_links)


def _loop_links(w) -> bool:
    """Whether a write is a ``for`` loop's insert or update that writes multi links: each row's
    links are read from its element, so the loop's elements are a CTE of their own
    (:func:`source_ctes`)."""
    c = getattr(w, "conflict", None)
    if type(w) is qir.Update:
        return w.batch is not None and bool(w.links)
    return type(w) is qir.Insert and w.batch is not None and bool(w.links or (c is not None and c.else_links))


def _arbiter_keys(w) -> List[Tuple[str, qir.Assign]]:
    """The insert's values of its upsert's arbiter columns: (column, assignment)."""
    keys = w.conflict.arbiter.columns
    return [(a.column.name, a) for a in w.sets if a.column.name in keys]


def source_ctes(w, name: str, ctx: "Ctx") -> List[Tuple[str, sqt.Node]]:
    """The CTE written before a ``for`` loop's insert named ``name`` that writes multi links
    (:func:`_loop_links`): the loop's elements, each with the id of the object it inserts
    (``gen_random_uuid()``, as the column's default; a CTE calling a volatile function is
    computed once) and, in an upsert, the values of the arbiter's columns. The join-table
    writes find each element's row by that id, or by those values when the upsert returned an
    existing row (Postgres fails an ``ON CONFLICT DO UPDATE`` that meets a row twice, so one
    element at most has them)."""
    if not _loop_links(w):
        return []
    if type(w) is qir.Update:
        # A loop's update: each object it updates with each element whose filter picks it
        # (Gel's update range, one row per element and object: the links of every element are
        # written, https://docs.geldata.com/reference/edgeql/for), read on the statement's snapshot.
        table = w.subject.table
        return [(name + "_src", sqt.Select([sqt.Target(sqt.Column(qi(table), "id"), "_oid"), sqt.Star('"_batch"')],
                                           [sqt.Table(table), _raw(_batch_sql(w.batch))],
                                           _where_node(w.filter, w.visible), from_inline=True))]
    keys: List[sqt.Node] = [sqt.Target(_raw(_assign_sql(a, ctx)), "_k" + str(i))
                            for i, (_, a) in enumerate(_arbiter_keys(w) if _upsert_links(w) else ())]
    return [(name + "_src", sqt.Select([sqt.Target(sqt.Func("gen_random_uuid"), "_id")] + keys + [sqt.Star('"_batch"')],
                                       [_raw(_batch_sql(w.batch))], multiline=False))]


def _loop_join(w, source: str) -> Callable[[str], str]:
    """``JOIN <source> AS "_batch" ON ...``: each written row of a loop's insert with its element."""
    if not _upsert_links(w):
        return lambda rows: f'JOIN {source} AS "_batch" ON {rows}."id" = "_batch"."_id"'
    keys = " AND ".join(f'{{rows}}.{qi("_rk" + str(i))} = "_batch".{qi("_k" + str(i))}'
                        for i in range(len(_arbiter_keys(w))))
    return lambda rows: (f'JOIN {source} AS "_batch" ON ({rows}."id" = "_batch"."_id" OR '
                         f'(NOT {rows}."_inserted" AND {keys.format(rows=rows)}))')


Statement = Callable[[List[sqt.Node]], sqt.Node]
LinkWrite = Callable[[str], sqt.Node]


def write_sql(w, ctx: "Ctx", in_cte: bool = False, name: str = "_new") -> Tuple[Statement, List[LinkWrite]]:
    """An insert, update or delete: ``(statement, links)``. ``statement(cols)`` is the statement
    returning ``cols``; ``links`` build the statements writing multi links' join tables, given
    the name of the CTE that holds the written rows. ``in_cte``: the statement is a CTE whose
    rows nothing may read to the end: its access policy check is in its ``RETURNING`` (a
    data-modifying CTE runs to its end, ``RETURNING`` included, whether or not it is read);
    an upsert's always is. ``name``: the statement's CTE, when :func:`source_ctes` are written
    before it (as ``<name>_src``)."""
    check = w.returning_check if in_cte or w.check is None else None
    statement, links = _write_sql(w, ctx, qi(name + "_src"))
    if else_select_marks(w):
        # (a column of its own: the statement is a CTE, and the query selects its columns)
        marked = statement
        statement = lambda cols: marked(cols + [ELSE_SELECT_CLEAR])  # noqa: E731
    if _upsert_links(w):
        table = qi(w.subject.table)
        extra: List[sqt.Node] = [sqt.Target(sqt.Raw(f"({table}.xmax = 0)"), "_inserted")]
        if _loop_links(w):
            extra += [sqt.Target(sqt.Column(table, c), "_rk" + str(i)) for i, (c, _) in enumerate(_arbiter_keys(w))]
        upserted = statement
        statement = lambda cols: upserted(cols + extra)  # noqa: E731
    if check is None:
        return statement, links
    allowed = sqt.Target(_raw(expr_sql(check)), "_allowed")
    return (lambda cols: statement(cols + [allowed])), links


@dataclass(frozen=True)
class Ctx:
    """What one statement's lowering is told (passed down to every write; it was module-level
    state): ``trigger_settings``, the globals Gel triggers read, ``(setting, parameter index,
    Postgres type)``, which every write hands over (:func:`_settings_from`); while a
    :class:`Variant` is written, ``omitted``, the parameters the runner leaves out (their
    columns are left out of the insert), and ``copied``, the defaulted parameters past
    :data:`MAX_OMITTABLE` (``NULL`` gets a copy of the default)."""

    trigger_settings: Tuple[Tuple[str, int, str], ...] = ()
    omitted: FrozenSet[int] = frozenset()
    copied: FrozenSet[int] = frozenset()
    #: :func:`read_ctes` of the statement's nodes by ``id``, when the statement is written more
    #: than once (its variants read the same CTEs) or its root's is known (ir_facts).
    read: Optional[Dict[int, FrozenSet[str]]] = None

    def read_ctes(self, node: qir.Node) -> FrozenSet[str]:
        if self.read is None:
            return read_ctes(node)
        hit = self.read.get(id(node))
        if hit is None:
            hit = self.read[id(node)] = read_ctes(node)
        return hit


def _settings_from(ctx: "Ctx") -> str:
    """A one-row ``FROM`` item setting each global the triggers read as a transaction-local
    setting, ``'v' || value`` (``''`` when the global is empty): the write reads it for each row
    it writes, so the settings hold when the row's triggers run (an AFTER trigger runs at the
    end of the statement)."""
    calls = ", ".join(f"set_config({sql_string(name)}, coalesce('v' || CAST(CAST({_param_text(i)} AS {pg}) AS text), "
                      f"''), true) AS {qi(f'_g{n}')}" for n, (name, i, pg) in enumerate(ctx.trigger_settings, 1))
    return f'(SELECT {calls}) AS "_globals"'


def _write_sql(w, ctx: "Ctx", source: str = '"_new_src"') -> Tuple[Statement, List[LinkWrite]]:
    """:func:`write_sql` without the access policy check. When Gel triggers read globals, each
    write reads the one-row :func:`_settings_from` too (``INSERT ... SELECT ... FROM``,
    ``UPDATE ... FROM``, ``DELETE ... USING``)."""
    name = w.subject.table
    table = qi(name)
    t = type(w)
    handed = [_raw(_settings_from(ctx))] if ctx.trigger_settings else []
    if t is qir.Insert:
        values = [(a.column.name, _assign_sql(a, ctx)) for a in w.sets if not _omits(a, ctx)]
        loop = _loop_links(w)
        if loop:
            # (source_ctes: each element with the id of its row and its arbiter values)
            keys = {c: f'"_batch".{qi("_k" + str(i))}' for i, (c, _) in enumerate(
                _arbiter_keys(w) if _upsert_links(w) else ())}
            values = [("id", '"_batch"."_id"')] + [(c, keys.get(c, v)) for c, v in values]
        cols = [c for c, _ in values]
        vals = [_raw(v) for _, v in values]
        guard = None if w.only_for is None and w.unless_found is None else _raw(_insert_guard(w))
        if w.batch is not None:
            rows = _raw(f'{source} AS "_batch"' if loop and values else _batch_sql(w.batch))
            # (a loop of inserts nested in an update's values: none when it updates none; no
            # column: one row of defaults per element, an empty select list)
            stmt = sqt.Insert(name, cols, select=sqt.Select(vals, handed + [rows],
                                                            where=None if w.only_for is None else guard))
        elif guard is not None or handed:
            stmt = sqt.Insert(name, cols, select=sqt.Select(vals, handed, where=guard))
        elif values:
            stmt = sqt.Insert(name, cols, values=vals)
        else:
            stmt = sqt.Insert(name)
        if w.conflict is not None:
            stmt.on_conflict = _conflict_sql(w.conflict, w.subject, ctx, else_select_marks(w))
        # The object and its links in one statement: the join rows are written from the
        # inserted row (none when `unless conflict` skipped it); an upsert's from the row it
        # inserted, and its else update's from the existing row it returned.
        join = _loop_join(w, source) if loop else None
        upsert = _upsert_links(w)
        mine = _Rows(join, "inserted" if upsert else None)
        links = [_link_insert(a.link.join_table, _ids_sql(a), False, a.link.column, a.props, mine) if a.rows is None
                 else _link_rows_insert(a, mine) for a in w.links]
        if upsert:
            theirs = _Rows(join, "not")
            for a in w.conflict.else_links:
                links += _link_changes((a,), theirs) if a.rows is None else _link_rows_changes(a, theirs)
        return (lambda cols: _returning(stmt, cols)), links
    joined = w.batch is not None or bool(handed)
    touch = [("id", sqt.Column(table, "id"))]
    if t is qir.Update and _loop_links(w):
        # (source_ctes: the objects with their elements; the update writes each object once,
        # with the values of one of its elements, and the links of all of them)
        froms = handed + [sqt.Raw(f'{source} AS "_batch"')]
        links = _loop_update_links(w.links, source)
        if w.sets or any("UPDATE" in tr.events for tr in w.subject.triggers):
            upd = sqt.Update(name, _set_list(w.sets, ctx) if w.sets else touch, froms,
                             sqt.Op("=", sqt.Column(table, "id"), sqt.Column('"_batch"', "_oid")))
            return (lambda cols: _returning(upd, _of(table, cols, True))), links
        # (only links change and no update trigger: the objects are locked, as an update would)
        ids = sqt.Select([sqt.Name("_oid")], [sqt.Raw(source)], multiline=False)
        lock = sqt.Select([], [sqt.Table(name)], sqt.Op("IN", sqt.Column(table, "id"), sqt.SubLink(ids)), locking=[name])
        return (lambda cols: _returning(lock, _of(table, cols, True))), links
    where = _where_node(w.filter, w.visible)
    batch = [] if w.batch is None else [_raw(_batch_sql(w.batch))]
    if t is qir.Update:
        if w.sets:
            upd = sqt.Update(name, _set_list(w.sets, ctx), handed + batch, where)
            return (lambda cols: _returning(upd, _of(table, cols, joined))), _link_changes(w.links)
        # Only links change. Gel counts it an update of the object: its update rewrites run
        # and its update triggers fire (https://docs.geldata.com/reference/datamodel/triggers,
        # .../mutation_rewrites), so with such Postgres triggers on the table the rows get an
        # update that changes no column; otherwise they are locked, as an update would.
        if any("UPDATE" in tr.events for tr in w.subject.triggers):
            upd = sqt.Update(name, touch, handed + batch, where)
            return (lambda cols: _returning(upd, _of(table, cols, joined))), _link_changes(w.links)
        if handed:
            lock = sqt.Select([], [sqt.Table(name)] + handed, where, locking=[name])
            return (lambda cols: _returning(lock, _of(table, cols, True))), _link_changes(w.links)
        lock = sqt.Select([], [sqt.Table(name)], where, locking=())
        return (lambda cols: _returning(lock, cols)), _link_changes(w.links)
    delete = sqt.Delete(name, None, handed + batch, where)
    return (lambda cols: _returning(delete, _of(table, cols, joined))), []


def _insert_guard(w: qir.Insert) -> str:
    """The condition of a nested insert's one row: the object it is nested in an update of
    exists (:attr:`~schemac.semantics.qir.Insert.only_for`), no object was found
    (:attr:`~schemac.semantics.qir.Insert.unless_found`)."""
    found = None if w.unless_found is None else f"{_op(w.unless_found)} IS NULL"
    if w.only_for is None:
        return found  # type: ignore[return-value]
    if found is None:
        return _exists_updated(w.only_for)
    # (CASE: the object is looked up only for the object updated, as Gel evaluates the update's
    # values per object; AND would let Postgres evaluate either side first)
    return f"CASE WHEN {_exists_updated(w.only_for)} THEN {found} ELSE false END"


def _exists_updated(u: qir.Update) -> str:
    """``EXISTS`` the object an update (of at most one object) writes: the condition of the
    inserts nested in its values."""
    return f"EXISTS (SELECT 1 FROM {qi(u.subject.table)}{_where(u.filter, u.visible)})".replace("\n", " ")


def _of(table: str, cols: List[sqt.Node], joined: bool) -> List[sqt.Node]:
    """``RETURNING`` columns of a write joined with other rows (a loop's, the handed-over
    globals'): ``*`` is the table's only."""
    if joined and cols and type(cols[0]) is sqt.Star and cols[0].qualifier is None:  # type: ignore[attr-defined]
        return [sqt.Star(table)] + cols[1:]
    return cols


def nested_ctes(w, ctx: "Ctx", read: FrozenSet[str] = frozenset()) -> List[Tuple[str, sqt.Node]]:
    """The CTEs of the inserts nested in a write's values (theirs first), each returning its
    row's id (its whole row when the statement reads it: ``read``, :func:`read_ctes`), followed
    by its join-table writes."""
    out: List[Tuple[str, sqt.Node]] = []
    for b in getattr(w, "nested", ()):
        out += nested_ctes(b.write, ctx, read)
        statement, links = write_sql(b.write, ctx, in_cte=True, name=b.name)
        out += source_ctes(b.write, b.name, ctx)
        out.append((b.name, statement([sqt.Star()] if b.name in read else [sqt.Name("id")])))
        out += [(f"{b.name}_link{i}", link(qi(b.name))) for i, link in enumerate(links, 1)]
    return out


# ---------------------------------------------------------------------------------------------
# Inserts leaving out omitted parameters: the database applies its own column DEFAULT

#: At most this many omittable parameters per statement: each combination is a statement of its own.
MAX_OMITTABLE = 5


@dataclass(frozen=True)
class Variant:
    """The statement the runner sends when the parameters ``omitted`` (1-based indices of the
    query's parameters) are NULL / left out: ``sql`` numbers the parameters it binds ``$1..``,
    and ``sent`` lists their indices in the query's parameters, in that order."""

    omitted: Tuple[int, ...]
    sql: str
    sent: Tuple[int, ...]


def defaulted_params(stmt: qir.Node, assigns: Optional[Iterable[qir.Node]] = None) -> Tuple[int, ...]:
    """The parameters (indices) an insert assigns to properties with a default (``p :=
    <optional T>$p``); ``assigns``: the statement's :class:`qir.Assign` nodes, when known."""
    return tuple(sorted({n.value.param.index for n in (qir.walk(stmt) if assigns is None else assigns)  # type: ignore
                         if type(n) is qir.Assign and n.default == "param"}))  # type: ignore[attr-defined]


def omittable(stmt: qir.Node) -> Tuple[int, ...]:
    """The first :data:`MAX_OMITTABLE` of :func:`defaulted_params`: left out, the property gets
    the column's DEFAULT. Any further one is always sent, and ``NULL`` gets a copy of the
    default (``COALESCE``; the compiler warns, W0008)."""
    return defaulted_params(stmt)[:MAX_OMITTABLE]


def _omits(a: qir.Assign, ctx: Ctx) -> bool:
    return a.default == "param" and a.value.param.index in ctx.omitted  # type: ignore[attr-defined]


def statement_variants(stmt: qir.Node, trigger_settings: Tuple[Tuple[str, int, str], ...] = (), defaulted=None, read=None) -> Tuple[Variant, ...]:
    """One statement per combination of omitted :func:`omittable` parameters (none for a
    statement without them), in the order of the bit masks: bit ``i`` set omits the ``i``-th
    omittable parameter (the runner computes the same mask). The first variant omits nothing.

    An omitted parameter's column is left out of the insert's column list (of ``VALUES`` or of
    the bulk form's ``SELECT``), so Postgres applies the column's current ``DEFAULT``
    (https://www.postgresql.org/docs/15/sql-insert.html): a migration that changes the default
    changes what a deployed runner writes, and a runner never sends a copy of it. Each variant is
    the statement's tree printed with its own numbering of the parameters it reads.
    ``trigger_settings``, ``read``: see :class:`Ctx`; ``defaulted``: :func:`defaulted_params`, when known."""
    defaulted = defaulted_params(stmt) if defaulted is None else defaulted
    keys = defaulted[:MAX_OMITTABLE]
    if not keys:
        return ()
    copied = frozenset(defaulted[MAX_OMITTABLE:])
    out = []
    read = {} if read is None else read  # (what every variant reads alike, computed once)
    for mask in range(1 << len(keys)):
        omitted = frozenset(k for i, k in enumerate(keys) if mask >> i & 1)
        tree = statement_tree(stmt, Ctx(trigger_settings, omitted, copied, read))
        used = sorted(tree_params(tree))
        sql = to_sql(tree, {old: new for new, old in enumerate(used, 1)})
        out.append(Variant(tuple(sorted(omitted)), sql, tuple(used)))
    return tuple(out)


def _batch_sql(b: qir.Batch, alias: str = '"_batch"') -> str:
    """``unnest($n::T[]) AS "_batch"(x)`` / ``jsonb_array_elements($n::jsonb) AS "_batch"(x)``;
    with a guard, the elements it is true for: ``(SELECT "_batch".* FROM ... WHERE <guard>) AS
    "_batch"`` (an empty condition runs neither branch of Gel's ``if``). ``alias``: another name
    than ``"_batch"``."""
    if b.guard is not None:
        rows = _batch_sql(dataclasses.replace(b, guard=None), alias)
        return f'(SELECT {alias}.* FROM {rows} WHERE {cond_sql(b.guard)}) AS {alias}'
    src = expr_sql(b.source)
    if not _atomic(b.source):
        src = f"({src})"  # (`params -> 'items'`: the cast applies to the whole value)
    name = qi(b.var.sql_name or b.var.name)
    if b.records:
        # (the parameter itself: the runner sends the array of tuples as JSON objects)
        param = b.source.binding.value if type(b.source) is qir.VarRef else b.source  # type: ignore[attr-defined]
        fields = b.source.type.element.fields or ()  # type: ignore[union-attr]
        defs = ", ".join(f"{qi(n)} {t.pg}" for n, t in fields)  # type: ignore[arg-type]
        cols = ", ".join(f'"_r".{qi(n)} AS {qi(e)}' for (n, _), e in zip(fields, b.var.elements or ()))  # type: ignore[arg-type]
        # (JSON null, an optional parameter's nil slice, is no rows: jsonb_to_recordset(NULL))
        return (f'(SELECT {cols} FROM jsonb_to_recordset(NULLIF({expr_sql(param)}::jsonb, \'null\')) AS "_r"({defs})) '
                f'AS {alias}')
    if b.enumerate:
        # each element with its position from 0 (Gel's enumerate): WITH ORDINALITY counts from 1
        fn = f"jsonb_array_elements({src}::jsonb)" if b.json else f"unnest({src}::{b.source.type.pg})"
        index, value = b.var.elements or ()
        return (f'(SELECT "_e"."_o" - 1 AS {qi(index)}, "_e"."_v" AS {qi(value)} FROM {fn} WITH ORDINALITY AS '
                f'"_e"("_v", "_o")) AS {alias}')
    if b.json_object:
        return f'jsonb_each({src}::jsonb) AS {alias}({", ".join(qi(e) for e in b.var.elements or ())})'
    if b.json:
        return f'jsonb_array_elements({src}::jsonb) AS {alias}({name})'
    return f'unnest({src}::{b.source.type.pg}) AS {alias}({name})'


def _order_key(expr: qir.Expr) -> str:
    """An ``order by`` key: an enum sorts by declaration order (:func:`enum_rank`)."""
    enum = _enum_of(expr)
    if type(expr) is qir.Literal:
        # Postgres reads a bare constant ORDER BY key as a column position (an integer) or
        # refuses it; cast, it is an expression (a constant key, .__type__.name of a table's
        # rows, orders nothing, as in Gel)
        return f"{expr_sql(expr)}::{expr.type.pg}"
    return expr_sql(expr) if enum is None else enum_rank(enum, _op(expr))


def _targets(picked: List[Tuple[str, qir.ResultField]]) -> List[sqt.Node]:
    """:func:`_columns` as select-list nodes."""
    return [sqt.Target(_raw(sql), None if sql == qi(f.name) else f.name) for sql, f in picked]


def _select_sql(s: qir.Select) -> sqt.Node:
    picked = shape_sql(s.shape, qi(s.subject.table), 0)
    sep = ",\n       " if any(f.shape is not None for _, f in picked) else ", "
    table = qi(s.subject.table)
    source = sqt.Table(s.subject.table) if s.source_name is None else \
        sqt.Table(s.source_name, sqt.Name(s.subject.table))
    froms: List[sqt.Node] = [source] if s.batch is None else [_raw(_batch_sql(s.batch)), source]
    where = _where_node(s.filter, s.visible)
    if s.assert_single or s.assert_exists:
        # Gel's assert_single / assert_exists (https://docs.geldata.com/reference/stdlib/set#function::std::assert_single):
        # a guard reading the rows again: several (none) rows fail the statement. It reads no
        # column of the outer rows, so Postgres evaluates it once, before the scan (a one-time
        # filter), also when no row matches.
        from schemac.pgsql import asserts

        cond = _where(s.filter, s.visible)[len("\nWHERE "):]
        rows = f"FROM {table}{' WHERE ' + cond if cond else ''}"
        count = f"(SELECT count(*) {rows})"
        arms = ""
        if s.assert_single:
            arms += f" WHEN {count} > 1 THEN {asserts.fail_sql('assert_single', s.single_message, count)} = 0"
        if s.assert_exists:
            arms += f" WHEN {count} = 0 THEN {asserts.fail_sql('assert_exists', s.exists_message, count)} = 0"
        guard = f"(CASE{arms} ELSE true END)"
        where = _raw(f"({cond}) AND {guard}" if cond else guard)
    return sqt.Select(_targets(picked), froms, where, order_by=[_raw(_order_sql(k)) for k in s.order],
                      offset=None if s.offset is None else _raw(expr_sql(s.offset)),
                      limit=None if s.limit is None else _raw(expr_sql(s.limit)), target_sep=sep)


def _union_sql(u: qir.SelectUnion) -> sqt.Node:
    """A select on an abstract type: each concrete subtype's select, ``UNION ALL``; ordered or
    paged, the union read as ``"_u"`` and ordered by the branches' order columns."""
    parts: List[sqt.Node] = []
    names: List[str] = []
    for b in u.branches:
        picked = shape_sql(b.shape, qi(b.subject.table), 0)
        names = [f.name for _, f in picked]
        cols = _targets(picked) + [sqt.Target(_raw(_order_key(k.expr)), f"_o{i}") for i, k in enumerate(b.order, 1)]
        part = sqt.Select(cols, [sqt.Table(b.subject.table)], _where_node(b.filter, b.visible))
        page = u.pages[len(parts)] if u.pages else None
        if page is not None:
            # (an operand that orders or pages its own objects, before the union)
            order, offset, limit = page
            part.order_by = tuple(_raw(_order_sql(k)) for k in order)
            part.offset = None if offset is None else _raw(expr_sql(offset))
            part.limit = None if limit is None else _raw(expr_sql(limit))
            part = sqt.Paren(part)
        parts.append(part)
    union = sqt.SetOp(parts)
    if not u.order and u.offset is None and u.limit is None and not any(b.order for b in u.branches):
        return union
    order = [sqt.SortBy(sqt.Column('"_u"', f"_o{i}"), "DESC" if k.descending else "ASC", k.empty.upper())
             for i, k in enumerate(u.order, 1)]
    return sqt.Select([sqt.Column('"_u"', n) for n in names], [sqt.RangeSubselect(union, sqt.Alias("_u"), multiline=True)],
                      order_by=order, offset=None if u.offset is None else _raw(expr_sql(u.offset)),
                      limit=None if u.limit is None else _raw(expr_sql(u.limit)))


def _values_sql(s: qir.SelectValues) -> sqt.Node:
    """One row: ``SELECT <value> AS "value"``, or a free object's fields. A number is cast to its
    Gel type's Postgres type (``1`` is an ``int64``, not Postgres' ``integer``; ``1.5`` a
    ``float64``, not a ``numeric``), so the runners read it as that type."""
    cols: List[sqt.Node] = []
    for sql, f in shape_sql(s.elements, "", 0):
        value = next(getattr(el, "value", None) for el in s.elements if el.field is f)
        if (f.type is not None and f.type.family == "num" and type(value) not in (qir.ParamRef, qir.Cast, qir.JsonCast, qir.CountObjects, qir.CountLink)
                and not (type(value) is qir.Call and value.func in ("empty", "typed_null"))  # type: ignore[attr-defined]
                and f.type.element is None):
            sql = f"CAST({sql} AS {f.type.pg})"
        cols.append(sqt.Target(_raw(sql), f.name))
    if s.batch is None:
        return sqt.Select(cols)
    # A for loop's value per element (https://docs.geldata.com/reference/edgeql/for): one row
    # each, in the loop's order; an empty value is no element of the union.
    rows = sqt.Select(cols, [_raw(_batch_sql(s.batch))])
    if s.scalar and s.elements[0].field.optional:  # type: ignore[attr-defined]
        value = sqt.Column('"_v"', "value")
        return sqt.Select([value], [sqt.RangeSubselect(rows, sqt.Alias("_v"))],
                          sqt.Op("IS NOT NULL", value, None), multiline=False)
    return rows


def _elements_sql(s: qir.SelectElements) -> sqt.Node:
    """``SELECT [DISTINCT] "_v"."value" FROM (SELECT a AS "value", 1 AS "_p", 1 AS "_i" UNION ALL
    SELECT "_u"."value", 2, "_u"."_i" FROM unnest(arr) WITH ORDINALITY AS "_u"("value", "_i")) AS
    "_v" WHERE "_v"."value" IS NOT NULL [ORDER BY "_v"."_p", "_v"."_i"]``: the parts in the
    order written (without ``distinct``), an empty value no element."""
    parts: List[sqt.Node] = []
    for n, (value, unpack) in enumerate(zip(s.parts, s.unpack), 1):
        sql = _raw(param_sql(value, expr_sql(value)))
        position = sqt.Target(sqt.Literal(str(n)), "_p")
        if unpack:
            rows = f"_u{n}"
            parts.append(sqt.Select([sqt.Column(qi(rows), "value"), position, sqt.Column(qi(rows), "_i")],
                                    [sqt.RangeFunction(sqt.Func("unnest", [sql]), sqt.Alias(rows, ["value", "_i"]),
                                                       ordinality=True)], multiline=False))
        else:
            # (cast: a literal 1 is an integer to Postgres, and the column's type is its parts')
            parts.append(sqt.Select([sqt.Target(sqt.Cast(sql, value.type.pg), "value"), position,
                                     sqt.Target(sqt.Cast(sqt.Literal("1"), "bigint"), "_i")], multiline=False))
    values = sqt.RangeSubselect(sqt.SetOp(parts, multiline=False), sqt.Alias("_v"))
    value = sqt.Column('"_v"', "value")
    order = [sqt.Column('"_v"', "_p"), sqt.Column('"_v"', "_i")]
    present = sqt.Op("IS NOT NULL", value, None)
    if s.enumerate:
        # enumerate(): each value with its position from 0, in the set's order, empty values left out
        elem = s.parts[0].type.element if s.unpack[0] else s.parts[0].type
        index = sqt.Cast(sqt.Paren(sqt.Op("-", sqt.Func("row_number", over=order), sqt.Literal("1"))), "text", short=True)
        pair = sqt.Func("json_build_array", [index, _raw(_json_value(elem, '"_v"."value"'))])
        return sqt.Select([sqt.Target(pair, "value")], [values], present, order_by=order, multiline=False)
    if s.by_element:
        # (an empty value is no element, so `empty first/last` changes nothing; ties in the set's order)
        by = [sqt.SortBy(value, "DESC" if d else "ASC") for d in s.by_element]
        return sqt.Select([value], [values], present, order_by=by if s.distinct else by + order,
                          distinct=s.distinct, multiline=False)
    return sqt.Select([value], [values], present, order_by=() if s.distinct else order, distinct=s.distinct,
                      multiline=False)


def _value_set_sql(s: qir.SelectValueSet) -> sqt.Node:
    """``SELECT [DISTINCT] "_v"."value" FROM (SELECT <value> AS "value"[, "_n"] FROM <the set>)
    AS "_v" WHERE "_v"."value" IS NOT NULL [ORDER BY "_v"."_n"]``: an empty value is no element
    of the set."""
    paged = s.objects.page is not None and not s.distinct
    inner = f"SELECT {param_sql(s.value, expr_sql(s.value))} AS \"value\"" + (
        f', {s.objects.alias}."_n"' if paged else "") + f" {object_set_sql(s.objects)}"
    value = sqt.Column('"_v"', "value")
    return sqt.Select([value], [sqt.RangeSubselect(_raw(inner), sqt.Alias("_v"))], sqt.Op("IS NOT NULL", value, None),
                      order_by=[sqt.Column('"_v"', "_n")] if paged else (), distinct=s.distinct, multiline=False)


def _returning_sql(r: qir.Returning, ctx: "Ctx") -> sqt.Node:
    """A write returning a flat shape. With join-table writes the statement is the CTE
    ``"_new"`` they read, and the query selects its rows: one statement, atomic."""
    statement, links = write_sql(r.write, ctx)
    picked = shape_sql(r.shape, qi(r.write.subject.table), 0)  # type: ignore[attr-defined]
    texts = _columns(picked)
    columns: List[sqt.Node] = [sqt.Target(_raw(sql), None if sql == qi(f.name) else f.name) for sql, f in picked]
    check = r.write.check  # type: ignore[attr-defined]
    nested = nested_ctes(r.write, ctx, ctx.read_ctes(r))
    if not links and check is None and r.write.returning_check is None and not else_select_marks(r.write):  # type: ignore[attr-defined]
        return render_ctes(nested, statement(columns))
    inner = columns if '"id"' in texts else [sqt.Name("id")] + columns
    outer: List[sqt.Node] = [sqt.Name(f.name) for _, f in picked]
    if check is not None:
        # The access policy check reads every column of the written rows; a field named as one
        # of them (a link's id read through its target's policies, "target_id") is computed
        # from them in the final select, where it reads "_new"'s column.
        own = {c.name for c in r.write.subject.columns}  # type: ignore[attr-defined]
        inner = [sqt.Star()] + [c for (_, f), c, text in zip(picked, columns, texts)
                                if " AS " in text and f.name not in own]
        outer = [c if " AS " in text and f.name in own else sqt.Name(f.name) for (_, f), c, text in zip(picked, columns, texts)]
    ctes = nested + source_ctes(r.write, "_new", ctx) + [("_new", statement(inner))]
    ctes += [(f"_link{i}", link('"_new"')) for i, link in enumerate(links, 1)]
    return render_ctes(ctes, sqt.Select(outer, [sqt.Table("_new")], None if check is None else _raw(expr_sql(check)),
                                        from_inline=True))


def _group_value(n: qir.GroupValue) -> str:
    """A value of one group of :func:`_group_sql`: its key column, or an aggregate over its rows."""
    if n.kind == "count":
        return "count(*)"
    if n.kind == "key":
        return qi(f"_group_k{n.key}")
    if n.kind == "values":
        # (the values of the group's objects, in no order Gel promises: by the objects' ids)
        value = expr_sql(n.value)  # type: ignore[arg-type]
        return (f'coalesce(array_agg({value} ORDER BY "id") FILTER (WHERE ({value}) IS NOT NULL), '
                f"CAST(ARRAY[] AS {n.type.pg}))")
    return f"{n.kind}({expr_sql(n.value)})"  # type: ignore[arg-type]


def _group_list_sql(el: qir.ShapeGroupList) -> str:
    """The groups of a free object's field as a JSON list of their fields, in the group's order
    (each row numbered by ``row_number()`` over it)."""
    parts = []
    for f in el.group.fields:
        field = f.field  # type: ignore[attr-defined]
        ref = f'"_gl".{qi(field.name)}'
        parts.append((sql_string(field.name), _json_value(field.type, ref) if field.type is not None else ref))
    obj = json_object_sql(parts)
    inner = _group_sql(el.group, numbered=True).replace("\n", " ")
    return f'(SELECT coalesce(json_agg({obj} ORDER BY "_gl"."_n"), \'[]\'::json) FROM ({inner}) AS "_gl")'


def _group_sql(g: qir.Group, numbered: bool = False) -> str:
    """``group`` (https://docs.geldata.com/reference/edgeql/group): the grouped rows, each with
    its key values as the columns ``"_group_k<i>"``, read under the table's name, then
    ``GROUP BY`` those columns (Postgres puts the NULLs of a key in one group, as Gel puts the
    objects whose key is empty); each group's elements are a ``json_agg`` of their shape,
    ordered by the elements' ``order by`` then by id."""
    table = qi(g.subject.table)
    names = [qi(f"_group_k{i}") for i in range(len(g.keys))]
    keys = ", ".join(f"{param_sql(k.value, expr_sql(k.value))} AS {n}" for k, n in zip(g.keys, names))
    inner = f"SELECT {table}.*, {keys} FROM {table}{_where(g.filter, g.visible)}".replace("\n", " ")
    if g.rows is not None:
        inner = f"SELECT {table}.*, {keys} FROM ({for_rows_sql(g.rows)}) AS {table}".replace("\n", " ")
    cols = []
    for f in g.fields:
        if type(f) is qir.ShapeComputed:
            cols.append(f"{param_sql(f.value, expr_sql(f.value))} AS {qi(f.field.name)}")
            continue
        if f.kind == "key":  # type: ignore[attr-defined]
            parts = []
            for i in f.keys:  # type: ignore[attr-defined]
                k, ref = g.keys[i], names[i]
                value = (f"CASE WHEN {ref} IS NULL THEN NULL ELSE json_build_object('id', {ref}) END"
                         if k.link is not None else _json_value(k.value.type, ref))
                parts.append((sql_string(k.name), value))
            cols.append(f"{json_object_sql(parts)} AS \"key\"")
        elif f.kind == "grouping":  # type: ignore[attr-defined]
            cols.append(f"ARRAY[{', '.join(sql_string(k.name) for k in g.keys)}]::text[] AS \"grouping\"")
        else:
            inner_fields = shape_sql(f.elements, table, 1)  # type: ignore[attr-defined]
            obj = json_object_sql([(sql_string(x.name), sql) for sql, x in inner_fields])
            order = ", ".join([_order_sql(k) for k in f.order] + [f'{table}."id"'])  # type: ignore[attr-defined]
            agg = f"json_agg({obj} ORDER BY {order})"
            if f.filter is not None:  # type: ignore[attr-defined]
                agg = f"coalesce({agg} FILTER (WHERE {cond_sql(f.filter)}), '[]'::json)"  # type: ignore[attr-defined]
            cols.append(f"{agg} AS \"elements\"")
    order = [_order_sql(k) for k in g.order] or [f"{n} ASC NULLS FIRST" for n in names]
    if numbered:
        cols.append(f'row_number() OVER (ORDER BY {", ".join(order)}) AS "_n"')
    sql = (f"SELECT {', '.join(cols)}\nFROM ({inner}) AS {table}\nGROUP BY {', '.join(names)}")
    if g.having is not None:
        sql += f"\nHAVING {expr_sql(g.having)}"
    sql += "\nORDER BY " + ", ".join(order)
    if g.offset is not None:
        sql += f"\nOFFSET {expr_sql(g.offset)}"
    if g.limit is not None:
        sql += f"\nLIMIT {expr_sql(g.limit)}"
    return sql


def statement_sql(stmt: qir.Node, trigger_settings: Tuple[Tuple[str, int, str], ...] = (), read=None) -> str:
    """The SQL of a checked statement (``$n`` the query's ``n``-th parameter);
    ``trigger_settings``, ``read``: see :class:`Ctx`."""
    return to_sql(statement_tree(stmt, Ctx(trigger_settings, read=read)))


def statement_tree(stmt: qir.Node, ctx: Ctx) -> sqt.Node:
    """A checked statement as a SQL tree."""
    t = type(stmt)
    if t is qir.Returning:
        return _returning_sql(stmt, ctx)  # type: ignore[arg-type]
    if t is qir.WriteThenSelect:
        statement, links = write_sql(stmt.write, ctx, in_cte=True)  # type: ignore[attr-defined]
        ctes = nested_ctes(stmt.write, ctx, ctx.read_ctes(stmt)) + source_ctes(stmt.write, "_new", ctx)  # type: ignore[attr-defined]
        ctes += [("_new", statement([sqt.Star()]))]
        ctes += [(f"_link{i}", link('"_new"')) for i, link in enumerate(links, 1)]
        return links_after_sql(ctes, _select_sql(stmt.select))  # type: ignore[attr-defined]
    if t is qir.With:
        return _with_sql(stmt, ctx)  # type: ignore[arg-type]
    if t is qir.WrittenUnion:
        return sqt.SetOp([sqt.Select([sqt.Name("id")], [sqt.Table("_with_" + n)], multiline=False)
                          for n in stmt.names])  # type: ignore[attr-defined]
    return _SELECTS[t](stmt)


_SELECTS = {qir.Group: lambda s: _raw(_group_sql(s)), qir.Select: _select_sql, qir.SelectValues: _values_sql,
            qir.SelectUnion: _union_sql, qir.SelectElements: _elements_sql, qir.SelectValueSet: _value_set_sql}


def _with_sql(w: qir.With, ctx: Ctx) -> sqt.Node:
    """A binding to a parameter or a constant is written where it is used; any other value is
    computed once, in a CTE ``"_with_x"``; a bound write is the CTE ``"_with_p"`` (``RETURNING
    *``, followed by its join-table writes), run exactly once even when nothing reads it."""
    ctes: List[Tuple[str, sqt.Node]] = []
    # The link CTEs a select over a bound insert reads (its new object's links).
    read = {n.written_cte for n in qir.walk(w.body) if type(n) is qir.ShapeLink and n.written_cte}  # type: ignore[attr-defined]
    for b in w.bindings:
        if type(b) is qir.BoundWrite:
            name = f"_with_{b.name}"
            statement, links = write_sql(b.write, ctx, in_cte=True, name=name)  # type: ignore[attr-defined]
            ctes += nested_ctes(b.write, ctx, ctx.read_ctes(w))  # type: ignore[attr-defined]
            ctes += source_ctes(b.write, name, ctx)  # type: ignore[attr-defined]
            ctes.append((name, statement([sqt.Star()])))
            for i, link in enumerate(links, 1):
                node = link(qi(name))
                ctes.append((f"{name}_link{i}", _returning(node, [sqt.Star()]) if f"{name}_link{i}" in read else node))
        elif not b.inline:  # type: ignore[attr-defined]
            ctes.append((f"_with_{b.name}", sqt.Select([sqt.Target(_raw(expr_sql(b.value)), "v")])))  # type: ignore[attr-defined]
    if w.unused:
        # (a CTE nothing reads is not run, but its parameters are typed)
        ctes.insert(0, ("_unused", sqt.Select([_raw(param_sql(p, expr_sql(p))) for p in w.unused])))
    # (a body that has CTEs of its own: one WITH list, these first)
    return render_ctes(ctes, statement_tree(w.body, ctx))


# The frozen dataclasses above are created in bulk: give them the faster __init__.
fast_init_all(globals())


# ----------------------------------------------------------------- single links' link properties
#: The trigger that empties an optional single link's link properties with the link.
EMPTY_LINK_PROPS_TRIGGER = "schemac_link_props_{link}"


def empty_link_props_trigger(table: str, link: str, link_column: str, columns: List[Column]):
    """The ``BEFORE INSERT OR UPDATE`` trigger of an optional single link with link properties
    (``avatar: Card { text: str }``, their ``<link>@<prop>`` columns, see
    :func:`schemac.semantics.model.single_link_props`): where the link is empty, so are its
    properties (https://docs.geldata.com/reference/datamodel/linkprops: a link property belongs to
    the link), whoever writes the row: an insert or update whose sub-select finds no object, the
    ``ON DELETE SET NULL`` of ``on target delete allow``."""
    from schemac.semantics.model import Trigger
    from schemac.semantics.sqlnames import object_name, short_identifier

    nulls = "".join(f"\n  NEW.{qi(c.name)} := NULL;" for c in columns)
    body = f"IF NEW.{qi(link_column)} IS NULL THEN{nulls}\nEND IF;\nRETURN NEW;"
    name = short_identifier(EMPTY_LINK_PROPS_TRIGGER.format(link=link))
    return Trigger(name, object_name("lp", table, [link]), "BEFORE", ("INSERT", "UPDATE"), "ROW", body)
