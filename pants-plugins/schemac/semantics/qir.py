"""The typed query IR: what the checker (:mod:`schemac.semantics.exprs`, :mod:`schemac.semantics.queries`) knows
about a query once it is checked, and all that the lowering (:mod:`schemac.semantics.lowering`) reads to
write its SQL.

Every node is a plain frozen dataclass carrying the :class:`~schemac.diagnostics.Span` of the
source it came from. Every expression carries its :class:`~schemac.semantics.model.ValueType` and whether
it may be empty (``nullable``; its :attr:`Expr.cardinality` is then ``at_most_one``, else
``one``); every path is resolved to the column, link or binding it reads (no names are looked
up again after checking). Statements carry their result fields, cardinality and the exclusive
constraints they can violate. Nothing here holds SQL text except what the schema already
lowered (column defaults, partial-index predicates: the ``*_sql`` fields); access policies are
checked nodes (:class:`Visible`, :class:`PolicyCheck`) that :mod:`schemac.pgsql.policies` writes. Gel does the same: EdgeQL is compiled to
an IR of typed, scoped sets before any SQL (https://docs.geldata.com/reference/edgeql).

How to add a query form:

1. add the node(s) here: a frozen dataclass deriving from :class:`Expr` (an expression: its
   fields after ``span, type, nullable``) or :class:`Node` (a statement or a part of one), with
   a docstring naming the EdgeQL it stands for and its Gel doc page;
2. produce it in the checker (``schemac.semantics.exprs._check`` for expressions, ``schemac.semantics.queries`` for
   statements): resolve every name, report errors (file:line:col, stable code, hint) and infer
   the type and cardinality as Gel does; the checker never writes SQL;
3. lower it in :mod:`schemac.semantics.lowering` (``_EXPR`` for expressions, ``lower_statement`` for
   statements): one SQL statement in all, every user value a bound ``$n``; the lowering never
   reports errors (whatever it cannot lower the checker must refuse first);
4. add a golden case under ``tests/cases`` and an e2e test on Postgres, and document the form
   with its SQL in ``docs/language.md``.

:func:`walk` visits every node below a root (e.g. to find the parameters a statement uses).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from schemac.diagnostics import Span
from schemac.frozen import fast_init_all
from schemac.semantics import irfields
from schemac.semantics.model import (Column, Computed, EnumType, ExclusiveConstraint, Global, Link, ObjectType,
                                     ValueType)

#: Cardinalities (Gel's ``One``, ``AtMostOne``, ``Many``).
ONE = "one"
AT_MOST_ONE = "at_most_one"
MANY = "many"


class Node:
    """Base of every IR node (statements and expressions)."""

    __slots__ = ()


# ---------------------------------------------------------------------------------------------
# Expressions


@dataclass(frozen=True, eq=False)
class Expr(Node):
    """A checked expression: ``type``, and ``nullable`` when it may be the empty set."""

    span: Span
    type: ValueType
    nullable: bool

    @property
    def cardinality(self) -> str:
        return AT_MOST_ONE if self.nullable else ONE


@dataclass(frozen=True, eq=False)
class Literal(Expr):
    """``'text'``, ``42``, ``1.5``, ``true``: ``kind`` is ``str``/``int``/``float``/``bool``,
    ``value`` as in :class:`schemac.syntax.tree.Literal`."""

    kind: str
    value: object


@dataclass(frozen=True, eq=False)
class EnumMember(Expr):
    """``Status.Done`` or ``<Status>'Done'``."""

    enum: EnumType
    member: str


#: The row of the linked object a link property's value reads (:class:`LinkTargetValue`).
LINK_TARGET_ROW = '"_lt"'


@dataclass(frozen=True, eq=False)
class LinkTargetValue(Expr):
    """``deck := (select Card { @count := len(Card.element) - 2 } filter ...)``: the value of a
    link property that reads the linked object (``value``, over its row :data:`LINK_TARGET_ROW`
    of ``target``), for each link a multi link's write adds (geldata/gel
    tests/schemas/cards_setup.edgeql, https://docs.geldata.com/reference/datamodel/linkprops)."""

    value: Expr
    target: "ObjectType"


@dataclass(frozen=True, eq=False)
class ColumnRef(Expr):
    """``.prop`` of the subject (``subject`` is ``None`` in schema expressions that have one
    implicitly), or ``.link`` / ``.link.id`` of a single link (``link`` set, ``column`` its FK
    column). ``qualifier``: the SQL name of the row it reads where another row is in scope too
    (a nested shape's alias, ``"table"`` beside ``excluded``); ``None`` for the statement's own
    row."""

    column: Column
    subject: Optional[ObjectType]
    link: Optional[Link] = None
    qualifier: Optional[str] = None
    #: A single link whose target has access policies: the condition under which the query
    #: sees the target, over its row ``"_pv"`` (``schemac.semantics.policies.link_visible``);
    #: the id reads as empty (or fails, for a required link) where it does not hold.
    visible: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class PolicyRule:
    """One access policy (:class:`schemac.semantics.model.AccessPolicy`) as checked over one row:
    ``conds``, its ``when`` and ``using`` conditions (bool; an empty one counts as false); no
    condition: the policy always holds. Not a :class:`Node`: :func:`walk` does not descend into
    a policy's conditions (they belong to the schema, not to the query's own expressions)."""

    policy: object  # schemac.semantics.model.AccessPolicy
    conds: Tuple[Expr, ...]


@dataclass(frozen=True, eq=False)
class Visible(Expr):
    """The access policies of ``subject`` (https://docs.geldata.com/reference/datamodel/access_policies)
    over its row named ``row`` (``None``: the statement's own, unqualified): true for an object
    that at least one ``allow`` policy of each of ``kinds`` holds for and no ``deny`` policy of
    them does. ``rules``: per kind, its ``(allow rules, deny rules)``; ``None`` when a policy's
    condition did not check (an error was reported: nothing is visible). Built by
    :mod:`schemac.semantics.policies`, written by :mod:`schemac.pgsql.policies`."""

    subject: ObjectType
    row: Optional[str]
    kinds: Tuple[str, ...]
    rules: Optional[Tuple[Tuple[Tuple[PolicyRule, ...], Tuple[PolicyRule, ...]], ...]]


@dataclass(frozen=True, eq=False)
class PolicyCheck(Expr):
    """``visible`` holds, else the statement fails with a policy error: ``sqlstate``
    ``SCP01`` for an ``insert`` / ``update write`` the policies refuse (``action`` ``insert``
    or ``update``; the message the refusing policies give, DETAIL naming the type, the action
    and the row's id), ``SCP02`` for a required single ``link`` of ``source`` whose target
    they hide (Gel's "required link ... is hidden by access policy")."""

    visible: Visible
    sqlstate: str
    action: Optional[str] = None
    link: Optional[Link] = None
    source: Optional[ObjectType] = None


@dataclass(frozen=True, eq=False)
class UpsertCheck(Expr):
    """The check of an upsert's returned row (named ``row``): ``inserted`` for a row it
    inserted (``xmax = 0``), ``updated`` for the existing row its ``else`` updated."""

    row: str
    inserted: Expr
    updated: Expr


@dataclass(frozen=True, eq=False)
class JoinRowVisible(Expr):
    """The links of a multi join row named ``row`` whose target the query sees: per target
    type (one for a plain link; each concrete subtype of a polymorphic one, with the join
    row's column linking it), that type's ``select`` policies over its row (``Visible``, or
    ``None``: the column set is enough)."""

    row: str
    targets: Tuple[Tuple[ObjectType, str, Optional[Visible]], ...]


@dataclass(frozen=True, eq=False)
class LinkPath(Expr):
    """``.author.name``: the property ``column`` reached through the single links ``hops``
    from the subject row (named ``subject_row``); ``visible``: each hop's target's access
    policy predicate (:class:`Visible`), or ``None``."""

    hops: Tuple[Link, ...]
    column: Column
    subject_row: str
    visible: Tuple[Optional[Expr], ...] = ()
    #: The first link's objects that the statement whose rows are read wrote (a nested or
    #: ``with``-bound insert assigned to it): they are read from this CTE (``RETURNING *``), the
    #: others from the table (the statement does not see its own writes there).
    first_cte: Optional[str] = None


@dataclass(frozen=True, eq=False)
class SubjectRef(Expr):
    """``__subject__`` in a property's constraint: the property's column."""

    column: Column


@dataclass(frozen=True, eq=False)
class ParamRef(Expr):
    """``<T>$name`` / ``$name<T>`` / ``$name``: a bound parameter (``param`` is shared by every
    use of the name)."""

    param: object  # schemac.semantics.exprs.ParamSpec


@dataclass(frozen=True, eq=False)
class LoopVar(Node):
    """The element variable of ``for x in array_unpack(...)`` / ``json_array_unpack(...)``."""

    name: str
    type: ValueType
    #: Its column of the ``"_batch"`` row when not ``name``: a loop over an update, delete or
    #: select names it ``_for_<name>`` so it cannot be mistaken for a column of the table.
    sql_name: Optional[str] = None
    #: The SQL name of the row holding it when not ``"_batch"`` (an element of a
    #: :class:`ValueSet`).
    row: Optional[str] = None
    #: A tuple-typed variable held as one column per element of the ``"_batch"`` row (the
    #: ``(key, value)`` of ``json_object_unpack``): their names, in order. It is read by its
    #: elements only (``x.0``, ``x.name``).
    elements: Optional[Tuple[str, ...]] = None


@dataclass(frozen=True, eq=False)
class WithValue(Node):
    """``with x := <expr>``: ``inline`` when the value is a parameter or a constant, written
    where it is used; otherwise it is computed once (a CTE)."""

    name: str
    value: Expr
    inline: bool


@dataclass(frozen=True, eq=False)
class SetAlias(Node):
    """``with m := re_match_all(p, s)`` inside an expression: a name for a set of values that
    is only counted or tested (``count(m)``, ``exists m``): ``expr`` (syntax), checked where
    it is read in the scope ``scope`` of the binding (a ``schemac.semantics.exprs.ExprContext``)."""

    name: str
    expr: object
    scope: object


@dataclass(frozen=True, eq=False)
class VarRef(Expr):
    """A use of a ``for`` variable or a ``with`` binding."""

    name: str
    binding: Node  # LoopVar | WithValue


@dataclass(frozen=True, eq=False)
class Call(Expr):
    """A standard-library function or operator applied to checked arguments: ``func`` names
    the operation (``str_lower``, ``len_str``, ``count_array``, ``math::mean/one``), the key of
    its spelling in :mod:`schemac.pgsql.calls`; ``consts`` are compile-time constants the
    spelling takes (a format string, a type), never SQL (https://docs.geldata.com/reference/stdlib)."""

    func: str
    args: Tuple[Expr, ...]
    consts: Tuple[object, ...] = ()


@dataclass(frozen=True, eq=False)
class FtsSearch(Expr):
    """``fts::search(Doc, q, language := 'eng', weights := w)``
    (https://docs.geldata.com/reference/stdlib/fts) of the row in scope: whether its fts::index
    document matches the query (``exists fts::search(...)``), or, ``score`` set, the relevance
    of that match (``res.score``, a float32). ``parts`` are the document's values in this
    scope, each with its language and weight category (``document``); ``query`` is the
    ``tsquery`` (an :class:`FtsQuery`, or a ``with`` binding holding one); ``weights`` the
    weights (an :class:`FtsWeights`, or a binding holding one), ``None`` for Gel's defaults."""

    parts: Tuple[Expr, ...]
    document: Tuple[Tuple[str, str], ...]
    query: Expr
    score: bool = False
    weights: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class FtsWeights(Expr):
    """The ``real[]`` ``ts_rank`` weighs the categories D, C, B, A with, from Gel's ``weights``
    argument ``weights`` (:func:`schemac.pgsql.fts.weights_sql`)."""

    weights: Expr


@dataclass(frozen=True, eq=False)
class FtsQuery(Expr):
    """The Postgres ``tsquery`` of a Gel full-text query ``text`` in the text search
    configuration ``regconfig`` (:func:`schemac.pgsql.fts.query_sql`)."""

    text: Expr
    regconfig: str


@dataclass(frozen=True, eq=False)
class TupleValue(Expr):
    """``(a, b)`` / ``(x := a, y := b)`` as a value of the query
    (https://docs.geldata.com/reference/stdlib/tuple): its ``elements`` (``type.fields`` names
    them). Empty when an element is (a tuple of sets is their product). It is never a Postgres
    composite value: read by its elements (``t.0``, ``t.x``: the element itself) or selected, as
    the JSON the runners decode (a JSON array; a named tuple: an object), as Gel spells tuples
    in JSON (https://docs.geldata.com/reference/stdlib/json)."""

    elements: Tuple[Expr, ...]


@dataclass(frozen=True, eq=False)
class CountLink(Expr):
    """``count(.multi_link)``: the number of the subject's links (the subject row is named
    ``subject_row``)."""

    subject: ObjectType
    link: Link
    subject_row: str
    #: When the target has access policies: the condition over the join row ``"_c"`` under
    #: which the query sees the linked object (``schemac.semantics.policies.join_row_visible``).
    visible: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class RowField(Expr):
    """A field of a row the query reads one at a time, by name: ``.tags@rank`` in a filter over
    the links of ``tags`` (the link property, a column of the link's join row ``row``,
    https://docs.geldata.com/reference/datamodel/linkprops), a free object's field in
    ``order by .name`` of a ``for`` loop's free objects (its row ``"_fr"``,
    https://docs.geldata.com/reference/edgeql/for). ``row`` and ``name`` are names, not SQL."""

    row: str
    name: str


@dataclass(frozen=True, eq=False)
class BacklinkProp(Expr):
    """``@since`` in ``followers: { ... } order by @since`` of a computed backlink through a
    multi link (``followers := .<follows[is User]``): the link property ``column`` of the join
    row (of ``join_table``, named ``alias``) linking the follower ``row`` to the object
    ``subject_row`` (https://docs.geldata.com/reference/datamodel/linkprops)."""

    column: Column
    join_table: str
    alias: str
    row: str
    subject_row: str


@dataclass(frozen=True, eq=False)
class LinkPropValues(Expr):
    """``.folders@path``: the link property ``column`` of each of the object's (``row``) links
    ``link``, a set of values given as an array, as a multi property is
    (https://docs.geldata.com/reference/datamodel/linkprops): an empty link property is no
    value, the links to objects the target's access policies hide (``visible``, over the
    target row ``target_alias``) are left out. ``join_alias`` names the join row."""

    link: Link
    column: Column
    row: str
    join_alias: str
    target_alias: str
    visible: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class UnionTypeName(Expr):
    """``.__type__.name`` of an object of a polymorphic link's abstract target (its row
    ``row``): the name of the subtype (of ``types``, ``(qualified name, table)``) whose table
    holds its id, ids being unique across tables
    (https://docs.geldata.com/reference/datamodel/introspection/objects)."""

    row: str
    types: Tuple[Tuple[str, str], ...]


@dataclass(frozen=True, eq=False)
class TriggerGlobal(Expr):
    """``global name`` in a trigger (https://docs.geldata.com/reference/datamodel/triggers,
    .../globals): the value the write statement that set the trigger off handed over (every
    generated write sets it, see ``schemac.semantics.queries.plan_query``), else the global's
    default, else empty (a writer other than the runners, or a global left unset)."""

    global_: Global


@dataclass(frozen=True, eq=False)
class ComputedRef(Expr):
    """``.name`` of a computed property (https://docs.geldata.com/reference/datamodel/computeds):
    its expression ``value``, checked in the object's scope, inlined."""

    computed: Computed
    value: Expr


@dataclass(frozen=True, eq=False)
class ObjectSet(Node):
    """The objects of a backlink ``.<author[is Post]`` or a computed link of the subject row,
    named ``alias``: the rows of ``source`` matching ``cond`` (a computed ``(select T filter
    ...)``), or whose ``link`` points at the subject row (named ``subject_row``); with neither,
    every object of ``source`` (``count(User)``)."""

    span: Span
    alias: str
    source: ObjectType
    multi: bool
    cond: Optional[Expr] = None
    link: Optional[Link] = None
    subject_row: Optional[str] = None
    #: The source's access policy predicate over ``alias`` (:class:`Visible`).
    visible: Optional[Expr] = None
    #: ``link`` is the subject's own stored link to ``source`` (``(select .link filter ...)``),
    #: not one of ``source`` pointing back.
    forward: bool = False
    #: A further condition on the rows (``(select .<author[is Post] filter .published)``).
    filter: Optional[Expr] = None
    #: ``A union B``: the rows of each part (all of ``source``), duplicates kept as in Gel
    #: (``UNION ALL``); ``filter`` and ``visible`` then apply to the union.
    parts: Tuple["ObjectSet", ...] = ()
    #: ``with s := (select User order by .name limit 3)``: the rows in that order, paged
    #: (:class:`ShapeClauses` without a filter; each row numbered ``"_n"`` in that order).
    page: Optional["ShapeClauses"] = None
    #: The rows a write of the same statement wrote, read from its CTE (``RETURNING *``)
    #: instead of the table (``identities := ps`` of ``with ps := (insert ...)``, ``{ p :=
    #: assert_exists(updated) { name } }``; ``cond``, ``link`` unset).
    cte: Optional[str] = None
    #: ``A intersect B`` / ``A except B`` (https://docs.geldata.com/reference/stdlib/set): only
    #: the rows that are (``within``) / are not (``outside``) objects of each of these sets.
    within: Tuple["ObjectSet", ...] = ()
    outside: Tuple["ObjectSet", ...] = ()
    #: ``A ?? B`` (``parts``): the rows of the first part that has any.
    coalesce: bool = False


@dataclass(frozen=True, eq=False)
class PathHop(Node):
    """One step of a path of objects (``.items[is Media].edges.character``): from the objects
    of ``source`` reached so far to those of ``target``. ``kind``: ``link`` (a stored link of
    ``source``), ``poly`` (one subtype's ``column`` of a polymorphic link), ``backlink``
    (``link`` of ``target`` pointing back), ``computed`` (a computed link: ``objects``, over
    rows of ``source`` named ``row``)."""

    span: Span
    kind: str
    source: ObjectType
    target: ObjectType
    multi: bool
    link: Optional[Link] = None
    column: Optional[str] = None
    objects: Optional["ObjectSet"] = None
    row: Optional[str] = None
    #: The target's access policy predicate over its rows named ``"_v<i>"`` (``i`` the hop's
    #: index) when the path goes on from them: only the objects the query may see lead on.
    visible: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class InPath(Expr):
    """``alias.id`` is one of the objects a path of ``hops`` reaches from the subject row
    (named ``subject_row``): a path of objects has no duplicates
    (https://docs.geldata.com/reference/edgeql/paths)."""

    alias: str
    subject_row: str
    hops: Tuple[PathHop, ...]
    #: A path from every object of a type (``Artist.keywords``): the table whose rows, named
    #: ``subject_row``, the path starts from (``None``: from the subject row).
    root_table: Optional[str] = None
    #: The subject row is a row the statement wrote (``"_new"``, every column, which the table
    #: does not hold yet, or holds as it was before an update): a first single-link hop reads the
    #: row's own link column, not the table's.
    written_row: bool = False


@dataclass(frozen=True, eq=False)
class InSetPath(Expr):
    """``alias.id`` is one of the objects a path of ``hops`` reaches from the objects of
    ``root`` (``player.<author[is Roll]``, ``rolls.received.character`` of ``with`` names):
    distinct objects, as every path of objects (https://docs.geldata.com/reference/edgeql/paths)."""

    alias: str
    root: "ObjectSet"
    hops: Tuple[PathHop, ...]


@dataclass(frozen=True, eq=False)
class InObjects(Expr):
    """``x in S`` / ``x not in S`` of a set of objects ``S`` (``.character in charas``): whether
    the object ``x`` (its id) is one of them."""

    left: Expr
    objects: "ObjectSet"
    negate: bool


@dataclass(frozen=True, eq=False)
class InValues(Expr):
    """``x in S.p`` / ``x not in S.p`` (``.id_al in waifus.character.id_al``): whether ``x`` is
    one of the values of ``value`` (a property of each object, read from the rows named
    ``objects.alias``) of a set of objects; empty values are no element of the set."""

    left: Expr
    objects: ObjectSet
    value: Expr
    negate: bool


@dataclass(frozen=True, eq=False)
class AggregateObjects(Expr):
    """``min(.posts.date)``, ``max(...)``, ``sum(...)``: an aggregate of ``value`` (a property of
    each object, read from the rows named ``objects.alias``) over a set of objects
    (https://docs.geldata.com/reference/stdlib/set). ``func`` is the Postgres aggregate."""

    func: str
    objects: ObjectSet
    value: Expr
    #: ``array_agg((select <set>.p order by <set>.p desc))``: the aggregate's own ordering of
    #: ``value``, (descending, where the empties go: ``"first"`` / ``"last"``), or ``None``.
    order: Optional[Tuple[bool, str]] = None


@dataclass(frozen=True, eq=False)
class ObjectValue(Expr):
    """``assert_single(.part).message.name``: ``value`` (a path from each object, read from the
    rows named ``objects.alias``) of the one object of a set that holds at most one
    (https://docs.geldata.com/reference/edgeql/paths); several objects fail the statement."""

    objects: ObjectSet
    value: Expr


@dataclass(frozen=True, eq=False)
class ValueSet(Expr):
    """``f(array_unpack(arr))`` as a computed property
    (https://docs.geldata.com/reference/stdlib/array#function::std::array_unpack): a set of
    values, read as their array (as a ``multi`` property is): ``body`` for each element ``var``
    of ``array``, the empty results left out."""

    array: Expr
    var: LoopVar
    body: Expr


@dataclass(frozen=True, eq=False)
class ForRows(Node):
    """``for x in S union <value of x>`` of a set of objects ``S`` of the query's names, bound by
    ``with`` (https://docs.geldata.com/reference/edgeql/for): the multiset of the body's values,
    one per object (an empty one none), duplicates kept (a ``for`` loop's ``union`` keeps them);
    with ``pattern``, ``for x in S union (for m in re_match_all(pattern, <str of x>) union m)``:
    one ``array<str>`` per match in each object's string
    (https://docs.geldata.com/reference/stdlib/string#function::std::re_match_all); or the objects
    of a path from ``x`` (``targets``). ``value`` is
    read from the rows of ``objects`` (named ``objects.alias``); ``type`` is a value's."""

    span: Span
    type: ValueType
    objects: "ObjectSet"
    value: Optional[Expr]
    pattern: Optional[Expr] = None
    #: A body of objects, ``for x in S union (select x.link filter ...)``: their rows (every
    #: column, as the table's), each object once per object of ``S`` that reaches it
    #: (``value`` unset).
    targets: Optional["ObjectSet"] = None


@dataclass(frozen=True, eq=False)
class FreeRows(Node):
    """``for i in range_unpack(r) union (select { a := ..., b := ... })`` (also over
    ``array_unpack(arr)``), bound by ``with`` (https://docs.geldata.com/reference/edgeql/for):
    one free object per element, its ``fields``; the element is ``var`` (column ``"_i"`` of the
    rows ``"_batch"``). ``first``: ``(select s order by ... limit 1)`` of such a name, the first
    row in ``order`` (its keys read the rows named ``"_fr"``)."""

    span: Span
    var: LoopVar
    source: Expr
    unpack: str
    fields: Tuple[Tuple[str, Expr], ...]
    order: Tuple["OrderKey", ...] = ()
    first: bool = False
    #: ``select { ... } filter cond`` in the body: only the elements for which it holds.
    filter: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class FreeRowsAggregate(Expr):
    """``count(s)``, ``math::mean(s.f)`` (``avg``), ``sum`` / ``min`` / ``max`` of a field of the
    free objects of a :class:`FreeRows` name (``field`` ``None``: ``count``)."""

    func: str
    rows: FreeRows
    field: Optional[str]


@dataclass(frozen=True, eq=False)
class FreeRowField(Expr):
    """``s.name`` of a :class:`FreeRows` name holding one object (``first``): its field, empty
    when there is no object."""

    rows: FreeRows
    name: str


@dataclass(frozen=True, eq=False)
class AggregateRows(Expr):
    """``sum`` / ``min`` / ``max`` (``func``, the Postgres aggregate) of the values of a
    :class:`ForRows` set."""

    func: str
    rows: ForRows


@dataclass(frozen=True, eq=False)
class CountRows(Expr):
    """``count(s)`` of a :class:`ForRows` set: the number of its values."""

    rows: ForRows


@dataclass(frozen=True, eq=False)
class SetLink(Node):
    """A multi link a filter reads a path through (``.tags`` of ``.tags.name``): its target rows,
    named ``alias``, joined through the link's table (``alias`` + ``j``) to the subject row
    ``subject_row``; ``visible``: the target's access policy predicate over ``alias``."""

    link: Link
    alias: str
    subject_row: str
    visible: Optional[Expr] = None
    #: A backlink (``.<user[is Identity]``): the rows of ``source`` whose ``link`` points at the
    #: subject row.
    source: Optional[ObjectType] = None


@dataclass(frozen=True, eq=False)
class SetFilter(Expr):
    """A filter reading paths through multi links, ``filter .tags.name = 'x'``: true when
    ``cond`` holds for at least one combination of the links' targets (Gel keeps an object when
    at least one value of its filter's set is true:
    https://docs.geldata.com/database/reference/edgeql/select)."""

    sets: Tuple[SetLink, ...]
    cond: Expr


@dataclass(frozen=True, eq=False)
class CountObjects(Expr):
    """``count(.<author[is Post])``, ``count(.computed_link)``."""

    objects: ObjectSet


@dataclass(frozen=True, eq=False)
class ExistsObjects(Expr):
    """``exists .<author[is Post]``, ``exists .computed_link``."""

    objects: ObjectSet


@dataclass(frozen=True, eq=False)
class LinkRowExists(Expr):
    """``exists .link`` of a multi link or a polymorphic link of the subject
    (https://docs.geldata.com/reference/stdlib/set#operator::exists): whether the subject's row
    ``row`` has a row in the link table ``join_table`` (read as ``alias``) among those
    ``visible`` lets the query see (the target's access policies over the link row,
    :func:`schemac.semantics.policies.join_row_visible`); of a single polymorphic link
    (``join_table`` ``None``), whether ``visible`` holds or, when no policy hides a target, one
    of its ``columns`` (one per target type) is set."""

    row: str
    join_table: Optional[str]
    alias: str
    columns: Tuple[str, ...]
    visible: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class InMultiLink(Expr):
    """``x in .members`` / ``x not in .members`` (``.members.id``) of a multi link of the subject
    (https://docs.geldata.com/reference/edgeql/sets; Gel's access policy docs write
    ``global current_user in .members``): whether the object ``left`` (its id) is one of the
    link's targets, a row of its link table (read as ``alias``) from the subject's row ``row``
    to it, among the targets (read as ``target_alias``) ``visible`` lets the query see (their
    access policies, :func:`schemac.semantics.policies.read_predicate`; ``None``: all); empty
    when ``left`` is."""

    left: Expr
    link: Link
    row: str
    alias: str
    target_alias: str
    negate: bool
    visible: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class GlobalDefault(Expr):
    """``global name`` of a global with a default (https://docs.geldata.com/reference/datamodel/globals):
    its parameter, or the default when it is not set."""

    param: object  # schemac.semantics.exprs.ParamSpec
    default_sql: str


@dataclass(frozen=True, eq=False)
class ObjectId(Expr):
    """A computed global of object type, ``global current_user := (select User filter ...)``:
    the id of the object of ``target`` matching ``cond``."""

    target: ObjectType
    cond: Expr
    #: The target's access policy predicate (:class:`Visible`), if any.
    visible: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class ObjectRow(Expr):
    """One object of ``target`` (its row named ``alias``) matching ``cond``, and ``value`` read
    from it (``None``: its id): a sub-select used as a value, ``(select User filter .email =
    $e)`` / ``assert_single((select ...))``, or ``global current_user.name``. ``visible``:
    the target's access policy predicate (:class:`Visible`), if any.
    ``limit_one``: the first matching object in ``order`` (any one without it), ``(select User
    filter ... order by ... limit 1)``; else the filter matches at most one."""

    target: ObjectType
    alias: str
    value: Optional[Expr]
    cond: Expr
    visible: Optional[Expr] = None
    order: Tuple["OrderKey", ...] = ()
    limit_one: bool = False


@dataclass(frozen=True, eq=False)
class ObjectIds(Expr):
    """The ids of every object of ``target`` (rows named ``alias``) matching ``cond``, a
    ``uuid[]``: the value of a multi link, ``tags += (select Tag filter .name in {'a', 'b'})``
    (https://docs.geldata.com/reference/edgeql/update). ``visible``: the target's access
    policy predicate, if any."""

    target: ObjectType
    alias: str
    cond: Expr
    visible: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class WrittenIds(Expr):
    """The ids of the objects a write of the same statement wrote, read from its CTE ``cte``: a
    write bound by ``with p := (insert ...)`` assigned to a link (``author := p``) or a nested
    insert (``author := (insert User {...})``,
    https://docs.geldata.com/reference/edgeql/insert#nested-inserts). ``many``: all of them,
    a ``uuid[]`` (a multi link); else the one id."""

    cte: str
    many: bool


def written_cte(value: Node) -> Optional[str]:
    """The CTE of the write of the same statement whose one object a single link is assigned:
    :class:`WrittenIds` of one object, or the insert of a get-or-insert value (``COALESCE(<found>,
    <the new id>)``); ``None`` for any other value."""
    if type(value) is Call and value.func == "found_or_inserted":  # type: ignore[attr-defined]
        value = value.args[1]  # type: ignore[attr-defined]
    if type(value) is WrittenIds and not value.many:  # type: ignore[attr-defined]
        return value.cte  # type: ignore[attr-defined]
    return None


@dataclass(frozen=True, eq=False)
class AssertExists(Expr):
    """``assert_exists(<objects>)`` as a link's value: ``value`` (an id, or a ``uuid[]`` when
    ``many``), failing the statement when it holds no object
    (https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists)."""

    value: Expr
    many: bool
    #: The ``message := '...'`` it fails with (``None``: Gel's).
    message: Optional[str] = None


@dataclass(frozen=True, eq=False)
class VisibleId(Expr):
    """The id ``value`` assigned to a link by ``(select T filter .id = value)`` or whose target
    has access policies: the id only when that object exists and the policies let the query see
    it (``visible``, ``true`` without policies), else empty."""

    value: Expr
    target: ObjectType
    visible: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class Unary(Expr):
    """``exists x``, ``not x``, ``-x``."""

    op: str
    operand: Expr


@dataclass(frozen=True, eq=False)
class Binary(Expr):
    """``a <op> b``: ``and``/``or``, comparisons (``=`` ``!=`` ``?=`` ``?!=`` ``<`` ... ``like``
    ``ilike``), ``++``, ``??``, arithmetic."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, eq=False)
class InSet(Expr):
    """``x [not] in {a, b}``."""

    left: Expr
    items: Tuple[Expr, ...]
    negate: bool


@dataclass(frozen=True, eq=False)
class InArray(Expr):
    """``x [not] in <array>`` (an array parameter or column)."""

    left: Expr
    right: Expr
    negate: bool


@dataclass(frozen=True, eq=False)
class Cast(Expr):
    """``<T>x`` of a non-json value (the target is ``type``)."""

    operand: Expr


@dataclass(frozen=True, eq=False)
class JsonCast(Expr):
    """``<T>json`` / ``<optional T>json``: a json scalar (or array of scalars) read as ``T``."""

    operand: Expr


@dataclass(frozen=True, eq=False)
class JsonIndex(Expr):
    """``x['key']`` / ``x[0]`` of a json value (json; empty when missing)."""

    base: Expr
    key: Expr


# ---------------------------------------------------------------------------------------------
# Shapes


@dataclass(frozen=True)
class ResultField:
    """One field of a query result row: name, type, and whether it may be NULL.

    A nested shape (``author: { name }``) has ``type`` ``None`` and its fields in ``shape``;
    ``multi`` marks a list of them (a multi link). Values inside a nested shape travel as JSON
    (see ``schemac.semantics.lowering.JSON_SPELLING``): ``in_json`` is set on those fields."""

    name: str
    type: Optional[ValueType]
    optional: bool
    shape: Optional[Tuple["ResultField", ...]] = None
    multi: bool = False
    in_json: bool = False


@dataclass(frozen=True, eq=False)
class ShapeColumn(Node):
    """``name`` in a shape: a property of the object."""

    span: Span
    field: ResultField
    column: Column


@dataclass(frozen=True, eq=False)
class ShapeComputed(Node):
    """``name`` in a shape: a computed property, its value inlined."""

    span: Span
    field: ResultField
    value: Expr


@dataclass(frozen=True, eq=False)
class ShapeComputedLink(Node):
    """``name: { ... }`` of a backlink or computed link: its objects as JSON."""

    span: Span
    field: ResultField
    objects: ObjectSet
    elements: Tuple[Node, ...]
    #: ``name: { ... } filter ... order by ... offset ... limit ...`` (see :class:`ShapeClauses`).
    clauses: Optional["ShapeClauses"] = None
    #: ``x := assert_exists(u) { ... }`` of one object: no object fails the statement.
    required: bool = False


@dataclass(frozen=True, eq=False)
class ShapeLinkProp(Node):
    """``@name`` inside a multi link's shape: a link property (a join-table column)."""

    span: Span
    field: ResultField
    column: Column


@dataclass(frozen=True, eq=False)
class ShapeLinkId(Node):
    """``link: { id }`` of a single link at the top level: its FK column (field ``link_id``),
    read through the target's access policies when it has some (``visible``, as
    :attr:`ColumnRef.visible`)."""

    span: Span
    field: ResultField
    link: Link
    column: Column
    visible: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class ShapeLink(Node):
    """``link: { ... }``: the linked object(s) as JSON; ``join_type`` is a multi link's join
    table (its link properties), ``None`` for a single link."""

    span: Span
    field: ResultField
    link: Link
    elements: Tuple[Node, ...]
    join_type: Optional[ObjectType]
    #: The target's access policy predicate over its rows (:class:`Visible`).
    visible: Optional[Expr] = None
    #: ``link: { ... } filter ... order by ... offset ... limit ...`` (see :class:`ShapeClauses`).
    clauses: Optional["ShapeClauses"] = None
    #: A single link the selected write assigned the objects of a write bound by ``with``: that
    #: write's CTE, whose rows stand for the target's (the statement does not see its own
    #: writes in the table). A multi link of an object inserted by a write bound by ``with``:
    #: the CTE of its join rows (``RETURNING *``), which stands for the join table.
    written_cte: Optional[str] = None
    #: ``first := (select .link order by ... limit 1) { ... }`` of a multi link: at most one
    #: object (https://docs.geldata.com/reference/edgeql/cardinality), not a list.
    single: bool = False
    #: ``(select .link ...).p`` / ``(select .link.p ...)``: the values of the one element (a
    #: stored property), an array of them (one value with ``single`` or a single link).
    values: bool = False


@dataclass(frozen=True, eq=False)
class ShapeClauses(Node):
    """The clauses of a nested shape, ``posts: { title } filter .published order by .title
    limit 3`` (https://docs.geldata.com/reference/edgeql/select#filtering-ordering-and-paginating-links):
    over the linked objects (their rows named as the nested shape's)."""

    span: Span
    filter: Optional[Expr]
    order: Tuple["OrderKey", ...]
    offset: Optional[Expr]
    limit: Optional[Expr]


# ---------------------------------------------------------------------------------------------
# Statements


@dataclass(frozen=True, eq=False)
class Assign(Node):
    """``p := value`` (``op`` ``:=``), ``p += value`` / ``p -= value`` on a multi property
    (``element``: the value is one element, not an array). ``default``: an omitted (NULL)
    value means the column default: ``param`` for a parameter, ``json`` for a json member;
    ``cast``: the value is a default that reads a global (a parameter cast to the column type);
    ``row``: a NULL is filled by the default that reads the row (its BEFORE INSERT trigger)."""

    span: Span
    column: Column
    value: Expr
    op: str = ":="
    default: Optional[str] = None
    element: bool = False


@dataclass(frozen=True, eq=False)
class LinkAssign(Node):
    """``tags := / += / -= (select Tag filter .id in array_unpack(<array<uuid>>$ids))``.
    ``props``: link properties set on the links it writes, ``(select Tag { @weight := 2 }
    filter ...)`` (https://docs.geldata.com/reference/datamodel/linkprops): (join-table
    column, value) pairs."""

    span: Span
    link: Link
    op: str
    ids: Expr
    props: Tuple[Tuple[Column, Expr], ...] = ()
    #: In an insert, ``link := (for x in ... union (select T { @p := x.0 } filter ...))``: the
    #: links are these rows (``ids`` is then unused, ``'{}'``).
    rows: Optional[LinkRows] = None


@dataclass(frozen=True, eq=False)
class KeptLinks(Expr):
    """``tags := (select .tags filter <cond>)`` in an update: the ids (a ``uuid[]``) of the
    updated object's links whose target ``cond`` keeps (https://docs.geldata.com/reference/edgeql/update),
    so the other links are deleted and nothing is inserted. ``join_alias`` names the join
    table's row and ``target_alias`` the target's, which ``cond`` reads."""

    link: Link
    join_alias: str
    target_alias: str
    cond: Expr


@dataclass(frozen=True, eq=False)
class ExistingIds(Expr):
    """``tags := (select Tag filter .id in array_unpack(<array<uuid>>$ids))``: those of the ids
    (``ids``, a ``uuid[]``) that name an object of ``target`` (and that its access policies show:
    ``visible``, over the alias ``"_t"``); an unknown id links nothing, as in Gel
    (https://docs.geldata.com/reference/edgeql/insert#links)."""

    ids: Expr
    target: ObjectType
    visible: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class CastObjectIds(Expr):
    """``tags := array_unpack(<array<Tag>>$ids)`` (``distinct``: under ``assert_distinct``):
    the ids, failing the statement when one names no object of ``target`` (Gel's cast of an id
    to an object, https://docs.geldata.com/reference/edgeql/casts) or, ``distinct``, when one is
    there twice (https://docs.geldata.com/reference/stdlib/set#function::std::assert_distinct)."""

    ids: Expr
    target: ObjectType
    distinct: bool


@dataclass(frozen=True, eq=False)
class JsonArrayElements(Expr):
    """``tags := <str>json_array_unpack(j)`` (a multi property, the array ``type``): the elements
    of the JSON array ``json`` cast to the element type, JSON nulls left out, in the array's
    order; none when ``j`` is empty; ``j`` not an array, or an element of another JSON type,
    fails the statement (https://docs.geldata.com/reference/stdlib/json#function::std::json_array_unpack)."""

    json: Expr


@dataclass(frozen=True, eq=False)
class LinkRows(Node):
    """The links of ``link := (for x in <source> union (select T { @p := ... } filter ...))`` in
    an insert: for each element of ``batch``, the objects of ``target`` (rows named ``alias``)
    matching ``filter`` (``visible``: the target's access policy predicate), each with its
    link properties ``props`` ((join-table column, value) pairs)."""

    span: Span
    batch: "Batch"
    target: ObjectType
    alias: str
    filter: Expr
    props: Tuple[Tuple[Column, Expr], ...] = ()
    visible: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class Conflict(Node):
    """``unless conflict [on (...)] [else (...)]``: ``arbiter`` is ``None`` for the bare form;
    ``else_kind`` is ``select``/``update``/``None``; ``else_sets`` the update's assignments."""

    span: Span
    arbiter: Optional[ExclusiveConstraint]
    else_kind: Optional[str] = None
    else_sets: Tuple[Assign, ...] = ()
    #: ``else (update T filter <cond> set {...})``: the existing row is updated (and returned)
    #: only when ``cond`` holds for it.
    else_filter: Optional[Expr] = None
    #: The type's ``update read`` access policies over the existing row (:class:`Visible`): a row they hide is not updated, and the statement returns
    #: no object for it.
    else_visible: Optional[Expr] = None
    #: The else update's multi link changes (``tags += (select ...)``): written, as the
    #: insert's own links are, from the row the upsert returns, when it was not inserted
    #: (https://docs.geldata.com/reference/edgeql/insert#upserts).
    else_links: Tuple["LinkAssign", ...] = ()


@dataclass(frozen=True, eq=False)
class Batch(Node):
    """The source of a bulk insert: ``array_unpack(<array<T>>$xs)`` (``json`` false) or
    ``json_array_unpack(<json>$items)``, with the loop variable; ``json_object``:
    ``json_object_unpack(<json>$obj)``, the variable a ``tuple<str, json>`` of its key and value
    (:attr:`LoopVar.elements`)."""

    span: Span
    var: LoopVar
    source: Expr
    json: bool
    json_object: bool = False
    #: ``enumerate(<source>)`` (https://docs.geldata.com/reference/stdlib/set#function::std::enumerate):
    #: the variable is a ``tuple<int64, T>`` of each element's position (from 0) and the
    #: element (:attr:`LoopVar.elements`).
    enumerate: bool = False
    #: ``array_unpack(<array<tuple<a: T, ...>>>$rows)``: the parameter is a JSON array of
    #: objects, read by ``jsonb_to_recordset``; the variable's elements are its columns.
    records: bool = False
    #: ``for x in ... union (if c then (insert ...) else {})``: the elements the body writes for,
    #: those whose condition is true (https://docs.geldata.com/reference/edgeql/insert#conditional-inserts).
    guard: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class Insert(Node):
    """``insert T { ... } [unless conflict ...]`` (``batch``: the body of a ``for``)."""

    span: Span
    subject: ObjectType
    sets: Tuple[Assign, ...]
    links: Tuple[LinkAssign, ...]
    conflict: Optional[Conflict]
    batch: Optional[Batch]
    cardinality: str
    exclusives: Tuple[ExclusiveConstraint, ...]
    #: The access policy check of the new rows, named ``"_new"`` (a
    #: :class:`PolicyCheck`, ``schemac.semantics.policies.write_check``): the statement is then a CTE selected through it.
    check: Optional[Expr] = None
    #: Inserts nested in its values (``author := (insert User {...})``): :class:`BoundWrite`
    #: nodes, each written first as the CTE its ``name`` names.
    nested: Tuple["BoundWrite", ...] = ()
    #: The access policy check over the table's own name, written into the statement's
    #: ``RETURNING`` (as ``"_allowed"``) where the statement is a CTE that nothing may read to
    #: its end (bound by ``with``, nested, selected with a nested shape) or an upsert (an
    #: inserted row, ``xmax = 0``, gets the insert check; an updated one the update's).
    returning_check: Optional[Expr] = None
    #: Nested in the values of an update of at most one object: the update it belongs to. The
    #: row is inserted only when that object exists (Gel evaluates an update's values once per
    #: object it updates).
    only_for: Optional["Update"] = None
    #: A nested insert that is the else of a get-or-insert link value, ``(with u := (select T
    #: filter ...) select if exists u then u else (insert T {...}))`` / ``u ?? (insert T {...})``:
    #: the id of the object found, the row inserted only when it is empty.
    unless_found: Optional[Expr] = None

    kind = "insert"

    @property
    def written_links(self) -> Tuple[str, ...]:
        """The links whose new targets the statement itself does not see: its multi links, and
        single links assigned objects the same statement inserts."""
        else_links = () if self.conflict is None else self.conflict.else_links
        return tuple(dict.fromkeys(tuple(a.link.name for a in self.links + else_links) + tuple(
            a.column.link for a in self.sets if a.column.link and written_cte(a.value) is not None)))

    @property
    def written_sources(self) -> Dict[str, str]:
        """The single links assigned the objects of a write of the same statement (bound by
        ``with``, nested, or the insert of a get-or-insert): link name -> that write's CTE, whose
        rows (``RETURNING *``) are those objects as the statement leaves them."""
        return {a.column.link: written_cte(a.value) for a in self.sets  # type: ignore[misc]
                if a.column.link and written_cte(a.value) is not None}


@dataclass(frozen=True, eq=False)
class Update(Node):
    """``update T [filter ...] set { ... }``."""

    span: Span
    subject: ObjectType
    filter: Optional[Expr]
    sets: Tuple[Assign, ...]
    links: Tuple[LinkAssign, ...]
    cardinality: str
    exclusives: Tuple[ExclusiveConstraint, ...]
    #: The access policy predicates (:class:`Visible`): which rows it may touch,
    #: and the check of the updated rows (named ``"_new"``).
    visible: Optional[Expr] = None
    check: Optional[Expr] = None
    #: ``for x in ... union (update ...)``: the rows of the loop, joined (``UPDATE ... FROM``).
    batch: Optional["Batch"] = None
    #: As :attr:`Insert.returning_check`.
    returning_check: Optional[Expr] = None
    #: Inserts nested in its values, when it updates at most one object (as :attr:`Insert.nested`).
    nested: Tuple["BoundWrite", ...] = ()

    kind = "update"

    @property
    def written_links(self) -> Tuple[str, ...]:
        """The links whose new targets the statement itself does not see: its multi links, and
        single links assigned objects the same statement inserts."""
        return tuple(a.link.name for a in self.links) + tuple(
            a.column.link for a in self.sets if a.column.link and written_cte(a.value) is not None)

    @property
    def written_sources(self) -> Dict[str, str]:
        """The single links assigned the objects of a write of the same statement (bound by
        ``with``, nested, or the insert of a get-or-insert): link name -> that write's CTE, whose
        rows (``RETURNING *``) are those objects as the statement leaves them."""
        return {a.column.link: written_cte(a.value) for a in self.sets  # type: ignore[misc]
                if a.column.link and written_cte(a.value) is not None}


@dataclass(frozen=True, eq=False)
class Delete(Node):
    """``delete T [filter ...]``."""

    span: Span
    subject: ObjectType
    filter: Optional[Expr]
    cardinality: str
    #: The access policy predicate of the rows it may delete (:class:`Visible`).
    visible: Optional[Expr] = None
    #: ``for x in ... union (delete ...)``: the rows of the loop, joined (``DELETE ... USING``).
    batch: Optional["Batch"] = None

    kind = "delete"
    exclusives: Tuple[ExclusiveConstraint, ...] = ()
    written_links: Tuple[str, ...] = ()
    check: Optional[Expr] = None
    returning_check: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class OrderKey(Node):
    """``expr [asc|desc] [empty first|last]`` (``empty`` resolved: Gel's default applied)."""

    span: Span
    expr: Expr
    descending: bool
    empty: str


@dataclass(frozen=True, eq=False)
class Select(Node):
    """``select T { shape } [filter] [order by] [offset] [limit]``. ``source``: the rows of a
    write (``with p := (insert ...) select p {...}``, ``select (insert ...) {...}``), read
    under the name ``source_name`` instead of the table."""

    span: Span
    subject: ObjectType
    shape: Tuple[Node, ...]
    filter: Optional[Expr]
    order: Tuple[OrderKey, ...]
    offset: Optional[Expr]
    limit: Optional[Expr]
    source: Optional[Node] = None
    source_name: Optional[str] = None
    #: The access policy predicate of the rows it may see (:class:`Visible`).
    visible: Optional[Expr] = None
    #: ``select assert_single(u) { ... }``: more than one row fails the statement.
    assert_single: bool = False
    #: ``select assert_exists(u) { ... }``: no row fails the statement.
    assert_exists: bool = False
    #: The ``message := '...'`` of the ``assert_single`` / ``assert_exists`` (``None``: Gel's).
    single_message: Optional[str] = None
    exists_message: Optional[str] = None
    #: ``for x in ... union (select ...)``: the rows of the loop, joined (one result row per
    #: element and object matching it, as Gel's ``union`` of the bodies' results).
    batch: Optional["Batch"] = None


@dataclass(frozen=True, eq=False)
class ShapeEmpty(Node):
    """A shape element that is empty for the objects of one concrete type: ``[is T].x`` of a
    select on an abstract type, for the types that are not ``T`` (``NULL``, ``[]``)."""

    span: Span
    field: ResultField


@dataclass(frozen=True, eq=False)
class SelectUnion(Node):
    """``select A { shape } [filter] [order by] [offset] [limit]`` of an abstract type ``A``
    (https://docs.geldata.com/reference/edgeql/select#polymorphic-queries): the objects of its
    concrete subtypes, one :class:`Select` per subtype's table (``branches``, each with the
    same result columns and the order keys as the columns ``"_o1"``...), united (``UNION
    ALL``), then ordered by ``order`` (:class:`OrderKey` templates: their direction and empty
    order) and paged."""

    span: Span
    branches: Tuple[Select, ...]
    order: Tuple[OrderKey, ...]
    offset: Optional[Expr]
    limit: Optional[Expr]
    #: A union's operand that orders or pages its objects, ``(select Movie order by .year limit
    #: 1) union Show``: per branch, ``(order, offset, limit)`` applied to that branch alone
    #: (``None``: none); empty when no operand does.
    pages: Tuple[Optional[Tuple[Tuple[OrderKey, ...], Optional[Expr], Optional[Expr]]], ...] = ()


@dataclass(frozen=True, eq=False)
class SelectValues(Node):
    """``select <expr>`` of anything but a type or a write
    (https://docs.geldata.com/reference/edgeql/select): one row of ``elements``
    (:class:`ShapeComputed` and :class:`ShapeComputedLink` nodes, as in a shape). A free object
    ``select { a := ..., b := ... }`` has one element per field; a single value (``select 1``,
    ``select count(User)``, ``select <str>$x``) one element named ``value`` (``scalar``: the
    runners return the value itself, not a row)."""

    span: Span
    elements: Tuple[Node, ...]
    scalar: bool
    #: ``for x in {1, 2} union (select x * 2)`` (https://docs.geldata.com/reference/edgeql/for):
    #: the row once per element of the loop (``scalar``: its one value, an empty one left out).
    batch: Optional["Batch"] = None


@dataclass(frozen=True, eq=False)
class SelectValueSet(Node):
    """``select [distinct] S.p`` of a set of objects of the query's names
    (``select distinct messages.channel_id``, https://docs.geldata.com/reference/edgeql/select):
    one row per object of ``objects`` whose ``value`` is not empty (a multiset of values, in the
    set's order when it has one), each value once with ``distinct``
    (https://docs.geldata.com/reference/stdlib/set#operator::distinct)."""

    span: Span
    objects: ObjectSet
    value: Expr
    distinct: bool


@dataclass(frozen=True, eq=False)
class SelectElements(Node):
    """``select [distinct] {a, b} union array_unpack(arr) union ...``: a set of values written
    as the union of values and of array elements (https://docs.geldata.com/reference/edgeql/sets):
    ``parts`` each a value (``unpack[i]`` False: one element, none when empty) or an array whose
    elements it unpacks; many rows of one value, in the order written, each value once with
    ``distinct`` (https://docs.geldata.com/reference/stdlib/set#operator::distinct)."""

    span: Span
    parts: Tuple[Expr, ...]
    unpack: Tuple[bool, ...]
    distinct: bool
    #: ``select enumerate(<the set>)`` (https://docs.geldata.com/reference/stdlib/set#function::std::enumerate):
    #: each value as a ``tuple<int64, T>`` of its position in the set (from 0) and itself.
    enumerate: bool = False
    #: ordered by the values themselves (``with xs := {3, 1, 2} select xs order by xs desc``):
    #: per ``order by`` item, whether it is descending.
    by_element: Tuple[bool, ...] = ()


@dataclass(frozen=True, eq=False)
class GroupKey(Node):
    """One grouping key of ``group``: ``by .prop`` / ``by .link`` / ``using name := expr by name``
    (https://docs.geldata.com/reference/edgeql/group): its ``name`` (in ``key`` and ``grouping``),
    its ``value`` over the grouped objects, and its field in the ``key`` object (a single link's
    key is an object, ``{ id }``: ``link`` set)."""

    span: Span
    name: str
    value: Expr
    field: ResultField
    link: Optional[Link] = None


@dataclass(frozen=True, eq=False)
class GroupValue(Expr):
    """A value of one group in a select over groups: ``count(.elements)`` (``kind`` ``count``),
    ``.key.name`` (``key``: the index of the key), ``sum(.elements.prop)`` / ``min`` / ``max``
    (``kind`` the aggregate, ``value`` the property of each element)."""

    kind: str
    key: int = 0
    value: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class GroupField(Node):
    """A field of each group's result: ``key`` (its ``keys``, by index), ``grouping`` (the names
    of the keys), ``elements`` (the grouped objects with the shape ``elements``, in the order
    ``order`` then by id, those matching ``filter``)."""

    span: Span
    field: ResultField
    kind: str
    keys: Tuple[int, ...] = ()
    elements: Tuple[Node, ...] = ()
    order: Tuple["OrderKey", ...] = ()
    filter: Optional[Expr] = None


@dataclass(frozen=True, eq=False)
class Group(Node):
    """``group <objects> [{ shape }] [using k := expr, ...] by k, ...``
    (https://docs.geldata.com/reference/edgeql/group): the objects of ``subject`` matching
    ``filter`` (a ``with`` selection's), partitioned by the values of ``keys`` (an empty value
    is a key value of its own); one result per group: ``fields`` (:class:`GroupField` and, in a
    select over the groups, :class:`ShapeComputed` of :class:`GroupValue` expressions), the
    groups filtered by ``having`` and ordered by ``order`` (by the keys without one: Gel leaves
    the order unspecified), paged by ``offset`` / ``limit``."""

    span: Span
    subject: ObjectType
    filter: Optional[Expr]
    keys: Tuple[GroupKey, ...]
    fields: Tuple[Node, ...]
    having: Optional[Expr] = None
    order: Tuple["OrderKey", ...] = ()
    offset: Optional[Expr] = None
    limit: Optional[Expr] = None
    #: The subject's access policy predicate (:class:`Visible`).
    visible: Optional[Expr] = None
    #: Grouped values instead of objects (``group s using k := s[0] by k`` of a ``with`` name
    #: bound to a :class:`ForRows`): each value a row named as ``subject.table``, column ``value``.
    rows: Optional[ForRows] = None


@dataclass(frozen=True, eq=False)
class GroupFieldArray(Expr):
    """``array_agg((select g.f))`` of groups bound in ``with``: the field ``field`` of each of
    ``group``'s results, in its order (its only field)."""

    group: "Group"
    field: str


@dataclass(frozen=True, eq=False)
class ShapeGroupList(Node):
    """A free object's field holding groups, ``counts := (with g := (group ...) select g { ... }
    order by ... limit n)``: the results of ``group`` as a JSON list, in its order."""

    span: Span
    field: ResultField
    group: Group


@dataclass(frozen=True, eq=False)
class Returning(Node):
    """A write returning a flat shape of its rows (a plain write returns ``{ id }``)."""

    span: Span
    write: Node
    shape: Tuple[Node, ...]


@dataclass(frozen=True, eq=False)
class WriteThenSelect(Node):
    """``select (insert ...) { nested shape }``: the write, then ``select`` over its rows
    (whose ``source_name`` names them)."""

    span: Span
    write: Node
    select: Select


@dataclass(frozen=True, eq=False)
class WrittenUnion(Node):
    """``select {p, q}`` of writes bound by ``with`` (https://docs.geldata.com/reference/edgeql/sets):
    the objects each wrote, united (duplicates kept), each as ``{ id }``."""

    span: Span
    names: Tuple[str, ...]


@dataclass(frozen=True, eq=False)
class BoundWrite(Node):
    """``with p := (insert|update|delete ...)``: runs once, whether or not it is read."""

    span: Span
    name: str
    write: Node


@dataclass(frozen=True, eq=False)
class With(Node):
    """``with a := ..., p := (insert ...) <body>``: ``bindings`` are :class:`WithValue` and
    :class:`BoundWrite` nodes in order."""

    span: Span
    bindings: Tuple[Node, ...]
    body: Node
    #: The query's parameters nothing reads (``with x := <int32>$x`` and ``x`` never used): Gel
    #: still takes them (https://docs.geldata.com/reference/edgeql/parameters), so the runner
    #: sends them, and an unread CTE types them for Postgres.
    unused: Tuple[ParamRef, ...] = ()


@dataclass(frozen=True, eq=False)
class Query(Node):
    """One checked query file: its statement, parameters (in ``$n`` order), result fields
    (:class:`ResultField`), cardinality, the kind reported to the runners
    (``select``/``insert``/``update``/``delete``), its subject type, and the exclusive
    constraints it can violate."""

    name: str
    path: str
    kind: str
    #: ``None`` for a select of a value (:class:`SelectValues`).
    subject: Optional[ObjectType]
    statement: Node
    params: Tuple[object, ...]
    result: Tuple[ResultField, ...]
    cardinality: str
    exclusives: Tuple[ExclusiveConstraint, ...]
    doc: str = ""
    #: The result is one value, not a row (``select count(User)``): ``result`` holds its one
    #: field, and the runners return that field's value.
    scalar: bool = False


def same(a: object, b: object) -> bool:
    """Whether two checked values are the same expression, wherever each was written: nodes of
    the same class whose fields are the same (spans aside), below them too; a :class:`VarRef`
    reads the same binding (the very ``with`` value, not an equal one; a loop variable with the
    same name and row); model
    objects (columns, types, parameters) compare by their own equality. The checker compares
    values so, never by the SQL the lowering writes of them (issue 26 step 2)."""
    if a is b:
        return True
    if isinstance(a, Node):
        if type(a) is not type(b):
            return False
        if type(a) is VarRef:
            # (a loop variable is checked again where each part of the loop reads it: two such
            # objects with the same fields read the same column of the same row)
            return a.name == b.name and (a.binding is b.binding or type(a.binding) is LoopVar  # type: ignore
                                         and type(b.binding) is LoopVar and same(a.binding, b.binding)) \
                and same(a.type, b.type) and a.nullable == b.nullable  # type: ignore[attr-defined]
        return all(same(getattr(a, f), getattr(b, f)) for f in irfields.compared(type(a)))
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, Span):
        return isinstance(b, Span)
    return type(a) is type(b) and a == b


# The frozen dataclasses above are created in bulk: give them the faster __init__.
fast_init_all(globals())
#: ``node`` and every IR node below it, depth first: :func:`schemac.semantics.irfields.walker`.
walk = irfields.walker(Node, VarRef, WithValue, globals())
