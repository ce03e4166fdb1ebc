import fs from "node:fs";
import path from "node:path";
import { expect, type Page, request, test } from "@playwright/test";
import { newSession, snap, type User } from "../support/app";
import { seed } from "../support/seed";

/**
 * The locations screen, "Dov'è?" and availability's quarantine column at handheld width, each checked
 * against what the REST reads say (GET /giacenze-ubicazioni, /articoli/{id}/ubicazioni, /disponibilita).
 * The spec sets its warehouse up as an integrator does: POST /ubicazioni, the switch on POST /magazzini, loads
 * by POST /movimenti naming the location.
 */

let users: Record<"operatore" | "responsabile", User>;
let key: string;
let magazzino: number;
let latte: number;

/** A REST call on a request context of its own (see disponibilita.spec.ts: no pooled socket outlives the spec). */
async function api(pathAndQuery: string, body?: unknown) {
  const ctx = await request.newContext({ extraHTTPHeaders: { authorization: `Bearer ${key}` } });
  try {
    const url = `http://127.0.0.1:${process.env.BANCHINA_E2E_PORT}/api/v1${pathAndQuery}`;
    const r = body === undefined ? await ctx.get(url) : await ctx.post(url, { data: body });
    const text = await r.text();
    expect(r.status(), text).toBe(200);
    return JSON.parse(text);
  } finally {
    await ctx.dispose();
  }
}

test.beforeAll(async () => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  const data = {
    magazzini: [{ codice: "UBI-W", nome: "Ubicazioni" }],
    articoli: [
      { codice: "UBI-VITE", descrizione: "Vite ubicazioni M6" },
      { codice: "UBI-LATTE", descrizione: "Latte ubicazioni 1 l", gestione_lotti: true },
    ],
  };
  const seeded = seed("ubicazioni", { data, roles: ["operatore", "responsabile"] });
  ({ key, users } = seeded);
  magazzino = seeded.ids.magazzini["UBI-W"]!;
  latte = seeded.ids.articoli["UBI-LATTE"]!;
  await api("/ubicazioni", {
    ubicazioni: [
      { magazzino: "UBI-W", codice: "UBI-RIC", tipo: "ricevimento", descrizione: "Banchina di ricevimento" },
      { magazzino: "UBI-W", codice: "UBI-A01", tipo: "stoccaggio", descrizione: "Scaffale A, ripiano 1" },
      { magazzino: "UBI-W", codice: "UBI-Q01", tipo: "quarantena" },
    ],
  });
  await api("/magazzini", {
    magazzini: [{ codice: "UBI-W", nome: "Ubicazioni", gestione_ubicazioni: true, ubicazione_ricevimento: "UBI-RIC" }],
  });
  // Loaded once: a worker restarted after a failure finds them in place.
  const held = await api(`/giacenze-ubicazioni?magazzino=${magazzino}`);
  if (held.giacenze.length === 0) {
    const written = await api("/movimenti", {
      natura: "carico",
      magazzino,
      righe: [
        { codice: "UBI-VITE", quantita: 12, ubicazione: "UBI-A01" },
        { codice: "UBI-LATTE", quantita: 5, lotto: "UL-1", scadenza: "2027-03-31", ubicazione: "UBI-A01" },
        { codice: "UBI-LATTE", quantita: 3, lotto: "UL-2", scadenza: "2027-01-31", ubicazione: "UBI-RIC" },
        { codice: "UBI-VITE", quantita: 2, ubicazione: "UBI-Q01" },
      ],
    });
    expect(written.rifiutate, JSON.stringify(written)).toBe(0);
  }
});

/** Screenshots into scratch/ (git-ignored) too, at the width the page has now. */
async function look(page: Page, name: string) {
  const dir = path.resolve(import.meta.dirname, "../../scratch");
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}-${page.viewportSize()?.width}.png`), fullPage: true });
}

async function chooseWarehouse(page: Page) {
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /^UBI-W/ }).click();
}

test("the locations list shows what GET /giacenze-ubicazioni says, location by location", async ({ browser }) => {
  const { context, page } = await newSession(browser, users.operatore);
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto("/ubicazioni");
  await chooseWarehouse(page);
  const rows = (await api(`/giacenze-ubicazioni?magazzino=${magazzino}`)).giacenze as {
    id: number;
    ubicazione: string;
    articolo: { codice: string };
    lotto: string | null;
    quantita: string;
  }[];
  expect(rows.length).toBe(4);
  for (const codice of ["UBI-RIC", "UBI-A01", "UBI-Q01"]) {
    const held = rows.filter((r) => r.ubicazione === codice);
    const articles = new Set(held.map((r) => r.articolo.codice)).size;
    const line = page.getByTestId(`ubicazione-${codice}`);
    await expect(line.getByTestId("contenuto")).toHaveText(
      `${articles} ${articles === 1 ? "articolo" : "articoli"}, ${held.length} ${held.length === 1 ? "riga" : "righe"}`,
    );
    await expect(line.getByTestId(`etichetta-${codice}`)).toHaveAttribute(
      "href",
      `/api/etichette/ubicazione?magazzino=${magazzino}&ubicazione=${codice}&formato=pdf`,
    );
    await page.getByTestId(`apri-${codice}`).click();
    const contents = page.getByTestId(`contenuto-${codice}`);
    for (const r of held) {
      const shown = contents.getByTestId(`riga-${r.id}`);
      await expect(shown).toContainText(r.articolo.codice);
      if (r.lotto) await expect(shown).toContainText(`lotto ${r.lotto}`);
      await expect(shown.getByTestId("quantita")).toHaveText(r.quantita.replace(".", ","));
    }
    await expect(contents.locator("[data-testid^=riga-]")).toHaveCount(held.length);
    if (codice === "UBI-A01") {
      await look(page, "ubicazioni-aperta");
      await snap(page, "ubicazioni");
    }
    await page.getByTestId(`apri-${codice}`).click();
  }
  // The type filter keeps the quarantine location only.
  await page.getByTestId("campo-tipo").click();
  await page.getByRole("option", { name: "Quarantena" }).click();
  await expect(page.locator("[data-testid^=ubicazione-]")).toHaveCount(1);
  await expect(page.getByTestId("ubicazione-UBI-Q01")).toBeVisible();
  await context.close();
});

test("Dov'è? from the articles search lists the locations and lots GET /articoli/{id}/ubicazioni gives", async ({ browser }) => {
  const { context, page } = await newSession(browser, users.operatore);
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto("/articoli");
  await page.getByTestId("cerca-articoli").fill("UBI-LATTE");
  await page.getByTestId("dov-e-UBI-LATTE").click();
  const panel = page.getByTestId("pannello-dov-e");
  const where = await api(`/articoli/${latte}/ubicazioni?magazzino=${magazzino}`);
  expect(where.ubicazioni.map((u: { ubicazione: string }) => u.ubicazione)).toEqual(["UBI-A01", "UBI-RIC"]);
  const inWarehouse = panel.getByTestId("dove-magazzino-UBI-W");
  await expect(inWarehouse).toContainText(`${where.giacenza} in tutto`);
  for (const u of where.ubicazioni) {
    const line = inWarehouse.getByTestId(`dove-ubicazione-${u.ubicazione}`);
    await expect(line).toContainText(u.quantita);
    for (const l of u.lotti) await expect(line).toContainText(`lotto ${l.lotto}`);
  }
  // The panel opens over the search's row, which stays closed.
  await expect(page.getByTestId("dettaglio-UBI-LATTE")).toHaveCount(0);
  await look(page, "dov-e");
  await page.getByTestId("dov-e-UBI-LATTE").click();
  await expect(panel).toBeHidden();
  await expect(page.getByTestId("dettaglio-UBI-LATTE")).toHaveCount(0);
  // The article's detail lists the same locations.
  await page.getByTestId("articolo-UBI-LATTE").getByText("Attivo").click();
  const detail = page.getByTestId("dettaglio-UBI-LATTE");
  for (const u of where.ubicazioni) await expect(detail.getByTestId(`dove-ubicazione-${u.ubicazione}`)).toContainText(u.quantita);
  await page.setViewportSize({ width: 1280, height: 800 });
  await look(page, "articolo-dettaglio");
  await context.close();
});

test("availability shows what lies in quarantine, as GET /disponibilita says", async ({ browser }) => {
  const { context, page } = await newSession(browser, users.responsabile);
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto("/disponibilita");
  await page.getByTestId("campo-cerca").fill("UBI-VITE");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /^UBI-W/ }).click();
  const row = (await api(`/disponibilita?magazzino=${magazzino}&cerca=UBI-VITE`)).disponibilita[0];
  expect(row.in_quarantena).toBe("2");
  const shown = page.getByTestId("disponibilita-UBI-VITE");
  await expect(shown.getByTestId("in-quarantena")).toHaveText(row.in_quarantena);
  await expect(shown.getByTestId("giacenza")).toHaveText(row.giacenza);
  await look(page, "disponibilita-quarantena");
  await page.setViewportSize({ width: 1280, height: 800 });
  await look(page, "disponibilita-quarantena");
  await context.close();
});
