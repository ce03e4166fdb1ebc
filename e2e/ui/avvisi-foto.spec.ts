import { expect, test } from "@playwright/test";
import { newSession, snap, type User } from "../support/app";
import { seed, today } from "../support/seed";

/** API.md section 12: a difference's photo, sent by REST as the image itself, shown on /avvisi to the manager. */

const BASE = () => `http://127.0.0.1:${process.env.BANCHINA_E2E_PORT}/api/v1`;
/** An SSCC of this spec's own (company prefix 8007123): extension 3, a serial, the GS1 check digit. */
function sscc(serial: number): string {
  const body = `38007123${String(serial).padStart(9, "0")}`;
  let sum = 0;
  for (let i = body.length - 1, w = 3; i >= 0; i--, w = 4 - w) sum += Number(body[i]) * w;
  return `${body}${(10 - (sum % 10)) % 10}`;
}
/** A 1×1 red PNG: enough for a thumbnail. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "base64");

let users: Record<"responsabile", User>;
let key: string;
let difference: number;
const api = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${BASE()}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, body: (await r.json()) as any };
};

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const data = {
    magazzini: [{ codice: "PAL-FOTO-M", nome: "Foto colli" }],
    fornitori: [{ codice: "FORN-PAL-FOTO", nome: "Fornitore foto S.r.l." }],
    articoli: [{ codice: "PAL-FOTO-VITE", descrizione: "Vite foto M8" }],
    ordini: [
      {
        numero: "PAL-FOTO-OA",
        fornitore: "FORN-PAL-FOTO",
        data: today(),
        magazzino: "PAL-FOTO-M",
        righe: [{ articolo: "PAL-FOTO-VITE", quantita: 20, prezzo: "1" }],
      },
    ],
  };
  const s = seed("avvisi-foto", { data, roles: ["responsabile"] });
  users = s.users;
  key = s.key;
  const n = await api("POST", "/avvisi-spedizione", {
    avvisi: [
      {
        numero: "PAL-FOTO-AV",
        fornitore: "FORN-PAL-FOTO",
        magazzino: "PAL-FOTO-M",
        data_prevista: today(),
        colli: [{ sscc: sscc(81), righe: [{ ordine: "PAL-FOTO-OA", numero_riga: 1, quantita: 20 }] }],
      },
    ],
  });
  expect(n.body.creati, JSON.stringify(n.body)).toBe(1);
  const r = await api("POST", `/colli/${sscc(81)}/ricevi`, {
    ddt: "DDT-PAL-FOTO",
    differenze: [{ indice: 0, quantita: 3, motivo: "danneggiato", nota: "Scatola schiacciata" }],
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  difference = r.body.righe[0].differenze[0].id;
  const up = await fetch(`${BASE()}/differenze-ricevimento/${difference}/foto`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "image/png" },
    body: PNG,
  });
  expect(up.status, await up.clone().text()).toBe(201);
});

test("/avvisi: the difference says it has a photo; asked, the thumbnail shows and opens large (screenshots at 360 and 1280 px)", async ({
  browser,
}) => {
  const { page } = await newSession(browser, users.responsabile);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/avvisi");
  const row = page.getByTestId(`differenza-${difference}`);
  await expect(row.getByTestId("motivo")).toHaveText("danneggiato");
  await row.getByTestId(`foto-${difference}`).click();
  const thumbnails = row.getByTestId(`miniature-${difference}`);
  await expect(thumbnails.getByRole("img")).toHaveCount(1);
  await snap(page, "avvisi-foto");
  await thumbnails.getByRole("button").click();
  await expect(page.getByRole("dialog").getByAltText(`Foto della differenza ${difference}`)).toBeVisible();
});
