import fs from "node:fs";
import { expect, test, type Page } from "@playwright/test";
import { newSession, snap } from "../support/app";

const CSV = [
  "codice;contato;lotto",
  "SGRASS-750;50",
  "ALCOL-DEN-1L;30;AD-2609",
  "GUANTI-NITRILE-L;0",
  "NON-ESISTE;3",
  "XYZ;abc",
  "IPOCLORITO-5L;5",
].join("\n");

async function upload(page: Page) {
  await page.goto("/inventario");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /VR-DEPOSITO/ }).click();
  await page.getByTestId("campo-file").click();
  const chooser = page.waitForEvent("filechooser");
  await page.getByTestId("campo-file").click();
  await (await chooser).setFiles({ name: "conteggi.csv", mimeType: "text/csv", buffer: Buffer.from(CSV, "utf8") });
  await page.getByTestId("anteprima").click();
  await expect(page.getByTestId("risultato")).toBeVisible();
}

test("un operatore conta e vede l'anteprima, ma non conferma", async ({ browser }) => {
  const { page, context } = await newSession(browser, "operatore");
  await upload(page);
  await expect(page.getByTestId("risultato")).toContainText("Anteprima");
  await expect(page.getByTestId("conferma")).toHaveCount(0);
  await expect(page.getByText("La conferma (scrittura delle correzioni) spetta a un responsabile")).toBeVisible();
  await context.close();
});

test("CSV caricato: errori di lettura con il numero di riga, anteprima con rifiuti e differenze grandi, conferma, esito scaricabile", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, "responsabile", 1280);
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

test("incollare i conteggi; un file grande mostra l'avanzamento", async ({ browser }) => {
  const { page, context } = await newSession(browser, "responsabile", 1280);
  await page.goto("/inventario");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /BO-CENTRALE/ }).click();
  await page.getByText("Incolla", { exact: true }).click();
  await page.getByTestId("campo-testo").fill('VITE-TE-M6X40,500\nNASTRO-AM-50,"23,5"\nSCONOSCIUTO,1');
  await page.getByTestId("anteprima").click();
  await expect(page.getByTestId("risultato")).toContainText("rifiutate: 1");
  await expect(page.getByTestId("tabella-allineamento")).toContainText("23,5");
  await snap(page, "inventario-incolla");

  // The largest file allowed: 10,000 rows, one call, with the progress shown while it runs.
  await page.getByText("Carica file", { exact: true }).click();
  const big = ["codice;contato", ...Array.from({ length: 9_999 }, (_, i) => `ART-${i};${i % 5}`), "SGRASS-750;1,5"].join("\n");
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
