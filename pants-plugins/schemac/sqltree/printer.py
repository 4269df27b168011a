"""The one printer of :mod:`.nodes`: a tree -> Postgres SQL text.

Layout: a statement's clauses each start a line (``SELECT ...\\nFROM ...\\nWHERE ...``) unless
the node says it is written on one line (a sub-select, ``Select.multiline``); a CTE's body is
between ``AS (`` and ``)`` on lines of its own; ``UPDATE``'s assignments are one per line.

Parameters are numbered here: ``numbering`` maps a query parameter's index to the number it is
sent as (a statement variant that leaves parameters out numbers the rest ``$1..``); without
it, ``$index``. :func:`params` lists the parameters a tree reads, in no particular order.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Mapping, Optional, Set, Tuple

from schemac.sqltree import nodes as n


def qi(name: str) -> str:
    """A quoted identifier (``"`` doubled)."""
    return '"' + name.replace('"', '""') + '"'


class Printer:
    """Prints nodes; one per statement (it holds the parameter numbering)."""

    __slots__ = ("numbering",)

    def __init__(self, numbering: Optional[Mapping[int, int]] = None) -> None:
        self.numbering = numbering

    def sql(self, node: n.Node) -> str:
        return _PRINT[type(node)](self, node)

    def join(self, items, sep: str = ", ") -> str:
        return sep.join([_PRINT[type(x)](self, x) for x in items])

    # -- leaves -------------------------------------------------------------------------------

    def raw(self, node: n.Raw) -> str:
        parts = node.parts
        if len(parts) == 1 and type(parts[0]) is str:
            return parts[0]  # type: ignore[return-value]
        return "".join([p if type(p) is str else _PRINT[type(p)](self, p) for p in parts])

    def name(self, node: n.Name) -> str:
        return qi(node.name)

    def column(self, node: n.Column) -> str:
        return qi(node.name) if node.qualifier is None else f"{node.qualifier}.{qi(node.name)}"

    def star(self, node: n.Star) -> str:
        return "*" if node.qualifier is None else f"{node.qualifier}.*"

    def param(self, node: n.Param) -> str:
        num = node.index if self.numbering is None else self.numbering[node.index]
        return f"${num}" if node.cast is None else f"${num}::{node.cast}"

    def literal(self, node: n.Literal) -> str:
        if node.quoted:
            return "'" + node.value.replace("'", "''") + "'"
        return node.value

    # -- expressions --------------------------------------------------------------------------

    def op(self, node: n.Op) -> str:
        if node.left is None:
            return f"{node.op} {self.sql(node.right)}"  # type: ignore[arg-type]
        if node.right is None:
            return f"{self.sql(node.left)} {node.op}"
        return f"{self.sql(node.left)} {node.op} {self.sql(node.right)}"

    def bool_op(self, node: n.BoolOp) -> str:
        return self.join(node.args, f" {node.op} ")

    def paren(self, node: n.Paren) -> str:
        return f"({self.sql(node.expr)})"

    def cast(self, node: n.Cast) -> str:
        if node.short:
            return f"{self.sql(node.arg)}::{node.type}"
        return f"CAST({self.sql(node.arg)} AS {node.type})"

    def sort_by(self, node: n.SortBy) -> str:
        out = self.sql(node.expr)
        if node.direction is not None:
            out += " " + node.direction
        if node.nulls is not None:
            out += " NULLS " + node.nulls
        return out

    def func(self, node: n.Func) -> str:
        args = self.join(node.args)
        if node.distinct:
            args = "DISTINCT " + args
        if node.order_by:
            args += " ORDER BY " + self.join(node.order_by)
        out = f"{node.name}({args})"
        if node.filter is not None:
            out += f" FILTER (WHERE {self.sql(node.filter)})"
        if node.over is not None:
            out += f" OVER (ORDER BY {self.join(node.over)})" if node.over else " OVER ()"
        return out

    def case(self, node: n.Case) -> str:
        out = "CASE" if node.arg is None else f"CASE {self.sql(node.arg)}"
        for cond, value in node.whens:
            out += f" WHEN {self.sql(cond)} THEN {self.sql(value)}"
        if node.default is not None:
            out += f" ELSE {self.sql(node.default)}"
        return out + " END"

    def sub_link(self, node: n.SubLink) -> str:
        if node.kind == "ARRAY":
            return f"ARRAY({self.sql(node.query)})"
        if node.kind:
            return f"{node.kind} ({self.sql(node.query)})"
        return f"({self.sql(node.query)})"

    def array(self, node: n.ArrayExpr) -> str:
        return f"ARRAY[{self.join(node.items)}]"

    def row(self, node: n.RowExpr) -> str:
        return f"({self.join(node.items)})"

    # -- FROM items ---------------------------------------------------------------------------

    def target(self, node: n.Target) -> str:
        return self.sql(node.expr) if node.alias is None else f"{self.sql(node.expr)} AS {qi(node.alias)}"

    def table(self, node: n.Table) -> str:
        return qi(node.name) if node.alias is None else f"{qi(node.name)} AS {self.sql(node.alias)}"

    def alias(self, node: n.Alias) -> str:
        if not node.columns:
            return qi(node.name)
        return f"{qi(node.name)}({', '.join(qi(c) for c in node.columns)})"

    def range_subselect(self, node: n.RangeSubselect) -> str:
        query = self.sql(node.query)
        out = f"(\n{query}\n) AS {self.sql(node.alias)}" if node.multiline else f"({query}) AS {self.sql(node.alias)}"
        return "LATERAL " + out if node.lateral else out

    def range_function(self, node: n.RangeFunction) -> str:
        out = self.sql(node.func) + (" WITH ORDINALITY" if node.ordinality else "") + " AS " + self.sql(node.alias)
        return "LATERAL " + out if node.lateral else out

    def join_expr(self, node: n.Join) -> str:
        kind = f" {node.kind} JOIN " if node.kind else " JOIN "
        out = self.sql(node.left) + kind + self.sql(node.right)
        return out if node.on is None else f"{out} ON {self.sql(node.on)}"

    # -- statements ---------------------------------------------------------------------------

    def select(self, node: n.Select) -> str:
        nl = "\n" if node.multiline else " "
        head = "SELECT"
        if node.distinct_on:
            head += f" DISTINCT ON ({self.join(node.distinct_on)})"
        elif node.distinct:
            head += " DISTINCT"
        out = head + (" " + self.join(node.targets, node.target_sep) if node.targets else "")
        if node.from_:
            out += f"{' ' if node.from_inline else nl}FROM {self.join(node.from_)}"
        if node.where is not None:
            out += f"{nl}WHERE {self.sql(node.where)}"
        if node.group_by:
            out += f"{nl}GROUP BY {self.join(node.group_by)}"
        if node.having is not None:
            out += f"{nl}HAVING {self.sql(node.having)}"
        if node.order_by:
            out += f"{nl}ORDER BY {self.join(node.order_by)}"
        if node.offset is not None:
            out += f"{nl}OFFSET {self.sql(node.offset)}"
        if node.limit is not None:
            out += f"{nl}LIMIT {self.sql(node.limit)}"
        if node.locking is not None:
            out += f"{nl}FOR UPDATE" + (f" OF {', '.join(qi(t) for t in node.locking)}" if node.locking else "")
        return out

    def set_op(self, node: n.SetOp) -> str:
        sep = f"\n{node.op}\n" if node.multiline else f" {node.op} "
        return self.join(node.parts, sep)

    def on_conflict(self, node: n.OnConflict) -> str:
        out = "ON CONFLICT"
        if node.columns is not None:
            out += f" ({', '.join(qi(c) for c in node.columns)})"
            if node.where is not None:
                out += f" WHERE ({self.sql(node.where)})"
        if node.sets is None:
            return out + " DO NOTHING"
        if node.set_newline:
            out += " DO UPDATE\nSET " + ",\n    ".join(f"{qi(c)} = {self.sql(v)}" for c, v in node.sets)
        else:
            out += " DO UPDATE SET " + ", ".join(f"{qi(c)} = {self.sql(v)}" for c, v in node.sets)
        if node.update_where is not None:
            out += f"\nWHERE {self.sql(node.update_where)}"
        return out

    def insert(self, node: n.Insert) -> str:
        out = f"INSERT INTO {qi(node.table)}"
        if node.columns:
            out += f" ({', '.join(qi(c) for c in node.columns)})"
        if node.values is not None:
            out += f"\nVALUES ({self.join(node.values)})"
        elif node.select is not None:
            out += "\n" + self.sql(node.select)
        else:
            out += " DEFAULT VALUES"
        if node.on_conflict is not None:
            out += "\n" + self.sql(node.on_conflict)
        if node.returning:
            out += "\nRETURNING " + self.join(node.returning)
        return out

    def update(self, node: n.Update) -> str:
        out = f"UPDATE {qi(node.table)}\nSET " + ",\n    ".join(f"{qi(c)} = {self.sql(v)}" for c, v in node.sets)
        if node.from_:
            out += "\nFROM " + self.join(node.from_)
        if node.where is not None:
            out += "\nWHERE " + self.sql(node.where)
        if node.returning:
            out += "\nRETURNING " + self.join(node.returning)
        return out

    def delete(self, node: n.Delete) -> str:
        out = f"DELETE FROM {qi(node.table)}" + ("" if node.alias is None else f" AS {qi(node.alias)}")
        if node.using:
            out += "\nUSING " + self.join(node.using)
        if node.where is not None:
            out += "\nWHERE " + self.sql(node.where)
        if node.returning:
            out += "\nRETURNING " + self.join(node.returning)
        return out

    def cte(self, node: n.CTE) -> str:
        return f"{qi(node.name)} AS (\n{self.sql(node.query)}\n)"

    def with_(self, node: n.With) -> str:
        ctes: List[n.CTE] = list(node.ctes)
        body = node.body
        while type(body) is n.With:
            ctes += body.ctes  # type: ignore[attr-defined]
            body = body.body  # type: ignore[attr-defined]
        if not ctes:
            return self.sql(body)
        return "WITH " + self.join(ctes, ",\n") + "\n" + self.sql(body)


_PRINT: Dict[type, Callable[[Printer, n.Node], str]] = {  # type: ignore[dict-item]
    n.Raw: Printer.raw, n.Name: Printer.name, n.Column: Printer.column, n.Star: Printer.star,
    n.Param: Printer.param, n.Literal: Printer.literal, n.Op: Printer.op, n.BoolOp: Printer.bool_op,
    n.Paren: Printer.paren, n.Cast: Printer.cast, n.SortBy: Printer.sort_by, n.Func: Printer.func,
    n.Case: Printer.case, n.SubLink: Printer.sub_link, n.ArrayExpr: Printer.array, n.RowExpr: Printer.row,
    n.Target: Printer.target, n.Table: Printer.table, n.Alias: Printer.alias,
    n.RangeSubselect: Printer.range_subselect, n.RangeFunction: Printer.range_function,
    n.Join: Printer.join_expr, n.Select: Printer.select, n.SetOp: Printer.set_op,
    n.OnConflict: Printer.on_conflict, n.Insert: Printer.insert, n.Update: Printer.update,
    n.Delete: Printer.delete, n.CTE: Printer.cte, n.With: Printer.with_,
}


def to_sql(node: n.Node, numbering: Optional[Mapping[int, int]] = None) -> str:
    """The text of a tree; ``numbering``: query parameter index -> the ``$n`` it is sent as."""
    return _PRINT[type(node)](Printer(numbering), node)


#: The fields of each node that may hold nodes (a node, or a tuple of nodes or of pairs).
_KIDS: Dict[type, Tuple[str, ...]] = {
    n.Raw: ("parts",), n.Name: (), n.Column: (), n.Star: (), n.Param: (), n.Literal: (),
    n.Op: ("left", "right"), n.BoolOp: ("args",), n.Paren: ("expr",), n.Cast: ("arg",), n.SortBy: ("expr",),
    n.Func: ("args", "order_by", "filter", "over"), n.Case: ("whens", "default", "arg"), n.SubLink: ("query",),
    n.ArrayExpr: ("items",), n.RowExpr: ("items",), n.Target: ("expr",), n.Table: ("alias",), n.Alias: (),
    n.RangeSubselect: ("query", "alias"), n.RangeFunction: ("func", "alias"), n.Join: ("left", "right", "on"),
    n.Select: ("targets", "from_", "where", "group_by", "having", "order_by", "offset", "limit", "distinct_on"),
    n.SetOp: ("parts",), n.OnConflict: ("where", "sets", "update_where"),
    n.Insert: ("values", "select", "on_conflict", "returning"), n.Update: ("sets", "from_", "where", "returning"),
    n.Delete: ("using", "where", "returning"), n.CTE: ("query",), n.With: ("ctes", "body"),
}


def children(node: n.Node) -> List[n.Node]:
    """The nodes directly inside ``node`` (for walks: :func:`params`, :func:`walk`)."""
    out: List[n.Node] = []
    for slot in _KIDS[type(node)]:
        value = getattr(node, slot)
        if value is None:
            continue
        if type(value) is not tuple:
            out.append(value)
            continue
        for item in value:
            if type(item) is tuple:  # (a pair: (column, value), (condition, value))
                out.extend(x for x in item if isinstance(x, n.Node))
            elif type(item) is not str:
                out.append(item)
    return out


def walk(node: n.Node):
    """Every node of a tree, ``node`` first (iterative: trees can be deep)."""
    stack = [node]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(children(x))


def params(node: n.Node) -> Set[int]:
    """The indices of the parameters a tree reads."""
    found: Set[int] = set()
    stack = [node]
    while stack:
        x = stack.pop()
        t = type(x)
        if t is n.Raw:  # (the most frequent: inline)
            for p in x.parts:  # type: ignore[attr-defined]
                tp = type(p)
                if tp is n.Param:
                    found.add(p.index)  # type: ignore[union-attr]
                elif tp is not str:
                    stack.append(p)  # type: ignore[arg-type]
        elif t is n.Param:
            found.add(x.index)  # type: ignore[attr-defined]
        else:
            stack.extend(children(x))
    return found
