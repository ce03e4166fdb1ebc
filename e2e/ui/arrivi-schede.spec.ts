import { expect, type Page, test } from "@playwright/test";
import { api, orderRow } from "../support/api";
import { newSession, scan, snap, type User } from "../support/app";
import { ean13, seed, today } from "../support/seed";

/**
 * Today's arrivals in two tabs of one handheld's browser, at 360 px with a keyboard-wedge scanner: a
 * cancellation in one shows in the other, and cancelling what was already cancelled elsewhere says so
 * (the goal holds) instead of a refusal. Read back through /api/v1: one reversal per arrival.
 */
const EAN = { VITE: ean13("805999032001"), DADO: ean13("805999032002") };

let users: Record<"operatore", User>;
let key: string;
let ordine: number;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const data = {
    magazzini: [{ codice: "SCH-M1", nome: "Schede uno" }],
    fornitori: [{ codice: "SCH-F1", nome: "Fornitore Schede" }],
    articoli: [
      { codice: "SCH-VITE", descrizione: "Vite schede", ean: EAN.VITE, unita: "KG" },
      { codice: "SCH-DADO", descrizione: "Dado schede", ean: EAN.DADO },
    ],
    ordini: [
      {
        numero: "SCH-OA-1",
        fornitore: "SCH-F1",
        data: today(),
        magazzino: "SCH-M1",
        righe: [
          { articolo: "SCH-VITE", quantita: 50, prezzo: "1" },
          { articolo: "SCH-DADO", quantita: 50, prezzo: "1" },
        ],
      },
    ],
  };
  const s = seed("schede", { data, roles: ["operatore"] });
  users = s.users;
  key = s.key;
  ordine = (s.ids as unknown as { ordini: Record<string, number> }).ordini["SCH-OA-1"]!;
});

async function receive(page: Page, ean: string, quantity: string) {
  await scan(page, ean);
  await page.getByTestId("campo-quantita").fill(quantity);
  await page.getByTestId("campo-quantita").press("Enter");
}

/** The reversals written for an arrival (GET /movimenti, origine annullamento). */
async function reversalsOf(movimento: number) {
  const listed = await api(key, "GET", "/movimenti?origine=annullamento&limite=100");
  return (listed.body.movimenti as { annulla: number | null }[]).filter((m) => m.annulla === movimento);
}

async function prepare(page: Page, ddt: string) {
  await page.getByTestId("campo-ddt").fill(ddt);
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /SCH-M1/ }).click();
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
}

test("un annullamento fatto in un'altra scheda si vede in questa senza ricaricarla", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-SCH-1");
  await receive(page, EAN.VITE, "6");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 6 × SCH-VITE");
  const vite = (await orderRow(key, ordine, "SCH-VITE")).registrati[0]!.movimento;
  await expect(page.getByTestId(`annulla-${vite}`)).toBeVisible();

  const tab = await context.newPage();
  await tab.goto("/ricevimento");
  await tab.getByTestId("vista-arrivi").getByText("Miei").click();
  await tab.getByTestId(`annulla-${vite}`).click();
  await tab.getByTestId("conferma-annulla").click();
  await expect(tab.getByTestId("esito")).toContainText("Arrivo annullato");
  // The first tab, untouched, shows it cancelled and no longer offers Annulla.
  await expect(page.getByTestId(`arrivo-${vite}`)).toContainText("Annullato");
  await expect(page.getByTestId(`annulla-${vite}`)).toHaveCount(0);
  expect(await reversalsOf(vite)).toHaveLength(1);
  expect((await orderRow(key, ordine, "SCH-VITE")).arrivata).toBe("0");
  await context.close();
});

test("annullare un arrivo già annullato altrove dice che lo è, non un rifiuto, e l'elenco lo mostra annullato", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-SCH-2");
  await receive(page, EAN.DADO, "4");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 4 × SCH-DADO");
  const dado = (await orderRow(key, ordine, "SCH-DADO")).registrati[0]!.movimento;
  // Another device (an integrator, here) cancels it: this tab, not told, still offers Annulla.
  expect((await api(key, "POST", `/arrivi/${dado}/annulla`, {})).status).toBe(200);
  await page.getByTestId(`annulla-${dado}`).click();
  await page.getByTestId("conferma-annulla").click();
  const esito = page.getByTestId("esito");
  await expect(esito).toContainText("Arrivo già annullato");
  await expect(esito).not.toHaveAttribute("data-esito", "ko");
  await expect(esito).not.toContainText("rifiutato");
  await expect(page.getByTestId(`arrivo-${dado}`)).toContainText("Annullato");
  await snap(page, "ricevimento-arrivo-gia-annullato");
  expect(await reversalsOf(dado)).toHaveLength(1);
  expect((await orderRow(key, ordine, "SCH-DADO")).arrivata).toBe("0");
  await context.close();
});

test("il dialogo di annullamento dice la quantità con la sua unità", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-SCH-3");
  await receive(page, EAN.VITE, "2");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 2 × SCH-VITE");
  // The only arrival of this DDT, as the list has it.
  const shown = page.getByTestId("arrivi-oggi").locator('[data-testid^="arrivo-"]');
  await expect(shown).toHaveCount(1);
  const vite = Number((await shown.getAttribute("data-testid"))!.replace("arrivo-", ""));
  await page.getByTestId(`annulla-${vite}`).click();
  await expect(page.getByRole("dialog")).toContainText("2 KG × SCH-VITE");
  await snap(page, "ricevimento-annulla-unita");
  await page.getByTestId("conferma-annulla").click();
  await expect(page.getByTestId("esito")).toContainText("Arrivo annullato: 2 KG × SCH-VITE");
  expect(await reversalsOf(vite)).toHaveLength(1);
  await context.close();
});
