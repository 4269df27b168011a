// End-to-end program for the generated TypeScript runner of tests/cases/group_forms (see
// test_group_forms_e2e.py): Gel's group statement (https://docs.geldata.com/reference/edgeql/group)
// through node-postgres. Prints one JSON object of observations; a failed expectation throws
// (exit status 1).
import assert from "node:assert/strict";
import pg from "pg";

import * as gf from "./gen/index.js";

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
const q = gf.createRunner(pool).query;
const out: Record<string, boolean> = {};

// Type-level checks: never called, but must compile.
export async function typeChecks(): Promise<void> {
  const groups: gf.ItemsByKindResult[] = await q.itemsByKind();
  const kind: gf.Kind | null = groups[0]!.key.kind;
  const names: string[] = groups[0]!.grouping;
  const owner: { name: string } | null = groups[0]!.elements[0]!.owner;
  const shelf: { id: string } | null = (await q.itemsByShelf())[0]!.key.shelf;
  const b: gf.BusyOwnersResult = (await q.busyOwners({ min: 1 }))[0]!;
  const n: string = b.n;
  const newest: number | null = b.newest;
  // @ts-expect-error only the keys selected in key: { owner_name } are there
  void b.key.kind;
  void [kind, names, owner, shelf, n, newest];
}

try {
  await pool.query("TRUNCATE item, shelf, person CASCADE");
  await pool.query("INSERT INTO shelf (name) VALUES ('s1'), ('s2')");
  await pool.query("INSERT INTO person (name) VALUES ('ann'), ('bob')");
  await pool.query(`INSERT INTO item (title, kind, year, shelf_id, owner_id)
    SELECT v.title, v.kind, v.year, (SELECT id FROM shelf WHERE name = v.shelf), (SELECT id FROM person WHERE name = v.owner)
    FROM (VALUES ('A: one', 'Book', 2015, 's1', 'ann'), ('B', 'Book', 2021, 's1', 'ann'),
                 ('C', 'Film', 2022, 's2', 'bob'), ('D', NULL, NULL, NULL, NULL),
                 ('E', 'Book', 2019, NULL, 'ann'), ('F', 'Film', 2020, 's2', 'bob'))
         AS v(title, kind, year, shelf, owner)`);

  // group Item { title, owner: { name } } by .kind: one result per kind, the items without one
  // in a group of their own (key { kind: null }).
  const byKind = await q.itemsByKind();
  assert.deepEqual(byKind.map((g) => [g.key, g.grouping]),
                   [[{ kind: null }, ["kind"]], [{ kind: "Book" }, ["kind"]], [{ kind: "Film" }, ["kind"]]]);
  assert.deepEqual(byKind[0]!.elements, [{ title: "D", owner: null }]);
  assert.deepEqual(byKind[2]!.elements.map((e) => e.owner), [{ name: "bob" }, { name: "bob" }]);
  assert.deepEqual(byKind.map((g) => [g.key.kind, g.elements.map((e) => e.title).sort()]),
                   [[null, ["D"]], ["Book", ["A: one", "B", "E"]], ["Film", ["C", "F"]]]);
  out["byProperty"] = true;

  // group Item { title } by .shelf: the key is the shelf object ({ id }), or null.
  const shelves = (await pool.query("SELECT name, id FROM shelf")).rows as { name: string; id: string }[];
  const s1 = shelves.find((s) => s.name === "s1")!.id;
  const byShelf = await q.itemsByShelf();
  assert.equal(byShelf.length, 3);
  const titles = (id: string | null) =>
    byShelf.find((g) => (g.key.shelf === null ? null : g.key.shelf.id) === id)!.elements.map((e) => e.title).sort();
  assert.deepEqual(titles(null), ["D", "E"]);
  assert.deepEqual(titles(s1), ["A: one", "B"]);
  out["byLink"] = true;

  // with recent := (select Item filter .year >= $since) group recent using decade := .year // 10,
  // has_colon := ... by decade, has_colon
  const decades = await q.itemsByDecade({ since: 2015 });
  assert.deepEqual(decades.map((g) => [g.key.decade, g.key.has_colon, g.grouping, g.elements.map((e) => e.title).sort()]), [
    ["201", false, ["decade", "has_colon"], ["E"]],
    ["201", true, ["decade", "has_colon"], ["A: one"]],
    ["202", false, ["decade", "has_colon"], ["B", "C", "F"]],
  ]);
  assert.deepEqual(await q.itemsByDecade({ since: 2030 }), []);
  out["using"] = true;

  // A select over the groups: computed fields, a filter on count(.elements), ordered elements.
  assert.deepEqual(await q.busyOwners({ min: 2 }), [
    {
      key: { owner_name: "ann" }, grouping: ["owner_name", "kind"], n: "3", newest: 2021,
      elements: [{ title: "B", year: 2021 }, { title: "E", year: 2019 }, { title: "A: one", year: 2015 }],
    },
    {
      key: { owner_name: "bob" }, grouping: ["owner_name", "kind"], n: "2", newest: 2022,
      elements: [{ title: "C", year: 2022 }, { title: "F", year: 2020 }],
    },
  ]);
  assert.deepEqual((await q.busyOwners({ min: 3 })).map((g) => g.key.owner_name), ["ann"]);
  out["selectOverGroups"] = true;

  // detached Item inside a select of Item: every item, not the one the shape is about.
  assert.deepEqual(await q.titlesAndTotal({ year: 2021 }), [{ title: "B", total: "6", same_year: "1" }]);
  out["detached"] = true;

  // .<owner[is Item].kind = $kind: the people owning at least one item of the kind.
  assert.deepEqual(await q.peopleWithKind({ kind: "Book" }), [{ name: "ann" }]);
  assert.deepEqual(await q.peopleWithKind({ kind: "Game" }), []);
  out["backlinkFilter"] = true;

  // a free object's field holding groups of a with selection whose shape computes the key
  assert.deepEqual(await q.ownerCounts({ since: 2015, top: 10 }), {
    total: "5", owners: [{ who: "ann", n: "3" }, { who: "bob", n: "2" }],
  });
  assert.deepEqual(await q.ownerCounts({ since: 2020, top: 1 }), { total: "3", owners: [{ who: "bob", n: "2" }] });
  assert.deepEqual(await q.ownerCounts({ since: 2030, top: 1 }), { total: "0", owners: [] });
  out["groupList"] = true;

  // a free object's fields selecting groups the query's own `with` binds (one with a computed
  // field a second binding adds)
  assert.deepEqual(await q.kindCounts({ since: 2015, top: 1 }), {
    total: "5", kinds: [{ kind: "Book", n: "3" }],
    all_kinds: [{ kind: "Book", newest: 2021 }, { kind: "Film", newest: 2022 }],
    by_age: [{ old: false, n: "3" }, { old: true, n: "2" }],
  });
  assert.deepEqual(await q.kindCounts({ since: 2021, top: 5 }), {
    total: "2", kinds: [{ kind: "Book", n: "1" }, { kind: "Film", n: "1" }],
    all_kinds: [{ kind: "Book", newest: 2021 }, { kind: "Film", newest: 2022 }],
    by_age: [{ old: false, n: "2" }],
  });
  assert.deepEqual(await q.kindCounts({ since: 2030, top: 5 }),
                   { total: "0", kinds: [], all_kinds: [], by_age: [] });
  // a select over a group written in place (the item without a kind is a group of its own)
  assert.deepEqual(await q.kindsOver({ min: 2 }), [{ kind: "Book", n: "3" }, { kind: "Film", n: "2" }]);
  assert.deepEqual(await q.kindsOver({ min: 1 }),
                   [{ kind: "Book", n: "3" }, { kind: "Film", n: "2" }, { kind: null, n: "1" }]);
  assert.deepEqual(await q.kindsOver({ min: 4 }), []);
  out["boundGroupList"] = true;

  // for t in array_unpack($titles) union (with it := (insert Item {...}) select it { title, owner: { name } })
  const added = await q.addItems({ owner: "bob", titles: ["G", "H"] });
  assert.deepEqual(added.map((a) => [a.title, a.owner]).sort(), [["G", { name: "bob" }], ["H", { name: "bob" }]]);
  assert.deepEqual(await q.addItems({ owner: "bob", titles: [] }), []);
  out["forInsertSelect"] = true;
  console.log(JSON.stringify(out));
} finally {
  await pool.end();
}
