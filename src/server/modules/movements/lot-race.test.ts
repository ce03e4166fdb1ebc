import { afterAll, beforeAll, expect, test } from "vitest";
import { createTestDb, type TestDb } from "../../testing/db";
import { rest, seedArticle, seedKey, seedWarehouse, stockOf } from "../../testing/fixtures";

/** Unloads racing on one lot, with real concurrency on PostgreSQL: the lot never goes negative. */

let t: TestDb;
let key: string;
let articolo: number;
let m1: number;
let m2: number;

beforeAll(async () => {
  t = await createTestDb();
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  m2 = (await seedWarehouse(t.prisma, "M2")).id;
  articolo = (await seedArticle(t.prisma, "FARINA", { lotti: true })).id;
  key = (await seedKey(t.prisma)).chiave;
});
afterAll(async () => t?.drop());

async function residual(magazzino: number, lotto: string): Promise<number> {
  const { rows } = await t.pool.query("SELECT residua::text AS r FROM lotti WHERE articolo_id = $1 AND magazzino_id = $2 AND codice = $3", [articolo, magazzino, lotto]);
  return Number(rows[0]?.r ?? 0);
}

test("30 parallel unloads of 1 on a lot of 10: exactly 10 accepted, the lot ends at 0", async () => {
  await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: m1, righe: [{ codice: "FARINA", quantita: 10, lotto: "L1" }] } });
  const results = await Promise.all(
    Array.from({ length: 30 }, () =>
      rest("POST", "/movimenti", { key, body: { natura: "scarico", magazzino: m1, righe: [{ codice: "FARINA", quantita: 1, lotto: "L1" }] } }),
    ),
  );
  const outcomes = results.map((r) => r.body.righe[0]);
  expect(outcomes.filter((o) => o.esito === "scritta")).toHaveLength(10);
  expect(outcomes.filter((o) => o.esito === "rifiutata").every((o) => o.errore.codice === "lotto_insufficiente")).toBe(true);
  expect(await residual(m1, "L1")).toBe(0);
  expect(await stockOf(t, articolo, m1)).toEqual({ ledger: 0, balance: 0 });
});

test("random unloads and transfers racing: accepted quantities equal the lot's decrease, never below zero", async () => {
  await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: m1, righe: [{ codice: "FARINA", quantita: 50, lotto: "L2" }] } });
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
  const accepted = results
    .map((r, i) => (r.body.righe[0].esito === "scritta" ? quantities[i]! : 0))
    .reduce((a, b) => a + b, 0);
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
