import type { Actor } from "../modules/auth/actor";
import type { TipoUbicazione } from "../../lib/domain-lists";
import type { TestDb } from "./db";
import { seedWarehouse } from "./fixtures";
import { seedLocations, switchLocations } from "./locations";

/**
 * A warehouse that manages locations (docs/api.md section 11): its locations (the first is its receiving
 * location), switched on through the ledger's switch as the warehouse upsert does. Returns the warehouse id.
 */
export async function seedLocationWarehouse(
  t: TestDb,
  actor: Actor,
  codice: string,
  locations: { codice: string; tipo: TipoUbicazione; attiva?: boolean }[],
): Promise<number> {
  const id = (await seedWarehouse(t.prisma, codice)).id;
  const ids = await seedLocations(t, id, locations);
  await switchLocations(t, actor, id, true, ids[locations[0]!.codice]!);
  return id;
}

/** What a location (by code) holds of an article (and lot), from the maintained rows. */
export async function heldIn(t: TestDb, ubicazione: string, articolo: number, lotto: string | null = null): Promise<number> {
  const { rows } = await t.pool.query(
    `SELECT COALESCE(sum(g.quantita), 0)::text AS q FROM giacenze_ubicazioni g JOIN ubicazioni u ON u.id = g.ubicazione_id
       LEFT JOIN lotti l ON l.id = g.lotto_id
      WHERE u.codice = $1 AND g.articolo_id = $2 AND l.codice IS NOT DISTINCT FROM $3`,
    [ubicazione, articolo, lotto],
  );
  return Number(rows[0].q);
}
