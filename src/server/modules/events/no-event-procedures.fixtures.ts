import { expect } from "vitest";
import { caller, countRows, seedSession } from "../../testing/fixtures";
import { createUser } from "../users/users.service";
import { admin, asAdmin, asKey, asManager, asWebhookKey, m1, next, openOrder, s, t } from "./write-procedures-testing";

/** A receiving difference to hang photos on (as a pallet's receipt records one). */
export async function aDifference(): Promise<number> {
  const o = await openOrder();
  const { rows } = await t.pool.query(
    `INSERT INTO differenze_ricevimento (data, fornitore_id, riga_ordine_id, articolo_id, ricevuta, quantita, motivo)
     SELECT '2026-11-28', o.fornitore_id, r.id, r.articolo_id, 1, 1, 'danneggiato'
       FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id WHERE r.id = $1 RETURNING id`,
    [o.riga],
  );
  return rows[0].id;
}
export const JPEG_BASE64 = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]).toString("base64");

/** Mutations that change no stock, order or master data: they record no event. Each call must succeed. */
export const NO_EVENT: Record<string, { why: string; prepare?: () => Promise<void>; run: () => Promise<unknown> }> = {
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
