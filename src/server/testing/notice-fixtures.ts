import { expect } from "vitest";
import { gtinCheckDigit } from "../../lib/gtin";
import type { TestDb } from "./db";
import { countRows, rest, seedArticle, seedKey, seedSupplier, seedWarehouse } from "./fixtures";

/**
 * The shared ground of the notices' and the pallets' tests (docs/api.md section 12): two warehouses, three
 * articles (one in lots), two suppliers, a key, and the helpers that write orders and notices through REST.
 */

/** A valid SSCC: extension 3, a company prefix, a serial, the GS1 check digit. */
export const sscc = (n: number) => {
  const body = `38001234${String(n).padStart(9, "0")}`;
  return `${body}${gtinCheckDigit(body)}`;
};

export type NRow = { ordine: string; numero_riga: number; quantita: number; lotto?: string; scadenza?: string };

export const notice = (numero: string, colli: { sscc: string; righe: NRow[] }[], over: Record<string, unknown> = {}) => ({
  numero,
  fornitore: "FA",
  magazzino: "M1",
  ...over,
  colli,
});

/** Seeds the ground into `t` and answers the helpers bound to its key. */
export async function noticeGround(t: TestDb) {
  const m1 = (await seedWarehouse(t.prisma, "M1")).id;
  const m2 = (await seedWarehouse(t.prisma, "M2")).id;
  await seedArticle(t.prisma, "A");
  await seedArticle(t.prisma, "B");
  await seedArticle(t.prisma, "LOT", { lotti: true });
  await seedSupplier(t.prisma, "FA");
  await seedSupplier(t.prisma, "FB");
  const key = (await seedKey(t.prisma)).chiave;

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => rest("POST", path, { key, body, headers });
  const get = (path: string) => rest("GET", path, { key });

  async function order(numero: string, righe: [number, string, number][], over: Record<string, unknown> = {}) {
    const r = await post("/ordini-acquisto", {
      ordini: [
        {
          numero,
          fornitore: "FA",
          data: "2026-11-20",
          magazzino: "M1",
          ...over,
          righe: righe.map(([numero_riga, articolo, quantita]) => ({ numero_riga, articolo, quantita, prezzo: "1" })),
        },
      ],
    });
    expect(r.body.righe[0].esito).toBe("creato");
    return r.body.righe[0] as { id: number; righe: { numero_riga: number; riga: number }[] };
  }

  async function rowOf(riga: number) {
    const { rows } = await t.pool.query("SELECT arrivata::text, chiusa::text FROM righe_ordine WHERE id = $1", [riga]);
    return rows[0] as { arrivata: string; chiusa: string };
  }

  async function written() {
    return {
      avvisi: await countRows(t, "avvisi_spedizione"),
      colli: await countRows(t, "colli"),
      righe: await countRows(t, "righe_collo"),
      ricevimenti: await countRows(t, "ricevimenti_collo"),
      differenze: await countRows(t, "differenze_ricevimento"),
      movimenti: await countRows(t, "movimenti"),
      versioni: (await t.pool.query("SELECT coalesce(string_agg(id || ':' || versione, ',' ORDER BY id), '') AS v FROM avvisi_spedizione"))
        .rows[0].v,
    };
  }

  return { m1, m2, key, post, get, order, rowOf, written };
}
