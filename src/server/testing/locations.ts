import { Prisma } from "../db/client";
import type { TipoUbicazione } from "../../lib/domain-lists";
import { execute, query } from "../db/sql";
import { inTransaction } from "../db/transaction";
import type { Actor } from "../modules/auth/actor";
import { setLocationManagement } from "../modules/ledger/location-switch.service";
import type { TestDb } from "./db";

/** Locations of one warehouse, written directly (the master-data endpoint is another module's); ids by code. */
export async function seedLocations(
  t: TestDb,
  magazzino: number,
  locations: { codice: string; tipo?: TipoUbicazione; attiva?: boolean }[],
): Promise<Record<string, number>> {
  const ids: Record<string, number> = {};
  for (const l of locations) {
    const { rows } = await t.pool.query(
      "INSERT INTO ubicazioni (magazzino_id, codice, tipo, attiva) VALUES ($1, $2, $3, $4) RETURNING id",
      [magazzino, l.codice, l.tipo ?? "stoccaggio", l.attiva ?? true],
    );
    ids[l.codice] = rows[0].id;
  }
  return ids;
}

/** Sets the warehouse's receiving location (by id, or none) and switches `gestione_ubicazioni` through the ledger's switch. */
export async function switchLocations(t: TestDb, actor: Actor, magazzino: number, on: boolean, ricevimento?: number | null) {
  return inTransaction(t.prisma, async (tx) => {
    if (ricevimento !== undefined) {
      await execute(tx, query(Prisma.sql`UPDATE magazzini SET ubicazione_ricevimento_id = ${ricevimento}::int WHERE id = ${magazzino}`));
    }
    return setLocationManagement(tx, actor, magazzino, on, { timeZone: "Europe/Rome" });
  });
}

/** What a location holds of an article (and lot code), from the maintained stock. */
export async function heldAt(t: TestDb, articolo: number, ubicazione: number, lotto: string | null = null): Promise<number> {
  const { rows } = await t.pool.query(
    `SELECT COALESCE(sum(s.quantita), 0)::text AS q FROM giacenze_ubicazioni s LEFT JOIN lotti l ON l.id = s.lotto_id
      WHERE s.articolo_id = $1 AND s.ubicazione_id = $2 AND l.codice IS NOT DISTINCT FROM $3`,
    [articolo, ubicazione, lotto],
  );
  return Number(rows[0].q);
}

/** Everything a refused write must leave unchanged: the ledger, location stock, balances and lots. */
export async function stockSnapshot(t: TestDb): Promise<string> {
  const { rows } = await t.pool.query(
    `SELECT (SELECT count(*) FROM movimenti)::text || '|' ||
            (SELECT count(*) || ':' || COALESCE(sum(quantita * id), 0) FROM giacenze_ubicazioni) || '|' ||
            (SELECT count(*) || ':' || COALESCE(sum(quantita * articolo_id * magazzino_id), 0) FROM giacenze) || '|' ||
            (SELECT count(*) || ':' || COALESCE(sum(residua * id), 0) FROM lotti) AS s`,
  );
  return rows[0].s;
}
