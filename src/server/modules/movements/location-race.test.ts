import { LOCATION_GATE } from "../../db/advisory-locks";
import { expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedWarehouse, stockOf } from "../../testing/fixtures";
import { heldAt, seedLocations, switchLocations } from "../../testing/locations";
import { untilWaiting, waitsWithoutHolding } from "../../testing/locks";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { verifyLedger } from "../ledger/verify.service";

/**
 * Stock by location under real concurrency (separate connections, as lot-race.test.ts): a location never
 * gives more than it holds; the lock order's new places (gates first, location stock between lots and
 * balances) hold; the switch is serialised against the warehouse's writers.
 */

let t: TestDb;
let key: string;
let actor: Actor;
let P: number;
let F: number;
let w: number;
const u: Record<string, number> = {};

test.beforeAll(async ({ db, key: k, actor: a }) => {
  t = db;
  key = k;
  actor = a;
  P = (await seedArticle(t.prisma, "BULLONE")).id;
  F = (await seedArticle(t.prisma, "FARINA", { lotti: true })).id;
  w = (await seedWarehouse(t.prisma, "W")).id;
  Object.assign(u, await seedLocations(t, w, [{ codice: "R", tipo: "ricevimento" }, { codice: "A" }, { codice: "B" }]));
  await switchLocations(t, actor, w, true, u.R);
});

const post = (body: unknown) => rest("POST", "/movimenti", { key, body });
const load = (codice: string, quantita: number, ubicazione: string, lotto?: string) =>
  post({ natura: "carico", magazzino: w, righe: [{ codice, quantita, ubicazione, ...(lotto ? { lotto } : {}) }] });
const move = (codice: string, quantita: number, from: string, to: string, lotto?: string) =>
  post({
    natura: "trasferimento",
    magazzino_origine: w,
    magazzino: w,
    righe: [{ codice, quantita, ubicazione_origine: from, ubicazione: to, ...(lotto ? { lotto } : {}) }],
  });

test("20 parallel unloads of 1 from a location holding 4: exactly 4 written, 16 refused, the location ends at 0", async () => {
  expect((await load("BULLONE", 4, "A")).body.scritte).toBe(1);
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: 20 }, () =>
      post({ natura: "scarico", magazzino: w, righe: [{ codice: "BULLONE", quantita: 1, ubicazione: "A" }] }),
    ),
  );
  // Reported, not asserted (the machine is shared): the race's timing is worth seeing in the log.
  console.log(`corsa su un'ubicazione: 20 scarichi concorrenti in ${Math.round(performance.now() - started)} ms`);
  const outcomes = results.map((r) => r.body.righe[0]);
  expect(outcomes.filter((o) => o.esito === "scritta")).toHaveLength(4);
  expect(outcomes.filter((o) => o.errore?.codice === "quantita_insufficiente_ubicazione")).toHaveLength(16);
  expect(await heldAt(t, P, u.A!)).toBe(0);
  expect(await stockOf(t, P, w)).toEqual({ ledger: 0, balance: 0 });
  const { rows } = await t.pool.query("SELECT min(quantita)::float AS m FROM giacenze_ubicazioni");
  expect(rows[0].m).toBeGreaterThanOrEqual(0);
});

test("moves in both directions between two locations, racing: none fails, none deadlocks, quantities add up", async () => {
  await load("FARINA", 50, "A", "AR");
  await load("FARINA", 50, "B", "AR");
  const results = await Promise.all(
    Array.from({ length: 30 }, (_, i) => (i % 2 ? move("FARINA", 1, "A", "B", "AR") : move("FARINA", 1, "B", "A", "AR"))),
  );
  expect(results.map((r) => `${r.status} ${r.body.righe?.[0]?.esito}`)).toEqual(Array(30).fill("200 scritta"));
  expect([await heldAt(t, F, u.A!, "AR"), await heldAt(t, F, u.B!, "AR")]).toEqual([50, 50]);
  expect(await verifyLedger(t.prisma)).toMatchObject({ ok: true, differenze: [] });
});

test("the database itself refuses a location holding less than zero, whatever the code does", async () => {
  await expect(t.pool.query("UPDATE giacenze_ubicazioni SET quantita = -1")).rejects.toThrow(/giacenze_ubicazioni_quantita_check/);
});

// ---------------------------------------------------------------- the lock order (deterministic)

const locationRow = (articolo: number, ubicazione: number, lotto: string | null = null) => ({
  sql: `SELECT s.id FROM giacenze_ubicazioni s
         WHERE s.articolo_id = $1 AND s.ubicazione_id = $2
           AND s.lotto_id IS NOT DISTINCT FROM (SELECT l.id FROM lotti l WHERE l.articolo_id = $1 AND l.magazzino_id = $4 AND l.codice = $3)`,
  params: [articolo, ubicazione, lotto, w],
});
const lotRow = (codice: string) => ({
  sql: "SELECT id FROM lotti WHERE articolo_id = $1 AND magazzino_id = $2 AND codice = $3",
  params: [F, w, codice],
});
const balanceRow = (articolo: number) => ({
  sql: "SELECT articolo_id FROM giacenze WHERE articolo_id = $1 AND magazzino_id = $2",
  params: [articolo, w],
});

async function expectOrder(opts: Parameters<typeof waitsWithoutHolding>[1]) {
  const { waited, free, result } = await waitsWithoutHolding(t.pool, opts);
  expect(waited).toBe(true);
  expect(free).toBe(true);
  return result as { status: number; body: any };
}

test("lots before location stock: a move waiting on its lot holds no location stock", async () => {
  await load("FARINA", 5, "A", "LO");
  const r = await expectOrder({
    hold: lotRow("LO"),
    probe: locationRow(F, u.A!, "LO"),
    table: "lotti",
    send: () => move("FARINA", 1, "A", "B", "LO"),
  });
  expect(r.body.righe[0].esito).toBe("scritta");
});

test("location stock before balances: an unload waiting on its location holds no balance", async () => {
  await load("BULLONE", 3, "B");
  const r = await expectOrder({
    hold: locationRow(P, u.B!),
    probe: balanceRow(P),
    table: "giacenze_ubicazioni",
    send: () => post({ natura: "scarico", magazzino: w, righe: [{ codice: "BULLONE", quantita: 1, ubicazione: "B" }] }),
  });
  expect(r.body.righe[0].esito).toBe("scritta");
});

test("a move takes the lower location first, whichever way it goes", async () => {
  await load("BULLONE", 5, "A");
  await load("BULLONE", 5, "B");
  expect(u.A!).toBeLessThan(u.B!);
  // Out of B into A: waits on A (its destination) without holding B.
  const intoLower = await expectOrder({
    hold: locationRow(P, u.A!),
    probe: locationRow(P, u.B!),
    table: "giacenze_ubicazioni",
    send: () => move("BULLONE", 1, "B", "A"),
  });
  // Out of A into B: waits on A (its source) without holding B.
  const outOfLower = await expectOrder({
    hold: locationRow(P, u.A!),
    probe: locationRow(P, u.B!),
    table: "giacenze_ubicazioni",
    send: () => move("BULLONE", 1, "A", "B"),
  });
  expect([intoLower.body.scritte, outOfLower.body.scritte]).toEqual([1, 1]);
});

test("the warehouse gate first: a movement waiting on it (the switch holds it) holds no lot nor location stock", async () => {
  await load("FARINA", 5, "A", "GW");
  const r = await expectOrder({
    hold: { sql: "SELECT id FROM magazzini WHERE id = $1", params: [w] },
    probe: lotRow("GW"),
    table: "FOR SHARE",
    send: () => post({ natura: "scarico", magazzino: w, righe: [{ codice: "FARINA", lotto: "GW", quantita: 1, ubicazione: "A" }] }),
  });
  expect(r.body.scritte).toBe(1);
});

test("the location gate before any row: a load waiting on a complete count of its location holds no lot", async () => {
  await load("FARINA", 5, "B", "GL");
  const r = await expectOrder({
    hold: { sql: "SELECT pg_advisory_xact_lock($1::int, $2::int)", params: [LOCATION_GATE, u.B], locking: false },
    probe: lotRow("GL"),
    table: "pg_advisory_xact_lock_shared",
    send: () => load("FARINA", 1, "B", "GL"),
  });
  expect(r.body.scritte).toBe(1);
});

// ---------------------------------------------------------------- the switch against the warehouse's writers

/** A warehouse without locations yet, with stock, its receiving location set; a gate holding one balance row. */
async function switchScene(codice: string) {
  const m = (await seedWarehouse(t.prisma, codice)).id;
  await post({ natura: "carico", magazzino: m, righe: [{ codice: "BULLONE", quantita: 5 }] });
  const { R } = await seedLocations(t, m, [{ codice: "R", tipo: "ricevimento" }]);
  await t.pool.query("UPDATE magazzini SET ubicazione_ricevimento_id = $1 WHERE id = $2", [R, m]);
  const gate = await t.pool.connect();
  await gate.query("BEGIN");
  await gate.query("SELECT 1 FROM giacenze WHERE articolo_id = $1 AND magazzino_id = $2 FOR UPDATE", [P, m]);
  return { m, R: R!, gate };
}

test("a movement in flight when the switch starts commits first, and the switch moves its goods too", async () => {
  const { m, R, gate } = await switchScene("SW-PRIMA");
  try {
    const movement = post({ natura: "carico", magazzino: m, righe: [{ codice: "BULLONE", quantita: 3 }] });
    await untilWaiting(t.pool, "saldi"); // the movement's append, on the balance the gate holds
    const switched = switchLocations(t, actor, m, true);
    await untilWaiting(t.pool, "FOR NO KEY UPDATE"); // the switch, on the warehouse gate the movement holds
    await gate.query("COMMIT");
    expect((await movement).body.scritte).toBe(1);
    expect((await switched).operazione).not.toBeNull();
  } finally {
    await gate.query("ROLLBACK").catch(() => {});
    gate.release();
  }
  expect(await heldAt(t, P, R)).toBe(8);
  expect(await stockOf(t, P, m)).toEqual({ ledger: 8, balance: 8 });
  expect(await verifyLedger(t.prisma)).toMatchObject({ ok: true, differenze: [] });
});

test("a movement that arrives while the switch runs waits, then is checked by the new rules", async () => {
  const { m, R, gate } = await switchScene("SW-DOPO");
  let refused: { body: any };
  try {
    const switched = switchLocations(t, actor, m, true);
    await untilWaiting(t.pool, "saldi"); // the switch's append, on the balance the gate holds
    const movement = post({ natura: "carico", magazzino: m, righe: [{ codice: "BULLONE", quantita: 3 }] });
    await untilWaiting(t.pool, "FOR SHARE"); // the movement, on the warehouse gate the switch holds
    await gate.query("COMMIT");
    expect((await switched).operazione).not.toBeNull();
    refused = await movement;
  } finally {
    await gate.query("ROLLBACK").catch(() => {});
    gate.release();
  }
  expect(refused.body.righe[0].errore.codice).toBe("ubicazione_obbligatoria");
  expect(await heldAt(t, P, R)).toBe(5);
  expect(await stockOf(t, P, m)).toEqual({ ledger: 5, balance: 5 });
  expect(await verifyLedger(t.prisma)).toMatchObject({ ok: true, differenze: [] });
});
