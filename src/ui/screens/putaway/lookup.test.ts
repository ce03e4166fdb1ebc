import { describe, expect, it } from "vitest";
import type { WorklistRow } from "@/server/modules/putaway/putaway.schemas";
import { destinationProblem, isSscc, type PutawayCopy, readCode } from "./lookup";

const row = (id: number, over: Partial<WorklistRow> = {}): WorklistRow => ({
  id,
  articolo: { id: 7, codice: "OLIO-1L" },
  descrizione: "Olio",
  ean: "8001234567897",
  unita: "PZ",
  confezione: "1",
  lotto: null,
  scadenza: null,
  ubicazione: "RIC",
  quantita: "10",
  arrivato_il: "2026-11-28T08:00:00+01:00",
  proposta: null,
  ...over,
});

const copy = (righe: WorklistRow[]): PutawayCopy => ({
  magazzino: 1,
  letto_il: "2026-11-28T08:00:00+01:00",
  righe,
  ubicazioni: [
    { codice: "RIC", tipo: "ricevimento", attiva: true },
    { codice: "A-01-02", tipo: "stoccaggio", attiva: true },
    { codice: "OLD", tipo: "stoccaggio", attiva: false },
  ],
  etichette: [{ riga: 55, articolo: 7 }],
});

describe("readCode", () => {
  it("reads an SSCC before anything else, as a parcel not handled yet", () => {
    expect(isSscc("003123456789012344")).toBe(true);
    expect(readCode("003123456789012344", copy([row(1)]), new Map())).toMatchObject({ kind: "rifiuto", title: "Collo non gestito" });
    expect(isSscc("003123456789012345")).toBe(false);
  });

  it("reads a location of the warehouse in any case", () => {
    expect(readCode("a-01-02", copy([]), new Map())).toMatchObject({ kind: "ubicazione", location: { codice: "A-01-02" } });
  });

  it("finds the goods by EAN, label and code, oldest first, less what the queue took", () => {
    const c = copy([row(1), row(2, { quantita: "4" })]);
    expect(readCode("8001234567897", c, new Map())).toMatchObject({ kind: "merce", rows: [{ id: 1 }, { id: 2 }] });
    expect(readCode("R55", c, new Map([[1, 10]]))).toMatchObject({ kind: "merce", rows: [{ id: 2 }] });
    expect(
      readCode(
        "olio-1l",
        c,
        new Map([
          [1, 10],
          [2, 4],
        ]),
      ),
    ).toMatchObject({ kind: "rifiuto", title: "Già stoccato" });
  });

  it("takes a GS1 code's lot", () => {
    const c = copy([row(1, { lotto: "L1" }), row(2, { lotto: "L2" })]);
    expect(readCode("(01)08001234567897(10)L2", c, new Map())).toMatchObject({ kind: "merce", rows: [{ id: 2 }], lotto: "L2" });
    expect(readCode("(01)08001234567897(10)L9", c, new Map())).toMatchObject({ kind: "rifiuto", title: "Lotto non da stoccare" });
  });

  it("says when a code is neither goods nor a location", () => {
    expect(readCode("B-99", copy([row(1)]), new Map())).toMatchObject({ kind: "sconosciuto" });
  });

  it("refuses an inactive destination and the origin itself", () => {
    const c = copy([]);
    expect(destinationProblem(c.ubicazioni[2]!, row(1))).toMatch(/non è attiva/);
    expect(destinationProblem(c.ubicazioni[0]!, row(1))).toMatch(/già in RIC/);
    expect(destinationProblem(c.ubicazioni[1]!, row(1))).toBeNull();
  });
});
