import { expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { type RestResult, rest, seedArticle, seedKey, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";

/**
 * What the feeds' test files share (feeds-filters, feeds-lists, feeds-change-feed): the seeds of one file's
 * database and the paging helpers. The bindings are filled by the `test.beforeAll` that `seedFeedsBeforeAll`
 * registers in the file that calls it, and read live by the helpers.
 */

export let t: TestDb;
let reader: string;
export let writer: string;
export let m1: number;
export let m2: number;
export const a: Record<string, number> = {};
export const f: Record<string, number> = {};
export const o = {} as Record<"A1" | "B1" | "A2", { id: number; righe: number[] }>;

/** Registers the file's seeds: warehouses M1 and DEPOSITO, five articles, FA and FB, orders OA-1, OB-1, OA-2, a lettura and a read-write key. */
export function seedFeedsBeforeAll() {
  test.beforeAll(async ({ db }) => {
    t = db;
    m1 = (await seedWarehouse(t.prisma, "M1")).id;
    m2 = (await seedWarehouse(t.prisma, "DEPOSITO")).id;
    a.VITE = (await seedArticle(t.prisma, "VITE-M6", { ean: "8001234567897", costo: "0.1200" })).id;
    a.LATTE = (await seedArticle(t.prisma, "LATTE", { lotti: true })).id;
    const tpl = await seedArticle(t.prisma, "GUANTO", { haVarianti: true });
    a.GUANTO = tpl.id;
    a.GUANTO_M = (await seedArticle(t.prisma, "GUANTO-M", { modelloId: tpl.id })).id;
    a.DADO = (await seedArticle(t.prisma, "dado-m6")).id;
    f.A = (await seedSupplier(t.prisma, "FA")).id;
    f.B = (await seedSupplier(t.prisma, "FB")).id;
    o.A1 = await seedOrder(t.prisma, {
      numero: "OA-1",
      fornitore: f.A,
      magazzino: m1,
      data: "2026-11-02",
      righe: [
        { articolo: a.VITE, quantita: "10", prezzo: "0.2500" },
        { articolo: a.GUANTO_M, quantita: "2.5", prezzo: "3" },
      ],
    });
    o.B1 = await seedOrder(t.prisma, {
      numero: "OB-1",
      fornitore: f.B,
      magazzino: m2,
      data: "2026-11-10",
      righe: [{ articolo: a.DADO, quantita: "4", prezzo: "1" }],
    });
    o.A2 = await seedOrder(t.prisma, {
      numero: "OA-2",
      fornitore: f.A,
      magazzino: m1,
      data: "2026-11-20",
      righe: [{ articolo: a.LATTE, quantita: "6", prezzo: "0.9" }],
    });
    reader = (await seedKey(t.prisma, ["lettura"])).chiave;
    writer = (await seedKey(t.prisma)).chiave;
  });
}

export const get = (path: string) => rest("GET", path, { key: reader });
export const LISTS = [
  ["/articoli", "articoli"],
  ["/fornitori", "fornitori"],
  ["/magazzini", "magazzini"],
  ["/ordini-acquisto", "ordini"],
] as const;

/** Every page of a list or of the feed from a cursor, with a small page size. */
export async function pageAll(path: string, arrayKey: string, cursorParam: "dopo" | "modificati_dopo", from: number, limite = 2) {
  const seen: RestResult["body"][] = [];
  let cursor = from;
  for (let i = 0; i < 1000; i++) {
    const r = await get(`${path}${path.includes("?") ? "&" : "?"}${cursorParam}=${cursor}&limite=${limite}`);
    expect(r.status).toBe(200);
    seen.push(...r.body[arrayKey]);
    cursor = cursorParam === "dopo" ? r.body.cursore : r.body.cursore_versione;
    if (!r.body.altri) break;
  }
  return { seen, cursor };
}
