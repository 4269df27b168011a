// End-to-end program for the generated TypeScript runner of tests/cases/gel_poly_links (see
// test_gel_poly_links_e2e.py): polymorphic links written through sub-selects of a subtype and
// read through shapes (the common properties, [is T] for one subtype's), with node-postgres.
// Prints one JSON object of observations; a failed expectation throws.
import assert from "node:assert/strict";
import pg from "pg";

import * as gp from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const out: Record<string, boolean> = {};

try {
  await pool.query("TRUNCATE movie, show, review, watchlist, badge, gold_badge CASCADE");
  const db = gp.createRunner(pool);
  const alien = await db.query.addMovie({ title: "Alien", year: 1979 });
  const heat = await db.query.addMovie({ title: "Heat" });
  const lost = await db.query.addShow({ title: "Lost", seasons: 6 });

  // Writes: the sub-select's type picks the column.
  await db.query.reviewMovie({ body: "scary", movie: alien.id });
  await db.query.reviewShow({ body: "long", show: lost.id });
  await assert.rejects(db.query.reviewMovie({ body: "wrong type", movie: lost.id }), gp.ForeignKeyViolationError);
  assert.deepEqual(await db.query.reviews(), [
    { body: "long", subject: { id: lost.id, title: "Lost" } },
    { body: "scary", subject: { id: alien.id, title: "Alien" } },
  ]);
  const mine = await db.query.addWatchlist({ name: "mine" });
  await db.query.addWatchlist({ name: "empty" });
  await db.query.favourMovie({ id: mine.id, movie: heat.id });
  await pool.query(
    `INSERT INTO watchlist_items (source_id, target_id, target_movie_id, added) VALUES ($1, $2, $2, '2026-01-02T00:00:00Z')`,
    [mine.id, alien.id]);
  await pool.query(`INSERT INTO watchlist_items (source_id, target_id, target_show_id) VALUES ($1, $2, $2)`,
    [mine.id, lost.id]);
  out["writes"] = true;

  // Reads: common properties, [is T] fragments, link properties, nulls.
  let [empty, m] = await db.query.watchlists();
  assert.deepEqual(empty, { name: "empty", favourite: null, fav_movie: null, items: [], shows: [] });
  assert.ok(m);
  assert.deepEqual(m.favourite, { title: "Heat" });
  assert.deepEqual(m.fav_movie, { release_year: null });
  assert.deepEqual(m.items.map((i) => i.title), ["Alien", "Lost"]);
  assert.ok(m.items[0]?.["@added"] instanceof Date);
  assert.equal(m.items[1]?.["@added"], null);
  assert.deepEqual(m.shows, [{ title: "Lost", seasons: 6 }]);
  // An update moves the link to the other subtype: the movie column is cleared.
  await db.query.favourShow({ id: mine.id, show: lost.id });
  [, m] = await db.query.watchlists();
  assert.deepEqual([m?.favourite, m?.fav_movie], [{ title: "Lost" }, null]);
  out["reads"] = true;

  // on target delete, per subtype: the show's review goes (delete source), the favourite is
  // unset and the item unlinked (allow).
  await db.query.deleteShow({ id: lost.id });
  assert.deepEqual((await db.query.reviews()).map((r) => r.body), ["scary"]);
  [, m] = await db.query.watchlists();
  assert.deepEqual([m?.favourite, m?.items.map((i) => i.title), m?.shows], [null, ["Alien"], []]);
  out["deletes"] = true;

  // A nested insert and a with-bound one set the column of their subtype (a loop over
  // constants links two reviews to one new show); backlinks read through the link.
  const fresh = await db.query.reviewNewMovie({ body: "fresh", title: "Up" });
  assert.equal((await db.query.reviewNewShowTwice({ title: "Dark" })).length, 2);
  const stored = await pool.query(
    `SELECT body, subject_movie_id IS NOT NULL AS movie, (SELECT title FROM show WHERE id = subject_show_id) AS show
     FROM review ORDER BY body`);
  assert.deepEqual(stored.rows, [
    { body: "first", movie: false, show: "Dark" }, { body: "fresh", movie: true, show: null },
    { body: "scary", movie: true, show: null }, { body: "second", movie: false, show: "Dark" },
  ]);
  const byMovie = await db.query.movieReviews();
  assert.deepEqual(byMovie.map((x) => [x.title, x.reviews, x.review_ids.length]), [
    ["Alien", [{ body: "scary" }], 1], ["Heat", [], 0], ["Up", [{ body: "fresh" }], 1],
  ]);
  assert.equal(byMovie[2]?.review_ids[0]?.id, fresh.id);
  out["nested"] = true;

  // Queries on an abstract type: the objects of every subtype, [is T] fragments, the
  // computeds the abstract type declares, a backlink of an abstract type.
  const dark = (await pool.query("SELECT id FROM show WHERE title = 'Dark'")).rows[0] as { id: string };
  await db.query.addTip({ body: "a tip", movie: alien.id });
  await db.query.addWarning({ body: "a warning", level: 3, show: dark.id });
  const contents: gp.ContentsResult[] = await db.query.contents({ skip: "Heat", n: 10 });
  assert.deepEqual(contents.map((c) => [c.kind, c.title, c.shout, c.release_year, c.seasons, c.note_ids.length]), [
    ["default::Movie", "Up", "UP", null, null, 0], ["default::Show", "Dark", "DARK", null, null, 0],
    ["default::Movie", "Alien", "ALIEN", 1979, null, 1],
  ]);
  assert.deepEqual(await db.query.notes(), [
    { kind: "default::Tip", body: "a tip", level: null, about: { title: "Alien", kind: "default::Movie", shout: "ALIEN" } },
    { kind: "default::Warning", body: "a warning", level: 3, about: { title: "Dark", kind: "default::Show", shout: "DARK" } },
  ]);
  const one: gp.ContentByIdResult | null = await db.query.contentById({ id: dark.id });
  assert.deepEqual(one, { title: "Dark", kind: "default::Show" });
  assert.equal(await db.query.contentById({ id: "00000000-0000-0000-0000-000000000000" }), null);
  assert.deepEqual((await db.query.contentNotes()).map((c) => [c.title, c.notes]), [
    ["Alien", [{ body: "a tip", kind: "default::Tip" }]], ["Dark", []], ["Heat", []], ["Up", []],
  ]);
  // A concrete type other types extend: its select reads the subtypes' objects too.
  await pool.query("INSERT INTO badge (label) VALUES ('plain')");
  await pool.query("INSERT INTO gold_badge (label, karat) VALUES ('gold', 18)");
  assert.deepEqual(await db.query.badges(), [{ label: "gold", karat: 18 }, { label: "plain", karat: null }]);
  out["abstract"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
