"use client";
import { useCallback, useState } from "react";
import { describeError, outcomeUnknown } from "../../errors";
import { useMutationCall } from "../../hooks";
import type { FlushReport, SendResult } from "../../offline/device-queue";
import { useDeviceQueue } from "../../offline/use-device-queue";
import { useTRPC } from "../../trpc";
import type { CallContext } from "../../write-key";
import type { ReceivePalletOutput } from "../../../server/modules/arrivals/receiving.schemas";
import type { QueuedPallet } from "./pallet-copy";

/** The pallet was received already: by this device's earlier send whose answer was lost, or at another bay. */
const ALREADY = "collo_gia_ricevuto";

/**
 * The pallet receipts confirmed offline (store "colli"), each with the Idempotency-Key fixed when Enter queued
 * it: a resend under that key replays the first receipt instead of receiving twice. A receipt answered
 * `collo_gia_ricevuto` is done, not an error for the operator: the pallet is in, which is what the queue was for.
 */
export function usePalletQueue(onReport: (r: FlushReport<QueuedPallet>) => void) {
  const trpc = useTRPC();
  const [callContext] = useState<CallContext>({});
  const receiveCall = useMutationCall(trpc.notices.receive.mutationOptions({ trpc: { context: callContext } }));

  /** Receives one pallet under `chiave`; the answer sorted (the screen's own receipt uses it too: for it, ALREADY is a refusal). */
  const receive = useCallback(
    async (
      request: QueuedPallet["richiesta"],
      chiave: string,
    ): Promise<Exclude<SendResult, { ok: true }> | { ok: true; out: ReceivePalletOutput }> => {
      callContext.idempotencyKey = chiave;
      try {
        return { ok: true, out: await receiveCall(request) };
      } catch (e) {
        const err = describeError(e);
        return outcomeUnknown(err) ? { unknown: err } : { refused: err };
      }
    },
    [callContext, receiveCall],
  );

  const send = useCallback(
    async (q: QueuedPallet): Promise<SendResult> => {
      const r = await receive(q.richiesta, q.chiave);
      return "refused" in r && r.refused.codice === ALREADY ? { ok: true } : r;
    },
    [receive],
  );

  const queue = useDeviceQueue<QueuedPallet>("colli", {
    send,
    settle: { percorso: (q) => `/colli/${q.richiesta.sscc}/ricevi`, rifiutata: "Ricevimento del collo rifiutato.", fatto: [ALREADY] },
    nouns: { one: "collo", many: "colli", where: "nel ricevimento" },
    onReport,
  });
  return { ...queue, receive };
}
