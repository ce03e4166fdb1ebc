import { beforeEach, describe, expect } from "vitest";
import { test } from "../../testing/test";
import { c, footprint, m1, refusal, type Row, seedSalesBeforeAll, sell, ui, vite } from "../../testing/sales-fixtures";

/** A refused sales document: the codes, the rows they name, and nothing written. */

seedSalesBeforeAll();

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
