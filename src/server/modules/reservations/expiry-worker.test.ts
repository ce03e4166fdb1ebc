import { expect } from "vitest";
import { closePrisma, createPrisma, type PrismaClient } from "../../db/client";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { startExpiryWorker } from "./expiry-worker";
import { sweepExpiredReservations } from "./expiry.service";

/**
 * The expiry worker main.ts starts: it sweeps at start and at every tick, logs nothing when nothing expired,
 * logs an outage once and goes on trying, and stops cleanly. Ticks are counted, never waited for by the clock.
 */

let t: TestDb;
let key: string;

test.beforeAll(async ({ db, key: k }) => {
  t = db;
  key = k;
  const m1 = (await seedWarehouse(t.prisma, "M1")).id;
  await seedArticle(t.prisma, "A");
  await t.pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('C1', 'Rossi S.r.l.', current_date)");
  const r = await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: m1, righe: [{ codice: "A", quantita: 5 }] } });
  expect(r.body.rifiutate).toBe(0);
});

/** A sweep that counts its calls and tells when the n-th has ended, with what each call does. */
function counted(each: (call: number, db: PrismaClient) => Promise<number[]>) {
  let calls = 0;
  const waiting: { n: number; resolve: () => void }[] = [];
  const sweep = async (db: PrismaClient) => {
    const call = ++calls;
    try {
      return await each(call, db);
    } finally {
      for (const w of waiting.filter((x) => x.n <= call)) w.resolve();
    }
  };
  const after = (n: number) => new Promise<void>((resolve) => (calls >= n ? resolve() : waiting.push({ n, resolve })));
  return { sweep, after, calls: () => calls };
}

test("sweeps at start: what expired is logged once, an idle sweep logs nothing", async () => {
  const r = await rest("POST", "/prenotazioni", {
    key,
    body: { prenotazioni: [{ riferimento: "W-1", magazzino: "M1", cliente: "C1", righe: [{ numero_riga: 1, codice: "A", quantita: 2 }] }] },
  });
  const id = r.body.righe[0].id as number;
  await t.pool.query("UPDATE prenotazioni SET scade_il = now() - interval '1 second' WHERE id = $1", [id]);
  const lines: string[] = [];
  const c = counted((_n, db) => sweepExpiredReservations(db));
  const worker = startExpiryWorker(t.prisma, { everyMs: 1, sweep: c.sweep }, (m) => lines.push(m));
  await c.after(5);
  await worker.stop();
  expect(lines).toEqual(["Prenotazioni scadute: 1 (rilasciate le quantità tenute)."]);
  expect((await t.pool.query("SELECT stato FROM prenotazioni WHERE id = $1", [id])).rows[0].stato).toBe("scaduta");
  // Stopped: no sweep after it.
  const calls = c.calls();
  await new Promise((r) => setImmediate(r));
  expect(c.calls()).toBe(calls);
});

test("the database unreachable: logged once, tried again at every tick, then the recovery; the process goes on", async () => {
  // Nothing listens on port 1: every sweep fails at once with a refused connection.
  const down = createPrisma("postgresql://banchina@127.0.0.1:1/banchina", 1);
  const lines: string[] = [];
  // Four failed sweeps, one with another text (as an outage gives: terminated, then refused), then the database back.
  const c = counted((n, db) =>
    n === 2
      ? Promise.reject(new Error("terminating connection due to administrator command"))
      : sweepExpiredReservations(n <= 4 ? down : db),
  );
  const worker = startExpiryWorker(t.prisma, { everyMs: 1, sweep: c.sweep }, (m) => lines.push(m));
  await c.after(6);
  await worker.stop();
  await closePrisma(down);
  expect(lines).toHaveLength(2);
  expect(lines[0]).toMatch(/^Scadenza delle prenotazioni non riuscita, riprovo al prossimo controllo \(.+\)\.$/);
  expect(lines[1]).toBe("Scadenza delle prenotazioni: il controllo è ripreso.");
});

test("stop waits for the sweep in flight, and starts no other", async () => {
  let started!: () => void;
  const inFlight = new Promise<void>((resolve) => {
    started = resolve;
  });
  let finish!: (expired: number[]) => void;
  const c = counted(
    () =>
      new Promise<number[]>((done) => {
        finish = done;
        started();
      }),
  );
  const worker = startExpiryWorker(t.prisma, { everyMs: 1, sweep: c.sweep }, () => {});
  await inFlight;
  let stopped = false;
  const stopping = worker.stop().then(() => {
    stopped = true;
  });
  await new Promise((r) => setImmediate(r));
  expect(stopped).toBe(false);
  finish([]);
  await stopping;
  expect(c.calls()).toBe(1);
});
