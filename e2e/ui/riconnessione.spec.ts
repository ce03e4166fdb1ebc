import { expect, type Page, test } from "@playwright/test";
import { orderRow } from "../support/api";
import { newSession, scan, shellInstalled, type User } from "../support/app";
import { ean13, seed, today } from "../support/seed";

/**
 * The network back after the page was reopened offline (the service worker's shell), at 360 px with a
 * keyboard-wedge scanner: the queue goes at once, each row once, and the lists are read again then.
 */
const EAN = { UNO: ean13("805999030001"), DUE: ean13("805999030002") };

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
        ],
      },
    ],
  };
  const s = seed("riconnessione", { data, roles: ["operatore"] });
  users = s.users;
  key = s.key;
  ordine = (s.ids as unknown as { ordini: Record<string, number> }).ordini["RIC-OA-1"]!;
});

async function register(page: Page, quantity: string) {
  await page.getByTestId("campo-quantita").fill(quantity);
  await page.getByTestId("campo-quantita").press("Enter");
}

test("pagina riaperta senza rete: al ritorno della rete la coda parte subito, nessuna riga da verificare, gli arrivi di oggi riletti", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await page.getByTestId("campo-ddt").fill("DDT-RIC-1");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /RIC-M1/ }).click();
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  await shellInstalled(page);
  await expect(page.getByTestId("da-inviare")).toHaveAttribute("data-copia-righe", /^[1-9]/);
  // In the reopened page the queue's retry timer never fires: only the network's return can send the queue,
  // so the test cannot pass on a timer that happened to fire, however slow the machine.
  await page.addInitScript(() => {
    const setEvery = window.setInterval.bind(window);
    window.setInterval = ((handler: TimerHandler, ms?: number, ...args: unknown[]) =>
      (ms ?? 0) >= 1_000 ? 0 : setEvery(handler, ms, ...args)) as typeof window.setInterval;
  });
  await context.setOffline(true);
  await scan(page, EAN.UNO);
  await register(page, "3");
  await expect(page.getByTestId("esito")).toContainText("In coda: 3 × RIC-UNO");
  await scan(page, EAN.DUE);
  await register(page, "4");
  await expect(page.getByTestId("da-inviare")).toContainText("Da inviare (2)");

  await page.reload();
  await expect(page.getByTestId("guscio-offline")).toBeVisible();
  await expect(page.getByTestId("da-inviare")).toContainText("Da inviare (2)");
  await expect(page.getByTestId("arrivi-oggi")).toContainText("il servizio non risponde");
  const settles: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("idempotency.settle")) settles.push(r.url());
  });
  await context.setOffline(false);
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
