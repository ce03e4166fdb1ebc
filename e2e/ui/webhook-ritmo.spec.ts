import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, type Page, test } from "@playwright/test";
import { newSession, signIn, snap, type User } from "../support/app";
import { seed, seedStock } from "../support/seed";

/**
 * The webhook screen's throughput side (docs/api.md section 10): an administrator creates an endpoint with batch
 * settings, sees its lag while the receiver refuses and its rate once it accepts, changes the settings; an
 * endpoint an ERP made with its own key (REST, scope `webhook`) is on the screen with who made it, and is
 * deleted there. Each step is checked through the service (tRPC as the screen, or REST as the key), not only
 * on screen. The receiver does not read bodies: one event or a batch, any answer counts.
 */

let accepting = false;
let requests = 0;
let receiver: http.Server;
let url: string;
let admin: User;
let key: string;
let warehouse: number;
const base = () => `http://127.0.0.1:${process.env.BANCHINA_E2E_PORT}`;

test.beforeAll(async () => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      requests++;
      if (accepting) res.writeHead(200, { "content-type": "text/plain" }).end("ricevuto");
      else res.writeHead(503, { "content-type": "text/plain" }).end("in manutenzione");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ritmo/eventi`;
  const seeded = seed("whritmo", {
    data: {
      magazzini: [{ codice: "WR-M1", nome: "Ritmo uno" }],
      articoli: [{ codice: "WR-VITE", descrizione: "Vite del ritmo" }],
    },
    roles: ["amministratore"],
    keyScopes: "lettura,scrittura,webhook",
  });
  admin = seeded.users.amministratore;
  key = seeded.key;
  warehouse = seeded.ids.magazzini["WR-M1"]!;
});

test.afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

interface Listed {
  id: number;
  url: string;
  eventi_per_richiesta: number;
  consegna: string;
  ritardo_s: number | null;
  eventi_al_secondo: number;
  creato_da: { tipo: string; nome: string } | null;
}

/** The endpoints as the screen reads them (tRPC, the administrator's session). */
async function listed(page: Page): Promise<Listed[]> {
  const r = await page.request.get("/api/trpc/webhooks.list");
  expect(r.status()).toBe(200);
  const body = (await r.json()) as { result: { data: { json?: { endpoint: Listed[] }; endpoint?: Listed[] } } };
  return (body.result.data.json ?? body.result.data).endpoint!;
}

const byUrl = async (page: Page, u: string) => (await listed(page)).find((e) => e.url === u);

test("webhook: creato con lotti e consegna parallela, ritardo e ritmo visibili, impostazioni cambiate; quello di una chiave si elimina", async ({
  browser,
}) => {
  test.setTimeout(150_000);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await signIn(page, admin);
  await page.goto("/webhook");

  // Created on the screen with 10 events per request, parallel.
  await page.getByTestId("nuovo-webhook").click();
  await page.getByTestId("campo-url-webhook").fill(url);
  await page.getByRole("checkbox", { name: /movimenti\.registrati/ }).check();
  await page.getByTestId("campo-per-richiesta").fill("101");
  await page.getByTestId("crea-webhook").click();
  await expect(page.getByRole("dialog", { name: "Nuovo webhook" })).toContainText("Un numero intero da 1 a 100");
  expect(await byUrl(page, url)).toBeUndefined();
  await page.getByTestId("campo-per-richiesta").fill("10");
  await page.getByTestId("consegna-parallela").check();
  await snap(page, "webhook-ritmo-nuovo");
  await page.getByTestId("crea-webhook").click();
  await expect(page.getByTestId("segreto-creato")).toBeVisible();
  await page.keyboard.press("Escape");
  const made = (await byUrl(page, url))!;
  expect(made).toMatchObject({ eventi_per_richiesta: 10, consegna: "parallela", creato_da: { tipo: "utente", nome: admin.username } });
  const card = page.getByTestId(`webhook-${made.id}`);
  await expect(card.getByTestId("per-richiesta")).toHaveText("10");
  await expect(card.getByTestId("consegna")).toHaveText("parallela");
  await expect(card.getByTestId("creato-da")).toContainText(`da utente ${admin.username}`);
  await expect(card.getByTestId("ritardo")).toHaveText("nessuno in attesa");

  // The receiver refuses: the event waits, and its age is the lag.
  await seedStock(key, warehouse, [{ codice: "WR-VITE", quantita: 4 }]);
  await expect.poll(async () => (await byUrl(page, url))!.ritardo_s, { timeout: 15_000 }).not.toBeNull();
  await expect(card.getByTestId("ritardo")).toHaveText(/^\d+ s$|^\d+ min \d\d s$/, { timeout: 15_000 });
  await expect.poll(() => requests, { timeout: 30_000 }).toBeGreaterThan(0);
  await snap(page, "webhook-ritmo-ritardo");

  // It accepts: at the retry the event is delivered, the lag is gone, the rate of the last minute shows it.
  accepting = true;
  await expect.poll(async () => (await byUrl(page, url))!.eventi_al_secondo, { timeout: 45_000 }).toBeGreaterThan(0);
  expect((await byUrl(page, url))!.ritardo_s).toBeNull();
  await expect(card.getByTestId("ritardo")).toHaveText("nessuno in attesa", { timeout: 15_000 });
  await expect(card.getByTestId("ritmo")).toHaveText("1 evento/min", { timeout: 15_000 });
  await snap(page, "webhook-ritmo-consegnato");

  // Settings changed: 5 per request, ordered.
  await card.getByTestId("impostazioni-webhook").click();
  await page.getByTestId("campo-per-richiesta").fill("5");
  await page.getByTestId("consegna-ordinata").check();
  await page.getByTestId("salva-impostazioni").click();
  await expect(card.getByTestId("per-richiesta")).toHaveText("5");
  await expect(card.getByTestId("consegna")).toHaveText("ordinata");
  expect(await byUrl(page, url)).toMatchObject({ eventi_per_richiesta: 5, consegna: "ordinata" });

  // An ERP's own endpoint, made by REST with its key, is on the screen with who made it.
  const erpUrl = `${url}/erp`;
  const created = await fetch(`${base()}/api/v1/webhook`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ url: erpUrl, eventi: ["articolo.modificato"], eventi_per_richiesta: 50 }),
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const erp = (await created.json()).webhook as { id: number };
  await page.reload();
  const erpCard = page.getByTestId(`webhook-${erp.id}`);
  await expect(erpCard.getByTestId("creato-da")).toContainText("da chiave API whritmo");
  await expect(erpCard.getByTestId("per-richiesta")).toHaveText("50");
  await snap(page, "webhook-ritmo");

  // Deleted on the screen: gone for the key too.
  await erpCard.getByTestId("elimina-webhook").click();
  await page.getByTestId("conferma-eliminazione").click();
  await expect(erpCard).toHaveCount(0);
  const gone = await fetch(`${base()}/api/v1/webhook/${erp.id}`, { headers: { authorization: `Bearer ${key}` } });
  expect(gone.status).toBe(404);
  expect(await byUrl(page, erpUrl)).toBeUndefined();
  await context.close();
});

test("webhook: a 360 px le cifre e i comandi di un webhook stanno nello schermo", async ({ browser }) => {
  const { page, context } = await newSession(browser, admin, 360);
  await page.goto("/webhook");
  const card = page.locator("[data-testid^=webhook-]").filter({ hasText: url }).first();
  for (const id of ["ritardo", "ritmo", "per-richiesta", "consegna", "impostazioni-webhook", "elimina-webhook"]) {
    const box = (await card.getByTestId(id).boundingBox())!;
    expect(box.x, id).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, id).toBeLessThanOrEqual(360);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await context.close();
});

test("chiavi API: il permesso webhook si dà solo spuntandolo, e apre /api/v1/webhook alla chiave", async ({ browser }) => {
  const { page, context } = await newSession(browser, admin, 1280);
  await page.goto("/chiavi-api");
  const keyWith = async (nome: string, webhook: boolean) => {
    await page.getByTestId("nuova-chiave").click();
    await page.getByTestId("campo-nome-chiave").fill(nome);
    await page.getByRole("checkbox", { name: /Anche scrittura/ }).check();
    if (webhook) await page.getByTestId("permesso-webhook").check();
    await page.getByTestId("crea-chiave").click();
    const created = (await page.getByTestId("chiave-creata").innerText()).trim();
    await page.keyboard.press("Escape");
    return created;
  };
  const withHook = await keyWith("whritmo-con-webhook", true);
  const without = await keyWith("whritmo-senza-webhook", false);
  // The third column holds the scopes; the second key's form started again from its defaults.
  await expect(page.getByTestId("chiave-whritmo-con-webhook").locator("td").nth(2)).toHaveText("lettura, scrittura, webhook");
  await expect(page.getByTestId("chiave-whritmo-senza-webhook").locator("td").nth(2)).toHaveText("lettura, scrittura");
  const get = (k: string) => fetch(`${base()}/api/v1/webhook`, { headers: { authorization: `Bearer ${k}` } });
  expect((await get(withHook)).status).toBe(200);
  const refused = await get(without);
  expect(refused.status).toBe(403);
  expect((await refused.json()).codice).toBe("permesso_negato");
  await context.close();
});
