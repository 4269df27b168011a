// End-to-end program for the generated TypeScript runner of tests/cases/query_links (see
// test_query_links_e2e.py), through node-postgres: links assigned with-bound selections,
// assert_exists / assert_single of them and `-= (select .link filter ...)`; polymorphic multi
// links written through with names; writes bound in `with`, selected with a nested shape and
// upserts on types with access policies, checked as Gel checks them. Prints one JSON object of
// observations; a failed expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as ql from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const out: Record<string, boolean> = {};

// Type-level checks: never called, but must compile (or fail to compile where marked).
export async function typeChecks(r: ql.Runner): Promise<void> {
  // An upsert whose else update the update policies may hide may return no row.
  const upserted: ql.MemberUpsertResult | null = await r.query.memberUpsert({ club: "", handle: "", points: 1 });
  // @ts-expect-error the upsert may return no row
  const never: ql.MemberUpsertResult = await r.query.memberUpsert({ club: "", handle: "", points: 1 });
  // `.club.name = $club and .handle = $handle` pins one member; assert_exists makes it one.
  const pinned: ql.MemberShelvesResult = await r.query.memberShelves({ club: "", handle: "" });
  // A bound insert returns its one row, whose curator may be empty.
  const created: ql.ShelfCreateResult = await r.query.shelfCreate({ title: "", handle: "" });
  const curator: string | undefined = created.curator?.handle;
  void upserted; void never; void curator; void pinned;
}

async function rows<T>(sql: string, values: unknown[] = []): Promise<T[]> {
  return (await pool.query(sql, values)).rows as T[];
}

function denied(action: string, message: string) {
  return (err: unknown) => err instanceof ql.AccessPolicyError && err.action === action && err.message === message;
}

try {
  await pool.query("TRUNCATE club, member, shelf, book, film CASCADE");
  const [a] = await rows<{ id: string }>("INSERT INTO club (name) VALUES ('A') RETURNING id");
  const [b] = await rows<{ id: string }>("INSERT INTO club (name) VALUES ('B') RETURNING id");
  await pool.query("INSERT INTO book (code, pages) VALUES ('B1', 300)");
  await pool.query("INSERT INTO film (code, minutes) VALUES ('F1', 90), ('F2', 150), ('F3', 200)");
  const nobody = ql.createRunner(pool);
  const inA = nobody.withGlobals({ club_id: a!.id }).query;
  const inB = nobody.withGlobals({ club_id: b!.id }).query;
  const points = async (club: string, handle: string) =>
    (await rows<{ points: number }>("SELECT points FROM member WHERE club_id = $1 AND handle = $2", [club, handle]))
      .map((m) => m.points);

  // Upserts on a type with access policies: the new member gets the insert check, the existing
  // one the update's; a conflicting member the update policies hide is left alone (null).
  assert.deepEqual(await inA.memberUpsertSelect({ handle: "ann", points: 5 }), { handle: "ann", points: 5 });
  assert.deepEqual(await inA.memberUpsertSelect({ handle: "ann", points: 3 }), { handle: "ann", points: 8 });
  await assert.rejects(inA.memberUpsertSelect({ handle: "bob", points: -1 }),
    denied("insert", "points cannot go below zero"));
  await assert.rejects(inA.memberUpsertSelect({ handle: "ann", points: -100 }),
    denied("update", "points cannot go below zero"));
  assert.deepEqual(await points(a!.id, "ann"), [8]);
  assert.deepEqual(await points(a!.id, "bob"), []);
  assert.deepEqual(await inB.memberUpsertSelect({ handle: "ann", points: 1 }), { handle: "ann", points: 1 });
  assert.equal(await inB.memberUpsert({ club: a!.id, handle: "ann", points: 50 }), null);
  assert.deepEqual(await points(a!.id, "ann"), [8]);
  await assert.rejects(inB.memberUpsert({ club: a!.id, handle: "zed", points: 1 }),
    denied("insert", "only members of the club write this"));
  const cat = await inA.memberUpsert({ club: a!.id, handle: "cat", points: 2 });
  assert.ok(cat !== null);
  assert.deepEqual(await inA.memberUpsert({ club: a!.id, handle: "cat", points: 1 }), cat);
  assert.deepEqual(await points(a!.id, "cat"), [3]);
  out["upserts"] = true;

  // An update bound in `with`: checked although the query reads only some of its columns.
  assert.deepEqual(await inA.memberAddPoints({ handle: "ann", points: 2 }), { handle: "ann", points: 10 });
  await assert.rejects(inA.memberAddPoints({ handle: "ann", points: -50 }), denied("update", "points cannot go below zero"));
  assert.deepEqual(await points(a!.id, "ann"), [10]);
  assert.equal(await inB.memberAddPoints({ handle: "cat", points: 1 }), null);
  out["boundUpdate"] = true;

  // An insert bound in `with` (and one selected with a nested shape): a with name bound to one
  // member is its curator; the has_a_title policy refuses an empty title, writing nothing.
  assert.deepEqual(await inA.shelfCreate({ title: "Classics", handle: "ann" }),
    { title: "Classics", curator: { handle: "ann" } });
  assert.deepEqual(await inA.shelfCreate({ title: "Loose", handle: "nobody" }), { title: "Loose", curator: null });
  assert.deepEqual(await inA.shelfCreateDirect({ title: "Films", handle: "cat" }),
    { title: "Films", curator: { handle: "cat" } });
  await assert.rejects(inA.shelfCreate({ title: "", handle: "ann" }), denied("insert", "a shelf needs a title"));
  await assert.rejects(inA.shelfCreateDirect({ title: "", handle: "ann" }), denied("insert", "a shelf needs a title"));
  await assert.rejects(nobody.query.shelfCreate({ title: "Nowhere", handle: "ann" }), ql.NotNullViolationError);
  assert.deepEqual((await rows<{ title: string }>("SELECT title FROM shelf ORDER BY title")).map((s) => s.title),
    ["Classics", "Films", "Loose"]);
  // A link assigned the member another write of the same statement inserts, then updates: the
  // curator is read as the statement leaves it (points 1, then 2), not as the table held it.
  assert.deepEqual(await inA.shelfForMember({ handle: "dan", title: "Dan's" }),
    { title: "Dan's", curator: { handle: "dan", points: 1 } });
  assert.deepEqual(await inA.shelfForMember({ handle: "dan", title: "Dan's too" }),
    { title: "Dan's too", curator: { handle: "dan", points: 2 } });
  await pool.query("DELETE FROM shelf WHERE title LIKE 'Dan''s%'");
  out["boundInserts"] = true;

  // A polymorphic multi link written through with names: one book, every film of a selection
  // that may hold several, one film removed; another club's update skips the shelf.
  const [classics] = await rows<{ id: string }>("SELECT id FROM shelf WHERE title = 'Classics'");
  const works = async () => (await rows<{ code: string; book: boolean }>(
    `SELECT coalesce(b.code, f.code) AS code, w.target_book_id IS NOT NULL AS book FROM shelf_works w
     LEFT JOIN book b ON b.id = w.target_book_id LEFT JOIN film f ON f.id = w.target_film_id
     WHERE w.source_id = $1 ORDER BY 1`, [classics!.id]));
  assert.deepEqual(await inA.shelfAddBook({ code: "B1", id: classics!.id }), { id: classics!.id });
  assert.deepEqual(await inA.shelfAddFilms({ id: classics!.id, longer_than: 100 }), { id: classics!.id });
  assert.deepEqual(await works(), [{ code: "B1", book: true }, { code: "F2", book: false }, { code: "F3", book: false }]);
  assert.deepEqual(await inA.shelfDropFilm({ code: "F2", id: classics!.id }), { id: classics!.id });
  assert.equal(await inB.shelfDropFilm({ code: "F3", id: classics!.id }), null);
  assert.deepEqual(await works(), [{ code: "B1", book: true }, { code: "F3", book: false }]);
  // A polymorphic single link: the film's column is set, the book's emptied; an unknown film
  // fails the statement (assert_exists) and changes nothing.
  await pool.query("UPDATE shelf SET highlight_book_id = (SELECT id FROM book) WHERE id = $1", [classics!.id]);
  assert.ok(await inA.shelfHighlight({ code: "F3", id: classics!.id }));
  const highlight = async () => await rows<{ film: string | null; book: string | null }>(
    `SELECT f.code AS film, b.code AS book FROM shelf s LEFT JOIN film f ON f.id = s.highlight_film_id
     LEFT JOIN book b ON b.id = s.highlight_book_id WHERE s.id = $1`, [classics!.id]);
  assert.deepEqual(await highlight(), [{ film: "F3", book: null }]);
  await assert.rejects(inA.shelfHighlight({ code: "F9", id: classics!.id }),
    (e) => e instanceof ql.CardinalityViolationError && e.function === "assert_exists");
  assert.deepEqual(await highlight(), [{ film: "F3", book: null }]);
  out["polymorphicLinks"] = true;

  // assert_exists: an unknown shelf fails the statement (cardinality_violation, as Gel's
  // CardinalityViolationError) and writes nothing; `-= (select .follows filter ...)` removes
  // the followed shelves the filter keeps.
  const [films] = await rows<{ id: string }>("SELECT id FROM shelf WHERE title = 'Films'");
  const follows = async () => (await rows<{ title: string }>(
    `SELECT s.title FROM member_follows f JOIN shelf s ON s.id = f.target_id JOIN member m ON m.id = f.source_id
     WHERE m.club_id = $1 AND m.handle = 'ann' ORDER BY 1`, [a!.id])).map((s) => s.title);
  assert.ok(await inA.memberFollow({ shelf: classics!.id, handle: "ann" }));
  assert.ok(await inA.memberFollow({ shelf: films!.id, handle: "ann" }));
  await assert.rejects(inA.memberFollow({ shelf: "00000000-0000-0000-0000-000000000000", handle: "ann" }),
    (e) => e instanceof ql.CardinalityViolationError && e.function === "assert_exists" &&
      e.message === "assert_exists violation: expression returned an empty set");
  assert.deepEqual(await follows(), ["Classics", "Films"]);
  assert.ok(await inA.memberUnfollowTitled({ handle: "ann", title: "Films" }));
  assert.deepEqual(await follows(), ["Classics"]);
  // A filter through an exclusive property of a single link pins one member: assert_exists
  // returns it, and fails when there is none.
  assert.deepEqual(await inB.memberShelves({ club: "A", handle: "ann" }),
    { handle: "ann", follows: [{ title: "Classics" }] });
  await assert.rejects(inA.memberShelves({ club: "A", handle: "nobody" }),
    (e) => e instanceof ql.CardinalityViolationError && e.message === "assert_exists violation: expression returned an empty set");
  out["assertExistsAndSubsets"] = true;

  // assert_single of a selection that may hold several members: one is linked, several fail
  // the statement (ann is a member of both clubs) and change nothing.
  const curatorOf = async () => (await rows<{ handle: string }>(
    "SELECT m.handle FROM shelf s JOIN member m ON m.id = s.curator_id WHERE s.id = $1", [classics!.id]))
    .map((m) => m.handle);
  assert.ok(await inA.shelfSetCurator({ id: classics!.id, handle: "cat" }));
  assert.deepEqual(await curatorOf(), ["cat"]);
  await assert.rejects(inA.shelfSetCurator({ id: classics!.id, handle: "ann" }),
    (e) => e instanceof ql.CardinalityViolationError && e.sqlstate === "21000");
  assert.deepEqual(await curatorOf(), ["cat"]);
  out["assertSingle"] = true;

  // A new object's multi links, selected in the same statement: read from the join rows its
  // insert writes (the table does not show them to the statement).
  assert.deepEqual(await inA.shelfCreateWithFilms({ title: "Long", longer_than: 100 }),
    { title: "Long", works: [{ code: "F2" }, { code: "F3" }] });
  assert.deepEqual(await inA.memberJoinFollowing({ handle: "eve", titles: ["Films", "Classics", "Nope"] }),
    { handle: "eve", follows: [{ title: "Classics" }, { title: "Films" }] });
  out["newLinks"] = true;

  // Writes bound in `with` as the values of a free object's fields: the member an update
  // changed (`{ id }` without a shape) next to the shelf it now follows, and a shelf an update
  // changed, with a shape; assert_exists of a write that wrote nothing fails the statement,
  // which then writes nothing.
  const [ann] = await rows<{ id: string }>("SELECT id FROM member WHERE club_id = $1 AND handle = 'ann'", [a!.id]);
  assert.deepEqual(await inA.memberFollowShelf({ handle: "ann", shelf_id: films!.id }),
    { member: { id: ann!.id }, shelf: { title: "Films" } });
  assert.deepEqual(await follows(), ["Classics", "Films"]);
  await assert.rejects(inA.memberFollowShelf({ handle: "nobody", shelf_id: classics!.id }), /assert_exists violation/);
  const [loose] = await rows<{ id: string }>("SELECT id FROM shelf WHERE title = 'Loose'");
  const [cat2] = await rows<{ id: string }>("SELECT id FROM member WHERE club_id = $1 AND handle = 'cat'", [a!.id]);
  const looseWorks = async () => (await rows<{ n: string }>(
    "SELECT count(*) AS n FROM shelf_works WHERE source_id = $1", [loose!.id]))[0]!.n;
  // (another club's update policies hide the shelf: the update writes nothing)
  await assert.rejects(inB.shelfAddBookSelect({ code: "B1", id: loose!.id }), /assert_exists violation/);
  assert.equal(await looseWorks(), "0");
  const added: ql.ShelfAddBookSelectResult = await inA.shelfAddBookSelect({ code: "B1", id: loose!.id });
  assert.deepEqual(added, { shelf: { title: "Loose", curator: null }, book: { code: "B1", pages: 300 } });
  assert.equal(await looseWorks(), "1");
  assert.deepEqual(await inA.shelfAddBookSelect({ code: "B1", id: classics!.id }),
    { shelf: { title: "Classics", curator: { id: cat2!.id } }, book: { code: "B1", pages: 300 } });
  // assert_exists(upsert) { ** }: every property and link of the member the upsert inserted or
  // updated, each link with its target's properties.
  const fay: ql.MemberUpsertAllResult = await inA.memberUpsertAll({ handle: "fay" });
  assert.deepEqual(fay, { id: fay.id, handle: "fay", points: 0, club: { id: a!.id, name: "A" }, follows: [] });
  const annAll = await inA.memberUpsertAll({ handle: "ann" });
  assert.deepEqual({ ...annAll, follows: annAll.follows.map((f) => f.title).sort() },
    { id: ann!.id, handle: "ann", points: 11, club: { id: a!.id, name: "A" }, follows: ["Classics", "Films"] });
  out["boundWriteValues"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
