import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedKey, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { gtinCheckDigit } from "../../../lib/gtin";
import type { Actor } from "../auth/actor";
import { seedLocations, switchLocations } from "../../testing/locations";
import { verifyLedger } from "../ledger/verify.service";

/** POST /resi-fornitore (docs/api.md section 12): unloads with origine reso_fornitore; `riapri` lowers `arrivata`. */

let t: TestDb;
let key: string;
let m1: number;
let m2: number;
let n = 0;

let actor: Actor;

test.beforeAll(async ({ db, actor: a }) => {
  t = db;
  actor = a;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  m2 = (await seedWarehouse(t.prisma, "M2")).id;
  await seedArticle(t.prisma, "A");
  await seedArticle(t.prisma, "LOT", { lotti: true });
  await seedSupplier(t.prisma, "FA");
  await seedSupplier(t.prisma, "FB");
  key = (await seedKey(t.prisma)).chiave;
});

const post = (path: string, body: unknown) => rest("POST", path, { key, body });

/** An order of one row of `articolo` (10), with `arrived` received; its row id. */
async function orderRow(arrived: number, over: { fornitore?: string; magazzino?: string; articolo?: string } = {}) {
  const numero = `R-${++n}`;
  const o = await post("/ordini-acquisto", {
    ordini: [
      {
        numero,
        fornitore: over.fornitore ?? "FA",
        data: "2026-11-20",
        magazzino: over.magazzino ?? "M1",
        righe: [{ numero_riga: 1, articolo: over.articolo ?? "A", quantita: 10, prezzo: "2" }],
      },
    ],
  });
  const riga = o.body.righe[0].righe[0].riga as number;
  let movimento: number | undefined;
  if (arrived > 0) {
    const lot = over.articolo === "LOT" ? { lotto: "L1" } : {};
    const r = await post("/arrivi", { magazzino: over.magazzino === "M2" ? m2 : m1, ddt: `D-${n}`, riga, quantita: arrived, ...lot });
    expect(r.status).toBe(201);
    movimento = r.body.movimento;
  }
  return { riga, movimento };
}

async function arrivata(riga: number) {
  return (await t.pool.query("SELECT arrivata::text FROM righe_ordine WHERE id = $1", [riga])).rows[0].arrivata as string;
}

const give = (righe: unknown[], over: Record<string, unknown> = {}) =>
  post("/resi-fornitore", { fornitore: "FA", magazzino: m1, ...over, righe });

describe("POST /resi-fornitore", () => {
  test("without riapri the row keeps its arrived quantity; with riapri it drops and the goods are expected again", async () => {
    const { riga } = await orderRow(6);
    const plain = await give([{ codice: "A", quantita: 1, motivo: "Difettoso", riga }], { ddt: "RES-1" });
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({ scritte: 1, rifiutate: 0 });
    expect(await arrivata(riga)).toBe("6.000");
    const reopen = await give([{ codice: "A", quantita: 2, motivo: "Rotto", riga, riapri: true }]);
    expect(reopen.body.righe[0]).toMatchObject({ esito: "scritta", riga: { riga, arrivata: "4", residua: "6" } });
    expect(await arrivata(riga)).toBe("4.000");
    const movement = await rest("GET", `/movimenti?operazione=${reopen.body.operazione}`, { key });
    expect(movement.body.movimenti[0]).toMatchObject({
      origine: "reso_fornitore",
      quantita: "-2",
      riferimento: { tipo: "riga_ordine", id: riga },
    });
    const events = await rest("GET", "/eventi?tipo=reso_fornitore.registrato", { key });
    expect(events.body.eventi.at(-1).dati.operazione).toBe(reopen.body.operazione);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("every refusal: the call's, and each row's for its own reason, with nothing of it written", async () => {
    const { riga } = await orderRow(2);
    const other = await orderRow(2, { fornitore: "FB" });
    const elsewhere = await orderRow(0, { magazzino: "M2" });
    await orderRow(3, { articolo: "LOT" });
    expect((await give([{ codice: "A", quantita: 1, motivo: "x" }], { fornitore: "NOPE" })).body.codice).toBe("fornitore_non_trovato");
    expect((await give([{ codice: "A", quantita: 1, motivo: "x" }], { magazzino: 999 })).body.codice).toBe("magazzino_non_trovato");
    const r = await give([
      { codice: "NOPE", quantita: 1, motivo: "x" },
      { codice: "A", quantita: 0, motivo: "x" },
      { codice: "LOT", quantita: 1, motivo: "x" },
      { codice: "A", quantita: 1, motivo: "x", lotto: "L1" },
      { codice: "LOT", quantita: 1, motivo: "x", lotto: "NOPE" },
      { codice: "LOT", quantita: 99, motivo: "x", lotto: "L1" },
      { codice: "A", quantita: 1, motivo: "x", riga: 999999 },
      { codice: "A", quantita: 1, motivo: "x", riga: other.riga },
      { codice: "A", quantita: 1, motivo: "x", riga: elsewhere.riga },
      { codice: "A", quantita: 3, motivo: "x", riga, riapri: true },
    ]);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ operazione: null, scritte: 0 });
    expect(r.body.righe.map((x: { errore: { codice: string } }) => x.errore.codice)).toEqual([
      "articolo_non_trovato",
      "quantita_non_valida",
      "lotto_obbligatorio",
      "lotto_non_previsto",
      "lotto_non_trovato",
      "lotto_insufficiente",
      "riga_non_trovata",
      "fornitore_diverso",
      "magazzino_diverso",
      "quantita_eccessiva",
    ]);
    expect(await arrivata(riga)).toBe("2.000");
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("an arrival cancelled after a return that reopened its row is arrivo_reso", async () => {
    const { riga, movimento } = await orderRow(5);
    await give([{ codice: "A", quantita: 5, motivo: "Tutto difettoso", riga, riapri: true }]);
    const c = await post(`/arrivi/${movimento}/annulla`, {});
    expect(c.status).toBe(409);
    expect(c.body.codice).toBe("arrivo_reso");
    expect(await arrivata(riga)).toBe("0.000");
  });

  test("returns with and without riapri racing arrivals on one row: never over-received, never below zero", async () => {
    for (let round = 0; round < 3; round++) {
      const { riga } = await orderRow(6);
      const results = await Promise.all([
        post("/arrivi", { magazzino: m1, ddt: `RACE-${round}-a`, riga, quantita: 4 }),
        give([{ codice: "A", quantita: 3, motivo: "race", riga, riapri: true }]),
        give([{ codice: "A", quantita: 1, motivo: "race", riga }]),
        post("/arrivi", { magazzino: m1, ddt: `RACE-${round}-b`, riga, quantita: 3 }),
      ]);
      const [first, reopened, , second] = results;
      expect(reopened!.body.scritte).toBe(1);
      const received = [first!, second!].filter((r) => r.status === 201).map((r) => Number(r.body.residua));
      const now = Number(await arrivata(riga));
      // 6 arrived, 3 reopened; each arrival either fit in what remained when it ran or was refused as a whole.
      const arrivedAfter = 6 - 3 + [first!, second!].filter((r) => r.status === 201).reduce((s, r) => s + (r === first ? 4 : 3), 0);
      expect(now).toBe(arrivedAfter);
      expect(now).toBeLessThanOrEqual(10);
      expect(now).toBeGreaterThanOrEqual(0);
      expect(received.every((x) => x >= 0)).toBe(true);
      for (const r of [first!, second!].filter((x) => x.status !== 201)) expect(r.body.codice).toBe("quantita_eccessiva");
    }
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });
});

describe("in a warehouse that manages locations", () => {
  test("a pallet lands in the receiving location (its receipt records it); a return names the location it leaves from", async () => {
    const m3 = (await seedWarehouse(t.prisma, "M3")).id;
    const loc = await seedLocations(t, m3, [{ codice: "RIC", tipo: "ricevimento" }, { codice: "A-01" }]);
    await switchLocations(t, actor, m3, true, loc.RIC!);
    const { riga } = await orderRow(0, { magazzino: "M3" });
    const body = "38001234000000777";
    const sscc = `${body}${gtinCheckDigit(body)}`;
    const ordine = (
      await t.pool.query("SELECT o.numero FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id WHERE r.id = $1", [riga])
    ).rows[0].numero;
    const n = await post("/avvisi-spedizione", {
      avvisi: [{ numero: "AV-LOC", fornitore: "FA", magazzino: "M3", colli: [{ sscc, righe: [{ ordine, numero_riga: 1, quantita: 4 }] }] }],
    });
    expect(n.body.creati).toBe(1);
    const r = await post(`/colli/${sscc}/ricevi`, { ddt: "D-LOC" });
    expect(r.body).toMatchObject({ registrate: 1, collo: { stato: "ricevuto" } });
    const held = await t.pool.query("SELECT ubicazione_id, quantita::text FROM giacenze_ubicazioni WHERE ubicazione_id = $1", [loc.RIC]);
    expect(held.rows).toEqual([{ ubicazione_id: loc.RIC, quantita: "4.000" }]);
    const receipt = await t.pool.query(
      "SELECT ubicazione_id FROM ricevimenti_collo r JOIN colli k ON k.id = r.collo_id WHERE k.sscc = $1",
      [sscc],
    );
    expect(receipt.rows).toEqual([{ ubicazione_id: loc.RIC }]);

    const missing = await give([{ codice: "A", quantita: 1, motivo: "x" }], { magazzino: m3 });
    expect(missing.body.righe[0].errore.codice).toBe("ubicazione_obbligatoria");
    const tooMuch = await give([{ codice: "A", quantita: 5, motivo: "x", ubicazione: "RIC" }], { magazzino: m3 });
    expect(tooMuch.body.righe[0].errore.codice).toBe("quantita_insufficiente_ubicazione");
    const ok = await give([{ codice: "A", quantita: 1, motivo: "x", ubicazione: "RIC", riga, riapri: true }], { magazzino: m3 });
    expect(ok.body).toMatchObject({ scritte: 1, righe: [{ riga: { arrivata: "3" } }] });
    const after = await t.pool.query("SELECT quantita::text FROM giacenze_ubicazioni WHERE ubicazione_id = $1", [loc.RIC]);
    expect(after.rows).toEqual([{ quantita: "3.000" }]);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });
});

describe("a difference declared on POST /arrivi", () => {
  test("beside an arrival it is recorded with the arrival, listed and evented; a bad quantity refuses the row", async () => {
    const { riga } = await orderRow(0);
    const r = await post("/arrivi", {
      magazzino: m1,
      ddt: "D-DIFF",
      riga,
      quantita: 7,
      differenza: { quantita: 3, motivo: "mancante", nota: "Cartone vuoto" },
    });
    expect(r.status).toBe(201);
    const list = await rest("GET", "/differenze-ricevimento?motivo=mancante", { key });
    expect(list.body.differenze.at(-1)).toMatchObject({
      riga,
      attesa: "10",
      ricevuta: "7",
      quantita: "3",
      nota: "Cartone vuoto",
      sscc: null,
      avviso: null,
    });
    const events = await rest("GET", "/eventi?tipo=ricevimento.differenza", { key });
    expect(events.body.eventi.at(-1).dati.id).toBe(list.body.differenze.at(-1).id);
    const bad = await post("/arrivi", { magazzino: m1, ddt: "D-DIFF", riga, quantita: 1, differenza: { quantita: 0, motivo: "mancante" } });
    expect(bad.status).toBe(422);
    expect(bad.body.codice).toBe("quantita_non_valida");
    expect(await arrivata(riga)).toBe("7.000");
  });
});

test("a row of several refused for its difference's quantity leaves its order row as it was", async () => {
  const { riga } = await orderRow(0);
  const r = await post("/arrivi", {
    magazzino: m1,
    ddt: "D-DIFF-2",
    righe: [{ riga, quantita: 2, differenza: { quantita: -1, motivo: "danneggiato" } }],
  });
  expect(r.body.righe[0].errore.codice).toBe("quantita_non_valida");
  expect(await arrivata(riga)).toBe("0.000");
  expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
});
