// End-to-end program for the generated TypeScript runner of tests/cases/query_forms (see
// test_query_forms_e2e.py): with blocks, json bulk inserts, multi link changes in updates, link
// properties and partial updates, through node-postgres. Prints one JSON object of
// observations; a failed expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as qf from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const runner = qf.createRunner(pool);
const q = runner.query;
const out: Record<string, boolean> = {};

// Type-level checks: never called, but must compile (or fail to compile where marked).
export async function typeChecks(): Promise<void> {
  // Partial update: every value but the id may be omitted.
  await q.editPost({ id: "" });
  // @ts-expect-error the id is required
  await q.editPost({ title: "t" });
  // A link property comes back under its Gel name.
  const row = await q.postTags({ id: "" });
  const position: number | null | undefined = row?.tags[0]?.["@position"];
  // The bound insert's shape: nested author, exactly one row.
  const created: qf.CreatePostResult = await q.createPost({ title: "", slug: "", author_id: "", tag_ids: [] });
  const email: string = created.author.email;
  // @ts-expect-error json_array_unpack takes a JSON document, not a missing value
  await q.importPosts({ items: null });
  void position;
  void email;
}

async function one<T>(sql: string, values: unknown[] = []): Promise<T> {
  const res = await pool.query(sql, values);
  return res.rows[0] as T;
}

async function tagNames(postId: string): Promise<string[]> {
  const res = await pool.query(
    "SELECT t.name FROM post_tags pt JOIN tag t ON t.id = pt.target_id WHERE pt.source_id = $1 ORDER BY t.name",
    [postId],
  );
  return res.rows.map((r: { name: string }) => r.name);
}

try {
  await pool.query("TRUNCATE account, tag CASCADE");
  const ann = await one<{ id: string }>("INSERT INTO account (email, name) VALUES ('ann@example.com', 'Ann') RETURNING id");
  const tags: Record<string, string> = {};
  for (const name of ["go", "sql", "ts"]) {
    tags[name] = (await one<{ id: string }>("INSERT INTO tag (name) VALUES ($1) RETURNING id", [name])).id;
  }
  const [go, sql, ts] = [tags["go"]!, tags["sql"]!, tags["ts"]!];

  // with: a value bound once, a parameter used twice.
  const found = await q.accountByEmail({ email: "ANN@Example.com" });
  assert.deepEqual(found, { id: ann.id, email: "ann@example.com", name: "Ann" });
  assert.equal(await q.accountByEmail({ email: "nobody@example.com" }), null);
  assert.deepEqual(await q.accountsNamed({ who: "Ann" }), [{ id: ann.id, email: "ann@example.com" }]);
  out["withValues"] = true;

  // with: a bound insert (with its tags) selected with a nested shape, one statement.
  const created = await q.createPost({ title: "Hello", slug: "hello", author_id: ann.id, tag_ids: [go, sql, go] });
  assert.deepEqual({ ...created, id: "" }, { id: "", title: "Hello", views: 0, author: { email: "ann@example.com", name: "Ann" } });
  assert.deepEqual(await tagNames(created.id), ["go", "sql"]);
  await assert.rejects(q.createPost({ title: "Again", slug: "hello", author_id: ann.id, tag_ids: [] }),
    (err) => err instanceof qf.UqPostSlugError);
  // an unknown id: (select Tag filter .id in ...) finds nothing, so nothing is linked, as in Gel
  // (https://docs.geldata.com/reference/edgeql/insert#links; issue 25, item 6)
  const unknownTag = await q.createPost({ title: "X", slug: "x", author_id: ann.id, tag_ids: ["00000000-0000-0000-0000-000000000001"] });
  assert.deepEqual(await tagNames(unknownTag.id), []);
  const published = await q.publishPost({ id: created.id });
  assert.ok(published !== null && published.published_at instanceof Date);
  assert.deepEqual(published.tags.map((t) => `${t.name}@${String(t["@position"])}`).sort(), ["go@0", "sql@0"]);
  assert.equal(await q.publishPost({ id: "00000000-0000-0000-0000-000000000000" }), null);
  out["withStatements"] = true;

  // Multi link changes in an update.
  assert.deepEqual(await q.addTags({ id: created.id, tag_ids: [ts] }), { id: created.id });
  assert.deepEqual(await tagNames(created.id), ["go", "sql", "ts"]);
  await pool.query("UPDATE post_tags SET position = 7, note = 'kept' WHERE target_id = $1", [sql]);
  assert.deepEqual(await q.removeTags({ id: created.id, tag_ids: [go] }), { id: created.id });
  assert.deepEqual(await tagNames(created.id), ["sql", "ts"]);
  const retagged = await q.retagPost({ id: created.id, title: "Retagged", tag_ids: [sql, go] });
  assert.deepEqual(retagged, { id: created.id, title: "Retagged", author: { email: "ann@example.com" } });
  assert.deepEqual(await tagNames(created.id), ["go", "sql"]);
  assert.equal(await q.addTags({ id: "00000000-0000-0000-0000-000000000000", tag_ids: [go] }), null);
  out["multiLinkUpdates"] = true;

  // Link properties in a shape.
  const withProps = await q.postTags({ id: created.id });
  assert.ok(withProps !== null);
  const byName = Object.fromEntries(withProps.tags.map((t) => [t.name, t]));
  assert.deepEqual(byName["sql"], { name: "sql", "@position": 7, "@note": "kept" });
  assert.deepEqual(byName["go"], { name: "go", "@position": 0, "@note": null });
  out["linkProperties"] = true;

  // Partial update: omitted values leave the properties as they are.
  await pool.query("UPDATE post SET body = 'text', views = 3 WHERE id = $1", [created.id]);
  assert.deepEqual(await q.editPost({ id: created.id, views: 4 }), { id: created.id });
  const state = await one<{ title: string; body: string; views: number }>(
    "SELECT title, body, views FROM post WHERE id = $1", [created.id]);
  assert.deepEqual(state, { title: "Retagged", body: "text", views: 4 });
  await q.editPost({ id: created.id, title: "Edited", body: null });
  assert.deepEqual(await one("SELECT title, body, views FROM post WHERE id = $1", [created.id]),
    { title: "Edited", body: "text", views: 4 });
  out["partialUpdate"] = true;

  // json_array_unpack: 1,000 posts in one round trip; duplicates skipped.
  const items: qf.JsonValue[] = [];
  for (let i = 0; i < 1000; i++) {
    items.push({ title: `P${i}`, slug: `p${i}`, author: ann.id, views: i % 2 === 0 ? i : null, labels: i === 1 ? ["a", "b"] : null });
  }
  items.push({ title: "dup", slug: "p0", author: ann.id }, { title: "old", slug: "hello", author: ann.id });
  let statements = 0;
  const counting: qf.Queryable = {
    query: (text: string, values?: unknown[]) => {
      statements++;
      return pool.query(text, values as unknown[]);
    },
  };
  const imported = await qf.createRunner(counting).query.importPosts({ items });
  assert.equal(imported.length, 1000);
  assert.equal(statements, 1);
  assert.deepEqual(await one("SELECT views, labels FROM post WHERE slug = 'p1'"), { views: 0, labels: ["a", "b"] });
  assert.deepEqual(await one("SELECT views, labels FROM post WHERE slug = 'p4'"), { views: 4, labels: null });
  await assert.rejects(q.importPosts({ items: [{ title: null, slug: "null-title", author: ann.id }] }),
    (err) => err instanceof qf.NotNullViolationError);
  // a missing member fails as Gel's json[name] (https://docs.geldata.com/reference/stdlib/json#operator::jsonobjdest)
  await assert.rejects(q.importPosts({ items: [{ slug: "no-title", author: ann.id }] }),
    (err: { code?: string; message?: string }) => err.code === "22P02" && (err.message ?? "").includes("JSON index 'title' is out of bounds"));
  await assert.rejects(q.importPosts({ items: [{ title: "t", slug: "orphan", author: "00000000-0000-0000-0000-000000000000" }] }),
    (err) => err instanceof qf.FkPostAuthorIdError);
  out["jsonBulk"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
