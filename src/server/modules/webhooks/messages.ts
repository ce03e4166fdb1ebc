import type { HeadRow } from "./deliveries.queries";

/**
 * How an endpoint's pending deliveries become messages (docs/api.md section 10, "Throughput"). A message is one
 * request: one event alone (`eventi_per_richiesta` 1: the body is the event, its webhook-id the event's
 * id, as before batches existed), or a batch of consecutive pending deliveries in sequence order (above 1:
 * the body is `{ "eventi": [...] }`, its webhook-id `msg_<first>_<last>` in sequenze).
 *
 * A batch is formed, its id written on its deliveries (`messaggio`), before its first attempt, so a
 * retry, or the attempt made again after a crash, resends exactly the same events under the same id; a
 * change of the endpoint's settings applies to messages not yet formed. A message of one event alone needs
 * no writing before it is sent (its id and body follow from the event); its first attempt writes its id,
 * and from then on it is formed like a batch.
 */

export interface Message {
  /** The webhook-id. */
  id: string;
  /** `{ "eventi": [...] }` rather than the event alone. */
  batch: boolean;
  /** Its deliveries in sequence order (of a formed message: those this window saw; see `formed`). */
  deliveries: HeadRow[];
  /** Formed by an earlier pass: its deliveries are read back whole by id before it is sent. */
  formed: boolean;
  /** Formed by this plan, to be written before it is sent. */
  toForm: boolean;
}

/** A batch's webhook-id: its first and last sequenza. */
export const batchId = (first: number, last: number) => `msg_${first}_${last}`;

/** Whether a formed message's body is a batch (its id says: batches are msg_…, events alone evt_…). */
export const isBatchId = (id: string) => id.startsWith("msg_");

/**
 * The next messages from a window of pending deliveries (in sequence order), at most `max`. Ordered: the
 * plan stops at the first message that waits for a retry (what follows keeps its place behind it).
 * Deliveries not yet formed are grouped `perRequest` at a time, consecutive ones only (a run stops at a
 * formed delivery).
 */
export function planMessages(pending: HeadRow[], o: { perRequest: number; ordered: boolean; max: number }): Message[] {
  const out: Message[] = [];
  const seen = new Set<string>();
  let i = 0;
  while (i < pending.length && out.length < o.max) {
    const d = pending[i]!;
    if (d.messaggio !== null) {
      i++;
      if (seen.has(d.messaggio)) continue;
      seen.add(d.messaggio);
      if (!d.dovuta) {
        if (o.ordered) break;
        continue;
      }
      out.push({ id: d.messaggio, batch: isBatchId(d.messaggio), deliveries: [d], formed: true, toForm: false });
      continue;
    }
    const run: HeadRow[] = [];
    while (i < pending.length && run.length < o.perRequest && pending[i]!.messaggio === null) run.push(pending[i++]!);
    if (o.perRequest === 1) out.push({ id: d.evento_uid, batch: false, deliveries: run, formed: false, toForm: false });
    else out.push({ id: batchId(run[0]!.evento_id, run.at(-1)!.evento_id), batch: true, deliveries: run, formed: false, toForm: true });
  }
  return out;
}

/** A message's body: the event alone, or the batch. */
export const messageBody = (m: Pick<Message, "batch">, events: unknown[]) => JSON.stringify(m.batch ? { eventi: events } : events[0]);
