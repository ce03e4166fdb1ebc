import { expect, type Page, test } from "@playwright/test";
import { newSession, shellInstalled, signIn, snap, type User } from "../support/app";
import { seed } from "../support/seed";

/**
 * Dead spots: the receiving screens open without the service once the handheld has been
 * online signed in (the service worker's shell, src/ui/offline/), the shell keeps nobody's data, a request
 * that never answers ends in 8 s with its own message, and sign-out wipes the user's data on the handheld.
 */
let users: Record<"operatore", User>;
test.beforeAll(() => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  users = seed("offline", { roles: ["operatore"] }).users;
});

/** Everything the page's origin holds in Cache Storage: each entry's URL and body. */
function cachedEntries(page: Page): Promise<{ url: string; body: string }[]> {
  return page.evaluate(async () => {
    const out: { url: string; body: string }[] = [];
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const req of await cache.keys()) out.push({ url: req.url, body: await (await cache.match(req))!.text() });
    }
    return out;
  });
}

function databases(page: Page): Promise<string[]> {
  return page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name ?? ""));
}

test("senza rete il ricevimento si apre dal guscio, anche ricaricando e in una pagina nuova; il guscio non tiene dati dell'utente; con la rete di nuovo scrive", async ({
  browser,
}) => {
  const { context, page } = await newSession(browser, users.operatore);
  await shellInstalled(page);
  // What the service put in the signed-in page, which the shell must not hold.
  const signedInHtml = await (await page.request.get("/ricevimento")).text();
  const csrf = /csrf\\?"\s*:\s*\\?"([^"\\]+)/.exec(signedInHtml)?.[1];
  expect(csrf, "il token CSRF nella pagina firmata").toBeTruthy();
  expect(signedInHtml).toContain(users.operatore.username);

  await context.setOffline(true);
  await page.reload();
  await expect(page.getByTestId("guscio-offline")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Ricevimento" })).toBeVisible();
  await expect(page.getByTestId("banner-offline")).toContainText("Offline");
  await expect(page.getByTestId("campo-scansione")).toBeVisible();
  await snap(page, "offline-ricevimento");

  const other = await context.newPage();
  await other.setViewportSize({ width: 360, height: 740 });
  await other.goto("/ricevimento/fornitore");
  await expect(other.getByTestId("guscio-offline")).toBeVisible();
  await expect(other.getByRole("heading", { name: "Ricevimento per fornitore" })).toBeVisible();
  await expect(other.getByTestId("banner-offline")).toBeVisible();

  // A screen of the administrator (and one the operator may not open at all): not offline.
  await other.goto("/utenti");
  await expect(other.getByTestId("non-disponibile-offline")).toBeVisible();
  await expect(other.getByTestId("non-disponibile-offline")).toContainText("non è disponibile senza rete");
  await snap(other, "offline-non-disponibile");

  const cached = await cachedEntries(page);
  expect(cached.some((c) => new URL(c.url).pathname === "/offline")).toBe(true);
  expect(cached.some((c) => new URL(c.url).pathname.startsWith("/_next/static/"))).toBe(true);
  // Only the shell and the build's files: no screen of a user, no answer of the API.
  for (const c of cached) expect(new URL(c.url).pathname).toMatch(/^\/(offline|_next\/static\/.+)$/);
  for (const c of cached) {
    expect(c.body, c.url).not.toContain(users.operatore.username);
    expect(c.body, c.url).not.toContain(csrf!);
  }
  // The role is in the code (the menu's rules), never in the page the shell is.
  const shell = cached.find((c) => new URL(c.url).pathname === "/offline")!.body;
  expect(shell).not.toMatch(/operatore|ruolo|csrf/);

  // The network is back, the shell still on screen: a write needs the session's CSRF token, which the shell
  // reads from the service. Signing out is such a write: the session is over on the service afterwards.
  const sessionRead = page.waitForResponse((r) => r.url().includes("/api/trpc/session.me"));
  await context.setOffline(false);
  const read = await sessionRead;
  expect(read.status()).toBe(200);
  await read.finished();
  await expect(page.getByTestId("banner-offline")).toBeHidden();
  await expect(page.getByTestId("guscio-offline")).toBeVisible();
  await page.getByRole("button", { name: "Esci" }).click();
  await page.waitForURL("**/accesso**");
  await page.goto("/ricevimento");
  await expect(page).toHaveURL(/\/accesso\?dopo=/);
  await context.close();
});

test("una chiamata senza risposta si ferma in 8 s con il suo messaggio; un punto morto accende il banner; senza rete fallisce subito", async ({
  browser,
}) => {
  // Without the worker: the routes below must see every request of the page.
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, serviceWorkers: "block" });
  const page = await context.newPage();
  await signIn(page, users.operatore);
  await page.goto("/articoli");
  await expect(page.getByTestId("tabella-articoli")).toBeVisible();

  // A service that takes the request and never answers.
  await page.route("**/api/trpc/**", () => {});
  await page.getByTestId("cerca-articoli").fill("NESSUNA-RISPOSTA");
  await expect(page.getByText("Nessuna risposta dal servizio in 8 s")).toBeVisible({ timeout: 30_000 });
  await page.unroute("**/api/trpc/**");
  // The service answered /api/health meanwhile: no banner for a slow call alone.
  await expect(page.getByTestId("banner-offline")).toBeHidden();

  // A dead spot the browser does not notice (still "online"): requests fail, and so does /api/health.
  await page.route("**/api/{trpc/**,health}", (route) => route.abort("connectionrefused"));
  await page.getByTestId("cerca-articoli").fill("PUNTO-MORTO");
  await expect(page.getByTestId("banner-offline")).toContainText("Offline");
  expect(await page.evaluate(() => navigator.onLine)).toBe(true);
  // Back in reach: the banner goes at the next look at /api/health.
  await page.unroute("**/api/{trpc/**,health}");
  await expect(page.getByTestId("banner-offline")).toBeHidden({ timeout: 20_000 });

  await context.setOffline(true);
  await expect(page.getByTestId("banner-offline")).toContainText("Offline");
  await page.getByTestId("cerca-articoli").fill("SENZA-RETE");
  await expect(page.getByText("Offline: il palmare non è collegato alla rete.")).toBeVisible();
  await context.close();
});

test("uscire cancella dal palmare i dati dell'utente e l'utente memorizzato", async ({ browser }) => {
  const { context, page } = await newSession(browser, users.operatore);
  await expect.poll(async () => (await currentUserOnDevice(page))?.username).toBe(users.operatore.username);
  const name = `banchina-utente-${(await currentUserOnDevice(page))!.id}`;
  // The user's database as a screen leaves it (src/ui/offline/local-db.ts), with something queued in it.
  await page.evaluate(async (name) => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      // No version: the screens may have opened it already at theirs (local-db.ts); new, it gets its queue.
      const r = indexedDB.open(name);
      r.onupgradeneeded = () => r.result.createObjectStore("coda");
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    await new Promise((resolve) => {
      const tx = db.transaction("coda", "readwrite");
      tx.objectStore("coda").put({ quantita: 3 }, 1);
      tx.oncomplete = resolve;
    });
    db.close();
  }, name);
  expect(await databases(page)).toContain(name);

  await page.getByRole("button", { name: "Esci" }).click();
  await page.waitForURL("**/accesso**");
  expect(await databases(page)).not.toContain(name);
  expect(await currentUserOnDevice(page)).toBeUndefined();
  await context.close();
});

/** The handheld's signed-in user as the offline shell reads it (database banchina-palmare, src/ui/offline/local-db.ts). */
function currentUserOnDevice(page: Page): Promise<{ id: number; username: string } | undefined> {
  return page.evaluate(async () => {
    // Opening a database that does not exist would create it, empty, under the app's feet.
    if (!(await indexedDB.databases()).some((d) => d.name === "banchina-palmare")) return undefined;
    return new Promise<{ id: number; username: string } | undefined>((resolve, reject) => {
      const r = indexedDB.open("banchina-palmare");
      r.onerror = () => reject(r.error);
      r.onsuccess = () => {
        const db = r.result;
        if (!db.objectStoreNames.contains("utente")) {
          db.close();
          return resolve(undefined);
        }
        const get = db.transaction("utente").objectStore("utente").get("corrente");
        get.onsuccess = () => {
          db.close();
          resolve(get.result as { id: number; username: string } | undefined);
        };
      };
    });
  });
}
