import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { countRows, rest, seedArticle, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { heldIn as held, seedLocationWarehouse } from "../../testing/location-fixtures";
import { seedLocations, switchLocations } from "../../testing/locations";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { verifyLedger } from "../ledger/verify.service";

/**
 * Arrivals in a warehouse that manages locations (docs/api.md section 11): where they land, the refusals of
 * their location, and cancelling them once the goods have moved. A warehouse without locations is the
 * one of arrivals-register.test.ts and arrivals-cancel.test.ts, which run unchanged.
 */

let t: TestDb;
let key: string;
let plain: number;
let w: number;
const a: Record<string, number> = {};
let fornitore: number;
let actor: Actor;

const heldIn = (ubicazione: string, articolo: number, lotto: string | null = null) => held(t, ubicazione, articolo, lotto);

/** Everything an arrival or a cancellation writes, to prove a refusal wrote nothing. */
async function footprint() {
  const { rows } = await t.pool.query(
    `SELECT (SELECT count(*) FROM movimenti)::int AS movimenti, (SELECT COALESCE(sum(quantita), 0) FROM giacenze_ubicazioni)::text AS ubicazioni,
            (SELECT COALESCE(sum(arrivata), 0) FROM righe_ordine)::text AS arrivata, (SELECT COALESCE(sum(residua), 0) FROM lotti)::text AS lotti`,
  );
  return rows[0];
}

async function order(righe: { articolo: number; quantita: string }[], magazzino = w) {
  return seedOrder(t.prisma, {
    numero: `O-${Math.random().toString(36).slice(2, 8)}`,
    fornitore,
    magazzino,
    data: "2026-11-20",
    righe: righe.map((r) => ({ ...r, prezzo: "1" })),
  });
}

test.beforeAll(async ({ db, key: k, actor: as }) => {
  t = db;
  key = k;
  actor = as;
  plain = (await seedWarehouse(t.prisma, "PIANO")).id;
  w = await seedLocationWarehouse(t, as, "UBI", [
    { codice: "RIC", tipo: "ricevimento" },
    { codice: "A-01", tipo: "stoccaggio" },
    { codice: "A-02", tipo: "stoccaggio" },
    { codice: "SPENTA", tipo: "stoccaggio", attiva: false },
  ]);
  await seedLocationWarehouse(t, as, "ALTRO", [{ codice: "B-RIC", tipo: "ricevimento" }]);
  a.VITE = (await seedArticle(t.prisma, "VITE")).id;
  a.LATTE = (await seedArticle(t.prisma, "LATTE", { lotti: true })).id;
  fornitore = (await seedSupplier(t.prisma, "F1")).id;
});

const arrive = (body: unknown) => rest("POST", "/arrivi", { key, body });
const cancel = (id: number) => rest("POST", `/arrivi/${id}/annulla`, { key });
const move = (righe: unknown[]) =>
  rest("POST", "/movimenti", { key, body: { natura: "trasferimento", magazzino_origine: w, magazzino: w, righe } });

describe("POST /arrivi in a warehouse with locations", () => {
  test("without ubicazione the goods land in the receiving location; the movement names it", async () => {
    const o = await order([{ articolo: a.VITE!, quantita: "10" }]);
    const r = await arrive({ magazzino: w, ddt: "D-1", riga: o.righe[0], quantita: 4 });
    expect(r.status).toBe(201);
    expect(await heldIn("RIC", a.VITE!)).toBe(4);
    const mv = await rest("GET", `/movimenti?operazione=${r.body.operazione}`, { key });
    expect(mv.body.movimenti.map((m: any) => [m.id, m.origine, m.quantita, m.ubicazione])).toEqual([
      [r.body.movimento, "arrivo", "4", "RIC"],
    ]);
  });

  test("a named location (single and rows, lots too) takes the goods there", async () => {
    const o = await order([
      { articolo: a.VITE!, quantita: "10" },
      { articolo: a.LATTE!, quantita: "10" },
    ]);
    const one = await arrive({ magazzino: w, ddt: "D-2", riga: o.righe[0], quantita: 2, ubicazione: "A-01" });
    expect(one.status).toBe(201);
    const many = await arrive({
      magazzino: w,
      ddt: "D-2",
      righe: [
        { riga: o.righe[0], quantita: 3, ubicazione: "A-02" },
        { riga: o.righe[1], quantita: 5, lotto: "L1", ubicazione: "A-01" },
        { riga: o.righe[1], quantita: 1, lotto: "L1" },
      ],
    });
    expect(many.body).toMatchObject({ registrate: 3, rifiutate: 0 });
    expect(await heldIn("A-01", a.VITE!)).toBe(2);
    expect(await heldIn("A-02", a.VITE!)).toBe(3);
    expect(await heldIn("A-01", a.LATTE!, "L1")).toBe(5);
    expect(await heldIn("RIC", a.LATTE!, "L1")).toBe(1);
    const mv = await rest("GET", `/movimenti?operazione=${many.body.operazione}&articolo=${a.LATTE}`, { key });
    expect(mv.body.movimenti.map((m: any) => [m.lotto, m.ubicazione])).toEqual([
      ["L1", "A-01"],
      ["L1", "RIC"],
    ]);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test.each([
    ["ubicazione_non_trovata", "an unknown code", () => ({ magazzino: w, ubicazione: "NESSUNA" })],
    ["ubicazione_non_trovata", "another warehouse's location", () => ({ magazzino: w, ubicazione: "B-RIC" })],
    ["ubicazione_non_trovata", "an inactive location", () => ({ magazzino: w, ubicazione: "SPENTA" })],
    ["ubicazione_non_prevista", "a location in a warehouse without locations", () => ({ magazzino: plain, ubicazione: "RIC" })],
  ])("single arrival refused, nothing written: %s (%s)", async (codice, _why, body) => {
    const b = body();
    const o = await order([{ articolo: a.VITE!, quantita: "5" }], b.magazzino);
    const before = await footprint();
    const r = await arrive({ ddt: "D-X", riga: o.righe[0], quantita: 1, ...b });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ codice, campo: "ubicazione" });
    expect(await footprint()).toEqual(before);
  });

  test("rows: a refused location refuses its row only", async () => {
    const o = await order([{ articolo: a.VITE!, quantita: "10" }]);
    const r = await arrive({
      magazzino: w,
      ddt: "D-3",
      righe: [
        { riga: o.righe[0], quantita: 1, ubicazione: "NESSUNA" },
        { riga: o.righe[0], quantita: 1, ubicazione: "SPENTA" },
        { riga: o.righe[0], quantita: 2, ubicazione: "A-02" },
      ],
    });
    expect(r.body.righe.map((x: any) => x.errore?.codice ?? x.esito)).toEqual([
      "ubicazione_non_trovata",
      "ubicazione_non_trovata",
      "registrata",
    ]);
    expect(r.body.righe[0].errore.messaggio).toContain("NESSUNA");
    const { rows } = await t.pool.query(`SELECT arrivata::text FROM righe_ordine WHERE id = $1`, [o.righe[0]]);
    expect(Number(rows[0].arrivata)).toBe(2);
  });

  test("a warehouse without locations: no location anywhere", async () => {
    const o = await order([{ articolo: a.VITE!, quantita: "5" }], plain);
    const r = await arrive({ magazzino: plain, ddt: "D-P", riga: o.righe[0], quantita: 5 });
    expect(r.status).toBe(201);
    const mv = await rest("GET", `/movimenti?operazione=${r.body.operazione}`, { key });
    expect(mv.body.movimenti[0].ubicazione).toBeNull();
    const can = await cancel(r.body.movimento);
    expect(can.status).toBe(200);
    expect(await countRows(t, `giacenze_ubicazioni WHERE magazzino_id = ${plain}`)).toBe(0);
  });
});

describe("POST /arrivi/{id}/annulla with locations", () => {
  test("goods moved away: merce_spostata says where they are, nothing written; moved back: cancelled", async () => {
    const o = await order([{ articolo: a.LATTE!, quantita: "10" }]);
    const r = await arrive({ magazzino: w, ddt: "D-4", riga: o.righe[0], quantita: 5, lotto: "L7" });
    expect(r.status).toBe(201);
    const away = await move([{ codice: "LATTE", lotto: "L7", quantita: 3, ubicazione_origine: "RIC", ubicazione: "A-02" }]);
    expect(away.body.righe.map((x: any) => x.errore?.codice ?? x.esito)).toEqual(["scritta"]);

    const before = await footprint();
    const refused = await cancel(r.body.movimento);
    expect(refused.status).toBe(409);
    expect(refused.body.codice).toBe("merce_spostata");
    // Where the lot is now: 2 left in the receiving location, 3 in A-02.
    expect(refused.body.messaggio).toContain("RIC: 2");
    expect(refused.body.messaggio).toContain("A-02: 3");
    expect(await footprint()).toEqual(before);

    const back = await move([{ codice: "LATTE", lotto: "L7", quantita: 3, ubicazione_origine: "A-02", ubicazione: "RIC" }]);
    expect(back.body.righe[0].esito).toBe("scritta");
    const ok = await cancel(r.body.movimento);
    expect(ok.status).toBe(200);
    expect(await heldIn("RIC", a.LATTE!, "L7")).toBe(0);
    expect(await heldIn("A-02", a.LATTE!, "L7")).toBe(0);
    const { rows } = await t.pool.query(`SELECT operazione_id FROM movimenti WHERE id = $1`, [ok.body.movimento]);
    const mv = await rest("GET", `/movimenti?operazione=${rows[0].operazione_id}`, { key });
    expect(mv.body.movimenti.map((m: any) => [m.origine, m.quantita, m.lotto, m.ubicazione, m.annulla])).toEqual([
      ["annullamento", "-5", "L7", "RIC", r.body.movimento],
    ]);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("an arrival into a named location is taken back from there", async () => {
    const o = await order([{ articolo: a.VITE!, quantita: "10" }]);
    const r = await arrive({ magazzino: w, ddt: "D-5", riga: o.righe[0], quantita: 6, ubicazione: "A-01" });
    const held = await heldIn("A-01", a.VITE!);
    const ok = await cancel(r.body.movimento);
    expect(ok.status).toBe(200);
    expect(await heldIn("A-01", a.VITE!)).toBe(held - 6);
  });

  test("an article not handled in lots, moved away: merce_spostata", async () => {
    const o = await order([{ articolo: a.VITE!, quantita: "100" }]);
    // A-02 starts empty of VITE for this test: what arrives there is all it holds.
    const start = await heldIn("A-02", a.VITE!);
    const r = await arrive({ magazzino: w, ddt: "D-6", riga: o.righe[0], quantita: 4, ubicazione: "A-02" });
    const away = await move([{ codice: "VITE", quantita: start + 4, ubicazione_origine: "A-02", ubicazione: "A-01" }]);
    expect(away.body.righe[0].esito).toBe("scritta");
    const before = await footprint();
    const refused = await cancel(r.body.movimento);
    expect(refused.status).toBe(409);
    expect(refused.body.codice).toBe("merce_spostata");
    expect(refused.body.messaggio).toContain("A-01");
    expect(await footprint()).toEqual(before);
  });

  test("across the switch: an arrival from before it is taken back from the receiving location; after a switch off, from none", async () => {
    const late = (await seedWarehouse(t.prisma, "TARDI")).id;
    const o = await order([{ articolo: a.VITE!, quantita: "10" }], late);
    const before = await arrive({ magazzino: late, ddt: "D-7", riga: o.righe[0], quantita: 5 });
    // What stays: the switch moves 7 into the receiving location, the cancellation takes 5 back.
    expect((await arrive({ magazzino: late, ddt: "D-7", riga: o.righe[0], quantita: 2 })).status).toBe(201);
    const ids = await seedLocations(t, late, [{ codice: "T-RIC", tipo: "ricevimento" }]);
    await switchLocations(t, actor, late, true, ids["T-RIC"]!);
    expect(await heldIn("T-RIC", a.VITE!)).toBe(7);
    const ok = await cancel(before.body.movimento);
    expect(ok.status).toBe(200);
    expect(await heldIn("T-RIC", a.VITE!)).toBe(2);
    const after = await arrive({ magazzino: late, ddt: "D-7", riga: o.righe[0], quantita: 1 });
    await switchLocations(t, actor, late, false);
    const off = await cancel(after.body.movimento);
    expect(off.status).toBe(200);
    const { rows } = await t.pool.query(`SELECT ubicazione_id FROM movimenti WHERE id = ANY($1::int[]) ORDER BY id`, [
      [ok.body.movimento, off.body.movimento],
    ]);
    expect(rows.map((r) => r.ubicazione_id)).toEqual([ids["T-RIC"], null]);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });
});
