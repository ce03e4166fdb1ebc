import { describe, expect, it } from "vitest";
import type { WorklistRow } from "@/server/modules/putaway/putaway.schemas";
import { destinationProblem, palletDestinationProblem, palletProposal, type PutawayCopy, readCode } from "./lookup";

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
  colli: [],
});

describe("readCode", () => {
  it("reads an SSCC before anything else: a pallet of the copy, with what of it still waits", () => {
    const c = copy([row(1), row(2, { lotto: "L1", quantita: "3", proposta: { ubicazione: "A-01-02", motivo: "lotto" } })]);
    c.colli = [
      {
        sscc: "380073250000000015",
        parti: [
          { riga: 1, quantita: "2" },
          { riga: 2, quantita: "5" },
        ],
      },
    ];
    const r = readCode("(00)380073250000000015", c, new Map([[1, 9]]));
    expect(r.kind).toBe("collo");
    if (r.kind !== "collo") return;
    // Row 1 shows 10, 9 of them queued: 1 of the pallet's 2 waits; row 2 holds 3 of its 5.
    expect(r.pallet.parts.map((p) => [p.row.id, p.quantita])).toEqual([
      [1, 1],
      [2, 3],
    ]);
    expect(palletProposal(r.pallet)).toEqual({ ubicazione: "A-01-02", motivo: "lotto" });
    expect(palletDestinationProblem({ codice: "RIC", tipo: "ricevimento", attiva: true }, r.pallet)).toMatch(/già in RIC/);
    expect(readCode("380073250000000015", c, new Map(), new Set(["380073250000000015"]))).toMatchObject({ title: "Collo già in coda" });
    expect(
      readCode(
        "380073250000000015",
        c,
        new Map([
          [1, 10],
          [2, 3],
        ]),
      ),
    ).toMatchObject({ title: "Collo già stoccato" });
    // An SSCC the copy does not know is asked again of the service, then refused.
    expect(readCode("003123456789012344", c, new Map())).toMatchObject({ kind: "sconosciuto", message: expect.stringContaining("collo") });
    // 18 digits with a wrong check digit are not an SSCC.
    expect(readCode("003123456789012345", c, new Map()).kind).not.toBe("collo");
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
