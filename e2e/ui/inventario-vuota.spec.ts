import { expect, test } from "@playwright/test";
import { api } from "../support/api";
import { newSession, scan, snap, type User } from "../support/app";
import { seed } from "../support/seed";

/**
 * A bin found empty, counted with the scanner alone at 360 px (docs/api.md section 11, "Counting a location"): the
 * bin's label, then "Ubicazione vuota", the preview of what goes to zero, the confirmation. Checked through
 * /api/v1: that bin holds nothing, the other bin what it held, the corrections are movements of the bin.
 */

let users: Record<"operatore" | "responsabile", User>;
let key: string;
let magazzino: number;
let articoli: Record<string, number>;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const s = seed("inventario-vuota", {
    data: {
      magazzini: [{ codice: "IV-MAG", nome: "Inventario vuota" }],
      articoli: [
        { codice: "IV-SAPONE", descrizione: "Sapone liquido 1 l" },
        { codice: "IV-CANDEGGINA", descrizione: "Candeggina 2 l", gestione_lotti: true },
      ],
    },
    roles: ["operatore", "responsabile"],
  });
  ({ users, key } = s);
  articoli = s.ids.articoli;
  magazzino = s.ids.magazzini["IV-MAG"]!;
  const ok = async (path: string, body: unknown) => {
    const r = await api(key, "POST", path, body);
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    return r.body;
  };
  await ok("/ubicazioni", {
    ubicazioni: ["IV-RIC", "IV-B1", "IV-B2"].map((codice) => ({
      magazzino: "IV-MAG",
      codice,
      tipo: codice === "IV-RIC" ? "ricevimento" : "stoccaggio",
    })),
  });
  await ok("/magazzini", {
    magazzini: [{ codice: "IV-MAG", nome: "Inventario vuota", gestione_ubicazioni: true, ubicazione_ricevimento: "IV-RIC" }],
  });
  const loaded = await ok("/movimenti", {
    natura: "carico",
    magazzino,
    righe: [
      { codice: "IV-SAPONE", quantita: 6, ubicazione: "IV-B1" },
      { codice: "IV-CANDEGGINA", quantita: 4, lotto: "CA-01", ubicazione: "IV-B1" },
      { codice: "IV-SAPONE", quantita: 9, ubicazione: "IV-B2" },
    ],
  });
  expect(loaded.scritte).toBe(3);
});

/** What a location holds, as an integrator reads it: (article code, lot, quantity) above zero. */
async function heldIn(ubicazione: string): Promise<[string, string | null, string][]> {
  const r = await api(key, "GET", `/giacenze-ubicazioni?magazzino=${magazzino}&ubicazione=${ubicazione}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.giacenze.map((g: any) => [g.articolo.codice, g.lotto, g.quantita]);
}

async function openScanCount(page: import("@playwright/test").Page) {
  await page.goto("/inventario");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /Inventario vuota/ }).click();
  await page.getByTestId("origine-conteggi").getByText("Lettore").click();
  await scan(page, "IV-B1");
  await expect(page.getByTestId("ubicazione-contata")).toContainText("IV-B1");
}

test("un operatore segnala l'ubicazione vuota: anteprima alla cieca, nulla scritto", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await openScanCount(page);
  await page.getByTestId("ubicazione-vuota").click();
  await expect(page.getByTestId("risultato")).toContainText("Anteprima");
  await expect(page.getByTestId("esito-ubicazione-vuota")).toContainText("IV-B1");
  await expect(page.getByTestId("conferma")).toHaveCount(0);
  // Blind: which articles the bin holds is stock an operator does not read.
  await expect(page.getByTestId("tabella-allineamento")).not.toContainText("IV-SAPONE");
  await snap(page, "inventario-vuota-operatore");
  expect(await heldIn("IV-B1")).toEqual([
    ["IV-SAPONE", null, "6"],
    ["IV-CANDEGGINA", "CA-01", "4"],
  ]);
  await context.close();
});

test("un'ubicazione trovata vuota: etichetta letta, «Ubicazione vuota», anteprima, conferma; tutto a zero, l'altra intatta", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.responsabile);
  await openScanCount(page);
  await expect(page.getByTestId("ubicazione-vuota")).toBeVisible();
  await snap(page, "inventario-vuota-lettura");
  await page.getByTestId("ubicazione-vuota").click();
  const table = page.getByTestId("tabella-allineamento");
  await expect(page.getByTestId("risultato")).toContainText("da correggere: 2");
  await expect(table).toContainText("IV-SAPONE");
  await expect(table).toContainText("CA-01");
  await snap(page, "inventario-vuota-anteprima");
  // Nothing is written before the confirmation.
  expect(await heldIn("IV-B1")).toHaveLength(2);

  await page.getByTestId("conferma").click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("Ubicazione IV-B1 vuota?");
  await expect(dialog).toContainText("2 correzioni");
  await snap(page, "inventario-vuota-conferma");
  await page.getByTestId("conferma-scrittura").click();
  await expect(page.getByTestId("risultato")).toContainText("Allineamento scritto");
  await expect(page.getByTestId("esito-ubicazione-vuota")).toContainText("2 giacenze portate a zero");
  await snap(page, "inventario-vuota-scritto");

  expect(await heldIn("IV-B1")).toEqual([]);
  expect(await heldIn("IV-B2")).toEqual([["IV-SAPONE", null, "9"]]);
  const moves = await api(key, "GET", `/movimenti?magazzino=${magazzino}&origine=correzione`);
  const corrections = moves.body.movimenti.map((m: any) => [m.articolo.codice, m.lotto, m.ubicazione, m.quantita]);
  expect(corrections).toHaveLength(2);
  expect(corrections).toEqual(
    expect.arrayContaining([
      ["IV-SAPONE", null, "IV-B1", "-6"],
      ["IV-CANDEGGINA", "CA-01", "IV-B1", "-4"],
    ]),
  );
  const stock = await api(key, "GET", `/disponibilita?magazzino=${magazzino}`);
  const giacenza = (id: number | undefined) => stock.body.disponibilita.find((d: any) => d.articolo.id === id)?.giacenza;
  expect([giacenza(articoli["IV-SAPONE"]), giacenza(articoli["IV-CANDEGGINA"])]).toEqual(["9", "0"]);

  // Counted empty again: nothing left to correct.
  await page.getByTestId("origine-conteggi").getByText("Carica file").click();
  await page.getByTestId("origine-conteggi").getByText("Lettore").click();
  await scan(page, "IV-B1");
  await page.getByTestId("ubicazione-vuota").click();
  await expect(page.getByTestId("esito-ubicazione-vuota")).toContainText("già vuota");
  await expect(page.getByTestId("conferma")).toBeDisabled();
  await context.close();
});
