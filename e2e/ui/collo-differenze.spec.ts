import { expect, type Page, test } from "@playwright/test";
import { api } from "../support/api";
import { dockRunning, newSession, scan, snap, type User } from "../support/app";
import { seedNotice, ssccSeries } from "../support/notices";
import { ean13, seed, today } from "../support/seed";

/**
 * The pallet card at 360 px with a keyboard-wedge scanner (docs/api.md sections 5 and 12): a difference typed is
 * never lost, the caret comes back to the scan field after every action, a pallet received meanwhile by
 * another handheld is said as a refusal with who received it, one card at a time, and counting past the
 * residual registers the remainder with the rest recorded as `eccedente`. Every outcome checked through /api/v1.
 */

const sscc = ssccSeries("8011400");
const EAN = { F: ean13("801140000016"), G: ean13("801140000017"), H: ean13("801140000018"), I: ean13("801140000019") };

let users: Record<"operatore", User>;
let key: string;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const letters = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J"] as const;
  const data = {
    magazzini: [{ codice: "CD-M1", nome: "Banchina differenze" }],
    fornitori: [{ codice: "CD-F1", nome: "Fornitore Differenze" }],
    articoli: letters.map((a) => ({
      codice: `CD-${a}`,
      descrizione: `Articolo differenze ${a}`,
      ...(a in EAN ? { ean: EAN[a as keyof typeof EAN] } : {}),
    })),
    ordini: [
      {
        numero: "CD-OA-1",
        fornitore: "CD-F1",
        data: today(),
        magazzino: "CD-M1",
        righe: letters.map((a) => ({ articolo: `CD-${a}`, quantita: a === "H" ? 2 : 50, prezzo: "1" })),
      },
    ],
  };
  ({ key, users } = seed("collo-differenze", { data, roles: ["operatore"] }));
  await seedNotice(key, {
    numero: "CD-AV-1",
    fornitore: "CD-F1",
    magazzino: "CD-M1",
    colli: [1, 2, 3, 4, 5, 10].map((k) => ({ sscc: sscc(k), righe: [{ ordine: "CD-OA-1", numero_riga: k, quantita: 10 }] })),
  });
});

/** What arrived on the order's rows, by article code (GET /ordini-acquisto). */
async function arrived(codice: string): Promise<string> {
  const o = (await api(key, "GET", "/ordini-acquisto?cerca=CD-OA-1")).body.ordini[0];
  return o.righe.find((r: { articolo: { codice: string } }) => r.articolo.codice === codice).arrivata;
}

interface Difference {
  sscc: string | null;
  quantita: string;
  motivo: string;
  nota: string | null;
  ricevuta: string;
  articolo: { codice: string };
}

/** The receiving differences recorded for one article (GET /differenze-ricevimento). */
async function differencesOf(codice: string): Promise<Difference[]> {
  const all = (await api(key, "GET", "/differenze-ricevimento?limite=100")).body.differenze as Difference[];
  return all.filter((d) => d.articolo.codice === codice);
}

async function prepare(page: Page, ddt: string) {
  await page.goto("/ricevimento");
  await dockRunning(page);
  await page.getByTestId("campo-ddt").fill(ddt);
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /CD-M1/ }).click();
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
}

test("Invio nella nota salva la differenza; Invio riceve il collo con la mancanza dichiarata", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-CD-1");
  await scan(page, `(00)${sscc(1)}`);
  const pallet = page.getByTestId("collo");
  await expect(pallet.getByTestId("riga-collo-0")).toContainText("CD-A");
  await pallet.getByTestId("segna-differenza").click();
  await pallet.getByTestId("motivo").getByText("Manca").click();
  await pallet.getByTestId("quantita-differenza").fill("2");
  await pallet.getByLabel("Nota").fill("due cartoni vuoti");
  await pallet.getByLabel("Nota").press("Enter");
  await expect(pallet.getByTestId("differenza-segnata")).toHaveText(/mancante 2/);
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByText(/Collo \d+ ricevuto: 1 riga registrata, 1 differenza annotata/)).toBeVisible();

  expect(await arrived("CD-A")).toBe("8");
  expect(await differencesOf("CD-A")).toEqual([
    expect.objectContaining({ sscc: sscc(1), motivo: "mancante", quantita: "2", nota: "due cartoni vuoti", ricevuta: "8" }),
  ]);
  await context.close();
});

test("una differenza scritta e non salvata: Ricevi collo la prende; non valida, chiede e non riceve nulla", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-CD-2");
  await scan(page, `(00)${sscc(2)}`);
  const pallet = page.getByTestId("collo");
  await expect(pallet.getByTestId("riga-collo-0")).toContainText("CD-B");
  await pallet.getByTestId("segna-differenza").click();
  await pallet.getByTestId("motivo").getByText("Manca").click();
  // More than the pallet's row brings: the receipt asks, and receives nothing.
  await pallet.getByTestId("quantita-differenza").fill("30");
  await pallet.getByTestId("ricevi-collo").click();
  await expect(page.getByTestId("esito").filter({ hasText: /Differenza della riga 1 da completare/ })).toHaveAttribute("data-esito", "ko");
  expect(await arrived("CD-B")).toBe("0");
  await expect(pallet.getByTestId("quantita-differenza")).toBeFocused();
  await snap(page, "collo-differenza-da-completare");

  await pallet.getByTestId("quantita-differenza").fill("3");
  await pallet.getByTestId("ricevi-collo").click();
  await expect(page.getByText(/Collo \d+ ricevuto: 1 riga registrata, 1 differenza annotata/)).toBeVisible();
  expect(await arrived("CD-B")).toBe("7");
  expect(await differencesOf("CD-B")).toEqual([expect.objectContaining({ sscc: sscc(2), motivo: "mancante", quantita: "3" })]);
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  await context.close();
});

test("dopo Salva, Annulla e Chiudi il cursore torna al campo di scansione: Invio riceve il collo", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-CD-3");
  await scan(page, `(00)${sscc(3)}`);
  const pallet = page.getByTestId("collo");
  await expect(pallet.getByTestId("riga-collo-0")).toContainText("CD-C");
  await pallet.getByTestId("segna-differenza").click();
  await expect(pallet.getByTestId("quantita-differenza")).toBeFocused();
  await pallet.getByRole("button", { name: "Annulla" }).click();
  await expect(page.getByTestId("campo-scansione")).toBeFocused();

  await pallet.getByTestId("segna-differenza").click();
  await pallet.getByTestId("quantita-differenza").fill("1");
  await pallet.getByTestId("salva-differenza").click();
  await expect(pallet.getByTestId("differenza-segnata")).toHaveText(/danneggiato 1/);
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  await page.getByRole("button", { name: "Chiudi senza ricevere" }).click();
  await expect(pallet).toHaveCount(0);
  await expect(page.getByTestId("campo-scansione")).toBeFocused();

  await scan(page, `(00)${sscc(3)}`);
  await pallet.getByTestId("segna-differenza").click();
  await pallet.getByTestId("quantita-differenza").fill("1");
  await pallet.getByTestId("salva-differenza").click();
  await page.keyboard.press("Enter");
  await expect(page.getByText(/Collo \d+ ricevuto: 1 riga registrata, 1 differenza annotata/)).toBeVisible();
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  expect(await arrived("CD-C")).toBe("9");
  await context.close();
});

test("un collo ricevuto intanto da un altro palmare: il rifiuto dice chi, con quale DDT e quando; le differenze segnate restano, non registrate", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-CD-4");
  await scan(page, `(00)${sscc(4)}`);
  const pallet = page.getByTestId("collo");
  await expect(pallet.getByTestId("riga-collo-0")).toContainText("CD-D");
  await pallet.getByTestId("segna-differenza").click();
  await pallet.getByTestId("motivo").getByText("Manca").click();
  await pallet.getByTestId("quantita-differenza").fill("2");
  await pallet.getByTestId("salva-differenza").click();

  // The other handheld is first.
  expect((await api(key, "POST", `/colli/${sscc(4)}/ricevi`, { ddt: "DDT-ALTRO-4" })).status).toBe(200);
  const found = await api(key, "POST", "/arrivi/cerca", { barcode: sscc(4) });
  const ricevuto = found.body.collo.ricevuto as { da: string; ddt: string; il: string };
  expect(ricevuto).toMatchObject({ ddt: "DDT-ALTRO-4" });

  await page.keyboard.press("Enter");
  const refusal = page.getByTestId("esito").filter({ hasText: /già ricevuto/ });
  await expect(refusal).toHaveAttribute("data-esito", "ko");
  await expect(refusal).toHaveAttribute("role", "alert");
  await expect(refusal).toContainText(ricevuto.da);
  await expect(refusal).toContainText("DDT-ALTRO-4");
  await expect(pallet.getByTestId("stato-collo")).toHaveText(/ricevuto/i);
  await expect(pallet.getByTestId("ricevi-collo")).toHaveCount(0);
  await expect(pallet.getByTestId("differenza-segnata")).toHaveText(/mancante 2/);
  await expect(pallet.getByTestId("differenze-non-registrate")).toContainText("non sono registrate");
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  await snap(page, "collo-gia-ricevuto");

  // One receipt, the other's: the whole pallet arrived, the shortage marked here was recorded nowhere.
  expect(await arrived("CD-D")).toBe("10");
  expect(await differencesOf("CD-D")).toEqual([]);
  // Enter again does not try again.
  await page.keyboard.press("Enter");
  expect(await arrived("CD-D")).toBe("10");
  await context.close();
});

test("un EAN letto con un collo aperto: una scheda alla volta, Invio agisce su quella mostrata", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-CD-5");
  await scan(page, `(00)${sscc(5)}`);
  const pallet = page.getByTestId("collo");
  await expect(pallet.getByTestId("riga-collo-0")).toContainText("CD-E");

  // Nothing marked on the pallet: the article read last is the card shown, Enter registers it.
  await scan(page, EAN.F);
  await expect(page.getByTestId("riga-attesa")).toContainText("CD-F");
  await expect(pallet).toHaveCount(0);
  await page.getByTestId("campo-scansione").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText(/Registrato: 50 × CD-F/)).toBeVisible();
  expect(await arrived("CD-F")).toBe("50");
  expect(await arrived("CD-E")).toBe("0");

  // A difference marked on the pallet: the article waits for it, and the screen says Enter receives the pallet.
  await scan(page, `(00)${sscc(5)}`);
  await pallet.getByTestId("segna-differenza").click();
  await pallet.getByTestId("quantita-differenza").fill("1");
  await pallet.getByTestId("salva-differenza").click();
  await scan(page, EAN.G);
  await expect(page.getByTestId("riga-attesa")).toHaveCount(0);
  await expect(pallet.getByTestId("codici-dopo-collo")).toContainText(EAN.G);
  await snap(page, "collo-codice-in-attesa");
  await page.keyboard.press("Enter");
  await expect(page.getByText(/Collo \d+ ricevuto: 1 riga registrata, 1 differenza annotata/)).toBeVisible();
  expect(await arrived("CD-E")).toBe("9");
  await expect(page.getByTestId("riga-attesa")).toContainText("CD-G");
  await expect(pallet).toHaveCount(0);
  expect(await arrived("CD-G")).toBe("0");
  await context.close();
});

test("un SSCC letto con una riga mostrata: la riga contata è registrata prima, poi si vede solo il collo", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-CD-6");
  await scan(page, EAN.I);
  await scan(page, EAN.I);
  await expect(page.getByTestId("stato-quantita")).toContainText("Contati 2");
  await scan(page, `(00)${sscc(10)}`);
  const pallet = page.getByTestId("collo");
  await expect(pallet.getByTestId("riga-collo-0")).toContainText("CD-J");
  await expect(page.getByTestId("riga-attesa")).toHaveCount(0);
  expect(await arrived("CD-I")).toBe("2");
  // Enter receives the pallet, the one card shown.
  await page.getByTestId("campo-scansione").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText(/Collo \d+ ricevuto: 1 riga registrata/)).toBeVisible();
  expect(await arrived("CD-J")).toBe("10");
  expect(await arrived("CD-I")).toBe("2");
  await context.close();
});

test("contati oltre il residuo: Invio registra il residuo e annota il resto come eccedente", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-CD-8");
  for (let i = 0; i < 4; i++) await scan(page, EAN.H);
  await expect(page.getByTestId("esito")).toContainText("Contati 4");
  await expect(page.getByTestId("esito")).toContainText(/registra 2.*2.*eccedent/);
  await snap(page, "conta-oltre-residuo");
  await page.getByTestId("campo-scansione").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("esito")).toContainText(/Registrato: 2 × CD-H/);
  await expect(page.getByTestId("esito")).toContainText(/eccedent/);

  expect(await arrived("CD-H")).toBe("2");
  expect(await differencesOf("CD-H")).toEqual([expect.objectContaining({ motivo: "eccedente", quantita: "2", ricevuta: "2" })]);
  await context.close();
});
