"""Semantic checks of the schema language: each refusal is a located diagnostic with a stable
code, and several are reported in one run."""

from __future__ import annotations

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import check_library, compile_library
from schemac.diagnostics import CompileError


def diagnose(schema: str, **queries: str):
    sources = {"s.esdl": schema, **{f"q/{k}.edgeql": v for k, v in queries.items()}}
    with pytest.raises(CompileError) as exc:
        check_library(sources, Options(library="t"))
    return exc.value, exc.value.render(sources)


def codes(err):
    return [d.code for d in err.diagnostics if d.severity == "error"]


def test_inheritance_cycle():
    err, text = diagnose("abstract type A extending B { a: str; }\nabstract type B extending A { b: str; }\n"
                         "type C extending A {}\n")
    assert "E0210" in codes(err)
    assert "inheritance cycle: A -> B -> A" in text or "inheritance cycle: B -> A -> B" in text


def test_unknown_base_and_unknown_module():
    err, text = diagnose("type A extending Bsae { a: str; }\nabstract type Base {}\ntype C { x: nomod::T; }\n")
    assert "s.esdl:1:18: error[E0201]: unknown base type 'Bsae'" in text
    assert "did you mean 'Base'?" in text
    assert "error[E0208]: unknown module 'nomod'" in text


def test_overloaded_rules():
    err, text = diagnose(
        "abstract type Base { required name: str; }\n"
        "type A extending Base { name: str; }\n"                       # redefinition without overloaded
        "type B extending Base { overloaded name: int32; }\n"          # overload changes the type
        "type C { overloaded title: str; }\n"                          # nothing to overload
    )
    assert "s.esdl:2:25: error[E0200]: 'name' is already defined in base type 'Base'" in text
    assert "mark it 'overloaded'" in text
    assert "overloaded 'name' changes its type from str to int32" in text
    assert "error[E0211]: 'title' is marked overloaded but no base of 'C' defines it" in text


def test_diamond_inheritance_is_fine_and_overload_refines():
    out = compile_library({"s.esdl": (
        "abstract type Base { required name: str; }\n"
        "abstract type L extending Base { l: str; }\nabstract type R extending Base { r: str; }\n"
        "type D extending L, R { overloaded name: str { default := 'x'; constraint max_len_value(5) }; }\n")},
        Options("t"))
    up = out["sql/000001_init.up.sql"]
    assert up.count('"name" text NOT NULL DEFAULT \'x\'') == 1
    assert '"l" text' in up and '"r" text' in up
    assert 'CONSTRAINT "ck_d_name_max_len_value" CHECK (char_length(name) <= 5)' in up


def test_link_to_abstract_type():
    err, text = diagnose("abstract type Animal { name: str; }\ntype Zoo { star: Animal; }\n")
    assert "error[E0212]: link 'star' points to abstract type 'Animal', which has no concrete subtype" in text
    # several: a polymorphic link, one FK column per concrete subtype (tests/migrations/test_gel_poly_links.py)
    out = compile_library({"s.esdl": "abstract type Animal { name: str; }\ntype Cat extending Animal {}\n"
                                     "type Dog extending Animal {}\ntype Zoo { star: Animal; }\n"}, Options("t"))
    assert 'REFERENCES "cat" ("id")' in out["sql/000001_init.up.sql"]
    assert 'REFERENCES "dog" ("id")' in out["sql/000001_init.up.sql"]
    # exactly one concrete subtype: the link targets it
    out = compile_library({"s.esdl": "abstract type Animal { name: str; }\ntype Cat extending Animal {}\n"
                                     "type Zoo { star: Animal; }\n"}, Options("t"))
    assert 'REFERENCES "cat" ("id")' in out["sql/000001_init.up.sql"]


def test_link_rules():
    err, text = diagnose("type U { a: str; }\n"
                         "type P { required owner: U { on target delete allow }; "
                         "link name -> str; }\n")
    assert "link 'name' must point to an object type, not str" in text
    assert [d.code for d in err.diagnostics] == ["E0201"]
    # 'allow' on a required link: Gel refuses to delete a target it still points to (gel#8417)
    out = compile_library({"s.esdl": "type U { a: str; }\ntype P { required owner: U { on target delete allow }; }\n"},
                          Options("t"))
    assert 'FOREIGN KEY ("owner_id")\n  REFERENCES "u" ("id") ON DELETE RESTRICT;' in out["sql/000001_init.up.sql"]


def test_exclusive_and_value_constraint_rules():
    err, text = diagnose(
        "type T {\n  a: str { constraint min_value('x'); constraint max_len_value('5'); };\n"
        "  n: int32 { constraint regexp('x'); };\n"
        "  constraint exclusive on (.a, .missing);\n"
        "  constraint exclusive on (.a) filter .n;\n"
        "  constraint exclusive on (.a) except (.n < 0) filter .n > 1;\n"
        "  constraint max_value(3);\n}\n")
    msgs = text
    assert "max_len_value needs a int64 argument, got str" in msgs
    assert "regexp applies to str properties, not int32" in msgs
    assert "type 'T' has no property 'missing'" in msgs
    assert "a constraint filter must be bool, got int32" in msgs
    assert "use either 'filter' or 'except', not both" in msgs
    assert "constraint 'max_value' on a type needs to be on a property" in msgs
    assert len(codes(err)) >= 6


def test_readonly_property_cannot_be_updated():
    schema = "type K { required token: str { readonly := true }; note: str; }\n"
    err, text = diagnose(schema, rotate="update K filter .id = <uuid>$id set { token := $t };")
    assert "q/rotate.edgeql:1:39: error[E0310]: 'token' is readonly and cannot be updated" in text
    # insert may set it
    check_library({"s.esdl": schema, "q/mk.edgeql": "insert K { token := $t };"}, Options("t"))


def test_link_values_in_queries():
    schema = "type U { name: str; }\ntype P { required owner: U; multi fans: U; }\n"
    err, text = diagnose(schema, a="insert P { owner := $owner };",
                         b="insert P { owner := (select P filter .id = $x) };",
                         c="insert P { owner := (select U filter .id = $o), fans := <uuid>$f };")
    assert "the value of link 'owner' must be (select U filter ...)" in text
    assert "'owner' links to U, not P" in text
    assert "the value of multi link 'fans' must be (select U filter .id in array_unpack(<array<uuid>>$ids))" in text


def test_unsupported_gel_features_are_named_and_located():
    schema = ("module default {\n"
              "  global current_user: uuid;\n"
              "  type U {\n    name: str;\n"
              "    access policy self allow all using (.id = global current_user);\n"
              "    trigger log after insert for each do (insert Log { x := __new__.name });\n"
              "    multi link posts := .<owner[is U];\n"
              "    name_upper := str_upper(.name);\n"
              "  }\n"
              "  alias UA := U { n := .name };\n"
              "  function f(x: int64) -> int64 using (x + 1);\n"
              "  abstract constraint positive extending max_value { errmessage := 'x' };\n"
              "}\n")
    err, text = diagnose(schema)
    lines = {d.span.line: d.message for d in err.diagnostics}
    # (triggers, aliases and functions are lowered: the trigger's insert names an unknown type)
    assert lines == {
        6: "unknown type 'Log'",
        7: "type 'U' has no link 'owner' to 'U'",
        12: "abstract constraint definitions are not supported yet",
    }
    assert set(codes(err)) == {"E0206", "E0202", "E0201"}


def test_using_future_is_a_warning_only():
    warnings = []
    compile_library({"s.esdl": "using future simple_scoping;\ntype T { a: str; }\n"}, Options("t"), warnings)
    assert [(w.code, w.severity, w.span.line) for w in warnings] == [("W0001", "warning", 1)]


def test_exclusive_on_abstract_type_holds_across_tables_or_warns_it_is_per_table():
    # a plain exclusive holds across the subtypes' tables (issue 25: tests/compiler/test_wrong_results_25.py)
    warnings = []
    compile_library({"s.esdl": "abstract type Named { required name: str { constraint exclusive; }; }\n"
                               "type A extending Named {}\ntype B extending Named {}\n"}, Options("t"), warnings)
    assert warnings == []
    # a partial one stays per table, and says so
    compile_library({"s.esdl": "abstract type Named { required name: str; n: int64;\n"
                               "  constraint exclusive on (.name) filter .n > 0; }\n"
                               "type A extending Named {}\ntype B extending Named {}\n"}, Options("t"), warnings)
    assert [w.code for w in warnings] == ["W0002"]
    assert "enforced per table (A, B)" in warnings[0].message


def test_name_collisions_after_snake_casing():
    err, text = diagnose("type UserAccount { a: str; }\ntype User_account { b: str; }\n")
    assert "E0207" in codes(err) and "both map to table 'user_account'" in text
    err, text = diagnose("type T { a_b: str; a: str; b: str; constraint exclusive on (.a_b); "
                         "link a -> T; a_id: str; }\n")
    assert "E0200" in codes(err) or "E0207" in codes(err)


def test_enum_member_checks():
    err, text = diagnose("scalar type S extending enum<A, 'A', ''>;\ntype T { s: S { default := S.B }; }\n")
    assert "enum 'S' lists 'A' twice" in text
    assert "enum members cannot be empty" in text
    assert "enum 'S' has no member 'B'" in text


@pytest.mark.parametrize("query,expected", [
    ("# doc\nwith t := 1 select t;", "q/q.edgeql:2:20: error[E0206]: selecting a value ('t') is not supported yet"),
    ("with p := (insert K { token := 'a' }) update K filter .note = p set { note := 'x' };",
     "error[E0206]: 'p' is an insert of 'K': using a bound statement as a value is not supported yet"),
    ("with u := (update K filter .id = <uuid>$id set { note := $n }) select u { note, @w };",
     "error[E0304]: '@w' is a link property: it can only be selected inside the shape of a link"),
    ("select K { token, note: { token } };", "error[E0304]: 'note' is not a link: it takes no shape"),
    ("for x in {<str>$a} union (insert K { token := x });",
     "error[E0206]: a for loop iterates over array_unpack(<array<T>>$param), json_array_unpack(<json>$param) "
     "or json_object_unpack(<json>$param) "
     "only"),
    ("for x in array_unpack(<array<str>>$xs) union (insert K { token := y });", "error[E0302]: unknown name 'y'"),
    ("for x in array_unpack(<array<str>>$xs) union (for y in array_unpack(<array<str>>$ys) union "
     "(insert K { token := y }));",
     "error[E0206]: a 'for' loop whose body is another 'for' is not supported yet"),
    ("for x in array_unpack(<array<str>>$xs) union ({ a := x });",
     "error[E0206]: a 'for' loop whose body is a free object ('{ a := ... }') is not supported yet"),
    ("with items := json_array_unpack(<json>$items) select count(items);",
     "q/q.edgeql:1:15: error[E0206]: a 'with' name bound to json_array_unpack(...), a set of JSON values, is not "
     "supported yet"),
    ("group K by (.note, .token);", "q/q.edgeql:1:12: error[E0206]: grouping sets ('{a, b}', '(a, b)', cube(), "
     "rollup()) are not supported yet"),
    ("insert K { token := $t } unless conflict else (select K);",
     "error[E0306]: an upsert needs 'unless conflict on (...)' to name its arbiter"),
    # ('detached T' compiles; of anything but a type name it is named at the word)
    ("select K { n := count(detached .note) };",
     "q/q.edgeql:1:23: error[E0206]: 'detached' of anything but a type name is not supported yet"),
])
def test_query_forms_not_supported_yet_are_named(query, expected):
    err, text = diagnose("type K { required token: str { constraint exclusive; }; note: str; }\n", q=query)
    assert expected in text


def test_a_multi_link_value_that_is_a_for_loop_is_named():
    # Valid Gel (https://docs.geldata.com/reference/edgeql/for), not lowered yet: E0206 naming the
    # form, not an error of the query (E0304).
    # (a loop of plain selects is the selection of their objects, and in an insert a loop setting
    # link properties compiles: tests/compiler/test_for_link_rows.py)
    err, text = diagnose("type Tag { required n: int32; }\ntype K { required token: str; multi tags: Tag { w: int64; }; }\n",
                         q="update K filter .token = 'a' set { tags += (for p in enumerate(array_unpack(<array<int32>>$ns)) "
                           "union (select Tag { @w := p.0 } filter .n = p.1)) };")
    assert "q/q.edgeql:1:44: error[E0206]: a multi link's value that is a 'for' loop is not supported yet" in text
    assert "E0304" not in text


def test_select_and_delete_shapes_and_cardinality():
    schema = ("type U { name: str; }\n"
              "type K { required token: str { constraint exclusive; }; note: str; owner: U; n: int32; }\n")
    lib = check_library({"s.esdl": schema,
                         "q/one.edgeql": "select K { token, owner: { id } } filter .token = $t;",
                         "q/first.edgeql": "select K order by .n desc empty first limit 1;",
                         "q/many.edgeql": "select K { note } filter .n > $min order by .note then .n desc;",
                         "q/gone.edgeql": "delete K filter .id = <uuid>$id;"}, Options("t"))
    plans = {q.name: q for q in lib.queries}
    assert [(f.name, f.optional) for f in plans["one"].result] == [("token", False), ("owner_id", True)]
    assert plans["one"].cardinality == "at_most_one"
    assert plans["first"].cardinality == "at_most_one" and [f.name for f in plans["first"].result] == ["id"]
    assert "ORDER BY n DESC NULLS FIRST" in plans["first"].sql
    assert plans["many"].cardinality == "many"
    assert "ORDER BY note ASC NULLS FIRST, n DESC NULLS LAST" in plans["many"].sql
    assert plans["gone"].sql == 'DELETE FROM "k"\nWHERE id = $1\nRETURNING "id"'
    assert plans["gone"].cardinality == "at_most_one"
    err, text = diagnose(schema, a="select K { nope };", b="select K limit .n;", c="select K order by .owner.nome;")
    assert "type 'K' has no property 'nope'" in text
    assert "limit needs an integer value" in text
    assert "type 'U' has no property 'nome'" in text and "hint: did you mean 'name'?" in text


def test_detached_as_a_member_name_is_not_taken_for_the_operator():
    err, text = diagnose("type K { detached str; }\n")
    assert "s.esdl:1:19: error[E0100]: unexpected 'str'" in text and "detached' is not supported" not in text
    check_library({"s.esdl": "type K { detached: str; }\n",
                   "q/q.edgeql": "select K { detached } filter .detached = 'a';"}, Options("t"))


def test_multi_link_in_an_upsert_compiles_and_schema_errors_hide_query_noise():
    schema = "type Tag { name: str; }\ntype Note { required title: str { constraint exclusive; }; multi tags: Tag; }\n"
    # (tests/compiler/test_upsert_multi_links.py runs it)
    check_library({"s.esdl": schema, "q/q.edgeql": "insert Note { title := <str>$t, tags := (select Tag filter .id in "
                   "array_unpack(<array<uuid>>$ids)) } unless conflict on .title else (select Note);"}, Options(library="t"))
    err, text = diagnose("type Note { body: strng; }\n", q="select Note { body };")
    assert [d.code for d in err.diagnostics] == ["E0201"]  # no knock-on error from the query


def test_global_errors_are_located():
    schema = ("global uid: uuid;\n"
              "global a := global b;\n"
              "global b := global a;\n"
              "global anyone := (select U filter .name = 'x');\n"
              "global owner: U;\n"
              "global n: int64 { default := 'x' };\n"
              "multi global ids := {1};\n"
              "type U { name: str; tag: uuid { default := global uid }; constraint expression on (.tag != global uid); }\n")
    err, text = diagnose(schema)
    found = {(d.span.line, d.code) for d in err.diagnostics}
    assert found == {(2, "E0210"), (3, "E0210"), (4, "E0205"), (5, "E0206"), (6, "E0204"), (7, "E0206"),
                     (8, "E0206")}
    assert "computed global cycle: a -> b -> a" in text
    assert "may hold several 'U' objects" in text
    assert "store the object's id: global owner_id: uuid" in text
    assert "globals cannot be read in a constraint" in text


def test_unknown_global_in_a_query():
    err, text = diagnose("global user_id: uuid;\ntype U { name: str; }\n",
                         a="select U { name } filter .id = global usr_id;")
    assert codes(err) == ["E0302"]
    assert "unknown global 'usr_id'" in text and "did you mean 'user_id'" in text


def test_computed_errors_are_located():
    schema = ("type U {\n"
              "  a := .b ++ 'x';\n"
              "  b := .a;\n"
              "  c := .name ++ $p;\n"
              "  name: str;\n"
              "  property posts := .<author[is P];\n"
              "  multi link nope := .<author[is U];\n"
              "}\n"
              "type P { author: U; editor: U; editor := 1; }\n"
              "type Q { author: U; }\n"
              "type R { multi link any := .<author; link many_u := (select U filter .name = 'x'); name := 1; }\n")
    err, text = diagnose(schema)
    found = sorted((d.span.line, d.code) for d in err.diagnostics)
    assert found == [(3, "E0210"), (4, "E0206"), (6, "E0201"), (7, "E0202"), (9, "E0200"), (11, "E0202")]
    assert "computed 'a' reads itself" in text
    assert "a computed cannot read query parameters" in text
    assert "computed property 'posts' selects objects: declare it a link" in text
    assert "type 'U' has no link 'author' to 'U'" in text
    assert "computed 'editor' has the name of a stored property or link" in text
    assert "no type has a link 'author' to 'R'" in text


def test_computeds_in_queries_are_checked():
    schema = ("type U { required name: str; multi link posts := .<author[is P]; shout := str_upper(.name); }\n"
              "type P { required title: str; author: U; }\n")
    err, text = diagnose(schema,
                         a="update U filter .id = <uuid>$id set { shout := 'x' };",
                         c="select U { name } filter .posts = <uuid>$x;",
                         d="select U { shout: { id } };",
                         e="select U { name } filter .<author;")
    assert "'shout' is computed and cannot be assigned" in text
    assert "'posts' is a computed link (a set of P objects)" in text
    assert "'shout' is a computed property: it takes no shape" in text
    assert "'.<author' is a set of objects" in text


def test_access_policy_errors_are_located():
    schema = ("global uid: uuid;\n"
              "type U {\n"
              "  required name: str { constraint exclusive; };\n"
              "  access policy p allow all using (.name = $n);\n"
              "  access policy q allow select using (.name);\n"
              "  access policy r allow select;\n"
              "  access policy r deny delete;\n"
              "}\n")
    err, text = diagnose(schema)
    assert sorted((d.span.line, d.code) for d in err.diagnostics) == [(4, "E0206"), (5, "E0304"), (7, "E0200")]
    assert "an access policy cannot read query parameters" in text
    assert "an access policy condition must be bool, got str" in text


def test_writes_that_policies_check_carry_the_check_in_their_returning():
    """A write of a type with policies that the query may not read to its end (bound in `with`,
    selected with a nested shape) and an upsert check their rows in their own RETURNING: a
    data-modifying CTE runs to its end whether or not it is read (tests/e2e/test_query_links_e2e.py
    runs them). An upsert checks a row it inserted (xmax = 0) as an insert, one it updated as an
    update, and updates only an existing row the update policies let it see."""
    schema = ("global uid: uuid;\n"
              "type O { required name: str; }\n"
              "type U { required name: str { constraint exclusive; }; owner: O;\n"
              "  access policy p allow all using (.id ?= global uid); }\n")
    queries = {
        "upsert": "insert U { name := <str>$n } unless conflict on (.name) else (update U set { name := 'x' });",
        "bound": "with u := (insert U { name := <str>$n }) select u { name };",
        "nested": "select (insert U { name := <str>$n }) { owner: { name } };",
    }
    sources = {"s/schema.esdl": schema}
    sources.update({f"s/queries/{k}.edgeql": v for k, v in queries.items()})
    sql = {q.name: q.sql for q in check_library(sources, Options(library="t")).queries}
    for name in queries:
        assert 'AS "_allowed"' in sql[name], sql[name]
        assert "schemac_raise('SCP01', " in sql[name] and "'type', 'default::U', 'action', 'insert'" in sql[name]
    assert '"u".xmax = 0' in sql["upsert"] and "'type', 'default::U', 'action', 'update'" in sql["upsert"]
    assert 'DO UPDATE\nSET "name" = \'x\'\nWHERE' in sql["upsert"]
    assert '"_with_u" AS (\nINSERT INTO "u" ("name")\nVALUES ($1)\nRETURNING *, (CASE' in sql["bound"]


def test_a_refused_auth_declaration_does_not_cascade():
    """A refused ext::auth name (the service's token global, a configuration type) is reported
    once; the global that reads it, the link default that reads the global and the policy that
    reads both report nothing more. (ext::auth::Identity and ClientTokenIdentity compile:
    test_gel_extensions.)"""
    schema = ("using extension auth;\n"
              "module default {\n"
              "  global currentUser := (select User filter .identity = global ext::auth::client_token);\n"
              "  type User { required identity: ext::auth::AuthConfig; name: str; }\n"
              "  type Item { required owner: User { default := global currentUser; };\n"
              "    access policy own allow all using (.owner ?= global currentUser); }\n"
              "}\n")
    err, text = diagnose(schema)
    errors = [(d.span.line, d.code) for d in err.diagnostics if d.severity == "error"]
    assert errors == [(3, "E0206"), (4, "E0206")], text
    assert "belongs to the service of Gel's 'auth' extension" in text
