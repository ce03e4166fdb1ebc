import { expect, test } from "@playwright/test";
import { api } from "../support/api";
import { newSession, scan, snap, type User, dockRunning } from "../support/app";
import { seedNotice, ssccSeries } from "../support/notices";
import { seed, today } from "../support/seed";

/** docs/api.md section 12 on the handheld: one scan of a pallet's SSCC, a row marked damaged, Enter receives it all. */

/** The SSCCs of this spec's own pallets. */
const sscc = ssccSeries("8059990");

let users: Record<"operatore" | "responsabile", User>;
let key: string;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const data = {
    magazzini: [{ codice: "COL-M1", nome: "Colli uno" }],
    fornitori: [{ codice: "COL-FERR", nome: "Ferramenta Colli S.r.l." }],
    articoli: [
      { codice: "COL-VITE", descrizione: "Vite colli M6" },
      { codice: "COL-DADO", descrizione: "Dado colli M6" },
    ],
    ordini: [
      {
        numero: "COL-OA-1",
        fornitore: "COL-FERR",
        data: today(),
        magazzino: "COL-M1",
        righe: [
          { articolo: "COL-VITE", quantita: 20, prezzo: "1" },
          { articolo: "COL-DADO", quantita: 10, prezzo: "0.5" },
        ],
      },
    ],
  };
  const s = seed("colli", { data, roles: ["operatore", "responsabile"] });
  users = s.users;
  key = s.key;
  await seedNotice(key, {
    numero: "COL-AV-1",
    fornitore: "COL-FERR",
    magazzino: "COL-M1",
    colli: [
      {
        sscc: sscc(1),
        righe: [
          { ordine: "COL-OA-1", numero_riga: 1, quantita: 12 },
          { ordine: "COL-OA-1", numero_riga: 2, quantita: 10 },
        ],
      },
    ],
  });
});

test("un SSCC letto mostra il collo; una riga segnata danneggiata, Invio: l'ordine mostra l'arrivato, le differenze il danno", async ({
  browser,
}) => {
  const { page } = await newSession(browser, users.operatore);
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto("/ricevimento");
  // The warehouse's list opens only once the screen runs.
  await dockRunning(page);
  await page.getByTestId("campo-ddt").fill("DDT-COL-1");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /COL-M1/ }).click();
  await expect(page.getByTestId("campo-scansione")).toBeFocused();

  await scan(page, `(00)${sscc(1)}`);
  const pallet = page.getByTestId("collo");
  await expect(pallet).toBeVisible();
  await expect(pallet.getByTestId("riga-collo-0")).toContainText("COL-VITE");
  await expect(pallet.getByTestId("riga-collo-1")).toContainText("COL-DADO");

  await pallet.getByTestId("riga-collo-0").getByTestId("segna-differenza").click();
  await pallet.getByTestId("quantita-differenza").fill("2");
  await pallet.getByTestId("salva-differenza").click();
  await expect(pallet.getByTestId("differenza-segnata")).toHaveText(/danneggiato 2/);
  await snap(page, "collo-segnato");

  await page.getByTestId("campo-scansione").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText(/Collo \d+ ricevuto: 2 righe registrate, 1 differenza annotata/)).toBeVisible();
  await expect(pallet).toHaveCount(0);

  // What arrived, through the API: the damaged 2 never came in.
  const orders = await api(key, "GET", "/ordini-acquisto?cerca=COL-OA-1");
  expect(orders.body.ordini[0].righe.map((r: { arrivata: string }) => r.arrivata)).toEqual(["10", "10"]);
  const diffs = await api(key, "GET", "/differenze-ricevimento?motivo=danneggiato");
  const mine = diffs.body.differenze.filter((d: { sscc: string }) => d.sscc === sscc(1));
  expect(mine).toHaveLength(1);
  expect(mine[0]).toMatchObject({ quantita: "2", attesa: "12", ricevuta: "10", articolo: { codice: "COL-VITE" } });

  // The manager's screens show the same.
  const manager = await newSession(browser, users.responsabile);
  await manager.page.goto("/ordini");
  await manager.page.getByTestId("cerca-ordini").fill("COL-OA-1");
  await manager.page.getByTestId("righe-COL-OA-1").click();
  await expect(manager.page.getByTestId("riga-1")).toContainText("COL-VITE");
  await expect(manager.page.getByTestId("arrivata-1")).toHaveText("10");
  await expect(manager.page.getByTestId("arrivata-2")).toHaveText("10");
  await manager.page.goto("/avvisi");
  const row = manager.page.getByTestId(`differenza-${mine[0].id}`);
  await expect(row.getByTestId("motivo")).toHaveText("danneggiato");
  await expect(row.getByTestId("quantita")).toHaveText("2");
  await expect(manager.page.getByTestId("avviso-COL-AV-1")).toContainText("ricevuto");
  await snap(manager.page, "avvisi");
});
