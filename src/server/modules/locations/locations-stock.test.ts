import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedKey } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { moveStock, seedLocationWarehouse, stockRowId } from "./locations-testing";

/** GET /giacenze-ubicazioni, /articoli/{id}/ubicazioni, /da-stoccare and availability's `in_quarantena` (docs/api.md section 11). */

let t: TestDb;
let key: string;
let plain: number;
let w: { id: number; at: Record<string, number> };
const a: Record<string, number> = {};
const row: Record<string, number> = {};

test.beforeAll(async ({ db, key: writer }) => {
  t = db;
  key = (await seedKey(t.prisma, ["lettura"])).chiave;
  plain = (await rest("POST", "/magazzini", { key: writer, body: { magazzini: [{ codice: "PIANO", nome: "Piano" }] } })).body.righe[0].id;
  w = await seedLocationWarehouse(writer, "UBI", [
    { codice: "RIC", tipo: "ricevimento" },
    { codice: "A-01", tipo: "stoccaggio", descrizione: "Scaffale A, ripiano 1" },
    { codice: "A-02", tipo: "stoccaggio" },
    { codice: "Q-01", tipo: "quarantena" },
  ]);
  for (const c of ["VITE", "DADO", "BULLONE"]) a[c] = (await seedArticle(t.prisma, c)).id;
  a.LATTE = (await seedArticle(t.prisma, "LATTE", { lotti: true })).id;
  const put = (codice: string, ubicazione: string, quantita: number, lot: { lotto?: string; scadenza?: string } = {}) =>
    moveStock(writer, w.id, { codice, ubicazione, quantita, ...lot });
  // Loaded in this order: the receiving location's LATTE arrived before its VITE (GET /da-stoccare, oldest first).
  await put("LATTE", "RIC", 4, { lotto: "L2", scadenza: "2026-12-15" });
  await put("VITE", "RIC", 10);
  await put("VITE", "A-01", 5);
  await put("LATTE", "A-01", 3, { lotto: "L1", scadenza: "2026-12-31" });
  await put("DADO", "Q-01", 2);
  // A row back at zero: kept (its id is the cursor's), never listed.
  await put("DADO", "A-02", 1);
  await moveStock(writer, w.id, { codice: "DADO", ubicazione: "A-02", quantita: 1 }, "scarico");
  // The same article in a warehouse without locations: plain stock, no location row.
  const r = await rest("POST", "/movimenti", {
    key: writer,
    body: { natura: "carico", magazzino: plain, righe: [{ codice: "DADO", quantita: 7 }] },
  });
  expect(r.body.scritte).toBe(1);
  row.latteRic = await stockRowId(t.pool, a.LATTE!, w.at.RIC!, "L2");
  row.viteRic = await stockRowId(t.pool, a.VITE!, w.at.RIC!);
  row.viteA1 = await stockRowId(t.pool, a.VITE!, w.at["A-01"]!);
  row.latteA1 = await stockRowId(t.pool, a.LATTE!, w.at["A-01"]!, "L1");
  row.dadoQ = await stockRowId(t.pool, a.DADO!, w.at["Q-01"]!);
  row.dadoA2 = await stockRowId(t.pool, a.DADO!, w.at["A-02"]!);
});

const get = (path: string) => rest("GET", path, { key });

describe("GET /giacenze-ubicazioni", () => {
  test("one row per (article, location, lot) above zero, in id order, with the contract's fields", async () => {
    const r = await get(`/giacenze-ubicazioni?magazzino=${w.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      giacenze: [
        {
          id: row.latteRic,
          ubicazione: "RIC",
          articolo: { id: a.LATTE, codice: "LATTE" },
          lotto: "L2",
          scadenza: "2026-12-15",
          quantita: "4",
        },
        { id: row.viteRic, ubicazione: "RIC", articolo: { id: a.VITE, codice: "VITE" }, lotto: null, scadenza: null, quantita: "10" },
        { id: row.viteA1, ubicazione: "A-01", articolo: { id: a.VITE, codice: "VITE" }, lotto: null, scadenza: null, quantita: "5" },
        {
          id: row.latteA1,
          ubicazione: "A-01",
          articolo: { id: a.LATTE, codice: "LATTE" },
          lotto: "L1",
          scadenza: "2026-12-31",
          quantita: "3",
        },
        { id: row.dadoQ, ubicazione: "Q-01", articolo: { id: a.DADO, codice: "DADO" }, lotto: null, scadenza: null, quantita: "2" },
      ],
      altri: false,
      cursore: row.dadoQ,
    });
    // The row at zero is still in the table, as the ledger keeps it.
    const zero = await t.pool.query("SELECT quantita::text FROM giacenze_ubicazioni WHERE id = $1", [row.dadoA2]);
    expect(Number(zero.rows[0].quantita)).toBe(0);
  });

  test("filters: location code, article id, lot code; a code that names nothing lists nothing", async () => {
    const ids = async (q: string) => (await get(`/giacenze-ubicazioni?magazzino=${w.id}&${q}`)).body.giacenze.map((g: any) => g.id);
    expect(await ids("ubicazione=A-01")).toEqual([row.viteA1, row.latteA1]);
    expect(await ids(`articolo=${a.LATTE}`)).toEqual([row.latteRic, row.latteA1]);
    expect(await ids("lotto=L2")).toEqual([row.latteRic]);
    expect(await ids(`ubicazione=RIC&articolo=${a.VITE}`)).toEqual([row.viteRic]);
    expect(await ids("ubicazione=Z-99")).toEqual([]);
    expect(await ids(`articolo=${a.BULLONE}`)).toEqual([]);
  });

  test("pages by id: each row once, the cursor of the last page stored and answered back", async () => {
    const seen: number[] = [];
    let dopo = 0;
    for (let i = 0; i < 10; i++) {
      const r = await get(`/giacenze-ubicazioni?magazzino=${w.id}&limite=2&dopo=${dopo}`);
      seen.push(...r.body.giacenze.map((g: any) => g.id));
      dopo = r.body.cursore;
      if (!r.body.altri) break;
    }
    expect(seen).toEqual([row.latteRic, row.viteRic, row.viteA1, row.latteA1, row.dadoQ]);
    const empty = await get(`/giacenze-ubicazioni?magazzino=${w.id}&dopo=${dopo}`);
    expect(empty.body).toEqual({ giacenze: [], altri: false, cursore: dopo });
  });

  test("a warehouse that does not manage locations has no rows", async () => {
    const r = await get(`/giacenze-ubicazioni?magazzino=${plain}`);
    expect(r.body).toEqual({ giacenze: [], altri: false, cursore: 0 });
  });

  test.each([
    ["missing magazzino", "", "magazzino"],
    ["malformed magazzino", "?magazzino=uno", "magazzino"],
    ["magazzino zero", "?magazzino=0", "magazzino"],
    ["repeated magazzino", "?magazzino=1&magazzino=2", "magazzino"],
    ["limite above 500", "?magazzino=1&limite=501", "limite"],
    ["malformed articolo", "?magazzino=1&articolo=x", "articolo"],
    ["empty ubicazione", "?magazzino=1&ubicazione=", "ubicazione"],
    ["unknown parameter", "?magazzino=1&da=2026-01-01", undefined],
  ])("%s: 422 filtro_non_valido", async (_, qs, campo) => {
    const r = await get(`/giacenze-ubicazioni${qs}`);
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("filtro_non_valido");
    if (campo) expect(JSON.stringify(r.body)).toContain(campo);
  });

  test("an unknown warehouse is magazzino_non_trovato, before a cursor never issued", async () => {
    const r = await get("/giacenze-ubicazioni?magazzino=999999&dopo=2000000000");
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ codice: "magazzino_non_trovato", campo: "magazzino" });
  });

  test("a cursor above every id ever issued is cursore_non_valido", async () => {
    const r = await get(`/giacenze-ubicazioni?magazzino=${w.id}&dopo=2000000000`);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ codice: "cursore_non_valido", campo: "dopo" });
  });

  test("an operator reads it on the screens", async () => {
    const u = await t.prisma.utente.create({ data: { username: "ubi-operatore", password_hash: "-", ruolo: "operatore" } });
    const ui = caller(t, { kind: "utente", id: u.id, username: u.username, ruolo: "operatore" }, "trpc");
    const r = await ui.locationsStock.list({ magazzino: String(w.id), ubicazione: "Q-01" } as never);
    expect(r.giacenze.map((g) => g.id)).toEqual([row.dadoQ]);
  });
});

describe("GET /articoli/{id}/ubicazioni", () => {
  test("an article with lots: each location with its lots and quantities, by location code", async () => {
    const r = await get(`/articoli/${a.LATTE}/ubicazioni?magazzino=${w.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      articolo: { id: a.LATTE, codice: "LATTE", descrizione: "Articolo LATTE" },
      magazzino: w.id,
      giacenza: "7",
      ubicazioni: [
        {
          ubicazione: "A-01",
          descrizione: "Scaffale A, ripiano 1",
          tipo: "stoccaggio",
          attiva: true,
          quantita: "3",
          lotti: [{ lotto: "L1", scadenza: "2026-12-31", quantita: "3" }],
        },
        {
          ubicazione: "RIC",
          descrizione: null,
          tipo: "ricevimento",
          attiva: true,
          quantita: "4",
          lotti: [{ lotto: "L2", scadenza: "2026-12-15", quantita: "4" }],
        },
      ],
    });
  });

  test("an article without lots; a location at zero is not shown; an article that lies nowhere", async () => {
    const vite = await get(`/articoli/${a.VITE}/ubicazioni?magazzino=${w.id}`);
    expect(vite.body.giacenza).toBe("15");
    expect(vite.body.ubicazioni.map((u: any) => [u.ubicazione, u.quantita, u.lotti])).toEqual([
      ["A-01", "5", []],
      ["RIC", "10", []],
    ]);
    const dado = await get(`/articoli/${a.DADO}/ubicazioni?magazzino=${w.id}`);
    expect(dado.body.ubicazioni.map((u: any) => [u.ubicazione, u.tipo, u.quantita])).toEqual([["Q-01", "quarantena", "2"]]);
    const bullone = await get(`/articoli/${a.BULLONE}/ubicazioni?magazzino=${w.id}`);
    expect(bullone.body).toMatchObject({ giacenza: "0", ubicazioni: [] });
    const elsewhere = await get(`/articoli/${a.DADO}/ubicazioni?magazzino=${plain}`);
    expect(elsewhere.body).toMatchObject({ giacenza: "0", ubicazioni: [] });
  });

  test("refusals: unknown article 404, unknown warehouse, missing or malformed warehouse", async () => {
    const unknown = await get(`/articoli/999999/ubicazioni?magazzino=${w.id}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.codice).toBe("non_trovato");
    const noWarehouse = await get(`/articoli/${a.VITE}/ubicazioni?magazzino=999999`);
    expect(noWarehouse.status).toBe(422);
    expect(noWarehouse.body).toMatchObject({ codice: "magazzino_non_trovato", campo: "magazzino" });
    for (const qs of ["", "?magazzino=x", "?magazzino=1&lotto=L1"]) {
      const r = await get(`/articoli/${a.VITE}/ubicazioni${qs}`);
      expect(r.status).toBe(422);
      expect(r.body.codice).toBe("filtro_non_valido");
    }
  });
});

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/;

describe("GET /da-stoccare", () => {
  test("what lies in receiving locations, oldest arrival first, without pallet yet", async () => {
    const r = await get(`/da-stoccare?magazzino=${w.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      da_stoccare: [
        {
          id: row.latteRic,
          movimento: expect.any(Number),
          articolo: { id: a.LATTE, codice: "LATTE", descrizione: "Articolo LATTE" },
          lotto: "L2",
          scadenza: "2026-12-15",
          ubicazione: "RIC",
          quantita: "4",
          arrivato_il: expect.stringMatching(ISO_INSTANT),
          sscc: null,
        },
        {
          id: row.viteRic,
          movimento: expect.any(Number),
          articolo: { id: a.VITE, codice: "VITE", descrizione: "Articolo VITE" },
          lotto: null,
          scadenza: null,
          ubicazione: "RIC",
          quantita: "10",
          arrivato_il: expect.stringMatching(ISO_INSTANT),
          sscc: null,
        },
      ],
      altri: false,
      cursore: r.body.da_stoccare[1].movimento,
    });
    const [first, second] = r.body.da_stoccare.map((d: any) => Date.parse(d.arrivato_il));
    expect(first).toBeLessThanOrEqual(second);
    expect(Math.abs(Date.now() - first)).toBeLessThan(600_000);
    const one = await get(`/da-stoccare?magazzino=${w.id}&limite=1`);
    expect(one.body.da_stoccare.map((d: any) => d.id)).toEqual([row.latteRic]);
    expect(one.body.altri).toBe(true);
    expect(one.body.cursore).toBe(one.body.da_stoccare[0].movimento);
    const next = await get(`/da-stoccare?magazzino=${w.id}&limite=1&dopo=${one.body.cursore}`);
    expect(next.body.da_stoccare.map((d: any) => d.id)).toEqual([row.viteRic]);
    expect((await get(`/da-stoccare?magazzino=${plain}`)).body).toEqual({ da_stoccare: [], altri: false, cursore: 0 });
  });

  test("refusals: unknown warehouse, missing or malformed parameters", async () => {
    const unknown = await get("/da-stoccare?magazzino=999999");
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ codice: "magazzino_non_trovato", campo: "magazzino" });
    for (const qs of ["", "?magazzino=-1", `?magazzino=${w.id}&limite=0`, `?magazzino=${w.id}&dopo=-1`, `?magazzino=${w.id}&altro=3`]) {
      const r = await get(`/da-stoccare${qs}`);
      expect(r.status).toBe(422);
      expect(r.body.codice).toBe("filtro_non_valido");
    }
  });
});

describe("GET /disponibilita: in_quarantena where a warehouse manages locations", () => {
  const rowOf = (body: any, id: number | undefined) => body.disponibilita.find((d: any) => d.articolo.id === id);

  test("filtered by a location warehouse: every row says what lies in quarantine", async () => {
    const r = await get(`/disponibilita?magazzino=${w.id}`);
    expect(r.status).toBe(200);
    expect(rowOf(r.body, a.DADO)).toMatchObject({ giacenza: "2", in_quarantena: "2" });
    expect(rowOf(r.body, a.VITE)).toMatchObject({ giacenza: "15", in_quarantena: "0" });
    expect(rowOf(r.body, a.BULLONE)).toMatchObject({ giacenza: "0", in_quarantena: "0" });
  });

  test("filtered by a warehouse without locations: the rows are unchanged", async () => {
    const r = await get(`/disponibilita?magazzino=${plain}`);
    expect(rowOf(r.body, a.DADO)).toEqual({
      articolo: { id: a.DADO, codice: "DADO", descrizione: "Articolo DADO" },
      giacenza: "7",
      in_arrivo: "0",
      prenotata: "0",
      scaduta: "0",
      disponibile: "7",
    });
  });

  test("unfiltered: the total and the location warehouse's breakdown carry it, the other warehouse's does not", async () => {
    const r = await get("/disponibilita");
    expect(rowOf(r.body, a.DADO)).toEqual({
      articolo: { id: a.DADO, codice: "DADO", descrizione: "Articolo DADO" },
      giacenza: "9",
      in_arrivo: "0",
      in_quarantena: "2",
      // What lies in quarantine is not promised (docs/api.md section 14).
      prenotata: "0",
      scaduta: "0",
      disponibile: "7",
      magazzini: [
        { magazzino: plain, giacenza: "7", prenotata: "0", scaduta: "0", disponibile: "7" },
        { magazzino: w.id, giacenza: "2", in_quarantena: "2", prenotata: "0", scaduta: "0", disponibile: "0" },
      ],
    });
  });
});
