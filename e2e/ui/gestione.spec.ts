import { expect, test } from "@playwright/test";
import { newSession, snap, type User } from "../support/app";
import { ean13, seed, seedStock, today } from "../support/seed";

// The spec's own warehouses, articles, suppliers, client and orders; stock for the sale.
let users: Record<"operatore" | "responsabile", User>;
test.beforeAll(async () => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  const labels = Array.from({ length: 5 }, (_, i) => ({
    codice: `GEST-ETI-${i + 1}`,
    descrizione: `Articolo etichette ${i + 1}`,
    ean: ean13(`805999001${String(i + 1).padStart(3, "0")}`),
  }));
  const data = {
    magazzini: [
      { codice: "GEST-M1", nome: "Gestione uno" },
      { codice: "GEST-M2", nome: "Gestione due" },
    ],
    articoli: [
      { codice: "GEST-DETERG-PAV-5L", descrizione: "Detergente pavimenti gestione 5 l" },
      { codice: "GEST-NASTRO-AM-50", descrizione: "Nastro gestione 50 m" },
      { codice: "GEST-IPOCLORITO-5L", descrizione: "Ipoclorito gestione 5 l", gestione_lotti: true },
      { codice: "GEST-SGRASS-750", descrizione: "Sgrassatore gestione 750 ml" },
      ...labels,
    ],
    fornitori: [
      { codice: "GEST-CHIM", nome: "Chimica Gestione S.r.l." },
      { codice: "GEST-FERR", nome: "Ferramenta Gestione S.r.l." },
    ],
    clienti: [{ codice: "GEST-C1", ragione_sociale: "Officina Gestione Ferraris S.r.l.", partita_iva: "05999100015" }],
    ordini: [
      {
        numero: "GEST-OA-CHIM",
        fornitore: "GEST-CHIM",
        data: today(),
        magazzino: "GEST-M2",
        righe: [
          { articolo: "GEST-DETERG-PAV-5L", quantita: 20, prezzo: "9.5" },
          { articolo: "GEST-IPOCLORITO-5L", quantita: 10, prezzo: "4.2" },
          { articolo: "GEST-SGRASS-750", quantita: 30, prezzo: "2.1" },
        ],
      },
      {
        numero: "GEST-OA-ETI",
        fornitore: "GEST-FERR",
        data: today(),
        magazzino: "GEST-M1",
        righe: labels.map((l) => ({ articolo: l.codice, quantita: 5, prezzo: "1" })),
      },
    ],
  };
  const { ids, key, users: u } = seed("gestione", { data, roles: ["operatore", "responsabile"] });
  users = u;
  await seedStock(key, ids.magazzini["GEST-M1"]!, [{ codice: "GEST-NASTRO-AM-50", quantita: 25 }]);
});

test("movimento manuale (carico) e elenco dei movimenti con filtri", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.responsabile, 1280);
  await page.goto("/movimenti/nuovo");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /GEST-M1/ }).click();
  // Typed in lower case: the screens read an article by one rule (code in any case, EAN, GS1).
  await page.getByTestId("riga-0-articolo").fill("gest-deterg-pav-5l");
  await page.getByTestId("riga-0-quantita").fill("3,5");
  await snap(page, "movimento-nuovo");
  await page.getByTestId("registra-movimento").click();
  await expect(page.getByTestId("esito-movimento")).toContainText("Carico registrato: operazione");
  await expect(page.getByTestId("esito-movimento")).toContainText("3,5 × GEST-DETERG-PAV-5L, in GEST-M1");

  await page.goto("/movimenti");
  await page.getByTestId("campo-origine").click();
  await page.getByRole("option", { name: "schermo", exact: true }).click();
  const rows = page.getByTestId("tabella-movimenti").locator("tbody tr");
  await expect(rows.first()).toContainText("GEST-DETERG-PAV-5L");
  await expect(rows.first()).toContainText("3,5");
  await snap(page, "movimenti");
  await context.close();
});

test("documento di vendita: emissione con totali, poi nell'elenco", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.responsabile, 1280);
  await page.goto("/vendite/nuovo");
  // The picker asks the server as the operator types: part of the name in any case, or the VAT
  // number (which is not in the option's label, so only the server can match it).
  await page.getByTestId("campo-cliente").fill("gestione ferr");
  await expect(page.getByRole("option")).toHaveCount(1);
  await page.getByTestId("campo-cliente").fill("05999100015");
  await expect(page.getByRole("option")).toHaveCount(1);
  await page.getByRole("option", { name: /Officina Gestione Ferraris/ }).click();
  await expect(page.getByTestId("campo-cliente")).toHaveValue(/Officina Gestione Ferraris/);
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /GEST-M1/ }).click();
  await page.getByTestId("riga-0-articolo").fill("gest-nastro-am-50");
  await page.getByTestId("riga-0-quantita").fill("2");
  await page.getByTestId("riga-0-prezzo").fill("3,50");
  await snap(page, "vendita-nuova");
  await page.getByTestId("emetti-documento").click();
  const created = page.getByTestId("documento-creato");
  await expect(created).toContainText("Documento ddt n.");
  await expect(created).toContainText("Totale");
  await expect(created).toContainText("GEST-NASTRO-AM-50");
  await snap(page, "vendita-emessa");
  const numero = /n\. (\S+)/.exec(await created.innerText())![1]!;
  await page.goto("/vendite");
  // Newest first: the document just issued is on top of the first page.
  await expect(page.getByTestId("tabella-vendite").locator("tbody tr").first()).toContainText(numero);
  await expect(page.getByTestId("pagina")).toHaveText("Pagina 1 · dal più recente");
  await snap(page, "vendite");
  await context.close();
});

test("ricevimento per fornitore sul palmare: una scheda per riga, il magazzino dall'ordine, ciò che manca detto prima di Registra", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore, 360);
  await page.goto("/ricevimento/fornitore");
  await page.getByTestId("campo-fornitore").click();
  await page.getByRole("option", { name: /Chimica Gestione/ }).click();
  const rows = page.locator("[data-testid^=riga-]");
  await expect(rows).toHaveCount(3);
  // The warehouse comes from the order; the missing delivery note is said before Registra, which waits.
  await expect(page.getByTestId("campo-magazzino")).toHaveValue(/GEST-M2/);
  const bar = page.getByTestId("barra-registra");
  await expect(page.getByTestId("da-completare")).toContainText("indicare il DDT");
  await expect(bar.getByTestId("riepilogo-barra")).toHaveText("Manca: DDT, le righe");
  await expect(page.getByTestId("registra-selezionate")).toBeDisabled();
  const deterg = rows.filter({ hasText: "GEST-DETERG-PAV-5L" });
  await deterg.getByTestId("campo-quantita").fill("4");
  const ipo = rows.filter({ hasText: "GEST-IPOCLORITO-5L" });
  await ipo.getByRole("checkbox").check();
  await expect(page.getByTestId("da-completare")).toContainText("manca il lotto");
  await expect(bar.getByTestId("riepilogo-barra")).toHaveText(/Manca: DDT, R\d+ lotto/);
  await snap(page, "ricevimento-fornitore");
  // Every field of a row is on the screen and wide enough to read, at 360 px and on the desktop.
  const fields = [deterg.getByTestId("campo-quantita"), ipo.getByTestId("campo-lotto"), ipo.getByTestId("campo-scadenza")];
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: width === 360 ? 760 : 800 });
    for (const field of fields) {
      // Polled: right after a resize the cards may still be laying out (a width part of the way there).
      await expect.poll(async () => (await field.boundingBox())!.width, { message: `${width} px` }).toBeGreaterThan(100);
      const box = (await field.boundingBox())!;
      expect(box.x, `${width} px`).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, `${width} px`).toBeLessThanOrEqual(width);
    }
  }
  await page.setViewportSize({ width: 360, height: 760 });
  await page.getByTestId("campo-ddt").fill("DDT-GEST-MULTI");
  await ipo.getByTestId("campo-lotto").fill("IPO-2611");
  await ipo.getByTestId("campo-scadenza").fill("30/06/2027");
  await expect(page.getByTestId("da-completare")).toHaveCount(0);
  await expect(bar.getByTestId("riepilogo-barra")).toHaveText("DDT DDT-GEST-MULTI · GEST-M2");
  const button = page.getByTestId("registra-selezionate");
  await expect(button).toHaveText("Registra 2 righe");
  await expect(button).toBeInViewport({ ratio: 1 });
  await button.click();
  const outcomes = page.getByTestId("esiti-righe");
  await expect(outcomes).toContainText("registrata, residuo 16");
  await expect(outcomes).toContainText("registrata, residuo 0");
  await snap(page, "ricevimento-fornitore-esito");
  await context.close();
});

test("etichette di un ordine: codici a barre R<riga> ed EAN, pronte per la stampa", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore, 1280);
  await page.goto("/ordini");
  await snap(page, "ordini");
  await page.getByTestId("etichette-GEST-OA-ETI").click();
  const labels = page.locator(".label");
  await expect(labels).toHaveCount(5);
  await expect(labels.first().locator("svg")).toHaveCount(2);
  await snap(page, "etichette");
  await page.emulateMedia({ media: "print" });
  await expect(page.getByTestId("stampa")).toBeHidden();
  await page.screenshot({ path: "e2e/screenshots/etichette-stampa-1280.png", fullPage: true });
  await context.close();
});
