"""The conformance runner: Gel's own query tests (transcribed by ``transcribe.py`` into
``cases/<area>.json``) compiled with schemac and run on PostgreSQL.

For each fixture (an area's test class: one database): the schema modules are compiled with
schemac and the database migrated with the generated ``schema.sql``; each statement of the
setup scripts is compiled as a query and run (a statement schemac refuses makes every case of
the fixture REFUSED, with that statement's code and message). For each case, in a transaction
rolled back afterwards: the statements the Gel test ran before the assertion (its ``prelude``),
then the query; every compiled statement is first PREPAREd (unnamed, untyped, as the runners
do), and a statement PostgreSQL rejects is a failure. The rows are turned into Gel's JSON form
and compared as Gel's harness compares (geldata/gel ``edb/testbase/server.py``
``assert_query_result`` and ``edb/common/assert_data_shape.py``, reimplemented here): lists in
order, ``{...}`` sets sorted, ``bag``s in any order, dicts by the keys the expectation names,
floats with a relative tolerance of 1e-4, ``sort=`` applied to the result first.

Outcome of a case: ``MATCH``, ``MISMATCH`` (a wrong result, or a runtime error where Gel returns
one), ``REFUSED`` (schemac refused a statement: code and message), ``PREPARE`` (PostgreSQL
rejected a compiled statement).
"""

from __future__ import annotations

import base64
import datetime
import decimal
import json
import math
import os
import re
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from schemac.diagnostics import CompileError, Reporter
from schemac.pipeline import check_library, render_library
from schemac.semantics.library import Options
from schemac.semantics.queries import plan_query
from schemac.syntax.parser import parse_query

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_DIR = os.path.join(HERE, "cases")
FIXTURES_DIR = os.path.join(HERE, "fixtures")
KNOWN_MISMATCHES = os.path.join(HERE, "known_mismatches.txt")

#: Setup statements that change nothing schemac compiles: Gel's ``warn_old_scoping`` future
#: only adds warnings (https://docs.geldata.com/reference/edgeql/path_resolution).
NO_OPS = (re.compile(r"^create\s+future\s+warn_old_scoping$", re.I),)


# ---------------------------------------------------------------------------------------------
# Data


def areas() -> List[str]:
    return sorted(f[:-5] for f in os.listdir(CASES_DIR) if f.endswith(".json"))


_loaded: Dict[str, Dict[str, Any]] = {}


def load_area(area: str) -> Dict[str, Any]:
    if area not in _loaded:
        with open(os.path.join(CASES_DIR, f"{area}.json")) as f:
            _loaded[area] = json.load(f)
    return _loaded[area]


def all_cases() -> List[Tuple[str, Dict[str, Any]]]:
    return [(a, c) for a in areas() for c in load_area(a)["cases"]]


def prelude(area: str, case: Dict[str, Any]) -> List[str]:
    """The statements the case's Gel test ran before its query."""
    table = load_area(area)["statements"]
    return [table[i] for i in case["prelude"]]


MATCHING = os.path.join(HERE, "matching.txt")


def matching() -> set:
    """The cases that matched Gel's result when ``matching.txt`` was last written."""
    if not os.path.exists(MATCHING):
        return set()
    with open(MATCHING) as f:
        return {x.strip() for x in f if x.strip() and not x.startswith("#")}


def known_mismatches() -> Dict[str, str]:
    out: Dict[str, str] = {}
    if os.path.exists(KNOWN_MISMATCHES):
        with open(KNOWN_MISMATCHES) as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    cid, _, reason = line.partition(" ")
                    out[cid] = reason.strip()
    return out


def split_statements(script: str) -> List[str]:
    """An EdgeQL script's statements (split at ``;`` outside strings, comments and brackets)."""
    out: List[str] = []
    buf: List[str] = []
    depth = 0
    i, n = 0, len(script)
    while i < n:
        c = script[i]
        if c == "#":
            j = script.find("\n", i)
            j = n if j < 0 else j
            i = j
            continue
        if c in "'\"`":
            raw = c != "`" and i > 0 and script[i - 1] in "rR" and (i < 2 or not (script[i - 2].isalnum() or script[i - 2] == "_"))
            j = i + 1
            while j < n and script[j] != c:
                j += 2 if (script[j] == "\\" and not raw and c != "`") else 1
            buf.append(script[i:j + 1])
            i = j + 1
            continue
        if c == "$":
            m = re.match(r"\$([A-Za-z_][A-Za-z0-9_]*)?\$", script[i:])
            if m:
                end = script.find(m.group(0), i + len(m.group(0)))
                end = n if end < 0 else end + len(m.group(0))
                buf.append(script[i:end])
                i = end
                continue
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        if c == ";" and depth <= 0:
            st = "".join(buf).strip()
            if st:
                out.append(st)
            buf = []
        else:
            buf.append(c)
        i += 1
    st = "".join(buf).strip()
    if st:
        out.append(st)
    return out


# ---------------------------------------------------------------------------------------------
# Compiling


class Refused(Exception):
    def __init__(self, code: str, message: str, where: str = "") -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.where = where


def _first_error(e: CompileError) -> Tuple[str, str]:
    d = next((d for d in e.diagnostics if d.severity == "error"), e.diagnostics[0] if e.diagnostics else None)
    if d is None:
        return "E????", str(e)
    loc = f" ({d.span.line}:{d.span.col})" if d.span is not None else ""
    return d.code, d.message + loc


def schema_sources(fixture: Dict[str, Any]) -> Dict[str, str]:
    """The fixture's schema as Gel's harness writes it: ``module <m> { <file> }`` per file."""
    src: Dict[str, str] = {}
    for i, s in enumerate(fixture["schema"]):
        with open(os.path.join(FIXTURES_DIR, s["file"])) as f:
            src[f"lib/{i:02d}_{s['module'].replace('::', '_')}.esdl"] = f"module {s['module']} {{\n{f.read()}\n}}\n"
    for i, text in enumerate(fixture["sdl"]):
        src[f"lib/{len(src):02d}_inline.esdl"] = text
    return src


def setup_statements(fixture: Dict[str, Any]) -> List[str]:
    out: List[str] = []
    for s in fixture["setup"]:
        if "file" in s:
            with open(os.path.join(FIXTURES_DIR, s["file"])) as f:
                out.extend(split_statements(f.read()))
        else:
            out.extend(split_statements(s["text"]))
    return [s for s in out if not any(p.match(s) for p in NO_OPS)]


MAX_REDUCTIONS = 40


def _brackets(text: str) -> List[Tuple[int, str]]:
    """The brackets and ``;`` of ``text`` outside strings and comments, with their positions."""
    out: List[Tuple[int, str]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in "'\"`":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in "({[]});":
            out.append((i, c))
        i += 1
    return out


def remove_declaration(text: str, line: int, col: int) -> Optional[Tuple[str, str]]:
    """``text`` with the declaration holding ``line:col`` blanked out (spaces, newlines kept):
    the statement (up to its ``;`` or closing ``}``) of the innermost ``{ ... }`` block around
    the position. ``None`` when there is none (the position is at the top level)."""
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return None
    pos = sum(len(x) + 1 for x in lines[:line - 1]) + max(col - 1, 0)
    toks = _brackets(text)
    stack: List[int] = []  # indexes in toks of open brackets
    match: Dict[int, int] = {}
    snapshot: Optional[List[int]] = None
    for k, (p, c) in enumerate(toks):
        if snapshot is None and p >= pos:
            snapshot = list(stack)
        if c in "({[":
            stack.append(k)
        elif c in ")}]" and stack:
            match[stack.pop()] = k
    if snapshot is None:
        snapshot = list(stack)
    curly = [k for k in snapshot if toks[k][1] == "{"]
    if not curly or curly[-1] not in match:
        return None
    o, cl = curly[-1], match[curly[-1]]
    start, end, depth = toks[o][0] + 1, None, 0
    for k in range(o + 1, cl):
        p, c = toks[k]
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
            if depth == 0 and c == "}":
                if p >= pos:
                    end = p + 1
                    nxt = toks[k + 1] if k + 1 < len(toks) else None
                    if nxt is not None and nxt[1] == ";" and not text[end:nxt[0]].strip():
                        end = nxt[0] + 1
                    break
                start = p + 1
        elif c == ";" and depth == 0:
            if p >= pos:
                end = p + 1
                break
            start = p + 1
    if end is None:
        end = toks[cl][0]
    removed = text[start:end]
    if not removed.strip():
        return None
    blank = "".join(ch if ch == "\n" else " " for ch in removed)
    return text[:start] + blank + text[end:], removed


@dataclass
class Compiled:
    sql: str
    params: tuple
    scalar: bool
    result: tuple
    kind: str = ""
    cardinality: str = ""


class Fixture:
    """One test class's database: its schema compiled and migrated, its setup loaded."""

    def __init__(self, area: str, name: str, spec: Dict[str, Any], reduce: bool = False) -> None:
        self.area = area
        self.name = name
        self.spec = spec
        self.schema = None
        self.refused: Optional[Refused] = None
        #: The migration or a compiled setup statement failed on PostgreSQL: the fixture's own
        #: test fails with this, its cases are REFUSED (MIGRATE / SETUP).
        self.failure: Optional[str] = None
        self.cache: Dict[str, Any] = {}
        #: Reduced mode: the schema declarations schemac refuses are removed (one by one, each
        #: the innermost declaration holding the error) and the cases run on what is left.
        self.reduce = reduce
        self.schema_refused: Optional[Refused] = None
        self.removed: List[str] = []
        self.conn = None
        self.dbname = ""
        self.url = ""
        #: The schema sources compiled (after any reduction).
        self.sources: Dict[str, str] = {}

    def compile(self, text: str) -> Compiled:
        """``text`` (one statement) compiled as a query; raises :class:`Refused`."""
        hit = self.cache.get(text)
        if hit is None:
            try:
                qf = parse_query("q.edgeql", text, "q")
                reporter = Reporter()
                plan = plan_query(self.schema, qf, reporter)
                if plan is None or any(d.severity == "error" for d in reporter.diagnostics):
                    raise CompileError(reporter.diagnostics)
                hit = Compiled(plan.sql, plan.params, plan.scalar, plan.result, plan.kind,
                                plan.cardinality)
            except CompileError as e:
                hit = Refused(*_first_error(e))
            except RecursionError:
                hit = Refused("E0103", "nested too deeply")
            self.cache[text] = hit
        if isinstance(hit, Refused):
            raise hit
        return hit

    def open(self, admin_url: str, make_url) -> None:
        import psycopg

        src = schema_sources(self.spec)
        if not src:
            # no SCHEMA: Gel's empty default module (a SETUP written as DDL is refused below)
            src = {"lib/00_default.esdl": "module default {}\n"}
        for _ in range(MAX_REDUCTIONS + 1):
            try:
                lib = check_library(src, Options(library="lib"))
                ddl = render_library(lib, src)["sql/schema.sql"]
                break
            except CompileError as e:
                code, msg = _first_error(e)
                if self.schema_refused is None:
                    self.schema_refused = Refused(code, msg, where="schema")
                if not self.reduce:
                    self.refused = self.schema_refused
                    return
                d = next(d for d in e.diagnostics if d.severity == "error")
                cut = None if d.span is None or d.span.file not in src else \
                    remove_declaration(src[d.span.file], d.span.line, d.span.col)
                if cut is None:
                    self.refused = Refused(code, msg, where="schema")
                    return
                src[d.span.file], removed = cut
                self.removed.append(f"{code} {msg}: {' '.join(removed.split())[:100]}")
        else:
            self.refused = Refused(*self.schema_refused.args[0].split(": ", 1), where="schema")  # type: ignore
            return
        self.schema = lib.schema
        self.sources = src
        self.dbname = f"conf_{self.area}_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{self.dbname}"')
        self.url = make_url(self.dbname)
        self.conn = psycopg.connect(self.url, autocommit=True)
        # Gel's JSON spells datetimes at UTC and durations in ISO 8601 (PostgreSQL's iso_8601
        # interval style is Gel's form: PT24H, P1YT2S, PT-5H-8M-45.954146S); intervals are read
        # as that text (psycopg's timedelta has no months)
        self.conn.execute("SET TimeZone = 'UTC'")
        self.conn.execute("SET IntervalStyle = 'iso_8601'")
        from psycopg.types.string import TextLoader

        self.conn.adapters.register_loader("interval", TextLoader)
        # json as its text, so that a JSON null (a value in Gel) is told from SQL NULL (empty)
        self.conn.adapters.register_loader("json", TextLoader)
        self.conn.adapters.register_loader("jsonb", TextLoader)
        try:
            self.conn.execute(ddl)
        except psycopg.Error as e:
            self.failure = f"PostgreSQL rejects the migration schemac generated: {str(e).strip()}"
            self.refused = Refused("MIGRATE", "PostgreSQL rejects the migration (see the fixture's test)",
                                   where="schema")
            return
        for st in setup_statements(self.spec):
            try:
                c = self.compile(st)
            except Refused as r:
                self.refused = Refused(r.code, r.message, where=f"setup: {st[:80]}")
                return
            try:
                err = run_statement(self.conn, c, None)
            except PrepareRejected as e:
                err = str(e)
            except Refused as r:
                self.refused = Refused(r.code, r.message, where=f"setup: {st[:80]}")
                return
            if err is not None:
                self.failure = f"setup statement failed: {err}\n{st}"
                self.refused = Refused("SETUP", "a setup statement fails (see the fixture's test)",
                                       where="setup")
                return

    def close(self, admin_url: str) -> None:
        import psycopg

        if self.conn is not None:
            self.conn.close()
            self.conn = None
        if self.dbname:
            with psycopg.connect(admin_url, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{self.dbname}" WITH (FORCE)')
            self.dbname = ""


class PrepareRejected(Exception):
    pass


class RunError(Exception):
    pass


def _bind(c: Compiled, variables: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    args: Dict[str, Any] = {}
    pos = (variables or {}).get("positional") or []
    named = (variables or {}).get("named") or {}
    for p in c.params:
        if p.global_ is not None:
            raise Refused("GLOBAL", f"the statement reads {p.name}: globals are not set by this runner")
        if p.position is not None:
            if p.position >= len(pos):
                raise Refused("PARAM", f"no value for ${p.position}")
            args[f"p{p.index}"] = pos[p.position]
        elif p.name in named:
            args[f"p{p.index}"] = named[p.name]
        elif p.optional:
            args[f"p{p.index}"] = None
        else:
            raise Refused("PARAM", f"no value for ${p.name}")
    return args


def run_statement(conn, c: Compiled, variables: Optional[Dict[str, Any]]):
    """Prepare then run ``c``; returns the error text of a runtime error (``None`` when it ran)
    and raises :class:`PrepareRejected` when PostgreSQL rejects the statement."""
    import psycopg

    rows, err = execute(conn, c, variables)
    return err


def execute(conn, c: Compiled, variables: Optional[Dict[str, Any]]):
    import psycopg
    from psycopg import pq

    args = _bind(c, variables)
    # PREPARE, as the runners do: unnamed, the parameter types left to the server
    res = conn.pgconn.prepare(b"", c.sql.encode("utf-8"))
    if res.status != pq.ExecStatus.COMMAND_OK:
        msg = (res.error_message or b"").decode("utf-8", "replace").strip()
        raise PrepareRejected(f"PostgreSQL rejects the compiled statement: {msg}\n{c.sql}")
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", c.sql.replace("%", "%%"))
    try:
        with conn.transaction():
            cur = conn.execute(sql, args)
            rows = cur.fetchall() if cur.description is not None else []
    except psycopg.Error as e:
        return None, f"{type(e).__name__}: {str(e).strip()}"
    return rows, None


# ---------------------------------------------------------------------------------------------
# Gel's JSON form of the rows


def _scalar_name(vt) -> str:
    s = getattr(vt, "scalar", None)
    return getattr(s, "name", "") if s is not None else ""


def value_to_gel(value: Any, vt: Any, in_json: bool) -> Any:
    """A value of type ``vt`` (schemac's ValueType, or ``None`` when unknown) read from
    PostgreSQL (``in_json``: from inside a JSON document, spelled as
    ``schemac.semantics.lowering.JSON_SPELLING`` says) as Gel's JSON output spells it
    (https://docs.geldata.com/reference/stdlib/json): numbers, ISO 8601 strings for dates and
    durations, arrays for arrays and unnamed tuples, objects for named tuples and ranges."""
    if value is None:
        return None
    fields = getattr(vt, "fields", None)
    elem = getattr(vt, "element", None)
    name = _scalar_name(vt)
    if isinstance(value, str) and not in_json and (fields is not None or name == "json"):
        value = json.loads(value)  # (json columns are read as text, see Fixture.open)
        if name == "json":
            return value
        in_json = True
    if fields is not None and isinstance(value, (list, tuple)):
        if all(n is not None for n, _ in fields) and not isinstance(value, dict):
            return {n: value_to_gel(v, t, True) for (n, t), v in zip(fields, value)}
        return [value_to_gel(v, t, True) for (_, t), v in zip(fields, value)]
    if fields is not None and isinstance(value, dict):
        return {n: value_to_gel(value.get(n), t, True) for n, t in fields}
    if isinstance(value, list):
        return [value_to_gel(v, elem, in_json) for v in value]
    if isinstance(value, str):
        if in_json and name in ("int64", "bigint", "int32", "int16"):
            try:
                return int(value)
            except ValueError:
                return value
        if in_json and name == "decimal":
            return decimal.Decimal(value)
        if in_json and name == "cal::local_date" and value.endswith("T00:00:00Z"):
            return value[:-len("T00:00:00Z")]
        if in_json and name == "cal::local_datetime" and value.endswith("Z"):
            return value[:-1]
        return value
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if type(value).__name__ == "Range":
        if value.isempty:
            return {"empty": True}
        return {"lower": value_to_gel(value.lower, None, in_json), "upper": value_to_gel(value.upper, None, in_json),
                "inc_lower": value.lower_inc, "inc_upper": value.upper_inc}
    if isinstance(value, dict) and name != "json":
        return {k: value_to_gel(v, None, True) for k, v in value.items()}
    return value


def field_to_gel(value: Any, rf) -> Any:
    """A result field's value (a column, or a key of a nested shape's JSON object)."""
    if rf.shape is not None:
        if value is None:
            return [] if rf.multi else None
        if isinstance(value, str):
            value = json.loads(value)
        if isinstance(value, list):
            return [_obj(v, rf.shape) for v in value]
        return _obj(value, rf.shape)
    if value is None:
        return [] if rf.multi else None
    if rf.multi and isinstance(value, list):
        return [value_to_gel(v, rf.type, rf.in_json) for v in value]
    return value_to_gel(value, rf.type, rf.in_json)


def _obj(value: Any, shape) -> Any:
    if not isinstance(value, dict):
        return value
    out = dict(value)
    for f in shape:
        if f.name in value:
            out[f.name] = field_to_gel(value[f.name], f)
    return out


def result_to_gel(c: Compiled, rows: List[tuple]) -> List[Any]:
    """The rows as Gel's result set. A scalar query's NULL is the empty set (the runners'
    reading of an optional result; a Gel set never holds a NULL)."""
    if c.scalar:
        f = c.result[0]
        return [field_to_gel(r[0], f) for r in rows if r[0] is not None]
    return [{f.name: field_to_gel(v, f) for f, v in zip(c.result, r)} for r in rows]


# ---------------------------------------------------------------------------------------------
# Comparison (Gel's assert_data_shape, JSON mode)


class Bag(list):
    pass


class SetShape(list):
    pass


@dataclass
class TypeShape:
    name: str


def decode(x: Any) -> Any:
    if isinstance(x, list):
        return [decode(e) for e in x]
    if isinstance(x, dict):
        if "$set" in x:
            return SetShape(decode(e) for e in x["$set"])
        if "$bag" in x:
            return Bag(decode(e) for e in x["$bag"])
        if "$type" in x:
            return TypeShape(x["$type"])
        if "$ellipsis" in x:
            return Ellipsis
        if "$decimal" in x:
            return decimal.Decimal(x["$decimal"])
        if "$float" in x:
            return float(x["$float"])
        return {k: decode(v) for k, v in x.items()}
    return x


class Mismatch(Exception):
    pass


def sort_results(results: Any, sort: Any) -> None:
    if not results:
        return
    if isinstance(sort, dict) and "fields" in sort:
        for key, val in sort["fields"].items():
            if key == ".":
                sort_results(results, val)
            elif isinstance(results, list):
                for r in results:
                    sort_results(r[key], val)
            else:
                sort_results(results[key], val)
        return
    if sort is True:
        results.sort()
        return

    def get(x, path):
        for p in path:
            x = x[p]
        return x

    paths = sort["key"]
    if sort.get("tuple"):
        results.sort(key=lambda x: tuple(get(x, p) for p in paths))
    else:
        results.sort(key=lambda x: get(x, paths[0]))


def assert_shape(data: Any, shape: Any, rel_tol: float = 1e-4, abs_tol: float = 1e-15) -> None:
    def fail(msg, path):
        raise Mismatch(f"{msg} at {''.join(path) or '<top-level>'}")

    def generic(path, data, shape):
        if isinstance(shape, Bag):
            return bag(path, data, shape)
        if isinstance(shape, SetShape):
            return set_(path, data, shape)
        if isinstance(shape, list):
            return list_(path, data, shape)
        if isinstance(shape, dict):
            if not isinstance(data, dict):
                fail(f"expected an object, got {data!r}", path)
            for k, v in shape.items():
                if k not in data:
                    fail(f"key {k!r} is missing", path)
                generic(path + (f'["{k}"]',), data[k], v)
            return
        if isinstance(shape, TypeShape):
            if shape.name == "uuid":
                try:
                    uuid.UUID(data)
                except (ValueError, TypeError, AttributeError):
                    fail(f"expected a uuid, got {data!r}", path)
            elif shape.name in ("int", "float"):
                if not isinstance(data, int if shape.name == "int" else float) or isinstance(data, bool):
                    fail(f"expected {shape.name}, got {data!r}", path)
            elif shape.name == "str":
                if not isinstance(data, str):
                    fail(f"expected str, got {data!r}", path)
            return
        if isinstance(shape, float):
            if math.isnan(shape):
                return  # (Gel's harness checks nothing here)
            try:
                ok = math.isclose(data, shape, rel_tol=rel_tol, abs_tol=abs_tol)
            except TypeError:
                ok = False
            if not ok:
                fail(f"not isclose({data!r}, {shape!r})", path)
            return
        if shape is None:
            if data is not None:
                fail(f"{data!r} is expected to be None", path)
            return
        if isinstance(shape, bool) or isinstance(data, bool):
            if type(data) is not type(shape) or data != shape:
                fail(f"{data!r} != {shape!r}", path)
            return
        if data != shape:
            fail(f"{data!r} != {shape!r}", path)

    def iter_shape(shape):
        last = None
        for item in shape:
            if item is Ellipsis:
                while True:
                    yield last
            last = item
            yield item

    def list_(path, data, shape):
        if not isinstance(data, (list, tuple)):
            fail(f"expected a list, got {data!r}", path)
        if not data and shape:
            fail("expected a non-empty list", path)
        it = iter_shape(shape)
        count = 0
        for count, el in enumerate(data):
            try:
                s = next(it)
            except StopIteration:
                fail("unexpected trailing elements in list", path)
            generic(path + (f"[{count}]",), el, s)
        if len(shape) > count + 1 and shape[count + 1] is not Ellipsis:
            fail("expecting more elements in list", path)

    def set_(path, data, shape):
        if not isinstance(data, list):
            fail(f"expected a set, got {data!r}", path)
        if not data and shape:
            fail("expected a non-empty set", path)
        try:
            sshape = sorted(shape, key=_order_key)
            sdata = sorted(data, key=_order_key)
        except TypeError as e:
            fail(f"cannot sort the set ({e})", path)
        it = iter_shape(sshape)
        count = 0
        for count, el in enumerate(sdata):
            try:
                s = next(it)
            except StopIteration:
                fail("unexpected trailing elements in set", path)
            generic(path + (f"{{{count}}}",), el, s)
        if len(shape) > count + 1 and Ellipsis not in shape:
            fail("expecting more elements in set", path)

    def bag(path, data, shape):
        if not isinstance(data, list):
            fail(f"expected a list, got {data!r}", path)
        data = list(data)
        if len(data) > len(shape):
            fail("too many elements in list", path)
        for s in shape:
            for i, el in enumerate(data):
                try:
                    generic(path + (f"[{i}]",), el, s)
                except Mismatch:
                    continue
                data.pop(i)
                break
            else:
                fail(f"missing elements in list: {s!r}", path)

    generic((), data, shape)


def _order_key(x):
    # Python's own order, as sorted() in Gel's harness; Decimal sorts with numbers
    return x


# ---------------------------------------------------------------------------------------------
# Running a case


@dataclass
class Outcome:
    status: str  # MATCH | MISMATCH | REFUSED | PREPARE
    code: str = ""
    message: str = ""
    got: Any = None
    #: On a fixture whose schema schemac refuses (``status`` REFUSED with the schema's code):
    #: the outcome on the schema left after removing the refused declarations.
    reduced: Optional["Outcome"] = None
    #: REFUSED for its fixture's setup: whether the query itself compiles (``compiles``) or the
    #: code schemac refuses it with.
    query_code: str = ""


def run_case(fx: Fixture, case: Dict[str, Any]) -> Outcome:
    out = _run_case(fx, case)
    if fx.removed:
        r = fx.schema_refused
        return Outcome("REFUSED", r.code, f"schema: {r.message}", reduced=out)
    return out


def prepare_only(fx: Fixture, case: Dict[str, Any], out: Outcome) -> Outcome:
    """``out`` (the fixture's setup refusal) with what the query itself gives: its own refusal
    (``query_code``), or a compiled statement PostgreSQL rejects (PREPARE)."""
    query = split_statements(case["query"])
    if len(query) != 1:
        return out
    try:
        compiled = fx.compile(query[0])
    except Refused as r:
        out.query_code = r.code
        return out
    out.query_code = "compiles"
    fx.conn.execute("BEGIN")
    try:
        res = fx.conn.pgconn.prepare(b"", compiled.sql.encode("utf-8"))
        from psycopg import pq

        if res.status != pq.ExecStatus.COMMAND_OK:
            msg = (res.error_message or b"").decode("utf-8", "replace").strip()
            return Outcome("PREPARE", message=f"PostgreSQL rejects the compiled statement: {msg}\n{compiled.sql}")
    finally:
        fx.conn.execute("ROLLBACK")
    return out


def _run_case(fx: Fixture, case: Dict[str, Any]) -> Outcome:
    if fx.refused is not None:
        r = fx.refused
        out = Outcome("REFUSED", r.code, f"{r.where}: {r.message}" if r.where else r.message)
        if r.code != "SETUP" and r.where.startswith("setup") and fx.conn is not None:
            # no data, but the schema is migrated: the query still compiles or is refused on its
            # own, and a compiled query must PREPARE
            return prepare_only(fx, case, out)
        return out
    statements: List[Tuple[str, bool]] = []
    for p in prelude(fx.area, case):
        statements.extend((s, False) for s in split_statements(p) if not any(n.match(s) for n in NO_OPS))
    query = split_statements(case["query"])
    if len(query) != 1:
        return Outcome("REFUSED", "SCRIPT", f"the query is a script of {len(query)} statements")
    try:
        compiled_prelude = [(fx.compile(s), s) for s, _ in statements]
        compiled = fx.compile(query[0])
    except Refused as r:
        return Outcome("REFUSED", r.code, r.message)
    conn = fx.conn
    conn.execute("BEGIN")
    try:
        for c, text in compiled_prelude:
            try:
                rows, err = execute(conn, c, None)
            except Refused as r:
                return Outcome("REFUSED", r.code, f"prelude: {r.message}")
            except PrepareRejected as e:
                return Outcome("PREPARE", message=str(e))
            if err is not None:
                return Outcome("MISMATCH", message=f"prelude statement failed: {err}\n{text}")
        try:
            rows, err = execute(conn, compiled, case.get("variables"))
        except Refused as r:
            return Outcome("REFUSED", r.code, r.message)
        except PrepareRejected as e:
            return Outcome("PREPARE", message=str(e))
        if err is not None:
            return Outcome("MISMATCH", message=f"error where Gel returns a result: {err}")
        got = result_to_gel(compiled, rows)
        if case.get("repl") and compiled.scalar and _scalar_name(compiled.result[0].type) == "json":
            # Gel's REPL (the docs' examples) prints a json value as its JSON text
            got = [json.dumps(v, ensure_ascii=False) for v in got]
    finally:
        conn.execute("ROLLBACK")
    try:
        if case.get("sort") is not None:
            sort_results(got, case["sort"])
        assert_shape(got, decode(case["expected"]), case.get("rel_tol") or 1e-4, case.get("abs_tol") or 1e-15)
    except Mismatch as e:
        return Outcome("MISMATCH", message=str(e), got=got)
    except (TypeError, KeyError, IndexError) as e:
        return Outcome("MISMATCH", message=f"result cannot be compared: {type(e).__name__}: {e}", got=got)
    return Outcome("MATCH", got=got)
