import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import { rest, seedKey, seedWarehouse } from "../../testing/fixtures";

/**
 * POST /articoli's `confezione` and `ubicazioni_preferite` (docs/api.md section 11): every refusal with nothing of its
 * row written, the whole list replaced, a changed list bumping the article's version (so the change feed and
 * articolo.modificato carry it), a repeat changing nothing, GET /articoli reading both back.
 */

let t: TestDb;
let key: string;
let m1: number;
let m2: number;

test.beforeAll(async ({ db }) => {
  t = db;
  m1 = (await seedWarehouse(t.prisma, "PA1")).id;
  m2 = (await seedWarehouse(t.prisma, "PA2")).id;
  key = (await seedKey(t.prisma)).chiave;
  const r = await rest("POST", "/ubicazioni", {
    key,
    body: {
      ubicazioni: [
        { magazzino: "PA1", codice: "A-01", tipo: "stoccaggio" },
        { magazzino: "PA1", codice: "A-02", tipo: "stoccaggio" },
        { magazzino: "PA1", codice: "RIC", tipo: "ricevimento" },
        { magazzino: "PA1", codice: "Q", tipo: "quarantena" },
        { magazzino: "PA1", codice: "OFF", tipo: "stoccaggio", attiva: false },
        { magazzino: "PA2", codice: "B-01", tipo: "stoccaggio" },
      ],
    },
  });
  expect(r.body.creati).toBe(6);
});

const articoli = (rows: unknown[]) => rest("POST", "/articoli", { key, body: { articoli: rows } });
const outcome = (r: { body: { righe: { esito: string; errore?: { codice: string } }[] } }) =>
  r.body.righe.map((x) => (x.esito === "rifiutato" ? x.errore!.codice : x.esito));
const listed = async (codice: string) => (await rest("GET", `/articoli?cerca=${codice}`, { key })).body.articoli[0];

async function stored(codice: string) {
  const { rows } = await t.pool.query(
    `SELECT a.xmin::text AS xmin, a.versione, a.confezione::text AS confezione,
            (SELECT count(*)::int FROM ubicazioni_preferite p WHERE p.articolo_id = a.id) AS preferite
       FROM articoli a WHERE a.codice = $1`,
    [codice],
  );
  return rows[0];
}

describe("POST /articoli: confezione and ubicazioni_preferite", () => {
  test("created with both, read back by GET /articoli; a repeat is invariato; defaults 1 and []", async () => {
    const row = {
      codice: "PA-VITE",
      descrizione: "Vite",
      confezione: 12,
      ubicazioni_preferite: [{ magazzino: "PA1", ubicazione: "A-01" }],
    };
    expect(outcome(await articoli([row, { codice: "PA-DADO", descrizione: "Dado" }]))).toEqual(["creato", "creato"]);
    expect(await listed("PA-VITE")).toMatchObject({ confezione: "12", ubicazioni_preferite: [{ magazzino: m1, ubicazione: "A-01" }] });
    expect(await listed("PA-DADO")).toMatchObject({ confezione: "1", ubicazioni_preferite: [] });
    const before = await stored("PA-VITE");
    expect(outcome(await articoli([row]))).toEqual(["invariato"]);
    expect((await stored("PA-VITE")).xmin).toBe(before.xmin);
    // The same list in another order is the same list.
    const two = [
      { magazzino: "PA2", ubicazione: "B-01" },
      { magazzino: "PA1", ubicazione: "A-01" },
    ];
    expect(outcome(await articoli([{ codice: "PA-VITE", ubicazioni_preferite: two }]))).toEqual(["aggiornato"]);
    expect((await listed("PA-VITE")).ubicazioni_preferite).toEqual([
      { magazzino: m1, ubicazione: "A-01" },
      { magazzino: m2, ubicazione: "B-01" },
    ]);
    expect(outcome(await articoli([{ codice: "PA-VITE", ubicazioni_preferite: [...two].reverse() }]))).toEqual(["invariato"]);
  });

  test("a changed list alone bumps the version: the change feed and articolo.modificato carry it; null empties it", async () => {
    const start = (await rest("GET", "/cursori", { key })).body;
    const before = await stored("PA-VITE");
    const r = await articoli([{ codice: "PA-VITE", ubicazioni_preferite: [{ magazzino: "PA1", ubicazione: "A-02" }] }]);
    expect(outcome(r)).toEqual(["aggiornato"]);
    const after = await stored("PA-VITE");
    expect(BigInt(after.versione)).toBeGreaterThan(BigInt(before.versione));
    const feed = (await rest("GET", `/articoli?modificati_dopo=${start.articoli.modificati_dopo}`, { key })).body.articoli;
    expect(feed.map((a: { codice: string; ubicazioni_preferite: unknown }) => [a.codice, a.ubicazioni_preferite])).toEqual([
      ["PA-VITE", [{ magazzino: m1, ubicazione: "A-02" }]],
    ]);
    const events = (await rest("GET", `/eventi?dopo=${start.eventi}&tipo=articolo.modificato`, { key })).body.eventi;
    expect(events.map((e: { dati: unknown }) => e.dati)).toEqual(feed);

    expect(outcome(await articoli([{ codice: "PA-VITE", ubicazioni_preferite: null }]))).toEqual(["aggiornato"]);
    expect((await stored("PA-VITE")).preferite).toBe(0);
    expect(outcome(await articoli([{ codice: "PA-VITE", confezione: "2.5" }]))).toEqual(["aggiornato"]);
    expect((await stored("PA-VITE")).confezione).toBe("2.500");
  });

  test("refusals, each with nothing of its row written", async () => {
    const before = await stored("PA-DADO");
    const cases: [unknown, string][] = [
      [[{ magazzino: "PA1", ubicazione: "NESSUNA" }], "ubicazione_non_trovata"],
      [[{ magazzino: "PA1", ubicazione: "OFF" }], "ubicazione_non_trovata"],
      [[{ magazzino: "PA2", ubicazione: "A-01" }], "ubicazione_non_trovata"],
      [[{ magazzino: "NESSUNO", ubicazione: "A-01" }], "magazzino_non_trovato"],
      [[{ magazzino: "PA1", ubicazione: "Q" }], "campo_non_valido"],
      [[{ magazzino: "PA1", ubicazione: "RIC" }], "campo_non_valido"],
      [
        [
          { magazzino: "PA1", ubicazione: "A-01" },
          { magazzino: "PA1", ubicazione: "A-02" },
        ],
        "campo_non_valido",
      ],
      [[{ magazzino: "PA1" }], "campo_non_valido"],
      ["A-01", "campo_non_valido"],
    ];
    for (const [list, code] of cases) {
      const r = await articoli([{ codice: "PA-DADO", descrizione: "Dado nuovo", ubicazioni_preferite: list }]);
      expect(outcome(r), JSON.stringify(list)).toEqual([code]);
    }
    for (const confezione of [0, -1, 1.2345, "abc", "1,5"]) {
      expect(outcome(await articoli([{ codice: "PA-DADO", descrizione: "Dado nuovo", confezione }])), String(confezione)).toEqual([
        "campo_non_valido",
      ]);
    }
    expect(await stored("PA-DADO")).toEqual(before);
    // A new article refused for its list is not created.
    expect(
      outcome(
        await articoli([{ codice: "PA-NUOVO", descrizione: "Nuovo", ubicazioni_preferite: [{ magazzino: "PA1", ubicazione: "Q" }] }]),
      ),
    ).toEqual(["campo_non_valido"]);
    expect(await stored("PA-NUOVO")).toBeUndefined();
  });
});
