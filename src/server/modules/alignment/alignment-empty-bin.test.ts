import { expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, stockOf } from "../../testing/fixtures";
import { heldIn as held, seedLocationWarehouse } from "../../testing/location-fixtures";
import { test } from "../../testing/test";
import { verifyLedger } from "../ledger/verify.service";

/**
 * A bin found empty (docs/api.md section 11, "Counting a location"): `completa: true` with the bin and no rows
 * counts every article and lot it holds as zero, through the alignment's own path (its gate, lock order and
 * `correzione` movements). Without `completa` an empty count is still refused, and writes nothing.
 */

let t: TestDb;
let key: string;
let w: number;
const a: Record<string, number> = {};

const heldIn = (ubicazione: string, articolo: number, lotto: string | null = null) => held(t, ubicazione, articolo, lotto);
const align = (body: unknown) => rest("POST", "/giacenze/allinea", { key, body });

async function footprint() {
  const { rows } = await t.pool.query(
    `SELECT (SELECT count(*) FROM movimenti)::int AS movimenti, (SELECT count(*) FROM operazioni)::int AS operazioni,
            (SELECT COALESCE(sum(quantita * id), 0) FROM giacenze_ubicazioni)::text AS ubicazioni,
            (SELECT COALESCE(sum(residua), 0) FROM lotti)::text AS lotti, (SELECT COALESCE(sum(quantita), 0) FROM giacenze)::text AS giacenze`,
  );
  return rows[0];
}

test.beforeAll(async ({ db, key: k, actor }) => {
  t = db;
  key = k;
  w = await seedLocationWarehouse(t, actor, "VUOTA", [
    { codice: "RIC", tipo: "ricevimento" },
    { codice: "BIN", tipo: "stoccaggio" },
    { codice: "OUT", tipo: "stoccaggio" },
  ]);
  a.A = (await seedArticle(t.prisma, "A")).id;
  a.B = (await seedArticle(t.prisma, "B")).id;
  a.LOT = (await seedArticle(t.prisma, "LOT", { lotti: true })).id;
  const placed = await align({
    magazzino: w,
    righe: [
      { codice: "A", contato: 4, ubicazione: "BIN" },
      { codice: "LOT", lotto: "L1", contato: 3, ubicazione: "BIN" },
      { codice: "LOT", lotto: "L2", contato: 1, ubicazione: "BIN" },
      { codice: "A", contato: 5, ubicazione: "OUT" },
      { codice: "LOT", lotto: "L1", contato: 2, ubicazione: "OUT" },
      { codice: "B", contato: 7, ubicazione: "OUT" },
    ],
  });
  expect(placed.body.scritte).toBe(6);
});

test("without completa, no rows is still richiesta_non_valida on righe, and writes nothing", async () => {
  const before = await footprint();
  for (const body of [
    { magazzino: w, ubicazione: "BIN", righe: [] },
    { magazzino: w, righe: [] },
    { magazzino: w, completa: true, righe: [] },
  ]) {
    const r = await align(body);
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("richiesta_non_valida");
  }
  const r = await align({ magazzino: w, ubicazione: "BIN", righe: [] });
  expect(r.body.campo).toBe("righe");
  expect(r.body.messaggio).toContain("completa");
  expect(await footprint()).toEqual(before);
});

test("an unknown bin found empty is ubicazione_non_trovata, and writes nothing", async () => {
  const before = await footprint();
  const r = await align({ magazzino: w, ubicazione: "NESSUNA", completa: true, righe: [] });
  expect([r.status, r.body.codice, r.body.campo]).toEqual([422, "ubicazione_non_trovata", "ubicazione"]);
  expect(await footprint()).toEqual(before);
});

test("the preview of an empty bin names what it would zero and writes nothing", async () => {
  const before = await footprint();
  const sim = await align({ magazzino: w, ubicazione: "BIN", completa: true, simula: true, righe: [] });
  expect(sim.status).toBe(200);
  expect(sim.body.righe.map((x: any) => [x.indice, x.articolo.codice, x.lotto, x.ubicazione, x.attuale, x.contato, x.esito])).toEqual([
    [0, "A", null, "BIN", "4", "0", "scritta"],
    [1, "LOT", "L1", "BIN", "3", "0", "scritta"],
    [2, "LOT", "L2", "BIN", "1", "0", "scritta"],
  ]);
  expect(await footprint()).toEqual(before);
});

test("a bin found empty: everything it held becomes zero by correction movements, other bins untouched", async () => {
  const stockA = await stockOf(t, a.A!, w);
  const r = await align({ magazzino: w, ubicazione: "BIN", completa: true, righe: [], causale: "Ubicazione vuota" });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ scritte: 3, invariate: 0, rifiutate: 0 });
  expect(r.body.operazione).toEqual(expect.any(Number));
  expect(r.body.righe.every((x: any) => x.implicita === true && x.delta.startsWith("-") && typeof x.movimento === "number")).toBe(true);
  expect([await heldIn("BIN", a.A!), await heldIn("BIN", a.LOT!, "L1"), await heldIn("BIN", a.LOT!, "L2")]).toEqual([0, 0, 0]);
  expect([await heldIn("OUT", a.A!), await heldIn("OUT", a.LOT!, "L1"), await heldIn("OUT", a.B!)]).toEqual([5, 2, 7]);
  expect(await stockOf(t, a.A!, w)).toEqual({ ledger: stockA.ledger - 4, balance: stockA.balance - 4 });
  const moved = await rest("GET", `/movimenti?operazione=${r.body.operazione}`, { key });
  expect(
    moved.body.movimenti.map((m: any) => [m.articolo.codice, m.lotto, m.ubicazione, m.quantita, m.natura, m.origine, m.causale]),
  ).toEqual([
    ["A", null, "BIN", "-4", "scarico", "correzione", "Ubicazione vuota"],
    ["LOT", "L1", "BIN", "-3", "scarico", "correzione", "Ubicazione vuota"],
    ["LOT", "L2", "BIN", "-1", "scarico", "correzione", "Ubicazione vuota"],
  ]);
  const lots = await rest("GET", `/articoli/${a.LOT}/lotti?magazzino=${w}`, { key });
  expect(lots.body.lotti.map((l: any) => [l.lotto ?? l.codice, l.residua ?? l.quantita])).toEqual(expect.arrayContaining([["L1", "2"]]));
  expect((await verifyLedger(t.prisma)).ok).toBe(true);

  // Counted empty again: nothing left to zero, nothing written.
  const before = await footprint();
  const again = await align({ magazzino: w, ubicazione: "BIN", completa: true, righe: [] });
  expect(again.body).toEqual({ operazione: null, scritte: 0, invariate: 0, rifiutate: 0, righe: [] });
  expect(await footprint()).toEqual(before);
});
