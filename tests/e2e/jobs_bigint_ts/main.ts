// End-to-end program for the TypeScript runner of schemas/jobs plus tests/e2e/jobs_extra compiled
// with ts_int64="bigint" (see test_runner_options_e2e.py): int64 results come back as bigint
// (top level, optional, in arrays and inside nested shapes) without loss above 2^53, bigint and
// number parameters are accepted, and node-postgres' global type parsers are left alone. Prints
// one JSON object of observations; any failed expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import { createRunner, QueueStatus, type Queryable, UqJobNameActorError } from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const runner = createRunner(pool);

// Type-level checks: never called, but must compile (or fail to compile where marked).
export async function typeChecks(): Promise<void> {
  const w = await runner.query.getWorker({ name: "x" });
  if (w !== null) {
    const processed: bigint = w.processed;
    const quota: bigint | null = w.quota;
    const recent: bigint[] | null = w.recent;
    // @ts-expect-error an int64 result is a bigint, not a string
    const asString: string = w.processed;
    void [processed, quota, recent, asString];
  }
  const teams = await runner.query.listTeams({ take: 1n });
  const nested: bigint | undefined = teams[0]?.members[0]?.processed;
  void nested;
  // @ts-expect-error with ts_int64="bigint" an int64 parameter is a bigint or a number, not a string
  void runner.query.listPendingJobs({ actor: "a", max: "10" });
}

const out: Record<string, unknown> = {};
const BIG = 2n ** 53n + 1n; // 9007199254740993: not representable as a number

// The jobs queries work as before; `max` takes a bigint or a number.
const job = await runner.query.enqueueJobStrict({ name: "email", actor: "u1", payload: { n: 1 } });
await assert.rejects(runner.query.enqueueJobStrict({ name: "email", actor: "u1" }), UqJobNameActorError);
assert.equal((await runner.query.listPendingJobs({ actor: "u1", max: 10n })).length, 1);
assert.equal((await runner.query.listPendingJobs({ actor: "u1", max: 0 })).length, 0);
out["jobs"] = true;

// Top level: required, optional and array int64 values, exact above 2^53.
const w1 = await runner.query.registerWorker({
  name: "w1",
  quota: BIG,
  recent: [1n, BIG, -5n, 7],
  tags: ["a", "b"],
  status: QueueStatus.Running,
  rating: 4.5,
  avatar: Buffer.from([0, 1, 255]),
  current_id: job.id,
  history_ids: [job.id],
});
assert.ok(w1 !== null);
assert.equal(await runner.query.registerWorker({ name: "w1", history_ids: [] }), null, "a taken name is absorbed");
const w2 = await runner.query.registerWorker({ name: "w2", history_ids: [] });
assert.ok(w2 !== null);
const bumped = await runner.query.bumpWorker({ name: "w1", by: BIG });
assert.deepEqual(bumped, { name: "w1", processed: BIG, quota: BIG, recent: [1n, BIG, -5n, 7n] });
const again = await runner.query.bumpWorker({ name: "w1", by: 2 });
assert.equal(again?.processed, BIG + 2n);
assert.equal(typeof again?.processed, "bigint");
assert.equal(await runner.query.bumpWorker({ name: "nobody", by: 1n }), null);
const got = await runner.query.getWorker({ name: "w1" });
assert.ok(got !== null);
assert.equal(got.processed, BIG + 2n);
assert.equal(got.quota, BIG);
assert.deepEqual(got.recent, [1n, BIG, -5n, 7n]);
assert.deepEqual(got.tags, ["a", "b"]);
assert.equal(got.status, QueueStatus.Running);
assert.equal(got.rating, 4.5);
assert.deepEqual(got.avatar, Buffer.from([0, 1, 255]));
assert.deepEqual(got.current, { name: "email", actor: "u1", payload: { n: 1 }, status: "Pending" });
assert.deepEqual(got.history, [{ name: "email", actor: "u1" }]);
const bare = await runner.query.getWorker({ name: "w2" });
assert.ok(bare !== null);
assert.equal(bare.processed, 0n);
assert.equal(bare.quota, null);
assert.equal(bare.recent, null);
assert.equal(bare.current, null);
assert.deepEqual(bare.history, []);
assert.equal(await runner.query.getWorker({ name: "nobody" }), null);
out["topLevel"] = true;

// Inside nested shapes int64 values travel as JSON strings and come back as bigint too.
await runner.query.createTeam({ name: "t1", lead_id: w1.id, member_ids: [w1.id, w2.id] });
await runner.query.createTeam({ name: "t2", member_ids: [] });
const teams = await runner.query.listTeams({ take: 10n });
const members = [
  { id: w1.id, row: { name: "w1", processed: BIG + 2n, quota: BIG } },
  { id: w2.id, row: { name: "w2", processed: 0n, quota: null } },
]
  .sort((a, b) => (a.id < b.id ? -1 : 1)) // a multi link's objects come ordered by id
  .map((m) => m.row);
assert.deepEqual(teams, [
  { name: "t1", lead: { name: "w1", processed: BIG + 2n, quota: BIG }, members },
  { name: "t2", lead: null, members: [] },
]);
assert.deepEqual(await runner.query.workersOverQuota({}), [{ name: "w1", processed: BIG + 2n, quota: BIG }]);
out["nested"] = true;

// Decoding tolerates an application that installed its own int8 parser (numbers or bigints).
const fake: Queryable = {
  async query() {
    return { rows: [{ name: "f", processed: 5, quota: 7n, recent: ["1", 2, 3n] }] };
  },
};
assert.deepEqual(await createRunner(fake).query.bumpWorker({ name: "f", by: 1n }), {
  name: "f",
  processed: 5n,
  quota: 7n,
  recent: [1n, 2n, 3n],
});
// ... and node-postgres' global parsers are untouched: a plain query still gets int8 as text.
const plain = await pool.query<{ n: unknown }>("SELECT $1::bigint AS n", [BIG]);
assert.equal(plain.rows[0]?.n, BIG.toString());
out["globalParsersUntouched"] = true;

await pool.end();
console.log(JSON.stringify(out));
