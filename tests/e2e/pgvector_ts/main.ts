// End-to-end program for ext::pgvector in the generated TypeScript runner (see
// test_extensions_e2e.py): inserts the documents of docs.json (argv[2]) with their embeddings,
// reads them back as numbers, and prints the three nearest titles by cosine distance, Euclidean
// distance and negative inner product. The test compares them with distances computed in Python;
// here they are also checked against distances computed in TypeScript. A failed check throws.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import pg from "pg";

import * as vec from "./gen/index.js";

const input = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as { docs: Record<string, number[]>; query: number[] };
const dot = (a: readonly number[], b: readonly number[]): number => a.reduce((s, x, i) => s + x * b[i]!, 0);
const norm = (a: readonly number[]): number => Math.sqrt(dot(a, a));
const distances: Record<string, (a: readonly number[], b: readonly number[]) => number> = {
  cosine: (a, b) => 1 - dot(a, b) / (norm(a) * norm(b)),
  l2: (a, b) => Math.hypot(...a.map((x, i) => x - b[i]!)),
  ip: (a, b) => -dot(a, b),
};
const nearestHere = (kind: string): string[] =>
  Object.entries(input.docs)
    .map(([title, v]) => ({ title, d: distances[kind]!(v, input.query) }))
    .sort((x, y) => x.d - y.d || (x.title < y.title ? -1 : 1))
    .slice(0, 3)
    .map((x) => x.title);

const pool = new pg.Pool({ connectionString: process.env["DATABASE_URL"] });
try {
  const q = vec.createRunner(pool).query;
  for (const [title, embedding] of Object.entries(input.docs)) {
    await q.addDoc({ title, embedding });
  }
  await q.addDoc({ title: "no-embedding" });
  const nearest = await q.nearest({ q: input.query, n: 3 });
  // Vectors come back as the numbers that went in (pgvector prints the shortest text of each float4).
  for (const row of nearest) {
    assert.deepEqual(row.embedding, input.docs[row.title]);
  }
  const out = {
    cosine: nearest.map((r) => r.title),
    l2: (await q.nearestL2({ q: input.query, n: 3 })).map((r) => r.title),
    ip: (await q.nearestIp({ q: input.query, n: 3 })).map((r) => r.title),
  };
  for (const [kind, titles] of Object.entries(out)) {
    assert.deepEqual(titles, nearestHere(kind), kind);
  }
  console.log(JSON.stringify(out));
} finally {
  await pool.end();
}
