import { expect } from "vitest";
import type { TestDb } from "../testing/db";
import { countRows, type RestResult, seedArticle, seedKey, seedWarehouse } from "../testing/fixtures";
import { test } from "../testing/test";

/**
 * What the REST contract's test files share (rest-contract-errors, rest-contract-limits, rest-contract-openapi):
 * the seeds of one file's database (a warehouse, article A1, a scrittura key and a lettura key) and the checks of
 * an error body. The bindings are filled by the `test.beforeAll` that `seedRestContractBeforeAll` registers in the
 * file that calls it, and read live by the helpers.
 */

export let t: TestDb;
export let writer: string;
export let reader: string;

export function seedRestContractBeforeAll() {
  test.beforeAll(async ({ db }) => {
    t = db;
    await seedWarehouse(t.prisma);
    await seedArticle(t.prisma, "A1");
    writer = (await seedKey(t.prisma, ["scrittura"])).chiave;
    reader = (await seedKey(t.prisma, ["lettura"])).chiave;
  });
}

export const load = { natura: "carico", magazzino: 1, righe: [{ codice: "A1", quantita: 1 }] };

export async function expectNothingWritten<T>(fn: () => Promise<T>): Promise<T> {
  const before = await countRows(t, "movimenti");
  const ops = await countRows(t, "operazioni");
  const r = await fn();
  expect(await countRows(t, "movimenti")).toBe(before);
  expect(await countRows(t, "operazioni")).toBe(ops);
  return r;
}

export function expectErrorBody(r: Pick<RestResult, "status" | "body" | "headers">, status: number, codice: string) {
  expect(r.status).toBe(status);
  expect(r.body.codice).toBe(codice);
  expect(typeof r.body.messaggio).toBe("string");
  expect(r.body.messaggio.length).toBeGreaterThan(10);
  expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  expect(r.headers.get("content-type")).toContain("application/json");
}
