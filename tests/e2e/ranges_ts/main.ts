// End-to-end program for ranges in the generated TypeScript runner (see test_ranges_e2e.py; run by
// test_gel_scalars_e2e.py with the library compiled into gen_rg/): every
// range type goes in as a Range<T> (a multirange as Range<T>[]) and comes back equal, with
// unbounded, inclusive, exclusive and empty ranges; contains() and overlaps() pick the rows.
// Prints one JSON object; a failed expectation throws.
import assert from "node:assert/strict";
import pg from "pg";

import * as rg from "./gen_rg/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query("DELETE FROM booking");
  const q = rg.createRunner(pool).query;
  const during: rg.Range<Date> = {
    lower: new Date("2024-02-29T13:45:06.5Z"), upper: null, incLower: true, incUpper: false,
  };
  await q.addBooking({
    name: "a",
    seats: { lower: 1, upper: 5, incLower: true, incUpper: false },
    ids: { lower: "9007199254740993", upper: 1234567890123456789n, incLower: true, incUpper: false },
    price: { lower: null, upper: "99.95", incLower: false, incUpper: true },
    during,
    local: { lower: "2024-02-29T08:00:00.000", upper: "2024-02-29T17:30:00.250", incLower: true, incUpper: false },
    days: { lower: "2024-01-01", upper: "2024-02-01", incLower: true, incUpper: false },
    free: [
      { lower: "2024-01-01", upper: "2024-01-03", incLower: true, incUpper: false },
      { lower: "2024-01-10", upper: null, incLower: true, incUpper: false },
    ],
  });
  // Postgres normalises discrete ranges: [10,20] is [10,21); empty is empty. b has days: Gel's
  // `contains(.days, d) or overlaps(...)` is {} (not kept) for an object whose days are empty.
  await q.addBooking({ name: "b", seats: { lower: 10, upper: 20, incLower: true, incUpper: true },
    days: { lower: "2024-03-01", upper: "2024-03-05", incLower: true, incUpper: true } });
  await q.addBooking({ name: "c", seats: { lower: null, upper: null, incLower: false, incUpper: false, empty: true } });

  const rows = await q.bookings({ day: "2024-01-15", lo: 100, hi: 200 });
  assert.deepEqual(rows, [{
    name: "a",
    seats: { lower: 1, upper: 5, incLower: true, incUpper: false },
    ids: { lower: "9007199254740993", upper: "1234567890123456789", incLower: true, incUpper: false },
    price: { lower: null, upper: "99.95", incLower: false, incUpper: true },
    during,
    local: { lower: "2024-02-29T08:00:00.000", upper: "2024-02-29T17:30:00.250", incLower: true, incUpper: false },
    days: { lower: "2024-01-01", upper: "2024-02-01", incLower: true, incUpper: false },
    free: [
      { lower: "2024-01-01", upper: "2024-01-03", incLower: true, incUpper: false },
      { lower: "2024-01-10", upper: null, incLower: true, incUpper: false },
    ],
  }]);
  const overlapping = await q.bookings({ day: "2030-01-01", lo: 4, hi: 11 });
  assert.deepEqual(overlapping.map((r) => [r.name, r.seats]), [
    ["a", { lower: 1, upper: 5, incLower: true, incUpper: false }],
    ["b", { lower: 10, upper: 21, incLower: true, incUpper: false }],
  ]);
  const stored = await pool.query("SELECT seats::text AS seats FROM booking WHERE name = 'c'");
  assert.equal(stored.rows[0].seats, "empty");
  console.log(JSON.stringify({ ranges: true }));
} finally {
  await pool.end();
}
