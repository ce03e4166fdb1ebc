import { expect, type Locator, test } from "@playwright/test";
import { newSession, signIn, snap, type User } from "../support/app";
import { seed, seedStock, today } from "../support/seed";

/**
 * Every list at 360 px, as the role that uses it: data and actions on the screen, none cut; /movimenti
 * newest first; the small things of the handheld (deep links through sign-in, the export's scope, the
 * API key and its Copia on plain http, a screen above the role answered 403, the administrator's menu
 * on a 1280×800 desktop, dates as gg/mm/aaaa in a browser in English).
 */
let users: Record<"operatore" | "responsabile" | "amministratore", User>;
let ids: { magazzini: Record<string, number> };
test.beforeAll(async () => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  const data = {
    magazzini: [{ codice: "PAL-M1", nome: "Palmare uno" }],
    fornitori: [{ codice: "PAL-FORN", nome: "Fornitore Palmare con un nome piuttosto lungo S.r.l." }],
    clienti: [{ codice: "PAL-C1", ragione_sociale: "Cliente Palmare S.r.l.", partita_iva: "05999100023" }],
    articoli: [
      { codice: "PAL-ARTICOLO-CON-UN-CODICE-LUNGO-1", descrizione: "Articolo palmare uno" },
      { codice: "PAL-ART-2", descrizione: "Articolo palmare due" },
    ],
    ordini: [
      {
        numero: "PAL-OA-NUMERO-LUNGO-2026-000001",
        fornitore: "PAL-FORN",
        data: today(),
        magazzino: "PAL-M1",
        righe: [{ articolo: "PAL-ART-2", quantita: 5, prezzo: "1" }],
      },
    ],
  };
  const s = seed("palmare", { data, roles: ["operatore", "responsabile", "amministratore"] });
  users = s.users;
  ids = s.ids;
  // 60 movements in one go: more than a page of /movimenti.
  await seedStock(
    s.key,
    ids.magazzini["PAL-M1"]!,
    Array.from({ length: 60 }, (_, i) => ({ codice: i % 2 ? "PAL-ART-2" : "PAL-ARTICOLO-CON-UN-CODICE-LUNGO-1", quantita: i + 1 })),
  );
});

/** Whole on a 360 px screen: inside it sideways, and its text not cut by its own box. */
async function wholeAt360(locator: Locator) {
  await expect(locator).toBeVisible();
  // A list refreshed after its first paint may redraw the element: measured once it stands.
  await expect.poll(() => locator.boundingBox()).not.toBeNull();
  const box = (await locator.boundingBox())!;
  expect(box.x, await locator.innerText()).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width, await locator.innerText()).toBeLessThanOrEqual(360);
  // The element or any box inside it (a button's label clips its text in its own span).
  const cut = await locator.evaluate((el) =>
    [el, ...el.querySelectorAll("*")].some((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflow !== "visible"),
  );
  expect(cut, `${await locator.innerText()} tagliato`).toBe(false);
}

test("ordini al palmare: numero, fornitore e azioni sullo schermo", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await page.goto("/ordini");
  await page.getByTestId("cerca-ordini").fill("PAL-OA");
  const order = page.getByTestId("ordine-PAL-OA-NUMERO-LUNGO-2026-000001");
  await wholeAt360(order.getByTestId("etichette-PAL-OA-NUMERO-LUNGO-2026-000001"));
  await wholeAt360(order.getByTestId("righe-PAL-OA-NUMERO-LUNGO-2026-000001"));
  await snap(page, "ordini-palmare");
  await context.close();
});

test("movimenti al palmare: il più recente in cima, articolo e quantità sullo schermo, natura intera", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.responsabile);
  await page.goto("/movimenti");
  const rows = page.getByTestId("tabella-movimenti").locator("tbody tr");
  await expect(rows).toHaveCount(50);
  const idsShown = async () =>
    (await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-testid")))).map((t) => Number(t!.split("-")[1]));
  const first = await idsShown();
  expect(first).toEqual([...first].sort((a, b) => b - a));
  // The newest of all: the last of the 60 written above (or one written after them).
  const newest = await page.evaluate(async () => {
    let dopo = 0;
    let last = 0;
    for (;;) {
      const input = encodeURIComponent(JSON.stringify({ limite: "100", dopo: String(dopo) }));
      const page = (await (await fetch(`/api/trpc/movements.list?input=${input}`)).json()).result.data;
      if (page.movimenti.length) last = page.movimenti.at(-1).id;
      if (!page.altri) return last;
      dopo = page.cursore;
    }
  });
  expect(first[0]).toBe(newest);
  const top = rows.first();
  await wholeAt360(top.locator("td").nth(5));
  await wholeAt360(top.locator("td").nth(6));
  await wholeAt360(top.getByTestId("natura"));
  await snap(page, "movimenti-palmare");
  // Older pages go on where this one ends.
  await page.getByTestId("pagina-successiva").click();
  await expect(page.getByTestId("pagina")).toContainText("Pagina 2");
  await expect.poll(async () => (await idsShown())[0]).toBeLessThan(first.at(-1)!);
  const second = await idsShown();
  expect(second).toEqual([...second].sort((a, b) => b - a));
  await page.getByTestId("pagina-precedente").click();
  await expect.poll(async () => (await idsShown())[0]).toBe(first[0]);
  // At 1280 px the badges of old are words, whole.
  await page.setViewportSize({ width: 1280, height: 800 });
  for (const cell of await page.getByTestId("natura").all()) {
    expect(await cell.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  }
  await context.close();
});

test("documenti di vendita al palmare: numero, tipo intero, cliente e totale", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.responsabile, 1280);
  // A fattura of the spec's client, issued on the screen.
  await page.goto("/vendite/nuovo");
  await page.getByText("Fattura", { exact: true }).click();
  await page.getByTestId("campo-cliente").fill("05999100023");
  await page.getByRole("option", { name: /Cliente Palmare/ }).click();
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /PAL-M1/ }).click();
  await page.getByTestId("riga-0-articolo").fill("PAL-ART-2");
  await page.getByTestId("riga-0-quantita").fill("1");
  await page.getByTestId("riga-0-prezzo").fill("2,50");
  await page.getByTestId("emetti-documento").click();
  await expect(page.getByTestId("documento-creato")).toContainText("fattura");
  await page.setViewportSize({ width: 360, height: 760 });
  await page.goto("/vendite");
  // Newest first: the fattura just issued is the top card.
  const row = page.locator("[data-testid^=documento-]").first();
  await expect(row).toContainText("Cliente Palmare");
  await wholeAt360(row.getByTestId("tipo"));
  await expect(row.getByTestId("tipo")).toHaveText(/fattura/i);
  await wholeAt360(row.locator("td").nth(5));
  // The pager's words whole, side by side in half the width each.
  for (const button of ["pagina-precedente", "pagina-successiva"]) {
    await wholeAt360(page.getByTestId(button).locator(".mantine-Button-label"));
  }
  await snap(page, "vendite-palmare");
  await context.close();
});

test("inventario al palmare: l'anteprima mostra attuale, contato, differenza ed esito", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.responsabile);
  await page.goto("/inventario");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /PAL-M1/ }).click();
  await page.getByText("Incolla", { exact: true }).click();
  await page.getByTestId("campo-testo").fill("codice;contato\nPAL-ART-2;7\nPAL-NON-ESISTE;1");
  await page.getByTestId("anteprima").click();
  const table = page.getByTestId("tabella-allineamento");
  const row = table.locator("tbody tr").first();
  await expect(row).toContainText("PAL-ART-2");
  for (const i of [3, 4, 5, 6]) await wholeAt360(row.locator("td").nth(i));
  await snap(page, "inventario-anteprima-palmare");
  await context.close();
});

test("utenti e chiavi API al palmare: azioni sullo schermo; la chiave intera, Copia anche su http", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.amministratore);
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.goto("/utenti");
  const me = page.getByTestId(`utente-${users.amministratore.username}`);
  await wholeAt360(me.getByRole("button", { name: "Password" }));
  await wholeAt360(me.getByRole("button", { name: "Disattiva" }));
  await snap(page, "utenti-palmare");

  // A LAN deployment on plain http: no Clipboard API in the page.
  await page.addInitScript(() => Object.defineProperty(window, "isSecureContext", { value: false }));
  await page.goto("/chiavi-api");
  await wholeAt360(page.getByTestId("chiave-palmare").getByRole("button", { name: "Revoca" }));
  await page.getByTestId("nuova-chiave").click();
  await page.getByTestId("campo-nome-chiave").fill("palmare-copia");
  await page.getByTestId("crea-chiave").click();
  const shown = page.getByTestId("chiave-creata");
  const created = (await shown.innerText()).replace(/\s/g, "");
  expect(created).toMatch(/^bnc_[0-9a-f]{8}_/);
  const box = (await shown.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(360);
  expect(await shown.evaluate((el) => el.scrollWidth <= el.clientWidth + 1)).toBe(true);
  await page.getByRole("dialog").getByTestId("copia").click();
  await expect(page.getByRole("dialog").getByTestId("copia")).toHaveText("Copiata");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(created);
  await snap(page, "chiave-creata-palmare");
  await context.close();
});

test("palmare condiviso: chi ha la sessione aperta si vede, nome e ruolo, senza togliere posto al resto dell'intestazione", async ({
  browser,
}) => {
  for (const role of ["operatore", "amministratore"] as const) {
    const { page, context } = await newSession(browser, users[role]);
    const header = page.locator("header");
    const who = header.getByTestId("utente");
    await expect(who.getByTestId("utente-corrente")).toBeVisible();
    await expect(who.getByTestId("utente-corrente")).toHaveText(users[role].username);
    await expect(who.getByTestId("ruolo-corrente")).toBeVisible();
    await expect(who.getByTestId("ruolo-corrente")).toHaveText(role);
    // Between the menu's burger and Esci, each whole, inside the header and the 360 px.
    const burger = (await header.getByRole("button", { name: "Menu" }).boundingBox())!;
    const user = (await who.boundingBox())!;
    const signOut = header.getByRole("button", { name: "Esci" });
    await wholeAt360(signOut);
    await wholeAt360(who.getByTestId("ruolo-corrente"));
    const exit = (await signOut.boundingBox())!;
    const bar = (await header.boundingBox())!;
    expect(burger.x + burger.width).toBeLessThanOrEqual(user.x);
    expect(user.x + user.width).toBeLessThanOrEqual(exit.x);
    expect(user.y).toBeGreaterThanOrEqual(bar.y);
    expect(user.y + user.height).toBeLessThanOrEqual(bar.y + bar.height);
    // Room for a name of twenty letters and more; the start of a longer one (whole in its title).
    expect(user.width).toBeGreaterThanOrEqual(180);
    await expect(who.getByTestId("utente-corrente")).toHaveAttribute("title", users[role].username);
    await snap(page, `utente-corrente-${role}`);
    await context.close();
  }
});

test("un indirizzo aperto senza sessione riporta lì dopo l'accesso", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 360, height: 760 } });
  const page = await context.newPage();
  await page.goto("/inventario");
  await expect(page).toHaveURL(/\/accesso\?dopo=%2Finventario$/);
  await page.locator("input[name=username]").fill(users.operatore.username);
  await page.locator("input[name=password]").fill(users.operatore.password);
  await page.getByRole("button", { name: "Accedi" }).click();
  await page.waitForURL("**/inventario");
  await expect(page.getByRole("heading", { level: 2 })).toContainText("Inventario");
  await context.close();
});

test("una pagina oltre il ruolo risponde 403 e non è nel menu", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore, 1280);
  const menu = page.getByTestId("menu");
  for (const label of ["Disponibilità", "Movimenti", "Utenti", "Chiavi API", "Webhook"])
    await expect(menu.getByRole("link", { name: label, exact: true })).toHaveCount(0);
  for (const path of ["/utenti", "/disponibilita", "/movimenti/nuovo", "/webhook"]) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(403);
    await expect(page.getByTestId("accesso-negato")).toContainText("ruolo operatore");
  }
  await snap(page, "accesso-negato-403");
  await context.close();
});

test("il menu dell'amministratore sta tutto in 1280×800", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.amministratore, 1280);
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.getByTestId("menu").getByRole("link", { name: "Webhook", exact: true })).toBeInViewport({ ratio: 1 });
  await page.screenshot({ path: "e2e/screenshots/menu-amministratore-1280.png" });
  await context.close();
});

test("disponibilità: il pulsante dice che cosa esporta", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.responsabile);
  await page.goto("/disponibilita");
  await expect(page.getByTestId("esporta")).toHaveText("Esporta tutto in CSV");
  await expect(page.getByTestId("ambito-esportazione")).toContainText("tutto il catalogo");
  await page.getByTestId("campo-cerca").fill("pal-art");
  await expect(page.getByTestId("esporta")).toHaveText("Esporta in CSV, filtrato");
  await expect(page.getByTestId("ambito-esportazione")).toContainText('solo gli articoli con "pal-art"');
  await wholeAt360(page.getByTestId("esporta"));
  await wholeAt360(page.getByTestId("disponibilita-PAL-ARTICOLO-CON-UN-CODICE-LUNGO-1"));
  await snap(page, "disponibilita-esporta-filtri");
  await context.close();
});

test("date in italiano (gg/mm/aaaa) anche in un browser in inglese", async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 360, height: 760 }, locale: "en-US" });
  const page = await context.newPage();
  await signIn(page, users.responsabile);
  await page.goto("/movimenti");
  const from = page.getByTestId("campo-da");
  await expect(from).toHaveAttribute("placeholder", "gg/mm/aaaa");
  const listed = page.waitForRequest(
    (r) => r.url().includes("movements.newest") && decodeURIComponent(r.url()).includes('"da":"2026-02-01"'),
  );
  await from.fill("01/02/2026");
  await listed;
  await page.keyboard.press("Tab");
  await expect(from).toHaveValue("01/02/2026");
  await from.click();
  await expect(page.locator("[data-dates-dropdown]")).toContainText("febbraio");
  await snap(page, "date-italiano");
  await context.close();
});
