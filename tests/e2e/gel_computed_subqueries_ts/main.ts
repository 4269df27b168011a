// End-to-end program for the generated TypeScript runner of tests/cases/computed_subqueries (see
// test_gel_computed_subqueries_e2e.py): computeds made of sub-queries (filtered backlinks and
// links, aggregates over them, exists of a sub-select, min/max of a set, a sub-select reading
// its object by type name) and a computed global with a shape, through node-postgres. Prints
// one JSON object of observations; a failed expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as cs from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const out: Record<string, boolean> = {};

// Type-level checks: the computeds' result types and cardinality.
export async function typeChecks(): Promise<void> {
  const q = cs.createRunner(pool).query;
  const a = await q.authorPage({ name: "x" });
  const first: Date | null | undefined = a?.first_post;
  const likes: string | undefined = a?.total_likes;
  const drafts: boolean | undefined = a?.has_drafts;
  const best: number | null | undefined = a?.best_score;
  const published: Array<{ title: string }> | undefined = a?.published;
  const [p] = await q.myPosts({});
  const editor: { name: string } | null | undefined = p?.editor;
  // @ts-expect-error first_post is empty for an author without posts
  const notNull: Date = a!.first_post;
  void [first, likes, drafts, best, published, editor, notNull];
}

async function id(sql: string, values: unknown[]): Promise<string> {
  const res = await pool.query(sql, values);
  return (res.rows[0] as { id: string }).id;
}

try {
  await pool.query("TRUNCATE author, note CASCADE");
  const author = (name: string, handle: string, a: number | null, b: number | null) =>
    id("INSERT INTO author (name, handle, score_a, score_b) VALUES ($1, $2, $3, $4) RETURNING id",
      [name, handle, a, b]);
  const ann = await author("Ann", "ann", 3, 7);
  const abe = await author("Abe", "abe", null, 2);
  const bob = await author("Bob", "bob", null, null);
  const cid = await author("Cid", "cid", 1, null);
  for (const f of [abe, bob, cid]) {
    await pool.query("INSERT INTO author_follows (source_id, target_id) VALUES ($1, $2)", [ann, f]);
  }
  const post = (title: string, by: string, published: boolean, likes: number, created: string, editor: string | null) =>
    pool.query("INSERT INTO post (title, author_id, published, likes, created, editor_handle) "
      + "VALUES ($1, $2, $3, $4, $5, $6)", [title, by, published, likes, created, editor]);
  await post("a1", ann, true, 5, "2024-01-01T00:00:00Z", "bob");
  await post("a2", ann, true, 10, "2024-02-01T00:00:00Z", null);
  await post("a3", ann, false, 1, "2024-03-01T00:00:00Z", "nobody");
  await post("b1", bob, false, 0, "2024-04-01T00:00:00Z", "ann");
  const q = cs.createRunner(pool).query;

  const page = await q.authorPage({ name: "Ann" });
  assert.ok(page !== null);
  const byKey = <T>(k: keyof T) => (x: T, y: T) => String(x[k]).localeCompare(String(y[k]));
  assert.deepEqual({ ...page, published: [...page.published].sort(byKey("title")),
    followed_a: [...page.followed_a].sort(byKey("name")) }, {
    name: "Ann",
    first_post: new Date("2024-01-01T00:00:00Z"),
    last_published: new Date("2024-02-01T00:00:00Z"),
    total_likes: "16",
    has_drafts: true,
    best_score: 7,
    published: [{ title: "a1" }, { title: "a2" }],
    followed_a: [{ name: "Abe" }],
  });
  out["filteredLinks"] = true;
  out["aggregates"] = true;

  // Without any post: min / max are empty, sum is 0; max of {empty, 2} is 2, of two empties empty.
  assert.deepEqual(await q.authorPage({ name: "Abe" }), {
    name: "Abe", first_post: null, last_published: null, total_likes: "0", has_drafts: false, best_score: 2,
    published: [], followed_a: [] });
  const bobPage = await q.authorPage({ name: "Bob" });
  assert.deepEqual([bobPage?.has_drafts, bobPage?.best_score, bobPage?.last_published, bobPage?.first_post],
    [true, null, null, new Date("2024-04-01T00:00:00Z")]);
  out["emptySets"] = true;

  assert.deepEqual(await q.likedAuthors({ min: 0 }), [
    { name: "Ann", total_likes: "16" }, { name: "Abe", total_likes: "0" }, { name: "Bob", total_likes: "0" },
    { name: "Cid", total_likes: "0" }]);
  assert.deepEqual(await q.likedAuthors({ min: 1 }), [{ name: "Ann", total_likes: "16" }]);
  out["filterOnAggregate"] = true;

  assert.deepEqual(await q.myPosts({}), []);
  assert.equal(await q.whoami({}), null);
  const asAnn = cs.createRunner(pool, { globals: { current_user_id: ann } });
  assert.deepEqual(await asAnn.query.myPosts({}), [
    { title: "a1", editor: { name: "Bob" } }, { title: "a2", editor: null }, { title: "a3", editor: null }]);
  assert.deepEqual(await asAnn.withGlobals({ current_user_id: bob }).query.whoami({}), { name: "Bob", handle: "bob" });
  out["computedGlobal"] = true;
  out["typeNamePath"] = true;

  // Paths through links, unions, [is T] on a polymorphic link, re_match_all in a with block.
  const postId = async (title: string) =>
    ((await pool.query("SELECT id FROM post WHERE title = $1", [title])).rows[0] as { id: string }).id;
  for (const [title, reviewer] of [["a1", abe], ["a1", bob], ["a2", abe], ["a2", ann]] as const) {
    await pool.query("INSERT INTO post_reviewers (source_id, target_id) VALUES ($1, $2)", [await postId(title), reviewer]);
  }
  await pool.query("UPDATE post SET co_author_id = $1 WHERE title = 'b1'", [abe]);
  await post("wow!! OMG!", cid, true, 0, "2024-05-01T00:00:00Z", null);
  const note = await id("INSERT INTO note (text) VALUES ('n') RETURNING id", []);
  const a1 = await postId("a1");
  await pool.query("INSERT INTO author_pins (source_id, target_id, target_post_id) VALUES ($1, $2, $2)", [ann, a1]);
  await pool.query("INSERT INTO author_pins (source_id, target_id, target_note_id) VALUES ($1, $2, $2)", [ann, note]);
  const names = (xs: Array<{ name: string }>) => xs.map((x) => x.name).sort();
  const circles = await q.circles({});
  assert.deepEqual(circles.map((c) => ({ ...c, my_reviewers: names(c.my_reviewers), circle: names(c.circle),
    outside_reviewers: names(c.outside_reviewers) })), [
    { name: "Abe", has_open_work: true, circle_size: "0", my_reviewers: [], circle: [], pinned_posts: [],
      best_post: null, outside_reviewers: [] },
    { name: "Ann", has_open_work: true, circle_size: "6", my_reviewers: ["Abe", "Ann", "Bob"],
      circle: ["Abe", "Abe", "Ann", "Bob", "Bob", "Cid"], pinned_posts: [{ title: "a1" }],
      best_post: { title: "a2" }, outside_reviewers: ["Abe", "Bob"] },
    { name: "Bob", has_open_work: true, circle_size: "0", my_reviewers: [], circle: [], pinned_posts: [],
      best_post: null, outside_reviewers: [] },
    { name: "Cid", has_open_work: false, circle_size: "0", my_reviewers: [], circle: [], pinned_posts: [],
      best_post: null, outside_reviewers: [] },
  ]);
  // Two objects where assert_single allows one: the statement fails (SQLSTATE 21000).
  await pool.query("UPDATE post SET likes = 20 WHERE title = 'a1'");
  await assert.rejects(q.circles({}), (e: { code?: string }) => e.code === "21000");
  await pool.query("UPDATE post SET likes = 5 WHERE title = 'a1'");
  out["pathsAndUnions"] = true;
  assert.deepEqual(await q.postMarks({}), [
    { title: "a1", bangs: "0", loud: false }, { title: "a2", bangs: "0", loud: false },
    { title: "a3", bangs: "0", loud: false }, { title: "b1", bangs: "0", loud: false },
    { title: "wow!! OMG!", bangs: "2", loud: true }]);
  out["withRegexMatches"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
