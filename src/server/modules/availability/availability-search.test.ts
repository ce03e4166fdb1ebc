import { expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { rest, seedArticle, seedKey, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";

/** `cerca` on GET /disponibilita: the operator screens' text search, documented for REST clients too. */

let t: TestDb;
let key: string;

test.beforeAll(async ({ db }) => {
  t = db;
  await seedWarehouse(t.prisma, "M1");
  for (const c of ["VITE-M6", "VITE-M8", "DADO-M6", "TASSELLO", "SCONTO_100%"]) await seedArticle(t.prisma, c);
  await t.pool.query("UPDATE articoli SET descrizione = 'Tassello per vite' WHERE codice = 'TASSELLO'");
  key = (await seedKey(t.prisma, ["lettura"])).chiave;
});

const codes = async (query: string) => {
  const r = await rest("GET", `/disponibilita?${query}`, { key });
  expect(r.status).toBe(200);
  return r.body.disponibilita.map((d: any) => d.articolo.codice);
};

test("matches code or description, ignoring case; pages by id as without it", async () => {
  expect(await codes("cerca=vite")).toEqual(["VITE-M6", "VITE-M8", "TASSELLO"]);
  expect(await codes("cerca=M6")).toEqual(["VITE-M6", "DADO-M6"]);
  const first = await rest("GET", "/disponibilita?cerca=vite&limite=2", { key });
  expect(first.body).toMatchObject({ altri: true });
  expect(await codes(`cerca=vite&limite=2&dopo=${first.body.cursore}`)).toEqual(["TASSELLO"]);
});

test("LIKE wildcards in the text are plain characters", async () => {
  expect(await codes("cerca=%25")).toEqual(["SCONTO_100%"]);
  expect(await codes("cerca=_")).toEqual(["SCONTO_100%"]);
  expect(await codes("cerca=V%25E")).toEqual([]);
});

test("an empty or over-long text is a filtro_non_valido, like any bad parameter", async () => {
  for (const q of ["cerca=", `cerca=${"x".repeat(101)}`, "cerca=a&cerca=b"]) {
    const r = await rest("GET", `/disponibilita?${q}`, { key });
    expect(r.status, q).toBe(422);
    expect(r.body).toMatchObject({ codice: "filtro_non_valido", campo: "cerca" });
  }
});
