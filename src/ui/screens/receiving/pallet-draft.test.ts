import { describe, expect, it } from "vitest";
import { describeMarks, draftFor, draftProblem, markOf } from "./pallet-draft";
import { countedExcess } from "./row-rules";
import type { Current } from "./types";

const row = {
  indice: 0,
  riga: 7,
  ordine: { id: 1, numero: "OA-1" },
  articolo: { id: 3, codice: "VITE" },
  quantita: "10",
  lotto: null,
  scadenza: null,
  residua: "10",
};

describe("a pallet row's difference being written", () => {
  it("opens on the whole row, damaged, or on the mark it changes", () => {
    expect(draftFor(row, undefined)).toEqual({ indice: 0, quantita: 10, motivo: "danneggiato", nota: "" });
    expect(draftFor(row, { quantita: 2, motivo: "mancante", nota: "x" })).toMatchObject({ quantita: 2, motivo: "mancante" });
  });
  it("is a mark only with a quantity above 0 and within the row: a slip is said, never clamped", () => {
    expect(draftProblem({ ...draftFor(row, undefined), quantita: 3 }, row)).toBeNull();
    expect(draftProblem({ ...draftFor(row, undefined), quantita: 10 }, row)).toBeNull();
    expect(draftProblem({ ...draftFor(row, undefined), quantita: 30 }, row)).toContain("ne porta 10");
    expect(draftProblem({ ...draftFor(row, undefined), quantita: 0 }, row)).toContain("quantità non ricevuta");
    expect(draftProblem({ ...draftFor(row, undefined), quantita: "" }, row)).toContain("quantità non ricevuta");
  });
  it("reads the quantity as typed into the field: a decimal comma, at most 3 decimals", () => {
    const typed = (quantita: string) => ({ ...draftFor(row, undefined), quantita });
    expect(draftProblem(typed("2,5"), row)).toBeNull();
    expect(markOf(typed(" 2,5 "))).toMatchObject({ quantita: 2.5 });
    expect(markOf(typed("1.125"))).toMatchObject({ quantita: 1.125 });
    expect(draftProblem(typed("1,1255"), row)).toContain("al massimo 3 decimali");
    expect(draftProblem(typed("2a"), row)).toContain("quantità non ricevuta");
    expect(draftProblem(typed("-2"), row)).toContain("quantità non ricevuta");
    expect(draftProblem(typed("30"), row)).toContain("ne porta 10");
  });
  it("reads the marks as the operator does", () => {
    const collo = { sscc: "3", avviso: { id: 1, numero: "AV" }, stato: "atteso" as const, righe: [row] };
    expect(describeMarks(collo, { 0: { quantita: 2.5, motivo: "mancante", nota: "" } })).toBe("mancante 2,5 × VITE (riga 1)");
  });
});

describe("countedExcess: counted past the row's remainder", () => {
  const cur = (counted: number, residua = "2") => ({ row: { residua }, counted, confirmed: true }) as unknown as Current;
  it("registers the remainder and records the rest as eccedente", () => {
    expect(countedExcess(cur(4), "4")).toEqual({ riceve: 2, eccedente: 2 });
    expect(countedExcess(cur(3, "2.5"), "3")).toEqual({ riceve: 2.5, eccedente: 0.5 });
  });
  it("not within the remainder, nor a quantity typed over the count (a slip is the service's refusal)", () => {
    expect(countedExcess(cur(2), "2")).toBeNull();
    expect(countedExcess(cur(4), "40")).toBeNull();
    expect(countedExcess(cur(1), "5")).toBeNull();
  });
});
