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
  the statement fail (nothing is written), raising a typed access policy error in the runners
  (:class:`schemac.semantics.qir.PolicyCheck` with SQLSTATE :data:`POLICY_SQLSTATE`; its SQL, a
  call of a small function the migration creates that raises that SQLSTATE, is written by
  :mod:`schemac.pgsql.policies`). No user value can make Postgres raise that SQLSTATE (a failed
  cast is 22P02 whatever its text), and the runners recognise these errors by their SQLSTATE
  alone, so a policy error cannot be forged;
* a required link whose target the ``select`` policies hide fails the statement with SQLSTATE
  :data:`HIDDEN_LINK_SQLSTATE` and Gel's message (:func:`required_link_visible`).

This module checks each policy's conditions over the row a use reads (the row's alias is the
:class:`~schemac.semantics.qir.Visible` node's ``row``) and returns IR nodes; it writes no SQL.

Policies of other types are not applied inside a policy's own ``when`` / ``using`` (Gel applies
them there too; schemac does not, so a policy never recurses).
"""

from __future__ import annotations

import dataclasses
from typing import Optional

from schemac.semantics import qir
from schemac.semantics.model import ObjectType

#: SQLSTATE of an insert or update the policies refuse (class ``SC``, which Postgres never uses).
POLICY_SQLSTATE = "SCP01"
#: SQLSTATE of a required link whose target the policies hide (Gel: CardinalityViolationError).
HIDDEN_LINK_SQLSTATE = "SCP02"

def not_applied(ctx):
    """``ctx`` where no access policy is applied (a trigger's statements run in the database, for
    every writer, as any Postgres trigger's; a policy's own conditions: a policy never recurses)."""
    return ctx if ctx.policies_off else dataclasses.replace(ctx, policies_off=True)


def _off(ctx) -> bool:
    return getattr(ctx, "policies_off", False)


def _conditions(obj: ObjectType, kind: str, ctx, alias: Optional[str]):
    """``(allow rules, deny rules)`` of ``kind`` (:class:`~schemac.semantics.qir.PolicyRule`:
    each policy's checked conditions over the row ``alias``), or ``None`` after an error was
    reported."""
    from schemac.semantics.exprs import check
    from schemac.semantics.e_types import BOOL

    allows, denies = [], []
    for pol in obj.policies:
        if kind not in pol.kinds:
            continue
        inner = dataclasses.replace(ctx, subject=obj, module=pol.module, column_prefix=alias, subject_column=None,
                                    variables={}, bound_statements={}, policies_off=True)
        conds = []
        for expr in (pol.when, pol.using):
            if expr is None:
                continue
            node = check(expr, inner, BOOL)  # type: ignore[arg-type]
            if node is None:
                return None
            conds.append(node)
        (allows if pol.allow else denies).append(qir.PolicyRule(pol, tuple(conds)))
    return tuple(allows), tuple(denies)


def _visible(obj: ObjectType, kinds, ctx, alias: Optional[str]) -> qir.Visible:
    rules = []
    for kind in kinds:
        found = _conditions(obj, kind, ctx, alias)
        if found is None:
            return qir.Visible(obj.span, _bool(), False, obj, alias, tuple(kinds), None)
        rules.append(found)
    return qir.Visible(obj.span, _bool(), False, obj, alias, tuple(kinds), tuple(rules))


def _bool():
    from schemac.semantics.e_types import BOOL

    return BOOL


def applies(obj: ObjectType, ctx) -> bool:
    """Whether the policies of ``obj`` restrict what a query reads of it here (it has some, and
    this is not inside a policy's own expression or a trigger): :func:`read_predicate` is then
    not ``None``."""
    return bool(obj.policies) and not _off(ctx)


def predicate(obj: ObjectType, kind: str, ctx, alias: Optional[str] = None) -> Optional[qir.Visible]:
    """The rows of ``obj`` (named ``alias``, or unqualified) that ``kind`` allows, or ``None``
    when the type has no policy (or inside a policy expression)."""
    if not obj.policies or _off(ctx):
        return None
    return _visible(obj, (kind,), ctx, alias)


def read_predicate(obj: ObjectType, ctx, alias: Optional[str] = None, *kinds: str) -> Optional[qir.Visible]:
    """The ``select`` predicate, and those of ``kinds`` (``update read``, ``delete``), joined
    (written with each policy's condition once: :func:`schemac.pgsql.policies.visible_sql`)."""
    if not obj.policies or _off(ctx):
        return None
    return _visible(obj, ("select",) + kinds, ctx, alias)


def write_check(obj: ObjectType, kind: str, ctx, alias: str) -> Optional[qir.PolicyCheck]:
    """For ``insert`` / ``update write``: true for an allowed row of ``alias``, failing the
    statement for any other (see the module docstring), or ``None`` when the type has no
    policy."""
    if not obj.policies or _off(ctx):
        return None
    visible = _visible(obj, (kind,), ctx, alias)
    return qir.PolicyCheck(obj.span, _bool(), False, visible, POLICY_SQLSTATE,
                           "insert" if kind == "insert" else "update")


def required_link_visible(pred: Optional[qir.Expr], link, source: ObjectType, alias: str) -> Optional[qir.Expr]:
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
    assert type(pred) is qir.Visible
    return qir.PolicyCheck(pred.span, pred.type, False, pred, HIDDEN_LINK_SQLSTATE, None, link, source)


#: The alias a link's target row has in :func:`link_visible` (and in the SQL that reads a link
#: through it, ``schemac.semantics.lowering.visible_link_sql``).
LINK_ROW = '"_pv"'


def link_visible(link, source: ObjectType, ctx) -> Optional[qir.Expr]:
    """The condition under which a read of the single ``link`` of ``source`` sees its target
    (over :data:`LINK_ROW`, the target's row): its ``select`` policies, and for a required link
    the failure Gel raises when they hide it (:func:`required_link_visible`); ``None`` when
    nothing hides the target (no policies, or none apply here: inside a policy's own
    expression, a trigger, or a schema expression, which has no query parameters).

    This is the one rule every read of a link's value follows (its id in a shape, ``.link``,
    ``.link.id``, ``exists``, ``count``, filters, ``order by``, ``group by``): Gel reads a link
    as the set of its target objects, and that set only holds the objects the policies let the
    query see (https://docs.geldata.com/reference/datamodel/access_policies)."""
    if not link.target.policies or _off(ctx) or getattr(ctx, "params", None) is None:
        return None
    return required_link_visible(read_predicate(link.target, ctx, LINK_ROW), link, source, LINK_ROW)


def join_row_visible(link, ctx, row: str = '"_c"', poly=None) -> Optional[qir.JoinRowVisible]:
    """The condition over a multi link's join row ``row`` under which the query sees the
    linked object (:func:`link_visible`'s rule for a multi link): the target's visible rows
    hold the linked one; for a polymorphic link (``poly``, a
    :class:`schemac.semantics.model.PolyLink`) one per concrete subtype with policies, over the
    column that subtype's objects are linked by. ``None`` when nothing hides a target."""
    if _off(ctx) or getattr(ctx, "params", None) is None:
        return None
    targets = list(poly.targets) if poly is not None else [(link.target, "target_id")]
    if not any(t.policies for t, _ in targets):
        return None
    arms = tuple((t, col, read_predicate(t, ctx, LINK_ROW)) for t, col in targets)
    first = targets[0][0]
    return qir.JoinRowVisible(first.span, _bool(), False, row, arms)
