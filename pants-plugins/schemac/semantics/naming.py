"""The naming layer: every identifier the TypeScript and Go back ends write is chosen here.

Each target has its own namespace of names that are already taken: its reserved words, the
predeclared identifiers and globals the generated code (or code importing it) relies on, and
the runner's own names (``createRunner``, ``Queries``, ``DBTX``, ...). Names derived from the
user's declarations (query files, enums and their members, constraints, parameters, result
fields) are then claimed one by one, in a fixed order (enums in declaration order, then
constraint errors, then queries by name), with two rules (docs/language.md, "Naming"):

1. a name that is reserved in the target (a keyword, a predeclared identifier or global, an
   imported package, or one of the runner's own names) gets a trailing ``_``, as sqlc does for
   Go keywords: ``delete.edgeql`` is ``delete_()`` in TypeScript, enum ``Error`` is
   ``Error_``, enum ``Queries`` is Go type ``Queries_``;
2. two declarations whose names become the same identifier (``get_user2.edgeql`` and
   ``get_user_2.edgeql`` are both ``getUser2``; ``$isbn_code`` and ``$isbnCode`` both Go field
   ``IsbnCode``) are refused with ``E0213`` at the second one, naming both.

The SQL side (Postgres' 63-byte identifier limit) is :mod:`schemac.semantics.sqlnames`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from schemac.diagnostics import Reporter, Span
from schemac.semantics.names import go_member, go_name, ts_camel, ts_pascal

if TYPE_CHECKING:
    from schemac.semantics.library import Library
    from schemac.semantics.queries import QueryPlan

#: JavaScript reserved words (ES2022, strict mode and module code: the generated files are ES
#: modules, always strict) and the names strict code may not bind (``arguments``, ``eval``).
JS_RESERVED = frozenset(
    """await break case catch class const continue debugger default delete do else enum export extends
    false finally for function if implements import in instanceof interface let new null package private
    protected public return static super switch this throw true try typeof var void while with yield
    arguments eval undefined NaN Infinity globalThis""".split()
)
#: Names TypeScript refuses as the name of a type (``type string = ...`` is an error).
TS_TYPE_RESERVED = frozenset(
    "any unknown never object string number boolean symbol bigint void null undefined type".split()
)
#: Globals of ES2022 and TypeScript's standard library (values and types), and Node's
#: ``Buffer``: a generated export of that name would shadow the global in the generated
#: files, and in every module that imports it.
TS_GLOBALS = frozenset(
    """AggregateError Array ArrayBuffer ArrayLike AsyncGenerator AsyncIterable AsyncIterableIterator
    AsyncIterator Atomics Awaited BigInt BigInt64Array BigUint64Array Boolean Buffer Capitalize
    ConstructorParameters DataView Date Error EvalError Exclude Extract FinalizationRegistry Float32Array
    Float64Array Function Generator InstanceType Int16Array Int32Array Int8Array Intl Iterable
    IterableIterator Iterator JSON Lowercase Map Math NonNullable Number Object Omit OmitThisParameter
    Parameters Partial Pick Promise PromiseLike PropertyDescriptor PropertyKey Proxy RangeError Readonly
    ReadonlyArray ReadonlyMap ReadonlySet Record ReferenceError Reflect RegExp Required ReturnType Set
    SharedArrayBuffer String Symbol SyntaxError TemplateStringsArray ThisParameterType ThisType TypeError
    URIError Uint16Array Uint32Array Uint8Array Uint8ClampedArray Uncapitalize Uppercase WeakMap WeakRef
    WeakSet console decodeURI decodeURIComponent encodeURI encodeURIComponent escape isFinite isNaN
    parseFloat parseInt process require module exports unescape""".split()
)
#: The TypeScript runner's own top-level names (templates/*.ts.j2), exported or not: the four
#: files share one namespace through index.ts' ``export *``.
TS_RUNNER_NAMES = frozenset(
    """Queryable run RawRow int64 int64OrNull int64Array int64ArrayOrNull decodeObject decodeList decodeTuple
    translateError ConstraintViolationError ExclusiveViolationError CheckViolationError
    ForeignKeyViolationError NotNullViolationError JsonValue JsonDocument Runner PoolLike isPool
    inTransaction createRunner TransactionError requiredGlobal localDate localDateTime isoDuration parseVector tzDate
    parseRange parseMultirange rangeText multirangeText Range orNull each Globals MissingGlobalError RunnerOptions
    makeRunner TRANSACTION jsonDate AccessPolicyError accessPolicyViolation""".split()
) | frozenset(
    # locals of the runner's functions in whose scope generated names are used (``db: (args) =>
    # db(db, args)`` would call the parameter)
    "db args globals depth options more fn state inner client tx row rows raw result err text values".split()
)
TS_TAKEN = JS_RESERVED | TS_TYPE_RESERVED | TS_GLOBALS | TS_RUNNER_NAMES

#: Go keywords (https://go.dev/ref/spec#Keywords).
GO_KEYWORDS = frozenset(
    """break case chan const continue default defer else fallthrough for func go goto if import
    interface map package range return select struct switch type var""".split()
)
#: Go's predeclared identifiers (https://go.dev/ref/spec#Predeclared_identifiers).
GO_PREDECLARED = frozenset(
    """any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64
    rune string uint uint8 uint16 uint32 uint64 uintptr true false iota nil append cap clear close
    complex copy delete imag len make max min new panic print println real recover""".split()
)
#: Package names the generated Go files import.
GO_IMPORTS = frozenset("context errors sql driver fmt sync json time pgx pgconn pgtype strconv strings".split())
#: The Go runner's own package-level names (templates/*.go.j2).
GO_RUNNER_NAMES = frozenset(
    """DBTX Runner New Queries translateError pgScan pgValue typeMaps decodeTuple int64Text int64Texts
    ErrExclusiveViolation ErrCheckViolation
    ErrForeignKeyViolation ErrNotNullViolation NotNullViolationError Vector Globals MissingGlobalError
    driverMessage driverError ErrAccessPolicy AccessPolicyError accessPolicyError""".split()
)
GO_TAKEN = GO_KEYWORDS | GO_PREDECLARED | GO_IMPORTS | GO_RUNNER_NAMES


def _free(name: str, taken: frozenset) -> str:
    """``name``, with a trailing ``_`` while it is reserved (rule 1)."""
    while name in taken:
        name += "_"
    return name


@dataclass(frozen=True)
class TsQueryNames:
    #: The exported function (a reserved word gets its ``_``).
    fn: str
    sql_const: str
    args_type: str
    result_type: str
    decoder: str
    #: Its key in the runner's ``query`` object: the camelCase name as it is (a property name
    #: may be a reserved word: ``runner.query.delete(...)``).
    key: str
    #: The table of its statements by omitted parameters (an insert with optional parameters
    #: for properties with a default, ``QueryPlan.variants``), else ``None``.
    variants: Optional[str] = None


@dataclass(frozen=True)
class GoQueryNames:
    method: str
    sql_const: str
    params_type: str
    row_type: str
    #: Parameter name -> struct field.
    params: Dict[str, str]
    #: Nested shape path (field names from the row) -> struct type name.
    shapes: Dict[Tuple[str, ...], str]
    #: As :attr:`TsQueryNames.variants`.
    variants: Optional[str] = None


@dataclass(frozen=True)
class GoEnumNames:
    type: str
    null_type: str
    all_func: str
    #: Member -> constant.
    consts: Dict[str, str]


@dataclass
class Names:
    """Every generated identifier of one library (see the module docstring)."""

    ts_enums: Dict[str, str] = field(default_factory=dict)
    ts_errors: Dict[str, str] = field(default_factory=dict)
    ts_queries: Dict[str, TsQueryNames] = field(default_factory=dict)
    go_enums: Dict[str, GoEnumNames] = field(default_factory=dict)
    go_errors: Dict[str, str] = field(default_factory=dict)
    go_queries: Dict[str, GoQueryNames] = field(default_factory=dict)


class _Namespace:
    """One target namespace: claimed names and who claimed them."""

    def __init__(self, target: str, taken: frozenset, reporter: Reporter):
        self.target = target
        self.taken = taken
        self.reporter = reporter
        self.owners: Dict[str, Tuple[str, Optional[Span]]] = {}
        self.reported: set = set()

    def claim(self, name: str, what: str, span: Optional[Span], reserved: frozenset = frozenset()) -> str:
        """``name`` for ``what`` (declared at ``span``), after rule 1; a name another declaration
        has already is reported (rule 2) and returned as is."""
        name = _free(name, self.taken | reserved)
        owner = self.owners.get(name)
        if owner is None:
            self.owners[name] = (what, span)
        elif owner[0] != what and (what, owner[0]) not in self.reported:
            self.reported.add((what, owner[0]))
            where = f" ({owner[1].file}:{owner[1].line}:{owner[1].col})" if owner[1] is not None else ""
            self.reporter.error("E0213", f"{what} and {owner[0]}{where} would both be named '{name}' in "
                                f"generated {self.target}", span, "rename one of them")
        return name


def _query_span(q: "QueryPlan") -> Span:
    return Span.point(q.path, 1, 1)


def _proto_key(name: str, what: str, span: Optional[Span], reporter: Reporter) -> None:
    """``__proto__`` cannot be a key of the TypeScript objects the runner exchanges: in an object
    literal (``{ __proto__: "x" }``: args, the enum's const object) it sets the prototype, and
    node-postgres' ``row[name] = value`` does the same, so the value was silently lost (a query
    given ``{ __proto__: "alice" }`` ran with another value and found nothing; tsc --strict was
    clean)."""
    if name == "__proto__":
        reporter.error("E0213", f"{what} cannot be named '__proto__' in generated TypeScript: as an object key it "
                       "sets the object's prototype, and the value is lost", span, "rename it")


def _proto_fields(fields, query: str, span: Span, reporter: Reporter) -> None:
    for f in fields:
        _proto_key(f.name, f"result field '{f.name}' of query '{query}'", span, reporter)
        if getattr(f, "shape", None):
            _proto_fields(f.shape, query, span, reporter)


def build_names(lib: "Library", reporter: Reporter) -> Names:
    """Choose every generated name of ``lib``, reporting collisions (``E0213``) to
    ``reporter``."""
    names = Names()
    ts = _Namespace("TypeScript", TS_TAKEN, reporter)
    go = _Namespace("Go", GO_TAKEN, reporter)
    spans = {t.table: t.span for t in lib.schema.every_table()}
    for e in lib.schema.all_enums():
        what = f"enum '{e.qualname}'"
        names.ts_enums[e.qualname] = ts.claim(e.code_name, what, e.span)
        gtype = go.claim(e.code_name, what, e.span)
        consts: Dict[str, str] = {}
        for m in e.members:
            consts[m] = go.claim(gtype + go_member(m), f"member '{m}' of enum '{e.qualname}'", e.span)
            _proto_key(m, f"member '{m}' of enum '{e.qualname}'", e.span, reporter)
        names.go_enums[e.qualname] = GoEnumNames(
            gtype, go.claim("Null" + gtype, what, e.span), go.claim(f"All{gtype}Values", what, e.span), consts)
    for ce in lib.constraint_errors:
        what = f"constraint '{ce.constraint}'"
        span = spans.get(ce.table)
        names.ts_errors[ce.constraint] = ts.claim(ts_pascal(ce.constraint) + "Error", what, span)
        names.go_errors[ce.constraint] = go.claim(go_name(ce.constraint) + "Error", what, span)
    methods = _Namespace("Go", frozenset(), reporter)  # the methods of *Queries
    for q in lib.queries:
        what = f"query '{q.name}'"
        span = _query_span(q)
        fn = ts_camel(q.name)
        base = ts_pascal(q.name)
        names.ts_queries[q.name] = TsQueryNames(
            ts.claim(fn, what, span), ts.claim(fn + "Sql", what, span), ts.claim(base + "Args", what, span),
            ts.claim(base + "Result", what, span), ts.claim(f"decode{base}Row", what, span), fn,
            ts.claim(fn + "Statements", what, span) if q.variants else None)
        method = methods.claim(go_name(q.name), what, span)
        row_type = go.claim(method + "Row", what, span)
        fields = _Namespace("Go", frozenset(), reporter)
        params: Dict[str, str] = {}
        for p in q.params:
            if getattr(p, "global_", None) is not None:
                continue  # a global's value, read from the runner's Globals
            params[p.name] = fields.claim(go_name(p.name), f"parameter ${p.name} of query '{q.name}'", p.span)
            _proto_key(p.name, f"parameter ${p.name} of query '{q.name}'", p.span, reporter)
        _proto_fields(q.result, q.name, span, reporter)
        for f in q.result:
            if len(f.name.encode("utf-8")) > 63:  # a result column's name (its alias) as Postgres sends it
                reporter.error("E0214", f"result field '{f.name}' of query '{q.name}' is longer than Postgres' "
                               "63-byte identifier limit (Postgres would cut the column's name)", span,
                               "give it a shorter name in the shape, e.g. short := .long_property")
        shapes: Dict[Tuple[str, ...], str] = {}
        _go_shapes(q, method, (), q.result, shapes, go, what, span)
        lower = method[0].lower() + method[1:]
        names.go_queries[q.name] = GoQueryNames(
            method, go.claim(lower + "SQL", what, span), go.claim(method + "Params", what, span), row_type, params,
            shapes, go.claim(lower + "Statements", what, span) if q.variants else None)
    return names


def _go_shapes(q, owner: str, path: Tuple[str, ...], fields, out: Dict[Tuple[str, ...], str], go: _Namespace,
               what: str, span: Span) -> None:
    """Struct names of the nested shapes and tuples of a result: ``<Owner><Field>``, innermost
    last (a tuple's element tuple: ``<Tuple>Element<i>`` / ``<Tuple><Name>``)."""
    for f in fields:
        if f.shape is None and f.type is not None and f.type.fields is not None:
            _go_tuple(q, owner + go_name(f.name), path + (f.name,), f.type, out, go, span)
            continue
        if f.shape is None:
            continue
        sub = path + (f.name,)
        name = go.claim(owner + go_name(f.name), f"field '{'.'.join(sub)}' of query '{q.name}'", span)
        out[sub] = name
        _go_shapes(q, name, sub, f.shape, out, go, what, span)


def _go_tuple(q, name: str, path: Tuple[str, ...], vtype, out: Dict[Tuple[str, ...], str], go: _Namespace,
              span: Span) -> None:
    """The struct of a selected tuple (``path``: the result field, then element keys), and of the
    tuples among its elements; its fields ``Element0``, ``Element1``... (a named tuple's: its
    names, which must stay apart in Go), as edgeql-go names them."""
    what = f"field '{'.'.join(path)}' of query '{q.name}'"
    out[path] = go.claim(name, what, span)
    fields = _Namespace("Go", frozenset(), go.reporter)
    for i, (n, t) in enumerate(vtype.fields):
        field = fields.claim(go_name(n) if n is not None else f"Element{i}",
                             f"element '{n}' of {what}" if n is not None else f"element {i} of {what}", span)
        if n is not None:
            _proto_key(n, f"element '{n}' of {what}", span, go.reporter)
        if t.fields is not None:
            _go_tuple(q, out[path] + field, path + (n if n is not None else str(i),), t, out, go, span)
