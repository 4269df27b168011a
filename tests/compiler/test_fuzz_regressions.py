"""Minimal reproducers of the crashes and diagnostic defects found by ``test_fuzz.py``, as plain
tests. Each is ``xfail(strict=True)`` until the compiler core is fixed: when a fix lands the
test passes, strict xfail turns that into a failure, and the marker (and the bug's entry in
``fuzz_support.KNOWN_BUGS``, which the fuzz tests tolerate meanwhile) must be removed.

The oracle is the fuzz tests' own (:func:`fuzz_support.check_sources`): compile, or raise a
``CompileError`` whose diagnostics render and point inside the file.
"""

from __future__ import annotations

import pytest
from lark.exceptions import VisitError

from fuzz_support import KNOWN_BUGS, DiagnosticDefect, check_sources

SCHEMA = "type T {\n  required a: str;\n  b: int64;\n}\n"


def test_every_known_bug_has_a_regression_test():
    names = {n for n in globals() if n.startswith("test_")}
    assert {b.regression_test for b in KNOWN_BUGS} <= names


@pytest.mark.xfail(strict=True, raises=ValueError,
                   reason="a quoted enum member holding NUL (\"a\\0\") reaches sqlnames.sql_string unchecked "
                          "(resolve._object_type builds the CHECK constraint) and raises ValueError; string "
                          "literals get E0102 in exprs._literal, enum members do not")
def test_nul_in_quoted_enum_member():
    check_sources({"s.esdl": 'enum E { "a\\0" }\ntype T { e: E; }\n'})


@pytest.mark.xfail(strict=True, raises=(RecursionError, VisitError),
                   reason="expressions are built and lowered recursively (lark Transformer in parser._parse, "
                          "then exprs.lower): a filter of ~330 '+' terms or ~490 'or'/'and' terms exceeds "
                          "Python's recursion limit and escapes as lark VisitError/RecursionError")
def test_long_operator_chain():
    filt = " or ".join(f".a = 'v{i}'" for i in range(500))
    check_sources({"s.esdl": SCHEMA, "q/q.edgeql": f"update T filter {filt} set {{ b := 1 }};"})


@pytest.mark.xfail(strict=True, raises=DiagnosticDefect,
                   reason="TYPED_PARAM may span lines ($p<\\n ... >); parser._Builder.param puts the span of an "
                          "error inside the type on the '$p' line with the column counted within the type "
                          "text, past the end of that line")
def test_typed_parameter_spanning_lines():
    check_sources({"s.esdl": SCHEMA, "q/q.edgeql": "update T filter .b = $p<\n\n        1> set { b := 1 };\n"})


@pytest.mark.xfail(strict=True, raises=DiagnosticDefect,
                   reason="lark counts lines by '\\n' only, Diagnostic.render splits with str.splitlines(), which "
                          "also breaks at a lone '\\r', '\\f', '\\v', '\\x1c'-'\\x1e', '\\x85', U+2028/9: the "
                          "excerpt shows another line than the one the span points at")
def test_carriage_return_line_breaks():
    check_sources({"s.esdl": "type T {\r  a: strr;\r}\n"})
