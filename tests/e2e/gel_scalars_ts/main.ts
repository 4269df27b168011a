// End-to-end program for Gel's calendar and duration scalars, bigint and decimal in the generated
// TypeScript runner (see test_gel_scalars_e2e.py): values go in as the strings of the type table
// and come back in the same forms, at the top level and inside a nested shape, whatever the
// process's time zone (the test runs it with TZ set west of UTC). Prints one JSON object; a
// failed expectation throws.
import assert from "node:assert/strict";
import pg from "pg";

import * as gs from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  await pool.query("DELETE FROM event; DELETE FROM person");
  const q = gs.createRunner(pool).query;
  const { id: ada } = await q.addPerson({ name: "ada", born: "1815-12-10", seen: "2024-02-29T23:59:58.5" });
  await q.addEvent({
    name: "launch",
    owner: ada,
    day: "2024-02-29",
    starts: "2024-02-29T13:45:06.789",
    at: "13:45:06.123456",
    length: "PT1H30M",
    every: "P1M2DT3H",
    span: "P1Y2M3D",
    days: ["2024-01-01", "2024-12-31"],
    big: "123456789012345678901234567890",
    money: "1234.5678",
  });
  await q.addEvent({ name: "blank", owner: ada, day: "2023-01-01" });
  await q.addEvent({ name: "short", owner: ada, day: "2025-06-30", length: "PT45.25S", every: "-1 day" });

  const rows = await q.events({ from: "2024-01-01" });
  assert.deepEqual(rows, [
    {
      name: "launch", day: "2024-02-29", starts: "2024-02-29T13:45:06.789", at: "13:45:06.123456",
      length: "PT1H30M", every: "P1M2DT3H", span: "P1Y2M3D", days: ["2024-01-01", "2024-12-31"],
      big: "123456789012345678901234567890", money: "1234.5678", created: "2024-02-29",
      owner: { name: "ada", born: "1815-12-10", seen: "2024-02-29T23:59:58.500" },
    },
    {
      name: "short", day: "2025-06-30", starts: null, at: null, length: "PT45.25S", every: "P-1D", span: null,
      days: null, big: null, money: null, created: "2024-02-29",
      owner: { name: "ada", born: "1815-12-10", seen: "2024-02-29T23:59:58.500" },
    },
  ]);
  // A duration compares as a duration: ordered by length, longest first.
  const longer = await q.longerThan({ min: "PT1M" });
  assert.deepEqual(longer.map((r) => r.name), ["launch"]);
  // The strings the runner returns go back in as parameters unchanged.
  const again = await q.longerThan({ min: rows[1]!.length! });
  assert.deepEqual(again.map((r) => r.name), ["launch"]);
  const r0 = rows[0]!;
  await q.addEvent({ name: "copy", owner: ada, day: "2000-01-01", starts: r0.starts, at: r0.at, every: rows[1]!.every,
    span: r0.span, days: r0.days });
  const copies = await q.events({ from: "1999-12-31" });
  assert.deepEqual(copies[0], { ...rows[1]!, name: "copy", day: "2000-01-01", length: null, starts: r0.starts, at: r0.at,
    span: r0.span, days: r0.days });

  // Gel's duration holds no days or months; its CHECK refuses them with a typed error.
  await assert.rejects(q.addEvent({ name: "bad", owner: ada, length: "P1D" }), gs.CkEventLengthDurationError);
  await assert.rejects(q.addEvent({ name: "bad", owner: ada, span: "PT1H" }), gs.CkEventSpanDateDurationError);
  console.log(JSON.stringify({ scalars: true, tz: Intl.DateTimeFormat().resolvedOptions().timeZone }));
} finally {
  await pool.end();
}
