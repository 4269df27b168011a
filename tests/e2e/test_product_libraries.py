"""The product libraries (schemas/blog, schemas/shop, schemas/saas) end to end on Postgres 15.

For each library: the committed migration (generated/<lib>/sql) is applied to a fresh
database, realistic data goes in through the library's own compiled queries (plans from
``check_library``, ``$n`` bound by psycopg), and every constraint the schema declares is made to
fire -- checked by SQLSTATE and constraint name. The down migration must leave an empty
schema. The generated TypeScript and Go are compiled (tsc --strict; gofmt, go vet, Go 1.21) and
run against the database for the type mappings the product libraries add over jobs (decimal,
bytes, arrays of enums, quoted enum members, optional links, typed errors)."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any, List

import psycopg
import pytest

from libraries import GENERATED, SCHEMAS, library_sources
from schemac.semantics.library import Options
from schemac.pipeline import check_library
from schemac.migrate.history import split_statements

HERE = Path(__file__).parent
LIBRARIES = ("blog", "shop", "saas")

UNIQUE = psycopg.errors.UniqueViolation  # 23505
CHECK = psycopg.errors.CheckViolation  # 23514
FOREIGN_KEY = psycopg.errors.ForeignKeyViolation  # 23503
NOT_NULL = psycopg.errors.NotNullViolation  # 23502
SQLSTATE = {UNIQUE: "23505", CHECK: "23514", FOREIGN_KEY: "23503", NOT_NULL: "23502"}


def migration(lib: str, direction: str) -> str:
    """Every migration file of the library's history, in the order they run, joined."""
    files = sorted((GENERATED / lib / "sql").glob(f"0*.{direction}.sql"))
    return "\n".join(f.read_text() for f in (files if direction == "up" else reversed(files)))


def run_migrations(pg, lib: str, direction: str) -> None:
    """Run the history up (or down) on ``pg``'s connection, one statement at a time as the
    runner does (a CREATE INDEX CONCURRENTLY file cannot be sent together with others)."""
    for stmt in split_statements(migration(lib, direction)):
        pg.execute(stmt)


class Library:
    """A migrated library on a test database; ``q.<query>(**params)`` runs a compiled query."""

    def __init__(self, pg, name: str):
        self.pg = pg
        self.name = name
        lib = check_library(library_sources(SCHEMAS / name), Options(library=name))
        assert lib.warnings == [], [str(w) for w in lib.warnings]
        self.plans = {q.name: q for q in lib.queries}
        run_migrations(pg, name, "up")

    def run(self, query: str, **params: Any) -> List[tuple]:
        """Run a compiled query with named parameters (omitted optional ones are NULL)."""
        plan = self.plans[query]
        names = [p.name for p in plan.params]
        unknown = set(params) - set(names)
        assert not unknown, f"{query} has no parameters {unknown}"
        missing = [p.name for p in plan.params if not p.optional and p.name not in params]
        assert not missing, f"{query} needs {missing}"
        sql = plan.sql
        if plan.variants:  # the statement the runners send: without the columns of omitted ones
            keys = plan.variants[-1].omitted
            v = plan.variants[sum(1 << i for i, k in enumerate(keys) if params.get(names[k - 1]) is None)]
            sql, names = v.sql, [names[k - 1] for k in v.sent]
        sql = re.sub(r"\$(\d+)", lambda m: f"%({names[int(m.group(1)) - 1]})s", sql)
        return self.pg.execute(sql, {n: params.get(n) for n in names})

    def one(self, query: str, **params: Any):
        """The id returned by a query that must return exactly one row."""
        rows = self.run(query, **params)
        assert len(rows) == 1, f"{query} returned {rows}"
        return rows[0][0]

    def refused(self, exc_type, query_or_sql: str, params: Any = None, **named: Any) -> str:
        """Run a query (by name, with ``named``) or raw SQL (with ``params``) that must violate
        a constraint of class ``exc_type``; returns the constraint's name."""
        with pytest.raises(exc_type) as exc:
            if query_or_sql in self.plans:
                self.run(query_or_sql, **named)
            else:
                self.pg.execute(query_or_sql, params)
        assert exc.value.sqlstate == SQLSTATE[exc_type]
        return exc.value.diag.constraint_name

    def count(self, table: str, where: str = "true", params: Any = None) -> int:
        return self.pg.execute(f'SELECT count(*) FROM "{table}" WHERE {where}', params)[0][0]


# ---------------------------------------------------------------------------------------------
# blog


def test_blog_queries_and_constraints(pg):
    b = Library(pg, "blog")
    assert b.plans["create_draft"].cardinality == "at_most_one"
    assert b.plans["archive_author_posts"].cardinality == "many"
    assert b.plans["change_handle"].cardinality == "at_most_one"  # email is exclusive

    ada = b.one("register_user", email="ada@example.com", handle="ada", display_name="Ada Lovelace",
                bio="Analyst.")
    bob = b.one("register_user", email="bob@example.com", handle="bob-smith", display_name="Bob")
    # The same e-mail again is absorbed by `unless conflict on .email`; a taken handle is not.
    assert b.run("register_user", email="ada@example.com", handle="ada2", display_name="Ada") == []
    assert b.refused(UNIQUE, "register_user", email="x@example.com", handle="ada",
                     display_name="X") == "uq_user_handle"
    # Slug is a custom scalar: its constraints land on every column of that type.
    assert b.refused(CHECK, "register_user", email="y@example.com", handle="Not A Slug",
                     display_name="Y") == "ck_user_handle_regexp"
    assert b.refused(CHECK, "register_user", email="z@example.com", handle="z" * 81,
                     display_name="Z") == "ck_user_handle_max_len_value"
    assert b.refused(CHECK, "register_user", email="e@example.com", handle="e",
                     display_name="") == "ck_user_display_name_min_len_value"
    assert b.pg.execute("SELECT is_admin, created_at <= updated_at FROM \"user\" WHERE id = %s", (ada,)) == [
        (False, True)]

    # Drafts: the slug is unique per author, not globally.
    post = b.one("create_draft", title="Notes on the Engine", slug="notes-on-the-engine", author_id=ada,
                 body="...", reading_minutes=7)
    assert b.run("create_draft", title="Again", slug="notes-on-the-engine", author_id=ada) == []
    bobs = b.one("create_draft", title="Notes", slug="notes-on-the-engine", author_id=bob)
    assert b.pg.execute("SELECT status, reading_minutes FROM post WHERE id = %s", (bobs,)) == [("Draft", 0)]
    assert b.refused(CHECK, "create_draft", title="t", slug="neg", author_id=ada,
                     reading_minutes=-1) == "ck_post_reading_minutes_min_value"
    assert b.refused(CHECK, "create_draft", title="", slug="empty", author_id=ada) == "ck_post_title_min_len_value"
    assert b.refused(FOREIGN_KEY, "create_draft", title="t", slug="orphan",
                     author_id="00000000-0000-0000-0000-000000000000") == "fk_post_author_id"

    # Only the author edits; publishing sets published_at; a published post is not re-published.
    assert b.run("edit_post", id=post, author_id=bob, title="Hijacked", reading_minutes=1) == []
    assert b.run("edit_post", id=post, author_id=ada, title="Notes on the Analytical Engine",
                 excerpt="On Babbage's engine.", reading_minutes=9) == [(post,)]
    assert b.run("publish_post", id=post) == [(post,)]
    assert b.run("publish_post", id=post) == []
    status, published = b.pg.execute("SELECT status, published_at FROM post WHERE id = %s", (post,))[0]
    assert status == "Published" and published is not None
    # The expression constraint: a published post always has a publication time.
    assert b.refused(CHECK, "UPDATE post SET published_at = NULL WHERE id = %s",
                     (post,)) == "ck_post_published_at_status_check"
    later = dt.datetime(2031, 1, 1, tzinfo=dt.timezone.utc)
    assert b.run("schedule_post", id=bobs, publish_at=later) == [(bobs,)]
    assert b.pg.execute("SELECT status, published_at FROM post WHERE id = %s", (bobs,)) == [("Scheduled", later)]
    assert b.refused(CHECK, "UPDATE post SET status = 'Deleted' WHERE id = %s", (bobs,)) == "ck_post_status_enum"

    # Tags and the link property `position` of the multi link Post.tags (a join table).
    engines = b.one("create_tag", name="Engines", slug="engines")
    assert b.run("create_tag", name="Engines!", slug="engines") == []
    history = b.one("create_tag", name="History", slug="history")
    b.pg.execute("INSERT INTO post_tags (source_id, target_id) VALUES (%s, %s)", (post, engines))
    b.pg.execute("INSERT INTO post_tags (source_id, target_id, position) VALUES (%s, %s, 1)", (post, history))
    assert b.pg.execute("SELECT position FROM post_tags ORDER BY position") == [(0,), (1,)]
    assert b.refused(UNIQUE, "INSERT INTO post_tags (source_id, target_id) VALUES (%s, %s)",
                     (post, engines)) == "post_tags_pkey"
    assert b.refused(CHECK, "UPDATE post_tags SET position = -1", None) == "ck_post_tags_position_min_value"
    b.pg.execute("DELETE FROM tag WHERE id = %s", (history,))  # on target delete allow: the link goes
    assert b.count("post_tags") == 1

    # Comments: anonymous ones have no author; moderation hides a user's visible comments.
    c1 = b.one("add_comment", post_id=post, author_id=bob, body="Great read.")
    b.one("add_comment", post_id=post, author_id=bob, body="Also: typo in para 2.")
    anon = b.one("add_comment", post_id=post, body="First!")
    assert b.refused(CHECK, "add_comment", post_id=post, body="") == "ck_comment_body_min_len_value"
    assert sorted(b.run("hide_comments_by_author", author_id=bob)) == sorted(
        b.pg.execute("SELECT id FROM comment WHERE author_id = %s", (bob,)))
    assert b.run("hide_comments_by_author", author_id=bob) == []  # already hidden
    assert b.pg.execute("SELECT is_hidden FROM comment WHERE id = %s", (anon,)) == [(False,)]

    # Handles change by e-mail (at most one row); a taken handle is refused.
    assert b.run("change_handle", email="bob@example.com", handle="bobby") == [(bob,)]
    assert b.run("change_handle", email="nobody@example.com", handle="nobody") == []
    assert b.refused(UNIQUE, "change_handle", email="bob@example.com", handle="ada") == "uq_user_handle"
    assert b.refused(CHECK, "UPDATE \"user\" SET email = %s WHERE id = %s", ("x" * 321, bob)) == "ck_user_email_max_len_value"

    # archive_author_posts touches every non-archived post of the author, once.
    assert b.run("archive_author_posts", author_id=ada) == [(post,)]
    assert b.run("archive_author_posts", author_id=ada) == []

    # Deleting a user: their posts go (delete source), and with them the posts' comments;
    # comments they wrote on others' posts stay, without an author (allow).
    other = b.one("create_draft", title="Bob's", slug="bobs", author_id=bob)
    on_bobs = b.one("add_comment", post_id=other, author_id=ada, body="Nice.")
    b.pg.execute('DELETE FROM "user" WHERE id = %s', (ada,))
    assert b.count("post", "author_id = %s", (ada,)) == 0
    assert b.count("comment", "id = %s", (c1,)) == 0  # on ada's post
    assert b.pg.execute("SELECT author_id FROM comment WHERE id = %s", (on_bobs,)) == [(None,)]
    assert b.count("post_tags") == 0


# ---------------------------------------------------------------------------------------------
# shop


def test_shop_queries_and_constraints(pg):
    s = Library(pg, "shop")
    assert s.plans["open_cart"].sql.endswith(
        "ON CONFLICT (\"customer_id\") WHERE (status = 'Cart') DO NOTHING\nRETURNING \"id\"")
    assert "ON CONFLICT (\"order_id\") WHERE ((status = 'Void') IS NOT TRUE) DO NOTHING" in s.plans["issue_invoice"].sql

    alice = s.one("register_customer", email="alice@example.com", name="Alice", marketing_opt_in=True)
    carol = s.one("register_customer", email="carol@example.com", name="Carol")
    assert s.run("register_customer", email="alice@example.com", name="Alice again") == []
    assert s.pg.execute("SELECT marketing_opt_in FROM customer ORDER BY email") == [(True,), (False,)]

    tee = s.one("add_product", sku="TSHIRT-XL", name="T-shirt XL", price=Decimal("19.90"), stock=3,
                categories=["apparel", "summer"])
    mug = s.one("add_product", sku="MUG01", name="Mug", price=Decimal("7.50"), currency="USD")
    assert s.run("add_product", sku="MUG01", name="Mug (dupe)", price=Decimal("1")) == []
    assert s.pg.execute("SELECT currency, stock, categories FROM product WHERE id = %s", (mug,)) == [
        ("USD", 0, None)]
    assert s.refused(CHECK, "add_product", sku="bad sku", name="x", price=Decimal("1")) == "ck_product_sku_regexp"
    assert s.refused(CHECK, "add_product", sku="NEG01", name="x", price=Decimal("-0.01")) == "ck_product_price_min_value"
    assert s.refused(CHECK, "add_product", sku="EUR01", name="x", price=Decimal("1"),
                     currency="euro") == "ck_product_currency_regexp"
    assert s.refused(CHECK, "add_product", sku="STK01", name="x", price=Decimal("1"),
                     stock=-1) == "ck_product_stock_min_value"

    # One open cart per customer (partial exclusive, the arbiter of open_cart).
    cart = s.one("open_cart", customer_id=alice)
    assert s.run("open_cart", customer_id=alice) == []
    assert s.refused(UNIQUE, "INSERT INTO \"order\" (customer_id) VALUES (%s)", (alice,)) == "uq_order_customer_id"
    assert s.one("add_line", order_id=cart, product_id=tee, quantity=2, unit_price=Decimal("19.90"))
    assert s.run("add_line", order_id=cart, product_id=tee, quantity=5, unit_price=Decimal("19.90")) == []
    assert s.refused(CHECK, "add_line", order_id=cart, product_id=mug, quantity=0,
                     unit_price=Decimal("7.50")) == "ck_order_line_quantity_min_value"
    assert s.refused(UNIQUE, "INSERT INTO order_line (order_id, product_id, quantity, unit_price) "
                     "VALUES (%s, %s, 1, 1)", (cart, tee)) == "uq_order_line_order_id_product_id"

    # Stock: reserving more than there is matches no row (no error); stock never goes negative.
    assert s.run("reserve_stock", product_id=tee, quantity=4) == []
    assert s.run("reserve_stock", product_id=tee, quantity=2) == [(tee,)]
    assert s.pg.execute("SELECT stock FROM product WHERE id = %s", (tee,)) == [(1,)]
    assert s.refused(CHECK, "UPDATE product SET stock = stock - 2 WHERE id = %s",
                     (tee,)) == "ck_product_stock_min_value"
    assert s.run("update_product_listing", sku="MUG01", price=Decimal("8.00"), categories=["kitchen"],
                 active=False) == [(mug,)]
    assert s.run("reserve_stock", product_id=mug, quantity=0) == []  # inactive
    assert s.pg.execute("SELECT price, categories FROM product WHERE id = %s", (mug,)) == [
        (Decimal("8.00"), ["kitchen"])]

    # Checkout: a placed order must have placed_at; a new cart can be opened after checkout.
    assert s.run("place_order", id=cart, shipping_address="1 Main St") == [(cart,)]
    assert s.run("place_order", id=cart, shipping_address="1 Main St") == []
    assert s.refused(CHECK, "UPDATE \"order\" SET placed_at = NULL WHERE id = %s",
                     (cart,)) == "ck_order_placed_at_status_check"
    assert s.refused(CHECK, "UPDATE \"order\" SET status = 'Lost' WHERE id = %s", (cart,)) == "ck_order_status_enum"
    cart2 = s.one("open_cart", customer_id=alice)
    assert cart2 != cart

    # Billing (module billing, links into module default): one live invoice per order.
    due = dt.datetime(2030, 6, 30, tzinfo=dt.timezone.utc)
    inv = s.one("issue_invoice", number="INV-2030-000001", order_id=cart, customer_id=alice,
                total=Decimal("39.80"), due_at=due)
    assert s.run("issue_invoice", number="INV-2030-000002", order_id=cart, customer_id=alice,
                 total=Decimal("39.80"), due_at=due) == []
    assert s.refused(UNIQUE, "issue_invoice", number="INV-2030-000001", order_id=cart2, customer_id=alice,
                     total=Decimal("1"), due_at=due) == "uq_billing_invoice_number"
    assert s.refused(CHECK, "issue_invoice", number="2030/1", order_id=cart2, customer_id=alice,
                     total=Decimal("1"), due_at=due) == "ck_billing_invoice_number_regexp"
    assert s.refused(CHECK, "issue_invoice", number="INV-2030-000003", order_id=cart2, customer_id=alice,
                     total=Decimal("1"), due_at=dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc),
                     ) == "ck_billing_invoice_due_at_issued_at_check"
    assert s.refused(CHECK, "issue_invoice", number="INV-2030-000003", order_id=cart2, customer_id=alice,
                     total=Decimal("-1"), due_at=due) == "ck_billing_invoice_total_min_value"
    # `except (.status = Void)`: voided invoices are exempt, so the order can be invoiced again.
    assert s.run("void_invoice", number="INV-2030-000001") == [(inv,)]
    inv2 = s.one("issue_invoice", number="INV-2030-000004", order_id=cart, customer_id=alice,
                 total=Decimal("39.80"), due_at=due)
    assert s.refused(UNIQUE, "UPDATE billing_invoice SET status = 'Issued' WHERE id = %s",
                     (inv,)) == "uq_billing_invoice_order_id"
    # NULL status is not exempt (Gel's `except` rule: (Q) IS NOT TRUE). status is required, so
    # the column refuses NULL before the index could.
    assert s.refused(NOT_NULL, "UPDATE billing_invoice SET status = NULL WHERE id = %s", (inv,)) is None

    # Payments: a webhook delivered twice books once; amounts are non-negative decimals.
    pay = s.one("record_payment", invoice_id=inv2, amount=Decimal("39.80"), method="Card", external_ref="ch_123")
    assert s.run("record_payment", invoice_id=inv2, amount=Decimal("39.80"), method="Card",
                 external_ref="ch_123") == []
    assert s.refused(CHECK, "record_payment", invoice_id=inv2, amount=Decimal("1"), method="Cash",
                     external_ref="ch_124") == "ck_billing_payment_method_enum"
    assert s.pg.execute("SELECT amount FROM billing_payment WHERE id = %s", (pay,)) == [(Decimal("39.80"),)]

    # on target delete: restrict keeps referenced rows; delete source removes an order's lines.
    assert s.refused(FOREIGN_KEY, "DELETE FROM product WHERE id = %s", (tee,)) == "fk_order_line_product_id"
    assert s.refused(FOREIGN_KEY, "DELETE FROM customer WHERE id = %s", (alice,)) in (
        "fk_order_customer_id", "fk_billing_invoice_customer_id")
    assert s.refused(FOREIGN_KEY, "DELETE FROM billing_invoice WHERE id = %s", (inv2,)) == "fk_billing_payment_invoice_id"
    assert s.refused(FOREIGN_KEY, "DELETE FROM \"order\" WHERE id = %s", (cart,)) == "fk_billing_invoice_order_id"
    s.one("add_line", order_id=cart2, product_id=mug, quantity=1, unit_price=Decimal("8.00"))
    s.pg.execute("DELETE FROM \"order\" WHERE id = %s", (cart2,))
    assert s.count("order_line", "order_id = %s", (cart2,)) == 0
    s.pg.execute("DELETE FROM customer WHERE id = %s", (carol,))  # nothing refers to carol


# ---------------------------------------------------------------------------------------------
# saas


def test_saas_queries_and_constraints(pg):
    t = Library(pg, "saas")
    acme = t.one("create_organization", name="Acme", slug="acme")
    globex = t.one("create_organization", name="Globex", slug="globex", plan="Enterprise", seat_limit=50)
    assert t.run("create_organization", name="Acme 2", slug="acme") == []
    assert t.pg.execute("SELECT plan, seat_limit FROM organization ORDER BY slug") == [("Free", None),
                                                                                   ("Enterprise", 50)]
    assert t.refused(CHECK, "create_organization", name="x", slug="No_Caps") == "ck_organization_slug_regexp"
    assert t.refused(CHECK, "create_organization", name="x", slug="xyz", plan="Gold") == "ck_organization_plan_enum"
    assert t.refused(CHECK, "create_organization", name="x", slug="xyz", seat_limit=0) == (
        "ck_organization_seat_limit_min_value")
    assert t.refused(CHECK, "create_organization", name="x" * 121, slug="xyz") == "ck_organization_name_max_len_value"

    ann = t.one("sign_up_user", email="ann@acme.test", name="Ann")
    ben = t.one("sign_up_user", email="ben@acme.test")
    assert t.run("sign_up_user", email="ann@acme.test") == []

    # Members: one membership per (org, user); role defaults to Member.
    m = t.one("add_member", org_id=acme, user_id=ann, role="Owner")
    mb = t.one("add_member", org_id=acme, user_id=ben, invited_by_id=ann)
    assert t.run("add_member", org_id=acme, user_id=ben, role="Admin") == []
    t.one("add_member", org_id=globex, user_id=ben, role="Viewer")
    assert t.pg.execute("SELECT role, invited_by_id FROM membership WHERE id = %s", (mb,)) == [("Member", ann)]
    assert t.run("change_member_role", org_id=acme, user_id=ben, role="Admin") == [(mb,)]
    assert t.refused(CHECK, "change_member_role", org_id=acme, user_id=ann, role="God") == "ck_membership_role_enum"
    assert t.refused(UNIQUE, "INSERT INTO membership (org_id, user_id) VALUES (%s, %s)",
                     (acme, ann)) == "uq_membership_org_id_user_id"

    # Projects: slug unique per org (the arbiter); live names unique per org (except archived).
    web = t.one("create_project", org_id=acme, name="Website", slug="website", labels=["frontend", "public"])
    assert t.run("create_project", org_id=acme, name="Website 2", slug="website", labels=[]) == []
    t.one("create_project", org_id=globex, name="Website", slug="website", labels=[])  # another tenant
    assert t.refused(UNIQUE, "create_project", org_id=acme, name="Website", slug="website-v2",
                     labels=[]) == "uq_project_org_id_name"
    assert t.run("archive_project", org_id=acme, slug="website") == [(web,)]
    assert t.run("archive_project", org_id=acme, slug="website") == []
    web2 = t.one("create_project", org_id=acme, name="Website", slug="website-v2", labels=["frontend"])
    assert t.run("relabel_project", id=web2, org_id=acme, labels=["frontend", "beta"]) == [(web2,)]
    assert t.run("relabel_project", id=web2, org_id=globex, labels=[]) == []  # other tenant's id
    assert t.pg.execute("SELECT labels FROM project WHERE id = %s", (web2,)) == [(["frontend", "beta"],)]
    # The gin index on the multi property answers containment queries.
    assert t.pg.execute("SELECT id FROM project WHERE labels @> ARRAY['beta']") == [(web2,)]
    assert t.refused(NOT_NULL, "UPDATE project SET labels = NULL WHERE id = %s", (web2,)) is None

    # API keys: prefix is exclusive; scopes are an array of a (quoted-member) enum.
    later = dt.datetime(2031, 1, 1, tzinfo=dt.timezone.utc)
    key = t.one("create_api_key", org_id=acme, prefix="sk_live_4f9a", secret_hash=b"\x00\x01\xfe\xff",
                label="CI", scopes=["projects:read", "projects:write"], created_by_id=ann, expires_at=later)
    assert t.refused(UNIQUE, "create_api_key", org_id=acme, prefix="sk_live_4f9a", secret_hash=b"x", label="dupe",
                     scopes=[]) == "uq_api_key_prefix"
    assert t.refused(CHECK, "create_api_key", org_id=acme, prefix="sk_live_0000", secret_hash=b"x", label="bad",
                     scopes=["projects:read", "root"]) == "ck_api_key_scopes_enum"
    assert t.pg.execute("SELECT secret_hash, scopes, expires_at FROM api_key WHERE id = %s", (key,)) == [
        (b"\x00\x01\xfe\xff", ["projects:read", "projects:write"], later)]
    assert t.run("revoke_api_key", prefix="sk_live_4f9a") == [(key,)]
    assert t.run("revoke_api_key", prefix="sk_live_4f9a") == []

    assert t.run("change_plan", slug="acme", plan="Team", seat_limit=10) == [(acme,)]
    assert t.refused(CHECK, "change_plan", slug="acme", plan="Team", seat_limit=-5) == (
        "ck_organization_seat_limit_min_value")

    # Deleting a user: memberships go (delete source), keys they created stay (allow).
    t.pg.execute('DELETE FROM "user" WHERE id = %s', (ann,))
    assert t.count("membership", "id = %s", (m,)) == 0
    assert t.pg.execute("SELECT created_by_id FROM api_key WHERE id = %s", (key,)) == [(None,)]
    assert t.pg.execute("SELECT invited_by_id FROM membership WHERE id = %s", (mb,)) == [(None,)]
    # Deleting a tenant deletes everything it owns, and nothing of other tenants.
    t.pg.execute("DELETE FROM organization WHERE id = %s", (acme,))
    for table in ("membership", "project", "api_key"):
        assert t.count(table, "org_id = %s", (acme,)) == 0
    assert t.count("project", "org_id = %s", (globex,)) == 1
    assert t.count("membership", "org_id = %s", (globex,)) == 1


def test_saas_annotations_become_comments(pg):
    Library(pg, "saas")
    assert pg.execute("SELECT obj_description('organization'::regclass, 'pg_class')") == [
        ("title: Tenant\ndescription: A customer account; every other object belongs to one.",)]
    assert pg.execute("SELECT obj_description('api_key'::regclass, 'pg_class')") == [
        ("A machine credential. Only a hash of the secret is stored.",)]
    assert pg.execute(
        "SELECT col_description('organization'::regclass, a.attnum) FROM pg_attribute a "
        "WHERE a.attrelid = 'organization'::regclass AND a.attname = 'slug'") == [
        ("Used in URLs: app.example.com/<slug>.",)]
    defs = dict(pg.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('project', 'api_key')"))
    gin = sorted(d.split(" ON ")[1] for n, d in defs.items() if "USING gin" in d)
    assert gin == ["public.api_key USING gin (scopes)", "public.project USING gin (labels)"]
    partial = [d for n, d in defs.items() if n.startswith("ix_api_key_expires_at_")]
    assert len(partial) == 1 and partial[0].endswith("WHERE (NOT (revoked_at IS NOT NULL))")


# ---------------------------------------------------------------------------------------------
# every library


@pytest.mark.parametrize("lib", LIBRARIES)
def test_down_migration_leaves_an_empty_schema(pg, lib):
    Library(pg, lib)
    assert pg.execute("SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace")[0][0] > 0
    run_migrations(pg, lib, "down")
    assert pg.execute("SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace") == []
    assert pg.execute("SELECT conname FROM pg_constraint WHERE connamespace = 'public'::regnamespace") == []
    run_migrations(pg, lib, "up")  # and up again


@pytest.mark.parametrize("lib", LIBRARIES)
def test_every_declared_constraint_exists_under_its_name(pg, lib):
    """The names the tests above expect are the names in the migration (no silent drops)."""
    Library(pg, lib)
    up = migration(lib, "up")
    declared = set()  # in history order: what a later file drops is no longer declared
    for m in re.finditer(r'(DROP )?(?:CONSTRAINT|INDEX(?: CONCURRENTLY)?)(?: IF (?:NOT )?EXISTS)? "([a-z0-9_]+)"', up):
        (declared.discard if m.group(1) else declared.add)(m.group(2))
    in_db = {r[0] for r in pg.execute("SELECT conname FROM pg_constraint WHERE connamespace = 'public'::regnamespace")}
    in_db |= {r[0] for r in pg.execute("SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")}
    assert declared <= in_db, declared - in_db


# ---------------------------------------------------------------------------------------------
# generated TypeScript and Go


def migrate_each_into_its_own_schema(pg) -> None:
    """Apply every library's up migration in a Postgres schema named after it (blog and saas
    both have a table "user"), as the TS and Go programs expect."""
    for lib in LIBRARIES:
        pg.execute(f"CREATE SCHEMA {lib}")
        pg.execute(f"SET search_path TO {lib}")
        run_migrations(pg, lib, "up")
    pg.execute("RESET search_path")


@pytest.mark.slow
def test_typescript_of_the_product_libraries(pg, tsc_run, tmp_path):
    """All three runners compile together under tsc --strict; a program runs queries of each
    through node-postgres: decimals as strings, bytes, arrays of quoted enum members, dates,
    null for absorbed conflicts, typed errors (tests/e2e/product_ts/main.ts)."""
    migrate_each_into_its_own_schema(pg)
    src = tmp_path / "src"
    for lib in LIBRARIES:
        shutil.copytree(GENERATED / lib / "ts", src / lib)
    shutil.copy(HERE / "product_ts" / "main.ts", src / "main.ts")
    result = tsc_run(src, "main.ts")
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"blog": True, "shop": True, "saas": True}


@pytest.mark.slow
def test_go_of_the_product_libraries(pg, go_run, tmp_path):
    """The three Go packages are gofmt-clean, vet-clean and build with Go 1.21; a go test
    (tests/e2e/product_go) runs queries of each through pgx with both toolchains."""
    migrate_each_into_its_own_schema(pg)
    mod = tmp_path / "mod"
    for lib in LIBRARIES:
        shutil.copytree(GENERATED / lib / "go", mod / lib)
    shutil.copytree(HERE / "product_go", mod, dirs_exist_ok=True)
    result = go_run(mod, test_args=("-count=1", "-v"), go121_test=True)
    for name in ("TestBlog", "TestShop", "TestSaas"):
        assert f"--- PASS: {name}" in result.test.stdout
        assert f"--- PASS: {name}" in result.steps["go121-test"].stdout
