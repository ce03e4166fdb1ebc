import { describe, expect } from "vitest";
import { closePrisma, createPrisma } from "../../db/client";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedSupplier, seedWarehouse, stockOf } from "../../testing/fixtures";
import { heldIn, seedLocationWarehouse } from "../../testing/location-fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { verifyLedger } from "../ledger/verify.service";

/**
 * The promise's refusal (docs/api.md section 14): where reservations hold an article in a warehouse, a write that
 * names no reservation (an unload, a transfer out, a sale, a return to the supplier) may not leave less free than
 * is held: quantita_prenotata, naming what is free; facts (a count) are not refused; nothing held, nothing changes.
 */

let t: TestDb;
let second: TestDb;
let key: string;
let actor: Actor;
let seller: Actor;
let m1: number;
let m2: number;
let mu: number;
let mv: number;
let cliente: number;
const a: Record<string, number> = {};
let n = 0;

test.beforeAll(async ({ db, key: k, actor: act }) => {
  t = db;
  key = k;
  actor = act;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  m2 = (await seedWarehouse(t.prisma, "M2")).id;
  for (const c of ["SCA", "VEN", "RES", "TRA", "NEG", "CNT", "CORSA", "ALTRO"]) a[c] = (await seedArticle(t.prisma, c)).id;
  a.LOT = (await seedArticle(t.prisma, "LOT", { lotti: true })).id;
  await seedSupplier(t.prisma, "FA");
  cliente = (
    await t.prisma.cliente.create({ data: { codice: "C1", ragione_sociale: "Rossi S.r.l.", data: new Date("2026-01-01T00:00:00Z") } })
  ).id;
  const user = await t.prisma.utente.create({ data: { username: "banco", password_hash: "-", ruolo: "responsabile" } });
  seller = { kind: "utente", id: user.id, username: user.username, ruolo: "responsabile" };
  const load = await post({
    natura: "carico",
    magazzino: m1,
    righe: ["SCA", "VEN", "RES", "TRA", "NEG", "CNT", "CORSA"].map((codice) => ({ codice, quantita: 10 })),
  });
  expect(load.body.rifiutate).toBe(0);
  mu = await seedLocationWarehouse(t, actor, "MU", [
    { codice: "RIC", tipo: "ricevimento" },
    { codice: "S1", tipo: "stoccaggio" },
  ]);
  const placed = await post({
    natura: "carico",
    magazzino: mu,
    righe: [
      { codice: "LOT", quantita: 10, lotto: "L1", ubicazione: "S1" },
      { codice: "ALTRO", quantita: 5, ubicazione: "S1" },
    ],
  });
  expect(placed.body.rifiutate).toBe(0);
  mv = await seedLocationWarehouse(t, actor, "MV", [
    { codice: "RIC-V", tipo: "ricevimento" },
    { codice: "V1", tipo: "stoccaggio" },
  ]);
  second = { ...t, prisma: createPrisma(t.url, 10) };
  return async () => closePrisma(second.prisma);
});

const post = (body: unknown) => rest("POST", "/movimenti", { key, body });
const unload = (magazzino: number, righe: unknown[]) => post({ natura: "scarico", magazzino, righe });

async function reserve(codice: string, quantita: number, magazzino = "M1", instance: TestDb = t) {
  const r = await caller(instance, actor, "rest").reservations.upsert({
    prenotazioni: [{ riferimento: `P-${++n}`, magazzino, cliente: "C1", righe: [{ numero_riga: 1, codice, quantita }] }],
  });
  return r.righe[0]!;
}

const balance = async (codice: string, magazzino = m1) => (await stockOf(t, a[codice]!, magazzino)).balance;

describe("a write that names no reservation", () => {
  test("an unload that would leave less free than is held is refused, naming what is free; up to it passes", async () => {
    expect(await reserve("SCA", 7)).toMatchObject({ esito: "creata" });
    const refused = await unload(m1, [{ codice: "SCA", quantita: 4 }]);
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({ operazione: null, scritte: 0, rifiutate: 1 });
    expect(refused.body.righe[0].errore.codice).toBe("quantita_prenotata");
    expect(refused.body.righe[0].errore.messaggio).toContain("ne sono libere 3, 7 sono prenotate");
    expect(await balance("SCA")).toBe(10);
    const passed = await unload(m1, [{ codice: "SCA", quantita: 3 }]);
    expect(passed.body).toMatchObject({ scritte: 1, rifiutate: 0 });
    expect(await stockOf(t, a.SCA!, m1)).toEqual({ ledger: 7, balance: 7 });
    // Nothing is free any more: one more piece is refused too.
    expect((await unload(m1, [{ codice: "SCA", quantita: 1 }])).body.righe[0].errore.messaggio).toContain("ne sono libere 0");
  });

  test("a sale is refused as a document, then passes within what is free", async () => {
    await reserve("VEN", 7);
    const sell = (quantita: number) =>
      caller(t, seller, "trpc").sales.create({
        tipo: "ddt",
        cliente,
        magazzino: m1,
        righe: [{ codice: "VEN", quantita, prezzo: "1", aliquota_iva: "22" }],
      });
    await expect(sell(4)).rejects.toMatchObject({ cause: { codice: "quantita_prenotata" } });
    expect(await balance("VEN")).toBe(10);
    expect(await sell(3)).toMatchObject({ righe: [expect.objectContaining({ quantita: "3" })] });
    expect(await balance("VEN")).toBe(7);
  });

  test("a return to the supplier is refused by row, then passes within what is free", async () => {
    await reserve("RES", 7);
    const give = (quantita: number) =>
      rest("POST", "/resi-fornitore", {
        key,
        body: { fornitore: "FA", magazzino: m1, righe: [{ codice: "RES", quantita, motivo: "Difettoso" }] },
      });
    const refused = await give(4);
    expect(refused.status).toBe(200);
    expect(refused.body.righe[0]).toMatchObject({ esito: "rifiutata", errore: { codice: "quantita_prenotata" } });
    expect(await balance("RES")).toBe(10);
    expect((await give(3)).body).toMatchObject({ scritte: 1, rifiutate: 0 });
    expect(await balance("RES")).toBe(7);
  });

  test("a transfer out to another warehouse is refused on its source; the destination's holds do not count", async () => {
    await reserve("TRA", 7);
    const move = (quantita: number) =>
      post({ natura: "trasferimento", magazzino_origine: m1, magazzino: m2, righe: [{ codice: "TRA", quantita }] });
    const refused = await move(4);
    expect(refused.body.righe[0]).toMatchObject({ esito: "rifiutata", errore: { codice: "quantita_prenotata" } });
    expect([await balance("TRA"), await balance("TRA", m2)]).toEqual([10, 0]);
    expect((await move(3)).body).toMatchObject({ scritte: 1, rifiutate: 0 });
    expect([await balance("TRA"), await balance("TRA", m2)]).toEqual([7, 3]);
  });

  test("with nothing held, section 5 is unchanged: an article not in lots may go negative", async () => {
    const r = await unload(m1, [{ codice: "NEG", quantita: 12 }]);
    expect(r.body).toMatchObject({ scritte: 1, rifiutate: 0 });
    expect(await stockOf(t, a.NEG!, m1)).toEqual({ ledger: -2, balance: -2 });
  });

  test("a count below what is held is a fact: it is written", async () => {
    await reserve("CNT", 7);
    const r = await rest("POST", "/giacenze/allinea", { key, body: { magazzino: m1, righe: [{ codice: "CNT", contato: 5 }] } });
    expect(r.status).toBe(200);
    expect(r.body.righe[0].esito).not.toBe("rifiutata");
    expect(await stockOf(t, a.CNT!, m1)).toEqual({ ledger: 5, balance: 5 });
  });
});

test("partial: a refused row gives back its lot and location stock, the other rows are written", async () => {
  expect(await reserve("LOT", 7, "MU")).toMatchObject({ esito: "creata" });
  const r = await unload(mu, [
    { codice: "LOT", quantita: 4, lotto: "L1", ubicazione: "S1" },
    { codice: "ALTRO", quantita: 2, ubicazione: "S1" },
  ]);
  expect(r.body).toMatchObject({ scritte: 1, rifiutate: 1 });
  expect(r.body.righe[0]).toMatchObject({ esito: "rifiutata", errore: { codice: "quantita_prenotata" } });
  expect(r.body.righe[1]).toMatchObject({ esito: "scritta" });
  const lot = await t.pool.query("SELECT residua::text AS r FROM lotti WHERE articolo_id = $1 AND codice = 'L1'", [a.LOT]);
  expect(Number(lot.rows[0].r)).toBe(10);
  expect(await heldIn(t, "S1", a.LOT!, "L1")).toBe(10);
  expect(await heldIn(t, "S1", a.ALTRO!)).toBe(3);
  expect(await stockOf(t, a.LOT!, mu)).toEqual({ ledger: 10, balance: 10 });
  expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
});

test("partial: a refused transfer to another warehouse leaves no destination lot or location stock behind", async () => {
  // The LOT of MU is held 7 of 10 by the test above.
  const r = await post({
    natura: "trasferimento",
    magazzino_origine: mu,
    magazzino: mv,
    righe: [
      { codice: "LOT", quantita: 4, lotto: "L1", ubicazione_origine: "S1", ubicazione: "V1" },
      { codice: "ALTRO", quantita: 1, ubicazione_origine: "S1", ubicazione: "V1" },
    ],
  });
  expect(r.body).toMatchObject({ scritte: 1, rifiutate: 1 });
  expect(r.body.righe[0]).toMatchObject({ esito: "rifiutata", errore: { codice: "quantita_prenotata" } });
  expect(await heldIn(t, "S1", a.LOT!, "L1")).toBe(10);
  expect(await heldIn(t, "V1", a.LOT!, "L1")).toBe(0);
  const lots = await t.pool.query("SELECT magazzino_id, residua::text AS r FROM lotti WHERE articolo_id = $1 ORDER BY magazzino_id", [
    a.LOT,
  ]);
  expect(lots.rows).toEqual([{ magazzino_id: mu, r: "10.000" }]);
  const rows = await t.pool.query("SELECT count(*)::int AS n FROM giacenze_ubicazioni WHERE articolo_id = $1 AND magazzino_id = $2", [
    a.LOT,
    mv,
  ]);
  expect(rows.rows[0].n).toBe(0);
  expect(await heldIn(t, "V1", a.ALTRO!)).toBe(1);
  expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
});

test("reservations and unloads racing on two instances: never more held and unloaded than the 10 pieces", async () => {
  // Something is held from the start, so every unload is checked (with nothing held, an unload may go negative).
  expect(await reserve("CORSA", 1)).toMatchObject({ esito: "creata" });
  const unloadOne = (instance: TestDb) =>
    caller(instance, actor, "rest")
      .movements.write({ natura: "scarico", magazzino: m1, righe: [{ codice: "CORSA", quantita: 1 }] })
      .then((r) => r.righe[0]!);
  const racers = Array.from({ length: 24 }, (_, i) => {
    const instance = i % 2 === 0 ? t : second;
    return i % 4 < 2
      ? reserve("CORSA", 1, "M1", instance).then((o) => ({ kind: "hold", ok: o.esito === "creata", codice: o.errore?.codice }))
      : unloadOne(instance).then((o) => ({
          kind: "unload",
          ok: o.esito === "scritta",
          codice: o.errore?.codice,
        }));
  });
  const outcomes = await Promise.all(racers);
  const unloaded = outcomes.filter((o) => o.kind === "unload" && o.ok).length;
  expect(outcomes.filter((o) => o.kind === "unload" && !o.ok).every((o) => o.codice === "quantita_prenotata")).toBe(true);
  const { rows } = await t.pool.query(
    "SELECT coalesce(sum(r.prenotata), 0)::text AS h FROM righe_prenotazione r WHERE r.articolo_id = $1",
    [a.CORSA],
  );
  const held = Number(rows[0].h);
  expect(held + unloaded).toBeLessThanOrEqual(10);
  expect(held + unloaded).toBe(10);
  expect(await stockOf(t, a.CORSA!, m1)).toEqual({ ledger: 10 - unloaded, balance: 10 - unloaded });
  expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
});
