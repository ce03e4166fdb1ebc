import { expect, type Page, test } from "@playwright/test";
import { api } from "../support/api";
import { dockRunning, newSession, scan, signIn, slowHandheld, snap, type User } from "../support/app";
import { ean13, seed, today } from "../support/seed";

/**
 * Putaway and counting a bin with the scanner alone, at 360 px (docs/api.md section 11): goods received by scan land
 * in the receiving location, two scans and Enter put them away, a bin is counted by its label and its goods.
 * Every outcome is checked through /api/v1 (GET /giacenze-ubicazioni), never only on screen.
 */
const EAN = {
  VITE: ean13("805999030001"),
  DADO: ean13("805999030002"),
  PERSO: ean13("805999030003"),
  CONTA: ean13("805999030004"),
  PRIMA: ean13("805999030005"),
};

let users: Record<"operatore" | "responsabile", User>;
let key: string;
let articoli: Record<string, number>;
let magazzino: number;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const art = (k: keyof typeof EAN) => ({ codice: `ST-${k}`, descrizione: `Articolo stoccaggio ${k.toLowerCase()}`, ean: EAN[k] });
  const s = seed("stoccaggio", {
    data: {
      magazzini: [{ codice: "ST-MI", nome: "Stoccaggio Milano" }],
      fornitori: [{ codice: "ST-F1", nome: "Fornitore Stoccaggio" }],
      articoli: [art("VITE"), art("DADO"), art("PERSO"), art("CONTA"), art("PRIMA")],
      ordini: [
        {
          numero: "ST-OA-1",
          fornitore: "ST-F1",
          data: today(),
          magazzino: "ST-MI",
          righe: ["ST-VITE", "ST-DADO", "ST-PERSO", "ST-CONTA", "ST-PRIMA"].map((articolo) => ({ articolo, quantita: 100, prezzo: "1" })),
        },
      ],
    },
    roles: ["operatore", "responsabile"],
  });
  ({ users, key } = s);
  articoli = s.ids.articoli;
  magazzino = s.ids.magazzini["ST-MI"]!;
  const ok = async (path: string, body: unknown) => {
    const r = await api(key, "POST", path, body);
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  };
  await ok("/ubicazioni", {
    ubicazioni: ["ST-RIC", "ST-A1", "ST-A2", "ST-B1"].map((codice) => ({
      magazzino: "ST-MI",
      codice,
      tipo: codice === "ST-RIC" ? "ricevimento" : "stoccaggio",
    })),
  });
  await ok("/magazzini", {
    magazzini: [{ codice: "ST-MI", nome: "Stoccaggio Milano", gestione_ubicazioni: true, ubicazione_ricevimento: "ST-RIC" }],
  });
  await ok("/articoli", {
    articoli: [{ ...art("VITE"), ubicazioni_preferite: [{ magazzino: "ST-MI", ubicazione: "ST-A1" }] }],
  });
});

/** What a location holds of an article, as an integrator reads it. */
async function held(codice: string, ubicazione: string): Promise<number> {
  const r = await api(key, "GET", `/giacenze-ubicazioni?magazzino=${magazzino}&articolo=${articoli[codice]}&ubicazione=${ubicazione}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body.giacenze as { quantita: string }[]).reduce((s: number, g: { quantita: string }) => s + Number(g.quantita), 0);
}

async function receive(page: Page, ean: string, quantita: number) {
  await page.goto("/ricevimento");
  // The warehouse's list opens only once the screen runs.
  await dockRunning(page);
  await page.getByTestId("campo-ddt").fill(`DDT-ST-${ean.slice(-4)}`);
  await page.getByTestId("campo-magazzino").click();
  // The dock names warehouses by code.
  await page.getByRole("option", { name: "ST-MI" }).click();
  // The same warehouse picked again (a second arrival) is no change: the caret is put back by hand.
  await page.getByTestId("campo-scansione").focus();
  await scan(page, ean);
  await page.getByTestId("campo-quantita").fill(String(quantita));
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText(`Registrato: ${quantita}`);
}

async function openPutaway(page: Page) {
  await page.goto("/stoccaggio");
  await dockRunning(page);
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /Stoccaggio Milano/ }).click();
  await page.getByTestId("campo-scansione").focus();
}

test("ricevuto per lettura, stoccato con due letture e Invio: la merce è dove dice GET /giacenze-ubicazioni", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await receive(page, EAN.VITE, 10);
  expect(await held("ST-VITE", "ST-RIC")).toBe(10);

  await openPutaway(page);
  await scan(page, EAN.VITE);
  const task = page.getByTestId("merce-da-stoccare");
  await expect(task).toContainText("ST-VITE");
  await expect(page.getByTestId("proposta")).toContainText("ST-A1");
  await expect(page.getByTestId("campo-quantita")).toHaveValue("10");
  // A wrong label: refused aloud, nothing moved, the scan field ready for the right one.
  await scan(page, "ST-ZZ");
  await expect(page.getByTestId("esito")).toHaveAttribute("data-esito", "ko");
  await expect(page.getByTestId("esito")).toContainText("non è un'ubicazione del magazzino Stoccaggio Milano");
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  await scan(page, "ST-A1");
  await expect(page.getByTestId("destinazione")).toContainText("ST-A1");
  await snap(page, "stoccaggio-destinazione");
  // A reload keeps the goods shown, the destination read and the quantity: Enter still confirms them.
  await page.reload();
  await expect(page.getByTestId("destinazione")).toContainText("ST-A1");
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Stoccato: 10 PZ di ST-VITE in ST-A1");
  expect(await held("ST-VITE", "ST-A1")).toBe(10);
  expect(await held("ST-VITE", "ST-RIC")).toBe(0);
  await context.close();
});

test("la merce letta mentre la pagina si carica non va persa: il compito compare quando la schermata parte", async ({ browser }) => {
  const { context, page, holdScripts, mountedAndFramed } = await slowHandheld(browser);
  await signIn(page, users.operatore);
  await receive(page, EAN.PRIMA, 3);
  await openPutaway(page);
  // Back to putaway on a slow handheld: drawn, its scripts not yet run, and the operator scans the goods at once.
  const release = await holdScripts();
  await page.goto("/stoccaggio", { waitUntil: "domcontentloaded" });
  const field = page.getByTestId("campo-scansione");
  await expect(field).toBeFocused();
  await scan(page, EAN.PRIMA);
  release();
  await mountedAndFramed();
  await expect(page.getByTestId("merce-da-stoccare")).toContainText("ST-PRIMA");
  await expect(field).toHaveValue("");
  // The next scan is read alone: the destination.
  await scan(page, "ST-A2");
  await expect(page.getByTestId("destinazione")).toContainText("ST-A2");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Stoccato: 3 PZ di ST-PRIMA in ST-A2");
  expect(await held("ST-PRIMA", "ST-A2")).toBe(3);
  await context.close();
});

test("senza rete lo stoccaggio resta in coda e parte una volta sola al ritorno; una risposta persa non lo scrive due volte", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await receive(page, EAN.DADO, 6);
  await receive(page, EAN.PERSO, 4);
  await openPutaway(page);
  await expect(page.getByRole("heading", { name: /Da stoccare \([1-9]/ })).toBeVisible();

  // Offline: the copy on the handheld reads the goods and the label; Enter queues.
  await context.setOffline(true);
  await scan(page, EAN.DADO);
  await expect(page.getByTestId("merce-da-stoccare")).toContainText("ST-DADO");
  await scan(page, "ST-B1");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("esito")).toContainText("In coda: 6 PZ di ST-DADO in ST-B1");
  await expect(page.getByTestId("stoccaggio-in-coda")).toHaveCount(1);
  await snap(page, "stoccaggio-coda");
  expect(await held("ST-DADO", "ST-B1")).toBe(0);
  await context.setOffline(false);
  await expect(page.getByTestId("stoccaggio-in-coda")).toHaveCount(0, { timeout: 20_000 });
  expect(await held("ST-DADO", "ST-B1")).toBe(6);
  expect(await held("ST-DADO", "ST-RIC")).toBe(0);

  // The answer lost on the way back: the service wrote it, the handheld settles the key and writes nothing more.
  await page.route("**/api/trpc/putaway.store**", async (route) => {
    await route.fetch();
    await route.abort("connectionreset");
  });
  await scan(page, EAN.PERSO);
  await scan(page, "ST-B1");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Esito incerto");
  await page.unroute("**/api/trpc/putaway.store**");
  await expect(page.getByTestId("stoccaggio-in-coda")).toHaveCount(0, { timeout: 20_000 });
  expect(await held("ST-PERSO", "ST-B1")).toBe(4);
  expect(await held("ST-PERSO", "ST-RIC")).toBe(0);
  const moves = await api(key, "GET", `/movimenti?articolo=${articoli["ST-PERSO"]}&origine=stoccaggio`);
  expect(moves.body.movimenti).toHaveLength(2);
  await context.close();
});

test("un'ubicazione contata per lettura: etichetta, tre letture, intera ubicazione, conferma del responsabile", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.responsabile);
  await page.goto("/inventario");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /Stoccaggio Milano/ }).click();
  await page.getByTestId("origine-conteggi").getByText("Lettore").click();
  await scan(page, "ST-A2");
  await expect(page.getByTestId("ubicazione-contata")).toContainText("ST-A2");
  await page.getByTestId("conta-intera").check();
  for (let i = 0; i < 3; i++) await scan(page, EAN.CONTA);
  await expect(page.getByTestId("contato-ST-CONTA")).toHaveValue("3");
  await snap(page, "inventario-lettore");
  await page.getByTestId("anteprima").click();
  await expect(page.getByTestId("risultato")).toContainText("Anteprima");
  await page.getByTestId("conferma").click();
  await page.getByTestId("conferma-scrittura").click();
  await expect(page.getByTestId("risultato")).toContainText("Allineamento scritto");
  expect(await held("ST-CONTA", "ST-A2")).toBe(3);
  await context.close();
});
