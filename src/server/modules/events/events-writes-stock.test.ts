import { beforeAll, describe, expect } from "vitest";
import { caller } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { EVENT_TYPES } from "../../../lib/domain-lists";
import {
  cliente,
  type Evento,
  eventsAfter,
  fornitore,
  get,
  keyId,
  lastSeq,
  listed,
  m1,
  m2,
  movementsOf,
  newOrder,
  post,
  recorded,
  recordsNothing,
  responsabile,
  seedEventsBeforeAll,
  t,
  types,
} from "./events-testing";

/**
 * Events (docs/api.md section 10): every write that changes stock, an order or master data records its event in
 * its own transaction, and GET /eventi pages them by `sequenza` with the completeness promise of section 4.
 * An event's `dati` shows its rows exactly as their lists do: each test reads the list right after the write
 * and compares them whole. This file: the writes of goods and stock (movements, arrivals, counts, sales,
 * reservations, notices, pallets, returns); the master data's are in events-writes-master.test.ts. The reads of
 * GET /eventi that need every type in the table come last, here, after the writes that make that history (the
 * other reads: events-reads.test.ts).
 */

seedEventsBeforeAll();

// ---- each write of goods and stock records its event ---------------------------------------------------

describe("each write of goods and stock records its event, with dati as the lists show them", () => {
  test("POST /movimenti: one movimenti.registrati per call, its movements as GET /movimenti?operazione=", async () => {
    const { result, events } = await recorded(() =>
      post("/movimenti", {
        natura: "carico",
        magazzino: m1,
        causale: "Carico iniziale",
        righe: [
          { codice: "A", quantita: 10, prezzo: "1.25" },
          { codice: "B", quantita: 2.5 },
          { codice: "NON-ESISTE", quantita: 1 },
        ],
      }),
    );
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ scritte: 2, rifiutate: 1 });
    const operazione = result.body.operazione as number;
    expect(types(events)).toEqual(["movimenti.registrati"]);
    const [e] = events;
    expect(e!.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(e!.sequenza).toBe(await lastSeq());
    expect(e!.creato_il).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d\d:\d\d$/);
    expect(Math.abs(Date.parse(e!.creato_il) - Date.now())).toBeLessThan(60_000);
    const movimenti = await movementsOf(operazione);
    expect(movimenti).toHaveLength(2);
    expect(e!.dati).toEqual({ operazione, movimenti });
    // What the list shows, checked on its own too: the key as author, signed quantities, the suggested price.
    expect(movimenti.map((m: any) => [m.articolo.codice, m.quantita, m.prezzo, m.origine, m.autore])).toEqual([
      ["A", "10", "1.25", "api", { tipo: "chiave", id: keyId, nome: expect.any(String) }],
      ["B", "2.5", null, "api", { tipo: "chiave", id: keyId, nome: expect.any(String) }],
    ]);
  });

  test("a transfer is one event with both halves; appending to an operation records the appended movements only", async () => {
    const { result, events } = await recorded(() =>
      post("/movimenti", { natura: "trasferimento", magazzino_origine: m1, magazzino: m2, righe: [{ codice: "A", quantita: 3 }] }),
    );
    const operazione = result.body.operazione as number;
    expect(types(events)).toEqual(["movimenti.registrati"]);
    expect(events[0]!.dati).toEqual({ operazione, movimenti: await movementsOf(operazione) });
    expect(events[0]!.dati.movimenti.map((m: any) => [m.magazzino, m.quantita])).toEqual([
      [m1, "-3"],
      [m2, "3"],
    ]);

    const before = await movementsOf(operazione);
    const appended = await recorded(() =>
      post("/movimenti", { natura: "carico", magazzino: m1, operazione, righe: [{ codice: "B", quantita: 1 }] }),
    );
    expect(appended.result.body.operazione).toBe(operazione);
    expect(types(appended.events)).toEqual(["movimenti.registrati"]);
    const after = await movementsOf(operazione);
    expect(after).toHaveLength(before.length + 1);
    expect(appended.events[0]!.dati).toEqual({ operazione, movimenti: after.slice(before.length) });
  });

  test("a movement from the screens: movimenti.registrati with origine schermo and the user as author", async () => {
    const { result, events } = await recorded(() =>
      caller(t, responsabile, "trpc").movements.write({ natura: "scarico", magazzino: m1, righe: [{ codice: "A", quantita: 1 }] }),
    );
    expect(types(events)).toEqual(["movimenti.registrati"]);
    const movimenti = await movementsOf(result.operazione!);
    expect(events[0]!.dati).toEqual({ operazione: result.operazione, movimenti });
    expect(movimenti[0]).toMatchObject({ origine: "schermo", autore: { tipo: "utente", id: responsabile.id, nome: "resp" } });
  });

  test("POST /arrivi: arrivo.registrato (ddt, fornitore, movements) then ordine_acquisto.modificato with the order as listed", async () => {
    const o = await newOrder("EV-ARR-1", [
      { numero_riga: 1, articolo: "A", quantita: 10, prezzo: "1.5" },
      { numero_riga: 2, articolo: "B", quantita: 4, prezzo: "0.5" },
    ]);
    const { result, events } = await recorded(() => post("/arrivi", { magazzino: m1, ddt: "DDT-EV-1", riga: o.riga[1], quantita: 4 }));
    expect(result.status).toBe(201);
    expect(types(events)).toEqual(["arrivo.registrato", "ordine_acquisto.modificato"]);
    const [arrivo, ordine] = events;
    const movimenti = await movementsOf(result.body.operazione);
    expect(movimenti.map((m: any) => [m.id, m.origine, m.quantita, m.riferimento])).toEqual([
      [result.body.movimento, "arrivo", "4", { tipo: "riga_ordine", id: o.riga[1] }],
    ]);
    expect(arrivo!.dati).toEqual({ operazione: result.body.operazione, ddt: "DDT-EV-1", fornitore, movimenti });
    const row = await listed("/ordini-acquisto", "ordini", o.id);
    expect(row.stato).toBe("parziale");
    expect(ordine!.dati).toEqual(row);
    expect(ordine!.sequenza).toBeGreaterThan(arrivo!.sequenza);

    // Several rows of one delivery note on two orders: one arrivo.registrato, one event per order.
    const o2 = await newOrder("EV-ARR-2", [{ numero_riga: 1, articolo: "A", quantita: 5, prezzo: "1" }]);
    const many = await recorded(() =>
      post("/arrivi", {
        magazzino: m1,
        ddt: "DDT-EV-2",
        righe: [{ riga: o.riga[2] }, { riga: o2.riga[1], quantita: 2 }, { riga: 999_999 }],
      }),
    );
    expect(many.result.body).toMatchObject({ registrate: 2, rifiutate: 1 });
    expect(types(many.events)).toEqual(["arrivo.registrato", "ordine_acquisto.modificato", "ordine_acquisto.modificato"]);
    expect(many.events[0]!.dati).toEqual({
      operazione: many.result.body.operazione,
      ddt: "DDT-EV-2",
      fornitore,
      movimenti: await movementsOf(many.result.body.operazione),
    });
    expect(many.events[0]!.dati.movimenti).toHaveLength(2);
    const orders = many.events.slice(1).map((e) => e.dati);
    expect(orders.map((x) => x.id).sort((p, q) => p - q)).toEqual([o.id, o2.id]);
    for (const d of orders) expect(d).toEqual(await listed("/ordini-acquisto", "ordini", d.id));
  });

  test("POST /arrivi/{id}/annulla: arrivo.annullato with the reversing movement, then the order", async () => {
    const o = await newOrder("EV-ANN-1", [{ numero_riga: 1, articolo: "B", quantita: 6, prezzo: "2" }]);
    const arrived = await post("/arrivi", { magazzino: m1, ddt: "DDT-ANN", riga: o.riga[1], quantita: 6 });
    expect(arrived.status).toBe(201);
    const { result, events } = await recorded(() => post(`/arrivi/${arrived.body.movimento}/annulla`, {}));
    expect(result.status).toBe(200);
    expect(types(events)).toEqual(["arrivo.annullato", "ordine_acquisto.modificato"]);
    const operazione = events[0]!.dati.operazione as number;
    const movimenti = await movementsOf(operazione);
    expect(movimenti.map((m: any) => [m.id, m.origine, m.quantita, m.annulla])).toEqual([
      [result.body.movimento, "annullamento", "-6", arrived.body.movimento],
    ]);
    expect(events[0]!.dati).toEqual({ operazione, movimenti });
    const row = await listed("/ordini-acquisto", "ordini", o.id);
    expect(row.stato).toBe("aperto");
    expect(row.righe[0]).toMatchObject({ arrivata: "0", residua: "6" });
    expect(events[1]!.dati).toEqual(row);
  });

  test("POST /giacenze/allinea with a difference: giacenze.allineate; a preview and a repeat record nothing", async () => {
    const body = { magazzino: m2, causale: "Inventario", righe: [{ codice: "A", contato: 7 }] };
    await recordsNothing(async () => {
      const preview = await post("/giacenze/allinea", { ...body, simula: true });
      expect(preview.body).toMatchObject({ operazione: null, scritte: 1 });
    });
    const { result, events } = await recorded(() => post("/giacenze/allinea", body));
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ scritte: 1, invariate: 0 });
    expect(types(events)).toEqual(["giacenze.allineate"]);
    const movimenti = await movementsOf(result.body.operazione);
    expect(movimenti.map((m: any) => [m.origine, m.magazzino, m.quantita])).toEqual([["correzione", m2, "4"]]);
    expect(events[0]!.dati).toEqual({ operazione: result.body.operazione, movimenti });

    const again = await recordsNothing(() => post("/giacenze/allinea", body));
    expect(again.body).toMatchObject({ operazione: null, scritte: 0, invariate: 1 });
  });

  test("a sales document: documento_vendita.emesso with documento as GET /documenti-vendita shows it", async () => {
    const { result, events } = await recorded(() =>
      caller(t, responsabile, "trpc").sales.create({
        tipo: "fattura",
        cliente,
        magazzino: m1,
        righe: [
          { codice: "A", quantita: 2, prezzo: "10", aliquota_iva: "22" },
          { codice: "B", quantita: 1, prezzo: "3.5", sconto: "10", aliquota_iva: "10" },
        ],
      }),
    );
    expect(types(events)).toEqual(["documento_vendita.emesso"]);
    const documento = await listed("/documenti-vendita", "documenti", result.id);
    expect(documento).toEqual(result);
    const operazione = events[0]!.dati.operazione as number;
    const movimenti = await movementsOf(operazione);
    expect(movimenti.map((m: any) => [m.origine, m.quantita, m.riferimento])).toEqual([
      ["vendita", "-2", { tipo: "documento_vendita", id: result.id }],
      ["vendita", "-1", { tipo: "documento_vendita", id: result.id }],
    ]);
    expect(movimenti.map((m: any) => m.id)).toEqual(result.righe.map((r) => r.movimento));
    expect(events[0]!.dati).toEqual({ operazione, movimenti, documento });
  });

  test("POST /prenotazioni, a count uncovering it, its annulla: prenotazione.modificata and .scoperta as GET /prenotazioni", async () => {
    expect((await post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice: "B", quantita: 3 }] })).status).toBe(200);
    const p = { riferimento: "EV-P", magazzino: "M1", cliente: "CL1", righe: [{ numero_riga: 1, codice: "B", quantita: 2 }] };
    const { result, events } = await recorded(() => post("/prenotazioni", { prenotazioni: [p] }));
    expect(result.body.create).toBe(1);
    const id = result.body.righe[0].id as number;
    expect(types(events)).toEqual(["prenotazione.modificata"]);
    expect(events[0]!.dati).toEqual(await listed("/prenotazioni", "prenotazioni", id));
    await recordsNothing(async () => expect((await post("/prenotazioni", { prenotazioni: [p] })).body.invariate).toBe(1));
    // A count leaving 1 for the 2 held: the fact's event, then prenotazione.scoperta as read, then its new version.
    const counted = await recorded(() => post("/giacenze/allinea", { magazzino: m1, righe: [{ codice: "B", contato: 1 }] }));
    expect(types(counted.events)).toEqual(["giacenze.allineate", "prenotazione.scoperta", "prenotazione.modificata"]);
    expect(counted.events[1]!.dati).toEqual(await listed("/prenotazioni", "prenotazioni", id));
    expect(counted.events[1]!.dati).toMatchObject({ righe: [{ prenotata: "2", scoperta: "1" }] });
    const cancelled = await recorded(() => post(`/prenotazioni/${id}/annulla`, {}));
    expect(types(cancelled.events)).toEqual(["prenotazione.modificata"]);
    expect(cancelled.events[0]!.dati).toEqual(cancelled.result.body);
    expect(cancelled.result.body.stato).toBe("annullata");
  });
});

describe("shipping notices, pallets, differences and returns record their events (docs/api.md section 12)", () => {
  test("a notice, its pallet received with a difference, a return: each event as its list shows the row", async () => {
    const o = await post("/ordini-acquisto", {
      ordini: [
        {
          numero: "EV-AV",
          fornitore: "F1",
          data: "2026-11-20",
          magazzino: "M1",
          righe: [{ numero_riga: 1, articolo: "A", quantita: 5, prezzo: "1" }],
        },
      ],
    });
    const sscc = "380012340000000029";
    const n = await recorded(() =>
      post("/avvisi-spedizione", {
        avvisi: [
          {
            numero: "EV-AV",
            fornitore: "F1",
            magazzino: "M1",
            colli: [{ sscc, righe: [{ ordine: "EV-AV", numero_riga: 1, quantita: 5 }] }],
          },
        ],
      }),
    );
    expect(types(n.events)).toEqual(["avviso_spedizione.modificato"]);
    expect(n.events[0]!.dati).toEqual(await listed("/avvisi-spedizione", "avvisi", n.result.body.righe[0].id));
    const r = await recorded(() =>
      post(`/colli/${sscc}/ricevi`, { ddt: "EV-DDT", differenze: [{ indice: 0, quantita: 1, motivo: "mancante" }] }),
    );
    expect(types(r.events)).toEqual([
      "arrivo.registrato",
      "ricevimento.differenza",
      "ordine_acquisto.modificato",
      "avviso_spedizione.modificato",
    ]);
    const difference = r.events[1]!.dati;
    expect(difference).toEqual(await listed("/differenze-ricevimento", "differenze", difference.id));
    expect(difference).toMatchObject({ sscc, motivo: "mancante", quantita: "1", attesa: "5", ricevuta: "4" });
    expect(r.events[3]!.dati.stato).toBe("ricevuto");
    const back = await recorded(() =>
      post("/resi-fornitore", {
        fornitore: "F1",
        magazzino: m1,
        righe: [{ codice: "A", quantita: 1, motivo: "Difettoso", riga: o.body.righe[0].righe[0].riga, riapri: true }],
      }),
    );
    expect(types(back.events)).toEqual(["reso_fornitore.registrato", "ordine_acquisto.modificato"]);
    expect(back.events[0]!.dati.movimenti[0]).toMatchObject({ origine: "reso_fornitore", quantita: "-1" });
  });
});

// ---- GET /eventi over the history written above ------------------------------------------------------

// ---- GET /eventi over the history written above ------------------------------------------------------

describe("GET /eventi", () => {
  // The master data's types, whose writes and dati events-writes-master.test.ts checks, once each here: the
  // history the reads below walk then holds every type (the seeds' supplier and customer wrote theirs).
  beforeAll(async () => {
    const writes = [
      await post("/magazzini", { magazzini: [{ codice: "EV-MAG", nome: "Magazzino eventi" }] }),
      await post("/articoli", { articoli: [{ codice: "EV-ART", descrizione: "Articolo eventi" }] }),
      await post("/ubicazioni", { ubicazioni: [{ magazzino: "EV-MAG", codice: "EV-U-1", tipo: "stoccaggio" }] }),
    ];
    for (const w of writes) expect(w.body.creati, JSON.stringify(w.body)).toBe(1);
  });
  test("tipo filters by one type or a comma list, in sequenza order, exactly the events of those types", async () => {
    const all = await eventsAfter(0);
    // By now this file has written every type.
    expect(new Set(types(all))).toEqual(new Set(EVENT_TYPES));
    const one = await eventsAfter(0, "&tipo=arrivo.annullato");
    expect(one).toEqual(all.filter((e) => e.tipo === "arrivo.annullato"));
    expect(one.length).toBeGreaterThan(0);
    const two = await eventsAfter(0, "&tipo=giacenze.allineate,%20fornitore.modificato");
    expect(two).toEqual(all.filter((e) => e.tipo === "giacenze.allineate" || e.tipo === "fornitore.modificato"));
    expect(new Set(types(two))).toEqual(new Set(["giacenze.allineate", "fornitore.modificato"]));
    // Through the tRPC caller too (the screens' client).
    const viaCaller = await caller(t, responsabile, "trpc").events.list({ tipo: "giacenze.allineate" } as never);
    expect(viaCaller.eventi).toEqual(all.filter((e) => e.tipo === "giacenze.allineate").slice(0, 100));
  });

  test("an empty page answers cursore = dopo and altri false", async () => {
    const last = await lastSeq();
    // A sequence taken by a write that rolled back is still a cursor the service issued (above it: cursors.test.ts).
    const issued = Number((await t.pool.query("SELECT nextval('eventi_id_seq') AS n")).rows[0].n);
    for (const dopo of [last, issued]) {
      const r = await get(`/eventi?dopo=${dopo}`);
      expect(r).toEqual({ eventi: [], altri: false, cursore: dopo });
    }
    // A filter with nothing after the cursor: empty too, the cursor stays.
    const firstMove = (await get("/eventi?tipo=movimenti.registrati&limite=1")).eventi[0].sequenza;
    const r = await get(`/eventi?dopo=${last}&tipo=movimenti.registrati`);
    expect(r).toEqual({ eventi: [], altri: false, cursore: last });
    expect(firstMove).toBeLessThan(last);
  });

  test("paging with limite=1 walks every event once, in sequenza order, as the table holds them", async () => {
    const seen: Evento[] = [];
    let cursor = 0;
    for (let i = 0; i < 10_000; i++) {
      const r = await get(`/eventi?dopo=${cursor}&limite=1`);
      expect(r.eventi.length).toBeLessThanOrEqual(1);
      seen.push(...r.eventi);
      if (r.eventi.length) expect(r.cursore).toBe(r.eventi[0].sequenza);
      cursor = r.cursore;
      if (!r.altri) break;
    }
    const table = (await t.pool.query("SELECT id, uid, tipo FROM eventi ORDER BY id")).rows;
    expect(table.length).toBeGreaterThan(20);
    expect(seen.map((e) => [e.sequenza, e.id, e.tipo])).toEqual(table.map((r) => [r.id, r.uid, r.tipo]));
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    // And the same events as one page of 100 returns.
    expect(seen).toEqual(await eventsAfter(0));
  });
});
