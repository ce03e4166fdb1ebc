import { describe, expect } from "vitest";
import { gtinCheckDigit } from "../../../lib/gtin";
import type { TestDb } from "../../testing/db";
import { caller, rest, seedArticle, seedKey, seedSupplier, seedWarehouse } from "../../testing/fixtures";
import { test } from "../../testing/test";
import type { Actor } from "../auth/actor";
import { fillRate } from "./fill-rate.service";

/** GET /differenze-ricevimento/tasso-riempimento: each supplier's received over announced over a period's notices. */

let t: TestDb;
let key: string;
let reader: string;
let fa: number;

const sscc = (n: number) => {
  const body = `38007123${String(n).padStart(9, "0")}`;
  return `${body}${gtinCheckDigit(body)}`;
};

test.beforeAll(async ({ db }) => {
  t = db;
  await seedWarehouse(t.prisma, "PAL-FR-M");
  await seedArticle(t.prisma, "PAL-FR-A", { ean: "8007100000040" });
  fa = (await seedSupplier(t.prisma, "FORN-PAL-FA")).id;
  await seedSupplier(t.prisma, "FORN-PAL-FB");
  key = (await seedKey(t.prisma)).chiave;
  reader = (await seedKey(t.prisma, ["lettura"])).chiave;
  // FA: two notices in November (10 + 10 announced), one in December; FB: one in November.
  for (const [fornitore, numero] of [
    ["FORN-PAL-FA", "O-FA"],
    ["FORN-PAL-FB", "O-FB"],
  ] as const) {
    const o = await rest("POST", "/ordini-acquisto", {
      key,
      body: {
        ordini: [
          {
            numero,
            fornitore,
            data: "2026-11-01",
            magazzino: "PAL-FR-M",
            righe: [{ numero_riga: 1, articolo: "PAL-FR-A", quantita: 100, prezzo: "1" }],
          },
        ],
      },
    });
    expect(o.body.creati).toBe(1);
  }
  const notice = (numero: string, fornitore: string, ordine: string, data: string, n: number, quantita: number) => ({
    numero,
    fornitore,
    magazzino: "PAL-FR-M",
    data_prevista: data,
    colli: [{ sscc: sscc(n), righe: [{ ordine, numero_riga: 1, quantita }] }],
  });
  const av = await rest("POST", "/avvisi-spedizione", {
    key,
    body: {
      avvisi: [
        notice("AV-FA-1", "FORN-PAL-FA", "O-FA", "2026-11-10", 901, 10),
        notice("AV-FA-2", "FORN-PAL-FA", "O-FA", "2026-11-20", 902, 10),
        notice("AV-FA-3", "FORN-PAL-FA", "O-FA", "2026-12-05", 903, 50),
        notice("AV-FB-1", "FORN-PAL-FB", "O-FB", "2026-11-15", 904, 8),
      ],
    },
  });
  expect(av.body.creati).toBe(4);
  // FA's first pallet: 2 damaged, 8 received; its second received whole, then cancelled; FB's whole.
  const receive = (n: number, body: Record<string, unknown>) => rest("POST", `/colli/${sscc(n)}/ricevi`, { key, body });
  expect((await receive(901, { ddt: "FR-1", differenze: [{ indice: 0, quantita: 2, motivo: "danneggiato" }] })).status).toBe(200);
  expect((await receive(902, { ddt: "FR-2" })).status).toBe(200);
  expect((await rest("POST", `/colli/${sscc(902)}/annulla`, { key, body: {} })).status).toBe(200);
  expect((await receive(904, { ddt: "FR-3" })).status).toBe(200);
});

const rate = (query: string, k = reader) => rest("GET", `/differenze-ricevimento/tasso-riempimento?${query}`, { key: k });

describe("GET /differenze-ricevimento/tasso-riempimento", () => {
  test("per supplier over the period: announced, received by standing receipts, the rate, differences by reason", async () => {
    const r = await rate("da=2026-11-01&a=2026-11-30");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      fornitori: [
        { fornitore: { id: fa, codice: "FORN-PAL-FA" }, annunciata: "20", ricevuta: "8", tasso: "0.4", differenze: { danneggiato: "2" } },
        { fornitore: { id: expect.any(Number), codice: "FORN-PAL-FB" }, annunciata: "8", ricevuta: "8", tasso: "1", differenze: {} },
      ],
    });
    // December: FA's third notice, nothing received yet.
    expect((await rate("da=2026-12-01&a=2026-12-31")).body.fornitori).toEqual([
      { fornitore: { id: fa, codice: "FORN-PAL-FA" }, annunciata: "50", ricevuta: "0", tasso: "0", differenze: {} },
    ]);
    // A period without notices: no supplier.
    expect((await rate("da=2025-01-01&a=2025-01-31")).body).toEqual({ fornitori: [] });
  });

  test("the fornitore filter keeps one supplier", async () => {
    const r = await rate(`da=2026-11-01&a=2026-11-30&fornitore=${fa}`);
    expect(r.body.fornitori.map((f: { fornitore: { codice: string } }) => f.fornitore.codice)).toEqual(["FORN-PAL-FA"]);
  });

  test("bad parameters are filtro_non_valido; a manager reads it on the screen, an operator may not", async () => {
    for (const q of [
      "da=2026-11-30&a=2026-11-01",
      "a=2026-11-30",
      "da=2026-11-01",
      "da=2026-11-01&a=2026-11-31",
      "da=2026-11-01&a=2026-11-30&x=1",
    ]) {
      const r = await rate(q);
      expect({ q, status: r.status, codice: r.body.codice }).toEqual({ q, status: 422, codice: "filtro_non_valido" });
    }
    expect((await rest("GET", "/differenze-ricevimento/tasso-riempimento?da=2026-11-01&a=2026-11-30")).status).toBe(401);
    const user = (ruolo: "operatore" | "responsabile"): Actor => ({ kind: "utente", id: 1, username: ruolo, ruolo });
    const screen = await caller(t, user("responsabile"), "trpc").notices.fillRates({ da: "2026-11-01", a: "2026-11-30" });
    expect(screen.fornitori[0]).toMatchObject({ tasso: "0.4" });
    await expect(caller(t, user("operatore"), "trpc").notices.fillRates({ da: "2026-11-01", a: "2026-11-30" })).rejects.toMatchObject({
      cause: { codice: "permesso_negato" },
    });
  });

  test("the rate: 4 decimals half up, null when nothing was announced", () => {
    expect(fillRate("2", "3")).toBe("0.6667");
    expect(fillRate("1", "3")).toBe("0.3333");
    expect(fillRate("0", "0")).toBeNull();
    expect(fillRate("5", "4")).toBe("1.25");
  });
});
