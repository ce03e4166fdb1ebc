import { expect } from "vitest";
import type { Actor } from "../auth/actor";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { EventType } from "../../../lib/domain-lists";

/**
 * What the write-procedure test files share (write-procedures, no-event-procedures, and the tables of
 * write-procedures.fixtures.ts and no-event-procedures.fixtures.ts): the seeds of one file's database, the callers,
 * the scratch space of the entries and the snapshots that tell a write from a mutation that changes nothing. The
 * bindings are filled by the `test.beforeAll` that `seedWriteProceduresBeforeAll` registers in the file that calls
 * it, and read live by the helpers.
 */

export let t: TestDb;
export let key: string;
export let keyActor: Actor;
export let manager: Actor & { kind: "utente" };
export let admin: Actor & { kind: "utente" };
export let m1: number;
let seq = 0;
/** A fresh suffix per use: every entry writes its own rows. */
export const next = () => `${++seq}`;

/** Registers the file's seeds (`SABOTAGE`: SQL run on the seeded database first, to see the file fail): warehouse M1,
 * articles A and L (with lots), a responsabile and an amministratore, supplier F1. */
export function seedWriteProceduresBeforeAll() {
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
}

export const asKey = () => caller(t, keyActor, "rest");
export const asManager = () => caller(t, manager, "trpc");
export const asAdmin = () => caller(t, admin, "trpc");
/** The same key with the `webhook` scope: webhook endpoints by REST. */
export const asWebhookKey = () =>
  caller(t, { ...(keyActor as Actor & { kind: "chiave" }), permessi: ["lettura", "scrittura", "webhook"] }, "rest");

/** An open order of one row of article A; returns its id and row id. */
export async function openOrder(quantita = 10) {
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
// biome-ignore lint/suspicious/noExplicitAny: each entry keeps there what its own `run` reads back.
export const s: Record<string, any> = {};

export interface Write {
  /** Preconditions; the events they record are not counted. */
  prepare?: () => Promise<void>;
  /** One valid write through the caller (it asserts its own outcome: a write that wrote nothing proves nothing). */
  run: () => Promise<unknown>;
  /** The event types it must record, in sequence order. */
  events: EventType[];
}

/** The tables of stock, orders and master data: what a write changes and a NO_EVENT mutation must not. */
export const DOMAIN_TABLES = [
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

export async function domainSnapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of DOMAIN_TABLES) {
    const { rows } = await t.pool.query(`SELECT md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS h FROM ${table} x`);
    out[table] = rows[0].h;
  }
  return out;
}

export const lastSeq = async (): Promise<number> => (await t.pool.query("SELECT coalesce(max(id), 0)::int AS n FROM eventi")).rows[0].n;

/** The events after `dopo`, read through GET /eventi: only committed events are there. */
export async function committedEvents(dopo: number) {
  const r = await rest("GET", `/eventi?dopo=${dopo}&limite=100`, { key });
  expect(r.status).toBe(200);
  expect(r.body.altri).toBe(false);
  return r.body.eventi as { sequenza: number; tipo: string; dati: Record<string, unknown> }[];
}
