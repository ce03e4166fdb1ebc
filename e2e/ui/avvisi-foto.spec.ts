import { expect, test } from "@playwright/test";
import { api } from "../support/api";
import { newSession, snap, type User } from "../support/app";
import { seedNotice, ssccSeries } from "../support/notices";
import { seed, today } from "../support/seed";

/** docs/api.md section 12: a difference's photo, sent by REST as the image itself, shown on /avvisi to the manager. */

const BASE = () => `http://127.0.0.1:${process.env.BANCHINA_E2E_PORT}/api/v1`;
/** The SSCCs of this spec's own pallets. */
const sscc = ssccSeries("8007123");
/** A 1×1 red PNG: enough for a thumbnail. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "base64");

let users: Record<"responsabile", User>;
let key: string;
let difference: number;

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
  await seedNotice(key, {
    numero: "PAL-FOTO-AV",
    fornitore: "FORN-PAL-FOTO",
    magazzino: "PAL-FOTO-M",
    data_prevista: today(),
    colli: [{ sscc: sscc(81), righe: [{ ordine: "PAL-FOTO-OA", numero_riga: 1, quantita: 20 }] }],
  });
  const r = await api(key, "POST", `/colli/${sscc(81)}/ricevi`, {
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
