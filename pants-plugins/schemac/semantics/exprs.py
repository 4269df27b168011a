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
import re
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple

from schemac.semantics import computed_sql, fts, qir
from schemac.syntax import tree as ast
from schemac.diagnostics import Reporter, Span, did_you_mean
from schemac.frozen import fast_init_all
from schemac.semantics.lowering import Lowered, emit, tuple_nullable_leaves
from schemac.semantics.model import (Column, Global, Link, ObjectType, Schema, ValueType, abstract_view,
                                     link_prop_named, link_prop_names, single_link_props)
from schemac.semantics.sqlnames import qi, quote_ident, sql_string, template_text
from schemac.semantics.scalars import (ISO_DATETIME, RANGE_ELEMENTS, SCALARS, Scalar, lookup_scalar, range_kind,
                                      range_scalar)
from schemac.semantics import gel_auth, stdfuncs
from schemac.semantics.extensions import (EXT_FUNCTION_OPTIONAL_LAST, EXT_FUNCTIONS, GEL_SERVICES,
                                          POSTGIS_FUNCTIONS, POSTGIS_SCALARS,
                                          MAX_VECTOR_DIMS, PG_EXTENSIONS, VECTOR, extension_of, vector_scalar)

BOOL = ValueType(scalar=SCALARS["bool"])
STR = ValueType(scalar=SCALARS["str"])
INT64 = ValueType(scalar=SCALARS["int64"])
FLOAT64 = ValueType(scalar=SCALARS["float64"])
FLOAT32 = ValueType(scalar=SCALARS["float32"])
#: A Postgres ``tsquery`` (:class:`schemac.semantics.qir.FtsQuery`): no Gel value has this type,
#: and no query returns it.
TSQUERY = ValueType(scalar=Scalar("fts::query", "tsquery", "never", "never", "", "", "", "fts::query", ""))
#: The weights a search ranks with (:class:`schemac.semantics.qir.FtsWeights`).
REAL_ARRAY = ValueType(element=FLOAT32)
DATETIME = ValueType(scalar=SCALARS["datetime"])
LOCAL_DATE = ValueType(scalar=SCALARS["cal::local_date"])
VECTOR_PARAM = ValueType(scalar=vector_scalar(None))
_UUID = ValueType(scalar=SCALARS["uuid"])

#: The value type of each scalar, made once (value types are immutable and compare by value).
_SCALAR_TYPES: Dict[str, ValueType] = {}

#: Functions without arguments: name -> result type (their SQL: ``schemac.pgsql.calls.CALLS``).
FUNCTIONS = {
    "now": DATETIME,
    "datetime_current": DATETIME,
    "datetime_of_statement": DATETIME,
    "datetime_of_transaction": DATETIME,
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
    cond = check(filt, scope, BOOL)
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
    if isinstance(expr, ast.Literal):
        return _literal(expr, ctx, expected)
    if isinstance(expr, ast.EnumRef):
        return _enum_ref(expr, ctx)
    if isinstance(expr, ast.Path):
        return _path(expr, ctx)
    if isinstance(expr, ast.Param):
        return _param(expr, ctx, expected, allow_optional_param)
    if isinstance(expr, ast.FuncCall):
        if ctx.set_bound and ctx.set_links is not None and ctx.subject is not None \
                and ctx.set_row == (ctx.subject, ctx.column_prefix or qi(ctx.subject.table)):
            bound = _bound_aggregate(expr, ctx)
            if bound is not None:
                return bound or None
        return _func(expr, ctx)
    if isinstance(expr, ast.UnaryOp):
        return _unary(expr, ctx)
    if isinstance(expr, ast.BinOp):
        if expr.op in ("in", "not in"):
            return _in(expr, ctx)
        return _binop(expr, ctx)
    if isinstance(expr, ast.Cast):
        return _cast(expr, ctx, allow_optional_param)
    if isinstance(expr, ast.SetLit) and not expr.items and expected is not None:
        # `{}` where the context gives its type (the other branch of `x if c else {}`, the other
        # operand of `x ?? {}`): the empty set of that type
        # (https://docs.geldata.com/reference/edgeql/sets#empty-set).
        return qir.Call(expr.span, expected, True, "empty", ())
    if isinstance(expr, ast.SetLit):
        ctx.reporter.error("E0206", "a set literal {...} is only supported after 'in' and as <T>{} (the empty set) yet",
                           expr.span)
        return None
    if isinstance(expr, ast.Tuple_) and not expr.items:
        # (Gel's empty tuple is [] in JSON; a tuple of no elements is not lowered:
        # geldata/gel tests/test_edgeql_expressions.py test_edgeql_expr_tuple_08)
        ctx.reporter.error("E0206", "the empty tuple '()' is not supported yet", expr.span)
        return None
    if isinstance(expr, (ast.Tuple_, ast.NamedTuple)) and expected is not None and expected.fields:
        return _tuple_lit(expr, ctx, expected)
    if isinstance(expr, (ast.Tuple_, ast.NamedTuple)):
        return _free_tuple(expr, ctx)
    if isinstance(expr, ast.Index):
        return _index(expr, ctx)
    if isinstance(expr, ast.ArrayLit):
        return _array_lit(expr, ctx, expected)
    if isinstance(expr, ast.VarRef):
        var = ctx.variables.get(expr.name)
        if var is None and expr.name in ctx.bound_statements:
            ctx.reporter.error("E0206", f"'{expr.name}' is {ctx.bound_statements[expr.name]}: using a bound statement "
                               "as a value is not supported yet", expr.span,
                               f"select its rows: select {expr.name} {{ ... }}")
            return None
        if var is None and expr.name in ctx.row_sets:
            ctx.reporter.error("E0206", f"'{expr.name}' is a set of a 'for' loop over objects: reading it other "
                               "than by count(), sum(), min(), max() or group is not supported yet", expr.span,
                               f"count({expr.name}), or group {expr.name} using k := ... by k")
            return None
        if var is None and expr.name in ctx.type_sets:
            # a `with` name read as a value: its expression, where it is used
            return check(ctx.type_sets[expr.name], ctx, expected)
        if var is None:
            alias = ctx.schema.find(expr.name, ctx.module, ctx.schema.functions)
            if alias is not None and alias.alias:  # type: ignore[attr-defined]
                from schemac.semantics import functions

                return functions.call(expr, alias, ctx, expected)  # type: ignore[arg-type]
        if var is None and expr.name in ("__new__", "__old__") and ctx.row_refs:
            # `__new__` in a trigger (https://docs.geldata.com/reference/datamodel/triggers): the
            # triggering object, its id (`not __new__ in __new__.blocked`).
            record = ctx.row_refs.get(expr.name)
            if record is None:
                ctx.reporter.error("E0206", f"{expr.name} is not available in {ctx.where}", expr.span)
                return None
            return check(ast.Path(("id",), expr.span),
                         dataclasses.replace(ctx, column_prefix=record, subject=ctx.row_ref_subject or ctx.subject))
        if var is None:
            ctx.reporter.error("E0302", f"unknown name '{expr.name}'", expr.span,
                               did_you_mean(expr.name, list(ctx.variables)) or
                               "properties are written with a leading dot: .name")
            return None
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
    if isinstance(expr, ast.GlobalRef):
        return _global(expr, ctx)
    if isinstance(expr, ast.LinkPropRef) and ctx.link_row is not None:
        return _link_row_prop(expr, ctx)
    if isinstance(expr, ast.LinkPropRef) and ctx.backlink_row is not None:
        return _backlink_row_prop(expr, ctx)
    if isinstance(expr, ast.Backlink):
        ctx.reporter.error("E0206", f"'.<{expr.link}' is a set of objects: count it, test it with exists, or select "
                           "it in a shape", expr.span, f"e.g. count(.<{expr.link}) or exists .<{expr.link}")
        return None
    if isinstance(expr, ast.NamedArg):
        ctx.reporter.error("E0304", f"named argument '{expr.name}' is not accepted here", expr.span,
                           "pass the arguments of this function by position")
        return None
    if isinstance(expr, ast.Introspect):
        ctx.reporter.error("E0206", "'introspect' is only supported as the argument of sequence_next() and "
                           "sequence_reset()", expr.span)
        return None
    if isinstance(expr, ast.SubSelect) and ctx.params is not None:
        return computed_sql.subselect_value(expr, False, ctx)
    if isinstance(expr, ast.SubSelect):
        ctx.reporter.error("E0206", "a sub-select is only supported as the value of a link in insert/update",
                           expr.span, "write e.g. author := (select User filter .id = $author_id)")
        return None
    if isinstance(expr, ast.IfElse):
        return _if_else(expr, ctx, expected)
    if isinstance(expr, ast.SelectExpr):
        return _select_expr(expr, ctx, expected)
    if isinstance(expr, ast.WithExpr):
        return _with_expr(expr, ctx, expected)
    if isinstance(expr, ast.Step) and expr.kind == "." and isinstance(expr.base, ast.VarRef) \
            and isinstance(ctx.variables.get(expr.base.name), qir.LoopVar) \
            and ctx.variables[expr.base.name].elements is not None:  # type: ignore[union-attr]
        return _loop_element(expr, ctx.variables[expr.base.name], ctx)  # type: ignore[arg-type]
    if isinstance(expr, ast.Step) and expr.kind == "@" and isinstance(expr.base, ast.Path) \
            and len(expr.base.steps) == 1 and ctx.subject is not None and expr.base.steps[0] in ctx.subject.links \
            and not ctx.subject.links[expr.base.steps[0]].multi:
        return _single_link_prop(expr, ctx)
    if isinstance(expr, ast.Step) and expr.kind == "@" and isinstance(expr.base, ast.Path) \
            and len(expr.base.steps) == 1 and ctx.subject is not None and expr.base.steps[0] in ctx.subject.links \
            and ctx.subject.links[expr.base.steps[0]].multi:
        if ctx.set_links is not None and ctx.set_row is not None and ctx.set_row[0] is ctx.subject:
            return _set_link_prop(expr, ctx)
        return _link_prop_values(expr, ctx)
    if isinstance(expr, ast.Step) and expr.kind == "." and _row_ref_root(expr) == "__subject__" \
            and ctx.subject_column is not None and "__subject__" not in ctx.row_refs:
        # `constraint expression on (__subject__.current < __subject__.total)` of a tuple property:
        # an element of the property's value (https://docs.geldata.com/reference/datamodel/constraints)
        base = check(expr.base, ctx)
        return None if base is None else _tuple_element(base, expr.name, expr.span, ctx)
    if isinstance(expr, ast.Step) and _row_ref_root(expr) is not None:
        return _row_ref(expr, ctx)
    if isinstance(expr, ast.Step) and expr.kind == "." and isinstance(expr.base, ast.Backlink) \
            and ctx.set_links is not None and ctx.set_row is not None and ctx.subject is not None \
            and ctx.set_row == (ctx.subject, ctx.column_prefix or qi(ctx.subject.table)):
        return _set_backlink(expr, ctx)
    if isinstance(expr, ast.Step) and expr.kind == "." and _var_object_steps(expr, ctx) is not None:
        name, steps = _var_object_steps(expr, ctx)  # type: ignore[misc]
        return _var_object_path(name, steps, expr.span, ctx)
    if isinstance(expr, ast.Step) and expr.kind == "." and _pinned_path_steps(expr, ctx) is not None:
        root, steps = _pinned_path_steps(expr, ctx)  # type: ignore[misc]
        return _pinned_set_path(root, steps, expr.span, ctx)
    if isinstance(expr, ast.Step) and expr.kind == "." and _object_path_base(expr, ctx) is not None:
        return _object_path(expr, ctx)
    if isinstance(expr, ast.Step) and expr.kind == "." and (expr.name.isdigit() or isinstance(expr.base, ast.Index)
                                                              or _tuple_syntax(expr.base)):
        # `.points[0].1`, `(.pos).x`, `(a := 1, b := 'x').b`: an element of a tuple value
        base = check(expr.base, ctx)
        if base is None:
            return None
        if base.type.fields:
            return _tuple_element(base, expr.name, expr.span, ctx)
    if isinstance(expr, ast.TypeCheck):
        found = _subject_type_check(expr, ctx)
        if found is not None:
            return found
    what = _UNLOWERED_EXPRESSIONS.get(type(expr))
    if what is None:
        raise AssertionError(f"unhandled expression {expr!r}")  # pragma: no cover - grammar bound
    ctx.reporter.error("E0206", f"{what} are not supported in {ctx.where} yet", expr.span)
    return None


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
    cond = check(expr.cond, ctx, BOOL)
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
        reader = _set_reading(b.name, type_sets, expr.bindings[expr.bindings.index(b) + 1:], expr.body)
        if reader is not None:
            # (a set is read where it is used: its names must still be the ones it was bound with)
            ctx.reporter.error("E0206", f"binding '{b.name}' again where the set '{reader}', which reads it, is in "
                               "scope is not supported yet", b.name_span, "give the inner binding another name")
            return None
        if isinstance(value, ast.FuncCall) and value.name in _SET_FUNCTIONS:
            variables[b.name] = qir.SetAlias(b.name, value, scope)
        elif ctx.params is not None and _several_objects(value, scope):
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


def _set_reading(name: str, type_sets: Dict[str, object], bindings, body) -> Optional[str]:
    """A set of ``type_sets`` that reads ``name`` (itself or through another set) and that the
    rest of a ``with`` (``bindings``, ``body``) reads, which ``name`` bound again there would
    change; ``None`` when there is none."""
    readers = {n for n, v in type_sets.items() if name in _names_in(v, set())}
    grew = True
    while grew:
        more = {n for n, v in type_sets.items() if n not in readers and _names_in(v, set()) & readers}
        grew = bool(more)
        readers |= more
    used = _names_in((tuple(b.value for b in bindings), body), set())
    return next((n for n in sorted(readers) if n in used), None)


def _several_objects(value, ctx: ExprContext) -> bool:
    """``value`` selects objects of a type that its filter does not pin to one, ``(select
    detached T filter ...)``; a type other than the subject's may be written without
    ``detached`` (the subject's own type names the object at hand in Gel,
    https://docs.geldata.com/reference/edgeql/paths#detached)."""
    sel = computed_sql.as_subselect(value)
    if sel is None:
        return False
    subject = value.subject if isinstance(value, ast.SelectExpr) else None
    target = ctx.schema.find_type(sel.type_name, ctx.module)
    if target is None or sel.type_name in ctx.variables or sel.type_name in ctx.type_sets:
        return False
    detached = isinstance(subject, ast.VarRef) and subject.detached
    if not detached and ctx.subject is not None and (target is ctx.subject or target.table == ctx.subject.table):
        return False
    return not computed_sql.filter_pins_one(sel.filter, target)


def _set_function(expr: ast.FuncCall, ctx: ExprContext, exists: bool) -> Optional[qir.Expr]:
    """``count(re_match_all(pattern, s))`` / ``exists re_match_all(...)``: the number of matches
    of a regular expression in ``s`` (Gel's regular expressions are Postgres': 0 and false when
    ``s`` is empty) -> ``(SELECT count(*) FROM regexp_matches(s, pattern, 'g'))``."""
    if len(expr.args) != 2:
        ctx.reporter.error("E0304", "re_match_all() takes a pattern and a string", expr.span)
        return None
    args = []
    for a in expr.args:
        low = check(a, ctx, STR)
        if low is None:
            return None
        if low.type.family != "str" or low.type.element is not None:
            ctx.reporter.error("E0304", f"re_match_all() needs str arguments, got {low.type.name}", a.span)
            return None
        args.append(low)
    if exists:
        return qir.Call(expr.span, BOOL, False, "re_match_all/exists", tuple(args))
    return qir.Call(expr.span, INT64, False, "re_match_all/count", tuple(args))


def _set_operand(expr, ctx: ExprContext):
    """``(syntax, scope)`` of a set of values named by a ``with`` (``count(m)``) or written in
    place (``count(re_match_all(...))``); ``None`` otherwise."""
    if isinstance(expr, ast.VarRef) and isinstance(ctx.variables.get(expr.name), qir.SetAlias):
        alias = ctx.variables[expr.name]
        return alias.expr, alias.scope  # type: ignore[attr-defined]
    if isinstance(expr, ast.FuncCall) and expr.name in _SET_FUNCTIONS:
        return expr, ctx
    return None


def _select_expr(expr: ast.SelectExpr, ctx: ExprContext, expected: Optional[ValueType]) -> Optional[qir.Expr]:
    """A sub-query used as a value (https://docs.geldata.com/reference/edgeql/select):
    ``(select User { name } filter .email = ...)`` is the id of its one object, as ``(select
    User filter ...)`` (a shape only chooses what a query outputs); ``(select <expr>)`` without
    a filter, order or limit is ``<expr>`` (``(select min(.posts.date))``)."""
    sub = computed_sql.as_subselect(expr)
    if sub is not None and ctx.params is not None:
        return computed_sql.subselect_value(sub, False, ctx)
    if ctx.params is not None and computed_sql.limited_subselect(expr) is not None:
        before = len(ctx.reporter.diagnostics)
        found = computed_sql.limited_value(expr, ctx)
        if found is not None or len(ctx.reporter.diagnostics) != before:
            return found
    if expr.shape is None and expr.filter is None and not expr.order and expr.offset is None \
            and expr.limit is None and not isinstance(expr.subject, ast.Backlink) \
            and not (isinstance(expr.subject, ast.VarRef) and expr.subject.name not in ctx.variables):
        return check(expr.subject, ctx, expected)
    what = ("sub-queries with 'order by', 'offset' or 'limit'" if expr.order or expr.offset or expr.limit
            else "sub-queries ('(select ...)') of a set of objects")
    ctx.reporter.error("E0206", f"{what} are not supported as a value in {ctx.where} yet", expr.span,
                       "a computed link may be (select .<link[is T] filter ...) or (select .link filter ...); "
                       "count it or test it with exists")
    return None


def _object_path_base(expr: ast.Step, ctx: ExprContext):
    """``(base, steps)`` of ``assert_single(.part).message.chat.owner``: path steps after an
    expression that is a set of objects of the subject (a backlink, a computed link, a path
    through links, ``(select <set> filter ...)``, also in ``assert_single(...)``); ``None`` for
    any other base."""
    steps: List[str] = []
    node: ast.Expr = expr
    while isinstance(node, ast.Step) and node.kind == ".":
        steps.insert(0, node.name)
        node = node.base
    if ctx.subject is None:
        return None
    inner = computed_sql._asserted_single(node)  # (private to the module pair)
    probe = inner if inner is not None else node
    if isinstance(probe, ast.Backlink) or computed_sql.is_set_expr(probe) \
            or computed_sql.link_set_of(probe, ctx) is not None:
        return node, tuple(steps)
    return None


def _object_path(expr: ast.Step, ctx: ExprContext) -> Optional[qir.Expr]:
    """``assert_single(.part).message.chat.owner`` (https://docs.geldata.com/reference/edgeql/paths):
    a path read from each object of a set; when the set holds at most one object (a single
    computed link, or ``assert_single(...)``), the path's value of that object:
    ``(SELECT <path> FROM <the objects>)``, empty when there is none and, like Gel's
    ``assert_single``, a failed statement when there are several (SQLSTATE 21000, a scalar
    sub-select of two rows). Each object is one the target's access policies let the query
    see."""
    base, steps = _object_path_base(expr, ctx)  # type: ignore[misc]
    objects = computed_sql.expr_object_set(base, ctx, qi(f"_p{ctx.depth}"), base.span)
    if objects is None:
        return None
    if objects.multi:
        ctx.reporter.error("E0206", f"'.{'.'.join(steps)}' after a set of {objects.source.name} objects is a set of "
                           f"values; only a path after one object is supported in {ctx.where}", expr.span,
                           "wrap the set in assert_single(...) when it holds one object")
        return None
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                variables={}, bound_statements={}, set_links=None, set_row=None)
    value = check(ast.Path(steps, expr.span), inner)
    if value is None:
        return None
    return qir.ObjectValue(expr.span, value.type, True, objects, value)


def _var_object(name: str, ctx: ExprContext) -> Optional[ObjectType]:
    """The type of the one object a ``with`` name is bound to (``e := assert_exists(assert_single((select
    Event filter .name = $n)))``, computed once), else ``None``."""
    var = ctx.variables.get(name)
    if type(var) is not qir.WithValue:
        return None
    value = var.value  # type: ignore[attr-defined]
    while type(value) is qir.Call and value.func == "assert_exists":  # type: ignore[attr-defined]
        value = value.args[0]  # type: ignore[attr-defined]
    if type(value) is qir.ObjectId or (type(value) is qir.ObjectRow and value.value is None):  # type: ignore[attr-defined]
        return value.target  # type: ignore[attr-defined]
    return None


def _var_object_steps(expr: ast.Step, ctx: ExprContext) -> Optional[Tuple[str, Tuple[str, ...]]]:
    """``(name, steps)`` of ``e.host.name`` when ``e`` is a ``with`` name bound to one object."""
    steps: List[str] = []
    node: ast.Expr = expr
    while isinstance(node, ast.Step) and node.kind == ".":
        steps.insert(0, node.name)
        node = node.base
    if isinstance(node, ast.EnumRef) and _var_object(node.enum, ctx) is not None:
        return node.enum, (node.member, *steps)
    return None


def _var_object_path(name: str, steps: Tuple[str, ...], span: Span, ctx: ExprContext) -> Optional[qir.Expr]:
    """``e.name`` / ``e.host.name`` of a ``with`` name bound to one object
    (https://docs.geldata.com/reference/edgeql/with, .../edgeql/paths): the path read from that
    object's row, ``(SELECT <path> FROM "event" AS "_v0" WHERE "_v0"."id" = <e>)``; empty when
    the name is (or a link on the way is)."""
    from schemac.semantics import policies

    var = ctx.variables[name]
    target = _var_object(name, ctx)
    assert target is not None
    alias = qi(f"_v{ctx.depth}")
    inner = dataclasses.replace(ctx, subject=target, column_prefix=alias, subject_column=None, variables={},
                                bound_statements={}, set_links=None, set_row=None, written_from={})
    value = check(ast.Path(steps, span), inner)
    if value is None:
        return None
    id_col = target.column("id")
    assert id_col is not None
    ref = var.value  # type: ignore[attr-defined]
    cond = qir.Binary(span, BOOL, False, "=", qir.ColumnRef(span, id_col.type, False, id_col, target, None, alias),
                      qir.VarRef(span, ref.type, ref.nullable, name, var))
    return qir.ObjectRow(span, value.type, ref.nullable or value.nullable, target, alias, value, cond,
                         policies.read_predicate(target, ctx, alias))


def _pinned_path_steps(expr: ast.Step, ctx: ExprContext) -> Optional[Tuple[ast.VarRef, Tuple[str, ...]]]:
    """``(name, steps)`` of ``player.user.discord_id``: a path from a ``with`` selection whose
    filter pins one object (``player := (select Player filter <pins one>)``, read as a set
    elsewhere: ``exists player``); ``None`` for any other."""
    steps: List[str] = []
    node: ast.Expr = expr
    while isinstance(node, ast.Step) and node.kind == ".":
        steps.insert(0, node.name)
        node = node.base
    if not isinstance(node, ast.EnumRef) or not _pinned_selection(node.enum, ctx):
        return None
    return ast.VarRef(node.enum, node.span), (node.member, *steps)


def _link_row_prop(expr: ast.LinkPropRef, ctx: ExprContext) -> Optional[qir.Expr]:
    """``@added`` in ``medias: { ... } order by @added`` (or a ``filter``): the link property of
    the link to each object, read from its join row
    (https://docs.geldata.com/reference/datamodel/linkprops#querying-link-properties)."""
    link_name, join_type, join_alias = ctx.link_row  # type: ignore[misc]
    col = link_prop_column(link_name, join_type, expr.name, expr.span, ctx.reporter)
    if col is None:
        return None
    return qir.ColumnRef(expr.span, col.type, not col.required, col, join_type, None, join_alias)


def _backlink_row_prop(expr: ast.LinkPropRef, ctx: ExprContext) -> Optional[qir.Expr]:
    """``@since`` in ``followers: { ... } order by @since`` of a computed backlink through a
    multi link (``followers := .<follows[is User]``): the link property of each follower's
    link to the object (a backlink's objects carry the properties of the links that reach
    them, https://docs.geldata.com/reference/datamodel/linkprops), read from its one join row
    (a join table holds each source and target pair once)."""
    link_name, join_type, row, subject_row = ctx.backlink_row  # type: ignore[misc]
    col = link_prop_column(link_name, join_type, expr.name, expr.span, ctx.reporter)
    if col is None:
        return None
    return qir.BacklinkProp(expr.span, col.type, not col.required, col, join_type.table, f"_bj{ctx.depth}", row,
                            subject_row)


def link_prop_column(link_name: str, join_type, name: str, span, reporter):
    """The column of link property ``@name`` in the link table ``join_type`` of ``link_name``, or
    None after a located E0302 naming the link's properties (its source_id/target_id are not ones)."""
    col = link_prop_named(join_type, name)
    if col is None:
        props = link_prop_names(join_type)
        reporter.error("E0302", f"link '{link_name}' has no property '{name}'", span,
                       did_you_mean(name, props) or
                       (f"its link properties: {', '.join(props)}" if props else
                        f"'{link_name}' declares no link properties"))
        return None
    return col


def _pinned_selection(name: str, ctx: ExprContext) -> bool:
    """The ``with`` name ``name`` is a selection (read as a set) whose filter pins at most one
    object (``player := (select Player filter .client = global client and .user.discord_id = d)``)."""
    if name in ctx.variables:
        return False
    sel = ctx.type_sets.get(name)
    sub = computed_sql.as_subselect(sel) if sel is not None else None
    target = ctx.schema.find_type(sub.type_name, ctx.module) if sub is not None else None
    return target is not None and computed_sql.filter_pins_one(sub.filter, target)  # type: ignore[union-attr]


def _pinned_set_path(root: ast.VarRef, steps: Tuple[str, ...], span: Span, ctx: ExprContext) -> Optional[qir.Expr]:
    """``player.game_mode`` of a :func:`_pinned_selection` (https://docs.geldata.com/reference/edgeql/paths):
    the path's value of its object, ``(SELECT <path> FROM <its table> WHERE <the selection's
    filter> AND <its access policies>)``, empty when it holds none."""
    objects = computed_sql.query_set(root, ctx, qi(f"_p{ctx.depth}"))
    if objects is None:
        return None
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                variables={}, bound_statements={}, set_links=None, set_row=None, type_sets={},
                                selections={}, written_from={})
    value = check(ast.Path(steps, span), inner)
    if value is None:
        return None
    return qir.ObjectValue(span, value.type, True, objects, value)


_ROW_REFS = ("__subject__", "__old__", "__new__", "__specified__")


def _row_ref_root(expr: ast.Step) -> Optional[str]:
    """The special name a path ``__old__.a.b`` starts from (``__subject__``, ``__old__``,
    ``__specified__``), or ``None``."""
    node: ast.Expr = expr
    while isinstance(node, ast.Step) and node.kind == ".":
        node = node.base
    if isinstance(node, ast.Path) and node.steps == ("__subject__",):
        return "__subject__"
    if isinstance(node, ast.VarRef) and node.name in _ROW_REFS:
        return node.name
    return None


def _row_ref(expr: ast.Step, ctx: ExprContext) -> Optional[qir.Expr]:
    """``__subject__.name`` / ``__old__.name`` (the row a mutation writes, as written / as it
    was) and ``__specified__.name`` (whether the mutation gave ``name``) in a mutation rewrite
    (https://docs.geldata.com/reference/datamodel/mutation_rewrites). The path after the row
    reads as a path from the subject (``__old__.author.id``)."""
    root = _row_ref_root(expr)
    steps: List[str] = []
    node: ast.Expr = expr
    while isinstance(node, ast.Step):
        steps.append(node.name)
        node = node.base
    steps.reverse()
    if root == "__specified__":
        if ctx.specified is None:
            ctx.reporter.error("E0206", f"__specified__ is not supported in {ctx.where}", expr.span,
                               "it is known in update rewrites only (Postgres does not tell an insert's "
                               "trigger which columns the statement named)")
            return None
        if len(steps) != 1:
            ctx.reporter.error("E0304", "__specified__ is a tuple of booleans: __specified__.name", expr.span)
            return None
        setting = ctx.specified(steps[0], expr.span)
        if setting is None:
            return None
        return qir.Call(expr.span, BOOL, False, "specified", (), (setting,))
    record = ctx.row_refs.get(root)  # type: ignore[arg-type]
    if record is None:
        ctx.reporter.error("E0206", f"{root} is not available in {ctx.where}", expr.span,
                           "__old__ is the object before an update: use it in update rewrites"
                           if root == "__old__" else None)
        return None
    return check(ast.Path(tuple(steps), expr.span),
                 dataclasses.replace(ctx, column_prefix=record, subject=ctx.row_ref_subject or ctx.subject))


def _global(expr: ast.GlobalRef, ctx: ExprContext) -> Optional[qir.Expr]:
    """``global name`` (https://docs.geldata.com/reference/datamodel/globals): a parameter bound
    from the runner's globals context (once per query, however often it is read), ``COALESCE``d
    with its default when it has one; a computed global is its expression, inlined (an object
    global is the id of its object: ``(SELECT "id" FROM t WHERE ...)``)."""
    g: Optional[Global] = ctx.schema.find(expr.name, ctx.module, ctx.schema.globals)  # type: ignore[assignment]
    if g is None and extension_of(expr.name) is not None:
        ext_needs(expr.name, expr.span, ctx)  # (an extension's global: reports why it is not there)
        return None
    if g is None and ctx.schema.find(expr.name, ctx.module, ctx.schema.refused_globals) is not None:
        return None  # its declaration was refused, and reported
    if g is None:
        ctx.reporter.error("E0302", f"unknown global '{expr.name}'", expr.span,
                           did_you_mean(expr.name.split("::")[-1], [x.name for x in ctx.schema.globals.values()]))
        return None
    if ctx.params is None and ctx.trigger_globals is None:
        ctx.reporter.error("E0206", f"globals cannot be read in {ctx.where}", expr.span,
                           "a global is a value of one request: read it in queries, computeds and access policies")
        return None
    if g.computed is not None:
        inner = dataclasses.replace(ctx, subject=None, module=g.module, subject_column=None, variables={},
                                    column_prefix=None, bound_statements={})
        computed = computed_sql.single_subselect(g.computed)[0] or g.computed
        if isinstance(computed, ast.SubSelect):
            assert g.target is not None
            inner.subject = g.target
            cond = check_filter(computed.filter, inner)
            if cond is None:
                return None
            from schemac.semantics import policies

            visible = policies.read_predicate(g.target, inner)
            if expr.steps and expr.steps != ("id",):
                # `global current_user.name`: a property of the global's object.
                alias = qi(f"_g{ctx.depth}")
                scope = dataclasses.replace(inner, column_prefix=alias)
                prop = check(ast.Path(expr.steps, expr.span), scope)
                if prop is None:
                    return None
                cond = check(computed.filter, scope, BOOL)
                visible = policies.read_predicate(g.target, scope, alias)
                return qir.ObjectRow(expr.span, prop.type, True, g.target, alias, prop, cond, visible)  # type: ignore[arg-type]
            return qir.ObjectId(expr.span, _UUID, True, g.target, cond, visible)
        if expr.steps:
            ctx.reporter.error("E0206", f"'.{'.'.join(expr.steps)}' of global '{expr.name}': only a global holding an "
                               "object has properties", expr.span)
            return None
        return check(computed, inner)  # type: ignore[arg-type]
    if expr.steps:
        ctx.reporter.error("E0304", f"global '{expr.name}' is a {g.type.name if g.type else 'value'}: it has no "
                           f"'.{expr.steps[0]}'", expr.span)
        return None
    assert g.type is not None
    if ctx.params is None and ctx.trigger_globals is not None:
        # In a trigger: the value the write statement that set it off handed over (every
        # generated write sets it, see schemac.semantics.queries.plan_query), empty when the
        # writer gave none (a writer other than the runners, or a global left unset).
        ctx.trigger_globals[g.qualname] = g
        return qir.TriggerGlobal(expr.span, g.type, g.default_sql is None, g)
    key = f"global {g.qualname}"
    spec = ctx.params.params.get(key)
    if spec is None:
        spec = ParamSpec(key, len(ctx.params.params) + 1, g.type, not g.must_be_set, expr.span, global_=g)
        ctx.params.params[key] = spec
    if g.default_sql is not None:
        return qir.GlobalDefault(expr.span, g.type, False, spec, g.default_sql)
    return qir.ParamRef(expr.span, g.type, not g.required, spec)


def _array_lit(expr: ast.ArrayLit, ctx: ExprContext, expected: Optional[ValueType]) -> Optional[qir.Expr]:
    """``[a, b, c]`` (https://docs.geldata.com/reference/stdlib/array): ``ARRAY[a, b, c]``. The
    elements meet at one type as Gel's implicit casts allow (``[1, 2.5]`` is ``array<float64>``);
    an array of arrays is not a Gel type. An element that is empty makes the array empty (Gel
    builds an array from each combination of its elements' values, so none when one has none).
    ``[]`` takes its type from where it is used (``<array<str>>[]``, a typed parameter's
    default)."""
    want = expected.element if expected is not None and expected.element is not None else None
    if not expr.items:
        if want is None:
            ctx.reporter.error("E0304", "the type of an empty array literal is unknown here", expr.span,
                               "cast it: <array<str>>[]")
            return None
        return qir.Call(expr.span, ValueType(element=want), False, "array", ())
    items: List[qir.Expr] = []
    for item in expr.items:
        low = check(item, ctx, want)
        if low is None:
            return None
        if low.type.element is not None:
            ctx.reporter.error("E0304", "an array of arrays is not a Gel type", item.span,
                               "nest a tuple or a json value instead")
            return None
        items.append(low)
    elem = items[0].type
    for low, item in zip(items[1:], expr.items[1:]):
        if low.type.family != elem.family:
            ctx.reporter.error("E0304", f"the elements of an array literal are {elem.name} and {low.type.name}",
                               item.span, _cast_hint(elem, low.type))
            return None
        if elem.family == "num" and low.type != elem:
            common = arith_result("+", elem.scalar.name if elem.scalar is not None else "", _num_operand_type(low))
            if common is None:
                ctx.reporter.error("E0304", f"the elements of an array literal are {elem.name} and {low.type.name} "
                                   "(Gel has no implicit cast between them)", item.span,
                                   "cast one explicitly, e.g. <float64>x or <decimal>x")
                return None
            if common:
                elem = ValueType(scalar=SCALARS[common])
    if want is not None and want.family == elem.family:
        elem = want
    # (an empty element: the array is empty too)
    return qir.Call(expr.span, ValueType(element=elem), any(low.nullable for low in items), "array", tuple(items))


def _integer_index(expr: ast.Index, ctx: ExprContext, what: str) -> Optional[qir.Expr]:
    """The checked index of ``expr`` (``arr[i]``, ``s[i]``): an integer, else E0304 naming
    ``what`` is indexed."""
    key = check(expr.key, ctx, INT64)
    if key is None:
        return None
    if key.type.family != "num" or key.type.scalar is None or key.type.scalar.name not in ("int16", "int32", "int64"):
        ctx.reporter.error("E0304", f"{what} index is an integer, got {key.type.name}", expr.key.span)
        return None
    return key


def _array_index(expr: ast.Index, base: qir.Expr, ctx: ExprContext) -> Optional[qir.Expr]:
    """``arr[i]`` (https://docs.geldata.com/reference/stdlib/array#operator::arrayidx): the
    element at the 0-based index ``i``, counted from the end when negative (``arr[-1]`` is the
    last); an index outside the array fails the statement, as Gel's "array index ... is out of
    bounds" (Postgres' 1-based ``arr[i]`` would give NULL): the failing cast names the index."""
    key = _integer_index(expr, ctx, "an array")
    if key is None:
        return None
    # (out of bounds: an error naming the index, as Gel's; see schemac.pgsql.calls_expr)
    return qir.Call(expr.span, base.type.element, base.nullable or key.nullable, "array_index", (base, key))


def _str_index(expr: ast.Index, base: qir.Expr, ctx: ExprContext) -> Optional[qir.Expr]:
    """``s[i]`` (https://docs.geldata.com/reference/stdlib/string#operator::stridx): the
    character at the 0-based index ``i``, counted from the end when negative; an index outside
    the string fails the statement, as Gel's "string index ... is out of bounds" (Postgres'
    ``substr`` would give ''): the failing cast names the index (and reads the length, so that
    Postgres cannot fold it into a constant error). Empty when ``s`` is."""
    key = _integer_index(expr, ctx, "a string")
    if key is None:
        return None
    return qir.Call(expr.span, base.type, base.nullable or key.nullable, "str_index", (base, key))


def _index(expr: ast.Index, ctx: ExprContext) -> Optional[qir.Expr]:
    """``x['key']`` (``x[0]``: an array element) on a json value; the result is json (empty
    when the member is missing), cast it to read a scalar: ``<str>x['key']``. ``arr[i]`` of an
    array: :func:`_array_index`."""
    base = check(expr.base, ctx)
    if base is None:
        return None
    if base.type.element is not None:
        return _array_index(expr, base, ctx)
    if base.type.family == "str" and base.type.enum is None:
        return _str_index(expr, base, ctx)
    if base.type.family != "json":
        ctx.reporter.error("E0206", f"indexing a {base.type.name} value is not supported; only json values "
                           "can be indexed", expr.span, "index a json value: <str>item['name']")
        return None
    key = check(expr.key, ctx)
    if key is None:
        return None
    if key.type.family not in ("str", "num") or key.type.element is not None:
        ctx.reporter.error("E0304", f"a json index is a str or an integer, got {key.type.name}", expr.key.span)
        return None
    return qir.JsonIndex(expr.span, base.type, True, base, key)


def _literal(expr: ast.Literal, ctx: ExprContext, expected: Optional[ValueType]) -> Optional[qir.Expr]:
    if expr.kind == "str":
        if "\0" in expr.value:  # type: ignore[operator]
            ctx.reporter.error("E0102", "string literals cannot contain NUL characters", expr.span)
            return None
        return qir.Literal(expr.span, STR, False, "str", expr.value)
    if expr.kind == "bool":
        return qir.Literal(expr.span, BOOL, False, "bool", expr.value)
    if expr.kind == "int":
        typ = expected if expected is not None and expected.family == "num" else INT64
        return qir.Literal(expr.span, typ, False, "int", expr.value)
    if expr.kind == "float":
        typ = expected if expected is not None and expected.family == "num" else FLOAT64
        return qir.Literal(expr.span, typ, False, "float", expr.value)
    if expr.kind in ("bigint", "decimal"):
        # 12n is a bigint, 1.5n a decimal (https://docs.geldata.com/reference/edgeql/literals); a
        # bigint converts to a decimal implicitly, neither to any other number
        fits = ("bigint", "decimal") if expr.kind == "bigint" else ("decimal",)
        typ = expected if expected is not None and expected.scalar is not None and expected.element is None \
            and expected.scalar.name in fits else ValueType(scalar=SCALARS[expr.kind])
        return qir.Literal(expr.span, typ, False, "numeric", expr.value)
    raise AssertionError(expr.kind)  # pragma: no cover


def _enum_ref(expr: ast.EnumRef, ctx: ExprContext) -> Optional[qir.Expr]:
    if expr.enum in ctx.free_rows and expr.enum not in ctx.variables:
        rows = ctx.free_rows[expr.enum]
        fields = dict(rows.fields)  # type: ignore[attr-defined]
        if not rows.first:  # type: ignore[attr-defined]
            ctx.reporter.error("E0206", f"'{expr.enum}' is a set of free objects: reading '{expr.enum}.{expr.member}' "
                               "is supported of one of them yet", expr.span,
                               f"bind one: with first := (select {expr.enum} order by .{expr.member} limit 1)")
            return None
        if expr.member not in fields:
            ctx.reporter.error("E0302", f"'{expr.enum}' has no field '{expr.member}'", expr.member_span,
                               did_you_mean(expr.member, list(fields)))
            return None
        return qir.FreeRowField(expr.span, fields[expr.member].type, True, rows, expr.member)  # type: ignore[arg-type]
    enum = None if expr.enum in ctx.variables or expr.enum in ctx.type_sets else ctx.schema.find_enum(expr.enum, ctx.module)
    if enum is None and expr.enum in ctx.type_sets and expr.member == "id":
        # `u.id` of `with u := (select User filter ...)`: the id of its one object
        return check(ctx.type_sets[expr.enum], ctx)
    if enum is None and _var_object(expr.enum, ctx) is not None:
        return _var_object_path(expr.enum, (expr.member,), expr.span, ctx)
    if enum is None and _pinned_selection(expr.enum, ctx):
        return _pinned_set_path(ast.VarRef(expr.enum, expr.span), (expr.member,), expr.span, ctx)
    var = ctx.variables.get(expr.enum) if enum is None else None
    if isinstance(var, qir.LoopVar) and var.elements is not None:
        # `x.name` of a loop over an array of named tuples: that element's column
        return _loop_element(ast.Step(ast.VarRef(expr.enum, expr.span), expr.member, ".", expr.span), var, ctx)
    if enum is None and (expr.enum in ctx.variables or expr.enum in ctx.type_sets):
        ctx.reporter.error("E0206", f"a path from the 'with' name '{expr.enum}' ('{expr.enum}.{expr.member}') is not "
                           "supported yet", expr.span)
        return None
    if enum is None and expr.enum in ctx.bound_statements:
        # `with a := (insert ...) select a.id`: valid Gel, not an unknown enum
        ctx.reporter.error("E0206", f"a path from the bound statement '{expr.enum}' ('{expr.enum}.{expr.member}') is "
                           "not supported yet", expr.span,
                           f"select it with a shape: select {expr.enum} {{ {expr.member} }}")
        return None
    if enum is None:
        cands = [e.name for e in ctx.schema.all_enums()]
        named = ctx.schema.find_type(expr.enum, ctx.module)
        if named is not None and named is ctx.subject and ctx.params is not None and not (
                ctx.detached_subject and ctx.outer is not None and named is ctx.outer[0]):
            # `select User ... filter User.name = ...`: the selected type's own path, as `.name`
            # (https://docs.geldata.com/reference/edgeql/paths).
            return _path(ast.Path((expr.member,), expr.span), ctx)
        if named is not None and ctx.outer is not None and named is ctx.outer[0]:
            # In a computed of `Message`, `Message.author_id` is the object the computed is
            # evaluated for (Gel binds the source type's path to it), also inside a sub-select.
            outer = dataclasses.replace(ctx, subject=ctx.outer[0], column_prefix=ctx.outer[1], outer=None,
                                        detached_subject=False)
            return _path(ast.Path((expr.member,), expr.span), outer)
        if named is not None:
            # `User.handle` where `User` is not the object at hand: the set of that property of
            # every User object (https://docs.geldata.com/reference/edgeql/paths), not a link
            msg = (f"'{expr.enum}.{expr.member}' is the '{expr.member}' of every {expr.enum} object, a set: using it "
                   "as a value here is not supported yet")
            ctx.reporter.error("E0206", msg, expr.span,
                               f"aggregate it (count({expr.enum}.{expr.member}), array_agg({expr.enum}.{expr.member})), "
                               f"or select it in a query of its own: select {expr.enum}.{expr.member}")
        else:
            ctx.reporter.error("E0201", f"unknown enum '{expr.enum}'", expr.span, did_you_mean(expr.enum, cands))
        return None
    if expr.member not in enum.members:
        ctx.reporter.error("E0203", f"enum '{enum.name}' has no member '{expr.member}'", expr.member_span,
                           did_you_mean(expr.member, enum.members))
        return None
    return qir.EnumMember(expr.span, ValueType(enum=enum), False, enum, expr.member)


def refuse_poly_link(subject: Optional[ObjectType], name: str, span, reporter: Reporter) -> bool:
    """Report a polymorphic link (a link to an abstract type with several concrete subtypes,
    :class:`schemac.semantics.model.PolyLink`) read or written by a query: its storage is compiled, its
    query forms are not yet. ``True`` when ``name`` is one (reported)."""
    pl = subject.poly_links.get(name) if subject is not None else None
    if pl is None:
        return False
    names = ", ".join(t.name for t, _ in pl.targets)
    reporter.error("E0206", f"'{name}' links to abstract type '{pl.abstract.split('::')[-1]}' ({names}): a "
                   "polymorphic link in a query is not supported yet", span,
                   f"query it from a concrete type, e.g. select {pl.targets[0][0].name} filter ...")
    return True


def _computed_link_steps(e) -> Optional[Tuple[str, ...]]:
    """The steps of a computed link that is a path (``.album.artist``, ``(select .album.artist)``
    without shape or clauses), or ``None``."""
    if isinstance(e, ast.StatementExpr):
        e = e.query
    if isinstance(e, ast.SelectExpr) and e.shape is None and e.filter is None and not e.order \
            and e.offset is None and e.limit is None:
        e = e.subject
    if isinstance(e, ast.Path) and all(st.isidentifier() for st in e.steps):
        return tuple(e.steps)
    return None


def _expand_computed_links(steps: Tuple[str, ...], subject: ObjectType) -> Optional[Tuple[str, ...]]:
    """``steps`` with its leading computed links that are paths replaced by their paths
    (``artist.name`` -> ``album.artist.name``), or ``None`` when the first is not one (or they
    refer to each other)."""
    for _ in range(8):
        comp = subject.computeds.get(steps[0])
        inner = _computed_link_steps(comp.expr) if comp is not None and comp.target is not None else None
        if inner is None:
            return steps if subject.computeds.get(steps[0]) is None else None
        steps = inner + steps[1:]
    return None


def _path(expr: ast.Path, ctx: ExprContext) -> Optional[qir.Expr]:
    if expr.steps == ("__subject__",):
        col = ctx.subject_column
        if col is None:
            ctx.reporter.error("E0202", "__subject__ is only valid in a property's constraint", expr.span)
            return None
        return qir.SubjectRef(expr.span, col.type, not col.required, col)
    if ctx.subject is None:
        ctx.reporter.error("E0202", f"'.{'.'.join(expr.steps)}' has no subject here", expr.span)
        return None
    name = expr.steps[0]
    if name == "__type__":
        return _type_name(expr, ctx)
    comp = ctx.subject.computeds.get(name)
    if comp is not None and len(expr.steps) == 1:
        return computed_sql.computed_property(expr, comp, ctx)
    if len(expr.steps) > 1 and name in ctx.subject.poly_links and not ctx.subject.poly_links[name].multi:
        return _link_path(expr, ctx)
    if refuse_poly_link(ctx.subject, name, expr.span, ctx.reporter):
        return None
    link = ctx.subject.links.get(name)
    if link is not None:
        if expr.steps[1:] in ((), ("id",)) and link.column is not None:
            # A single link stands for its target's id (its FK column), the id of an object the
            # query may see (read through the target's access policies when it has some).
            from schemac.semantics import policies

            col = ctx.subject.column(link.column)
            assert col is not None
            return qir.ColumnRef(expr.span, col.type, not col.required, col, ctx.subject, link, ctx.column_prefix,
                                 policies.link_visible(link, ctx.subject, ctx))
        if link.column is not None:
            return _link_path(expr, ctx)
        if len(expr.steps) > 1 and ctx.set_links is not None and ctx.set_row is not None and \
                ctx.set_row == (ctx.subject, ctx.column_prefix or qi(ctx.subject.table)):
            return _set_path(expr, link, ctx)
        if len(expr.steps) == 1:
            ctx.reporter.error("E0206", f"'.{name}' is a multi link, a set of objects: count it, test it with "
                               "exists, or select it in a shape", expr.span, f"e.g. count(.{name}) or exists .{name}")
        else:
            ctx.reporter.error("E0206", f"'.{'.'.join(expr.steps)}': a path through the multi link '{name}' is a "
                               "set; only paths through single links can be used here",
                               expr.span, f"count it or test it: count(.{name}), exists .{name}")
        return None
    if len(expr.steps) > 1 and ctx.subject.column(name) is not None and ctx.subject.column(name).type.fields:
        # `.days.0`, `.pos.x`: elements of a tuple property
        col = ctx.subject.column(name)
        low: qir.Expr = qir.ColumnRef(expr.span, col.type, not col.required, col, ctx.subject, None, ctx.column_prefix)
        for step in expr.steps[1:]:
            low = _tuple_element(low, step, expr.span, ctx)  # type: ignore[assignment]
            if low is None:
                return None
        return low
    if len(expr.steps) > 1 and comp is not None and comp.target is not None and comp.at_most_one \
            and not comp.poly_sources and not comp.broken and comp.refused is None:
        # `.country.size` of a computed link holding at most one object (`single link country :=
        # .<gold[is Country] ?? .<food[is Country]`): the path read from its object, empty when none
        alias = qi(f"_cp{ctx.depth}")
        objects = computed_sql.object_set(comp, ctx, alias, expr.span)
        if objects is None:
            return None
        inner = dataclasses.replace(ctx, subject=comp.target, column_prefix=alias, subject_column=None, variables={},
                                    bound_statements={}, depth=ctx.depth + 1)
        value = check(ast.Path(expr.steps[1:], expr.span), inner)
        if value is None:
            return None
        return qir.ObjectValue(expr.span, value.type, True, objects, value)
    if len(expr.steps) > 1 and comp is not None and comp.target is not None:
        steps = _expand_computed_links(tuple(expr.steps), ctx.subject)
        if steps is not None:
            # `.artist.name` of `link artist := (select .album.artist)`: the computed link's path
            # in its place, `.album.artist.name` (a computed is its expression evaluated for the
            # object, https://docs.geldata.com/reference/datamodel/computeds)
            return _path(ast.Path(steps, expr.span), ctx)
    if len(expr.steps) > 1 and set_backlink_computed(comp) and ctx.set_links is not None \
            and ctx.set_row == (ctx.subject, ctx.column_prefix or qi(ctx.subject.table)):
        return _set_backlink_steps(dataclasses.replace(comp.expr, span=expr.span), tuple(expr.steps[1:]),  # type: ignore[union-attr]
                                   expr.span, dataclasses.replace(ctx, module=comp.module))  # type: ignore[union-attr]
    if len(expr.steps) > 1:
        ctx.reporter.error("E0206", "path traversal ('.a.b') is only supported as '.link.id'", expr.span)
        return None
    col = ctx.subject.column(name)
    if col is None and name in ctx.subject.refused_pointers:
        return None  # its declaration was refused, and reported
    if col is None:
        code = "E0302" if ctx.params is not None else "E0202"
        ctx.reporter.error(code, f"type '{ctx.subject.name}' has no property '{name}'", expr.span,
                           did_you_mean(name, [c.name for c in ctx.subject.columns if c.link is None and c.link_prop is None]
                                        + list(ctx.subject.links)))
        return None
    return qir.ColumnRef(expr.span, col.type, not col.required, col, ctx.subject, None, ctx.column_prefix)


def _subject_type_check(expr: ast.TypeCheck, ctx: ExprContext) -> Optional[qir.Expr]:
    """``Ship is Airship`` / ``Ship is not Airship`` of the object a query selects
    (https://docs.geldata.com/reference/stdlib/type#operator::is: whether its type is ``Airship``
    or one of its subtypes), ``Ship`` its type's name or an ancestor's: a concrete type's rows are
    of that type alone (a select of an abstract type reads each concrete type's table on its own),
    so it is a constant of the table being read, as ``.__type__.name`` is. ``None`` for any other
    operand (nothing reported)."""
    subject = ctx.subject
    op = expr.operand
    itself = isinstance(op, ast.Path) and not op.steps
    if subject is None or subject.union_of or subject.from_sql is not None or subject.join_of is not None \
            or not (itself or isinstance(op, ast.VarRef)) or ctx.column_prefix is not None or ctx.outer is not None:
        return None
    keys = ctx.schema.descendant_keys()
    if not itself:
        # (``Path(())``: the selected object itself, a ``with`` name of a union read in the
        # shape of its select, as queries._union_binding_select writes it)
        if op.detached or op.name in ctx.variables or op.name in ctx.type_sets:
            return None
        own = ctx.schema.find(op.name, ctx.module, keys)
        if own is None or subject.qualname not in ctx.schema.descendants.get(own, ()):  # type: ignore[arg-type]
            return None
    target = ctx.schema.find(expr.type.name, ctx.module, keys)
    if target is None:
        ctx.reporter.error("E0301", f"unknown type '{expr.type.name}'", expr.type.span,
                           did_you_mean(expr.type.name.split("::")[-1], [t.name for t in ctx.schema.all_types()]))
        return None
    value = subject.qualname in ctx.schema.descendants.get(target, ())  # type: ignore[arg-type]
    return qir.Literal(expr.span, BOOL, False, "bool", value != expr.negated)


def _type_name(expr: ast.Path, ctx: ExprContext) -> Optional[qir.Expr]:
    """``.__type__.name``: the qualified name of the object's type, ``'default::Movie'``
    (https://docs.geldata.com/reference/datamodel/introspection/objects: every object links to
    its ``schema::ObjectType`` through ``__type__``). A concrete type's rows are of that type
    alone (each concrete type has its own table, a subtype's rows are not in it), so the name is
    a constant of the table being read; a computed declared in an abstract type is checked, and
    inlined, for each concrete type that inherits it. Other introspection paths have no storage."""
    subject = ctx.subject
    assert subject is not None
    if expr.steps != ("__type__", "name"):
        ctx.reporter.error("E0206", f"'.{'.'.join(expr.steps)}': of the type introspection link '__type__' only "
                           "'.__type__.name' is supported", expr.span, "read the type's name: .__type__.name")
        return None
    if subject.union_of and ctx.column_prefix is not None:
        # an object of a polymorphic link's abstract target: the subtype whose table holds its
        # id (ids are unique across tables)
        return qir.UnionTypeName(expr.span, STR, False, ctx.column_prefix, subject.union_of)
    if subject.from_sql is not None or subject.join_of is not None:
        ctx.reporter.error("E0206", "'.__type__.name' of an object of an abstract type (a polymorphic link's "
                           "target) is not supported yet", expr.span,
                           "read it from a concrete type, or select the subtype with [is T]")
        return None
    return qir.Literal(expr.span, STR, False, "str", subject.qualname)


#: Gel's aggregates of one set (https://docs.geldata.com/reference/stdlib/set): their argument is
#: a scope of its own.
SET_AGGREGATES = ("array_agg", "count", "sum", "min", "max", "math::mean")


def _bound_aggregate(expr: ast.FuncCall, ctx: ExprContext):
    """``array_agg(.musics.keywords.name)`` in a filter that also reads ``.musics`` element by
    element (``... and .musics.rating >= 4``): Gel factors the common prefix into the filter's
    scope, so the aggregate's ``.musics`` is the linked object at hand, not all of them ("if you
    have two common scopes and only one of them is in a nested scope, the paths are still
    factored", https://docs.geldata.com/reference/edgeql/path_resolution): the aggregate of the
    rest of the path, ``array_agg(.keywords.name)``, over the object the filter's ``EXISTS``
    reads. The argument may be the path, ``(select <path>)`` or ``distinct <path>``. ``None``
    when the call is not such an aggregate; ``False`` after an error."""
    name = expr.name.replace("std::", "")
    if name not in SET_AGGREGATES or len(expr.args) != 1:
        return None
    arg = expr.args[0]
    inner_arg, wrap = arg, None
    if isinstance(inner_arg, ast.UnaryOp) and inner_arg.op == "distinct":
        inner_arg, wrap = inner_arg.operand, inner_arg
    if isinstance(inner_arg, ast.SelectExpr) and inner_arg.shape is None and inner_arg.filter is None \
            and not inner_arg.order and inner_arg.offset is None and inner_arg.limit is None:
        inner_arg = inner_arg.subject
    if not isinstance(inner_arg, ast.Path) or inner_arg.steps[0] not in ctx.set_bound:
        if any(isinstance(n, ast.Path) and n.steps[0] in ctx.set_bound for n in ast.iter_nodes(arg)):
            ctx.reporter.error("E0206", f"{name}() of this expression of '.{next(iter(sorted(ctx.set_bound)))}', which "
                               "the filter also reads element by element, is not supported yet", arg.span,
                               f"aggregate a path: {name}(.link.property)")
            return False
        return None
    if len(inner_arg.steps) == 1:
        ctx.reporter.error("E0206", f"{name}(.{inner_arg.steps[0]}) in a filter that reads '.{inner_arg.steps[0]}' "
                           "element by element (one linked object at a time) is not supported yet", arg.span)
        return False
    inner = _set_scope(inner_arg.steps[0], inner_arg.span, ctx)
    if inner is None:
        return False
    rest: ast.Expr = ast.Path(inner_arg.steps[1:], inner_arg.span)
    if wrap is not None:
        rest = dataclasses.replace(wrap, operand=rest)
    low = _func(dataclasses.replace(expr, args=(rest,)), inner)
    return low if low is not None else False


def _set_scope(step: str, span: Span, ctx: ExprContext) -> Optional[ExprContext]:
    """The scope of one object of the multi link (or computed backlink) ``step`` of a filter's
    subject, as :func:`_set_path` reads it (the same object for every use in the filter)."""
    from schemac.semantics import policies

    assert ctx.set_links is not None and ctx.set_row is not None and ctx.subject is not None
    link = ctx.subject.links.get(step)
    if link is None:
        comp = ctx.subject.computeds[step]
        back = comp.expr
        assert isinstance(back, ast.Backlink)
        found = _set_backlink_link(back, span, ctx, dataclasses.replace(ctx, module=comp.module))
        if found is None:
            return None
        source, s = found
        return dataclasses.replace(ctx, subject=source, column_prefix=s.alias, set_links=None,  # type: ignore[attr-defined]
                                   set_row=None, set_bound=frozenset())
    s = ctx.set_links.get(link.name)
    if s is None:
        alias = qi(f"_m{len(ctx.set_links) + 1}")
        s = qir.SetLink(link, alias, ctx.set_row[1], policies.read_predicate(link.target, ctx, alias))
        ctx.set_links[link.name] = s
    return dataclasses.replace(ctx, subject=link.target, column_prefix=s.alias, set_links=None,  # type: ignore[attr-defined]
                               set_row=None, set_bound=frozenset())


def _set_path(expr: ast.Path, link, ctx: ExprContext) -> Optional[qir.Expr]:
    """``.tags.name`` in a query's filter: the path from one linked object (each use of the
    same multi link in the filter is the same object, as Gel factors common path prefixes:
    https://docs.geldata.com/reference/edgeql/paths); the filter becomes an ``EXISTS`` over the
    links (:class:`schemac.semantics.qir.SetFilter`)."""
    from schemac.semantics import policies

    assert ctx.set_links is not None and ctx.set_row is not None
    s = ctx.set_links.get(link.name)
    if s is None:
        alias = qi(f"_m{len(ctx.set_links) + 1}")
        s = qir.SetLink(link, alias, ctx.set_row[1], policies.read_predicate(link.target, ctx, alias))
        ctx.set_links[link.name] = s
    inner = dataclasses.replace(ctx, subject=link.target, column_prefix=s.alias, set_links=None,  # type: ignore[attr-defined]
                                set_row=None)
    return check(ast.Path(expr.steps[1:], expr.span), inner)


def _set_backlink(expr: ast.Step, ctx: ExprContext) -> Optional[qir.Expr]:
    """``.<user[is Identity].provider`` in a query's filter: the property of one object whose link
    points at the subject (https://docs.geldata.com/reference/datamodel/links#backlinks); as for a
    path through a multi link (:func:`_set_path`) the filter becomes an ``EXISTS`` over those
    objects, true when it holds for at least one of them."""
    assert ctx.set_links is not None and ctx.set_row is not None and ctx.subject is not None
    back = expr.base
    assert isinstance(back, ast.Backlink)
    return _set_backlink_steps(back, (expr.name,), expr.span, ctx)


def _set_backlink_link(back: ast.Backlink, span: Span, ctx: ExprContext,
                       source_ctx: ExprContext) -> Optional[Tuple[ObjectType, "qir.SetLink"]]:
    """The type whose link ``back`` points at the filter's subject (resolved in ``source_ctx``:
    a computed backlink's own module) and the one object of it a filter reads
    (``ctx.set_links``, keyed by the backlink: every use of it in the filter reads the same
    object); ``None`` after reporting (a polymorphic link is E0206)."""
    from schemac.semantics import policies

    source = computed_sql._backlink_source(back, source_ctx)
    if source is None:
        return None
    link = computed_sql.backlink_link(source, back.link, ctx.subject)
    if link is None or link.columns:
        ctx.reporter.error("E0206", f"'.<{back.link}' through a polymorphic link in a filter is not supported yet",
                           span)
        return None
    key = f".<{back.link}[is {source.qualname}]"
    s = ctx.set_links.get(key)
    if s is None:
        alias = qi(f"_m{len(ctx.set_links) + 1}")
        s = qir.SetLink(link, alias, ctx.set_row[1], policies.read_predicate(source, ctx, alias), source)
        ctx.set_links[key] = s
    return source, s


def set_backlink_computed(comp) -> bool:
    """A computed link that is a backlink, ``multi link posts := .<tags[is Post]``: its paths
    (``.posts.title``) are sets as a backlink's are (:func:`_set_backlink`)."""
    return comp is not None and comp.target is not None and isinstance(comp.expr, ast.Backlink) \
        and comp.filter is None and not comp.poly_sources and not comp.broken and comp.refused is None


def _set_backlink_steps(back: ast.Backlink, steps: Tuple[str, ...], span: Span,
                        ctx: ExprContext) -> Optional[qir.Expr]:
    """The path ``steps`` from one object whose link ``back`` points at the subject, in a filter
    read one such object at a time (:func:`_set_backlink`); ``.posts.album.title`` of a computed
    backlink ``posts := .<tags[is Post]`` is ``.<tags[is Post].album.title``
    (https://docs.geldata.com/reference/datamodel/computeds: a computed is its expression
    evaluated for the object). Uses of the same backlink in the filter read the same object."""
    found = _set_backlink_link(back, back.span, ctx, ctx)
    if found is None:
        return None
    source, s = found
    inner = dataclasses.replace(ctx, subject=source, column_prefix=s.alias, set_links=None,  # type: ignore[attr-defined]
                                set_row=None)
    return check(ast.Path(steps, span), inner)


def _link_path(expr: ast.Path, ctx: ExprContext) -> Optional[qir.Expr]:
    """``.author.name`` / ``.author.org.name``: a property reached through single links
    (https://docs.geldata.com/reference/edgeql/paths), read by a correlated sub-select joining
    the linked rows (each only when the target's access policies let the query see it); empty
    when any link on the way is empty."""
    obj = ctx.subject
    assert obj is not None
    hops = []
    optional = False
    steps = expr.steps
    for i, step in enumerate(steps[:-1]):
        link = obj.links.get(step)  # type: ignore[union-attr]
        pl = obj.poly_links.get(step) if link is None else None  # type: ignore[union-attr]
        if pl is not None and not pl.multi and not any(t.policies for t, _ in pl.targets):
            # a polymorphic single link: through its abstract type's common properties
            link = Link(pl.name, abstract_view(pl), False, pl.required, None, None, tuple(c for _, c in pl.targets))
        elif link is None and refuse_poly_link(obj, step, expr.span, ctx.reporter):
            return None
        if link is not None and link.columns:
            optional = optional or not link.required
            hops.append(link)
            obj = link.target
            continue
        if link is None or link.column is None:
            what = "a multi link" if link is not None else "not a link"
            ctx.reporter.error("E0206" if link is not None else "E0302",
                               f"'.{'.'.join(steps)}': '{step}' of '{obj.name}' is {what}", expr.span,  # type: ignore[union-attr]
                               "paths go through single links only" if link is not None else
                               did_you_mean(step, list(obj.links)))  # type: ignore[union-attr]
            return None
        optional = optional or not link.required
        hops.append(link)
        obj = link.target
    last = steps[-1]
    col = obj.column(last)  # type: ignore[union-attr]
    if col is None and last in obj.computeds and obj.computeds[last].target is None:  # type: ignore[union-attr]
        return _computed_through_link(expr, ctx)
    end = obj.links.get(last)  # type: ignore[union-attr]
    if end is not None and end.column is not None:
        # `.chat.owner`: a path ending in a single link is its object, compared by id
        # (https://docs.geldata.com/reference/edgeql/paths): the link's FK column, or, when the
        # target has access policies, its id read through them (an object the query cannot
        # see is empty).
        from schemac.semantics import policies

        if policies.applies(end.target, ctx):
            return _link_path(ast.Path(steps + ("id",), expr.span), ctx)
        col = obj.column(end.column)  # type: ignore[union-attr]
    elif col is None or col.link is not None:
        if last in obj.computeds or last in obj.links:  # type: ignore[union-attr]
            ctx.reporter.error("E0206", f"'.{'.'.join(steps)}': '{last}' is a link or computed; a path may end in a "
                               "stored property only", expr.span)
        else:
            ctx.reporter.error("E0302", f"type '{obj.name}' has no property '{last}'", expr.span,  # type: ignore[union-attr]
                               did_you_mean(last, [c.name for c in obj.columns if c.link is None and c.link_prop is None]))  # type: ignore[union-attr]
        return None
    from schemac.semantics import policies

    sources = [ctx.subject] + [h.target for h in hops[:-1]]
    visible = tuple(policies.required_link_visible(policies.read_predicate(link.target, ctx, qi(f"_l{i}")), link,
                                                   src, qi(f"_l{i}"))  # type: ignore[arg-type]
                    for i, (link, src) in enumerate(zip(hops, sources), 1))
    row = ctx.column_prefix or qi(ctx.subject.table)  # type: ignore[union-attr]
    first_cte = None
    if hops and steps[0] in ctx.written_from:
        # (the objects the statement wrote are not in the table for the statement itself)
        first_cte = ctx.written_from[steps[0]]
        if first_cte is None:
            ctx.reporter.error("E0206", f"'.{'.'.join(steps)}' reads the link '{steps[0]}' that the same statement "
                               "writes: not supported yet", expr.span,
                               "its new objects are not visible to the statement; select them in a second query")
            return None
    return qir.LinkPath(expr.span, col.type, optional or not col.required, tuple(hops), col, row, visible, first_cte)


def _set_link_prop(expr: ast.Step, ctx: ExprContext) -> Optional[qir.Expr]:
    """``.tags@rank`` in a filter (or ``any()``) that reads the paths through ``tags`` one linked
    object at a time (:func:`_set_path`): the link property of that link, its join row's column
    (https://docs.geldata.com/reference/datamodel/linkprops)."""
    from schemac.semantics import policies

    assert ctx.set_links is not None and ctx.set_row is not None
    link = ctx.subject.links[expr.base.steps[0]]  # type: ignore[union-attr, attr-defined]
    table = ctx.schema.join_table(link.join_table)
    col = table.column(expr.name) if table is not None else None
    if col is None or col.name in ("source_id", "target_id"):
        ctx.reporter.error("E0302", f"link '{link.name}' has no link property '{expr.name}'", expr.span)
        return None
    s = ctx.set_links.get(link.name)
    if s is None:
        alias = qi(f"_m{len(ctx.set_links) + 1}")
        s = qir.SetLink(link, alias, ctx.set_row[1], policies.read_predicate(link.target, ctx, alias))
        ctx.set_links[link.name] = s
    join = s.alias.strip('"') + "j"  # type: ignore[attr-defined]
    return qir.RowField(expr.span, col.type, not col.required, join, col.name)


def _single_link_prop(expr: ast.Step, ctx: ExprContext) -> Optional[qir.Expr]:
    """``.owner@note``: the link property ``note`` of the single link ``owner``
    (https://docs.geldata.com/reference/datamodel/linkprops), its ``owner@note`` column of the
    subject's row (:func:`schemac.semantics.model.single_link_props`); empty when the link is.
    Refused (E0206) when the link's target has access policies (the property of a hidden
    object is empty in Gel)."""
    from schemac.semantics import policies

    subject = ctx.subject
    link = subject.links[expr.base.steps[0]]  # type: ignore[union-attr, attr-defined]
    lp_type = single_link_props(subject, link.name)  # type: ignore[arg-type]
    col = link_prop_named(lp_type, expr.name) if lp_type is not None else None
    if col is None:
        names = link_prop_names(lp_type) if lp_type is not None else []
        ctx.reporter.error("E0302", f"link '{link.name}' has no link property '{expr.name}'", expr.span,
                           did_you_mean(expr.name, names) or (f"its link properties: {', '.join(names)}" if names
                                                              else f"'{link.name}' declares no link properties"))
        return None
    if policies.read_predicate(link.target, ctx, '"_t"') is not None:
        ctx.reporter.error("E0206", f"'.{link.name}@{expr.name}' of a link to {link.target.name}, which has access "
                           "policies, is not supported yet", expr.span)
        return None
    return qir.ColumnRef(expr.span, col.type, True, col, subject, None, ctx.column_prefix)


def _link_prop_values(expr: ast.Step, ctx: ExprContext) -> Optional[qir.Expr]:
    """``.folders@path``: the link property ``path`` of each of the object's ``folders`` links
    (https://docs.geldata.com/reference/datamodel/linkprops), a set of values, which schemac
    gives as an array as it does a multi property: ``ARRAY(SELECT j."path" FROM <join table> AS j
    WHERE j."source_id" = <row>."id" AND j."path" IS NOT NULL)`` (an empty link property is no
    value of the set; the links to objects the target's access policies hide are left out, as
    Gel hides them). ``[]`` when there is none."""
    from schemac.semantics import policies

    subject = ctx.subject
    link = subject.links[expr.base.steps[0]]  # type: ignore[union-attr, attr-defined]
    table = ctx.schema.join_table(link.join_table)
    col = table.column(expr.name) if table is not None else None
    if col is None or col.name in ("source_id", "target_id"):
        ctx.reporter.error("E0302", f"link '{link.name}' has no link property '{expr.name}'", expr.span,
                           did_you_mean(expr.name, [c.name for c in table.columns
                                                    if c.name not in ("source_id", "target_id")] if table else []))
        return None
    if col.type.element is not None:
        ctx.reporter.error("E0206", f"'@{expr.name}' of several links is a set of arrays, which is not supported",
                           expr.span)
        return None
    j, t = f"_lj{ctx.depth}", f"_lt{ctx.depth}"
    row = ctx.column_prefix or qi(subject.table)  # type: ignore[union-attr]
    visible = policies.read_predicate(link.target, ctx, qi(t))
    return qir.LinkPropValues(expr.span, ValueType(element=col.type), False, link, col, row, j, t, visible)


def _tuple_lit(expr, ctx: ExprContext, expected: ValueType) -> Optional[qir.Expr]:
    """``(true, false)`` / ``(x := 1.5, y := 2)`` where a tuple type is expected (a tuple
    property's value, an element of an array of tuples): ``CAST(ROW(a, b) AS "tuple_...")``, each
    element checked against its element type (a named tuple's by name, in any order, as Gel
    matches them); empty when an element is (https://docs.geldata.com/reference/stdlib/tuple)."""
    fields = expected.fields or ()
    if isinstance(expr, ast.NamedTuple):
        given = dict(expr.items)
        names = [n for n, _ in fields]
        if any(n is None for n in names) or set(given) != set(names) or len(given) != len(expr.items):
            ctx.reporter.error("E0304", f"this named tuple does not match {expected.name}", expr.span,
                               "name each element of the type once")
            return None
        items = [given[n] for n in names]  # type: ignore[index]
    else:
        items = list(expr.items)
        if len(items) != len(fields):
            ctx.reporter.error("E0304", f"a tuple of {len(items)} elements is not a {expected.name}", expr.span)
            return None
    lows = []
    for item, (_, ftype) in zip(items, fields):
        low = check(item, ctx, ftype)
        if low is None:
            return None
        if low.type.family != ftype.family and not (ftype.family == "num" and low.type.family == "num"):
            ctx.reporter.error("E0304", f"this element is {low.type.name}, the tuple's is {ftype.name}", item.span)
            return None
        lows.append(low)
    return qir.Call(expr.span, expected, any(low.nullable for low in lows), "tuple", tuple(lows))


def _tuple_syntax(expr) -> bool:
    """A tuple literal, or an element of one (``(1, (a := 2)).1``): its steps by name are its
    elements (``(a := 1).a``), not paths."""
    if isinstance(expr, (ast.Tuple_, ast.NamedTuple)):
        return True
    return isinstance(expr, ast.Step) and expr.kind == "." and _tuple_syntax(expr.base)


def json_element_refusal(vtype: ValueType) -> Optional[str]:
    """Why a value of ``vtype`` cannot be an element of a selected tuple (which travels as JSON,
    decoded by node-postgres and by Go's encoding/json), or ``None`` when it can."""
    from schemac.semantics.scalars import NOT_IN_JSON
    from schemac.semantics.extensions import is_vector
    from schemac.semantics.lowering import JSON_SPELLING

    if vtype.fields is not None:
        return next((why for _, t in vtype.fields if (why := json_element_refusal(t)) is not None), None)
    elem = vtype.element if vtype.element is not None else vtype
    if elem.fields is not None:
        return f"an array of tuples ({vtype.name})"
    if elem.scalar is not None and (elem.scalar.name in NOT_IN_JSON or range_kind(elem.scalar)
                                    or is_vector(elem.scalar)
                                    or (vtype.element is not None and elem.scalar.name in JSON_SPELLING
                                        and elem.scalar.name not in ("int64", "bigint", "decimal"))):
        return f"a {vtype.name} value"
    return None


def _free_tuple(expr, ctx: ExprContext) -> Optional[qir.Expr]:
    """``(1, 'x')`` / ``(a := 1, b := 'x')`` as a value of the query
    (https://docs.geldata.com/reference/stdlib/tuple): a :class:`qir.TupleValue` of its checked
    elements, typed ``tuple<int64, str>`` / ``tuple<a: int64, b: str>``, empty when an element
    may be (Gel's tuple of sets is their product). Elements are scalars, enums, arrays of them,
    or tuples; a tuple is selected or read by its elements (see :func:`_tuple_element`)."""
    if isinstance(expr, ast.NamedTuple):
        names: List[Optional[str]] = [n for n, _ in expr.items]
        items = [v for _, v in expr.items]
        seen: Set[str] = set()
        for n, v in expr.items:
            if n in seen:
                ctx.reporter.error("E0200", f"the named tuple names '{n}' twice", v.span)
                return None
            seen.add(n)
    else:
        names, items = [None] * len(expr.items), list(expr.items)
    lows: List[qir.Expr] = []
    for item in items:
        low = check(item, ctx)
        if low is None:
            return None
        why = json_element_refusal(low.type)
        if why is not None:
            ctx.reporter.error("E0206", f"{why} inside a tuple is not supported yet", item.span,
                               "a selected tuple travels as JSON; select the element on its own")
            return None
        if type(low) is qir.Literal and low.type.family == "num":
            # (a literal 1 is an int64, 1.5 a float64: Postgres' integer and numeric otherwise)
            low = qir.Call(low.span, low.type, False, "typed_literal", (low,))
        lows.append(low)
    vtype = ValueType(fields=tuple((n, low.type) for n, low in zip(names, lows)))
    return qir.TupleValue(expr.span, vtype, any(low.nullable for low in lows), tuple(lows))


def selected_tuple(low: qir.Expr) -> qir.Expr:
    """A tuple property's value read whole (``.days``, ``.nest.b``; a Postgres
    composite value), to be selected: the :class:`qir.TupleValue` of its elements, each the
    composite's attribute, ``(days)."f0"`` (so it is selected as the JSON of any tuple); any other
    expression as it is."""
    if not low.type.fields or not _tuple_column(low):
        return low
    elements = []
    for i, (_, t) in enumerate(low.type.fields):
        elem = qir.Call(low.span, t, low.nullable, "tuple_element", (low,), (i,))
        elements.append(selected_tuple(elem))
    return qir.TupleValue(low.span, low.type, low.nullable, tuple(elements))


def _tuple_column(low: qir.Expr) -> bool:
    """A tuple property (a column), or an element tuple of one (``.nest.b``)."""
    while type(low) is qir.Call and low.func == "tuple_element":  # type: ignore[attr-defined]
        low = low.args[0]  # type: ignore[attr-defined]
    return type(low) is qir.ColumnRef


def _loop_element(expr: ast.Step, var: qir.LoopVar, ctx: ExprContext) -> Optional[qir.Expr]:
    """``x.0`` / ``x.name`` of a tuple loop variable held as one column per element
    (:attr:`schemac.semantics.qir.LoopVar.elements`): that column of the loop's row."""
    fields = var.type.fields or ()
    names = [n for n, _ in fields]
    if expr.name.isdigit():
        i = int(expr.name)
        if i >= len(fields):
            ctx.reporter.error("E0302", f"{var.type.name} has no element {i} (it has {len(fields)})", expr.span)
            return None
    elif expr.name in names:
        i = names.index(expr.name)
    else:
        ctx.reporter.error("E0302", f"{var.type.name} has no element '{expr.name}'", expr.span,
                           did_you_mean(expr.name, [n for n in names if n is not None]))
        return None
    elem = qir.LoopVar(f"{var.name}.{expr.name}", fields[i][1], var.elements[i], var.row)  # type: ignore[index]
    return qir.VarRef(expr.span, elem.type, False, elem.name, elem)


def _tuple_element(base: qir.Expr, step: str, span: Span, ctx: ExprContext) -> Optional[qir.Expr]:
    """``t.0`` / ``t.name`` (https://docs.geldata.com/reference/stdlib/tuple#operator::tupleidx):
    an element of a tuple value, by position (0-based) or, in a named tuple, by name: the
    composite type's attribute, ``(t)."f0"`` / ``(t)."name"``; empty when the tuple is."""
    fields = base.type.fields
    if not fields:
        ctx.reporter.error("E0304", f"'.{step}' of a {base.type.name}: only a tuple has elements here", span)
        return None
    if step.isdigit():
        i = int(step)
        if i >= len(fields):
            ctx.reporter.error("E0302", f"{base.type.name} has no element {i} (it has {len(fields)})", span)
            return None
    else:
        names = [n for n, _ in fields]
        if step not in names:
            ctx.reporter.error("E0302", f"{base.type.name} has no element '{step}'", span,
                               did_you_mean(step, [n for n in names if n is not None]))
            return None
        i = names.index(step)
    elem = fields[i][1]
    if type(base) is qir.TupleValue:
        # an element of a tuple written in the query: that element, empty when the tuple is
        # (when another element is empty)
        value = base.elements[i]  # type: ignore[attr-defined]
        others = [leaf for j, e in enumerate(base.elements) if j != i  # type: ignore[attr-defined]
                  for leaf in tuple_nullable_leaves(e)]
        if not others:
            return value
        return qir.Call(span, elem, True, "tuple_element_of", (value, *others))
    return qir.Call(span, elem, base.nullable, "tuple_element", (base,), (i,))


def _computed_through_link(expr: ast.Path, ctx: ExprContext) -> Optional[qir.Expr]:
    """``.album.title``: a computed property of the object a single link reaches
    (https://docs.geldata.com/reference/datamodel/computeds): the rest of the path read from
    the linked row, ``(SELECT <.title of "_lp2"> FROM "album" AS "_lp2" WHERE "_lp2"."id" =
    <row>."album_id")`` (each hop a sub-select of its own, with the target's access policies);
    empty when the link is."""
    from schemac.semantics import policies

    subject = ctx.subject
    link = subject.links[expr.steps[0]]  # type: ignore[union-attr]
    alias = qi(f"_lp{len(expr.steps)}_{ctx.depth}")
    fk = subject.column(link.column)  # type: ignore[union-attr, arg-type]
    inner = dataclasses.replace(ctx, subject=link.target, column_prefix=alias, subject_column=None,
                                set_links=None, set_row=None)
    value = check(ast.Path(expr.steps[1:], expr.span), inner)
    if value is None or fk is None:
        return None
    id_col = link.target.column("id")
    cond = qir.Binary(expr.span, BOOL, False, "=",
                      qir.ColumnRef(expr.span, id_col.type, False, id_col, link.target, None, alias),
                      qir.ColumnRef(expr.span, fk.type, not fk.required, fk, subject, None,
                                    ctx.column_prefix or qi(subject.table)))  # type: ignore[union-attr]
    return qir.ObjectRow(expr.span, value.type, True, link.target, alias, value, cond,
                         policies.read_predicate(link.target, ctx, alias))


def _is_tuple_array(ref: ast.TypeRef) -> bool:
    return ref.name in ("array", "std::array") and len(ref.args) == 1 and ref.args[0].name in ("tuple", "std::tuple")


def _record_array_type(ref: ast.TypeRef, ctx: ExprContext) -> Optional[ValueType]:
    """``<array<tuple<name: str, n: int32>>>$rows``, an array of named tuples as a parameter
    (https://docs.geldata.com/reference/edgeql/parameters): the runners send it as a JSON array of
    objects (TS ``{ name: string; n: number }[]``, as @gel/generate types it; Go a slice of
    structs, as edgeql-go does), which a ``for`` loop reads with ``jsonb_to_recordset``. Its
    elements are scalars, enums or arrays of them; it is a ``for`` loop's ``array_unpack()``
    source only (:func:`schemac.semantics.queries.refuse_record_params`)."""
    t = resolve_type_ref(ref, ctx, True)
    if t is None:
        return None
    fields = t.element.fields or ()  # type: ignore[union-attr]
    if any(n is None for n, _ in fields):
        ctx.reporter.error("E0206", f"an array of unnamed tuples ('{ref}') as a parameter is not supported yet",
                           ref.span, "name the elements: array<tuple<a: T, b: U>>")
        return None
    bad = next((et for _, et in fields if et.has_tuple or et.family in ("json", "bytes")
                or (et.element is not None and et.element.family in ("json", "bytes"))), None)
    if bad is not None:
        ctx.reporter.error("E0206", f"an array of tuples with an element of type {bad.name} as a parameter is not "
                           "supported yet", ref.span, "its elements may be scalars, enums and arrays of them")
        return None
    return t


def _param(expr: ast.Param, ctx: ExprContext, expected: Optional[ValueType],
           allow_optional: bool) -> Optional[qir.Expr]:
    if ctx.params is None:
        ctx.reporter.error("E0206", f"parameters are not allowed in {ctx.where}", expr.span)
        return None
    declared: Optional[ValueType] = None
    optional = False
    if expr.type is not None:
        declared = _record_array_type(expr.type, ctx) if _is_tuple_array(expr.type) else resolve_type_ref(expr.type, ctx)
        if declared is None:
            return None
        optional = expr.type.optional
    typ = declared or expected
    if typ is None:
        ctx.reporter.error("E0303", f"cannot infer the type of parameter ${expr.name}", expr.span,
                           f"give it a type: ${expr.name}<str> (or another scalar/enum type)")
        return None
    if declared is None:
        optional = allow_optional
    name, position = expr.name, None
    if expr.name.isdecimal():
        # `$0`, `$1`: positional parameters (https://docs.geldata.com/reference/edgeql/parameters),
        # the runners' arguments arg0, arg1
        name, position = f"arg{int(expr.name)}", int(expr.name)
    first = next((p for p in ctx.params.params.values() if p.global_ is None), None)
    if first is not None and (first.position is None) != (position is None) and name not in ctx.params.params:
        # (Gel's own rule and message)
        ctx.reporter.error("E0311", "cannot combine positional and named parameters in the same query", expr.span,
                           f"the query's first parameter is ${first.name if first.position is None else first.position}"
                           "; name every parameter, or number them all from $0")
        return None
    existing = ctx.params.params.get(name)
    if existing is None:
        existing = ParamSpec(name, len(ctx.params.params) + 1, typ, optional, expr.span, position=position)
        ctx.params.params[name] = existing
    else:
        if existing.type != typ:
            ctx.reporter.error("E0307", f"parameter ${expr.name} is used as {existing.type.name} and as {typ.name}",
                               expr.span, "use two parameters, or give both uses the same type")
            return None
        # A parameter is optional only if every use accepts NULL.
        existing.optional = existing.optional and optional
    return qir.ParamRef(expr.span, typ, existing.optional, existing)


def is_for_rows(expr, ctx: ExprContext) -> bool:
    """``for x in S union <body>`` (parenthesised or not) over a set of objects ``S`` of the
    query's names, whose body is a value (not a statement): see :func:`for_rows`."""
    expr = expr.query if isinstance(expr, ast.StatementExpr) else expr
    if not isinstance(expr, ast.ForExpr) or computed_sql.query_set_target(expr.source, ctx) is None:
        return False
    body = expr.body.query if isinstance(expr.body, ast.StatementExpr) else expr.body
    return isinstance(body, ast.Expr.__args__)  # type: ignore[attr-defined]


def _var_paths(expr, var: str):
    """``expr`` with each path ``var.a.b`` from the loop variable read as ``.a.b`` (the object's
    own path)."""
    def f(n):
        steps: List[str] = []
        node = n
        while isinstance(node, ast.Step) and node.kind == ".":
            steps.insert(0, node.name)
            node = node.base
        if isinstance(node, ast.EnumRef) and node.enum == var:
            return ast.Path((node.member, *steps), n.span)  # (`x.a` reads as `Enum.Member`)
        if steps and isinstance(node, ast.VarRef) and node.name == var and not node.detached:
            return ast.Path(tuple(steps), n.span)
        return n
    return ast.map_expr(expr, f)


#: Functions whose argument is a whole set (or that make one): an expression calling one is not
#: computed element by element (https://docs.geldata.com/reference/stdlib/set).
_SET_OF_FUNCS = frozenset({"count", "sum", "min", "max", "array_agg", "any", "all", "math::mean", "enumerate",
                           "assert_single", "assert_exists", "assert_distinct", "distinct", "re_match_all",
                           "array_unpack", "json_array_unpack", "range_unpack", "json_object_unpack", "exists"})


def elementwise_loop(expr, ctx: ExprContext) -> Optional[ast.ForExpr]:
    """``len(S.p)``, ``len(str_split(S.p, ' '))``: an expression computed element by element
    (functions and operators of single values) over the paths of one ``with`` selection ``S``,
    as the loop it is, ``for S in S union len(S.p)``: Gel binds the paths from ``S`` to each of
    its objects, one value each (https://docs.geldata.com/reference/edgeql/paths). ``None`` for
    anything else (a path alone, several such names, a set operator or function)."""
    if isinstance(expr, (ast.EnumRef, ast.Step, ast.VarRef)):
        return None
    roots: Set[str] = set()
    for n in ast.iter_nodes(expr):
        if isinstance(n, ast.EnumRef) and n.enum in ctx.type_sets and n.enum not in ctx.variables:
            roots.add(n.enum)
        elif isinstance(n, ast.VarRef):
            if n.name in ctx.type_sets or n.name in ctx.row_sets:
                return None  # (the objects themselves)
        elif isinstance(n, ast.FuncCall):
            if n.name.removeprefix("std::") in _SET_OF_FUNCS or any(isinstance(a, ast.NamedArg) for a in n.args):
                return None
        elif isinstance(n, ast.BinOp):
            if n.op in ("??", "union", "except", "intersect", "in", "not in", "if"):
                return None
        elif isinstance(n, ast.UnaryOp):
            if n.op not in ("not", "-"):
                return None
        elif not isinstance(n, (ast.Literal, ast.Step, ast.Index, ast.Cast, ast.TypeRef, ast.Param)):
            return None
    if len(roots) != 1:
        return None
    name = roots.pop()
    return ast.ForExpr(name, expr.span, ast.VarRef(name, expr.span), expr, expr.span)


def coalesced_elementwise(expr, ctx: ExprContext):
    """``(left, right, with_left, with_right)`` when ``expr`` is computed element by element
    around one ``L ?? R`` whose ``L`` is computed element by element over a ``with`` selection
    (``len(<array<json>>(S.data['k'] ?? <json>[]))``) and ``R`` reads none: ``??`` takes ``L`` as
    a whole set (https://docs.geldata.com/reference/stdlib/set#operator::coalesce), so the
    values are ``expr`` over ``L``'s when it has any (``with_left``), else over ``R``
    (``with_right``). ``None`` otherwise."""
    found = [n for n in ast.iter_nodes(expr) if isinstance(n, ast.BinOp) and n.op == "??"]
    if len(found) != 1:
        return None
    node = found[0]
    left = node.left
    if elementwise_loop(left, ctx) is None and not (isinstance(left, ast.EnumRef) and left.enum in ctx.type_sets):
        return None
    if any(isinstance(n, ast.EnumRef) and n.enum in ctx.type_sets for n in ast.iter_nodes(node.right)):
        return None
    with_left = ast.map_expr(expr, lambda n: node.left if n is node else n)
    with_right = ast.map_expr(expr, lambda n: node.right if n is node else n)
    if with_left is not node.left and elementwise_loop(with_left, ctx) is None:
        return None
    return node.left, node.right, with_left, with_right


def free_loop(expr) -> bool:
    """``for i in range_unpack(r) union (select { ... })`` / ``... array_unpack(arr) ...``: a
    loop whose body is a free object (:func:`free_rows`)."""
    expr = expr.query if isinstance(expr, ast.StatementExpr) else expr
    if not isinstance(expr, ast.ForExpr) or not (isinstance(expr.source, ast.FuncCall) and expr.source.name in (
            "range_unpack", "std::range_unpack", "array_unpack", "std::array_unpack") and len(expr.source.args) == 1):
        return False
    body = expr.body.query if isinstance(expr.body, ast.StatementExpr) else expr.body
    if isinstance(body, ast.WithExpr):
        body = body.body
    if isinstance(body, ast.SelectExpr) and body.shape is None and not body.order \
            and body.offset is None and body.limit is None:
        body = body.subject
    return isinstance(body, ast.FreeObject)


def free_rows(loop, ctx: ExprContext) -> Optional[qir.FreeRows]:
    """The free objects of a :func:`free_loop` (https://docs.geldata.com/reference/edgeql/for,
    https://docs.geldata.com/reference/edgeql/select#free-objects): the loop's element (an
    integer of the range, https://docs.geldata.com/reference/stdlib/range#function::std::range_unpack,
    or an element of the array) is in scope in each field. ``None`` after reporting."""
    loop = loop.query if isinstance(loop, ast.StatementExpr) else loop
    src = loop.source
    arg = check(src.args[0], ctx)
    if arg is None:
        return None
    ranged = src.name.endswith("range_unpack")
    if ranged:
        family = getattr(arg.type.scalar, "sql_family", "") or "" if arg.type.element is None else ""
        elem = family.split(":", 1)[1] if family.startswith("range:") else ""
        if elem not in ("int32", "int64"):
            ctx.reporter.error("E0206" if family else "E0304", f"range_unpack() of a {arg.type.name} is supported for "
                               "ranges of int32 and int64 yet", src.span)
            return None
        vtype = ValueType(scalar=SCALARS[elem])
    else:
        if arg.type.element is None or arg.type.element.element is not None:
            ctx.reporter.error("E0304", f"array_unpack() needs an array, got {arg.type.name}", src.span)
            return None
        vtype = arg.type.element
    var = qir.LoopVar(loop.var, vtype, "_i", qi("_batch"))
    inner = dataclasses.replace(ctx, variables={**ctx.variables, loop.var: var})
    body = loop.body.query if isinstance(loop.body, ast.StatementExpr) else loop.body
    if isinstance(body, ast.WithExpr):
        # `(with gap := ..., ... select { ... } filter ...)`: names bound per element, written
        # where they are read
        for b in body.bindings:
            low = check(b.value, inner)
            if low is None:
                return None
            inner = dataclasses.replace(inner, variables={**inner.variables, b.name: qir.WithValue(b.name, low, True)})
        body = body.body
    cond = None
    if isinstance(body, ast.SelectExpr):
        if body.filter is not None:
            cond = check_filter(body.filter, inner)
            if cond is None:
                return None
        body = body.subject
    fields: List[Tuple[str, qir.Expr]] = []
    for el in body.elements:
        if el.value is None:
            ctx.reporter.error("E0206", "a free object's element in a 'for' loop is written name := <expr>", el.span)
            return None
        if any(n == el.name for n, _ in fields):
            ctx.reporter.error("E0309", f"'{el.name}' appears twice in the free object", el.span)
            return None
        low = check(el.value, inner)
        if low is None:
            return None
        if low.type.fields is not None or (low.type.element is not None and low.type.element.element is not None):
            ctx.reporter.error("E0206", f"a {low.type.name} element of a free object in a 'for' loop is not supported "
                               "yet", el.value.span)
            return None
        fields.append((el.name, low))
    return qir.FreeRows(loop.span, var, arg, "range" if ranged else "array", tuple(fields), filter=cond)


def first_free_row(sel, ctx: ExprContext) -> Optional[qir.FreeRows]:
    """``(select s order by .a [desc] limit 1)`` of a name bound to :func:`free_rows`: its first
    object in that order (https://docs.geldata.com/reference/edgeql/select#ordering); ``None``
    after reporting."""
    rows = ctx.free_rows[sel.subject.name]
    fields = dict(rows.fields)  # type: ignore[attr-defined]
    order = []
    for item in sel.order:
        e = item.expr
        if not (isinstance(e, ast.Path) and len(e.steps) == 1 and e.steps[0] in fields):
            ctx.reporter.error("E0206", "ordering free objects is supported by one of their fields (order by .name)",
                               e.span)
            return None
        f = fields[e.steps[0]]
        if f.type.family in ("json", "bytes") or f.type.element is not None:
            ctx.reporter.error("E0304", f"cannot order by a {f.type.name} value", e.span)
            return None
        key = qir.RowField(e.span, f.type, True, "_fr", e.steps[0])
        order.append(qir.OrderKey(item.span, key, item.descending,
                                  item.empty or ("last" if item.descending else "first")))
    return dataclasses.replace(rows, order=tuple(order), first=True)  # type: ignore[arg-type]


def for_rows(loop, ctx: ExprContext) -> Optional[qir.ForRows]:
    """``for x in S union <value of x>`` / ``for x in S union (for m in re_match_all(p, <str of
    x>) union m)`` of a set of objects ``S`` of the query's names (:func:`is_for_rows`), as a
    :class:`~schemac.semantics.qir.ForRows`: the body is read from each object of ``S``, its
    paths from ``x`` the object's own (https://docs.geldata.com/reference/edgeql/for). Any other
    body (objects, arrays of arrays, tuples) is E0206. ``None`` after reporting."""
    loop = loop.query if isinstance(loop, ast.StatementExpr) else loop
    objects = computed_sql.query_set(loop.source, ctx, qi(f"_fo{ctx.depth}"))
    if objects is None:
        return None
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                set_links=None, set_row=None, depth=ctx.depth + 1)
    body = loop.body.query if isinstance(loop.body, ast.StatementExpr) else loop.body
    while isinstance(body, ast.SelectExpr) and body.shape is None and body.filter is None and not body.order \
            and body.offset is None and body.limit is None:
        body = body.subject
    pattern = None
    if isinstance(body, ast.ForExpr):
        src, sub = body.source, body.body.query if isinstance(body.body, ast.StatementExpr) else body.body
        if not (isinstance(src, ast.FuncCall) and src.name in _SET_FUNCTIONS and len(src.args) == 2
                and not any(isinstance(a, ast.NamedArg) for a in src.args)
                and isinstance(sub, ast.VarRef) and sub.name == body.var):
            ctx.reporter.error("E0206", "a 'for' loop over objects whose body is another 'for' loop is supported as "
                               "(for m in re_match_all(pattern, x.prop) union m)", body.span)
            return None
        pattern = check(src.args[0], ctx, STR)
        body = src.args[1]
        if pattern is None:
            return None
        if pattern.type.family != "str" or pattern.type.element is not None:
            ctx.reporter.error("E0304", f"re_match_all() needs a str pattern, got {pattern.type.name}", src.args[0].span)
            return None
    body = _var_paths(body, loop.var)
    if pattern is None and not any(isinstance(n, ast.VarRef) and n.name == loop.var for n in ast.iter_nodes(body)) \
            and computed_sql.set_target(body, objects.source, ctx.schema, ctx.module) is not None:
        # `for e in events union (select e.participants filter ...)`: the objects each reaches
        targets = computed_sql.expr_object_set(body, inner, qi(f"_ft{ctx.depth}"), body.span)
        if targets is None:
            return None
        return qir.ForRows(loop.span, ValueType(scalar=SCALARS["uuid"]), objects, None, None, targets)
    if any(isinstance(n, ast.VarRef) and n.name == loop.var for n in ast.iter_nodes(body)):
        ctx.reporter.error("E0206", f"a 'for' loop over objects whose body reads the object '{loop.var}' itself (not "
                           "a path from it) is not supported yet", loop.body.span)
        return None
    value = check(body, inner, STR if pattern is not None else None)
    if value is None:
        return None
    if pattern is not None and (value.type.family != "str" or value.type.element is not None):
        ctx.reporter.error("E0304", f"re_match_all() needs a str, got {value.type.name}", body.span)
        return None
    if pattern is None and (value.type.element is not None or value.type.fields is not None):
        ctx.reporter.error("E0206", f"a 'for' loop over objects whose body is a {value.type.name} value is not "
                           "supported yet", loop.body.span)
        return None
    vtype = ValueType(element=STR) if pattern is not None else value.type
    return qir.ForRows(loop.span, vtype, objects, value, pattern)


def _count(expr: ast.FuncCall, ctx: ExprContext) -> Optional[qir.Expr]:
    """``count(.multi_link)``: the number of its links; ``count(.tags)`` of a multi property: the
    number of its values; of one value (an optional property, an ``array<T>`` property, a
    parameter): 1, or 0 when it is empty; ``count`` of a backlink or computed link:
    the number of its objects; ``count(User)`` / ``count((select User filter ...))``: the number
    of objects of the type (https://docs.geldata.com/reference/stdlib/set#function::std::count)."""
    if len(expr.args) == 1 and isinstance(expr.args[0], ast.VarRef) and expr.args[0].name in ctx.bound_writes \
            and expr.args[0].name not in ctx.variables:
        # `count(p)` of a write bound in `with` (or of `count((delete ...))` in a free object):
        # the number of objects it wrote, the rows of its CTE.
        name = expr.args[0].name
        w = ctx.bound_writes[name]
        objects = qir.ObjectSet(expr.span, qi(f"_c{ctx.depth}"), w.subject, True,  # type: ignore[attr-defined]
                                cte=f"_with_{name}")
        return qir.CountObjects(expr.span, INT64, False, objects)
    arg0 = expr.args[0] if len(expr.args) == 1 else None
    if isinstance(arg0, ast.VarRef) and arg0.name in ctx.free_rows and arg0.name not in ctx.variables:
        # `count(s)` of free objects of a `for` loop
        rows = ctx.free_rows[arg0.name]
        return qir.Call(expr.span, INT64, False, "count/free_rows",
                        (qir.FreeRowsAggregate(expr.span, INT64, False, "count", rows, None),))
    if arg0 is not None and elementwise_loop(arg0, ctx) is not None:
        # `count(S.data['k'])`: the objects of S whose value is not empty
        rows = for_rows(elementwise_loop(arg0, ctx), ctx)
        return None if rows is None else qir.CountRows(expr.span, INT64, False, rows)
    if isinstance(arg0, ast.VarRef) and arg0.name in ctx.row_sets and arg0.name not in ctx.variables \
            or arg0 is not None and is_for_rows(arg0, ctx):
        # `count(s)` of `with s := (for x in S union ...)`: the number of its values
        rows = for_rows(ctx.row_sets[arg0.name] if isinstance(arg0, ast.VarRef) else arg0, ctx)
        return None if rows is None else qir.CountRows(expr.span, INT64, False, rows)
    if len(expr.args) == 1 and _distinct_objects(expr.args[0], ctx) is not None:
        expr = dataclasses.replace(expr, args=(_distinct_objects(expr.args[0], ctx),))
    if len(expr.args) == 1 and computed_sql.type_set_of(expr.args[0], ctx) is not None:
        objects = computed_sql.type_set(expr.args[0], ctx, qi(f"_c{ctx.depth}"))
        return None if objects is None else qir.CountObjects(expr.span, INT64, False, objects)
    if len(expr.args) == 1 and _set_operand(expr.args[0], ctx) is not None:
        inner, scope = _set_operand(expr.args[0], ctx)  # type: ignore[misc]
        return _set_function(inner, scope, False)
    if len(expr.args) == 1 and _query_set_operand(expr.args[0], ctx):
        # `count(rolls)` of a paged selection, `count(rolls.received)`, `count((select rolls
        # filter ...))`: the (distinct) objects of a set of the query's names
        objects = computed_sql.query_set(expr.args[0], ctx, qi(f"_c{ctx.depth}"))
        return None if objects is None else qir.CountObjects(expr.span, INT64, False, objects)
    if len(expr.args) == 1 and computed_sql.query_value_target(expr.args[0], ctx):
        # `count(rolls.reason)`: the values (each object's, when it has one)
        found = computed_sql._object_path(expr.args[0], ctx, f"_c{ctx.depth}")
        if not found:
            return None
        objects, rest = found
        inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                    set_links=None, set_row=None)
        value = check(ast.Path(tuple(rest), expr.args[0].span), inner)
        if value is None:
            return None
        if value.type.element is not None:
            ctx.reporter.error("E0206", "count() of a multi property of several objects is not supported yet",
                               expr.args[0].span)
            return None
        return qir.AggregateObjects(expr.span, INT64, False, "count", objects, value)
    if len(expr.args) == 1 and computed_sql.is_set_operand(expr.args[0], ctx):
        objects = computed_sql.expr_object_set(expr.args[0], ctx, qi(f"_c{ctx.depth}"), expr.args[0].span)
        return None if objects is None else qir.CountObjects(expr.span, INT64, False, objects)
    if len(expr.args) == 1 and computed_sql.link_set_of(expr.args[0], ctx) is not None:
        objects = computed_sql.object_set_of(expr.args[0], ctx, f"_c{ctx.depth}")
        return None if objects is None else qir.CountObjects(expr.span, INT64, False, objects)
    if len(expr.args) == 1 and isinstance(expr.args[0], ast.Path) and len(expr.args[0].steps) >= 2 \
            and ctx.subject is not None:
        counted = _count_path_values(expr, expr.args[0], ctx)
        if counted is not False:
            return counted
    if len(expr.args) == 1 and _count_form_refused(expr.args[0], ctx):
        return None
    if len(expr.args) == 1 and (isinstance(expr.args[0], (ast.Cast, ast.Param, ast.Literal)) or (
            isinstance(expr.args[0], ast.VarRef) and isinstance(ctx.variables.get(expr.args[0].name), qir.WithValue))):
        # `count(<optional str>$x)`, `count(t)` of `with t := <str>$t`: one value, 1 or 0 when empty
        low = check(expr.args[0], ctx)
        if low is None:
            return None
        return qir.Call(expr.span, INT64, False, "count/one", (low,))
    if len(expr.args) != 1 or not isinstance(expr.args[0], ast.Path) or len(expr.args[0].steps) != 1:
        ctx.reporter.error("E0304", "count() takes one property or link of the subject, e.g. count(.tags)", expr.span)
        return None
    name = expr.args[0].steps[0]
    pl = ctx.subject.poly_links.get(name) if ctx.subject is not None else None
    if pl is not None and pl.multi and ctx.subject is not None:
        # a polymorphic multi link: its join rows, whatever their target's type
        from schemac.semantics import policies

        link = Link(pl.name, pl.targets[0][0], True, pl.required, None, pl.join_table)
        return qir.CountLink(expr.span, INT64, False, ctx.subject, link, ctx.column_prefix or qi(ctx.subject.table),
                             policies.join_row_visible(link, ctx, poly=pl))
    if refuse_poly_link(ctx.subject, name, expr.span, ctx.reporter):
        return None
    link = ctx.subject.links.get(name) if ctx.subject is not None else None
    if link is not None and link.multi and ctx.subject is not None:
        from schemac.semantics import policies

        return qir.CountLink(expr.span, INT64, False, ctx.subject, link, ctx.column_prefix or qi(ctx.subject.table),
                             policies.join_row_visible(link, ctx))
    arg = check(expr.args[0], ctx)
    if arg is None:
        return None
    if arg.type.element is None or (type(arg) is qir.ColumnRef and not arg.column.multi):  # type: ignore[attr-defined]
        # one value (`count(.nick)`, `count(<optional str>$x)`, an array<T> property: one array):
        # a set of at most one element, 1 when it is there, 0 when empty
        return qir.Call(expr.span, INT64, False, "count/one", (arg,))
    return qir.Call(expr.span, INT64, False, "count_array", (arg,))


def _query_set_operand(arg, ctx: ExprContext) -> bool:
    """``arg`` is a set of objects of the query's names (:func:`computed_sql.query_set`) that
    the simpler forms (``count(User)``, ``count(u)`` of a filtered ``with`` selection) do not
    read: a path from a ``with`` name or a type, a paged selection, a sub-select of one."""
    while isinstance(arg, ast.SelectExpr) and arg.shape is None and arg.filter is None and not arg.order \
            and arg.offset is None and arg.limit is None:
        arg = arg.subject
    if computed_sql.type_set_of(arg, ctx) is not None and not isinstance(arg, ast.VarRef):
        return False
    if isinstance(arg, ast.VarRef) and arg.name not in ctx.type_sets:
        return False  # (a type, a value: the forms below)
    if isinstance(arg, ast.VarRef) and computed_sql.type_set_of(arg, ctx) is not None:
        return False
    if isinstance(arg, ast.EnumRef) and arg.enum not in ctx.type_sets and arg.enum not in ctx.variables:
        return False  # (Type.link: count()'s own refusal)
    return computed_sql.query_set_target(arg, ctx) is not None


def _count_path_values(expr: ast.FuncCall, arg: ast.Path, ctx: ExprContext):
    """``count(.keywords.name)``: the number of values of a property over the distinct objects a
    path through a multi link (or a computed link) reaches, those without a value not counted
    (Gel's set ``.keywords.name``, https://docs.geldata.com/reference/stdlib/set#function::std::count):
    ``(SELECT count(name) FROM <the objects>)``. ``False`` when ``arg`` is not such a path."""
    found = computed_sql._object_path(arg, ctx, f"_c{ctx.depth}")
    if found is None:
        return False
    if found is False:
        return None
    objects, rest = found
    source = objects.source
    comp = source.computeds.get(rest[0]) if len(rest) == 1 else None
    col = source.column(rest[0]) if len(rest) == 1 else None
    if not ((col is not None and col.link is None and rest[0] not in source.links)
            or (comp is not None and comp.target is None)):
        return False
    inner = dataclasses.replace(ctx, subject=source, column_prefix=objects.alias, subject_column=None,
                                variables={}, bound_statements={}, set_links=None, set_row=None)
    value = check(ast.Path(tuple(rest), arg.span), inner)
    if value is None:
        return None
    if value.type.element is not None:
        ctx.reporter.error("E0206", "count() of a multi property of several objects is not supported yet", arg.span)
        return None
    return qir.AggregateObjects(expr.span, INT64, False, "count", objects, value)


def _distinct_objects(arg, ctx: ExprContext):
    """``distinct S`` / ``(select distinct S filter f)`` of a set of objects of the query's names
    (:func:`_query_set_operand`: a path from a ``with`` name, ``res.<messages[is Thread]``) as
    ``S`` / ``(select S filter f)``: such a set holds each object once (a path's objects are
    distinct in Gel, https://docs.geldata.com/reference/edgeql/paths), so ``distinct``
    (https://docs.geldata.com/reference/stdlib/set#operator::distinct) changes nothing;
    ``None`` for any other expression."""
    if isinstance(arg, ast.UnaryOp) and arg.op == "distinct":
        return arg.operand if _query_set_operand(arg.operand, ctx) else None
    if isinstance(arg, ast.SelectExpr) and arg.shape is None and isinstance(arg.subject, ast.UnaryOp) \
            and arg.subject.op == "distinct":
        inner = dataclasses.replace(arg, subject=arg.subject.operand)
        return inner if _query_set_operand(inner, ctx) else None
    return None


def _count_form_refused(arg, ctx: ExprContext) -> bool:
    """Valid Gel that ``count()`` does not lower yet gets a located E0206 naming the form
    (https://docs.geldata.com/reference/stdlib/set#function::std::count): a path from a type
    (``count(Person.friends)``, the distinct objects its links reach) and a selection with
    ``order by`` / ``offset`` / ``limit`` (``with u := (select Person ... limit 2) select count(u)``)."""
    if isinstance(arg, ast.EnumRef) and arg.enum not in ctx.variables and arg.enum not in ctx.type_sets \
            and ctx.schema.find_type(arg.enum, ctx.module) is not None:
        ctx.reporter.error("E0206", f"count() of a path from a type ('{arg.enum}.{arg.member}') is not supported yet",
                           arg.span, f"count the links of each object instead: select {arg.enum} "
                           f"{{ n := count(.{arg.member}) }}")
        return True
    if isinstance(arg, ast.StatementExpr):
        # `count((delete Music filter ...))`: the number of objects the statement wrote
        ctx.reporter.error("E0206", "count() of an insert, update or delete is not supported yet", arg.span,
                           "run the statement as a query of its own: the runners return the objects it wrote")
        return True
    if (isinstance(arg, ast.BinOp) and arg.op == "union") or (isinstance(arg, ast.SetLit) and len(arg.items) > 1):
        # `count(Book union Film)`: valid Gel (a multiset sum of objects), not lowered here
        ctx.reporter.error("E0206", "count() of a union is not supported yet", arg.span,
                           "add the counts of the operands: count(A) + count(B)")
        return True
    sel = arg
    if isinstance(arg, ast.VarRef) and arg.name in ctx.type_sets and arg.name not in ctx.variables:
        sel = ctx.type_sets[arg.name]
    if isinstance(sel, ast.SelectExpr) and (sel.order or sel.offset is not None or sel.limit is not None):
        ctx.reporter.error("E0206", "count() of a selection with order by / offset / limit is not supported yet",
                           arg.span, "count the filtered selection: count((select T filter ...))")
        return True
    return False


#: Functions with arguments: name -> (arity, argument family, result type); their SQL is
#: ``schemac.pgsql.calls.CALLS[name]``. ``len`` works on str and arrays.
FUNCTIONS_WITH_ARGS = {
    "str_lower": (1, "str", STR),
    "str_upper": (1, "str", STR),
    "str_trim": (1, "str", STR),
    "re_test": (2, "str", BOOL),
}

def _ext_func(expr: ast.FuncCall, ctx: ExprContext) -> Optional[qir.Expr]:
    """A function of an extension module (:data:`schemac.semantics.extensions.EXT_FUNCTIONS`): its
    arguments checked and typed (an untyped parameter takes the argument's type), lowered to the
    Postgres function or operator of the same meaning."""
    if not ext_needs(expr.name, expr.span, ctx):
        return None
    if expr.name in POSTGIS_FUNCTIONS or extension_of(expr.name) == "postgis":
        return _postgis_func(expr, ctx)
    spec = EXT_FUNCTIONS.get(expr.name)
    if spec is None:
        ext = extension_of(expr.name)
        ctx.reporter.error("E0206", f"function '{expr.name}()' is not supported", expr.span,
                           did_you_mean(expr.name, [f for f in EXT_FUNCTIONS if extension_of(f) == ext]))
        return None
    kinds, result = spec
    optional_last = EXT_FUNCTION_OPTIONAL_LAST.get(expr.name)
    if optional_last is not None and len(expr.args) == len(kinds) + 1:
        kinds = kinds + (optional_last,)
    if len(expr.args) != len(kinds):
        ctx.reporter.error("E0304", f"{expr.name}() takes {len(kinds)} argument{'s' if len(kinds) != 1 else ''}",
                           expr.span)
        return None
    args = []
    for a, kind in zip(expr.args, kinds):
        expected = {"str": STR, "bytes_or_str": STR, "int": INT64, "vector": VECTOR_PARAM}[kind]
        low = check(a, ctx, expected)
        if low is None:
            return None
        ok = {"str": low.type.family == "str", "bytes_or_str": low.type.family in ("str", "bytes"),
              "int": low.type.family == "num" and low.type.scalar is not None
              and low.type.scalar.name in ("int16", "int32", "int64"),
              "vector": low.type.family == "vector"}[kind]
        if not ok or low.type.element is not None:
            what = {"bytes_or_str": "str or bytes", "int": "an integer", "vector": VECTOR}.get(kind, kind)
            ctx.reporter.error("E0304", f"{expr.name}() needs {what} here, got {low.type.name}", a.span)
            return None
        args.append(low)
    return qir.Call(expr.span, ValueType(scalar=SCALARS[result]), any(a.nullable for a in args), expr.name,
                    tuple(args))


def _postgis_func(expr: ast.FuncCall, ctx: ExprContext) -> Optional[qir.Expr]:
    """A PostGIS function as Gel's ``ext::postgis`` names it (ST_ name without the prefix,
    https://docs.geldata.com/reference/stdlib/postgis), by its overloads in
    :data:`schemac.semantics.extensions.POSTGIS_FUNCTIONS`: the first whose argument types fit
    (an untyped parameter takes the type of the first overload's argument; integers are
    accepted where a float64 is). Empty when an argument is, as PostGIS's functions are strict."""
    overloads = POSTGIS_FUNCTIONS.get(expr.name)
    if overloads is None:
        ctx.reporter.error("E0206", f"function '{expr.name}()' is not supported", expr.span,
                           did_you_mean(expr.name, list(POSTGIS_FUNCTIONS)) or
                           f"supported: {', '.join(n.split('::')[-1] for n in POSTGIS_FUNCTIONS)}")
        return None
    arities = sorted({len(k) for k, _ in overloads})
    candidates = [o for o in overloads if len(o[0]) == len(expr.args)]
    if not candidates:
        ctx.reporter.error("E0304", f"{expr.name}() takes {' or '.join(map(str, arities))} arguments", expr.span)
        return None

    def vt(name: str) -> ValueType:
        return ValueType(scalar=POSTGIS_SCALARS.get(name) or SCALARS[name])

    args = []
    for i, a in enumerate(expr.args):
        low = check(a, ctx, vt(candidates[0][0][i]))
        if low is None:
            return None
        args.append(low)

    def fits(want: str, got: qir.Expr) -> bool:
        if got.type.element is not None:
            return False
        if want in ("float64", "int64"):
            return got.type.family == "num" and (want == "float64" or got.type.scalar.name in
                                                 ("int16", "int32", "int64"))  # type: ignore[union-attr]
        return got.type.family == vt(want).family

    for kinds, result in candidates:
        if all(fits(k, a) for k, a in zip(kinds, args)):
            # (the overload's argument types: the lowering casts a number to a float64 one)
            return qir.Call(expr.span, vt(result), any(a.nullable for a in args), expr.name, tuple(args), kinds)
    got = ", ".join(a.type.name for a in args)
    want = "; ".join("(" + ", ".join(k) + ")" for k, _ in candidates)
    ctx.reporter.error("E0304", f"{expr.name}() takes {want}, got ({got})", expr.span)
    return None


def _range_func(expr: ast.FuncCall, name: str, ctx: ExprContext) -> Optional[qir.Expr]:
    """Gel's range functions (https://docs.geldata.com/reference/stdlib/range):
    ``range(lower, upper)`` (bounds ``[lower, upper)``, either may be empty: unbounded) ->
    ``int8range($1, $2)`` etc.; ``contains(r, x)`` -> ``r @> x`` (``x`` a value or a range);
    ``overlaps(a, b)`` -> ``a && b``; ``range_is_empty(r)``, ``range_get_lower(r)``,
    ``range_get_upper(r)`` -> ``isempty``, ``lower``, ``upper``."""
    arity = {"range": 2, "contains": 2, "overlaps": 2}.get(name, 1)
    if len(expr.args) != arity:
        ctx.reporter.error("E0304", f"{name}() takes {arity} argument{'s' if arity > 1 else ''}", expr.span)
        return None
    if name == "range":
        lo = check(expr.args[0], ctx)
        if lo is None:
            return None
        hi = check(expr.args[1], ctx, lo.type)
        if hi is None:
            return None
        elem = lo.type.scalar.name if lo.type.scalar is not None and lo.type.element is None else None
        if elem not in RANGE_ELEMENTS or hi.type.family != lo.type.family:
            ctx.reporter.error("E0304", f"range() needs two bounds of one range element type, got {lo.type.name} and "
                               f"{hi.type.name}", expr.span,
                               "ranges are of int32, int64, decimal, datetime, cal::local_datetime or cal::local_date")
            return None
        rt = range_scalar(elem, False)  # type: ignore[arg-type]
        return qir.Call(expr.span, ValueType(scalar=rt), lo.nullable or hi.nullable, "range", (lo, hi))
    first = check(expr.args[0], ctx)
    if first is None:
        return None
    kind = range_kind(first.type.scalar) if first.type.element is None else ""
    if not kind:
        ctx.reporter.error("E0304", f"{name}() needs a range or multirange, got {first.type.name}", expr.args[0].span)
        return None
    elem_name = first.type.scalar.sql_family.split(":", 1)[1]  # type: ignore[union-attr]
    if name in ("range_is_empty", "range_get_lower", "range_get_upper"):
        if kind != "range":
            ctx.reporter.error("E0304", f"{name}() needs a range, got {first.type.name}", expr.args[0].span)
            return None
        if name == "range_is_empty":
            return qir.Call(expr.span, BOOL, first.nullable, name, (first,))
        return qir.Call(expr.span, ValueType(scalar=SCALARS[elem_name]), True, name, (first,))
    second = check(expr.args[1], ctx, first.type)
    if second is None:
        return None
    allowed = {first.type.family, f"range:{elem_name}", f"multirange:{elem_name}"}
    if name == "contains":
        allowed.add(SCALARS[elem_name].sql_family)
    if second.type.family not in allowed or second.type.element is not None:
        ctx.reporter.error("E0304", f"{name}() cannot take {first.type.name} and {second.type.name}", expr.span)
        return None
    # (a parameter is always cast: '@>' takes a range or an element, Postgres cannot tell which)
    return qir.Call(expr.span, BOOL, first.nullable or second.nullable, "range_" + name, (first, second))


#: Gel's duration constructors (named arguments) -> (result, their units).
_TIME_CONSTRUCTORS = {
    "to_duration": ("duration", ("hours", "minutes", "seconds", "microseconds")),
    "cal::to_relative_duration": ("cal::relative_duration", (
        "years", "months", "days", "hours", "minutes", "seconds", "microseconds")),
    "cal::to_date_duration": ("cal::date_duration", ("years", "months", "days")),
}


def _time_func(expr: ast.FuncCall, name: str, ctx: ExprContext) -> Optional[qir.Expr]:
    """Gel's date and time constructors (https://docs.geldata.com/reference/stdlib/datetime):
    ``to_duration(hours := 1, minutes := 30)`` (and ``cal::to_relative_duration``,
    ``cal::to_date_duration``) -> ``make_interval(...)``; ``cal::to_local_date(s)`` and the other
    ``cal::to_local_*(s)`` -> a cast of the text; ``cal::to_local_date(dt, zone)`` /
    ``cal::to_local_datetime(dt, zone)`` -> the wall-clock date / time of ``dt`` in ``zone``;
    ``duration_to_seconds(d)`` -> ``EXTRACT(EPOCH FROM d)`` (decimal)."""
    if name in _TIME_CONSTRUCTORS:
        result, units = _TIME_CONSTRUCTORS[name]
        if not expr.args:
            ctx.reporter.error("E0304", f"{name}() needs at least one named argument", expr.span,
                               f"its arguments: {', '.join(n + ' := ...' for n in units)}")
            return None
        nullable = False
        values: List[qir.Expr] = []
        for arg in expr.args:
            if not isinstance(arg, ast.NamedArg) or arg.name not in units:
                ctx.reporter.error("E0304", f"{name}() takes named arguments: {', '.join(units)}",
                                   arg.span, did_you_mean(arg.name, list(units)) if isinstance(arg, ast.NamedArg) else None)
                return None
            low = check(arg.value, ctx, INT64)
            if low is None:
                return None
            integral = low.type.scalar is not None and low.type.scalar.name in ("int16", "int32", "int64") \
                and not (isinstance(arg.value, ast.Literal) and arg.value.kind == "float")
            if low.type.family != "num" or low.type.element is not None or (arg.name != "seconds" and not integral):
                what = "a number" if arg.name == "seconds" else "an integer"
                got = "a fractional number" if isinstance(arg.value, ast.Literal) and arg.value.kind == "float" \
                    else low.type.name
                ctx.reporter.error("E0304", f"'{arg.name}' must be {what}, got {got}", arg.value.span,
                                   "fractions of a unit go in seconds := ..." if arg.name != "seconds" else None)
                return None
            nullable = nullable or low.nullable
            values.append(low)
        # (the units, in the order of the values)
        return qir.Call(expr.span, ValueType(scalar=SCALARS[result]), nullable, name, tuple(values),
                        tuple(arg.name for arg in expr.args))
    args = []
    for a in expr.args:
        low = check(a, ctx, STR)
        if low is None:
            return None
        args.append(low)
    if name == "duration_to_seconds":
        if len(args) != 1 or args[0].type.family not in ("duration",):
            ctx.reporter.error("E0304", "duration_to_seconds() takes one duration", expr.span)
            return None
        return qir.Call(expr.span, ValueType(scalar=SCALARS["decimal"]), args[0].nullable, name, (args[0],))
    target = {"cal::to_local_date": "cal::local_date", "cal::to_local_datetime": "cal::local_datetime",
              "cal::to_local_time": "cal::local_time"}[name]
    nullable = any(a.nullable for a in args)
    if len(args) == 1 and args[0].type.family == "str":
        return qir.Call(expr.span, ValueType(scalar=SCALARS[target]), nullable, name + "/str", (args[0],))
    if len(args) == (6 if name == "cal::to_local_datetime" else 3) \
            and all(a.type.family == "num" and a.type.element is None for a in args):
        # the parts (year, month, day [, hour, min, sec]), sec a float64
        # (https://docs.geldata.com/reference/stdlib/datetime#function::cal::to_local_date)
        return qir.Call(expr.span, ValueType(scalar=SCALARS[target]), nullable, name + "/parts", tuple(args))
    if len(args) == 2 and args[0].type.family == "datetime" and args[1].type.family == "str":
        return qir.Call(expr.span, ValueType(scalar=SCALARS[target]), nullable, name + "/zone", (args[0], args[1]))
    ctx.reporter.error("E0304", f"{name}() takes a str, or a datetime and a time zone name", expr.span,
                       f"write e.g. {name}('...') or {name}(datetime_current(), 'Europe/Paris')")
    return None


#: to_int16(s) ... to_decimal(s): the type each reads a str as (with no format argument).
_TO_NUMBER = {"to_int16": "int16", "to_int32": "int32", "to_int64": "int64", "to_float32": "float32",
              "to_float64": "float64", "to_decimal": "decimal", "to_bigint": "bigint"}


def _to_datetime(expr: ast.FuncCall, ctx: ExprContext) -> Optional[qir.Expr]:
    """``to_datetime()`` (https://docs.geldata.com/reference/stdlib/datetime#function::std::to_datetime):
    of an ISO 8601 string with a time zone (``CAST(s AS timestamptz)``; the statement fails on
    another string, as Gel's, where Postgres would read it in the session's time zone); of a
    string and a format holding ``TZH`` (``to_timestamp(s, fmt)``); of a ``cal::local_datetime``
    and a time zone (``timezone(zone, ldt)``); of the parts year, month, day, hour, min, sec and a
    time zone (``make_timestamptz``); of seconds since the Unix epoch (``to_timestamp(x)``)."""
    if any(isinstance(a, ast.NamedArg) for a in expr.args) or len(expr.args) not in (1, 2, 7):
        ctx.reporter.error("E0304", "to_datetime() takes a str [and a format], a cal::local_datetime and a time zone, "
                           "seven parts (year, month, day, hour, min, sec, zone) or a number of seconds", expr.span)
        return None
    args = []
    for i, a in enumerate(expr.args):
        low = check(a, ctx, (INT64 if i < 5 else FLOAT64 if i == 5 else STR) if len(expr.args) == 7 else STR)
        if low is None:
            return None
        if low.type.element is not None:
            ctx.reporter.error("E0304", f"to_datetime() cannot take {low.type.name}", a.span)
            return None
        args.append(low)
    families = tuple(a.type.family for a in args)
    nullable = any(a.nullable for a in args)
    if families == ("str",):
        return qir.Call(expr.span, DATETIME, nullable, "to_datetime/str", tuple(args))
    if families == ("num",):
        return qir.Call(expr.span, DATETIME, nullable, "to_datetime/epoch", tuple(args))
    if families == ("local_datetime", "str"):
        return qir.Call(expr.span, DATETIME, nullable, "to_datetime/zone", tuple(args))
    if families == ("str", "str"):
        fmt = expr.args[1]
        if not (isinstance(fmt, ast.Literal) and fmt.kind == "str"):
            ctx.reporter.error("E0206", "to_datetime() with a format that is not a string literal is not supported",
                               fmt.span, "write the format, e.g. to_datetime(s, 'YYYY-MM-DD HH24:MI TZH')")
            return None
        unquoted = re.sub(r'"([^"\\]|\\.)*"', "", str(fmt.value))
        if "TZH" not in unquoted:
            ctx.reporter.error("E0304", f"to_datetime()'s format {sql_string(str(fmt.value))} has no time zone",
                               fmt.span, "a datetime needs one: add TZH (and TZM), or read a cal::local_datetime with "
                               "cal::to_local_datetime(s, fmt)")
            return None
        return qir.Call(expr.span, DATETIME, nullable, "to_datetime/format", tuple(args))
    if len(args) == 7 and families[:6] == ("num",) * 6 and families[6] == "str":
        return qir.Call(expr.span, DATETIME, nullable, "to_datetime/parts", tuple(args))
    ctx.reporter.error("E0304", f"to_datetime() cannot take ({', '.join(a.type.name for a in args)})", expr.span,
                       "it takes a str [and a format], a cal::local_datetime and a time zone, seven parts or a number")
    return None


def _fts_search(expr: ast.FuncCall, name: str, ctx: ExprContext, exists: bool = False) -> Optional[qir.Expr]:
    """``fts::search(Doc, q [, language := 'eng'] [, weights := w])``
    (https://docs.geldata.com/reference/stdlib/fts) of the row in scope, a ``Doc``: Gel's
    ``optional tuple<object: Doc, score: float32>``. Under ``exists`` (``exists`` true) it is
    whether the row's document matches; :data:`schemac.semantics.fts.SCORE_FUNC` (what
    ``res.score`` of ``with res := (select fts::search(...))`` becomes) is the score of the
    match. See :mod:`schemac.semantics.fts`."""
    if name == "fts::with_options":
        ctx.reporter.error("E0304", "fts::with_options() is only valid in an fts::index", expr.span)
        return None
    positional = [a for a in expr.args if not isinstance(a, ast.NamedArg)]
    named = [a for a in expr.args if isinstance(a, ast.NamedArg)]
    subject = ctx.subject
    if len(positional) != 2 or not isinstance(positional[0], ast.VarRef) or subject is None \
            or positional[0].name not in (subject.name, subject.qualname):
        ctx.reporter.error("E0304", "fts::search() takes the type being selected and a query string", expr.span,
                           f"write e.g. filter exists fts::search({subject.name if subject else 'Doc'}, <str>$q)")
        return None
    if name != fts.SCORE_FUNC and not exists:
        ctx.reporter.error("E0304", f"fts::search() is an optional tuple<object: {subject.name}, score: float32>, "
                           "not a bool", expr.span,
                           f"test a match with exists fts::search({subject.name}, ...), or bind it, with res := "
                           f"(select fts::search({subject.name}, ...)), and select res.object {{ ..., "
                           "score := res.score }")
        return None
    if subject.fts_document is None:
        ctx.reporter.error("E0206", f"type '{subject.name}' has no fts::index to search", expr.span,
                           f"declare index fts::index on (fts::with_options(.<property>, language := "
                           f"fts::Language.eng)) on {subject.name}")
        return None
    language = "eng"
    weights: Optional[qir.Expr] = None
    for arg in named:
        if arg.name not in ("language", "weights"):
            ctx.reporter.error("E0304", f"fts::search() has no argument '{arg.name}'", arg.span,
                               "its named arguments: language := '<lang>', weights := [<A>, <B>, <C>, <D>]")
            return None
        value = arg.value
        if arg.name == "weights":
            weights = check(value, ctx, ValueType(element=FLOAT64))
            if weights is None:
                return None
            if weights.type.element is None or weights.type.element.family != "num":
                ctx.reporter.error("E0304", f"weights must be an array<float64>, got {weights.type.name}", value.span,
                                   "e.g. weights := [1, 0.5] (the weights of categories A, B, C, D)")
                return None
            continue
        if isinstance(value, ast.Literal) and value.kind == "str" and value.value in fts.LANGUAGES:
            language = str(value.value)
        elif isinstance(value, ast.Literal):
            ctx.reporter.error("E0304", "language must name an fts::Language member", arg.span,
                               did_you_mean(str(value.value), list(fts.LANGUAGES))
                               or f"one of: {', '.join(fts.LANGUAGES)}")
            return None
        else:
            ctx.reporter.error("E0206", "fts::search() with a language other than a string literal is not supported",
                               arg.span, "e.g. language := 'eng'")
            return None
    query = check(positional[1], ctx, STR)
    if query is None:
        return None
    if query.type.family != "str" or query.type.element is not None:
        ctx.reporter.error("E0304", f"fts::search() needs a str query, got {query.type.name}", positional[1].span)
        return None
    parts: List[qir.Expr] = []
    document: List[Tuple[str, str]] = []
    for value, module, part_language, weight in subject.fts_parts:
        low = check(value, dataclasses.replace(ctx, module=module))  # type: ignore[arg-type]
        if low is None:
            return None
        parts.append(low)
        document.append((part_language, weight or "A"))
    tsquery: qir.Expr = qir.FtsQuery(query.span, TSQUERY, query.nullable, query, fts.regconfig(language))
    tsquery = _fts_bound(tsquery, (positional[1].span, language), ctx)
    if weights is not None:
        weights = qir.FtsWeights(weights.span, REAL_ARRAY, False, weights)
        weights = _fts_bound(weights, (weights.span, "weights"), ctx)
    score = name == fts.SCORE_FUNC
    return qir.FtsSearch(expr.span, FLOAT32 if score else BOOL, query.nullable, tuple(parts), tuple(document),
                         tsquery, score, weights)


def _fts_bound(value: qir.Expr, key: object, ctx: ExprContext) -> qir.Expr:
    """``value`` (a full-text query's tsquery, a search's weights) computed once, in a ``with``
    binding of the query (``ctx.fts_queries``, one per ``key``), where the query has them;
    else ``value`` itself."""
    if ctx.fts_queries is None:
        return value
    if key not in ctx.fts_queries:
        taken = set(ctx.variables) | set(ctx.type_sets) | set(ctx.bound_statements) \
            | {b.name for b in ctx.fts_queries.values()}
        n = len(ctx.fts_queries) + 1
        while f"fts{n}" in taken:
            n += 1
        ctx.fts_queries[key] = qir.WithValue(f"fts{n}", value, False)
    binding = ctx.fts_queries[key]
    return qir.VarRef(value.span, value.type, value.nullable, binding.name, binding)


def _sequence_func(expr: ast.FuncCall, name: str, ctx: ExprContext) -> Optional[qir.Expr]:
    """``sequence_next(introspect T)`` -> ``nextval(...)``; ``sequence_reset(introspect T)`` ->
    ``setval(..., 1, false)`` (the next value is 1 again), ``sequence_reset(introspect T, v)`` ->
    ``setval(..., v)`` (the next value is v + 1), as
    https://docs.geldata.com/reference/stdlib/sequence documents them; all return int64."""
    arity = (1,) if name == "sequence_next" else (1, 2)
    if len(expr.args) not in arity or not isinstance(expr.args[0], ast.Introspect):
        ctx.reporter.error("E0304", f"{name}() takes 'introspect <sequence type>'"
                           + (" and an optional int64 value" if name == "sequence_reset" else ""), expr.span,
                           f"write e.g. {name}(introspect TicketNo)")
        return None
    ref = expr.args[0].type
    custom = ctx.schema.find(ref.name, ctx.module, ctx.schema.scalars)
    if custom is None or not getattr(custom, "sequence", None):
        ctx.reporter.error("E0304", f"'{ref}' is not a sequence type", ref.span,
                           "declare it with: scalar type <Name> extending sequence;")
        return None
    seq = (custom.sequence,)  # type: ignore[attr-defined]
    if len(expr.args) == 1:
        return qir.Call(expr.span, INT64, False, name, (), seq)
    value = check(expr.args[1], ctx, INT64)
    if value is None:
        return None
    if value.type.family != "num" or value.type.element is not None:
        ctx.reporter.error("E0304", f"sequence_reset() needs an int64 value, got {value.type.name}", expr.args[1].span)
        return None
    return qir.Call(expr.span, INT64, value.nullable, name, (value,), seq)


_ASSERTS = ("assert_single", "assert_exists", "assert_distinct")


def assert_call(expr) -> Optional[Tuple[str, object, Optional[object]]]:
    """``(function, argument, message)`` of ``assert_single(x)`` / ``assert_exists(x)`` /
    ``assert_distinct(x)``, also with ``message := <str>`` (``message`` its syntax, else
    ``None``); ``None`` for any other expression."""
    if not isinstance(expr, ast.FuncCall) or expr.name.replace("std::", "") not in _ASSERTS:
        return None
    pos = [a for a in expr.args if not isinstance(a, ast.NamedArg)]
    named = [a for a in expr.args if isinstance(a, ast.NamedArg)]
    if len(pos) != 1 or len(named) > 1 or (named and named[0].name != "message"):
        return None
    return expr.name.replace("std::", ""), pos[0], named[0].value if named else None


def assert_message(message, ctx: ExprContext):
    """The text of an assertion's ``message := '...'`` (https://docs.geldata.com/reference/stdlib/set#function::std::assert_single):
    ``None`` without one; ``False`` after reporting one that is not a string literal."""
    if message is None:
        return None
    if isinstance(message, ast.Literal) and message.kind == "str":
        return message.value
    ctx.reporter.error("E0206", "an assertion's message := other than a string literal is not supported yet",
                       message.span, "write message := 'the text'")
    return False


#: The set functions that take a set of values written in the query (https://docs.geldata.com/reference/stdlib/set).
_VALUE_SET_AGGREGATES = ("count", "sum", "min", "max", "math::mean", "array_agg", "any", "all")
_UNPACK_FUNCS = ("array_unpack", "std::array_unpack")


def value_set_parts(expr, ctx: Optional[ExprContext] = None):
    """``{a, b} union array_unpack(arr) union ...`` (also through a ``with`` name bound to one,
    when ``ctx`` is given) as its parts, ``[(syntax, unpacked)]``; ``None`` for any other
    expression (one value, objects, paths)."""
    if ctx is not None and isinstance(expr, ast.VarRef) and expr.name not in ctx.variables \
            and expr.name in ctx.type_sets:
        return value_set_parts(ctx.type_sets[expr.name], ctx)
    if isinstance(expr, ast.BinOp) and expr.op == "union":
        left, right = value_set_parts(expr.left, ctx), value_set_parts(expr.right, ctx)
        if left is None and right is None:
            return None
        return (left if left is not None else [(expr.left, False)]) + \
            (right if right is not None else [(expr.right, False)])
    if isinstance(expr, ast.SetLit) and expr.items:
        return [(item, False) for item in expr.items]
    if isinstance(expr, ast.FuncCall) and expr.name in _UNPACK_FUNCS and len(expr.args) == 1:
        return [(expr.args[0], True)]
    return None


def _objects_part(expr, ctx: ExprContext) -> bool:
    """Whether a part of a set is (may be) objects: a type, a selection, a ``with`` selection."""
    return isinstance(expr, (ast.SelectExpr, ast.SubSelect, ast.StatementExpr, ast.Path, ast.Backlink)) or (
        isinstance(expr, ast.VarRef) and expr.name not in ctx.variables and (
            expr.name in ctx.type_sets or ctx.schema.find_type(expr.name, ctx.module) is not None))


def value_set_array(expr, ctx: ExprContext):
    """A set of values written in the query, ``{1, 2}``, ``{<str>$a, <str>$b}``,
    ``array_unpack(<array<int64>>$xs)``, their ``union``, or a ``with`` name bound to one
    (https://docs.geldata.com/reference/edgeql/sets), as the array of its elements in the order
    written (an empty element is none): ``array_remove(ARRAY[a, b], NULL) || coalesce(xs, '{}')``.
    The elements meet at one type as a set literal's do (numbers at the widest). ``None`` when
    ``expr`` is no such set; ``False`` after reporting."""
    call = assert_call(expr)
    if call is not None and call[0] == "assert_distinct" and value_set_parts(call[1], ctx) is not None:
        # `count(assert_distinct({1, 2}))`: the checked set's array
        found = check(expr, ctx)
        return False if found is None else found
    parts = value_set_parts(expr, ctx)
    if parts is None or any(not unpack and _objects_part(e, ctx) for e, unpack in parts):
        return None
    order = ("int16", "int32", "int64", "bigint", "float32", "float64", "decimal")
    rank = {n: i for i, n in enumerate(order)}
    lows: List[Tuple[qir.Expr, bool]] = []
    elem: Optional[ValueType] = None
    for e, unpack in parts:
        hint = None if isinstance(e, ast.Literal) else elem
        low = check(e, ctx, ValueType(element=hint) if unpack and hint is not None else hint)
        if low is None:
            return False
        vtype = low.type.element if unpack else low.type
        if vtype is None:
            ctx.reporter.error("E0304", f"array_unpack() needs an array, got {low.type.name}", e.span)
            return False
        if vtype.element is not None or vtype.fields is not None:
            ctx.reporter.error("E0206", f"a set of {vtype.name} values is not supported here yet", e.span)
            return False
        if elem is not None and vtype.family != elem.family:
            ctx.reporter.error("E0304", f"a set mixes {elem.name} and {vtype.name}", e.span,
                               "give every element the same type, e.g. with a cast <T>")
            return False
        if elem is None or (vtype.family == "num" and rank.get(vtype.scalar.name if vtype.scalar else "", -1) >
                            rank.get(elem.scalar.name if elem.scalar else "", -1)):
            elem = vtype
        lows.append((low, unpack))
    assert elem is not None
    # (consts: which parts are arrays unpacked)
    return qir.Call(expr.span, ValueType(element=elem), False, "value_set_array", tuple(low for low, _ in lows),
                    tuple(unpack for _, unpack in lows))


def _value_set_aggregate(expr: ast.FuncCall, name: str, ctx: ExprContext):
    """``count({1, 2})``, ``sum(array_unpack(<array<int64>>$xs))``, ``array_agg(s)`` of a
    ``with s := {...}``: a set function of a set of values written in the query
    (https://docs.geldata.com/reference/stdlib/set), over the array of its elements
    (:func:`value_set_array`): ``cardinality(arr)``, ``(SELECT sum("_m"."v") FROM unnest(arr)
    AS "_m"("v"))``, ...: as in Gel, ``sum`` of the empty set is 0, ``min``/``max`` empty,
    ``array_agg`` ``[]``, ``any`` false, ``all`` true, and ``math::mean`` fails the statement.
    ``None`` when the argument is no such set; ``False`` after reporting."""
    if len(expr.args) != 1 or isinstance(expr.args[0], ast.NamedArg):
        return None
    if name in ("min", "max") and isinstance(expr.args[0], ast.SetLit):
        return None  # (LEAST / GREATEST: computed_sql.aggregate)
    arr = value_set_array(expr.args[0], ctx)
    if arr is None or arr is False:
        return arr
    elem = arr.type.element
    if name == "count":
        return qir.Call(expr.span, INT64, False, "count/value_set", (arr,))
    if name == "array_agg":
        return arr
    if name in ("any", "all"):
        if elem.family != "bool":
            ctx.reporter.error("E0304", f"{name}() needs bool values, got {elem.name}", expr.args[0].span)
            return False
        return qir.Call(expr.span, BOOL, False, name + "/value_set", (arr,))
    found = computed_sql._multi_property_aggregate(expr, name, arr, ctx)
    return False if found is None else found


def _func(expr: ast.FuncCall, ctx: ExprContext) -> Optional[qir.Expr]:
    if expr.name.startswith("ext::"):
        return _ext_func(expr, ctx)
    name = expr.name[5:] if expr.name.startswith("std::") else expr.name
    if name in _VALUE_SET_AGGREGATES:
        found = _value_set_aggregate(expr, name, ctx)
        if found is not None:
            return found or None
    if name == "enumerate":
        # (https://docs.geldata.com/reference/stdlib/set#function::std::enumerate: a set of tuples)
        ctx.reporter.error("E0206", "enumerate() is only supported as the selected set (select enumerate({...})) "
                           "and as the set of a 'for' loop yet", expr.span,
                           "write e.g. for x in enumerate(array_unpack(<array<str>>$names)) union (insert ...)")
        return None
    call = assert_call(expr) if name in _ASSERTS else None
    if call is not None:
        message = assert_message(call[2], ctx)
        if message is False:
            return None
        if name == "assert_single":
            # Gel's assert_single: our values are single already; a sub-select is checked by
            # the statement (a scalar sub-select of several rows fails, SQLSTATE 21000).
            sub = computed_sql.as_subselect(call[1])
            if sub is not None and ctx.params is not None:
                if message is not None:
                    ctx.reporter.error("E0206", "assert_single(..., message := ...) of a sub-select used as a value "
                                       "is not supported yet", expr.span,
                                       "select the objects: select assert_single((select T filter ...), "
                                       "message := '...') { ... }")
                    return None
                return computed_sql.subselect_value(sub, True, ctx)
            return check(call[1], ctx)  # type: ignore[arg-type]
        if name == "assert_exists":
            return _assert_exists(expr, call[1], message, ctx)
        found = _assert_distinct(expr, call[1], message, ctx)
        if found is not None:
            return found or None
        # (of a selection of objects of one type it is dropped before checking: see
        # schemac.semantics.queries._drop_assert_distinct)
        ctx.reporter.error("E0206", "assert_distinct() of a set that may hold duplicates (a union of objects, a for "
                           "loop, a path through links) is not supported yet", expr.span,
                           "assert_distinct() of a selection of objects, assert_distinct((select T filter ...)), "
                           "of a set of values and of a multi property are supported")
        return None
    if name in ("any", "all") and len(expr.args) == 1:
        return _any_all(expr, name, ctx)
    if name in ("sequence_next", "sequence_reset"):
        return _sequence_func(expr, name, ctx)
    if name in ("fts::search", "fts::with_options", fts.SCORE_FUNC):
        return _fts_search(expr, name, ctx)
    if name in _TIME_CONSTRUCTORS or name in ("cal::to_local_date", "cal::to_local_datetime", "cal::to_local_time",
                                              "duration_to_seconds"):
        return _time_func(expr, name, ctx)
    if name == "contains" and len(expr.args) == 2:
        found = _contains(expr, ctx)
        if found is not False:
            return found  # type: ignore[return-value]
    if name in ("range", "contains", "overlaps", "range_is_empty", "range_get_lower", "range_get_upper"):
        return _range_func(expr, name, ctx)
    if name == "count":
        return _count(expr, ctx)
    if name == "json_get":
        return _json_get(expr, ctx)
    if name in ("str_trim", "str_trim_start", "str_trim_end") and len(expr.args) == 2:
        # with the characters to remove (https://docs.geldata.com/reference/stdlib/string#function::std::str_trim)
        return _std_func(expr, name, ctx, (("str", "str"), "str"), name + "/chars")
    if name == "re_match":
        found = _std_func(expr, name, ctx, (("str", "str"), "str"))
        # an array of the first match's groups ('' for a group that matched nothing), empty
        # when the pattern does not match (https://docs.geldata.com/reference/stdlib/string#function::std::re_match)
        return None if found is None else dataclasses.replace(found, type=ValueType(element=STR), nullable=True)
    if name == "to_datetime":
        return _to_datetime(expr, ctx)
    if name in _TO_NUMBER and len(expr.args) == 1 and not isinstance(expr.args[0], ast.NamedArg):
        # to_int16(s) without a format is Gel's cast <int16>s (its standard library:
        # `CASE WHEN fmt IS NULL THEN str_to_int16(s)`, the cast's function;
        # https://docs.geldata.com/reference/stdlib/numbers#function::std::to_int16)
        arg = check(expr.args[0], ctx, STR)
        if arg is None:
            return None
        if arg.type.family != "str" or arg.type.element is not None:
            ctx.reporter.error("E0304", f"{name}() reads a str, got {arg.type.name}", expr.args[0].span)
            return None
        return check(ast.Cast(ast.TypeRef(_TO_NUMBER[name], (), expr.span), expr.args[0], expr.span), ctx)
    if name in _STD_FUNCS:
        return _std_func(expr, name, ctx)
    if name in ("datetime_get", "datetime_truncate", "cal::date_get"):
        return _datetime_unit_func(expr, name, ctx)
    if name == "duration_get":
        return _duration_get(expr, ctx)
    if name in ("min", "max", "sum"):
        return computed_sql.aggregate(expr, name, ctx)
    if name == "math::mean":
        return stdfuncs.mean(expr, ctx)
    if name in stdfuncs.SPREAD:
        return stdfuncs.spread(expr, name, ctx)
    if name == "to_str":
        return stdfuncs.to_str(expr, ctx)
    if name == "array_join":
        return stdfuncs.array_join(expr, ctx)
    if name == "str_split":
        return stdfuncs.str_split(expr, ctx)
    if name == "re_replace":
        return stdfuncs.re_replace(expr, ctx)
    if name == "array_agg":
        return stdfuncs.array_agg(expr, ctx)
    if name in stdfuncs.SCALAR_MATH:
        return stdfuncs.scalar_math(expr, name, ctx)
    if name == "len":
        if len(expr.args) != 1:
            ctx.reporter.error("E0304", "len() takes one argument", expr.span)
            return None
        arg = check(expr.args[0], ctx)
        if arg is None:
            return None
        if arg.type.element is not None:
            return qir.Call(expr.span, INT64, arg.nullable, "len_array", (arg,))
        if arg.type.family not in ("str", "bytes"):
            ctx.reporter.error("E0304", f"len() needs a str, bytes or array, got {arg.type.name}", expr.args[0].span)
            return None
        return qir.Call(expr.span, INT64, arg.nullable, "len_str" if arg.type.family == "str" else "len_bytes", (arg,))
    if name in FUNCTIONS_WITH_ARGS:
        arity, family, result = FUNCTIONS_WITH_ARGS[name]
        if len(expr.args) != arity:
            ctx.reporter.error("E0304", f"{name}() takes {arity} argument{'s' if arity > 1 else ''}", expr.span)
            return None
        args = []
        for a in expr.args:
            low = check(a, ctx, STR)
            if low is None:
                return None
            if low.type.family != family:
                ctx.reporter.error("E0304", f"{name}() needs {family} arguments, got {low.type.name}", a.span)
                return None
            args.append(low)
        return qir.Call(expr.span, result, any(a.nullable for a in args), name, tuple(args))
    user = ctx.schema.find(expr.name, ctx.module, ctx.schema.functions)
    if user is not None and not user.alias:  # type: ignore[attr-defined]
        from schemac.semantics import functions

        return functions.call(expr, user, ctx)  # type: ignore[arg-type]
    # looked up by the unqualified name: std::datetime_of_statement() is datetime_of_statement()
    # (https://docs.geldata.com/reference/stdlib/datetime#function::std::datetime_of_statement)
    typ = FUNCTIONS.get(name)
    if typ is None:
        known = [f for f in FUNCTIONS if "::" not in f] + list(FUNCTIONS_WITH_ARGS) + ["len", "count"]
        ctx.reporter.error("E0206", f"function '{expr.name}()' is not supported", expr.span,
                           did_you_mean(expr.name, known))
        return None
    if expr.args:
        ctx.reporter.error("E0304", f"'{expr.name}()' takes no arguments", expr.span)
        return None
    return qir.Call(expr.span, typ, False, name, ())


#: Standard-library functions with a direct Postgres spelling (:mod:`schemac.pgsql.calls_ops`)
#: and Gel's empty-set rule (empty in, empty out: Postgres' NULL in, NULL out): name ->
#: (argument families, result scalar (``None``: the first argument's type)). Gel:
#: https://docs.geldata.com/reference/stdlib/string, .../stdlib/numbers, .../stdlib/math,
#: .../stdlib/uuid, .../stdlib/json.
_STD_FUNCS = {
    "str_trim_start": (("str",), "str"),
    "str_trim_end": (("str",), "str"),
    "str_repeat": (("str", "num"), "str"),
    "str_replace": (("str", "str", "str"), "str"),
    "str_reverse": (("str",), "str"),
    "find": (("str", "str"), "int64"),
    "math::abs": (("num",), None),
    "math::pi": ((), "float64"),
    "math::e": ((), "float64"),
    "math::acos": (("num",), "float64"),
    "math::asin": (("num",), "float64"),
    "math::atan": (("num",), "float64"),
    "math::atan2": (("num", "num"), "float64"),
    "math::cos": (("num",), "float64"),
    "math::cot": (("num",), "float64"),
    "math::sin": (("num",), "float64"),
    "math::tan": (("num",), "float64"),
    "uuid_generate_v4": ((), "uuid"),
    "uuid_generate_v1mc": ((), "uuid"),
    "json_typeof": (("json",), "str"),
    "to_json": (("str",), "json"),
    "random": ((), "float64"),
}

#: Gel's datetime_get elements (https://docs.geldata.com/reference/stdlib/datetime#function::std::datetime_get).
_DATETIME_GET = ("epochseconds", "century", "day", "decade", "dow", "doy", "hour", "isodow", "isoyear", "microseconds",
                 "millennium", "milliseconds", "minutes", "month", "quarter", "seconds", "week", "year")
#: cal::date_get's elements (https://docs.geldata.com/reference/stdlib/datetime#function::cal::date_get).
_DATE_GET = ("century", "day", "decade", "dow", "doy", "isodow", "isoyear", "millennium", "month", "quarter", "week",
             "year")
#: Gel's datetime_truncate units (https://docs.geldata.com/reference/stdlib/datetime#function::std::datetime_truncate).
_DATETIME_TRUNCATE = ("microseconds", "milliseconds", "seconds", "minutes", "hours", "days", "weeks", "months",
                      "quarters", "years", "decades", "centuries")


def _std_func(expr: ast.FuncCall, name: str, ctx: ExprContext, spec=None, func: Optional[str] = None
              ) -> Optional[qir.Call]:
    """A function of :data:`_STD_FUNCS` (or ``spec``, an entry of that form, the call named
    ``func``): its arguments checked against the families, the result empty when an argument
    may be."""
    families, result = spec or _STD_FUNCS[name]
    if len(expr.args) != len(families) or any(isinstance(a, ast.NamedArg) for a in expr.args):
        ctx.reporter.error("E0304", f"{name}() takes {len(families)} argument{'' if len(families) == 1 else 's'}",
                           expr.span)
        return None
    args = []
    for a, family in zip(expr.args, families):
        low = check(a, ctx, STR if family == "str" else INT64 if family == "num" else None)
        if low is None:
            return None
        if low.type.family != family or low.type.element is not None:
            ctx.reporter.error("E0304", f"{name}() needs a {family} argument here, got {low.type.name}", a.span)
            return None
        args.append(low)
    rtype = args[0].type if result is None else ValueType(scalar=SCALARS[result])
    return qir.Call(expr.span, rtype, any(a.nullable for a in args), func or name, tuple(args))


def _duration_get(expr: ast.FuncCall, ctx: ExprContext) -> Optional[qir.Expr]:
    """``duration_get(d, 'totalseconds')`` of a ``duration``
    (https://docs.geldata.com/reference/stdlib/datetime#function::std::duration_get): its length
    in seconds, a float64, ``CAST(EXTRACT(EPOCH FROM d) AS float8)``. The other units read a
    field of Gel's duration, which has no days: a difference of datetimes here is a Postgres
    interval that may hold days, so they are E0206."""
    if len(expr.args) != 2 or any(isinstance(a, ast.NamedArg) for a in expr.args):
        ctx.reporter.error("E0304", "duration_get() takes a duration and a unit", expr.span)
        return None
    unit = expr.args[1]
    if not (isinstance(unit, ast.Literal) and unit.kind == "str"):
        ctx.reporter.error("E0206", "duration_get() with a unit that is not a string literal is not supported yet",
                           unit.span)
        return None
    if unit.value != "totalseconds":
        ctx.reporter.error("E0206", f"duration_get() of '{unit.value}' is not supported yet (only 'totalseconds')",
                           unit.span)
        return None
    d = check(expr.args[0], ctx)
    if d is None:
        return None
    if d.type.family != "duration" or d.type.scalar is None or d.type.scalar.name != "duration":
        ctx.reporter.error("E0304", f"duration_get() needs a duration, got {d.type.name}", expr.args[0].span)
        return None
    return qir.Call(expr.span, FLOAT64, d.nullable, "duration_get/totalseconds", (d,))


def _datetime_unit_func(expr: ast.FuncCall, name: str, ctx: ExprContext) -> Optional[qir.Expr]:
    """``datetime_get(dt, 'year')`` (a float64: ``date_part('year', dt AT TIME ZONE 'UTC')``)
    and ``datetime_truncate(dt, 'days')`` (``date_trunc('day', dt, 'UTC')``): Gel reads a
    datetime in UTC. ``datetime_get`` of a ``cal::local_datetime`` and ``cal::date_get(d,
    'month')`` of a ``cal::local_date`` (https://docs.geldata.com/reference/stdlib/datetime#function::cal::date_get)
    read the value as it is: ``date_part('month', d)``. The unit is a string literal."""
    units = _DATETIME_TRUNCATE if name == "datetime_truncate" else _DATE_GET if name == "cal::date_get" \
        else _DATETIME_GET
    if len(expr.args) != 2 or any(isinstance(a, ast.NamedArg) for a in expr.args):
        what = "a cal::local_date" if name == "cal::date_get" else "a datetime"
        ctx.reporter.error("E0304", f"{name}() takes {what} and a unit", expr.span)
        return None
    unit = expr.args[1]
    if not (isinstance(unit, ast.Literal) and unit.kind == "str"):
        ctx.reporter.error("E0206", f"{name}() with a unit that is not a string literal is not supported yet",
                           unit.span, f"write the unit, e.g. {name}(dt, '{next(iter(units))}')")
        return None
    field_name = str(unit.value)
    if field_name not in units:
        ctx.reporter.error("E0304", f"'{unit.value}' is not a unit of {name}()", unit.span,
                           "units: " + ", ".join(units))
        return None
    dt = check(expr.args[0], ctx, LOCAL_DATE if name == "cal::date_get" else DATETIME)
    if dt is None:
        return None
    scalar = dt.type.scalar.name if dt.type.scalar is not None and dt.type.element is None else None
    if name == "cal::date_get":
        if scalar != "cal::local_date":
            ctx.reporter.error("E0304", f"cal::date_get() needs a cal::local_date, got {dt.type.name}",
                               expr.args[0].span)
            return None
        return qir.Call(expr.span, FLOAT64, dt.nullable, name, (dt,), (field_name,))
    if name == "datetime_get" and scalar == "cal::local_datetime":
        if field_name == "epochseconds":
            ctx.reporter.error("E0304", "'epochseconds' is not a unit of datetime_get() of a cal::local_datetime",
                               unit.span)
            return None
        return qir.Call(expr.span, FLOAT64, dt.nullable, "datetime_get/local", (dt,), (field_name,))
    if scalar != "datetime":
        ctx.reporter.error("E0206" if dt.type.family in ("datetime", "local_datetime", "local_date") else "E0304",
                           f"{name}() of a {dt.type.name} is not supported" if dt.type.family != "datetime" or
                           dt.type.scalar is None else f"{name}() needs a datetime, got {dt.type.name}",
                           expr.args[0].span)
        return None
    if name == "datetime_get":
        return qir.Call(expr.span, FLOAT64, dt.nullable, name, (dt,), (field_name,))
    return qir.Call(expr.span, DATETIME, dt.nullable, name, (dt,), (field_name,))


def _any_all(expr: ast.FuncCall, name: str, ctx: ExprContext) -> Optional[qir.Expr]:
    """``any(.tags.name = x)`` / ``all(...)`` of a set of bools
    (https://docs.geldata.com/reference/stdlib/set#function::std::any): whether one / every
    element is true; ``any`` of the empty set is false, ``all`` of it true. Paths through multi
    links in the argument are read in a scope of its own (each ``any`` its own linked objects):
    ``EXISTS (SELECT 1 FROM <links> WHERE cond)``, ``NOT EXISTS (... WHERE (cond) IS FALSE)``;
    an argument of one value is ``coalesce(x, false)`` / ``coalesce(x, true)``."""
    arg = expr.args[0]
    if isinstance(arg, ast.BinOp) and arg.op in ("in", "not in") and ctx.subject is not None \
            and (computed_sql.is_set_operand(arg.left, ctx) or computed_sql.link_set_of(arg.left, ctx) is not None
                 or (isinstance(arg.left, ast.Path) and len(arg.left.steps) == 1
                     and arg.left.steps[0] in ctx.subject.links and ctx.subject.links[arg.left.steps[0]].multi)) \
            and computed_sql.query_set_target(arg.right, ctx) is not None:
        # `any(.edges.media in medias)`, `any(.messages in ms)`: one (every) object the path (the
        # multi link) reaches is one of the set's
        objects = computed_sql.expr_object_set(arg.left, ctx, qi(f"_y{ctx.depth}"), arg.left.span)
        others = computed_sql.query_set(arg.right, ctx, qi(f"_i{ctx.depth}"))
        if objects is None or others is None:
            return None
        if computed_sql.query_set_target(arg.right, ctx) is not objects.source:
            ctx.reporter.error("E0304", f"'{arg.op}' compares {objects.source.name} objects with "
                               f"{others.source.name} objects", arg.span)
            return None
        col = objects.source.column("id")
        own = qir.ColumnRef(arg.span, col.type, False, col, objects.source, None, objects.alias)  # type: ignore[arg-type,union-attr]
        negate = (arg.op == "not in") != (name == "all")
        test = qir.InObjects(arg.span, BOOL, False, own, others, negate)
        both = test if objects.filter is None else qir.Binary(arg.span, BOOL, True, "and", objects.filter, test)
        found = qir.ExistsObjects(expr.span, BOOL, False, dataclasses.replace(objects, filter=both))
        return found if name == "any" else qir.Call(expr.span, BOOL, False, "all/none_fails", (found,))
    if ctx.subject is not None:
        row = ctx.column_prefix or qi(ctx.subject.table)
        scope = dataclasses.replace(ctx, set_links={}, set_row=(ctx.subject, row), column_prefix=row)
    else:
        scope = ctx
    low = check(expr.args[0], scope, BOOL)
    if low is None:
        return None
    if low.type.family != "bool" or low.type.element is not None:
        ctx.reporter.error("E0304", f"{name}() needs a set of bool, got {low.type.name}", expr.args[0].span)
        return None
    if scope.set_links:
        sets = tuple(scope.set_links.values())
        if name == "any":
            return qir.SetFilter(expr.span, BOOL, False, sets, low)  # type: ignore[arg-type]
        falsified = qir.Call(low.span, BOOL, False, "is_false", (low,))
        exists = qir.SetFilter(expr.span, BOOL, False, sets, falsified)  # type: ignore[arg-type]
        return qir.Call(expr.span, BOOL, False, "all/none_fails", (exists,))
    return qir.Call(expr.span, BOOL, False, name + "/one", (low,))


def _assert_exists(expr: ast.FuncCall, value, message: Optional[str], ctx: ExprContext) -> Optional[qir.Expr]:
    """``assert_exists(x[, message := '...'])`` of one value or object (``.owner =
    assert_exists(player)``): ``x``, and when it is empty the statement fails with Gel's
    message (https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists:
    "assert_exists violation: expression returned an empty set", a CardinalityViolationError)
    or the one given, by a cast that fails (:mod:`schemac.semantics.asserts`); never empty.
    The call ``assert_exists``, its message a constant."""
    arg = check(value, ctx)
    if arg is None:
        return None
    if not arg.nullable:
        return arg
    if arg.type.element is not None or arg.type.family in ("vector",) or arg.type.fields is not None:
        ctx.reporter.error("E0206", f"assert_exists() of a {arg.type.name} value is not supported yet", expr.span)
        return None
    return qir.Call(expr.span, arg.type, False, "assert_exists", (arg,), (message,))


def _assert_distinct(expr: ast.FuncCall, value, message: Optional[str], ctx: ExprContext):
    """``assert_distinct(S[, message := '...'])`` of a set of values written in the query
    (``{1, 2}``, ``array_unpack(...)``, their union) or of a multi property (``.nicknames``)
    (https://docs.geldata.com/reference/stdlib/set#function::std::assert_distinct): the set, as
    the array of its elements, and when a value is in it twice the statement fails with Gel's
    message ("assert_distinct violation: expression returned a set with duplicate elements", a
    ConstraintViolationError) or the one given (:mod:`schemac.semantics.asserts`): the call
    ``assert_distinct``, its message a constant. ``None`` for another set; ``False`` after
    reporting."""
    arr = value_set_array(value, ctx)
    if arr is False:
        return False
    if arr is None and isinstance(value, ast.Path) and len(value.steps) == 1 and ctx.subject is not None:
        col = ctx.subject.column(value.steps[0])
        if col is None or not col.multi or col.link is not None:
            return None
        arr = check(value, ctx)
        if arr is None:
            return False
    if arr is None:
        return None
    return qir.Call(expr.span, arr.type, arr.nullable, "assert_distinct", (arr,), (message,))


def _contains(expr: ast.FuncCall, ctx: ExprContext):
    """``contains(haystack, needle)`` of a str, bytes or array
    (https://docs.geldata.com/reference/stdlib/string#function::std::contains,
    .../stdlib/array#function::std::contains): whether the string holds the substring
    (``strpos(h, n) > 0``; every string holds ''), the bytes the byte string
    (``position(n IN h) > 0``), the array the element (``n = ANY(h)``); empty when either
    argument is. ``False`` when the haystack is a range or multirange (:func:`_range_func`
    reads it), ``None`` after reporting."""
    first = check(expr.args[0], ctx)
    if first is None:
        return None
    elem = first.type.element
    if elem is None and first.type.family not in ("str", "bytes"):
        return False
    second = check(expr.args[1], ctx, elem if elem is not None else first.type)
    if second is None:
        return None
    want = elem if elem is not None else first.type
    if second.type.family != want.family or second.type.element is not None:
        ctx.reporter.error("E0304", f"contains() cannot take {first.type.name} and {second.type.name}", expr.span,
                           f"the needle of a {first.type.name} is a {want.name}")
        return None
    kind = "array" if elem is not None else first.type.family
    return qir.Call(expr.span, BOOL, first.nullable or second.nullable, "contains/" + kind, (first, second))


def _json_get(expr: ast.FuncCall, ctx: ExprContext) -> Optional[qir.Expr]:
    """``json_get(j, 'a', 'b')`` (https://docs.geldata.com/reference/stdlib/json#function::std::json_get):
    the json value at that path (object keys, or array indexes as strings), empty when there is
    none: ``jsonb_extract_path(j, 'a', 'b')``; with ``default := d``, ``d`` when there is none:
    ``coalesce(jsonb_extract_path(...), d)``, and empty when ``j`` or a path element is empty
    (they are not optional in Gel's signature: ``json_get(<optional json>$doc, 'a', default := d)``
    with ``$doc`` omitted is ``{}``, not ``d``)."""
    named = [a for a in expr.args if isinstance(a, ast.NamedArg)]
    positional = [a for a in expr.args if not isinstance(a, ast.NamedArg)]
    if len(positional) < 2 or any(a.name != "default" for a in named) or len(named) > 1:
        ctx.reporter.error("E0304", "json_get() takes a json value, one or more path elements and an optional "
                           "default := <json value>", expr.span)
        return None
    json_type = ValueType(scalar=SCALARS["json"])
    default = None
    if named:
        default = check(named[0].value, ctx, json_type)
        if default is None:
            return None
        if default.type.family != "json" or default.type.element is not None:
            ctx.reporter.error("E0304", f"json_get()'s default must be json, got {default.type.name}",
                               named[0].value.span, "cast it: default := <json>'none'")
            return None
    args = []
    for i, a in enumerate(positional):
        low = check(a, ctx, json_type if i == 0 else STR)
        if low is None:
            return None
        want = "json" if i == 0 else "str"
        if low.type.family != want:
            ctx.reporter.error("E0304", f"json_get() needs a {want} {'value' if i == 0 else 'path element'}, got "
                               f"{low.type.name}", a.span)
            return None
        args.append(low)
    if default is not None:
        # Gel's json_get(..., default := d): the value at the path, or d when there is none
        # (the json value and the path are not optional: an empty one makes the result empty,
        # the default only stands for a missing path)
        return qir.Call(expr.span, json_type, default.nullable or any(a.nullable for a in args), "json_get/default",
                        (*args, default))
    return qir.Call(expr.span, json_type, True, "json_get", tuple(args))


def _unary(expr: ast.UnaryOp, ctx: ExprContext) -> Optional[qir.Expr]:
    if expr.op not in ("exists", "not", "-"):
        ctx.reporter.error("E0206", f"'{expr.op}' is not supported in {ctx.where} yet", expr.span)
        return None
    if expr.op == "exists" and isinstance(expr.operand, ast.FuncCall) \
            and expr.operand.name in ("fts::search", "std::fts::search"):
        return _fts_search(expr.operand, "fts::search", ctx, True)  # (a match or not: Gel's empty set when none)
    if expr.op == "exists":
        op = expr.operand
        if isinstance(op, ast.Path) and len(op.steps) == 1 and ctx.subject is not None \
                and op.steps[0] in ctx.subject.poly_links:
            # a polymorphic link: one of its columns set (single), a join row (multi)
            # (an object the target's access policies hide is none: policies.join_row_visible)
            from schemac.semantics import policies

            pl = ctx.subject.poly_links[op.steps[0]]
            row = ctx.column_prefix or qi(ctx.subject.table)
            if pl.multi:
                return qir.LinkRowExists(expr.span, BOOL, False, row, pl.join_table, qi("_x"), (),
                                         policies.join_row_visible(None, ctx, qi("_x"), pl))
            return qir.LinkRowExists(expr.span, BOOL, False, row, None, "", tuple(c for _, c in pl.targets),
                                     policies.join_row_visible(None, ctx, row, pl))
        link = ctx.subject.links.get(op.steps[0]) \
            if isinstance(op, ast.Path) and len(op.steps) == 1 and ctx.subject is not None else None
        if link is not None and link.column is None and link.join_table is not None:
            # `exists .bs` of a multi link (https://docs.geldata.com/reference/stdlib/set#operator::exists):
            # a join row of the subject, as count(.bs) counts them
            from schemac.semantics import policies

            row = ctx.column_prefix or qi(ctx.subject.table)  # type: ignore[union-attr]
            alias = qi(f"_j{ctx.depth}")
            return qir.LinkRowExists(expr.span, BOOL, False, row, link.join_table, alias, (),
                                     policies.join_row_visible(link, ctx, alias))
        if computed_sql.type_set_of(expr.operand, ctx) is not None:
            # `exists User`, `exists (select User filter ...)`
            objects = computed_sql.type_set(expr.operand, ctx, qi(f"_e{ctx.depth}"))
            return None if objects is None else qir.ExistsObjects(expr.span, BOOL, False, objects)
        if _set_operand(expr.operand, ctx) is not None:
            inner, scope = _set_operand(expr.operand, ctx)  # type: ignore[misc]
            return _set_function(inner, scope, True)
        if isinstance(op, ast.Path) and len(op.steps) == 2 and ctx.subject is not None \
                and op.steps[0] in ctx.subject.links and ctx.subject.links[op.steps[0]].column is None \
                and ctx.subject.links[op.steps[0]].target.column(op.steps[1]) is not None \
                and op.steps[1] not in ctx.subject.links[op.steps[0]].target.links:
            # `exists .messages.noindex`: whether one linked object has a value
            # (https://docs.geldata.com/reference/stdlib/set#operator::exists), over the links in a
            # scope of its own: EXISTS (... WHERE <path> IS NOT NULL)
            row = ctx.column_prefix or qi(ctx.subject.table)
            scope = dataclasses.replace(ctx, set_links={}, set_row=(ctx.subject, row), column_prefix=row)
            value = check(op, scope)
            if value is None:
                return None
            cond = qir.Unary(expr.span, BOOL, False, "exists", value)
            return qir.SetFilter(expr.span, BOOL, False, tuple(scope.set_links.values()), cond)  # type: ignore[union-attr]
        if _query_set_operand(expr.operand, ctx):
            # `exists rolls.received`, `exists (select s filter ...)` of a query's names
            objects = computed_sql.query_set(expr.operand, ctx, qi(f"_e{ctx.depth}"))
            return None if objects is None else qir.ExistsObjects(expr.span, BOOL, False, objects)
        if computed_sql.is_set_operand(expr.operand, ctx):
            objects = computed_sql.expr_object_set(expr.operand, ctx, qi(f"_e{ctx.depth}"), expr.operand.span)
            return None if objects is None else qir.ExistsObjects(expr.span, BOOL, False, objects)
        if computed_sql.link_set_of(expr.operand, ctx) is not None:
            objects = computed_sql.object_set_of(expr.operand, ctx, f"_e{ctx.depth}")
            return None if objects is None else qir.ExistsObjects(expr.span, BOOL, False, objects)
        inner = check(expr.operand, ctx, None)
        if inner is None:
            return None
        comp = ctx.subject.computeds.get(op.steps[0]) \
            if isinstance(op, ast.Path) and len(op.steps) == 1 and ctx.subject is not None else None
        if (comp is not None and comp.multi and comp.target is None) or \
                (type(inner) is qir.ColumnRef and inner.column.multi):  # type: ignore[attr-defined]
            # a multi property or a computed set of values (`.tags.name`), read as their
            # array: one value at least (an array property exists when it is set, even empty)
            return qir.Call(expr.span, BOOL, False, "exists/array", (inner,))
        return qir.Unary(expr.span, BOOL, False, "exists", inner)
    if expr.op == "not":
        inner = check(expr.operand, ctx, BOOL)
        if inner is None:
            return None
        if inner.type.family != "bool":
            ctx.reporter.error("E0304", f"'not' needs a bool operand, got {inner.type.name}", expr.operand.span)
            return None
        return qir.Unary(expr.span, BOOL, inner.nullable, "not", inner)
    inner = check(expr.operand, ctx, None)
    if inner is None:
        return None
    if inner.type.family != "num":
        ctx.reporter.error("E0304", f"unary '-' needs a number, got {inner.type.name}", expr.operand.span)
        return None
    return qir.Unary(expr.span, inner.type, inner.nullable, "-", inner)


def _pair(expr: ast.BinOp, ctx: ExprContext):
    """Check both operands; an untyped parameter takes its type from the other side."""
    def untyped_param(e):
        return isinstance(e, ast.Param) and e.type is None

    if untyped_param(expr.left) and not untyped_param(expr.right):
        right = check(expr.right, ctx)
        # `$p ?? fallback`: the parameter may be omitted, that is what '??' is for.
        left = check(expr.left, ctx, right.type if right else None, allow_optional_param=expr.op == "??")
    else:
        left = check(expr.left, ctx)
        right = check(expr.right, ctx, left.type if left else None)
    return left, right


#: Left-associative operators: chains of them are checked iteratively (see :func:`_binop`).
_CHAINED = frozenset({"and", "or", "+", "-", "*", "/", "%", "//", "++", "??"})
#: Chains the lowering writes flat or balanced (a run of ``and``, of ``or``; ``++``), not nested.
_FLAT_IN_SQL = frozenset({"and", "or", "++"})
#: The most operators of a chain the lowering nests one in another (``((a + b) + c) + ...``):
#: Postgres analyses such an expression recursively, and a 5,000-term ``+`` chain exceeds its
#: stack (``max_stack_depth``, 2MB by default: "stack depth limit exceeded"; 3,000 terms ran on
#: Postgres 15); a longer one is E0103 at its start. (Gel lowers ``+`` to the same nested SQL.)
MAX_CHAIN_NESTING = 1000


def _binop(expr: ast.BinOp, ctx: ExprContext) -> Optional[qir.Expr]:
    """Check a binary operator. A left-associative chain (``a or b or c ...``, ``a + b + ...``)
    is a left-deep tree; it is walked down its left spine with a loop, not with recursion, so
    chains of any length compile without deep Python stacks."""
    if expr.op == "^":
        return _power(expr, ctx)
    if expr.op not in _LOWERED_BINOPS:
        # (EdgeQL operators the grammar reads but nothing lowers yet: ^ // union except ...)
        ctx.reporter.error("E0206", f"the operator '{expr.op}' is not supported in {ctx.where} yet", expr.span)
        return None
    spine = [expr]
    while isinstance(spine[-1].left, ast.BinOp) and spine[-1].left.op in _CHAINED:
        spine.append(spine[-1].left)
    nested = sum(1 for i, n in enumerate(spine) if n.op not in _FLAT_IN_SQL or
                 (n.op != "++" and i + 1 < len(spine) and spine[i + 1].op != n.op))
    if nested > MAX_CHAIN_NESTING:
        ctx.reporter.error("E0103", f"a chain of {nested} operators ('{spine[-1].op}', ...) is more than Postgres "
                           f"can evaluate (it nests each one in the last, and its stack, max_stack_depth, ends "
                           f"after a few thousand); at most {MAX_CHAIN_NESTING} are compiled",
                           spine[-1].span, "compute the parts in several expressions (or in with bindings)")
        return None
    low = _binop_step(spine.pop(), ctx, None)
    for node in reversed(spine):
        if low is None:
            return None
        low = _binop_step(node, ctx, low)
    return low


def _binop_step(expr: ast.BinOp, ctx: ExprContext, left: Optional[qir.Expr]) -> Optional[qir.Expr]:
    """One operator; ``left`` is its already checked left operand, or ``None``."""
    op = expr.op
    if op in ("and", "or"):
        if left is None:
            left = check(expr.left, ctx, BOOL)
        right = check(expr.right, ctx, BOOL)
        if left is None or right is None:
            return None
        for side, e in ((left, expr.left), (right, expr.right)):
            if side.type.family != "bool":
                ctx.reporter.error("E0304", f"'{op}' needs bool operands, got {side.type.name}", e.span)
                return None
        return qir.Binary(expr.span, BOOL, left.nullable or right.nullable, op, left, right)
    if left is None:
        left, right = _pair(expr, ctx)
    else:
        right = check(expr.right, ctx, left.type)
    if left is None or right is None:
        return None
    nullable = left.nullable or right.nullable
    if op in _CMP:
        if left.type.family != right.type.family:
            ctx.reporter.error("E0304", f"cannot compare {left.type.name} with {right.type.name} using '{op}'",
                               expr.span, _cast_hint(left.type, right.type))
            return None
        if op in ("like", "ilike", "not like", "not ilike") and left.type.family != "str":
            ctx.reporter.error("E0304", f"'{op}' needs str operands, got {left.type.name}", expr.span)
            return None
        if op in ("?=", "?!="):
            nullable = False
        return qir.Binary(expr.span, BOOL, nullable, op, left, right)
    if op == "++" and (left.type.element is not None or right.type.element is not None):
        # array ++ array (https://docs.geldata.com/reference/stdlib/array#operator::arrayplus):
        # Postgres' || keeps the other array when one is NULL; Gel's ++ of an empty set is empty.
        if left.type.family != right.type.family:
            ctx.reporter.error("E0304", f"'++' needs operands of one type, got {left.type.name} and {right.type.name}",
                               expr.span)
            return None
        return qir.Call(expr.span, left.type, nullable, "++/array", (left, right))
    if op == "++" and left.type.family == right.type.family == "bytes":
        # bytes ++ bytes (https://docs.geldata.com/reference/stdlib/bytes#operator::bytesplus)
        return qir.Call(expr.span, left.type, nullable, "++/bytes", (left, right))
    if op == "++" and left.type.family == right.type.family == "json":
        # json ++ json (https://docs.geldata.com/reference/stdlib/json#operator::jsonplus): two
        # arrays or two objects as Postgres' jsonb || (an object's keys from the right win),
        # two strings as one string; any other pair fails the statement with Gel's message.
        return qir.Call(expr.span, left.type, nullable, "++/json", (left, right))
    if op == "++":
        if left.type.family != "str" or right.type.family != "str":
            ctx.reporter.error("E0304", f"'++' needs str operands, got {left.type.name} and {right.type.name}",
                               expr.span)
            return None
        return qir.Binary(expr.span, STR, nullable, op, left, right)
    if op == "??":
        if left.type.family != right.type.family:
            ctx.reporter.error("E0304", f"'??' operands differ: {left.type.name} and {right.type.name}", expr.span)
            return None
        return qir.Binary(expr.span, left.type, left.nullable and right.nullable, op, left, right)
    if op in ("+", "-") and (left.type.family, op, right.type.family) in _TEMPORAL:
        result = _TEMPORAL[(left.type.family, op, right.type.family)]
        return qir.Call(expr.span, ValueType(scalar=SCALARS[result]), nullable,
                        f"{op}/{left.type.family}/{right.type.family}", (left, right))
    if op in _ARITH:
        if left.type.family != "num" or right.type.family != "num":
            ctx.reporter.error("E0304", f"'{op}' needs numbers, got {left.type.name} and {right.type.name}",
                               expr.span)
            return None
        result = arith_result(op, _num_operand_type(left), _num_operand_type(right))
        if result is None:
            ctx.reporter.error("E0304", f"'{op}' cannot mix {left.type.name} and {right.type.name} "
                               "(Gel has no implicit cast between them)", expr.span,
                               "cast one operand explicitly, e.g. <float64>x or <decimal>x")
            return None
        if result == "":  # not a standard numeric scalar (kept as before: the left operand's type)
            return qir.Binary(expr.span, left.type, nullable, op, left, right)
        same = next((x.type for x in (left, right) if type(x) is not qir.Literal and _num_operand_type(x) == result),
                    None)
        return qir.Binary(expr.span, same or ValueType(scalar=SCALARS[result]), nullable, op, left, right)
    raise AssertionError(op)  # pragma: no cover


def _power(expr: ast.BinOp, ctx: ExprContext) -> Optional[qir.Expr]:
    """``a ^ b`` (https://docs.geldata.com/reference/stdlib/numbers#operator::pow): the operands
    meet at their common type as for ``+``; integers give ``float64`` (``2 ^ -1`` is 0.5),
    ``float32`` a ``float32``, ``bigint`` and ``decimal`` a ``decimal``, as Gel's operators are
    typed. Postgres' ``power()`` in the matching type (it fails as Gel's does on ``0 ^ -1``)."""
    left, right = _pair(expr, ctx)
    if left is None or right is None:
        return None
    if left.type.family != "num" or right.type.family != "num" or left.type.element is not None \
            or right.type.element is not None:
        ctx.reporter.error("E0304", f"'^' needs numbers, got {left.type.name} and {right.type.name}", expr.span)
        return None
    common = arith_result("^", _num_operand_type(left), _num_operand_type(right))
    if common is None or common == "":
        ctx.reporter.error("E0304", f"'^' cannot mix {left.type.name} and {right.type.name} "
                           "(Gel has no implicit cast between them)", expr.span,
                           "cast one operand explicitly, e.g. <float64>x or <decimal>x")
        return None
    result = "decimal" if common in ("bigint", "decimal") else "float32" if common == "float32" else "float64"
    return qir.Call(expr.span, ValueType(scalar=SCALARS[result]), left.nullable or right.nullable, "^", (left, right))


#: Gel's implicit numeric casts (https://docs.geldata.com/reference/stdlib/numbers,
#: https://docs.geldata.com/reference/stdlib/casts): int16 -> int32 -> int64 -> bigint -> decimal,
#: int16 -> float32 -> float64, int32 -> float64, int64 -> float64. An arithmetic operator's
#: operands meet at their nearest common type; float and bigint/decimal do not meet.
_IMPLICIT_NUM = {
    "int16": ("int32", "float32"),
    "int32": ("int64", "float64"),
    "int64": ("bigint", "float64"),
    "bigint": ("decimal",),
    "float32": ("float64",),
    "float64": (),
    "decimal": (),
}


def _num_reach(name: str) -> frozenset:
    seen = {name}
    todo = [name]
    while todo:
        for n in _IMPLICIT_NUM[todo.pop()]:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return frozenset(seen)


def arith_result(op: str, left: str, right: str) -> Optional[str]:
    """The scalar an arithmetic operator ``op`` returns for operands of the numeric scalars
    ``left`` and ``right``, as Gel types it (https://docs.geldata.com/reference/stdlib/numbers):
    the operands' nearest common type (``int32 + int64`` is ``int64``), except ``/``, which on
    integers is ``float64`` (``10 / 4`` is ``2.5``) and on ``bigint`` is ``decimal``; ``//`` and
    ``%`` keep the common type. ``None`` when the operands have no common type (a float with a
    ``bigint`` or ``decimal``); ``""`` when either is not a standard numeric scalar."""
    if left not in _IMPLICIT_NUM or right not in _IMPLICIT_NUM:
        return ""
    common = _num_reach(left) & _num_reach(right)
    best = next((c for c in common if _num_reach(c) >= common), None)
    if best is None:
        return None
    if op == "/":
        if best in ("int16", "int32", "int64"):
            return "float64"
        if best == "bigint":
            return "decimal"
    return best


def _num_operand_type(x: qir.Expr) -> str:
    """An operand's scalar for :func:`arith_result`; an integer literal is Gel's ``int64`` and a
    float literal ``float64`` whatever the other operand (``<int32>$x + 1`` is ``int64``)."""
    if type(x) is qir.Literal:
        if x.kind == "int":  # type: ignore[attr-defined]
            return "int64"
        if x.kind == "float":  # type: ignore[attr-defined]
            return "float64"
    t = x.type
    return t.scalar.name if t.scalar is not None and t.element is None and t.enum is None else ""


def _in(expr: ast.BinOp, ctx: ExprContext) -> Optional[qir.Expr]:
    """``x in {a, b}``; ``x in $arr`` (an array)."""
    left = check(expr.left, ctx)
    if left is None:
        return None
    negate = expr.op == "not in"
    if isinstance(expr.right, ast.SetLit):
        if not expr.right.items:
            return qir.InSet(expr.span, BOOL, False, left, (), negate)
        items = []
        for item in expr.right.items:
            low = check(item, ctx, left.type)
            if low is None:
                return None
            if low.type.family != left.type.family:
                ctx.reporter.error("E0304", f"'{expr.op}' compares {left.type.name} with {low.type.name}", item.span)
                return None
            items.append(low)
        return qir.InSet(expr.span, BOOL, left.nullable, left, tuple(items), negate)
    right_expr = expr.right
    member = _in_multi_link(expr, left, negate, ctx)
    if member is not None:
        return member or None
    comp = ctx.subject.computeds.get(right_expr.steps[0]) if ctx.subject is not None and isinstance(
        right_expr, ast.Path) and len(right_expr.steps) == 1 else None
    if comp is not None and comp.target is not None:
        return _in_computed_link(expr, left, comp, negate, ctx)
    if computed_sql.query_value_target(right_expr, ctx):
        return _in_values(expr, left, negate, ctx)
    if computed_sql.query_set_target(right_expr, ctx) is not None and not isinstance(right_expr, ast.FuncCall):
        # `.character in charas` of a set of objects (https://docs.geldata.com/reference/edgeql/sets):
        # whether the object is one of them; `x in {}` of an empty set is false
        target = computed_sql.query_set_target(right_expr, ctx)
        link = getattr(left, "link", None) if type(left) is qir.ColumnRef else None
        if left.type.family != "uuid" or left.type.element is not None or (link is not None and link.target
                                                                          is not target):
            ctx.reporter.error("E0304", f"'{expr.op}' compares {link.target.name if link is not None else left.type.name}"
                               f" with {target.name} objects", expr.span)  # type: ignore[union-attr]
            return None
        objects = computed_sql.query_set(right_expr, ctx, qi(f"_i{ctx.depth}"))
        if objects is None:
            return None
        return qir.InObjects(expr.span, BOOL, left.nullable, left, objects, negate)
    if isinstance(right_expr, ast.VarRef) and right_expr.name not in ctx.variables \
            and isinstance(ctx.type_sets.get(right_expr.name), ast.FuncCall):
        right_expr = ctx.type_sets[right_expr.name]  # with ids := array_unpack(...) ... in ids
    if not isinstance(right_expr, ast.FuncCall) and value_set_parts(right_expr, ctx) is not None:
        # `x in xs` of `with xs := {'a', 'b'}`, `x in {'a'} union array_unpack(arr)`: one of
        # the set's values (https://docs.geldata.com/reference/stdlib/set#operator::in)
        arr = value_set_array(right_expr, ctx)
        if arr is None or arr is False:
            if arr is False:
                return None
        elif arr.type.element.family != left.type.family:  # type: ignore[attr-defined, union-attr]
            ctx.reporter.error("E0304", f"'{expr.op}' compares {left.type.name} with {arr.type.element.name} values",
                               expr.span)  # type: ignore[union-attr]
            return None
        else:
            return qir.InArray(expr.span, BOOL, left.nullable, left, arr, negate)
    if isinstance(right_expr, ast.FuncCall) and right_expr.name in ("array_unpack", "std::array_unpack") \
            and len(right_expr.args) == 1:
        # `x in array_unpack(arr)`: x is one of the array's elements (Gel's arrays hold no
        # empty elements), `x = ANY (arr)`; none of an empty array
        # (https://docs.geldata.com/reference/stdlib/array#function::std::array_unpack).
        right_expr = right_expr.args[0]
    right = check(right_expr, ctx, ValueType(element=left.type))
    if right is None:
        return None
    if right.type.element is None or right.type.element.family != left.type.family:
        ctx.reporter.error("E0304", f"the right side of '{expr.op}' must be a set {{...}} or an array of "
                           f"{left.type.name}, got {right.type.name}", expr.right.span)
        return None
    return qir.InArray(expr.span, BOOL, left.nullable, left, right, negate)


def _in_values(expr: ast.BinOp, left: qir.Expr, negate: bool, ctx: ExprContext) -> Optional[qir.Expr]:
    """``x in S.p`` of a property of each object of a set of the query's names
    (``.id_al in waifus.character.id_al``, ``waifus`` a ``with`` selection): whether ``x`` is one
    of their values (https://docs.geldata.com/reference/edgeql/sets: the path is the set of the
    values of the distinct objects it reaches; an empty value is none), :class:`qir.InValues`."""
    found = computed_sql._object_path(expr.right, ctx, f"_i{ctx.depth}")
    if not found:
        return None
    objects, rest = found
    inner = dataclasses.replace(ctx, subject=objects.source, column_prefix=objects.alias, subject_column=None,
                                set_links=None, set_row=None)
    value = check(ast.Path(tuple(rest), expr.right.span), inner)
    if value is None:
        return None
    if value.type.element is not None or left.type.element is not None or value.type.family != left.type.family:
        ctx.reporter.error("E0304", f"'{expr.op}' compares {left.type.name} with {value.type.name} values", expr.span)
        return None
    return qir.InValues(expr.span, BOOL, left.nullable, left, objects, value, negate)


def _in_computed_link(expr: ast.BinOp, left: qir.Expr, comp, negate: bool, ctx: ExprContext) -> Optional[qir.Expr]:
    """``x in .tracked`` of a computed link of the subject (a backlink, a union of paths, ...,
    https://docs.geldata.com/reference/datamodel/computeds): whether the object ``x`` (its id) is
    one of the link's objects (those the query may see), ``x IN (SELECT "id" FROM <the link's
    objects>)``; empty when ``x`` is, as Gel's ``{} in S``."""
    if computed_sql.refuse_computed(comp, expr.right.span, ctx.reporter):
        return None
    link = getattr(left, "link", None) if type(left) is qir.ColumnRef else None
    if left.type.family != "uuid" or left.type.element is not None or (link is not None and link.target
                                                                      is not comp.target):
        ctx.reporter.error("E0304", f"'{expr.op}' compares {link.target.name if link is not None else left.type.name}"
                           f" with {comp.target.name} objects", expr.span)
        return None
    objects = computed_sql.object_set(comp, ctx, qi(f"_i{ctx.depth}"), expr.right.span)
    if objects is None:
        return None
    return qir.InObjects(expr.span, BOOL, left.nullable, left, objects, negate)


def _in_multi_link(expr: ast.BinOp, left: qir.Expr, negate: bool, ctx: ExprContext):
    """``x in .members`` / ``x in .members.id`` of a multi link of the subject
    (https://docs.geldata.com/reference/edgeql/sets, the membership test Gel's access policy
    docs write as ``global current_user in .members``): whether the object (its id) is one of
    the link's targets, an ``EXISTS`` over the link table, among the targets the query may see
    when the target has access policies (none are applied inside a policy); empty when ``x``
    is. ``None`` for any other right side, ``False`` after reporting."""
    right = expr.right
    if not isinstance(right, ast.Path) or ctx.subject is None or not 1 <= len(right.steps) <= 2 \
            or (len(right.steps) == 2 and right.steps[1] != "id"):
        return None
    link = ctx.subject.links.get(right.steps[0])
    if link is None or not link.multi or link.join_table is None or link.columns:
        return None
    if left.type.family != "uuid" or left.type.element is not None:
        ctx.reporter.error("E0304", f"'{expr.op}' compares {left.type.name} with {link.target.name} objects", expr.span)
        return False
    from schemac.semantics import policies

    row = ctx.column_prefix or qi(ctx.subject.table)
    target = qi(f"_mt{ctx.depth}")
    return qir.InMultiLink(expr.span, BOOL, left.nullable, left, link, row, qi(f"_m{ctx.depth}"), target, negate,
                           policies.read_predicate(link.target, ctx, target))


def _cast(expr: ast.Cast, ctx: ExprContext, allow_optional: bool) -> Optional[qir.Expr]:
    """``<T>$p`` types a parameter (Gel's spelling of ``$p<T>``); ``<T>expr`` is a cast."""
    if isinstance(expr.operand, ast.Param):
        if expr.operand.type is not None:
            ctx.reporter.error("E0304", "a parameter is typed twice", expr.span, "write either <T>$p or $p<T>")
            return None
        return check(ast.Param(expr.operand.name, expr.type, expr.span), ctx, None, allow_optional)
    target = resolve_type_ref(expr.type, ctx)
    if target is None:
        return None
    if isinstance(expr.operand, ast.SetLit) and not expr.operand.items:
        # <T>{}: the empty set of T
        return qir.Call(expr.span, target, True, "typed_null", ())
    if target.enum is not None and isinstance(expr.operand, ast.Literal) and expr.operand.kind == "str":
        # <Enum>'member': Gel's way to name a member, also one that is not an identifier.
        member = str(expr.operand.value)
        if member not in target.enum.members:
            ctx.reporter.error("E0203", f"enum '{target.enum.name}' has no member {member!r}", expr.operand.span,
                               did_you_mean(member, target.enum.members))
            return None
        return qir.EnumMember(expr.span, target, False, target.enum, member)
    if target.family == "json" and isinstance(expr.operand, ast.ShapeExpr) and ctx.row_json is not None \
            and isinstance(expr.operand.base, ast.VarRef) and expr.operand.base.name in ctx.row_refs:
        # `<json>__new__ {**}` in a trigger: the object as JSON.
        return ctx.row_json(expr.operand)
    # `<array<str>>[]`: the empty array takes its element type from the cast
    # (https://docs.geldata.com/reference/stdlib/array).
    empty_array = isinstance(expr.operand, ast.ArrayLit) and not expr.operand.items and target.element is not None
    if isinstance(expr.operand, ast.ArrayLit) and not expr.operand.items and target.family == "json" \
            and target.element is None:
        # `<json>[]`: the empty JSON array (https://docs.geldata.com/reference/stdlib/json)
        return qir.Call(expr.span, target, False, "json_empty_array", ())
    inner = check(expr.operand, ctx, target if empty_array else None)
    if inner is None or empty_array:
        return inner
    if isinstance(inner, qir.Literal) and inner.kind == "float" and target.element is None \
            and target.scalar is not None and target.scalar.name == "decimal":
        # `<decimal>0.797693134862311111111`: the literal is a float64, rounded before the cast
        # (geldata/gel tests/test_edgeql_expressions.py test_edgeql_expr_op_21: it is not the
        # decimal 0.797693134862311111111n); Postgres would read the digits as numeric
        return qir.Call(expr.span, target, False, "cast/float_literal", (), (inner.value,))
    if inner.type.family == "json" and target.family != "json":
        # `<T>x['k']` is a value (a missing member or JSON null is NULL, which a required
        # property refuses when written); `<optional T>x['k']` may be empty.
        if target.element is not None and target.element.element is not None:
            ctx.reporter.error("E0206", f"casting json to {target.name} is not supported", expr.span)
            return None
        if target.element is None and target.scalar is not None and range_kind(target.scalar):
            # (Gel reads a JSON object {"lower": ..., "upper": ..., "inc_lower": ...} / an array of
            # them; geldata/gel tests/test_edgeql_expressions.py test_edgeql_expr_range_33/34/42.
            # Not lowered: the statement failed at run time)
            ctx.reporter.error("E0206", f"casting json to {target.name} is not supported yet", expr.span,
                               "pass the bounds: range(<int64>j['lower'], <int64>j['upper'])")
            return None
        return qir.JsonCast(expr.span, target, expr.type.optional, inner)
    if target.family == "json" and inner.type.family != "json":
        # `<json>x` (https://docs.geldata.com/reference/stdlib/json): the value as JSON (a string,
        # a number, a bool, an array), not its text parsed as JSON.
        if inner.type.family == "bytes" or (inner.type.element is not None and inner.type.element.family == "bytes"):
            ctx.reporter.error("E0206", f"casting {inner.type.name} to json is not supported", expr.span)
            return None
        obj = _object_value(inner)
        if obj is not None:
            # Gel serialises an object cast to json as its shape, {"title": ..., "pages": ...}
            # (https://docs.geldata.com/reference/stdlib/json); schemac would give its id
            ctx.reporter.error("E0206", f"casting an object ('{obj.name}') to json is not supported yet: Gel "
                               "serialises its shape, not its id", expr.span,
                               f"select the object with its shape instead: select {obj.name} {{ ... }} filter ... "
                               "(the runners return it as an object)")
            return None
        # (`<json>'{}'` is the JSON string "{}", as Gel casts a str)
        return qir.Call(expr.span, target, inner.nullable, "cast/json", (inner,))
    if target.enum is not None and inner.type.enum != target.enum:
        ctx.reporter.error("E0304", f"only a string literal or a parameter can be cast to enum '{target.enum.name}'",
                           expr.operand.span, f"write <{target.enum.name}>'member' or <{target.enum.name}>$param")
        return None
    if target.scalar is not None and target.scalar.name == "datetime" and target.element is None \
            and inner.type.family == "str" and inner.type.element is None \
            and not (isinstance(inner, qir.Literal) and re.match(ISO_DATETIME, str(inner.value))):
        # `<datetime>s` of a str: ISO 8601 with a time zone, or the statement fails, as Gel's
        # (https://docs.geldata.com/reference/stdlib/datetime#type::std::datetime); Postgres would
        # read a string without one in the session's time zone
        return qir.Call(expr.span, target, inner.nullable, "to_datetime/str", (inner,))
    if target.family == "str" and inner.type.family in ("geometry", "geography") and inner.type.element is None:
        # Gel's cast of a geometry / geography to str is its WKT (ST_AsText), not PostGIS's
        # text output (hex EWKB): https://docs.geldata.com/reference/stdlib/postgis
        return qir.Call(expr.span, target, inner.nullable, "ext::postgis::astext", (inner,))
    if target.family == "str" and target.element is None and inner.type.element is None and inner.type.enum is None:
        if inner.type.family in ("datetime", "local_date", "local_datetime", "local_time"):
            # `<str>` of a date or time is its ISO 8601 text, a datetime's in UTC, as to_str()
            # prints it (https://docs.geldata.com/reference/edgeql/casts,
            # https://docs.geldata.com/reference/stdlib/datetime), not Postgres' text of it
            # (an operand: `{0} AT TIME ZONE` binds tighter than `a - b`)
            return qir.Call(expr.span, target, inner.nullable, "to_str", (inner,))
        if inner.type.family in ("duration", "relative_duration", "date_duration"):
            ctx.reporter.error("E0206", f"casting a {inner.type.name} to str is not supported", expr.span,
                               "Gel prints ISO 8601 (PT1H30M), which Postgres prints only under IntervalStyle = "
                               "iso_8601; select the duration itself")
            return None
    return qir.Cast(expr.span, target, inner.nullable, inner)


def _object_value(low: qir.Expr):
    """The object type of a value that is an object (a selection used as a value, a with name
    bound to one, a computed global of object type), or ``None``."""
    t = type(low)
    if t is qir.ObjectRow and low.value is None:  # type: ignore[attr-defined]
        return low.target  # type: ignore[attr-defined]
    if t in (qir.ObjectId, qir.ObjectIds):
        return low.target  # type: ignore[attr-defined]
    if t is qir.VarRef and type(low.binding) is qir.WithValue:  # type: ignore[attr-defined]
        return _object_value(low.binding.value)  # type: ignore[attr-defined]
    return None


def _cast_hint(a: ValueType, b: ValueType) -> Optional[str]:
    if a.enum is not None and b.family == "str":
        return f"compare with an enum member instead, e.g. {a.enum.name}.{a.enum.members[0]}"
    if b.enum is not None and a.family == "str":
        return f"compare with an enum member instead, e.g. {b.enum.name}.{b.enum.members[0]}"
    if a.family != b.family:
        return f"cast one side, e.g. <{a.name}>..."
    return None


# The frozen dataclasses above are created in bulk: give them the faster __init__.
fast_init_all(globals())
