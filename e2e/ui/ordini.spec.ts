import { expect, type Page, test } from "@playwright/test";
import { newSession, snap, type User } from "../support/app";
import { typeAsDevice } from "../support/scanner";
import { ean13, seed, today } from "../support/seed";

// The spec's own warehouse, articles, supplier and order; part of one row arrives by REST before the screen opens.
let users: Record<"operatore" | "responsabile", User>;
const NUMERO = "ORD-OA-1";
/** A second order, of the tape only: the searches by the gloves' EAN and by its row label must tell them apart. */
const NUMERO_2 = "ORD-OA-2";
const EAN_GUANTI = ean13("805999009001");
const EAN_NASTRO = ean13("805999009002");
let righe: { numero_riga: number; riga: number; articolo: { codice: string } }[];
let righe2: { riga: number }[];

const scan = (page: Page, code: string) => typeAsDevice(page, code, 3);

test.beforeAll(async () => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  const data = {
    magazzini: [{ codice: "ORD-M1", nome: "Ordini uno" }],
    articoli: [
      { codice: "ORD-GUANTO-NITRILE-M", descrizione: "Guanti in nitrile taglia M, scatola da 100", ean: EAN_GUANTI },
      { codice: "ORD-NASTRO-PACCHI-50", descrizione: "Nastro adesivo per pacchi 50 mm × 66 m", ean: EAN_NASTRO },
    ],
    fornitori: [{ codice: "ORD-FORN", nome: "Forniture Industriali Ordini S.r.l." }],
    ordini: [
      {
        numero: NUMERO,
        fornitore: "ORD-FORN",
        data: today(),
        magazzino: "ORD-M1",
        righe: [
          { articolo: "ORD-GUANTO-NITRILE-M", quantita: 10, prezzo: "7.9" },
          { articolo: "ORD-NASTRO-PACCHI-50", quantita: 24, prezzo: "1.35" },
        ],
      },
      {
        numero: NUMERO_2,
        fornitore: "ORD-FORN",
        data: today(),
        magazzino: "ORD-M1",
        righe: [{ articolo: "ORD-NASTRO-PACCHI-50", quantita: 12, prezzo: "1.35" }],
      },
    ],
  };
  const { ids, key, users: u } = seed("ordini", { data, roles: ["operatore", "responsabile"] });
  users = u;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`http://127.0.0.1:${process.env.BANCHINA_E2E_PORT}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    });
  const listed = await (await api(`/ordini-acquisto?cerca=${NUMERO}`)).json();
  righe = listed.ordini[0].righe;
  righe2 = (await (await api(`/ordini-acquisto?cerca=${NUMERO_2}`)).json()).ordini[0].righe;
  // 4 of the 10 gloves arrived: 6 remain, which the supplier will not deliver.
  const arrived = await api("/arrivi", {
    method: "POST",
    body: JSON.stringify({ magazzino: ids.magazzini["ORD-M1"], ddt: "DDT-ORD-1", riga: righe[0]!.riga, quantita: 4 }),
  });
  expect(arrived.status, await arrived.text()).toBe(201);
});

test("un operatore vede l'ordine con le righe e gli arrivi, senza l'azione di chiusura", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore, 360);
  await page.goto("/ordini");
  await page.getByTestId("cerca-ordini").fill(NUMERO);
  await page.getByTestId(`righe-${NUMERO}`).click();
  const first = page.getByTestId(`riga-${righe[0]!.numero_riga}`);
  await expect(first).toContainText("ORD-GUANTO-NITRILE-M");
  await expect(first.getByTestId(`arrivata-${righe[0]!.numero_riga}`)).toHaveText("4");
  await expect(first.getByTestId(`arrivi-${righe[0]!.numero_riga}`)).toContainText("4");
  await expect(page.getByTestId(`chiudi-${righe[0]!.numero_riga}`)).toHaveCount(0);
  await context.close();
});

test("un responsabile chiude il residuo di una riga: la riga mostra la quantità chiusa e il motivo", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.responsabile, 360);
  await page.goto("/ordini");
  await expect(page.getByRole("heading", { name: "Ordini d'acquisto" })).toBeVisible();
  await page.getByTestId("cerca-ordini").fill(NUMERO);
  await page.getByTestId(`righe-${NUMERO}`).click();
  const n = righe[0]!.numero_riga;
  const row = page.getByTestId(`riga-${n}`);
  await expect(row.getByTestId(`residua-${n}`)).toHaveText("6");
  await row.getByTestId(`chiudi-${n}`).click();
  await page.getByTestId("motivo-chiusura").fill("Taglia M non più disponibile dal fornitore");
  await snap(page, "ordini-chiudi-residuo");

  const sent = page.waitForRequest("**/api/trpc/orders.close*");
  await page.getByTestId("conferma-chiusura").click();
  expect(await (await sent).headerValue("idempotency-key")).toBeTruthy();
  await expect(page.getByTestId("conferma-chiusura")).toHaveCount(0);
  await expect(row.getByTestId(`chiusa-${n}`)).toHaveText("6");
  await expect(row.getByTestId(`residua-${n}`)).toHaveText("0");
  await expect(row.getByTestId(`motivo-${n}`)).toContainText("Taglia M non più disponibile dal fornitore");
  await expect(row.getByTestId(`chiudi-${n}`)).toHaveCount(0);
  // The other row is still expected, and can still be closed.
  await expect(page.getByTestId(`chiudi-${righe[1]!.numero_riga}`)).toBeVisible();
  await expect(page.getByTestId(`ordine-${NUMERO}`)).toContainText("Parziale");
  await snap(page, "ordini");
  await context.close();
});

test("articoli e fornitori: ricerca per codice", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore, 360);
  await page.goto("/articoli");
  await page.getByTestId("cerca-articoli").fill("ORD-");
  await expect(page.getByTestId("tabella-articoli").locator("tbody tr")).toHaveCount(2);
  await page.getByTestId("articolo-ORD-GUANTO-NITRILE-M").click();
  await expect(page.getByTestId("dettaglio-ORD-GUANTO-NITRILE-M")).toContainText(ean13("805999009001"));
  await snap(page, "articoli");
  await page.goto("/fornitori");
  await page.getByTestId("cerca-fornitori").fill("ord-forn");
  await expect(page.getByTestId("fornitore-ORD-FORN")).toContainText("Forniture Industriali Ordini S.r.l.");
  await snap(page, "fornitori");
  await context.close();
});

test("ordini: il lettore cerca per EAN di un articolo e per etichetta R della riga, anche sopra un testo già scritto", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore, 360);
  await page.goto("/ordini");
  const field = page.getByTestId("cerca-ordini");
  const listed = page.getByTestId("tabella-ordini").locator(":scope > [data-testid^='ordine-']");
  await field.click();
  await typeAsDevice(page, "zzz", 150, false); // a person, no Enter
  await expect(page.getByText("Nessun ordine con questi filtri.")).toBeVisible();

  // A scan over that text searches the code alone: both orders have the tape.
  await scan(page, EAN_NASTRO);
  await expect(field).toHaveValue(EAN_NASTRO);
  await expect(page.getByTestId(`ordine-${NUMERO}`)).toBeVisible();
  await expect(page.getByTestId(`ordine-${NUMERO_2}`)).toBeVisible();
  await expect(listed).toHaveCount(2);

  // Enter leaves the code selected: the next scan replaces it. Only the first order has the gloves.
  await scan(page, EAN_GUANTI);
  await expect(field).toHaveValue(EAN_GUANTI);
  await expect(listed).toHaveCount(1);
  await expect(page.getByTestId(`ordine-${NUMERO}`)).toBeVisible();

  // A row label finds the order the service says holds that row (GET /ordini-acquisto, read in beforeAll).
  await scan(page, `R${righe2[0]!.riga}`);
  await expect(field).toHaveValue(`R${righe2[0]!.riga}`);
  await expect(listed).toHaveCount(1);
  await expect(page.getByTestId(`ordine-${NUMERO_2}`)).toBeVisible();
  await snap(page, "ordini-cerca-etichetta");
  await scan(page, `R${righe[1]!.riga}`);
  await expect(listed).toHaveCount(1);
  await expect(page.getByTestId(`ordine-${NUMERO}`)).toBeVisible();
  await context.close();
});

test("articoli: il lettore cerca per EAN e per codice GS1 con il GTIN", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore, 360);
  await page.goto("/articoli");
  const field = page.getByTestId("cerca-articoli");
  const rows = page.getByTestId("tabella-articoli").locator("tbody tr");
  await field.click();
  await scan(page, EAN_NASTRO);
  await expect(field).toHaveValue(EAN_NASTRO);
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId("articolo-ORD-NASTRO-PACCHI-50")).toBeVisible();
  // GS1 as a scanner types it after Enter: it replaces the EAN; the GTIN-14 names the gloves.
  const gs1 = `(01)0${EAN_GUANTI}(10)L2611`;
  await scan(page, gs1);
  await expect(field).toHaveValue(gs1);
  await expect(rows).toHaveCount(1);
  await page.getByTestId("articolo-ORD-GUANTO-NITRILE-M").click();
  await expect(page.getByTestId("dettaglio-ORD-GUANTO-NITRILE-M")).toContainText(EAN_GUANTI);
  await snap(page, "articoli-cerca-ean");
  await context.close();
});
