import type { TestDb } from "../../testing/db";

/**
 * Location fixtures for the reads' tests: a warehouse that manages locations, and stock placed in its
 * locations by SQL (location stock, the lot's residual and the warehouse balance together, as the ledger
 * keeps them), so a read can be tested without the writers.
 */

export type LocationType = "ricevimento" | "stoccaggio" | "quarantena";

/** A warehouse managing locations; the first location given is its receiving location. Ids by code. */
export async function seedLocationWarehouse(
  t: TestDb,
  codice: string,
  locations: { codice: string; tipo: LocationType; attiva?: boolean; descrizione?: string }[],
): Promise<{ id: number; at: Record<string, number> }> {
  const w = await t.pool.query<{ id: number }>("INSERT INTO magazzini (codice, nome) VALUES ($1, $2) RETURNING id", [
    codice,
    `Magazzino ${codice}`,
  ]);
  const id = w.rows[0]!.id;
  const at: Record<string, number> = {};
  for (const l of locations) {
    const r = await t.pool.query<{ id: number }>(
      "INSERT INTO ubicazioni (magazzino_id, codice, tipo, attiva, descrizione) VALUES ($1, $2, $3, $4, $5) RETURNING id",
      [id, l.codice, l.tipo, l.attiva ?? true, l.descrizione ?? null],
    );
    at[l.codice] = r.rows[0]!.id;
  }
  await t.pool.query("UPDATE magazzini SET gestione_ubicazioni = true, ubicazione_ricevimento_id = $2 WHERE id = $1", [
    id,
    at[locations[0]!.codice],
  ]);
  return { id, at };
}

/**
 * Adds `quantita` (negative: takes away) of an article (and lot) to a location; returns the location stock
 * row's id. `caricata_il` is set when the row was empty, as the ledger's load does.
 */
export async function placeStock(
  t: TestDb,
  s: { articolo: number; magazzino: number; ubicazione: number; quantita: number; lotto?: string; scadenza?: string; caricata_il?: string },
): Promise<number> {
  let lotto: number | null = null;
  if (s.lotto !== undefined) {
    const l = await t.pool.query<{ id: number }>(
      `INSERT INTO lotti (articolo_id, magazzino_id, codice, scadenza, residua) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (articolo_id, magazzino_id, codice) DO UPDATE SET residua = lotti.residua + EXCLUDED.residua RETURNING id`,
      [s.articolo, s.magazzino, s.lotto, s.scadenza ?? null, s.quantita],
    );
    lotto = l.rows[0]!.id;
  }
  await t.pool.query(
    `INSERT INTO giacenze (articolo_id, magazzino_id, quantita) VALUES ($1, $2, $3)
     ON CONFLICT (articolo_id, magazzino_id) DO UPDATE SET quantita = giacenze.quantita + EXCLUDED.quantita`,
    [s.articolo, s.magazzino, s.quantita],
  );
  // Created at zero first: a CHECK sees the inserted row before ON CONFLICT, so a negative would fail there.
  await t.pool.query(
    `INSERT INTO giacenze_ubicazioni (articolo_id, magazzino_id, ubicazione_id, lotto_id, quantita)
     VALUES ($1, $2, $3, $4, 0) ON CONFLICT (articolo_id, ubicazione_id, lotto_id) DO NOTHING`,
    [s.articolo, s.magazzino, s.ubicazione, lotto],
  );
  const r = await t.pool.query<{ id: number }>(
    `UPDATE giacenze_ubicazioni
        SET quantita = quantita + $4,
            caricata_il = CASE WHEN quantita = 0 THEN coalesce($5::timestamptz, now()) ELSE caricata_il END,
            aggiornata_il = now()
      WHERE articolo_id = $1 AND ubicazione_id = $2 AND lotto_id IS NOT DISTINCT FROM $3::int
     RETURNING id`,
    [s.articolo, s.ubicazione, lotto, s.quantita, s.caricata_il ?? null],
  );
  return r.rows[0]!.id;
}
