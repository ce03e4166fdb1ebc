import { expect, type Page, test } from "@playwright/test";
import { orderRow } from "../support/api";
import { dockRunning, newSession, scan, shellInstalled, type User } from "../support/app";
import { ean13, seed, today } from "../support/seed";

/**
 * The network back after the page was reopened offline (the service worker's shell), at 360 px with a
 * keyboard-wedge scanner: the queue goes at once, each row once, and the lists are read again then.
 */
const EAN = { UNO: ean13("805999034001"), DUE: ean13("805999034002"), TRE: ean13("805999034003") };

let users: Record<"operatore", User>;
let key: string;
let ordine: number;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const data = {
    magazzini: [{ codice: "RIC-M1", nome: "Riconnessione uno" }],
    fornitori: [{ codice: "RIC-F1", nome: "Fornitore Riconnessione" }],
    articoli: [
      { codice: "RIC-UNO", descrizione: "Articolo riconnessione uno", ean: EAN.UNO },
      { codice: "RIC-DUE", descrizione: "Articolo riconnessione due", ean: EAN.DUE },
      { codice: "RIC-TRE", descrizione: "Articolo riconnessione tre", ean: EAN.TRE },
    ],
    ordini: [
      {
        numero: "RIC-OA-1",
        fornitore: "RIC-F1",
        data: today(),
        magazzino: "RIC-M1",
        righe: [
          { articolo: "RIC-UNO", quantita: 50, prezzo: "1" },
          { articolo: "RIC-DUE", quantita: 50, prezzo: "1" },
          { articolo: "RIC-TRE", quantita: 50, prezzo: "1" },
        ],
      },
    ],
  };
  const s = seed("riconnessione", { data, roles: ["operatore"] });
  users = s.users;
  key = s.key;
  ordine = (s.ids as unknown as { ordini: Record<string, number> }).ordini["RIC-OA-1"]!;
});

/**
 * From the next page load on, repeating timers of a second or more never fire (the queue's retry pass among
 * them): what happens is what the network's return and the operator's actions cause, on any machine.
 */
async function withoutRetryTimer(page: Page) {
  await page.addInitScript(() => {
    const setEvery = window.setInterval.bind(window);
    window.setInterval = ((handler: TimerHandler, ms?: number, ...args: unknown[]) =>
      (ms ?? 0) >= 1_000 ? 0 : setEvery(handler, ms, ...args)) as typeof window.setInterval;
  });
}

async function register(page: Page, quantity: string) {
  await page.getByTestId("campo-quantita").fill(quantity);
  await page.getByTestId("campo-quantita").press("Enter");
}

test("pagina riaperta senza rete: al ritorno della rete la coda parte subito, nessuna riga da verificare, gli arrivi di oggi riletti", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await page.getByTestId("campo-ddt").fill("DDT-RICONN-1");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /RIC-M1/ }).click();
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  await shellInstalled(page);
  await expect(page.getByTestId("da-inviare")).toHaveAttribute("data-copia-righe", /^[1-9]/);
  // In the reopened page the queue's retry timer never fires: only the network's return can send the queue,
  // so the test cannot pass on a timer that happened to fire, however slow the machine.
  await withoutRetryTimer(page);
  await context.setOffline(true);
  await scan(page, EAN.UNO);
  await register(page, "3");
  await expect(page.getByTestId("esito")).toContainText("In coda: 3 × RIC-UNO");
  await scan(page, EAN.DUE);
  await register(page, "4");
  await expect(page.getByTestId("esito")).toContainText("In coda: 4 × RIC-DUE");
  await expect(page.getByTestId("da-inviare")).toContainText("Da inviare (2)");
  // Nothing left on screen to be taken up again after the reload.
  await expect(page.getByTestId("riga-attesa")).toHaveCount(0);

  await page.reload();
  await expect(page.getByTestId("guscio-offline")).toBeVisible();
  await expect(page.getByTestId("da-inviare")).toContainText("Da inviare (2)");
  await expect(page.getByTestId("arrivi-oggi")).toContainText("il servizio non risponde");
  const settles: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("idempotency.settle")) settles.push(r.url());
  });
  // The session's token (the shell holds none) comes back only after the queue's pass has begun, as on a
  // handheld whose first answers are slow: the pass must wait for it, not fail its first row.
  let giveToken = () => {};
  const tokenHeld = new Promise<void>((r) => {
    giveToken = r;
  });
  await page.route("**/api/trpc/session.me*", async (route) => {
    const response = await route.fetch();
    await tokenHeld;
    await route.fulfill({ response });
  });
  await context.setOffline(false);
  // Not an assertion on time: only an order of events. The pass starts within a frame of the browser's
  // "online"; the token is held well past that.
  await page.waitForTimeout(1_000);
  giveToken();
  await expect(page.getByTestId("da-inviare")).not.toContainText("Da inviare");
  expect((await orderRow(key, ordine, "RIC-UNO")).arrivata).toBe("3");
  expect((await orderRow(key, ordine, "RIC-DUE")).arrivata).toBe("4");
  // Each row went once, on its own key: none was left "to verify".
  expect(settles).toEqual([]);
  await expect(page.getByTestId("esito")).toContainText("Inviati dalla coda: 2 arrivi");
  // Today's arrivals read again once the queue went: both there, no "the service does not answer".
  const list = page.getByTestId("arrivi-oggi");
  await expect(list).toContainText("RIC-UNO");
  await expect(list).toContainText("RIC-DUE");
  await expect(list).not.toContainText("il servizio non risponde");
  await context.close();
});

test("una riga della coda scritta con la risposta persa, poi verificata: detta verificata, non inviata", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await withoutRetryTimer(page);
  await page.reload();
  await dockRunning(page);
  await page.getByTestId("campo-ddt").fill("DDT-RICONN-2");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /RIC-M1/ }).click();
  await expect(page.getByTestId("da-inviare")).toHaveAttribute("data-copia-righe", /^[1-9]/);
  await context.setOffline(true);
  await expect(page.getByTestId("banner-offline")).toContainText("Offline");
  await scan(page, EAN.TRE);
  await register(page, "5");
  await expect(page.getByTestId("esito")).toContainText("In coda: 5 × RIC-TRE");
  const row = await orderRow(key, ordine, "RIC-TRE");
  // Back online, the queue's send reaches the service and is written; its answer is lost on the way back.
  const REGISTER = "**/api/trpc/arrivals.register*";
  await page.route(REGISTER, async (route) => {
    await route.fetch();
    await route.abort("failed");
  });
  await context.setOffline(false);
  await expect(page.getByTestId(`coda-${row.riga}`)).toHaveAttribute("data-stato", "incerto");
  expect((await orderRow(key, ordine, "RIC-TRE")).arrivata).toBe("5");
  await page.unroute(REGISTER);
  // The next pass settles its key: it had run. Said as verified, not as sent.
  await context.setOffline(true);
  await expect(page.getByTestId("banner-offline")).toContainText("Offline");
  await context.setOffline(false);
  await expect(page.getByTestId("da-inviare")).not.toContainText("Da inviare");
  const esito = page.getByTestId("esito");
  await expect(esito).toContainText("Verificato dalla coda: 1 arrivo, già scritto dal servizio");
  await expect(esito).not.toContainText("Inviati");
  expect((await orderRow(key, ordine, "RIC-TRE")).arrivata).toBe("5");
  await context.close();
});
