import { expect } from "vitest";
import type { Actor } from "../auth/actor";
import type { TestDb } from "../../testing/db";
import { caller, seedArticle, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import { moveStock, seedLocationWarehouse } from "./locations-testing";

/** The screens' reads (tRPC only): the locations screen's list and "Dov'è?", as an operator calls them. */

let t: TestDb;
let operator: Actor;
let w1: { id: number; at: Record<string, number> };
let w2: { id: number; at: Record<string, number> };
const a: Record<string, number> = {};

test.beforeAll(async ({ db, key }) => {
  t = db;
  const u = await t.prisma.utente.create({ data: { username: "ubi-op", password_hash: "-", ruolo: "operatore" } });
  operator = { kind: "utente", id: u.id, username: u.username, ruolo: "operatore" };
  await seedWarehouse(t.prisma, "PIANO");
  w1 = await seedLocationWarehouse(key, "NORD", [
    { codice: "RIC", tipo: "ricevimento" },
    { codice: "A-01", tipo: "stoccaggio", descrizione: "Corsia A" },
    { codice: "A-02", tipo: "stoccaggio", attiva: false },
    { codice: "Q-01", tipo: "quarantena" },
  ]);
  w2 = await seedLocationWarehouse(key, "SUD", [{ codice: "R-SUD", tipo: "ricevimento" }]);
  a.VITE = (await seedArticle(t.prisma, "VITE")).id;
  a.LATTE = (await seedArticle(t.prisma, "LATTE", { lotti: true })).id;
  a.DADO = (await seedArticle(t.prisma, "DADO")).id;
  await moveStock(key, w1.id, { codice: "VITE", ubicazione: "A-01", quantita: 5 });
  await moveStock(key, w1.id, { codice: "LATTE", ubicazione: "A-01", quantita: 2, lotto: "L1", scadenza: "2027-01-10" });
  await moveStock(key, w1.id, { codice: "LATTE", ubicazione: "A-01", quantita: 1, lotto: "L0", scadenza: "2026-12-01" });
  await moveStock(key, w2.id, { codice: "VITE", ubicazione: "R-SUD", quantita: 8 });
});

const ui = () => caller(t, operator, "trpc");

test("the locations screen: the first warehouse managing locations by default, what each location holds, filters", async () => {
  const r = await ui().locationsStock.screenLocations({});
  expect(r.magazzini.map((m) => m.codice)).toEqual(["NORD", "SUD"]);
  expect(r.magazzino).toBe(w1.id);
  expect(r.ubicazioni.map((u) => [u.codice, u.tipo, u.attiva, u.righe, u.articoli])).toEqual([
    ["RIC", "ricevimento", true, 0, 0],
    ["A-01", "stoccaggio", true, 3, 2],
    ["A-02", "stoccaggio", false, 0, 0],
    ["Q-01", "quarantena", true, 0, 0],
  ]);
  const codes = async (input: object) => (await ui().locationsStock.screenLocations(input as never)).ubicazioni.map((u) => u.codice);
  expect(await codes({ cerca: "corsia" })).toEqual(["A-01"]);
  expect(await codes({ tipo: "quarantena" })).toEqual(["Q-01"]);
  expect(await codes({ attiva: "false" })).toEqual(["A-02"]);
  expect(await codes({ magazzino: String(w2.id) })).toEqual(["R-SUD"]);
  const paged = await ui().locationsStock.screenLocations({ limite: "2" } as never);
  expect([paged.altri, paged.cursore]).toEqual([true, w1.at["A-01"]]);
});

test("Dov'è?: the article in every warehouse managing locations, lots by nearest expiry; unknown article refused", async () => {
  const latte = await ui().locationsStock.whereIs({ id: String(a.LATTE) } as never);
  expect(latte.magazzini).toEqual([
    {
      magazzino: { id: w1.id, codice: "NORD" },
      giacenza: "3",
      ubicazioni: [
        {
          ubicazione: "A-01",
          descrizione: "Corsia A",
          tipo: "stoccaggio",
          attiva: true,
          quantita: "3",
          lotti: [
            { lotto: "L0", scadenza: "2026-12-01", quantita: "1" },
            { lotto: "L1", scadenza: "2027-01-10", quantita: "2" },
          ],
        },
      ],
    },
    { magazzino: { id: w2.id, codice: "SUD" }, giacenza: "0", ubicazioni: [] },
  ]);
  const vite = await ui().locationsStock.whereIs({ id: String(a.VITE) } as never);
  expect(vite.magazzini.map((m) => [m.magazzino.codice, m.giacenza, m.ubicazioni.map((u) => u.ubicazione)])).toEqual([
    ["NORD", "5", ["A-01"]],
    ["SUD", "8", ["R-SUD"]],
  ]);
  await expect(ui().locationsStock.whereIs({ id: "999999" } as never)).rejects.toMatchObject({ cause: { codice: "non_trovato" } });
});
