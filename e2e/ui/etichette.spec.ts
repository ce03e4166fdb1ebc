import net from "node:net";
import { expect, type Page, test } from "@playwright/test";
import { newSession, scan, snap, type User } from "../support/app";
import { api } from "../support/api";
import { ean13, seed, today } from "../support/seed";

// Labels at receipt (docs/api.md section 13): an administrator registers a printer on /stampanti (a TCP listener on
// loopback stands in for the dock's Zebra); an operator receives a lot article and prints its label from the
// receiving screen, with one tap and then by itself. Checked by the bytes the printer received and GET /stampe/{id}.

const EAN = ean13("805999026001");
let users: Record<"operatore" | "amministratore", User>;
let key: string;
const received: { at: number; zpl: string }[] = [];
let printer: net.Server;
let port: number;

test.beforeAll(async () => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  printer = net.createServer((socket) => {
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("end", () => {
      received.push({ at: Date.now(), zpl: Buffer.concat(chunks).toString() });
      socket.end();
    });
  });
  await new Promise<void>((r) => printer.listen(0, "127.0.0.1", r));
  port = (printer.address() as net.AddressInfo).port;
  const data = {
    magazzini: [{ codice: "ETI-M1", nome: "Etichette uno" }],
    fornitori: [{ codice: "ETI-FORN", nome: "Forniture Etichette S.r.l." }],
    articoli: [{ codice: "ETI-PASTA", descrizione: "Pasta etichette 500 g", ean: EAN, gestione_lotti: true }],
    ordini: [
      {
        numero: "ETI-OA-1",
        fornitore: "ETI-FORN",
        data: today(),
        magazzino: "ETI-M1",
        righe: [{ articolo: "ETI-PASTA", quantita: 100, prezzo: "0.8" }],
      },
    ],
  };
  ({ key, users } = seed("etichette", { data, roles: ["operatore", "amministratore"] }));
});

test.afterAll(async () => {
  await new Promise<void>((r) => printer.close(() => r()));
});

async function waitForLabels(n: number) {
  await expect.poll(() => received.length, { timeout: 15_000 }).toBe(n);
}

async function jobOf(page: Page): Promise<number> {
  const status = page.getByTestId("stato-stampa");
  await expect(status).toBeVisible();
  return Number(await status.getAttribute("data-stampa"));
}

test("l'amministratore aggiunge la stampante; l'operatore riceve un lotto e ne stampa l'etichetta, poi in automatico", async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const admin = await newSession(browser, users.amministratore, 1280);
  await admin.page.goto("/stampanti");
  await admin.page.getByTestId("stampante-nome").fill("Banchina E2E");
  await admin.page.getByTestId("stampante-indirizzo").fill(`127.0.0.1:${port}`);
  await admin.page.getByTestId("aggiungi-stampante").click();
  await expect(admin.page.getByText(`127.0.0.1:${port}`).first()).toBeVisible();
  const listed = (await api(key, "GET", "/stampanti")).body.stampanti.find((p: { nome: string }) => p.nome === "Banchina E2E");
  expect(listed).toMatchObject({ indirizzo: `127.0.0.1:${port}`, dimensione: "100x50" });
  await snap(admin.page, "stampanti");

  const { page, context } = await newSession(browser, users.operatore);
  await page.getByTestId("campo-ddt").fill("DDT-ETI-1");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /ETI-M1/ }).click();
  await page.getByTestId("stampante-etichette").click();
  await page.getByRole("option", { name: /Banchina E2E/ }).click();
  await page.getByTestId("campo-scansione").focus();

  // One tap: the label of the lot just received.
  await scan(page, `(01)0${EAN}(10)P26-77(17)271130`);
  await expect(page.getByTestId("campo-lotto")).toHaveValue("P26-77");
  await page.getByTestId("campo-quantita").fill("24");
  await page.getByTestId("registra").click();
  await expect(page.getByTestId("esito")).toContainText("Registrato: 24 × ETI-PASTA");
  await page.getByTestId("stampa-etichetta").click();
  await waitForLabels(1);
  expect(received[0]!.zpl).toMatch(/^\^XA\n/);
  expect(received[0]!.zpl).toContain(`^FD>;>8010${EAN}172711303024>810>6P26-77^FS`);
  const first = await jobOf(page);
  await expect.poll(async () => (await api(key, "GET", `/stampe/${first}`)).body.stato).toBe("stampata");
  await expect(page.getByTestId("stato-stampa")).toContainText("Stampata");
  await snap(page, "ricevimento-etichetta");

  // The device prints by itself: Enter on the next lot arrival, and the printer has its label.
  await page.getByTestId("stampa-automatica").check();
  await page.getByTestId("campo-scansione").focus();
  await scan(page, `(01)0${EAN}(10)P26-78(17)271231`);
  await expect(page.getByTestId("campo-lotto")).toHaveValue("P26-78");
  await page.getByTestId("campo-quantita").fill("12");
  await page.getByTestId("campo-scansione").focus();
  const enter = Date.now();
  await page.keyboard.press("Enter");
  await waitForLabels(2);
  console.log(`Dall'Invio sull'arrivo all'etichetta ricevuta dalla stampante: ${received[1]!.at - enter} ms`);
  expect(received[1]!.zpl).toContain("10>6P26-78^FS");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 12 × ETI-PASTA");
  const second = await jobOf(page);
  expect(second).not.toBe(first);
  await expect.poll(async () => (await api(key, "GET", `/stampe/${second}`)).body.stato).toBe("stampata");

  // Reprint from today's arrivals: a third label, the same lot.
  const arrivals = page.getByTestId("arrivi-oggi");
  await arrivals.getByRole("button", { name: "Etichetta" }).first().click();
  await waitForLabels(3);
  expect(received[2]!.zpl).toContain("10>6P26-78^FS");
  await context.close();
  await admin.context.close();
});

test("l'amministratore modifica l'indirizzo di una stampante e la disattiva, a 360 e a 1280 px", async ({ browser }) => {
  test.setTimeout(120_000);
  for (const width of [360, 1280] as const) {
    const nome = `PRN-TEST-MOD-${width}`;
    const admin = await newSession(browser, users.amministratore, width);
    const { page } = admin;
    await page.goto("/stampanti");
    await page.getByTestId("stampante-nome").fill(nome);
    await page.getByTestId("stampante-indirizzo").fill("127.0.0.1:9301");
    await page.getByTestId("aggiungi-stampante").click();
    const listed = async () => (await api(key, "GET", "/stampanti")).body.stampanti.find((p: { nome: string }) => p.nome === nome);
    await expect.poll(async () => (await listed())?.indirizzo).toBe("127.0.0.1:9301");
    const row = page.getByTestId(`stampante-${(await listed()).id}`);

    await row.getByTestId("modifica-stampante").click();
    await page.getByTestId("modifica-indirizzo").fill("127.0.0.1:9302");
    if (width === 360) await snap(page, "stampanti-modifica"); // snap draws 360 and 1280
    await page.getByTestId("salva-stampante").click();
    await expect(row).toContainText("127.0.0.1:9302");
    expect(await listed()).toMatchObject({ indirizzo: "127.0.0.1:9302", attiva: true });
    // The administrative log on the same screen names the old and the new address.
    await expect(page.getByText("indirizzo 127.0.0.1:9301 → 127.0.0.1:9302").first()).toBeVisible();

    await row.getByTestId("modifica-stampante").click();
    await page.getByTestId("attiva-stampante").click();
    await expect(row.getByTestId("stato-stampante")).toHaveText("disattivata");
    expect(await listed()).toMatchObject({ attiva: false });
    if (width === 1280) await snap(page, "stampanti-disattivata");
    await admin.context.close();
  }
});
