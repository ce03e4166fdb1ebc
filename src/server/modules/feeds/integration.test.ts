import { describe, expect } from "vitest";
import type { Actor } from "../auth/actor";
import type { TestDb } from "../../testing/db";
import { caller, rest } from "../../testing/fixtures";
import { test } from "../../testing/test";

/**
 * End to end, as an integrator and the dock would use the service: a fresh database fed by REST
 * (the purchase order through POST /ordini-acquisto), goods received through the UI's own procedures (tRPC,
 * a user of role operatore scanning EANs), a remainder closed short by a responsabile, and everything read
 * back by REST: the movements, the order in the change feed, the availability.
 *
 * Master data comes in through POST /magazzini, /fornitori and /articoli (a template with two variants by
 * `modello`, a plain article); every step goes through the real entry points.
 */

let t: TestDb;
let key: string;
let operatore: Actor;
let responsabile: Actor;
let magazzino: number;
const a = {} as Record<"GUANTO" | "S" | "M" | "VITE", number>;
const EAN = { S: "8001234567811", M: "8001234567828" };

test.beforeAll(async ({ db, key: k }) => {
  t = db;
  key = k;
  const warehouses = await rest("POST", "/magazzini", {
    key,
    body: { magazzini: [{ codice: "MAG-INT", nome: "Magazzino integrazione" }] },
  });
  expect(warehouses.body.creati).toBe(1);
  magazzino = warehouses.body.righe[0].id;
  const suppliers = await rest("POST", "/fornitori", {
    key,
    body: { fornitori: [{ codice: "FORN-INT", nome: "Fornitore integrazione" }] },
  });
  expect(suppliers.body.creati).toBe(1);
  const articles = await rest("POST", "/articoli", {
    key,
    body: {
      articoli: [
        { codice: "GUANTO", descrizione: "Guanto da lavoro" },
        { codice: "GUANTO-S", descrizione: "Guanto taglia S", ean: EAN.S, modello: "GUANTO" },
        { codice: "GUANTO-M", descrizione: "Guanto taglia M", ean: EAN.M, modello: "GUANTO" },
        { codice: "VITE-M6", descrizione: "Vite M6" },
      ],
    },
  });
  expect(articles.status).toBe(200);
  expect(articles.body).toMatchObject({ creati: 4, rifiutati: 0 });
  const idOf = (codice: string) => articles.body.righe.find((r: { codice: string }) => r.codice === codice).id as number;
  a.GUANTO = idOf("GUANTO");
  a.S = idOf("GUANTO-S");
  a.M = idOf("GUANTO-M");
  a.VITE = idOf("VITE-M6");
  const users = await Promise.all(
    (["operatore", "responsabile"] as const).map((ruolo) =>
      t.prisma.utente.create({ data: { username: `int-${ruolo}`, password_hash: "-", ruolo } }),
    ),
  );
  operatore = { kind: "utente", id: users[0]!.id, username: users[0]!.username, ruolo: "operatore" };
  responsabile = { kind: "utente", id: users[1]!.id, username: users[1]!.username, ruolo: "responsabile" };
});

const get = async (path: string) => {
  const r = await rest("GET", path, { key });
  expect(r.status, path).toBe(200);
  return r.body;
};
const availability = async (articolo: number) => (await get(`/disponibilita?dopo=${articolo - 1}&limite=1`)).disponibilita[0];
const dock = () => caller(t, operatore, "trpc");
const manager = () => caller(t, responsabile, "trpc");

describe("fed by REST, received on the screens, read back by REST", () => {
  test("order in, arrivals by EAN, a remainder closed short, movements, feed and availability agree", async () => {
    // The articles as the integrator reads them, in id order: variants one by one, with their template's
    // code (the upsert inserts the articles, then the variants that name a template).
    const articoli = (await get("/articoli")).articoli;
    expect(articoli.map((x: any) => [x.codice, x.modello])).toEqual([
      ["GUANTO", null],
      ["VITE-M6", null],
      ["GUANTO-S", "GUANTO"],
      ["GUANTO-M", "GUANTO"],
    ]);
    const start = (await get("/ordini-acquisto?modificati_dopo=0")).cursore_versione;

    // 1. The ERP sends the purchase order.
    const created = await rest("POST", "/ordini-acquisto", {
      key,
      headers: { "idempotency-key": "int-ordine-1" },
      body: {
        ordini: [
          {
            numero: "OA-INT-1",
            fornitore: "FORN-INT",
            data: "2026-11-20",
            magazzino: "MAG-INT",
            righe: [
              { numero_riga: 10, articolo: "GUANTO-S", quantita: 10, prezzo: "4.5" },
              { numero_riga: 20, articolo: "GUANTO-M", quantita: 6, prezzo: "4.5" },
              { numero_riga: 30, articolo: "VITE-M6", quantita: 100, prezzo: "0.12" },
            ],
          },
        ],
      },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ creati: 1, rifiutati: 0 });
    const ordine = created.body.righe[0].id as number;
    const riga = Object.fromEntries(created.body.righe[0].righe.map((r: any) => [r.numero_riga, r.riga])) as Record<number, number>;
    const feed1 = await get(`/ordini-acquisto?modificati_dopo=${start}`);
    expect(feed1.ordini.map((o: any) => [o.id, o.stato])).toEqual([[ordine, "aperto"]]);
    const v1 = feed1.ordini[0].versione as number;
    expect((await availability(a.S)).in_arrivo).toBe("10");
    expect((await availability(a.VITE)).in_arrivo).toBe("100");

    // 2. The dock scans the EAN of GUANTO-S and receives 6 of 10; then GUANTO-M, the whole remainder.
    const scanS = await dock().arrivals.search({ barcode: EAN.S });
    expect(scanS.ordini).toHaveLength(1);
    expect(scanS.ordini[0]!.righe.map((r) => [r.riga, r.residua])).toEqual([[riga[10], "10"]]);
    const arrS = await dock().arrivals.register({ magazzino, ddt: "DDT-INT-1", riga: riga[10]!, quantita: 6 });
    expect(arrS).toMatchObject({ riga: riga[10], arrivata: "6", residua: "4", ordine: { id: ordine, stato: "parziale" } });
    const scanM = await dock().arrivals.search({ barcode: EAN.M });
    const arrM = await dock().arrivals.register({ magazzino, ddt: "DDT-INT-1", riga: scanM.ordini[0]!.righe[0]!.riga });
    expect(arrM).toMatchObject({ riga: riga[20], arrivata: "6", residua: "0" });

    // 3. The operator may not close short; the responsabile closes the 4 of GUANTO-S that will not come.
    await expect(dock().orders.close({ id: String(ordine), righe: [10] })).rejects.toMatchObject({
      cause: expect.objectContaining({ codice: "permesso_negato" }),
    });
    const closed = await manager().orders.close({ id: String(ordine), righe: [10], motivo: "Taglia S fuori produzione" });
    expect(closed.righe).toEqual([expect.objectContaining({ numero_riga: 10, esito: "chiuso", chiusa: "4", residua: "0" })]);
    expect(closed.ordine.stato).toBe("parziale"); // VITE-M6 is still expected
    expect((await dock().arrivals.search({ barcode: EAN.S })).motivo_codice).toBe("non_atteso");

    // 4. Read back by REST: the two arrivals as movements of origin arrivo, by the operator, on their rows.
    const movimenti = (await get("/movimenti?origine=arrivo")).movimenti;
    expect(movimenti.map((m: any) => [m.articolo.codice, m.quantita, m.origine, m.natura, m.magazzino, m.riferimento])).toEqual([
      ["GUANTO-S", "6", "arrivo", "carico", magazzino, { tipo: "riga_ordine", id: riga[10] }],
      ["GUANTO-M", "6", "arrivo", "carico", magazzino, { tipo: "riga_ordine", id: riga[20] }],
    ]);
    expect(movimenti.map((m: any) => m.id)).toEqual([arrS, arrM].map((r) => ("movimento" in r ? r.movimento : null)));
    // Written by the operator's session (GET /movimenti does not carry `autore` yet: read it in the table).
    const authors = await t.pool.query("SELECT utente_id, chiave_api_id FROM movimenti WHERE origine = 'arrivo' ORDER BY id");
    expect(authors.rows).toEqual([
      { utente_id: operatore.id, chiave_api_id: null },
      { utente_id: operatore.id, chiave_api_id: null },
    ]);

    // The order in the change feed: a new version, arrived and closed quantities, still parziale.
    const feed2 = await get(`/ordini-acquisto?modificati_dopo=${v1}`);
    expect(feed2.ordini).toHaveLength(1);
    const o2 = feed2.ordini[0];
    expect(o2.versione).toBeGreaterThan(v1);
    expect(o2.stato).toBe("parziale");
    expect(o2.righe.map((r: any) => [r.numero_riga, r.riga, r.ordinata, r.arrivata, r.chiusa, r.residua])).toEqual([
      [10, riga[10], "10", "6", "4", "0"],
      [20, riga[20], "6", "6", "0", "0"],
      [30, riga[30], "100", "0", "0", "100"],
    ]);

    // Availability: stock received, in_arrivo net of the closed quantity.
    expect(await availability(a.S)).toMatchObject({ giacenza: "6", in_arrivo: "0" });
    expect(await availability(a.M)).toMatchObject({ giacenza: "6", in_arrivo: "0" });
    expect(await availability(a.VITE)).toMatchObject({ giacenza: "0", in_arrivo: "100" });

    // 5. The rest of the order closed (every row): evaso, in_arrivo 0, the feed moves once more; again is invariato.
    const all = await manager().orders.close({ id: String(ordine), motivo: "Ordine chiuso dal fornitore" });
    expect(all.ordine.stato).toBe("evaso");
    expect(all.chiusi).toBe(1);
    const feed3 = await get(`/ordini-acquisto?modificati_dopo=${o2.versione}`);
    expect(feed3.ordini.map((o: any) => [o.id, o.stato, o.righe[2].chiusa, o.righe[2].residua])).toEqual([[ordine, "evaso", "100", "0"]]);
    expect((await availability(a.VITE)).in_arrivo).toBe("0");
    const again = await manager().orders.close({ id: String(ordine) });
    expect(again.chiusi).toBe(0);
    expect((await get(`/ordini-acquisto?modificati_dopo=${feed3.cursore_versione}`)).ordini).toEqual([]);

    // The order screen's list: by the supplier's code, and by state.
    const listed = async (input: Parameters<ReturnType<typeof dock>["orders"]["list"]>[0]) =>
      (await dock().orders.list(input)).ordini.map((o) => o.numero);
    expect(await listed({ cerca: "forn-int" })).toEqual([]); // evaso: not among the orders still to receive
    expect(await listed({ cerca: "forn-int", stato: "evaso" })).toEqual(["OA-INT-1"]);
    expect(await listed({ stato: "parziale" })).toEqual([]);

    // The order screen's detail shows the same: arrivals on their rows and the closing reasons.
    const detail = await dock().orders.detail({ id: ordine });
    expect(detail.righe.map((r) => [r.numero_riga, r.arrivi.map((m) => m.quantita), r.chiusa, r.motivo_chiusura])).toEqual([
      [10, ["6"], "4", "Taglia S fuori produzione"],
      [20, ["6"], "0", null],
      [30, [], "100", "Ordine chiuso dal fornitore"],
    ]);
  });
});
