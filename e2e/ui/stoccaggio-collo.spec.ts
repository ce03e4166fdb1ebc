import net from "node:net";
import { expect, type Page, test } from "@playwright/test";
import { api, orderRow } from "../support/api";
import { newSession, scan, snap, type User, dockRunning } from "../support/app";
import { seedNotice, ssccSeries } from "../support/notices";
import { ean13, seed, today } from "../support/seed";

/**
 * Putaway by SSCC at 360 px with the keyboard-wedge scanner (docs/api.md section 11 "Putaway detail", section 12):
 * a pallet received by REST waits in the receiving location; its SSCC read on /stoccaggio shows what of it
 * waits, the destination's label and Enter put all of it away in one operation; offline the same scans queue
 * it once. Then the label of what was put away, one key (F2) to a printer on loopback (section 13). Every
 * outcome is read back through /api/v1 (GET /giacenze-ubicazioni, GET /movimenti, GET /stampe/{id}).
 */
const EAN = { BULLONE: ean13("800730000101"), OLIO: ean13("800730000102") };
const GS1 = ssccSeries("8007325");
const SSCC = { UNO: GS1(900001), DUE: GS1(900002) };

let users: Record<"operatore" | "amministratore", User>;
let key: string;
let articoli: Record<string, number>;
let magazzino: number;
const received: string[] = [];
let printer: net.Server;
let port: number;

test.beforeAll(async ({ browser }) => {
  test.setTimeout(240_000);
  printer = net.createServer((socket) => {
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("end", () => {
      received.push(Buffer.concat(chunks).toString());
      socket.end();
    });
  });
  await new Promise<void>((r) => printer.listen(0, "127.0.0.1", r));
  port = (printer.address() as net.AddressInfo).port;
  const s = seed("stoccaggio-collo", {
    data: {
      magazzini: [{ codice: "MAG-STO-E", nome: "Stoccaggio colli" }],
      fornitori: [{ codice: "FORN-STO-E", nome: "Fornitore colli" }],
      articoli: [
        { codice: "STO-BULLONE", descrizione: "Bullone M8", ean: EAN.BULLONE },
        { codice: "STO-OLIO", descrizione: "Olio 1 l", ean: EAN.OLIO, gestione_lotti: true },
      ],
      ordini: [
        {
          numero: "STO-OA-1",
          fornitore: "FORN-STO-E",
          data: today(),
          magazzino: "MAG-STO-E",
          righe: [
            { articolo: "STO-BULLONE", quantita: 500, prezzo: "1" },
            { articolo: "STO-OLIO", quantita: 500, prezzo: "1" },
          ],
        },
      ],
    },
    roles: ["operatore", "amministratore"],
  });
  ({ users, key } = s);
  articoli = s.ids.articoli;
  magazzino = s.ids.magazzini["MAG-STO-E"]!;
  const ok = async (path: string, body: unknown) => {
    const r = await api(key, "POST", path, body);
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    return r.body;
  };
  await ok("/ubicazioni", {
    ubicazioni: ["STE-RIC", "STE-A1", "STE-A2", "STE-B1"].map((codice) => ({
      magazzino: "MAG-STO-E",
      codice,
      tipo: codice === "STE-RIC" ? "ricevimento" : "stoccaggio",
    })),
  });
  await ok("/magazzini", {
    magazzini: [{ codice: "MAG-STO-E", nome: "Stoccaggio colli", gestione_ubicazioni: true, ubicazione_ricevimento: "STE-RIC" }],
  });
  // The olive oil's place is STE-A2: the pallet's largest line, so the pallet's proposal.
  await ok("/articoli", {
    articoli: [
      {
        codice: "STO-OLIO",
        descrizione: "Olio 1 l",
        ean: EAN.OLIO,
        gestione_lotti: true,
        ubicazioni_preferite: [{ magazzino: "MAG-STO-E", ubicazione: "STE-A2" }],
      },
    ],
  });
  const pallet = (sscc: string) => ({
    sscc,
    righe: [
      { ordine: "STO-OA-1", numero_riga: 1, quantita: 10 },
      { ordine: "STO-OA-1", numero_riga: 2, quantita: 24, lotto: "OL-26", scadenza: "2027-06-30" },
    ],
  });
  await seedNotice(key, {
    numero: "AV-STO-E1",
    fornitore: "FORN-STO-E",
    magazzino: "MAG-STO-E",
    colli: [pallet(SSCC.UNO), pallet(SSCC.DUE)],
  });
  // A worker restarted after a failure seeds again: a pallet received already stays received.
  for (const sscc of [SSCC.UNO, SSCC.DUE]) {
    const r = await api(key, "POST", `/colli/${sscc}/ricevi`, { ddt: "DDT-STO-E1" });
    expect([200, 409], JSON.stringify(r.body)).toContain(r.status);
  }
  // The administrator registers the dock's printer (a listener on loopback, its port in the name: a worker
  // restarted after a failure listens on another).
  const admin = await newSession(browser, users.amministratore, 1280);
  await admin.page.goto("/stampanti");
  await admin.page.getByTestId("stampante-nome").fill(PRINTER());
  await admin.page.getByTestId("stampante-indirizzo").fill(`127.0.0.1:${port}`);
  await admin.page.getByTestId("aggiungi-stampante").click();
  await expect(admin.page.getByText(`127.0.0.1:${port}`).first()).toBeVisible();
  await admin.context.close();
});

const PRINTER = () => `Scaffale E2E ${port}`;

/** This device's printer, on the putaway screen's label panel (kept in the browser). */
async function choosePrinter(page: Page) {
  await page.getByTestId("stampante-etichette").click();
  await page.getByRole("option", { name: PRINTER() }).click();
  await page.getByTestId("campo-scansione").focus();
}

test.afterAll(async () => {
  await new Promise<void>((r) => printer.close(() => r()));
});

/** What a location holds of an article, as an integrator reads it. */
async function held(codice: string, ubicazione: string): Promise<number> {
  const r = await api(key, "GET", `/giacenze-ubicazioni?magazzino=${magazzino}&articolo=${articoli[codice]}&ubicazione=${ubicazione}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body.giacenze as { quantita: string }[]).reduce((s, g) => s + Number(g.quantita), 0);
}

async function openPutaway(page: Page) {
  await page.goto("/stoccaggio");
  await dockRunning(page);
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /Stoccaggio colli/ }).click();
  await page.getByTestId("campo-scansione").focus();
}

test("un collo per SSCC: lettura, proposta, etichetta dell'ubicazione, Invio; tutto il collo in un'operazione, poi la sua etichetta con F2", async ({
  browser,
}) => {
  // GET /da-stoccare names the pallet of the rows it lies in.
  const waiting = await api(key, "GET", `/da-stoccare?magazzino=${magazzino}`);
  expect(waiting.body.da_stoccare.map((d: { sscc: string | null }) => d.sscc)).toEqual([SSCC.UNO, SSCC.UNO]);

  const { page, context } = await newSession(browser, users.operatore);
  await openPutaway(page);
  await choosePrinter(page);

  await scan(page, SSCC.UNO);
  const task = page.getByTestId("collo-da-stoccare");
  await expect(task).toContainText(`Collo ${SSCC.UNO}`);
  await expect(page.getByTestId("righe-collo")).toContainText("STO-BULLONE");
  await expect(page.getByTestId("righe-collo")).toContainText("OL-26");
  await expect(page.getByTestId("proposta")).toContainText("STE-A2");
  // A wrong label: refused aloud, the scan field ready again, nothing moved.
  await scan(page, "STE-ZZ");
  await expect(page.getByTestId("esito")).toHaveAttribute("data-esito", "ko");
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  await scan(page, "STE-A2");
  await expect(page.getByTestId("destinazione")).toContainText("STE-A2");
  await snap(page, "stoccaggio-collo");
  // A reload keeps the pallet shown and the destination read: Enter still confirms them.
  await page.reload();
  await expect(page.getByTestId("collo-da-stoccare")).toContainText(`Collo ${SSCC.UNO}`);
  await expect(page.getByTestId("destinazione")).toContainText("STE-A2");
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("esito")).toContainText(`Stoccato: collo ${SSCC.UNO} in STE-A2`);

  expect(await held("STO-BULLONE", "STE-A2")).toBe(10);
  expect(await held("STO-OLIO", "STE-A2")).toBe(24);
  expect(await held("STO-BULLONE", "STE-RIC")).toBe(10); // the second pallet still waits
  const moves = await api(key, "GET", `/movimenti?articolo=${articoli["STO-OLIO"]}&origine=stoccaggio`);
  const bolts = await api(key, "GET", `/movimenti?articolo=${articoli["STO-BULLONE"]}&origine=stoccaggio`);
  expect(moves.body.movimenti).toHaveLength(2);
  // One operation for the whole pallet.
  expect(new Set([...moves.body.movimenti, ...bolts.body.movimenti].map((m: { operazione: number }) => m.operazione)).size).toBe(1);

  // The pallet's label, one key.
  await page.keyboard.press("F2");
  await expect.poll(() => received.length, { timeout: 15_000 }).toBe(1);
  expect(received[0]).toContain(SSCC.UNO);
  const job = Number(await page.getByTestId("stato-stampa").getAttribute("data-stampa"));
  await expect.poll(async () => (await api(key, "GET", `/stampe/${job}`)).body.stato).toBe("stampata");
  await snap(page, "stoccaggio-collo-etichetta");

  // Read again: already put away.
  await scan(page, SSCC.UNO);
  await expect(page.getByTestId("esito")).toHaveAttribute("data-esito", "ko");
  await context.close();
});

test("senza rete il collo si legge dalla copia del palmare, va in coda una volta sola e parte al ritorno della rete", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await openPutaway(page);
  await expect(page.getByRole("heading", { name: /Da stoccare \([1-9]/ })).toBeVisible();

  await context.setOffline(true);
  await scan(page, SSCC.DUE);
  await expect(page.getByTestId("collo-da-stoccare")).toContainText(`Collo ${SSCC.DUE}`);
  await scan(page, "STE-B1");
  await expect(page.getByTestId("destinazione")).toContainText("STE-B1");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("esito")).toContainText(`In coda: collo ${SSCC.DUE} in STE-B1`);
  await expect(page.getByTestId("stoccaggio-in-coda")).toHaveCount(1);
  // The same pallet read again on this handheld: it is queued already, never twice.
  await scan(page, SSCC.DUE);
  await expect(page.getByTestId("esito")).toContainText("Collo già in coda");
  await expect(page.getByTestId("stoccaggio-in-coda")).toHaveCount(1);
  expect(await held("STO-BULLONE", "STE-B1")).toBe(0);

  await context.setOffline(false);
  await expect(page.getByTestId("stoccaggio-in-coda")).toHaveCount(0, { timeout: 20_000 });
  expect(await held("STO-BULLONE", "STE-B1")).toBe(10);
  expect(await held("STO-OLIO", "STE-B1")).toBe(24);
  expect(await held("STO-BULLONE", "STE-RIC")).toBe(0);
  expect(await held("STO-OLIO", "STE-RIC")).toBe(0);
  await context.close();
});

test("uno stoccaggio di un articolo a lotti offre l'etichetta del lotto: F2 e la stampante la riceve", async ({ browser }) => {
  // A lot arrival line by line (not a pallet), put away by its GS1 code.
  const orders = await api(key, "GET", "/ordini-acquisto?cerca=STO-OA-1");
  const ordine = orders.body.ordini[0].id as number;
  const riga = (await orderRow(key, ordine, "STO-OLIO")).riga;
  const r = await api(key, "POST", "/arrivi", { magazzino, ddt: "DDT-STO-E2", riga, quantita: 6, lotto: "OL-27", scadenza: "2027-07-31" });
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  const { page, context } = await newSession(browser, users.operatore);
  await openPutaway(page);
  await choosePrinter(page);
  await scan(page, `(01)0${EAN.OLIO}(10)OL-27`);
  await expect(page.getByTestId("merce-da-stoccare")).toContainText("STO-OLIO");
  await scan(page, "STE-A1");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Stoccato: 6 PZ di STO-OLIO in STE-A1");
  expect(await held("STO-OLIO", "STE-A1")).toBe(6);
  const before = received.length;
  await page.keyboard.press("F2");
  await expect.poll(() => received.length, { timeout: 15_000 }).toBe(before + 1);
  expect(received.at(-1)).toContain("OL-27");
  await context.close();
});
