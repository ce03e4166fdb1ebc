import { expect, test } from "@playwright/test";
import { signIn, slowHandheld, snap, type Role, type User } from "../support/app";
import { seed } from "../support/seed";

const NAV: Record<Role, { visible: string[]; hidden: string[] }> = {
  operatore: {
    visible: ["Ricevimento", "Inventario", "Ordini", "Articoli", "Fornitori"],
    hidden: ["Disponibilità", "Movimenti", "Utenti", "Chiavi API"],
  },
  responsabile: { visible: ["Ricevimento", "Disponibilità", "Movimenti", "Documenti di vendita"], hidden: ["Utenti", "Chiavi API"] },
  amministratore: { visible: ["Ricevimento", "Disponibilità", "Utenti", "Chiavi API"], hidden: [] },
};

let users: Record<Role, User>;
test.beforeAll(() => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  ({ users } = seed("accesso", { roles: ["operatore", "responsabile", "amministratore"] }));
});

test("la pagina di accesso mostra lo stato del servizio; una password sbagliata ha un messaggio chiaro", async ({ page }) => {
  await page.setViewportSize({ width: 360, height: 760 });
  await page.goto("/");
  await expect(page).toHaveURL(/\/accesso$/);
  await expect(page.getByText("Servizio attivo")).toBeVisible();
  await snap(page, "accesso");
  await page.locator("input[name=username]").fill(users.operatore.username);
  await page.locator("input[name=password]").fill("sbagliata-del-tutto");
  await page.getByRole("button", { name: "Accedi" }).click();
  await expect(page.getByTestId("errore-accesso")).toHaveText("Nome utente o password non corretti.");
  await snap(page, "accesso-errore");
});

test("scritto prima che la pagina sia pronta: Invio non manda nulla (la password mai nell'indirizzo), il testo resta e Accedi entra", async ({
  browser,
}) => {
  const { context, page, holdScripts, mountedAndFramed } = await slowHandheld(browser);
  const release = await holdScripts();
  const requests: string[] = [];
  page.on("request", (r) => requests.push(`${r.method()} ${r.url()}`));
  await page.goto("/accesso", { waitUntil: "domcontentloaded" });
  await page.locator("input[name=username]").click();
  await page.keyboard.type(users.operatore.username, { delay: 20 });
  await page.locator("input[name=password]").click();
  await page.keyboard.type(users.operatore.password, { delay: 20 });
  await page.keyboard.press("Enter");
  await expect(page.getByRole("button", { name: "Accedi" })).toBeDisabled();
  release();
  await mountedAndFramed();
  expect(page.url()).toMatch(/\/accesso$/);
  await expect(page.locator("input[name=username]")).toHaveValue(users.operatore.username);
  await expect(page.locator("input[name=password]")).toHaveValue(users.operatore.password);
  await page.getByRole("button", { name: "Accedi" }).click();
  await page.waitForURL("**/ricevimento");
  await expect(page.getByTestId("utente-corrente")).toHaveText(users.operatore.username);
  expect(requests.filter((r) => r.includes(users.operatore.password))).toEqual([]);
  await context.close();
});

for (const role of ["operatore", "responsabile", "amministratore"] as const) {
  test(`accesso come ${role}: il ricevimento come pagina iniziale e il menu del ruolo`, async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await signIn(page, users[role]);
    await expect(page.getByTestId("utente-corrente")).toHaveText(users[role].username);
    const nav = page.locator(".mantine-AppShell-navbar");
    for (const label of NAV[role].visible) await expect(nav.getByRole("link", { name: label, exact: true })).toBeVisible();
    for (const label of NAV[role].hidden) await expect(nav.getByRole("link", { name: label, exact: true })).toHaveCount(0);
    await snap(page, `menu-${role}`);
    // The menu on a handheld: behind the burger.
    await page.setViewportSize({ width: 360, height: 760 });
    await page.getByRole("button", { name: "Menu" }).click();
    await expect(nav.getByRole("link", { name: "Ricevimento", exact: true })).toBeVisible();
    await page.waitForTimeout(400); // the menu slides in
    await page.screenshot({ path: `e2e/screenshots/menu-${role}-aperto-360.png` });
    await page.getByRole("button", { name: "Esci" }).click();
    await expect(page).toHaveURL(/\/accesso$/);
    // Signed out, a screen's address leads to sign-in, which will bring back to it.
    await page.goto("/ricevimento");
    await expect(page).toHaveURL(/\/accesso\?dopo=%2Fricevimento$/);
  });
}

test("troppi tentativi falliti: il servizio fa attendere, e dice quanto", async ({ page }) => {
  await page.goto("/accesso");
  const attempt = async () => {
    await page.locator("input[name=username]").fill("accesso-intruso");
    await page.locator("input[name=password]").fill("tentativo-a-caso");
    await page.getByRole("button", { name: "Accedi" }).click();
    await expect(page.getByTestId("errore-accesso")).toBeVisible();
    return page.getByTestId("errore-accesso").innerText();
  };
  for (let i = 0; i < 5; i++) expect(await attempt()).toBe("Nome utente o password non corretti.");
  expect(await attempt()).toMatch(/^Troppi tentativi di accesso\. Riprovare tra \d+ secondi\.$/);
  await snap(page, "accesso-troppi-tentativi");
});
