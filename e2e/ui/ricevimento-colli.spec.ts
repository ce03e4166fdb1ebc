import net from "node:net";
import { expect, type Page, test } from "@playwright/test";
import { newSession, scan, shellInstalled, snap, type User, dockRunning } from "../support/app";
import { seedNotice, ssccSeries } from "../support/notices";
import { api } from "../support/api";
import { ean13, seed, today } from "../support/seed";

/**
 * Pallets on the handheld when the network does not help, at 360 px with a keyboard-wedge scanner (docs/api.md
 * sections 12–13): offline, a scanned SSCC shows the pallet from the device's copy of the announced pallets,
 * Enter queues ONE receipt with its Idempotency-Key, sent when the network returns; an answer lost on the way
 * back is settled, never received twice. Online, the pallet's label is offered after the receipt (F2). Every
 * outcome is checked through /api/v1.
 */

/** The SSCCs of this spec's own pallets. */
const sscc = ssccSeries("8007224");

let users: Record<"operatore" | "amministratore", User>;
let key: string;
const labels: string[] = [];
let printer: net.Server;
let port: number;

/** What arrived on the order's rows, by article code (GET /ordini-acquisto). */
async function arrived(): Promise<Record<string, string>> {
  const o = (await api(key, "GET", "/ordini-acquisto?cerca=DOCK-OA-1")).body.ordini[0];
  return Object.fromEntries(o.righe.map((r: { articolo: { codice: string }; arrivata: string }) => [r.articolo.codice, r.arrivata]));
}

/** The pallet's state as the notices feed has it (GET /avvisi-spedizione). */
async function palletState(serial: number): Promise<string | undefined> {
  const avvisi = (await api(key, "GET", "/avvisi-spedizione?limite=100")).body.avvisi as { colli: { sscc: string; stato: string }[] }[];
  return avvisi.flatMap((a) => a.colli).find((c) => c.sscc === sscc(serial))?.stato;
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  printer = net.createServer((socket) => {
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("end", () => {
      labels.push(Buffer.concat(chunks).toString());
      socket.end();
    });
  });
  await new Promise<void>((r) => printer.listen(0, "127.0.0.1", r));
  port = (printer.address() as net.AddressInfo).port;
  const articles = ["A", "B", "C", "D", "E"];
  const data = {
    magazzini: [{ codice: "DOCK-M1", nome: "Banchina colli" }],
    fornitori: [{ codice: "FORN-DOCK-1", nome: "Fornitore Dock" }],
    articoli: articles.map((a) => ({ codice: `DOCK-${a}`, descrizione: `Articolo dock ${a}` })),
    ordini: [
      {
        numero: "DOCK-OA-1",
        fornitore: "FORN-DOCK-1",
        data: today(),
        magazzino: "DOCK-M1",
        righe: articles.map((a) => ({ articolo: `DOCK-${a}`, quantita: 50, prezzo: "1" })),
      },
    ],
  };
  ({ key, users } = seed("dock-colli", { data, roles: ["operatore", "amministratore"] }));
  await seedNotice(key, {
    numero: "DOCK-AV-1",
    fornitore: "FORN-DOCK-1",
    magazzino: "DOCK-M1",
    colli: [1, 2, 3, 4, 5].map((k) => ({ sscc: sscc(k), righe: [{ ordine: "DOCK-OA-1", numero_riga: k, quantita: 10 + k }] })),
  });
});

test.afterAll(async () => {
  await new Promise<void>((r) => printer.close(() => r()));
});

async function prepare(page: Page, ddt: string) {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto("/ricevimento");
  // The warehouse's list opens only once the screen runs.
  await dockRunning(page);
  await page.getByTestId("campo-ddt").fill(ddt);
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /DOCK-M1/ }).click();
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
}

/** The device's copy of the announced pallets is on the handheld (fetched when the screen opened). */
async function copyReady(page: Page, serial: number) {
  await expect
    .poll(() =>
      page.evaluate(async (code) => {
        const dbs = await indexedDB.databases();
        const name = dbs.find((d) => d.name?.startsWith("banchina-utente-"))?.name;
        if (!name) return false;
        return new Promise<boolean>((resolve) => {
          const open = indexedDB.open(name);
          open.onsuccess = () => {
            const db = open.result;
            const get = db.transaction("attesi").objectStore("attesi").get("colli");
            get.onsuccess = () => {
              db.close();
              resolve(Boolean(get.result?.colli?.some((c: { sscc: string }) => c.sscc === code)));
            };
            get.onerror = () => resolve(false);
          };
          open.onerror = () => resolve(false);
        });
      }, sscc(serial)),
    )
    .toBe(true);
}

test("offline: un SSCC letto mostra il collo dalla copia, Invio lo mette in coda una volta; al ritorno della rete ricevuto una volta sola", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-DOCK-1");
  await shellInstalled(page);
  await copyReady(page, 1);
  await context.setOffline(true);

  await scan(page, `(00)${sscc(1)}`);
  const pallet = page.getByTestId("collo");
  await expect(pallet.getByTestId("riga-collo-0")).toContainText("DOCK-A");
  await snap(page, "collo-offline");
  await page.getByTestId("campo-scansione").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText(`Collo ${sscc(1)} in coda`)).toBeVisible();
  await expect(pallet).toHaveCount(0);
  // A second read and Enter of the same pallet: shown as received, nothing more queued.
  await scan(page, `(00)${sscc(1)}`);
  await expect(page.getByTestId("collo")).toContainText("ricevuto");
  await page.getByTestId("campo-scansione").focus();
  await page.keyboard.press("Enter");
  expect((await arrived())["DOCK-A"]).toBe("0");

  await context.setOffline(false);
  await expect(page.getByText(/Ricevuti dalla coda: collo/)).toBeVisible({ timeout: 30_000 });
  expect((await arrived())["DOCK-A"]).toBe("11");
  expect(await palletState(1)).toBe("ricevuto");
  // Nothing else moved: the second Enter on the queued pallet queued nothing.
  expect(await arrived()).toMatchObject({ "DOCK-B": "0", "DOCK-C": "0" });
  await context.close();
});

test("offline, poi la risposta dell'invio dalla coda si perde: verificato con la sua chiave, il collo ricevuto una volta sola", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-DOCK-2");
  await copyReady(page, 2);
  await context.setOffline(true);
  await scan(page, `(00)${sscc(2)}`);
  await expect(page.getByTestId("collo").getByTestId("riga-collo-0")).toContainText("DOCK-B");
  await page.getByTestId("campo-scansione").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText(`Collo ${sscc(2)} in coda`)).toBeVisible();

  // The receipt reaches the service and is written; its answer is lost on the way back.
  let sent = 0;
  await page.route("**/api/trpc/notices.receive*", async (route) => {
    sent++;
    await route.fetch();
    // The client may have given up already (its own timeout): either way the answer never reaches it.
    await route.abort("failed").catch(() => undefined);
  });
  await context.setOffline(false);
  await expect.poll(() => sent, { timeout: 30_000 }).toBe(1);
  await page.unroute("**/api/trpc/notices.receive*");
  // The next pass settles the key: it had run. Done, not an error for the operator.
  await expect(page.getByText(/Ricevuti dalla coda: collo/)).toBeVisible({ timeout: 30_000 });
  expect((await arrived())["DOCK-B"]).toBe("12");
  expect(await palletState(2)).toBe("ricevuto");
  expect(sent).toBe(1);
  await context.close();
});

test("ricevuto un collo, la sua etichetta si offre: F2 la stampa; in automatico senza tasto", async ({ browser }) => {
  test.setTimeout(120_000);
  const admin = await newSession(browser, users.amministratore, 1280);
  await admin.page.goto("/stampanti");
  await admin.page.getByTestId("stampante-nome").fill("Dock E2E");
  await admin.page.getByTestId("stampante-indirizzo").fill(`127.0.0.1:${port}`);
  await admin.page.getByTestId("aggiungi-stampante").click();
  await expect(admin.page.getByText(`127.0.0.1:${port}`).first()).toBeVisible();
  await admin.context.close();

  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-DOCK-3");
  await page.getByTestId("stampante-etichette").click();
  await page.getByRole("option", { name: /Dock E2E/ }).click();
  await page.getByTestId("campo-scansione").focus();

  await scan(page, `(00)${sscc(3)}`);
  await expect(page.getByTestId("collo").getByTestId("riga-collo-0")).toContainText("DOCK-C");
  await page.getByTestId("campo-scansione").focus();
  await page.keyboard.press("Enter");
  await expect(page.getByText(new RegExp(`Collo ${sscc(3)} ricevuto`))).toBeVisible();
  await expect(page.getByTestId("stampa-etichetta-collo")).toBeVisible();
  await snap(page, "collo-etichetta");
  await page.keyboard.press("F2");
  const status = page.getByTestId("stato-stampa");
  await expect(status).toBeVisible();
  const job = Number(await status.getAttribute("data-stampa"));
  await expect.poll(async () => (await api(key, "GET", `/stampe/${job}`)).body.stato, { timeout: 15_000 }).toBe("stampata");
  const printed = (await api(key, "GET", `/stampe/${job}`)).body;
  expect(JSON.stringify(printed)).toContain(sscc(3));
  await expect.poll(() => labels.length, { timeout: 15_000 }).toBe(1);
  expect(labels[0]).toContain(sscc(3));

  // The device prints by itself: the next pallet's label with no key pressed.
  await page.getByTestId("stampa-automatica").check();
  await page.getByTestId("campo-scansione").focus();
  await scan(page, `(00)${sscc(4)}`);
  await expect(page.getByTestId("collo").getByTestId("riga-collo-0")).toContainText("DOCK-D");
  await page.getByTestId("campo-scansione").focus();
  await page.keyboard.press("Enter");
  await expect.poll(() => labels.length, { timeout: 15_000 }).toBe(2);
  expect(labels[1]).toContain(sscc(4));
  await context.close();
});

/** A 1×1 PNG: what the camera gives, as small as it gets. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

test("una riga segnata danneggiata con la sua foto: la lettura subito dopo va nel campo di scansione; ricevuto il collo, la foto è sulla differenza", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await prepare(page, "DDT-DOCK-5");
  await scan(page, `(00)${sscc(5)}`);
  const pallet = page.getByTestId("collo");
  await expect(pallet.getByTestId("riga-collo-0")).toContainText("DOCK-E");
  await pallet.getByTestId("segna-differenza").click();
  await pallet.getByTestId("quantita-differenza").fill("3");
  await pallet.getByTestId("salva-differenza").click();
  await expect(pallet.getByTestId("differenza-segnata")).toHaveText(/danneggiato 3/);
  await pallet.getByTestId("foto-differenza-file").setInputFiles({ name: "danno.png", mimeType: "image/png", buffer: PNG });
  await expect(pallet.getByTestId("foto-allegata")).toBeVisible();
  // The scan right after: in the scan field, read as a scan (an EAN nobody expects); the pallet has a difference
  // marked, so the code waits for it, the pallet still there.
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  const stray = ean13("800720000009");
  await scan(page, stray);
  await expect(pallet.getByTestId("codici-dopo-collo")).toContainText(stray);
  await expect(pallet.getByTestId("foto-allegata")).toBeVisible();
  await snap(page, "collo-foto");
  await page.getByTestId("ricevi-collo").click();
  await expect(page.getByText(/Foto inviate: 1\./)).toBeVisible({ timeout: 15_000 });
  // Received, the code that waited is read: the row-by-row panel says it is not expected.
  await expect(page.getByTestId("esito").filter({ hasText: stray }).filter({ hasNotText: "Ricerca in corso" })).toBeVisible();

  const diffs = (await api(key, "GET", "/differenze-ricevimento?motivo=danneggiato")).body.differenze as {
    sscc: string;
    quantita: string;
    foto: number;
    id: number;
  }[];
  const mine = diffs.filter((d) => d.sscc === sscc(5));
  expect(mine).toHaveLength(1);
  expect(mine[0]).toMatchObject({ quantita: "3", foto: 1 });
  const photo = await fetch(`http://127.0.0.1:${process.env.BANCHINA_E2E_PORT}/api/v1/differenze-ricevimento/${mine[0]!.id}/foto/1`, {
    headers: { authorization: `Bearer ${key}`, connection: "close" },
  });
  expect(photo.status).toBe(200);
  expect(photo.headers.get("content-type")).toContain("image/jpeg");
  expect((await arrived())["DOCK-E"]).toBe("12");
  await context.close();
});
