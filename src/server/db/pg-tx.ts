import type pg from "pg";

/**
 * A transaction of our own on a `pg` connection (transaction.ts inTransaction): the services' statements
 * (`rows`, `first`, `execute` of sql.ts) run on it directly, as named prepared statements (but behind a pooler), without Prisma's
 * query runtime, which cost more CPU per request than the rest of a one-row write (bench/layers.ts).
 * Only the Query convention runs here: Prisma's model API needs Prisma's own transaction.
 */
export class PgTx {
  /**
   * BEGIN is not sent on its own: it goes out with the unit of work's first statement, in one write,
   * and their answers come back together (sql.ts), which saves each transaction a round trip. A unit
   * of work that runs no statement sends neither BEGIN nor COMMIT.
   */
  beginPending = true;

  /**
   * COMMIT may go out with the statement the work marks as its last (sql.ts `rowsThenCommit`), in the
   * same write: the round trip of a separate COMMIT is saved. The owner of a unit that still has
   * statements to run after the work (the Idempotency-Key record) turns it off while the work runs.
   */
  commitWithLast = true;

  /** COMMIT has gone out with the last statement: the unit is over, and any further statement is a bug. */
  commitSent = false;

  /**
   * @param committing told just before COMMIT goes out: from then on a lost connection leaves the
   *   outcome in doubt (transaction.ts).
   * @param namesStatements false on a pool behind a pooler (client.ts namesStatements).
   */
  constructor(
    readonly client: pg.PoolClient,
    readonly committing: () => void = () => {},
    readonly namesStatements = true,
  ) {}
}

/** Whether a handle is a PgTx, from this copy of the module or another (Next bundles its own). */
export function isPgTx(db: object): db is PgTx {
  return "client" in db && !("$queryRaw" in db);
}
