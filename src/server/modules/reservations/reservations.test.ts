import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { countRows, rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { seedLocationWarehouse } from "../../testing/location-fixtures";
import { test } from "../../testing/test";

/** POST /prenotazioni, POST /prenotazioni/{id}/annulla, GET /prenotazioni (docs/api.md section 14). */

let t: TestDb;
let key: string;
let m1: number;

test.beforeAll(async ({ db, key: k, actor }) => {
  t = db;
  key = k;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  await seedWarehouse(t.prisma, "M2");
  for (const c of ["A", "B", "C", "D", "E", "F", "G", "H"]) await seedArticle(t.prisma, c);
  await seedArticle(t.prisma, "EAN", { ean: "8001234567897" });
  await seedArticle(t.prisma, "LOT", { lotti: true });
  await seedArticle(t.prisma, "OFF");
  await t.pool.query("UPDATE articoli SET attivo = false WHERE codice = 'OFF'");
  const tpl = await seedArticle(t.prisma, "TPL", { haVarianti: true });
  await seedArticle(t.prisma, "TPL-V", { modelloId: tpl.id });
  await t.pool.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('C1', 'Rossi S.r.l.', current_date)");
  await load(m1, [
    { codice: "A", quantita: 10 },
    { codice: "B", quantita: 5 },
    { codice: "C", quantita: 4 },
    { codice: "D", quantita: 6 },
    { codice: "E", quantita: 8 },
    { codice: "F", quantita: 3 },
    { codice: "G", quantita: 10 },
    { codice: "H", quantita: 10 },
    { codice: "LOT", quantita: 5, lotto: "L1" },
    { codice: "LOT", quantita: 4, lotto: "VECCHIO", scadenza: "2020-01-01" },
  ]);
  quarantine = await seedLocationWarehouse(t, actor, "MQ", [
    { codice: "RIC", tipo: "ricevimento" },
    { codice: "S1", tipo: "stoccaggio" },
    { codice: "Q1", tipo: "quarantena" },
  ]);
});
let quarantine: number;

async function load(magazzino: number, righe: unknown[]) {
  const r = await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino, righe } });
  expect(r.status).toBe(200);
  expect(r.body.rifiutate).toBe(0);
}

type Row = { numero_riga: number; codice?: string; ean?: string; quantita: number; lotto?: string; prezzo?: string };
const reservation = (riferimento: string, righe: Row[], over: Record<string, unknown> = {}) => ({
  riferimento,
  magazzino: "M1",
  cliente: "C1",
  ...over,
  righe,
});
const upsert = (prenotazioni: unknown[], headers: Record<string, string> = {}) =>
  rest("POST", "/prenotazioni", { key, body: { prenotazioni }, headers });
const one = async (p: unknown) => {
  const r = await upsert([p]);
  expect(r.status).toBe(200);
  return r.body.righe[0];
};
const availability = async (codice: string, query = "") => {
  const r = await rest("GET", `/disponibilita?codice=${codice}${query}`, { key });
  expect(r.status).toBe(200);
  return r.body.disponibilita[0];
};

describe("POST /prenotazioni", () => {
  test("creates, then answers the same reservation invariata, holding what was asked", async () => {
    const p = reservation("ORD-1", [{ numero_riga: 1, codice: "A", quantita: 4, prezzo: "2.5" }], {
      scade_il: "2099-01-01T00:00:00+01:00",
    });
    const first = await one(p);
    expect(first).toMatchObject({ esito: "creata", riferimento: "ORD-1", righe: [{ numero_riga: 1, richiesta: "4", prenotata: "4" }] });
    const again = await one(p);
    expect(again).toMatchObject({ esito: "invariata", id: first.id, righe: [{ numero_riga: 1, richiesta: "4", prenotata: "4" }] });
    expect(await availability("A")).toMatchObject({ giacenza: "10", prenotata: "4", disponibile: "6" });
    const listed = await rest("GET", "/prenotazioni?riferimento=ORD-1", { key });
    expect(listed.body.prenotazioni).toEqual([
      {
        id: first.id,
        riferimento: "ORD-1",
        magazzino: m1,
        cliente: expect.any(Number),
        stato: "attiva",
        scade_il: "2099-01-01T00:00:00.000+01:00",
        versione: expect.any(Number),
        righe: [
          {
            numero_riga: 1,
            articolo: { id: expect.any(Number), codice: "A" },
            lotto: null,
            richiesta: "4",
            prenotata: "4",
            prelevata: "0",
            spedita: "0",
            scoperta: "0",
          },
        ],
      },
    ]);
  });

  test("an update raises with availability, a cut releases, a row left out is released", async () => {
    const first = await one(
      reservation("ORD-2", [
        { numero_riga: 1, codice: "B", quantita: 2 },
        { numero_riga: 2, codice: "C", quantita: 4 },
      ]),
    );
    expect(first.esito).toBe("creata");
    const raised = await one(reservation("ORD-2", [{ numero_riga: 1, codice: "B", quantita: 5 }]));
    expect(raised).toMatchObject({ esito: "aggiornata", id: first.id, righe: [{ numero_riga: 1, richiesta: "5", prenotata: "5" }] });
    expect(await availability("C")).toMatchObject({ prenotata: "0", disponibile: "4" });
    const tooMuch = await one(reservation("ORD-2", [{ numero_riga: 1, codice: "B", quantita: 6 }]));
    expect(tooMuch).toMatchObject({
      esito: "rifiutata",
      errore: { codice: "disponibilita_insufficiente", righe: [{ numero_riga: 1, richiesta: "6", disponibile: "5" }] },
    });
    // The refused update leaves the previous version in force.
    expect(await availability("B")).toMatchObject({ prenotata: "5", disponibile: "0" });
  });

  test("without parziale every row in full or nothing; with parziale each row what is free, never topped up by itself", async () => {
    await one(reservation("ORD-3A", [{ numero_riga: 1, codice: "D", quantita: 4 }]));
    const whole = await one(
      reservation("ORD-3B", [
        { numero_riga: 1, codice: "D", quantita: 3 },
        { numero_riga: 2, codice: "E", quantita: 1 },
      ]),
    );
    expect(whole).toMatchObject({
      esito: "rifiutata",
      errore: { codice: "disponibilita_insufficiente", righe: [{ numero_riga: 1, richiesta: "3", disponibile: "2" }] },
    });
    expect(whole.id).toBeUndefined();
    expect(await availability("E")).toMatchObject({ prenotata: "0" });
    const partial = await one(
      reservation(
        "ORD-3B",
        [
          { numero_riga: 1, codice: "D", quantita: 3 },
          { numero_riga: 2, codice: "E", quantita: 1 },
        ],
        { parziale: true },
      ),
    );
    expect(partial).toMatchObject({
      esito: "creata",
      righe: [
        { numero_riga: 1, richiesta: "3", prenotata: "2" },
        { numero_riga: 2, richiesta: "1", prenotata: "1" },
      ],
    });
    // Stock released elsewhere does not top it up; sending it again does.
    const released = await rest(
      "POST",
      `/prenotazioni/${(await one(reservation("ORD-3A", [{ numero_riga: 1, codice: "D", quantita: 4 }]))).id}/annulla`,
      {
        key,
        body: {},
      },
    );
    expect(released.body.stato).toBe("annullata");
    expect(await availability("D")).toMatchObject({ prenotata: "2", disponibile: "4" });
    const again = await one(
      reservation(
        "ORD-3B",
        [
          { numero_riga: 1, codice: "D", quantita: 3 },
          { numero_riga: 2, codice: "E", quantita: 1 },
        ],
        { parziale: true },
      ),
    );
    expect(again).toMatchObject({
      esito: "aggiornata",
      righe: [
        { numero_riga: 1, prenotata: "3" },
        { numero_riga: 2, prenotata: "1" },
      ],
    });
  });

  test("reservations of one call take from one pool, in the call's order", async () => {
    const r = await upsert([
      reservation("ORD-4A", [{ numero_riga: 1, codice: "F", quantita: 2 }]),
      reservation("ORD-4B", [{ numero_riga: 1, codice: "F", quantita: 2 }]),
      reservation("ORD-4C", [{ numero_riga: 1, codice: "F", quantita: 1 }]),
    ]);
    expect(r.body).toMatchObject({ create: 2, rifiutate: 1 });
    expect(r.body.righe.map((o: { esito: string }) => o.esito)).toEqual(["creata", "rifiutata", "creata"]);
    expect(r.body.righe[1].errore.righe).toEqual([{ numero_riga: 1, richiesta: "2", disponibile: "1" }]);
  });

  test("a lot: held from the lot and from the article; an expired or unknown lot is lotto_non_disponibile", async () => {
    const lot = await one(reservation("ORD-5A", [{ numero_riga: 1, codice: "LOT", quantita: 3, lotto: "L1" }]));
    expect(lot).toMatchObject({ esito: "creata", righe: [{ prenotata: "3" }] });
    // The expired lot's 4 pieces are not free: only L1's 2 remain for a hold without lot.
    const noLot = await one(reservation("ORD-5B", [{ numero_riga: 1, codice: "LOT", quantita: 3 }]));
    expect(noLot).toMatchObject({ esito: "rifiutata", errore: { codice: "disponibilita_insufficiente", righe: [{ disponibile: "2" }] } });
    expect(await availability("LOT")).toMatchObject({ giacenza: "9", scaduta: "4", prenotata: "3", disponibile: "2" });
    const expired = await one(reservation("ORD-5C", [{ numero_riga: 1, codice: "LOT", quantita: 1, lotto: "VECCHIO" }]));
    expect(expired).toMatchObject({ esito: "rifiutata", errore: { codice: "lotto_non_disponibile" } });
    expect(expired.errore.messaggio).toContain("scaduto");
    const unknown = await one(reservation("ORD-5D", [{ numero_riga: 1, codice: "LOT", quantita: 1, lotto: "NESSUNO" }]));
    expect(unknown).toMatchObject({ esito: "rifiutata", errore: { codice: "lotto_non_disponibile" } });
  });

  test("stock in a quarantena location is not free to promise", async ({ actor: _ }) => {
    const mq = quarantine;
    const r = await rest("POST", "/movimenti", {
      key,
      body: {
        natura: "carico",
        magazzino: mq,
        righe: [
          { codice: "G", quantita: 3, ubicazione: "S1" },
          { codice: "G", quantita: 2, ubicazione: "Q1" },
        ],
      },
    });
    expect(r.body.rifiutate).toBe(0);
    const held = await one(reservation("ORD-Q", [{ numero_riga: 1, codice: "G", quantita: 4 }], { magazzino: "MQ" }));
    expect(held).toMatchObject({ esito: "rifiutata", errore: { righe: [{ disponibile: "3" }] } });
    expect(await availability("G", `&magazzino=${mq}`)).toMatchObject({ giacenza: "5", in_quarantena: "2", disponibile: "3" });
  });

  test("per-reservation refusals never block the others", async () => {
    const r = await upsert([
      reservation("ORD-6A", [{ numero_riga: 1, codice: "H", quantita: 1 }], { cliente: "NESSUNO" }),
      reservation("ORD-6B", [{ numero_riga: 1, codice: "H", quantita: 1 }], { magazzino: "NESSUNO" }),
      reservation("ORD-6C", [{ numero_riga: 1, codice: "H", quantita: 1 }]),
      reservation("ORD-6C", [{ numero_riga: 1, codice: "H", quantita: 1 }]),
      reservation("ORD-6D", [{ numero_riga: 1, codice: "NESSUNO", quantita: 1 }]),
      reservation("ORD-6E", [{ numero_riga: 1, codice: "TPL", quantita: 1 }]),
      reservation("ORD-6F", [{ numero_riga: 1, codice: "OFF", quantita: 1 }]),
      reservation("ORD-6G", [{ numero_riga: 1, codice: "H", quantita: 0.0001 }]),
      reservation("ORD-6H", [{ numero_riga: 1, codice: "H", quantita: 1, prezzo: "1,5" }]),
      reservation("ORD-6I", [{ numero_riga: 1, codice: "H", quantita: 1, lotto: "X" }]),
      reservation("ORD-6J", [
        { numero_riga: 1, codice: "H", quantita: 1 },
        { numero_riga: 1, codice: "H", quantita: 1 },
      ]),
      reservation("ORD-6K", [{ numero_riga: 1, codice: "H", ean: "8001234567897", quantita: 1 }]),
      { riferimento: "ORD-6L", magazzino: "M1", cliente: "C1", righe: [{ numero_riga: 1, codice: "H", quantita: "1" }] },
      reservation("ORD-6M", [{ numero_riga: 1, codice: "H", quantita: 2 }]),
    ]);
    expect(r.status).toBe(200);
    const codes = r.body.righe.map((o: { esito: string; errore?: { codice: string } }) => o.errore?.codice ?? o.esito);
    expect(codes).toEqual([
      "cliente_non_trovato",
      "magazzino_non_trovato",
      "riferimento_ripetuto",
      "riferimento_ripetuto",
      "articolo_non_trovato",
      "articolo_con_varianti",
      "articolo_non_attivo",
      "quantita_non_valida",
      "prezzo_non_valido",
      "lotto_non_previsto",
      "numero_riga_ripetuto",
      "articolo_ambiguo",
      "campo_non_valido",
      "creata",
    ]);
    expect(r.body.righe[12].errore.campo).toBe("righe[0].quantita");
  });

  test("an update of a reservation annullata or past its scade_il is prenotazione_chiusa", async () => {
    const p = reservation("ORD-7", [{ numero_riga: 1, codice: "H", quantita: 1 }]);
    const created = await one(p);
    await rest("POST", `/prenotazioni/${created.id}/annulla`, { key, body: {} });
    expect(await one(p)).toMatchObject({ esito: "rifiutata", errore: { codice: "prenotazione_chiusa" } });
    const late = await one(reservation("ORD-8", [{ numero_riga: 1, codice: "H", quantita: 1 }], { scade_il: "2099-01-01T00:00:00Z" }));
    await t.pool.query("UPDATE prenotazioni SET scade_il = now() - interval '1 second' WHERE id = $1", [late.id]);
    // At once, by the database's clock, it no longer holds, and it is not updated.
    expect(await one(reservation("ORD-8", [{ numero_riga: 1, codice: "H", quantita: 1 }]))).toMatchObject({
      errore: { codice: "prenotazione_chiusa" },
    });
  });

  test("over 100 reservations or 500 rows: troppe_righe; Idempotency-Key replays", async () => {
    const many = Array.from({ length: 101 }, (_, i) => reservation(`X-${i}`, [{ numero_riga: 1, codice: "H", quantita: 1 }]));
    const r = await upsert(many);
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("troppe_righe");
    const rowsMany = Array.from({ length: 501 }, (_, i) => ({ numero_riga: i + 1, codice: "H", quantita: 1 }));
    expect((await upsert([reservation("X-ROWS", rowsMany)])).body.codice).toBe("troppe_righe");
    const before = await countRows(t, "prenotazioni");
    const body = [reservation("ORD-IDEM", [{ numero_riga: 1, codice: "H", quantita: 1 }])];
    const a = await upsert(body, { "idempotency-key": "prenota-1" });
    const b = await upsert(body, { "idempotency-key": "prenota-1" });
    expect(b.headers.get("idempotency-replayed")).toBe("true");
    expect(b.body).toEqual(a.body);
    expect(await countRows(t, "prenotazioni")).toBe(before + 1);
  });
});

describe("POST /prenotazioni/{id}/annulla", () => {
  test("releases some rows, then the last one: annullata; again: 200 as it is", async () => {
    const created = await one(
      reservation("ORD-9", [
        { numero_riga: 1, codice: "H", quantita: 1 },
        { numero_riga: 2, codice: "G", quantita: 1 },
      ]),
    );
    const some = await rest("POST", `/prenotazioni/${created.id}/annulla`, { key, body: { righe: [2] } });
    expect(some.status).toBe(200);
    expect(some.body).toMatchObject({ stato: "attiva", righe: [{ prenotata: "1" }, { prenotata: "0" }] });
    const unknown = await rest("POST", `/prenotazioni/${created.id}/annulla`, { key, body: { righe: [7] } });
    expect(unknown).toMatchObject({ status: 422, body: { codice: "riga_non_trovata" } });
    const last = await rest("POST", `/prenotazioni/${created.id}/annulla`, { key, body: { righe: [1] } });
    expect(last.body).toMatchObject({ stato: "annullata", righe: [{ prenotata: "0" }, { prenotata: "0" }] });
    const again = await rest("POST", `/prenotazioni/${created.id}/annulla`, { key, body: {} });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(last.body);
    expect((await rest("POST", "/prenotazioni/999999/annulla", { key, body: {} })).status).toBe(404);
  });

  test("Idempotency-Key replays a cancel unchanged", async () => {
    const created = await one(reservation("ORD-12", [{ numero_riga: 1, codice: "H", quantita: 1 }]));
    const headers = { "idempotency-key": "annulla-12" };
    const a = await rest("POST", `/prenotazioni/${created.id}/annulla`, { key, body: {}, headers });
    const b = await rest("POST", `/prenotazioni/${created.id}/annulla`, { key, body: {}, headers });
    expect(a.body.stato).toBe("annullata");
    expect(b.headers.get("idempotency-replayed")).toBe("true");
    expect(b.body).toEqual(a.body);
  });

  test("an expired reservation is closed: prenotazione_chiusa", async () => {
    const created = await one(reservation("ORD-10", [{ numero_riga: 1, codice: "H", quantita: 1 }]));
    await t.pool.query("UPDATE prenotazioni SET scade_il = now() - interval '1 second' WHERE id = $1", [created.id]);
    const r = await rest("POST", `/prenotazioni/${created.id}/annulla`, { key, body: {} });
    expect(r).toMatchObject({ status: 422, body: { codice: "prenotazione_chiusa" } });
  });
});

describe("GET /prenotazioni and its events", () => {
  test("filters, the change feed, GET /cursori, and prenotazione.modificata in the writing transaction", async () => {
    const start = (await rest("GET", "/cursori", { key })).body;
    expect(start.prenotazioni).toEqual({ dopo: expect.any(Number), modificati_dopo: expect.any(Number) });
    const created = await one(reservation("ORD-11", [{ numero_riga: 1, codice: "H", quantita: 1 }]));
    await rest("POST", `/prenotazioni/${created.id}/annulla`, { key, body: {} });
    const feed = await rest("GET", `/prenotazioni?modificati_dopo=${start.prenotazioni.modificati_dopo}`, { key });
    expect(feed.body.prenotazioni.map((p: { riferimento: string; stato: string }) => [p.riferimento, p.stato])).toEqual([
      ["ORD-11", "annullata"],
    ]);
    expect(feed.body.cursore_versione).toBe(feed.body.prenotazioni[0].versione);
    const byId = await rest("GET", `/prenotazioni?dopo=${start.prenotazioni.dopo}`, { key });
    expect(byId.body).toMatchObject({ altri: false, cursore: created.id });
    const cancelled = await rest("GET", `/prenotazioni?stato=annullata&magazzino=${m1}`, { key });
    expect(cancelled.body.prenotazioni.every((p: { stato: string }) => p.stato === "annullata")).toBe(true);
    const events = await rest("GET", `/eventi?dopo=${start.eventi}`, { key });
    const mine = events.body.eventi.filter((e: { tipo: string }) => e.tipo === "prenotazione.modificata");
    expect(mine.map((e: { dati: { stato: string } }) => e.dati.stato)).toEqual(["attiva", "annullata"]);
    expect(mine[1].dati).toEqual(feed.body.prenotazioni[0]);
    const bad = await rest("GET", "/prenotazioni?stato=chiusa", { key });
    expect(bad).toMatchObject({ status: 422, body: { codice: "filtro_non_valido" } });
    const both = await rest("GET", "/prenotazioni?dopo=1&modificati_dopo=1", { key });
    expect(both.body.codice).toBe("filtro_non_valido");
  });
});
