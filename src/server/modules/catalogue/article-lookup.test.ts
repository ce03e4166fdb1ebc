import { describe, expect } from "vitest";
import type { TestDb } from "../../testing/db";
import { test } from "../../testing/test";
import { caller, seedArticle, seedSession } from "../../testing/fixtures";
import { handleTrpcRequest } from "../../trpc/ui-handler";

/**
 * The one lookup rule for a typed or scanned article on the operator's side (catalogue.resolve, used
 * by the inventory count file): code as written or in upper case, the exact one first; else EAN
 * (also as GTIN-14, or inside a GS1 string).
 */

let t: TestDb;
const ids: Record<string, number> = {};

test.beforeAll(async ({ db }) => {
  t = db;
  ids.VITE = (await seedArticle(t.prisma, "VITE-TE-M6X40", { ean: "8001234567897" })).id;
  ids.OLIO = (await seedArticle(t.prisma, "OLIO-EVO-1L", { ean: "80012344", lotti: true })).id;
  ids.UPPER = (await seedArticle(t.prisma, "DOPPIO")).id;
  ids.LOWER = (await seedArticle(t.prisma, "doppio")).id;
});

const operator = { kind: "utente", id: 1, username: "banco", ruolo: "operatore" } as const;

describe("catalogue.resolve", () => {
  test("codes in any case, EANs, GTIN-14 and GS1 strings name the article; anything else is null", async () => {
    const r = await caller(t, operator, "trpc").catalogue.resolve({
      letture: [
        "VITE-TE-M6X40",
        "vite-te-m6x40",
        " Vite-Te-M6x40 ",
        "8001234567897",
        "08001234567897",
        "(01)08001234567897(10)L1",
        "80012344",
        "doppio",
        "DOPPIO",
        "Doppio",
        "R12",
        "NON-ESISTE",
        "8001234567890",
      ],
    });
    expect(r.articoli.map((a) => [a.lettura, a.articolo?.codice ?? null])).toEqual([
      ["VITE-TE-M6X40", "VITE-TE-M6X40"],
      ["vite-te-m6x40", "VITE-TE-M6X40"],
      ["Vite-Te-M6x40", "VITE-TE-M6X40"],
      ["8001234567897", "VITE-TE-M6X40"],
      ["08001234567897", "VITE-TE-M6X40"],
      ["(01)08001234567897(10)L1", "VITE-TE-M6X40"],
      ["80012344", "OLIO-EVO-1L"],
      ["doppio", "doppio"],
      ["DOPPIO", "DOPPIO"],
      ["Doppio", "DOPPIO"],
      ["R12", null],
      ["NON-ESISTE", null],
      ["8001234567890", null],
    ]);
    expect(r.articoli[6]!.articolo).toEqual({ id: ids.OLIO, codice: "OLIO-EVO-1L", gestione_lotti: true, ha_varianti: false });
  });

  test("on the UI's channel, with the session's CSRF token; too many or empty lists are refused", async () => {
    const { cookie, csrf } = await seedSession(t.prisma, "contatore", "operatore");
    const post = (input: unknown) =>
      handleTrpcRequest(
        new Request("http://localhost/api/trpc/catalogue.resolve", {
          method: "POST",
          headers: { cookie, "x-csrf-token": csrf, "content-type": "application/json", "x-banchina-indirizzo": "10.1.1.1" },
          body: JSON.stringify(input),
        }),
      );
    const ok = await post({ letture: ["vite-te-m6x40"] });
    expect(ok.status).toBe(200);
    expect((await ok.json()).result.data.articoli[0].articolo.codice).toBe("VITE-TE-M6X40");
    for (const bad of [{ letture: [] }, { letture: Array(10_001).fill("X") }, { letture: [""] }, {}]) {
      const res = await post(bad);
      expect(res.status).toBe(422);
      expect((await res.json()).error.data.codice).toBe("richiesta_non_valida");
    }
  });
});
