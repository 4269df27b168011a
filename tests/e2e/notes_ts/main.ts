// End-to-end program for the committed TypeScript runner of schemas/notes (generated/notes/ts; see
// test_notes_library_e2e.py): a Gel 6 style library with globals, computeds, a backlink and access
// policies, through node-postgres. Prints one JSON object of observations; a failed expectation
// throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as notes from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const out: Record<string, boolean> = {};

try {
  await pool.query('TRUNCATE "user", note CASCADE');
  const app = notes.createRunner(pool);
  const ann = (await app.query.createUser({ name: "Ann", email: "ann@example.com" })).id;
  const bob = (await app.query.createUser({ name: "Bob", email: "bob@example.com" })).id;
  const asAnn = app.withGlobals({ current_user_id: ann });
  const asBob = app.withGlobals({ current_user_id: bob });

  assert.deepEqual(await asAnn.query.whoami({}), { name: "Ann", email: "ann@example.com", note_count: "0" });
  assert.equal(await app.query.whoami({}), null);
  out["globals"] = true;

  const todo = await asAnn.query.createNote({ title: "todo", body: "milk" });
  await asAnn.query.createNote({ title: "recipe", shared: true });
  await asBob.query.createNote({ title: "bob's" });
  await assert.rejects(app.query.createNote({ title: "nobody's" }), notes.NotNullViolationError);
  const seen = async (r: notes.Runner) => (await r.query.notes({})).map((n) => `${n.title}:${n.is_mine}`).sort();
  assert.deepEqual(await seen(asAnn), ["recipe:true", "todo:true"]);
  assert.deepEqual(await seen(asBob), ["bob's:true", "recipe:false"]);
  assert.deepEqual(await seen(app), ["recipe:false"]);
  assert.equal((await asAnn.query.notes({ limit: 1 })).length, 1);
  out["policiesOnReads"] = true;

  assert.equal(await asBob.query.editNote({ id: todo.id, title: "hacked" }), null);
  assert.deepEqual(await asAnn.query.editNote({ id: todo.id, shared: true }), { id: todo.id });
  assert.deepEqual(await seen(asBob), ["bob's:true", "recipe:false", "todo:false"]);
  assert.equal(await asBob.query.deleteNote({ id: todo.id }), null);
  out["policiesOnWrites"] = true;

  assert.deepEqual(
    (await asBob.query.authors({})).map((a) => ({ ...a, notes: a.notes.map((n) => n.title).sort() })),
    [{ name: "Ann", note_count: "2", notes: ["recipe", "todo"] }, { name: "Bob", note_count: "1", notes: ["bob's"] }]);
  assert.deepEqual((await app.query.authors({})).map((a) => a.note_count), ["2", "0"]);
  out["computeds"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
