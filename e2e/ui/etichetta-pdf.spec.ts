import { expect, test } from "@playwright/test";
import { decodePdf } from "../../src/server/modules/labels/decode-testing";
import { api, lotsOf } from "../support/api";
import { newSession, scan, snap, type User } from "../support/app";
import { ean13, type ImportedIds, seed, today } from "../support/seed";

// A lot label on a device with no network printer chosen (docs/api.md section 13: PDF for any printer, through the
// browser's print dialog), at 360 px with a keyboard-wedge scanner. The PDF the screen links to is decoded back
// (pdftoppm + ZXing) and must carry the lot and expiry the API recorded.

const EAN = ean13("805999031001");
let users: Record<"operatore", User>;
let key: string;
let ids: ImportedIds;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const data = {
    magazzini: [{ codice: "EPD-M1", nome: "Etichette PDF uno" }],
    fornitori: [{ codice: "EPD-FORN", nome: "Forniture PDF S.r.l." }],
    articoli: [{ codice: "EPD-RISO", descrizione: "Riso etichette PDF 1 kg", ean: EAN, gestione_lotti: true }],
    ordini: [
      {
        numero: "EPD-OA-1",
        fornitore: "EPD-FORN",
        data: today(),
        magazzino: "EPD-M1",
        righe: [{ articolo: "EPD-RISO", quantita: 100, prezzo: "0.8" }],
      },
    ],
  };
  ({ key, users, ids } = seed("etichettapdf", { data, roles: ["operatore"] }));
});

test("senza stampante di rete l'etichetta del lotto appena ricevuto è offerta in PDF, e il PDF porta lotto e scadenza", async ({
  browser,
}) => {
  const { page, context } = await newSession(browser, users.operatore);
  await page.getByTestId("campo-ddt").fill("DDT-EPD-1");
  await page.getByTestId("campo-magazzino").click();
  await page.getByRole("option", { name: /EPD-M1/ }).click();
  await expect(page.getByTestId("campo-scansione")).toBeFocused();
  await scan(page, `(01)0${EAN}(10)PDF-26(17)271130`);
  await expect(page.getByTestId("campo-lotto")).toHaveValue("PDF-26");
  await page.getByTestId("campo-quantita").fill("24");
  await page.getByTestId("campo-quantita").press("Enter");
  await expect(page.getByTestId("esito")).toContainText("Registrato: 24 × EPD-RISO");

  // The offer: a PDF, not a disabled button waiting for a printer.
  const offer = page.getByTestId("stampa-etichetta-pdf");
  await expect(offer).toBeVisible();
  await expect(offer).toBeEnabled();
  await expect(page.getByTestId("etichette-ricevimento")).not.toContainText("Scegliere la stampante");
  const href = await offer.getAttribute("href");
  expect(href).toMatch(/^\/api\/etichette\/lotto\?/);
  const pdf = await page.request.get(href!);
  expect(pdf.status()).toBe(200);
  expect(pdf.headers()["content-type"]).toContain("application/pdf");
  const [reads] = await decodePdf(await pdf.body());
  // The lot as the API recorded it, and the label scans back to it.
  const [lot] = await lotsOf(key, ids.articoli["EPD-RISO"]!, ids.magazzini["EPD-M1"]!);
  expect(lot).toMatchObject({ lotto: "PDF-26", scadenza: "2027-11-30" });
  expect(reads!.join(" ")).toContain(`010${EAN}17271130`);
  expect(reads!.join(" ")).toContain("PDF-26");
  // Only for a signed-in screen, and a wrong request is refused in words.
  const base = `http://127.0.0.1:${process.env.BANCHINA_E2E_PORT}`;
  expect((await fetch(`${base}${href}`, { headers: { connection: "close" } })).status).toBe(401);
  const wrong = await page.request.get(href!.replace(/articolo=\d+/, "articolo=zero"));
  expect(wrong.status()).toBe(422);
  expect(JSON.stringify(await wrong.json())).toContain("articolo");

  // Today's arrivals offer the same label as PDF, beside Annulla and apart from it, at 360 and 1280 px.
  const rows = (await api(key, "GET", "/movimenti?origine=arrivo&limite=100")).body.movimenti as { id: number; lotto: string | null }[];
  const movimento = rows.find((m) => m.lotto === "PDF-26")!.id;
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    const label = page.getByTestId(`etichetta-pdf-${movimento}`);
    const cancel = page.getByTestId(`annulla-${movimento}`);
    await expect(label).toBeVisible();
    await expect(label).toHaveAttribute("href", href!);
    const a = (await label.boundingBox())!;
    const b = (await cancel.boundingBox())!;
    const apart = a.x + a.width + 4 <= b.x || b.x + b.width + 4 <= a.x || a.y + a.height + 4 <= b.y || b.y + b.height + 4 <= a.y;
    expect(apart, `Etichetta e Annulla a ${width} px: ${JSON.stringify({ a, b })}`).toBe(true);
  }
  await page.setViewportSize({ width: 360, height: 760 });
  await snap(page, "ricevimento-etichetta-pdf");
  await context.close();
});
