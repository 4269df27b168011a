// End-to-end program for the generated TypeScript runner of tests/cases/policies (see
// test_gel_policies_e2e.py): access policies enforced on every query through node-postgres.
// Reads skip what is not allowed; writes that are not allowed fail with AccessPolicyError and
// write nothing. Prints one JSON object of observations; a failed expectation throws.
import assert from "node:assert/strict";
import pg from "pg";

import * as ap from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const out: Record<string, boolean> = {};

async function rows(sql: string): Promise<unknown[]> {
  return (await pool.query(sql)).rows;
}

try {
  await pool.query('TRUNCATE "user", note, comment, attachment CASCADE');
  const ann = ((await rows("INSERT INTO \"user\" (name) VALUES ('Ann') RETURNING id"))[0] as { id: string }).id;
  const bob = ((await rows("INSERT INTO \"user\" (name) VALUES ('Bob') RETURNING id"))[0] as { id: string }).id;
  const nobody = ap.createRunner(pool);
  const asAnn = nobody.withGlobals({ current_user_id: ann });
  const asBob = nobody.withGlobals({ current_user_id: bob });

  // Inserts: allowed for one's own notes only; the errmessage of the failing policy.
  const secret = await asAnn.query.addNote({ body: "ann secret" });
  const shared = await asAnn.query.addNote({ body: "ann public", public: true });
  await asBob.query.addNote({ body: "bob secret" });
  await assert.rejects(asAnn.query.addNoteFor({ body: "for bob", owner: bob }), (err) =>
    err instanceof ap.AccessPolicyError && err.message === "only the owner can write this note" &&
    err.type === "default::Note" && err.action === "insert");
  await assert.rejects(asAnn.query.addNote({ body: "" }), (err) =>
    err instanceof ap.AccessPolicyError && err.message === "a note needs a body");
  await assert.rejects(nobody.query.addNote({ body: "anonymous" }), ap.NotNullViolationError);
  assert.deepEqual(await rows("SELECT count(*)::int AS n FROM note"), [{ n: 3 }]);
  out["insertChecks"] = true;

  // Reads: own notes and public ones, nothing else; nested backlinks and counts too.
  const bodies = async (r: ap.Runner) => (await r.query.visibleNotes({})).map((n) => n.body);
  assert.deepEqual(await bodies(asAnn), ["ann public", "ann secret"]);
  assert.deepEqual(await bodies(asBob), ["ann public", "bob secret"]);
  assert.deepEqual(await bodies(nobody), ["ann public"]);
  assert.deepEqual(await asBob.query.users({}), [
    { name: "Ann", note_count: "1", notes: [{ body: "ann public" }] },
    { name: "Bob", note_count: "1", notes: [{ body: "bob secret" }] },
  ]);
  out["selectFilters"] = true;

  // Updates: others' notes are skipped silently (even public ones); a write that would break
  // a policy fails and changes nothing.
  assert.equal(await asBob.query.editNote({ id: shared.id, body: "defaced" }), null);
  assert.deepEqual(await asAnn.query.editNote({ id: secret.id, body: "ann edited" }), { id: secret.id });
  await assert.rejects(asAnn.query.giveNote({ id: secret.id, owner: bob }), (err) =>
    err instanceof ap.AccessPolicyError && err.action === "update" && err.objectId === secret.id);
  await assert.rejects(asAnn.query.editNote({ id: secret.id, body: "" }), ap.AccessPolicyError);
  assert.deepEqual(await rows(`SELECT body, owner_id FROM note WHERE id = '${secret.id}'`),
    [{ body: "ann edited", owner_id: ann }]);
  // A for loop's update: Bob's note is skipped (not Ann's to update); one refused value fails
  // the whole statement and changes nothing.
  const bobNote = (await rows("SELECT id FROM note WHERE body = 'bob secret'"))[0] as { id: string };
  assert.deepEqual(await asAnn.query.editNotes({ items: [{ id: secret.id, body: "ann bulk" },
    { id: bobNote.id, body: "defaced" }] }), [{ id: secret.id }]);
  await assert.rejects(asAnn.query.editNotes({ items: [{ id: secret.id, body: "ann edited" },
    { id: shared.id, body: "" }] }), (err) =>
    err instanceof ap.AccessPolicyError && err.action === "update" && err.message === "a note needs a body");
  assert.deepEqual(await rows("SELECT body FROM note ORDER BY body"),
    [{ body: "ann bulk" }, { body: "ann public" }, { body: "bob secret" }]);
  assert.deepEqual(await asAnn.query.editNotes({ items: [{ id: secret.id, body: "ann edited" }] }), [{ id: secret.id }]);
  out["updateChecks"] = true;

  // Archived notes neither change nor go away; deletes skip what is not allowed.
  assert.deepEqual(await asAnn.query.archiveNote({ id: shared.id }), { id: shared.id });
  assert.equal(await asAnn.query.editNote({ id: shared.id, body: "late" }), null);
  assert.equal(await asAnn.query.deleteNote({ id: shared.id }), null);
  assert.equal(await asBob.query.deleteNote({ id: secret.id }), null);
  assert.deepEqual(await asAnn.query.deleteNote({ id: secret.id }), { id: secret.id });
  assert.deepEqual(await bodies(asAnn), ["ann public"]);
  out["deletesAndDeny"] = true;

  // A path ending in a link compares its object (.note.owner ?= global current_user); a path
  // after assert_single(.comment) reads the one comment's note's owner.
  await asAnn.query.addComment({ note: shared.id, text: "nice" });
  await assert.rejects(asBob.query.addComment({ note: shared.id, text: "bob was here" }), (err) =>
    err instanceof ap.AccessPolicyError && err.type === "default::Comment" && err.action === "insert");
  const texts = async (r: ap.Runner) => (await r.query.comments({})).map((c) => c.text);
  assert.deepEqual(await texts(asAnn), ["nice"]);
  assert.deepEqual(await texts(asBob), []);
  await rows("INSERT INTO attachment (name) VALUES ('a0'), ('a1')");
  await rows("UPDATE comment SET attachment_id = (SELECT id FROM attachment WHERE name = 'a1')");
  const names = async (r: ap.Runner) => (await r.query.attachments({})).map((a) => a.name);
  assert.deepEqual(await names(asAnn), ["a1"]);
  assert.deepEqual(await names(asBob), []);
  assert.deepEqual(await names(nobody), ["a0"]); // no comment: {} ?= {} is true, as in Gel
  // Two comments: assert_single fails the query (a cardinality violation).
  await rows(`INSERT INTO comment (note_id, text, attachment_id) SELECT note_id, 'again', attachment_id FROM comment`);
  await assert.rejects(asAnn.query.attachments({}), (err) => (err as { code?: string }).code === "21000");
  out["pathsToObjects"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
