"use client";
import { useCallback, useRef, useState } from "react";
import { describeError, outcomeUnknown } from "../../errors";
import { useMutationCall } from "../../hooks";
import { useDeviceQueue } from "../../offline/use-device-queue";
import { useTRPC } from "../../trpc";
import type { CallContext } from "../../write-key";
import type { ArrivalRequest, FlushReport, QueuedArrival, SendResult } from "./arrival-queue";
import type { ExpectedCopy } from "./local-lookup";

export interface DockDbShape {
  stato: unknown;
  coda: QueuedArrival;
  attesi: ExpectedCopy;
  stoccaggio: unknown;
  [store: string]: unknown;
}

const NOTICES = "verificati";
/** The arrivals' path as the Idempotency-Key record names it (arrivals.router.ts). */
const PATH = "/arrivi";

/**
 * An arrival of unknown outcome that the queue settled in the background (it had run, or it ran now under a
 * new key): the operator, who saw "Esito incerto", hears it before registering that row again.
 */
export interface Notice {
  quantita: number;
  codice: string;
  /** When the operator confirmed it. */
  il: number;
}

/**
 * The queue of arrivals (arrival-queue.ts) kept in the user's IndexedDB: the device queue (useDeviceQueue)
 * on the store "coda", with the arrivals' own call, and the notices of arrivals settled in the background.
 */
export function useArrivalQueue(onReport: (r: FlushReport) => void) {
  const trpc = useTRPC();
  const [callContext] = useState<CallContext>({});
  const registerCall = useMutationCall(trpc.arrivals.register.mutationOptions({ trpc: { context: callContext } }));
  const notices = useRef<Record<string, Notice> | null>(null);

  /** Sends one arrival with its key; the answer sorted as the queue needs it (the screen's own writes use it too). */
  const send = useCallback(
    async (request: ArrivalRequest, chiave: string): Promise<SendResult & { residua?: string; stato?: string }> => {
      callContext.idempotencyKey = chiave;
      try {
        const out = await registerCall(request);
        return "movimento" in out ? { ok: true, residua: out.residua, stato: out.ordine.stato } : { ok: true };
      } catch (e) {
        const err = describeError(e);
        return outcomeUnknown(err) ? { unknown: err } : { refused: err };
      }
    },
    [callContext, registerCall],
  );

  const queue = useDeviceQueue<QueuedArrival, DockDbShape>("coda", {
    send: (q) => send(q.richiesta, q.chiave),
    settle: { percorso: () => PATH, rifiutata: "Registrazione rifiutata." },
    nouns: { one: "arrivo", many: "arrivi", where: "nel ricevimento" },
    onReport,
    afterPass: async (report) => {
      const done = [...report.verified, ...report.resent];
      if (done.length === 0 || !queue.db) return;
      const kept = await loadNotices();
      for (const q of done) kept[String(q.richiesta.riga)] = { quantita: q.richiesta.quantita, codice: q.codice, il: q.il };
      await queue.db.put("stato", NOTICES, kept);
    },
  });
  const { db } = queue;

  async function loadNotices(): Promise<Record<string, Notice>> {
    notices.current ??= ((await db?.get("stato", NOTICES)) as Record<string, Notice> | undefined) ?? {};
    return notices.current;
  }

  /** The notice of a row, once: the registration that reads it tells the operator and writes nothing. */
  const takeNotice = useCallback(
    async (riga: number): Promise<Notice | undefined> => {
      if (!db) return undefined;
      notices.current ??= ((await db.get("stato", NOTICES)) as Record<string, Notice> | undefined) ?? {};
      const n = notices.current[String(riga)];
      if (!n) return n;
      delete notices.current[String(riga)];
      await db.put("stato", NOTICES, notices.current);
      return n;
    },
    [db],
  );

  const settle = useCallback((chiave: string) => queue.settleAt(PATH, chiave), [queue.settleAt]);

  return { ...queue, send, settle, takeNotice };
}
