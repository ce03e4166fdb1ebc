import { expect } from "vitest";
import { gtinCheckDigit } from "../../../lib/gtin";
import type { TestDb } from "../../testing/db";
import { DomainError } from "../../lib/errors";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { importMasterData } from "./import.service";

/**
 * What the import's test files share (import-master-data, import-validation): the file's database and key, and
 * the helpers that run an import and read what it wrote. The bindings are filled by the `test.beforeAll` that
 * `openImportDbBeforeAll` registers in the file that calls it, and read live by the helpers.
 */

export const TZ = "Europe/Rome";
export let t: TestDb;
export let actor: Actor;

/** A valid EAN-13 per number, so tests never collide on barcodes. */
export const ean = (n: number) => {
  const body = `80099990${String(n).padStart(4, "0")}`;
  return `${body}${gtinCheckDigit(body)}`;
};

export function openImportDbBeforeAll() {
  test.beforeAll(async ({ db, actor: keyActor }) => {
    t = db;
    actor = keyActor;
  });
}

export const run = (data: unknown) => importMasterData(t.prisma, data, { timeZone: TZ });

/** The problems of a refused import, as `path: message`. */
export async function refusal(data: unknown): Promise<{ campo: string; messaggio: string }[]> {
  const e = await run(data).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(DomainError);
  return (e as DomainError).dettagli ?? [];
}

const TABLES = ["magazzini", "fornitori", "articoli", "clienti", "ordini_acquisto", "righe_ordine"] as const;
export async function snapshot() {
  const out: Record<string, unknown[]> = {};
  for (const table of TABLES) out[table] = (await t.pool.query(`SELECT * FROM ${table} ORDER BY id`)).rows;
  return out;
}
