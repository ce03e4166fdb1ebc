import type pg from "pg";
import type { Query } from "../../src/server/db/sql";
import type { Actor } from "../../src/server/modules/auth/actor";
import { uncoverAfterAppend } from "../../src/server/modules/ledger/uncover";

/**
 * The floor: the database work of each endpoint, done directly with `pg` (named prepared statements).
 * The statements are the services' own, taken from their modules' `*.queries.ts` (run), in the same
 * order and transactions, without our HTTP, tRPC, authentication, validation and JSON layers.
 * What the floor leaves out on purpose is listed at each function: that difference is "ours".
 */

/**
 * Runs a service's statement (its module's `*.queries.ts`) as a named prepared statement: the very
 * text and values the service sends. Through `pg` numeric and bigint columns arrive as strings, not as
 * the Row type's Decimal and bigint: the floor reads them only through Number(), toString() or Decimal.
 */
export function run<Row>(c: pg.ClientBase, name: string, statement: Query<Row>) {
  return c.query<Row & pg.QueryResultRow>({ name, text: statement.sql.text, values: statement.sql.values });
}

export async function inTransaction<T>(c: pg.ClientBase, work: () => Promise<T>): Promise<T> {
  await c.query("BEGIN");
  try {
    const out = await work();
    await c.query("COMMIT");
    return out;
  } catch (e) {
    await c.query("ROLLBACK").catch(() => {});
    throw e;
  }
}

/** Who the floor's writes are authored by: the bench's API key (authorColumns reads kind and id only). */
export const benchKey = (id: number): Actor => ({ kind: "chiave", id, nome: "bench", permessi: ["scrittura"] });

/**
 * The ledger's append and the uncovering of the reservations on the pairs it wrote, sent together as the stock
 * writer sends them (ledger/uncover.ts: where nothing is held, a probe of the holds' index). The append's rows.
 */
export async function appendAndUncover<Row>(
  c: pg.ClientBase,
  name: string,
  append: Query<Row>,
  pairs: readonly { articolo: number; magazzino: number }[],
  oggi: string,
) {
  const [written] = await Promise.all([run(c, name, append), run(c, "uncover", uncoverAfterAppend(pairs, oggi))]);
  return written;
}
