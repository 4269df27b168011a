"""The SQL of access policies (https://docs.geldata.com/reference/datamodel/access_policies): the
lowering of the checked policy nodes of the IR (:class:`~schemac.semantics.qir.Visible`,
:class:`~schemac.semantics.qir.PolicyCheck`, :class:`~schemac.semantics.qir.UpsertCheck`,
:class:`~schemac.semantics.qir.JoinRowVisible`) that :mod:`schemac.semantics.policies` builds.

* A policy holds when its ``when`` and its ``using`` are both true (an empty result counts as
  false: ``COALESCE(<cond>, false)``); the rows a kind allows are those at least one ``allow``
  policy holds for and no ``deny`` policy does: ``(<allow> OR ...) AND NOT (<deny> OR ...)``.
* A write the policies refuse, and a required link whose target they hide, fail the statement:
  ``CASE WHEN <allowed> THEN true ELSE schemac_raise(<sqlstate>, <message>, <detail>, NULL::boolean)
  END``. :data:`RAISE_FUNCTION` is a small PL/pgSQL function the migration creates once the
  schema has policies (:data:`RAISE_FUNCTION_SQL`); it raises that SQLSTATE (``SCP01`` / ``SCP02``,
  class ``SC``, which Postgres never uses) with the message and, as its DETAIL, JSON naming the
  type, the action and the object's id (or the link). No user value can make Postgres raise
  that SQLSTATE, and the runners recognise these errors by their SQLSTATE alone.

Each function takes the lowering's ``expr_sql`` (the SQL of a checked expression), which writes
the policies' conditions: this module does not import the lowering.
"""

from __future__ import annotations

import json
from typing import Callable, List

from schemac.semantics import qir
from schemac.semantics.sqlnames import qi, sql_string

#: The lowering's ``expr_sql``: the SQL of a checked expression.
ExprSql = Callable[[qir.Expr], str]

#: The function that raises a policy error (created by the migration, see below).
RAISE_FUNCTION = "schemac_raise"

#: ``schemac_raise(sqlstate, message, detail, result)`` raises ``sqlstate`` with that message
#: and DETAIL; declared to return ``result``'s type so that it stands for a value of any type.
#: VOLATILE: Postgres never evaluates it ahead of time (only where a CASE branch reaches it).
#: Every library of a database creates the same function (``CREATE OR REPLACE``), and no
#: migration drops it: another library may call it.
RAISE_FUNCTION_SQL = (f"CREATE OR REPLACE FUNCTION {RAISE_FUNCTION}(text, text, text, anyelement) RETURNS anyelement\n"
                      "    LANGUAGE plpgsql VOLATILE AS $$\n"
                      "BEGIN\n"
                      "    RAISE EXCEPTION USING ERRCODE = $1, MESSAGE = $2, DETAIL = $3;\n"
                      "END\n"
                      "$$;")


def raise_sql(sqlstate: str, message: str, detail: str, pg_type: str = "boolean") -> str:
    """SQL (of type ``pg_type``) that fails the statement with ``sqlstate``; ``message`` and
    ``detail`` are SQL text expressions."""
    return f"{RAISE_FUNCTION}({sql_string(sqlstate)}, {message}, {detail}, NULL::{pg_type})"


def _rule_sql(rule: qir.PolicyRule, expr_sql: ExprSql) -> str:
    """A policy's conditions, all true (an empty one false)."""
    parts = [f"COALESCE({expr_sql(c)}, false)" if c.nullable else f"({expr_sql(c)})" for c in rule.conds]
    return " AND ".join(parts) if parts else "true"


def _any(rules, expr_sql: ExprSql) -> str:
    return " OR ".join(f"({_rule_sql(r, expr_sql)})" for r in rules) if rules else "false"


def visible_sql(node: qir.Visible, expr_sql: ExprSql) -> str:
    """True for the rows the policies of every kind of ``node`` allow, each policy's condition
    written once: a kind's allow clause is left out when another kind's allow policies are a
    subset of its own (``owner allow all`` + ``public allow select``: the update's ``owner``
    implies the select's ``owner OR public``), and the deny policies of all the kinds are one
    ``NOT (...)``."""
    if node.rules is None:
        return "false"
    found = node.rules
    sets = [frozenset(id(r.policy) for r in allows) for allows, _ in found]
    parts = []
    for i, (allows, _) in enumerate(found):
        if any(j != i and sets[j] <= sets[i] and (sets[j] != sets[i] or j < i) for j in range(len(found))):
            continue  # implied by the allow clause of a kind whose allow policies are fewer
        parts.append(f"({_any(allows, expr_sql)})")
    denies: List[qir.PolicyRule] = []
    seen = set()
    for _, ds in found:
        for r in ds:
            if id(r.policy) not in seen:
                seen.add(id(r.policy))
                denies.append(r)
    if denies:
        parts.append(f"NOT ({_any(denies, expr_sql)})")
    return " AND ".join(parts)


def policy_check_sql(node: qir.PolicyCheck, expr_sql: ExprSql) -> str:
    """``CASE WHEN <visible> THEN true ELSE <the policy error> END``: SCP01 for a refused write
    (the refusing deny policy's message, else the allow policies' messages, else Gel's default),
    SCP02 for a required link whose target is hidden."""
    v = node.visible
    if node.sqlstate != "SCP01":
        link, source = node.link, node.source
        msg = sql_string(f"required link '{link.name}' of object type '{source.qualname}' "  # type: ignore[union-attr]
                         "is hidden by access policy")
        detail = sql_string(json.dumps({"type": source.qualname, "link": link.name},  # type: ignore[union-attr]
                                       sort_keys=True))
        return f"(CASE WHEN {visible_sql(v, expr_sql)} THEN true ELSE {raise_sql(node.sqlstate, msg, detail)} END)"
    if v.rules is None:
        return "false"
    allows, denies = v.rules[0]
    obj, action = v.subject, node.action
    default = f"access policy violation on {action} of {obj.qualname}"
    messages = [r.policy.errmessage for r in allows if r.policy.errmessage]  # type: ignore[attr-defined]
    otherwise = sql_string("; ".join(messages) if messages else default)
    if denies:
        whens = " ".join(f"WHEN {_rule_sql(r, expr_sql)} THEN {sql_string(r.policy.errmessage or default)}"  # type: ignore[attr-defined]
                         for r in denies)
        message = f"CASE {whens} ELSE {otherwise} END"
    else:
        message = otherwise
    detail = (f"json_build_object('type', {sql_string(obj.qualname)}, 'action', {sql_string(action)}, "  # type: ignore[arg-type]
              f"'id', {v.row}.\"id\")::text")
    return f"(CASE WHEN {visible_sql(v, expr_sql)} THEN true ELSE {raise_sql(node.sqlstate, message, detail)} END)"


def upsert_check_sql(node: qir.UpsertCheck, expr_sql: ExprSql) -> str:
    return f"(CASE WHEN {node.row}.xmax = 0 THEN {expr_sql(node.inserted)} ELSE {expr_sql(node.updated)} END)"


def join_row_visible_sql(node: qir.JoinRowVisible, expr_sql: ExprSql) -> str:
    """An ``EXISTS`` over each target type's visible rows holding the linked one (a column
    set, for a target type without policies), one of them true."""
    arms = []
    for t, col, visible in node.targets:
        ref = f"{node.row}.{qi(col)}"
        if visible is None:
            arms.append(f"{ref} IS NOT NULL")
        else:
            row = visible.row
            arms.append(f"EXISTS (SELECT 1 FROM {t.from_sql or qi(t.table)} AS {row} "
                        f"WHERE {row}.\"id\" = {ref} AND {visible_sql(visible, expr_sql)})")
    return arms[0] if len(arms) == 1 else "(" + " OR ".join(arms) + ")"


def row_of(node: qir.Expr) -> str:
    """The row a policy node's conditions read (the alias the SQL around it gives that row)."""
    if type(node) is qir.PolicyCheck:
        node = node.visible  # type: ignore[attr-defined]
    return node.row  # type: ignore[attr-defined]

