import type { PrismaClient, Tx } from "./client";
import { isSerializationFailure } from "./pg-errors";

export interface TransactionOptions {
  /** How long a request may wait for a pooled connection. */
  maxWait?: number;
  /** The longest the unit of work may run (a 10,000-row alignment needs more than a single arrival). */
  timeout?: number;
  attempts?: number;
}

/**
 * Runs one unit of work in a READ COMMITTED transaction. Correctness comes from row locks and guarded
 * updates, not from isolation; deadlocks and serialization failures are retried with a bound and jitter.
 */
export async function inTransaction<T>(
  db: PrismaClient,
  work: (tx: Tx) => Promise<T>,
  opts: TransactionOptions = {},
): Promise<T> {
  const attempts = opts.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      // PostgreSQL's default isolation, READ COMMITTED: naming it would cost Prisma a round trip per transaction.
      return await db.$transaction(work, {
        maxWait: opts.maxWait ?? 10_000,
        timeout: opts.timeout ?? 30_000,
      });
    } catch (e) {
      if (attempt >= attempts || !isSerializationFailure(e)) throw e;
      await new Promise((r) => setTimeout(r, 5 * 2 ** attempt + Math.random() * 20));
    }
  }
}
