import { describe, expect } from "vitest";
import { DomainError } from "../lib/errors";
import type { Actor, Role } from "../modules/auth/actor";
import type { TestDb } from "../testing/db";
import { caller, seedArticle, seedOrder, seedSupplier, seedWarehouse } from "../testing/fixtures";
import { test } from "../testing/test";
import { appRouter } from "./router";

/**
 * Role enforcement, procedure by procedure, on the server: what each role may call through the UI
 * channel. The table lists every procedure of the router, so a new one cannot be added without
 * deciding who may call it.
 */

let t: TestDb;
const users = {} as Record<Role, Actor & { kind: "utente" }>;
let m1: number;
let riga: number;

test.beforeAll(async ({ db }) => {
  t = db;
  for (const ruolo of ["operatore", "responsabile", "amministratore"] as const) {
    const u = await t.prisma.utente.create({ data: { username: `u-${ruolo}`, password_hash: "-", ruolo } });
    users[ruolo] = { kind: "utente", id: u.id, username: u.username, ruolo };
  }
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  const art = await seedArticle(t.prisma, "VITE", { ean: "8001234567897" });
  const f = await seedSupplier(t.prisma, "F1");
  riga = (
    await seedOrder(t.prisma, {
      numero: "O-1",
      fornitore: f.id,
      magazzino: m1,
      data: "2026-11-01",
      righe: [{ articolo: art.id, quantita: "100", prezzo: "1" }],
    })
  ).righe[0]!;
});

type Call = (c: ReturnType<typeof caller>) => Promise<unknown>;

/** The least role of each procedure (`chiave`: API keys only, every user refused), and a call that passes input validation. */
const TABLE: Record<string, { role: Role | "chiave" | null; call: Call }> = {
  "session.signIn": { role: null, call: (c) => c.session.signIn({ username: "nessuno", password: "x" }) },
  "session.signOut": { role: "operatore", call: (c) => c.session.signOut() },
  "session.me": { role: "operatore", call: (c) => c.session.me() },
  "catalogue.warehouses": { role: "operatore", call: (c) => c.catalogue.warehouses() },
  "catalogue.suppliers": { role: "operatore", call: (c) => c.catalogue.suppliers() },
  "catalogue.articles": { role: "operatore", call: (c) => c.catalogue.articles({ cerca: "VITE" }) },
  "catalogue.resolve": { role: "operatore", call: (c) => c.catalogue.resolve({ letture: ["vite"] }) },
  "notices.list": { role: "operatore", call: (c) => c.notices.list({}) },
  "notices.fillRates": { role: "responsabile", call: (c) => c.notices.fillRates({ da: "2026-11-01", a: "2026-11-30" }) },
  "notices.pallet": { role: "operatore", call: (c) => c.notices.pallet({ sscc: "380012340000000999" }) },
  "notices.differences": { role: "operatore", call: (c) => c.notices.differences({}) },
  "notices.upsert": { role: "responsabile", call: (c) => c.notices.upsert({ avvisi: [{ numero: "RUOLI" }] }) },
  "notices.receive": { role: "operatore", call: (c) => c.notices.receive({ sscc: "380012340000000999", ddt: "D-RUOLI" }) },
  "notices.cancel": { role: "operatore", call: (c) => c.notices.cancel({ sscc: "380012340000000999" }) },
  "notices.addPhoto": { role: "operatore", call: (c) => c.notices.addPhoto({ id: "999999", tipo: "image/png", dati: "iVBORw0KGgo=" }) },
  "notices.addDifferencePhoto": {
    role: "operatore",
    call: (c) => c.notices.addDifferencePhoto({ differenza: 999999, tipo: "image/png", dati: "iVBORw0KGgo=" }),
  },
  "notices.photo": { role: "responsabile", call: (c) => c.notices.photo({ id: "999999", n: "1" }) },
  "notices.differencePhoto": { role: "responsabile", call: (c) => c.notices.differencePhoto({ differenza: 999999, n: 1 }) },
  "notices.returnToSupplier": {
    role: "operatore",
    call: (c) =>
      c.notices.returnToSupplier({ fornitore: "NESSUNO", magazzino: m1, righe: [{ codice: "VITE", quantita: 1, motivo: "ruoli" }] }),
  },
  "orders.list": { role: "operatore", call: (c) => c.orders.list({}) },
  "orders.printable": { role: "operatore", call: (c) => c.orders.printable({ id: 1 }) },
  "orders.detail": { role: "operatore", call: (c) => c.orders.detail({ id: 1 }) },
  "orders.upsert": {
    role: "responsabile",
    call: (c) =>
      c.orders.upsert({
        ordini: [
          {
            numero: "RUOLI",
            fornitore: "NESSUNO",
            data: "2026-11-01",
            magazzino: "M1",
            righe: [{ numero_riga: 1, articolo: "VITE", quantita: 1, prezzo: "1" }],
          },
        ],
      }),
  },
  "orders.close": { role: "responsabile", call: (c) => c.orders.close({ id: "999999" } as never) },
  "masterData.upsertArticles": { role: "responsabile", call: (c) => c.masterData.upsertArticles({ articoli: [] }) },
  "masterData.upsertSuppliers": { role: "responsabile", call: (c) => c.masterData.upsertSuppliers({ fornitori: [] }) },
  "masterData.upsertWarehouses": { role: "responsabile", call: (c) => c.masterData.upsertWarehouses({ magazzini: [] }) },
  "masterData.upsertLocations": { role: "responsabile", call: (c) => c.masterData.upsertLocations({ ubicazioni: [] }) },
  "clientsUpsert.upsert": { role: "responsabile", call: (c) => c.clientsUpsert.upsert({ clienti: [] }) },
  "feeds.articles": { role: "operatore", call: (c) => c.feeds.articles({}) },
  "feeds.articleLookup": { role: "operatore", call: (c) => c.feeds.articleLookup({}) },
  "feeds.suppliers": { role: "operatore", call: (c) => c.feeds.suppliers({}) },
  "feeds.warehouses": { role: "operatore", call: (c) => c.feeds.warehouses({}) },
  "feeds.locations": { role: "operatore", call: (c) => c.feeds.locations({}) },
  "feeds.purchaseOrders": { role: "operatore", call: (c) => c.feeds.purchaseOrders({}) },
  "lots.listOpen": { role: "operatore", call: (c) => c.lots.listOpen({ id: "1", magazzino: String(m1) } as never) },
  "arrivals.search": { role: "operatore", call: (c) => c.arrivals.search({ barcode: "8001234567897" }) },
  "arrivals.register": { role: "operatore", call: (c) => c.arrivals.register({ magazzino: m1, ddt: "D-RUOLI", riga, quantita: 1 }) },
  "arrivals.cancel": { role: "operatore", call: (c) => c.arrivals.cancel({ id: "999999" } as never) },
  "arrivals.scan": { role: "operatore", call: (c) => c.arrivals.scan({ barcode: "8001234567897", magazzino: m1 }) },
  "arrivals.today": { role: "operatore", call: (c) => c.arrivals.today({}) },
  "arrivals.expected": { role: "operatore", call: (c) => c.arrivals.expected({ magazzino: m1 }) },
  "idempotency.settle": { role: "operatore", call: (c) => c.idempotency.settle({ percorso: "/arrivi", chiave: "ruoli" }) },
  "alignment.align": {
    role: "operatore",
    call: (c) => c.alignment.align({ magazzino: m1, simula: true, righe: [{ codice: "VITE", contato: 1 }] }),
  },
  "availability.list": { role: "responsabile", call: (c) => c.availability.list({}) },
  "locationsStock.list": { role: "operatore", call: (c) => c.locationsStock.list({ magazzino: String(m1) } as never) },
  "locationsStock.ofArticle": {
    role: "operatore",
    call: (c) => c.locationsStock.ofArticle({ id: "1", magazzino: String(m1) } as never),
  },
  "locationsStock.awaitingPutaway": {
    role: "operatore",
    call: (c) => c.locationsStock.awaitingPutaway({ magazzino: String(m1) } as never),
  },
  "locationsStock.whereIs": { role: "operatore", call: (c) => c.locationsStock.whereIs({ id: "1" } as never) },
  "locationsStock.screenLocations": { role: "operatore", call: (c) => c.locationsStock.screenLocations({}) },
  "putaway.warehouses": { role: "operatore", call: (c) => c.putaway.warehouses() },
  "putaway.worklist": { role: "operatore", call: (c) => c.putaway.worklist({ magazzino: m1 }) },
  "putaway.identify": { role: "operatore", call: (c) => c.putaway.identify({ magazzino: m1, codice: "VITE" }) },
  "putaway.store": {
    role: "operatore",
    call: (c) => c.putaway.store({ magazzino: m1, codice: "VITE", lotto: null, da: "NO", a: "NO2", quantita: 1 }),
  },
  "putaway.storePallet": { role: "operatore", call: (c) => c.putaway.storePallet({ magazzino: m1, sscc: "380073250000009995", a: "NO" }) },
  "movements.list": { role: "responsabile", call: (c) => c.movements.list({}) },
  "movements.newest": { role: "responsabile", call: (c) => c.movements.newest({}) },
  "clients.search": { role: "responsabile", call: (c) => c.clients.search({ cerca: "" }) },
  "movements.write": {
    role: "responsabile",
    call: (c) => c.movements.write({ natura: "carico", magazzino: m1, righe: [{ codice: "VITE", quantita: 1 }] }),
  },
  "clients.list": { role: "responsabile", call: (c) => c.clients.list({}) },
  "sales.list": { role: "responsabile", call: (c) => c.sales.list({}) },
  "sales.newest": { role: "responsabile", call: (c) => c.sales.newest({}) },
  "sales.create": {
    role: "responsabile",
    call: (c) =>
      c.sales.create({
        tipo: "ddt",
        cliente: 999,
        magazzino: m1,
        righe: [{ codice: "VITE", quantita: 1, prezzo: "1", aliquota_iva: "22" }],
      }),
  },
  "users.list": { role: "amministratore", call: (c) => c.users.list() },
  "users.create": {
    role: "amministratore",
    call: (c) =>
      c.users.create({ username: `nuovo-${Math.random().toString(36).slice(2, 8)}`, password: "password-lunga", ruolo: "operatore" }),
  },
  "users.update": { role: "amministratore", call: (c) => c.users.update({ id: 999_999, ruolo: "operatore" }) },
  "users.setPassword": { role: "amministratore", call: (c) => c.users.setPassword({ id: 999_999, password: "password-lunga" }) },
  "apiKeys.list": { role: "amministratore", call: (c) => c.apiKeys.list() },
  "apiKeys.create": { role: "amministratore", call: (c) => c.apiKeys.create({ nome: "ruoli", permessi: ["lettura"] }) },
  "apiKeys.revoke": { role: "amministratore", call: (c) => c.apiKeys.revoke({ id: 999_999 }) },
  "audit.list": { role: "amministratore", call: (c) => c.audit.list() },
  "events.list": { role: "responsabile", call: (c) => c.events.list({}) },
  "cursors.starting": { role: "responsabile", call: (c) => c.cursors.starting({}) },
  "webhooks.list": { role: "amministratore", call: (c) => c.webhooks.list() },
  "webhooks.create": {
    role: "amministratore",
    // An address of a documentation range (TEST-NET-3): public, and no name to resolve.
    call: (c) => c.webhooks.create({ url: "https://203.0.113.10/ruoli", eventi: ["movimenti.registrati"] }),
  },
  "webhooks.setActive": { role: "amministratore", call: (c) => c.webhooks.setActive({ id: 999_999, attivo: false }) },
  "webhooks.replay": { role: "amministratore", call: (c) => c.webhooks.replay({ id: 999_999, da: 1 }) },
  "webhooks.replayDelivery": { role: "amministratore", call: (c) => c.webhooks.replayDelivery({ id: 999_999, consegna: 1 }) },
  "webhooks.deliveries": { role: "amministratore", call: (c) => c.webhooks.deliveries({ id: 999_999 }) },
  "webhooks.attempts": { role: "amministratore", call: (c) => c.webhooks.attempts({ id: 999_999 }) },
  "webhooks.update": { role: "amministratore", call: (c) => c.webhooks.update({ id: 999_999, attivo: false }) },
  "webhooks.remove": { role: "amministratore", call: (c) => c.webhooks.remove({ id: 999_999 }) },
  // A key's own endpoints by REST: users manage every endpoint on the screen instead.
  "webhooksRest.list": { role: "chiave", call: (c) => c.webhooksRest.list({}) },
  "webhooksRest.create": {
    role: "chiave",
    call: (c) => c.webhooksRest.create({ url: "https://203.0.113.10/ruoli", eventi: ["movimenti.registrati"] }),
  },
  "webhooksRest.get": { role: "chiave", call: (c) => c.webhooksRest.get({ id: "999999" } as never) },
  "webhooksRest.update": { role: "chiave", call: (c) => c.webhooksRest.update({ id: "999999", attivo: false } as never) },
  "webhooksRest.remove": { role: "chiave", call: (c) => c.webhooksRest.remove({ id: "999999" } as never) },
  "webhooksRest.replay": { role: "chiave", call: (c) => c.webhooksRest.replay({ id: "999999", da: 1 } as never) },
  // Labels and printers: every role prints (the dock's operators); only an administrator adds, changes or deactivates a printer.
  "labels.lot": { role: "operatore", call: (c) => c.labels.lot({ articolo: "999999", lotto: "L1" } as never) },
  "labels.pallet": { role: "operatore", call: (c) => c.labels.pallet({ sscc: "080012340000000011" } as never) },
  "labels.location": { role: "operatore", call: (c) => c.labels.location({ magazzino: String(m1), ubicazione: "NO" } as never) },
  "labels.orderRows": { role: "operatore", call: (c) => c.labels.orderRows({ id: "999999" } as never) },
  "printers.list": { role: "operatore", call: (c) => c.printers.list({}) },
  "printers.print": {
    role: "operatore",
    call: (c) => c.printers.print({ id: "999999", etichetta: { tipo: "lotto", articolo: 1, lotto: "L1" } } as never),
  },
  "printers.job": { role: "operatore", call: (c) => c.printers.job({ id: "999999" } as never) },
  "reservations.list": { role: "operatore", call: (c) => c.reservations.list({}) },
  "reservations.upsert": {
    role: "responsabile",
    call: (c) =>
      c.reservations.upsert({
        prenotazioni: [{ riferimento: "RUOLI", magazzino: "NO", cliente: "NO", righe: [{ numero_riga: 1, codice: "VITE", quantita: 1 }] }],
      } as never),
  },
  "reservations.cancel": { role: "responsabile", call: (c) => c.reservations.cancel({ id: "999999" } as never) },
  "reservations.newest": { role: "responsabile", call: (c) => c.reservations.newest({}) },
  // An article's page shows who holds it, to every role that looks articles up.
  "reservations.holders": { role: "operatore", call: (c) => c.reservations.holders({ articolo: 1 }) },
  "printers.recent": { role: "operatore", call: (c) => c.printers.recent({}) },
  "printers.reprint": { role: "operatore", call: (c) => c.printers.reprint({ id: 999_999 }) },
  "printers.add": { role: "amministratore", call: (c) => c.printers.add({ nome: "Ruoli", indirizzo: "127.0.0.1:9100" }) },
  "printers.update": { role: "amministratore", call: (c) => c.printers.update({ id: 999_999, indirizzo: "127.0.0.1:9101" }) },
  "printers.setActive": { role: "amministratore", call: (c) => c.printers.setActive({ id: 999_999, attiva: false }) },
};

const RANK: Record<Role, number> = { operatore: 1, responsabile: 2, amministratore: 3 };

async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (e) {
    const cause = (e as { cause?: unknown }).cause;
    const d = e instanceof DomainError ? e : cause instanceof DomainError ? cause : undefined;
    return d?.codice ?? `altro: ${(e as Error).message}`;
  }
}

test("the table names every procedure of the router", () => {
  expect(Object.keys(TABLE).sort()).toEqual(Object.keys(appRouter._def.procedures).sort());
});

describe.each(Object.entries(TABLE))("%s", (path, { role, call }) => {
  test.each(["operatore", "responsabile", "amministratore"] as const)("as %s", async (who) => {
    const result = await outcome(call(caller(t, users[who], "trpc")));
    if (role === "chiave" || (role !== null && RANK[who] < RANK[role])) expect(result, path).toBe("permesso_negato");
    else expect(result, path).not.toBe("permesso_negato");
  });
});

describe("rules finer than a procedure", () => {
  test("an operator previews an alignment but cannot write it; a manager can", async () => {
    const input = { magazzino: m1, righe: [{ codice: "VITE", contato: 3 }] };
    expect(await outcome(caller(t, users.operatore, "trpc").alignment.align(input))).toBe("permesso_negato");
    expect(await outcome(caller(t, users.responsabile, "trpc").alignment.align(input))).toBe("ok");
  });

  test("an operator's preview is blind: outcomes per row, no current stock nor difference; a manager's shows them", async () => {
    const input = {
      magazzino: m1,
      simula: true,
      righe: [
        { codice: "VITE", contato: 3 },
        { codice: "NON-ESISTE", contato: 1 },
      ],
    };
    const blind = await caller(t, users.operatore, "trpc").alignment.align(input);
    expect(blind).toMatchObject({ operazione: null, scritte: 0, invariate: 0, rifiutate: 1 });
    expect(blind.righe.map((r) => [r.esito, r.attuale, r.contato, r.delta, r.errore?.codice])).toEqual([
      ["contata", null, "3", null, undefined],
      ["rifiutata", null, "1", null, "articolo_non_trovato"],
    ]);
    const seen = await caller(t, users.responsabile, "trpc").alignment.align(input);
    expect(seen.righe[0]).toMatchObject({ attuale: expect.any(String), contato: "3", delta: expect.any(String) });
    expect(seen.righe[0]!.esito).not.toBe("contata");
  });

  test("an operator cancels only their own arrivals of the day; a manager cancels any", async () => {
    const register = (who: Role, ddt: string) =>
      caller(t, users[who], "trpc").arrivals.register({ magazzino: m1, ddt, riga, quantita: 1 }) as Promise<{ movimento: number }>;
    const own = await register("operatore", "D-OWN");
    const others = await register("responsabile", "D-OTHER");
    const op = caller(t, users.operatore, "trpc");
    expect(await outcome(op.arrivals.cancel({ id: String(others.movimento) } as never))).toBe("permesso_negato");
    expect(await outcome(op.arrivals.cancel({ id: String(own.movimento) } as never))).toBe("ok");
    expect(await outcome(caller(t, users.responsabile, "trpc").arrivals.cancel({ id: String(others.movimento) } as never))).toBe("ok");

    // An arrival of the operator's from yesterday (written here directly, as a past day's ledger would hold it).
    const { rows } = await t.pool.query(
      `WITH op AS (INSERT INTO operazioni (origine, utente_id) VALUES ('arrivo', $1) RETURNING id)
       INSERT INTO movimenti (operazione_id, data, origine, natura, magazzino_id, articolo_id, quantita, riferimento_tipo, riferimento_id, utente_id)
       SELECT op.id, current_date - 1, 'arrivo', 'carico', $2, r.articolo_id, 1, 'riga_ordine', r.id, $1 FROM op, righe_ordine r WHERE r.id = $3
       RETURNING id`,
      [users.operatore.id, m1, riga],
    );
    const old = await outcome(op.arrivals.cancel({ id: String(rows[0].id) } as never));
    expect(old).toBe("permesso_negato");
  });

  test("API keys answer to their scopes, never to roles, and cannot manage users, keys or webhooks", async () => {
    const key: Actor = { kind: "chiave", id: 1, nome: "k", permessi: ["lettura", "scrittura"] };
    expect(await outcome(caller(t, key, "rest").availability.list({}))).toBe("ok");
    expect(await outcome(caller(t, key, "rest").users.list())).toBe("permesso_negato");
    expect(await outcome(caller(t, key, "rest").apiKeys.create({ nome: "x", permessi: ["lettura"] }))).toBe("permesso_negato");
    expect(await outcome(caller(t, key, "rest").webhooks.list())).toBe("permesso_negato");
    expect(await outcome(caller(t, key, "rest").webhooks.create({ url: "https://203.0.113.10/k", eventi: ["movimenti.registrati"] }))).toBe(
      "permesso_negato",
    );
    expect(await outcome(caller(t, key, "rest").webhooks.replay({ id: 1, da: 1 }))).toBe("permesso_negato");
  });

  test("the last active administrator can be neither demoted nor deactivated", async () => {
    const admin = caller(t, users.amministratore, "trpc");
    expect(await outcome(admin.users.update({ id: users.amministratore.id, ruolo: "responsabile" }))).toBe("ultimo_amministratore");
    expect(await outcome(admin.users.update({ id: users.amministratore.id, attivo: false }))).toBe("richiesta_non_valida");
  });
});
