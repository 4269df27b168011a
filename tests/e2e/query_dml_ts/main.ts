// End-to-end program for the generated TypeScript runner of tests/cases/query_dml (see
// test_query_dml_e2e.py): links set by any filter, multi link changes by any filter, {}
// assignments and upserts whose else update filters, through node-postgres. Prints one JSON
// object of observations; a failed expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as qd from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const q = qd.createRunner(pool).query;
const out: Record<string, boolean> = {};

// Type-level checks: never called, but must compile (or fail to compile where marked).
export async function typeChecks(): Promise<void> {
  // An insert returns its one row; an upsert whose else update filters may return none.
  const created: qd.CreateStoryResult = await q.createStory({ title: "", telegram_id: 1, label_kind: "" });
  const upserted: qd.UpsertMemberResult | null = await q.upsertMember({ name: "", telegram_id: 1 });
  // @ts-expect-error the upsert may return no row
  const never: qd.UpsertMemberResult = await q.upsertMember({ name: "", telegram_id: 1 });
  // The nested editor of an update is optional.
  const handed = await q.handOver({ editor: "", id: "" });
  const editor: string | undefined = handed?.editor?.name;
  void created; void upserted; void never; void editor;
}

async function one<T>(sql: string, values: unknown[] = []): Promise<T> {
  const res = await pool.query(sql, values);
  return res.rows[0] as T;
}

async function labels(story: string): Promise<string[]> {
  const res = await pool.query(
    "SELECT l.name FROM story_labels sl JOIN label l ON l.id = sl.target_id WHERE sl.source_id = $1 ORDER BY l.name",
    [story],
  );
  return res.rows.map((r: { name: string }) => r.name);
}

try {
  await pool.query("TRUNCATE member, label CASCADE");
  const ann = await one<{ id: string }>("INSERT INTO member (name, telegram_id, nick) VALUES ('ann', 1001, 'a') RETURNING id");
  await pool.query("INSERT INTO member (name, telegram_id, nick) VALUES ('bob', 1002, 'b'), ('bea', 1003, 'b')");
  await pool.query("INSERT INTO label (name, kind) VALUES ('go', 'lang'), ('sql', 'lang'), ('news', 'topic')");

  // A single link by an exclusive property, a multi link by any filter.
  const story = await q.createStory({ title: "Hello", telegram_id: 1001, label_kind: "lang" });
  assert.deepEqual(await one("SELECT title, author_id FROM story WHERE id = $1", [story.id]), { title: "Hello", author_id: ann.id });
  assert.deepEqual(await labels(story.id), ["go", "sql"]);
  await assert.rejects(q.createStory({ title: "Orphan", telegram_id: 9, label_kind: "lang" }),
    (err) => err instanceof qd.NotNullViolationError);
  out["linkByFilter"] = true;

  // An optional value for a required property or link compiles (as in Gel); empty, it fails
  // the statement when it runs and nothing is written.
  const drafted = await q.draftStory({ title: "Draft", author_id: ann.id });
  assert.deepEqual(await one("SELECT title, author_id FROM story WHERE id = $1", [drafted.id]), { title: "Draft", author_id: ann.id });
  await assert.rejects(q.draftStory({ title: null, author_id: ann.id }), (err) => err instanceof qd.NotNullViolationError);
  await assert.rejects(q.draftStory({ title: "No author" }), (err) => err instanceof qd.NotNullViolationError);
  assert.deepEqual(await one("SELECT count(*)::int AS n FROM story WHERE title IN ('Draft', 'No author') OR title IS NULL"), { n: 1 });
  assert.deepEqual(await q.renameMember({ telegram_id: 1001, name: "anne" }), { id: ann.id });
  await assert.rejects(q.renameMember({ telegram_id: 1001 }), (err) => err instanceof qd.NotNullViolationError);
  assert.deepEqual(await one("SELECT name FROM member WHERE id = $1", [ann.id]), { name: "anne" });
  await pool.query("UPDATE member SET name = 'ann' WHERE id = $1", [ann.id]);
  await pool.query("DELETE FROM story WHERE id = $1", [drafted.id]);
  out["optionalForRequired"] = true;

  // assert_single: one object links, several fail the statement, none empties the link.
  assert.deepEqual(await q.setEditor({ id: story.id, nick: "a" }), { id: story.id });
  assert.deepEqual(await one("SELECT editor_id FROM story WHERE id = $1", [story.id]), { editor_id: ann.id });
  await assert.rejects(q.setEditor({ id: story.id, nick: "b" }), (e) => e instanceof qd.CardinalityViolationError &&
    e.function === "assert_single" && e.sqlstate === "21000");
  assert.deepEqual(await q.setEditor({ id: story.id, nick: "nobody" }), { id: story.id });
  assert.deepEqual(await one("SELECT editor_id FROM story WHERE id = $1", [story.id]), { editor_id: null });
  await pool.query("UPDATE story SET editor_id = $1", [ann.id]);
  assert.deepEqual(await q.clearEditor({ id: story.id }), { id: story.id });
  assert.deepEqual(await one("SELECT editor_id FROM story WHERE id = $1", [story.id]), { editor_id: null });
  out["assertSingleAndEmpty"] = true;

  // Multi link changes by a filter.
  await pool.query("UPDATE story_labels SET weight = 5");
  assert.deepEqual(await q.labelStory({ id: story.id, kind: "topic" }), { id: story.id });
  assert.deepEqual(await labels(story.id), ["go", "news", "sql"]);
  assert.deepEqual(await one("SELECT count(*)::int AS n FROM story_labels WHERE weight = 5"), { n: 2 });
  assert.deepEqual(await q.unlabelStory({ id: story.id, kind: "lang" }), { id: story.id });
  assert.deepEqual(await labels(story.id), ["news"]);
  assert.deepEqual(await q.clearLabels({ id: story.id }), { id: story.id });
  assert.deepEqual(await labels(story.id), []);
  out["multiLinkByFilter"] = true;

  // An upsert whose else update filters.
  const zed = await q.upsertMember({ name: "zed", telegram_id: 7, nick: "z" });
  assert.ok(zed !== null);
  assert.deepEqual({ ...zed, id: "" }, { id: "", name: "zed", telegram_id: "7", nick: "z" });
  assert.deepEqual(await q.upsertMember({ name: "zed", telegram_id: 7, nick: "zz" }), { ...zed, nick: "zz" });
  assert.equal(await q.upsertMember({ name: "other", telegram_id: 7, nick: "o" }), null);
  assert.deepEqual(await one("SELECT name, nick FROM member WHERE telegram_id = 7"), { name: "zed", nick: "zz" });
  await assert.rejects(q.upsertMember({ name: "zed", telegram_id: 8 }), (err) => err instanceof qd.UqMemberNameError);
  out["filteredUpsert"] = true;

  // A with-bound value in a link's sub-select, the update's nested shape.
  assert.deepEqual(await q.handOver({ editor: "bob", id: story.id }), { title: "Hello", editor: { name: "bob" } });
  assert.deepEqual(await q.handOver({ editor: "nobody", id: story.id }), { title: "Hello", editor: null });
  out["withInLink"] = true;

  // for loops over updates, deletes, selects and upserts: one statement each.
  const second = await q.createStory({ title: "Second", telegram_id: 1002, label_kind: "none" });
  let statements = 0;
  const counting: qd.Queryable = {
    query: (text: string, values?: unknown[]) => {
      statements++;
      return pool.query(text, values as unknown[]);
    },
  };
  const touched = await qd.createRunner(counting).query.touchStories({ ids: [story.id, second.id, second.id] });
  assert.equal(statements, 1);
  assert.deepEqual(touched.map((r) => r.id).sort(), [story.id, second.id].sort());
  assert.deepEqual(await one("SELECT views FROM story WHERE id = $1", [second.id]), { views: 1 });
  const renamed = await q.renameStories({ items: [{ id: story.id, title: "Hello again" }] });
  assert.deepEqual(renamed, [{ id: story.id }]);
  const byAuthors: qd.StoriesByAuthorsResult[] = await q.storiesByAuthors({ telegram_ids: [1001, 1002, 5] });
  assert.deepEqual(byAuthors.map((r) => `${r.title}/${r.author.name}`).sort(), ["Hello again/ann", "Second/bob"]);
  const merged = await q.mergeMembers({ members: [{ name: "zedd", telegram_id: 7 }, { name: "new", telegram_id: 70 }] });
  assert.equal(merged.length, 2);
  assert.deepEqual(await one("SELECT name, nick FROM member WHERE telegram_id = 7"), { name: "zedd", nick: "merged" });
  // Gel's json[name] fails on a missing member and <int64> of a JSON string fails
  // (https://docs.geldata.com/reference/stdlib/json): the statement writes nothing.
  const members = await one("SELECT count(*)::int AS n FROM member");
  const failsWith = (text: string) => (err: { code?: string; message?: string }) =>
    err.code === "22P02" && (err.message ?? "").includes(text);
  await assert.rejects(q.mergeMembers({ members: [{ name: "x1", telegram_id: 71 }, { name: "x2" }] }),
    failsWith("JSON index 'telegram_id' is out of bounds"));
  await assert.rejects(q.mergeMembers({ members: [{ name: "x3", telegram_id: "72" }] }),
    failsWith("expected json number or null; got JSON string"));
  assert.deepEqual(await one("SELECT count(*)::int AS n FROM member"), members);
  // for over json_object_unpack: k.0 the key, k.1 the json value (to_str: its JSON text).
  const kinds = await q.mergeLabelKinds({ kinds: { zz_new: "fresh", zz_num: 3 } });
  assert.equal(kinds.length, 2);
  const again = await q.mergeLabelKinds({ kinds: { zz_new: ["re", "kind"] } });
  assert.equal(again.length, 1);
  assert.ok(kinds.some((k) => k.id === again[0]!.id));
  assert.deepEqual((await pool.query("SELECT name, kind FROM label WHERE name LIKE 'zz%' ORDER BY name")).rows,
    [{ name: "zz_new", kind: '["re", "kind"]' }, { name: "zz_num", kind: "3" }]);
  const added = await q.addStories({ author: 70, titles: ["N1", "N2"] });
  assert.equal(added.length, 2);
  const bea = await one<{ id: string }>("SELECT id FROM member WHERE name = 'bea'");
  assert.deepEqual(await q.dropMembers({ names: ["bea", "nobody", "bea"] }), [{ id: bea.id }]);
  out["forLoops"] = true;

  // A path through a multi link in a filter: at least one linked object matches.
  await q.labelStory({ id: second.id, kind: "lang" });
  const labelled: qd.StoriesLabelledResult[] = await q.storiesLabelled({ label: "go" });
  assert.deepEqual(labelled, [{ title: "Second" }]);
  assert.deepEqual(await q.storiesLabelled({ label: "news" }), []);
  out["multiLinkFilter"] = true;

  // Objects the same statement inserts, assigned to links.
  const nested = await q.storyWithNewAuthor({ title: "Nested", name: "neo", telegram_id: 42, label: "fresh" });
  assert.deepEqual(await one("SELECT m.name FROM story s JOIN member m ON m.id = s.author_id WHERE s.id = $1", [nested.id]),
    { name: "neo" });
  assert.deepEqual(await labels(nested.id), ["fresh"]);
  await assert.rejects(q.storyWithNewAuthor({ title: "Dup", name: "neo", telegram_id: 43, label: "other" }),
    (err) => err instanceof qd.UqMemberNameError);
  const bound: qd.MemberAndStoryResult = await q.memberAndStory({ name: "tri", telegram_id: 44, title: "Bound" });
  assert.deepEqual(await one("SELECT name FROM member WHERE id = $1", [bound.author_id]), { name: "tri" });
  assert.deepEqual(await q.reassignToNew({ name: "quad", telegram_id: 45, id: nested.id }), { id: nested.id });
  out["writtenLinks"] = true;

  // Get-or-insert links: the member found, else a new one read back by the same statement;
  // paths from a with name bound to one object.
  const found: qd.StoryByAuthorNameResult = await q.storyByAuthorName({ author: "tri", title: "Got", telegram_id: 501 });
  assert.deepEqual(found, { title: "Got", author_name: "tri", author_tg: "44" });
  const made = await q.storyByAuthorName({ author: "getter", title: "Made", telegram_id: 502 });
  assert.deepEqual(made, { title: "Made", author_name: "getter", author_tg: "502" });
  assert.deepEqual(await one("SELECT count(*)::int AS n FROM member WHERE telegram_id IN (501, 502)"), { n: 1 });
  const gotId = (await one<{ id: string }>("SELECT id FROM story WHERE title = 'Got'")).id;
  const kept: qd.RetitleStoryResult | null = await q.retitleStory({ id: gotId, telegram_id: 503 });
  assert.deepEqual(kept, { title: "Got", editor_name: "tri", author_name: "tri" });
  assert.deepEqual(await q.retitleStory({ id: gotId, editor: "edi", title: "Got2", telegram_id: 504 }),
    { title: "Got2", editor_name: "edi", author_name: "tri" });
  assert.deepEqual(await q.retitleStory({ id: "00000000-0000-0000-0000-000000000000", editor: "nobody", telegram_id: 505 }),
    null);
  assert.deepEqual(await one("SELECT count(*)::int AS n FROM member WHERE telegram_id IN (503, 504, 505)"), { n: 1 });
  out["getOrInsert"] = true;

  // A bulk insert bound in with, its objects selected in the shape of another bound insert.
  const bulk: qd.MemberWithStoriesResult = await q.memberWithStories({
    params: { name: "bulk", telegram_id: 601, stories: [{ title: "S1" }, { title: "S2" }] } });
  assert.equal(bulk.name, "bulk");
  assert.deepEqual(bulk.stories.map((s) => `${s.title}/${s.author_name}`).sort(), ["S1/bulk", "S2/bulk"]);
  assert.equal(bulk.story_ids.length, 2);
  assert.deepEqual(await one("SELECT count(*)::int AS n FROM story s JOIN member m ON m.id = s.author_id WHERE m.name = 'bulk'"),
    { n: 2 });
  const united = await q.memberAndStories({ name: "union", telegram_id: 602, stories: [{ title: "U1" }, { title: "U2" }] });
  assert.equal(united.length, 3);
  assert.deepEqual(united.map((r) => r.id).sort(), ((await pool.query(
    "SELECT id FROM member WHERE name = 'union' UNION ALL SELECT s.id FROM story s JOIN member m ON m.id = s.author_id WHERE m.name = 'union'"))
    .rows as { id: string }[]).map((r) => r.id).sort());
  out["boundBulkInsert"] = true;

  // Link properties set by the links' sub-select.
  const weighted = await q.storyWithWeights({ title: "Weighted", telegram_id: 1001, label: "go" });
  assert.deepEqual(await q.weighLabels({ id: weighted.id, weight: 9, kind: "lang" }), { id: weighted.id });
  const ws = await pool.query(
    "SELECT l.name, sl.weight FROM story_labels sl JOIN label l ON l.id = sl.target_id WHERE sl.source_id = $1 ORDER BY l.name",
    [weighted.id]);
  assert.deepEqual(ws.rows, [{ name: "go", weight: 9 }, { name: "sql", weight: 9 }]);
  out["linkProperties"] = true;

  // Writes in a free object's fields: each runs once; count() of a delete is the number of
  // objects it deleted; an insert that fails fails the statement, which then deletes nothing.
  await pool.query("INSERT INTO member (name, telegram_id) VALUES ('tidy', 701)");
  const tidyAuthor = (await one<{ id: string }>("SELECT id FROM member WHERE name = 'tidy'")).id;
  await pool.query("INSERT INTO story (title, author_id, views) VALUES ('T0', $1, -5000), ('T1', $1, -3000), ('T2', $1, 100)",
    [tidyAuthor]);
  await assert.rejects(q.tidyUp({ fewer_views: -1000, name: "tidy", telegram_id: 702 }), qd.UqMemberNameError);
  assert.deepEqual(await one("SELECT count(*)::int AS n FROM story WHERE views < -1000"), { n: 2 });
  const tidied: qd.TidyUpResult = await q.tidyUp({ fewer_views: -1000, name: "tidy2", telegram_id: 703 });
  assert.deepEqual(tidied, { stories_deleted: "2", member: { name: "tidy2" } });
  assert.deepEqual(await one("SELECT count(*)::int AS n FROM story WHERE author_id = $1", [tidyAuthor]), { n: 1 });
  assert.deepEqual(await q.tidyUp({ fewer_views: -1000, name: "tidy3", telegram_id: 704 }),
    { stories_deleted: "0", member: { name: "tidy3" } });
  out["freeObjectWrites"] = true;
} finally {
  await pool.end();
}
console.log(JSON.stringify(out));
