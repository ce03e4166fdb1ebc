import { describe, expect, it } from "vitest";
import {
  type FlushDeps,
  flushQueue,
  KEY_TRUSTED_MS,
  type QueuedArrival,
  queuedPerRow,
  type SendResult,
  type SettleResult,
} from "./arrival-queue";

const NOW = 1_800_000_000_000;
let n = 0;
function item(over: Partial<QueuedArrival> = {}): QueuedArrival {
  n++;
  return {
    id: `${NOW - 1000 + n}-${n}`,
    chiave: `k${n}`,
    chiave_il: NOW - 1000,
    richiesta: { magazzino: 1, ddt: "D1", riga: 10 + n, quantita: 2 },
    utente: 7,
    il: NOW - 1000,
    stato: "in_coda",
    codice: "A",
    etichetta: `R${10 + n}`,
    ordine: "OA-1",
    ...over,
  };
}

/** A fake service: what each key does when sent or settled, and a log of every call in order. */
function deps(answers: { send?: Record<string, SendResult>; settle?: Record<string, SettleResult> }) {
  const log: string[] = [];
  const saved = new Map<string, QueuedArrival>();
  const removed: string[] = [];
  let keys = 0;
  const d: FlushDeps = {
    userId: 7,
    now: () => NOW,
    newKey: () => `nuova${++keys}`,
    send: async (q) => {
      log.push(`send ${q.chiave}`);
      return answers.send?.[q.chiave] ?? { ok: true };
    },
    settle: async (k) => {
      log.push(`settle ${k}`);
      return answers.settle?.[k] ?? { abandoned: true };
    },
    save: async (q) => void saved.set(q.id, q),
    remove: async (q) => void removed.push(q.id),
  };
  return { d, log, saved, removed };
}

const unknown = { unknown: { codice: "timeout", messaggio: "nessuna risposta" } } as const;

describe("flushQueue", () => {
  it("sends queued arrivals oldest first, each with its own key, and removes them", async () => {
    const b = item();
    const a = item({ id: "0-first" });
    const { d, log, removed } = deps({});
    const r = await flushQueue([b, a], d);
    expect(log).toEqual([`send ${a.chiave}`, `send ${b.chiave}`]);
    expect(removed).toEqual([a.id, b.id]);
    expect(r.sent).toHaveLength(2);
  });

  it("stops at the first arrival without an answer, keeping the order; that one becomes uncertain with the same key", async () => {
    const a = item();
    const b = item();
    const { d, log, saved } = deps({ send: { [a.chiave]: unknown } });
    const r = await flushQueue([a, b], d);
    expect(log).toEqual([`send ${a.chiave}`]);
    expect(saved.get(a.id)).toMatchObject({ stato: "incerto", chiave: a.chiave });
    expect(r.stopped?.codice).toBe("timeout");
  });

  it("an uncertain arrival is settled, never sent again as it was: it ran → removed, nothing sent", async () => {
    const a = item({ stato: "incerto" });
    const { d, log, removed } = deps({ settle: { [a.chiave]: { ran: true } } });
    const r = await flushQueue([a], d);
    expect(log).toEqual([`settle ${a.chiave}`]);
    expect(removed).toEqual([a.id]);
    expect(r.verified).toHaveLength(1);
  });

  it("an uncertain arrival that never ran goes again under a new key", async () => {
    const a = item({ stato: "incerto" });
    const { d, log } = deps({});
    const r = await flushQueue([a], d);
    expect(log).toEqual([`settle ${a.chiave}`, "send nuova1"]);
    expect(r.resent).toHaveLength(1);
    expect(r.sent).toHaveLength(0);
  });

  it("settling without an answer stops the pass; nothing is sent", async () => {
    const a = item({ stato: "incerto" });
    const b = item();
    const { d, log } = deps({ settle: { [a.chiave]: unknown } });
    await flushQueue([a, b], d);
    expect(log).toEqual([`settle ${a.chiave}`]);
  });

  it("a refusal is kept with its reason for the operator, and the pass goes on", async () => {
    const a = item();
    const b = item();
    const refusal = { codice: "quantita_eccessiva", messaggio: "oltre il residuo" };
    const { d, saved, log } = deps({ send: { [a.chiave]: { refused: refusal } } });
    await flushQueue([a, b], d);
    expect(saved.get(a.id)).toMatchObject({ stato: "rifiutato", errore: refusal });
    expect(log).toEqual([`send ${a.chiave}`, `send ${b.chiave}`]);
  });

  it("a key the service may have forgotten is never sent nor settled by itself: the arrival waits for a decision", async () => {
    const old = item({ chiave_il: NOW - KEY_TRUSTED_MS - 1, stato: "incerto" });
    const { d, log, saved } = deps({});
    const r = await flushQueue([old], d);
    expect(log).toEqual([]);
    expect(saved.get(old.id)?.stato).toBe("da_decidere");
    expect(r.toDecide).toHaveLength(1);
  });

  it("another user's arrivals, refused ones and those waiting for a decision are left alone", async () => {
    const { d, log } = deps({});
    await flushQueue([item({ utente: 8 }), item({ stato: "rifiutato" }), item({ stato: "da_decidere" })], d);
    expect(log).toEqual([]);
  });
});

describe("queuedPerRow", () => {
  it("adds up what waits per row, refusals aside", () => {
    const rows = queuedPerRow([
      item({ richiesta: { magazzino: 1, ddt: "D", riga: 5, quantita: 2 } }),
      item({ richiesta: { magazzino: 1, ddt: "D", riga: 5, quantita: 1.5 }, stato: "incerto" }),
      item({ richiesta: { magazzino: 1, ddt: "D", riga: 5, quantita: 9 }, stato: "rifiutato" }),
    ]);
    expect(rows.get(5)).toBe(3.5);
  });
});
