import { expect, type Page, test } from "@playwright/test";
import { api } from "../support/api";
import { newSession, snap, type User } from "../support/app";
import { seed, seedStock } from "../support/seed";

// Reservations come in by REST (a key's POST /api/v1/prenotazioni); the manager reads and releases them on screen.
let manager: User;
let operator: User;
let key: string;
let ids: ReturnType<typeof seed>["ids"];

/** A REST call with the spec's key (e2e/support/api.ts): a GET, or a POST of `body`. */
const rest = (path: string, body?: unknown) => api(key, body === undefined ? "GET" : "POST", path, body);

const LONG_NAME = "Edilizia Verdi & Figli S.p.A. — Cantieri e ristrutturazioni dell'Emilia-Romagna";
const ORD_2 = {
  riferimento: "PREN-ORD-2",
  magazzino: "PREN-W1",
  cliente: "PREN-C2",
  parziale: true,
  righe: [{ numero_riga: 1, codice: "PREN-DADO", quantita: 6 }],
};

test.beforeAll(async () => {
  test.setTimeout(240_000); // a process of the CLI costs seconds on shared cores
  const seeded = seed("prenotazioni", {
    data: {
      magazzini: [
        { codice: "PREN-W1", nome: "Prenotazioni uno" },
        { codice: "PREN-W2", nome: "Prenotazioni due" },
      ],
      articoli: [
        { codice: "PREN-VITE", descrizione: "Vite prenotazioni 6x40" },
        { codice: "PREN-DADO", descrizione: "Dado prenotazioni M6" },
        { codice: "PREN-LIBERO", descrizione: "Articolo che nessuno prenota" },
      ],
      clienti: [
        { codice: "PREN-C1", ragione_sociale: "Ferramenta Rossi S.r.l." },
        { codice: "PREN-C2", ragione_sociale: LONG_NAME },
      ],
    },
    roles: ["responsabile", "operatore"],
  });
  manager = seeded.users.responsabile;
  operator = seeded.users.operatore;
  key = seeded.key;
  ids = seeded.ids;
  await seedStock(key, ids.magazzini["PREN-W1"]!, [
    { codice: "PREN-VITE", quantita: 10 },
    { codice: "PREN-DADO", quantita: 5 },
  ]);
  await seedStock(key, ids.magazzini["PREN-W2"]!, [{ codice: "PREN-VITE", quantita: 6 }]);
  const r = await rest("/prenotazioni", {
    prenotazioni: [
      {
        riferimento: "PREN-ORD-1",
        magazzino: "PREN-W1",
        cliente: "PREN-C1",
        righe: [
          { numero_riga: 1, codice: "PREN-VITE", quantita: 4 },
          { numero_riga: 2, codice: "PREN-DADO", quantita: 2 },
        ],
      },
      // Partial: 6 asked, 3 free after PREN-ORD-1's 2.
      ORD_2,
      {
        riferimento: "PREN-ORD-3",
        magazzino: "PREN-W2",
        cliente: "PREN-C2",
        righe: [{ numero_riga: 1, codice: "PREN-VITE", quantita: 5 }],
      },
    ],
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.create, JSON.stringify(r.body)).toBe(3);
});

const card = (page: Page, riferimento: string) => page.getByTestId(`prenotazione-${riferimento}`);
const row = (page: Page, riferimento: string, n: number) => card(page, riferimento).getByTestId(`riga-${n}`);

async function expectQuantities(page: Page, riferimento: string, n: number, q: Record<string, string>) {
  for (const [field, value] of Object.entries(q)) await expect(row(page, riferimento, n).getByTestId(field)).toHaveText(value);
}

/** The spec's warehouse PREN-W1 picked in a screen's warehouse select. */
async function pickWarehouse(page: Page, codice: string) {
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: new RegExp(`^${codice}`) }).click();
}

test("l'elenco mostra per cliente e riferimento stato e quantità di ogni riga; filtri per magazzino e stato", async ({ browser }) => {
  const { page, context } = await newSession(browser, manager, 360);
  await page.goto("/prenotazioni");
  await expect(page.getByRole("heading", { name: "Prenotazioni" })).toBeVisible();
  await pickWarehouse(page, "PREN-W1");
  await expect(card(page, "PREN-ORD-3")).toHaveCount(0);
  const one = card(page, "PREN-ORD-1");
  await expect(one.getByTestId("cliente")).toContainText("Ferramenta Rossi S.r.l.");
  await expect(one.getByTestId("stato")).toHaveText("Attiva");
  await expectQuantities(page, "PREN-ORD-1", 1, { richiesta: "4", prenotata: "4", prelevata: "0", spedita: "0", scoperta: "0" });
  await expectQuantities(page, "PREN-ORD-1", 2, { richiesta: "2", prenotata: "2" });
  await expectQuantities(page, "PREN-ORD-2", 1, { richiesta: "6", prenotata: "3", scoperta: "0" });
  await expect(card(page, "PREN-ORD-2").getByTestId("cliente")).toContainText(LONG_NAME);
  // Newest first.
  const refs = await page.getByTestId("elenco-prenotazioni").getByTestId("riferimento").allInnerTexts();
  expect(refs.indexOf("PREN-ORD-2")).toBeLessThan(refs.indexOf("PREN-ORD-1"));
  await snap(page, "prenotazioni");

  await pickWarehouse(page, "PREN-W2");
  await expect(card(page, "PREN-ORD-3")).toBeVisible();
  await expect(card(page, "PREN-ORD-1")).toHaveCount(0);
  await expectQuantities(page, "PREN-ORD-3", 1, { richiesta: "5", prenotata: "5" });
  await page.getByTestId("campo-stato").click();
  await page.getByRole("option", { name: "Annullata", exact: true }).click();
  await expect(card(page, "PREN-ORD-3")).toHaveCount(0);
  await expect(page.getByText("Nessuna prenotazione con questi filtri.")).toBeVisible();
  await context.close();
});

test("disponibilità: prenotata e disponibile accanto alla giacenza", async ({ browser }) => {
  const { page, context } = await newSession(browser, manager, 1280);
  await page.goto("/disponibilita");
  await page.getByTestId("campo-cerca").fill("PREN-");
  const vite = page.getByTestId("disponibilita-PREN-VITE");
  await expect(vite.getByTestId("giacenza")).toHaveText("16");
  await expect(vite.getByTestId("prenotata")).toHaveText("9");
  await expect(vite.getByTestId("disponibile")).toHaveText("7");
  await expect(page.getByTestId("disponibilita-PREN-DADO").getByTestId("disponibile")).toHaveText("0");
  await expect(page.getByTestId("disponibilita-PREN-LIBERO").getByTestId("prenotata")).toHaveText("0");
  await snap(page, "disponibilita-prenotata");
  await context.close();
});

test("la scheda dell'articolo dice chi lo tiene, o che nessuno lo tiene", async ({ browser }) => {
  const { page, context } = await newSession(browser, manager, 360);
  await page.goto("/articoli");
  await page.getByTestId("cerca-articoli").fill("PREN-");
  await page.getByTestId("articolo-PREN-VITE").click();
  const holders = page.getByTestId(`prenotazioni-articolo-${ids.articoli["PREN-VITE"]}`);
  const holder = async (riferimento: string, text: string, cliente: string) => {
    await expect(holders.getByTestId(`tiene-${riferimento}`).locator("p").first()).toHaveText(text);
    await expect(holders.getByTestId(`tiene-${riferimento}`).getByTestId("cliente")).toHaveText(cliente);
  };
  await holder("PREN-ORD-1", "PREN-ORD-1 · PREN-W1: 4", "Ferramenta Rossi S.r.l.");
  await holder("PREN-ORD-3", "PREN-ORD-3 · PREN-W2: 5", LONG_NAME);
  await expect(holders.getByTestId("totale-prenotata")).toHaveText("Prenotata in tutto 9 (2 righe di prenotazione)");
  await snap(page, "articolo-prenotazioni");
  await page.getByTestId("articolo-PREN-VITE").click();
  await page.getByTestId("articolo-PREN-LIBERO").click();
  await expect(page.getByTestId(`prenotazioni-articolo-${ids.articoli["PREN-LIBERO"]}`)).toHaveText(
    "Nessuna prenotazione attiva tiene questo articolo.",
  );
  await context.close();
});

test("rilascio dallo schermo: conferma con riferimento e cliente, poi annullata e merce di nuovo libera", async ({ browser }) => {
  const { page, context } = await newSession(browser, manager, 360);
  await page.goto("/prenotazioni");
  await pickWarehouse(page, "PREN-W1");
  await card(page, "PREN-ORD-1").getByTestId("rilascia-PREN-ORD-1").click();
  const dialog = page.getByRole("dialog", { name: "Rilasciare la prenotazione?" });
  await expect(dialog.getByTestId("rilascia-chi")).toContainText("Prenotazione PREN-ORD-1 del cliente Ferramenta Rossi S.r.l. (PREN-C1)");
  await expect(dialog.getByTestId("rilascia-chi")).toContainText("2 righe, quantità tenuta in tutto 6");
  await snap(page, "prenotazioni-rilascia");
  await dialog.getByTestId("conferma-rilascia").click();
  await expect(page.getByTestId("rilascio-fatto")).toContainText("Prenotazione PREN-ORD-1 di Ferramenta Rossi S.r.l. rilasciata");
  await expect(dialog).toHaveCount(0);
  await expect(card(page, "PREN-ORD-1").getByTestId("stato")).toHaveText("Annullata");
  await expect(card(page, "PREN-ORD-1").getByTestId("rilascia-PREN-ORD-1")).toHaveCount(0);
  await expectQuantities(page, "PREN-ORD-1", 1, { richiesta: "4", prenotata: "0" });
  await snap(page, "prenotazioni-rilasciata");

  const listed = await rest("/prenotazioni?riferimento=PREN-ORD-1");
  expect(listed.body.prenotazioni[0], JSON.stringify(listed.body)).toMatchObject({
    stato: "annullata",
    righe: [{ prenotata: "0" }, { prenotata: "0" }],
  });
  const vite = (await rest(`/disponibilita?articolo=${ids.articoli["PREN-VITE"]}`)).body.disponibilita[0];
  expect(vite).toMatchObject({ giacenza: "16", prenotata: "5", disponibile: "11" });
  expect(vite.magazzini.find((m: { magazzino: number }) => m.magazzino === ids.magazzini["PREN-W1"])).toMatchObject({
    prenotata: "0",
    disponibile: "10",
  });
  const dado = (await rest(`/disponibilita?articolo=${ids.articoli["PREN-DADO"]}`)).body.disponibilita[0];
  expect(dado).toMatchObject({ prenotata: "3", disponibile: "2" });

  // The screens read it too: the availability's columns and the article's holders.
  await page.goto("/disponibilita");
  await page.getByTestId("campo-cerca").fill("PREN-VITE");
  await expect(page.getByTestId("disponibilita-PREN-VITE").getByTestId("disponibile")).toHaveText("11");
  await page.goto("/articoli");
  await page.getByTestId("cerca-articoli").fill("PREN-VITE");
  await page.getByTestId("articolo-PREN-VITE").click();
  const holders = page.getByTestId(`prenotazioni-articolo-${ids.articoli["PREN-VITE"]}`);
  await expect(holders.getByTestId("tiene-PREN-ORD-3")).toBeVisible();
  await expect(holders.getByTestId("tiene-PREN-ORD-1")).toHaveCount(0);
  await context.close();
});

test("un rilascio rifiutato è spiegato in italiano e non cambia nulla", async ({ browser }) => {
  const { page, context } = await newSession(browser, manager, 360);
  await page.goto("/prenotazioni");
  await pickWarehouse(page, "PREN-W1");
  await card(page, "PREN-ORD-2").getByTestId("rilascia-PREN-ORD-2").click();
  const dialog = page.getByRole("dialog", { name: "Rilasciare la prenotazione?" });
  await expect(dialog.getByTestId("rilascia-chi")).toContainText(`Prenotazione PREN-ORD-2 del cliente ${LONG_NAME} (PREN-C2)`);
  // Meanwhile its 3 pieces leave with an unload naming it (a scade_il in the past is refused by POST /prenotazioni,
  // and an expiry would wait for the worker's sweep): it holds nothing any more.
  const held = (await rest("/prenotazioni?riferimento=PREN-ORD-2")).body.prenotazioni[0];
  const shipped = await rest("/movimenti", {
    natura: "scarico",
    magazzino: ids.magazzini["PREN-W1"],
    righe: [{ codice: "PREN-DADO", quantita: 3, prenotazione: held.id }],
  });
  expect(shipped.body.rifiutate, JSON.stringify(shipped.body)).toBe(0);
  const before = (await rest("/prenotazioni?riferimento=PREN-ORD-2")).body.prenotazioni[0];
  expect(before.stato, JSON.stringify(before)).toBe("evasa");
  await dialog.getByTestId("conferma-rilascia").click();
  await expect(dialog.getByTestId("errore-rilascia")).toHaveText(
    "La prenotazione PREN-ORD-2 è evasa: non c'è nulla da annullare. Non tiene più merce, non serve rilasciarla: l'elenco ora la mostra com'è.",
  );
  await snap(page, "prenotazioni-rifiuto");
  await dialog.getByTestId("chiudi-rilascia").click();
  await expect(card(page, "PREN-ORD-2").getByTestId("stato")).toHaveText("Evasa");
  expect((await rest("/prenotazioni?riferimento=PREN-ORD-2")).body.prenotazioni[0]).toEqual(before);
  await context.close();
});

test("un operatore non apre le prenotazioni, ma nella scheda dell'articolo vede chi lo tiene", async ({ browser }) => {
  const { page, context } = await newSession(browser, operator, 360);
  await page.goto("/prenotazioni");
  await expect(page.getByTestId("accesso-negato")).toBeVisible();
  const newest = await page.evaluate(async () => (await fetch(`/api/trpc/reservations.newest?input=${encodeURIComponent("{}")}`)).status);
  expect(newest).toBe(403);
  await page.goto("/articoli");
  await page.getByTestId("cerca-articoli").fill("PREN-VITE");
  await page.getByTestId("articolo-PREN-VITE").click();
  const holders = page.getByTestId(`prenotazioni-articolo-${ids.articoli["PREN-VITE"]}`);
  await expect(holders.getByTestId("tiene-PREN-ORD-3")).toBeVisible();
  await expect(holders.getByTestId("totale-prenotata")).toHaveText("Prenotata in tutto 5 (1 riga di prenotazione)");
  await context.close();
});
