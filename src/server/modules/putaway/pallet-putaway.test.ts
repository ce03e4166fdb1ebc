import { describe, expect } from "vitest";
import { gtinCheckDigit } from "../../../lib/gtin";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedSupplier } from "../../testing/fixtures";
import { heldIn, seedLocationWarehouse } from "../../testing/location-fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";

/**
 * Putaway by SSCC (docs/api.md section 11 "Putaway detail", section 12 "putaway by SSCC read that record"): a
 * pallet received into the receiving location moves whole to one destination, one operation, one transfer
 * per (article, lot); twice, or by two handhelds at once, it moves once.
 */

let t: TestDb;
let key: string;
let operatore: Actor;
let w: number;
let other: number;
const a: Record<string, number> = {};

/** SSCCs of this spec: extension 3, company prefix 8007325, a serial, the GS1 check digit. */
const sscc = (n: number) => {
  const body = `38007325${String(n).padStart(9, "0")}`;
  return `${body}${gtinCheckDigit(body)}`;
};

const post = (path: string, body: unknown) => rest("POST", path, { key, body });
const as = () => caller(t, operatore, "trpc", { "idempotency-key": crypto.randomUUID() }).putaway;
const storePallet = (s: string, dest: string, magazzino = w) => as().storePallet({ magazzino, sscc: s, a: dest });

async function count(table: string): Promise<number> {
  return (await t.pool.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;
}

/** An order for the pallets, a notice with `n` pallets of VITE 6 + LATTE lot L1 4 (+ LATTE lot L2 2). */
async function announce(numero: string, pallets: number[]) {
  const o = await post("/ordini-acquisto", {
    ordini: [
      {
        numero,
        fornitore: "FORN-STO-1",
        data: "2026-11-20",
        magazzino: "MAG-STO-P",
        righe: [
          { numero_riga: 1, articolo: "STO-VITE", quantita: 1000, prezzo: "1" },
          { numero_riga: 2, articolo: "STO-LATTE", quantita: 1000, prezzo: "1" },
        ],
      },
    ],
  });
  expect(o.body.righe[0].esito, JSON.stringify(o.body)).toBe("creato");
  const n = await post("/avvisi-spedizione", {
    avvisi: [
      {
        numero,
        fornitore: "FORN-STO-1",
        magazzino: "MAG-STO-P",
        colli: pallets.map((p) => ({
          sscc: sscc(p),
          righe: [
            { ordine: numero, numero_riga: 1, quantita: 6 },
            { ordine: numero, numero_riga: 2, quantita: 4, lotto: "L1", scadenza: "2027-03-31" },
            { ordine: numero, numero_riga: 2, quantita: 2, lotto: "L2", scadenza: "2027-04-30" },
          ],
        })),
      },
    ],
  });
  expect(n.status, JSON.stringify(n.body)).toBe(200);
  expect(n.body.righe?.[0]?.esito ?? n.body.avvisi?.[0]?.esito, JSON.stringify(n.body)).not.toBe("rifiutato");
}

async function receive(p: number) {
  const r = await post(`/colli/${sscc(p)}/ricevi`, { ddt: `DDT-STO-${p}` });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

test.beforeAll(async ({ db, key: k, actor }) => {
  t = db;
  key = k;
  const u = await t.prisma.utente.create({ data: { username: "sto-pallet", password_hash: "-", ruolo: "operatore" } });
  operatore = { kind: "utente", id: u.id, username: "sto-pallet", ruolo: "operatore" };
  w = await seedLocationWarehouse(t, actor, "MAG-STO-P", [
    { codice: "STP-RIC", tipo: "ricevimento" },
    { codice: "STP-A1", tipo: "stoccaggio" },
    { codice: "STP-A2", tipo: "stoccaggio" },
    { codice: "STP-OFF", tipo: "stoccaggio", attiva: false },
  ]);
  other = await seedLocationWarehouse(t, actor, "MAG-STO-Q", [{ codice: "STQ-RIC", tipo: "ricevimento" }]);
  a.VITE = (await seedArticle(t.prisma, "STO-VITE", { ean: "8007300000014" })).id;
  a.LATTE = (await seedArticle(t.prisma, "STO-LATTE", { lotti: true, ean: "8007300000021" })).id;
  await seedSupplier(t.prisma, "FORN-STO-1");
  await announce("AV-STO-1", [1, 2, 3, 4, 5, 6, 7]);
  for (const p of [1, 2, 3, 4, 6, 7]) await receive(p);
});

describe("GET /da-stoccare and the handheld's copy know the pallet", () => {
  test("rows carry the SSCC of the oldest pallet standing in them; the copy lists each pallet's parts", async () => {
    const r = await rest("GET", `/da-stoccare?magazzino=${w}`, { key });
    expect(r.status).toBe(200);
    expect(r.body.da_stoccare.map((d: any) => [d.articolo.codice, d.lotto, d.quantita, d.sscc])).toEqual([
      ["STO-VITE", null, "36", sscc(1)],
      ["STO-LATTE", "L1", "24", sscc(1)],
      ["STO-LATTE", "L2", "12", sscc(1)],
    ]);
    const copy = await as().worklist({ magazzino: w });
    expect(copy.colli.map((c) => c.sscc)).toEqual([1, 2, 3, 4, 6, 7].map(sscc));
    expect(copy.colli[0]?.parti.map((p) => p.quantita)).toEqual(["6", "4", "2"]);
    expect(copy.colli[0]?.parti.map((p) => copy.righe.find((r) => r.id === p.riga)?.articolo.codice)).toEqual([
      "STO-VITE",
      "STO-LATTE",
      "STO-LATTE",
    ]);
  });
});

describe("putaway.storePallet", () => {
  test("moves all of the pallet in one operation, one stoccaggio transfer per (article, lot), then refuses it again", async () => {
    const out = await storePallet(sscc(1), "STP-A1");
    expect(out.righe.map((r) => [r.articolo, r.lotto, r.da, r.quantita])).toEqual([
      ["STO-VITE", null, "STP-RIC", "6"],
      ["STO-LATTE", "L1", "STP-RIC", "4"],
      ["STO-LATTE", "L2", "STP-RIC", "2"],
    ]);
    const { rows } = await t.pool.query(
      `SELECT m.origine, m.quantita::float8 AS q, u.codice AS u FROM movimenti m JOIN ubicazioni u ON u.id = m.ubicazione_id
        WHERE m.operazione_id = $1 ORDER BY m.id`,
      [out.operazione],
    );
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.origine === "stoccaggio")).toBe(true);
    expect(await heldIn(t, "STP-A1", a.VITE!)).toBe(6);
    expect(await heldIn(t, "STP-A1", a.LATTE!, "L1")).toBe(4);
    expect(await heldIn(t, "STP-A1", a.LATTE!, "L2")).toBe(2);
    expect(await heldIn(t, "STP-RIC", a.VITE!)).toBe(30);
    // The copy forgets it; GET /da-stoccare names the next pallet.
    expect((await as().worklist({ magazzino: w })).colli.map((c) => c.sscc)).not.toContain(sscc(1));
    const r = await rest("GET", `/da-stoccare?magazzino=${w}`, { key });
    expect(r.body.da_stoccare[0].sscc).toBe(sscc(2));
    await expect(storePallet(sscc(1), "STP-A2")).rejects.toMatchObject({
      cause: { codice: "collo_gia_stoccato", message: expect.stringContaining("STP-A1") },
    });
    expect(await heldIn(t, "STP-A2", a.VITE!)).toBe(0);
  });

  test("a GS1 (00) reading is the same pallet", async () => {
    const out = await storePallet(`(00)${sscc(2)}`, "STP-A2");
    expect(out.sscc).toBe(sscc(2));
    expect(await heldIn(t, "STP-A2", a.VITE!)).toBe(6);
  });

  test("a cancelled receipt is no longer put away; received again, it is a new pallet to put away", async () => {
    const c = await post(`/colli/${sscc(7)}/annulla`, {});
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    await expect(storePallet(sscc(7), "STP-A1")).rejects.toMatchObject({ cause: { codice: "collo_non_ricevuto" } });
    await receive(7);
    const out = await storePallet(sscc(7), "STP-A1");
    expect(out.righe.length).toBeGreaterThan(0);
  });

  test("two handhelds putting away one pallet at once: the goods move once, the other hears collo_gia_stoccato", async () => {
    const lotsBefore = await heldIn(t, "STP-RIC", a.LATTE!, "L1");
    const outcomes = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => storePallet(sscc(6), i % 2 === 0 ? "STP-A1" : "STP-A2")));
    const ok = outcomes.filter((o) => o.status === "fulfilled");
    const ko = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
    expect(ok).toHaveLength(1);
    expect(ko.map((o) => o.reason?.cause?.codice)).toEqual(["collo_gia_stoccato", "collo_gia_stoccato", "collo_gia_stoccato"]);
    expect(await heldIn(t, "STP-RIC", a.LATTE!, "L1")).toBe(lotsBefore - 4);
    expect(
      (
        await t.pool.query(
          `SELECT count(*)::int AS n FROM stoccaggi_collo s JOIN colli k ON k.ricevimento_id = s.ricevimento_id WHERE k.sscc = $1`,
          [sscc(6)],
        )
      ).rows[0].n,
    ).toBe(1);
  });
  test("moves only what of the pallet is still in receiving", async () => {
    // 10 of VITE leave receiving by an article putaway: of pallet 3's 6 only the 2 left there can move with it.
    await as().store({ magazzino: w, codice: "STO-VITE", lotto: null, da: "STP-RIC", a: "STP-A2", quantita: 10 });
    expect(await heldIn(t, "STP-RIC", a.VITE!)).toBe(2);
    const out = await storePallet(sscc(3), "STP-A1");
    expect(out.righe.map((r) => [r.articolo, r.lotto, r.quantita])).toEqual([
      ["STO-VITE", null, "2"],
      ["STO-LATTE", "L1", "4"],
      ["STO-LATTE", "L2", "2"],
    ]);
    expect(await heldIn(t, "STP-RIC", a.VITE!)).toBe(0);
    // Pallet 4's VITE is all gone from receiving now; its lots are still there.
    const copy = await as().worklist({ magazzino: w });
    expect(copy.colli.find((c) => c.sscc === sscc(4))?.parti).toHaveLength(2);
  });

  test("refuses with nothing written: each code", async () => {
    const before = { m: await count("movimenti"), s: await count("stoccaggi_collo") };
    const refused = async (p: Promise<unknown>, codice: string) => expect(p).rejects.toMatchObject({ cause: { codice } });
    await refused(storePallet("123", "STP-A1"), "sscc_non_valido"); // not an SSCC
    await refused(storePallet(sscc(99), "STP-A1"), "collo_non_trovato"); // in no notice
    await refused(storePallet(sscc(4), "STQ-RIC", other), "collo_non_trovato"); // another warehouse's pallet
    await refused(storePallet(sscc(5), "STP-A1"), "collo_non_ricevuto"); // announced, not received
    await refused(storePallet(sscc(4), "STP-RIC"), "richiesta_non_valida"); // where it already is
    await refused(storePallet(sscc(4), "STP-NONE"), "ubicazione_non_trovata");
    await refused(storePallet(sscc(4), "STP-OFF"), "ubicazione_non_trovata"); // inactive
    expect({ m: await count("movimenti"), s: await count("stoccaggi_collo") }).toEqual(before);
  });
});
