import { describe, expect } from "vitest";
import { caller, countRows, rest, seedOrder, seedSupplier } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { actor, article, articoli, m1, outcome, post, seedMasterDataBeforeAll, t, table } from "./master-data-testing";

/**
 * POST /fornitori and /magazzini (docs/api.md section 9), what `attivo: false` does to arrivals and pickers, and the
 * four upserts in the OpenAPI document.
 */

seedMasterDataBeforeAll();

describe("an inactive article is not received", () => {
  test("POST /arrivi refuses a row of an inactive article with articolo_non_trovato, and accepts it once reactivated", async () => {
    await articoli([{ codice: "X-ARR", descrizione: "Da ricevere" }]);
    const sup = await seedSupplier(t.prisma, "X-FOR");
    const order = await seedOrder(t.prisma, {
      numero: "X-O1",
      fornitore: sup.id,
      magazzino: m1,
      data: "2026-11-20",
      righe: [{ articolo: (await article("X-ARR")).id, quantita: "5", prezzo: "1" }],
    });
    await articoli([{ codice: "X-ARR", attivo: false }]);
    const movements = await countRows(t, "movimenti");
    const refused = await post("/arrivi", { magazzino: m1, ddt: "D-X", riga: order.righe[0], quantita: 1 });
    expect(refused.status).toBe(422);
    expect(refused.body.codice).toBe("articolo_non_trovato");
    expect(refused.body.messaggio).toContain("disattivato");
    expect(await countRows(t, "movimenti")).toBe(movements);
    await articoli([{ codice: "X-ARR", attivo: true }]);
    expect((await post("/arrivi", { magazzino: m1, ddt: "D-X", riga: order.righe[0], quantita: 1 })).status).toBe(201);
  });
});

describe("POST /magazzini and /fornitori", () => {
  test("create, invariato without writing, partial update, nome required for a new code, every shared refusal", async () => {
    for (const [path, k, tbl] of [
      ["/magazzini", "magazzini", "magazzini"],
      ["/fornitori", "fornitori", "fornitori"],
    ] as const) {
      const first = await post(path, {
        [k]: [
          { codice: "W-1", nome: "Uno" },
          { codice: "W-2", nome: "Due", attivo: false },
        ],
      });
      expect(outcome(first), path).toEqual(["creato", "creato"]);
      const before = await table(tbl);
      const again = await post(path, {
        [k]: [
          { codice: "W-1", nome: "Uno" },
          { codice: "W-2", nome: "Due", attivo: false },
        ],
      });
      expect(again.body, path).toMatchObject({ invariati: 2, creati: 0, aggiornati: 0 });
      expect(await table(tbl)).toEqual(before);
      const count = await countRows(t, tbl);
      const r = await post(path, {
        [k]: [
          { codice: "W-2", attivo: true },
          { codice: "W-NEW" },
          { nome: "senza codice" },
          { codice: "W-D", nome: "a" },
          { codice: "W-D", nome: "b" },
          { codice: "W-1", nome: "" },
          { codice: "W-1X", nome: "Bene", extra: 1 },
          { codice: "W-3", nome: "Tre" },
        ],
      });
      expect(outcome(r), path).toEqual([
        "aggiornato",
        "campo_non_valido",
        "codice_non_valido",
        "codice_ripetuto",
        "codice_ripetuto",
        "campo_non_valido",
        "campo_non_valido",
        "creato",
      ]);
      expect(await countRows(t, tbl)).toBe(count + 1);
      const w2 = (await t.pool.query(`SELECT nome, attivo FROM ${tbl} WHERE codice = 'W-2'`)).rows[0];
      expect(w2).toEqual({ nome: "Due", attivo: true });
    }
  });

  test("an inactive warehouse or supplier is not offered by the pickers (a supplier with open orders still is)", async () => {
    await post("/magazzini", { magazzini: [{ codice: "PK-M", nome: "Chiuso", attivo: false }] });
    await post("/fornitori", {
      fornitori: [
        { codice: "PK-F", nome: "Cessato", attivo: false },
        { codice: "PK-G", nome: "Cessato con ordini", attivo: false },
      ],
    });
    const g = await t.prisma.fornitore.findUniqueOrThrow({ where: { codice: "PK-G" } });
    await articoli([{ codice: "PK-A", descrizione: "Ordinato" }]);
    await seedOrder(t.prisma, {
      numero: "PK-O",
      fornitore: g.id,
      magazzino: m1,
      data: "2026-11-20",
      righe: [{ articolo: (await article("PK-A")).id, quantita: "1", prezzo: "1" }],
    });
    const c = caller(t, actor, "trpc");
    const warehouses = (await c.catalogue.warehouses()).magazzini.map((m) => m.codice);
    expect(warehouses).toContain("M1");
    expect(warehouses).not.toContain("PK-M");
    const suppliers = (await c.catalogue.suppliers()).fornitori.map((f) => f.codice);
    expect(suppliers).not.toContain("PK-F");
    expect(suppliers).toContain("PK-G");
  });

  test("Idempotency-Key replays on /magazzini and /fornitori", async () => {
    for (const [path, k] of [
      ["/magazzini", "magazzini"],
      ["/fornitori", "fornitori"],
    ] as const) {
      const body = { [k]: [{ codice: "IK-1", nome: "Chiave" }] };
      const first = await post(path, body, { "idempotency-key": `ik-${k}` });
      const again = await post(path, body, { "idempotency-key": `ik-${k}` });
      expect(again.headers.get("idempotency-replayed")).toBe("true");
      expect(again.body).toEqual(first.body);
      expect(outcome(again)).toEqual(["creato"]);
    }
  });
});

test("the OpenAPI document has the four upserts, with Idempotency-Key", async () => {
  const doc = (await rest("GET", "/openapi.json")).body;
  for (const path of ["/articoli", "/fornitori", "/magazzini", "/clienti"]) {
    const op = doc.paths[path]?.post;
    expect(op, path).toBeDefined();
    expect(op.parameters.map((p: { name: string }) => p.name)).toContain("Idempotency-Key");
    expect(op.requestBody).toBeDefined();
  }
  // Each row as the service checks it: `codice` required, no other property.
  const ref = doc.paths["/articoli"].post.requestBody.content["application/json"].schema.properties.articoli.items.$ref;
  const row = doc.components.schemas[ref.split("/").pop()];
  expect(row).toMatchObject({ required: ["codice"], additionalProperties: false });
  expect(Object.keys(row.properties)).toEqual([
    "codice",
    "descrizione",
    "ean",
    "gestione_lotti",
    "costo",
    "unita",
    "attivo",
    "modello",
    "confezione",
    "ubicazioni_preferite",
  ]);
});
