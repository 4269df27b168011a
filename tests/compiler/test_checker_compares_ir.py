"""The checker reasons on checked IR, never on the SQL the lowering writes of it (issue 26 step 2:
"nothing compares or parses generated SQL"): two values are the same expression when their IR
is (:func:`schemac.semantics.qir.same`), and a partial exclusive constraint keeps its checked
predicate in the schema model for the statements to read.

- A ``for`` loop's upsert may read the loop variable in its else update only through the value
  the insert gives the same property (then ``excluded."col"``): compared as IR.
- A duplicate exclusive constraint (https://docs.geldata.com/reference/datamodel/constraints) is
  one with the same checked keys and predicate, however it is written.
- An update that sets the column of a partial constraint's ``.col = <constant>`` predicate to
  another constant can only take rows out of it, so it cannot violate it: read from the checked
  predicate, either way round."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemac.diagnostics import CompileError, Span
from schemac.pipeline import check_library, compile_library
from schemac.semantics import qir
from schemac.semantics.library import Options
from schemac.semantics.model import ValueType
from schemac.semantics.scalars import SCALARS

CASE = Path(__file__).resolve().parents[1] / "cases" / "query_dml"
STR = ValueType(scalar=SCALARS["str"])


def _errors(schema: str, queries=None):
    sources = {"lib/schema.esdl": schema}
    sources.update({f"lib/queries/{k}.edgeql": v for k, v in (queries or {}).items()})
    with pytest.raises(CompileError) as e:
        check_library(sources, Options(library="lib"))
    return [(d.code, d.message) for d in e.value.diagnostics if d.severity == "error"]


def test_same_is_structural_and_ignores_where_a_value_is_written():
    a = qir.Literal(Span("a.edgeql", 1, 1, 1, 4), STR, False, "str", "x")
    b = qir.Literal(Span("b.edgeql", 7, 3, 7, 6), STR, False, "str", "x")
    c = qir.Literal(Span("a.edgeql", 1, 1, 1, 4), STR, False, "str", "y")
    assert qir.same(a, b) and not qir.same(a, c)
    assert qir.same(qir.Call(a.span, STR, False, "str_upper", (a,)), qir.Call(b.span, STR, False, "str_upper", (b,)))
    assert not qir.same(qir.Call(a.span, STR, False, "str_upper", (a,)),
                        qir.Call(a.span, STR, False, "str_lower", (a,)))
    assert not qir.same(qir.Call(a.span, STR, False, "str_upper", (a,)), qir.Call(a.span, STR, True, "str_upper", (a,)))
    # a name reads its binding: the very one, not an equal one
    one, other = (qir.WithValue("n", a, True) for _ in range(2))
    assert qir.same(qir.VarRef(a.span, STR, False, "n", one), qir.VarRef(b.span, STR, False, "n", one))
    assert not qir.same(qir.VarRef(a.span, STR, False, "n", one), qir.VarRef(a.span, STR, False, "n", other))


def _dml(query: str):
    sources = {"cases/query_dml/schema.esdl": (CASE / "schema.esdl").read_text(), "cases/query_dml/queries/q.edgeql": query}
    return check_library(sources, Options(library="query_dml")).queries[0]


def test_a_loop_upsert_reads_the_inserted_value_however_it_is_written():
    plan = _dml("for x in array_unpack(<array<str>>$xs) union (insert Member { name := x, telegram_id := 1, "
                "nick := x ++ '!' } unless conflict on .telegram_id else (update Member set {  nick := x   ++ '!' }))")
    assert '"nick" = excluded.nick' in plan.sql
    with pytest.raises(CompileError) as e:
        _dml("for x in array_unpack(<array<str>>$xs) union (insert Member { name := x, telegram_id := 1, "
             "nick := x ++ '!' } unless conflict on .telegram_id else (update Member set { nick := x ++ '?' }))")
    assert [d.code for d in e.value.diagnostics] == ["E0206"]
    assert "is not the value the insert gives it" in e.value.diagnostics[0].message


def test_a_duplicate_partial_exclusive_is_the_same_checked_predicate():
    base = "type P {{ required a: str; s: str; constraint exclusive on (.a) {0}; constraint exclusive on (.a) {1}; }}"
    assert _errors(base.format("filter .s = 'x'", "filter (.s   =  'x')")) == [
        ("E0200", "duplicate exclusive constraint on (a)")]
    assert _errors(base.format("except (.s = 'x')", "except ((.s = 'x'))")) == [
        ("E0200", "duplicate exclusive constraint on (a)")]
    # filter P and except P constrain other rows; another constant is another constraint
    for first, second in (("filter .s = 'x'", "except (.s = 'x')"), ("filter .s = 'x'", "filter .s = 'y'")):
        out = compile_library({"lib/schema.esdl": base.format(first, second)}, Options(library="lib"))
        assert out["sql/schema.sql"].count("CREATE UNIQUE INDEX") == 2


@pytest.mark.parametrize("predicate", [".status = Status.Pending", "Status.Pending = .status",
                                       ".code = 'p'", "'p' = .code"])
def test_an_update_that_only_takes_rows_out_of_a_partial_exclusive_cannot_violate_it(predicate):
    schema = ("scalar type Status extending enum<Pending, Running>;\n"
              "type Job { required name: str; required status: Status; required code: str;\n"
              f"  constraint exclusive on (.name) filter {predicate}; }}")
    column = "status" if "Status" in predicate else "code"
    leave, enter = (("Status.Running", "Status.Pending") if column == "status" else ("'r'", "'p'"))
    queries = {"leave": f"update Job filter .id = <uuid>$id set {{ {column} := {leave} }}",
               "enter": f"update Job filter .id = <uuid>$id set {{ {column} := {enter} }}"}
    lib = check_library({"lib/schema.esdl": schema, **{f"lib/queries/{k}.edgeql": v for k, v in queries.items()}},
                        Options(library="lib"))
    raised = {q.name: [ex.name for ex in q.exclusives] for q in lib.queries}
    assert raised == {"enter": ["uq_job_name"], "leave": []}
