import { mkdirSync } from "node:fs";
import { PDFDocument } from "pdf-lib";
import { describe, expect, test } from "vitest";
import { parseScan } from "../../../lib/barcode";
import { decodePdf } from "./decode-testing";
import { type Label, SIZES, lotLabel, locationLabel, palletLabel, rowLabel } from "./label-model";
import { renderPdf } from "./pdf";
import { gs1Code128, renderZpl, zplText } from "./zpl";

/**
 * The labels without the database: every kind drawn as PDF at every size, rasterised and decoded by a
 * real decoder, the reads fed to the service's own scan parsing; ZPL checked for its structure.
 * The pages are kept in scratch/labels/ (gitignored) for a person to look at.
 */

const OUT = "scratch/labels";
mkdirSync(OUT, { recursive: true });

const articolo = { codice: "ACQ-05", descrizione: "Acqua minerale naturale 0,5 l × 24", ean: "8001234567897" };
const lot = lotLabel({ articolo, lotto: "L24-118", scadenza: "2027-03-01", quantita: "24" });
const kinds: Record<string, Label> = {
  lotto: lot,
  ubicazione: locationLabel({ magazzino: { codice: "MAG1" }, codice: "A-01-02", descrizione: "Scaffale A, campata 1, ripiano 2" }),
  riga: rowLabel({
    riga: 1042,
    posizione: 3,
    ordine: "OA-2026-0042",
    fornitore: "Fonti Alpine S.p.A.",
    articolo: { ...articolo, unita: "pz" },
    ordinata: "120",
  }),
  collo: palletLabel({
    sscc: "080012340000000011",
    fornitore: { codice: "F01", nome: "Fonti Alpine S.p.A." },
    avviso: "ASN-77",
    contenuto: {
      codice: "ACQ-05",
      descrizione: "Acqua minerale",
      ean: "8001234567897",
      quantita: "40",
      lotto: "L24-118",
      scadenza: "2027-03-01",
    },
  }),
};

describe.each(SIZES)("PDF %s", (size) => {
  test.each(Object.keys(kinds))("%s: page size, and every symbol scans back", async (kind) => {
    const pdf = await renderPdf([kinds[kind]!], size, 2, kind);
    const doc = await PDFDocument.load(pdf);
    expect(doc.getPageCount()).toBe(2);
    const [w, h] = size.split("x").map(Number) as [number, number];
    const { width, height } = doc.getPage(0).getSize();
    expect([Math.round((width * 25.4) / 72), Math.round((height * 25.4) / 72)]).toEqual([w, h]);
    const [reads] = await decodePdf(pdf, `${OUT}/${kind}-${size}`);
    console.log(`${kind} ${size}: ${JSON.stringify(reads)}`);
    const scans = reads!.map((r) => parseScan(r));
    if (kind === "lotto") expect(scans).toContainEqual({ kind: "gs1", gtin: "08001234567897", lotto: "L24-118", scadenza: "2027-03-01" });
    if (kind === "ubicazione") expect(scans).toContainEqual({ kind: "codice", codice: "A-01-02" });
    if (kind === "riga") expect(scans).toContainEqual({ kind: "etichetta", riga: 1042 });
    if (kind === "collo") expect(reads).toContain("]C100080012340000000011");
    if (kind === "collo" && size !== "50x25")
      expect(scans).toContainEqual({ kind: "gs1", gtin: "08001234567897", lotto: "L24-118", scadenza: "2027-03-01" });
    if (kind === "riga" && size !== "50x25") expect(reads).toContain("8001234567897");
  });
});

test("A4 row sheet: ten labels a page, each R<riga> and EAN read back", async () => {
  const rows = Array.from({ length: 12 }, (_, i) =>
    rowLabel({
      riga: 500 + i,
      posizione: i + 1,
      ordine: "OA-1",
      fornitore: "Fornitore",
      articolo: { ...articolo, unita: "pz" },
      ordinata: "10",
    }),
  );
  const pdf = await renderPdf(rows, "a4", 1, "righe");
  const doc = await PDFDocument.load(pdf);
  expect(doc.getPageCount()).toBe(2);
  expect(doc.getPage(0).getSize()).toMatchObject({ width: expect.closeTo(595.3, 0), height: expect.closeTo(841.9, 0) });
  const pages = await decodePdf(pdf, `${OUT}/riga-a4`);
  const labels = pages.flat().filter((r) => r.startsWith("R"));
  expect(labels.sort()).toEqual(rows.map((_, i) => `R${500 + i}`).sort());
  expect(pages[0]!.filter((r) => r === "8001234567897")).toHaveLength(10);
});

test("an article without an EAN: Code 128 of its code, which reads back as the code", async () => {
  const label = lotLabel({ articolo: { ...articolo, ean: null }, lotto: "L1", scadenza: null, quantita: "2.5" });
  const [reads] = await decodePdf(await renderPdf([label], "100x50", 1, "x"));
  expect(reads!.map((r) => parseScan(r))).toEqual([{ kind: "codice", codice: "ACQ-05" }]);
});

test("a lot AI (10) cannot hold: lotto_non_gs1, the lot as Code 128 beside the GS1 symbol without it", async () => {
  const label = lotLabel({ articolo, lotto: "LOTTO^~CON CARATTERI", scadenza: "2027-03-01", quantita: "3" });
  expect(label.avviso).toBe("lotto_non_gs1");
  const [reads] = await decodePdf(await renderPdf([label], "100x50", 1, "x"));
  expect(reads).toContain("LOTTO^~CON CARATTERI");
  expect(reads!.map((r) => parseScan(r))).toContainEqual({ kind: "gs1", gtin: "08001234567897", lotto: null, scadenza: "2027-03-01" });
  expect(lotLabel({ articolo, lotto: "X".repeat(21), scadenza: null, quantita: null }).avviso).toBe("lotto_non_gs1");
  expect(lotLabel({ articolo, lotto: "X".repeat(20), scadenza: null, quantita: null }).avviso).toBeUndefined();
});

test("(30) only for a whole quantity", () => {
  const ais = (q: string) =>
    lotLabel({ articolo, lotto: "L", scadenza: null, quantita: q }).symbols.flatMap((s) =>
      s.kind === "gs1-128" ? s.elements.map((e) => e.ai) : [],
    );
  expect(ais("24")).toContain("30");
  expect(ais("2.5")).not.toContain("30");
});

describe("ZPL", () => {
  test("structure: one ^XA…^XZ per label, ^PQ copies, ^CI28, the GS1 data with FNC1", () => {
    const zpl = renderZpl([lot, kinds.ubicazione!], "100x50", 3);
    expect(zpl.match(/\^XA/g)).toHaveLength(2);
    expect(zpl.match(/\^XZ/g)).toHaveLength(2);
    expect(zpl.match(/\^PQ3,0,1,Y/g)).toHaveLength(2);
    expect(zpl).toContain("^PW800");
    expect(zpl).toContain("^LL400");
    // (01) (17) (30) in subset C, FNC1 after the variable (30), the lot in subset B.
    expect(zpl).toContain("^FH\\^FD>;>80108001234567897172703013024>810>6L24-118^FS");
    expect(renderZpl([lot], "50x25", 1)).toContain("^PW400");
    expect(renderZpl([lot], "100x150", 1)).toContain("^LL1200");
  });

  test("FNC1 only between elements, never at the end", () => {
    expect(gs1Code128([{ ai: "00", data: "080012340000000011" }]).data).toBe(">;>800080012340000000011");
    expect(
      gs1Code128([
        { ai: "10", data: "AB" },
        { ai: "17", data: "270301" },
      ]).data,
    ).toBe(">;>810>6AB>8>517270301");
  });

  test("^ and ~ in every field never reach the printer as commands", () => {
    const hostile = "X^XZ~JR^FD\\_>";
    const labels = [
      lotLabel({ articolo: { codice: hostile, descrizione: hostile, ean: null }, lotto: hostile, scadenza: null, quantita: null }),
      lotLabel({
        articolo: { codice: hostile, descrizione: hostile, ean: "8001234567897" },
        lotto: hostile,
        scadenza: null,
        quantita: null,
      }),
      locationLabel({ magazzino: { codice: hostile }, codice: hostile, descrizione: hostile }),
      rowLabel({
        riga: 1,
        posizione: 1,
        ordine: hostile,
        fornitore: hostile,
        articolo: { codice: hostile, descrizione: hostile, ean: null, unita: hostile },
        ordinata: "1",
      }),
      palletLabel({
        sscc: "080012340000000011",
        fornitore: { codice: hostile, nome: hostile },
        avviso: hostile,
        contenuto: { codice: hostile, descrizione: hostile, ean: "8001234567897", quantita: "1", lotto: hostile, scadenza: null },
      }),
    ];
    for (const size of SIZES) {
      const zpl = renderZpl(labels, size, 1);
      // Only our own commands remain: every ^ and ~ of the text became \5E and \7E.
      expect(zpl).not.toContain("~");
      for (const command of zpl.match(/\^[A-Z0-9]{2}/g)!)
        expect(["^XA", "^XZ", "^CI", "^PW", "^LL", "^LH", "^FO", "^A0", "^FB", "^FH", "^FD", "^FS", "^BY", "^BC", "^BE", "^PQ"]).toContain(
          command,
        );
      expect(zpl).toContain("X\\5EXZ\\7EJR\\5EFD\\5C_");
      for (const field of zpl.split("^FD").slice(1)) expect(field.indexOf("^FS")).toBeGreaterThanOrEqual(0);
    }
    expect(zplText("è")).toBe("\\C3\\A8");
  });
});
