// End-to-end program for the generated TypeScript runner of tests/cases/function_calls (see
// test_function_calls_e2e.py): calls of user functions returning objects, inlined as the query
// (select f(...).id, f(...) { shape }, f(...).p), through node-postgres. Prints one JSON object
// of observations; a failed expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as fc from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const q = fc.createRunner(pool).query;
const out: Record<string, boolean> = {};

// Type-level checks: never called, but must compile.
export async function typeChecks(): Promise<void> {
  const id: string = await q.upsertTag({ name: "" });
  const tag: { name: string; uses: string } = await q.upsertTagShape({ name: "" });
  const posts: fc.BumpResult[] = await q.bump({ title: "" });
  const score: string | null = await q.postScore({ title: "" });
  void [id, tag, posts, score];
}

try {
  await pool.query("TRUNCATE tag, post CASCADE");
  // upsert: the first call inserts, the second returns the same object
  const a = await q.upsertTag({ name: "a" });
  assert.equal(await q.upsertTag({ name: "a" }), a);
  assert.deepEqual(await q.upsertTagShape({ name: "a" }), { name: "a", uses: "0" });
  assert.deepEqual(await q.upsertTagShape({ name: "b" }), { name: "b", uses: "0" });
  assert.deepEqual((await pool.query("SELECT name FROM tag ORDER BY name")).rows, [{ name: "a" }, { name: "b" }]);
  assert.equal((await pool.query("SELECT id FROM tag WHERE name = 'a'")).rows[0].id, a);
  out["upsert"] = true;

  // an insert: a positional argument, a parameter's default (score = 1)
  assert.deepEqual(await q.newPost({ title: "p1" }), { title: "p1", score: "1" });
  const p2 = await q.newPostScored({ title: "p2", score: 5 });
  assert.deepEqual((await pool.query("SELECT id, score FROM post WHERE title = 'p2'")).rows, [{ id: p2, score: "5" }]);
  await assert.rejects(q.newPost({ title: "p1" }), fc.UqPostTitleError);
  // an object argument <Post>$post: the post of that id; none fails the statement
  assert.deepEqual(await q.commentOn({ post: p2, body: "nice" }), { body: "nice", post: { title: "p2" } });
  await assert.rejects(q.commentOn({ post: "00000000-0000-0000-0000-000000000000", body: "lost" }), /assert_exists violation: expression returned an empty set/);
  assert.deepEqual((await pool.query("SELECT body FROM comment")).rows, [{ body: "nice" }]);
  out["insert"] = true;

  // set of: an update, and a select with order by and limit
  assert.deepEqual(await q.bump({ title: "p1" }), [{ title: "p1", score: "2" }]);
  assert.deepEqual(await q.bump({ title: "none" }), []);
  assert.deepEqual(await q.topPosts({ min_score: 2, n: 10 }), [{ title: "p2", score: "5" }, { title: "p1", score: "2" }]);
  assert.deepEqual(await q.topPosts({ min_score: 0, n: 1 }), [{ title: "p2", score: "5" }]);
  assert.deepEqual(await q.topPosts({ min_score: 6, n: 10 }), []);
  const ids = await q.topPostIds();
  assert.deepEqual(ids.map((r) => r.id), [p2, (await pool.query("SELECT id FROM post WHERE title = 'p1'")).rows[0].id]);
  out["sets"] = true;

  // optional: the property of the object, or null
  assert.equal(await q.postScore({ title: "p2" }), "5");
  assert.equal(await q.postScore({ title: "zzz" }), null);
  out["optional"] = true;

  // count() of writes: each runs once, and every write and read of the statement sees the
  // database as it was before it (tag b, linked only by p1, is not unused yet)
  await pool.query(
    "INSERT INTO post_tags (source_id, target_id) SELECT p.id, t.id FROM post p, tag t " +
      "WHERE (p.title = 'p2' AND t.name = 'a') OR (p.title = 'p1' AND t.name = 'b')",
  );
  assert.deepEqual(await q.cleanUp({ min_score: 3 }), { unused_tags: "0", low_posts: "1", kept: "2" });
  assert.deepEqual(await q.cleanUp({ min_score: 3 }), { unused_tags: "1", low_posts: "0", kept: "1" });
  assert.deepEqual((await pool.query("SELECT name FROM tag")).rows, [{ name: "a" }]);
  assert.equal(await q.resetScores({ above: 4 }), "1");
  assert.equal(await q.resetScores({ above: 4 }), "0");
  assert.equal(await q.dropTag({ name: "zzz" }), "0");
  await assert.rejects(q.dropTag({ name: "a" }), fc.FkPostTagsTargetIdError);
  await pool.query("DELETE FROM post_tags");
  assert.equal(await q.dropTag({ name: "a" }), "1");
  out["countedWrites"] = true;
  console.log(JSON.stringify(out));
} finally {
  await pool.end();
}
