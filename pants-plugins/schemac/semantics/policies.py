"""Access policies (https://docs.geldata.com/reference/datamodel/access_policies), enforced by
rewriting every generated query, as Gel does:

* a type without policies allows everything; once it has one, an operation is allowed on an
  object only when at least one ``allow`` policy of that kind holds for it and no ``deny``
  policy of that kind does (a policy holds when its ``when`` and its ``using`` are both true;
  an empty result counts as false);
* ``select``: every scan of the type (the queried type, nested shapes, backlinks, computed links,
  object globals, link values) only sees the objects it allows; ``update read`` and ``delete``
  further restrict which objects an update or delete touches. Objects outside are skipped
  silently;
* ``insert`` and ``update write`` check each new or updated object: one that is not allowed makes
  the statement fail (nothing is written), raising a typed access policy error in the runners.
  The check is a SQL expression that fails for such a row: it calls :data:`RAISE_FUNCTION`, a
  small PL/pgSQL function the migration creates once the schema has policies
  (:data:`RAISE_FUNCTION_SQL`), which raises SQLSTATE :data:`POLICY_SQLSTATE` with the policy's
  message and, as its DETAIL, JSON naming the type, the action and the object's id. No user
  value can make Postgres raise that SQLSTATE (a failed cast is 22P02 whatever its text), and
  the runners recognise these errors by their SQLSTATE alone, so a policy error cannot be forged;
* a required link whose target the ``select`` policies hide fails the statement with SQLSTATE
  :data:`HIDDEN_LINK_SQLSTATE` and Gel's message (:func:`required_link_visible`).

Policies of other types are not applied inside a policy's own ``when`` / ``using`` (Gel applies
them there too; schemac does not, so a policy never recurses).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from typing import List, Optional

from schemac.semantics.model import ObjectType
from schemac.semantics.sqlnames import qi, sql_string

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

#: SQLSTATE of an insert or update the policies refuse (class ``SC``, which Postgres never uses).
POLICY_SQLSTATE = "SCP01"
#: SQLSTATE of a required link whose target the policies hide (Gel: CardinalityViolationError).
HIDDEN_LINK_SQLSTATE = "SCP02"


def raise_sql(sqlstate: str, message: str, detail: str, pg_type: str = "boolean") -> str:
    """SQL (of type ``pg_type``) that fails the statement with ``sqlstate``; ``message`` and
    ``detail`` are SQL text expressions."""
    return f"{RAISE_FUNCTION}({sql_string(sqlstate)}, {message}, {detail}, NULL::{pg_type})"

#: Depth of policy expansion: policies are not applied inside policy expressions.
_EXPANDING: List[str] = []


@contextlib.contextmanager
def not_applied():
    """Within it no access policy is applied (a trigger's statements run in the database, for
    every writer, as any Postgres trigger's)."""
    _EXPANDING.append("")
    try:
        yield
    finally:
        _EXPANDING.pop()


def _conditions(obj: ObjectType, kind: str, ctx, alias: Optional[str]):
    """``([(policy, SQL)] of allow policies, [...] of deny policies)`` of ``kind``, or ``None``
    after an error was reported."""
    from schemac.semantics.exprs import BOOL, lower

    allows, denies = [], []
    for pol in obj.policies:
        if kind not in pol.kinds:
            continue
        inner = dataclasses.replace(ctx, subject=obj, module=pol.module, column_prefix=alias, subject_column=None,
                                    variables={}, bound_statements={})
        parts = []
        for expr in (pol.when, pol.using):
            if expr is None:
                continue
            low = lower(expr, inner, BOOL)  # type: ignore[arg-type]
            if low is None:
                return None
            parts.append(f"COALESCE({low.sql}, false)" if low.nullable else f"({low.sql})")
        (allows if pol.allow else denies).append((pol, " AND ".join(parts) if parts else "true"))
    return allows, denies


def _expanded(obj: ObjectType, kind: str, ctx, alias: Optional[str]):
    """:func:`_conditions` of ``obj``, with policies not applied inside its expressions."""
    _EXPANDING.append(obj.qualname)
    try:
        return _conditions(obj, kind, ctx, alias)
    finally:
        _EXPANDING.pop()


def _allowed(allows, denies) -> str:
    """SQL true where one allow condition holds and no deny condition does."""
    allow = " OR ".join(f"({c})" for _, c in allows) if allows else "false"
    if not denies:
        return f"({allow})"
    return f"({allow}) AND NOT ({' OR '.join(f'({c})' for _, c in denies)})"


def predicate(obj: ObjectType, kind: str, ctx, alias: Optional[str] = None) -> Optional[str]:
    """SQL true for the rows of ``obj`` (named ``alias``, or unqualified) that ``kind`` allows,
    or ``None`` when the type has no policy (or inside a policy expression)."""
    if not obj.policies or _EXPANDING:
        return None
    found = _expanded(obj, kind, ctx, alias)
    return "false" if found is None else _allowed(*found)


def read_predicate(obj: ObjectType, ctx, alias: Optional[str] = None, *kinds: str) -> Optional[str]:
    """The ``select`` predicate, and those of ``kinds`` (``update read``, ``delete``), joined,
    each policy's condition written once: a kind's allow clause is left out when another kind's
    allow policies are a subset of its own (``owner allow all`` + ``public allow select``: the
    update's ``owner`` implies the select's ``owner OR public``), and the deny policies of all
    the kinds are one ``NOT (...)``."""
    if not kinds:
        return predicate(obj, "select", ctx, alias)
    if not obj.policies or _EXPANDING:
        return None
    found = []
    for kind in ("select",) + kinds:
        f = _expanded(obj, kind, ctx, alias)
        if f is None:
            return "false"
        found.append(f)
    sets = [frozenset(id(p) for p, _ in allows) for allows, _ in found]
    parts = []
    for i, (allows, _) in enumerate(found):
        if any(j != i and sets[j] <= sets[i] and (sets[j] != sets[i] or j < i) for j in range(len(found))):
            continue  # implied by the allow clause of a kind whose allow policies are fewer
        parts.append(f"({' OR '.join(f'({c})' for _, c in allows) if allows else 'false'})")
    denies, seen = [], set()
    for _, ds in found:
        for p, c in ds:
            if id(p) not in seen:
                seen.add(id(p))
                denies.append(c)
    if denies:
        parts.append(f"NOT ({' OR '.join(f'({c})' for c in denies)})")
    return " AND ".join(parts)


def write_check(obj: ObjectType, kind: str, ctx, alias: str) -> Optional[str]:
    """For ``insert`` / ``update write``: SQL that is true for an allowed row of ``alias`` and
    fails the statement for any other (see the module docstring), or ``None`` when the type
    has no policy."""
    if not obj.policies or _EXPANDING:
        return None
    found = _expanded(obj, kind, ctx, alias)
    if found is None:
        return "false"
    allows, denies = found
    ok = _allowed(allows, denies)
    action = "insert" if kind == "insert" else "update"
    default = f"access policy violation on {action} of {obj.qualname}"
    messages = [p.errmessage for p, _ in allows if p.errmessage]
    otherwise = sql_string("; ".join(messages) if messages else default)
    if denies:
        whens = " ".join(f"WHEN {c} THEN {sql_string(p.errmessage or default)}" for p, c in denies)
        message = f"CASE {whens} ELSE {otherwise} END"
    else:
        message = otherwise
    detail = (f"json_build_object('type', {sql_string(obj.qualname)}, 'action', {sql_string(action)}, "
              f"'id', {alias}.\"id\")::text")
    return f"(CASE WHEN {ok} THEN true ELSE {raise_sql(POLICY_SQLSTATE, message, detail)} END)"


def required_link_visible(pred: Optional[str], link, source: ObjectType, alias: str) -> Optional[str]:
    """``pred`` (the ``select`` predicate of a link's target over ``alias``) for a *required*
    single link: a target the policies hide fails the statement instead of reading as empty,
    as Gel does (it reads such a link through ``assert_exists`` with the message "required
    link 'chat' of object type 'default::Message' is hidden by access policy", a
    CardinalityViolationError; https://docs.geldata.com/reference/datamodel/access_policies):
    the generated types say the link is never empty. It fails with SQLSTATE
    :data:`HIDDEN_LINK_SQLSTATE` (the runners' CardinalityViolationError), DETAIL
    ``{"type": ..., "link": ...}``. ``pred`` unchanged for any other link."""
    if pred is None or not link.required or link.multi:
        return pred
    msg = sql_string(f"required link '{link.name}' of object type '{source.qualname}' is hidden by access policy")
    detail = sql_string(json.dumps({"type": source.qualname, "link": link.name}, sort_keys=True))
    return f"(CASE WHEN {pred} THEN true ELSE {raise_sql(HIDDEN_LINK_SQLSTATE, msg, detail)} END)"


#: The alias a link's target row has in :func:`link_visible` (and in the SQL that reads a link
#: through it, ``schemac.semantics.lowering.visible_link_sql``).
LINK_ROW = '"_pv"'


def link_visible(link, source: ObjectType, ctx) -> Optional[str]:
    """The condition under which a read of the single ``link`` of ``source`` sees its target
    (over :data:`LINK_ROW`, the target's row): its ``select`` policies, and for a required link
    the failure Gel raises when they hide it (:func:`required_link_visible`); ``None`` when
    nothing hides the target (no policies, or none apply here: inside a policy's own
    expression, a trigger, or a schema expression, which has no query parameters).

    This is the one rule every read of a link's value follows (its id in a shape, ``.link``,
    ``.link.id``, ``exists``, ``count``, filters, ``order by``, ``group by``): Gel reads a link
    as the set of its target objects, and that set only holds the objects the policies let the
    query see (https://docs.geldata.com/reference/datamodel/access_policies)."""
    if not link.target.policies or _EXPANDING or getattr(ctx, "params", None) is None:
        return None
    return required_link_visible(read_predicate(link.target, ctx, LINK_ROW), link, source, LINK_ROW)


def join_row_visible(link, ctx, row: str = '"_c"', poly=None) -> Optional[str]:
    """The condition over a multi link's join row ``row`` under which the query sees the
    linked object (:func:`link_visible`'s rule for a multi link): an ``EXISTS`` over the
    target's visible rows; for a polymorphic link (``poly``, a
    :class:`schemac.semantics.model.PolyLink`) one per concrete subtype with policies, over the
    column that subtype's objects are linked by. ``None`` when nothing hides a target."""
    if _EXPANDING or getattr(ctx, "params", None) is None:
        return None
    targets = [(t, qi(c)) for t, c in poly.targets] if poly is not None else [(link.target, '"target_id"')]
    if not any(t.policies for t, _ in targets):
        return None
    arms = []
    for t, col in targets:
        pred = read_predicate(t, ctx, LINK_ROW)
        ref = f"{row}.{col}"
        if pred is None:
            arms.append(f"{ref} IS NOT NULL")
        else:
            arms.append(f"EXISTS (SELECT 1 FROM {t.from_sql or qi(t.table)} AS {LINK_ROW} "
                        f"WHERE {LINK_ROW}.\"id\" = {ref} AND {pred})")
    return arms[0] if len(arms) == 1 else "(" + " OR ".join(arms) + ")"


def alias_of(obj: ObjectType) -> str:
    return qi(obj.table)
