"""TypeScript back end: a node-postgres runner.

Files: ``models.ts`` (JSON and enum types), ``errors.ts`` (a typed error class per exclusive
constraint), ``queries.ts`` (one function per query, with ``XArgs``/``XResult`` types) and
``index.ts`` (``createRunner(db)`` and re-exports). The code targets ES2022 and compiles under
``tsc --strict --noUncheckedIndexedAccess``; it imports nothing from ``pg`` itself, so any
object with ``query(text, values)`` works.

Type mapping: :mod:`schemac.scalars` (``ts`` for results, ``ts_param`` for parameters). Query
results follow cardinality: ``one`` -> ``Promise<T>``, ``at_most_one`` -> ``Promise<T | null>``,
``many`` -> ``Promise<T[]>``.
"""

from __future__ import annotations

from typing import Dict, List, Set

from schemac.compiler import Library
from schemac.constraint_errors import constraint_errors
from schemac.model import ValueType
from schemac.names import js_string, ts_camel, ts_key, ts_pascal, ts_template
from schemac.queries import AT_MOST_ONE, MANY, ONE, QueryPlan
from schemac.render import render


def _ts_type(t: ValueType, param: bool, used: Set[str]) -> str:
    if t.element is not None:
        inner = _ts_type(t.element, param, used)
        inner = f"({inner})" if " " in inner else inner
        return f"readonly {inner}[]" if param else f"{inner}[]"
    if t.enum is not None:
        used.add(t.enum.code_name)
        return t.enum.code_name
    name = t.scalar.ts_param if param else t.scalar.ts  # type: ignore[union-attr]
    for model_type in ("JsonValue", "JsonDocument"):
        if model_type in name:
            used.add(model_type)
    return name


def _ts_json_type(t: ValueType, used: Set[str]) -> str:
    """The TS type of a value inside a nested shape's JSON (see ``queries.JSON_SPELLING``):
    timestamps are ISO 8601 strings, bytes base64 strings, 64-bit numbers strings."""
    if t.element is not None:
        inner = _ts_json_type(t.element, used)
        return f"({inner})[]" if " " in inner else f"{inner}[]"
    if t.scalar is not None and t.scalar.name in ("datetime", "bytes"):
        return "string"
    return _ts_type(t, False, used)


def _ts_field_type(f, used: Set[str]) -> str:
    """A result field's TS type: a scalar, or an inline object type for a nested shape."""
    if f.shape is not None:
        inner = "; ".join(f"{ts_key(n.name)}: {_ts_field_type(n, used)}" for n in f.shape)
        obj = f"{{ {inner} }}"
        if f.multi:
            return f"Array<{obj}>"
        return f"{obj} | null" if f.optional else obj
    assert f.type is not None
    t = _ts_json_type(f.type, used) if f.in_json else _ts_type(f.type, False, used)
    return f"{t} | null" if f.optional else t


def _param_value(p) -> str:
    ref = f"args.{p.name}" if ts_key(p.name) == p.name else f"args[{js_string(p.name)}]"
    if p.type.scalar is not None and p.type.scalar.name == "json":
        return f"{ref} == null ? null : JSON.stringify({ref})" if p.optional else f"JSON.stringify({ref})"
    return f"{ref} ?? null" if p.optional else ref


def _doc_lines(q: QueryPlan) -> List[str]:
    # "*/" in the user's text would end the /** ... */ block early.
    lines = q.doc.replace("*/", "*\\/").split("\n") if q.doc else [f"Runs query `{q.name}`."]
    lines = lines + ["", f"Source: {q.path}."]
    if q.cardinality == AT_MOST_ONE:
        if q.kind == "insert":
            lines.append("Resolves to `null` when the insert was skipped by `unless conflict`.")
        else:
            lines.append("Resolves to `null` when no row matched.")
    for ex in q.exclusives:
        lines.append(f"@throws {{@link {ts_pascal(ex.name)}Error}} on a duplicate for `{ex.name}`.")
    return lines


def _query_view(q: QueryPlan, used: Set[str]) -> Dict[str, object]:
    fn = ts_camel(q.name)
    base = ts_pascal(q.name)
    result_type = f"{base}Result"
    if q.cardinality == MANY:
        ret = f"{result_type}[]"
    elif q.cardinality == AT_MOST_ONE:
        ret = f"{result_type} | null"
    else:
        assert q.cardinality == ONE
        ret = result_type
    params = []
    for p in q.params:
        ts_type = _ts_type(p.type, True, used)
        params.append({"key": ts_key(p.name), "optional": p.optional,
                       "ts_type": f"{ts_type} | null" if p.optional else ts_type, "value": _param_value(p)})
    result = [{"key": ts_key(f.name), "ts_type": _ts_field_type(f, used)} for f in q.result]
    return {
        "name": q.name, "path": q.path, "fn": fn, "sql_const": f"{fn}Sql", "sql_literal": ts_template(q.sql),
        "args_type": f"{base}Args", "result_type": result_type, "return_type": ret, "params": params,
        "result": result, "cardinality": q.cardinality, "doc_lines": _doc_lines(q),
        "no_row_message": js_string(f"{q.name}: the statement returned no row"),
    }


def render_typescript(lib: Library) -> Dict[str, str]:
    """``{file name: text}`` of the TypeScript runner of ``lib``."""
    library = lib.options.library
    esm = lib.options.ts_module == "esm"
    imports = {"import_prefix": "./", "import_suffix": ".js" if esm else ""}
    enums = []
    for e in lib.schema.all_enums():
        enums.append({
            "name": e.code_name, "qualname": e.qualname,
            "members": [(ts_key(m), js_string(m)) for m in e.members],
            "members_doc": ", ".join(f"`{m}`" for m in e.members),
        })
    errors = []
    for e in constraint_errors(lib.schema):
        errors.append({
            "kind": e.kind, "family": e.family, "constraint": e.constraint,
            "class_name": f"{ts_pascal(e.constraint)}Error", "name_js": js_string(e.constraint),
            "table_js": js_string(e.table), "sqlstate_js": js_string(e.sqlstate),
            "columns_js": ", ".join(js_string(c) for c in e.columns),
            "message_js": js_string(f"{e.type_name}: {e.description} ({e.constraint})"),
            "description_doc": e.description.replace("*/", "*\\/"), "type_doc": e.type_name,
        })
    used: Set[str] = set()
    queries = [_query_view(q, used) for q in lib.queries]
    return {
        "errors.ts": render("errors.ts.j2", library=library, errors=errors),
        "index.ts": render("index.ts.j2", library=library, queries=queries, **imports),
        "models.ts": render("models.ts.j2", library=library, enums=enums),
        "queries.ts": render("queries.ts.j2", library=library, queries=queries,
                             model_imports=", ".join(sorted(used)), **imports),
    }
