"""Minimal reproducers of the crashes and diagnostic defects found by ``test_fuzz.py``, as plain
tests. An open bug is ``xfail(strict=True)``: when a fix lands the test passes, strict xfail
turns that into a failure, and the marker (and the bug's entry in ``fuzz_support.KNOWN_BUGS``,
which the fuzz tests tolerate meanwhile) must be removed. Fixed bugs stay here as plain tests.

The oracle is the fuzz tests' own (:func:`fuzz_support.check_sources`): compile, or raise a
``CompileError`` whose diagnostics render and point inside the file.
"""

from __future__ import annotations

from fuzz_support import KNOWN_BUGS, check_sources

SCHEMA = "type T {\n  required a: str;\n  b: int64;\n}\n"


def test_every_known_bug_has_an_xfail_regression_test():
    for bug in KNOWN_BUGS:
        test = globals().get(bug.regression_test)
        assert test is not None, bug
        assert any(m.name == "xfail" for m in getattr(test, "pytestmark", [])), bug


# -- fixed (found on 475a088's compiler, fixed in 5b9494c)


def test_nul_in_quoted_enum_member():
    # Was: ValueError from sqlnames.sql_string via resolve._object_type (enum CHECK constraint).
    assert check_sources({"s.esdl": 'enum E { "a\\0" }\ntype T { e: E; }\n'}) == "error"


def test_long_operator_chain():
    # Was: RecursionError/lark VisitError from ~330 '+' or ~490 'or' terms (recursive lark
    # Transformer in parser._parse, then exprs.lower).
    filt = " or ".join(f".a = 'v{i}'" for i in range(500))
    assert check_sources({"s.esdl": SCHEMA, "q/q.edgeql": f"update T filter {filt} set {{ b := 1 }};"}) == "ok"


def test_typed_parameter_spanning_lines():
    # Was: parser._Builder.param put the span of an error inside a multi-line `$p<...>` on the
    # `$p` line with the column counted inside the type text, past the end of that line.
    sources = {"s.esdl": SCHEMA, "q/q.edgeql": "update T filter .b = $p<\n\n        1> set { b := 1 };\n"}
    assert check_sources(sources) == "error"


def test_carriage_return_line_breaks():
    # Was: lark counts lines by "\n", Diagnostic.render split with str.splitlines() (which also
    # breaks at a lone "\r", "\f", U+2028, ...): the excerpt showed another line than the span's.
    assert check_sources({"s.esdl": "type T {\r  a: strr;\r}\n"}) == "error"
    assert check_sources({"s.esdl": "type T {\u2028  a: str;\n  b: strr;\n}\n"}) == "error"


def test_too_deeply_nested_expression_is_located():
    # Was: compiler.check_library turned a RecursionError into E0103 without a span. Chains of
    # a left-associative operator compile without deep Python stacks; real nesting is refused,
    # located, and so is a chain Postgres would nest deeper than its stack allows (issue 25:
    # a 5,000-term '+' chain compiled, and Postgres refused it, "stack depth limit exceeded").
    filt = " + ".join(["1"] * 1000)
    assert check_sources({"s.esdl": SCHEMA, "q/q.edgeql": f"update T filter .b = {filt} set {{ b := 1 }};"}) == "ok"
    filt = " + ".join(["1"] * 5000)
    assert check_sources({"s.esdl": SCHEMA, "q/q.edgeql": f"update T filter .b = {filt} set {{ b := 1 }};"}) == "error"
    nested = "not " * 400 + "true"
    assert check_sources({"s.esdl": SCHEMA, "q/q.edgeql": f"update T filter {nested} set {{ b := 1 }};"}) == "error"


# -- fixed later (found by the output oracle and the thread test)


def test_nul_in_annotation():
    assert check_sources({"s.esdl": "type T {\n  annotation description := 'a\\0';\n  a: str;\n}\n"}) == "error"


def test_query_doc_comment_with_star_slash():
    assert check_sources({"s.esdl": SCHEMA, "q/q.edgeql": "# Matches a/*/b paths.\nupdate T set { b := 1 };\n"}) == "ok"


def test_nul_in_query_doc_comment():
    assert check_sources({"s.esdl": SCHEMA, "q/q.edgeql": "# a \x00 b\nupdate T set { b := 1 };\n"}) == "ok"


_SMALL_STACK_THREAD = """
import sys, threading
from schemac.pipeline import Options, compile_library
from schemac.diagnostics import CompileError
schema = "type T {\\n  required a: str;\\n  b: int64;\\n}\\n"
query = "update T filter " + " or ".join(".a = 'v%d'" % i for i in range(800)) + " set { b := 1 };"
def run():
    try:
        compile_library({"s.esdl": schema, "q/q.edgeql": query}, Options(library="t"))
        print("ok")
    except CompileError as e:
        print("error", e.diagnostics[0].code)
threading.stack_size(512 * 1024)  # macOS' default for threads; musl's is 128 KiB
t = threading.Thread(target=run)
t.start()
t.join()
"""


def test_deep_expression_in_a_thread_with_a_small_stack():
    import subprocess
    import sys

    from fuzz_support import REPO_ROOT

    proc = subprocess.run([sys.executable, "-c", _SMALL_STACK_THREAD], capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO_ROOT / "pants-plugins")}, timeout=120)
    assert proc.returncode == 0, f"exit status {proc.returncode}: {proc.stderr[-2000:]}"
    assert proc.stdout.split()[0] in ("ok", "error")
