import { expect, type Page, test } from "@playwright/test";
import { api, lotsOf, orderRow } from "../support/api";
import { newSession, scan, signIn, slowHandheld, snap, type User } from "../support/app";
import { ean13, seed, today } from "../support/seed";

/**
 * The receiving screen under a real dock's scanner, at 360 px: a keyboard-wedge burst (the code typed in a few
 * milliseconds, then Enter) into whatever has the focus — the lot, the quantity, the delivery note, a dialog.
 * Every outcome is checked through /api/v1 too. Each test has articles of its own.
 */
const EAN = {
  LOTTO: ean13("805999010001"),
  ALTRO: ean13("805999010002"),
  MULTI: ean13("805999010003"),
  SOLO_VR: ean13("805999010004"),
  CONTA: ean13("805999010005"),
  SEGUE: ean13("805999010006"),
  S2: ean13("805999010007"),
  DIALOGO: ean13("805999010008"),
  DDT: ean13("805999010009"),
  PRONTO: ean13("805999010010"),
  PRIMA: ean13("805999010011"),
  SENZA_RETE: ean13("805999010012"),
};
const gtin14 = (ean: string) => `0${ean}`;

let users: Record<"operatore", User>;
let key: string;
let ordini: Record<string, number>;
let articoli: Record<string, number>;
let magazzini: Record<string, number>;

function daysAgo(n: number): string {
  const d = new Date(`${today()}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() - n);
  return d.toISOString().slice(0, 10);
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const art = (k: keyof typeof EAN, lotti = false) => ({
    codice: `SC-${k}`,
    descrizione: `Articolo lettore ${k.toLowerCase()}`,
    ean: EAN[k],
    ...(lotti ? { gestione_lotti: true } : {}),
  });
  const order = (numero: string, magazzino: string, righe: [string, number][], data = today(), fornitore = "SC-F1") => ({
    numero,
    fornitore,
    data,
    magazzino,
    righe: righe.map(([articolo, quantita]) => ({ articolo, quantita, prezzo: "1" })),
  });
  const data = {
    magazzini: [
      { codice: "SC-BO", nome: "Lettore Bologna" },
      { codice: "SC-VR", nome: "Lettore Verona" },
    ],
    fornitori: [
      { codice: "SC-F1", nome: "Fornitore Lettore Uno" },
      { codice: "SC-F2", nome: "Fornitore Lettore Due" },
    ],
    articoli: [
      art("LOTTO", true),
      art("ALTRO"),
      art("MULTI"),
      art("SOLO_VR"),
      art("CONTA"),
      art("SEGUE"),
      art("S2"),
      art("DIALOGO"),
      art("DDT"),
      art("PRONTO"),
      art("PRIMA"),
      art("SENZA_RETE"),
    ],
    ordini: [
      order("SC-OA-LOTTO", "SC-BO", [
        ["SC-LOTTO", 50],
        ["SC-ALTRO", 10],
      ]),
      // The oldest order of SC-MULTI is Verona's: Bologna must not be offered it.
      order(
        "SC-OA-VR",
        "SC-VR",
        [
          ["SC-MULTI", 10],
          ["SC-SOLO_VR", 10],
        ],
        daysAgo(3),
      ),
      order("SC-OA-BO1", "SC-BO", [["SC-MULTI", 20]], daysAgo(1)),
      order("SC-OA-BO2", "SC-BO", [["SC-MULTI", 20]]),
      order("SC-OA-CONTA", "SC-BO", [
        ["SC-CONTA", 500],
        ["SC-SEGUE", 100],
        ["SC-DIALOGO", 40],
        ["SC-DDT", 30],
        ["SC-PRONTO", 30],
      ]),
      order("SC-OA-F2", "SC-BO", [["SC-S2", 10]], today(), "SC-F2"),
      order("SC-OA-PRIMA", "SC-BO", [
        ["SC-PRIMA", 10],
        ["SC-SENZA_RETE", 10],
      ]),
    ],
  };
  const s = seed("lettore", { data, roles: ["operatore"] });
  users = s.users;
  key = s.key;
  ({ magazzini, articoli } = s.ids);
  ordini = (s.ids as unknown as { ordini: Record<string, number> }).ordini;
});

async function prepare(page: Page, ddt: string, warehouse = "SC-BO") {
  await page.getByTestId("campo-ddt").fill(ddt);
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: new RegExp(warehouse) }).click();
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
}

const label = async (ordine: string, codice: string) => (await orderRow(key, ordini[ordine]!, codice)).etichetta;

test("GS1 senza separatori letto nel campo Lotto: lotto e scadenza separati, e il GTIN deve essere dell'articolo", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-SC-1");
  await scan(page, await label("SC-OA-LOTTO", "SC-LOTTO"));
  const lot = page.getByTestId("campo-lotto");
  await expect(lot).toBeFocused();
  // Another article's GS1 code: its lot is not this row's.
  await scan(page, `01${gtin14(EAN.ALTRO)}1731123110LALTRO`);
  await expect(page.getByTestId("esito")).toContainText("Lotto di un altro articolo");
  await expect(lot).toHaveValue("");
  // The raw form: (01) and (17) fixed-length before the variable (10), no brackets, no ]C1.
  await scan(page, `01${gtin14(EAN.LOTTO)}1731123110LRAW1`);
  await expect(lot).toHaveValue("LRAW1");
  await expect(page.getByTestId("campo-scadenza")).toHaveValue("31/12/2031");
  await page.getByTestId("campo-quantita").fill("10");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 10 × SC-LOTTO");
  expect(await lotsOf(key, articoli["SC-LOTTO"]!, magazzini["SC-BO"]!)).toEqual([
    { lotto: "LRAW1", scadenza: "2031-12-31", residua: "10" },
  ]);
  await context.close();
});

test("il magazzino scelto prima: proposta una sua riga, un articolo atteso altrove non è proposto, nessuna lettura nella quantità", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-SC-2");
  await scan(page, EAN.MULTI);
  const row = page.getByTestId("riga-attesa");
  await expect(row).toContainText("SC-OA-BO1");
  await expect(page.getByTestId("esito")).toContainText("2 righe attese per questo articolo in questo magazzino");
  const quantity = page.getByTestId("campo-quantita");
  await quantity.fill("3");
  // A scan while the caret is in Quantità: read as a scan, never typed there.
  await quantity.focus();
  await scan(page, EAN.SOLO_VR);
  await expect(page.getByTestId("esito")).toContainText("Atteso solo in SC-VR");
  await expect(quantity).toHaveValue("3");
  await expect(row).toContainText("SC-OA-BO1");
  await quantity.press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 3 × SC-MULTI");
  expect((await orderRow(key, ordini["SC-OA-BO1"]!, "SC-MULTI")).arrivata).toBe("3");
  expect((await orderRow(key, ordini["SC-OA-VR"]!, "SC-MULTI")).arrivata).toBe("0");
  // Verona's row by its label: shown as Verona's; Enter puts the caret on the warehouse, writes nothing.
  await scan(page, await label("SC-OA-VR", "SC-MULTI"));
  await expect(page.getByTestId("riga-altro-magazzino")).toContainText("SC-VR");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Riga per SC-VR");
  await expect(page.getByTestId("campo-magazzino")).toBeFocused();
  expect((await orderRow(key, ordini["SC-OA-VR"]!, "SC-MULTI")).arrivata).toBe("0");
  await snap(page, "ricevimento-riga-altro-magazzino");
  await context.close();
});

test("con un dialogo aperto una lettura aspetta in coda, visibile, e il suo Invio non preme nessun pulsante", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-SC-3");
  await scan(page, EAN.DIALOGO);
  await page.getByTestId("campo-quantita").fill("4");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 4 × SC-DIALOGO");
  const arrival = (await orderRow(key, ordini["SC-OA-CONTA"]!, "SC-DIALOGO")).registrati[0]!;
  await page.getByTestId(`annulla-${arrival.movimento}`).click();
  await expect(page.getByRole("dialog")).toBeVisible();
  await scan(page, EAN.CONTA);
  await expect(page.getByTestId("codici-in-coda-dialogo")).toContainText(EAN.CONTA);
  await expect(page.getByRole("dialog")).toBeVisible();
  await snap(page, "ricevimento-lettura-con-dialogo");
  expect((await orderRow(key, ordini["SC-OA-CONTA"]!, "SC-DIALOGO")).registrati).toHaveLength(1);
  await page.getByTestId("non-annullare").click();
  await expect(page.getByTestId("riga-attesa").getByTestId("articolo-codice")).toHaveText("SC-CONTA");
  await page.getByRole("button", { name: "Lascia" }).click();

  // The choice over a row not yet registered: a second scan joins the first one waiting, none is lost.
  await scan(page, EAN.DIALOGO);
  await scan(page, EAN.SEGUE);
  const choice = page.getByTestId("scelta-riga-in-sospeso");
  await expect(choice).toContainText("Quantità da confermare");
  await scan(page, EAN.CONTA);
  await expect(choice).toContainText(`${EAN.SEGUE}, ${EAN.CONTA}`);
  expect((await orderRow(key, ordini["SC-OA-CONTA"]!, "SC-DIALOGO")).arrivata).toBe("4");
  await page.getByTestId("scarta-riga").click();
  await expect(page.getByTestId("riga-attesa").getByTestId("articolo-codice")).toHaveText("SC-SEGUE");
  // SC-SEGUE shown, its quantity proposed: the next code waiting stops on the choice again, nothing registered.
  await expect(choice).toContainText("SC-SEGUE");
  await page.getByTestId("scarta-riga").click();
  await expect(page.getByTestId("riga-attesa").getByTestId("articolo-codice")).toHaveText("SC-CONTA");
  expect((await orderRow(key, ordini["SC-OA-CONTA"]!, "SC-SEGUE")).arrivata).toBe("0");
  await context.close();
});

test("una lettura con il cursore nel DDT non vi finisce dentro; un DDT già usato per un altro fornitore è fermato", async ({ browser }) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "");
  const ddt = page.getByTestId("campo-ddt");
  await ddt.click();
  await page.keyboard.type("4471", { delay: 120 });
  await scan(page, await label("SC-OA-CONTA", "SC-DDT"));
  await expect(page.getByTestId("riga-attesa").getByTestId("articolo-codice")).toHaveText("SC-DDT");
  await expect(ddt).toHaveValue("4471");
  await page.getByTestId("campo-quantita").fill("1");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 1 × SC-DDT");
  await expect(page.getByTestId("arrivi-oggi")).toContainText("DDT 4471");
  // The same delivery note for a row of the other supplier: stopped, the caret on the DDT.
  await scan(page, EAN.S2);
  await page.getByTestId("campo-quantita").fill("2");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("DDT di un altro fornitore");
  await expect(ddt).toBeFocused();
  expect((await orderRow(key, ordini["SC-OA-F2"]!, "SC-S2")).arrivata).toBe("0");
  await context.close();
});

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

/** The order row's arrivals, as an integrator reads them: exactly one, of that quantity, under that delivery note. */
async function expectOneArrival(ordine: string, codice: string, want: { quantita: string; ddt: string }) {
  const arrivals = (await orderRow(key, ordini[ordine]!, codice)).registrati;
  expect(arrivals).toHaveLength(1);
  expect(arrivals[0]!.quantita).toBe(want.quantita);
  expect(await ddtOfArrival(arrivals[0]!.movimento)).toBe(want.ddt);
}

/** The receiving screen opened again as the server draws it, its scripts held back: the caret is already in the scan field. */
async function reopenDrawnOnly(page: Page, holdScripts: () => Promise<() => void>) {
  const release = await holdScripts();
  await page.goto("/ricevimento", { waitUntil: "domcontentloaded" });
  const field = page.getByTestId("campo-scansione");
  await expect(field).toBeFocused();
  return { release, field };
}

test("il DDT scritto mentre la pagina si carica resta nel DDT: il cursore non salta al campo di lettura, la lettura dopo legge solo il suo codice", async ({
  browser,
}) => {
  const { context, page, holdScripts, mountedAndFramed } = await slowHandheld(browser);
  await signIn(page, users.operatore);
  // The screen drawn, its scripts not yet run, and the operator starts on the delivery note.
  const release = await holdScripts();
  await page.goto("/ricevimento", { waitUntil: "domcontentloaded" });
  const ddt = page.getByTestId("campo-ddt");
  await ddt.click();
  await page.keyboard.type("DDT-SC-7", { delay: 60 });
  release();
  // Live: the screen's first focus request, made as it mounted, has been carried out.
  await mountedAndFramed();
  await expect(ddt).toBeFocused();
  await expect(ddt).toHaveValue("DDT-SC-7");
  await expect(page.getByTestId("campo-scansione")).toHaveValue("");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /SC-BO/ }).click();
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  await scan(page, EAN.PRONTO);
  await expect(page.getByTestId("riga-attesa").getByTestId("articolo-codice")).toHaveText("SC-PRONTO");
  await page.getByTestId("campo-quantita").fill("2");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 2 × SC-PRONTO");
  await expectOneArrival("SC-OA-CONTA", "SC-PRONTO", { quantita: "2", ddt: "DDT-SC-7" });
  await context.close();
});

test("una lettura fatta mentre la pagina si carica non va persa: letta quando la schermata parte, la seguente legge solo il suo codice", async ({
  browser,
}) => {
  const { context, page, holdScripts, mountedAndFramed } = await slowHandheld(browser);
  await signIn(page, users.operatore);
  await prepare(page, "DDT-SC-8");
  // Back to the screen on a slow handheld, and the operator scans at once.
  const { release, field } = await reopenDrawnOnly(page, holdScripts);
  await scan(page, EAN.PRIMA);
  await expect(field).toHaveValue(EAN.PRIMA);
  release();
  await mountedAndFramed();
  await expect(page.getByTestId("riga-attesa").getByTestId("articolo-codice")).toHaveText("SC-PRIMA");
  await expect(field).toHaveValue("");
  await expect(field).toBeFocused();
  // The next scan is read alone (glued to the first, it would be a code nobody knows): the same article counts.
  await scan(page, EAN.PRIMA);
  await expect(page.getByTestId("esito")).toContainText("Contati 2 × SC-PRIMA");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 2 × SC-PRIMA");
  await expectOneArrival("SC-OA-PRIMA", "SC-PRIMA", { quantita: "2", ddt: "DDT-SC-8" });
  await context.close();
});

test("senza rete, una lettura fatta mentre la pagina si carica è letta dalla copia del palmare, messa in coda e inviata una volta", async ({
  browser,
}) => {
  const { context, page, holdScripts, mountedAndFramed } = await slowHandheld(browser);
  await signIn(page, users.operatore);
  await prepare(page, "DDT-SC-9");
  // The copy of the warehouse's expected rows is on the handheld.
  await expect(page.getByTestId("da-inviare")).toHaveAttribute("data-copia-righe", /^[1-9]/);
  const { release, field } = await reopenDrawnOnly(page, holdScripts);
  // A dead spot as the screen starts: the scan is read from the copy once the copy has been read back.
  await context.setOffline(true);
  await scan(page, EAN.SENZA_RETE);
  release();
  await mountedAndFramed();
  await expect(page.getByTestId("riga-attesa").getByTestId("articolo-codice")).toHaveText("SC-SENZA_RETE");
  await expect(field).toHaveValue("");
  await page.getByTestId("campo-quantita").fill("3");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("In coda: 3 × SC-SENZA_RETE");
  expect((await orderRow(key, ordini["SC-OA-PRIMA"]!, "SC-SENZA_RETE")).registrati).toHaveLength(0);
  await context.setOffline(false);
  await expect(page.getByTestId("da-inviare")).not.toContainText("Da inviare", { timeout: 30_000 });
  await expectOneArrival("SC-OA-PRIMA", "SC-SENZA_RETE", { quantita: "3", ddt: "DDT-SC-9" });
  await context.close();
});

test("contare leggendo: ogni lettura dello stesso articolo conta 1; l'articolo seguente registra il contato, mai il residuo non confermato", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-SC-5");
  await scan(page, EAN.CONTA);
  const quantity = page.getByTestId("campo-quantita");
  await expect(quantity).toHaveValue("500");
  await expect(page.getByTestId("stato-quantita")).toContainText("proposta");
  await scan(page, EAN.CONTA);
  await scan(page, EAN.CONTA);
  await expect(quantity).toHaveValue("3");
  await expect(page.getByTestId("esito")).toContainText("Contati 3 × SC-CONTA");
  await scan(page, EAN.SEGUE);
  await expect(page.getByTestId("esito")).toContainText("Registrato: 3 × SC-CONTA");
  await expect(page.getByTestId("riga-attesa").getByTestId("articolo-codice")).toHaveText("SC-SEGUE");
  expect((await orderRow(key, ordini["SC-OA-CONTA"]!, "SC-CONTA")).arrivata).toBe("3");
  // SC-SEGUE's quantity is the remainder nobody confirmed: the next article stops on the choice.
  await scan(page, EAN.DIALOGO);
  await expect(page.getByTestId("scelta-riga-in-sospeso")).toContainText("Quantità da confermare");
  expect((await orderRow(key, ordini["SC-OA-CONTA"]!, "SC-SEGUE")).arrivata).toBe("0");
  await snap(page, "ricevimento-quantita-da-confermare");
  await context.close();
});

test("piccole cose: il calendario della scadenza sta nei 360 px; «Indicare il DDT» sparisce quando il DDT è scritto", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "");
  await scan(page, await label("SC-OA-LOTTO", "SC-LOTTO"));
  await page.getByTestId("campo-scadenza").click();
  const calendar = page.locator("[class*='dropdown']").filter({ has: page.locator("table") });
  await expect(calendar).toBeVisible();
  const box = (await calendar.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(360);
  await snap(page, "ricevimento-calendario-scadenza");
  await page.keyboard.press("Escape");
  await page.getByTestId("campo-lotto").fill("L1");
  await page.getByTestId("campo-quantita").fill("1");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Indicare il DDT");
  await page.getByTestId("campo-ddt").fill("DDT-SC-6");
  await expect(page.getByTestId("esito")).not.toContainText("Indicare il DDT");
  await context.close();
});
