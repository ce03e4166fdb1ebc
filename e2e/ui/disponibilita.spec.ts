import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { api } from "../support/api";
import { newSession, signIn, slowHandheld, snap, type User } from "../support/app";
import { seed, today } from "../support/seed";

// More articles than two pages of 10, three variants to find by text, two warehouses: all the spec's own.
let manager: User;
let key: string;
/** The day before today in the service's zone, as gg/mm/aaaa and as the contract writes it. */
const yesterday = new Date(Date.parse(`${today()}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
const yesterdayShown = yesterday.split("-").reverse().join("/");
/** A REST call with the spec's key (e2e/support/api.ts): a GET, or a POST of `body`. */
const rest = (path: string, body?: unknown) => api(key, body === undefined ? "GET" : "POST", path, body);
test.beforeAll(async () => {
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
    // Ordered yesterday, 10 of DISP-A01; 4 arrive today: at yesterday's end all 10 were still expected.
    fornitori: [{ codice: "DISP-FORN", nome: "Fornitore disponibilità" }],
    ordini: [
      {
        numero: "DISP-OA-1",
        fornitore: "DISP-FORN",
        data: yesterday,
        magazzino: "DISP-W1",
        righe: [{ articolo: "DISP-A01", quantita: 10, prezzo: "1" }],
      },
    ],
  };
  const seeded = seed("disponibilita", { data, roles: ["responsabile"] });
  manager = seeded.users.responsabile;
  key = seeded.key;
  const order = (await rest("/ordini-acquisto?cerca=DISP-OA-1")).body.ordini[0];
  if (order.righe[0].arrivata === "0") {
    const arrived = await rest("/arrivi", {
      magazzino: seeded.ids.magazzini["DISP-W1"],
      ddt: "DDT-DISP-1",
      riga: order.righe[0].riga,
      quantita: 4,
    });
    expect(arrived.status, JSON.stringify(arrived.body)).toBe(201);
  }
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
  // Codice, descrizione, giacenza, prenotata, disponibile, in arrivo: no column per warehouse.
  await expect(page.getByTestId("tabella-disponibilita").locator("thead th")).toHaveCount(6);
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
  expect(lines[0]).toBe(
    ["codice;descrizione;giacenza;in_arrivo;prenotata;disponibile", ...warehouses.map((c) => `giacenza_${c}`)].join(";"),
  );
  const all: string[] = [];
  await page.getByTestId("campo-limite").click();
  await page.getByRole("option", { name: "500", exact: true }).click();
  await expect(rows.first()).toBeVisible();
  all.push(...(await rows.locator("td:first-child > p:first-child").allInnerTexts()));
  expect(lines.slice(1).map((l) => l.split(";")[0])).toEqual(all);
  await context.close();
});

test("al giorno passato, «in arrivo» è quello di fine giornata, non quello di oggi", async ({ browser }) => {
  const { page, context } = await newSession(browser, manager, 360);
  await page.goto("/disponibilita");
  await page.getByTestId("campo-cerca").fill("DISP-A01");
  const rows = page.getByTestId("tabella-disponibilita").locator("tbody tr");
  await expect(rows).toHaveCount(1);
  const row = page.getByTestId("disponibilita-DISP-A01");
  await expect(row.getByTestId("in-arrivo")).toHaveText("6");
  await expect(row.getByTestId("giacenza")).toHaveText("4");

  await page.getByTestId("campo-data").fill(yesterdayShown);
  await page.keyboard.press("Tab");
  await expect(row.getByTestId("in-arrivo")).toHaveText("10");
  await expect(row.getByTestId("giacenza")).toHaveText("0");
  // Holds have no history: a past day shows neither prenotata nor disponibile.
  await expect(row.getByTestId("disponibile")).toHaveCount(0);
  await expect(page.getByTestId("situazione-al-giorno")).toHaveText(`Giacenza e in arrivo alla fine del ${yesterdayShown}.`);
  await snap(page, "disponibilita-al-giorno");

  // The same figures through the API.
  const at = async (query: string) => (await rest(`/disponibilita?cerca=DISP-A01${query}`)).body.disponibilita[0];
  expect(await at("")).toMatchObject({ giacenza: "4", in_arrivo: "6" });
  expect(await at(`&a=${yesterday}`)).toMatchObject({ giacenza: "0", in_arrivo: "10" });
  await context.close();
});

test("una ricerca scritta mentre la pagina si carica resta, e filtra la tabella", async ({ browser }) => {
  const { context, page, holdScripts, mountedAndFramed } = await slowHandheld(browser);
  await signIn(page, manager);
  const release = await holdScripts();
  await page.goto("/disponibilita", { waitUntil: "domcontentloaded" });
  await page.getByTestId("campo-cerca").fill("disp-guanti");
  release();
  await mountedAndFramed();
  await expect(page.getByTestId("tabella-disponibilita").locator("tbody tr")).toHaveCount(3);
  await expect(page.getByTestId("campo-cerca")).toHaveValue("disp-guanti");
  await context.close();
});
