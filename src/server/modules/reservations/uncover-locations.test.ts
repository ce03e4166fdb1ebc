import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle } from "../../testing/fixtures";
import { seedLocationWarehouse } from "../../testing/location-fixtures";
import { test } from "../../testing/test";
import { verifyLedger } from "../ledger/verify.service";
import { uncoverHelpers } from "./uncover-testing";

/**
 * Facts of a warehouse that manages locations uncover reservations (docs/api.md section 14): a move into a
 * `quarantena` location, a complete count of a location, a bin found empty; and the lots: a row with a lot takes its
 * lot's deficit first, the pair's deficit falls on what the rows still claim, each piece once.
 */

let t: TestDb;
let key: string;
let w: number;
let h: ReturnType<typeof uncoverHelpers>;

test.beforeAll(async ({ db, key: k, actor }) => {
  t = db;
  key = k;
  h = uncoverHelpers(t, key);
  w = await seedLocationWarehouse(t, actor, "MQ", [
    { codice: "RIC", tipo: "ricevimento" },
    { codice: "S1", tipo: "stoccaggio" },
    { codice: "S2", tipo: "stoccaggio" },
    { codice: "C1", tipo: "stoccaggio" },
    { codice: "C2", tipo: "stoccaggio" },
    { codice: "V1", tipo: "stoccaggio" },
    { codice: "V2", tipo: "stoccaggio" },
    { codice: "Q", tipo: "quarantena" },
  ]);
  for (const c of ["QA", "CA", "VA"]) await seedArticle(t.prisma, c);
  await seedArticle(t.prisma, "LQ", { lotti: true });
  await seedArticle(t.prisma, "LP", { lotti: true });
  await t.pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('C1', 'Rossi S.r.l.', current_date)");
  const load = await post({
    natura: "carico",
    magazzino: w,
    righe: [
      { codice: "QA", quantita: 10, ubicazione: "S1" },
      { codice: "CA", quantita: 6, ubicazione: "C1" },
      { codice: "CA", quantita: 4, ubicazione: "C2" },
      { codice: "VA", quantita: 5, ubicazione: "V1" },
      { codice: "VA", quantita: 5, ubicazione: "V2" },
      { codice: "LQ", quantita: 5, lotto: "L1", ubicazione: "S1" },
      { codice: "LQ", quantita: 5, lotto: "L2", ubicazione: "S2" },
      { codice: "LP", quantita: 5, lotto: "P1", ubicazione: "S1" },
      { codice: "LP", quantita: 5, lotto: "P2", ubicazione: "S2" },
    ],
  });
  expect(load.body.rifiutate).toBe(0);
});

const post = (body: unknown) => rest("POST", "/movimenti", { key, body });
const align = (body: unknown) => rest("POST", "/giacenze/allinea", { key, body });
const move = (codice: string, quantita: number, from: string, to: string, lotto?: string) =>
  post({
    natura: "trasferimento",
    magazzino_origine: w,
    magazzino: w,
    righe: [{ codice, quantita, ubicazione_origine: from, ubicazione: to, ...(lotto ? { lotto } : {}) }],
  });

describe("a move into quarantine", () => {
  test("uncovers what the quarantine takes, newest first; moved back out, it covers again", async () => {
    const p1 = await h.reserve("MQ", "QA", 5);
    const p2 = await h.reserve("MQ", "QA", 4);
    const before = await h.lastEvent();
    expect((await move("QA", 3, "S1", "Q")).body).toMatchObject({ scritte: 1, rifiutate: 0 });
    // 7 outside quarantine for 9 held.
    expect(await h.uncovered(p1.id, p2.id)).toEqual(["0", "2"]);
    expect(await h.factEvents(before, "movimenti.registrati")).toEqual(new Map([[p2.id, "2"]]));
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
    const back = await h.lastEvent();
    await move("QA", 2, "Q", "S1");
    expect(await h.uncovered(p1.id, p2.id)).toEqual(["0", "0"]);
    expect(await h.factEvents(back, "movimenti.registrati")).toEqual(new Map([[p2.id, "0"]]));
  });
});

describe("counts of a location", () => {
  test("a complete count of a location lowering its stock", async () => {
    const p1 = await h.reserve("MQ", "CA", 3);
    const p2 = await h.reserve("MQ", "CA", 5);
    const before = await h.lastEvent();
    const r = await align({ magazzino: w, ubicazione: "C1", completa: true, righe: [{ codice: "CA", contato: 2 }] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // C1 6 → 2, C2 still 4: 6 for 8 held, 2 uncovered on the newest.
    expect(await h.uncovered(p1.id, p2.id)).toEqual(["0", "2"]);
    expect(await h.factEvents(before, "giacenze.allineate")).toEqual(new Map([[p2.id, "2"]]));
  });

  test("a bin found empty (no rows, completa): the newest all uncovered, then the one before it", async () => {
    const p1 = await h.reserve("MQ", "VA", 6);
    const p2 = await h.reserve("MQ", "VA", 3);
    const before = await h.lastEvent();
    const r = await align({ magazzino: w, ubicazione: "V2", completa: true, righe: [] });
    expect(r.body, JSON.stringify(r.body)).toMatchObject({ scritte: 1, rifiutate: 0 });
    // 5 left for 9 held: 4 uncovered, the newest's 3 and 1 of the older one.
    expect(await h.uncovered(p1.id, p2.id)).toEqual(["1", "3"]);
    expect(await h.factEvents(before, "giacenze.allineate")).toEqual(
      new Map([
        [p1.id, "1"],
        [p2.id, "3"],
      ]),
    );
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });
});

describe("lots", () => {
  test("a lot short while its article is covered: the lot row is uncovered all the same", async () => {
    const lot = await h.reserve("MQ", "LP", 4, "P1");
    const before = await h.lastEvent();
    // P1: 2 outside quarantine for the 4 it holds; the article has 7 outside quarantine for those 4.
    await move("LP", 3, "S1", "Q", "P1");
    expect(await h.uncovered(lot.id)).toEqual(["2"]);
    expect(await h.factEvents(before, "movimenti.registrati")).toEqual(new Map([[lot.id, "2"]]));
  });

  test("a lot row takes its lot's deficit; the pair's deficit falls on what the rows still claim", async () => {
    const lot = await h.reserve("MQ", "LQ", 4, "L1");
    const any = await h.reserve("MQ", "LQ", 5);
    const before = await h.lastEvent();
    // L1: 2 outside quarantine for the 4 it holds. The article: 7 outside quarantine for 9 held, but 2 of the
    // 9 are already uncovered in L1, so the 7 the rows still claim are covered: the newer reservation is not.
    await move("LQ", 3, "S1", "Q", "L1");
    expect(await h.uncovered(lot.id, any.id)).toEqual(["2", "0"]);
    expect(await h.factEvents(before, "movimenti.registrati")).toEqual(new Map([[lot.id, "2"]]));
    // L2 counted down to 2: 4 outside quarantine for the 7 still claimed, 3 more uncovered on the newest.
    const count = await h.lastEvent();
    await align({ magazzino: w, righe: [{ codice: "LQ", lotto: "L2", contato: 2, ubicazione: "S2" }] });
    expect(await h.uncovered(lot.id, any.id)).toEqual(["2", "3"]);
    expect(await h.factEvents(count, "giacenze.allineate")).toEqual(new Map([[any.id, "3"]]));
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);

    // The lot's share removed by hand is found by verify, for the pair (6 covered for 4) and for the lot (4 for 2).
    await t.pool.query("UPDATE righe_prenotazione SET scoperta = 0 WHERE prenotazione_id = $1", [lot.id]);
    const broken = await verifyLedger(t.prisma);
    expect(broken.differenze.map((d) => [d.tipo, d.chiave.replace(/\d+/g, "#"), d.atteso, d.trovato])).toEqual([
      ["prenotazioni_scoperte", "articolo # magazzino #", "al più 4 coperte", "9 prenotate, 3 scoperte"],
      ["prenotazioni_scoperte", "articolo # magazzino # lotto #", "al più 2 coperte", "4 prenotate, 0 scoperte"],
    ]);
  });
});
