import type { TestDb } from "./db";
import { seedWarehouse } from "./fixtures";

/**
 * A warehouse that manages locations (API.md section 11), written straight into the tables as the
 * other seeds are: its locations, the first being its receiving location. Returns the warehouse id.
 */
export async function seedLocationWarehouse(
  t: TestDb,
  codice: string,
  locations: { codice: string; tipo: "ricevimento" | "stoccaggio" | "quarantena"; attiva?: boolean }[],
): Promise<number> {
  const id = (await seedWarehouse(t.prisma, codice)).id;
  await t.pool.query(
    `INSERT INTO ubicazioni (magazzino_id, codice, tipo, attiva) SELECT $1, c, tp, a FROM unnest($2::text[], $3::text[], $4::bool[]) AS x(c, tp, a)`,
    [id, locations.map((l) => l.codice), locations.map((l) => l.tipo), locations.map((l) => l.attiva ?? true)],
  );
  await t.pool.query(
    `UPDATE magazzini SET gestione_ubicazioni = true,
            ubicazione_ricevimento_id = (SELECT id FROM ubicazioni WHERE magazzino_id = $1 AND codice = $2) WHERE id = $1`,
    [id, locations[0]!.codice],
  );
  return id;
}

/** What a location holds of an article (and lot), from the maintained rows. */
export async function heldIn(t: TestDb, ubicazione: string, articolo: number, lotto: string | null = null): Promise<number> {
  const { rows } = await t.pool.query(
    `SELECT COALESCE(sum(g.quantita), 0)::text AS q FROM giacenze_ubicazioni g JOIN ubicazioni u ON u.id = g.ubicazione_id
       LEFT JOIN lotti l ON l.id = g.lotto_id
      WHERE u.codice = $1 AND g.articolo_id = $2 AND l.codice IS NOT DISTINCT FROM $3`,
    [ubicazione, articolo, lotto],
  );
  return Number(rows[0].q);
}
