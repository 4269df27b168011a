"""Go back end: a pgx v5 runner in the style of sqlc.

Files: ``db.go`` (``DBTX``, ``New``, ``Runner``, ``WithTx``), ``models.go`` (enum types with
constants and ``Valid()``), ``errors.go`` (a typed error per exclusive constraint, usable with
``errors.As``; ``errors.Is(err, ErrExclusiveViolation)`` for any of them) and ``queries.go``
(one SQL constant, ``XParams``/``XRow`` structs and method per query). Output is gofmt-clean
(the renderer aligns struct fields and const blocks the way gofmt does) and builds with Go 1.21+.

Type mapping: :mod:`schemac.semantics.scalars`. Optional values are pointers (``*string``), except
``json.RawMessage`` and ``[]byte``, where ``nil`` is SQL NULL. Results follow cardinality:
``one`` -> ``(XRow, error)``, ``at_most_one`` -> ``(*XRow, error)`` with ``nil, nil`` when no
row (an ``unless conflict`` that skipped the insert, or no match), ``many`` -> ``([]XRow, error)``.

``go_driver="database/sql"`` writes the same API for database/sql instead, opened with pgx's
``github.com/jackc/pgx/v5/stdlib`` driver: ``DBTX`` has ``ExecContext``/``QueryContext``/
``QueryRowContext`` (``*sql.DB``, ``*sql.Conn``, ``*sql.Tx``), ``WithTx(*sql.Tx)``, "no row" is
``sql.ErrNoRows``, and optional values follow sqlc's database/sql convention: ``sql.NullString``
and friends (``go_sql_nullable`` in :mod:`schemac.semantics.scalars`) and a ``NullE`` struct per enum
(``Valid`` false is NULL), while slices, ``json.RawMessage`` and ``[]byte`` keep ``nil`` as NULL.
Parameters go through to pgx unchanged (stdlib accepts every type pgx does, slices included).
Columns database/sql cannot scan by itself -- arrays, ``json`` and nested shapes (JSON) -- are
decoded with pgx's own codec for their type (``pgScan`` in db.go, over ``pgtype.Map.Scan``), so
they behave exactly as with the pgx runner; nested shapes keep pointers for optional fields
(they are decoded by encoding/json). Typed errors are the same: pgx's stdlib returns
``*pgconn.PgError``.
"""

from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Set, Tuple

from schemac.semantics import asserts
from schemac.semantics.library import Library
from schemac.semantics.constraint_errors import KINDS
from schemac.semantics.model import ValueType
from schemac.semantics.names import comment_safe, go_name, go_raw, go_string
from schemac.semantics.queries import AT_MOST_ONE, MANY, QueryPlan
from schemac.backends import is_filtered_upsert
from schemac.render import render
from schemac.semantics.scalars import range_kind

if TYPE_CHECKING:
    from schemac.semantics.naming import GoEnumNames, Names


def align(rows: Sequence[Tuple[str, ...]]) -> List[str]:
    """Lay out rows of cells the way gofmt aligns a block of struct fields or consts: every
    cell but the last padded to its column's width plus one space."""
    if not rows:
        return []
    if len(rows) == 1:  # every cell is as wide as its column
        return [" ".join(rows[0]).rstrip()]
    size = len(rows[0])
    if size in (2, 3) and len(set(map(len, rows))) == 1:  # the usual blocks, same layout
        if size == 2:
            w = max([len(r[0]) for r in rows])
            return [f"{a.ljust(w)} {b}".rstrip() for a, b in rows]
        w0 = max([len(r[0]) for r in rows])
        w1 = max([len(r[1]) for r in rows])
        return [f"{a.ljust(w0)} {b.ljust(w1)} {c}".rstrip() for a, b, c in rows]
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
    if text.isascii() and text.isprintable() and "  " not in text and text[0] != " " and text[-1] != " ":
        # Single spaces between words, no other whitespace: the same greedy fill as
        # textwrap.wrap(break_long_words=False, break_on_hyphens=False), by one regular
        # expression: a word longer than the width alone, else as many words as fit.
        fill = _FILLS.get(width)
        if fill is None:
            fill = _FILLS[width] = re.compile(r"([^ ]{%d,}|.{1,%d})(?: |$)" % (width + 1, width))
        return fill.findall(text)
    return textwrap.wrap(text, width=width, break_long_words=False, break_on_hyphens=False) or [""]


#: ``wrap``'s line-filling expression, by width.
_FILLS: Dict[int, "re.Pattern[str]"] = {}


#: database/sql: the pgtype OID constant of an array column, by the Postgres type of its
#: elements (an enum's elements are ``text``).
ARRAY_OIDS = {
    "text": "TextArrayOID", "boolean": "BoolArrayOID", "smallint": "Int2ArrayOID", "integer": "Int4ArrayOID",
    "bigint": "Int8ArrayOID", "real": "Float4ArrayOID", "double precision": "Float8ArrayOID",
    "numeric": "NumericArrayOID", "jsonb": "JSONBArrayOID", "uuid": "UUIDArrayOID",
    "timestamptz": "TimestamptzArrayOID", "bytea": "ByteaArrayOID", "date": "DateArrayOID",
    "timestamp": "TimestampArrayOID", "time": "TimeArrayOID", "interval": "IntervalArrayOID",
}


#: A line gofmt would read as a link definition in a doc comment (and move to its end).
_LINK_DEF = re.compile(r"^\[[^\]]+\]:")


def doc_text(lines: Sequence[str]) -> List[str]:
    """Doc comment lines as gofmt keeps them (Go 1.19+ reformats doc comments,
    https://go.dev/doc/comment): the text of every line starts at the margin (an indented
    line would be a code block, or a list), a line that reads as a link definition
    (``[x]: url``) gets a space before its colon, two quotes written as `````` or ``''`` are
    the typographic quotes gofmt turns them into, trailing spaces go, and blank lines are
    single and never first or last."""
    out: List[str] = []
    for line in lines:
        line = comment_safe(line.strip(), block=False)
        if "``" in line or "''" in line:
            line = line.replace("``", "\u201c").replace("''", "\u201d")
        if line.startswith("[") and _LINK_DEF.match(line):
            line = line.replace("]:", "] :", 1)
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return out


#: database/sql: the pgtype OID constant of a range or multirange column.
RANGE_OIDS = {
    "int4range": "Int4rangeOID", "int8range": "Int8rangeOID", "numrange": "NumrangeOID", "tstzrange": "TstzrangeOID",
    "tsrange": "TsrangeOID", "daterange": "DaterangeOID", "int4multirange": "Int4multirangeOID",
    "int8multirange": "Int8multirangeOID", "nummultirange": "NummultirangeOID",
    "tstzmultirange": "TstzmultirangeOID", "tsmultirange": "TsmultirangeOID", "datemultirange": "DatemultirangeOID",
}


def _comment(lines: Sequence[str]) -> str:
    """Doc comment lines as a block (no final newline): ``// line``, a bare ``//`` for an empty
    line (gofmt's spelling); the text made gofmt-stable by :func:`doc_text`."""
    lines = doc_text(lines)
    if "" not in lines:
        return "// " + "\n// ".join(lines) if lines else ""
    return "\n".join([f"// {line}" if line else "//" for line in lines])


def _body(lines: Sequence[str]) -> str:
    """The lines of a struct's body, each indented by a tab and ended by a newline."""
    return "\t" + "\n\t".join(lines) + "\n" if lines else ""


class _Imports(set):
    """The import paths a Go file needs, and the Go names of the enums
    (:attr:`schemac.semantics.naming.Names.go_enums`) to spell them with."""

    def __init__(self, items, enums: Dict[str, "GoEnumNames"]):
        super().__init__(items)
        self.enums = enums


def _go_type(t: ValueType, optional: bool, imports: Set[str], sql_nulls: bool = False) -> str:
    """The Go type of a value; with ``sql_nulls`` (database/sql, outside JSON) an optional value
    is a ``sql.Null*`` (or ``NullE`` for an enum) instead of a pointer."""
    if t.element is not None:
        return "[]" + _go_type(t.element, False, imports)  # a nil slice is NULL
    if t.enum is not None:
        enums = getattr(imports, "enums", None)
        en = enums.get(t.enum.qualname) if enums is not None else None
        if optional and sql_nulls:
            return en.null_type if en is not None else "Null" + t.enum.code_name
        return ("*" if optional else "") + (en.type if en is not None else t.enum.code_name)
    s = t.scalar
    assert s is not None
    if optional and sql_nulls:
        if s.go_sql_nullable_import:
            imports.add(s.go_sql_nullable_import)
        return s.go_sql_nullable
    if s.go_import:
        imports.add(s.go_import)
    return s.go_nullable if optional else s.go


def _go_field_type(f, owner: str, imports: Set[str], structs: List[Dict[str, object]],
                   sql_nulls: bool = False, shapes: Optional[Dict[Tuple[str, ...], str]] = None,
                   path: Tuple[str, ...] = ()) -> str:
    """A result field's Go type. A nested shape becomes a struct type ``<Owner><Field>`` with
    JSON tags (appended to ``structs``, innermost first); 64-bit numbers travel as JSON strings
    (``,string``), bytes as base64, timestamps as RFC 3339. Inside a shape optional values are
    pointers whatever the driver (encoding/json decodes them)."""
    if f.shape is None and f.type is not None and f.type.fields is not None:
        path = path + (f.name,)
        name = shapes[path] if shapes is not None and path in shapes else owner + go_name(f.name)
        _go_tuple(f.type, name, f"the {f.type.name} {f.name} of {owner}", imports, structs, shapes, path)
        return f"*{name}" if f.optional else name
    if f.shape is None:
        return _go_type(f.type, f.optional, imports, sql_nulls)
    path = path + (f.name,)
    name = shapes[path] if shapes is not None and path in shapes else owner + go_name(f.name)
    lines, texts = [], []
    for n in f.shape:
        go_type = _go_field_type(n, name, imports, structs, False, shapes, path)
        lines.append((go_name(n.name), go_type, _json_tag(n)))
        if n.type is not None and n.type.element is not None and n.type.element.scalar is not None \
                and n.type.element.scalar.name == "int64":
            texts.append((go_name(n.name), "int64Texts", _json_tag(n)))
    st: Dict[str, object] = {"name": name, "body": _body(align(lines)),
                             "doc": f"{name} is the {f.name} shape of {owner}.", "unmarshal": None}
    if texts:
        # An array of int64 travels as an array of strings (lowering.JSON_TEXT_ARRAYS): those
        # fields are read through int64Texts, shadowing the struct's own (a shallower field wins).
        inner = "".join(f"\n\t\t{line}" for line in align([("*plain", ""), *texts]))
        st["unmarshal_pre"] = f"\ttype plain {name}"
        st["unmarshal_doc"] = "UnmarshalJSON reads the shape, its arrays of int64 from arrays of strings."
        st["unmarshal"] = (f"json.Unmarshal(data, &struct {{{inner}\n\t}}{{(*plain)(t), "
                           + ", ".join(f"int64Texts{{&t.{fld}}}" for fld, _, _ in texts) + "})")
        imports.update({"encoding/json", "strconv"})
    structs.append(st)
    if f.multi:
        return f"[]{name}"
    return f"*{name}" if f.optional else name


def _go_tuple(t: ValueType, name: str, what: str, imports: Set[str], structs: List[Dict[str, object]],
              shapes: Optional[Dict[Tuple[str, ...], str]], path: Tuple[str, ...]) -> None:
    """The struct of a selected tuple (https://docs.geldata.com/reference/stdlib/tuple), as
    edgeql-go maps one: a field per element, ``Element0``, ``Element1``... (a named tuple's:
    its names), appended to ``structs`` after the structs of its element tuples. The statement
    returns the tuple as JSON (an array; a named tuple: an object), which its ``UnmarshalJSON``
    reads with ``decodeTuple`` (an ``int64`` travels as a JSON string: ``int64Text``)."""
    named = any(n is not None for n, _ in t.fields or ())
    lines, targets = [], []
    for i, (n, et) in enumerate(t.fields or ()):
        field = go_name(n) if n is not None else f"Element{i}"
        key = n if n is not None else str(i)
        if et.fields is not None:
            sub = path + (key,)
            go_type = shapes[sub] if shapes is not None and sub in shapes else name + field
            _go_tuple(et, go_type, f"element {key} of {name}", imports, structs, shapes, sub)
        else:
            go_type = _go_type(et, False, imports)
        target = f"&t.{field}"
        if et.scalar is not None and et.scalar.name == "int64":
            target = f"&int64Text{{{target}}}"
        elif et.element is not None and et.element.scalar is not None and et.element.scalar.name == "int64":
            target = f"&int64Texts{{{target}}}"
        lines.append((field, go_type, f"`json:{go_string(n)}`") if named else (field, go_type))
        targets.append(target)
    imports.update({"encoding/json", "fmt"})
    if any(x.startswith("&int64Text") for x in targets):
        imports.add("strconv")
    names = "[]string{" + ", ".join(go_string(n) for n, _ in t.fields or ()) + "}" if named else "nil"
    structs.append({"name": name, "body": _body(align(lines)), "doc": f"{name} is {what}.",
                    "unmarshal": f"decodeTuple(data, {names}, {', '.join(targets)})"})


def _go_record(t: ValueType, name: str, what: str, imports: Set[str], structs: List[Dict[str, object]]) -> str:
    """The struct of an element of an array of named tuples passed as a parameter: a field per
    element, tagged with its name (the runner sends the array as JSON objects). Returns its name."""
    lines = [(go_name(n), _go_type(et, False, imports), f"`json:{go_string(n)}`") for n, et in t.fields or ()]
    imports.add("encoding/json")
    structs.append({"name": name, "body": _body(align(lines)), "doc": f"{name} is {what}.", "unmarshal": None})
    return name


def _json_tag(f) -> str:
    """The JSON tag of a result field, the same in a row and in a nested shape: the field's name
    in the query, ``,string`` for a 64-bit integer (it travels as a JSON string inside a shape,
    and JavaScript cannot hold it as a number)."""
    tag = f.name
    if f.type is not None and f.type.scalar is not None and f.type.scalar.name == "int64":
        tag += ",string"
    return f"`json:{go_string(tag)}`"


def _doc_lines(q: QueryPlan, method: str, errors: Dict[str, str]) -> List[str]:
    doc = q.doc.splitlines() if q.doc else []
    lines = wrap(f"{method} runs query {q.name} ({comment_safe(q.path, block=False)}).")
    if doc:
        lines += [""] + doc
    if q.cardinality == AT_MOST_ONE:
        if q.kind == "insert" and is_filtered_upsert(q):
            lines += [""] + wrap("It returns nil, nil when unless conflict skipped the insert and the existing "
                                 "object failed the else update's filter.")
        elif q.kind == "insert":
            lines += ["", "It returns nil, nil when the insert was skipped by unless conflict."]
        elif q.scalar:
            lines += ["", "It returns nil, nil when the value is empty."]
        else:
            lines += ["", "It returns nil, nil when no row matched."]
    if q.exclusives:
        names = ", ".join([f"*{errors.get(ex.name) or go_name(ex.name) + 'Error'}" for ex in q.exclusives])
        lines += [""] + wrap(f"A duplicate is reported as {names}.")
    if q.foreign_keys:
        fks = "; ".join(f"*{errors.get(name) or go_name(name) + 'Error'} when {when.replace('`', '')}"
                        for name, when in q.foreign_keys)
        lines += [""] + wrap(f"A violated foreign key is reported as {fks}.")
    read = [p.global_ for p in q.params if p.global_ is not None]
    if read:
        text = f"It reads the global{'s' if len(read) > 1 else ''} " + ", ".join(g.key for g in read) + \
            " from the runner's Globals."
        missing = [g.key for g in read if g.must_be_set]
        if missing:
            text += f" While {' or '.join(missing)} is unset it returns a *MissingGlobalError and sends nothing."
        lines += [""] + wrap(text)
    return lines


def _pg_scan_oid(f) -> Optional[str]:
    """database/sql: the pgtype OID constant a result column is decoded with (``pgScan``), or
    ``None`` for the columns database/sql scans by itself."""
    if f.shape is not None or f.type.fields is not None:
        return "JSONOID"  # json_build_object / json_agg; a tuple's json_build_array
    t = f.type
    if t.element is not None:
        return ARRAY_OIDS[t.element.pg]
    if t.scalar is not None and t.scalar.name == "json":
        return "JSONBOID"
    if t.scalar is not None and t.scalar.name == "duration":
        return "IntervalOID"  # into a time.Duration, which database/sql cannot convert text to
    if t.scalar is not None and range_kind(t.scalar):
        return RANGE_OIDS[t.scalar.pg]  # pgtype.Range / Multirange are no sql.Scanner
    return None


def _query_view(q: QueryPlan, names: "Names", imports: Set[str], database_sql: bool = False) -> Dict[str, object]:
    qn = names.go_queries[q.name]
    method = qn.method
    params, optional_fields, unchanged = [], [], []
    values, required_globals, left_out = [], [], {}
    empty_slices: List[Tuple[str, str]] = []
    param_structs: List[Dict[str, object]] = []
    json_params: List[Tuple[str, str]] = []
    for p in q.params:
        if p.global_ is not None:
            values.append(f"q.globals.{go_name(p.global_.key)}")
            if p.global_.must_be_set:
                required_globals.append((go_name(p.global_.key), go_string(p.global_.key)))
            continue
        field = qn.params[p.name]
        values.append(f"arg.{field}")
        if p.type.element is not None and p.type.element.fields is not None:
            # an array of named tuples (exprs._record_array_type): a slice of structs, as edgeql-go
            # maps one, sent as a JSON array of objects
            go_type = "[]" + _go_record(p.type.element, f"{method}{field}Item", f"an element of {field} of "
                                        f"{qn.params_type}", imports, param_structs)
            var = f"{field[:1].lower()}{field[1:]}JSON"
            json_params.append((field, var))
            values[-1] = f"json.RawMessage({var})"
        else:
            go_type = _go_type(p.type, p.optional, imports, database_sql)
        params.append((field, go_type))
        # (pointers and slices are nil when left out; sql.Null*, pgtype values and NullE not Valid)
        nil = go_type.startswith(("*", "[]")) or go_type == "json.RawMessage"
        left_out[p.index] = (field, f"arg.{field} == nil" if nil else f"!arg.{field}.Valid")
        if not p.optional and p.type.element is not None and go_type.startswith("[]"):
            # Gel has no NULL arrays: a nil slice of a required array parameter is sent as the
            # empty array (https://docs.geldata.com/reference/edgeql/parameters), not as NULL
            empty_slices.append((field, go_type))
        if p.optional and p.unchanged:
            unchanged.append(f"{field} ({p.unchanged})")
        elif p.optional:
            optional_fields.append(field)
    structs: List[Dict[str, object]] = param_structs
    rows = [(go_name(f.name), _go_field_type(f, method, imports, structs, database_sql, qn.shapes), _json_tag(f))
            for f in q.result]
    if q.cardinality == MANY:
        ret = f"[]{qn.row_type}"
    elif q.cardinality == AT_MOST_ONE:
        ret = f"*{qn.row_type}"
        imports.update({"errors", "database/sql" if database_sql else "github.com/jackc/pgx/v5"})
    else:
        ret = qn.row_type
    params_doc = [f"{qn.params_type} are the parameters of {method}."]
    if not params:  # the method takes it variadically: Method(ctx) or Method(ctx, MethodParams{})
        params_doc[0] = (f"{qn.params_type} is empty: {method} takes no parameters (it may be called as "
                         f"{method}(ctx) or, as before, {method}(ctx, {qn.params_type}{{}})).")
    if optional_fields:
        null = "the zero value" if database_sql else "nil"
        params_doc[0] += (f" Optional: {', '.join(optional_fields)} ({null} stores NULL, or the property's default "
                          "in an insert).")
    if unchanged:
        null = "The zero value" if database_sql else "Nil"
        params_doc[0] += f" {null} leaves the property unchanged: {', '.join(unchanged)}."
    args = "".join([f", {v}" for v in values])
    scan = []
    for f in q.result:
        target = f"&i.{go_name(f.name)}"
        oid = _pg_scan_oid(f) if database_sql else None
        if oid is not None:
            imports.add("github.com/jackc/pgx/v5/pgtype")
            target = f"pgScan(pgtype.{oid}, {target})"
        scan.append(target)
    item, found, zero = "i", "&i", "nil" if q.cardinality in (MANY, AT_MOST_ONE) else f"{qn.row_type}{{}}"
    if q.scalar:
        # A single value (`select count(User)`): the method returns the row's one value (a
        # pointer, nil when empty, for at most one).
        value_type = rows[0][1]
        item = found = "i." + rows[0][0]
        if q.cardinality == MANY:
            ret = f"[]{value_type}"
        else:
            ret = value_type
            zero = f"{qn.row_type}{{}}.{rows[0][0]}"
    variants = None
    if q.variants and qn.variants is not None:
        keys = q.variants[-1].omitted  # the last variant leaves every omittable parameter out
        variants = {
            "name": qn.variants, "bound": ", ".join(values),
            "bits": [(left_out[k][1], 1 << i) for i, k in enumerate(keys)],
            "rows": [(qn.sql_const if n == 0 else go_raw(v.sql), ", ".join(str(i - 1) for i in v.sent))
                     for n, v in enumerate(q.variants)],
            "doc": _comment(wrap(
                f"{qn.variants} holds the statements of {method} by the optional parameters left out "
                f"({', '.join(left_out[k][0] for k in keys)}: bit i of the index for the i-th): a parameter left "
                "out leaves its column out of the insert, so the database applies its own column default. "
                "Each entry: the SQL, and the positions of the values it binds.")),
        }
    return {
        "scalar": q.scalar, "item": item, "found": found,
        "variants": variants,
        "call": "statement.sql, sent..." if variants else qn.sql_const + args,
        "name": q.name, "path": comment_safe(q.path, block=False), "method": method, "sql_const": qn.sql_const,
        "sql_literal": go_raw(q.sql), "params_type": qn.params_type, "row_type": qn.row_type,
        "param_body": _body(align(params)), "row_body": _body(align(rows)), "return_type": ret, "args": args,
        "scan": ", ".join(scan), "cardinality": q.cardinality,
        "doc": _comment(_doc_lines(q, method, names.go_errors)), "params_doc": _comment(wrap(" ".join(params_doc))),
        "structs": structs, "required_globals": required_globals, "has_params": bool(params),
        "empty_slices": empty_slices, "json_params": json_params,
        "zero": zero,
    }


def _group_imports(imports: Set[str]) -> List[str]:
    """Standard library first, then third-party, separated by an empty entry (gofmt/goimports)."""
    std = sorted(i for i in imports if "." not in i.split("/")[0])
    third = sorted(i for i in imports if "." in i.split("/")[0])
    return std + ([""] if std and third else []) + third


def render_go(lib: Library) -> Dict[str, str]:
    """``{file name: text}`` of the Go runner of ``lib``."""
    library, package = lib.options.library, lib.options.go_package_name
    database_sql = lib.options.go_driver == "database/sql"
    names = lib.names
    enums = []
    for e in lib.schema.all_enums():
        en = names.go_enums[e.qualname]
        consts = [en.consts[m] for m in e.members]
        enums.append({
            "name": en.type, "null_name": en.null_type, "all_func": en.all_func, "qualname": e.qualname,
            "consts": consts,
            "const_lines": align([(c, en.type, "= " + go_string(m)) for c, m in zip(consts, e.members)]),
            "null_lines": align([(en.type, en.type), ("Valid", "bool")]),
        })
    errors = []
    kinds = {kind: (go_string(sqlstate), family) for kind, (sqlstate, family) in KINDS.items()}
    for e in lib.constraint_errors:
        constraint, description, schema_type = e.constraint, e.description, e.type_name
        sqlstate_go, family = kinds[e.kind]
        type_name = names.go_errors[constraint]
        errors.append({
            "type_name": type_name, "family": family, "name_go": go_string(constraint),
            "sqlstate_go": sqlstate_go,
            "message_go": go_string(f"{schema_type}: {description} ({constraint})"),
            "doc": _comment(wrap(f"{type_name} is returned when {schema_type}: {description} (constraint "
                                 f"{constraint}). Match it with errors.As; errors.Is(err, Err{family}) also "
                                 "holds. Err is the driver error.")),
        })
    imports: Set[str] = _Imports({"context"} if lib.queries else (), names.go_enums)
    queries = [_query_view(q, names, imports, database_sql) for q in lib.queries]
    tuples = [st["unmarshal"] for q in queries for st in q["structs"] if st.get("unmarshal")]  # type: ignore[union-attr, attr-defined]
    # The Vector type (ext::pgvector::vector) when the library declares pgvector.
    vector = "pgvector" in lib.schema.extensions
    model_imports: Set[str] = set()
    if database_sql and enums:
        model_imports |= {"database/sql/driver", "fmt"}
    if vector:
        model_imports |= {"database/sql/driver", "fmt", "strconv", "strings", "github.com/jackc/pgx/v5/pgtype"}
    first = queries[0]["method"] if queries else "Name"
    globals_ = [g for g in lib.schema.globals.values() if g.computed is None]
    ctx = {"library": library, "package": package, "database_sql": database_sql, "globals": bool(globals_)}
    if database_sql:
        db_go = render("backends/go/templates/db.database_sql.go.j2", first_query=first,
                       pg_scan="github.com/jackc/pgx/v5/pgtype" in imports, **ctx)
    else:
        db_go = render("backends/go/templates/db.go.j2", first_query=first, **ctx)
    out = {
        "db.go": db_go,
        "errors.go": render("backends/go/templates/errors.go.j2", errors=errors, policies=_has_policies(lib),
                            asserts=asserts.raised_by(lib.queries), **ctx),
        "models.go": render("backends/go/templates/models.go.j2", enums=enums, vector=vector, model_imports=_group_imports(model_imports),
                            **ctx),
        "queries.go": render("backends/go/templates/queries.go.j2", queries=queries, imports=_group_imports(imports),
                             tuples=any("decodeTuple(" in u for u in tuples),
                             int64_text=any("&int64Text{" in u for u in tuples),
                             int64_texts=any("int64Texts{" in u for u in tuples), **ctx),
    }
    if globals_:
        global_imports: Set[str] = set()
        fields = []
        for g in globals_:
            go_type = _go_type(g.type, True, global_imports)
            fields.append("\n".join(f"\t// {line}" for line in wrap(_global_doc(g), 92)) +
                          f"\n\t{go_name(g.key)} {go_type}\n")
        out["globals.go"] = render("backends/go/templates/globals.go.j2", body="\n".join(fields), imports=_group_imports(global_imports),
                                   **ctx)
    return dict(sorted(out.items()))


def _has_policies(lib: Library) -> bool:
    return any(t.policies for t in lib.schema.all_types())


def _global_doc(g) -> str:
    """A global's doc comment in ``Globals``."""
    type_name = g.type.enum.code_name if g.type.enum is not None else g.type.name
    head = f"{go_name(g.key)} is {'required ' if g.required else ''}global {g.key}: {type_name}."
    if g.default_sql is not None:
        return f"{head} Nil: its default, {g.default_sql}."
    if g.must_be_set:
        return f"{head} It must be set: a query reading it returns a *MissingGlobalError while it is nil."
    return f"{head} Nil: empty."
