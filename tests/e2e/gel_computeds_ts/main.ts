// End-to-end program for the generated TypeScript runner of tests/cases/computeds (see
// test_gel_computeds_e2e.py): computed properties and links and backlinks selected, filtered and
// ordered on, through node-postgres. Prints one JSON object of observations; a failed
// expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as cp from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const out: Record<string, boolean> = {};

// Type-level checks: the computeds' result types and cardinality.
export async function typeChecks(): Promise<void> {
  const q = cp.createRunner(pool).query;
  const [a] = await q.authors({});
  const name: string | null | undefined = a?.full_name;
  const count: string | undefined = a?.post_count;
  const shout: string | undefined = a?.posts[0]?.shout;
  const page = await q.tagPage({ name: "go" });
  const go: { name: string } | null | undefined = page?.go;
  // @ts-expect-error full_name may be empty
  const notNull: string = a!.full_name;
  void [name, count, shout, go, notNull];
}

async function id(sql: string, values: unknown[]): Promise<string> {
  const res = await pool.query(sql, values);
  return (res.rows[0] as { id: string }).id;
}

try {
  await pool.query('TRUNCATE "user", tag CASCADE');
  const ann = await id("INSERT INTO \"user\" (first_name, last_name) VALUES ('Ann', 'Lee') RETURNING id", []);
  const bob = await id("INSERT INTO \"user\" (first_name) VALUES ('Bob') RETURNING id", []);
  await id("INSERT INTO \"user\" (first_name, last_name) VALUES ('Cid', 'Q') RETURNING id", []);
  const tags: Record<string, string> = {};
  for (const name of ["go", "sql"]) {
    tags[name] = await id("INSERT INTO tag (name) VALUES ($1) RETURNING id", [name]);
  }
  const post = async (title: string, author: string, tagNames: string[]) => {
    const p = await id("INSERT INTO post (title, author_id) VALUES ($1, $2) RETURNING id", [title, author]);
    for (const t of tagNames) {
      await pool.query("INSERT INTO post_tags (source_id, target_id) VALUES ($1, $2)", [p, tags[t]]);
    }
  };
  await post("hello", ann, ["go", "sql"]);
  await post("world", ann, ["go"]);
  await post("bob post", bob, ["sql"]);
  const q = cp.createRunner(pool).query;

  const authors = await q.authors({});
  const byTitle = (x: { title: string }, y: { title: string }) => x.title.localeCompare(y.title);
  assert.deepEqual(authors.map((a) => ({ ...a, posts: [...a.posts].sort(byTitle) })), [
    { first_name: "Ann", full_name: "Ann Lee", post_count: "2",
      posts: [{ title: "hello", shout: "HELLO" }, { title: "world", shout: "WORLD" }] },
    { first_name: "Cid", full_name: "Cid Q", post_count: "0", posts: [] },
    { first_name: "Bob", full_name: null, post_count: "1", posts: [{ title: "bob post", shout: "BOB POST" }] },
  ]);
  out["computedProperties"] = true;
  out["backlinks"] = true;

  assert.deepEqual(await q.prolific({ min: 1 }), [{ full_name: "Ann Lee" }, { full_name: null }]);
  assert.deepEqual(await q.prolific({ min: 2 }), [{ full_name: "Ann Lee" }]);
  assert.deepEqual(await q.withPosts({}), [{ first_name: "Ann" }, { first_name: "Bob" }]);
  out["filterAndOrder"] = true;

  const sqlPage = await q.tagPage({ name: "sql" });
  assert.ok(sqlPage !== null);
  assert.deepEqual([...sqlPage.posts].sort(byTitle), [
    { title: "bob post", author: { full_name: null } }, { title: "hello", author: { full_name: "Ann Lee" } }]);
  assert.deepEqual(sqlPage.go, { name: "go" });
  assert.equal(await q.tagPage({ name: "nope" }), null);
  out["nestedComputeds"] = true;

  assert.deepEqual(await q.myPosts({}), []);
  assert.deepEqual(await cp.createRunner(pool, { globals: { viewer_id: bob } }).query.myPosts({}),
    [{ title: "bob post", is_mine: true }]);
  out["computedReadsGlobal"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
