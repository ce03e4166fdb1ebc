import { expect, type Page, test } from "@playwright/test";
import { newSession, snap, type User } from "../support/app";
import { api } from "../support/api";
import { type ImportedIds, seed, seedStock } from "../support/seed";

// The manual movement screen in a warehouse person's words: an unload or a transfer of a lot article takes
// its lot from the open lots of the warehouse the goods leave; a load takes a typed lot and expiry. Every
// outcome is read back through the API (lots, movements).
let users: Record<"responsabile", User>;
let ids: ImportedIds;
let key: string;

/** The open lots of an article in a warehouse, as GET /articoli/{id}/lotti has them: code → [residual, expiry]. */
async function lotsOf(codice: string, magazzino: string) {
  const { body } = await api(key, "GET", `/articoli/${ids.articoli[codice]}/lotti?magazzino=${ids.magazzini[magazzino]}`);
  return Object.fromEntries(
    (body.lotti as { lotto: string; residua: string; scadenza: string | null }[]).map((l) => [l.lotto, [l.residua, l.scadenza]]),
  );
}

/** The movements of one operation. */
async function operation(n: number) {
  return (await api(key, "GET", `/movimenti?operazione=${n}`)).body.movimenti as {
    origine: string;
    quantita: string;
    lotto: string | null;
    magazzino: number;
    articolo: { codice: string };
  }[];
}

test.beforeAll(async () => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  const data = {
    magazzini: [
      { codice: "MOV-M1", nome: "Movimenti uno" },
      { codice: "MOV-M2", nome: "Movimenti due" },
    ],
    articoli: [
      { codice: "MOV-LATTE", descrizione: "Latte movimenti 1 l", gestione_lotti: true },
      { codice: "MOV-NASTRO", descrizione: "Nastro movimenti 50 m" },
    ],
  };
  ({ ids, key, users } = seed("movimenti", { data, roles: ["responsabile"] }));
  await seedStock(key, ids.magazzini["MOV-M1"]!, [
    { codice: "MOV-LATTE", quantita: 5, lotto: "L-A", scadenza: "2027-01-31" },
    { codice: "MOV-LATTE", quantita: 12, lotto: "L-B", scadenza: "2027-06-30" },
    { codice: "MOV-NASTRO", quantita: 20 },
  ]);
});

async function choose(page: Page, testId: string, option: RegExp) {
  await page.getByTestId(testId).click();
  await page.getByRole("option", { name: option }).click();
}

/** The operation number the result's heading names. */
async function operationShown(page: Page): Promise<number> {
  const title = await page.getByTestId("esito-movimento").locator(".mantine-Alert-title").innerText();
  return Number(/operazione (\d+)/.exec(title)![1]);
}

test("scarico di un articolo a lotti: il lotto si sceglie tra quelli aperti del magazzino, con residuo e scadenza", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.responsabile, 360);
  await page.goto("/movimenti/nuovo");
  await page.getByTestId("campo-natura").getByText("Scarico").click();
  await choose(page, "campo-magazzino", /MOV-M1/);
  await page.getByTestId("riga-0-articolo").fill("mov-latte");
  await expect(page.getByTestId("riga-0")).toContainText("MOV-LATTE · gestito a lotti");
  await page.getByTestId("riga-0-lotto").click();
  const options = page.getByRole("option");
  await expect(options).toHaveText(["L-A · residuo 5 · scad. 31/01/2027", "L-B · residuo 12 · scad. 30/06/2027"]);
  await options.filter({ hasText: "L-B" }).click();
  await page.getByTestId("riga-0-quantita").fill("3");
  await snap(page, "movimento-scarico-lotto");
  await page.getByTestId("registra-movimento").click();

  const result = page.getByTestId("esito-movimento");
  await expect(result).toContainText("Scarico registrato: operazione");
  await expect(result).toContainText("3 × MOV-LATTE, lotto L-B, da MOV-M1");
  await expect(result).not.toContainText("righe scritte");
  await expect(result).not.toContainText("—");
  await snap(page, "movimento-scarico-registrato");

  // The unload took the chosen lot, and only it.
  expect(await lotsOf("MOV-LATTE", "MOV-M1")).toEqual({ "L-A": ["5", "2027-01-31"], "L-B": ["9", "2027-06-30"] });
  const written = await operation(await operationShown(page));
  expect(written).toEqual([
    expect.objectContaining({
      origine: "schermo",
      quantita: "-3",
      lotto: "L-B",
      articolo: expect.objectContaining({ codice: "MOV-LATTE" }),
    }),
  ]);
  await context.close();
});

test("messaggi in parole: lotto mancante, lotto insufficiente; la riga scritta lascia il modulo e non si scrive due volte", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.responsabile, 360);
  await page.goto("/movimenti/nuovo");
  await page.getByTestId("campo-natura").getByText("Scarico").click();
  await choose(page, "campo-magazzino", /MOV-M1/);
  await page.getByTestId("riga-0-articolo").fill("MOV-NASTRO");
  await page.getByTestId("riga-0-quantita").fill("2");
  await page.getByRole("button", { name: "Aggiungi riga" }).click();
  await page.getByTestId("riga-1-articolo").fill("MOV-LATTE");
  await page.getByTestId("riga-1-quantita").fill("7");
  await expect(page.getByTestId("riga-1-lotto")).toBeVisible();

  // No lot chosen: the form says what to do, nothing is sent.
  await page.getByTestId("registra-movimento").click();
  await expect(page.getByTestId("problema-riga-1")).toHaveText("MOV-LATTE è gestito a lotti: scegliere il lotto da cui prelevare.");
  await expect(page.getByTestId("errore-movimento")).toContainText("correggere le righe segnate in rosso");
  expect(await lotsOf("MOV-LATTE", "MOV-M1")).toMatchObject({ "L-A": ["5", "2027-01-31"] });

  // L-A has 5: the service refuses that row, in words; the other row is written.
  await page.getByTestId("riga-1-lotto").click();
  await page.getByRole("option", { name: /^L-A/ }).click();
  await page.getByTestId("registra-movimento").click();
  const result = page.getByTestId("esito-movimento");
  await expect(result).toContainText("Scarico registrato in parte: operazione");
  await expect(result).toContainText("2 × MOV-NASTRO, da MOV-M1");
  await expect(result).toContainText("Una riga non è stata registrata");
  await expect(page.getByTestId("problema-riga-0")).toHaveText(
    "Nel lotto L-A di MOV-LATTE in MOV-M1 ne restano meno di 7: ridurre la quantità, oppure dividerla su più righe con lotti diversi.",
  );
  await expect(page.locator("main")).not.toContainText("'lotto'");
  await expect(page.locator("main")).not.toContainText("righe scritte");
  // Only the refused row stays in the form.
  await expect(page.getByTestId("riga-0-articolo")).toHaveValue("MOV-LATTE");
  await expect(page.getByTestId("riga-1")).toHaveCount(0);
  await snap(page, "movimento-riga-rifiutata");

  // Corrected and sent again: the lot row is written, the tape is not unloaded a second time.
  await page.getByTestId("riga-0-quantita").fill("5");
  await page.getByTestId("registra-movimento").click();
  await expect(result).toContainText("Scarico registrato: operazione");
  await expect(result).toContainText("5 × MOV-LATTE, lotto L-A, da MOV-M1");
  const written = await operation(await operationShown(page));
  expect(written.map((m) => [m.articolo.codice, m.quantita, m.lotto])).toEqual([["MOV-LATTE", "-5", "L-A"]]);
  const tape = (await api(key, "GET", `/movimenti?articolo=${ids.articoli["MOV-NASTRO"]}&origine=schermo`)).body.movimenti as {
    quantita: string;
  }[];
  expect(tape.map((m) => m.quantita)).toEqual(["-2"]);
  expect(await lotsOf("MOV-LATTE", "MOV-M1")).toEqual({ "L-B": ["9", "2027-06-30"] });
  await context.close();
});

test("carico con lotto e scadenza scritti, poi trasferimento con il lotto scelto nel magazzino di partenza (1280 px)", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.responsabile, 1280);
  await page.goto("/movimenti/nuovo");
  await choose(page, "campo-magazzino", /MOV-M2/);
  await page.getByTestId("riga-0-articolo").fill("MOV-LATTE");
  await page.getByTestId("riga-0-lotto").fill("L-C");
  await page.getByTestId("riga-0-scadenza").fill("31/12/2027");
  await page.getByTestId("riga-0-quantita").fill("4");
  await snap(page, "movimento-carico-lotto");
  await page.getByTestId("registra-movimento").click();
  const result = page.getByTestId("esito-movimento");
  await expect(result).toContainText("Carico registrato: operazione");
  await expect(result).toContainText("4 × MOV-LATTE, lotto L-C, scadenza 31/12/2027, in MOV-M2");
  expect(await lotsOf("MOV-LATTE", "MOV-M2")).toEqual({ "L-C": ["4", "2027-12-31"] });

  await page.getByTestId("campo-natura").getByText("Trasferimento").click();
  await choose(page, "campo-origine", /MOV-M1/);
  await choose(page, "campo-magazzino", /MOV-M2/);
  await page.getByTestId("riga-0-articolo").fill("MOV-LATTE");
  await page.getByTestId("riga-0-lotto").click();
  // The lots of the warehouse the goods leave: M1's, not M2's L-C.
  await expect(page.getByRole("option")).toHaveText(["L-B · residuo 9 · scad. 30/06/2027"]);
  await page.getByRole("option").first().click();
  await page.getByTestId("riga-0-quantita").fill("2");
  await page.getByTestId("registra-movimento").click();
  await expect(result).toContainText("Trasferimento registrato: operazione");
  await expect(result).toContainText("2 × MOV-LATTE, lotto L-B, da MOV-M1 a MOV-M2");
  await snap(page, "movimento-trasferimento-lotto");
  expect(await lotsOf("MOV-LATTE", "MOV-M1")).toEqual({ "L-B": ["7", "2027-06-30"] });
  expect(await lotsOf("MOV-LATTE", "MOV-M2")).toEqual({ "L-B": ["2", "2027-06-30"], "L-C": ["4", "2027-12-31"] });
  await context.close();
});
