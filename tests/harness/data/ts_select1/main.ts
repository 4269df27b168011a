// Test program: connects with pg (ESM named imports), runs `select 1`, prints JSON.
import pg from "pg";
import { selectOne } from "./db.js";

const url = process.env["DATABASE_URL"];
if (url === undefined) throw new Error("DATABASE_URL is not set");

const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  const row = await selectOne(client, 1);
  if (row === null || row.one !== 1) throw new Error(`unexpected row: ${JSON.stringify(row)}`);
  const db = await client.query<{ current_database: string }>("select current_database()");
  console.log(JSON.stringify({ one: row.one, database: db.rows[0]?.current_database, args: process.argv.slice(2) }));
} finally {
  await client.end();
}
