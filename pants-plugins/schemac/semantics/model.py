"""The resolved schema: the plain data model every back end (SQL, TypeScript, Go) reads.

Built from parsed files by :func:`schemac.semantics.resolve.build_schema`. Everything here is already
checked and lowered: tables and columns carry their Postgres names, defaults and predicates
their SQL text, so renderers only format.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from schemac.diagnostics import Span
from schemac.frozen import fast_init_all
from schemac.semantics.scalars import Scalar


@dataclass(frozen=True)
class EnumType:
    """An enum, stored as ``text`` with a CHECK of its members (never a Postgres enum type,
    whose values cannot be removed or reordered). ``members`` keep declaration order."""

    name: str
    module: str
    members: Tuple[str, ...]
    span: Span

    @property
    def qualname(self) -> str:
        return f"{self.module}::{self.name}"

    @property
    def code_name(self) -> str:
        """Its name in generated TS and Go: the name, prefixed with the PascalCased module
        outside module ``default`` (``billing::Status`` -> ``BillingStatus``)."""
        if self.module == "default":
            return self.name
        prefix = "".join(part[:1].upper() + part[1:] for part in re.split(r"[_:]+", self.module) if part)
        return prefix + self.name


@dataclass(frozen=True)
class ValueType:
    """The type of a column, parameter or expression: exactly one of ``scalar`` / ``enum`` /
    ``element`` (an ``array<element>``)."""

    scalar: Optional[Scalar] = None
    enum: Optional[EnumType] = None
    element: Optional["ValueType"] = None
    #: ``tuple<A, B>`` / ``tuple<x: A, y: B>`` (https://docs.geldata.com/reference/stdlib/tuple):
    #: its elements, each with its name (``None`` when unnamed). Stored as a Postgres composite
    #: type (:attr:`composite`, created by the migrations).
    fields: Optional[Tuple[Tuple[Optional[str], "ValueType"], ...]] = None

    @property
    def name(self) -> str:
        if self.element is not None:
            return f"array<{self.element.name}>"
        if self.fields is not None:
            return "tuple<" + ", ".join(t.name if n is None else f"{n}: {t.name}" for n, t in self.fields) + ">"
        return self.enum.name if self.enum else self.scalar.name  # type: ignore[union-attr]

    @property
    def family(self) -> str:
        """Values of equal family compare and assign without a cast."""
        if self.element is not None:
            return f"array:{self.element.family}"
        if self.fields is not None:
            return "tuple:" + ",".join(t.family for _, t in self.fields)
        return f"enum:{self.enum.qualname}" if self.enum else self.scalar.sql_family  # type: ignore[union-attr]

    @property
    def pg(self) -> str:
        """Postgres column type (``text`` for enums, ``T[]`` for arrays, the quoted composite type
        of a tuple)."""
        if self.element is not None:
            return f"{self.element.pg}[]"
        if self.fields is not None:
            return f'"{self.composite}"'
        return "text" if self.enum else self.scalar.pg  # type: ignore[union-attr]

    @property
    def composite(self) -> str:
        """A tuple's Postgres composite type: ``tuple_`` and its elements' types (with their names
        for a named tuple), e.g. ``tuple_numeric_numeric``; one type per distinct tuple type, its
        attributes named ``f0``, ``f1``... (a named tuple's: its names)."""
        from schemac.semantics.sqlnames import short_identifier

        assert self.fields is not None
        parts = []
        for n, t in self.fields:
            base = t.pg.replace('"', "").replace("[]", "_array").replace(" ", "_")
            parts.append(base if n is None else f"{n}_{base}")
        return short_identifier("tuple_" + "_".join(parts))

    @property
    def composite_fields(self) -> Tuple[Tuple[str, str], ...]:
        """``(attribute, Postgres type)`` of a tuple's composite type."""
        assert self.fields is not None
        return tuple((n if n is not None else f"f{i}", t.pg) for i, (n, t) in enumerate(self.fields))

    def tuples(self) -> List["ValueType"]:
        """The tuple types this type is or holds (itself, an array's element, nested tuples),
        innermost first: the composite types its column needs, in creation order."""
        out: List[ValueType] = []
        if self.element is not None:
            out.extend(self.element.tuples())
        if self.fields is not None:
            for _, t in self.fields:
                out.extend(t.tuples())
            out.append(self)
        return out

    @property
    def has_tuple(self) -> bool:
        return bool(self.tuples())


@dataclass(frozen=True)
class CustomScalar:
    """``scalar type Slug extending str { constraint ... }``: columns of this type get the base
    type and a CHECK per constraint (``constraints`` are syntax nodes, lowered per column)."""

    name: str
    module: str
    base: ValueType
    constraints: Tuple[object, ...]
    span: Span
    #: ``scalar type N extending sequence``: the Postgres sequence its properties draw their
    #: default from (``nextval``), one per scalar type as in Gel.
    sequence: Optional[str] = None

    @property
    def qualname(self) -> str:
        return f"{self.module}::{self.name}"


@dataclass(frozen=True)
class Column:
    """One column. ``required`` means NOT NULL; ``default_sql`` is the SQL default expression
    (``'Pending'``, ``now()``, ``gen_random_uuid()``) or ``None``."""

    name: str
    type: ValueType
    required: bool
    default_sql: Optional[str]
    span: Span
    is_id: bool = False
    readonly: bool = False
    comment: Optional[str] = None
    #: For the FK column of a single link: the link's name (the column is ``<link>_id``).
    link: Optional[str] = None
    #: A default that reads a global (``owner: User { default := global current_user }``):
    #: the database has no per-request value, so each generated insert that leaves the
    #: column out writes this expression (syntax, in module ``query_default_module``); the
    #: column itself has no SQL default.
    query_default: Optional[object] = field(default=None, compare=False, repr=False)
    query_default_module: str = "default"
    #: The mutations a rewrite sets it on (``insert``, ``update``): a BEFORE trigger of its
    #: table computes it (https://docs.geldata.com/reference/datamodel/mutation_rewrites), so an
    #: insert need not give a required property with an insert rewrite.
    rewrites: Tuple[str, ...] = ()
    #: What the migrations' snapshot records it stores, when not ``link`` or ``name``: a
    #: polymorphic link's column of one subtype, ``<link>[is <Subtype>]`` (one per column, so the
    #: migration diff tells them apart).
    pointer: Optional[str] = None
    #: A ``multi`` property: a set of values, stored as an array (never NULL, ``'{}'`` when empty).
    multi: bool = False
    #: A default that reads other properties of the object (``default := ('PUBLIC' if .public
    #: else 'PRIVATE')``): its SQL over the row being inserted (``NEW``), set by a BEFORE
    #: INSERT trigger of its table when the insert leaves the (required) column empty.
    row_default_sql: Optional[str] = None
    #: A link property of a single link (``owner: User { note: str }``): the link's name. The
    #: column, ``<link>@<prop>`` (a name no property can take), sits next to the link's FK
    #: column in the source table (see :func:`single_link_props`).
    link_prop: Optional[str] = None
    #: With ``link_prop``: the link is optional (its row may have no link, and then no property,
    #: whatever the column holds: a default a migration gave the existing rows).
    link_optional: bool = False

    @property
    def has_default(self) -> bool:
        return self.default_sql is not None

    @property
    def defaulted(self) -> bool:
        """An insert may leave it out: it has a SQL default, a query-time default or an insert
        rewrite."""
        return self.default_sql is not None or self.query_default is not None or "insert" in self.rewrites \
            or self.row_default_sql is not None


@dataclass(frozen=True)
class CheckConstraint:
    """A named CHECK constraint, e.g. ``ck_job_status_enum``; ``expression_sql`` is the check
    expression without the surrounding ``CHECK (...)``."""

    name: str
    expression_sql: str


@dataclass(frozen=True)
class ExclusiveConstraint:
    """An exclusive constraint over ``columns`` (declaration order).

    Without a predicate it lowers to a table ``UNIQUE`` constraint; with one
    (``filter .status = QueueStatus.Pending``) to a partial unique index whose predicate is
    ``predicate_sql`` (``status = 'Pending'``). A row is constrained only when the predicate is
    *true*: rows where it is NULL or false are exempt, as for any Postgres partial index
    (https://www.postgresql.org/docs/15/indexes-partial.html).

    On expressions (``exclusive on (str_lower(.name))``, ``on ((.a, str_lower(.b)))``,
    ``on (true)``: https://docs.geldata.com/reference/datamodel/constraints), ``keys_sql`` holds
    the SQL of every key in order (a quoted column, or an expression in parentheses) and it
    lowers to a unique expression index; ``columns`` are then the columns the keys read (what
    a write must touch to violate it).

    ``predicate`` is the checked condition (a :class:`schemac.semantics.qir.Expr`) of ``filter P``,
    or of ``except Q`` (``predicate_except``: the constrained rows are those where ``Q`` is not
    true), and ``keys`` the checked keys on expressions: what the checker reasons on (a duplicate
    constraint, a write that can only take rows out of it), never the SQL above."""

    name: str
    columns: Tuple[str, ...]
    predicate_sql: Optional[str]
    span: Span
    predicate_columns: Tuple[str, ...] = ()
    keys_sql: Tuple[str, ...] = ()
    predicate: object = field(default=None, compare=False, repr=False)
    predicate_except: bool = False
    keys: Tuple[object, ...] = field(default=(), compare=False, repr=False)

    @property
    def partial(self) -> bool:
        return self.predicate_sql is not None

    @property
    def on_expressions(self) -> bool:
        return bool(self.keys_sql)

    @property
    def pins(self) -> bool:
        """True when objects whose ``columns`` are all equal are one object: a full (not
        partial) constraint on the properties themselves. (Gel infers no cardinality from an
        exclusive on expressions, and neither does schemac.)"""
        return self.predicate_sql is None and not self.keys_sql


@dataclass(frozen=True)
class ForeignKey:
    """``CONSTRAINT name FOREIGN KEY (column) REFERENCES target_table (id) ON DELETE ...``;
    ``on_delete_sql`` e.g. ``RESTRICT``, ``CASCADE``, ``SET NULL``, ``NO ACTION DEFERRABLE
    INITIALLY DEFERRED``."""

    name: str
    column: str
    target_table: str
    on_delete_sql: str


@dataclass(frozen=True)
class Index:
    """A non-unique index: ``CREATE INDEX name ON table USING method (keys) [WITH (params)]
    [WHERE predicate]``. ``keys_sql`` are column names or expressions, already spelled for SQL
    (with an operator class where one is needed: ``"embedding" vector_cosine_ops``);
    ``with_sql`` the storage parameters (``lists = 100``) or ``None``."""

    name: str
    keys_sql: Tuple[str, ...]
    method: str
    predicate_sql: Optional[str]
    #: ``None`` for the index a single link's FK column gets automatically.
    span: Optional[Span]
    comment: Optional[str] = None
    with_sql: Optional[str] = None


@dataclass(frozen=True)
class Trigger:
    """A Postgres trigger and the PL/pgSQL function it runs (its own, named ``function``),
    created and dropped by the migrations, so what it does holds for every writer of the table,
    not only for the generated runners. Lowers Gel's mutation rewrites and deletion policies
    (see :mod:`schemac.semantics.triggers`).

    ``name`` is unique on its table (Postgres fires the triggers of one event in name order);
    ``timing`` ``BEFORE``/``AFTER``; ``events`` e.g. ``("INSERT", "UPDATE")`` or
    ``('UPDATE OF "title"',)``; ``level`` ``ROW``/``STATEMENT``; ``body`` the statements between
    the function's ``BEGIN`` and ``END``; ``when`` the trigger's ``WHEN`` condition, if any
    (:data:`schemac.semantics.triggers.ELSE_SELECT_WHEN`)."""

    name: str
    function: str
    timing: str
    events: Tuple[str, ...]
    level: str
    body: str
    when: Optional[str] = None


@dataclass(frozen=True)
class Link:
    """A link of an object type. A single link is stored in the FK column ``column``; a multi
    link in the join table ``join_table``."""

    name: str
    target: "ObjectType"
    multi: bool
    required: bool
    column: Optional[str]
    join_table: Optional[str]
    #: A polymorphic single link read by a query (:class:`PolyLink`): its columns, one per
    #: concrete subtype (the target's id is the one set); ``column`` is then ``None``.
    columns: Tuple[str, ...] = ()


@dataclass(frozen=True)
class PolyLink:
    """A link to an abstract type with several concrete subtypes (a polymorphic link,
    https://docs.geldata.com/reference/datamodel/inheritance, https://docs.geldata.com/reference/datamodel/links). Each concrete table
    is a table of its own, so the link is stored as one nullable foreign key column per concrete
    subtype (``targets``: (subtype, column)), with a CHECK that at most one (exactly one when
    required) is set: Postgres keeps the referential integrity and the ``on target delete``
    policy per subtype. A single link's columns are in the source table
    (``<link>_<subtype table>_id``); a multi link's in its join table (``target_<subtype
    table>_id``, next to ``target_id``, the id whichever it is, which the join table's primary
    key and CHECK tie to them). See docs/language.md, "Polymorphic links"."""

    name: str
    #: Qualified name of the abstract target type (``default::Content``).
    abstract: str
    targets: Tuple[Tuple["ObjectType", str], ...] = field(compare=False, repr=False)
    multi: bool
    required: bool
    join_table: Optional[str]


@dataclass(frozen=True)
class Computed:
    """A computed property or link (https://docs.geldata.com/reference/datamodel/computeds):
    nothing is stored; a query that selects, filters or orders on it gets ``expr`` (syntax,
    written in ``module``) inlined.

    A computed property has a value ``type``; a computed link (a backlink ``.<author[is Post]``,
    https://docs.geldata.com/reference/datamodel/links#backlinks, or a sub-select) has a
    ``target`` type. ``multi``: it may hold several values (a backlink unless declared
    ``single``); ``required``: never empty (as declared, or as inferred)."""

    name: str
    expr: object = field(compare=False)
    module: str
    span: Span
    type: Optional["ValueType"] = None
    target: Optional["ObjectType"] = field(default=None, compare=False, repr=False)
    multi: bool = False
    required: bool = False
    #: For a backlink: the link of ``target`` that points back (its name).
    backlink: Optional[str] = None
    #: For ``(select .link filter ...)``: the stored link of the object it follows (its name).
    forward: Optional[str] = None
    #: For ``(select .<link[is T] filter ...)`` / ``(select .link filter ...)``: the filter
    #: (syntax, over the target's objects).
    filter: Optional[object] = field(default=None, compare=False)
    #: ``expr`` is a set of objects read by ``schemac.semantics.computed_sql.expr_object_set``: a path
    #: through links (``.items[is Media].edges.character``) or a union.
    set_expr: bool = False
    #: Its declaration had errors (reported): reading it reports nothing more.
    broken: bool = False
    #: A computed the schema may declare but queries cannot read yet (a polymorphic backlink,
    #: ``.<actors[is Content]`` of an abstract type): the E0206 message a query reading it gets.
    refused: Optional[str] = None
    #: A backlink ``.<link[is A]`` of an abstract type ``A`` (its qualified name): the concrete
    #: types whose link ``link`` points here (a query reads the union of their objects).
    poly_type: Optional[str] = None
    poly_sources: Tuple["ObjectType", ...] = field(default=(), compare=False, repr=False)
    #: A computed link holding at most one object, as Gel infers it: not multi, or a backlink
    #: through a link with an exclusive constraint (``user := .<account[is User]``, ``account``
    #: exclusive), or a filter pinning one object. It may then be read as a value (its id).
    at_most_one: bool = False

    @property
    def is_link(self) -> bool:
        return self.target is not None


@dataclass(frozen=True)
class AccessPolicy:
    """An access policy (https://docs.geldata.com/reference/datamodel/access_policies), enforced by
    rewriting every generated query (:mod:`schemac.semantics.policies`). ``kinds``: ``select``,
    ``insert``, ``update read``, ``update write``, ``delete``; ``when`` / ``using``: syntax
    (``None``: true), written in ``module``."""

    name: str
    allow: bool
    kinds: Tuple[str, ...]
    when: Optional[object] = field(compare=False)
    using: Optional[object] = field(compare=False)
    errmessage: Optional[str]
    module: str
    span: Span


@dataclass
class ObjectType:
    """A concrete object type and its table. ``columns`` start with the implicit ``id``."""

    name: str
    module: str
    table: str
    columns: List[Column]
    exclusives: List[ExclusiveConstraint]
    checks: List[CheckConstraint]
    span: Span
    foreign_keys: List[ForeignKey] = field(default_factory=list)
    indexes: List[Index] = field(default_factory=list)
    links: Dict[str, Link] = field(default_factory=dict)
    comment: Optional[str] = None
    primary_key: Tuple[str, ...] = ("id",)
    #: The searchable document of its ``fts::index`` (SQL over its columns; see
    #: :mod:`schemac.semantics.fts`), or ``None``.
    fts_document: Optional[str] = None
    #: The parts of that document as written (:data:`schemac.semantics.fts.Part`): a query
    #: lowers them again where its row is in scope (a score, a search in a nested select).
    fts_parts: Tuple[Tuple[object, str, str, Optional[str]], ...] = ()
    #: Set for the join table of a multi link: (source type qualname, link name).
    join_of: Optional[Tuple[str, str]] = None
    #: Set for a type of another library this one depends on (``schema_library``
    #: ``dependencies``): it can be linked to and queried, but its table belongs to (and is
    #: created by the migrations of) that library.
    library: Optional[str] = None
    #: Computed properties and links, by name (no column: inlined where they are read).
    computeds: Dict[str, Computed] = field(default_factory=dict)
    #: Pointers declared with ``splat_strategy := 'Explicit'`` / ``'Implicit'`` (Gel 7): name ->
    #: strategy (a splat leaves an Explicit one out, and ``*`` selects an Implicit link).
    splat_strategies: Dict[str, str] = field(default_factory=dict)
    #: Access policies (its own and inherited ones); none: every operation is allowed.
    policies: List[AccessPolicy] = field(default_factory=list)
    #: Pointers whose declaration was refused (reported): reading one reports nothing more.
    refused_pointers: Set[str] = field(default_factory=set)
    #: Triggers on its table (mutation rewrites, deletion policies), in firing order.
    triggers: List[Trigger] = field(default_factory=list)
    #: Links to an abstract type with several concrete subtypes (:class:`PolyLink`), by name.
    poly_links: Dict[str, PolyLink] = field(default_factory=dict)
    #: For the abstract type a polymorphic link's shape reads: the SQL its rows come from
    #: instead of ``table`` (a ``UNION ALL`` of its concrete subtypes' tables over the columns
    #: they share).
    from_sql: Optional[str] = None
    #: With ``from_sql``: the concrete subtypes its rows come from, ``(qualname, table)``.
    union_of: Tuple[Tuple[str, str], ...] = ()

    @property
    def qualname(self) -> str:
        return f"{self.module}::{self.name}"

    def column(self, name: str) -> Optional[Column]:
        """The first column named ``name``, or ``None``.

        Answered from an index of positions by name (kept in the instance, outside the
        dataclass fields: equality and ``repr`` do not see it), rebuilt whenever ``columns`` is
        another list, and extended when columns were appended. A hit is checked against the list
        (a mismatch is answered by a scan); a name the up-to-date index lacks is no column.
        (The resolver only appends columns, or replaces one by a column of the same name: a
        miss costs nothing, so checking a long inheritance chain's columns stays linear.)"""
        cols = self.columns
        index = self.__dict__.get("_column_index")
        if index is not None and index[0] is cols and index[1] < len(cols):
            # columns were appended since: index them (not the whole list again)
            positions = index[2]
            for i in range(index[1], len(cols)):
                positions.setdefault(cols[i].name, i)
            index = self.__dict__["_column_index"] = (cols, len(cols), positions)
        if index is not None and index[0] is cols and index[1] == len(cols):
            i = index[2].get(name)
            if i is None:
                return None  # every column is indexed
            c = cols[i]
            if c.name == name:
                return c
        return self._column_scan(name)

    def _column_scan(self, name: str) -> Optional[Column]:
        """:meth:`column` by a scan, rebuilding its index on the way."""
        cols = self.columns
        positions: Dict[str, int] = {}
        for i, c in enumerate(cols):
            positions.setdefault(c.name, i)
        self.__dict__["_column_index"] = (cols, len(cols), positions)
        for c in cols:
            if c.name == name:
                return c
        return None


@dataclass(frozen=True)
class Global:
    """A global (https://docs.geldata.com/reference/datamodel/globals): a value the application
    supplies per request. Nothing is stored: each query that reads ``global name`` binds it as
    an ordinary parameter, from the runner's globals context (TS ``createRunner(db, { globals
    })`` / ``runner.withGlobals``, Go ``gen.New(db).WithGlobals(gen.Globals{...})``).

    ``type``: its value type (``None`` for a computed global of object type, whose objects are
    ``target``); ``default_sql``: the SQL of its default (used when it is not set);
    ``required``: it can never be empty (Gel requires a default then; without one, schemac
    makes the runner refuse to send a query reading it while it is unset). ``computed``: the
    expression of a computed global (syntax, inlined where it is read)."""

    name: str
    module: str
    type: Optional[ValueType]
    required: bool
    default_sql: Optional[str]
    span: Span
    computed: Optional[object] = None
    target: Optional["ObjectType"] = None

    @property
    def qualname(self) -> str:
        return f"{self.module}::{self.name}"

    @property
    def key(self) -> str:
        """Its key in the generated globals context: the name (``auth::user_id`` outside module
        ``default``, as Gel's clients spell it)."""
        return self.name if self.module == "default" else f"{self.module}::{self.name}"

    @property
    def must_be_set(self) -> bool:
        """Required without a default: the application must supply it."""
        return self.required and self.default_sql is None and self.computed is None


def name_candidates(name: str, module: str, module_library: Dict[str, str]) -> Tuple[str, ...]:
    """Qualified names ``name`` may mean when written in ``module``, most specific first.

    ``Job`` -> ``<module>::Job``, ``default::Job``; ``m::Job`` -> ``m::Job``. In a module of a
    dependency library ``lib`` (whose modules were moved under ``lib``, see
    :func:`schemac.semantics.resolve.extern_file`), ``default::Job`` means ``lib::Job`` and ``m::Job``
    means ``lib::m::Job``, and a bare name falls back to ``lib``'s default module."""
    lib = module_library.get(module)
    if "::" in name:
        if lib is None:
            return (name,)
        head, rest = name.split("::", 1)
        return (f"{lib}::{rest}" if head == "default" else f"{lib}::{name}", name)
    return (f"{module}::{name}", f"{lib or 'default'}::{name}")


@dataclass
class Schema:
    """All enums and object types of one library, keyed by qualified name (``default::Job``),
    in declaration order."""

    enums: Dict[str, EnumType] = field(default_factory=dict)
    types: Dict[str, ObjectType] = field(default_factory=dict)
    modules: Tuple[str, ...] = ("default",)
    #: Join tables of multi links, in declaration order (not addressable by queries).
    join_tables: List[ObjectType] = field(default_factory=list)
    scalars: Dict[str, CustomScalar] = field(default_factory=dict)
    #: Modules of dependency libraries -> the library (``accounts::billing`` -> ``accounts``).
    module_library: Dict[str, str] = field(default_factory=dict)
    #: Extensions declared with ``using extension`` (Gel name -> :class:`schemac.semantics.extensions.Extension`),
    #: Gel server services included.
    extensions: Dict[str, object] = field(default_factory=dict)

    def sequences(self) -> Tuple[str, ...]:
        """The Postgres sequences of this library's sequence scalars, sorted by name."""
        return tuple(sorted(s.sequence for s in self.scalars.values() if s.sequence and s.module not in self.module_library))

    def pg_extensions(self) -> Tuple[str, ...]:
        """The Postgres extensions the library's migrations create, sorted by name."""
        return tuple(sorted({e.pg for e in self.extensions.values() if e.pg}))  # type: ignore[attr-defined]
    #: Globals of this library, by qualified name, in declaration order.
    globals: Dict[str, Global] = field(default_factory=dict)
    #: Globals whose declaration was refused (reported): reading one reports nothing more.
    refused_globals: Dict[str, Span] = field(default_factory=dict)
    #: The globals Gel triggers read (qualified name -> global): every generated write statement
    #: hands their values to the triggers through transaction-local settings
    #: (:func:`schemac.semantics.sqlnames.global_setting`).
    trigger_globals: Dict[str, "Global"] = field(default_factory=dict)
    #: User functions and aliases (:class:`schemac.semantics.functions.UserFunction`), by qualified
    #: name: inlined where they are called.
    functions: Dict[str, object] = field(default_factory=dict)
    #: Abstract object types (no table), qualified name -> the name: a query selecting one
    #: gets a located E0206 rather than E0301 unknown type.
    abstract_types: Dict[str, str] = field(default_factory=dict)
    #: Object type (abstract or concrete) qualified name -> the concrete types that are it or
    #: extend it, qualified names in resolution order: the tables a query on the type reads.
    descendants: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    #: Set by the resolver once the schema is built (:func:`schemac.semantics.resolve.build_schema`):
    #: from then on nothing changes it, so the lookups below (a table by name, the foreign keys
    #: referring to a table, ...) build their index once and keep it (``_indexes``) rather than
    #: scan every table per query, which made compiling quadratic in the library's size.
    #: Before (while resolving), each lookup scans, as the schema is still growing.
    complete: bool = field(default=False, compare=False)
    _indexes: Dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    def _index(self, name: str, build):  # type: ignore[no-untyped-def]
        """The index ``name`` (``build()``'s result): built once when the schema is complete,
        on every call before."""
        if not self.complete:
            return build()
        hit = self._indexes.get(name)
        if hit is None:
            hit = self._indexes[name] = build()
        return hit

    def table_named(self, table: str) -> Optional[ObjectType]:
        """The table (object type or join table, dependencies' included) named ``table``
        (its Postgres name), or ``None``."""
        return self._index("tables", lambda: {t.table: t for t in self.every_table()}).get(table)  # type: ignore[attr-defined]

    def join_table(self, table: str) -> Optional[ObjectType]:
        """The join table named ``table`` (a multi link's ``join_table``), or ``None``."""
        def build() -> Dict[str, ObjectType]:
            out: Dict[str, ObjectType] = {}
            for t in self.join_tables:
                out.setdefault(t.table, t)
            return out
        return self._index("join_tables", build).get(table)  # type: ignore[attr-defined]

    def fk_referrers(self, table: str) -> Tuple[Tuple[ObjectType, ForeignKey], ...]:
        """The foreign keys referring to ``table``, with the table holding each, in table order
        (:meth:`every_table`) then the table's order of foreign keys."""
        def build() -> Dict[str, Tuple[Tuple[ObjectType, ForeignKey], ...]]:
            out: Dict[str, List[Tuple[ObjectType, ForeignKey]]] = {}
            for t in self.every_table():
                for fk in t.foreign_keys:
                    out.setdefault(fk.target_table, []).append((t, fk))
            return {k: tuple(v) for k, v in out.items()}
        return self._index("fk_referrers", build).get(table, ())  # type: ignore[attr-defined]

    def types_with_pointer(self, name: str) -> Tuple[ObjectType, ...]:
        """The object types with a link or polymorphic link named ``name``, in declaration
        order: the candidate sources of a backlink ``.<name`` (:func:`backlink_link`)."""
        def build() -> Dict[str, Tuple[ObjectType, ...]]:
            out: Dict[str, List[ObjectType]] = {}
            for t in self.types.values():
                for n in dict.fromkeys((*t.links, *t.poly_links)):
                    out.setdefault(n, []).append(t)
            return {k: tuple(v) for k, v in out.items()}
        if not self.complete:
            return tuple(t for t in self.types.values() if name in t.links or name in t.poly_links)
        return self._index("pointers", build).get(name, ())  # type: ignore[attr-defined]

    def has_module(self, name: str) -> bool:
        """``name`` is the module of a type or an enum, or a module enclosing one
        (``a`` for ``a::b``): a module ``with module name`` can select."""
        def build() -> Set[str]:
            out: Set[str] = set()
            for x in (*self.types.values(), *self.enums.values()):
                parts = x.module.split("::")
                out.update("::".join(parts[:i]) for i in range(1, len(parts) + 1))
            return out
        return name in self._index("modules", build)  # type: ignore[operator]

    def descendant_keys(self) -> Dict[str, str]:
        """``{qualname: qualname}`` of the types with descendants (:attr:`descendants`), for
        :meth:`find`."""
        return self._index("descendant_keys", lambda: {k: k for k in self.descendants})  # type: ignore[return-value]

    def all_tables(self) -> List[ObjectType]:
        """Every table of this library: object types, then join tables (tables of dependency
        libraries are left out: their own library creates them)."""
        return [t for t in self.every_table() if t.library is None]

    def every_table(self) -> List[ObjectType]:
        """Every table this library's database has, its dependencies' included."""
        return list(self.types.values()) + list(self.join_tables)

    def find(self, name: str, module: str, table: Dict) -> Optional[object]:
        """Resolve ``name`` (``Job`` or ``mod::Job``) from ``module``: qualified names are
        looked up as written, bare names in ``module`` and then in ``default``. Inside a
        dependency library's module (``accounts``), names resolve in that library first."""
        for key in name_candidates(name, module, self.module_library):
            hit = table.get(key)
            if hit is not None:
                return hit
        return None

    def find_type(self, name: str, module: str = "default") -> Optional[ObjectType]:
        return self.find(name, module, self.types)  # type: ignore[return-value]

    def find_narrowed(self, name: str, module: str = "default") -> Optional[ObjectType]:
        """The type ``[is name]`` narrows a set of objects to: ``name``'s own, or, for an abstract
        type with one concrete descendant, that type (the objects of the abstract type are its
        objects, https://docs.geldata.com/reference/edgeql/paths#link-targets)."""
        found = self.find_type(name, module)
        if found is None:
            key = self.find(name, module, self._index("abstract_keys", lambda: {k: k for k in self.abstract_types}))
            subs = self.descendants.get(key, ()) if key is not None else ()  # type: ignore[arg-type]
            found = self.types.get(subs[0]) if len(subs) == 1 else None
        return found

    def find_enum(self, name: str, module: str = "default") -> Optional[EnumType]:
        return self.find(name, module, self.enums)  # type: ignore[return-value]

    def all_enums(self) -> List[EnumType]:
        return list(self.enums.values())

    def all_types(self) -> List[ObjectType]:
        return list(self.types.values())


# The frozen dataclasses above are created in bulk: give them the faster __init__.
fast_init_all(globals())


def backlink_link(source: ObjectType, name: str, subject: ObjectType) -> Optional[Link]:
    """The link ``name`` of ``source`` as a backlink ``.<name[is Source]`` from ``subject``
    reads it (https://docs.geldata.com/reference/datamodel/links#backlinks): a stored link to
    ``subject``'s table, or a polymorphic link (:class:`PolyLink`) one of whose concrete
    targets is ``subject``, seen as a link to ``subject`` alone (its ``subject`` column; a multi
    link's join table, whose ``target_id`` is the id of whichever target it holds). ``None``
    when ``source`` has no such link."""
    link = source.links.get(name)
    if link is not None:
        return link if link.target is subject else None
    poly = source.poly_links.get(name)
    if poly is None:
        return None
    column = next((c for t, c in poly.targets if t is subject), None)
    if column is None:
        return None
    if poly.multi:
        return Link(name, subject, True, poly.required, None, poly.join_table)
    return Link(name, subject, False, poly.required, column, None)


def abstract_view(pl: PolyLink) -> ObjectType:
    """The abstract target of a polymorphic link as queries read it: the properties all its
    concrete subtypes share (same name, type and ``required``), rows from a ``UNION ALL`` of
    their tables (``from_sql``); the computed properties they all inherit (declared in the
    abstract type: the same expression); no links or policies of its own."""
    return union_view(pl.abstract, [t for t, _ in pl.targets])


def union_view(abstract: str, subs: List[ObjectType]) -> ObjectType:
    """The objects of the concrete types ``subs`` of the abstract type ``abstract`` (qualified
    name) as one type (see :func:`abstract_view`)."""
    first = subs[0]
    common = []
    for c in first.columns:
        if c.link is not None or c.link_prop is not None:
            continue
        others = [t.column(c.name) for t in subs[1:]]
        if all(o is not None and o.link is None and o.type.family == c.type.family and o.required == c.required
               for o in others):
            common.append(c)
    cols = ", ".join(quote_name(c.name) for c in common)
    union = " UNION ALL ".join(f"SELECT {cols} FROM {quote_name(t.table)}" for t in subs)
    short = abstract.split("::")[-1]
    module = abstract.rsplit("::", 1)[0]
    computeds = {name: c for name, c in first.computeds.items()
                 if c.target is None and c.refused is None
                 and all(name in t.computeds and t.computeds[name].expr == c.expr for t in subs[1:])}
    return ObjectType(short, module, first.table, common, [], [], first.span, from_sql=f"({union})",
                      union_of=tuple((t.qualname, t.table) for t in subs), computeds=computeds)


def quote_name(name: str) -> str:
    """``"name"`` (a Postgres identifier, quotes doubled)."""
    return '"' + name.replace('"', '""') + '"'


def is_join_origin(origin: str) -> bool:
    """Whether an origin is a multi link's join table (``default::Post.tags``)."""
    return "." in origin.rsplit("::", 1)[-1]


def single_link_props(obj: "ObjectType", link: str) -> Optional["ObjectType"]:
    """The link properties of the single link ``link`` of ``obj`` as a link-property type, as a
    multi link's join table is one (https://docs.geldata.com/reference/datamodel/linkprops): a
    view of ``obj``'s table whose columns are the link's ``<link>@<prop>`` columns (a single link
    is at most one object, so its properties are stored in the source row, next to its FK
    column); ``None`` when the link has none. :func:`link_prop_named` finds one by name."""
    cols = [c for c in obj.columns if c.link_prop == link]
    if not cols:
        return None
    return ObjectType(f"{obj.name}.{link}", obj.module, obj.table, cols, [], [], obj.span,
                      join_of=(obj.qualname, link), library=obj.library)


def link_prop_named(join_type: "ObjectType", name: str) -> Optional[Column]:
    """Link property ``name`` of a link-property type: a multi link's join-table column, or a
    single link's ``<link>@<name>`` column (:func:`single_link_props`); never source_id/target_id."""
    if name in ("source_id", "target_id"):
        return None
    col = join_type.column(name)
    if col is None and join_type.join_of is not None:
        col = join_type.column(f"{join_type.join_of[1]}@{name}")
        col = col if col is not None and col.link_prop is not None else None
    return col


def link_prop_names(join_type: "ObjectType") -> List[str]:
    """The names of the link properties of a link-property type (see :func:`link_prop_named`)."""
    return [c.name.split("@", 1)[1] if c.link_prop is not None else c.name for c in join_type.columns
            if c.name not in ("source_id", "target_id")]
