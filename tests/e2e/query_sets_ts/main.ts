// End-to-end program for the generated TypeScript runner of tests/cases/query_sets (see
// test_query_sets_e2e.py): sets of objects of a query's `with` names, array_agg, any/all and
// assert_exists, through node-postgres. Prints one JSON object of observations; a failed
// expectation throws (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as qs from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const q = qs.createRunner(pool).query;
const out: Record<string, boolean> = {};

// Type-level checks: never called, but must compile.
export async function typeChecks(): Promise<void> {
  const r: qs.RollStatsResult = await q.rollStats({ name: "" });
  const ranks: qs.Rank[] = r.ranks;
  const reasons: string[] = r.reasons;
  const c: { name: string } = (await q.collectionStats({ name: "", id: "" })).collection;
  void [ranks, reasons, c];
}

try {
  await pool.query("TRUNCATE player, character, waifu, roll, collection CASCADE");
  await pool.query("INSERT INTO player (name) VALUES ('ann'), ('bob')");
  await pool.query(
    "INSERT INTO character (cid, rank, image) VALUES (1, 'S', 'x.jpg'), (2, 'A', 'y/default.jpg'), (3, 'B', 'z.jpg')",
  );
  await pool.query(
    "INSERT INTO waifu (character_id, owner_id) SELECT c.id, p.id FROM character c, player p " +
      "WHERE (p.name = 'ann' AND c.cid IN (1, 3)) OR (p.name = 'bob' AND c.cid IN (1, 2))",
  );
  // ann's rolls: a (3 coins) got her waifu of character 1, b got bob's of character 1, c hers of 3
  for (const [reason, coins, owner, cid] of [["a", 3, "ann", 1], ["b", null, "bob", 1], ["c", 7, "ann", 3]] as const) {
    await pool.query(
      "INSERT INTO roll (author_id, reason, coins) SELECT id, $1, $2 FROM player WHERE name = 'ann'", [reason, coins],
    );
    await pool.query(
      "INSERT INTO roll_received (source_id, target_id) SELECT r.id, w.id FROM roll r, waifu w " +
        "JOIN character c ON c.id = w.character_id JOIN player p ON p.id = w.owner_id " +
        "WHERE r.reason = $1 AND p.name = $2 AND c.cid = $3",
      [reason, owner, cid],
    );
  }
  await pool.query("INSERT INTO collection (name) VALUES ('all'), ('none')");
  await pool.query(
    "INSERT INTO collection_characters (source_id, target_id, weight) SELECT l.id, c.id, c.cid * 4 " +
      "FROM collection l, character c WHERE l.name = 'all'",
  );

  const ann = await q.rollStats({ name: "ann" });
  assert.deepEqual({ ...ann, reasons: [...ann.reasons].sort() }, {
    total: "2", coins: "3", reasons: ["a", "b"], ranks: ["S"], received: "2", a_count: "1", any_received: true,
  });
  assert.deepEqual(await q.rollStats({ name: "zed" }), {
    total: "0", coins: "0", reasons: [], ranks: [], received: "0", a_count: "0", any_received: false,
  });
  out["rollStats"] = true;

  assert.deepEqual(await q.lastRolls({ n: "2" }), { reasons: ["c", "b"], n: "2" });
  assert.deepEqual(await q.lastRolls({ n: "0" }), { reasons: [], n: "0" });
  out["pagedOrder"] = true;

  const all = (await pool.query("SELECT id FROM collection WHERE name = 'all'")).rows[0] as { id: string };
  assert.deepEqual(await q.collectionStats({ name: "ann", id: all.id }), {
    collection: { name: "all" }, nb_charas: "2", nb_owned: "2",
  });
  assert.equal((await q.collectionStats({ name: "bob", id: all.id })).nb_owned, "1");
  await assert.rejects(q.collectionStats({ name: "ann", id: "00000000-0000-0000-0000-000000000000" }),
    /assert_exists violation: expression returned an empty set/);
  await assert.rejects(q.collectionStats({ name: "zed", id: all.id }), /assert_exists violation/);
  out["assertExists"] = true;

  assert.deepEqual(await q.weighted({ w: 10 }), [
    { name: "all", heavy: true, all_s: false }, { name: "none", heavy: false, all_s: true },
  ]);
  assert.deepEqual((await q.weighted({ w: 13 }))[0], { name: "all", heavy: false, all_s: false });
  out["anyAll"] = true;
  // select S.p: the values, in the selection's order; distinct: each once
  const rs: string[] = await q.reasons({ n: "2" });
  assert.deepEqual(rs, ["c", "b"]);
  const ranks: qs.Rank[] = await q.ranksOwned();
  assert.deepEqual([...ranks].sort(), ["A", "B", "S"]);
  out["valueSets"] = true;
  // a with name bound again shadows the earlier binding (its value reads it); a nested with too
  assert.deepEqual(await q.rollsOf({}), [
    { reason: "a", tag: "a!", by: "ann" }, { reason: "b", tag: "b!", by: "ann" }, { reason: "c", tag: "c!", by: "ann" },
  ]);
  assert.deepEqual(await q.rollsOf({ name: "BOB" }), []);
  await assert.rejects(q.rollsOf({ name: "Zed" }), /assert_exists violation/);
  out["shadowed"] = true;

  // a with selection of another one, also in if/else branches; a path from the one object a name holds
  const pools = async (args: qs.PoolOfArgs) =>
    (await q.poolOf(args)).map((g) => [g.key.rank, g.elements.map((e) => e.cid)]).sort(); // (Gel: any order)
  assert.deepEqual(await pools({}), [["B", [3]], ["S", [1]]]);
  assert.deepEqual(await pools({ name: "ann", picky: true }), [["S", [1]]]);
  assert.deepEqual(await pools({ name: "bob", picky: true }), [["B", [3]]]);
  assert.deepEqual(await pools({ name: "zed", picky: true }), [["B", [3]], ["S", [1]]]);
  assert.deepEqual(await pools({ name: "ann", picky: false }), [["B", [3]], ["S", [1]]]);
  // a chain of if/else over selections; a nested shape filtered and ordered by a link property
  const full = { name: "all", characters: [{ cid: 3, "@weight": 12 }, { cid: 2, "@weight": 8 }] };
  assert.deepEqual(await q.collectionsBy({ name: "all" }), [full]);
  assert.deepEqual(await q.collectionsBy({ name: "nope", min_n: 1 }), []);
  assert.deepEqual(await q.collectionsBy({ min_n: 1 }), [full]);
  assert.deepEqual(await q.collectionsBy({}), [full, { name: "none", characters: [] }]);
  // distinct (a union b); x in s.p of a path from a with name; a nested with's set of detached objects
  const waifus = async (name: string) =>
    (await q.waifusOf({ name })).map((w) => [w.character.cid, w.owner.name]);
  assert.deepEqual(await waifus("ann"), [[1, "ann"], [1, "bob"], [3, "ann"]]);
  assert.deepEqual(await waifus("bob"), [[3, "ann"]]);
  await assert.rejects(q.waifusOf({ name: "zed" }), /assert_exists violation/);
  // a with in a for body naming a set of objects per element
  const counts = await q.countsFor({ names: ["none", "all", "nope"] });
  assert.deepEqual([...counts].sort((a, b) => a.name.localeCompare(b.name)), [ // (Gel: any order)
    { name: "all", n: "2", m: "3" }, { name: "none", n: "3", m: "0" },
  ]);
  out["selectionsOfSelections"] = true;
  console.log(JSON.stringify(out));
} finally {
  await pool.end();
}
