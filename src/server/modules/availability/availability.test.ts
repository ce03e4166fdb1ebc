import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedKey, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";

let t: TestDb;
let key: string;
let reader: string;
let m1: number;
let m2: number;
let fornitore: number;
const a: Record<string, number> = {};

test.beforeAll(async ({ db, apiKey }) => {
  t = db;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  m2 = (await seedWarehouse(t.prisma, "M2")).id;
  a.VITE = (await seedArticle(t.prisma, "VITE")).id;
  a.GUANTO = (await seedArticle(t.prisma, "GUANTO", { haVarianti: true })).id;
  a.GUANTO_M = (await seedArticle(t.prisma, "GUANTO-M", { modelloId: a.GUANTO })).id;
  a.GUANTO_L = (await seedArticle(t.prisma, "GUANTO-L", { modelloId: a.GUANTO })).id;
  a.FERMO = (await seedArticle(t.prisma, "FERMO")).id;
  a.STORICO = (await seedArticle(t.prisma, "STORICO")).id;
  fornitore = (await seedSupplier(t.prisma, "F1")).id;
  key = apiKey.chiave;
  reader = (await seedKey(t.prisma, ["lettura"])).chiave;
});

/** Today's available-to-promise (docs/api.md section 14) where nothing is held, expired or in quarantena: all of the stock. */
const free = (giacenza: string) => ({ giacenza, prenotata: "0", scaduta: "0", disponibile: giacenza });
/** A row without today's available-to-promise fields, as `a` answers it. */
const withoutPromise = ({ prenotata: _p, scaduta: _s, disponibile: _d, magazzini, ...row }: any) => ({
  ...row,
  ...(magazzini ? { magazzini: magazzini.map(({ prenotata: _wp, scaduta: _ws, disponibile: _wd, ...w }: any) => w) } : {}),
});

const get = (query = "", k = reader) => rest("GET", `/disponibilita${query}`, { key: k });
const move = (body: unknown) => rest("POST", "/movimenti", { key, body });

/** Every row of the list, paging with the cursor as a client does. */
async function pageAll(query: string, limite = 500) {
  const rows: any[] = [];
  let cursore = 0;
  for (let pages = 1; ; pages++) {
    const r = await get(`?limite=${limite}&dopo=${cursore}${query}`);
    expect(r.status).toBe(200);
    rows.push(...r.body.disponibilita);
    cursore = r.body.cursore;
    if (!r.body.altri) return { rows, pages };
  }
}

async function rowOf(articolo: number, query = "") {
  const r = await get(`?dopo=${articolo - 1}&limite=1${query}`);
  expect(r.status).toBe(200);
  expect(r.body.disponibilita[0].articolo.id).toBe(articolo);
  return r.body.disponibilita[0];
}

async function stockedIds(): Promise<number[]> {
  return (await t.pool.query("SELECT id FROM articoli WHERE NOT ha_varianti ORDER BY id")).rows.map((r) => r.id);
}

describe("GET /disponibilita: rows", () => {
  test("every stocked article, zero stock and variants included, templates never", async () => {
    const r = await get();
    expect(r.status).toBe(200);
    expect(r.body.disponibilita.map((d: any) => d.articolo.id)).toEqual([a.VITE, a.GUANTO_M, a.GUANTO_L, a.FERMO, a.STORICO]);
    expect(r.body).toMatchObject({ altri: false, cursore: a.STORICO });
    expect(r.body.disponibilita[3]).toEqual({
      articolo: { id: a.FERMO, codice: "FERMO", descrizione: "Articolo FERMO" },
      ...free("0"),
      in_arrivo: "0",
      magazzini: [
        { magazzino: m1, ...free("0") },
        { magazzino: m2, ...free("0") },
      ],
    });
  });

  test("loads, unloads, transfers and arrivals move giacenza, the breakdown and in_arrivo", async () => {
    await move({
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "VITE", quantita: 10.5 },
        { codice: "GUANTO-M", quantita: 4 },
      ],
    });
    await move({ natura: "scarico", magazzino: m1, righe: [{ codice: "VITE", quantita: 3 }] });
    await move({ natura: "trasferimento", magazzino_origine: m1, magazzino: m2, righe: [{ codice: "VITE", quantita: 2.25 }] });
    const open = await seedOrder(t.prisma, {
      numero: "O-1",
      fornitore,
      magazzino: m1,
      data: "2026-11-01",
      righe: [
        { articolo: a.VITE!, quantita: "40", prezzo: "0.1" },
        { articolo: a.GUANTO_L!, quantita: "6", prezzo: "2" },
      ],
    });
    await seedOrder(t.prisma, {
      numero: "O-2",
      fornitore,
      magazzino: m2,
      data: "2026-11-02",
      righe: [{ articolo: a.VITE!, quantita: "5.5", prezzo: "0.1" }],
    });
    const done = await seedOrder(t.prisma, {
      numero: "O-3",
      fornitore,
      magazzino: m1,
      data: "2026-11-03",
      righe: [{ articolo: a.GUANTO_M!, quantita: "2", prezzo: "2" }],
    });
    const arrival = await rest("POST", "/arrivi", { key, body: { magazzino: m1, ddt: "D-1", riga: open.righe[0], quantita: 15 } });
    expect(arrival.status).toBe(201);
    expect((await rest("POST", "/arrivi", { key, body: { magazzino: m1, ddt: "D-1", riga: done.righe[0], quantita: 2 } })).status).toBe(
      201,
    );

    expect(await rowOf(a.VITE!)).toEqual({
      articolo: { id: a.VITE, codice: "VITE", descrizione: "Articolo VITE" },
      ...free("22.5"), // 10.5 − 3 + 15; the transfer leaves the total alone
      in_arrivo: "30.5", // 40 − 15 on O-1, 5.5 on O-2
      magazzini: [
        { magazzino: m1, ...free("20.25") },
        { magazzino: m2, ...free("2.25") },
      ],
    });
    // O-3 is evaso: nothing left to arrive for GUANTO-M.
    expect(await rowOf(a.GUANTO_M!)).toMatchObject({
      giacenza: "6",
      in_arrivo: "0",
      magazzini: [
        { magazzino: m1, giacenza: "6" },
        { magazzino: m2, giacenza: "0" },
      ],
    });
    expect(await rowOf(a.GUANTO_L!)).toMatchObject({ giacenza: "0", in_arrivo: "6" });

    // Down to zero: the balance row stays, and shows "0".
    await move({ natura: "scarico", magazzino: m2, righe: [{ codice: "VITE", quantita: 2.25 }] });
    expect((await rowOf(a.VITE!)).magazzini).toEqual([
      { magazzino: m1, ...free("20.25") },
      { magazzino: m2, ...free("0") },
    ]);
  });

  test("magazzino: that warehouse's giacenza and in_arrivo (by the order's warehouse), no breakdown", async () => {
    expect(await rowOf(a.VITE!, `&magazzino=${m1}`)).toEqual({
      articolo: { id: a.VITE, codice: "VITE", descrizione: "Articolo VITE" },
      ...free("20.25"),
      in_arrivo: "25",
    });
    expect(await rowOf(a.VITE!, `&magazzino=${m2}`)).toEqual({
      articolo: { id: a.VITE, codice: "VITE", descrizione: "Articolo VITE" },
      ...free("0"),
      in_arrivo: "5.5",
    });
    const all = await get(`?magazzino=${m2}`);
    expect(all.body.disponibilita.map((d: any) => d.articolo.id)).toEqual(await stockedIds());
    expect(all.body.disponibilita.every((d: any) => !("magazzini" in d))).toBe(true);
  });

  test("a: stock as it stood at the end of that day, from the ledger; in_arrivo of that day too (availability-as-of.test.ts)", async () => {
    // Past business dates can only come from the ledger: written here as appendToLedger would, with the balance.
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const op = (await c.query("INSERT INTO operazioni (origine) VALUES ('api') RETURNING id")).rows[0].id;
      await c.query(
        `INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita)
         VALUES ($1, '2026-01-10', 'api', 'carico', $2, $4, 100), ($1, '2026-01-20', 'api', 'scarico', $2, $4, -30.5),
                ($1, '2026-01-25', 'api', 'carico', $3, $4, 5)`,
        [op, m1, m2, a.STORICO],
      );
      await c.query("INSERT INTO giacenze (articolo_id, magazzino_id, quantita) VALUES ($1, $2, 69.5), ($1, $3, 5)", [a.STORICO, m1, m2]);
      await c.query("COMMIT");
    } finally {
      c.release();
    }
    await seedOrder(t.prisma, {
      numero: "O-4",
      fornitore,
      magazzino: m2,
      data: "2026-11-04",
      righe: [{ articolo: a.STORICO!, quantita: "8", prezzo: "1" }],
    });

    const at = async (day: string, query = "") => rowOf(a.STORICO!, `&a=${day}${query}`);
    expect(await at("2026-01-09")).toMatchObject({
      giacenza: "0",
      magazzini: [
        { magazzino: m1, giacenza: "0" },
        { magazzino: m2, giacenza: "0" },
      ],
    });
    expect(await at("2026-01-10")).toMatchObject({
      giacenza: "100",
      magazzini: [
        { magazzino: m1, giacenza: "100" },
        { magazzino: m2, giacenza: "0" },
      ],
    });
    expect(await at("2026-01-24")).toMatchObject({ giacenza: "69.5" });
    expect(await at("2026-01-25")).toEqual({
      articolo: { id: a.STORICO, codice: "STORICO", descrizione: "Articolo STORICO" },
      giacenza: "74.5",
      in_arrivo: "0", // O-4 is dated November
      magazzini: [
        { magazzino: m1, giacenza: "69.5" },
        { magazzino: m2, giacenza: "5" },
      ],
    });
    expect(await at("2026-01-24", `&magazzino=${m2}`)).toEqual({
      articolo: { id: a.STORICO, codice: "STORICO", descrizione: "Articolo STORICO" },
      giacenza: "0",
      in_arrivo: "0",
    });
    expect(await at("2026-01-25", `&magazzino=${m2}`)).toMatchObject({ giacenza: "5", in_arrivo: "0" });
    expect(await at("2026-11-04", `&magazzino=${m2}`)).toMatchObject({ giacenza: "5", in_arrivo: "8" });
    // Today's movements are not in a day that ended before them, nor orders dated after it.
    expect(await rowOf(a.VITE!, "&a=2026-01-25")).toMatchObject({ giacenza: "0", in_arrivo: "0" });
  });

  test("the balances returned equal the sum of the ledger, for every article and warehouse", async () => {
    const ledger = new Map<string, number>();
    for (const r of (await t.pool.query("SELECT articolo_id, magazzino_id, sum(quantita)::text AS q FROM movimenti GROUP BY 1, 2")).rows) {
      ledger.set(`${r.articolo_id}:${r.magazzino_id}`, Number(r.q));
    }
    expect(ledger.size).toBeGreaterThan(3);
    const { rows } = await pageAll("");
    const { rows: fromLedger } = await pageAll("&a=2999-12-31");
    // The reservation fields are today's only: holds have no history in the ledger.
    expect(fromLedger).toEqual(rows.map(withoutPromise));
    for (const row of rows) {
      let total = 0;
      for (const w of row.magazzini) {
        expect([row.articolo.codice, w.magazzino, Number(w.giacenza)]).toEqual([
          row.articolo.codice,
          w.magazzino,
          ledger.get(`${row.articolo.id}:${w.magazzino}`) ?? 0,
        ]);
        total += Number(w.giacenza);
      }
      expect(Number(row.giacenza)).toBe(total);
    }
  });
});

describe("GET /disponibilita: paging and completeness", () => {
  test("the whole catalogue in pages of 500: every id once, in order, with altri and cursore", async () => {
    await t.pool.query(
      `INSERT INTO articoli (codice, descrizione) SELECT 'MASSA-' || g, 'Articolo di massa ' || g FROM generate_series(1, 1200) g`,
    );
    const ids = await stockedIds();
    expect(ids.length).toBe(1205);
    const first = await get();
    expect(first.body.disponibilita).toHaveLength(500); // default limite
    expect(first.body).toMatchObject({ altri: true, cursore: ids[499] });

    const { rows, pages } = await pageAll("");
    expect(pages).toBe(3);
    expect(rows.map((r) => r.articolo.id)).toEqual(ids);
    expect(rows.at(-1)).toMatchObject({ giacenza: "0", in_arrivo: "0" });

    const past = await get(`?dopo=${ids.at(-1)}`);
    expect(past.body).toEqual({ disponibilita: [], altri: false, cursore: ids.at(-1) });
  });

  test("an article inserted in a longer transaction with a lower id is not skipped", async () => {
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const low = (await c.query("INSERT INTO articoli (codice, descrizione) VALUES ('LENTO', 'Lento') RETURNING id")).rows[0].id;
      const high = (await t.pool.query("INSERT INTO articoli (codice, descrizione) VALUES ('VELOCE', 'Veloce') RETURNING id")).rows[0].id;
      expect(high).toBeGreaterThan(low);
      const during = await get(`?dopo=${low - 1}`);
      expect(during.body).toEqual({ disponibilita: [], altri: true, cursore: low - 1 });
      await c.query("COMMIT");
      const after = await get(`?dopo=${during.body.cursore}`);
      expect(after.body.disponibilita.map((d: any) => d.articolo.id)).toEqual([low, high]);
      expect(after.body.altri).toBe(false);
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      c.release();
    }
  });
});

describe("GET /disponibilita: refusals", () => {
  test.each([
    ["limite=501", "limite"],
    ["limite=0", "limite"],
    ["limite=abc", "limite"],
    ["dopo=-1", "dopo"],
    ["da=2026-01-01", "da"],
    ["a=2026-02-30", "a"],
    ["a=25-01-2026", "a"],
    ["magazzino=0", "magazzino"],
    ["magazzino=uno", "magazzino"],
    ["fornitore=1", "fornitore"],
    ["articolo=0", "articolo"],
    ["articolo=1&codice=VITE", "codice"],
    ["limite=10&limite=20", "limite"],
  ])("%s → filtro_non_valido", async (query, campo) => {
    const r = await get(`?${query}`);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ codice: "filtro_non_valido", campo });
  });

  test("one article by id or code (a template: its variants); an unknown one is 404", async () => {
    const byId = await get(`?articolo=${a.VITE}`);
    expect(byId.body.disponibilita.map((d: any) => d.articolo.codice)).toEqual(["VITE"]);
    const byCode = await get("?codice=GUANTO");
    expect(byCode.body.disponibilita.map((d: any) => d.articolo.codice)).toEqual(["GUANTO-M", "GUANTO-L"]);
    for (const query of ["?articolo=999999", "?codice=NESSUNO"]) {
      const r = await get(query);
      expect(r.status).toBe(404);
      expect(r.body.codice).toBe("non_trovato");
    }
  });

  test("an unknown warehouse is magazzino_non_trovato, also past the end of the catalogue", async () => {
    for (const query of ["?magazzino=999999", "?magazzino=999999&dopo=2000000000", "?magazzino=999999&a=2026-01-01"]) {
      const r = await get(query);
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ codice: "magazzino_non_trovato", messaggio: "Il magazzino 999999 non esiste.", campo: "magazzino" });
    }
  });

  test("a key is required", async () => {
    const r = await rest("GET", "/disponibilita");
    expect(r.status).toBe(401);
    expect(r.body.codice).toBe("non_autenticato");
  });
});
