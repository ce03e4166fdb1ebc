import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedKey, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";

/**
 * What the arrival test files share (arrivals-search, arrivals-register, arrivals-cancel, arrivals-concurrency): the
 * seeds of one file's database and the request helpers. The bindings are filled by the `test.beforeAll` that
 * `seedArrivalsBeforeAll` registers in the file that calls it, and read live by the helpers.
 */

export let t: TestDb;
export let key: string;
export let reader: string;
export let m1: number;
export let m2: number;
export const a: Record<string, number> = {};
export const f: Record<string, number> = {};

/** Registers the file's seeds: warehouses M1 and M2, the articles (LATTE with lots, GUANTO's variants), FA and FB, a lettura key. */
export function seedArrivalsBeforeAll() {
  test.beforeAll(async ({ db, apiKey }) => {
    t = db;
    m1 = (await seedWarehouse(t.prisma, "M1")).id;
    m2 = (await seedWarehouse(t.prisma, "M2")).id;
    a.VITE = (await seedArticle(t.prisma, "VITE", { ean: "8001234567897" })).id;
    a.LATTE = (await seedArticle(t.prisma, "LATTE", { ean: "8000000000019", lotti: true })).id;
    const tpl = await seedArticle(t.prisma, "GUANTO", { haVarianti: true, ean: "8000000000026" });
    a.GUANTO_M = (await seedArticle(t.prisma, "GUANTO-M", { modelloId: tpl.id, ean: "8000000000033" })).id;
    a.GUANTO_L = (await seedArticle(t.prisma, "GUANTO-L", { modelloId: tpl.id, ean: "8000000000040" })).id;
    a.SOLO = (await seedArticle(t.prisma, "SOLO", { ean: "8000000000057" })).id;
    f.A = (await seedSupplier(t.prisma, "FA")).id;
    f.B = (await seedSupplier(t.prisma, "FB")).id;
    key = apiKey.chiave;
    reader = (await seedKey(t.prisma, ["lettura"])).chiave;
  });
}

export const search = (body: unknown, k = key) => rest("POST", "/arrivi/cerca", { key: k, body });
export const arrive = (body: unknown, headers: Record<string, string> = {}) => rest("POST", "/arrivi", { key, body, headers });
export const cancel = (id: number, body?: unknown) =>
  rest("POST", `/arrivi/${id}/annulla`, { key, body, ...(body === undefined ? {} : {}) });

export async function rowState(riga: number) {
  const { rows } = await t.pool.query(
    `SELECT r.arrivata::text AS arrivata, r.stato AS riga_stato, o.stato AS ordine_stato,
            COALESCE((SELECT sum(m.quantita) FROM movimenti m WHERE m.riferimento_tipo = 'riga_ordine' AND m.riferimento_id = r.id), 0)::text AS ledger
       FROM righe_ordine r JOIN ordini_acquisto o ON o.id = r.ordine_id WHERE r.id = $1`,
    [riga],
  );
  return { arrivata: Number(rows[0].arrivata), riga: rows[0].riga_stato, ordine: rows[0].ordine_stato, ledger: Number(rows[0].ledger) };
}
