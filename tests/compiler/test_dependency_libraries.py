"""A library that depends on another: links to `<library>::Type`, its tables are left to the
other library, the foreign keys reference them, and both libraries' migrations apply in order."""

from __future__ import annotations

import pytest

from schemac.semantics.library import Options
from schemac.pipeline import compile_library
from schemac.diagnostics import CompileError

ACCOUNTS = {
    "schemas/accounts/schema.esdl": """
enum Plan { Free, Pro }
type User { required email: str { constraint exclusive; }; plan: Plan; multi friends: User; }
module billing { type Card { required last4: str; owner: default::User; } }
""",
}
SHOP = {
    "schemas/shop/schema.esdl": """
type Order {
  required buyer: accounts::User;
  card: accounts::billing::Card;
  required total: int64;
  plan: accounts::Plan;
}
""",
    "schemas/shop/queries/order_page.edgeql": "select Order { total, plan, buyer: { email } } filter .id = <uuid>$id",
    "schemas/shop/queries/place_order.edgeql":
        "insert Order { buyer := (select accounts::User filter .id = <uuid>$buyer), total := <int64>$total }",
}
EXTERNS = tuple((p, "accounts") for p in ACCOUNTS)


def _shop():
    return compile_library({**ACCOUNTS, **SHOP}, Options(library="shop", externs=EXTERNS))


def test_links_to_a_dependency_reference_its_tables_without_creating_them():
    out = _shop()
    up = out["sql/000001_init.up.sql"]
    assert 'CREATE TABLE "order"' in up
    assert 'REFERENCES "user" ("id")' in up and 'REFERENCES "billing_card" ("id")' in up
    assert 'CREATE TABLE "user"' not in up and "user_friends" not in up
    assert "CHECK (plan IN ('Free', 'Pro'))" in up
    assert "buyer" in out["ts/queries.ts"] and "AccountsPlan" in out["ts/models.ts"]


def test_unknown_dependency_type_is_a_located_error():
    bad = {**SHOP, "schemas/shop/schema.esdl": "type Order { required buyer: accounts::Usr; }"}
    with pytest.raises(CompileError) as e:
        compile_library({**ACCOUNTS, **bad}, Options(library="shop", externs=EXTERNS))
    text = e.value.render(bad)
    assert "schemas/shop/schema.esdl:1:30: error[E0201]" in text and "did you mean" in text


def test_table_names_must_not_collide_across_libraries():
    clash = {"schemas/shop/schema.esdl": "type User { required name: str; }\ntype Order { buyer: accounts::User; }"}
    with pytest.raises(CompileError) as e:
        compile_library({**ACCOUNTS, **clash}, Options(library="shop", externs=EXTERNS))
    assert any(d.code == "E0207" and "table 'user'" in d.message for d in e.value.diagnostics)


def test_both_libraries_apply_in_order_and_the_foreign_key_holds(pg):
    accounts = compile_library(ACCOUNTS, Options(library="accounts"))
    pg.execute(accounts["sql/000001_init.up.sql"])
    pg.execute(_shop()["sql/000001_init.up.sql"])
    uid = pg.execute("INSERT INTO \"user\" (email) VALUES ('a@b') RETURNING id")[0][0]
    pg.execute("INSERT INTO \"order\" (buyer_id, total) VALUES (%s, 10)", (uid,))
    import psycopg

    with pytest.raises(psycopg.errors.ForeignKeyViolation):
        pg.execute("INSERT INTO \"order\" (buyer_id, total) VALUES (gen_random_uuid(), 10)")
