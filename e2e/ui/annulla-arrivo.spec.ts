import { expect, type Page, test } from "@playwright/test";
import { newSession, snap, type User } from "../support/app";
import { api } from "../support/api";
import { type ImportedIds, seed, today } from "../support/seed";

// A responsabile cancels any arrival (an operator's, of any day) from the order detail and from /movimenti;
// an operatore is not offered the action there. Every outcome is read back through the API.
let users: Record<"operatore" | "responsabile", User>;
let ids: ImportedIds;
let key: string;

/** The rows of the spec's orders, by article code: `riga` is the order row's id. */
const righe: Record<string, { riga: number; numero_riga: number }> = {};

test.beforeAll(async () => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  const data = {
    magazzini: [{ codice: "ANN-M1", nome: "Annullamenti uno" }],
    fornitori: [{ codice: "ANN-FORN", nome: "Forniture Annullamenti S.r.l." }],
    articoli: [
      { codice: "ANN-VITE", descrizione: "Vite annullamenti M5" },
      { codice: "ANN-LATTE", descrizione: "Latte annullamenti 1 l", gestione_lotti: true },
      { codice: "ANN-BULL", descrizione: "Bullone annullamenti M8" },
      { codice: "ANN-FARINA", descrizione: "Farina annullamenti 1 kg", gestione_lotti: true },
    ],
    ordini: [
      {
        numero: "ANN-OA-1",
        fornitore: "ANN-FORN",
        data: today(),
        magazzino: "ANN-M1",
        righe: [
          { articolo: "ANN-VITE", quantita: 10, prezzo: "0.2" },
          { articolo: "ANN-LATTE", quantita: 20, prezzo: "0.9" },
        ],
      },
      {
        numero: "ANN-OA-2",
        fornitore: "ANN-FORN",
        data: today(),
        magazzino: "ANN-M1",
        righe: [{ articolo: "ANN-BULL", quantita: 12, prezzo: "0.3" }],
      },
      {
        numero: "ANN-OA-3",
        fornitore: "ANN-FORN",
        data: today(),
        magazzino: "ANN-M1",
        righe: [{ articolo: "ANN-FARINA", quantita: 30, prezzo: "1.1" }],
      },
    ],
  };
  const seeded = seed("annulla", { data, roles: ["operatore", "responsabile"] });
  ({ ids, key, users } = seeded);
  for (const numero of ["ANN-OA-1", "ANN-OA-2", "ANN-OA-3"]) {
    const listed = await api(key, "GET", `/ordini-acquisto?cerca=${numero}`);
    for (const r of listed.body.ordini[0].righe) righe[r.articolo.codice] = { riga: r.riga, numero_riga: r.numero_riga };
  }
});

/** An arrival registered by the signed-in user of `page` (an operator at the dock), through the UI's own channel. */
async function arriveAs(page: Page, body: Record<string, unknown>): Promise<number> {
  const me = await page.request.get("/api/trpc/session.me");
  const csrf = (await me.json()).result.data.csrf as string;
  const r = await page.request.post("/api/trpc/arrivals.register", {
    headers: { "x-csrf-token": csrf, "content-type": "application/json" },
    data: { magazzino: ids.magazzini["ANN-M1"], ddt: "DDT-ANN", ...body },
  });
  expect(r.status(), await r.text()).toBe(200);
  return (await r.json()).result.data.movimento as number;
}

/** The order row as the API has it now. */
async function rowOf(numero: string, codice: string) {
  const listed = await api(key, "GET", `/ordini-acquisto?cerca=${numero}`);
  return (listed.body.ordini[0].righe as { articolo: { codice: string }; arrivata: string; residua: string }[]).find(
    (r) => r.articolo.codice === codice,
  )!;
}

/** The reversals written for an arrival (GET /movimenti, origine annullamento). */
async function reversalsOf(movimento: number) {
  const listed = await api(key, "GET", `/movimenti?origine=annullamento&limite=100`);
  return (listed.body.movimenti as { annulla: number | null; quantita: string; lotto: string | null }[]).filter(
    (m) => m.annulla === movimento,
  );
}

async function openOrder(page: Page, numero: string) {
  await page.goto("/ordini");
  await page.getByTestId("cerca-ordini").fill(numero);
  await page.getByTestId(`righe-${numero}`).click();
}

test("dall'ordine, un responsabile annulla l'arrivo sbagliato di un operatore: la riga torna da ricevere, l'arrivo resta annullato", async ({
  browser,
}) => {
  const dock = await newSession(browser, users.operatore, 360);
  const wrong = await arriveAs(dock.page, { riga: righe["ANN-LATTE"]!.riga, quantita: 8, lotto: "L-ANN-1", scadenza: "2027-03-31" });
  const kept = await arriveAs(dock.page, { riga: righe["ANN-VITE"]!.riga, quantita: 4 });
  await dock.context.close();

  const { page, context } = await newSession(browser, users.responsabile, 360);
  await openOrder(page, "ANN-OA-1");
  const n = righe["ANN-LATTE"]!.numero_riga;
  const row = page.getByTestId(`riga-${n}`);
  await expect(row.getByTestId(`arrivata-${n}`)).toHaveText("8");
  const arrival = row.getByTestId(`arrivo-${wrong}`);
  await expect(arrival).toContainText("8 PZ");
  await expect(arrival).toContainText("lotto L-ANN-1");
  await expect(arrival).toContainText(`da ${users.operatore.username}`);
  await snap(page, "ordini-arrivi-annullabili");

  await arrival.getByTestId(`annulla-arrivo-${wrong}`).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("Annullare l'arrivo?");
  await expect(dialog).toContainText("ANN-LATTE");
  await expect(dialog).toContainText("lotto L-ANN-1");
  await expect(dialog).toContainText(`registrato da ${users.operatore.username}`);
  await snap(page, "ordini-conferma-annullamento-arrivo");
  const sent = page.waitForRequest("**/api/trpc/arrivals.cancel*");
  await dialog.getByTestId("conferma-annulla-arrivo").click();
  expect(await (await sent).headerValue("idempotency-key")).toBeTruthy();

  // On screen: the row's new figures, the arrival struck through as cancelled, what happened in words.
  await expect(dialog).toHaveCount(0);
  await expect(row.getByTestId(`arrivata-${n}`)).toHaveText("0");
  await expect(row.getByTestId(`residua-${n}`)).toHaveText("20");
  await expect(row.getByTestId(`annullato-${wrong}`)).toHaveText("Annullato");
  await expect(row.getByTestId(`annulla-arrivo-${wrong}`)).toHaveCount(0);
  await expect(row.getByTestId(`annullamento-${n}`)).toContainText("Arrivo annullato: 8 PZ di ANN-LATTE, lotto L-ANN-1");
  await expect(row.getByTestId(`annullamento-${n}`)).toContainText("ora arrivati 0, da ricevere 20");
  // The other row's arrival is untouched and still cancellable.
  await expect(page.getByTestId(`annulla-arrivo-${kept}`)).toBeVisible();
  await snap(page, "ordini-arrivo-annullato");

  // Through the API: one reversing movement of the lot, the row expects the 8 again, the other row keeps its 4.
  expect(await reversalsOf(wrong)).toEqual([expect.objectContaining({ quantita: "-8", lotto: "L-ANN-1" })]);
  expect(await rowOf("ANN-OA-1", "ANN-LATTE")).toMatchObject({ arrivata: "0", residua: "20" });
  expect(await rowOf("ANN-OA-1", "ANN-VITE")).toMatchObject({ arrivata: "4", residua: "6" });
  const lots = await api(key, "GET", `/articoli/${ids.articoli["ANN-LATTE"]}/lotti?magazzino=${ids.magazzini["ANN-M1"]}`);
  expect(lots.body.lotti).toEqual([]);
  await context.close();
});

test("da /movimenti: «Annulla arrivo»; un arrivo già annullato altrove lo dice in italiano e resta annullato una volta sola", async ({
  browser,
}) => {
  const dock = await newSession(browser, users.operatore, 360);
  const first = await arriveAs(dock.page, { riga: righe["ANN-BULL"]!.riga, quantita: 5 });
  const { page, context } = await newSession(browser, users.responsabile, 360);
  await page.goto("/movimenti");
  const movement = page.getByTestId(`movimento-${first}`);
  await expect(movement).toContainText("ANN-BULL");
  await movement.getByTestId(`annulla-arrivo-${first}`).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("5 di ANN-BULL");
  await expect(dialog).toContainText("in ANN-M1");

  // Meanwhile someone else cancels it (an integrator, here): the confirmation is refused, in words, with no retry offered.
  expect((await api(key, "POST", `/arrivi/${first}/annulla`, {})).status).toBe(200);
  await dialog.getByTestId("conferma-annulla-arrivo").click();
  await expect(dialog.getByTestId("errore-annulla-arrivo")).toContainText("era già stato annullato");
  await expect(dialog.getByTestId("errore-annulla-arrivo")).not.toContainText("arrivo_gia_annullato");
  await expect(dialog.getByTestId("conferma-annulla-arrivo")).toHaveCount(0);
  await snap(page, "movimenti-arrivo-gia-annullato");
  await dialog.getByTestId("chiudi-annulla-arrivo").click();
  await expect(movement.getByTestId(`annullato-${first}`)).toContainText("Annullato dal movimento");
  expect(await reversalsOf(first)).toHaveLength(1);

  // A second arrival, cancelled from here.
  const second = await arriveAs(dock.page, { riga: righe["ANN-BULL"]!.riga, quantita: 3 });
  await dock.context.close();
  await page.reload();
  const other = page.getByTestId(`movimento-${second}`);
  await other.getByTestId(`annulla-arrivo-${second}`).click();
  await page.getByRole("dialog").getByTestId("conferma-annulla-arrivo").click();
  await expect(page.getByTestId("annullamento-arrivo")).toContainText("Arrivo annullato: 3 di ANN-BULL");
  await expect(page.getByTestId("annullamento-arrivo")).toContainText("ora arrivati 0, da ricevere 12");
  await expect(other.getByTestId(`annullato-${second}`)).toBeVisible();
  await expect(other.getByTestId(`annulla-arrivo-${second}`)).toHaveCount(0);
  await snap(page, "movimenti-arrivo-annullato");

  const [reversal] = await reversalsOf(second);
  expect(reversal).toMatchObject({ quantita: "-3" });
  // The reversal is on the screen too, on top, pointing at the arrival.
  await expect(page.getByTestId("tabella-movimenti").locator("tbody tr").first()).toContainText(`annulla ${second}`);
  expect(await rowOf("ANN-OA-2", "ANN-BULL")).toMatchObject({ arrivata: "0", residua: "12" });
  await context.close();
});

test("un lotto già scaricato non restituisce l'arrivo: il rifiuto dice cosa fare, nulla cambia", async ({ browser }) => {
  const dock = await newSession(browser, users.operatore, 1280);
  const arrival = await arriveAs(dock.page, { riga: righe["ANN-FARINA"]!.riga, quantita: 10, lotto: "L-FAR" });
  await dock.context.close();
  const unload = await api(key, "POST", "/movimenti", {
    natura: "scarico",
    magazzino: ids.magazzini["ANN-M1"],
    righe: [{ codice: "ANN-FARINA", quantita: 4, lotto: "L-FAR" }],
  });
  expect(unload.body.scritte).toBe(1);

  const { page, context } = await newSession(browser, users.responsabile, 1280);
  await openOrder(page, "ANN-OA-3");
  await page.getByTestId(`annulla-arrivo-${arrival}`).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByTestId("conferma-annulla-arrivo").click();
  const refusal = dialog.getByTestId("errore-annulla-arrivo");
  await expect(refusal).toContainText("Il lotto L-FAR di ANN-FARINA non ha più tutti i 10 arrivati");
  await expect(refusal).toContainText("annullare prima quei movimenti oppure correggere la giacenza del lotto con un inventario");
  await expect(dialog.getByTestId("conferma-annulla-arrivo")).toHaveCount(0);
  await snap(page, "ordini-annullamento-lotto-consumato");
  await dialog.getByTestId("chiudi-annulla-arrivo").click();
  await expect(page.getByTestId(`annulla-arrivo-${arrival}`)).toBeVisible();

  expect(await reversalsOf(arrival)).toEqual([]);
  expect(await rowOf("ANN-OA-3", "ANN-FARINA")).toMatchObject({ arrivata: "10", residua: "20" });
  await context.close();
});

test("un operatore vede gli arrivi dell'ordine ma non l'azione di annullarli; /movimenti non è suo", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore, 360);
  await arriveAs(page, { riga: righe["ANN-VITE"]!.riga, quantita: 1 });
  await openOrder(page, "ANN-OA-1");
  const n = righe["ANN-VITE"]!.numero_riga;
  await expect(page.getByTestId(`arrivi-${n}`)).toContainText(`da ${users.operatore.username}`);
  await expect(page.getByTestId(`arrivi-${n}`).getByTestId(/^arrivo-/)).not.toHaveCount(0);
  await expect(page.locator('[data-testid^="annulla-arrivo-"]')).toHaveCount(0);
  await snap(page, "ordini-arrivi-operatore");
  const response = await page.goto("/movimenti");
  expect(response?.status()).toBe(403);
  await context.close();
});
