import type { PrismaClient } from "../../db/client";
import { rows } from "../../db/sql";
import { inTransaction } from "../../db/transaction";
import { lockHeldPairs } from "../ledger/ledger.service";
import { uncoverPairs } from "../ledger/uncover";
import * as q from "./expiry.queries";

/**
 * Time-driven changes of reservations (docs/api.md section 14), what the worker of every instance
 * (expiry-worker.ts) runs; the clock is the database's.
 *
 * The expiry of reservations as a stored state: the holds of a reservation past its `scade_il` already count for
 * nothing at once (banchina_prenotazione_tiene, in every read and write); the sweep records it: the state
 * `scaduta`, the rows released, one `prenotazione.modificata` for each, once across instances, and what the
 * release frees covers the other reservations of that stock that are `scoperta`, oldest first.
 *
 * A lot passing its expiry: nothing is written when the date passes; once a day the sweep runs the uncovering on
 * the pairs that hold something and have a lot expired since it last looked (sweepExpiredLots).
 */

/** Reservations expired per transaction: each batch is its own short transaction, holding few locks. */
const BATCH = 200;

export interface SweepOptions {
  /**
   * The instant the sweep takes as now, for tests that race it against a transaction whose own `now()` is
   * earlier; unset, the database's `now()` (the one clock of expiry).
   */
  at?: string;
  batch?: number;
  /** The service's time zone (SERVICE_TIME_ZONE): the business day of the lots' expiry. */
  timeZone?: string;
}

const DEFAULT_TIME_ZONE = "Europe/Rome";

/** Expires what is due, batch after batch until a batch comes back short; answers the ids it expired. */
export async function sweepExpiredReservations(db: PrismaClient, opts: SweepOptions = {}): Promise<number[]> {
  const batch = opts.batch ?? BATCH;
  const expired: number[] = [];
  for (;;) {
    const done = await expireBatch(db, batch, opts.at ?? null, opts.timeZone ?? DEFAULT_TIME_ZONE);
    expired.push(...done.ids);
    // A short batch: nothing more was due, or the rest is held by someone else (the next sweep takes it).
    if (done.locked < batch) return expired;
  }
}

/**
 * One batch, one transaction, in the lock order of a cancel (ARCHITECTURE.md): the due reservations (2b, SKIP
 * LOCKED), then the balances of the pairs their rows hold (5, FOR UPDATE), before any row is written, so that no
 * writer holding one of those balances (whose uncovering locks the held rows) ever waits for a row this sweep
 * holds; then the release and the state, then the uncovering of those pairs: what the release frees covers the
 * others' `scoperta`, oldest first. An idle batch is one statement (its BEGIN goes out with it).
 */
async function expireBatch(db: PrismaClient, n: number, at: string | null, timeZone: string): Promise<{ ids: number[]; locked: number }> {
  return inTransaction(db, async (tx) => {
    const due = await rows(tx, q.lockDue(n, at, timeZone));
    if (due.length === 0) return { ids: [], locked: 0 };
    const ids = due.map((d) => d.id);
    const pairs = (await rows(tx, q.pairsOfReservations(ids))).map((p) => ({ articolo: p.articolo_id, magazzino: p.magazzino_id }));
    const held = await lockHeldPairs(tx, pairs);
    const expired = (await rows(tx, q.expireLocked(ids))).map((r) => r.id);
    await uncoverPairs(tx, held, due[0]!.oggi);
    return { ids: expired, locked: due.length };
  });
}

/**
 * A lot passing its expiry (docs/api.md section 14): once a day, across instances. The day last looked is one row
 * (scadenze_lotti_controllo): an idle sweep (that day is today) is one statement, outside any transaction.
 * Otherwise, in one transaction: that row FOR UPDATE SKIP LOCKED (another instance's sweep has it: it does the
 * day's work), the pairs that hold something and have a lot with stock whose `scadenza` falls in [the day last
 * looked, today), their balances FOR UPDATE in (article, warehouse) order (lock order 5, as every writer of that
 * stock), the uncovering (banchina_scopri: `scoperta` and prenotazione.scoperta, in this transaction), then today
 * as the day looked. A lot's `scadenza` is written once, when a load creates the lot (or gives one to a lot
 * without), in a write that uncovers by itself: so a lot that expired before the day last looked was seen then.
 * Answers the reservations whose `scoperta` changed.
 */
export async function sweepExpiredLots(db: PrismaClient, opts: Pick<SweepOptions, "at" | "timeZone"> = {}): Promise<number[]> {
  const timeZone = opts.timeZone ?? DEFAULT_TIME_ZONE;
  const [day] = await rows(db, q.lotCheckDay(opts.at ?? null, timeZone));
  if (!day || (day.giorno !== null && day.giorno >= day.oggi)) return [];
  const oggi = day.oggi;
  return inTransaction(db, async (tx) => {
    const [mine] = await rows(tx, q.lockLotCheckDay());
    if (!mine || (mine.giorno !== null && mine.giorno >= oggi)) return [];
    const pairs = (await rows(tx, q.pairsWithLotsExpiredSince(mine.giorno, oggi))).map((p) => ({
      articolo: p.articolo_id,
      magazzino: p.magazzino_id,
    }));
    const changed = await uncoverPairs(tx, await lockHeldPairs(tx, pairs), oggi);
    await rows(tx, q.recordLotCheckDay(oggi));
    return changed;
  });
}
