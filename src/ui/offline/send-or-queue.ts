import { type DescribedError, newIdempotencyKey } from "../errors";
import type { SendResult } from "./device-queue";

/**
 * What became of a write the operator confirmed on a handheld screen:
 * - `sent`: the service answered it, done (`answer` is what the screen's send returned);
 * - `refused`: the service answered no (the screen says why; nothing was queued);
 * - `queued`: the request never left (the handheld is offline): in the device queue as `in_coda`, sent with
 *   its key when the network returns;
 * - `uncertain`: the request left and no answer came (a timeout, a dropped link, a 5xx): it may have run. In
 *   the device queue as `incerto`, under the same key: the queue settles the key before anything is sent
 *   again, so the write happens once.
 */
export type SendOrQueueOutcome<A extends SendResult> =
  | { kind: "sent"; answer: Extract<A, { ok: true }> }
  | { kind: "refused"; error: DescribedError }
  | { kind: "queued"; chiave: string }
  | { kind: "uncertain"; chiave: string; error: DescribedError };

export interface SendOrQueueDeps<A extends SendResult> {
  /** The device queue's word on the network (useDeviceQueue's `online`): false, the write is queued unsent. */
  online: boolean;
  /** Sends the write once under `chiave` (the Idempotency-Key), its answer sorted (ok / refused / unknown). */
  send: (chiave: string) => Promise<A>;
  /** Puts the write in the device queue, in `stato`, under `chiave`. */
  queue: (stato: "in_coda" | "incerto", chiave: string) => Promise<unknown>;
  /** The key's maker (tests give their own). */
  newKey?: () => string;
}

/**
 * One write of a handheld screen, by the one policy every screen shares (docs/operator-guide.md "Offline"):
 * send now; offline, queue it; sent without an answer, queue it as uncertain. The key is fixed before the
 * first attempt and the queue keeps it, so a late answer, a resend and a settle all speak of the same write.
 * An `offline` failure is the browser's refusal before the request left (src/ui/offline/network.ts): queued,
 * not uncertain. Run it inside the queue's `lock`, so a pass of the queue never crosses it.
 *
 * @public the receiving screen's arrivals and pallet receipts, the putaway screen's putaways (article and pallet)
 */
export async function sendOrQueue<A extends SendResult>(deps: SendOrQueueDeps<A>): Promise<SendOrQueueOutcome<A>> {
  const chiave = (deps.newKey ?? newIdempotencyKey)();
  if (!deps.online) {
    await deps.queue("in_coda", chiave);
    return { kind: "queued", chiave };
  }
  const answer = await deps.send(chiave);
  if ("ok" in answer) return { kind: "sent", answer: answer as Extract<A, { ok: true }> };
  if ("refused" in answer) return { kind: "refused", error: answer.refused };
  if (answer.unknown.codice === "offline") {
    await deps.queue("in_coda", chiave);
    return { kind: "queued", chiave };
  }
  await deps.queue("incerto", chiave);
  return { kind: "uncertain", chiave, error: answer.unknown };
}
