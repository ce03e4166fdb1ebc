import { describe, expect } from "vitest";
import { inTransaction } from "../../db/transaction";
import { businessDate } from "../../lib/dates";
import { test } from "../../testing/test";
import { writeMovements } from "../movements/movements.service";
import { validateImport } from "./import.service";
import { actor, ean, refusal, run, snapshot, t, TZ, openImportDbBeforeAll } from "./import-testing";

/**
 * importMasterData on one database, test after test: a file written, imported again, referenced by a later one,
 * re-imported with changes, its structure frozen by movements, and a bad file refused with every problem.
 */

openImportDbBeforeAll();

async function load(magazzino: number, righe: { codice: string; quantita: number; lotto?: string }[]) {
  const r = await inTransaction(t.prisma, (tx) =>
    writeMovements(tx, actor, { natura: "carico", magazzino, righe }, { timeZone: TZ, origine: "api" }),
  );
  expect(r.rifiutate).toBe(0);
}

const catalogue = {
  magazzini: [
    { codice: "CEN", nome: "Magazzino centrale" },
    { codice: "NORD", nome: "Deposito nord" },
  ],
  fornitori: [{ codice: "F-FERR", nome: "Ferramenta Rossi S.r.l." }],
  articoli: [
    { codice: "VITE-M6", descrizione: "Vite M6x40", ean: ean(1), costo: "0.085", unita: "PZ" },
    { codice: "OLIO-1L", descrizione: "Olio extravergine 1 l", ean: ean(2), gestione_lotti: true, costo: 6.5 },
    {
      codice: "GUANTO",
      descrizione: "Guanti nitrile",
      gestione_lotti: true,
      costo: "1.2",
      unita: "PA",
      varianti: [
        { codice: "GUANTO-M", ean: ean(3) },
        { codice: "GUANTO-L", ean: ean(4), descrizione: "Guanti nitrile taglia L" },
      ],
    },
  ],
  clienti: [
    {
      codice: "C001",
      ragione_sociale: "Edilizia Bianchi S.r.l.",
      partita_iva: "01234567890",
      email: "ordini@bianchi.it",
      citta: "Bologna",
      provincia: "BO",
    },
  ],
  ordini: [
    {
      numero: "OA-1",
      fornitore: "F-FERR",
      data: "2026-11-20",
      magazzino: "CEN",
      righe: [
        { articolo: "VITE-M6", quantita: 1000, prezzo: "0.08" },
        { articolo: "GUANTO-M", quantita: 12.5, prezzo: 1.15 },
      ],
    },
  ],
};

describe("importMasterData", () => {
  let ids: Awaited<ReturnType<typeof run>>["ids"];

  test("a valid file is written and every code comes back with its id", async () => {
    const outcome = await run(catalogue);
    ids = outcome.ids;
    expect(Object.keys(ids.magazzini)).toEqual(["CEN", "NORD"]);
    expect(Object.keys(ids.articoli).sort()).toEqual(["GUANTO", "GUANTO-L", "GUANTO-M", "OLIO-1L", "VITE-M6"]);
    expect(Object.keys(ids.fornitori)).toEqual(["F-FERR"]);
    expect(Object.keys(ids.clienti)).toEqual(["C001"]);
    expect(Object.keys(ids.ordini)).toEqual(["OA-1"]);

    const articles = await t.prisma.articolo.findMany({ orderBy: { codice: "asc" } });
    const by = Object.fromEntries(articles.map((a) => [a.codice, a]));
    expect(by.GUANTO).toMatchObject({ ha_varianti: true, modello_id: null, gestione_lotti: true, unita: "PA" });
    // Variants inherit lots, unit and cost; the description defaults to the template's plus the code.
    expect(by["GUANTO-M"]).toMatchObject({
      modello_id: ids.articoli.GUANTO,
      ha_varianti: false,
      gestione_lotti: true,
      unita: "PA",
      descrizione: "Guanti nitrile GUANTO-M",
      ean: ean(3),
    });
    expect(by["GUANTO-M"]!.costo_standard!.toString()).toBe("1.2");
    expect(by["GUANTO-L"]).toMatchObject({ modello_id: ids.articoli.GUANTO, descrizione: "Guanti nitrile taglia L" });
    expect(by["OLIO-1L"]!.costo_standard!.toString()).toBe("6.5");
    expect(by["VITE-M6"]).toMatchObject({ gestione_lotti: false, ha_varianti: false, modello_id: null });

    const client = await t.prisma.cliente.findUniqueOrThrow({ where: { codice: "C001" } });
    expect(client).toMatchObject({ id: ids.clienti.C001, nazione: "IT", email: "ordini@bianchi.it", telefono: null });
    expect(client.data.toISOString().slice(0, 10)).toBe(businessDate(TZ));

    const order = await t.prisma.ordineAcquisto.findFirstOrThrow({
      where: { numero: "OA-1" },
      include: { righe: { orderBy: { posizione: "asc" } } },
    });
    expect(order).toMatchObject({
      id: ids.ordini["OA-1"],
      fornitore_id: ids.fornitori["F-FERR"],
      magazzino_id: ids.magazzini.CEN,
      stato: "aperto",
    });
    expect(order.data.toISOString().slice(0, 10)).toBe("2026-11-20");
    expect(order.righe.map((r) => [r.posizione, r.articolo_id, r.ordinata.toString(), r.arrivata.toString(), r.prezzo.toString()])).toEqual(
      [
        [1, ids.articoli["VITE-M6"], "1000", "0", "0.08"],
        [2, ids.articoli["GUANTO-M"], "12.5", "0", "1.15"],
      ],
    );
  });

  test("importing the same file again changes nothing and returns the same ids", async () => {
    const before = await snapshot();
    const again = await run(catalogue);
    expect(again).toEqual({ ids });
    expect(await snapshot()).toEqual(before);
  });

  test("two imports of one file at the same time create each row once", async () => {
    const file = {
      magazzini: [{ codice: "PAR", nome: "Parallelo" }],
      articoli: [{ codice: "PAR-A", descrizione: "Parallelo A", ean: ean(30) }],
      clienti: [{ codice: "PAR-C", ragione_sociale: "Parallelo S.p.A." }],
    };
    const [a, b] = await Promise.all([run(file), run(file)]);
    expect(a.ids).toEqual(b.ids);
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM articoli WHERE codice = 'PAR-A'`);
    expect(rows[0].n).toBe(1);
  });

  test("a later file may reference warehouses, suppliers and articles already in the database", async () => {
    const outcome = await run({
      ordini: [
        {
          numero: "OA-2",
          fornitore: "F-FERR",
          data: "2026-11-21",
          magazzino: "NORD",
          righe: [{ articolo: "OLIO-1L", quantita: 6, prezzo: "6.4" }],
        },
      ],
    });
    expect(outcome.ids).toEqual({ magazzini: {}, articoli: {}, fornitori: {}, clienti: {}, ordini: { "OA-2": expect.any(Number) } });
  });

  test("a re-import with changed values updates descriptive fields and replaces an order as POST /ordini-acquisto does", async () => {
    const rowsBefore = await t.prisma.rigaOrdine.findMany({ where: { ordine_id: ids.ordini["OA-1"] }, orderBy: { posizione: "asc" } });
    const outcome = await run({
      magazzini: [{ codice: "CEN", nome: "Magazzino centrale Bologna" }],
      articoli: [
        { codice: "VITE-M6", descrizione: "Vite TE M6x40 zincata", costo: "0.09", ean: null },
        { codice: "GUANTO", descrizione: "Guanti in nitrile", costo: "1.3", varianti: [{ codice: "GUANTO-XL", ean: ean(5) }] },
      ],
      clienti: [{ codice: "C001", ragione_sociale: "Edilizia Bianchi S.p.A.", email: null, telefono: "051 123456" }],
      ordini: [
        {
          numero: "OA-1",
          fornitore: "F-FERR",
          data: "2026-11-22",
          magazzino: "CEN",
          righe: [{ articolo: "VITE-M6", quantita: 5, prezzo: "1" }],
        },
      ],
    });
    expect(outcome.ids.ordini).toEqual({ "OA-1": ids.ordini["OA-1"] });

    expect((await t.prisma.magazzino.findUniqueOrThrow({ where: { codice: "CEN" } })).nome).toBe("Magazzino centrale Bologna");
    const vite = await t.prisma.articolo.findUniqueOrThrow({ where: { codice: "VITE-M6" } });
    expect(vite).toMatchObject({ descrizione: "Vite TE M6x40 zincata", ean: null, unita: "PZ" });
    expect(vite.costo_standard!.toString()).toBe("0.09");
    // The cost goes down to every variant, listed or not; a listed variant keeps its own description.
    const variants = await t.prisma.articolo.findMany({ where: { modello_id: ids.articoli.GUANTO }, orderBy: { codice: "asc" } });
    expect(variants.map((v) => [v.codice, v.costo_standard?.toString(), v.gestione_lotti, v.descrizione])).toEqual([
      ["GUANTO-L", "1.3", true, "Guanti nitrile taglia L"],
      ["GUANTO-M", "1.3", true, "Guanti nitrile GUANTO-M"],
      ["GUANTO-XL", "1.3", true, "Guanti in nitrile GUANTO-XL"],
    ]);
    const client = await t.prisma.cliente.findUniqueOrThrow({ where: { codice: "C001" } });
    expect(client).toMatchObject({ ragione_sociale: "Edilizia Bianchi S.p.A.", email: null, telefono: "051 123456", citta: "Bologna" });
    // The order is replaced: its header follows the file, the row at position 1 keeps its id (numero_riga 1)
    // with the file's values, the row the file no longer lists (no arrivals) is gone.
    const order = await t.prisma.ordineAcquisto.findFirstOrThrow({
      where: { numero: "OA-1" },
      include: { righe: { orderBy: { posizione: "asc" } } },
    });
    expect(order.data.toISOString().slice(0, 10)).toBe("2026-11-22");
    expect(order.righe.map((r) => [r.id, r.posizione, r.articolo_id, r.ordinata.toString(), r.prezzo.toString()])).toEqual([
      [rowsBefore[0]!.id, 1, ids.articoli["VITE-M6"], "5", "1"],
    ]);
  });

  test("lot handling and structure can change until an article has movements", async () => {
    await run({
      articoli: [
        { codice: "SALE", descrizione: "Sale fino" },
        { codice: "PEPE", descrizione: "Pepe nero" },
      ],
    });
    // No movements yet: SALE becomes lot-handled, PEPE a template of variants.
    await run({
      articoli: [
        { codice: "SALE", descrizione: "Sale fino", gestione_lotti: true },
        { codice: "PEPE", descrizione: "Pepe nero", varianti: [{ codice: "PEPE-100" }] },
      ],
    });
    expect(await t.prisma.articolo.findUniqueOrThrow({ where: { codice: "SALE" } })).toMatchObject({ gestione_lotti: true });
    expect(await t.prisma.articolo.findUniqueOrThrow({ where: { codice: "PEPE" } })).toMatchObject({ ha_varianti: true });

    await load(ids.magazzini.CEN!, [
      { codice: "SALE", quantita: 5, lotto: "L1" },
      { codice: "VITE-M6", quantita: 5 },
      { codice: "GUANTO-M", quantita: 5, lotto: "G1" },
      { codice: "GUANTO-XL", quantita: 5, lotto: "G2" },
    ]);
    const before = await snapshot();
    expect(
      await refusal({
        articoli: [
          { codice: "SALE", descrizione: "Sale fino", gestione_lotti: false },
          { codice: "VITE-M6", descrizione: "Vite", varianti: [{ codice: "VITE-M6-A" }] },
          { codice: "GUANTO", descrizione: "Guanti", gestione_lotti: false, unita: "PZ" },
          { codice: "PEPE", descrizione: "Pepe nero", varianti: [{ codice: "GUANTO-M" }] },
          { codice: "GUANTO-L", descrizione: "Guanti L da soli" },
        ],
      }),
    ).toEqual([
      { campo: "articoli[0].gestione_lotti", messaggio: expect.stringContaining("'SALE' ha già movimenti a lotti") },
      { campo: "articoli[1].varianti", messaggio: expect.stringContaining("non può diventare un modello con varianti") },
      // The template's change reaches its variants, listed or not; GUANTO-M would inherit PEPE's.
      { campo: "articoli[2].gestione_lotti", messaggio: expect.stringContaining("la variante 'GUANTO-XL' ha già movimenti a lotti") },
      { campo: "articoli[2].unita", messaggio: expect.stringContaining("la variante 'GUANTO-XL' ha già movimenti in PA") },
      { campo: "articoli[3].gestione_lotti", messaggio: expect.stringContaining("la variante 'GUANTO-M' ha già movimenti a lotti") },
      { campo: "articoli[3].unita", messaggio: expect.stringContaining("la variante 'GUANTO-M' ha già movimenti in PA") },
      { campo: "articoli[3].varianti[0].codice", messaggio: expect.stringContaining("come variante di 'GUANTO'") },
      { campo: "articoli[4].codice", messaggio: expect.stringContaining("è una variante di 'GUANTO'") },
    ]);
    expect(await snapshot()).toEqual(before);
  });

  test("a bad file lists every problem with its path and writes nothing", async () => {
    const before = await snapshot();
    const bad = {
      magazzini: [{ codice: "CEN2", nome: "Ok" }, { codice: "CEN2", nome: "Doppio" }, { codice: 7 }],
      fornitori: [{ codice: "F2", nome: "Fornitore", sito: "x" }],
      articoli: [
        { codice: "A1", descrizione: "Uno", ean: ean(10).slice(0, 12) + String((Number(ean(10).at(-1)) + 1) % 10) },
        { codice: "A2", descrizione: "Due", ean: ean(2) },
        { codice: "A3", descrizione: "Tre", ean: ean(11), costo: "1,50" },
        {
          codice: "A4",
          descrizione: "Quattro",
          varianti: [{ codice: "A4-S", ean: ean(11) }, { codice: "A1" }, { codice: "A4-M", ean: "80099990" }],
        },
        { codice: "A5", descrizione: "Cinque", varianti: [{ codice: "A5-S" }, { codice: "A5-M" }] },
        { codice: "A6", descrizione: "Sei", costo: 0.12345, gestione_lotti: "sì" },
        { codice: "GUANTO-XL", descrizione: "Variante usata da sola" },
      ],
      clienti: [
        { codice: "C9", ragione_sociale: "Cliente", email: "non-una-email", nazione: "Italia" },
        { ragione_sociale: "Senza codice" },
      ],
      ordini: [
        {
          numero: "OA-9",
          fornitore: "F-IGNOTO",
          data: "2026-02-30",
          magazzino: "SUD",
          righe: [
            { articolo: "A5", quantita: 1, prezzo: "1" },
            { articolo: "GUANTO", quantita: 1, prezzo: "1" },
            { articolo: "NESSUNO", quantita: 1, prezzo: "1" },
            { articolo: "A1", quantita: 0, prezzo: "1" },
            { articolo: "A2", quantita: 1.2345, prezzo: "-1" },
            { articolo: "A6", quantita: "3", prezzo: 1.23456 },
            { articolo: "A6", quantita: 2 },
          ],
        },
        { numero: "OA-10", fornitore: "F2", data: "2026-11-20", magazzino: "CEN2", righe: [] },
        { numero: "OA-10", fornitore: "F2", data: "20/11/2026", magazzino: "CEN2", righe: [{ articolo: "A3", quantita: 1, prezzo: "2" }] },
      ],
      listini: [],
    };
    const problems = await refusal(bad);
    const byPath = Object.fromEntries(problems.map((p) => [p.campo, p.messaggio]));
    expect(Object.keys(byPath)).toEqual(
      expect.arrayContaining([
        "listini",
        "magazzini[1].codice",
        "magazzini[2].codice",
        "magazzini[2].nome",
        "fornitori[0].sito",
        "articoli[0].ean",
        "articoli[1].ean",
        "articoli[2].costo",
        "articoli[3].varianti[0].ean",
        "articoli[3].varianti[1].codice",
        "articoli[3].varianti[2].ean",
        "articoli[5].costo",
        "articoli[5].gestione_lotti",
        "articoli[6].codice",
        "clienti[0].email",
        "clienti[0].nazione",
        "clienti[1].codice",
        "ordini[0].fornitore",
        "ordini[0].data",
        "ordini[0].magazzino",
        "ordini[0].righe[0].articolo",
        "ordini[0].righe[1].articolo",
        "ordini[0].righe[2].articolo",
        "ordini[0].righe[3].quantita",
        "ordini[0].righe[4].quantita",
        "ordini[0].righe[4].prezzo",
        "ordini[0].righe[5].quantita",
        "ordini[0].righe[5].prezzo",
        "ordini[0].righe[6].prezzo",
        "ordini[1].righe",
        "ordini[2].numero",
        "ordini[2].data",
      ]),
    );
    expect(problems).toHaveLength(32);
    expect(byPath.listini).toMatch(/campo non previsto/);
    expect(byPath["magazzini[1].codice"]).toBe("codice 'CEN2' ripetuto: compare già in magazzini[0]; indicarlo una sola volta");
    expect(byPath["articoli[0].ean"]).toMatch(/cifra di controllo errata \(attesa \d\)/);
    expect(byPath["articoli[1].ean"]).toBe(`l'EAN '${ean(2)}' è già dell'articolo 'OLIO-1L': correggerlo o toglierlo`);
    expect(byPath["articoli[3].varianti[0].ean"]).toMatch(/EAN '\d+' ripetuto: compare già in articoli\[2\]/);
    expect(byPath["articoli[3].varianti[2].ean"]).toMatch(/servono 8, 12, 13 o 14 cifre|cifra di controllo/);
    expect(byPath["ordini[0].righe[0].articolo"]).toBe("l'articolo 'A5' ha varianti e non si ordina: indicare una variante (A5-S, A5-M)");
    expect(byPath["ordini[0].righe[1].articolo"]).toMatch(/'GUANTO' ha varianti.*GUANTO-L, GUANTO-M, GUANTO-XL/);
    expect(byPath["ordini[0].righe[2].articolo"]).toMatch(/'NESSUNO' sconosciuto/);
    expect(byPath["ordini[0].fornitore"]).toMatch(/'F-IGNOTO' sconosciuto/);
    expect(byPath["ordini[0].righe[6].prezzo"]).toBe("campo obbligatorio mancante");
    // In file order: section by section, rows by number.
    expect(problems.map((p) => p.campo).indexOf("ordini[0].righe[6].prezzo")).toBeLessThan(
      problems.map((p) => p.campo).indexOf("ordini[1].righe"),
    );
    expect(await snapshot()).toEqual(before);

    const checked = await validateImport(bad, t.prisma);
    expect(checked.problemi).toEqual(problems);
  });
});
