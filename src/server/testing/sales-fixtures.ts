import { expect } from "vitest";
import { toErrorResponse } from "../trpc/errors";
import type { TestDb } from "./db";
import { caller, rest, seedArticle, seedWarehouse } from "./fixtures";
import { test } from "./test";
import type { Actor } from "../modules/auth/actor";

/**
 * What the sales test files share (sales-create, sales-refusals, sales-list): the seeds of one file's database
 * and the helpers that sell through the UI's procedure. The bindings are filled by the `test.beforeAll` that
 * `seedSalesBeforeAll` registers in the file that calls it, and read live by the helpers.
 */

export let t: TestDb;
export let key: string;
export let operator: Actor;
export let m1: number;
export const a: Record<string, number> = {};
export const c: Record<string, number> = {};

export async function seedClient(codice: string, ragione_sociale: string) {
  return (await t.prisma.cliente.create({ data: { codice, ragione_sociale, data: new Date("2026-01-01T00:00:00Z") } })).id;
}

/** Registers the file's seeds: warehouse M1, the articles (LATTE in lots L1 and L2, GUANTO's variants), two clients, a responsabile. */
export function seedSalesBeforeAll() {
  test.beforeAll(async ({ db, apiKey }) => {
    t = db;
    m1 = (await seedWarehouse(t.prisma, "M1")).id;
    a.VITE = (await seedArticle(t.prisma, "VITE-M6", { ean: "8001234567897", costo: "0.12" })).id;
    a.LATTE = (await seedArticle(t.prisma, "LATTE", { lotti: true })).id;
    a.DEC = (await seedArticle(t.prisma, "DEC")).id;
    a.SPENTO = (await t.prisma.articolo.update({ where: { id: (await seedArticle(t.prisma, "SPENTO")).id }, data: { attivo: false } })).id;
    const tpl = await seedArticle(t.prisma, "GUANTO", { haVarianti: true });
    a.GUANTO_M = (await seedArticle(t.prisma, "GUANTO-M", { modelloId: tpl.id, ean: "8001234567880" })).id;
    a.GUANTO_L = (await seedArticle(t.prisma, "GUANTO-L", { modelloId: tpl.id })).id;
    c.ROSSI = await seedClient("ROSSI", "Rossi S.r.l.");
    c.BIANCHI = await seedClient("BIANCHI", "Bianchi S.p.A.");
    key = apiKey.chiave;
    // Sales documents are a manager's: the user at the counter is a responsabile.
    const user = await t.prisma.utente.create({ data: { username: "banco", password_hash: "-", ruolo: "responsabile" } });
    operator = { kind: "utente", id: user.id, username: user.username, ruolo: "responsabile" };
    const load = await rest("POST", "/movimenti", {
      key,
      body: {
        natura: "carico",
        magazzino: m1,
        righe: [
          { codice: "LATTE", quantita: 10, lotto: "L1" },
          { codice: "LATTE", quantita: 5, lotto: "L2" },
        ],
      },
    });
    expect(load.body.scritte).toBe(2);
  });
}

export type Row = {
  codice?: string;
  ean?: string;
  quantita: number;
  prezzo: string;
  sconto?: string;
  aliquota_iva: string;
  lotto?: string;
};
export type Tipo = "ddt" | "fattura" | "scontrino";

export const ui = (headers: Record<string, string> = {}) => caller(t, operator, "trpc", headers);
export const sell = (
  body: { tipo?: Tipo; cliente?: number; magazzino?: number; data?: string; causale?: string; righe: Row[] },
  headers: Record<string, string> = {},
) => ui(headers).sales.create({ tipo: "ddt", cliente: c.ROSSI!, magazzino: m1, ...body });
export const vite = (quantita = 1): Row => ({ codice: "VITE-M6", quantita, prezzo: "1", aliquota_iva: "22" });

/** What the screens receive for a refusal: the same mapping the UI's error formatter applies. */
export async function refusal(p: Promise<unknown>) {
  const e = await p.then(
    () => expect.fail("il documento doveva essere rifiutato"),
    (err: unknown) => err,
  );
  return toErrorResponse(e, { requestId: "test", isQuery: false, log: false });
}

export async function numbersOf(tipo: Tipo, anno: number): Promise<number[]> {
  const { rows } = await t.pool.query("SELECT progressivo FROM documenti_vendita WHERE tipo = $1 AND anno = $2 ORDER BY progressivo", [
    tipo,
    anno,
  ]);
  return rows.map((r) => r.progressivo);
}

/** Everything a document writes; a refused document must leave all of it as it was. */
export async function footprint() {
  const { rows } = await t.pool.query(`
    SELECT (SELECT count(*) FROM documenti_vendita)::int AS documenti,
           (SELECT count(*) FROM righe_documento_vendita)::int AS righe,
           (SELECT count(*) FROM movimenti)::int AS movimenti,
           (SELECT count(*) FROM operazioni)::int AS operazioni,
           (SELECT COALESCE(sum(ultimo), 0) FROM numeratori)::int AS numeri,
           (SELECT string_agg(codice || '=' || residua::text, ',' ORDER BY id) FROM lotti) AS lotti,
           (SELECT string_agg(articolo_id || '=' || quantita::text, ',' ORDER BY articolo_id, magazzino_id) FROM giacenze) AS giacenze`);
  return rows[0];
}
