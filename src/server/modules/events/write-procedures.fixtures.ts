import { expect } from "vitest";
import { seedArticle } from "../../testing/fixtures";
import { seedLocationWarehouse } from "../../testing/location-fixtures";
import { asKey, asManager, keyActor, m1, next, openOrder, s, t, type Write } from "./write-procedures-testing";

/** Every mutation that changes stock, an order or master data, with the events it records. */
export const WRITES: Record<string, Write> = {
  "movements.write": {
    run: async () => {
      const r = await asKey().movements.write({ natura: "carico", magazzino: m1, righe: [{ codice: "A", quantita: 5 }] });
      expect(r.scritte).toBe(1);
    },
    events: ["movimenti.registrati"],
  },
  "putaway.store": {
    prepare: async () => {
      s.putaway = await seedLocationWarehouse(t, keyActor, "WP-UBI", [
        { codice: "WP-RIC", tipo: "ricevimento" },
        { codice: "WP-A1", tipo: "stoccaggio" },
      ]);
      const r = await asKey().movements.write({
        natura: "carico",
        magazzino: s.putaway,
        righe: [{ codice: "A", quantita: 3, ubicazione: "WP-RIC" }],
      });
      expect(r.scritte).toBe(1);
    },
    run: async () => {
      const r = await asKey().putaway.store({ magazzino: s.putaway, codice: "A", lotto: null, da: "WP-RIC", a: "WP-A1", quantita: 3 });
      expect(r.operazione).toBeGreaterThan(0);
    },
    events: ["movimenti.registrati"],
  },
  "putaway.storePallet": {
    prepare: async () => {
      await seedLocationWarehouse(t, keyActor, "WP-PAL", [
        { codice: "WPP-RIC", tipo: "ricevimento" },
        { codice: "WPP-A1", tipo: "stoccaggio" },
      ]);
      const numero = `WP-${next()}`;
      const o = await asKey().orders.upsert({
        ordini: [
          {
            numero,
            fornitore: "F1",
            data: "2026-11-20",
            magazzino: "WP-PAL",
            righe: [{ numero_riga: 1, articolo: "A", quantita: 9, prezzo: "1" }],
          },
        ],
      });
      expect(o.creati).toBe(1);
      const n = await asKey().notices.upsert({
        avvisi: [
          {
            numero,
            fornitore: "F1",
            magazzino: "WP-PAL",
            colli: [{ sscc: "380073250000009995", righe: [{ ordine: numero, numero_riga: 1, quantita: 4 }] }],
          },
        ],
      });
      expect(n.creati).toBe(1);
      expect(await asKey().notices.receive({ sscc: "380073250000009995", ddt: `DDT-${next()}` })).toMatchObject({ registrate: 1 });
      s.palletWarehouse = (await t.pool.query(`SELECT id FROM magazzini WHERE codice = 'WP-PAL'`)).rows[0].id;
    },
    run: async () => {
      const r = await asKey().putaway.storePallet({ magazzino: s.palletWarehouse, sscc: "380073250000009995", a: "WPP-A1" });
      expect(r.righe).toHaveLength(1);
    },
    events: ["movimenti.registrati"],
  },
  "arrivals.register": {
    prepare: async () => {
      s.arrival = await openOrder();
    },
    run: async () => {
      const r = await asKey().arrivals.register({ magazzino: m1, ddt: `DDT-${next()}`, riga: s.arrival.riga, quantita: 4 });
      expect(r).toMatchObject({ arrivata: "4", residua: "6" });
    },
    events: ["arrivo.registrato", "ordine_acquisto.modificato"],
  },
  "arrivals.cancel": {
    prepare: async () => {
      const o = await openOrder();
      const r = await asKey().arrivals.register({ magazzino: m1, ddt: `DDT-${next()}`, riga: o.riga, quantita: 3 });
      s.cancel = (r as { movimento: number }).movimento;
    },
    run: async () => {
      const r = await asKey().arrivals.cancel({ id: String(s.cancel) } as never);
      expect(r).toMatchObject({ annullato: s.cancel, riga: { arrivata: "0" } });
    },
    events: ["arrivo.annullato", "ordine_acquisto.modificato"],
  },
  "notices.upsert": {
    prepare: async () => {
      s.noticeOrder = await openOrder();
    },
    run: async () => {
      const r = await asKey().notices.upsert({
        avvisi: [
          {
            numero: `AV-${next()}`,
            fornitore: "F1",
            magazzino: "M1",
            colli: [{ sscc: "380012340000000012", righe: [{ ordine: s.noticeOrder.numero, numero_riga: 1, quantita: 4 }] }],
          },
        ],
      });
      expect(r.creati).toBe(1);
    },
    events: ["avviso_spedizione.modificato"],
  },
  "notices.receive": {
    run: async () => {
      const r = await asKey().notices.receive({
        sscc: "380012340000000012",
        ddt: `DDT-${next()}`,
        differenze: [{ indice: 0, quantita: 1, motivo: "danneggiato" }],
      });
      expect(r).toMatchObject({ registrate: 1, collo: { stato: "ricevuto" } });
    },
    events: ["arrivo.registrato", "ricevimento.differenza", "ordine_acquisto.modificato", "avviso_spedizione.modificato"],
  },
  "notices.cancel": {
    run: async () => {
      const r = await asKey().notices.cancel({ sscc: "380012340000000012" });
      expect(r).toMatchObject({ annullati: 1, collo: { stato: "atteso" } });
    },
    events: ["arrivo.annullato", "ordine_acquisto.modificato", "avviso_spedizione.modificato"],
  },
  "notices.returnToSupplier": {
    prepare: async () => {
      s.returned = await openOrder();
      await asKey().arrivals.register({ magazzino: m1, ddt: `DDT-${next()}`, riga: s.returned.riga, quantita: 5 });
    },
    run: async () => {
      const r = await asKey().notices.returnToSupplier({
        fornitore: "F1",
        magazzino: m1,
        righe: [{ codice: "A", quantita: 2, motivo: "Difettoso", riga: s.returned.riga, riapri: true }],
      });
      expect(r).toMatchObject({ scritte: 1, righe: [{ riga: { arrivata: "3" } }] });
    },
    events: ["reso_fornitore.registrato", "ordine_acquisto.modificato"],
  },
  // A count that leaves less than a reservation holds uncovers it (docs/api.md section 14): its event, then the
  // reservation's prenotazione.scoperta and its new version.
  "alignment.align": {
    prepare: async () => {
      await seedArticle(t.prisma, "WP-SC");
      expect((await asKey().movements.write({ natura: "carico", magazzino: m1, righe: [{ codice: "WP-SC", quantita: 2 }] })).scritte).toBe(
        1,
      );
      await asKey().clientsUpsert.upsert({ clienti: [{ codice: "WP-CL-AL", ragione_sociale: "Cliente" }] });
      const held = await asKey().reservations.upsert({
        prenotazioni: [
          { riferimento: "WP-AL", magazzino: "M1", cliente: "WP-CL-AL", righe: [{ numero_riga: 1, codice: "WP-SC", quantita: 2 }] },
        ],
      });
      expect(held.create).toBe(1);
    },
    run: async () => {
      const r = await asKey().alignment.align({
        magazzino: m1,
        righe: [
          { codice: "A", contato: 1234.5 },
          { codice: "WP-SC", contato: 1 },
        ],
      });
      expect(r).toMatchObject({ scritte: 2, rifiutate: 0 });
    },
    events: ["giacenze.allineate", "prenotazione.scoperta", "prenotazione.modificata"],
  },
  "sales.create": {
    prepare: async () => {
      const c = await asKey().clientsUpsert.upsert({ clienti: [{ codice: `WP-CL-${next()}`, ragione_sociale: "Cliente" }] });
      s.cliente = c.righe[0]!.id;
    },
    run: async () => {
      const r = await asManager().sales.create({
        tipo: "scontrino",
        cliente: s.cliente,
        magazzino: m1,
        righe: [{ codice: "A", quantita: 1, prezzo: "5", aliquota_iva: "22" }],
      });
      expect(r.totale).toBe("6.1");
    },
    events: ["documento_vendita.emesso"],
  },
  "masterData.upsertArticles": {
    run: async () => {
      const r = await asKey().masterData.upsertArticles({ articoli: [{ codice: `WP-ART-${next()}`, descrizione: "Nuovo" }] });
      expect(r.creati).toBe(1);
    },
    events: ["articolo.modificato"],
  },
  "masterData.upsertSuppliers": {
    run: async () => {
      const r = await asKey().masterData.upsertSuppliers({ fornitori: [{ codice: `WP-F-${next()}`, nome: "Nuovo" }] });
      expect(r.creati).toBe(1);
    },
    events: ["fornitore.modificato"],
  },
  "masterData.upsertWarehouses": {
    run: async () => {
      const r = await asKey().masterData.upsertWarehouses({ magazzini: [{ codice: `WP-MAG-${next()}`, nome: "Nuovo" }] });
      expect(r.creati).toBe(1);
    },
    events: ["magazzino.modificato"],
  },
  "masterData.upsertLocations": {
    run: async () => {
      const r = await asKey().masterData.upsertLocations({
        ubicazioni: [{ magazzino: "M1", codice: `WP-U-${next()}`, tipo: "stoccaggio" }],
      });
      expect(r.creati).toBe(1);
    },
    events: ["ubicazione.modificato"],
  },
  "clientsUpsert.upsert": {
    run: async () => {
      const r = await asKey().clientsUpsert.upsert({ clienti: [{ codice: `WP-C-${next()}`, ragione_sociale: "Nuovo" }] });
      expect(r.creati).toBe(1);
    },
    events: ["cliente.modificato"],
  },
  "orders.upsert": {
    run: async () => {
      await openOrder();
    },
    events: ["ordine_acquisto.modificato"],
  },
  "orders.close": {
    prepare: async () => {
      s.close = await openOrder();
    },
    run: async () => {
      const r = await asManager().orders.close({ id: String(s.close.id), motivo: "Chiuso" });
      expect(r).toMatchObject({ chiusi: 1, ordine: { stato: "evaso" } });
    },
    events: ["ordine_acquisto.modificato"],
  },
  // Reservations (docs/api.md section 14): state and quantities, no stock.
  "reservations.upsert": {
    prepare: async () => {
      const r = await asKey().movements.write({ natura: "carico", magazzino: m1, righe: [{ codice: "A", quantita: 2 }] });
      expect(r.scritte).toBe(1);
      await asKey().clientsUpsert.upsert({ clienti: [{ codice: "WP-CL", ragione_sociale: "Cliente" }] });
    },
    run: async () => {
      const r = await asKey().reservations.upsert({
        prenotazioni: [{ riferimento: "WP-P", magazzino: "M1", cliente: "WP-CL", righe: [{ numero_riga: 1, codice: "A", quantita: 1 }] }],
      });
      expect(r.create).toBe(1);
      s.reservation = r.righe[0]!.id!;
    },
    events: ["prenotazione.modificata"],
  },
  "reservations.cancel": {
    run: async () => {
      const r = await asKey().reservations.cancel({ id: String(s.reservation) } as never);
      expect(r.stato).toBe("annullata");
    },
    events: ["prenotazione.modificata"],
  },
};
