"""Gel forms real schemas and queries use that schemac refused, each lowered with Gel's documented
semantics and run on PostgreSQL 15 with data (the golden case tests/cases/gel_schema_forms runs
them through both runners, tests/e2e/test_gel_schema_forms_e2e.py):

* a standard-library function named with its module, ``std::datetime_of_statement()``
  (https://docs.geldata.com/reference/stdlib/datetime#function::std::datetime_of_statement): it
  was looked up by its qualified name, which only ``std::datetime_current`` had;
* ``12n`` (a bigint) and ``1.5n`` (a decimal) (https://docs.geldata.com/reference/edgeql/literals);
* a property's constraint of the same kind as one of its custom scalar's
  (``bounded_str { constraint min_len_value(1) }`` and ``name: bounded_str { constraint
  min_len_value(0) }``): both hold, as in Gel; their checks were given the same name (E0207);
* ``(select T [filter f] [order by k] limit 1)`` as a single link's value or a ``with`` name
  bound to an object (https://docs.geldata.com/reference/edgeql/select): the first object in that
  order, any one without it; it was refused as 'a select of an expression';
* ``re_replace(pattern, sub, string [, flags := f])``
  (https://docs.geldata.com/reference/stdlib/string#function::std::re_replace);
* a link whose default inserts its object, ``gold: Stock { default := (insert Stock { ... }) }``
  (https://docs.geldata.com/reference/datamodel/links): each insert that leaves the link out
  inserts one (it was E0206 'this default of a link is not supported');
* ``single link land := .<gold[is Land] ?? .<food[is Land]`` (each backlink through an exclusive
  link: at most one object) and paths through it, ``.land.name``
  (https://docs.geldata.com/reference/stdlib/set#operator::coalesce; was E0206 '.<gold is a set
  of objects' and 'path traversal is only supported as .link.id');
* ``with g := (with module inv select Item filter .kind = Kind.A)`` and ``(with module inv select
  count(Item))`` (https://docs.geldata.com/reference/edgeql/with#module-selection: bare names
  resolve in that module first, then in default; was E0302 'unknown name');
* ``name := .<team[is Player].coach { name }`` in a shape: the objects of a path (after a
  backlink) with a shape (https://docs.geldata.com/reference/edgeql/shapes; was E0206 'shapes on
  an expression');
* ``Ship is Airship`` of the object a select of an abstract type reads
  (https://docs.geldata.com/reference/stdlib/type#operator::is; was E0206 'type checks');
* ``constraint expression on (__subject__.current < __subject__.total)`` of a tuple property
  (https://docs.geldata.com/reference/datamodel/constraints; was E0206 '__subject__ is not
  available in a constraint').
"""

from __future__ import annotations

import re
from decimal import Decimal

import psycopg
import pytest

from schemac.diagnostics import CompileError
from schemac.pipeline import check_library, compile_library
from schemac.semantics.library import Options

SCHEMA = """
module default {
  scalar type Short extending str { constraint max_len_value(5); }
  type Team {
    required name: Short { constraint max_len_value(3); constraint exclusive; }
    required rank: int64;
    made: datetime { default := std::datetime_of_statement(); }
    budget: bigint { default := 100n; constraint min_value(0n); }
  }
  type Player {
    required name: str;
    required team: Team;
    coach: Team;
  }
  type Stock {
    required amount: int64 { default := 0; };
    required label: str;
    single link land := .<gold[is Land] ?? .<food[is Land];
    property land_name := .land.name;
    property worth := (.amount * 2 if .land.name = 'x' else .amount) ?? -1;
  }
  type Land {
    required name: str;
    required gold: Stock {
      default := (insert Stock { label := 'gold' });
      constraint exclusive;
      on source delete delete target;
    }
    food: Stock { default := (insert Stock { label := 'food', amount := 3 }); constraint exclusive; }
    progress: tuple<current: int32, total: int32> {
      constraint expression on (__subject__.current >= 0 and __subject__.current < __subject__.total);
    }
  }
}
module ships {
  abstract type Ship { required size: int64; }
  type Boat extending Ship;
  type Airship extending Ship;
  type Blimp extending Airship;
}
module inv {
  scalar type Kind extending enum<A, B>;
  type Item { required kind: Kind; required qty: int64; }
}
"""

QUERIES = {
    "add_team": "insert Team { name := <str>$name, rank := <int64>$rank }",
    "join_best": "insert Player { name := <str>$name, "
                 "team := (select Team filter .rank > <int64>$min order by .rank then .name limit 1) }",
    "join_any": "insert Player { name := <str>$name, team := (select Team limit 1) }",
    "coach_with": "with t := (select Team filter .name = <str>$team limit 1) "
                  "update Player filter .name = <str>$name set { coach := t }",
    "coach_last": "update Player filter .name = <str>$name "
                  "set { coach := (select Team order by .name desc limit 1) }",
    "players": "select Player { name, team: { name }, coach: { name } } order by .name",
    "numbers": "select { a := 12345678901234567890n, b := 1.25n + 2n, c := -3n * 2n, d := 1e3n, "
               "e := <bigint><int64>$x + 1n }",
    "replaced": "select { a := re_replace('a', 'A', 'Alabama'), b := re_replace('a', 'A', 'Alabama', flags := 'g'), "
                "c := re_replace('A', 'A', 'Alabama', flags := 'ig'), d := re_replace(r'(\\w+)@', r'<\\1>@', <str>$s), "
                "e := re_replace(<str>$p, '', 'x', flags := <str>$f) }",
    "add_land": "insert Land { name := <str>$name }",
    "add_land_food": "insert Land { name := <str>$name, food := (select Stock filter .id = <uuid>$food) }",
    "stocks": "select Stock { label, amount, land_name, worth, land: { name }, has := exists .land } "
              "order by .label then .land_name",
    "module_sel": "with golds := (with module inv select Item filter .kind = Kind.A) "
                  "select { n := count(golds), total := sum(golds.qty), teams := count(Team) }",
    "module_expr": "select { n := (with module inv select count(Item)), t := (with module inv select count(Team)) }",
    "coaches": "select Team { name, coaches := .<team[is Player].coach { name } } order by .name",
    "ships": "with module ships select Ship { size, kind := ('Airship' if Ship is Airship else 'Boat'), "
             "boat := Ship is not Airship } filter Ship is not Blimp order by .size",
    "lands": "select Land { name, gold: { label, amount }, food: { label, amount } } order by .name",
    "made": "select Team { name, same := .made = std::datetime_of_statement(), "
            "now_ok := std::datetime_current() >= .made } order by .name",
}


def _sources(queries=QUERIES):
    src = {"lib/schema.esdl": SCHEMA}
    src.update({f"lib/{k}.edgeql": v for k, v in queries.items()})
    return src


@pytest.fixture(scope="module")
def plans():
    return {q.name: q for q in check_library(_sources(), Options(library="lib")).queries}


def _run(pg, plan, **args):
    sql = re.sub(r"\$(\d+)", r"%(p\1)s", plan.sql.replace("%", "%%"))
    return [tuple(r) for r in pg.execute(sql, {f"p{p.index}": args.get(p.name) for p in plan.params})]


def _errors(schema: str, queries=None) -> str:
    sources = {"lib/schema.esdl": schema}
    sources.update({f"lib/{k}.edgeql": v for k, v in (queries or {}).items()})
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="lib"))
    return exc.value.render(sources)


@pytest.fixture
def db(pg, plans):
    pg.execute(compile_library(_sources(), Options(library="lib"))["sql/schema.sql"])
    for name, rank in (("b", 2), ("a", 2), ("c", 1)):
        _run(pg, plans["add_team"], name=name, rank=rank)
    return pg


def test_std_qualified_datetime_of_statement(db, plans):
    assert "DEFAULT statement_timestamp()" in compile_library(_sources(), Options(library="lib"))["sql/schema.sql"]
    rows = _run(db, plans["made"])
    assert rows == [("a", False, True), ("b", False, True), ("c", False, True)]
    # one statement: the default is the statement's time, the same for every row it inserts
    db.execute("INSERT INTO team (name, rank) VALUES ('x', 1), ('y', 1)")
    (n,), = db.execute("SELECT count(DISTINCT made) FROM team WHERE name IN ('x', 'y')")
    assert n == 1


def test_bigint_and_decimal_literals(db, plans):
    assert _run(db, plans["numbers"], x=41) == [(Decimal("12345678901234567890"), Decimal("3.25"), Decimal("-6"),
                                                 Decimal("1000"), Decimal("42"))]
    assert [f.type.name for f in plans["numbers"].result] == ["bigint", "decimal", "bigint", "decimal", "bigint"]
    assert db.execute("SELECT budget FROM team WHERE name = 'a'") == [(Decimal(100),)]
    with pytest.raises(psycopg.errors.CheckViolation):
        db.execute("UPDATE team SET budget = -1 WHERE name = 'a'")


def test_property_and_custom_scalar_constraints_of_one_kind_both_hold(db):
    sql = compile_library(_sources(), Options(library="lib"))["sql/schema.sql"]
    assert '"ck_team_name_max_len_value" CHECK (char_length(name) <= 5)' in sql
    assert re.search(r'"ck_team_name_max_len_value_[0-9a-f]{8}" CHECK \(char_length\(name\) <= 3\)', sql)
    with pytest.raises(psycopg.errors.CheckViolation):
        db.execute("INSERT INTO team (name, rank) VALUES ('abcd', 1)")
    # the same constraint twice on the property itself is still E0207
    assert "error[E0207]" in _errors(SCHEMA.replace("constraint max_len_value(3);",
                                                    "constraint max_len_value(3); constraint max_len_value(3);"))


def test_limited_select_as_a_single_link_value(db, plans):
    _run(db, plans["join_best"], name="p1", min=0)   # rank 1 first: c
    _run(db, plans["join_best"], name="p2", min=1)   # rank 2, by name: a
    _run(db, plans["join_any"], name="p3")
    with pytest.raises(psycopg.errors.NotNullViolation):
        _run(db, plans["join_best"], name="p4", min=5)  # none: the required link is empty
    _run(db, plans["coach_with"], name="p1", team="b")
    _run(db, plans["coach_last"], name="p2")
    _run(db, plans["coach_with"], name="p3", team="nobody")  # none: the optional link is cleared
    rows = _run(db, plans["players"])
    assert [(r[0], r[1], r[2]) for r in rows[:2]] == [("p1", {"name": "c"}, {"name": "b"}),
                                                     ("p2", {"name": "a"}, {"name": "c"})]
    assert rows[2][0] == "p3" and rows[2][1]["name"] in ("a", "b", "c") and rows[2][2] is None
    assert 'ORDER BY "_q0".rank ASC NULLS FIRST, "_q0".name ASC NULLS FIRST LIMIT 1' in plans["join_best"].sql


def test_limited_select_of_another_type_is_e0304():
    text = _errors(SCHEMA, {"q": "insert Player { name := 'x', team := (select Player limit 1) }"})
    assert "lib/q.edgeql:1:46: error[E0304]: 'team' links to Team, not Player" in text


def test_re_replace(db, plans):
    assert _run(db, plans["replaced"], s="ann@x.org, bob@y.org", p="x", f="") == [
        ("AlAbama", "AlAbAmA", "AlAbAmA", "<ann>@x.org, bob@y.org", "")]
    assert _run(db, plans["replaced"], s=None, p="x", f=None)[0][3:] == (None, None)
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        _run(db, plans["replaced"], s="", p="x", f="z")  # not a flag of Gel's (Postgres') regular expressions
    assert "error[E0304]: re_replace() takes a pattern, a replacement, a string" in \
        _errors(SCHEMA, {"q": "select re_replace('a', 'b')"})
    assert "error[E0304]: re_replace() takes a pattern" in \
        _errors(SCHEMA, {"q": "select re_replace('a', 'b', 'c', mode := 'g')"})


def test_link_default_that_inserts_its_object(db, plans):
    assert plans["add_land"].sql.startswith('WITH "_nested1" AS (\nINSERT INTO "stock" ("label")\nVALUES (\'gold\')')
    _run(db, plans["add_land"], name="x")
    _run(db, plans["add_land"], name="y")
    (food,), = db.execute("INSERT INTO stock (label, amount) VALUES ('food', 3) RETURNING id")
    _run(db, plans["add_land_food"], name="z", food=food)
    assert _run(db, plans["lands"]) == [
        ("x", {"label": "gold", "amount": "0"}, {"label": "food", "amount": "3"}),
        ("y", {"label": "gold", "amount": "0"}, {"label": "food", "amount": "3"}),
        ("z", {"label": "gold", "amount": "0"}, {"label": "food", "amount": "3"}),
    ]
    # one stock per land and link: 3 gold, 3 food (z was given one, no other inserted)
    assert db.execute("SELECT label, count(*) FROM stock GROUP BY label ORDER BY label") == [("food", 3), ("gold", 3)]
    # on source delete delete target: the land's gold goes with it
    db.execute("DELETE FROM land WHERE name = 'y'")
    assert db.execute("SELECT count(*) FROM stock WHERE label = 'gold'") == [(2,)]


@pytest.mark.parametrize("query, message", [
    ("for n in array_unpack(<array<str>>$ns) union (insert Land { name := n })",
     "lib/q.edgeql:1:54: error[E0206]: the default of link 'gold' inserts an object: a 'for' loop's insert"),
    ("insert Land { name := 'a' } unless conflict",
     "lib/q.edgeql:1:8: error[E0206]: the default of link 'gold' inserts an object: an insert with 'unless conflict'"),
])
def test_link_insert_defaults_where_a_nested_insert_is_refused(query, message):
    assert message in _errors(SCHEMA, {"q": query})


@pytest.mark.parametrize("default, message", [
    ("(insert Team { name := 'x', rank := 1 })", "error[E0204]: the default of link 'gold' inserts Team, but the link"),
    ("(insert Stock { label := <str>$l })", "error[E0204]: a default cannot read parameters"),
    ("(insert Stock { amount := 1 })", "error[E0305]: insert of 'Stock' is missing required property 'label'"),
])
def test_bad_link_insert_defaults(default, message):
    assert message in _errors(SCHEMA.replace("(insert Stock { label := 'gold' })", default))


def test_tuple_element_of_subject_in_a_property_constraint(db):
    sql = compile_library(_sources(), Options(library="lib"))["sql/schema.sql"]
    # (Gel's and is {} when an operand is, and a check that is {} (NULL) passes, as in Gel)
    assert ('CHECK (CASE WHEN ((progress)."current" >= 0) IS NULL OR ((progress)."current" < (progress)."total") IS NULL'
            ' THEN NULL ELSE ((progress)."current" >= 0) AND ((progress)."current" < (progress)."total") END)') in sql
    (gold,), = db.execute("INSERT INTO stock (label) VALUES ('g') RETURNING id")
    db.execute("INSERT INTO land (name, gold_id, progress) VALUES ('p', %(g)s, ROW(1, 2)::tuple_current_integer_total_integer)", {"g": gold})
    with pytest.raises(psycopg.errors.CheckViolation):
        db.execute("UPDATE land SET progress = ROW(2, 2)::tuple_current_integer_total_integer")
    assert "error[E0304]: '.current' of a int64: only a tuple has elements here" in _errors(
        SCHEMA.replace("required rank: int64;", "required rank: int64 { constraint expression on (__subject__.current > 0); }"))


def test_coalesce_of_backlinks_is_a_single_computed_link(db, plans):
    _run(db, plans["add_land"], name="x")
    _run(db, plans["add_land"], name="y")
    db.execute("UPDATE stock SET amount = 4")
    db.execute("INSERT INTO stock (label, amount) VALUES ('loose', 1)")
    rows = _run(db, plans["stocks"])
    assert rows == [
        ("food", 4, "x", 8, {"name": "x"}, True), ("food", 4, "y", 4, {"name": "y"}, True),
        ("gold", 4, "x", 8, {"name": "x"}, True), ("gold", 4, "y", 4, {"name": "y"}, True),
        ("loose", 1, None, -1, None, False),
    ]
    # a stock that is a land's gold and another's food: the gold's land (the first operand holding any)
    (g,), = db.execute("SELECT gold_id FROM land WHERE name = 'x'")
    db.execute("UPDATE land SET food_id = %(g)s WHERE name = 'y'", {"g": g})
    db.execute("DELETE FROM stock WHERE label = 'food' AND id NOT IN (SELECT food_id FROM land)")
    assert [r[2] for r in _run(db, plans["stocks"]) if r[0] == "gold"] == ["x", "y"]
    land_name = next(f for f in plans["stocks"].result if f.name == "land_name")
    assert (land_name.type.name, land_name.optional) == ("str", True)


def test_coalesce_of_backlinks_through_a_link_that_is_not_exclusive_is_not_single():
    text = _errors(SCHEMA.replace("amount := 3 }); constraint exclusive; }", "amount := 3 }); }"))
    assert "error[E0204]: computed 'land' is declared single, but its expression may select more than one" in text


def test_with_module_inside_a_binding_and_an_expression(db, plans):
    db.execute("INSERT INTO inv_item (kind, qty) VALUES ('A', 2), ('A', 3), ('B', 10)")
    assert _run(db, plans["module_sel"]) == [(2, 5, 3)]
    # (Team is not in inv: found in default)
    assert _run(db, plans["module_expr"]) == [(3, 3)]
    assert "error[E0301]: unknown module 'nope'" in _errors(SCHEMA, {"q": "select (with module nope select 1)"})


def test_shape_on_a_path_after_a_backlink(db, plans):
    _run(db, plans["join_best"], name="p1", min=0)   # c
    _run(db, plans["join_best"], name="p2", min=0)   # c
    _run(db, plans["join_best"], name="p3", min=1)   # a
    _run(db, plans["coach_with"], name="p1", team="b")
    _run(db, plans["coach_with"], name="p2", team="b")
    _run(db, plans["coach_with"], name="p3", team="a")
    # the distinct coaches of each team's players (b once for c's two players)
    assert _run(db, plans["coaches"]) == [("a", [{"name": "a"}]), ("b", []), ("c", [{"name": "b"}])]


def test_type_check_of_the_selected_object(db, plans):
    db.execute("INSERT INTO ships_boat (size) VALUES (1); INSERT INTO ships_airship (size) VALUES (2); "
               "INSERT INTO ships_blimp (size) VALUES (3)")
    assert _run(db, plans["ships"]) == [(1, "Boat", True), (2, "Airship", False)]
    assert "error[E0301]: unknown type 'Nope'" in _errors(SCHEMA, {"q": "with module ships select Ship { b := Ship is Nope }"})
    # another operand than the selected object is still refused
    assert "type checks ('is Type') are not supported" in _errors(
        SCHEMA, {"q": "select Player { t := .team is Team }"})
