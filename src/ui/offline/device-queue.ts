import type { DescribedError } from "../errors";
import { count } from "../format";

/**
 * A handheld's queue of writes the operator confirmed (arrivals, pallet receipts, putaways) and the service has not confirmed back: kept in
 * IndexedDB per user, with each write's Idempotency-Key, sent in order when the network returns.
 *
 * - `in_coda`: never sent (the handheld was offline): sent with its key.
 * - `incerto`: sent, no answer (a dead spot, a timeout, a 5xx): it may have run. It is never sent again as it
 *   is: its key is settled first (`idempotency.settle`): done, it leaves the queue; never run (now abandoned,
 *   so a late original is refused), it goes again under a new key.
 * - `rifiutato`: the service refused it (the row closed or received meanwhile): listed with the reason until
 *   the operator decides.
 * - `da_decidere`: its key could have expired (the service keeps keys 24 hours) before it was settled or
 *   sent: never sent by itself; shown for the operator's decision.
 */
export type QueueState = "in_coda" | "incerto" | "rifiutato" | "da_decidere";

/** What every queue of writes kept on the handheld holds (arrivals and pallet receipts in screens/receiving, putaways in screens/putaway). */
export interface QueueItem {
  /** The IndexedDB key: the time it was confirmed, then a random part (the queue's order). */
  id: string;
  chiave: string;
  /** When `chiave` was made: its age decides whether the service may have forgotten it. */
  chiave_il: number;
  utente: number;
  /** When the operator confirmed it (ms since the epoch). */
  il: number;
  stato: QueueState;
  errore?: { codice: string; messaggio: string };
}

/** A key older than this is not trusted to the service's memory (24 hours, less a margin for clocks and queues). */
export const KEY_TRUSTED_MS = 20 * 3600_000;

export type SendResult = { ok: true } | { refused: DescribedError } | { unknown: DescribedError };
export type SettleResult = { ran: true } | { refused: DescribedError } | { abandoned: true } | { unknown: DescribedError };

export interface FlushDeps<T extends QueueItem> {
  userId: number;
  now: () => number;
  newKey: () => string;
  send: (item: T) => Promise<SendResult>;
  /** The item is given for the write's path (a pallet receipt's names its SSCC). */
  settle: (chiave: string, item: T) => Promise<SettleResult>;
  save: (item: T) => Promise<void>;
  remove: (item: T) => Promise<void>;
}

export interface FlushReport<T extends QueueItem> {
  sent: T[];
  /** Settled: it had run. */
  verified: T[];
  /** Settled: it had never run; sent again under a new key, and done. */
  resent: T[];
  refused: T[];
  toDecide: T[];
  /** Why the pass stopped before the end (no answer): the rest waits for the next pass. */
  stopped: DescribedError | null;
}

/** Whether an item may be sent or settled without asking anyone. */
export const actionable = (q: QueueItem) => q.stato === "in_coda" || q.stato === "incerto";

/**
 * One pass over the queue, oldest first. The first item without an answer stops the pass, so that the
 * writes reach the service in the order they were confirmed. Only the signed-in user's items are
 * touched (a queue is per user; this is the guard of last resort).
 */
export async function flushQueue<T extends QueueItem>(items: T[], deps: FlushDeps<T>): Promise<FlushReport<T>> {
  const report: FlushReport<T> = { sent: [], verified: [], resent: [], refused: [], toDecide: [], stopped: null };
  const ordered = [...items].sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const original of ordered) {
    if (original.utente !== deps.userId || !actionable(original)) continue;
    let item = original;
    if (deps.now() - item.chiave_il > KEY_TRUSTED_MS) {
      item = { ...item, stato: "da_decidere" };
      await deps.save(item);
      report.toDecide.push(item);
      continue;
    }
    if (item.stato === "incerto") {
      const s = await deps.settle(item.chiave, item);
      if ("unknown" in s) {
        report.stopped = s.unknown;
        break;
      }
      if ("ran" in s) {
        await deps.remove(item);
        report.verified.push(item);
        continue;
      }
      if ("refused" in s) {
        item = { ...item, stato: "rifiutato", errore: { codice: s.refused.codice, messaggio: s.refused.messaggio } };
        await deps.save(item);
        report.refused.push(item);
        continue;
      }
      // Never ran, and now never will: the same write goes again under a new key.
      item = { ...item, stato: "in_coda", chiave: deps.newKey(), chiave_il: deps.now() };
      await deps.save(item);
    }
    const r = await deps.send(item);
    if ("ok" in r) {
      await deps.remove(item);
      (original.stato === "incerto" ? report.resent : report.sent).push(item);
    } else if ("refused" in r) {
      item = { ...item, stato: "rifiutato", errore: { codice: r.refused.codice, messaggio: r.refused.messaggio } };
      await deps.save(item);
      report.refused.push(item);
    } else {
      await deps.save({ ...item, stato: "incerto" });
      report.stopped = r.unknown;
      break;
    }
  }
  return report;
}

/**
 * A settled key's answer as the queue reads it: a stored refusal whose code says the write's aim already
 * holds (`fatto`: a pallet already received) counts as having run, so the item leaves the queue as done.
 */
export function settledAs(s: SettleResult, fatto: readonly string[] = []): SettleResult {
  return "refused" in s && fatto.includes(s.refused.codice) ? { ran: true } : s;
}

/**
 * What a pass did, in the operator's words: what it sent, and apart from it what it only verified (the service
 * had already written it, from a send whose answer was lost), which was not sent again. Null when it did neither.
 */
export function passSummary(r: FlushReport<QueueItem>, one: string, many: string): { title: string; message: string } | null {
  const sent = r.sent.length + r.resent.length;
  const verified = r.verified.length;
  if (sent + verified === 0) return null;
  const already = `già ${verified === 1 ? "scritto" : "scritti"} dal servizio`;
  if (sent === 0)
    return {
      title: `${verified === 1 ? "Verificato" : "Verificati"} dalla coda: ${count(verified, one, many)}, ${already}`,
      message: "Una risposta persa: il servizio l'aveva già scritto, non è stato inviato di nuovo.",
    };
  return {
    title: `Inviati dalla coda: ${count(sent, one, many)}${verified > 0 ? `; ${verified === 1 ? "verificato" : "verificati"} ${count(verified, one, many)}, ${already}` : ""}`,
    message: "Scritti una volta sola.",
  };
}
