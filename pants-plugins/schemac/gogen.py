"""Go back end: a pgx v5 runner in the style of sqlc.

Files: ``db.go`` (``DBTX``, ``New``, ``Runner``, ``WithTx``), ``models.go`` (enum types with
constants and ``Valid()``), ``errors.go`` (a typed error per exclusive constraint, usable with
``errors.As``; ``errors.Is(err, ErrExclusiveViolation)`` for any of them) and ``queries.go``
(one SQL constant, ``XParams``/``XRow`` structs and method per query). Output is gofmt-clean
(the renderer aligns struct fields and const blocks the way gofmt does) and builds with Go 1.21+.

Type mapping: :mod:`schemac.scalars`. Optional values are pointers (``*string``), except
``json.RawMessage`` and ``[]byte``, where ``nil`` is SQL NULL. Results follow cardinality:
``one`` -> ``(XRow, error)``, ``at_most_one`` -> ``(*XRow, error)`` with ``nil, nil`` when no
row (an ``unless conflict`` that skipped the insert, or no match), ``many`` -> ``([]XRow, error)``.
"""

from __future__ import annotations

import textwrap
from typing import Dict, List, Sequence, Set, Tuple

from schemac.compiler import Library
from schemac.constraint_errors import constraint_errors
from schemac.model import ValueType
from schemac.names import go_name, go_raw, go_string
from schemac.queries import AT_MOST_ONE, MANY, QueryPlan
from schemac.render import render


def align(rows: Sequence[Tuple[str, ...]]) -> List[str]:
    """Lay out rows of cells the way gofmt aligns a block of struct fields or consts: every
    cell but the last padded to its column's width plus one space."""
    if not rows:
        return []
    widths = [max(len(r[i]) for r in rows if len(r) > i + 1) if any(len(r) > i + 1 for r in rows) else 0
              for i in range(max(len(r) for r in rows))]
    out = []
    for r in rows:
        cells = [c.ljust(widths[i]) if i < len(r) - 1 else c for i, c in enumerate(r)]
        out.append(" ".join(cells).rstrip())
    return out


def wrap(text: str, width: int = 96) -> List[str]:
    """Split a doc paragraph into comment lines of at most ``width`` characters."""
    if len(text) <= width and "\n" not in text:
        return [text.strip()] if text.strip() else [""]
    return textwrap.wrap(text, width=width, break_long_words=False, break_on_hyphens=False) or [""]


def _go_type(t: ValueType, optional: bool, imports: Set[str]) -> str:
    if t.element is not None:
        return "[]" + _go_type(t.element, False, imports)  # a nil slice is NULL
    if t.enum is not None:
        return ("*" if optional else "") + t.enum.code_name
    s = t.scalar
    assert s is not None
    if s.go_import:
        imports.add(s.go_import)
    return s.go_nullable if optional else s.go


def _go_field_type(f, owner: str, imports: Set[str], structs: List[Dict[str, object]]) -> str:
    """A result field's Go type. A nested shape becomes a struct type ``<Owner><Field>`` with
    JSON tags (appended to ``structs``, innermost first); 64-bit numbers travel as JSON strings
    (``,string``), bytes as base64, timestamps as RFC 3339."""
    if f.shape is None:
        return _go_type(f.type, f.optional, imports)
    name = owner + go_name(f.name)
    lines = []
    for n in f.shape:
        go_type = _go_field_type(n, name, imports, structs)
        tag = n.name
        if n.type is not None and n.type.scalar is not None and n.type.scalar.name == "int64":
            tag += ",string"
        lines.append((go_name(n.name), go_type, f"`json:{go_string(tag)}`"))
    structs.append({"name": name, "lines": align(lines), "doc": f"{name} is the {f.name} shape of {owner}."})
    if f.multi:
        return f"[]{name}"
    return f"*{name}" if f.optional else name


def _doc_lines(q: QueryPlan, method: str) -> List[str]:
    doc = q.doc.splitlines() if q.doc else []
    lines = wrap(f"{method} runs query {q.name} ({q.path}).")
    if doc:
        lines += [""] + doc
    if q.cardinality == AT_MOST_ONE:
        if q.kind == "insert":
            lines += ["", "It returns nil, nil when the insert was skipped by unless conflict."]
        else:
            lines += ["", "It returns nil, nil when no row matched."]
    if q.exclusives:
        names = ", ".join("*" + go_name(ex.name) + "Error" for ex in q.exclusives)
        lines += [""] + wrap(f"A duplicate is reported as {names}.")
    return lines


def _query_view(q: QueryPlan, imports: Set[str]) -> Dict[str, object]:
    method = go_name(q.name)
    params, optional_fields = [], []
    for p in q.params:
        field = go_name(p.name)
        params.append((field, _go_type(p.type, p.optional, imports)))
        if p.optional:
            optional_fields.append(field)
    structs: List[Dict[str, object]] = []
    rows = [(go_name(f.name), _go_field_type(f, method, imports, structs)) for f in q.result]
    if q.cardinality == MANY:
        ret = f"[]{method}Row"
    elif q.cardinality == AT_MOST_ONE:
        ret = f"*{method}Row"
        imports.update({"errors", "github.com/jackc/pgx/v5"})
    else:
        ret = f"{method}Row"
    params_doc = [f"{method}Params are the parameters of {method}."]
    if optional_fields:
        params_doc[0] += (f" Optional: {', '.join(optional_fields)} (nil stores NULL, or the property's default "
                          "in an insert).")
    args = "".join(f", arg.{go_name(p.name)}" for p in q.params)
    return {
        "name": q.name, "path": q.path, "method": method, "sql_const": f"{method[0].lower()}{method[1:]}SQL",
        "sql_literal": go_raw(q.sql), "params_type": f"{method}Params", "row_type": f"{method}Row",
        "param_lines": align(params), "row_lines": align(rows), "return_type": ret, "args": args,
        "scan": ", ".join(f"&i.{go_name(f.name)}" for f in q.result), "cardinality": q.cardinality,
        "doc_lines": _doc_lines(q, method), "params_doc": wrap(" ".join(params_doc)), "structs": structs,
    }


def _group_imports(imports: Set[str]) -> List[str]:
    """Standard library first, then third-party, separated by an empty entry (gofmt/goimports)."""
    std = sorted(i for i in imports if "." not in i.split("/")[0])
    third = sorted(i for i in imports if "." in i.split("/")[0])
    return std + ([""] if std and third else []) + third


def render_go(lib: Library) -> Dict[str, str]:
    """``{file name: text}`` of the Go runner of ``lib``."""
    library, package = lib.options.library, lib.options.go_package_name
    enums = []
    for e in lib.schema.all_enums():
        consts = [e.code_name + go_name(m) for m in e.members]
        enums.append({
            "name": e.code_name, "qualname": e.qualname, "consts": consts,
            "const_lines": align([(c, e.code_name, "= " + go_string(m)) for c, m in zip(consts, e.members)]),
        })
    errors = []
    for e in constraint_errors(lib.schema):
        type_name = go_name(e.constraint) + "Error"
        errors.append({
            "type_name": type_name, "family": e.family, "name_go": go_string(e.constraint),
            "sqlstate_go": go_string(e.sqlstate),
            "message_go": go_string(f"{e.type_name}: {e.description} ({e.constraint})"),
            "doc": wrap(f"{type_name} is returned when {e.type_name}: {e.description} (constraint "
                        f"{e.constraint}). Match it with errors.As; errors.Is(err, Err{e.family}) also holds. "
                        "Err is the driver error."),
        })
    imports: Set[str] = {"context"}
    queries = [_query_view(q, imports) for q in lib.queries]
    first = queries[0]["method"] if queries else "Name"
    ctx = {"library": library, "package": package}
    return {
        "db.go": render("db.go.j2", first_query=first, **ctx),
        "errors.go": render("errors.go.j2", errors=errors, **ctx),
        "models.go": render("models.go.j2", enums=enums, **ctx),
        "queries.go": render("queries.go.j2", queries=queries, imports=_group_imports(imports), **ctx),
    }
