// End-to-end program for the generated TypeScript runner of tests/cases/select_forms (see
// test_select_forms_e2e.py): selects of single values and of free objects, through
// node-postgres. Prints one JSON object of observations; a failed expectation throws (exit
// status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as sf from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const q = sf.createRunner(pool).query;
const out: Record<string, boolean> = {};

// Type-level checks: never called, but must compile (or fail to compile where marked).
export async function typeChecks(): Promise<void> {
  // A single value comes back as itself, not as a row.
  const n: string = await q.countUsers();
  const s: string = await q.echo({ text: "" });
  const maybe: string | null = await q.maybeEcho({ text: null });
  const b: boolean = await q.emailTaken({ email: "" });
  // @ts-expect-error an optional value may be null
  const notNull: string = await q.maybeEcho({ text: "x" });
  // A free object is one row of its fields.
  const st: sf.StatsResult = await q.stats({ prefix: "" });
  const at: Date = st.at;
  const missing: string | null = st.missing;
  // if ... else of values that are never empty is never empty; re_match may be
  const more: sf.StdMoreResult = await q.stdMore({ doc: "", email: "" });
  const pick: string = more.pick;
  const groups: string[] | null = more.groups;
  void [n, s, maybe, b, notNull, at, missing, pick, groups];
}

try {
  await pool.query("TRUNCATE \"user\", blog_note CASCADE");
  await pool.query(
    "INSERT INTO \"user\" (name, email, active) VALUES ('Ann', 'ann@example.com', true), ('Bob', NULL, false), ('Cy', 'cy@example.com', true), ('Dee', NULL, true)",
  );
  await pool.query(
    "INSERT INTO user_friends (source_id, target_id) SELECT a.id, f.id FROM \"user\" a, \"user\" f WHERE a.name = 'Ann' AND f.name <> 'Ann'",
  );
  await pool.query(
    "INSERT INTO post (title, published, author_id) SELECT t, p, id FROM \"user\", (VALUES ('b-post', true), ('a-post', true), ('draft', false)) AS v(t, p) WHERE name = 'Ann'",
  );
  await pool.query("INSERT INTO blog_note (body) VALUES ('z'), ('a')");

  // select 1: an int64 (node-postgres' text of an int8).
  assert.equal(await q.ping(), "1");
  // select count(User), count(User filter .active)
  assert.equal(await q.countUsers(), "4");
  assert.equal(await q.countActive(), "3");
  out["counts"] = true;

  // select <str>$x, select <optional str>$x, select <str>{}
  assert.equal(await q.echo({ text: "hé" }), "hé");
  assert.equal(await q.maybeEcho({ text: "x" }), "x");
  assert.equal(await q.maybeEcho({ text: null }), null);
  assert.equal(await q.maybeEcho({}), null);
  assert.equal(await q.nothing(), null);
  out["values"] = true;

  // select exists (select User filter ...)
  assert.equal(await q.emailTaken({ email: "ann@example.com" }), true);
  assert.equal(await q.emailTaken({ email: "nobody@example.com" }), false);
  out["exists"] = true;

  // Free objects.
  const before = new Date();
  const st = await q.stats({ prefix: "users" });
  assert.deepEqual({ ...st, at: null }, {
    total: "4", active: "3", label: "users!", half: 0.5, missing: null, at: null,
  });
  assert.ok(st.at instanceof Date && st.at.getTime() >= before.getTime() - 5000);
  assert.deepEqual(await q.nameCheck({ name: "Bob" }), { taken: true, shout: "BOB" });
  assert.deepEqual(await q.nameCheck({ name: "Eve" }), { taken: false, shout: "EVE" });
  out["freeObjects"] = true;

  // with u := (select User filter .active) select u { ... } filter ... order by ...
  assert.deepEqual(await q.activeNamed({ pattern: "%y%" }), [{ name: "Cy" }]);
  assert.deepEqual(await q.activeNamed({ pattern: "%" }), [{ name: "Ann" }, { name: "Cy" }, { name: "Dee" }]);
  assert.deepEqual(await q.firstUsers(), [{ name: "Ann" }, { name: "Bob" }]);
  assert.deepEqual(await q.activeStats(), { n: "3", any_active: true });
  // with module blog
  assert.deepEqual(await q.notes(), [{ body: "a" }, { body: "z" }]);
  out["withSelections"] = true;

  // Nested shapes with filter / order by / limit.
  assert.deepEqual(await q.userPosts({ name: "Ann", n: "1" }), {
    name: "Ann", friends: [{ name: "Dee" }], posts: [{ title: "a-post" }, { title: "b-post" }],
  });
  assert.deepEqual(await q.userPosts({ name: "Ann", n: "5" }), {
    name: "Ann", friends: [{ name: "Dee" }, { name: "Cy" }], posts: [{ title: "a-post" }, { title: "b-post" }],
  });
  assert.deepEqual(await q.userPosts({ name: "Bob", n: "5" }), { name: "Bob", friends: [], posts: [] });
  out["nestedClauses"] = true;

  // Free objects holding objects; select (select ...).
  const ov = await q.overview();
  assert.deepEqual(ov.users.map((u) => u.name).sort(), ["Ann", "Cy", "Dee"]);
  assert.deepEqual(
    { ...ov, users: null },
    {
      users: null,
      ann: { name: "Ann", posts: [{ title: "a-post" }, { title: "b-post" }, { title: "draft" }] },
      first_active: { name: "Ann" },
      published: [{ title: "a-post" }, { title: "b-post" }],
      drafts: "1",
    },
  );
  assert.deepEqual(await q.wrappedSelect(), [{ name: "Ann" }, { name: "Bob" }]);
  out["objectFields"] = true;

  // x in array_unpack(...), json_get, a with name inside a sub-select.
  assert.deepEqual(await q.usersNamed({ names: ["Cy", "Ann", "Zed"] }), [{ name: "Ann" }, { name: "Cy" }]);
  assert.deepEqual(await q.usersNamed({ names: [] }), []);
  assert.deepEqual(await q.usersNotNamed({ names: ["Cy", "Ann"] }), [{ name: "Bob" }, { name: "Dee" }]);
  assert.deepEqual(await q.usersNotNamed({ names: [] }), [{ name: "Ann" }, { name: "Bob" }, { name: "Cy" }, { name: "Dee" }]);
  assert.deepEqual(await q.jsonFields({ payload: { post: { title: "Hi" }, tags: [10, 20] } }), {
    title: "Hi", second: "20", missing: null,
  });
  assert.deepEqual(await q.jsonFields({ payload: { tags: [10] } }), { title: null, second: null, missing: null });
  assert.deepEqual(await q.userByName({ name: "Ann" }), { name: "Ann", email: "ann@example.com" });
  assert.equal(await q.userByName({ name: "Zed" }), null);
  out["functions"] = true;

  // assert_single / assert_exists: Ann and Cy have emails; several rows fail with Gel's
  // CardinalityViolationError (a typed error).
  assert.deepEqual(await q.onlyUser({ pattern: "ann@%" }), { name: "Ann" });
  assert.equal(await q.onlyUser({ pattern: "nobody@%" }), null);
  await assert.rejects(q.onlyUser({ pattern: "%@example.com" }), (e) => e instanceof sf.CardinalityViolationError &&
    e.message === "assert_single violation: more than one element returned by an expression");
  assert.deepEqual(await q.onlyField({ pattern: "cy@%" }), { only: { name: "Cy" } });
  assert.deepEqual(await q.onlyField({ pattern: "nobody@%" }), { only: null });
  await assert.rejects(q.onlyField({ pattern: "%" }), (e) => e instanceof sf.CardinalityViolationError);
  assert.deepEqual(await q.mustUser({ name: "Bob" }), { name: "Bob", active: false });
  await assert.rejects(q.mustUser({ name: "Zed" }), (e) => e instanceof sf.CardinalityViolationError &&
    e.function === "assert_exists" && e.message === "assert_exists violation: expression returned an empty set");
  out["asserts"] = true;

  // Standard-library functions with Gel's results.
  const t = new Date("2018-05-07T15:01:22.306Z");
  const fn = await q.stdFunctions({ t, s: "ab" });
  assert.match(fn.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual({ ...fn, id: "" }, {
    trimmed: "xy", repeated: "ababab", replaced: "a-b-", reversed: "cba", found: "2", not_found: "-1",
    absolute: "3", year: 2018, minutes: 1, day: new Date("2018-05-07T00:00:00Z"), id: "",
  });
  assert.equal((await q.stdFunctions({ t })).repeated, null);
  out["stdFunctions"] = true;

  // More standard-library functions, with Gel's empty-set rules: sum of none is 0, the mean of
  // the fallback, ?= of an empty value false, re_match without a match empty.
  const more = await q.stdMore({ doc: '{"a": [1, 2]}', email: "ann@example", s: "x", n: 4 });
  assert.match(more.v1, /^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f][13579bdf][0-9a-f]{10}$/);
  assert.deepEqual({ ...more, v1: "" }, {
    trimmed: "x", has: true, parts: ["a", "b", "", "c"], letters: ["a", "b", "c"], groups: ["ann", "example"],
    text: "42 2018-05-07", rounded: 2, smallest: "1", total: "4", mean: 4, at: new Date("2018-05-07T13:01:22Z"),
    day: "2018-05-07", kind: "object", field: [1, 2], v1: "", same: true, differs: false, size: "1", pick: "long",
  });
  const none = await q.stdMore({ doc: "[]", email: "nobody" });
  assert.deepEqual(
    [none.groups, none.total, none.mean, none.field, none.kind, none.same, none.differs, none.size, none.pick],
    [null, "0", 7, "none", "array", false, true, null, "short"],
  );
  assert.deepEqual(await q.distinctActive(), [{ name: "Ann" }, { name: "Cy" }, { name: "Dee" }]);
  out["moreStdFunctions"] = true;

  // Sets of values: literals and array elements united in order, an empty value no element;
  // distinct keeps each value once.
  assert.deepEqual(await q.valuesUnion({ first: "a", more: ["c", "b"] }), ["a", "b", "c", "b"]);
  assert.deepEqual(await q.valuesUnion({ more: [] }), ["b"]);
  // `??` binds tighter than `*` and `++`; json_get() of an empty json value is empty.
  assert.deepEqual(await q.optionalMath({}), { b: "20", c: "pre-none", j: null });
  assert.deepEqual(await q.optionalMath({ n: 3, a: "x", doc: { b: 1 } }), { b: "6", c: "pre-x", j: "dflt" });
  assert.deepEqual((await q.optionalMath({ doc: { a: 5 } })).j, 5);
  assert.deepEqual((await q.distinctValues({ xs: [3, 2, 3] })).sort(), ["1", "2", "3"]);
  out["valueSets"] = true;

  // select global current_user { ... }: the object a global holds.
  const ann = (await pool.query("SELECT id FROM \"user\" WHERE name = 'Ann'")).rows[0] as { id: string };
  const asAnn = sf.createRunner(pool, { globals: { current_user_id: ann.id } }).query;
  assert.deepEqual(await asAnn.me(), { name: "Ann", email: "ann@example.com" });
  assert.equal(await q.me(), null);
  out["globalObject"] = true;
  console.log(JSON.stringify(out));
} finally {
  await pool.end();
}
