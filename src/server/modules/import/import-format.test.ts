import { describe, expect } from "vitest";
import { DomainError } from "../../lib/errors";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import { rest, seedKey, seedWarehouse } from "../../testing/fixtures";
import { importMasterData } from "./import.service";

/**
 * The import's format additions (docs/api.md section 6 and 9): `attivo` on every entity, `unita`, and `modello`
 * on an article (the flat form of `varianti`, for a template in the file or already registered). The
 * import writes through the writers of the REST upserts: a repeat writes nothing (xmin unchanged).
 */

let t: TestDb;
let key: string;
let m1: number;
test.beforeAll(async ({ db }) => {
  t = db;
  key = (await seedKey(t.prisma)).chiave;
  m1 = (await seedWarehouse(t.prisma, "M1")).id;
});

const run = (data: unknown) => importMasterData(t.prisma, data, { timeZone: "Europe/Rome" });
async function problems(data: unknown) {
  const e = await run(data).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(DomainError);
  return ((e as DomainError).dettagli ?? []).map((p) => p.campo);
}
const article = async (codice: string) =>
  (
    await t.pool.query(`SELECT a.*, m.codice AS modello FROM articoli a LEFT JOIN articoli m ON m.id = a.modello_id WHERE a.codice = $1`, [
      codice,
    ])
  ).rows[0];
const all = async () => {
  const out: unknown[] = [];
  for (const table of ["magazzini", "fornitori", "articoli", "clienti"])
    out.push((await t.pool.query(`SELECT xmin::text AS xmin, * FROM ${table} ORDER BY id`)).rows);
  return out;
};

describe("import: attivo, unita, modello", () => {
  test("attivo on every entity; modello for a template in the file and for a registered one; a repeat writes nothing", async () => {
    await rest("POST", "/articoli", {
      key,
      body: { articoli: [{ codice: "REG", descrizione: "Modello registrato", gestione_lotti: true, unita: "KG" }] },
    });
    const file = {
      magazzini: [{ codice: "MX", nome: "Chiuso", attivo: false }],
      fornitori: [{ codice: "FX", nome: "Cessato", attivo: false }],
      clienti: [{ codice: "CX", ragione_sociale: "Inattivo", attivo: false }],
      articoli: [
        { codice: "F-V1", descrizione: "Variante piatta", modello: "F-T" },
        { codice: "F-T", descrizione: "Modello nel file", unita: "PA", varianti: [{ codice: "F-V0" }] },
        { codice: "R-V1", descrizione: "Variante di un modello registrato", modello: "REG", attivo: false },
      ],
    };
    const out = await run(file);
    expect(Object.keys(out.ids.articoli).sort()).toEqual(["F-T", "F-V0", "F-V1", "R-V1"]);
    expect((await t.pool.query("SELECT attivo FROM magazzini WHERE codice = 'MX'")).rows[0].attivo).toBe(false);
    expect((await t.pool.query("SELECT attivo FROM fornitori WHERE codice = 'FX'")).rows[0].attivo).toBe(false);
    expect((await t.pool.query("SELECT attivo FROM clienti WHERE codice = 'CX'")).rows[0].attivo).toBe(false);
    expect(await article("F-T")).toMatchObject({ ha_varianti: true, unita: "PA" });
    expect(await article("F-V1")).toMatchObject({ modello: "F-T", unita: "PA" });
    expect(await article("F-V0")).toMatchObject({ modello: "F-T", unita: "PA" });
    expect(await article("REG")).toMatchObject({ ha_varianti: true });
    expect(await article("R-V1")).toMatchObject({ modello: "REG", unita: "KG", gestione_lotti: true, attivo: false });
    const before = await all();
    const again = await run(file);
    expect(again.ids).toEqual(out.ids);
    expect(await all()).toEqual(before);
  });

  test("modello problems: unknown, a variant as template, own lots on a variant, a stocked template; nothing written", async () => {
    await rest("POST", "/articoli", { key, body: { articoli: [{ codice: "STOCK", descrizione: "Con giacenza" }] } });
    await rest("POST", "/movimenti", { key, body: { natura: "carico", magazzino: m1, righe: [{ codice: "STOCK", quantita: 1 }] } });
    const before = await all();
    expect(
      await problems({
        articoli: [
          { codice: "P-1", descrizione: "x", modello: "NESSUNO" },
          { codice: "P-2", descrizione: "x", modello: "F-V1" },
          { codice: "P-3", descrizione: "x", modello: "F-T", gestione_lotti: true },
          { codice: "P-4", descrizione: "x", modello: "STOCK" },
        ],
      }),
    ).toEqual(["articoli[0].modello", "articoli[1].modello", "articoli[2].gestione_lotti", "articoli[3].modello"]);
    expect(await all()).toEqual(before);
  });
});
