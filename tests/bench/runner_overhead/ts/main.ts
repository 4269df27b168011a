// Runner-overhead benchmark, TypeScript side (driven by tests/bench/runner_overhead.py, which
// copies generated/jobs/ts to src/jobs/ and generated/blog/ts to src/blog/ next to this file).
//
// Generated: the runners' `createRunner(client).query.enqueueJob/claimJob/authorFeed`.
// Hand-written: the same node-postgres `Client.query(text, values)` calls with the SAME SQL
// text: the generated modules' exported `*Sql` constants, imported (not retyped).
//
//   node out/main.js bench '{"pairs":10000,"authorId":"...","take":100,"feedRepeat":200,"rounds":3}'
//   node out/main.js count '{"authorId":"...","take":100}'
//
// Prints one JSON object on stdout.
import assert from "node:assert/strict";
import pg from "pg";

import { createRunner as createJobs, enqueueJobSql, claimJobSql, type Queryable } from "./jobs/index.js";
import { createRunner as createBlog, authorFeedSql } from "./blog/index.js";

interface Config {
  pairs?: number;
  authorId: string;
  take: number;
  feedRepeat?: number;
  rounds?: number;
  warmup?: number;
}

const [mode = "bench", rawConfig = "{}"] = process.argv.slice(2);
const config = JSON.parse(rawConfig) as Config;

const client = new pg.Client({ connectionString: process.env["DATABASE_URL"] });
await client.connect();

// ---- the two implementations of each workload -------------------------------------------

const jobs = createJobs(client);
const blog = createBlog(client);

async function pairsGenerated(n: number): Promise<number> {
  let claimed = 0;
  for (let i = 0; i < n; i++) {
    const job = await jobs.query.enqueueJob({ name: `job-${i}`, actor: "bench", payload: { i } });
    if (job === null) throw new Error("enqueue skipped");
    const row = await jobs.query.claimJob({ id: job.id });
    if (row !== null) claimed++;
  }
  return claimed;
}

async function pairsHandWritten(n: number): Promise<number> {
  let claimed = 0;
  for (let i = 0; i < n; i++) {
    const enq = await client.query<{ id: string }>(enqueueJobSql, ["job-" + i, "bench", JSON.stringify({ i })]);
    const job = enq.rows[0];
    if (job === undefined) throw new Error("enqueue skipped");
    const res = await client.query<{ id: string }>(claimJobSql, [job.id]);
    if (res.rows[0] !== undefined) claimed++;
  }
  return claimed;
}

interface FeedRow {
  id: string;
  title: string;
  status: string;
  published_at: Date | null;
  author: { handle: string; display_name: string };
  tags: Array<{ slug: string; name: string }>;
}

async function feedGenerated(repeat: number): Promise<number> {
  let rows = 0;
  for (let i = 0; i < repeat; i++) {
    rows += (await blog.query.authorFeed({ author_id: config.authorId, take: config.take })).length;
  }
  return rows;
}

async function feedHandWritten(repeat: number): Promise<number> {
  let rows = 0;
  for (let i = 0; i < repeat; i++) {
    const res = await client.query<FeedRow>(authorFeedSql, [config.authorId, config.take]);
    rows += res.rows.length;
  }
  return rows;
}

// ---- timing --------------------------------------------------------------------------------

async function timed(fn: () => Promise<number>): Promise<{ seconds: number; result: number }> {
  const t0 = process.hrtime.bigint();
  const result = await fn();
  return { seconds: Number(process.hrtime.bigint() - t0) / 1e9, result };
}

async function resetJobs(): Promise<void> {
  await client.query("TRUNCATE job");
}

if (mode === "count") {
  // Every statement the runner sends goes through this wrapper's query().
  const sent: string[] = [];
  const counting: Queryable = {
    query: (text: string, values?: unknown[]) => {
      sent.push(text);
      return client.query(text, values);
    },
  };
  await resetJobs();
  const j = createJobs(counting);
  const job = await j.query.enqueueJob({ name: "count", actor: "bench", payload: null });
  assert.ok(job !== null);
  await j.query.claimJob({ id: job.id });
  const pairStatements = sent.length;
  sent.length = 0;
  const feed = await createBlog(counting).query.authorFeed({ author_id: config.authorId, take: config.take });
  const feedStatements = sent.length;
  const feedTags = feed.reduce((n, r) => n + r.tags.length, 0);
  console.log(JSON.stringify({ pairStatements, feedStatements, feedRows: feed.length, feedTags, feedSql: sent }));
} else {
  const pairs = config.pairs ?? 10000;
  const repeat = config.feedRepeat ?? 200;
  const rounds = config.rounds ?? 3;
  const warmup = config.warmup ?? Math.min(500, pairs);

  // Same answers from both implementations.
  const genFeed = await blog.query.authorFeed({ author_id: config.authorId, take: config.take });
  const handFeed = (await client.query<FeedRow>(authorFeedSql, [config.authorId, config.take])).rows;
  assert.deepEqual(handFeed, genFeed);
  assert.equal(genFeed.length, config.take);

  // Warm-up: JIT both paths, the server's caches.
  await resetJobs();
  await pairsGenerated(warmup);
  await resetJobs();
  await pairsHandWritten(warmup);
  await feedGenerated(Math.min(20, repeat));
  await feedHandWritten(Math.min(20, repeat));

  const out = {
    sql: { enqueueJob: enqueueJobSql, claimJob: claimJobSql, authorFeed: authorFeedSql },
    pairs: { generated: [] as number[], hand: [] as number[] },
    feed: { generated: [] as number[], hand: [] as number[] },
  };
  for (let r = 0; r < rounds; r++) {
    // Alternate which implementation goes first.
    const order: Array<"generated" | "hand"> = r % 2 === 0 ? ["generated", "hand"] : ["hand", "generated"];
    for (const which of order) {
      await resetJobs();
      const t = await timed(() => (which === "generated" ? pairsGenerated(pairs) : pairsHandWritten(pairs)));
      assert.equal(t.result, pairs);
      out.pairs[which].push(t.seconds);
    }
    for (const which of order) {
      const t = await timed(() => (which === "generated" ? feedGenerated(repeat) : feedHandWritten(repeat)));
      assert.equal(t.result, repeat * config.take);
      out.feed[which].push(t.seconds);
    }
  }
  await resetJobs();
  console.log(JSON.stringify(out));
}

await client.end();
