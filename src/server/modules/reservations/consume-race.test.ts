import { expect } from "vitest";
import { closePrisma, createPrisma } from "../../db/client";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedWarehouse, stockOf } from "../../testing/fixtures";
import { waitsWithoutHolding } from "../../testing/locks";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { verifyLedger } from "../ledger/verify.service";

/**
 * Unloads naming a reservation (docs/api.md section 14), with real concurrency on real PostgreSQL through two separate
 * pools (two instances): they never consume more than is held, never take what another reservation holds, and an
 * update of the reservation racing them ends in one of the two orders, never in between.
 */

let t: TestDb;
let second: TestDb;
let actor: Actor;
let m1: number;
const a: Record<string, number> = {};
let n = 0;

test.beforeAll(async ({ db, key, actor: act }) => {
  t = db;
  actor = act;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  for (const c of ["ULTIMI", "ALTRUI", "AGGIORNA"]) a[c] = (await seedArticle(t.prisma, c)).id;
  a.LOTTI = (await seedArticle(t.prisma, "LOTTI", { lotti: true })).id;
  await t.pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('C1', 'Rossi S.r.l.', current_date)");
  const r = await rest("POST", "/movimenti", {
    key,
    body: {
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "ULTIMI", quantita: 10 },
        { codice: "ALTRUI", quantita: 10 },
        { codice: "AGGIORNA", quantita: 100 },
        { codice: "LOTTI", quantita: 10, lotto: "L1" },
      ],
    },
  });
  expect(r.body.rifiutate).toBe(0);
  second = { ...t, prisma: createPrisma(t.url, 10) };
  return async () => closePrisma(second.prisma);
});

const upsert = (instance: TestDb, riferimento: string, codice: string, quantita: number) =>
  caller(instance, actor, "rest")
    .reservations.upsert({
      prenotazioni: [{ riferimento, magazzino: "M1", cliente: "C1", righe: [{ numero_riga: 1, codice, quantita }] }],
    })
    .then((r) => r.righe[0]!);

async function reserve(codice: string, quantita: number): Promise<number> {
  const r = await upsert(t, `GARA-${++n}`, codice, quantita);
  expect(r.esito).toBe("creata");
  return r.id!;
}

const unloadOne = (instance: TestDb, codice: string, quantita: number, prenotazione?: number, lotto?: string) =>
  caller(instance, actor, "rest")
    .movements.write({ natura: "scarico", magazzino: m1, righe: [{ codice, quantita, prenotazione, lotto }] })
    .then((r) => r.righe[0]!);

async function rowOf(id: number) {
  const { rows } = await t.pool.query(
    `SELECT p.stato, trim_scale(r.richiesta)::text AS richiesta, trim_scale(r.prenotata)::text AS prenotata, trim_scale(r.spedita)::text AS spedita
       FROM prenotazioni p JOIN righe_prenotazione r ON r.prenotazione_id = p.id WHERE p.id = $1`,
    [id],
  );
  return rows[0] as { stato: string; richiesta: string; prenotata: string; spedita: string };
}

test("unloads naming one reservation race for its last pieces: the hold is consumed once, the rest is the free stock", async () => {
  const mine = await reserve("ULTIMI", 3);
  const other = await reserve("ULTIMI", 7);
  // 10 in stock, all held. 6 unloads of 2 naming the first reservation: one consumes 2 of its 3; every other would
  // take its last 1 and 1 more that is not free.
  const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => unloadOne(i % 2 === 0 ? t : second, "ULTIMI", 2, mine)));
  expect(outcomes.filter((o) => o.esito === "scritta")).toHaveLength(1);
  expect(outcomes.filter((o) => o.esito === "rifiutata").map((o) => o.errore?.codice)).toEqual(Array(5).fill("quantita_prenotata"));
  expect(await rowOf(mine)).toMatchObject({ stato: "attiva", prenotata: "1", spedita: "2" });
  expect(await rowOf(other)).toMatchObject({ stato: "attiva", prenotata: "7", spedita: "0" });
  expect(await stockOf(t, a.ULTIMI!, m1)).toEqual({ ledger: 8, balance: 8 });

  // 1 piece comes in, free: of 6 more unloads of 2, one takes the last held piece and the free one; the reservation
  // is then evasa, and the others are refused as closed.
  expect((await unloadOne(t, "ULTIMI", 1, undefined)).esito).toBe("rifiutata");
  await caller(t, actor, "rest").movements.write({ natura: "carico", magazzino: m1, righe: [{ codice: "ULTIMI", quantita: 1 }] });
  const more = await Promise.all(Array.from({ length: 6 }, (_, i) => unloadOne(i % 2 === 0 ? t : second, "ULTIMI", 2, mine)));
  expect(more.filter((o) => o.esito === "scritta")).toHaveLength(1);
  expect(more.filter((o) => o.esito === "rifiutata").map((o) => o.errore?.codice)).toEqual(Array(5).fill("prenotazione_chiusa"));
  expect(await rowOf(mine)).toMatchObject({ stato: "evasa", prenotata: "0", spedita: "3" });
  expect(await rowOf(other)).toMatchObject({ stato: "attiva", prenotata: "7", spedita: "0" });
  expect(await stockOf(t, a.ULTIMI!, m1)).toEqual({ ledger: 7, balance: 7 });
  expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
});

test("unloads naming reservation A and naming none race: B's pieces are never taken", async () => {
  const first = await reserve("ALTRUI", 4);
  const other = await reserve("ALTRUI", 4);
  // 10 in stock, 8 held, 2 free: whatever the order, A's 4 (by the unloads naming it) and the 2 free (by those
  // naming none: one naming A takes 1, within A's hold while A holds) go, B's 4 stay.
  const outcomes = await Promise.all(
    Array.from({ length: 14 }, (_, i) => unloadOne(i % 2 === 0 ? t : second, "ALTRUI", 1, i % 3 === 2 ? undefined : first)),
  );
  expect(outcomes.filter((o) => o.esito === "scritta")).toHaveLength(6);
  // Refused: one naming none once nothing is free, or one naming A once A is evasa.
  expect(
    outcomes.every((o, i) => o.esito === "scritta" || o.errore?.codice === (i % 3 === 2 ? "quantita_prenotata" : "prenotazione_chiusa")),
  ).toBe(true);
  expect(await rowOf(first)).toMatchObject({ stato: "evasa", prenotata: "0", spedita: "4" });
  expect(await rowOf(other)).toMatchObject({ stato: "attiva", prenotata: "4", spedita: "0" });
  expect(await stockOf(t, a.ALTRUI!, m1)).toEqual({ ledger: 4, balance: 4 });
  expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
});

test("an unload naming a reservation races its raise and its cut: either order, never in between", async () => {
  // Each pair: a reservation of 5, an unload of 3 naming it on one instance and an update on the other.
  const pairs = await Promise.all(
    Array.from({ length: 6 }, async (_, i) => {
      const riferimento = `GARA-AGG-${i}`;
      const created = await upsert(t, riferimento, "AGGIORNA", 5);
      const quantita = [8, 4, 2][i % 3]!;
      const [unloaded, updated] = await Promise.all([
        unloadOne(i % 2 === 0 ? t : second, "AGGIORNA", 3, created.id!),
        upsert(i % 2 === 0 ? second : t, riferimento, "AGGIORNA", quantita),
      ]);
      return { id: created.id!, quantita, unloaded, updated };
    }),
  );
  for (const p of pairs) {
    expect(p.unloaded.esito).toBe("scritta");
    const row = await rowOf(p.id);
    if (p.quantita === 8) {
      // Unload first: 2 held + 3 shipped, raised to hold 8 − 3. Raise first: 8 held, 3 of them shipped. The same.
      expect(p.updated.esito).toBe("aggiornata");
      expect(row).toMatchObject({ stato: "attiva", richiesta: "8", prenotata: "5", spedita: "3" });
    } else if (p.quantita === 4) {
      expect(p.updated.esito).toBe("aggiornata");
      expect(row).toMatchObject({ stato: "attiva", richiesta: "4", prenotata: "1", spedita: "3" });
    } else if (p.updated.esito === "rifiutata") {
      // Unload first: 3 shipped, a cut to 2 would go below them.
      expect(p.updated.errore?.codice).toBe("quantita_sotto_prelevata");
      expect(row).toMatchObject({ stato: "attiva", richiesta: "5", prenotata: "2", spedita: "3" });
    } else {
      // Cut first: 2 held, the unload consumes them and takes 1 from the free stock.
      expect(row).toMatchObject({ stato: "evasa", richiesta: "2", prenotata: "0", spedita: "2" });
    }
  }
  expect(await stockOf(t, a.AGGIORNA!, m1)).toEqual({ ledger: 100 - 18, balance: 100 - 18 });
  expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
});

test("an unload naming a reservation waits on the reservation's row lock, holding no lot, then reads what committed", async () => {
  const id = await reserve("LOTTI", 2);
  const lot = (await t.pool.query("SELECT id FROM lotti WHERE articolo_id = $1 AND codice = 'L1'", [a.LOTTI])).rows[0].id as number;
  const r = await waitsWithoutHolding(t.pool, {
    hold: { sql: "SELECT id FROM prenotazioni WHERE id = $1", params: [id] },
    probe: { sql: "SELECT id FROM lotti WHERE id = $1", params: [lot] },
    table: "prenotazioni",
    send: () => unloadOne(t, "LOTTI", 2, id, "L1"),
  });
  expect(r.waited).toBe(true);
  expect(r.free).toBe(true);
  expect(r.result).toMatchObject({ esito: "scritta" });
  expect(await rowOf(id)).toMatchObject({ stato: "evasa", prenotata: "0", spedita: "2" });
});
