"""The nodes of a Postgres statement, as the compiler writes them.

Plain classes with ``__slots__`` (statements are built by the thousand: the 1,000-type
benchmark builds ~2,000 of them), no behaviour but their fields; :mod:`.printer` turns a tree
into text. What a node prints is Postgres' syntax, https://www.postgresql.org/docs/15/sql-commands.html.

Layout is part of the tree where the compiler's output has more than one (``Select.multiline``:
each clause on its own line, or the whole select on one; ``Select.target_sep``), so the printer
is one function of the tree and the output stays byte for byte what it was when statements were
written as text.

Names are :class:`Name` (a quoted identifier); a qualified column is :class:`Column`. Every user
value is a :class:`Param`, numbered by the printer (:func:`.printer.to_sql`'s ``numbering``):
a statement sent without some parameters prints the others ``$1..`` without any text being
patched.

:class:`Raw` is the one escape hatch: SQL text the tree does not model yet, chiefly expression
fragments the lowering still writes as text (a call's spelling, ``schemac.pgsql.calls``). Its parts
are text and nodes, so the parameters inside it are nodes too. ``tests/compiler/test_sqltree.py``
counts the lowering's uses of it.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union


class Node:
    __slots__ = ()

    def __repr__(self) -> str:  # pragma: no cover (debugging aid)
        fields = ", ".join(f"{s}={getattr(self, s)!r}" for s in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and all(getattr(self, s) == getattr(other, s) for s in self.__slots__)

    def __hash__(self) -> int:  # pragma: no cover
        return hash((type(self),) + tuple(repr(getattr(self, s)) for s in self.__slots__))


Expr = Node


# ---------------------------------------------------------------------------------------------
# Leaves


class Raw(Node):
    """SQL the tree does not model: a sequence of text and nodes (the escape hatch)."""

    __slots__ = ("parts",)

    def __init__(self, *parts: Union[str, Node]) -> None:
        self.parts = parts


class Name(Node):
    """A quoted identifier: ``"name"``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class Column(Node):
    """``qualifier."name"`` (``qualifier`` a relation's name or alias), or ``"name"``."""

    __slots__ = ("qualifier", "name")

    def __init__(self, qualifier: Optional[str], name: str) -> None:
        self.qualifier = qualifier
        self.name = name


class Star(Node):
    """``*`` or ``qualifier.*``."""

    __slots__ = ("qualifier",)

    def __init__(self, qualifier: Optional[str] = None) -> None:
        self.qualifier = qualifier


class Param(Node):
    """A bound parameter: the query's parameter ``index`` (1-based), printed ``$n`` with the
    number the printer gives it; ``cast``: ``$n::type``."""

    __slots__ = ("index", "cast")

    def __init__(self, index: int, cast: Optional[str] = None) -> None:
        self.index = index
        self.cast = cast


class Literal(Node):
    """A constant spelled in SQL: ``'text'`` (``quoted``), or a number, ``true``, ``NULL`` as
    written."""

    __slots__ = ("value", "quoted")

    def __init__(self, value: str, quoted: bool = False) -> None:
        self.value = value
        self.quoted = quoted


# ---------------------------------------------------------------------------------------------
# Expressions


class Op(Node):
    """``left op right`` (a prefix operator when ``left`` is None, a postfix one when ``right``
    is): operands are printed as they are; :class:`Paren` where precedence needs it."""

    __slots__ = ("op", "left", "right")

    def __init__(self, op: str, left: Optional[Node], right: Optional[Node]) -> None:
        self.op = op
        self.left = left
        self.right = right


class BoolOp(Node):
    """``a AND b AND c`` / ``a OR b``."""

    __slots__ = ("op", "args")

    def __init__(self, op: str, args: Sequence[Node]) -> None:
        self.op = op
        self.args = tuple(args)


class Paren(Node):
    """``(expr)``."""

    __slots__ = ("expr",)

    def __init__(self, expr: Node) -> None:
        self.expr = expr


class Cast(Node):
    """``CAST(arg AS type)``, or ``arg::type`` (``short``)."""

    __slots__ = ("arg", "type", "short")

    def __init__(self, arg: Node, type: str, short: bool = False) -> None:
        self.arg = arg
        self.type = type
        self.short = short


class SortBy(Node):
    """An ``ORDER BY`` key: ``expr [ASC|DESC] [NULLS FIRST|LAST]`` (``direction``/``nulls``
    None: not written)."""

    __slots__ = ("expr", "direction", "nulls")

    def __init__(self, expr: Node, direction: Optional[str] = None, nulls: Optional[str] = None) -> None:
        self.expr = expr
        self.direction = direction
        self.nulls = nulls


class Func(Node):
    """``name([DISTINCT] args [ORDER BY ...]) [FILTER (WHERE ...)] [OVER (ORDER BY ...)]``:
    a call, an ordered aggregate, a window function."""

    __slots__ = ("name", "args", "distinct", "order_by", "filter", "over")

    def __init__(self, name: str, args: Sequence[Node] = (), distinct: bool = False,
                 order_by: Sequence[SortBy] = (), filter: Optional[Node] = None,
                 over: Optional[Sequence[SortBy]] = None) -> None:
        self.name = name
        self.args = tuple(args)
        self.distinct = distinct
        self.order_by = tuple(order_by)
        self.filter = filter
        self.over = None if over is None else tuple(over)


class Case(Node):
    """``CASE [arg] WHEN c THEN v ... [ELSE e] END``."""

    __slots__ = ("whens", "default", "arg")

    def __init__(self, whens: Sequence[Tuple[Node, Node]], default: Optional[Node] = None,
                 arg: Optional[Node] = None) -> None:
        self.whens = tuple(whens)
        self.default = default
        self.arg = arg


class SubLink(Node):
    """A sub-select as a value: ``(select)``, ``EXISTS (select)``, ``ARRAY(select)``."""

    __slots__ = ("kind", "query")

    def __init__(self, query: Node, kind: str = "") -> None:
        self.kind = kind
        self.query = query


class ArrayExpr(Node):
    """``ARRAY[a, b]``."""

    __slots__ = ("items",)

    def __init__(self, items: Sequence[Node]) -> None:
        self.items = tuple(items)


class RowExpr(Node):
    """``(a, b)``."""

    __slots__ = ("items",)

    def __init__(self, items: Sequence[Node]) -> None:
        self.items = tuple(items)


# ---------------------------------------------------------------------------------------------
# FROM items


class Target(Node):
    """A select-list item: ``expr [AS "alias"]``."""

    __slots__ = ("expr", "alias")

    def __init__(self, expr: Node, alias: Optional[str] = None) -> None:
        self.expr = expr
        self.alias = alias


class Table(Node):
    """``"table" [AS alias]`` (``alias`` printed as given: a quoted name)."""

    __slots__ = ("name", "alias")

    def __init__(self, name: str, alias: Optional[Node] = None) -> None:
        self.name = name
        self.alias = alias


class Alias(Node):
    """``alias[("col", ...)]`` of a FROM item: ``name`` is quoted."""

    __slots__ = ("name", "columns")

    def __init__(self, name: str, columns: Sequence[str] = ()) -> None:
        self.name = name
        self.columns = tuple(columns)


class RangeSubselect(Node):
    """``[LATERAL] (select) AS alias``; ``multiline``: ``(\nselect\n)``."""

    __slots__ = ("query", "alias", "lateral", "multiline")

    def __init__(self, query: Node, alias: Node, lateral: bool = False, multiline: bool = False) -> None:
        self.query = query
        self.alias = alias
        self.lateral = lateral
        self.multiline = multiline


class RangeFunction(Node):
    """``[LATERAL] f(...) [WITH ORDINALITY] AS alias(cols)``."""

    __slots__ = ("func", "alias", "lateral", "ordinality")

    def __init__(self, func: Node, alias: Node, lateral: bool = False, ordinality: bool = False) -> None:
        self.func = func
        self.alias = alias
        self.lateral = lateral
        self.ordinality = ordinality


class Join(Node):
    """``left [kind] JOIN right ON cond`` (``kind``: ``""``, ``"LEFT"``, ...)."""

    __slots__ = ("left", "right", "on", "kind")

    def __init__(self, left: Node, right: Node, on: Optional[Node], kind: str = "") -> None:
        self.left = left
        self.right = right
        self.on = on
        self.kind = kind


# ---------------------------------------------------------------------------------------------
# Statements


class Select(Node):
    """``SELECT [DISTINCT [ON (...)]] targets FROM ... WHERE ... GROUP BY ... HAVING ... ORDER
    BY ... OFFSET ... LIMIT ... [FOR UPDATE [OF t]]``. ``multiline``: each clause on a line of
    its own (a statement or a CTE's body), or all on one (a sub-select). ``target_sep``: between
    the select-list items. ``locking``: the table names of ``FOR UPDATE OF``, or ``()`` for
    ``FOR UPDATE`` alone. ``from_inline``: ``FROM`` on the ``SELECT`` line of a multi-line select
    (its other clauses each on a line of their own)."""

    __slots__ = ("targets", "from_", "where", "group_by", "having", "order_by", "offset", "limit",
                 "distinct", "distinct_on", "locking", "multiline", "target_sep", "from_inline")

    def __init__(self, targets: Sequence[Node] = (), from_: Sequence[Node] = (), where: Optional[Node] = None,
                 group_by: Sequence[Node] = (), having: Optional[Node] = None, order_by: Sequence[Node] = (),
                 offset: Optional[Node] = None, limit: Optional[Node] = None, distinct: bool = False,
                 distinct_on: Sequence[Node] = (), locking: Optional[Sequence[str]] = None,
                 multiline: bool = True, target_sep: str = ", ", from_inline: bool = False) -> None:
        self.targets = tuple(targets)
        self.from_ = tuple(from_)
        self.where = where
        self.group_by = tuple(group_by)
        self.having = having
        self.order_by = tuple(order_by)
        self.offset = offset
        self.limit = limit
        self.distinct = distinct
        self.distinct_on = tuple(distinct_on)
        self.locking = None if locking is None else tuple(locking)
        self.multiline = multiline
        self.target_sep = target_sep
        self.from_inline = from_inline


class SetOp(Node):
    """``a UNION ALL b ...``; ``multiline``: each operator on a line of its own."""

    __slots__ = ("op", "parts", "multiline")

    def __init__(self, parts: Sequence[Node], op: str = "UNION ALL", multiline: bool = True) -> None:
        self.op = op
        self.parts = tuple(parts)
        self.multiline = multiline


class OnConflict(Node):
    """``ON CONFLICT [(cols) [WHERE pred]] DO NOTHING | DO UPDATE SET ... [WHERE ...]``;
    ``sets`` None: ``DO NOTHING``. ``set_newline``: ``DO UPDATE\\nSET`` (else ``DO UPDATE SET``)."""

    __slots__ = ("columns", "where", "sets", "update_where", "set_newline")

    def __init__(self, columns: Optional[Sequence[str]] = None, where: Optional[Node] = None,
                 sets: Optional[Sequence[Tuple[str, Node]]] = None, update_where: Optional[Node] = None,
                 set_newline: bool = False) -> None:
        self.columns = None if columns is None else tuple(columns)
        self.where = where
        self.sets = None if sets is None else tuple(sets)
        self.update_where = update_where
        self.set_newline = set_newline


class Insert(Node):
    """``INSERT INTO "table" [(cols)] VALUES (...) | select | DEFAULT VALUES [ON CONFLICT ...]
    [RETURNING ...]``: ``values`` a row of values, or ``select`` a :class:`Select`; neither:
    ``DEFAULT VALUES``."""

    __slots__ = ("table", "columns", "values", "select", "on_conflict", "returning")

    def __init__(self, table: str, columns: Sequence[str] = (), values: Optional[Sequence[Node]] = None,
                 select: Optional[Node] = None, on_conflict: Optional[OnConflict] = None,
                 returning: Sequence[Node] = ()) -> None:
        self.table = table
        self.columns = tuple(columns)
        self.values = None if values is None else tuple(values)
        self.select = select
        self.on_conflict = on_conflict
        self.returning = tuple(returning)


class Update(Node):
    """``UPDATE "table"\\nSET "a" = ...,\\n    "b" = ...\\nFROM ...\\nWHERE ...\\nRETURNING ...``."""

    __slots__ = ("table", "sets", "from_", "where", "returning")

    def __init__(self, table: str, sets: Sequence[Tuple[str, Node]], from_: Sequence[Node] = (),
                 where: Optional[Node] = None, returning: Sequence[Node] = ()) -> None:
        self.table = table
        self.sets = tuple(sets)
        self.from_ = tuple(from_)
        self.where = where
        self.returning = tuple(returning)


class Delete(Node):
    """``DELETE FROM "table" [AS alias]\\nUSING ...\\nWHERE ...\\nRETURNING ...``."""

    __slots__ = ("table", "alias", "using", "where", "returning")

    def __init__(self, table: str, alias: Optional[str] = None, using: Sequence[Node] = (),
                 where: Optional[Node] = None, returning: Sequence[Node] = ()) -> None:
        self.table = table
        self.alias = alias
        self.using = tuple(using)
        self.where = where
        self.returning = tuple(returning)


class CTE(Node):
    """``"name" AS (\\nquery\\n)``: a select or a data-modifying statement."""

    __slots__ = ("name", "query")

    def __init__(self, name: str, query: Node) -> None:
        self.name = name
        self.query = query


class With(Node):
    """``WITH cte, ...\\nbody``; a body that is itself a :class:`With` is merged into one
    ``WITH`` list (its CTEs after these)."""

    __slots__ = ("ctes", "body")

    def __init__(self, ctes: Sequence[CTE], body: Node) -> None:
        self.ctes = tuple(ctes)
        self.body = body
