import { describe, expect, it } from "vitest";
import { lookUpLocally } from "./local-lookup";
import { readLot } from "./row-rules";

const GS = "\x1d";

describe("readLot: a code read into the lot field", () => {
  it("takes a GS1 string apart in every form, raw included: never the whole string as the lot", () => {
    const expected = { kind: "lotto", lotto: "LRAW1", scadenza: "2031-12-31", gtin: "08056789000085" };
    expect(readLot("01080567890000851731123110LRAW1")).toEqual(expected);
    expect(readLot("(01)08056789000085(17)311231(10)LRAW1")).toEqual(expected);
    expect(readLot("]C101080567890000851731123110LRAW1")).toEqual(expected);
    expect(readLot(`010805678900008510LRAW1${GS}17311231`)).toEqual(expected);
  });
  it("a GS1 code without a lot is a product code, an EAN or a label is to be asked about", () => {
    expect(readLot("(01)08056789000085").kind).toBe("codice");
    expect(readLot("8056789000085").kind).toBe("chiedere");
    expect(readLot("R144").kind).toBe("chiedere");
  });
  it("anything else is the lot as read, a short number too; a GS1 string that does not read is refused", () => {
    expect(readLot("L2611A")).toEqual({ kind: "lotto", lotto: "L2611A", scadenza: null, gtin: null });
    expect(readLot("12345")).toEqual({ kind: "lotto", lotto: "12345", scadenza: null, gtin: null });
    expect(readLot("(01)08056789000086(10)X").kind).toBe("illeggibile");
  });
});

const row = (riga: number, ean: string | null, residua: string, ordine: number, magazzino = 1) => ({
  riga,
  etichetta: `R${riga}`,
  articolo: { id: riga * 10, codice: `A${riga}` },
  ean,
  descrizione: "x",
  ordinata: "10",
  arrivata: String(10 - Number(residua)),
  residua,
  prezzo_proposto: "1",
  chiede_lotto: false,
  ordine: { id: ordine, numero: `OA-${ordine}`, data: "2026-11-01", stato: "aperto" as const, fornitore: { id: 1, nome: "F" }, magazzino },
});
const copy = {
  magazzino: 1,
  al: "2026-11-27T10:00:00+01:00",
  completo: true,
  righe: [row(1, "8056789000085", "10", 1), row(2, "8056789000085", "10", 2), row(3, "8056789000122", "4", 2)],
};

describe("lookUpLocally: a scan offline, from the copy of the expected rows", () => {
  it("an EAN proposes the oldest row, counting the article's open rows", () => {
    const r = lookUpLocally("8056789000085", copy, new Map());
    expect(r.ordini[0]!.righe[0]!.riga).toBe(1);
    expect(r.totale_righe).toBe(2);
  });
  it("what the queue holds is taken off the remainder: a row all queued is not proposed", () => {
    const r = lookUpLocally("8056789000085", copy, new Map([[1, 10]]));
    expect(r.ordini[0]!.righe[0]!.riga).toBe(2);
    const partly = lookUpLocally("R3", copy, new Map([[3, 1.5]]));
    expect(partly.ordini[0]!.righe[0]!.residua).toBe("2.5");
    expect(lookUpLocally("R3", copy, new Map([[3, 4]])).motivo_codice).toBe("riga_evasa");
  });
  it("a GS1 code brings its lot and expiry; an unknown code is not expected here", () => {
    const r = lookUpLocally("(01)08056789000122(10)L7(17)271130", copy, new Map());
    expect(r.lettura).toEqual({ gtin: "08056789000122", lotto: "L7", scadenza: "2027-11-30" });
    expect(lookUpLocally("96385074", copy, new Map()).motivo_codice).toBe("non_atteso");
  });
});
