import { qty } from "../../format";
import {
  type FlushDeps as DeviceFlushDeps,
  type FlushReport as DeviceFlushReport,
  passSummary,
  type QueueItem,
} from "../../offline/device-queue";
import type { Feedback } from "./types";

// The queue's pass is the device's (offline/device-queue.ts); the receiving screen's files import it from here.
export {
  flushQueue,
  KEY_TRUSTED_MS,
  type QueueItem,
  type QueueState,
  type SendResult,
  type SettleResult,
} from "../../offline/device-queue";

/** The handheld's queue of arrivals: the states and the pass are the device queue's (offline/device-queue.ts). */

/** A pass's report; an arrivals' one when not said. */
export type FlushReport<T extends QueueItem = QueuedArrival> = DeviceFlushReport<T>;
export type FlushDeps<T extends QueueItem = QueuedArrival> = DeviceFlushDeps<T>;

export interface ArrivalRequest {
  magazzino: number;
  ddt: string;
  riga: number;
  quantita: number;
  lotto?: string;
  scadenza?: string;
  /** What was counted beyond the row's remainder: not received, recorded as a difference (docs/api.md section 12). */
  differenza?: { quantita: number; motivo: "eccedente"; nota: string };
}

export interface QueuedArrival extends QueueItem {
  richiesta: ArrivalRequest;
  /** For the list: article code, the row's label, the order's number. */
  codice: string;
  etichetta: string;
  ordine: string;
}

/** What the queue holds per order row (not refused): taken off the remainder of the local copy's rows. */
export function queuedPerRow(items: QueuedArrival[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const q of items) if (q.stato !== "rifiutato") out.set(q.richiesta.riga, (out.get(q.richiesta.riga) ?? 0) + q.richiesta.quantita);
  return out;
}

/** What the operator hears of a pass over the queue: a refusal or an arrival to decide first; what went, when no row is being received. */
export function reportFeedback(r: FlushReport, rowShown: boolean): Feedback | null {
  const q = r.refused[0];
  if (q)
    return {
      outcome: "ko",
      title: `Arrivo in coda rifiutato: ${qty(q.richiesta.quantita)} × ${q.codice}`,
      message: `${q.errore?.messaggio ?? ""} Decidere nell'elenco «Da inviare».`,
    };
  if (r.toDecide.length > 0)
    return {
      outcome: "ko",
      title: "Arrivi da decidere",
      message: "Alcuni arrivi in coda sono troppo vecchi per essere inviati da soli: decidere nell'elenco «Da inviare».",
    };
  const summary = passSummary(r, "arrivo", "arrivi");
  if (!summary || rowShown) return null;
  return { outcome: "ok", ...summary };
}
