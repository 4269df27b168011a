// End-to-end program for the generated TypeScript runner of tests/cases/globals (see
// test_gel_globals_e2e.py): globals given to createRunner / withGlobals, bound as parameters of
// the queries that read them, defaults, a computed object global, and the typed
// MissingGlobalError raised before anything is sent. Prints one JSON object of observations; a
// failed expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as gl from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const out: Record<string, boolean> = {};

// Type-level checks: never called, but must compile (or fail to compile where marked).
export async function typeChecks(): Promise<void> {
  const r = gl.createRunner(pool, { globals: { tenant: "t", current_user_id: null } });
  const g: Readonly<gl.Globals> = r.withGlobals({ page_size: 5 }).globals;
  // @ts-expect-error a uuid global is a string
  r.withGlobals({ current_user_id: 1 });
  // @ts-expect-error unknown global
  gl.createRunner(pool, { globals: { tenantt: "x" } });
  // Globals are not arguments.
  // @ts-expect-error the tenant is not a query argument
  await r.query.addUser({ name: "x", tenant: "t" });
  void g;
}

let sent = 0;
const counting: gl.Queryable = {
  query: (text: string, values?: unknown[]) => {
    sent++;
    return pool.query(text, values as unknown[]);
  },
};

try {
  await pool.query("TRUNCATE \"user\", note CASCADE");
  const bare = gl.createRunner(counting);

  // A required global that is not set: a typed error, and nothing is sent.
  await assert.rejects(bare.query.addUser({ name: "Ann" }), (err) => err instanceof gl.MissingGlobalError && err.global === "tenant");
  await assert.rejects(bare.query.myNotes({}), gl.MissingGlobalError);
  assert.equal(sent, 0);
  // A query that reads no global needs none.
  assert.deepEqual(await bare.query.countUsers({}), []);
  assert.equal(sent, 1);
  out["missingGlobal"] = true;

  const acme = bare.withGlobals({ tenant: "acme" });
  assert.deepEqual(bare.globals, {});
  assert.deepEqual(acme.globals, { tenant: "acme" });
  const ann = (await acme.query.addUser({ name: "Ann" })).id;
  const bob = (await acme.query.addUser({ name: "Bob" })).id;
  const other = await gl.createRunner(pool, { globals: { tenant: "other" } }).query.addUser({ name: "Olga" });
  const tenants = await pool.query("SELECT name, tenant FROM \"user\" ORDER BY name");
  assert.deepEqual(tenants.rows, [{ name: "Ann", tenant: "acme" }, { name: "Bob", tenant: "acme" }, { name: "Olga", tenant: "other" }]);
  out["globalInInsert"] = true;

  // An optional global that is not set is empty: the filter matches nothing.
  assert.equal(await acme.query.whoami({}), null);
  const asAnn = acme.withGlobals({ current_user_id: ann });
  assert.deepEqual(await asAnn.query.whoami({}), { name: "Ann" });
  assert.deepEqual(await asAnn.withGlobals({ current_user_id: undefined }).query.whoami({}), null);
  assert.deepEqual(await asAnn.withGlobals({ current_user_id: other.id }).query.whoami({}), { name: "Olga" });
  out["globalInFilter"] = true;

  // The computed global current_user (an object) as a link value and in a filter.
  for (const body of ["c", "a", "b"]) {
    await asAnn.query.addNote({ body });
  }
  const asBob = acme.withGlobals({ current_user_id: bob });
  const bobs = await asBob.query.addNote({ body: "bob's" });
  await assert.rejects(acme.query.addNote({ body: "nobody's" }), gl.NotNullViolationError);
  // The owner link's default reads the global too.
  const jotted = await asBob.query.jot({ body: "jotted" });
  assert.deepEqual((await pool.query("SELECT owner_id FROM note WHERE id = $1", [jotted.id])).rows, [{ owner_id: bob }]);
  await pool.query("DELETE FROM note WHERE id = $1", [jotted.id]);
  assert.deepEqual((await asAnn.query.myNotes({})).map((n) => n.body), ["a", "b", "c"]);
  assert.deepEqual(await asBob.query.myNotes({}), [{ body: "bob's", owner: { name: "Bob" } }]);
  // Same user, other tenant: none of them.
  assert.deepEqual(await asAnn.withGlobals({ tenant: "other" }).query.myNotes({}), []);
  out["computedGlobal"] = true;

  // A default: page_size is 20 unless set.
  assert.equal((await asAnn.withGlobals({ page_size: 2 }).query.myNotes({})).length, 2);
  assert.equal((await asAnn.withGlobals({ page_size: null }).query.myNotes({})).length, 3);
  out["globalDefault"] = true;

  // Only the owner's notes change.
  assert.equal(await asAnn.query.editNote({ id: bobs.id, body: "hacked" }), null);
  assert.deepEqual(await asBob.query.editNote({ id: bobs.id, body: "edited" }), { id: bobs.id });
  // Transactions keep the runner's globals.
  const inTx = await asBob.transaction(async (tx) => {
    assert.deepEqual(tx.globals, { tenant: "acme", current_user_id: bob });
    return tx.query.myNotes({});
  });
  assert.deepEqual(inTx.map((n) => n.body), ["edited"]);
  out["update"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
