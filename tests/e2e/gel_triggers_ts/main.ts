// End-to-end program for the generated TypeScript runner of tests/cases/gel_triggers (see
// test_gel_triggers_e2e.py): mutation rewrites, Gel triggers and deletion policies hold for the
// runner's statements through node-postgres (they are Postgres triggers and foreign keys).
// Prints one JSON object of observations; a failed expectation throws.
import assert from "node:assert/strict";
import pg from "pg";

import * as gt from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const out: Record<string, boolean> = {};

async function rows(sql: string): Promise<unknown[]> {
  return (await pool.query(sql)).rows;
}

try {
  await pool.query("TRUNCATE author, image, tag, post, log, counter CASCADE");
  const db = gt.createRunner(pool);
  await db.query.addCounter({ name: "posts" });
  const count = async () => (await db.query.postCount()).map((c) => c.n);

  // Rewrites: slug and created_at on insert; slug, modified_at and revision on update.
  const news = await db.query.addTag({ name: "news" });
  const misc = await db.query.addTag({ name: "misc" });
  const hello = await db.query.addPost({ title: "  Hello World ", tags: [news.id] });
  const other = await db.query.addPost({ title: "Other", tags: [misc.id] });
  const solo = await db.query.addPost({ title: "Solo", tags: [] });
  let [h] = (await db.query.posts()).filter((p) => p.title === "  Hello World ");
  assert.ok(h);
  assert.equal(h.slug, "hello world");
  assert.ok(h.created_at instanceof Date);
  assert.equal(h.modified_at, null);
  assert.equal(h.revision, "0");
  assert.deepEqual(h.tags, [{ name: "news" }]);
  const created = h.created_at.getTime();
  assert.deepEqual(await db.query.renamePost({ id: hello.id, title: "Hello Again" }), { id: hello.id });
  [h] = (await db.query.posts()).filter((p) => p.title === "Hello Again");
  assert.ok(h);
  assert.equal(h.slug, "hello again");
  assert.equal(h.created_at.getTime(), created); // an insert-only rewrite
  assert.ok(h.modified_at instanceof Date && h.modified_at.getTime() >= created);
  assert.equal(h.revision, "1");
  await db.query.renamePost({ id: hello.id, title: "Hello Again" }); // same title: no rename log
  [h] = (await db.query.posts()).filter((p) => p.title === "Hello Again");
  assert.equal(h?.revision, "2");
  out["rewrites"] = true;

  // Triggers: one log row per insert, per rename (when the title changed), per delete.
  assert.deepEqual(await db.query.deletePost({ id: solo.id }), { id: solo.id });
  assert.deepEqual(await db.query.logs(), [
    { action: "insert", title: "  Hello World " },
    { action: "rename", title: "  Hello World  -> Hello Again" },
    { action: "insert", title: "Other" },
    { action: "insert", title: "Solo" },
    { action: "delete", title: "Solo" },
  ]);
  // Update bodies (one statement, and the second of a set): the counter follows.
  assert.deepEqual(await count(), ["2"]);
  // assert(): the insert fails with the message; nothing it did stays.
  await assert.rejects(db.query.addPost({ title: "LOUD NOISES", tags: [news.id] }), (err) =>
    err instanceof Error && err.message === "no shouting" && (err as { code?: string }).code === "P0001");
  await assert.rejects(db.query.renamePost({ id: hello.id, title: "HELLO" }), /no shouting/);
  assert.deepEqual(await count(), ["2"]);
  assert.equal((await db.query.logs()).length, 5);
  out["triggers"] = true;

  // on target delete delete source: deleting a tag deletes the posts that have it (and the
  // delete trigger logs them); the other posts stay.
  assert.deepEqual(await db.query.deleteTag({ id: misc.id }), { id: misc.id });
  assert.deepEqual((await db.query.posts()).map((p) => p.title), ["Hello Again"]);
  assert.deepEqual((await db.query.logs()).filter((l) => l.action === "delete").map((l) => l.title),
    ["Other", "Solo"]);
  void other;

  // on source delete delete target [if orphan]: an author's avatar goes with it; its posts go
  // unless another author lists them.
  const ann = await db.query.addAuthor({ name: "Ann" });
  const bob = await db.query.addAuthor({ name: "Bob" });
  const img = await db.query.addImage({ url: "ann.png" });
  await db.query.addImage({ url: "keep.png" });
  assert.deepEqual(await db.query.setAvatar({ id: ann.id, image: img.id }), { id: ann.id });
  const mine = await db.query.addPost({ title: "Ann only", tags: [] });
  await db.query.addAuthored({ id: ann.id, posts: [mine.id, hello.id] });
  await db.query.addAuthored({ id: bob.id, posts: [hello.id] });
  assert.deepEqual(await db.query.deleteAuthor({ id: ann.id }), { id: ann.id });
  assert.deepEqual((await db.query.posts()).map((p) => p.title), ["Hello Again"]); // Bob lists it
  assert.deepEqual((await db.query.images()).map((i) => i.url), ["keep.png"]);
  await db.query.deleteAuthor({ id: bob.id });
  assert.deepEqual(await db.query.posts(), []);
  assert.deepEqual(await count(), ["0"]); // the cascades' deletes fired the trigger too
  assert.deepEqual(await rows("SELECT count(*)::int AS n FROM post_tags"), [{ n: 0 }]);
  out["deletionPolicies"] = true;

  // A global the triggers read: the runner's globals reach them; without any, it is empty.
  const asEve = db.withGlobals({ actor: "eve" });
  const eves = await asEve.query.addPost({ title: "By Eve", tags: [] });
  await asEve.query.deletePost({ id: eves.id });
  assert.deepEqual(await rows("SELECT action, actor FROM log WHERE title = 'By Eve' ORDER BY action DESC"),
    [{ action: "insert", actor: "eve" }, { action: "delete", actor: "eve" }]);
  assert.deepEqual(await rows("SELECT DISTINCT actor FROM log WHERE title <> 'By Eve'"), [{ actor: null }]);
  out["globals"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
