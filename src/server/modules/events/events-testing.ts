import { expect } from "vitest";
import { getConfig } from "../../config";
import { DomainError } from "../../lib/errors";
import type { Actor } from "../auth/actor";
import { writeMovements } from "../movements/movements.service";
import type { TestDb } from "../../testing/db";
import { countRows, rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";

/**
 * What the event test files share (events-writes-stock, events-writes-master, events-refused, events-reads): the seeds of one file's database
 * and the readers of GET /eventi. The bindings are filled by the `test.beforeAll` that `seedEventsBeforeAll`
 * registers in the file that calls it, and read live by the helpers.
 */

export let t: TestDb;
export let key: string;
export let keyId: number;
export let keyActor: Actor;
export let m1: number;
export let m2: number;
export let responsabile: Actor & { kind: "utente" };
export let cliente: number;
export let fornitore: number;
export const a = {} as Record<"A" | "B" | "L", number>;

export interface Evento {
  id: string;
  sequenza: number;
  tipo: string;
  creato_il: string;
  // biome-ignore lint/suspicious/noExplicitAny: dati is JSON read by the assertions, as the tests read every body.
  dati: Record<string, any>;
}

/** Registers the file's seeds: warehouses M1 and M2, articles A, B and L (with lots), supplier F1, customer CL1, a responsabile. */
export function seedEventsBeforeAll() {
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
}

// ---- helpers -------------------------------------------------------------------------------------------

export const get = async (path: string) => {
  const r = await rest("GET", path, { key });
  expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
  return r.body;
};
export const post = (path: string, body: unknown, headers: Record<string, string> = {}) => rest("POST", path, { key, body, headers });

/** Every event after `dopo`, paging with the cursor as a client would (filters in `query`, e.g. "&tipo=…"). */
export async function eventsAfter(dopo: number, query = ""): Promise<Evento[]> {
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
export const lastSeq = async (): Promise<number> => (await t.pool.query("SELECT coalesce(max(id), 0)::int AS n FROM eventi")).rows[0].n;

/** Runs a write and returns the events it recorded, read back through GET /eventi. */
export async function recorded<T>(write: () => Promise<T>): Promise<{ result: T; events: Evento[] }> {
  const before = await lastSeq();
  const result = await write();
  return { result, events: await eventsAfter(before) };
}

/** Runs a write that must record nothing: no event row, no new sequence, nothing for GET /eventi. */
export async function recordsNothing<T>(write: () => Promise<T>): Promise<T> {
  const before = { n: await countRows(t, "eventi"), seq: await lastSeq() };
  const result = await write();
  expect(await countRows(t, "eventi")).toBe(before.n);
  expect(await lastSeq()).toBe(before.seq);
  expect(await eventsAfter(before.seq)).toEqual([]);
  return result;
}

export const types = (events: Evento[]) => events.map((e) => e.tipo);
export const movementsOf = async (operazione: number) => (await get(`/movimenti?operazione=${operazione}&limite=100`)).movimenti;
/** The row of id `id` as its id-paged list shows it. */
export async function listed(path: string, arrayKey: string, id: number) {
  const body = await get(`${path}?dopo=${id - 1}&limite=1`);
  expect(body[arrayKey][0]?.id, `${path} ${id}`).toBe(id);
  return body[arrayKey][0];
}

export async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (e) {
    const cause = (e as { cause?: unknown }).cause;
    const d = e instanceof DomainError ? e : cause instanceof DomainError ? cause : undefined;
    return d?.codice ?? `altro: ${(e as Error).message}`;
  }
}

export async function newOrder(numero: string, righe: { numero_riga: number; articolo: string; quantita: number; prezzo: string }[]) {
  const r = await post("/ordini-acquisto", { ordini: [{ numero, fornitore: "F1", data: "2026-11-20", magazzino: "M1", righe }] });
  expect(r.status).toBe(200);
  expect(r.body.creati, JSON.stringify(r.body)).toBe(1);
  const riga = Object.fromEntries(
    r.body.righe[0].righe.map((x: { numero_riga: number; riga: number }) => [x.numero_riga, x.riga]),
  ) as Record<number, number>;
  return { id: r.body.righe[0].id as number, riga };
}

export const load = (codice: string, quantita: number, extra: Record<string, unknown> = {}) =>
  post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice, quantita, ...extra }] });

class Rollback extends Error {}

/**
 * A movement written by the ledger's own write path (the service POST /movimenti runs) in a transaction held
 * open: `event` is the sequence its event took, seen from inside; `commit` or `rollback` ends it.
 */
export async function holdMovement(codice = "B") {
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
