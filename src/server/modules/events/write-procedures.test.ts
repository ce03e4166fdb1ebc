import { describe, expect } from "vitest";
import type { Actor } from "../auth/actor";
import type { TestDb } from "../../testing/db";
import { caller, countRows, rest, seedArticle, seedSession, seedWarehouse } from "../../testing/fixtures";
import { seedLocationWarehouse } from "../../testing/location-fixtures";
import { test } from "../../testing/test";
import { appRouter } from "../../trpc/router";
import { createUser } from "../users/users.service";
import { EVENT_TYPES, type EventType } from "../../../lib/domain-lists";

/**
 * Every write procedure of the router, and its events (docs/api.md section 10: "every write that changes stock, an
 * order or master data also records an event, in the same transaction"). The tables below classify every
 * mutation of `appRouter`: WRITES, with one valid write and the event types it must record, and NO_EVENT, the
 * mutations that change no stock, order or master data (sessions, users, API keys, reads sent as mutations).
 * A mutation in neither table fails the first test, so a new write path cannot be added without deciding
 * which events it records. Each entry then runs: a write must change the domain's tables and record exactly
 * its events, committed (read back through GET /eventi); a NO_EVENT mutation must change neither.
 */

let t: TestDb;
let key: string;
let keyActor: Actor;
let manager: Actor & { kind: "utente" };
let admin: Actor & { kind: "utente" };
let m1: number;
let seq = 0;
/** A fresh suffix per use: every entry writes its own rows. */
const next = () => `${++seq}`;

test.beforeAll(async ({ db, key: k, actor }) => {
  t = db;
  key = k;
  keyActor = actor;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  for (const sql of (process.env.SABOTAGE ?? "").split(";").filter(Boolean)) await t.pool.query(sql);
  await seedArticle(t.prisma, "A", { ean: "8001234567897" });
  await seedArticle(t.prisma, "L", { lotti: true });
  const user = async (ruolo: "responsabile" | "amministratore") => {
    const u = await t.prisma.utente.create({ data: { username: `wp-${ruolo}`, password_hash: "-", ruolo } });
    return { kind: "utente" as const, id: u.id, username: u.username, ruolo };
  };
  manager = await user("responsabile");
  admin = await user("amministratore");
  const f = await asKey().masterData.upsertSuppliers({ fornitori: [{ codice: "F1", nome: "Fornitore" }] });
  expect(f.creati).toBe(1);
});

const asKey = () => caller(t, keyActor, "rest");
const asManager = () => caller(t, manager, "trpc");
const asAdmin = () => caller(t, admin, "trpc");
/** The same key with the `webhook` scope: webhook endpoints by REST. */
const asWebhookKey = () =>
  caller(t, { ...(keyActor as Actor & { kind: "chiave" }), permessi: ["lettura", "scrittura", "webhook"] }, "rest");

/** An open order of one row of article A; returns its id and row id. */
async function openOrder(quantita = 10) {
  const numero = `WP-${next()}`;
  const r = await asKey().orders.upsert({
    ordini: [
      { numero, fornitore: "F1", data: "2026-11-20", magazzino: "M1", righe: [{ numero_riga: 1, articolo: "A", quantita, prezzo: "1.5" }] },
    ],
  });
  expect(r.creati).toBe(1);
  const o = r.righe[0]!;
  return { id: o.id!, riga: o.righe![0]!.riga, numero };
}

/** Scratch space of the entries: what a `prepare` creates for its `run`. */
const s: Record<string, any> = {};

interface Write {
  /** Preconditions; the events they record are not counted. */
  prepare?: () => Promise<void>;
  /** One valid write through the caller (it asserts its own outcome: a write that wrote nothing proves nothing). */
  run: () => Promise<unknown>;
  /** The event types it must record, in sequence order. */
  events: EventType[];
}

/** Every mutation that changes stock, an order or master data, with the events it records. */
const WRITES: Record<string, Write> = {
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
  "alignment.align": {
    run: async () => {
      const r = await asKey().alignment.align({ magazzino: m1, righe: [{ codice: "A", contato: 1234.5 }] });
      expect(r).toMatchObject({ scritte: 1, rifiutate: 0 });
    },
    events: ["giacenze.allineate"],
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

/** Mutations that change no stock, order or master data: they record no event. Each call must succeed. */
/** A receiving difference to hang photos on (as a pallet's receipt records one). */
async function aDifference(): Promise<number> {
  const o = await openOrder();
  const { rows } = await t.pool.query(
    `INSERT INTO differenze_ricevimento (data, fornitore_id, riga_ordine_id, articolo_id, ricevuta, quantita, motivo)
     SELECT '2026-11-28', o.fornitore_id, r.id, r.articolo_id, 1, 1, 'danneggiato'
       FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id WHERE r.id = $1 RETURNING id`,
    [o.riga],
  );
  return rows[0].id;
}
const JPEG_BASE64 = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]).toString("base64");

const NO_EVENT: Record<string, { why: string; prepare?: () => Promise<void>; run: () => Promise<unknown> }> = {
  "notices.addPhoto": {
    why: "a photo of a receiving difference: evidence beside it, not stock, order or master data",
    prepare: async () => {
      s.photoDifference = await aDifference();
    },
    run: async () =>
      expect((await asKey().notices.addPhoto({ id: String(s.photoDifference), tipo: "image/jpeg", dati: JPEG_BASE64 } as never)).n).toBe(1),
  },
  "notices.addDifferencePhoto": {
    why: "the receiving screen's photo of a difference (as notices.addPhoto)",
    prepare: async () => {
      s.photoDifference = await aDifference();
    },
    run: async () =>
      expect(
        (await asManager().notices.addDifferencePhoto({ differenza: s.photoDifference, tipo: "image/jpeg", dati: JPEG_BASE64 })).n,
      ).toBe(1),
  },
  "arrivals.search": {
    why: "a read sent as POST (POST /arrivi/cerca)",
    run: async () => expect((await asKey().arrivals.search({ barcode: "8001234567897" })).ordini.length).toBeGreaterThan(0),
  },
  "arrivals.scan": {
    why: "a read sent as a mutation for its body (the receiving screen's scan)",
    run: async () => expect((await asKey().arrivals.scan({ barcode: "8001234567897", magazzino: m1 })).ordini.length).toBeGreaterThan(0),
  },
  "putaway.identify": {
    why: "a read sent as a mutation so that a scan is never cached (the inventory screen's scans)",
    run: async () => expect((await asKey().putaway.identify({ magazzino: m1, codice: "A" })).tipo).toBe("articolo"),
  },
  "idempotency.settle": {
    why: "settles an Idempotency-Key: at most an abandonment record, never the request",
    run: async () => {
      expect(await asKey().idempotency.settle({ percorso: "/arrivi", chiave: `wp-settle-${next()}` })).toEqual({ esito: "abbandonata" });
      expect(await countRows(t, "idempotenza")).toBeGreaterThan(0);
    },
  },
  "catalogue.resolve": {
    why: "a read sent as a mutation for its body",
    run: async () => expect((await asKey().catalogue.resolve({ letture: ["A"] })).articoli[0]!.articolo?.codice).toBe("A"),
  },
  "session.signIn": {
    why: "opens a session",
    prepare: async () => {
      s.login = `wp-login-${next()}`;
      await createUser(t.prisma, { username: s.login, password: "password-lunga", ruolo: "operatore" });
    },
    run: async () =>
      expect((await caller(t, admin, "trpc").session.signIn({ username: s.login, password: "password-lunga" })).utente.username).toBe(
        s.login,
      ),
  },
  "session.signOut": {
    why: "closes a session",
    prepare: async () => {
      const username = `wp-logout-${next()}`;
      s.session = await seedSession(t.prisma, username, "operatore");
      const u = await t.prisma.utente.findUniqueOrThrow({ where: { username } });
      s.sessionActor = { kind: "utente", id: u.id, username, ruolo: "operatore" };
      s.sessions = await countRows(t, "sessioni");
    },
    run: async () => {
      expect(await caller(t, s.sessionActor, "trpc", { cookie: s.session.cookie }).session.signOut()).toEqual({ uscito: true });
      expect(await countRows(t, "sessioni")).toBe(s.sessions - 1);
    },
  },
  "users.create": {
    why: "users",
    run: async () => {
      s.user = await asAdmin().users.create({ username: `wp-user-${next()}`, password: "password-lunga", ruolo: "operatore" });
      expect(s.user.ruolo).toBe("operatore");
    },
  },
  "users.update": {
    why: "users",
    prepare: async () => {
      s.toUpdate = await asAdmin().users.create({ username: `wp-upd-${next()}`, password: "password-lunga", ruolo: "operatore" });
    },
    run: async () => expect((await asAdmin().users.update({ id: s.toUpdate.id, ruolo: "responsabile" })).ruolo).toBe("responsabile"),
  },
  "users.setPassword": {
    why: "users",
    prepare: async () => {
      s.toReset = await asAdmin().users.create({ username: `wp-pwd-${next()}`, password: "password-lunga", ruolo: "operatore" });
    },
    run: async () => {
      await asAdmin().users.setPassword({ id: s.toReset.id, password: "altra-password-lunga" });
    },
  },
  "apiKeys.create": {
    why: "API keys",
    run: async () =>
      expect((await asAdmin().apiKeys.create({ nome: `wp-${next()}`, permessi: ["lettura"] })).chiave).toEqual(expect.any(String)),
  },
  "apiKeys.revoke": {
    why: "API keys",
    prepare: async () => {
      s.toRevoke = await asAdmin().apiKeys.create({ nome: `wp-rev-${next()}`, permessi: ["lettura"] });
    },
    run: async () => expect(await asAdmin().apiKeys.revoke({ id: s.toRevoke.id })).toEqual({ id: s.toRevoke.id, revocata: true }),
  },
  "webhooks.create": {
    why: "webhook endpoints: they receive events, they are none",
    run: async () => {
      const r = await asAdmin().webhooks.create({ url: "https://93.184.215.14/hook", eventi: ["articolo.modificato"] });
      expect(r.segreto).toMatch(/^whsec_/);
    },
  },
  "webhooks.setActive": {
    why: "webhook endpoints",
    prepare: async () => {
      s.hook = (await asAdmin().webhooks.create({ url: "https://93.184.215.14/attivo", eventi: ["articolo.modificato"] })).endpoint;
    },
    run: async () => expect((await asAdmin().webhooks.setActive({ id: s.hook.id, attivo: false })).attivo).toBe(false),
  },
  "webhooks.replay": {
    why: "webhook deliveries queued again",
    prepare: async () => {
      s.replay = (await asAdmin().webhooks.create({ url: "https://93.184.215.14/replay", eventi: ["articolo.modificato"] })).endpoint;
      // As if its worker had considered every event so far.
      await t.pool.query("UPDATE webhook_endpoint SET cursore = (SELECT max(id) FROM eventi) WHERE id = $1", [s.replay.id]);
      s.replayed = (await t.pool.query("SELECT count(*)::int AS n FROM eventi WHERE tipo = 'articolo.modificato'")).rows[0].n;
      expect(s.replayed).toBeGreaterThan(0);
    },
    run: async () => expect(await asAdmin().webhooks.replay({ id: s.replay.id, da: 1 })).toEqual({ riaccodate: s.replayed }),
  },
  "webhooks.replayDelivery": {
    why: "a webhook delivery queued again",
    prepare: async () => {
      s.failed = (await asAdmin().webhooks.create({ url: "https://93.184.215.14/fallita", eventi: ["articolo.modificato"] })).endpoint;
      const evento = (await t.pool.query("SELECT max(id)::int AS id FROM eventi WHERE tipo = 'articolo.modificato'")).rows[0].id;
      s.delivery = (
        await t.pool.query("INSERT INTO webhook_consegne (endpoint_id, evento_id, stato) VALUES ($1, $2, 'fallita') RETURNING id", [
          s.failed.id,
          evento,
        ])
      ).rows[0].id;
    },
    run: async () => expect(await asAdmin().webhooks.replayDelivery({ id: s.failed.id, consegna: s.delivery })).toEqual({ riaccodate: 1 }),
  },
  "webhooks.update": {
    why: "webhook endpoints",
    prepare: async () => {
      s.settings = (
        await asAdmin().webhooks.create({ url: "https://93.184.215.14/impostazioni", eventi: ["articolo.modificato"] })
      ).endpoint;
    },
    run: async () =>
      expect((await asAdmin().webhooks.update({ id: s.settings.id, eventi_per_richiesta: 10 })).eventi_per_richiesta).toBe(10),
  },
  "webhooks.remove": {
    why: "webhook endpoints",
    prepare: async () => {
      s.removed = (await asAdmin().webhooks.create({ url: "https://93.184.215.14/via", eventi: ["articolo.modificato"] })).endpoint;
    },
    run: async () => expect((await asAdmin().webhooks.remove({ id: s.removed.id })).eliminato).toBe(true),
  },
  "webhooksRest.create": {
    why: "a key's webhook endpoint",
    run: async () =>
      expect(
        (await asWebhookKey().webhooksRest.create({ url: "https://93.184.215.14/rest", eventi: ["articolo.modificato"] })).segreto,
      ).toMatch(/^whsec_/),
  },
  "webhooksRest.update": {
    why: "a key's webhook endpoint",
    prepare: async () => {
      s.restHook = (
        await asWebhookKey().webhooksRest.create({ url: "https://93.184.215.14/rest-2", eventi: ["articolo.modificato"] })
      ).webhook;
    },
    run: async () =>
      expect((await asWebhookKey().webhooksRest.update({ id: String(s.restHook.id), consegna: "parallela" } as never)).consegna).toBe(
        "parallela",
      ),
  },
  "webhooksRest.replay": {
    why: "a key's webhook deliveries queued again",
    run: async () =>
      expect(await asWebhookKey().webhooksRest.replay({ id: String(s.restHook.id), da: 1 } as never)).toEqual({
        riaccodate: expect.any(Number),
      }),
  },
  "webhooksRest.remove": {
    why: "a key's webhook endpoint",
    run: async () => expect((await asWebhookKey().webhooksRest.remove({ id: String(s.restHook.id) } as never)).eliminato).toBe(true),
  },
  "printers.add": {
    why: "label printers",
    run: async () => expect((await asAdmin().printers.add({ nome: `wp-${next()}`, indirizzo: "127.0.0.1:9100" })).attiva).toBe(true),
  },
  "printers.update": {
    why: "a label printer's address",
    prepare: async () => {
      s.edited = await asAdmin().printers.add({ nome: `wp-modifica-${next()}`, indirizzo: "127.0.0.1:9100" });
    },
    run: async () =>
      expect((await asAdmin().printers.update({ id: s.edited.id, indirizzo: "127.0.0.1:9102" })).indirizzo).toBe("127.0.0.1:9102"),
  },
  "printers.setActive": {
    why: "a label printer taken out of service",
    prepare: async () => {
      s.retired = await asAdmin().printers.add({ nome: `wp-disattiva-${next()}`, indirizzo: "127.0.0.1:9100" });
    },
    run: async () => expect((await asAdmin().printers.setActive({ id: s.retired.id, attiva: false })).attiva).toBe(false),
  },
  "printers.print": {
    why: "a print job: labels describe goods, they change none",
    prepare: async () => {
      s.printer = await asAdmin().printers.add({ nome: `wp-stampa-${next()}`, indirizzo: "127.0.0.1:9100" });
    },
    run: async () =>
      expect(
        (await asKey().printers.print({ id: String(s.printer.id), etichetta: { tipo: "lotto", articolo: 1, lotto: "L1" } } as never)).stato,
      ).toBe("in_coda"),
  },
  "printers.reprint": {
    why: "a print job again",
    prepare: async () => {
      s.job = await asKey().printers.print({ id: String(s.printer.id), etichetta: { tipo: "lotto", articolo: 1, lotto: "L2" } } as never);
    },
    run: async () => expect((await asKey().printers.reprint({ id: s.job.id })).stato).toBe("in_coda"),
  },
};

/** The tables of stock, orders and master data: what a write changes and a NO_EVENT mutation must not. */
const DOMAIN_TABLES = [
  "magazzini",
  "ubicazioni",
  "articoli",
  "lotti",
  "giacenze",
  "fornitori",
  "ordini_acquisto",
  "righe_ordine",
  "operazioni",
  "movimenti",
  "clienti",
  "documenti_vendita",
  "righe_documento_vendita",
  "numeratori",
  "avvisi_spedizione",
  "colli",
  "righe_collo",
  "prenotazioni",
  "righe_prenotazione",
];

async function domainSnapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of DOMAIN_TABLES) {
    const { rows } = await t.pool.query(`SELECT md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS h FROM ${table} x`);
    out[table] = rows[0].h;
  }
  return out;
}

const lastSeq = async (): Promise<number> => (await t.pool.query("SELECT coalesce(max(id), 0)::int AS n FROM eventi")).rows[0].n;

/** The events after `dopo`, read through GET /eventi: only committed events are there. */
async function committedEvents(dopo: number) {
  const r = await rest("GET", `/eventi?dopo=${dopo}&limite=100`, { key });
  expect(r.status).toBe(200);
  expect(r.body.altri).toBe(false);
  return r.body.eventi as { sequenza: number; tipo: string; dati: Record<string, unknown> }[];
}

/** The router's procedures by path ("movements.write"), with their kind. */
const procedures = () => Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>);

const mutations = () =>
  procedures()
    .filter(([, p]) => p._def.type === "mutation")
    .map(([path]) => path)
    .sort();

describe("classification", () => {
  test("every mutation of the router is in WRITES or NO_EVENT, and the tables name only mutations", () => {
    const all = mutations();
    expect(all.length).toBeGreaterThan(15);
    const unclassified = all.filter((m) => !(m in WRITES) && !(m in NO_EVENT));
    expect(unclassified, "mutations in neither table: add each to WRITES with its event types, or to NO_EVENT").toEqual([]);
    expect(
      Object.keys(WRITES).filter((m) => m in NO_EVENT),
      "in both tables",
    ).toEqual([]);
    expect([...Object.keys(WRITES), ...Object.keys(NO_EVENT)].sort(), "stale entries").toEqual(all);
    // Queries write nothing: none of them hides among the writes.
    const queries = procedures()
      .filter(([, p]) => p._def.type !== "mutation")
      .map(([path]) => path);
    expect(queries.filter((q) => q in WRITES)).toEqual([]);
  });

  test("every event type of the contract is recorded by some write", () => {
    expect(new Set(Object.values(WRITES).flatMap((w) => w.events))).toEqual(new Set(EVENT_TYPES));
  });
});

describe.each(Object.entries(WRITES))("%s", (path, write) => {
  test(`commits its change with ${write.events.join(" + ") || "no event"}`, async () => {
    await write.prepare?.();
    const before = { n: await countRows(t, "eventi"), seq: await lastSeq(), data: await domainSnapshot() };
    await write.run();
    expect(await domainSnapshot(), `${path} changed no stock, order or master data`).not.toEqual(before.data);
    const events = await committedEvents(before.seq);
    expect(
      events.map((e) => e.tipo),
      `${path} must record ${JSON.stringify(write.events)}`,
    ).toEqual(write.events);
    expect(await countRows(t, "eventi")).toBe(before.n + write.events.length);
    const seqs = events.map((e) => e.sequenza);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });
});

describe.each(Object.entries(NO_EVENT))("%s", (path, entry) => {
  test(`records no event (${entry.why}) and changes no stock, order or master data`, async () => {
    await entry.prepare?.();
    const before = { n: await countRows(t, "eventi"), seq: await lastSeq(), data: await domainSnapshot() };
    await entry.run();
    expect(await domainSnapshot(), path).toEqual(before.data);
    expect(await committedEvents(before.seq), path).toEqual([]);
    expect(await countRows(t, "eventi")).toBe(before.n);
  });
});
