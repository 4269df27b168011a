// The consumer's test, run by `./pants test tests/pants_consumers/ts::` (node's test runner, after
// `tsc` compiled it; see package.json). It needs DATABASE_URL: a database with the jobs migrations
// applied (tests/pants/test_pants_ts_consumer.py applies them before running `pants test`).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import pg from "pg";

import { QueueStatus, UqJobNameActorError, Worker } from "./worker.js";

const ACTOR = "pants-ts-consumer";
const BATCH_ACTOR = "pants-ts-consumer-batch";

const url = process.env["DATABASE_URL"];
// No silent skip: without a database this test fails (a skip could pass `pants test` unnoticed).
assert.ok(
  url,
  "DATABASE_URL is not set: run tests/run tests/pants/test_pants_ts_consumer.py, or set it to a " +
    "database with the jobs migrations (generated/jobs/sql/*.up.sql) applied",
);

const client = new pg.Client({ connectionString: url });
before(async () => {
  await client.connect();
  // Start from no jobs of this test's actors, so that a re-run on the same database passes too.
  await client.query("DELETE FROM job WHERE actor IN ($1, $2)", [ACTOR, BATCH_ACTOR]);
});
after(async () => {
  await client.end();
});

test("enqueue, absorb a Pending twin, hit the typed unique violation, claim", async () => {
  const worker = new Worker(client, ACTOR);

  const id = await worker.enqueue("send-mail", { to: "a@example.com" });
  assert.ok(id !== null, "the first enqueue returns the new job's id");
  assert.match(id, /^[0-9a-f-]{36}$/);

  // An equal Pending job is absorbed by the partial exclusive constraint: null, no error.
  assert.equal(await worker.enqueue("send-mail"), null);

  // The plain insert raises the generated error class for uq_job_name_actor.
  const strict = await worker.enqueueStrict("send-mail");
  assert.equal(strict.kind, "duplicate");
  if (strict.kind === "duplicate") {
    assert.ok(strict.error instanceof UqJobNameActorError);
    assert.equal(strict.error.constraint, "uq_job_name_actor");
    assert.equal(strict.error.table, "job");
    assert.deepEqual(strict.error.columns, ["name", "actor"]);
    assert.equal(strict.error.sqlstate, "23505");
    assert.equal((strict.error.cause as { code?: unknown }).code, "23505");
  }
  assert.deepEqual(await worker.pendingNames(), ["send-mail"]);

  // Claiming moves it to Running and frees the (name, actor) key.
  assert.equal(await worker.claim(id), QueueStatus.Running);
  assert.equal(await worker.claim("00000000-0000-0000-0000-000000000000"), null);
  const again = await worker.enqueue("send-mail");
  assert.ok(again !== null && again !== id, "a new Pending job after the claim");
  assert.deepEqual(await worker.pendingNames(), ["send-mail"]);
});

test("bulk enqueue and an all-or-nothing transaction", async () => {
  const worker = new Worker(client, BATCH_ACTOR);
  const ids = await worker.enqueueMany(["a", "b", "b", "c"]);
  assert.equal(ids.length, 3, "the repeated name is skipped");
  assert.deepEqual(await worker.pendingNames(), ["a", "b", "c"]);

  // The transaction's own inserts roll back with it.
  await assert.rejects(
    worker.enqueueAllOrNothing(["d", "e"], () => {
      throw new Error("rejected by the caller");
    }),
    /rejected by the caller/,
  );
  // A duplicate inside the transaction rolls the earlier insert back too.
  await assert.rejects(worker.enqueueAllOrNothing(["f", "a"], () => {}), UqJobNameActorError);
  assert.deepEqual(await worker.pendingNames(), ["a", "b", "c"]);
  assert.equal((await worker.enqueueAllOrNothing(["d"], () => {})).length, 1);
  assert.deepEqual(await worker.pendingNames(), ["a", "b", "c", "d"]);
});
