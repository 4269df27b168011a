"""Typed syntax trees for schema files (``*.esdl``, ``*.gel``) and query files (``*.edgeql``).

Plain frozen dataclasses with a :class:`~schemac.diagnostics.Span` on every node, produced by
:mod:`schemac.syntax.parser` and consumed by :mod:`schemac.semantics.model` (schema) and :mod:`schemac.semantics.queries`.
Names are kept as written; resolution (modules, types, enum members) happens later.
"""

from __future__ import annotations

import dataclasses as _dc

from dataclasses import dataclass
from typing import Optional, Tuple, Union

from schemac.diagnostics import Span
from schemac.frozen import fast_init_all

# ---------------------------------------------------------------------------------------------
# Expressions (shared by schema defaults/filters and queries)


@dataclass(frozen=True)
class Path:
    """``.name`` (or ``.a.b`` for later link traversal): a property of the subject type."""

    steps: Tuple[str, ...]
    span: Span


@dataclass(frozen=True)
class Literal:
    """A literal. ``kind`` is one of ``str``, ``int``, ``float``, ``bool``, ``bigint`` (``12n``),
    ``decimal`` (``1.5n``); ``value`` is the Python value (``str`` already unescaped), except for
    ``float``, ``bigint`` and ``decimal``, whose value is the source text without ``_`` and the
    ``n`` suffix (``12.50``), so decimal literals keep every digit."""

    kind: str
    value: object
    span: Span


@dataclass(frozen=True)
class TypeRef:
    """A type as written: ``str``, ``default::Job``, ``array<str>``. ``args`` holds the element
    types of a parameterised type (an integer argument, ``vector<1536>``, is a ``TypeRef`` named
    by its digits); ``optional`` is set by ``<optional T>`` in parameter casts."""

    name: str
    args: Tuple["TypeRef", ...]
    span: Span
    optional: bool = False
    #: A named element of a tuple type (``tuple<name: str>``): its name.
    label: Optional[str] = None
    #: A numeric type argument (``vector<1536>``): its value (``name`` is its digits).
    number: Optional[int] = None

    def __str__(self) -> str:  # as the user would write it
        if self.name == "|":  # a union of object types, A | B
            return " | ".join(str(a) for a in self.args)
        inner = f"<{', '.join(str(a) for a in self.args)}>" if self.args else ""
        label = f"{self.label}: " if self.label else ""
        return label + ("optional " if self.optional else "") + self.name + inner


@dataclass(frozen=True)
class EnumRef:
    """``Enum.Member`` (``enum`` may be module-qualified)."""

    enum: str
    member: str
    span: Span
    member_span: Span


@dataclass(frozen=True)
class Param:
    """A query parameter ``$name``, optionally with an explicit type ``$name<type>``."""

    name: str
    type: Optional[TypeRef]
    span: Span


@dataclass(frozen=True)
class FuncCall:
    """A function call, e.g. ``now()``, ``datetime_current()``."""

    name: str
    args: Tuple["Expr", ...]
    span: Span


@dataclass(frozen=True)
class BinOp:
    """A binary operator; ``op`` is the source spelling (``=``, ``!=``, ``and``, ``++``...)."""

    op: str
    left: "Expr"
    right: "Expr"
    span: Span


@dataclass(frozen=True)
class UnaryOp:
    """``not x`` or ``-x``."""

    op: str
    operand: "Expr"
    span: Span


@dataclass(frozen=True)
class VarRef:
    """A bare name: the variable of an enclosing ``for`` loop, a ``with`` name, a type.
    ``detached``: written ``detached T`` (https://docs.geldata.com/reference/edgeql/paths#detached):
    every object of ``T``, never the object of an enclosing scope over ``T``."""

    name: str
    span: Span
    detached: bool = False


@dataclass(frozen=True)
class Tuple_:
    """``(a, b)``: only meaningful as the target of ``on ((.a, .b))``."""

    items: Tuple["Expr", ...]
    span: Span


@dataclass(frozen=True)
class SetLit:
    """``{a, b}``: the right-hand side of ``in``."""

    items: Tuple["Expr", ...]
    span: Span


@dataclass(frozen=True)
class Cast:
    """``<type>expr`` (Gel's spelling of a typed parameter: ``<uuid>$id``)."""

    type: TypeRef
    operand: "Expr"
    span: Span


@dataclass(frozen=True)
class SubSelect:
    """``(select Type filter expr)``: in an assignment, the object a link points to."""

    type_name: str
    type_span: Span
    filter: "Expr"
    span: Span
    #: ``(select detached T filter ...)``: inside it ``T`` / ``T.x`` is still the enclosing
    #: query's object (https://docs.geldata.com/reference/stdlib/set#operator::detached).
    detached: bool = False


@dataclass(frozen=True)
class Index:
    """``x['key']`` (a json object's member) or ``x[0]`` (a json array's element)."""

    base: "Expr"
    key: "Expr"
    span: Span


@dataclass(frozen=True)
class GlobalRef:
    """``global name``: the value of a global for the current request
    (https://docs.geldata.com/reference/datamodel/globals)."""

    name: str
    span: Span
    #: ``global current_user.name``: a path through an object global (empty: the global).
    steps: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Backlink:
    """``.<link[is Type]``: the objects whose link ``link`` points at the subject
    (https://docs.geldata.com/reference/datamodel/links#backlinks). ``type_name`` is ``None``
    for a bare ``.<link``."""

    link: str
    type_name: Optional[str]
    span: Span
    type_span: Optional[Span] = None


@dataclass(frozen=True)
class Step:
    """A path step from any expression: ``(expr).name`` (``kind`` ``.``), ``expr.<name``
    (a backlink, ``.<``) or ``expr@name`` (a link property, ``@``). A partial path from the
    subject (``.a.b``) is a :class:`Path`, ``Type.member`` an :class:`EnumRef`."""

    base: "Expr"
    name: str
    kind: str
    span: Span


@dataclass(frozen=True)
class ShapeExpr:
    """``expr { shape }``: an expression with a shape (``__new__ { ** }``, ``User { name }``)."""

    base: "Expr"
    shape: Tuple["ShapeElement", ...]
    span: Span


@dataclass(frozen=True)
class LinkPropRef:
    """``@name``: a link property of the link in scope (in a link's body or a shape)."""

    name: str
    span: Span


@dataclass(frozen=True)
class TypeFilter:
    """``expr[is Type]``: the objects of ``expr`` that are of ``type``."""

    base: "Expr"
    type: TypeRef
    span: Span


@dataclass(frozen=True)
class Slice:
    """``expr[start:stop]`` (either may be missing)."""

    base: "Expr"
    start: Optional["Expr"]
    stop: Optional["Expr"]
    span: Span


@dataclass(frozen=True)
class IfElse:
    """``a if cond else b`` or ``if cond then a else b``."""

    cond: "Expr"
    then: "Expr"
    else_: "Expr"
    span: Span


@dataclass(frozen=True)
class TypeCheck:
    """``expr is Type`` / ``expr is not Type``."""

    operand: "Expr"
    type: TypeRef
    negated: bool
    span: Span


@dataclass(frozen=True)
class NamedArg:
    """A named function argument, ``language := fts::Language.eng``; only the functions that
    take one accept it (elsewhere it is a located E0304)."""

    name: str
    value: "Expr"
    span: Span


@dataclass(frozen=True)
class NamedTuple:
    """``(a := 1, b := 'x')``."""

    items: Tuple[Tuple[str, "Expr"], ...]
    span: Span


@dataclass(frozen=True)
class ArrayLit:
    """``[a, b]``."""

    items: Tuple["Expr", ...]
    span: Span


@dataclass(frozen=True)
class SelectExpr:
    """``(select subject [{ shape }] [filter ...] [order by ...] [offset n] [limit n])`` inside an
    expression (a sub-query). ``(select Type filter expr)`` alone is a :class:`SubSelect`."""

    subject: "Expr"
    shape: Optional[Tuple["ShapeElement", ...]]
    filter: Optional["Expr"]
    order: Tuple["OrderItem", ...]
    offset: Optional["Expr"]
    limit: Optional["Expr"]
    span: Span


@dataclass(frozen=True)
class WithExpr:
    """``(with a := ..., b := ... <statement>)`` inside an expression."""

    bindings: Tuple["WithBinding", ...]
    body: object
    span: Span


@dataclass(frozen=True)
class GroupExpr:
    """``(group subject [{ shape }] [using k := expr, ...] by keys)``."""

    subject: "Expr"
    shape: Optional[Tuple["ShapeElement", ...]]
    using: Tuple[Tuple[str, "Expr"], ...]
    by: Tuple["Expr", ...]
    span: Span


@dataclass(frozen=True)
class ForExpr:
    """``for x in set union body`` whose body is not an insert (inside an expression)."""

    var: str
    var_span: Span
    source: "Expr"
    body: object
    span: Span


@dataclass(frozen=True)
class Introspect:
    """``introspect T``: the type ``T`` itself, as ``sequence_next(introspect TicketNo)`` takes it."""

    type: "TypeRef"
    span: Span


@dataclass(frozen=True)
class FreeObject:
    """``{ a := expr, b := expr }``: a free object
    (https://docs.geldata.com/reference/edgeql/select#free-objects); ``elements`` are computed
    :class:`ShapeElement` nodes."""

    elements: Tuple["ShapeElement", ...]
    span: Span


@dataclass(frozen=True)
class StatementExpr:
    """A parenthesised ``insert``/``update``/``delete``/``for`` statement used as an expression
    (``do (insert Log { ... })`` in a trigger); ``query`` is the statement's node."""

    query: object
    span: Span


Expr = Union[Path, Literal, EnumRef, Param, FuncCall, BinOp, UnaryOp, Tuple_, SetLit, Cast, SubSelect, VarRef, Index,
             GlobalRef, Backlink,
             Step, LinkPropRef, TypeFilter, Slice, IfElse, TypeCheck, NamedArg, NamedTuple, ArrayLit, SelectExpr,
             WithExpr, GroupExpr, ForExpr, StatementExpr, ShapeExpr, Introspect, FreeObject]


def child_nodes(node) -> list:
    """The syntax nodes directly below ``node`` (an expression, a statement or a shape element):
    those its fields hold, inside tuples and lists too; spans are not nodes. Unlike
    :func:`iter_nodes`, it knows no node type: every field is looked into."""
    out = []
    for f in _dc.fields(node):
        stack = [getattr(node, f.name)]
        while stack:
            v = stack.pop()
            if isinstance(v, (tuple, list)):
                stack.extend(v)
            elif _dc.is_dataclass(v) and not isinstance(v, (Span, type)):
                out.append(v)
    return out


def walk_syntax(node):
    """Every syntax node of the tree ``node``, the root first (iteratively: trees may be deep)."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        if _dc.is_dataclass(n) and not isinstance(n, type):
            stack.extend(child_nodes(n))


def iter_nodes(expr: "Expr"):
    """Every node of an expression tree, the root first (iteratively: trees may be deep)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, BinOp):
            stack.extend((node.right, node.left))
        elif isinstance(node, (UnaryOp, Cast)):
            stack.append(node.operand)
        elif isinstance(node, FuncCall):
            stack.extend(reversed(node.args))
        elif isinstance(node, (Tuple_, SetLit)):
            stack.extend(reversed(node.items))
        elif isinstance(node, SubSelect):
            stack.append(node.filter)
        elif isinstance(node, Index):
            stack.extend((node.key, node.base))
        elif isinstance(node, (Step, TypeFilter, ShapeExpr)):
            stack.append(node.base)
        elif isinstance(node, Slice):
            stack.extend(x for x in (node.stop, node.start, node.base) if x is not None)
        elif isinstance(node, IfElse):
            stack.extend((node.else_, node.then, node.cond))
        elif isinstance(node, TypeCheck):
            stack.append(node.operand)
        elif isinstance(node, NamedArg):
            stack.append(node.value)
        elif isinstance(node, NamedTuple):
            stack.extend(v for _, v in reversed(node.items))
        elif isinstance(node, ArrayLit):
            stack.extend(reversed(node.items))
        elif isinstance(node, SelectExpr):
            stack.extend(x for x in (node.limit, node.offset, node.filter, node.subject) if x is not None)
        elif isinstance(node, FreeObject):
            stack.extend(el.value for el in reversed(node.elements) if el.value is not None)


def map_expr(node, f):
    """``node`` with every sub-expression ``n`` replaced by ``f(n)`` (``f`` returns ``n``
    itself to keep it and go down into it)."""
    new = f(node)
    if new is not node or not _dc.is_dataclass(node) or isinstance(node, Span):
        return new
    changes = {}
    for fld in _dc.fields(node):
        v = getattr(node, fld.name)
        nv = _map_value(v, f)
        if nv is not v:
            changes[fld.name] = nv
    return _dc.replace(node, **changes) if changes else node


def _map_value(v, f):
    if isinstance(v, tuple):
        items = tuple(_map_value(x, f) for x in v)
        return items if any(a is not b for a, b in zip(items, v)) else v
    if _dc.is_dataclass(v) and not isinstance(v, (Span, type)):
        return map_expr(v, f)
    return v


def conjuncts(expr: "Expr"):
    """The operands of a chain of ``and`` (``a and b and c`` -> a, b, c), left to right."""
    out = []
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, BinOp) and node.op == "and":
            stack.extend((node.right, node.left))
        else:
            out.append(node)
    return out

# ---------------------------------------------------------------------------------------------
# Schema declarations


@dataclass(frozen=True)
class EnumDecl:
    """``enum Name { A, B }``. ``members`` keep source order (it is the CHECK order)."""

    name: str
    members: Tuple[Tuple[str, Span], ...]
    module: str
    span: Span


@dataclass(frozen=True)
class ConstraintDecl:
    """``constraint name[(args)] [on (exprs)] [except expr] [filter expr]``.

    On a pointer, ``on`` is empty and the subject is the pointer itself. ``except_`` (Gel) and
    ``filter`` (ours) are opposite senses of a partial constraint."""

    name: str
    args: Tuple[Expr, ...]
    on: Tuple[Expr, ...]
    except_: Optional[Expr]
    filter: Optional[Expr]
    span: Span
    name_span: Span
    #: ``name := expr`` members of its body (``errmessage := '...'``), as written.
    fields: Tuple["Field", ...] = ()
    annotations: Tuple[Tuple[str, str], ...] = ()
    #: Gel's ``delegated constraint`` (enforced in each subtype separately).
    delegated: bool = False


@dataclass(frozen=True)
class Field:
    """``name := expr`` in a declaration's body (``errmessage := '...'`` in a constraint,
    ``cardinality := ...``): a field of the declaration, as written."""

    name: str
    value: Expr
    span: Span


@dataclass(frozen=True)
class IndexDecl:
    """``index [kind[(name := expr, ...)]] on (exprs) [except expr] [filter expr]``; ``kind``
    e.g. ``pg::gin``; ``args``: the named arguments (``lists := 100``) with their spans."""

    kind: Optional[str]
    on: Tuple[Expr, ...]
    except_: Optional[Expr]
    filter: Optional[Expr]
    annotations: Tuple[Tuple[str, str], ...]
    span: Span
    args: Tuple[Tuple[str, "Expr", Span], ...] = ()
    #: Gel's ``deferred index`` (built by the server in the background).
    deferred: bool = False
    #: ``name := expr`` members of its body, and ``using (expr)`` as a field named ``using``.
    fields: Tuple["Field", ...] = ()


@dataclass(frozen=True)
class RewriteDecl:
    """``rewrite insert, update using (expr)`` in a property or link
    (https://docs.geldata.com/reference/datamodel/mutation_rewrites)."""

    kinds: Tuple[str, ...]
    expr: Expr
    span: Span


@dataclass(frozen=True)
class TriggerDecl:
    """``trigger name after [commit of] insert, update, delete for each|all [when (cond)] do (expr)``
    (https://docs.geldata.com/reference/datamodel/triggers)."""

    name: str
    commit: bool
    kinds: Tuple[str, ...]
    scope: str  # "each" | "all"
    when: Optional[Expr]
    body: Expr
    span: Span
    name_span: Span


@dataclass(frozen=True)
class FuncParam:
    """A function parameter: ``[variadic|named only] name: [optional|set of] type [= default]``."""

    name: str
    type: "TypeRef"
    kind: Optional[str]
    qualifier: Optional[str]
    default: Optional[Expr]
    span: Span


@dataclass(frozen=True)
class FunctionDecl:
    """``function name(params) -> [optional|set of] type using (expr)`` or ``... using sql $$...$$``,
    or with a body of fields (https://docs.geldata.com/reference/datamodel/functions). ``body``
    is the EdgeQL expression, ``language``/``text`` the other language's name and source."""

    name: str
    module: str
    params: Tuple[FuncParam, ...]
    returns: "TypeRef"
    returns_qualifier: Optional[str]
    body: Optional[Expr]
    language: Optional[str]
    text: Optional[str]
    fields: Tuple["Field", ...]
    annotations: Tuple[Tuple[str, str], ...]
    span: Span
    name_span: Span


@dataclass(frozen=True)
class AliasDecl:
    """``alias Name := expr;`` or ``alias Name { using (expr) }``
    (https://docs.geldata.com/reference/datamodel/aliases)."""

    name: str
    module: str
    expr: Optional[Expr]
    annotations: Tuple[Tuple[str, str], ...]
    span: Span
    name_span: Span


@dataclass(frozen=True)
class AbstractDecl:
    """A definition other declarations refer to: ``abstract constraint``, ``abstract
    [inheritable] annotation``, ``abstract link``, ``abstract property`` or ``abstract index``
    (``kind``). ``params``: a constraint's or index's parameters; ``on``: a constraint's subject
    expression; ``using``: its expression; ``pointer``: the body of an abstract link or property."""

    kind: str
    name: str
    module: str
    extends: Tuple[Tuple[str, Span], ...]
    params: Tuple[FuncParam, ...]
    on: Tuple[Expr, ...]
    using: Optional[Expr]
    fields: Tuple["Field", ...]
    annotations: Tuple[Tuple[str, str], ...]
    inheritable: bool
    pointer: Optional["PointerDecl"]
    span: Span
    name_span: Span


@dataclass(frozen=True)
class FutureDecl:
    """``using future name;`` (https://docs.geldata.com/reference/datamodel/future)."""

    name: str
    span: Span


@dataclass(frozen=True)
class PermissionDecl:
    """Gel 7's ``permission name;``."""

    name: str
    module: str
    span: Span


@dataclass(frozen=True)
class ExtensionDecl:
    """``using extension name [version 'v'];`` (https://docs.geldata.com/reference/datamodel/extensions)."""

    name: str
    version: Optional[str]
    span: Span


@dataclass(frozen=True)
class PointerDecl:
    """A property or link. ``kind`` is ``property``/``link`` as written, or ``None`` for our
    ``name: Type`` spelling (a link when the type is an object type). ``type`` is ``None`` only
    for an ``overloaded`` pointer that keeps its inherited type. ``required`` is ``None`` when
    neither ``required`` nor ``optional`` was written."""

    name: str
    kind: Optional[str]
    type: Optional[TypeRef]
    required: Optional[bool]
    multi: bool
    overloaded: bool
    default: Optional[Expr]
    constraints: Tuple[ConstraintDecl, ...]
    readonly: Optional[bool]
    annotations: Tuple[Tuple[str, str], ...]
    on_target_delete: Optional[str]
    link_props: Tuple["PointerDecl", ...]
    span: Span
    name_span: Span
    #: A computed pointer's expression (``name := expr`` or ``{ using (expr) }``): nothing is
    #: stored (https://docs.geldata.com/reference/datamodel/computeds).
    computed: Optional[Expr] = None
    #: ``extending base, ...`` (abstract links or properties it extends).
    extends: Tuple[Tuple[str, Span], ...] = ()
    #: ``on source delete delete target [if orphan] | allow``, as written after ``delete``.
    on_source_delete: Optional[str] = None
    rewrites: Tuple["RewriteDecl", ...] = ()
    #: Indexes declared in a link's body (on its link properties).
    indexes: Tuple["IndexDecl", ...] = ()
    #: A union target ``A | B`` is ``type`` = the first member and ``union`` = all of them.
    union: Tuple["TypeRef", ...] = ()
    #: Where ``on source delete ...`` is written.
    on_source_delete_span: Optional[Span] = None
    #: ``single`` was written (for a computed, Gel checks that its expression cannot return
    #: more than one element; a stored pointer is single unless ``multi``).
    single: bool = False
    #: ``splat_strategy := 'Explicit'`` (or ``'Implicit'``, ``'Default'``) in its body: whether a
    #: splat selects it (https://github.com/geldata/gel/pull/8757, Gel 7).
    splat_strategy: Optional[str] = None
    splat_strategy_span: Optional[Span] = None


@dataclass(frozen=True)
class ScalarDecl:
    """``scalar type Name extending base { constraints }`` (a custom scalar)."""

    name: str
    module: str
    base: TypeRef
    constraints: Tuple[ConstraintDecl, ...]
    annotations: Tuple[Tuple[str, str], ...]
    abstract: bool
    span: Span
    name_span: Span


@dataclass(frozen=True)
class UnsupportedDecl:
    """A declaration the grammar accepts but the compiler does not lower yet; reported as a
    diagnostic naming ``feature``."""

    feature: str
    span: Span


@dataclass(frozen=True)
class AccessPolicyDecl:
    """``access policy name [when (cond)] allow|deny <kinds> [using (expr)] [{ errmessage := '...' }]``
    (https://docs.geldata.com/reference/datamodel/access_policies). ``kinds`` hold ``select``,
    ``insert``, ``update read``, ``update write``, ``delete`` (``all`` and ``update`` expanded)."""

    name: str
    allow: bool
    kinds: Tuple[str, ...]
    when: Optional[Expr]
    using: Optional[Expr]
    errmessage: Optional[str]
    annotations: Tuple[Tuple[str, str], ...]
    span: Span
    name_span: Span


@dataclass(frozen=True)
class GlobalDecl:
    """``[required] [multi] global name: type [{ default := expr }]`` or ``global name := expr``
    (computed) in ``module`` (https://docs.geldata.com/reference/datamodel/globals)."""

    name: str
    module: str
    type: Optional[TypeRef]
    required: bool
    multi: bool
    default: Optional[Expr]
    computed: Optional[Expr]
    annotations: Tuple[Tuple[str, str], ...]
    span: Span
    name_span: Span


@dataclass(frozen=True)
class TypeDecl:
    """``[abstract] type Name [extending A, B] { ... }`` in ``module``."""

    name: str
    module: str
    abstract: bool
    extends: Tuple[Tuple[str, Span], ...]
    pointers: Tuple[PointerDecl, ...]
    constraints: Tuple[ConstraintDecl, ...]
    indexes: Tuple[IndexDecl, ...]
    annotations: Tuple[Tuple[str, str], ...]
    span: Span
    name_span: Span
    policies: Tuple[AccessPolicyDecl, ...] = ()
    triggers: Tuple["TriggerDecl", ...] = ()


@dataclass(frozen=True)
class SchemaFile:
    """All declarations of one schema file, flattened out of their ``module`` blocks.
    ``diagnostics`` holds what the pre-scan reported (unsupported features, warnings)."""

    path: str
    enums: Tuple[EnumDecl, ...]
    scalars: Tuple[ScalarDecl, ...]
    types: Tuple[TypeDecl, ...]
    modules: Tuple[Tuple[str, Span], ...]
    diagnostics: Tuple[object, ...] = ()
    hints: Tuple["MigrationHint", ...] = ()
    globals: Tuple[GlobalDecl, ...] = ()
    extensions: Tuple[ExtensionDecl, ...] = ()
    #: Functions, aliases, abstract definitions, ``using future`` and permissions, in source
    #: order (:class:`FunctionDecl`, :class:`AliasDecl`, :class:`AbstractDecl`,
    #: :class:`FutureDecl`, :class:`PermissionDecl`).
    definitions: Tuple[object, ...] = ()


@dataclass(frozen=True)
class MigrationHint:
    """One statement of a ``migration { ... }`` block: an instruction to the migration diff
    engine (:mod:`schemac.migrate.diff`) for what it must not guess.

    ``action``: ``rename`` | ``drop`` | ``fill`` | ``cast`` | ``map``; ``kind``: ``type`` |
    ``property`` | ``link`` | ``member`` (``fill``/``cast`` name a property or link, ``map`` a
    member); ``type_name``: the type or enum as written (``Job``, ``billing::Invoice``);
    ``item``: the property, link or member (``None`` for a type); ``to``: the new name
    (``rename``) or replacement member (``map``); ``expr``: the fill expression."""

    action: str
    kind: str
    type_name: str
    item: Optional[str]
    to: Optional[str]
    expr: Optional["Expr"]
    module: str
    span: Span


# ---------------------------------------------------------------------------------------------
# Queries


@dataclass(frozen=True)
class Assignment:
    """``name := expr`` inside an insert or update shape; in an update also ``name += expr`` /
    ``name -= expr`` (add to / remove from a multi property)."""

    name: str
    value: Expr
    span: Span
    name_span: Span
    op: str = ":="


@dataclass(frozen=True)
class ConflictElse:
    """``else (update Type set { ... })`` or ``else (select Type)`` after ``unless conflict``:
    an upsert. ``assignments`` is empty for ``select``."""

    kind: str  # "update" | "select"
    type_name: str
    type_span: Span
    assignments: Tuple["Assignment", ...]
    span: Span
    #: ``else (update T filter <cond> set {...})``: the existing object is updated (and
    #: returned) only when ``cond`` holds for it.
    filter: Optional["Expr"] = None


@dataclass(frozen=True)
class UnlessConflict:
    """``unless conflict [on (.a, .b)] [else (...)]``; ``on`` is empty for the bare form."""

    on: Tuple[Path, ...]
    span: Span
    else_: Optional[ConflictElse] = None


@dataclass(frozen=True)
class InsertQuery:
    """``insert Type { p := expr, ... } [unless conflict on (...)]``."""

    type_name: str
    type_span: Span
    assignments: Tuple[Assignment, ...]
    unless_conflict: Optional[UnlessConflict]
    span: Span


@dataclass(frozen=True)
class UpdateQuery:
    """``update Type [filter expr] set { p := expr, ... }``."""

    type_name: str
    type_span: Span
    filter: Optional[Expr]
    assignments: Tuple[Assignment, ...]
    span: Span
    #: Gel's ``update <expr> ...`` on something other than a type name (``update .friends``):
    #: that expression (``type_name`` is then ``""``).
    subject: Optional[Expr] = None


@dataclass(frozen=True)
class ShapeElement:
    """``name`` or ``link: { ... }`` in a select shape; ``@name`` (``link_prop``) is a link
    property, inside the shape of a multi link; ``*`` / ``**`` (``name`` is the splat) select
    every property (and ``**`` every link with its properties); ``name := expr`` (``value``) is
    a computed element."""

    name: str
    shape: Optional[Tuple["ShapeElement", ...]]
    span: Span
    link_prop: bool = False
    value: Optional["Expr"] = None
    #: The richer elements of a shape inside an expression (``(select X { ... })``; a computed
    #: element ``name := expr`` is ``value``): a nested shape's clauses, ``.<backlink``,
    #: ``[is T].name``.
    filter: Optional[Expr] = None
    order: Tuple["OrderItem", ...] = ()
    offset: Optional[Expr] = None
    limit: Optional[Expr] = None
    backlink: bool = False
    type_filter: Optional[str] = None

    @property
    def splat(self) -> bool:
        return self.name in ("*", "**")


@dataclass(frozen=True)
class OrderItem:
    """``expr [asc|desc] [empty first|last]``; ``empty`` is ``None`` for Gel's default (empty
    values sort as the smallest)."""

    expr: Expr
    descending: bool
    empty: Optional[str]
    span: Span


@dataclass(frozen=True)
class SelectQuery:
    """``select Type [{ shape }] [filter expr] [order by ...] [offset n] [limit n]``; no
    shape selects ``{ id }``."""

    type_name: str
    type_span: Span
    shape: Optional[Tuple[ShapeElement, ...]]
    filter: Optional[Expr]
    order: Tuple[OrderItem, ...]
    offset: Optional[Expr]
    limit: Optional[Expr]
    span: Span


@dataclass(frozen=True)
class SelectDml:
    """``select (insert|update|delete ...) { shape }``: the written rows, with a flat shape."""

    body: "Query"
    shape: Optional[Tuple[ShapeElement, ...]]
    span: Span

    @property
    def type_name(self) -> str:
        return self.body.type_name

    @property
    def type_span(self) -> Span:
        return self.body.type_span


@dataclass(frozen=True)
class SelectValue:
    """``select <expr> [filter ...] [order by ...] [offset n] [limit n]`` of anything but a type
    or a write: a literal, a parameter, a function call, a free object ``{ a := ... }``
    (https://docs.geldata.com/reference/edgeql/select)."""

    value: Expr
    filter: Optional[Expr]
    order: Tuple["OrderItem", ...]
    offset: Optional[Expr]
    limit: Optional[Expr]
    span: Span

    type_name = ""

    @property
    def type_span(self) -> Span:
        return self.value.span


@dataclass(frozen=True)
class DeleteQuery:
    """``delete Type [filter expr]``: returns the deleted objects' ``{ id }``."""

    type_name: str
    type_span: Span
    filter: Optional[Expr]
    span: Span
    #: ``delete <expr>`` on something other than a type name: that expression (``type_name``
    #: is then ``""``).
    subject: Optional[Expr] = None


@dataclass(frozen=True)
class ForQuery:
    """``for x in array_unpack(<array<T>>$xs) union (insert ...)``: a bulk insert, one row per
    array element, in one statement."""

    var: str
    var_span: Span
    source: Expr
    body: InsertQuery
    span: Span

    @property
    def type_name(self) -> str:
        return self.body.type_name

    @property
    def type_span(self) -> Span:
        return self.body.type_span


@dataclass(frozen=True)
class WithBinding:
    """``name := <expr>`` or ``name := (insert|update|delete ...)`` in a ``with`` block;
    ``value`` is an expression or a query."""

    name: str
    name_span: Span
    value: Union[Expr, "InsertQuery", "UpdateQuery", "DeleteQuery"]
    span: Span


@dataclass(frozen=True)
class WithQuery:
    """``with a := ..., b := ... <query>``: named values and bound statements, in scope in
    later bindings and in ``body``."""

    bindings: Tuple[WithBinding, ...]
    body: "Query"
    span: Span

    @property
    def type_name(self) -> str:
        return self.body.type_name

    @property
    def type_span(self) -> Span:
        return self.body.type_span


Query = Union[InsertQuery, UpdateQuery, SelectQuery, DeleteQuery, ForQuery, SelectDml, WithQuery, SelectValue]


@dataclass(frozen=True)
class QueryFile:
    """One named query file; ``name`` is the file's stem (``enqueue_job``); ``text`` its source
    (a rewrite the checker applies to a few forms tests it before walking the tree)."""

    path: str
    name: str
    query: Query
    doc: str = ""
    text: str = _dc.field(default="", compare=False, repr=False)


# The parser creates these in bulk: an __init__ without object.__setattr__ per field.
fast_init_all(globals())
