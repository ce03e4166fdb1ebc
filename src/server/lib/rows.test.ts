import { describe, expect } from "vitest";
import { gtinCheckDigit } from "../../lib/gtin";
import type { TestDb } from "../testing/db";
import { countRows, rest, seedArticle, seedKey, seedSupplier, seedWarehouse } from "../testing/fixtures";
import { test } from "../testing/test";

/**
 * docs/api.md section 2 on every call with rows: a missing, mistyped or unknown field inside a row is that row's
 * `campo_non_valido`, naming the field, and the good rows are written; only the envelope's faults refuse the
 * call, and then nothing is written.
 */

let t: TestDb;
let key: string;
let m1: number;
let articolo: number;
let n = 0;

const sscc = (k: number) => {
  const body = `38009876${String(k).padStart(9, "0")}`;
  return `${body}${gtinCheckDigit(body)}`;
};

test.beforeAll(async ({ db }) => {
  t = db;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  articolo = (await seedArticle(t.prisma, "A")).id;
  await seedArticle(t.prisma, "B");
  await seedArticle(t.prisma, "LOT", { lotti: true });
  await seedSupplier(t.prisma, "FA");
  key = (await seedKey(t.prisma)).chiave;
});

const post = (path: string, body: unknown) => rest("POST", path, { key, body });

/** What a refused call must leave untouched. */
async function written() {
  return {
    movimenti: await countRows(t, "movimenti"),
    differenze: await countRows(t, "differenze_ricevimento"),
    ricevimenti: await countRows(t, "ricevimenti_collo"),
    arrivata: (await t.pool.query("SELECT coalesce(sum(arrivata), 0)::text AS s FROM righe_ordine")).rows[0].s as string,
  };
}

async function balance(): Promise<string> {
  const { rows } = await t.pool.query("SELECT coalesce(sum(quantita), 0)::text AS q FROM movimenti WHERE articolo_id = $1", [articolo]);
  return rows[0].q;
}

/** An order of FA into M1 with rows of A (10 each); its row ids. */
async function orderRows(count: number): Promise<{ numero: string; righe: number[] }> {
  const numero = `RF-${++n}`;
  const r = await post("/ordini-acquisto", {
    ordini: [
      {
        numero,
        fornitore: "FA",
        data: "2026-11-20",
        magazzino: "M1",
        righe: Array.from({ length: count }, (_, i) => ({ numero_riga: i + 1, articolo: "A", quantita: 10, prezzo: "1" })),
      },
    ],
  });
  expect(r.body.righe[0].esito).toBe("creato");
  return { numero, righe: r.body.righe[0].righe.map((x: { riga: number }) => x.riga) };
}

/** Refused as campo_non_valido naming the field, in `campo` and in the message. */
const refusedField = (row: unknown, campo: string) =>
  expect(row).toMatchObject({
    esito: "rifiutata",
    errore: { codice: "campo_non_valido", campo, messaggio: expect.stringContaining(`'${campo.split(".").at(-1)}'`) },
  });

/** Every envelope fault: 422 richiesta_non_valida, nothing written. */
async function refusesWhole(path: string, bodies: unknown[]) {
  for (const body of bodies) {
    const before = await written();
    const r = await post(path, body);
    expect(r.status, JSON.stringify(body)).toBe(422);
    expect(r.body.codice, JSON.stringify(body)).toBe("richiesta_non_valida");
    expect(await written()).toEqual(before);
  }
}

describe("a malformed row is that row's campo_non_valido; the others are written", () => {
  test("POST /movimenti", async () => {
    const before = await balance();
    const r = await post("/movimenti", {
      natura: "carico",
      magazzino: m1,
      righe: [
        { codice: "A", quantita: 2 },
        { codice: "A", quantita: 1, prezzo: 1 },
        { codice: "A", quantita: "1" },
        { codice: "A" },
        { codice: "LOT", quantita: 1, lotto: "L1", scadenza: "2026-02-30" },
        { codice: "A", quantita: 1, colore: "rosso" },
        { codice: "A", quantita: 3, prezzo: "1.5" },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ scritte: 2, rifiutate: 5 });
    expect(r.body.righe.map((x: { esito: string }) => x.esito)).toEqual([
      "scritta",
      "rifiutata",
      "rifiutata",
      "rifiutata",
      "rifiutata",
      "rifiutata",
      "scritta",
    ]);
    refusedField(r.body.righe[1], "prezzo");
    refusedField(r.body.righe[2], "quantita");
    refusedField(r.body.righe[3], "quantita");
    refusedField(r.body.righe[4], "scadenza");
    refusedField(r.body.righe[5], "colore");
    expect(r.body.righe[1].errore.messaggio).toMatch(/^Riga 1 \(righe\[1\]\)/);
    expect(Number(await balance()) - Number(before)).toBe(5);

    // A field the call's `natura` does not allow is the row's fault too.
    const out = await post("/movimenti", {
      natura: "scarico",
      magazzino: m1,
      righe: [
        { codice: "A", quantita: 1 },
        { codice: "A", quantita: 1, scadenza: "2027-01-01" },
      ],
    });
    expect(out.body).toMatchObject({ scritte: 1, rifiutate: 1 });
    refusedField(out.body.righe[1], "scadenza");

    // The envelope's faults still refuse the call.
    await refusesWhole("/movimenti", [
      { natura: "carico", magazzino: m1, righe: "A" },
      { natura: "carico", magazzino: m1, righe: [{ codice: "A", quantita: 1 }, 7] },
      { natura: "carico", magazzino: m1, righe: [{ codice: "A", quantita: 1 }], extra: true },
      { natura: "vendita", magazzino: m1, righe: [{ codice: "A", quantita: 1 }] },
      { natura: "carico", magazzino: "1", righe: [{ codice: "A", quantita: 1 }] },
    ]);
  });

  test("POST /arrivi with several rows", async () => {
    const { righe } = await orderRows(3);
    const [r1, r2, r3] = righe as [number, number, number];
    const r = await post("/arrivi", {
      magazzino: m1,
      ddt: "DDT-RF-1",
      righe: [
        { riga: r1, quantita: 2 },
        { riga: r2, quantita: "1" },
        { quantita: 1 },
        { riga: r3, quantita: 1, scadenza: "2026-13-01" },
        { riga: r3, quantita: 1, colli: 2 },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ registrate: 1, rifiutate: 4 });
    expect(r.body.righe[0]).toMatchObject({ indice: 0, riga: r1, esito: "registrata", arrivata: "2" });
    refusedField(r.body.righe[1], "quantita");
    expect(r.body.righe[1].riga).toBe(r2);
    refusedField(r.body.righe[2], "riga");
    expect(r.body.righe[2].riga).toBeNull();
    refusedField(r.body.righe[3], "scadenza");
    refusedField(r.body.righe[4], "colli");
    const arrived = await t.pool.query("SELECT id, arrivata::text FROM righe_ordine WHERE id = ANY($1) ORDER BY id", [righe]);
    expect(arrived.rows.map((x) => x.arrivata)).toEqual(["2.000", "0.000", "0.000"]);

    await refusesWhole("/arrivi", [
      { magazzino: m1, ddt: "DDT-RF-2", righe: [{ riga: r2, quantita: 1 }], extra: 1 },
      { magazzino: m1, ddt: "DDT-RF-2", righe: ["R1"] },
      { magazzino: m1, righe: [{ riga: r2, quantita: 1 }] },
    ]);
  });

  test("POST /giacenze/allinea", async () => {
    const r = await post("/giacenze/allinea", {
      magazzino: m1,
      righe: [
        { codice: "B", contato: 4 },
        { codice: "A", contato: "5" },
        { codice: "LOT", contato: 1, lotto: 7 },
        { contato: 1 },
        { codice: "A", contato: 1, scaffale: "S1" },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ scritte: 1, rifiutate: 4 });
    expect(r.body.righe[0]).toMatchObject({ esito: "scritta", contato: "4" });
    refusedField(r.body.righe[1], "contato");
    expect(r.body.righe[1]).toMatchObject({ articolo: { codice: "A" }, contato: null });
    refusedField(r.body.righe[2], "lotto");
    refusedField(r.body.righe[3], "codice");
    refusedField(r.body.righe[4], "scaffale");

    await refusesWhole("/giacenze/allinea", [
      { magazzino: m1, righe: [{ codice: "A", contato: 1 }], simula: "no" },
      { magazzino: m1, righe: { codice: "A", contato: 1 } },
      { magazzino: m1, righe: [{ codice: "A", contato: 1 }], note: "x" },
    ]);
  });

  test("POST /resi-fornitore", async () => {
    const before = await balance();
    const r = await post("/resi-fornitore", {
      fornitore: "FA",
      magazzino: m1,
      righe: [
        { codice: "A", quantita: 1, motivo: "Rotto" },
        { codice: "A", quantita: 1 },
        { codice: "A", quantita: 1, motivo: "Rotto", riapri: "si" },
        { codice: "A", quantita: 1, motivo: "Rotto", colore: "blu" },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ scritte: 1, rifiutate: 3 });
    refusedField(r.body.righe[1], "motivo");
    refusedField(r.body.righe[2], "riapri");
    refusedField(r.body.righe[3], "colore");
    expect(Number(await balance()) - Number(before)).toBe(-1);

    await refusesWhole("/resi-fornitore", [
      { fornitore: "FA", magazzino: m1, righe: [{ codice: "A", quantita: 1, motivo: "x" }], nota: "x" },
      { fornitore: 3, magazzino: m1, righe: [{ codice: "A", quantita: 1, motivo: "x" }] },
      { fornitore: "FA", magazzino: m1, righe: [null] },
    ]);
  });

  test("POST /colli/{sscc}/ricevi: a malformed difference refuses the pallet row it names", async () => {
    const { numero } = await orderRows(2);
    const avviso = await post("/avvisi-spedizione", {
      avvisi: [
        {
          numero: `AV-${numero}`,
          fornitore: "FA",
          magazzino: "M1",
          colli: [
            {
              sscc: sscc(1),
              righe: [
                { ordine: numero, numero_riga: 1, quantita: 4 },
                { ordine: numero, numero_riga: 2, quantita: 5 },
              ],
            },
            { sscc: sscc(2), righe: [{ ordine: numero, numero_riga: 2, quantita: 1 }] },
          ],
        },
      ],
    });
    expect(avviso.body.righe[0].esito).toBe("creato");
    const r = await post(`/colli/${sscc(1)}/ricevi`, {
      ddt: "DDT-RF-C",
      differenze: [{ indice: 0, quantita: "1", motivo: "mancante" }],
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ registrate: 1, rifiutate: 1, collo: { stato: "ricevuto" } });
    refusedField(r.body.righe[0], "differenze[0].quantita");
    expect(r.body.righe[1]).toMatchObject({ esito: "registrata", ricevuta: "5" });

    // A difference that names no row of the pallet, or a body that is not the call's: the whole call.
    await refusesWhole(`/colli/${sscc(2)}/ricevi`, [
      { ddt: "DDT-RF-D", differenze: [{ quantita: 1, motivo: "mancante" }] },
      { ddt: "DDT-RF-D", differenze: [{ indice: "0", quantita: 1, motivo: "mancante" }] },
      { ddt: "DDT-RF-D", differenze: "nessuna" },
      { ddt: "DDT-RF-D", colli: 1 },
    ]);
  });
});
