import { expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { waitsWithoutHolding } from "../../testing/locks";
import { test } from "../../testing/test";
import { verifyLedger } from "../ledger/verify.service";

/**
 * GET /disponibilita?a= reads the monthly net changes (`movimenti_mensili`, kept by the ledger's INSERT
 * trigger) of the months before a's month plus a's month of movements. Past movements are written here as
 * raw INSERTs into the ledger (the service only writes today's date); the trigger keeps the monthly rows for
 * them as for the service's own appends. Codes are prefixed GRW- (growth).
 */

let t: TestDb;
let key: string;
let m1: number;
let m2: number;
let art: number;

test.beforeAll(async ({ db, key: k }) => {
  t = db;
  key = k;
  m1 = (await seedWarehouse(t.prisma, "GRW-M1")).id;
  m2 = (await seedWarehouse(t.prisma, "GRW-M2")).id;
  art = (await seedArticle(t.prisma, "GRW-A")).id;
  await history([
    ["2025-11-10", m1, 10],
    ["2025-11-28", m2, 7],
    ["2025-12-05", m1, -3],
    ["2026-01-15", m1, 5],
    ["2026-01-31", m2, -2],
  ]);
});

/** Past movements of `art`, in one transaction with their balances, as the ledger would hold them. */
async function history(rows: [data: string, magazzino: number, quantita: number][]) {
  const c = await t.pool.connect();
  try {
    await c.query("BEGIN");
    const op = (await c.query("INSERT INTO operazioni (origine) VALUES ('correzione') RETURNING id")).rows[0].id;
    for (const [data, magazzino, quantita] of rows) {
      await c.query(
        `INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita)
         VALUES ($1, $2, 'correzione', $3, $4, $5, $6)`,
        [op, data, quantita > 0 ? "carico" : "scarico", magazzino, art, quantita],
      );
      await c.query(
        `INSERT INTO giacenze (articolo_id, magazzino_id, quantita) VALUES ($1, $2, $3)
         ON CONFLICT (articolo_id, magazzino_id) DO UPDATE SET quantita = giacenze.quantita + EXCLUDED.quantita`,
        [art, magazzino, quantita],
      );
    }
    await c.query("COMMIT");
  } finally {
    c.release();
  }
}

async function asOf(a: string, magazzino?: number) {
  const r = await rest("GET", `/disponibilita?dopo=${art - 1}&limite=1&a=${a}${magazzino ? `&magazzino=${magazzino}` : ""}`, { key });
  expect(r.status).toBe(200);
  expect(r.body.disponibilita[0].articolo.id).toBe(art);
  return r.body.disponibilita[0].giacenza as string;
}

/** The reference: the whole ledger summed up to the end of `a` (what the read did before the monthly table). */
async function ledgerSum(a: string, magazzino?: number) {
  const r = await t.pool.query(
    `SELECT trim_scale(coalesce(sum(quantita), 0))::text AS s FROM movimenti
      WHERE articolo_id = $1 AND data <= $2::date AND ($3::int IS NULL OR magazzino_id = $3::int)`,
    [art, a, magazzino ?? null],
  );
  return r.rows[0].s as string;
}

const DAYS = ["2025-10-31", "2025-11-10", "2025-11-15", "2025-11-30", "2025-12-01", "2025-12-31", "2026-01-14", "2026-01-15", "2026-02-01"];

test("as-of stock: months before a's month from the monthly rows, a's month from the ledger", async () => {
  const got = Object.fromEntries(await Promise.all(DAYS.map(async (d) => [d, await asOf(d)])));
  expect(got).toEqual({
    "2025-10-31": "0",
    "2025-11-10": "10",
    "2025-11-15": "10",
    "2025-11-30": "17",
    "2025-12-01": "17",
    "2025-12-31": "14",
    "2026-01-14": "14",
    "2026-01-15": "19",
    "2026-02-01": "17",
  });
  expect(await asOf("2026-01-20", m2)).toBe("7");
  expect(await asOf("2026-02-01", m2)).toBe("5");
  for (const d of DAYS) expect(await asOf(d)).toBe(await ledgerSum(d));
});

test("a backdated movement changes the as-of reads of its day and every later day, not the earlier ones", async () => {
  const before = Object.fromEntries(await Promise.all(DAYS.map(async (d) => [d, await asOf(d)])));
  await history([["2025-11-20", m1, 4]]);
  for (const d of DAYS) {
    const expected = d >= "2025-11-20" ? String(Number(before[d]) + 4) : before[d];
    expect({ d, got: await asOf(d) }).toEqual({ d, got: expected });
    expect(await asOf(d)).toBe(await ledgerSum(d));
  }
  expect(await asOf("2025-11-19", m1)).toBe("10");
  expect(await asOf("2025-11-20", m1)).toBe("14");
  const monthly = await t.pool.query(
    "SELECT trim_scale(quantita)::text AS q FROM movimenti_mensili WHERE articolo_id = $1 AND magazzino_id = $2 AND mese = '2025-11-01'",
    [art, m1],
  );
  expect(monthly.rows).toEqual([{ q: "14" }]);
  expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
});

test("concurrent writers on the same article keep the monthly rows equal to the ledger", async () => {
  const write = (i: number) =>
    rest("POST", "/movimenti", {
      key,
      body:
        i % 3 === 2
          ? { natura: "trasferimento", magazzino_origine: m1, magazzino: m2, righe: [{ codice: "GRW-A", quantita: 1 }] }
          : { natura: i % 3 === 0 ? "carico" : "scarico", magazzino: m1, righe: [{ codice: "GRW-A", quantita: i % 3 === 0 ? 3 : 1 }] },
    });
  const results = await Promise.all(Array.from({ length: 24 }, (_, i) => write(i)));
  expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
  const r = await verifyLedger(t.prisma);
  expect(r.differenze).toEqual([]);
  // Today's as-of read equals today's balance.
  const today = (await t.pool.query("SELECT to_char(max(data), 'YYYY-MM-DD') AS d FROM movimenti WHERE articolo_id = $1", [art])).rows[0].d;
  const balance = await rest("GET", `/disponibilita?dopo=${art - 1}&limite=1`, { key });
  expect(await asOf(today)).toBe(balance.body.disponibilita[0].giacenza);
});

test("lock order: a writer reaches its monthly row already holding the balance of that (article, warehouse)", async () => {
  // Only the ledger's trigger writes monthly rows, at the end of the append statement, after the statement's
  // balance upsert: whoever touches the monthly row of (article, warehouse) holds that balance, so two
  // writers queue on the balance and never meet first on a monthly row (no deadlock, whatever else they lock).
  const month = (await t.pool.query("SELECT date_trunc('month', max(data))::date AS m FROM movimenti WHERE articolo_id = $1", [art]))
    .rows[0].m;
  const r = await waitsWithoutHolding(t.pool, {
    hold: {
      sql: "SELECT 1 FROM movimenti_mensili WHERE articolo_id = $1 AND magazzino_id = $2 AND ubicazione_id = 0 AND mese = $3",
      params: [art, m1, month],
    },
    probe: { sql: "SELECT 1 FROM giacenze WHERE articolo_id = $1 AND magazzino_id = $2", params: [art, m1] },
    table: "INSERT INTO giacenze",
    send: () => rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: m1, righe: [{ codice: "GRW-A", quantita: 1 }] } }),
  });
  expect(r.waited).toBe(true);
  expect(r.free).toBe(false);
  expect(r.result.status).toBe(200);
  expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
});

test("verify names a tampered monthly row, and one that is missing", async () => {
  await t.pool.query(
    "UPDATE movimenti_mensili SET quantita = quantita + 1 WHERE articolo_id = $1 AND magazzino_id = $2 AND mese = '2025-12-01'",
    [art, m1],
  );
  await t.pool.query("DELETE FROM movimenti_mensili WHERE articolo_id = $1 AND magazzino_id = $2 AND mese = '2025-11-01'", [art, m2]);
  const r = await verifyLedger(t.prisma);
  expect(r.ok).toBe(false);
  expect(r.differenze).toEqual([
    { tipo: "movimenti_mensili", chiave: `articolo ${art} magazzino ${m1} ubicazione - mese 2025-12`, atteso: "-3.000", trovato: "-2.000" },
    { tipo: "movimenti_mensili", chiave: `articolo ${art} magazzino ${m2} ubicazione - mese 2025-11`, atteso: "7.000", trovato: "0" },
  ]);
  // Put back, so the rest of the file starts from a clean ledger.
  await t.pool.query(
    "UPDATE movimenti_mensili SET quantita = quantita - 1 WHERE articolo_id = $1 AND magazzino_id = $2 AND mese = '2025-12-01'",
    [art, m1],
  );
  await t.pool.query("INSERT INTO movimenti_mensili (articolo_id, magazzino_id, mese, quantita) VALUES ($1, $2, '2025-11-01', 7)", [
    art,
    m2,
  ]);
  expect((await verifyLedger(t.prisma)).ok).toBe(true);
});

test("in_quarantena as of a past day reads the monthly rows of quarantena locations", async () => {
  const mq = (await seedWarehouse(t.prisma, "GRW-MQ")).id;
  const loc = async (codice: string, tipo: string) =>
    (await t.pool.query("INSERT INTO ubicazioni (magazzino_id, codice, tipo) VALUES ($1, $2, $3) RETURNING id", [mq, codice, tipo])).rows[0]
      .id as number;
  const r = await loc("GRW-R", "ricevimento");
  await t.pool.query("UPDATE magazzini SET gestione_ubicazioni = true, ubicazione_ricevimento_id = $2 WHERE id = $1", [mq, r]);
  const q = await loc("GRW-Q", "quarantena");
  const s = await loc("GRW-S", "stoccaggio");
  const op = (await t.pool.query("INSERT INTO operazioni (origine) VALUES ('correzione') RETURNING id")).rows[0].id;
  for (const [data, ubicazione, quantita] of [
    ["2025-09-03", q, 6],
    ["2025-09-04", s, 2],
    ["2025-10-10", q, -4],
    ["2025-11-02", q, 1],
  ] as const) {
    await t.pool.query(
      `INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita, ubicazione_id)
       VALUES ($1, $2, 'correzione', $3, $4, $5, $6, $7)`,
      [op, data, quantita > 0 ? "carico" : "scarico", mq, art, quantita, ubicazione],
    );
  }
  const quarantined = async (a: string) => {
    const r = await rest("GET", `/disponibilita?dopo=${art - 1}&limite=1&a=${a}&magazzino=${mq}`, { key });
    expect(r.status).toBe(200);
    return [r.body.disponibilita[0].giacenza, r.body.disponibilita[0].in_quarantena];
  };
  expect(await quarantined("2025-09-03")).toEqual(["6", "6"]);
  expect(await quarantined("2025-09-30")).toEqual(["8", "6"]);
  expect(await quarantined("2025-10-09")).toEqual(["8", "6"]);
  expect(await quarantined("2025-10-10")).toEqual(["4", "2"]);
  expect(await quarantined("2025-11-02")).toEqual(["5", "3"]);
});
