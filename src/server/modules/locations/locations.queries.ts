import type { TipoUbicazione } from "../../../lib/domain-lists";
import { LOCATION_GATE, MASTER_DATA_LOCKS } from "../../db/advisory-locks";
import { Prisma } from "../../db/client";
import { query } from "../../db/sql";

/**
 * The statements of the locations' master data (docs/api.md section 11): look-ups by (warehouse, code), the set-based
 * writes of POST /ubicazioni and of the import, what a deactivation must know, and the articles' preferred locations.
 */

/**
 * The locations' master-data lock (lock order 0b, `ubicazioni`): the same key the catalogue's `lockMasterData`
 * and the import take, written here so that this module needs nothing of the catalogue's.
 */
export const lockLocationsMasterData = () =>
  query<never>(Prisma.sql`SELECT pg_advisory_xact_lock(${MASTER_DATA_LOCKS.ubicazioni}::bigint)`);

/** The warehouses with these codes: a location names its warehouse by code. */
export const warehousesByCode = (codes: string[]) =>
  query<{ id: number; codice: string }>(Prisma.sql`SELECT id, codice FROM magazzini WHERE codice = ANY(${codes}::text[])`);

/** A location as a write compares it with what it is asked to write. */
export interface KnownLocation {
  id: number;
  magazzino_id: number;
  codice: string;
  descrizione: string | null;
  tipo: TipoUbicazione;
  attiva: boolean;
  /** It is its warehouse's receiving location. */
  ricevimento: boolean;
}

/** The locations with these (warehouse id, code) pairs, pair i of the two arrays together. */
export const locationsByKey = (warehouses: number[], codes: string[]) =>
  query<KnownLocation>(Prisma.sql`
    SELECT u.id, u.magazzino_id, u.codice, u.descrizione, u.tipo, u.attiva,
           coalesce(m.ubicazione_ricevimento_id = u.id, false) AS ricevimento
      FROM (SELECT DISTINCT * FROM unnest(${warehouses}::int[], ${codes}::text[])) AS k(magazzino_id, codice)
      JOIN ubicazioni u ON u.magazzino_id = k.magazzino_id AND u.codice = k.codice
      JOIN magazzini m ON m.id = u.magazzino_id`);

/**
 * The exclusive location gates of these locations, by id ascending (lock order 1b: the ledger's writers take it
 * shared to put goods into a location), for a deactivation that must see the location stay empty until commit.
 */
export const lockLocationGates = (ids: number[]) =>
  query<never>(Prisma.sql`
    SELECT pg_advisory_xact_lock(${LOCATION_GATE}::int, id)
      FROM (SELECT DISTINCT unnest(${ids}::int[]) AS id ORDER BY 1) AS g`);

/** What each of these locations holds above zero: how many (article, lot) rows, and their article codes. */
export const locationsHolding = (ids: number[]) =>
  query<{ ubicazione_id: number; articoli: string[] }>(Prisma.sql`
    SELECT g.ubicazione_id, array_agg(DISTINCT a.codice ORDER BY a.codice) AS articoli
      FROM giacenze_ubicazioni g JOIN articoli a ON a.id = g.articolo_id
     WHERE g.ubicazione_id = ANY(${ids}::int[]) AND g.quantita > 0
     GROUP BY g.ubicazione_id`);

/** The (article, warehouse) pairs with stock (other than zero) in these locations, in balance lock order. */
export const pairsStockedIn = (ids: number[]) =>
  query<{ articolo_id: number; magazzino_id: number }>(Prisma.sql`
    SELECT DISTINCT g.articolo_id, g.magazzino_id FROM giacenze_ubicazioni g
     WHERE g.ubicazione_id = ANY(${ids}::int[]) AND g.quantita <> 0
     ORDER BY g.articolo_id, g.magazzino_id`);

export interface LocationColumns {
  descrizione: (string | null)[];
  tipo: string[];
  attiva: boolean[];
}

/** New locations, in one statement (the ids' gate, tag 10, is taken once). */
export const insertLocations = (warehouses: number[], codes: string[], c: LocationColumns) =>
  query<{ id: number; magazzino_id: number; codice: string }>(Prisma.sql`
    INSERT INTO ubicazioni (magazzino_id, codice, descrizione, tipo, attiva)
    SELECT * FROM unnest(${warehouses}::int[], ${codes}::text[], ${c.descrizione}::text[], ${c.tipo}::text[], ${c.attiva}::boolean[])
    RETURNING id, magazzino_id, codice`);

/** Changed locations, in one statement: only rows whose values differ are passed. */
export const updateLocations = (ids: number[], c: LocationColumns) =>
  query<never>(Prisma.sql`
    UPDATE ubicazioni t SET descrizione = u.descrizione, tipo = u.tipo, attiva = u.attiva
      FROM unnest(${ids}::int[], ${c.descrizione}::text[], ${c.tipo}::text[], ${c.attiva}::boolean[]) AS u(id, descrizione, tipo, attiva)
     WHERE t.id = u.id`);

/** The preferred locations of these articles. */
export const preferredOf = (articles: number[]) =>
  query<{ articolo_id: number; magazzino_id: number; ubicazione_id: number }>(Prisma.sql`
    SELECT articolo_id, magazzino_id, ubicazione_id FROM ubicazioni_preferite
     WHERE articolo_id = ANY(${articles}::int[]) ORDER BY articolo_id, magazzino_id`);

export const deletePreferred = (articles: number[]) =>
  query<never>(Prisma.sql`DELETE FROM ubicazioni_preferite WHERE articolo_id = ANY(${articles}::int[])`);

export const insertPreferred = (articles: number[], warehouses: number[], locations: number[]) =>
  query<never>(Prisma.sql`
    INSERT INTO ubicazioni_preferite (articolo_id, magazzino_id, ubicazione_id)
    SELECT * FROM unnest(${articles}::int[], ${warehouses}::int[], ${locations}::int[])`);
