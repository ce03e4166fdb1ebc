import type { Db, Prisma } from "./client";

/**
 * A statement and the shape of its rows, declared once in its module's `<module>.queries.ts`.
 *
 * The statement is a `Prisma.sql` value: the service runs it through Prisma (`rows`, `execute`), and
 * the benchmark's floor (bench/floor.ts) runs the very same text and values through `pg`
 * (`sql.text`, `sql.values`), so the floor cannot drift from what the service runs.
 */
export interface Query<Row> {
  readonly sql: Prisma.Sql;
  /** Never set: carries the row type. */
  readonly row?: Row;
}

export function query<Row>(sql: Prisma.Sql): Query<Row> {
  return { sql };
}

/** Every row of a query. */
export function rows<Row>(db: Db, q: Query<Row>): Promise<Row[]> {
  return db.$queryRaw<Row[]>(q.sql);
}

/** The first row of a query, if any. */
export async function first<Row>(db: Db, q: Query<Row>): Promise<Row | undefined> {
  const [row] = await db.$queryRaw<Row[]>(q.sql);
  return row;
}

/** A statement run for its effect: the number of rows it touched. */
export function execute(db: Db, q: Query<unknown>): Promise<number> {
  return db.$executeRaw(q.sql);
}
