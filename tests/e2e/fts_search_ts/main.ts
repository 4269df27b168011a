// End-to-end program for the generated TypeScript runner of tests/cases/fts_search (see
// test_fts_search_e2e.py): Gel's full-text search (https://docs.geldata.com/reference/stdlib/fts)
// through node-postgres. The items are the docs' example; their scores are the ones the docs
// print. Prints one JSON object of observations; a failed expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as fs from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const q = fs.createRunner(pool).query;
const out: Record<string, boolean> = {};

// Type-level checks: never called, but must compile.
export async function typeChecks(): Promise<void> {
  const r: fs.SearchItemsResult = (await q.searchItems({ q: "x" }))[0]!;
  const score: number = r.score;
  const description: string | null = r.description;
  const n: string = await q.countItems({ q: "x" });
  const t: { name: string }[] = (await q.topNotes({ q: "x", n: 1 }))[0]!.tags;
  await q.searchItemsWeighted({ q: "x" });
  void [score, description, n, t];
}

const names = (rows: { name: string; score: number }[]) => rows.map((r) => [r.name, r.score]);

try {
  await pool.query("TRUNCATE item, note, tag, pinboard CASCADE");
  await pool.query(`INSERT INTO item (name, description) VALUES
    ('Canned corn', NULL), ('Candy corn', 'A great Halloween treat'), ('Sweet', 'Treat made with corn sugar')`);
  await pool.query("INSERT INTO tag (name) VALUES ('garden'), ('food')");
  await pool.query(`INSERT INTO note (title, body) VALUES
    ('Garden notes', 'Tomatoes need sun: water the tomatoes daily'), ('Kitchen', 'Tomato soup with basil'),
    ('Sun and rain', NULL), ('Travel', 'Trains in the rain')`);
  await pool.query(`INSERT INTO note_tags (source_id, target_id)
    SELECT n.id, t.id FROM note n, tag t
    WHERE (n.title, t.name) IN (('Garden notes', 'garden'), ('Kitchen', 'food'), ('Kitchen', 'garden'))`);

  // Plain terms are optional (ORed); the best match first: the docs' scores.
  assert.deepEqual(names(await q.searchItems({ q: "corn treat" })),
                   [["Candy corn", 0.4559453], ["Canned corn", 0.30396354], ["Sweet", 0.30396354]]);
  assert.equal(await q.countItems({ q: "corn treat" }), "3");
  out["orderByScore"] = true;

  // A quoted phrase must appear; AND makes terms required; ! or - excludes.
  assert.deepEqual(names(await q.searchItems({ q: '"corn sugar"' })), [["Sweet", 0.4955161]]);
  assert.deepEqual(names(await q.searchItems({ q: "sweet AND treat" })), [["Sweet", 0.70076555]]);
  assert.deepEqual(names(await q.searchItems({ q: "!treat" })), [["Canned corn", 0]]);
  assert.deepEqual((await q.searchItems({ q: "corn -treat" })).map((r) => r.name), ["Canned corn"]);
  assert.deepEqual((await q.searchItems({ q: "halloween OR sugar" })).map((r) => r.name), ["Candy corn", "Sweet"]);
  // (lower-case "and" is a word, a stop word: the terms stay optional)
  assert.deepEqual((await q.searchItems({ q: "sweet and treat" })).map((r) => r.name), ["Sweet", "Candy corn"]);
  assert.deepEqual(await q.searchItems({ q: "zebra" }), []);
  assert.deepEqual(await q.searchItems({ q: "" }), []);
  assert.equal(await q.countItems({ q: "the" }), "0");
  out["querySyntax"] = true;

  // weights := [0.2, 1] ranks descriptions above names; none given: the defaults.
  assert.deepEqual(names(await q.searchItemsWeighted({ q: "corn treat", weights: [0.2, 1] })),
                   [["Sweet", 0.6079271], ["Candy corn", 0.36475626], ["Canned corn", 0.06079271]]);
  assert.deepEqual(names(await q.searchItemsWeighted({ q: "corn treat", weights: null })),
                   names(await q.searchItems({ q: "corn treat" })));
  assert.deepEqual(names(await q.searchItemsIgnoringNames({ q: "corn treat" })),
                   [["Sweet", 0.6079271], ["Candy corn", 0.30396354]]);
  out["weights"] = true;

  // Unweighted parts are category A: a title and a body match alike; the search's own order
  // and limit; a shape with a link.
  const rain = await q.topNotes({ q: "rain", n: 5 });
  assert.deepEqual(rain.map((r) => r.title), ["Sun and rain", "Travel"]);
  assert.equal(rain[0]!.score, rain[1]!.score);
  const tomato = await q.topNotes({ q: "tomato", n: 1 });
  assert.deepEqual(tomato.map((r) => [r.title, r.tags]), [["Garden notes", [{ name: "garden" }]]]);
  assert.ok(tomato[0]!.score > (await q.topNotes({ q: "tomato", n: 2 }))[1]!.score);
  assert.deepEqual((await q.matchingNotes({ q: "tomatoes" })).map((r) => r.title), ["Garden notes", "Kitchen"]);
  out["inheritedIndex"] = true;

  // The boards holding a matching note: notes.<notes[is Board] of the search's objects (Board
  // abstract, Pinboard its one concrete subtype), distinct, filtered, ordered and paged; counted.
  await pool.query(`INSERT INTO pinboard (name) VALUES ('garden board'), ('archive'), ('travel board'), ('empty')`);
  await pool.query(`INSERT INTO pinboard_notes (source_id, target_id)
    SELECT b.id, n.id FROM pinboard b, note n
    WHERE (b.name, n.title) IN (('garden board', 'Garden notes'), ('garden board', 'Kitchen'), ('archive', 'Kitchen'),
                                ('travel board', 'Travel'))`);
  assert.deepEqual(await q.boardsOfMatches({ q: "tomato", offset: 0, limit: 10 }),
                   [{ name: "garden board", notes: [{ title: "Garden notes" }, { title: "Kitchen" }] }]);
  assert.deepEqual((await q.boardsOfMatches({ q: "tomato rain", offset: 0, limit: 10 })).map((b) => b.name),
                   ["garden board", "travel board"]);
  assert.deepEqual((await q.boardsOfMatches({ q: "tomato rain", offset: 1, limit: 1 })).map((b) => b.name),
                   ["travel board"]);
  assert.equal(await q.countBoardsOfMatches({ q: "tomato rain" }), "2");
  assert.equal(await q.countBoardsOfMatches({ q: "basil" }), "1");
  assert.equal(await q.countBoardsOfMatches({ q: "zebra" }), "0");
  // any(.tags in t)
  assert.deepEqual((await q.notesTagged({ names: ["garden"] })).map((n) => n.title), ["Garden notes", "Kitchen"]);
  assert.deepEqual((await q.notesTagged({ names: ["food", "nothing"] })).map((n) => n.title), ["Kitchen"]);
  assert.deepEqual(await q.notesTagged({ names: [] }), []);
  out["backlinkOfMatches"] = true;
  console.log(JSON.stringify(out));
} finally {
  await pool.end();
}
