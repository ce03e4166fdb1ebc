import { expect } from "vitest";
import type { TipoUbicazione } from "../../../lib/domain-lists";
import { rest } from "../../testing/fixtures";

/**
 * Location fixtures for the reads' tests, through the REST writers as an integrator sets a warehouse up:
 * POST /magazzini, POST /ubicazioni, then the switch (`gestione_ubicazioni`, the receiving location), and
 * stock moved by POST /movimenti with `ubicazione`.
 */

async function ok(key: string, path: string, body: unknown) {
  const r = await rest("POST", path, { key, body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.rifiutati ?? r.body.rifiutate, JSON.stringify(r.body)).toBe(0);
  return r.body;
}

/** A warehouse managing locations; the first location given is its receiving location. Its id, and location ids by code. */
export async function seedLocationWarehouse(
  key: string,
  codice: string,
  locations: { codice: string; tipo: TipoUbicazione; attiva?: boolean; descrizione?: string }[],
): Promise<{ id: number; at: Record<string, number> }> {
  const created = await ok(key, "/magazzini", { magazzini: [{ codice, nome: `Magazzino ${codice}` }] });
  const placed = await ok(key, "/ubicazioni", { ubicazioni: locations.map((l) => ({ magazzino: codice, ...l })) });
  await ok(key, "/magazzini", {
    magazzini: [{ codice, nome: `Magazzino ${codice}`, gestione_ubicazioni: true, ubicazione_ricevimento: locations[0]!.codice }],
  });
  const at = Object.fromEntries(placed.righe.map((r: { codice: string; id: number }) => [r.codice, r.id]));
  return { id: created.righe[0].id, at };
}

/** One movement row through POST /movimenti (a load by default) in a location; returns the movement's id. */
export async function moveStock(
  key: string,
  magazzino: number,
  row: { codice: string; quantita: number; ubicazione: string; lotto?: string; scadenza?: string },
  natura: "carico" | "scarico" = "carico",
): Promise<number> {
  const body = await ok(key, "/movimenti", { natura, magazzino, righe: [row] });
  return body.righe[0].movimento;
}

/** The location stock row's id of (article, location code, lot code), as the ledger created it. */
export const stockRowId = async (
  pool: { query: (sql: string, values: unknown[]) => Promise<{ rows: { id: number }[] }> },
  articolo: number,
  ubicazione: number,
  lotto: string | null = null,
) =>
  (
    await pool.query(
      `SELECT g.id FROM giacenze_ubicazioni g LEFT JOIN lotti l ON l.id = g.lotto_id
        WHERE g.articolo_id = $1 AND g.ubicazione_id = $2 AND l.codice IS NOT DISTINCT FROM $3`,
      [articolo, ubicazione, lotto],
    )
  ).rows[0]!.id;
