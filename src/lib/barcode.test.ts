import { describe, expect, test } from "vitest";
import { eanCandidates, gs1Date, parseScan } from "./barcode";

const today = new Date("2026-11-22T10:00:00Z");
const GS = "\x1d";

describe("parseScan", () => {
  test.each([
    ["EAN-13", "8001234567897", { kind: "ean", gtin: "8001234567897" }],
    ["EAN-8", "96385074", { kind: "ean", gtin: "96385074" }],
    ["UPC-A", "036000291452", { kind: "ean", gtin: "036000291452" }],
    ["GTIN-14", "18001234567894", { kind: "ean", gtin: "18001234567894" }],
    ["the shortest order label", "R1", { kind: "etichetta", riga: 1 }],
    ["scanner Enter stripped", "8001234567897\r\n", { kind: "ean", gtin: "8001234567897" }],
    ["order label", "R1042", { kind: "etichetta", riga: 1042 }],
    ["order label lower case", "r7", { kind: "etichetta", riga: 7 }],
    ["typed article code", "VITE-M6", { kind: "codice", codice: "VITE-M6" }],
  ])("%s", (_n, raw, expected) => {
    expect(parseScan(raw, today)).toEqual(expected);
  });

  test.each([
    ["one digit misread in an EAN-13", "8001234567890"],
    ["one digit misread in an EAN-8", "96385075"],
    ["transposed digits", "0800123456789"],
    ["9 digits", "123456789"],
    ["GS1 with a misread GTIN", "(01)08001234567890(10)L1"],
    ["GS1 without GTIN", "(10)ABC(17)270301"],
    ["GS1 impossible expiry", "(01)08001234567897(17)271332"],
    ["GS1 impossible day", "(01)08001234567897(17)270231(10)L"],
    ["(01) with a GTIN-14 cut short", "01080012345678"],
    ["GS1 with an unknown AI", "(01)08001234567897(05)X"],
  ])("unreadable: %s", (_n, raw) => {
    expect(parseScan(raw, today).kind).toBe("illeggibile");
  });

  test.each([
    ["bracketed", "(01)08001234567897(17)270301(10)L24-118", "L24-118", "2027-03-01"],
    ["bracketed, lot last without expiry", "(01)08001234567897(10)ABC123", "ABC123", null],
    ["GS1-128 with ]C1 and GS after the variable lot", `]C1010800123456789710L24-118${GS}17270301`, "L24-118", "2027-03-01"],
    ["DataMatrix ]d2, expiry before the lot", "]d201080012345678971727030110LOTTO7", "LOTTO7", "2027-03-01"],
    ["no symbology identifier, GS separated", `010800123456789710A1${GS}17261231`, "A1", "2026-12-31"],
    ["with a serial (21) after the lot", `]d2010800123456789710L9${GS}21SN0001`, "L9", null],
    ["with a count (30) and a weight (3103)", `]C101080012345678973103001250${GS}10LX${GS}3012`, "LX", null],
    ["expiry day 00 is the last day of the month", "(01)08001234567897(17)270200(10)F", "F", "2027-02-28"],
    ["(01) and a GTIN-14 alone, 16 digits", "0108001234567897", null, null],
    ["bracketed (01) alone", "(01)08001234567897", null, null],
    ["a bracketed lot with nothing after it is no lot", "(01)08001234567897(10)", null, null],
    ["a lot of no characters before the expiry is no lot", `010800123456789710${GS}17271231`, null, "2027-12-31"],
    ["FNC1 between the lot and the expiry", `010800123456789710LOT1${GS}17271231`, "LOT1", "2027-12-31"],
    ["]C1 and a GS before the first element", `]C1${GS}010800123456789710LOT1${GS}17271231`, "LOT1", "2027-12-31"],
    ["pallet content: (02), count (37), lot", `(02)08001234567897(37)12(10)L1`, "L1", null],
  ])("GS1 %s", (_n, raw, lotto, scadenza) => {
    expect(parseScan(raw, today)).toEqual({ kind: "gs1", gtin: "08001234567897", lotto, scadenza });
  });
});

test("GS1 dates use the sliding century window", () => {
  expect(gs1Date("991231", today)).toBe("1999-12-31");
  expect(gs1Date("491231", today)).toBe("2049-12-31");
  expect(gs1Date("760101", today)).toBe("2076-01-01");
  expect(gs1Date("770101", today)).toBe("1977-01-01");
});

test("a GTIN-14 is looked up as the EAN it was printed from", () => {
  expect(eanCandidates("08001234567897")).toContain("8001234567897");
  expect(eanCandidates("00000096385074")).toContain("96385074");
});
