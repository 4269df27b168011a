// End-to-end program for the generated TypeScript runner of tests/cases/get_or_insert (see
// test_get_or_insert_e2e.py): a get-or-insert returns the existing user without running its
// update rewrites or firing its update triggers, and waits for (then returns) a user another
// transaction holds uncommitted. Prints one JSON object of observations; a failed expectation
// throws.
import assert from "node:assert/strict";
import pg from "pg";

import * as g from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"], max: 6 });
const out: Record<string, boolean> = {};

try {
  await pool.query(`TRUNCATE post, log, "user" CASCADE`);
  const db = g.createRunner(pool);
  const msgs = async () => (await db.query.logs()).map((l) => l.msg);

  // A get: the same object, unchanged (touched_at and revision are update rewrites), no update
  // trigger fired; as a link's value too. Without else, a conflict returns null.
  const ann = await db.query.getUser({ email: "ann@x.org" });
  const [before] = await db.query.users();
  assert.ok(before && before.touched_at instanceof Date);
  assert.equal(before.revision, "0");
  assert.deepEqual(await db.query.getUser({ email: "ann@x.org" }), ann);
  await db.query.addPost({ title: "One", email: "ann@x.org" });
  assert.deepEqual(await db.query.users(), [{ ...before, posts: "1" }]);
  assert.equal(await db.query.addUser({ email: "ann@x.org" }), null);
  assert.deepEqual(await msgs(), ["write ann@x.org"]);
  // A get, then an update of the same object in the same transaction: the update runs the
  // rewrites and fires the triggers.
  await db.transaction(async (tx) => {
    assert.deepEqual(await tx.query.getUser({ email: "ann@x.org" }), ann);
    assert.deepEqual(await tx.query.renameUser({ email: "ann@x.org", name: "Ann" }), ann);
  });
  const [after] = await db.query.users();
  assert.ok(after && after.touched_at instanceof Date && before.touched_at instanceof Date);
  assert.equal(after.name, "Ann");
  assert.equal(after.revision, "1");
  assert.ok(after.touched_at.getTime() > before.touched_at.getTime());
  assert.deepEqual(await msgs(), ["update ann@x.org", "write ann@x.org", "write ann@x.org"]);
  out["get"] = true;

  // Concurrency: a transaction holds the new user cy uncommitted; a get-or-insert, a post whose
  // author is a get-or-insert and a plain unless conflict, each on a connection of its own, wait
  // for it; it commits: they return (link) its object, and null.
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const held = await g.createRunner(client).query.getUser({ email: "cy@x.org" });
    const got = db.query.getUser({ email: "cy@x.org" });
    const posted = db.query.addPost({ title: "Two", email: "cy@x.org" });
    const added = db.query.addUser({ email: "cy@x.org" });
    for (let i = 0; ; i++) {
      // (on a connection of the pool: in a transaction, pg_stat_activity does not change)
      const r = await pool.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
      if ((r.rows[0] as { n: number }).n === 3) break;
      if (i > 500) throw new Error("the get-or-inserts did not wait");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.query("COMMIT");
    assert.deepEqual(await got, held);
    await posted;
    assert.equal(await added, null);
  } finally {
    client.release();
  }
  const cy = (await db.query.users()).find((u) => u.email === "cy@x.org");
  assert.deepEqual(cy && [cy.revision, cy.posts], ["0", "1"]);
  assert.deepEqual(await msgs(), ["update ann@x.org", "write ann@x.org", "write ann@x.org", "write cy@x.org"]);
  out["concurrent"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
