// End-to-end program for the generated TypeScript runner of schemas/jobs (see test_jobs_e2e.py).
// It exercises every behaviour of the design note against the database in $DATABASE_URL and
// prints one JSON object of observations; any failed expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import {
  ConstraintViolationError,
  createRunner,
  ExclusiveViolationError,
  QueueStatus,
  type Queryable,
  UqJobNameActorError,
} from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"], max: 32 });
const runner = createRunner(pool);

async function pendingCount(name: string, actor: string): Promise<number> {
  const res = await pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM job WHERE name = $1 AND actor = $2 AND status = 'Pending'",
    [name, actor],
  );
  return res.rows[0]?.n ?? -1;
}

// Type-level checks: never called, but must compile (or fail to compile where marked).
export function typeChecks(): void {
  // @ts-expect-error `name` is required
  void runner.query.enqueueJob({ actor: "a" });
  // @ts-expect-error unknown parameter
  void runner.query.enqueueJob({ name: "n", actor: "a", bogus: 1 });
  // @ts-expect-error `id` must be a string
  void runner.query.claimJob({ id: 42 });
  const status: QueueStatus = QueueStatus.Running;
  // @ts-expect-error not a member of QueueStatus
  const wrong: QueueStatus = "Done";
  void status;
  void wrong;
}

const out: Record<string, unknown> = {};

// 1. enqueue; a Pending twin is absorbed by `unless conflict` (null, no error, still one row).
const first = await runner.query.enqueueJob({ name: "email", actor: "u1", payload: { to: "a@example.com" } });
assert.ok(first !== null, "first enqueue returns the new id");
assert.match(first.id, /^[0-9a-f-]{36}$/);
const twin = await runner.query.enqueueJob({ name: "email", actor: "u1", payload: { to: "b@example.com" } });
assert.equal(twin, null, "a Pending twin is absorbed");
assert.equal(await pendingCount("email", "u1"), 1);
out["twinAbsorbed"] = true;

// 2. the plain insert raises the typed error, with the driver error as `cause`.
try {
  await runner.query.enqueueJobStrict({ name: "email", actor: "u1" });
  assert.fail("enqueueJobStrict should have thrown");
} catch (err) {
  assert.ok(err instanceof UqJobNameActorError, `typed error, got ${String(err)}`);
  assert.ok(err instanceof ExclusiveViolationError);
  assert.ok(err instanceof ConstraintViolationError);
  assert.equal(err.name, "UqJobNameActorError");
  assert.equal(err.constraint, "uq_job_name_actor");
  assert.equal(err.table, "job");
  assert.deepEqual(err.columns, ["name", "actor"]);
  assert.equal(err.sqlstate, "23505");
  assert.equal((err.cause as { code?: string }).code, "23505");
  out["strictError"] = err.name;
}
assert.equal(await pendingCount("email", "u1"), 1);

// 3. claiming moves the row to Running, sets claimed_at, and frees the key.
const claimed = await runner.query.claimJob({ id: first.id });
assert.deepEqual(claimed, { id: first.id });
const row = await pool.query<{ status: string; claimed_at: Date | null }>(
  "SELECT status, claimed_at FROM job WHERE id = $1",
  [first.id],
);
assert.equal(row.rows[0]?.status, QueueStatus.Running);
assert.ok(row.rows[0]?.claimed_at instanceof Date, "claimed_at is set");
const again = await runner.query.enqueueJob({ name: "email", actor: "u1" });
assert.ok(again !== null && again.id !== first.id, "the key is free again while the first job runs");
out["reenqueuedWhileRunning"] = true;

// 4. claiming an unknown id resolves to null.
assert.equal(await runner.query.claimJob({ id: "00000000-0000-0000-0000-000000000000" }), null);

// 5. json parameters are sent as JSON documents (arrays too, which pg alone would turn into
//    Postgres arrays), and an omitted optional parameter stores NULL.
const arr = await runner.query.enqueueJobStrict({ name: "arr", actor: "u1", payload: [1, "two", { three: 3 }] });
const str = await runner.query.enqueueJobStrict({ name: "str", actor: "u1", payload: "just a string" });
const none = await runner.query.enqueueJobStrict({ name: "none", actor: "u1" });
const payloads = await pool.query<{ id: string; payload: unknown; t: string | null }>(
  "SELECT id, payload, jsonb_typeof(payload) AS t FROM job WHERE id = ANY($1::uuid[])",
  [[arr.id, str.id, none.id]],
);
const byId = new Map(payloads.rows.map((r) => [r.id, r]));
assert.deepEqual(byId.get(arr.id)?.payload, [1, "two", { three: 3 }]);
assert.equal(byId.get(arr.id)?.t, "array");
assert.equal(byId.get(str.id)?.payload, "just a string");
assert.equal(byId.get(none.id)?.payload, null);
assert.equal(byId.get(none.id)?.t, null);
out["jsonRoundTrip"] = true;

// 6. any Queryable works: a PoolClient inside a transaction, and a test double.
const client = await pool.connect();
try {
  await client.query("BEGIN");
  const inTx = await createRunner(client).query.enqueueJob({ name: "tx", actor: "u2" });
  assert.ok(inTx !== null);
  await client.query("ROLLBACK");
} finally {
  client.release();
}
assert.equal(await pendingCount("tx", "u2"), 0, "rolled back");
const seen: unknown[][] = [];
const fake: Queryable = {
  async query(_text: string, values?: unknown[]) {
    seen.push(values ?? []);
    return { rows: [{ id: "fake-id" }] };
  },
};
assert.deepEqual(await createRunner(fake).query.claimJob({ id: "x" }), { id: "fake-id" });
assert.deepEqual(seen, [["x"]]);
out["queryableDoubles"] = true;

// 7. select and delete: typed rows, cardinality, Gel's ordering.
await pool.query("TRUNCATE job");
const a = await runner.query.enqueueJobStrict({ name: "b-job", actor: "w", payload: { n: 1 } });
await runner.query.enqueueJobStrict({ name: "a-job", actor: "w" });
await runner.query.enqueueJobStrict({ name: "c-job", actor: "other" });
const pending = await runner.query.listPendingJobs({ actor: "w", max: 10 });
assert.deepEqual(pending.map((j) => j.name), ["a-job", "b-job"]);
assert.deepEqual(pending[1], { id: a.id, name: "b-job", actor: "w", payload: { n: 1 }, status: QueueStatus.Pending });
assert.equal(pending[0]?.payload, null);
assert.equal((await runner.query.listPendingJobs({ actor: "w", max: 1 })).length, 1);
const one = await runner.query.getJob({ id: a.id });
assert.ok(one !== null && one.claimed_at === null && one.status === "Pending");
assert.equal(await runner.query.getJob({ id: "00000000-0000-0000-0000-000000000000" }), null);
await runner.query.claimJob({ id: a.id });
await pool.query("UPDATE job SET status = 'Processed', processed_at = now() - interval '2 days' WHERE id = $1", [a.id]);
const claimedRow = await runner.query.getJob({ id: a.id });
assert.ok(claimedRow?.claimed_at instanceof Date && claimedRow.processed_at instanceof Date);
const purged = await runner.query.purgeJobs({ before: new Date(Date.now() - 86_400_000) });
assert.deepEqual(purged, [{ id: a.id }]);
assert.deepEqual(await runner.query.purgeJobs({ before: new Date() }), []);
out["selectAndDelete"] = true;

// 7b. upsert: the Pending twin's payload is refreshed, and the same id comes back.
const up1 = await runner.query.upsertJob({ name: "up", actor: "w", payload: { v: 1 } });
const up2 = await runner.query.upsertJob({ name: "up", actor: "w", payload: { v: 2 } });
assert.equal(up2.id, up1.id);
assert.deepEqual((await pool.query("SELECT payload FROM job WHERE id = $1", [up1.id])).rows[0], { payload: { v: 2 } });

// 8. transactions: commit, and rollback on error (the typed error comes out unchanged).
await pool.query("TRUNCATE job");
const committed = await runner.transaction(async (tx) => {
  const j = await tx.query.enqueueJobStrict({ name: "tx1", actor: "t" });
  await tx.query.claimJob({ id: j.id });
  return j.id;
});
assert.equal((await runner.query.getJob({ id: committed }))?.status, QueueStatus.Running);
await assert.rejects(
  runner.transaction(async (tx) => {
    await tx.query.enqueueJobStrict({ name: "tx2", actor: "t" });
    await tx.query.enqueueJobStrict({ name: "tx2", actor: "t" });
  }),
  UqJobNameActorError,
);
assert.equal(await pendingCount("tx2", "t"), 0, "the first insert was rolled back too");
const onClient = await pool.connect();
try {
  await createRunner(onClient).transaction(async (tx) => tx.query.enqueueJobStrict({ name: "tx3", actor: "t" }));
} finally {
  onClient.release();
}
assert.equal(await pendingCount("tx3", "t"), 1, "a transaction on a PoolClient commits on that connection");
out["transactions"] = true;

// 8b. bulk: 1,000 jobs in one round trip; repeats inside the batch are skipped.
await pool.query("TRUNCATE job");
let roundTrips = 0;
const counting: Queryable = {
  query(text: string, values?: unknown[]) {
    roundTrips += 1;
    return pool.query(text, values);
  },
};
const names = Array.from({ length: 1000 }, (_, i) => `bulk-${i}`);
const inserted = await createRunner(counting).query.enqueueJobs({ names: [...names, "bulk-1"], actor: "b" });
assert.equal(inserted.length, 1000);
assert.equal(roundTrips, 1);
out["bulk"] = true;

// 9. concurrency: 32 concurrent enqueues of one key leave exactly one Pending row.
await pool.query("TRUNCATE job");
const racing = await Promise.all(Array.from({ length: 32 }, () => runner.query.enqueueJob({ name: "race", actor: "r" })));
assert.equal(racing.filter((r) => r !== null).length, 1, "one insert wins, 31 are absorbed");
assert.equal(await pendingCount("race", "r"), 1);
const strictRace = await Promise.allSettled(
  Array.from({ length: 32 }, () => runner.query.enqueueJobStrict({ name: "race2", actor: "r" })),
);
assert.equal(strictRace.filter((r) => r.status === "fulfilled").length, 1);
assert.ok(strictRace.every((r) => r.status === "fulfilled" || r.reason instanceof UqJobNameActorError));
assert.equal(await pendingCount("race2", "r"), 1);
out["concurrency"] = true;

await pool.end();
console.log(JSON.stringify(out));
