#!/usr/bin/env python3
"""Transcribe Gel's own query tests into data files for schemac's conformance suite.

Reads a local git snapshot of Gel's sources (``--repo``, a git directory read with
``git show``; default ``/work/.mirror/geldata+gel/repo``) and writes, for each
``tests/test_edgeql_<area>.py`` given, ``cases/<area>.json``: every
``self.assert_query_result(query, expected, ...)`` call that can be read as data, with

* its test class's fixture: the schema files named by ``SCHEMA`` / ``SCHEMA_<MODULE>``
  (``tests/schemas/*.esdl``, wrapped in ``module <name> { ... }`` as Gel's test harness does,
  edb/testbase/server.py ``get_setup_script``) and the ``SETUP`` scripts (files or inline text);
  an inline ``START MIGRATION TO { <sdl> }; POPULATE MIGRATION; COMMIT MIGRATION;`` is read as
  the fixture's schema;
* the statements the test method ran before it (``prelude``: indexes into the file's
  ``statements``) (``self.con.execute/query*`` and earlier
  asserted queries, which Gel's harness runs twice, the second time without rolling back,
  unless ``json_only``): the case replays them first;
* Gel's expected JSON result, encoded as JSON with tags for what JSON cannot say:
  ``{"$set": [...]}`` (compared sorted), ``{"$bag": [...]}`` (any order),
  ``{"$type": "uuid"|"int"|"float"|"str"|...}`` (a value of that type), ``{"$ellipsis": 1}``
  (the last element repeated), ``{"$decimal": "1.5"}``, ``{"$float": "nan"}``;
* ``sort`` (``true`` or key paths: ``{"key": [["name"], [0]]}``, or per field
  ``{"fields": {".": ..., "name": ...}}``), ``variables``, ``rel_tol``/``abs_tol``;
* ``source``: ``tests/test_edgeql_<area>.py:<line>`` in the snapshot, and the snapshot commit.

``docs`` (the area) is the REPL examples of Gel's reference docs (``docs/reference/stdlib``,
``.../edgeql``) that print a result and read no schema: ``db> <query>`` and the printed set,
parsed into the same JSON form (a result of several elements is compared in any order unless
the query has ``order by``; ``"repl": true`` marks them: the REPL prints a json value as its
JSON text). Fixture texts are written once each under ``fixtures/``. Cases that cannot be read as data
(a query built at run time, an expected value computed by code, a call inside a loop, a test
Gel itself marks xfail/skip, ``implicit_limit``, SQL-language or binary-only checks) are left
out and counted, by reason, in the file's ``"skipped"``.

    python3 tests/conformance/transcribe.py [--repo DIR] [--out DIR] [AREA ...]
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import os
import re
import subprocess
import sys
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

DEFAULT_REPO = "/work/.mirror/geldata+gel/repo"
DEFAULT_AREAS = ["select", "scope", "linkprops", "for", "group", "coalesce", "insert", "update",
                 "delete", "policies", "triggers", "rewrites", "filter", "advtypes", "calls", "casts",
                 "datatypes", "enums", "expr_aliases", "expressions", "functions", "functions_inline",
                 "globals", "json", "linkatoms", "tree", "volatility", "internal_group", "fts", "docs"]
HERE = os.path.dirname(os.path.abspath(__file__))


class Unsupported(Exception):
    """A case that cannot be read as data; the message is the reason counted."""


def git_show(repo: str, rev: str, path: str) -> str:
    return subprocess.run(["git", "-C", repo, "show", f"{rev}:{path}"], check=True,
                          stdout=subprocess.PIPE).stdout.decode("utf-8")


# ---------------------------------------------------------------------------------------------
# Expected values


_TYPES = {"int": "int", "float": "float", "str": "str", "bool": "bool", "UUID": "uuid", "uuid": "uuid"}


def encode(node: ast.AST, names: Dict[str, ast.AST]) -> Any:
    """The JSON encoding of an expected-result expression (see the module docstring)."""
    if isinstance(node, ast.Constant):
        v = node.value
        if v is Ellipsis:
            return {"$ellipsis": 1}
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            return {"$float": repr(v)}
        if isinstance(v, (str, int, float, bool)) or v is None:
            return v
        raise Unsupported(f"expected value of type {type(v).__name__}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) \
            and isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, (int, float)) \
            and not isinstance(node.operand.value, bool):
        v = node.operand.value
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, (ast.List, ast.Tuple)):
        return [encode(e, names) for e in node.elts]
    if isinstance(node, ast.Set):
        return {"$set": [encode(e, names) for e in node.elts]}
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                raise Unsupported("expected dict with a computed key")
            out[k.value] = encode(v, names)
        return out
    if isinstance(node, ast.Name):
        if node.id in _TYPES:
            return {"$type": _TYPES[node.id]}
        if node.id in names:
            return encode(names[node.id], names)
        raise Unsupported("expected value names a variable")
    if isinstance(node, ast.Attribute):
        if node.attr in _TYPES and isinstance(node.value, ast.Name) and node.value.id in ("uuid", "builtins"):
            return {"$type": _TYPES[node.attr]}
        raise Unsupported("expected value reads an attribute")
    if isinstance(node, ast.Call):
        fn = _dotted(node.func)
        if fn in ("bag", "tb.bag", "assert_data_shape.bag") and len(node.args) == 1 and not node.keywords:
            inner = encode(node.args[0], names)
            if not isinstance(inner, list):
                raise Unsupported("bag of a non-list")
            return {"$bag": inner}
        if fn in ("uuid.UUID",) and len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
            return str(node.args[0].value)
        if fn in ("decimal.Decimal", "Decimal") and len(node.args) == 1 and isinstance(node.args[0], ast.Constant):
            return {"$decimal": str(node.args[0].value)}
        if fn == "set" and not node.args:
            return {"$set": []}
        if fn == "set" and len(node.args) == 1 and not node.keywords:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                return {"$set": sorted(set(arg.value))}
            inner = encode(arg, names)
            if isinstance(inner, list):
                return {"$set": inner}
        raise Unsupported(f"expected value calls {fn or 'a function'}")
    raise Unsupported(f"expected value is a {type(node).__name__}")


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def literal(node: ast.AST, names: Dict[str, ast.AST]) -> Any:
    """A plain JSON literal (variables)."""
    if isinstance(node, ast.Name) and node.id in names:
        return literal(names[node.id], names)
    try:
        v = ast.literal_eval(node)
    except ValueError:
        raise Unsupported("variables are not literals")

    def check(x):
        if isinstance(x, (list, tuple)):
            return [check(e) for e in x]
        if isinstance(x, dict):
            return {str(k): check(e) for k, e in x.items()}
        if isinstance(x, (str, int, float, bool)) or x is None:
            return x
        raise Unsupported(f"variable of type {type(x).__name__}")

    if isinstance(v, tuple):
        return {"positional": check(v)}
    if isinstance(v, dict):
        return {"named": check(v)}
    raise Unsupported("variables are neither a tuple nor a dict")


def sort_key(node: ast.AST) -> Any:
    """``sort=``: ``true``, ``{"key": paths}`` for ``lambda x: x['a']`` / ``(x['a'], x[0])``, or
    ``{"fields": {field: sort}}`` for a dict (``'.'`` being the result itself)."""
    if isinstance(node, ast.Constant) and node.value is True:
        return True
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                raise Unsupported("sort dict with a computed key")
            out[k.value] = sort_key(v)
        return {"fields": out}
    if isinstance(node, ast.Lambda) and len(node.args.args) == 1 and not node.args.defaults:
        arg = node.args.args[0].arg
        body = node.body
        parts = body.elts if isinstance(body, ast.Tuple) else [body]
        paths = [_key_path(p, arg) for p in parts]
        return {"key": paths, "tuple": isinstance(body, ast.Tuple)}
    raise Unsupported("sort is not a key path")


def _key_path(node: ast.AST, arg: str) -> List[Any]:
    path: List[Any] = []
    while isinstance(node, ast.Subscript):
        sl = node.slice
        if isinstance(sl, ast.Index):  # Python 3.8
            sl = sl.value  # type: ignore[attr-defined]
        if not (isinstance(sl, ast.Constant) and isinstance(sl.value, (str, int))):
            raise Unsupported("sort key with a computed subscript")
        path.insert(0, sl.value)
        node = node.value
    if not (isinstance(node, ast.Name) and node.id == arg):
        raise Unsupported("sort key is not a path of its argument")
    return path


# ---------------------------------------------------------------------------------------------
# Test classes


def _str_value(node: ast.AST, names: Dict[str, ast.AST]) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return _str_value(names[node.id], names)
    if isinstance(node, ast.JoinedStr):
        raise Unsupported("query is an f-string")
    raise Unsupported("query is not a string literal")


def _schema_file(node: ast.AST) -> Optional[str]:
    """``os.path.join(os.path.dirname(__file__), 'schemas', 'x.esdl')`` -> ``tests/schemas/x.esdl``."""
    if isinstance(node, ast.Call) and _dotted(node.func) == "os.path.join":
        parts = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if parts and len(parts) == len(node.args) - 1:
            return "tests/" + "/".join(parts)
    return None


_MIGRATION = re.compile(r"^\s*start\s+migration\s+to\s*\{(.*)\}\s*;\s*populate\s+migration\s*;\s*"
                        r"commit\s+migration\s*;?\s*$", re.S | re.I)


class Fixture:
    """A test class's schema and setup."""

    def __init__(self) -> None:
        self.schema: List[Tuple[str, str]] = []  # (module, fixture file name) or ("", inline sdl)
        self.inline_sdl: List[str] = []
        self.setup: List[Dict[str, str]] = []  # {"file": name} | {"text": edgeql}

    def as_json(self) -> Dict[str, Any]:
        return {"schema": [{"module": m, "file": f} for m, f in self.schema],
                "sdl": self.inline_sdl, "setup": self.setup}


def class_attrs(cls: ast.ClassDef, classes: Dict[str, ast.ClassDef]) -> Dict[str, ast.AST]:
    attrs: Dict[str, ast.AST] = {}
    for base in cls.bases:
        name = _dotted(base)
        if name in classes:
            attrs.update(class_attrs(classes[name], classes))
    for st in cls.body:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name):
            attrs[st.targets[0].id] = st.value
    return attrs


def class_fixture(attrs: Dict[str, ast.AST], repo: str, rev: str, files: Dict[str, str]) -> Fixture:
    fx = Fixture()

    def add_file(path: str) -> str:
        name = os.path.basename(path)
        if name not in files:
            files[name] = git_show(repo, rev, path)
        return name

    default = "default"
    dm = attrs.get("DEFAULT_MODULE")
    if isinstance(dm, ast.Constant) and isinstance(dm.value, str):
        default = dm.value
    for key in sorted(attrs):
        m = re.match(r"^SCHEMA(?:_(\w+))?$", key)
        if not m or (isinstance(attrs[key], ast.Constant) and attrs[key].value is None):
            continue
        path = _schema_file(attrs[key])
        if path is None:
            raise Unsupported(f"{key} is not a schema file path")
        module = (m.group(1) or default).lower().replace("_", "::")
        fx.schema.append((module, add_file(path)))
    if "FULL_SCHEMA" in attrs:
        raise Unsupported("FULL_SCHEMA")
    if attrs.get("EXTENSIONS") is not None and not (isinstance(attrs["EXTENSIONS"], ast.List)
                                                  and not attrs["EXTENSIONS"].elts):
        raise Unsupported("EXTENSIONS")
    setup = attrs.get("SETUP")
    items = setup.elts if isinstance(setup, (ast.List, ast.Tuple)) else ([] if setup is None else [setup])
    for it in items:
        path = _schema_file(it)
        if path is not None:
            fx.setup.append({"file": add_file(path)})
        elif isinstance(it, ast.Constant) and isinstance(it.value, str):
            mig = _MIGRATION.match(it.value)
            if mig:
                fx.inline_sdl.append(mig.group(1))
            else:
                fx.setup.append({"text": it.value})
        else:
            raise Unsupported("SETUP item is neither a file nor a string")
    return fx


# ---------------------------------------------------------------------------------------------
# Test methods


_CON_CALLS = {"execute", "query", "query_single", "query_json", "query_single_json",
              "query_required_single", "_fetchall", "_fetchall_json"}
_GEL_SKIPS = {"xfail", "skip", "not_implemented", "xerror"}


def _self_call(node: ast.AST) -> Optional[ast.Call]:
    """``await self.x(...)`` / ``await self.con.x(...)`` -> the call."""
    if isinstance(node, ast.Await) and isinstance(node.value, ast.Call):
        return node.value
    return None


def _touches_db(node: ast.AST) -> bool:
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and _dotted(n.func).startswith("self.") and \
                not _dotted(n.func).startswith("self.assert"):
            return True
        if isinstance(n, ast.Call) and _dotted(n.func) == "self.assert_query_result":
            return True
    return False


class MethodWalker:
    def __init__(self, method: ast.AST, skipped: Counter,
                 helpers: Optional[Dict[str, ast.AST]] = None) -> None:
        self.method = method
        self.helpers = helpers or {}
        self.depth = 0
        self.cases: List[Dict[str, Any]] = []
        self.skipped = skipped
        self.names: Dict[str, ast.AST] = {}
        self.tainted: Optional[str] = None
        self.index = 0

    def skip(self, reason: str, n: int = 1) -> None:
        if n:
            self.skipped[reason] += n
        self.index += n

    def walk(self, body: List[ast.stmt], prelude: List[str]) -> None:
        for st in body:
            self.statement(st, prelude)

    def statement(self, st: ast.stmt, prelude: List[str]) -> None:
        if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                and not _touches_db(st.value):
            self.names[st.targets[0].id] = st.value
            return
        call = _self_call(st.value) if isinstance(st, (ast.Expr, ast.Assign)) else None
        if call is not None:
            fn = _dotted(call.func)
            if fn == "self.assert_query_result":
                self.case(call, prelude)
                return
            helper = self.helpers.get(fn[len("self."):]) if fn.startswith("self.") else None
            if helper is not None and self.depth < 5 and not call.keywords \
                    and len(call.args) == len(helper.args.args) - 1:  # type: ignore[attr-defined]
                # a helper method of the class (do_basic_work(), assert_notes(data)): its body,
                # its parameters bound to the arguments
                saved = dict(self.names)
                for param, arg in zip(helper.args.args[1:], call.args):  # type: ignore[attr-defined]
                    self.names[param.arg] = arg
                self.depth += 1
                self.walk(helper.body, prelude)  # type: ignore[attr-defined]
                self.depth -= 1
                self.names = saved
                return
            if fn.startswith("self.con.") and fn[len("self.con."):] in _CON_CALLS and call.args:
                if self.tainted is None:
                    try:
                        prelude.append(_str_value(call.args[0], self.names))
                        if len(call.args) > 1 or call.keywords:
                            raise Unsupported("statement with arguments")
                    except Unsupported as e:
                        self.tainted = f"after a statement that is not data ({e})"
                return
        if isinstance(st, ast.AsyncWith) and len(st.items) == 1:
            ctx = st.items[0].context_expr
            fn = _dotted(ctx.func) if isinstance(ctx, ast.Call) else ""
            if fn in ("self.assertRaisesRegexTx",):
                # an expected error in a rolled-back transaction: no state change
                self.skip("inside assertRaisesRegexTx", self._count(st))
                return
            if fn == "self._run_and_rollback":
                self.walk(st.body, list(prelude))
                return
        if isinstance(st, ast.With) and len(st.items) == 1:
            ctx = st.items[0].context_expr
            fn = _dotted(ctx.func) if isinstance(ctx, ast.Call) else ""
            if fn in ("self.assertRaisesRegex", "self.assertRaises"):
                self.skip("inside assertRaisesRegex", self._count(st))
                self.tainted = self.tainted or "after an expected error"
                return
        if _touches_db(st):
            n = self._count(st)
            if n:
                self.skip(f"inside {type(st).__name__.lower()}", n)
            self.tainted = self.tainted or f"after a {type(st).__name__.lower()} statement"

    @staticmethod
    def _count(st: ast.AST) -> int:
        return sum(1 for n in ast.walk(st) if isinstance(n, ast.Call)
                   and _dotted(n.func) == "self.assert_query_result")

    def case(self, call: ast.Call, prelude: List[str]) -> None:
        index = self.index
        self.index += 1
        try:
            if self.tainted:
                raise Unsupported(self.tainted)
            if len(call.args) < 2:
                raise Unsupported("no expected result")
            query = _str_value(call.args[0], self.names)
            case: Dict[str, Any] = {"index": index, "line": call.lineno, "query": query,
                                    "expected": encode(call.args[1], self.names)}
            kw = {k.arg: k.value for k in call.keywords}
            if "exp_result_json" in kw:
                case["expected"] = encode(kw.pop("exp_result_json"), self.names)
            for k, v in kw.items():
                if k in ("msg", "exp_result_binary", "always_typenames", "always_typeids"):
                    continue
                if k == "sort":
                    case["sort"] = sort_key(v)
                elif k == "variables":
                    case["variables"] = literal(v, self.names)
                elif k in ("rel_tol", "abs_tol"):
                    case[k] = ast.literal_eval(v)
                elif k == "json_only":
                    case["json_only"] = bool(ast.literal_eval(v))
                elif k == "implicit_limit":
                    if ast.literal_eval(v):
                        raise Unsupported("implicit_limit")
                elif k == "binary_only":
                    if ast.literal_eval(v):
                        raise Unsupported("binary_only")
                elif k == "language":
                    if ast.literal_eval(v) != "edgeql":
                        raise Unsupported("language='sql'")
                else:
                    raise Unsupported(f"keyword {k}")
            case["prelude"] = list(prelude)
        except Unsupported as e:
            self.skipped[str(e)] += 1
            # a query Gel ran (and kept) that we cannot transcribe: later cases lose their state
            if call.args and not self.tainted:
                try:
                    prelude.append(_str_value(call.args[0], self.names))
                except Unsupported:
                    self.tainted = "after a statement that is not data"
            return
        self.cases.append(case)
        if not case.get("json_only"):
            prelude.append(query)


def transcribe_area(repo: str, rev: str, area: str, files: Dict[str, str]) -> Dict[str, Any]:
    path = f"tests/test_edgeql_{area}.py"
    tree = ast.parse(git_show(repo, rev, path))
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    skipped: Counter = Counter()
    fixtures: Dict[str, Any] = {}
    cases: List[Dict[str, Any]] = []
    for cname, cls in classes.items():
        methods = [m for m in cls.body if isinstance(m, (ast.AsyncFunctionDef, ast.FunctionDef))
                   and m.name.startswith("test_")]
        if not methods:
            continue
        n_asserts = sum(MethodWalker._count(m) for m in methods)  # (not counting helpers')
        if not n_asserts:
            continue
        helpers = {}
        for c in [cls] + [classes[_dotted(b)] for b in cls.bases if _dotted(b) in classes]:
            for m in c.body:
                if isinstance(m, (ast.AsyncFunctionDef, ast.FunctionDef)) and not m.name.startswith("test_") \
                        and m.name not in helpers:
                    helpers[m.name] = m
        try:
            fx = class_fixture(class_attrs(cls, classes), repo, rev, files)
        except Unsupported as e:
            skipped[f"class fixture: {e}"] += n_asserts
            continue
        fixtures[cname] = fx.as_json()
        for m in methods:
            gel_skip = [d for d in m.decorator_list
                        if _dotted(d.func if isinstance(d, ast.Call) else d).split(".")[-1] in _GEL_SKIPS]
            if gel_skip:
                skipped["marked xfail/skip in Gel"] += MethodWalker._count(m)
                continue
            w = MethodWalker(m, skipped, helpers)
            w.walk(m.body, [])
            for c in w.cases:
                c["id"] = f"{area}:{cname}:{m.name}:{c.pop('index')}"
                c["class"] = cname
                c["source"] = f"{path}:{c.pop('line')}"
                cases.append(c)
    # the statements run before the cases, each written once (a case's prelude: their indexes)
    table: Dict[str, int] = {}
    for c in cases:
        c["prelude"] = [table.setdefault(t, len(table)) for t in c["prelude"]]
    return {"area": area, "source": path, "gel_commit": rev, "fixtures": fixtures, "cases": cases,
            "statements": list(table),
            "skipped": dict(sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0])))}


# ---------------------------------------------------------------------------------------------
# Docs: the REPL examples that print a result


DOCS_DIRS = ("docs/reference/stdlib/", "docs/reference/edgeql/", "docs/reference/reference/edgeql/")
#: An identifier that names a schema type (the docs' examples use the tutorial's schema and
#: data, which the docs do not give): such examples are left out.
_SCHEMA_NAME = re.compile(r"\b[A-Z][A-Za-z0-9_]*\b")
_STD_NAMES = {"Object", "BaseObject", "FreeObject", "I", "E"}


class ReplValue:
    """A parser of the REPL's printed results (``{1, 'a', [2.5n], (x := 1)}``) into the JSON
    form Gel's JSON output has: numbers, strings, booleans, lists (arrays, unnamed tuples),
    objects (named tuples). Typed values (``<datetime>'...'``), objects and ranges are not
    read (:class:`Unsupported`)."""

    def __init__(self, text: str) -> None:
        self.t = text
        self.i = 0

    def ws(self) -> None:
        while self.i < len(self.t) and self.t[self.i] in " \t\n\r":
            self.i += 1

    def peek(self) -> str:
        self.ws()
        return self.t[self.i] if self.i < len(self.t) else ""

    def expect(self, c: str) -> None:
        if self.peek() != c:
            raise Unsupported(f"REPL output: expected {c!r}")
        self.i += 1

    def set_(self) -> List[Any]:
        self.expect("{")
        out = self.items("}")
        if self.peek():
            raise Unsupported("REPL output: text after the set")
        return out

    def items(self, close: str) -> List[Any]:
        out: List[Any] = []
        if self.peek() == close:
            self.i += 1
            return out
        while True:
            out.append(self.value())
            c = self.peek()
            self.i += 1
            if c == close:
                return out
            if c != ",":
                raise Unsupported("REPL output: expected ','")
            if self.peek() == close:  # trailing comma
                self.i += 1
                return out

    def value(self) -> Any:
        c = self.peek()
        if c == "[":
            self.i += 1
            return self.items("]")
        if c == "(":
            self.i += 1
            m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*:=", self.t[self.i:])
            if m:
                out = {}
                while True:
                    m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*:=", self.t[self.i:])
                    if not m:
                        raise Unsupported("REPL output: named tuple")
                    self.i += m.end()
                    out[m.group(1)] = self.value()
                    c = self.peek()
                    self.i += 1
                    if c == ")":
                        return {"$named": out}
                    if c != ",":
                        raise Unsupported("REPL output: named tuple")
            start = self.i
            first = self.value()
            if self.peek() == ")":
                self.i += 1
                return first  # a parenthesized value, not a tuple (a 1-tuple prints as (x,))
            self.i = start
            return {"$tuple": self.items(")")}
        if c in "'\"":
            return self.string()
        m = re.match(r"-?(?:\d+\.\d*(?:e[+-]?\d+)?|\d+e[+-]?\d+|\d+)n?|true|false|-?inf|nan",
                     self.t[self.i:], re.I)
        if m:
            tok = m.group(0)
            self.i += len(tok)
            low = tok.lower()
            if low in ("true", "false"):
                return low == "true"
            if low in ("inf", "-inf", "nan"):
                return {"$float": low}
            if tok.endswith("n"):
                body = tok[:-1]
                if "." in body or "e" in body.lower() and not re.match(r"^-?\d+e\+?\d+$", body, re.I):
                    return {"$decimal": body}
                return int(decimal_int(body))
            if re.match(r"^-?\d+$", tok):
                return int(tok)
            return float(tok)
        raise Unsupported("REPL output: a value that is not a number, string, boolean, array or tuple")

    def string(self) -> str:
        q = self.t[self.i]
        j = self.i + 1
        out = []
        while j < len(self.t) and self.t[j] != q:
            if self.t[j] == "\\" and j + 1 < len(self.t):
                nxt = self.t[j + 1]
                out.append({"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}.get(nxt, "\\" + nxt))
                j += 2
                continue
            out.append(self.t[j])
            j += 1
        if j >= len(self.t):
            raise Unsupported("REPL output: unterminated string")
        self.i = j + 1
        return "".join(out)


def decimal_int(body: str) -> int:
    import decimal as _d

    return int(_d.Decimal(body))


def _json_value(v: Any) -> Any:
    """A parsed REPL value as an expected shape: tuples are lists, named tuples objects."""
    if isinstance(v, list):
        return [_json_value(x) for x in v]
    if isinstance(v, dict) and "$tuple" in v:
        return [_json_value(x) for x in v["$tuple"]]
    if isinstance(v, dict) and "$named" in v:
        return {k: _json_value(x) for k, x in v["$named"].items()}
    return v


_VOLATILE = re.compile(r"\b(random|uuid_generate_v[14]|datetime_current|datetime_of_\w+|"
                       r"cal::local_\w+_current|sequence_next)\s*\(", re.I)


def _multiline_string(text: str) -> bool:
    return any("\n" in m.group(0) for m in re.finditer(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", text, re.S))


def _outside_strings(q: str) -> str:
    return re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "''", q)


def transcribe_docs(repo: str, rev: str) -> Dict[str, Any]:
    paths = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", rev, "docs"], check=True,
                           stdout=subprocess.PIPE).stdout.decode().split()
    skipped: Counter = Counter()
    cases: List[Dict[str, Any]] = []
    for path in sorted(p for p in paths if p.endswith(".rst") and p.startswith(DOCS_DIRS)):
        lines = git_show(repo, rev, path).split("\n")
        i = 0
        n_in_file = 0
        while i < len(lines):
            m = re.match(r"^(\s*)db>\s?(.*)$", lines[i])
            if not m:
                i += 1
                continue
            indent, start = m.group(1), i + 1
            query = [m.group(2)]
            i += 1
            while i < len(lines) and re.match(r"^" + re.escape(indent) + r"\.\.\.(\s|$)", lines[i]):
                query.append(lines[i][len(indent) + 4:])
                i += 1
            out = []
            while i < len(lines) and lines[i].strip() and not re.match(r"^\s*db>", lines[i]) \
                    and (lines[i].startswith(indent) or not indent):
                out.append(lines[i][len(indent):])
                i += 1
            text = "\n".join(query).strip()
            index = n_in_file
            n_in_file += 1
            try:
                if not out:
                    raise Unsupported("docs: no printed result")
                printed = "\n".join(out).strip()
                if re.match(r"^[A-Za-z]+Error:", printed) or not printed.startswith("{"):
                    raise Unsupported("docs: the example prints an error or a message")
                if _SCHEMA_NAME.search(_outside_strings(text).replace("std::", "")) and \
                        set(_SCHEMA_NAME.findall(_outside_strings(text))) - _STD_NAMES:
                    raise Unsupported("docs: the example reads the docs' schema (no data given)")
                if re.search(r"\b(configure|set|reset|create|alter|drop|start|commit|rollback|describe|"
                             r"administer|analyze|explain)\b", text.split(None, 1)[0] if text else "", re.I):
                    raise Unsupported("docs: not a query")
                if re.search(r"\br['\"]|\$[A-Za-z_]*\$", text) or _multiline_string(text) or _multiline_string(printed):
                    # the REPL's prompts and its display of raw and multi-line strings leave their
                    # backslashes and spaces ambiguous
                    raise Unsupported("docs: a raw or multi-line string")
                if _VOLATILE.search(text):
                    raise Unsupported("docs: a volatile function (the printed value is one draw)")
                values = [_json_value(v) for v in ReplValue(printed).set_()]
            except Unsupported as e:
                skipped[str(e)] += 1
                continue
            ordered = bool(re.search(r"\border\s+by\b", text, re.I))
            cases.append({"id": f"docs:Docs:{path[len('docs/'):-len('.rst')].replace('/', '.')}:{index}",
                          "class": "Docs", "source": f"{path}:{start}", "query": text,
                          "expected": values if ordered or len(values) < 2 else {"$bag": values},
                          "prelude": [], "repl": True})
    return {"area": "docs", "source": "docs/", "gel_commit": rev,
            "fixtures": {"Docs": {"schema": [], "sdl": [], "setup": []}}, "cases": cases, "statements": [],
            "skipped": dict(sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0])))}


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", default=os.environ.get("GEL_REPO", DEFAULT_REPO),
                    help="git directory of a Gel snapshot (read with git show)")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--out", default=HERE, help="directory for cases/ and fixtures/")
    ap.add_argument("areas", nargs="*", default=DEFAULT_AREAS)
    args = ap.parse_args(argv)
    rev = subprocess.run(["git", "-C", args.repo, "rev-parse", args.rev], check=True,
                         stdout=subprocess.PIPE).stdout.decode().strip()
    files: Dict[str, str] = {}
    os.makedirs(os.path.join(args.out, "cases"), exist_ok=True)
    for area in args.areas:
        data = transcribe_docs(args.repo, rev) if area == "docs" else transcribe_area(args.repo, rev, area, files)
        with open(os.path.join(args.out, "cases", f"{area}.json"), "w") as f:
            json.dump(data, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
        print(f"{data['source']}: {len(data['cases'])} cases, {sum(data['skipped'].values())} left out",
              file=sys.stderr)
    fdir = os.path.join(args.out, "fixtures")
    os.makedirs(fdir, exist_ok=True)
    for name, text in sorted(files.items()):
        with open(os.path.join(fdir, name), "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
