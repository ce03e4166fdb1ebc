import type { Db } from "../../db/client";
import { sweepExpiredReservations } from "./expiry.service";

/**
 * The expiry worker, started by main.ts in every instance: sweeps the reservations past their `scade_il`
 * (expiry.service.ts) at start and then every `everyMs`, so the state `scaduta` and its event follow the
 * expiry within the contract's 60 seconds (docs/api.md section 14). The instances need no coordination: a
 * sweep skips what another holds, and each reservation changes state once.
 *
 * An idle sweep logs nothing. A failed one (the database unreachable) is logged once, not at every tick of an
 * outage, and the next tick tries again; the worker never throws into the process.
 */

export interface ExpirySettings {
  /** Between the end of one sweep and the start of the next. */
  everyMs: number;
  /** The sweep (sweepExpiredReservations); tests replace it to fail or count. */
  sweep: (db: Db) => Promise<number[]>;
}

export const DEFAULT_EXPIRY_SETTINGS: ExpirySettings = {
  // Half the contract's minute: a sweep that starts late or runs long still lands within it.
  everyMs: 30_000,
  sweep: (db) => sweepExpiredReservations(db),
};

export interface ExpiryWorker {
  /** Lets a sweep in flight finish (each batch is one statement) and schedules no other. */
  stop(): Promise<void>;
}

export function startExpiryWorker(db: Db, settings: Partial<ExpirySettings> = {}, log: (m: string) => void = console.log): ExpiryWorker {
  const s = { ...DEFAULT_EXPIRY_SETTINGS, ...settings };
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  // Within one outage the errors' texts vary (the connection terminated, then refused): its first is logged.
  let failing = false;

  async function tick(): Promise<void> {
    try {
      const expired = await s.sweep(db);
      if (failing) log("Scadenza delle prenotazioni: il controllo è ripreso.");
      failing = false;
      if (expired.length > 0) log(`Prenotazioni scadute: ${expired.length} (rilasciate le quantità tenute).`);
    } catch (e) {
      const m = e instanceof Error ? e.message : String(e);
      if (!failing) log(`Scadenza delle prenotazioni non riuscita, riprovo al prossimo controllo (${m}).`);
      failing = true;
    }
  }

  function schedule(ms: number): void {
    if (stopping) return;
    timer = setTimeout(() => {
      inFlight = tick().finally(() => {
        inFlight = undefined;
        schedule(s.everyMs);
      });
    }, ms);
    // The timer never keeps the process alive on its own: main.ts stops the worker on the way out.
    timer.unref();
  }

  schedule(0);
  return {
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
