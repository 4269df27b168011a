"""How Postgres spells the expression forms :mod:`schemac.semantics.exprs` names as calls
(:class:`schemac.semantics.qir.Call`): the empty set, ``if ... else``, array and tuple literals
and their elements, indexing, ``re_match_all``, ``count`` of one value (see
:mod:`schemac.pgsql.calls` for the entries' form).

Where a spelling depends on the result type it reads ``node.type``; on the arguments' shape
(how many, which may be empty), ``node.args``; on a checker decision, ``node.consts``.
"""

from __future__ import annotations

from typing import Dict

from schemac.pgsql.spelling import Entry, Spelling
from schemac.semantics import qir
from schemac.semantics.sqlnames import qi, sql_string


def _text(sql: str) -> str:
    """``sql`` as a template of no argument (its braces are not placeholders)."""
    return sql.replace("{", "{{").replace("}", "}}")


def _empty_unless_all(template: str, args) -> Spelling:
    """``template`` over ``args`` (each as an operand), empty (NULL) when one of the arguments
    that may be empty is: Gel's value built of a set of each element (an array, a tuple) is
    empty when one element is (https://docs.geldata.com/reference/stdlib/array)."""
    nullable = [i for i, a in enumerate(args) if a.nullable]
    if nullable:
        test = " OR ".join(f"{{{i}}} IS NULL" for i in nullable)
        template = f"CASE WHEN {test} THEN NULL ELSE {template} END"
    return Spelling(template, "o" * len(args), not nullable)


def _array(node: qir.Call) -> Spelling:
    """``[a, b, c]`` (https://docs.geldata.com/reference/stdlib/array): ``CAST(ARRAY[a, b, c]
    AS T[])``; ``[]`` of the type its context gives, ``CAST(ARRAY[] AS T[])``."""
    if not node.args:
        return Spelling(f"CAST(ARRAY[] AS {node.type.pg})", "", True)
    body = ", ".join(f"{{{i}}}" for i in range(len(node.args)))
    return _empty_unless_all(f"CAST(ARRAY[{body}] AS {node.type.pg})", node.args)


def _tuple(node: qir.Call) -> Spelling:
    """``(true, false)`` / ``(x := 1.5, y := 2)`` where a tuple type is expected
    (https://docs.geldata.com/reference/stdlib/tuple): ``CAST(ROW(CAST(a AS t0), ...) AS
    "tuple_...")``, its arguments in the type's order."""
    fields = node.type.fields or ()
    body = ", ".join(f"CAST({{{i}}} AS {t.pg})" for i, (_, t) in enumerate(fields))
    return _empty_unless_all(f"CAST(ROW({body}) AS {node.type.pg})", node.args)


def _tuple_element(node: qir.Call) -> Spelling:
    """``t.0`` / ``t.name`` of a tuple value held as a Postgres composite (a tuple property):
    its attribute, ``(t)."f0"``; ``consts`` is the element's position
    (https://docs.geldata.com/reference/stdlib/tuple#operator::tupleidx)."""
    attr = node.args[0].type.composite_fields[node.consts[0]][0]  # type: ignore[index]
    return Spelling(f"({{0}}).{_text(qi(attr))}", "r", True)


def _tuple_element_of(node: qir.Call) -> Spelling:
    """``(a, b).0`` of a tuple written in the query: the element (the first argument), empty
    when another element of the tuple is (the other arguments: Gel's tuple of sets is their
    product)."""
    n = len(node.args) - 1
    test = " OR ".join(f"{{{k}}} IS NULL" for k in range(1, n + 1))
    return Spelling(f"CASE WHEN {test} THEN NULL ELSE {{0}} END", "p" + "o" * n, True)


def _count_free_rows(node: qir.Call) -> Spelling:
    """``count(s)`` of free objects of a ``for`` loop: the rows' count, a bigint (an aggregate
    over the first rows only is Postgres' ``integer``)."""
    first = node.args[0].rows.first  # type: ignore[attr-defined]
    return Spelling("CAST({0} AS bigint)" if first else "{0}", "r", True)


def _specified(node: qir.Call) -> Spelling:
    """``__specified__.name`` in an update rewrite: whether the statement named the column, the
    transaction-local setting (``consts``) its ``UPDATE OF`` trigger sets
    (https://docs.geldata.com/reference/datamodel/mutation_rewrites; see
    ``schemac.semantics.triggers``)."""
    setting = sql_string(node.consts[0])  # type: ignore[arg-type]
    return Spelling(_text(f"coalesce(current_setting({setting}, true), '') = 'on'"), "", False)


#: Postgres' array index is 1-based and NULL out of bounds: Gel's is 0-based, counted from the
#: end when negative, and fails out of bounds ("array index ... is out of bounds",
#: https://docs.geldata.com/reference/stdlib/array#operator::arrayidx). Each operand is written
#: once (a sub-select names them); the failing cast reads the array's length too, so Postgres
#: cannot fold it into a constant error when the index is a constant.
_ARRAY_INDEX = ("(SELECT CASE WHEN _ix._a IS NULL OR _ix._i IS NULL THEN NULL ELSE "
                "_ix._a[CASE WHEN _ix._i >= 0 AND _ix._i < _ix._n THEN _ix._i + 1 "
                "WHEN _ix._i < 0 AND -_ix._i <= _ix._n THEN _ix._n + _ix._i + 1 "
                "ELSE CAST('array index ' || CAST(_ix._i AS text) || ' is out of bounds' "
                "|| left(CAST(_ix._n AS text), 0) AS integer) END] END "
                "FROM (SELECT _ix0._a, _ix0._i, coalesce(cardinality(_ix0._a), 0) AS _n "
                "FROM (SELECT {0} AS _a, CAST({1} AS bigint) AS _i) AS _ix0) AS _ix)")

#: ``s[i]`` (https://docs.geldata.com/reference/stdlib/string#operator::stridx): the character
#: at the 0-based index, counted from the end when negative, failing out of bounds as Gel's
#: "string index ... is out of bounds" (Postgres' ``substr`` would give '').
_STR_INDEX = ("(SELECT CASE WHEN _sx._s IS NULL OR _sx._i IS NULL THEN NULL ELSE substr(_sx._s, CAST(CASE "
              "WHEN _sx._i >= 0 AND _sx._i < _sx._n THEN _sx._i + 1 "
              "WHEN _sx._i < 0 AND -_sx._i <= _sx._n THEN _sx._n + _sx._i + 1 "
              "ELSE CAST('string index ' || CAST(_sx._i AS text) || ' is out of bounds' "
              "|| left(CAST(_sx._n AS text), 0) AS integer) END "
              "AS integer), 1) END "
              "FROM (SELECT _sx0._s, _sx0._i, CAST(char_length(_sx0._s) AS bigint) AS _n "
              "FROM (SELECT {0} AS _s, CAST({1} AS bigint) AS _i) AS _sx0) AS _sx)")

EXPR: Dict[str, Entry] = {
    # `{}` where the context gives its type (https://docs.geldata.com/reference/edgeql/sets#empty-set)
    "empty": lambda node: Spelling(f"NULL::{node.type.pg}", "", True),
    # `a if c else b`: a parameter is cast wherever it stands (node-postgres and pgx send
    # untyped parameters; Postgres types a bare `CASE ($1)` as text)
    "if_else": Spelling("CASE ({0}) WHEN true THEN {1} WHEN false THEN {2} END", "ppp", True),
    # `exists re_match_all(pattern, s)` / `count(re_match_all(...))`
    # (https://docs.geldata.com/reference/stdlib/string#function::std::re_match_all)
    "re_match_all/exists": Spelling("EXISTS (SELECT 1 FROM regexp_matches({1}, {0}, 'g'))", "pp", True),
    "re_match_all/count": Spelling("(SELECT count(*) FROM regexp_matches({1}, {0}, 'g'))", "pp", True),
    "specified": _specified,
    "array": _array,
    "array_index": Spelling(_ARRAY_INDEX, "oo", True),
    "str_index": Spelling(_STR_INDEX, "oo", True),
    "tuple": _tuple,
    # a number literal as a tuple's element: `1` is an int64, `1.5` a float64 (Postgres'
    # integer and numeric otherwise)
    "typed_literal": lambda node: Spelling(f"CAST({{0}} AS {node.type.pg})", "r", True),
    "tuple_element": _tuple_element,
    "tuple_element_of": _tuple_element_of,
    "count/free_rows": _count_free_rows,
    # `count(x)` of one value: 1, or 0 when it is empty
    "count/one": Spelling("CAST(CASE WHEN {0} IS NULL THEN 0 ELSE 1 END AS bigint)", "p", True),
}
