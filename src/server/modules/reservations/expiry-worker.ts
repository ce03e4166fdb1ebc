import type { PrismaClient } from "../../db/client";
import { sweepExpiredLots, sweepExpiredReservations } from "./expiry.service";

/**
 * The expiry worker, started by main.ts in every instance: sweeps the reservations past their `scade_il`
 * (expiry.service.ts) at start and then every `everyMs`, so the state `scaduta` and its event follow the
 * expiry within the contract's 60 seconds (docs/api.md section 14); then the lots that passed their expiry since
 * the day last looked (once a day: an idle tick is one statement). The instances need no coordination: a sweep
 * skips what another holds, each reservation changes state once, and one instance does a day's lots.
 *
 * An idle sweep logs nothing. A failed one (the database unreachable) is logged once, not at every tick of an
 * outage, and the next tick tries again; the worker never throws into the process.
 */

export interface ExpirySettings {
  /** Between the end of one sweep and the start of the next. */
  everyMs: number;
  /** The service's time zone (SERVICE_TIME_ZONE): the business day lots expire by. */
  timeZone: string;
  /** The sweep (sweepExpiredReservations); tests replace it to fail or count. */
  sweep: (db: PrismaClient, timeZone: string) => Promise<number[]>;
  /** The lots' sweep (sweepExpiredLots), after it in the same tick: the reservations it uncovered. */
  lots: (db: PrismaClient, timeZone: string) => Promise<number[]>;
}

export const DEFAULT_EXPIRY_SETTINGS: ExpirySettings = {
  // Half the contract's minute: a sweep that starts late or runs long still lands within it.
  everyMs: 30_000,
  timeZone: "Europe/Rome",
  sweep: (db, timeZone) => sweepExpiredReservations(db, { timeZone }),
  lots: (db, timeZone) => sweepExpiredLots(db, { timeZone }),
};

export interface ExpiryWorker {
  /** Lets a sweep in flight finish (each batch is one statement) and schedules no other. */
  stop(): Promise<void>;
}

export function startExpiryWorker(
  db: PrismaClient,
  settings: Partial<ExpirySettings> = {},
  log: (m: string) => void = console.log,
): ExpiryWorker {
  const s = { ...DEFAULT_EXPIRY_SETTINGS, ...settings };
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  // Within one outage the errors' texts vary (the connection terminated, then refused): its first is logged.
  let failing = false;

  async function tick(): Promise<void> {
    try {
      const expired = await s.sweep(db, s.timeZone);
      const uncovered = await s.lots(db, s.timeZone);
      if (failing) log("Scadenza delle prenotazioni: il controllo è ripreso.");
      failing = false;
      if (expired.length > 0) log(`Prenotazioni scadute: ${expired.length} (rilasciate le quantità tenute).`);
      if (uncovered.length > 0) log(`Lotti scaduti: ${uncovered.length} prenotazioni con quantità scoperte aggiornate.`);
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
