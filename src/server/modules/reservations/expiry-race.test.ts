import type pg from "pg";
import { expect } from "vitest";
import { closePrisma, createPrisma } from "../../db/client";
import { inTransaction } from "../../db/transaction";
import { businessDate } from "../../lib/dates";
import { DomainError } from "../../lib/errors";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { untilWaiting } from "../../testing/locks";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { sweepExpiredReservations } from "./expiry.service";
import { upsertReservations } from "./reservations-upsert.service";
import { cancelReservation } from "./reservations.service";

/**
 * The expiry with real concurrency on real PostgreSQL (docs/api.md section 14): sweeps of two instances (two
 * pools) record one state change and one event per reservation; an update or a cancel racing a sweep ends in
 * exactly one of the two states. Every reservation here expires on 2099-01-01; the sweeps that race a
 * transaction take 2099-06-01 as their instant (the sweep's hook), while the racing transaction reads the
 * database's real clock, by which the reservation still holds.
 */

let t: TestDb;
let second: TestDb;
let actor: Actor;
const TZ = "Europe/Rome";
const EXPIRES = "2099-01-01T00:00:00Z";
const LATER = "2099-06-01T00:00:00Z";

test.beforeAll(async ({ db, actor: a, key }) => {
  t = db;
  actor = a;
  const m1 = (await seedWarehouse(t.prisma, "M1")).id;
  await seedArticle(t.prisma, "R");
  await t.pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('C1', 'Rossi S.r.l.', current_date)");
  const r = await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: m1, righe: [{ codice: "R", quantita: 200 }] } });
  expect(r.body.rifiutate).toBe(0);
  // A second instance: its own pool of connections on the same database.
  second = { ...t, prisma: createPrisma(t.url, 10) };
  return async () => closePrisma(second.prisma);
});

const body = (riferimento: string, quantita = 1, scade_il = EXPIRES) => ({
  prenotazioni: [{ riferimento, magazzino: "M1", cliente: "C1", scade_il, righe: [{ numero_riga: 1, codice: "R", quantita }] }],
});
async function reserve(riferimento: string): Promise<number> {
  const r = await caller(t, actor).reservations.upsert(body(riferimento));
  expect(r.righe[0]).toMatchObject({ esito: "creata" });
  return r.righe[0]!.id!;
}
const pastDue = (ids: number[]) =>
  t.pool.query("UPDATE prenotazioni SET scade_il = now() - interval '1 second' WHERE id = ANY($1::int[])", [ids]);

async function stateOf(id: number) {
  const { rows } = await t.pool.query(
    `SELECT p.stato, p.scade_il, (SELECT trim_scale(sum(r.prenotata))::text FROM righe_prenotazione r WHERE r.prenotazione_id = p.id) AS prenotata,
            (SELECT array_agg(e.dati->>'stato' ORDER BY e.id) FROM eventi e
              WHERE e.tipo = 'prenotazione.modificata' AND (e.dati->>'id')::int = p.id) AS eventi
       FROM prenotazioni p WHERE p.id = $1`,
    [id],
  );
  return rows[0] as { stato: string; scade_il: Date; prenotata: string; eventi: string[] };
}
const scadute = (s: { eventi: string[] }) => s.eventi.filter((e) => e === "scaduta").length;

/** A transaction holding the row locks of these reservations' rows: a sweep that took them waits there. */
async function holdRows(ids: number[]): Promise<{ release(): Promise<void> }> {
  const gate: pg.PoolClient = await t.pool.connect();
  await gate.query("BEGIN");
  await gate.query("SELECT id FROM righe_prenotazione WHERE prenotazione_id = ANY($1::int[]) FOR UPDATE", [ids]);
  return {
    async release() {
      await gate.query("COMMIT");
      gate.release();
    },
  };
}

/** Runs `work` in a transaction of the second instance, and keeps it open (its locks held) until `release`. */
function heldTransaction<T>(work: (tx: Parameters<Parameters<typeof inTransaction>[1]>[0]) => Promise<T>) {
  let release!: () => void;
  let ready!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const done = new Promise<void>((r) => {
    ready = r;
  });
  const result = inTransaction(second.prisma, async (tx) => {
    const out = await work(tx);
    ready();
    await gate;
    return out;
  });
  return { result, ready: done, release };
}

test("two instances sweeping at once: one state change and one event per reservation", async () => {
  const ids: number[] = [];
  for (let i = 0; i < 10; i++) ids.push(await reserve(`INSIEME-${i}`));
  await pastDue(ids);
  const gate = await holdRows([ids[0]!]);
  // The first instance's sweep has taken every due reservation and waits on a row.
  const first = sweepExpiredReservations(t.prisma);
  await untilWaiting(t.pool, "righe_prenotazione");
  // The second instance's, at the same moment, skips what the first holds, without waiting for it.
  expect(await sweepExpiredReservations(second.prisma)).toEqual([]);
  await gate.release();
  expect((await first).sort((a, b) => a - b)).toEqual(ids);
  for (const id of ids) {
    const s = await stateOf(id);
    expect(s).toMatchObject({ stato: "scaduta", prenotata: "0" });
    expect(scadute(s)).toBe(1);
  }
});

test("many sweeps on two instances racing freely: each reservation expired once", async () => {
  const ids: number[] = [];
  for (let i = 0; i < 30; i++) ids.push(await reserve(`CORSA-${i}`));
  await pastDue(ids);
  const swept = await Promise.all([t, second, t, second].map((x) => sweepExpiredReservations(x.prisma, { batch: 4 })));
  expect(
    swept
      .flat()
      .filter((id) => ids.includes(id))
      .sort((a, b) => a - b),
  ).toEqual(ids);
  for (const id of ids) expect(scadute(await stateOf(id))).toBe(1);
});

test("an update holding the reservation while the sweep runs: the sweep leaves it, the update wins", async () => {
  const id = await reserve("AGGIORNA-1");
  const oggi = businessDate(TZ);
  const update = heldTransaction((tx) => upsertReservations(tx, actor, body("AGGIORNA-1", 2, "2100-01-01T00:00:00Z"), { oggi }));
  await update.ready;
  // Due at this instant, but held by the update: skipped, not waited for.
  expect(await sweepExpiredReservations(t.prisma, { at: LATER })).not.toContain(id);
  update.release();
  expect((await update.result).righe[0]).toMatchObject({ esito: "aggiornata", righe: [{ prenotata: "2" }] });
  expect(await sweepExpiredReservations(t.prisma, { at: LATER })).not.toContain(id);
  const s = await stateOf(id);
  expect(s).toMatchObject({ stato: "attiva", prenotata: "2", eventi: ["attiva", "attiva"] });
  expect(s.scade_il.toISOString()).toBe("2100-01-01T00:00:00.000Z");
});

test("the sweep first: an update waiting on it finds the reservation scaduta", async () => {
  const id = await reserve("AGGIORNA-2");
  const gate = await holdRows([id]);
  const sweep = sweepExpiredReservations(t.prisma, { at: LATER });
  await untilWaiting(t.pool, "righe_prenotazione");
  // By the database's clock the reservation still holds: only the sweep's lock decides the update's outcome.
  const update = caller(second, actor).reservations.upsert(body("AGGIORNA-2", 2, "2100-01-01T00:00:00Z"));
  await untilWaiting(t.pool, "p.riferimento = ANY");
  await gate.release();
  expect(await sweep).toContain(id);
  expect((await update).righe[0]).toMatchObject({ esito: "rifiutata", errore: { codice: "prenotazione_chiusa" } });
  expect(await stateOf(id)).toMatchObject({ stato: "scaduta", prenotata: "0", eventi: ["attiva", "scaduta"] });
});

test("a cancel racing the sweep, either way round: annullata or scaduta, never both", async () => {
  const cancelled = await reserve("ANNULLA-1");
  const cancel = heldTransaction((tx) => cancelReservation(tx, { id: cancelled }, TZ));
  await cancel.ready;
  expect(await sweepExpiredReservations(t.prisma, { at: LATER })).not.toContain(cancelled);
  cancel.release();
  expect(await cancel.result).toMatchObject({ stato: "annullata" });
  expect(await sweepExpiredReservations(t.prisma, { at: LATER })).not.toContain(cancelled);
  expect(await stateOf(cancelled)).toMatchObject({ stato: "annullata", prenotata: "0", eventi: ["attiva", "annullata"] });

  const expired = await reserve("ANNULLA-2");
  const gate = await holdRows([expired]);
  const sweep = sweepExpiredReservations(t.prisma, { at: LATER });
  await untilWaiting(t.pool, "righe_prenotazione");
  const late = inTransaction(second.prisma, (tx) => cancelReservation(tx, { id: expired }, TZ)).catch((e: unknown) => e);
  await untilWaiting(t.pool, "prenotazioni p WHERE p.id");
  await gate.release();
  expect(await sweep).toContain(expired);
  const refused = await late;
  expect(refused).toBeInstanceOf(DomainError);
  expect(refused).toMatchObject({ codice: "prenotazione_chiusa" });
  expect(await stateOf(expired)).toMatchObject({ stato: "scaduta", prenotata: "0", eventi: ["attiva", "scaduta"] });
});
