import { describe, expect } from "vitest";
import { getConfig } from "../../config";
import { businessDate } from "../../lib/dates";
import { rest, stockOf } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { a, c, key, m1, numbersOf, operator, refusal, seedSalesBeforeAll, sell, t, type Tipo, vite } from "../../testing/sales-fixtures";

/** A sales document written (shape, movements, lots, exact totals, idempotency) and its numbering per type and year. */

seedSalesBeforeAll();

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
