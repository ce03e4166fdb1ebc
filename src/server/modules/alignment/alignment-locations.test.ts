import { describe, expect } from "vitest";
import type { Actor } from "../auth/actor";
import type { TestDb } from "../../testing/db";
import { caller, countRows, rest, seedArticle, seedWarehouse, stockOf } from "../../testing/fixtures";
import { heldIn as held, seedLocationWarehouse } from "../../testing/location-fixtures";
import { test } from "../../testing/test";
import { verifyLedger } from "../ledger/verify.service";

/**
 * Counting by location (docs/api.md section 11): the counted unit is (article, lot, location), and
 * `completa` counts a location as a whole, holding it against concurrent loads until it commits. A
 * warehouse without locations is the one of alignment.test.ts, which runs unchanged.
 */

let t: TestDb;
let key: string;
let plain: number;
let w: number;
let operatore: Actor;
const a: Record<string, number> = {};

const heldIn = (ubicazione: string, articolo: number, lotto: string | null = null) => held(t, ubicazione, articolo, lotto);
const align = (body: unknown) => rest("POST", "/giacenze/allinea", { key, body });
/** Stock placed in a location that holds none of it yet, by a count (this file's subject, independent of the movements' paths). */
async function place(ubicazione: string, righe: { codice: string; lotto?: string; quantita: number }[]) {
  const r = await align({ magazzino: w, ubicazione, righe: righe.map(({ quantita, ...x }) => ({ ...x, contato: quantita })) });
  expect(r.body.scritte).toBe(righe.length);
}
const load = (ubicazione: string, righe: unknown[], natura = "carico") =>
  rest("POST", "/movimenti", { key, body: { natura, magazzino: w, righe: righe.map((r) => ({ ubicazione, ...(r as object) })) } });

/** Everything a count writes, to prove a refusal (or a preview) wrote nothing. */
async function footprint() {
  const { rows } = await t.pool.query(
    `SELECT (SELECT count(*) FROM movimenti)::int AS movimenti, (SELECT count(*) FROM operazioni)::int AS operazioni,
            (SELECT count(*) FROM giacenze_ubicazioni)::int AS righe_ubicazioni,
            (SELECT COALESCE(sum(quantita), 0) FROM giacenze_ubicazioni)::text AS ubicazioni,
            (SELECT COALESCE(sum(residua), 0) FROM lotti)::text AS lotti, (SELECT count(*) FROM lotti)::int AS n_lotti,
            (SELECT COALESCE(sum(quantita), 0) FROM giacenze)::text AS giacenze`,
  );
  return rows[0];
}

const outcomes = (r: { body: { righe: any[] } }) =>
  r.body.righe.map((x) => [
    x.indice,
    x.articolo?.codice ?? x.codice,
    x.lotto,
    x.ubicazione,
    x.attuale,
    x.contato,
    x.delta,
    x.errore?.codice ?? x.esito,
  ]);

test.beforeAll(async ({ db, key: k, actor }) => {
  t = db;
  key = k;
  plain = (await seedWarehouse(t.prisma, "PIANO")).id;
  w = await seedLocationWarehouse(t, actor, "CONTA", [
    { codice: "RIC", tipo: "ricevimento" },
    { codice: "BIN", tipo: "stoccaggio" },
    { codice: "OUT", tipo: "stoccaggio" },
    { codice: "SPENTA", tipo: "stoccaggio", attiva: false },
  ]);
  await seedLocationWarehouse(t, actor, "ALTRO", [{ codice: "X-RIC", tipo: "ricevimento" }]);
  for (const c of ["A", "C", "D", "R", "Q"]) a[c] = (await seedArticle(t.prisma, c)).id;
  a.LOT = (await seedArticle(t.prisma, "LOT", { lotti: true })).id;
  const u = await t.prisma.utente.create({ data: { username: "op", password_hash: "-", ruolo: "operatore" } });
  operatore = { kind: "utente", id: u.id, username: u.username, ruolo: "operatore" };
});

describe("counting by location", () => {
  test("attuale is the location's stock; one article in two locations is two units; rows take the top-level location", async () => {
    await place("BIN", [{ codice: "A", quantita: 5 }]);
    await place("OUT", [{ codice: "A", quantita: 3 }]);
    const r = await align({
      magazzino: w,
      ubicazione: "BIN",
      righe: [
        { codice: "A", contato: 4 },
        { codice: "A", contato: 1, ubicazione: "OUT" },
      ],
    });
    expect(r.status).toBe(200);
    expect(outcomes(r)).toEqual([
      [0, "A", null, "BIN", "5", "4", "-1", "scritta"],
      [1, "A", null, "OUT", "3", "1", "-2", "scritta"],
    ]);
    const mv = await rest("GET", `/movimenti?operazione=${r.body.operazione}`, { key });
    expect(mv.body.movimenti.map((m: any) => [m.id, m.origine, m.quantita, m.ubicazione])).toEqual([
      [r.body.righe[0].movimento, "correzione", "-1", "BIN"],
      [r.body.righe[1].movimento, "correzione", "-2", "OUT"],
    ]);
    expect([await heldIn("BIN", a.A!), await heldIn("OUT", a.A!)]).toEqual([4, 1]);
    expect(await stockOf(t, a.A!, w)).toEqual({ ledger: 5, balance: 5 });
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("lots by location: the lot's residual moves by the difference, not to the count", async () => {
    await place("BIN", [{ codice: "LOT", lotto: "L5", quantita: 4 }]);
    await place("OUT", [{ codice: "LOT", lotto: "L5", quantita: 6 }]);
    const r = await align({ magazzino: w, righe: [{ codice: "LOT", lotto: "L5", contato: 1, ubicazione: "BIN" }] });
    expect(outcomes(r)).toEqual([[0, "LOT", "L5", "BIN", "4", "1", "-3", "scritta"]]);
    const lots = await rest("GET", `/articoli/${a.LOT}/lotti?magazzino=${w}`, { key });
    expect(lots.body.lotti.find((l: any) => l.lotto === "L5").residua).toBe("7");
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("row refusals of locations, the other rows written", async () => {
    await place("BIN", [{ codice: "R", quantita: 2 }]);
    const before = await countRows(t, "movimenti");
    const r = await align({
      magazzino: w,
      righe: [
        { codice: "R", contato: 1 },
        { codice: "R", contato: 1, ubicazione: "NESSUNA" },
        { codice: "R", contato: 1, ubicazione: "X-RIC" },
        { codice: "R", contato: 1, ubicazione: "SPENTA" },
        { codice: "R", contato: 3, ubicazione: "BIN" },
        { codice: "R", contato: 3, ubicazione: "BIN" },
        { codice: "R", contato: 0, ubicazione: "OUT" },
      ],
    });
    expect(r.body.righe.map((x: any) => x.errore?.codice ?? x.esito)).toEqual([
      "ubicazione_obbligatoria",
      "ubicazione_non_trovata",
      "ubicazione_non_trovata",
      "ubicazione_non_trovata",
      "articolo_ripetuto",
      "articolo_ripetuto",
      "invariata",
    ]);
    expect(r.body.righe[1].errore.messaggio).toContain("NESSUNA");
    expect(await countRows(t, "movimenti")).toBe(before);
    expect(await heldIn("BIN", a.R!)).toBe(2);
    const p = await rest("POST", "/giacenze/allinea", {
      key,
      body: { magazzino: plain, righe: [{ codice: "R", contato: 1, ubicazione: "BIN" }] },
    });
    expect(p.body.righe[0].errore.codice).toBe("ubicazione_non_prevista");
    expect(await countRows(t, "movimenti")).toBe(before);
  });

  test.each([
    [
      "richiesta_non_valida",
      "completa without ubicazione",
      () => ({ magazzino: w, completa: true, righe: [{ codice: "A", contato: 1, ubicazione: "BIN" }] }),
    ],
    [
      "ubicazione_non_trovata",
      "an unknown top-level location",
      () => ({ magazzino: w, ubicazione: "NESSUNA", righe: [{ codice: "A", contato: 1 }] }),
    ],
    [
      "ubicazione_non_trovata",
      "another warehouse's",
      () => ({ magazzino: w, ubicazione: "X-RIC", completa: true, righe: [{ codice: "A", contato: 1 }] }),
    ],
    [
      "ubicazione_non_trovata",
      "an inactive top-level location",
      () => ({ magazzino: w, ubicazione: "SPENTA", completa: true, righe: [{ codice: "A", contato: 1 }] }),
    ],
    [
      "ubicazione_non_prevista",
      "a location in a warehouse without",
      () => ({ magazzino: plain, ubicazione: "BIN", righe: [{ codice: "A", contato: 1 }] }),
    ],
  ])("whole count refused, nothing written: %s (%s)", async (codice, _why, body) => {
    const before = await footprint();
    const r = await align(body());
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ codice, campo: "ubicazione" });
    expect(await footprint()).toEqual(before);
  });
});

describe("completa: a location counted as a whole", () => {
  test("what the rows do not name is counted zero; simula answers the same and writes nothing; an operator's preview stays blind", async () => {
    await place("BIN", [
      { codice: "C", quantita: 6 },
      { codice: "D", quantita: 2 },
      { codice: "LOT", lotto: "L1", quantita: 4 },
      { codice: "LOT", lotto: "L2", quantita: 1 },
    ]);
    await place("OUT", [{ codice: "D", quantita: 5 }]);
    const body = {
      magazzino: w,
      ubicazione: "BIN",
      completa: true,
      righe: [
        { codice: "C", contato: 6 },
        { codice: "LOT", lotto: "L1", contato: 3 },
      ],
    };
    // What else BIN holds from the earlier tests (A 4, R 2, LOT L5 1) is counted zero as well.
    const expected = [
      [0, "C", null, "BIN", "6", "6", "0", "invariata"],
      [1, "LOT", "L1", "BIN", "4", "3", "-1", "scritta"],
      [2, "A", null, "BIN", "4", "0", "-4", "scritta"],
      [3, "D", null, "BIN", "2", "0", "-2", "scritta"],
      [4, "LOT", "L2", "BIN", "1", "0", "-1", "scritta"],
      [5, "LOT", "L5", "BIN", "1", "0", "-1", "scritta"],
      [6, "R", null, "BIN", "2", "0", "-2", "scritta"],
    ];
    const before = await footprint();
    const sim = await align({ ...body, simula: true });
    expect(outcomes(sim)).toEqual(expected);
    expect(sim.body.righe.slice(2).every((x: any) => x.implicita === true)).toBe(true);
    expect(sim.body.righe.slice(0, 2).every((x: any) => x.implicita === undefined)).toBe(true);
    expect(await footprint()).toEqual(before);

    // Which articles the bin holds is stock an operator does not read: the blind preview shows the rows counted only.
    const blind = await caller(t, operatore, "trpc").alignment.align({ ...body, simula: true });
    expect(blind.righe.map((x) => [x.indice, x.esito, x.attuale])).toEqual([
      [0, "contata", null],
      [1, "contata", null],
    ]);

    const r = await align(body);
    expect(outcomes(r)).toEqual(expected);
    expect(r.body).toMatchObject({ scritte: 6, invariate: 1, rifiutate: 0 });
    const { rows } = await t.pool.query(
      `SELECT a.codice, l.codice AS lotto, trim_scale(g.quantita)::text AS q FROM giacenze_ubicazioni g JOIN articoli a ON a.id = g.articolo_id
         LEFT JOIN lotti l ON l.id = g.lotto_id JOIN ubicazioni u ON u.id = g.ubicazione_id
        WHERE u.codice = 'BIN' AND g.quantita > 0 ORDER BY 1, 2`,
    );
    expect(rows.map((x) => [x.codice, x.lotto, x.q])).toEqual([
      ["C", null, "6"],
      ["LOT", "L1", "3"],
    ]);
    expect(await heldIn("OUT", a.D!)).toBe(5);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
    // Counted again, the same: nothing left to change.
    expect((await align(body)).body).toMatchObject({ operazione: null, scritte: 0, invariate: 2 });
  });

  test("a complete count holds the location: a load into it waits until the count commits, then lands on top", async () => {
    await place("BIN", [{ codice: "Q", quantita: 10 }]);
    const gate = await t.pool.connect();
    try {
      // Pause the count after its reads: it cannot create its operation while this lock is held.
      await gate.query("BEGIN");
      await gate.query("LOCK TABLE operazioni IN SHARE MODE");
      const counting = align({
        magazzino: w,
        ubicazione: "BIN",
        completa: true,
        righe: [
          { codice: "Q", contato: 7 },
          { codice: "C", contato: 6 },
          { codice: "LOT", lotto: "L1", contato: 3 },
        ],
      });
      await seenWaiting("INSERT INTO operazioni");
      const loading = load("BIN", [{ codice: "Q", quantita: 2 }]);
      // The load waits on the location's gate (an advisory lock), not on anything the count lets go of.
      await seenWaiting("advisory");
      await gate.query("COMMIT");
      const [c, l] = await Promise.all([counting, loading]);
      expect(c.body.righe[0]).toMatchObject({ attuale: "10", contato: "7", delta: "-3" });
      expect(l.body.scritte).toBe(1);
      expect(l.body.righe[0].movimento).toBeGreaterThan(c.body.righe[0].movimento);
    } finally {
      await gate.query("ROLLBACK").catch(() => {});
      gate.release();
    }
    expect(await heldIn("BIN", a.Q!)).toBe(9);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("a complete count against concurrent unloads and loads of the same bin: the end state is the count plus what committed after it", async () => {
    const art = (await seedArticle(t.prisma, "CORSA")).id;
    const lotArt = (await seedArticle(t.prisma, "CORSA-L", { lotti: true })).id;
    // Not in the bin when the writers start: its loads create the bin's row, the case the exclusive gate is for.
    const newArt = (await seedArticle(t.prisma, "CORSA-N")).id;
    await place("BIN", [
      { codice: "CORSA", quantita: 20 },
      { codice: "CORSA-L", lotto: "K1", quantita: 10 },
    ]);
    await place("OUT", [{ codice: "CORSA", quantita: 20 }]);
    const writers = (n: number) =>
      Array.from({ length: n }, (_, i) =>
        i % 3 === 0
          ? load(
              "BIN",
              [
                { codice: "CORSA", quantita: 1 },
                { codice: "CORSA-L", lotto: "K1", quantita: 1 },
              ],
              "scarico",
            )
          : i % 3 === 1
            ? load("BIN", [
                { codice: "CORSA", quantita: 1 },
                { codice: "CORSA-L", lotto: "K1", quantita: 1 },
                { codice: "CORSA-N", quantita: 1 },
              ])
            : rest("POST", "/movimenti", {
                key,
                body: {
                  natura: "trasferimento",
                  magazzino_origine: w,
                  magazzino: w,
                  righe: [{ codice: "CORSA", quantita: 1, ubicazione_origine: "OUT", ubicazione: "BIN" }],
                },
              }),
      );
    const first = writers(15);
    const counting = align({ magazzino: w, ubicazione: "BIN", completa: true, righe: [{ codice: "CORSA", contato: 12 }] });
    const results = await Promise.all([...first, counting, ...writers(15)]);
    expect(results.filter((r) => r.status !== 200).map((r) => r.body)).toEqual([]);
    const count = (await counting).body;
    const ids = count.righe.filter((x: any) => x.movimento !== undefined).map((x: any) => x.movimento as number);
    expect(ids.length).toBeGreaterThan(0);
    const [low, high] = [Math.min(...ids), Math.max(...ids)];

    // Per (article, lot) in BIN: what the count read is the ledger before it, what is left the count plus the
    // ledger after it; a unit the count did not report held nothing before it.
    const { rows } = await t.pool.query(
      `SELECT m.articolo_id, l.codice AS lotto,
              COALESCE(sum(m.quantita) FILTER (WHERE m.id < $1), 0)::text AS prima,
              COALESCE(sum(m.quantita) FILTER (WHERE m.id > $2), 0)::text AS dopo,
              (SELECT g.quantita FROM giacenze_ubicazioni g WHERE g.articolo_id = m.articolo_id AND g.ubicazione_id = m.ubicazione_id
                  AND g.lotto_id IS NOT DISTINCT FROM m.lotto_id)::text AS ora
         FROM movimenti m JOIN ubicazioni u ON u.id = m.ubicazione_id LEFT JOIN lotti l ON l.id = m.lotto_id
        WHERE u.codice = 'BIN' AND m.articolo_id = ANY($3::int[]) GROUP BY m.articolo_id, m.ubicazione_id, m.lotto_id, l.codice`,
      [low, high, [art, lotArt, newArt]],
    );
    expect(rows.map((r) => r.articolo_id).sort()).toEqual([art, lotArt, newArt].sort());
    expect(count.righe.find((x: any) => x.articolo.id === lotArt)).toMatchObject({ lotto: "K1", contato: "0", implicita: true });
    for (const ledger of rows) {
      const row = count.righe.find((x: any) => x.articolo.id === ledger.articolo_id && x.lotto === ledger.lotto);
      if (row) {
        expect(row.attuale).toBe(String(Number(ledger.prima)));
        expect(Number(ledger.ora)).toBe(Number(row.contato) + Number(ledger.dopo));
      } else {
        expect(Number(ledger.prima)).toBe(0);
        expect(Number(ledger.ora)).toBe(Number(ledger.dopo));
      }
      expect(Number(ledger.ora)).toBeGreaterThanOrEqual(0);
    }
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });
});

/** Waits until some request of this database waits on a lock while running a statement containing `text` (or on an advisory lock). */
async function seenWaiting(text: string) {
  for (let i = 0; i < 200; i++) {
    const { rows } = await t.pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND (query ILIKE '%' || $1 || '%' OR wait_event = $1)`,
      [text],
    );
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`nessuna richiesta in attesa su ${text}`);
}
