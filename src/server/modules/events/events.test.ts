import { describe, expect } from "vitest";
import { getConfig } from "../../config";
import { DomainError } from "../../lib/errors";
import type { Actor } from "../auth/actor";
import { MAX_MOVEMENT_ROWS } from "../movements/movements.schemas";
import { writeMovements } from "../movements/movements.service";
import { MAX_PAGE_MOVEMENTS } from "./events.service";
import type { TestDb } from "../../testing/db";
import { caller, countRows, rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { EVENT_TYPES } from "../../../lib/domain-lists";

/**
 * Events (docs/api.md section 10): every write that changes stock, an order or master data records its event in
 * its own transaction, and GET /eventi pages them by `sequenza` with the completeness promise of section 4.
 * An event's `dati` shows its rows exactly as their lists do: each test reads the list right after the write
 * and compares them whole.
 */

let t: TestDb;
let key: string;
let keyId: number;
let keyActor: Actor;
let m1: number;
let m2: number;
let responsabile: Actor & { kind: "utente" };
let cliente: number;
let fornitore: number;
const a = {} as Record<"A" | "B" | "L", number>;

interface Evento {
  id: string;
  sequenza: number;
  tipo: string;
  creato_il: string;
  dati: Record<string, any>;
}

test.beforeAll(async ({ db, apiKey, actor }) => {
  t = db;
  key = apiKey.chiave;
  keyId = apiKey.id;
  keyActor = actor;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
  m2 = (await seedWarehouse(t.prisma, "M2")).id;
  a.A = (await seedArticle(t.prisma, "A", { costo: "2.5" })).id;
  a.B = (await seedArticle(t.prisma, "B")).id;
  a.L = (await seedArticle(t.prisma, "L", { lotti: true })).id;
  const f = await rest("POST", "/fornitori", { key, body: { fornitori: [{ codice: "F1", nome: "Fornitore uno" }] } });
  expect(f.body.creati).toBe(1);
  fornitore = f.body.righe[0].id;
  const c = await rest("POST", "/clienti", { key, body: { clienti: [{ codice: "CL1", ragione_sociale: "Rossi S.r.l." }] } });
  expect(c.body.creati).toBe(1);
  cliente = c.body.righe[0].id;
  const u = await t.prisma.utente.create({ data: { username: "resp", password_hash: "-", ruolo: "responsabile" } });
  responsabile = { kind: "utente", id: u.id, username: u.username, ruolo: "responsabile" };
});

// ---- helpers -------------------------------------------------------------------------------------------

const get = async (path: string) => {
  const r = await rest("GET", path, { key });
  expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
  return r.body;
};
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => rest("POST", path, { key, body, headers });

/** Every event after `dopo`, paging with the cursor as a client would (filters in `query`, e.g. "&tipo=…"). */
async function eventsAfter(dopo: number, query = ""): Promise<Evento[]> {
  const out: Evento[] = [];
  let cursor = dopo;
  for (let i = 0; i < 100; i++) {
    const body = await get(`/eventi?dopo=${cursor}&limite=100${query}`);
    out.push(...body.eventi);
    cursor = body.cursore;
    if (!body.altri) return out;
  }
  throw new Error("GET /eventi did not end");
}

/** The highest event sequence committed, read in the table. */
const lastSeq = async (): Promise<number> => (await t.pool.query("SELECT coalesce(max(id), 0)::int AS n FROM eventi")).rows[0].n;

/** Runs a write and returns the events it recorded, read back through GET /eventi. */
async function recorded<T>(write: () => Promise<T>): Promise<{ result: T; events: Evento[] }> {
  const before = await lastSeq();
  const result = await write();
  return { result, events: await eventsAfter(before) };
}

/** Runs a write that must record nothing: no event row, no new sequence, nothing for GET /eventi. */
async function recordsNothing<T>(write: () => Promise<T>): Promise<T> {
  const before = { n: await countRows(t, "eventi"), seq: await lastSeq() };
  const result = await write();
  expect(await countRows(t, "eventi")).toBe(before.n);
  expect(await lastSeq()).toBe(before.seq);
  expect(await eventsAfter(before.seq)).toEqual([]);
  return result;
}

const types = (events: Evento[]) => events.map((e) => e.tipo);
const movementsOf = async (operazione: number) => (await get(`/movimenti?operazione=${operazione}&limite=100`)).movimenti;
/** The row of id `id` as its id-paged list shows it. */
async function listed(path: string, arrayKey: string, id: number) {
  const body = await get(`${path}?dopo=${id - 1}&limite=1`);
  expect(body[arrayKey][0]?.id, `${path} ${id}`).toBe(id);
  return body[arrayKey][0];
}

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

async function newOrder(numero: string, righe: { numero_riga: number; articolo: string; quantita: number; prezzo: string }[]) {
  const r = await post("/ordini-acquisto", { ordini: [{ numero, fornitore: "F1", data: "2026-11-20", magazzino: "M1", righe }] });
  expect(r.status).toBe(200);
  expect(r.body.creati, JSON.stringify(r.body)).toBe(1);
  const riga = Object.fromEntries(r.body.righe[0].righe.map((x: any) => [x.numero_riga, x.riga])) as Record<number, number>;
  return { id: r.body.righe[0].id as number, riga };
}

const load = (codice: string, quantita: number, extra: Record<string, unknown> = {}) =>
  post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice, quantita, ...extra }] });

class Rollback extends Error {}

/**
 * A movement written by the ledger's own write path (the service POST /movimenti runs) in a transaction held
 * open: `event` is the sequence its event took, seen from inside; `commit` or `rollback` ends it.
 */
async function holdMovement(codice = "B") {
  let release!: (commit: boolean) => void;
  const decided = new Promise<boolean>((r) => (release = r));
  let written!: (w: { operazione: number; event: number; before: number }) => void;
  const isWritten = new Promise<{ operazione: number; event: number; before: number }>((r) => (written = r));
  const before = await lastSeq();
  const done = t.prisma
    .$transaction(
      async (tx) => {
        const r = await writeMovements(
          tx,
          keyActor,
          { natura: "carico", magazzino: m1, righe: [{ codice, quantita: 1 }] },
          { timeZone: getConfig().SERVICE_TIME_ZONE, origine: "api" },
        );
        const seen = await tx.$queryRaw<{ n: number }[]>`SELECT max(id)::int AS n FROM eventi`;
        written({ operazione: r.operazione!, event: seen[0]!.n, before });
        if (!(await decided)) throw new Rollback();
      },
      { timeout: 60_000 },
    )
    .catch((e) => {
      if (!(e instanceof Rollback)) throw e;
    });
  const w = await Promise.race([
    isWritten,
    done.then(() => {
      throw new Error("the held transaction ended before writing");
    }),
  ]);
  return {
    ...w,
    commit: async () => {
      release(true);
      await done;
    },
    rollback: async () => {
      release(false);
      await done;
    },
  };
}

// ---- each write records its event ----------------------------------------------------------------------

describe("each write records its event, with dati as the lists show them", () => {
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

  test("POST /prenotazioni and its annulla: prenotazione.modificata as GET /prenotazioni; a repeat records nothing", async () => {
    expect((await post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice: "B", quantita: 3 }] })).status).toBe(200);
    const p = { riferimento: "EV-P", magazzino: "M1", cliente: "CL1", righe: [{ numero_riga: 1, codice: "B", quantita: 2 }] };
    const { result, events } = await recorded(() => post("/prenotazioni", { prenotazioni: [p] }));
    expect(result.body.create).toBe(1);
    const id = result.body.righe[0].id as number;
    expect(types(events)).toEqual(["prenotazione.modificata"]);
    expect(events[0]!.dati).toEqual(await listed("/prenotazioni", "prenotazioni", id));
    await recordsNothing(async () => expect((await post("/prenotazioni", { prenotazioni: [p] })).body.invariate).toBe(1));
    const cancelled = await recorded(() => post(`/prenotazioni/${id}/annulla`, {}));
    expect(types(cancelled.events)).toEqual(["prenotazione.modificata"]);
    expect(cancelled.events[0]!.dati).toEqual(cancelled.result.body);
    expect(cancelled.result.body.stato).toBe("annullata");
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

// ---- GET /eventi: filters and paging -------------------------------------------------------------------

describe("GET /eventi", () => {
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

  test("an unknown or repeated type, a parameter given twice, limite out of range: 422 filtro_non_valido naming the field", async () => {
    const cases: [string, string | RegExp][] = [
      ["tipo=ordine.creato", "tipo"],
      ["tipo=articolo.modificato,ordine.creato", "tipo"],
      ["tipo=articolo.modificato,articolo.modificato", "tipo"],
      ["tipo=", "tipo"],
      ["tipo=articolo.modificato&tipo=cliente.modificato", "tipo"],
      ["limite=101", "limite"],
      ["limite=0", "limite"],
      ["dopo=-1", "dopo"],
      ["dopo=abc", "dopo"],
      ["sconosciuto=1", "sconosciuto"],
    ];
    for (const [qs, campo] of cases) {
      const r = await rest("GET", `/eventi?${qs}`, { key });
      expect(r.status, qs).toBe(422);
      expect(r.body.codice, qs).toBe("filtro_non_valido");
      if (typeof campo === "string") expect(r.body.campo, qs).toBe(campo);
      else expect(r.body.campo, qs).toMatch(campo);
      expect(r.body.messaggio, qs).toMatch(/^Parametro|^Il parametro/);
    }
    const unknown = await rest("GET", "/eventi?tipo=articolo.modificato,ordine.creato", { key });
    expect(unknown.body.messaggio).toContain("'ordine.creato'");
    expect(unknown.body.messaggio).toContain("movimenti.registrati");
    expect((await rest("GET", "/eventi?limite=100", { key })).status).toBe(200);
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

  test("a page stops before the event that would take its movements past MAX_PAGE_MOVEMENTS; paging on loses none", async () => {
    const before = await lastSeq();
    const calls = MAX_PAGE_MOVEMENTS / MAX_MOVEMENT_ROWS + 1;
    const righe = Array.from({ length: MAX_MOVEMENT_ROWS }, () => ({ codice: "B", quantita: 1 }));
    for (let i = 0; i < calls; i++) {
      const r = await post("/movimenti", { natura: "carico", magazzino: m1, righe });
      expect(r.body.scritte, JSON.stringify(r.body)).toBe(MAX_MOVEMENT_ROWS);
      // A master-data event between them carries no movement: it never stops a page.
      await post("/fornitori", { fornitori: [{ codice: `FB${i}`, nome: `Fornitore ${i}` }] });
    }
    const first = await get(`/eventi?dopo=${before}&limite=100`);
    const carried = (p: { eventi: Evento[] }) => p.eventi.reduce((n, e) => n + (e.dati.movimenti?.length ?? 0), 0);
    // 10 calls of 500 fill the budget exactly, with the supplier after the 10th: the 11th call's event would pass it.
    expect(types(first.eventi)).toEqual(Array.from({ length: calls - 1 }, () => ["movimenti.registrati", "fornitore.modificato"]).flat());
    expect(carried(first)).toBe(MAX_PAGE_MOVEMENTS);
    expect(first.altri).toBe(true);
    expect(first.cursore).toBe(first.eventi.at(-1).sequenza);
    const second = await get(`/eventi?dopo=${first.cursore}&limite=100`);
    expect(types(second.eventi)).toEqual(["movimenti.registrati", "fornitore.modificato"]);
    expect(second.altri).toBe(false);
    // Together, every event recorded, once, in order: as the table holds them.
    const table = (await t.pool.query("SELECT id FROM eventi WHERE id > $1 ORDER BY id", [before])).rows.map((r) => r.id);
    expect([...first.eventi, ...second.eventi].map((e) => e.sequenza)).toEqual(table);
  });
});

// ---- completeness --------------------------------------------------------------------------------------

describe("completeness under concurrent writers", () => {
  test("an event held by an open transaction holds the cursor back until it commits; then both, none twice", async () => {
    const start = await lastSeq();
    const held = await holdMovement();
    try {
      const low = held.event;
      expect(low).toBeGreaterThan(start);
      const high = await post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice: "A", quantita: 1 }] });
      expect(high.status).toBe(200);
      const highSeq = await lastSeq();
      expect(highSeq).toBeGreaterThan(low);

      // Without the gate, a reader would see the higher event now and store it as its cursor.
      const naive = await t.pool.query("SELECT id FROM eventi WHERE id > $1 ORDER BY id", [start]);
      expect(naive.rows.map((r) => r.id)).toEqual([highSeq]);

      const during = await get(`/eventi?dopo=${start}`);
      expect(during).toEqual({ eventi: [], altri: true, cursore: start });
      const filtered = await get(`/eventi?dopo=${start}&tipo=movimenti.registrati&limite=1`);
      expect(filtered).toEqual({ eventi: [], altri: true, cursore: start });

      await held.commit();
      const seen: number[] = [];
      let cursor = during.cursore as number;
      for (let i = 0; i < 10; i++) {
        const r = await get(`/eventi?dopo=${cursor}&limite=1`);
        seen.push(...r.eventi.map((e: Evento) => e.sequenza));
        cursor = r.cursore;
        if (!r.altri) break;
      }
      expect(seen).toEqual([low, highSeq]);
      const both = await eventsAfter(start);
      expect(both.map((e) => e.dati.operazione)).toEqual([held.operazione, high.body.operazione]);
      expect(both[0]!.dati).toEqual({ operazione: held.operazione, movimenti: await movementsOf(held.operazione) });
    } finally {
      await held.rollback();
    }
  });

  test("a rolled-back held event does not block the readers", async () => {
    const start = await lastSeq();
    const held = await holdMovement();
    let high: Awaited<ReturnType<typeof post>>;
    try {
      high = await post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice: "A", quantita: 1 }] });
      expect((await get(`/eventi?dopo=${start}`)).eventi).toEqual([]);
    } finally {
      await held.rollback();
    }
    const after = await eventsAfter(start);
    expect(after.map((e) => e.dati.operazione)).toEqual([high.body.operazione]);
  });

  test("a master-data change committed after a reader passed later events is still delivered, after them", async () => {
    const start = await lastSeq();
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      const id = (
        await c.query("INSERT INTO clienti (codice, ragione_sociale, data) VALUES ('EV-LENTO', 'Lento', current_date) RETURNING id")
      ).rows[0].id as number;
      const other = await post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice: "A", quantita: 1 }] });
      const first = await get(`/eventi?dopo=${start}`);
      expect(first.eventi.map((e: Evento) => e.dati.operazione)).toEqual([other.body.operazione]);
      await c.query("COMMIT");
      const next = await get(`/eventi?dopo=${first.cursore}`);
      expect(next.eventi.map((e: Evento) => [e.tipo, e.dati.id])).toEqual([["cliente.modificato", id]]);
      expect(next.eventi[0].dati).toEqual(await listed("/clienti", "clienti", id));
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      c.release();
    }
  });

  test("writers racing a reader: the reader sees every event exactly once, in order", async () => {
    const from = await lastSeq();
    let writing = true;
    const apiWriters = Array.from({ length: 3 }, async (_, w) => {
      for (let i = 0; i < 12; i++) {
        if (i % 3 === 0) await post("/clienti", { clienti: [{ codice: `EV-RACE-${w}-${i}`, ragione_sociale: "Gara" }] });
        else await post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice: "A", quantita: 1 }] });
      }
    });
    const slowWriters = Array.from({ length: 2 }, async () => {
      for (let i = 0; i < 10; i++) {
        const held = await holdMovement();
        await new Promise((r) => setTimeout(r, 2 + Math.random() * 15));
        await held.commit();
      }
    });
    const seen: number[] = [];
    let reads = 0;
    const reader = (async () => {
      let cur = from;
      for (;;) {
        const done = !writing;
        const r = await get(`/eventi?limite=5&dopo=${cur}`);
        reads++;
        seen.push(...r.eventi.map((e: Evento) => e.sequenza));
        cur = r.cursore;
        if (done && !r.altri) break;
      }
    })();
    await Promise.all([...apiWriters, ...slowWriters]);
    writing = false;
    await reader;
    const all = (await t.pool.query("SELECT id FROM eventi WHERE id > $1 ORDER BY id", [from])).rows.map((r) => r.id);
    expect(all.length).toBe(3 * 12 + 2 * 10);
    expect(seen).toEqual(all);
    expect(reads).toBeGreaterThan(3);
  });
});

// ---- append-only -------------------------------------------------------------------------------------------

describe("the eventi table is append-only", () => {
  test("UPDATE, DELETE and TRUNCATE are refused by the database; the rows stay as they were", async () => {
    const before = (await t.pool.query("SELECT id, uid, tipo, dati FROM eventi ORDER BY id")).rows;
    expect(before.length).toBeGreaterThan(0);
    const id = before[0].id;
    // [statement, SQLSTATE, message]: the trigger refuses every UPDATE and DELETE (restrict_violation);
    // a plain TRUNCATE stops first at the webhook deliveries' foreign key, a CASCADE one at the trigger.
    const attempts: [string, unknown[], string, RegExp][] = [
      ["UPDATE eventi SET tipo = 'articolo.modificato' WHERE id = $1", [id], "23001", /eventi è un registro in sola aggiunta: UPDATE/],
      ["UPDATE eventi SET dati = '{}'::jsonb", [], "23001", /eventi è un registro in sola aggiunta: UPDATE/],
      ["DELETE FROM eventi WHERE id = $1", [id], "23001", /eventi è un registro in sola aggiunta: DELETE/],
      ["DELETE FROM eventi", [], "23001", /eventi è un registro in sola aggiunta: DELETE/],
      ["TRUNCATE eventi", [], "0A000", /foreign key/],
      ["TRUNCATE eventi CASCADE", [], "23001", /eventi è un registro in sola aggiunta: TRUNCATE/],
    ];
    for (const [sql, params, code, message] of attempts) {
      const err = await t.pool.query(sql, params).then(
        () => null,
        (e: { code?: string; message: string }) => e,
      );
      expect(err, sql).not.toBeNull();
      expect(err!.code, sql).toBe(code);
      expect(err!.message, sql).toMatch(message);
    }
    expect((await t.pool.query("SELECT id, uid, tipo, dati FROM eventi ORDER BY id")).rows).toEqual(before);
  });
});
