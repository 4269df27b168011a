"""Type checking of expressions (defaults, constraint filters, query filters and assigned
values): :func:`check` turns an expression's syntax tree into a typed :mod:`schemac.semantics.qir`
expression (its type, whether it may be empty, every path resolved to its column or binding),
or ``None`` after reporting a diagnostic, so one pass finds every error. The SQL is written by
:mod:`schemac.semantics.lowering`; :func:`lower` does both, for callers that want the SQL at once (schema
defaults, constraints, indexes).

Values from the user (parameters) are always bound as ``$n``; only schema constants (enum
members, literals written in the schema or query text) are spelled into SQL.

Operators (Gel docs, https://docs.geldata.com/reference/stdlib): ``=`` ``<`` ``<=`` ``>``
``>=`` as in SQL; ``!=`` -> ``<>``; ``?=`` -> ``IS NOT DISTINCT FROM``; ``?!=`` ->
``IS DISTINCT FROM``; ``++`` -> ``||``; ``??`` -> ``COALESCE``; ``like``/``ilike`` as in SQL.
"""

from __future__ import annotations
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Set, Tuple
from schemac.semantics import computed_sql, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import Reporter, Span, did_you_mean
from schemac.frozen import fast_init_all
from schemac.semantics.lowering import Lowered, emit
from schemac.semantics.model import Column, Global, ObjectType, Schema, ValueType
from schemac.semantics.sqlnames import qi
from schemac.semantics.scalars import RANGE_ELEMENTS, SCALARS, lookup_scalar, range_kind, range_scalar
from schemac.semantics import gel_auth
from schemac.semantics.extensions import (GEL_SERVICES, POSTGIS_SCALARS, MAX_VECTOR_DIMS, PG_EXTENSIONS, VECTOR,
                                          extension_of, vector_scalar)
from schemac.semantics import e_funcs, e_literals, e_objects, e_ops, e_params, e_paths, e_types

#: The value type of each scalar, made once (value types are immutable and compare by value).
_SCALAR_TYPES: Dict[str, ValueType] = {}

#: Functions without arguments: name -> result type (their SQL: ``schemac.pgsql.calls.CALLS``).
FUNCTIONS = {
    "now": e_types.DATETIME,
    "datetime_current": e_types.DATETIME,
    "datetime_of_statement": e_types.DATETIME,
    "datetime_of_transaction": e_types.DATETIME,
}

_CMP = frozenset({"=", "!=", "<", "<=", ">", ">=", "?=", "?!=", "like", "ilike", "not like", "not ilike"})
_ARITH = frozenset({"+", "-", "*", "/", "%", "//"})
#: The binary operators :func:`_binop_step` lowers (the grammar reads all of EdgeQL's).
_LOWERED_BINOPS = frozenset({"and", "or", "++", "??"}) | _CMP | _ARITH

#: Date and time arithmetic, as Gel types it (https://docs.geldata.com/reference/stdlib/datetime):
#: (left family, operator, right family) -> result scalar; the call ``<op>/<left>/<right>``
#: (:mod:`schemac.pgsql.calls_ops` spells it).
_TEMPORAL = {}
for _op in ("+", "-"):
    for _d in ("duration", "relative_duration"):
        _TEMPORAL[("datetime", _op, _d)] = "datetime"
        _TEMPORAL[("local_datetime", _op, _d)] = "cal::local_datetime"
    _TEMPORAL[("local_datetime", _op, "date_duration")] = "cal::local_datetime"
    _TEMPORAL[("local_date", _op, "date_duration")] = "cal::local_date"
    _TEMPORAL[("local_time", _op, "duration")] = "cal::local_time"
    for _d, _name in (("duration", "duration"), ("relative_duration", "cal::relative_duration"),
                      ("date_duration", "cal::date_duration")):
        _TEMPORAL[(_d, _op, _d)] = _name
for _d in ("duration", "relative_duration"):
    _TEMPORAL[(_d, "+", "datetime")] = "datetime"
_TEMPORAL[("datetime", "-", "datetime")] = "duration"
_TEMPORAL[("local_datetime", "-", "local_datetime")] = "cal::relative_duration"
_TEMPORAL[("local_date", "-", "local_date")] = "cal::date_duration"


@dataclass
class ParamSpec:
    """A query parameter: bound as ``$index`` (1-based, order of first use). ``optional``
    parameters accept NULL (TS ``?: T | null``, Go pointer)."""

    name: str
    index: int
    type: ValueType
    optional: bool
    span: Span
    #: Set when NULL leaves a property unchanged (``p := $p ?? .p`` in an update): its name.
    unchanged: Optional[str] = None
    #: Set for the value of a global (``global name``): bound from the runner's globals
    #: context, not from the query's arguments. ``name`` is then ``global <qualname>``.
    global_: Optional[Global] = None
    #: A positional parameter (``$0``, https://docs.geldata.com/reference/edgeql/parameters): its
    #: position; ``name`` is then ``arg<position>`` (the runners' argument name).
    position: Optional[int] = None


@dataclass
class ParamTable:
    """Parameters of one query, in order of first use."""

    params: Dict[str, ParamSpec] = field(default_factory=dict)

    def ordered(self) -> List[ParamSpec]:
        return sorted(self.params.values(), key=lambda p: p.index)


@dataclass
class ExprContext:
    """What an expression can see: the subject type (for ``.prop`` paths), the schema, the
    module names resolve in, and the parameter table (``None`` where parameters are not
    allowed, e.g. in schema defaults and constraint filters)."""

    schema: Schema
    subject: Optional[ObjectType]
    module: str
    reporter: Reporter
    params: Optional[ParamTable] = None
    where: str = "expression"
    #: The column ``__subject__`` stands for (in a property's constraint).
    subject_column: Optional[Column] = None
    #: Current nesting depth of :func:`lower` (see :data:`MAX_EXPRESSION_DEPTH`).
    depth: int = 0
    #: Variables in scope (a ``for`` loop's element, ``with`` bindings): name -> its binding
    #: (:class:`schemac.semantics.qir.LoopVar` / :class:`schemac.semantics.qir.WithValue`).
    variables: Dict[str, qir.Node] = field(default_factory=dict)
    #: When set (a quoted table name or alias), columns are written ``"table".col``: needed
    #: where another row is in scope too (``ON CONFLICT ... DO UPDATE`` sees ``excluded``; a
    #: computed read inside a nested shape or a correlated sub-select).
    column_prefix: Optional[str] = None
    #: In the select over a write's rows (``select (insert ...) { ... }``): how those rows are
    #: named, the table's quoted name (they are ``"_new"``, every column, which the table does
    #: not hold yet); a path from a row so named reads the row's own link column
    #: (:attr:`schemac.semantics.qir.InPath.written_row`).
    written_row: Optional[str] = None
    #: Names bound to statements by ``with p := (insert ...)``: name -> what it is, e.g.
    #: "an insert of 'Post'" (they are selected, ``select p { ... }``, not used as values).
    bound_statements: Dict[str, str] = field(default_factory=dict)
    #: In a trigger's expression (a mutation rewrite): the records ``__subject__`` and
    #: ``__old__`` stand for (``NEW``, ``OLD``); a name missing here is not available.
    row_refs: Dict[str, str] = field(default_factory=dict)
    #: The type ``__new__`` / ``__old__`` / ``__subject__`` are objects of: the trigger's or the
    #: rewrite's type, also where ``subject`` is another one (a Gel trigger's update or delete of
    #: another type, a sub-select ``(select Log filter .msg = __new__.name)``: ``.msg`` is that
    #: type's, ``__new__.name`` the trigger's).
    row_ref_subject: Optional[ObjectType] = None
    #: In an update rewrite: ``__specified__.name`` -> the transaction-local setting its trigger
    #: sets (``None`` after reporting; see ``schemac.semantics.triggers``).
    specified: Optional[Callable[[str, Span], Optional[str]]] = None
    #: Names bound by ``with u := (select User filter ...)`` to a selection of a type's objects:
    #: name -> that expression (read by ``select u { ... }``, ``count(u)``, ``exists u``).
    type_sets: Dict[str, ast.Expr] = field(default_factory=dict)
    #: Inside a computed's sub-select: the object the computed belongs to and how its row is
    #: named in SQL; ``Type.prop`` of that type reads it (``link author := (select User filter
    #: .handle = Message.author_handle)``).
    outer: Optional[Tuple[ObjectType, str]] = None
    #: Inside ``(select detached T filter ...)``: ``T`` / ``T.x`` names :attr:`outer`, the
    #: enclosing query's object, not the detached set's (the subject).
    detached_subject: bool = False
    #: The qualified name of the type a statement over several tables was written for (``update
    #: User ...`` checked once per table of ``User``'s hierarchy, each with ``subject`` the
    #: table's type): ``User.name`` in it is the subject's own path, as in one table.
    subject_as: Optional[str] = None
    #: In a query's filter: the multi links its paths go through (``.tags.name``), name ->
    #: :class:`schemac.semantics.qir.SetLink` (see ``schemac.semantics.queries._where``); ``None`` elsewhere.
    set_links: Optional[Dict[str, qir.Node]] = None
    #: The subject and its row the ``set_links`` are joined to.
    set_row: Optional[Tuple[ObjectType, str]] = None
    #: In such a filter: the multi links (and computed backlinks) its paths read element by
    #: element, outside any aggregate; an aggregate of a path through one of them reads the
    #: linked object at hand (:func:`_bound_aggregate`).
    set_bound: FrozenSet[str] = frozenset()
    #: Writes bound by ``with p := (insert ...)``: name -> the write node (a link may be
    #: assigned it: ``author := p``).
    bound_writes: Dict[str, qir.Node] = field(default_factory=dict)
    #: While a write's values are checked: the inserts nested in them (:class:`schemac.semantics.qir.BoundWrite`).
    nested: Optional[List[qir.Node]] = None
    #: In a Gel trigger: the schema's :attr:`~schemac.semantics.model.Schema.trigger_globals`; a
    #: global read there is recorded in it and read from its transaction-local setting.
    trigger_globals: Optional[Dict[str, Global]] = None
    #: In a Gel trigger: ``<json>__new__ {**}`` -> the JSON of the row (``None`` after reporting).
    row_json: Optional[Callable[[ast.ShapeExpr], Optional[qir.Expr]]] = None
    #: In a query with ``with`` bindings: the ``tsquery`` of each full-text query its
    #: ``fts::search`` calls read (key: the query's span and language), each computed once in a
    #: ``with`` binding of its own (shared by a search's match and its score).
    fts_queries: Optional[Dict[object, qir.WithValue]] = None
    #: Names bound by ``with`` to a selection of objects, ``p := (select Player filter ...)``:
    #: name -> that expression, however the query reads it (a link's value reads the objects:
    #: ``author := p``, ``tags += p``).
    selections: Dict[str, ast.Expr] = field(default_factory=dict)
    #: In a shape over the rows a write returned: its single links assigned objects the same
    #: statement writes, name -> the CTE of that write (``None``: a link whose new objects the
    #: statement cannot read). A path through one reads its objects from the CTE.
    written_from: Dict[str, Optional[str]] = field(default_factory=dict)
    #: ``with`` selections with computed elements, ``m := (select Message { cmd := <expr> })``
    #: (in ``type_sets`` without them): name -> element name -> its expression.
    views: Dict[str, Dict[str, ast.Expr]] = field(default_factory=dict)
    #: A query's top-level ``with g := (group ...)`` (and ``c := (select g { n := ... })``)
    #: names: name -> (the group, the computed fields the bindings added to it); a free
    #: object's field ``(select g { ... })`` reads them.
    group_bindings: Dict[str, Tuple[ast.GroupExpr, Tuple[ast.ShapeElement, ...]]] = field(default_factory=dict)
    #: Those of them bound to ``(select g order by ...)``: name -> the order.
    group_orders: Dict[str, Tuple[ast.OrderItem, ...]] = field(default_factory=dict)
    #: A query's ``with s := (for x in <objects> union <values of x>)`` names: name -> the loop, a
    #: multiset of values (``schemac.semantics.queries._for_rows``), counted or grouped.
    row_sets: Dict[str, ast.Expr] = field(default_factory=dict)
    #: A query's ``with s := (for i in range_unpack(...) union (select { ... }))`` names and
    #: ``f := (select s order by ... limit 1)``: name -> the checked rows (``f.a`` reads a field).
    free_rows: Dict[str, qir.Node] = field(default_factory=dict)
    #: In the ``filter`` / ``order by`` of a multi link's nested shape: (the link's name, its
    #: join table, that table's alias in SQL); ``@prop`` reads the join row.
    link_row: Optional[Tuple[str, ObjectType, str]] = None
    #: In the ``filter`` / ``order by`` of a computed backlink's nested shape through a multi
    #: link (``followers: { ... } order by @since`` of ``followers := .<follows[is User]``): (the
    #: link's name, its join table, the alias of each linking object's row, the subject row's);
    #: ``@prop`` reads the join row of that object's link to the subject.
    backlink_row: Optional[Tuple[str, ObjectType, str, str]] = None
    #: In a query: how a filter over a type's objects is checked there
    #: (``schemac.semantics.queries._where``: paths through multi links are sets), for the
    #: filters of selections checked outside a query's own ``filter`` (``count(u)`` of ``with u :=
    #: (select T filter .tags.name = 'x')``); ``None`` elsewhere (a plain :func:`check`).
    query_filter: Optional[Callable[[ast.Expr, ObjectType, "ExprContext"], Optional[qir.Expr]]] = None
    #: In a query whose ``with`` binds groups (``group_bindings``): ``array_agg((select g.f))`` of
    #: them (``schemac.semantics.queries.group_field_array``), called by the standard library's
    #: ``array_agg``; ``None`` elsewhere.
    group_field_array: Optional[Callable[[str, str, Span, "ExprContext"], Optional[qir.Expr]]] = None
    #: No access policy applies here: inside a policy's own conditions (a policy never recurses)
    #: and in what a trigger runs in the database (``schemac.semantics.policies``).
    policies_off: bool = False


#: Modules of Gel's standard library that are services or catalogues of the Gel server
#: (https://docs.geldata.com/reference/stdlib): a type of one is E0206, not an unknown module.
GEL_STD_SERVICE_MODULES = {
    "net": "a service of the Gel server (HTTP requests it sends) that Postgres does not have",
    "net::http": "a service of the Gel server (HTTP requests it sends) that Postgres does not have",
    "sys": "the Gel server's own catalogue, which Postgres does not have",
    "cfg": "the Gel server's configuration, which Postgres does not have",
    "schema": "the Gel server's schema introspection, which Postgres does not have",
}


def assignment_cast(expr: ast.Expr, target: Optional[ValueType]) -> ast.Expr:
    """Gel's assignment cast from ``str`` to an enum (its standard library declares ``create
    cast from std::str to std::anyenum`` with ``allow assignment``;
    https://docs.geldata.com/reference/stdlib/enum): a string literal given to an enum property
    (a default, an insert or update) is the member of that name, ``<Status>'Pending'`` (an
    unknown name is E0203). Anything else is returned as it is."""
    if target is None or target.enum is None or target.element is not None:
        return expr
    if isinstance(expr, ast.Literal) and expr.kind == "str":
        return ast.Cast(ast.TypeRef(target.enum.qualname, (), expr.span), expr, expr.span)
    # The cast reaches the literals a value is made of: `'PUBLIC' if .public else 'PRIVATE'`,
    # `(select 'PUBLIC')`.
    if isinstance(expr, ast.IfElse):
        then, else_ = assignment_cast(expr.then, target), assignment_cast(expr.else_, target)
        if then is not expr.then or else_ is not expr.else_:
            return dataclasses.replace(expr, then=then, else_=else_)
    if isinstance(expr, ast.SelectExpr) and expr.shape is None and expr.filter is None and not expr.order \
            and expr.offset is None and expr.limit is None:
        subject = assignment_cast(expr.subject, target)
        if subject is not expr.subject:
            return dataclasses.replace(expr, subject=subject)
    return expr


def resolve_type_ref(ref: ast.TypeRef, ctx: ExprContext, allow_tuple: bool = False) -> Optional[ValueType]:
    """The value type named by ``ref`` (a scalar or an enum), or ``None`` after reporting.
    ``allow_tuple``: a tuple type (or an array of tuples) is accepted, as a property's type:
    see :func:`_tuple_type`; elsewhere (parameters, casts) it is E0206."""
    if ref.name.startswith("ext::"):
        return _ext_type(ref, ctx)
    if ref.name in ("array", "std::array"):
        if len(ref.args) != 1:
            ctx.reporter.error("E0201", "array takes exactly one element type: array<T>", ref.span)
            return None
        elem = resolve_type_ref(ref.args[0], ctx, allow_tuple)
        if elem is None:
            return None
        if elem.element is not None:
            ctx.reporter.error("E0206", "arrays of arrays are not supported", ref.span)
            return None
        if elem.family == "vector":
            ctx.reporter.error("E0206", "arrays of vectors are not supported", ref.span,
                               "use a multi link to a type holding one vector each")
            return None
        if range_kind(elem.scalar):
            ctx.reporter.error("E0206", f"arrays of {elem.name} are not supported", ref.span,
                               "use a multirange for a set of ranges")
            return None
        return ValueType(element=elem)
    if ref.name in ("range", "std::range", "multirange", "std::multirange"):
        return _range_type(ref, ctx)
    if ref.args:
        if ref.name in ("tuple", "std::tuple") and allow_tuple:
            return _tuple_type(ref, ctx)
        if ref.name in ("tuple", "std::tuple"):
            # https://docs.geldata.com/reference/stdlib/tuple: stored as a property (a composite
            # type), not yet a parameter's or a cast's type.
            ctx.reporter.error("E0206", f"tuple types ('{ref}') are only supported as a property's type yet", ref.span,
                               "pass each element as a parameter of its own")
            return None
        ctx.reporter.error("E0206", f"parameterised type '{ref}' is not supported yet", ref.span)
        return None
    scalar = lookup_scalar(ref.name)
    if scalar is not None:
        vtype = _SCALAR_TYPES.get(scalar.name)
        if vtype is None or vtype.scalar is not scalar:
            vtype = _SCALAR_TYPES[scalar.name] = ValueType(scalar=scalar)
        return vtype
    enum = ctx.schema.find_enum(ref.name, ctx.module)
    if enum is not None:
        return ValueType(enum=enum)
    custom = ctx.schema.find(ref.name, ctx.module, ctx.schema.scalars)
    if custom is not None:
        return custom.base  # type: ignore[attr-defined]
    module = ref.name.rsplit("::", 1)[0] if "::" in ref.name else None
    if module in ("cal", "std::cal"):
        ctx.reporter.error("E0201", f"unknown type '{ref.name}'", ref.span,
                           did_you_mean(ref.name.split("::", 1)[1] if module == "std::cal" else ref.name,
                                        [n for n in SCALARS if n.startswith("cal::")]))
        return None
    gel_module = (module or "")[5:] if (module or "").startswith("std::") else module
    if gel_module in GEL_STD_SERVICE_MODULES and module not in ctx.schema.modules:
        ctx.reporter.error("E0206", f"'{ref.name}' belongs to Gel's '{gel_module}' module, "
                           f"{GEL_STD_SERVICE_MODULES[gel_module]}", ref.span)
        return None
    if module is not None and module != "std" and module not in ctx.schema.modules:
        ctx.reporter.error("E0208", f"unknown module '{module}'", ref.span,
                           did_you_mean(module, [m for m in ctx.schema.modules]))
        return None
    candidates = (list(SCALARS) + [e.name for e in ctx.schema.all_enums()] + [c.name for c in ctx.schema.scalars.values()]
                  + [t.name for t in ctx.schema.all_types()])
    if ctx.schema.find_type(ref.name, ctx.module) is not None:
        ctx.reporter.error("E0201", f"'{ref.name}' is an object type, not a scalar or enum", ref.span,
                           "links to object types are not supported yet; use a uuid property")
    else:
        ctx.reporter.error("E0201", f"unknown type '{ref.name}'", ref.span,
                           did_you_mean(ref.name.rsplit("::", 1)[-1], candidates))
    return None


def _tuple_type(ref: ast.TypeRef, ctx: ExprContext) -> Optional[ValueType]:
    """``tuple<decimal, decimal>`` / ``tuple<x: str, y: int64>`` as a property's type
    (https://docs.geldata.com/reference/stdlib/tuple): a Postgres composite type per distinct
    tuple type (:attr:`schemac.semantics.model.ValueType.composite`), created before the tables
    by the migrations; its elements are scalars, enums, arrays or tuples. Either every element
    is named or none is, as in Gel."""
    fields = []
    for arg in ref.args:
        t = resolve_type_ref(dataclasses.replace(arg, label=None), ctx, True)
        if t is None:
            return None
        if t.family == "vector" or range_kind(t.scalar):
            ctx.reporter.error("E0206", f"a tuple of {t.name} is not supported", arg.span)
            return None
        fields.append((arg.label, t))
    if not fields:
        ctx.reporter.error("E0201", "a tuple type has at least one element: tuple<T, ...>", ref.span)
        return None
    named = [n is not None for n, _ in fields]
    if any(named) and not all(named):
        ctx.reporter.error("E0201", "either every element of a tuple type is named or none is", ref.span)
        return None
    names = [n for n, _ in fields if n is not None]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        ctx.reporter.error("E0200", f"the tuple type names '{dup}' twice", ref.span)
        return None
    return ValueType(fields=tuple(fields))


def _range_type(ref: ast.TypeRef, ctx: ExprContext) -> Optional[ValueType]:
    """``range<T>`` / ``multirange<T>`` (https://docs.geldata.com/reference/stdlib/range) for
    the element types Postgres has a range type of (:data:`schemac.semantics.scalars.RANGE_ELEMENTS`)."""
    multi = ref.name.endswith("multirange")
    if len(ref.args) != 1:
        ctx.reporter.error("E0201", f"{ref.name} takes exactly one element type: {ref.name}<T>", ref.span)
        return None
    elem = resolve_type_ref(ref.args[0], ctx)
    if elem is None:
        return None
    name = elem.scalar.name if elem.scalar is not None and elem.element is None else None
    if name not in RANGE_ELEMENTS:
        hint = ("Postgres has no range of floating-point numbers: use range<decimal>"
                if name in ("float32", "float64") else
                "ranges are of int32, int64, decimal, datetime, cal::local_datetime or cal::local_date")
        ctx.reporter.error("E0206", f"'{ref}' is not supported", ref.span, hint)
        return None
    return ValueType(scalar=range_scalar(name, multi))  # type: ignore[arg-type]


def ext_needs(name: str, span, ctx: ExprContext) -> bool:
    """Whether ``name`` (``ext::pgvector::vector``, ``ext::pg_trgm::similarity``) may be used:
    its extension is declared and lowers to Postgres. Otherwise reports a located error:
    a Gel server service (E0206: Postgres has no such thing), an extension not declared
    (E0201, with the ``using extension`` line to add), or an unknown extension."""
    ext = extension_of(name)
    if ext == "auth":
        return _auth_needs(name, span, ctx)
    if ext in GEL_SERVICES and ext not in ctx.schema.extensions:
        ctx.reporter.error("E0201", f"'{name}' needs the {ext} extension", span,
                           f"add 'using extension {ext};' to a schema file")
        return False
    if ext in GEL_SERVICES:
        ctx.reporter.error("E0206", f"'{name}' belongs to Gel's '{ext}' extension, a service of the Gel server that "
                           "Postgres does not have", span, _SERVICE_HINTS.get(ext, f"see {GEL_SERVICES[ext].doc}"))
        return False
    if ext is None or ext not in PG_EXTENSIONS:
        ctx.reporter.error("E0201", f"unknown extension module in '{name}'", span,
                           did_you_mean(ext or name, list(PG_EXTENSIONS)))
        return False
    if ext not in ctx.schema.extensions:
        ctx.reporter.error("E0201", f"'{name}' needs the {ext} extension", span,
                           f"add 'using extension {ext};' to a schema file")
        return False
    return True


def _auth_needs(name: str, span, ctx: ExprContext) -> bool:
    """A name of ``ext::auth`` that is not part of the schema (the data model's types and the
    global ``ClientTokenIdentity`` are, see :mod:`schemac.semantics.gel_auth`): the extension is not
    declared (E0201), the name belongs to its service (E0206), or a type the schema does not
    name is used by a query (E0201)."""
    if "auth" not in ctx.schema.extensions:
        ctx.reporter.error("E0201", f"'{name}' needs the auth extension", span,
                           "add 'using extension auth;' to a schema file")
        return False
    refused = gel_auth.refusal(name)
    if refused is not None:
        ctx.reporter.error("E0206", refused[0], span, refused[1])
        return False
    short = name.split("::")[-1]
    if short in gel_auth.data_model_names():
        ctx.reporter.error("E0201", f"'{name}' is not in this schema", span,
                           "schemac creates the ext::auth types a schema file names: name it there "
                           "(e.g. in a link)")
        return False
    ctx.reporter.error("E0206", f"'{name}' belongs to the service of Gel's 'auth' extension, which Postgres "
                       "does not have", span, "schemac creates the tables of its data model (ext::auth::Identity, "
                       "...), not its functions (https://docs.geldata.com/reference/auth)")
    return False


#: What to do instead of a Gel server service's types (shown with the E0206).
_SERVICE_HINTS = {
    "ai": "compute embeddings in the application and store them in an ext::pgvector::vector property "
          "with an ext::pgvector index",
}


def _ext_type(ref: ast.TypeRef, ctx: ExprContext) -> Optional[ValueType]:
    """A type of an extension module: ``ext::pgvector::vector<N>`` (``vector`` without ``<N>``,
    as in a parameter cast), or a located error."""
    if not ext_needs(ref.name, ref.span, ctx):
        return None
    postgis = POSTGIS_SCALARS.get(ref.name)
    if postgis is not None and not ref.args:
        return ValueType(scalar=postgis)
    if ref.name != VECTOR:
        ctx.reporter.error("E0201", f"unknown type '{ref.name}'", ref.span,
                           did_you_mean(ref.name, [VECTOR] + list(POSTGIS_SCALARS)))
        return None
    if not ref.args:
        return ValueType(scalar=vector_scalar(None))
    arg = ref.args[0]
    if len(ref.args) != 1 or not arg.name.isdigit() or not 1 <= int(arg.name) <= MAX_VECTOR_DIMS:
        ctx.reporter.error("E0201", f"'{ref}': a vector takes one dimension count, 1 to {MAX_VECTOR_DIMS}", ref.span,
                           f"write e.g. {VECTOR}<1536>")
        return None
    return ValueType(scalar=vector_scalar(int(arg.name)))


#: Deepest nesting :func:`check` accepts (parentheses, unary operators, right operands; chains
#: of a left-associative operator do not nest, see :func:`_binop`). Deeper input is reported as
#: E0103 instead of exhausting Python's stack.
MAX_EXPRESSION_DEPTH = 150


def lower(expr: ast.Expr, ctx: ExprContext, expected: Optional[ValueType] = None,
          allow_optional_param: bool = False) -> Optional[Lowered]:
    """Type-check ``expr`` (:func:`check`) and lower it to SQL (:func:`schemac.semantics.lowering.emit`).
    Returns ``None`` after reporting diagnostics to ``ctx.reporter``."""
    node = check(expr, ctx, expected, allow_optional_param)
    return None if node is None else emit(node)


def check(expr: ast.Expr, ctx: ExprContext, expected: Optional[ValueType] = None,
          allow_optional_param: bool = False) -> Optional[qir.Expr]:
    """Type-check ``expr``: its typed IR (:mod:`schemac.semantics.qir`).

    ``expected`` types untyped parameters (``$name``) and enum members; ``allow_optional_param``
    lets an untyped parameter be optional (it is assigned to an optional property). Returns
    ``None`` after reporting diagnostics to ``ctx.reporter``; an expression nested deeper than
    :data:`MAX_EXPRESSION_DEPTH` is reported as ``E0103`` at its location."""
    if ctx.depth >= MAX_EXPRESSION_DEPTH:
        ctx.reporter.error("E0103", f"expression nested more than {MAX_EXPRESSION_DEPTH} levels deep", expr.span,
                           "split long chains of operators, e.g. use 'in {...}' instead of many 'or'")
        return None
    ctx.depth += 1
    try:
        return _check(expr, ctx, expected, allow_optional_param)
    finally:
        ctx.depth -= 1


def check_filter(filt: ast.Expr, scope: "ExprContext") -> Optional[qir.Expr]:
    """A ``filter`` clause checked in ``scope`` (its subject): the bool condition, or ``None``
    after reporting (an error in it, or E0304 when it is not a bool)."""
    cond = check(filt, scope, e_types.BOOL)
    if cond is None:
        return None
    if cond.type.family != "bool":
        scope.reporter.error("E0304", f"a filter must be bool, got {cond.type.name}", filt.span)
        return None
    return cond


def is_param(node: qir.Expr) -> bool:
    """True for a parameter (Postgres cannot always type it from its context)."""
    return type(node) is qir.ParamRef


def column_of(node: qir.Expr) -> Optional[Column]:
    """The column a path reads (``.prop``, ``.link``, ``__subject__``), else ``None``."""
    t = type(node)
    return node.column if t is qir.ColumnRef or t is qir.SubjectRef else None  # type: ignore[attr-defined]


def _check(expr: ast.Expr, ctx: ExprContext, expected: Optional[ValueType],
           allow_optional_param: bool) -> Optional[qir.Expr]:
    """One handler per syntax node class (:data:`_CHECKS`, as Gel's compiler dispatches one per
    form); a form no handler lowers is refused with E0206, naming it."""
    handler = _CHECKS.get(type(expr))
    if handler is not None:
        low = handler(expr, ctx, expected, allow_optional_param)
        if low is not _UNLOWERED:
            return low
    what = _UNLOWERED_EXPRESSIONS.get(type(expr))
    if what is None:
        raise AssertionError(f"unhandled expression {expr!r}")  # pragma: no cover - grammar bound
    ctx.reporter.error("E0206", f"{what} are not supported in {ctx.where} yet", expr.span)
    return None


#: A handler's answer for a node of its class in a form it does not lower (refused with E0206).
_UNLOWERED: Any = object()


def _check_call(expr: ast.FuncCall, ctx: ExprContext, expected, allow_optional_param) -> Optional[qir.Expr]:
    """A function call: an aggregate of the set a bound statement reads, or any call."""
    if ctx.set_bound and ctx.set_links is not None and ctx.subject is not None \
            and ctx.set_row == (ctx.subject, ctx.column_prefix or qi(ctx.subject.table)):
        bound = e_paths._bound_aggregate(expr, ctx)
        if bound is not None:
            return bound or None
    return e_funcs._func(expr, ctx)


def _check_set(expr: ast.SetLit, ctx: ExprContext, expected, allow_optional_param) -> Optional[qir.Expr]:
    if not expr.items and expected is not None:
        # `{}` where the context gives its type (the other branch of `x if c else {}`, the other
        # operand of `x ?? {}`): the empty set of that type
        # (https://docs.geldata.com/reference/edgeql/sets#empty-set).
        return qir.Call(expr.span, expected, True, "empty", ())
    ctx.reporter.error("E0206", "a set literal {...} is only supported after 'in' and as <T>{} (the empty set) yet",
                       expr.span)
    return None


def _check_tuple(expr, ctx: ExprContext, expected, allow_optional_param) -> Optional[qir.Expr]:
    if isinstance(expr, ast.Tuple_) and not expr.items:
        # (Gel's empty tuple is [] in JSON; a tuple of no elements is not lowered:
        # geldata/gel tests/test_edgeql_expressions.py test_edgeql_expr_tuple_08)
        ctx.reporter.error("E0206", "the empty tuple '()' is not supported yet", expr.span)
        return None
    if expected is not None and expected.fields:
        return e_paths._tuple_lit(expr, ctx, expected)
    return e_paths._free_tuple(expr, ctx)


def _check_name(expr: ast.VarRef, ctx: ExprContext, expected, allow_optional_param) -> Optional[qir.Expr]:
    """A bare name: a ``with`` or loop variable, a ``with`` name bound to a set, an alias, a
    trigger's ``__new__``/``__old__``."""
    var = ctx.variables.get(expr.name)
    if var is None:
        return _check_unbound_name(expr, ctx, expected)
    if isinstance(var, qir.LoopVar) and var.elements is not None:
        ctx.reporter.error("E0206", f"'{expr.name}' is a {var.type.name}: it is read by its elements only "
                           f"({expr.name}.0, {expr.name}.1)", expr.span)
        return None
    if isinstance(var, qir.LoopVar):
        return qir.VarRef(expr.span, var.type, False, expr.name, var)
    if isinstance(var, qir.SetAlias):
        ctx.reporter.error("E0206", f"'{expr.name}' is a set of values: only count({expr.name}) and exists "
                           f"{expr.name} are supported", expr.span)
        return None
    value = var.value  # type: ignore[attr-defined]
    return qir.VarRef(expr.span, value.type, value.nullable, expr.name, var)


def _check_unbound_name(expr: ast.VarRef, ctx: ExprContext, expected) -> Optional[qir.Expr]:
    """A bare name that is no variable: a bound statement, a ``for`` loop's set, a ``with`` name
    bound to a set, an alias, ``__new__``/``__old__``, or unknown."""
    if expr.name in ctx.bound_statements:
        ctx.reporter.error("E0206", f"'{expr.name}' is {ctx.bound_statements[expr.name]}: using a bound statement "
                           "as a value is not supported yet", expr.span,
                           f"select its rows: select {expr.name} {{ ... }}")
        return None
    if expr.name in ctx.row_sets:
        ctx.reporter.error("E0206", f"'{expr.name}' is a set of a 'for' loop over objects: reading it other "
                           "than by count(), sum(), min(), max() or group is not supported yet", expr.span,
                           f"count({expr.name}), or group {expr.name} using k := ... by k")
        return None
    if expr.name in ctx.type_sets:
        # a `with` name read as a value: its expression, where it is used
        return check(ctx.type_sets[expr.name], ctx, expected)
    alias = ctx.schema.find(expr.name, ctx.module, ctx.schema.functions)
    if alias is not None and alias.alias:  # type: ignore[attr-defined]
        from schemac.semantics import functions

        return functions.call(expr, alias, ctx, expected)  # type: ignore[arg-type]
    if expr.name in ("__new__", "__old__") and ctx.row_refs:
        # `__new__` in a trigger (https://docs.geldata.com/reference/datamodel/triggers): the
        # triggering object, its id (`not __new__ in __new__.blocked`).
        record = ctx.row_refs.get(expr.name)
        if record is None:
            ctx.reporter.error("E0206", f"{expr.name} is not available in {ctx.where}", expr.span)
            return None
        return check(ast.Path(("id",), expr.span),
                     dataclasses.replace(ctx, column_prefix=record, subject=ctx.row_ref_subject or ctx.subject))
    ctx.reporter.error("E0302", f"unknown name '{expr.name}'", expr.span,
                       did_you_mean(expr.name, list(ctx.variables)) or
                       "properties are written with a leading dot: .name")
    return None


def _check_link_prop(expr: ast.LinkPropRef, ctx: ExprContext, expected, allow_optional_param):
    """``@name``: of the link row in scope, or of the back link row."""
    if ctx.link_row is not None:
        return e_objects._link_row_prop(expr, ctx)
    if ctx.backlink_row is not None:
        return e_objects._backlink_row_prop(expr, ctx)
    return _UNLOWERED


def _refuse(code: str, message: str, hint: Optional[str] = None):
    """A handler refusing every node of its class with ``message`` (``{name}``: the node's)."""
    def handler(expr, ctx: ExprContext, expected, allow_optional_param) -> None:
        fields = {"name": getattr(expr, "name", None), "link": getattr(expr, "link", None)}
        if hint is None:
            ctx.reporter.error(code, message.format(**fields), expr.span)
        else:
            ctx.reporter.error(code, message.format(**fields), expr.span, hint.format(**fields))
        return None
    return handler


def _check_subselect(expr: ast.SubSelect, ctx: ExprContext, expected, allow_optional_param):
    if ctx.params is not None:
        return computed_sql.subselect_value(expr, False, ctx)
    ctx.reporter.error("E0206", "a sub-select is only supported as the value of a link in insert/update",
                       expr.span, "write e.g. author := (select User filter .id = $author_id)")
    return None


def _check_step(expr: ast.Step, ctx: ExprContext, expected, allow_optional_param):
    """A path step after an expression: ``@prop`` of a link, an element of a loop variable or a
    tuple, a step of a trigger's row, of a ``with`` object, of a pinned path, of an object path."""
    if expr.kind != ".":
        return _check_link_prop_step(expr, ctx)
    if isinstance(expr.base, ast.VarRef) and isinstance(ctx.variables.get(expr.base.name), qir.LoopVar) \
            and ctx.variables[expr.base.name].elements is not None:  # type: ignore[union-attr]
        return e_paths._loop_element(expr, ctx.variables[expr.base.name], ctx)  # type: ignore[arg-type]
    if e_objects._row_ref_root(expr) == "__subject__" \
            and ctx.subject_column is not None and "__subject__" not in ctx.row_refs:
        # `constraint expression on (__subject__.current < __subject__.total)` of a tuple property:
        # an element of the property's value (https://docs.geldata.com/reference/datamodel/constraints)
        base = check(expr.base, ctx)
        return None if base is None else e_paths._tuple_element(base, expr.name, expr.span, ctx)
    if e_objects._row_ref_root(expr) is not None:
        return e_objects._row_ref(expr, ctx)
    if isinstance(expr.base, ast.Backlink) \
            and ctx.set_links is not None and ctx.set_row is not None and ctx.subject is not None \
            and ctx.set_row == (ctx.subject, ctx.column_prefix or qi(ctx.subject.table)):
        return e_paths._set_backlink(expr, ctx)
    if e_objects._var_object_steps(expr, ctx) is not None:
        name, steps = e_objects._var_object_steps(expr, ctx)  # type: ignore[misc]
        return e_objects._var_object_path(name, steps, expr.span, ctx)
    if e_objects._pinned_path_steps(expr, ctx) is not None:
        root, steps = e_objects._pinned_path_steps(expr, ctx)  # type: ignore[misc]
        return e_objects._pinned_set_path(root, steps, expr.span, ctx)
    if e_objects._object_path_base(expr, ctx) is not None:
        return e_objects._object_path(expr, ctx)
    if expr.name.isdigit() or isinstance(expr.base, ast.Index) or e_paths._tuple_syntax(expr.base):
        # `.points[0].1`, `(.pos).x`, `(a := 1, b := 'x').b`: an element of a tuple value
        base = check(expr.base, ctx)
        if base is None:
            return None
        if base.type.fields:
            return e_paths._tuple_element(base, expr.name, expr.span, ctx)
    return _UNLOWERED


def _check_link_prop_step(expr: ast.Step, ctx: ExprContext):
    """``.link@prop``: of a single link, of a multi link (of the bound set's row, or its values);
    ``@`` and ``.<`` steps of a trigger's row."""
    if not (expr.kind == "@" and isinstance(expr.base, ast.Path) and len(expr.base.steps) == 1 and ctx.subject is not None
            and expr.base.steps[0] in ctx.subject.links):
        if e_objects._row_ref_root(expr) is not None:
            return e_objects._row_ref(expr, ctx)
        return _UNLOWERED
    if not ctx.subject.links[expr.base.steps[0]].multi:
        return e_paths._single_link_prop(expr, ctx)
    if ctx.set_links is not None and ctx.set_row is not None and ctx.set_row[0] is ctx.subject:
        return e_paths._set_link_prop(expr, ctx)
    return e_paths._link_prop_values(expr, ctx)


def _check_type_check(expr: ast.TypeCheck, ctx: ExprContext, expected, allow_optional_param):
    found = e_paths._subject_type_check(expr, ctx)
    return _UNLOWERED if found is None else found


def _check_table() -> Dict[type, Callable[..., Any]]:
    """:data:`_CHECKS` (its handlers read the sibling modules when called, not when loaded)."""
    return {
        ast.Literal: lambda e, ctx, expected, opt: e_literals._literal(e, ctx, expected),
        ast.EnumRef: lambda e, ctx, expected, opt: e_literals._enum_ref(e, ctx),
        ast.Path: lambda e, ctx, expected, opt: e_paths._path(e, ctx),
        ast.Param: lambda e, ctx, expected, opt: e_params._param(e, ctx, expected, opt),
        ast.FuncCall: _check_call,
        ast.UnaryOp: lambda e, ctx, expected, opt: e_ops._unary(e, ctx),
        ast.BinOp: lambda e, ctx, expected, opt: (e_ops._in(e, ctx) if e.op in ("in", "not in")
                                                  else e_ops._binop(e, ctx)),
        ast.Cast: lambda e, ctx, expected, opt: e_ops._cast(e, ctx, opt),
        ast.SetLit: _check_set,
        ast.Tuple_: _check_tuple,
        ast.NamedTuple: _check_tuple,
        ast.Index: lambda e, ctx, expected, opt: e_literals._index(e, ctx),
        ast.ArrayLit: lambda e, ctx, expected, opt: e_literals._array_lit(e, ctx, expected),
        ast.VarRef: _check_name,
        ast.GlobalRef: lambda e, ctx, expected, opt: e_objects._global(e, ctx),
        ast.LinkPropRef: _check_link_prop,
        ast.Backlink: _refuse("E0206", "'.<{link}' is a set of objects: count it, test it with exists, or "
                              "select it in a shape", "e.g. count(.<{link}) or exists .<{link}"),
        ast.NamedArg: _refuse("E0304", "named argument '{name}' is not accepted here",
                              "pass the arguments of this function by position"),
        ast.Introspect: _refuse("E0206", "'introspect' is only supported as the argument of sequence_next() and "
                                "sequence_reset()"),
        ast.SubSelect: _check_subselect,
        ast.IfElse: lambda e, ctx, expected, opt: _if_else(e, ctx, expected),
        ast.SelectExpr: lambda e, ctx, expected, opt: e_objects._select_expr(e, ctx, expected),
        ast.WithExpr: lambda e, ctx, expected, opt: _with_expr(e, ctx, expected),
        ast.Step: _check_step,
        ast.TypeCheck: _check_type_check,
    }


#: The handler of each syntax node class: ``(expr, ctx, expected, allow_optional_param)`` to its
#: IR, None (refused, reported) or :data:`_UNLOWERED`.
_CHECKS = _check_table()


#: Expressions the grammar reads (all of EdgeQL's that schemas use:
#: https://docs.geldata.com/reference/edgeql) that are not lowered to SQL here yet, by what the
#: E0206 calls them.
_UNLOWERED_EXPRESSIONS = {
    ast.Step: "path steps after an expression",
    ast.LinkPropRef: "link property references ('@name')",
    ast.TypeFilter: "type filters ('[is Type]')",
    ast.Slice: "slices ('[a:b]')",
    ast.IfElse: "conditional expressions ('if ... else')",
    ast.TypeCheck: "type checks ('is Type')",
    ast.NamedArg: "named function arguments ('name := value')",
    ast.NamedTuple: "named tuples",
    ast.SelectExpr: "sub-queries ('(select ...)')",
    ast.WithExpr: "'with' blocks inside an expression",
    ast.GroupExpr: "'group' expressions",
    ast.ForExpr: "'for' loops inside an expression",
    ast.StatementExpr: "statements inside an expression",
    ast.ShapeExpr: "shapes on an expression ('expr { ... }')",
    ast.FreeObject: "free objects ('{ a := ... }') inside an expression",
}


def _if_else(expr: ast.IfElse, ctx: ExprContext, expected: Optional[ValueType]) -> Optional[qir.Expr]:
    """``a if cond else b`` (https://docs.geldata.com/reference/edgeql/expressions): ``a`` where
    ``cond`` is true, ``b`` where it is false, and empty where ``cond`` is empty (Gel's
    operators over an empty set give an empty set): ``CASE (cond) WHEN true ... WHEN false ...
    END``, NULL otherwise. A parameter is cast wherever it stands, the condition too: node-postgres
    and pgx send untyped parameters, and Postgres types a bare ``CASE ($1)`` as text."""
    cond = check(expr.cond, ctx, e_types.BOOL)
    if _is_empty_literal(expr.then) and expected is None:
        # `{} if c else x`: the empty set takes the type of the other branch
        else_ = check(expr.else_, ctx, expected)
        then = check(expr.then, ctx, else_.type if else_ is not None else None)
    else:
        then = check(expr.then, ctx, expected)
        else_ = check(expr.else_, ctx, expected or (then.type if then is not None else None))
    if cond is None or then is None or else_ is None:
        return None
    if cond.type.family != "bool":
        ctx.reporter.error("E0304", f"the condition of 'if ... else' must be bool, got {cond.type.name}", expr.cond.span)
        return None
    if then.type.family != else_.type.family:
        ctx.reporter.error("E0304", f"the branches of 'if ... else' are {then.type.name} and {else_.type.name}",
                           expr.span, "give both branches the same type, e.g. with a cast <T>")
        return None
    # (never empty when neither the condition nor a branch may be: Gel's cardinality of
    # 'a if c else b' is one when all three are one, https://docs.geldata.com/reference/edgeql/cardinality)
    nullable = cond.nullable or then.nullable or else_.nullable
    return qir.Call(expr.span, then.type, nullable, "if_else", (cond, then, else_))


def _is_empty_literal(expr) -> bool:
    return isinstance(expr, ast.SetLit) and not expr.items


#: Functions returning a set of values, which a ``with`` binding inside an expression may name
#: to count it or test it (https://docs.geldata.com/reference/stdlib/string#function::std::re_match_all).
_SET_FUNCTIONS = ("re_match_all", "std::re_match_all")


def _with_expr(expr: ast.WithExpr, ctx: ExprContext, expected: Optional[ValueType]) -> Optional[qir.Expr]:
    """``(with a := <expr>, ... select <expr>)`` inside an expression
    (https://docs.geldata.com/reference/edgeql/with): each binding is checked in the scope of
    the ``with`` (a path in it reads the object the expression is evaluated for) and written
    where it is read; ``with m := re_match_all(...)`` names a set, which is only counted or
    tested. The body is ``select <expr>`` (or ``(select T filter ...)``)."""
    scope = with_scope(expr, ctx)
    if scope is None:
        return None
    if not isinstance(expr.body, ast.Expr.__args__):  # type: ignore[attr-defined]
        body = expr.body.query if isinstance(expr.body, ast.StatementExpr) else expr.body
        kind = {ast.InsertQuery: "an insert", ast.UpdateQuery: "an update", ast.DeleteQuery: "a delete",
                ast.ForQuery: "a 'for' loop"}.get(type(body), "a statement")  # type: ignore[arg-type]
        if isinstance(body, ast.InsertQuery) and body.unless_conflict is not None:
            kind = "an insert ... unless conflict"
        ctx.reporter.error("E0206", f"a 'with' block whose body is {kind} (a statement used as a value) inside "
                           f"{ctx.where} is not supported yet", expr.span,
                           "bind the statement in the query's own 'with' block: with p := (insert ...) ...")
        return None
    return check(expr.body, scope, expected)  # type: ignore[arg-type]


def with_scope(expr: ast.WithExpr, ctx: ExprContext) -> Optional[ExprContext]:
    """The scope of the body of ``(with a := ..., ... <body>)`` inside an expression: ``ctx``
    with each binding as a variable (see :func:`_with_expr`); ``None`` after reporting."""
    variables = dict(ctx.variables)
    type_sets = dict(ctx.type_sets)
    scope = ctx
    for b in expr.bindings:
        value = b.value
        if b.name == "module" and isinstance(value, ast.VarRef) and b.name_span == value.span \
                and b.span != value.span:
            # `(with module material select Material ...)` (https://docs.geldata.com/reference/edgeql/with#module-selection):
            # bare names resolve in that module first, then in default
            if not ctx.schema.has_module(value.name):
                ctx.reporter.error("E0301", f"unknown module '{value.name}'", value.span)
                return None
            scope = dataclasses.replace(scope, module=value.name)
            continue
        if not isinstance(value, ast.Expr.__args__):  # type: ignore[attr-defined]
            ctx.reporter.error("E0206", f"a statement bound in a 'with' inside {ctx.where} is not supported yet", b.span)
            return None
        type_sets.pop(b.name, None)
        reader = e_objects._set_reading(b.name, type_sets, expr.bindings[expr.bindings.index(b) + 1:], expr.body)
        if reader is not None:
            # (a set is read where it is used: its names must still be the ones it was bound with)
            ctx.reporter.error("E0206", f"binding '{b.name}' again where the set '{reader}', which reads it, is in "
                               "scope is not supported yet", b.name_span, "give the inner binding another name")
            return None
        if isinstance(value, ast.FuncCall) and value.name in _SET_FUNCTIONS:
            variables[b.name] = qir.SetAlias(b.name, value, scope)
        elif ctx.params is not None and e_objects._several_objects(value, scope):
            # `owned := (select detached Waifu filter .owner = player)`: a set of objects, read
            # where it is used (`count(owned)`, `exists owned`), as a query's `with` selection
            variables.pop(b.name, None)
            type_sets[b.name] = value
        else:
            # (qualified: the name may be read inside a sub-select of another row)
            prefix = scope.column_prefix or (computed_sql.subject_ref(scope) if scope.subject is not None else None)
            low = check(value, dataclasses.replace(scope, column_prefix=prefix))
            if low is None:
                return None
            variables[b.name] = qir.WithValue(b.name, low, True)
        scope = dataclasses.replace(scope, variables=dict(variables), type_sets=dict(type_sets))
    return scope


def _names_in(node, out: Set[str]) -> Set[str]:
    """The names ``node`` refers to (``x``, ``(select x ...)``), however deep."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, tuple):
            stack.extend(n)
        elif dataclasses.is_dataclass(n) and not isinstance(n, (Span, type, ast.TypeRef)):
            if isinstance(n, ast.VarRef):
                out.add(n.name)
            elif isinstance(n, ast.SubSelect):
                out.add(n.type_name)
            stack.extend(getattr(n, f.name) for f in dataclasses.fields(n))
    return out


fast_init_all(globals())
