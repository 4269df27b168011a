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
  The check is a SQL expression that fails for such a row: ``CAST('schemac-access-policy|<type>|
  <kind>|<id>|<message>' AS integer)`` (SQLSTATE 22P02; the runners recognise the prefix).

Policies of other types are not applied inside a policy's own ``when`` / ``using`` (Gel applies
them there too; schemac does not, so a policy never recurses).
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import List, Optional

from schemac.semantics.model import ObjectType
from schemac.semantics.sqlnames import qi, sql_string

#: The prefix of the text whose failed cast reports a violation (read by the runners).
MARK = "schemac-access-policy"

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
    """The ``select`` predicate, and those of ``kinds`` (``update read``, ``delete``), joined."""
    parts = [p for p in (predicate(obj, k, ctx, alias) for k in ("select",) + kinds) if p is not None]
    return " AND ".join(parts) if parts else None


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
    text = f"{sql_string(f'{MARK}|{obj.qualname}|{action}|')} || {alias}.\"id\"::text || '|' || {message}"
    return f"(CASE WHEN {ok} THEN true ELSE CAST({text} AS integer) IS NULL END)"


def required_link_visible(pred: Optional[str], link, source: ObjectType, alias: str) -> Optional[str]:
    """``pred`` (the ``select`` predicate of a link's target over ``alias``) for a *required*
    single link: a target the policies hide fails the statement instead of reading as empty,
    as Gel does (it reads such a link through ``assert_exists`` with the message "required
    link 'chat' of object type 'default::Message' is hidden by access policy", a
    CardinalityViolationError; https://docs.geldata.com/reference/datamodel/access_policies):
    the generated types say the link is never empty. The failing cast reads the row (``id IS
    NULL`` is never true), so Postgres cannot fold it into a constant. ``pred`` unchanged for
    any other link."""
    if pred is None or not link.required or link.multi:
        return pred
    msg = sql_string(f"required link '{link.name}' of object type '{source.qualname}' is hidden by access policy")
    probe = f"CASE WHEN {alias}.\"id\" IS NULL THEN '?' ELSE '' END"
    return f"(CASE WHEN {pred} THEN true ELSE CAST({msg} || {probe} AS integer) IS NULL END)"


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
