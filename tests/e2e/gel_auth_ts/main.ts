// End-to-end program for the generated TypeScript runner of tests/cases/gel_auth (see
// test_gel_auth_e2e.py): the tables of Gel's auth extension (identities imported with their
// issuer and subject, the exclusive (issuer, subject), Auditable's timestamps, LocalIdentity's
// subject rewritten to its id, a password factor deleted with its identity), and the global
// ext::auth::identity_id the application supplies, read through ext::auth::ClientTokenIdentity
// in a computed global, a filter, a link default and access policies. Prints one JSON object of
// observations; a failed expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as ga from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const out: Record<string, boolean> = {};

// Type-level checks: never called, but must compile (or fail to compile where marked).
export function typeChecks(): void {
  const r = ga.createRunner(pool, { globals: { "ext::auth::identity_id": null } });
  // @ts-expect-error the identity id is a uuid string
  r.withGlobals({ "ext::auth::identity_id": 1 });
  // @ts-expect-error the token itself is not a global here: the application verifies it
  r.withGlobals({ "ext::auth::client_token": "x" });
}

try {
  await pool.query('TRUNCATE "ext_auth_identity", "ext_auth_local_identity", "user", post CASCADE');
  const bare = ga.createRunner(pool);

  // Identities imported as the provider gave them; (issuer, subject) is exclusive.
  const google = await bare.query.addIdentity({ issuer: "https://accounts.google.com", subject: "g-1" });
  const github = await bare.query.addIdentity({ issuer: "https://github.com", subject: "gh-2" });
  await assert.rejects(bare.query.addIdentity({ issuer: "https://github.com", subject: "gh-2" }),
    ga.UqExtAuthIdentityIssuerSubjectError);
  const stamps = await pool.query(
    'SELECT created_at IS NOT NULL AND modified_at IS NOT NULL AS ok FROM "ext_auth_identity" WHERE id = $1', [google.id]);
  assert.deepEqual(stamps.rows, [{ ok: true }]);
  out["identities"] = true;

  const ann = await bare.query.addUser({ name: "Ann", identity: google.id });
  await bare.query.addUser({ name: "Bob", identity: github.id });
  // One user per identity (the schema's own exclusive on the link).
  await assert.rejects(bare.query.addUser({ name: "Ann2", identity: google.id }), ga.UqUserIdentityIdError);
  // A link to an identity that does not exist.
  await assert.rejects(bare.query.addUser({ name: "Nobody", identity: "00000000-0000-0000-0000-000000000000" }),
    ga.FkUserIdentityIdError);

  // The signed-in identity is the global the application supplies.
  assert.equal(await bare.query.whoami({}), null);
  const asAnn = bare.withGlobals({ "ext::auth::identity_id": google.id });
  const asBob = bare.withGlobals({ "ext::auth::identity_id": github.id });
  assert.deepEqual(await asAnn.query.whoami({}),
    { name: "Ann", identity: { issuer: "https://accounts.google.com", subject: "g-1" } });
  assert.deepEqual(await asBob.query.whoami({}),
    { name: "Bob", identity: { issuer: "https://github.com", subject: "gh-2" } });
  out["clientTokenIdentity"] = true;

  // The author link's default is the computed global current_user.
  const post = await asAnn.query.writePost({ text: "hello" });
  assert.deepEqual((await pool.query("SELECT author_id FROM post WHERE id = $1", [post.id])).rows,
    [{ author_id: ann.id }]);
  await assert.rejects(bare.query.writePost({ text: "anonymous" }), ga.NotNullViolationError);
  out["linkDefault"] = true;

  // Access policies: everyone reads, only the author writes.
  assert.deepEqual(await bare.query.posts({}), [{ text: "hello", author: { name: "Ann" } }]);
  assert.equal(await asBob.query.editPost({ id: post.id, text: "hacked" }), null);
  assert.deepEqual(await asAnn.query.editPost({ id: post.id, text: "edited" }), { id: post.id });
  assert.deepEqual(await asBob.query.posts({}), [{ text: "edited", author: { name: "Ann" } }]);
  out["policies"] = true;

  // A local identity's subject is its own id; its password factor goes with it.
  const local = await bare.query.addLocalIdentity({});
  assert.deepEqual((await pool.query('SELECT subject FROM "ext_auth_local_identity" WHERE id = $1', [local.id])).rows,
    [{ subject: local.id }]);
  const login = await bare.query.addLogin({ email: "ann@example.com", password_hash: "h", identity: local.id });
  const other = await bare.query.addLocalIdentity({});
  await assert.rejects(bare.query.addLogin({ email: "ann@example.com", password_hash: "h2", identity: other.id }),
    ga.UqExtAuthEmailPasswordFactorEmailError);
  await assert.rejects(bare.query.addLogin({ email: "second@example.com", password_hash: "h2", identity: local.id }),
    ga.UqExtAuthEmailPasswordFactorIdentityIdError);
  await pool.query('DELETE FROM "ext_auth_local_identity" WHERE id = $1', [local.id]);
  assert.deepEqual((await pool.query('SELECT count(*)::int AS n FROM "ext_auth_email_password_factor" WHERE id = $1',
    [login.id])).rows, [{ n: 0 }]);
  out["localIdentity"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
