import { describe, expect } from "vitest";
import { inTransaction } from "../../db/transaction";
import { DomainError } from "../../lib/errors";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { writeMovements } from "../movements/movements.service";
import { importInTransaction, importMasterData, validateImport } from "./import.service";

/**
 * The import file's `ubicazioni` and warehouse fields (docs/api.md sections 6 and 11): a warehouse new in the file
 * managing locations with a receiving location new in the file, a repeat changing nothing, every refusal a
 * problem of the file at its path with nothing written, and a warehouse holding stock switched only with an author.
 */

const TZ = "Europe/Rome";
let t: TestDb;
let actor: Actor;

test.beforeAll(async ({ db, actor: keyActor }) => {
  t = db;
  actor = keyActor;
});

const run = (data: unknown) => importMasterData(t.prisma, data, { timeZone: TZ });

async function refusal(data: unknown): Promise<{ campo: string; messaggio: string }[]> {
  const e = await run(data).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(DomainError);
  return (e as DomainError).dettagli ?? [];
}

async function snapshot() {
  const out: Record<string, unknown[]> = {};
  for (const table of ["magazzini", "ubicazioni", "operazioni"])
    out[table] = (await t.pool.query(`SELECT * FROM ${table} ORDER BY id`)).rows;
  return out;
}

const file = {
  magazzini: [{ codice: "PAD", nome: "Padova", gestione_ubicazioni: true, ubicazione_ricevimento: "RIC" }],
  ubicazioni: [
    { magazzino: "PAD", codice: "RIC", tipo: "ricevimento", descrizione: "Baia" },
    { magazzino: "PAD", codice: "A-01", tipo: "stoccaggio" },
    { magazzino: "PAD", codice: "Q", tipo: "quarantena" },
  ],
};

describe("import: locations", () => {
  test("a new warehouse managing locations, its receiving location new in the same file; a repeat changes nothing", async () => {
    const out = await run(file);
    const pad = out.ids.magazzini.PAD!;
    const { rows } = await t.pool.query(
      `SELECT m.gestione_ubicazioni, u.codice AS ricevimento FROM magazzini m JOIN ubicazioni u ON u.id = m.ubicazione_ricevimento_id WHERE m.id = $1`,
      [pad],
    );
    expect(rows).toEqual([{ gestione_ubicazioni: true, ricevimento: "RIC" }]);
    const locations = (await t.pool.query(`SELECT codice, tipo, descrizione FROM ubicazioni WHERE magazzino_id = $1 ORDER BY id`, [pad]))
      .rows;
    expect(locations).toEqual([
      { codice: "RIC", tipo: "ricevimento", descrizione: "Baia" },
      { codice: "A-01", tipo: "stoccaggio", descrizione: null },
      { codice: "Q", tipo: "quarantena", descrizione: null },
    ]);
    const before = await snapshot();
    expect(await validateImport(file, t.prisma)).toEqual({ problemi: [] });
    await run(file);
    expect(await snapshot()).toEqual(before);
  });

  test("every refusal is a problem of the file at its path, and nothing is written", async () => {
    const before = await snapshot();
    const bad = {
      magazzini: [
        { codice: "PAD", nome: "Padova", ubicazione_ricevimento: "A-01" },
        { codice: "VIC", nome: "Vicenza", gestione_ubicazioni: true },
      ],
      ubicazioni: [
        { magazzino: "PAD", codice: "B-01", tipo: "stoccaggio" },
        { magazzino: "NESSUNO", codice: "A-01", tipo: "stoccaggio" },
        { magazzino: "PAD", codice: "8001234567897", tipo: "stoccaggio" },
        { magazzino: "PAD", codice: "C-01", tipo: "scaffale" },
      ],
    };
    const problems = await refusal(bad);
    expect(problems.map((p) => p.campo)).toEqual(["ubicazioni[1].magazzino", "ubicazioni[3].tipo"]);
    // Past the whole-file checks, what the writers refuse.
    const written = await refusal({ ...bad, ubicazioni: [bad.ubicazioni[0], bad.ubicazioni[2]] });
    expect(written).toEqual([{ campo: "ubicazioni[1]", messaggio: expect.stringContaining("EAN") }]);
    const settings = await refusal({ ...bad, ubicazioni: [bad.ubicazioni[0]] });
    expect(settings).toEqual([
      { campo: "magazzini[0]", messaggio: expect.stringContaining("tipo stoccaggio") },
      { campo: "magazzini[1]", messaggio: expect.stringContaining("ubicazione di ricevimento") },
    ]);
    expect(await snapshot()).toEqual(before);
  });

  test("a warehouse holding stock: the command line (no author) does not switch it; with an author its stock goes to the receiving location", async () => {
    const out = await run({ magazzini: [{ codice: "VER", nome: "Verona" }], articoli: [{ codice: "IMP-ART", descrizione: "Articolo" }] });
    const ver = out.ids.magazzini.VER!;
    const r = await inTransaction(t.prisma, (tx) =>
      writeMovements(
        tx,
        actor,
        { natura: "carico", magazzino: ver, righe: [{ codice: "IMP-ART", quantita: 7 }] },
        { timeZone: TZ, origine: "api" },
      ),
    );
    expect(r.rifiutate).toBe(0);
    const switching = {
      magazzini: [{ codice: "VER", nome: "Verona", gestione_ubicazioni: true, ubicazione_ricevimento: "V-RIC" }],
      ubicazioni: [{ magazzino: "VER", codice: "V-RIC", tipo: "ricevimento" }],
    };
    const before = await snapshot();
    expect(await refusal(switching)).toEqual([{ campo: "magazzini[0]", messaggio: expect.stringContaining("POST /magazzini") }]);
    expect(await snapshot()).toEqual(before);

    await inTransaction(t.prisma, (tx) => importInTransaction(tx, switching, { timeZone: TZ, actor }));
    const { rows } = await t.pool.query(
      `SELECT u.codice, g.quantita::float AS quantita FROM giacenze_ubicazioni g JOIN ubicazioni u ON u.id = g.ubicazione_id
        WHERE g.magazzino_id = $1 AND g.quantita > 0`,
      [ver],
    );
    expect(rows).toEqual([{ codice: "V-RIC", quantita: 7 }]);
  });
});
