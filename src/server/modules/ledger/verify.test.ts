import { afterAll, beforeAll, expect, test } from "vitest";
import { createTestDb, type TestDb } from "../../testing/db";
import { rest, seedArticle, seedKey, seedOrder, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { verifyLedger } from "./verify.service";

let t: TestDb;

beforeAll(async () => {
  t = await createTestDb();
  const m = (await seedWarehouse(t.prisma)).id;
  const art = (await seedArticle(t.prisma, "A")).id;
  const lot = (await seedArticle(t.prisma, "L", { lotti: true })).id;
  const f = (await seedSupplier(t.prisma, "F")).id;
  const o = await seedOrder(t.prisma, {
    numero: "O1",
    fornitore: f,
    magazzino: m,
    data: "2026-11-01",
    righe: [
      { articolo: art, quantita: "5", prezzo: "1" },
      { articolo: lot, quantita: "5", prezzo: "1" },
    ],
  });
  const key = (await seedKey(t.prisma)).chiave;
  await rest("POST", "/movimenti", {
    key,
    body: {
      natura: "carico",
      magazzino: m,
      righe: [
        { codice: "A", quantita: 3 },
        { codice: "L", quantita: 4, lotto: "X" },
      ],
    },
  });
  const arr = await rest("POST", "/arrivi", {
    key,
    body: {
      magazzino: m,
      ddt: "D",
      righe: [
        { riga: o.righe[0], quantita: 2 },
        { riga: o.righe[1], lotto: "Y" },
      ],
    },
  });
  await rest("POST", `/arrivi/${arr.body.righe[0].movimento}/annulla`, { key });
  await rest("POST", "/giacenze/allinea", {
    key,
    body: {
      magazzino: m,
      righe: [
        { codice: "A", contato: 1 },
        { codice: "L", lotto: "X", contato: 2 },
      ],
    },
  });
});
afterAll(async () => t?.drop());

test("a database written only through the service verifies clean", async () => {
  const r = await verifyLedger(t.prisma);
  expect(r.ok).toBe(true);
  expect(r.differenze).toEqual([]);
  expect(r.controllati.movimenti).toBeGreaterThanOrEqual(6);
});

test("every kind of drift is found and named", async () => {
  await t.pool.query("UPDATE giacenze SET quantita = quantita + 1 WHERE articolo_id = 1");
  await t.pool.query("UPDATE lotti SET residua = residua + 0.5 WHERE codice = 'X'");
  await t.pool.query("UPDATE righe_ordine SET arrivata = 1 WHERE posizione = 1");
  await t.pool.query("UPDATE ordini_acquisto SET stato = 'aperto'");
  const r = await verifyLedger(t.prisma);
  expect(r.ok).toBe(false);
  expect(r.differenze.map((d) => d.tipo).sort()).toEqual(["giacenza", "lotto", "riga_ordine", "stato_ordine"]);
  expect(r.differenze.find((d) => d.tipo === "lotto")).toMatchObject({ atteso: "2.000", trovato: "2.500" });
});
