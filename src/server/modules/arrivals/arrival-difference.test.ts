import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { countRows, rest, seedArticle, seedKey, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { verifyLedger } from "../ledger/verify.service";

/** docs/api.md section 12: a `differenza` on POST /arrivi "alone with a quantity of 0 received": recorded, no movement. */

let t: TestDb;
let key: string;
let m: number;
let n = 0;

test.beforeAll(async ({ db }) => {
  t = db;
  m = (await seedWarehouse(t.prisma, "PAL-DIFF-M")).id;
  await seedArticle(t.prisma, "PAL-DIFF-A", { ean: "8007100000026" });
  await seedArticle(t.prisma, "PAL-DIFF-L", { lotti: true, ean: "8007100000033" });
  await seedSupplier(t.prisma, "FORN-PAL-DIFF");
  key = (await seedKey(t.prisma)).chiave;
});

const post = (body: unknown) => rest("POST", "/arrivi", { key, body });

async function orderRow(articolo = "PAL-DIFF-A") {
  const o = await rest("POST", "/ordini-acquisto", {
    key,
    body: {
      ordini: [
        {
          numero: `PAL-DIFF-${++n}`,
          fornitore: "FORN-PAL-DIFF",
          data: "2026-11-20",
          magazzino: "PAL-DIFF-M",
          righe: [{ numero_riga: 1, articolo, quantita: 10, prezzo: "2" }],
        },
      ],
    },
  });
  return o.body.righe[0].righe[0].riga as number;
}

const state = async () => ({
  movimenti: await countRows(t, "movimenti"),
  operazioni: await countRows(t, "operazioni"),
  differenze: await countRows(t, "differenze_ricevimento"),
  arrivate: (await t.pool.query("SELECT coalesce(sum(arrivata), 0)::text AS s FROM righe_ordine")).rows[0].s as string,
});

describe("POST /arrivi, quantita 0 with a differenza", () => {
  test("single row: 201, the difference recorded (ricevuta 0) and evented, no movement, no operation, the row unchanged", async () => {
    const riga = await orderRow();
    const before = await state();
    const r = await post({
      magazzino: m,
      ddt: "PAL-D-1",
      riga,
      quantita: 0,
      differenza: { quantita: 10, motivo: "mancante", nota: "Non caricato" },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ movimento: null, operazione: null, riga, arrivata: "0", residua: "10", ordine: { stato: "aperto" } });
    expect(typeof r.body.differenza).toBe("number");
    const after = await state();
    expect(after).toEqual({ ...before, differenze: before.differenze + 1 });
    const list = await rest("GET", "/differenze-ricevimento", { key });
    expect(list.body.differenze.find((d: { id: number }) => d.id === r.body.differenza)).toMatchObject({
      riga,
      attesa: "10",
      ricevuta: "0",
      quantita: "10",
      motivo: "mancante",
      nota: "Non caricato",
      foto: 0,
    });
    const events = await rest("GET", "/eventi?tipo=ricevimento.differenza", { key });
    expect(events.body.eventi.at(-1).dati.id).toBe(r.body.differenza);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("a lot-handled article needs no lot when nothing is received", async () => {
    const riga = await orderRow("PAL-DIFF-L");
    const r = await post({ magazzino: m, ddt: "PAL-D-2", riga, quantita: 0, differenza: { quantita: 2, motivo: "errato" } });
    expect(r.status).toBe(201);
    expect(r.body.movimento).toBeNull();
  });

  test("several rows: one received, one only a difference (no movimento), in one operation", async () => {
    const a = await orderRow();
    const b = await orderRow();
    const before = await state();
    const r = await post({
      magazzino: m,
      ddt: "PAL-D-3",
      righe: [
        { riga: a, quantita: 4 },
        { riga: b, quantita: 0, differenza: { quantita: 5, motivo: "danneggiato" } },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.registrate).toBe(2);
    expect(r.body.righe[0]).toMatchObject({ esito: "registrata", arrivata: "4" });
    expect(typeof r.body.righe[0].movimento).toBe("number");
    expect(r.body.righe[1]).toMatchObject({ esito: "registrata", arrivata: "0", residua: "10" });
    expect(r.body.righe[1].movimento).toBeUndefined();
    expect(typeof r.body.righe[1].differenza).toBe("number");
    const after = await state();
    expect(after.movimenti).toBe(before.movimenti + 1);
    expect(after.operazioni).toBe(before.operazioni + 1);
    expect(after.differenze).toBe(before.differenze + 1);
  });

  test("only differences in several rows: no operation is opened", async () => {
    const a = await orderRow();
    const before = await state();
    const r = await post({
      magazzino: m,
      ddt: "PAL-D-4",
      righe: [{ riga: a, quantita: 0, differenza: { quantita: 1, motivo: "mancante" } }],
    });
    expect(r.body).toMatchObject({ operazione: null, registrate: 1, rifiutate: 0 });
    expect(await state()).toEqual({ ...before, differenze: before.differenze + 1 });
  });

  test("quantity 0 without a differenza is still quantita_non_valida, nothing written", async () => {
    const riga = await orderRow();
    const before = await state();
    const single = await post({ magazzino: m, ddt: "PAL-D-5", riga, quantita: 0 });
    expect(single.status).toBe(422);
    expect(single.body.codice).toBe("quantita_non_valida");
    const many = await post({ magazzino: m, ddt: "PAL-D-5", righe: [{ riga, quantita: 0 }] });
    expect(many.body.righe[0].errore.codice).toBe("quantita_non_valida");
    // A differenza with quantity 0 is refused too, even beside 0 received.
    const zero = await post({ magazzino: m, ddt: "PAL-D-5", riga, quantita: 0, differenza: { quantita: 0, motivo: "mancante" } });
    expect(zero.body.codice).toBe("quantita_non_valida");
    expect(await state()).toEqual(before);
  });
});
