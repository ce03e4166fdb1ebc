import { describe, expect } from "vitest";
import { test } from "../../testing/test";
import { a, f, get, LISTS, m1, m2, o, pageAll, seedFeedsBeforeAll, t } from "./feeds-testing";

/** The four lists paged by id (docs/api.md section 9): every field, cerca and attivo, the orders' rows and filters. */

seedFeedsBeforeAll();

describe("lists by id", () => {
  test("articles: every field, templates and variants one by one, paged by id", async () => {
    const all = await get("/articoli?limite=100");
    expect(all.status).toBe(200);
    expect(all.body.altri).toBe(false);
    expect(all.body.cursore).toBe(a.DADO);
    expect(all.body).not.toHaveProperty("cursore_versione");
    const vite = all.body.articoli.find((x: any) => x.codice === "VITE-M6");
    expect(vite).toEqual({
      id: a.VITE,
      codice: "VITE-M6",
      descrizione: "Articolo VITE-M6",
      ean: "8001234567897",
      gestione_lotti: false,
      costo: "0.12",
      unita: "PZ",
      modello: null,
      attivo: true,
      versione: expect.any(Number),
      confezione: "1",
      ubicazioni_preferite: [],
    });
    expect(all.body.articoli.map((x: any) => [x.codice, x.modello, x.gestione_lotti])).toEqual([
      ["VITE-M6", null, false],
      ["LATTE", null, true],
      ["GUANTO", null, false],
      ["GUANTO-M", "GUANTO", false],
      ["dado-m6", null, false],
    ]);
    const { seen } = await pageAll("/articoli", "articoli", "dopo", 0);
    expect(seen.map((x) => x.id)).toEqual([a.VITE, a.LATTE, a.GUANTO, a.GUANTO_M, a.DADO]);
    const p1 = await get("/articoli?limite=2");
    expect(p1.body).toMatchObject({ altri: true, cursore: a.LATTE });
  });

  test("an empty page keeps the cursor sent", async () => {
    for (const [path, k] of LISTS) {
      const { cursor } = await pageAll(path, k, "dopo", 0, 100);
      expect(cursor).toBeGreaterThan(0);
      expect((await get(`${path}?dopo=${cursor}`)).body).toEqual({ [k]: [], altri: false, cursore: cursor });
    }
  });

  test("cerca: code or description, case-insensitive, LIKE wildcards literal; attivo", async () => {
    const codes = async (qs: string) => (await get(`/articoli?${qs}`)).body.articoli.map((x: any) => x.codice);
    expect(await codes("cerca=m6")).toEqual(["VITE-M6", "dado-m6"]);
    expect(await codes("cerca=DADO")).toEqual(["dado-m6"]);
    expect(await codes("cerca=articolo%20gUaNtO")).toEqual(["GUANTO", "GUANTO-M"]);
    expect(await codes("cerca=%25")).toEqual([]);
    expect(await codes("cerca=_")).toEqual([]);
    await t.pool.query("UPDATE articoli SET attivo = false WHERE id = $1", [a.LATTE]);
    try {
      expect(await codes("attivo=false")).toEqual(["LATTE"]);
      expect(await codes("attivo=true")).toEqual(["VITE-M6", "GUANTO", "GUANTO-M", "dado-m6"]);
      expect((await get("/articoli?cerca=latte")).body.articoli[0].attivo).toBe(false);
    } finally {
      await t.pool.query("UPDATE articoli SET attivo = true WHERE id = $1", [a.LATTE]);
    }
    const suppliers = (await get("/fornitori?cerca=fornitore%20fb")).body.fornitori;
    expect(suppliers).toEqual([{ id: f.B, codice: "FB", nome: "Fornitore FB", attivo: true, versione: expect.any(Number) }]);
    const warehouses = (await get("/magazzini?cerca=deposito")).body.magazzini;
    expect(warehouses).toEqual([
      {
        id: m2,
        codice: "DEPOSITO",
        nome: "Magazzino DEPOSITO",
        attivo: true,
        versione: expect.any(Number),
        gestione_ubicazioni: false,
        ubicazione_ricevimento: null,
      },
    ]);
    expect((await get("/magazzini?attivo=false")).body.magazzini).toEqual([]);
  });

  test("orders: the contract's shape, rows with numero_riga, label, chiusa and residua", async () => {
    const r = await get("/ordini-acquisto");
    expect(r.status).toBe(200);
    expect(r.body.ordini.map((x: any) => x.numero)).toEqual(["OA-1", "OB-1", "OA-2"]);
    expect(r.body.ordini[0]).toEqual({
      id: o.A1.id,
      numero: "OA-1",
      fornitore: { id: f.A, codice: "FA", nome: "Fornitore FA" },
      data: "2026-11-02",
      magazzino: m1,
      stato: "aperto",
      versione: expect.any(Number),
      righe: [
        {
          numero_riga: 1,
          riga: o.A1.righe[0],
          etichetta: `R${o.A1.righe[0]}`,
          articolo: { id: a.VITE, codice: "VITE-M6" },
          ordinata: "10",
          arrivata: "0",
          chiusa: "0",
          motivo_chiusura: null,
          residua: "10",
          prezzo: "0.25",
        },
        {
          numero_riga: 2,
          riga: o.A1.righe[1],
          etichetta: `R${o.A1.righe[1]}`,
          articolo: { id: a.GUANTO_M, codice: "GUANTO-M" },
          ordinata: "2.5",
          arrivata: "0",
          chiusa: "0",
          motivo_chiusura: null,
          residua: "2.5",
          prezzo: "3",
        },
      ],
    });
  });

  test("orders: a row closed short shows chiusa and a residua net of it", async () => {
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      await c.query("UPDATE righe_ordine SET arrivata = 1, chiusa = 2.5, motivo_chiusura = 'fine serie' WHERE id = $1", [o.B1.righe[0]]);
      const row = (await c.query("SELECT numero_riga FROM righe_ordine WHERE id = $1", [o.B1.righe[0]])).rows[0];
      expect(row.numero_riga).toBe(1);
      // The CHECK: nothing beyond what is ordered and not closed.
      await c.query("SAVEPOINT s");
      await expect(c.query("UPDATE righe_ordine SET chiusa = 3.5 WHERE id = $1", [o.B1.righe[0]])).rejects.toThrow(
        /righe_ordine_chiusa_check/,
      );
      await c.query("ROLLBACK TO SAVEPOINT s");
      await c.query("COMMIT");
    } finally {
      c.release();
    }
    const r = await get(`/ordini-acquisto?fornitore=${f.B}`);
    expect(r.body.ordini[0].righe[0]).toMatchObject({
      ordinata: "4",
      arrivata: "1",
      chiusa: "2.5",
      motivo_chiusura: "fine serie",
      residua: "0.5",
    });
    const feed = await get(`/ordini-acquisto?modificati_dopo=0&fornitore=${f.B}`);
    expect(feed.body.ordini[0].righe[0]).toMatchObject({ chiusa: "2.5", motivo_chiusura: "fine serie" });
    await t.pool.query("UPDATE righe_ordine SET arrivata = 0, chiusa = 0, motivo_chiusura = NULL WHERE id = $1", [o.B1.righe[0]]);
  });

  test("orders: fornitore, stato, da/a (inclusive, on the order date), cerca on number and supplier", async () => {
    const numbers = async (qs: string) => (await get(`/ordini-acquisto?${qs}`)).body.ordini.map((x: any) => x.numero);
    expect(await numbers(`fornitore=${f.A}`)).toEqual(["OA-1", "OA-2"]);
    expect(await numbers(`fornitore=${f.B}&stato=aperto`)).toEqual(["OB-1"]);
    expect(await numbers("stato=evaso")).toEqual([]);
    expect(await numbers("da=2026-11-10")).toEqual(["OB-1", "OA-2"]);
    expect(await numbers("a=2026-11-10")).toEqual(["OA-1", "OB-1"]);
    expect(await numbers("da=2026-11-03&a=2026-11-19")).toEqual(["OB-1"]);
    expect(await numbers("cerca=oa-")).toEqual(["OA-1", "OA-2"]);
    expect(await numbers("cerca=fornitore%20fb")).toEqual(["OB-1"]);
    const { seen } = await pageAll(`/ordini-acquisto?fornitore=${f.A}`, "ordini", "dopo", 0, 1);
    expect(seen.map((x) => x.numero)).toEqual(["OA-1", "OA-2"]);
  });

  test("numero_riga: given explicitly it is kept, and it is unique per order", async () => {
    const c = await t.pool.connect();
    try {
      await c.query("BEGIN");
      await c.query(
        "INSERT INTO righe_ordine (ordine_id, posizione, numero_riga, articolo_id, ordinata, prezzo) VALUES ($1, 2, 20, $2, 1, 1)",
        [o.A2.id, a.VITE],
      );
      const r = await c.query("SELECT numero_riga FROM righe_ordine WHERE ordine_id = $1 ORDER BY posizione", [o.A2.id]);
      expect(r.rows.map((x) => x.numero_riga)).toEqual([1, 20]);
      await expect(
        c.query(
          "INSERT INTO righe_ordine (ordine_id, posizione, numero_riga, articolo_id, ordinata, prezzo) VALUES ($1, 3, 20, $2, 1, 1)",
          [o.A2.id, a.VITE],
        ),
      ).rejects.toThrow(/righe_ordine_ordine_id_numero_riga_key/);
    } finally {
      await c.query("ROLLBACK");
      c.release();
    }
  });
});
