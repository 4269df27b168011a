// A tiny "generated" module: a structural client type and one query function.
export interface Queryable {
  query<R extends Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
}

export interface SelectOneRow {
  one: number;
}

export async function selectOne(db: Queryable, n: number): Promise<SelectOneRow | null> {
  const res = await db.query<{ one: number }>("select $1::int4 as one", [n]);
  const row = res.rows[0]; // noUncheckedIndexedAccess: SelectOneRow | undefined
  return row ?? null;
}
