"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import type { StoreInput } from "@/server/modules/putaway/putaway.schemas";
import { describeError, newIdempotencyKey, outcomeUnknown } from "../../errors";
import { useMutationCall } from "../../hooks";
import { openUserDb, type UserDb } from "../../offline/local-db";
import { useOnline } from "../../offline/network";
import { registerSignOutGuard } from "../../offline/sign-out-guards";
import { setWaitingCount } from "../../offline/waiting";
import { useUser } from "../../session-context";
import { useTRPC } from "../../trpc";
import type { CallContext } from "../../write-key";
import { actionable, type FlushReport, flushQueue, type QueueItem, type SendResult, type SettleResult } from "../receiving/arrival-queue";

/** A putaway confirmed on the handheld and not yet confirmed by the service (the queue of arrival-queue.ts). */
export interface QueuedPutaway extends QueueItem {
  richiesta: StoreInput;
  /** The copy's row it takes from: what it holds is taken off that row until it is sent. */
  riga: number;
}

export interface PutawayDbShape {
  stato: unknown;
  coda: unknown;
  attesi: unknown;
  stoccaggio: QueuedPutaway;
}

/** The write's path as the Idempotency-Key record names it (putaway.router.ts). */
const PATH = "/stoccaggio";
const RETRY_MS = 10_000;

/** One thing at a time on the queue and the screen's writes: a settle and a send never cross. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * The putaways kept in the user's IndexedDB and the calls that empty the queue, as the receiving screen
 * keeps its arrivals (use-arrival-queue.ts, same flushQueue): sent in order when the service answers, each
 * once; one of unknown outcome is settled (idempotency.settle) before anything is sent again.
 */
export function usePutawayQueue(onReport: (r: FlushReport<QueuedPutaway>) => void) {
  const trpc = useTRPC();
  const user = useUser();
  const online = useOnline();
  const [items, setItems] = useState<QueuedPutaway[]>([]);
  const itemsRef = useRef<QueuedPutaway[]>([]);
  const [db, setDb] = useState<UserDb<PutawayDbShape> | null>(null);
  const [mutex] = useState(() => new Mutex());
  const [callContext] = useState<CallContext>({});
  const storeCall = useMutationCall(trpc.putaway.store.mutationOptions({ trpc: { context: callContext } }));
  const settleCall = useMutationCall(trpc.idempotency.settle.mutationOptions());
  const reportRef = useRef(onReport);
  reportRef.current = onReport;

  const publish = useCallback((list: QueuedPutaway[]) => {
    itemsRef.current = list;
    setItems(list);
    setWaitingCount("stoccaggio-coda", list.length);
  }, []);

  useEffect(() => {
    let live = true;
    let opened: UserDb<PutawayDbShape> | null = null;
    void openUserDb<PutawayDbShape>(user.id).then(async (d) => {
      if (!live) return d.close();
      opened = d;
      setDb(d);
      publish(await d.all("stoccaggio"));
    });
    return () => {
      live = false;
      opened?.close();
      setWaitingCount("stoccaggio-coda", 0);
    };
  }, [user.id, publish]);

  const reload = useCallback(async () => {
    if (db) publish(await db.all("stoccaggio"));
  }, [db, publish]);

  /** Sends one putaway with its key; the answer sorted as the queue needs it. */
  const send = useCallback(
    async (request: StoreInput, chiave: string): Promise<SendResult> => {
      callContext.idempotencyKey = chiave;
      try {
        await storeCall(request);
        return { ok: true };
      } catch (e) {
        const err = describeError(e);
        return outcomeUnknown(err) ? { unknown: err } : { refused: err };
      }
    },
    [callContext, storeCall],
  );

  const settle = useCallback(
    async (chiave: string): Promise<SettleResult> => {
      try {
        const s = await settleCall({ percorso: PATH, chiave });
        if (s.esito === "abbandonata") return { abandoned: true };
        if (s.stato < 300) return { ran: true };
        const body = s.corpo as { codice?: string; messaggio?: string };
        return { refused: { codice: body.codice ?? "rifiutata", messaggio: body.messaggio ?? "Stoccaggio rifiutato." } };
      } catch (e) {
        return { unknown: describeError(e) };
      }
    },
    [settleCall],
  );

  const flush = useCallback(async () => {
    if (!db || !itemsRef.current.some(actionable)) return;
    const report = await mutex.run(() =>
      flushQueue(itemsRef.current, {
        userId: user.id,
        now: Date.now,
        newKey: newIdempotencyKey,
        send: (q) => send(q.richiesta, q.chiave),
        settle,
        save: (q) => db.put("stoccaggio", q.id, q),
        remove: (q) => db.delete("stoccaggio", q.id),
      }),
    );
    await reload();
    reportRef.current(report);
  }, [db, mutex, user.id, send, settle, reload]);

  useEffect(() => {
    if (!online || !db) return;
    void flush();
    const timer = setInterval(() => void flush(), RETRY_MS);
    return () => clearInterval(timer);
  }, [online, db, flush]);

  // Sign-out waits for the queue: a handheld passed to the next shift must not carry unsent putaways away.
  useEffect(
    () =>
      registerSignOutGuard(async () => {
        await flush();
        const left = itemsRef.current.length;
        return left === 0
          ? null
          : `${left === 1 ? "1 stoccaggio non è ancora stato inviato" : `${left} stoccaggi non sono ancora stati inviati`} al servizio: collegarsi alla rete e attendere l'invio, oppure decidere quelli rifiutati nello stoccaggio.`;
      }),
    [flush],
  );

  async function add(item: Pick<QueuedPutaway, "richiesta" | "riga" | "chiave" | "stato">) {
    if (!db) throw new Error("Archivio del palmare non disponibile.");
    const il = Date.now();
    const full: QueuedPutaway = { ...item, id: `${il}-${newIdempotencyKey()}`, utente: user.id, il, chiave_il: il };
    await db.put("stoccaggio", full.id, full);
    await reload();
    return full;
  }

  async function remove(item: QueuedPutaway) {
    await db?.delete("stoccaggio", item.id);
    await reload();
  }

  /** The operator decided to send again a putaway the queue held back (refused, or its key too old): a new key. */
  async function sendAgain(item: QueuedPutaway) {
    if (!db) return;
    await db.put("stoccaggio", item.id, {
      ...item,
      stato: "in_coda",
      chiave: newIdempotencyKey(),
      chiave_il: Date.now(),
      errore: undefined,
    });
    await reload();
    await flush();
  }

  return { items, db, online, lock: mutex.run.bind(mutex), add, remove, sendAgain, flush, send };
}
