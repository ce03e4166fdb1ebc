import { describe, expect, test } from "vitest";
import { csvCell } from "../lib/csv";
import { parseCount, parseCounts, parseCountsInSlices } from "./inventory-csv";

describe("inventory CSV", () => {
  test("semicolons, decimal comma, optional lot, header recognised", () => {
    const r = parseCounts("\uFEFFcodice;contato;lotto\nVITE;12\nOLIO;3,5;L1\n\n  TASS ; 0 ;\n");
    expect(r.header).toBe(true);
    expect(r.separator).toBe(";");
    expect(r.problems).toEqual([]);
    expect(r.rows).toEqual([
      { riga: 2, codice: "VITE", contato: 12 },
      { riga: 3, codice: "OLIO", contato: 3.5, lotto: "L1" },
      { riga: 5, codice: "TASS", contato: 0 },
    ]);
  });

  test("commas with decimal point; a quoted decimal comma; no header", () => {
    const r = parseCounts('VITE,12.25\nOLIO,"3,5",L1\r\n');
    expect(r.header).toBe(false);
    expect(r.rows).toEqual([
      { riga: 1, codice: "VITE", contato: 12.25 },
      { riga: 2, codice: "OLIO", contato: 3.5, lotto: "L1" },
    ]);
  });

  test("tab-separated paste from a spreadsheet", () => {
    expect(parseCounts("A\t1\nB\t2,5").rows.map((r) => r.contato)).toEqual([1, 2.5]);
  });

  test("every bad line is listed with its line number; the good ones are kept", () => {
    const r = parseCounts("codice;contato\nA;abc\nB;-1\nC;1.234,5\n;4\nD;1,2345\nE\nF;1;L;x\nG;7");
    expect(r.problems.map((p) => p.riga)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(r.problems[0]!.messaggio).toMatch(/'abc' non è un numero/);
    expect(r.problems[1]!.messaggio).toMatch(/negativa/);
    expect(r.problems[2]!.messaggio).toMatch(/un solo separatore decimale/);
    expect(r.problems[3]!.messaggio).toMatch(/codice articolo mancante/);
    expect(r.problems[4]!.messaggio).toMatch(/più di 3 decimali/);
    expect(r.problems[5]!.messaggio).toMatch(/almeno 2 campi/);
    expect(r.problems[6]!.messaggio).toMatch(/troppi campi/);
    expect(r.rows).toEqual([{ riga: 9, codice: "G", contato: 7 }]);
  });

  test("sliced parsing gives the same result and reports progress", async () => {
    const text = ["codice;contato", ...Array.from({ length: 5_000 }, (_, i) => `A${i};${i % 7},5`)].join("\n");
    const seen: number[] = [];
    const sliced = await parseCountsInSlices(text, (done) => seen.push(done), 1_000);
    expect(sliced).toEqual(parseCounts(text));
    expect(seen.at(-1)).toBe(5_001);
    expect(seen.length).toBe(6);
  });

  test("more than 10,000 rows is refused as a whole", () => {
    const r = parseCounts(Array.from({ length: 10_001 }, (_, i) => `A${i};1`).join("\n"));
    expect(r.problems[0]).toMatchObject({ riga: 0, messaggio: expect.stringMatching(/al massimo 10000/) });
  });

  test("fields for the result CSV", () => {
    expect(csvCell('Vite "M6"; zincata')).toBe('"Vite ""M6""; zincata"');
    expect(parseCount("0,001")).toBe(0.001);
  });
});
