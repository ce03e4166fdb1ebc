import { expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedKey, seedWarehouse } from "../../testing/fixtures";
import { stockSnapshot } from "../../testing/locations";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";

/**
 * One answer for a code that is no SSCC on every route that takes one (docs/api.md sections 12 and 13): 422
 * `sscc_non_valido` naming `sscc`; 404 `collo_non_trovato` only for a well-formed SSCC that no notice announces.
 */

let t: TestDb;
let key: string;
let printer: number;
let warehouse: number;

test.beforeAll(async ({ db }) => {
  t = db;
  key = (await seedKey(t.prisma, ["lettura", "scrittura"])).chiave;
  printer = (await t.prisma.stampante.create({ data: { nome: "banco", host: "127.0.0.1", porta: 9 } })).id;
  warehouse = (await seedWarehouse(t.prisma)).id;
});

const MALFORMED = ["123", "abc", "080012340000000012", "0800123400000000111", "08001234000000001x"];
const UNKNOWN = "080012340000000011";

const written = async () => {
  const { rows } = await t.pool.query(
    "SELECT (SELECT count(*) FROM stampe) || '|' || (SELECT count(*) FROM idempotenza) || '|' || (SELECT count(*) FROM operazioni) AS s",
  );
  return `${rows[0].s}|${await stockSnapshot(t)}`;
};

/** Every SSCC-taking route, called with `sscc`. */
const routes: [string, (sscc: string) => Promise<{ status: number; body: any }>][] = [
  ["POST /colli/{sscc}/ricevi", (s) => rest("POST", `/colli/${s}/ricevi`, { key, body: { ddt: "D-1" } })],
  ["POST /colli/{sscc}/annulla", (s) => rest("POST", `/colli/${s}/annulla`, { key })],
  ["GET /etichette/collo/{sscc}", (s) => rest("GET", `/etichette/collo/${s}`, { key })],
  [
    "POST /stampanti/{id}/stampa",
    (s) => rest("POST", `/stampanti/${printer}/stampa`, { key, body: { etichetta: { tipo: "collo", sscc: s } } }),
  ],
];

test.each(routes)("%s: a malformed SSCC is 422 sscc_non_valido, a well-formed unknown one 404 collo_non_trovato", async (_name, call) => {
  const before = await written();
  for (const code of MALFORMED) {
    const r = await call(code);
    expect([r.status, r.body.codice, r.body.campo], code).toEqual([422, "sscc_non_valido", "sscc"]);
    expect(r.body.messaggio).toContain("18 cifre");
  }
  const unknown = await call(UNKNOWN);
  expect([unknown.status, unknown.body.codice]).toEqual([404, "collo_non_trovato"]);
  expect(await written()).toBe(before);
});

test("the handheld's putaway by SSCC answers the same", async () => {
  const before = await written();
  const operatore: Actor = { kind: "utente", id: 1, username: "operatore-test", ruolo: "operatore" };
  const refusal = (sscc: string) =>
    caller(t, operatore, "trpc")
      .putaway.storePallet({ magazzino: warehouse, sscc, a: "A-01" })
      .then(
        () => undefined,
        (e: { cause?: { codice?: string } }) => e.cause?.codice,
      );
  for (const code of MALFORMED) expect(await refusal(code), code).toBe("sscc_non_valido");
  expect(await refusal(UNKNOWN)).toBe("collo_non_trovato");
  expect(await written()).toBe(before);
});

test("the document lists sscc_non_valido under 422 of every SSCC-taking route", async () => {
  const doc = (await rest("GET", "/openapi.json")).body;
  for (const [name] of routes) {
    const [method, path] = name.split(" ") as [string, string];
    const refused = doc.paths[path][method.toLowerCase()].responses["422"];
    const schema = refused.$ref ? doc.components.responses[refused.$ref.split("/").pop()] : refused;
    expect(schema.content["application/json"].schema.properties.codice.enum, name).toContain("sscc_non_valido");
  }
});
