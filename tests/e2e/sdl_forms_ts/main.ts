// End-to-end program for the generated TypeScript runner of tests/cases/sdl_forms (see
// test_sdl_forms_e2e.py): exclusive constraints on expressions, delegated to each subtype,
// through node-postgres. Prints one JSON object of observations; a failed expectation throws
// (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as sf from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const q = sf.createRunner(pool).query;
const out: Record<string, boolean> = {};

try {
  await pool.query("TRUNCATE settings, banner, handle, topic, question CASCADE");

  // exclusive on (true), delegated: one object per concrete type, each type on its own.
  await q.addSettings({ motd: "hello" });
  await assert.rejects(q.addSettings({ motd: "again" }), (err) => err instanceof sf.UqSettingsExprError);
  await q.addBanner({ text: null });
  await assert.rejects(q.addBanner({ text: "two" }), (err) => err instanceof sf.UqBannerExprError
    && err instanceof sf.ExclusiveViolationError);
  out["singleton"] = true;

  // exclusive on ((.realm, str_lower(.name))): the same name in any case, per realm.
  const bob = await q.addHandle({ realm: "a", name: "Bob" });
  await assert.rejects(q.addHandle({ realm: "a", name: "BOB" }), (err) => err instanceof sf.UqHandleRealmNameExprError);
  await q.addHandle({ realm: "b", name: "BOB" });
  const ann = await q.addHandle({ realm: "a", name: "Ann" });
  await assert.rejects(q.renameHandle({ id: ann.id, name: "bob" }), (err) => err instanceof sf.UqHandleRealmNameExprError);
  assert.deepEqual(await q.renameHandle({ id: ann.id, name: "Anne" }), { id: ann.id });
  // a bare unless conflict absorbs a conflict on an expression too
  assert.equal(await q.tryHandle({ realm: "a", name: "bOb" }), null);
  assert.notEqual(await q.tryHandle({ realm: "c", name: "bOb" }), null);
  out["tupleWithExpression"] = true;

  // exclusive on (.code_lc), a computed str_lower(.code): empty codes do not conflict.
  await q.addHandle({ realm: "d", name: "x1", code: "Q7" });
  await assert.rejects(q.addHandle({ realm: "d", name: "x2", code: "q7" }), (err) => err instanceof sf.UqHandleCodeExprError);
  await q.addHandle({ realm: "d", name: "x3" });
  await q.addHandle({ realm: "d", name: "x4" });
  assert.deepEqual(await q.handles({ realm: "d" }), [
    { realm: "d", name: "x1", code_lc: "q7" }, { realm: "d", name: "x3", code_lc: null },
    { realm: "d", name: "x4", code_lc: null }]);
  assert.deepEqual((await q.handles({ realm: "a" })).map((h) => h.name), ["Anne", "Bob"]);
  void bob;
  out["computedKey"] = true;

  // Writes of a with-bound selection: its objects, and the write's own filter.
  assert.deepEqual(await q.moveHandles({ from: "a", keep: "Bob", to: "e" }), [{ id: ann.id }]);
  await assert.rejects(q.moveHandles({ from: "a", keep: "", to: "b" }),
    (err) => err instanceof sf.UqHandleRealmNameExprError);
  assert.deepEqual(await q.dropRealm({ realm: "e" }), [{ id: ann.id }]);
  assert.deepEqual((await q.handles({ realm: "a" })).map((h) => h.name), ["Bob"]);
  out["withSelectionWrites"] = true;

  // A computed set of values through a multi link: a list (empty values are no elements).
  await q.addTopic({ name: "go", note: "fast" });
  await q.addTopic({ name: "sql" });
  await q.addTopic({ name: "rust", note: "safe" });
  const qB = await q.addQuestion({ title: "B", topics: ["go", "sql"] });
  await q.addQuestion({ title: "A", topics: ["go", "rust"] });
  await q.addQuestion({ title: "C", topics: [] });
  const sorted = (r: sf.QuestionsResult) => ({ ...r, topic_names: [...r.topic_names].sort(), topic_notes: [...r.topic_notes].sort() });
  assert.deepEqual((await q.questions({ topic: "go" })).map(sorted), [
    { title: "A", topic_names: ["go", "rust"], topic_notes: ["fast", "safe"], n: "2" },
    { title: "B", topic_names: ["go", "sql"], topic_notes: ["fast"], n: "2" }]);
  assert.deepEqual(await q.questions({ topic: "sql" }).then((rs) => rs.map((r) => r.title)), ["B"]);
  assert.deepEqual(await q.questions({ topic: "none" }), []);
  assert.deepEqual(await q.untopical(), [{ title: "C", topic_names: [] }]);
  out["valueSet"] = true;

  // A nested insert in an update of one object: once for it, none when it matches no object.
  assert.deepEqual(await q.pinQuestion({ id: qB.id, name: "pinned" }), { id: qB.id });
  assert.equal(await q.pinQuestion({ id: "00000000-0000-0000-0000-000000000000", name: "orphan" }), null);
  assert.deepEqual((await pool.query(
    "SELECT q.title, t.name, t.note FROM question q JOIN topic t ON t.id = q.pin_id")).rows,
  [{ title: "B", name: "pinned", note: "pinned" }]);
  assert.deepEqual((await pool.query("SELECT count(*)::int AS n FROM topic WHERE name = 'orphan'")).rows, [{ n: 0 }]);
  out["nestedInsertInUpdate"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
