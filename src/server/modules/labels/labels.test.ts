import { expect } from "vitest";
import { PDFDocument } from "pdf-lib";
import { parseScan } from "../../../lib/barcode";
import { handleRestRequest } from "../../http/rest-handler";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedKey, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { decodePdf } from "./decode-testing";

/**
 * The labels' GETs (docs/api.md section 13) through the REST facade: the file comes back, its barcodes are
 * decoded by a real decoder and fed to the service's own scan (POST /arrivi/cerca, the shared reader),
 * which finds the same article, lot, expiry, location or row. Every refusal code is provoked.
 */

let t: TestDb;
let key: string;
let mag: number;
let art: number;
let noEan: number;
let order: { id: number; righe: number[] };

test.beforeAll(async ({ db, key: k }) => {
  t = db;
  key = k;
  mag = (await seedWarehouse(t.prisma, "MAG1")).id;
  art = (await seedArticle(t.prisma, "ACQ-05", { ean: "8001234567897", lotti: true })).id;
  noEan = (await seedArticle(t.prisma, "SENZA-EAN")).id;
  const f = (await seedSupplier(t.prisma, "F1")).id;
  order = await seedOrder(t.prisma, {
    numero: "OA-1",
    fornitore: f,
    magazzino: mag,
    data: "2026-11-20",
    righe: [
      { articolo: art, quantita: "100", prezzo: "1" },
      { articolo: noEan, quantita: "5", prezzo: "1" },
    ],
  });
  await t.pool.query(
    `INSERT INTO ubicazioni (magazzino_id, codice, descrizione, tipo)
     SELECT $1, 'B-' || lpad(n::text, 3, '0'), 'Scaffale B ' || n, 'stoccaggio' FROM generate_series(1, 12) n`,
    [mag],
  );
});

async function file(path: string, k = key) {
  const res = await handleRestRequest(new Request(`http://localhost/api/v1${path}`, { headers: { authorization: `Bearer ${k}` } }));
  const bytes = new Uint8Array(await res.arrayBuffer());
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    headers: res.headers,
    bytes,
    json: () => JSON.parse(Buffer.from(bytes).toString()),
  };
}

const search = (barcode: string) => rest("POST", "/arrivi/cerca", { key, body: { barcode } });

test("lot label: PDF 100x50 by default, its GS1-128 found by the arrivals search with the same article, lot and expiry", async () => {
  const res = await file(`/etichette/lotto?articolo=${art}&lotto=L24-118&scadenza=2027-03-01&quantita=24`);
  expect(res.status).toBe(200);
  expect(res.type).toBe("application/pdf");
  const page = (await PDFDocument.load(res.bytes)).getPage(0).getSize();
  expect([Math.round((page.width * 25.4) / 72), Math.round((page.height * 25.4) / 72)]).toEqual([100, 50]);
  const [reads] = await decodePdf(res.bytes);
  expect(reads).toHaveLength(1);
  const found = await search(reads![0]!);
  expect(found.status).toBe(200);
  expect(found.body.ordini[0].righe[0].articolo.id).toBe(art);
  expect(found.body.lettura).toEqual({ gtin: "08001234567897", lotto: "L24-118", scadenza: "2027-03-01" });
});

test("lot label as ZPL: ^XA…^XZ, ^PQ copies, at the size asked", async () => {
  const res = await file(`/etichette/lotto?articolo=${art}&lotto=L1&formato=zpl&dimensione=50x25&copie=3`);
  expect(res.status).toBe(200);
  expect(res.type).toBe("text/plain; charset=utf-8");
  const zpl = Buffer.from(res.bytes).toString();
  expect(zpl).toMatch(/^\^XA\n[\s\S]*\^PW400\n\^LL200[\s\S]*\^PQ3,0,1,Y\n\^XZ\n$/);
});

test("an article without an EAN: Code 128 of its code, which the search finds", async () => {
  const res = await file(`/etichette/lotto?articolo=${noEan}&lotto=L1&dimensione=100x150`);
  const [reads] = await decodePdf(res.bytes);
  expect(reads).toEqual(["SENZA-EAN"]);
  expect(parseScan(reads![0]!)).toEqual({ kind: "codice", codice: "SENZA-EAN" });
  const found = await search(reads![0]!);
  expect(found.body.ordini[0]?.righe[0]?.articolo.id).toBe(noEan);
});

test("lotto_non_gs1: the label is drawn, the lot beside the GS1 symbol in Code 128, and the answer says so", async () => {
  const res = await file(`/etichette/lotto?articolo=${art}&lotto=${encodeURIComponent("LOTTO N°7")}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("x-avviso")).toBe("lotto_non_gs1");
  const [reads] = await decodePdf(res.bytes);
  expect(reads!.map((r) => parseScan(r))).toContainEqual({ kind: "gs1", gtin: "08001234567897", lotto: null, scadenza: null });
});

test("lot label refusals: articolo_non_trovato, filtro_non_valido, permesso_negato", async () => {
  expect((await file(`/etichette/lotto?articolo=999999&lotto=L1`)).json()).toMatchObject({
    codice: "articolo_non_trovato",
    campo: "articolo",
  });
  for (const q of ["formato=png", "dimensione=10x10", "copie=101", "copie=0", "scadenza=2027-02-30", "quantita=1.2345", "colore=rosso"]) {
    const res = await file(`/etichette/lotto?articolo=${art}&lotto=L1&${q}`);
    expect([res.status, res.json().codice], q).toEqual([422, "filtro_non_valido"]);
  }
  expect((await file(`/etichette/lotto?articolo=${art}`)).json().codice).toBe("filtro_non_valido");
  const none = (await seedKey(t.prisma, ["webhook"])).chiave;
  expect((await file(`/etichette/lotto?articolo=${art}&lotto=L1`, none)).json().codice).toBe("permesso_negato");
});

test("location labels: one, or a range ordered by code, each scanning back to its code", async () => {
  const one = await file(`/etichette/ubicazione?magazzino=${mag}&ubicazione=B-003`);
  expect((await decodePdf(one.bytes)).flat()).toEqual(["B-003"]);
  const range = await file(`/etichette/ubicazione?magazzino=${mag}&da=B-002&a=B-005&dimensione=50x25`);
  const pages = await decodePdf(range.bytes);
  expect(pages).toEqual([["B-002"], ["B-003"], ["B-004"], ["B-005"]]);
  expect(pages.flat().map((r) => parseScan(r))).toContainEqual({ kind: "codice", codice: "B-004" });
  const zpl = Buffer.from((await file(`/etichette/ubicazione?magazzino=${mag}&da=B-001&a=B-012&formato=zpl`)).bytes).toString();
  expect(zpl.match(/\^XA/g)).toHaveLength(12);
});

test("location label refusals", async () => {
  const code = async (q: string) => (await file(`/etichette/ubicazione?${q}`)).json();
  expect(await code(`magazzino=999999&ubicazione=B-001`)).toMatchObject({ codice: "magazzino_non_trovato" });
  expect(await code(`magazzino=${mag}&ubicazione=Z-9`)).toMatchObject({ codice: "ubicazione_non_trovata", campo: "ubicazione" });
  expect(await code(`magazzino=${mag}&da=Z-1&a=Z-9`)).toMatchObject({ codice: "ubicazione_non_trovata" });
  expect(await code(`magazzino=${mag}&ubicazione=B-001&da=B-001`)).toMatchObject({ codice: "filtro_non_valido", campo: "ubicazione" });
  expect(await code(`magazzino=${mag}&da=B-001`)).toMatchObject({ codice: "filtro_non_valido", campo: "a" });
  expect(await code(`magazzino=${mag}&da=B-009&a=B-001`)).toMatchObject({ codice: "filtro_non_valido", campo: "da" });
  const other = (await seedWarehouse(t.prisma, "GRANDE")).id;
  await t.pool.query(
    `INSERT INTO ubicazioni (magazzino_id, codice, tipo) SELECT $1, 'X-' || lpad(n::text, 4, '0'), 'stoccaggio' FROM generate_series(1, 501) n`,
    [other],
  );
  expect(await code(`magazzino=${other}&da=X-0001&a=X-9999`)).toMatchObject({ codice: "troppe_righe" });
});

test("order row labels: an A4 sheet of ten, each R<riga> found by the search as that row; thermal sizes as ZPL", async () => {
  const res = await file(`/ordini-acquisto/${order.id}/etichette?dimensione=a4`);
  expect(res.type).toBe("application/pdf");
  const doc = await PDFDocument.load(res.bytes);
  expect(Math.round(doc.getPage(0).getSize().width)).toBe(595);
  const reads = (await decodePdf(res.bytes)).flat();
  expect(reads.sort()).toEqual([`R${order.righe[0]}`, `R${order.righe[1]}`, "8001234567897"].sort());
  const found = await search(`R${order.righe[1]}`);
  expect(found.body.ordini[0].righe[0]).toMatchObject({ riga: order.righe[1], etichetta: `R${order.righe[1]}` });
  const zpl = Buffer.from((await file(`/ordini-acquisto/${order.id}/etichette?formato=zpl`)).bytes).toString();
  expect(zpl.match(/\^XA/g)).toHaveLength(2);
  expect(zpl).toContain(`^FD>:R${order.righe[0]}^FS`);
  expect(zpl).toContain("^BEN,");
  expect((await file(`/ordini-acquisto/${order.id}/etichette?formato=zpl&dimensione=a4`)).json()).toMatchObject({
    codice: "filtro_non_valido",
    campo: "dimensione",
  });
  expect((await file(`/ordini-acquisto/999999/etichette`)).status).toBe(404);
});

test("pallet label: (00) SSCC, and the content's (02) (17) (37) (10) when one article; both read back by the search", async () => {
  const upsert = await rest("POST", "/ordini-acquisto", {
    key,
    body: {
      ordini: [
        {
          numero: "OA-COLLO",
          fornitore: "F1",
          data: "2026-11-25",
          magazzino: "MAG1",
          righe: [
            { numero_riga: 1, articolo: "ACQ-05", quantita: 100, prezzo: "1" },
            { numero_riga: 2, articolo: "SENZA-EAN", quantita: 10, prezzo: "1" },
          ],
        },
      ],
    },
  });
  expect(upsert.status).toBe(200);
  const notice = await rest("POST", "/avvisi-spedizione", {
    key,
    body: {
      avvisi: [
        {
          numero: "ASN-77",
          fornitore: "F1",
          magazzino: "MAG1",
          colli: [
            {
              sscc: "080012340000000011",
              righe: [{ ordine: "OA-COLLO", numero_riga: 1, quantita: 40, lotto: "L24-118", scadenza: "2027-03-01" }],
            },
            {
              sscc: "080012340000000028",
              righe: [
                { ordine: "OA-COLLO", numero_riga: 1, quantita: 10, lotto: "L1", scadenza: "2027-03-01" },
                { ordine: "OA-COLLO", numero_riga: 2, quantita: 5 },
              ],
            },
          ],
        },
      ],
    },
  });
  expect(notice.status, JSON.stringify(notice.body)).toBe(200);
  const res = await file("/etichette/collo/080012340000000011?dimensione=100x150");
  expect(res.type).toBe("application/pdf");
  const [reads] = await decodePdf(res.bytes);
  expect(reads).toContain("]C100080012340000000011");
  const pallet = await search("]C100080012340000000011");
  expect(pallet.body.collo).toMatchObject({ sscc: "080012340000000011", avviso: { numero: "ASN-77" } });
  const content = reads!.find((r) => r.startsWith("]C102"))!;
  expect(content).toBe("]C10208001234567897172703013740\x1d10L24-118");
  expect(parseScan(content)).toEqual({ kind: "gs1", gtin: "08001234567897", lotto: "L24-118", scadenza: "2027-03-01" });
  // Two articles: the SSCC alone.
  const [mixed] = await decodePdf((await file("/etichette/collo/080012340000000028")).bytes);
  expect(mixed).toEqual(["]C100080012340000000028"]);
  const zpl = Buffer.from((await file("/etichette/collo/080012340000000011?formato=zpl")).bytes).toString();
  expect(zpl).toContain("^FD>;>800080012340000000011^FS");
  expect((await file("/etichette/collo/080012340000000012")).json()).toMatchObject({ codice: "sscc_non_valido", campo: "sscc" });
  const unknown = await file("/etichette/collo/080012340000000035");
  expect([unknown.status, unknown.json().codice]).toEqual([404, "collo_non_trovato"]);
});

test("the OpenAPI document describes the files", async () => {
  const doc = (await rest("GET", "/openapi.json")).body;
  expect(Object.keys(doc.paths["/etichette/lotto"].get.responses["200"].content)).toEqual(["application/pdf", "text/plain"]);
  expect(doc.paths["/etichette/ubicazione"].get.responses["422"].description).toContain("ubicazione_non_trovata");
});
