import { expect, type Page, test } from "@playwright/test";
import { api, orderRow } from "../support/api";
import { newSession, scan, shellInstalled, snap, type User } from "../support/app";
import { seedNotice, ssccSeries } from "../support/notices";
import { ean13, seed, today } from "../support/seed";

/**
 * The dock's small things, at 360 px with a keyboard-wedge scanner: one warehouse label everywhere, a dead
 * spot with no warehouse chosen, "Esci" without network, Italian dates, a misread SSCC, the received pallet's
 * card, the queue of another screen seen from putaway. Outcomes read back through /api/v1.
 */
const EAN = { UNO: ean13("805999033001"), LOTTO: ean13("805999033002"), CODA: ean13("805999033003") };
const sscc = ssccSeries("8007233");

let users: Record<"operatore" | "responsabile", User>;
let key: string;
let ordine: number;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const data = {
    magazzini: [{ codice: "DET-MI", nome: "Dettagli Milano" }],
    fornitori: [{ codice: "DET-F1", nome: "Fornitore Dettagli" }],
    articoli: [
      { codice: "DET-UNO", descrizione: "Articolo dettagli uno", ean: EAN.UNO },
      { codice: "DET-LOTTO", descrizione: "Articolo dettagli a lotti", ean: EAN.LOTTO, gestione_lotti: true },
      { codice: "DET-CODA", descrizione: "Articolo dettagli coda", ean: EAN.CODA },
    ],
    ordini: [
      {
        numero: "DET-OA-1",
        fornitore: "DET-F1",
        data: today(),
        magazzino: "DET-MI",
        righe: [
          { articolo: "DET-UNO", quantita: 50, prezzo: "1" },
          { articolo: "DET-LOTTO", quantita: 50, prezzo: "1" },
          { articolo: "DET-CODA", quantita: 50, prezzo: "1" },
        ],
      },
    ],
  };
  const s = seed("dettagli", { data, roles: ["operatore", "responsabile"] });
  ({ users, key } = s);
  ordine = (s.ids as unknown as { ordini: Record<string, number> }).ordini["DET-OA-1"]!;
  const ok = async (path: string, body: unknown) => {
    const r = await api(key, "POST", path, body);
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  };
  await ok("/ubicazioni", {
    ubicazioni: ["DET-RIC", "DET-A1"].map((codice) => ({
      magazzino: "DET-MI",
      codice,
      tipo: codice === "DET-RIC" ? "ricevimento" : "stoccaggio",
    })),
  });
  await ok("/magazzini", {
    magazzini: [{ codice: "DET-MI", nome: "Dettagli Milano", gestione_ubicazioni: true, ubicazione_ricevimento: "DET-RIC" }],
  });
  await seedNotice(key, {
    numero: "DET-AV-1",
    fornitore: "DET-F1",
    magazzino: "DET-MI",
    data_prevista: "2026-12-24",
    colli: [
      // More than the row still expects, with a lot and an expiry.
      { sscc: sscc(1), righe: [{ ordine: "DET-OA-1", numero_riga: 2, quantita: 60, lotto: "DET-L1", scadenza: "2027-11-30" }] },
      { sscc: sscc(2), righe: [{ ordine: "DET-OA-1", numero_riga: 1, quantita: 60 }] },
    ],
  });
});

async function chooseWarehouse(page: Page) {
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /DET-MI|Dettagli Milano/ }).click();
}

test("un'etichetta di magazzino, codice e nome, nel ricevimento e nello stoccaggio", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await page.getByTestId("campo-magazzino").click();
  await expect(page.getByRole("option", { name: "DET-MI — Dettagli Milano", exact: true })).toBeVisible();
  await snap(page, "ricevimento-elenco-magazzini");
  await page.keyboard.press("Escape");
  await page.goto("/stoccaggio");
  await page.getByTestId("campo-magazzino").click();
  await expect(page.getByRole("option", { name: "DET-MI — Dettagli Milano", exact: true })).toBeVisible();
  await snap(page, "stoccaggio-elenco-magazzini");
  await context.close();
});

test("senza rete e senza magazzino scelto la lettura chiede il magazzino, e nulla è registrato", async ({ browser }) => {
  const before = (await orderRow(key, ordine, "DET-UNO")).arrivata;
  const { page, context } = await newSession(browser, users.operatore);
  await page.getByTestId("campo-ddt").fill("DDT-DET-1");
  await context.setOffline(true);
  await expect(page.getByTestId("banner-offline")).toContainText("Offline");
  await scan(page, EAN.UNO);
  const esito = page.getByTestId("esito");
  await expect(esito).toContainText("scegliere prima il magazzino");
  await expect(esito).not.toContainText("di questo magazzino");
  await context.setOffline(false);
  expect((await orderRow(key, ordine, "DET-UNO")).arrivata).toBe(before);
  await context.close();
});

test("«Esci» senza rete: l'avviso non copre Esci e se ne va quando la rete torna", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await context.setOffline(true);
  const esci = page.getByRole("button", { name: "Esci" });
  await esci.click();
  const notice = page.getByText("Senza rete non è possibile uscire");
  await expect(notice).toBeVisible();
  const a = (await esci.boundingBox())!;
  const b = (await page.locator(".mantine-Notification-root").filter({ hasText: "Senza rete" }).boundingBox())!;
  const overlap = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  expect(overlap, JSON.stringify({ esci: a, avviso: b })).toBe(false);
  await snap(page, "esci-senza-rete");
  await context.setOffline(false);
  await expect(notice).toBeHidden();
  // Still signed in: nothing was ended.
  expect((await page.request.get("/api/trpc/session.me")).status()).toBe(200);
  await context.close();
});

test("un SSCC letto con la cifra di controllo sbagliata è detto SSCC da rileggere, non «non è un EAN»", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await page.getByTestId("campo-ddt").fill("DDT-DET-2");
  await chooseWarehouse(page);
  const good = sscc(1);
  const wrong = `${good.slice(0, 17)}${(Number(good.at(-1)) + 1) % 10}`;
  await scan(page, wrong);
  const esito = page.getByTestId("esito");
  await expect(esito).toContainText(`SSCC ${wrong} con cifra di controllo errata`);
  await expect(esito).not.toContainText("non è un EAN");
  await context.close();
});

test("il collo: scadenza in gg/mm/aaaa e «Errato» intero tra i motivi della differenza", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await page.getByTestId("campo-ddt").fill("DDT-DET-3");
  await chooseWarehouse(page);
  await scan(page, sscc(1));
  const card = page.getByTestId("collo");
  await expect(card).toContainText("scad. 30/11/2027");
  await expect(card).not.toContainText("2027-11-30");
  await expect(card).toContainText("il resto sarà annotato come eccedente");
  await card.getByTestId("segna-differenza").first().click();
  const errato = card.getByTestId("motivo").getByText("Errato", { exact: true });
  await expect(errato).toBeVisible();
  // Whole, and inside the row's card (which clips what overflows it).
  const label = (await errato.boundingBox())!;
  const row = (await card.locator('[data-testid^="riga-collo-"]').first().boundingBox())!;
  expect(label.x + label.width, JSON.stringify({ label, row })).toBeLessThanOrEqual(row.x + row.width - 8);
  const clipped = await errato.evaluate((el) => {
    const box = el.closest("label") ?? el;
    return box.scrollWidth > box.clientWidth + 1;
  });
  expect(clipped, "«Errato» tagliato").toBe(false);
  await snap(page, "collo-differenza");
  await context.close();
});

test("un collo già ricevuto non dice più che il resto sarà annotato come eccedente", async ({ browser }) => {
  // Received elsewhere (another handheld, here through the API), then read on this one.
  const done = await api(key, "POST", `/colli/${sscc(2)}/ricevi`, { ddt: "DDT-DET-6" });
  expect([200, 201, 409], JSON.stringify(done.body)).toContain(done.status);
  const { page, context } = await newSession(browser, users.operatore);
  await page.getByTestId("campo-ddt").fill("DDT-DET-6");
  await chooseWarehouse(page);
  await scan(page, sscc(2));
  const card = page.getByTestId("collo");
  await expect(card).toContainText("ricevuto");
  await expect(card).not.toContainText("sarà annotato come eccedente");
  await snap(page, "collo-ricevuto");
  const avvisi = (await api(key, "GET", "/avvisi-spedizione?limite=100")).body.avvisi as { colli: { sscc: string; stato: string }[] }[];
  expect(avvisi.flatMap((x) => x.colli).find((c) => c.sscc === sscc(2))?.stato).toBe("ricevuto");
  await context.close();
});

test("date italiane nello stoccaggio e negli avvisi", async ({ browser }) => {
  const dock = await newSession(browser, users.operatore);
  await dock.page.getByTestId("campo-ddt").fill("DDT-DET-4");
  await chooseWarehouse(dock.page);
  await scan(dock.page, `(01)0${EAN.LOTTO}(10)DET-L2(17)281015`);
  await expect(dock.page.getByTestId("campo-lotto")).toHaveValue("DET-L2");
  await dock.page.getByTestId("campo-quantita").fill("3");
  await dock.page.getByTestId("campo-quantita").press("Enter");
  await expect(dock.page.getByTestId("esito")).toContainText("Registrato: 3 × DET-LOTTO");
  await dock.page.goto("/stoccaggio");
  await chooseWarehouse(dock.page);
  await scan(dock.page, `(01)0${EAN.LOTTO}(10)DET-L2(17)281015`);
  const goods = dock.page.getByTestId("merce-da-stoccare");
  await expect(goods).toContainText("scadenza 15/10/2028");
  await expect(goods).not.toContainText("2028-10-15");
  await snap(dock.page, "stoccaggio-data");
  await dock.context.close();

  const boss = await newSession(browser, users.responsabile);
  await boss.page.goto("/avvisi");
  const notice = boss.page.getByTestId("avviso-DET-AV-1");
  await expect(notice).toContainText("24/12/2026");
  await expect(notice).not.toContainText("2026-12-24");
  await snap(boss.page, "avvisi-date");
  await boss.context.close();
});

test("nello stoccaggio il banner conta anche gli arrivi in coda del ricevimento e dice dove si inviano", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await page.getByTestId("campo-ddt").fill("DDT-DET-5");
  await chooseWarehouse(page);
  await shellInstalled(page);
  await expect(page.getByTestId("da-inviare")).toHaveAttribute("data-copia-righe", /^[1-9]/);
  await context.setOffline(true);
  await scan(page, EAN.CODA);
  await page.getByTestId("campo-quantita").fill("2");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("In coda: 2 × DET-CODA");
  await page.goto("/stoccaggio");
  await expect(page.getByTestId("guscio-offline")).toBeVisible();
  const banner = page.getByTestId("banner-offline");
  await expect(banner.getByTestId("in-attesa")).toContainText("1 in attesa di invio");
  await expect(banner.getByTestId("in-attesa-altrove")).toContainText("Ricevimento");
  await snap(page, "stoccaggio-coda-ricevimento");
  expect((await orderRow(key, ordine, "DET-CODA")).arrivata).toBe("0");
  await context.setOffline(false);
  // With the network back, opening the receiving bay sends it, once.
  await page.goto("/ricevimento");
  await expect.poll(async () => (await orderRow(key, ordine, "DET-CODA")).arrivata).toBe("2");
  await expect(page.getByTestId("da-inviare")).not.toContainText("Da inviare");
  await context.close();
});
