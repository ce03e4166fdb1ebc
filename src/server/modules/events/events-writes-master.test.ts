import { describe, expect } from "vitest";
import { test } from "../../testing/test";
import { eventsAfter, listed, newOrder, post, recorded, recordsNothing, seedEventsBeforeAll, types } from "./events-testing";

/**
 * Events (docs/api.md section 10) of the master-data writes and the purchase orders: each upsert records one event
 * per row created or changed, its `dati` the row exactly as its id-paged list shows it, and a repeat records
 * nothing. The writes of goods and stock, and GET /eventi over every type, are in events-writes-stock.test.ts.
 */

seedEventsBeforeAll();

describe("each master-data and order write records its event, with dati as the lists show them", () => {
  test("POST /articoli: articolo.modificato per row created or changed, as GET /articoli; a repeat records nothing", async () => {
    const rows = [
      { codice: "EV-ART", descrizione: "Articolo eventi", ean: "8001234567897", costo: "1.2", unita: "KG" },
      { codice: "EV-TPL", descrizione: "Modello" },
      { codice: "EV-TPL-S", descrizione: "Variante S", modello: "EV-TPL" },
    ];
    const { result, events } = await recorded(() => post("/articoli", { articoli: rows }));
    expect(result.body).toMatchObject({ creati: 3, rifiutati: 0 });
    expect(types(events)).toEqual(["articolo.modificato", "articolo.modificato", "articolo.modificato"]);
    const ids = result.body.righe.map((r: any) => r.id as number);
    expect(events.map((e) => e.dati.id).sort((p, q) => p - q)).toEqual([...ids].sort((p, q) => p - q));
    for (const e of events) expect(e.dati).toEqual(await listed("/articoli", "articoli", e.dati.id));
    expect(events.find((e) => e.dati.codice === "EV-TPL-S")!.dati).toMatchObject({ modello: "EV-TPL", versione: expect.any(Number) });

    await recordsNothing(async () => expect((await post("/articoli", { articoli: rows })).body.invariati).toBe(3));

    const changed = await recorded(() =>
      post("/articoli", { articoli: [{ codice: "EV-ART", descrizione: "Nuova descrizione", attivo: false }] }),
    );
    expect(changed.result.body.aggiornati).toBe(1);
    expect(types(changed.events)).toEqual(["articolo.modificato"]);
    const row = await listed("/articoli", "articoli", ids[0]);
    expect(row).toMatchObject({ descrizione: "Nuova descrizione", attivo: false });
    expect(changed.events[0]!.dati).toEqual(row);
    expect(row.versione).toBeGreaterThan(events.find((e) => e.dati.id === ids[0])!.dati.versione);
  });

  test("POST /fornitori: fornitore.modificato as GET /fornitori; a repeat records nothing", async () => {
    const { result, events } = await recorded(() => post("/fornitori", { fornitori: [{ codice: "EV-F", nome: "Fornitore eventi" }] }));
    expect(result.body.creati).toBe(1);
    expect(types(events)).toEqual(["fornitore.modificato"]);
    expect(events[0]!.dati).toEqual(await listed("/fornitori", "fornitori", result.body.righe[0].id));
    await recordsNothing(async () =>
      expect((await post("/fornitori", { fornitori: [{ codice: "EV-F", nome: "Fornitore eventi" }] })).body.invariati).toBe(1),
    );
    const changed = await recorded(() => post("/fornitori", { fornitori: [{ codice: "EV-F", attivo: false }] }));
    expect(types(changed.events)).toEqual(["fornitore.modificato"]);
    expect(changed.events[0]!.dati).toEqual(await listed("/fornitori", "fornitori", result.body.righe[0].id));
    expect(changed.events[0]!.dati.attivo).toBe(false);
  });

  test("POST /clienti: cliente.modificato as GET /clienti (creato_il included); a repeat records nothing", async () => {
    const row = { codice: "EV-C", ragione_sociale: "Bianchi S.p.A.", partita_iva: "IT01234567890", email: "a@b.it", citta: "Torino" };
    const { result, events } = await recorded(() => post("/clienti", { clienti: [row] }));
    expect(result.body.creati).toBe(1);
    const id = result.body.righe[0].id as number;
    expect(types(events)).toEqual(["cliente.modificato"]);
    expect(events[0]!.dati).toEqual(await listed("/clienti", "clienti", id));
    await recordsNothing(async () => expect((await post("/clienti", { clienti: [row] })).body.invariati).toBe(1));
    const changed = await recorded(() => post("/clienti", { clienti: [{ codice: "EV-C", telefono: "011 1234", email: null }] }));
    expect(types(changed.events)).toEqual(["cliente.modificato"]);
    const now = await listed("/clienti", "clienti", id);
    expect(now).toMatchObject({ telefono: "011 1234", email: null });
    expect(changed.events[0]!.dati).toEqual(now);
  });

  test("POST /ordini-acquisto: one ordine_acquisto.modificato per order created or replaced; a repeat records nothing", async () => {
    const order = (righe: unknown[]) => ({ numero: "EV-OA", fornitore: "F1", data: "2026-11-21", magazzino: "M1", righe });
    const first = [
      { numero_riga: 10, articolo: "A", quantita: 5, prezzo: "1.5" },
      { numero_riga: 20, articolo: "B", quantita: 2.5, prezzo: "0.1234" },
    ];
    const { result, events } = await recorded(() => post("/ordini-acquisto", { ordini: [order(first)] }));
    expect(result.body.creati).toBe(1);
    const id = result.body.righe[0].id as number;
    expect(types(events)).toEqual(["ordine_acquisto.modificato"]);
    expect(events[0]!.dati).toEqual(await listed("/ordini-acquisto", "ordini", id));
    expect(events[0]!.dati.righe.map((r: any) => [r.numero_riga, r.ordinata, r.prezzo])).toEqual([
      [10, "5", "1.5"],
      [20, "2.5", "0.1234"],
    ]);

    await recordsNothing(async () => expect((await post("/ordini-acquisto", { ordini: [order(first)] })).body.invariati).toBe(1));

    const replaced = await recorded(() =>
      post("/ordini-acquisto", { ordini: [order([{ numero_riga: 10, articolo: "A", quantita: 8, prezzo: "1.5" }])] }),
    );
    expect(replaced.result.body.aggiornati).toBe(1);
    expect(types(replaced.events)).toEqual(["ordine_acquisto.modificato"]);
    const row = await listed("/ordini-acquisto", "ordini", id);
    expect(row.righe.map((r: any) => [r.numero_riga, r.ordinata])).toEqual([[10, "8"]]);
    expect(replaced.events[0]!.dati).toEqual(row);
  });

  test("POST /ordini-acquisto/{id}/chiudi: ordine_acquisto.modificato with the closed quantity; closing again records nothing", async () => {
    const o = await newOrder("EV-CHIUDI", [
      { numero_riga: 1, articolo: "A", quantita: 3, prezzo: "1" },
      { numero_riga: 2, articolo: "B", quantita: 4, prezzo: "1" },
    ]);
    const { result, events } = await recorded(() => post(`/ordini-acquisto/${o.id}/chiudi`, { righe: [2], motivo: "Fuori produzione" }));
    expect(result.status).toBe(200);
    expect(result.body.chiusi).toBe(1);
    expect(types(events)).toEqual(["ordine_acquisto.modificato"]);
    const row = await listed("/ordini-acquisto", "ordini", o.id);
    expect(row.righe.map((r: any) => [r.numero_riga, r.chiusa, r.residua])).toEqual([
      [1, "0", "3"],
      [2, "4", "0"],
    ]);
    expect(events[0]!.dati).toEqual(row);
    expect(row.righe.map((r: any) => r.motivo_chiusura)).toEqual([null, "Fuori produzione"]);
    const again = await recordsNothing(() => post(`/ordini-acquisto/${o.id}/chiudi`, { righe: [2] }));
    expect(again.body).toMatchObject({ chiusi: 0, invariati: 1 });
  });

  test("POST /magazzini: exactly one magazzino.modificato per warehouse created or changed, as GET /magazzini; a repeat records nothing", async () => {
    const { result, events } = await recorded(() => post("/magazzini", { magazzini: [{ codice: "EV-MAG", nome: "Magazzino eventi" }] }));
    expect(result.body.creati).toBe(1);
    const id = result.body.righe[0].id as number;
    expect(types(events)).toEqual(["magazzino.modificato"]);
    expect(events[0]!.dati).toEqual(await listed("/magazzini", "magazzini", id));
    expect(events[0]!.dati).toEqual({
      id,
      codice: "EV-MAG",
      nome: "Magazzino eventi",
      attivo: true,
      versione: expect.any(Number),
      gestione_ubicazioni: false,
      ubicazione_ricevimento: null,
    });
    await recordsNothing(async () =>
      expect((await post("/magazzini", { magazzini: [{ codice: "EV-MAG", nome: "Magazzino eventi", attivo: true }] })).body.invariati).toBe(
        1,
      ),
    );
    const changed = await recorded(() => post("/magazzini", { magazzini: [{ codice: "EV-MAG", attivo: false }] }));
    expect(changed.result.body.aggiornati).toBe(1);
    expect(types(changed.events)).toEqual(["magazzino.modificato"]);
    expect(changed.events[0]!.dati).toEqual(await listed("/magazzini", "magazzini", id));
    expect(changed.events[0]!.dati.attivo).toBe(false);
    expect(changed.events[0]!.dati.versione).toBeGreaterThan(events[0]!.dati.versione);
    // Two warehouses changed in one call: one event each; filtered by type.
    const two = await recorded(() =>
      post("/magazzini", {
        magazzini: [
          { codice: "EV-MAG", attivo: true },
          { codice: "EV-MAG-2", nome: "Secondo" },
        ],
      }),
    );
    expect(types(two.events)).toEqual(["magazzino.modificato", "magazzino.modificato"]);
    expect(await eventsAfter(changed.events[0]!.sequenza, "&tipo=magazzino.modificato")).toEqual(two.events);
  });

  test("POST /ubicazioni: one ubicazione.modificato per location created or changed, as GET /ubicazioni; a repeat records nothing", async () => {
    const row = { magazzino: "EV-MAG", codice: "EV-U-1", tipo: "stoccaggio", descrizione: "Scaffale" };
    const { result, events } = await recorded(() => post("/ubicazioni", { ubicazioni: [row] }));
    expect(result.body.creati).toBe(1);
    const id = result.body.righe[0].id as number;
    expect(types(events)).toEqual(["ubicazione.modificato"]);
    expect(events[0]!.dati).toEqual(await listed("/ubicazioni", "ubicazioni", id));
    await recordsNothing(async () => expect((await post("/ubicazioni", { ubicazioni: [row] })).body.invariati).toBe(1));
    const changed = await recorded(() => post("/ubicazioni", { ubicazioni: [{ ...row, attiva: false }] }));
    expect(types(changed.events)).toEqual(["ubicazione.modificato"]);
    expect(changed.events[0]!.dati).toMatchObject({ id, attiva: false });
    expect(changed.events[0]!.dati).toEqual(await listed("/ubicazioni", "ubicazioni", id));
  });
});
