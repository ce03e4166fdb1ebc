import { describe, expect } from "vitest";
import { caller, countRows } from "../../testing/fixtures";
import { test } from "../../testing/test";
import {
  cliente,
  eventsAfter,
  get,
  holdMovement,
  lastSeq,
  load,
  m1,
  newOrder,
  outcome,
  post,
  recorded,
  recordsNothing,
  responsabile,
  seedEventsBeforeAll,
  t,
  types,
} from "./events-testing";

/** Events (docs/api.md section 10): a write that changes nothing, or is refused, records no event. */

seedEventsBeforeAll();

// ---- writes that change nothing, and refused writes, record nothing --------------------------------------

describe("a write that changes nothing or is refused records no event", () => {
  test("an Idempotency-Key replay records nothing", async () => {
    const body = { natura: "carico", magazzino: m1, righe: [{ codice: "B", quantita: 1 }] };
    const first = await recorded(() => post("/movimenti", body, { "idempotency-key": "ev-replay-1" }));
    expect(types(first.events)).toEqual(["movimenti.registrati"]);
    const replay = await recordsNothing(() => post("/movimenti", body, { "idempotency-key": "ev-replay-1" }));
    expect(replay.headers.get("idempotency-replayed")).toBe("true");
    expect(replay.body).toEqual(first.result.body);

    const o = await newOrder("EV-IDEM", [{ numero_riga: 1, articolo: "A", quantita: 5, prezzo: "1" }]);
    const arrival = { magazzino: m1, ddt: "DDT-IDEM", riga: o.riga[1], quantita: 1 };
    const arrived = await recorded(() => post("/arrivi", arrival, { "idempotency-key": "ev-replay-2" }));
    expect(types(arrived.events)).toEqual(["arrivo.registrato", "ordine_acquisto.modificato"]);
    const again = await recordsNothing(() => post("/arrivi", arrival, { "idempotency-key": "ev-replay-2" }));
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    expect(again.body).toEqual(arrived.result.body);

    const art = { articoli: [{ codice: "EV-IDEM-ART", descrizione: "x" }] };
    const created = await recorded(() => post("/articoli", art, { "idempotency-key": "ev-replay-3" }));
    expect(types(created.events)).toEqual(["articolo.modificato"]);
    const replayed = await recordsNothing(() => post("/articoli", art, { "idempotency-key": "ev-replay-3" }));
    expect(replayed.body).toEqual(created.result.body);
  });

  test("movements refused as a whole, or with every row refused, record nothing", async () => {
    const unknownWarehouse = await recordsNothing(() =>
      post("/movimenti", { natura: "carico", magazzino: 99_999, righe: [{ codice: "A", quantita: 1 }] }),
    );
    expect(unknownWarehouse.status).toBe(422);
    expect(unknownWarehouse.body.codice).toBe("magazzino_non_trovato");
    const unknownOperation = await recordsNothing(() =>
      post("/movimenti", { natura: "carico", magazzino: m1, operazione: 99_999, righe: [{ codice: "A", quantita: 1 }] }),
    );
    expect(unknownOperation.status).toBe(422);
    expect(unknownOperation.body.codice).toBe("operazione_non_trovata");
    const allRefused = await recordsNothing(() =>
      post("/movimenti", {
        natura: "scarico",
        magazzino: m1,
        righe: [
          { codice: "NON-ESISTE", quantita: 1 },
          { codice: "L", quantita: 1 },
        ],
      }),
    );
    expect(allRefused.status).toBe(200);
    expect(allRefused.body).toMatchObject({ operazione: null, scritte: 0, rifiutate: 2 });
  });

  test("an alignment refused as a whole records nothing", async () => {
    const r = await recordsNothing(() => post("/giacenze/allinea", { magazzino: 99_999, righe: [{ codice: "A", contato: 1 }] }));
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("magazzino_non_trovato");
  });

  test("an arrival over the remaining quantity, a cancellation twice or of a consumed lot record nothing", async () => {
    const o = await newOrder("EV-RIF", [
      { numero_riga: 1, articolo: "A", quantita: 2, prezzo: "1" },
      { numero_riga: 2, articolo: "L", quantita: 5, prezzo: "1" },
    ]);
    const over = await recordsNothing(() => post("/arrivi", { magazzino: m1, ddt: "DDT-RIF", riga: o.riga[1], quantita: 3 }));
    expect(over.status).toBe(422);
    expect(over.body.codice).toBe("quantita_eccessiva");

    const arrived = await post("/arrivi", { magazzino: m1, ddt: "DDT-RIF", riga: o.riga[1] });
    expect(arrived.status).toBe(201);
    expect((await post(`/arrivi/${arrived.body.movimento}/annulla`, {})).status).toBe(200);
    const twice = await recordsNothing(() => post(`/arrivi/${arrived.body.movimento}/annulla`, {}));
    expect(twice.status).toBe(409);
    expect(twice.body.codice).toBe("arrivo_gia_annullato");

    const lot = await post("/arrivi", { magazzino: m1, ddt: "DDT-RIF-L", riga: o.riga[2], lotto: "EV-LOT", quantita: 5 });
    expect(lot.status).toBe(201);
    const used = await post("/movimenti", { natura: "scarico", magazzino: m1, righe: [{ codice: "L", quantita: 2, lotto: "EV-LOT" }] });
    expect(used.body.scritte).toBe(1);
    const consumed = await recordsNothing(() => post(`/arrivi/${lot.body.movimento}/annulla`, {}));
    expect(consumed.status).toBe(409);
    expect(consumed.body.codice).toBe("lotto_consumato");
  });

  test("a sales document refused by one row (after another row took its lot) records nothing", async () => {
    expect((await load("L", 2, { lotto: "EV-VEND" })).body.scritte).toBe(1);
    const documenti = await countRows(t, "documenti_vendita");
    const refused = await recordsNothing(() =>
      outcome(
        caller(t, responsabile, "trpc").sales.create({
          tipo: "ddt",
          cliente,
          magazzino: m1,
          righe: [
            { codice: "L", lotto: "EV-VEND", quantita: 1, prezzo: "1", aliquota_iva: "22" },
            { codice: "L", lotto: "EV-VEND", quantita: 5, prezzo: "1", aliquota_iva: "22" },
          ],
        }),
      ),
    );
    expect(refused).toBe("lotto_insufficiente");
    expect(await countRows(t, "documenti_vendita")).toBe(documenti);
  });

  test("upserts that refuse every row record nothing; a mixed call records only what it wrote", async () => {
    const refused = await recordsNothing(() =>
      post("/ordini-acquisto", {
        ordini: [
          {
            numero: "EV-NO",
            fornitore: "NESSUNO",
            data: "2026-11-20",
            magazzino: "M1",
            righe: [{ numero_riga: 1, articolo: "A", quantita: 1, prezzo: "1" }],
          },
        ],
      }),
    );
    expect(refused.body).toMatchObject({ creati: 0, rifiutati: 1 });
    const mixed = await recorded(() =>
      post("/articoli", {
        articoli: [
          { codice: "EV-MIX", descrizione: "ok" },
          { codice: "EV-MIX-2", descrizione: "modello mancante", modello: "NESSUNO" },
        ],
      }),
    );
    expect(mixed.result.body).toMatchObject({ creati: 1, rifiutati: 1 });
    expect(types(mixed.events)).toEqual(["articolo.modificato"]);
    expect(mixed.events[0]!.dati.codice).toBe("EV-MIX");
  });

  test("a movement written and rolled back leaves no event, though its transaction saw one", async () => {
    const before = { n: await countRows(t, "eventi"), seq: await lastSeq() };
    const held = await holdMovement();
    expect(held.event).toBeGreaterThan(before.seq); // inside the transaction, its event is there
    await held.rollback();
    expect(await countRows(t, "eventi")).toBe(before.n);
    expect(await lastSeq()).toBe(before.seq);
    expect(await eventsAfter(before.seq)).toEqual([]);
    expect((await get(`/movimenti?operazione=${held.operazione}`)).movimenti).toEqual([]);
  });
});
