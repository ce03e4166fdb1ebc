import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import { rest, seedArticle, seedKey, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";

/**
 * GET /articoli, /fornitori, /magazzini, /ordini-acquisto (docs/api.md section 9): id paging, filters,
 * refusals, and the change feed (`modificati_dopo`, `cursore_versione`) following every change.
 */

let t: TestDb;
let reader: string;
let writer: string;
let m1: number;
let m2: number;
const a: Record<string, number> = {};
const f: Record<string, number> = {};
const o = {} as Record<"A1" | "B1" | "A2", { id: number; righe: number[] }>;

test.beforeAll(async ({ db }) => {
  t = db;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  m2 = (await seedWarehouse(t.prisma, "DEPOSITO")).id;
  a.VITE = (await seedArticle(t.prisma, "VITE-M6", { ean: "8001234567897", costo: "0.1200" })).id;
  a.LATTE = (await seedArticle(t.prisma, "LATTE", { lotti: true })).id;
  const tpl = await seedArticle(t.prisma, "GUANTO", { haVarianti: true });
  a.GUANTO = tpl.id;
  a.GUANTO_M = (await seedArticle(t.prisma, "GUANTO-M", { modelloId: tpl.id })).id;
  a.DADO = (await seedArticle(t.prisma, "dado-m6")).id;
  f.A = (await seedSupplier(t.prisma, "FA")).id;
  f.B = (await seedSupplier(t.prisma, "FB")).id;
  o.A1 = await seedOrder(t.prisma, {
    numero: "OA-1",
    fornitore: f.A,
    magazzino: m1,
    data: "2026-11-02",
    righe: [
      { articolo: a.VITE, quantita: "10", prezzo: "0.2500" },
      { articolo: a.GUANTO_M, quantita: "2.5", prezzo: "3" },
    ],
  });
  o.B1 = await seedOrder(t.prisma, {
    numero: "OB-1",
    fornitore: f.B,
    magazzino: m2,
    data: "2026-11-10",
    righe: [{ articolo: a.DADO, quantita: "4", prezzo: "1" }],
  });
  o.A2 = await seedOrder(t.prisma, {
    numero: "OA-2",
    fornitore: f.A,
    magazzino: m1,
    data: "2026-11-20",
    righe: [{ articolo: a.LATTE, quantita: "6", prezzo: "0.9" }],
  });
  reader = (await seedKey(t.prisma, ["lettura"])).chiave;
  writer = (await seedKey(t.prisma)).chiave;
});

const get = (path: string) => rest("GET", path, { key: reader });
const LISTS = [
  ["/articoli", "articoli"],
  ["/fornitori", "fornitori"],
  ["/magazzini", "magazzini"],
  ["/ordini-acquisto", "ordini"],
] as const;

/** Every page of a list or of the feed from a cursor, with a small page size. */
async function pageAll(path: string, arrayKey: string, cursorParam: "dopo" | "modificati_dopo", from: number, limite = 2) {
  const seen: any[] = [];
  let cursor = from;
  for (let i = 0; i < 1000; i++) {
    const r = await get(`${path}${path.includes("?") ? "&" : "?"}${cursorParam}=${cursor}&limite=${limite}`);
    expect(r.status).toBe(200);
    seen.push(...r.body[arrayKey]);
    cursor = cursorParam === "dopo" ? r.body.cursore : r.body.cursore_versione;
    if (!r.body.altri) break;
  }
  return { seen, cursor };
}

describe("422 filtro_non_valido: every bad parameter, on every list", () => {
  const common: [string, string, string][] = [
    ["unknown parameter", "pagina=2", "pagina"],
    ["repeated parameter", "limite=5&limite=6", "limite"],
    ["limite 0", "limite=0", "limite"],
    ["limite over 100", "limite=101", "limite"],
    ["limite decimal", "limite=1.5", "limite"],
    ["limite empty", "limite=", "limite"],
    ["dopo negative", "dopo=-1", "dopo"],
    ["dopo not a number", "dopo=abc", "dopo"],
    ["modificati_dopo negative", "modificati_dopo=-1", "modificati_dopo"],
    ["modificati_dopo not a number", "modificati_dopo=uno", "modificati_dopo"],
    ["modificati_dopo empty", "modificati_dopo=", "modificati_dopo"],
    ["modificati_dopo decimal", "modificati_dopo=1.5", "modificati_dopo"],
    ["modificati_dopo beyond 2^53", "modificati_dopo=9007199254740992", "modificati_dopo"],
    ["modificati_dopo repeated", "modificati_dopo=1&modificati_dopo=2", "modificati_dopo"],
    ["dopo with modificati_dopo", "dopo=0&modificati_dopo=0", "modificati_dopo"],
    ["dopo with modificati_dopo, both set", "dopo=3&modificati_dopo=5", "modificati_dopo"],
    ["cerca empty", "cerca=", "cerca"],
    ["cerca blank", "cerca=%20%20", "cerca"],
    ["cerca over 100 characters", `cerca=${"x".repeat(101)}`, "cerca"],
    ["cerca repeated", "cerca=a&cerca=b", "cerca"],
  ];
  const masterData: [string, string, string][] = [
    ["attivo not a boolean", "attivo=si", "attivo"],
    ["attivo 1", "attivo=1", "attivo"],
    ["fornitore (orders only)", "fornitore=1", "fornitore"],
    ["da (orders only)", "da=2026-11-01", "da"],
  ];
  const orders: [string, string, string][] = [
    ["attivo (master data only)", "attivo=true", "attivo"],
    ["fornitore not a number", "fornitore=FA", "fornitore"],
    ["fornitore 0", "fornitore=0", "fornitore"],
    ["stato unknown", "stato=chiuso", "stato"],
    ["da not a date", "da=02/11/2026", "da"],
    ["a impossible date", "a=2026-02-30", "a"],
    ["da after a", "da=2026-11-22&a=2026-11-01", "da"],
  ];
  const cases = [
    ...LISTS.flatMap(([path]) => common.map(([n, qs, campo]) => [`${path}: ${n}`, `${path}?${qs}`, campo] as const)),
    ...LISTS.filter(([p]) => p !== "/ordini-acquisto").flatMap(([path]) =>
      masterData.map(([n, qs, campo]) => [`${path}: ${n}`, `${path}?${qs}`, campo] as const),
    ),
    ...orders.map(([n, qs, campo]) => [`/ordini-acquisto: ${n}`, `/ordini-acquisto?${qs}`, campo] as const),
  ];
  test.each(cases)("%s", async (_n, path, campo) => {
    const r = await get(path);
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("filtro_non_valido");
    const fields = r.body.campo ? [r.body.campo] : r.body.dettagli.map((d: any) => d.campo);
    expect(fields).toContain(campo);
    expect(r.body.messaggio).toContain(campo);
  });

  test("the OpenAPI document lists the four endpoints with their parameters", async () => {
    const doc = (await rest("GET", "/openapi.json")).body;
    const params = (path: string) =>
      doc.paths[path].get.parameters
        .filter((p: any) => p.in === "query")
        .map((p: any) => p.name)
        .sort();
    const feed = ["cerca", "dopo", "limite", "modificati_dopo"];
    expect(params("/articoli")).toEqual([...feed, "attivo"].sort());
    expect(params("/fornitori")).toEqual([...feed, "attivo"].sort());
    expect(params("/magazzini")).toEqual([...feed, "attivo"].sort());
    expect(params("/ordini-acquisto")).toEqual([...feed, "a", "da", "fornitore", "stato"].sort());
  });

  test("reads need a key: 401 without one", async () => {
    for (const [path] of LISTS) expect((await rest("GET", path)).status).toBe(401);
  });
});

describe("lists by id", () => {
  test("articles: every field, templates and variants one by one, paged by id", async () => {
    const all = await get("/articoli?limite=100");
    expect(all.status).toBe(200);
    expect(all.body.altri).toBe(false);
    expect(all.body.cursore).toBe(a.DADO);
    expect(all.body).not.toHaveProperty("cursore_versione");
    const vite = all.body.articoli.find((x: any) => x.codice === "VITE-M6");
    expect(vite).toEqual({
      id: a.VITE,
      codice: "VITE-M6",
      descrizione: "Articolo VITE-M6",
      ean: "8001234567897",
      gestione_lotti: false,
      costo: "0.12",
      unita: "PZ",
      modello: null,
      attivo: true,
      versione: expect.any(Number),
      confezione: "1",
      ubicazioni_preferite: [],
    });
    expect(all.body.articoli.map((x: any) => [x.codice, x.modello, x.gestione_lotti])).toEqual([
      ["VITE-M6", null, false],
      ["LATTE", null, true],
      ["GUANTO", null, false],
      ["GUANTO-M", "GUANTO", false],
      ["dado-m6", null, false],
    ]);
    const { seen } = await pageAll("/articoli", "articoli", "dopo", 0);
    expect(seen.map((x) => x.id)).toEqual([a.VITE, a.LATTE, a.GUANTO, a.GUANTO_M, a.DADO]);
    const p1 = await get("/articoli?limite=2");
    expect(p1.body).toMatchObject({ altri: true, cursore: a.LATTE });
  });

  test("an empty page keeps the cursor sent", async () => {
    for (const [path, k] of LISTS) {
      const { cursor } = await pageAll(path, k, "dopo", 0, 100);
      expect(cursor).toBeGreaterThan(0);
      expect((await get(`${path}?dopo=${cursor}`)).body).toEqual({ [k]: [], altri: false, cursore: cursor });
    }
  });

  test("cerca: code or description, case-insensitive, LIKE wildcards literal; attivo", async () => {
    const codes = async (qs: string) => (await get(`/articoli?${qs}`)).body.articoli.map((x: any) => x.codice);
    expect(await codes("cerca=m6")).toEqual(["VITE-M6", "dado-m6"]);
    expect(await codes("cerca=DADO")).toEqual(["dado-m6"]);
    expect(await codes("cerca=articolo%20gUaNtO")).toEqual(["GUANTO", "GUANTO-M"]);
    expect(await codes("cerca=%25")).toEqual([]);
    expect(await codes("cerca=_")).toEqual([]);
    await t.pool.query("UPDATE articoli SET attivo = false WHERE id = $1", [a.LATTE]);
    try {
      expect(await codes("attivo=false")).toEqual(["LATTE"]);
      expect(await codes("attivo=true")).toEqual(["VITE-M6", "GUANTO", "GUANTO-M", "dado-m6"]);
      expect((await get("/articoli?cerca=latte")).body.articoli[0].attivo).toBe(false);
    } finally {
      await t.pool.query("UPDATE articoli SET attivo = true WHERE id = $1", [a.LATTE]);
    }
    const suppliers = (await get("/fornitori?cerca=fornitore%20fb")).body.fornitori;
    expect(suppliers).toEqual([{ id: f.B, codice: "FB", nome: "Fornitore FB", attivo: true, versione: expect.any(Number) }]);
    const warehouses = (await get("/magazzini?cerca=deposito")).body.magazzini;
    expect(warehouses).toEqual([
      {
        id: m2,
        codice: "DEPOSITO",
        nome: "Magazzino DEPOSITO",
        attivo: true,
        versione: expect.any(Number),
        gestione_ubicazioni: false,
        ubicazione_ricevimento: null,
      },
    ]);
    expect((await get("/magazzini?attivo=false")).body.magazzini).toEqual([]);
  });

  test("orders: the contract's shape, rows with numero_riga, label, chiusa and residua", async () => {
    const r = await get("/ordini-acquisto");
    expect(r.status).toBe(200);
    expect(r.body.ordini.map((x: any) => x.numero)).toEqual(["OA-1", "OB-1", "OA-2"]);
    expect(r.body.ordini[0]).toEqual({
      id: o.A1.id,
      numero: "OA-1",
      fornitore: { id: f.A, codice: "FA", nome: "Fornitore FA" },
      data: "2026-11-02",
      magazzino: m1,
      stato: "aperto",
      versione: expect.any(Number),
      righe: [
        {
          numero_riga: 1,
          riga: o.A1.righe[0],
          etichetta: `R${o.A1.righe[0]}`,
          articolo: { id: a.VITE, codice: "VITE-M6" },
          ordinata: "10",
          arrivata: "0",
          chiusa: "0",
          motivo_chiusura: null,
          residua: "10",
          prezzo: "0.25",
        },
        {
          numero_riga: 2,
          riga: o.A1.righe[1],
          etichetta: `R${o.A1.righe[1]}`,
          articolo: { id: a.GUANTO_M, codice: "GUANTO-M" },
          ordinata: "2.5",
          arrivata: "0",
          chiusa: "0",
          motivo_chiusura: null,
          residua: "2.5",
          prezzo: "3",
        },
      ],
    });
  });

  test("orders: a row closed short shows chiusa and a residua net of it", async () => {
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      await c.query("UPDATE righe_ordine SET arrivata = 1, chiusa = 2.5, motivo_chiusura = 'fine serie' WHERE id = $1", [o.B1.righe[0]]);
      const row = (await c.query("SELECT numero_riga FROM righe_ordine WHERE id = $1", [o.B1.righe[0]])).rows[0];
      expect(row.numero_riga).toBe(1);
      // The CHECK: nothing beyond what is ordered and not closed.
      await c.query("SAVEPOINT s");
      await expect(c.query("UPDATE righe_ordine SET chiusa = 3.5 WHERE id = $1", [o.B1.righe[0]])).rejects.toThrow(
        /righe_ordine_chiusa_check/,
      );
      await c.query("ROLLBACK TO SAVEPOINT s");
      await c.query("COMMIT");
    } finally {
      c.release();
    }
    const r = await get(`/ordini-acquisto?fornitore=${f.B}`);
    expect(r.body.ordini[0].righe[0]).toMatchObject({
      ordinata: "4",
      arrivata: "1",
      chiusa: "2.5",
      motivo_chiusura: "fine serie",
      residua: "0.5",
    });
    const feed = await get(`/ordini-acquisto?modificati_dopo=0&fornitore=${f.B}`);
    expect(feed.body.ordini[0].righe[0]).toMatchObject({ chiusa: "2.5", motivo_chiusura: "fine serie" });
    await t.pool.query("UPDATE righe_ordine SET arrivata = 0, chiusa = 0, motivo_chiusura = NULL WHERE id = $1", [o.B1.righe[0]]);
  });

  test("orders: fornitore, stato, da/a (inclusive, on the order date), cerca on number and supplier", async () => {
    const numbers = async (qs: string) => (await get(`/ordini-acquisto?${qs}`)).body.ordini.map((x: any) => x.numero);
    expect(await numbers(`fornitore=${f.A}`)).toEqual(["OA-1", "OA-2"]);
    expect(await numbers(`fornitore=${f.B}&stato=aperto`)).toEqual(["OB-1"]);
    expect(await numbers("stato=evaso")).toEqual([]);
    expect(await numbers("da=2026-11-10")).toEqual(["OB-1", "OA-2"]);
    expect(await numbers("a=2026-11-10")).toEqual(["OA-1", "OB-1"]);
    expect(await numbers("da=2026-11-03&a=2026-11-19")).toEqual(["OB-1"]);
    expect(await numbers("cerca=oa-")).toEqual(["OA-1", "OA-2"]);
    expect(await numbers("cerca=fornitore%20fb")).toEqual(["OB-1"]);
    const { seen } = await pageAll(`/ordini-acquisto?fornitore=${f.A}`, "ordini", "dopo", 0, 1);
    expect(seen.map((x) => x.numero)).toEqual(["OA-1", "OA-2"]);
  });

  test("numero_riga: given explicitly it is kept, and it is unique per order", async () => {
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      await c.query(
        "INSERT INTO righe_ordine (ordine_id, posizione, numero_riga, articolo_id, ordinata, prezzo) VALUES ($1, 2, 20, $2, 1, 1)",
        [o.A2.id, a.VITE],
      );
      const r = await c.query("SELECT numero_riga FROM righe_ordine WHERE ordine_id = $1 ORDER BY posizione", [o.A2.id]);
      expect(r.rows.map((x) => x.numero_riga)).toEqual([1, 20]);
      await expect(
        c.query(
          "INSERT INTO righe_ordine (ordine_id, posizione, numero_riga, articolo_id, ordinata, prezzo) VALUES ($1, 3, 20, $2, 1, 1)",
          [o.A2.id, a.VITE],
        ),
      ).rejects.toThrow(/righe_ordine_ordine_id_numero_riga_key/);
    } finally {
      await c.query("ROLLBACK");
      c.release();
    }
  });
});

describe("the change feed", () => {
  async function head(path: string, k: string) {
    const { cursor, seen } = await pageAll(path, k, "modificati_dopo", 0, 100);
    return { cursor, seen };
  }

  test("from 0 it returns every row once, ordered by versione, with cursore_versione and no id cursor", async () => {
    for (const [path, k] of LISTS) {
      const { seen, cursor } = await head(path, k);
      const versions = seen.map((x) => x.versione);
      expect(versions).toEqual([...versions].sort((x, y) => x - y));
      expect(new Set(seen.map((x) => x.id)).size).toBe(seen.length);
      expect(cursor).toBe(versions.at(-1));
      const r = await get(`${path}?modificati_dopo=0&limite=1`);
      expect(Object.keys(r.body).sort()).toEqual([k, "altri", "cursore_versione"].sort());
    }
  });

  test("an empty page answers the version sent", async () => {
    for (const [path, k] of LISTS) {
      const { cursor } = await head(path, k);
      expect(cursor).toBeGreaterThan(0);
      expect((await get(`${path}?modificati_dopo=${cursor}`)).body).toEqual({ [k]: [], altri: false, cursore_versione: cursor });
    }
  });

  test("a row changed gets a higher version and shows up after the old cursor, in its current state", async () => {
    const { cursor } = await head("/articoli", "articoli");
    const before = (await get(`/articoli?cerca=VITE-M6`)).body.articoli[0];
    expect((await get(`/articoli?modificati_dopo=${cursor}`)).body).toEqual({ articoli: [], altri: false, cursore_versione: cursor });

    await t.prisma.articolo.update({ where: { id: a.VITE }, data: { descrizione: "Vite M6 zincata" } });
    await t.prisma.articolo.update({ where: { id: a.VITE }, data: { unita: "CF" } });
    const r = await get(`/articoli?modificati_dopo=${cursor}`);
    expect(r.body.articoli).toEqual([{ ...before, descrizione: "Vite M6 zincata", unita: "CF", versione: expect.any(Number) }]);
    expect(r.body.articoli[0].versione).toBeGreaterThan(before.versione);
    expect(r.body.cursore_versione).toBe(r.body.articoli[0].versione);

    // What a client does not see does not move the feed: the latest arrival price, or a write of the same values.
    const now = r.body.cursore_versione;
    await t.pool.query("UPDATE articoli SET ultimo_prezzo_arrivo = 0.3 WHERE id = $1", [a.VITE]);
    await t.pool.query("UPDATE articoli SET descrizione = descrizione, unita = unita WHERE id = $1", [a.VITE]);
    await t.pool.query("UPDATE articoli SET versione = 1 WHERE id = $1", [a.VITE]);
    expect((await get(`/articoli?modificati_dopo=${now}`)).body.articoli).toEqual([]);
    expect((await get(`/articoli?cerca=VITE-M6`)).body.articoli[0].versione).toBe(now);

    // A new row, a deactivation, a variant's template: all in the feed, in version order.
    const nuovo = await seedArticle(t.prisma, "NUOVO");
    await t.prisma.articolo.update({ where: { id: a.DADO }, data: { attivo: false } });
    const feed = (await get(`/articoli?modificati_dopo=${now}`)).body.articoli;
    expect(feed.map((x: any) => [x.codice, x.attivo])).toEqual([
      ["NUOVO", true],
      ["dado-m6", false],
    ]);
    await t.prisma.articolo.update({ where: { id: a.DADO }, data: { attivo: true } });
    await t.prisma.articolo.update({ where: { id: nuovo.id }, data: { attivo: false } });
  });

  test("suppliers, warehouses and clients take new versions on change", async () => {
    for (const [path, k, table, id] of [
      ["/fornitori", "fornitori", "fornitori", () => f.B],
      ["/magazzini", "magazzini", "magazzini", () => m2],
    ] as const) {
      const { cursor } = await head(path, k);
      await t.pool.query(`UPDATE ${table} SET nome = nome || ' (nuovo)' WHERE id = $1`, [id()]);
      const r = await get(`${path}?modificati_dopo=${cursor}`);
      expect(r.body[k]).toEqual([expect.objectContaining({ id: id(), nome: expect.stringMatching(/\(nuovo\)$/) })]);
      expect(r.body[k][0].versione).toBeGreaterThan(cursor);
    }
    const c = await t.prisma.cliente.create({ data: { codice: "CL", ragione_sociale: "Rossi", data: new Date("2026-11-20T00:00:00Z") } });
    const v1 = (await t.pool.query("SELECT versione FROM clienti WHERE id = $1", [c.id])).rows[0].versione;
    await t.pool.query("UPDATE clienti SET email = 'a@b.it' WHERE id = $1", [c.id]);
    const v2 = (await t.pool.query("SELECT versione FROM clienti WHERE id = $1", [c.id])).rows[0].versione;
    expect(BigInt(v2)).toBeGreaterThan(BigInt(v1));
  });

  test("an order's version moves with an arrival on its rows (POST /arrivi) and with its cancellation", async () => {
    const { cursor } = await head("/ordini-acquisto", "ordini");
    const arrival = await rest("POST", "/arrivi", {
      key: writer,
      body: { magazzino: m1, ddt: "DDT-FEED", riga: o.A1.righe[0], quantita: 4, prezzo: "0.25" },
    });
    expect(arrival.status).toBe(201);
    const r = await get(`/ordini-acquisto?modificati_dopo=${cursor}`);
    expect(r.body.ordini).toHaveLength(1);
    expect(r.body.ordini[0]).toMatchObject({ id: o.A1.id, stato: "parziale" });
    expect(r.body.ordini[0].righe[0]).toMatchObject({ arrivata: "4", residua: "6" });
    expect(r.body.ordini[0].versione).toBeGreaterThan(cursor);

    const movimento = arrival.body.movimento;
    expect(movimento).toEqual(expect.any(Number));
    const undo = await rest("POST", `/arrivi/${movimento}/annulla`, { key: writer, body: {} });
    expect(undo.body).toMatchObject({ annullato: movimento, ordine: { id: o.A1.id, stato: "aperto" } });
    const after = await get(`/ordini-acquisto?modificati_dopo=${r.body.cursore_versione}`);
    expect(after.body.ordini).toHaveLength(1);
    expect(after.body.ordini[0]).toMatchObject({ id: o.A1.id, stato: "aperto" });
    expect(after.body.ordini[0].righe[0]).toMatchObject({ arrivata: "0", residua: "10" });
  });

  test("every update of an order takes a new version; a change to a row alone does not (its writer updates the order last)", async () => {
    const v = async () => Number((await t.pool.query("SELECT versione FROM ordini_acquisto WHERE id = $1", [o.A2.id])).rows[0].versione);
    const v0 = await v();
    await t.pool.query("UPDATE righe_ordine SET prezzo = 1 WHERE ordine_id = $1", [o.A2.id]);
    expect(await v()).toBe(v0);
    await t.pool.query("UPDATE ordini_acquisto SET stato = stato WHERE id = $1", [o.A2.id]);
    expect(await v()).toBeGreaterThan(v0);
  });

  test("filters apply to the feed too", async () => {
    const r = await get(`/ordini-acquisto?modificati_dopo=0&fornitore=${f.B}`);
    expect(r.body.ordini.map((x: any) => x.numero)).toEqual(["OB-1"]);
    const arts = await get("/articoli?modificati_dopo=0&cerca=guanto&limite=1");
    expect(arts.body.articoli).toHaveLength(1);
    expect(arts.body.altri).toBe(true);
    const next = await get(`/articoli?modificati_dopo=${arts.body.cursore_versione}&cerca=guanto&limite=1`);
    expect(next.body.articoli).toHaveLength(1);
    expect([arts.body.articoli[0].codice, next.body.articoli[0].codice].sort()).toEqual(["GUANTO", "GUANTO-M"]);
  });
});
