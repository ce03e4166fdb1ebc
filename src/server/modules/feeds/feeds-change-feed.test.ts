import { describe, expect } from "vitest";
import { rest, seedArticle } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { a, f, get, LISTS, m1, m2, o, pageAll, seedFeedsBeforeAll, t, writer } from "./feeds-testing";

/** The change feed (`modificati_dopo`, `cursore_versione`, docs/api.md section 9) following every change of the four lists. */

seedFeedsBeforeAll();

describe("the change feed", () => {
  async function head(path: string, k: string) {
    const { cursor, seen } = await pageAll(path, k, "modificati_dopo", 0, 100);
    return { cursor, seen };
  }

  test("from 0 it returns every row once, ordered by versione, with cursore_versione and no id cursor", async () => {
    for (const [path, k] of LISTS) {
      const { seen, cursor } = await head(path, k);
      const versions = seen.map((x) => x.versione);
      expect(versions).toEqual([...versions].sort((x, y) => x - y));
      expect(new Set(seen.map((x) => x.id)).size).toBe(seen.length);
      expect(cursor).toBe(versions.at(-1));
      const r = await get(`${path}?modificati_dopo=0&limite=1`);
      expect(Object.keys(r.body).sort()).toEqual([k, "altri", "cursore_versione"].sort());
    }
  });

  test("an empty page answers the version sent", async () => {
    for (const [path, k] of LISTS) {
      const { cursor } = await head(path, k);
      expect(cursor).toBeGreaterThan(0);
      expect((await get(`${path}?modificati_dopo=${cursor}`)).body).toEqual({ [k]: [], altri: false, cursore_versione: cursor });
    }
  });

  test("a row changed gets a higher version and shows up after the old cursor, in its current state", async () => {
    const { cursor } = await head("/articoli", "articoli");
    const before = (await get(`/articoli?cerca=VITE-M6`)).body.articoli[0];
    expect((await get(`/articoli?modificati_dopo=${cursor}`)).body).toEqual({ articoli: [], altri: false, cursore_versione: cursor });

    await t.prisma.articolo.update({ where: { id: a.VITE }, data: { descrizione: "Vite M6 zincata" } });
    await t.prisma.articolo.update({ where: { id: a.VITE }, data: { unita: "CF" } });
    const r = await get(`/articoli?modificati_dopo=${cursor}`);
    expect(r.body.articoli).toEqual([{ ...before, descrizione: "Vite M6 zincata", unita: "CF", versione: expect.any(Number) }]);
    expect(r.body.articoli[0].versione).toBeGreaterThan(before.versione);
    expect(r.body.cursore_versione).toBe(r.body.articoli[0].versione);

    // What a client does not see does not move the feed: the latest arrival price, or a write of the same values.
    const now = r.body.cursore_versione;
    await t.pool.query("UPDATE articoli SET ultimo_prezzo_arrivo = 0.3 WHERE id = $1", [a.VITE]);
    await t.pool.query("UPDATE articoli SET descrizione = descrizione, unita = unita WHERE id = $1", [a.VITE]);
    await t.pool.query("UPDATE articoli SET versione = 1 WHERE id = $1", [a.VITE]);
    expect((await get(`/articoli?modificati_dopo=${now}`)).body.articoli).toEqual([]);
    expect((await get(`/articoli?cerca=VITE-M6`)).body.articoli[0].versione).toBe(now);

    // A new row, a deactivation, a variant's template: all in the feed, in version order.
    const nuovo = await seedArticle(t.prisma, "NUOVO");
    await t.prisma.articolo.update({ where: { id: a.DADO }, data: { attivo: false } });
    const feed = (await get(`/articoli?modificati_dopo=${now}`)).body.articoli;
    expect(feed.map((x: any) => [x.codice, x.attivo])).toEqual([
      ["NUOVO", true],
      ["dado-m6", false],
    ]);
    await t.prisma.articolo.update({ where: { id: a.DADO }, data: { attivo: true } });
    await t.prisma.articolo.update({ where: { id: nuovo.id }, data: { attivo: false } });
  });

  test("suppliers, warehouses and clients take new versions on change", async () => {
    for (const [path, k, table, id] of [
      ["/fornitori", "fornitori", "fornitori", () => f.B],
      ["/magazzini", "magazzini", "magazzini", () => m2],
    ] as const) {
      const { cursor } = await head(path, k);
      await t.pool.query(`UPDATE ${table} SET nome = nome || ' (nuovo)' WHERE id = $1`, [id()]);
      const r = await get(`${path}?modificati_dopo=${cursor}`);
      expect(r.body[k]).toEqual([expect.objectContaining({ id: id(), nome: expect.stringMatching(/\(nuovo\)$/) })]);
      expect(r.body[k][0].versione).toBeGreaterThan(cursor);
    }
    const c = await t.prisma.cliente.create({ data: { codice: "CL", ragione_sociale: "Rossi", data: new Date("2026-11-20T00:00:00Z") } });
    const v1 = (await t.pool.query("SELECT versione FROM clienti WHERE id = $1", [c.id])).rows[0].versione;
    await t.pool.query("UPDATE clienti SET email = 'a@b.it' WHERE id = $1", [c.id]);
    const v2 = (await t.pool.query("SELECT versione FROM clienti WHERE id = $1", [c.id])).rows[0].versione;
    expect(BigInt(v2)).toBeGreaterThan(BigInt(v1));
  });

  test("an order's version moves with an arrival on its rows (POST /arrivi) and with its cancellation", async () => {
    const { cursor } = await head("/ordini-acquisto", "ordini");
    const arrival = await rest("POST", "/arrivi", {
      key: writer,
      body: { magazzino: m1, ddt: "DDT-FEED", riga: o.A1.righe[0], quantita: 4, prezzo: "0.25" },
    });
    expect(arrival.status).toBe(201);
    const r = await get(`/ordini-acquisto?modificati_dopo=${cursor}`);
    expect(r.body.ordini).toHaveLength(1);
    expect(r.body.ordini[0]).toMatchObject({ id: o.A1.id, stato: "parziale" });
    expect(r.body.ordini[0].righe[0]).toMatchObject({ arrivata: "4", residua: "6" });
    expect(r.body.ordini[0].versione).toBeGreaterThan(cursor);

    const movimento = arrival.body.movimento;
    expect(movimento).toEqual(expect.any(Number));
    const undo = await rest("POST", `/arrivi/${movimento}/annulla`, { key: writer, body: {} });
    expect(undo.body).toMatchObject({ annullato: movimento, ordine: { id: o.A1.id, stato: "aperto" } });
    const after = await get(`/ordini-acquisto?modificati_dopo=${r.body.cursore_versione}`);
    expect(after.body.ordini).toHaveLength(1);
    expect(after.body.ordini[0]).toMatchObject({ id: o.A1.id, stato: "aperto" });
    expect(after.body.ordini[0].righe[0]).toMatchObject({ arrivata: "0", residua: "10" });
  });

  test("every update of an order takes a new version; a change to a row alone does not (its writer updates the order last)", async () => {
    const v = async () => Number((await t.pool.query("SELECT versione FROM ordini_acquisto WHERE id = $1", [o.A2.id])).rows[0].versione);
    const v0 = await v();
    await t.pool.query("UPDATE righe_ordine SET prezzo = 1 WHERE ordine_id = $1", [o.A2.id]);
    expect(await v()).toBe(v0);
    await t.pool.query("UPDATE ordini_acquisto SET stato = stato WHERE id = $1", [o.A2.id]);
    expect(await v()).toBeGreaterThan(v0);
  });

  test("filters apply to the feed too", async () => {
    const r = await get(`/ordini-acquisto?modificati_dopo=0&fornitore=${f.B}`);
    expect(r.body.ordini.map((x: any) => x.numero)).toEqual(["OB-1"]);
    const arts = await get("/articoli?modificati_dopo=0&cerca=guanto&limite=1");
    expect(arts.body.articoli).toHaveLength(1);
    expect(arts.body.altri).toBe(true);
    const next = await get(`/articoli?modificati_dopo=${arts.body.cursore_versione}&cerca=guanto&limite=1`);
    expect(next.body.articoli).toHaveLength(1);
    expect([arts.body.articoli[0].codice, next.body.articoli[0].codice].sort()).toEqual(["GUANTO", "GUANTO-M"]);
  });
});
