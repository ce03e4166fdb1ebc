import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { countRows, rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { sweepExpiredReservations } from "./expiry.service";

/**
 * The expiry of reservations as a stored state (docs/api.md section 14), time driven through the database: a
 * reservation's `scade_il` is moved into the past by SQL, then the sweep is called as the worker calls it.
 */

let t: TestDb;
let key: string;

test.beforeAll(async ({ db, key: k }) => {
  t = db;
  key = k;
  const m1 = (await seedWarehouse(t.prisma, "M1")).id;
  for (const c of ["A", "B", "C", "D", "E"]) await seedArticle(t.prisma, c);
  await t.pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('C1', 'Rossi S.r.l.', current_date)");
  const r = await rest("POST", "/movimenti", {
    key,
    body: {
      natura: "carico",
      magazzino: m1,
      righe: ["A", "B", "C", "D", "E"].map((codice) => ({ codice, quantita: 10 })),
    },
  });
  expect(r.body.rifiutate).toBe(0);
});

type Row = { numero_riga: number; codice: string; quantita: number };
const upsert = (riferimento: string, righe: Row[], over: Record<string, unknown> = {}) =>
  rest("POST", "/prenotazioni", { key, body: { prenotazioni: [{ riferimento, magazzino: "M1", cliente: "C1", ...over, righe }] } });
async function reserve(riferimento: string, righe: Row[], over: Record<string, unknown> = { scade_il: "2099-01-01T00:00:00Z" }) {
  const r = await upsert(riferimento, righe, over);
  expect(r.body.righe[0]).toMatchObject({ esito: "creata" });
  return r.body.righe[0].id as number;
}
const expire = (id: number) => t.pool.query("UPDATE prenotazioni SET scade_il = now() - interval '1 second' WHERE id = $1", [id]);
const listed = async (id: number) => (await rest("GET", `/prenotazioni?dopo=${id - 1}&limite=1`, { key })).body.prenotazioni[0];
const availability = async (codice: string) => (await rest("GET", `/disponibilita?codice=${codice}`, { key })).body.disponibilita[0];
const events = async (id: number) =>
  (
    await t.pool.query("SELECT id FROM eventi WHERE tipo = 'prenotazione.modificata' AND (dati->>'id')::int = $1 ORDER BY id", [id])
  ).rows.map((r) => r.id as number);
/** An event as GET /eventi renders it. */
const rendered = async (evento: number) => (await rest("GET", `/eventi?dopo=${evento - 1}&limite=1`, { key })).body.eventi[0];

describe("the sweep", () => {
  test("turns an attiva past its scade_il into scaduta: rows released, one event, availability unchanged by it", async () => {
    const id = await reserve("SC-1", [
      { numero_riga: 1, codice: "A", quantita: 4 },
      { numero_riga: 2, codice: "B", quantita: 3 },
    ]);
    expect(await availability("A")).toMatchObject({ prenotata: "4", disponibile: "6" });
    await expire(id);
    // At once, before any sweep: the holds no longer count.
    const before = await availability("A");
    expect(before).toMatchObject({ prenotata: "0", disponibile: "10" });
    const versione = (await listed(id)).versione;
    // Moving scade_il by hand recorded its own event: what follows counts from here.
    const recordedBefore = (await events(id)).length;

    expect(await sweepExpiredReservations(t.prisma)).toEqual([id]);
    const after = await listed(id);
    expect(after).toMatchObject({
      stato: "scaduta",
      righe: [
        { numero_riga: 1, richiesta: "4", prenotata: "0", prelevata: "0", spedita: "0", scoperta: "0" },
        { numero_riga: 2, richiesta: "3", prenotata: "0", prelevata: "0", spedita: "0", scoperta: "0" },
      ],
    });
    expect(after.versione).toBeGreaterThan(versione);
    // The stored state and the availability agree: what the sweep released was already free.
    expect(await availability("A")).toEqual(before);
    expect(await availability("B")).toMatchObject({ prenotata: "0", disponibile: "10" });
    const recorded = (await events(id)).slice(recordedBefore);
    expect(recorded).toHaveLength(1);
    expect(await rendered(recorded[0]!)).toMatchObject({ tipo: "prenotazione.modificata", dati: after });

    // Nothing more is due: a second sweep writes nothing and records nothing.
    expect(await sweepExpiredReservations(t.prisma)).toEqual([]);
    expect((await listed(id)).versione).toBe(after.versione);
    expect(await events(id)).toHaveLength(recordedBefore + 1);
  });

  test("leaves alone a reservation without scade_il, one not yet due, and one in_prelievo past its scade_il", async () => {
    const open = await reserve("SC-2A", [{ numero_riga: 1, codice: "C", quantita: 1 }], {});
    const later = await reserve("SC-2B", [{ numero_riga: 1, codice: "C", quantita: 1 }]);
    const picking = await reserve("SC-2C", [{ numero_riga: 1, codice: "C", quantita: 2 }]);
    // The state of section 15, set by hand: a reservation being picked does not expire.
    await t.pool.query("UPDATE prenotazioni SET stato = 'in_prelievo', scade_il = now() - interval '1 hour' WHERE id = $1", [picking]);
    const versions = await Promise.all([open, later, picking].map(async (id) => (await listed(id)).versione));
    const eventsBefore = await countRows(t, "eventi");

    expect(await sweepExpiredReservations(t.prisma)).toEqual([]);
    expect((await listed(picking)).stato).toBe("in_prelievo");
    expect((await listed(picking)).righe[0].prenotata).toBe("2");
    expect(await Promise.all([open, later, picking].map(async (id) => (await listed(id)).versione))).toEqual(versions);
    expect(await countRows(t, "eventi")).toBe(eventsBefore);
    expect(await availability("C")).toMatchObject({ prenotata: "4", disponibile: "6" });
  });

  test("expires everything due, batch after batch", async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await reserve(`SC-3-${i}`, [{ numero_riga: 1, codice: "D", quantita: 1 }]));
    for (const id of ids) await expire(id);
    expect((await sweepExpiredReservations(t.prisma, { batch: 2 })).sort((a, b) => a - b)).toEqual(ids);
    for (const id of ids) expect((await listed(id)).stato).toBe("scaduta");
    expect(await availability("D")).toMatchObject({ prenotata: "0", disponibile: "10" });
  });

  test("a reservation scaduta is closed: an update and a cancel are prenotazione_chiusa", async () => {
    const righe = [{ numero_riga: 1, codice: "E", quantita: 1 }];
    const id = await reserve("SC-4", righe);
    await expire(id);
    expect(await sweepExpiredReservations(t.prisma)).toEqual([id]);
    const recorded = (await events(id)).length;
    const update = await upsert("SC-4", righe, { scade_il: "2099-01-01T00:00:00Z" });
    expect(update.body.righe[0]).toMatchObject({ esito: "rifiutata", errore: { codice: "prenotazione_chiusa" } });
    expect(update.body.righe[0].errore.messaggio).toContain("scaduta");
    const cancel = await rest("POST", `/prenotazioni/${id}/annulla`, { key, body: {} });
    expect(cancel).toMatchObject({ status: 422, body: { codice: "prenotazione_chiusa" } });
    expect(cancel.body.messaggio).toContain("scaduta");
    expect(await events(id)).toHaveLength(recorded);
  });
});

describe("POST /prenotazioni with a scade_il already past", () => {
  test("a new reservation is campo_non_valido on scade_il, and nothing is written", async () => {
    const before = await Promise.all(["prenotazioni", "righe_prenotazione", "eventi"].map((x) => countRows(t, x)));
    const r = await upsert("SC-5", [{ numero_riga: 1, codice: "E", quantita: 1 }], { scade_il: "2020-01-01T00:00:00+01:00" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ create: 0, rifiutate: 1 });
    expect(r.body.righe[0]).toMatchObject({ esito: "rifiutata", errore: { codice: "campo_non_valido", campo: "scade_il" } });
    expect(r.body.righe[0].errore.messaggio).toContain("è già passata");
    expect(await Promise.all(["prenotazioni", "righe_prenotazione", "eventi"].map((x) => countRows(t, x)))).toEqual(before);
  });

  test("an update to a past scade_il is refused and leaves the previous version in force", async () => {
    const righe = [{ numero_riga: 1, codice: "E", quantita: 2 }];
    const id = await reserve("SC-6", righe);
    const stored = await listed(id);
    const eventsBefore = await countRows(t, "eventi");
    // The instant of the database's clock itself is already past.
    const { rows } = await t.pool.query("SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"') AS ora");
    const r = await upsert("SC-6", righe, { scade_il: rows[0].ora });
    expect(r.body.righe[0]).toMatchObject({ esito: "rifiutata", errore: { codice: "campo_non_valido", campo: "scade_il" } });
    expect(await listed(id)).toEqual(stored);
    expect(await countRows(t, "eventi")).toBe(eventsBefore);
    // The same rows with a future scade_il go through.
    expect((await upsert("SC-6", righe, { scade_il: "2099-06-01T00:00:00Z" })).body.righe[0]).toMatchObject({ esito: "aggiornata" });
  });
});
