import { expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedWarehouse, stockOf } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { waitsWithoutHolding } from "../../testing/locks";

/** Unloads racing on one lot, with real concurrency on PostgreSQL: the lot never goes negative. */

let t: TestDb;
let key: string;
let articolo: number;
let m1: number;
let m2: number;

test.beforeAll(async ({ db, apiKey }) => {
  t = db;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  m2 = (await seedWarehouse(t.prisma, "M2")).id;
  articolo = (await seedArticle(t.prisma, "FARINA", { lotti: true })).id;
  key = apiKey.chiave;
});

async function residual(magazzino: number, lotto: string): Promise<number> {
  const { rows } = await t.pool.query("SELECT residua::text AS r FROM lotti WHERE articolo_id = $1 AND magazzino_id = $2 AND codice = $3", [
    articolo,
    magazzino,
    lotto,
  ]);
  return Number(rows[0]?.r ?? 0);
}

test("30 parallel unloads of 1 on a lot of 10: exactly 10 accepted, the lot ends at 0", async () => {
  await rest("POST", "/movimenti", {
    key,
    body: { natura: "carico", magazzino: m1, righe: [{ codice: "FARINA", quantita: 10, lotto: "L1" }] },
  });
  const results = await Promise.all(
    Array.from({ length: 30 }, () =>
      rest("POST", "/movimenti", {
        key,
        body: { natura: "scarico", magazzino: m1, righe: [{ codice: "FARINA", quantita: 1, lotto: "L1" }] },
      }),
    ),
  );
  const outcomes = results.map((r) => r.body.righe[0]);
  expect(outcomes.filter((o) => o.esito === "scritta")).toHaveLength(10);
  expect(outcomes.filter((o) => o.esito === "rifiutata").every((o) => o.errore.codice === "lotto_insufficiente")).toBe(true);
  expect(await residual(m1, "L1")).toBe(0);
  expect(await stockOf(t, articolo, m1)).toEqual({ ledger: 0, balance: 0 });
});

test("random unloads and transfers racing: accepted quantities equal the lot's decrease, never below zero", async () => {
  await rest("POST", "/movimenti", {
    key,
    body: { natura: "carico", magazzino: m1, righe: [{ codice: "FARINA", quantita: 50, lotto: "L2" }] },
  });
  const quantities = Array.from({ length: 40 }, (_, i) => ((i * 7) % 5) + 0.5);
  const results = await Promise.all(
    quantities.map((q, i) =>
      rest("POST", "/movimenti", {
        key,
        body:
          i % 3 === 0
            ? { natura: "trasferimento", magazzino: m2, magazzino_origine: m1, righe: [{ codice: "FARINA", quantita: q, lotto: "L2" }] }
            : { natura: "scarico", magazzino: m1, righe: [{ codice: "FARINA", quantita: q, lotto: "L2" }] },
      }),
    ),
  );
  const accepted = results.map((r, i) => (r.body.righe[0].esito === "scritta" ? quantities[i]! : 0)).reduce((a, b) => a + b, 0);
  const transferred = results
    .map((r, i) => (i % 3 === 0 && r.body.righe[0].esito === "scritta" ? quantities[i]! : 0))
    .reduce((a, b) => a + b, 0);
  expect(accepted).toBeGreaterThan(40);
  expect(accepted).toBeLessThanOrEqual(50);
  expect(await residual(m1, "L2")).toBeCloseTo(50 - accepted, 6);
  expect(await residual(m2, "L2")).toBeCloseTo(transferred, 6);
  const s1 = await stockOf(t, articolo, m1);
  expect(s1.balance).toBe(s1.ledger);
  const s2 = await stockOf(t, articolo, m2);
  expect(s2.balance).toBe(s2.ledger);
  const { rows } = await t.pool.query("SELECT min(residua)::float AS m FROM lotti");
  expect(rows[0].m).toBeGreaterThanOrEqual(0);
});

test("the database itself refuses a negative lot, whatever the code does", async () => {
  await expect(t.pool.query("UPDATE lotti SET residua = -1 WHERE codice = 'L1'")).rejects.toThrow(/lotti_residua_check/);
});

/**
 * One lock order for lots across writers (article, then lot code), whatever the rows' order and the
 * lots' ids: a request waiting for one lot must not already hold another that sorts after it. Lot
 * "B" is created first (lower id) and "A" second; a gate holds "A"; a request naming B then A must
 * wait on A while B stays free. Taken in row order (or by id) it would hold B: two such requests in
 * opposite orders deadlock.
 */
type LotRef = { magazzino: number; codice: string };
const lot = (l: LotRef) => ({
  sql: "SELECT id FROM lotti WHERE articolo_id = $1 AND magazzino_id = $2 AND codice = $3",
  params: [articolo, l.magazzino, l.codice],
});
async function waitsOnLotWithoutHolding(send: () => Promise<{ status: number; body: any }>, held: LotRef, other: LotRef) {
  const { waited, free, result } = await waitsWithoutHolding(t.pool, { hold: lot(held), probe: lot(other), table: "lotti", send });
  expect(waited).toBe(true);
  expect(result.status).toBe(200);
  return free;
}

test("movements and alignments take lots in one order (article, code), not the rows' order or the lots' ids", async () => {
  const w = (await seedWarehouse(t.prisma, "M-ORD")).id;
  for (const lotto of ["B", "A"]) {
    await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: w, righe: [{ codice: "FARINA", quantita: 10, lotto }] } });
  }
  const unload = () =>
    rest("POST", "/movimenti", {
      key,
      body: {
        natura: "scarico",
        magazzino: w,
        righe: [
          { codice: "FARINA", quantita: 1, lotto: "B" },
          { codice: "FARINA", quantita: 1, lotto: "A" },
        ],
      },
    });
  expect(await waitsOnLotWithoutHolding(unload, { magazzino: w, codice: "A" }, { magazzino: w, codice: "B" })).toBe(true);
  const align = () =>
    rest("POST", "/giacenze/allinea", {
      key,
      body: {
        magazzino: w,
        righe: [
          { codice: "FARINA", lotto: "B", contato: 5 },
          { codice: "FARINA", lotto: "A", contato: 5 },
        ],
      },
    });
  expect(await waitsOnLotWithoutHolding(align, { magazzino: w, codice: "A" }, { magazzino: w, codice: "B" })).toBe(true);
  // The ledger keeps the rows' order whatever order the lots were taken in.
  const r = await unload();
  expect(r.body.righe.map((o: { esito: string }) => o.esito)).toEqual(["scritta", "scritta"]);
  expect(r.body.righe[0].movimento).toBeLessThan(r.body.righe[1].movimento);
});

test("lots above U+FFFF are taken in the database's order (code points), as the alignment's statements sort them", async () => {
  const w = (await seedWarehouse(t.prisma, "M-CP")).id;
  // COLLATE "C" puts 'ｚ' (U+FF5A) before '𝔸' (U+1D538); UTF-16 units (JS <) put it after.
  for (const lotto of ["𝔸", "ｚ"]) {
    await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: w, righe: [{ codice: "FARINA", quantita: 10, lotto }] } });
  }
  const unload = () =>
    rest("POST", "/movimenti", {
      key,
      body: {
        natura: "scarico",
        magazzino: w,
        righe: [
          { codice: "FARINA", quantita: 1, lotto: "𝔸" },
          { codice: "FARINA", quantita: 1, lotto: "ｚ" },
        ],
      },
    });
  expect(await waitsOnLotWithoutHolding(unload, { magazzino: w, codice: "ｚ" }, { magazzino: w, codice: "𝔸" })).toBe(true);
  const align = () =>
    rest("POST", "/giacenze/allinea", {
      key,
      body: {
        magazzino: w,
        righe: [
          { codice: "FARINA", lotto: "𝔸", contato: 5 },
          { codice: "FARINA", lotto: "ｚ", contato: 5 },
        ],
      },
    });
  expect(await waitsOnLotWithoutHolding(align, { magazzino: w, codice: "ｚ" }, { magazzino: w, codice: "𝔸" })).toBe(true);
});

test("a transfer takes the lot in the lower warehouse id first, whichever way it goes", async () => {
  const low = (await seedWarehouse(t.prisma, "M-BASSO")).id;
  const high = (await seedWarehouse(t.prisma, "M-ALTO")).id;
  expect(low).toBeLessThan(high);
  for (const magazzino of [low, high]) {
    await rest("POST", "/movimenti", {
      key,
      body: { natura: "carico", magazzino, righe: [{ codice: "FARINA", quantita: 10, lotto: "T" }] },
    });
  }
  const transfer = (from: number, to: number) => () =>
    rest("POST", "/movimenti", {
      key,
      body: { natura: "trasferimento", magazzino_origine: from, magazzino: to, righe: [{ codice: "FARINA", quantita: 1, lotto: "T" }] },
    });
  // Into the lower warehouse: waits on its destination without holding its source.
  expect(await waitsOnLotWithoutHolding(transfer(high, low), { magazzino: low, codice: "T" }, { magazzino: high, codice: "T" })).toBe(true);
  // Out of the lower warehouse: waits on its source without holding its destination.
  expect(await waitsOnLotWithoutHolding(transfer(low, high), { magazzino: low, codice: "T" }, { magazzino: high, codice: "T" })).toBe(true);
  expect(await residual(low, "T")).toBe(10);
  expect(await residual(high, "T")).toBe(10);
});

test("transfers in both directions on one lot, racing: none fails, quantities add up", async () => {
  const a = (await seedWarehouse(t.prisma, "M-ANDATA")).id;
  const b = (await seedWarehouse(t.prisma, "M-RITORNO")).id;
  for (const magazzino of [a, b]) {
    await rest("POST", "/movimenti", {
      key,
      body: { natura: "carico", magazzino, righe: [{ codice: "FARINA", quantita: 100, lotto: "AR" }] },
    });
  }
  const results = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      rest("POST", "/movimenti", {
        key,
        body: {
          natura: "trasferimento",
          magazzino_origine: i % 2 ? a : b,
          magazzino: i % 2 ? b : a,
          righe: [{ codice: "FARINA", quantita: 1, lotto: "AR" }],
        },
      }),
    ),
  );
  expect(results.map((r) => `${r.status} ${r.body.righe?.[0]?.esito}`)).toEqual(Array(40).fill("200 scritta"));
  expect(await residual(a, "AR")).toBe(100);
  expect(await residual(b, "AR")).toBe(100);
});
