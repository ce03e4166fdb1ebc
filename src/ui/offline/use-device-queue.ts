"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import { describeError, newIdempotencyKey } from "../errors";
import { useMutationCall } from "../hooks";
import { useUser } from "../session-context";
import { useTRPC } from "../trpc";
import { openUserDb, type UserDb, type UserDbShape, type UserStore } from "./local-db";
import { useOnline } from "./network";
import { registerSignOutGuard } from "./sign-out-guards";
import { markQueueOpen, setWaitingCount } from "./waiting";
import { actionable, type FlushReport, flushQueue, type QueueItem, type SendResult, type SettleResult, settledAs } from "./device-queue";

/** One thing at a time on a queue and the screen's writes: a settle and a send of the same item never cross. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

const RETRY_MS = 10_000;

/** The words the sign-out guard uses: "1 arrivo non è…", "3 arrivi non sono…", "…decidere quelli rifiutati nel ricevimento". */
export interface QueueNouns {
  one: string;
  many: string;
  /** Where the operator decides the refused ones: "nel ricevimento", "nello stoccaggio". */
  where: string;
}

export interface DeviceQueueOptions<T extends QueueItem> {
  /** Sends one item under its own key (`item.chiave`); the answer sorted as the queue needs it. */
  send: (item: T) => Promise<SendResult>;
  /**
   * Asks the service what became of an item sent without an answer (`idempotency.settle`): the write's path
   * as the Idempotency-Key record names it (it may depend on the item: /colli/{sscc}/ricevi), and the message
   * when the stored answer is a refusal without one.
   */
  settle: {
    percorso: (item: T) => string;
    rifiutata: string;
    /** Refusals that mean the write's aim already holds (a pallet already received): settled as done. */
    fatto?: readonly string[];
  };
  nouns: QueueNouns;
  /** Every pass's report, after the list was read again. */
  onReport: (r: FlushReport<T>) => void;
  /** Runs after a pass with the list not yet read again: the screen records what it must tell later (notices). */
  afterPass?: (r: FlushReport<T>) => Promise<void>;
}

/**
 * A queue of writes kept in one store of the user's IndexedDB (arrival-queue.ts's flushQueue does a pass),
 * and the calls that empty it: sent in order when the service can be reached (at start, when the network
 * returns, every few seconds while something waits), each once; sign-out waits for it. `lock` serialises
 * the queue's passes and the screen's own writes.
 *
 * @public the receiving screen's arrivals and pallet receipts; the putaway screen's putaways
 */
export function useDeviceQueue<T extends QueueItem, S extends UserDbShape = UserDbShape>(store: UserStore, options: DeviceQueueOptions<T>) {
  const trpc = useTRPC();
  const user = useUser();
  const online = useOnline();
  const [items, setItems] = useState<T[]>([]);
  const itemsRef = useRef<T[]>([]);
  const [db, setDb] = useState<UserDb<S> | null>(null);
  const [mutex] = useState(() => new Mutex());
  const settleCall = useMutationCall(trpc.idempotency.settle.mutationOptions());
  // The options change at every render (inline functions): read through a ref, so the timers keep their flush.
  const opts = useRef(options);
  opts.current = options;
  const waiting = `coda-${store}`;

  const publish = useCallback(
    (list: T[]) => {
      itemsRef.current = list;
      setItems(list);
      setWaitingCount(waiting, list.length);
    },
    [waiting],
  );

  useEffect(() => markQueueOpen(store), [store]);

  useEffect(() => {
    let live = true;
    let opened: UserDb<S> | null = null;
    void openUserDb<S>(user.id).then(async (d) => {
      if (!live) return d.close();
      opened = d;
      // The items first, then the database: the pass that the database's arrival starts must see them (else
      // a page opened with a queue would wait for the timer's pass to send it).
      const list = (await d.all(store)) as T[];
      if (!live) return;
      publish(list);
      setDb(d);
    });
    return () => {
      live = false;
      opened?.close();
      setWaitingCount(waiting, 0);
    };
  }, [user.id, store, waiting, publish]);

  const reload = useCallback(async () => {
    if (db) publish((await db.all(store)) as T[]);
  }, [db, store, publish]);

  /** What became of the write `chiave` at `percorso` (the screen's own writes without an answer use it too). */
  const settleAt = useCallback(
    async (percorso: string, chiave: string): Promise<SettleResult> => {
      try {
        const s = await settleCall({ percorso, chiave });
        if (s.esito === "abbandonata") return { abandoned: true };
        if (s.stato < 300) return { ran: true };
        const body = s.corpo as { codice?: string; messaggio?: string };
        return { refused: { codice: body.codice ?? "rifiutata", messaggio: body.messaggio ?? opts.current.settle.rifiutata } };
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
        send: (q) => opts.current.send(q),
        settle: async (chiave, q) => settledAs(await settleAt(opts.current.settle.percorso(q), chiave), opts.current.settle.fatto),
        save: (q) => db.put(store, q.id, q as S[UserStore]),
        remove: (q) => db.delete(store, q.id),
      }),
    );
    await opts.current.afterPass?.(report);
    await reload();
    opts.current.onReport(report);
  }, [db, store, mutex, user.id, settleAt, reload]);

  // Sent when the service can be reached: now, when the network returns, and again while something waits.
  useEffect(() => {
    if (!online || !db) return;
    void flush();
    const timer = setInterval(() => void flush(), RETRY_MS);
    return () => clearInterval(timer);
  }, [online, db, flush]);

  // Sign-out waits for the queue: a handheld passed to the next shift must not carry unsent writes away.
  useEffect(
    () =>
      registerSignOutGuard(async () => {
        await flush();
        const left = itemsRef.current.length;
        if (left === 0) return null;
        const { one, many, where } = opts.current.nouns;
        return `${left === 1 ? `1 ${one} non è ancora stato inviato` : `${left} ${many} non sono ancora stati inviati`} al servizio: collegarsi alla rete e attendere l'invio, oppure decidere quelli rifiutati ${where}.`;
      }),
    [flush],
  );

  /** A write confirmed on the handheld: its key is the one given (fixed now, so a resend never writes twice). */
  const add = useCallback(
    async (item: Omit<T, "id" | "utente" | "il" | "chiave_il">): Promise<T> => {
      if (!db) throw new Error("Archivio del palmare non disponibile.");
      const il = Date.now();
      const full = { ...item, id: `${il}-${newIdempotencyKey()}`, utente: user.id, il, chiave_il: il } as T;
      await db.put(store, full.id, full as S[UserStore]);
      await reload();
      return full;
    },
    [db, store, user.id, reload],
  );

  const remove = useCallback(
    async (item: T) => {
      await db?.delete(store, item.id);
      await reload();
    },
    [db, store, reload],
  );

  /** The operator decided to send an item the queue held back (refused, or its key too old): a new key. */
  const sendAgain = useCallback(
    async (item: T) => {
      if (!db) return;
      const again = { ...item, stato: "in_coda", chiave: newIdempotencyKey(), chiave_il: Date.now(), errore: undefined } as T;
      await db.put(store, item.id, again as S[UserStore]);
      await reload();
      await flush();
    },
    [db, store, reload, flush],
  );

  return { items, itemsRef, db, online, lock: mutex.run.bind(mutex), add, remove, sendAgain, flush, settleAt };
}
