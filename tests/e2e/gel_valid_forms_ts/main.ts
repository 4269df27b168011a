// End-to-end program for the generated TypeScript runner of tests/cases/gel_valid_forms (see
// test_gel_valid_forms_e2e.py): valid Gel that schemac once refused with a wrong error, run on
// node-postgres. Prints one JSON object of observations; a failed expectation throws.
import assert from "node:assert/strict";
import pg from "pg";

import * as gv from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const out: Record<string, boolean> = {};

try {
  await pool.query("TRUNCATE person, book, tag CASCADE");
  const db = gv.createRunner(pool);
  for (const name of ["ann", "bob", "cy"]) {
    await db.query.addPerson({ name });
  }
  await db.query.addBook({ title: "Dune", author: "ann" });
  await db.query.addBook({ title: "Emma", author: "ann" });

  // Set functions of sets of values (https://docs.geldata.com/reference/stdlib/set).
  assert.deepEqual(await db.query.valueSetStats({ xs: [5, 7], a: "x", b: null, flags: [true, false] }), {
    n: "4", total: "12", lowest: "5", highest: "7", mean: 3.75, words: ["x"], some_true: true, all_true: false,
  });
  assert.deepEqual(await db.query.valueSetStats({ xs: [], a: "x", b: "y", flags: [] }), {
    n: "2", total: "0", lowest: null, highest: "3", mean: 1.5, words: ["x", "y"], some_true: false, all_true: true,
  });
  assert.deepEqual(await db.query.withValueSet({ t: null }), { n: "3", total: "6", values: ["1", "2", "3"], has_t: "0" });
  assert.deepEqual((await db.query.withValueSet({ t: "z" })).has_t, "1");
  assert.deepEqual(await db.query.peopleNamed({ more: ["cy"] }), [{ name: "ann" }, { name: "bob" }, { name: "cy" }]);
  assert.deepEqual(await db.query.peopleNamed({ more: [] }), [{ name: "ann" }, { name: "bob" }]);
  out["sets"] = true;

  // json ++ json, bytes ++ bytes.
  assert.deepEqual(await db.query.jsonConcat({ a: { a: 1, b: 1 }, b: { b: 2 } }), { a: 1, b: 2 });
  assert.deepEqual(await db.query.jsonConcat({ a: [1], b: [2, 3] }), [1, 2, 3]);
  assert.deepEqual(await db.query.jsonConcat({ a: "ab", b: "cd" }), "abcd");
  await assert.rejects(db.query.jsonConcat({ a: [1], b: { b: 2 } }), /invalid JSON values for \+\+ operator/);
  assert.deepEqual([...(await db.query.bytesConcat({ a: Buffer.from("ab"), b: Buffer.from([0, 255]) }))],
    [97, 98, 0, 255]);
  out["concat"] = true;

  // Type aliases in with.
  assert.deepEqual(await db.query.bookByTitle({ t: "Dune" }), [{ title: "Dune", author: { name: "ann" } }]);
  assert.deepEqual(await db.query.peopleBooks(), [
    { name: "ann", books: "2", all_books: "2" }, { name: "bob", books: "0", all_books: "2" },
    { name: "cy", books: "0", all_books: "2" },
  ]);
  out["aliases"] = true;

  // Positional parameters: arg0, arg1.
  assert.deepEqual(await db.query.positional({ arg0: "bob", arg1: "cy" }), [{ name: "bob" }, { name: "cy" }]);
  assert.deepEqual(await db.query.positional({ arg0: "bob" }), [{ name: "bob" }]);
  out["positional"] = true;

  // A multi property from array_unpack, and += of a union.
  await db.query.addNicknamed({ name: "dee", nicknames: ["d", "dd", "d"] });
  assert.deepEqual(await db.query.personNicknames({ name: "dee" }), [{ nicknames: ["d", "dd", "d"] }]);
  await db.query.addNicknamed({ name: "eve", nicknames: [] });
  await db.query.addNicknames({ name: "eve", more: ["e"] });
  assert.deepEqual(await db.query.personNicknames({ name: "eve" }), [{ nicknames: ["the", "e"] }]);
  out["multi"] = true;

  // assert_distinct, assert_exists, assert_single: Gel's errors, typed, with Gel's message or
  // the message := given.
  const card = (fn: string, message: string) => (e: unknown) =>
    e instanceof gv.CardinalityViolationError && e.function === fn && e.message === message;
  assert.deepEqual(await db.query.distinctValues({ xs: [3, 1, 2] }), ["3", "1", "2"]);
  await assert.rejects(db.query.distinctValues({ xs: [3, 1, 3] }), (e) => e instanceof gv.DistinctViolationError &&
    e instanceof gv.ConstraintViolationError && e.constraint === "std::assert_distinct" &&
    e.message === "assert_distinct violation: expression returned a set with duplicate elements");
  assert.deepEqual(await db.query.distinctNames({ xs: ["b"] }), ["a", "b"]);
  await assert.rejects(db.query.distinctNames({ xs: ["b", "a"] }),
    (e) => e instanceof gv.DistinctViolationError && e.message === "names repeat");
  assert.deepEqual(await db.query.distinctNicknames({ name: "eve" }), [{ name: "eve", nicks: ["the", "e"] }]);
  await assert.rejects(db.query.distinctNicknames({ name: "dee" }), gv.DistinctViolationError);
  await db.query.addBook({ title: "Dune", author: "ann" });
  assert.deepEqual(await db.query.booksTitled({ t: "Dune" }), [{ title: "Dune" }, { title: "Dune" }]);
  await assert.rejects(db.query.booksTitled({ t: "Ulysses" }),
    card("assert_exists", "assert_exists violation: expression returned an empty set"));
  await assert.rejects(db.query.booksTitledOrFail({ t: "Ulysses" }), card("assert_exists", "no such book"));
  assert.deepEqual(await db.query.onlyBook({ t: "Emma" }), { title: "Emma" });
  assert.equal(await db.query.onlyBook({ t: "Ulysses" }), null);
  await assert.rejects(db.query.onlyBook({ t: "Dune" }), card("assert_single", "several books"));
  assert.equal(await db.query.mustStr({ s: "x" }), "x");
  await assert.rejects(db.query.mustStr({ s: null }), card("assert_exists", "no s"));
  await assert.rejects(db.query.addBookOrFail({ title: "Ulysses", author: "zed" }), card("assert_exists", "no such author"));
  await db.query.addBookOrFail({ title: "Ulysses", author: "bob" });
  // A bulk get-or-insert repeating a label: SQLSTATE 21000 too, but the driver's error, no
  // assertion's.
  assert.equal((await db.query.tagsLabelled({ labels: ["x", "y"] })).length, 2);
  await assert.rejects(db.query.tagsLabelled({ labels: ["z", "z"] }), (e) => !(e instanceof gv.CardinalityViolationError) &&
    (e as { code?: string }).code === "21000" && /cannot affect row a second time/.test((e as Error).message));
  out["asserts"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
