import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";

/**
 * What the movement test files share (movements-write, movements-lots-refusals): the seeds of one file's database and
 * the request helper. The bindings are filled by the `test.beforeAll` that `seedMovementsBeforeAll` registers in the
 * file that calls it, and read live by the helper.
 */

export let t: TestDb;
export let key: string;
export let actor: Actor;
export let m1: number;
export let m2: number;
export const ids: Record<string, number> = {};

/** Registers the file's seeds: warehouses M1 and M2, the articles (VITE-M6 with an EAN and a cost, LATTE in lots, GUANTO's variants), the key. */
export function seedMovementsBeforeAll() {
  test.beforeAll(async ({ db, apiKey, actor: keyActor }) => {
    t = db;
    m1 = (await seedWarehouse(t.prisma, "M1")).id;
    m2 = (await seedWarehouse(t.prisma, "M2")).id;
    ids.VITE = (await seedArticle(t.prisma, "VITE-M6", { ean: "8001234567897", costo: "0.12" })).id;
    ids.LATTE = (await seedArticle(t.prisma, "LATTE", { lotti: true })).id;
    ids.NOCOST = (await seedArticle(t.prisma, "NOCOST")).id;
    const tpl = await seedArticle(t.prisma, "GUANTO", { haVarianti: true });
    ids.GUANTO = tpl.id;
    ids.GUANTO_M = (await seedArticle(t.prisma, "GUANTO-M", { modelloId: tpl.id, ean: "8001234567880" })).id;
    ids.GUANTO_L = (await seedArticle(t.prisma, "GUANTO-L", { modelloId: tpl.id })).id;
    key = apiKey.chiave;
    actor = keyActor;
  });
}

export const post = (body: unknown) => rest("POST", "/movimenti", { key, body });
