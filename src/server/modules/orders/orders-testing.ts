import { countRows, rest, seedArticle, seedKey, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";

/**
 * What the purchase-order test files share (orders-upsert, orders-close, orders-import): the seeds of one file's
 * database, the request builders and the snapshots that say "nothing written". The bindings are filled by the
 * `test.beforeAll` that `seedOrdersBeforeAll` registers in the file that calls it, and read live by the helpers.
 */

export let t: TestDb;
export let key: string;
export let m1: number;
export let m2: number;
export const a: Record<string, number> = {};

/** Registers the file's seeds: warehouses M1 and M2, the articles (OFF inactive, LOT with lots), suppliers FA and FB, a key. */
export function seedOrdersBeforeAll() {
  test.beforeAll(async ({ db }) => {
    t = db;
    m1 = (await seedWarehouse(t.prisma, "M1")).id;
    m2 = (await seedWarehouse(t.prisma, "M2")).id;
    a.A = (await seedArticle(t.prisma, "A", { ean: "8001234567897" })).id;
    a.B = (await seedArticle(t.prisma, "B", { ean: "8000000000019" })).id;
    a.C = (await seedArticle(t.prisma, "C", { ean: "8000000000026" })).id;
    a.D = (await seedArticle(t.prisma, "D", { ean: "8000000000033" })).id;
    a.K = (await seedArticle(t.prisma, "K", { ean: "8000000000057" })).id;
    const tpl = await seedArticle(t.prisma, "T", { haVarianti: true });
    a.TV = (await seedArticle(t.prisma, "T-V", { modelloId: tpl.id })).id;
    a.OFF = (await seedArticle(t.prisma, "OFF", { ean: "8000000000040" })).id;
    a.LOT = (await seedArticle(t.prisma, "LOT", { lotti: true })).id;
    await t.pool.query("UPDATE articoli SET attivo = false WHERE codice = 'OFF'");
    await seedSupplier(t.prisma, "FA");
    await seedSupplier(t.prisma, "FB");
    key = (await seedKey(t.prisma)).chiave;
  });
}

export type Row = { numero_riga: number; articolo: string; quantita: number; prezzo: string };
export const order = (numero: string, righe: Row[], over: Record<string, unknown> = {}) => ({
  numero,
  fornitore: "FA",
  data: "2026-11-20",
  magazzino: "M1",
  ...over,
  righe,
});
export const row = (numero_riga: number, articolo: string, quantita: number, prezzo = "1.5"): Row => ({
  numero_riga,
  articolo,
  quantita,
  prezzo,
});
export const upsert = (ordini: unknown[], headers: Record<string, string> = {}) =>
  rest("POST", "/ordini-acquisto", { key, body: { ordini }, headers });
export const close = (id: number, body: unknown = {}) => rest("POST", `/ordini-acquisto/${id}/chiudi`, { key, body });
export const arrive = (body: unknown) => rest("POST", "/arrivi", { key, body });

/** Row counts and the orders' versions: what "nothing written" means. */
export async function snapshot() {
  const { rows } = await t.pool.query("SELECT coalesce(string_agg(id || ':' || versione, ',' ORDER BY id), '') AS v FROM ordini_acquisto");
  return { ordini: await countRows(t, "ordini_acquisto"), righe: await countRows(t, "righe_ordine"), versioni: rows[0].v as string };
}

export async function dbRows(ordine: number) {
  const { rows } = await t.pool.query(
    `SELECT id, numero_riga, posizione, articolo_id, ordinata::text, arrivata::text, chiusa::text, prezzo::text, stato, motivo_chiusura
       FROM righe_ordine WHERE ordine_id = $1 ORDER BY numero_riga`,
    [ordine],
  );
  return rows;
}

export async function orderOf(id: number) {
  return (
    await t.pool.query(
      "SELECT stato, versione::int AS versione, to_char(data, 'YYYY-MM-DD') AS data, magazzino_id FROM ordini_acquisto WHERE id = $1",
      [id],
    )
  ).rows[0];
}
