import type pg from "pg";
import { describe, expect } from "vitest";
import { Prisma } from "../../db/client";
import { query } from "../../db/sql";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import { rest, seedArticle, seedKey, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { windowed } from "../lists/window";
import { feedPage } from "./feeds.service";

/**
 * Completeness of the change feed (docs/api.md section 9, as section 4 for ids): a client that stores
 * `cursore_versione` never misses a change, even when a transaction holding a lower version commits
 * after a higher one was already visible. And the id lists of the new endpoints are complete as well.
 */

let t: TestDb;
let key: string;
let m1: number;
const articles: number[] = [];
const suppliers: number[] = [];

test.beforeAll(async ({ db }) => {
  t = db;
  m1 = (await seedWarehouse(t.prisma)).id;
  for (let i = 0; i < 12; i++) articles.push((await seedArticle(t.prisma, `A${i}`)).id);
  for (let i = 0; i < 6; i++) suppliers.push((await seedSupplier(t.prisma, `F${i}`)).id);
  key = (await seedKey(t.prisma, ["lettura"])).chiave;
});

const get = (path: string) => rest("GET", path, { key });

/** The feed's cursor once every change so far has been read. */
async function feedHead(path: string): Promise<number> {
  let cursor = 0;
  for (;;) {
    const r = await get(`${path}?modificati_dopo=${cursor}&limite=100`);
    cursor = r.body.cursore_versione;
    if (!r.body.altri) return cursor;
  }
}

const version = async (table: string, id: number) =>
  Number((await t.pool.query(`SELECT versione FROM ${table} WHERE id = $1`, [id])).rows[0].versione);

describe("the feed never skips a lower version committed after a higher one", () => {
  test("articles: a held update with a lower version bounds every page until it commits", async () => {
    const start = await feedHead("/articoli");
    const [low, high] = [articles[0]!, articles[1]!];
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const held = Number(
        (await c.query("UPDATE articoli SET descrizione = 'lenta' WHERE id = $1 RETURNING versione", [low])).rows[0].versione,
      );
      await t.prisma.articolo.update({ where: { id: high }, data: { descrizione: "veloce" } });
      const highVersion = await version("articoli", high);
      expect(highVersion).toBeGreaterThan(held);

      // Without the bound, a reader would see the higher version now and store it as its cursor.
      const naive = await t.pool.query("SELECT id, versione FROM articoli WHERE versione > $1 ORDER BY versione", [start]);
      expect(naive.rows.map((r) => r.id)).toEqual([high]);

      const during = await get(`/articoli?modificati_dopo=${start}`);
      expect(during.body).toEqual({ articoli: [], altri: true, cursore_versione: start });
      // Paging on does not get the reader past it either.
      const again = await get(`/articoli?modificati_dopo=${during.body.cursore_versione}&limite=1`);
      expect(again.body).toEqual({ articoli: [], altri: true, cursore_versione: start });

      await c.query("COMMIT");
      const after = await get(`/articoli?modificati_dopo=${again.body.cursore_versione}`);
      expect(after.body.articoli.map((a: any) => [a.id, a.descrizione, a.versione])).toEqual([
        [low, "lenta", held],
        [high, "veloce", highVersion],
      ]);
      expect(after.body.altri).toBe(false);
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      c.release();
    }
  });

  test("rows below a held change stay visible; a rolled-back change blocks nobody and never shows", async () => {
    const start = await feedHead("/fornitori");
    await t.prisma.fornitore.update({ where: { id: suppliers[0]! }, data: { nome: "prima" } });
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      await c.query("UPDATE fornitori SET nome = 'annullata' WHERE id = $1", [suppliers[1]]);
      const r = await get(`/fornitori?modificati_dopo=${start}`);
      expect(r.body.fornitori.map((f: any) => [f.id, f.nome])).toEqual([[suppliers[0], "prima"]]);
      await c.query("ROLLBACK");
    } finally {
      c.release();
    }
    await t.prisma.fornitore.update({ where: { id: suppliers[2]! }, data: { nome: "dopo" } });
    const r = await get(`/fornitori?modificati_dopo=${start}`);
    expect(r.body.fornitori.map((f: any) => [f.id, f.nome])).toEqual([
      [suppliers[0], "prima"],
      [suppliers[2], "dopo"],
    ]);
    expect(r.body.altri).toBe(false);
  });

  test("orders: an arrival held open (order rows changed, order updated last) is not skipped", async () => {
    const f = await seedSupplier(t.prisma, "FO");
    const lowOrder = await seedOrder(t.prisma, {
      numero: "O-LOW",
      fornitore: f.id,
      magazzino: m1,
      data: "2026-11-20",
      righe: [{ articolo: articles[2]!, quantita: "5", prezzo: "1" }],
    });
    const highOrder = await seedOrder(t.prisma, {
      numero: "O-HIGH",
      fornitore: f.id,
      magazzino: m1,
      data: "2026-11-20",
      righe: [{ articolo: articles[3]!, quantita: "5", prezzo: "1" }],
    });
    const start = await feedHead("/ordini-acquisto");
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      await c.query("UPDATE righe_ordine SET arrivata = 2, stato = 'parziale' WHERE id = $1", [lowOrder.righe[0]]);
      await c.query("UPDATE ordini_acquisto SET stato = 'parziale' WHERE id = $1", [lowOrder.id]);
      await t.pool.query("UPDATE ordini_acquisto SET stato = stato WHERE id = $1", [highOrder.id]);
      const during = await get(`/ordini-acquisto?modificati_dopo=${start}`);
      expect(during.body).toEqual({ ordini: [], altri: true, cursore_versione: start });
      await c.query("COMMIT");
      const after = await get(`/ordini-acquisto?modificati_dopo=${start}`);
      expect(after.body.ordini.map((o: any) => [o.numero, o.stato, o.righe[0].arrivata])).toEqual([
        ["O-LOW", "parziale", "2"],
        ["O-HIGH", "aperto", "0"],
      ]);
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      c.release();
    }
  });
});

describe("the id lists of section 9 are complete too", () => {
  test.each([
    ["/fornitori", "fornitori", "INSERT INTO fornitori (codice, nome) VALUES ($1, $1) RETURNING id"],
    ["/magazzini", "magazzini", "INSERT INTO magazzini (codice, nome) VALUES ($1, $1) RETURNING id"],
    ["/articoli", "articoli", "INSERT INTO articoli (codice, descrizione) VALUES ($1, $1) RETURNING id"],
    [
      "/ubicazioni",
      "ubicazioni",
      "INSERT INTO ubicazioni (magazzino_id, codice, tipo) VALUES ((SELECT min(id) FROM magazzini), $1, 'stoccaggio') RETURNING id",
    ],
  ])("%s: a row inserted in a longer transaction is not skipped", async (path, k, insert) => {
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const low = (await c.query(insert, [`LENTO-${k}`])).rows[0].id;
      const high = (await t.pool.query(insert, [`VELOCE-${k}`])).rows[0].id;
      const during = await get(`${path}?dopo=${low - 1}`);
      expect(during.body).toEqual({ [k]: [], altri: true, cursore: low - 1 });
      await c.query("COMMIT");
      const after = await get(`${path}?dopo=${low - 1}`);
      expect(after.body[k].map((x: any) => x.id)).toEqual([low, high]);
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      c.release();
    }
  });

  test("/ordini-acquisto: an order inserted in a longer transaction is not skipped", async () => {
    const f = suppliers[0]!;
    const insert = "INSERT INTO ordini_acquisto (numero, fornitore_id, magazzino_id, data) VALUES ($1, $2, $3, current_date) RETURNING id";
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const low = (await c.query(insert, ["ID-LENTO", f, m1])).rows[0].id;
      const high = (await t.pool.query(insert, ["ID-VELOCE", f, m1])).rows[0].id;
      const during = await get(`/ordini-acquisto?dopo=${low - 1}`);
      expect(during.body).toEqual({ ordini: [], altri: true, cursore: low - 1 });
      await c.query("COMMIT");
      const after = await get(`/ordini-acquisto?dopo=${low - 1}`);
      expect(after.body.ordini.map((x: any) => x.id)).toEqual([low, high]);
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      c.release();
    }
  });
});

describe("GET /ubicazioni's change feed", () => {
  test("a held location change with a lower version bounds the feed until it commits, then both show in version order", async () => {
    const insert = "INSERT INTO ubicazioni (magazzino_id, codice, tipo) VALUES ($1, $2, 'stoccaggio') RETURNING id";
    const [low, high] = [
      (await t.pool.query(insert, [m1, "FEED-LOW"])).rows[0].id,
      (await t.pool.query(insert, [m1, "FEED-HIGH"])).rows[0].id,
    ];
    const start = await feedHead("/ubicazioni");
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const held = Number(
        (await c.query("UPDATE ubicazioni SET descrizione = 'lenta' WHERE id = $1 RETURNING versione", [low])).rows[0].versione,
      );
      await t.pool.query("UPDATE ubicazioni SET descrizione = 'veloce' WHERE id = $1", [high]);
      expect(await version("ubicazioni", high)).toBeGreaterThan(held);
      expect((await get(`/ubicazioni?modificati_dopo=${start}`)).body).toEqual({ ubicazioni: [], altri: true, cursore_versione: start });
      await c.query("COMMIT");
      const after = await get(`/ubicazioni?modificati_dopo=${start}`);
      expect(after.body.ubicazioni.map((u: any) => [u.id, u.descrizione])).toEqual([
        [low, "lenta"],
        [high, "veloce"],
      ]);
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      c.release();
    }
  });
});

describe("concurrent writers against feed readers", () => {
  test("15 s of updates, inserts and rollbacks: every final state seen, no change missed, versions in order", async () => {
    const startArticles = await feedHead("/articoli");
    const startSuppliers = await feedHead("/fornitori");
    const deadline = Date.now() + 15_000;
    let writing = true;
    let committed = 0;
    let rolledBack = 0;
    const committedChanges: { table: string; id: number; versione: number }[] = [];
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

    /** A transaction that changes 1..3 rows (in id order: no deadlocks), sometimes inserts one, holds a while, commits or rolls back. */
    async function writer(n: number) {
      const c: pg.PoolClient = await t.pool.connect();
      try {
        for (let i = 0; Date.now() < deadline; i++) {
          const table = Math.random() < 0.7 ? "articoli" : "fornitori";
          const pool = table === "articoli" ? articles : suppliers;
          const ids = [
            ...new Set(Array.from({ length: 1 + Math.floor(Math.random() * 3) }, () => pool[Math.floor(Math.random() * pool.length)]!)),
          ].sort((x, y) => x - y);
          const column = table === "articoli" ? "descrizione" : "nome";
          const changes: { table: string; id: number; versione: number }[] = [];
          await c.query("BEGIN");
          for (const id of ids) {
            const r = await c.query(`UPDATE ${table} SET ${column} = $1 WHERE id = $2 RETURNING versione`, [`w${n}-${i}-${id}`, id]);
            changes.push({ table, id, versione: Number(r.rows[0].versione) });
            if (Math.random() < 0.3) await sleep(Math.random() * 10);
          }
          if (Math.random() < 0.1) {
            const codice = `N${n}-${i}`;
            const r = await c.query(
              table === "articoli"
                ? "INSERT INTO articoli (codice, descrizione) VALUES ($1, $1) RETURNING id, versione"
                : "INSERT INTO fornitori (codice, nome) VALUES ($1, $1) RETURNING id, versione",
              [codice],
            );
            changes.push({ table, id: r.rows[0].id, versione: Number(r.rows[0].versione) });
          }
          if (Math.random() < 0.5) await sleep(Math.random() * 25);
          if (Math.random() < 0.1) {
            await c.query("ROLLBACK");
            rolledBack++;
          } else {
            await c.query("COMMIT");
            committed++;
            committedChanges.push(...changes);
          }
        }
      } finally {
        await c.query("ROLLBACK").catch(() => {});
        c.release();
      }
    }

    /** A client syncing with the feed: the latest state it saw of each row, and every version it was shown. */
    async function reader(path: string, k: string, from: number) {
      const state = new Map<number, { nome: string; versione: number }>();
      const versions: number[] = [];
      let cursor = from;
      let reads = 0;
      for (;;) {
        const done = !writing;
        const r = await get(`${path}?modificati_dopo=${cursor}&limite=7`);
        expect(r.status).toBe(200);
        reads++;
        for (const row of r.body[k]) {
          versions.push(row.versione);
          state.set(row.id, { nome: row.descrizione ?? row.nome, versione: row.versione });
        }
        cursor = r.body.cursore_versione;
        if (done && !r.body.altri) break;
        if (!r.body.altri) await sleep(5);
      }
      return { state, versions, reads };
    }

    const readers = [reader("/articoli", "articoli", startArticles), reader("/fornitori", "fornitori", startSuppliers)];
    await Promise.all(Array.from({ length: 6 }, (_, n) => writer(n)));
    writing = false;
    const [ra, rf] = await Promise.all(readers);

    for (const [table, column, seen, from] of [
      ["articoli", "descrizione", ra!, startArticles],
      ["fornitori", "nome", rf!, startSuppliers],
    ] as const) {
      // Versions come in strictly increasing order, each once.
      expect(seen.versions).toEqual([...new Set(seen.versions)].sort((x, y) => x - y));
      // Every final state is what the reader ended with.
      const finals = (await t.pool.query(`SELECT id, ${column} AS nome, versione FROM ${table} WHERE versione > $1 ORDER BY id`, [from]))
        .rows;
      expect(finals.length).toBeGreaterThan(0);
      const expected = new Map(finals.map((r) => [r.id as number, { nome: r.nome as string, versione: Number(r.versione) }]));
      expect(new Map([...seen.state].sort((x, y) => x[0] - y[0]))).toEqual(new Map([...expected].sort((x, y) => x[0] - y[0])));
      // No change missed: every committed change was seen, or superseded by a later version of its row that was.
      for (const ch of committedChanges.filter((c) => c.table === table)) {
        expect(seen.state.get(ch.id)!.versione).toBeGreaterThanOrEqual(ch.versione);
      }
      // Nothing shown that was never committed.
      const committedVersions = new Set(committedChanges.filter((c) => c.table === table).map((c) => c.versione));
      for (const v of seen.versions) expect(committedVersions.has(v)).toBe(true);
      expect(seen.reads).toBeGreaterThan(20);
    }
    expect(committed).toBeGreaterThan(100);
    expect(rolledBack).toBeGreaterThan(0);
  }, 60_000);
});

describe("the same mechanism serves GET /clienti (for the lead to wire)", () => {
  test("feedPage with the clients' gate: a held client change bounds the page, then shows", async () => {
    const statement = (w: Parameters<typeof windowed>[0], take: number) => {
      const { where, tail } = windowed(w, take, []);
      return query<{ id: number; codice: string; email: string | null; versione: bigint }>(
        Prisma.sql`SELECT t.id, t.codice, t.email, t.versione FROM clienti t WHERE ${where} ${tail}`,
      );
    };
    const insert = "INSERT INTO clienti (codice, ragione_sociale, data) VALUES ($1, $1, current_date) RETURNING id";
    const c1 = (await t.pool.query(insert, ["C1"])).rows[0].id;
    const c2 = (await t.pool.query(insert, ["C2"])).rows[0].id;
    const head = (await feedPage(t.prisma, { modificati_dopo: 0 }, "clienti", statement)).cursore_versione!;
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      await c.query("UPDATE clienti SET email = 'lenta@x.it' WHERE id = $1", [c1]);
      await t.pool.query("UPDATE clienti SET email = 'veloce@x.it' WHERE id = $1", [c2]);
      const during = await feedPage(t.prisma, { modificati_dopo: head }, "clienti", statement);
      expect(during).toEqual({ rows: [], altri: true, cursore_versione: head });
      await c.query("COMMIT");
      const after = await feedPage(t.prisma, { modificati_dopo: head }, "clienti", statement);
      expect(after.rows.map((r) => [r.id, r.email])).toEqual([
        [c1, "lenta@x.it"],
        [c2, "veloce@x.it"],
      ]);
      // By id, through the clients' id gate.
      expect((await feedPage(t.prisma, { dopo: c1 - 1 }, "clienti", statement)).rows.map((r) => r.id)).toEqual([c1, c2]);
      await expect(feedPage(t.prisma, { dopo: 0, modificati_dopo: 0 }, "clienti", statement)).rejects.toMatchObject({
        codice: "filtro_non_valido",
      });
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      c.release();
    }
  });
});
