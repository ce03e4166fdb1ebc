import { expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedOrder, seedSupplier } from "../../testing/fixtures";
import { seedLocationWarehouse } from "../../testing/location-fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { appendToLedger } from "../ledger/ledger.service";
import { loadLocation } from "../ledger/location-balances.service";

/**
 * GET /da-stoccare paged as docs/api.md section 4 (section 11): by each row's arrival (`movimento`, the movement
 * that brought goods into the row while it was empty), in arrival order. Rows put away drop out; a client
 * paging on with its cursor sees each row still waiting at most once, and misses none, while arrivals,
 * top-ups and putaways run concurrently on their own connections, and while a transaction holding a lower
 * movement id has not committed yet.
 */

let t: TestDb;
let key: string;
let actor: Actor;
let w: number;
let ric: { id: number; codice: string };
const ARTICLES = 24;
const articles: { id: number; codice: string }[] = [];
const rows: number[] = [];

test.beforeAll(async ({ db, key: k, actor: a }) => {
  t = db;
  key = k;
  actor = a;
  w = await seedLocationWarehouse(t, actor, "PAG", [
    { codice: "PAG-RIC", tipo: "ricevimento" },
    { codice: "PAG-B1", tipo: "stoccaggio" },
  ]);
  ric = { id: (await t.prisma.ubicazione.findFirstOrThrow({ where: { codice: "PAG-RIC" } })).id, codice: "PAG-RIC" };
  const supplier = (await seedSupplier(t.prisma, "PAG-F")).id;
  for (let i = 0; i < ARTICLES + 1; i++) {
    const codice = `PAG-${String(i).padStart(2, "0")}`;
    articles.push({ id: (await seedArticle(t.prisma, codice)).id, codice });
  }
  const order = await seedOrder(t.prisma, {
    numero: "PAG-1",
    fornitore: supplier,
    magazzino: w,
    data: "2026-11-30",
    righe: articles.map((a) => ({ articolo: a.id, quantita: "100", prezzo: "1" })),
  });
  rows.push(...order.righe);
});

const arrive = async (i: number, quantita: number) => {
  const r = await rest("POST", "/arrivi", { key, body: { magazzino: w, ddt: `PAG-D${i}`, riga: rows[i], quantita } });
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
};
const putAway = async (i: number) => {
  const r = await rest("POST", "/movimenti", {
    key,
    body: {
      natura: "trasferimento",
      magazzino_origine: w,
      magazzino: w,
      righe: [{ codice: articles[i]!.codice, quantita: 1, ubicazione_origine: "PAG-RIC", ubicazione: "PAG-B1" }],
    },
  });
  expect(r.body.scritte, JSON.stringify(r.body)).toBe(1);
};
const page = (dopo: number) => rest("GET", `/da-stoccare?magazzino=${w}&limite=3&dopo=${dopo}`, { key });

interface Seen {
  id: number;
  movimento: number;
  codice: string;
}

/**
 * Pages from `dopo` until a page says nothing more waits; every row seen, in order, and the last cursor.
 * Only with no writer open: a transaction still open keeps `altri` true (rows above it wait for its commit).
 */
async function pageOn(dopo: number, seen: Seen[]): Promise<number> {
  for (;;) {
    const r = await page(dopo);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    for (const d of r.body.da_stoccare) seen.push({ id: d.id, movimento: d.movimento, codice: d.articolo.codice });
    expect(r.body.cursore).toBeGreaterThanOrEqual(dopo);
    dopo = r.body.cursore;
    if (!r.body.altri) return dopo;
  }
}

test("a client paging on under concurrent arrivals, top-ups and putaways sees each waiting row at most once, and misses none", async () => {
  // Put away before the client starts: never listed.
  await arrive(ARTICLES, 1);
  await putAway(ARTICLES);

  const seen: Seen[] = [];
  let cursor = 0;
  // The reader takes one page on from its cursor after every write, while the other writers go on: pages
  // are read between and during commits, never waiting for the writers to settle.
  let reads = Promise.resolve();
  const readOne = () => {
    reads = reads.then(async () => {
      const r = await page(cursor);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      for (const d of r.body.da_stoccare) seen.push({ id: d.id, movimento: d.movimento, codice: d.articolo.codice });
      expect(r.body.cursore).toBeGreaterThanOrEqual(cursor);
      cursor = r.body.cursore;
    });
  };
  // Four writers on their own connections, over articles from..to-1: each arrives, is topped up, every third put away.
  const write = (from: number, to: number) =>
    Promise.all(
      [0, 1, 2, 3].map(async (lane) => {
        for (let i = from + lane; i < to; i += 4) {
          await arrive(i, 3);
          readOne();
          await arrive(i, 1);
          readOne();
          if (i % 3 === 0) await putAway(i);
          readOne();
        }
      }),
    );

  await write(1, 14);
  await reads;
  expect(seen.length).toBeGreaterThan(0);

  // A transaction that has drawn its movement id and not committed: the pages stop below it until it does,
  // while the writers go on above it.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let drawn!: (id: number) => void;
  const drawnId = new Promise<number>((r) => (drawn = r));
  const slow = t.prisma.$transaction(
    async (tx) => {
      const article = articles[0]!;
      await loadLocation(tx as never, { articolo: article, magazzino: w, ubicazione: ric, lotto: null }, "2");
      const { ids } = await appendToLedger(
        tx as never,
        { operazione: "nuova", origine: "api", causale: "In ritardo", data: "2026-11-30", actor },
        [{ natura: "carico", magazzino: w, articolo: article.id, quantita: "2", prezzo: null, lotto: null, ubicazione: ric.id }],
      );
      drawn(ids[0]!);
      await held;
    },
    { timeout: 60_000 },
  );
  const slowId = await drawnId;
  await write(14, ARTICLES);
  await reads;
  // Nothing at or above the open transaction's movement was handed out past it.
  expect(cursor).toBeLessThan(slowId);
  release();
  await slow;
  cursor = await pageOn(cursor, seen);
  expect(seen.map((s) => s.movimento)).toContain(slowId);

  const keys = seen.map((s) => s.movimento);
  expect(new Set(keys).size, JSON.stringify(seen)).toBe(keys.length);
  expect([...keys].sort((a, b) => a - b)).toEqual(keys);
  expect(new Set(seen.map((s) => s.id)).size).toBe(seen.length);
  expect(seen.map((s) => s.codice)).not.toContain(articles[ARTICLES]!.codice);

  // What waits now was every one seen: the full list from the start is a subset of what the client saw.
  const all: Seen[] = [];
  await pageOn(0, all);
  const waiting = all.map((s) => s.movimento);
  expect(waiting.length).toBeGreaterThan(10);
  for (const k of waiting) expect(keys).toContain(k);
  expect(all.map((s) => s.codice)).toContain(articles[0]!.codice);
  // A row topped up keeps its key: four units, one row, the key of its first arrival.
  const { rows: keyOf } = await t.pool.query(
    `SELECT g.arrivo_id, min(m.id) AS primo FROM giacenze_ubicazioni g
       JOIN movimenti m ON m.articolo_id = g.articolo_id AND m.ubicazione_id = g.ubicazione_id AND m.quantita > 0
      WHERE g.ubicazione_id = $1 AND g.quantita > 0 GROUP BY g.id, g.arrivo_id`,
    [ric.id],
  );
  for (const r of keyOf) expect(r.arrivo_id).toBe(r.primo);
});

test("a cursor above every movement issued is cursore_non_valido; an unknown warehouse's code wins over it", async () => {
  const { rows: seq } = await t.pool.query("SELECT last_value::int AS n FROM movimenti_id_seq");
  const above = seq[0].n + 1000;
  const r = await rest("GET", `/da-stoccare?magazzino=${w}&dopo=${above}`, { key });
  expect([r.status, r.body.codice, r.body.campo]).toEqual([422, "cursore_non_valido", "dopo"]);
  const both = await rest("GET", `/da-stoccare?magazzino=999999&dopo=${above}`, { key });
  expect([both.status, both.body.codice]).toEqual([422, "magazzino_non_trovato"]);
  const empty = await rest("GET", `/da-stoccare?magazzino=${w}&dopo=${seq[0].n}`, { key });
  expect(empty.body).toEqual({ da_stoccare: [], altri: false, cursore: seq[0].n });
});
