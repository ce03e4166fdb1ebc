import { expect } from "vitest";
import type { Actor } from "../auth/actor";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedKey } from "../../testing/fixtures";
import { test } from "../../testing/test";

/**
 * The articles screen's look-up (feeds.articleLookup, tRPC only) finds an article by its EAN, whole, in part
 * or inside a GS1 code; GET /articoli's `cerca` stays code and description, as docs/api.md section 9 has it.
 */

let t: TestDb;
let key: string;
const operatore: Actor = { kind: "utente", id: 1, username: "dock", ruolo: "operatore" };

test.beforeAll(async ({ db }) => {
  t = db;
  await seedArticle(t.prisma, "VITE", { ean: "8001234567897" });
  const tpl = await seedArticle(t.prisma, "GUANTO", { haVarianti: true, ean: "8000000000019" });
  await seedArticle(t.prisma, "GUANTO-M", { modelloId: tpl.id, ean: "8000000000026" });
  await seedArticle(t.prisma, "GUANTO-L", { modelloId: tpl.id, ean: "8000000000033" });
  await seedArticle(t.prisma, "CORTO", { ean: "96385074" });
  // A code made of digits: found by its code as before, whatever the EAN rule.
  await seedArticle(t.prisma, "80012345", { ean: "8000000000057" });
  await seedArticle(t.prisma, "SPENTO", { ean: "8000000000040" });
  await t.pool.query("UPDATE articoli SET attivo = false WHERE codice = 'SPENTO'");
  key = (await seedKey(t.prisma, ["lettura"])).chiave;
});

const looked = async (cerca: string, more: { attivo?: "true" | "false" } = {}) =>
  (await caller(t, operatore, "trpc").feeds.articleLookup({ cerca, ...more })).articoli.map((a) => a.codice);

test("a scanned EAN finds its article; a variant by its own EAN, a template by its", async () => {
  expect(await looked("8001234567897")).toEqual(["VITE"]);
  expect(await looked("8000000000033")).toEqual(["GUANTO-L"]);
  expect(await looked("8000000000019")).toEqual(["GUANTO"]);
  expect(await looked("96385074")).toEqual(["CORTO"]);
});

test("the GTIN of a GS1 code, in the forms a scanner or a person writes it, and as a GTIN-14", async () => {
  for (const code of [
    "(01)08000000000026(10)L1(17)271231",
    "]C1010800000000002617271231",
    "01080000000000261727123110LOTTO",
    "08000000000026",
  ]) {
    expect(await looked(code), code).toEqual(["GUANTO-M"]);
  }
  expect(await looked("(01)00000096385074")).toEqual(["CORTO"]);
});

test("part of an EAN typed by hand; code and description as before; the active filter applies", async () => {
  expect(await looked("000000000")).toEqual(["GUANTO", "GUANTO-M", "GUANTO-L", "80012345", "SPENTO"]);
  expect(await looked("000000000", { attivo: "true" })).toEqual(["GUANTO", "GUANTO-M", "GUANTO-L", "80012345"]);
  expect(await looked("8000000000040", { attivo: "false" })).toEqual(["SPENTO"]);
  expect(await looked("80012345")).toEqual(["VITE", "80012345"]); // VITE's EAN contains it, and a code is it
  expect(await looked("guanto-")).toEqual(["GUANTO-M", "GUANTO-L"]);
  expect(await looked("8001234567898")).toEqual([]); // a misread check digit finds nothing
});

test("GET /articoli?cerca= searches code and description only (docs/api.md section 9)", async () => {
  const codes = async (q: string) => {
    const r = await rest("GET", `/articoli?cerca=${encodeURIComponent(q)}`, { key });
    expect(r.status).toBe(200);
    return r.body.articoli.map((a: { codice: string }) => a.codice);
  };
  expect(await codes("8001234567897")).toEqual([]);
  expect(await codes("(01)08000000000026")).toEqual([]);
  expect(await codes("80012345")).toEqual(["80012345"]);
  expect(await codes("guanto-")).toEqual(["GUANTO-M", "GUANTO-L"]);
});
