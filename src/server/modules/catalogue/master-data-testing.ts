import { expect } from "vitest";
import { gtinCheckDigit } from "../../../lib/gtin";
import type { TestDb } from "../../testing/db";
import { rest, seedKey, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";

/**
 * What the master-data test files share (master-data-articles, master-data-warehouses-suppliers): the seeds of one
 * file's database and the request helpers. The bindings are filled by the `test.beforeAll` that
 * `seedMasterDataBeforeAll` registers in the file that calls it, and read live by the helpers.
 */

export let t: TestDb;
export let key: string;
export let reader: string;
export let actor: Actor;
export let m1: number;

/** A valid EAN-13 per number. */
export const ean = (n: number) => {
  const body = `80077770${String(n).padStart(4, "0")}`;
  return `${body}${gtinCheckDigit(body)}`;
};

/** Registers the file's seeds: warehouse M1, a key with every write scope (and its actor), a lettura key. */
export function seedMasterDataBeforeAll() {
  test.beforeAll(async ({ db }) => {
    t = db;
    m1 = (await seedWarehouse(t.prisma, "M1")).id;
    const k = await seedKey(t.prisma);
    key = k.chiave;
    actor = { kind: "chiave", id: k.id, nome: k.nome, permessi: k.permessi };
    reader = (await seedKey(t.prisma, ["lettura"])).chiave;
  });
}

export const post = (path: string, body: unknown, headers: Record<string, string> = {}, k = key) =>
  rest("POST", path, { key: k, body, headers });
export const articoli = (rows: unknown[], headers: Record<string, string> = {}) => post("/articoli", { articoli: rows }, headers);

/** Every row of a table as stored, with xmin: an UPDATE, even to the same values, changes it. */
export async function table(name: string, where = "true") {
  return (await t.pool.query(`SELECT xmin::text AS xmin, * FROM ${name} WHERE ${where} ORDER BY id`)).rows;
}

export async function article(codice: string) {
  const { rows } = await t.pool.query(
    `SELECT a.*, a.costo_standard::text AS costo, m.codice AS modello FROM articoli a LEFT JOIN articoli m ON m.id = a.modello_id WHERE a.codice = $1`,
    [codice],
  );
  return rows[0];
}

export async function load(codice: string, quantita = 5, lotto?: string) {
  const r = await post("/movimenti", { natura: "carico", magazzino: m1, righe: [{ codice, quantita, ...(lotto ? { lotto } : {}) }] });
  expect(r.body.rifiutate).toBe(0);
}

export const outcome = (r: { body: { righe: { esito: string; errore?: { codice: string } }[] } }) =>
  r.body.righe.map((x) => (x.esito === "rifiutato" ? x.errore!.codice : x.esito));
