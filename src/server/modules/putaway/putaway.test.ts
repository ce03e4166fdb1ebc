import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { heldIn, seedLocationWarehouse } from "../../testing/location-fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import type { WorklistOutput } from "./putaway.schemas";

/**
 * The handheld's putaway (docs/api.md section 11): the warehouse's copy with its proposals, the codes a
 * counting handheld reads, and the putaway itself, one `stoccaggio` transfer under an Idempotency-Key.
 */

let t: TestDb;
let key: string;
let operatore: Actor;
let w: number;
let plain: number;
const a: Record<string, number> = {};
const righe: Record<string, number> = {};

const as = (headers: Record<string, string> = {}) => caller(t, operatore, "trpc", headers).putaway;
const arrive = (riga: number, quantita: number, lotto?: string) =>
  rest("POST", "/arrivi", { key, body: { magazzino: w, ddt: "D-1", riga, quantita, ...(lotto ? { lotto, scadenza: "2027-01-31" } : {}) } });

/** Stock written straight into a storage location: what a proposal reads (the ledger is not what is tested here). */
async function place(ubicazione: string, articolo: number, quantita: number, lotto: string | null = null) {
  await t.pool.query(
    `INSERT INTO giacenze_ubicazioni (articolo_id, magazzino_id, ubicazione_id, lotto_id, quantita)
     SELECT $2, $1, u.id, (SELECT id FROM lotti WHERE articolo_id = $2 AND magazzino_id = $1 AND codice = $4), $5
       FROM ubicazioni u WHERE u.magazzino_id = $1 AND u.codice = $3`,
    [w, articolo, ubicazione, lotto, quantita],
  );
}

test.beforeAll(async ({ db, key: k, actor }) => {
  t = db;
  key = k;
  const u = await t.prisma.utente.create({ data: { username: "piero", password_hash: "-", ruolo: "operatore" } });
  operatore = { kind: "utente", id: u.id, username: "piero", ruolo: "operatore" };
  plain = (await seedWarehouse(t.prisma, "PIANO")).id;
  w = await seedLocationWarehouse(t, actor, "UBI", [
    { codice: "RIC", tipo: "ricevimento" },
    { codice: "A-01", tipo: "stoccaggio" },
    { codice: "A-02", tipo: "stoccaggio" },
    { codice: "A-03", tipo: "stoccaggio" },
    { codice: "QUAR", tipo: "quarantena" },
    { codice: "SPENTA", tipo: "stoccaggio", attiva: false },
  ]);
  a.VITE = (await seedArticle(t.prisma, "VITE", { ean: "8001234567897" })).id;
  a.LATTE = (await seedArticle(t.prisma, "LATTE", { lotti: true, ean: "8000000000019" })).id;
  a.DADO = (await seedArticle(t.prisma, "DADO")).id;
  await t.pool.query(`UPDATE articoli SET confezione = 6 WHERE id = $1`, [a.LATTE]);
  const fornitore = (await seedSupplier(t.prisma, "F1")).id;
  const o = await seedOrder(t.prisma, {
    numero: "O-1",
    fornitore,
    magazzino: w,
    data: "2026-11-20",
    righe: [
      { articolo: a.VITE, quantita: "100", prezzo: "1" },
      { articolo: a.LATTE, quantita: "100", prezzo: "1" },
      { articolo: a.DADO, quantita: "100", prezzo: "1" },
    ],
  });
  [righe.VITE, righe.LATTE, righe.DADO] = o.righe as [number, number, number];
  for (const [riga, q, lotto] of [
    [righe.LATTE, 12, "L2"],
    [righe.VITE, 10, undefined],
    [righe.DADO, 5, undefined],
  ] as const) {
    const r = await arrive(riga as number, q as number, lotto);
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  }
  // Proposals: VITE has a preferred location; LATTE's lot L2 lies in A-02 (and more of the article in A-03
  // and in quarantine); DADO lies only in quarantine and in an inactive location: nothing to propose.
  await t.pool.query(
    `INSERT INTO ubicazioni_preferite (articolo_id, magazzino_id, ubicazione_id) SELECT $1, $2, id FROM ubicazioni WHERE codice = 'A-01' AND magazzino_id = $2`,
    [a.VITE, w],
  );
  await place("A-02", a.LATTE, 1, "L2");
  await place("A-03", a.LATTE, 50, null);
  await place("QUAR", a.LATTE, 90, "L2");
  await place("QUAR", a.DADO, 9);
  await place("SPENTA", a.DADO, 9);
});

describe("putaway.worklist", () => {
  test("lists what waits in receiving, oldest arrival first, with the proposal and its reason", async () => {
    const out: WorklistOutput = await as().worklist({ magazzino: w });
    expect(out.righe.map((r) => [r.articolo.codice, r.lotto, r.ubicazione, r.quantita, r.proposta])).toEqual([
      ["LATTE", "L2", "RIC", "12", { ubicazione: "A-02", motivo: "lotto" }],
      ["VITE", null, "RIC", "10", { ubicazione: "A-01", motivo: "preferita" }],
      ["DADO", null, "RIC", "5", null],
    ]);
    expect(out.righe[0]).toMatchObject({ ean: "8000000000019", confezione: "6" });
    expect(out.ubicazioni.map((u) => u.codice)).toEqual(["A-01", "A-02", "A-03", "QUAR", "RIC", "SPENTA"]);
    expect(out.etichette).toEqual(expect.arrayContaining([{ riga: righe.VITE, articolo: a.VITE }]));
  });

  test("refuses a warehouse without locations (richiesta_non_valida) and an unknown one (magazzino_non_trovato)", async () => {
    await expect(as().worklist({ magazzino: plain })).rejects.toMatchObject({ cause: { codice: "richiesta_non_valida" } });
    await expect(as().worklist({ magazzino: 999_999 })).rejects.toMatchObject({ cause: { codice: "magazzino_non_trovato" } });
  });
});

describe("putaway.identify", () => {
  test("reads a location in any case, an article by EAN, GS1 with lot, R label or code, with its pack size", async () => {
    await expect(as().identify({ magazzino: w, codice: "a-01" })).resolves.toMatchObject({
      tipo: "ubicazione",
      ubicazione: { codice: "A-01" },
    });
    await expect(as().identify({ magazzino: w, codice: "(01)08000000000019(10)L7" })).resolves.toMatchObject({
      tipo: "articolo",
      articolo: { codice: "LATTE", confezione: "6", gestione_lotti: true },
      lotto: "L7",
    });
    await expect(as().identify({ magazzino: w, codice: `R${righe.VITE}` })).resolves.toMatchObject({
      articolo: { codice: "VITE" },
      lotto: null,
    });
    await expect(as().identify({ magazzino: w, codice: "8001234567897" })).resolves.toMatchObject({
      articolo: { codice: "VITE", confezione: "1" },
    });
    await expect(as().identify({ magazzino: w, codice: "NIENTE" })).resolves.toMatchObject({ tipo: "sconosciuto" });
    // Another warehouse's location is not this one's.
    await expect(as().identify({ magazzino: plain, codice: "A-01" })).resolves.toMatchObject({ tipo: "sconosciuto" });
  });
});

describe("putaway.store", () => {
  const store = (body: Record<string, unknown>, k = crypto.randomUUID()) =>
    as({ "idempotency-key": k }).store({ magazzino: w, codice: "VITE", lotto: null, da: "RIC", a: "A-01", quantita: 4, ...body } as never);

  test("moves the goods with one stoccaggio transfer, and a retry under the same key writes nothing more", async () => {
    const k = crypto.randomUUID();
    const first = await store({}, k);
    const again = await store({}, k);
    expect(again).toEqual(first);
    expect(await heldIn(t, "RIC", a.VITE!)).toBe(6);
    expect(await heldIn(t, "A-01", a.VITE!)).toBe(4);
    const { rows } = await t.pool.query(
      `SELECT m.origine, m.quantita::text AS q, u.codice AS ubicazione FROM movimenti m JOIN ubicazioni u ON u.id = m.ubicazione_id
        WHERE m.operazione_id = $1 ORDER BY m.id`,
      [first.operazione],
    );
    expect(rows).toEqual([
      { origine: "stoccaggio", q: "-4.000", ubicazione: "RIC" },
      { origine: "stoccaggio", q: "4.000", ubicazione: "A-01" },
    ]);
  });

  test("refuses with nothing written: the origin as destination, an unknown or inactive destination, more than lies there", async () => {
    const before = await t.pool.query(`SELECT count(*)::int AS n FROM movimenti`);
    await expect(store({ a: "RIC" })).rejects.toMatchObject({ cause: { codice: "richiesta_non_valida" } });
    await expect(store({ a: "B-99" })).rejects.toMatchObject({ cause: { codice: "ubicazione_non_trovata" } });
    await expect(store({ a: "SPENTA" })).rejects.toMatchObject({ cause: { codice: "ubicazione_non_trovata" } });
    await expect(store({ quantita: 1000 })).rejects.toMatchObject({ cause: { codice: "quantita_insufficiente_ubicazione" } });
    const after = await t.pool.query(`SELECT count(*)::int AS n FROM movimenti`);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });
});
