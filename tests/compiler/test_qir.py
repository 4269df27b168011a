"""The typed query IR (schemac.semantics.qir): what the checker hands the lowering. Every expression
carries its type and cardinality and every path its resolved column; the SQL of a query is the
lowering of its IR and nothing else; the lowering walks long operator chains without deep
recursion."""

from __future__ import annotations

from schemac.semantics import lowering, qir
from schemac.semantics.library import Options
from schemac.pipeline import check_library

SCHEMA = """
type Account {
  required email: str { constraint exclusive; };
  name: str;
}
type Post {
  required title: str;
  views: int32 { default := 0; };
  required author: Account;
}
"""


def plans(**queries):
    sources = {"s.esdl": SCHEMA}
    sources.update({f"queries/{name}.edgeql": text for name, text in queries.items()})
    return {q.name: q for q in check_library(sources, Options(library="t")).queries}


def test_select_ir_has_types_cardinality_and_resolved_paths():
    plan = plans(by_email="select Account { name } filter .email = <str>$email")["by_email"]
    query = plan.ir
    assert isinstance(query, qir.Query) and query.cardinality == qir.AT_MOST_ONE
    select = query.statement
    assert isinstance(select, qir.Select) and select.subject.name == "Account"
    (name,) = select.shape
    assert isinstance(name, qir.ShapeColumn) and name.column.name == "name" and name.field.optional
    cmp = select.filter
    assert isinstance(cmp, qir.Binary) and cmp.op == "=" and cmp.type.name == "bool"
    assert cmp.cardinality == qir.ONE  # email is required and the parameter too
    assert isinstance(cmp.left, qir.ColumnRef) and cmp.left.column.name == "email"
    assert isinstance(cmp.right, qir.ParamRef) and cmp.right.param.name == "email"
    assert (cmp.span.line, cmp.span.col) == (1, 32)
    assert lowering.statement_sql(select) == plan.sql


def test_optional_values_are_at_most_one():
    plan = plans(q="select Account filter .name = <optional str>$n")["q"]
    cmp = plan.ir.statement.filter
    assert cmp.left.cardinality == qir.AT_MOST_ONE and cmp.right.cardinality == qir.AT_MOST_ONE
    assert cmp.cardinality == qir.AT_MOST_ONE


def test_insert_ir_resolves_links_and_defaults():
    plan = plans(new_post="insert Post { title := <str>$title, views := <optional int32>$views, "
                          "author := (select Account filter .id = <uuid>$author) }")["new_post"]
    ret = plan.ir.statement
    assert isinstance(ret, qir.Returning) and isinstance(ret.write, qir.Insert)
    sets = {a.column.name: a for a in ret.write.sets}
    assert sets["views"].default == "param"  # omitted -> the column default
    assert sets["author_id"].column.link == "author"
    assert lowering.statement_sql(ret) == plan.sql


def test_with_ir_and_parameters_used():
    plan = plans(w="with e := <str>$email, a := (insert Account { email := e }) select a { email }")["w"]
    w = plan.ir.statement
    assert isinstance(w, qir.With)
    value, bound = w.bindings
    assert isinstance(value, qir.WithValue) and value.inline
    assert isinstance(bound, qir.BoundWrite) and isinstance(bound.write, qir.Insert)
    assert {n.param.name for n in qir.walk(w) if isinstance(n, qir.ParamRef)} == {"email"}
    # The insert reads the binding: the parameter is reached through the name.
    assert {n.param.name for n in qir.walk(bound.write) if isinstance(n, qir.ParamRef)} == {"email"}
    assert lowering.statement_sql(w) == plan.sql


def test_long_chains_lower_without_deep_recursion():
    n = 3000
    text = "select Account filter " + " or ".join(f".email = '{i}'" for i in range(n))
    plan = plans(chain=text)["chain"]
    assert plan.sql.count(" OR ") == n - 1
    # written flat (see lowering._binary): no parentheses around the chain so far
    assert plan.sql.startswith('SELECT "id"\nFROM "account"\nWHERE ' + "(email = '0') OR (email = '1') OR (email = '2')")
