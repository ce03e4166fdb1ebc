"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import { describeError, newIdempotencyKey, outcomeUnknown } from "../../errors";
import { useMutationCall } from "../../hooks";
import { openUserDb, type UserDb } from "../../offline/local-db";
import { useOnline } from "../../offline/network";
import { registerSignOutGuard } from "../../offline/sign-out-guards";
import { setWaitingCount } from "../../offline/waiting";
import { useUser } from "../../session-context";
import { useTRPC } from "../../trpc";
import type { CallContext } from "../../write-key";
import {
  actionable,
  type ArrivalRequest,
  type FlushReport,
  flushQueue,
  type QueuedArrival,
  type SendResult,
  type SettleResult,
} from "./arrival-queue";
import type { ExpectedCopy } from "./local-lookup";

export interface DockDbShape {
  stato: unknown;
  coda: QueuedArrival;
  attesi: ExpectedCopy;
  stoccaggio: unknown;
  [store: string]: unknown;
}

/** One thing at a time on the queue and the registrations: a settle and a send of the same row never cross. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

const RETRY_MS = 10_000;
const NOTICES = "verificati";

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
 * The queue of arrivals (arrival-queue.ts) kept in the user's IndexedDB, and the calls that empty it: sent
 * in order when the service can be reached (at start, when the network returns, every few seconds while
 * something waits), each once. `lock` serialises the queue's passes and the screen's registrations.
 */
export function useArrivalQueue(onReport: (r: FlushReport) => void) {
  const trpc = useTRPC();
  const user = useUser();
  const online = useOnline();
  const [items, setItems] = useState<QueuedArrival[]>([]);
  const itemsRef = useRef<QueuedArrival[]>([]);
  const [db, setDb] = useState<UserDb<DockDbShape> | null>(null);
  const [mutex] = useState(() => new Mutex());
  const [callContext] = useState<CallContext>({});
  const registerCall = useMutationCall(trpc.arrivals.register.mutationOptions({ trpc: { context: callContext } }));
  const settleCall = useMutationCall(trpc.idempotency.settle.mutationOptions());
  const notices = useRef<Record<string, Notice>>({});
  const reportRef = useRef(onReport);
  reportRef.current = onReport;

  const publish = useCallback((list: QueuedArrival[]) => {
    itemsRef.current = list;
    setItems(list);
    setWaitingCount("ricevimento-coda", list.length);
  }, []);

  useEffect(() => {
    let live = true;
    let opened: UserDb<DockDbShape> | null = null;
    void openUserDb<DockDbShape>(user.id).then(async (d) => {
      if (!live) return d.close();
      opened = d;
      notices.current = ((await d.get("stato", NOTICES)) as Record<string, Notice> | undefined) ?? {};
      setDb(d);
      publish(await d.all("coda"));
    });
    return () => {
      live = false;
      opened?.close();
      setWaitingCount("ricevimento-coda", 0);
    };
  }, [user.id, publish]);

  const reload = useCallback(async () => {
    if (db) publish(await db.all("coda"));
  }, [db, publish]);

  /** Sends one arrival with its key; the answer sorted as the queue needs it. */
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

  const settle = useCallback(
    async (chiave: string): Promise<SettleResult> => {
      try {
        const s = await settleCall({ percorso: "/arrivi", chiave });
        if (s.esito === "abbandonata") return { abandoned: true };
        if (s.stato < 300) return { ran: true };
        const body = s.corpo as { codice?: string; messaggio?: string };
        return { refused: { codice: body.codice ?? "rifiutata", messaggio: body.messaggio ?? "Registrazione rifiutata." } };
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
        save: (q) => db.put("coda", q.id, q),
        remove: (q) => db.delete("coda", q.id),
      }),
    );
    const done = [...report.verified, ...report.resent];
    if (done.length > 0) {
      for (const q of done) notices.current[String(q.richiesta.riga)] = { quantita: q.richiesta.quantita, codice: q.codice, il: q.il };
      await db.put("stato", NOTICES, notices.current);
    }
    await reload();
    reportRef.current(report);
  }, [db, mutex, user.id, send, settle, reload]);

  /** The notice of a row, once: the registration that reads it tells the operator and writes nothing. */
  const takeNotice = useCallback(
    async (riga: number): Promise<Notice | undefined> => {
      const n = notices.current[String(riga)];
      if (!n || !db) return n;
      delete notices.current[String(riga)];
      await db.put("stato", NOTICES, notices.current);
      return n;
    },
    [db],
  );

  // Sent when the service can be reached: now, when the network returns, and again while something waits.
  useEffect(() => {
    if (!online || !db) return;
    void flush();
    const timer = setInterval(() => void flush(), RETRY_MS);
    return () => clearInterval(timer);
  }, [online, db, flush]);

  // Sign-out waits for the queue: a handheld passed to the next shift must not carry unsent arrivals away.
  useEffect(
    () =>
      registerSignOutGuard(async () => {
        await flush();
        const left = itemsRef.current.length;
        return left === 0
          ? null
          : `${left === 1 ? "1 arrivo non è ancora stato inviato" : `${left} arrivi non sono ancora stati inviati`} al servizio: collegarsi alla rete e attendere l'invio, oppure decidere quelli rifiutati nel ricevimento.`;
      }),
    [flush],
  );

  async function add(item: Omit<QueuedArrival, "id" | "utente" | "il" | "chiave_il">) {
    if (!db) throw new Error("Archivio del palmare non disponibile.");
    const il = Date.now();
    const full: QueuedArrival = { ...item, id: `${il}-${newIdempotencyKey()}`, utente: user.id, il, chiave_il: il };
    await db.put("coda", full.id, full);
    await reload();
    return full;
  }

  async function remove(item: QueuedArrival) {
    await db?.delete("coda", item.id);
    await reload();
  }

  /** The operator decided to send an arrival the queue held back (refused, or its key too old): a new key. */
  async function sendAgain(item: QueuedArrival) {
    if (!db) return;
    const now = Date.now();
    await db.put("coda", item.id, { ...item, stato: "in_coda", chiave: newIdempotencyKey(), chiave_il: now, errore: undefined });
    await reload();
    await flush();
  }

  return { items, itemsRef, db, online, lock: mutex.run.bind(mutex), add, remove, sendAgain, flush, send, settle, takeNotice };
}
