import { beforeAll, describe, expect } from "vitest";
import { rest } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { c, key, m1, seedClient, seedSalesBeforeAll, sell, t, vite } from "../../testing/sales-fixtures";

/** GET /documenti-vendita: filters, paging, refusals, and a cursor that never skips a late commit. */

seedSalesBeforeAll();

describe("GET /documenti-vendita", () => {
  const docs: { id: number; cliente: number; data: string }[] = [];
  let l1: number;
  let l2: number;
  beforeAll(async () => {
    l1 = await seedClient("LISTA1", "Lista Uno");
    l2 = await seedClient("LISTA2", "Lista Due");
    for (const [cliente, data] of [
      [l1, "2027-01-10"],
      [l2, "2027-02-15"],
      [l1, "2027-02-10"],
      [l2, "2027-02-20"],
      [l1, "2027-03-10"],
    ] as const) {
      const d = await sell({ cliente, data, righe: [vite(1), { codice: "DEC", quantita: 2, prezzo: "3", aliquota_iva: "10" }] });
      docs.push({ id: d.id, cliente, data });
    }
  });
  const get = (query: string) => rest("GET", `/documenti-vendita${query}`, { key });
  const ids = (body: any) => body.documenti.map((d: any) => d.id);

  test("cliente filter, rows of every document in position order", async () => {
    const r = await get(`?cliente=${l1}`);
    expect(r.status).toBe(200);
    expect(ids(r.body)).toEqual(docs.filter((d) => d.cliente === l1).map((d) => d.id));
    expect(r.body.altri).toBe(false);
    expect(r.body.cursore).toBe(docs[4]!.id);
    for (const d of r.body.documenti) {
      expect(d.cliente).toEqual({ id: l1, ragione_sociale: "Lista Uno" });
      expect(d.righe.map((x: any) => [x.articolo.codice, x.importo])).toEqual([
        ["VITE-M6", "1"],
        ["DEC", "6"],
      ]);
      expect(d).toMatchObject({ imponibile: "7", imposta: "0.82", totale: "7.82" });
    }
  });

  test("da and a are inclusive, on the document's date", async () => {
    expect(ids((await get(`?cliente=${l1}&da=2027-02-10`)).body)).toEqual([docs[2]!.id, docs[4]!.id]);
    expect(ids((await get(`?cliente=${l1}&da=2027-02-01&a=2027-02-10`)).body)).toEqual([docs[2]!.id]);
    expect(ids((await get("?da=2027-02-10&a=2027-02-20")).body)).toEqual([docs[1]!.id, docs[2]!.id, docs[3]!.id]);
    expect(ids((await get(`?cliente=${l2}&a=2027-02-15`)).body)).toEqual([docs[1]!.id]);
  });

  test("paging: altri and cursore; an empty page gives back the cursor it was sent", async () => {
    const p1 = await get(`?cliente=${l1}&limite=2`);
    expect(ids(p1.body)).toEqual([docs[0]!.id, docs[2]!.id]);
    expect(p1.body).toMatchObject({ altri: true, cursore: docs[2]!.id });
    const p2 = await get(`?cliente=${l1}&limite=2&dopo=${p1.body.cursore}`);
    expect(ids(p2.body)).toEqual([docs[4]!.id]);
    expect(p2.body).toMatchObject({ altri: false, cursore: docs[4]!.id });
    const p3 = await get(`?cliente=${l1}&limite=2&dopo=${p2.body.cursore}`);
    expect(p3.body).toEqual({ documenti: [], altri: false, cursore: docs[4]!.id });
  });

  test.each([
    ["limite=0", "limite"],
    ["limite=101", "limite"],
    ["limite=abc", "limite"],
    ["dopo=-1", "dopo"],
    ["da=2027-13-01", "da"],
    ["a=20270101", "a"],
    ["da=2027-03-01&a=2027-02-01", "da"],
    ["cliente=abc", "cliente"],
    ["cliente=0", "cliente"],
    ["cliente=1&cliente=2", "cliente"],
    ["tipo=ddt", "tipo"],
  ])("filtro_non_valido: %s", async (query, campo) => {
    const r = await get(`?${query}`);
    expect(r.status).toBe(422);
    expect(r.body.codice).toBe("filtro_non_valido");
    expect(r.body.campo).toBe(campo);
  });

  test("a document committed after a higher one is not skipped by a reader paging with its cursor", async () => {
    const start = (await get(`?dopo=${docs[4]!.id}`)).body.cursore;
    const held = await t.pool.connect();
    try {
      await held.query("BEGIN");
      const low: number = (
        await held.query(
          `INSERT INTO documenti_vendita (tipo, anno, progressivo, numero, data, cliente_id, magazzino_id, imponibile, imposta, totale)
           VALUES ('ddt', 1999, 1, '1999/000001', '1999-01-01', $1, $2, 0, 0, 0) RETURNING id`,
          [c.ROSSI, m1],
        )
      ).rows[0].id;
      const high = await sell({ data: "2027-06-01", righe: [vite()] });
      expect(high.id).toBeGreaterThan(low);

      // Without the sync bound a reader would see the higher id now, store it, and never see the lower.
      const naive = await t.pool.query("SELECT id FROM documenti_vendita WHERE id > $1 ORDER BY id", [start]);
      expect(naive.rows.map((r) => r.id)).toEqual([high.id]);

      const during = await get(`?dopo=${start}`);
      expect(during.body).toEqual({ documenti: [], altri: true, cursore: start });

      await held.query("COMMIT");
      const after = await get(`?dopo=${during.body.cursore}`);
      expect(ids(after.body)).toEqual([low, high.id]);
      expect(after.body.documenti[0]).toMatchObject({ numero: "1999/000001", righe: [] });
      expect(after.body.altri).toBe(false);
    } finally {
      await held.query("ROLLBACK").catch(() => {});
      held.release();
    }
  });
});
