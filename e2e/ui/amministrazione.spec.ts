import { expect, test } from "@playwright/test";
import { newSession, signIn, snap, type User } from "../support/app";
import { seed } from "../support/seed";

let admin: User;
test.beforeAll(() => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  // Its key (named after the spec) is the one already listed on the keys screen.
  admin = seed("amministrazione", { roles: ["amministratore"], keyScopes: "lettura" }).users.amministratore;
});

test("utenti: crea, cambia ruolo, disattiva; il nuovo utente accede con il suo ruolo", async ({ browser }) => {
  const { page, context } = await newSession(browser, admin, 1280);
  await page.goto("/utenti");
  await expect(page.getByTestId(`utente-${admin.username}`)).toBeVisible();
  await page.getByTestId("nuovo-utente").click();
  await page.getByTestId("campo-nuovo-username").fill("Amministrazione.Due");
  await page.getByTestId("campo-nuova-password").fill("password-lunga-1");
  await snap(page, "utenti-nuovo");
  await page.getByTestId("crea-utente").click();
  const row = page.getByTestId("utente-amministrazione.due");
  await expect(row).toContainText("attivo");
  await row.getByRole("textbox", { name: /Ruolo di/ }).click();
  await page.getByRole("option", { name: "Responsabile" }).click();
  await expect(row.getByRole("textbox", { name: /Ruolo di/ })).toHaveValue("Responsabile");
  await snap(page, "utenti");

  const other = await browser.newContext({ viewport: { width: 360, height: 760 } });
  const p2 = await other.newPage();
  await signIn(p2, { username: "amministrazione.due", password: "password-lunga-1" });
  await p2.goto("/disponibilita");
  await expect(p2.getByTestId("tabella-disponibilita")).toBeVisible();

  // Deactivated: the open session ends at the next request.
  await row.getByRole("button", { name: "Disattiva" }).click();
  await expect(row).toContainText("disattivato");
  // The next request of that browser finds no session: a page load, or a query in flight that sends it to sign in first.
  await p2.goto("/disponibilita").catch(() => {});
  await expect(p2).toHaveURL(/\/accesso/);
  await other.close();
  await context.close();
});

test("chiavi API: la chiave si vede una volta sola, poi si revoca", async ({ browser, request }) => {
  const { page, context } = await newSession(browser, admin, 1280);
  await page.goto("/chiavi-api");
  await expect(page.getByTestId("chiave-amministrazione")).toBeVisible();
  await page.getByTestId("nuova-chiave").click();
  await page.getByTestId("campo-nome-chiave").fill("amministrazione-gestionale");
  await page.getByTestId("crea-chiave").click();
  const key = (await page.getByTestId("chiave-creata").innerText()).trim();
  expect(key).toMatch(/^bnc_[0-9a-f]{8}_/);
  await snap(page, "chiavi-api-creata");
  const ok = await request.get("/api/v1/clienti?limite=1", { headers: { authorization: `Bearer ${key}` } });
  expect(ok.status()).toBe(200);

  await page.keyboard.press("Escape");
  const row = page.getByTestId("chiave-amministrazione-gestionale");
  await expect(row).toContainText("lettura");
  await expect(page.locator("body")).not.toContainText(key);
  await row.getByRole("button", { name: "Revoca" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoca" }).click();
  await expect(row).toContainText("revocata");
  await snap(page, "chiavi-api");
  const revoked = await request.get("/api/v1/clienti?limite=1", { headers: { authorization: `Bearer ${key}` } });
  expect(revoked.status()).toBe(401);
  await context.close();
});
