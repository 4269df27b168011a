// End-to-end program for ext::postgis in the generated TypeScript runner (see
// test_postgis_e2e.py): geometries go in as WKT, EWKT and hex EWKB strings and come back as
// the hex EWKB strings node-postgres returns; prints what it read for the test to compare.
import assert from "node:assert/strict";
import pg from "pg";

import * as geo from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = geo.createRunner(pool).query;
  await q.addPlace({ name: "home", point: "POINT(0 0)", area: "SRID=4326;POLYGON((0 0,0 0.001,0.001 0.001,0.001 0,0 0))" });
  await q.addPlace({ name: "shop", point: "SRID=0;POINT(3 4)" });
  await q.addPlace({ name: "far", point: "0101000000000000000000244000000000000024C0", area: null });
  await q.addTrip({ label: "t1", place: "shop" });
  const near = await q.near({ x: 0, y: 0, r: 6 });
  const point: string = near[0]!.point;
  assert.equal(point, "010100000000000000000000000000000000000000");
  const srid: string = near[1]!.srid; // int64: a string, as node-postgres returns int8
  assert.equal(srid, "0");
  const origin: string = await q.origin();
  const trips = await q.trips();
  const area: string | null = trips[0]!.start.area;
  assert.equal(area, null);
  console.log(JSON.stringify({
    near: near.map((r) => [r.name, r.wkt, r.d]),
    origin,
    start: trips[0]!.start,
  }));
} finally {
  await pool.end();
}
