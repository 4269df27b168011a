// End-to-end program for string quoting in the generated TypeScript runner (see
// test_string_quoting_e2e.py): enum members and SQL literals holding a character outside the BMP,
// quotes, backslashes, "*/", a tab and a carriage return reach Postgres and come back unchanged
// through node-postgres. Prints one JSON object; a failed expectation throws.
import assert from "node:assert/strict";
import pg from "pg";

import * as sq from "./gen/index.js";

const body = "x\ty\rz\u{1F600}\"q\\";
const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query("DELETE FROM note");
  assert.deepEqual(Object.values(sq.Mood), ["plain", "emoji\u{1F600}", "a*/b", "quote\"s", "back\\slash"]);
  const q = sq.createRunner(pool).query;
  await q.addNote({});
  const stored = await pool.query("SELECT body FROM note");
  assert.equal(stored.rows[0].body, body);
  const rows = await q.trickyNotes({});
  assert.equal(rows.length, 1);
  assert.equal(rows[0]?.body, body);
  await q.addEmojiNote({});
  console.log(JSON.stringify({ quoting: true }));
} finally {
  await pool.end();
}
