// End-to-end program for the generated TypeScript runner of tests/cases/gel_schema_forms (see
// test_gel_schema_forms_e2e.py): Gel forms real schemas use that schemac once refused, run on
// node-postgres. Prints one JSON object of observations; a failed expectation throws.
import assert from "node:assert/strict";
import pg from "pg";

import * as sf from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const out: Record<string, boolean> = {};

try {
  await pool.query("TRUNCATE member, post, wallet CASCADE");
  const db = sf.createRunner(pool);
  for (const handle of ["carol", "alice", "bob"]) {
    await db.query.addMember({ handle });
  }
  // A custom scalar's constraint (min 2) and the property's own of the same kind (min 3): both hold.
  await assert.rejects(db.query.addMember({ handle: "al" }), /ck_member_handle_min_len_value_/);
  await pool.query("UPDATE member SET karma = 20 WHERE handle = 'alice'");
  // Defaults: std::datetime_of_statement(), 10n, 0.5n.
  const { rows } = await pool.query("SELECT count(*)::int AS n FROM member WHERE joined <= now() AND ratio = 0.5");
  assert.equal(rows[0].n, 3);
  // The wallet link's default inserts a wallet per member (one statement each).
  const wallets = await pool.query("SELECT count(DISTINCT wallet_id)::int AS n, (SELECT count(*) FROM wallet)::int AS w FROM member");
  assert.deepEqual(wallets.rows[0], { n: 3, w: 3 });
  out["defaults"] = true;

  // (select Member filter ... order by .handle limit 1): the first match.
  await db.query.addPost({ title: "Hello World", pattern: "%o%" });  // bob, carol: bob
  await db.query.addPost({ title: "Second post", pattern: "%" });    // alice
  await assert.rejects(db.query.addPost({ title: "None", pattern: "z%" }), /author_id/);
  // the most karma: alice (20), then among the 10s the last handle
  await db.query.setEditor({ title: "Hello World" });
  await pool.query("UPDATE member SET karma = 5 WHERE handle = 'alice'");
  await db.query.setEditor({ title: "Second post" });
  assert.deepEqual(await db.query.postByAuthor({ handle: "bob" }), [{ title: "Hello World" }]);
  assert.deepEqual(await db.query.postByAuthor({ handle: "nobody" }), []);
  out["limit_one"] = true;

  // re_replace and bigint/decimal literals.
  assert.deepEqual(await db.query.postSlugs(), [
    {
      title: "Hello World", slug: "hello-world", first_o: "Hell0 World", author: { handle: "bob", wallet: { coins: "5" } },
      editor: { handle: "alice" }, author_karma: "11", big: "12345678901234567890", half: "0.5",
    },
    {
      title: "Second post", slug: "second-post", first_o: "Sec0nd post", author: { handle: "alice", wallet: { coins: "5" } },
      editor: { handle: "carol" }, author_karma: "6", big: "12345678901234567890", half: "0.5",
    },
  ]);
  // a path after a backlink with a shape: the editors of each member's posts
  assert.deepEqual(await db.query.memberPosts(), [
    { handle: "alice", editors: [{ handle: "carol" }] },
    { handle: "bob", editors: [{ handle: "alice" }] },
    { handle: "carol", editors: [] },
  ]);
  // Badge is GoldBadge in a select of the abstract type: a constant of each concrete type's rows
  await pool.query("TRUNCATE gold_badge, plain_badge");
  await pool.query("INSERT INTO gold_badge (label) VALUES ('g'); INSERT INTO plain_badge (label) VALUES ('p')");
  assert.deepEqual(await db.query.badges(), [
    { label: "g", shiny: true, plain: false }, { label: "p", shiny: false, plain: true },
  ]);
  out["functions"] = true;

  // single link holder := .<wallet[is Member] ?? .<savings[is Member], and .holder.handle.
  await pool.query("INSERT INTO wallet (coins) VALUES (1), (2)");
  await pool.query("UPDATE member SET savings_id = (SELECT id FROM wallet WHERE coins = 2) WHERE handle = 'bob'");
  // (empty values order first, as in Gel)
  assert.deepEqual(await db.query.wallets(), [
    { coins: "1", holder_handle: null, holder: null },
    { coins: "5", holder_handle: "alice", holder: { handle: "alice" } },
    { coins: "2", holder_handle: "bob", holder: { handle: "bob" } },
    { coins: "5", holder_handle: "bob", holder: { handle: "bob" } },
    { coins: "5", holder_handle: "carol", holder: { handle: "carol" } },
  ]);
  out["coalesce"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
