// End-to-end program for the generated TypeScript runners of schemas/blog, schemas/shop and
// schemas/saas (see test_product_libraries.py). Each library lives in its own Postgres schema
// of the database in $DATABASE_URL (search_path set per pool). Prints one JSON object of
// observations; a failed expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as blog from "./blog/index.js";
import * as saas from "./saas/index.js";
import * as shop from "./shop/index.js";

function pool(schema: string): pg.Pool {
  return new pg.Pool({ connectionString: process.env["DATABASE_URL"], options: `-c search_path=${schema}` });
}

const pools = { blog: pool("blog"), shop: pool("shop"), saas: pool("saas") };
const b = blog.createRunner(pools.blog);
const s = shop.createRunner(pools.shop);
const t = saas.createRunner(pools.saas);
const out: Record<string, unknown> = {};

// Type-level checks: never called, but must compile (or fail to compile where marked).
export function typeChecks(): void {
  // @ts-expect-error not a member of PublicationStatus
  const wrong: blog.PublicationStatus = "Deleted";
  // @ts-expect-error a decimal is passed as a string, never as a lossy number
  void s.query.addProduct({ sku: "A", name: "a", price: 19.9 });
  // @ts-expect-error scopes are ApiScope members
  void t.query.createApiKey({ org_id: "", prefix: "", secret_hash: new Uint8Array(), label: "", scopes: ["root"] });
  const scope: saas.ApiScope = saas.ApiScope["projects:read"];
  const method: shop.BillingPaymentMethod = shop.BillingPaymentMethod.BankTransfer;
  void wrong;
  void scope;
  void method;
}

// blog: optional arguments may be omitted; at-most-one queries resolve to null.
const ada = await b.query.registerUser({ email: "ada@example.com", handle: "ada", display_name: "Ada" });
assert.ok(ada !== null);
assert.equal(await b.query.registerUser({ email: "ada@example.com", handle: "ada2", display_name: "A" }), null);
const post = await b.query.createDraft({ title: "Engines", slug: "engines", author_id: ada.id, reading_minutes: 4 });
assert.ok(post !== null);
const when = new Date("2031-01-01T09:30:00Z");
assert.deepEqual(await b.query.schedulePost({ id: post.id, publish_at: when }), { id: post.id });
const scheduled = await pools.blog.query("SELECT status, published_at FROM post WHERE id = $1", [post.id]);
assert.equal(scheduled.rows[0].status, blog.PublicationStatus.Scheduled);
assert.equal((scheduled.rows[0].published_at as Date).toISOString(), when.toISOString());
try {
  await b.query.registerUser({ email: "eve@example.com", handle: "ada", display_name: "Eve" });
  assert.fail("a taken handle must throw");
} catch (err) {
  assert.ok(err instanceof blog.UqUserHandleError, `typed error, got ${String(err)}`);
  assert.equal(err.constraint, "uq_user_handle");
}
const feed = await b.query.authorFeed({ author_id: ada.id, take: 10 });
assert.equal(feed.length, 1);
assert.deepEqual(feed[0]?.author, { handle: "ada", display_name: "Ada" });
assert.deepEqual(feed[0]?.tags, []);
assert.equal(feed[0]?.published_at?.toISOString(), when.toISOString());
const comment = await b.query.addComment({ post_id: post.id, body: "Anonymous" });
assert.match(comment.id, /^[0-9a-f-]{36}$/);
out["blog"] = true;

// shop: decimals round-trip as exact strings; enums of module billing; a typed error.
const alice = await s.query.registerCustomer({ email: "alice@example.com", name: "Alice" });
assert.ok(alice !== null);
const tee = await s.query.addProduct({ sku: "TSHIRT-XL", name: "T-shirt", price: "19.90", stock: 3,
  categories: ["apparel"] });
assert.ok(tee !== null);
const price = await pools.shop.query("SELECT price::text AS p, categories FROM product WHERE id = $1", [tee.id]);
assert.deepEqual(price.rows[0], { p: "19.90", categories: ["apparel"] });
const cart = await s.query.openCart({ customer_id: alice.id });
assert.ok(cart !== null);
assert.equal(await s.query.openCart({ customer_id: alice.id }), null, "one open cart per customer");
assert.ok(await s.query.addLine({ order_id: cart.id, product_id: tee.id, quantity: 2, unit_price: "19.90" }));
assert.ok(await s.query.placeOrder({ id: cart.id, shipping_address: "1 Main St" }));
const due = new Date("2030-06-30T00:00:00Z");
const inv = await s.query.issueInvoice({ number: "INV-2030-000001", order_id: cart.id, customer_id: alice.id,
  total: "39.80", due_at: due });
assert.ok(inv !== null);
const cart2 = await s.query.openCart({ customer_id: alice.id });
assert.ok(cart2 !== null);
try {
  await s.query.issueInvoice({ number: "INV-2030-000001", order_id: cart2.id, customer_id: alice.id,
    total: "1", due_at: due });
  assert.fail("a duplicate invoice number must throw");
} catch (err) {
  assert.ok(err instanceof shop.UqBillingInvoiceNumberError, `typed error, got ${String(err)}`);
}
const pay = await s.query.recordPayment({ invoice_id: inv.id, amount: "39.80", method: shop.BillingPaymentMethod.Card,
  external_ref: "ch_1" });
assert.ok(pay !== null);
assert.equal(await s.query.recordPayment({ invoice_id: inv.id, amount: "39.80", method: "Card",
  external_ref: "ch_1" }), null);
out["shop"] = true;

// saas: bytes from a Uint8Array, an array of quoted enum members, an optional Date, an optional link.
const acme = await t.query.createOrganization({ name: "Acme", slug: "acme", plan: saas.Plan.Team });
const ann = await t.query.signUpUser({ email: "ann@acme.test" });
assert.ok(acme !== null && ann !== null);
const key = await t.query.createApiKey({
  org_id: acme.id, prefix: "sk_live_1", secret_hash: new Uint8Array([0, 1, 254, 255]), label: "CI",
  scopes: [saas.ApiScope["projects:read"], "billing"], created_by_id: ann.id, expires_at: null,
});
const stored = await pools.saas.query("SELECT encode(secret_hash, 'hex') AS h, scopes, expires_at FROM api_key WHERE id = $1",
  [key.id]);
assert.deepEqual(stored.rows[0], { h: "0001feff", scopes: ["projects:read", "billing"], expires_at: null });
const member = await t.query.addMember({ org_id: acme.id, user_id: ann.id });
assert.ok(member !== null);
const changed = await t.query.changeMemberRole({ org_id: acme.id, user_id: ann.id, role: saas.MemberRole.Owner });
assert.ok(changed !== null, "(org, user) is exclusive: at most one membership changes");
const project = await t.query.createProject({ org_id: acme.id, name: "Web", slug: "web", labels: ["a", "b"] });
assert.ok(project !== null);
try {
  await t.query.createProject({ org_id: acme.id, name: "Web", slug: "web-2", labels: [] });
  assert.fail("a live project name must be unique per organization");
} catch (err) {
  assert.ok(err instanceof saas.UqProjectOrgIdNameError, `typed error, got ${String(err)}`);
  assert.ok(err instanceof saas.ExclusiveViolationError);
  assert.deepEqual(err.columns, ["org_id", "name"]);
}
// Every named constraint has its own error class: CHECK (23514) and FK (23503) too.
await assert.rejects(t.query.createProject({ org_id: acme.id, name: "Bad", slug: "Not A Slug", labels: [] }), (err) => {
  assert.ok(err instanceof saas.CkProjectSlugRegexpError, `typed error, got ${String(err)}`);
  assert.ok(err instanceof saas.CheckViolationError && err.sqlstate === "23514");
  return true;
});
await assert.rejects(
  t.query.createProject({ org_id: "00000000-0000-0000-0000-000000000000", name: "X", slug: "xyz", labels: [] }),
  (err) => {
    assert.ok(err instanceof saas.FkProjectOrgIdError, `typed error, got ${String(err)}`);
    assert.ok(err instanceof saas.ForeignKeyViolationError && err.sqlstate === "23503");
    assert.deepEqual(err.columns, ["org_id"]);
    return true;
  },
);
await assert.rejects(t.query.createProject({ org_id: acme.id, name: null as unknown as string, slug: "nn", labels: [] }),
  (err) => {
    assert.ok(err instanceof saas.NotNullViolationError, `typed error, got ${String(err)}`);
    assert.equal(err.column, "name");
    assert.equal(err.table, "project");
    return true;
  });
assert.deepEqual(await t.query.revokeApiKey({ prefix: "sk_live_1" }), { id: key.id });
assert.equal(await t.query.revokeApiKey({ prefix: "sk_live_1" }), null);
out["saas"] = true;

await Promise.all(Object.values(pools).map((p) => p.end()));
console.log(JSON.stringify(out));
