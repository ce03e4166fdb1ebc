import type pg from "pg";
import { DomainError } from "../lib/errors";
import { namesStatements, type Prisma, type PrismaClient, poolOf } from "./client";
import { isSerializationFailure, isUnavailable } from "./pg-errors";
import { PgTx } from "./pg-tx";

export interface TransactionOptions {
  /** How long a request may wait for a pooled connection. */
  maxWait?: number;
  /** The longest the unit of work may run (a 10,000-row alignment needs more than a single arrival). */
  timeout?: number;
  attempts?: number;
}

/**
 * The connection went while COMMIT was on its way: PostgreSQL may have made the transaction durable
 * and lost only its answer (a fast shutdown terminates the backend right after the commit record),
 * so the outcome is unknown. Still a 503 (the contract's code), but the message says so and points at
 * the one safe way to find out: the same request with the same Idempotency-Key, whose stored response
 * was committed with the writes, replays if it landed and runs if it did not.
 */
export function commitInDoubt(): DomainError {
  return new DomainError(
    "servizio_non_disponibile",
    "La connessione al database si è interrotta mentre la scrittura veniva confermata: potrebbe essere stata registrata. " +
      "Ripetere la richiesta con la stessa Idempotency-Key: se era stata registrata si riceve la risposta originale, senza duplicarla; " +
      "senza chiave, controllare i movimenti prima di ripeterla.",
    { retryAfterSeconds: 5 },
  );
}

/**
 * Runs one unit of work in a READ COMMITTED transaction of our own, on a connection of the client's pool
 * (PgTx: the services' statements run on it directly, see sql.ts). Correctness comes from row locks and
 * guarded updates, not from isolation; deadlocks and serialization failures are retried with a bound and
 * jitter. A connection lost after the work finished (during COMMIT) is reported as in doubt, not as
 * "nothing written". A unit of work that outlives `timeout` has its connection closed, which rolls it back.
 */
export async function inTransaction<T>(db: PrismaClient, work: (tx: PgTx) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
  const pool = poolOf(db);
  if (!pool) throw new Error("inTransaction: client Prisma senza pool (crearlo con createPrisma)");
  return retried(opts, (committing) => once(pool, work, opts.timeout ?? 30_000, committing));
}

/**
 * Runs one attempt of a transaction at a time: a serialization failure or a deadlock is tried again (a
 * bound, with jitter), a connection lost once the work said it was committing is a commit in doubt.
 */
async function retried<T>(opts: TransactionOptions, attempt: (committing: () => void) => Promise<T>): Promise<T> {
  const attempts = opts.attempts ?? 5;
  for (let n = 1; ; n++) {
    let committing = false;
    try {
      return await attempt(() => {
        committing = true;
      });
    } catch (e) {
      if (committing && isUnavailable(e)) {
        console.warn("transazione dall'esito incerto: connessione persa durante il COMMIT:", e instanceof Error ? e.message : e);
        throw commitInDoubt();
      }
      if (n >= attempts || !isSerializationFailure(e)) throw e;
      await new Promise((r) => setTimeout(r, 5 * 2 ** n + Math.random() * 20));
    }
  }
}

async function once<T>(pool: pg.Pool, work: (tx: PgTx) => Promise<T>, timeoutMs: number, committing: () => void): Promise<T> {
  const client = await pool.connect();
  // A checked-out connection that dies emits 'error' on its client, and an unheard 'error' ends the
  // process: heard here, it only makes the statement in flight fail, and the connection is not reused.
  let lost: Error | undefined;
  const onError = (e: Error) => {
    lost = e;
  };
  client.on("error", onError);
  let released = false;
  const release = (destroy?: Error) => {
    if (released) return;
    released = true;
    client.off("error", onError);
    client.release(destroy ?? lost);
  };
  const timer = setTimeout(() => release(new Error(`unità di lavoro oltre ${timeoutMs} ms: annullata`)), timeoutMs);
  const tx = new PgTx(client, committing, namesStatements(pool));
  try {
    const result = await work(tx);
    // BEGIN went out with the first statement (sql.ts); no statement, no transaction to end. COMMIT may
    // have gone out with the last one (sql.ts rowsThenCommit).
    if (!tx.beginPending && !tx.commitSent) {
      committing();
      await client.query("COMMIT");
    }
    release();
    return result;
  } catch (e) {
    if (!released) {
      // Nothing was sent (BEGIN waits for the first statement): no transaction to roll back.
      if (tx.beginPending) release();
      // COMMIT went out with the last statement, so the transaction is over either way; a connection that
      // failed it is not reused.
      else if (tx.commitSent) release(isUnavailable(e) ? (e as Error) : undefined);
      // A broken connection is not given back to the pool; a healthy one is, once rolled back.
      else
        await client.query("ROLLBACK").then(
          () => release(),
          (rollbackError: unknown) => release(rollbackError as Error),
        );
    }
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A Prisma transaction, for the services that use Prisma's model API (users): same retries, same
 * report of a commit in doubt.
 */
export async function inPrismaTransaction<T>(
  db: PrismaClient,
  work: (tx: Prisma.TransactionClient) => Promise<T>,
  opts: TransactionOptions = {},
): Promise<T> {
  return retried(opts, (committing) =>
    // PostgreSQL's default isolation, READ COMMITTED: naming it would cost Prisma a round trip per transaction.
    db.$transaction(
      async (tx) => {
        const result = await work(tx);
        committing();
        return result;
      },
      { maxWait: opts.maxWait ?? 10_000, timeout: opts.timeout ?? 30_000 },
    ),
  );
}
