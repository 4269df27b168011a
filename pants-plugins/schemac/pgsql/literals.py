"""How Postgres spells the literals of a query (:class:`schemac.semantics.qir.Literal`): strings
quoted, booleans, ``NULL``, Gel's ``decimal``/``bigint`` literals as ``numeric``, integers and
floats as written (https://docs.geldata.com/reference/edgeql/literals), and the negative zero
of a float, which Postgres' numeric literal cannot hold."""

from __future__ import annotations

from schemac.semantics import qir
from schemac.semantics.sqlnames import sql_string


def literal_sql(node: qir.Literal) -> str:
    if node.kind == "str":
        return sql_string(node.value)  # type: ignore[arg-type]
    if node.kind == "bool":
        return "true" if node.value else "false"
    if node.kind == "null":
        return "NULL"
    if node.kind == "numeric":
        return f"CAST({node.value} AS numeric)"
    return str(node.value)


def negative_zero_sql(node: qir.Unary) -> str:
    """``-0.0`` of a float type: Postgres reads ``-0.0`` as a numeric, which has no negative
    zero; Gel's float64 keeps its sign (``<str>math::sin(-0.0)`` is ``'-0'``)."""
    return f"CAST('-0' AS {node.type.pg})"
