import { expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { moveStock, seedLocationWarehouse, stockRowId } from "./locations-testing";

/**
 * GET /giacenze-ubicazioni keeps the completeness promise of section 4: a location stock row created by a
 * transaction still open (a lower id) bounds every page until it commits, so a client that pages with its
 * stored cursor never skips stock that lies somewhere.
 */

let t: TestDb;
let key: string;
let w: { id: number; at: Record<string, number> };
const articles: number[] = [];

test.beforeAll(async ({ db, apiKey }) => {
  t = db;
  key = apiKey.chiave;
  w = await seedLocationWarehouse(key, "UBI", [
    { codice: "RIC", tipo: "ricevimento" },
    { codice: "A-01", tipo: "stoccaggio" },
  ]);
  for (let i = 0; i < 3; i++) articles.push((await seedArticle(t.prisma, `C${i}`)).id);
});

/** A load through POST /movimenti (the ledger creates the location stock row); that row's id. */
async function load(i: number, ubicazione: "RIC" | "A-01", quantita: number): Promise<number> {
  await moveStock(key, w.id, { codice: `C${i}`, ubicazione, quantita });
  return stockRowId(t.pool, articles[i]!, w.at[ubicazione]!);
}

const page = (dopo: number) => rest("GET", `/giacenze-ubicazioni?magazzino=${w.id}&dopo=${dopo}`, { key });

test("a held insert with a lower id bounds the page until it commits; then both rows are read, once", async () => {
  const first = await load(0, "RIC", 1);
  const start = (await page(0)).body.cursore;
  expect(start).toBe(first);

  const c = await t.pool.connect();
  try {
    await c.query("BEGIN");
    const held = await c.query<{ id: number }>(
      `INSERT INTO giacenze_ubicazioni (articolo_id, magazzino_id, ubicazione_id, quantita) VALUES ($1, $2, $3, 4) RETURNING id`,
      [articles[1], w.id, w.at["A-01"]],
    );
    const low = held.rows[0]!.id;
    // A writer that commits while the lower id is held (its rows lock nothing the held insert holds).
    const high = await load(2, "RIC", 2);
    expect(high).toBeGreaterThan(low);

    // Without the bound a reader would see the higher id now, store it as its cursor and never see the lower.
    const naive = await t.pool.query("SELECT id FROM giacenze_ubicazioni WHERE magazzino_id = $1 AND id > $2 ORDER BY id", [w.id, start]);
    expect(naive.rows.map((r) => r.id)).toEqual([high]);

    const during = await page(start);
    expect(during.body).toEqual({ giacenze: [], altri: true, cursore: start });
    // The rows below the held one stay visible from the start.
    expect((await page(0)).body.giacenze.map((g: any) => g.id)).toEqual([first]);

    await c.query("COMMIT");
    const after = await page(during.body.cursore);
    expect(after.body.giacenze.map((g: any) => [g.id, g.quantita])).toEqual([
      [low, "4"],
      [high, "2"],
    ]);
    expect(after.body.altri).toBe(false);
  } finally {
    await c.query("ROLLBACK").catch(() => {});
    c.release();
  }
});

test("a rolled-back insert blocks nobody and never shows", async () => {
  const start = (await page(0)).body.cursore;
  const c = await t.pool.connect();
  try {
    await c.query("BEGIN");
    await c.query(`INSERT INTO giacenze_ubicazioni (articolo_id, magazzino_id, ubicazione_id, quantita) VALUES ($1, $2, $3, 9)`, [
      articles[0],
      w.id,
      w.at["A-01"],
    ]);
    await c.query("ROLLBACK");
  } finally {
    c.release();
  }
  const later = await load(1, "RIC", 3);
  const r = await page(start);
  expect(r.body).toEqual({
    giacenze: [{ id: later, ubicazione: "RIC", articolo: { id: articles[1], codice: "C1" }, lotto: null, scadenza: null, quantita: "3" }],
    altri: false,
    cursore: later,
  });
});
