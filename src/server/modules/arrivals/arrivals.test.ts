import { beforeAll, describe, expect } from "vitest";
import { poolOf } from "../../db/client";
import type { TestDb } from "../../testing/db";
import { countRows, rest, seedArticle, seedKey, seedOrder, seedSupplier, seedWarehouse, stockOf } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { waitsWithoutHolding } from "../../testing/locks";
import { simpleQueriesIn, statementsIn, writesDuring } from "../../testing/wire";

let t: TestDb;
let key: string;
let reader: string;
let m1: number;
let m2: number;
const a: Record<string, number> = {};
const f: Record<string, number> = {};

test.beforeAll(async ({ db, apiKey }) => {
  t = db;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  m2 = (await seedWarehouse(t.prisma, "M2")).id;
  a.VITE = (await seedArticle(t.prisma, "VITE", { ean: "8001234567897" })).id;
  a.LATTE = (await seedArticle(t.prisma, "LATTE", { ean: "8000000000019", lotti: true })).id;
  const tpl = await seedArticle(t.prisma, "GUANTO", { haVarianti: true, ean: "8000000000026" });
  a.GUANTO_M = (await seedArticle(t.prisma, "GUANTO-M", { modelloId: tpl.id, ean: "8000000000033" })).id;
  a.GUANTO_L = (await seedArticle(t.prisma, "GUANTO-L", { modelloId: tpl.id, ean: "8000000000040" })).id;
  a.SOLO = (await seedArticle(t.prisma, "SOLO", { ean: "8000000000057" })).id;
  f.A = (await seedSupplier(t.prisma, "FA")).id;
  f.B = (await seedSupplier(t.prisma, "FB")).id;
  key = apiKey.chiave;
  reader = (await seedKey(t.prisma, ["lettura"])).chiave;
});

const search = (body: unknown, k = key) => rest("POST", "/arrivi/cerca", { key: k, body });
const arrive = (body: unknown, headers: Record<string, string> = {}) => rest("POST", "/arrivi", { key, body, headers });
const cancel = (id: number, body?: unknown) => rest("POST", `/arrivi/${id}/annulla`, { key, body, ...(body === undefined ? {} : {}) });

async function rowState(riga: number) {
  const { rows } = await t.pool.query(
    `SELECT r.arrivata::text AS arrivata, r.stato AS riga_stato, o.stato AS ordine_stato,
            COALESCE((SELECT sum(m.quantita) FROM movimenti m WHERE m.riferimento_tipo = 'riga_ordine' AND m.riferimento_id = r.id), 0)::text AS ledger
       FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id WHERE r.id = $1`,
    [riga],
  );
  return { arrivata: Number(rows[0].arrivata), riga: rows[0].riga_stato, ordine: rows[0].ordine_stato, ledger: Number(rows[0].ledger) };
}

describe("POST /arrivi/cerca", () => {
  let older: { id: number; righe: number[] };
  let newer: { id: number; righe: number[] };
  let other: { id: number; righe: number[] };
  beforeAll(async () => {
    newer = await seedOrder(t.prisma, {
      numero: "S-2",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-10",
      righe: [{ articolo: a.VITE!, quantita: "10", prezzo: "0.1" }],
    });
    older = await seedOrder(t.prisma, {
      numero: "S-1",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-01",
      righe: [
        { articolo: a.LATTE!, quantita: "5", prezzo: "1.2" },
        { articolo: a.VITE!, quantita: "3", prezzo: "0.09" },
        { articolo: a.GUANTO_M!, quantita: "4", prezzo: "7" },
      ],
    });
    other = await seedOrder(t.prisma, {
      numero: "S-3",
      fornitore: f.B!,
      magazzino: m2,
      data: "2026-11-15",
      righe: [{ articolo: a.SOLO!, quantita: "1", prezzo: "2" }],
    });
  });

  test("filters: fornitore gives its orders with rows, totals, and every row field", async () => {
    const r = await search({ fornitore: f.A });
    expect(r.status).toBe(200);
    expect(r.body.ordini.map((o: any) => o.numero)).toEqual(["S-2", "S-1"]);
    expect(r.body).toMatchObject({ totale_ordini: 2, totale_righe: 4, altri: false });
    const s1 = r.body.ordini[1];
    expect(s1).toMatchObject({
      id: older.id,
      data: "2026-11-01",
      stato: "aperto",
      fornitore: { id: f.A, nome: "Fornitore FA" },
      magazzino: m1,
    });
    expect(s1.righe[0]).toEqual({
      riga: older.righe[0],
      etichetta: `R${older.righe[0]}`,
      articolo: { id: a.LATTE, codice: "LATTE" },
      descrizione: "Articolo LATTE",
      ordinata: "5",
      arrivata: "0",
      residua: "5",
      prezzo_proposto: "1.2",
      chiede_lotto: true,
      registrati: [],
    });
  });

  test.each([
    ["articolo", () => ({ articolo: a.VITE }), ["S-2", "S-1"], 2],
    ["codice", () => ({ codice: "GUANTO-M" }), ["S-1"], 1],
    ["ordine", () => ({ ordine: older.id }), ["S-1"], 3],
    ["magazzino", () => ({ magazzino: m2 }), ["S-3"], 1],
    ["da", () => ({ da: "2026-11-10" }), ["S-2", "S-3"], 2],
    ["a", () => ({ a: "2026-11-05" }), ["S-1"], 3],
    ["da and a", () => ({ da: "2026-11-05", a: "2026-11-12" }), ["S-2"], 1],
  ])("filter %s", async (_n, body, numeri, righe) => {
    const r = await search(body());
    expect(r.body.ordini.map((o: any) => o.numero).sort()).toEqual([...numeri].sort());
    expect(r.body.totale_righe).toBe(righe);
  });

  test("limite and dopo page by order id", async () => {
    const p1 = await search({ limite: 2 });
    expect(p1.body.ordini).toHaveLength(2);
    expect(p1.body.altri).toBe(true);
    const p2 = await search({ limite: 2, dopo: p1.body.cursore });
    expect(p2.body.altri).toBe(false);
    expect([...p1.body.ordini, ...p2.body.ordini].map((o: any) => o.id)).toEqual([newer.id, older.id, other.id]);
    expect(p1.body.totale_ordini).toBe(3);
  });

  test("includi_evase shows complete rows, which are hidden by default", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "S-EV",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-16",
      righe: [{ articolo: a.SOLO!, quantita: "1", prezzo: "2" }],
    });
    await arrive({ magazzino: m1, ddt: "EV", riga: o.righe[0] });
    expect((await search({ ordine: o.id })).body.ordini).toEqual([]);
    const r = await search({ ordine: o.id, includi_evase: true });
    expect(r.body.ordini[0].righe[0]).toMatchObject({ arrivata: "1", residua: "0" });
    expect(r.body.ordini[0].stato).toBe("evaso");
  });

  test("an EAN gives the first expected row of that article, oldest order first", async () => {
    const r = await search({ barcode: "8001234567897" });
    expect(r.body.ordini).toHaveLength(1);
    expect(r.body.ordini[0].numero).toBe("S-1");
    expect(r.body.ordini[0].righe.map((x: any) => x.riga)).toEqual([older.righe[1]]);
    expect(r.body).toMatchObject({ totale_ordini: 2, totale_righe: 2 });
    expect(r.body.motivo).toBeUndefined();
  });

  test("a variant's EAN finds that variant; the template's EAN names the variants", async () => {
    const r = await search({ barcode: "8000000000033" });
    expect(r.body.ordini[0].righe[0].articolo).toEqual({ id: a.GUANTO_M, codice: "GUANTO-M" });
    const tpl = await search({ barcode: "8000000000026" });
    expect(tpl.body).toMatchObject({ ordini: [], motivo_codice: "non_atteso" });
    expect(tpl.body.motivo).toContain("GUANTO-L");
  });

  test("an order label R<riga> gives that row, even if not the oldest", async () => {
    const r = await search({ barcode: `R${newer.righe[0]}` });
    expect(r.body.ordini[0].numero).toBe("S-2");
    expect(r.body.ordini[0].righe[0].riga).toBe(newer.righe[0]);
  });

  test("GS1 strings find the GTIN and return the lot and expiry read", async () => {
    const bracketed = await search({ barcode: "(01)08000000000019(17)270301(10)L24-118" });
    expect(bracketed.body.ordini[0].righe[0].articolo.codice).toBe("LATTE");
    expect(bracketed.body.lettura).toEqual({ gtin: "08000000000019", lotto: "L24-118", scadenza: "2027-03-01" });
    const fnc1 = await search({ barcode: "]C1010800000000001910L7\x1d17270331" });
    expect(fnc1.body.lettura).toEqual({ gtin: "08000000000019", lotto: "L7", scadenza: "2027-03-31" });
  });

  test.each([
    ["a misread EAN (check digit)", "8001234567890", "codice_sconosciuto"],
    ["a valid EAN of no article", "4006381333931", "codice_sconosciuto"],
    ["an unknown label", "R999999", "codice_sconosciuto"],
    ["garbage", "???", "codice_sconosciuto"],
  ])("no match is not an error: %s", async (_n, barcode, motivo_codice) => {
    const r = await search({ barcode });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ordini: [], totale_ordini: 0, totale_righe: 0, motivo_codice });
    expect(r.body.motivo.length).toBeGreaterThan(20);
  });

  test("an article nothing is expected of: non_atteso; a complete row's label: riga_evasa", async () => {
    await seedArticle(t.prisma, "NIENTE", { ean: "8000000000064" });
    expect((await search({ barcode: "8000000000064" })).body.motivo_codice).toBe("non_atteso");
    const o = await seedOrder(t.prisma, {
      numero: "S-RE",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-17",
      righe: [{ articolo: a.SOLO!, quantita: "1", prezzo: "2" }],
    });
    await arrive({ magazzino: m1, ddt: "RE", riga: o.righe[0] });
    expect((await search({ barcode: `R${o.righe[0]}` })).body.motivo_codice).toBe("riga_evasa");
  });

  test("a typed code matches as written or in upper case, by barcode and by the codice filter; the exact code wins", async () => {
    const byBarcode = await search({ barcode: "guanto-m" });
    expect(byBarcode.body.motivo).toBeUndefined();
    expect(byBarcode.body.ordini[0].righe[0].articolo).toEqual({ id: a.GUANTO_M, codice: "GUANTO-M" });
    expect((await search({ barcode: "Vite" })).body.ordini[0].righe[0].articolo.codice).toBe("VITE");
    const byFilter = await search({ codice: "guanto-m" });
    expect(byFilter.body.ordini.map((o: any) => o.numero)).toEqual(["S-1"]);
    expect(byFilter.body.totale_righe).toBe(1);
    // Two codes that differ only in case: the one written exactly.
    const lower = await seedArticle(t.prisma, "solo");
    await seedOrder(t.prisma, {
      numero: "S-LOW",
      fornitore: f.B!,
      magazzino: m2,
      data: "2026-11-15",
      righe: [{ articolo: lower.id, quantita: "1", prezzo: "2" }],
    });
    expect((await search({ codice: "solo" })).body.ordini.map((o: any) => o.numero)).toEqual(["S-LOW"]);
    expect((await search({ codice: "SOLO" })).body.ordini.map((o: any) => o.numero)).toEqual(["S-3"]);
    expect((await search({ barcode: "solo" })).body.ordini[0].righe[0].articolo).toEqual({ id: lower.id, codice: "solo" });
    // Anything else is still unknown.
    expect((await search({ barcode: "guanto-x" })).body.motivo_codice).toBe("codice_sconosciuto");
  });

  test("a lettura key may search", async () => {
    expect((await search({ fornitore: f.A }, reader)).status).toBe(200);
  });

  test.each([
    ["fornitore_non_trovato", { fornitore: 9999 }, "fornitore"],
    ["magazzino_non_trovato", { magazzino: 9999 }, "magazzino"],
    // A search by barcode is no list: filters beside it, or a bad barcode, make a bad request (docs/api.md section 5).
    ["richiesta_non_valida", { barcode: "8001234567897", fornitore: 1 }, "fornitore"],
    ["richiesta_non_valida", { barcode: "" }, "barcode"],
    ["richiesta_non_valida", { barcode: 8001234567897 }, "barcode"],
    ["richiesta_non_valida", { barcode: "x".repeat(201) }, "barcode"],
    // A badly written filter is filtro_non_valido, always (docs/api.md section 2): one case per filter.
    ["filtro_non_valido", { fornitore: "1" }, "fornitore"],
    ["filtro_non_valido", { fornitore: 0 }, "fornitore"],
    ["filtro_non_valido", { articolo: -1 }, "articolo"],
    ["filtro_non_valido", { codice: "" }, "codice"],
    ["filtro_non_valido", { codice: "X".repeat(65) }, "codice"],
    ["filtro_non_valido", { ordine: 1.5 }, "ordine"],
    ["filtro_non_valido", { magazzino: "uno" }, "magazzino"],
    ["filtro_non_valido", { da: "2026-13-01" }, "da"],
    ["filtro_non_valido", { a: "2026-02-30" }, "a"],
    ["filtro_non_valido", { da: "2026-11-20", a: "2026-11-01" }, "da"],
    ["filtro_non_valido", { includi_evase: "true" }, "includi_evase"],
    ["filtro_non_valido", { limite: 101 }, "limite"],
    ["filtro_non_valido", { limite: 0 }, "limite"],
    ["filtro_non_valido", { dopo: -1 }, "dopo"],
    ["filtro_non_valido", { dopo: "5" }, "dopo"],
    // Beyond PostgreSQL's integer (found by the hostile-input suite, seed 954003194: it was a 500).
    ["filtro_non_valido", { dopo: 2_147_483_648 }, "dopo"],
    ["filtro_non_valido", { dopo: 4_294_967_296 }, "dopo"],
    ["filtro_non_valido", { filtro: 1 }, "filtro"],
  ])("refused: %s", async (codice, body, campo) => {
    const r = await search(body);
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe(codice);
    expect(r.body.campo ?? r.body.dettagli.map((d: any) => d.campo)).toContain(campo);
  });
});

describe("POST /arrivi and cancellation", () => {
  test("single row: 201, stock grows, the arrival shows in registrati, and its price becomes the suggested price", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-1",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.VITE!, quantita: "10", prezzo: "0.2" }],
    });
    const before = await stockOf(t, a.VITE!, m1);
    const r = await arrive({ magazzino: m1, ddt: "DDT-1", riga: o.righe[0], quantita: 4, prezzo: "0.25" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      movimento: expect.any(Number),
      operazione: expect.any(Number),
      riga: o.righe[0],
      arrivata: "4",
      residua: "6",
      ordine: { id: o.id, stato: "parziale" },
    });
    const after = await stockOf(t, a.VITE!, m1);
    expect(after.ledger - before.ledger).toBe(4);
    expect(after.balance).toBe(after.ledger);
    const found = await search({ ordine: o.id });
    expect(found.body.ordini[0].righe[0].registrati).toEqual([{ movimento: r.body.movimento, data: expect.any(String), quantita: "4" }]);
    const mv = await rest("GET", `/movimenti?operazione=${r.body.operazione}`, { key });
    expect(mv.body.movimenti[0]).toMatchObject({
      origine: "arrivo",
      natura: "carico",
      prezzo: "0.25",
      causale: "DDT DDT-1",
      riferimento: { tipo: "riga_ordine", id: o.righe[0] },
    });
    const load = await rest("POST", "/movimenti", {
      key,
      body: { natura: "carico", magazzino: m1, righe: [{ codice: "VITE", quantita: 1 }] },
    });
    const lm = await rest("GET", `/movimenti?operazione=${load.body.operazione}`, { key });
    expect(lm.body.movimenti[0].prezzo).toBe("0.25");
  });

  test("an arrival and its cancellation end in one write with their COMMIT; with a key, the stored response carries it", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-FINE",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.SOLO!, quantita: "10", prezzo: "0.3" }],
    });
    const lastWrite = async <T>(call: () => Promise<T>) => {
      const { answer, writes } = await writesDuring(poolOf(t.prisma)!, call);
      return { answer, text: writes.at(-1)! };
    };
    // The movement, the article's last price, the order locked, its state recomputed: then COMMIT.
    const plain = await lastWrite(() => arrive({ magazzino: m1, ddt: "DDT-FINE", riga: o.righe[0], quantita: 1 }));
    expect(plain.answer.status).toBe(201);
    expect(statementsIn(plain.text)).toBe(4);
    expect(simpleQueriesIn(plain.text)).toEqual(["COMMIT"]);
    // With an Idempotency-Key the work's end does not commit: the stored response, written after it, does.
    const keyed = await lastWrite(() =>
      arrive({ magazzino: m1, ddt: "DDT-FINE", riga: o.righe[0], quantita: 1 }, { "Idempotency-Key": "fine-1" }),
    );
    expect(keyed.answer.status).toBe(201);
    expect(statementsIn(keyed.text)).toBe(1);
    expect(simpleQueriesIn(keyed.text)).toEqual(["COMMIT"]);
    expect((await rowState(o.righe[0]!)).arrivata).toBe(2);
    const replay = await arrive({ magazzino: m1, ddt: "DDT-FINE", riga: o.righe[0], quantita: 1 }, { "Idempotency-Key": "fine-1" });
    expect(replay.headers.get("Idempotency-Replayed")).toBe("true");
    // The reversing movement, the order locked, its state recomputed: then COMMIT.
    const undone = await lastWrite(() => cancel(plain.answer.body.movimento));
    expect(undone.answer.status).toBe(200);
    expect(statementsIn(undone.text)).toBe(3);
    expect(simpleQueriesIn(undone.text)).toEqual(["COMMIT"]);
    expect(await rowState(o.righe[0]!)).toEqual({ arrivata: 1, riga: "parziale", ordine: "parziale", ledger: 1 });
  });

  test("quantita omitted registers the whole remaining quantity at the proposed price; a second call with the same DDT joins its operation", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-2",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [
        { articolo: a.VITE!, quantita: "7.5", prezzo: "0.3" },
        { articolo: a.SOLO!, quantita: "2", prezzo: "1" },
      ],
    });
    const first = await arrive({ magazzino: m1, ddt: "DDT-2", riga: o.righe[0] });
    expect(first.body).toMatchObject({ arrivata: "7.5", residua: "0", ordine: { stato: "parziale" } });
    const second = await arrive({ magazzino: m1, ddt: "DDT-2", riga: o.righe[1] });
    expect(second.body.operazione).toBe(first.body.operazione);
    expect(second.body.ordine.stato).toBe("evaso");
    const mv = await rest("GET", `/movimenti?operazione=${first.body.operazione}`, { key });
    expect(mv.body.movimenti.map((m: any) => m.prezzo)).toEqual(["0.3", "1"]);
  });

  test("several rows: per-row outcomes, a refused row never blocks the others, one operation", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-3",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [
        { articolo: a.VITE!, quantita: "5", prezzo: "0.2" },
        { articolo: a.LATTE!, quantita: "5", prezzo: "1" },
      ],
    });
    const r = await arrive({
      magazzino: m1,
      ddt: "DDT-3",
      righe: [
        { riga: o.righe[0], quantita: 2 },
        { riga: o.righe[1], quantita: 1 },
        { riga: 999999 },
        { riga: o.righe[1], quantita: 3, lotto: "LT1", scadenza: "2027-05-01" },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ registrate: 2, rifiutate: 2 });
    expect(r.body.righe.map((x: any) => [x.indice, x.esito, x.errore?.codice])).toEqual([
      [0, "registrata", undefined],
      [1, "rifiutata", "lotto_obbligatorio"],
      [2, "rifiutata", "riga_non_trovata"],
      [3, "registrata", undefined],
    ]);
    expect(r.body.righe[3]).toMatchObject({ riga: o.righe[1], arrivata: "3", residua: "2", movimento: expect.any(Number) });
    const mv = await rest("GET", `/movimenti?operazione=${r.body.operazione}`, { key });
    expect(mv.body.movimenti).toHaveLength(2);
    const lots = await rest("GET", `/articoli/${a.LATTE}/lotti?magazzino=${m1}`, { key });
    expect(lots.body.lotti).toContainEqual({ lotto: "LT1", scadenza: "2027-05-01", residua: "3" });
  });

  test("one DDT, two suppliers' orders: the rows of another supplier than the first row's are fornitore_diverso", async () => {
    const oa = await seedOrder(t.prisma, {
      numero: "FD-A",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.VITE!, quantita: "5", prezzo: "0.2" }],
    });
    const ob = await seedOrder(t.prisma, {
      numero: "FD-B",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [
        { articolo: a.SOLO!, quantita: "5", prezzo: "1" },
        { articolo: a.VITE!, quantita: "5", prezzo: "1" },
      ],
    });
    const r = await arrive({
      magazzino: m1,
      ddt: "DDT-FD",
      righe: [{ riga: 888888 }, { riga: ob.righe[0], quantita: 1 }, { riga: oa.righe[0], quantita: 1 }, { riga: ob.righe[1], quantita: 1 }],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ registrate: 2, rifiutate: 2 });
    expect(r.body.righe.map((x: any) => [x.indice, x.esito, x.errore?.codice])).toEqual([
      [0, "rifiutata", "riga_non_trovata"],
      [1, "registrata", undefined],
      [2, "rifiutata", "fornitore_diverso"],
      [3, "registrata", undefined],
    ]);
    expect(r.body.righe[2].errore.messaggio).toContain("FA");
    expect(r.body.righe[2].errore.messaggio).toContain("FB");
    expect((await rowState(oa.righe[0]!)).arrivata).toBe(0);
    const op = await t.pool.query("SELECT fornitore_id FROM operazioni WHERE id = $1", [r.body.operazione]);
    expect(op.rows[0].fornitore_id).toBe(f.B);
  });

  test("rows of an order for another warehouse are magazzino_diverso; the others arrive", async () => {
    const o1 = await seedOrder(t.prisma, {
      numero: "MD-1",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.VITE!, quantita: "5", prezzo: "0.2" }],
    });
    const o2 = await seedOrder(t.prisma, {
      numero: "MD-2",
      fornitore: f.A!,
      magazzino: m2,
      data: "2026-11-18",
      righe: [{ articolo: a.VITE!, quantita: "5", prezzo: "0.2" }],
    });
    const stock = await stockOf(t, a.VITE!, m2);
    const r = await arrive({
      magazzino: m2,
      ddt: "DDT-MD",
      righe: [
        { riga: o1.righe[0], quantita: 1 },
        { riga: o2.righe[0], quantita: 2 },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.righe.map((x: any) => [x.esito, x.errore?.codice])).toEqual([
      ["rifiutata", "magazzino_diverso"],
      ["registrata", undefined],
    ]);
    expect(r.body.righe[0].errore.messaggio).toContain("M1");
    expect((await rowState(o1.righe[0]!)).arrivata).toBe(0);
    expect((await stockOf(t, a.VITE!, m2)).ledger).toBe(stock.ledger + 2);
  });

  test("an expiry other than the lot's is scadenza_diversa naming both dates, also between rows of one request", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "SD-1",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.LATTE!, quantita: "20", prezzo: "1" }],
    });
    expect(
      (await arrive({ magazzino: m1, ddt: "DDT-SD", riga: o.righe[0], quantita: 1, lotto: "SDA", scadenza: "2027-02-01" })).status,
    ).toBe(201);
    const single = await arrive({ magazzino: m1, ddt: "DDT-SD", riga: o.righe[0], quantita: 1, lotto: "SDA", scadenza: "2027-03-01" });
    expect(single.status).toBe(422);
    expect(single.body.codice).toBe("scadenza_diversa");
    expect(single.body.messaggio).toContain("2027-02-01");
    expect(single.body.messaggio).toContain("2027-03-01");
    const r = await arrive({
      magazzino: m1,
      ddt: "DDT-SD",
      righe: [
        { riga: o.righe[0], quantita: 1, lotto: "SDA", scadenza: "2027-02-01" },
        { riga: o.righe[0], quantita: 1, lotto: "SDA" },
        { riga: o.righe[0], quantita: 1, lotto: "SDB", scadenza: "2027-05-05" },
        { riga: o.righe[0], quantita: 1, lotto: "SDB", scadenza: "2027-06-06" },
        { riga: o.righe[0], quantita: 1, lotto: "SDA", scadenza: "2028-01-01" },
      ],
    });
    expect(r.body.righe.map((x: any) => [x.esito, x.errore?.codice])).toEqual([
      ["registrata", undefined],
      ["registrata", undefined],
      ["registrata", undefined],
      ["rifiutata", "scadenza_diversa"],
      ["rifiutata", "scadenza_diversa"],
    ]);
    expect((await rowState(o.righe[0]!)).arrivata).toBe(4);
    const lots = await rest("GET", `/articoli/${a.LATTE}/lotti?magazzino=${m1}`, { key });
    expect(lots.body.lotti.filter((l: any) => l.lotto.startsWith("SD"))).toEqual([
      { lotto: "SDA", scadenza: "2027-02-01", residua: "3" },
      { lotto: "SDB", scadenza: "2027-05-05", residua: "1" },
    ]);
  });

  describe("single-row refusals: 422 with the row code, nothing written", () => {
    let o: { id: number; righe: number[] };
    beforeAll(async () => {
      o = await seedOrder(t.prisma, {
        numero: "R-REF",
        fornitore: f.A!,
        magazzino: m1,
        data: "2026-11-18",
        righe: [
          { articolo: a.VITE!, quantita: "2", prezzo: "0.2" },
          { articolo: a.LATTE!, quantita: "2", prezzo: "1" },
          { articolo: a.SOLO!, quantita: "1", prezzo: "1" },
        ],
      });
      await arrive({ magazzino: m1, ddt: "DDT-REF", riga: o.righe[2] });
    });
    test.each([
      ["riga_non_trovata", () => ({ riga: 987654 })],
      ["riga_evasa", () => ({ riga: o.righe[2] })],
      ["quantita_non_valida", () => ({ riga: o.righe[0], quantita: 0 })],
      ["quantita_non_valida", () => ({ riga: o.righe[0], quantita: 0.0001 })],
      ["quantita_eccessiva", () => ({ riga: o.righe[0], quantita: 2.001 })],
      ["lotto_obbligatorio", () => ({ riga: o.righe[1], quantita: 1 })],
      ["lotto_non_previsto", () => ({ riga: o.righe[0], quantita: 1, lotto: "X" })],
      ["prezzo_non_valido", () => ({ riga: o.righe[0], quantita: 1, prezzo: "abc" })],
      ["magazzino_diverso", () => ({ magazzino: m2, riga: o.righe[0], quantita: 1 })],
    ])("%s", async (codice, fields) => {
      const before = await countRows(t, "movimenti");
      const lots = await countRows(t, "lotti");
      const r = await arrive({ magazzino: m1, ddt: "DDT-X", ...fields() });
      expect(r.status).toBe(422);
      expect(r.body.codice).toBe(codice);
      expect(r.body.messaggio.length).toBeGreaterThan(20);
      expect(await countRows(t, "movimenti")).toBe(before);
      expect(await countRows(t, "lotti")).toBe(lots);
      expect((await rowState(o.righe[0]!)).arrivata).toBe(0);
    });
    test.each([
      ["magazzino_non_trovato", () => ({ magazzino: 999, ddt: "X", riga: o.righe[0] })],
      ["troppe_righe", () => ({ magazzino: m1, ddt: "X", righe: Array.from({ length: 501 }, () => ({ riga: o.righe[0] })) })],
      ["richiesta_non_valida", () => ({ magazzino: m1, ddt: "X" })],
      ["richiesta_non_valida", () => ({ magazzino: m1, ddt: "X", riga: o.righe[0], righe: [{ riga: o.righe[0] }] })],
      ["richiesta_non_valida", () => ({ magazzino: m1, riga: o.righe[0] })],
      ["richiesta_non_valida", () => ({ magazzino: m1, ddt: "X", riga: o.righe[0], quantita: "1" })],
    ])("whole request: %s", async (codice, body) => {
      const before = await countRows(t, "movimenti");
      const r = await arrive(body());
      expect(r.status).toBe(422);
      expect(r.body.codice).toBe(codice);
      expect(await countRows(t, "movimenti")).toBe(before);
    });
  });

  test("Idempotency-Key: the retry of a single arrival replays its 201", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-IK",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.VITE!, quantita: "5", prezzo: "0.2" }],
    });
    const first = await arrive({ magazzino: m1, ddt: "IK", riga: o.righe[0], quantita: 1 }, { "idempotency-key": "arrivo-ik" });
    const again = await arrive({ magazzino: m1, ddt: "IK", riga: o.righe[0], quantita: 1 }, { "idempotency-key": "arrivo-ik" });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect((await rowState(o.righe[0]!)).arrivata).toBe(1);
  });

  test("the state table forwards and backwards: aperto → parziale → evaso → parziale → aperto", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-ST",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [
        { articolo: a.VITE!, quantita: "2", prezzo: "0.2" },
        { articolo: a.LATTE!, quantita: "1", prezzo: "1" },
      ],
    });
    const state = async () => (await rowState(o.righe[0]!)).ordine;
    expect(await state()).toBe("aperto");
    const x = await arrive({ magazzino: m1, ddt: "ST", riga: o.righe[0], quantita: 1 });
    expect(x.body.ordine.stato).toBe("parziale");
    expect((await rowState(o.righe[0]!)).riga).toBe("parziale");
    const y = await arrive({ magazzino: m1, ddt: "ST", riga: o.righe[0] });
    const z = await arrive({ magazzino: m1, ddt: "ST", riga: o.righe[1], lotto: "LST" });
    expect(z.body.ordine.stato).toBe("evaso");
    expect((await rowState(o.righe[0]!)).riga).toBe("evasa");
    expect((await cancel(z.body.movimento)).body.ordine.stato).toBe("parziale");
    expect((await cancel(y.body.movimento)).body.ordine.stato).toBe("parziale");
    const last = await cancel(x.body.movimento);
    expect(last.body.ordine.stato).toBe("aperto");
    expect((await rowState(o.righe[0]!)).riga).toBe("aperta");
    expect(await state()).toBe("aperto");
  });

  test("cancellation: reversing movement, row reopened, lot given back, arrival gone from registrati", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-AN",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [{ articolo: a.LATTE!, quantita: "6", prezzo: "1" }],
    });
    const before = await stockOf(t, a.LATTE!, m1);
    const r = await arrive({ magazzino: m1, ddt: "AN", riga: o.righe[0], quantita: 4, lotto: "LAN", scadenza: "2027-06-01" });
    const c = await rest("POST", `/arrivi/${r.body.movimento}/annulla`, { key });
    expect(c.status).toBe(200);
    expect(c.body).toEqual({
      annullato: r.body.movimento,
      movimento: expect.any(Number),
      riga: { riga: o.righe[0], arrivata: "0", residua: "6" },
      ordine: { id: o.id, stato: "aperto" },
    });
    const mv = await rest("GET", `/movimenti?dopo=${c.body.movimento - 1}&limite=1`, { key });
    expect(mv.body.movimenti[0]).toMatchObject({
      origine: "annullamento",
      annulla: r.body.movimento,
      quantita: "-4",
      lotto: "LAN",
      riferimento: { tipo: "riga_ordine", id: o.righe[0] },
    });
    expect((await stockOf(t, a.LATTE!, m1)).ledger).toBe(before.ledger);
    const lots = await rest("GET", `/articoli/${a.LATTE}/lotti?magazzino=${m1}`, { key });
    expect(lots.body.lotti.find((l: any) => l.lotto === "LAN")).toBeUndefined();
    const found = await search({ ordine: o.id });
    expect(found.body.ordini[0].righe[0].registrati).toEqual([]);
  });

  test("cancellation refusals: 404, arrivo_gia_annullato, lotto_consumato; no body and {} accepted, other bodies refused", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "R-AR",
      fornitore: f.A!,
      magazzino: m1,
      data: "2026-11-18",
      righe: [
        { articolo: a.LATTE!, quantita: "6", prezzo: "1" },
        { articolo: a.VITE!, quantita: "6", prezzo: "1" },
      ],
    });
    const lot = await arrive({ magazzino: m1, ddt: "AR", riga: o.righe[0], quantita: 4, lotto: "LAR" });
    const plain = await arrive({ magazzino: m1, ddt: "AR", riga: o.righe[1], quantita: 2 });
    const load = await rest("POST", "/movimenti", {
      key,
      body: { natura: "carico", magazzino: m1, righe: [{ codice: "VITE", quantita: 1 }] },
    });
    expect((await rest("POST", `/arrivi/${load.body.righe[0].movimento}/annulla`, { key })).status).toBe(404);
    expect((await rest("POST", "/arrivi/99999999/annulla", { key })).body.codice).toBe("non_trovato");
    expect((await rest("POST", `/arrivi/abc/annulla`, { key })).status).toBe(422);
    expect((await rest("POST", `/arrivi/${plain.body.movimento}/annulla`, { key, body: { motivo: "x" } })).body.codice).toBe(
      "richiesta_non_valida",
    );
    expect((await rest("POST", `/arrivi/${plain.body.movimento}/annulla`, { key, body: {} })).status).toBe(200);
    const twice = await rest("POST", `/arrivi/${plain.body.movimento}/annulla`, { key });
    expect(twice.status).toBe(409);
    expect(twice.body.codice).toBe("arrivo_gia_annullato");
    await rest("POST", "/movimenti", {
      key,
      body: { natura: "scarico", magazzino: m1, righe: [{ codice: "LATTE", quantita: 3, lotto: "LAR" }] },
    });
    const before = await countRows(t, "movimenti");
    const consumed = await rest("POST", `/arrivi/${lot.body.movimento}/annulla`, { key });
    expect(consumed.status).toBe(409);
    expect(consumed.body.codice).toBe("lotto_consumato");
    expect(consumed.body.messaggio).toContain("LAR");
    expect(await countRows(t, "movimenti")).toBe(before);
    expect((await rowState(o.righe[0]!)).arrivata).toBe(4);
  });
});

describe("invariants under concurrency", () => {
  test("20 parallel arrivals of 1 on a row of 10: 10 accepted, 10 quantita_eccessiva, arrivata 10", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "C-1",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-19",
      righe: [{ articolo: a.SOLO!, quantita: "10", prezzo: "1" }],
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => arrive({ magazzino: m1, ddt: `C1-${i}`, riga: o.righe[0], quantita: 1 })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = results.filter((r) => r.status === 422);
    expect(refused).toHaveLength(10);
    expect(refused.every((r) => r.body.codice === "quantita_eccessiva")).toBe(true);
    const s = await rowState(o.righe[0]!);
    expect(s).toMatchObject({ arrivata: 10, ledger: 10, ordine: "evaso" });
  });

  test("arrivals and cancellations racing: arrivata equals the sum of registrati, stock equals the ledger", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "C-2",
      fornitore: f.B!,
      magazzino: m2,
      data: "2026-11-19",
      righe: [
        { articolo: a.SOLO!, quantita: "30", prezzo: "1" },
        { articolo: a.VITE!, quantita: "30", prezzo: "1" },
      ],
    });
    const first = await Promise.all(
      Array.from({ length: 12 }, (_, i) => arrive({ magazzino: m2, ddt: `C2`, riga: o.righe[i % 2], quantita: 2 })),
    );
    const ids = first.filter((r) => r.status === 201).map((r) => r.body.movimento);
    await Promise.all([
      ...ids.slice(0, 6).map((id) => cancel(id)),
      ...Array.from({ length: 12 }, (_, i) => arrive({ magazzino: m2, ddt: `C2b`, righe: [{ riga: o.righe[i % 2], quantita: 1.5 }] })),
    ]);
    const found = await search({ ordine: o.id, includi_evase: true });
    for (const row of found.body.ordini[0].righe) {
      const sum = row.registrati.reduce((acc: number, x: any) => acc + Number(x.quantita), 0);
      expect(Number(row.arrivata)).toBeCloseTo(sum, 6);
      expect((await rowState(row.riga)).ledger).toBeCloseTo(Number(row.arrivata), 6);
    }
    for (const art of [a.SOLO!, a.VITE!]) {
      const s = await stockOf(t, art, m2);
      expect(s.balance).toBe(s.ledger);
    }
  });

  test("cancelling the same arrival twice in parallel cancels it once", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "C-3",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-19",
      righe: [{ articolo: a.SOLO!, quantita: "5", prezzo: "1" }],
    });
    const r = await arrive({ magazzino: m1, ddt: "C3", riga: o.righe[0], quantita: 5 });
    const results = await Promise.all(Array.from({ length: 6 }, () => cancel(r.body.movimento)));
    expect(results.filter((x) => x.status === 200)).toHaveLength(1);
    expect(results.filter((x) => x.status === 409).every((x) => x.body.codice === "arrivo_gia_annullato")).toBe(true);
    expect(await rowState(o.righe[0]!)).toMatchObject({ arrivata: 0, ledger: 0, ordine: "aperto" });
  });

  test("one request naming the same row twice: the second sees the first's quantity", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "C-5",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-19",
      righe: [{ articolo: a.LATTE!, quantita: "10", prezzo: "1" }],
    });
    const riga = o.righe[0]!;
    const r = await arrive({
      magazzino: m1,
      ddt: "C5",
      righe: [
        { riga, quantita: 6, lotto: "L5" },
        { riga, quantita: 6, lotto: "L5" },
        { riga, quantita: 4, lotto: "L5" },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.righe.map((x: any) => (x.esito === "registrata" ? `${x.arrivata}/${x.residua}` : x.errore.codice))).toEqual([
      "6/4",
      "quantita_eccessiva",
      "10/0",
    ]);
    expect(await rowState(riga)).toMatchObject({ arrivata: 10, ledger: 10, riga: "evasa" });
    const { rows } = await t.pool.query(
      "SELECT residua::text AS r FROM lotti WHERE articolo_id = $1 AND magazzino_id = $2 AND codice = 'L5'",
      [a.LATTE, m1],
    );
    expect(Number(rows[0].r)).toBe(10);
  });

  test("a multi-row arrival locks its order rows in id order, not in the rows' order", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "C-6",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-19",
      righe: [
        { articolo: a.SOLO!, quantita: "5", prezzo: "1" },
        { articolo: a.VITE!, quantita: "5", prezzo: "1" },
      ],
    });
    const [low, high] = [...o.righe].sort((x, y) => x - y) as [number, number];
    const row = (id: number) => ({ sql: "SELECT id FROM righe_ordine WHERE id = $1", params: [id] });
    const {
      waited,
      free,
      result: r,
    } = await waitsWithoutHolding(t.pool, {
      hold: row(low),
      probe: row(high),
      table: "righe_ordine",
      send: () =>
        arrive({
          magazzino: m1,
          ddt: "C6",
          righe: [
            { riga: high, quantita: 1 },
            { riga: low, quantita: 1 },
          ],
        }),
    });
    // Waiting on the lower row, it holds nothing yet: the higher row is free.
    expect(waited).toBe(true);
    expect(free).toBe(true);
    expect(r.status).toBe(200);
    expect(r.body.righe.map((x: any) => x.esito)).toEqual(["registrata", "registrata"]);
    expect(r.body.righe[0].movimento).toBeLessThan(r.body.righe[1].movimento);
  });

  test("the last rows of one order arriving together leave it evaso", async () => {
    const o = await seedOrder(t.prisma, {
      numero: "C-4",
      fornitore: f.B!,
      magazzino: m1,
      data: "2026-11-19",
      righe: Array.from({ length: 6 }, () => ({ articolo: a.SOLO!, quantita: "1", prezzo: "1" })),
    });
    await Promise.all(o.righe.map((riga, i) => arrive({ magazzino: m1, ddt: `C4-${i}`, riga })));
    expect((await rowState(o.righe[0]!)).ordine).toBe("evaso");
  });
});
