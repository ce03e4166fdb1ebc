import { describe, expect } from "vitest";
import { closePrisma, createPrisma } from "../../db/client";
import { LOCATION_GATE } from "../../db/advisory-locks";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle } from "../../testing/fixtures";
import { seedLocationWarehouse } from "../../testing/location-fixtures";
import { waitsWithoutHolding } from "../../testing/locks";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { verifyLedger } from "../ledger/verify.service";
import { uncoverHelpers } from "./uncover-testing";

/**
 * A location retyped into `quarantena` by POST /ubicazioni (docs/api.md sections 11 and 14): the stock lying there
 * stops covering, so the reservations of the pairs with stock there are uncovered, newest first, in the upsert's
 * transaction; retyped out of it, the stock covers again, the oldest first. The location's gate is held exclusive
 * while it is retyped: a load into it, on another instance, either committed before (and is seen) or waits.
 */

let t: TestDb;
let second: TestDb;
let key: string;
let actor: Actor;
let w: number;
let h: ReturnType<typeof uncoverHelpers>;

test.beforeAll(async ({ db, key: k, actor: a }) => {
  t = db;
  key = k;
  actor = a;
  h = uncoverHelpers(t, key);
  w = await seedLocationWarehouse(t, actor, "MR", [
    { codice: "RIC", tipo: "ricevimento" },
    { codice: "S1", tipo: "stoccaggio" },
    { codice: "S2", tipo: "stoccaggio" },
    { codice: "S3", tipo: "stoccaggio" },
    { codice: "S4", tipo: "stoccaggio" },
  ]);
  for (const c of ["RT", "RU", "RW1", "RW2", "RW3", "RW4"]) await seedArticle(t.prisma, c);
  await t.pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('C1', 'Rossi S.r.l.', current_date)");
  const load = await rest("POST", "/movimenti", {
    key,
    body: {
      natura: "carico",
      magazzino: w,
      righe: [
        { codice: "RT", quantita: 6, ubicazione: "S1" },
        { codice: "RT", quantita: 4, ubicazione: "S2" },
        { codice: "RU", quantita: 4, ubicazione: "S1" },
        { codice: "RU", quantita: 2, ubicazione: "S3" },
        ...["RW1", "RW2", "RW3", "RW4"].map((codice) => ({ codice, quantita: 3, ubicazione: "S1" })),
      ],
    },
  });
  expect(load.body.rifiutate).toBe(0);
  second = { ...t, prisma: createPrisma(t.url, 4) };
  return async () => closePrisma(second.prisma);
});

const retype = (codice: string, tipo: string, instance: TestDb = t) =>
  caller(instance, actor, "rest").masterData.upsertLocations({ ubicazioni: [{ magazzino: "MR", codice, tipo }] });
const eventsAfter = async (after: number) =>
  (await t.pool.query("SELECT tipo, (dati->>'id')::int AS id, xmin::text AS tx FROM eventi WHERE id > $1 ORDER BY id", [after])).rows as {
    tipo: string;
    id: number;
    tx: string;
  }[];

describe("a location retyped", () => {
  test("into quarantena: its stock stops covering, newest first, in the upsert's transaction; out of it, the oldest is covered first", async () => {
    const p1 = await h.reserve("MR", "RT", 3);
    const p2 = await h.reserve("MR", "RT", 3);
    const p3 = await h.reserve("MR", "RT", 3);
    const before = await h.lastEvent();
    expect((await retype("S2", "quarantena")).righe[0]).toMatchObject({ esito: "aggiornato" });
    // Held 9, 6 outside quarantine: 3 uncovered, all on the newest.
    expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "0", "3"]);
    const recorded = await eventsAfter(before);
    expect(new Set(recorded.map((e) => e.tx)).size).toBe(1);
    expect(recorded.map((e) => e.tipo).sort()).toEqual(["prenotazione.modificata", "prenotazione.scoperta", "ubicazione.modificato"]);
    expect(recorded.find((e) => e.tipo === "prenotazione.scoperta")!.id).toBe(p3.id);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);

    // A count leaves 4 outside quarantine (S1 2): 5 uncovered, 3 on the newest, 2 on the one before it.
    await rest("POST", "/giacenze/allinea", { key, body: { magazzino: w, righe: [{ codice: "RT", ubicazione: "S1", contato: 4 }] } });
    expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "2", "3"]);
    // Retyped back: 8 cover the 9 held, the older covered first; a change of description alone touches nothing.
    const back = await h.lastEvent();
    expect((await retype("S2", "stoccaggio")).righe[0]).toMatchObject({ esito: "aggiornato" });
    expect(await h.uncovered(p1.id, p2.id, p3.id)).toEqual(["0", "0", "1"]);
    expect((await eventsAfter(back)).filter((e) => e.tipo === "prenotazione.scoperta").map((e) => e.id)).toEqual([p2.id, p3.id]);
    const quiet = await h.lastEvent();
    await caller(t, actor, "rest").masterData.upsertLocations({ ubicazioni: [{ magazzino: "MR", codice: "S2", descrizione: "Corsia 2" }] });
    expect((await eventsAfter(quiet)).map((e) => e.tipo)).toEqual(["ubicazione.modificato"]);
    expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
  });

  test("the retype waits on the location's gate, held by a writer putting goods there, holding no balance", async () => {
    const p1 = await h.reserve("MR", "RU", 4);
    const p2 = await h.reserve("MR", "RU", 2);
    const { rows } = await t.pool.query("SELECT id FROM ubicazioni WHERE magazzino_id = $1 AND codice = 'S3'", [w]);
    const { waited, free, result } = await waitsWithoutHolding(t.pool, {
      hold: { sql: "SELECT pg_advisory_xact_lock_shared($1::int, $2::int)", params: [LOCATION_GATE, rows[0].id], locking: false },
      probe: {
        sql: "SELECT 1 FROM giacenze WHERE articolo_id = (SELECT id FROM articoli WHERE codice = 'RU') AND magazzino_id = $1",
        params: [w],
      },
      table: "pg_advisory_xact_lock",
      send: () => retype("S3", "quarantena", second),
    });
    expect(waited).toBe(true);
    expect(free).toBe(true);
    expect(result.righe[0]).toMatchObject({ esito: "aggiornato" });
    expect(await h.uncovered(p1.id, p2.id)).toEqual(["0", "2"]);
  });

  test("racing a move into the location on another instance: what ends in quarantine is exactly what is uncovered", async () => {
    // Each round a fresh article, all its 3 pieces held, none yet in S4: the retype finds it there only if the move
    // committed first; otherwise the move waits on the gate and reads S4 as quarantine.
    for (const [i, codice] of ["RW1", "RW2", "RW3", "RW4"].entries()) {
      const p = await h.reserve("MR", codice, 3);
      const [retyped, moved] = await Promise.all([
        retype("S4", "quarantena", i % 2 === 0 ? t : second),
        caller(i % 2 === 0 ? second : t, actor, "rest").movements.write({
          natura: "trasferimento",
          magazzino_origine: w,
          magazzino: w,
          righe: [{ codice, quantita: 1, ubicazione_origine: "S1", ubicazione: "S4" }],
        }),
      ]);
      expect(retyped.righe[0]).toMatchObject({ esito: "aggiornato" });
      expect(moved.righe[0]).toMatchObject({ esito: "scritta" });
      expect(await h.uncovered(p.id)).toEqual(["1"]);
      expect((await verifyLedger(t.prisma)).differenze).toEqual([]);
      await retype("S4", "stoccaggio", second);
      expect(await h.uncovered(p.id)).toEqual(["0"]);
    }
  });
});
