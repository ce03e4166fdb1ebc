import type pg from "pg";
import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";

/**
 * Completeness (docs/api.md section 4): a client paging with its stored cursor never misses a row, even
 * when a transaction holding a lower id commits after a higher one was already visible.
 */

let t: TestDb;
let key: string;

test.beforeAll(async ({ db, apiKey }) => {
  t = db;
  await seedWarehouse(t.prisma);
  await seedArticle(t.prisma, "A1");
  // The held row's article is not the one the committed writes move: a movement's insert takes that article's
  // monthly row (movimenti_mensili), which a real writer reaches only holding its balance, so a raw insert of
  // the same article would hold back the committed write instead of racing it.
  heldArticle = (await seedArticle(t.prisma, "A-TENUTO")).id;
  key = apiKey.chiave;
});

let heldArticle: number;

async function insertMovementInOpenTransaction(c: pg.PoolClient): Promise<number> {
  await c.query("BEGIN");
  const op = await c.query("INSERT INTO operazioni (origine) VALUES ('api') RETURNING id");
  const m = await c.query(
    `INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita)
     VALUES ($1, current_date, 'api', 'carico', 1, $2, 1) RETURNING id`,
    [op.rows[0].id, heldArticle],
  );
  return m.rows[0].id;
}

async function pageAll(path: string, key_: string, dopo: number, arrayKey: string) {
  const seen: number[] = [];
  let cursor = dopo;
  for (let i = 0; i < 1000; i++) {
    const r = await rest("GET", `${path}${path.includes("?") ? "&" : "?"}dopo=${cursor}&limite=3`, { key: key_ });
    expect(r.status).toBe(200);
    seen.push(...r.body[arrayKey].map((x: any) => x.id));
    cursor = r.body.cursore;
    if (!r.body.altri) break;
  }
  return { seen, cursor };
}

describe("movimenti", () => {
  test("a lower id committed after a higher one is never skipped", async () => {
    const start = (await rest("GET", "/movimenti?limite=100", { key })).body.cursore;
    const c = await t.pool.connect();
    let low: number;
    try {
      low = await insertMovementInOpenTransaction(c);
      const high = await rest("POST", "/movimenti", {
        key,
        body: { natura: "carico", magazzino: 1, righe: [{ codice: "A1", quantita: 2 }] },
      });
      const highId: number = high.body.righe[0].movimento;
      expect(highId).toBeGreaterThan(low);

      // Without the sync bound, a reader would see the higher id now and store it as its cursor.
      const naive = await t.pool.query("SELECT id FROM movimenti WHERE id > $1 ORDER BY id", [start]);
      expect(naive.rows.map((r) => r.id)).toEqual([highId]);

      const during = await rest("GET", `/movimenti?dopo=${start}`, { key });
      expect(during.body.movimenti).toEqual([]);
      expect(during.body.altri).toBe(true);
      expect(during.body.cursore).toBe(start);

      await c.query("COMMIT");
      const after = await rest("GET", `/movimenti?dopo=${during.body.cursore}`, { key });
      expect(after.body.movimenti.map((m: any) => m.id)).toEqual([low, highId]);
      expect(after.body.altri).toBe(false);
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      c.release();
    }
  });

  test("rows below an open transaction stay visible; a rolled-back id does not block anyone", async () => {
    const first = await rest("POST", "/movimenti", {
      key,
      body: { natura: "carico", magazzino: 1, righe: [{ codice: "A1", quantita: 1 }] },
    });
    const firstId = first.body.righe[0].movimento;
    const c = await t.pool.connect();
    try {
      await insertMovementInOpenTransaction(c);
      const r = await rest("GET", `/movimenti?dopo=${firstId - 1}`, { key });
      expect(r.body.movimenti.map((m: any) => m.id)).toEqual([firstId]);
      await c.query("ROLLBACK");
    } finally {
      c.release();
    }
    const later = await rest("POST", "/movimenti", {
      key,
      body: { natura: "carico", magazzino: 1, righe: [{ codice: "A1", quantita: 1 }] },
    });
    const r = await rest("GET", `/movimenti?dopo=${firstId}`, { key });
    expect(r.body.movimenti.map((m: any) => m.id)).toEqual([later.body.righe[0].movimento]);
    expect(r.body.altri).toBe(false);
  });

  test("writers racing a sync reader: the reader sees every movement exactly once, in order", async () => {
    const start = (await rest("GET", "/movimenti?limite=100&dopo=0", { key })).body;
    let cursor: number = start.cursore;
    while ((await rest("GET", `/movimenti?limite=100&dopo=${cursor}`, { key })).body.altri) {
      cursor = (await rest("GET", `/movimenti?limite=100&dopo=${cursor}`, { key })).body.cursore;
    }
    const from = (await rest("GET", `/movimenti?limite=100&dopo=${cursor}`, { key })).body.cursore;
    let writing = true;
    // Writers: API writes, and raw transactions that sleep between taking an id and committing.
    const apiWriters = Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 25; i++) {
        await rest("POST", "/movimenti", {
          key,
          body: {
            natura: "carico",
            magazzino: 1,
            righe: [
              { codice: "A1", quantita: 1 },
              { codice: "A1", quantita: 2 },
            ],
          },
        });
      }
    });
    const slowWriters = Array.from({ length: 3 }, async () => {
      const c = await t.pool.connect();
      try {
        for (let i = 0; i < 15; i++) {
          await insertMovementInOpenTransaction(c);
          await new Promise((r) => setTimeout(r, 2 + Math.random() * 15));
          await c.query("COMMIT");
        }
      } finally {
        c.release();
      }
    });
    const seen: number[] = [];
    let reads = 0;
    const reader = (async () => {
      let cur = from;
      for (;;) {
        const done = !writing;
        const r = await rest("GET", `/movimenti?limite=7&dopo=${cur}`, { key });
        reads++;
        seen.push(...r.body.movimenti.map((m: any) => m.id));
        cur = r.body.cursore;
        if (done && !r.body.altri) break;
      }
    })();
    await Promise.all([...apiWriters, ...slowWriters]);
    writing = false;
    await reader;
    const all = (await t.pool.query("SELECT id FROM movimenti WHERE id > $1 ORDER BY id", [from])).rows.map((r) => r.id);
    expect(all.length).toBe(4 * 25 * 2 + 3 * 15);
    expect(seen).toEqual(all);
    expect(reads).toBeGreaterThan(5);
  });
});

describe("clienti", () => {
  test("a client inserted in a longer transaction is not skipped", async () => {
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const low = (
        await c.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('LENTO', 'Lento', current_date) RETURNING id")
      ).rows[0].id;
      const high = (
        await t.pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('VELOCE', 'Veloce', current_date) RETURNING id")
      ).rows[0].id;
      const during = await rest("GET", `/clienti?dopo=${low - 1}`, { key });
      expect(during.body.clienti).toEqual([]);
      expect(during.body.altri).toBe(true);
      await c.query("COMMIT");
      const { seen } = await pageAll("/clienti", key, low - 1, "clienti");
      expect(seen).toEqual([low, high]);
    } finally {
      c.release();
    }
  });
});
