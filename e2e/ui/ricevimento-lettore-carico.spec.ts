import { type CDPSession, expect, type Page, test } from "@playwright/test";
import { api, lotsOf, orderRow } from "../support/api";
import { dockRunning, newSession, scan, snap, type User } from "../support/app";
import { GS, typeAsDevice } from "../support/scanner";
import { ean13, seed, today } from "../support/seed";

/**
 * The scanner on a busy handheld, at 360 px: the CPU throttled 4× (CDP Emulation.setCPUThrottlingRate), a
 * scanner whose keys arrive now within the detector's threshold and now past it, scans with the caret in the
 * delivery note or in the quantity; a row label of one digit; GS1 codes whose FNC1 comes as a key (Ctrl+], or
 * a key event carrying GS), as wedges send it. Every outcome checked through /api/v1.
 */
const EAN = {
  DDT: ean13("805999041001"),
  QTA: ean13("805999041002"),
  QTA2: ean13("805999041003"),
  LOTTO: ean13("805999041004"),
  ETICHETTA: ean13("805999041005"),
  STOCCA: ean13("805999041006"),
};
const gtin14 = (ean: string) => `0${ean}`;
/** Gaps of a scanner's keys on a busy handheld, ms: several past the 40 ms threshold, none a person's. */
const BUSY = [12, 26, 112, 31, 45, 28, 90, 33, 38, 71, 29, 43];

let users: Record<"operatore", User>;
let key: string;
let ordini: Record<string, number>;
let articoli: Record<string, number>;
let magazzini: Record<string, number>;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const art = (k: keyof typeof EAN, lotti = false) => ({
    codice: `CA-${k}`,
    descrizione: `Articolo palmare carico ${k.toLowerCase()}`,
    ean: EAN[k],
    ...(lotti ? { gestione_lotti: true } : {}),
  });
  const s = seed("carico", {
    data: {
      magazzini: [
        { codice: "CA-BO", nome: "Palmare carico Bologna" },
        { codice: "CA-MI", nome: "Palmare carico Milano" },
      ],
      fornitori: [{ codice: "CA-F1", nome: "Fornitore palmare carico" }],
      articoli: [art("DDT"), art("QTA"), art("QTA2"), art("LOTTO", true), art("ETICHETTA"), art("STOCCA")],
      ordini: [
        {
          numero: "CA-OA-1",
          fornitore: "CA-F1",
          data: today(),
          magazzino: "CA-BO",
          righe: ["CA-DDT", "CA-QTA", "CA-QTA2", "CA-LOTTO", "CA-ETICHETTA"].map((articolo) => ({ articolo, quantita: 40, prezzo: "1" })),
        },
        {
          numero: "CA-OA-MI",
          fornitore: "CA-F1",
          data: today(),
          magazzino: "CA-MI",
          righe: [{ articolo: "CA-STOCCA", quantita: 40, prezzo: "1" }],
        },
      ],
    },
    roles: ["operatore"],
  });
  users = s.users;
  key = s.key;
  ({ magazzini, articoli } = s.ids);
  ordini = (s.ids as unknown as { ordini: Record<string, number> }).ordini;
  // Milan keeps stock by location: what is received lands in CA-RIC, and is put away from there.
  const ok = async (path: string, body: unknown) => {
    const r = await api(key, "POST", path, body);
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  };
  await ok("/ubicazioni", {
    ubicazioni: ["CA-RIC", "6A-03-02"].map((codice) => ({
      magazzino: "CA-MI",
      codice,
      tipo: codice === "CA-RIC" ? "ricevimento" : "stoccaggio",
    })),
  });
  await ok("/magazzini", {
    magazzini: [{ codice: "CA-MI", nome: "Palmare carico Milano", gestione_ubicazioni: true, ubicazione_ricevimento: "CA-RIC" }],
  });
});

async function prepare(page: Page, ddt: string, warehouse: RegExp) {
  await page.getByTestId("campo-ddt").fill(ddt);
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: warehouse }).click();
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
}

/** The handheld's CPU 4× slower than this machine's, until the session is detached. */
async function throttle(page: Page): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  return cdp;
}

/** The delivery note of an arrival, as the event feed tells integrators (GET /eventi, arrivo.registrato). */
async function ddtOfArrival(movimento: number): Promise<string | undefined> {
  for (let dopo = 0; ; ) {
    const page = (await api(key, "GET", `/eventi?tipo=arrivo.registrato&limite=100&dopo=${dopo}`)).body;
    for (const e of page.eventi as { dati: { ddt?: string; movimenti?: { id: number }[] } }[])
      if (e.dati.movimenti?.some((m) => m.id === movimento)) return e.dati.ddt;
    if (!page.altri) return undefined;
    dopo = page.cursore;
  }
}

/** The row's arrivals through the API: exactly one, of that quantity, under that delivery note. */
async function expectOneArrival(codice: string, want: { quantita: string; ddt: string }) {
  const arrivals = (await orderRow(key, ordini["CA-OA-1"]!, codice)).registrati;
  expect(arrivals).toHaveLength(1);
  expect(arrivals[0]!.quantita).toBe(want.quantita);
  expect(await ddtOfArrival(arrivals[0]!.movimento)).toBe(want.ddt);
}

const shownRow = (page: Page) => page.getByTestId("riga-attesa").getByTestId("articolo-codice");

test("su un palmare carico (CPU ×4) una lettura nel DDT non vi resta attaccata: il DDT registrato è quello scritto", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "", /CA-BO/);
  const cdp = await throttle(page);
  const ddt = page.getByTestId("campo-ddt");
  await ddt.click();
  await typeAsDevice(page, "DDT-W1-001", 150, false);
  // The scanner's keys spread by the busy handheld: several gaps past the threshold.
  await typeAsDevice(page, EAN.DDT, BUSY);
  await expect(shownRow(page)).toHaveText("CA-DDT");
  await expect(ddt).toHaveValue("DDT-W1-001");
  await page.getByTestId("campo-quantita").fill("2");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 2 × CA-DDT");
  await cdp.detach();
  await expectOneArrival("CA-DDT", { quantita: "2", ddt: "DDT-W1-001" });
  await snap(page, "ricevimento-lettura-nel-ddt-palmare-carico");
  await context.close();
});

test("su un palmare carico (CPU ×4) una lettura nella quantità non la cambia: registrata la quantità scritta, poi letta la riga", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-CA-Q", /CA-BO/);
  const cdp = await throttle(page);
  await scan(page, EAN.QTA);
  await expect(shownRow(page)).toHaveText("CA-QTA");
  const quantity = page.getByTestId("campo-quantita");
  await quantity.click();
  await quantity.press("Control+a");
  await typeAsDevice(page, "3", 150, false);
  await typeAsDevice(page, EAN.QTA2, BUSY);
  // The quantity typed is registered, the code read shows its row.
  await expect(page.getByTestId("esito")).toContainText("Registrato: 3 × CA-QTA");
  await expect(shownRow(page)).toHaveText("CA-QTA2");
  await cdp.detach();
  await expectOneArrival("CA-QTA", { quantita: "3", ddt: "DDT-CA-Q" });
  expect((await orderRow(key, ordini["CA-OA-1"]!, "CA-QTA2")).registrati).toHaveLength(0);
  await context.close();
});

test("l'etichetta R1 (una cifra) letta con il cursore nel DDT è una lettura: il DDT resta quello scritto", async ({ browser }) => {
  // R1 is the first order row of the installation (the demo data's, loaded at first start), in its warehouse.
  const rowOne = async () => {
    const r = await api(key, "POST", "/arrivi/cerca", { barcode: "R1" });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const order = r.body.ordini[0] as {
      magazzino: number;
      righe: { riga: number; articolo: { codice: string }; registrati: { movimento: number }[] }[];
    };
    expect(order.righe[0]!.riga).toBe(1);
    return { magazzino: order.magazzino, row: order.righe[0]! };
  };
  const one = await rowOne();
  const warehouses = (await api(key, "GET", "/magazzini?limite=100")).body as { magazzini: { id: number; codice: string }[] };
  const warehouse = warehouses.magazzini.find((m) => m.id === one.magazzino)!.codice;

  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "", new RegExp(warehouse));
  const ddt = page.getByTestId("campo-ddt");
  await ddt.click();
  await page.keyboard.type("CA-4471", { delay: 120 });
  await scan(page, "R1");
  await expect(shownRow(page)).toHaveText(one.row.articolo.codice);
  await expect(ddt).toHaveValue("CA-4471");
  await page.getByTestId("campo-quantita").fill("1");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText(`Registrato: 1 × ${one.row.articolo.codice}`);
  const after = (await rowOne()).row.registrati;
  const added = after.filter((a) => !one.row.registrati.some((b) => b.movimento === a.movimento));
  expect(added).toHaveLength(1);
  expect(await ddtOfArrival(added[0]!.movimento)).toBe("CA-4471");
  await context.close();
});

test("GS1 con FNC1 inviato come tasto (Ctrl+], o un tasto GS): lotto e scadenza separati, registrati così", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-CA-GS1", /CA-BO/);
  const lot = page.getByTestId("campo-lotto");
  const expiry = page.getByTestId("campo-scadenza");
  // Into the scan field: the separator as Ctrl+].
  await typeAsDevice(page, `01${gtin14(EAN.LOTTO)}10LOT1${GS}17271231`, 3, true, "ctrl]");
  await expect(shownRow(page)).toHaveText("CA-LOTTO");
  await expect(lot).toHaveValue("LOT1");
  await expect(expiry).toHaveValue("31/12/2027");
  await page.getByTestId("campo-quantita").fill("4");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 4 × CA-LOTTO");
  // Into the lot field of the row, read by its label: the separator as a key event carrying GS.
  await scan(page, (await orderRow(key, ordini["CA-OA-1"]!, "CA-LOTTO")).etichetta);
  await expect(lot).toBeFocused();
  await typeAsDevice(page, `01${gtin14(EAN.LOTTO)}10LOT2${GS}17280131`, 3, true, "gs");
  await expect(lot).toHaveValue("LOT2");
  await expect(expiry).toHaveValue("31/01/2028");
  await page.getByTestId("campo-quantita").fill("5");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 5 × CA-LOTTO");
  const lots = await lotsOf(key, articoli["CA-LOTTO"]!, magazzini["CA-BO"]!);
  expect(lots).toEqual(
    expect.arrayContaining([
      { lotto: "LOT1", scadenza: "2027-12-31", residua: "4" },
      { lotto: "LOT2", scadenza: "2028-01-31", residua: "5" },
    ]),
  );
  expect(lots.filter((l) => l.lotto === "LOT1" || l.lotto === "LOT2")).toHaveLength(2);
  await context.close();
});

test("il separatore GS1 che il lettore invia si imposta nel palmare: F8 letto come FNC1", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-CA-F8", /CA-BO/);
  await page.getByTestId("impostazioni-lettore").click();
  await page.getByTestId("separatore-gs1").fill("F8");
  await snap(page, "lettore-impostazioni-separatore");
  await page.getByRole("button", { name: "Salva" }).click();
  await expect(page.getByRole("dialog")).toBeHidden();
  await page.getByTestId("campo-scansione").focus();
  await typeAsDevice(page, `01${gtin14(EAN.LOTTO)}10LOT3${GS}17290630`, 3, true, { key: "F8" });
  await expect(shownRow(page)).toHaveText("CA-LOTTO");
  await expect(page.getByTestId("campo-lotto")).toHaveValue("LOT3");
  await expect(page.getByTestId("campo-scadenza")).toHaveValue("30/06/2029");
  await page.getByTestId("campo-quantita").fill("6");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 6 × CA-LOTTO");
  expect(await lotsOf(key, articoli["CA-LOTTO"]!, magazzini["CA-BO"]!)).toContainEqual({
    lotto: "LOT3",
    scadenza: "2029-06-30",
    residua: "6",
  });
  await context.close();
});

test("stoccaggio su un palmare carico (CPU ×4): l'ubicazione letta con il cursore nella quantità è la destinazione, la quantità resta", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-CA-MI", /CA-MI/);
  await scan(page, EAN.STOCCA);
  await page.getByTestId("campo-quantita").fill("10");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 10 × CA-STOCCA");

  await page.goto("/stoccaggio");
  await dockRunning(page);
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /Palmare carico Milano/ }).click();
  await page.getByTestId("campo-scansione").focus();
  await scan(page, EAN.STOCCA);
  await expect(page.getByTestId("merce-da-stoccare")).toContainText("CA-STOCCA");
  const cdp = await throttle(page);
  const quantity = page.getByTestId("campo-quantita");
  await quantity.click();
  await quantity.press("Control+a");
  await typeAsDevice(page, "4", 150, false);
  // The location's label read by the busy handheld's scanner, the caret still in the quantity.
  await typeAsDevice(page, "6A-03-02", BUSY);
  await expect(page.getByTestId("destinazione")).toContainText("6A-03-02");
  await expect(quantity).toHaveValue("4");
  await quantity.press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Stoccato: 4 PZ di CA-STOCCA in 6A-03-02");
  await cdp.detach();
  const r = await api(
    key,
    "GET",
    `/giacenze-ubicazioni?magazzino=${magazzini["CA-MI"]}&articolo=${articoli["CA-STOCCA"]}&ubicazione=6A-03-02`,
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect((r.body.giacenze as { quantita: string }[]).map((g) => g.quantita)).toEqual(["4"]);
  await context.close();
});
