import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { newSession, snap } from "../support/app";

test("disponibilità a pagine, ricerca, filtro per magazzino; l'esportazione CSV ha tutto il catalogo", async ({ browser }) => {
  const { page, context } = await newSession(browser, "responsabile", 1280);
  await page.goto("/disponibilita");
  const rows = page.getByTestId("tabella-disponibilita").locator("tbody tr");
  await expect(rows.first()).toBeVisible();
  await page.getByTestId("campo-limite").click();
  await page.getByRole("option", { name: "10", exact: true }).click();
  await expect(rows).toHaveCount(10);
  await snap(page, "disponibilita");
  const firstPage = await rows.locator("td:first-child > p:first-child").allInnerTexts();

  await page.getByTestId("pagina-successiva").click();
  await expect(page.getByTestId("pagina")).toHaveText("Pagina 2");
  await expect(rows.first()).not.toHaveText(firstPage[0]!);
  const secondPage = await rows.locator("td:first-child > p:first-child").allInnerTexts();
  expect(secondPage.some((c) => firstPage.includes(c))).toBe(false);
  await page.getByTestId("pagina-precedente").click();
  await expect(page.getByTestId("pagina")).toHaveText("Pagina 1");
  await expect(rows.first()).toHaveText(new RegExp(`^${firstPage[0]}`));

  await page.getByTestId("campo-cerca").fill("guanti");
  await expect(rows).toHaveCount(3);
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /VR-DEPOSITO/ }).click();
  await expect(page.getByTestId("tabella-disponibilita").locator("thead th")).toHaveCount(4);
  await snap(page, "disponibilita-filtrata");
  await page.getByTestId("campo-cerca").fill("");

  // Export: every stocked article, one line each, whatever the page on screen.
  await page.goto("/disponibilita");
  const download = page.waitForEvent("download");
  await page.getByTestId("esporta").click();
  const file = (await (await download).path())!;
  const lines = fs
    .readFileSync(file, "utf8")
    .replace(/^\uFEFF/, "")
    .trim()
    .split("\n");
  expect(lines[0]).toBe("codice;descrizione;giacenza;in_arrivo;giacenza_BO-CENTRALE;giacenza_VR-DEPOSITO");
  const all: string[] = [];
  await page.getByTestId("campo-limite").click();
  await page.getByRole("option", { name: "500", exact: true }).click();
  await expect(rows.first()).toBeVisible();
  all.push(...(await rows.locator("td:first-child > p:first-child").allInnerTexts()));
  expect(lines.slice(1).map((l) => l.split(";")[0])).toEqual(all);
  await context.close();
});
