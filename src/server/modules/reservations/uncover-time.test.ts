import { describe, expect } from "vitest";
import { closePrisma, createPrisma } from "../../db/client";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { untilWaiting, waitsWithoutHolding } from "../../testing/locks";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { verifyLedger } from "../ledger/verify.service";
import { sweepExpiredLots, sweepExpiredReservations } from "./expiry.service";
import { uncoverHelpers } from "./uncover-testing";

/**
 * Changes that write no stock and still change what covers the holds (docs/api.md section 14): a lot passing its
 * expiry (the lots' sweep), a reservation expired by the sweep and one moved to another warehouse by its upsert,
 * whose freed stock covers the others' `scoperta`, oldest first. Time is driven through the database, never waited
 * for: a lot's `scadenza` and the day the sweep last looked are moved by SQL to yesterday (as if a day had passed),
 * or the sweep is handed an instant (its hook); `scade_il` is moved into the past by SQL.
 */

let t: TestDb;
let second: TestDb;
let key: string;
let actor: Actor;
let m1: number;
let h: ReturnType<typeof uncoverHelpers>;
const TZ = "Europe/Rome";

test.beforeAll(async ({ db, key: k, actor: a }) => {
  t = db;
  key = k;
  actor = a;
  h = uncoverHelpers(t, key);
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  const m2 = (await seedWarehouse(t.prisma, "M2")).id;
  for (const c of ["EX", "MV", "RC", "RD", "MW1", "MW2", "MW3"]) await seedArticle(t.prisma, c);
  for (const c of ["LT", "LR"]) await seedArticle(t.prisma, c, { lotti: true });
  await t.pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('C1', 'Rossi S.r.l.', current_date)");
  const load = await post({
    natura: "carico",
    magazzino: m1,
    righe: [
      { codice: "EX", quantita: 10 },
      { codice: "MV", quantita: 10 },
      { codice: "RC", quantita: 10 },
      { codice: "RD", quantita: 10 },
      { codice: "LT", quantita: 4, lotto: "L1", scadenza: "2099-01-01" },
      { codice: "LT", quantita: 6, lotto: "L2", scadenza: "2099-12-31" },
      { codice: "LR", quantita: 4, lotto: "R1", scadenza: "2099-01-01" },
      { codice: "LR", quantita: 6, lotto: "R2", scadenza: "2099-12-31" },
    ],
  });
  expect(load.body.rifiutate).toBe(0);
  const mw = ["MW1", "MW2", "MW3"].map((codice) => ({ codice, quantita: 10 }));
  expect((await post({ natura: "carico", magazzino: m1, righe: mw })).body.rifiutate).toBe(0);
  expect((await post({ natura: "carico", magazzino: m2, righe: [{ codice: "MV", quantita: 5 }, ...mw] })).body.rifiutate).toBe(0);
  second = { ...t, prisma: createPrisma(t.url, 4) };
  return async () => closePrisma(second.prisma);
});

const post = (body: unknown) => rest("POST", "/movimenti", { key, body });
const align = (body: unknown) => rest("POST", "/giacenze/allinea", { key, body });
const today = `(now() AT TIME ZONE '${TZ}')::date`;
/** A day passes for a lot: it expired yesterday, and the lots' sweep last looked yesterday, before it did. */
async function lotExpiredYesterday(articolo: string, lotto: string) {
  await t.pool.query(
    `UPDATE lotti SET scadenza = ${today} - 1 WHERE codice = $2 AND articolo_id = (SELECT id FROM articoli WHERE codice = $1)`,
    [articolo, lotto],
  );
  await t.pool.query(`UPDATE scadenze_lotti_controllo SET giorno = ${today} - 1`);
}
const checkDay = async () => (await t.pool.query("SELECT giorno::text AS g FROM scadenze_lotti_controllo")).rows[0].g as string | null;
const todayText = async () => (await t.pool.query(`SELECT ${today}::text AS d`)).rows[0].d as string;
/** The events after `after`: their types and transactions. */
const eventsAfter = async (after: number) =>
  (await t.pool.query("SELECT tipo, (dati->>'id')::int AS id, xmin::text AS tx FROM eventi WHERE id > $1 ORDER BY id", [after])).rows as {
    tipo: string;
    id: number;
    tx: string;
  }[];

describe("a lot passing its expiry", () => {
  test("the lots' sweep uncovers by exactly what the lot held, newest first, once; stock that comes back covers the oldest first", async () => {
    // Held 9 of 10 without lot: L1's 4 expiring leaves 6 to cover them.
    const p1 = await h.reserve("M1", "LT", 4);
    const p2 = await h.reserve("M1", "LT", 3);
    const p3 = await h.reserve("M1", "LT", 2);
    // Looked today already: an idle sweep, nothing changes.
    await t.pool.query(`UPDATE scadenze_lotti_controllo SET giorno = ${today}`);
    expect(await sweepExpiredLots(t.prisma, { timeZone: TZ })).toEqual([]);
    expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "0", "0"]);

    await lotExpiredYesterday("LT", "L1");
    const before = await h.lastEvent();
    expect((await sweepExpiredLots(t.prisma, { timeZone: TZ })).sort((a, b) => a - b)).toEqual([p2.id, p3.id]);
    expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "1", "2"]);
    const recorded = await eventsAfter(before);
    // One transaction (the sweep's): each changed reservation's prenotazione.scoperta, then its modificata at commit.
    expect(new Set(recorded.map((e) => e.tx)).size).toBe(1);
    expect(recorded.filter((e) => e.tipo === "prenotazione.scoperta").map((e) => e.id)).toEqual([p2.id, p3.id]);
    expect(
      recorded
        .filter((e) => e.tipo === "prenotazione.modificata")
        .map((e) => e.id)
        .sort(),
    ).toEqual([p2.id, p3.id].sort());
    expect(await checkDay()).toBe(await todayText());
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);

    // Swept again today, or tomorrow (the hook's instant): nothing more expired, nothing written.
    const after = await h.lastEvent();
    expect(await sweepExpiredLots(t.prisma, { timeZone: TZ })).toEqual([]);
    expect(await sweepExpiredLots(second.prisma, { timeZone: TZ, at: new Date(Date.now() + 86_400_000).toISOString() })).toEqual([]);
    expect(await h.lastEvent()).toBe(after);

    // Two pieces of a new lot: the deficit is 1, on the newest; the one before it is covered first.
    expect((await post({ natura: "carico", magazzino: m1, righe: [{ codice: "LT", quantita: 2, lotto: "L3" }] })).body.rifiutate).toBe(0);
    expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "0", "1"]);
  });

  test("two instances sweeping at once: one does the day's lots, the other skips it without waiting; one event each", async () => {
    const p1 = await h.reserve("M1", "LR", 6);
    const p2 = await h.reserve("M1", "LR", 3);
    await lotExpiredYesterday("LR", "R1");
    const before = await h.lastEvent();
    // A writer of that stock holds its balance: the first instance's sweep has the day's row and waits there.
    const gate = await t.pool.connect();
    try {
      await gate.query("BEGIN");
      await gate.query(
        "SELECT 1 FROM giacenze WHERE articolo_id = (SELECT id FROM articoli WHERE codice = 'LR') AND magazzino_id = $1 FOR UPDATE",
        [m1],
      );
      const first = sweepExpiredLots(t.prisma, { timeZone: TZ });
      await untilWaiting(t.pool, "giacenze");
      expect(await sweepExpiredLots(second.prisma, { timeZone: TZ })).toEqual([]);
      await gate.query("COMMIT");
      expect(await first).toEqual([p2.id]);
    } finally {
      await gate.query("ROLLBACK").catch(() => {});
      gate.release();
    }
    // 6 left for 9 held: 3 on the newest, all it holds.
    expect(await h.uncovered(p1.id, p2.id)).toEqual(["0", "3"]);
    expect((await eventsAfter(before)).filter((e) => e.tipo === "prenotazione.scoperta").map((e) => e.id)).toEqual([p2.id]);
    expect(await sweepExpiredLots(second.prisma, { timeZone: TZ })).toEqual([]);
  });
});

describe("stock a release frees covers the others, oldest first", () => {
  test("the expiry sweep: what the expired reservation held covers the older uncovered reservation first", async () => {
    const p1 = await h.reserve("M1", "EX", 2);
    const p2 = await h.reserve("M1", "EX", 4);
    const p3 = await h.reserve("M1", "EX", 4);
    await t.pool.query("UPDATE prenotazioni SET scade_il = '2099-01-01' WHERE id = $1", [p1.id]);
    // Held 10, 4 left: 6 uncovered, 4 on the newest, 2 on the one before it.
    expect((await align({ magazzino: m1, righe: [{ codice: "EX", contato: 4 }] })).body.scritte).toBe(1);
    expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "2", "4"]);
    await t.pool.query("UPDATE prenotazioni SET scade_il = now() - interval '1 second' WHERE id = $1", [p1.id]);
    const before = await h.lastEvent();
    // A writer of that stock holds its balance: the sweep waits on it holding no reservation row (no writer of the
    // stock, whose uncovering locks the held rows, can wait for a row the sweep holds).
    const { waited, free, result } = await waitsWithoutHolding(t.pool, {
      hold: {
        sql: "SELECT 1 FROM giacenze WHERE articolo_id = (SELECT id FROM articoli WHERE codice = 'EX') AND magazzino_id = $1",
        params: [m1],
      },
      probe: { sql: "SELECT id FROM righe_prenotazione WHERE prenotazione_id = ANY($1::int[])", params: [[p1.id, p2.id, p3.id]] },
      table: "giacenze",
      send: () => sweepExpiredReservations(second.prisma, { timeZone: TZ }),
    });
    expect(waited).toBe(true);
    expect(free).toBe(true);
    expect(result).toEqual([p1.id]);
    // Held 8, 4 left: the older p2 is covered first, p3 stays uncovered.
    expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "0", "4"]);
    const recorded = await eventsAfter(before);
    expect(new Set(recorded.map((e) => e.tx)).size).toBe(1);
    expect(recorded.filter((e) => e.tipo === "prenotazione.scoperta").map((e) => e.id)).toEqual([p2.id]);
    expect(
      recorded
        .filter((e) => e.tipo === "prenotazione.modificata")
        .map((e) => e.id)
        .sort(),
    ).toEqual([p1.id, p2.id].sort());
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("an upsert moving a reservation to another warehouse: what it leaves covers the older uncovered reservation first", async () => {
    const p1 = await h.reserve("M1", "MV", 2);
    const p2 = await h.reserve("M1", "MV", 4);
    const p3 = await h.reserve("M1", "MV", 4);
    expect((await align({ magazzino: m1, righe: [{ codice: "MV", contato: 4 }] })).body.scritte).toBe(1);
    expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "2", "4"]);
    const before = await h.lastEvent();
    const moved = await rest("POST", "/prenotazioni", {
      key,
      body: {
        prenotazioni: [
          { riferimento: p1.riferimento, magazzino: "M2", cliente: "C1", righe: [{ numero_riga: 1, codice: "MV", quantita: 2 }] },
        ],
      },
    });
    expect(moved.body.righe[0]).toMatchObject({ esito: "aggiornata", righe: [{ prenotata: "2" }] });
    expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "0", "4"]);
    const recorded = await eventsAfter(before);
    expect(new Set(recorded.map((e) => e.tx)).size).toBe(1);
    expect(recorded.filter((e) => e.tipo === "prenotazione.scoperta").map((e) => e.id)).toEqual([p2.id]);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("a count racing a move of a reservation out of its warehouse, on two instances: the older reservation covered first", async () => {
    // Each round a fresh article: whichever commits first, the last to commit recomputes the pair under its balance.
    for (const [i, codice] of ["MW1", "MW2", "MW3"].entries()) {
      const p1 = await h.reserve("M1", codice, 2);
      const p2 = await h.reserve("M1", codice, 4);
      const p3 = await h.reserve("M1", codice, 4);
      const [moved] = await Promise.all([
        caller(i % 2 === 0 ? second : t, actor, "rest").reservations.upsert({
          prenotazioni: [{ riferimento: p1.riferimento, magazzino: "M2", cliente: "C1", righe: [{ numero_riga: 1, codice, quantita: 2 }] }],
        }),
        caller(i % 2 === 0 ? t : second, actor, "rest").alignment.align({ magazzino: m1, righe: [{ codice, contato: 4 }] }),
      ]);
      expect(moved.righe[0]).toMatchObject({ esito: "aggiornata", id: p1.id });
      // Held 8 in M1, 4 left: the newest uncovered by 4, the older one covered.
      expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "0", "4"]);
      expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
    }
  });

  test("an upsert leaving a row out: what it held covers the older uncovered reservation first", async () => {
    const p1 = await rest("POST", "/prenotazioni", {
      key,
      body: {
        prenotazioni: [
          {
            riferimento: "DUE-RIGHE",
            magazzino: "M1",
            cliente: "C1",
            righe: [
              { numero_riga: 1, codice: "RD", quantita: 1 },
              { numero_riga: 2, codice: "RC", quantita: 2 },
            ],
          },
        ],
      },
    });
    expect(p1.body.righe[0]).toMatchObject({ esito: "creata" });
    const p2 = await h.reserve("M1", "RC", 4);
    const p3 = await h.reserve("M1", "RC", 4);
    expect((await align({ magazzino: m1, righe: [{ codice: "RC", contato: 4 }] })).body.scritte).toBe(1);
    expect(await h.uncovered(p2.id, p3.id)).toEqual(["2", "4"]);
    const cut = await rest("POST", "/prenotazioni", {
      key,
      body: {
        prenotazioni: [
          { riferimento: "DUE-RIGHE", magazzino: "M1", cliente: "C1", righe: [{ numero_riga: 1, codice: "RD", quantita: 1 }] },
        ],
      },
    });
    expect(cut.body.righe[0]).toMatchObject({ esito: "aggiornata" });
    expect(await h.uncovered(p2.id, p3.id)).toEqual(["0", "4"]);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });
});
