import type pg from "pg";
import { idempotencyLockKey } from "../../src/server/db/advisory-locks";
import { sleep } from "./harness";

/**
 * Seeing a write request "in flight" from outside: its transaction takes the Idempotency-Key's
 * advisory lock first thing (transaction-scoped), so the backend holding that lock is the request's
 * transaction. `backend_xid` not null means it has already written rows that are not committed.
 */

export interface InFlight {
  pid: number;
  state: string;
  xid: string | null;
  /** How long the transaction has been open, per the database clock. */
  xactMs: number;
  query: string;
}

function lockParts(key: bigint): { classid: string; objid: string } {
  const u = BigInt.asUintN(64, key);
  return { classid: String(u >> 32n), objid: String(u & 0xffffffffn) };
}

export function requestLock(keyId: number, percorso: string, chiave: string) {
  return lockParts(idempotencyLockKey({ ambito: `k${keyId}`, metodo: "POST", percorso, chiave }));
}

export async function inFlight(db: pg.Pool | pg.Client, lock: { classid: string; objid: string }): Promise<InFlight | undefined> {
  const r = await db.query(
    `SELECT a.pid, a.state, a.backend_xid::text AS xid, (extract(epoch FROM clock_timestamp() - a.xact_start) * 1000)::int AS "xactMs",
            left(regexp_replace(a.query, '\\s+', ' ', 'g'), 100) AS query
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::oid AND l.objid = $2::oid AND l.objsubid = 1`,
    [lock.classid, lock.objid],
  );
  return r.rows[0] as InFlight | undefined;
}

/**
 * Waits until the request's transaction holds its lock and has written (xid assigned), then until
 * `fraction` of the expected duration has passed since `sentAt`, checks once more that the
 * transaction is still open, and returns that last observation: the caller kills right after it.
 */
export async function waitMidTransaction(
  db: pg.Pool | pg.Client,
  lock: { classid: string; objid: string },
  opts: { sentAt: number; expectedMs: number; fraction: number; timeoutMs?: number },
): Promise<{ first: InFlight; last: InFlight; firstSeenMs: number }> {
  const until = Date.now() + (opts.timeoutMs ?? 60_000);
  let first: InFlight | undefined;
  let firstSeenMs = 0;
  for (;;) {
    const f = await inFlight(db, lock);
    if (f?.xid) {
      first = f;
      firstSeenMs = Date.now() - opts.sentAt;
      break;
    }
    if (Date.now() > until) throw new Error("la richiesta non è mai stata vista in corso nel database");
    await sleep(3);
  }
  const target = opts.sentAt + opts.expectedMs * opts.fraction;
  if (Date.now() < target) await sleep(target - Date.now());
  const last = await inFlight(db, lock);
  if (!last?.xid) throw new Error(`la transazione si è chiusa prima del colpo (vista aperta a ${firstSeenMs} ms)`);
  return { first, last, firstSeenMs };
}
