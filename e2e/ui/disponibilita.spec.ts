import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { newSession, snap, type User } from "../support/app";
import { seed } from "../support/seed";

// More articles than two pages of 10, three variants to find by text, two warehouses: all the spec's own.
let manager: User;
test.beforeAll(() => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  const data = {
    magazzini: [
      { codice: "DISP-W1", nome: "Disponibilità uno" },
      { codice: "DISP-W2", nome: "Disponibilità due" },
    ],
    articoli: [
      ...Array.from({ length: 24 }, (_, i) => ({
        codice: `DISP-A${String(i + 1).padStart(2, "0")}`,
        descrizione: `Articolo disponibilità ${i + 1}`,
      })),
      {
        codice: "DISP-GUANTI",
        descrizione: "Modello disponibilità guanti",
        varianti: ["M", "L", "XL"].map((t) => ({ codice: `DISP-GUANTI-${t}`, descrizione: `Variante disponibilità taglia ${t}` })),
      },
    ],
  };
  manager = seed("disponibilita", { data, roles: ["responsabile"] }).users.responsabile;
});

test("disponibilità a pagine, ricerca, filtro per magazzino; l'esportazione CSV ha tutto il catalogo", async ({ browser }) => {
  const { page, context } = await newSession(browser, manager, 1280);
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
  // The table settles on the second page as a whole: no row of the first page stays on it.
  await expect
    .poll(async () => (await rows.locator("td:first-child > p:first-child").allInnerTexts()).filter((c) => firstPage.includes(c)))
    .toEqual([]);
  await expect(rows).toHaveCount(10);
  await page.getByTestId("pagina-precedente").click();
  await expect(page.getByTestId("pagina")).toHaveText("Pagina 1");
  await expect(rows.first()).toHaveText(new RegExp(`^${firstPage[0]}`));

  await page.getByTestId("campo-cerca").fill("disp-guanti");
  await expect(rows).toHaveCount(3);
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /DISP-W2/ }).click();
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
  // One stock column per warehouse of the database, by code: the spec's two and whatever else is there.
  const warehouses: string[] = await page.evaluate(async () =>
    ((await (await fetch("/api/trpc/catalogue.warehouses")).json()).result.data.magazzini as { codice: string }[]).map((w) => w.codice),
  );
  expect(warehouses).toEqual(expect.arrayContaining(["DISP-W1", "DISP-W2"]));
  expect(lines[0]).toBe(["codice;descrizione;giacenza;in_arrivo", ...warehouses.map((c) => `giacenza_${c}`)].join(";"));
  const all: string[] = [];
  await page.getByTestId("campo-limite").click();
  await page.getByRole("option", { name: "500", exact: true }).click();
  await expect(rows.first()).toBeVisible();
  all.push(...(await rows.locator("td:first-child > p:first-child").allInnerTexts()));
  expect(lines.slice(1).map((l) => l.split(";")[0])).toEqual(all);
  await context.close();
});
