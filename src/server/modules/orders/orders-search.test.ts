import { expect } from "vitest";
import type { Actor } from "../auth/actor";
import type { TestDb } from "../../testing/db";
import { caller, seedArticle, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";

/** The orders screen's search (orders.list, tRPC): number and supplier, and what the dock scans: an EAN, GS1, an R<riga> label. */

let t: TestDb;
let operatore: Actor;
let riga: Record<string, number> = {};

test.beforeAll(async ({ db }) => {
  t = db;
  const m = (await seedWarehouse(t.prisma, "M1")).id;
  const vite = (await seedArticle(t.prisma, "VITE", { ean: "8001234567897" })).id;
  const tpl = await seedArticle(t.prisma, "GUANTO", { haVarianti: true, ean: "8000000000019" });
  const taglia = (await seedArticle(t.prisma, "GUANTO-M", { modelloId: tpl.id, ean: "8000000000026" })).id;
  // An EAN-8 as the catalogue stores it; a scanner reads it as a GTIN-14 with leading zeros in GS1.
  const corto = (await seedArticle(t.prisma, "CORTO", { ean: "96385074" })).id;
  const fa = (await seedSupplier(t.prisma, "FA")).id;
  const fb = (await seedSupplier(t.prisma, "FB")).id;
  const o = async (numero: string, fornitore: number, articoli: number[], data = "2026-11-20") =>
    seedOrder(t.prisma, {
      numero,
      fornitore,
      magazzino: m,
      data,
      righe: articoli.map((articolo) => ({ articolo, quantita: "10", prezzo: "1" })),
    });
  const one = await o("OA-1", fa, [vite, taglia]);
  const two = await o("OA-2", fb, [taglia], "2026-11-21");
  await o("OA-3", fb, [corto]);
  riga = { one: one.righe[1]!, two: two.righe[0]! };
  // An order whose number looks like a row label: found by its number too.
  await o(`R${riga.one}`, fa, [corto], "2026-11-01");
  operatore = { kind: "utente", id: 1, username: "dock", ruolo: "operatore" };
});

const found = async (cerca: string, more: { includi_evasi?: boolean } = {}) =>
  (await caller(t, operatore, "trpc").orders.list({ cerca, ...more })).ordini.map((o) => o.numero);

test("by number and by supplier's code or name, as before", async () => {
  expect(await found("oa-1")).toEqual(["OA-1"]);
  expect(await found("Fornitore FB")).toEqual(["OA-2", "OA-3"]);
});

test("by an article's EAN: every order with a row of that article (a variant by its own EAN)", async () => {
  expect(await found("8001234567897")).toEqual(["OA-1"]);
  expect(await found("8000000000026")).toEqual(["OA-2", "OA-1"]);
  // The template's EAN is not its variants': no order has a row of the template.
  expect(await found("8000000000019")).toEqual([]);
});

test("by a GS1 code carrying the GTIN, in every form a scanner or a person writes it", async () => {
  for (const code of ["(01)08001234567897(10)L1", "]C1010800123456789717271231", "01080012345678971727123110LOTTO"]) {
    expect(await found(code), code).toEqual(["OA-1"]);
  }
  // The GTIN-14 of an EAN-8 finds the article stored with its 8 digits.
  expect(await found("(01)00000096385074")).toEqual(["OA-3", `R${riga.one}`]);
});

test("by an R<riga> label: the order holding that row; also any order numbered so", async () => {
  expect(await found(`R${riga.two}`)).toEqual(["OA-2"]);
  expect(await found(`r${riga.two}`)).toEqual(["OA-2"]);
  expect(await found(`R${riga.one}`)).toEqual(["OA-1", `R${riga.one}`]);
  expect(await found("R9999999999")).toEqual([]);
});

test("a code that reads as nothing is still a text search, and the state filter still applies", async () => {
  expect(await found("8001234567898")).toEqual([]); // wrong check digit: no article, and no number contains it
  await t.pool.query("UPDATE ordini_acquisto SET stato = 'evaso' WHERE numero = 'OA-1'");
  expect(await found("8001234567897")).toEqual([]);
  expect(await found("8001234567897", { includi_evasi: true })).toEqual(["OA-1"]);
});
