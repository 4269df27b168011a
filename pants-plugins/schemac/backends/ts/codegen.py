"""TypeScript back end: a node-postgres runner.

Files: ``models.ts`` (JSON and enum types), ``errors.ts`` (a typed error class per exclusive
constraint), ``queries.ts`` (one function per query, with ``XArgs``/``XResult`` types) and
``index.ts`` (``createRunner(db)`` and re-exports). The code targets ES2022 and compiles under
``tsc --strict --noUncheckedIndexedAccess``; it imports nothing from ``pg`` itself, so any
object with ``query(text, values)`` works.

Type mapping: :mod:`schemac.semantics.scalars` (``ts`` for results, ``ts_param`` for parameters). Query
results follow cardinality: ``one`` -> ``Promise<T>``, ``at_most_one`` -> ``Promise<T | null>``,
``many`` -> ``Promise<T[]>``.

``ts_int64="bigint"`` maps ``int64`` to ``bigint`` (:data:`schemac.semantics.scalars.TS_INT64_BIGINT`).
node-postgres still returns ``int8`` as a string (its global type parsers are left alone), so
each query whose result holds an ``int64`` (top level, in an array, or inside a nested shape,
where it travels as a JSON string) gets a ``decode<Name>Row`` function that converts those values
with ``BigInt()``; ``BigInt()`` also accepts a ``number`` or ``bigint``, so the runner stays
correct when an application did install its own ``int8`` parser. Queries without ``int64``
results return the rows as they come.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Set

from schemac.semantics import asserts
from schemac.semantics.library import Library
from schemac.semantics.constraint_errors import KINDS
from schemac.semantics.model import ValueType
from schemac.semantics.names import comment_safe, js_string, ts_key, ts_pascal, ts_template
from schemac.semantics.qir import ResultField
from schemac.semantics.queries import AT_MOST_ONE, MANY, ONE, QueryPlan
from schemac.backends import is_filtered_upsert
from schemac.render import render
from schemac.semantics.extensions import VECTOR, is_vector
from schemac.semantics.scalars import RANGE_ELEMENTS, TS_DECODERS, TS_INT64_BIGINT, range_kind

if TYPE_CHECKING:
    from schemac.semantics.naming import Names


class _Used(set):
    """The model types a queries.ts uses (imported from models.ts), and the TS names of the
    enums (:attr:`schemac.semantics.naming.Names.ts_enums`) to spell them with."""

    def __init__(self, enums: Dict[str, str]):
        super().__init__()
        self.enums = enums


def _enum_name(t, used: Set[str]) -> str:
    enums = getattr(used, "enums", None)
    return enums.get(t.enum.qualname, t.enum.code_name) if enums is not None else t.enum.code_name


def _ts_type(t: ValueType, param: bool, used: Set[str], bigint: bool = False) -> str:
    if t.fields is not None:
        # a tuple (https://docs.geldata.com/reference/stdlib/tuple), as @gel/generate types it:
        # `[A, B]`, a named tuple `{ a: A; b: B }`; its elements travel as JSON
        if all(n is None for n, _ in t.fields):
            return "[" + ", ".join(_ts_json_type(e, used, bigint) for _, e in t.fields) + "]"
        return "{ " + "; ".join(f"{ts_key(n)}: {_ts_json_type(e, used, bigint)}" for n, e in t.fields) + " }"  # type: ignore[arg-type]
    if t.element is not None:
        inner = _ts_type(t.element, param, used, bigint)
        inner = f"({inner})" if " " in inner else inner
        return f"readonly {inner}[]" if param else f"{inner}[]"
    if t.enum is not None:
        name = _enum_name(t, used)
        used.add(name)
        return name
    if bigint and t.scalar is not None and t.scalar.name == "int64":
        return TS_INT64_BIGINT[1] if param else TS_INT64_BIGINT[0]
    name = t.scalar.ts_param if param else t.scalar.ts  # type: ignore[union-attr]
    if "Range<" in name:
        used.add("Range")
    if "Json" in name:
        for model_type in ("JsonValue", "JsonDocument"):
            if model_type in name:
                used.add(model_type)
    return name


def _ts_json_type(t: ValueType, used: Set[str], bigint: bool = False) -> str:
    """The TS type of a value inside a nested shape's JSON (see ``queries.JSON_SPELLING``):
    bytes are base64 strings, 64-bit numbers strings (``bigint`` after decoding, with
    ``ts_int64="bigint"``); timestamps travel as ISO 8601 strings and are decoded into ``Date``s
    (``jsonDate``), as node-postgres gives them at the top level."""
    if t.element is not None:
        inner = _ts_json_type(t.element, used, bigint)
        return f"({inner})[]" if " " in inner else f"{inner}[]"
    if t.scalar is not None and t.scalar.name == "bytes":
        return "string"
    if t.scalar is not None and t.scalar.name == "datetime":
        return "Date"  # decoded by jsonDate
    return _ts_type(t, False, used, bigint)


def _ts_field_type(f, used: Set[str], bigint: bool = False) -> str:
    """A result field's TS type: a scalar, or an inline object type for a nested shape."""
    if f.shape is not None:
        inner = "; ".join(f"{ts_key(n.name)}: {_ts_field_type(n, used, bigint)}" for n in f.shape)
        obj = f"{{ {inner} }}"
        if f.multi:
            return f"Array<{obj}>"
        return f"{obj} | null" if f.optional else obj
    assert f.type is not None
    t = _ts_json_type(f.type, used, bigint) if f.in_json else _ts_type(f.type, False, used, bigint)
    return f"{t} | null" if f.optional else t


#: The helpers a ``decode<Name>Row`` function may call (emitted into queries.ts when used), in
#: the order they are emitted.
DECODE_HELPERS = ("int64", "int64OrNull", "int64Array", "int64ArrayOrNull", "jsonDate", "localDate", "localDateTime",
                  "isoDuration", "parseVector", "tzDate", "parseRange", "parseMultirange", "rangeText", "multirangeText",
                  "orNull", "each", "decodeObject", "decodeList", "decodeTuple")


def _decode_value(t: ValueType, expr: str, optional: bool, helpers: Set[str], bigint: bool = True) -> Optional[str]:
    """The expression converting the raw value ``expr`` of type ``t`` (``int64`` with
    ``ts_int64="bigint"``; the calendar types and durations of
    :data:`schemac.semantics.scalars.TS_DECODERS` always), or ``None`` when it needs no conversion."""
    elem = t.element if t.element is not None else t
    name = elem.scalar.name if elem.scalar is not None else None
    kind = range_kind(elem.scalar)
    if kind:
        bound = RANGE_ELEMENTS[elem.scalar.sql_family.split(":", 1)[1]][4]  # type: ignore[union-attr]
        if bound not in ("Number", "String"):
            helpers.add(bound)
        fn = "parseRange" if kind == "range" else "parseMultirange"
        helpers.add(fn)
        if optional:
            helpers.add("orNull")
            return f"orNull({expr}, (v) => {fn}(v, {bound}))"
        return f"{fn}({expr}, {bound})"
    if is_vector(elem.scalar):
        name = VECTOR
    if name in TS_DECODERS:
        fn = TS_DECODERS[name]  # type: ignore[index]
        helpers.add(fn)
        conv = f"{fn}({expr})" if t.element is None else f"each({expr}, {fn})"
        if t.element is not None:
            helpers.add("each")
        if optional:
            helpers.add("orNull")
            conv = f"orNull({expr}, {fn})" if t.element is None else f"orNull({expr}, (a) => each(a, {fn}))"
        return conv
    if not bigint:
        return None
    if t.element is not None:
        if t.element.scalar is None or t.element.scalar.name != "int64":
            return None
        helper = "int64ArrayOrNull" if optional else "int64Array"
    elif t.scalar is not None and t.scalar.name == "int64":
        helper = "int64OrNull" if optional else "int64"
    else:
        return None
    helpers.add(helper)
    return f"{helper}({expr})"


def _decode_field(f, expr: str, depth: int, helpers: Set[str], bigint: bool = True) -> Optional[str]:
    """The expression converting result field ``f`` (raw value ``expr``), or ``None``. A nested
    shape is rebuilt with its converted fields, one per line (``{ ...o1, n: int64(o1["n"]) }``);
    continuation lines are indented relative to the line the expression starts on."""
    if f.shape is None and f.type is not None and f.type.fields is not None:
        return _decode_tuple(f.type, expr, depth, helpers, bigint)
    if f.shape is None:
        assert f.type is not None
        elem = f.type.element if f.type.element is not None else f.type
        if f.in_json and elem.scalar is not None and elem.scalar.name == "datetime":
            helpers.add("jsonDate")
            conv = f"jsonDate({expr})" if f.type.element is None else f"each({expr}, jsonDate)"
            if f.type.element is not None:
                helpers.add("each")
            if f.optional:
                helpers.add("orNull")
                conv = (f"orNull({expr}, jsonDate)" if f.type.element is None
                        else f"orNull({expr}, (a) => each(a, jsonDate))")
            return conv
        if f.in_json and is_vector(elem.scalar):
            return None  # (a JSON array of numbers already: lowering._json_value)
        return _decode_value(f.type, expr, f.optional, helpers, bigint)
    var = f"o{depth + 1}"
    inner_helpers: Set[str] = set()
    fields = []
    for n in f.shape:
        conv = _decode_field(n, f"{var}[{js_string(n.name)}]", depth + 1, inner_helpers, bigint)
        if conv is not None:
            fields.append(f"{ts_key(n.name)}: {conv},".replace("\n", "\n  "))
    if not fields:
        return None
    helpers.update(inner_helpers)
    helper = "decodeList" if f.multi else "decodeObject"
    helpers.add(helper)
    body = "".join(f"\n  {line}" for line in [f"...{var},", *fields])
    return f"{helper}({expr}, ({var}) => ({{{body}\n}}))"


def _decode_tuple(t: ValueType, expr: str, depth: int, helpers: Set[str], bigint: bool) -> Optional[str]:
    """The expression converting a tuple value (a JSON array; a named tuple's, an object) whose
    elements need converting (``int64`` with ``ts_int64="bigint"``, timestamps, calendar types),
    or ``None``: ``decodeTuple(v, (t1) => [t1[0], int64(t1[1])])`` (``null`` stays ``null``)."""
    var = f"t{depth + 1}"
    inner: Set[str] = set()
    named = any(n is not None for n, _ in t.fields or ())
    parts, converted = [], False
    for i, (n, et) in enumerate(t.fields or ()):
        ref = f"{var}[{js_string(n)}]" if named else f"{var}[{i}]"
        conv = _decode_field(ResultField(n or str(i), et, False, in_json=True), ref, depth + 1, inner, bigint)
        converted = converted or conv is not None
        parts.append(f"{ts_key(n)}: {conv or ref}" if named else (conv or ref))  # type: ignore[arg-type]
    if not converted:
        return None
    helpers.update(inner)
    helpers.add("decodeTuple")
    body = "{ " + ", ".join(parts) + " }" if named else "[" + ", ".join(parts) + "]"
    return f"decodeTuple({expr}, ({var}) => ({body}))"


def _decoder(q: QueryPlan, helpers: Set[str], bigint: bool, fn: str) -> Optional[Dict[str, object]]:
    """The ``decode<Name>Row`` function of a query whose result holds values the runner
    converts (``int64`` with ``ts_int64="bigint"``, calendar types and durations): the lines of
    its object literal; ``None`` when nothing is converted."""
    lines: List[str] = []
    for f in q.result:
        conv = _decode_field(f, f"row[{js_string(f.name)}]", 0, helpers, bigint)
        if conv is not None:
            lines.extend(f"{ts_key(f.name)}: {conv},".split("\n"))
    if not lines:
        return None
    what = []
    if helpers & {"int64", "int64OrNull", "int64Array", "int64ArrayOrNull"} and bigint and _has_int64(q.result):
        what.append("its `int64` values as `bigint`")
    if any(h in helpers for h in ("localDate", "localDateTime", "isoDuration")) and _has_decoded(q.result):
        what.append("its dates, times and durations as strings")
    if any(n.startswith(("range<", "multirange<")) for n in _value_names(q.result)):
        what.append("its ranges parsed")
    if "parseVector" in helpers and any(n.startswith(VECTOR) for n in _value_names(q.result)):
        what.append("its vectors as numbers")
    if "jsonDate" in helpers and "datetime" in _value_names([f for f in q.result if f.shape is not None]):
        what.append("the timestamps of its nested shapes as `Date`s")
    return {"fn": fn, "lines": lines, "what": " and ".join(what)}


def _value_names(fields) -> Set[str]:
    """Names of the scalars (or array elements) of ``fields``, nested shapes included."""
    out: Set[str] = set()
    for f in fields:
        if f.shape is not None:
            out |= _value_names(f.shape)
        elif f.type is not None and f.type.fields is not None:
            out |= _value_names([ResultField(n or str(i), t, False) for i, (n, t) in enumerate(f.type.fields)])
        elif f.type is not None:
            t = f.type.element if f.type.element is not None else f.type
            if t.scalar is not None:
                out.add(t.scalar.name)
    return out


def _has_int64(fields) -> bool:
    return "int64" in _value_names(fields)


def _has_decoded(fields) -> bool:
    return bool(_value_names(fields) & set(TS_DECODERS))


def _arg_ref(p) -> str:
    """How the query function reads parameter ``p`` from ``args``."""
    return f"args.{p.name}" if ts_key(p.name) == p.name else f"args[{js_string(p.name)}]"


def _variants_view(q: QueryPlan, name: Optional[str], sql_const: str) -> Optional[Dict[str, object]]:
    """The statements of an insert by omitted parameters (``QueryPlan.variants``): the table's
    rows (SQL, positions of the values each binds) and the mask expression choosing one."""
    if not q.variants or name is None:
        return None
    keys = q.variants[-1].omitted  # the last variant leaves every omittable parameter out
    by_index = {p.index: p for p in q.params}
    mask = " | ".join(f"({_arg_ref(by_index[k])} == null ? {1 << i} : 0)" for i, k in enumerate(keys))
    rows = [(sql_const if n == 0 else ts_template(v.sql), ", ".join(str(i - 1) for i in v.sent))
            for n, v in enumerate(q.variants)]
    left_out = ", ".join(f"`{by_index[k].name}`" for k in keys)
    return {"name": name, "mask": mask, "rows": rows, "left_out": left_out}


def _param_value(p) -> str:
    if p.global_ is not None:
        return _global_value(p.global_)
    ref = _arg_ref(p)
    kind = range_kind(p.type.scalar)
    if kind:
        fn = "rangeText" if kind == "range" else "multirangeText"
        return f"{ref} == null ? null : {fn}({ref})" if p.optional else f"{fn}({ref})"
    if (p.type.scalar is not None and p.type.scalar.name == "json") or is_vector(p.type.scalar) or (
            p.type.element is not None and p.type.element.fields is not None):
        # (an array of named tuples travels as JSON objects: exprs._record_array_type)
        # (a vector's text form, [1,2,3], is its JSON)
        return f"{ref} == null ? null : JSON.stringify({ref})" if p.optional else f"JSON.stringify({ref})"
    return f"{ref} ?? null" if p.optional else ref


def _global_value(g) -> str:
    """The value bound for global ``g``, read from the query's ``globals``: ``null`` when unset
    (its default then applies in SQL), :class:`MissingGlobalError` for a required global without
    a default."""
    key = g.key
    ref = f"globals.{key}" if ts_key(key) == key else f"globals[{js_string(key)}]"
    json = g.type.scalar is not None and g.type.scalar.name == "json"
    if g.must_be_set:
        value = f"requiredGlobal({ref}, {js_string(key)})"
        return f"JSON.stringify({value})" if json else value
    return f"{ref} == null ? null : JSON.stringify({ref})" if json else f"{ref} ?? null"


def _global_doc(g) -> str:
    """A global's doc comment in ``Globals``."""
    if g.type.enum is not None:
        type_name = g.type.enum.qualname.replace("default::", "")
    else:
        type_name = g.type.name
    head = f"`{'required ' if g.required else ''}global {g.key}: {type_name}`"
    if g.default_sql is not None:
        tail = f"Unset or `null`: its default, `{g.default_sql}`."
    elif g.must_be_set:
        tail = "Must be set: a query that reads it throws {@link MissingGlobalError} while it is unset."
    else:
        tail = "Unset or `null`: empty."
    return f"{head}. {tail}".replace("*/", "*\\/")


def _doc_lines(q: QueryPlan, errors: Dict[str, str]) -> List[str]:
    # "*/" in the user's text would end the /** ... */ block early.
    lines = q.doc.replace("*/", "*\\/").split("\n") if q.doc else [f"Runs query `{q.name}`."]
    lines = lines + ["", f"Source: {comment_safe(q.path)}."]
    if q.cardinality == AT_MOST_ONE:
        if q.kind == "insert" and is_filtered_upsert(q):
            lines.append("Resolves to `null` when `unless conflict` skipped the insert and the existing object "
                         "failed the else update's filter.")
        elif q.kind == "insert":
            lines.append("Resolves to `null` when the insert was skipped by `unless conflict`.")
        elif q.scalar:
            lines.append("Resolves to `null` when the value is empty.")
        else:
            lines.append("Resolves to `null` when no row matched.")
    for ex in q.exclusives:
        lines.append(f"@throws {{@link {errors.get(ex.name) or ts_pascal(ex.name) + 'Error'}}} on a duplicate "
                     f"for `{ex.name}`.")
    for name, when in q.foreign_keys:
        lines.append(f"@throws {{@link {errors.get(name) or ts_pascal(name) + 'Error'}}} when {when} (`{name}`).")
    read = [p.global_ for p in q.params if p.global_ is not None]
    if read:
        lines.append("Reads the global" + ("s " if len(read) > 1 else " ") + ", ".join(f"`{g.key}`" for g in read)
                     + " from `globals`.")
        for g in read:
            if g.must_be_set:
                lines.append(f"@throws {{@link MissingGlobalError}} when `{g.key}` is not set (nothing is sent).")
    return lines


def _param_view(p, used: Set[str], bigint: bool) -> Dict[str, object]:
    """What the templates show of a parameter: key, TS type, value expression, doc."""
    ts_type = _ts_type(p.type, True, used, bigint)
    doc = f"Omitted or `null`: `{p.unchanged}` keeps its value." if p.unchanged and p.optional else ""
    return {"key": ts_key(p.name), "optional": p.optional,
            "ts_type": f"{ts_type} | null" if p.optional else ts_type, "value": _param_value(p), "doc": doc}


def _query_view(q: QueryPlan, names: "Names", used: Set[str], bigint: bool = False,
                helpers: Optional[Set[str]] = None, memo: Optional[Dict[tuple, Dict[str, object]]] = None
                ) -> Dict[str, object]:
    """What the templates show of a query. ``memo``: parameter views already made during this
    rendering (with the same ``used`` and ``bigint``), by name, type (its ``id``: the types
    outlive the rendering), optional and unchanged; most queries' parameters repeat."""
    qn = names.ts_queries[q.name]
    fn = qn.fn
    result_type = qn.result_type
    if q.cardinality == MANY:
        ret = f"{result_type}[]"
    elif q.cardinality == AT_MOST_ONE:
        ret = f"{result_type} | null"
    else:
        assert q.cardinality == ONE
        ret = result_type
    if memo is None:
        memo = {}
    params = []
    for p in q.params:
        key = (p.name, id(p.type), p.optional, p.unchanged)
        view = memo.get(key)
        if view is None:
            view = memo[key] = _param_view(p, used, bigint)
        params.append(view)
        kind = range_kind(p.type.scalar)
        if kind and helpers is not None:
            helpers.add("rangeText" if kind == "range" else "multirangeText")
            if kind == "multirange":
                helpers.add("rangeText")
    arg_params = [view for p, view in zip(q.params, params) if p.global_ is None]
    result = [(ts_key(f.name), _ts_field_type(f, used, bigint)) for f in q.result]  # (key, TS type)
    index_ret = ret
    if q.scalar:
        # A single value (`select count(User)`): the function returns the row's one value.
        value_type = result[0][1]
        if q.cardinality == MANY:
            ret = f"({value_type})[]" if " " in value_type else f"{value_type}[]"
        elif q.cardinality == AT_MOST_ONE and not value_type.endswith(" | null"):
            ret = f"{value_type} | null"
        else:
            ret = value_type
        index_ret = ret
        probe = _Used(getattr(used, "enums", {}))
        _ts_field_type(q.result[0], probe, bigint)
        if probe:
            # (index.ts imports no model type: a value of one, an enum, is named through the row)
            value_ref = f'{result_type}["value"]'
            index_ret = (f"{value_ref}[]" if q.cardinality == MANY else
                         f"{value_ref} | null" if q.cardinality == AT_MOST_ONE and not value_type.endswith(" | null")
                         else value_ref)
    decoder = _decoder(q, helpers if helpers is not None else set(), bigint, qn.decoder)
    return {
        "name": q.name, "path": comment_safe(q.path), "fn": fn, "key": qn.key,
        # (in a type, ``new(...)`` would be a construct signature)
        "key_decl": js_string(qn.key) if qn.key == "new" else qn.key, "sql_const": qn.sql_const,
        "sql_literal": ts_template(q.sql), "args_type": qn.args_type, "result_type": result_type,
        "return_type": ret, "index_return_type": index_ret, "params": params,
        "args_params": arg_params, "reads_globals": len(arg_params) != len(params),
        "result": result, "cardinality": q.cardinality, "scalar": q.scalar,
        "doc": "\n".join([f" * {line}" if line else " *" for line in _doc_lines(q, names.ts_errors)]),
        "no_row_message": js_string(f"{q.name}: the statement returned no row"), "decoder": decoder,
        "variants": _variants_view(q, qn.variants, qn.sql_const),
    }


def render_typescript(lib: Library) -> Dict[str, str]:
    """``{file name: text}`` of the TypeScript runner of ``lib``."""
    library = lib.options.library
    esm = lib.options.ts_module == "esm"
    imports = {"import_prefix": "./", "import_suffix": ".js" if esm else ""}
    names = lib.names
    enums = []
    for e in lib.schema.all_enums():
        enums.append({
            "name": names.ts_enums[e.qualname], "qualname": e.qualname,
            "members": [(ts_key(m), js_string(m)) for m in e.members],
            # ("*/" in a member would end the /** ... */ block early)
            "members_doc": ", ".join(f"`{m}`" for m in e.members).replace("*/", "*\\/"),
        })
    errors = []
    kinds = {kind: (js_string(sqlstate), family) for kind, (sqlstate, family) in KINDS.items()}
    for e in lib.constraint_errors:
        constraint, description, type_name = e.constraint, e.description, e.type_name
        sqlstate_js, family = kinds[e.kind]
        errors.append({
            "kind": e.kind, "family": family, "constraint": constraint,
            "class_name": names.ts_errors[constraint], "name_js": js_string(constraint),
            "table_js": js_string(e.table), "sqlstate_js": sqlstate_js,
            "columns_js": ", ".join(map(js_string, e.columns)),
            "message_js": js_string(f"{type_name}: {description} ({constraint})"),
            "description_doc": description.replace("*/", "*\\/"), "type_doc": type_name,
        })
    used: Set[str] = _Used(names.ts_enums)
    bigint = lib.options.ts_int64 == "bigint"
    helpers: Set[str] = set()
    memo: Dict[tuple, Dict[str, object]] = {}
    queries = [_query_view(q, names, used, bigint, helpers, memo) for q in lib.queries]
    globals_ = [g for g in lib.schema.globals.values() if g.computed is None]
    out = {
        "errors.ts": render("backends/ts/templates/errors.ts.j2", library=library, errors=errors,
                            policies=any(t.policies for t in lib.schema.all_types()),
                            asserts=asserts.raised_by(lib.queries)),
        "index.ts": render("backends/ts/templates/index.ts.j2", library=library, queries=queries, globals=bool(globals_), **imports),
        "models.ts": render("backends/ts/templates/models.ts.j2", library=library, enums=enums, ranges="Range" in used),
    }
    required_global = any(p.global_ is not None and p.global_.must_be_set for q in lib.queries for p in q.params)
    globals_import = None
    if any(q["reads_globals"] for q in queries):
        globals_import = "import { MissingGlobalError, type Globals }" if required_global else "import type { Globals }"
    out["queries.ts"] = render("backends/ts/templates/queries.ts.j2", library=library, queries=queries, model_imports=", ".join(sorted(used)),
                               decode_helpers=[h for h in DECODE_HELPERS if h in helpers],
                               globals_import=globals_import, required_global=required_global, **imports)
    if globals_:
        global_used: Set[str] = set()
        views = [{"key": ts_key(g.key), "doc": _global_doc(g),
                  "ts_type": _ts_type(g.type, True, global_used, bigint) + " | null"} for g in globals_]
        out["globals.ts"] = render("backends/ts/templates/globals.ts.j2", library=library, globals=views,
                                   model_imports=", ".join(sorted(global_used)), **imports)
    return dict(sorted(out.items()))
