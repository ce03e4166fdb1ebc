import fs from "node:fs";
import path from "node:path";
import { expect, type Browser, type Page } from "@playwright/test";
import { typeAsDevice } from "./scanner";

export type Role = "operatore" | "responsabile" | "amministratore";

const SCREENSHOTS = path.resolve(import.meta.dirname, "../screenshots");

export interface User {
  username: string;
  password: string;
}

/** Signs in on /accesso (the spec's own user, see seed.ts) and lands on the receiving screen. */
export async function signIn(page: Page, user: User): Promise<void> {
  await page.goto("/accesso");
  await page.locator("input[name=username]").fill(user.username);
  await page.locator("input[name=password]").fill(user.password);
  await page.getByRole("button", { name: "Accedi" }).click();
  await page.waitForURL("**/ricevimento");
  await dockRunning(page);
}

/**
 * A dock screen running, not only drawn: the server writes its scan field with the caret in it (a scan before
 * the script runs is kept), but its lists (the warehouse) open only once the script runs.
 */
export async function dockRunning(page: Page): Promise<void> {
  const field = page.getByTestId("campo-scansione");
  await expect(field).toHaveAttribute("data-avviato", "");
  await expect(field).toBeFocused();
}

/** A fresh browser context (its own cookies) signed in as that user, at handheld width. */
export async function newSession(browser: Browser, user: User, width = 360) {
  const context = await browser.newContext({ viewport: { width, height: 760 } });
  const page = await context.newPage();
  await signIn(page, user);
  return { context, page };
}

/**
 * Screenshots of the current screen at handheld (360 px) and desktop (1280 px) width, into
 * e2e/screenshots/ (git-ignored), for a person to look at every screen.
 */
export async function snap(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const before = page.viewportSize();
  for (const [width, height] of [
    [360, 760],
    [1280, 800],
  ] as const) {
    await page.setViewportSize({ width, height });
    // From the top: a fixed header or a sticky bar is drawn where it stands, not halfway down the page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}

/** Types a code the way a keyboard-wedge scanner does: the characters 3 ms apart, then Enter (scanner.ts). */
export async function scan(page: Page, code: string): Promise<void> {
  await typeAsDevice(page, code, 3);
}

/** Stock of one article as the availability screen shows it (a responsabile's session). */
export async function stockShown(page: Page, codice: string): Promise<number> {
  await page.goto("/disponibilita");
  await page.getByTestId("campo-cerca").fill(codice);
  await expect(page.getByTestId("tabella-disponibilita").locator("tbody tr")).toHaveCount(1);
  const cell = page.getByTestId(`disponibilita-${codice}`).getByTestId("giacenza");
  await expect(cell).toBeVisible();
  return Number((await cell.innerText()).replace(",", "."));
}

/**
 * A handheld that draws a page before its scripts run: a context without the service worker (whose cache
 * would answer the scripts), at 360 px. `holdScripts()` keeps the page's scripts back until the function it
 * returns is called (they are fetched at once, so the page may go offline before that); `mountedAndFramed()`
 * then waits until React has mounted the page and run its effects (React calls DevTools' hook after each
 * commit's effects, so a stand-in hook counts them) and a frame has passed, so what an effect asked of the
 * next frame (a focus) is done.
 */
export async function slowHandheld(browser: Browser) {
  const context = await browser.newContext({ viewport: { width: 360, height: 760 }, serviceWorkers: "block" });
  const page = await context.newPage();
  await page.addInitScript(() => {
    const w = window as unknown as { __REACT_DEVTOOLS_GLOBAL_HOOK__: object; __effetti: number };
    w.__effetti = 0;
    w.__REACT_DEVTOOLS_GLOBAL_HOOK__ = {
      supportsFiber: true,
      renderers: new Map(),
      inject: () => 1,
      onCommitFiberRoot: () => {},
      onCommitFiberUnmount: () => {},
      onPostCommitFiberRoot: () => {
        w.__effetti += 1;
      },
    };
  });
  const holdScripts = async (): Promise<() => void> => {
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    // Fetched at once and answered on release: the page may have gone offline meanwhile (a dead spot).
    await page.route(/\/_next\/static\/chunks\/.*\.js/, async (route) => {
      const response = await route.fetch();
      await held;
      await route.fulfill({ response });
    });
    return release;
  };
  const mountedAndFramed = async () => {
    await page.waitForFunction(() => (window as unknown as { __effetti: number }).__effetti > 0);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(r)));
  };
  return { context, page, holdScripts, mountedAndFramed };
}

/** Online once: the service worker installed (its precache complete) and in control of the page. */
export async function shellInstalled(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
}
