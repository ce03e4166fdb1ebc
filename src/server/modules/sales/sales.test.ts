import { beforeAll, beforeEach, describe, expect } from "vitest";
import { getConfig } from "../../config";
import { toErrorResponse } from "../../trpc/errors";
import { businessDate } from "../../lib/dates";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedWarehouse, stockOf } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";

let t: TestDb;
let key: string;
let operator: Actor;
let m1: number;
const a: Record<string, number> = {};
const c: Record<string, number> = {};

async function seedClient(codice: string, ragione_sociale: string) {
  return (await t.prisma.cliente.create({ data: { codice, ragione_sociale, data: new Date("2026-01-01T00:00:00Z") } })).id;
}

test.beforeAll(async ({ db, apiKey }) => {
  t = db;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  a.VITE = (await seedArticle(t.prisma, "VITE-M6", { ean: "8001234567897", costo: "0.12" })).id;
  a.LATTE = (await seedArticle(t.prisma, "LATTE", { lotti: true })).id;
  a.DEC = (await seedArticle(t.prisma, "DEC")).id;
  a.SPENTO = (await t.prisma.articolo.update({ where: { id: (await seedArticle(t.prisma, "SPENTO")).id }, data: { attivo: false } })).id;
  const tpl = await seedArticle(t.prisma, "GUANTO", { haVarianti: true });
  a.GUANTO_M = (await seedArticle(t.prisma, "GUANTO-M", { modelloId: tpl.id, ean: "8001234567880" })).id;
  a.GUANTO_L = (await seedArticle(t.prisma, "GUANTO-L", { modelloId: tpl.id })).id;
  c.ROSSI = await seedClient("ROSSI", "Rossi S.r.l.");
  c.BIANCHI = await seedClient("BIANCHI", "Bianchi S.p.A.");
  key = apiKey.chiave;
  // Sales documents are a manager's: the user at the counter is a responsabile.
  const user = await t.prisma.utente.create({ data: { username: "banco", password_hash: "-", ruolo: "responsabile" } });
  operator = { kind: "utente", id: user.id, username: user.username, ruolo: "responsabile" };
  const load = await rest("POST", "/movimenti", {
    key,
    body: {
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "LATTE", quantita: 10, lotto: "L1" },
        { codice: "LATTE", quantita: 5, lotto: "L2" },
      ],
    },
  });
  expect(load.body.scritte).toBe(2);
});

type Row = { codice?: string; ean?: string; quantita: number; prezzo: string; sconto?: string; aliquota_iva: string; lotto?: string };
type Tipo = "ddt" | "fattura" | "scontrino";

const ui = (headers: Record<string, string> = {}) => caller(t, operator, "trpc", headers);
const sell = (
  body: { tipo?: Tipo; cliente?: number; magazzino?: number; data?: string; causale?: string; righe: Row[] },
  headers: Record<string, string> = {},
) => ui(headers).sales.create({ tipo: "ddt", cliente: c.ROSSI!, magazzino: m1, ...body });
const vite = (quantita = 1): Row => ({ codice: "VITE-M6", quantita, prezzo: "1", aliquota_iva: "22" });

/** What the screens receive for a refusal: the same mapping the UI's error formatter applies. */
async function refusal(p: Promise<unknown>) {
  const e = await p.then(
    () => expect.fail("il documento doveva essere rifiutato"),
    (err: unknown) => err,
  );
  return toErrorResponse(e, { requestId: "test", isQuery: false, log: false });
}

async function numbersOf(tipo: Tipo, anno: number): Promise<number[]> {
  const { rows } = await t.pool.query("SELECT progressivo FROM documenti_vendita WHERE tipo = $1 AND anno = $2 ORDER BY progressivo", [
    tipo,
    anno,
  ]);
  return rows.map((r) => r.progressivo);
}

/** Everything a document writes; a refused document must leave all of it as it was. */
async function footprint() {
  const { rows } = await t.pool.query(`
    SELECT (SELECT count(*) FROM documenti_vendita)::int AS documenti,
           (SELECT count(*) FROM righe_documento_vendita)::int AS righe,
           (SELECT count(*) FROM movimenti)::int AS movimenti,
           (SELECT count(*) FROM operazioni)::int AS operazioni,
           (SELECT COALESCE(sum(ultimo), 0) FROM numeratori)::int AS numeri,
           (SELECT string_agg(codice || '=' || residua::text, ',' ORDER BY id) FROM lotti) AS lotti,
           (SELECT string_agg(articolo_id || '=' || quantita::text, ',' ORDER BY articolo_id, magazzino_id) FROM giacenze) AS giacenze`);
  return rows[0];
}

describe("sales.create", () => {
  test("a document in the contract's shape, with its sale movements in the same transaction", async () => {
    const before = await stockOf(t, a.VITE!, m1);
    const doc = await sell({
      tipo: "ddt",
      data: "2026-11-20",
      righe: [{ codice: "VITE-M6", quantita: 10, prezzo: "0.5", aliquota_iva: "22" }],
    });
    expect(doc).toEqual({
      id: expect.any(Number),
      numero: "2026/000001",
      tipo: "ddt",
      data: "2026-11-20",
      cliente: { id: c.ROSSI, ragione_sociale: "Rossi S.r.l." },
      magazzino: m1,
      righe: [
        {
          articolo: { id: a.VITE, codice: "VITE-M6" },
          descrizione: "Articolo VITE-M6",
          quantita: "10",
          prezzo: "0.5",
          sconto: "0",
          aliquota_iva: "22",
          importo: "5",
          lotto: null,
          movimento: expect.any(Number),
        },
      ],
      imponibile: "5",
      imposta: "1.1",
      totale: "6.1",
    });

    const after = await stockOf(t, a.VITE!, m1);
    expect(after.ledger - before.ledger).toBe(-10);
    expect(after.balance).toBe(after.ledger);

    const movements = await rest("GET", "/movimenti?origine=vendita", { key });
    const m = movements.body.movimenti.find((x: any) => x.id === doc.righe[0]!.movimento);
    expect(m).toMatchObject({
      origine: "vendita",
      natura: "scarico",
      data: "2026-11-20",
      causale: "DDT 2026/000001",
      magazzino: m1,
      articolo: { id: a.VITE, codice: "VITE-M6" },
      quantita: "-10",
      // The ledger values stock at cost; the sale price stays on the document.
      prezzo: "0.12",
      lotto: null,
      riferimento: { tipo: "documento_vendita", id: doc.id },
    });
    const { rows } = await t.pool.query("SELECT operazione_id, utente_id FROM documenti_vendita WHERE id = $1", [doc.id]);
    expect(rows[0]).toEqual({ operazione_id: m.operazione, utente_id: operator.id });

    const listed = await rest("GET", `/documenti-vendita?dopo=${doc.id - 1}&limite=1`, { key });
    expect(listed.body.documenti).toEqual([doc]);
  });

  test("a lot-handled article is sold from the named lot; the row and the movement carry it", async () => {
    const doc = await sell({
      tipo: "scontrino",
      data: "2026-11-21",
      causale: "Vendita al banco",
      righe: [{ codice: "LATTE", quantita: 4, prezzo: "1.2", aliquota_iva: "4", lotto: "L1" }],
    });
    expect(doc.righe[0]).toMatchObject({ lotto: "L1", quantita: "4", importo: "4.8" });
    expect(doc).toMatchObject({ imponibile: "4.8", imposta: "0.19", totale: "4.99" });
    const lots = await rest("GET", `/articoli/${a.LATTE}/lotti?magazzino=${m1}`, { key });
    expect(lots.body.lotti).toEqual([
      { lotto: "L1", scadenza: null, residua: "6" },
      { lotto: "L2", scadenza: null, residua: "5" },
    ]);
    const movements = await rest("GET", "/movimenti?origine=vendita", { key });
    expect(movements.body.movimenti.find((x: any) => x.id === doc.righe[0]!.movimento)).toMatchObject({
      lotto: "L1",
      quantita: "-4",
      causale: "Vendita al banco",
    });
  });

  test("totals are exact where float arithmetic is not: 3 × 0.1, 0.1 + 0.2, half-up of .005, VAT per rate", async () => {
    // In floats: 3 * 0.1 = 0.30000000000000004, 0.1 + 0.1 + 0.1 likewise, (1.005).toFixed(2) = "1.00".
    expect(3 * 0.1).not.toBe(0.3);
    expect((1.005).toFixed(2)).toBe("1.00");
    const doc = await sell({
      tipo: "fattura",
      data: "2026-11-22",
      righe: [
        { codice: "DEC", quantita: 1, prezzo: "0.1", aliquota_iva: "22" },
        { codice: "DEC", quantita: 1, prezzo: "0.1", aliquota_iva: "22" },
        { codice: "DEC", quantita: 1, prezzo: "0.1", aliquota_iva: "22" },
        { codice: "DEC", quantita: 3, prezzo: "0.1", aliquota_iva: "22" },
        { codice: "DEC", quantita: 1, prezzo: "0.2", aliquota_iva: "22.00" },
        { codice: "DEC", quantita: 1, prezzo: "1.005", aliquota_iva: "10" },
        { codice: "DEC", quantita: 2.5, prezzo: "19.99", sconto: "10", aliquota_iva: "10" },
      ],
    });
    expect(doc.righe.map((r) => r.importo)).toEqual(["0.1", "0.1", "0.1", "0.3", "0.2", "1.01", "44.98"]);
    expect(doc.righe[6]).toMatchObject({ quantita: "2.5", prezzo: "19.99", sconto: "10", aliquota_iva: "10" });
    expect(doc.righe[4]!.aliquota_iva).toBe("22");
    // 22%: 0.8 × 0.22 = 0.176 → 0.18 (rounding each row would give 0.17); 10%: 45.99 × 0.1 = 4.599 → 4.6.
    expect(doc).toMatchObject({ imponibile: "46.79", imposta: "4.78", totale: "51.57" });
    const { rows } = await t.pool.query("SELECT imponibile::text, imposta::text, totale::text FROM documenti_vendita WHERE id = $1", [
      doc.id,
    ]);
    expect(rows[0]).toEqual({ imponibile: "46.79", imposta: "4.78", totale: "51.57" });
    const stock = await stockOf(t, a.DEC!, m1);
    expect(stock).toEqual({ ledger: -10.5, balance: -10.5 });
  });

  test("the article may be named by EAN; the document keeps the article's description", async () => {
    const doc = await sell({ data: "2026-11-23", righe: [{ ean: "8001234567880", quantita: 2, prezzo: "7", aliquota_iva: "22" }] });
    expect(doc.righe[0]).toMatchObject({ articolo: { id: a.GUANTO_M, codice: "GUANTO-M" }, descrizione: "Articolo GUANTO-M" });
  });

  test("the same Idempotency-Key twice gives the same document and takes one number", async () => {
    const body = { tipo: "ddt" as const, data: "2035-01-10", righe: [vite()] };
    const first = await sell(body, { "idempotency-key": "vendita-1" });
    const second = await sell(body, { "idempotency-key": "vendita-1" });
    expect(second).toEqual(first);
    expect(await numbersOf("ddt", 2035)).toEqual([1]);
  });

  test("not exposed over REST: POST /documenti-vendita is 405", async () => {
    const r = await rest("POST", "/documenti-vendita", { key, body: { tipo: "ddt", cliente: c.ROSSI, magazzino: m1, righe: [vite()] } });
    expect(r.status).toBe(405);
    expect(r.body.codice).toBe("metodo_non_consentito");
  });
});

describe("numbering per type and year, without gaps", () => {
  test("each type and year counts on its own, from 1", async () => {
    const numero = async (tipo: Tipo, data: string) => (await sell({ tipo, data, righe: [vite()] })).numero;
    expect(await numero("ddt", "2030-03-01")).toBe("2030/000001");
    expect(await numero("ddt", "2030-03-02")).toBe("2030/000002");
    expect(await numero("fattura", "2030-03-02")).toBe("2030/000001");
    expect(await numero("ddt", "2031-01-01")).toBe("2031/000001");
    expect(await numero("ddt", "2030-12-31")).toBe("2030/000003");
    expect(await numero("scontrino", "2030-06-01")).toBe("2030/000001");
  });

  test("without data the document takes today's business date in the service time zone", async () => {
    const today = businessDate(getConfig().SERVICE_TIME_ZONE);
    const doc = await sell({ tipo: "scontrino", righe: [vite()] });
    expect(doc.data).toBe(today);
    expect(doc.numero).toMatch(new RegExp(`^${today.slice(0, 4)}/\\d{6}$`));
  });

  test("10 documents created concurrently get 1..10 exactly", async () => {
    const docs = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        sell({ tipo: "fattura", cliente: i % 2 ? c.ROSSI! : c.BIANCHI!, data: "2032-05-05", righe: [vite(i + 1)] }),
      ),
    );
    expect(docs.map((d) => d.numero).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `2032/${String(i + 1).padStart(6, "0")}`));
    expect(await numbersOf("fattura", 2032)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const { rows } = await t.pool.query("SELECT ultimo FROM numeratori WHERE tipo = 'fattura' AND anno = 2032");
    expect(rows).toEqual([{ ultimo: 10 }]);
  });

  test("a refused document does not consume a number", async () => {
    expect((await sell({ tipo: "ddt", data: "2033-01-01", righe: [vite()] })).numero).toBe("2033/000001");
    const r = await refusal(sell({ tipo: "ddt", data: "2033-01-02", righe: [vite(), { ...vite(), codice: "NON-ESISTE" }] }));
    expect(r.body.codice).toBe("articolo_non_trovato");
    expect((await sell({ tipo: "ddt", data: "2033-01-03", righe: [vite()] })).numero).toBe("2033/000002");
    expect(await numbersOf("ddt", 2033)).toEqual([1, 2]);
    // The first document of a type and year refused: no counter is even created.
    await refusal(sell({ tipo: "fattura", data: "2034-01-01", righe: [{ ...vite(), lotto: "X" }] }));
    const { rows } = await t.pool.query("SELECT * FROM numeratori WHERE anno = 2034");
    expect(rows).toEqual([]);
  });
});

describe("refusals: the document is all-or-nothing, nothing is written", () => {
  let before: Awaited<ReturnType<typeof footprint>>;
  beforeEach(async () => {
    before = await footprint();
  });

  // Row 0 is valid and takes from lot L1: its decrement must roll back with the refusal.
  const good: Row = { codice: "LATTE", quantita: 1, prezzo: "1", aliquota_iva: "4", lotto: "L1" };
  test.each<[string, Row]>([
    ["articolo_non_trovato", { codice: "NON-ESISTE", quantita: 1, prezzo: "1", aliquota_iva: "22" }],
    ["articolo_non_trovato", { ean: "0000000000000", quantita: 1, prezzo: "1", aliquota_iva: "22" }],
    ["articolo_con_varianti", { codice: "GUANTO", quantita: 1, prezzo: "1", aliquota_iva: "22" }],
    ["articolo_ambiguo", { codice: "VITE-M6", ean: "8001234567880", quantita: 1, prezzo: "1", aliquota_iva: "22" }],
    ["quantita_non_valida", { codice: "VITE-M6", quantita: 0, prezzo: "1", aliquota_iva: "22" }],
    ["quantita_non_valida", { codice: "VITE-M6", quantita: -2, prezzo: "1", aliquota_iva: "22" }],
    ["quantita_non_valida", { codice: "VITE-M6", quantita: 1.0001, prezzo: "1", aliquota_iva: "22" }],
    ["prezzo_non_valido", { codice: "VITE-M6", quantita: 1, prezzo: "1,50", aliquota_iva: "22" }],
    ["prezzo_non_valido", { codice: "VITE-M6", quantita: 1, prezzo: "1.23456", aliquota_iva: "22" }],
    ["prezzo_non_valido", { codice: "VITE-M6", quantita: 1, prezzo: "-1", aliquota_iva: "22" }],
    ["lotto_obbligatorio", { codice: "LATTE", quantita: 1, prezzo: "1", aliquota_iva: "4" }],
    ["lotto_non_previsto", { codice: "VITE-M6", quantita: 1, prezzo: "1", aliquota_iva: "22", lotto: "L1" }],
    ["lotto_non_trovato", { codice: "LATTE", quantita: 1, prezzo: "1", aliquota_iva: "4", lotto: "ZZ" }],
    ["lotto_insufficiente", { codice: "LATTE", quantita: 1000, prezzo: "1", aliquota_iva: "4", lotto: "L1" }],
  ])("%s", async (codice, bad) => {
    const r = await refusal(sell({ righe: [good, bad] }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      codice,
      campo: "righe[1]",
      dettagli: [{ campo: "righe[1]", messaggio: expect.stringMatching(/^Riga 2: .{15,}/) }],
    });
    expect(r.body.messaggio).toContain("riga 2");
    expect(await footprint()).toEqual(before);
  });

  test("an inactive article is not sold: articolo_non_trovato saying it is deactivated, nothing written", async () => {
    const r = await refusal(sell({ righe: [good, { codice: "SPENTO", quantita: 1, prezzo: "1", aliquota_iva: "22" }] }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ codice: "articolo_non_trovato", campo: "righe[1]" });
    expect(r.body.dettagli![0]!.messaggio).toContain("disattivato");
    expect(await footprint()).toEqual(before);
  });

  test("several refused rows: the code is the first row's, dettagli lists each one", async () => {
    const r = await refusal(
      sell({
        righe: [
          good,
          { codice: "LATTE", quantita: 1, prezzo: "1", aliquota_iva: "4", lotto: "ZZ" },
          vite(),
          { codice: "NON-ESISTE", quantita: 1, prezzo: "1", aliquota_iva: "22" },
        ],
      }),
    );
    // Row 1's lot is checked after row 3's article, yet the code is row 1's: the first in the document.
    expect(r.body.codice).toBe("lotto_non_trovato");
    expect(r.body.campo).toBeUndefined();
    expect(r.body.dettagli!.map((d) => d.campo)).toEqual(["righe[1]", "righe[3]"]);
    expect(r.body.messaggio).toContain("'dettagli'");
    expect(await footprint()).toEqual(before);
  });

  test.each([
    ["magazzino_non_trovato", { magazzino: 999 }, "magazzino", /magazzino 999/],
    ["richiesta_non_valida", { cliente: 999 }, "cliente", /cliente 999 non esiste/],
  ])("whole document refused: %s", async (codice, patch, campo, message) => {
    const r = await refusal(ui().sales.create({ tipo: "ddt", cliente: c.ROSSI!, magazzino: m1, righe: [good], ...patch }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ codice, campo, messaggio: expect.stringMatching(message) });
    expect(await footprint()).toEqual(before);
  });

  test("troppe_righe over 500 rows", async () => {
    const r = await refusal(sell({ righe: Array.from({ length: 501 }, () => vite()) }));
    expect(r.body).toMatchObject({ codice: "troppe_righe", campo: "righe" });
    expect(await footprint()).toEqual(before);
  });

  test.each<[string, Record<string, unknown>, string]>([
    ["tipo sconosciuto", { tipo: "bolla" }, "tipo"],
    ["righe vuote", { righe: [] }, "righe"],
    ["data impossibile", { data: "2026-02-30" }, "data"],
    ["campo sconosciuto", { note: "x" }, "note"],
    ["aliquota mancante", { righe: [{ codice: "VITE-M6", quantita: 1, prezzo: "1" }] }, "righe[0].aliquota_iva"],
    ["aliquota oltre 100", { righe: [{ ...vite(), aliquota_iva: "100.01" }] }, "righe[0].aliquota_iva"],
    ["aliquota con 3 decimali", { righe: [{ ...vite(), aliquota_iva: "22.125" }] }, "righe[0].aliquota_iva"],
    ["sconto oltre 100", { righe: [{ ...vite(), sconto: "101" }] }, "righe[0].sconto"],
    ["sconto negativo", { righe: [{ ...vite(), sconto: "-5" }] }, "righe[0].sconto"],
    ["sconto numerico", { righe: [{ ...vite(), sconto: 5 }] }, "righe[0].sconto"],
    ["prezzo numerico", { righe: [{ ...vite(), prezzo: 1.5 }] }, "righe[0].prezzo"],
    ["quantita come stringa", { righe: [{ ...vite(), quantita: "2" }] }, "righe[0].quantita"],
    ["riga senza articolo", { righe: [{ quantita: 1, prezzo: "1", aliquota_iva: "22" }] }, "righe[0].codice"],
  ])("richiesta_non_valida: %s", async (_name, patch, campo) => {
    const input = { tipo: "ddt", cliente: c.ROSSI, magazzino: m1, righe: [vite()], ...patch };
    const r = await refusal(ui().sales.create(input as never));
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("richiesta_non_valida");
    const fields = r.body.campo ? [r.body.campo] : r.body.dettagli!.map((d) => d.campo);
    expect(fields).toContain(campo);
    expect(await footprint()).toEqual(before);
  });

  test("a total beyond what the document can hold is refused, not a database error", async () => {
    const r = await refusal(sell({ righe: [{ codice: "VITE-M6", quantita: 999999999999, prezzo: "99999999999999", aliquota_iva: "22" }] }));
    expect(r.body).toMatchObject({ codice: "richiesta_non_valida", campo: "righe" });
    expect(await footprint()).toEqual(before);
  });
});

describe("GET /documenti-vendita", () => {
  const docs: { id: number; cliente: number; data: string }[] = [];
  let l1: number;
  let l2: number;
  beforeAll(async () => {
    l1 = await seedClient("LISTA1", "Lista Uno");
    l2 = await seedClient("LISTA2", "Lista Due");
    for (const [cliente, data] of [
      [l1, "2027-01-10"],
      [l2, "2027-02-15"],
      [l1, "2027-02-10"],
      [l2, "2027-02-20"],
      [l1, "2027-03-10"],
    ] as const) {
      const d = await sell({ cliente, data, righe: [vite(1), { codice: "DEC", quantita: 2, prezzo: "3", aliquota_iva: "10" }] });
      docs.push({ id: d.id, cliente, data });
    }
  });
  const get = (query: string) => rest("GET", `/documenti-vendita${query}`, { key });
  const ids = (body: any) => body.documenti.map((d: any) => d.id);

  test("cliente filter, rows of every document in position order", async () => {
    const r = await get(`?cliente=${l1}`);
    expect(r.status).toBe(200);
    expect(ids(r.body)).toEqual(docs.filter((d) => d.cliente === l1).map((d) => d.id));
    expect(r.body.altri).toBe(false);
    expect(r.body.cursore).toBe(docs[4]!.id);
    for (const d of r.body.documenti) {
      expect(d.cliente).toEqual({ id: l1, ragione_sociale: "Lista Uno" });
      expect(d.righe.map((x: any) => [x.articolo.codice, x.importo])).toEqual([
        ["VITE-M6", "1"],
        ["DEC", "6"],
      ]);
      expect(d).toMatchObject({ imponibile: "7", imposta: "0.82", totale: "7.82" });
    }
  });

  test("da and a are inclusive, on the document's date", async () => {
    expect(ids((await get(`?cliente=${l1}&da=2027-02-10`)).body)).toEqual([docs[2]!.id, docs[4]!.id]);
    expect(ids((await get(`?cliente=${l1}&da=2027-02-01&a=2027-02-10`)).body)).toEqual([docs[2]!.id]);
    expect(ids((await get("?da=2027-02-10&a=2027-02-20")).body)).toEqual([docs[1]!.id, docs[2]!.id, docs[3]!.id]);
    expect(ids((await get(`?cliente=${l2}&a=2027-02-15`)).body)).toEqual([docs[1]!.id]);
  });

  test("paging: altri and cursore; an empty page gives back the cursor it was sent", async () => {
    const p1 = await get(`?cliente=${l1}&limite=2`);
    expect(ids(p1.body)).toEqual([docs[0]!.id, docs[2]!.id]);
    expect(p1.body).toMatchObject({ altri: true, cursore: docs[2]!.id });
    const p2 = await get(`?cliente=${l1}&limite=2&dopo=${p1.body.cursore}`);
    expect(ids(p2.body)).toEqual([docs[4]!.id]);
    expect(p2.body).toMatchObject({ altri: false, cursore: docs[4]!.id });
    const p3 = await get(`?cliente=${l1}&limite=2&dopo=${p2.body.cursore}`);
    expect(p3.body).toEqual({ documenti: [], altri: false, cursore: docs[4]!.id });
  });

  test.each([
    ["limite=0", "limite"],
    ["limite=101", "limite"],
    ["limite=abc", "limite"],
    ["dopo=-1", "dopo"],
    ["da=2027-13-01", "da"],
    ["a=20270101", "a"],
    ["da=2027-03-01&a=2027-02-01", "da"],
    ["cliente=abc", "cliente"],
    ["cliente=0", "cliente"],
    ["cliente=1&cliente=2", "cliente"],
    ["tipo=ddt", "tipo"],
  ])("filtro_non_valido: %s", async (query, campo) => {
    const r = await get(`?${query}`);
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("filtro_non_valido");
    expect(r.body.campo).toBe(campo);
  });

  test("a document committed after a higher one is not skipped by a reader paging with its cursor", async () => {
    const start = (await get(`?dopo=${docs[4]!.id}`)).body.cursore;
    const held = await t.pool.connect();
    try {
      await held.query("BEGIN");
      const low: number = (
        await held.query(
          `INSERT INTO documenti_vendita (tipo, anno, progressivo, numero, data, cliente_id, magazzino_id, imponibile, imposta, totale)
           VALUES ('ddt', 1999, 1, '1999/000001', '1999-01-01', $1, $2, 0, 0, 0) RETURNING id`,
          [c.ROSSI, m1],
        )
      ).rows[0].id;
      const high = await sell({ data: "2027-06-01", righe: [vite()] });
      expect(high.id).toBeGreaterThan(low);

      // Without the sync bound a reader would see the higher id now, store it, and never see the lower.
      const naive = await t.pool.query("SELECT id FROM documenti_vendita WHERE id > $1 ORDER BY id", [start]);
      expect(naive.rows.map((r) => r.id)).toEqual([high.id]);

      const during = await get(`?dopo=${start}`);
      expect(during.body).toEqual({ documenti: [], altri: true, cursore: start });

      await held.query("COMMIT");
      const after = await get(`?dopo=${during.body.cursore}`);
      expect(ids(after.body)).toEqual([low, high.id]);
      expect(after.body.documenti[0]).toMatchObject({ numero: "1999/000001", righe: [] });
      expect(after.body.altri).toBe(false);
    } finally {
      await held.query("ROLLBACK").catch(() => {});
      held.release();
    }
  });
});
