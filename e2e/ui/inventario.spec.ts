import fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { newSession, snap, type User } from "../support/app";
import { ean13, seed, seedStock } from "../support/seed";

const NASTRO_EAN = ean13("800777000050");

// The spec's own warehouses and articles, with the stock the counts below are compared with.
let users: Record<"operatore" | "responsabile", User>;
test.beforeAll(async () => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  const data = {
    magazzini: [
      { codice: "INV-W1", nome: "Inventario uno" },
      { codice: "INV-W2", nome: "Inventario due" },
    ],
    articoli: [
      { codice: "INV-SGRASS-750", descrizione: "Sgrassatore inventario 750 ml" },
      { codice: "INV-ALCOL-DEN-1L", descrizione: "Alcol denaturato inventario 1 l", gestione_lotti: true },
      { codice: "INV-GUANTI-NITRILE-L", descrizione: "Guanti inventario taglia L" },
      { codice: "INV-IPOCLORITO-5L", descrizione: "Ipoclorito inventario 5 l", gestione_lotti: true },
      { codice: "INV-VITE-TE-M6X40", descrizione: "Vite inventario M6x40" },
      { codice: "INV-NASTRO-AM-50", descrizione: "Nastro inventario 50 m", ean: NASTRO_EAN },
    ],
  };
  const { ids, key, users: u } = seed("inventario", { data, roles: ["operatore", "responsabile"] });
  users = u;
  await seedStock(key, ids.magazzini["INV-W2"]!, [
    { codice: "INV-SGRASS-750", quantita: 48 },
    { codice: "INV-GUANTI-NITRILE-L", quantita: 10 },
    { codice: "INV-ALCOL-DEN-1L", quantita: 30, lotto: "AD-2609" },
    { codice: "INV-IPOCLORITO-5L", quantita: 20, lotto: "IP-2611" },
  ]);
  await seedStock(key, ids.magazzini["INV-W1"]!, [
    { codice: "INV-VITE-TE-M6X40", quantita: 12 },
    { codice: "INV-NASTRO-AM-50", quantita: 25 },
  ]);
});

const CSV = [
  "codice;contato;lotto",
  "INV-SGRASS-750;50",
  "INV-ALCOL-DEN-1L;30;AD-2609",
  "INV-GUANTI-NITRILE-L;0",
  "NON-ESISTE;3",
  "XYZ;abc",
  "INV-IPOCLORITO-5L;5",
].join("\n");

async function upload(page: Page) {
  await page.goto("/inventario");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /INV-W2/ }).click();
  await page.getByTestId("campo-file").click();
  const chooser = page.waitForEvent("filechooser");
  await page.getByTestId("campo-file").click();
  await (await chooser).setFiles({ name: "conteggi.csv", mimeType: "text/csv", buffer: Buffer.from(CSV, "utf8") });
  await page.getByTestId("anteprima").click();
  await expect(page.getByTestId("risultato")).toBeVisible();
}

test("un operatore conta e vede l'anteprima, ma non conferma", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await upload(page);
  await expect(page.getByTestId("risultato")).toContainText("Anteprima");
  await expect(page.getByTestId("conferma")).toHaveCount(0);
  await expect(page.getByText("La conferma (scrittura delle correzioni) spetta a un responsabile")).toBeVisible();
  await context.close();
});

test("CSV caricato: errori di lettura con il numero di riga, anteprima con rifiuti e differenze grandi, conferma, esito scaricabile", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.responsabile, 1280);
  await upload(page);
  await expect(page.getByTestId("errori-lettura")).toContainText("Riga 6: quantità 'abc' non è un numero");
  const table = page.getByTestId("tabella-allineamento");
  await expect(table.locator("tbody tr")).toHaveCount(5);
  await expect(table.locator("tr[data-esito=rifiutata]")).toHaveCount(2);
  await expect(table.locator("tr[data-esito=rifiutata]").first()).toContainText("NON-ESISTE");
  await expect(table).toContainText("grande");
  await expect(page.getByTestId("risultato")).toContainText("da correggere: 2");
  await snap(page, "inventario-anteprima");

  await page.getByTestId("conferma").click();
  await expect(page.getByRole("dialog")).toContainText("Scrivere 2 correzioni");
  await page.getByTestId("conferma-scrittura").click();
  await expect(page.getByTestId("risultato")).toContainText("Allineamento scritto");
  await expect(page.getByTestId("risultato")).toContainText("corrette: 2");
  await snap(page, "inventario-scritto");

  const download = page.waitForEvent("download");
  await page.getByTestId("scarica-esito").click();
  const file = await (await download).path();
  const lines = fs
    .readFileSync(file!, "utf8")
    .replace(/^\uFEFF/, "")
    .trim()
    .split("\n");
  expect(lines[0]).toBe("riga;codice;lotto;attuale;contato;delta;esito;movimento;errore");
  expect(lines).toHaveLength(6);
  expect(lines.find((l) => l.includes("SGRASS-750"))).toMatch(/;48;50;2;scritta;\d+;$/);

  // The same counts again: nothing left to correct.
  await page.getByTestId("anteprima").click();
  await expect(page.getByTestId("risultato")).toContainText("da correggere: 0");
  await context.close();
});

test("incollare i conteggi (un codice in minuscolo, un EAN: la regola di lettura delle altre schermate); un file grande mostra l'avanzamento", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.responsabile, 1280);
  await page.goto("/inventario");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /INV-W1/ }).click();
  await page.getByText("Incolla", { exact: true }).click();
  await page.getByTestId("campo-testo").fill(`inv-vite-te-m6x40,500\n${NASTRO_EAN},"23,5"\nSCONOSCIUTO,1`);
  await page.getByTestId("anteprima").click();
  await expect(page.getByTestId("risultato")).toContainText("rifiutate: 1");
  await expect(page.getByTestId("tabella-allineamento")).toContainText("23,5");
  await expect(page.getByTestId("tabella-allineamento")).toContainText("INV-NASTRO-AM-50");
  await expect(page.getByTestId("tabella-allineamento")).toContainText("INV-VITE-TE-M6X40");
  await snap(page, "inventario-incolla");

  // The largest file allowed: 10,000 rows, one call, with the progress shown while it runs.
  await page.getByText("Carica file", { exact: true }).click();
  const big = ["codice;contato", ...Array.from({ length: 9_999 }, (_, i) => `ART-${i};${i % 5}`), "INV-SGRASS-750;1,5"].join("\n");
  const chooser = page.waitForEvent("filechooser");
  await page.getByTestId("campo-file").click();
  await (await chooser).setFiles({ name: "grande.csv", mimeType: "text/csv", buffer: Buffer.from(big, "utf8") });
  await page.getByTestId("anteprima").click();
  await expect(page.getByTestId("avanzamento")).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/inventario-avanzamento-1280.png" });
  await expect(page.getByTestId("risultato")).toContainText("rifiutate: 9999", { timeout: 45_000 });
  await page.getByText("Rifiutate", { exact: true }).click();
  await expect(page.getByTestId("tabella-allineamento").locator("tbody tr")).toHaveCount(100);
  await snap(page, "inventario-grande");
  await context.close();
});
