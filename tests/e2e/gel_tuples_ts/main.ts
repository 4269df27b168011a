// End-to-end program for tuple properties in the generated TypeScript runner (see
// test_gel_tuples_e2e.py, library compiled into gen/): tuples written with literals holding
// parameters, cleared with {}, compared whole in a filter, and read element by element
// (.days.0, .pos.x, .pos.1, .points[0].0, len(.points)). Prints one JSON object; a failed
// expectation throws.
import assert from "node:assert/strict";
import pg from "pg";

import * as tp from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query("DELETE FROM service");
  const q = tp.createRunner(pool).query;
  await q.addService({ name: "a", mon: true, tue: false, x: 1.5, y: -2, px: "2.25", py: "3" });
  await q.addService({ name: "b", mon: false, tue: true, x: 0.5, y: 4, px: "7", py: "8.125" });
  await q.addService({ name: "c", mon: false, tue: true, x: 9, y: 9, px: "1", py: "1" });
  await q.clearPos({ name: "b" });
  // a: days (true, false, false) equals the tuple; b: (false, false, true) has .days.2; c neither
  const rows = await q.services({ tue: false });
  assert.deepEqual(rows, [
    { name: "a", mon: true, wed: false, x: 1.5, y: -2, first_x: "2.25", n: "2" },
    { name: "b", mon: false, wed: true, x: null, y: null, first_x: "7", n: "2" },
  ]);
  const raw = await pool.query("SELECT (points[2]).f1::text AS p FROM service WHERE name = 'a'");
  assert.equal(raw.rows[0].p, "1.5");
  console.log(JSON.stringify({ tuples: true }));
} finally {
  await pool.end();
}
