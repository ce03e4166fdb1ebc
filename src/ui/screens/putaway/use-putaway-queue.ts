"use client";
import { useCallback, useState } from "react";
import type { StoreInput, StorePalletInput } from "@/server/modules/putaway/putaway.schemas";
import { describeError, outcomeUnknown } from "../../errors";
import { useMutationCall } from "../../hooks";
import type { FlushReport, QueueItem, SendResult } from "../../offline/device-queue";
import { useDeviceQueue } from "../../offline/use-device-queue";
import { useTRPC } from "../../trpc";
import type { CallContext } from "../../write-key";

/** What of a row of the copy a queued putaway takes: taken off that row until the service confirms it. */
export interface QueuedPart {
  riga: number;
  quantita: number;
}

/**
 * A putaway confirmed on the handheld and not yet confirmed by the service: an article's (`richiesta` a
 * StoreInput) or a whole pallet's (a StorePalletInput, with `parti`: what of each row it takes).
 */
export interface QueuedPutaway extends QueueItem {
  richiesta: StoreInput | StorePalletInput;
  /** The copy's row it takes from (a pallet: its first part's). */
  riga: number;
  parti?: QueuedPart[];
}

export interface PutawayDbShape {
  stato: unknown;
  coda: unknown;
  attesi: unknown;
  stoccaggio: QueuedPutaway;
}

export const isPalletRequest = (r: QueuedPutaway["richiesta"]): r is StorePalletInput => "sscc" in r;

/** What a queued putaway takes of each row of the copy. */
export const partsOf = (q: Pick<QueuedPutaway, "richiesta" | "riga" | "parti">): QueuedPart[] =>
  isPalletRequest(q.richiesta) ? (q.parti ?? []) : [{ riga: q.riga, quantita: q.richiesta.quantita }];

/** The write's path as the Idempotency-Key record names it (putaway.router.ts). */
const pathOf = (q: QueuedPutaway) => (isPalletRequest(q.richiesta) ? "/stoccaggio/collo" : "/stoccaggio");

/**
 * The putaways kept in the user's IndexedDB (store "stoccaggio") on the device queue every offline screen
 * shares (src/ui/offline/use-device-queue.ts): sent in order when the service answers, each once under the
 * key fixed when it was queued; one of unknown outcome is settled before anything is sent again. A pallet
 * answered `collo_gia_stoccato` is a refusal the operator sees, not "done": another handheld may have put
 * it elsewhere, and the operator must know where the goods went.
 */
export function usePutawayQueue(onReport: (r: FlushReport<QueuedPutaway>) => void) {
  const trpc = useTRPC();
  const [callContext] = useState<CallContext>({});
  const storeCall = useMutationCall(trpc.putaway.store.mutationOptions({ trpc: { context: callContext } }));
  const storePalletCall = useMutationCall(trpc.putaway.storePallet.mutationOptions({ trpc: { context: callContext } }));

  /** Sends one putaway with its key; the answer sorted as the queue needs it. */
  const send = useCallback(
    async (request: QueuedPutaway["richiesta"], chiave: string): Promise<SendResult> => {
      callContext.idempotencyKey = chiave;
      try {
        if (isPalletRequest(request)) await storePalletCall(request);
        else await storeCall(request);
        return { ok: true };
      } catch (e) {
        const err = describeError(e);
        return outcomeUnknown(err) ? { unknown: err } : { refused: err };
      }
    },
    [callContext, storeCall, storePalletCall],
  );

  const queue = useDeviceQueue<QueuedPutaway, PutawayDbShape>("stoccaggio", {
    send: (q) => send(q.richiesta, q.chiave),
    settle: { percorso: pathOf, rifiutata: "Stoccaggio rifiutato." },
    nouns: { one: "stoccaggio", many: "stoccaggi", where: "nello stoccaggio" },
    onReport,
  });
  return { ...queue, send };
}
