// End-to-end program for the generated TypeScript runner of tests/cases/gel_shapes (see
// test_gel_shapes_e2e.py): splats, computed shape elements and query files named in
// kebab-case / camelCase, through node-postgres. Prints one JSON object of observations; a
// failed expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as gs from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const q = gs.createRunner(pool).query;
const out: Record<string, boolean> = {};

// Type-level checks: never called, but must compile (or fail to compile where marked).
export async function typeChecks(): Promise<void> {
  const all: gs.AuthorsAllResult[] = await q.authorsAll({});
  const bio: string | null = all[0]!.bio;
  const shout: string = all[0]!.shout;
  const details = await q.bookDetails({ id: "" });
  const authorShout: string | undefined = details?.author.shout;
  const stats = await q.bookStats({ suffix: "" });
  const long: boolean | null | undefined = stats[0]?.long;
  const overview = await q.authorOverview({ name: "" });
  // `bio := .bio ?? '(none)'` is never empty.
  const overviewBio: string | undefined = overview?.bio;
  // @ts-expect-error a computed element with a parameter needs it
  await q.bookStats({});
  void [bio, shout, authorShout, long, overviewBio];
}

async function id(sql: string, values: unknown[] = []): Promise<string> {
  const res = await pool.query(sql, values);
  return (res.rows[0] as { id: string }).id;
}

try {
  await pool.query("TRUNCATE author, tag CASCADE");
  const ann = await id("INSERT INTO author (name, bio) VALUES ('Ann', 'writes') RETURNING id");
  const bob = await id("INSERT INTO author (name) VALUES ('Bob') RETURNING id");
  const alpha = await id("INSERT INTO book (title, pages, author_id) VALUES ('Alpha', 420, $1) RETURNING id", [ann]);
  await pool.query("INSERT INTO book (title, pages, author_id) VALUES ('Beta', NULL, $1)", [ann]);
  const sf = await id("INSERT INTO tag (name) VALUES ('sf') RETURNING id");
  await pool.query("INSERT INTO book_tags (source_id, target_id) VALUES ($1, $2)", [alpha, sf]);

  assert.deepEqual(await q.authorsAll({}), [
    { id: ann, name: "Ann", bio: "writes", shout: "ANN" },
    { id: bob, name: "Bob", bio: null, shout: "BOB" },
  ]);
  out["splat"] = true;

  assert.deepEqual(await q.bookDetails({ id: alpha }), {
    id: alpha, title: "Alpha", pages: 420,
    author: { id: ann, name: "Ann", bio: "writes", shout: "ANN" },
    tags: [{ id: sf, name: "sf" }],
  });
  assert.equal(await q.bookDetails({ id: bob }), null);
  out["doubleSplat"] = true;

  assert.deepEqual(await q.bookStats({ suffix: "!" }), [
    { title: "Alpha", tag_count: "1", long: true, label: "Alpha!", author: { name: "Ann", name_length: "3" } },
    { title: "Beta", tag_count: "0", long: null, label: "Beta!", author: { name: "Ann", name_length: "3" } },
  ]);
  out["computedElements"] = true;

  const bobView = await q.authorOverview({ name: "Bob" });
  assert.deepEqual(bobView, { id: bob, name: "Bob", shout: "BOB", bio: "(none)", books: [] });
  const annView = await q.authorOverview({ name: "Ann" });
  assert.deepEqual(annView?.books.map((b) => b.title).sort(), ["Alpha", "Beta"]);
  out["splatOverride"] = true;

  assert.deepEqual(await q.booksByAuthor({ pattern: "a%" }), [
    { title: "Alpha", by: "Ann" }, { title: "Beta", by: "Ann" },
  ]);
  out["linkPath"] = true;

  // `Author.name` is `.name`; exclusive, so one row or null.
  const byName: gs.AuthorByNameResult | null = await q.authorByName({ name: "Ann" });
  assert.deepEqual(byName, { name: "Ann", book_count: "2" });
  assert.equal(await q.authorByName({ name: "Nobody" }), null);
  out["typePath"] = true;

  // Links named without a shape: their objects' ids (a computed link; in a nested shape a
  // single and a multi link).
  const beta = (await pool.query("SELECT id FROM book WHERE title = 'Beta'")).rows[0].id as string;
  const ids = await q.authorLinkIds({ name: "Ann" });
  assert.deepEqual(ids?.books.map((b) => b.id).sort(), [alpha, beta].sort());
  assert.deepEqual(ids?.written.slice().sort((x, y) => x.title.localeCompare(y.title)), [
    { title: "Alpha", author: { id: ann }, tags: [{ id: sf }] },
    { title: "Beta", author: { id: ann }, tags: [] },
  ]);
  assert.equal(await q.authorLinkIds({ name: "Nobody" }), null);
  out["bareLinks"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
