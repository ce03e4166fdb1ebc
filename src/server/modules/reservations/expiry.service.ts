import type { Db } from "../../db/client";
import { rows } from "../../db/sql";
import * as q from "./expiry.queries";

/**
 * The expiry of reservations as a stored state (docs/api.md section 14): what the worker of every instance
 * (expiry-worker.ts) runs. The holds of a reservation past its `scade_il` already count for nothing at once
 * (banchina_prenotazione_tiene, in every read and write); the sweep records it: the state `scaduta`, the rows
 * released, and one `prenotazione.modificata` for each, once across instances (expiry.queries.ts expireDue).
 */

/** Reservations expired per statement: each batch is its own short transaction, holding few locks. */
const BATCH = 200;

export interface SweepOptions {
  /**
   * The instant the sweep takes as now, for tests that race it against a transaction whose own `now()` is
   * earlier; unset, the database's `now()` (the one clock of expiry).
   */
  at?: string;
  batch?: number;
}

/** Expires what is due, batch after batch until a batch comes back short; answers the ids it expired. */
export async function sweepExpiredReservations(db: Db, opts: SweepOptions = {}): Promise<number[]> {
  const batch = opts.batch ?? BATCH;
  const expired: number[] = [];
  for (;;) {
    const done = await rows(db, q.expireDue(batch, opts.at ?? null));
    expired.push(...done.map((r) => r.id));
    // A short batch: nothing more was due, or the rest is held by someone else (the next sweep takes it).
    if (done.length < batch) return expired;
  }
}
