import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { newSession, signIn, snap, type User } from "../support/app";
import { seed, seedStock } from "../support/seed";

/**
 * The webhook screen (docs/api.md section 10): an administrator registers an endpoint on a small receiver of the
 * spec's own (on 127.0.0.1: the service runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, see playwright.config.ts),
 * sees the secret once, and follows a stock movement written through REST to the receiver: refused once
 * (503, the answer on the screen), delivered at the retry, replayed from its sequence; then disables it.
 */

interface Received {
  headers: Record<string, string>;
  body: string;
  /** When the receiver got it (ms). */
  at: number;
}

const received: Received[] = [];
let receiver: http.Server;
let url: string;
let users: Record<"amministratore" | "responsabile", User>;
let key: string;
let warehouse: number;

test.beforeAll(async () => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  receiver = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      received.push({ headers: req.headers as Record<string, string>, body, at: Date.now() });
      // The first delivery finds the receiver down for maintenance: it is retried.
      if (received.length === 1) {
        res.writeHead(503, { "content-type": "text/plain" }).end("Gestionale in manutenzione, riprovare più tardi");
      } else res.writeHead(200, { "content-type": "text/plain" }).end("ricevuto");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/banchina/eventi`;
  const seeded = seed("webhook", {
    data: {
      magazzini: [{ codice: "WH-M1", nome: "Webhook uno" }],
      articoli: [{ codice: "WH-VITE-M6", descrizione: "Vite webhook M6" }],
    },
    roles: ["amministratore", "responsabile"],
  });
  users = seeded.users;
  key = seeded.key;
  warehouse = seeded.ids.magazzini["WH-M1"]!;
});

test.afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

/** A time the screen shows (gg/mm/aaaa hh:mm[:ss]) as a count of ms, to compare two of them. */
function shownMs(text: string): number {
  const m = /(\d{2})\/(\d{2})\/(\d{4}),? (\d{2}):(\d{2})(?::(\d{2}))?/.exec(text);
  if (!m) throw new Error(`nessun orario in «${text}»`);
  const [, d, mo, y, h, mi, s] = m.map(Number) as number[];
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, Number.isNaN(s) ? 0 : s!);
}

/** An instant as the clock of the service's zone (SERVICE_TIME_ZONE's default, Europe/Rome) reads it, in the same count. */
function romeMs(at: number): number {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", {
      timeZone: "Europe/Rome",
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    })
      .formatToParts(at)
      .map((x) => [x.type, Number(x.value)]),
  );
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
}

/** The events the receiver accepted or refused, parsed. */
const events = () =>
  received.map(
    (r) =>
      JSON.parse(r.body) as {
        id: string;
        sequenza: number;
        tipo: string;
        dati: { movimenti: { articolo: { codice: string }; quantita: string }[] };
      },
  );

test("webhook: creato con il segreto mostrato una volta, consegna di un movimento, riconsegna, disattivazione", async ({ browser }) => {
  test.setTimeout(120_000);
  // A browser in another zone than the service's: every time on the screen is still the service's.
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: "America/New_York" });
  const page = await context.newPage();
  await signIn(page, users.amministratore);
  await page.getByRole("link", { name: "Webhook" }).click();
  await expect(page).toHaveURL(/\/webhook$/);

  await page.getByTestId("nuovo-webhook").click();
  await page.getByTestId("campo-url-webhook").fill(url);
  await page.getByRole("checkbox", { name: /movimenti\.registrati/ }).check();
  await page.getByTestId("campo-descrizione-webhook").fill("Gestionale di prova");
  await snap(page, "webhook-nuovo");
  await page.getByTestId("crea-webhook").click();
  const secret = (await page.getByTestId("segreto-creato").innerText()).trim();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
  await expect(page.getByRole("dialog", { name: "Webhook creato" })).toContainText("È mostrato solo ora");
  await snap(page, "webhook-segreto");
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("segreto-creato")).toHaveCount(0);
  // Shown once: nowhere on the screen, not even after a reload.
  await page.reload();
  const card = page.locator("[data-testid^=webhook-]").filter({ hasText: url });
  await expect(card).toHaveCount(1);
  await expect(page.locator("body")).not.toContainText(secret);
  await expect(card.getByTestId("stato-webhook")).toHaveText("attivo");
  await expect(card).toContainText("Gestionale di prova");
  await expect(card).toContainText("movimenti.registrati");
  await expect(card.getByTestId("ultimo-successo")).toHaveText("—");

  // A load through REST: its event goes to the receiver, refused once (503), delivered at the retry.
  await seedStock(key, warehouse, [{ codice: "WH-VITE-M6", quantita: 12 }]);
  await expect.poll(() => received.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
  const [first, second] = received;
  expect(first!.headers["webhook-id"]).toBe(second!.headers["webhook-id"]);
  const event = new Webhook(secret).verify(second!.body, second!.headers) as { tipo: string; sequenza: number };
  expect(event.tipo).toBe("movimenti.registrati");
  expect(events()[1]!.dati.movimenti[0]).toMatchObject({ articolo: { codice: "WH-VITE-M6" }, quantita: "12" });

  // The screen follows by itself (it asks again every few seconds).
  await expect(card.getByTestId("ultimo-successo")).not.toHaveText("—", { timeout: 15_000 });
  await expect(card.getByTestId("in-attesa")).toHaveText("0");
  await expect(card.getByTestId("fallite")).toHaveText("0");
  await expect(card.getByTestId("ultimo-errore")).toContainText("HTTP 503 · rifiutato");
  await expect(card.getByTestId("ultimo-errore")).toContainText("Gestionale in manutenzione");

  await card.getByTestId("dettagli-webhook").click();
  const delivery = card.getByTestId(`consegna-${event.sequenza}`);
  await expect(delivery).toContainText("consegnata");
  await expect(delivery).toContainText("movimenti.registrati");
  const attempts = card.getByTestId("tentativi-webhook").locator("[data-testid^=tentativo-]");
  await expect(attempts).toHaveCount(2);
  await expect(attempts.nth(0)).toContainText("HTTP 200 · consegnato");
  await expect(card.getByTestId("tentativi-webhook")).toContainText("ricevuto");
  await expect(attempts.nth(1)).toContainText("HTTP 503 · rifiutato");
  // The delivering attempt and its delivery in one zone, the service's: the attempt (to the second) began
  // just before the receiver got the event, and the delivery concluded within that minute or the next.
  const attemptAt = shownMs(await attempts.nth(0).getByTestId("quando-tentativo").innerText());
  const deliveredAt = shownMs(await delivery.getByTestId("quando-consegna").innerText());
  expect(Math.abs(attemptAt - romeMs(second!.at)), "tentativo nel fuso del servizio").toBeLessThan(60_000);
  expect(deliveredAt - (attemptAt - (attemptAt % 60_000)), "consegna e tentativo nello stesso fuso").toBeGreaterThanOrEqual(0);
  expect(deliveredAt - attemptAt, "consegna e tentativo nello stesso fuso").toBeLessThan(60_000);
  // The last failure's time, on the card, in the same zone as the attempt that failed.
  const failedAt = shownMs(await attempts.nth(1).getByTestId("quando-tentativo").innerText());
  await expect(card.getByTestId("ultimo-errore")).toContainText(await attempts.nth(1).getByTestId("quando-tentativo").innerText());
  expect(Math.abs(failedAt - romeMs(first!.at))).toBeLessThan(60_000);
  await snap(page, "webhook");

  // Replay from the event's sequence: the receiver gets it again, with the same webhook-id.
  await card.getByTestId("riconsegna-da").click();
  await page.getByTestId("campo-sequenza").fill("zero");
  await page.getByTestId("conferma-riconsegna").click();
  await expect(page.getByRole("dialog", { name: "Riconsegna dalla sequenza" })).toContainText("Un numero intero maggiore di zero");
  await page.getByTestId("campo-sequenza").fill(String(event.sequenza));
  await page.getByTestId("conferma-riconsegna").click();
  await expect(page.getByText("1 evento sarà riconsegnato")).toBeVisible();
  await expect.poll(() => received.length, { timeout: 15_000 }).toBe(3);
  expect(received[2]!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
  await expect(attempts).toHaveCount(3, { timeout: 15_000 });

  // Disabled: a new movement's event is not sent.
  await card.getByTestId("attiva-webhook").click();
  await expect(card.getByTestId("stato-webhook")).toHaveText("disattivato");
  await expect(card.getByTestId("attiva-webhook")).toHaveText("Riattiva");
  await seedStock(key, warehouse, [{ codice: "WH-VITE-M6", quantita: 1 }]);
  await page.waitForTimeout(2_000);
  expect(received).toHaveLength(3);
  await snap(page, "webhook-disattivato");
  await context.close();
});

test("webhook: la pagina è riservata all'amministratore", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.responsabile, 360);
  await page.goto("/webhook");
  await expect(page.getByTestId("accesso-negato")).toBeVisible();
  await expect(page.getByRole("link", { name: "Webhook" })).toHaveCount(0);
  await context.close();
});
