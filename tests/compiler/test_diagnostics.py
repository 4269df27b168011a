"""Bad input: every error names file:line:col, shows the line with a caret, says what was
expected and (where useful) gives a hint. No Python traceback, ever (CLI exit status 1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library
from schemac.diagnostics import CompileError

REPO = Path(__file__).resolve().parents[2]

JOBS_SCHEMA = """\
enum QueueStatus { Pending, Running, Failed, Processed }

type Job {
  required name: str;
  required actor: str;
  payload: json;
  status: QueueStatus { default := QueueStatus.Pending };
  claimed_at: datetime;
  constraint exclusive on (.name, .actor) filter .status = QueueStatus.Pending;
}
"""


def diagnose(sources):
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="t"))
    return exc.value, exc.value.render(sources)


def test_syntax_error_points_at_the_token_with_expectation_and_hint():
    src = {"s/schema.esdl": "type Job {\n  required name: str\n  actor: str;\n}\n"}
    err, text = diagnose(src)
    assert [d.code for d in err.diagnostics] == ["E0100"]
    lines = text.splitlines()
    # The usual cause, a ';' missing at the end of the previous line, is reported there.
    assert lines[0] == "s/schema.esdl:2:21: error[E0100]: missing ';' at the end of this line"
    assert lines[1:3] == ["      required name: str", "                        ^"]
    assert "hint: the next line starts with 'actor', which cannot continue this statement" in text
    # On one line, the unexpected token itself is shown with what was expected.
    err, text = diagnose({"s/schema.esdl": "type Job { required name: str actor: str; }\n"})
    assert text.startswith("s/schema.esdl:1:31: error[E0100]: unexpected 'actor'; expected ")
    assert "hint: declarations and statements end with ';'" in text


def test_unterminated_string_and_end_of_input():
    err, text = diagnose({"a.esdl": "type T {\n  a: str { default := 'abc };\n}\n"})
    assert "a.esdl:2:23: error[E0100]: unexpected character \"'\"" in text
    assert "this string literal is never closed" in text
    err, text = diagnose({"a.esdl": "type T {\n  a: str;\n"})
    assert err.diagnostics[0].code == "E0101"
    assert text.startswith("a.esdl:2:10: error[E0101]: unexpected end of schema file; expected")


def test_unknown_type_with_did_you_mean_and_several_errors_in_one_run():
    src = {"lib/schema.esdl": "type A {\n  name: strr;\n  n: int33;\n  s: QueueStatuss;\n}\nenum QueueStatus { X }\n"}
    err, text = diagnose(src)
    assert [d.code for d in err.diagnostics] == ["E0201", "E0201", "E0201"]
    assert "lib/schema.esdl:2:9: error[E0201]: unknown type 'strr'\n      name: strr;\n            ^^^^\nhint: did you mean 'str'?" in text
    assert "hint: did you mean 'int32'?" in text
    assert "hint: did you mean 'QueueStatus'?" in text
    assert text.endswith("3 errors found")


def test_unknown_enum_member_suggests_the_closest():
    src = {"s.esdl": "enum S { Pending, Done }\ntype T { s: S { default := S.Pendng }; }\n"}
    err, text = diagnose(src)
    assert "s.esdl:2:30: error[E0203]: enum 'S' has no member 'Pendng'" in text
    assert "did you mean 'Pending'?" in text


def test_unknown_property_in_query():
    src = {"j/schema.esdl": JOBS_SCHEMA,
           "j/queries/q.edgeql": "insert Job { name := $name, actr := $actor };\n"}
    err, text = diagnose(src)
    codes = [d.code for d in err.diagnostics]
    assert "E0302" in codes
    assert "j/queries/q.edgeql:1:29: error[E0302]: type 'Job' has no property 'actr'" in text
    assert "hint: did you mean 'actor'?" in text
    # the missing required property is reported in the same run
    assert "E0305" in codes and "missing required property 'actor'" in text


def test_unknown_property_in_filter_and_unknown_type_in_query():
    src = {"j/schema.esdl": JOBS_SCHEMA,
           "j/queries/a.edgeql": "update Job filter .nme = $n set { actor := 'x' };",
           "j/queries/b.edgeql": "insert Jb { name := 'a', actor := 'b' };"}
    err, text = diagnose(src)
    assert "j/queries/a.edgeql:1:19: error[E0302]: type 'Job' has no property 'nme'" in text
    assert "j/queries/b.edgeql:1:8: error[E0301]: unknown type 'Jb'" in text
    assert "did you mean 'Job'?" in text


def test_parameter_whose_type_cannot_be_inferred():
    src = {"j/schema.esdl": JOBS_SCHEMA,
           "j/queries/q.edgeql": "update Job filter $a = $b set { actor := 'x' };"}
    err, text = diagnose(src)
    assert "j/queries/q.edgeql:1:19: error[E0303]: cannot infer the type of parameter $a" in text
    assert "hint: give it a type: $a<str>" in text


def test_type_mismatch_enum_vs_string_and_conflicting_param_types():
    src = {"j/schema.esdl": JOBS_SCHEMA,
           "j/queries/q.edgeql": "update Job filter .status = 'Pending' set { actor := 'x' };",
           "j/queries/r.edgeql": "update Job filter .name = $v and .claimed_at = $v set { actor := 'x' };"}
    err, text = diagnose(src)
    assert "cannot compare QueueStatus with str using '='" in text
    assert "compare with an enum member instead, e.g. QueueStatus.Pending" in text
    assert "error[E0307]: parameter $v is used as str and as datetime" in text


def test_unless_conflict_on_properties_without_exclusive_constraint_lists_candidates():
    src = {"j/schema.esdl": JOBS_SCHEMA,
           "j/queries/q.edgeql": "insert Job { name := $n, actor := $a } unless conflict on (.name);"}
    err, text = diagnose(src)
    assert "error[E0306]: no exclusive constraint of 'Job' is on (.name)" in text
    assert "exclusive constraints of 'Job': on (.name, .actor)" in text


def test_duplicates_and_implicit_id():
    src = {"s.esdl": "type T { a: str; a: int32; id: uuid; }\ntype T { b: str; }\nenum E { A, A }\n"}
    err, text = diagnose(src)
    msgs = [d.message for d in err.diagnostics]
    assert "property 'a' is already defined on 'T'" in msgs
    assert "'id' is implicit on every type and cannot be declared" in msgs
    assert any(m.startswith("type 'T' is already defined at s.esdl:1:6") for m in msgs)
    assert "enum 'E' lists 'A' twice" in msgs


def test_default_type_mismatch_and_unsupported_constraint():
    src = {"s.esdl": "type T { a: int32 { default := 'x' }; b: str { constraint max_len_value; "
                     "constraint max_lenght_value(3) }; }\n"}
    err, text = diagnose(src)
    assert "default of 'a' is str, but the property is int32" in text
    assert "constraint max_len_value takes 1 argument" in text
    assert "error[E0206]: constraint 'max_lenght_value' is not supported" in text
    assert "did you mean 'max_len_value'?" in text


def test_query_file_with_two_queries():
    src = {"j/schema.esdl": JOBS_SCHEMA,
           "j/queries/q.edgeql": "insert Job { name := 'a', actor := 'b' };\ninsert Job { name := 'c', actor := 'd' };\n"}
    err, text = diagnose(src)
    assert "j/queries/q.edgeql:2:1: error[E0300]: a query file holds exactly one query; found 2" in text


@pytest.mark.parametrize(
    "schema",
    ["", "type", "type {", "enum E {}", "type T { a: ; }", "type T { constraint exclusive on (.a); }",
     "type T { a: str { default := $x }; }", "type T { a: array<array<str>>; }", "\x00", "type T { a: str { default := 1 + }; }",
     "module m { type T { a: str; } } type U { b: m::T; }", "type T { a: str { default := nowx() }; }"],
)
def test_no_input_crashes_the_compiler(schema):
    with pytest.raises(CompileError):
        check_library({"x.esdl": schema, "q/a.edgeql": "insert T { a := $a };"}, Options(library="t"))


def test_cli_reports_errors_without_traceback(tmp_path):
    (tmp_path / "schema.esdl").write_text("type Job {\n  required name: strr;\n}\n")
    proc = subprocess.run(
        [sys.executable, "-m", "schemac", "compile", "--library", "t", "--out", str(tmp_path / "out"), "schema.esdl"],
        cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(REPO / "pants-plugins")},
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.startswith("schema.esdl:2:18: error[E0201]: unknown type 'strr'\n")
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_property_of_every_object_of_a_type_is_not_called_a_link_traversal():
    """``User.handle`` in a shape of another type is the set of every User's handle
    (https://docs.geldata.com/reference/edgeql/paths): a located E0206 that says so and points
    to the aggregates that compile (it said "looks like a link traversal")."""
    import pytest

    from schemac.diagnostics import CompileError
    from schemac.pipeline import check_library
    from schemac.semantics.library import Options

    schema = "module default { type User { required handle: str; } type Chat { required title: str; } }\n"
    with pytest.raises(CompileError) as e:
        check_library({"s.gel": schema, "q.edgeql": "select Chat { title, h := User.handle };\n"},
                      Options(library="x"))
    [d] = e.value.diagnostics
    assert d.code == "E0206" and "link traversal" not in d.message
    assert "'User.handle' is the 'handle' of every User object" in d.message and "array_agg(User.handle)" in d.hint
    assert (d.span.line, d.span.col) == (1, 27)
    check_library({"s.gel": schema, "q.edgeql": "select Chat { title, n := array_agg(User.handle) };\n"},
                  Options(library="x"))
